/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RMA: every fi_write/fi_read variant becomes one struct uet_op holding
 * the WRE and what it points to (iov, destination, inject copy) until the
 * engine's tx_done. FI_FENCE holds an operation, and those after it, until
 * everything before it has completed. Arguments are checked before
 * anything changes, so a call that fails has no effect.
 */
#include <errno.h>
#include <string.h>

#include "uet/uet.h"

#define UET_RMA_FLAGS	(FI_COMPLETION | FI_INJECT | FI_INJECT_COMPLETE | \
			 FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE | \
			 FI_FENCE | FI_REMOTE_CQ_DATA | FI_MORE | FI_RMA | \
			 FI_READ | FI_WRITE)

/* One call, whatever its shape. */
struct uet_rma_req {
	uint8_t opcode;			/* UET_SES_OP_WRITE or READ */
	const struct iovec *iov;
	size_t iov_cnt;
	fi_addr_t addr;
	uint64_t raddr, key, rlen;	/* the remote range */
	uint64_t data;
	void *context;
	uint64_t flags;
	bool inject_call;		/* fi_inject_write*: no completion */
};

static struct uet_ep *uet_rma_ep(struct fid_ep *ep_fid)
{
	return container_of(ep_fid, struct uet_ep, ep_fid);
}

static int uet_rma_check(const struct uet_ep *ep, const struct uet_rma_req *r,
			 uint64_t *len)
{
	uint64_t total;

	if (r->flags & ~UET_RMA_FLAGS)
		return -FI_EBADFLAGS;
	if (uet_iov_total(r->iov, r->iov_cnt, &total) < 0)
		return -FI_EINVAL;
	if (total > UET_MAX_MSG_SIZE || r->rlen != total)
		return -FI_EINVAL;
	if (r->opcode == UET_SES_OP_READ &&
	    (r->flags & (FI_INJECT | FI_REMOTE_CQ_DATA)))
		return -FI_EINVAL;
	if ((r->flags & FI_INJECT) && total > UET_INJECT_SIZE)
		return -FI_EINVAL;
	if (!ep->eng)
		return -FI_EOPBADSTATE;
	*len = total;
	return 0;
}

static void uet_rma_wre(struct uet_op *op, const struct uet_rma_req *r,
			uint64_t mkey, uint64_t offset, uint16_t ri)
{
	struct ses_wre *w = &op->wre;

	memset(w, 0, sizeof(*w));
	w->opcode = r->opcode;
	w->dst = &op->dst;
	w->ri = ri;
	w->mkey = mkey;
	w->remote_offset = offset;
	w->user_ctx = op;
	/* A READ completes when its data is in: no inject completion. */
	uet_op_set_iov(op, r->iov, r->iov_cnt,
		       r->opcode == UET_SES_OP_READ ?
		       r->flags & ~FI_INJECT_COMPLETE : r->flags);
	if (r->flags & FI_COMPLETION)
		w->flags |= SES_WRE_F_COMPLETION;
	if (r->flags & FI_DELIVERY_COMPLETE)
		w->flags |= SES_WRE_F_DC;
	if (r->flags & FI_REMOTE_CQ_DATA) {
		w->flags |= SES_WRE_F_HDR_DATA;
		w->header_data = r->data;
	}
	if (uet_rudi_wanted(op->ep, r->addr, mkey, r->opcode, r->flags))
		w->flags |= SES_WRE_F_RUDI;
}

/* Starts |op|; on failure it is still ours. */
static int uet_op_start(struct uet_op *op)
{
	struct uet_ep *ep = op->ep;
	int ret;

	ep->outstanding++;	/* tx_done may come from inside the post */
	ret = uet_engine_post(ep->eng, &op->wre);
	if (ret)
		ep->outstanding--;
	return ret;
}

void uet_ep_fence_kick(struct uet_ep *ep)
{
	struct uet_op *op;
	int ret;

	if (ep->kicking)
		return;
	ep->kicking = true;
	while (!uet_list_is_empty(&ep->fenced)) {
		op = container_of(ep->fenced.next, struct uet_op, link);
		if (op->fence && ep->outstanding)
			break;
		op->fence = false;	/* its fence is passed */
		uet_list_del(&op->link);
		ret = uet_op_start(op);
		if (ret == -EAGAIN) {
			uet_list_add_head(&ep->fenced, &op->link);
			break;
		}
		if (ret)
			uet_op_complete(op, ret, 0);
	}
	ep->kicking = false;
}

/* A free operation (progress runs once when there is none), or NULL. */
struct uet_op *uet_op_take(struct uet_ep *ep)
{
	struct uet_op *op;

	if (uet_list_is_empty(&ep->free_ops)) {
		uet_domain_progress(ep->dom);
		if (uet_list_is_empty(&ep->free_ops))
			return NULL;
	}
	op = container_of(ep->free_ops.next, struct uet_op, link);
	uet_list_del(&op->link);
	/*
	 * Completes at its end unless its call says otherwise
	 * (uet_op_set_iov): an op whose call failed comes back to the free
	 * list as that call had set it up, maybe for an inject completion.
	 */
	op->cpl_at = UET_OP_CPL_AT_END;
	return op;
}

/*
 * Starts |op|, or queues it behind a fence, and gives it its inject
 * completion if it is due (uet_op_level.c). On failure |op| goes back to
 * the free list and nothing happened: -FI_EAGAIN, -FI_EMSGSIZE, -FI_EINVAL.
 */
ssize_t uet_op_submit(struct uet_op *op)
{
	struct uet_ep *ep = op->ep;
	int ret;

	if ((op->fence && ep->outstanding) || !uet_list_is_empty(&ep->fenced)) {
		uet_list_add_tail(&ep->fenced, &op->link);
		uet_op_accepted(op);
		return 0;
	}
	ret = uet_op_start(op);
	if (!ret) {
		uet_op_accepted(op);
		/*
		 * Alone in flight: maybe the answer the engine's held ACKs
		 * wait for; then it leaves now, not at the next CQ read (a
		 * progress pass saved per turn of a ping-pong).
		 */
		if (ep->outstanding == 1)
			uet_engine_send_held(ep->eng);
		return 0;
	}
	uet_list_add_tail(&ep->free_ops, &op->link);
	return ret == -EAGAIN ? -FI_EAGAIN : ret == -EMSGSIZE ? -FI_EMSGSIZE :
	       -FI_EINVAL;
}

static ssize_t uet_rma_post(struct uet_ep *ep, const struct uet_rma_req *r)
{
	uint64_t len, mkey, offset;
	struct ses_addr dst;
	struct uet_op *op;
	uint16_t ri;
	ssize_t ret;

	uet_domain_lock(ep->dom);
	ret = uet_rma_check(ep, r, &len);
	if (!ret)
		ret = uet_mr_key_to_wire(ep->dom, r->key, r->raddr, &mkey,
					 &offset);
	if (!ret)
		ret = uet_ep_peer_dst(ep, r->addr, &dst, &ri);
	op = ret ? NULL : uet_op_take(ep);
	if (!op) {
		ret = ret ? ret : -FI_EAGAIN;
		goto out;
	}
	op->dst = dst;
	op->context = r->context;
	op->len = len;
	op->cq_flags = FI_RMA | (r->opcode == UET_SES_OP_READ ? FI_READ :
				 FI_WRITE);
	op->want_cq = !r->inject_call && ep->tx_cq &&
		      (!ep->tx_selective || (r->flags & FI_COMPLETION));
	op->fence = r->flags & FI_FENCE;
	uet_rma_wre(op, r, mkey, offset, ri);
	ret = uet_op_submit(op);
out:
	uet_domain_unlock(ep->dom);
	return ret;
}

/* ---- the fi_ops_rma entry points --------------------------------------------- */
static ssize_t uet_rma_msg(struct fid_ep *ep_fid, const struct fi_msg_rma *msg,
			   uint64_t flags, uint8_t opcode)
{
	struct uet_rma_req r = { .opcode = opcode, .flags = flags };

	if (!msg || msg->rma_iov_count != 1 || !msg->rma_iov)
		return -FI_EINVAL;
	r.iov = msg->msg_iov;
	r.iov_cnt = msg->iov_count;
	r.addr = msg->addr;
	r.raddr = msg->rma_iov[0].addr;
	r.key = msg->rma_iov[0].key;
	r.rlen = msg->rma_iov[0].len;
	r.data = msg->data;
	r.context = msg->context;
	return uet_rma_post(uet_rma_ep(ep_fid), &r);
}

static ssize_t uet_rma_vec(struct fid_ep *ep_fid, const struct iovec *iov,
			   size_t count, fi_addr_t addr, uint64_t raddr,
			   uint64_t key, void *context, uint8_t opcode)
{
	struct uet_ep *ep = uet_rma_ep(ep_fid);
	struct uet_rma_req r = {
		.opcode = opcode, .iov = iov, .iov_cnt = count, .addr = addr,
		.raddr = raddr, .key = key, .context = context,
		.flags = ep->tx_op_flags,
	};

	for (size_t i = 0; iov && i < count && i < SES_IOV_MAX; i++)
		r.rlen += iov[i].iov_len;
	return uet_rma_post(ep, &r);
}

static ssize_t uet_rma_read(struct fid_ep *ep, void *buf, size_t len,
			    void *desc, fi_addr_t src_addr, uint64_t addr,
			    uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	(void)desc;
	return uet_rma_vec(ep, &iov, 1, src_addr, addr, key, context,
			   UET_SES_OP_READ);
}

static ssize_t uet_rma_readv(struct fid_ep *ep, const struct iovec *iov,
			     void **desc, size_t count, fi_addr_t src_addr,
			     uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return uet_rma_vec(ep, iov, count, src_addr, addr, key, context,
			   UET_SES_OP_READ);
}

static ssize_t uet_rma_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			       uint64_t flags)
{
	return uet_rma_msg(ep, msg, flags, UET_SES_OP_READ);
}

static ssize_t uet_rma_write(struct fid_ep *ep, const void *buf, size_t len,
			     void *desc, fi_addr_t dest_addr, uint64_t addr,
			     uint64_t key, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	(void)desc;
	return uet_rma_vec(ep, &iov, 1, dest_addr, addr, key, context,
			   UET_SES_OP_WRITE);
}

static ssize_t uet_rma_writev(struct fid_ep *ep, const struct iovec *iov,
			      void **desc, size_t count, fi_addr_t dest_addr,
			      uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	return uet_rma_vec(ep, iov, count, dest_addr, addr, key, context,
			   UET_SES_OP_WRITE);
}

static ssize_t uet_rma_writemsg(struct fid_ep *ep,
				const struct fi_msg_rma *msg, uint64_t flags)
{
	return uet_rma_msg(ep, msg, flags, UET_SES_OP_WRITE);
}

/* fi_writedata, fi_inject_write, fi_injectwritedata. */
static ssize_t uet_rma_write_one(struct fid_ep *ep_fid, const void *buf,
				 size_t len, uint64_t data, fi_addr_t dest,
				 uint64_t addr, uint64_t key, void *context,
				 uint64_t flags)
{
	struct uet_ep *ep = uet_rma_ep(ep_fid);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct uet_rma_req r = {
		.opcode = UET_SES_OP_WRITE, .iov = &iov, .iov_cnt = 1,
		.addr = dest, .raddr = addr, .key = key, .rlen = len,
		.data = data, .context = context,
		.flags = (ep->tx_op_flags & ~FI_INJECT) | flags,
		.inject_call = flags & FI_INJECT,
	};

	return uet_rma_post(ep, &r);
}

static ssize_t uet_rma_inject(struct fid_ep *ep, const void *buf, size_t len,
			      fi_addr_t dest_addr, uint64_t addr, uint64_t key)
{
	return uet_rma_write_one(ep, buf, len, 0, dest_addr, addr, key, NULL,
				 FI_INJECT);
}

static ssize_t uet_rma_writedata(struct fid_ep *ep, const void *buf,
				 size_t len, void *desc, uint64_t data,
				 fi_addr_t dest_addr, uint64_t addr,
				 uint64_t key, void *context)
{
	(void)desc;
	return uet_rma_write_one(ep, buf, len, data, dest_addr, addr, key,
				 context, FI_REMOTE_CQ_DATA);
}

static ssize_t uet_rma_injectdata(struct fid_ep *ep, const void *buf,
				  size_t len, uint64_t data,
				  fi_addr_t dest_addr, uint64_t addr,
				  uint64_t key)
{
	return uet_rma_write_one(ep, buf, len, data, dest_addr, addr, key,
				 NULL, FI_INJECT | FI_REMOTE_CQ_DATA);
}

const struct fi_ops_rma uet_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = uet_rma_read,
	.readv = uet_rma_readv,
	.readmsg = uet_rma_readmsg,
	.write = uet_rma_write,
	.writev = uet_rma_writev,
	.writemsg = uet_rma_writemsg,
	.inject = uet_rma_inject,
	.writedata = uet_rma_writedata,
	.injectdata = uet_rma_injectdata,
};
