/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_soak (issue [R], "loss and faults, verified"): long verified RMA and
 * tagged transfers, and the survivor's view of a peer killed with -9.
 * Plain libfabric (FI_PROVIDER=uet, or tcp), a TCP side channel.
 *
 *   fi_soak -s -a ADDR [-p PORT] [-C CLIENTS] [-G MS] [-E] [-T SEC]
 *   fi_soak -c SERVER [-p PORT] -m rma|tag [-M MIB] [-n SIZE] [-w WINDOW]
 *           [-N] [-K [-r] | -E] [-T SEC]
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
 * Once a tag run's messages are in, the server waits SK_EXTRA_WAIT_MS
 * for any message more (a receive of any tag): each one is an extra (a
 * duplicate), which the client's check allows only for -E.
 *
 * -m mix -D SEC (client; the server too is started with -m mix, for
 * atomics): rounds of each kind in turn until SEC have passed, each
 * verified: rma and tag as above (-M MiB each, at most 63), then 4096
 * fetch-and-adds of 1 on one counter of the server (the old values a
 * permutation, the counter where it must be, read by the server), then
 * 4096 8-byte RDMO appends to a queue of the server's (the old pointers a
 * permutation, each record read back where its append put it, the
 * server's pointer and records each once). Each cycle's data differ.
 * Prints "fi_soak: mix: ..." with the operations and bytes of each kind
 * (fi_soak_mix.c).
 *
 * -E (a link that flaps): an error completion is not the end. The client
 * says the first, counts them and posts the failed operation again (the
 * same write, read or send, tag and bytes) until it succeeds, at most
 * SK_RETRY_MAX times in all; the server posts a failed receive again. The
 * checks stay: every round's bytes, and per tag one message, except that
 * a send that failed after it landed may arrive twice (extras <= errors).
 * The client prints "fi_soak: errors: N ..." at the end.
 * -X CTRL_ADDR (client): the side channel's TCP goes to the server at
 * CTRL_ADDR (the server listens on every address) instead of SERVER, so
 * that a fault on the path under test stalls the operations, not the
 * checks between rounds.
 *
 * A client that dies (side channel closed) ends its session at the
 * server: in a tag session the server waits -G ms (default 2000) for the
 * receives still posted, then cancels them all and requires each to come
 * back (FI_ECANCELED, or a completion) within 5 s; it says what it saw
 * and serves the next client. Exit 0: every check held.
 *
 * This file: helpers, set-up, side channel, operations and main; the
 * client is in fi_soak_cli.c, the server in fi_soak_srv.c.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_ext_uet.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "test/progs/fi_soak.h"

uint64_t sk_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

unsigned long long sk_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000 +
	       (unsigned long long)ts.tv_nsec / 1000000;
}

/* xorshift64*: bytes that differ for every seed and offset. */
void sk_pattern(uint8_t *buf, size_t len, uint64_t seed)
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

bool sk_pattern_ok(const uint8_t *buf, size_t len, uint64_t seed)
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
uint64_t sk_msg_len(uint64_t k, uint64_t size)
{
	if (k % 16 == 15)
		return k % 61 < size ? k % 61 : size;
	return size - (k * 4099) % (size / 2 + 1);
}

/* ---- set-up ------------------------------------------------------------- */
int sk_open(struct sk *s)
{
	struct ex_fab_opts fo = { .prog = "fi_soak", .node = s->o.addr,
				  .service = s->o.service,
				  .flags = s->o.server ? FI_SOURCE : 0,
				  .cq_size = 1024,
				  .cq_format = FI_CQ_FORMAT_TAGGED };
	/* Atomics only for mix: tcp's rxm refuses them unless asked. */
	struct fi_info *h = ex_hints_rdm(EX_RMA_CAPS | FI_TAGGED | FI_SEND |
					 FI_RECV | (s->o.mode == SK_MIX ?
					 FI_ATOMIC : 0),
					 FI_CONTEXT | FI_CONTEXT2);
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
	if (s->o.mode == SK_MIX && !s->o.server &&
	    (fi_open_ops(&s->fab.domain->fid, FI_UET_RDMO_OPS, 0,
			 (void **)&s->rdmo, NULL) || !s->rdmo ||
	     !s->rdmo->append)) {
		fprintf(stderr, "fi_soak: -m mix: the provider has no RDMO "
			"appends (" FI_UET_RDMO_OPS ")\n");
		return -1;
	}
	return 0;
}

void sk_close(struct sk *s)
{
	if (s->mr)
		fi_close(&s->mr->fid);
	ex_fab_close(&s->fab);
	free(s->buf);
}

/* ---- side channel ------------------------------------------------------- */
int sk_send(struct sk *s, const void *buf, size_t len)
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
int sk_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

/* Receives exactly |len| bytes, driving progress meanwhile; -1 when the
 * peer closed the channel. Completions of ops seen here are kept. */
int sk_recv(struct sk *s, void *buf, size_t len)
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

int sk_hello_make(struct sk *s, struct sk_hello *h, uint32_t session)
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

int sk_av_insert(struct sk *s, const struct sk_hello *h)
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
int sk_cq_poll(struct sk *s, struct sk_op **done, bool *err)
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
			s->last_tag = e.tag;
			if (e.tag != op->k && op->k != UINT64_MAX) {
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

void sk_err_print(struct sk *s, const char *what)
{
	fprintf(stderr, "fi_soak: %s: error completion %s (prov_errno %d: "
		"%s)\n", what, fi_strerror(s->err.err), s->err.prov_errno,
		fi_cq_strerror(s->fab.cq, s->err.prov_errno, s->err.err_data,
			       NULL, 0));
}

/* The client: waits for one of its ops; 0 success, 1 error completion
 * (s->err), -1 (nothing within SK_OP_WAIT_MS). */
int sk_wait_one(struct sk *s)
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
			s->err_op = err ? op : NULL;
			return err ? 1 : 0;
		}
		if (!(i % 1024) && sk_now_ns() > end) {
			fprintf(stderr, "fi_soak: no completion in %d ms (%d "
				"in flight)\n", SK_OP_WAIT_MS, s->inflight);
			return -1;
		}
	}
}

struct sk_op *sk_op_free(struct sk *s)
{
	for (int i = 0; i < s->o.window; i++)
		if (!s->ops[i].busy)
			return &s->ops[i];
	return NULL;
}

/* Posts op k at local offset |loff| and remote offset |roff| (see
 * fi_soak.h), retrying while the provider says FI_EAGAIN; 0 or -1. */
int sk_post_at(struct sk *s, enum sk_kind kind, uint64_t k, uint64_t loff,
	       uint64_t roff, uint64_t len)
{
	uint64_t end = sk_now_ns() + SK_OP_WAIT_MS * 1000000ull;
	uint8_t *src = s->buf + loff, *rb = s->buf + SK_REGION + loff;
	uint64_t raddr = s->srv.region_addr + roff, key = s->srv.region_key;
	struct sk_op *op = sk_op_free(s);
	ssize_t ret;

	if (!op)
		return -1;
	op->k = k;
	op->loff = loff;
	op->roff = roff;
	op->slot = (int)(loff / s->o.size);
	op->kind = kind;
	op->len = len;
	op->t_post = sk_now_ns();
	for (;;) {
		switch (kind) {
		case SK_WRITE:
			ret = fi_write(s->fab.ep, src, len, s->desc, s->peer,
				       raddr, key, &op->ctx);
			break;
		case SK_READ:
		case SK_READ_AT:
			ret = fi_read(s->fab.ep, rb, len, s->desc, s->peer,
				      raddr, key, &op->ctx);
			break;
		case SK_TSEND:
			ret = fi_tsend(s->fab.ep, src, len, s->desc, s->peer,
				       (uint64_t)s->srv.session << 40 | k,
				       &op->ctx);
			break;
		case SK_FADD:	/* adds the 1 at SK_MIX_OFF of ours */
			ret = fi_fetch_atomic(s->fab.ep, s->buf + SK_MIX_OFF,
					      1, s->desc, src, s->desc,
					      s->peer, raddr, key, FI_UINT64,
					      FI_SUM, &op->ctx);
			break;
		case SK_APPEND:
			ret = s->rdmo->append(s->fab.ep, src, len, s->desc,
					      s->peer, raddr, key, key,
					      (uint64_t *)(void *)rb, &op->ctx);
			break;
		default:
			ret = -FI_EINVAL;
		}
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

/* Op k at slot |slot| of both sides (|slot| * o.size). */
int sk_post(struct sk *s, enum sk_kind kind, uint64_t k, int slot,
	    uint64_t len)
{
	uint64_t off = (uint64_t)slot * s->o.size;

	return sk_post_at(s, kind, k, off, off, len);
}

static const char *sk_usage =
	"usage: fi_soak -s -a ADDR [-p PORT] [-C CLIENTS] [-G MS] [-w WINDOW]"
	" [-m mix] [-E] [-T SEC]\n"
	"       fi_soak -c SERVER [-p PORT] -m rma|tag [-M MIB] [-n SIZE] "
	"[-w WINDOW] [-N] [-K [-r] | -E] [-X CTRL_ADDR] [-T SEC]\n"
	"       fi_soak -c SERVER [-p PORT] -m mix -D SEC [-M MIB] [-n SIZE] "
	"[-w WINDOW] [-T SEC]\n";

int main(int argc, char **argv)
{
	struct sk s = { .fd = -1 };
	int c, ret;

	s.o = (struct sk_opts){ .service = "42", .port = 47990, .window = 8,
				.clients = 1, .grace_ms = 2000, .limit_s = 120,
				.mib = 64, .size = SK_MIB };
	while ((c = getopt(argc, argv, "sc:a:S:p:m:M:n:w:NKrEC:G:T:D:X:h")) !=
	       -1) {
		switch (c) {
		case 's': s.o.server = true; break;
		case 'c': s.o.addr = optarg; break;
		case 'a': s.o.addr = optarg; break;
		case 'S': s.o.service = optarg; break;
		case 'p': s.o.port = atoi(optarg); break;
		case 'm':
			s.o.mode = !strcmp(optarg, "rma") ? SK_RMA :
				   !strcmp(optarg, "tag") ? SK_TAG :
				   !strcmp(optarg, "mix") ? SK_MIX : -1;
			break;
		case 'M': s.o.mib = strtoull(optarg, NULL, 0); break;
		case 'n': s.o.size = strtoull(optarg, NULL, 0); break;
		case 'w': s.o.window = atoi(optarg); break;
		case 'N': s.o.no_read_back = true; break;
		case 'K': s.o.keep_going = true; break;
		case 'r': s.o.reads = true; break;
		case 'E': s.o.retry = true; break;
		case 'C': s.o.clients = (unsigned int)atoi(optarg); break;
		case 'G': s.o.grace_ms = (unsigned int)atoi(optarg); break;
		case 'T': s.o.limit_s = (unsigned int)atoi(optarg); break;
		case 'D': s.o.duration_s = (unsigned int)atoi(optarg); break;
		case 'X': s.o.ctrl_addr = optarg; break;
		default:
			fprintf(stderr, "%s", sk_usage);
			return c == 'h' ? 0 : 2;
		}
	}
	if (!s.o.addr || (!s.o.server && s.o.mode <= 0) || s.o.window < 1 ||
	    s.o.window > SK_WMAX || !s.o.size || s.o.size > SK_REGION ||
	    SK_REGION / s.o.size < (uint64_t)s.o.window || !s.o.limit_s ||
	    (s.o.retry && s.o.keep_going) || s.o.mode < 0 ||
	    (s.o.mode == SK_MIX && !s.o.server &&
	     (!s.o.duration_s || s.o.duration_s >= s.o.limit_s ||
	      s.o.keep_going || s.o.retry))) {
		fprintf(stderr, "%s", sk_usage);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ex_time_limit("fi_soak", s.o.limit_s);
	s.seed = 0x50a4feedull;
	ret = s.o.server ? sk_server(&s) : sk_client(&s);
	sk_close(&s);
	if (!s.o.server)
		printf("fi_soak: client: %s\n", ret ? "FAILED" : "all ok");
	return ret ? 1 : 0;
}
