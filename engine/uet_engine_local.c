/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Local channels (uet_engine_local.h, uet_lch.h). What travels is what
 * SES hands PDC and what PDC would deliver up: requests, each answered
 * once and in order by the target (SES's response, DEFAULT_RESPONSE,
 * "again" or "dropped", as an ACK, a NACK or silence would on the wire),
 * and responses (RESPONSE, RESPONSE_DATA), which name the peer they
 * answer. Nothing is lost or reordered in shared memory, so nothing is
 * sent twice except what a target asked again for.
 *
 * A target that asks again (SES out of room) refuses every later request
 * of that channel until the one it refused comes back, and the initiator
 * sends them again in their order: sends stay in order. It sends the
 * first alone, later and later (LCH_AGAIN_NS, doubling up to
 * LCH_AGAIN_MAX_NS) while it is refused, and the rest once it is taken,
 * so that a target out of room is not flooded with what it refuses.
 *
 * Sleepers: the owner of an inbox sets |sleeping| before it sleeps on
 * uet_engine_fd() and uet_engine_wake_fd(); a writer that finds it set
 * clears it and sends a datagram to the owner's wake socket, the engine's
 * (dev/uet_dev_wake.h), named by the nonce the inbox carries.
 */
#define _GNU_SOURCE	/* process_vm_readv */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dev/uet_dev_shm.h"
#include "dev/uet_dev_wake.h"
#include "engine/uet_engine_local_priv.h"

/*
 * Whether process_vm_readv works in this process (no seccomp filter or
 * kernel without it refuses it): tried on our own memory.
 */
static bool lch_pull_works(void)
{
	uint64_t a = 0x5545, b = 0;
	struct iovec to = { &b, sizeof(b) }, from = { &a, sizeof(a) };

	return process_vm_readv(getpid(), &to, 1, &from, 1, 0) ==
	       (ssize_t)sizeof(a) && b == a;
}

int uet_engine_local_setup(struct uet_engine *e)
{
	struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);
	struct uet_engine_local *l;
	int ret;

	if (e->cfg.local_off || !shm || e->wake_fd < 0)
		return 0;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->fd = -1;
	l->nonce = e->wake_nonce;
	/* A ring per index of the interface, each index's writer its own. */
	l->rings = shm->max_eps;
	l->ring_bytes = uet_lch_ring_bytes(l->rings);
	ret = uet_lch_inbox_create(e->ep_index, l->rings, l->nonce, &l->fd,
				   &l->in);
	if (ret < 0)
		goto fail;
	e->local = l;
	l->pull_ok = lch_pull_works();
	if (uet_dev_shm_lock(shm) == 0) {
		struct uet_dev_shm_slot *sl = &shm->slot[e->ep_index];

		sl->lch_pid = (uint32_t)getpid();
		sl->lch_fd = l->fd;
		sl->lch_nonce = l->nonce;
		uet_dev_shm_unlock(shm);
	}
	return 0;
fail:
	e->local = l;
	uet_engine_local_destroy(e);
	return ret;
}

static void lch_close(const struct uet_engine_local *l, struct lch *c)
{
	uet_lch_inbox_unmap(c->their, l->rings);
	c->their = NULL;
	c->w.r = NULL;
	if (c->wake >= 0)
		close(c->wake);
	c->wake = -1;
}

void uet_engine_local_destroy(struct uet_engine *e)
{
	struct uet_engine_local *l = e->local;

	if (!l)
		return;
	for (uint32_t i = 0; i < UET_LCH_RINGS; i++) {
		if (l->ch[i]) {
			lch_close(l, l->ch[i]);
			uet_lch_held_free(l->ch[i]);
		}
		free(l->ch[i]);
	}
	uet_lch_inbox_unmap(l->in, l->rings);
	if (l->fd >= 0)
		close(l->fd);
	free(l);
	e->local = NULL;
}

struct lch *uet_lch_get(struct uet_engine_local *l, uint32_t ep)
{
	if (!l->ch[ep]) {
		l->ch[ep] = calloc(1, sizeof(*l->ch[ep]));
		if (l->ch[ep]) {
			l->ch[ep]->wake = -1;
			l->ch[ep]->rd.size = l->ring_bytes;
		}
	}
	return l->ch[ep];
}

/*
 * Maps the inbox of endpoint |ep| and takes our ring in it. 0, or -errno:
 * -ENOENT no endpoint there with an inbox, -EACCES/-EPERM another user's.
 */
int uet_lch_connect(struct uet_engine *e, uint32_t ep)
{
	struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);
	struct lch *c = uet_lch_get(e->local, ep);
	struct uet_dev_shm_slot *sl;
	uint32_t pid = 0;
	uint64_t nonce = 0, key;
	int fd = -1, ret;

	if (!c)
		return -ENOMEM;
	if (c->state == LCH_UP)
		return 0;
	if (ep >= shm->max_eps || uet_dev_shm_lock(shm) < 0)
		return -ENOENT;
	sl = &shm->slot[ep];
	if (sl->state == UET_DEV_SLOT_ACTIVE) {
		pid = sl->lch_pid;
		fd = sl->lch_fd;
		nonce = sl->lch_nonce;
	}
	uet_dev_shm_unlock(shm);
	if (!nonce || fd < 0)
		return -ENOENT;
	lch_close(e->local, c);
	ret = uet_lch_inbox_map((pid_t)pid, fd, ep, e->local->rings, nonce,
				&c->their);
	if (ret < 0) {
		e->stats.local_refused++;
		return ret;
	}
	c->wake = uet_dev_wake_connect(nonce);
	if (c->wake < 0) {
		ret = c->wake;
		lch_close(e->local, c);
		return ret;
	}
	/* A key of its own per takeover: never an earlier writer's. */
	key = (e->local->nonce ^ ++e->local->keys * 0x9E3779B97F4A7C15ull) | 1;
	uet_lch_writer_take(&c->w, uet_lch_ring_at(c->their, e->local->rings,
						   e->ep_index),
			    e->local->ring_bytes, key);
	atomic_store(&c->w.r->refused, 0);
	uet_lch_active_set(c->their, e->ep_index);
	c->nonce = nonce;
	c->pid = (int32_t)pid;
	c->fh = c->ft = c->ah = c->at = c->nh = c->nt = 0;
	c->state = LCH_UP;
	e->local->up[ep / 64] |= 1ull << (ep % 64);
	e->stats.local_connects++;
	return 0;
}

/* Tells the owner of |c|'s inbox that something came, if it sleeps. */
void uet_lch_kick(struct uet_engine *e, struct lch *c)
{
	if (uet_dev_wake_take(&c->their->sleeping)) {
		(void)!send(c->wake, "w", 1, MSG_DONTWAIT);
		e->stats.local_wakes++;
	}
}

bool uet_engine_local_peer_pulls(void *ctx, uint32_t peer)
{
	struct uet_engine *e = ctx;

	return e->local && e->local->pull_ok && peer < e->npeers &&
	       uet_engine_local_routes(e, peer);
}

bool uet_engine_local_routes(struct uet_engine *e, uint32_t peer)
{
	struct uet_engine_peer *p = &e->peers[peer];
	struct uet_dev_shm *shm;
	uint16_t pid, ep;

	if (p->path != UET_PATH_UNTRIED)
		return p->path == UET_PATH_LOCAL;
	p->path = UET_PATH_WIRE;
	/* Only those we name first: others come to us on the path they
	 * chose (a local channel makes its index peers LOCAL). */
	if (!e->local || !(p->tag & UET_ENGINE_TAG_PID) ||
	    !uet_fa_equal(&p->fa, &e->cfg.local))
		return false;
	shm = uet_xsk_shm(e->xsk);
	pid = (uint16_t)(p->tag & UET_SES_PID_ON_FEP_MAX);
	ep = shm->pid_ep[pid];
	if (!ep || uet_lch_connect(e, ep) < 0)
		return false;
	p->path = UET_PATH_LOCAL;
	p->lch_ep = ep;
	return true;
}

/*
 * Writes slot |i| as a record of |type| (with UET_LCH_REC_F_* |flags|) to
 * |c|; 0 or -EAGAIN (full).
 */
/*
 * The record of a packet of |hdr_len| + |pay_len| bytes (and |extra|
 * after them) to our |peer|, of |type| with |flags|.
 */
static struct uet_lch_rec lch_rec(const struct uet_engine *e, uint32_t peer,
				  uint8_t type, uint8_t flags, uint8_t next_hdr,
				  uint16_t hdr_len, uint32_t pay_len,
				  uint32_t extra)
{
	const struct uet_engine_peer *p = &e->peers[peer];

	return (struct uet_lch_rec){
		.len = uet_lch_rec_len(hdr_len, pay_len + extra),
		.type = type, .next_hdr = next_hdr,
		.kind = (uint8_t)uet_engine_tag_send_kind(p->tag),
		.flags = flags, .src_peer = peer, .dst_peer = p->lch_rpeer,
		.hdr_len = hdr_len, .pay_len = pay_len,
	};
}

static int lch_write_slot(struct uet_engine *e, struct lch *c, uint32_t i,
			  uint8_t type, uint8_t flags)
{
	struct uet_engine_slot *s = &e->slots[i];
	struct uet_lch_pull pull = { (uintptr_t)s->rdv_buf, s->rdv_len };
	bool named = type == UET_LCH_REQ && s->rdv_buf && e->local->pull_ok;
	struct uet_lch_rec rec = lch_rec(e, s->peer, type,
					 flags | (named ? UET_LCH_REC_F_PULL : 0),
					 s->next_hdr, s->hdr_len, s->pay_len,
					 named ? sizeof(pull) : 0);
	uint32_t len = rec.len;
	uint8_t *buf;

	rec.seq = s->lch_seq;
	buf = uet_lch_reserve(&c->w, len);

	if (!buf)
		return -EAGAIN;
	memcpy(buf, &rec, sizeof(rec));
	/* A failed peer's packet (-ECANCELED) carries zeros, never its
	 * buffer, as a resend on the wire would. */
	if (uet_engine_pdc_fill(e, i, buf + sizeof(rec),
				(size_t)s->hdr_len + s->pay_len) < 0)
		memset(buf + sizeof(rec), 0, (size_t)s->hdr_len + s->pay_len);
	if (named)
		memcpy(buf + sizeof(rec) + s->hdr_len + s->pay_len, &pull,
		       sizeof(pull));
	uet_lch_publish(&c->w, buf, len);
	e->stats.local_tx++;
	e->stats.local_tx_bytes += (size_t)s->hdr_len + s->pay_len;
	uet_lch_kick(e, c);
	return 0;
}

int uet_engine_local_tx(struct uet_engine *e, const struct ses_pkt *pkt)
{
	struct uet_engine_peer *p = &e->peers[pkt->peer];
	struct uet_engine_local *l = e->local;
	struct lch *c = l->ch[p->lch_ep];
	bool req = uet_next_hdr_is_request(pkt->next_hdr), noans;
	int i, ret;

	if (!c || c->state != LCH_UP)
		return -ECONNRESET;	/* gone: the peer fails at once */
	if (req && (c->ft - c->fh == LCH_FIFO || c->at - c->ah == LCH_FIFO))
		return -EAGAIN;
	i = uet_engine_slot_take(e, pkt);
	if (i < 0)
		return i;
	if (!req) {
		ret = lch_write_slot(e, c, (uint32_t)i, UET_LCH_RSP, 0);
		uet_engine_slot_put(e, (uint32_t)i);
		return ret;
	}
	e->slots[i].lch_seq = c->seq;
	/* Behind requests sent again: after them, in order. */
	if (c->at != c->ah) {
		c->seq++;
		c->again[c->at++ % LCH_FIFO] = (uint32_t)i;
		return 0;
	}
	/*
	 * Nobody waits for its answer: none is asked, and it ends at the
	 * next tick (not here, inside SES). Only with nothing of this
	 * channel unanswered, so that the target never has to ask again
	 * for one of these (UET_LCH_REC_F_NO_ANSWER).
	 */
	noans = (pkt->flags & SES_PKT_F_NO_ANSWER) && c->fh == c->ft;
	if (noans && l->dt - l->dh == LCH_DONE_MAX) {
		uet_engine_slot_put(e, (uint32_t)i);
		return -EAGAIN;	/* ended at the next tick, then room */
	}
	ret = lch_write_slot(e, c, (uint32_t)i, UET_LCH_REQ,
			     noans ? UET_LCH_REC_F_NO_ANSWER : 0);
	if (ret < 0) {
		uet_engine_slot_put(e, (uint32_t)i);
		return ret;
	}
	c->seq++;
	if (noans)
		l->done[l->dt++ % LCH_DONE_MAX] = (uint32_t)i;
	else
		c->fifo[c->ft++ % LCH_FIFO] = (uint32_t)i;
	return 0;
}

int uet_engine_local_tx_whole(void *ctx, const struct ses_pkt *pkt)
{
	struct uet_engine *e = ctx;
	struct uet_engine_local *l = e->local;
	struct lch *c = l->ch[e->peers[pkt->peer].lch_ep];
	struct uet_lch_rec rec;
	uint8_t *buf;

	/*
	 * Behind nothing of the channel: no request unanswered or to go
	 * again (the target never asks for this one again), none ending at
	 * the next tick (sends end in the order they went).
	 */
	if (!c || c->state != LCH_UP || c->fh != c->ft || c->at != c->ah ||
	    l->dh != l->dt)
		return -EAGAIN;
	rec = lch_rec(e, pkt->peer, UET_LCH_REQ, UET_LCH_REC_F_NO_ANSWER,
		      pkt->next_hdr, pkt->hdr_len, pkt->pay_len, 0);
	rec.seq = c->seq;
	buf = uet_lch_reserve(&c->w, rec.len);
	if (!buf)
		return -EAGAIN;
	memcpy(buf, &rec, sizeof(rec));
	memcpy(buf + sizeof(rec), pkt->hdr, pkt->hdr_len);
	ses_pkt_payload_copy(pkt, buf + sizeof(rec) + pkt->hdr_len);
	uet_lch_publish(&c->w, buf, rec.len);
	c->seq++;
	e->stats.local_tx++;
	e->stats.local_tx_whole++;
	e->stats.local_tx_bytes += (size_t)pkt->hdr_len + pkt->pay_len;
	uet_lch_kick(e, c);
	return 0;
}

/* ---- failures, resends ---------------------------------------------------- */

/*
 * The channel with |ep| ends (|gone|: its process went; else it broke the
 * rules): our peers on it fail as those of a dead remote do, and their
 * next packet finds its way afresh.
 */
void uet_lch_down(struct uet_engine *e, uint32_t ep, bool gone)
{
	struct lch *c = e->local->ch[ep];

	if (!c)
		return;
	while (c->fh != c->ft)
		uet_engine_slot_put(e, c->fifo[c->fh++ % LCH_FIFO]);
	while (c->ah != c->at)
		uet_engine_slot_put(e, c->again[c->ah++ % LCH_FIFO]);
	c->nh = c->nt = 0;
	c->state = LCH_DOWN;
	e->local->up[ep / 64] &= ~(1ull << (ep % 64));
	lch_close(e->local, c);
	e->stats.local_gone += gone;
	for (uint32_t i = 0; i < e->npeers; i++) {
		struct uet_engine_peer *p = &e->peers[i];

		if (p->path != UET_PATH_LOCAL || p->lch_ep != ep)
			continue;
		/* Index peers stay: the endpoint comes back by its own
		 * requests, or never. */
		if (!(p->tag & UET_ENGINE_TAG_LOCAL))
			p->path = UET_PATH_UNTRIED;
		/* From progress, never inside SES: failed at once, before
		 * a new process's packets on the same peers come in. */
		if (p->state == UET_PEER_LIVE) {
			p->ops_out = 0;
			uet_engine_peer_fail(e, i, -ECONNRESET);
		}
	}
}

/* Whether the endpoint |c| writes to is the one it mapped. */
bool uet_lch_alive(struct uet_engine *e, uint32_t ep, const struct lch *c)
{
	const struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);
	const struct uet_dev_shm_slot *sl = &shm->slot[ep];

	return sl->state == UET_DEV_SLOT_ACTIVE && sl->lch_nonce == c->nonce &&
	       !atomic_load(&c->w.r->refused);
}

static void lch_again(struct uet_engine *e, struct lch *c)
{
	if (c->ah == c->at || c->probing ||
	    (!c->again_all && e->now_ns < c->again_ns))
		return;
	while (c->ah != c->at && c->ft - c->fh < LCH_FIFO) {
		uint32_t i = c->again[c->ah % LCH_FIFO];

		if (lch_write_slot(e, c, i, UET_LCH_REQ, 0) < 0)
			return;
		c->ah++;
		c->fifo[c->ft++ % LCH_FIFO] = i;
		if (!c->again_all) {	/* the first alone, until taken */
			c->probing = true;
			c->probe = i;
			return;
		}
	}
	if (c->ah == c->at)
		c->again_all = false;
}

void uet_lch_slot_default(struct uet_engine *e, uint32_t i)
{
	const struct uet_engine_slot *s = &e->slots[i];
	/* Read before SES may take the slot again. */
	uint64_t ref = s->msg_ref;
	bool live = s->epoch == e->peers[s->peer].epoch;

	uet_engine_slot_put(e, i);
	if (live)
		ses_rx_default(e->ses, ref);
}

/*
 * The requests written without an answer end, as a DEFAULT_RESPONSE would
 * end them; in order, and those SES sends meanwhile wait for the next.
 */
static void lch_done_run(struct uet_engine *e, struct uet_engine_local *l)
{
	for (uint32_t n = l->dt - l->dh; n; n--)
		uet_lch_slot_default(e, l->done[l->dh++ % LCH_DONE_MAX]);
}

void uet_engine_local_tick(struct uet_engine *e)
{
	struct uet_engine_local *l = e->local;
	bool check;

	if (!l)
		return;
	lch_done_run(e, l);
	check = e->now_ns - l->check_ns >= UET_ENGINE_TICK_NS;
	if (check)
		l->check_ns = e->now_ns;
	for (uint32_t w = 0; w * 64 < l->rings; w++) {	/* up[]: its rings */
		for (uint64_t up = l->up[w]; up; up &= up - 1) {
			uint32_t ep = w * 64 + (uint32_t)__builtin_ctzll(up);
			struct lch *c = l->ch[ep];

			if (check && !uet_lch_alive(e, ep, c)) {
				uet_lch_down(e, ep, true);
				continue;
			}
			uet_lch_answers_flush(e, c);
			lch_again(e, c);
		}
	}
}

/* Nanoseconds of |c|'s work due first (uet_engine_local_timeout). */
static uint64_t lch_due(const struct uet_engine_local *l,
			const struct lch *c, uint64_t at)
{
	if (c->nh != c->nt)
		return 0;
	if ((c->held || c->ring_waits) && c->in_wait_ns < at)
		at = c->in_wait_ns;
	if (c->ah != c->at && !c->probing &&
	    (c->again_all ? 0 : c->again_ns) < at)
		at = c->again_all ? 0 : c->again_ns;
	/* Waiting on it: look each tick whether it lives. */
	if (c->fh != c->ft && l->check_ns + UET_ENGINE_TICK_NS < at)
		at = l->check_ns + UET_ENGINE_TICK_NS;
	return at;
}

uint64_t uet_engine_local_timeout(const struct uet_engine *e, uint64_t now)
{
	const struct uet_engine_local *l = e->local;
	uint64_t at = UINT64_MAX;

	if (!l)
		return UINT64_MAX;
	if (l->dh != l->dt)
		return 0;
	for (uint32_t w = 0; w * 64 < l->rings; w++) {	/* up[]: its rings */
		for (uint64_t up = l->up[w]; up; up &= up - 1) {
			at = lch_due(l, l->ch[w * 64 + __builtin_ctzll(up)],
				     at);
			if (!at)
				return 0;
		}
	}
	return at == UINT64_MAX ? at : (at > now ? at - now : 0);
}

/* ---- sleeping ------------------------------------------------------------- */

bool uet_engine_local_sleep(struct uet_engine *e)
{
	struct uet_engine_local *l = e->local;

	if (!l)
		return true;
	l->armed = true;
	/* A writer that published before it saw the flag: look once more
	 * (the flag stays: uet_engine_local_woke takes it down). */
	uet_dev_wake_arm(&l->in->sleeping);
	return !uet_engine_local_pending(e);
}

void uet_engine_local_woke(struct uet_engine *e)
{
	struct uet_engine_local *l = e->local;

	if (!l || !l->armed)
		return;
	l->armed = false;
	uet_dev_wake_disarm(&l->in->sleeping);
}
