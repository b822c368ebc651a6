/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Initiator: responses and completions. Every request packet is answered
 * once: DEFAULT_RESPONSE for "taken" (RC_OK), mostly implied by an ACK
 * without a response (ses_rx_default); RESPONSE where the answer says more
 * (an error code, a modified_length the initiator cannot know, the end of
 * a message that waits for more than placement). A WRITE, a non-fetching
 * ATOMIC and a SEND without delivery-complete end when every packet is
 * answered DEFAULT. READ data
 * arrives as RESPONSE_DATA packets, placed by message_offset in any order.
 * A message slot, and its id, stays taken until every packet sent has been
 * answered, so a late answer can never be taken for a newer message. A
 * fetching atomic gets its old values back as a READ gets its data, and an
 * RDMO append that asks for it its old pointer (m->fetch_len bytes in all).
 */
#include <errno.h>

#include "ses/ses_priv.h"

void ses_msg_try_free(struct ses *s, struct ses_msg *m)
{
	if ((m->flags & SES_MSG_F_DONE) && m->rsp_cnt >= m->pkt_sent &&
	    m->pkt_sent == m->pkt_cnt)
		ses_msg_release(s, m);
}

void ses_msg_complete(struct ses *s, struct ses_msg *m, int status, uint8_t rc,
		      uint32_t modified_len)
{
	struct ses_tx_cpl cpl = { status, rc, modified_len };

	if (m->flags & SES_MSG_F_DONE)
		return;
	m->flags |= SES_MSG_F_DONE;
	if (m->flush_wait) {
		m->flush_wait = 0;
		s->flush_gated_cnt--;
	}
	/* Nothing more of it goes out; only answers to what went are due. */
	m->pkt_cnt = m->pkt_sent;
	if (m->flags & SES_MSG_F_QUEUED) {
		m->flags &= ~SES_MSG_F_QUEUED;
		ses_list_del(&m->link);
	}
	/* Never sent: off its peer's tx_wait, and still without an id. */
	if (m->flags & SES_MSG_F_WAIT)
		ses_list_del(&m->link);
	if (m->flags & SES_MSG_F_RDV) {
		m->flags &= ~SES_MSG_F_RDV;
		ses_mr_del(s, ses_pool_at(&s->mrs, m->rdv_mr));
	}
	if (m->flags & SES_MSG_F_INTERNAL)
		ses_rdv_pull_done(s, m, status, rc);
	else
		s->ops.tx_done(s->ctx, m->wre, &cpl);
	if (s->flush_gated_cnt)
		ses_rdmo_flush_ungate(s, m);
}

/*
 * ref 4 (RP initiator): on RC_BAD_GENERATION take the generation from the
 * response and send again at once, here once per WRE. The retry is a new
 * message (new id); the old one lingers, silent, until its packets are
 * all answered.
 */
static bool ses_msg_retry(struct ses *s, struct ses_msg *m, uint8_t gen)
{
	struct ses_msg_init in = { .opcode = m->opcode, .gen = gen,
				   .flags = SES_MSG_F_RETRIED,
				   .post_seq = m->post_seq };
	const struct ses_wre *w = m->wre;

	if (m->flags & (SES_MSG_F_RETRIED | SES_MSG_F_INTERNAL))
		return false;
	if (s->ops.ri_gen_set)
		s->ops.ri_gen_set(s->ctx, w->dst, w->ri, gen);
	in.flags |= m->flags & SES_MSG_F_RDV;
	in.rdv_mr = m->rdv_mr;
	if (ses_msg_start(s, w, &in, NULL) < 0)
		return false;
	s->st.gen_retries++;
	/* The exposed rendezvous buffer now belongs to the retry. */
	m->flags &= ~SES_MSG_F_RDV;
	m->flags |= SES_MSG_F_DONE | SES_MSG_F_ZOMBIE;
	m->pkt_cnt = m->pkt_sent;
	if (m->flags & SES_MSG_F_QUEUED) {
		m->flags &= ~SES_MSG_F_QUEUED;
		ses_list_del(&m->link);
	}
	return true;
}

static void ses_msg_on_default(struct ses *s, struct ses_msg *m)
{
	m->rsp_cnt++;
	if (!(m->flags & SES_MSG_F_DONE) && m->pkt_sent == m->pkt_cnt &&
	    m->rsp_cnt >= m->pkt_cnt &&
	    ses_op_ends_on_defaults(m->opcode, m->wre->flags & SES_WRE_F_DC))
		ses_msg_complete(s, m, 0, UET_SES_RC_OK, m->len);
	/*
	 * Each piece of a RUDI READ is counted answered after its data
	 * (uet_engine_rudi.c): all answered and still short, the target
	 * served smaller pieces than asked (another Payload MTU).
	 */
	else if (!(m->flags & SES_MSG_F_DONE) && m->pkt_sent == m->pkt_cnt &&
		 m->rsp_cnt >= m->pkt_cnt && m->opcode == UET_SES_OP_READ &&
		 (m->wre->flags & SES_WRE_F_RUDI) && m->placed < m->fetch_len)
		ses_msg_complete(s, m, -EREMOTEIO, UET_SES_RC_UNSUPPORTED_SIZE,
				 m->placed);
	ses_msg_try_free(s, m);
}

void ses_rx_default(struct ses *s, uint64_t msg_ref)
{
	struct ses_msg *m = ses_msg_by_ref(s, msg_ref);

	s->st.rx_implied_rsps++;
	if (!m) {
		s->st.rx_stale_rsps++;
		return;
	}
	/* An ACK: the peer lives (ses_peer_fail). */
	((struct ses_peer *)ses_pool_at(&s->peers, m->peer))->heard_ns =
		s->now_ns;
	ses_msg_on_default(s, m);
}

static void ses_msg_on_rsp(struct ses *s, struct ses_msg *m,
			   const struct ses_rsp_hdr *h)
{
	if (h->opcode == UET_SES_RSP_DEFAULT_RESPONSE &&
	    (h->return_code == UET_SES_RC_OK ||
	     h->return_code == UET_SES_RC_NULL)) {
		ses_msg_on_default(s, m);
		return;
	}
	m->rsp_cnt++;
	if (m->flags & SES_MSG_F_DONE)
		goto out;
	if (h->return_code == UET_SES_RC_OK ||
	    h->return_code == UET_SES_RC_NULL) {
		/* A READ ends with its data; an empty one right here. */
		if (h->opcode == UET_SES_RSP_RESPONSE &&
		    m->placed == m->fetch_len) {
			if (m->opcode == UET_SES_OP_RDMO_FLUSH)
				ses_rdmo_flush_answered(s, m,
							h->modified_length);
			else
				ses_msg_complete(s, m, 0, UET_SES_RC_OK,
						 h->modified_length);
		}
	} else if (h->return_code != UET_SES_RC_BAD_GENERATION ||
		   !ses_msg_retry(s, m, h->ri_generation)) {
		ses_msg_complete(s, m, -EREMOTEIO, h->return_code,
				 h->modified_length);
	}
out:
	ses_msg_try_free(s, m);
}

static void ses_msg_on_data(struct ses *s, struct ses_msg *m,
			    const struct ses_rsp_data_hdr *h,
			    const uint8_t *data, size_t data_len)
{
	const struct ses_wre *w = m->wre;
	bool to_res = m->opcode != UET_SES_OP_READ;
	int ret;

	if (!m->fetch_len || (m->flags & SES_MSG_F_DONE))
		return;
	if (h->return_code != UET_SES_RC_OK) {
		ses_msg_complete(s, m, -EREMOTEIO, h->return_code, 0);
		ses_msg_try_free(s, m);
		return;
	}
	/*
	 * Only bytes of the message that never arrived before are placed,
	 * in whole blocks as the target sends them (every MTU is 1 KiB * n).
	 */
	if (h->payload_length != data_len || !data_len ||
	    (uint64_t)h->message_offset + data_len > m->fetch_len ||
	    (h->message_offset & (SES_BLK_LEN - 1)) ||
	    ((data_len & (SES_BLK_LEN - 1)) &&
	     h->message_offset + data_len != m->fetch_len)) {
		s->st.rx_malformed++;
		return;
	}
	ret = ses_blkmap_mark(&m->blk, h->message_offset, h->payload_length);
	if (ret) {
		s->st.rx_dups += ret > 0;
		s->st.rx_malformed += ret < 0;
		return;
	}
	ses_iov_write(to_res ? w->res_iov : w->iov, to_res ? w->res_iov_cnt :
		      w->iov_cnt, h->message_offset, data, data_len);
	m->placed += h->payload_length;
	if (m->placed == m->fetch_len) {
		ses_msg_complete(s, m, 0, UET_SES_RC_OK, m->len);
		ses_msg_try_free(s, m);
	}
}

int ses_rx_rsp(struct ses *s, const struct ses_rx_pkt *pkt)
{
	struct ses_peer *p = ses_peer_find(s, pkt->peer);
	struct ses_rsp_data_hdr dh;
	struct ses_rsp_hdr h;
	struct ses_msg *m;
	ssize_t n;

	s->st.rx_rsps++;
	if (p)
		p->heard_ns = pkt->now_ns ? pkt->now_ns : s->now_ns;
	if (pkt->next_hdr == UET_PDS_NEXT_HDR_RESPONSE) {
		n = ses_rsp_hdr_decode(&h, pkt->buf, pkt->len);
		if (n < 0)
			goto malformed;
		m = ses_msg_find(s, pkt->peer, h.message_id);
		if (!m)
			goto stale;
		ses_msg_on_rsp(s, m, &h);
		return 0;
	}
	/* RESPONSE_DATA_SMALL has no message id; we never ask for it. */
	if (pkt->next_hdr != UET_PDS_NEXT_HDR_RESPONSE_DATA) {
		n = -EPROTONOSUPPORT;
		goto malformed;
	}
	n = ses_rsp_data_hdr_decode(&dh, pkt->buf, pkt->len);
	if (n < 0)
		goto malformed;
	m = ses_msg_find(s, pkt->peer, dh.read_request_message_id);
	if (!m)
		goto stale;
	ses_msg_on_data(s, m, &dh, pkt->buf + n, pkt->len - (size_t)n);
	return 0;

malformed:
	s->st.rx_malformed++;
	return (int)n;
stale:
	s->st.rx_stale_rsps++;
	return 0;
}
