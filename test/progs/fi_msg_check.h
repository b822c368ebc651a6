/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg_check: FI_MSG and FI_TAGGED end to end between two processes, in
 * plain libfabric (any provider). fi_msg_check_setup.c sets up one RDM
 * endpoint per side and a TCP side channel; fi_msg_check_util.c has the
 * helpers; the cases (fi_msg_check_cases.c, _recv.c) run in lockstep on
 * both sides (fi_msg_check.c). fi_msg_bench.c shares the set-up.
 */
#ifndef FI_MSG_CHECK_H
#define FI_MSG_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "examples/ex_common.h"

#define T_BUF_LEN	(16u << 20)	/* largest message */
#define T_TAG		0xA5A5000000000000ull	/* high bits in every tag */
#define T_NCTX		64
#define T_NOCHECK	(~0ull)		/* seed: bytes checked elsewhere */

enum { T_SCNTR, T_RCNTR };

struct t {
	bool server;
	const char *prov;	/* the provider's name */
	bool sas;		/* FI_ORDER_SAS granted */
	bool source;		/* FI_SOURCE granted */
	bool directed;		/* FI_DIRECTED_RECV granted */
	bool multi;		/* FI_MULTI_RECV granted */
	/* Set before t_open: FI_MULTI_RECV not asked for (fi_msg_bench -M;
	 * libfabric 1.17's shm faults in fi_setopt(FI_OPT_MIN_MULTI_RECV)). */
	bool no_multi;
	bool local;		/* -L: the peer is reached by a local channel */
	/* fab.cq: transmit (FI_SELECTIVE_COMPLETION), fab.rx_cq: receive;
	 * fab.cntr[T_SCNTR], [T_RCNTR]: sends and receives. */
	struct ex_fab fab;
	fi_addr_t peer;
	char peer_ip[64];
	struct ex_ctx oob;	/* only its side channel */
	uint8_t *sbuf, *rbuf;
	/* Sends waiting for their completion; tx errors seen. */
	uint64_t tx_posted, tx_done, tx_errs;
	/* What the counters must read at the end. */
	uint64_t sends_ok, recvs_ok, recv_errs;
	struct fi_cq_err_entry err;	/* the last receive error */
};

/*
 * t_open() sets up |t| (t->server says which side), connects the side
 * channel on |port| (the client to |node|) and swaps names: 0 or -1.
 */
int t_open(struct t *t, const char *node, const char *service, bool sas,
	   int port);
void t_close(struct t *t);

/* Prints "fi_msg_check: FAIL ..." and returns -1 from the caller. */
#define T_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("fi_msg_check: FAIL %s:%d: ", __func__,	\
			       __LINE__);				\
			printf(__VA_ARGS__);				\
			printf("\n");					\
			fflush(stdout);					\
			return -1;					\
		}							\
	} while (0)

/* Any data call, retried while the provider says -FI_EAGAIN. */
#define T_RETRY(t, call)						\
	do {								\
		ssize_t t_r_;						\
		while ((t_r_ = (call)) == -FI_EAGAIN)			\
			t_progress(t);					\
		T_CHECK(!t_r_, "%s: %s", #call,				\
			fi_strerror((int)-t_r_));			\
	} while (0)

/* Operation contexts (struct fi_context2, for FI_CLAIM) and their index. */
extern struct fi_context2 t_ctx[T_NCTX];
int t_ctx_idx(const void *ctx);

uint64_t t_now_ms(void);
/* Fills |len| bytes with a pattern of |seed|; checks it (0 or -1). */
void t_fill(void *buf, size_t len, uint64_t seed);
int t_verify(const void *buf, size_t len, uint64_t seed);

/* Runs the provider once and collects send completions. */
void t_progress(struct t *t);
/* Spins with progress for |ms| milliseconds. */
void t_idle(struct t *t, int ms);
/* A send of any kind: retried on -FI_EAGAIN; counted unless |silent|. */
int t_tsend(struct t *t, const void *buf, size_t len, uint64_t tag,
	    void *ctx);
int t_tsend_msg(struct t *t, const struct fi_msg_tagged *m, uint64_t flags,
		bool silent);
int t_send(struct t *t, const void *buf, size_t len, void *ctx);
/* Waits for every counted send to complete; fails on a send error. */
int t_tx_drain(struct t *t);
/*
 * Waits (up to 20 s) for one receive completion: 0 with |e| and |src|, or
 * -FI_E* with the error in t->err; -FI_ETIMEDOUT when none came.
 */
int t_rx_wait(struct t *t, struct fi_cq_tagged_entry *e, fi_addr_t *src);
/* 1 when no receive completion is queued (after some progress). */
int t_rx_none(struct t *t);
/* Receives, retried on -FI_EAGAIN; 0 or -1. */
int t_trecv(struct t *t, void *buf, size_t len, fi_addr_t src, uint64_t tag,
	    void *ctx);
int t_recv(struct t *t, void *buf, size_t len, void *ctx);
/*
 * Checks a receive completion: |len| bytes of pattern |seed| (T_NOCHECK:
 * not the bytes), tag |tag| (0: untagged), from the peer; counts it.
 */
int t_check_msg(struct t *t, const struct fi_cq_tagged_entry *e,
		fi_addr_t src, size_t len, uint64_t tag, uint64_t seed);
/* Waits for the receive |ctx| and checks it as t_check_msg. */
int t_expect(struct t *t, void *ctx, size_t len, uint64_t tag,
	     uint64_t seed);
/* Waits for an error completion of |ctx| with |err|. */
int t_expect_err(struct t *t, void *ctx, int err);
/* Both sides reach this point; progress runs while waiting. */
int t_sync(struct t *t);
/* Receives |len| bytes of the side channel, running the provider
 * meanwhile (60 s at most): 0 or -1. */
int t_oob_recv(struct t *t, void *buf, size_t len);

/* The cases; each returns 0, 1 (skipped, reason printed) or -1. */
int t_case_pingpong(struct t *t);
int t_case_iov(struct t *t);
int t_case_inject_data(struct t *t);
int t_case_unexpected(struct t *t);
int t_case_flood(struct t *t);
int t_case_flood_inject(struct t *t);
int t_case_order(struct t *t);
int t_case_peek(struct t *t);
int t_case_truncate(struct t *t);
int t_case_multi_recv(struct t *t);
int t_case_directed(struct t *t);
int t_case_cancel(struct t *t);
int t_case_selective(struct t *t);
int t_case_levels(struct t *t);

#endif /* FI_MSG_CHECK_H */
