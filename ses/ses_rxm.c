/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Target message state: the per-peer window of finished message ids (so a
 * late duplicate of a finished message is never placed again), the state
 * of messages still arriving (idle time-out, oldest first), and READ
 * serving, which answers with RESPONSE_DATA packets of the Payload MTU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ses/ses_priv.h"

#define SES_RX_WORD(seq)	((seq) % SES_RX_WINDOW / 64)
#define SES_RX_BIT(seq)		(1ull << ((seq) % 64))

/*
 * Fits sequence |seq| into the window of |p| (ses_priv.h): the first one
 * seen opens it; one among the S / 2 past rx_high moves rx_high up to it,
 * clearing the bits of the sequences it passes, which were never seen or
 * belong to the previous turn of the space (an initiator may pass over ids
 * it gave up on). Returns false when |seq| lies before the window
 * (finished).
 */
static bool ses_rx_window_fit(const struct ses *s, struct ses_peer *p,
			      uint16_t seq)
{
	uint32_t mask = s->id_seq_mask, ahead = (seq - p->rx_high) & mask;

	if (!p->win)		/* ses_rx_pkt gives every peer one */
		return false;
	if (!p->rx_init) {
		p->rx_init = true;
		p->rx_high = seq;
		memset(p->win->rx_done, 0, sizeof(p->win->rx_done));
		return true;
	}
	if (!ahead || ahead > mask / 2 + 1)
		return ((p->rx_high - seq) & mask) < s->rx_check;
	if (ahead >= s->rx_check) {
		memset(p->win->rx_done, 0, sizeof(p->win->rx_done));
		p->rx_high = seq;
		return true;
	}
	while (p->rx_high != seq) {
		p->rx_high = (uint16_t)((p->rx_high + 1) & mask);
		p->win->rx_done[SES_RX_WORD(p->rx_high)] &= ~SES_RX_BIT(p->rx_high);
	}
	return true;
}

/*
 * Whether |seq| lies where ses_rx_window_fit would open or move the window
 * for it: such a sequence was never finished.
 */
static bool ses_rx_seq_is_ahead(const struct ses *s, const struct ses_peer *p,
				uint16_t seq)
{
	uint32_t mask = s->id_seq_mask, ahead = (seq - p->rx_high) & mask;

	return !p->rx_init || (ahead && ahead <= mask / 2 + 1);
}

/*
 * Only looks: the window moves when an id is marked done, so a request
 * that is then refused leaves it where it was (a refused id far ahead
 * would otherwise push the ids still to come out of it, as finished).
 */
bool ses_rx_id_is_done(const struct ses *s, const struct ses_peer *p,
		       uint16_t id)
{
	uint16_t seq = id & s->id_seq_mask;

	if (ses_rx_seq_is_ahead(s, p, seq))
		return false;
	if (((p->rx_high - seq) & s->id_seq_mask) >= s->rx_check)
		return true;
	return p->win && p->win->rx_done[SES_RX_WORD(seq)] & SES_RX_BIT(seq);
}

void ses_rx_id_done(const struct ses *s, struct ses_peer *p, uint16_t id)
{
	uint16_t seq = id & s->id_seq_mask;

	p->rx_answered++;
	if (ses_rx_window_fit(s, p, seq))
		p->win->rx_done[SES_RX_WORD(seq)] |= SES_RX_BIT(seq);
}

/*
 * Whether note |r| still names a message: an id comes back only after the
 * initiator has had S more answered (less the W it may have in flight),
 * so an older note is of another message.
 */
static bool ses_rx_refusal_is_live(const struct ses *s,
				   const struct ses_peer *p,
				   const struct ses_rx_refusal *r)
{
	return r->at && p->rx_answered - r->at < s->id_seq_mask + 1u -
						 s->msg_window;
}

/*
 * Every refusal is noted, whatever its context: one on a context the
 * target has not taken yet (the first request of a new incarnation, or of
 * the first, refused for the RI generation its initiator had not learnt)
 * counts once that context is the peer's, and a flush the initiator sends
 * right after must find it. A note of the peer's current context is not
 * overwritten by one of another, which would make its flushes wait.
 */
void ses_rx_id_refused(const struct ses *s, struct ses_peer *p, uint16_t id,
		       uint32_t pdc, uint8_t rc)
{
	uint16_t seq = id & s->id_seq_mask;
	struct ses_rx_refusal *r;

	p->rx_answered++;
	if (!p->rx_refused) {
		p->rx_refused = calloc(s->rx_check, sizeof(*p->rx_refused));
		if (!p->rx_refused)
			return;	/* a flush after it waits, then gives up */
	}
	r = &p->rx_refused[seq % s->rx_check];
	if (p->rx_pdc_set && pdc != p->rx_pdc && r->pdc == p->rx_pdc &&
	    r->id != id && ses_rx_refusal_is_live(s, p, r))
		return;
	*r = (struct ses_rx_refusal){ .at = p->rx_answered, .pdc = pdc,
				      .id = id, .rc = rc };
}

bool ses_rx_id_refused_on(const struct ses *s, const struct ses_peer *p,
			  uint16_t id, uint32_t pdc, uint8_t *rc)
{
	const struct ses_rx_refusal *r;

	if (!p->rx_refused)
		return false;
	r = &p->rx_refused[(id & s->id_seq_mask) % s->rx_check];
	if (r->id != id || r->pdc != pdc || !ses_rx_refusal_is_live(s, p, r))
		return false;
	*rc = r->rc;
	return true;
}

bool ses_rx_id_is_settled(const struct ses *s, const struct ses_peer *p,
			  uint16_t id)
{
	uint8_t rc;

	return ses_rx_id_is_done(s, p, id) ||
	       (p->rx_pdc_set &&
		ses_rx_id_refused_on(s, p, id, p->rx_pdc, &rc));
}

/*
 * A peer's ids carry its prefix in the bits above our own sequence bits
 * (every endpoint uses the same number); another prefix is not the peer
 * that opened the window.
 */
bool ses_rx_id_prefix_is_ok(const struct ses *s, const struct ses_peer *p,
			    uint16_t id)
{
	return !p->rx_prefix_set ||
	       (id & (uint16_t)~s->id_seq_mask) == p->rx_prefix;
}

void ses_rx_id_prefix_take(const struct ses *s, struct ses_peer *p,
			   uint16_t id)
{
	if (p->rx_prefix_set)
		return;
	p->rx_prefix_set = true;
	p->rx_prefix = id & (uint16_t)~s->id_seq_mask;
}

void ses_rx_history_clear(struct ses_peer *p)
{
	p->rx_init = false;
	p->rx_prefix_set = false;
	if (p->win)
		memset(p->win->rx_done, 0, sizeof(p->win->rx_done));
	/* Refusals stay: each counts only for its own context. */
}

/*
 * The messages of |p| still arriving: their other packets come on the old
 * context, which is dropped from now on. Complete ones stay: they are the
 * application's (unexpected), and a live initiator that only reopened its
 * PDC may still wait for their deferred responses or pulls.
 */
static void ses_rx_drop_arriving(struct ses *s, const struct ses_peer *p)
{
	uint32_t pidx = ses_pool_idx(&s->peers, p);

	for (uint32_t i = 0; i < s->rxms.len; i++) {
		struct ses_rxm *m = ses_pool_at(&s->rxms, i);

		if ((m->flags & SES_RXM_F_INMAP) && m->peer == pidx)
			ses_rxm_abort(s, m, -ECONNRESET, UET_SES_RC_NULL);
	}
	/* Its flushes wait for ids the new incarnation numbers afresh. */
	ses_rdmo_flush_drop(s, pidx);
}

enum ses_rx_pdc_age ses_rx_pdc_age(const struct ses_peer *p, uint32_t pdc)
{
	int32_t ahead = (int32_t)(pdc - p->rx_pdc);

	if (!p->rx_pdc_set || ahead > 0)
		return SES_RX_PDC_NEW;
	return ahead ? SES_RX_PDC_STALE : SES_RX_PDC_CURRENT;
}

void ses_rx_pdc_take(struct ses *s, struct ses_peer *p, uint32_t pdc)
{
	if (p->rx_pdc_set) {
		ses_rx_drop_arriving(s, p);
		ses_rx_history_clear(p);
	}
	p->rx_pdc_set = true;
	p->rx_pdc = pdc;
}

static uint64_t ses_rxm_key(uint32_t pidx, uint16_t id)
{
	return (uint64_t)pidx << 16 | id;
}

struct ses_rxm *ses_rxm_find(struct ses *s, uint32_t peer_idx, uint16_t id)
{
	uint32_t idx;

	if (!ses_map_get(&s->rxm_map, ses_rxm_key(peer_idx, id), &idx))
		return NULL;
	return ses_pool_at(&s->rxms, idx);
}

struct ses_rxm *ses_rxm_new(struct ses *s, const struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	struct ses_rxm *m = ses_pool_get(&s->rxms);

	if (!m)
		return NULL;
	/* One-packet messages need no block map beyond the inline one. */
	if (!(h->f.som && h->f.eom) &&
	    ses_blkmap_init(&m->blk, h->request_length) < 0)
		goto err_put;
	if (ses_map_put(&s->rxm_map, ses_rxm_key(c->pidx, h->message_id),
			ses_pool_idx(&s->rxms, m)) < 0)
		goto err_blk;
	m->peer = c->pidx;
	m->msg_id = h->message_id;
	m->opcode = h->opcode;
	m->req_len = h->request_length;
	m->buffer_offset = h->buffer_offset;
	m->mkey = h->memory_key;
	m->job_id = c->job_id;
	m->pid_on_fep = h->pid_on_fep;
	m->ri = h->resource_index;
	m->initiator = h->initiator;
	m->last_ns = c->now_ns;
	m->flags = SES_RXM_F_INMAP;
	ses_list_init(&m->ux);
	ses_list_add_tail(&s->rx_active, &m->link);
	return m;

err_blk:
	ses_blkmap_fini(&m->blk);
err_put:
	ses_pool_put(&s->rxms, m);
	return NULL;
}

void ses_rxm_took(struct ses *s, struct ses_rxm *m, const struct ses_rx_ctx *c)
{
	m->arrived += c->pay_len;
	if (c->h.f.som && c->h.f.hd) {
		m->flags |= SES_RXM_F_HD;
		m->header_data = c->h.header_data;
	}
	m->last_ns = c->now_ns;
	/* Most recently active last, so time-outs only look at the head. */
	if (m->flags & SES_RXM_F_INMAP) {
		ses_list_del(&m->link);
		ses_list_add_tail(&s->rx_active, &m->link);
	}
}

void ses_rxm_finish(struct ses *s, struct ses_rxm *m)
{
	if (!(m->flags & SES_RXM_F_INMAP))
		return;
	ses_map_del(&s->rxm_map, ses_rxm_key(m->peer, m->msg_id));
	ses_list_del(&m->link);
	m->flags &= ~SES_RXM_F_INMAP;
	ses_rx_id_done(s, ses_pool_at(&s->peers, m->peer), m->msg_id);
}

void ses_rxm_forget(struct ses *s, struct ses_rxm *m)
{
	ses_map_del(&s->rxm_map, ses_rxm_key(m->peer, m->msg_id));
	ses_list_del(&m->link);
	ses_blkmap_fini(&m->blk);
	ses_rdv_put(s, m->rdv);
	m->rdv = NULL;
	free(m->rdmo);
	m->rdmo = NULL;
	m->flags = 0;
	ses_pool_put(&s->rxms, m);
}

void ses_rxm_free(struct ses *s, struct ses_rxm *m)
{
	ses_rxm_finish(s, m);
	if (m->flags & SES_RXM_F_UX)
		ses_ux_del(s, m);
	ses_list_del(&m->link);
	ses_blkmap_fini(&m->blk);
	free(m->ux_buf);
	m->ux_buf = NULL;
	ses_rdv_put(s, m->rdv);
	m->rdv = NULL;
	free(m->rdmo);
	m->rdmo = NULL;
	m->recv = NULL;
	m->flags = 0;
	ses_pool_put(&s->rxms, m);
}

void ses_rxm_abort(struct ses *s, struct ses_rxm *m, int status, uint8_t rc)
{
	if (m->recv)
		ses_recv_complete(s, m->recv, m, status, rc, 0);
	ses_rxm_free(s, m);
}

int ses_rxm_expire(struct ses *s, uint64_t now_ns)
{
	int n = 0;

	while (!ses_list_is_empty(&s->rx_active)) {
		struct ses_rxm *m = ses_container_of(s->rx_active.next,
						     struct ses_rxm, link);
		struct ses_peer *p;

		if (now_ns - m->last_ns < s->cfg.rx_idle_ns)
			break;
		s->st.rx_timeouts++;
		/*
		 * Its initiator may have every other packet answered
		 * DEFAULT_RESPONSE: a late copy of the missing one must not
		 * be answered so (ses_rx_one), or it would count the whole
		 * message placed.
		 */
		p = ses_pool_at(&s->peers, m->peer);
		ses_rx_id_refused(s, p, m->msg_id, p->rx_pdc,
				  UET_SES_RC_UNDELIVERABLE);
		ses_rxm_abort(s, m, -ETIMEDOUT, UET_SES_RC_NULL);
		n++;
	}
	/* Matched rendezvous messages are no longer arriving: pulling. */
	return n + ses_rdv_expire(s, now_ns);
}

/* A READ being answered; kept while ops.tx refuses its packets. */
struct ses_read_job {
	struct ses_list link;
	uint32_t peer_id;
	uint32_t mr;
	uint32_t seq;		/* the region's, when the READ was checked */
	uint32_t job_id;
	uint64_t offset;	/* buffer_offset */
	uint32_t len;
	uint32_t sent;
	uint16_t msg_id;
	bool report;		/* ops.rma_done once served (not rendezvous) */
	struct ses_rma_event ev;
};

bool ses_read_jobs_name(const struct ses *s, uint32_t peer_id)
{
	for (const struct ses_list *n = s->read_jobs.next; n != &s->read_jobs;
	     n = n->next)
		if (ses_container_of(n, struct ses_read_job, link)->peer_id ==
		    peer_id)
			return true;
	return false;
}

/*
 * Sends what is left of |j|. The region is looked up again for every
 * packet: if it was removed or replaced meanwhile, the READ ends with
 * RC_BAD_MKEY instead of reading memory that is no longer registered.
 */
static int ses_read_send(struct ses *s, struct ses_read_job *j)
{
	const struct ses_region *r = ses_pool_at(&s->mrs, j->mr);
	struct ses_rsp_data_hdr h = {
		.opcode = UET_SES_RSP_RESPONSE_W_DATA,
		.return_code = UET_SES_RC_OK, .message_id = j->msg_id,
		.job_id = j->job_id, .read_request_message_id = j->msg_id,
		.modified_length = j->len,
	};
	struct ses_pkt pkt = { .peer = j->peer_id, .iov_cnt = 1,
			       .next_hdr = UET_PDS_NEXT_HDR_RESPONSE_DATA,
			       .pay_life = SES_PAY_REGION };
	struct ses_rsp_hdr eh = { .opcode = UET_SES_RSP_RESPONSE,
				  .return_code = UET_SES_RC_BAD_MKEY,
				  .message_id = j->msg_id,
				  .job_id = j->job_id };
	struct ses_iov iov;
	uint32_t n;

	while (j->sent < j->len) {
		if (!r->base || r->seq != j->seq) {
			ses_rsp_send_to(s, j->peer_id, &eh);
			return 0;
		}
		iov.base = r->base + j->offset;
		iov.len = j->len;
		n = j->len - j->sent;
		if (n > s->cfg.payload_mtu)
			n = s->cfg.payload_mtu;
		h.payload_length = (uint16_t)n;
		h.message_offset = j->sent;
		pkt.hdr_len = (uint16_t)ses_rsp_data_hdr_encode(
			pkt.hdr, sizeof(pkt.hdr), &h);
		pkt.iov = &iov;
		pkt.pay_off = j->sent;
		pkt.pay_len = n;
		if (ses_tx(s, &pkt) == -EAGAIN)
			return -EAGAIN;
		j->sent += n;
	}
	if (j->report && s->ops.rma_done)
		s->ops.rma_done(s->ctx, &j->ev);
	return 0;
}

/* Whether |c| reads a rendezvous send buffer of ours (part of a send). */
static bool ses_read_is_rdv(const struct ses *s, const struct ses_rx_ctx *c)
{
	return s->cfg.rdv_ri != SES_RI_NONE &&
	       c->tbl->key == ses_ri_key(s->cfg.job_id, s->cfg.pid_on_fep,
					 s->cfg.rdv_ri);
}

void ses_read_serve(struct ses *s, const struct ses_rx_ctx *c)
{
	struct ses_read_job j = {
		.peer_id = c->peer->id,
		.mr = ses_pool_idx(&s->mrs, c->region),
		.seq = c->region->seq, .job_id = c->h.job_id,
		.offset = c->h.buffer_offset, .len = c->h.request_length,
		.msg_id = c->h.message_id,
		.report = !ses_read_is_rdv(s, c),
	};
	struct ses_read_job *q;

	ses_rx_rma_event_init(&j.ev, c, c->h.request_length);
	if (ses_list_is_empty(&s->read_jobs) && !ses_read_send(s, &j))
		return;
	q = malloc(sizeof(*q));
	if (!q)
		return;		/* the initiator's READ fails by time-out */
	*q = j;
	ses_list_add_tail(&s->read_jobs, &q->link);
}

int ses_read_progress(struct ses *s)
{
	uint64_t before = s->st.tx_pkts;

	while (!ses_list_is_empty(&s->read_jobs)) {
		struct ses_read_job *j = ses_container_of(s->read_jobs.next,
							  struct ses_read_job,
							  link);

		if (ses_read_send(s, j) == -EAGAIN)
			break;
		ses_list_del(&j->link);
		free(j);
	}
	return (int)(s->st.tx_pkts - before);
}
