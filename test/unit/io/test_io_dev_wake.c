/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Waking an endpoint that sleeps (dev/uet_dev_wake.h): the flag a writer
 * takes once per sleep, and the datagram it then sends to the wake
 * socket named by the owner's nonce, which makes that socket (and no
 * other) readable until the owner reads it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "dev/uet_dev_wake.h"

static uint64_t t_nonce(void)
{
	uint64_t n = 0;

	cr_assert_eq(getrandom(&n, sizeof(n), 0), (ssize_t)sizeof(n));
	return n | 1;
}

static bool t_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

Test(io_dev_wake, a_writer_takes_the_flag_once_per_sleep)
{
	uint32_t sleeping = 0;

	cr_assert(!uet_dev_wake_take(&sleeping), "nobody sleeps: no wake");
	uet_dev_wake_arm(&sleeping);
	cr_assert(uet_dev_wake_take(&sleeping));
	cr_assert(!uet_dev_wake_take(&sleeping), "taken: one wake a sleep");
	cr_assert(uet_dev_wake_disarm(&sleeping), "the owner sees it taken");
	uet_dev_wake_arm(&sleeping);
	cr_assert(!uet_dev_wake_disarm(&sleeping), "not taken: none sent");
	cr_assert(!uet_dev_wake_take(&sleeping), "down: no wake");
}

Test(io_dev_wake, the_datagram_wakes_the_named_socket_only)
{
	uint64_t a = t_nonce(), b = a + 2;
	int fa = uet_dev_wake_open(a), fb = uet_dev_wake_open(b);
	int tx = uet_dev_wake_sender();

	cr_assert_geq(fa, 0, "open: %s", strerror(-fa));
	cr_assert_geq(fb, 0, "open: %s", strerror(-fb));
	cr_assert_geq(tx, 0);
	cr_assert(!t_readable(fa));
	uet_dev_wake_send(tx, a);
	cr_assert(t_readable(fa), "the sleeper's socket is readable");
	cr_assert(!t_readable(fb), "another's is not");
	cr_assert(uet_dev_wake_drain(fa));
	cr_assert(!t_readable(fa), "read: quiet again");
	cr_assert(!uet_dev_wake_drain(fa));
	/* A name no socket has: nothing, and no error to the writer. */
	uet_dev_wake_send(tx, b + 2);
	close(fa);
	close(fb);
	close(tx);
}

Test(io_dev_wake, a_connected_writer_and_a_name_taken_twice)
{
	uint64_t a = t_nonce();
	int fa = uet_dev_wake_open(a), c = uet_dev_wake_connect(a);

	cr_assert_geq(fa, 0);
	cr_assert_geq(c, 0, "connect: %s", strerror(-c));
	cr_assert_eq(uet_dev_wake_open(a), -EADDRINUSE);
	cr_assert_eq(write(c, "w", 1), 1);
	cr_assert(t_readable(fa));
	close(fa);
	close(c);
	cr_assert_lt(uet_dev_wake_connect(a), 0, "its owner is gone");
}

/* Many writers at once: one datagram each, all read in one drain. */
Test(io_dev_wake, wakes_queue_until_read)
{
	uint64_t a = t_nonce();
	int fa = uet_dev_wake_open(a), tx = uet_dev_wake_sender();

	cr_assert_geq(fa, 0);
	for (int i = 0; i < 100; i++)
		uet_dev_wake_send(tx, a);
	cr_assert(uet_dev_wake_drain(fa));
	cr_assert(!t_readable(fa));
	close(fa);
	close(tx);
}
