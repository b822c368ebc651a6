/* SPDX-License-Identifier: BSD-2-Clause */
/* Waking an endpoint that sleeps (uet_dev_wake.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "dev/uet_dev_shm.h"
#include "dev/uet_dev_wake.h"

static socklen_t uet_dev_wake_name(struct sockaddr_un *a, uint64_t nonce)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	/* Abstract: sun_path[0] is 0; the name is what follows. */
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1,
		     "uet-wake-%016llx", (unsigned long long)nonce);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static int uet_dev_wake_socket(void)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	return fd < 0 ? -errno : fd;
}

/* A socket bound or connected (|op|) to the wake name of |nonce|. */
static int uet_dev_wake_named(uint64_t nonce,
			      int (*op)(int, const struct sockaddr *,
					socklen_t))
{
	struct sockaddr_un a;
	socklen_t len = uet_dev_wake_name(&a, nonce);
	int fd = uet_dev_wake_socket(), err;

	if (fd < 0)
		return fd;
	if (op(fd, (struct sockaddr *)&a, len) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int uet_dev_wake_open(uint64_t nonce)
{
	return uet_dev_wake_named(nonce, bind);
}

int uet_dev_wake_sender(void)
{
	return uet_dev_wake_socket();
}

int uet_dev_wake_connect(uint64_t nonce)
{
	return uet_dev_wake_named(nonce, connect);
}

void uet_dev_wake_send(int fd, uint64_t nonce)
{
	struct sockaddr_un a;
	socklen_t len = uet_dev_wake_name(&a, nonce);

	/*
	 * A full socket wakes its owner anyway; a gone one needs nothing.
	 * (An owner woken for nothing looks, finds nothing and sleeps.)
	 */
	(void)!sendto(fd, "w", 1, MSG_DONTWAIT, (struct sockaddr *)&a, len);
}

bool uet_dev_wake_drain(int fd)
{
	char buf[64];
	bool any = false;

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		any = true;
	return any;
}

void uet_dev_wake_arm(uint32_t *sleeping)
{
	__atomic_store_n(sleeping, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

bool uet_dev_wake_take(uint32_t *sleeping)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(sleeping, __ATOMIC_RELAXED) &&
	       __atomic_exchange_n(sleeping, 0, __ATOMIC_SEQ_CST);
}

bool uet_dev_wake_disarm(uint32_t *sleeping)
{
	return !__atomic_exchange_n(sleeping, 0, __ATOMIC_SEQ_CST);
}

void uet_dev_wake_owner(struct uet_dev_shm_slot *sl, int *sender)
{
	uint64_t nonce;

	if (!uet_dev_wake_take(&sl->sleeping))
		return;
	nonce = __atomic_load_n(&sl->wake_nonce, __ATOMIC_RELAXED);
	if (*sender < 0)
		*sender = uet_dev_wake_sender();
	if (nonce && *sender >= 0)
		uet_dev_wake_send(*sender, nonce);
}
