/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Atomics with no engine: fi_query_atomic and the *valid calls agree with
 * what the target executes; bad calls change nothing; completions and
 * counters of atomics (FI_ATOMIC | FI_WRITE counted as writes, fetching
 * ones as reads).
 */
#include <errno.h>
#include <rdma/fi_atomic.h>

#include "t_fi.h"

static struct t_fi t;
static struct fid_ep *ep;
static struct fid_cq *cq;
static struct fid_cntr *cntr;

static void t_setup(void)
{
	struct fi_cq_attr cqattr = { .format = FI_CQ_FORMAT_DATA };
	struct fi_cntr_attr cattr = { .events = FI_CNTR_EVENTS_COMP };

	t_fi_open(&t, FI_MR_PROV_KEY);
	cr_assert_eq(fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	cr_assert_eq(fi_cq_open(t.domain, &cqattr, &cq, NULL), 0);
	cr_assert_eq(fi_cntr_open(t.domain, &cattr, &cntr, NULL), 0);
}

static void t_teardown(void)
{
	cr_assert_eq(fi_close(&ep->fid), 0);
	cr_assert_eq(fi_close(&cntr->fid), 0);
	cr_assert_eq(fi_close(&cq->fid), 0);
	t_fi_close(&t);
}

TestSuite(uet_atomic, .init = t_setup, .fini = t_teardown);

Test(uet_atomic, query_is_honest)
{
	struct fi_atomic_attr attr;
	size_t count;

	cr_assert_eq(fi_query_atomic(t.domain, FI_UINT64, FI_SUM, &attr, 0),
		     0);
	cr_assert_eq(attr.size, 8);
	cr_assert_eq(attr.count, 128);		/* 1 KiB, one packet */
	cr_assert_eq(fi_query_atomic(t.domain, FI_INT8, FI_ATOMIC_READ, &attr,
				     FI_FETCH_ATOMIC), 0);
	cr_assert_eq(attr.size, 1);
	cr_assert_eq(fi_query_atomic(t.domain, FI_DOUBLE, FI_CSWAP_GE, &attr,
				     FI_COMPARE_ATOMIC), 0);
	cr_assert_eq(attr.count, 1);
	/* Not served, or not with that call. */
	cr_assert_eq(fi_query_atomic(t.domain, FI_FLOAT, FI_BXOR, &attr, 0),
		     -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(t.domain, FI_UINT64, FI_MSWAP, &attr,
				     FI_COMPARE_ATOMIC), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(t.domain, FI_LONG_DOUBLE, FI_SUM, &attr,
				     0), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(t.domain, FI_UINT128, FI_SUM, &attr, 0),
		     -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(t.domain, FI_UINT64, FI_ATOMIC_READ,
				     &attr, 0), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(t.domain, FI_UINT64, FI_CSWAP, &attr,
				     FI_FETCH_ATOMIC), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(t.domain, FI_UINT64, FI_SUM, &attr,
				     FI_TAGGED), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(t.domain, FI_UINT64, FI_SUM, NULL, 0),
		     -FI_EINVAL);
	cr_assert_eq(fi_atomicvalid(ep, FI_INT32, FI_LXOR, &count), 0);
	cr_assert_eq(count, 256);
	cr_assert_eq(fi_fetch_atomicvalid(ep, FI_FLOAT, FI_MAX, &count), 0);
	cr_assert_eq(fi_compare_atomicvalid(ep, FI_INT16, FI_CSWAP_LT, &count),
		     0);
	cr_assert_eq(count, 1);
	cr_assert_eq(fi_compare_atomicvalid(ep, FI_INT16, FI_SUM, &count),
		     -FI_EOPNOTSUPP);
}

Test(uet_atomic, bad_calls_change_nothing)
{
	uint64_t buf[256] = { 0 }, res[256], cmp = 0;
	struct fi_ioc iov = { buf, 1 };
	struct fi_rma_ioc rma = { 0, 1, 1 };
	struct fi_msg_atomic m = {
		.msg_iov = &iov, .iov_count = 1, .rma_iov = &rma,
		.rma_iov_count = 1, .datatype = FI_UINT64, .op = FI_SUM,
	};

	cr_assert_eq(fi_atomic(ep, buf, 1, NULL, 0, 0, 1, FI_FLOAT, FI_BOR,
			       NULL), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_atomic(ep, buf, 1, NULL, 0, 0, 1, FI_UINT64,
			       FI_ATOMIC_READ, NULL), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_atomic(ep, buf, 0, NULL, 0, 0, 1, FI_UINT64, FI_SUM,
			       NULL), -FI_EINVAL);
	cr_assert_eq(fi_atomic(ep, buf, 129, NULL, 0, 0, 1, FI_UINT64, FI_SUM,
			       NULL), -FI_EINVAL);	/* over 1 KiB */
	cr_assert_eq(fi_inject_atomic(ep, buf, 9, 0, 0, 1, FI_UINT64, FI_SUM),
		     -FI_EINVAL);		/* over inject_size */
	cr_assert_eq(fi_compare_atomic(ep, buf, 2, NULL, &cmp, NULL, res, NULL,
				       0, 0, 1, FI_UINT64, FI_CSWAP, NULL),
		     -FI_EINVAL);		/* one element */
	cr_assert_eq(fi_compare_atomic(ep, buf, 1, NULL, &cmp, NULL, res, NULL,
				       0, 0, 1, FI_UINT64, FI_MSWAP, NULL),
		     -FI_EOPNOTSUPP);
	cr_assert_eq(fi_atomicmsg(ep, &m, FI_REMOTE_CQ_DATA), -FI_EBADFLAGS);
	rma.count = 2;				/* differs from the local */
	cr_assert_eq(fi_atomicmsg(ep, &m, 0), -FI_EINVAL);
	rma.count = 1;
	m.rma_iov_count = 2;
	cr_assert_eq(fi_atomicmsg(ep, &m, 0), -FI_EINVAL);
	cr_assert_eq(fi_atomicmsg(ep, NULL, 0), -FI_EINVAL);
	/* Well-formed, but the endpoint is not enabled. */
	cr_assert_eq(fi_atomic(ep, buf, 1, NULL, 0, 0, 1, FI_UINT64, FI_SUM,
			       NULL), -FI_EOPBADSTATE);
	cr_assert_eq(fi_fetch_atomic(ep, NULL, 4, NULL, res, NULL, 0, 0, 1,
				     FI_UINT64, FI_ATOMIC_READ, NULL),
		     -FI_EOPBADSTATE);
	cr_assert_eq(ep->ops->tx_size_left(ep), UET_TX_SIZE);
}

static void t_done(void *context, uint64_t flags, int status)
{
	struct uet_ep *e = t_ep(ep);
	struct uet_op *op = container_of(e->free_ops.next, struct uet_op,
					 link);
	struct ses_tx_cpl cpl = { .status = status };

	uet_list_del(&op->link);
	op->context = context;
	op->cq_flags = flags;
	op->len = 8;
	op->want_cq = true;
	op->wre.user_ctx = op;
	e->outstanding++;
	uet_engine_ops.tx_done(e, &op->wre, &cpl);
}

Test(uet_atomic, completions_count_as_writes_and_reads)
{
	struct fid_cntr *rd;
	struct fi_cntr_attr cattr = { .events = FI_CNTR_EVENTS_COMP };
	struct fi_cq_data_entry e;
	int ctx;

	cr_assert_eq(fi_cntr_open(t.domain, &cattr, &rd, NULL), 0);
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT), 0);
	cr_assert_eq(fi_ep_bind(ep, &cntr->fid, FI_WRITE), 0);
	cr_assert_eq(fi_ep_bind(ep, &rd->fid, FI_READ), 0);
	t_done(&ctx, FI_ATOMIC | FI_WRITE, 0);
	t_done(&ctx, FI_ATOMIC | FI_READ, 0);
	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	cr_assert_eq(e.flags, FI_ATOMIC | FI_WRITE);
	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	cr_assert_eq(e.flags, FI_ATOMIC | FI_READ);
	cr_assert_eq(fi_cntr_read(cntr), 1);
	cr_assert_eq(fi_cntr_read(rd), 1);
	cr_assert_eq(fi_close(&ep->fid), 0);
	cr_assert_eq(fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	cr_assert_eq(fi_close(&rd->fid), 0);
}
