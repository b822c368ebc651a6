/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg_bench: tagged messaging speed in plain libfabric (any provider),
 * with fi_msg_check's set-up.
 *   lat: ping-pong of SIZE-byte tagged messages (fi_tinject when the
 *        provider's inject_size allows and -S is not given, else fi_tsend
 *        and its completion); prints the median half round trip.
 *   bw:  the client keeps 64 fi_tsend()s of SIZE bytes in flight, ITERS in
 *        all; the server keeps 64 receives posted (into one buffer: the
 *        bytes are not looked at) and answers the last; prints MB/s from
 *        the first send to that answer.
 *
 *   fi_msg_bench -s [-a ADDR] [-p PORT] [-O] [-M] [-S] -m lat|bw -n SIZE [-i ITERS]
 *   fi_msg_bench -c SERVER [-p PORT] [-O] [-M] [-S] -m lat|bw -n SIZE [-i ITERS]
 * -O: ask for FI_ORDER_SAS. -M: do not ask for FI_MULTI_RECV (never used
 * here; libfabric 1.17's shm provider faults when its minimum is set).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test/progs/fi_msg_check.h"

#define B_WINDOW	64
#define B_WARMUP	100
#define B_TAG_PING	0x1001
#define B_TAG_PONG	0x1002
#define B_TAG_DATA	0x2001
#define B_TAG_DONE	0x2002

static uint64_t b_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int b_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * -S: small sends with a completion too (fi_tsend, as Open MPI's MPI_Isend
 * and so its collectives send), not injected.
 */
static bool b_no_inject;

/* A send we need not wait for: injected, or its completion collected. */
static int b_send(struct t *t, size_t len, uint64_t tag)
{
	if (!b_no_inject && len <= t->fab.info->tx_attr->inject_size) {
		T_RETRY(t, fi_tinject(t->fab.ep, t->sbuf, len, t->peer, tag));
		return 0;
	}
	if (t_tsend(t, t->sbuf, len, tag, NULL))
		return -1;
	return t_tx_drain(t);
}

static int b_wait(struct t *t)
{
	struct fi_cq_tagged_entry e;
	int ret;

	/* Spin on the CQ: no helper between us and the provider. */
	while ((ret = (int)fi_cq_read(t->fab.rx_cq, &e, 1)) == -FI_EAGAIN)
		;
	T_CHECK(ret == 1, "receive: %s", fi_strerror(-ret));
	return 0;
}

static int b_lat(struct t *t, size_t len, long iters)
{
	uint64_t *rtt = calloc((size_t)iters, sizeof(*rtt)), t0;
	uint64_t mine = t->server ? B_TAG_PONG : B_TAG_PING;
	uint64_t theirs = t->server ? B_TAG_PING : B_TAG_PONG;
	long i, n = iters + B_WARMUP;

	T_CHECK(rtt, "out of memory");
	if (t_trecv(t, t->rbuf, len, FI_ADDR_UNSPEC, theirs, NULL))
		goto fail;
	for (i = 0; i < n; i++) {
		t0 = b_now_ns();
		if (!t->server && b_send(t, len, mine))
			goto fail;
		if (b_wait(t))
			goto fail;
		/* The next receive is up before the answer can come back. */
		if (i + 1 < n && t_trecv(t, t->rbuf, len, FI_ADDR_UNSPEC,
					 theirs, NULL))
			goto fail;
		if (t->server && b_send(t, len, mine))
			goto fail;
		if (i >= B_WARMUP)
			rtt[i - B_WARMUP] = b_now_ns() - t0;
	}
	if (!t->server) {
		double sum = 0;

		for (i = 0; i < iters; i++)
			sum += (double)rtt[i];
		qsort(rtt, (size_t)iters, sizeof(*rtt), b_cmp);
		/* The tail too: fi_pingpong reports the mean. */
		printf("fi_msg_bench: lat %zu bytes x %ld: median half round "
		       "trip %.2f us (%s); mean %.2f, p90 %.2f, p99 %.2f, "
		       "p99.9 %.2f us\n", len, iters,
		       rtt[iters / 2] / 2000.0, t->prov, sum / iters / 2000.0,
		       rtt[iters * 9 / 10] / 2000.0,
		       rtt[iters * 99 / 100] / 2000.0,
		       rtt[iters * 999 / 1000] / 2000.0);
	}
	free(rtt);
	return t_tx_drain(t);
fail:
	free(rtt);
	return -1;
}

static int b_bw_server(struct t *t, size_t len, long iters)
{
	long posted = 0, done = 0;
	int k;

	for (k = 0; k < B_WINDOW && posted < iters; k++, posted++)
		if (t_trecv(t, t->rbuf, len, FI_ADDR_UNSPEC, B_TAG_DATA,
			    &t_ctx[k]))
			return -1;
	while (done < iters) {
		struct fi_cq_tagged_entry e;
		int ret = (int)fi_cq_read(t->fab.rx_cq, &e, 1);

		if (ret == -FI_EAGAIN)
			continue;
		T_CHECK(ret == 1, "receive: %s", fi_strerror(-ret));
		done++;
		if (posted < iters && t_trecv(t, t->rbuf, len, FI_ADDR_UNSPEC,
					      B_TAG_DATA, e.op_context))
			return -1;
		posted += posted < iters;
	}
	return b_send(t, 0, B_TAG_DONE) || t_tx_drain(t) ? -1 : 0;
}

static int b_bw_client(struct t *t, size_t len, long iters)
{
	long posted = 0;
	uint64_t t0;

	if (t_trecv(t, t->rbuf, 0, FI_ADDR_UNSPEC, B_TAG_DONE, NULL))
		return -1;
	t0 = b_now_ns();
	while (posted < iters) {
		if (posted - (long)t->tx_done >= B_WINDOW) {
			t_progress(t);
			continue;
		}
		if (t_tsend(t, t->sbuf, len, B_TAG_DATA, NULL))
			return -1;
		posted++;
	}
	if (b_wait(t))
		return -1;
	t0 = b_now_ns() - t0;
	printf("fi_msg_bench: bw %zu bytes x %ld: %.1f MB/s (%s)\n", len,
	       iters, (double)len * (double)iters * 1e3 / (double)t0, t->prov);
	return t_tx_drain(t);
}

int main(int argc, char **argv)
{
	const char *server = NULL, *src = NULL, *mode = "lat";
	struct t t = { .oob.oob_fd = -1 };
	int c, port = 47933, ret = 1;
	size_t len = 8;
	long iters = 10000;
	bool sas = false;

	while ((c = getopt(argc, argv, "sc:a:p:OMSm:n:i:")) != -1) {
		switch (c) {
		case 's': t.server = true; break;
		case 'c': server = optarg; break;
		case 'a': src = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'O': sas = true; break;
		case 'M': t.no_multi = true; break;
		case 'S': b_no_inject = true; break;
		case 'm': mode = optarg; break;
		case 'n': len = strtoul(optarg, NULL, 0); break;
		case 'i': iters = strtol(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (t.server == (server != NULL) || iters < 1 ||
	    (strcmp(mode, "lat") && strcmp(mode, "bw")) ||
	    len > T_BUF_LEN)
		goto usage;
	if (t_open(&t, t.server ? src : server, "42", sas, port) ||
	    t_sync(&t))
		goto out;
	if (!strcmp(mode, "lat"))
		ret = b_lat(&t, len, iters);
	else
		ret = t.server ? b_bw_server(&t, len, iters) :
				 b_bw_client(&t, len, iters);
	/* Both done before either closes: the last ACKs are out. */
	ret = ret || t_sync(&t) ? 1 : 0;
out:
	t_close(&t);
	return ret;
usage:
	fprintf(stderr, "usage: fi_msg_bench -s [-a ADDR] | -c SERVER "
		"[-p PORT] [-O] [-M] [-S] -m lat|bw -n SIZE [-i ITERS]\n");
	return 2;
}
