/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Counters of remote RMA events (FI_RMA_EVENT): what peers did to our
 * regions, as SES reports it (ses.h, struct ses_rma_event: once per
 * operation, however many packets it took; refused operations are not
 * reported). Each counter counts what its man page says:
 *
 *   endpoint FI_REMOTE_WRITE (fi_endpoint(3)): RMA writes and base atomics,
 *     RDMO appends (once) and scatters (once per piece: each a write);
 *   endpoint FI_REMOTE_READ: RMA reads, fetching and compare atomics;
 *   region FI_REMOTE_WRITE (fi_mr(3)): writes and atomics that modify the
 *     region: every atomic but FI_ATOMIC_READ, fetching ones included; an
 *     append's data region (not its pointer's), a scatter piece's region;
 *   region FI_REMOTE_READ: what reads the region: RMA reads, fetching and
 *     compare atomics.
 *
 * So a remote fetch-and-add counts once on the endpoint (as a read) and on
 * both of the region's counters. A WRITE counts when its last byte is in
 * place, an atomic when it ran, a READ when its last data packet left
 * (a lost packet is sent again from the region until the initiator has
 * it: the counter says the READ was served, not that the region may
 * change under a retransmission).
 */
#include "uet/uet.h"

static bool uet_rma_event_is_fetch(const struct ses_rma_event *ev)
{
	return ev->opcode == UET_SES_OP_FETCHING_ATOMIC;
}

/* fi_endpoint(3)'s FI_REMOTE_READ: read, atomic fetch, atomic compare. */
static bool uet_rma_event_is_ep_read(const struct ses_rma_event *ev)
{
	return ev->opcode == UET_SES_OP_READ || uet_rma_event_is_fetch(ev);
}

/* fi_mr(3)'s FI_REMOTE_WRITE: a write or an atomic that modifies. */
static bool uet_rma_event_modifies(const struct ses_rma_event *ev)
{
	if (ev->opcode == UET_SES_OP_WRITE || ev->opcode == UET_SES_OP_ATOMIC ||
	    ev->opcode == UET_SES_OP_RDMO_APPEND ||
	    ev->opcode == UET_SES_OP_RDMO_SCATTER)
		return true;
	return uet_rma_event_is_fetch(ev) && ev->amo_op != UET_SES_AMO_READ;
}

static bool uet_rma_event_inc(struct uet_cntr *c)
{
	if (c)
		uet_cntr_inc(c);
	return c;
}

/*
 * Called with the domain lock held; |mr| is the region, if looked up.
 * Whether a counter counted it (the application can see it).
 */
bool uet_rma_event_count(struct uet_ep *ep, const struct ses_rma_event *ev,
			 const struct uet_mr *mr)
{
	bool ep_read = uet_rma_event_is_ep_read(ev), seen;

	seen = uet_rma_event_inc(ep->cntr[ep_read ? UET_CNTR_REMOTE_READ :
						    UET_CNTR_REMOTE_WRITE]);
	if (!mr)
		return seen;
	if (uet_rma_event_modifies(ev))
		seen |= uet_rma_event_inc(mr->write_cntr);
	if (ep_read)
		seen |= uet_rma_event_inc(mr->read_cntr);
	return seen;
}
