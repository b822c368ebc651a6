/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Destination flow control (UE 1.0 3.6.13.2): a target behind in reading
 * what arrives puts a penalty (Rcv_Cwnd_Pend) in its NSCC ACKs and, once
 * caught up, Restore_Cwnd. The initiator's side one ACK at a time; the
 * target's mapping of its backlog (pdc_rx_backlog); then both over the
 * simulated wire: the sender drains while the target is behind, gets its
 * window back after, and every message arrives once.
 */
#include "test/unit/pdc/t_pdc_cc.h"
#include "test/unit/pdc/test_pdc_sim.h"

TestSuite(pdc_dfc, .timeout = 60);

/* An ACK of |bytes| with the target's |penalty| and |restore|. */
static void t_ack_dfc(struct t_cc *t, uint64_t bytes, uint8_t penalty,
		      bool restore)
{
	t->ini.cc.inflight -= (double)bytes;	/* as pdc_nscc_received */
	t_ack_rcv(t, 10 * T_US, bytes, false, penalty, restore);
}

/*
 * A window's worth in flight, then ACKs with penalty 64: the window falls
 * to what is still in flight less half of what each ACK reports, so no
 * new packet may go while the target is behind, and nothing grows it.
 */
Test(pdc_dfc, a_penalty_drains_the_window_and_holds_increases)
{
	struct t_cc t;
	double w;

	t_cc_init(&t, false);
	t_cc_settle(&t);
	t.ini.cc.last_adjust_ns = t.now;	/* no eta in the sums */
	w = t.ini.cc.cwnd;
	t.ini.cc.inflight = w;
	t_ack_dfc(&t, T_MSS, 64, false);
	cr_expect_float_eq(t.ini.cc.cwnd, w - T_MSS - T_MSS / 2, 1);
	cr_expect_float_eq(t.ini.cc.saved_cwnd, w, 1);
	cr_expect_eq(t_since(&t, cc_rcv_penalised), 1);
	for (int i = 0; i < 8; i++) {
		cr_expect_not(pdc_cc_has_room(&t.ini), "ACK %d", i);
		t_ack_dfc(&t, T_MSS, 64, false);
	}
	cr_expect_leq(t.ini.cc.cwnd, t.ini.cc.inflight);
	cr_expect_eq(t_since(&t, cc_prop_incs) + t_since(&t, cc_fast_incs) +
		     t_since(&t, cc_fair_incs), 0);
	/* the window before the first penalty is the one kept */
	cr_expect_float_eq(t.ini.cc.saved_cwnd, w, 1);
	/* 127 on what is left: down to one packet, never below */
	while (t.ini.cc.inflight >= T_MSS)
		t_ack_dfc(&t, T_MSS, 127, false);
	cr_expect_float_eq(t.ini.cc.cwnd, T_MSS, 1);
	pdc_mgr_destroy(t.mgr);
}

/*
 * Restore_Cwnd on an ACK without penalty gives the old window back, once;
 * a window that grew past it since keeps its size; without the flag the
 * window grows on its own from where it fell.
 */
Test(pdc_dfc, restore_gives_the_old_window_back_once)
{
	struct t_cc t;
	double w;

	t_cc_init(&t, false);
	t_cc_settle(&t);
	w = t.ini.cc.cwnd;
	t.ini.cc.inflight = w;
	for (int i = 0; i < 8; i++)
		t_ack_dfc(&t, T_MSS, 100, false);
	cr_assert_lt(t.ini.cc.cwnd, w / 2);
	t_ack_dfc(&t, T_MSS, 0, false);		/* behind no more */
	cr_expect_lt(t.ini.cc.cwnd, w / 2);
	cr_expect_gt(t_since(&t, cc_prop_incs) + t_since(&t, cc_fast_incs), 0);
	t_ack_dfc(&t, T_MSS, 0, true);		/* caught up */
	/* and the ACK's own increase on top */
	cr_expect_geq(t.ini.cc.cwnd, w, "w %.0f cwnd %.0f", w, t.ini.cc.cwnd);
	cr_expect_lt(t.ini.cc.cwnd, w * 1.1, "w %.0f cwnd %.0f", w,
		     t.ini.cc.cwnd);
	cr_expect_float_eq(t.ini.cc.saved_cwnd, 0, 0.1);
	cr_expect_eq(t_since(&t, cc_rcv_restores), 1);
	t.ini.cc.cwnd = w / 4;
	t_ack_dfc(&t, T_MSS, 0, true);		/* nothing kept: no change */
	cr_expect_lt(t.ini.cc.cwnd, w / 2);
	cr_expect_eq(t_since(&t, cc_rcv_restores), 1);
	/* never lower than it grew to */
	t.ini.cc.inflight = t.ini.cc.cwnd;
	t_ack_dfc(&t, T_MSS, 10, false);
	t.ini.cc.cwnd = t.ini.cc.max_wnd;
	t_ack_dfc(&t, T_MSS, 0, true);
	cr_expect_float_eq(t.ini.cc.cwnd, t.ini.cc.max_wnd, 1);
	cr_expect_eq(t_since(&t, cc_rcv_restores), 2);
	pdc_mgr_destroy(t.mgr);
}

/* The ACK state a target with |waiting| of |room| in its ring sends. */
static void t_backlog(struct pdc_mgr *mgr, uint32_t waiting, uint32_t room,
		      uint8_t penalty, bool restore)
{
	pdc_rx_backlog(mgr, waiting, room);
	cr_expect_eq(mgr->rcv_penalty, penalty, "%u of %u: penalty %u, not %u",
		     waiting, room, mgr->rcv_penalty, penalty);
	cr_expect_eq(mgr->rcv_restore, restore, "%u of %u", waiting, room);
}

/*
 * No penalty up to half the ring, then rising to 127 when full; restore
 * while no more than an eighth waits; nothing with no_dfc.
 */
Test(pdc_dfc, the_backlog_sets_penalty_and_restore)
{
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;
	uint8_t last = 0;

	pdc_cfg_init(&cfg);
	cfg.cc = PDC_CC_NSCC;
	mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert(mgr);
	t_backlog(mgr, 0, 1024, 0, true);
	t_backlog(mgr, 128, 1024, 0, true);
	t_backlog(mgr, 129, 1024, 0, false);
	t_backlog(mgr, 512, 1024, 0, false);
	t_backlog(mgr, 513, 1024, 1, false);
	t_backlog(mgr, 768, 1024, 64, false);
	t_backlog(mgr, 1024, 1024, 127, false);
	t_backlog(mgr, 5000, 1024, 127, false);
	for (uint32_t w = 0; w <= 2048; w += 8) {
		pdc_rx_backlog(mgr, w, 2048);
		cr_expect_geq(mgr->rcv_penalty, last, "%u", w);
		last = mgr->rcv_penalty;
	}
	t_backlog(mgr, 100, 0, 127, false);	/* no ring: unchanged */
	pdc_mgr_destroy(mgr);
	cfg.no_dfc = true;
	mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert(mgr);
	t_backlog(mgr, 1024, 1024, 0, false);
	pdc_mgr_destroy(mgr);
}

static uint32_t t_until_rx;

static bool t_rx_reached(struct t_sim *s)
{
	return s->end[1]->rx_cnt >= t_until_rx;
}

static struct pdc_ini *t_ini_of(struct pdc_mgr *mgr)
{
	for (uint32_t i = 0; i < mgr->cfg.max_pdcs; i++)
		if (mgr->tbl[i] && mgr->tbl[i]->role == PDC_ROLE_INI)
			return &mgr->tbl[i]->ini;
	cr_assert_fail("no initiator PDC");
	return NULL;
}

/*
 * Over the wire: a stream of 3000 messages; after 500, the target says
 * its ring is 7/8 full. Its ACKs carry the penalty, the sender's window
 * falls to a packet and its stream slows to a trickle; then the target
 * catches up: the window the sender had comes back, the stream ends,
 * every message arrived once and no retransmit timer fired.
 */
Test(pdc_dfc, a_target_behind_slows_its_sender_and_lets_it_go_after)
{
	struct t_wire w = { .delay_ns = 5000, .jitter_ns = 1000 };
	struct pdc_stats sa, sb;
	struct pdc_cfg cfg;
	struct pdc_ini *ini;
	struct t_sim *s;
	double before;
	uint32_t rx_mid;
	uint64_t t0;

	t_cfg_lossy(&cfg, 91);
	cfg.cc = PDC_CC_NSCC;
	cfg.link_bps = 1000000000ull;	/* a window of a few dozen packets */
	s = t_sim_new(&w, 92, 2);
	t_end_start(s, 0, &cfg);
	cfg.seed++;
	t_end_start(s, 1, &cfg);
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 3000, 0);
	t_until_rx = 500;
	cr_assert(t_sim_run(s, 1000000000ull, t_rx_reached));
	t0 = s->now;
	ini = t_ini_of(s->end[0]->mgr);
	before = ini->cc.cwnd;
	pdc_rx_backlog(s->end[1]->mgr, 896, 1024);
	t_until_rx = 3000;
	cr_assert_not(t_sim_run(s, s->now + 2000000, t_rx_reached));
	rx_mid = s->end[1]->rx_cnt;
	pdc_mgr_stats(s->end[0]->mgr, &sa);
	pdc_mgr_stats(s->end[1]->mgr, &sb);
	cr_expect_gt(sb.tx_rcv_penalty, 0);
	cr_expect_gt(sa.cc_rcv_penalised, 0);
	cr_expect_float_eq(ini->cc.cwnd, cfg.max_payload_len, 1,
			   "window %.0f", ini->cc.cwnd);
	cr_expect_float_eq(ini->cc.saved_cwnd, before, 1);
	/*
	 * A trickle: 500 messages came in t0; in 2 ms behind, under a tenth
	 * of that rate (the window is a packet, but ACK_CC counts received
	 * bytes in 256-byte units: these 16-byte messages go a few a trip).
	 */
	cr_expect_lt((double)(rx_mid - 500) / 2000000.0,
		     500.0 / (double)t0 / 10, "%u in 2 ms; 500 in %lu ns",
		     rx_mid - 500, (unsigned long)t0);
	pdc_rx_backlog(s->end[1]->mgr, 0, 1024);
	cr_assert(t_sim_run(s, s->now + 1000000000ull, t_sim_senders_done));
	pdc_mgr_stats(s->end[0]->mgr, &sa);
	cr_expect_eq(sa.cc_rcv_restores, 1);
	cr_expect_geq(ini->cc.cwnd, before * 0.99, "window %.0f of %.0f",
		      ini->cc.cwnd, before);
	cr_expect_eq(sa.rto_fired, 0);
	cr_expect_eq(s->end[0]->ok_cnt, 3000);
	for (uint32_t seq = 0; seq < 3000; seq++)
		cr_expect_eq(s->end[1]->rx[0][0][0][seq], 1, "msg %u", seq);
	t_sim_free(s);
}
