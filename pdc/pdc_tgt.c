/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Target end of a PDC: creation on SYN (ref 2.9), matching requests to their
 * PDC, duplicate and window checks, RUD/ROD delivery to SES, CLOSE, and the
 * idle, coalescing and TIME_WAIT timers.
 *
 * A closed PDC lingers in TIME_WAIT under its key and start PSN, so that
 * strays of it (a late SYN, a retransmitted CLOSE) are answered or dropped
 * instead of opening a fresh PDC that would deliver them a second time.
 *
 * Opening against hostile peers (details in pdc_tgt_admit.c). A SYN that
 * names no PDC of ours goes, in order, through: the PDS checks (INVALID_SYN),
 * ops->admit (refused: dropped unanswered, rx_refused), the tombstones of
 * evicted PDCs (a late SYN of one: INV_DPDCID), then the gate:
 *  - a SYN whose start PSN is a valid cookie (current or previous epoch of
 *    ~4.3 s) is confirmed and may open;
 *  - otherwise a cookie is required, and sent in NACK NEW_START_PSN with
 *    nothing kept, when the peer already has a live target PDC (any
 *    SPDCID), when fewer than cfg.tgt_reserve slots are free, when the
 *    sending host (meta->src) holds cfg.tgt_max_per_src target PDCs;
 *  - otherwise it opens at once (0-RTT).
 * A confirmed restart retires the live PDC of the same key. A PDC that may
 * open and finds no room evicts: its src's own oldest (TIME_WAIT first) when
 * the src is at its share, then TIME_WAIT PDCs by expiry, then the least
 * recently used idle PDC of the src holding the most; only then NACK
 * NO_PDC_AVAIL. Packets without SYN never create or change state on a
 * mismatch: PDC_HDR_MISMATCH and INV_DPDCID are answered statelessly.
 */
#include <errno.h>

#include "pdc/pdc_priv.h"

/* One sequenced arrival: a request or a CLOSE. */
struct pdc_tgt_in {
	uint32_t psn;
	uint8_t flags;		/* request flags: AR, RETX */
	int16_t clear_psn_offset;
	bool is_close;
	uint8_t next_hdr;
	const uint8_t *ses;
	size_t ses_len;
};

/* A NACK about |psn| to the sender of a packet that named |their_id|. */
static void pdc_tgt_nack(struct pdc_mgr *mgr, uint32_t peer,
			 const struct pdc *pdc, uint16_t their_id,
			 uint32_t psn, uint8_t code, uint32_t payload)
{
	struct pdc_nack n = {
		.pro.type = UET_PDS_TYPE_NACK,
		.nack_code = code,
		.nack_psn = psn,
		.spdcid = pdc ? pdc->id : 0,	/* ref 2.9: 0 for no PDC */
		.dpdcid = their_id,
		.payload = payload,
	};

	pdc_nack_queue(mgr, peer, &n);
}

static struct pdc *pdc_tgt_open(struct pdc_mgr *mgr, uint32_t peer,
				uint64_t src, uint16_t rid, uint8_t mode,
				uint32_t start_psn, uint64_t now_ns)
{
	struct pdc *pdc = pdc_new(mgr, PDC_ROLE_TGT, peer, mode);
	struct pdc_tgt *tgt;

	if (!pdc)
		return NULL;
	pdc->src = src;
	pdc_counts_inc(&mgr->tgt_live, peer);
	pdc_counts_inc(&mgr->tgt_src, src);
	tgt = &pdc->tgt;
	pdc->rid = rid;
	pdc->key = pdc_key_tgt(peer, rid);
	pdc_hash_add(mgr, pdc);
	pdc->state = PDC_ST_EST;
	tgt->start_psn = start_psn;
	tgt->cack_psn = tgt->last_psn = tgt->high_psn = start_psn - 1;
	tgt->sack_rep_psn = start_psn - 1;
	tgt->clear_psn = start_psn;
	tgt->last_rx_ns = now_ns;
	if (!++mgr->tgt_opens)
		mgr->tgt_opens++;	/* 0 is UUD's */
	tgt->open_seq = mgr->tgt_opens;
	pdc_emit(mgr, pdc, PDC_EV_ESTABLISHED, 0);
	return pdc;
}

/* Start PSNs this close may be an old incarnation's, or a SYN's typo. */
static bool pdc_psn_is_near(uint32_t a, uint32_t b)
{
	return a - b + (1u << 16) < (1u << 17);
}

/*
 * A SYN whose start PSN is close to, but not, that of PDC |p| under the
 * same key. After a close that is a new incarnation too close to the old
 * one: ask for another start PSN (ref 2.6, NEW_START_PSN), which is safe
 * as nothing of it was delivered. Next to a live PDC it can only be a
 * corrupt or forged packet, and asking the initiator to renumber would
 * make it resend what that PDC already delivered: drop it.
 */
static struct pdc *pdc_tgt_near_start(struct pdc_mgr *mgr, uint32_t peer,
				      const struct pdc *p,
				      const struct pdc_req *req)
{
	if (p->state == PDC_ST_TIME_WAIT)
		pdc_tgt_nack(mgr, peer, NULL, req->spdcid, req->psn,
			     UET_PDS_NACK_NEW_START_PSN, pdc_new_start_psn(mgr));
	else
		mgr->stats.rx_stale++;
	return NULL;
}

/*
 * The caller's cheap checks of a request that would open a PDC, made
 * before anything exists for it: a refused one leaves no trace.
 */
static bool pdc_tgt_admit(struct pdc_mgr *mgr, uint32_t peer,
			  const struct pdc_tgt_in *in, uint8_t mode)
{
	struct pdc_rx_pkt pkt = {
		.peer = peer, .mode = mode, .next_hdr = in->next_hdr,
		.psn = in->psn, .buf = in->ses, .len = in->ses_len,
	};

	if (!mgr->ops.admit || mgr->ops.admit(mgr->ctx, &pkt) == 0)
		return true;
	mgr->stats.rx_refused++;
	return false;
}

/*
 * A packet of a PDC we evicted (pdc_tgt_admit.c), found by its record (by
 * the PDCID it names, or for a SYN, dpdcid 0, by its start PSN): a copy
 * of one the PDC had delivered (its ACK was lost, or late) is answered
 * with an ACK that also asks the initiator to close, not with INV_DPDCID,
 * which would fail data that was placed. Returns false for any other
 * packet, which gets INV_DPDCID.
 */
static bool pdc_tgt_tomb_ack(struct pdc_mgr *mgr, uint32_t peer,
			     uint16_t dpdcid, uint16_t spdcid, uint32_t psn,
			     uint32_t start, uint64_t now_ns)
{
	const struct pdc_tomb *t = pdc_tomb_of(&mgr->tombs,
					       pdc_key_tgt(peer, spdcid),
					       dpdcid, start, now_ns);
	struct pdc_nack a = {
		.pro.type = UET_PDS_TYPE_ACK,
		.nack_psn = psn,
		.dpdcid = spdcid,
	};

	if (!t || pdc_psn_after(psn, t->cack_psn) ||
	    pdc_psn_diff(t->cack_psn, psn) > INT16_MAX)
		return false;
	a.spdcid = t->id;
	a.payload = t->cack_psn;
	pdc_nack_queue(mgr, peer, &a);
	return true;
}

/*
 * A SYN that names no PDC of ours: it opens one, is challenged with a
 * cookie, or is refused (pdc_tgt_gate, pdc_tgt_make_room). Returns NULL
 * when the packet was answered with a NACK.
 */
static struct pdc *pdc_tgt_syn_new(struct pdc_mgr *mgr,
				   const struct pdc_rx_meta *meta,
				   const struct pdc_req *req, uint32_t start,
				   struct pdc *live, bool young, uint8_t mode,
				   uint64_t now_ns)
{
	uint32_t peer = meta->peer, cookie = 0;
	struct pdc *pdc;

	switch (pdc_tgt_gate(mgr, meta, req->spdcid, start, &cookie, now_ns)) {
	case PDC_GATE_CHALLENGE:
		pdc_tgt_nack(mgr, peer, NULL, req->spdcid, req->psn,
			     UET_PDS_NACK_NEW_START_PSN, cookie);
		return NULL;
	case PDC_GATE_STALE:
		mgr->stats.rx_stale++;
		if (!pdc_tgt_tomb_ack(mgr, peer, 0, req->spdcid, req->psn,
				      start, now_ns))
			pdc_tgt_nack(mgr, peer, NULL, req->spdcid, req->psn,
				     UET_PDS_NACK_INV_DPDCID, 0);
		return NULL;
	case PDC_GATE_OPEN:
		break;
	}
	/*
	 * A PDC under the key (live, which only a confirmed SYN gets past, or
	 * in TIME_WAIT) never heard a packet without SYN: the two may be one
	 * initiator whose window we both challenged and, the pressure gone,
	 * admitted (0-RTT). It renumbered to the cookie, and a new PDC would
	 * deliver again what the old one delivered. Fail it instead (the
	 * initiator then opens a new PDC under a new PDCID).
	 */
	if (young) {
		mgr->stats.rx_stale++;
		pdc_tgt_nack(mgr, peer, NULL, req->spdcid, req->psn,
			     UET_PDS_NACK_INV_DPDCID, 0);
		return NULL;
	}
	if (live) {
		mgr->stats.peer_restarts++;
		pdc_log(mgr, "pdc %#x: peer %u reopened pdc %#x: restarted",
			live->id, peer, req->spdcid);
		pdc_emit(mgr, live, PDC_EV_PEER_RESTART, -ECONNRESET);
		pdc_tgt_close(mgr, live, -ECONNRESET, now_ns);
	}
	pdc = NULL;
	if (pdc_tgt_make_room(mgr, meta->src, now_ns))
		pdc = pdc_tgt_open(mgr, peer, meta->src, req->spdcid, mode,
				   start, now_ns);
	if (!pdc)
		pdc_tgt_nack(mgr, peer, NULL, req->spdcid, req->psn,
			     UET_PDS_NACK_NO_PDC_AVAIL, 0);
	return pdc;
}

/*
 * A SYN: find the PDC of this incarnation (same key, same start PSN), or
 * open one. Another live PDC under the key is an earlier incarnation of a
 * restarted initiator; it is retired once the new one proves its address.
 * Returns NULL when the packet was answered with a NACK or dropped.
 */
static struct pdc *pdc_tgt_syn(struct pdc_mgr *mgr,
			       const struct pdc_rx_meta *meta,
			       const struct pdc_req *req,
			       const struct pdc_tgt_in *in, uint8_t mode,
			       uint64_t now_ns)
{
	uint32_t peer = meta->peer;
	uint32_t start = req->psn - req->psn_offset;
	uint64_t key = pdc_key_tgt(peer, req->spdcid);
	struct pdc *p, *live = NULL;
	bool young = false;

	if (!req->spdcid || req->psn_offset >= mgr->cfg.window) {
		pdc_tgt_nack(mgr, peer, NULL, req->spdcid, req->psn,
			     UET_PDS_NACK_INVALID_SYN, 0);
		return NULL;
	}
	for (p = pdc_hash_find(mgr, key, NULL); p; p = pdc_hash_find(mgr, key, p)) {
		if (p->tgt.start_psn == start)
			return p;
		if (pdc_psn_is_near(p->tgt.start_psn, start))
			return pdc_tgt_near_start(mgr, peer, p, req);
		if (p->state != PDC_ST_TIME_WAIT)
			live = p;
		young |= !p->tgt.syn_done;
	}
	if (!pdc_tgt_admit(mgr, peer, in, mode))
		return NULL;
	return pdc_tgt_syn_new(mgr, meta, req, start, live, young, mode,
			       now_ns);
}

/* A non-SYN packet: its DPDCID must be ours and its SPDCID the owner's. */
static struct pdc *pdc_tgt_by_dpdcid(struct pdc_mgr *mgr, uint32_t peer,
				     uint16_t dpdcid, uint16_t spdcid,
				     uint32_t psn, uint64_t now_ns)
{
	struct pdc *pdc = pdc_by_id(mgr, dpdcid);

	if (!pdc || pdc->role != PDC_ROLE_TGT) {
		if (!pdc && pdc_tgt_tomb_ack(mgr, peer, dpdcid, spdcid, psn,
					     0, now_ns))
			return NULL;
		pdc_tgt_nack(mgr, peer, NULL, spdcid, psn,
			     UET_PDS_NACK_INV_DPDCID, 0);
		return NULL;
	}
	if (pdc->peer != peer || pdc->rid != spdcid) {
		/* Our PDCID came round again: the slot's PDC of old? */
		if (pdc_tgt_tomb_ack(mgr, peer, dpdcid, spdcid, psn, 0,
				     now_ns))
			return NULL;
		pdc_tgt_nack(mgr, peer, NULL, spdcid, psn,
			     UET_PDS_NACK_PDC_HDR_MISMATCH, 0);
		return NULL;
	}
	pdc->tgt.syn_done = true;
	return pdc;
}

/* Hands a new request to SES. Returns false when it was not taken. */
static bool pdc_tgt_deliver(struct pdc_mgr *mgr, struct pdc *pdc,
			    const struct pdc_tgt_in *in)
{
	struct pdc_rx_pkt pkt = {
		.peer = pdc->peer,
		.pdcid = pdc->id,
		.open_seq = pdc->tgt.open_seq,
		.mode = pdc->mode,
		.next_hdr = in->next_hdr,
		.psn = in->psn,
		.behind = in->clear_psn_offset < 0 ?
			  (uint16_t)-(int32_t)in->clear_psn_offset : 0,
		.buf = in->ses,
		.len = in->ses_len,
	};
	struct pdc_resp resp;
	int ret;

	/* The response, if any, must have a home before SES acts. */
	if (!pdc_resp_reserve_ok(mgr)) {
		pdc_tgt_nack(mgr, pdc->peer, pdc, pdc->rid, in->psn,
			     UET_PDS_NACK_NO_GTD_DEL_AVAIL, 0);
		return false;
	}
	resp.next_hdr = UET_PDS_NEXT_HDR_NONE;
	resp.len = 0;
	ret = mgr->ops.deliver(mgr->ctx, &pkt, &resp);
	if (ret == -EAGAIN) {
		pdc_tgt_nack(mgr, pdc->peer, pdc, pdc->rid, in->psn,
			     UET_PDS_NACK_NO_SES_MSG_AVAIL, 0);
		return false;
	}
	/*
	 * Not answered, so not acknowledged either: an ACK without a
	 * response tells the initiator the request succeeded.
	 */
	if (ret < 0) {
		mgr->stats.rx_unanswered++;
		return false;
	}
	mgr->stats.rx_delivered++;
	if (resp.next_hdr != UET_PDS_NEXT_HDR_NONE &&
	    pdc_next_hdr_name(resp.next_hdr) && resp.len <= PDC_RESP_MAX_LEN)
		pdc_resp_store(mgr, pdc, in->psn, &resp);
	return true;
}

/* A PSN at or before cack, or marked in the bitmap, arrived before. */
static bool pdc_tgt_is_dup(const struct pdc *pdc, uint32_t psn)
{
	const struct pdc_tgt *tgt = &pdc->tgt;

	if (pdc_psn_before_eq(psn, tgt->cack_psn))
		return true;
	return pdc_psn_diff(psn, tgt->cack_psn) <= (int32_t)(pdc->win_mask + 1) &&
	       pdc_tgt_bit_test(pdc, psn);
}

/*
 * Order and window checks before a PSN is accepted (ref 2.6). Returns false
 * when the packet was answered instead.
 */
static bool pdc_tgt_may_accept(struct pdc_mgr *mgr, struct pdc *pdc,
			       uint32_t psn)
{
	struct pdc_tgt *tgt = &pdc->tgt;
	uint32_t exp = tgt->cack_psn + 1;
	uint8_t code = 0;

	if ((pdc->state == PDC_ST_TIME_WAIT || tgt->close_seen) &&
	    pdc_psn_after(psn, tgt->close_psn))
		code = tgt->closed_in_err ? UET_PDS_NACK_CLOSING_IN_ERR :
					    UET_PDS_NACK_CLOSING;
	else if (pdc_psn_diff(psn, tgt->cack_psn) > (int32_t)(pdc->win_mask + 1))
		code = UET_PDS_NACK_PSN_OOR_WINDOW;
	else if (pdc->mode == PDC_MODE_ROD && psn != exp)
		code = UET_PDS_NACK_ROD_OOO;
	if (!code)
		return true;
	pdc_tgt_nack(mgr, pdc->peer, pdc, pdc->rid, psn, code, exp);
	return false;
}

/* ref 2.9: CLEAR_PSN = psn + offset releases stored responses before it. */
static void pdc_tgt_apply_clear(struct pdc_mgr *mgr, struct pdc *pdc,
				const struct pdc_tgt_in *in)
{
	struct pdc_tgt *tgt = &pdc->tgt;
	uint32_t clear = in->psn + (uint32_t)(int32_t)in->clear_psn_offset;

	if (in->clear_psn_offset > 0)
		return;
	if (pdc_psn_after(clear, tgt->cack_psn + 1))
		clear = tgt->cack_psn + 1;
	if (pdc_psn_after(clear, tgt->clear_psn)) {
		tgt->clear_psn = clear;
		pdc_resp_clear(mgr, pdc, clear);
	}
}

/* Bookkeeping after an accepted arrival: when to ACK (ref 2.9). */
static void pdc_tgt_note_arrival(struct pdc_mgr *mgr, struct pdc *pdc,
				 const struct pdc_tgt_in *in, bool in_order,
				 uint64_t now_ns)
{
	struct pdc_tgt *tgt = &pdc->tgt;

	tgt->ack_cnt++;
	tgt->ack_len += (uint32_t)in->ses_len;
	tgt->last_psn = in->psn;
	tgt->last_psn_ns = now_ns;
	if ((in->flags & UET_PDS_F_REQ_AR) || in->is_close || !in_order ||
	    tgt->ooo_cnt || tgt->ack_cnt >= mgr->cfg.ack_coalesce_cnt ||
	    tgt->ack_len >= mgr->cfg.ack_coalesce_len) {
		tgt->ack_now = true;
	} else if (!tgt->ack_at) {
		tgt->ack_at = now_ns + mgr->cfg.ack_delay_ns;
		pdc_timer_arm(mgr, pdc, tgt->ack_at);
		if (!tgt->ack_listed &&
		    mgr->ack_due_cnt < 2 * mgr->cfg.max_pdcs) {
			tgt->ack_listed = true;
			mgr->ack_due[mgr->ack_due_cnt++] = pdc->id;
		}
	}
	if (tgt->close_seen && tgt->cack_psn == tgt->close_psn)
		pdc_tgt_close(mgr, pdc, 0, now_ns);
}

/* Everything a sequenced arrival goes through once its PDC is known. */
static void pdc_tgt_accept(struct pdc_mgr *mgr, struct pdc *pdc,
			   const struct pdc_rx_meta *meta,
			   const struct pdc_tgt_in *in, uint64_t now_ns)
{
	struct pdc_tgt *tgt = &pdc->tgt;
	bool in_order = in->psn == tgt->cack_psn + 1;

	tgt->last_rx_ns = now_ns;
	tgt->close_req_cnt = 0;
	tgt->ecn |= meta->ecn_ce;
	tgt->rcvd_bytes += (uint32_t)in->ses_len;
	tgt->ack_ev = meta->ev;	/* the ACK returns on the path it came by */
	pdc_tgt_apply_clear(mgr, pdc, in);
	if (pdc_tgt_is_dup(pdc, in->psn)) {
		/* Answer at once, with the stored response if there is one. */
		mgr->stats.rx_dup++;
		pdc_resp_resend(mgr, pdc, in->psn);
		tgt->ack_now = true;
		pdc_ready(mgr, pdc);
		return;
	}
	if (!pdc_tgt_may_accept(mgr, pdc, in->psn))
		return;
	/*
	 * The ACK's RETX echo: what it covers arrived by a resend. A copy
	 * of what had arrived says the opposite (the resend was needless),
	 * so it sets no echo: when a late process reads the originals and
	 * the timer's copy in one batch, the ACK for them then lets the
	 * initiator undo its timeout (pdc_ini_rto_undo).
	 */
	tgt->retx |= !!(in->flags & UET_PDS_F_REQ_RETX);
	if (in->is_close) {
		tgt->close_seen = true;
		tgt->close_psn = in->psn;
	} else if (!pdc_tgt_deliver(mgr, pdc, in)) {
		return;
	}
	pdc_tgt_mark(pdc, in->psn);
	pdc_tgt_note_arrival(mgr, pdc, in, in_order, now_ns);
	if (pdc_tgt_has_ack(pdc))
		pdc_ready(mgr, pdc);
	if (mgr->cfg.idle_ns && pdc->state != PDC_ST_TIME_WAIT)
		pdc_timer_arm(mgr, pdc, now_ns + mgr->cfg.idle_ns);
}

/*
 * A request a switch cut to its headers (3.6.17): its data is gone, so
 * nothing is delivered or recorded, not even a PDC for a SYN. The NACK
 * (TRIMMED, or TRIMMED_LASTHOP) has the initiator resend it at once,
 * with the mark it carried. A forged one only makes its sender resend.
 */
static void pdc_tgt_rx_trimmed(struct pdc_mgr *mgr,
			       const struct pdc_rx_meta *meta,
			       const struct pdc_req *req)
{
	const struct pdc *pdc = NULL;
	struct pdc_nack n = {
		.pro.type = UET_PDS_TYPE_NACK,
		.pro.flags = meta->ecn_ce ? UET_PDS_F_NACK_M : 0,
		.nack_code = meta->trim == PDC_TRIM_LASTHOP ?
			     UET_PDS_NACK_TRIMMED_LASTHOP :
			     UET_PDS_NACK_TRIMMED,
		.nack_psn = req->psn,
		.dpdcid = req->spdcid,
	};

	mgr->stats.rx_trimmed++;
	if (!(req->pro.flags & UET_PDS_F_REQ_SYN))
		pdc = pdc_by_id(mgr, req->dpdcid);
	if (pdc && pdc->role == PDC_ROLE_TGT && pdc->peer == meta->peer &&
	    pdc->rid == req->spdcid)
		n.spdcid = pdc->id;
	pdc_nack_queue(mgr, meta->peer, &n);
}

void pdc_tgt_rx_req(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		    const struct pdc_req *req, const uint8_t *ses,
		    size_t ses_len, uint64_t now_ns)
{
	uint8_t mode = req->pro.type == UET_PDS_TYPE_ROD_REQ ||
		       req->pro.type == UET_PDS_TYPE_ROD_CC_REQ ?
		       PDC_MODE_ROD : PDC_MODE_RUD;
	struct pdc_tgt_in in = {
		.psn = req->psn,
		.flags = req->pro.flags,
		.clear_psn_offset = req->clear_psn_offset,
		.next_hdr = req->pro.next_hdr,
		.ses = ses,
		.ses_len = ses_len,
	};
	struct pdc *pdc;

	mgr->stats.rx_ce += meta->ecn_ce;
	if (meta->trim) {
		pdc_tgt_rx_trimmed(mgr, meta, req);
		return;
	}
	if (req->pro.flags & UET_PDS_F_REQ_SYN)
		pdc = pdc_tgt_syn(mgr, meta, req, &in, mode, now_ns);
	else
		pdc = pdc_tgt_by_dpdcid(mgr, meta->peer, req->dpdcid,
					req->spdcid, req->psn, now_ns);
	if (!pdc)
		return;
	if (pdc->mode != mode) {
		pdc_tgt_nack(mgr, meta->peer, pdc, req->spdcid, req->psn,
			     UET_PDS_NACK_PDC_MODE_MISMATCH, 0);
		return;
	}
	pdc_tgt_accept(mgr, pdc, meta, &in, now_ns);
	if (req->pro.type == UET_PDS_TYPE_RUD_CC_REQ ||
	    req->pro.type == UET_PDS_TYPE_ROD_CC_REQ)
		pdc_rccc_tgt_backlog(mgr, pdc, req->credit_target);
}

/* CLOSE is sequenced like a request; ACK_REQ asks for an ACK now. */
void pdc_tgt_rx_ctl(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		    const struct pdc_ctl *ctl, uint64_t now_ns)
{
	struct pdc_tgt_in in = {
		.psn = ctl->psn,
		.flags = ctl->pro.flags & UET_PDS_F_CTL_RETX ?
			 UET_PDS_F_REQ_RETX : 0,
		.is_close = true,
	};
	struct pdc *pdc;

	if (ctl->pro.flags & UET_PDS_F_CTL_SYN) {
		mgr->stats.rx_stale++;	/* nothing to close or ask about */
		return;
	}
	pdc = pdc_tgt_by_dpdcid(mgr, meta->peer, ctl->dpdcid, ctl->spdcid,
				ctl->psn, now_ns);
	if (!pdc)
		return;
	if (ctl->pro.next_hdr == UET_PDS_CTL_CLOSE) {
		pdc_tgt_accept(mgr, pdc, meta, &in, now_ns);
	} else if (ctl->pro.next_hdr == UET_PDS_CTL_ACK_REQ) {
		pdc->tgt.ack_now = true;
		pdc_ready(mgr, pdc);
	}
}

/*
 * Closes the target end: TIME_WAIT until strays have drained. |err| is 0
 * for a CLOSE, else why we gave up (the close then counts as in error).
 */
void pdc_tgt_close(struct pdc_mgr *mgr, struct pdc *pdc, int err,
		   uint64_t now_ns)
{
	struct pdc_tgt *tgt = &pdc->tgt;

	if (pdc->state == PDC_ST_TIME_WAIT)
		return;
	pdc->state = PDC_ST_TIME_WAIT;
	pdc_counts_dec(&mgr->tgt_live, pdc->peer);
	if (err) {
		tgt->closed_in_err = true;
		tgt->close_seen = true;
		tgt->close_psn = tgt->cack_psn;
		tgt->close_req = false;
	}
	tgt->expire_at = now_ns + mgr->cfg.time_wait_ns;
	pdc_resp_free_all(mgr, pdc);
	pdc_timer_arm(mgr, pdc, tgt->expire_at);
	mgr->stats.pdc_closed++;
	pdc_emit(mgr, pdc, PDC_EV_CLOSED, err);
}

/* Idle: ask the initiator to close, a few times, then close in error. */
static void pdc_tgt_idle(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns)
{
	struct pdc_tgt *tgt = &pdc->tgt;

	if (tgt->close_req_cnt >= PDC_CLOSE_REQ_TRIES) {
		pdc_tgt_close(mgr, pdc, -ETIMEDOUT, now_ns);
		return;
	}
	tgt->close_req_cnt++;
	tgt->close_req = true;
	pdc_ready(mgr, pdc);
}

void pdc_tgt_on_timer(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns)
{
	struct pdc_tgt *tgt = &pdc->tgt;
	uint64_t idle_at;

	if (tgt->ack_at && now_ns >= tgt->ack_at) {
		tgt->ack_at = 0;
		tgt->ack_now = true;
		pdc_ready(mgr, pdc);
	}
	if (pdc->state == PDC_ST_TIME_WAIT) {
		if (now_ns >= tgt->expire_at) {
			pdc_free(mgr, pdc);
			return;
		}
		pdc_timer_arm(mgr, pdc, tgt->expire_at);
	} else if (mgr->cfg.idle_ns) {
		idle_at = tgt->last_rx_ns +
			  mgr->cfg.idle_ns * (1 + tgt->close_req_cnt);
		if (now_ns >= idle_at)
			pdc_tgt_idle(mgr, pdc, now_ns);
		/* Each CLOSE_REQ waits one more idle period for an answer. */
		if (pdc->state != PDC_ST_TIME_WAIT)
			pdc_timer_arm(mgr, pdc, tgt->last_rx_ns + mgr->cfg.idle_ns *
				      (1 + tgt->close_req_cnt));
	}
	if (tgt->ack_at)
		pdc_timer_arm(mgr, pdc, tgt->ack_at);
}

/*
 * Every delayed ACK now: the PDCs that armed one since the last flush
 * (mgr->ack_due), not every PDC with a timer. Should the list have run
 * full (each PDC is on it once, so only through ids of closed PDCs
 * piling up between flushes), the timer heap holds them all.
 */
static void pdc_ack_now(struct pdc_mgr *mgr, struct pdc *pdc)
{
	pdc->tgt.ack_listed = false;
	if (!pdc->tgt.ack_at)
		return;
	pdc->tgt.ack_at = 0;
	pdc->tgt.ack_now = true;
	pdc_ready(mgr, pdc);
}

void pdc_ack_flush(struct pdc_mgr *mgr)
{
	bool full = mgr->ack_due_cnt == 2 * mgr->cfg.max_pdcs;

	for (uint32_t i = 0; i < mgr->ack_due_cnt; i++) {
		struct pdc *pdc = pdc_by_id(mgr, mgr->ack_due[i]);

		if (pdc && pdc->role == PDC_ROLE_TGT)
			pdc_ack_now(mgr, pdc);
	}
	mgr->ack_due_cnt = 0;
	for (uint32_t i = 0; full && i < mgr->heap_cnt; i++) {
		struct pdc *pdc = mgr->heap[i].pdc;

		if (pdc->role == PDC_ROLE_TGT)
			pdc_ack_now(mgr, pdc);
	}
}
