/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rma_check's completion levels of writes (fi_cq(3)) and, with -R, its
 * counters of remote events (FI_RMA_EVENT).
 *
 * Levels: the server sleeps FRC_STALL_MS without running its provider
 * while the client writes with FI_INJECT_COMPLETE, overwrites its buffer
 * as soon as that completes, then writes with FI_TRANSMIT_COMPLETE and
 * FI_DELIVERY_COMPLETE, each after the one before completed. The server
 * must get the bytes from before the overwrite. With -E (uet) the inject
 * completion must come while the server sleeps (uet completes it with the
 * copy), the other two after it woke (uet completes them at the target's
 * response, sent once the data is in place: uet/uet_op_level.c); other
 * providers only say when theirs came.
 *
 * Counters: writes of 1 B to 1 MiB (one to many packets) and an inject
 * into the region, reads of it and of the read-only region, and refused
 * ones; the server's counters must then read exactly one per operation
 * done: the endpoint's FI_REMOTE_WRITE and FI_REMOTE_READ, and those bound
 * to the region (fi_mr_bind), which reads of the other region leave alone.
 */
#include <stdio.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "test/progs/fi_rma_check.h"

#define FRC_STALL_MS		300	/* well inside PDC's retry budget */
#define FRC_LEVEL_LEN		4096
#define FRC_LEVEL_OFF		(2 * FRC_MIB)	/* in the region */
#define FRC_LEVELS		3

static const uint64_t frc_level_flags[FRC_LEVELS] = {
	FI_INJECT_COMPLETE, FI_TRANSMIT_COMPLETE, FI_DELIVERY_COMPLETE,
};
static const char *const frc_level_names[FRC_LEVELS] = {
	"inject", "transmit", "delivery",
};

/* Writes |len| bytes of src at |off| to the region: 0 or -1. */
static int frc_level_write(struct frc_client *cl, uint64_t off,
			   uint64_t flags, uint64_t *done_ns)
{
	struct frc_op w = { .msg_flags = flags, .local_off = off,
			    .len = FRC_LEVEL_LEN,
			    .raddr = cl->srv.region_addr + off,
			    .key = cl->srv.region_key };

	if (frc_op_run_ok(cl, &w))
		return -1;
	*done_ns = frc_now_ns();
	return 0;
}

int frc_battery_levels(struct frc_client *cl)
{
	struct frc_cmd cmd = { .op = FRC_CMD_STALL, .len = FRC_STALL_MS };
	uint64_t sums[FRC_LEVELS], done[FRC_LEVELS], t0, woke;
	struct frc_reply r;

	for (int i = 0; i < FRC_LEVELS; i++) {
		uint8_t *p = cl->src + FRC_LEVEL_OFF + i * FRC_LEVEL_LEN;

		frc_pattern(p, FRC_LEVEL_LEN, 0x1e7e1 + (uint64_t)i);
		sums[i] = ex_checksum(p, FRC_LEVEL_LEN);
	}
	if (frc_ask(cl, &cmd, &r) || !r.ok)
		return -1;
	t0 = frc_now_ns();	/* the server sleeps from before this */
	for (int i = 0; i < FRC_LEVELS; i++) {
		uint64_t off = FRC_LEVEL_OFF + (uint64_t)i * FRC_LEVEL_LEN;

		if (frc_level_write(cl, off, frc_level_flags[i], &done[i]))
			return -1;
		/* Ours again: what was written must not change now. */
		memset(cl->src + off, 0xEE, FRC_LEVEL_LEN);
	}
	cmd = (struct frc_cmd){ .op = FRC_CMD_WOKE };
	if (frc_ask(cl, &cmd, &r) || !r.ok)
		return -1;
	woke = r.sum;
	for (int i = 0; i < FRC_LEVELS; i++) {
		cmd = (struct frc_cmd){
			.op = FRC_CMD_SUM, .len = FRC_LEVEL_LEN,
			.off = FRC_LEVEL_OFF + (uint64_t)i * FRC_LEVEL_LEN,
			.sum = sums[i] };
		if (frc_ask(cl, &cmd, &r) || !r.ok) {
			fprintf(stderr, "fi_rma_check: levels: the %s "
				"complete write did not land as written\n",
				frc_level_names[i]);
			return -1;
		}
	}
	printf("fi_rma_check: levels: server asleep %d ms; inject complete "
	       "after %.1f ms, transmit %.1f, delivery %.1f (woke at %.1f)\n",
	       FRC_STALL_MS, (double)(done[0] - t0) / 1e6,
	       (double)(done[1] - t0) / 1e6, (double)(done[2] - t0) / 1e6,
	       (double)((int64_t)(woke - t0)) / 1e6);
	if (cl->o->uet_rc && (done[0] >= woke || done[1] < woke ||
			      done[2] < woke)) {
		fprintf(stderr, "fi_rma_check: levels: want inject complete "
			"while the server sleeps, transmit and delivery "
			"complete after\n");
		return -1;
	}
	printf("fi_rma_check: writes with inject, transmit and delivery "
	       "complete: buffer reusable at the first, data as written%s "
	       "ok\n", cl->o->uet_rc ? ", each when uet says" : "");
	return 0;
}

/* ---- counters of remote events (-R) ------------------------------------- */
enum { FRC_EP_WR, FRC_EP_RD, FRC_MR_WR, FRC_MR_RD };

/* The server's counters, once they reached |want| (or 5 s passed). */
static int frc_counters(struct frc_client *cl, const uint64_t want[4],
			uint64_t got[4])
{
	struct frc_cmd cmd = { .op = FRC_CMD_COUNTERS, .off = want[0],
			       .len = want[1], .sum = want[2],
			       .data = want[3] };
	struct frc_reply r;

	if (frc_ask(cl, &cmd, &r))
		return -1;
	memcpy(got, r.cnt, sizeof(r.cnt));
	return r.ok ? 0 : -1;
}

/* What the client does to the server, and what each counter gains. */
static int frc_events_ops(struct frc_client *cl, uint64_t add[4])
{
	static const uint64_t write_lens[] = { 1, 4096, FRC_MIB };
	static const uint64_t read_lens[] = { 2048, FRC_MIB };
	const struct frc_info *s = &cl->srv;
	struct frc_op op = { .key = s->region_key, .raddr = s->region_addr };
	struct fi_cq_err_entry err;
	ssize_t ret;

	memset(add, 0, 4 * sizeof(*add));
	for (size_t i = 0; i < 3; i++) {
		op.len = write_lens[i];
		frc_pattern(cl->src, op.len, 0xe7 + i);
		if (frc_op_run_ok(cl, &op))
			return -1;
		add[FRC_EP_WR]++;
		add[FRC_MR_WR]++;
	}
	/* No completion: the server waits for it to count. */
	do {
		ret = fi_inject_write(cl->c.fab.ep, cl->src, 8, cl->c.peer,
				      s->region_addr + 64, s->region_key);
		if (ret == -FI_EAGAIN)
			fi_cq_read(cl->c.fab.cq, NULL, 0);
	} while (ret == -FI_EAGAIN);
	if (ret)
		return -1;
	add[FRC_EP_WR]++;
	add[FRC_MR_WR]++;
	op.read = true;
	for (size_t i = 0; i < 2; i++) {
		op.len = read_lens[i];
		if (frc_op_run_ok(cl, &op))
			return -1;
		add[FRC_EP_RD]++;
		add[FRC_MR_RD]++;
	}
	/* The other region: the endpoint's counter, not the region's. */
	op = (struct frc_op){ .read = true, .len = 4096, .raddr = s->ro_addr,
			      .key = s->ro_key };
	if (frc_op_run_ok(cl, &op))
		return -1;
	add[FRC_EP_RD]++;
	/* Refused: counted nowhere. */
	op = (struct frc_op){ .len = 4096, .raddr = s->ro_addr,
			      .key = s->ro_key };
	if (frc_op_run(cl, &op, &err) != 1)
		return -1;
	op = (struct frc_op){ .read = true, .len = 4096, .key = s->region_key,
			      .raddr = s->region_addr + s->region_len };
	return frc_op_run(cl, &op, &err) == 1 ? 0 : -1;
}

int frc_battery_events(struct frc_client *cl)
{
	static const char *const names[4] = {
		"endpoint FI_REMOTE_WRITE", "endpoint FI_REMOTE_READ",
		"region FI_REMOTE_WRITE", "region FI_REMOTE_READ",
	};
	uint64_t none[4] = { 0 }, before[4], add[4], want[4], got[4];

	if (!cl->o->events)
		return 0;
	if (frc_counters(cl, none, before) || frc_events_ops(cl, add))
		return -1;
	for (int i = 0; i < 4; i++)
		want[i] = before[i] + add[i];
	if (frc_counters(cl, want, got))
		return -1;
	for (int i = 0; i < 4; i++) {
		if (got[i] != want[i]) {
			fprintf(stderr, "fi_rma_check: %s counter: %llu, want "
				"%llu\n", names[i], (unsigned long long)got[i],
				(unsigned long long)want[i]);
			return -1;
		}
	}
	printf("fi_rma_check: counters of remote events: %llu writes, %llu "
	       "reads at the endpoint, %llu and %llu at the region, one "
	       "per operation, none for refused ones ok\n",
	       (unsigned long long)add[FRC_EP_WR],
	       (unsigned long long)add[FRC_EP_RD],
	       (unsigned long long)add[FRC_MR_WR],
	       (unsigned long long)add[FRC_MR_RD]);
	return 0;
}
