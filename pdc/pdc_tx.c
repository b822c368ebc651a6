/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The send side of the manager: pdc_send(), the queues frames wait in (NACKs,
 * UUD packets, PDCs with work) and pdc_tx_build(), which drains them into
 * the caller's buffers, NACKs first.
 */
#include <errno.h>
#include <string.h>

#include "pdc/pdc_priv.h"

void pdc_ready(struct pdc_mgr *mgr, struct pdc *pdc)
{
	if (pdc->on_ready)
		return;
	pdc->on_ready = true;
	pdc->ready_next = NULL;
	if (mgr->ready_tail)
		mgr->ready_tail->ready_next = pdc;
	else
		mgr->ready_head = pdc;
	mgr->ready_tail = pdc;
}

/* Rare (a PDC going away while queued), so a walk is fine. */
void pdc_ready_del(struct pdc_mgr *mgr, struct pdc *pdc)
{
	struct pdc **link = &mgr->ready_head;
	struct pdc *prev = NULL;

	if (!pdc->on_ready)
		return;
	while (*link != pdc) {
		prev = *link;
		link = &prev->ready_next;
	}
	*link = pdc->ready_next;
	if (mgr->ready_tail == pdc)
		mgr->ready_tail = prev;
	pdc->on_ready = false;
	pdc->ready_next = NULL;
}

/*
 * ref 2.4, 2.7: a control packet of |pdc|, from its id to its peer's (the
 * DPDCID slot as for an established PDC).
 */
ssize_t pdc_put_ctl(const struct pdc *pdc, uint8_t ctl_type, uint8_t flags,
		    uint32_t psn, uint32_t payload, uint8_t *buf, size_t len)
{
	struct pdc_ctl c = {
		.pro.type = UET_PDS_TYPE_CONTROL,
		.pro.next_hdr = ctl_type,
		.pro.flags = flags,
		.psn = psn,
		.spdcid = pdc->id,
		.dpdcid = pdc->rid,
		.payload = payload,
	};

	return pdc_ctl_encode(buf, len, &c);
}

/* NACKs are advice: when the queue is full the initiator's timer recovers. */
void pdc_nack_queue(struct pdc_mgr *mgr, uint32_t peer,
		    const struct pdc_nack *nack)
{
	struct pdc_nackq_ent *e;

	if (mgr->nackq_cnt == PDC_NACKQ_LEN) {
		mgr->stats.rx_dropped++;
		return;
	}
	e = &mgr->nackq[(mgr->nackq_head + mgr->nackq_cnt++) % PDC_NACKQ_LEN];
	e->peer = peer;
	e->nack = *nack;
	pdc_counts_inc(&mgr->peer_use, peer);
}

/*
 * The ACK an eviction record gives for its PDC: what was delivered, and a
 * request to close (the PDC is gone; what the initiator sends next must
 * go on a new one).
 */
static ssize_t pdc_tomb_ack_build(const struct pdc_nack *e, uint8_t *buf,
				  size_t len)
{
	struct pdc_ack a = {
		.pro.type = UET_PDS_TYPE_ACK,
		.pro.next_hdr = UET_PDS_NEXT_HDR_NONE,
		.pro.flags = UET_PDS_ACK_REQ_CLOSE << UET_PDS_F_ACK_REQ_SHIFT,
		.ack_psn_offset = (int16_t)pdc_psn_diff(e->nack_psn,
							e->payload),
		.cack_psn = e->payload,
		.spdcid = e->spdcid,
		.dpdcid = e->dpdcid,
	};

	return pdc_ack_encode(buf, len, &a);
}

static ssize_t pdc_nack_build(struct pdc_mgr *mgr, uint8_t *buf, size_t len,
			      uint32_t *peer)
{
	struct pdc_nackq_ent *e = &mgr->nackq[mgr->nackq_head];
	bool ack = e->nack.pro.type == UET_PDS_TYPE_ACK;
	ssize_t n = ack ? pdc_tomb_ack_build(&e->nack, buf, len) :
			  pdc_nack_encode(buf, len, &e->nack);

	if (n < 0)
		return n;
	*peer = e->peer;
	if (ack)
		mgr->stats.tx_tomb_ack++;
	else if (e->nack.nack_code < 32)
		mgr->stats.nack_tx_code[e->nack.nack_code]++;
	mgr->stats.tx_nack += !ack;
	mgr->nackq_head = (mgr->nackq_head + 1) % PDC_NACKQ_LEN;
	mgr->nackq_cnt--;
	pdc_counts_dec(&mgr->peer_use, e->peer);
	return n;
}

static int pdc_uud_queue(struct pdc_mgr *mgr, const struct pdc_pkt *pkt)
{
	struct pdc_uud_ent *e;

	if (mgr->uudq_cnt == mgr->cfg.window)
		return -EAGAIN;
	e = &mgr->uudq[(mgr->uudq_head + mgr->uudq_cnt++) & (mgr->cfg.window - 1)];
	e->cookie = pkt->cookie;
	e->peer = pkt->peer;
	pdc_counts_inc(&mgr->peer_use, pkt->peer);
	e->len = pkt->len;
	e->next_hdr = pkt->next_hdr;
	return 0;
}

/* UUD (ref 2.4): a 4-byte header and no state; done once handed over. */
static ssize_t pdc_uud_build(struct pdc_mgr *mgr, uint8_t *buf, size_t len,
			     uint32_t *peer)
{
	struct pdc_uud_ent e = mgr->uudq[mgr->uudq_head];
	struct pdc_uud h = {
		.pro = { .type = UET_PDS_TYPE_UUD_REQ, .next_hdr = e.next_hdr },
	};
	struct pdc_tx_done done = { .cookie = e.cookie, .peer = e.peer };
	ssize_t n = pdc_uud_encode(buf, len, &h);

	if (n >= 0 && len - (size_t)n < e.len)
		n = -ENOBUFS;
	if (n < 0)
		return n;
	mgr->uudq_head = (mgr->uudq_head + 1) & (mgr->cfg.window - 1);
	mgr->uudq_cnt--;
	pdc_counts_dec(&mgr->peer_use, e.peer);
	done.status = mgr->ops.fill(mgr->ctx, e.cookie, buf + n, e.len);
	mgr->ops.tx_done(mgr->ctx, &done);
	if (done.status < 0)
		return 0;
	*peer = e.peer;
	mgr->stats.tx_uud++;
	return n + e.len;
}

/*
 * Whether a packet to a peer with no PDC must wait: cfg.max_opening PDCs
 * of ours are unanswered. A job's first all-to-all posts a message to
 * every peer at once; opened all together, their first packets queue at
 * targets that take seconds to read them all (a 384-endpoint all-to-all
 * on 2 cores: first packets unanswered past time_wait / 2, and 70% of
 * the PDCs failed). Waiting here, a message has sent nothing yet: its
 * clock has not started, and the targets see a bounded number of SYNs.
 */
static bool pdc_opening_full(struct pdc_mgr *mgr)
{
	if (!mgr->cfg.max_opening || mgr->opening < mgr->cfg.max_opening)
		return false;
	mgr->stats.opening_waits++;
	return true;
}

static struct pdc *pdc_ini_open(struct pdc_mgr *mgr, uint32_t peer,
				uint8_t mode, uint64_t now_ns)
{
	struct pdc *pdc;
	struct pdc_ini *ini;

	pdc_make_room(mgr, now_ns);
	pdc = pdc_new(mgr, PDC_ROLE_INI, peer, mode);
	if (!pdc)
		return NULL;
	ini = &pdc->ini;
	pdc->key = pdc_key_ini(peer, mode);
	pdc_hash_add(mgr, pdc);
	pdc->state = PDC_ST_SYN;
	ini->start_psn = pdc_new_start_psn(mgr);
	ini->next_psn = ini->send_psn = ini->una_psn = ini->start_psn;
	ini->cack_psn = ini->sack_high = ini->start_psn - 1;
	ini->rewind_psn = ini->start_psn - 1;
	ini->resend_psn = ini->resend_end = ini->start_psn;
	ini->peer_win = mgr->cfg.window;
	ini->last_active_ns = now_ns;
	ini->opening = true;
	mgr->opening++;
	pdc_cc_init(&mgr->cfg, ini);
	/* No sample yet: wait at least what our peers lately took. */
	if (mgr->rto_hint_ns > ini->rto_ns)
		ini->rto_ns = mgr->rto_hint_ns;
	pdc_rccc_ini_init(mgr, ini);
	pdc_ev_init(mgr, pdc);
	return pdc;
}

int pdc_send(struct pdc_mgr *mgr, const struct pdc_pkt *pkt, uint64_t now_ns)
{
	struct pdc_slot *slot;
	struct pdc_ini *ini;
	struct pdc *pdc;

	if (pkt->mode >= PDC_MODE_CNT ||
	    pkt->next_hdr > UET_PDS_NEXT_HDR_RESPONSE_DATA_SMALL)
		return -EINVAL;
	if (pkt->len > mgr->cfg.max_payload_len)
		return -EMSGSIZE;
	if (pkt->mode == PDC_MODE_UUD)
		return pdc_uud_queue(mgr, pkt);
	if (pkt->mode == PDC_MODE_RUDI)
		return pdc_rudi_send(mgr, pkt);
	/* Streams go to one peer at a time: try the last PDC first. */
	pdc = mgr->send_cache;
	if (!pdc || pdc->peer != pkt->peer || pdc->mode != pkt->mode) {
		pdc = pdc_hash_find(mgr, pdc_key_ini(pkt->peer, pkt->mode),
				    NULL);
		if (!pdc && pdc_opening_full(mgr))
			return -EBUSY;
		if (!pdc)
			pdc = pdc_ini_open(mgr, pkt->peer, pkt->mode, now_ns);
		if (!pdc)
			return -EBUSY;
		mgr->send_cache = pdc;
	}
	ini = &pdc->ini;
	if (ini->next_psn - ini->una_psn > ini->ring_mask &&
	    pdc_ini_ring_grow(mgr, pdc) < 0)
		return -EAGAIN;	/* the window (or memory) is full */
	slot = pdc_ini_slot(pdc, ini->next_psn++);
	if (slot->flags & PDC_SLOT_RETXQ)
		pdc_ini_retx_prune(pdc);
	memset(slot, 0, sizeof(*slot));
	slot->cookie = pkt->cookie;
	slot->len = pkt->len;
	slot->next_hdr = pkt->next_hdr;
	slot->retx_next = PDC_NO_SLOT;
	slot->flags = (pkt->flags & PDC_PKT_F_AR ? PDC_SLOT_AR : 0) |
		      (pkt->flags & PDC_PKT_F_WANT_RESP ? PDC_SLOT_RESP : 0);
	ini->last_active_ns = now_ns;
	ini->queued_bytes += pdc_ini_slot_bytes(slot);
	pdc_rccc_wake(mgr, pdc, now_ns);
	if (pdc_ini_can_send(pdc))
		pdc_ready(mgr, pdc);
	return 0;
}

/* Round robin over PDCs with work, one frame at a time. */
static ssize_t pdc_ready_build(struct pdc_mgr *mgr, uint8_t *buf, size_t len,
			       uint32_t *peer, uint64_t now_ns)
{
	struct pdc *pdc;
	ssize_t n;

	while ((pdc = mgr->ready_head)) {
		uint32_t to = pdc->peer;

		if (pdc->role == PDC_ROLE_INI)
			n = pdc_ini_build(mgr, pdc, buf, len, now_ns);
		else
			n = pdc_tgt_build(mgr, pdc, buf, len, now_ns);
		if (n == -ECANCELED)
			continue;	/* the PDC failed and is gone */
		if (n < 0)
			return n;
		if (n == 0) {
			pdc_ready_del(mgr, pdc);
			continue;
		}
		/* Round robin: to the back, unless it is alone there. */
		if (pdc->ready_next) {
			pdc_ready_del(mgr, pdc);
			pdc_ready(mgr, pdc);
		}
		*peer = to;
		return n;
	}
	return 0;
}

ssize_t pdc_tx_build_ev(struct pdc_mgr *mgr, uint8_t *buf, size_t len,
			uint32_t *peer, uint16_t *ev, uint64_t now_ns)
{
	ssize_t n;

	mgr->tx_ev = 0;
	n = pdc_tx_build(mgr, buf, len, peer, now_ns);
	*ev = mgr->tx_ev;
	return n;
}

ssize_t pdc_tx_build(struct pdc_mgr *mgr, uint8_t *buf, size_t len,
		     uint32_t *peer, uint64_t now_ns)
{
	ssize_t n;

	if (mgr->heap_cnt && mgr->heap[0].wake_ns <= now_ns)
		pdc_timers_run(mgr, now_ns);
	if (mgr->rccc.head)
		pdc_rccc_run(mgr, now_ns);
	if (mgr->nackq_cnt)
		return pdc_nack_build(mgr, buf, len, peer);
	n = pdc_rudi_build(mgr, buf, len, peer, now_ns);
	if (n)
		return n;
	while (mgr->uudq_cnt) {
		n = pdc_uud_build(mgr, buf, len, peer);
		if (n)
			return n;
	}
	return pdc_ready_build(mgr, buf, len, peer, now_ns);
}
