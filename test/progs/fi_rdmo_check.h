/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rdmo_check's shared declarations: the records and scatters both sides
 * compute the same, the side channel's messages, the libfabric set-up, and
 * the server's state (the client's is in fi_rdmo_check_cli.h).
 * fi_rdmo_check.c says what it checks and holds what both sides share;
 * _srv.c is the server, _verify.c its checks of its memory, _cli.c the
 * client, _cli_err.c its refused operations and -x.
 */
#ifndef FI_RDMO_CHECK_H
#define FI_RDMO_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_ext_uet.h>
#include <rdma/fi_rma.h>

#include "examples/ex_common.h"

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

/* ---- what both sides compute the same (fi_rdmo_check.c) ---------------- */
/* |len| bytes that follow from |seed|. */
void frd_fill(uint8_t *p, size_t len, uint64_t seed);
/* The length of record |seq| of |client| in queue |q|. */
uint32_t frd_rec_len(enum frd_queue q, uint32_t client, uint32_t seq);
/* Record |seq|: its header, then its bytes; its length returned. */
uint32_t frd_rec_fill(uint8_t *p, enum frd_queue q, uint32_t client,
		      uint32_t seq);
/* The data of flush round |r|'s fi_write. */
uint64_t frd_write_seed(uint32_t client, uint32_t r);

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

uint64_t frd_scat_seed(uint32_t client, uint32_t s);
/* The scatters of |client| (FRD_NSCAT in |plan|); 0, or -1: they do not
 * fit. */
int frd_scatter_plan(uint32_t client, struct frd_scatter *plan);
/* What the two scatter regions hold once every scatter is in. */
int frd_scatter_image(uint32_t client, uint8_t *img0, uint8_t *img1);

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
#define FRD_CASE_COUNT		14
extern const char *const frd_case_names[FRD_CASE_COUNT];
#define FRD_CASE_FLUSH1		1

/* The whole of |len| bytes, or -1. */
int frd_send_all(int fd, const void *buf, size_t len);
int frd_recv_all(int fd, void *buf, size_t len);
uint64_t frd_now_ms(void);

/* ---- libfabric set-up (fi_rdmo_check.c) ---------------------------------- */
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

int frd_fab_open(struct frd_fab *f, const struct frd_opts *o);
/*
 * Registers |len| bytes at |buf| (a page-aligned zeroed one if NULL),
 * with a counter of the remote writes to it when |cntr| is not NULL.
 */
int frd_mr_cntr(struct frd_fab *f, void **buf, size_t len, uint64_t access,
		struct fid_mr **mr, struct fid_cntr **cntr);
int frd_mr(struct frd_fab *f, void **buf, size_t len, uint64_t access,
	   struct fid_mr **mr);
void frd_close_cntr(struct fid_cntr *c);
/* How peers address |p| in its region: the address, or an offset. */
uint64_t frd_raddr(const struct frd_fab *f, const void *base, size_t off);
int frd_name(struct frd_fab *f, uint8_t *name, uint32_t *len);

/* ---- server (fi_rdmo_check_srv.c, _verify.c) ----------------------------- */
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

static inline uint64_t *frd_word(struct frd_srv *s, uint32_t w)
{
	return &s->ptr[w];
}

/* Atomically, as the target engine moves it (its compare-and-swap). */
static inline uint64_t frd_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

#define FRD_WHY(v, ...)	snprintf((v)->why, sizeof((v)->why), __VA_ARGS__)
#define FRD_AUX_IDX	(FRD_FLUSH_RECS + FRD_REUSE_MAX)

int frd_server(const struct frd_opts *o);
/*
 * Client |k|'s own regions against what |m| says they hold (|pos| filled:
 * where each of its records is); 0, or -1 with why in |v|.
 */
int frd_srv_client_state(struct frd_srv *s, uint32_t k,
			 const struct frd_msg *m, uint64_t *pos,
			 struct frd_verdict *v);
/* Client |k|'s own queue against the results it got. */
int frd_srv_aux_results(struct frd_srv *s, uint32_t k,
			const struct frd_msg *m, const uint64_t *pairs,
			struct frd_verdict *v);
/* The remote write counters, once every client is done. */
int frd_srv_counters(struct frd_srv *s, struct frd_verdict *v);
/* The shared queue, once every client has sent its results. */
int frd_srv_main_check(struct frd_srv *s, struct frd_verdict *v);

/* ---- client (fi_rdmo_check_cli.h) ---------------------------------------- */
int frd_client(const struct frd_opts *o);

#endif /* FI_RDMO_CHECK_H */
