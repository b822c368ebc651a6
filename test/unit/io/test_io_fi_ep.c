/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RDM endpoints with no engine: bindings and the -FI_EBUSY they cause,
 * names, options, bad RMA calls that change nothing, the slots we do not
 * serve, and what the engine's upcalls turn into (completions, error
 * completions with the UET return code, remote CQ data, counters).
 */
#include <errno.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_tagged.h>

#include "t_fi.h"

static struct t_fi t;
static struct fid_ep *ep;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_cntr *cntr;

static void t_setup(void)
{
	struct fi_av_attr avattr = { .type = FI_AV_TABLE };
	struct fi_cq_attr cqattr = { .format = FI_CQ_FORMAT_DATA };
	struct fi_cntr_attr cattr = { .events = FI_CNTR_EVENTS_COMP };

	t_fi_open(&t, FI_MR_PROV_KEY);
	cr_assert_eq(fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	cr_assert_eq(fi_av_open(t.domain, &avattr, &av, NULL), 0);
	cr_assert_eq(fi_cq_open(t.domain, &cqattr, &cq, NULL), 0);
	cr_assert_eq(fi_cntr_open(t.domain, &cattr, &cntr, NULL), 0);
}

static void t_teardown(void)
{
	if (ep)
		cr_assert_eq(fi_close(&ep->fid), 0);
	cr_assert_eq(fi_close(&cntr->fid), 0);
	cr_assert_eq(fi_close(&cq->fid), 0);
	cr_assert_eq(fi_close(&av->fid), 0);
	t_fi_close(&t);
}

TestSuite(uet_ep, .init = t_setup, .fini = t_teardown);

Test(uet_ep, bound_objects_stay_open)
{
	cr_assert_eq(fi_ep_bind(ep, &av->fid, 0), 0);
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV), 0);
	cr_assert_eq(fi_ep_bind(ep, &cntr->fid, FI_WRITE | FI_READ), 0);
	cr_assert_eq(fi_close(&cq->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&cntr->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&av->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&t.domain->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&t.fabric->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&ep->fid), 0);
	ep = NULL;
}

Test(uet_ep, bad_bindings_change_nothing)
{
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, 0), -FI_EBADFLAGS);
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_REMOTE_WRITE),
		     -FI_EBADFLAGS);
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT), 0);
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV),
		     -FI_EINVAL);
	cr_assert_null(t_ep(ep)->rx_cq);
	cr_assert_eq(fi_ep_bind(ep, &cntr->fid, FI_WRITE), 0);
	cr_assert_eq(fi_ep_bind(ep, &cntr->fid, FI_WRITE | FI_READ),
		     -FI_EINVAL);
	cr_assert_null(t_ep(ep)->cntr[UET_CNTR_READ]);
	cr_assert_eq(fi_ep_bind(ep, &av->fid, 1), -FI_EBADFLAGS);
	cr_assert_eq(fi_ep_bind(ep, &t.domain->fid, 0), -FI_EINVAL);
}

Test(uet_ep, enable_needs_an_av)
{
	cr_assert_eq(fi_enable(ep), -FI_ENOAV);
}

Test(uet_ep, names)
{
	uint8_t name[UET_ADDR_LEN], small[4];
	size_t len = sizeof(name);
	struct uet_addr a;

	cr_assert_eq(fi_getname(&ep->fid, name, &len), 0);
	cr_assert_eq(len, UET_ADDR_LEN);
	cr_assert_eq(uet_addr_decode(&a, name, len), UET_ADDR_LEN);
	cr_assert_eq(a.pid_on_fep, 3);		/* the service */
	/* FI_UET_RUDI is auto unless set: RUDI served and advertised. */
	cr_assert_eq(a.fep_caps, UET_ADDR_CAP_RMA | UET_ADDR_CAP_MSG |
				 UET_ADDR_CAP_TAGGED | UET_ADDR_CAP_RUDI);
	len = sizeof(small);
	cr_assert_eq(fi_getname(&ep->fid, small, &len), -FI_ETOOSMALL);
	cr_assert_eq(len, UET_ADDR_LEN);
	a.pid_on_fep = 9;
	cr_assert_eq(uet_addr_encode(name, sizeof(name), &a), UET_ADDR_LEN);
	cr_assert_eq(fi_setname(&ep->fid, name, sizeof(name)), 0);
	len = sizeof(name);
	cr_assert_eq(fi_getname(&ep->fid, name, &len), 0);
	cr_assert_eq(uet_addr_decode(&a, name, len), UET_ADDR_LEN);
	cr_assert_eq(a.pid_on_fep, 9);
	cr_assert_eq(fi_setname(&ep->fid, name, 3), -FI_EINVAL);
	a.fa.v4.s_addr ^= 1;	/* not our interface */
	uet_addr_encode(name, sizeof(name), &a);
	cr_assert_eq(fi_setname(&ep->fid, name, sizeof(name)), -FI_EINVAL);
}

Test(uet_ep, options_and_sizes)
{
	uint64_t flags = FI_TRANSMIT;
	size_t len = sizeof(int), v = 0, big = 4096;

	cr_assert_eq(fi_getopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
			       &v, &len), -FI_ETOOSMALL);
	cr_assert_eq(len, sizeof(size_t));
	cr_assert_eq(fi_getopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
			       &v, &len), 0);
	cr_assert_eq(v, UET_MIN_MULTI_RECV);
	cr_assert_eq(fi_setopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
			       &big, sizeof(int)), -FI_EINVAL);
	cr_assert_eq(fi_setopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
			       &big, sizeof(big)), 0);
	cr_assert_eq(fi_getopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
			       &v, &len), 0);
	cr_assert_eq(v, 4096);
	cr_assert_eq(fi_getopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_SIZE,
			       &v, &len), -FI_ENOPROTOOPT);
	cr_assert_eq(ep->ops->tx_size_left(ep), UET_TX_SIZE);
	cr_assert_eq(ep->ops->rx_size_left(ep), UET_RX_SIZE);
	cr_assert_eq(fi_control(&ep->fid, FI_GETOPSFLAG, &flags), 0);
	cr_assert_eq(flags, FI_TRANSMIT_COMPLETE);	/* fi_getinfo's */
	flags = FI_TRANSMIT | FI_DELIVERY_COMPLETE;
	cr_assert_eq(fi_control(&ep->fid, FI_SETOPSFLAG, &flags), 0);
	cr_assert_eq(t_ep(ep)->tx_op_flags, FI_DELIVERY_COMPLETE);
	flags = FI_TRANSMIT | FI_TRIGGER;
	cr_assert_eq(fi_control(&ep->fid, FI_SETOPSFLAG, &flags),
		     -FI_EBADFLAGS);
	cr_assert_eq(fi_cancel(&ep->fid, &t), -FI_ENOENT);
}

Test(uet_ep, bad_rma_calls_change_nothing)
{
	struct iovec iov[SES_IOV_MAX + 1];
	struct fi_rma_iov rma = { .addr = 0, .len = 8, .key = 1 };
	struct fi_msg_rma msg = { .msg_iov = iov, .iov_count = 1,
				  .rma_iov = &rma, .rma_iov_count = 1 };
	uint8_t buf[128];

	for (int i = 0; i <= SES_IOV_MAX; i++)
		iov[i] = (struct iovec){ buf, 8 };
	cr_assert_eq(fi_writemsg(ep, &msg, FI_TRIGGER), -FI_EBADFLAGS);
	msg.iov_count = SES_IOV_MAX + 1;
	cr_assert_eq(fi_writemsg(ep, &msg, 0), -FI_EINVAL);
	msg.iov_count = 1;
	rma.len = 9;		/* differs from the local length */
	cr_assert_eq(fi_writemsg(ep, &msg, 0), -FI_EINVAL);
	rma.len = 8;
	msg.rma_iov_count = 2;
	cr_assert_eq(fi_writemsg(ep, &msg, 0), -FI_EINVAL);
	msg.rma_iov_count = 1;
	cr_assert_eq(fi_readmsg(ep, &msg, FI_REMOTE_CQ_DATA), -FI_EINVAL);
	cr_assert_eq(fi_readmsg(ep, &msg, FI_INJECT), -FI_EINVAL);
	cr_assert_eq(fi_inject_write(ep, buf, UET_INJECT_SIZE + 1, 0, 0, 1),
		     -FI_EINVAL);
	cr_assert_eq(fi_write(ep, NULL, 8, NULL, 0, 0, 1, NULL), -FI_EINVAL);
	/* Well-formed, but the endpoint is not enabled. */
	cr_assert_eq(fi_write(ep, buf, 8, NULL, 0, 0, 1, NULL),
		     -FI_EOPBADSTATE);
	cr_assert_eq(fi_read(ep, buf, 8, NULL, 0, 0, 1, NULL),
		     -FI_EOPBADSTATE);
	cr_assert_eq(ep->ops->tx_size_left(ep), UET_TX_SIZE);
}

Test(uet_ep, unserved_slots_say_enosys)
{
	uint8_t buf[8] = { 0 };

	cr_assert_eq(fi_barrier(ep, 0, NULL), -FI_ENOSYS);
	cr_assert_eq(fi_connect(ep, buf, NULL, 0), -FI_ENOSYS);
	cr_assert_eq(fi_shutdown(ep, 0), -FI_ENOSYS);
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT), 0);
	cr_assert_eq(fi_control(&cq->fid, FI_GETOPSFLAG, buf), -FI_ENOSYS);
	/* FI_WAIT_NONE (test_io_fi_wait.c has the others). */
	cr_assert_eq(fi_control(&cq->fid, FI_GETWAIT, buf), -FI_ENODATA);
}

/* ---- the engine's upcalls, driven by hand ---------------------------------- */
static struct uet_op *t_op(void *context, uint64_t flags, bool want_cq)
{
	struct uet_ep *e = t_ep(ep);
	struct uet_op *op = container_of(e->free_ops.next, struct uet_op,
					 link);

	uet_list_del(&op->link);
	op->context = context;
	op->cq_flags = flags;
	op->len = 8;
	op->want_cq = want_cq;
	op->wre.user_ctx = op;
	e->outstanding++;
	return op;
}

static void t_done(struct uet_op *op, int status, uint8_t rc)
{
	struct ses_tx_cpl cpl = { .status = status, .rc = rc };

	uet_engine_ops.tx_done(t_ep(ep), &op->wre, &cpl);
}

Test(uet_ep, completions_and_counters)
{
	struct fi_cq_data_entry e;
	int ctx;

	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT |
				FI_SELECTIVE_COMPLETION), 0);
	cr_assert_eq(fi_ep_bind(ep, &cntr->fid, FI_WRITE), 0);
	t_done(t_op(&ctx, FI_RMA | FI_WRITE, true), 0, UET_SES_RC_OK);
	t_done(t_op(&ctx, FI_RMA | FI_WRITE, false), 0, UET_SES_RC_OK);
	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	cr_assert_eq(e.op_context, &ctx);
	cr_assert_eq(e.flags, FI_RMA | FI_WRITE);
	cr_assert_eq(fi_cq_read(cq, &e, 1), -FI_EAGAIN);
	cr_assert_eq(fi_cntr_read(cntr), 2);
	cr_assert_eq(ep->ops->tx_size_left(ep), UET_TX_SIZE);
}

Test(uet_ep, errors_carry_the_uet_code)
{
	struct fi_cq_err_entry err = { 0 };
	struct fi_cq_data_entry e;
	int ctx;

	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT |
				FI_SELECTIVE_COMPLETION), 0);
	cr_assert_eq(fi_ep_bind(ep, &cntr->fid, FI_READ), 0);
	/* Reported even though no completion was asked for. */
	t_done(t_op(&ctx, FI_RMA | FI_READ, false), -EREMOTEIO,
	       UET_SES_RC_BAD_MKEY);
	cr_assert_eq(fi_cq_read(cq, &e, 1), -FI_EAVAIL);
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_eq(err.op_context, &ctx);
	cr_assert_eq(err.flags, FI_RMA | FI_READ);
	cr_assert_eq(err.err, FI_EKEYREJECTED);
	cr_assert_eq(err.prov_errno, UET_SES_RC_BAD_MKEY);
	cr_assert_eq(fi_cntr_readerr(cntr), 1);
	cr_assert_eq(fi_cntr_read(cntr), 0);
	/* A peer that died: minus the local errno, no UET code. */
	t_done(t_op(&ctx, FI_RMA | FI_WRITE, true), -ETIMEDOUT, 0);
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_eq(err.err, FI_ETIMEDOUT);
	cr_assert_eq(err.prov_errno, -ETIMEDOUT);
}

Test(uet_ep, return_codes_map_to_errnos)
{
	cr_assert_eq(uet_fi_errno(-EREMOTEIO, UET_SES_RC_BAD_ADDR), FI_EACCES);
	cr_assert_eq(uet_fi_errno(-EREMOTEIO, UET_SES_RC_PERM_VIOLATION),
		     FI_EACCES);
	cr_assert_eq(uet_fi_errno(-EREMOTEIO, UET_SES_RC_BAD_MKEY),
		     FI_EKEYREJECTED);
	cr_assert_eq(uet_fi_errno(-EREMOTEIO, UET_SES_RC_BAD_INDEX),
		     FI_EADDRNOTAVAIL);
	cr_assert_eq(uet_fi_errno(-EREMOTEIO, UET_SES_RC_BAD_JOB_ID),
		     FI_EACCES);
	cr_assert_eq(uet_fi_errno(-EREMOTEIO, UET_SES_RC_DROPPED),
		     FI_EREMOTEIO);
	cr_assert_eq(uet_fi_errno(-EREMOTEIO, 0x30), FI_EREMOTEIO);
	cr_assert_eq(uet_fi_errno(-ECONNRESET, 0), FI_ECONNRESET);
	cr_assert_eq(uet_fi_errno(-ECANCELED, 0), FI_ECANCELED);
}

Test(uet_ep, remote_cq_data_and_remote_counters)
{
	struct fid_mr *mr;
	static uint8_t buf[256];
	struct ses_rma_event ev = { .opcode = UET_SES_OP_WRITE, .len = 16,
				    .offset = 32, .hd = true,
				    .header_data = 0xB0CE7 };
	struct fi_cq_data_entry e;

	cr_assert_eq(fi_mr_reg(t.domain, buf, sizeof(buf), FI_REMOTE_WRITE, 0,
			       0, 0, &mr, NULL), 0);
	ev.rkey = container_of(mr, struct uet_mr, mr_fid)->rkey;
	cr_assert_eq(fi_ep_bind(ep, &cq->fid, FI_RECV), 0);
	cr_assert_eq(fi_ep_bind(ep, &cntr->fid, FI_REMOTE_WRITE), 0);
	uet_engine_ops.rma_done(t_ep(ep), &ev);
	ev.hd = false;		/* counted, but no completion */
	uet_engine_ops.rma_done(t_ep(ep), &ev);
	cr_assert_eq(fi_cq_read(cq, &e, 2), 1);
	cr_assert_eq(e.flags, FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA);
	cr_assert_eq(e.data, 0xB0CE7);
	cr_assert_eq(e.len, 16);
	cr_assert_eq(e.buf, buf + 32);
	cr_assert_eq(fi_cntr_read(cntr), 2);
	cr_assert_eq(fi_close(&mr->fid), 0);
}
