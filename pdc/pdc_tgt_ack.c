/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Target end, outgoing: the PSN bitmap behind cumulative and selective ACKs,
 * building ACK / ACK_CC (ref 2.4, 2.8) and CLOSE_REQ, and the stored SES
 * responses that ride in ACKs and answer duplicates until the initiator's
 * clear PSN releases them.
 */
#include <errno.h>
#include <string.h>

#include "pdc/pdc_priv.h"

bool pdc_tgt_bit_test(const struct pdc *pdc, uint32_t psn)
{
	uint32_t i = psn & pdc->win_mask;

	return pdc->tgt.bits[i >> 6] >> (i & 63) & 1;
}

static void pdc_tgt_bit_flip(struct pdc *pdc, uint32_t psn)
{
	uint32_t i = psn & pdc->win_mask;

	pdc->tgt.bits[i >> 6] ^= 1ull << (i & 63);
}

/* Records |psn| (not a duplicate, inside the window) and moves cack. */
void pdc_tgt_mark(struct pdc *pdc, uint32_t psn)
{
	struct pdc_tgt *tgt = &pdc->tgt;

	if (pdc_psn_after(psn, tgt->high_psn))
		tgt->high_psn = psn;
	if (psn != tgt->cack_psn + 1) {
		pdc_tgt_bit_flip(pdc, psn);
		tgt->ooo_cnt++;
		return;
	}
	tgt->cack_psn = psn;
	while (tgt->ooo_cnt && pdc_tgt_bit_test(pdc, tgt->cack_psn + 1)) {
		pdc_tgt_bit_flip(pdc, ++tgt->cack_psn);
		tgt->ooo_cnt--;
	}
}

/* The 64 PSNs from |base| (after cack) that arrived, bit 0 = |base|. */
static uint64_t pdc_tgt_bits_from(const struct pdc *pdc, uint32_t base)
{
	uint32_t i = base & pdc->win_mask;
	uint32_t w = i >> 6, sh = i & 63, words = (pdc->win_mask + 1) >> 6;
	uint64_t v = pdc->tgt.bits[w] >> sh;

	if (sh)
		v |= pdc->tgt.bits[(w + 1) % words] << (64 - sh);
	return v;
}

bool pdc_tgt_has_ack(const struct pdc *pdc)
{
	const struct pdc_tgt *tgt = &pdc->tgt;

	return tgt->ack_now || tgt->due_head != PDC_NIL || tgt->close_req;
}

static void pdc_resp_due_push(struct pdc_mgr *mgr, struct pdc *pdc,
			      uint32_t i)
{
	struct pdc_tgt *tgt = &pdc->tgt;

	mgr->resp[i].due = true;
	mgr->resp[i].due_next = PDC_NIL;
	if (tgt->due_tail == PDC_NIL)
		tgt->due_head = i;
	else
		mgr->resp[tgt->due_tail].due_next = i;
	tgt->due_tail = i;
}

static void pdc_resp_due_pop(struct pdc_mgr *mgr, struct pdc *pdc)
{
	struct pdc_tgt *tgt = &pdc->tgt;
	struct pdc_resp_ent *e = &mgr->resp[tgt->due_head];

	tgt->due_head = e->due_next;
	if (tgt->due_head == PDC_NIL)
		tgt->due_tail = PDC_NIL;
	e->due = false;
}

static void pdc_resp_put_back(struct pdc_mgr *mgr, uint32_t i)
{
	mgr->resp[i].next = mgr->resp_free;
	mgr->resp_free = i;
	mgr->resp_free_cnt++;
}

bool pdc_resp_reserve_ok(const struct pdc_mgr *mgr)
{
	return mgr->resp_free_cnt > 0;
}

/* Keeps |resp| for |psn| and queues the ACK that carries it. */
void pdc_resp_store(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t psn,
		    const struct pdc_resp *resp)
{
	struct pdc_tgt *tgt = &pdc->tgt;
	uint32_t i = mgr->resp_free;
	struct pdc_resp_ent *e = &mgr->resp[i];

	mgr->resp_free = e->next;
	mgr->resp_free_cnt--;
	e->psn = psn;
	e->rx_ns = tgt->last_rx_ns;	/* delivery is synchronous: its arrival */
	e->next_hdr = resp->next_hdr;
	e->len = resp->len;
	memcpy(e->buf, resp->buf, resp->len);
	e->next = PDC_NIL;
	if (tgt->resp_tail == PDC_NIL)
		tgt->resp_head = i;
	else
		mgr->resp[tgt->resp_tail].next = i;
	tgt->resp_tail = i;
	pdc_resp_due_push(mgr, pdc, i);
}

/* A duplicate of |psn|: send its response again if we still hold it. */
bool pdc_resp_resend(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t psn)
{
	uint32_t i;

	if (pdc_psn_before(psn, pdc->tgt.clear_psn))
		return false;
	for (i = pdc->tgt.resp_head; i != PDC_NIL; i = mgr->resp[i].next) {
		if (mgr->resp[i].psn != psn)
			continue;
		if (!mgr->resp[i].due)
			pdc_resp_due_push(mgr, pdc, i);
		return true;
	}
	return false;
}

/*
 * Releases responses before |clear_psn| from the oldest on. RUD may store
 * them out of PSN order; a younger one at the head only delays the rest.
 */
void pdc_resp_clear(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t clear_psn)
{
	struct pdc_tgt *tgt = &pdc->tgt;

	while (tgt->resp_head != PDC_NIL) {
		uint32_t i = tgt->resp_head;
		struct pdc_resp_ent *e = &mgr->resp[i];

		if (e->due || !pdc_psn_before(e->psn, clear_psn))
			break;
		tgt->resp_head = e->next;
		pdc_resp_put_back(mgr, i);
	}
	if (tgt->resp_head == PDC_NIL)
		tgt->resp_tail = PDC_NIL;
}

void pdc_resp_free_all(struct pdc_mgr *mgr, struct pdc *pdc)
{
	struct pdc_tgt *tgt = &pdc->tgt;

	while (tgt->resp_head != PDC_NIL) {
		uint32_t i = tgt->resp_head;

		tgt->resp_head = mgr->resp[i].next;
		pdc_resp_put_back(mgr, i);
	}
	tgt->resp_tail = tgt->due_head = tgt->due_tail = PDC_NIL;
}

/* A stored response the initiator may not have yet: not cleared. */
static bool pdc_resp_is_held(const struct pdc *pdc,
			     const struct pdc_resp_ent *e)
{
	return !pdc_psn_before(e->psn, pdc->tgt.clear_psn);
}

/*
 * The cumulative PSN an ACK may claim without carrying |ent|: an ACK that
 * covers a PSN and carries no response tells the initiator that PSN was
 * answered DEFAULT_RESPONSE (ses_rx_default). So it stops short of the
 * oldest held response other than the one it carries; the initiator's
 * clear PSN, a round trip after the response reached it, lets it move on.
 */
static uint32_t pdc_tgt_cack_claim(const struct pdc_mgr *mgr,
				   const struct pdc *pdc,
				   const struct pdc_resp_ent *ent)
{
	uint32_t cack = pdc->tgt.cack_psn, i;

	for (i = pdc->tgt.resp_head; i != PDC_NIL; i = mgr->resp[i].next) {
		const struct pdc_resp_ent *e = &mgr->resp[i];

		if (e != ent && pdc_resp_is_held(pdc, e) &&
		    pdc_psn_before_eq(e->psn, cack))
			cack = e->psn - 1;
	}
	return cack;
}

/*
 * The oldest held response, carried again by an ACK that has no new one to
 * carry, so that the ACK may cover its PSN: while one response at a time is
 * held, as is usual, ACKs claim every PSN that arrived.
 */
static struct pdc_resp_ent *pdc_tgt_held_oldest(struct pdc_mgr *mgr,
						const struct pdc *pdc)
{
	struct pdc_resp_ent *old = NULL;
	uint32_t i;

	for (i = pdc->tgt.resp_head; i != PDC_NIL; i = mgr->resp[i].next) {
		struct pdc_resp_ent *e = &mgr->resp[i];

		if (pdc_resp_is_held(pdc, e) &&
		    (!old || pdc_psn_before(e->psn, old->psn)))
			old = e;
	}
	return old;
}

/*
 * The SACK bitmap of the 64 PSNs after |cack|, which may stop short of
 * tgt->cack_psn (pdc_tgt_cack_claim): arrived, and not held unless |ent|.
 */
static uint64_t pdc_tgt_sack_claim(const struct pdc_mgr *mgr,
				   const struct pdc *pdc, uint32_t cack,
				   const struct pdc_resp_ent *ent)
{
	const struct pdc_tgt *tgt = &pdc->tgt;
	uint32_t short_by = tgt->cack_psn - cack, i;
	uint64_t v;

	/* The PSNs between the claim and the real cack all arrived. */
	v = short_by >= 64 ? ~0ull : ((1ull << short_by) - 1) |
				     pdc_tgt_bits_from(pdc, tgt->cack_psn + 1)
				     << short_by;
	for (i = tgt->resp_head; i != PDC_NIL; i = mgr->resp[i].next) {
		const struct pdc_resp_ent *e = &mgr->resp[i];
		uint32_t d = e->psn - (cack + 1);

		if (e == ent || d >= 64 || !pdc_resp_is_held(pdc, e))
			continue;
		/*
		 * One still to go out (in the next ACKs) ends the bitmap:
		 * later arrivals shown past it would make it look lost.
		 */
		v &= e->due ? (1ull << d) - 1 : ~(1ull << d);
	}
	return v;
}

/*
 * Where the SACK bitmap starts (ref 2.4: cack_psn + sack_psn_offset):
 * just past cack while arrivals reach no further than its 64 PSNs; else
 * it moves on through the window, each ACK showing the 64 PSNs after the
 * last one shown (sack_rep_psn), until it shows the newest arrivals. A
 * window of 256 sprayed over paths of which one died has holes all over
 * it; a bitmap fixed after cack hid those past its 64 PSNs until the ones
 * before were filled, a batch of 64 per recovery and a window cut each
 * (test_pdc_deadpath). Anchored at the newest alone, it left PSNs of a
 * burst read in one batch unshown, and the initiator resent them. Held
 * responses keep it after cack: arrivals shown past one that has not
 * reached the initiator yet would make it look lost.
 */
static uint32_t pdc_tgt_sack_base(const struct pdc_mgr *mgr,
				  const struct pdc *pdc, uint32_t cack,
				  const struct pdc_resp_ent *ent, bool *moves)
{
	const struct pdc_tgt *tgt = &pdc->tgt;
	uint32_t i, from = pdc_psn_after(tgt->sack_rep_psn, cack) ?
			   tgt->sack_rep_psn : cack;

	*moves = false;
	if (cack != tgt->cack_psn || pdc_psn_diff(tgt->high_psn, cack) <= 64)
		return cack + 1;
	for (i = tgt->resp_head; i != PDC_NIL; i = mgr->resp[i].next)
		if (&mgr->resp[i] != ent && pdc_resp_is_held(pdc, &mgr->resp[i]))
			return cack + 1;
	*moves = true;
	if (pdc_psn_diff(tgt->high_psn, from) > 64)
		return from + 1;
	return tgt->high_psn - 63;
}

/*
 * ref 2.8: NSCC's state in an ACK_CC. service_time: how long the packet
 * that drew the ACK (its ack_psn) waited here, so that the initiator's
 * RTT sample is the network's (a response's PSN: when it arrived, as
 * it was answered then). rcvd_bytes: every SES byte
 * received, duplicates too, as the initiator counts every copy it sends.
 * rcv_cwnd_penalty and restore_cwnd: our own backlog (pdc_rx_backlog).
 */
static void pdc_tgt_nscc_state(struct pdc_mgr *mgr, const struct pdc *pdc,
			       const struct pdc_resp_ent *ent, uint32_t ack_psn,
			       struct pdc_nscc_state *st, uint64_t now_ns)
{
	const struct pdc_tgt *tgt = &pdc->tgt;
	uint64_t rx_ns = ent ? ent->rx_ns : tgt->last_psn_ns;
	uint64_t units = (now_ns - rx_ns) / UET_PDS_NSCC_SERVICE_TIME_NS;

	st->service_time = !ent && ack_psn != tgt->last_psn ?
			   UET_PDS_NSCC_SERVICE_TIME_NONE :
			   units >= UET_PDS_NSCC_SERVICE_TIME_NONE ?
			   UET_PDS_NSCC_SERVICE_TIME_NONE - 1 : (uint16_t)units;
	st->rcvd_bytes = (tgt->rcvd_bytes >> UET_PDS_NSCC_RCVD_UNIT_SHIFT) &
			 UET_PDS_NSCC_RCVD_BYTES_MAX;
	st->rcv_cwnd_penalty = mgr->rcv_penalty;
	st->restore_cwnd = mgr->rcv_restore;	/* never with a penalty */
	mgr->stats.tx_rcv_penalty += mgr->rcv_penalty > 0;
}

/*
 * The penalty grows linearly from nothing at half the queue to 127 when
 * it is full: any penalty stops the initiator's new packets until the
 * ACKs of what it has out come back (nscc_rcv_penalty), so it is kept
 * for a queue at risk. Half a ring is not: one stream of jumbo frames
 * between two namespaces keeps a quarter of it (3 descriptors a frame)
 * and lost 10-30% of its rate to a brake set there. Restore once an
 * eighth or less waits, so that windows given back do not refill a queue
 * still draining; in between, NSCC's own increases apply.
 */
void pdc_rx_backlog(struct pdc_mgr *mgr, uint32_t waiting, uint32_t room)
{
	uint64_t over, span;

	if (mgr->cfg.no_dfc || !room)
		return;
	if (waiting > room)
		waiting = room;
	mgr->rcv_restore = (uint64_t)waiting * 8 <= room;
	if ((uint64_t)waiting * 2 <= room) {
		mgr->rcv_penalty = 0;
		return;
	}
	over = (uint64_t)waiting * 2 - room;	/* x2: no fractions */
	span = room;
	mgr->rcv_penalty = (uint8_t)((over * UET_PDS_NSCC_CWND_PENALTY_MASK +
				      span - 1) / span);
}

/*
 * ACK, or ACK_CC with the SACK bitmap while there are holes; always ACK_CC
 * with NSCC, whose initiators steer by its state.
 */
static ssize_t pdc_tgt_put_ack(struct pdc_mgr *mgr, struct pdc *pdc,
			       struct pdc_resp_ent *ent, bool again,
			       uint8_t *buf, size_t len, uint64_t now_ns)
{
	struct pdc_tgt *tgt = &pdc->tgt;
	uint32_t cack = pdc_tgt_cack_claim(mgr, pdc, ent);
	bool held = cack != tgt->cack_psn;
	bool nscc = mgr->cfg.cc & PDC_CC_NSCC;
	bool sack = tgt->ooo_cnt > 0 || held || nscc, moves = false;
	int32_t off = pdc_psn_diff(ent ? ent->psn : tgt->last_psn, cack);
	struct pdc_ack a = {
		.pro.type = sack ? UET_PDS_TYPE_ACK_CC : UET_PDS_TYPE_ACK,
		.pro.next_hdr = ent ? ent->next_hdr : UET_PDS_NEXT_HDR_NONE,
		.pro.flags = (tgt->ecn ? UET_PDS_F_ACK_M : 0) |
			     (tgt->retx ? UET_PDS_F_ACK_RETX : 0) |
			     (tgt->close_req ? UET_PDS_ACK_REQ_CLOSE <<
					       UET_PDS_F_ACK_REQ_SHIFT : 0),
		.ack_psn_offset = (int16_t)off,
		.cack_psn = cack,
		.spdcid = pdc->id,
		.dpdcid = pdc->rid,
	};
	ssize_t n;

	/* Stored PSNs lie within a window of cack; be safe regardless. */
	if (off < INT16_MIN || off > INT16_MAX) {
		if (ent && !again)
			pdc_resp_due_pop(mgr, pdc);
		ent = NULL;
		a.pro.next_hdr = UET_PDS_NEXT_HDR_NONE;
		a.ack_psn_offset = 0;
	}
	if (sack) {
		uint32_t base = pdc_tgt_sack_base(mgr, pdc, cack, ent, &moves);

		a.cc_type = UET_PDS_CC_NSCC;
		a.sack_psn_offset = (int16_t)(base - cack);
		if (moves)
			tgt->sack_rep_psn = base + 63;
		/* Moving: no response held, so nothing for the claim to mask. */
		a.sack_bitmap = moves ? pdc_tgt_bits_from(pdc, base) :
				pdc_tgt_sack_claim(mgr, pdc, cack, ent);
		a.cc.nscc.ooo_count = (uint16_t)(tgt->ooo_cnt > UINT16_MAX ?
						 UINT16_MAX : tgt->ooo_cnt);
		if (nscc)
			pdc_tgt_nscc_state(mgr, pdc, ent, cack + (uint32_t)(int32_t)
					   a.ack_psn_offset,
					   &a.cc.nscc, now_ns);
		else
			a.cc.nscc.rcvd_bytes = tgt->ack_len > 0xFFFFFFu ?
					       0xFFFFFFu : tgt->ack_len;
	}
	n = pdc_ack_encode(buf, len, &a);
	if (n >= 0 && ent && len - (size_t)n < ent->len)
		n = -ENOBUFS;
	if (n < 0)
		return n;	/* -ENOBUFS: built again, counted then */
	mgr->stats.tx_ack_held += held;
	if (ent) {
		memcpy(buf + n, ent->buf, ent->len);
		n += ent->len;
		if (!again)
			pdc_resp_due_pop(mgr, pdc);
		mgr->stats.tx_resp++;
		mgr->stats.tx_resp_again += again;
	}
	tgt->ack_now = tgt->ecn = tgt->retx = tgt->close_req = false;
	/* A bitmap on its way through the window: the next one at once. */
	if (moves && pdc_psn_after(tgt->high_psn, tgt->sack_rep_psn))
		tgt->ack_now = true;
	tgt->ack_cnt = tgt->ack_len = 0;
	tgt->ack_at = 0;
	mgr->tx_ev = tgt->ack_ev;
	mgr->stats.tx_ack++;
	return n;
}

/* ref 2.7: CLOSE_REQ, the target asking the initiator to close. */
static ssize_t pdc_tgt_put_close_req(struct pdc_mgr *mgr, struct pdc *pdc,
				     uint8_t *buf, size_t len)
{
	ssize_t n = pdc_put_ctl(pdc, UET_PDS_CTL_CLOSE_REQ, 0,
				pdc->tgt.cack_psn + 1, 0, buf, len);

	if (n < 0)
		return n;
	pdc->tgt.close_req = false;
	mgr->stats.tx_ctl++;
	return n;
}

ssize_t pdc_tgt_build(struct pdc_mgr *mgr, struct pdc *pdc, uint8_t *buf,
		      size_t len, uint64_t now_ns)
{
	struct pdc_tgt *tgt = &pdc->tgt;
	struct pdc_resp_ent *ent = tgt->due_head != PDC_NIL ?
				   &mgr->resp[tgt->due_head] : NULL;

	if (ent)
		return pdc_tgt_put_ack(mgr, pdc, ent, false, buf, len, now_ns);
	if (tgt->ack_now)
		return pdc_tgt_put_ack(mgr, pdc, pdc_tgt_held_oldest(mgr, pdc),
				       true, buf, len, now_ns);
	if (tgt->close_req)
		return pdc_tgt_put_close_req(mgr, pdc, buf, len);
	if (tgt->cr_due)
		return pdc_rccc_put_credit(mgr, pdc, buf, len);
	return 0;
}
