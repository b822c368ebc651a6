/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What an initiator PDC receives: ACKs (cumulative, SACK, the SES response,
 * ECN), NACKs (ref 2.6) and CLOSE_REQ. Every reply is checked against the
 * PDC's ids and live PSN range first, so strays of an old incarnation, ours
 * or the peer's, change nothing.
 */
#include <errno.h>

#include "pdc/pdc_priv.h"

static struct pdc *pdc_ini_find(struct pdc_mgr *mgr,
				const struct pdc_rx_meta *meta, uint16_t id)
{
	struct pdc *pdc = pdc_by_id(mgr, id);

	if (!pdc || pdc->role != PDC_ROLE_INI || pdc->peer != meta->peer) {
		mgr->stats.rx_stale++;
		return NULL;
	}
	return pdc;
}

/*
 * The packet whose arrival drew an ACK times the path it took (the ACK's
 * SACK bits may tell of others late). A resent one: its copy's RTT,
 * unless the ACK came back too soon for the copy (pdc_ini_delivered), when
 * the late original's is the one to learn: the slow path that made the
 * resend spurious, which would otherwise never show, its packets all
 * resent before they arrive.
 */
static void pdc_ini_path_rtt(struct pdc *pdc, const struct pdc_slot *slot,
			     uint64_t now_ns)
{
	uint64_t rtt = now_ns - slot->sent_ns;

	if (pdc_ini_acks_earlier_copy(&pdc->ini, slot, now_ns))
		rtt = now_ns - slot->first_ns;
	else if (slot->ev)	/* the copy's path, as it was sent */
		pdc_ev_rtt_set(pdc, slot->ev, rtt);
	pdc_rtt_path_sample(&pdc->ini, rtt, now_ns);
}

/*
 * A packet the timer resent is acknowledged by an ACK that answers no
 * retransmission: its original arrived, the timeout was spurious (the
 * peer did not run for a while: two cores shared by a dozen processes),
 * and the windows go back to what they were before it.
 */
static void pdc_ini_rto_undo(struct pdc_mgr *mgr, struct pdc_ini *ini)
{
	ini->undo_ok = false;
	mgr->stats.rto_undone++;
	if (ini->cwnd < ini->undo_cwnd) {
		ini->cwnd = ini->undo_cwnd;
		ini->ssthresh = ini->undo_ssthresh;
	}
	if (ini->nscc && ini->cc.cwnd < ini->undo_nscc) {
		ini->cc.cwnd = ini->undo_nscc;
		ini->cc.trigger_qa = false;
	}
}

/*
 * The target has |slot|, newly: its EV is good for reuse unless the ACK
 * carried a mark, and RACK learns the newest delivery. An ACK back sooner
 * after a retransmission than 3/4 of any round trip answers an earlier
 * copy: the retransmission was spurious (the packet was late, not lost),
 * and the reorder window widens.
 */
static void pdc_ini_delivered(struct pdc_mgr *mgr, struct pdc *pdc,
			      struct pdc_slot *slot, bool ecn, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;

	if (slot->tx_cnt > 1 && ini->undo_ok) {
		if (!ini->ack_retx)
			pdc_ini_rto_undo(mgr, ini);
		else
			ini->undo_ok = false;	/* a resend was needed */
	}
	if (pdc_ini_acks_earlier_copy(ini, slot, now_ns)) {
		mgr->stats.retx_spurious++;
		if (ini->reo_mult < PDC_REO_MULT_MAX)
			ini->reo_mult++;
		return;
	}
	if (!ecn)
		pdc_ev_good(mgr, pdc, slot->ev, now_ns);
	if (slot->sent_ns >= ini->rack_sent_ns) {
		ini->rack_sent_ns = slot->sent_ns;
		ini->rack_rtt_ns = now_ns - slot->sent_ns;
	} else if (slot->tx_cnt == 1) {
		ini->reordered = true;	/* overtaken by a later one */
	}
}

/* Marks |psn| acknowledged; completes it unless it waits for a response. */
static uint32_t pdc_ini_ack_one(struct pdc_mgr *mgr, struct pdc *pdc,
				uint32_t psn, bool ecn, uint64_t now_ns)
{
	struct pdc_slot *slot;

	if (!pdc_ini_is_live(pdc, psn))
		return 0;
	slot = pdc_ini_slot(pdc, psn);
	if (slot->flags & PDC_SLOT_ACKED)
		return 0;
	pdc_ini_delivered(mgr, pdc, slot, ecn, now_ns);
	pdc_ini_mark_acked(pdc, slot);
	if (!(slot->flags & PDC_SLOT_RESP))
		pdc_ini_complete(mgr, pdc, slot, 0, NULL);
	return 1;
}

/* The ACK answers |psn| with a SES response: that completes it. */
static uint32_t pdc_ini_ack_resp(struct pdc_mgr *mgr, struct pdc *pdc,
				 uint32_t psn, const struct pdc_tx_done *resp,
				 bool ecn, uint64_t now_ns)
{
	struct pdc_slot *slot = pdc_ini_slot(pdc, psn);
	uint32_t acked = 0;

	if (slot->flags & PDC_SLOT_DONE)
		return 0;
	if (!(slot->flags & PDC_SLOT_ACKED)) {
		pdc_ini_delivered(mgr, pdc, slot, ecn, now_ns);
		pdc_ini_mark_acked(pdc, slot);
		acked = 1;
	}
	pdc_ini_complete(mgr, pdc, slot, 0, resp);
	return acked;
}

/* ref 2.4, 2.9: bit i of the bitmap is PSN cack + sack_psn_offset + i. */
static uint32_t pdc_ini_ack_sack(struct pdc_mgr *mgr, struct pdc *pdc,
				 const struct pdc_ack *ack, bool ecn,
				 uint64_t now_ns)
{
	uint32_t base = ack->cack_psn + (uint32_t)(int32_t)ack->sack_psn_offset;
	uint64_t bits = ack->sack_bitmap;
	uint32_t acked = 0;

	while (bits) {
		uint32_t psn = base + (uint32_t)__builtin_ctzll(bits);

		bits &= bits - 1;
		if (!pdc_ini_is_live(pdc, psn))
			continue;
		acked += pdc_ini_ack_one(mgr, pdc, psn, ecn, now_ns);
		pdc->ini.sack_high = pdc_psn_max(pdc->ini.sack_high, psn);
	}
	return acked;
}

/* An ACK_CC with NSCC state: what it says of the target. */
static bool pdc_ack_has_nscc(const struct pdc_ack *ack)
{
	return ack->pro.type == UET_PDS_TYPE_ACK_CC &&
	       ack->cc_type == UET_PDS_CC_NSCC;
}

/*
 * NSCC's RTT sample from the packet that drew |ack|: the round trip less
 * the time the target held it (service_time), for a packet sent once, or
 * resent once when the ACK says it answers the resend (RETX).
 */
static uint64_t pdc_ini_nscc_rtt(const struct pdc_ack *ack,
				 const struct pdc_slot *slot, uint64_t now_ns)
{
	uint64_t rtt = now_ns - slot->sent_ns, svc;

	if (!pdc_ack_has_nscc(ack) ||
	    ack->cc.nscc.service_time == UET_PDS_NSCC_SERVICE_TIME_NONE ||
	    !(slot->tx_cnt == 1 || (slot->tx_cnt == 2 &&
				    (ack->pro.flags & UET_PDS_F_ACK_RETX))))
		return 0;
	svc = (uint64_t)ack->cc.nscc.service_time *
	      UET_PDS_NSCC_SERVICE_TIME_NS;
	return rtt > svc ? rtt - svc : 0;
}

/*
 * Applies the PSN facts of |ack| (response first, so a response is never
 * overtaken by the cumulative ACK that also covers it). Returns the number
 * of packets newly acknowledged; |*nscc_rtt| gets NSCC's RTT sample.
 */
static uint32_t pdc_ini_ack_psns(struct pdc_mgr *mgr, struct pdc *pdc,
				 const struct pdc_ack *ack,
				 const struct pdc_tx_done *resp,
				 uint64_t *nscc_rtt, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint32_t ack_psn = ack->cack_psn + (uint32_t)(int32_t)ack->ack_psn_offset;
	bool ecn = ack->pro.flags & UET_PDS_F_ACK_M;
	uint32_t psn, acked = 0;
	uint64_t rtt_ns = UINT64_MAX, slow_ns = 0;

	ini->ack_retx = ack->pro.flags & UET_PDS_F_ACK_RETX;

	if (!(ack->pro.flags & UET_PDS_F_ACK_P) &&
	    pdc_ini_is_live(pdc, ack_psn)) {
		struct pdc_slot *slot = pdc_ini_slot(pdc, ack_psn);

		if (!(slot->flags & PDC_SLOT_ACKED)) {
			/* Karn: only a packet sent once times the path. */
			if (slot->tx_cnt == 1)
				rtt_ns = now_ns - slot->sent_ns;
			else if (now_ns - slot->sent_ns >= ini->rto_ns)
				slow_ns = now_ns - slot->sent_ns;
			pdc_ini_path_rtt(pdc, slot, now_ns);
		}
		*nscc_rtt = pdc_ini_nscc_rtt(ack, slot, now_ns);
		/* The mark was set on the way of the packet that drew it. */
		if (ecn)
			pdc_ev_bad(mgr, pdc, slot->ev, now_ns);
		if (resp)
			acked += pdc_ini_ack_resp(mgr, pdc, ack_psn, resp,
						  ecn, now_ns);
	}
	if (rtt_ns != UINT64_MAX) {	/* before RACK judges by min RTT */
		pdc_rtt_sample(&mgr->cfg, ini, rtt_ns, now_ns);
		pdc_rto_hint_sample(mgr, pdc_rto_estimate(&mgr->cfg, ini));
	} else if (slow_ns) {
		/*
		 * Even the last copy of a resent packet waited a whole RTO:
		 * whichever copy drew the ACK, the peer took at least that
		 * long to answer (its process was off its core). Not a
		 * sample of the path (it is ambiguous, and one that says
		 * less than the truth would still raise srtt by the copies'
		 * waits at high loss: the unit streams at 20% failed), but
		 * what new PDCs to such peers should wait before resending.
		 */
		pdc_rto_hint_sample(mgr, slow_ns);
	}
	if (pdc_psn_after(ack->cack_psn, ini->cack_psn)) {
		for (psn = ini->cack_psn + 1; psn != ack->cack_psn + 1; psn++)
			acked += pdc_ini_ack_one(mgr, pdc, psn, ecn, now_ns);
		ini->cack_psn = ack->cack_psn;
	}
	ini->sack_high = pdc_psn_max(ini->sack_high, ini->cack_psn);
	if (ack->pro.type != UET_PDS_TYPE_ACK && ack->sack_bitmap)
		acked += pdc_ini_ack_sack(mgr, pdc, ack, ecn, now_ns);
	return acked;
}

/*
 * How long the packet |slot| may stay missing, when one sent after it was
 * delivered, before it counts as lost. The RTO until PDC_RACK_SAMPLES RTTs
 * have shown the paths' spread. Then, until packets have been seen to
 * overtake each other, RACK's: the newest delivery's RTT and a quarter of
 * the minimum RTT (one path: a hole is a loss, found within a round trip).
 * Once they have (spraying over paths whose queues differ): the latest RTT
 * of the packet's own path, its EV (pdc_ev_rtt: a delivery on a fast path
 * says little of a slow one), or of the slowest path lately when its EV's
 * is not known, plus RACK's reorder window widened by each spurious
 * retransmission, or twice the RTT variation when more. Never past the
 * RTO, which would resend it anyway. Measured on the emulated fabric (4
 * links, 1 MiB writes, A/B of 2 runs): with the slowest path's RTT for
 * every packet, 22-197 packets of 25600 resent without any loss; with
 * each path's own, 19-22, the other figures alike; with a margin of a
 * quarter of the RTT and no RTO cap, none without loss but a slow link's
 * flow at half its rate (every loss waits for the slowest queue).
 */
struct pdc_reorder {
	uint64_t wait;		/* for every packet, unless per_path */
	uint64_t reo;		/* per_path: added to the path's RTT */
	bool per_path;
};

/* What pdc_ini_reorder_wait() needs of the PDC, once per ACK. */
static struct pdc_reorder pdc_ini_reorder(const struct pdc_ini *ini)
{
	uint64_t reo = ini->min_rtt_ns / 4 * (1u + ini->reo_mult);
	struct pdc_reorder r = { .wait = ini->rto_ns };

	if (ini->rtt_cnt < PDC_RACK_SAMPLES)
		return r;
	if (!ini->reordered) {
		if (ini->rack_rtt_ns + reo < r.wait)
			r.wait = ini->rack_rtt_ns + reo;
		return r;
	}
	r.per_path = true;
	r.reo = reo > 2 * ini->rttvar_ns ? reo : 2 * ini->rttvar_ns;
	return r;
}

static uint64_t pdc_ini_reorder_wait(const struct pdc *pdc,
				     const struct pdc_reorder *r,
				     const struct pdc_slot *slot)
{
	const struct pdc_ini *ini = &pdc->ini;
	uint64_t wait;

	if (!r->per_path)
		return r->wait;
	wait = pdc_ev_rtt(pdc, slot->ev);
	if (!wait)
		wait = pdc_ini_max_rtt(ini);
	if (wait < ini->rack_rtt_ns)
		wait = ini->rack_rtt_ns;
	wait += r->reo;
	return wait < ini->rto_ns ? wait : ini->rto_ns;
}

/*
 * Holes below the highest SACKed PSN, by RACK's rule (pdc_ini.rack_*): a
 * packet sent no later than the newest one delivered, and missing for
 * pdc_ini_reorder_wait(), is lost. It goes again, on another path, and its
 * EV is left. The hole that waits least sets the reorder timer (rack_at).
 * Returns how many were queued.
 */
uint32_t pdc_ini_sack_holes(struct pdc_mgr *mgr, struct pdc *pdc,
			    uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	struct pdc_reorder r = pdc_ini_reorder(ini);
	uint32_t psn = ini->cack_psn + 1, cnt = 0;
	uint64_t next = UINT64_MAX;

	if (pdc_psn_after(ini->una_psn, psn))
		psn = ini->una_psn;
	for (; pdc_psn_before(psn, ini->sack_high) && psn != ini->send_psn;
	     psn++) {
		struct pdc_slot *slot = pdc_ini_slot(pdc, psn);
		uint64_t wait;

		if (slot->flags & (PDC_SLOT_ACKED | PDC_SLOT_RETXQ) ||
		    slot->sent_ns > ini->rack_sent_ns ||
		    pdc_slot_tries(slot) > mgr->cfg.max_retries)
			continue;
		wait = pdc_ini_reorder_wait(pdc, &r, slot);
		if (now_ns - slot->sent_ns < wait) {
			if (slot->sent_ns + wait < next)
				next = slot->sent_ns + wait;
			continue;
		}
		pdc_ini_lost(mgr, pdc, psn, now_ns);
		ini->loss_ns = now_ns;
		mgr->stats.retx_sack++;
		cnt++;
	}
	/*
	 * The timer stands in for ACKs that stopped coming; while they come
	 * they judge, as before. So it waits what an ACK may be held at the
	 * target (coalescing, and behind an answer) more: packets sprayed
	 * over paths of different delays were otherwise resent needlessly
	 * (test_pdc_paths: 12 of 4000 without that margin).
	 */
	ini->rack_at = next == UINT64_MAX ? 0 :
		       next + mgr->cfg.ack_delay_ns + mgr->cfg.ack_hold_ns;
	if (ini->rack_at)
		pdc_timer_arm(mgr, pdc, ini->rack_at);
	return cnt;
}

/* The first ACK names the target's PDC; a different name later is a restart. */
static bool pdc_ini_check_target(struct pdc_mgr *mgr, struct pdc *pdc,
				 uint16_t spdcid)
{
	if (!pdc->rid) {
		pdc->rid = spdcid;
		if (pdc->state == PDC_ST_SYN)
			pdc->state = PDC_ST_EST;
		pdc_ini_answered(mgr, pdc);
		pdc_emit(mgr, pdc, PDC_EV_ESTABLISHED, 0);
		return true;
	}
	if (spdcid == pdc->rid)
		return true;
	mgr->stats.peer_restarts++;
	pdc_log(mgr, "pdc %#x: peer %u answers as pdc %#x, not %#x: restarted",
		pdc->id, pdc->peer, spdcid, pdc->rid);
	pdc_emit(mgr, pdc, PDC_EV_PEER_RESTART, -ECONNRESET);
	pdc_ini_fail(mgr, pdc, -ECONNRESET);
	return false;
}

/*
 * NSCC's part of an ACK: bytes out of flight by the target's count of
 * bytes received (ACK_CC), or by the PSNs it acknowledged when it sent no
 * CC state, never more than the PSNs still unacknowledged hold; then the
 * window.
 */
static void pdc_ini_nscc_ack(struct pdc_mgr *mgr, struct pdc *pdc,
			     const struct pdc_ack *ack,
			     struct pdc_nscc_ack *cc, uint32_t acked,
			     uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;

	cc->pkts = acked;
	cc->ecn = ack->pro.flags & UET_PDS_F_ACK_M;
	if (pdc_ack_has_nscc(ack)) {
		cc->newly = pdc_nscc_received(ini, ack->cc.nscc.rcvd_bytes);
		cc->rcv_penalty = ack->cc.nscc.rcv_cwnd_penalty;
		cc->restore = ack->cc.nscc.restore_cwnd;
	} else {
		cc->newly = ini->acked_bytes;
		ini->cc.inflight = ini->cc.inflight > ini->acked_bytes ?
				   ini->cc.inflight - ini->acked_bytes : 0;
	}
	if (ini->cc.inflight > ini->infl_bytes)
		ini->cc.inflight = ini->infl_bytes;
	pdc_nscc_on_ack(mgr, ini, cc, now_ns);
}

static bool pdc_ini_ack_is_sane(const struct pdc_mgr *mgr,
				const struct pdc *pdc,
				const struct pdc_ack *ack, size_t resp_len)
{
	const struct pdc_ini *ini = &pdc->ini;

	if (!ack->spdcid || resp_len > PDC_RESP_MAX_LEN)
		return false;
	/* Nothing past what we sent, nothing older than a window. */
	return !pdc_psn_after(ack->cack_psn, ini->send_psn - 1) &&
	       !pdc_psn_before(ack->cack_psn,
			       ini->una_psn - 1 - mgr->cfg.window);
}

void pdc_ini_rx_ack(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		    const struct pdc_ack *ack, const uint8_t *resp,
		    size_t resp_len, uint64_t now_ns)
{
	struct pdc_tx_done rsp = {
		.resp_next_hdr = ack->pro.next_hdr,
		.resp = resp,
		.resp_len = resp_len,
	};
	struct pdc *pdc = pdc_ini_find(mgr, meta, ack->dpdcid);
	struct pdc_nscc_ack cc = { 0 };
	struct pdc_ini *ini;
	uint32_t acked, req, done;

	if (!pdc)
		return;
	if (!pdc_ini_ack_is_sane(mgr, pdc, ack, resp_len) &&
	    (!pdc_ini_ack_first_start(mgr, pdc, ack->cack_psn) ||
	     !pdc_ini_ack_is_sane(mgr, pdc, ack, resp_len))) {
		mgr->stats.rx_stale++;
		return;
	}
	if (!pdc_ini_check_target(mgr, pdc, ack->spdcid))
		return;
	ini = &pdc->ini;
	ini->acked_bytes = 0;
	done = ini->done_cnt;
	acked = pdc_ini_ack_psns(mgr, pdc, ack, ack->pro.next_hdr !=
				 UET_PDS_NEXT_HDR_NONE ? &rsp : NULL,
				 &cc.rtt_ns, now_ns);
	if (acked) {
		ini->rto_at = ini->una_psn != ini->send_psn ?
			      now_ns + ini->rto_ns : 0;
		ini->probe_cnt = 0;
		ini->probe_at = 0;
		pdc_ini_arm_probe(mgr, pdc, now_ns);
	}
	if (ini->nscc)
		pdc_ini_nscc_ack(mgr, pdc, ack, &cc, acked, now_ns);
	if (pdc_psn_after(ini->sack_high, ini->cack_psn) &&
	    pdc_ini_sack_holes(mgr, pdc, now_ns))
		pdc_cc_on_loss(&mgr->cfg, ini);
	else
		pdc_cc_on_ack(&mgr->cfg, ini, acked,
			      ack->pro.flags & UET_PDS_F_ACK_M);
	if (!pdc_ini_advance(mgr, pdc, now_ns))
		return;
	req = (ack->pro.flags & UET_PDS_F_ACK_REQ_MASK) >>
	      UET_PDS_F_ACK_REQ_SHIFT;
	if (req == UET_PDS_ACK_REQ_CLOSE && !pdc_ini_close_asked(mgr, pdc,
								   now_ns))
		return;
	/*
	 * Progress lets more of a timeout's packets go: as many as were
	 * acknowledged or, for reads, answered; all of them once an ACK
	 * echoes a resend that filled a hole (the loss is real: a lossy
	 * path, where one packet per round trip would crawl).
	 */
	if (acked && ini->ack_retx)
		ini->loss_ns = now_ns;
	if (ini->rto_recov && (acked || done != ini->done_cnt))
		pdc_ini_rto_release(mgr, pdc, ini->ack_retx ? mgr->cfg.window :
					      acked + ini->done_cnt - done,
				    now_ns);
	if (ini->rto_at)
		pdc_timer_arm(mgr, pdc, ini->rto_at);
	else if (mgr->cfg.idle_ns)
		pdc_timer_arm(mgr, pdc, now_ns + mgr->cfg.idle_ns);
	pdc_rccc_wake(mgr, pdc, now_ns);
	if (pdc_ini_can_send(pdc))
		pdc_ready(mgr, pdc);
}
