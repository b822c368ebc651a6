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

struct fi_uet_rdmo_ops;

#define SK_MIB		(1024 * 1024ull)
#define SK_REGION	(64 * SK_MIB)	/* RMA target; and the recv area */
#define SK_WMAX		64
#define SK_OP_WAIT_MS	30000		/* one operation, worst case */
#define SK_CANCEL_MS	5000
#define SK_NAME_MAX	128
#define SK_RETRY_MAX	4096		/* -E: reposts of failed ops, in all */
#define SK_EXTRA_WAIT_MS 300		/* a leftover message, at the end */
#define SK_EXTRA_MAX	64

enum { SK_RMA = 1, SK_TAG = 2, SK_MIX = 3 };
/* WORD: the server's uint64 at region offset |first| (reply's done);
 * QRESET: its append queue emptied (pointer to its start, data zeroed);
 * QCHECK: the queue holds |count| records, values seed..seed+count-1,
 * each once (fi_soak_mix.c). */
enum { SK_CMD_CHECK = 1, SK_CMD_TAG, SK_CMD_DONE, SK_CMD_WORD,
       SK_CMD_QRESET, SK_CMD_QCHECK };

/*
 * -m mix keeps the top SK_MIB of the server's region out of its RMA
 * rounds for the atomics and the appends: the counter that fetch-and-adds
 * hit, the append queue's pointer, then its data (8-byte records).
 */
#define SK_MIX_OFF	(SK_REGION - SK_MIB)
#define SK_MIX_COUNTER	SK_MIX_OFF
#define SK_MIX_QPTR	(SK_MIX_OFF + 8)
#define SK_MIX_QDATA	(SK_MIX_OFF + 4096)
#define SK_MIX_QMAX	((SK_MIB - 4096) / 8)	/* records a round */

struct sk_opts {
	bool server, keep_going, no_read_back, reads, retry;
	const char *addr, *service;
	const char *ctrl_addr;	/* -X: the side channel's, else addr */
	int port, mode, window;
	unsigned int clients, grace_ms, limit_s;
	unsigned int duration_s;	/* -D: mix rounds until then */
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

/* FADD: fetch-and-add of 1 to the mix counter; APPEND: an 8-byte RDMO
 * append to the mix queue; READ_AT: fi_read at any offset (sk_post_at). */
enum sk_kind { SK_WRITE, SK_READ, SK_TSEND, SK_FADD, SK_APPEND, SK_READ_AT };

struct sk_op {
	struct fi_context2 ctx;	/* first: the CQ gives it back */
	uint64_t t_post, k, len;
	bool busy;
	int slot;
	uint64_t loff, roff;	/* local and remote offsets (sk_post_at) */
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
	uint64_t seed;		/* of the data patterns (mix: per cycle) */
	bool quiet;		/* mix: no line per run */
	uint64_t tag_bytes;	/* sent in tag runs, in all */
	struct fi_uet_rdmo_ops *rdmo;	/* mix: the provider's appends */
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
/* The same at local offset |loff| of s->buf and remote offset |roff| of
 * the server's region (FADD: |loff| its result's; APPEND: its record's,
 * the result at SK_REGION + |loff|). */
int sk_post_at(struct sk *s, enum sk_kind kind, uint64_t k, uint64_t loff,
	       uint64_t roff, uint64_t len);

/* ---- fi_soak_cli.c, fi_soak_srv.c ---------------------------------------- */
int sk_client(struct sk *s);
int sk_server(struct sk *s);
/* One verified run of |total| ops from op |k0| on (rma: writes of
 * o.size, checked by the server and read back; tag: messages). */
int sk_client_rma(struct sk *s, uint64_t k0, uint64_t total);
int sk_client_tag(struct sk *s, uint64_t k0, uint64_t total);
/* Waits until at most |max| ops are in flight; 1 on an error completion. */
int sk_drain_to(struct sk *s, int max);
/* A command on the side channel and its reply; 0 or -1. */
int sk_cmd(struct sk *s, const struct sk_cmd *c, struct sk_reply *r);

/* ---- fi_soak_mix.c ------------------------------------------------------- */
/* -m mix: rma, tag, fetch-and-add and append rounds in turn until -D. */
int sk_client_mix(struct sk *s);
/* The server's side of WORD, QRESET and QCHECK; 0 or -1. */
int sk_srv_mix_cmd(struct sk *s, const struct sk_cmd *c);

#endif /* FI_SOAK_H */
