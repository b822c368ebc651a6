/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Completion levels (fi_cq(3), COMPLETION SEMANTICS) of sends, tagged
 * sends, RMA writes and atomics without results. Such an operation ends
 * when the target's SES response comes back in a PDC ACK, and the target
 * answers only once it has placed the data (a WRITE, an atomic, a send
 * into a posted receive) or buffered it (an unexpected send; a rendezvous
 * send answers once the target has pulled it). So here:
 *
 * FI_TRANSMIT_COMPLETE, the level of operations that ask for none (what
 *   fi_getinfo reports as the default op_flags): at that response (a
 *   local send's: below). The operation no longer depends on the fabric;
 *   for writes and atomics the data is also in place, which is delivery
 *   complete.
 * FI_DELIVERY_COMPLETE: at that response too. A send with it asks the
 *   target to answer only once a receive has taken the data (SES dc), more
 *   than fi_cq(3) asks (it allows data held in a provider's buffer).
 * FI_INJECT_COMPLETE: as soon as the buffer may be reused. A payload of at
 *   most UET_INJECT_COPY_MAX bytes is copied, and the operation completes
 *   (CQ entry, counter) when the call accepts it, before a byte is sent.
 *   A longer one completes at the response, after which SES never reads
 *   the buffer again (ses.h, SES_PAY_MSG). An error after an inject
 *   completion has no operation left to be reported on: the target may
 *   refuse it, the peer may die, closing the endpoint drops what has not
 *   left; such an error is logged and counted nowhere.
 *
 * Between endpoints of one host (local channels) a one-packet send without
 * FI_DELIVERY_COMPLETE goes without the target's answer
 * (SES_WRE_F_NO_ANSWER): it ends once written into the target's ring (from
 * inside the post when it goes whole, ses_wre_send_whole). That is
 * transmit complete there: the bytes are in memory of the target's, and
 * no fabric or resource of ours is needed any more (fi_cq(3): "the state
 * of the operation at the peer endpoint is not defined"); libfabric's shm
 * completes the same way. A refusal of the target's (another job's send,
 * an RI it does not serve) is counted there, not reported here: a sender
 * that must hear of it asks FI_DELIVERY_COMPLETE.
 *
 * The strongest level asked for wins. READs and fetching atomics return
 * data: they complete once it is here, whatever level they ask for (their
 * callers drop FI_INJECT_COMPLETE).
 */
#include <stdlib.h>
#include <string.h>

#include "uet/uet.h"

/* FI_INJECT_COMPLETE, and no stronger level beside it. */
static bool uet_flags_want_inject_complete(uint64_t flags)
{
	return (flags & (UET_TX_CPL_LEVELS | FI_MATCH_COMPLETE |
			 FI_COMMIT_COMPLETE)) == FI_INJECT_COMPLETE;
}

/* Where a copy of the op->len payload bytes goes, or NULL: none. */
static uint8_t *uet_op_copy_buf(struct uet_op *op)
{
	if (op->len <= UET_INJECT_SIZE)
		return op->inject;
	if (op->len > UET_INJECT_COPY_MAX)
		return NULL;
	if (!op->copy)
		op->copy = malloc(UET_INJECT_COPY_MAX);	/* NULL: no copy */
	return op->copy;
}

/*
 * Points the WRE of |op| (op->len set) at |iov|, or at a copy of it: with
 * FI_INJECT, whose caller's buffers are free once we return, and with
 * FI_INJECT_COMPLETE when it fits, which then completes once accepted.
 */
void uet_op_set_iov(struct uet_op *op, const struct iovec *iov, size_t cnt,
		    uint64_t flags)
{
	bool early = uet_flags_want_inject_complete(flags);
	struct ses_wre *w = &op->wre;
	uint8_t *buf = NULL, *p;

	w->iov = op->iov;
	op->cpl_at = UET_OP_CPL_AT_END;
	if (flags & FI_INJECT)
		buf = op->inject;	/* inject_size: checked by the caller */
	else if (early)
		buf = uet_op_copy_buf(op);
	if (!buf) {
		for (size_t i = 0; i < cnt; i++)
			op->iov[i] = (struct ses_iov){ .base = iov[i].iov_base,
						       .len = iov[i].iov_len };
		w->iov_cnt = cnt;
		return;
	}
	p = buf;
	for (size_t i = 0; i < cnt; i++) {
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	op->iov[0] = (struct ses_iov){ .base = buf, .len = (size_t)op->len };
	w->iov_cnt = op->len ? 1 : 0;
	if (early)
		op->cpl_at = UET_OP_CPL_AT_COPY;
}

static struct uet_cntr *uet_op_cntr(const struct uet_op *op)
{
	return op->ep->cntr[op->cq_flags & FI_SEND ? UET_CNTR_SEND :
			    op->cq_flags & FI_READ ? UET_CNTR_READ :
			    UET_CNTR_WRITE];
}

/*
 * |op| is started or queued behind a fence (the call will return 0): an
 * inject completion is due now. One that ended inside the call (its
 * tx_done came from the post) was reported there, as any other.
 */
void uet_op_accepted(struct uet_op *op)
{
	struct uet_cntr *c = uet_op_cntr(op);
	struct uet_cq_entry e;

	if (op->cpl_at != UET_OP_CPL_AT_COPY)
		return;
	op->cpl_at = UET_OP_CPL_REPORTED;
	if (op->want_cq) {
		e = (struct uet_cq_entry){ .op_context = op->context,
					   .flags = op->cq_flags,
					   .src = FI_ADDR_NOTAVAIL };
		uet_cq_write(op->ep->tx_cq, &e);
	}
	if (c)
		uet_cntr_inc(c);
}

bool uet_op_is_reported(const struct uet_op *op)
{
	return op->cpl_at == UET_OP_CPL_REPORTED;
}

/*
 * For uet_op_complete: whether |op| was completed already (an inject
 * completion), so that its end, |status| and |rc|, reports nothing.
 */
bool uet_op_end_was_reported(struct uet_op *op, int status, uint8_t rc)
{
	bool reported = uet_op_is_reported(op);

	op->cpl_at = UET_OP_CPL_AT_END;
	if (reported && status)
		FI_WARN_SPARSE(&uet_prov, FI_LOG_EP_DATA,
			       "op %p failed after its inject completion: %s "
			       "(%s)\n", op->context,
			       fi_strerror(uet_fi_errno(status, rc)),
			       uet_rc_str(rc));
	return reported;
}

uint8_t *uet_op_scratch(struct uet_op *op)
{
	if (!op->copy)
		op->copy = malloc(UET_INJECT_COPY_MAX);
	return op->copy;
}

void uet_op_free_copies(struct uet_ep *ep)
{
	for (size_t i = 0; ep->ops && i < ep->tx_size; i++) {
		free(ep->ops[i].copy);
		ep->ops[i].copy = NULL;
	}
}
