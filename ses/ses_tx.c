/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Initiator: WRE validation, message_id allocation (under the engine's
 * prefix, see ses_priv.h), and fragmentation of a message into
 * standard-header packets of at most the Payload MTU (ref 4). Messages
 * past the window of ids in flight to their peer wait on its tx_wait for
 * an id; packets the lower layer refuses wait on tx_pending; both in post
 * order.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "ses/ses_priv.h"

#define SES_WRE_F_VALID	(SES_WRE_F_COMPLETION | SES_WRE_F_HDR_DATA | \
			 SES_WRE_F_DC | SES_WRE_F_RUDI | SES_WRE_F_NO_ANSWER)

static bool ses_op_is_send(uint8_t op)
{
	return op == UET_SES_OP_SEND || op == UET_SES_OP_TAGGED_SEND ||
	       op == UET_SES_OP_RENDEZVOUS_SEND ||
	       op == UET_SES_OP_RENDEZVOUS_TSEND;
}

static bool ses_op_is_rdv(uint8_t op)
{
	return op == UET_SES_OP_RENDEZVOUS_SEND ||
	       op == UET_SES_OP_RENDEZVOUS_TSEND;
}

static bool ses_op_is_amo(uint8_t op)
{
	return op == UET_SES_OP_ATOMIC || op == UET_SES_OP_FETCHING_ATOMIC;
}

static int ses_wre_check(const struct ses_wre *w)
{
	const struct ses_addr *d = w ? w->dst : NULL;

	if (!d || w->iov_cnt > SES_IOV_MAX || (w->iov_cnt && !w->iov) ||
	    (w->flags & ~SES_WRE_F_VALID) || w->ri > UET_SES_RI_MAX ||
	    d->job_id > UET_SES_JOB_ID_MAX ||
	    d->pid_on_fep > UET_SES_PID_ON_FEP_MAX)
		return -EINVAL;
	switch (w->opcode) {
	case UET_SES_OP_WRITE:
	case UET_SES_OP_READ:
	case UET_SES_OP_SEND:
	case UET_SES_OP_TAGGED_SEND:
	case UET_SES_OP_ATOMIC:
	case UET_SES_OP_FETCHING_ATOMIC:
	case UET_SES_OP_RDMO_APPEND:
	case UET_SES_OP_RDMO_SCATTER:
	case UET_SES_OP_RDMO_FLUSH:
		break;
	default:
		return -EINVAL;
	}
	if (ses_iov_len(w->iov, w->iov_cnt) > UINT32_MAX)
		return -EMSGSIZE;
	return 0;
}

int ses_wre_post(struct ses *s, const struct ses_wre *wre)
{
	struct ses_msg_init in = { .gen = -1 };
	int ret = ses_wre_check(wre);

	if (ret < 0)
		return ret;
	if (ses_op_is_amo(wre->opcode) &&
	    !ses_amo_wre_is_valid(wre, s->cfg.payload_mtu))
		return -EINVAL;
	if (ses_op_is_rdmo(wre->opcode) && !ses_rdmo_wre_is_valid(s, wre))
		return -EINVAL;
	/*
	 * A large send goes as a rendezvous so that, unexpected, it costs
	 * the target a header rather than a buffer (seeds/hw-tag-matching).
	 */
	if ((wre->opcode == UET_SES_OP_SEND ||
	     wre->opcode == UET_SES_OP_TAGGED_SEND) &&
	    s->cfg.rdv_ri != SES_RI_NONE && wre->iov_cnt == 1 &&
	    (wre->iov[0].len > s->cfg.rdv_threshold ||
	     wre->iov[0].len > s->cfg.rdv_pull_threshold)) {
		/* Asked once: it also decides the request's eager bytes. */
		bool pulled = s->ops.peer_pulls &&
			      s->ops.peer_pulls(s->ctx, wre->dst->peer);

		if (wre->iov[0].len > s->cfg.rdv_threshold || pulled)
			return ses_rdv_msg_start(s, wre, pulled);
	}
	return ses_msg_start(s, wre, &in, NULL);
}

static uint8_t ses_msg_gen(struct ses *s, const struct ses_wre *w, int gen)
{
	if (gen >= 0)
		return (uint8_t)gen;
	return s->ops.ri_gen_get ? s->ops.ri_gen_get(s->ctx, w->dst, w->ri) : 0;
}

/* The id of sequence |seq|: our prefix over it. */
static uint16_t ses_msg_id(const struct ses *s, uint16_t seq)
{
	return s->id_prefix | seq;
}

/*
 * Takes the next id to |p|. The caller checked that its sequence is less
 * than s->msg_window ahead of the oldest in flight, so it is not in flight.
 */
static uint16_t ses_msg_id_take(struct ses *s, struct ses_peer *p)
{
	uint16_t seq = p->tx_next;

	p->tx_next = (uint16_t)((seq + 1) & s->id_seq_mask);
	if (p->win)
		p->win->tx_busy[seq % SES_MSG_WINDOW / 64] |= 1ull << (seq % 64);
	else	/* ses_msg_go made the window past 64 */
		p->tx_busy_lo |= 1ull << ((seq - p->tx_base) & s->id_seq_mask);
	p->tx_cnt++;
	return ses_msg_id(s, seq);
}

static void ses_msg_id_free(struct ses *s, struct ses_peer *p, uint16_t id)
{
	uint16_t seq = id & s->id_seq_mask;

	p->tx_cnt--;
	if (!p->win) {
		/* tx_base moves to the oldest still busy, or to tx_next. */
		p->tx_busy_lo &= ~(1ull << ((seq - p->tx_base) & s->id_seq_mask));
		if (!p->tx_busy_lo) {
			p->tx_base = p->tx_next;
		} else {
			unsigned int k = (unsigned int)__builtin_ctzll(p->tx_busy_lo);

			p->tx_busy_lo >>= k;
			p->tx_base = (uint16_t)((p->tx_base + k) & s->id_seq_mask);
		}
		return;
	}
	p->win->tx_busy[seq % SES_MSG_WINDOW / 64] &= ~(1ull << (seq % 64));
	while (p->tx_base != p->tx_next &&
	       !(p->win->tx_busy[p->tx_base % SES_MSG_WINDOW / 64] &
		 (1ull << (p->tx_base % 64))))
		p->tx_base = (uint16_t)((p->tx_base + 1) & s->id_seq_mask);
}

static uint64_t ses_msg_key(uint32_t pidx, uint16_t id)
{
	return (uint64_t)pidx << 16 | id;
}

static void ses_msg_fill(struct ses *s, struct ses_msg *m,
			 const struct ses_wre *w, const struct ses_msg_init *in)
{
	uint32_t mtu = s->cfg.payload_mtu;

	m->wre = w;
	m->len = (uint32_t)ses_iov_len(w->iov, w->iov_cnt);
	m->opcode = in->opcode ? in->opcode : w->opcode;
	m->flags = in->flags;
	m->rdv_mr = in->rdv_mr;
	m->gen = ses_msg_gen(s, w, in->gen);
	/* What comes back as RESPONSE_DATA (ses_cpl.c). */
	if (m->opcode == UET_SES_OP_READ ||
	    m->opcode == UET_SES_OP_FETCHING_ATOMIC)
		m->fetch_len = m->len;
	else if (m->opcode == UET_SES_OP_RDMO_APPEND && w->res_iov_cnt)
		m->fetch_len = sizeof(uint64_t);
	else
		m->fetch_len = 0;
	/* READ and rendezvous requests are one packet; data comes back.
	 * An atomic is one packet (ses_amo_wre_is_valid). A RUDI READ asks
	 * for its data a Payload MTU a packet, each answered by one response
	 * (ses_rudi.c). */
	if (m->opcode == UET_SES_OP_READ && (w->flags & SES_WRE_F_RUDI) &&
	    m->len)
		m->pkt_cnt = (m->len + mtu - 1) / mtu;
	else if (m->opcode == UET_SES_OP_READ || ses_op_is_rdv(m->opcode) ||
		 ses_op_is_amo(m->opcode))
		m->pkt_cnt = 1;
	else
		m->pkt_cnt = m->len ? (m->len + mtu - 1) / mtu : 1;
	ses_list_init(&m->link);
}

/* Whether the next sequence to |p| may go: the window has room. */
static bool ses_msg_id_is_free(const struct ses *s, const struct ses_peer *p)
{
	return ((p->tx_next - p->tx_base) & s->id_seq_mask) < s->msg_window;
}

/*
 * Gives |m| the next id to |p| (the window has room) and sends it, behind
 * earlier messages still on tx_pending. Returns -ENOMEM, |m| untouched,
 * when the id cannot be mapped.
 */
static int ses_msg_go(struct ses *s, struct ses_peer *p, struct ses_msg *m)
{
	int ret = 0;

	/* Past 64 ids in flight, tx_busy_lo cannot say them all. */
	if (!p->win && ((p->tx_next - p->tx_base) & s->id_seq_mask) >= 64)
		ret = ses_peer_win_make(s, p);
	if (!ret)
		ret = ses_map_put(&s->msg_map,
				  ses_msg_key(m->peer,
					      ses_msg_id(s, p->tx_next)),
				  ses_pool_idx(&s->msgs, m));
	if (ret < 0)
		return ret;
	m->flags &= ~SES_MSG_F_WAIT;
	m->msg_id = ses_msg_id_take(s, p);
	/* Behind earlier messages still waiting, to keep post order. */
	if (!ses_list_is_empty(&s->tx_pending)) {
		m->flags |= SES_MSG_F_QUEUED;
		ses_list_add_tail(&s->tx_pending, &m->link);
		return 0;
	}
	ses_msg_pump(s, m);
	return 0;
}

void ses_msg_wait_kick(struct ses *s, struct ses_peer *p)
{
	while (!ses_list_is_empty(&p->tx_wait) && ses_msg_id_is_free(s, p)) {
		struct ses_msg *m = ses_container_of(p->tx_wait.next,
						     struct ses_msg, link);

		/* ses_peer_fail is completing it: it never goes out. */
		if (m->flags & SES_MSG_F_FAILING)
			break;
		ses_list_del(&m->link);
		if (ses_msg_go(s, p, m) < 0) {
			ses_msg_complete(s, m, -ENOMEM, UET_SES_RC_NULL, 0);
			ses_msg_try_free(s, m);
		}
	}
}

int ses_msg_start(struct ses *s, const struct ses_wre *w,
		  const struct ses_msg_init *in, struct ses_msg **out)
{
	struct ses_peer *p = ses_peer_get(s, w->dst->peer);
	struct ses_msg *m;
	int ret;

	if (!p)
		return -EAGAIN;
	m = ses_pool_get(&s->msgs);
	if (!m)
		return -EAGAIN;
	ses_msg_fill(s, m, w, in);
	if (m->fetch_len && ses_blkmap_init(&m->blk, m->fetch_len) < 0) {
		ret = -ENOMEM;
		goto err_put;
	}
	m->peer = ses_pool_idx(&s->peers, p);
	m->seq = ++s->msg_seq;
	m->post_seq = in->post_seq ? in->post_seq : m->seq;
	/*
	 * The window is full (of messages the target may be refusing until
	 * its application posts receives), or earlier ones wait already:
	 * wait, in post order, for an id to be freed (ses_priv.h).
	 */
	if (!ses_list_is_empty(&p->tx_wait) || !ses_msg_id_is_free(s, p)) {
		m->flags |= SES_MSG_F_WAIT;
		ses_list_add_tail(&p->tx_wait, &m->link);
	} else {
		ret = ses_msg_go(s, p, m);
		if (ret < 0)
			goto err_blk;
	}
	if (out)
		*out = m;
	return 0;

err_blk:
	ses_blkmap_fini(&m->blk);
err_put:
	m->wre = NULL;
	ses_pool_put(&s->msgs, m);
	return ret;
}

/* Builds packet |i| of |m| (ref 3.1, 4). */
static void ses_msg_pkt(struct ses *s, const struct ses_msg *m, uint32_t i,
			struct ses_pkt *pkt)
{
	const struct ses_wre *w = m->wre;
	uint32_t mtu = s->cfg.payload_mtu;
	uint64_t off = (uint64_t)i * mtu;
	uint32_t pay = m->opcode == UET_SES_OP_READ ? 0 :
		       (m->len - off < mtu ? (uint32_t)(m->len - off) : mtu);
	struct ses_std_hdr h = {
		.opcode = m->opcode,
		.f = { .som = i == 0, .eom = i + 1 == m->pkt_cnt,
		       .rel = !w->dst->absolute,
		       .dc = !!(w->flags & SES_WRE_F_DC),
		       .hd = i == 0 && (w->flags & SES_WRE_F_HDR_DATA) },
		.message_id = m->msg_id, .ri_generation = m->gen,
		.job_id = w->dst->job_id, .pid_on_fep = w->dst->pid_on_fep,
		.resource_index = w->ri, .initiator = s->cfg.initiator,
		.request_length = m->len,
	};
	ssize_t n;

	if (!ses_op_is_send(m->opcode))
		h.buffer_offset = w->remote_offset;
	if (!ses_op_is_send(m->opcode))
		h.memory_key = w->mkey;
	else if (w->opcode == UET_SES_OP_TAGGED_SEND)
		h.memory_key = w->tag;
	h.header_data = h.f.hd ? w->header_data : 0;
	if (i) {
		h.payload_length = (uint16_t)pay;
		h.message_offset = (uint32_t)off;
	}
	n = ses_std_hdr_encode(pkt->hdr, sizeof(pkt->hdr), &h);
	assert(n == UET_SES_STD_HDR_LEN);
	pkt->peer = w->dst->peer;
	pkt->next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD;
	pkt->hdr_len = (uint16_t)n;
	pkt->iov = w->iov;
	pkt->iov_cnt = w->iov_cnt;
	pkt->pay_off = off;
	pkt->pay_len = pay;
	pkt->pay_life = SES_PAY_MSG;
	pkt->flags = w->flags & SES_WRE_F_RUDI ? SES_PKT_F_RUDI : 0;
	if ((w->flags & SES_WRE_F_NO_ANSWER) && m->pkt_cnt == 1 && !h.f.dc &&
	    ses_op_is_send(m->opcode) && !ses_op_is_rdv(m->opcode))
		pkt->flags |= SES_PKT_F_NO_ANSWER;
	pkt->msg_ref = 0;	/* ses_msg_pump: a message of the pool's */
	pkt->rdv_buf = NULL;
	pkt->rdv_len = 0;
	if (ses_op_is_rdv(m->opcode))
		ses_rdv_pkt_ext(s, m, pkt);
	else if (ses_op_is_amo(m->opcode))
		ses_amo_pkt_ext(m, pkt);
	else if (ses_op_is_rdmo(m->opcode))
		ses_rdmo_pkt_ext(s, m, pkt);
}

int ses_msg_pump(struct ses *s, struct ses_msg *m)
{
	struct ses_pkt pkt;
	int ret;

	while (m->pkt_sent < m->pkt_cnt) {
		ses_msg_pkt(s, m, m->pkt_sent, &pkt);
		pkt.msg_ref = (uint64_t)m->seq << 32 | ses_pool_idx(&s->msgs, m);
		ret = ses_tx(s, &pkt);
		if (ret == -EAGAIN) {
			if (!(m->flags & SES_MSG_F_QUEUED)) {
				m->flags |= SES_MSG_F_QUEUED;
				ses_list_add_tail(&s->tx_pending, &m->link);
			}
			return -EAGAIN;
		}
		if (ret < 0) {
			/* The lower layer can't carry it: stop here. */
			ses_msg_complete(s, m, ret, UET_SES_RC_NULL, 0);
			ses_msg_try_free(s, m);
			return ret;
		}
		m->pkt_sent++;
	}
	if (m->flags & SES_MSG_F_QUEUED) {
		m->flags &= ~SES_MSG_F_QUEUED;
		ses_list_del(&m->link);
	}
	return 0;
}

/*
 * Whether |w| may go whole at once (ses_wre_send_whole): a send of one
 * eager packet nobody waits for, to a peer with no message of ours in
 * flight or waiting, and nothing of ours queued ahead of it. Its length
 * in *|plen|.
 */
static bool ses_wre_goes_whole(struct ses *s, const struct ses_wre *w,
			       const struct ses_peer *p, uint64_t *plen)
{
	uint64_t len;

	if ((w->opcode != UET_SES_OP_SEND &&
	     w->opcode != UET_SES_OP_TAGGED_SEND) ||
	    (w->flags & (SES_WRE_F_DC | SES_WRE_F_RUDI |
			 SES_WRE_F_NO_ANSWER)) != SES_WRE_F_NO_ANSWER)
		return false;
	len = ses_iov_len(w->iov, w->iov_cnt);
	/* Not a rendezvous (ses_wre_post), and one packet. */
	if (len > s->cfg.payload_mtu ||
	    (s->cfg.rdv_ri != SES_RI_NONE && w->iov_cnt == 1 &&
	     (len > s->cfg.rdv_threshold || len > s->cfg.rdv_pull_threshold)))
		return false;
	*plen = len;
	return !p->tx_cnt && ses_list_is_empty(&p->tx_wait) &&
	       ses_list_is_empty(&s->tx_pending) && ses_msg_id_is_free(s, p);
}

/*
 * The one packet of a whole send (ses_wre_goes_whole) of |len| bytes, id
 * |msg_id|: what ses_msg_fill and ses_msg_pkt make of such a WRE, built
 * straight from it (no ses_msg to fill first: a fifth of the send's
 * instructions between two local endpoints).
 */
static void ses_whole_pkt(struct ses *s, const struct ses_wre *w,
			  uint32_t len, uint16_t msg_id, struct ses_pkt *pkt)
{
	bool hd = w->flags & SES_WRE_F_HDR_DATA;
	struct ses_std_hdr h = {
		.opcode = w->opcode,
		.f = { .som = 1, .eom = 1, .rel = !w->dst->absolute, .hd = hd },
		.message_id = msg_id, .ri_generation = ses_msg_gen(s, w, -1),
		.job_id = w->dst->job_id, .pid_on_fep = w->dst->pid_on_fep,
		.resource_index = w->ri, .initiator = s->cfg.initiator,
		.memory_key = w->opcode == UET_SES_OP_TAGGED_SEND ? w->tag : 0,
		.header_data = hd ? w->header_data : 0,
		.request_length = len,
	};
	ssize_t n = ses_std_hdr_encode(pkt->hdr, sizeof(pkt->hdr), &h);

	assert(n == UET_SES_STD_HDR_LEN);
	pkt->peer = w->dst->peer;
	pkt->next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD;
	pkt->pay_life = SES_PAY_MSG;
	pkt->hdr_len = (uint16_t)n;
	pkt->iov = w->iov;
	pkt->iov_cnt = w->iov_cnt;
	pkt->pay_off = 0;
	pkt->pay_len = len;
	pkt->msg_ref = 0;
	pkt->flags = SES_PKT_F_NO_ANSWER;
	pkt->rdv_buf = NULL;
	pkt->rdv_len = 0;
}

int ses_wre_send_whole(struct ses *s, const struct ses_wre *wre,
		       ses_tx_fn tx, void *ctx)
{
	struct ses_peer *p;
	struct ses_pkt pkt;
	uint64_t len;
	int ret;

	if (ses_wre_check(wre) < 0)
		return 0;
	p = ses_peer_get(s, wre->dst->peer);
	if (!p || !ses_wre_goes_whole(s, wre, p, &len))
		return 0;
	/* The id it would take; taken, and freed, once the packet is out. */
	ses_whole_pkt(s, wre, (uint32_t)len, ses_msg_id(s, p->tx_next), &pkt);
	ret = tx(ctx, &pkt);
	if (ret == -EAGAIN)
		return 0;
	if (ret < 0)
		return ret;
	s->st.tx_pkts++;
	/* None in flight (ses_wre_goes_whole): the base follows. */
	p->tx_next = (uint16_t)((p->tx_next + 1) & s->id_seq_mask);
	p->tx_base = p->tx_next;
	return 1;
}

int ses_tx_progress(struct ses *s)
{
	uint64_t before = s->st.tx_pkts;

	while (!ses_list_is_empty(&s->tx_pending)) {
		struct ses_msg *m = ses_container_of(s->tx_pending.next,
						     struct ses_msg, link);

		if (ses_msg_pump(s, m) == -EAGAIN)
			break;
	}
	return (int)(s->st.tx_pkts - before);
}

void ses_msg_release(struct ses *s, struct ses_msg *m)
{
	struct ses_peer *p = ses_pool_at(&s->peers, m->peer);
	bool had_id = !(m->flags & SES_MSG_F_WAIT);

	if (had_id) {
		ses_map_del(&s->msg_map, ses_msg_key(m->peer, m->msg_id));
		ses_msg_id_free(s, p, m->msg_id);
	}
	ses_blkmap_fini(&m->blk);
	ses_list_del(&m->link);
	m->wre = NULL;
	ses_pool_put(&s->msgs, m);
	/* Its id is free: the window may have room for one waiting. */
	if (had_id)
		ses_msg_wait_kick(s, p);
}

struct ses_msg *ses_msg_by_ref(const struct ses *s, uint64_t msg_ref)
{
	uint32_t idx = (uint32_t)msg_ref;
	struct ses_msg *m;

	if (idx >= s->msgs.len)
		return NULL;
	m = ses_pool_at(&s->msgs, idx);
	return m->wre && m->seq == (uint32_t)(msg_ref >> 32) ? m : NULL;
}

bool ses_pkt_payload_live(const struct ses *s, uint64_t msg_ref)
{
	const struct ses_msg *m = ses_msg_by_ref(s, msg_ref);

	return m && !(m->flags & SES_MSG_F_DONE);
}

bool ses_msg_is_outstanding(struct ses *s, uint32_t peer, uint16_t id)
{
	return ses_msg_find(s, peer, id) != NULL;
}

struct ses_msg *ses_msg_find(struct ses *s, uint32_t peer, uint16_t id)
{
	struct ses_peer *p = ses_peer_find(s, peer);
	uint32_t idx;

	if (!p || !ses_map_get(&s->msg_map,
			       ses_msg_key(ses_pool_idx(&s->peers, p), id),
			       &idx))
		return NULL;
	return ses_pool_at(&s->msgs, idx);
}
