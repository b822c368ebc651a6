/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Initiator end of a PDC, sending: the ring of packets by PSN, the
 * retransmit queue, the ROD go-back, and building requests and CLOSE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pdc/pdc_priv.h"

/* The target tracks (cack, cack + its window]; past that it NACKs. */
static bool pdc_ini_in_peer_win(const struct pdc_ini *ini, uint32_t psn)
{
	return pdc_psn_diff(psn, ini->cack_psn) <= (int32_t)ini->peer_win;
}

/*
 * RCCC: the next packet has credit. A CLOSE needs none, nor a packet sent
 * before (renumbered after a SYN cookie): it took its credit then.
 */
static bool pdc_ini_credit_ok(const struct pdc *pdc)
{
	const struct pdc_ini *ini = &pdc->ini;
	const struct pdc_slot *slot =
		&ini->slot[(ini->send_psn - ini->start_psn) & ini->ring_mask];

	return pdc_rccc_has_credit(ini) || (slot->flags & PDC_SLOT_CLOSE) ||
	       slot->tx_cnt;
}

bool pdc_ini_can_send(const struct pdc *pdc)
{
	const struct pdc_ini *ini = &pdc->ini;

	if (ini->retx_head != PDC_NO_SLOT || ini->cr_req_due)
		return true;
	if (!pdc_cc_has_room(ini))
		return false;
	if (ini->resend_psn != ini->resend_end)
		return true;
	return ini->send_psn != ini->next_psn && pdc_ini_credit_ok(pdc) &&
	       pdc_ini_in_peer_win(ini, ini->send_psn);
}

static uint32_t pdc_ini_idx_psn(const struct pdc *pdc, uint16_t idx)
{
	const struct pdc_ini *ini = &pdc->ini;
	uint32_t una_idx = (ini->una_psn - ini->start_psn) & ini->ring_mask;

	return ini->una_psn + ((idx - una_idx) & ini->ring_mask);
}

void pdc_ini_retx_push(struct pdc *pdc, uint32_t psn)
{
	struct pdc_ini *ini = &pdc->ini;
	uint16_t idx = (uint16_t)((psn - ini->start_psn) & ini->ring_mask);
	struct pdc_slot *slot = &ini->slot[idx];

	if (slot->flags & PDC_SLOT_RETXQ)
		return;
	slot->flags |= PDC_SLOT_RETXQ;
	slot->retx_next = PDC_NO_SLOT;
	if (ini->retx_tail == PDC_NO_SLOT)
		ini->retx_head = idx;
	else
		ini->slot[ini->retx_tail].retx_next = idx;
	ini->retx_tail = idx;
}

/*
 * |psn| is lost: it goes again, on another path than the one it took, and
 * out of NSCC's flight (it will not be among the bytes received).
 */
void pdc_ini_lost(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t psn,
		  uint64_t now_ns)
{
	struct pdc_slot *slot = pdc_ini_slot(pdc, psn);

	pdc_ev_bad(mgr, pdc, slot->ev, now_ns);
	pdc_ini_retx_push(pdc, psn);
	if (pdc->ini.nscc)
		pdc_nscc_on_loss(mgr, &pdc->ini, pdc_ini_slot_bytes(slot),
				 now_ns);
}

/* Unlinks slot |idx|, which follows |prev| (PDC_NO_SLOT: the head). */
static void pdc_ini_retx_unlink(struct pdc_ini *ini, uint16_t prev,
				uint16_t idx)
{
	struct pdc_slot *slot = &ini->slot[idx];

	if (prev == PDC_NO_SLOT)
		ini->retx_head = slot->retx_next;
	else
		ini->slot[prev].retx_next = slot->retx_next;
	if (ini->retx_tail == idx)
		ini->retx_tail = prev;
	slot->flags &= ~PDC_SLOT_RETXQ;
	slot->retx_next = PDC_NO_SLOT;
}

static void pdc_ini_retx_pop(struct pdc_ini *ini)
{
	pdc_ini_retx_unlink(ini, PDC_NO_SLOT, ini->retx_head);
}

void pdc_ini_retx_clear(struct pdc *pdc)
{
	while (pdc->ini.retx_head != PDC_NO_SLOT)
		pdc_ini_retx_pop(&pdc->ini);
}

/* Drops finished slots from the retransmit queue before one is reused. */
void pdc_ini_retx_prune(struct pdc *pdc)
{
	struct pdc_ini *ini = &pdc->ini;
	uint16_t idx = ini->retx_head;

	ini->retx_head = ini->retx_tail = PDC_NO_SLOT;
	while (idx != PDC_NO_SLOT) {
		struct pdc_slot *slot = &ini->slot[idx];
		uint16_t next = slot->retx_next;

		slot->flags &= ~PDC_SLOT_RETXQ;
		if (pdc_slot_needs_tx(slot))
			pdc_ini_retx_push(pdc, pdc_ini_idx_psn(pdc, idx));
		idx = next;
	}
}

/*
 * The timer found the copy of |psn| queued to go again (RETXQ) and still
 * unsent PDC_HELD_RTOS RTOs after the copy before it. Such a copy is
 * exempt from time-outs (pdc_ini_rto: it waits for the CPU or a frame),
 * so a copy that could never leave would hold its PDC silently until the
 * resend-age bound fails it: e2e_eps failed so in CI, a 1 MiB write
 * whose oldest packet was queued by a probe and did not leave for 5 s,
 * with frames to spare and no time-out. Whatever held it, it gets every
 * way out: the queue rebuilt from the flags when it lost the copy (the
 * flag without the link) or loops, its PDC ready again, counted, and
 * said once a PDC under UET_ENGINE_DEBUG with what the PDC looked like.
 */
void pdc_ini_retx_held(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t psn,
		       uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint16_t want = (uint16_t)((psn - ini->start_psn) & ini->ring_mask);
	uint16_t idx = ini->retx_head;
	uint32_t len = 0, room = ini->ring_mask + 1;
	struct pdc_slot *slot = &ini->slot[want];
	bool linked = false;

	for (; idx != PDC_NO_SLOT && len < room; len++) {
		if (idx == want)
			linked = true;
		idx = ini->slot[idx].retx_next;
	}
	mgr->stats.retx_held++;
	if (mgr->ops.log && !ini->held_told) {
		ini->held_told = true;
		pdc_log(mgr, "pdc %#x to peer %u: psn %#x queued to go again "
			"and unsent for %llu ms (copies %u); %s the resend "
			"queue (%u long%s), %s; cack %#x, peer window %u, "
			"una %#x send %#x next %#x", pdc->id, pdc->peer, psn,
			(unsigned long long)((now_ns - slot->sent_ns) /
					     1000000), slot->tx_cnt,
			linked ? "on" : "NOT on", len,
			idx != PDC_NO_SLOT ? ", a loop" : "",
			pdc->on_ready ? "ready" : "not ready",
			ini->cack_psn, ini->peer_win, ini->una_psn,
			ini->send_psn, ini->next_psn);
	}
	if (!linked || idx != PDC_NO_SLOT) {	/* rebuilt, oldest first */
		uint32_t p;

		ini->retx_head = ini->retx_tail = PDC_NO_SLOT;
		for (p = ini->una_psn; p != ini->send_psn; p++) {
			struct pdc_slot *s = pdc_ini_slot(pdc, p);

			if (!(s->flags & PDC_SLOT_RETXQ))
				continue;
			s->flags &= ~PDC_SLOT_RETXQ;
			if (pdc_slot_needs_tx(s))
				pdc_ini_retx_push(pdc, p);
		}
	}
	pdc_ready(mgr, pdc);
}

/*
 * Twice the slots, when the ring is full and under cfg.window: the
 * packets out move to their places in the new ring, and the resend queue,
 * which links slots by index, is rebuilt in its order with the new
 * indices (finished slots it still named are dropped, as a prune would).
 */
int pdc_ini_ring_grow(struct pdc_mgr *mgr, struct pdc *pdc)
{
	struct pdc_ini *ini = &pdc->ini;
	uint32_t n = (ini->ring_mask + 1) * 2, psn;
	uint16_t idx, head = PDC_NO_SLOT, tail = PDC_NO_SLOT;
	struct pdc_slot *ring;

	if (n > mgr->cfg.window)
		return -ENOSPC;
	ring = calloc(n, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	for (psn = ini->una_psn; psn != ini->next_psn; psn++) {
		struct pdc_slot *s = &ring[(psn - ini->start_psn) & (n - 1)];

		*s = *pdc_ini_slot(pdc, psn);
		s->flags &= ~PDC_SLOT_RETXQ;
		s->retx_next = PDC_NO_SLOT;
	}
	for (idx = ini->retx_head; idx != PDC_NO_SLOT;
	     idx = ini->slot[idx].retx_next) {
		uint16_t to;

		if (!pdc_slot_needs_tx(&ini->slot[idx]))
			continue;
		to = (uint16_t)((pdc_ini_idx_psn(pdc, idx) - ini->start_psn) &
				(n - 1));
		ring[to].flags |= PDC_SLOT_RETXQ;
		if (tail == PDC_NO_SLOT)
			head = to;
		else
			ring[tail].retx_next = to;
		tail = to;
	}
	free(ini->slot);
	ini->slot = ring;
	ini->ring_mask = n - 1;
	ini->retx_head = head;
	ini->retx_tail = tail;
	mgr->stats.state_len += n / 2 * sizeof(*ring);
	pdc->alloc_len += n / 2 * sizeof(*ring);
	return 0;
}

/*
 * The next queued retransmission that is still needed and that the target
 * can take: 0 and |*psn|, or -ENOENT. Packets past the target's window
 * stay queued without holding up the hole that keeps its cack back.
 */
static int pdc_ini_retx_next(struct pdc *pdc, uint32_t *psn)
{
	struct pdc_ini *ini = &pdc->ini;
	uint16_t prev = PDC_NO_SLOT, idx = ini->retx_head;

	while (idx != PDC_NO_SLOT) {
		uint16_t next = ini->slot[idx].retx_next;
		uint32_t p = pdc_ini_idx_psn(pdc, idx);

		if (!pdc_slot_needs_tx(&ini->slot[idx])) {
			pdc_ini_retx_unlink(ini, prev, idx);
		} else if (pdc_ini_in_peer_win(ini, p)) {
			pdc_ini_retx_unlink(ini, prev, idx);
			*psn = p;
			return 0;
		} else {
			prev = idx;
		}
		idx = next;
	}
	return -ENOENT;
}

/*
 * The next packet of a ROD rewind still to resend: 0 and |*psn|, or
 * -ENOENT. Packets the timer resent meanwhile are in flight: skip them.
 */
static int pdc_ini_resend_next(struct pdc *pdc, uint32_t *psn)
{
	struct pdc_ini *ini = &pdc->ini;

	for (; ini->resend_psn != ini->resend_end; ini->resend_psn++) {
		struct pdc_slot *slot = pdc_ini_slot(pdc, ini->resend_psn);

		if (!pdc_ini_is_live(pdc, ini->resend_psn))
			continue;
		if (!(slot->flags & (PDC_SLOT_ACKED | PDC_SLOT_INFL)))
			break;
	}
	if (ini->resend_psn == ini->resend_end ||
	    !pdc_ini_in_peer_win(ini, ini->resend_psn))
		return -ENOENT;
	*psn = ini->resend_psn;
	return 0;
}

/* Ask for an ACK when waiting would stall us or SES asked (ref 2.5, AR). */
static bool pdc_ini_wants_ar(const struct pdc *pdc, uint32_t psn,
			     const struct pdc_slot *slot, bool retx)
{
	const struct pdc_ini *ini = &pdc->ini;

	return retx || (slot->flags & PDC_SLOT_AR) ||
	       psn + 1 == ini->next_psn ||
	       pdc_cc_fills(ini, pdc_ini_slot_bytes(slot)) ||
	       (!pdc->rid && psn == ini->start_psn);
}

static ssize_t pdc_ini_put_req(struct pdc_mgr *mgr, struct pdc *pdc,
			       uint32_t psn, bool retx, uint8_t *buf,
			       size_t len)
{
	struct pdc_ini *ini = &pdc->ini;
	struct pdc_slot *slot = pdc_ini_slot(pdc, psn);
	int32_t clear = pdc_psn_diff(ini->una_psn, psn);
	bool syn = !pdc->rid;
	bool cc_req = ini->rccc;
	struct pdc_req h = {
		.pro.type = pdc->mode == PDC_MODE_ROD ?
			    (cc_req ? UET_PDS_TYPE_ROD_CC_REQ :
				      UET_PDS_TYPE_ROD_REQ) :
			    (cc_req ? UET_PDS_TYPE_RUD_CC_REQ :
				      UET_PDS_TYPE_RUD_REQ),
		.pro.next_hdr = slot->next_hdr,
		.pro.flags = (syn ? UET_PDS_F_REQ_SYN : 0) |
			     (retx ? UET_PDS_F_REQ_RETX : 0) |
			     (pdc_ini_wants_ar(pdc, psn, slot, retx) ?
			      UET_PDS_F_REQ_AR : 0),
		/* Exclusive: every PSN before psn + offset is done. */
		.clear_psn_offset = (int16_t)(clear < INT16_MIN ? INT16_MIN :
					      clear),
		.psn = psn,
		.spdcid = pdc->id,
		.dpdcid = pdc->rid,
		.psn_offset = (uint16_t)(syn ? psn - ini->start_psn : 0),
		/* RCCC: the backlog behind this one */
		.credit_target = cc_req ? pdc_rccc_backlog(ini) : 0,
	};
	ssize_t n = pdc_req_encode(buf, len, &h);
	int err;

	if (n < 0)
		return n;
	if (len - (size_t)n < slot->len)
		return -ENOBUFS;
	err = mgr->ops.fill(mgr->ctx, slot->cookie, buf + n, slot->len);
	if (err < 0) {
		pdc_ini_fail(mgr, pdc, err);
		return -ECANCELED;
	}
	return n + slot->len;
}

/* ref 2.7: CLOSE takes a PSN and is acknowledged like a request. */
static ssize_t pdc_ini_put_close(struct pdc *pdc, uint32_t psn, bool retx,
				 uint8_t *buf, size_t len)
{
	return pdc_put_ctl(pdc, UET_PDS_CTL_CLOSE, UET_PDS_F_CTL_AR |
			   (retx ? UET_PDS_F_CTL_RETX : 0), psn, 0, buf, len);
}

/*
 * |slot| (|psn|) goes a third time or more, and nothing came back since
 * its last copy left: the window stalled, and no ACK brings a good EV to
 * the ring (pdc_ev.c). Each copy of it alone explores one random EV a
 * time-out, and in a blackhole of most paths all its tries may go to
 * dead ones: with one leaf-to-spine link of 4 dropping everything
 * (e2e_soak_mix.sh), a cross-leaf packet and its ACK have a quarter of
 * the EVs, and all 25 tries of a stalled packet went dead about once a
 * 3-minute soak (FI_ETIMEDOUT). So up to PDC_STALL_PROBES packets out as
 * long as it, unanswered too, go again with it, each on its own EV: the
 * first that finds a live path makes it the fresh EV the next copies
 * take (pdc_ev_pick). Not the whole window, as a timeout taken for loss
 * sends: a peer only late (pdc_ini_rto) costs a few copies a time-out.
 * Returns whether |slot| stalled (so judged, whether or not others went).
 */
static bool pdc_ini_stall_probes(struct pdc_mgr *mgr, struct pdc *pdc,
				 uint32_t psn, const struct pdc_slot *slot,
				 uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	const struct pdc_paths *p = &ini->paths;
	uint32_t q, n = 0;

	/*
	 * Copies that left at this very time (one progress call builds its
	 * frames at one clock reading) are not stalled: without that test,
	 * two stalled packets sent in one call pushed each other back on the
	 * queue for ever (fuzz_pdc_engine: a hang).
	 */
	if (mgr->cfg.mp_mode != PDC_MP_AWARE || pdc->mode == PDC_MODE_ROD ||
	    (p->fresh_ev && p->fresh_ns > slot->sent_ns) ||
	    slot->sent_ns >= now_ns)
		return false;
	for (q = ini->una_psn; q != ini->send_psn && n < PDC_STALL_PROBES;
	     q++) {
		struct pdc_slot *o = pdc_ini_slot(pdc, q);

		if (q == psn || !pdc_slot_needs_tx(o) ||
		    (o->flags & PDC_SLOT_RETXQ) || o->sent_ns > slot->sent_ns ||
		    o->sent_ns >= now_ns)
			continue;
		pdc_ev_bad(mgr, pdc, o->ev, now_ns);
		pdc_ini_retx_push(pdc, q);
		mgr->stats.retx_stall++;
		n++;
	}
	if (n)
		pdc_ready(mgr, pdc);
	return true;
}

/*
 * |psn| stalled, the only packet its PDC has out (as most of a large
 * job's PDCs have): with no other to probe with, its copy gets a twin on
 * another EV, so that each time-out explores two paths, not one (with a
 * quarter of the paths alive, all 25 tries dead is (3/4)^25 = 7.5e-4 a
 * stalled packet; with twins (3/4)^50). The twin is no try: the tries
 * still count time-outs, and the target takes a copy once. Not in a
 * window: there the other packets probe (twins there failed 15 windows
 * of 128 in pdc_stall's blackhole, against none without).
 */
static void pdc_ini_twin(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t psn)
{
	pdc->ini.twin_psn = psn;
	pdc->ini.twin_due = true;
	pdc_ini_retx_push(pdc, psn);
	mgr->stats.retx_stall++;
	pdc_ready(mgr, pdc);
}

/*
 * Whether |slot| may go again no more. A copy that opens the PDC (SYN:
 * the target's PDCID not known yet), sent later than half a time_wait
 * after the first and delayed in the network for the other half, could
 * reach a target that has closed the PDC and forgotten it, open it again
 * and be delivered a second time; a CLOSE's, a target that had it and
 * forgot (nothing is delivered: the PDC just ends). A request of an
 * established PDC names the target's PDCID and ours: a copy that finds the
 * PDC forgotten is refused (INV_DPDCID, HDR_MISMATCH), never delivered, so
 * it goes on while tries are left, and a target kept off the CPU for
 * longer (64 ranks on 2 cores: 5 s and more) gets the FI_UET_MAX_RETRIES
 * it was given. tx_cnt stops at UINT8_MAX: that many copies end it even
 * when refusals were forgiven.
 */
static bool pdc_ini_copies_end(const struct pdc_mgr *mgr,
			       const struct pdc *pdc,
			       const struct pdc_slot *slot, uint64_t now_ns)
{
	bool opens_or_closes = !pdc->rid || (slot->flags & PDC_SLOT_CLOSE);

	if (slot->tx_cnt == UINT8_MAX)
		return true;
	return opens_or_closes &&
	       now_ns - slot->first_ns >= mgr->cfg.time_wait_ns / 2;
}

static ssize_t pdc_ini_put(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t psn,
			   uint8_t *buf, size_t len, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	struct pdc_slot *slot = pdc_ini_slot(pdc, psn);
	bool retx = slot->tx_cnt > 0;
	bool twin = retx && ini->twin_due && ini->twin_psn == psn;
	bool stalled = false;
	ssize_t n;

	if (retx && pdc_ini_copies_end(mgr, pdc, slot, now_ns)) {
		pdc_ini_fail(mgr, pdc, pdc_ini_fail_err(ini));
		return -ECANCELED;
	}
	if (twin)
		ini->twin_due = false;
	else if (retx && slot->tx_cnt >= 2)
		stalled = pdc_ini_stall_probes(mgr, pdc, psn, slot, now_ns);
	if (slot->flags & PDC_SLOT_CLOSE)
		n = pdc_ini_put_close(pdc, psn, retx, buf, len);
	else
		n = pdc_ini_put_req(mgr, pdc, psn, retx, buf, len);
	if (n < 0)
		return n;
	slot->ev = pdc_ev_pick(mgr, pdc, slot, now_ns);
	mgr->tx_ev = slot->ev;
	if (!retx && !(slot->flags & PDC_SLOT_CLOSE)) {
		/* out of the backlog, onto the credit */
		ini->queued_bytes -= pdc_ini_slot_bytes(slot);
		ini->cr_used += pdc_ini_slot_bytes(slot);
	}
	if (!(slot->flags & (PDC_SLOT_INFL | PDC_SLOT_ACKED))) {
		slot->flags |= PDC_SLOT_INFL;
		ini->inflight++;
		ini->infl_bytes += pdc_ini_slot_bytes(slot);
	}
	if (ini->nscc) {	/* every copy is in the network */
		pdc_nscc_sent(ini, pdc_ini_slot_bytes(slot));
		if (!retx)
			pdc_nscc_pace(mgr, pdc, pdc_ini_slot_bytes(slot),
				      now_ns);
	}
	slot->flags |= PDC_SLOT_SENT;
	slot->sent_ns = now_ns;
	if (!retx)
		slot->first_ns = now_ns;
	if (slot->tx_cnt < UINT8_MAX)
		slot->tx_cnt++;
	if (twin && slot->forgiven < PDC_FORGIVEN)
		slot->forgiven++;
	if (stalled && ini->send_psn - ini->una_psn == 1)
		pdc_ini_twin(mgr, pdc, psn);
	pdc_active_mark(mgr, pdc);
	if (retx) {
		mgr->stats.tx_retx++;
		ini->retx_cnt++;
	} else if (slot->flags & PDC_SLOT_CLOSE) {
		mgr->stats.tx_ctl++;
	} else {
		mgr->stats.tx_req++;
	}
	if (!ini->rto_at) {
		ini->rto_at = now_ns + ini->rto_ns;
		pdc_timer_arm(mgr, pdc, ini->rto_at);
	}
	pdc_ini_arm_probe(mgr, pdc, now_ns);
	return n;
}

/*
 * One frame of |pdc|: a needed retransmission first, then a new packet when
 * the window allows. Returns the length, 0 for nothing, -ENOBUFS, or
 * -ECANCELED when the PDC failed (and is gone).
 */
ssize_t pdc_ini_build(struct pdc_mgr *mgr, struct pdc *pdc, uint8_t *buf,
		      size_t len, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint32_t psn;
	ssize_t n;

	if (pdc_ini_retx_next(pdc, &psn) == 0) {
		n = pdc_ini_put(mgr, pdc, psn, buf, len, now_ns);
		if (n == -ENOBUFS)
			pdc_ini_retx_push(pdc, psn);
		return n;
	}
	if (ini->cr_req_due)
		return pdc_rccc_put_req(mgr, pdc, buf, len);
	if (!pdc_cc_has_room(ini))
		return 0;
	if (pdc_ini_resend_next(pdc, &psn) == 0) {
		n = pdc_ini_put(mgr, pdc, psn, buf, len, now_ns);
		if (n > 0)
			ini->resend_psn = psn + 1;
		return n;
	}
	if (ini->send_psn == ini->next_psn || !pdc_ini_credit_ok(pdc) ||
	    !pdc_ini_in_peer_win(ini, ini->send_psn))
		return 0;
	n = pdc_ini_put(mgr, pdc, ini->send_psn, buf, len, now_ns);
	if (n > 0)
		ini->send_psn++;
	return n;
}
