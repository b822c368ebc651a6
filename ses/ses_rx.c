/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Target: one request packet in, one response out. The checks of design
 * section 4 run in order before a byte lands; then the packet is placed
 * (WRITE), served (READ), executed (atomics: a WRITE's checks, and a
 * READ's too when fetching) or matched (sends). A packet that does not parse
 * is counted and dropped; everything else gets an answer.
 */
#include <errno.h>
#include <string.h>

#include "ses/ses_amo.h"
#include "ses/ses_priv.h"

static bool ses_op_is_msg(uint8_t op)
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

/* The access a request needs in the region it names. */
static uint32_t ses_op_access(uint8_t op)
{
	switch (op) {
	case UET_SES_OP_READ:
		return SES_ACCESS_REMOTE_READ;
	case UET_SES_OP_FETCHING_ATOMIC:
		return SES_ACCESS_REMOTE_READ | SES_ACCESS_REMOTE_WRITE;
	default:
		return SES_ACCESS_REMOTE_WRITE;
	}
}

uint8_t ses_rx_region_check(const struct ses *s, const struct ses_ri_tbl *t,
			    uint64_t mkey, uint32_t need, uint64_t off,
			    uint64_t len, struct ses_region **out)
{
	struct ses_region *r = ses_mr_find(s, t, ses_mkey_rkey(mkey));

	if (!r)
		return UET_SES_RC_BAD_MKEY;
	if ((r->access & need) != need)
		return UET_SES_RC_PERM_VIOLATION;
	if (!ses_range_is_inside(off, len, r->len))
		return UET_SES_RC_BAD_ADDR;
	*out = r;
	return UET_SES_RC_OK;
}

/* Key, access and range: the checks that depend on the opcode. */
static uint8_t ses_rx_check_op(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	uint32_t need = ses_op_access(h->opcode);
	uint8_t rc;

	/* An atomic READ only reads. */
	if (ses_op_is_amo(h->opcode) &&
	    c->amo.atomic.amo_op == UET_SES_AMO_READ)
		need = SES_ACCESS_REMOTE_READ;

	if (ses_op_is_msg(h->opcode)) {
		if (!(c->tbl->flags & SES_RI_F_MSG))
			return UET_SES_RC_OP_VIOLATION;
		if (h->request_length > s->cfg.max_msg_len)
			return UET_SES_RC_UNSUPPORTED_SIZE;
		return UET_SES_RC_OK;
	}
	/* An RDMO names its regions in its extension: ses_rdmo_check. */
	if (ses_op_is_rdmo(h->opcode))
		return UET_SES_RC_OK;
	if (h->opcode != UET_SES_OP_WRITE && h->opcode != UET_SES_OP_READ &&
	    !ses_op_is_amo(h->opcode))
		return UET_SES_RC_UNSUPPORTED_OP;
	/* The whole message, and so this packet, must fit the region. */
	rc = ses_rx_region_check(s, c->tbl, h->memory_key, need,
				 h->buffer_offset, h->request_length,
				 &c->region);
	if (rc == UET_SES_RC_OK &&
	    !ses_range_is_inside(c->off, c->pay_len,
				 c->region->len - h->buffer_offset))
		return UET_SES_RC_BAD_ADDR;
	return rc;
}

/* Lengths consistent with the header (ref 3.1, 4). */
static bool ses_rx_len_is_valid(const struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	uint64_t end = (uint64_t)c->off + c->pay_len;

	/* A RUDI READ asks for its pieces apart: each from message_offset. */
	if (h->opcode == UET_SES_OP_READ && c->rudi)
		return !c->pay_len && !(c->off & (SES_BLK_LEN - 1)) &&
		       (c->off < h->request_length ||
			(!h->request_length && h->f.som && h->f.eom));
	if (h->opcode == UET_SES_OP_READ)
		return h->f.som && h->f.eom && !c->pay_len;
	if (h->opcode == UET_SES_OP_RDMO_FLUSH)
		return h->f.som && h->f.eom && !c->pay_len &&
		       !h->request_length;
	/* An atomic is one packet; a CSWAP's operands are in its header. */
	if (ses_op_is_amo(h->opcode))
		return h->f.som && h->f.eom &&
		       c->pay_len == (ses_amo_op_is_cswap(c->amo.atomic.amo_op) ?
				      0 : h->request_length);
	if (ses_op_is_rdv(h->opcode))
		return h->f.som && h->f.eom &&
		       c->rdv.pid_on_fep <= UET_SES_PID_ON_FEP_MAX &&
		       c->pay_len == c->rdv.eager_length &&
		       c->pay_len <= h->request_length;
	if (!h->f.som && h->payload_length != c->pay_len)
		return false;
	if (end > h->request_length || (c->off & (SES_BLK_LEN - 1)))
		return false;
	if (h->f.eom)
		return end == h->request_length;
	/* Every packet but the last carries whole 1 KiB blocks. */
	return c->pay_len && !(c->pay_len & (SES_BLK_LEN - 1));
}

/*
 * The destination of |h|: its JobID known here and its PIDonFEP within
 * it; the JobID in |*job| (absolute addressing finds it from the PID).
 */
static uint8_t ses_rx_check_dest(const struct ses *s,
				 const struct ses_std_hdr *h, uint32_t *job)
{
	int64_t abs_job;

	*job = h->job_id;
	if (h->f.rel) {
		if (!ses_job_is_known(s, *job))
			return UET_SES_RC_BAD_JOB_ID;
		if (!ses_pid_is_known(s, *job, h->pid_on_fep))
			return UET_SES_RC_BAD_PID;
		return UET_SES_RC_OK;
	}
	/* ref 5.1: absolute addressing finds the PID alone. */
	abs_job = ses_pid_job(s, h->pid_on_fep);
	if (abs_job < 0)
		return UET_SES_RC_BAD_PID;
	*job = (uint32_t)abs_job;
	return UET_SES_RC_OK;
}

/* design section 4, in order. */
uint8_t ses_rx_check(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	uint32_t job;
	uint8_t rc;

	rc = ses_rx_check_dest(s, h, &job);
	if (rc != UET_SES_RC_OK)
		return rc;
	c->tbl = ses_tbl_find(s, job, h->pid_on_fep, h->resource_index);
	if (!c->tbl)
		return UET_SES_RC_BAD_INDEX;
	c->job_id = job;
	if (!c->tbl->enabled)
		return c->tbl->flags & SES_RI_F_NO_GEN ? UET_SES_RC_DISABLED :
		       UET_SES_RC_DISABLED_GEN;
	if (!(c->tbl->flags & SES_RI_F_NO_GEN) &&
	    h->ri_generation != c->tbl->gen && !ses_rdmo_has_room(c))
		return UET_SES_RC_BAD_GENERATION;
	rc = ses_rx_check_op(s, c);
	if (rc != UET_SES_RC_OK)
		return rc;
	if (!ses_rx_len_is_valid(c))
		return UET_SES_RC_OP_VIOLATION;
	if (h->f.ie)
		return UET_SES_RC_INITIATOR_ERR;
	if (ses_op_is_amo(h->opcode))
		return ses_amo_check(c);
	if (ses_op_is_rdmo(h->opcode))
		return ses_rdmo_check(s, c);
	return UET_SES_RC_OK;
}

/* Later packets of a message must describe the same message. */
static bool ses_rx_is_same_msg(const struct ses_rx_ctx *c,
			       const struct ses_rxm *m)
{
	const struct ses_std_hdr *h = &c->h;

	return h->opcode == m->opcode && h->request_length == m->req_len &&
	       h->buffer_offset == m->buffer_offset &&
	       h->memory_key == m->mkey && c->job_id == m->job_id &&
	       h->pid_on_fep == m->pid_on_fep &&
	       h->resource_index == m->ri && h->initiator == m->initiator &&
	       (!m->rdmo || ses_rdmo_is_same(c, m));
}

void ses_rx_rma_event_init(struct ses_rma_event *ev,
			   const struct ses_rx_ctx *c, uint32_t len)
{
	*ev = (struct ses_rma_event){
		.opcode = c->h.opcode,
		.amo_op = ses_op_is_amo(c->h.opcode) ? c->amo.atomic.amo_op : 0,
		.peer = c->peer->id, .job_id = c->job_id,
		.pid_on_fep = c->h.pid_on_fep, .ri = c->h.resource_index,
		.initiator = c->h.initiator,
		.rkey = ses_mkey_rkey(c->h.memory_key),
		.offset = c->h.buffer_offset, .len = len,
	};
}

void ses_rx_rma_event(struct ses *s, const struct ses_rx_ctx *c, uint32_t len,
		      bool hd, uint64_t header_data)
{
	struct ses_rma_event ev;

	ses_rx_rma_event_init(&ev, c, len);
	ev.hd = hd;
	ev.header_data = header_data;
	if (s->ops.rma_done)
		s->ops.rma_done(s->ctx, &ev);
}

static int ses_rx_write(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	uint8_t *dst = c->region->base + h->buffer_offset + c->off;
	struct ses_rxm *m = c->rxm;
	int ret;

	if (!m && h->f.som && h->f.eom) {
		if (c->pay_len)
			memcpy(dst, c->pay, c->pay_len);
		ses_rx_id_done(s, c->peer, h->message_id);
		ses_rx_rma_event(s, c, c->pay_len, h->f.hd, h->header_data);
		return ses_rx_ok(c, UET_SES_RSP_RESPONSE, c->pay_len);
	}
	if (!m) {
		m = ses_rxm_new(s, c);
		if (!m)
			return -EAGAIN;
	}
	ret = ses_blkmap_mark(&m->blk, c->off, c->pay_len);
	if (ret)
		return ses_rx_dup_or_bad(s, c, ret);
	memcpy(dst, c->pay, c->pay_len);
	ses_rxm_took(s, m, c);
	if (m->arrived < m->req_len)
		return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
	ses_rx_rma_event(s, c, m->req_len, m->flags & SES_RXM_F_HD,
			 m->header_data);
	ses_rxm_free(s, m);
	return ses_rx_ok(c, UET_SES_RSP_RESPONSE, h->request_length);
}

static int ses_rx_read(struct ses *s, struct ses_rx_ctx *c)
{
	c->region->read = true;
	ses_rx_id_done(s, c->peer, c->h.message_id);
	ses_read_serve(s, c);
	/* The data follows in RESPONSE_DATA packets; an empty READ is done. */
	if (c->h.request_length)
		return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
	return ses_rx_ok(c, UET_SES_RSP_RESPONSE, 0);
}

static int ses_rx_dispatch(struct ses *s, struct ses_rx_ctx *c)
{
	switch (c->h.opcode) {
	case UET_SES_OP_WRITE:
		return ses_rx_write(s, c);
	case UET_SES_OP_READ:
		return ses_rx_read(s, c);
	case UET_SES_OP_RENDEZVOUS_SEND:
	case UET_SES_OP_RENDEZVOUS_TSEND:
		return ses_rx_rdv(s, c);
	case UET_SES_OP_ATOMIC:
	case UET_SES_OP_FETCHING_ATOMIC:
		return ses_rx_amo(s, c);
	case UET_SES_OP_RDMO_APPEND:
	case UET_SES_OP_RDMO_SCATTER:
	case UET_SES_OP_RDMO_FLUSH:
		return ses_rx_rdmo(s, c);
	default:
		return ses_rx_send(s, c);
	}
}

/*
 * The request of |c| passed every check: from here on it may leave state.
 * The first taken on a new context makes it the peer's, and the first
 * taken fixes the peer's prefix; a refused one does neither.
 */
static void ses_rx_take(struct ses *s, struct ses_rx_ctx *c)
{
	if (c->fresh) {
		ses_rx_pdc_take(s, c->peer, c->pdc);
		c->fresh = false;
	}
	ses_rx_id_prefix_take(s, c->peer, c->h.message_id);
}

/*
 * A refused request changes nothing: no id is marked finished, no state
 * is made and a message in progress under its id is left alone, for a
 * request that names an id is not known to be the message that has it (a
 * mistake, or a spoof, on the same context). Its copies are judged anew,
 * so they get the same answer; and the message that does use the id is
 * still taken when it comes. A message whose packet was refused ends by
 * the initiator's other packets or the idle time-out.
 */
int ses_rx_refuse(struct ses *s, struct ses_rx_ctx *c, uint8_t rc)
{
	s->st.rx_rejected++;
	/*
	 * Answered, never done: a flush after it need not wait for it. Noted
	 * with its context: on a new one it counts for the history only once
	 * that context is the peer's.
	 */
	ses_rx_id_refused(s, c->peer, c->h.message_id, c->pdc, rc);
	return ses_rx_fail(c, rc);
}

int ses_rx_dup_or_bad(struct ses *s, struct ses_rx_ctx *c, int mark)
{
	if (mark > 0) {
		s->st.rx_dups++;
		return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
	}
	/*
	 * Overlaps what arrived without repeating it: not our packetization,
	 * nor maybe the message's own packet; refused, the message kept.
	 */
	return ses_rx_refuse(s, c, UET_SES_RC_OP_VIOLATION);
}

/*
 * Whether refusing |c|, a packet of the message in progress under its id,
 * ends that message. Its initiator gives the message up on this answer:
 * for RC_BAD_GENERATION it sends it whole again under a new id (ref 4),
 * for a refused part of an append whose room is reserved it fails it.
 * The other packets will not come, and the id comes back after S more
 * ids, maybe before rx_idle_ns: the message is dropped now (its id
 * finished), or the one that next has the id is refused as not the same.
 */
static bool ses_rx_refusal_ends_msg(const struct ses_rx_ctx *c, uint8_t rc)
{
	return c->rxm && (rc == UET_SES_RC_BAD_GENERATION ||
			  ses_rdmo_has_room(c)) &&
	       ses_rx_is_same_msg(c, c->rxm);
}

static int ses_rx_one(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	uint8_t rc;

	/*
	 * Even a one-packet request may name a message in progress; then it
	 * must agree with it (ses_rx_is_same_msg) or be refused. On a new
	 * context nothing of the history is its own.
	 */
	if (!c->fresh) {
		c->rxm = ses_rxm_find(s, c->pidx, h->message_id);
		if (!c->rxm && ses_rx_id_is_done(s, c->peer, h->message_id)) {
			/* Answered before; placing it again could undo later
			 * writes. A message that ended refused or dropped
			 * (ses_rxm_expire) says so again: DEFAULT_RESPONSE
			 * would tell its initiator this part was placed. */
			s->st.rx_dups++;
			if (ses_rx_id_refused_on(s, c->peer, h->message_id,
						 c->pdc, &rc))
				return ses_rx_fail(c, rc);
			return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
		}
	}
	/*
	 * A later packet of a scatter whose first has not come waits for
	 * it (sent again); if the first was refused, the message is over and
	 * its initiator waits only for this one's answer: the same.
	 */
	if (ses_rdmo_waits_som(c)) {
		if (ses_rx_id_refused_on(s, c->peer, h->message_id, c->pdc,
					 &rc))
			return ses_rx_refuse(s, c, rc);
		return -EAGAIN;
	}
	rc = ses_rx_check(s, c);
	if (rc == UET_SES_RC_OK && c->rxm && !ses_rx_is_same_msg(c, c->rxm))
		rc = UET_SES_RC_OP_VIOLATION;
	if (rc != UET_SES_RC_OK) {
		if (ses_rx_refusal_ends_msg(c, rc)) {
			ses_rxm_abort(s, c->rxm, -EIO, rc);
			c->rxm = NULL;
		}
		return ses_rx_refuse(s, c, rc);
	}
	ses_rx_take(s, c);
	return ses_rx_dispatch(s, c);
}

static ssize_t ses_rx_rsp_put(const struct ses_rx_ctx *c, uint8_t *rsp,
			      size_t rsp_len)
{
	struct ses_rsp_hdr r = {
		.opcode = c->rsp_opcode, .return_code = c->rc,
		.message_id = c->h.message_id,
		/* RC_BAD_GENERATION tells the initiator the current one. */
		.ri_generation = c->tbl ? c->tbl->gen : 0,
		.job_id = c->h.job_id, .modified_length = c->modified_len,
	};

	return ses_rsp_hdr_encode(rsp, rsp_len, &r);
}

/*
 * Whether the answer to |c| says nothing its initiator does not know: RC_OK
 * for a packet that is not a message's end, or the end of a message whose
 * initiator needs no more than "all of it placed" (a WRITE, a non-fetching
 * ATOMIC, an eager SEND placed whole and not asking for delivery-complete).
 * Such an answer is a DEFAULT_RESPONSE, which PDS folds into its coalesced
 * ACKs instead of carrying (ref 3.5): a PSN acknowledged without a response
 * was answered so. The initiator's side is ses_msg_on_default().
 */
static bool ses_rx_rsp_is_default(const struct ses_rx_ctx *c)
{
	if (c->rc != UET_SES_RC_OK)
		return false;
	if (c->rsp_opcode == UET_SES_RSP_DEFAULT_RESPONSE)
		return true;
	return c->rsp_opcode == UET_SES_RSP_RESPONSE &&
	       c->modified_len == c->h.request_length &&
	       ses_op_ends_on_defaults(c->h.opcode, c->h.f.dc);
}

/* Decodes the packet into |c|: header, extension, payload. */
int ses_rx_parse(struct ses_rx_ctx *c, const struct ses_rx_pkt *pkt)
{
	ssize_t n, e;

	if (pkt->next_hdr != UET_PDS_NEXT_HDR_REQUEST_STD)
		return -EPROTONOSUPPORT;
	n = ses_std_hdr_decode(&c->h, pkt->buf, pkt->len);
	if (n < 0)
		return (int)n;
	if (ses_op_is_rdv(c->h.opcode)) {
		e = ses_rdv_ext_decode(&c->rdv, pkt->buf + n,
				       pkt->len - (size_t)n);
		if (e < 0)
			return (int)e;
		n += e;
	} else if (ses_op_is_amo(c->h.opcode)) {
		e = ses_atomic_ext_decode(&c->amo.atomic, pkt->buf + n,
					  pkt->len - (size_t)n);
		if (e > 0 && ses_amo_op_is_cswap(c->amo.atomic.amo_op))
			e = ses_cas_ext_decode(&c->amo, pkt->buf + n,
					       pkt->len - (size_t)n);
		if (e < 0)
			return (int)e;
		n += e;
	} else if (ses_op_is_rdmo(c->h.opcode)) {
		e = ses_rdmo_ext_decode(&c->rdmo, c->h.opcode, pkt->buf + n,
					pkt->len - (size_t)n);
		if (e < 0)
			return (int)e;
		n += e;
	}
	c->pay = pkt->buf + n;
	c->pay_len = (uint32_t)(pkt->len - (size_t)n);
	if (pkt->len - (size_t)n > UET_SES_PAYLOAD_LEN_MAX)
		return -EBADMSG;
	c->off = c->h.f.som ? 0 : c->h.message_offset;
	c->now_ns = pkt->now_ns;
	return 0;
}

int ses_req_screen(struct ses *s, const struct ses_rx_pkt *pkt)
{
	struct ses_rx_ctx c;
	uint32_t job;
	int ret;

	memset(&c, 0, sizeof(c));
	ret = ses_rx_parse(&c, pkt);
	if (ret < 0)
		return ret;
	return ses_rx_check_dest(s, &c.h, &job);
}

ssize_t ses_rx_req(struct ses *s, const struct ses_rx_pkt *pkt, uint8_t *rsp,
		   size_t rsp_len)
{
	struct ses_rx_ctx c;
	int ret;

	if (rsp_len < UET_SES_RSP_LEN)
		return -ENOBUFS;
	memset(&c, 0, sizeof(c));
	s->st.rx_reqs++;
	c.src = pkt->src;
	ret = ses_rx_parse(&c, pkt);
	if (ret < 0) {
		s->st.rx_malformed++;
		return ret;
	}
	c.peer = ses_peer_get(s, pkt->peer);
	if (!c.peer || ses_peer_win_make(s, c.peer) < 0)
		return -EAGAIN;
	c.peer->heard_ns = pkt->now_ns ? pkt->now_ns : s->now_ns;
	c.pdc = pkt->pdc;
	switch (ses_rx_pdc_age(c.peer, pkt->pdc)) {
	case SES_RX_PDC_STALE:
		/* An earlier incarnation's: it must not touch the current
		 * history. */
		s->st.rx_stale_reqs++;
		return -ESTALE;
	case SES_RX_PDC_NEW:
		c.fresh = true;
		break;
	case SES_RX_PDC_CURRENT:
		break;
	}
	if (!c.fresh && !ses_rx_id_prefix_is_ok(s, c.peer, c.h.message_id)) {
		s->st.rx_malformed++;
		return -EBADMSG;
	}
	c.pidx = ses_pool_idx(&s->peers, c.peer);
	c.job_id = c.h.job_id;
	ret = ses_rx_one(s, &c);
	if (ret < 0)
		return ret;
	/* What this request finished may be what a held flush waits for. */
	if (s->flush_hold_cnt)
		ses_rdmo_flush_kick(s, c.pidx, c.now_ns);
	if (ses_rx_rsp_is_default(&c)) {
		s->st.rx_default_rsps++;
		return 0;
	}
	return ses_rx_rsp_put(&c, rsp, rsp_len);
}
