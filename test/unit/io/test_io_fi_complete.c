/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Completion levels (fi_cq(3); uet_op_level.c) with no engine: the op_flags
 * fi_getinfo reports and takes, fi_endpoint and FI_SETOPSFLAG, the data
 * calls taking each level; FI_INJECT_COMPLETE copying the payload and
 * completing once the call accepted the operation (the buffer is the
 * application's again, the copy is what gets sent), and its end, success
 * or error, reporting nothing more; longer payloads and stronger levels
 * completing at the end.
 */
#include <errno.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_tagged.h>

#include "t_fi.h"

static const uint64_t t_levels[] = {
	FI_INJECT_COMPLETE, FI_TRANSMIT_COMPLETE, FI_DELIVERY_COMPLETE,
};
#define T_NLEVELS	(sizeof(t_levels) / sizeof(t_levels[0]))

static struct t_fi t;
static struct fid_ep *ep;
static struct fid_cq *cq;
static struct fid_cntr *cntr;
static uint8_t buf[UET_INJECT_COPY_MAX + 1];

static void t_setup(void)
{
	struct fi_cq_attr cqattr = { .format = FI_CQ_FORMAT_DATA };
	struct fi_cntr_attr cattr = { .events = FI_CNTR_EVENTS_COMP };

	t_fi_open(&t, FI_MR_PROV_KEY);
	cr_assert_eq(fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	cr_assert_eq(fi_cq_open(t.domain, &cqattr, &cq, NULL), 0);
	cr_assert_eq(fi_cntr_open(t.domain, &cattr, &cntr, NULL), 0);
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT), 0);
	cr_assert_eq(fi_ep_bind(ep, &cntr->fid, FI_SEND | FI_WRITE), 0);
}

static void t_teardown(void)
{
	cr_assert_eq(fi_close(&ep->fid), 0);
	cr_assert_eq(fi_close(&cntr->fid), 0);
	cr_assert_eq(fi_close(&cq->fid), 0);
	t_fi_close(&t);
}

TestSuite(uet_complete, .init = t_setup, .fini = t_teardown);

static struct fi_info *t_getinfo_flags(uint64_t op_flags, int *ret)
{
	struct fi_info *h = t_fi_hints(FI_MR_PROV_KEY), *info = NULL;

	h->caps = FI_MSG | FI_TAGGED | FI_RMA;
	h->tx_attr->op_flags = op_flags;
	*ret = fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", "3", FI_SOURCE, h,
			  &info);
	fi_freeinfo(h);
	return info;
}

Test(uet_complete, getinfo_reports_and_takes_the_levels)
{
	struct fi_info *info;
	int ret;

	/* None asked: the level operations get, transmit complete. */
	info = t_getinfo_flags(0, &ret);
	cr_assert_eq(ret, 0);
	cr_assert_eq(info->tx_attr->op_flags, FI_TRANSMIT_COMPLETE);
	fi_freeinfo(info);
	info = t_getinfo_flags(FI_COMPLETION, &ret);
	cr_assert_eq(ret, 0);
	cr_assert_eq(info->tx_attr->op_flags,
		     FI_COMPLETION | FI_TRANSMIT_COMPLETE);
	fi_freeinfo(info);
	for (size_t i = 0; i < T_NLEVELS; i++) {
		info = t_getinfo_flags(t_levels[i] | FI_COMPLETION, &ret);
		cr_assert_eq(ret, 0, "level %#lx: %d", t_levels[i], ret);
		cr_assert_eq(info->tx_attr->op_flags,
			     t_levels[i] | FI_COMPLETION);
		fi_freeinfo(info);
	}
	/* Not a default for writes too. */
	info = t_getinfo_flags(FI_MATCH_COMPLETE, &ret);
	cr_assert_eq(ret, -FI_ENODATA);
}

Test(uet_complete, endpoint_and_setopsflag_take_the_levels)
{
	uint64_t flags;
	struct fid_ep *e;

	for (size_t i = 0; i < T_NLEVELS; i++) {
		t.info->tx_attr->op_flags = t_levels[i];
		cr_assert_eq(fi_endpoint(t.domain, t.info, &e, NULL), 0);
		cr_assert_eq(t_ep(e)->tx_op_flags, t_levels[i]);
		cr_assert_eq(fi_close(&e->fid), 0);
		flags = FI_TRANSMIT | t_levels[i];
		cr_assert_eq(fi_control(&ep->fid, FI_SETOPSFLAG, &flags), 0);
		flags = FI_TRANSMIT;
		cr_assert_eq(fi_control(&ep->fid, FI_GETOPSFLAG, &flags), 0);
		cr_assert_eq(flags, t_levels[i]);
	}
	t.info->tx_attr->op_flags = FI_MATCH_COMPLETE;
	cr_assert_eq(fi_endpoint(t.domain, t.info, &e, NULL), -FI_EBADFLAGS);
}

/* Well-formed with each level: only the endpoint not being enabled stops
 * them (an unknown flag would be -FI_EBADFLAGS first). */
Test(uet_complete, data_calls_take_the_levels)
{
	struct iovec iov = { buf, 64 };
	struct fi_rma_iov rma = { .len = 64, .key = 1 };
	struct fi_ioc ioc = { buf, 1 };
	struct fi_rma_ioc rioc = { .count = 1, .key = 1 };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1 };
	struct fi_msg_tagged tm = { .msg_iov = &iov, .iov_count = 1 };
	struct fi_msg_rma rm = { .msg_iov = &iov, .iov_count = 1,
				 .rma_iov = &rma, .rma_iov_count = 1 };
	struct fi_msg_atomic am = { .msg_iov = &ioc, .iov_count = 1,
				    .rma_iov = &rioc, .rma_iov_count = 1,
				    .datatype = FI_UINT64, .op = FI_SUM };

	for (size_t i = 0; i < T_NLEVELS; i++) {
		uint64_t f = t_levels[i] | FI_COMPLETION;

		cr_assert_eq(fi_sendmsg(ep, &m, f), -FI_EOPBADSTATE);
		cr_assert_eq(fi_tsendmsg(ep, &tm, f), -FI_EOPBADSTATE);
		cr_assert_eq(fi_writemsg(ep, &rm, f), -FI_EOPBADSTATE);
		cr_assert_eq(fi_writemsg(ep, &rm, f | FI_INJECT),
			     -FI_EOPBADSTATE);
		cr_assert_eq(fi_atomicmsg(ep, &am, f), -FI_EOPBADSTATE);
	}
	cr_assert_eq(fi_writemsg(ep, &rm, FI_MATCH_COMPLETE), -FI_EBADFLAGS);
	cr_assert_eq(ep->ops->tx_size_left(ep), UET_TX_SIZE);
}

/* ---- an operation's path, driven by hand --------------------------------- */
/* An operation as a send call builds it, |len| bytes of buf, |flags|. */
static struct uet_op *t_op(void *context, size_t len, uint64_t flags)
{
	struct uet_ep *e = t_ep(ep);
	struct iovec iov[2] = { { buf, len / 2 },
				{ buf + len / 2, len - len / 2 } };
	struct uet_op *op = uet_op_take(e);

	cr_assert_not_null(op);
	op->context = context;
	op->cq_flags = FI_SEND | FI_MSG;
	op->len = len;
	op->want_cq = true;
	op->wre.user_ctx = op;
	uet_op_set_iov(op, iov, 2, flags);
	e->outstanding++;
	uet_op_accepted(op);
	return op;
}

static void t_end(struct uet_op *op, int status, uint8_t rc)
{
	struct ses_tx_cpl cpl = { .status = status, .rc = rc };

	uet_engine_ops.tx_done(t_ep(ep), &op->wre, &cpl);
}

static void t_fill(uint8_t seed)
{
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(seed + i * 7);
}

static void t_cq_says(void *context)
{
	struct fi_cq_data_entry e;

	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	cr_assert_eq(e.op_context, context);
	cr_assert_eq(e.flags, FI_SEND | FI_MSG);
}

static void t_cq_is_empty(void)
{
	struct fi_cq_data_entry e;

	cr_assert_eq(fi_cq_read(cq, &e, 1), -FI_EAGAIN);
}

Test(uet_complete, inject_complete_copies_and_completes_at_once)
{
	const size_t lens[] = { 0, 48, 4096, UET_INJECT_COPY_MAX };
	uint8_t want[UET_INJECT_COPY_MAX];
	int ctx;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct uet_op *op;

		t_fill((uint8_t)i);
		memcpy(want, buf, lens[i]);
		op = t_op(&ctx, lens[i], FI_INJECT_COMPLETE);
		/* Complete now, before the engine did anything. */
		t_cq_says(&ctx);
		cr_assert_eq(fi_cntr_read(cntr), i + 1);
		/* The buffer is the application's: what goes is the copy. */
		memset(buf, 0xEE, sizeof(buf));
		if (lens[i]) {
			cr_assert_eq(op->wre.iov_cnt, 1);
			cr_assert_neq(op->wre.iov[0].base, buf);
			cr_assert_eq(op->wre.iov[0].len, lens[i]);
			cr_assert_eq(memcmp(op->wre.iov[0].base, want,
					    lens[i]), 0);
		}
		/* Its end says nothing more. */
		t_end(op, 0, UET_SES_RC_OK);
		t_cq_is_empty();
		cr_assert_eq(fi_cntr_read(cntr), i + 1);
	}
	cr_assert_eq(ep->ops->tx_size_left(ep), UET_TX_SIZE);
}

/* fi_cq(3): an error after an inject completion has nothing to report on. */
Test(uet_complete, an_error_after_an_inject_completion_is_not_reported)
{
	struct uet_op *op;
	int ctx;

	op = t_op(&ctx, 100, FI_INJECT_COMPLETE | FI_COMPLETION);
	t_cq_says(&ctx);
	t_end(op, -EREMOTEIO, UET_SES_RC_BAD_MKEY);
	t_cq_is_empty();
	cr_assert_eq(fi_cntr_read(cntr), 1);
	cr_assert_eq(fi_cntr_readerr(cntr), 0);
	/* The next operation of the slot starts afresh. */
	op = t_op(&ctx, 100, 0);
	t_cq_is_empty();
	t_end(op, -EREMOTEIO, UET_SES_RC_BAD_MKEY);
	cr_assert_eq(fi_cntr_readerr(cntr), 1);
}

/* Past the copy limit, or with a stronger level: at the end. */
Test(uet_complete, longer_or_stronger_completes_at_the_end)
{
	const uint64_t flags[] = {
		FI_INJECT_COMPLETE, FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE,
		FI_INJECT_COMPLETE | FI_DELIVERY_COMPLETE, FI_TRANSMIT_COMPLETE,
		FI_DELIVERY_COMPLETE, 0,
	};
	const size_t lens[] = { UET_INJECT_COPY_MAX + 1, 64, 64, 64, 64, 64 };
	struct uet_op *op;
	int ctx;

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		op = t_op(&ctx, lens[i], flags[i]);
		t_cq_is_empty();
		/* No copy: SES reads the buffer until the end. */
		cr_assert_eq(op->wre.iov_cnt, 2);
		cr_assert_eq(op->wre.iov[0].base, buf);
		t_end(op, 0, UET_SES_RC_OK);
		t_cq_says(&ctx);
	}
	cr_assert_eq(fi_cntr_read(cntr), sizeof(flags) / sizeof(flags[0]));
}

/* An inject-completed operation waiting for a fence is not cancellable. */
Test(uet_complete, a_completed_operation_is_not_cancelled)
{
	struct uet_ep *e = t_ep(ep);
	struct uet_op *op;
	int ctx;

	op = t_op(&ctx, 64, FI_INJECT_COMPLETE);
	t_cq_says(&ctx);
	uet_list_add_tail(&e->fenced, &op->link);
	cr_assert_eq(fi_cancel(&ep->fid, &ctx), -FI_ENOENT);
	uet_list_del(&op->link);
	t_end(op, 0, UET_SES_RC_OK);
	t_cq_is_empty();
}
