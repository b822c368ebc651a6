/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Initiator end of a PDC over time: completion, close and failure, the
 * retransmit timer, the tail-loss probe and idle close.
 */
#include <errno.h>
#include <string.h>

#include "pdc/pdc_priv.h"

/* The target has |slot|: it no longer counts against the window. */
void pdc_ini_mark_acked(struct pdc *pdc, struct pdc_slot *slot)
{
	slot->flags |= PDC_SLOT_ACKED;
	pdc->ini.acked_bytes += pdc_ini_slot_bytes(slot);
	if (slot->flags & PDC_SLOT_INFL) {
		slot->flags &= ~PDC_SLOT_INFL;
		pdc->ini.inflight--;
		pdc->ini.infl_bytes -= pdc_ini_slot_bytes(slot);
	}
}

void pdc_ini_complete(struct pdc_mgr *mgr, struct pdc *pdc,
		      struct pdc_slot *slot, int status,
		      const struct pdc_tx_done *resp)
{
	struct pdc_tx_done done = {
		.cookie = slot->cookie,
		.peer = pdc->peer,
		.status = status,
		.resp_next_hdr = resp ? resp->resp_next_hdr :
					UET_PDS_NEXT_HDR_NONE,
		.resp = resp ? resp->resp : NULL,
		.resp_len = resp ? resp->resp_len : 0,
	};

	slot->flags |= PDC_SLOT_DONE;
	if (!status)
		pdc->ini.done_cnt++;
	if (!(slot->flags & PDC_SLOT_CLOSE))
		mgr->ops.tx_done(mgr->ctx, &done);
}

static void pdc_ini_closed(struct pdc_mgr *mgr, struct pdc *pdc, int err)
{
	mgr->stats.pdc_closed++;
	pdc_emit(mgr, pdc, PDC_EV_CLOSED, err);
	pdc_free(mgr, pdc);
}

/* Draining done: queue CLOSE, or just go when the target never knew us. */
static bool pdc_ini_queue_close(struct pdc_mgr *mgr, struct pdc *pdc)
{
	struct pdc_ini *ini = &pdc->ini;
	struct pdc_slot *slot;

	if (!pdc->rid) {
		pdc_ini_closed(mgr, pdc, 0);
		return false;
	}
	slot = pdc_ini_slot(pdc, ini->next_psn++);
	if (slot->flags & PDC_SLOT_RETXQ)
		pdc_ini_retx_prune(pdc);
	memset(slot, 0, sizeof(*slot));
	slot->flags = PDC_SLOT_CLOSE;
	slot->retx_next = PDC_NO_SLOT;
	ini->close_queued = true;
	pdc_ready(mgr, pdc);
	return true;
}

/*
 * Moves una over finished packets and finishes a close. Returns false when
 * the PDC is gone.
 */
bool pdc_ini_advance(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;

	while (ini->una_psn != ini->next_psn &&
	       (pdc_ini_slot(pdc, ini->una_psn)->flags & PDC_SLOT_DONE))
		ini->una_psn++;
	if (ini->una_psn != ini->next_psn)
		return true;
	ini->last_active_ns = now_ns;
	if (pdc->state != PDC_ST_CLOSING)
		return true;
	if (ini->close_queued) {
		pdc_ini_closed(mgr, pdc, 0);
		return false;
	}
	return pdc_ini_queue_close(mgr, pdc);
}

/* Returns false when the PDC is gone. */
bool pdc_ini_start_close(struct pdc_mgr *mgr, struct pdc *pdc,
			 uint64_t now_ns)
{
	if (pdc->state == PDC_ST_CLOSING)
		return true;
	pdc_hash_del(mgr, pdc);
	pdc->state = PDC_ST_CLOSING;
	return pdc_ini_advance(mgr, pdc, now_ns);
}

int pdc_close(struct pdc_mgr *mgr, uint32_t peer, uint8_t mode,
	      uint64_t now_ns)
{
	struct pdc *pdc = pdc_hash_find(mgr, pdc_key_ini(peer, mode), NULL);

	if (!pdc)
		return -ENOENT;
	pdc_ini_start_close(mgr, pdc, now_ns);
	return 0;
}

/* Completes every pending packet with |err| and frees the PDC. */
void pdc_ini_fail(struct pdc_mgr *mgr, struct pdc *pdc, int err)
{
	struct pdc_ini *ini = &pdc->ini;
	bool had_data = false;
	uint32_t psn;

	/*
	 * What a failure looked like, for UET_ENGINE_DEBUG: with the oldest
	 * packet's copies and age, and the last NACK, which tell a peer that
	 * never answered from one that answered with something else.
	 */
	if (mgr->ops.log) {
		const struct pdc_slot *old = ini->una_psn != ini->send_psn ?
			pdc_ini_slot(pdc, ini->una_psn) : NULL;

		pdc_log(mgr, "pdc %#x to peer %u (its pdc %#x, %s) failed: "
			"%d; psn una %#x send %#x next %#x, srtt %llu us, rto "
			"%llu us; oldest sent %u times over %llu ms%s; "
			"last nack %s", pdc->id, pdc->peer, pdc->rid,
			pdc->state == PDC_ST_SYN ? "unanswered" :
			pdc->state == PDC_ST_EST ? "established" : "closing",
			err, ini->una_psn, ini->send_psn, ini->next_psn,
			(unsigned long long)(ini->srtt_ns / 1000),
			(unsigned long long)(ini->rto_ns / 1000),
			old ? old->tx_cnt : 0, old && old->tx_cnt ?
			(unsigned long long)((old->sent_ns - old->first_ns) /
					     1000000) : 0ull,
			old && (old->flags & PDC_SLOT_RETXQ) ?
			", queued to go again" : "",
			ini->last_nack ? pdc_nack_code_name(ini->last_nack) :
					 "none");
	}
	/*
	 * Out of the hash, and of those opening, first: callbacks that send
	 * open a new PDC.
	 */
	pdc_ini_answered(mgr, pdc);
	pdc_hash_del(mgr, pdc);
	pdc_ready_del(mgr, pdc);
	pdc_timer_del(mgr, pdc);
	pdc->state = PDC_ST_CLOSING;
	for (psn = ini->una_psn; psn != ini->next_psn; psn++) {
		struct pdc_slot *slot = pdc_ini_slot(pdc, psn);

		if (slot->flags & (PDC_SLOT_DONE | PDC_SLOT_CLOSE))
			continue;
		had_data = true;
		pdc_ini_complete(mgr, pdc, slot, err, NULL);
	}
	if (had_data)
		mgr->stats.pdc_failed++;
	else
		mgr->stats.pdc_closed++;
	pdc_emit(mgr, pdc, had_data ? PDC_EV_FAILED : PDC_EV_CLOSED, err);
	pdc_free(mgr, pdc);
}

/*
 * Recovery after a timeout: |room| more of the packets sent before it are
 * queued to go again (the caller readies the PDC), oldest first, skipping
 * those acknowledged, queued by other means or sent again since, and
 * stopping at one that has not yet waited an RTO as the RTT samples now
 * give it (without the back-off): when the peer
 * was only late, its first ACKs sample the delay and the rest of the
 * window, covered by the ACKs that follow, is not sent twice.
 */
void pdc_ini_rto_release(struct pdc_mgr *mgr, struct pdc *pdc,
			 uint32_t room, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint64_t wait_ns;

	if (!ini->rto_recov)
		return;
	wait_ns = ini->srtt_ns ? pdc_rto_estimate(&mgr->cfg, ini) :
				 mgr->cfg.rto_init_ns;
	ini->rto_room = ini->rto_room + room < mgr->cfg.window ?
			ini->rto_room + room : mgr->cfg.window;
	if (pdc_psn_before(ini->rto_next_psn, ini->una_psn))
		ini->rto_next_psn = ini->una_psn;
	if (pdc_psn_after(ini->rto_end_psn, ini->send_psn))
		ini->rto_end_psn = ini->send_psn;	/* renumbered */
	while (ini->rto_room &&
	       pdc_psn_before(ini->rto_next_psn, ini->rto_end_psn)) {
		uint32_t psn = ini->rto_next_psn;
		struct pdc_slot *slot = pdc_ini_slot(pdc, psn);
		bool suspect = pdc_slot_needs_tx(slot) &&
			       !(slot->flags & PDC_SLOT_RETXQ) &&
			       slot->sent_ns < ini->rto_fired_ns;

		if (suspect && now_ns - slot->sent_ns < wait_ns)
			break;
		ini->rto_next_psn++;
		if (!suspect)
			continue;
		pdc_ini_lost(mgr, pdc, psn, now_ns);
		mgr->stats.retx_rto++;
		ini->rto_room--;
	}
	if (!pdc_psn_before(ini->rto_next_psn, ini->rto_end_psn))
		ini->rto_recov = false;
}

/*
 * The retransmit timer: once a packet has waited a full RTO, back off,
 * cut the window and start resending what went before (the oldest now,
 * the rest as ACKs come: pdc_ini_rto_release); fail the PDC once a packet
 * has used all its tries. Returns false when the PDC is gone.
 */
static bool pdc_ini_rto(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint32_t psn, cwnd = ini->cwnd, ssthresh = ini->ssthresh;
	double nscc = ini->cc.cwnd;
	bool lossy = pdc_ini_lossy(ini, now_ns);
	uint32_t due = 0, cnt = 0, dead = 0, held_psn = 0;
	bool queued = false, held = false;

	for (psn = ini->una_psn; psn != ini->send_psn; psn++) {
		struct pdc_slot *slot = pdc_ini_slot(pdc, psn);

		if (!pdc_slot_needs_tx(slot) ||
		    now_ns - slot->sent_ns < ini->rto_ns)
			continue;
		/*
		 * Its copy waits to go (the host is short of CPU or of
		 * frames): not a time-out of the network. Its wait starts
		 * again when the copy leaves; firing now would only back
		 * off and cut the window again for the same copy (a starved
		 * all-to-all fired 4 times for each copy sent). Unless the
		 * link is down: then the frames wait for it, and the copy
		 * spends a try as one sent into the dead link would (else
		 * a link down mid-stream, the tx ring full, held every
		 * operation for as long as it stayed down).
		 */
		if (slot->flags & PDC_SLOT_RETXQ) {
			if (!mgr->link_down) {
				/* held too long: looked at below, once */
				if (!held && now_ns - slot->sent_ns >=
				    (PDC_HELD_RTOS + 1) * ini->rto_ns) {
					held = true;
					held_psn = psn;
				}
				queued = true;
				continue;
			}
			if (slot->tx_cnt < UINT8_MAX)
				slot->tx_cnt++;
			slot->sent_ns = now_ns;
			dead++;
			if (pdc_slot_tries(slot) > mgr->cfg.max_retries) {
				pdc_ini_fail(mgr, pdc, pdc_ini_fail_err(ini));
				return false;
			}
			continue;
		}
		if (pdc_slot_tries(slot) > mgr->cfg.max_retries) {
			pdc_ini_fail(mgr, pdc, pdc_ini_fail_err(ini));
			return false;
		}
		if (!cnt++)
			due = psn;	/* the oldest */
		if (lossy) {	/* everything due goes at once */
			pdc_ini_lost(mgr, pdc, psn, now_ns);
			mgr->stats.retx_rto++;
		}
	}
	if (held)
		pdc_ini_retx_held(mgr, pdc, held_psn, now_ns);
	if (cnt) {
		mgr->stats.rto_fired++;
		pdc_cc_on_loss(&mgr->cfg, ini);
		pdc_rto_backoff(mgr, ini);
		if (!ini->undo_ok) {	/* the first of a run keeps the windows */
			ini->undo_ok = true;
			ini->undo_cwnd = cwnd;
			ini->undo_ssthresh = ssthresh;
			ini->undo_nscc = nscc;
		}
		ini->rto_recov = !lossy;
		if (!lossy) {	/* the oldest now, the rest as ACKs come */
			ini->rto_next_psn = ini->una_psn;
			ini->rto_end_psn = ini->send_psn;
			ini->rto_fired_ns = now_ns;
			ini->rto_room = 0;
			pdc_ini_lost(mgr, pdc, due, now_ns);
			mgr->stats.retx_rto++;
		}
		pdc_ready(mgr, pdc);
	} else if (dead) {	/* back off as for copies sent */
		mgr->stats.rto_fired++;
		pdc_rto_backoff(mgr, ini);
	} else if (queued) {
		pdc_ready(mgr, pdc);
	}
	mgr->stats.rto_link_down += dead;
	ini->rto_at = ini->una_psn != ini->send_psn ? now_ns + ini->rto_ns : 0;
	return true;
}

/*
 * Tail-loss probe: a quiet spell of two RTTs (or the slowest path's RTT
 * lately, when longer: sprayed packets take it) while packets are out means
 * the last ones or their ACK were lost, and no later arrival will tell.
 * Resending the oldest one draws a full ACK long before the RTO would.
 * The last packet out asks for an ACK at once (AR), but the target's
 * caller may hold that ACK a while to send it behind its own answer
 * (cfg.ack_hold_ns; RFC 8985 adds the peer's maximum ACK delay likewise):
 * without it, a ping-pong whose answer takes a little longer than usual
 * drew a needless probe for 7% of its messages (measured, fi_pingpong
 * 4 KiB). Not the coalescing delay: where nobody holds ACKs, a lost ACK
 * of a window's tail then waited it out (1% loss: 40% fewer packets/s).
 */
void pdc_ini_arm_probe(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint64_t max = ini->reordered ? pdc_ini_max_rtt(ini) : 0;
	uint64_t pto_ns = (max > 2 * ini->srtt_ns ? max : 2 * ini->srtt_ns) +
			  ini->rttvar_ns + mgr->cfg.ack_hold_ns;

	if (!ini->srtt_ns || ini->probe_cnt >= PDC_PROBE_MAX ||
	    ini->una_psn == ini->send_psn)
		return;
	ini->probe_at = now_ns + pto_ns;
	/*
	 * Never after the retransmit timer (RFC 8985 7.2), for the first
	 * probe of a quiet spell: it goes at the timer's time instead, and
	 * the timer moves a full RTO behind it (pdc_ini_on_timer). A later
	 * probe only if it comes before the timer, which stays the last
	 * resort.
	 */
	if (ini->rto_at && ini->probe_at >= ini->rto_at) {
		if (ini->probe_cnt) {
			ini->probe_at = 0;
			return;
		}
		ini->probe_at = ini->rto_at;
	}
	pdc_timer_arm(mgr, pdc, ini->probe_at);
}

/* The probe's packet or its ACK went missing: its path is suspect too. */
static void pdc_ini_probe(struct pdc_mgr *mgr, struct pdc *pdc,
			  uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint32_t psn;

	ini->probe_at = 0;
	ini->probe_cnt++;
	for (psn = ini->una_psn; psn != ini->send_psn; psn++) {
		struct pdc_slot *slot = pdc_ini_slot(pdc, psn);

		if (pdc_slot_needs_tx(slot)) {
			pdc_ev_bad(mgr, pdc, slot->ev, now_ns);
			pdc_ini_retx_push(pdc, psn);
			mgr->stats.retx_probe++;
			pdc_ready(mgr, pdc);
			return;
		}
	}
}

/*
 * The target asks us to close (CLOSE_REQ, or an ACK's REQ_CLOSE): it has
 * heard nothing from us for an idle period. Packets not yet acknowledged
 * crossed that request on the wire. Closing now would send what comes
 * next on a new PDC while these drain on this one, and a target's SES
 * takes a request on a peer's newer PDC for a new incarnation of the
 * peer, dropping whatever the older PDC still delivers (fabtests' fi_bw
 * -T 1, whose receiver sleeps exactly the idle time, failed so: the old
 * PDC resent its first packet, unanswered, until retries ran out). So
 * the request is ignored (counted); our packets, arriving, tell the
 * target we are not idle, and it asks again after another idle period if
 * they never do. Returns false when the PDC is gone.
 */
bool pdc_ini_close_asked(struct pdc_mgr *mgr, struct pdc *pdc,
			 uint64_t now_ns)
{
	if (pdc->ini.una_psn != pdc->ini.next_psn) {
		mgr->stats.close_req_crossed++;
		return true;
	}
	return pdc_ini_start_close(mgr, pdc, now_ns);
}

void pdc_ini_on_timer(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint64_t idle_at;

	/*
	 * A probe due no later than the retransmit timer goes first, and
	 * the timer is re-armed a full RTO after it (RFC 8985 7.3). A peer
	 * that only went quiet (a receiver off its core for a few ms, its
	 * ACKs late: one uet_bw flow alone on an idle 400 Mbit/s port
	 * fired 6-7 time-outs a run, each after 1.5-3 ms of silence with
	 * srtt 0.8 ms) answers the probe with an ACK that covers it all:
	 * one packet sent twice, no window cut, no back-off. A packet
	 * really lost is resent by the probe as soon as the timer would
	 * have resent it.
	 */
	if (ini->probe_at && now_ns >= ini->probe_at &&
	    (!ini->rto_at || ini->probe_at <= ini->rto_at)) {
		pdc_ini_probe(mgr, pdc, now_ns);
		if (ini->rto_at)
			ini->rto_at = now_ns + ini->rto_ns;
	}
	if (ini->rto_at && now_ns >= ini->rto_at &&
	    !pdc_ini_rto(mgr, pdc, now_ns))
		return;
	if (ini->rack_at && now_ns >= ini->rack_at) {
		ini->rack_at = 0;
		if (pdc_ini_sack_holes(mgr, pdc, now_ns)) {
			pdc_cc_on_loss(&mgr->cfg, ini);
			pdc_ready(mgr, pdc);
		}
	}
	if (ini->probe_at && now_ns >= ini->probe_at)
		pdc_ini_probe(mgr, pdc, now_ns);
	pdc_rccc_wake(mgr, pdc, now_ns);
	pdc_nscc_pace_wake(mgr, pdc, now_ns);
	if (ini->rto_at)
		pdc_timer_arm(mgr, pdc, ini->rto_at);
	if (ini->rack_at)
		pdc_timer_arm(mgr, pdc, ini->rack_at);
	if (ini->probe_at)
		pdc_timer_arm(mgr, pdc, ini->probe_at);
	if (!mgr->cfg.idle_ns || pdc->state == PDC_ST_CLOSING ||
	    ini->una_psn != ini->next_psn)
		return;
	idle_at = ini->last_active_ns + mgr->cfg.idle_ns;
	if (now_ns < idle_at)
		pdc_timer_arm(mgr, pdc, idle_at);
	else
		pdc_ini_start_close(mgr, pdc, now_ns);
}
