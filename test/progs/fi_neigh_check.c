/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Next-hop resolution seen from libfabric (test/e2e/e2e_neigh.sh):
 *
 *   fi_neigh_check -s -a ADDR -p PORT [-T S]
 *   fi_neigh_check -c ADDR -p PORT -x ABSENT [-F CMD] [-L MS] [-T S]
 *
 * The server registers a buffer and serves until the client says done on
 * the TCP side channel (examples/ex_common.c). The client, after the
 * exchange, runs CMD (the script flushes both neighbour tables with it),
 * times its first fi_write to the server (a peer whose next hop nobody
 * knows yet), then writes to ABSENT, an address nobody answers ARP for:
 * that write must fail with FI_EHOSTUNREACH within MS (default 8000)
 * while writes to the server on the same domain keep completing. A
 * second write to ABSENT must try again and fail the same way. Prints
 * "fi_neigh_check: ..." lines; exit 0 when every check held.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

#define NC_LEN		4096
#define NC_MIN_OPS	10	/* writes to the server while one resolves */
/*
 * None of them waits on the resolution: a lock held while the kernel
 * resolves would stall one for the whole timeout (3 s). Below that, a
 * loaded machine (CPUs shared with other tests) shows stalls of a few
 * hundred ms anyway, with or without a resolution going on.
 */
#define NC_MAX_OP_MS	1500

struct nc_args {
	const char *absent;
	const char *cmd;
	long bound_ms;
};

static uint64_t nc_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/*
 * One completion, good or bad, within |ms|: 1 with *ctx and *err (0 or
 * the FI_E* of an error completion), 0 on timeout, < 0 on failure.
 */
static int nc_next(struct ex_ctx *c, long ms, void **ctx, int *err,
		   char *why, size_t why_len)
{
	uint64_t end = nc_now_us() + (uint64_t)ms * 1000u;
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry ee;
	ssize_t n;

	while (nc_now_us() < end) {
		n = fi_cq_read(c->fab.cq, &e, 1);
		if (n == 1) {
			*ctx = e.op_context;
			*err = 0;
			return 1;
		}
		if (n == -FI_EAVAIL) {
			memset(&ee, 0, sizeof(ee));
			if (fi_cq_readerr(c->fab.cq, &ee, 0) != 1)
				return -1;
			*ctx = ee.op_context;
			*err = ee.err;
			snprintf(why, why_len, "%s", fi_cq_strerror(c->fab.cq,
				 ee.prov_errno, ee.err_data, NULL, 0));
			return 1;
		}
		if (n != -FI_EAGAIN)
			return (int)n;
	}
	return 0;
}

static int nc_write(struct ex_ctx *c, fi_addr_t to,
		    const struct ex_peer_info *r, struct fi_context2 *ctx)
{
	ssize_t ret;

	do {
		ret = fi_write(c->fab.ep, c->buf, NC_LEN, c->desc, to, r->addr,
			       r->key, ctx);
		if (ret == -FI_EAGAIN)
			fi_cq_read(c->fab.cq, NULL, 0);
	} while (ret == -FI_EAGAIN);
	return (int)ret;
}

/* A write to the server, timed; its completion must be good. */
static long nc_timed_write(struct ex_ctx *c, const struct ex_peer_info *r,
			   void *bad_ctx, int *bad_err, char *why,
			   size_t why_len)
{
	struct fi_context2 ctx;
	uint64_t t0 = nc_now_us();
	void *got = NULL;
	int err = 0, ret;

	if (nc_write(c, c->peer, r, &ctx))
		return -1;
	for (;;) {
		ret = nc_next(c, 10000, &got, &err, why, why_len);
		if (ret <= 0)
			return -1;
		if (got == bad_ctx) {	/* the other write ended meanwhile */
			*bad_err = err ? err : -1;
			continue;
		}
		if (got != &ctx || err)
			return -1;
		return (long)(nc_now_us() - t0);
	}
}

/*
 * A write to |absent| that must fail FI_EHOSTUNREACH within the bound,
 * while writes to the server go on. 0 when it did.
 */
static int nc_absent_round(struct ex_ctx *c, const struct ex_peer_info *r,
			   fi_addr_t absent, const struct nc_args *a, int round)
{
	struct fi_context2 bad;
	uint64_t t0 = nc_now_us(), t_end;
	long ops = 0, max_us = 0, us;
	int bad_err = 0, ret;
	char why[256] = "";

	ret = nc_write(c, absent, r, &bad);
	if (ret) {
		printf("fi_neigh_check: write %d to the absent address: "
		       "fi_write returned %s FAIL\n", round, fi_strerror(-ret));
		return -1;
	}
	while (!bad_err && nc_now_us() - t0 < (uint64_t)a->bound_ms * 1000u) {
		us = nc_timed_write(c, r, &bad, &bad_err, why, sizeof(why));
		if (us < 0) {
			printf("fi_neigh_check: a write to the server failed "
			       "while the absent one resolved FAIL\n");
			return -1;
		}
		ops++;
		if (us > max_us)
			max_us = us;
	}
	t_end = nc_now_us();
	printf("fi_neigh_check: write %d to the absent address: %s after %llu "
	       "ms (%s); meanwhile %ld writes to the server, the longest %ld "
	       "us", round, bad_err == FI_EHOSTUNREACH ? "FI_EHOSTUNREACH" :
	       bad_err > 0 ? fi_strerror(bad_err) : "no completion",
	       (unsigned long long)(t_end - t0) / 1000, why, ops, max_us);
	if (bad_err != FI_EHOSTUNREACH || ops < NC_MIN_OPS ||
	    max_us > NC_MAX_OP_MS * 1000) {
		printf(" FAIL\n");
		return -1;
	}
	printf(" ok\n");
	return 0;
}

static int nc_client(struct ex_ctx *c, const struct ex_opts *o,
		     const struct nc_args *a)
{
	struct ex_peer_info r;
	fi_addr_t absent;
	uint64_t t0;
	long us;
	int bad_err = 0, bad = 0;
	char why[256];

	if (ex_exchange(c, o, &r))
		return -1;
	if (a->cmd && system(a->cmd) != 0) {
		fprintf(stderr, "fi_neigh_check: '%s' failed\n", a->cmd);
		return -1;
	}
	us = nc_timed_write(c, &r, NULL, &bad_err, why, sizeof(why));
	if (us < 0) {
		printf("fi_neigh_check: first write to a fresh peer FAIL\n");
		return -1;
	}
	printf("fi_neigh_check: first write to a fresh peer: %ld us ok\n", us);
	us = nc_timed_write(c, &r, NULL, &bad_err, why, sizeof(why));
	printf("fi_neigh_check: second write: %ld us ok\n", us);
	t0 = nc_now_us();
	if (fi_av_insertsvc(c->fab.av, a->absent, o->service, &absent, 0,
			    NULL) != 1) {
		printf("fi_neigh_check: fi_av_insertsvc %s FAIL\n", a->absent);
		return -1;
	}
	printf("fi_neigh_check: fi_av_insertsvc of the absent address: %llu "
	       "us\n", (unsigned long long)(nc_now_us() - t0));
	bad |= nc_absent_round(c, &r, absent, a, 1);
	/* A later operation tries the resolution again. */
	bad |= nc_absent_round(c, &r, absent, a, 2);
	us = nc_timed_write(c, &r, NULL, &bad_err, why, sizeof(why));
	if (us < 0)
		bad = -1;
	if (ex_oob_send(c, "d", 1))
		return -1;
	return bad;
}

static int nc_server(struct ex_ctx *c, const struct ex_opts *o)
{
	struct ex_peer_info r;
	char done;

	if (ex_exchange(c, o, &r) || ex_oob_recv(c, &done, 1))
		return -1;
	printf("fi_neigh_check: server done\n");
	return 0;
}

static const char nc_usage[] =
	"usage: fi_neigh_check -s -a ADDR -p PORT [-T S]\n"
	"       fi_neigh_check -c ADDR -p PORT -x ABSENT [-F CMD] [-L MS] "
	"[-T S]\n";

int main(int argc, char **argv)
{
	struct ex_opts o = { .service = "42", .oob_port = 47932,
			     .size = NC_LEN, .iters = 1 };
	struct nc_args a = { .bound_ms = 8000 };
	struct ex_ctx c;
	int opt, ret;

	while ((opt = getopt(argc, argv, "sc:a:p:x:F:L:T:")) != -1) {
		switch (opt) {
		case 's': o.server = true; break;
		case 'c': o.dst = optarg; break;
		case 'a': o.src = optarg; break;
		case 'p': o.oob_port = atoi(optarg); break;
		case 'x': a.absent = optarg; break;
		case 'F': a.cmd = optarg; break;
		case 'L': a.bound_ms = atol(optarg); break;
		case 'T': alarm((unsigned int)atoi(optarg)); break;
		default:
			fprintf(stderr, "%s", nc_usage);
			return 2;
		}
	}
	if (o.server == (o.dst != NULL) || (!o.server && !a.absent)) {
		fprintf(stderr, "%s", nc_usage);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ex_setup(&c, &o, NC_LEN)) {
		ex_teardown(&c);
		return 1;
	}
	ret = o.server ? nc_server(&c, &o) : nc_client(&c, &o, &a);
	ex_teardown(&c);
	return ret ? 1 : 0;
}
