/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_ops_tagged: tagged sends and receives (tag and ignore bits are SES's
 * match bits), and the receive flags only tagged receives have: FI_PEEK
 * looks at the unexpected queue and answers through the CQ (FI_ENOMSG
 * when nothing matches), FI_CLAIM reserves what it found for a later
 * FI_CLAIM receive with the same struct fi_context, FI_DISCARD drops it.
 */
#include <errno.h>

#include "uet/uet.h"

#define UET_PEEK_FLAGS	(FI_PEEK | FI_CLAIM | FI_DISCARD)

static struct uet_ep *uet_tagged_ep(struct fid_ep *ep_fid)
{
	return container_of(ep_fid, struct uet_ep, ep_fid);
}

/* The claim handle lives in the application's struct fi_context. */
static uint64_t uet_claim_get(void *context)
{
	return (uint64_t)(uintptr_t)((struct fi_context *)context)->internal[0];
}

static void uet_claim_set(void *context, uint64_t handle)
{
	((struct fi_context *)context)->internal[0] = (void *)(uintptr_t)handle;
}

static void uet_peek_write(struct uet_ep *ep, const struct uet_recv_req *r,
			   const struct ses_recv_info *info, uint64_t len)
{
	struct uet_cq_entry e = {
		.op_context = r->context,
		.flags = FI_RECV | FI_TAGGED |
			 (info->hd ? FI_REMOTE_CQ_DATA : 0),
		.len = len, .data = info->header_data, .tag = info->tag,
		.src = uet_msg_src(ep, info->peer, info->initiator),
	};

	uet_cq_write(ep->rx_cq, &e);
}

/* FI_PEEK, with FI_CLAIM or FI_DISCARD: the answer is a completion. */
static ssize_t uet_tagged_peek(struct uet_ep *ep, const struct uet_recv_req *r)
{
	struct uet_recv_req chk = *r;
	struct ses_recv_attr a = { .tag = r->tag, .ignore = r->ignore,
				   .flags = SES_RECV_F_TAGGED };
	struct fi_cq_err_entry err;
	struct ses_recv_info info;
	struct ses *s;
	int ret;

	chk.flags &= ~UET_PEEK_FLAGS;
	chk.iov_cnt = 0;
	ret = uet_msg_recv_check(ep, &chk, &a.initiator);
	if (!ret && ((r->flags & FI_CLAIM) && !r->context))
		ret = -FI_EINVAL;
	if (!ret && !ep->rx_cq)
		ret = -FI_ENOCQ;
	if (ret)
		return ret;
	s = uet_engine_ses(ep->eng);
	uet_domain_progress(ep->dom);	/* what arrived meanwhile counts */
	ret = ses_recv_peek(s, &a, r->flags & (FI_CLAIM | FI_DISCARD), &info);
	if (ret) {
		err = (struct fi_cq_err_entry){
			.op_context = r->context, .flags = FI_RECV | FI_TAGGED,
			.tag = r->tag, .err = FI_ENOMSG };
		uet_cq_write_err(ep->rx_cq, &err);
		return 0;
	}
	if (r->flags & FI_DISCARD)
		ses_recv_discard(s, info.handle);
	else if (r->flags & FI_CLAIM)
		uet_claim_set(r->context, info.handle);
	uet_peek_write(ep, r, &info, info.msg_len);
	return 0;
}

/* FI_CLAIM | FI_DISCARD: drops a claimed message, and says so. */
static ssize_t uet_tagged_discard(struct uet_ep *ep,
				  const struct uet_recv_req *r)
{
	struct ses_recv_info info = { .tag = r->tag };

	if (!r->context || (r->flags & ~(UET_PEEK_FLAGS | FI_COMPLETION |
					 FI_MORE | FI_TAGGED | FI_RECV)))
		return r->context ? -FI_EBADFLAGS : -FI_EINVAL;
	if (!ep->eng)
		return -FI_EOPBADSTATE;
	if (!ep->rx_cq)
		return -FI_ENOCQ;
	if (ses_recv_discard(uet_engine_ses(ep->eng),
			     uet_claim_get(r->context)))
		return -FI_EINVAL;	/* not claimed, or gone */
	uet_peek_write(ep, r, &info, 0);
	return 0;
}

static ssize_t uet_tagged_recv_post(struct uet_ep *ep,
				    const struct uet_recv_req *r)
{
	struct uet_recv_req c = *r;
	ssize_t ret;

	if (!(r->flags & (FI_PEEK | FI_CLAIM)))
		return uet_msg_recv_post(ep, r);
	if (!(r->flags & FI_PEEK) && !(r->flags & FI_DISCARD)) {
		if (!r->context)
			return -FI_EINVAL;
		c.flags &= ~FI_CLAIM;
		c.claim = true;
		c.handle = uet_claim_get(r->context);
		return uet_msg_recv_post(ep, &c);
	}
	uet_domain_lock(ep->dom);
	ret = r->flags & FI_PEEK ? uet_tagged_peek(ep, r) :
				   uet_tagged_discard(ep, r);
	uet_domain_unlock(ep->dom);
	return ret;
}

/* ---- the fi_ops_tagged entry points ------------------------------------------ */
static ssize_t uet_tagged_recvv(struct fid_ep *ep_fid, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t src_addr,
				uint64_t tag, uint64_t ignore, void *context)
{
	struct uet_ep *ep = uet_tagged_ep(ep_fid);
	struct uet_recv_req r = {
		.iov = iov, .iov_cnt = count, .src = src_addr, .tag = tag,
		.ignore = ignore, .context = context, .tagged = true,
		/* FI_MULTI_RECV in the op_flags is for untagged receives. */
		.flags = ep->rx_op_flags & ~FI_MULTI_RECV,
	};

	(void)desc;
	return uet_msg_recv_post(ep, &r);
}

static ssize_t uet_tagged_recv(struct fid_ep *ep_fid, void *buf, size_t len,
			       void *desc, fi_addr_t src_addr, uint64_t tag,
			       uint64_t ignore, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return uet_tagged_recvv(ep_fid, &iov, &desc, 1, src_addr, tag, ignore,
				context);
}

static ssize_t uet_tagged_recvmsg(struct fid_ep *ep_fid,
				  const struct fi_msg_tagged *msg,
				  uint64_t flags)
{
	struct uet_recv_req r = { .flags = flags, .tagged = true };

	if (!msg)
		return -FI_EINVAL;
	r.iov = msg->msg_iov;
	r.iov_cnt = msg->iov_count;
	r.src = msg->addr;
	r.tag = msg->tag;
	r.ignore = msg->ignore;
	r.context = msg->context;
	return uet_tagged_recv_post(uet_tagged_ep(ep_fid), &r);
}

static ssize_t uet_tagged_sendv(struct fid_ep *ep_fid, const struct iovec *iov,
				void **desc, size_t count, fi_addr_t dest_addr,
				uint64_t tag, void *context)
{
	struct uet_ep *ep = uet_tagged_ep(ep_fid);
	struct uet_send_req r = {
		.iov = iov, .iov_cnt = count, .addr = dest_addr, .tag = tag,
		.context = context, .flags = ep->tx_op_flags, .tagged = true,
	};

	(void)desc;
	return uet_msg_send(ep, &r);
}

static ssize_t uet_tagged_send(struct fid_ep *ep_fid, const void *buf,
			       size_t len, void *desc, fi_addr_t dest_addr,
			       uint64_t tag, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return uet_tagged_sendv(ep_fid, &iov, NULL, 1, dest_addr, tag,
				context);
}

static ssize_t uet_tagged_sendmsg(struct fid_ep *ep_fid,
				  const struct fi_msg_tagged *msg,
				  uint64_t flags)
{
	struct uet_send_req r = { .flags = flags, .tagged = true };

	if (!msg)
		return -FI_EINVAL;
	r.iov = msg->msg_iov;
	r.iov_cnt = msg->iov_count;
	r.addr = msg->addr;
	r.tag = msg->tag;
	r.data = msg->data;
	r.context = msg->context;
	return uet_msg_send(uet_tagged_ep(ep_fid), &r);
}

/* fi_tsenddata, fi_tinject, fi_tinjectdata. */
static ssize_t uet_tagged_send_flags(struct fid_ep *ep_fid, const void *buf,
				     size_t len, uint64_t data,
				     fi_addr_t dest_addr, uint64_t tag,
				     void *context, uint64_t flags)
{
	struct uet_ep *ep = uet_tagged_ep(ep_fid);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct uet_send_req r = {
		.iov = &iov, .iov_cnt = 1, .addr = dest_addr, .tag = tag,
		.data = data, .context = context, .tagged = true,
		.flags = (ep->tx_op_flags & ~FI_INJECT) | flags,
		.inject_call = flags & FI_INJECT,
	};

	return uet_msg_send(ep, &r);
}

static ssize_t uet_tagged_inject(struct fid_ep *ep, const void *buf,
				 size_t len, fi_addr_t dest_addr, uint64_t tag)
{
	return uet_tagged_send_flags(ep, buf, len, 0, dest_addr, tag, NULL,
				     FI_INJECT);
}

static ssize_t uet_tagged_senddata(struct fid_ep *ep, const void *buf,
				   size_t len, void *desc, uint64_t data,
				   fi_addr_t dest_addr, uint64_t tag,
				   void *context)
{
	(void)desc;
	return uet_tagged_send_flags(ep, buf, len, data, dest_addr, tag,
				     context, FI_REMOTE_CQ_DATA);
}

static ssize_t uet_tagged_injectdata(struct fid_ep *ep, const void *buf,
				     size_t len, uint64_t data,
				     fi_addr_t dest_addr, uint64_t tag)
{
	return uet_tagged_send_flags(ep, buf, len, data, dest_addr, tag, NULL,
				     FI_INJECT | FI_REMOTE_CQ_DATA);
}

const struct fi_ops_tagged uet_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = uet_tagged_recv,
	.recvv = uet_tagged_recvv,
	.recvmsg = uet_tagged_recvmsg,
	.send = uet_tagged_send,
	.sendv = uet_tagged_sendv,
	.sendmsg = uet_tagged_sendmsg,
	.inject = uet_tagged_inject,
	.senddata = uet_tagged_senddata,
	.injectdata = uet_tagged_injectdata,
};
