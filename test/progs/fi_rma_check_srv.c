/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rma_check's server: a 64 MiB region between two guards and a region
 * without FI_REMOTE_WRITE, published on the side channel; answers the
 * client's commands with checksums and with whether the guards held,
 * sleeps when told to, and (-R) reports its counters of remote events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "test/progs/fi_rma_check.h"

#define FRC_LAND_WAIT_MS	5000		/* data or CQ data due */
#define FRC_CMDS_MAX		10000		/* commands per connection */
#define FRC_GUARD_SEED		0x6a09e667f3bcc908ull

struct frc_server {
	struct ex_ctx c;
	uint8_t *alloc;		/* guard | region | guard */
	uint8_t *region, *ro;
	struct fid_mr *region_mr, *ro_mr;
	struct fid_cntr *mr_wr, *mr_rd;	/* -R: the region's */
	uint64_t guard_sum, snap_region, snap_ro;
	uint64_t woke_ns;		/* when the last stall ended */
};

/*
 * Registers [buf, buf+len) for |access| alone, as the mr_mode asks, with
 * the counters |wr| and |rd| (or none) of its remote writes and reads.
 */
static int frc_mr_reg(struct ex_ctx *c, void *buf, size_t len,
		      uint64_t access, uint64_t requested_key,
		      struct fid_cntr *wr, struct fid_cntr *rd,
		      struct fid_mr **mr)
{
	int ret = fi_mr_reg(c->fab.domain, buf, len, access, 0, requested_key,
			    wr ? FI_RMA_EVENT : 0, mr, NULL);

	if (!ret && wr)
		ret = fi_mr_bind(*mr, &wr->fid, FI_REMOTE_WRITE);
	if (!ret && rd)
		ret = fi_mr_bind(*mr, &rd->fid, FI_REMOTE_READ);
	if (!ret && (c->fab.info->domain_attr->mr_mode & FI_MR_ENDPOINT)) {
		ret = fi_mr_bind(*mr, &c->fab.ep->fid, 0);
		if (!ret)
			ret = fi_mr_enable(*mr);
	}
	if (ret)
		fprintf(stderr, "fi_rma_check: fi_mr_reg: %s\n",
			fi_strerror(-ret));
	return ret;
}

/* How peers address |buf|, a region's first byte: under FI_MR_VIRT_ADDR
 * by our virtual address, else by offset from 0. */
static uint64_t frc_mr_addr(const struct ex_ctx *c, const void *buf)
{
	return (c->fab.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ?
	       (uint64_t)(uintptr_t)buf : 0;
}

static int frc_server_regions(struct frc_server *s, struct frc_info *info)
{
	struct fi_cntr_attr cattr = { .events = FI_CNTR_EVENTS_COMP };
	size_t alloc_len = FRC_GUARD_LEN * 2 + FRC_REGION_LEN;

	if (posix_memalign((void **)&s->alloc, 4096, alloc_len) ||
	    posix_memalign((void **)&s->ro, 4096, FRC_RO_LEN))
		return -1;
	s->region = s->alloc + FRC_GUARD_LEN;
	/* The guards: what a write past either edge would overwrite. */
	frc_pattern(s->alloc, FRC_GUARD_LEN, FRC_GUARD_SEED);
	memcpy(s->region + FRC_REGION_LEN, s->alloc, FRC_GUARD_LEN);
	memset(s->region, 0, FRC_REGION_LEN);
	frc_pattern(s->ro, FRC_RO_LEN, FRC_RO_SEED);
	s->guard_sum = ex_checksum(s->alloc, FRC_GUARD_LEN);
	if (s->c.fab.cntr[EX_CNTR_REMOTE_WR] &&
	    (fi_cntr_open(s->c.fab.domain, &cattr, &s->mr_wr, NULL) ||
	     fi_cntr_open(s->c.fab.domain, &cattr, &s->mr_rd, NULL)))
		return -1;
	if (frc_mr_reg(&s->c, s->region, FRC_REGION_LEN,
		       FI_REMOTE_WRITE | FI_REMOTE_READ, 0x1001, s->mr_wr,
		       s->mr_rd, &s->region_mr) ||
	    frc_mr_reg(&s->c, s->ro, FRC_RO_LEN, FI_REMOTE_READ, 0x1002, NULL,
		       NULL, &s->ro_mr))
		return -1;
	*info = (struct frc_info){
		.region_addr = frc_mr_addr(&s->c, s->region),
		.region_key = fi_mr_key(s->region_mr),
		.region_len = FRC_REGION_LEN,
		.ro_addr = frc_mr_addr(&s->c, s->ro),
		.ro_key = fi_mr_key(s->ro_mr), .ro_len = FRC_RO_LEN,
	};
	return 0;
}

static bool frc_server_guards_ok(const struct frc_server *s)
{
	bool ok = ex_checksum(s->alloc, FRC_GUARD_LEN) == s->guard_sum &&
		  ex_checksum(s->region + FRC_REGION_LEN, FRC_GUARD_LEN) ==
		  s->guard_sum;

	if (!ok)
		printf("fi_rma_check: server: a guard around the region "
		       "changed\n");
	return ok;
}

/* Drives the provider (manual progress) for about |ms|, keeping what
 * arrives (remote CQ data) in the stash that ex_oob_recv fills too. */
static void frc_server_progress(struct frc_server *s, int ms)
{
	const int stash_max = sizeof(s->c.stash) / sizeof(s->c.stash[0]);
	uint64_t end = frc_now_ns() + (uint64_t)ms * 1000000ull;
	struct fi_cq_err_entry err;
	ssize_t n;

	while (frc_now_ns() < end) {
		if (s->c.nstash == stash_max)
			return;
		n = fi_cq_read(s->c.fab.cq, &s->c.stash[s->c.nstash], 1);
		if (n == 1)
			s->c.nstash++;
		else if (n == -FI_EAVAIL &&
			 fi_cq_readerr(s->c.fab.cq, &err, 0) == 1)
			printf("fi_rma_check: server: error completion %s\n",
			       fi_strerror(err.err));
	}
}

/*
 * Whether [off, off+len) reaches checksum |want| within FRC_LAND_WAIT_MS:
 * a provider may complete a write at the initiator before the data is in
 * place (tcp's default transmit completion), and an inject has none.
 */
static bool frc_server_sum_reached(struct frc_server *s, uint64_t off,
				   uint64_t len, uint64_t want, uint64_t *got)
{
	uint64_t end = frc_now_ns() + FRC_LAND_WAIT_MS * 1000000ull;

	for (int i = 0; i < 1000; i++) {
		*got = ex_checksum(s->region + off, len);
		if (*got == want || frc_now_ns() > end)
			break;
		frc_server_progress(s, 5);
	}
	return *got == want;
}

/* Finds (and consumes) a remote CQ data entry, waiting up to 5 s. */
static bool frc_server_cq_data(struct frc_server *s, uint64_t data)
{
	uint64_t end = frc_now_ns() + FRC_LAND_WAIT_MS * 1000000ull;
	struct fi_cq_data_entry e;

	for (int i = 0; i < 10000 && frc_now_ns() < end; i++) {
		if (!s->c.nstash) {
			frc_server_progress(s, 1);
			continue;
		}
		e = s->c.stash[0];
		memmove(s->c.stash, s->c.stash + 1,
			(size_t)--s->c.nstash * sizeof(e));
		printf("fi_rma_check: server: completion flags %#llx data "
		       "%#llx\n", (unsigned long long)e.flags,
		       (unsigned long long)e.data);
		if ((e.flags & FI_REMOTE_CQ_DATA) && e.data == data)
			return true;
	}
	return false;
}

static bool frc_server_unchanged(const struct frc_server *s)
{
	bool ok = ex_checksum(s->region, FRC_REGION_LEN) == s->snap_region &&
		  ex_checksum(s->ro, FRC_RO_LEN) == s->snap_ro;

	if (!ok)
		printf("fi_rma_check: server: a refused operation changed a "
		       "region\n");
	return ok;
}

/* The counters of remote events (-R): endpoint's, then the region's. */
static void frc_server_counters(struct frc_server *s, uint64_t cnt[4])
{
	struct fid_cntr *c[4] = { s->c.fab.cntr[EX_CNTR_REMOTE_WR],
				  s->c.fab.cntr[EX_CNTR_REMOTE_RD], s->mr_wr,
				  s->mr_rd };

	for (int i = 0; i < 4; i++)
		cnt[i] = c[i] ? fi_cntr_read(c[i]) : 0;
}

/* Whether they reach what the client expects within FRC_LAND_WAIT_MS (an
 * inject has no completion: it may land after the client asks). */
static bool frc_server_counters_reach(struct frc_server *s,
				      const struct frc_cmd *cmd,
				      struct frc_reply *r)
{
	const uint64_t want[4] = { cmd->off, cmd->len, cmd->sum, cmd->data };
	uint64_t end = frc_now_ns() + FRC_LAND_WAIT_MS * 1000000ull;
	bool ok;

	if (!s->c.fab.cntr[EX_CNTR_REMOTE_WR])
		return false;
	do {
		frc_server_progress(s, 1);
		frc_server_counters(s, r->cnt);
		ok = true;
		for (int i = 0; i < 4; i++)
			ok = ok && r->cnt[i] >= want[i];
	} while (!ok && frc_now_ns() < end);
	return ok;
}

static bool frc_server_cmd(struct frc_server *s, const struct frc_cmd *cmd,
			   struct frc_reply *r)
{
	bool ok = true;

	if (cmd->op == FRC_CMD_SUM || cmd->op == FRC_CMD_CQ_DATA) {
		if (cmd->off > FRC_REGION_LEN ||
		    cmd->len > FRC_REGION_LEN - cmd->off)
			return false;
		if (cmd->op == FRC_CMD_CQ_DATA)
			ok = frc_server_cq_data(s, cmd->data);
		ok = frc_server_sum_reached(s, cmd->off, cmd->len, cmd->sum,
					    &r->sum) && ok;
	} else if (cmd->op == FRC_CMD_SNAPSHOT) {
		s->snap_region = ex_checksum(s->region, FRC_REGION_LEN);
		s->snap_ro = ex_checksum(s->ro, FRC_RO_LEN);
	} else if (cmd->op == FRC_CMD_UNCHANGED) {
		ok = frc_server_unchanged(s);
	} else if (cmd->op == FRC_CMD_STALL) {
		ok = cmd->len <= 2000;	/* the stall follows the reply */
	} else if (cmd->op == FRC_CMD_WOKE) {
		r->sum = s->woke_ns;
	} else if (cmd->op == FRC_CMD_COUNTERS) {
		ok = frc_server_counters_reach(s, cmd, r);
	} else {
		return false;
	}
	return frc_server_guards_ok(s) && ok;
}

/* Answers commands until DONE; 0 if every check held. */
static int frc_server_run(struct frc_server *s, const struct frc_opts *o)
{
	struct frc_info mine, peer;
	struct frc_reply r;
	struct frc_cmd cmd;
	int failed = 0;

	if (frc_server_regions(s, &mine) ||
	    frc_exchange(&s->c, o, &mine, &peer))
		return 1;
	/* The e2e script kills this pid in the peer-killed test. */
	printf("fi_rma_check: server: pid %d ready\n", (int)getpid());
	for (int i = 0; i < FRC_CMDS_MAX; i++) {
		if (ex_oob_recv(&s->c, &cmd, sizeof(cmd))) {
			printf("fi_rma_check: server: side channel closed\n");
			return 1;
		}
		if (cmd.op == FRC_CMD_DONE)
			break;
		r = (struct frc_reply){ 0 };
		r.ok = frc_server_cmd(s, &cmd, &r);
		failed += !r.ok;
		if (ex_oob_send(&s->c, &r, sizeof(r)))
			return 1;
		if (cmd.op == FRC_CMD_STALL && r.ok) {
			/* Nothing arrives meanwhile: the provider is idle. */
			usleep((useconds_t)cmd.len * 1000);
			s->woke_ns = frc_now_ns();
		}
	}
	printf("fi_rma_check: server: %d failed check(s)\n", failed);
	return failed ? 1 : 0;
}

int frc_server_main(const struct frc_opts *o)
{
	struct frc_server s = { 0 };
	int ret = 1;

	/* ex_setup's own buffer serves nobody here; keep it small. */
	if (!ex_setup(&s.c, &o->ex, 4096))
		ret = frc_server_run(&s, o);
	/* Counters first: a region with one bound does not close. */
	if (s.mr_wr)
		fi_close(&s.mr_wr->fid);
	if (s.mr_rd)
		fi_close(&s.mr_rd->fid);
	if (s.region_mr)
		fi_close(&s.region_mr->fid);
	if (s.ro_mr)
		fi_close(&s.ro_mr->fid);
	ex_teardown(&s.c);
	free(s.alloc);
	free(s.ro);
	return ret;
}

