/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Counters of remote RMA events (FI_RMA_EVENT) with no engine: the
 * endpoint's FI_REMOTE_WRITE and FI_REMOTE_READ bindings and the
 * regions' (fi_mr_bind), their refusals, and what each counts of the
 * engine's rma_done upcalls (uet_rma_event.c): one per operation, by the
 * man pages' rules for writes, reads and each kind of atomic.
 */
#include "t_fi.h"

static struct t_fi t;
static struct fid_ep *ep;
static struct fid_cntr *ep_wr, *ep_rd, *mr_wr, *mr_rd;
static uint8_t buf[4096];

static struct fid_cntr *t_cntr(void)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP };
	struct fid_cntr *c;

	cr_assert_eq(fi_cntr_open(t.domain, &attr, &c, NULL), 0);
	return c;
}

static void t_setup(void)
{
	t_fi_open(&t, FI_MR_PROV_KEY);
	t.info->caps |= FI_RMA_EVENT;
	cr_assert_eq(fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	ep_wr = t_cntr();
	ep_rd = t_cntr();
	mr_wr = t_cntr();
	mr_rd = t_cntr();
}

static void t_teardown(void)
{
	cr_assert_eq(fi_close(&ep->fid), 0);
	cr_assert_eq(fi_close(&ep_wr->fid), 0);
	cr_assert_eq(fi_close(&ep_rd->fid), 0);
	cr_assert_eq(fi_close(&mr_wr->fid), 0);
	cr_assert_eq(fi_close(&mr_rd->fid), 0);
	t_fi_close(&t);
}

TestSuite(uet_rmaevent, .init = t_setup, .fini = t_teardown);

static struct fid_mr *t_reg(void)
{
	struct fid_mr *mr;

	cr_assert_eq(fi_mr_reg(t.domain, buf, sizeof(buf),
			       FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0,
			       FI_RMA_EVENT, &mr, NULL), 0);
	return mr;
}

/* What the engine says when a peer's operation was done on |mr|. */
static void t_event(struct fid_mr *mr, uint8_t opcode, uint8_t amo_op)
{
	struct ses_rma_event ev = {
		.opcode = opcode, .amo_op = amo_op, .len = 8,
		.rkey = container_of(mr, struct uet_mr, mr_fid)->rkey,
	};

	uet_engine_ops.rma_done(t_ep(ep), &ev);
}

Test(uet_rmaevent, endpoint_bindings)
{
	struct fid_cntr *other = t_cntr();

	cr_assert_eq(fi_ep_bind(ep, &ep_rd->fid, FI_REMOTE_READ), 0);
	cr_assert_eq(fi_ep_bind(ep, &ep_wr->fid, FI_REMOTE_WRITE), 0);
	cr_assert_eq(t_ep(ep)->cntr[UET_CNTR_REMOTE_READ],
		     container_of(ep_rd, struct uet_cntr, cntr_fid));
	/* Bound already, for either kind: nothing changes. */
	cr_assert_eq(fi_ep_bind(ep, &other->fid, FI_REMOTE_READ), -FI_EINVAL);
	cr_assert_eq(fi_ep_bind(ep, &other->fid, FI_READ | FI_REMOTE_WRITE),
		     -FI_EINVAL);
	cr_assert_null(t_ep(ep)->cntr[UET_CNTR_READ]);
	cr_assert_eq(fi_ep_bind(ep, &other->fid, FI_REMOTE_CQ_DATA),
		     -FI_EBADFLAGS);
	cr_assert_eq(fi_close(&ep_rd->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&other->fid), 0);
}

/* Asked for or not (fabtests bind them to any FI_RMA endpoint). */
Test(uet_rmaevent, without_fi_rma_event_too)
{
	struct fid_mr *mr = t_reg();
	struct fid_ep *plain;

	t.info->caps &= ~FI_RMA_EVENT;
	cr_assert_eq(fi_endpoint(t.domain, t.info, &plain, NULL), 0);
	cr_assert_eq(fi_ep_bind(plain, &ep_rd->fid,
				FI_RECV | FI_REMOTE_READ | FI_REMOTE_WRITE),
		     0);
	uet_engine_ops.rma_done(t_ep(plain), &(struct ses_rma_event){
		.opcode = UET_SES_OP_READ,
		.rkey = container_of(mr, struct uet_mr, mr_fid)->rkey });
	cr_assert_eq(fi_cntr_read(ep_rd), 1);
	cr_assert_eq(fi_close(&plain->fid), 0);
	cr_assert_eq(fi_close(&mr->fid), 0);
}

Test(uet_rmaevent, region_bindings)
{
	struct fid_cntr *other = t_cntr();
	struct fid_mr *mr = t_reg();
	struct uet_mr *umr = container_of(mr, struct uet_mr, mr_fid);

	cr_assert_eq(fi_mr_bind(mr, &mr_wr->fid, 0), -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_bind(mr, &mr_wr->fid, FI_REMOTE_WRITE | FI_WRITE),
		     -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_bind(mr, &mr_wr->fid, FI_REMOTE_WRITE), 0);
	cr_assert_eq(fi_mr_bind(mr, &mr_rd->fid, FI_REMOTE_READ), 0);
	cr_assert_eq(fi_mr_bind(mr, &mr_rd->fid, FI_REMOTE_READ), 0);
	cr_assert_eq(t_dom(t.domain)->mr_cntr_cnt, 2);
	/* Either kind bound to another counter: nothing changes. */
	cr_assert_eq(fi_mr_bind(mr, &other->fid,
				FI_REMOTE_WRITE | FI_REMOTE_READ), -FI_EINVAL);
	cr_assert_eq(umr->write_cntr, container_of(mr_wr, struct uet_cntr,
						   cntr_fid));
	/* A counter closed first lets go of the region. */
	cr_assert_eq(fi_close(&mr_rd->fid), 0);
	cr_assert_null(umr->read_cntr);
	cr_assert_eq(t_dom(t.domain)->mr_cntr_cnt, 1);
	/* A region closed first lets go of its counters (fi_cntr(3)). */
	cr_assert_eq(fi_close(&mr->fid), 0);
	cr_assert_eq(t_dom(t.domain)->mr_cntr_cnt, 0);
	cr_assert_eq(fi_close(&mr_wr->fid), 0);
	mr_rd = t_cntr();
	mr_wr = t_cntr();
	/* One counter for both kinds. */
	mr = t_reg();
	cr_assert_eq(fi_mr_bind(mr, &other->fid,
				FI_REMOTE_WRITE | FI_REMOTE_READ), 0);
	cr_assert_eq(t_dom(t.domain)->mr_cntr_cnt, 2);
	cr_assert_eq(fi_close(&other->fid), 0);
	cr_assert_eq(t_dom(t.domain)->mr_cntr_cnt, 0);
	cr_assert_eq(fi_close(&mr->fid), 0);
}

Test(uet_rmaevent, each_operation_counts_once_by_its_kind)
{
	struct fid_mr *mr = t_reg(), *quiet = t_reg();

	cr_assert_eq(fi_ep_bind(ep, &ep_wr->fid, FI_REMOTE_WRITE), 0);
	cr_assert_eq(fi_ep_bind(ep, &ep_rd->fid, FI_REMOTE_READ), 0);
	cr_assert_eq(fi_mr_bind(mr, &mr_wr->fid, FI_REMOTE_WRITE), 0);
	cr_assert_eq(fi_mr_bind(mr, &mr_rd->fid, FI_REMOTE_READ), 0);
	for (int i = 0; i < 3; i++)
		t_event(mr, UET_SES_OP_WRITE, 0);
	for (int i = 0; i < 2; i++)
		t_event(mr, UET_SES_OP_READ, 0);
	t_event(mr, UET_SES_OP_ATOMIC, UET_SES_AMO_SUM);
	t_event(mr, UET_SES_OP_FETCHING_ATOMIC, UET_SES_AMO_SUM);
	t_event(mr, UET_SES_OP_FETCHING_ATOMIC, UET_SES_AMO_CSWAP);
	t_event(mr, UET_SES_OP_FETCHING_ATOMIC, UET_SES_AMO_READ);
	/* The endpoint: writes and base atomics; reads, fetch, compare. */
	cr_assert_eq(fi_cntr_read(ep_wr), 3 + 1);
	cr_assert_eq(fi_cntr_read(ep_rd), 2 + 3);
	/* The region: what modifies it; what reads it. */
	cr_assert_eq(fi_cntr_read(mr_wr), 3 + 1 + 2);
	cr_assert_eq(fi_cntr_read(mr_rd), 2 + 3);
	/* Another region without counters: only the endpoint's move. */
	t_event(quiet, UET_SES_OP_WRITE, 0);
	t_event(quiet, UET_SES_OP_READ, 0);
	cr_assert_eq(fi_cntr_read(ep_wr), 5);
	cr_assert_eq(fi_cntr_read(ep_rd), 6);
	cr_assert_eq(fi_cntr_read(mr_wr), 6);
	cr_assert_eq(fi_cntr_read(mr_rd), 5);
	/* Successes only: no error was counted. */
	cr_assert_eq(fi_cntr_readerr(ep_wr) + fi_cntr_readerr(ep_rd) +
		     fi_cntr_readerr(mr_wr) + fi_cntr_readerr(mr_rd), 0);
	cr_assert_eq(fi_close(&ep->fid), 0);
	cr_assert_eq(fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	cr_assert_eq(fi_close(&mr_wr->fid), 0);
	cr_assert_eq(fi_close(&mr_rd->fid), 0);
	mr_wr = t_cntr();
	mr_rd = t_cntr();
	cr_assert_eq(fi_close(&mr->fid), 0);
	cr_assert_eq(fi_close(&quiet->fid), 0);
}

/* Remote CQ data still comes with the counting. */
Test(uet_rmaevent, remote_cq_data_beside_the_counters)
{
	struct fi_cq_attr cqattr = { .format = FI_CQ_FORMAT_DATA };
	struct fid_mr *mr = t_reg();
	struct ses_rma_event ev = {
		.opcode = UET_SES_OP_WRITE, .len = 16, .offset = 8, .hd = true,
		.header_data = 77,
		.rkey = container_of(mr, struct uet_mr, mr_fid)->rkey,
	};
	struct fi_cq_data_entry e;
	struct fid_cq *cq;

	cr_assert_eq(fi_cq_open(t.domain, &cqattr, &cq, NULL), 0);
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_RECV), 0);
	cr_assert_eq(fi_mr_bind(mr, &mr_wr->fid, FI_REMOTE_WRITE), 0);
	uet_engine_ops.rma_done(t_ep(ep), &ev);
	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	cr_assert_eq(e.data, 77);
	cr_assert_eq(e.buf, buf + 8);
	cr_assert_eq(fi_cntr_read(mr_wr), 1);
	cr_assert_eq(fi_close(&ep->fid), 0);
	cr_assert_eq(fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	cr_assert_eq(fi_close(&cq->fid), 0);
	cr_assert_eq(fi_close(&mr_wr->fid), 0);
	mr_wr = t_cntr();
	cr_assert_eq(fi_close(&mr->fid), 0);
}
