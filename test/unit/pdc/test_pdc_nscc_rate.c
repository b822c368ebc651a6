/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NSCC on a link rate it only assumed (pdc_cfg.link_guessed): the window
 * starts at a packet; where the fabric marks, the rate falls to about
 * twice what the flow delivers, and unmarked it rises with the
 * deliveries, never past the guess. A rate the
 * driver reported or the user set never moves. Driven one ACK at a time.
 */
#include "test/unit/pdc/t_pdc_cc.h"

TestSuite(pdc_nscc_rate, .timeout = 30);

/*
 * ACKs every 2 us for |us| microseconds, carrying what a bottleneck of
 * |gbps| Gbit/s delivers, at |rtt_us|, marked or not.
 */
static void t_deliver(struct t_cc *t, double gbps, uint64_t rtt_us, bool ecn,
		      uint64_t us)
{
	uint64_t bytes = (uint64_t)(gbps * 1e9 / 8 * 2e-6);

	for (uint64_t i = 0; i < us / 2; i++) {
		t->now += 2 * T_US;
		t->ini.cc.inflight = 1e9;	/* never window-limited here */
		t_ack(t, rtt_us * T_US, bytes, ecn);
	}
}

static void t_guessed(struct t_cc *t, bool guessed)
{
	t_cc_init(t, false);
	t->mgr->cfg.link_guessed = guessed;
	pdc_cc_init(&t->mgr->cfg, &t->ini);
	t_cc_settle(t);
	t->ini.cc.qa_end_ns = 0;	/* periods from the next ACK on */
}

Test(pdc_nscc_rate, a_guessed_rate_falls_where_marked_and_grows_back)
{
	struct t_cc t;
	double scale0;

	t_guessed(&t, true);
	scale0 = t.ini.cc.scale;
	cr_expect_float_eq(t.ini.cc.link_bps, 1e11, 1);
	/* Unmarked and slow: a flow that sends little says nothing. */
	t_deliver(&t, 1.0, 12, false, 2000);
	cr_expect_float_eq(t.ini.cc.link_bps, 1e11, 1);
	/* Marked behind a 1 Gbit/s bottleneck: about 2 Gbit/s. */
	t_deliver(&t, 1.0, 40, true, 2000);
	cr_expect_gt(t_since(&t, cc_decreases), 0);
	cr_expect_geq(t.ini.cc.link_bps, 1.8e9, "%.3g", t.ini.cc.link_bps);
	cr_expect_leq(t.ini.cc.link_bps, 2.5e9, "%.3g", t.ini.cc.link_bps);
	/* The increases and the largest window scale with it. */
	cr_expect_float_eq(t.ini.cc.scale, scale0 * t.ini.cc.link_bps / 1e11,
			   scale0 / 1000);
	cr_expect_float_eq(t.ini.cc.max_wnd, 4.0 * T_MSS, 1,
			   "1.5 x 2 Gbit/s x 10 us is under 4 packets");
	cr_expect_leq(t.ini.cc.cwnd, t.ini.cc.max_wnd);
	/*
	 * Unmarked at 10 Gbit/s, though the RTT is five times the base (a
	 * CPU's wait, not a switch's): up to about twice that.
	 */
	t.ini.srtt_ns = 50 * T_US;
	t_deliver(&t, 10.0, 50, false, 2000);
	cr_expect_geq(t.ini.cc.link_bps, 1.8e10, "%.3g", t.ini.cc.link_bps);
	cr_expect_leq(t.ini.cc.link_bps, 2.5e10, "%.3g", t.ini.cc.link_bps);
	/* Never past the guess. */
	t_deliver(&t, 90.0, 12, false, 2000);
	cr_expect_float_eq(t.ini.cc.link_bps, 1e11, 1);
	cr_expect_float_eq(t.ini.cc.scale, scale0, scale0 * 1e-6);
	pdc_mgr_destroy(t.mgr);
}

/* A flow that starts: one packet, not 1.5 BDPs of a rate it guessed. */
Test(pdc_nscc_rate, a_guessed_rate_starts_at_a_packet)
{
	struct t_cc t;

	t_cc_init(&t, false);
	cr_expect_float_eq(t.ini.cc.cwnd, 1875000.0, 1, "1.5 BDPs, known");
	t.mgr->cfg.link_guessed = true;
	pdc_cc_init(&t.mgr->cfg, &t.ini);
	cr_expect_float_eq(t.ini.cc.cwnd, T_MSS, 1);
	cr_expect_float_eq(t.ini.cc.max_wnd, 1875000.0, 1);
	pdc_mgr_destroy(t.mgr);
}

Test(pdc_nscc_rate, a_known_rate_never_moves)
{
	struct t_cc t;
	double max_wnd;

	t_guessed(&t, false);
	max_wnd = t.ini.cc.max_wnd;
	t_deliver(&t, 1.0, 40, true, 2000);
	cr_expect_float_eq(t.ini.cc.link_bps, 1e11, 1);
	cr_expect_float_eq(t.ini.cc.max_wnd, max_wnd, 1);
	pdc_mgr_destroy(t.mgr);
}
