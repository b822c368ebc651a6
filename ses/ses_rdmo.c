/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Remote memory operations (seeds/doca-urom-rdmo.txt), executed here as
 * the seed's "RDMO server": the target engine already checks and places
 * writes and atomics for an initiator, so it runs these too, without the
 * target application. Wire: our vendor opcodes and extension headers
 * (ses_hdr.h).
 *
 * APPEND reserves room on a queue and fills it: the pointer moves by the
 * data's length with a compare-and-swap once the whole range is known to
 * lie in the data region (so a refused append moves nothing), when the
 * first packet of the append arrives, whichever it is; every packet then
 * lands at its offset from the old value. Room reserved is filled: the
 * other packets are not refused for the RI table's generation (a region
 * of the table removed meanwhile), which would have the initiator send
 * the whole append again under a new id, to be reserved a second time
 * with the first room left half written; only for the data region
 * itself gone or replaced (ses_rdmo_has_room). Appends to one pointer never
 * overlap, whatever their initiators, because each reservation is one
 * atomic step; the initiator need not wait between them, so they
 * pipeline. The seed's caching of the pointer buys nothing here: the
 * engine works on the memory itself.
 *
 * SCATTER carries its descriptors at the start of its first packet; all
 * of them are checked there before a byte lands (one bad key refuses the
 * whole scatter), and kept for its later packets. A later packet that
 * comes before the first is not taken yet (ses_rdmo_waits_som): the
 * sender sends it again; once the first was refused, it gets the same
 * answer (ses_rx_one), else PDC would send it until it gave the peer up.
 *
 * FLUSH is answered once every message of its initiator from the first
 * one that was unanswered when the flush was posted (its extension names
 * it) up to the flush is finished or was refused: then all it wrote is in
 * memory, visible to the application here. Until then it is held, its
 * packet acknowledged with a DEFAULT_RESPONSE; held ones are bounded,
 * checked again whenever their peer's requests finish, and given up with
 * RC_UNDELIVERABLE after rx_idle_ns without progress. A message refused
 * for the RI generation is sent again by its initiator under a new id,
 * which may come after the flush's: so the initiator completes an answered
 * flush only once every write to that peer posted before it has completed
 * (ses_rdmo_flush_answered), retries included.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ses/ses_priv.h"

/* Held flushes, all peers: beyond, a flush is not taken (sent again). */
#define SES_RDMO_FLUSH_HOLD_MAX	256
/* Descriptors of one scatter: as many as the largest Payload MTU holds. */
#define SES_RDMO_PIECES_MAX	(UET_PAYLOAD_MTU_MAX / UET_SES_RDMO_PIECE_LEN)

/* Target state of an APPEND or SCATTER of several packets. */
struct ses_rdmo_rxm {
	struct ses_rdmo_ext ext;
	uint64_t old;			/* APPEND: the pointer before */
	uint64_t data_off;		/* APPEND: where its data starts */
	const struct ses_region *region;	/* APPEND: its data region */
	uint32_t region_seq;		/* APPEND: and that region's seq */
	struct ses_rdmo_piece pieces[];	/* SCATTER: ext.piece_count */
};

struct ses_flush_hold {
	struct ses_list link;
	uint32_t pidx;
	uint16_t msg_id;
	uint16_t next;		/* the first id not yet known settled */
	uint32_t job_id;
	uint16_t pid_on_fep;
	uint16_t ri;
	uint64_t since_ns;	/* last progress */
};

/* ---- initiator ----------------------------------------------------------- */
static bool ses_rdmo_scatter_is_valid(const struct ses *s,
				      const struct ses_wre *w)
{
	uint64_t table = (uint64_t)w->rdmo_pieces * UET_SES_RDMO_PIECE_LEN;
	uint64_t data = 0;
	struct ses_rdmo_piece pc;

	if (!w->rdmo_pieces || !w->iov_cnt || w->iov[0].len != table ||
	    table > s->cfg.payload_mtu || !w->iov[0].base)
		return false;
	for (uint32_t i = 0; i < w->rdmo_pieces; i++) {
		ses_rdmo_piece_decode(&pc, (const uint8_t *)w->iov[0].base +
				      i * UET_SES_RDMO_PIECE_LEN);
		data += pc.length;
	}
	return table + data == ses_iov_len(w->iov, w->iov_cnt);
}

bool ses_rdmo_wre_is_valid(const struct ses *s, const struct ses_wre *w)
{
	/* Nothing of theirs goes to a completion queue at the target. */
	if (w->flags & SES_WRE_F_HDR_DATA)
		return false;
	switch (w->opcode) {
	case UET_SES_OP_RDMO_APPEND:
		return !w->remote_offset &&
		       (!w->res_iov_cnt ||
			(w->res_iov_cnt == 1 &&
			 w->res_iov[0].len == sizeof(uint64_t)));
	case UET_SES_OP_RDMO_SCATTER:
		return ses_rdmo_scatter_is_valid(s, w);
	case UET_SES_OP_RDMO_FLUSH:
		return !ses_iov_len(w->iov, w->iov_cnt);
	default:
		return false;
	}
}

void ses_rdmo_pkt_ext(const struct ses *s, const struct ses_msg *m,
		      struct ses_pkt *pkt)
{
	const struct ses_wre *w = m->wre;
	const struct ses_peer *p;
	struct ses_rdmo_ext x = { 0 };
	ssize_t n;

	switch (m->opcode) {
	case UET_SES_OP_RDMO_APPEND:
		x.flags = w->res_iov_cnt ? UET_SES_RDMO_F_RESULT : 0;
		x.ptr_memory_key = w->rdmo_ptr_mkey;
		x.ptr_offset = w->rdmo_ptr_offset;
		x.data_bias = w->rdmo_data_bias;
		break;
	case UET_SES_OP_RDMO_SCATTER:
		x.piece_count = (uint16_t)w->rdmo_pieces;
		break;
	default:
		/*
		 * Every id before the oldest in flight is answered, so
		 * finished at the target: the flush waits from there.
		 */
		p = ses_pool_at(&s->peers, m->peer);
		x.first_message_id = s->id_prefix | p->tx_base;
		break;
	}
	n = ses_rdmo_ext_encode(pkt->hdr + pkt->hdr_len,
				sizeof(pkt->hdr) - pkt->hdr_len, m->opcode, &x);
	pkt->hdr_len = (uint16_t)(pkt->hdr_len + (n > 0 ? n : 0));
}

/* What a flush answers for: writes to the target's memory. */
static bool ses_rdmo_op_writes(uint8_t op)
{
	return op == UET_SES_OP_WRITE || op == UET_SES_OP_ATOMIC ||
	       op == UET_SES_OP_FETCHING_ATOMIC ||
	       op == UET_SES_OP_RDMO_APPEND || op == UET_SES_OP_RDMO_SCATTER;
}

/* A write of the flush's, not a rendezvous pull of ours. */
static bool ses_rdmo_msg_writes(const struct ses_msg *m)
{
	return !(m->flags & SES_MSG_F_INTERNAL) && ses_rdmo_op_writes(m->opcode);
}

/* Whether write |m| went to the peer of flush |f| and was posted before it. */
static bool ses_rdmo_is_before(const struct ses_msg *m,
			       const struct ses_msg *f)
{
	return m->peer == f->peer && ses_rdmo_msg_writes(m) &&
	       (int32_t)(m->post_seq - f->post_seq) < 0;
}

/*
 * The writes to the peer of flush |f| posted before it and not completed
 * (a generation retry counts as its WRE: post_seq). Once the target has
 * answered the flush, such a write's own answer is on its way, or it was
 * refused for the generation and sent again under an id the flush did not
 * wait for. Each completes once, through ses_msg_complete (a retried
 * one's retry does, the original only lingers), and is counted down then.
 */
static uint32_t ses_rdmo_flush_early_cnt(struct ses *s,
					 const struct ses_msg *f)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < s->msgs.len; i++) {
		const struct ses_msg *m = ses_pool_at(&s->msgs, i);

		n += m->wre && !(m->flags & SES_MSG_F_DONE) &&
		     ses_rdmo_is_before(m, f);
	}
	return n;
}

void ses_rdmo_flush_answered(struct ses *s, struct ses_msg *m,
			     uint32_t modified_len)
{
	uint32_t n = ses_rdmo_flush_early_cnt(s, m);

	if (!n) {
		ses_msg_complete(s, m, 0, UET_SES_RC_OK, modified_len);
		return;
	}
	if (!m->flush_wait)
		s->flush_gated_cnt++;
	m->flush_wait = n;
}

void ses_rdmo_flush_ungate(struct ses *s, const struct ses_msg *m)
{
	if (!ses_rdmo_msg_writes(m))
		return;
	for (uint32_t i = 0, left = s->flush_gated_cnt; left &&
	     i < s->msgs.len; i++) {
		struct ses_msg *f = ses_pool_at(&s->msgs, i);

		if (!f->flush_wait)
			continue;
		left--;
		if (!ses_rdmo_is_before(m, f) || --f->flush_wait)
			continue;
		s->flush_gated_cnt--;
		ses_msg_complete(s, f, 0, UET_SES_RC_OK, 0);
		ses_msg_try_free(s, f);
	}
}

/* ---- target: checks -------------------------------------------------------- */
/* Piece |i| of the scatter of |c|: kept, or in its first packet. */
static void ses_rdmo_piece_at(const struct ses_rx_ctx *c, uint32_t i,
			      struct ses_rdmo_piece *pc)
{
	if (c->rxm && c->rxm->rdmo)
		*pc = c->rxm->rdmo->pieces[i];
	else
		ses_rdmo_piece_decode(pc, c->pay + i * UET_SES_RDMO_PIECE_LEN);
}

/* A piece's region, access and range: as a WRITE is checked. */
static uint8_t ses_rdmo_piece_check(struct ses *s, const struct ses_rx_ctx *c,
				    const struct ses_rdmo_piece *pc,
				    struct ses_region **out)
{
	struct ses_region *r;

	return ses_rx_region_check(s, c->tbl, pc->memory_key,
				   SES_ACCESS_REMOTE_WRITE, pc->buffer_offset,
				   pc->length, out ? out : &r);
}

static uint32_t ses_rdmo_table_len(const struct ses_rx_ctx *c)
{
	return (uint32_t)c->rdmo.piece_count * UET_SES_RDMO_PIECE_LEN;
}

/*
 * The first packet: the descriptors it carries add up to the message and
 * every piece is writable. A later one: the pieces it writes still are
 * (a region may have gone meanwhile).
 */
static uint8_t ses_rdmo_scatter_check(struct ses *s, struct ses_rx_ctx *c)
{
	uint32_t count = c->rdmo.piece_count, table = ses_rdmo_table_len(c);
	uint64_t pos = table, lo = c->off, hi = (uint64_t)c->off + c->pay_len;
	struct ses_rdmo_piece pc;
	uint8_t rc;

	if (!count || count > SES_RDMO_PIECES_MAX)
		return UET_SES_RC_OP_VIOLATION;
	if (c->h.f.som && table > c->pay_len)
		return UET_SES_RC_OP_VIOLATION;
	for (uint32_t i = 0; i < count; i++) {
		ses_rdmo_piece_at(c, i, &pc);
		if (c->h.f.som || (pos < hi && pos + pc.length > lo)) {
			rc = ses_rdmo_piece_check(s, c, &pc, NULL);
			if (rc != UET_SES_RC_OK)
				return rc;
		}
		pos += pc.length;
	}
	return pos == c->h.request_length ? UET_SES_RC_OK :
	       UET_SES_RC_OP_VIOLATION;
}

bool ses_rdmo_has_room(const struct ses_rx_ctx *c)
{
	return c->h.opcode == UET_SES_OP_RDMO_APPEND && c->rxm &&
	       c->rxm->opcode == UET_SES_OP_RDMO_APPEND && c->rxm->rdmo;
}

/*
 * A later packet of an append whose room is reserved: it lands there, in
 * the region the room was reserved in (the pointer is done with).
 */
static uint8_t ses_rdmo_append_rest_check(struct ses *s,
					  struct ses_rx_ctx *c)
{
	const struct ses_rdmo_rxm *st = c->rxm->rdmo;
	struct ses_region *r = ses_mr_find(s, c->tbl,
					   ses_mkey_rkey(c->h.memory_key));

	if (c->h.buffer_offset)
		return UET_SES_RC_OP_VIOLATION;
	if (!r || r != st->region || r->seq != st->region_seq)
		return UET_SES_RC_BAD_MKEY;
	if (!ses_range_is_inside(st->data_off + c->off, c->pay_len, r->len))
		return UET_SES_RC_BAD_ADDR;
	c->region = r;
	return UET_SES_RC_OK;
}

/* The data region, and the pointer as a fetching atomic's target. */
static uint8_t ses_rdmo_append_check(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	uint32_t need = SES_ACCESS_REMOTE_READ | SES_ACCESS_REMOTE_WRITE;
	struct ses_region *r, *pr;
	uint8_t *ptr, rc;

	if (ses_rdmo_has_room(c))
		return ses_rdmo_append_rest_check(s, c);
	if (h->buffer_offset)
		return UET_SES_RC_OP_VIOLATION;
	/* Where in the data the pointer puts it is known only once read. */
	rc = ses_rx_region_check(s, c->tbl, h->memory_key,
				 SES_ACCESS_REMOTE_WRITE, 0, h->request_length,
				 &r);
	if (rc == UET_SES_RC_OK)
		rc = ses_rx_region_check(s, c->tbl, c->rdmo.ptr_memory_key,
					 need, c->rdmo.ptr_offset,
					 sizeof(uint64_t), &pr);
	if (rc != UET_SES_RC_OK)
		return rc;
	ptr = pr->base + c->rdmo.ptr_offset;
	if ((uintptr_t)ptr % sizeof(uint64_t))
		return UET_SES_RC_AMO_UNALIGNED;
	c->region = r;
	c->rdmo_ptr = ptr;
	return UET_SES_RC_OK;
}

/* The id a flush waits from: under the flush's prefix, within the window. */
static uint8_t ses_rdmo_flush_check(const struct ses *s,
				    const struct ses_rx_ctx *c)
{
	uint16_t id = c->h.message_id, first = c->rdmo.first_message_id;
	uint16_t mask = s->id_seq_mask;

	if ((first & (uint16_t)~mask) != (id & (uint16_t)~mask) ||
	    ((id - first) & mask) >= s->rx_check)
		return UET_SES_RC_OP_VIOLATION;
	return UET_SES_RC_OK;
}

uint8_t ses_rdmo_check(struct ses *s, struct ses_rx_ctx *c)
{
	switch (c->h.opcode) {
	case UET_SES_OP_RDMO_APPEND:
		return ses_rdmo_append_check(s, c);
	case UET_SES_OP_RDMO_SCATTER:
		return ses_rdmo_scatter_check(s, c);
	default:
		return ses_rdmo_flush_check(s, c);
	}
}

bool ses_rdmo_waits_som(const struct ses_rx_ctx *c)
{
	return c->h.opcode == UET_SES_OP_RDMO_SCATTER && !c->h.f.som &&
	       !c->rxm;
}

bool ses_rdmo_is_same(const struct ses_rx_ctx *c, const struct ses_rxm *m)
{
	const struct ses_rdmo_ext *a = &c->rdmo, *b = &m->rdmo->ext;

	return a->flags == b->flags && a->ptr_memory_key == b->ptr_memory_key &&
	       a->ptr_offset == b->ptr_offset && a->data_bias == b->data_bias &&
	       a->piece_count == b->piece_count;
}

/* ---- target: execution ------------------------------------------------------- */
/*
 * Moves the pointer past the append of |c| if its data, at (pointer -
 * bias), fits the data region; the old value in |*old|. A compare-and-swap,
 * as the application may move the pointer itself.
 */
static uint8_t ses_rdmo_reserve(const struct ses_rx_ctx *c, uint64_t *old,
				uint64_t *data_off)
{
	uint64_t *ptr = (uint64_t *)(void *)c->rdmo_ptr;
	uint64_t len = c->h.request_length;
	uint64_t cur = __atomic_load_n(ptr, __ATOMIC_ACQUIRE), off;

	do {
		off = cur - c->rdmo.data_bias;
		if (!ses_range_is_inside(off, len, c->region->len))
			return UET_SES_RC_BAD_ADDR;
	} while (!__atomic_compare_exchange_n(ptr, &cur, cur + len, false,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	*old = cur;
	*data_off = off;
	return UET_SES_RC_OK;
}

/* The last packet of an append is in: report it and answer. */
static int ses_rdmo_append_done(struct ses *s, struct ses_rx_ctx *c,
				uint64_t old, uint64_t data_off)
{
	const struct ses_std_hdr *h = &c->h;
	struct ses_rma_event ev;
	struct ses_rsp_data_hdr d = {
		.opcode = UET_SES_RSP_RESPONSE_W_DATA,
		.return_code = UET_SES_RC_OK, .message_id = h->message_id,
		.job_id = h->job_id, .read_request_message_id = h->message_id,
		.payload_length = sizeof(old),
		.modified_length = h->request_length,
	};

	ses_rx_rma_event_init(&ev, c, h->request_length);
	ev.offset = data_off;
	if (s->ops.rma_done)
		s->ops.rma_done(s->ctx, &ev);
	if (!(c->rdmo.flags & UET_SES_RDMO_F_RESULT))
		return ses_rx_ok(c, UET_SES_RSP_RESPONSE, h->request_length);
	/* As a fetching atomic: the old value comes back as data. */
	ses_rsp_data_send_to(s, c->peer->id, &d, &old, sizeof(old));
	return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
}

static int ses_rx_rdmo_append(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	struct ses_rxm *m = c->rxm;
	uint64_t old, data_off;
	uint8_t rc;
	int ret;

	if (!m && !(h->f.som && h->f.eom)) {
		m = ses_rxm_new(s, c);
		if (!m)
			return -EAGAIN;
		m->rdmo = calloc(1, sizeof(*m->rdmo));
		if (!m->rdmo) {
			ses_rxm_forget(s, m);
			return -EAGAIN;
		}
		m->rdmo->ext = c->rdmo;
	} else if (m) {
		old = m->rdmo->old;
		data_off = m->rdmo->data_off;
		goto place;
	}
	rc = ses_rdmo_reserve(c, &old, &data_off);
	if (rc != UET_SES_RC_OK) {
		if (m)
			ses_rxm_forget(s, m);
		return ses_rx_refuse(s, c, rc);
	}
	if (!m) {
		memcpy(c->region->base + data_off, c->pay, c->pay_len);
		ses_rx_id_done(s, c->peer, h->message_id);
		return ses_rdmo_append_done(s, c, old, data_off);
	}
	m->rdmo->old = old;
	m->rdmo->data_off = data_off;
	m->rdmo->region = c->region;
	m->rdmo->region_seq = c->region->seq;
place:
	ret = ses_blkmap_mark(&m->blk, c->off, c->pay_len);
	if (ret)
		return ses_rx_dup_or_bad(s, c, ret);
	memcpy(c->region->base + data_off + c->off, c->pay, c->pay_len);
	ses_rxm_took(s, m, c);
	if (m->arrived < m->req_len)
		return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
	ses_rxm_free(s, m);
	return ses_rdmo_append_done(s, c, old, data_off);
}

/*
 * Writes the bytes of packet |c| that belong to pieces: the message is the
 * table, then the pieces' data in order.
 */
static void ses_rdmo_scatter_place(struct ses *s, const struct ses_rx_ctx *c)
{
	uint64_t pos = ses_rdmo_table_len(c), lo = c->off;
	uint64_t hi = (uint64_t)c->off + c->pay_len, a, b;
	struct ses_rdmo_piece pc;
	struct ses_region *r;

	for (uint32_t i = 0; i < c->rdmo.piece_count && pos < hi; i++) {
		ses_rdmo_piece_at(c, i, &pc);
		a = pos > lo ? pos : lo;
		b = pos + pc.length < hi ? pos + pc.length : hi;
		/* Checked (ses_rdmo_scatter_check): the region is there. */
		if (a < b && ses_rdmo_piece_check(s, c, &pc, &r) ==
			     UET_SES_RC_OK)
			memcpy(r->base + pc.buffer_offset + (a - pos),
			       c->pay + (a - lo), b - a);
		pos += pc.length;
	}
}

/* A scatter is in: one write reported for each piece. */
static void ses_rdmo_scatter_report(struct ses *s, const struct ses_rx_ctx *c)
{
	struct ses_rdmo_piece pc;
	struct ses_rma_event ev;

	if (!s->ops.rma_done)
		return;
	for (uint32_t i = 0; i < c->rdmo.piece_count; i++) {
		ses_rdmo_piece_at(c, i, &pc);
		ses_rx_rma_event_init(&ev, c, pc.length);
		ev.rkey = ses_mkey_rkey(pc.memory_key);
		ev.offset = pc.buffer_offset;
		s->ops.rma_done(s->ctx, &ev);
	}
}

static int ses_rx_rdmo_scatter(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	uint64_t data = h->request_length - ses_rdmo_table_len(c);
	struct ses_rxm *m = c->rxm;
	uint32_t count = c->rdmo.piece_count;
	int ret;

	if (!m && h->f.som && h->f.eom) {
		ses_rdmo_scatter_place(s, c);
		ses_rx_id_done(s, c->peer, h->message_id);
		ses_rdmo_scatter_report(s, c);
		return ses_rx_ok(c, UET_SES_RSP_RESPONSE, (uint32_t)data);
	}
	if (!m) {
		/* The first packet (ses_rdmo_waits_som): keep the table. */
		m = ses_rxm_new(s, c);
		if (!m)
			return -EAGAIN;
		m->rdmo = calloc(1, sizeof(*m->rdmo) +
				    count * sizeof(m->rdmo->pieces[0]));
		if (!m->rdmo) {
			ses_rxm_forget(s, m);
			return -EAGAIN;
		}
		m->rdmo->ext = c->rdmo;
		for (uint32_t i = 0; i < count; i++)
			ses_rdmo_piece_decode(&m->rdmo->pieces[i],
					      c->pay + i * UET_SES_RDMO_PIECE_LEN);
		c->rxm = m;
	}
	ret = ses_blkmap_mark(&m->blk, c->off, c->pay_len);
	if (ret)
		return ses_rx_dup_or_bad(s, c, ret);
	ses_rdmo_scatter_place(s, c);
	ses_rxm_took(s, m, c);
	if (m->arrived < m->req_len)
		return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
	ses_rdmo_scatter_report(s, c);
	c->rxm = NULL;
	ses_rxm_free(s, m);
	return ses_rx_ok(c, UET_SES_RSP_RESPONSE, (uint32_t)data);
}

/* ---- target: flush ------------------------------------------------------------ */
/* Moves |f| past the ids known settled; true once it reaches the flush. */
static bool ses_rdmo_flush_advance(struct ses *s, struct ses_flush_hold *f,
				   const struct ses_peer *p)
{
	uint16_t mask = s->id_seq_mask, prefix = f->msg_id & (uint16_t)~mask;

	while (f->next != f->msg_id &&
	       ses_rx_id_is_settled(s, p, f->next))
		f->next = prefix | ((f->next + 1) & mask);
	return f->next == f->msg_id;
}

static void ses_rdmo_flush_answer(struct ses *s, struct ses_flush_hold *f,
				  uint8_t rc)
{
	const struct ses_peer *p = ses_pool_at(&s->peers, f->pidx);
	const struct ses_ri_tbl *t = ses_tbl_find(s, f->job_id, f->pid_on_fep,
						  f->ri);
	struct ses_rsp_hdr h = {
		.opcode = UET_SES_RSP_RESPONSE, .return_code = rc,
		.message_id = f->msg_id, .job_id = f->job_id,
		.ri_generation = t ? t->gen : 0,
	};

	ses_rsp_send_to(s, p->id, &h);
}

static void ses_rdmo_flush_free(struct ses *s, struct ses_flush_hold *f)
{
	ses_list_del(&f->link);
	s->flush_hold_cnt--;
	free(f);
}

static int ses_rx_rdmo_flush(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	struct ses_flush_hold probe = {
		.msg_id = h->message_id, .next = c->rdmo.first_message_id,
	}, *f;

	if (ses_rdmo_flush_advance(s, &probe, c->peer)) {
		ses_rx_id_done(s, c->peer, h->message_id);
		return ses_rx_ok(c, UET_SES_RSP_RESPONSE, 0);
	}
	if (s->flush_hold_cnt >= SES_RDMO_FLUSH_HOLD_MAX)
		return -EAGAIN;
	f = malloc(sizeof(*f));
	if (!f)
		return -EAGAIN;
	*f = (struct ses_flush_hold){
		.pidx = c->pidx, .msg_id = h->message_id, .next = probe.next,
		.job_id = c->job_id, .pid_on_fep = h->pid_on_fep,
		.ri = h->resource_index, .since_ns = c->now_ns,
	};
	ses_list_add_tail(&s->flush_holds, &f->link);
	s->flush_hold_cnt++;
	s->st.rdmo_flush_held++;
	/* Taken: a copy of it is a duplicate from now on. */
	ses_rx_id_done(s, c->peer, h->message_id);
	return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
}

int ses_rx_rdmo(struct ses *s, struct ses_rx_ctx *c)
{
	switch (c->h.opcode) {
	case UET_SES_OP_RDMO_APPEND:
		return ses_rx_rdmo_append(s, c);
	case UET_SES_OP_RDMO_SCATTER:
		return ses_rx_rdmo_scatter(s, c);
	default:
		return ses_rx_rdmo_flush(s, c);
	}
}

#define ses_flush_for_each(s, f)					\
	for (struct ses_list *n_ = (s)->flush_holds.next, *t_ = n_->next; \
	     n_ != &(s)->flush_holds &&					\
	     ((f) = ses_container_of(n_, struct ses_flush_hold, link), 1); \
	     n_ = t_, t_ = n_->next)

void ses_rdmo_flush_kick(struct ses *s, uint32_t pidx, uint64_t now_ns)
{
	const struct ses_peer *p = ses_pool_at(&s->peers, pidx);
	struct ses_flush_hold *f;
	uint16_t was;

	ses_flush_for_each(s, f) {
		if (f->pidx != pidx)
			continue;
		was = f->next;
		if (ses_rdmo_flush_advance(s, f, p)) {
			ses_rdmo_flush_answer(s, f, UET_SES_RC_OK);
			ses_rdmo_flush_free(s, f);
		} else if (f->next != was) {
			f->since_ns = now_ns;	/* moved: its clock restarts */
		}
	}
}

void ses_rdmo_flush_expire(struct ses *s, uint64_t now_ns)
{
	struct ses_flush_hold *f;

	ses_flush_for_each(s, f) {
		if (now_ns - f->since_ns < s->cfg.rx_idle_ns)
			continue;
		s->st.rdmo_flush_expired++;
		ses_rdmo_flush_answer(s, f, UET_SES_RC_UNDELIVERABLE);
		ses_rdmo_flush_free(s, f);
	}
}

void ses_rdmo_flush_drop(struct ses *s, uint32_t pidx)
{
	struct ses_flush_hold *f;

	ses_flush_for_each(s, f)
		if (f->pidx == pidx)
			ses_rdmo_flush_free(s, f);
}

bool ses_rdmo_flush_names(const struct ses *s, uint32_t pidx)
{
	for (const struct ses_list *n = s->flush_holds.next;
	     n != &s->flush_holds; n = n->next)
		if (ses_container_of(n, struct ses_flush_hold, link)->pidx ==
		    pidx)
			return true;
	return false;
}

void ses_rdmo_fini(struct ses *s)
{
	struct ses_flush_hold *f;

	if (!s->flush_holds.next)
		return;		/* ses_create failed before the lists */
	ses_flush_for_each(s, f)
		ses_rdmo_flush_free(s, f);
}
