/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NACK code paths (ref 2.6). Target side: hand-made requests make B answer
 * INV_DPDCID, PDC_HDR_MISMATCH, PDC_MODE_MISMATCH, PSN_OOR_WINDOW, ROD_OOO,
 * CLOSING, NEW_START_PSN, INVALID_SYN and NO_PDC_AVAIL, each without
 * delivering. Initiator side: hand-made NACKs make A renumber, fail with
 * the right error, or ignore a stray.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test/unit/pdc/test_pdc_sim.h"

#define T_RUN_NS	200000ull

TestSuite(pdc_nackpath, .timeout = 30);

static struct t_sim *t_new_per_src(uint32_t window, uint32_t max_pdcs,
				    uint32_t per_src)
{
	struct t_wire w = { .delay_ns = 1000 };
	struct t_sim *s = t_sim_new(&w, 41, 2);
	struct pdc_cfg cfg;

	t_cfg_lossy(&cfg, 41);
	t_end_start(s, 0, &cfg);
	cfg.seed = 42;
	cfg.window = window;
	cfg.max_pdcs = max_pdcs;
	cfg.tgt_max_per_src = per_src;
	t_end_start(s, 1, &cfg);
	t_sim_capture(s, 4096);
	return s;
}

static struct t_sim *t_new(uint32_t window, uint32_t max_pdcs)
{
	return t_new_per_src(window, max_pdcs, 0);
}

static void t_run(struct t_sim *s)
{
	t_sim_run(s, s->now + T_RUN_NS, NULL);
}

/* A request from end 0 to B; |dpdcid| is the psn_offset when SYN is set. */
static void t_req(struct t_sim *s, uint8_t type, uint8_t flags, uint32_t psn,
		  uint16_t spdcid, uint16_t dpdcid, uint32_t seq)
{
	bool syn = flags & UET_PDS_F_REQ_SYN;
	struct pdc_req h = {
		.pro = { .type = type, .flags = flags,
			 .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD },
		.psn = psn, .spdcid = spdcid,
		.dpdcid = syn ? 0 : dpdcid,
		.psn_offset = syn ? dpdcid : 0,
	};
	uint8_t buf[T_FRAME_MAX];

	t_sim_inject(s, 0, 1, buf, t_req_frame(buf, &h, 0, seq));
	t_run(s);
}

static void t_ctl(struct t_sim *s, uint8_t ctl_type, uint32_t psn,
		  uint16_t spdcid, uint16_t dpdcid)
{
	struct pdc_ctl c = {
		.pro = { .type = UET_PDS_TYPE_CONTROL, .next_hdr = ctl_type },
		.psn = psn, .spdcid = spdcid, .dpdcid = dpdcid,
	};
	uint8_t buf[T_FRAME_MAX];
	ssize_t n = pdc_ctl_encode(buf, sizeof(buf), &c);

	cr_assert_gt(n, 0);
	t_sim_inject(s, 0, 1, buf, (size_t)n);
	t_run(s);
}

/* The NACK B sent since capture index |from|; fails when there is none. */
static struct pdc_nack t_nack(struct t_sim *s, uint32_t from, uint8_t code)
{
	const struct t_cap *c = t_sim_find(s, from, 1, UET_PDS_TYPE_NACK, code);
	struct pdc_nack n;

	cr_assert_not_null(c, "no NACK %s", pdc_nack_code_name(code));
	cr_assert_gt(pdc_nack_decode(&n, c->buf, c->len), 0);
	return n;
}

/* Opens a target PDC at B with a SYN at |psn|; returns B's PDCID. */
static uint16_t t_open(struct t_sim *s, uint8_t type, uint32_t psn,
		       uint16_t spdcid)
{
	uint32_t mark = s->cap_cnt;
	const struct t_cap *c;
	struct pdc_ack ack;

	t_req(s, type, UET_PDS_F_REQ_SYN | UET_PDS_F_REQ_AR, psn, spdcid, 0, 0);
	c = t_sim_find(s, mark, 1, UET_PDS_TYPE_ACK, 0);
	cr_assert_not_null(c);
	cr_assert_gt(pdc_ack_decode(&ack, c->buf, c->len), 0);
	cr_expect_eq(ack.cack_psn, psn);
	cr_expect_eq(ack.dpdcid, spdcid);
	return ack.spdcid;
}

Test(pdc_nackpath, inv_dpdcid_for_unknown_pdc)
{
	struct t_sim *s = t_new(256, 16);
	struct pdc_nack n;

	t_req(s, UET_PDS_TYPE_RUD_REQ, 0, 1000, 0x42, 0x1234, 0);
	n = t_nack(s, 0, UET_PDS_NACK_INV_DPDCID);
	cr_expect_eq(n.dpdcid, 0x42);
	cr_expect_eq(n.spdcid, 0);
	cr_expect_eq(n.nack_psn, 1000);
	cr_expect_eq(s->end[1]->rx_cnt, 0);
	t_sim_free(s);
}

Test(pdc_nackpath, mismatches_and_window)
{
	struct t_sim *s = t_new(256, 16);
	uint16_t id = t_open(s, UET_PDS_TYPE_RUD_REQ, 5000, 0x42);
	uint32_t mark = s->cap_cnt;
	struct pdc_nack n;

	cr_expect_eq(s->end[1]->rx_cnt, 1);
	t_req(s, UET_PDS_TYPE_RUD_REQ, 0, 5001, 0x43, id, 1);
	t_nack(s, mark, UET_PDS_NACK_PDC_HDR_MISMATCH);
	mark = s->cap_cnt;
	t_req(s, UET_PDS_TYPE_ROD_REQ, 0, 5001, 0x42, id, 1);
	t_nack(s, mark, UET_PDS_NACK_PDC_MODE_MISMATCH);
	mark = s->cap_cnt;
	t_req(s, UET_PDS_TYPE_RUD_REQ, 0, 5000 + 257, 0x42, id, 2);
	n = t_nack(s, mark, UET_PDS_NACK_PSN_OOR_WINDOW);
	cr_expect_eq(n.payload, 5001, "the PSN B expects");
	cr_expect_eq(n.spdcid, id);
	cr_expect_eq(s->end[1]->rx_cnt, 1, "nothing refused was delivered");
	/* The window's last PSN is still taken. */
	t_req(s, UET_PDS_TYPE_RUD_REQ, 0, 5000 + 256, 0x42, id, 3);
	cr_expect_eq(s->end[1]->rx_cnt, 2);
	t_sim_free(s);
}

Test(pdc_nackpath, rod_out_of_order)
{
	struct t_sim *s = t_new(256, 16);
	uint16_t id = t_open(s, UET_PDS_TYPE_ROD_REQ, 70, 0x50);
	uint32_t mark = s->cap_cnt;
	struct pdc_nack n;

	t_req(s, UET_PDS_TYPE_ROD_REQ, 0, 72, 0x50, id, 2);
	n = t_nack(s, mark, UET_PDS_NACK_ROD_OOO);
	cr_expect_eq(n.nack_psn, 72);
	cr_expect_eq(n.payload, 71);
	cr_expect_eq(s->end[1]->rx_cnt, 1);
	t_req(s, UET_PDS_TYPE_ROD_REQ, 0, 71, 0x50, id, 1);
	t_req(s, UET_PDS_TYPE_ROD_REQ, 0, 72, 0x50, id, 2);
	cr_expect_eq(s->end[1]->rx_cnt, 3);
	cr_expect_eq(s->end[1]->rx_order_err, 0);
	t_sim_free(s);
}

/* After CLOSE: later PSNs get CLOSING, a stray SYN is a duplicate. */
Test(pdc_nackpath, closing_time_wait_and_new_start)
{
	struct t_sim *s = t_new(256, 16);
	uint16_t id = t_open(s, UET_PDS_TYPE_RUD_REQ, 9000, 0x60);
	uint32_t mark = s->cap_cnt;
	struct pdc_nack n;

	t_ctl(s, UET_PDS_CTL_CLOSE, 9001, 0x60, id);
	cr_expect_eq(s->end[1]->ev_cnt[PDC_EV_CLOSED], 1);
	cr_expect_not_null(t_sim_find(s, mark, 1, UET_PDS_TYPE_ACK, 0));
	mark = s->cap_cnt;
	t_req(s, UET_PDS_TYPE_RUD_REQ, 0, 9002, 0x60, id, 2);
	n = t_nack(s, mark, UET_PDS_NACK_CLOSING);
	cr_expect_eq(n.nack_psn, 9002);
	mark = s->cap_cnt;
	t_req(s, UET_PDS_TYPE_RUD_REQ, UET_PDS_F_REQ_SYN, 9000, 0x60, 0, 0);
	cr_expect_not_null(t_sim_find(s, mark, 1, UET_PDS_TYPE_ACK, 0));
	cr_expect_eq(s->end[1]->rx_cnt, 1, "the stray SYN was not delivered");
	/* A new start too close to the closed one: pick another. */
	mark = s->cap_cnt;
	t_req(s, UET_PDS_TYPE_RUD_REQ, UET_PDS_F_REQ_SYN, 9100, 0x60, 0, 0);
	n = t_nack(s, mark, UET_PDS_NACK_NEW_START_PSN);
	cr_expect_neq(n.payload, 0);
	cr_expect_eq(n.dpdcid, 0x60);
	cr_expect_eq(s->end[1]->rx_cnt, 1);
	t_sim_free(s);
}

/*
 * A SYN from a peer that already has a live PDC at B draws a cookie first
 * (NEW_START_PSN); the SYN renumbered to it goes on. Returns its start PSN.
 */
static uint32_t t_cookie(struct t_sim *s, uint16_t spdcid)
{
	uint32_t mark = s->cap_cnt;
	struct pdc_nack n;

	t_req(s, UET_PDS_TYPE_RUD_REQ, UET_PDS_F_REQ_SYN, 77000000, spdcid, 0,
	      0);
	n = t_nack(s, mark, UET_PDS_NACK_NEW_START_PSN);
	cr_assert_neq(n.payload, 0);
	return n.payload;
}

/* The table is full of busy PDCs of a src below its share: no room. */
Test(pdc_nackpath, no_pdc_avail_and_invalid_syn)
{
	struct t_sim *s = t_new_per_src(256, 2, 4);
	uint32_t mark;
	struct pdc_nack n;

	t_open(s, UET_PDS_TYPE_RUD_REQ, 10, 1);
	t_open(s, UET_PDS_TYPE_RUD_REQ, t_cookie(s, 2), 2);
	mark = s->cap_cnt;
	t_req(s, UET_PDS_TYPE_RUD_REQ, UET_PDS_F_REQ_SYN, t_cookie(s, 3), 3, 0,
	      0);
	n = t_nack(s, mark, UET_PDS_NACK_NO_PDC_AVAIL);
	cr_expect_eq(n.dpdcid, 3);
	cr_expect_eq(n.spdcid, 0);
	mark = s->cap_cnt;
	t_req(s, UET_PDS_TYPE_RUD_REQ, UET_PDS_F_REQ_SYN, 60000000, 4, 300, 0);
	t_nack(s, mark, UET_PDS_NACK_INVALID_SYN);
	cr_expect_eq(s->end[1]->rx_cnt, 2);
	t_sim_free(s);
}

Test(pdc_nackpath, ack_req_draws_an_ack)
{
	struct t_sim *s = t_new(256, 16);
	uint16_t id = t_open(s, UET_PDS_TYPE_RUD_REQ, 300, 0x70);
	uint32_t mark = s->cap_cnt;

	t_ctl(s, UET_PDS_CTL_ACK_REQ, 301, 0x70, id);
	cr_expect_not_null(t_sim_find(s, mark, 1, UET_PDS_TYPE_ACK, 0));
	t_sim_free(s);
}

/* ---- initiator side --------------------------------------------------- */

static bool t_drop_to_b(struct t_sim *s, int from, int to, const uint8_t *buf,
			size_t len)
{
	(void)s;
	(void)buf;
	(void)len;
	return !(from == 0 && to == 1);
}

/* A NACK from B's side to A's PDC. */
static void t_nack_to_a(struct t_sim *s, uint8_t code, uint32_t psn,
			uint16_t a_id, uint16_t b_id, uint32_t payload)
{
	struct pdc_nack n = {
		.pro.type = UET_PDS_TYPE_NACK, .nack_code = code,
		.nack_psn = psn, .spdcid = b_id, .dpdcid = a_id,
		.payload = payload,
	};
	uint8_t buf[T_FRAME_MAX];
	ssize_t len = pdc_nack_encode(buf, sizeof(buf), &n);

	cr_assert_gt(len, 0);
	t_sim_inject(s, 1, 0, buf, (size_t)len);
}

Test(pdc_nackpath, initiator_takes_a_new_start_psn)
{
	struct t_sim *s = t_new(256, 16);
	struct pdc_info info;
	struct pdc_stats st;
	struct pdc_req req;
	uint32_t i, seq, mark, reqs = 0;

	s->tap = t_drop_to_b;
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 4, 0);
	t_run(s);
	cr_assert_eq(pdc_info_get(s->end[0]->mgr, 1, PDC_MODE_RUD, &info), 0);
	s->tap = NULL;
	mark = s->cap_cnt;
	t_nack_to_a(s, UET_PDS_NACK_NEW_START_PSN, info.start_psn, info.pdcid,
		    0, 0x10000000);
	cr_assert(t_sim_run(s, s->now + 100 * T_RUN_NS, t_sim_senders_done));
	for (i = mark; i < s->cap_cnt; i++) {
		if (s->cap[i].from || pdc_req_decode(&req, s->cap[i].buf,
						      s->cap[i].len) < 0)
			continue;
		reqs++;
		cr_expect(pdc_psn_in(req.psn, 0x10000000, 4), "psn %#x", req.psn);
		if (req.pro.flags & UET_PDS_F_REQ_SYN)
			cr_expect_eq(req.psn_offset, req.psn - 0x10000000);
	}
	cr_expect_geq(reqs, 4);
	for (seq = 0; seq < 4; seq++)
		cr_expect_eq(s->end[1]->rx[0][0][0][seq], 1);
	cr_expect_eq(s->end[0]->ok_cnt, 4);
	pdc_mgr_stats(s->end[0]->mgr, &st);
	cr_expect_eq(st.nack_rx_code[UET_PDS_NACK_NEW_START_PSN], 1);
	t_sim_free(s);
}

/* An established A, 5 packets out that B never sees, then |code|. */
static struct t_sim *t_nacked_initiator(uint8_t code, uint32_t psn_delta)
{
	struct t_sim *s = t_new(256, 16);
	struct pdc_info info;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, 10, 0);
	cr_assert(t_sim_run(s, s->now + 100 * T_RUN_NS, t_sim_senders_done));
	s->tap = t_drop_to_b;
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 15, 0);
	t_sim_run(s, s->now + 2000, NULL);
	cr_assert_eq(pdc_info_get(s->end[0]->mgr, 1, PDC_MODE_RUD, &info), 0);
	t_nack_to_a(s, code, info.next_psn - psn_delta, info.pdcid,
		    info.remote_pdcid, 0);
	t_sim_run(s, s->now + 2000, NULL);
	return s;
}

Test(pdc_nackpath, initiator_fails_on_hdr_mismatch)
{
	struct t_sim *s = t_nacked_initiator(UET_PDS_NACK_PDC_HDR_MISMATCH, 1);

	cr_expect_eq(s->end[0]->ok_cnt, 10);
	cr_expect_eq(s->end[0]->err_cnt, 5);
	cr_expect_eq(s->end[0]->first_err, -ECONNRESET);
	cr_expect_eq(s->end[0]->ev_cnt[PDC_EV_PEER_RESTART], 1);
	cr_expect_eq(s->end[0]->ev_cnt[PDC_EV_FAILED], 1);
	t_sim_free(s);
}

Test(pdc_nackpath, initiator_fails_on_closing)
{
	struct t_sim *s = t_nacked_initiator(UET_PDS_NACK_CLOSING, 1);

	cr_expect_eq(s->end[0]->err_cnt, 5);
	cr_expect_eq(s->end[0]->first_err, -ECONNABORTED);
	t_sim_free(s);
}

Test(pdc_nackpath, initiator_ignores_stray_nacks)
{
	/* PSN 10 past the last sent one: not ours, nothing happens. */
	struct t_sim *s = t_nacked_initiator(UET_PDS_NACK_CLOSING, -10u);
	struct pdc_stats st;

	cr_expect_eq(s->end[0]->err_cnt, 0);
	pdc_mgr_stats(s->end[0]->mgr, &st);
	cr_expect_geq(st.rx_stale, 1);
	t_sim_free(s);
}

/*
 * B tracks only 64 PSNs; with a hole holding its cack back, A runs past
 * them, learns it from PSN_OOR_WINDOW and adapts.
 */
Test(pdc_nackpath, initiator_shrinks_to_target_window)
{
	struct t_wire w = { .loss_ppm = 20000, .delay_ns = 5000,
			    .jitter_ns = 2000 };
	struct t_sim *s = t_sim_new(&w, 43, 2);
	struct pdc_stats st;
	struct pdc_cfg cfg;
	uint32_t seq;

	t_cfg_lossy(&cfg, 43);
	t_end_start(s, 0, &cfg);
	cfg.seed = 44;
	cfg.window = 64;
	cfg.cwnd_init = 32;
	t_end_start(s, 1, &cfg);
	s->win_limit = 256;
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 5000, 0);
	cr_assert(t_sim_run(s, 1000000000ull, t_sim_senders_done));
	cr_expect_eq(s->end[0]->ok_cnt, 5000);
	for (seq = 0; seq < 5000; seq++)
		cr_expect_eq(s->end[1]->rx[0][0][0][seq], 1);
	pdc_mgr_stats(s->end[1]->mgr, &st);
	cr_expect_gt(st.nack_tx_code[UET_PDS_NACK_PSN_OOR_WINDOW], 0);
	cr_expect_eq(s->win_violations, 0);
	t_sim_free(s);
}
