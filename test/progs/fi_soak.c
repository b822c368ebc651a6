/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_soak (issue [R], "loss and faults, verified"): long verified RMA and
 * tagged transfers, and the survivor's view of a peer killed with -9.
 * Plain libfabric (FI_PROVIDER=uet, or tcp), a TCP side channel.
 *
 *   fi_soak -s -a ADDR [-p PORT] [-C CLIENTS] [-G MS] [-T SEC]
 *   fi_soak -c SERVER [-p PORT] -m rma|tag [-M MIB] [-n SIZE] [-w WINDOW]
 *           [-N] [-K [-r]] [-T SEC]
 *
 * The server exposes a 64 MiB region and serves CLIENTS clients (default
 * 1) one after the other. A client's rma run writes MIB MiB in writes of
 * SIZE bytes (default 1 MiB), WINDOW in flight (default 8), in rounds of
 * 64 MiB: after each round the server checks every byte of the round
 * against the pattern and the client reads the round back with fi_read
 * and compares (-N: no read back). A tag run sends MIB MiB in tagged
 * messages of SIZE bytes at most (lengths vary, some small or empty),
 * each with its own tag; the server keeps WINDOW receives posted, each
 * for one exact tag, and checks tag, length and every byte.
 * Each client prints bytes, seconds, MB/s and the longest time an
 * operation took from post to completion.
 *
 * -K (client): no end: write or send until the first error completion
 * (the server was killed), print when it came, then require every
 * operation in flight to complete (success or error) and a new one to fail,
 * and exit 0. "fi_soak: running" says the path works and the kill may
 * come. -r (with -K -m rma): fi_read instead of fi_write.
 *
 * A client that dies (side channel closed) ends its session at the
 * server: in a tag session the server waits -G ms (default 2000) for the
 * receives still posted, then cancels them all and requires each to come
 * back (FI_ECANCELED, or a completion) within 5 s; it says what it saw
 * and serves the next client. Exit 0: every check held.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include "examples/ex_common.h"

#define SK_MIB		(1024 * 1024ull)
#define SK_REGION	(64 * SK_MIB)	/* RMA target; and the recv area */
#define SK_WMAX		64
#define SK_OP_WAIT_MS	30000		/* one operation, worst case */
#define SK_CANCEL_MS	5000
#define SK_NAME_MAX	128

enum { SK_RMA = 1, SK_TAG = 2 };
enum { SK_CMD_CHECK = 1, SK_CMD_TAG, SK_CMD_DONE };

struct sk_opts {
	bool server, keep_going, no_read_back, reads;
	const char *addr, *service;
	int port, mode, window;
	unsigned int clients, grace_ms, limit_s;
	uint64_t mib, size;
};

struct sk_hello {
	uint8_t name[SK_NAME_MAX];
	uint32_t name_len, session;
	uint64_t region_addr, region_key, region_len, pid;
};

/* CHECK: writes first..first+count of |size| B each; TAG: count messages
 * of size at most; no reply for DONE. */
struct sk_cmd {
	uint32_t op, pad;
	uint64_t first, count, size, seed;
};

struct sk_reply {
	uint64_t ok, done, bad;
};

struct sk_op {
	struct fi_context2 ctx;	/* first: the CQ gives it back */
	uint64_t t_post, k;
	bool busy;
	int slot;
};

struct sk {
	struct sk_opts o;
	struct ex_fab fab;
	struct fid_mr *mr;
	uint8_t *buf;		/* server: region + recv area; client: src + rb */
	void *desc;
	fi_addr_t peer;
	int fd;
	struct sk_hello srv;
	struct sk_op ops[SK_WMAX];
	int inflight;
	uint64_t lat_max_ns, nerr;
	struct fi_cq_err_entry err;	/* the last error completion */
};

static uint64_t sk_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned long long sk_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000 +
	       (unsigned long long)ts.tv_nsec / 1000000;
}

/* xorshift64*: bytes that differ for every seed and offset. */
static void sk_pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull | 1, v;

	for (size_t i = 0; i < len; i += sizeof(v)) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		v = x * 0x2545F4914F6CDD1Dull;
		memcpy(buf + i, &v, len - i < sizeof(v) ? len - i : sizeof(v));
	}
}

static bool sk_pattern_ok(const uint8_t *buf, size_t len, uint64_t seed)
{
	static uint8_t *want;
	static size_t want_len;

	if (want_len < len) {
		free(want);
		want = malloc(len);
		want_len = want ? len : 0;
		if (!want)
			return false;
	}
	sk_pattern(want, len, seed);
	return !memcmp(want, buf, len);
}

/* Tagged message k of a run: its length (some small or empty). */
static uint64_t sk_msg_len(uint64_t k, uint64_t size)
{
	if (k % 16 == 15)
		return k % 61 < size ? k % 61 : size;
	return size - (k * 4099) % (size / 2 + 1);
}


#define SK_CALL(call)	do { int r_ = (int)(call); if (r_) { \
			fprintf(stderr, "fi_soak: %s: %s\n", #call, \
				fi_strerror(-r_)); return -1; } } while (0)

/* ---- set-up ------------------------------------------------------------- */
static int sk_open(struct sk *s)
{
	struct ex_fab_opts fo = { .prog = "fi_soak", .node = s->o.addr,
				  .service = s->o.service,
				  .flags = s->o.server ? FI_SOURCE : 0,
				  .cq_size = 1024,
				  .cq_format = FI_CQ_FORMAT_TAGGED };
	struct fi_info *h = ex_hints_rdm(EX_RMA_CAPS | FI_TAGGED | FI_SEND |
					 FI_RECV, FI_CONTEXT | FI_CONTEXT2);
	size_t len = 2 * SK_REGION;
	int ret;

	if (!h)
		return -1;
	ret = ex_fab_open(&s->fab, h, &fo);
	fi_freeinfo(h);
	if (ret)
		return -1;
	if (posix_memalign((void **)&s->buf, 4096, len))
		return -1;
	memset(s->buf, 0, len);
	SK_CALL(fi_mr_reg(s->fab.domain, s->buf, len, FI_READ | FI_WRITE |
			  FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV,
			  0, 0x50a4, 0, &s->mr, NULL));
	if (s->fab.info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
		SK_CALL(fi_mr_bind(s->mr, &s->fab.ep->fid, 0));
		SK_CALL(fi_mr_enable(s->mr));
	}
	s->desc = fi_mr_desc(s->mr);
	return 0;
}

static void sk_close(struct sk *s)
{
	if (s->mr)
		fi_close(&s->mr->fid);
	ex_fab_close(&s->fab);
	free(s->buf);
}

/* ---- side channel ------------------------------------------------------- */


/* Progress (manual progress: RMA aimed at us lands only when we read the
 * CQ) until fd is readable; completions read meanwhile are ops' ends. */
static int sk_cq_poll(struct sk *s, struct sk_op **done, bool *err);

static int sk_send(struct sk *s, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(s->fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* 1: readable (or closed), 0: not yet. */
static int sk_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

/* Receives exactly |len| bytes, driving progress meanwhile; -1 when the
 * peer closed the channel. Completions of ops seen here are kept. */
static int sk_recv(struct sk *s, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n;

		for (unsigned long i = 0; !sk_readable(s->fd); i++)
			for (int j = 0; j < 64; j++)
				fi_cq_read(s->fab.cq, NULL, 0);
		n = recv(s->fd, p, len, 0);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int sk_hello_make(struct sk *s, struct sk_hello *h, uint32_t session)
{
	size_t len = sizeof(h->name);

	memset(h, 0, sizeof(*h));
	SK_CALL(fi_getname(&s->fab.ep->fid, h->name, &len));
	h->name_len = (uint32_t)len;
	h->session = session;
	h->region_addr = (s->fab.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ?
			 (uint64_t)(uintptr_t)s->buf : 0;
	h->region_key = fi_mr_key(s->mr);
	h->region_len = SK_REGION;
	h->pid = (uint64_t)getpid();
	return 0;
}

static int sk_av_insert(struct sk *s, const struct sk_hello *h)
{
	if (h->name_len > sizeof(h->name) ||
	    fi_av_insert(s->fab.av, h->name, 1, &s->peer, 0, NULL) != 1) {
		fprintf(stderr, "fi_soak: fi_av_insert failed\n");
		return -1;
	}
	return 0;
}

/* ---- operations --------------------------------------------------------- */
/* One completion: 1 (*op, *err says which kind), 0 none yet, -1. */
static int sk_cq_poll(struct sk *s, struct sk_op **done, bool *err)
{
	struct fi_cq_tagged_entry e;
	ssize_t n = fi_cq_read(s->fab.cq, &e, 1);

	*done = NULL;
	*err = false;
	if (n == 1) {
		*done = e.op_context;
		if (s->o.server && *done) {
			/* A receive: check tag, length and bytes. */
			struct sk_op *op = *done;

			op->t_post = e.len;	/* a receive's: its length */
			if (e.tag != op->k) {
				fprintf(stderr, "fi_soak: tag %#llx in the "
					"receive for %#llx\n",
					(unsigned long long)e.tag,
					(unsigned long long)op->k);
				*err = true;
			}
		}
		return 1;
	}
	if (n == -FI_EAVAIL) {
		memset(&s->err, 0, sizeof(s->err));
		if (fi_cq_readerr(s->fab.cq, &s->err, 0) != 1)
			return -1;
		*done = s->err.op_context;
		*err = true;
		s->nerr++;
		return 1;
	}
	if (n != -FI_EAGAIN) {
		fprintf(stderr, "fi_soak: fi_cq_read: %s\n",
			fi_strerror((int)-n));
		return -1;
	}
	return 0;
}

static void sk_err_print(struct sk *s, const char *what)
{
	fprintf(stderr, "fi_soak: %s: error completion %s (prov_errno %d: "
		"%s)\n", what, fi_strerror(s->err.err), s->err.prov_errno,
		fi_cq_strerror(s->fab.cq, s->err.prov_errno, s->err.err_data,
			       NULL, 0));
}

/* The client: waits for one of its ops; 0 success, 1 error completion
 * (s->err), -1 (nothing within SK_OP_WAIT_MS). */
static int sk_wait_one(struct sk *s)
{
	uint64_t end = sk_now_ns() + SK_OP_WAIT_MS * 1000000ull;
	struct sk_op *op;
	bool err;
	int ret;

	for (unsigned long i = 0;; i++) {
		ret = sk_cq_poll(s, &op, &err);
		if (ret < 0)
			return -1;
		if (ret == 1) {
			uint64_t now = sk_now_ns();

			if (!op || !op->busy) {
				fprintf(stderr, "fi_soak: completion of no "
					"operation in flight\n");
				return -1;
			}
			op->busy = false;
			s->inflight--;
			if (now - op->t_post > s->lat_max_ns)
				s->lat_max_ns = now - op->t_post;
			return err ? 1 : 0;
		}
		if (!(i % 1024) && sk_now_ns() > end) {
			fprintf(stderr, "fi_soak: no completion in %d ms (%d "
				"in flight)\n", SK_OP_WAIT_MS, s->inflight);
			return -1;
		}
	}
}

static struct sk_op *sk_op_free(struct sk *s)
{
	for (int i = 0; i < s->o.window; i++)
		if (!s->ops[i].busy)
			return &s->ops[i];
	return NULL;
}

enum sk_kind { SK_WRITE, SK_READ, SK_TSEND };

/* Posts op k (local and remote slot |slot|, |len| bytes), retrying while
 * the provider says FI_EAGAIN; 0 or -1. */
static int sk_post(struct sk *s, enum sk_kind kind, uint64_t k, int slot,
		   uint64_t len)
{
	uint64_t end = sk_now_ns() + SK_OP_WAIT_MS * 1000000ull;
	uint64_t off = (uint64_t)slot * s->o.size;
	uint8_t *src = s->buf + off, *rb = s->buf + SK_REGION + off;
	uint64_t raddr = s->srv.region_addr + off;
	struct sk_op *op = sk_op_free(s);
	ssize_t ret;

	if (!op)
		return -1;
	op->k = k;
	op->slot = slot;
	op->t_post = sk_now_ns();
	for (;;) {
		if (kind == SK_WRITE)
			ret = fi_write(s->fab.ep, src, len, s->desc, s->peer,
				       raddr, s->srv.region_key, &op->ctx);
		else if (kind == SK_READ)
			ret = fi_read(s->fab.ep, rb, len, s->desc, s->peer,
				      raddr, s->srv.region_key, &op->ctx);
		else
			ret = fi_tsend(s->fab.ep, src, len, s->desc, s->peer,
				       (uint64_t)s->srv.session << 40 | k,
				       &op->ctx);
		if (ret != -FI_EAGAIN || sk_now_ns() > end)
			break;
		fi_cq_read(s->fab.cq, NULL, 0);
	}
	if (ret) {
		fprintf(stderr, "fi_soak: posting op %llu: %s\n",
			(unsigned long long)k, fi_strerror((int)-ret));
		return -1;
	}
	op->busy = true;
	s->inflight++;
	return 0;
}

/* ---- the client --------------------------------------------------------- */
static double sk_mbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e3 / (double)ns : 0;
}

/* Waits until at most |max| ops are in flight; 1 on an error completion. */
static int sk_drain_to(struct sk *s, int max)
{
	while (s->inflight > max) {
		int ret = sk_wait_one(s);

		if (ret)
			return ret;
	}
	return 0;
}

static int sk_cmd(struct sk *s, const struct sk_cmd *c, struct sk_reply *r)
{
	if (sk_send(s, c, sizeof(*c)) || sk_recv(s, r, sizeof(*r))) {
		fprintf(stderr, "fi_soak: side channel lost\n");
		return -1;
	}
	return 0;
}

/* Survivor's end (-K): the first error completion came; every op still in
 * flight must complete and a new one must fail. */
static int sk_survive(struct sk *s, enum sk_kind kind, uint64_t posted)
{
	uint64_t t_err = sk_now_ns(), drained = 0, errs = 0;
	struct fi_cq_err_entry first = s->err;
	int ret;

	printf("fi_soak: first error at %llu ms (wall clock) after %llu "
	       "posted: %s\n", sk_wall_ms(), (unsigned long long)posted,
	       fi_strerror(first.err));
	sk_err_print(s, "first error");
	while (s->inflight) {
		ret = sk_wait_one(s);
		if (ret < 0)
			return -1;
		drained++;
		errs += (uint64_t)ret;
	}
	if (sk_post(s, kind, posted, 0, s->o.size))
		return -1;
	ret = sk_wait_one(s);
	if (ret != 1) {
		fprintf(stderr, "fi_soak: a new operation did not fail (%d)\n",
			ret);
		return -1;
	}
	printf("fi_soak: survivor: %llu in flight completed (%llu errors), "
	       "a new one failed (%s) within %.0f ms; longest operation "
	       "%.1f ms\n", (unsigned long long)drained,
	       (unsigned long long)errs, fi_strerror(s->err.err),
	       (double)(sk_now_ns() - t_err) / 1e6,
	       (double)s->lat_max_ns / 1e6);
	return 0;
}

static int sk_read_back(struct sk *s, uint64_t count)
{
	int ret;

	memset(s->buf + SK_REGION, 0, count * s->o.size);
	for (uint64_t k = 0; k < count; k++) {
		ret = sk_drain_to(s, s->o.window - 1);
		if (ret == 1)
			sk_err_print(s, "read");
		if (ret || sk_post(s, SK_READ, k, (int)k, s->o.size))
			return -1;
	}
	ret = sk_drain_to(s, 0);
	if (ret == 1)
		sk_err_print(s, "read");
	if (ret)
		return -1;
	if (memcmp(s->buf, s->buf + SK_REGION, count * s->o.size)) {
		fprintf(stderr, "fi_soak: rma: read back differs\n");
		return -1;
	}
	return 0;
}

static const uint64_t sk_seed = 0x50a4feedull;

static int sk_client_rma(struct sk *s)
{
	uint64_t slots = SK_REGION / s->o.size, total = s->o.mib * SK_MIB /
			 s->o.size, t0 = sk_now_ns(), k = 0, ns;
	struct sk_reply r;
	int ret;

	while (s->o.keep_going || k < total) {
		uint64_t first = k, round = s->o.keep_going ? slots :
			total - k < slots ? total - k : slots;

		for (uint64_t j = 0; j < round; j++, k++) {
			ret = sk_drain_to(s, s->o.window - 1);
			if (ret == 1 && s->o.keep_going)
				return sk_survive(s, s->o.reads ? SK_READ :
						  SK_WRITE, k);
			if (ret == 1)
				sk_err_print(s, "write");
			if (ret)
				return -1;
			if (!s->o.reads)	/* -K -r: reads only */
				sk_pattern(s->buf + j * s->o.size, s->o.size,
					   sk_seed + k);
			if (sk_post(s, s->o.reads ? SK_READ : SK_WRITE, k,
				    (int)j, s->o.size))
				return -1;
			if (k == 16 + (uint64_t)s->o.window)
				printf("fi_soak: running\n");
		}
		ret = sk_drain_to(s, 0);
		if (ret == 1 && s->o.keep_going)
			return sk_survive(s, s->o.reads ? SK_READ : SK_WRITE, k);
		if (ret == 1)
			sk_err_print(s, "write");
		if (ret)
			return -1;
		if (s->o.keep_going)
			continue;
		struct sk_cmd c = { .op = SK_CMD_CHECK, .first = first,
				    .count = round, .size = s->o.size,
				    .seed = sk_seed };
		if (sk_cmd(s, &c, &r))
			return -1;
		if (!r.ok) {
			fprintf(stderr, "fi_soak: rma: the server found %llu "
				"of writes %llu..%llu wrong\n",
				(unsigned long long)r.bad,
				(unsigned long long)first,
				(unsigned long long)(k - 1));
			return -1;
		}
		if (!s->o.no_read_back && sk_read_back(s, round))
			return -1;
	}
	ns = sk_now_ns() - t0;
	printf("fi_soak: rma: %llu bytes in %llu writes of %llu B (%d in "
	       "flight), checked by the target%s: %.2f s, %.1f MB/s, max "
	       "latency %.1f ms\n", (unsigned long long)(total * s->o.size),
	       (unsigned long long)total, (unsigned long long)s->o.size,
	       s->o.window, s->o.no_read_back ? "" : " and read back",
	       (double)ns / 1e9, sk_mbps(total * s->o.size, ns),
	       (double)s->lat_max_ns / 1e6);
	return 0;
}

static int sk_client_tag(struct sk *s)
{
	uint64_t slots = SK_REGION / s->o.size, bytes = 0, k = 0,
		 total = s->o.mib * SK_MIB / s->o.size, t0, ns;
	struct sk_cmd c = { .op = SK_CMD_TAG, .size = s->o.size,
			    .seed = sk_seed,
			    .count = s->o.keep_going ? UINT64_MAX : total };
	struct sk_reply r;
	int ret;

	/* The server answers once its receives are posted. */
	if (sk_cmd(s, &c, &r))
		return -1;
	t0 = sk_now_ns();
	while (s->o.keep_going || k < total) {
		uint64_t round = s->o.keep_going ? slots :
			total - k < slots ? total - k : slots;

		for (uint64_t j = 0; j < round; j++, k++) {
			uint64_t len = sk_msg_len(k, s->o.size);

			ret = sk_drain_to(s, s->o.window - 1);
			if (ret == 1 && s->o.keep_going)
				return sk_survive(s, SK_TSEND, k);
			if (ret == 1)
				sk_err_print(s, "tsend");
			if (ret)
				return -1;
			sk_pattern(s->buf + j * s->o.size, len, sk_seed + k);
			if (sk_post(s, SK_TSEND, k, (int)j, len))
				return -1;
			bytes += len;
			if (k == 16 + (uint64_t)s->o.window)
				printf("fi_soak: running\n");
		}
		ret = sk_drain_to(s, 0);
		if (ret == 1 && s->o.keep_going)
			return sk_survive(s, SK_TSEND, k);
		if (ret == 1)
			sk_err_print(s, "tsend");
		if (ret)
			return -1;
	}
	if (sk_recv(s, &r, sizeof(r))) {
		fprintf(stderr, "fi_soak: side channel lost\n");
		return -1;
	}
	ns = sk_now_ns() - t0;
	if (!r.ok || r.done != total) {
		fprintf(stderr, "fi_soak: tag: the server received %llu of "
			"%llu, %llu wrong\n", (unsigned long long)r.done,
			(unsigned long long)total, (unsigned long long)r.bad);
		return -1;
	}
	printf("fi_soak: tag: %llu bytes in %llu messages of 0 to %llu B (%d "
	       "in flight), tag, length and bytes checked by the receiver: "
	       "%.2f s, %.1f MB/s, max latency %.1f ms\n",
	       (unsigned long long)bytes, (unsigned long long)total,
	       (unsigned long long)s->o.size, s->o.window, (double)ns / 1e9,
	       sk_mbps(bytes, ns), (double)s->lat_max_ns / 1e6);
	return 0;
}

static int sk_client(struct sk *s)
{
	struct sk_hello mine;
	struct sk_cmd done = { .op = SK_CMD_DONE };
	int ret;

	if (sk_open(s) || sk_hello_make(s, &mine, s->o.mode))
		return -1;
	s->fd = ex_tcp_connect(s->o.addr, s->o.port);
	if (s->fd < 0 || sk_send(s, &mine, sizeof(mine)) ||
	    sk_recv(s, &s->srv, sizeof(s->srv)) || sk_av_insert(s, &s->srv)) {
		fprintf(stderr, "fi_soak: no server\n");
		return -1;
	}
	printf("fi_soak: client: pid %d, server pid %llu, session %u\n",
	       getpid(), (unsigned long long)s->srv.pid, s->srv.session);
	ret = s->o.mode == SK_RMA ? sk_client_rma(s) : sk_client_tag(s);
	if (!ret && !s->o.keep_going)
		ret = sk_send(s, &done, sizeof(done));
	return ret;
}

/* ---- the server --------------------------------------------------------- */
static int sk_srv_check(struct sk *s, const struct sk_cmd *c)
{
	struct sk_reply r = { .ok = 1 };
	uint64_t slots;

	if (!c->size || c->size > SK_REGION)
		return -1;
	slots = SK_REGION / c->size;
	for (uint64_t j = 0; j < c->count && j < slots; j++)
		if (!sk_pattern_ok(s->buf + j * c->size, c->size,
				   c->seed + c->first + j))
			r.bad++;
	r.ok = !r.bad && c->count <= slots;
	r.done = c->count;
	return sk_send(s, &r, sizeof(r));
}

/* Posts the receive of message k into a free window slot. */
static int sk_srv_post_recv(struct sk *s, uint32_t session, uint64_t k,
			    uint64_t slot_len)
{
	struct sk_op *op = sk_op_free(s);
	uint64_t end = sk_now_ns() + SK_OP_WAIT_MS * 1000000ull;
	ssize_t ret;

	if (!op)
		return -1;
	op->k = (uint64_t)session << 40 | k;
	op->slot = (int)(op - s->ops);
	for (;;) {
		ret = fi_trecv(s->fab.ep, s->buf + SK_REGION +
			       (uint64_t)op->slot * slot_len, slot_len,
			       s->desc, s->peer, op->k, 0, &op->ctx);
		if (ret != -FI_EAGAIN || sk_now_ns() > end)
			break;
		fi_cq_read(s->fab.cq, NULL, 0);
	}
	if (ret) {
		fprintf(stderr, "fi_soak: fi_trecv: %s\n",
			fi_strerror((int)-ret));
		return -1;
	}
	op->busy = true;
	s->inflight++;
	return 0;
}

/*
 * The client is gone with receives posted: what comes back by itself in
 * grace_ms, then fi_cancel on the rest; each must come back within
 * SK_CANCEL_MS. 0 or -1 (a receive that never comes back).
 */
static int sk_srv_orphans(struct sk *s, uint64_t rcvd)
{
	uint64_t t0 = sk_now_ns(), end = t0 + s->o.grace_ms * 1000000ull;
	uint64_t ok = 0, errs = 0, canceled = 0, other = 0, posted;
	uint64_t t_last = t0;
	int last_err = 0;
	struct sk_op *op;
	bool err;

	posted = (uint64_t)s->inflight;
	while (s->inflight && sk_now_ns() < end) {
		if (sk_cq_poll(s, &op, &err) < 0)
			return -1;
		if (op && op->busy) {
			op->busy = false;
			s->inflight--;
			if (err) {
				errs++;
				last_err = s->err.err;
			} else {
				ok++;
			}
			t_last = sk_now_ns();
		}
	}
	printf("fi_soak: server: client gone after %llu messages; of %llu "
	       "receives posted, %llu completed and %llu failed (last %s), "
	       "the last %.0f ms after it went (waited %u ms)\n",
	       (unsigned long long)rcvd, (unsigned long long)posted,
	       (unsigned long long)ok, (unsigned long long)errs,
	       last_err ? fi_strerror(last_err) : "none",
	       (double)(t_last - t0) / 1e6, s->o.grace_ms);
	posted = (uint64_t)s->inflight;
	for (int i = 0; i < s->o.window; i++)
		if (s->ops[i].busy)
			fi_cancel(&s->fab.ep->fid, &s->ops[i].ctx);
	t0 = sk_now_ns();
	end = t0 + SK_CANCEL_MS * 1000000ull;
	while (s->inflight && sk_now_ns() < end) {
		if (sk_cq_poll(s, &op, &err) < 0)
			return -1;
		if (op && op->busy) {
			op->busy = false;
			s->inflight--;
			if (err && s->err.err == FI_ECANCELED)
				canceled++;
			else
				other++;
		}
	}
	printf("fi_soak: server: %llu receives canceled: %llu FI_ECANCELED, "
	       "%llu other completions, %d never came back, in %.0f ms\n",
	       (unsigned long long)posted, (unsigned long long)canceled,
	       (unsigned long long)other, s->inflight,
	       (double)(sk_now_ns() - t0) / 1e6);
	return s->inflight ? -1 : 0;
}

/* A tag session: count messages (UINT64_MAX: until the client goes);
 * 0, 1 (the client went and its receives came back) or -1. */
static int sk_srv_tag(struct sk *s, const struct sk_cmd *c, uint32_t session)
{
	uint64_t slot_len = SK_REGION / (uint64_t)s->o.window, next = 0,
		 rcvd = 0;
	struct sk_reply r = { 0 };
	struct sk_op *op;
	bool err;

	if (c->size > slot_len) {
		fprintf(stderr, "fi_soak: messages of %llu B, receives of "
			"%llu B\n", (unsigned long long)c->size,
			(unsigned long long)slot_len);
		return -1;
	}
	while (next < c->count && s->inflight < s->o.window)
		if (sk_srv_post_recv(s, session, next++, slot_len))
			return -1;
	if (sk_send(s, &r, sizeof(r)))
		return -1;
	for (unsigned long i = 0; rcvd < c->count; i++) {
		if (!(i % 256) && sk_readable(s->fd)) {	/* client gone */
			printf("fi_soak: server: session %u: client gone\n",
			       session);
			return sk_srv_orphans(s, rcvd) ? -1 : 1;
		}
		if (sk_cq_poll(s, &op, &err) < 0)
			return -1;
		if (!op)
			continue;
		if (!op->busy) {
			fprintf(stderr, "fi_soak: completion of no receive\n");
			return -1;
		}
		op->busy = false;
		s->inflight--;
		rcvd++;
		uint64_t k = op->k & ((1ull << 40) - 1);
		uint64_t want = sk_msg_len(k, c->size);

		if (err) {
			sk_err_print(s, "trecv");
			r.bad++;
		} else if (op->t_post != want ||
			   !sk_pattern_ok(s->buf + SK_REGION +
					  (uint64_t)op->slot * slot_len,
					  want, c->seed + k)) {
			fprintf(stderr, "fi_soak: message %llu: %llu B, want "
				"%llu B, or bytes differ\n",
				(unsigned long long)k,
				(unsigned long long)op->t_post,
				(unsigned long long)want);
			r.bad++;
		}
		if (next < c->count &&
		    sk_srv_post_recv(s, session, next++, slot_len))
			return -1;
	}
	r.done = rcvd;
	r.ok = !r.bad;
	printf("fi_soak: server: session %u: %llu messages, %llu wrong\n",
	       session, (unsigned long long)rcvd, (unsigned long long)r.bad);
	return sk_send(s, &r, sizeof(r)) || r.bad ? -1 : 0;
}

/* One client's session; -1 only for a failed check of ours. */
static int sk_srv_session(struct sk *s, uint32_t session)
{
	struct sk_hello mine, peer;
	struct sk_cmd c;
	int ret = 0;

	if (sk_hello_make(s, &mine, session) ||
	    sk_recv(s, &peer, sizeof(peer)) || sk_av_insert(s, &peer))
		return -1;
	if (sk_send(s, &mine, sizeof(mine)))
		return -1;
	printf("fi_soak: server: session %u: client pid %llu\n", session,
	       (unsigned long long)peer.pid);
	for (;;) {
		if (sk_recv(s, &c, sizeof(c))) {
			printf("fi_soak: server: session %u: client gone\n",
			       session);
			break;
		}
		if (c.op == SK_CMD_DONE)
			break;
		if (c.op == SK_CMD_CHECK)
			ret = sk_srv_check(s, &c);
		else if (c.op == SK_CMD_TAG)
			ret = sk_srv_tag(s, &c, session);
		else
			ret = -1;
		if (ret == 1)		/* the client went, receives back */
			ret = 0;
		else if (!ret)
			continue;
		break;
	}
	/* Receives of a finished or failed session go. */
	for (int i = 0; i < s->o.window; i++)
		if (s->ops[i].busy)
			ret = -1;
	fi_av_remove(s->fab.av, &s->peer, 1, 0);
	return ret;
}

static int sk_server(struct sk *s)
{
	int lfd, failed = 0;

	if (sk_open(s))
		return -1;
	lfd = ex_tcp_listen(s->o.port, 4);
	if (lfd < 0) {
		perror("fi_soak: listen");
		return -1;
	}
	printf("fi_soak: server: pid %d ready\n", getpid());
	for (unsigned int n = 1; n <= s->o.clients; n++) {
		int one = 1;

		s->fd = accept(lfd, NULL, NULL);
		if (s->fd < 0)
			return -1;
		setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (sk_srv_session(s, n)) {
			printf("fi_soak: server: session %u failed\n", n);
			failed++;
			if (s->inflight)	/* receives that hang: stop */
				break;
		}
		close(s->fd);
	}
	close(lfd);
	printf("fi_soak: server: %s\n", failed ? "FAILED" : "all ok");
	return failed ? -1 : 0;
}

static const char *sk_usage =
	"usage: fi_soak -s -a ADDR [-p PORT] [-C CLIENTS] [-G MS] [-w WINDOW]"
	" [-T SEC]\n"
	"       fi_soak -c SERVER [-p PORT] -m rma|tag [-M MIB] [-n SIZE] "
	"[-w WINDOW] [-N] [-K [-r]] [-T SEC]\n";

int main(int argc, char **argv)
{
	struct sk s = { .fd = -1 };
	int c, ret;

	s.o = (struct sk_opts){ .service = "42", .port = 47990, .window = 8,
				.clients = 1, .grace_ms = 2000, .limit_s = 120,
				.mib = 64, .size = SK_MIB };
	while ((c = getopt(argc, argv, "sc:a:S:p:m:M:n:w:NKrC:G:T:h")) != -1) {
		switch (c) {
		case 's': s.o.server = true; break;
		case 'c': s.o.addr = optarg; break;
		case 'a': s.o.addr = optarg; break;
		case 'S': s.o.service = optarg; break;
		case 'p': s.o.port = atoi(optarg); break;
		case 'm':
			s.o.mode = !strcmp(optarg, "rma") ? SK_RMA :
				   !strcmp(optarg, "tag") ? SK_TAG : -1;
			break;
		case 'M': s.o.mib = strtoull(optarg, NULL, 0); break;
		case 'n': s.o.size = strtoull(optarg, NULL, 0); break;
		case 'w': s.o.window = atoi(optarg); break;
		case 'N': s.o.no_read_back = true; break;
		case 'K': s.o.keep_going = true; break;
		case 'r': s.o.reads = true; break;
		case 'C': s.o.clients = (unsigned int)atoi(optarg); break;
		case 'G': s.o.grace_ms = (unsigned int)atoi(optarg); break;
		case 'T': s.o.limit_s = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "%s", sk_usage);
			return c == 'h' ? 0 : 2;
		}
	}
	if (!s.o.addr || (!s.o.server && s.o.mode <= 0) || s.o.window < 1 ||
	    s.o.window > SK_WMAX || !s.o.size || s.o.size > SK_REGION ||
	    SK_REGION / s.o.size < (uint64_t)s.o.window || !s.o.limit_s) {
		fprintf(stderr, "%s", sk_usage);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ex_time_limit("fi_soak", s.o.limit_s);
	ret = s.o.server ? sk_server(&s) : sk_client(&s);
	sk_close(&s);
	if (!s.o.server)
		printf("fi_soak: client: %s\n", ret ? "FAILED" : "all ok");
	return ret ? 1 : 0;
}
