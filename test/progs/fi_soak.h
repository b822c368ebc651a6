/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_soak's shared declarations: its options, messages, operations and
 * state, and what fi_soak.c (helpers, set-up, side channel, operations,
 * main), fi_soak_cli.c (the client) and fi_soak_srv.c (the server) call of
 * each other.
 */
#ifndef FI_SOAK_H
#define FI_SOAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

#define SK_MIB		(1024 * 1024ull)
#define SK_REGION	(64 * SK_MIB)	/* RMA target; and the recv area */
#define SK_WMAX		64
#define SK_OP_WAIT_MS	30000		/* one operation, worst case */
#define SK_CANCEL_MS	5000
#define SK_NAME_MAX	128
#define SK_RETRY_MAX	4096		/* -E: reposts of failed ops, in all */
#define SK_EXTRA_WAIT_MS 300		/* a leftover message, at the end */
#define SK_EXTRA_MAX	64

enum { SK_RMA = 1, SK_TAG = 2 };
enum { SK_CMD_CHECK = 1, SK_CMD_TAG, SK_CMD_DONE };

struct sk_opts {
	bool server, keep_going, no_read_back, reads, retry;
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

/* extra: messages that arrived beyond one per tag (duplicates, or an -E
 * client's resends of sends that failed after they landed). */
struct sk_reply {
	uint64_t ok, done, bad, extra;
};

enum sk_kind { SK_WRITE, SK_READ, SK_TSEND };

struct sk_op {
	struct fi_context2 ctx;	/* first: the CQ gives it back */
	uint64_t t_post, k, len;
	bool busy;
	int slot;
	enum sk_kind kind;	/* the client's: what to post again (-E) */
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
	uint64_t lat_max_ns, nerr, nretry;
	struct fi_cq_err_entry err;	/* the last error completion */
	struct sk_op *err_op;	/* its operation (sk_wait_one) */
	uint64_t last_tag;	/* the server's: of the last receive */
	char first_err[160];	/* -E: the first error completion, said */
};

#define SK_CALL(call)	do { int r_ = (int)(call); if (r_) { \
			fprintf(stderr, "fi_soak: %s: %s\n", #call, \
				fi_strerror(-r_)); return -1; } } while (0)

/* ---- fi_soak.c ----------------------------------------------------------- */
uint64_t sk_now_ns(void);
unsigned long long sk_wall_ms(void);
/* xorshift64*: bytes that differ for every seed and offset. */
void sk_pattern(uint8_t *buf, size_t len, uint64_t seed);
bool sk_pattern_ok(const uint8_t *buf, size_t len, uint64_t seed);
/* Tagged message k of a run: its length (some small or empty). */
uint64_t sk_msg_len(uint64_t k, uint64_t size);
int sk_open(struct sk *s);
void sk_close(struct sk *s);
/* The side channel: whole messages; receiving runs the provider. */
int sk_send(struct sk *s, const void *buf, size_t len);
int sk_recv(struct sk *s, void *buf, size_t len);
/* 1 when |fd| has something to read (or its peer closed it). */
int sk_readable(int fd);
int sk_hello_make(struct sk *s, struct sk_hello *h, uint32_t session);
int sk_av_insert(struct sk *s, const struct sk_hello *h);
/* One completion: 1 (*op, *err says which kind), 0 none yet, -1. */
int sk_cq_poll(struct sk *s, struct sk_op **done, bool *err);
void sk_err_print(struct sk *s, const char *what);
int sk_wait_one(struct sk *s);
struct sk_op *sk_op_free(struct sk *s);
/* Posts op k (local and remote slot |slot|, |len| bytes), retrying while
 * the provider says FI_EAGAIN; 0 or -1. */
int sk_post(struct sk *s, enum sk_kind kind, uint64_t k, int slot,
	    uint64_t len);

/* ---- fi_soak_cli.c, fi_soak_srv.c ---------------------------------------- */
int sk_client(struct sk *s);
int sk_server(struct sk *s);

#endif /* FI_SOAK_H */
