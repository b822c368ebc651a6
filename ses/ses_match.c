/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Target sends and receives: tag matching against posted receives, the
 * bounded unexpected-message queue, peek/claim/discard, truncation. The
 * rules (seeds/hw-tag-matching.md) are in ses_recv.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ses/ses_priv.h"

#define SES_RECV_F_VALID	(SES_RECV_F_TAGGED | SES_RECV_F_FRONT)

static bool ses_rxm_is_tagged(const struct ses_rxm *m)
{
	return m->flags & SES_RXM_F_TAGGED;
}

/* Whether a receive described by |a| takes message |m|. */
static bool ses_spec_is_match(uint32_t flags, uint64_t tag, uint64_t ignore,
			      uint32_t initiator, const struct ses_rxm *m)
{
	bool tagged = flags & SES_RECV_F_TAGGED;

	if (tagged != ses_rxm_is_tagged(m))
		return false;
	if (initiator != SES_INITIATOR_ANY && initiator != m->initiator)
		return false;
	return !tagged || !((tag ^ m->mkey) & ~ignore);
}

struct ses_recv *ses_recv_match(struct ses *s, const struct ses_rxm *m)
{
	struct ses_list *h = &s->posted[ses_rxm_is_tagged(m)], *n;

	for (n = h->next; n != h; n = n->next) {
		struct ses_recv *r = ses_container_of(n, struct ses_recv, link);

		if (ses_spec_is_match(r->flags, r->tag, r->ignore,
				      r->initiator, m)) {
			ses_list_del(&r->link);
			return r;
		}
	}
	return NULL;
}

/* The earliest unclaimed unexpected message |a| matches, or NULL. */
static struct ses_rxm *ses_ux_match(struct ses *s,
				    const struct ses_recv_attr *a)
{
	struct ses_list *n;

	for (n = s->ux.next; n != &s->ux; n = n->next) {
		struct ses_rxm *m = ses_container_of(n, struct ses_rxm, ux);

		if (!(m->flags & SES_RXM_F_CLAIMED) &&
		    ses_spec_is_match(a->flags, a->tag, a->ignore,
				      a->initiator, m))
			return m;
	}
	return NULL;
}

int ses_ux_add(struct ses *s, struct ses_rxm *m, uint32_t buf_len)
{
	if (s->ux_cnt >= s->cfg.max_unexpected ||
	    buf_len > s->cfg.max_unexpected_len - s->ux_bytes)
		return -ENOBUFS;
	if (buf_len) {
		m->ux_buf = malloc(buf_len);
		if (!m->ux_buf)
			return -ENOBUFS;
	}
	m->ux_len = buf_len;
	m->flags |= SES_RXM_F_UX;
	s->ux_cnt++;
	s->ux_bytes += buf_len;
	ses_list_add_tail(&s->ux, &m->ux);
	return 0;
}

void ses_ux_del(struct ses *s, struct ses_rxm *m)
{
	ses_list_del(&m->ux);
	m->flags &= ~(SES_RXM_F_UX | SES_RXM_F_CLAIMED);
	s->ux_cnt--;
	s->ux_bytes -= m->ux_len;
}

void ses_recv_complete(struct ses *s, struct ses_recv *r,
		       const struct ses_rxm *m, int status, uint8_t rc,
		       uint64_t placed)
{
	struct ses_recv_cpl cpl = {
		.user_ctx = r->user_ctx, .status = status, .rc = rc,
		.tagged = r->flags & SES_RECV_F_TAGGED, .len = placed,
	};

	if (m) {
		cpl.hd = m->flags & SES_RXM_F_HD;
		cpl.header_data = m->header_data;
		cpl.peer = ((struct ses_peer *)ses_pool_at(&s->peers,
							   m->peer))->id;
		cpl.initiator = m->initiator;
		cpl.tag = ses_rxm_is_tagged(m) ? m->mkey : 0;
		cpl.msg_len = m->req_len;
		/* Truncated, never overflowed: the rest was not placed. */
		if (!status && m->req_len > r->len)
			cpl.status = -EMSGSIZE;
	}
	ses_pool_put(&s->recvs, r);
	if (s->ops.recv_done)
		s->ops.recv_done(s->ctx, &cpl);
}

static uint32_t ses_rxm_fit(const struct ses_rxm *m, const struct ses_recv *r)
{
	return r->len < m->req_len ? (uint32_t)r->len : m->req_len;
}

/*
 * Gives unexpected message |m| its receive |r|: what arrived is copied
 * over; a rendezvous pulls the rest; a message still arriving continues
 * straight into |r|.
 */
static void ses_rxm_bind(struct ses *s, struct ses_rxm *m, struct ses_recv *r)
{
	uint32_t n = m->ux_len < r->len ? m->ux_len : (uint32_t)r->len;
	uint32_t placed;

	m->recv = r;
	ses_ux_del(s, m);
	if (n)
		ses_iov_write(r->iov, r->iov_cnt, 0, m->ux_buf, n);
	free(m->ux_buf);
	m->ux_buf = NULL;
	if (m->flags & SES_RXM_F_RDV) {
		ses_rdv_pull(s, m, true, &placed);
		return;
	}
	if (m->flags & SES_RXM_F_INMAP)
		return;
	placed = ses_rxm_fit(m, r);
	/* The sender of a dc message has waited for this placement. */
	if (m->flags & SES_RXM_F_DC)
		ses_rsp_send(s, m, UET_SES_RC_OK, placed);
	ses_recv_complete(s, r, m, 0, UET_SES_RC_OK, placed);
	ses_rxm_free(s, m);
}

/* The first packet of a send: match it, or queue it as unexpected. */
static int ses_rxm_match_new(struct ses *s, struct ses_rxm *m,
			     const struct ses_rx_ctx *c)
{
	m->flags |= SES_RXM_F_SEND;
	if (c->h.opcode == UET_SES_OP_TAGGED_SEND)
		m->flags |= SES_RXM_F_TAGGED;
	if (c->h.f.dc)
		m->flags |= SES_RXM_F_DC;
	m->recv = ses_recv_match(s, m);
	if (m->recv)
		return 0;
	return ses_ux_add(s, m, m->req_len);
}

static void ses_rxm_place(const struct ses_rxm *m, const struct ses_rx_ctx *c)
{
	if (!c->pay_len || (m->flags & SES_RXM_F_DISCARD))
		return;
	if (m->recv)
		ses_iov_write(m->recv->iov, m->recv->iov_cnt, c->off, c->pay,
			      c->pay_len);
	else
		memcpy(m->ux_buf + c->off, c->pay, c->pay_len);
}

/*
 * A whole message in one packet that a posted receive takes at once: placed
 * and completed here, its id finished, with no state of ours made for it
 * (the steps of ses_rx_send for such a message, without the ses_rxm each
 * goes through: taken from the pool, mapped by id, then unmapped and
 * freed). 1 when done; 0 when it is not such a message or no receive
 * takes it now (ses_rx_send then goes its usual way).
 */
static int ses_rx_send_placed(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	struct ses_rxm m = {
		.peer = c->pidx, .msg_id = h->message_id, .opcode = h->opcode,
		.req_len = h->request_length, .mkey = h->memory_key,
		.initiator = h->initiator, .arrived = c->pay_len,
		.flags = SES_RXM_F_SEND,
	};
	struct ses_recv *r;
	uint32_t placed;

	/* dc answers once placed (ses_rxm_bind): the usual way. */
	if (!h->f.som || !h->f.eom || h->f.dc || c->pay_len != h->request_length)
		return 0;
	if (h->opcode == UET_SES_OP_TAGGED_SEND)
		m.flags |= SES_RXM_F_TAGGED;
	if (h->f.hd) {
		m.flags |= SES_RXM_F_HD;
		m.header_data = h->header_data;
	}
	r = ses_recv_match(s, &m);
	if (!r)
		return 0;
	placed = ses_rxm_fit(&m, r);
	if (placed)
		ses_iov_write(r->iov, r->iov_cnt, 0, c->pay, placed);
	ses_rx_id_done(s, c->peer, h->message_id);
	ses_recv_complete(s, r, &m, 0, UET_SES_RC_OK, placed);
	ses_rx_ok(c, UET_SES_RSP_RESPONSE, placed);
	return 1;
}

int ses_rx_send(struct ses *s, struct ses_rx_ctx *c)
{
	struct ses_rxm *m = c->rxm;
	uint32_t placed;
	int ret;

	if (!m && ses_rx_send_placed(s, c))
		return 0;
	if (!m) {
		m = ses_rxm_new(s, c);
		if (!m)
			return -EAGAIN;
		if (ses_rxm_match_new(s, m, c) < 0) {
			/*
			 * No receive and no room: not taken, so the sender's
			 * PDC sends it again (NACK) until receives make room.
			 * Failing it (RC_NO_MATCH, ref 3.5) would lose a
			 * message the application sent correctly.
			 */
			s->st.rx_ux_full++;
			ses_rxm_forget(s, m);
			return -EAGAIN;
		}
	}
	ret = ses_blkmap_mark(&m->blk, c->off, c->pay_len);
	if (ret)
		return ses_rx_dup_or_bad(s, c, ret);
	ses_rxm_place(m, c);
	ses_rxm_took(s, m, c);
	if (m->arrived < m->req_len)
		return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
	ses_rxm_finish(s, m);
	if (m->recv || (m->flags & SES_RXM_F_DISCARD)) {
		placed = m->recv ? ses_rxm_fit(m, m->recv) : 0;
		if (m->recv)
			ses_recv_complete(s, m->recv, m, 0, UET_SES_RC_OK,
					  placed);
		ses_rxm_free(s, m);
		return ses_rx_ok(c, UET_SES_RSP_RESPONSE, placed);
	}
	/* Unexpected and complete: dc waits for the receive. */
	if (m->flags & SES_RXM_F_DC)
		return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
	return ses_rx_ok(c, UET_SES_RSP_RESPONSE, m->req_len);
}

static int ses_recv_attr_check(const struct ses_recv_attr *a)
{
	if (!a || a->iov_cnt > SES_IOV_MAX || (a->iov_cnt && !a->iov) ||
	    (a->flags & ~SES_RECV_F_VALID))
		return -EINVAL;
	return 0;
}

static struct ses_recv *ses_recv_new(struct ses *s,
				     const struct ses_recv_attr *a)
{
	struct ses_recv *r = ses_pool_get(&s->recvs);

	if (!r)
		return NULL;
	memcpy(r->iov, a->iov, a->iov_cnt * sizeof(*a->iov));
	r->iov_cnt = (uint32_t)a->iov_cnt;
	r->len = ses_iov_len(a->iov, a->iov_cnt);
	r->flags = a->flags;
	r->tag = a->tag;
	r->ignore = a->ignore;
	r->initiator = a->initiator;
	r->user_ctx = a->user_ctx;
	ses_list_init(&r->link);
	return r;
}

int ses_recv_post(struct ses *s, const struct ses_recv_attr *a)
{
	struct ses_list *h;
	struct ses_recv *r;
	struct ses_rxm *m;
	int ret = ses_recv_attr_check(a);

	if (ret < 0)
		return ret;
	r = ses_recv_new(s, a);
	if (!r)
		return -EAGAIN;
	m = ses_ux_match(s, a);
	h = &s->posted[!!(a->flags & SES_RECV_F_TAGGED)];
	if (m)
		ses_rxm_bind(s, m, r);
	else
		ses_list_add_tail(a->flags & SES_RECV_F_FRONT ? h->next : h,
				  &r->link);
	return 0;
}

/*
 * The receive of |m| is canceled while its message is in progress: a
 * rendezvous stops pulling; a message still arriving is taken to its end
 * and dropped (as a discarded one), its sender told nothing was placed.
 */
static void ses_rxm_cancel(struct ses *s, struct ses_rxm *m)
{
	struct ses_recv *r = m->recv;

	if (m->flags & SES_RXM_F_RDV) {
		ses_rdv_cancel(s, m);
		return;
	}
	m->recv = NULL;
	m->flags |= SES_RXM_F_DISCARD;
	ses_recv_complete(s, r, NULL, -ECANCELED, UET_SES_RC_NULL, 0);
}

int ses_recv_cancel(struct ses *s, void *user_ctx)
{
	struct ses_list *h, *n;
	uint32_t j;
	int i;

	for (i = 0; i < 2; i++) {
		h = &s->posted[i];
		for (n = h->next; n != h; n = n->next) {
			struct ses_recv *r = ses_container_of(n,
							      struct ses_recv,
							      link);

			if (r->user_ctx != user_ctx)
				continue;
			ses_list_del(&r->link);
			ses_recv_complete(s, r, NULL, -ECANCELED,
					  UET_SES_RC_NULL, 0);
			return 0;
		}
	}
	/* Matched, its message in progress (rare: look at every one). */
	for (j = 0; j < s->rxms.len; j++) {
		struct ses_rxm *m = ses_pool_at(&s->rxms, j);

		if (m->flags && m->recv && m->recv->user_ctx == user_ctx) {
			ses_rxm_cancel(s, m);
			return 0;
		}
	}
	return -ENOENT;
}

int ses_recv_peek(struct ses *s, const struct ses_recv_attr *a, bool claim,
		  struct ses_recv_info *info)
{
	struct ses_rxm *m;

	if (!a || (a->flags & ~SES_RECV_F_VALID) || !info)
		return -EINVAL;
	m = ses_ux_match(s, a);
	if (!m)
		return -ENOMSG;
	memset(info, 0, sizeof(*info));
	info->peer = ((struct ses_peer *)ses_pool_at(&s->peers, m->peer))->id;
	info->initiator = m->initiator;
	info->tag = ses_rxm_is_tagged(m) ? m->mkey : 0;
	info->msg_len = m->req_len;
	info->hd = m->flags & SES_RXM_F_HD;
	info->header_data = m->header_data;
	if (claim) {
		m->flags |= SES_RXM_F_CLAIMED;
		m->claim_id = ++s->claim_seq;
		info->handle = (uint64_t)m->claim_id << 32 |
			       ses_pool_idx(&s->rxms, m);
	}
	return 0;
}

/* The claimed message |handle| names, or NULL when it is gone. */
static struct ses_rxm *ses_claimed_find(struct ses *s, uint64_t handle)
{
	uint32_t idx = (uint32_t)handle;
	struct ses_rxm *m;

	if (idx >= s->rxms.len)
		return NULL;
	m = ses_pool_at(&s->rxms, idx);
	if (!(m->flags & SES_RXM_F_CLAIMED) ||
	    m->claim_id != (uint32_t)(handle >> 32))
		return NULL;
	return m;
}

int ses_recv_claim(struct ses *s, uint64_t handle,
		   const struct ses_recv_attr *a)
{
	struct ses_rxm *m = ses_claimed_find(s, handle);
	struct ses_recv *r;
	int ret = ses_recv_attr_check(a);

	if (ret < 0)
		return ret;
	if (!m)
		return -ENOENT;
	r = ses_recv_new(s, a);
	if (!r)
		return -EAGAIN;
	ses_rxm_bind(s, m, r);
	return 0;
}

int ses_recv_discard(struct ses *s, uint64_t handle)
{
	struct ses_rxm *m = ses_claimed_find(s, handle);

	if (!m)
		return -ENOENT;
	ses_ux_del(s, m);
	free(m->ux_buf);
	m->ux_buf = NULL;
	m->ux_len = 0;
	/* Still arriving: the rest is taken and dropped. */
	if (m->flags & SES_RXM_F_INMAP) {
		m->flags |= SES_RXM_F_DISCARD;
		return 0;
	}
	/* A sender still waiting (dc, rendezvous) learns nothing was placed. */
	if (m->flags & (SES_RXM_F_DC | SES_RXM_F_RDV))
		ses_rsp_send(s, m, UET_SES_RC_OK, 0);
	ses_rxm_free(s, m);
	return 0;
}
