/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Messaging with no engine: bad send and receive calls that change
 * nothing, and what the engine's recv_done upcall turns into (receive
 * completions, FI_ETRUNC with len and olen, FI_ECANCELED, the UET code,
 * FI_SELECTIVE_COMPLETION, the FI_MULTI_RECV release, counters).
 */
#include <errno.h>
#include <rdma/fi_tagged.h>

#include "t_fi.h"

static struct t_fi t;
static struct fid_ep *ep;
static struct fid_cq *cq;
static struct fid_cntr *cntr;

static void t_setup(void)
{
	struct fi_cq_attr cqattr = { .format = FI_CQ_FORMAT_TAGGED };
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

TestSuite(uet_msg, .init = t_setup, .fini = t_teardown);

Test(uet_msg, bad_calls_change_nothing)
{
	uint8_t buf[128] = { 0 };
	struct iovec iov[SES_IOV_MAX + 1] = {
		{ buf, 8 }, { buf + 8, 8 }, { buf + 16, 8 }, { buf + 24, 8 },
		{ buf + 32, 8 },
	};
	struct fi_msg m = { .msg_iov = iov, .iov_count = 1 };
	struct fi_msg_tagged tm = { .msg_iov = iov, .iov_count = 1 };

	cr_assert_eq(fi_sendv(ep, iov, NULL, SES_IOV_MAX + 1, 0, NULL),
		     -FI_EINVAL);
	cr_assert_eq(fi_send(ep, NULL, 8, NULL, 0, NULL), -FI_EINVAL);
	cr_assert_eq(fi_inject(ep, buf, UET_INJECT_SIZE + 1, 0), -FI_EINVAL);
	cr_assert_eq(fi_tinject(ep, buf, UET_INJECT_SIZE + 1, 0, 1),
		     -FI_EINVAL);
	cr_assert_eq(fi_sendmsg(ep, &m, FI_PEEK), -FI_EBADFLAGS);
	cr_assert_eq(fi_sendmsg(ep, NULL, 0), -FI_EINVAL);
	cr_assert_eq(fi_recvmsg(ep, &m, FI_PEEK), -FI_EBADFLAGS);
	cr_assert_eq(fi_recvmsg(ep, &m, FI_CLAIM), -FI_EBADFLAGS);
	cr_assert_eq(fi_trecvmsg(ep, &tm, FI_MULTI_RECV), -FI_EBADFLAGS);
	cr_assert_eq(fi_trecvmsg(ep, &tm, FI_DISCARD), -FI_EBADFLAGS);
	/* FI_CLAIM keeps its handle in the context: there must be one. */
	cr_assert_eq(fi_trecvmsg(ep, &tm, FI_CLAIM), -FI_EINVAL);
	m.iov_count = 2;
	cr_assert_eq(fi_recvmsg(ep, &m, FI_MULTI_RECV), -FI_EINVAL);
	cr_assert_eq(fi_recvv(ep, iov, NULL, SES_IOV_MAX + 1, FI_ADDR_UNSPEC,
			      NULL), -FI_EINVAL);
	/* Well-formed, but the endpoint is not enabled. */
	cr_assert_eq(fi_send(ep, buf, 8, NULL, 0, NULL), -FI_EOPBADSTATE);
	cr_assert_eq(fi_tsenddata(ep, buf, 8, NULL, 1, 0, 2, NULL),
		     -FI_EOPBADSTATE);
	cr_assert_eq(fi_tinject(ep, buf, UET_INJECT_SIZE, 0, 1),
		     -FI_EOPBADSTATE);
	cr_assert_eq(fi_recv(ep, buf, 8, NULL, FI_ADDR_UNSPEC, NULL),
		     -FI_EOPBADSTATE);
	cr_assert_eq(fi_trecv(ep, buf, 8, NULL, FI_ADDR_UNSPEC, 1, 0, NULL),
		     -FI_EOPBADSTATE);
	cr_assert_eq(fi_trecvmsg(ep, &tm, FI_PEEK), -FI_EOPBADSTATE);
	cr_assert_eq(fi_cancel(&ep->fid, buf), -FI_ENOENT);
	cr_assert_eq(ep->ops->tx_size_left(ep), UET_TX_SIZE);
	cr_assert_eq(ep->ops->rx_size_left(ep), UET_RX_SIZE);
}

/* ---- the recv_done upcall, driven by hand ------------------------------------- */
static uint8_t t_buf[256];

/* A receive as posted: context |ctx|, into t_buf. */
static struct uet_rx *t_rx(void *ctx, bool tagged, bool want_cq)
{
	struct uet_ep *e = t_ep(ep);
	struct uet_rx *rx = container_of(e->rx.free.next, struct uet_rx,
					 link);

	uet_list_del(&rx->link);
	memset(rx, 0, sizeof(*rx));
	rx->context = ctx;
	rx->tagged = tagged;
	rx->want_cq = want_cq;
	rx->iov[0] = (struct ses_iov){ .base = t_buf, .len = 64 };
	rx->iov_cnt = 1;
	uet_list_add_tail(&e->rx.posted, &rx->link);
	e->rx.used++;
	return rx;
}

static void t_recv_done(struct uet_rx *rx, int status, uint8_t rc,
			uint64_t len, uint64_t msg_len)
{
	struct ses_recv_cpl cpl = {
		.user_ctx = rx, .status = status, .rc = rc,
		.tagged = rx->tagged, .hd = true, .header_data = 0xDA7A,
		.tag = 0x77, .len = len, .msg_len = msg_len,
	};

	uet_engine_ops.recv_done(t_ep(ep), &cpl);
}

Test(uet_msg, receive_completions_and_errors)
{
	struct fi_cq_err_entry err = { 0 };
	struct fi_cq_tagged_entry e;
	int ctx;

	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_RECV), 0);
	cr_assert_eq(fi_ep_bind(ep, &cntr->fid, FI_RECV), 0);
	t_recv_done(t_rx(&ctx, true, true), 0, UET_SES_RC_OK, 10, 10);
	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	cr_assert_eq(e.op_context, &ctx);
	cr_assert_eq(e.flags, FI_RECV | FI_TAGGED | FI_REMOTE_CQ_DATA);
	cr_assert_eq(e.len, 10);
	cr_assert_eq(e.buf, t_buf);
	cr_assert_eq(e.tag, 0x77);
	cr_assert_eq(e.data, 0xDA7A);
	cr_assert_eq(fi_cntr_read(cntr), 1);
	/* Truncated: len is what was placed, olen what was not. */
	t_recv_done(t_rx(&ctx, false, true), -EMSGSIZE, UET_SES_RC_OK, 64,
		    100);
	cr_assert_eq(fi_cq_read(cq, &e, 1), -FI_EAVAIL);
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_eq(err.err, FI_ETRUNC);
	cr_assert_eq(err.len, 64);
	cr_assert_eq(err.olen, 36);
	cr_assert_eq(err.flags, FI_RECV | FI_MSG | FI_REMOTE_CQ_DATA);
	cr_assert_eq(fi_cntr_readerr(cntr), 1);
	/* Cancelled: reported, not counted. */
	t_recv_done(t_rx(&ctx, true, true), -ECANCELED, UET_SES_RC_NULL, 0, 0);
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_eq(err.err, FI_ECANCELED);
	cr_assert_eq(err.op_context, &ctx);
	cr_assert_eq(fi_cntr_readerr(cntr), 1);
	/* A rendezvous pull the sender refused: its UET code. */
	t_recv_done(t_rx(&ctx, true, true), -EIO, UET_SES_RC_BAD_MKEY, 0, 9000);
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_eq(err.err, FI_EKEYREJECTED);
	cr_assert_eq(err.prov_errno, UET_SES_RC_BAD_MKEY);
	cr_assert_eq(fi_cntr_readerr(cntr), 2);
	cr_assert_eq(ep->ops->rx_size_left(ep), UET_RX_SIZE);
}

Test(uet_msg, selective_completion_and_multi_recv_release)
{
	struct fi_cq_tagged_entry e;
	struct uet_rx *rx;
	int ctx;

	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_RECV |
				FI_SELECTIVE_COMPLETION), 0);
	cr_assert_eq(fi_ep_bind(ep, &cntr->fid, FI_RECV), 0);
	t_recv_done(t_rx(&ctx, false, false), 0, UET_SES_RC_OK, 8, 8);
	cr_assert_eq(fi_cq_read(cq, &e, 1), -FI_EAGAIN);
	cr_assert_eq(fi_cntr_read(cntr), 1);
	/* Less than the minimum left: released, and always reported. */
	rx = t_rx(&ctx, false, false);
	rx->multi = true;
	rx->base = t_buf;
	rx->len = sizeof(t_buf);
	rx->off = 200;
	rx->min_left = 64;
	rx->iov[0] = (struct ses_iov){ .base = t_buf + 200, .len = 56 };
	t_recv_done(rx, 0, UET_SES_RC_OK, 20, 20);
	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	cr_assert_eq(e.flags, FI_RECV | FI_MSG | FI_REMOTE_CQ_DATA |
			      FI_MULTI_RECV);
	cr_assert_eq(e.buf, t_buf + 200);
	cr_assert_eq(e.len, 20);
	cr_assert_eq(fi_cntr_read(cntr), 2);
	cr_assert_eq(ep->ops->rx_size_left(ep), UET_RX_SIZE);
}
