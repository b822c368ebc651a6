/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RUDI (UE 1.0 3.5; ref 2.4): reliable, unordered delivery of idempotent
 * requests without a PDC. All reliability state is the initiator's: each
 * request gets a pkt_id of its own, waits in a table until its one
 * RUDI_RESP comes, and is resent (RETX set) each time its own RTO runs out,
 * failing after cfg.max_retries resends. The target keeps nothing: a
 * request is handed to ops->rudi, whose answer leaves in one RUDI_RESP
 * under the request's pkt_id and entropy; a copy is simply served again,
 * which is why only idempotent operations may travel so.
 *
 * pkt_id = cfg.pdcid_prefix in the top pdcid_prefix_bits (a shared
 * interface steers the response back by it, as it steers a PDC's replies
 * by the DPDCID), then a generation, then the table slot. The generation
 * is bumped at each use of the slot and starts random, so that a late
 * response to a slot's earlier request, or to a previous incarnation's,
 * names no live request.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pdc/pdc_priv.h"

/* Responses built, waiting to leave. */
#define PDC_RUDI_RSPQ_LEN	64

struct pdc_rudi_req {
	uint64_t cookie;
	uint64_t due_ns;	/* resend when no response by then */
	uint64_t rto_ns;	/* the next wait */
	uint32_t id;		/* pkt_id; 0 bits of the slot's generation
				 * while free */
	uint32_t peer;
	uint32_t len;
	uint32_t hpos;		/* index in the timer heap, or PDC_NIL */
	uint32_t prev, next;	/* the send queue, or PDC_NIL */
	uint16_t ev;
	uint8_t next_hdr;
	uint8_t tries;		/* transmissions so far */
	bool live, queued;
};

/*
 * A response waiting to leave. Most are short (a WRITE's is a RESPONSE
 * header) and are kept in |small|; a long one (READ data) keeps the
 * buffer it was written in, which the entry then holds for next time, so
 * that only entries that carried a long response ever hold rsp_cap bytes.
 */
#define PDC_RUDI_RSP_SMALL	64

struct pdc_rudi_rsp {
	uint32_t peer;
	uint32_t id;
	uint32_t len;
	uint16_t ev;
	uint8_t next_hdr;
	uint8_t *buf;		/* small, or big */
	uint8_t *big;		/* rsp_cap bytes, once a long one came */
	uint8_t small[PDC_RUDI_RSP_SMALL];
};

struct pdc_rudi_tbl {
	struct pdc_rudi_req *req;	/* cfg.window slots */
	uint32_t slot_mask;
	uint32_t gen_shift, gen_mask;	/* the generation, in place */
	uint32_t prefix;		/* cfg.pdcid_prefix, in place */
	uint32_t *free;
	uint32_t free_cnt;
	uint32_t *heap;			/* slots by due_ns */
	uint32_t heap_cnt;
	uint32_t q_head, q_tail;	/* slots to (re)send, oldest first */
	struct pdc_rudi_rsp rsp[PDC_RUDI_RSPQ_LEN];
	uint32_t rsp_head, rsp_cnt;
	size_t rsp_cap;
	uint8_t *scratch;		/* rsp_cap bytes: where ops->rudi
					 * writes unless the entry has big */
};

/* ---- the timer heap ------------------------------------------------------ */

static bool pdc_rudi_before(const struct pdc_rudi_tbl *r, uint32_t a,
			    uint32_t b)
{
	return r->req[a].due_ns < r->req[b].due_ns;
}

static void pdc_rudi_hset(struct pdc_rudi_tbl *r, uint32_t i, uint32_t slot)
{
	r->heap[i] = slot;
	r->req[slot].hpos = i;
}

static void pdc_rudi_hup(struct pdc_rudi_tbl *r, uint32_t i)
{
	uint32_t slot = r->heap[i];

	while (i > 0 && pdc_rudi_before(r, slot, r->heap[(i - 1) / 2])) {
		pdc_rudi_hset(r, i, r->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	pdc_rudi_hset(r, i, slot);
}

static void pdc_rudi_hdown(struct pdc_rudi_tbl *r, uint32_t i)
{
	uint32_t slot = r->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= r->heap_cnt)
			break;
		if (c + 1 < r->heap_cnt &&
		    pdc_rudi_before(r, r->heap[c + 1], r->heap[c]))
			c++;
		if (!pdc_rudi_before(r, r->heap[c], slot))
			break;
		pdc_rudi_hset(r, i, r->heap[c]);
		i = c;
	}
	pdc_rudi_hset(r, i, slot);
}

static void pdc_rudi_hdel(struct pdc_rudi_tbl *r, uint32_t slot)
{
	uint32_t i = r->req[slot].hpos, last;

	if (i == PDC_NIL)
		return;
	r->req[slot].hpos = PDC_NIL;
	last = r->heap[--r->heap_cnt];
	if (last == slot)
		return;
	pdc_rudi_hset(r, i, last);
	pdc_rudi_hdown(r, i);
	pdc_rudi_hup(r, r->req[last].hpos);
}

static void pdc_rudi_harm(struct pdc_rudi_tbl *r, uint32_t slot, uint64_t at_ns)
{
	pdc_rudi_hdel(r, slot);
	r->req[slot].due_ns = at_ns;
	pdc_rudi_hset(r, r->heap_cnt++, slot);
	pdc_rudi_hup(r, r->req[slot].hpos);
}

/* ---- the send queue ------------------------------------------------------ */

static void pdc_rudi_qpush(struct pdc_rudi_tbl *r, uint32_t slot)
{
	struct pdc_rudi_req *q = &r->req[slot];

	if (q->queued)
		return;
	q->queued = true;
	q->next = PDC_NIL;
	q->prev = r->q_tail;
	if (r->q_tail != PDC_NIL)
		r->req[r->q_tail].next = slot;
	else
		r->q_head = slot;
	r->q_tail = slot;
}

static void pdc_rudi_qdel(struct pdc_rudi_tbl *r, uint32_t slot)
{
	struct pdc_rudi_req *q = &r->req[slot];

	if (!q->queued)
		return;
	q->queued = false;
	if (q->prev != PDC_NIL)
		r->req[q->prev].next = q->next;
	else
		r->q_head = q->next;
	if (q->next != PDC_NIL)
		r->req[q->next].prev = q->prev;
	else
		r->q_tail = q->prev;
}

/* ---- set-up ------------------------------------------------------------ */

int pdc_rudi_init(struct pdc_mgr *mgr)
{
	const struct pdc_cfg *c = &mgr->cfg;
	uint32_t slot_bits = 0, i;
	struct pdc_rudi_tbl *r;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	mgr->rudi = r;
	r->req = calloc(c->window, sizeof(*r->req));
	r->free = calloc(c->window, sizeof(*r->free));
	r->heap = calloc(c->window, sizeof(*r->heap));
	if (!r->req || !r->free || !r->heap)
		return -ENOMEM;
	while ((1u << slot_bits) < c->window)
		slot_bits++;
	r->slot_mask = c->window - 1;
	r->gen_shift = slot_bits;
	/* pdcid_prefix_bits <= 8 and window <= 4096: 12 bits at least. */
	r->gen_mask = (1u << (32 - c->pdcid_prefix_bits - slot_bits)) - 1;
	r->prefix = c->pdcid_prefix_bits ?
		    (uint32_t)c->pdcid_prefix << (32 - c->pdcid_prefix_bits) :
		    0;
	for (i = 0; i < c->window; i++) {
		r->req[i].hpos = PDC_NIL;
		r->req[i].id = (pdc_rand32(mgr) & r->gen_mask) << slot_bits;
		r->free[i] = c->window - 1 - i;
	}
	r->free_cnt = c->window;
	r->q_head = r->q_tail = PDC_NIL;
	r->rsp_cap = c->max_payload_len + PDC_RUDI_RSP_HDR_MAX;
	return 0;
}

void pdc_rudi_fini(struct pdc_mgr *mgr)
{
	struct pdc_rudi_tbl *r = mgr->rudi;

	if (!r)
		return;
	for (uint32_t i = 0; i < PDC_RUDI_RSPQ_LEN; i++)
		free(r->rsp[i].big);
	free(r->scratch);
	free(r->req);
	free(r->free);
	free(r->heap);
	free(r);
	mgr->rudi = NULL;
}

/* ---- initiator ----------------------------------------------------------- */

static struct pdc_rudi_req *pdc_rudi_find(const struct pdc_rudi_tbl *r,
					  uint32_t id)
{
	struct pdc_rudi_req *q = &r->req[id & r->slot_mask];

	return q->live && q->id == id ? q : NULL;
}

int pdc_rudi_local_peer(const struct pdc_mgr *mgr, uint32_t pkt_id,
			uint32_t *peer)
{
	const struct pdc_rudi_req *q = pdc_rudi_find(mgr->rudi, pkt_id);

	if (!q)
		return -ENOENT;
	*peer = q->peer;
	return 0;
}

int pdc_rudi_send(struct pdc_mgr *mgr, const struct pdc_pkt *pkt)
{
	struct pdc_rudi_tbl *r = mgr->rudi;
	struct pdc_rudi_req *q;
	uint32_t slot, gen;

	if (!r->free_cnt)
		return -EAGAIN;
	slot = r->free[--r->free_cnt];
	q = &r->req[slot];
	gen = ((q->id >> r->gen_shift) + 1) & r->gen_mask;
	q->id = r->prefix | gen << r->gen_shift | slot;
	q->cookie = pkt->cookie;
	q->peer = pkt->peer;
	q->len = pkt->len;
	q->next_hdr = pkt->next_hdr;
	q->tries = 0;
	q->rto_ns = mgr->cfg.rto_init_ns;
	q->live = true;
	pdc_rudi_qpush(r, slot);
	pdc_counts_inc(&mgr->peer_use, pkt->peer);
	mgr->stats.rudi_inflight++;
	return 0;
}

/*
 * The request of |q| is over: its slot is freed first, so that tx_done
 * may send again at once.
 */
static void pdc_rudi_done(struct pdc_mgr *mgr, struct pdc_rudi_req *q,
			  int status, uint8_t next_hdr, const uint8_t *rsp,
			  size_t rsp_len)
{
	struct pdc_rudi_tbl *r = mgr->rudi;
	uint32_t slot = (uint32_t)(q - r->req);
	struct pdc_tx_done done = {
		.cookie = q->cookie, .peer = q->peer, .status = status,
		.resp_next_hdr = next_hdr, .resp = rsp, .resp_len = rsp_len,
	};

	pdc_rudi_hdel(r, slot);
	pdc_rudi_qdel(r, slot);
	q->live = false;
	r->free[r->free_cnt++] = slot;
	pdc_counts_dec(&mgr->peer_use, q->peer);
	mgr->stats.rudi_inflight--;
	mgr->ops.tx_done(mgr->ctx, &done);
}

/* Requests whose RTO ran out go back to the queue, or fail. */
static void pdc_rudi_timers(struct pdc_mgr *mgr, uint64_t now_ns)
{
	struct pdc_rudi_tbl *r = mgr->rudi;

	while (r->heap_cnt && r->req[r->heap[0]].due_ns <= now_ns) {
		struct pdc_rudi_req *q = &r->req[r->heap[0]];

		pdc_rudi_hdel(r, r->heap[0]);
		if (q->tries > mgr->cfg.max_retries) {
			mgr->stats.rudi_timeouts++;
			pdc_log(mgr, "rudi: pkt_id 0x%08x to peer %u: no "
				"response after %u tries", q->id, q->peer,
				q->tries);
			pdc_rudi_done(mgr, q, -ETIMEDOUT,
				      UET_PDS_NEXT_HDR_NONE, NULL, 0);
			continue;
		}
		pdc_rudi_qpush(r, (uint32_t)(q - r->req));
	}
}

/* A fresh path for each transmission: nothing ties RUDI packets to one. */
static uint16_t pdc_rudi_ev(struct pdc_mgr *mgr)
{
	if (mgr->cfg.mp_mode == PDC_MP_OFF)
		return 0;
	return (uint16_t)(pdc_rand32(mgr) % mgr->cfg.ev_mask + 1);
}

static ssize_t pdc_rudi_req_build(struct pdc_mgr *mgr, uint8_t *buf,
				  size_t len, uint32_t *peer, uint64_t now_ns)
{
	struct pdc_rudi_tbl *r = mgr->rudi;
	struct pdc_rudi_req *q = &r->req[r->q_head];
	struct pdc_rudi h = {
		.pro = { .type = UET_PDS_TYPE_RUDI_REQ,
			 .next_hdr = q->next_hdr,
			 .flags = q->tries ? UET_PDS_F_RUDI_RETX : 0 },
		.pkt_id = q->id,
	};
	ssize_t n = pdc_rudi_encode(buf, len, &h);
	int ret;

	if (n >= 0 && len - (size_t)n < q->len)
		n = -ENOBUFS;
	if (n < 0)
		return n;
	pdc_rudi_qdel(r, r->q_head);
	ret = mgr->ops.fill(mgr->ctx, q->cookie, buf + n, q->len);
	if (ret < 0) {
		pdc_rudi_done(mgr, q, ret, UET_PDS_NEXT_HDR_NONE, NULL, 0);
		return 0;
	}
	if (q->tries)
		mgr->stats.rudi_tx_retx++;
	else
		mgr->stats.rudi_tx_req++;
	q->tries++;
	q->ev = pdc_rudi_ev(mgr);
	mgr->tx_ev = q->ev;
	pdc_rudi_harm(r, (uint32_t)(q - r->req), now_ns + q->rto_ns);
	q->rto_ns = q->rto_ns * 2 < mgr->cfg.rto_max_ns ? q->rto_ns * 2 :
		    mgr->cfg.rto_max_ns;
	*peer = q->peer;
	return n + q->len;
}

static ssize_t pdc_rudi_rsp_build(struct pdc_mgr *mgr, uint8_t *buf,
				  size_t len, uint32_t *peer)
{
	struct pdc_rudi_tbl *r = mgr->rudi;
	struct pdc_rudi_rsp *e = &r->rsp[r->rsp_head];
	struct pdc_rudi h = {
		.pro = { .type = UET_PDS_TYPE_RUDI_RESP,
			 .next_hdr = e->next_hdr },
		.pkt_id = e->id,
	};
	ssize_t n = pdc_rudi_encode(buf, len, &h);

	if (n >= 0 && len - (size_t)n < e->len)
		n = -ENOBUFS;
	if (n < 0)
		return n;
	memcpy(buf + n, e->buf, e->len);
	r->rsp_head = (r->rsp_head + 1) % PDC_RUDI_RSPQ_LEN;
	r->rsp_cnt--;
	pdc_counts_dec(&mgr->peer_use, e->peer);
	mgr->stats.rudi_tx_resp++;
	/* ref 1.4: a RUDI response travels under its request's entropy. */
	mgr->tx_ev = e->ev;
	*peer = e->peer;
	return n + e->len;
}

ssize_t pdc_rudi_build(struct pdc_mgr *mgr, uint8_t *buf, size_t len,
		       uint32_t *peer, uint64_t now_ns)
{
	struct pdc_rudi_tbl *r = mgr->rudi;
	ssize_t n;

	if (r->heap_cnt && r->req[r->heap[0]].due_ns <= now_ns)
		pdc_rudi_timers(mgr, now_ns);
	if (r->rsp_cnt)
		return pdc_rudi_rsp_build(mgr, buf, len, peer);
	while (r->q_head != PDC_NIL) {
		n = pdc_rudi_req_build(mgr, buf, len, peer, now_ns);
		if (n)
			return n;
	}
	return 0;
}

uint64_t pdc_rudi_next(const struct pdc_mgr *mgr)
{
	const struct pdc_rudi_tbl *r = mgr->rudi;

	if (r->rsp_cnt || r->q_head != PDC_NIL)
		return 0;
	return r->heap_cnt ? r->req[r->heap[0]].due_ns : UINT64_MAX;
}

static void pdc_rudi_rx_resp(struct pdc_mgr *mgr,
			     const struct pdc_rx_meta *meta,
			     const struct pdc_rudi *h, const uint8_t *ses,
			     size_t ses_len)
{
	struct pdc_rudi_req *q = pdc_rudi_find(mgr->rudi, h->pkt_id);

	mgr->stats.rudi_rx_resp++;
	/* Only the peer asked may answer: another's copy is a forgery. */
	if (!q || q->peer != meta->peer || !q->tries) {
		mgr->stats.rudi_rx_stale++;
		return;
	}
	pdc_rudi_done(mgr, q, 0, h->pro.next_hdr, ses, ses_len);
}

bool pdc_rudi_rx_nack(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		      const struct pdc_nack *nack, uint64_t now_ns)
{
	struct pdc_rudi_req *q;

	if (!(nack->pro.flags & UET_PDS_F_NACK_NT))
		return false;
	q = pdc_rudi_find(mgr->rudi, nack->nack_psn);
	if (!q || q->peer != meta->peer || !q->tries) {
		mgr->stats.rudi_rx_stale++;
		return true;
	}
	switch (nack->nack_code) {
	case UET_PDS_NACK_NO_RESOURCE:
	case UET_PDS_NACK_NO_PKT_BUFFER:
		/* Busy, not lost: try again after the shortest wait. */
		mgr->stats.rudi_nacked++;
		if (!q->queued)
			pdc_rudi_harm(mgr->rudi, (uint32_t)(q - mgr->rudi->req),
				      now_ns + mgr->cfg.rto_min_ns);
		break;
	case UET_PDS_NACK_UNEXP_EVENT:
		pdc_rudi_done(mgr, q, -EPROTONOSUPPORT,
			      UET_PDS_NEXT_HDR_NONE, NULL, 0);
		break;
	default:
		pdc_rudi_done(mgr, q, -EPROTO, UET_PDS_NEXT_HDR_NONE, NULL, 0);
		break;
	}
	return true;
}

/* ---- target -------------------------------------------------------------- */

static void pdc_rudi_nack(struct pdc_mgr *mgr, uint32_t peer, uint32_t id,
			  uint8_t code)
{
	struct pdc_nack n = {
		.pro = { .type = UET_PDS_TYPE_NACK,
			 .flags = UET_PDS_F_NACK_NT },
		.nack_code = code,
		.nack_psn = id,		/* the pkt_id, as NT says */
	};

	pdc_nack_queue(mgr, peer, &n);
}

static void pdc_rudi_rx_req(struct pdc_mgr *mgr,
			    const struct pdc_rx_meta *meta,
			    const struct pdc_rudi *h, const uint8_t *ses,
			    size_t ses_len)
{
	struct pdc_rudi_tbl *r = mgr->rudi;
	struct pdc_rx_pkt pkt = {
		.peer = meta->peer, .mode = PDC_MODE_RUDI,
		.next_hdr = h->pro.next_hdr, .psn = h->pkt_id,
		.buf = ses, .len = ses_len,
	};
	struct pdc_rudi_rsp *e;
	uint8_t next_hdr = UET_PDS_NEXT_HDR_NONE;
	uint8_t *out;
	ssize_t n;

	mgr->stats.rudi_rx_req++;
	if (!mgr->ops.rudi) {
		pdc_rudi_nack(mgr, meta->peer, h->pkt_id,
			      UET_PDS_NACK_UNEXP_EVENT);
		return;
	}
	e = &r->rsp[(r->rsp_head + r->rsp_cnt) % PDC_RUDI_RSPQ_LEN];
	if (!e->big && !r->scratch)
		r->scratch = malloc(r->rsp_cap);
	out = e->big ? e->big : r->scratch;
	if (r->rsp_cnt == PDC_RUDI_RSPQ_LEN || !out) {
		mgr->stats.rudi_busy++;
		pdc_rudi_nack(mgr, meta->peer, h->pkt_id,
			      UET_PDS_NACK_NO_PKT_BUFFER);
		return;
	}
	n = mgr->ops.rudi(mgr->ctx, &pkt, out, r->rsp_cap, &next_hdr);
	if (n == -EAGAIN) {
		mgr->stats.rudi_busy++;
		pdc_rudi_nack(mgr, meta->peer, h->pkt_id,
			      UET_PDS_NACK_NO_RESOURCE);
		return;
	}
	if (n == -EPROTONOSUPPORT) {
		pdc_rudi_nack(mgr, meta->peer, h->pkt_id,
			      UET_PDS_NACK_UNEXP_EVENT);
		return;
	}
	if (n < 0 || (size_t)n > r->rsp_cap) {
		mgr->stats.rx_unanswered++;
		return;
	}
	mgr->stats.rx_delivered++;
	if (out == e->big) {
		e->buf = e->big;
	} else if (n <= PDC_RUDI_RSP_SMALL) {
		memcpy(e->small, out, (size_t)n);
		e->buf = e->small;
	} else {		/* the entry keeps the scratch buffer */
		e->big = e->buf = r->scratch;
		r->scratch = NULL;
	}
	e->peer = meta->peer;
	e->id = h->pkt_id;
	e->ev = meta->ev;
	e->next_hdr = next_hdr;
	e->len = (uint32_t)n;
	r->rsp_cnt++;
	pdc_counts_inc(&mgr->peer_use, meta->peer);
}

int pdc_rudi_rx(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		const uint8_t *buf, size_t len)
{
	struct pdc_rudi h;
	ssize_t n = pdc_rudi_decode(&h, buf, len);

	if (n < 0)
		return -EBADMSG;
	if (h.pro.type == UET_PDS_TYPE_RUDI_REQ)
		pdc_rudi_rx_req(mgr, meta, &h, buf + n, len - (size_t)n);
	else
		pdc_rudi_rx_resp(mgr, meta, &h, buf + n, len - (size_t)n);
	return 0;
}
