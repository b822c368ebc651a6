/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uet_pingpong: RMA ping-pong latency. The client fi_writedata()s SIZE
 * bytes into the server's buffer; the server sees the remote CQ data and
 * writes the same back; the client times each round trip. Prints the
 * median and mean half round trip. Plain libfabric: any RMA-capable RDM
 * provider. The client may start at a wall-clock time (-T START, or
 * -T @FILE: the time FILE will hold), stop after SECONDS (-D; ITERS is
 * then a bound) and print every half round trip with the wall-clock time
 * it started (-t): the latency of a small flow beside others that start
 * at the same time.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

static const char *usage =
	"usage: uet_pingpong -s [-a ADDR] [-S SERVICE] [-p PORT] [-n BYTES] "
	"[-i ITERS] [-w]\n"
	"       uet_pingpong -c SERVER [-S SERVICE] [-p PORT] [-n BYTES] "
	"[-i ITERS] [-T START|@FILE] [-D SECONDS] [-t] [-w]\n"
	"  -w: wait for completions (fi_cq_sread), do not spin\n";

/* The remote CQ data that ends a client's run before ITERS (-D); fits
 * the 4 bytes of remote CQ data some providers carry. */
#define PP_STOP		0xffffffffull

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
static bool pp_has_early;
static uint64_t pp_early;

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
		pp_has_early = true;
		pp_early = e.data;
	}
}

/* 0 for |seq|, 1 for PP_STOP, -1 for anything else. */
static int pp_seq_check(uint64_t data, uint64_t seq)
{
	return data == seq ? 0 : data == PP_STOP ? 1 : -1;
}

/* Waits for the peer's write carrying |seq| (our own send completions
 * come on the same CQ before it and are skipped): 0, 1 when the peer
 * stopped instead (PP_STOP), -1 on error. */
static int pp_recv(struct ex_ctx *c, uint64_t seq)
{
	struct fi_cq_data_entry e;

	if (pp_has_early) {
		pp_has_early = false;
		return pp_seq_check(pp_early, seq);
	}
	for (;;) {
		if (ex_wait_cq(c, &e))
			return -1;
		if (e.flags & FI_REMOTE_CQ_DATA)
			return pp_seq_check(e.data, seq);
	}
}

/* Server: answers each write until ITERS or the client's PP_STOP. */
static int pp_server(struct ex_ctx *c, const struct ex_opts *o,
		     const struct ex_peer_info *r)
{
	for (long i = 0; i < o->iters; i++) {
		int ret = pp_recv(c, (uint64_t)i);

		if (ret)
			return ret > 0 ? 0 : -1;
		if (pp_send(c, r, o->size, (uint64_t)i))
			return -1;
	}
	return 0;
}

/*
 * Client: times round trips into |rtt| (ns) and when each began (ns
 * after the wall-clock time *|wall0|), until ITERS or -D; the number
 * timed in *|n|. A run that starts at a given time (-T) makes one round
 * trip before it waits, untimed: a provider may connect on the first
 * (tcp's rxm does). 0 or -1.
 */
static int pp_client(struct ex_ctx *c, const struct ex_opts *o,
		     const struct ex_peer_info *r, uint64_t *rtt,
		     uint64_t *start, long *n, double *wall0)
{
	uint64_t t0, first, limit_ns = (uint64_t)(o->duration * 1e9);
	long warm = ex_is_timed(o);

	if (warm && (pp_send(c, r, o->size, 0) || pp_recv(c, 0) ||
		     ex_start_wait(o, "uet_pingpong")))
		return -1;
	*wall0 = ex_wall_now();
	first = now_ns();
	for (*n = 0; *n + warm < o->iters; (*n)++) {
		uint64_t seq = (uint64_t)(*n + warm);

		t0 = now_ns();
		if (limit_ns && t0 - first >= limit_ns)
			return pp_send(c, r, o->size, PP_STOP);
		if (pp_send(c, r, o->size, seq) || pp_recv(c, seq))
			return -1;
		rtt[*n] = now_ns() - t0;
		start[*n] = t0 - first;
	}
	return 0;
}

/* Prints the client's round trips: each with -t, then the summary. */
static void pp_report(struct ex_ctx *c, const struct ex_opts *o,
		      uint64_t *rtt, const uint64_t *start, long n,
		      double wall0)
{
	double sum = 0;

	for (long i = 0; i < n; i++) {
		sum += (double)rtt[i];
		if (o->trace)
			printf("uet_pingpong: at %.6f half round trip %.2f us\n",
			       wall0 + start[i] / 1e9, rtt[i] / 2000.0);
	}
	qsort(rtt, (size_t)n, sizeof(*rtt), cmp_u64);
	printf("uet_pingpong: %zu bytes x %ld: median half round trip "
	       "%.2f us, mean %.2f us (%s)\n", o->size, n,
	       n ? rtt[n / 2] / 2000.0 : 0, n ? sum / n / 2000.0 : 0,
	       c->fab.info->fabric_attr->prov_name);
}

int main(int argc, char **argv)
{
	struct ex_peer_info remote;
	struct ex_opts o;
	struct ex_ctx c = { .oob_fd = -1 };
	uint64_t *rtt = NULL, *start = NULL;
	double wall0 = 0;
	uint8_t done = 1;
	long n = 0;
	int ret = ex_parse(argc, argv, &o, usage);

	if (ret)
		return ret > 0 ? 0 : 2;
	if ((uint64_t)o.iters >= PP_STOP) {
		fprintf(stderr, "%s", usage);
		return 2;
	}
	rtt = calloc((size_t)o.iters, sizeof(*rtt));
	start = calloc((size_t)o.iters, sizeof(*start));
	if (!rtt || !start || ex_setup(&c, &o, o.size) ||
	    ex_exchange(&c, &o, &remote))
		goto fail;
	if (o.server ? pp_server(&c, &o, &remote) ||
		       ex_oob_recv(&c, &done, 1) :
		       pp_client(&c, &o, &remote, rtt, start, &n, &wall0) ||
		       ex_oob_send(&c, &done, 1))
		goto fail;
	if (!o.server)
		pp_report(&c, &o, rtt, start, n, wall0);
	ex_teardown(&c);
	free(rtt);
	free(start);
	return 0;
fail:
	ex_teardown(&c);
	free(rtt);
	free(start);
	return 1;
}
