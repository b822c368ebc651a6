/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rdmo_check: remote memory operations (<rdma/fi_ext_uet.h>) end to
 * end, in plain libfabric and the provider's extension.
 *
 * The server (the target) registers a queue (its data region and a
 * pointer region) and, for each client, a queue of its own, a scatter
 * region and a second one; it hands their addresses and keys out over a
 * TCP side channel once every client has said hello, lets them start
 * appending together once each has reached it (its first operation, a
 * flush), then only runs the provider and answers what the clients ask
 * it to look at. Each record appended is self-describing
 * (client, sequence number, length, then bytes that follow from the
 * three), so that the server can walk a queue from its start to its
 * pointer.
 *
 * A client:
 *  - appends -N records of 8..256 bytes to the shared queue, -W in flight
 *    without waiting between them; each completion must find its result
 *    (the old pointer) already written;
 *  - scatters: 3 pieces in one packet, FI_UET_RDMO_SCATTER_MAX pieces over
 *    several, and 8 pipelined, over two regions; the server compares both
 *    regions with what the plan says, byte for byte;
 *  - flush: FRD_ROUNDS times, FRD_BATCH appends of up to 4000 bytes (several
 *    packets) to its own queue and a 16 KiB fi_write, none waited for, then
 *    a flush; once only the flush has completed it tells the server, which
 *    checks, before any libfabric call, that the pointer and every byte are
 *    in its memory. In client 1's second round the server closes a region
 *    of its endpoint meanwhile: the RI generation moves, and what arrives
 *    under the old one is refused and sent again;
 *  - refusals: an append with a wrong data key and one with a wrong pointer
 *    key (RC_BAD_MKEY), one that does not fit the queue's end (RC_BAD_ADDR),
 *    and one that exactly fits; a scatter of several packets with one
 *    wrong key, one with one piece past its region: each error completion
 *    carries its UET code in prov_errno, no result is written, and the
 *    server finds no pointer moved and no byte written; FRD_BATCH appends
 *    to the full queue and a flush posted together: the refusals hold the
 *    flush back no time;
 *  - with -x ADDR (an address nobody answers): fi_writemsg with
 *    FI_INJECT_COMPLETE to it until the provider says -FI_EAGAIN (its
 *    operations wait for the address), then appends one after the other
 *    until the operation that call gave back has served again: every
 *    append must still complete only once its result is written;
 *  - sends its results; the server walks the shared queue (every (client,
 *    seq) once, at the offset the client got, nothing past the pointer)
 *    and each client's own queue, and gives each client its verdict.
 * Also: fi_open_ops with another name is -FI_ENOSYS, with flags
 * -FI_EBADFLAGS; every completion is an fi_write's (FI_RMA | FI_WRITE,
 * counted by the write counter, errors as errors); the server's
 * FI_RMA_EVENT counters, its endpoint's and each region's, count an
 * append once on its data region (none on its pointer's), a scatter once
 * per piece, an fi_write once, a refusal not at all.
 *
 * -m va or -m off: FI_MR_VIRT_ADDR offered or not (the pointer then holds
 * addresses or offsets); both sides must run the same.
 */
#include <errno.h>
#include <netinet/in.h>
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
#include <rdma/fi_ext_uet.h>
#include <rdma/fi_rma.h>

#include "examples/ex_common.h"
#include "uet_wire.h"

/* The codes the refusals expect (ref 3.5), pinned to the spec. */
_Static_assert(UET_SES_RC_BAD_MKEY == 0x1c, "RC_BAD_MKEY");
_Static_assert(UET_SES_RC_BAD_ADDR == 0x1d, "RC_BAD_ADDR");

#define FRD_CLIENTS_MAX	4
#define FRD_NAME_MAX	128
#define FRD_MAGIC	0xA7
#define FRD_HDR_LEN	8	/* magic, client, length (2), seq (4) */
#define FRD_MAIN_MAX	256	/* shared queue: records of 8..256 bytes */
#define FRD_MAIN_N_MAX	60000	/* appends per client, at most */
#define FRD_AUX_MAX	4000	/* own queue: up to several packets */
#define FRD_ROUNDS	4	/* flush rounds */
#define FRD_BATCH	64	/* appends per flush round */
#define FRD_FLUSH_RECS	(FRD_ROUNDS * FRD_BATCH)
#define FRD_SHORT_SEQ0	10000	/* own queue from here: 8-byte records */
#define FRD_REUSE_MAX	4096	/* appends one at a time (-x), at most */
#define FRD_FULL_SEQ	20000	/* the record that exactly fills it */
#define FRD_AUX_LEN	(2u << 20)
#define FRD_WRITE_LEN	16384	/* a flush round's fi_write */
#define FRD_SCAT_AREA	65536	/* scatter region: the pieces, then */
#define FRD_SCAT_LEN	(FRD_SCAT_AREA + FRD_ROUNDS * FRD_WRITE_LEN)
#define FRD_SCAT2_LEN	40960	/* the second scatter region */
#define FRD_SCAT_SPARE	8192	/* at the end of each area: refused ones */
#define FRD_NSCAT	10
#define FRD_PTR_WORDS	64	/* 0: shared queue; 8k, 8k+1: client k's */
#define FRD_JUNK_MAX	2000	/* -x: writes to the absent address */
#define FRD_JUNK_LEN	1000
#define FRD_WAIT_S	30	/* one wait for a completion or an answer */
#define FRD_SENTINEL	UINT64_MAX	/* a result not written */
#define FRD_BUMPS_MAX	4	/* regions the server may close (FRD_BUMP) */

enum frd_queue { FRD_Q_MAIN = 1, FRD_Q_AUX = 2 };

/* ---- what both sides compute the same ------------------------------------ */
static uint64_t frd_mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* |len| bytes that follow from |seed|. */
static void frd_fill(uint8_t *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t h = frd_mix(seed ^ (uint64_t)i << 20);

		for (size_t j = 0; j < 8 && i + j < len; j++)
			p[i + j] = (uint8_t)(h >> (8 * j));
	}
}

static uint64_t frd_rec_seed(enum frd_queue q, uint32_t client, uint32_t seq)
{
	return (uint64_t)q << 60 | (uint64_t)client << 40 | seq;
}

/* The length of record |seq| of |client| in queue |q|. */
static uint32_t frd_rec_len(enum frd_queue q, uint32_t client, uint32_t seq)
{
	uint64_t h = frd_mix(frd_rec_seed(q, client, seq) ^ 0x1e11);

	if (q == FRD_Q_MAIN)
		return 8 + (uint32_t)(h % (FRD_MAIN_MAX - 7));
	if (seq >= FRD_SHORT_SEQ0)
		return 8;
	return 8 + (uint32_t)(h % (FRD_AUX_MAX - 7));
}

/* Record |seq|: its header, then its bytes; its length returned. */
static uint32_t frd_rec_fill(uint8_t *p, enum frd_queue q, uint32_t client,
			     uint32_t seq)
{
	uint32_t len = frd_rec_len(q, client, seq);

	p[0] = FRD_MAGIC;
	p[1] = (uint8_t)client;
	p[2] = (uint8_t)len;
	p[3] = (uint8_t)(len >> 8);
	memcpy(p + 4, &seq, sizeof(seq));
	frd_fill(p + FRD_HDR_LEN, len - FRD_HDR_LEN,
		 frd_rec_seed(q, client, seq));
	return len;
}

/* The data of flush round |r|'s fi_write. */
static uint64_t frd_write_seed(uint32_t client, uint32_t r)
{
	return 0x3717eull << 40 | (uint64_t)client << 8 | r;
}

/* The scatters: pieces in two regions, each after a small gap. */
struct frd_piece {
	uint32_t region;	/* 0: scatter region, 1: the second one */
	uint32_t off, len;
};

struct frd_scatter {
	uint32_t n;
	uint64_t len;
	struct frd_piece pc[FI_UET_RDMO_SCATTER_MAX];
};

static uint64_t frd_scat_seed(uint32_t client, uint32_t s)
{
	return 0x5ca77ull << 40 | (uint64_t)client << 8 | s;
}

/*
 * Scatter 0: 3 pieces in one packet; 1: the most pieces, several packets,
 * in falling order; 2..9: 6 small pieces each, posted together. 0 when
 * the plan fits the regions (less their spare ends).
 */
static int frd_scatter_plan(uint32_t client, struct frd_scatter *plan)
{
	static const uint32_t first[3] = { 10, 5, 96 };
	const uint32_t lim[2] = { FRD_SCAT_AREA - FRD_SCAT_SPARE,
				  FRD_SCAT2_LEN - FRD_SCAT_SPARE };
	uint32_t cur[2] = { 0, 0 };

	for (uint32_t s = 0; s < FRD_NSCAT; s++) {
		struct frd_scatter *sc = &plan[s];

		sc->n = s == 0 ? 3 : s == 1 ? FI_UET_RDMO_SCATTER_MAX : 6;
		sc->len = 0;
		for (uint32_t i = 0; i < sc->n; i++) {
			uint64_t h = frd_mix(frd_scat_seed(client, s) << 8 | i);
			struct frd_piece *pc = &sc->pc[i];

			pc->region = i % 3 == 1;
			pc->len = s == 0 ? first[i] :
				  s == 1 ? 100 + (uint32_t)(h % 800) :
				  1 + (uint32_t)(h % 200);
			pc->off = cur[pc->region] + 1 +
				  (uint32_t)(h >> 40) % 13;
			cur[pc->region] = pc->off + pc->len;
			if (cur[pc->region] > lim[pc->region])
				return -1;
			sc->len += pc->len;
		}
		for (uint32_t i = 0; s == 1 && i < sc->n / 2; i++) {
			struct frd_piece t = sc->pc[i];

			sc->pc[i] = sc->pc[sc->n - 1 - i];
			sc->pc[sc->n - 1 - i] = t;
		}
	}
	return 0;
}

/* What the two scatter regions hold once every scatter is in. */
static int frd_scatter_image(uint32_t client, uint8_t *img0, uint8_t *img1)
{
	struct frd_scatter plan[FRD_NSCAT];
	uint8_t *data = malloc(FI_UET_RDMO_SCATTER_MAX * 1000);

	if (!data || frd_scatter_plan(client, plan)) {
		free(data);
		return -1;
	}
	memset(img0, 0, FRD_SCAT_AREA);
	memset(img1, 0, FRD_SCAT2_LEN);
	for (uint32_t s = 0; s < FRD_NSCAT; s++) {
		uint64_t pos = 0;

		frd_fill(data, plan[s].len, frd_scat_seed(client, s));
		for (uint32_t i = 0; i < plan[s].n; i++) {
			const struct frd_piece *pc = &plan[s].pc[i];

			memcpy((pc->region ? img1 : img0) + pc->off, data + pos,
			       pc->len);
			pos += pc->len;
		}
	}
	free(data);
	return 0;
}

/* ---- the side channel ---------------------------------------------------- */
enum frd_msg_type {
	FRD_HELLO = 1, FRD_READY, FRD_STATE, FRD_RESULTS,
	FRD_BUMP,		/* close a region: the RI generation moves */
};

/* Client to server. */
struct frd_msg {
	uint32_t type;
	uint32_t what;		/* STATE: which case (frd_case_names) */
	uint32_t client;
	uint32_t name_len;	/* HELLO */
	uint8_t name[FRD_NAME_MAX];
	/* STATE: what the client's own regions must hold. */
	uint64_t aux_ptr;	/* its queue's pointer */
	uint64_t full_ptr;	/* the pointer near that queue's end */
	uint32_t aux_recs;	/* records in its queue */
	uint32_t writes;	/* flush rounds' writes in */
	uint32_t scattered;	/* the scatters are in */
	/* RESULTS: n_main uint64_t, then n_aux pairs (seq, result). */
	uint32_t n_main, n_aux;
	uint32_t pad;
};

/* Server to client, after HELLO. */
struct frd_info {
	uint8_t name[FRD_NAME_MAX];
	uint32_t name_len;
	uint32_t mr_mode;
	uint32_t n_main;	/* appends to the shared queue */
	uint32_t clients;
	uint64_t q_addr, q_key, q_len;
	uint64_t ptr_key, main_ptr_addr, aux_ptr_addr, full_ptr_addr;
	uint64_t aux_addr, aux_key;
	uint64_t scat_addr, scat_key, scat2_addr, scat2_key;
	uint64_t stale_key;	/* a region's key, closed since */
};

struct frd_verdict {
	uint32_t ok;
	char why[252];
};

/* What the client's STATE messages are about, for the server's lines. */
static const char *const frd_case_names[] = {
	"scatters",
	"flush round 1", "flush round 2", "flush round 3", "flush round 4",
	"append with a wrong data key",
	"append with a wrong pointer key",
	"append past the queue's end",
	"append that exactly fills the queue",
	"append to the full queue",
	"scatter with one wrong key",
	"scatter with one piece past its region",
	"appends after an operation refused for FI_INJECT_COMPLETE",
	"appends to the full queue, then a flush",
};
#define FRD_CASE_FLUSH1		1
#define FRD_CASE_COUNT	(sizeof(frd_case_names) / sizeof(frd_case_names[0]))
_Static_assert(FRD_ROUNDS == 4, "frd_case_names has 4 flush rounds");

static int frd_send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Blocking: the sender sends each message whole. */
static int frd_recv_all(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static uint64_t frd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- libfabric set-up ---------------------------------------------------- */
struct frd_opts {
	bool server;
	const char *node;	/* server: its address; client: the server's */
	const char *service;
	const char *absent;	/* client: an address nobody answers (-x) */
	int port;
	bool va;		/* -m va: offer FI_MR_VIRT_ADDR */
	uint32_t clients;	/* server */
	uint32_t n_main;	/* server: appends per client */
	uint32_t id;		/* client: 1..clients */
	uint32_t window;	/* client: appends in flight */
	unsigned int limit_s;
};

struct frd_fab {
	/* Its counter, fab.cntr[0]: the client's FI_WRITE completions, the
	 * server's FI_REMOTE_WRITE events. */
	struct ex_fab fab;
	bool va;
};

#define FRD_CHECK(call)							\
	do {								\
		int frd_r_ = (int)(call);				\
		if (frd_r_) {						\
			fprintf(stderr, "fi_rdmo_check: %s: %s\n",	\
				#call, fi_strerror(frd_r_ < 0 ?		\
						   -frd_r_ : frd_r_));	\
			return -1;					\
		}							\
	} while (0)

static int frd_fab_open(struct frd_fab *f, const struct frd_opts *o)
{
	struct ex_fab_opts fo = {
		.prog = "fi_rdmo_check", .node = o->node, .service = o->service,
		.flags = o->server ? FI_SOURCE : 0, .cq_size = 8192,
		.cq_format = FI_CQ_FORMAT_MSG,
		.cntr = { o->server ? FI_REMOTE_WRITE : FI_WRITE },
	};
	struct fi_info *hints = ex_hints_rdm(EX_RMA_CAPS |
					     (o->server ? FI_RMA_EVENT : 0),
					     FI_CONTEXT | FI_CONTEXT2);
	int ret;

	if (!hints)
		return -1;
	if (!o->va)
		hints->domain_attr->mr_mode &= ~(uint64_t)FI_MR_VIRT_ADDR;
	ret = ex_fab_open(&f->fab, hints, &fo);
	fi_freeinfo(hints);
	if (ret)
		return -1;
	f->va = f->fab.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR;
	if (f->va != o->va) {
		fprintf(stderr, "fi_rdmo_check: asked %s FI_MR_VIRT_ADDR, got "
			"mr_mode %#x\n", o->va ? "for" : "without",
			f->fab.info->domain_attr->mr_mode);
		return -1;
	}
	return 0;
}

/*
 * Registers |len| bytes at |buf| (a page-aligned zeroed one if NULL),
 * with a counter of the remote writes to it when |cntr| is not NULL.
 */
static int frd_mr_cntr(struct frd_fab *f, void **buf, size_t len,
		       uint64_t access, struct fid_mr **mr,
		       struct fid_cntr **cntr)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP };
	bool ep = f->fab.info->domain_attr->mr_mode & FI_MR_ENDPOINT;

	if (!*buf) {
		if (posix_memalign(buf, 4096, len))
			return -1;
		memset(*buf, 0, len);
	}
	FRD_CHECK(fi_mr_reg(f->fab.domain, *buf, len, access, 0, 0,
			    cntr ? FI_RMA_EVENT : 0, mr, NULL));
	if (ep)
		FRD_CHECK(fi_mr_bind(*mr, &f->fab.ep->fid, 0));
	if (cntr) {
		FRD_CHECK(fi_cntr_open(f->fab.domain, &attr, cntr, NULL));
		FRD_CHECK(fi_mr_bind(*mr, &(*cntr)->fid, FI_REMOTE_WRITE));
	}
	if (ep || cntr)
		FRD_CHECK(fi_mr_enable(*mr));
	return 0;
}

static int frd_mr(struct frd_fab *f, void **buf, size_t len, uint64_t access,
		  struct fid_mr **mr)
{
	return frd_mr_cntr(f, buf, len, access, mr, NULL);
}

static void frd_close_cntr(struct fid_cntr *c)
{
	if (c)
		fi_close(&c->fid);
}

/* How peers address |p| in its region: the address, or an offset. */
static uint64_t frd_raddr(const struct frd_fab *f, const void *base,
			  size_t off)
{
	return (f->va ? (uint64_t)(uintptr_t)base : 0) + off;
}

static int frd_name(struct frd_fab *f, uint8_t *name, uint32_t *len)
{
	size_t n = FRD_NAME_MAX;

	FRD_CHECK(fi_getname(&f->fab.ep->fid, name, &n));
	*len = (uint32_t)n;
	return 0;
}

/* Runs the provider: reads the CQ, where nothing is due. 0 or -1. */
static int frd_srv_progress(struct frd_fab *f)
{
	struct fi_cq_msg_entry e;
	struct fi_cq_err_entry err = { 0 };
	ssize_t r = fi_cq_read(f->fab.cq, &e, 1);

	if (r == -FI_EAGAIN)
		return 0;
	if (r == -FI_EAVAIL && fi_cq_readerr(f->fab.cq, &err, 0) == 1)
		fprintf(stderr, "fi_rdmo_check: server: error completion "
			"%s (prov_errno %#x)\n", fi_strerror(err.err),
			err.prov_errno);
	else
		fprintf(stderr, "fi_rdmo_check: server: fi_cq_read: %zd\n", r);
	return -1;
}

/* ---- server -------------------------------------------------------------- */
struct frd_srv_client {
	int fd;
	uint32_t id;		/* 0 until its hello */
	bool ready, results;
	uint8_t *aux, *scat, *scat2;
	struct fid_mr *aux_mr, *scat_mr, *scat2_mr;
	/* Remote writes to each (FI_RMA_EVENT). */
	struct fid_cntr *aux_cntr, *scat_cntr, *scat2_cntr;
	uint8_t *img0, *img1;	/* what its scatter regions must hold */
	uint32_t pieces[2];	/* scatter pieces in each scatter region */
	uint32_t aux_writes;	/* its RESULTS: appends to its own queue */
	uint32_t writes;	/* and fi_writes to its scatter region */
	uint64_t *main_res;	/* its results in the shared queue */
	uint32_t flush_checked;	/* flush rounds found in memory */
	uint32_t checks;	/* STATE messages found true */
};

struct frd_srv {
	struct frd_fab f;
	const struct frd_opts *o;
	uint8_t *q;
	size_t q_len;
	uint64_t *ptr;
	struct fid_mr *q_mr, *ptr_mr;
	struct fid_cntr *q_cntr, *ptr_cntr;
	/* Regions closed on FRD_BUMP, while a client's appends arrive. */
	struct fid_mr *spare[FRD_BUMPS_MAX];
	void *spare_buf[FRD_BUMPS_MAX];
	uint32_t bumps;
	uint64_t stale_key;
	struct frd_srv_client cl[FRD_CLIENTS_MAX + 1];	/* by id; 0 unused */
	uint32_t hellos, readies, results;
};

static uint64_t *frd_word(struct frd_srv *s, uint32_t w)
{
	return &s->ptr[w];
}

/* Atomically, as the target engine moves it (its compare-and-swap). */
static uint64_t frd_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static int frd_srv_regions(struct frd_srv *s)
{
	uint64_t rw = FI_REMOTE_READ | FI_REMOTE_WRITE;
	struct frd_fab *f = &s->f;
	struct fid_mr *stale = NULL;
	void *p = NULL, *sp = NULL;

	s->q_len = (size_t)s->o->clients * s->o->n_main * FRD_MAIN_MAX + 4096;
	if (frd_mr_cntr(f, &p, s->q_len, rw, &s->q_mr, &s->q_cntr))
		return -1;
	s->q = p;
	p = NULL;
	if (frd_mr_cntr(f, &p, FRD_PTR_WORDS * sizeof(uint64_t), rw,
			&s->ptr_mr, &s->ptr_cntr))
		return -1;
	s->ptr = p;
	*frd_word(s, 0) = frd_raddr(f, s->q, 0);
	for (uint32_t k = 1; k <= s->o->clients; k++) {
		struct frd_srv_client *c = &s->cl[k];
		struct frd_scatter plan[FRD_NSCAT];
		void *a = NULL, *b = NULL, *d = NULL;

		if (frd_mr_cntr(f, &a, FRD_AUX_LEN, rw, &c->aux_mr,
				&c->aux_cntr) ||
		    frd_mr_cntr(f, &b, FRD_SCAT_LEN, rw, &c->scat_mr,
				&c->scat_cntr) ||
		    frd_mr_cntr(f, &d, FRD_SCAT2_LEN, rw, &c->scat2_mr,
				&c->scat2_cntr) ||
		    frd_scatter_plan(k, plan))
			return -1;
		for (uint32_t i = 0; i < FRD_NSCAT; i++)
			for (uint32_t j = 0; j < plan[i].n; j++)
				c->pieces[plan[i].pc[j].region]++;
		c->aux = a;
		c->scat = b;
		c->scat2 = d;
		c->img0 = malloc(FRD_SCAT_AREA);
		c->img1 = malloc(FRD_SCAT2_LEN);
		c->main_res = calloc(s->o->n_main, sizeof(uint64_t));
		if (!c->img0 || !c->img1 || !c->main_res ||
		    frd_scatter_image(k, c->img0, c->img1))
			return -1;
		*frd_word(s, 8 * k) = frd_raddr(f, c->aux, 0);
		*frd_word(s, 8 * k + 1) = frd_raddr(f, c->aux, FRD_AUX_LEN - 8);
	}
	for (uint32_t i = 0; i < FRD_BUMPS_MAX; i++)
		if (frd_mr(f, &s->spare_buf[i], 4096, rw, &s->spare[i]))
			return -1;
	/* A key that was a region's: nobody's now. */
	if (frd_mr(f, &sp, 4096, rw, &stale))
		return -1;
	s->stale_key = fi_mr_key(stale);
	FRD_CHECK(fi_close(&stale->fid));
	free(sp);
	return 0;
}


#define FRD_WHY(v, ...)	snprintf((v)->why, sizeof((v)->why), __VA_ARGS__)

/*
 * Walks queue |q| (|len| bytes from its start) record by record: each of
 * |client| (any of 1..|clients| when 0), with the length and bytes its
 * (client, seq) give, none twice; where each was found goes to |pos|
 * (index seq, or seq - FRD_SHORT_SEQ0 + FRD_FLUSH_RECS for short ones),
 * the records to *|count|, the times the client changed to *|switches|.
 * 0, or -1 with why.
 */
static int frd_walk(const uint8_t *q, uint64_t len, enum frd_queue kind,
		    uint32_t client, uint32_t clients, uint32_t n_main,
		    uint64_t **pos, uint64_t *count, uint64_t *switches,
		    struct frd_verdict *v)
{
	uint8_t want[FRD_AUX_MAX];
	uint64_t at = 0, n = 0, sw = 0;
	uint32_t last = 0;

	while (at < len) {
		uint32_t c, rlen, seq, idx;

		if (len - at < FRD_HDR_LEN) {
			FRD_WHY(v, "a partial header at %lu of %lu",
				(unsigned long)at, (unsigned long)len);
			return -1;
		}
		c = q[at + 1];
		rlen = q[at + 2] | (uint32_t)q[at + 3] << 8;
		memcpy(&seq, q + at + 4, sizeof(seq));
		if (q[at] != FRD_MAGIC || !c || c > clients ||
		    (client && c != client)) {
			FRD_WHY(v, "no record at %lu (bytes %02x %02x)",
				(unsigned long)at, q[at], q[at + 1]);
			return -1;
		}
		if (kind == FRD_Q_MAIN) {
			idx = seq;
			if (seq >= n_main) {
				FRD_WHY(v, "client %u seq %u at %lu: no such "
					"append", c, seq, (unsigned long)at);
				return -1;
			}
		} else if (seq < FRD_FLUSH_RECS) {
			idx = seq;
		} else if (seq >= FRD_SHORT_SEQ0 &&
			   seq < FRD_SHORT_SEQ0 + FRD_REUSE_MAX) {
			idx = seq - FRD_SHORT_SEQ0 + FRD_FLUSH_RECS;
		} else {
			FRD_WHY(v, "seq %u at %lu: no such append", seq,
				(unsigned long)at);
			return -1;
		}
		if (rlen != frd_rec_len(kind, c, seq) || rlen > len - at) {
			FRD_WHY(v, "client %u seq %u at %lu: length %u, not %u",
				c, seq, (unsigned long)at, rlen,
				frd_rec_len(kind, c, seq));
			return -1;
		}
		frd_rec_fill(want, kind, c, seq);
		if (memcmp(q + at, want, rlen)) {
			FRD_WHY(v, "client %u seq %u at %lu: its bytes differ",
				c, seq, (unsigned long)at);
			return -1;
		}
		if (pos[c][idx] != UINT64_MAX) {
			FRD_WHY(v, "client %u seq %u twice: at %lu and %lu", c,
				seq, (unsigned long)pos[c][idx],
				(unsigned long)at);
			return -1;
		}
		pos[c][idx] = at;
		sw += last && c != last;
		last = c;
		n++;
		at += rlen;
	}
	*count = n;
	if (switches)
		*switches = sw;
	return 0;
}

static bool frd_is_zero(const uint8_t *p, size_t len, size_t *at)
{
	for (size_t i = 0; i < len; i++)
		if (p[i]) {
			*at = i;
			return false;
		}
	return true;
}

#define FRD_AUX_IDX	(FRD_FLUSH_RECS + FRD_REUSE_MAX)

/*
 * Client |k|'s own regions against what |m| says they hold: the two
 * pointers, its queue from start to pointer (|pos| filled), nothing past
 * it, the record that exactly fills it when its pointer says so, both
 * scatter regions and the flush rounds' writes.
 */
static int frd_srv_client_state(struct frd_srv *s, uint32_t k,
				const struct frd_msg *m, uint64_t *pos,
				struct frd_verdict *v)
{
	struct frd_srv_client *c = &s->cl[k];
	uint64_t base = frd_raddr(&s->f, c->aux, 0);
	uint64_t aux = frd_load(frd_word(s, 8 * k));
	uint64_t full = frd_load(frd_word(s, 8 * k + 1));
	uint64_t *pp[FRD_CLIENTS_MAX + 1] = { 0 }, n = 0, len;
	uint8_t want[FRD_WRITE_LEN];
	size_t at;

	if (aux != m->aux_ptr || full != m->full_ptr) {
		FRD_WHY(v, "pointers %#lx %#lx, not %#lx %#lx",
			(unsigned long)aux, (unsigned long)full,
			(unsigned long)m->aux_ptr, (unsigned long)m->full_ptr);
		return -1;
	}
	len = aux - base;
	if (len > FRD_AUX_LEN - 8) {
		FRD_WHY(v, "its queue's pointer %#lx is past it",
			(unsigned long)aux);
		return -1;
	}
	for (uint32_t i = 0; i < FRD_AUX_IDX; i++)
		pos[i] = UINT64_MAX;
	pp[k] = pos;
	if (frd_walk(c->aux, len, FRD_Q_AUX, k, s->o->clients, 0, pp, &n,
		     NULL, v))
		return -1;
	if (n != m->aux_recs) {
		FRD_WHY(v, "%lu records in its queue, not %u",
			(unsigned long)n, m->aux_recs);
		return -1;
	}
	if (!frd_is_zero(c->aux + len, FRD_AUX_LEN - 8 - len, &at)) {
		FRD_WHY(v, "its queue written at %lu, past its pointer",
			(unsigned long)(len + at));
		return -1;
	}
	if (full == base + FRD_AUX_LEN - 8) {
		if (!frd_is_zero(c->aux + FRD_AUX_LEN - 8, 8, &at)) {
			FRD_WHY(v, "its queue's last 8 bytes written");
			return -1;
		}
	} else {
		frd_rec_fill(want, FRD_Q_AUX, k, FRD_FULL_SEQ);
		if (full != base + FRD_AUX_LEN ||
		    memcmp(c->aux + FRD_AUX_LEN - 8, want, 8)) {
			FRD_WHY(v, "its queue's last 8 bytes are not the "
				"record that fills it");
			return -1;
		}
	}
	if (m->scattered ? memcmp(c->scat, c->img0, FRD_SCAT_AREA) ||
			   memcmp(c->scat2, c->img1, FRD_SCAT2_LEN) :
	    !frd_is_zero(c->scat, FRD_SCAT_AREA, &at) ||
	    !frd_is_zero(c->scat2, FRD_SCAT2_LEN, &at)) {
		for (at = 0; at < FRD_SCAT_AREA &&
		     c->scat[at] == (m->scattered ? c->img0[at] : 0); at++)
			;
		FRD_WHY(v, "scatter regions are not as planned (first "
			"difference at %zu of the first)", at);
		return -1;
	}
	for (uint32_t r = 0; r < FRD_ROUNDS; r++) {
		const uint8_t *w = c->scat + FRD_SCAT_AREA + r * FRD_WRITE_LEN;

		if (r < m->writes) {
			frd_fill(want, FRD_WRITE_LEN, frd_write_seed(k, r));
			if (memcmp(w, want, FRD_WRITE_LEN)) {
				FRD_WHY(v, "round %u's fi_write is not all in",
					r + 1);
				return -1;
			}
		} else if (!frd_is_zero(w, FRD_WRITE_LEN, &at)) {
			FRD_WHY(v, "round %u's write area written", r + 1);
			return -1;
		}
	}
	return 0;
}

static int frd_srv_verdict(struct frd_srv_client *c,
			   const struct frd_verdict *v)
{
	return frd_send_all(c->fd, v, sizeof(*v));
}

static int frd_srv_info(struct frd_srv *s, uint32_t k)
{
	struct frd_srv_client *c = &s->cl[k];
	struct frd_fab *f = &s->f;
	struct frd_info in = {
		.mr_mode = (uint32_t)f->fab.info->domain_attr->mr_mode,
		.n_main = s->o->n_main, .clients = s->o->clients,
		.q_addr = frd_raddr(f, s->q, 0), .q_key = fi_mr_key(s->q_mr),
		.q_len = s->q_len, .ptr_key = fi_mr_key(s->ptr_mr),
		.main_ptr_addr = frd_raddr(f, s->ptr, 0),
		.aux_ptr_addr = frd_raddr(f, s->ptr, 8 * k * 8),
		.full_ptr_addr = frd_raddr(f, s->ptr, (8 * k + 1) * 8),
		.aux_addr = frd_raddr(f, c->aux, 0),
		.aux_key = fi_mr_key(c->aux_mr),
		.scat_addr = frd_raddr(f, c->scat, 0),
		.scat_key = fi_mr_key(c->scat_mr),
		.scat2_addr = frd_raddr(f, c->scat2, 0),
		.scat2_key = fi_mr_key(c->scat2_mr),
		.stale_key = s->stale_key,
	};

	if (frd_name(f, in.name, &in.name_len))
		return -1;
	return frd_send_all(c->fd, &in, sizeof(in));
}

static int frd_srv_hello(struct frd_srv *s, struct frd_srv_client *tmp,
			 const struct frd_msg *m)
{
	fi_addr_t a;
	uint32_t k = m->client;

	if (!k || k > s->o->clients || s->cl[k].id ||
	    m->name_len > FRD_NAME_MAX) {
		fprintf(stderr, "fi_rdmo_check: server: hello from client %u "
			"refused\n", k);
		return -1;
	}
	if (fi_av_insert(s->f.fab.av, m->name, 1, &a, 0, NULL) != 1) {
		fprintf(stderr, "fi_rdmo_check: server: fi_av_insert\n");
		return -1;
	}
	s->cl[k].fd = tmp->fd;
	s->cl[k].id = k;
	tmp->fd = -1;
	if (++s->hellos < s->o->clients)
		return 0;
	/* Everyone is here: start them together. */
	for (uint32_t i = 1; i <= s->o->clients; i++)
		if (frd_srv_info(s, i))
			return -1;
	printf("fi_rdmo_check: server: %u clients, started together\n",
	       s->o->clients);
	return 0;
}

/*
 * The STATE of |k|: read, then looked at in memory at once (for a flush:
 * before any libfabric call), and answered.
 */
static int frd_srv_state(struct frd_srv *s, uint32_t k,
			 const struct frd_msg *m)
{
	static uint64_t pos[FRD_AUX_IDX];
	struct frd_srv_client *c = &s->cl[k];
	struct frd_verdict v = { .ok = 1 };
	const char *what = m->what < FRD_CASE_COUNT ?
			   frd_case_names[m->what] : "?";

	if (frd_srv_client_state(s, k, m, pos, &v))
		v.ok = 0;
	if (v.ok) {
		c->checks++;
		if (m->what >= FRD_CASE_FLUSH1 &&
		    m->what < FRD_CASE_FLUSH1 + FRD_ROUNDS) {
			c->flush_checked++;
			printf("fi_rdmo_check: server: client %u %s: pointer, "
			       "%u records (%lu bytes) and the write in "
			       "memory before any libfabric call\n", k, what,
			       m->aux_recs, (unsigned long)(m->aux_ptr -
				frd_raddr(&s->f, c->aux, 0)));
		}
	} else {
		printf("fi_rdmo_check: server: client %u %s: FAIL: %s\n", k,
		       what, v.why);
	}
	return frd_srv_verdict(c, &v) || !v.ok ? -1 : 0;
}

/* Client |k|'s own queue against the results it got. */
static int frd_srv_aux_results(struct frd_srv *s, uint32_t k,
			       const struct frd_msg *m, const uint64_t *pairs,
			       struct frd_verdict *v)
{
	static uint64_t pos[FRD_AUX_IDX];
	struct frd_srv_client *c = &s->cl[k];
	struct frd_msg now = *m;
	uint64_t base = frd_raddr(&s->f, c->aux, 0);

	now.aux_ptr = frd_load(frd_word(s, 8 * k));
	now.full_ptr = frd_load(frd_word(s, 8 * k + 1));
	if (frd_srv_client_state(s, k, &now, pos, v))
		return -1;
	for (uint32_t i = 0; i < m->n_aux; i++) {
		uint64_t seq = pairs[2 * i], res = pairs[2 * i + 1], idx;

		if (seq == FRD_FULL_SEQ) {
			if (res != base + FRD_AUX_LEN - 8) {
				FRD_WHY(v, "the filling append got %#lx",
					(unsigned long)res);
				return -1;
			}
			continue;
		}
		idx = seq < FRD_FLUSH_RECS ? seq :
		      seq - FRD_SHORT_SEQ0 + FRD_FLUSH_RECS;
		if (idx >= FRD_AUX_IDX || pos[idx] + base != res) {
			FRD_WHY(v, "own queue: seq %lu got %#lx, found at %#lx",
				(unsigned long)seq, (unsigned long)res,
				idx < FRD_AUX_IDX ?
				(unsigned long)(pos[idx] + base) : 0ul);
			return -1;
		}
	}
	if (m->n_aux != m->aux_recs + (now.full_ptr == base + FRD_AUX_LEN)) {
		FRD_WHY(v, "%u results for %u records in its queue",
			m->n_aux, m->aux_recs);
		return -1;
	}
	return 0;
}

/*
 * The remote write counters (FI_RMA_EVENT), once every client is done:
 * an append counts once, on its data region (not its pointer's), a
 * scatter once per piece on the piece's region, an fi_write as ever;
 * refusals not at all.
 */
static int frd_srv_counters(struct frd_srv *s, struct frd_verdict *v)
{
	uint64_t all, want_all = 0;
	struct {
		const char *what;
		struct fid_cntr *c;
		uint64_t want;
		uint32_t k;
	} t[3 * FRD_CLIENTS_MAX + 2];
	uint32_t n = 0;

	t[n++] = (typeof(t[0])){ "shared queue", s->q_cntr,
				 (uint64_t)s->o->clients * s->o->n_main, 0 };
	t[n++] = (typeof(t[0])){ "pointers", s->ptr_cntr, 0, 0 };
	for (uint32_t k = 1; k <= s->o->clients; k++) {
		const struct frd_srv_client *c = &s->cl[k];

		t[n++] = (typeof(t[0])){ "own queue", c->aux_cntr,
					 c->aux_writes, k };
		t[n++] = (typeof(t[0])){ "scatter region", c->scat_cntr,
					 c->pieces[0] + c->writes, k };
		t[n++] = (typeof(t[0])){ "second scatter region",
					 c->scat2_cntr, c->pieces[1], k };
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t got = fi_cntr_read(t[i].c);

		want_all += t[i].want;
		if (got != t[i].want) {
			FRD_WHY(v, "client %u's %s: its counter says %lu "
				"remote writes, not %lu", t[i].k, t[i].what,
				(unsigned long)got, (unsigned long)t[i].want);
			return -1;
		}
	}
	all = fi_cntr_read(s->f.fab.cntr[0]);
	if (all != want_all) {
		FRD_WHY(v, "the endpoint's counter says %lu remote writes, not "
			"%lu", (unsigned long)all, (unsigned long)want_all);
		return -1;
	}
	printf("fi_rdmo_check: server: remote write counters: %lu on the "
	       "endpoint, each region's its own (an append once on its data, "
	       "none on its pointer; a scatter once per piece; refused ones "
	       "none)\n", (unsigned long)all);
	return 0;
}

/* The shared queue, once every client has sent its results. */
static int frd_srv_main_check(struct frd_srv *s, struct frd_verdict *v)
{
	uint32_t n = s->o->n_main, nc = s->o->clients;
	uint64_t base = frd_raddr(&s->f, s->q, 0);
	uint64_t ptr = frd_load(frd_word(s, 0)), len = ptr - base;
	uint64_t *pos[FRD_CLIENTS_MAX + 1] = { 0 }, count = 0, sw = 0;
	uint64_t want = 0;
	int ret = -1;
	size_t at;

	for (uint32_t k = 1; k <= nc; k++) {
		pos[k] = malloc(n * sizeof(uint64_t));
		if (!pos[k])
			goto out;
		for (uint32_t i = 0; i < n; i++) {
			pos[k][i] = UINT64_MAX;
			want += frd_rec_len(FRD_Q_MAIN, k, i);
		}
	}
	if (len != want || len > s->q_len) {
		FRD_WHY(v, "shared queue's pointer %#lx: %lu bytes, appended "
			"%lu", (unsigned long)ptr, (unsigned long)len,
			(unsigned long)want);
		goto out;
	}
	if (frd_walk(s->q, len, FRD_Q_MAIN, 0, nc, n, pos, &count, &sw, v))
		goto out;
	if (count != (uint64_t)n * nc) {
		FRD_WHY(v, "%lu records in the shared queue, not %lu",
			(unsigned long)count, (unsigned long)n * nc);
		goto out;
	}
	for (uint32_t k = 1; k <= nc; k++)
		for (uint32_t i = 0; i < n; i++)
			if (pos[k][i] + base != s->cl[k].main_res[i]) {
				FRD_WHY(v, "client %u seq %u: got %#lx, is at "
					"%#lx", k, i,
					(unsigned long)s->cl[k].main_res[i],
					(unsigned long)(pos[k][i] + base));
				goto out;
			}
	if (!frd_is_zero(s->q + len, s->q_len - len, &at)) {
		FRD_WHY(v, "shared queue written at %lu, past its pointer",
			(unsigned long)(len + at));
		goto out;
	}
	if (nc > 1 && sw < 2) {
		FRD_WHY(v, "the clients' records never interleave (%lu "
			"switches): they did not append together",
			(unsigned long)sw);
		goto out;
	}
	printf("fi_rdmo_check: server: shared queue: %lu records of %u "
	       "clients, %lu bytes = its pointer, every one once at the "
	       "offset its client got, nothing past it (%lu changes of "
	       "client along it)\n", (unsigned long)count, nc,
	       (unsigned long)len, (unsigned long)sw);
	ret = 0;
out:
	for (uint32_t k = 1; k <= nc; k++)
		free(pos[k]);
	return ret;
}

static int frd_srv_results(struct frd_srv *s, uint32_t k,
			   const struct frd_msg *m)
{
	struct frd_srv_client *c = &s->cl[k];
	struct frd_verdict v = { .ok = 1 };
	uint64_t *pairs = NULL;

	if (c->results || m->n_main != s->o->n_main ||
	    m->n_aux > FRD_AUX_IDX + 1) {
		fprintf(stderr, "fi_rdmo_check: server: client %u: bad "
			"results\n", k);
		return -1;
	}
	pairs = malloc((size_t)(m->n_aux + 1) * 2 * sizeof(uint64_t));
	if (!pairs ||
	    frd_recv_all(c->fd, c->main_res, m->n_main * sizeof(uint64_t)) ||
	    frd_recv_all(c->fd, pairs, m->n_aux * 2 * sizeof(uint64_t))) {
		free(pairs);
		return -1;
	}
	c->results = true;
	c->aux_writes = m->n_aux;
	c->writes = m->writes;
	s->results++;
	if (frd_srv_aux_results(s, k, m, pairs, &v)) {
		printf("fi_rdmo_check: server: client %u own queue: FAIL: "
		       "%s\n", k, v.why);
		v.ok = 0;
	} else {
		printf("fi_rdmo_check: server: client %u: own queue (%u "
		       "records, each at the offset it got), scatter "
		       "regions, writes: %u checks, %u flush rounds in memory "
		       "at the flush's word\n", k, m->aux_recs, c->checks,
		       c->flush_checked);
	}
	free(pairs);
	if (!v.ok) {
		frd_srv_verdict(c, &v);
		return -1;
	}
	if (s->results < s->o->clients)
		return 0;
	if (frd_srv_main_check(s, &v)) {
		printf("fi_rdmo_check: server: shared queue: FAIL: %s\n",
		       v.why);
		v.ok = 0;
	} else if (frd_srv_counters(s, &v)) {
		printf("fi_rdmo_check: server: FAIL: %s\n", v.why);
		v.ok = 0;
	}
	for (uint32_t i = 1; i <= s->o->clients; i++)
		if (frd_srv_verdict(&s->cl[i], &v))
			return -1;
	return v.ok ? 0 : -1;
}

/*
 * Client |k| reached us (a flush): once all have, all start appending at
 * the same moment.
 */
static int frd_srv_ready(struct frd_srv *s, uint32_t k)
{
	struct frd_verdict go = { .ok = 1 };

	if (s->cl[k].ready)
		return -1;
	s->cl[k].ready = true;
	if (++s->readies < s->o->clients)
		return 0;
	for (uint32_t i = 1; i <= s->o->clients; i++)
		if (frd_srv_verdict(&s->cl[i], &go))
			return -1;
	return 0;
}

/*
 * A client's appends are arriving: a region of the endpoint's RI table
 * closed now moves its generation, and requests made under the old one
 * are refused RC_BAD_GENERATION and sent again by their initiator. An
 * append of several packets whose first is in must still land once.
 */
static int frd_srv_bump(struct frd_srv *s)
{
	uint32_t i = s->bumps;

	if (i >= FRD_BUMPS_MAX || !s->spare[i])
		return -1;
	FRD_CHECK(fi_close(&s->spare[i]->fid));
	s->spare[i] = NULL;
	s->bumps++;
	return 0;
}

/* One message from |c|, read whole, handled. */
static int frd_srv_message(struct frd_srv *s, struct frd_srv_client *c)
{
	struct frd_msg m;

	if (frd_recv_all(c->fd, &m, sizeof(m))) {
		fprintf(stderr, "fi_rdmo_check: server: client %u went "
			"away\n", c->id);
		return -1;
	}
	if (!c->id)
		return m.type == FRD_HELLO ? frd_srv_hello(s, c, &m) : -1;
	if (m.client != c->id)
		return -1;
	switch (m.type) {
	case FRD_READY:
		return frd_srv_ready(s, c->id);
	case FRD_BUMP:
		return frd_srv_bump(s);
	case FRD_STATE:
		return frd_srv_state(s, c->id, &m);
	case FRD_RESULTS:
		return frd_srv_results(s, c->id, &m);
	default:
		return -1;
	}
}

static int frd_server(const struct frd_opts *o)
{
	struct frd_srv s = { .o = o };
	struct frd_srv_client pending[FRD_CLIENTS_MAX];
	uint32_t npending = 0;
	uint64_t deadline = frd_now_ms() + (uint64_t)o->limit_s * 1000;
	int lfd = -1, ret = -1;

	for (uint32_t i = 0; i < FRD_CLIENTS_MAX; i++)
		pending[i].fd = -1;
	for (uint32_t k = 0; k <= FRD_CLIENTS_MAX; k++)
		s.cl[k].fd = -1;
	if (frd_fab_open(&s.f, o) || frd_srv_regions(&s))
		goto out;
	lfd = ex_tcp_listen(o->port, FRD_CLIENTS_MAX);
	if (lfd < 0) {
		perror("fi_rdmo_check: side channel");
		goto out;
	}
	printf("fi_rdmo_check: server: provider %s, mr_mode %#x (%s), %u "
	       "clients of %u appends, pid %d ready\n",
	       s.f.fab.info->fabric_attr->prov_name,
	       s.f.fab.info->domain_attr->mr_mode,
	       s.f.va ? "pointers hold addresses" : "pointers hold offsets",
	       o->clients, o->n_main, getpid());
	while (s.results < o->clients) {
		struct pollfd pfd[1 + 2 * FRD_CLIENTS_MAX];
		struct frd_srv_client *who[1 + 2 * FRD_CLIENTS_MAX];
		nfds_t n = 0;
		int r;

		if (frd_now_ms() > deadline) {
			fprintf(stderr, "fi_rdmo_check: server: time limit\n");
			goto out;
		}
		if (npending < o->clients) {
			pfd[n] = (struct pollfd){ .fd = lfd, .events = POLLIN };
			who[n++] = NULL;
		}
		for (uint32_t i = 0; i < npending; i++)
			if (pending[i].fd >= 0) {
				pfd[n] = (struct pollfd){ .fd = pending[i].fd,
							  .events = POLLIN };
				who[n++] = &pending[i];
			}
		for (uint32_t k = 1; k <= o->clients; k++)
			if (s.cl[k].id && !s.cl[k].results) {
				pfd[n] = (struct pollfd){ .fd = s.cl[k].fd,
							  .events = POLLIN };
				who[n++] = &s.cl[k];
			}
		r = poll(pfd, n, 1);
		for (nfds_t i = 0; r > 0 && i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (!who[i]) {
				pending[npending].fd = accept(lfd, NULL, NULL);
				pending[npending].id = 0;
				if (pending[npending++].fd < 0)
					goto out;
				continue;
			}
			/* Read and looked at before any libfabric call. */
			if (frd_srv_message(&s, who[i]))
				goto out;
		}
		if (frd_srv_progress(&s.f))
			goto out;
	}
	printf("fi_rdmo_check: server: %u regions closed while appends "
	       "were arriving (the RI generation moved)\n", s.bumps);
	printf("fi_rdmo_check: server: all ok\n");
	ret = 0;
out:
	if (lfd >= 0)
		close(lfd);
	for (uint32_t i = 0; i < FRD_CLIENTS_MAX; i++)
		if (pending[i].fd >= 0)
			close(pending[i].fd);
	for (uint32_t k = 1; k <= o->clients && k <= FRD_CLIENTS_MAX; k++) {
		struct frd_srv_client *c = &s.cl[k];

		if (c->fd >= 0)
			close(c->fd);
		/* Counters first: a region with one bound will not close. */
		frd_close_cntr(c->aux_cntr);
		frd_close_cntr(c->scat_cntr);
		frd_close_cntr(c->scat2_cntr);
		if (c->aux_mr)
			fi_close(&c->aux_mr->fid);
		if (c->scat_mr)
			fi_close(&c->scat_mr->fid);
		if (c->scat2_mr)
			fi_close(&c->scat2_mr->fid);
		free(c->aux);
		free(c->scat);
		free(c->scat2);
		free(c->img0);
		free(c->img1);
		free(c->main_res);
	}
	for (uint32_t i = 0; i < FRD_BUMPS_MAX; i++) {
		if (s.spare[i])
			fi_close(&s.spare[i]->fid);
		free(s.spare_buf[i]);
	}
	frd_close_cntr(s.q_cntr);
	frd_close_cntr(s.ptr_cntr);
	if (s.q_mr)
		fi_close(&s.q_mr->fid);
	if (s.ptr_mr)
		fi_close(&s.ptr_mr->fid);
	ex_fab_close(&s.f.fab);
	free(s.q);
	free(s.ptr);
	return ret ? 1 : 0;
}

/* ---- client -------------------------------------------------------------- */
enum frd_kind {
	FRD_K_MAIN, FRD_K_AUX, FRD_K_WRITE, FRD_K_SCAT, FRD_K_FLUSH,
	FRD_K_ERR, FRD_K_JUNK, FRD_K_REUSE, FRD_K_COUNT
};

/* One operation's context and how it ended. */
struct frd_op {
	struct fi_context2 fc;	/* first: the CQ gives it back */
	uint8_t kind;
	bool done, early;
	int err, prov_errno;
	const uint64_t *result;	/* must be written by its completion */
};

struct frd_cli {
	struct frd_fab f;
	const struct frd_opts *o;
	struct fi_uet_rdmo_ops *ops;
	struct frd_info in;
	fi_addr_t srv;
	int fd;
	uint32_t k;
	/* Sources, all in one registered buffer. */
	uint8_t *buf;
	size_t buf_len;
	struct fid_mr *mr;
	void *desc;
	uint8_t *main_src, *aux_src, *write_src, *scat_src, *junk;
	/* Operations. */
	struct frd_op *main_ops, aux_ops[FRD_FLUSH_RECS], write_ops[FRD_ROUNDS];
	struct frd_op scat_ops[FRD_NSCAT], flush_ops[FRD_ROUNDS + 1], err_op;
	struct frd_op *junk_ops, reuse_op, full_ops[FRD_BATCH];
	uint64_t *main_res, aux_res[FRD_FLUSH_RECS], reuse_res[FRD_REUSE_MAX];
	uint64_t full_res, err_res;
	uint64_t cpl[FRD_K_COUNT];
	uint64_t stray, twice, bad_flags, cpl_ok, cpl_err;
	/* The client's view of its own regions (frd_msg STATE). */
	uint64_t aux_bytes;
	uint32_t aux_recs, writes, reuse_n;
	bool scattered, filled;
};

static void frd_op_init(struct frd_op *op, enum frd_kind kind,
			const uint64_t *result)
{
	memset(op, 0, sizeof(*op));
	op->kind = (uint8_t)kind;
	op->result = result;
}

static void frd_op_end(struct frd_cli *c, void *ctx, uint64_t flags,
		       int err, int prov_errno)
{
	struct frd_op *op = ctx;

	if (!op) {
		c->stray++;
		return;
	}
	/* Every one of ours completes as an fi_write does. */
	if (flags != (FI_RMA | FI_WRITE))
		c->bad_flags++;
	if (err)
		c->cpl_err++;
	else
		c->cpl_ok++;
	if (op->done)
		c->twice++;
	op->done = true;
	op->err = err;
	op->prov_errno = prov_errno;
	if (!err && op->result && *op->result == FRD_SENTINEL)
		op->early = true;
	c->cpl[op->kind]++;
}

/* Reads what completed: how many, or -1 (the CQ failed). */
static int frd_pump(struct frd_cli *c)
{
	struct fi_cq_msg_entry e[32];
	struct fi_cq_err_entry err;
	ssize_t r = fi_cq_read(c->f.fab.cq, e, 32);

	if (r > 0) {
		for (ssize_t i = 0; i < r; i++)
			frd_op_end(c, e[i].op_context, e[i].flags, 0, 0);
		return (int)r;
	}
	if (r == -FI_EAGAIN)
		return 0;
	if (r == -FI_EAVAIL) {
		memset(&err, 0, sizeof(err));
		if (fi_cq_readerr(c->f.fab.cq, &err, 0) != 1)
			return -1;
		frd_op_end(c, err.op_context, err.flags, err.err,
			   err.prov_errno);
		return 1;
	}
	fprintf(stderr, "fi_rdmo_check: client %u: fi_cq_read: %s\n", c->k,
		fi_strerror((int)-r));
	return -1;
}

/* Until |op| has completed (FRD_WAIT_S at most); 0 or -1. */
static int frd_wait_op(struct frd_cli *c, const struct frd_op *op)
{
	uint64_t end = frd_now_ms() + FRD_WAIT_S * 1000;

	while (!op->done) {
		if (frd_pump(c) < 0)
			return -1;
		if (frd_now_ms() > end) {
			fprintf(stderr, "fi_rdmo_check: client %u: no "
				"completion in %d s\n", c->k, FRD_WAIT_S);
			return -1;
		}
	}
	return 0;
}

/* Until |n| operations of |kind| have completed. */
static int frd_wait_kind(struct frd_cli *c, enum frd_kind kind, uint64_t n)
{
	uint64_t end = frd_now_ms() + FRD_WAIT_S * 1000;

	while (c->cpl[kind] < n) {
		if (frd_pump(c) < 0)
			return -1;
		if (frd_now_ms() > end) {
			fprintf(stderr, "fi_rdmo_check: client %u: %lu of %lu "
				"completions in %d s\n", c->k,
				(unsigned long)c->cpl[kind], (unsigned long)n,
				FRD_WAIT_S);
			return -1;
		}
	}
	return 0;
}

/* Any data call, again while the provider says -FI_EAGAIN (bounded). */
#define FRD_POST(c, call)						\
	do {								\
		uint64_t frd_end_ = frd_now_ms() + FRD_WAIT_S * 1000;	\
		ssize_t frd_p_;						\
		while ((frd_p_ = (call)) == -FI_EAGAIN) {		\
			if (frd_pump(c) < 0 ||				\
			    frd_now_ms() > frd_end_)			\
				return -1;				\
		}							\
		if (frd_p_) {						\
			fprintf(stderr, "fi_rdmo_check: client %u: "	\
				"%s: %s\n", (c)->k, #call,		\
				fi_strerror((int)-frd_p_));		\
			return -1;					\
		}							\
	} while (0)

/* The server's answer, the provider running meanwhile. */
static int frd_cli_recv(struct frd_cli *c, void *buf, size_t len)
{
	uint64_t end = frd_now_ms() + FRD_WAIT_S * 1000;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	for (;;) {
		if (poll(&pfd, 1, 1) == 1)
			return frd_recv_all(c->fd, buf, len);
		if (frd_pump(c) < 0 || frd_now_ms() > end)
			return -1;
	}
}

static int frd_cli_verdict(struct frd_cli *c, const char *what)
{
	struct frd_verdict v;

	if (frd_cli_recv(c, &v, sizeof(v))) {
		fprintf(stderr, "fi_rdmo_check: client %u: %s: no verdict\n",
			c->k, what);
		return -1;
	}
	if (!v.ok) {
		v.why[sizeof(v.why) - 1] = 0;
		printf("fi_rdmo_check: client %u: %s: FAIL: the server found: "
		       "%s\n", c->k, what, v.why);
		return -1;
	}
	return 0;
}

/* Asks the server to look at our regions as we think they are. */
static int frd_cli_state(struct frd_cli *c, uint32_t what)
{
	struct frd_msg m = {
		.type = FRD_STATE, .what = what, .client = c->k,
		.aux_ptr = c->in.aux_addr + c->aux_bytes,
		.full_ptr = c->in.aux_addr + FRD_AUX_LEN - (c->filled ? 0 : 8),
		.aux_recs = c->aux_recs, .writes = c->writes,
		.scattered = c->scattered,
	};

	if (frd_send_all(c->fd, &m, sizeof(m)))
		return -1;
	return frd_cli_verdict(c, frd_case_names[what]);
}

static int frd_cli_setup(struct frd_cli *c)
{
	const struct frd_opts *o = c->o;
	size_t main_len = (size_t)FRD_MAIN_N_MAX * FRD_MAIN_MAX;
	size_t aux_len = (size_t)FRD_FLUSH_RECS * FRD_AUX_MAX;
	size_t write_len = (size_t)FRD_ROUNDS * FRD_WRITE_LEN;
	size_t scat_len = (size_t)FRD_NSCAT * FI_UET_RDMO_SCATTER_MAX * 1000;
	void *p = NULL;

	if (frd_fab_open(&c->f, o))
		return -1;
	c->buf_len = main_len + aux_len + write_len + scat_len + 4096;
	if (frd_mr(&c->f, &p, c->buf_len, FI_READ | FI_WRITE, &c->mr))
		return -1;
	c->buf = p;
	c->desc = fi_mr_desc(c->mr);
	c->main_src = c->buf;
	c->aux_src = c->main_src + main_len;
	c->write_src = c->aux_src + aux_len;
	c->scat_src = c->write_src + write_len;
	c->junk = c->scat_src + scat_len;
	c->main_ops = calloc(FRD_MAIN_N_MAX, sizeof(*c->main_ops));
	c->main_res = calloc(FRD_MAIN_N_MAX, sizeof(*c->main_res));
	c->junk_ops = calloc(FRD_JUNK_MAX, sizeof(*c->junk_ops));
	return c->main_ops && c->main_res && c->junk_ops ? 0 : -1;
}

/* fi_open_ops: ours by its name, nothing by another, no flags. */
static int frd_cli_open_ops(struct frd_cli *c)
{
	static const char *const others[] = {
		"", "uet rdmo ops v2", "uet rdmo", "efa ops",
	};
	void *other = NULL;
	int r;

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		r = fi_open_ops(&c->f.fab.domain->fid, others[i], 0, &other,
				NULL);
		if (r != -FI_ENOSYS || other) {
			printf("fi_rdmo_check: client %u: fi_open_ops(\"%s\"): "
			       "%d, not -FI_ENOSYS\n", c->k, others[i], r);
			return -1;
		}
	}
	r = fi_open_ops(&c->f.fab.domain->fid, FI_UET_RDMO_OPS, 1, &other,
			NULL);
	if (r != -FI_EBADFLAGS) {
		printf("fi_rdmo_check: client %u: fi_open_ops with flags: %d, "
		       "not -FI_EBADFLAGS\n", c->k, r);
		return -1;
	}
	FRD_CHECK(fi_open_ops(&c->f.fab.domain->fid, FI_UET_RDMO_OPS, 0,
			      (void **)&c->ops, NULL));
	if (!c->ops || c->ops->size < sizeof(*c->ops) || !c->ops->append ||
	    !c->ops->flush || !c->ops->scatter) {
		printf("fi_rdmo_check: client %u: FI_UET_RDMO_OPS incomplete\n",
		       c->k);
		return -1;
	}
	printf("fi_rdmo_check: client %u: fi_open_ops: FI_UET_RDMO_OPS given, "
	       "4 other names -FI_ENOSYS, flags -FI_EBADFLAGS ok\n", c->k);
	return 0;
}

static int frd_cli_connect(struct frd_cli *c)
{
	struct frd_msg m = { .type = FRD_HELLO, .client = c->k };

	if (frd_name(&c->f, m.name, &m.name_len))
		return -1;
	c->fd = ex_tcp_connect(c->o->node, c->o->port);
	if (c->fd < 0) {
		perror("fi_rdmo_check: side channel");
		return -1;
	}
	if (frd_send_all(c->fd, &m, sizeof(m)) ||
	    frd_cli_recv(c, &c->in, sizeof(c->in)))
		return -1;
	if (c->in.name_len > FRD_NAME_MAX ||
	    fi_av_insert(c->f.fab.av, c->in.name, 1, &c->srv, 0, NULL) != 1) {
		fprintf(stderr, "fi_rdmo_check: client %u: fi_av_insert\n",
			c->k);
		return -1;
	}
	if (c->in.mr_mode != (uint32_t)c->f.fab.info->domain_attr->mr_mode ||
	    !c->in.n_main || c->in.n_main > FRD_MAIN_N_MAX) {
		fprintf(stderr, "fi_rdmo_check: client %u: server's mr_mode "
			"%#x, ours %#x (or %u appends)\n", c->k,
			c->in.mr_mode, c->f.fab.info->domain_attr->mr_mode,
			c->in.n_main);
		return -1;
	}
	return 0;
}

/*
 * A flush (our first operation to the server sets up what the transport
 * needs), then the server's word that every client is as far: appends
 * start together.
 */
static int frd_cli_ready(struct frd_cli *c)
{
	struct frd_msg m = { .type = FRD_READY, .client = c->k };

	frd_op_init(&c->flush_ops[FRD_ROUNDS], FRD_K_FLUSH, NULL);
	FRD_POST(c, c->ops->flush(c->f.fab.ep, c->srv,
				  &c->flush_ops[FRD_ROUNDS]));
	if (frd_wait_op(c, &c->flush_ops[FRD_ROUNDS]))
		return -1;
	if (c->flush_ops[FRD_ROUNDS].err) {
		printf("fi_rdmo_check: client %u: first flush: %s "
		       "(prov_errno %#x)\n", c->k,
		       fi_strerror(c->flush_ops[FRD_ROUNDS].err),
		       c->flush_ops[FRD_ROUNDS].prov_errno);
		return -1;
	}
	if (frd_send_all(c->fd, &m, sizeof(m)) ||
	    frd_cli_verdict(c, "start"))
		return -1;
	printf("fi_rdmo_check: client %u: first operation, a flush: "
	       "completed ok\n", c->k);
	return 0;
}

/* -N records to the shared queue, -W in flight, none waited for alone. */
static int frd_cli_appends(struct frd_cli *c)
{
	uint32_t n = c->in.n_main, w = c->o->window, posted = 0, most = 0;
	uint64_t end = frd_now_ms() + FRD_WAIT_S * 1000, t0 = frd_now_ms();
	uint64_t lo = c->in.q_addr, hi = c->in.q_addr + c->in.q_len;

	while (c->cpl[FRD_K_MAIN] < n) {
		while (posted < n && posted - c->cpl[FRD_K_MAIN] < w) {
			uint8_t *src = c->main_src + (size_t)posted *
				       FRD_MAIN_MAX;
			uint32_t len = frd_rec_fill(src, FRD_Q_MAIN, c->k,
						    posted);
			ssize_t r;

			c->main_res[posted] = FRD_SENTINEL;
			frd_op_init(&c->main_ops[posted], FRD_K_MAIN,
				    &c->main_res[posted]);
			r = c->ops->append(c->f.fab.ep, src, len, c->desc,
					   c->srv, c->in.main_ptr_addr,
					   c->in.ptr_key, c->in.q_key,
					   &c->main_res[posted],
					   &c->main_ops[posted]);
			if (r == -FI_EAGAIN)
				break;
			if (r) {
				printf("fi_rdmo_check: client %u: append %u: "
				       "%s\n", c->k, posted,
				       fi_strerror((int)-r));
				return -1;
			}
			posted++;
			if (posted - c->cpl[FRD_K_MAIN] > most)
				most = posted - (uint32_t)c->cpl[FRD_K_MAIN];
		}
		if (frd_pump(c) < 0)
			return -1;
		if (frd_now_ms() > end) {
			printf("fi_rdmo_check: client %u: appends: %lu of %u "
			       "completed in %d s\n", c->k,
			       (unsigned long)c->cpl[FRD_K_MAIN], n,
			       FRD_WAIT_S);
			return -1;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct frd_op *op = &c->main_ops[i];
		uint64_t r = c->main_res[i];

		if (op->err || op->early || r < lo || r >= hi) {
			printf("fi_rdmo_check: client %u: append %u: %s%s, "
			       "result %#lx\n", c->k, i,
			       op->err ? fi_strerror(op->err) : "completed",
			       op->early ? " before its result was written" :
			       "", (unsigned long)r);
			return -1;
		}
	}
	printf("fi_rdmo_check: client %u: %u appends of 8..%u bytes, up to "
	       "%u in flight (-W %u), in %lu ms: every one completed with its "
	       "old pointer already written ok\n", c->k, n, FRD_MAIN_MAX, most,
	       w, (unsigned long)(frd_now_ms() - t0));
	return 0;
}

/* The table of scatter |sc|, addresses in our regions at the server. */
static void frd_cli_rma_iov(const struct frd_cli *c,
			    const struct frd_scatter *sc,
			    struct fi_rma_iov *iov)
{
	for (uint32_t i = 0; i < sc->n; i++) {
		const struct frd_piece *pc = &sc->pc[i];

		iov[i] = (struct fi_rma_iov){
			.addr = (pc->region ? c->in.scat2_addr :
				 c->in.scat_addr) + pc->off,
			.len = pc->len,
			.key = pc->region ? c->in.scat2_key : c->in.scat_key,
		};
	}
}

static int frd_cli_scatters(struct frd_cli *c)
{
	struct frd_scatter plan[FRD_NSCAT];
	struct fi_rma_iov iov[FI_UET_RDMO_SCATTER_MAX];
	uint32_t pieces = 0;
	uint64_t bytes = 0;

	if (frd_scatter_plan(c->k, plan))
		return -1;
	/* 0 and 1 alone; then 2..9 posted together. */
	for (uint32_t s = 0; s < FRD_NSCAT; s++) {
		uint8_t *src = c->scat_src + (size_t)s *
			       FI_UET_RDMO_SCATTER_MAX * 1000;

		frd_fill(src, plan[s].len, frd_scat_seed(c->k, s));
		frd_cli_rma_iov(c, &plan[s], iov);
		frd_op_init(&c->scat_ops[s], FRD_K_SCAT, NULL);
		FRD_POST(c, c->ops->scatter(c->f.fab.ep, src, plan[s].len,
					    c->desc, c->srv, iov, plan[s].n,
					    &c->scat_ops[s]));
		if (s < 2 && frd_wait_op(c, &c->scat_ops[s]))
			return -1;
		pieces += plan[s].n;
		bytes += plan[s].len;
	}
	if (frd_wait_kind(c, FRD_K_SCAT, FRD_NSCAT))
		return -1;
	for (uint32_t s = 0; s < FRD_NSCAT; s++)
		if (c->scat_ops[s].err) {
			printf("fi_rdmo_check: client %u: scatter %u: %s "
			       "(prov_errno %#x)\n", c->k, s,
			       fi_strerror(c->scat_ops[s].err),
			       c->scat_ops[s].prov_errno);
			return -1;
		}
	c->scattered = true;
	if (frd_cli_state(c, 0))
		return -1;
	printf("fi_rdmo_check: client %u: %u scatters (%u pieces, %lu bytes, "
	       "two regions; one of %u pieces over several packets, 8 "
	       "pipelined) landed exactly, nothing else written ok\n", c->k,
	       FRD_NSCAT, pieces, (unsigned long)bytes,
	       FI_UET_RDMO_SCATTER_MAX);
	return 0;
}

/*
 * A batch of appends to our own queue and an fi_write, none waited for,
 * then a flush: once it alone has completed, the server must find all of
 * it in its memory.
 */
static int frd_cli_flush_round(struct frd_cli *c, uint32_t r)
{
	uint8_t *wsrc = c->write_src + (size_t)r * FRD_WRITE_LEN;
	struct frd_msg bump = { .type = FRD_BUMP, .client = c->k };

	for (uint32_t i = 0; i < FRD_BATCH; i++) {
		uint32_t seq = r * FRD_BATCH + i;
		uint8_t *src = c->aux_src + (size_t)seq * FRD_AUX_MAX;
		uint32_t len = frd_rec_fill(src, FRD_Q_AUX, c->k, seq);

		/*
		 * Client 1's round 2: the generation moves mid-batch. Once
		 * in a run: a request refused for it is sent again once,
		 * and must not meet a second move.
		 */
		if (c->k == 1 && r == 1 && i == FRD_BATCH / 2 &&
		    frd_send_all(c->fd, &bump, sizeof(bump)))
			return -1;
		c->aux_res[seq] = FRD_SENTINEL;
		frd_op_init(&c->aux_ops[seq], FRD_K_AUX, &c->aux_res[seq]);
		FRD_POST(c, c->ops->append(c->f.fab.ep, src, len, c->desc,
					   c->srv, c->in.aux_ptr_addr,
					   c->in.ptr_key, c->in.aux_key,
					   &c->aux_res[seq],
					   &c->aux_ops[seq]));
		c->aux_bytes += len;
		c->aux_recs++;
	}
	frd_fill(wsrc, FRD_WRITE_LEN, frd_write_seed(c->k, r));
	frd_op_init(&c->write_ops[r], FRD_K_WRITE, NULL);
	FRD_POST(c, fi_write(c->f.fab.ep, wsrc, FRD_WRITE_LEN, c->desc, c->srv,
			     c->in.scat_addr + FRD_SCAT_AREA +
			     (uint64_t)r * FRD_WRITE_LEN, c->in.scat_key,
			     &c->write_ops[r]));
	c->writes++;
	frd_op_init(&c->flush_ops[r], FRD_K_FLUSH, NULL);
	FRD_POST(c, c->ops->flush(c->f.fab.ep, c->srv, &c->flush_ops[r]));
	if (frd_wait_op(c, &c->flush_ops[r]))
		return -1;
	if (c->flush_ops[r].err) {
		printf("fi_rdmo_check: client %u: flush %u: %s (prov_errno "
		       "%#x)\n", c->k, r + 1, fi_strerror(c->flush_ops[r].err),
		       c->flush_ops[r].prov_errno);
		return -1;
	}
	/* Nothing else waited for: tell the server at once. */
	return frd_cli_state(c, FRD_CASE_FLUSH1 + r);
}

static int frd_cli_flushes(struct frd_cli *c)
{
	for (uint32_t r = 0; r < FRD_ROUNDS; r++) {
		if (frd_cli_flush_round(c, r))
			return -1;
		printf("fi_rdmo_check: client %u: flush round %u: %u appends "
		       "(%lu bytes in all) and a %u-byte fi_write%s, then the "
		       "flush; on its completion alone the server found all in "
		       "its memory ok\n", c->k, r + 1, FRD_BATCH,
		       (unsigned long)c->aux_bytes, FRD_WRITE_LEN,
		       c->k == 1 && r == 1 ? ", a region of the server's "
		       "closed meanwhile" : "");
	}
	if (frd_wait_kind(c, FRD_K_AUX, FRD_FLUSH_RECS) ||
	    frd_wait_kind(c, FRD_K_WRITE, FRD_ROUNDS))
		return -1;
	for (uint32_t i = 0; i < FRD_FLUSH_RECS; i++)
		if (c->aux_ops[i].err || c->aux_ops[i].early) {
			printf("fi_rdmo_check: client %u: own queue append %u: "
			       "%s\n", c->k, i, c->aux_ops[i].err ?
			       fi_strerror(c->aux_ops[i].err) :
			       "completed before its result was written");
			return -1;
		}
	for (uint32_t r = 0; r < FRD_ROUNDS; r++)
		if (c->write_ops[r].err) {
			printf("fi_rdmo_check: client %u: write %u: %s\n", c->k,
			       r + 1, fi_strerror(c->write_ops[r].err));
			return -1;
		}
	return 0;
}

/* The refusal |op| must have ended in: |err|, the UET code |rc|. */
static int frd_cli_refused(struct frd_cli *c, const char *what, int err,
			   uint8_t rc)
{
	if (frd_wait_op(c, &c->err_op))
		return -1;
	if (c->err_op.err != err || c->err_op.prov_errno != rc) {
		printf("fi_rdmo_check: client %u: %s: %s (prov_errno %#x), "
		       "not %s (%#x)\n", c->k, what,
		       c->err_op.err ? fi_strerror(c->err_op.err) : "success",
		       c->err_op.prov_errno, fi_strerror(err), rc);
		return -1;
	}
	if (c->err_res != FRD_SENTINEL) {
		printf("fi_rdmo_check: client %u: %s: a result written "
		       "(%#lx)\n", c->k, what, (unsigned long)c->err_res);
		return -1;
	}
	return 0;
}

static int frd_cli_err_append(struct frd_cli *c, uint32_t what,
			      uint64_t ptr_addr, uint64_t ptr_key,
			      uint64_t data_key, size_t len, int err,
			      uint8_t rc)
{
	const char *name = frd_case_names[what];

	memset(c->junk, 0xEE, 64);
	c->err_res = FRD_SENTINEL;
	frd_op_init(&c->err_op, FRD_K_ERR, NULL);
	FRD_POST(c, c->ops->append(c->f.fab.ep, c->junk, len, c->desc, c->srv,
				   ptr_addr, ptr_key, data_key, &c->err_res,
				   &c->err_op));
	if (frd_cli_refused(c, name, err, rc) || frd_cli_state(c, what))
		return -1;
	printf("fi_rdmo_check: client %u: %s: %s, prov_errno %#x, no result; "
	       "no pointer moved, no byte written ok\n", c->k, name,
	       fi_strerror(err), rc);
	return 0;
}

static int frd_cli_err_scatter(struct frd_cli *c, uint32_t what,
			       const struct fi_rma_iov *iov, size_t n,
			       int err, uint8_t rc)
{
	const char *name = frd_case_names[what];
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += iov[i].len;
	/* The scatters' sources: theirs completed. */
	memset(c->scat_src, 0xEE, len);
	c->err_res = FRD_SENTINEL;
	frd_op_init(&c->err_op, FRD_K_ERR, NULL);
	FRD_POST(c, c->ops->scatter(c->f.fab.ep, c->scat_src, len, c->desc,
				    c->srv, iov, n, &c->err_op));
	if (frd_cli_refused(c, name, err, rc) || frd_cli_state(c, what))
		return -1;
	printf("fi_rdmo_check: client %u: %s (%zu pieces, %zu bytes): %s, "
	       "prov_errno %#x; none of its pieces written ok\n", c->k, name,
	       n, len, fi_strerror(err), rc);
	return 0;
}

/*
 * FRD_BATCH appends to the full queue and a flush, posted together: each
 * append refused RC_BAD_ADDR, and the refusals hold no flush back.
 */
static int frd_cli_full_flush(struct frd_cli *c)
{
	const char *name = frd_case_names[13];
	struct frd_op *fl = &c->flush_ops[FRD_ROUNDS];
	uint64_t t0 = frd_now_ms(), ms;

	memset(c->junk, 0xEE, 64);
	for (uint32_t i = 0; i < FRD_BATCH; i++) {
		frd_op_init(&c->full_ops[i], FRD_K_ERR, NULL);
		FRD_POST(c, c->ops->append(c->f.fab.ep, c->junk, 16, c->desc,
					   c->srv, c->in.full_ptr_addr,
					   c->in.ptr_key, c->in.aux_key, NULL,
					   &c->full_ops[i]));
	}
	frd_op_init(fl, FRD_K_FLUSH, NULL);
	FRD_POST(c, c->ops->flush(c->f.fab.ep, c->srv, fl));
	if (frd_wait_op(c, fl))
		return -1;
	ms = frd_now_ms() - t0;
	if (fl->err) {
		printf("fi_rdmo_check: client %u: %s: the flush: %s "
		       "(prov_errno %#x) after %lu ms\n", c->k, name,
		       fi_strerror(fl->err), fl->prov_errno,
		       (unsigned long)ms);
		return -1;
	}
	for (uint32_t i = 0; i < FRD_BATCH; i++) {
		const struct frd_op *op = &c->full_ops[i];

		if (frd_wait_op(c, op))
			return -1;
		if (op->err != FI_EACCES ||
		    op->prov_errno != UET_SES_RC_BAD_ADDR) {
			printf("fi_rdmo_check: client %u: %s: append %u: %s "
			       "(prov_errno %#x)\n", c->k, name, i + 1,
			       op->err ? fi_strerror(op->err) : "success",
			       op->prov_errno);
			return -1;
		}
	}
	if (frd_cli_state(c, 13))
		return -1;
	printf("fi_rdmo_check: client %u: %s: %u refused RC_BAD_ADDR, nothing "
	       "moved or written; the flush completed in %lu ms ok\n", c->k,
	       name, FRD_BATCH, (unsigned long)ms);
	return 0;
}

/*
 * The pieces of a refused scatter: FRD_ERR_PIECES of FRD_ERR_PIECE_LEN
 * bytes, several packets, in the spare ends of both scatter regions.
 */
#define FRD_ERR_PIECES		24
#define FRD_ERR_PIECE_LEN	500
_Static_assert(FRD_ERR_PIECES / 2 * (FRD_ERR_PIECE_LEN + 100) <=
	       FRD_SCAT_SPARE, "refused pieces beyond the spare ends");

static void frd_err_pieces(const struct frd_cli *c, struct fi_rma_iov *iov)
{
	for (uint32_t i = 0; i < FRD_ERR_PIECES; i++) {
		bool two = i % 2;
		uint64_t end = two ? c->in.scat2_addr + FRD_SCAT2_LEN :
			       c->in.scat_addr + FRD_SCAT_AREA;

		iov[i] = (struct fi_rma_iov){
			.addr = end - FRD_SCAT_SPARE +
				(uint64_t)(i / 2) * (FRD_ERR_PIECE_LEN + 100),
			.len = FRD_ERR_PIECE_LEN,
			.key = two ? c->in.scat2_key : c->in.scat_key,
		};
	}
}

static int frd_cli_errors(struct frd_cli *c)
{
	const struct frd_info *in = &c->in;
	uint64_t end = in->aux_addr + FRD_AUX_LEN;
	uint8_t *rec = c->junk + 2048;
	struct fi_rma_iov bad_key[FRD_ERR_PIECES], past_end[FRD_ERR_PIECES];

	/* One piece with a region's key closed since; one past its region. */
	frd_err_pieces(c, bad_key);
	bad_key[FRD_ERR_PIECES / 2 + 1].key = in->stale_key;
	frd_err_pieces(c, past_end);
	past_end[FRD_ERR_PIECES - 1].addr = in->scat2_addr + FRD_SCAT2_LEN - 32;

	if (frd_cli_err_append(c, 5, in->aux_ptr_addr, in->ptr_key,
			       in->stale_key, 16, FI_EKEYREJECTED,
			       UET_SES_RC_BAD_MKEY) ||
	    frd_cli_err_append(c, 6, in->aux_ptr_addr, in->stale_key,
			       in->aux_key, 16, FI_EKEYREJECTED,
			       UET_SES_RC_BAD_MKEY) ||
	    frd_cli_err_append(c, 7, in->full_ptr_addr, in->ptr_key,
			       in->aux_key, 16, FI_EACCES,
			       UET_SES_RC_BAD_ADDR))
		return -1;
	/* 8 bytes fit exactly. */
	frd_rec_fill(rec, FRD_Q_AUX, c->k, FRD_FULL_SEQ);
	c->full_res = FRD_SENTINEL;
	frd_op_init(&c->err_op, FRD_K_ERR, &c->full_res);
	FRD_POST(c, c->ops->append(c->f.fab.ep, rec, 8, c->desc, c->srv,
				   in->full_ptr_addr, in->ptr_key, in->aux_key,
				   &c->full_res, &c->err_op));
	if (frd_wait_op(c, &c->err_op))
		return -1;
	if (c->err_op.err || c->err_op.early || c->full_res != end - 8) {
		printf("fi_rdmo_check: client %u: %s: %s, result %#lx, not "
		       "%#lx\n", c->k, frd_case_names[8], c->err_op.err ?
		       fi_strerror(c->err_op.err) : "completed",
		       (unsigned long)c->full_res, (unsigned long)(end - 8));
		return -1;
	}
	c->filled = true;
	if (frd_cli_state(c, 8))
		return -1;
	printf("fi_rdmo_check: client %u: %s: old pointer = end - 8, pointer "
	       "= end ok\n", c->k, frd_case_names[8]);
	if (frd_cli_err_append(c, 9, in->full_ptr_addr, in->ptr_key,
			       in->aux_key, 1, FI_EACCES,
			       UET_SES_RC_BAD_ADDR) ||
	    frd_cli_err_scatter(c, 10, bad_key, FRD_ERR_PIECES,
				FI_EKEYREJECTED, UET_SES_RC_BAD_MKEY) ||
	    frd_cli_err_scatter(c, 11, past_end, FRD_ERR_PIECES, FI_EACCES,
				UET_SES_RC_BAD_ADDR))
		return -1;
	return frd_cli_full_flush(c);
}

/*
 * -x: fi_writemsg with FI_INJECT_COMPLETE to an address nobody answers
 * until -FI_EAGAIN (the provider holds what waits for an address, up to
 * a bound), which gives the operation it had taken back to its free
 * list; then appends one at a time until that operation has surely
 * served one of them: each must complete with its result written.
 */
static int frd_cli_reuse(struct frd_cli *c)
{
	struct iovec iov = { .iov_base = c->junk, .iov_len = FRD_JUNK_LEN };
	struct fi_rma_iov rma = { .addr = c->in.scat_addr, .len = FRD_JUNK_LEN,
				  .key = c->in.scat_key };
	struct fi_msg_rma msg = { .msg_iov = &iov, .desc = &c->desc,
				  .iov_count = 1, .rma_iov = &rma,
				  .rma_iov_count = 1 };
	uint8_t *rec = c->junk + 2048;
	fi_addr_t absent;
	uint32_t held = 0, n;
	ssize_t r = 0;

	if (fi_av_insertsvc(c->f.fab.av, c->o->absent, c->o->service, &absent,
			    0, NULL) != 1) {
		printf("fi_rdmo_check: client %u: fi_av_insertsvc %s failed\n",
		       c->k, c->o->absent);
		return -1;
	}
	msg.addr = absent;
	memset(c->junk, 0x5A, FRD_JUNK_LEN);
	for (held = 0; held < FRD_JUNK_MAX; held++) {
		frd_op_init(&c->junk_ops[held], FRD_K_JUNK, NULL);
		msg.context = &c->junk_ops[held];
		r = fi_writemsg(c->f.fab.ep, &msg, FI_INJECT_COMPLETE |
				FI_COMPLETION);
		if (r)
			break;
	}
	if (r != -FI_EAGAIN) {
		printf("fi_rdmo_check: client %u: %u writes to %s, then %s, "
		       "not -FI_EAGAIN\n", c->k, held, c->o->absent,
		       r ? fi_strerror((int)-r) : "none refused");
		return -1;
	}
	/* Past every free operation: the one given back among them. */
	n = c->f.fab.info->tx_attr->size + FRD_BATCH;
	if (n > FRD_REUSE_MAX)
		n = FRD_REUSE_MAX;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t seq = FRD_SHORT_SEQ0 + i;
		uint64_t want = c->in.aux_addr + c->aux_bytes;

		frd_rec_fill(rec, FRD_Q_AUX, c->k, seq);
		c->reuse_res[i] = FRD_SENTINEL;
		frd_op_init(&c->reuse_op, FRD_K_REUSE, &c->reuse_res[i]);
		FRD_POST(c, c->ops->append(c->f.fab.ep, rec, 8, c->desc, c->srv,
					   c->in.aux_ptr_addr, c->in.ptr_key,
					   c->in.aux_key, &c->reuse_res[i],
					   &c->reuse_op));
		if (frd_wait_op(c, &c->reuse_op))
			return -1;
		c->aux_bytes += 8;
		c->aux_recs++;
		c->reuse_n++;
		if (c->reuse_op.err || c->reuse_op.early ||
		    c->reuse_res[i] != want) {
			printf("fi_rdmo_check: client %u: append %u after %u "
			       "inject-complete writes and a -FI_EAGAIN: %s, "
			       "result %#lx, not %#lx\n", c->k, i + 1, held,
			       c->reuse_op.err ?
			       fi_strerror(c->reuse_op.err) :
			       c->reuse_op.early ? "completed before its "
			       "result was written" : "completed",
			       (unsigned long)c->reuse_res[i],
			       (unsigned long)want);
			return -1;
		}
	}
	if (frd_cli_state(c, 12))
		return -1;
	printf("fi_rdmo_check: client %u: %u inject-complete writes to an "
	       "absent address, then -FI_EAGAIN; %u appends one at a time "
	       "after it: each completed with its result written ok\n",
	       c->k, held, n);
	return 0;
}

static int frd_cli_results(struct frd_cli *c)
{
	uint32_t n = c->in.n_main, na = 0;
	struct frd_msg m = { .type = FRD_RESULTS, .client = c->k,
			     .n_main = n, .aux_recs = c->aux_recs,
			     .writes = c->writes, .scattered = c->scattered };
	uint64_t *pairs = malloc(2 * (FRD_AUX_IDX + 1) * sizeof(*pairs));
	int ret;

	if (!pairs)
		return -1;
	for (uint32_t i = 0; i < FRD_FLUSH_RECS; i++) {
		pairs[2 * na] = i;
		pairs[2 * na++ + 1] = c->aux_res[i];
	}
	for (uint32_t i = 0; i < c->reuse_n; i++) {
		pairs[2 * na] = FRD_SHORT_SEQ0 + i;
		pairs[2 * na++ + 1] = c->reuse_res[i];
	}
	pairs[2 * na] = FRD_FULL_SEQ;
	pairs[2 * na++ + 1] = c->full_res;
	m.n_aux = na;
	ret = frd_send_all(c->fd, &m, sizeof(m)) ||
	      frd_send_all(c->fd, c->main_res, n * sizeof(uint64_t)) ||
	      frd_send_all(c->fd, pairs, na * 2 * sizeof(uint64_t)) ?
	      -1 : frd_cli_verdict(c, "the queues at the end");
	free(pairs);
	return ret;
}

/* The write counter counts what the CQ said: successes, errors. */
static int frd_cli_counter(struct frd_cli *c)
{
	uint64_t ok = fi_cntr_read(c->f.fab.cntr[0]);
	uint64_t err = fi_cntr_readerr(c->f.fab.cntr[0]);

	if (ok != c->cpl_ok || err != c->cpl_err) {
		printf("fi_rdmo_check: client %u: the write counter says %lu "
		       "and %lu errors, the CQ %lu and %lu\n", c->k,
		       (unsigned long)ok, (unsigned long)err,
		       (unsigned long)c->cpl_ok, (unsigned long)c->cpl_err);
		return -1;
	}
	printf("fi_rdmo_check: client %u: %lu completions, %lu of them "
	       "errors, each flagged FI_RMA | FI_WRITE and counted by the "
	       "write counter ok\n", c->k,
	       (unsigned long)(c->cpl_ok + c->cpl_err),
	       (unsigned long)c->cpl_err);
	return 0;
}

static int frd_client(const struct frd_opts *o)
{
	struct frd_cli c = { .o = o, .fd = -1, .k = o->id };
	int ret = -1;

	if (frd_cli_setup(&c) || frd_cli_open_ops(&c) || frd_cli_connect(&c))
		goto out;
	printf("fi_rdmo_check: client %u: provider %s, mr_mode %#x, %u "
	       "appends to the queue of %u clients\n", c.k,
	       c.f.fab.info->fabric_attr->prov_name,
	       c.f.fab.info->domain_attr->mr_mode,
	       c.in.n_main, c.in.clients);
	if (frd_cli_ready(&c) || frd_cli_appends(&c) || frd_cli_scatters(&c) ||
	    frd_cli_flushes(&c) || frd_cli_errors(&c) ||
	    (o->absent && frd_cli_reuse(&c)) || frd_cli_results(&c))
		goto out;
	/* Nothing completed twice, nothing unasked for. */
	if (frd_pump(&c) < 0 || c.stray || c.twice || c.bad_flags) {
		printf("fi_rdmo_check: client %u: %lu completions without a "
		       "context, %lu twice, %lu not FI_RMA | FI_WRITE\n", c.k,
		       (unsigned long)c.stray, (unsigned long)c.twice,
		       (unsigned long)c.bad_flags);
		goto out;
	}
	if (frd_cli_counter(&c))
		goto out;
	printf("fi_rdmo_check: client %u: all ok\n", c.k);
	ret = 0;
out:
	if (c.fd >= 0)
		close(c.fd);
	if (c.mr)
		fi_close(&c.mr->fid);
	ex_fab_close(&c.f.fab);
	free(c.buf);
	free(c.main_ops);
	free(c.main_res);
	free(c.junk_ops);
	return ret ? 1 : 0;
}

/* ---- main ---------------------------------------------------------------- */
static const char *frd_usage =
	"usage: fi_rdmo_check -s [-a ADDR] [-n CLIENTS] [-N APPENDS] "
	"[-m va|off] [-p PORT] [-S SVC] [-T SEC]\n"
	"       fi_rdmo_check -c SERVER -k ID [-W WINDOW] [-x ABSENT] "
	"[-m va|off] [-p PORT] [-S SVC] [-T SEC]\n";


static int frd_parse(int argc, char **argv, struct frd_opts *o)
{
	int c;

	*o = (struct frd_opts){ .service = "42", .port = 47935, .clients = 2,
				.n_main = 2000, .window = 64, .va = true,
				.limit_s = 120 };
	while ((c = getopt(argc, argv, "sc:a:n:N:k:W:x:m:p:S:T:h")) != -1) {
		switch (c) {
		case 's': o->server = true; break;
		case 'c': o->node = optarg; break;
		case 'a': o->node = optarg; break;
		case 'n': o->clients = (uint32_t)atoi(optarg); break;
		case 'N': o->n_main = (uint32_t)atoi(optarg); break;
		case 'k': o->id = (uint32_t)atoi(optarg); break;
		case 'W': o->window = (uint32_t)atoi(optarg); break;
		case 'x': o->absent = optarg; break;
		case 'm': o->va = !strcmp(optarg, "va"); break;
		case 'p': o->port = atoi(optarg); break;
		case 'S': o->service = optarg; break;
		case 'T': o->limit_s = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "%s", frd_usage);
			return -1;
		}
	}
	if ((!o->server && (!o->node || !o->id ||
			    o->id > FRD_CLIENTS_MAX)) ||
	    !o->clients || o->clients > FRD_CLIENTS_MAX || !o->n_main ||
	    o->n_main > FRD_MAIN_N_MAX || !o->window || !o->limit_s) {
		fprintf(stderr, "%s", frd_usage);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct frd_opts o;

	if (frd_parse(argc, argv, &o))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ex_time_limit("fi_rdmo_check", o.limit_s);
	return o.server ? frd_server(&o) : frd_client(&o);
}
