/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_amo_window (issue 11): fetching atomics with up to W in flight, in
 * plain libfabric (any provider). The server exposes a buffer; the client
 * runs, with at most W operations outstanding:
 *
 *  1. N fi_fetch_atomic(FI_SUM, FI_UINT64) of 8 on one remote counter that
 *     starts at 0: the old values must be exactly {0, 8, ..., 8(N-1)}, each
 *     once, and the counter read back (fi_read) 8N;
 *  2. N fi_compare_atomic(FI_CSWAP_NE, FI_UINT64) on another remote word
 *     that starts at 0, with a compare value never stored and the swap
 *     value i+1 for operation i: every one swaps whatever the order, so the
 *     old values and the final value read back form one chain
 *     0 -> a+1 -> b+1 -> ... -> final, that is exactly {0..N};
 *  3. libfabric's contract on result buffers: written before their
 *     completion, never after. Every result slot starts as a sentinel; at
 *     its completion it must hold something else, which is copied; after
 *     everything is drained and 50 ms more of fi_cq_read, every slot must
 *     still equal its copy (and no completion may come in those 50 ms).
 *
 * The client then tells the server on the side channel how many of each
 * ran, and the server checks its own memory against that.
 *
 *   fi_amo_window -s [-a ADDR] [-S SERVICE] [-p PORT] [-T SECONDS]
 *   fi_amo_window -c SERVER [-S SERVICE] [-p PORT] [-w WINDOW] [-i COUNT]
 *                 [-T SECONDS]
 * WINDOW: operations in flight (default 64); COUNT: operations per phase
 * (default 20000); SECONDS: the longest any loop may take (default 60).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

#define W_SENTINEL	0xa5a5a5a5a5a5a5a5ull	/* odd and > any value */
#define W_NEVER		0xfedcba9876543210ull	/* compare: never stored */
#define W_COUNTER	0			/* server offsets */
#define W_SWAPPED	64
#define W_SERVER_LEN	4096
#define W_SHOW		5			/* examples printed */

struct w_opts {
	struct ex_opts ex;
	long window;
	long count;
	int limit_s;
};

/* What the client sends the server at the end: operations that ran (0 for
 * a phase that did not finish). */
struct w_done {
	uint64_t fetches;
	uint64_t compares;
};

/* The client's state; its registered buffer is laid out as
 * [operand, compare, read back, pad...] then res[count], swap[count]. */
struct w_run {
	struct ex_ctx *c;
	struct ex_peer_info *r;
	long window, count;
	int limit_s;
	uint64_t *local;	/* c->buf: operand 0, compare 1, read back 2 */
	uint64_t *res;		/* result slot of operation i */
	uint64_t *swap;		/* swap value of operation i */
	uint64_t *copy;		/* res[i] as seen at its completion */
	uint8_t *done;		/* 1 once operation i completed */
	struct fi_context2 *ctx;
	struct fi_context2 rctx;
	long completions;	/* every completion seen, for the figures */
	long max_inflight;
	long eagain;
};

#define W_FAIL(...)							\
	do {								\
		printf("fi_amo_window: FAIL: " __VA_ARGS__);		\
		printf("\n");						\
		return -1;						\
	} while (0)

#define W_CHECK(call)							\
	do {								\
		int w_ret_ = (int)(call);				\
		if (w_ret_ < 0)						\
			W_FAIL("%s: %s", #call, fi_strerror(-w_ret_));	\
	} while (0)

static double w_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *usage =
	"usage: fi_amo_window -s [-a ADDR] [-S SERVICE] [-p PORT] [-T SECONDS]\n"
	"       fi_amo_window -c SERVER [-S SERVICE] [-p PORT] [-w WINDOW] "
	"[-i COUNT] [-T SECONDS]\n";

static int w_parse(int argc, char **argv, struct w_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->ex.service = "42";
	o->ex.oob_port = 47933;
	o->ex.size = 8;
	o->ex.iters = 1;
	o->window = 64;
	o->count = 20000;
	o->limit_s = 60;
	while ((c = getopt(argc, argv, "sc:a:S:p:w:i:T:h")) != -1) {
		switch (c) {
		case 's': o->ex.server = true; break;
		case 'c': o->ex.dst = optarg; break;
		case 'a': o->ex.src = optarg; break;
		case 'S': o->ex.service = optarg; break;
		case 'p': o->ex.oob_port = atoi(optarg); break;
		case 'w': o->window = strtol(optarg, NULL, 0); break;
		case 'i': o->count = strtol(optarg, NULL, 0); break;
		case 'T': o->limit_s = atoi(optarg); break;
		default:
			fprintf(stderr, "%s", usage);
			return c == 'h' ? 1 : -1;
		}
	}
	if (o->ex.server == (o->ex.dst != NULL) || o->window < 1 ||
	    o->count < 1 || o->count > 10000000 || o->limit_s < 1) {
		fprintf(stderr, "%s", usage);
		return -1;
	}
	return 0;
}

/*
 * As ex_setup, with FI_ATOMIC among the caps (ex_setup asks RMA only, and
 * tcp's rxm then refuses atomics) and a CQ deep enough for the window.
 */
static int w_setup(struct ex_ctx *c, const struct w_opts *o, size_t buf_len)
{
	struct ex_fab_opts fo = {
		.prog = "fi_amo_window", .cq_format = FI_CQ_FORMAT_CONTEXT,
		.cq_size = (size_t)(o->window < 128 ? 256 : 2 * o->window),
	};

	return ex_setup_hints(c, &o->ex,
			      ex_hints_rdm(FI_ATOMIC | EX_RMA_CAPS,
					   FI_CONTEXT | FI_CONTEXT2),
			      &fo, buf_len) ? -1 : 0;
}

/* ---- completions --------------------------------------------------------- */

/* Prints an error completion (or a failed fi_cq_read) and fails. */
static int w_cq_error(struct w_run *w, ssize_t n)
{
	struct fi_cq_err_entry err = { 0 };

	if (n == -FI_EAVAIL && fi_cq_readerr(w->c->fab.cq, &err, 0) == 1) {
		long i = err.op_context ? (long)((struct fi_context2 *)
						 err.op_context - w->ctx) : -1;

		W_FAIL("error completion (operation %ld): %s (prov_errno %d: "
		       "%s)", i >= 0 && i < w->count ? i : -1,
		       fi_strerror(err.err), err.prov_errno,
		       fi_cq_strerror(w->c->fab.cq, err.prov_errno,
				      err.err_data, NULL, 0));
	}
	W_FAIL("fi_cq_read: %s", fi_strerror((int)-n));
}

/*
 * Reads what the CQ has (one call); each completion must be an operation
 * of this phase not completed before, whose result slot is no longer the
 * sentinel: its value is copied. Returns the number reaped or -1.
 */
static long w_reap(struct w_run *w, const char *phase)
{
	struct fi_cq_entry e[16];
	ssize_t n = fi_cq_read(w->c->fab.cq, e, 16);

	if (n == -FI_EAGAIN)
		return 0;
	if (n < 0)
		return w_cq_error(w, n);
	for (ssize_t k = 0; k < n; k++) {
		struct fi_context2 *x = e[k].op_context;
		long i = x >= w->ctx && x < w->ctx + w->count ?
			 (long)(x - w->ctx) : -1;

		w->completions++;
		if (i < 0)
			W_FAIL("%s: a completion with an unknown context %p",
			       phase, e[k].op_context);
		if (w->done[i])
			W_FAIL("%s: operation %ld completed twice", phase, i);
		if (w->res[i] == W_SENTINEL)
			W_FAIL("%s: operation %ld completed with its result "
			       "buffer unwritten (still the sentinel %#llx)",
			       phase, i, (unsigned long long)W_SENTINEL);
		w->done[i] = 1;
		w->copy[i] = w->res[i];
	}
	return (long)n;
}

/* N operations of one phase, at most |window| in flight. */
static int w_phase(struct w_run *w, const char *phase, bool fetch)
{
	struct ex_ctx *c = w->c;
	uint64_t raddr = w->r->addr + (fetch ? W_COUNTER : W_SWAPPED);
	long posted = 0, completed = 0;
	double t0 = w_now();

	for (long i = 0; i < w->count; i++) {
		w->res[i] = W_SENTINEL;
		w->done[i] = 0;
		w->swap[i] = (uint64_t)i + 1;
	}
	for (unsigned long spin = 0; completed < w->count; spin++) {
		long got;

		while (posted < w->count && posted - completed < w->window) {
			long i = posted;
			ssize_t ret = fetch ?
				fi_fetch_atomic(c->fab.ep, &w->local[0], 1,
						c->desc, &w->res[i], c->desc,
						c->peer, raddr, w->r->key,
						FI_UINT64, FI_SUM,
						&w->ctx[i]) :
				fi_compare_atomic(c->fab.ep, &w->swap[i], 1,
						  c->desc, &w->local[1],
						  c->desc, &w->res[i],
						  c->desc, c->peer, raddr,
						  w->r->key, FI_UINT64,
						  FI_CSWAP_NE, &w->ctx[i]);

			if (ret == -FI_EAGAIN) {
				w->eagain++;
				break;
			}
			if (ret)
				W_FAIL("%s: operation %ld: %s", phase, i,
				       fi_strerror((int)-ret));
			posted++;
			if (posted - completed > w->max_inflight)
				w->max_inflight = posted - completed;
		}
		got = w_reap(w, phase);
		if (got < 0)
			return -1;
		completed += got;
		if (!(spin % 1024) && w_now() - t0 > w->limit_s)
			W_FAIL("%s: %ld of %ld operations completed after %d s "
			       "(%ld posted)", phase, completed, w->count,
			       w->limit_s, posted);
	}
	return 0;
}

/* Reads a remote word into local[2], bounded in time. */
static int w_read(struct w_run *w, uint64_t off, uint64_t *val)
{
	struct ex_ctx *c = w->c;
	struct fi_cq_entry e;
	double t0 = w_now();
	ssize_t ret;

	w->local[2] = W_SENTINEL;
	while ((ret = fi_read(c->fab.ep, &w->local[2], 8, c->desc, c->peer,
			      w->r->addr + off, w->r->key, &w->rctx)) ==
	       -FI_EAGAIN) {
		fi_cq_read(c->fab.cq, NULL, 0);
		if (w_now() - t0 > w->limit_s)
			W_FAIL("fi_read: -FI_EAGAIN for %d s", w->limit_s);
	}
	W_CHECK(ret);
	for (unsigned long spin = 0;; spin++) {
		ssize_t n = fi_cq_read(c->fab.cq, &e, 1);

		if (n == 1) {
			w->completions++;
			if (e.op_context != &w->rctx)
				W_FAIL("a completion for context %p while "
				       "waiting for a read", e.op_context);
			break;
		}
		if (n != -FI_EAGAIN)
			return w_cq_error(w, n);
		if (!(spin % 1024) && w_now() - t0 > w->limit_s)
			W_FAIL("fi_read: no completion in %d s", w->limit_s);
	}
	*val = w->local[2];
	return 0;
}

/* 50 ms more of fi_cq_read: nothing may complete any more. */
static int w_linger(struct w_run *w, const char *phase)
{
	struct fi_cq_entry e;
	double t0 = w_now();

	while (w_now() - t0 < 0.05) {
		ssize_t n = fi_cq_read(w->c->fab.cq, &e, 1);

		if (n == 1)
			W_FAIL("%s: a completion (context %p) after all had "
			       "completed", phase, e.op_context);
		if (n != -FI_EAGAIN)
			return w_cq_error(w, n);
	}
	return 0;
}

/* ---- the checks ---------------------------------------------------------- */

/* Old values of the fetch phase: {0, 8, ..., 8(N-1)}, each once. */
static int w_check_fetch(struct w_run *w, uint64_t final)
{
	long n = w->count, repeated = 0, odd = 0, missing = 0, shown = 0;
	uint8_t *seen = calloc((size_t)n, 1);

	if (!seen)
		W_FAIL("no memory");
	for (long i = 0; i < n; i++) {
		uint64_t v = w->copy[i];

		if (v % 8 || v / 8 >= (uint64_t)n) {
			if (odd++ < W_SHOW)
				printf("fi_amo_window: fetch: operation %ld "
				       "returned %llu, not a multiple of 8 "
				       "below 8N\n", i, (unsigned long long)v);
		} else if (seen[v / 8]++) {
			repeated++;
		}
	}
	for (long k = 0; k < n; k++) {
		if (seen[k])
			continue;
		if (missing++ < W_SHOW)
			printf("fi_amo_window: fetch: old value %llu never "
			       "returned\n", (unsigned long long)k * 8);
	}
	for (long k = 0; k < n && shown < W_SHOW; k++)
		if (seen[k] > 1) {
			shown++;
			printf("fi_amo_window: fetch: old value %llu returned "
			       "%u times\n", (unsigned long long)k * 8,
			       seen[k]);
		}
	free(seen);
	if (repeated || odd || missing)
		W_FAIL("fetch, window %ld: %ld old values repeated, %ld "
		       "missing, %ld out of range, of %ld (counter read back: "
		       "%llu, expected %llu)", w->window, repeated, missing,
		       odd, n, (unsigned long long)final,
		       (unsigned long long)n * 8);
	if (final != (uint64_t)n * 8)
		W_FAIL("fetch, window %ld: old values right but the counter "
		       "read back is %llu, expected %llu", w->window,
		       (unsigned long long)final, (unsigned long long)n * 8);
	return 0;
}

/* Old values of the compare phase and the final value: one chain from 0
 * through every swap value i+1, that is {0..N} each once. */
static int w_check_compare(struct w_run *w, uint64_t final)
{
	long n = w->count, repeated = 0, out = 0, missing = 0, steps = 0;
	long *who = malloc((size_t)(n + 1) * sizeof(*who));
	uint64_t v = 0;

	if (!who)
		W_FAIL("no memory");
	for (long k = 0; k <= n; k++)
		who[k] = -1;
	for (long i = 0; i < n; i++) {
		v = w->copy[i];
		if (v > (uint64_t)n) {
			if (out++ < W_SHOW)
				printf("fi_amo_window: compare: operation %ld "
				       "returned %llu, above N\n", i,
				       (unsigned long long)v);
		} else if (who[v] >= 0) {
			if (repeated++ < W_SHOW)
				printf("fi_amo_window: compare: old value %llu "
				       "returned by operations %ld and %ld\n",
				       (unsigned long long)v, who[v], i);
		} else {
			who[v] = i;
		}
	}
	if (final > (uint64_t)n || who[final] >= 0)
		printf("fi_amo_window: compare: final value %llu is %s\n",
		       (unsigned long long)final, final > (uint64_t)n ?
		       "above N" : "also an old value");
	for (long k = 0; k <= n; k++)
		if (who[k] < 0 && (uint64_t)k != final)
			missing++;
	/* The chain: 0 -> (operation that saw 0)+1 -> ... -> final. */
	for (v = 0; steps < n && who[v] >= 0; steps++)
		v = (uint64_t)who[v] + 1;
	free(who);
	if (repeated || out || missing || steps != n || v != final)
		W_FAIL("compare, window %ld: %ld old values repeated, %ld "
		       "missing, %ld out of range, of %ld; the chain from 0 "
		       "has %ld links and ends at %llu, the value read back "
		       "is %llu", w->window, repeated, missing, out, n, steps,
		       (unsigned long long)v, (unsigned long long)final);
	return 0;
}

/* Every result buffer still holds what it held at its completion. */
static int w_check_late(struct w_run *w, const char *phase,
			const uint64_t *res, const uint64_t *copy)
{
	long late = 0;

	for (long i = 0; i < w->count; i++) {
		if (res[i] == copy[i])
			continue;
		if (late++ < W_SHOW)
			printf("fi_amo_window: %s: operation %ld: %llu at its "
			       "completion, %llu now\n", phase, i,
			       (unsigned long long)copy[i],
			       (unsigned long long)res[i]);
	}
	if (late)
		W_FAIL("%s, window %ld: %ld result buffers written after their "
		       "completion", phase, w->window, late);
	return 0;
}

/* ---- client and server --------------------------------------------------- */

static int w_client(struct ex_ctx *c, struct ex_peer_info *r,
		    const struct w_opts *o, struct w_done *d)
{
	struct w_run w = { .c = c, .r = r, .window = o->window,
			   .count = o->count, .limit_s = o->limit_s };
	size_t n = (size_t)o->count;
	uint64_t *copies, *fetch_res, counter, last;
	struct fi_atomic_attr attr;
	double t0, t_fetch, t_cmp;
	int ret = -1, bad;

	if (fi_query_atomic(c->fab.domain, FI_UINT64, FI_SUM, &attr,
			    FI_FETCH_ATOMIC) ||
	    fi_query_atomic(c->fab.domain, FI_UINT64, FI_CSWAP_NE, &attr,
			    FI_COMPARE_ATOMIC))
		W_FAIL("%s does not offer fetching FI_SUM and FI_CSWAP_NE on "
		       "FI_UINT64", c->fab.info->fabric_attr->prov_name);
	/* The registered buffer: operand, compare, read back; the result
	 * slots of both phases; the swap values. */
	w.local = c->buf;
	fetch_res = w.local + 8;
	w.res = fetch_res;
	w.swap = fetch_res + 2 * n;
	w.local[0] = 8;
	w.local[1] = W_NEVER;
	copies = malloc(2 * n * sizeof(*copies));
	w.copy = copies;
	w.done = malloc(n);
	w.ctx = calloc(n, sizeof(*w.ctx));
	if (!copies || !w.done || !w.ctx) {
		printf("fi_amo_window: FAIL: no memory\n");
		goto out;
	}

	t0 = w_now();
	if (w_phase(&w, "fetch", true) || w_linger(&w, "fetch") ||
	    w_read(&w, W_COUNTER, &counter))
		goto out;
	t_fetch = w_now() - t0;
	d->fetches = n;
	printf("fi_amo_window: fetch: %zu fi_fetch_atomic, window %ld, in "
	       "%.3f s\n", n, w.window, t_fetch);
	/* A wrong old value fails the run, but the other phase still runs
	 * and is checked, so that one run tells everything. */
	bad = w_check_fetch(&w, counter) ? 1 : 0;

	w.res = fetch_res + n;
	w.copy = copies + n;
	t0 = w_now();
	if (w_phase(&w, "compare", false) || w_linger(&w, "compare") ||
	    w_read(&w, W_SWAPPED, &last))
		goto out;
	t_cmp = w_now() - t0;
	d->compares = n;
	printf("fi_amo_window: compare: %zu fi_compare_atomic, window %ld, in "
	       "%.3f s\n", n, w.window, t_cmp);
	bad += w_check_compare(&w, last) ? 1 : 0;

	/* Written after their completion: the last look, after one more
	 * spell of progress. */
	if (w_linger(&w, "the end"))
		goto out;
	bad += w_check_late(&w, "fetch", fetch_res, copies) ? 1 : 0;
	bad += w_check_late(&w, "compare", fetch_res + n, copies + n) ? 1 : 0;
	if (bad) {
		printf("fi_amo_window: client: %d check%s failed (window %ld, "
		       "at most %ld in flight)\n", bad, bad > 1 ? "s" : "",
		       w.window, w.max_inflight);
		goto out;
	}
	printf("fi_amo_window: client: all ok (window %ld, at most %ld in "
	       "flight, %ld -FI_EAGAIN; %zu fetches in %.3f s, old values "
	       "0..%llu each once, counter %llu; %zu compares in %.3f s, one "
	       "chain 0..%zu ending at %llu; no result written after its "
	       "completion)\n", w.window, w.max_inflight, w.eagain, n,
	       t_fetch, (unsigned long long)(n - 1) * 8,
	       (unsigned long long)counter, n, t_cmp, n,
	       (unsigned long long)last);
	ret = 0;
out:
	free(copies);
	free(w.done);
	free(w.ctx);
	return ret;
}

/* The server's own view, after the client's word: the counter is 8 per
 * fetch, the compared word one of the swap values. */
static int w_server(struct ex_ctx *c)
{
	const volatile uint64_t *mem = c->buf;
	struct w_done d;

	if (ex_oob_recv(c, &d, sizeof(d)))
		W_FAIL("server: no word from the client");
	printf("fi_amo_window: server: counter %llu after %llu fetches of 8, "
	       "compared word %llu after %llu swaps\n",
	       (unsigned long long)mem[W_COUNTER / 8],
	       (unsigned long long)d.fetches,
	       (unsigned long long)mem[W_SWAPPED / 8],
	       (unsigned long long)d.compares);
	if (d.fetches && mem[W_COUNTER / 8] != d.fetches * 8)
		W_FAIL("server: counter %llu after %llu fetches of 8",
		       (unsigned long long)mem[W_COUNTER / 8],
		       (unsigned long long)d.fetches);
	if (d.compares && (mem[W_SWAPPED / 8] < 1 ||
			   mem[W_SWAPPED / 8] > d.compares))
		W_FAIL("server: compared word %llu after %llu swaps",
		       (unsigned long long)mem[W_SWAPPED / 8],
		       (unsigned long long)d.compares);
	if (!d.fetches || !d.compares)
		W_FAIL("server: the client stopped before the end");
	printf("fi_amo_window: server: all ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct ex_peer_info remote;
	struct w_done d = { 0 };
	struct w_opts o;
	struct ex_ctx c;
	int ret = w_parse(argc, argv, &o);
	size_t len;

	if (ret)
		return ret > 0 ? 0 : 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = 1;
	/* Client: 8 words, then results of both phases and swap values. */
	len = o.ex.server ? W_SERVER_LEN : (8 + 3 * (size_t)o.count) * 8;
	if (w_setup(&c, &o, len) || ex_exchange(&c, &o.ex, &remote))
		goto out;
	if (o.ex.server) {
		if (w_server(&c))
			goto out;
	} else {
		ret = w_client(&c, &remote, &o, &d) ? 1 : 0;
		/* The server checks its memory against what ran. */
		if (ex_oob_send(&c, &d, sizeof(d)))
			ret = 1;
		goto out;
	}
	ret = 0;
out:
	ex_teardown(&c);
	return ret;
}
