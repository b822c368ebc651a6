/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The in-memory wire of the SES unit tests (see test_ses_wire.h). It holds
 * no tests itself; it is linked into build/test_ses with them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_ses_wire.h"

uint64_t t_rand(struct t_wire *w)
{
	/* xorshift64*: deterministic for a seed, good enough to shuffle. */
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 0x2545F4914F6CDD1Dull;
}

void t_wire_init(struct t_wire *w, uint64_t seed)
{
	memset(w, 0, sizeof(*w));
	w->rng = seed ? seed : 1;
	w->tx_budget = -1;
}

void t_pkt_free(struct t_pkt *p)
{
	free(p->buf);
	p->buf = NULL;
}

void t_wire_fini(struct t_wire *w)
{
	size_t i;

	for (i = 0; i < w->q_cnt; i++)
		t_pkt_free(&w->q[i]);
	for (i = 0; i < w->log_cnt; i++)
		t_pkt_free(&w->log[i]);
	free(w->q);
	free(w->log);
	free(w->answered);
	free(w->answered_at);
}

static void t_push(struct t_pkt **arr, size_t *cnt, size_t *cap,
		   const struct t_pkt *p)
{
	if (*cnt == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*arr = realloc(*arr, *cap * sizeof(**arr));
		cr_assert_not_null(*arr);
	}
	(*arr)[(*cnt)++] = *p;
}

/*
 * Reads a lazy packet's payload now, obeying its pay_life as a lower layer
 * must: a completed message's payload is not read (zeros go instead).
 */
static void t_pkt_materialize(struct t_pkt *p)
{
	struct ses_pkt pkt = { .iov = p->iov, .iov_cnt = p->iov_cnt,
			       .pay_off = p->pay_off, .pay_len = p->pay_len };
	uint8_t *pay = p->buf + (p->len - p->pay_len);

	if (!p->lazy)
		return;
	p->lazy = false;
	if (p->pay_life == SES_PAY_MSG &&
	    !ses_pkt_payload_live(p->owner->s, p->msg_ref)) {
		memset(pay, 0, p->pay_len);
		p->owner->w->lazy_dead++;
		return;
	}
	ses_pkt_payload_copy(&pkt, pay);
}

/* A copy of a packet whose payload was read (not lazy). */
static struct t_pkt t_pkt_dup(const struct t_pkt *p)
{
	struct t_pkt c = *p;

	cr_assert(!p->lazy);

	c.buf = malloc(p->len ? p->len : 1);
	cr_assert_not_null(c.buf);
	memcpy(c.buf, p->buf, p->len);
	return c;
}

static void t_send(struct t_wire *w, struct t_pkt *p)
{
	struct t_pkt c;

	if (w->capture) {
		t_pkt_materialize(p);
		c = t_pkt_dup(p);
		t_push(&w->log, &w->log_cnt, &w->log_cap, &c);
	}
	t_push(&w->q, &w->q_cnt, &w->q_cap, p);
}

static int t_tx(void *ctx, const struct ses_pkt *pkt)
{
	struct t_node *n = ctx;
	struct t_wire *w = n->w;
	struct t_pkt p = { .src = n->id, .dst = pkt->peer,
			   .next_hdr = pkt->next_hdr };

	if (w->tx_budget == 0)
		return -EAGAIN;
	if (w->tx_budget > 0)
		w->tx_budget--;
	p.is_req = pkt->next_hdr >= UET_PDS_NEXT_HDR_REQUEST_SMALL &&
		   pkt->next_hdr <= UET_PDS_NEXT_HDR_REQUEST_STD;
	/* Responses sent apart ride our own PDC, not the one they answer. */
	p.pdc = p.is_req ? n->pdc : 0;
	p.seq = w->next_seq++;
	p.msg_ref = pkt->msg_ref;
	p.rdv_buf = pkt->rdv_buf;
	p.rdv_len = pkt->rdv_len;
	p.len = pkt->hdr_len + pkt->pay_len;
	p.buf = malloc(p.len);
	cr_assert_not_null(p.buf);
	memcpy(p.buf, pkt->hdr, pkt->hdr_len);
	if (w->lazy && pkt->pay_life != SES_PAY_CALL && pkt->pay_len) {
		cr_assert_leq(pkt->iov_cnt, SES_IOV_MAX);
		p.lazy = true;
		p.owner = n;
		memcpy(p.iov, pkt->iov, pkt->iov_cnt * sizeof(*pkt->iov));
		p.iov_cnt = pkt->iov_cnt;
		p.pay_off = pkt->pay_off;
		p.pay_len = pkt->pay_len;
		p.pay_life = pkt->pay_life;
	} else {
		cr_assert_eq(ses_pkt_payload_copy(pkt, p.buf + pkt->hdr_len),
			     pkt->pay_len);
	}
	t_send(w, &p);
	return 0;
}

/* A region goes: lazy READ data that lies in it is read now. */
static void t_pay_revoke(void *ctx, const void *base, uint64_t len)
{
	struct t_wire *w = ((struct t_node *)ctx)->w;
	const uint8_t *b = base;

	for (size_t i = 0; i < w->q_cnt; i++) {
		struct t_pkt *p = &w->q[i];

		for (size_t k = 0; p->lazy && k < p->iov_cnt; k++) {
			const uint8_t *ib = p->iov[k].base;

			if (p->pay_life == SES_PAY_REGION &&
			    ib < b + len && b < ib + p->iov[k].len)
				t_pkt_materialize(p);
		}
	}
}

static void t_tx_done(void *ctx, const struct ses_wre *wre,
		      const struct ses_tx_cpl *cpl)
{
	struct t_node *n = ctx;

	n->tx_total++;
	if (n->tx_hook) {
		n->tx_hook(n, wre, cpl);
		return;
	}
	if (n->tx_cnt < T_MAX_CPL) {
		n->tx[n->tx_cnt].wre = wre;
		n->tx[n->tx_cnt++].cpl = *cpl;
	}
}

static void t_recv_done(void *ctx, const struct ses_recv_cpl *cpl)
{
	struct t_node *n = ctx;

	if (n->rx_hook) {
		n->rx_hook(n, cpl);
		return;
	}
	cr_assert_lt(n->rx_cnt, T_MAX_CPL);
	n->rx[n->rx_cnt++] = *cpl;
}

static void t_rma_done(void *ctx, const struct ses_rma_event *ev)
{
	struct t_node *n = ctx;

	if (n->rma_cnt < T_MAX_CPL)
		n->rma[n->rma_cnt++] = *ev;
}

static uint8_t t_gen_get(void *ctx, const struct ses_addr *dst, uint16_t ri)
{
	(void)dst;
	return ((struct t_node *)ctx)->gen[ri];
}

static void t_gen_set(void *ctx, const struct ses_addr *dst, uint16_t ri,
		      uint8_t gen)
{
	struct t_node *n = ctx;

	(void)dst;
	n->gen[ri] = gen;
	n->gen_sets++;
}

/* ses_ops.pull as local channels, within one process: see t_wire.pull. */
static int t_pull(void *ctx, const struct ses_pull_src *src, uint64_t off,
		  const struct ses_iov *iov, size_t cnt, uint64_t len)
{
	struct t_wire *w = ((struct t_node *)ctx)->w;
	const uint8_t *from = (const uint8_t *)(uintptr_t)src->addr + off;

	cr_assert_eq(src->pid, 1234);
	cr_assert_leq(off + len, src->len);
	if (w->pull < 0)
		return -EPERM;
	for (size_t i = 0; i < cnt && len; i++) {
		size_t n = iov[i].len < len ? iov[i].len : len;

		memcpy(iov[i].base, from, n);
		from += n;
		len -= n;
	}
	cr_assert_eq(len, 0);
	w->pulls++;
	return 0;
}

static bool t_peer_pulls(void *ctx, uint32_t peer)
{
	(void)peer;
	return ((struct t_node *)ctx)->w->pull != 0;
}

static const struct ses_ops t_ops = {
	.tx = t_tx, .tx_done = t_tx_done, .recv_done = t_recv_done,
	.rma_done = t_rma_done, .ri_gen_get = t_gen_get,
	.ri_gen_set = t_gen_set, .pay_revoke = t_pay_revoke,
	.pull = t_pull, .peer_pulls = t_peer_pulls,
};

void t_node_init(struct t_wire *w, struct t_node *n, uint32_t id,
		 const struct ses_config *cfg)
{
	memset(n, 0, sizeof(*n));
	if (cfg)
		n->cfg = *cfg;
	else
		ses_config_init(&n->cfg);
	n->id = id;
	n->w = w;
	n->s = ses_create(&n->cfg, &t_ops, n);
	cr_assert_not_null(n->s);
	cr_assert_lt(w->n, T_MAX_NODES);
	w->nodes[w->n++] = n;
}

void t_node_fini(struct t_node *n)
{
	struct t_wire *w = n->w;
	unsigned i, k = 0;

	ses_destroy(n->s);
	n->s = NULL;
	for (i = 0; w && i < w->n; i++)
		if (w->nodes[i] != n)
			w->nodes[k++] = w->nodes[i];
	if (w)
		w->n = k;
}

static struct t_node *t_node_find(struct t_wire *w, uint32_t id)
{
	unsigned i;

	for (i = 0; i < w->n; i++)
		if (w->nodes[i]->id == id)
			return w->nodes[i];
	cr_assert_fail("no node %u", id);
	return NULL;
}

/* Whether request |seq| was answered already, marking it answered. */
static bool t_answered(struct t_wire *w, uint64_t seq)
{
	size_t cap = w->answered_cap;
	bool was;

	if (seq >= cap) {
		while (seq >= cap)
			cap = cap ? 2 * cap : 1024;
		w->answered = realloc(w->answered, cap);
		w->answered_at = realloc(w->answered_at,
					 cap * sizeof(*w->answered_at));
		cr_assert(w->answered && w->answered_at);
		memset(w->answered + w->answered_cap, 0, cap - w->answered_cap);
		w->answered_cap = cap;
	}
	was = w->answered[seq];
	if (!was)
		w->answered_at[seq] = w->next_seq;
	w->answered[seq] = 1;
	return was;
}

/* Under w->copy_ttl, whether |p| is a copy too late to arrive. */
static bool t_copy_is_late(const struct t_wire *w, const struct t_pkt *p)
{
	return w->copy_ttl && p->seq < w->answered_cap &&
	       w->answered[p->seq] &&
	       w->next_seq - w->answered_at[p->seq] > w->copy_ttl;
}

/*
 * A request not taken goes to the end of the queue, once: as PDC resends
 * a packet NACKed, not every copy of it the wire made. Under w->rod,
 * every later request from its source to its destination follows it
 * there, in the order they were queued.
 */
static void t_requeue(struct t_wire *w, const struct t_pkt *p)
{
	struct t_pkt c, *later = NULL;
	size_t i, k = 0, n = 0;

	for (i = 0; i < w->q_cnt; i++)
		if (w->q[i].is_req && w->q[i].seq == p->seq)
			return;		/* a copy of it is on its way */
	c = t_pkt_dup(p);
	if (w->rod) {
		later = malloc((w->q_cnt ? w->q_cnt : 1) * sizeof(*later));
		cr_assert_not_null(later);
		for (i = 0; i < w->q_cnt; i++) {
			struct t_pkt *q = &w->q[i];

			if (q->is_req && q->src == p->src && q->dst == p->dst)
				later[n++] = *q;
			else
				w->q[k++] = *q;
		}
		w->q_cnt = k;
	}
	t_push(&w->q, &w->q_cnt, &w->q_cap, &c);
	for (i = 0; i < n; i++)
		t_push(&w->q, &w->q_cnt, &w->q_cap, &later[i]);
	free(later);
}

void t_wire_deliver(struct t_wire *w, const struct t_pkt *p)
{
	struct t_node *dst = t_node_find(w, p->dst);
	struct ses_rx_pkt rx = { .peer = p->src, .next_hdr = p->next_hdr,
				 .buf = p->buf, .len = p->len,
				 .now_ns = w->now_ns, .pdc = p->pdc };
	struct t_pkt a = { .src = p->dst, .dst = p->src, .pdc = p->pdc,
			   .next_hdr = UET_PDS_NEXT_HDR_RESPONSE };
	uint8_t rsp[UET_SES_RSP_LEN];
	struct ses_pull_src src;
	ssize_t n;

	if (!p->is_req) {
		/* An ACK for a PDC its node no longer has goes nowhere. */
		if (p->pdc && p->pdc != dst->pdc) {
			w->stale_acks++;
			return;
		}
		if (p->is_default)
			ses_rx_default(dst->s, p->msg_ref);
		else
			ses_rx_rsp(dst->s, &rx);
		return;
	}
	if (t_copy_is_late(w, p)) {
		w->copies_late++;
		return;
	}
	if (w->pull && p->rdv_buf) {
		src = (struct ses_pull_src){ 1234, (uintptr_t)p->rdv_buf,
					     p->rdv_len };
		rx.src = &src;
	}
	n = ses_rx_req(dst->s, &rx, rsp, sizeof(rsp));
	if (n == -EAGAIN) {
		/* Not taken (NACK): the sender's PDC tries again later. */
		w->eagain_cnt++;
		t_requeue(w, p);
		return;
	}
	/* < 0: not answered (a stale context's, a malformed one) */
	if (n < 0 || t_answered(w, p->seq))
		return;
	a.seq = w->next_seq++;
	if (!n) {
		/* DEFAULT_RESPONSE: what PDS's ACK alone tells. */
		a.is_default = true;
		a.msg_ref = p->msg_ref;
		a.buf = malloc(1);
		cr_assert_not_null(a.buf);
		t_send(w, &a);
		return;
	}
	a.len = (size_t)n;
	a.buf = malloc(a.len);
	cr_assert_not_null(a.buf);
	memcpy(a.buf, rsp, a.len);
	t_send(w, &a);
}

struct t_pkt t_wire_take(struct t_wire *w, size_t i)
{
	struct t_pkt p = w->q[i];

	t_pkt_materialize(&p);
	memmove(&w->q[i], &w->q[i + 1], (w->q_cnt - i - 1) * sizeof(*w->q));
	w->q_cnt--;
	return p;
}

bool t_wire_step(struct t_wire *w)
{
	struct t_pkt p, d;
	size_t i = 0;

	if (!w->q_cnt)
		return false;
	if (w->reorder)
		i = t_rand(w) % w->q_cnt;
	p = t_wire_take(w, i);
	if (w->drop_pct && t_rand(w) % 100 < w->drop_pct) {
		if (w->lose)
			t_pkt_free(&p);
		else
			t_push(&w->q, &w->q_cnt, &w->q_cap, &p);
		return true;
	}
	if (w->dup_pct && t_rand(w) % 100 < w->dup_pct) {
		d = t_pkt_dup(&p);
		t_push(&w->q, &w->q_cnt, &w->q_cap, &d);
	}
	t_wire_deliver(w, &p);
	t_pkt_free(&p);
	return true;
}

size_t t_wire_run(struct t_wire *w, size_t max_steps)
{
	size_t steps = 0;
	unsigned i;
	int sent;

	for (;;) {
		while (steps < max_steps && t_wire_step(w))
			steps++;
		if (steps >= max_steps)
			break;
		sent = 0;
		for (i = 0; i < w->n; i++)
			sent += ses_progress(w->nodes[i]->s, w->now_ns);
		if (!sent && !w->q_cnt)
			break;
	}
	return steps;
}

void t_addr(struct ses_addr *a, uint32_t peer, uint32_t job, uint16_t pid)
{
	memset(a, 0, sizeof(*a));
	a->peer = peer;
	a->job_id = job;
	a->pid_on_fep = pid;
}

void t_wre(struct ses_wre *w, uint8_t op, const struct ses_addr *dst,
	   struct ses_iov *iov, void *buf, size_t len)
{
	memset(w, 0, sizeof(*w));
	iov->base = buf;
	iov->len = len;
	iov->desc = NULL;
	w->opcode = op;
	w->dst = dst;
	w->iov = iov;
	w->iov_cnt = 1;
}
