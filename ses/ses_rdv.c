/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Rendezvous sends (RENDEZVOUS_SEND/TSEND + the rendezvous extension, ref
 * 3.4). The initiator exposes its send buffer for reading in its own
 * rendezvous RI under a never-reused key and sends only a header (plus
 * rdv_eager_len bytes); the target, once the message is matched, pulls the
 * rest with a READ (seeds/hw-tag-matching.md, efa long-read) and then ends
 * the send with a deferred RESPONSE, which lets the initiator complete and
 * withdraw the buffer. Unexpected, a rendezvous costs the target a header.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ses/ses_priv.h"

/*
 * Target state of one rendezvous: the READ it issues and where it lands.
 * Once the READ started, its rxm is on s->pulling (by its link) and the
 * READ's slot is known, so that a pull whose sender went silent ends in
 * bounded time (ses_rdv_expire) and a canceled receive ends the READ.
 */
struct ses_rdv {
	struct ses_wre wre;
	struct ses_addr addr;
	struct ses_iov iov[SES_IOV_MAX];
	struct ses_rdv_ext ext;
	uint32_t eager;		/* bytes placed from the request itself */
	uint32_t msg;		/* the READ's slot in s->msgs, once started */
	uint32_t msg_seq;	/* and its ses_msg.seq */
	uint32_t seen;		/* READ bytes placed at the last look */
	uint64_t last_ns;	/* when the pull last moved (0: not looked) */
	bool canceled;		/* its receive was canceled: report nothing */
	bool has_src;		/* |src| names the sender's buffer */
	struct ses_pull_src src;
	struct ses_rdv *next_spare;	/* on s->rdv_spare */
};

/*
 * Spare states kept at most: a rendezvous' calloc and free were 580 of the
 * 8070 instructions of a 64 KiB ping-pong's round trip between two local
 * endpoints (callgrind); a pipeline of sends reuses a few.
 */
#define SES_RDV_SPARES	64

/* A zeroed target state, a spare one if any; NULL without memory. */
static struct ses_rdv *ses_rdv_get(struct ses *s)
{
	struct ses_rdv *d = s->rdv_spare;

	if (!d)
		return calloc(1, sizeof(*d));
	s->rdv_spare = d->next_spare;
	s->rdv_spares--;
	memset(d, 0, sizeof(*d));
	return d;
}

void ses_rdv_put(struct ses *s, struct ses_rdv *d)
{
	if (!d)
		return;
	if (s->rdv_spares >= SES_RDV_SPARES) {
		free(d);
		return;
	}
	d->next_spare = s->rdv_spare;
	s->rdv_spare = d;
	s->rdv_spares++;
}

void ses_rdv_spares_free(struct ses *s)
{
	while (s->rdv_spare) {
		struct ses_rdv *d = s->rdv_spare;

		s->rdv_spare = d->next_spare;
		free(d);
	}
	s->rdv_spares = 0;
}

int ses_rdv_msg_start(struct ses *s, const struct ses_wre *wre, bool pulled)
{
	struct ses_ri_tbl *t = ses_tbl_find(s, s->cfg.job_id,
					    s->cfg.pid_on_fep, s->cfg.rdv_ri);
	struct ses_msg_init in = { .flags = SES_MSG_F_RDV, .gen = -1 };
	uint64_t rkey;
	int ret;

	if (!t)
		return -EINVAL;
	/* Fresh keys: a stale READ for an old send finds nothing. */
	rkey = ++s->rdv_rkey_next & UET_MKEY_RKEY_MASK;
	ret = ses_mr_add_tbl(s, t, rkey, wre->iov[0].base, wre->iov[0].len,
			     SES_ACCESS_REMOTE_READ);
	if (ret < 0)
		return ret == -ENOMEM ? -EAGAIN : ret;
	in.rdv_mr = ses_pool_idx(&s->mrs, ses_mr_find(s, t, rkey));
	/*
	 * A target that copies the buffer itself takes it whole: bytes in
	 * the request would cross shared memory twice (64 KiB ping-pong
	 * half round trip, median 4.6 -> 3.5 us).
	 */
	if (pulled)
		in.flags |= SES_MSG_F_PULLED;
	in.opcode = wre->opcode == UET_SES_OP_TAGGED_SEND ?
		    UET_SES_OP_RENDEZVOUS_TSEND : UET_SES_OP_RENDEZVOUS_SEND;
	ret = ses_msg_start(s, wre, &in, NULL);
	if (ret < 0)
		ses_mr_del(s, ses_pool_at(&s->mrs, in.rdv_mr));
	return ret;
}

void ses_rdv_pkt_ext(struct ses *s, const struct ses_msg *m,
		     struct ses_pkt *pkt)
{
	const struct ses_region *r = ses_pool_at(&s->mrs, m->rdv_mr);
	uint32_t most = m->flags & SES_MSG_F_PULLED ? 0 : s->cfg.rdv_eager_len;
	uint32_t eager = m->len < most ? m->len : most;
	struct ses_rdv_ext ext = {
		.eager_length = eager, .pid_on_fep = s->cfg.pid_on_fep,
		.resource_index = s->cfg.rdv_ri, .read_offset = 0,
		.read_match_bits = r->rkey,
	};
	ssize_t n;

	n = ses_rdv_ext_encode(pkt->hdr + pkt->hdr_len,
			       sizeof(pkt->hdr) - pkt->hdr_len, &ext);
	pkt->hdr_len = (uint16_t)(pkt->hdr_len + n);
	pkt->pay_off = 0;
	pkt->pay_len = eager;
	pkt->rdv_buf = r->base;
	pkt->rdv_len = r->len;
}

int ses_rx_rdv(struct ses *s, struct ses_rx_ctx *c)
{
	struct ses_rxm *m = ses_rxm_new(s, c);
	uint32_t placed;

	if (!m)
		return -EAGAIN;
	m->rdv = ses_rdv_get(s);
	if (!m->rdv) {
		ses_rxm_free(s, m);
		return -EAGAIN;
	}
	m->rdv->ext = c->rdv;
	if (c->src && s->ops.pull) {
		m->rdv->src = *c->src;
		m->rdv->has_src = true;
	}
	m->flags |= SES_RXM_F_SEND | SES_RXM_F_RDV;
	if (c->h.opcode == UET_SES_OP_RENDEZVOUS_TSEND)
		m->flags |= SES_RXM_F_TAGGED;
	if (c->h.f.dc)
		m->flags |= SES_RXM_F_DC;
	m->recv = ses_recv_match(s, m);
	if (!m->recv && ses_ux_add(s, m, c->pay_len) < 0) {
		s->st.rx_ux_full++;	/* sent again later, as ses_rx_send */
		ses_rxm_forget(s, m);
		return -EAGAIN;
	}
	if (m->recv)
		ses_iov_write(m->recv->iov, m->recv->iov_cnt, 0, c->pay,
			      c->pay_len);
	else if (c->pay_len)
		memcpy(m->ux_buf, c->pay, c->pay_len);
	ses_rxm_took(s, m, c);
	ses_rxm_finish(s, m);
	/* The sender keeps its buffer exposed until the deferred answer. */
	if (!m->recv || !ses_rdv_pull(s, m, false, &placed))
		return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
	return ses_rx_ok(c, UET_SES_RSP_RESPONSE, placed);
}

/* |dst| = the bytes of |src| from |off|, at most |len|; returns entries. */
static size_t ses_iov_slice(struct ses_iov *dst, const struct ses_iov *src,
			    size_t cnt, uint64_t off, uint64_t len)
{
	size_t i, n = 0;

	for (i = 0; i < cnt && len; i++) {
		if (off >= src[i].len) {
			off -= src[i].len;
			continue;
		}
		dst[n] = src[i];
		dst[n].base = (uint8_t *)src[i].base + off;
		dst[n].len = src[i].len - off;
		if (dst[n].len > len)
			dst[n].len = len;
		len -= dst[n].len;
		off = 0;
		n++;
	}
	return n;
}

/*
 * Issues the READ of |m|; -EAGAIN leaves it on pull_pending, a READ
 * started puts |m| on s->pulling.
 */
static int ses_rdv_pull_start(struct ses *s, struct ses_rxm *m)
{
	struct ses_msg_init in = { .flags = SES_MSG_F_INTERNAL, .gen = 0 };
	struct ses_msg *msg = NULL;
	int ret = ses_msg_start(s, &m->rdv->wre, &in, &msg);

	if (ret == -EAGAIN) {
		ses_list_add_tail(&s->pull_pending, &m->link);
		return 0;
	}
	if (ret < 0) {
		ses_rsp_send(s, m, UET_SES_RC_UNDELIVERABLE, 0);
		ses_rxm_abort(s, m, ret, UET_SES_RC_NULL);
		return 0;
	}
	/* The READ may have ended inside (ses_msg_pump): |m| is gone then. */
	if (!(m->flags & SES_RXM_F_PULLING))
		return 0;
	m->rdv->msg = ses_pool_idx(&s->msgs, msg);
	m->rdv->msg_seq = msg->seq;
	ses_list_add_tail(&s->pulling, &m->link);
	return 0;
}

/*
 * Copies the rest of |m| straight out of the sender's buffer (ses_ops.pull)
 * into d->iov, set up as the READ's: whether it is all there.
 */
static bool ses_rdv_pull_direct(struct ses *s, struct ses_rxm *m,
				uint64_t len)
{
	struct ses_rdv *d = m->rdv;
	uint64_t off = d->ext.read_offset + d->eager;

	if (!d->has_src || off > d->src.len || len > d->src.len - off)
		return false;
	if (s->ops.pull(s->ctx, &d->src, off, d->iov, d->wre.iov_cnt,
			len) < 0) {
		s->st.rdv_pull_failed++;
		d->has_src = false;	/* the READ from now on */
		return false;
	}
	s->st.rdv_pulled++;
	return true;
}

int ses_rdv_pull(struct ses *s, struct ses_rxm *m, bool answer,
		 uint32_t *placed)
{
	struct ses_rdv *d = m->rdv;
	const struct ses_recv *r = m->recv;
	uint64_t want = r->len < m->req_len ? r->len : m->req_len;
	struct ses_wre *w = &d->wre;

	d->eager = m->arrived < want ? m->arrived : (uint32_t)want;
	w->iov = d->iov;
	w->iov_cnt = ses_iov_slice(d->iov, r->iov, r->iov_cnt, d->eager,
				   want - d->eager);
	if (want == d->eager || ses_rdv_pull_direct(s, m, want - d->eager)) {
		*placed = (uint32_t)want;
		if (answer)
			ses_rsp_send(s, m, UET_SES_RC_OK, *placed);
		ses_recv_complete(s, m->recv, m, 0, UET_SES_RC_OK, want);
		ses_rxm_free(s, m);
		return 1;
	}
	/* Read the sender's buffer into the receive, after the eager part. */
	d->addr.peer = ((struct ses_peer *)ses_pool_at(&s->peers,
						       m->peer))->id;
	d->addr.job_id = m->job_id;
	d->addr.pid_on_fep = d->ext.pid_on_fep;
	w->opcode = UET_SES_OP_READ;
	w->dst = &d->addr;
	w->ri = d->ext.resource_index;
	w->mkey = d->ext.read_match_bits;
	w->remote_offset = d->ext.read_offset + d->eager;
	w->user_ctx = m;
	m->flags |= SES_RXM_F_PULLING;
	return ses_rdv_pull_start(s, m);
}

void ses_rdv_progress(struct ses *s)
{
	struct ses_list todo;

	/* Retry each once; those refused again go back on the list. */
	if (ses_list_is_empty(&s->pull_pending))
		return;
	todo = s->pull_pending;
	todo.next->prev = &todo;
	todo.prev->next = &todo;
	ses_list_init(&s->pull_pending);
	while (!ses_list_is_empty(&todo)) {
		struct ses_rxm *m = ses_container_of(todo.next, struct ses_rxm,
						     link);

		ses_list_del(&m->link);
		ses_rdv_pull_start(s, m);
	}
}

void ses_rdv_pull_done(struct ses *s, struct ses_msg *msg, int status,
		       uint8_t rc)
{
	struct ses_rxm *m = msg->wre->user_ctx;
	uint32_t placed = m->rdv->eager;

	if (m->rdv->canceled) {
		/* Dropped here, as ses_recv_discard drops one. */
		ses_rsp_send(s, m, UET_SES_RC_OK, 0);
		ses_recv_complete(s, m->recv, NULL, -ECANCELED,
				  UET_SES_RC_NULL, 0);
	} else if (!status) {
		placed += msg->len;
		ses_rsp_send(s, m, UET_SES_RC_OK, placed);
		ses_recv_complete(s, m->recv, m, 0, UET_SES_RC_OK, placed);
	} else {
		/* The sender learns why; a local failure has no code. */
		if (rc == UET_SES_RC_OK || rc == UET_SES_RC_NULL)
			rc = UET_SES_RC_UNDELIVERABLE;
		ses_rsp_send(s, m, rc, placed);
		ses_recv_complete(s, m->recv, m, -EIO, rc, placed);
	}
	m->recv = NULL;
	ses_rxm_free(s, m);
}

/* The READ of pull |m|, or NULL when it has not started. */
static struct ses_msg *ses_rdv_msg(struct ses *s, const struct ses_rxm *m)
{
	struct ses_msg *msg;

	if (!(m->flags & SES_RXM_F_PULLING) || !m->rdv ||
	    m->rdv->msg >= s->msgs.len)
		return NULL;
	msg = ses_pool_at(&s->msgs, m->rdv->msg);
	if (!msg->wre || msg->seq != m->rdv->msg_seq ||
	    msg->wre != &m->rdv->wre)
		return NULL;
	return msg;
}

void ses_rdv_cancel(struct ses *s, struct ses_rxm *m)
{
	struct ses_msg *msg = ses_rdv_msg(s, m);

	m->rdv->canceled = true;
	if (msg) {
		/* Done: what still comes for it is dropped (ses_cpl.c). */
		ses_msg_complete(s, msg, -ECANCELED, UET_SES_RC_NULL, 0);
		ses_msg_try_free(s, msg);
		return;
	}
	/* Not started (pull_pending): nothing of it is on the wire. */
	ses_rsp_send(s, m, UET_SES_RC_OK, 0);
	ses_recv_complete(s, m->recv, NULL, -ECANCELED, UET_SES_RC_NULL, 0);
	m->recv = NULL;
	ses_rxm_free(s, m);
}

/* At most this many peers are told apart; with more, all count as live. */
#define SES_RDV_LIVE_MAX	16

/*
 * Looks at every started pull at most 16 times per rx_idle_ns. A pull
 * moves when its READ placed data since the last look; one that waits to
 * be sent (no id yet, or refused by the lower layer) is not the sender's
 * silence. The sender serves its READs one after the other, so a pull
 * waiting behind another of the same peer that moves is not idle either.
 */
int ses_rdv_expire(struct ses *s, uint64_t now_ns)
{
	uint32_t live[SES_RDV_LIVE_MAX], nlive = 0;
	bool all_live = false;
	struct ses_list *n, *next;
	int ended = 0;

	if (ses_list_is_empty(&s->pulling) ||
	    now_ns - s->pull_check_ns < s->cfg.rx_idle_ns / 16)
		return 0;
	s->pull_check_ns = now_ns;
	for (n = s->pulling.next; n != &s->pulling; n = n->next) {
		struct ses_rxm *m = ses_container_of(n, struct ses_rxm, link);
		struct ses_msg *msg = ses_rdv_msg(s, m);
		struct ses_rdv *d = m->rdv;

		if (!msg)
			continue;
		if (d->last_ns == 0 || msg->placed != d->seen ||
		    (msg->flags & (SES_MSG_F_WAIT | SES_MSG_F_QUEUED))) {
			d->seen = msg->placed;
			d->last_ns = now_ns;
			if (nlive < SES_RDV_LIVE_MAX)
				live[nlive++] = m->peer;
			else
				all_live = true;
		}
	}
	for (n = s->pulling.next; n != &s->pulling; n = next) {
		struct ses_rxm *m = ses_container_of(n, struct ses_rxm, link);
		struct ses_msg *msg = ses_rdv_msg(s, m);
		bool peer_live = all_live;

		next = n->next;
		for (uint32_t i = 0; i < nlive && !peer_live; i++)
			peer_live = live[i] == m->peer;
		/* Started by a callback below: looked at next time. */
		if (peer_live || !m->rdv->last_ns) {
			m->rdv->last_ns = now_ns;
			continue;
		}
		if (!msg || (msg->flags & SES_MSG_F_DONE) ||
		    now_ns - m->rdv->last_ns < s->cfg.rx_idle_ns)
			continue;
		s->st.rx_timeouts++;
		ended++;
		ses_msg_complete(s, msg, -ETIMEDOUT, UET_SES_RC_NULL, 0);
		ses_msg_try_free(s, msg);
		/*
		 * |m| is gone; the receive's callback may have started or
		 * ended other pulls: start over (those seen stay, or are
		 * ended now).
		 */
		next = s->pulling.next;
	}
	return ended;
}
