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
 * uet_engine_fd() (an epoll of its socket and its wake socket); a writer
 * that finds it set clears it and sends a datagram to the owner's wake
 * socket, an abstract Unix socket named by the inbox's nonce.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "dev/uet_dev_shm.h"
#include "engine/uet_engine_local.h"
#include "engine/uet_lch.h"

/* Requests unanswered on one channel. */
#define LCH_FIFO	512
/* Answers waiting for room in the initiator's ring. */
#define LCH_ANS_MAX	LCH_FIFO
/* A target that asked again is asked again this much later, at first. */
#define LCH_AGAIN_NS	20000ull
#define LCH_AGAIN_MAX_NS	1000000ull
/* Records read from one ring per progress call. */
#define LCH_RX_BUDGET	64

enum lch_state { LCH_NONE, LCH_UP, LCH_DOWN };

struct lch_ans {
	uint8_t type;
	uint8_t len;
	uint32_t seq;
	uint32_t dst_peer;
	uint8_t rsp[PDC_RESP_MAX_LEN];
};

/* Our side of the channel with the endpoint of one index. */
struct lch {
	uint8_t state;		/* enum lch_state: our ring in its inbox */
	struct uet_lch_inbox *their;
	struct uet_lch_writer w;	/* our ring in it */
	uint64_t nonce;		/* its inbox's */
	int wake;		/* connected to its wake socket */
	uint32_t seq;		/* our next request's */
	uint32_t fifo[LCH_FIFO], fh, ft;	/* slots unanswered */
	uint32_t again[LCH_FIFO], ah, at;	/* slots to send again */
	uint64_t again_ns;	/* when the first goes again */
	uint64_t again_wait;	/* the wait after a refusal */
	bool probing;		/* the first went again: its answer? */
	bool again_all;		/* it was taken: the rest go now */
	uint32_t probe;		/* its slot */
	struct lch_ans ans[LCH_ANS_MAX];	/* answers not written yet */
	uint32_t nh, nt;
	/* What it writes to us. */
	struct uet_lch_reader rd;
	bool rd_broken;		/* nothing read until a new writer */
	uint32_t in_ctx;	/* its incarnation, for SES (ses_rx_pkt.pdc) */
	bool in_blocked;	/* we asked again for |in_blocked_seq| */
	uint32_t in_blocked_seq;
	uint32_t in_peer[UET_ENGINE_KIND_MAX + 1];	/* by kind: id + 1 */
};

struct uet_engine_local {
	struct uet_lch_inbox *in;
	int fd;			/* the inbox's memfd */
	int wake;		/* our wake socket */
	int epfd;		/* it and the device socket */
	uint64_t nonce;
	uint32_t ctx;		/* incarnations seen, all channels */
	uint64_t check_ns;	/* when peers were last looked at */
	uint64_t up;		/* channels whose state is LCH_UP */
	uint64_t keys;		/* ring keys drawn */
	bool armed;		/* |sleeping| set by us: undo at next rx */
	struct lch *ch[UET_LCH_RINGS];
};

static void lch_wake_name(struct sockaddr_un *a, socklen_t *len,
			  uint64_t nonce)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	/* Abstract: sun_path[0] is 0; the name is what follows. */
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1,
		     "uet-lch-%016llx", (unsigned long long)nonce);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

int uet_engine_local_setup(struct uet_engine *e)
{
	struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);
	struct uet_engine_local *l;
	struct epoll_event ev = { .events = EPOLLIN };
	struct sockaddr_un a;
	socklen_t alen;
	int ret;

	if (e->cfg.local_off || !shm)
		return 0;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->fd = l->wake = l->epfd = -1;
	if (getrandom(&l->nonce, sizeof(l->nonce), 0) != sizeof(l->nonce) ||
	    !l->nonce)
		l->nonce = (uint64_t)getpid() << 32 | (uint64_t)e->ep_index << 16 |
			   1;
	ret = uet_lch_inbox_create(e->ep_index, l->nonce, &l->fd, &l->in);
	if (ret < 0)
		goto fail;
	l->wake = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	lch_wake_name(&a, &alen, l->nonce);
	if (l->wake < 0 || bind(l->wake, (struct sockaddr *)&a, alen) < 0)
		goto fail_errno;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0)
		goto fail_errno;
	ev.data.fd = l->wake;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wake, &ev) < 0)
		goto fail_errno;
	ev.data.fd = uet_xsk_fd(e->xsk);
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, ev.data.fd, &ev) < 0)
		goto fail_errno;
	e->local = l;
	if (uet_dev_shm_lock(shm) == 0) {
		struct uet_dev_shm_slot *sl = &shm->slot[e->ep_index];

		sl->lch_pid = (uint32_t)getpid();
		sl->lch_fd = l->fd;
		sl->lch_nonce = l->nonce;
		uet_dev_shm_unlock(shm);
	}
	return 0;
fail_errno:
	ret = -errno;
fail:
	e->local = l;
	uet_engine_local_destroy(e);
	return ret;
}

static void lch_close(struct lch *c)
{
	uet_lch_inbox_unmap(c->their);
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
		if (l->ch[i])
			lch_close(l->ch[i]);
		free(l->ch[i]);
	}
	uet_lch_inbox_unmap(l->in);
	if (l->fd >= 0)
		close(l->fd);
	if (l->wake >= 0)
		close(l->wake);
	if (l->epfd >= 0)
		close(l->epfd);
	free(l);
	e->local = NULL;
}

static struct lch *lch_get(struct uet_engine_local *l, uint32_t ep)
{
	if (!l->ch[ep]) {
		l->ch[ep] = calloc(1, sizeof(*l->ch[ep]));
		if (l->ch[ep])
			l->ch[ep]->wake = -1;
	}
	return l->ch[ep];
}

/*
 * Maps the inbox of endpoint |ep| and takes our ring in it. 0, or -errno:
 * -ENOENT no endpoint there with an inbox, -EACCES/-EPERM another user's.
 */
static int lch_connect(struct uet_engine *e, uint32_t ep)
{
	struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);
	struct lch *c = lch_get(e->local, ep);
	struct uet_dev_shm_slot *sl;
	struct sockaddr_un a;
	uint32_t pid = 0;
	socklen_t alen;
	uint64_t nonce = 0;
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
	lch_close(c);
	ret = uet_lch_inbox_map((pid_t)pid, fd, ep, nonce, &c->their);
	if (ret < 0) {
		e->stats.local_refused++;
		return ret;
	}
	c->wake = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			 0);
	lch_wake_name(&a, &alen, nonce);
	if (c->wake < 0 || connect(c->wake, (struct sockaddr *)&a, alen) < 0) {
		ret = -errno;
		lch_close(c);
		return ret;
	}
	/* A key of its own per takeover: never an earlier writer's. */
	uet_lch_writer_take(&c->w, &c->their->ring[e->ep_index],
			    (e->local->nonce ^ ++e->local->keys *
			     0x9E3779B97F4A7C15ull) | 1);
	atomic_store(&c->w.r->refused, 0);
	atomic_fetch_or(&c->their->active, 1ull << e->ep_index);
	c->nonce = nonce;
	c->fh = c->ft = c->ah = c->at = c->nh = c->nt = 0;
	c->state = LCH_UP;
	e->local->up |= 1ull << ep;
	e->stats.local_connects++;
	return 0;
}

/* Tells the owner of |c|'s inbox that something came, if it sleeps. */
static void lch_kick(struct uet_engine *e, struct lch *c)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&c->their->sleeping, memory_order_relaxed) &&
	    atomic_exchange(&c->their->sleeping, 0)) {
		(void)!send(c->wake, "w", 1, MSG_DONTWAIT);
		e->stats.local_wakes++;
	}
}

bool uet_engine_local_routes(struct uet_engine *e, uint32_t peer)
{
	struct uet_engine_peer *p = &e->peers[peer];
	struct uet_dev_shm *shm;
	uint16_t pid;
	uint8_t ep;

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
	if (!ep || lch_connect(e, ep) < 0)
		return false;
	p->path = UET_PATH_LOCAL;
	p->lch_ep = ep;
	return true;
}

/* Writes slot |i| as a record of |type| to |c|; 0 or -EAGAIN (full). */
static int lch_write_slot(struct uet_engine *e, struct lch *c, uint32_t i,
			  uint8_t type)
{
	struct uet_engine_slot *s = &e->slots[i];
	const struct uet_engine_peer *p = &e->peers[s->peer];
	uint32_t len = uet_lch_rec_len(s->hdr_len, s->pay_len);
	struct uet_lch_rec rec = {
		.len = len, .type = type, .next_hdr = s->next_hdr,
		.kind = (uint8_t)uet_engine_tag_send_kind(p->tag),
		.src_peer = s->peer, .dst_peer = p->lch_rpeer,
		.seq = s->lch_seq, .hdr_len = s->hdr_len,
		.pay_len = s->pay_len,
	};
	uint8_t *buf = uet_lch_reserve(&c->w, len);

	if (!buf)
		return -EAGAIN;
	memcpy(buf, &rec, sizeof(rec));
	/* A failed peer's packet (-ECANCELED) carries zeros, never its
	 * buffer, as a resend on the wire would. */
	if (uet_engine_pdc_fill(e, i, buf + sizeof(rec),
				(size_t)s->hdr_len + s->pay_len) < 0)
		memset(buf + sizeof(rec), 0, (size_t)s->hdr_len + s->pay_len);
	uet_lch_publish(&c->w, buf, len);
	e->stats.local_tx++;
	e->stats.local_tx_bytes += (size_t)s->hdr_len + s->pay_len;
	lch_kick(e, c);
	return 0;
}

int uet_engine_local_tx(struct uet_engine *e, const struct ses_pkt *pkt)
{
	struct uet_engine_peer *p = &e->peers[pkt->peer];
	struct lch *c = e->local->ch[p->lch_ep];
	bool req = uet_next_hdr_is_request(pkt->next_hdr);
	int i, ret;

	if (!c || c->state != LCH_UP)
		return -ECONNRESET;	/* gone: the peer fails at once */
	if (req && (c->ft - c->fh == LCH_FIFO || c->at - c->ah == LCH_FIFO))
		return -EAGAIN;
	i = uet_engine_slot_take(e, pkt);
	if (i < 0)
		return i;
	if (!req) {
		ret = lch_write_slot(e, c, (uint32_t)i, UET_LCH_RSP);
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
	ret = lch_write_slot(e, c, (uint32_t)i, UET_LCH_REQ);
	if (ret < 0) {
		uet_engine_slot_put(e, (uint32_t)i);
		return ret;
	}
	c->seq++;
	c->fifo[c->ft++ % LCH_FIFO] = (uint32_t)i;
	return 0;
}

/* ---- the target's side ---------------------------------------------------- */

/* Writes the answers |c| holds, in order, while there is room. */
static void lch_answers_flush(struct uet_engine *e, struct lch *c)
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
		lch_kick(e, c);
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
	lch_answers_flush(e, c);
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
	p->lch_ep = (uint8_t)ep;
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

static void lch_down(struct uet_engine *e, uint32_t ep, bool gone);
static bool lch_alive(struct uet_engine *e, uint32_t ep, const struct lch *c);

/* Whether ring |ep| of our inbox has something for us (or a new writer). */
static bool lch_ring_pending(const struct uet_engine_local *l, uint32_t ep)
{
	struct uet_lch_ring *r = &l->in->ring[ep];
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
	struct lch *c = lch_get(e->local, ep);
	int n = 0;

	if (!c)
		return 0;
	if (uet_lch_reader_sync(&c->rd, r)) {
		/* A new process on that index: a new incarnation for SES,
		 * and our channel to the one before ends with it. */
		c->in_ctx = ++e->local->ctx;
		c->in_blocked = false;
		c->rd_broken = false;
		if (c->state == LCH_UP && !lch_alive(e, ep, c))
			lch_down(e, ep, true);
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
			lch_down(e, ep, false);
			/* Nothing more of it is read until a new writer. */
			c->rd_broken = true;
			return n;
		}
		if (!p)
			break;
		if (rec.type == UET_LCH_REQ) {
			/* Its answer needs our ring in its inbox. */
			if (lch_connect(e, ep) < 0) {
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
			lch_down(e, ep, false);
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
	act = atomic_load_explicit(&l->in->active, memory_order_acquire);
	for (; act; act &= act - 1)
		if (lch_ring_pending(l, (uint32_t)__builtin_ctzll(act)))
			return true;
	return false;
}

int uet_engine_local_rx(struct uet_engine *e)
{
	struct uet_engine_local *l = e->local;
	uint64_t act;
	int n = 0;

	if (!l)
		return 0;
	/* Woken from an fd the application slept on (fi_trywait). */
	if (l->armed)
		uet_engine_local_woke(e);
	act = atomic_load_explicit(&l->in->active, memory_order_acquire);
	while (act) {
		uint32_t ep = (uint32_t)__builtin_ctzll(act);
		struct uet_lch_ring *r = &l->in->ring[ep];

		act &= act - 1;
		if (lch_ring_pending(l, ep))
			n += lch_rx_ring(e, ep, r);
	}
	return n;
}

/* ---- failures, resends ---------------------------------------------------- */

/*
 * The channel with |ep| ends (|gone|: its process went; else it broke the
 * rules): our peers on it fail as those of a dead remote do, and their
 * next packet finds its way afresh.
 */
static void lch_down(struct uet_engine *e, uint32_t ep, bool gone)
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
	e->local->up &= ~(1ull << ep);
	lch_close(c);
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
static bool lch_alive(struct uet_engine *e, uint32_t ep, const struct lch *c)
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

		if (lch_write_slot(e, c, i, UET_LCH_REQ) < 0)
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

void uet_engine_local_tick(struct uet_engine *e)
{
	struct uet_engine_local *l = e->local;
	bool check;

	if (!l)
		return;
	check = e->now_ns - l->check_ns >= UET_ENGINE_TICK_NS;
	if (check)
		l->check_ns = e->now_ns;
	for (uint64_t up = l->up; up; up &= up - 1) {
		uint32_t ep = (uint32_t)__builtin_ctzll(up);
		struct lch *c = l->ch[ep];

		if (check && !lch_alive(e, ep, c)) {
			lch_down(e, ep, true);
			continue;
		}
		lch_answers_flush(e, c);
		lch_again(e, c);
	}
}

uint64_t uet_engine_local_timeout(const struct uet_engine *e, uint64_t now)
{
	const struct uet_engine_local *l = e->local;
	uint64_t at = UINT64_MAX;

	if (!l)
		return UINT64_MAX;
	for (uint64_t up = l->up; up; up &= up - 1) {
		const struct lch *c = l->ch[__builtin_ctzll(up)];

		if (c->nh != c->nt)
			return 0;
		if (c->ah != c->at && !c->probing &&
		    (c->again_all ? 0 : c->again_ns) < at)
			at = c->again_all ? 0 : c->again_ns;
		/* Waiting on it: look each tick whether it lives. */
		if (c->fh != c->ft && l->check_ns + UET_ENGINE_TICK_NS < at)
			at = l->check_ns + UET_ENGINE_TICK_NS;
	}
	return at == UINT64_MAX ? at : (at > now ? at - now : 0);
}

/* ---- sleeping ------------------------------------------------------------- */

bool uet_engine_local_sleep(struct uet_engine *e)
{
	struct uet_engine_local *l = e->local;
	uint64_t act;

	if (!l)
		return true;
	l->armed = true;
	atomic_store(&l->in->sleeping, 1);
	atomic_thread_fence(memory_order_seq_cst);
	act = atomic_load(&l->in->active);
	while (act) {
		uint32_t ep = (uint32_t)__builtin_ctzll(act);

		act &= act - 1;
		if (lch_ring_pending(l, ep)) {
			atomic_store(&l->in->sleeping, 0);
			return false;
		}
	}
	return true;
}

void uet_engine_local_woke(struct uet_engine *e)
{
	struct uet_engine_local *l = e->local;
	char buf[64];

	if (!l || !l->armed)
		return;
	l->armed = false;
	atomic_store(&l->in->sleeping, 0);
	while (recv(l->wake, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

int uet_engine_local_fd(const struct uet_engine *e)
{
	return e->local ? e->local->epfd : -1;
}
