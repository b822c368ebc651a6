/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rma_check's client: the battery (writes of 1 B to 64 MiB checked by
 * the server and read back, fi_writedata, fi_inject_write, operations the
 * target must refuse), the bulk mode and the victim mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fi_errno.h>

#include "test/progs/fi_rma_check.h"
#include "uet_wire.h"

/* The return codes the refusals expect (ref 3.5); pinned to the spec so
 * that a renumbered header cannot make provider and test agree. */
_Static_assert(UET_SES_RC_BAD_MKEY == 0x1c, "RC_BAD_MKEY");
_Static_assert(UET_SES_RC_BAD_ADDR == 0x1d, "RC_BAD_ADDR");
_Static_assert(UET_SES_RC_PERM_VIOLATION == 0x17, "RC_PERM_VIOLATION");

#define FRC_BULK_LEN		FRC_MIB		/* one bulk or victim write */
#define FRC_BULK_DEPTH		8		/* bulk writes in flight */
#define FRC_OP_WAIT_MS		30000		/* one operation, worst case */
#define FRC_VICTIM_MAX		1000000		/* writes before giving up */
#define FRC_CQ_DATA		0x5eed600dcafef00dull

/* ---- operations --------------------------------------------------------- */
/* A write by fi_writemsg, with op->msg_flags (a completion level). */
static ssize_t frc_op_issue_msg(struct frc_client *cl,
				const struct frc_op *op)
{
	struct iovec iov = { .iov_base = cl->src + op->local_off,
			     .iov_len = op->len };
	struct fi_rma_iov rma = { .addr = op->raddr, .len = op->len,
				  .key = op->key };
	void *desc = cl->c.desc;
	struct fi_msg_rma msg = { .msg_iov = &iov, .desc = &desc,
				  .iov_count = 1, .addr = cl->c.peer,
				  .rma_iov = &rma, .rma_iov_count = 1 };

	return fi_writemsg(cl->c.fab.ep, &msg, FI_COMPLETION | op->msg_flags);
}

static ssize_t frc_op_issue(struct frc_client *cl, const struct frc_op *op)
{
	struct ex_ctx *c = &cl->c;

	if (op->msg_flags)
		return frc_op_issue_msg(cl, op);
	if (op->read)
		return fi_read(c->fab.ep, cl->rb + op->local_off, op->len,
			       c->desc, c->peer, op->raddr, op->key, NULL);
	if (op->cq_data)
		return fi_writedata(c->fab.ep, cl->src + op->local_off, op->len,
				    c->desc, op->data, c->peer, op->raddr,
				    op->key, NULL);
	return fi_write(c->fab.ep, cl->src + op->local_off, op->len, c->desc,
			c->peer, op->raddr, op->key, NULL);
}

/* Posts |op|, driving progress while the provider says -FI_EAGAIN. */
int frc_op_post(struct frc_client *cl, const struct frc_op *op)
{
	uint64_t end = frc_now_ns() + FRC_OP_WAIT_MS * 1000000ull;
	ssize_t ret;

	for (;;) {
		ret = frc_op_issue(cl, op);
		if (ret != -FI_EAGAIN || frc_now_ns() > end)
			break;
		fi_cq_read(cl->c.fab.cq, NULL, 0);	/* progress only */
	}
	if (ret) {
		fprintf(stderr, "fi_rma_check: posting a %s: %s\n",
			op->read ? "read" : "write", fi_strerror((int)-ret));
		return -1;
	}
	cl->inflight++;
	return 0;
}

/*
 * Takes one completion within FRC_OP_WAIT_MS: 0 a success, 1 an error
 * completion (in |err|), -1 none or a failing CQ.
 */
int frc_op_wait(struct frc_client *cl, struct fi_cq_err_entry *err)
{
	uint64_t end = frc_now_ns() + FRC_OP_WAIT_MS * 1000000ull;
	struct fi_cq_data_entry e;
	ssize_t n;

	if (cl->c.nstash) {	/* read while we waited on the side channel */
		memmove(cl->c.stash, cl->c.stash + 1,
			(size_t)--cl->c.nstash * sizeof(e));
		cl->inflight--;
		return 0;
	}
	for (unsigned long i = 0;; i++) {
		n = fi_cq_read(cl->c.fab.cq, &e, 1);
		if (n == 1) {
			cl->inflight--;
			return 0;
		}
		memset(err, 0, sizeof(*err));
		if (n == -FI_EAVAIL &&
		    fi_cq_readerr(cl->c.fab.cq, err, 0) == 1) {
			cl->inflight--;
			return 1;
		}
		if (n != -FI_EAGAIN && n != -FI_EAVAIL) {
			fprintf(stderr, "fi_rma_check: fi_cq_read: %s\n",
				fi_strerror((int)-n));
			return -1;
		}
		if (!(i % 1024) && frc_now_ns() > end) {
			fprintf(stderr, "fi_rma_check: no completion in %d ms "
				"(%zu in flight)\n", FRC_OP_WAIT_MS,
				cl->inflight);
			return -1;
		}
	}
}

void frc_err_print(struct frc_client *cl, const char *what,
			  const struct fi_cq_err_entry *err)
{
	fprintf(stderr, "fi_rma_check: %s: error completion %s (prov_errno "
		"%#x: %s)\n", what, fi_strerror(err->err), err->prov_errno,
		fi_cq_strerror(cl->c.fab.cq, err->prov_errno, err->err_data,
			       NULL, 0));
}

/* Waits for a success; an error completion is a failure here. */
int frc_op_wait_ok(struct frc_client *cl)
{
	struct fi_cq_err_entry err;
	int ret = frc_op_wait(cl, &err);

	if (ret == 1)
		frc_err_print(cl, "unexpected", &err);
	return ret ? -1 : 0;
}

/* Posts |op| and waits for it: 0, 1 (error completion in |err|) or -1. */
int frc_op_run(struct frc_client *cl, const struct frc_op *op,
	       struct fi_cq_err_entry *err)
{
	return frc_op_post(cl, op) ? -1 : frc_op_wait(cl, err);
}

int frc_op_run_ok(struct frc_client *cl, const struct frc_op *op)
{
	return frc_op_post(cl, op) ? -1 : frc_op_wait_ok(cl);
}

int frc_ask(struct frc_client *cl, const struct frc_cmd *cmd,
	    struct frc_reply *r)
{
	if (ex_oob_send(&cl->c, cmd, sizeof(*cmd)) ||
	    ex_oob_recv(&cl->c, r, sizeof(*r))) {
		fprintf(stderr, "fi_rma_check: side channel lost\n");
		return -1;
	}
	return 0;
}

/* Asks the server; 0 if it says the check held. */
static int frc_cmd(struct frc_client *cl, uint32_t op, uint64_t off,
		   uint64_t len, uint64_t data)
{
	struct frc_cmd cmd = { .op = op, .off = off, .len = len,
			       .data = data };
	struct frc_reply r;

	if (op == FRC_CMD_SUM || op == FRC_CMD_CQ_DATA)
		cmd.sum = ex_checksum(cl->src, len);
	if (frc_ask(cl, &cmd, &r))
		return -1;
	if (!r.ok)
		fprintf(stderr, "fi_rma_check: server: check %u failed (offset "
			"%llu, %llu B: checksum %#llx, want %#llx)\n", op,
			(unsigned long long)off, (unsigned long long)len,
			(unsigned long long)r.sum,
			(unsigned long long)cmd.sum);
	return r.ok ? 0 : -1;
}

static double frc_mbps(uint64_t len, uint64_t ns)
{
	return ns ? (double)len * 1e3 / (double)ns : 0;
}

/* ---- the battery -------------------------------------------------------- */
/* Writes |len| bytes at |off| of the region, has the server check them,
 * reads them back into rb and compares. */
static int frc_write_read(struct frc_client *cl, uint64_t len, uint64_t off,
			  uint64_t seed)
{
	struct frc_op w = { .len = len, .raddr = cl->srv.region_addr + off,
			    .key = cl->srv.region_key };
	struct frc_op r = w;
	uint64_t t0, t1, t2, t3;

	r.read = true;
	frc_pattern(cl->src, len, seed);
	/* Unlike what we wrote: a read that places nothing fails. */
	for (uint64_t i = 0; i < len; i++)
		cl->rb[i] = (uint8_t)~cl->src[i];
	t0 = frc_now_ns();
	if (frc_op_run_ok(cl, &w))
		return -1;
	t1 = frc_now_ns();
	if (frc_cmd(cl, FRC_CMD_SUM, off, len, 0))
		return -1;
	t2 = frc_now_ns();
	if (frc_op_run_ok(cl, &r))
		return -1;
	t3 = frc_now_ns();
	if (memcmp(cl->rb, cl->src, len)) {
		fprintf(stderr, "fi_rma_check: %llu B read back differ\n",
			(unsigned long long)len);
		return -1;
	}
	printf("fi_rma_check: %llu B at offset %llu: written (%.0f us, %.0f "
	       "MB/s), checked by the server, read back (%.0f us, %.0f MB/s) "
	       "ok\n", (unsigned long long)len, (unsigned long long)off,
	       (double)(t1 - t0) / 1e3, frc_mbps(len, t1 - t0),
	       (double)(t3 - t2) / 1e3, frc_mbps(len, t3 - t2));
	return 0;
}

static int frc_battery_sizes(struct frc_client *cl)
{
	/* Odd offsets, a page crossing, the region's last and first byte. */
	static const struct { uint64_t len, off; } t[] = {
		{ 1, 0 },
		{ 7, 4093 },
		{ 4096, FRC_REGION_LEN - 4096 },
		{ 65536, 12345 },
		{ FRC_MIB, FRC_MIB + 1 },
		{ 16 * FRC_MIB, 3 },
		{ 64 * FRC_MIB, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (frc_write_read(cl, t[i].len, t[i].off, i + 1))
			return -1;
	return 0;
}

static int frc_battery_cq_data(struct frc_client *cl)
{
	size_t size = cl->c.fab.info->domain_attr->cq_data_size;
	struct frc_op w = { .cq_data = true, .len = 4096,
			    .raddr = cl->srv.region_addr + 8192,
			    .key = cl->srv.region_key, .data = FRC_CQ_DATA };

	if (!size) {
		printf("fi_rma_check: fi_writedata skipped: no remote CQ "
		       "data\n");
		return 0;
	}
	if (size < sizeof(w.data))
		w.data &= (1ull << (8 * size)) - 1;
	frc_pattern(cl->src, w.len, 0xda7a);
	if (frc_op_run_ok(cl, &w) ||
	    frc_cmd(cl, FRC_CMD_CQ_DATA, 8192, w.len, w.data))
		return -1;
	printf("fi_rma_check: fi_writedata: data in place, remote CQ data "
	       "%#llx at the target ok\n", (unsigned long long)w.data);
	return 0;
}

/* fi_inject_write: the buffer is ours again at return, and no completion
 * comes; the server waits for the bytes. */
static int frc_battery_inject(struct frc_client *cl)
{
	uint64_t len = cl->c.fab.info->tx_attr->inject_size;
	uint64_t raddr = cl->srv.region_addr + 20000, end;
	struct fi_cq_data_entry e;
	struct frc_cmd cmd = { .op = FRC_CMD_SUM, .off = 20000 };
	struct frc_reply r;
	ssize_t ret;

	len = len < 48 ? len : 48;
	if (!len) {
		printf("fi_rma_check: fi_inject_write skipped: no inject\n");
		return 0;
	}
	frc_pattern(cl->src, len, 0x1ec7);
	cmd.len = len;
	cmd.sum = ex_checksum(cl->src, len);
	end = frc_now_ns() + FRC_OP_WAIT_MS * 1000000ull;
	do {
		ret = fi_inject_write(cl->c.fab.ep, cl->src, len, cl->c.peer,
				      raddr, cl->srv.region_key);
		if (ret == -FI_EAGAIN)
			fi_cq_read(cl->c.fab.cq, NULL, 0);
	} while (ret == -FI_EAGAIN && frc_now_ns() < end);
	if (ret) {
		fprintf(stderr, "fi_rma_check: fi_inject_write: %s\n",
			fi_strerror((int)-ret));
		return -1;
	}
	for (uint64_t i = 0; i < len; i++)	/* ours again: scribble */
		cl->src[i] = (uint8_t)~cl->src[i];
	if (ex_oob_send(&cl->c, &cmd, sizeof(cmd)) ||
	    ex_oob_recv(&cl->c, &r, sizeof(r)) || !r.ok) {
		fprintf(stderr, "fi_rma_check: inject: the server did not "
			"get the bytes\n");
		return -1;
	}
	if (cl->c.nstash || fi_cq_read(cl->c.fab.cq, &e, 1) != -FI_EAGAIN) {
		fprintf(stderr, "fi_rma_check: fi_inject_write completed\n");
		return -1;
	}
	printf("fi_rma_check: fi_inject_write %llu B: buffer reusable at "
	       "once, data in place, no completion ok\n",
	       (unsigned long long)len);
	return 0;
}

/* The region the server refuses to let us write is readable. */
static int frc_battery_ro_read(struct frc_client *cl)
{
	struct frc_op r = { .read = true, .len = cl->srv.ro_len,
			    .raddr = cl->srv.ro_addr, .key = cl->srv.ro_key };

	if (r.len > FRC_REGION_LEN)
		return -1;
	frc_pattern(cl->src, r.len, FRC_RO_SEED);
	memset(cl->rb, 0, r.len);
	if (frc_op_run_ok(cl, &r) || memcmp(cl->rb, cl->src, r.len)) {
		fprintf(stderr, "fi_rma_check: the read-only region\n");
		return -1;
	}
	printf("fi_rma_check: read of the read-only region ok\n");
	return 0;
}

/* ---- what the target must refuse ---------------------------------------- */
enum frc_target { FRC_REGION, FRC_RO };

/* An operation the target must refuse, and the UET code it must give. */
struct frc_bad_op {
	const char *what;
	bool read;
	enum frc_target target;
	int64_t off;		/* from the target's first byte */
	uint64_t len;
	bool wrong_key;
	uint8_t rc;
	int err;		/* the README's mapping of rc */
};

static const struct frc_bad_op frc_bad_ops[] = {
	{ "write with a wrong key", false, FRC_REGION, 0, 4096, true,
	  UET_SES_RC_BAD_MKEY, FI_EKEYREJECTED },
	{ "1 MiB write with a wrong key", false, FRC_REGION, 0, FRC_MIB, true,
	  UET_SES_RC_BAD_MKEY, FI_EKEYREJECTED },
	{ "read with a wrong key", true, FRC_REGION, 0, 4096, true,
	  UET_SES_RC_BAD_MKEY, FI_EKEYREJECTED },
	{ "write past the end", false, FRC_REGION, FRC_REGION_LEN, 4096,
	  false, UET_SES_RC_BAD_ADDR, FI_EACCES },
	{ "write across the end", false, FRC_REGION, FRC_REGION_LEN - 2048,
	  4096, false, UET_SES_RC_BAD_ADDR, FI_EACCES },
	{ "1 MiB write across the end", false, FRC_REGION,
	  FRC_REGION_LEN - FRC_MIB / 2, FRC_MIB, false, UET_SES_RC_BAD_ADDR,
	  FI_EACCES },
	{ "write below the start", false, FRC_REGION, -4096, 4096, false,
	  UET_SES_RC_BAD_ADDR, FI_EACCES },
	{ "read past the end", true, FRC_REGION, FRC_REGION_LEN, 4096, false,
	  UET_SES_RC_BAD_ADDR, FI_EACCES },
	{ "write without FI_REMOTE_WRITE", false, FRC_RO, 0, 4096, false,
	  UET_SES_RC_PERM_VIOLATION, FI_EACCES },
};

/* A key no region of the server has. */
static uint64_t frc_wrong_key(const struct frc_info *srv)
{
	uint64_t key = srv->region_key ^ 0x5a5a;

	return key == srv->ro_key ? srv->region_key ^ 0xa5a5 : key;
}

static int frc_bad_op_run(struct frc_client *cl, const struct frc_bad_op *b)
{
	const struct frc_info *s = &cl->srv;
	struct frc_op op = { .read = b->read, .len = b->len };
	struct fi_cq_err_entry err;
	int ret;

	if (!b->read && cl->o->refused_dc)
		op.msg_flags = FI_DELIVERY_COMPLETE;
	op.raddr = (b->target == FRC_RO ? s->ro_addr : s->region_addr) +
		   (uint64_t)b->off;
	op.key = b->wrong_key ? frc_wrong_key(s) :
		 b->target == FRC_RO ? s->ro_key : s->region_key;
	frc_pattern(cl->src, b->len, 0xbad);
	ret = frc_op_run(cl, &op, &err);
	if (ret != 1) {
		fprintf(stderr, "fi_rma_check: %s: %s\n", b->what,
			ret ? "failed" : "succeeded");
		return -1;
	}
	if (!err.err || (cl->o->uet_rc && (err.prov_errno != b->rc ||
					   err.err != b->err))) {
		frc_err_print(cl, b->what, &err);
		fprintf(stderr, "fi_rma_check: %s: want prov_errno %#x, %s\n",
			b->what, b->rc, fi_strerror(b->err));
		return -1;
	}
	printf("fi_rma_check: %s: error completion %s (prov_errno %#x) ok\n",
	       b->what, fi_strerror(err.err), err.prov_errno);
	return 0;
}

/* Each refused, nothing changed at the target, and the endpoint works on. */
static int frc_battery_errors(struct frc_client *cl)
{
	if (frc_cmd(cl, FRC_CMD_SNAPSHOT, 0, 0, 0))
		return -1;
	for (size_t i = 0; i < sizeof(frc_bad_ops) / sizeof(frc_bad_ops[0]);
	     i++)
		if (frc_bad_op_run(cl, &frc_bad_ops[i]))
			return -1;
	if (frc_cmd(cl, FRC_CMD_UNCHANGED, 0, 0, 0))
		return -1;
	printf("fi_rma_check: refused operations left both regions and the "
	       "guards untouched ok\n");
	return frc_write_read(cl, 4096, 0, 99);
}

/* ---- bulk and victim ---------------------------------------------------- */
/* Posts 1 MiB write number |n| into slot n % 64 of the region, keeping at
 * most FRC_BULK_DEPTH in flight; |err| gets an error completion (1). */
static int frc_bulk_post(struct frc_client *cl, uint64_t n,
			 struct fi_cq_err_entry *err)
{
	uint64_t slot_off = n % (FRC_REGION_LEN / FRC_BULK_LEN) * FRC_BULK_LEN;
	struct frc_op w = { .local_off = slot_off, .len = FRC_BULK_LEN,
			    .raddr = cl->srv.region_addr + slot_off,
			    .key = cl->srv.region_key };
	int ret;

	if (cl->inflight == FRC_BULK_DEPTH) {
		ret = frc_op_wait(cl, err);
		if (ret)
			return ret;
	}
	frc_pattern(cl->src + slot_off, FRC_BULK_LEN, n + 1000);
	return frc_op_post(cl, &w);
}

/* Reads the first |slots| MiB of the region back, FRC_BULK_DEPTH at a
 * time, and compares them with what we wrote. */
static int frc_bulk_read_back(struct frc_client *cl, uint64_t slots)
{
	struct frc_op r = { .read = true, .len = FRC_BULK_LEN,
			    .key = cl->srv.region_key };

	memset(cl->rb, 0, slots * FRC_BULK_LEN);
	for (uint64_t k = 0; k < slots; k++) {
		if (cl->inflight == FRC_BULK_DEPTH && frc_op_wait_ok(cl))
			return -1;
		r.local_off = k * FRC_BULK_LEN;
		r.raddr = cl->srv.region_addr + r.local_off;
		if (frc_op_post(cl, &r))
			return -1;
	}
	while (cl->inflight)
		if (frc_op_wait_ok(cl))
			return -1;
	if (memcmp(cl->rb, cl->src, slots * FRC_BULK_LEN)) {
		fprintf(stderr, "fi_rma_check: bulk: read back differs\n");
		return -1;
	}
	return 0;
}

/* |mib| MiB in 1 MiB writes; every 64 MiB round is checked by the server
 * and read back. */
static int frc_bulk(struct frc_client *cl, uint64_t mib)
{
	uint64_t slots = FRC_REGION_LEN / FRC_BULK_LEN, t0 = frc_now_ns(), s;
	struct fi_cq_err_entry err;
	int ret;

	for (uint64_t n = 0; n < mib;) {
		uint64_t round = mib - n < slots ? mib - n : slots;

		for (uint64_t k = 0; k < round; k++, n++) {
			ret = frc_bulk_post(cl, n, &err);
			if (ret == 1)
				frc_err_print(cl, "bulk write", &err);
			if (ret)
				return -1;
		}
		while (cl->inflight)
			if (frc_op_wait_ok(cl))
				return -1;
		if (frc_cmd(cl, FRC_CMD_SUM, 0, round * FRC_BULK_LEN, 0) ||
		    frc_bulk_read_back(cl, round))
			return -1;
	}
	s = frc_now_ns() - t0;
	printf("fi_rma_check: bulk: %llu MiB in 1 MiB writes (%d in flight), "
	       "checked and read back, %.2f s, %.0f MB/s\n",
	       (unsigned long long)mib, FRC_BULK_DEPTH, (double)s / 1e9,
	       frc_mbps(mib * FRC_MIB, s));
	return 0;
}

/* The wall clock in ms, which the e2e script's `date` reads too. */
static unsigned long long frc_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000 +
	       (unsigned long long)ts.tv_nsec / 1000000;
}

/*
 * Writes until the first error completion (the server gets killed), then
 * expects every write still in flight to complete and a new one to fail.
 */
static int frc_victim(struct frc_client *cl)
{
	struct fi_cq_err_entry err, e2;
	struct frc_op w = { .len = 4096, .raddr = cl->srv.region_addr,
			    .key = cl->srv.region_key };
	uint64_t n, t_err, drained = 0, drain_errs = 0;
	int ret = 0;

	for (n = 0; n < FRC_VICTIM_MAX; n++) {
		ret = frc_bulk_post(cl, n, &err);
		if (ret)
			break;
		/* At least 16 have completed: the path works, kill now. */
		if (n == 16 + FRC_BULK_DEPTH)
			printf("fi_rma_check: victim: writing\n");
	}
	if (ret != 1)
		return -1;
	t_err = frc_now_ns();
	printf("fi_rma_check: victim: first error at %llu ms (wall clock)\n",
	       frc_wall_ms());
	frc_err_print(cl, "victim: first error", &err);
	while (cl->inflight) {
		ret = frc_op_wait(cl, &e2);
		if (ret < 0)
			return -1;
		drained++;
		drain_errs += (uint64_t)ret;
	}
	if (frc_op_run(cl, &w, &e2) != 1) {
		fprintf(stderr, "fi_rma_check: victim: a new write did not "
			"fail\n");
		return -1;
	}
	printf("fi_rma_check: victim: error completion after %llu posted: "
	       "%s; %llu in flight completed (%llu errors) and a new write "
	       "failed (%s) within %.0f ms\n", (unsigned long long)n,
	       fi_strerror(err.err), (unsigned long long)drained,
	       (unsigned long long)drain_errs, fi_strerror(e2.err),
	       (double)(frc_now_ns() - t_err) / 1e6);
	/*
	 * A dead peer times out, unless its host's FEP says it is gone: the
	 * PDCs it held are unknown there (FI_ECONNRESET), or its PIDonFEP
	 * is (FI_EADDRNOTAVAIL).
	 */
	if (cl->o->uet_rc && err.err != FI_ETIMEDOUT &&
	    err.err != FI_ECONNRESET && err.err != FI_EADDRNOTAVAIL) {
		fprintf(stderr, "fi_rma_check: victim: want FI_ETIMEDOUT, "
			"FI_ECONNRESET or FI_EADDRNOTAVAIL\n");
		return -1;
	}
	return 0;
}

/* ---- the client --------------------------------------------------------- */
/* Says which address the provider reaches the server at (IPv4 or IPv6). */
static void frc_peer_print(struct frc_client *cl)
{
	char name[128] = "?";
	size_t len = sizeof(name);

	fi_av_straddr(cl->c.fab.av, cl->srv.name, name, &len);
	printf("fi_rma_check: client: %s, server at %s\n",
	       cl->c.fab.info->fabric_attr->prov_name, name);
}

static int frc_client_run(struct frc_client *cl, const struct frc_opts *o)
{
	struct frc_info mine = { 0 };
	struct frc_cmd done = { .op = FRC_CMD_DONE };

	if (frc_exchange(&cl->c, o, &mine, &cl->srv))
		return -1;
	if (cl->srv.region_len != FRC_REGION_LEN) {
		fprintf(stderr, "fi_rma_check: region of %llu B\n",
			(unsigned long long)cl->srv.region_len);
		return -1;
	}
	frc_peer_print(cl);
	if (o->mode == FRC_VICTIM)
		return frc_victim(cl);
	if (o->mode == FRC_BULK) {
		if (frc_bulk(cl, o->bulk_mib))
			return -1;
	} else if (frc_battery_sizes(cl) || frc_battery_cq_data(cl) ||
		   frc_battery_inject(cl) || frc_battery_ro_read(cl) ||
		   frc_battery_errors(cl) || frc_battery_levels(cl) ||
		   frc_battery_events(cl)) {
		return -1;
	}
	return ex_oob_send(&cl->c, &done, sizeof(done));
}

int frc_client_main(const struct frc_opts *o)
{
	struct frc_client cl = { .o = o };
	uint64_t t0 = frc_now_ns();
	int ret = -1;

	/* Our side: what we write, and where reads land. */
	if (!ex_setup(&cl.c, &o->ex, 2 * FRC_REGION_LEN)) {
		cl.src = cl.c.buf;
		cl.rb = cl.src + FRC_REGION_LEN;
		ret = frc_client_run(&cl, o);
	}
	ex_teardown(&cl.c);
	printf("fi_rma_check: client: %s in %.2f s\n",
	       ret ? "FAILED" : "passed", (double)(frc_now_ns() - t0) / 1e9);
	return ret ? 1 : 0;
}

