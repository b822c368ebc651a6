/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The wire of the PDC test simulation (test_pdc_sim.h): a queue of frames
 * by arrival time, loss, duplication, CE marks and jitter from a seeded
 * PRNG, the window check on requests, and frame capture.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test/unit/pdc/test_pdc_sim.h"

static uint64_t t_rand(struct t_sim *s)
{
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool t_chance(struct t_sim *s, uint32_t ppm)
{
	return ppm && t_rand(s) % T_PPM < ppm;
}

static void t_q_push(struct t_sim *s, struct t_frame *f)
{
	uint32_t i;

	if (s->q_cnt == s->q_cap) {
		s->q_cap = s->q_cap ? 2 * s->q_cap : 1024;
		s->q = realloc(s->q, s->q_cap * sizeof(*s->q));
		cr_assert(s->q);
	}
	for (i = s->q_cnt++; i > 0; i = (i - 1) / 2) {
		struct t_frame *up = s->q[(i - 1) / 2];

		if (up->at_ns < f->at_ns ||
		    (up->at_ns == f->at_ns && up->seq < f->seq))
			break;
		s->q[i] = up;
	}
	s->q[i] = f;
}

static bool t_q_less(const struct t_frame *a, const struct t_frame *b)
{
	return a->at_ns < b->at_ns || (a->at_ns == b->at_ns && a->seq < b->seq);
}

static struct t_frame *t_q_pop(struct t_sim *s)
{
	struct t_frame *top = s->q[0], *last = s->q[--s->q_cnt];
	uint32_t i = 0, c;

	while ((c = 2 * i + 1) < s->q_cnt) {
		if (c + 1 < s->q_cnt && t_q_less(s->q[c + 1], s->q[c]))
			c++;
		if (!t_q_less(s->q[c], last))
			break;
		s->q[i] = s->q[c];
		i = c;
	}
	if (s->q_cnt)
		s->q[i] = last;
	return top;
}

static bool t_is_reply(uint8_t type)
{
	return type == UET_PDS_TYPE_ACK || type == UET_PDS_TYPE_ACK_CC ||
	       type == UET_PDS_TYPE_NACK;
}

/* Requests may run at most win_limit PSNs past the latest cack we saw. */
static void t_track_tx(struct t_sim *s, int from, const uint8_t *buf,
		       size_t len)
{
	struct pdc_req req;
	struct t_track *t;
	int32_t ahead;

	if (pdc_req_decode(&req, buf, len) < 0)
		return;
	t = &s->track[(size_t)from * 65536 + req.spdcid];
	if ((req.pro.flags & UET_PDS_F_REQ_SYN) && !t->known) {
		t->known = true;
		t->cack = req.psn - req.psn_offset - 1;
	}
	if (!t->known)
		return;
	ahead = pdc_psn_diff(req.psn, t->cack);
	if (ahead > (int32_t)s->max_ahead)
		s->max_ahead = (uint32_t)ahead;
	if (s->win_limit && ahead > (int32_t)s->win_limit)
		s->win_violations++;
}

static void t_track_rx(struct t_sim *s, int to, const uint8_t *buf,
		       size_t len)
{
	struct pdc_ack ack;
	struct t_track *t;

	if (pdc_ack_decode(&ack, buf, len) < 0)
		return;
	t = &s->track[(size_t)to * 65536 + ack.dpdcid];
	if (t->known && pdc_psn_after(ack.cack_psn, t->cack))
		t->cack = ack.cack_psn;
}

/* A request, now and then, cut to its PDS header and 4 bytes of SES. */
static void t_wire_trim(struct t_sim *s, struct t_frame *f)
{
	uint8_t type = f->len ? f->buf[0] >> 3 : 0;

	if ((type != UET_PDS_TYPE_RUD_REQ && type != UET_PDS_TYPE_ROD_REQ) ||
	    f->len <= UET_PDS_RUD_REQ_LEN + 4 ||
	    !t_chance(s, s->wire.trim_ppm))
		return;
	f->len = UET_PDS_RUD_REQ_LEN + 4;
	f->trim = PDC_TRIM;
	s->trimmed++;
}

static void t_wire_put(struct t_sim *s, int from, int to, const uint8_t *buf,
		       size_t len)
{
	struct t_frame *f = calloc(1, sizeof(*f));

	cr_assert(f && len <= T_FRAME_MAX);
	f->from = from;
	f->to = to;
	f->len = len;
	memcpy(f->buf, buf, len);
	f->ce = t_chance(s, s->wire.ce_ppm);
	t_wire_trim(s, f);
	f->ev = s->tx_ev;
	f->seq = s->frame_seq++;
	f->at_ns = s->now + s->wire.delay_ns +
		   s->wire.path_delay_ns[t_path_of(s, s->tx_ev)] +
		   (s->wire.jitter_ns ? t_rand(s) % s->wire.jitter_ns : 0);
	t_q_push(s, f);
}

/* The path of entropy |ev|: a multiplicative hash, as ECMP's would mix. */
uint32_t t_path_of(const struct t_sim *s, uint16_t ev)
{
	if (s->wire.paths < 2)
		return 0;
	return (uint32_t)(((uint64_t)ev * 2654435761u) >> 16) % s->wire.paths;
}

void t_wire_send(struct t_sim *s, int from, int to, const uint8_t *buf,
		 size_t len)
{
	struct pdc_prologue pro;

	if (!s->void_ok)
		cr_assert(to >= 0 && to < s->end_cnt, "bad peer %d", to);
	s->frames++;
	if (s->cap_cnt < s->cap_max) {
		struct t_cap *c = &s->cap[s->cap_cnt++];

		c->from = from;
		c->to = to;
		c->at_ns = s->now;
		c->len = len;
		memcpy(c->buf, buf, len);
	}
	if (to < 0 || to >= s->end_cnt) {
		s->void_frames++;	/* captured, then gone */
		return;
	}
	if (pdc_prologue_decode(&pro, buf, len) >= 0 &&
	    (pro.type == UET_PDS_TYPE_RUD_REQ || pro.type == UET_PDS_TYPE_ROD_REQ))
		t_track_tx(s, from, buf, len);
	s->path_frames[t_path_of(s, s->tx_ev)]++;
	if (s->wire.path_dead[t_path_of(s, s->tx_ev)]) {
		s->path_lost[t_path_of(s, s->tx_ev)]++;
		s->dropped++;
		return;
	}
	if ((s->tap && !s->tap(s, from, to, buf, len)) || s->wire.black_hole ||
	    t_chance(s, s->wire.loss_ppm) ||
	    (t_is_reply(pro.type) && t_chance(s, s->wire.reply_loss_ppm))) {
		s->dropped++;
		return;
	}
	t_wire_put(s, from, to, buf, len);
	if (t_chance(s, s->wire.dup_ppm)) {
		s->dups++;
		t_wire_put(s, from, to, buf, len);
	}
}

void t_sim_capture(struct t_sim *s, uint32_t max)
{
	free(s->cap);
	s->cap = calloc(max, sizeof(*s->cap));
	cr_assert(s->cap);
	s->cap_cnt = 0;
	s->cap_max = max;
}

/*
 * The first captured frame from index |from_idx| on that end |from| sent
 * with PDS |type| and, for NACKs and control packets, |code| (nack_code or
 * ctl_type; ignored for other types). NULL when there is none.
 */
const struct t_cap *t_sim_find(const struct t_sim *s, uint32_t from_idx,
			       int from, uint8_t type, uint8_t code)
{
	uint32_t i;

	for (i = from_idx; i < s->cap_cnt; i++) {
		const struct t_cap *c = &s->cap[i];
		struct pdc_hdr h;

		if (c->from != from || pdc_hdr_decode(&h, c->buf, c->len) < 0 ||
		    h.pro.type != type)
			continue;
		if (type == UET_PDS_TYPE_NACK && h.nack.nack_code != code)
			continue;
		if (type == UET_PDS_TYPE_CONTROL && h.pro.next_hdr != code)
			continue;
		return c;
	}
	return NULL;
}

/* Puts a hand-made frame on the wire, past the tap and the losses. */
void t_sim_inject(struct t_sim *s, int from, int to, const uint8_t *buf,
		  size_t len)
{
	t_wire_put(s, from, to, buf, len);
}

void t_wire_deliver(struct t_sim *s)
{
	while (s->q_cnt && s->q[0]->at_ns <= s->now) {
		struct t_frame *f = t_q_pop(s);
		/* One host per end; src 0 stays free for hand-made frames. */
		struct pdc_rx_meta meta = { .peer = (uint32_t)f->from,
					    .src = (uint64_t)f->from + 1,
					    .ecn_ce = f->ce, .ev = f->ev,
					    .trim = f->trim };
		struct t_end *e = s->end[f->to];

		if (e->mgr) {
			t_track_rx(s, f->to, f->buf, f->len);
			pdc_rx_frame(e->mgr, &meta, f->buf, f->len, s->now);
		}
		free(f);
	}
}
