/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_ops_msg: the untagged send and receive calls, each turned into one
 * uet_send_req or uet_recv_req (uet_msg_tx.c, uet_msg_rx.c). Calls without
 * flags take the endpoint's op_flags; the *msg calls take theirs.
 */
#include "uet/uet.h"

static struct uet_ep *uet_msg_ep(struct fid_ep *ep_fid)
{
	return container_of(ep_fid, struct uet_ep, ep_fid);
}

static ssize_t uet_msg_recvv(struct fid_ep *ep_fid, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src_addr,
			     void *context)
{
	struct uet_ep *ep = uet_msg_ep(ep_fid);
	struct uet_recv_req r = {
		.iov = iov, .iov_cnt = count, .src = src_addr,
		.context = context, .flags = ep->rx_op_flags,
	};

	(void)desc;
	return uet_msg_recv_post(ep, &r);
}

static ssize_t uet_msg_recv(struct fid_ep *ep_fid, void *buf, size_t len,
			    void *desc, fi_addr_t src_addr, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return uet_msg_recvv(ep_fid, &iov, &desc, 1, src_addr, context);
}

static ssize_t uet_msg_recvmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			       uint64_t flags)
{
	struct uet_recv_req r = { .flags = flags };

	if (!msg)
		return -FI_EINVAL;
	r.iov = msg->msg_iov;
	r.iov_cnt = msg->iov_count;
	r.src = msg->addr;
	r.context = msg->context;
	return uet_msg_recv_post(uet_msg_ep(ep_fid), &r);
}

static ssize_t uet_msg_sendv(struct fid_ep *ep_fid, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t dest_addr,
			     void *context)
{
	struct uet_ep *ep = uet_msg_ep(ep_fid);
	struct uet_send_req r = {
		.iov = iov, .iov_cnt = count, .addr = dest_addr,
		.context = context, .flags = ep->tx_op_flags,
	};

	(void)desc;
	return uet_msg_send(ep, &r);
}

static ssize_t uet_msg_send_one(struct fid_ep *ep_fid, const void *buf,
				size_t len, fi_addr_t dest_addr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return uet_msg_sendv(ep_fid, &iov, NULL, 1, dest_addr, context);
}

static ssize_t uet_msg_send_fn(struct fid_ep *ep, const void *buf, size_t len,
			       void *desc, fi_addr_t dest_addr, void *context)
{
	(void)desc;
	return uet_msg_send_one(ep, buf, len, dest_addr, context);
}

static ssize_t uet_msg_sendmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			       uint64_t flags)
{
	struct uet_send_req r = { .flags = flags };

	if (!msg)
		return -FI_EINVAL;
	r.iov = msg->msg_iov;
	r.iov_cnt = msg->iov_count;
	r.addr = msg->addr;
	r.data = msg->data;
	r.context = msg->context;
	return uet_msg_send(uet_msg_ep(ep_fid), &r);
}

/* fi_senddata, fi_inject, fi_injectdata. */
static ssize_t uet_msg_send_flags(struct fid_ep *ep_fid, const void *buf,
				  size_t len, uint64_t data,
				  fi_addr_t dest_addr, void *context,
				  uint64_t flags)
{
	struct uet_ep *ep = uet_msg_ep(ep_fid);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct uet_send_req r = {
		.iov = &iov, .iov_cnt = 1, .addr = dest_addr, .data = data,
		.context = context,
		.flags = (ep->tx_op_flags & ~FI_INJECT) | flags,
		.inject_call = flags & FI_INJECT,
	};

	return uet_msg_send(ep, &r);
}

static ssize_t uet_msg_inject(struct fid_ep *ep, const void *buf, size_t len,
			      fi_addr_t dest_addr)
{
	return uet_msg_send_flags(ep, buf, len, 0, dest_addr, NULL, FI_INJECT);
}

static ssize_t uet_msg_senddata(struct fid_ep *ep, const void *buf,
				size_t len, void *desc, uint64_t data,
				fi_addr_t dest_addr, void *context)
{
	(void)desc;
	return uet_msg_send_flags(ep, buf, len, data, dest_addr, context,
				  FI_REMOTE_CQ_DATA);
}

static ssize_t uet_msg_injectdata(struct fid_ep *ep, const void *buf,
				  size_t len, uint64_t data,
				  fi_addr_t dest_addr)
{
	return uet_msg_send_flags(ep, buf, len, data, dest_addr, NULL,
				  FI_INJECT | FI_REMOTE_CQ_DATA);
}

const struct fi_ops_msg uet_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = uet_msg_recv,
	.recvv = uet_msg_recvv,
	.recvmsg = uet_msg_recvmsg,
	.send = uet_msg_send_fn,
	.sendv = uet_msg_sendv,
	.sendmsg = uet_msg_sendmsg,
	.inject = uet_msg_inject,
	.senddata = uet_msg_senddata,
	.injectdata = uet_msg_injectdata,
};
