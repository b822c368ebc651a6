/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Local channels: reading our inbox (uet_engine_local.h). A target's
 * requests are answered once each, in order; a response must name a
 * peer of ours on that channel and an answer the channel's oldest
 * request, or the channel is broken.
 */
#define _GNU_SOURCE	/* process_vm_readv */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "engine/uet_engine_local_priv.h"
#include "ses/ses_hdr.h"

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

void uet_lch_held_free(struct lch *c)
{
	while (c->held) {
		struct lch_held *h = c->held;

		c->held = h->next;
		free(h);
	}
	c->held_tail = NULL;
	c->nheld = 0;
}

/*
 * Hands |rec| (|body|) to SES as a request of the channel's peer:
 * ses_rx_req's result, with its response in |rsp|; -EAGAIN when the peer
 * has no id here yet.
 */
static ssize_t lch_ses_req(struct uet_engine *e, uint32_t ep, struct lch *c,
			   const struct uet_lch_rec *rec, const uint8_t *body,
			   uint8_t *rsp)
{
	struct ses_rx_pkt in = {
		.pdc = c->in_ctx, .next_hdr = rec->next_hdr, .buf = body,
		.len = (size_t)rec->hdr_len + rec->pay_len,
		.now_ns = e->now_ns,
	};
	int peer = lch_in_peer(e, ep, c, rec);
	struct ses_pull_src src;
	struct uet_lch_pull pull;

	if (peer < 0)
		return -EAGAIN;
	in.peer = (uint32_t)peer;
	/*
	 * Its buffer, in the process the service gave |ep| to (whose memory
	 * the kernel lets us read only if it is our user's). The ring's
	 * checks kept the record's length within the ring.
	 */
	if ((rec->flags & UET_LCH_REC_F_PULL) && e->local->pull_ok &&
	    c->state == LCH_UP && c->pid > 0 &&
	    sizeof(*rec) + in.len + sizeof(pull) <= rec->len) {
		memcpy(&pull, body + in.len, sizeof(pull));
		src.pid = c->pid;
		src.addr = pull.addr;
		src.len = pull.len;
		in.src = &src;
	}
	return ses_rx_req(e->ses, &in, rsp, PDC_RESP_MAX_LEN);
}

/*
 * Offers a request without answer (UET_LCH_REC_F_NO_ANSWER) to SES: 0
 * taken, -EAGAIN not yet, or another -errno (a response with an error
 * code too): refused for good. Nobody is told (uet_op_level.c).
 */
static ssize_t lch_noans_offer(struct uet_engine *e, uint32_t ep,
			       struct lch *c, const struct uet_lch_rec *rec,
			       const uint8_t *body)
{
	uint8_t rsp[PDC_RESP_MAX_LEN];
	struct ses_rsp_hdr h;
	ssize_t n = lch_ses_req(e, ep, c, rec, body, rsp);

	if (n > 0)	/* a response: an error code's, or what OK adds */
		n = ses_rsp_hdr_decode(&h, rsp, (size_t)n) < 0 ||
		    h.return_code != UET_SES_RC_OK ? -EPROTO : 0;
	if (n == -EAGAIN)
		return n;
	if (n < 0)
		e->stats.local_unanswered_refused++;
	else
		e->stats.local_unanswered++;
	return n;
}

/* The held ones are offered again later, and later while refused. */
static void lch_wait_more(struct uet_engine *e, struct lch *c)
{
	c->in_wait = c->in_wait ? c->in_wait * 2 : LCH_AGAIN_NS;
	if (c->in_wait > LCH_AGAIN_MAX_NS)
		c->in_wait = LCH_AGAIN_MAX_NS;
	c->in_wait_ns = e->now_ns + c->in_wait;
}

/* Keeps a copy of |rec| behind those held; false at LCH_HELD_MAX. */
static bool lch_hold(struct uet_engine *e, struct lch *c,
		     const struct uet_lch_rec *rec, const uint8_t *body)
{
	size_t len = (size_t)rec->hdr_len + rec->pay_len;
	struct lch_held *h;

	if (c->nheld >= LCH_HELD_MAX)
		return false;
	h = malloc(sizeof(*h) + len);
	if (!h)
		return false;
	h->next = NULL;
	h->rec = *rec;
	h->rec.flags &= ~UET_LCH_REC_F_PULL;	/* its trailer is not kept */
	memcpy(h->body, body, len);
	if (c->held_tail)
		c->held_tail->next = h;
	else
		c->held = h;
	c->held_tail = h;
	c->nheld++;
	e->stats.local_unanswered_held++;
	return true;
}

/* Offers the held ones again, in order, while SES takes them. */
static void lch_held_offer(struct uet_engine *e, uint32_t ep, struct lch *c)
{
	while (c->held) {
		struct lch_held *h = c->held;

		if (lch_noans_offer(e, ep, c, &h->rec, h->body) == -EAGAIN) {
			lch_wait_more(e, c);
			return;
		}
		c->held = h->next;
		if (!c->held)
			c->held_tail = NULL;
		c->nheld--;
		free(h);
	}
	c->in_wait = 0;
}

/*
 * A request without answer from the ring: taken, refused for good or
 * held, true; false when it cannot be held (the ring waits for it).
 */
static bool lch_rx_noans(struct uet_engine *e, uint32_t ep, struct lch *c,
			 const struct uet_lch_rec *rec, const uint8_t *body)
{
	if (!c->held) {
		if (lch_noans_offer(e, ep, c, rec, body) != -EAGAIN) {
			c->in_wait = 0;
			return true;
		}
		lch_wait_more(e, c);
	}
	if (lch_hold(e, c, rec, body))
		return true;
	c->ring_waits = true;
	return false;
}

/*
 * |rec| goes again, and every later request of the channel is refused
 * until it comes back (sends keep their order).
 */
static void lch_ask_again(struct uet_engine *e, struct lch *c,
			  const struct uet_lch_rec *rec)
{
	c->in_blocked = true;
	c->in_blocked_seq = rec->seq;
	e->stats.local_again++;
	lch_answer(e, c, UET_LCH_ANS_AGAIN, rec, NULL, 0);
}

/* A request: answered once, in order; false when it stays in the ring. */
static bool lch_rx_req(struct uet_engine *e, uint32_t ep, struct lch *c,
		       const struct uet_lch_rec *rec, const uint8_t *body)
{
	uint8_t rsp[PDC_RESP_MAX_LEN];
	ssize_t n;

	if (c->in_blocked && rec->seq != c->in_blocked_seq) {
		/* One without answer here broke the rule: it is dropped. */
		if (rec->flags & UET_LCH_REC_F_NO_ANSWER)
			e->stats.local_unanswered_refused++;
		else
			lch_answer(e, c, UET_LCH_ANS_AGAIN, rec, NULL, 0);
		return true;
	}
	if (rec->flags & UET_LCH_REC_F_NO_ANSWER)
		return lch_rx_noans(e, ep, c, rec, body);
	/* Behind those held: asked again, as for a refusal of SES. */
	if (c->held) {
		lch_ask_again(e, c, rec);
		return true;
	}
	c->in_blocked = false;
	n = lch_ses_req(e, ep, c, rec, body, rsp);
	if (n > 0) {
		lch_answer(e, c, UET_LCH_ANS_RSP, rec, rsp, (size_t)n);
	} else if (n == 0) {
		lch_answer(e, c, UET_LCH_ANS_DEFAULT, rec, NULL, 0);
	} else if (n == -EAGAIN) {
		lch_ask_again(e, c, rec);
	} else {
		lch_answer(e, c, UET_LCH_ANS_DROP, rec, NULL, 0);
	}
	return true;
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
	case UET_LCH_ANS_DEFAULT:
		uet_lch_slot_default(e, i);
		return true;
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

/*
 * Whether ring |ep| of our inbox has something for us (or a new writer)
 * now, *|now| (0: the clock is read when needed). A ring whose request
 * waits for SES (lch_rx_noans) has nothing before its time.
 */
static bool lch_ring_pending(const struct uet_engine_local *l, uint32_t ep,
			     uint64_t *now)
{
	struct uet_lch_ring *r = uet_lch_ring_at(l->in, l->rings, ep);
	const struct lch *c = l->ch[ep];

	if (!c)
		return atomic_load_explicit(&r->gen, memory_order_relaxed);
	if (c->held || c->ring_waits) {
		if (!*now)
			*now = uet_engine_now_ns();
		if (c->held && *now >= c->in_wait_ns)
			return true;
		if (c->ring_waits && *now < c->in_wait_ns)
			return false;
	}
	if (c->rd_broken)
		return atomic_load_explicit(&r->gen, memory_order_relaxed) !=
		       c->rd.gen;
	return uet_lch_pending(&c->rd, r);
}

/*
 * Whether request |rec| of endpoint |ep| can be taken: its answer needs
 * our ring in the writer's inbox. One that needs no answer is taken also
 * from a writer already gone: it ended on the writer's side once written
 * (transmit complete), and its bytes are here. Gone is its slot or its
 * /proc entry (-ENOENT), or, while it exits, its wake socket, closed
 * before its inbox's file (-ECONNREFUSED).
 */
static bool lch_req_takes(struct uet_engine *e, uint32_t ep,
			  const struct uet_lch_rec *rec)
{
	int ret = uet_lch_connect(e, ep);

	return !ret ||
	       ((ret == -ENOENT || ret == -ECONNREFUSED) &&
		(rec->flags & UET_LCH_REC_F_NO_ANSWER));
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
		uet_lch_held_free(c);
		c->ring_waits = false;
		c->in_wait_ns = c->in_wait = 0;
		c->rd_broken = false;
		if (c->state == LCH_UP && !uet_lch_alive(e, ep, c))
			uet_lch_down(e, ep, true);
	}
	if (c->rd_broken)
		return 0;
	if (c->held && e->now_ns >= c->in_wait_ns)
		lch_held_offer(e, ep, c);
	if (c->ring_waits) {
		if (e->now_ns < c->in_wait_ns)
			return 0;
		c->ring_waits = false;
	}
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
			if (!lch_req_takes(e, ep, &rec)) {
				atomic_store(&r->refused, 1);
				uet_lch_consume(&c->rd, r, &rec);
				continue;
			}
			if (!lch_rx_req(e, ep, c, &rec, p + sizeof(rec)))
				break;	/* read again from it later */
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
	uint64_t act, now = e->now_ns;

	if (!l)
		return false;
	if (l->dh != l->dt)	/* requests to end (lch_done_run) */
		return true;
	for (uint32_t w = 0; w * 64 < l->rings; w++) {
		act = lch_active(l, w);
		for (; act; act &= act - 1)
			if (lch_ring_pending(l, w * 64 +
					     (uint32_t)__builtin_ctzll(act),
					     &now))
				return true;
	}
	return false;
}

int uet_engine_local_rx(struct uet_engine *e)
{
	struct uet_engine_local *l = e->local;
	uint64_t act, now = e->now_ns;
	int n = 0;

	if (!l)
		return 0;
	for (uint32_t w = 0; w * 64 < l->rings; w++) {
		act = lch_active(l, w);
		while (act) {
			uint32_t ep = w * 64 + (uint32_t)__builtin_ctzll(act);

			act &= act - 1;
			if (lch_ring_pending(l, ep, &now))
				n += lch_rx_ring(e, ep,
						 uet_lch_ring_at(l->in,
								 l->rings,
								 ep));
		}
	}
	return n;
}

/* ---- copies out of a local peer's memory ------------------------------- */

int uet_engine_local_pull(void *ctx, const struct ses_pull_src *src,
			  uint64_t off, const struct ses_iov *iov, size_t cnt,
			  uint64_t len)
{
	struct uet_engine *e = ctx;
	struct iovec to[SES_IOV_MAX], from;
	ssize_t n;

	if (cnt > SES_IOV_MAX || src->addr + off < src->addr)
		return -EINVAL;
	for (size_t i = 0; i < cnt; i++) {
		to[i].iov_base = iov[i].base;
		to[i].iov_len = iov[i].len;
	}
	from.iov_base = (void *)(uintptr_t)(src->addr + off);
	from.iov_len = len;
	n = process_vm_readv(src->pid, to, cnt, &from, 1, 0);
	if (n < 0 || (uint64_t)n != len) {
		e->stats.local_pull_failed++;
		return n < 0 ? -errno : -EFAULT;
	}
	e->stats.local_pulls++;
	e->stats.local_pull_bytes += len;
	return 0;
}
