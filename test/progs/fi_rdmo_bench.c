/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rdmo_bench: the uet provider's offloaded append (<rdma/fi_ext_uet.h>,
 * one RDMO per append) against the same work done the one-sided way, in
 * plain libfabric: fi_fetch_atomic(FI_UINT64, FI_SUM, len) on the pointer,
 * wait for its completion to learn the offset, then fi_write of the data
 * there.
 *
 * The server registers a queue region (the data) and a pointer region,
 * publishes both on the TCP side channel and drives progress until the
 * client is done. The client runs, one after the other, each on its own
 * pointer and its own slice of the queue:
 *
 *   append W    COUNT appends of 8 bytes, W in flight (post until W are
 *               outstanding, reap completions, post again);
 *   onesided W  COUNT one-sided appends, W independent chains in flight,
 *               each fetch -> (its completion) write -> (its completion)
 *               the next fetch;
 *   append 1, onesided 1: LAT_COUNT of each, one in flight: the time of
 *               one append (median and mean);
 *
 * after an untimed warm-up of each form. Every phase is checked: each
 * result slot written before its completion, the old values exactly
 * {start, start + 8, ...} each once, the pointer read back with fi_read
 * equal to start + 8 * count; then (after a flush) the server checks its
 * own memory: each pointer, and each slice holding every 8-byte token of
 * its phase exactly once and nothing past its end. A wrong figure fails
 * the program (exit 1).
 *
 *   fi_rdmo_bench -s [-a ADDR] [-S SERVICE] [-p PORT] [-i COUNT] [-l COUNT]
 *   fi_rdmo_bench -c SERVER [-S SERVICE] [-p PORT] [-i COUNT] [-l COUNT]
 *                 [-w WINDOW] [-T SECONDS] [-r]
 * COUNT: appends of each windowed phase (default 200000); LAT_COUNT: of each
 * one-in-flight phase (default 5000); the server sizes its queue from both
 * (give it the client's). WINDOW: in flight (default 64). SECONDS: a phase
 * that has not posted everything by then stops posting and reports what
 * completed (default 30). -r: the one-sided form before the offloaded one.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_ext_uet.h>

#include "examples/ex_common.h"

#define R_NAME		"fi_rdmo_bench"
#define R_LEN		8		/* bytes per append */
#define R_SENTINEL	0xa5a5a5a5a5a5a5a5ull	/* never a pointer value */
#define R_PTR_STRIDE	64		/* pointers' spacing, bytes */
#define R_PTR_LEN	4096
#define R_WARM		2000		/* appends of each warm-up */
#define R_SHOW		5		/* faults printed */
#define R_WINDOW_MAX	1024

/* The phases, each with its own pointer and slice of the queue. */
enum {
	P_WARM_APPEND, P_WARM_ONESIDED, P_APPEND_W, P_ONESIDED_W,
	P_APPEND_1, P_ONESIDED_1, P_COUNT
};

/* In messages; the figures' lines say "append" or "onesided". */
static const char *const p_names[P_COUNT] = {
	"warm-up append", "warm-up onesided", "append windowed",
	"onesided windowed", "append 1 in flight", "onesided 1 in flight",
};

static bool p_onesided(int p) { return p & 1; }

struct r_opts {
	struct ex_opts ex;
	long count;
	long lat_count;
	long window;
	int limit_s;
	bool reverse;
};

/* What the server publishes beside ex_peer_info (the queue region). */
struct r_server_info {
	uint64_t ptr_addr;	/* remote address of the pointer region */
	uint64_t ptr_key;
	uint64_t start[P_COUNT];	/* each pointer's first value */
	uint64_t cap[P_COUNT];		/* appends each slice holds */
};

/* What the client sends at the end: appends that completed per phase. */
struct r_done {
	uint64_t n[P_COUNT];
	uint64_t failed;	/* 1 + the phase that failed, or 0 */
};

/* One chain (a slot of the window). */
enum { S_IDLE, S_APPEND, S_FETCH, S_WRITE_POST, S_WRITE };

struct r_slot {
	struct fi_context2 ctx;	/* first: completions name it */
	int state;
	long seq;		/* the append this slot runs */
	uint64_t old;		/* its offset, once known */
	uint64_t t0;		/* when its first step was posted, ns */
};

struct r_run {
	struct ex_ctx *c;
	struct ex_peer_info *r;
	struct r_server_info *si;
	struct fi_uet_rdmo_ops *ops;
	const struct r_opts *o;
	uint64_t *local;	/* c->buf: operand, read back, then src, res */
	uint64_t *src;		/* src[slot]: the 8 bytes appended */
	uint64_t *res;		/* res[slot]: the old pointer */
	struct r_slot *slot;
	struct fi_context2 xctx;	/* flush and read */
	uint64_t *lat;		/* ns of each append of the phase */
	uint8_t *seen;		/* seen[k]: offset start + 8k returned */
	long eagain;
};

#define R_FAIL(...)							\
	do {								\
		printf(R_NAME ": FAIL: " __VA_ARGS__);			\
		printf("\n");						\
		return -1;						\
	} while (0)

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

/* The token of append |seq| of phase |p|: phase in the top byte. */
static uint64_t r_token(int p, long seq)
{
	return ((uint64_t)(p + 1) << 56) | (uint64_t)seq;
}

static const char *usage =
	"usage: " R_NAME " -s [-a ADDR] [-S SERVICE] [-p PORT] [-i COUNT] "
	"[-l COUNT]\n"
	"       " R_NAME " -c SERVER [-S SERVICE] [-p PORT] [-i COUNT] "
	"[-l COUNT] [-w WINDOW] [-T SECONDS] [-r]\n";

static int r_parse(int argc, char **argv, struct r_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->ex.service = "42";
	o->ex.oob_port = 47935;
	o->ex.size = R_LEN;
	o->ex.iters = 1;
	o->count = 200000;
	o->lat_count = 5000;
	o->window = 64;
	o->limit_s = 30;
	while ((c = getopt(argc, argv, "sc:a:S:p:i:l:w:T:rh")) != -1) {
		switch (c) {
		case 's': o->ex.server = true; break;
		case 'c': o->ex.dst = optarg; break;
		case 'a': o->ex.src = optarg; break;
		case 'S': o->ex.service = optarg; break;
		case 'p': o->ex.oob_port = atoi(optarg); break;
		case 'i': o->count = strtol(optarg, NULL, 0); break;
		case 'l': o->lat_count = strtol(optarg, NULL, 0); break;
		case 'w': o->window = strtol(optarg, NULL, 0); break;
		case 'T': o->limit_s = atoi(optarg); break;
		case 'r': o->reverse = true; break;
		default:
			fprintf(stderr, "%s", usage);
			return c == 'h' ? 1 : -1;
		}
	}
	if (o->ex.server == (o->ex.dst != NULL) || o->count < 1 ||
	    o->count > 50000000 || o->lat_count < 1 ||
	    o->lat_count > 50000000 || o->window < 1 ||
	    o->window > R_WINDOW_MAX || o->limit_s < 1) {
		fprintf(stderr, "%s", usage);
		return -1;
	}
	return 0;
}

/* Appends of phase |p| the options ask for. */
static long r_count(const struct r_opts *o, int p)
{
	switch (p) {
	case P_WARM_APPEND:
	case P_WARM_ONESIDED:
		return o->count < R_WARM ? o->count : R_WARM;
	case P_APPEND_W:
	case P_ONESIDED_W:
		return o->count;
	default:
		return o->lat_count;
	}
}

/*
 * As ex_setup, with FI_ATOMIC among the caps (ex_setup asks RMA only) and
 * a context-format CQ; |buf_len| bytes registered as c->buf (the server's
 * queue region, the client's local buffer).
 */
static int r_setup(struct ex_ctx *c, const struct r_opts *o, size_t buf_len)
{
	struct ex_fab_opts fo = { .prog = R_NAME,
				  .cq_format = FI_CQ_FORMAT_CONTEXT,
				  .cq_size = 4 * R_WINDOW_MAX };

	return ex_setup_hints(c, &o->ex,
			      ex_hints_rdm(FI_ATOMIC | EX_RMA_CAPS,
					   FI_CONTEXT | FI_CONTEXT2),
			      &fo, buf_len) ? -1 : 0;
}

/* ---- client: completions --------------------------------------------------- */

static int r_cq_error(struct r_run *w, ssize_t n, const char *what)
{
	struct fi_cq_err_entry err = { 0 };

	if (n == -FI_EAVAIL && fi_cq_readerr(w->c->fab.cq, &err, 0) == 1) {
		struct r_slot *s = err.op_context;
		long i = s >= w->slot && s < w->slot + w->o->window ?
			 (long)(s - w->slot) : -1;

		R_FAIL("%s: error completion (slot %ld, %s): %s (prov_errno "
		       "%d: %s)", what, i, i < 0 ? "?" :
		       s->state == S_APPEND ? "append" :
		       s->state == S_FETCH ? "fetch" : "write",
		       fi_strerror(err.err), err.prov_errno,
		       fi_cq_strerror(w->c->fab.cq, err.prov_errno,
				      err.err_data, NULL, 0));
	}
	R_FAIL("%s: fi_cq_read: %s", what, fi_strerror((int)-n));
}

/* Waits for the one completion of context xctx (flush, read). */
static int r_wait_x(struct r_run *w, const char *what)
{
	struct fi_cq_entry e;
	uint64_t t0 = now_ns();

	for (unsigned long spin = 0;; spin++) {
		ssize_t n = fi_cq_read(w->c->fab.cq, &e, 1);

		if (n == 1) {
			if (e.op_context != &w->xctx)
				R_FAIL("%s: a completion of another context "
				       "%p", what, e.op_context);
			return 0;
		}
		if (n != -FI_EAGAIN)
			return r_cq_error(w, n, what);
		if (!(spin % 1024) &&
		    now_ns() - t0 > (uint64_t)w->o->limit_s * 1000000000ull)
			R_FAIL("%s: no completion in %d s", what,
			       w->o->limit_s);
	}
}

/* Posts with |call| until it is not -FI_EAGAIN, bounded in time. */
#define R_POST(w, what, call)						\
	do {								\
		uint64_t r_t0_ = now_ns();				\
		ssize_t r_ret_;						\
		while ((r_ret_ = (call)) == -FI_EAGAIN) {		\
			fi_cq_read((w)->c->fab.cq, NULL, 0);		\
			if (now_ns() - r_t0_ > 1000000000ull *		\
			    (uint64_t)(w)->o->limit_s)			\
				R_FAIL("%s: -FI_EAGAIN for %d s", what,	\
				       (w)->o->limit_s);		\
		}							\
		if (r_ret_)						\
			R_FAIL("%s: %s", what,				\
			       fi_strerror((int)-r_ret_));		\
	} while (0)

/* Reads the pointer of phase |p| with fi_read. */
static int r_read_ptr(struct r_run *w, int p, uint64_t *val)
{
	struct ex_ctx *c = w->c;

	w->local[1] = R_SENTINEL;
	R_POST(w, "fi_read of the pointer",
	       fi_read(c->fab.ep, &w->local[1], 8, c->desc, c->peer,
		       w->si->ptr_addr + (uint64_t)p * R_PTR_STRIDE,
		       w->si->ptr_key, &w->xctx));
	if (r_wait_x(w, "fi_read of the pointer"))
		return -1;
	*val = w->local[1];
	return 0;
}

/* ---- client: one phase -------------------------------------------------------- */

/* Old value |old| of append |seq| of phase |p|: in its slice, once. */
static int r_note_old(struct r_run *w, int p, long n, struct r_slot *s,
		      uint64_t old, long *bad)
{
	uint64_t start = w->si->start[p], k = (old - start) / R_LEN;

	if (old == R_SENTINEL) {
		if ((*bad)++ < R_SHOW)
			printf(R_NAME ": %s: append %ld completed with its "
			       "result unwritten\n", p_names[p], s->seq);
		return 0;
	}
	if (old < start || (old - start) % R_LEN || k >= (uint64_t)n) {
		if ((*bad)++ < R_SHOW)
			printf(R_NAME ": %s: append %ld got offset %#llx, "
			       "outside [%#llx, +%ld x %d)\n", p_names[p],
			       s->seq, (unsigned long long)old,
			       (unsigned long long)start, n, R_LEN);
		return 0;
	}
	if (w->seen[k]++ && (*bad)++ < R_SHOW)
		printf(R_NAME ": %s: offset %#llx given twice (append %ld)\n",
		       p_names[p], (unsigned long long)old, s->seq);
	return 0;
}

/* The first step of the next append of phase |p| on slot |i|. */
static ssize_t r_post_first(struct r_run *w, int p, long i)
{
	struct ex_ctx *c = w->c;
	struct r_slot *s = &w->slot[i];
	uint64_t paddr = w->si->ptr_addr + (uint64_t)p * R_PTR_STRIDE;

	w->src[i] = r_token(p, s->seq);
	w->res[i] = R_SENTINEL;
	s->t0 = now_ns();
	if (!p_onesided(p)) {
		s->state = S_APPEND;
		return w->ops->append(c->fab.ep, &w->src[i], R_LEN, c->desc,
				      c->peer, paddr, w->si->ptr_key, w->r->key,
				      &w->res[i], &s->ctx);
	}
	s->state = S_FETCH;
	return fi_fetch_atomic(c->fab.ep, &w->local[0], 1, c->desc, &w->res[i],
			       c->desc, c->peer, paddr, w->si->ptr_key,
			       FI_UINT64, FI_SUM, &s->ctx);
}

/* The one-sided form's second step: the write at the offset learnt. */
static ssize_t r_post_write(struct r_run *w, long i)
{
	struct ex_ctx *c = w->c;
	struct r_slot *s = &w->slot[i];

	s->state = S_WRITE;
	return fi_write(c->fab.ep, &w->src[i], R_LEN, c->desc, c->peer, s->old,
			w->r->key, &s->ctx);
}

/*
 * Phase |p|: n appends, |window| chains. Returns the appends that
 * completed (all n, or fewer when the time limit stopped the posting) in
 * *|done| and their time in *|ns|; -1 on failure.
 */
static int r_phase(struct r_run *w, int p, long n, long window, long *done,
		   uint64_t *ns)
{
	struct ex_ctx *c = w->c;
	uint64_t limit = (uint64_t)w->o->limit_s * 1000000000ull;
	uint64_t t0, t, start = w->si->start[p], ptr;
	long posted = 0, completed = 0, inflight = 0, bad = 0;
	long *todo = malloc((size_t)window * sizeof(*todo)), ntodo = 0;
	bool stopped = false;
	struct fi_cq_entry e[16];

	if (!todo)
		R_FAIL("no memory");
	memset(w->seen, 0, (size_t)n);
	for (long i = 0; i < window; i++) {
		w->slot[i].state = S_IDLE;
		todo[ntodo++] = window - 1 - i;
	}
	t0 = now_ns();
	while (completed < posted || (!stopped && posted < n)) {
		ssize_t got;

		/* Slots with a step to post: idle ones start the next
		 * append, others post their write. */
		while (ntodo) {
			long i = todo[ntodo - 1];
			struct r_slot *s = &w->slot[i];
			ssize_t ret;

			if (s->state == S_IDLE) {
				if (stopped || posted >= n) {
					ntodo--;
					continue;
				}
				s->seq = posted;
				ret = r_post_first(w, p, i);
			} else {
				ret = r_post_write(w, i);
			}
			if (ret == -FI_EAGAIN) {
				s->state = s->state == S_WRITE ? S_WRITE_POST
							       : S_IDLE;
				w->eagain++;
				break;
			}
			if (ret) {
				free(todo);
				R_FAIL("%s: posting append %ld: %s",
				       p_names[p], s->seq,
				       fi_strerror((int)-ret));
			}
			if (s->state != S_WRITE) {
				posted++;
				inflight++;
			}
			ntodo--;
		}
		got = fi_cq_read(c->fab.cq, e, 16);
		t = now_ns();
		if (got == -FI_EAGAIN)
			got = 0;
		if (got < 0) {
			free(todo);
			return r_cq_error(w, got, p_names[p]);
		}
		for (ssize_t k = 0; k < got; k++) {
			struct r_slot *s = e[k].op_context;
			long i = s - w->slot;

			if (s < w->slot || s >= w->slot + window ||
			    s->state == S_IDLE || s->state == S_WRITE_POST) {
				free(todo);
				R_FAIL("%s: a completion of context %p, not "
				       "an append in flight", p_names[p],
				       e[k].op_context);
			}
			if (s->state == S_FETCH) {
				/* Its offset: now the write. */
				s->old = w->res[i];
				r_note_old(w, p, n, s, s->old, &bad);
				if (s->old == R_SENTINEL) {
					free(todo);
					R_FAIL("%s: cannot write at an "
					       "unknown offset", p_names[p]);
				}
				s->state = S_WRITE_POST;
				todo[ntodo++] = i;
				continue;
			}
			if (s->state == S_APPEND)
				r_note_old(w, p, n, s, w->res[i], &bad);
			w->lat[s->seq] = t - s->t0;
			s->state = S_IDLE;
			completed++;
			inflight--;
			todo[ntodo++] = i;
		}
		if (!stopped && posted < n && t - t0 > limit) {
			printf(R_NAME ": %s: stopped after %d s "
			       "with %ld of %ld posted\n", p_names[p],
			       w->o->limit_s, posted, n);
			stopped = true;
		}
		if (t - t0 > limit + 5000000000ull) {
			free(todo);
			R_FAIL("%s: %ld of %ld posted appends still in "
			       "flight %d s after the limit", p_names[p],
			       inflight, posted, 5);
		}
	}
	*ns = now_ns() - t0;
	free(todo);
	*done = completed;
	/* Untimed: every offset once, the pointer where they all end, and
	 * a flush so that the server sees every byte. */
	for (long k = 0; k < completed; k++)
		if (!w->seen[k] && bad++ < R_SHOW)
			printf(R_NAME ": %s: offset %#llx never given\n",
			       p_names[p],
			       (unsigned long long)(start + (uint64_t)k *
						    R_LEN));
	if (r_read_ptr(w, p, &ptr))
		return -1;
	if (ptr != start + (uint64_t)completed * R_LEN) {
		printf(R_NAME ": %s: pointer read back %#llx, expected %#llx "
		       "(start %#llx + %ld x %d)\n", p_names[p],
		       (unsigned long long)ptr,
		       (unsigned long long)(start + (uint64_t)completed *
					    R_LEN),
		       (unsigned long long)start, completed, R_LEN);
		bad++;
	}
	R_POST(w, "flush", w->ops->flush(c->fab.ep, c->peer, &w->xctx));
	if (r_wait_x(w, "flush"))
		return -1;
	if (bad)
		R_FAIL("%s (%ld in flight): %ld faults in %ld appends",
		       p_names[p], window, bad, completed);
	return 0;
}

/* Runs phase |p| and prints its figure. */
static int r_report(struct r_run *w, int p, long window, double *figure,
		    long *done_out)
{
	long n = r_count(w->o, p), done = 0;
	const char *prov = w->c->fab.info->fabric_attr->prov_name;
	const char *form = p_onesided(p) ? "onesided" : "append";
	uint64_t ns = 0;

	if (r_phase(w, p, n, window, &done, &ns))
		return -1;
	*done_out = done;
	if (!done)
		R_FAIL("%s: no append completed", p_names[p]);
	if (p == P_WARM_APPEND || p == P_WARM_ONESIDED) {
		printf(R_NAME ": %s: %ld in %.3f s\n", p_names[p], done,
		       ns / 1e9);
		return 0;
	}
	if (window > 1) {
		*figure = done * 1e9 / ns;
		printf(R_NAME ": %s, %ld in flight: %ld x %d bytes in %.3f s: "
		       "%.0f appends/s (%s)\n", form, window, done,
		       R_LEN, ns / 1e9, *figure, prov);
		return 0;
	}
	qsort(w->lat, (size_t)done, sizeof(*w->lat), cmp_u64);
	*figure = w->lat[done / 2] / 1e3;
	printf(R_NAME ": %s, 1 in flight: %ld x %d bytes: median %.2f us, "
	       "mean %.2f us per append (%s)\n", form, done, R_LEN,
	       *figure, ns / 1e3 / done, prov);
	return 0;
}

static int r_client(struct ex_ctx *c, struct ex_peer_info *r,
		    struct r_server_info *si, const struct r_opts *o,
		    struct r_done *d)
{
	struct r_run w = { .c = c, .r = r, .si = si, .o = o };
	long nmax = o->count > o->lat_count ? o->count : o->lat_count;
	struct fi_atomic_attr attr;
	double fig[P_COUNT] = { 0 };
	int order[P_COUNT], ret = -1;

	for (int p = 0; p < P_COUNT; p++)
		if (r_count(o, p) > (long)si->cap[p])
			R_FAIL("%s: %ld appends, the server's slice holds "
			       "%llu (give it the same -i and -l)",
			       p_names[p], r_count(o, p),
			       (unsigned long long)si->cap[p]);
	ret = fi_open_ops(&c->fab.domain->fid, FI_UET_RDMO_OPS, 0,
			  (void **)&w.ops, NULL);
	if (ret)
		R_FAIL("fi_open_ops(FI_UET_RDMO_OPS): %s (provider %s)",
		       fi_strerror(-ret), c->fab.info->fabric_attr->prov_name);
	if (w.ops->size < sizeof(*w.ops))
		R_FAIL("struct fi_uet_rdmo_ops of %zu bytes", w.ops->size);
	if (fi_query_atomic(c->fab.domain, FI_UINT64, FI_SUM, &attr,
			    FI_FETCH_ATOMIC))
		R_FAIL("no fetching FI_SUM on FI_UINT64");
	w.local = c->buf;
	w.src = w.local + 8;
	w.res = w.src + o->window;
	w.local[0] = R_LEN;	/* the fetch's operand */
	w.slot = calloc((size_t)o->window, sizeof(*w.slot));
	w.lat = calloc((size_t)nmax, sizeof(*w.lat));
	w.seen = malloc((size_t)nmax);
	ret = -1;
	if (!w.slot || !w.lat || !w.seen) {
		printf(R_NAME ": FAIL: no memory\n");
		goto out;
	}
	order[0] = P_WARM_APPEND;
	order[1] = P_WARM_ONESIDED;
	order[2] = o->reverse ? P_ONESIDED_W : P_APPEND_W;
	order[3] = o->reverse ? P_APPEND_W : P_ONESIDED_W;
	order[4] = o->reverse ? P_ONESIDED_1 : P_APPEND_1;
	order[5] = o->reverse ? P_APPEND_1 : P_ONESIDED_1;
	for (int k = 0; k < P_COUNT; k++) {
		int p = order[k];
		long win = p >= P_APPEND_1 ? 1 : o->window, done = 0;

		if (r_report(&w, p, win, &fig[p], &done)) {
			/* Its slice is not checked (what landed is not
			 * known). */
			d->failed = (uint64_t)p + 1;
			goto out;
		}
		d->n[p] = (uint64_t)done;
	}
	printf(R_NAME ": append vs onesided, %ld in flight: %.2f x the rate\n",
	       o->window, fig[P_APPEND_W] / fig[P_ONESIDED_W]);
	printf(R_NAME ": append vs onesided, 1 in flight: %.2f x faster\n",
	       fig[P_ONESIDED_1] / fig[P_APPEND_1]);
	printf(R_NAME ": client: every offset once, pointers right (%ld "
	       "-FI_EAGAIN)\n", w.eagain);
	ret = 0;
out:
	free(w.slot);
	free(w.lat);
	free(w.seen);
	return ret;
}

/* ---- server ------------------------------------------------------------------- */

/* Slice of phase |p| in the queue: |off| bytes in, |cap| appends. */
static void r_slices(const struct r_opts *o, uint64_t *off, uint64_t *cap)
{
	uint64_t at = 0;

	for (int p = 0; p < P_COUNT; p++) {
		off[p] = at;
		cap[p] = (uint64_t)r_count(o, p);
		at += cap[p] * R_LEN;
	}
}

/* The server's own memory for phase |p| after |n| appends. */
static int r_check_slice(const volatile uint64_t *q, const uint8_t *ptrs,
			 struct r_server_info *si, uint64_t base, int p,
			 uint64_t n)
{
	uint64_t ptr = *(const volatile uint64_t *)(const void *)
		       (ptrs + p * R_PTR_STRIDE);
	uint64_t start = si->start[p], first = (start - base) / R_LEN;
	long bad = 0;
	uint8_t *seen = calloc(n ? n : 1, 1);

	if (!seen)
		R_FAIL("no memory");
	if (ptr != start + n * R_LEN) {
		printf(R_NAME ": server: %s: pointer %#llx after %llu appends "
		       "from %#llx\n", p_names[p], (unsigned long long)ptr,
		       (unsigned long long)n, (unsigned long long)start);
		bad++;
	}
	for (uint64_t k = 0; k < si->cap[p]; k++) {
		uint64_t v = q[first + k], seq = v & ((1ull << 56) - 1);

		if (k >= n) {
			if (v && bad++ < R_SHOW)
				printf(R_NAME ": server: %s: %#llx written "
				       "past the end, at %llu\n", p_names[p],
				       (unsigned long long)v,
				       (unsigned long long)k);
			continue;
		}
		if (v >> 56 != (uint64_t)p + 1 || seq >= n) {
			if (bad++ < R_SHOW)
				printf(R_NAME ": server: %s: slot %llu holds "
				       "%#llx\n", p_names[p],
				       (unsigned long long)k,
				       (unsigned long long)v);
		} else if (seen[seq]++ && bad++ < R_SHOW) {
			printf(R_NAME ": server: %s: append %llu twice\n",
			       p_names[p], (unsigned long long)seq);
		}
	}
	free(seen);
	if (bad)
		R_FAIL("server: %s: %ld faults in %llu appends", p_names[p],
		       bad, (unsigned long long)n);
	return 0;
}

static int r_server(struct ex_ctx *c, const uint8_t *ptrs,
		    struct r_server_info *si, uint64_t base)
{
	struct r_done d;
	uint8_t verdict = 1;
	uint64_t total = 0;

	if (ex_oob_recv(c, &d, sizeof(d)))
		R_FAIL("server: no word from the client");
	for (int p = 0; p < P_COUNT; p++) {
		if (d.failed == (uint64_t)p + 1) {
			printf(R_NAME ": server: %s: failed at the client, "
			       "not checked\n", p_names[p]);
			continue;
		}
		if (d.n[p] > si->cap[p]) {
			printf(R_NAME ": server: %s: %llu appends claimed, the "
			       "slice holds %llu\n", p_names[p],
			       (unsigned long long)d.n[p],
			       (unsigned long long)si->cap[p]);
			verdict = 0;
			continue;
		}
		if (r_check_slice(c->buf, ptrs, si, base, p, d.n[p]))
			verdict = 0;
		total += d.n[p];
	}
	if (ex_oob_send(c, &verdict, 1))
		R_FAIL("server: the client went away before the verdict");
	if (!verdict)
		R_FAIL("server: the queue is not what the client appended");
	printf(R_NAME ": server: all ok, %llu appends in %d slices\n",
	       (unsigned long long)total, P_COUNT);
	return 0;
}

int main(int argc, char **argv)
{
	struct r_server_info si = { 0 };
	struct ex_peer_info remote;
	struct fid_mr *ptr_mr = NULL;
	uint8_t *ptrs = NULL, verdict = 0;
	uint64_t off[P_COUNT], base = 0;
	struct r_done d = { { 0 }, 0 };
	struct r_opts o;
	struct ex_ctx c;
	bool va;
	int ret = r_parse(argc, argv, &o);
	size_t len;

	if (ret)
		return ret > 0 ? 0 : 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = 1;
	r_slices(&o, off, si.cap);
	/* Server: the queue of every slice. Client: operand, read back,
	 * pad, then the window's sources and results. */
	len = o.ex.server ? (off[P_COUNT - 1] + si.cap[P_COUNT - 1] * R_LEN)
			  : (8 + 2 * (size_t)o.window) * 8;
	if (r_setup(&c, &o, len))
		goto out;
	if (o.ex.server) {
		if (ex_mr_reg(&c.fab, R_PTR_LEN, 0x9712, (void **)&ptrs,
			      &ptr_mr))
			goto out;
		va = c.fab.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR;
		base = va ? (uint64_t)(uintptr_t)c.buf : 0;
		si.ptr_addr = va ? (uint64_t)(uintptr_t)ptrs : 0;
		si.ptr_key = fi_mr_key(ptr_mr);
		/* Each pointer starts at its slice (an address under
		 * FI_MR_VIRT_ADDR, an offset in the queue otherwise). */
		for (int p = 0; p < P_COUNT; p++) {
			si.start[p] = base + off[p];
			memcpy(ptrs + p * R_PTR_STRIDE, &si.start[p], 8);
		}
	}
	if (ex_exchange(&c, &o.ex, &remote))
		goto out;
	if (o.ex.server) {
		if (ex_oob_send(&c, &si, sizeof(si)) ||
		    r_server(&c, ptrs, &si, base))
			goto out;
		ret = 0;
		goto out;
	}
	if (ex_oob_recv(&c, &si, sizeof(si))) {
		printf(R_NAME ": FAIL: no pointer region from the server\n");
		goto out;
	}
	ret = r_client(&c, &remote, &si, &o, &d) ? 1 : 0;
	/* The server checks its memory against what ran. */
	if (ex_oob_send(&c, &d, sizeof(d)) || ex_oob_recv(&c, &verdict, 1) ||
	    !verdict) {
		printf(R_NAME ": FAIL: the server found the queue wrong (or "
		       "went away)\n");
		ret = 1;
	} else if (!ret) {
		printf(R_NAME ": server: every append's 8 bytes once in its "
		       "slice, every pointer right\n");
	}
out:
	if (ptr_mr)
		fi_close(&ptr_mr->fid);
	ex_teardown(&c);
	free(ptrs);
	return ret;
}
