/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NSCC (pdc_nscc.c): its four cases, quick adapt, the base RTT and the
 * largest window, received bytes that wrap, driven one ACK at a time on
 * an initiator's state; then trimmed packets over the simulated wire:
 * NACKed, resent at once, every message delivered once, no timeout.
 */
#include "test/unit/pdc/t_pdc_cc.h"
#include "test/unit/pdc/test_pdc_sim.h"

TestSuite(pdc_nscc, .timeout = 60);

Test(pdc_nscc, base_rtt_only_falls_and_sets_the_largest_window)
{
	struct t_cc t;

	t_cc_init(&t, false);
	/* 1.5 x 100 Gb/s x 100 us, and the window starts there */
	cr_expect_float_eq(t.ini.cc.max_wnd, 1875000.0, 1);
	cr_expect_float_eq(t.ini.cc.cwnd, 1875000.0, 1);
	t_ack(&t, 20 * T_US, 0, false);
	cr_expect_eq(t.ini.cc.base_rtt_ns, 20 * T_US);
	cr_expect_float_eq(t.ini.cc.max_wnd, 375000.0, 1);
	cr_expect_leq(t.ini.cc.cwnd, t.ini.cc.max_wnd);
	t_ack(&t, 30 * T_US, 0, false);
	cr_expect_eq(t.ini.cc.base_rtt_ns, 20 * T_US);
	/* target delay: the base RTT, 3/4 of it where the fabric trims */
	cr_expect_eq(pdc_nscc_target(&t.mgr->cfg, &t.ini), 20 * T_US);
	pdc_mgr_destroy(t.mgr);
	t_cc_init(&t, true);
	t_ack(&t, 20 * T_US, 0, false);
	cr_expect_eq(pdc_nscc_target(&t.mgr->cfg, &t.ini), 15 * T_US);
	pdc_mgr_destroy(t.mgr);
}

/*
 * Eight unmarked ACKs of 2 MSS each at |rtt_ns| after t_cc_settle() (base
 * RTT and target 10 us); the window before them in |*before|.
 */
static void t_unmarked_acks(struct t_cc *t, uint64_t rtt_ns, double *before)
{
	t_cc_init(t, false);
	t_cc_settle(t);
	*before = t->ini.cc.cwnd;
	for (int i = 0; i < 8; i++) {
		t->now += 2 * T_US;
		t_ack(t, rtt_ns, 2 * T_MSS, false);
	}
}

Test(pdc_nscc, no_mark_low_delay_increases_proportionally)
{
	struct t_cc t;
	double before;

	t_unmarked_acks(&t, 15 * T_US, &before);	/* 5 us of 10 */
	cr_expect_gt(t.ini.cc.cwnd, before);
	cr_expect_gt(t_since(&t, cc_prop_incs), 0);
	cr_expect_eq(t_since(&t, cc_fair_incs), 0);
	cr_expect_eq(t_since(&t, cc_decreases), 0);
	pdc_mgr_destroy(t.mgr);
}

Test(pdc_nscc, no_mark_high_delay_increases_fairly)
{
	struct t_cc t;
	double before;

	t_unmarked_acks(&t, 25 * T_US, &before);	/* 15 us of 10 */
	cr_expect_gt(t.ini.cc.cwnd, before);
	cr_expect_gt(t_since(&t, cc_fair_incs), 0);
	cr_expect_eq(t_since(&t, cc_prop_incs), 0);
	pdc_mgr_destroy(t.mgr);
}

Test(pdc_nscc, mark_low_delay_holds)
{
	struct t_cc t;
	double before;

	t_cc_init(&t, false);
	t_cc_settle(&t);
	before = t.ini.cc.cwnd;
	t.now += 2 * T_US;
	t_ack(&t, 12 * T_US, 2 * T_MSS, true);
	cr_expect_eq(t_since(&t, cc_holds), 1);
	cr_expect_eq(t_since(&t, cc_decreases), 0);
	/* unchanged but for eta, 0.15 MSS x a per base RTT */
	cr_expect_leq(t.ini.cc.cwnd, before + 0.15 * T_MSS * 125000 / 150000 + 1);
	cr_expect_geq(t.ini.cc.cwnd, before);
	cr_expect_eq(t_since(&t, cc_ecn_acks), 1);
	pdc_mgr_destroy(t.mgr);
}

Test(pdc_nscc, mark_high_delay_decreases_once_per_base_rtt)
{
	struct t_cc t;
	double before, f;

	t_cc_init(&t, false);
	t_cc_settle(&t);
	/* an average delay of 30 us against a 10 us target */
	t.ini.cc.avg_delay_ns = 30 * T_US;
	before = t.ini.cc.cwnd;
	t.now += 2 * T_US;
	t_ack(&t, 40 * T_US, T_MSS, true);
	cr_expect_eq(t_since(&t, cc_decreases), 1);
	/* cwnd x max(1 - 0.8 (avg - target) / avg, 0.5) */
	f = 1 - 0.8 * (double)(t.ini.cc.avg_delay_ns - 10 * T_US) /
		(double)t.ini.cc.avg_delay_ns;
	cr_expect_float_eq(t.ini.cc.cwnd, before * (f > 0.5 ? f : 0.5),
			   before * 0.02, "cwnd %.0f of %.0f", t.ini.cc.cwnd,
			   before);
	before = t.ini.cc.cwnd;
	t.now += 5 * T_US;		/* within a base RTT: no second cut */
	t_ack(&t, 40 * T_US, T_MSS, true);
	cr_expect_eq(t_since(&t, cc_decreases), 1);
	t.now += 20 * T_US;
	t_ack(&t, 40 * T_US, T_MSS, true);
	cr_expect_eq(t_since(&t, cc_decreases), 2);
	cr_expect_lt(t.ini.cc.cwnd, before);
	pdc_mgr_destroy(t.mgr);
}

Test(pdc_nscc, quick_adapt_on_trim_sets_the_window_to_what_arrived)
{
	struct t_cc t;
	double before;

	t_cc_init(&t, true);
	t_cc_settle(&t);
	t.ini.cc.cwnd = t.ini.cc.max_wnd;
	t.ini.cc.qa_end_ns = 0;
	t_ack(&t, 10 * T_US, T_MSS / 4, false);	/* opens a QA period */
	t.now += 50 * T_US;
	t.ini.cc.inflight = 4 * T_MSS;
	pdc_nscc_on_trim(t.mgr, &t.ini, T_MSS, t.now);
	cr_expect_eq(t_since(&t, cc_quick_adapts), 1);
	/*
	 * What arrived in the period: nothing after the ACK that opened it,
	 * so the floor, MSS / 16 (a window below a packet paces).
	 */
	cr_expect_float_eq(t.ini.cc.cwnd, T_MSS / 16.0, 1);
	cr_expect_float_eq(t.ini.cc.inflight, 3.0 * T_MSS, 1);
	/*
	 * A trim of a packet in flight at that quick adapt is ignored (the
	 * new window already counts it out); once those bytes are accounted
	 * for, and within base RTT + target, a trim costs the window itself.
	 */
	t.ini.cc.cwnd = 4 * T_MSS;
	t.now += 5 * T_US;
	pdc_nscc_on_trim(t.mgr, &t.ini, T_MSS, t.now);
	cr_expect_float_eq(t.ini.cc.cwnd, 4.0 * T_MSS, 1);
	t_ack(&t, 0, 3 * T_MSS, false);
	before = t.ini.cc.cwnd;
	pdc_nscc_on_trim(t.mgr, &t.ini, T_MSS, t.now);
	cr_expect_eq(t_since(&t, cc_quick_adapts), 1);
	cr_expect_float_eq(t.ini.cc.cwnd, before - T_MSS, 1);
	pdc_mgr_destroy(t.mgr);
}

Test(pdc_nscc, loss_takes_bytes_out_of_flight)
{
	struct t_cc t;

	t_cc_init(&t, false);
	t_cc_settle(&t);
	pdc_nscc_sent(&t.ini, 3 * T_MSS);
	t.ini.cc.cwnd = 10 * T_MSS;
	/* within a QA period: the window less the packet, QA still due */
	pdc_nscc_on_loss(t.mgr, &t.ini, T_MSS, t.now);
	cr_expect_float_eq(t.ini.cc.inflight, 2.0 * T_MSS, 1);
	cr_expect_float_eq(t.ini.cc.cwnd, 9.0 * T_MSS, 1);
	cr_expect(t.ini.cc.trigger_qa);
	/* past it, nothing arrived: quick adapt to the floor, MSS / 16 */
	t.now += 2000 * T_US;
	pdc_nscc_on_loss(t.mgr, &t.ini, T_MSS, t.now);
	cr_expect_eq(t_since(&t, cc_quick_adapts), 1);
	cr_expect_float_eq(t.ini.cc.cwnd, T_MSS / 16.0, 1);
	pdc_mgr_destroy(t.mgr);
}

/*
 * A delay past 4 targets: a quick adapt on a marked ACK only (unmarked it
 * is no switch's queue, and with jumbo frames on a slow link every full
 * packet's delay is that long).
 */
Test(pdc_nscc, only_a_marked_delay_past_four_targets_quick_adapts)
{
	struct t_cc t;

	t_cc_init(&t, false);
	t_cc_settle(&t);
	t.ini.cc.qa_end_ns = 0;
	t_ack(&t, 10 * T_US, T_MSS / 4, false);	/* opens a QA period */
	t.now += 50 * T_US;
	t_ack(&t, 200 * T_US, T_MSS / 4, false);
	cr_expect_eq(t_since(&t, cc_quick_adapts), 0);
	t.now += 50 * T_US;
	t_ack(&t, 200 * T_US, T_MSS / 4, true);
	cr_expect_eq(t_since(&t, cc_quick_adapts), 1);
	cr_expect_float_eq(t.ini.cc.cwnd, T_MSS / 4.0, 1);
	pdc_mgr_destroy(t.mgr);
}

/*
 * A settled PDC with srtt 300 us, 8 MSS in flight, a QA period opened
 * and 50 us gone: past base RTT + target (20 us), within a round trip.
 */
static void t_cc_period_50us_in(struct t_cc *t, bool trimming)
{
	t_cc_init(t, trimming);
	t_cc_settle(t);
	t->ini.srtt_ns = 300 * T_US;
	t->ini.cc.qa_end_ns = 0;
	t_ack(t, 10 * T_US, 0, false);		/* opens a QA period */
	pdc_nscc_sent(&t->ini, 8 * T_MSS);
	t->now += 50 * T_US;
}

/*
 * A loss with no queue behind it (no trim, no marked long delay) counts
 * what arrived over a round trip before it sets the window: over a base
 * RTT plus target (20 us here) a path at 2 packets per 300 us delivers
 * nothing, and the window would fall to its floor.
 */
Test(pdc_nscc, a_loss_alone_counts_a_round_trip_of_arrivals)
{
	struct t_cc t;
	int i;

	t_cc_period_50us_in(&t, false);
	pdc_nscc_on_loss(t.mgr, &t.ini, T_MSS, t.now);
	cr_expect_eq(t_since(&t, cc_quick_adapts), 0);
	for (i = 0; i < 2; i++) {
		t.now += 100 * T_US;
		t_ack(&t, 300 * T_US, T_MSS, false);
		cr_expect_eq(t_since(&t, cc_quick_adapts), 0);
	}
	t.now += 60 * T_US;			/* 310 us since the period began */
	t_ack(&t, 300 * T_US, 0, false);
	cr_expect_eq(t_since(&t, cc_quick_adapts), 1);
	cr_expect_float_eq(t.ini.cc.cwnd, 2.0 * T_MSS, 1);
	pdc_mgr_destroy(t.mgr);
}

/* A trim is a queue: quick adapt after a base RTT plus target, as before. */
Test(pdc_nscc, a_trim_quick_adapts_without_waiting_a_round_trip)
{
	struct t_cc t;

	t_cc_period_50us_in(&t, true);
	pdc_nscc_on_trim(t.mgr, &t.ini, T_MSS, t.now);
	cr_expect_eq(t_since(&t, cc_quick_adapts), 1);
	cr_expect_float_eq(t.ini.cc.cwnd, T_MSS / 16.0, 1);
	pdc_mgr_destroy(t.mgr);
}

Test(pdc_nscc, received_bytes_wrap_and_stale_acks_count_nothing)
{
	struct t_cc t;

	t_cc_init(&t, false);
	pdc_nscc_sent(&t.ini, 1u << 20);
	cr_expect_eq(pdc_nscc_received(&t.ini, 0xFFFFF0), 0xFFFFF0ull << 8);
	/* 0x20 units on, across the 24-bit wrap */
	cr_expect_eq(pdc_nscc_received(&t.ini, 0x10), 0x20ull << 8);
	/* an older ACK, overtaken on another path */
	cr_expect_eq(pdc_nscc_received(&t.ini, 0x08), 0);
	cr_expect_eq(t.ini.cc.rcvd_units, 0x10);
	cr_expect_float_eq(t.ini.cc.inflight, 0.0, 0.5);
	pdc_mgr_destroy(t.mgr);
}

/*
 * A sim of |ends| ends on |w| (seeded |sim_seed|), each started with |cfg|
 * but for its seed: cfg->seed plus its index.
 */
static struct t_sim *t_cc_start(const struct t_wire *w, uint64_t sim_seed,
				int ends, struct pdc_cfg *cfg)
{
	struct t_sim *s = t_sim_new(w, sim_seed, ends);
	uint64_t seed = cfg->seed;

	for (int i = 0; i < ends; i++) {
		cfg->seed = seed + (uint64_t)i;
		t_end_start(s, i, cfg);
	}
	return s;
}

/* Every one of |msgs| from end |from| completed, and arrived once at |to|. */
static void t_cc_all_once(const struct t_sim *s, int from, int to,
			  uint32_t msgs)
{
	cr_expect_eq(s->end[from]->ok_cnt, msgs, "sender %d: ok %u err %u",
		     from, s->end[from]->ok_cnt, s->end[from]->err_cnt);
	for (uint32_t seq = 0; seq < msgs; seq++)
		cr_expect_eq(s->end[to]->rx[0][from][0][seq], 1,
			     "sender %d msg %u", from, seq);
}

/*
 * Over the simulated wire with 5% of requests trimmed: every trim is
 * NACKed (TRIMMED) and resent at once, every message arrives once, and no
 * retransmit timer ever fires.
 */
Test(pdc_nscc, trimmed_requests_are_nacked_and_resent_without_timeouts)
{
	struct t_wire w = { .trim_ppm = 50000, .delay_ns = 5000,
			    .jitter_ns = 2000 };
	struct pdc_stats sa, sb;
	struct pdc_cfg cfg;
	struct t_sim *s;

	t_cfg_lossy(&cfg, 72);
	cfg.cc = PDC_CC_NSCC;
	cfg.trimming = true;
	s = t_cc_start(&w, 71, 2, &cfg);
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 2000, 0);
	cr_assert(t_sim_run(s, 10000000000ull, t_sim_senders_done));
	t_cc_all_once(s, 0, 1, 2000);
	pdc_mgr_stats(s->end[0]->mgr, &sa);
	pdc_mgr_stats(s->end[1]->mgr, &sb);
	cr_expect_gt(s->trimmed, 0);
	cr_expect_eq(sb.rx_trimmed, s->trimmed);
	cr_expect_eq(sb.nack_tx_code[UET_PDS_NACK_TRIMMED], s->trimmed);
	cr_expect_eq(sa.nack_rx_code[UET_PDS_NACK_TRIMMED], s->trimmed);
	cr_expect_geq(sa.retx_nack, s->trimmed * 9 / 10);
	cr_expect_eq(sa.retx_rto, 0);
	cr_expect_gt(sa.cc_quick_adapts, 0);
	t_sim_free(s);
}

/*
 * RCCC: two senders into one receiver whose link (cfg.link_bps) is the
 * bottleneck. The receiver's credit paces them: everything arrives once,
 * no faster than the receiver's rate allows (after the speculative bytes
 * and one cap of credit each), and each sender gets its share.
 */
Test(pdc_nscc, receiver_credits_pace_an_incast)
{
	struct t_wire w = { .delay_ns = 5000, .jitter_ns = 1000 };
	const uint32_t msgs = 600, rate_bpus = 10;	/* 80 Mbit/s */
	struct pdc_stats st;
	struct pdc_cfg cfg;
	uint64_t bytes = 0, floor_ns, t0;
	struct t_sim *s;

	t_cfg_lossy(&cfg, 83);
	cfg.cc = PDC_CC_NSCC | PDC_CC_RCCC;
	cfg.link_bps = rate_bpus * 8ull * 1000000;
	s = t_cc_start(&w, 81, 3, &cfg);
	for (int i = 0; i < 2; i++)
		t_end_plan(s, i, 2, PDC_MODE_RUD, msgs, 0);
	t0 = s->now;
	cr_assert(t_sim_run(s, 10000000000ull, t_sim_senders_done));
	for (int i = 0; i < 2; i++)
		t_cc_all_once(s, i, 2, msgs);
	pdc_mgr_stats(s->end[2]->mgr, &st);
	cr_expect_gt(st.rccc_credits_tx, 0);
	/* 0.99 of 10 bytes/us, less what needed no grant */
	bytes = 2ull * msgs * T_PAYLOAD_LEN;
	floor_ns = (bytes - 2 * (2 * cfg.max_payload_len + 8 * cfg.max_payload_len)) *
		   1000 / rate_bpus;
	cr_expect_geq(s->now - t0, floor_ns, "%llu ns for %llu bytes",
		      (unsigned long long)(s->now - t0),
		      (unsigned long long)bytes);
	cr_expect_leq(s->now - t0, floor_ns * 2, "%llu ns",
		      (unsigned long long)(s->now - t0));
	t_sim_free(s);
}

/*
 * RCCC over a wire that loses 20% of every kind of frame: lost CREDITs and
 * CREDIT_REQs are made good (a CREDIT_REQ is always answered with the sum
 * granted), and every message arrives once.
 */
Test(pdc_nscc, receiver_credits_survive_loss)
{
	struct t_wire w = { .loss_ppm = 200000, .delay_ns = 5000,
			    .jitter_ns = 2000 };
	struct pdc_stats st;
	struct pdc_cfg cfg;
	struct t_sim *s;

	t_cfg_lossy(&cfg, 93);
	cfg.cc = PDC_CC_NSCC | PDC_CC_RCCC;
	cfg.link_bps = 80000000;	/* credit is scarce: it matters */
	s = t_cc_start(&w, 91, 3, &cfg);
	for (int i = 0; i < 2; i++)
		t_end_plan(s, i, 2, i ? PDC_MODE_ROD : PDC_MODE_RUD, 400, 3);
	cr_assert(t_sim_run(s, 20000000000ull, t_sim_senders_done),
		  "not done: %u and %u of 400", s->end[0]->fin_cnt,
		  s->end[1]->fin_cnt);
	for (int i = 0; i < 2; i++)
		t_cc_all_once(s, i, 2, 400);
	pdc_mgr_stats(s->end[2]->mgr, &st);
	cr_expect_gt(st.rccc_credits_tx, 0);
	t_sim_free(s);
}

/* Every CREDIT of the first millisecond is lost. */
static bool t_lose_early_credits(struct t_sim *s, int from, int to,
				 const uint8_t *buf, size_t len)
{
	(void)from; (void)to;
	return !(s->now < 1000000 && len >= UET_PDS_CTL_LEN &&
		 buf[0] >> 3 == UET_PDS_TYPE_CONTROL &&
		 ((buf[0] << 8 | buf[1]) >> UET_PDS_NEXT_HDR_SHIFT &
		  UET_PDS_NEXT_HDR_MASK) == UET_PDS_CTL_CREDIT);
}

/*
 * The receiver's grants cover what the sender wants, and every CREDIT
 * that carried them was lost: the sender's CREDIT_REQ draws the sum again
 * (a receiver that grants nothing new must still answer).
 */
Test(pdc_nscc, a_credit_request_recovers_lost_credits)
{
	struct t_wire w = { .delay_ns = 5000 };
	struct pdc_stats st;
	struct pdc_cfg cfg;
	struct t_sim *s;

	t_cfg_lossy(&cfg, 96);
	cfg.cc = PDC_CC_NSCC | PDC_CC_RCCC;
	cfg.link_bps = 80000000;
	s = t_cc_start(&w, 95, 2, &cfg);
	s->tap = t_lose_early_credits;
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 50, 0);
	cr_assert(t_sim_run(s, 5000000000ull, t_sim_senders_done),
		  "stuck: %u of 50", s->end[0]->fin_cnt);
	cr_expect_eq(s->end[0]->ok_cnt, 50);
	pdc_mgr_stats(s->end[0]->mgr, &st);
	cr_expect_gt(st.rccc_reqs, 0);
	t_sim_free(s);
}

/*
 * A sender with RCCC and a receiver without: no CREDIT ever comes, and
 * after an RTO of waiting the PDC goes on without RCCC; every message
 * arrives.
 */
Test(pdc_nscc, a_receiver_without_credits_turns_rccc_off)
{
	struct t_wire w = { .delay_ns = 5000 };
	struct t_sim *s = t_sim_new(&w, 98, 2);
	struct pdc_stats st;
	struct pdc_cfg cfg;

	t_cfg_lossy(&cfg, 99);
	cfg.cc = PDC_CC_NSCC | PDC_CC_RCCC;
	t_end_start(s, 0, &cfg);
	cfg.seed = 100;
	cfg.cc = 0;
	t_end_start(s, 1, &cfg);
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 200, 0);
	cr_assert(t_sim_run(s, 5000000000ull, t_sim_senders_done),
		  "stuck: %u of 200", s->end[0]->fin_cnt);
	cr_expect_eq(s->end[0]->ok_cnt, 200);
	pdc_mgr_stats(s->end[0]->mgr, &st);
	cr_expect_eq(st.rccc_off, 1);
	cr_expect_eq(st.rccc_credits_rx, 0);
	t_sim_free(s);
}

/*
 * A trim is no loss: with half the requests trimmed and 2 tries allowed,
 * packets trimmed twice and then lost (2% of frames) are resent, not
 * counted out; every message arrives and no PDC fails (without the rule
 * the PDC fails: checked).
 */
Test(pdc_nscc, trims_are_no_tries_against_max_retries)
{
	struct t_wire w = { .trim_ppm = 500000, .loss_ppm = 20000,
			    .delay_ns = 5000 };
	struct pdc_stats sa;
	struct pdc_cfg cfg;
	struct t_sim *s;

	t_cfg_lossy(&cfg, 74);
	cfg.cc = PDC_CC_NSCC;
	cfg.trimming = true;
	cfg.max_retries = 2;
	s = t_cc_start(&w, 73, 2, &cfg);
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 500, 0);
	cr_assert(t_sim_run(s, 10000000000ull, t_sim_senders_done));
	t_cc_all_once(s, 0, 1, 500);
	pdc_mgr_stats(s->end[0]->mgr, &sa);
	cr_expect_gt(s->trimmed, 500 / 2);
	cr_expect_eq(sa.pdc_failed, 0);
	t_sim_free(s);
}

static uint32_t t_pace_half;

static bool t_half_done(struct t_sim *s)
{
	return s->end[0]->fin_cnt >= t_pace_half;
}

/* Holds the sender's window at 4 bytes: every ACK bounds it by max_wnd. */
static bool t_pin_window(struct t_sim *s, int from, int to,
			 const uint8_t *buf, size_t len)
{
	struct pdc *p = s->end[0]->mgr->send_cache;

	(void)from, (void)to, (void)buf, (void)len;
	if (p && p->ini.nscc) {
		p->ini.cc.max_wnd = 4.0;
		if (p->ini.cc.cwnd > 4.0)
			p->ini.cc.cwnd = 4.0;
	}
	return true;
}

/*
 * A window below a packet is a rate (pdc_nscc_pace): the sender's window
 * held at 4 bytes (NSCC's floor is MSS / 16, the simulator's MSS 64),
 * below its 16-byte packets. At one packet a window the second half of the
 * stream would take a round trip a packet (~14 us here, 10-14 before
 * pacing); paced, a new packet goes once per bytes / cwnd = 4 times the
 * base RTT and target (~40 us). Every message arrives once, and pacing
 * is no time-out.
 */
Test(pdc_nscc, a_window_below_a_packet_paces)
{
	struct t_wire w = { .delay_ns = 5000, .jitter_ns = 2000 };
	const uint32_t msgs = 400;
	struct pdc_stats st;
	struct pdc_cfg cfg;
	uint64_t t_half, per_msg;
	struct t_sim *s;

	t_cfg_lossy(&cfg, 91);
	cfg.cc = PDC_CC_NSCC;
	s = t_cc_start(&w, 92, 2, &cfg);
	s->tap = t_pin_window;
	t_end_plan(s, 0, 1, PDC_MODE_RUD, msgs, 0);
	t_pace_half = msgs / 2;
	cr_assert(t_sim_run(s, 10000000000ull, t_half_done));
	t_half = s->now;
	cr_assert(t_sim_run(s, 10000000000ull, t_sim_senders_done));
	t_cc_all_once(s, 0, 1, msgs);
	per_msg = (s->now - t_half) / (msgs - msgs / 2);
	cr_expect_geq(per_msg, 4 * 10000, "%llu ns a message: not paced",
		      (unsigned long long)per_msg);
	cr_expect_leq(per_msg, 4 * 30000, "%llu ns a message: slower than "
		      "the pace", (unsigned long long)per_msg);
	pdc_mgr_stats(s->end[0]->mgr, &st);
	cr_expect_eq(st.rto_fired, 0);
	t_sim_free(s);
}
