/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sends: every fi_send and fi_tsend variant becomes one struct uet_op with
 * a SEND or TAGGED_SEND WRE to the peer's message RI. SES cuts it into
 * packets, or, past its threshold, sends only a rendezvous header and lets
 * the target pull the data once a receive matched. FI_DELIVERY_COMPLETE
 * and FI_MATCH_COMPLETE wait for the target's placement (SES dc).
 * Arguments are checked before anything changes.
 */
#include <errno.h>
#include <string.h>

#include "uet/uet.h"

#define UET_SEND_FLAGS	(FI_COMPLETION | FI_INJECT | FI_INJECT_COMPLETE | \
			 FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE | \
			 FI_MATCH_COMPLETE | FI_FENCE | FI_REMOTE_CQ_DATA | \
			 FI_MORE | FI_MSG | FI_TAGGED | FI_SEND)

static int uet_send_check(const struct uet_ep *ep,
			  const struct uet_send_req *r, uint64_t *len)
{
	uint64_t total;

	if (r->flags & ~UET_SEND_FLAGS)
		return -FI_EBADFLAGS;
	if (uet_iov_total(r->iov, r->iov_cnt, &total) < 0)
		return -FI_EINVAL;
	if (total > UET_MAX_MSG_SIZE)
		return -FI_EMSGSIZE;
	if ((r->flags & FI_INJECT) && total > UET_INJECT_SIZE)
		return -FI_EINVAL;
	if (!ep->eng)
		return -FI_EOPBADSTATE;
	*len = total;
	return 0;
}

static void uet_send_wre(struct uet_op *op, const struct uet_send_req *r,
			 uint16_t ri_base)
{
	struct ses_wre *w = &op->wre;

	memset(w, 0, sizeof(*w));
	w->opcode = r->tagged ? UET_SES_OP_TAGGED_SEND : UET_SES_OP_SEND;
	w->dst = &op->dst;
	w->ri = (uint16_t)UET_RI_MSG(ri_base);
	w->tag = r->tag;
	w->user_ctx = op;
	uet_op_set_iov(op, r->iov, r->iov_cnt, r->flags);
	if (r->flags & FI_COMPLETION)
		w->flags |= SES_WRE_F_COMPLETION;
	/* Only delivery complete waits for the target's answer between
	 * endpoints of one host (uet_op_level.c). */
	if (r->flags & (FI_DELIVERY_COMPLETE | FI_MATCH_COMPLETE))
		w->flags |= SES_WRE_F_DC;
	else
		w->flags |= SES_WRE_F_NO_ANSWER;
	if (r->flags & FI_REMOTE_CQ_DATA) {
		w->flags |= SES_WRE_F_HDR_DATA;
		w->header_data = r->data;
	}
}

/*
 * fi_inject and fi_tinject to a peer of a local channel that the engine
 * writes whole into its ring now (uet_engine_post_inject): no operation
 * of ours is taken for it, as it has no completion to give; the send
 * counter counts it at once, as it would at its end. True when it went
 * so; else it goes the usual way, which keeps its order behind fenced
 * operations and says what is wrong with it.
 */
static bool uet_msg_inject_whole(struct uet_ep *ep,
				 const struct uet_send_req *r,
				 struct ses_addr *dst, uint16_t ri_base,
				 uint64_t len)
{
	struct ses_iov iov;
	struct ses_wre w = {
		.opcode = r->tagged ? UET_SES_OP_TAGGED_SEND : UET_SES_OP_SEND,
		.dst = dst, .ri = (uint16_t)UET_RI_MSG(ri_base),
		.tag = r->tag, .iov = &iov, .iov_cnt = len ? 1 : 0,
		.flags = SES_WRE_F_NO_ANSWER,
	};
	struct uet_cntr *c = ep->cntr[UET_CNTR_SEND];

	if (!r->inject_call || r->iov_cnt > 1 ||
	    (r->flags & (FI_DELIVERY_COMPLETE | FI_MATCH_COMPLETE |
			 FI_FENCE)) ||
	    !uet_list_is_empty(&ep->fenced))
		return false;
	if (len)
		iov = (struct ses_iov){ .base = r->iov[0].iov_base,
					.len = (size_t)len };
	if (r->flags & FI_REMOTE_CQ_DATA) {
		w.flags |= SES_WRE_F_HDR_DATA;
		w.header_data = r->data;
	}
	if (uet_engine_post_inject(ep->eng, &w) <= 0)
		return false;
	if (c)
		uet_cntr_inc(c);
	return true;
}

ssize_t uet_msg_send(struct uet_ep *ep, const struct uet_send_req *r)
{
	struct ses_addr dst;
	struct uet_op *op;
	uint64_t len;
	uint16_t ri;
	ssize_t ret;

	uet_domain_lock(ep->dom);
	ret = uet_send_check(ep, r, &len);
	if (!ret)
		ret = uet_ep_peer_dst(ep, r->addr, &dst, &ri);
	if (!ret && uet_msg_inject_whole(ep, r, &dst, ri, len))
		goto out;
	op = ret ? NULL : uet_op_take(ep);
	if (!op) {
		ret = ret ? ret : -FI_EAGAIN;
		goto out;
	}
	op->dst = dst;
	op->context = r->context;
	op->len = len;
	op->cq_flags = FI_SEND | (r->tagged ? FI_TAGGED : FI_MSG);
	op->want_cq = !r->inject_call && ep->tx_cq &&
		      (!ep->tx_selective || (r->flags & FI_COMPLETION));
	op->fence = r->flags & FI_FENCE;
	uet_send_wre(op, r, ri);
	ret = uet_op_submit(op);
out:
	uet_domain_unlock(ep->dom);
	return ret;
}
