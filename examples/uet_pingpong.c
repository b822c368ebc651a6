/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uet_pingpong: RMA ping-pong latency. The client fi_writedata()s SIZE
 * bytes into the server's buffer; the server sees the remote CQ data and
 * writes the same back; the client times each round trip. Prints the
 * median half round trip. Plain libfabric: any RMA-capable RDM provider.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

static const char *usage =
	"usage: uet_pingpong -s [-a ADDR] [-S SERVICE] [-p PORT] [-n BYTES] "
	"[-i ITERS]\n"
	"       uet_pingpong -c SERVER [-S SERVICE] [-p PORT] [-n BYTES] "
	"[-i ITERS]\n";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The peer's write when it came before our own write's completion: the
 * order of the two is not defined (uet sends a reply ahead of an ACK).
 */
static int64_t pp_early = -1;

/* Writes SIZE bytes with |seq| as remote CQ data, to its completion. */
static int pp_send(struct ex_ctx *c, const struct ex_peer_info *r,
		   size_t size, uint64_t seq)
{
	struct fi_cq_data_entry e;
	ssize_t ret;

	do {
		ret = fi_writedata(c->fab.ep, c->buf, size, c->desc, seq,
				   c->peer, r->addr, r->key, NULL);
		if (ret == -FI_EAGAIN)
			fi_cq_read(c->fab.cq, NULL, 0);
	} while (ret == -FI_EAGAIN);
	if (ret) {
		fprintf(stderr, "fi_writedata: %s\n", fi_strerror((int)-ret));
		return -1;
	}
	for (;;) {
		if (ex_wait_cq(c, &e))
			return -1;
		if (!(e.flags & FI_REMOTE_CQ_DATA))
			return 0;
		pp_early = (int64_t)e.data;
	}
}

/* Waits for the peer's write carrying |seq| (our own send completions
 * come on the same CQ before it and are skipped). */
static int pp_recv(struct ex_ctx *c, uint64_t seq)
{
	struct fi_cq_data_entry e;

	if (pp_early >= 0) {
		e.data = (uint64_t)pp_early;
		pp_early = -1;
		return e.data == seq ? 0 : -1;
	}
	for (;;) {
		if (ex_wait_cq(c, &e))
			return -1;
		if (e.flags & FI_REMOTE_CQ_DATA)
			return e.data == seq ? 0 : -1;
	}
}

int main(int argc, char **argv)
{
	struct ex_peer_info remote;
	struct ex_opts o;
	struct ex_ctx c;
	uint64_t *rtt, t0;
	uint8_t done = 1;
	int ret = ex_parse(argc, argv, &o, usage);

	if (ret)
		return ret > 0 ? 0 : 2;
	rtt = calloc((size_t)o.iters, sizeof(*rtt));
	if (!rtt || ex_setup(&c, &o, o.size) || ex_exchange(&c, &o, &remote))
		goto fail;
	for (long i = 0; i < o.iters; i++) {
		t0 = now_ns();
		if (o.server ? pp_recv(&c, (uint64_t)i) ||
			       pp_send(&c, &remote, o.size, (uint64_t)i) :
			       pp_send(&c, &remote, o.size, (uint64_t)i) ||
			       pp_recv(&c, (uint64_t)i))
			goto fail;
		rtt[i] = now_ns() - t0;
	}
	if (o.server ? ex_oob_recv(&c, &done, 1) : ex_oob_send(&c, &done, 1))
		goto fail;
	if (!o.server) {
		qsort(rtt, (size_t)o.iters, sizeof(*rtt), cmp_u64);
		printf("uet_pingpong: %zu bytes x %ld: median half round trip "
		       "%.2f us (%s)\n", o.size, o.iters,
		       rtt[o.iters / 2] / 2000.0,
		       c.fab.info->fabric_attr->prov_name);
	}
	ex_teardown(&c);
	free(rtt);
	return 0;
fail:
	ex_teardown(&c);
	free(rtt);
	return 1;
}
