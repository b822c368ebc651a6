/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd's answer to UET_DEV_TOP (`uetctl top`, issue 44): each endpoint's
 * identity, which only the service knows (process, user, JobID), beside
 * the figures its engine publishes in the control block. The block itself
 * stays between the service and the endpoints: a reader without an
 * endpoint gets a copy here, as `uetctl stats` does, and no privilege.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/uetd.h"
#include "uet_xdp_shared.h"

_Static_assert(UET_XDP_CNT_MAX <= UET_DEV_TOP_XDP_CNT,
	       "uet_dev_top_rep: room for every XDP counter");

/* The name of process |pid| (its comm), or "?" when it is gone. */
static void uetd_top_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	if (n <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

void uetd_top_reply(struct uetd *d, int conn)
{
	static uint8_t buf[sizeof(struct uet_dev_top_rep) +
			   UET_FEP_MAX_EPS * sizeof(struct uet_dev_top_ep)];
	struct uet_dev_top_rep *rep = (struct uet_dev_top_rep *)buf;
	struct timespec ts;

	memset(rep, 0, sizeof(*rep));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	rep->now_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	uet_xdp_counters_read(&d->maps, rep->xdp);
	rep->local_dropped = __atomic_load_n(&d->shm->local_dropped,
					     __ATOMIC_RELAXED);
	rep->opens = d->opens;
	rep->refusals = d->refusals;
	for (uint32_t i = 1; i < d->layout.max_eps; i++) {
		const struct uetd_ep *e = &d->eps[i];
		struct uet_dev_top_ep *t = &rep->ep[rep->cnt];

		if (e->conn < 0)
			continue;
		memset(t, 0, sizeof(*t));
		t->index = i;
		t->pid = e->pid;
		t->uid = e->uid;
		t->job_id = e->job_id;
		t->pid_on_fep = e->pid_on_fep;
		t->queue = d->queue_id + e->queue;
		uetd_top_comm(e->pid, t->comm, sizeof(t->comm));
		t->fresh = uet_dev_pub_read(&d->shm->slot[i].pub, &t->c);
		rep->cnt++;
	}
	uetd_send(conn, buf, sizeof(*rep) + rep->cnt * sizeof(rep->ep[0]),
		  NULL, 0);
}
