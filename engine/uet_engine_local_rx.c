/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Local channels: reading our inbox (uet_engine_local.h). A target's
 * requests are answered once each, in order; a response must name a
 * peer of ours on that channel and an answer the channel's oldest
 * request, or the channel is broken.
 */
#include <errno.h>
#include <string.h>

#include "engine/uet_engine_local_priv.h"

/* ---- the target's side ---------------------------------------------------- */

/* Writes the answers |c| holds, in order, while there is room. */
void uet_lch_answers_flush(struct uet_engine *e, struct lch *c)
{
	bool wrote = false;

	while (c->nh != c->nt && c->state == LCH_UP) {
		const struct lch_ans *a = &c->ans[c->nh % LCH_ANS_MAX];
		uint32_t len = uet_lch_rec_len(a->len, 0);
		struct uet_lch_rec rec = {
			.len = len, .type = a->type,
			.next_hdr = UET_PDS_NEXT_HDR_RESPONSE,
			.dst_peer = a->dst_peer, .seq = a->seq,
			.hdr_len = a->len,
		};
		uint8_t *buf = uet_lch_reserve(&c->w, len);

		if (!buf)
			break;
		memcpy(buf, &rec, sizeof(rec));
		memcpy(buf + sizeof(rec), a->rsp, a->len);
		uet_lch_publish(&c->w, buf, len);
		e->stats.local_tx++;
		c->nh++;
		wrote = true;
	}
	if (wrote)
		uet_lch_kick(e, c);
}

static void lch_answer(struct uet_engine *e, struct lch *c, uint8_t type,
		       const struct uet_lch_rec *req, const uint8_t *rsp,
		       size_t len)
{
	struct lch_ans *a = &c->ans[c->nt % LCH_ANS_MAX];

	/* The initiator holds at most LCH_FIFO unanswered: never full. */
	if (c->nt - c->nh == LCH_ANS_MAX)
		return;
	a->type = type;
	a->seq = req->seq;
	a->dst_peer = req->src_peer;
	a->len = (uint8_t)(len > sizeof(a->rsp) ? 0 : len);
	if (a->len)
		memcpy(a->rsp, rsp, a->len);
	c->nt++;
	uet_lch_answers_flush(e, c);
}

/* Our peer for what endpoint |ep| sends with its peer kind |kind|. */
static int lch_in_peer(struct uet_engine *e, uint32_t ep, struct lch *c,
		       const struct uet_lch_rec *rec)
{
	uint32_t kind = rec->kind & UET_ENGINE_KIND_MASK;
	uint32_t tag = uet_engine_tag_ep(kind, ep) | UET_ENGINE_TAG_LOCAL;
	uint32_t cached = c->in_peer[kind];
	struct uet_engine_peer *p;
	int id;

	/* The last one, unless its id went to another peer since. */
	if (cached && cached - 1 < e->npeers &&
	    e->peers[cached - 1].tag == tag &&
	    e->peers[cached - 1].state == UET_PEER_LIVE &&
	    uet_fa_equal(&e->peers[cached - 1].fa, &e->cfg.local)) {
		id = (int)cached - 1;
	} else {
		id = uet_engine_peer_rx(e, &e->cfg.local, tag);
		if (id < 0)
			return id;
		uet_engine_peer_opened(e, (uint32_t)id);
		c->in_peer[kind] = (uint32_t)id + 1;
	}
	p = &e->peers[id];
	p->path = UET_PATH_LOCAL;
	p->lch_ep = (uint16_t)ep;
	p->lch_rpeer = rec->src_peer;
	p->heard_ns = e->now_ns;
	return id;
}

static void lch_rx_req(struct uet_engine *e, uint32_t ep, struct lch *c,
		       const struct uet_lch_rec *rec, const uint8_t *body)
{
	uint8_t rsp[PDC_RESP_MAX_LEN];
	struct ses_rx_pkt in = {
		.pdc = c->in_ctx, .next_hdr = rec->next_hdr, .buf = body,
		.len = (size_t)rec->hdr_len + rec->pay_len,
		.now_ns = e->now_ns,
	};
	ssize_t n;
	int peer;

	if (c->in_blocked && rec->seq != c->in_blocked_seq) {
		lch_answer(e, c, UET_LCH_ANS_AGAIN, rec, NULL, 0);
		return;
	}
	c->in_blocked = false;
	peer = lch_in_peer(e, ep, c, rec);
	n = peer < 0 ? -EAGAIN : 0;
	if (peer >= 0) {
		in.peer = (uint32_t)peer;
		n = ses_rx_req(e->ses, &in, rsp, sizeof(rsp));
	}
	if (n > 0) {
		lch_answer(e, c, UET_LCH_ANS_RSP, rec, rsp, (size_t)n);
	} else if (n == 0) {
		lch_answer(e, c, UET_LCH_ANS_DEFAULT, rec, NULL, 0);
	} else if (n == -EAGAIN) {
		c->in_blocked = true;
		c->in_blocked_seq = rec->seq;
		e->stats.local_again++;
		lch_answer(e, c, UET_LCH_ANS_AGAIN, rec, NULL, 0);
	} else {
		lch_answer(e, c, UET_LCH_ANS_DROP, rec, NULL, 0);
	}
}

/* ---- the initiator's side ------------------------------------------------- */

/* A response packet: it names our peer it answers, which must be |ep|'s. */
static bool lch_rx_rsp(struct uet_engine *e, uint32_t ep,
		       const struct uet_lch_rec *rec, const uint8_t *body)
{
	struct ses_rx_pkt in = {
		.peer = rec->dst_peer, .next_hdr = rec->next_hdr, .buf = body,
		.len = (size_t)rec->hdr_len + rec->pay_len,
		.now_ns = e->now_ns,
	};
	struct uet_engine_peer *p;

	if (rec->dst_peer >= e->npeers)
		return false;
	p = &e->peers[rec->dst_peer];
	if (p->state != UET_PEER_LIVE || p->path != UET_PATH_LOCAL ||
	    p->lch_ep != ep)
		return false;
	p->heard_ns = e->now_ns;
	ses_rx_rsp(e->ses, &in);
	return true;
}

/* The answer to our oldest request on |c|; false when it is not. */
static bool lch_rx_ans(struct uet_engine *e, struct lch *c,
		       const struct uet_lch_rec *rec, const uint8_t *body)
{
	struct uet_engine_slot *s;
	uint32_t i;

	if (c->state != LCH_UP || c->fh == c->ft)
		return false;
	i = c->fifo[c->fh % LCH_FIFO];
	s = &e->slots[i];
	if (s->lch_seq != rec->seq)
		return false;
	c->fh++;
	e->peers[s->peer].heard_ns = e->now_ns;
	if (c->probing && i == c->probe) {
		c->probing = false;
		if (rec->type == UET_LCH_ANS_AGAIN) {
			c->again_wait = c->again_wait * 2 < LCH_AGAIN_MAX_NS ?
					c->again_wait * 2 : LCH_AGAIN_MAX_NS;
			/* Still the first of them. */
			c->again[--c->ah % LCH_FIFO] = i;
			c->again_ns = e->now_ns + c->again_wait;
			return true;
		}
		c->again_wait = LCH_AGAIN_NS;
		c->again_all = true;
	}
	switch (rec->type) {
	case UET_LCH_ANS_AGAIN:
		/* Refused with it, behind it: in order, after a probe. */
		if (!c->again_wait)
			c->again_wait = LCH_AGAIN_NS;
		c->again_all = false;
		c->again_ns = e->now_ns + c->again_wait;
		c->again[c->at++ % LCH_FIFO] = i;
		return true;
	case UET_LCH_ANS_RSP: {
		struct ses_rx_pkt in = {
			.peer = s->peer, .next_hdr = UET_PDS_NEXT_HDR_RESPONSE,
			.buf = body, .len = rec->hdr_len, .now_ns = e->now_ns,
		};

		uet_engine_slot_put(e, i);
		ses_rx_rsp(e->ses, &in);
		return true;
	}
	case UET_LCH_ANS_DEFAULT: {
		/* Read before SES may take the slot again. */
		uint64_t ref = s->msg_ref;
		bool live = s->epoch == e->peers[s->peer].epoch;

		uet_engine_slot_put(e, i);
		if (live)
			ses_rx_default(e->ses, ref);
		return true;
	}
	default: {	/* dropped: as a packet never acknowledged */
		uint32_t peer = s->peer;

		uet_engine_slot_put(e, i);
		uet_engine_peer_fail(e, peer, -EIO);
		return true;
	}
	}
}

/* ---- reading our inbox ---------------------------------------------------- */


/*
 * Word |w| of the rings that have had a writer: writers set the bits, so
 * those of indices past our inbox's rings are dropped, never followed.
 */
static uint64_t lch_active(const struct uet_engine_local *l, uint32_t w)
{
	uint64_t act = atomic_load_explicit(&l->in->active[w],
					    memory_order_acquire);

	if ((w + 1) * 64 > l->rings)
		act &= (1ull << (l->rings % 64)) - 1;
	return act;
}

/* Whether ring |ep| of our inbox has something for us (or a new writer). */
static bool lch_ring_pending(const struct uet_engine_local *l, uint32_t ep)
{
	struct uet_lch_ring *r = uet_lch_ring_at(l->in, l->rings, ep);
	const struct lch *c = l->ch[ep];

	if (!c)
		return atomic_load_explicit(&r->gen, memory_order_relaxed);
	if (c->rd_broken)
		return atomic_load_explicit(&r->gen, memory_order_relaxed) !=
		       c->rd.gen;
	return uet_lch_pending(&c->rd, r);
}

static int lch_rx_ring(struct uet_engine *e, uint32_t ep,
		       struct uet_lch_ring *r)
{
	struct lch *c = uet_lch_get(e->local, ep);
	int n = 0;

	if (!c)
		return 0;
	if (uet_lch_reader_sync(&c->rd, r)) {
		/* A new process on that index: a new incarnation for SES,
		 * and our channel to the one before ends with it. */
		c->in_ctx = ++e->local->ctx;
		c->in_blocked = false;
		c->rd_broken = false;
		if (c->state == LCH_UP && !uet_lch_alive(e, ep, c))
			uet_lch_down(e, ep, true);
	}
	if (c->rd_broken)
		return 0;
	while (n < LCH_RX_BUDGET) {
		struct uet_lch_rec rec;
		const uint8_t *p;
		bool broken, ok = true;

		p = uet_lch_peek(&c->rd, r, &rec, &broken);
		if (broken) {
			e->stats.local_broken++;
			uet_lch_down(e, ep, false);
			/* Nothing more of it is read until a new writer. */
			c->rd_broken = true;
			return n;
		}
		if (!p)
			break;
		if (rec.type == UET_LCH_REQ) {
			/* Its answer needs our ring in its inbox. */
			if (uet_lch_connect(e, ep) < 0) {
				atomic_store(&r->refused, 1);
				uet_lch_consume(&c->rd, r, &rec);
				continue;
			}
			lch_rx_req(e, ep, c, &rec, p + sizeof(rec));
		} else if (rec.type == UET_LCH_RSP) {
			ok = lch_rx_rsp(e, ep, &rec, p + sizeof(rec));
		} else {
			ok = lch_rx_ans(e, c, &rec, p + sizeof(rec));
		}
		uet_lch_consume(&c->rd, r, &rec);
		e->stats.local_rx++;
		e->stats.local_rx_bytes += (size_t)rec.hdr_len + rec.pay_len;
		n++;
		if (!ok) {
			e->stats.local_broken++;
			uet_lch_down(e, ep, false);
			c->rd_broken = true;
			return n;
		}
	}
	return n;
}

bool uet_engine_local_pending(const struct uet_engine *e)
{
	const struct uet_engine_local *l = e->local;
	uint64_t act;

	if (!l)
		return false;
	for (uint32_t w = 0; w * 64 < l->rings; w++) {
		act = lch_active(l, w);
		for (; act; act &= act - 1)
			if (lch_ring_pending(l, w * 64 +
					     (uint32_t)__builtin_ctzll(act)))
				return true;
	}
	return false;
}

int uet_engine_local_rx(struct uet_engine *e)
{
	struct uet_engine_local *l = e->local;
	uint64_t act;
	int n = 0;

	if (!l)
		return 0;
	for (uint32_t w = 0; w * 64 < l->rings; w++) {
		act = lch_active(l, w);
		while (act) {
			uint32_t ep = w * 64 + (uint32_t)__builtin_ctzll(act);

			act &= act - 1;
			if (lch_ring_pending(l, ep))
				n += lch_rx_ring(e, ep,
						 uet_lch_ring_at(l->in,
								 l->rings,
								 ep));
		}
	}
	return n;
}
