/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The simulated wire and test SES behind the PDC tests (test_pdc_sim.h).
 * Payloads name their sender, its incarnation and a sequence number, with a
 * check word, so the receiver can tell exactly what arrived and how often.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "test/unit/pdc/test_pdc_sim.h"
#include "uet_codec.h"

#define T_MAGIC		0x55455421u
#define T_F_RESP	0x01
#define T_ITER_MAX	20000000u

static uint32_t t_check(const uint8_t *p)
{
	uint32_t h = 2166136261u;
	int i;

	for (i = 0; i < 12; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* ---- the test SES -------------------------------------------------------- */

static void t_payload_put(uint8_t *buf, int src, int inc, uint8_t flags,
			  uint8_t mode, uint32_t seq)
{
	uint8_t *p = buf;

	p = uet_put_be32(p, T_MAGIC);
	p = uet_put_u8(p, (uint8_t)src);
	p = uet_put_u8(p, (uint8_t)inc);
	p = uet_put_u8(p, flags);
	p = uet_put_u8(p, mode);
	p = uet_put_be32(p, seq);
	uet_put_be32(p, t_check(buf));
}

/* A payload as end |src| (incarnation |inc|) would send it. */
void t_payload(uint8_t *buf, int src, int inc, uint8_t mode, uint32_t seq)
{
	t_payload_put(buf, src, inc, 0, mode, seq);
}

/* A hand-made request: |h| then the payload of message |seq| of |src|. */
size_t t_req_frame(uint8_t *buf, const struct pdc_req *h, int src,
		   uint32_t seq)
{
	ssize_t n = pdc_req_encode(buf, T_FRAME_MAX, h);

	cr_assert_gt(n, 0);
	t_payload(buf + n, src, 0, h->pro.type == UET_PDS_TYPE_ROD_REQ ?
		  PDC_MODE_ROD : PDC_MODE_RUD, seq);
	return (size_t)n + T_PAYLOAD_LEN;
}

static int t_fill(void *ctx, uint64_t cookie, uint8_t *buf, size_t len)
{
	struct t_end *e = ctx;
	uint32_t seq = (uint32_t)cookie;

	if (len != T_PAYLOAD_LEN)
		return -EINVAL;
	t_payload_put(buf, e->idx, (int)(cookie >> 32),
		      e->resp_every && seq % e->resp_every == 0 ? T_F_RESP : 0,
		      e->mode, seq);
	return 0;
}

static void t_log_rx(struct t_end *e, const struct pdc_rx_pkt *pkt,
		     uint8_t src, uint8_t inc, uint32_t seq)
{
	uint8_t *pinc = &e->pdcid_inc[e->inc][src][pkt->pdcid];
	int32_t *last = &e->rx_last[e->inc][src][inc];
	uint32_t *omin = &e->open_min[e->inc][src][inc];
	uint32_t *omax = &e->open_max[e->inc][src][inc];

	if (e->rx[e->inc][src][inc][seq]++)
		e->rx_dup++;
	e->rx_cnt++;
	if (pkt->mode == PDC_MODE_UUD) {
		e->rx_uud++;
		return;
	}
	if (*pinc && *pinc != inc + 1)
		e->rx_mix++;	/* one PDC carried two incarnations */
	*pinc = (uint8_t)(inc + 1);
	if (!*omin || pkt->open_seq < *omin)
		*omin = pkt->open_seq;
	if (pkt->open_seq > *omax)
		*omax = pkt->open_seq;
	if (pkt->mode == PDC_MODE_ROD && (int32_t)seq <= *last)
		e->rx_order_err++;
	if ((int32_t)seq > *last)
		*last = (int32_t)seq;
}

static int t_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
		     struct pdc_resp *resp)
{
	struct t_end *e = ctx;
	const uint8_t *p = pkt->buf;
	uint32_t magic, seq, check;
	uint8_t src, inc, flags, mode;

	e->deliver_calls++;
	if (e->eagain_every && e->deliver_calls % e->eagain_every == 0)
		return -EAGAIN;
	if (e->eagain_until_ns && e->sim->now < e->eagain_until_ns &&
	    e->rx_cnt >= e->eagain_after)
		return -EAGAIN;
	if (pkt->len != T_PAYLOAD_LEN) {
		e->rx_bad++;
		return 0;
	}
	p = uet_get_be32(&magic, p);
	p = uet_get_u8(&src, p);
	p = uet_get_u8(&inc, p);
	p = uet_get_u8(&flags, p);
	p = uet_get_u8(&mode, p);
	p = uet_get_be32(&seq, p);
	uet_get_be32(&check, p);
	if (magic != T_MAGIC || check != t_check(pkt->buf) || src >= T_ENDS ||
	    inc >= T_INC || seq >= T_MSGS_MAX || mode != pkt->mode ||
	    src != pkt->peer) {
		e->rx_bad++;
		return 0;
	}
	t_log_rx(e, pkt, src, inc, seq);
	if (flags & T_F_RESP) {
		resp->next_hdr = UET_PDS_NEXT_HDR_RESPONSE;
		resp->len = 8;
		uet_put_be32(uet_put_be32(resp->buf, seq), ~seq);
	}
	return 0;
}

static void t_tx_done(void *ctx, const struct pdc_tx_done *d)
{
	struct t_end *e = ctx;
	uint32_t seq = (uint32_t)d->cookie, inc = (uint32_t)(d->cookie >> 32);
	uint32_t a, b;

	cr_assert(inc < T_INC && seq < T_MSGS_MAX);
	if (e->done[inc][seq]++)
		e->done_dup++;
	else if (inc == (uint32_t)e->inc)
		e->fin_cnt++;
	e->status[inc][seq] = d->status;
	if (d->status) {
		e->err_cnt++;
		if (!e->first_err) {
			e->first_err = d->status;
			e->first_err_ns = e->sim->now;
		}
		return;
	}
	e->ok_cnt++;
	if (!e->resp_every || seq % e->resp_every || e->mode == PDC_MODE_UUD)
		return;
	if (d->resp_next_hdr != UET_PDS_NEXT_HDR_RESPONSE || d->resp_len != 8) {
		e->resp_bad++;
		return;
	}
	uet_get_be32(&b, uet_get_be32(&a, d->resp));
	if (a != seq || b != ~seq)
		e->resp_bad++;
}

static void t_event(void *ctx, const struct pdc_event *ev)
{
	struct t_end *e = ctx;

	cr_assert(ev->type < 4);
	e->ev_cnt[ev->type]++;
	e->ev_err[ev->type] = ev->err;
	if (ev->type == PDC_EV_FAILED && ev->is_initiator)
		e->fail_seq = e->next_seq;
}

static void t_log(void *ctx, const char *msg)
{
	struct t_end *e = ctx;

	cr_assert(msg && msg[0]);
	e->log_cnt++;
	if (getenv("T_LOG"))	/* T_LOG=1: the PDC log on stderr */
		fprintf(stderr, "[%p] %s\n", ctx, msg);
}

static const struct pdc_ops t_ops = {
	.deliver = t_deliver,
	.fill = t_fill,
	.tx_done = t_tx_done,
	.event = t_event,
	.log = t_log,
};

/* ---- set-up ------------------------------------------------------------- */

/* Test settings: a 10 us wire wants sub-ms timers and patience for loss. */
void t_cfg_lossy(struct pdc_cfg *cfg, uint64_t seed)
{
	pdc_cfg_init(cfg);
	cfg->seed = seed;
	cfg->rto_init_ns = 100000;
	cfg->rto_min_ns = 50000;
	cfg->rto_max_ns = 2000000;
	cfg->max_retries = 40;
	cfg->ack_delay_ns = 10000;
	cfg->idle_ns = 0;
	cfg->time_wait_ns = 100000000;
	cfg->max_payload_len = 64;
}

/*
 * Two ends over |paths| paths with |delay_us| each (one-way, in us; NULL:
 * none but the wire's 2 us), multipath |mp_mode|, 10 tries from an RTO of
 * 0.5 ms (above the slowest path's RTT): test_pdc_paths.c, test_pdc_stall.c.
 */
struct t_sim *t_fabric(uint32_t paths, const uint32_t *delay_us,
		       uint8_t mp_mode, uint64_t seed)
{
	struct t_wire w = { .delay_ns = 2000, .paths = paths };
	struct t_sim *s;
	struct pdc_cfg cfg;

	cr_assert_leq(paths, T_PATHS);
	for (uint32_t i = 0; i < paths; i++)
		w.path_delay_ns[i] = delay_us ? delay_us[i] * 1000ull : 0;
	s = t_sim_new(&w, seed, 2);
	t_cfg_lossy(&cfg, seed * 31 + 7);
	cfg.mp_mode = mp_mode;
	cfg.max_retries = 10;
	cfg.rto_min_ns = 500000;
	cfg.rto_init_ns = 500000;
	t_end_start(s, 0, &cfg);
	cfg.seed++;
	t_end_start(s, 1, &cfg);
	return s;
}

/* The counters of end |idx|'s manager, now. */
struct pdc_stats t_stats(const struct t_sim *s, int idx)
{
	struct pdc_stats st;

	pdc_mgr_stats(s->end[idx]->mgr, &st);
	return st;
}

struct t_sim *t_sim_new(const struct t_wire *wire, uint64_t seed, int ends)
{
	struct t_sim *s = calloc(1, sizeof(*s));
	int i;

	cr_assert(s && ends <= T_ENDS);
	s->wire = *wire;
	s->rng = seed;
	s->now = 1000;
	s->end_cnt = ends;
	s->track = calloc((size_t)T_ENDS * 65536, sizeof(*s->track));
	cr_assert(s->track);
	for (i = 0; i < ends; i++) {
		s->end[i] = calloc(1, sizeof(*s->end[i]));
		cr_assert(s->end[i]);
		s->end[i]->sim = s;
		s->end[i]->idx = i;
		memset(s->end[i]->rx_last, 0xff, sizeof(s->end[i]->rx_last));
	}
	return s;
}

void t_sim_free(struct t_sim *s)
{
	uint32_t i;
	int e;

	for (i = 0; i < s->q_cnt; i++)
		free(s->q[i]);
	free(s->q);
	for (e = 0; e < s->end_cnt; e++) {
		pdc_mgr_destroy(s->end[e]->mgr);
		free(s->end[e]);
	}
	free(s->track);
	free(s->cap);
	free(s);
}

void t_end_start(struct t_sim *s, int idx, const struct pdc_cfg *cfg)
{
	struct t_end *e = s->end[idx];

	e->cfg = *cfg;
	e->mgr = pdc_mgr_create(cfg, &t_ops, e);
	cr_assert(e->mgr, "pdc_mgr_create: %d", errno);
}

/* The end crashes and comes back: a new manager, nothing remembered. */
void t_end_restart(struct t_sim *s, int idx, uint64_t seed)
{
	struct t_end *e = s->end[idx];

	pdc_mgr_destroy(e->mgr);
	e->inc++;
	cr_assert(e->inc < T_INC);
	e->cfg.seed = seed;
	e->next_seq = 0;
	e->fin_cnt = 0;
	e->mgr = pdc_mgr_create(&e->cfg, &t_ops, e);
	cr_assert(e->mgr);
}

void t_end_plan(struct t_sim *s, int idx, int to, uint8_t mode,
		uint32_t msgs, uint32_t resp_every)
{
	struct t_end *e = s->end[idx];

	cr_assert(msgs <= T_MSGS_MAX);
	e->to = to;
	e->mode = mode;
	e->msg_cnt = msgs;
	e->resp_every = resp_every;
}

/* ---- the loop ----------------------------------------------------------- */

static void t_sim_pump(struct t_sim *s)
{
	int i;

	for (i = 0; i < s->end_cnt; i++) {
		struct t_end *e = s->end[i];
		struct pdc_pkt pkt = { .peer = (uint32_t)e->to, .mode = e->mode,
				       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
				       .len = T_PAYLOAD_LEN };

		while (e->mgr && e->next_seq < e->msg_cnt) {
			uint32_t seq = e->next_seq;

			pkt.cookie = (uint64_t)e->inc << 32 | seq;
			pkt.flags = e->resp_every && seq % e->resp_every == 0 &&
				    !e->implied ? PDC_PKT_F_WANT_RESP : 0;
			if (pdc_send(e->mgr, &pkt, s->now) < 0)
				break;
			e->next_seq++;
		}
	}
}

void t_sim_flush(struct t_sim *s)
{
	uint8_t buf[T_FRAME_MAX];
	uint32_t peer;
	uint16_t ev;
	ssize_t n;
	int i;

	for (i = 0; i < s->end_cnt; i++) {
		struct t_end *e = s->end[i];

		while (e->mgr &&
		       (n = pdc_tx_build_ev(e->mgr, buf, sizeof(buf), &peer,
					    &ev, s->now)) > 0) {
			s->tx_ev = ev;
			t_wire_send(s, i, (int)peer, buf, (size_t)n);
			s->tx_ev = 0;
		}
		cr_assert(!e->mgr || n == 0, "pdc_tx_build: %zd", n);
	}
}

static uint64_t t_sim_next(const struct t_sim *s)
{
	uint64_t next = s->q_cnt ? s->q[0]->at_ns : UINT64_MAX;
	int i;

	for (i = 0; i < s->end_cnt; i++) {
		uint64_t t = s->end[i]->mgr ?
			     pdc_next_timeout(s->end[i]->mgr) : UINT64_MAX;

		if (t < next)
			next = t;
	}
	return next;
}

bool t_sim_senders_done(struct t_sim *s)
{
	int i;

	for (i = 0; i < s->end_cnt; i++)
		if (s->end[i]->fin_cnt < s->end[i]->msg_cnt)
			return false;
	return true;
}

/*
 * Runs until |done| holds (or, without |done|, until nothing is left to
 * happen) or the clock passes |limit_ns|. Returns whether it finished.
 */
bool t_sim_run(struct t_sim *s, uint64_t limit_ns,
	       bool (*done)(struct t_sim *s))
{
	uint32_t iter;

	for (iter = 0; iter < T_ITER_MAX; iter++) {
		uint64_t next;

		t_sim_pump(s);
		t_sim_flush(s);
		if (done && done(s))
			return true;
		next = t_sim_next(s);
		if (next == UINT64_MAX) {
			/* Completions in the flush may have made room. */
			t_sim_pump(s);
			t_sim_flush(s);
			next = t_sim_next(s);
		}
		if (next == UINT64_MAX)
			return done ? done(s) : true;
		if (next > limit_ns) {
			s->now = limit_ns;
			return false;
		}
		if (next > s->now)
			s->now = next;
		t_wire_deliver(s);
	}
	cr_assert_fail("simulation did not settle");
	return false;
}
