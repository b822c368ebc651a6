/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Target PDCs against hostile peers: SYN floods cost only their host, a
 * forged SYN cannot reset a live PDC, cookies (NEW_START_PSN) of this and
 * the previous epoch confirm a SYN, unanswered challenges leave no state,
 * ops->admit refuses silently, and packets that match no PDC change none.
 * Attackers are hand-made frames from peers that are no end of the
 * simulation; what B answers them goes to the void (t_sim.void_ok).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "pdc/pdc_priv.h"	/* white-box: per-src counts, PDC fields */
#include "test/unit/pdc/test_pdc_sim.h"

#define T_SEC		1000000000ull
#define T_MS		1000000ull
#define T_ATK_PEER	100	/* attacker peer ids from here */
#define T_ATK_SRC	0xbad0000ull	/* attacker host digests from here */

TestSuite(pdc_admit, .timeout = 60);

/* A (end 0) sends to B (end 1); end 2, when asked for, is a third host. */
static struct t_sim *t_pair_idle(uint64_t seed, int ends, uint32_t b_max_pdcs,
				 uint64_t b_idle_ns)
{
	struct t_wire w = { .delay_ns = 5000, .jitter_ns = 2000 };
	struct t_sim *s = t_sim_new(&w, seed, ends);
	struct pdc_cfg cfg;
	int i;

	s->void_ok = true;
	for (i = 0; i < ends; i++) {
		t_cfg_lossy(&cfg, seed + (uint64_t)i);
		if (i == 1) {
			cfg.max_pdcs = b_max_pdcs;
			cfg.idle_ns = b_idle_ns;
		}
		t_end_start(s, i, &cfg);
	}
	return s;
}

static struct t_sim *t_pair(uint64_t seed, int ends, uint32_t b_max_pdcs)
{
	return t_pair_idle(seed, ends, b_max_pdcs, 0);
}

static int t_no_fill(void *ctx, uint64_t cookie, uint8_t *buf, size_t len)
{
	(void)ctx, (void)cookie, (void)buf, (void)len;
	return 0;
}

static void t_no_done(void *ctx, const struct pdc_tx_done *d)
{
	(void)ctx, (void)d;
}

static void t_no_event(void *ctx, const struct pdc_event *ev)
{
	(void)ctx, (void)ev;
}

static int t_no_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
			struct pdc_resp *resp)
{
	(void)ctx, (void)pkt, (void)resp;
	return 0;
}

static uint64_t t_rand(uint64_t *r)
{
	uint64_t z = (*r += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	return z ^ (z >> 27);
}

/* A SYN from (peer, src) straight into |to|'s manager. */
static void t_syn(struct t_sim *s, int to, uint32_t peer, uint64_t src,
		  uint16_t spdcid, uint32_t start, uint16_t offset)
{
	struct pdc_req h = {
		.pro = { .type = UET_PDS_TYPE_RUD_REQ,
			 .flags = UET_PDS_F_REQ_SYN | UET_PDS_F_REQ_AR,
			 .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD },
		.psn = start + offset, .spdcid = spdcid, .psn_offset = offset,
	};
	struct pdc_rx_meta meta = { .peer = peer, .src = src };
	uint8_t buf[T_FRAME_MAX];
	size_t len = t_req_frame(buf, &h, 2, 0);

	cr_assert_eq(pdc_rx_frame(s->end[to]->mgr, &meta, buf, len, s->now),
		     0);
}

/* Target PDCs of |src| at end |idx|, TIME_WAIT included. */
static uint32_t t_src_cnt(const struct t_sim *s, int idx, uint64_t src)
{
	const struct pdc_mgr *mgr = s->end[idx]->mgr;
	uint32_t i, n = 0;

	for (i = 0; i < mgr->cfg.max_pdcs; i++)
		n += mgr->tbl[i] && mgr->tbl[i]->role == PDC_ROLE_TGT &&
		     mgr->tbl[i]->src == src;
	return n;
}

/* Every message of A's first incarnation reached B exactly once. */
static void t_expect_all_once(const struct t_sim *s, uint32_t from,
			      uint32_t to)
{
	uint32_t seq, bad = 0;

	for (seq = from; seq < to; seq++)
		bad += s->end[1]->rx[0][0][0][seq] != 1;
	cr_expect_eq(bad, 0, "%u of A's messages not delivered once", bad);
}

/* ---- floods ------------------------------------------------------------- */

/*
 * 5,000 SYNs with random SPDCIDs and peer ids from one host while A opens
 * and uses a PDC: A's messages all complete through one PDC, never
 * evicted or reset, and the attacker never holds more than its share.
 */
Test(pdc_admit, flood_from_one_host_costs_only_that_host)
{
	struct t_sim *s = t_pair(61, 2, 256);
	struct t_end *a = s->end[0], *b = s->end[1];
	struct pdc_stats st;
	uint32_t i, max_cnt = 0, share = b->mgr->tgt_per_src;
	uint64_t r = 61;

	cr_assert_eq(share, 64);
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 3000, 3);
	for (i = 0; i < 5000; i++) {
		uint16_t id = (uint16_t)(1 + t_rand(&r) % 0xfffe);

		t_syn(s, 1, T_ATK_PEER + i, T_ATK_SRC, id,
		      (uint32_t)t_rand(&r) | 1, 0);
		if (t_src_cnt(s, 1, T_ATK_SRC) > max_cnt)
			max_cnt = t_src_cnt(s, 1, T_ATK_SRC);
		if (i % 10 == 0)
			t_sim_run(s, s->now + 2000, t_sim_senders_done);
	}
	cr_assert(t_sim_run(s, 10 * T_SEC, t_sim_senders_done));
	cr_expect_eq(a->ok_cnt, 3000, "A: %u ok, first err %d", a->ok_cnt,
		     a->first_err);
	cr_expect_eq(a->resp_bad, 0);
	t_expect_all_once(s, 0, 3000);
	cr_expect_eq(b->open_min[0][0][0], b->open_max[0][0][0],
		     "A's messages went through more than one PDC");
	cr_expect_eq(b->ev_cnt[PDC_EV_PEER_RESTART], 0);
	cr_expect_eq(a->ev_cnt[PDC_EV_FAILED], 0);
	cr_expect_leq(max_cnt, share);
	cr_expect_eq(max_cnt, share, "the share fills before cookies start");
	st = t_stats(s, 1);
	cr_expect_leq(st.pdcs, 256);
	cr_expect_eq(st.syn_challenged, 5000 - share);
	cr_expect_eq(st.syn_confirmed, 0);
	t_sim_free(s);
}

/*
 * Hosts that answer their cookies fill the table; once their PDCs are idle,
 * A's new PDC (its first one closed) gets in by eviction: no EBUSY.
 */
static void t_confirmed_flood(struct t_sim *s, uint32_t hosts, uint32_t syns)
{
	uint64_t r = 62;
	uint32_t i;

	t_sim_capture(s, 4);
	for (i = 0; i < syns; i++) {
		uint32_t peer = T_ATK_PEER + i;
		uint16_t id = (uint16_t)(1 + t_rand(&r) % 0xfffe);
		uint64_t src = T_ATK_SRC + i % hosts;
		const struct t_cap *c;
		struct pdc_nack n;

		s->cap_cnt = 0;
		t_syn(s, 1, peer, src, id, (uint32_t)t_rand(&r) | 1, 0);
		t_sim_flush(s);
		c = t_sim_find(s, 0, 1, UET_PDS_TYPE_NACK,
			       UET_PDS_NACK_NEW_START_PSN);
		if (!c || c->to != (int)peer)
			continue;	/* admitted at once */
		cr_assert_gt(pdc_nack_decode(&n, c->buf, c->len), 0);
		t_syn(s, 1, peer, src, id, n.payload, 0);
		t_sim_flush(s);
	}
	s->cap_max = 0;
}

Test(pdc_admit, flood_first_then_a_returning_initiator_gets_in)
{
	struct t_sim *s = t_pair(62, 2, 64);
	struct t_end *a = s->end[0];
	struct pdc_stats st;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, 100, 0);
	cr_assert(t_sim_run(s, T_SEC, t_sim_senders_done));
	cr_assert_eq(pdc_close(a->mgr, 1, PDC_MODE_RUD, s->now), 0);
	t_sim_run(s, s->now + 10 * T_MS, NULL);
	cr_assert_eq(t_stats(s, 0).pdcs, 0, "A's PDC closed");
	t_confirmed_flood(s, 8, 2000);
	st = t_stats(s, 1);
	cr_expect_eq(st.pdcs, 64, "the flood filled B");
	cr_expect_gt(st.syn_confirmed, 0);
	cr_expect_gt(st.nack_tx_code[UET_PDS_NACK_NO_PDC_AVAIL], 0);
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 200, 0);
	cr_assert(t_sim_run(s, s->now + 10 * T_SEC, t_sim_senders_done));
	cr_expect_eq(a->ok_cnt, 200, "A: %u ok, first err %d", a->ok_cnt,
		     a->first_err);
	cr_expect_eq(a->err_cnt, 0);
	t_expect_all_once(s, 0, 200);
	st = t_stats(s, 1);
	cr_expect_gt(st.tgt_evicted, 0);
	cr_expect_leq(st.pdcs, 64);
	t_sim_free(s);
}

/* From t_cut_at: B's ACKs to A lost, and from 50 us on A's resends too. */
static uint64_t t_cut_at, t_heal_at;

static bool t_cut_a(struct t_sim *s, int from, int to, const uint8_t *buf,
		    size_t len)
{
	(void)buf, (void)len;
	return s->now < t_cut_at || s->now >= t_heal_at || from + to != 1 ||
	       (from == 0 && s->now < t_cut_at + 50000);
}

/*
 * A's last message is delivered but its ACK lost, and A's resends too for
 * longer than two maximal RTOs: B, flooded, evicts A's quiet PDC. When
 * the path heals, A's resend finds B's record of the PDC: an ACK (asking
 * A to close), not INV_DPDCID, so the message completes, delivered once,
 * and A's next messages go on a new PDC. With |before| 0 the message is
 * the PDC's first: its resends are SYNs, found by their start PSN.
 */
static void t_late_resend(uint32_t before)
{
	struct t_sim *s = t_pair(63, 2, 64);
	struct t_end *a = s->end[0];

	t_end_plan(s, 0, 1, PDC_MODE_RUD, before, 0);
	cr_assert(t_sim_run(s, T_SEC, t_sim_senders_done));
	t_cut_at = s->now;
	t_heal_at = s->now + 20 * T_MS;
	s->tap = t_cut_a;
	t_end_plan(s, 0, 1, PDC_MODE_RUD, before + 1, 0);
	t_sim_run(s, s->now + 10 * T_MS, NULL);
	cr_assert_eq(a->ok_cnt, before, "the last waits for its ACK");
	t_confirmed_flood(s, 8, 2000);
	cr_assert_gt(t_stats(s, 1).tgt_evicted, 0, "A's PDC evicted");
	cr_assert(t_sim_run(s, s->now + T_SEC, t_sim_senders_done));
	t_end_plan(s, 0, 1, PDC_MODE_RUD, before + 10, 0);
	cr_assert(t_sim_run(s, s->now + 10 * T_SEC, t_sim_senders_done));
	cr_expect_eq(a->ok_cnt, before + 10, "A: %u ok, first err %d",
		     a->ok_cnt, a->first_err);
	cr_expect_eq(a->err_cnt, 0);
	t_expect_all_once(s, 0, before + 10);
	cr_expect_gt(t_stats(s, 1).tx_tomb_ack, 0);
	cr_expect_eq(t_stats(s, 0).peer_restarts, 0);
	t_sim_free(s);
}

Test(pdc_admit, a_late_resend_to_an_evicted_pdc_is_acked)
{
	t_late_resend(100);
}

Test(pdc_admit, a_late_syn_to_an_evicted_pdc_is_acked)
{
	t_late_resend(0);
}

/* ---- forged and genuine restarts --------------------------------------- */

/* A SYN from A's address with its live PDC's key and a far start PSN. */
Test(pdc_admit, forged_syn_cannot_reset_a_live_pdc)
{
	struct t_sim *s = t_pair(63, 2, 256);
	struct t_end *a = s->end[0], *b = s->end[1];
	struct pdc_req h = {
		.pro = { .type = UET_PDS_TYPE_RUD_REQ,
			 .flags = UET_PDS_F_REQ_SYN | UET_PDS_F_REQ_AR,
			 .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD },
	};
	struct pdc_stats before, after;
	uint8_t buf[T_FRAME_MAX];
	struct pdc_info info;
	uint32_t mark, i;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, 100, 0);
	cr_assert(t_sim_run(s, T_SEC, t_sim_senders_done));
	cr_assert_eq(pdc_info_get(a->mgr, 1, PDC_MODE_RUD, &info), 0);
	before = t_stats(s, 1);
	t_sim_capture(s, 64);
	h.spdcid = info.pdcid;
	h.psn = info.start_psn + 0x40000000u;
	t_sim_inject(s, 0, 1, buf, t_req_frame(buf, &h, 0, 5000));
	t_sim_run(s, s->now + T_MS, NULL);
	after = t_stats(s, 1);
	cr_expect_eq(after.syn_challenged, before.syn_challenged + 1);
	cr_expect_eq(after.pdc_created, before.pdc_created);
	cr_expect_eq(after.peer_restarts, 0);
	cr_expect_eq(b->ev_cnt[PDC_EV_PEER_RESTART], 0);
	cr_expect_eq(b->rx[0][0][0][5000], 0, "the forged packet delivered");
	/* B's only answer: a NEW_START_PSN NACK, which A finds stale. */
	for (mark = 0, i = 0; i < s->cap_cnt; i++)
		mark += s->cap[i].from == 1;
	cr_expect_eq(mark, 1);
	cr_expect_not_null(t_sim_find(s, 0, 1, UET_PDS_TYPE_NACK,
				      UET_PDS_NACK_NEW_START_PSN));
	cr_expect_eq(a->ev_cnt[PDC_EV_FAILED], 0);
	/* The live PDC goes on. */
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 200, 0);
	cr_assert(t_sim_run(s, s->now + T_SEC, t_sim_senders_done));
	cr_expect_eq(a->ok_cnt, 200);
	t_expect_all_once(s, 0, 200);
	cr_expect_eq(b->open_min[0][0][0], b->open_max[0][0][0]);
	t_sim_free(s);
}

/* A fresh manager with |cfg| that first opens PDCID |pdcid| to peer 1. */
static uint64_t t_seed_for_pdcid(const struct pdc_cfg *base, uint16_t pdcid,
				 uint32_t start)
{
	struct pdc_pkt pkt = { .peer = 1, .len = T_PAYLOAD_LEN,
			       .mode = PDC_MODE_RUD,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	static const struct pdc_ops ops = {
		.deliver = t_no_deliver, .fill = t_no_fill,
		.tx_done = t_no_done, .event = t_no_event,
	};
	struct pdc_info info;
	struct pdc_cfg cfg = *base;
	uint64_t seed;

	for (seed = 9000; seed < 10000; seed++) {
		struct pdc_mgr *mgr;

		cfg.seed = seed;
		mgr = pdc_mgr_create(&cfg, &ops, NULL);
		cr_assert(mgr);
		cr_assert_eq(pdc_send(mgr, &pkt, 0), 0);
		cr_assert_eq(pdc_info_get(mgr, 1, PDC_MODE_RUD, &info), 0);
		pdc_mgr_destroy(mgr);
		if (info.pdcid == pdcid && info.start_psn != start)
			return seed;
	}
	cr_assert_fail("no seed reuses PDCID %#x", pdcid);
	return 0;
}

/*
 * A restarts while its PDC at B is live, once under a new PDCID and once
 * reusing it: the new SYNs are challenged (the peer has a live PDC), come
 * back with the cookie, and open; a reused key retires the old PDC.
 */
static void t_genuine_restart(bool same_pdcid)
{
	struct t_sim *s = t_pair(64, 2, 256);
	struct t_end *a = s->end[0], *b = s->end[1];
	struct pdc_stats st;
	struct pdc_info info;
	uint64_t seed = 4321;
	uint32_t seq;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, 100, 0);
	cr_assert(t_sim_run(s, T_SEC, t_sim_senders_done));
	cr_assert_eq(pdc_info_get(a->mgr, 1, PDC_MODE_RUD, &info), 0);
	if (same_pdcid)
		seed = t_seed_for_pdcid(&a->cfg, info.pdcid, info.start_psn);
	t_end_restart(s, 0, seed);
	cr_assert(t_sim_run(s, s->now + T_SEC, t_sim_senders_done));
	cr_expect_eq(a->fin_cnt, 100);
	for (seq = 0; seq < 100; seq++) {
		cr_expect_eq(a->status[1][seq], 0);
		cr_expect_eq(b->rx[0][0][1][seq], 1);
	}
	cr_expect_eq(b->rx_mix, 0);
	st = t_stats(s, 1);
	cr_expect_geq(st.syn_challenged, 1);
	cr_expect_geq(st.syn_confirmed, 1);
	cr_expect_eq(st.peer_restarts, same_pdcid ? 1 : 0);
	cr_expect_eq(b->ev_cnt[PDC_EV_PEER_RESTART], same_pdcid ? 1 : 0);
	t_sim_free(s);
}

Test(pdc_admit, genuine_restart_passes_with_a_cookie)
{
	t_genuine_restart(false);
}

Test(pdc_admit, genuine_restart_reusing_its_pdcid_retires_the_old_pdc)
{
	t_genuine_restart(true);
}

/* ---- cookies ------------------------------------------------------------ */

/* The NEW_START_PSN payload B sent since capture index |mark|, or 0. */
static uint32_t t_cookie_sent(const struct t_sim *s, uint32_t mark)
{
	const struct t_cap *c = t_sim_find(s, mark, 1, UET_PDS_TYPE_NACK,
					   UET_PDS_NACK_NEW_START_PSN);
	struct pdc_nack n;

	if (!c)
		return 0;
	cr_assert_gt(pdc_nack_decode(&n, c->buf, c->len), 0);
	return n.payload;
}

static bool t_acked(const struct t_sim *s, uint32_t mark)
{
	return t_sim_find(s, mark, 1, UET_PDS_TYPE_ACK, 0) != NULL;
}

/* B answers peer 5 (a host with a live PDC at B) with a cookie or an ACK. */
static void t_syn5(struct t_sim *s, uint16_t id, uint32_t start)
{
	t_syn(s, 1, 5, T_ATK_SRC, id, start, 0);
	t_sim_flush(s);
}

Test(pdc_admit, cookie_of_the_previous_epoch_confirms_an_expired_does_not)
{
	struct t_sim *s = t_pair(65, 2, 256);
	uint32_t c1, c2, c3, mark;

	s->now = 5ull << 32;
	t_sim_capture(s, 256);
	t_syn5(s, 1, 1000);	/* 0-RTT: peer 5 now has a live PDC */
	cr_assert(t_acked(s, 0));
	mark = s->cap_cnt;
	t_syn5(s, 2, 2000000);
	c1 = t_cookie_sent(s, mark);
	cr_assert_neq(c1, 0);
	/* The next epoch: c1 still confirms. */
	s->now += 1ull << 32;
	mark = s->cap_cnt;
	t_syn5(s, 2, c1);
	cr_expect(t_acked(s, mark));
	cr_expect_eq(t_cookie_sent(s, mark), 0);
	/* A cookie two epochs old, or a wrong one, is challenged again. */
	mark = s->cap_cnt;
	t_syn5(s, 3, 3000000);
	c2 = t_cookie_sent(s, mark);
	cr_assert_neq(c2, 0);
	s->now += 2ull << 32;
	mark = s->cap_cnt;
	t_syn5(s, 3, c2);
	c3 = t_cookie_sent(s, mark);
	cr_expect_neq(c3, 0);
	cr_expect_neq(c3, c2);
	cr_expect(!t_acked(s, mark));
	mark = s->cap_cnt;
	t_syn5(s, 3, c3 + 1);
	cr_expect_eq(t_cookie_sent(s, mark), c3);
	cr_expect(!t_acked(s, mark));
	mark = s->cap_cnt;
	t_syn5(s, 3, c3);
	cr_expect(t_acked(s, mark));
	cr_expect_eq(t_stats(s, 1).syn_confirmed, 2);
	cr_expect_eq(t_stats(s, 1).syn_challenged, 4);
	t_sim_free(s);
}

/*
 * Spoofed SYNs whose cookies never come back keep nothing: once the
 * attacker's share is full, and for SYNs forged with A's address.
 */
Test(pdc_admit, unanswered_challenges_leave_no_state)
{
	struct t_sim *s = t_pair(66, 2, 256);
	struct pdc_stats st0, st1;
	uint64_t r = 66;
	uint32_t i;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, 10, 0);
	cr_assert(t_sim_run(s, T_SEC, t_sim_senders_done));
	for (i = 0; i < 64; i++)
		t_syn(s, 1, T_ATK_PEER + i, T_ATK_SRC, 7, 1000, 0);
	t_sim_run(s, s->now + T_MS, NULL);
	st0 = t_stats(s, 1);
	cr_assert_eq(st0.pdcs, 65);
	for (i = 0; i < 1000; i++) {
		uint16_t id = (uint16_t)(1 + t_rand(&r) % 0xfffe);
		uint32_t start = (uint32_t)t_rand(&r) | 1;

		t_syn(s, 1, T_ATK_PEER + 64 + i, T_ATK_SRC, id, start, 0);
		t_syn(s, 1, 0, 1, id, start, (uint16_t)(i % 200));
	}
	t_sim_run(s, s->now + T_MS, NULL);
	st1 = t_stats(s, 1);
	cr_expect_eq(st1.pdcs, st0.pdcs);
	cr_expect_eq(st1.state_len, st0.state_len);
	cr_expect_eq(st1.pdc_created, st0.pdc_created);
	cr_expect_eq(st1.syn_challenged, st0.syn_challenged + 2000);
	cr_expect_eq(st1.rx_delivered, st0.rx_delivered);
	cr_expect_eq(s->end[0]->ev_cnt[PDC_EV_FAILED], 0);
	t_sim_free(s);
}

/* ---- ops->admit --------------------------------------------------------- */

struct t_admit_ctx {
	uint32_t admit_calls, deliver_calls;
	int verdict;
};

static int t_admit(void *ctx, const struct pdc_rx_pkt *pkt)
{
	struct t_admit_ctx *c = ctx;

	cr_expect_eq(pkt->pdcid, 0);
	cr_expect_eq(pkt->open_seq, 0);
	cr_expect_eq(pkt->len, T_PAYLOAD_LEN);
	c->admit_calls++;
	return c->verdict;
}

static int t_count_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
			   struct pdc_resp *resp)
{
	struct t_admit_ctx *c = ctx;

	(void)pkt;
	(void)resp;
	c->deliver_calls++;
	return 0;
}

Test(pdc_admit, refused_by_admit_leaves_nothing_and_sends_nothing)
{
	static const struct pdc_ops ops = {
		.admit = t_admit, .deliver = t_count_deliver,
		.fill = t_no_fill, .tx_done = t_no_done, .event = t_no_event,
	};
	struct pdc_req h = {
		.pro = { .type = UET_PDS_TYPE_RUD_REQ,
			 .flags = UET_PDS_F_REQ_SYN | UET_PDS_F_REQ_AR,
			 .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD },
		.psn = 777, .spdcid = 9,
	};
	struct t_admit_ctx ctx = { .verdict = -EPERM };
	struct pdc_rx_meta meta = { .peer = 3, .src = 3 };
	uint8_t buf[T_FRAME_MAX], out[T_FRAME_MAX];
	size_t len = t_req_frame(buf, &h, 0, 0);
	struct pdc_stats st;
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;
	uint32_t peer;

	pdc_cfg_init(&cfg);
	mgr = pdc_mgr_create(&cfg, &ops, &ctx);
	cr_assert(mgr);
	cr_expect_eq(pdc_rx_frame(mgr, &meta, buf, len, 1000), 0);
	cr_expect_eq(pdc_tx_build(mgr, out, sizeof(out), &peer, 1000), 0);
	pdc_mgr_stats(mgr, &st);
	cr_expect_eq(st.pdcs, 0);
	cr_expect_eq(st.rx_refused, 1);
	cr_expect_eq(st.tx_nack, 0);
	cr_expect_eq(st.syn_challenged, 0);
	cr_expect_eq(ctx.admit_calls, 1);
	cr_expect_eq(ctx.deliver_calls, 0);
	cr_expect(!pdc_peer_in_use(mgr, 3));
	/* Admitted, the same SYN opens a PDC and is delivered. */
	ctx.verdict = 0;
	cr_expect_eq(pdc_rx_frame(mgr, &meta, buf, len, 2000), 0);
	pdc_mgr_stats(mgr, &st);
	cr_expect_eq(st.pdcs, 1);
	cr_expect_eq(ctx.deliver_calls, 1);
	cr_expect_gt(pdc_tx_build(mgr, out, sizeof(out), &peer, 2000), 0);
	pdc_mgr_destroy(mgr);
}

/* ---- packets that match no PDC change none ------------------------------ */

struct t_tgt_snap {
	uint32_t cack, last_psn, ack_cnt, ack_len;
	uint64_t ack_at, last_rx, wake;
	uint8_t close_req_cnt;
	bool ack_now;
};

static void t_snap(const struct pdc *p, struct t_tgt_snap *t)
{
	memset(t, 0, sizeof(*t));
	t->cack = p->tgt.cack_psn;
	t->last_psn = p->tgt.last_psn;
	t->ack_cnt = p->tgt.ack_cnt;
	t->ack_len = p->tgt.ack_len;
	t->ack_at = p->tgt.ack_at;
	t->last_rx = p->tgt.last_rx_ns;
	t->wake = p->wake_ns;
	t->close_req_cnt = p->tgt.close_req_cnt;
	t->ack_now = p->tgt.ack_now;
}

/* A non-SYN request from |peer| naming (spdcid -> dpdcid), to B. */
static void t_plain_req(struct t_sim *s, uint32_t peer, uint64_t src,
			uint16_t spdcid, uint16_t dpdcid, uint32_t psn)
{
	struct pdc_req h = {
		.pro = { .type = UET_PDS_TYPE_RUD_REQ,
			 .flags = UET_PDS_F_REQ_AR,
			 .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD },
		.psn = psn, .spdcid = spdcid, .dpdcid = dpdcid,
	};
	struct pdc_rx_meta meta = { .peer = peer, .src = src };
	uint8_t buf[T_FRAME_MAX];
	size_t len = t_req_frame(buf, &h, 0, 6000);

	cr_assert_eq(pdc_rx_frame(s->end[1]->mgr, &meta, buf, len, s->now),
		     0);
}

Test(pdc_admit, mismatched_and_unknown_packets_change_no_pdc)
{
	struct t_sim *s = t_pair_idle(67, 3, 256, 50 * T_MS);
	struct t_end *a = s->end[0], *b = s->end[1];
	struct t_tgt_snap before, after;
	struct pdc_info info;
	struct pdc_stats st0, st1;
	const struct pdc *p;
	uint32_t peer, psn;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, 20, 0);
	cr_assert(t_sim_run(s, T_SEC, t_sim_senders_done));
	cr_assert_eq(pdc_info_get(a->mgr, 1, PDC_MODE_RUD, &info), 0);
	p = pdc_by_id(b->mgr, info.remote_pdcid);
	cr_assert_not_null(p);
	cr_assert_eq(pdc_local_peer(b->mgr, info.remote_pdcid, false, &peer),
		     0);
	cr_assert_eq(peer, 0);
	t_snap(p, &before);
	st0 = t_stats(s, 1);
	s->now += 10 * T_MS;
	psn = info.next_psn;
	/* Right DPDCID, wrong SPDCID; right ids from another peer; an
	 * unknown DPDCID; each at the next PSN and past it. */
	t_plain_req(s, 0, 1, (uint16_t)(info.pdcid ^ 0x100),
		    info.remote_pdcid, psn);
	t_plain_req(s, 2, 3, info.pdcid, info.remote_pdcid, psn + 1);
	t_plain_req(s, 2, 3, info.pdcid, info.remote_pdcid, psn);
	t_plain_req(s, 0, 1, info.pdcid,
		    (uint16_t)(info.remote_pdcid ^ 0x4000), psn);
	t_snap(p, &after);
	t_sim_flush(s);
	st1 = t_stats(s, 1);
	cr_expect_eq(st1.nack_tx_code[UET_PDS_NACK_PDC_HDR_MISMATCH],
		     st0.nack_tx_code[UET_PDS_NACK_PDC_HDR_MISMATCH] + 3);
	cr_expect_eq(st1.nack_tx_code[UET_PDS_NACK_INV_DPDCID],
		     st0.nack_tx_code[UET_PDS_NACK_INV_DPDCID] + 1);
	cr_expect_eq(st1.rx_delivered, st0.rx_delivered);
	cr_expect_eq(st1.pdcs, st0.pdcs);
	cr_expect_eq(memcmp(&before, &after, sizeof(before)), 0,
		     "a mismatched packet moved the PDC's state");
	cr_expect_eq(b->rx[0][0][0][6000 % T_MSGS_MAX], 0);
	/*
	 * The NACKs reach A while it has nothing in flight: stale there. (Had
	 * A been sending those PSNs, the INV_DPDCID one would have failed its
	 * PDC: the NACKs are stateless, as they must be, and trust the sender
	 * address and ids as far as a blind forger cannot guess them.)
	 */
	t_sim_run(s, s->now + T_MS, NULL);
	cr_expect_eq(a->ev_cnt[PDC_EV_FAILED], 0);
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 40, 0);
	cr_assert(t_sim_run(s, s->now + T_SEC, t_sim_senders_done));
	cr_expect_eq(a->ok_cnt, 40);
	t_expect_all_once(s, 0, 40);
	t_sim_free(s);
}

/* ---- the initiator side of a challenge --------------------------------- */

/*
 * A already has a ROD PDC at B, so its RUD PDC's first window of SYN
 * packets is challenged, each drawing the same cookie: A renumbers once,
 * the other NACKs are stale, nothing fails, nothing arrives twice.
 */
Test(pdc_admit, a_challenged_window_renumbers_once)
{
	struct t_sim *s = t_pair(69, 2, 256);
	struct t_end *a = s->end[0], *b = s->end[1];
	struct pdc_stats sa, sb;
	struct pdc_info info;
	uint32_t seq;

	s->wire.jitter_ns = 0;
	t_end_plan(s, 0, 1, PDC_MODE_ROD, 1, 0);
	cr_assert(t_sim_run(s, T_SEC, t_sim_senders_done));
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 1 + a->cfg.cwnd_init, 0);
	cr_assert(t_sim_run(s, s->now + T_SEC, t_sim_senders_done));
	cr_expect_eq(a->ok_cnt, 1 + a->cfg.cwnd_init);
	cr_expect_eq(a->err_cnt, 0);
	cr_expect_eq(a->done_dup, 0);
	for (seq = 0; seq <= a->cfg.cwnd_init; seq++)
		cr_expect_eq(b->rx[0][0][0][seq], 1, "seq %u: %u", seq,
			     b->rx[0][0][0][seq]);
	sb = t_stats(s, 1);
	sa = t_stats(s, 0);
	cr_expect_eq(sb.syn_challenged, a->cfg.cwnd_init);
	cr_expect_eq(sb.syn_confirmed, 1);
	cr_expect_eq(sa.nack_rx_code[UET_PDS_NACK_NEW_START_PSN],
		     a->cfg.cwnd_init);
	cr_expect_geq(sa.rx_stale, a->cfg.cwnd_init - 1);
	cr_assert_eq(pdc_info_get(a->mgr, 1, PDC_MODE_RUD, &info), 0);
	cr_expect_eq(info.start_psn,
		     pdc_cookie(b->mgr, 1, info.pdcid, s->now));
	t_sim_free(s);
}

/*
 * The race a cookie opens: a window's first SYN is challenged, the pressure
 * goes, a later SYN of the same window opens its PDC at once (0-RTT) and is
 * delivered; the initiator, renumbered to the cookie, resends. Its SYN at
 * the cookie must not open a second PDC that delivers the packet again.
 */
Test(pdc_admit, challenge_then_admit_race_delivers_once)
{
	struct t_sim *s = t_pair(70, 2, 256);
	struct pdc_ctl close = {
		.pro = { .type = UET_PDS_TYPE_CONTROL,
			 .next_hdr = UET_PDS_CTL_CLOSE },
		.psn = 1001, .spdcid = 1,
	};
	struct pdc_rx_meta meta = { .peer = 5, .src = T_ATK_SRC };
	uint32_t c, calls, mark;
	uint8_t buf[T_FRAME_MAX];
	const struct t_cap *ack;
	struct pdc_ack a;
	ssize_t n;

	t_sim_capture(s, 256);
	t_syn5(s, 1, 1000);	/* peer 5 has a live PDC: cookies needed */
	ack = t_sim_find(s, 0, 1, UET_PDS_TYPE_ACK, 0);
	cr_assert_not_null(ack);
	cr_assert_gt(pdc_ack_decode(&a, ack->buf, ack->len), 0);
	mark = s->cap_cnt;
	t_syn(s, 1, 5, T_ATK_SRC, 2, 5000000, 0);
	t_sim_flush(s);
	c = t_cookie_sent(s, mark);
	cr_assert_neq(c, 0);
	/* The live PDC closes: no more reason for a cookie. */
	close.dpdcid = a.spdcid;
	n = pdc_ctl_encode(buf, sizeof(buf), &close);
	cr_assert_gt(n, 0);
	cr_assert_eq(pdc_rx_frame(s->end[1]->mgr, &meta, buf, (size_t)n,
				  s->now), 0);
	t_sim_flush(s);
	calls = s->end[1]->deliver_calls;
	t_syn(s, 1, 5, T_ATK_SRC, 2, 5000000, 1);	/* 0-RTT now */
	cr_expect_eq(s->end[1]->deliver_calls, calls + 1);
	mark = s->cap_cnt;
	t_syn(s, 1, 5, T_ATK_SRC, 2, c, 1);	/* renumbered: refused */
	t_sim_flush(s);
	cr_expect_eq(s->end[1]->deliver_calls, calls + 1);
	cr_expect_not_null(t_sim_find(s, mark, 1, UET_PDS_TYPE_NACK,
				      UET_PDS_NACK_INV_DPDCID));
	t_sim_free(s);
}

/* Hosts that filled our table with PDCs to us do not stop us sending. */
Test(pdc_admit, a_full_table_still_opens_our_own_pdc)
{
	struct t_sim *s = t_pair(63, 2, 64);
	struct t_end *b = s->end[1];
	struct pdc_stats st;

	t_confirmed_flood(s, 8, 2000);
	cr_assert_eq(t_stats(s, 1).pdcs, 64, "the flood filled B");
	t_sim_run(s, s->now + 20 * T_MS, NULL);
	s->now += 20 * T_MS;	/* their PDCs go idle */
	t_end_plan(s, 1, 0, PDC_MODE_RUD, 50, 0);
	cr_assert(t_sim_run(s, s->now + 10 * T_SEC, t_sim_senders_done));
	cr_expect_eq(b->ok_cnt, 50, "B: %u ok, first err %d", b->ok_cnt,
		     b->first_err);
	st = t_stats(s, 1);
	cr_expect_gt(st.tgt_evicted, 0);
	cr_expect_leq(st.pdcs, 64);
	t_sim_free(s);
}
