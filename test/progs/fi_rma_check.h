/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rma_check (issue 6): what its server and client share: options, the
 * side-channel protocol, and the helpers of both sides.
 */
#ifndef FI_RMA_CHECK_H
#define FI_RMA_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "examples/ex_common.h"

#define FRC_MIB			(1024 * 1024ull)
#define FRC_REGION_LEN		(64 * FRC_MIB)	/* the largest write */
#define FRC_GUARD_LEN		(64 * 1024ull)	/* each side of the region */
#define FRC_RO_LEN		(64 * 1024ull)
#define FRC_RO_SEED		0xbb67ae8584caa73bull	/* its contents */

enum frc_mode { FRC_BATTERY, FRC_BULK, FRC_VICTIM };

struct frc_opts {
	struct ex_opts ex;		/* what ex_setup reads */
	enum frc_mode mode;
	bool uet_rc;			/* -E */
	bool refused_dc;		/* -D */
	bool events;			/* -R: FI_RMA_EVENT counters */
	uint64_t bulk_mib;
	unsigned int limit_s;
};

/* What each side publishes on the side channel (the client: name only). */
struct frc_info {
	uint8_t name[EX_NAME_MAX];
	uint32_t name_len, pad;
	uint64_t region_addr, region_key, region_len;
	uint64_t ro_addr, ro_key, ro_len;
};

/* The client's commands; the server answers each with a struct frc_reply. */
enum frc_cmd_op {
	FRC_CMD_SUM = 1,	/* [off, off+len) has checksum |sum| */
	FRC_CMD_CQ_DATA,	/* and a remote CQ entry carried |data| */
	FRC_CMD_SNAPSHOT,	/* remember both regions */
	FRC_CMD_UNCHANGED,	/* both regions as remembered */
	FRC_CMD_DONE,		/* no reply */
	FRC_CMD_STALL,		/* reply, then run nothing for |len| ms */
	FRC_CMD_WOKE,		/* when the last stall ended (sum, in ns) */
	/*
	 * -R: wait (5 s at most) for the counters of remote events to reach
	 * off, len, sum, data: the endpoint's writes and reads, the
	 * region's writes and reads; reply what they are (cnt).
	 */
	FRC_CMD_COUNTERS,
};

struct frc_cmd {
	uint32_t op, pad;
	uint64_t off, len, sum, data;
};

struct frc_reply {
	uint32_t ok, pad;
	uint64_t sum;		/* the server's checksum */
	uint64_t cnt[4];	/* FRC_CMD_COUNTERS */
};

uint64_t frc_now_ns(void);

/* Fills |len| bytes with bytes that differ for every |seed| and offset. */
void frc_pattern(uint8_t *buf, size_t len, uint64_t seed);

/*
 * Connects the side channel (IPv4 or IPv6), sends |mine| (its name filled
 * in here), receives |peer| and inserts the peer into the AV. 0 or -1.
 */
int frc_exchange(struct ex_ctx *c, const struct frc_opts *o,
		 struct frc_info *mine, struct frc_info *peer);

/* ---- the client's parts ------------------------------------------------- */
struct frc_client {
	struct ex_ctx c;
	const struct frc_opts *o;
	uint8_t *src, *rb;	/* halves of c.buf: what we write, read back */
	struct frc_info srv;
	size_t inflight;
};

/* One RMA operation of the client; local_off is into src or rb. */
struct frc_op {
	bool read;
	bool cq_data;
	uint64_t msg_flags;	/* non-zero: fi_writemsg with these */
	uint64_t local_off, len;
	uint64_t raddr, key;
	uint64_t data;
};

/* fi_rma_check_cli.c: post, wait (0, 1: error completion, -1), both. */
int frc_op_post(struct frc_client *cl, const struct frc_op *op);
int frc_op_wait(struct frc_client *cl, struct fi_cq_err_entry *err);
int frc_op_wait_ok(struct frc_client *cl);
int frc_op_run(struct frc_client *cl, const struct frc_op *op,
	       struct fi_cq_err_entry *err);
int frc_op_run_ok(struct frc_client *cl, const struct frc_op *op);
void frc_err_print(struct frc_client *cl, const char *what,
		   const struct fi_cq_err_entry *err);
/* Sends |cmd| and takes the server's reply: 0, or -1 (channel lost). */
int frc_ask(struct frc_client *cl, const struct frc_cmd *cmd,
	    struct frc_reply *r);

/* fi_rma_check_levels.c: completion levels of writes; -R's counters. */
int frc_battery_levels(struct frc_client *cl);
int frc_battery_events(struct frc_client *cl);

/* Each side's program; the exit status (0: every check held). */
int frc_server_main(const struct frc_opts *o);
int frc_client_main(const struct frc_opts *o);

#endif /* FI_RMA_CHECK_H */
