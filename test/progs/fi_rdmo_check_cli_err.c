/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rdmo_check's client, operations that must fail: appends and scatters
 * the server refuses (wrong keys, past an end, a full queue), a flush
 * behind refusals, and with -x the appends after an fi_writemsg refused
 * for FI_INJECT_COMPLETE.
 */
#include <string.h>
#include <sys/uio.h>

#include "test/progs/fi_rdmo_check_cli.h"
#include "uet_wire.h"

/* The codes the refusals expect (ref 3.5), pinned to the spec. */
_Static_assert(UET_SES_RC_BAD_MKEY == 0x1c, "RC_BAD_MKEY");
_Static_assert(UET_SES_RC_BAD_ADDR == 0x1d, "RC_BAD_ADDR");

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

int frd_cli_errors(struct frd_cli *c)
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
int frd_cli_reuse(struct frd_cli *c)
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

