/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NACKs (ref 2.6) and CLOSE_REQ (ref 2.7) at the initiator. Loss codes
 * resend at once, resource codes leave the packet to the retransmit timer,
 * NEW_START_PSN renumbers a PDC still in SYN, and codes that say the target
 * lost or refuses the PDC fail it.
 */
#include <errno.h>
#include <string.h>

#include "pdc/pdc_priv.h"

/* INV_DPDCIDs that may send a renumbered SYN back to its first start. */
#define PDC_SYN_BACKS	3

/*
 * The initiator PDC a reply (NACK, CLOSE_REQ, CREDIT) names: ours, of the
 * frame's peer, answered by the PDC it knows (a reply without an SPDCID
 * comes from a target that has none for us). NULL, counted stale, if not.
 */
struct pdc *pdc_ini_reply_pdc(struct pdc_mgr *mgr,
			      const struct pdc_rx_meta *meta, uint16_t dpdcid,
			      uint16_t spdcid)
{
	struct pdc *pdc = pdc_by_id(mgr, dpdcid);

	if (!pdc || pdc->role != PDC_ROLE_INI || pdc->peer != meta->peer ||
	    (pdc->rid && spdcid && spdcid != pdc->rid)) {
		mgr->stats.rx_stale++;
		return NULL;
	}
	return pdc;
}

static uint64_t pdc_ini_guard_ns(const struct pdc_ini *ini)
{
	return ini->srtt_ns ? ini->srtt_ns + 2 * ini->rttvar_ns : ini->rto_ns;
}

/*
 * ROD_OOO: the target dropped everything after its expected PSN. Go back
 * and send it all again, out of flight so the window paces the resend; once
 * per RTT, as every dropped packet brings its own NACK.
 */
static void pdc_ini_rewind(struct pdc_mgr *mgr, struct pdc *pdc,
			   uint32_t exp_psn, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint32_t psn;

	/*
	 * NACKs of packets sent before the last go-back, back within a
	 * round trip of it, may name its PSN or, reordered, an earlier one:
	 * the resend is on its way.
	 */
	if (!pdc_ini_is_live(pdc, exp_psn) ||
	    (!pdc_psn_after(exp_psn, ini->rewind_psn) &&
	     now_ns - ini->rewind_ns < pdc_ini_guard_ns(ini)))
		return;
	/*
	 * The target expects a packet it refused for want of room: those
	 * behind it were dropped for order, not lost. Going back would
	 * resend the refused one a round trip after the last copy, not as
	 * the retransmit timer backs off, and use up its tries (CI: a flood
	 * past a receiver's bound failed 54 ms after it began). The timer
	 * resends it; the rest follow as ACKs come (pdc_ini_rto_release).
	 */
	if (ini->refused && ini->refused_psn == exp_psn)
		return;
	ini->rewind_psn = exp_psn;
	ini->rewind_ns = now_ns;
	for (psn = exp_psn; psn != ini->send_psn; psn++) {
		struct pdc_slot *slot = pdc_ini_slot(pdc, psn);

		if (slot->flags & PDC_SLOT_INFL) {
			slot->flags &= ~PDC_SLOT_INFL;
			ini->inflight--;
			ini->infl_bytes -= pdc_ini_slot_bytes(slot);
			if (ini->nscc)
				pdc_nscc_on_loss(mgr, ini,
						 pdc_ini_slot_bytes(slot),
						 now_ns);
		}
	}
	ini->resend_psn = exp_psn;
	ini->resend_end = ini->send_psn;
	pdc_cc_on_loss(&mgr->cfg, ini);
	pdc_ready(mgr, pdc);
}

/* PSN_OOR_WINDOW: the target tracks fewer PSNs than we thought. */
static void pdc_ini_shrink_peer_win(struct pdc_mgr *mgr, struct pdc *pdc,
				    const struct pdc_nack *nack)
{
	struct pdc_ini *ini = &pdc->ini;
	int32_t room = pdc_psn_diff(nack->nack_psn, nack->payload);

	if (room < 1)
		room = 1;
	if ((uint32_t)room < ini->peer_win)
		ini->peer_win = (uint32_t)room;
	pdc_ini_retx_push(pdc, nack->nack_psn);
	mgr->stats.retx_nack++;
	pdc_ready(mgr, pdc);
}

/* NEW_START_PSN (ref 2.9, RP): resend everything from the target's PSN. */
static void pdc_ini_renumber(struct pdc_mgr *mgr, struct pdc *pdc,
			     uint32_t start_psn)
{
	struct pdc_ini *ini = &pdc->ini;
	uint32_t delta = start_psn - ini->start_psn;
	uint32_t psn;

	if (pdc->rid) {
		pdc_ini_fail(mgr, pdc, -ECONNRESET);
		return;
	}
	if (!start_psn || !delta)
		return;
	if (!ini->first_start_psn)
		ini->first_start_psn = ini->start_psn;
	pdc_ini_retx_clear(pdc);
	/* The ring is indexed from the start PSN, so no slot moves. */
	for (psn = ini->una_psn; psn != ini->next_psn; psn++)
		pdc_ini_slot(pdc, psn)->flags &= ~(PDC_SLOT_SENT |
						   PDC_SLOT_INFL);
	ini->start_psn = start_psn;
	ini->next_psn += delta;
	ini->una_psn += delta;
	ini->send_psn = ini->una_psn;
	ini->cack_psn = ini->sack_high = ini->rewind_psn = ini->una_psn - 1;
	ini->resend_psn = ini->resend_end = ini->una_psn;
	ini->cc_hold_psn = ini->cack_psn;
	ini->inflight = ini->infl_bytes = 0;
	ini->cc.inflight = 0;
	ini->rto_recov = false;	/* its PSNs are gone */
	pdc_ready(mgr, pdc);
}

/* The target no longer has our PDC: after our CLOSE that is success. */
static void pdc_ini_target_lost(struct pdc_mgr *mgr, struct pdc *pdc,
				uint32_t psn)
{
	if (pdc->ini.close_queued &&
	    (pdc_ini_slot(pdc, psn)->flags & PDC_SLOT_CLOSE)) {
		mgr->stats.pdc_closed++;
		pdc_emit(mgr, pdc, PDC_EV_CLOSED, 0);
		pdc_free(mgr, pdc);
		return;
	}
	mgr->stats.peer_restarts++;
	pdc_log(mgr, "pdc %#x: peer %u lost it (NACK %s), restarted?", pdc->id,
		pdc->peer, pdc_nack_code_name(pdc->ini.last_nack));
	pdc_emit(mgr, pdc, PDC_EV_PEER_RESTART, -ECONNRESET);
	pdc_ini_fail(mgr, pdc, -ECONNRESET);
}

/* A SYN renumbered to a cookie, never answered: it may go back (below). */
static bool pdc_ini_may_go_back(const struct pdc *pdc)
{
	const struct pdc_ini *ini = &pdc->ini;

	return !pdc->rid && pdc->state == PDC_ST_SYN && ini->first_start_psn &&
	       ini->start_psn != ini->first_start_psn;
}

/* Back to the first start PSN: everything goes again under it. */
static void pdc_ini_go_back(struct pdc_mgr *mgr, struct pdc *pdc,
			    const char *why)
{
	mgr->stats.syn_backs++;
	pdc_log(mgr, "pdc %#x: peer %u %s: back to start psn %#x", pdc->id,
		pdc->peer, why, pdc->ini.first_start_psn);
	pdc_ini_renumber(mgr, pdc, pdc->ini.first_start_psn);
}

/*
 * INV_DPDCID to a SYN of ours that renumbered to a cookie and was never
 * answered: the target holds a PDC under our PDCID that never left its
 * SYN phase and takes us for an initiator it both challenged and
 * admitted (pdc_tgt.c). That may be just what happened: one copy of our
 * first SYNs was challenged, and another, later, admitted without a
 * cookie, its packets delivered, its ACK not yet here. The target will
 * not follow our renumbering (a restarted initiator under our PDCID would
 * look the same to it), so we go back: the first start PSN again, once
 * more for each such NACK up to PDC_SYN_BACKS. If the PDC there is ours,
 * our copies are its packets, delivered once, and it answers; if not, its
 * start is not ours, the SYN is refused again and we fail as before. In
 * a starved all-to-all of 256 endpoints this race failed a few writes
 * with ECONNRESET in about a third of the runs, their data landed.
 */
static bool pdc_ini_syn_back(struct pdc_mgr *mgr, struct pdc *pdc)
{
	if (!pdc_ini_may_go_back(pdc) ||
	    pdc->ini.syn_backs >= PDC_SYN_BACKS)
		return false;
	pdc->ini.syn_backs++;
	pdc_ini_go_back(mgr, pdc, "holds our first SYN's PDC");
	return true;
}

/*
 * An ACK whose cumulative PSN |cack_psn| is in the numbering our SYNs had
 * before a NEW_START_PSN, and within what we sent: the target admitted one
 * of those copies too (the race above), and its PDC holds our packets.
 * Going back to that numbering now, the ACK is read as any other: we are
 * answered at once, instead of when a copy under the cookie draws an
 * INV_DPDCID (by then the target may be gone, its work done).
 */
bool pdc_ini_ack_first_start(struct pdc_mgr *mgr, struct pdc *pdc,
			     uint32_t cack_psn)
{
	struct pdc_ini *ini = &pdc->ini;
	uint32_t acked = cack_psn + 1 - ini->first_start_psn;

	if (!pdc_ini_may_go_back(pdc) || acked > ini->next_psn - ini->start_psn)
		return false;
	pdc_ini_go_back(mgr, pdc, "answers our first SYNs");
	/* What it acknowledges went, under this numbering: no copy now. */
	for (uint32_t i = 0; i < acked; i++)
		pdc_ini_slot(pdc, ini->una_psn + i)->flags |= PDC_SLOT_SENT;
	ini->send_psn = ini->una_psn + acked;
	return true;
}

/* GTD_RESP_UNAVAIL: the packet arrived but its response is gone. */
static void pdc_ini_resp_lost(struct pdc_mgr *mgr, struct pdc *pdc,
			      uint32_t psn, uint64_t now_ns)
{
	struct pdc_slot *slot = pdc_ini_slot(pdc, psn);

	if (slot->flags & PDC_SLOT_DONE)
		return;
	pdc_ini_mark_acked(pdc, slot);
	pdc_ini_complete(mgr, pdc, slot, -ENODATA, NULL);
	pdc_ini_advance(mgr, pdc, now_ns);
}

/*
 * NO_PDC_AVAIL: a target whose table is full refused our SYN. It holds no
 * PDC of this key and start PSN and no record of one (either would have
 * drawn another answer), so nothing of ours was delivered: the refusal
 * costs time, not tries, and the copies sent so far start the duplicate
 * clock (pdc_ini_put) again. The next try waits a growing, jittered spell
 * (from the RTO to PDC_NO_ROOM_WAIT_MAX_NS: a thousand initiators of an
 * incast must not come back in step), and the PDC fails -EBUSY once
 * refusals have lasted PDC_NO_ROOM_BUDGET_TW TIME_WAITs, the time the target
 * needs to turn its slots over (its eviction records live one TIME_WAIT).
 */
static void pdc_ini_no_room(struct pdc_mgr *mgr, struct pdc *pdc,
			    uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint64_t wait, max = mgr->cfg.time_wait_ns / 4;
	uint32_t psn;

	if (pdc->state != PDC_ST_SYN || pdc->rid)
		return;
	if (!ini->no_room_since)
		ini->no_room_since = now_ns;
	else if (now_ns - ini->no_room_since >= mgr->cfg.time_wait_ns *
						 PDC_NO_ROOM_BUDGET_TW) {
		pdc_ini_fail(mgr, pdc, -EBUSY);
		return;
	}
	mgr->stats.no_room_waits++;
	/*
	 * Answered: it waits on a full target, which may take seconds, not
	 * on one still reading its first packet; its turn to open
	 * (cfg.max_opening) goes to the next new peer.
	 */
	pdc_ini_answered(mgr, pdc);
	for (psn = ini->una_psn; psn != ini->send_psn; psn++) {
		struct pdc_slot *slot = pdc_ini_slot(pdc, psn);

		slot->tx_cnt = slot->tx_cnt ? 1 : 0;
		slot->forgiven = 0;
		slot->first_ns = slot->sent_ns;
	}
	/* One wait per round: the packets of a window are refused together. */
	if (now_ns < ini->no_room_until)
		return;
	/* pdc_ini_put's clock: every copy within time_wait / 2 of the first. */
	if (max > PDC_NO_ROOM_WAIT_MAX_NS)
		max = PDC_NO_ROOM_WAIT_MAX_NS;
	ini->no_room_wait = ini->no_room_wait ? ini->no_room_wait * 2 :
						ini->rto_ns;
	if (ini->no_room_wait > max)
		ini->no_room_wait = max;
	/* Between half and all of the spell. */
	wait = ini->no_room_wait / 2 +
	       pdc_splitmix(&mgr->rng) % (ini->no_room_wait / 2 + 1);
	ini->no_room_until = now_ns + wait;
	if (ini->rto_at < ini->no_room_until) {
		ini->rto_at = ini->no_room_until;
		pdc_timer_arm(mgr, pdc, ini->rto_at);
	}
}

/*
 * The target refused |psn| for want of resources (NO_SES_MSG_AVAIL: its
 * SES has no room for another message until its application posts
 * receives; NO_RESOURCE and the like): the retransmit timer resends it as
 * it backs off. The target is there and answers, so the copy is no try
 * against max_retries: a receiver out of room for longer than the tries
 * last (0.2 s of back-off from the smallest RTO) is not a dead one;
 * past PDC_FORGIVEN refusals of a packet the tries count again, and
 * pdc_ini_put ends it at 255 copies. The copy's path works:
 * pdc_ev_heard.
 */
static void pdc_ini_refused(struct pdc_mgr *mgr, struct pdc *pdc,
			    uint32_t psn, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	struct pdc_slot *slot = pdc_ini_slot(pdc, psn);

	if (!pdc_slot_needs_tx(slot))
		return;
	if (slot->forgiven < PDC_FORGIVEN)
		slot->forgiven++;
	ini->refused_psn = psn;
	ini->refused = true;
	pdc_ev_heard(mgr, pdc, slot->ev, now_ns);
}

/*
 * The target says |psn| did not arrive whole: send it again at once. A
 * trimmed one (3.6.17) tells of a full queue but no loss of the path: its
 * EV stays, NSCC adapts as to a trim, not a loss, and the resend is no
 * try against max_retries (a packet trimmed again and again in an incast
 * would otherwise fail its PDC, seen in e2e_cc on a loaded machine).
 */
static void pdc_ini_nack_loss(struct pdc_mgr *mgr, struct pdc *pdc,
			      uint32_t psn, uint8_t code, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	struct pdc_slot *slot = pdc_ini_slot(pdc, psn);
	bool trim = code == UET_PDS_NACK_TRIMMED ||
		    code == UET_PDS_NACK_TRIMMED_LASTHOP;

	if (!pdc_slot_needs_tx(slot) || (slot->flags & PDC_SLOT_RETXQ))
		return;
	mgr->stats.retx_nack++;
	if (!trim) {
		pdc_ini_lost(mgr, pdc, psn, now_ns);
		ini->loss_ns = now_ns;
		pdc_cc_on_loss(&mgr->cfg, ini);
	} else {
		if (slot->forgiven < PDC_FORGIVEN)
			slot->forgiven++;
		/*
		 * Its header reached the target: the path works, as for a
		 * refusal. Without this a packet trimmed twice was taken for
		 * stalled at its third copy and sent a twin (e2e_cc: 91-98%
		 * of trim NACKs found something to resend, 96-99% without
		 * twins).
		 */
		pdc_ev_heard(mgr, pdc, slot->ev, now_ns);
		pdc_ini_retx_push(pdc, psn);
		if (ini->nscc)
			pdc_nscc_on_trim(mgr, ini, pdc_ini_slot_bytes(slot),
					 now_ns);
		else
			pdc_cc_on_loss(&mgr->cfg, ini);
	}
	pdc_ready(mgr, pdc);
}

void pdc_ini_rx_nack(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		     const struct pdc_nack *nack, uint64_t now_ns)
{
	struct pdc *pdc = pdc_ini_reply_pdc(mgr, meta, nack->dpdcid,
					    nack->spdcid);
	uint32_t psn = nack->nack_psn;

	if (!pdc)
		return;
	if (!pdc_ini_is_live(pdc, psn) || (nack->pro.flags & UET_PDS_F_NACK_NT)) {
		mgr->stats.rx_stale++;
		return;
	}
	pdc->ini.last_nack = nack->nack_code;
	switch (nack->nack_code) {
	case UET_PDS_NACK_TRIMMED:
	case UET_PDS_NACK_TRIMMED_LASTHOP:
	case UET_PDS_NACK_PKT_NOT_RCVD:
	case UET_PDS_NACK_RCVR_INFER_LOSS:
		pdc_ini_nack_loss(mgr, pdc, psn, nack->nack_code, now_ns);
		break;
	case UET_PDS_NACK_ROD_OOO:
		pdc_ini_rewind(mgr, pdc, nack->payload, now_ns);
		break;
	case UET_PDS_NACK_PSN_OOR_WINDOW:
		pdc_ini_shrink_peer_win(mgr, pdc, nack);
		break;
	case UET_PDS_NACK_NEW_START_PSN:
		pdc_ini_renumber(mgr, pdc, nack->payload);
		break;
	case UET_PDS_NACK_INV_DPDCID:
		if (!pdc_ini_syn_back(mgr, pdc))
			pdc_ini_target_lost(mgr, pdc, psn);
		break;
	case UET_PDS_NACK_PDC_HDR_MISMATCH:
		pdc_ini_target_lost(mgr, pdc, psn);
		break;
	case UET_PDS_NACK_CLOSING:
	case UET_PDS_NACK_CLOSING_IN_ERR:
		pdc_ini_fail(mgr, pdc, -ECONNABORTED);
		break;
	case UET_PDS_NACK_PDC_MODE_MISMATCH:
	case UET_PDS_NACK_INVALID_SYN:
	case UET_PDS_NACK_UNEXP_EVENT:
	case UET_PDS_NACK_ACK_WITH_DATA:
		pdc_ini_fail(mgr, pdc, -EPROTO);
		break;
	case UET_PDS_NACK_GTD_RESP_UNAVAIL:
		pdc_ini_resp_lost(mgr, pdc, psn, now_ns);
		break;
	case UET_PDS_NACK_NO_PDC_AVAIL:
		pdc_ini_no_room(mgr, pdc, now_ns);
		break;
	default:
		pdc_ini_refused(mgr, pdc, psn, now_ns);
		break;
	}
}

void pdc_ini_rx_close_req(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
			  const struct pdc_ctl *ctl, uint64_t now_ns)
{
	struct pdc *pdc = pdc_ini_reply_pdc(mgr, meta, ctl->dpdcid,
					    ctl->spdcid);

	if (!pdc || !pdc->rid) {
		if (pdc)
			mgr->stats.rx_stale++;
		return;
	}
	pdc_ini_close_asked(mgr, pdc, now_ns);
}
