/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rdmo_check's client: its operations, its state and what
 * fi_rdmo_check_cli.c and fi_rdmo_check_cli_err.c share.
 */
#ifndef FI_RDMO_CHECK_CLI_H
#define FI_RDMO_CHECK_CLI_H

#include "test/progs/fi_rdmo_check.h"

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

void frd_op_init(struct frd_op *op, enum frd_kind kind,
		 const uint64_t *result);
/* Reads what completed: how many, or -1 (the CQ failed). */
int frd_pump(struct frd_cli *c);
/* Until |op| has completed (FRD_WAIT_S at most); 0 or -1. */
int frd_wait_op(struct frd_cli *c, const struct frd_op *op);
/* Asks the server to look at our regions as we think they are. */
int frd_cli_state(struct frd_cli *c, uint32_t what);
/* The refusals: appends and scatters the server must turn down. */
int frd_cli_errors(struct frd_cli *c);
/* -x: appends after an operation refused for FI_INJECT_COMPLETE. */
int frd_cli_reuse(struct frd_cli *c);

#endif /* FI_RDMO_CHECK_CLI_H */
