/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Failures: a black hole ends in errors within a bounded simulated time, a
 * target that restarts or an initiator that restarts is detected and
 * nothing of the old incarnation reaches the new one, and a target out of
 * PDCs answers NO_PDC_AVAIL until it has room (or the initiator gives up).
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "test/unit/pdc/test_pdc_sim.h"

#define T_SEC	1000000000ull
#define T_MS	1000000ull
#define T_US	1000ull

TestSuite(pdc_fail, .timeout = 60);

static struct t_sim *t_pair(const struct t_wire *w, uint64_t seed,
			    struct pdc_cfg *cfg)
{
	struct t_sim *s = t_sim_new(w, seed, 2);

	t_cfg_lossy(cfg, seed);
	t_end_start(s, 0, cfg);
	cfg->seed = seed + 1000;
	t_end_start(s, 1, cfg);
	return s;
}

/* Sum of the backed-off RTOs for every try, plus one RTO of slack. */
static uint64_t t_give_up_bound(const struct pdc_cfg *cfg)
{
	uint64_t rto = cfg->rto_init_ns, sum = 0;
	uint32_t i;

	for (i = 0; i <= cfg->max_retries + 1; i++) {
		sum += rto;
		rto = rto * 2 > cfg->rto_max_ns ? cfg->rto_max_ns : rto * 2;
	}
	return sum;
}

Test(pdc_fail, black_hole_errors_in_bounded_time)
{
	struct t_wire w = { .delay_ns = 5000, .black_hole = true };
	struct pdc_stats st;
	struct pdc_cfg cfg;
	struct t_sim *s = t_pair(&w, 31, &cfg);
	uint64_t t0 = s->now;

	cfg.max_retries = 8;
	s->end[0]->cfg.max_retries = 8;
	t_end_restart(s, 0, 31);	/* with the lower retry count */
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 100, 0);
	cr_assert(t_sim_run(s, 10 * T_SEC, t_sim_senders_done));
	cr_expect_leq(s->now - t0, t_give_up_bound(&cfg), "took %llu ns",
		      (unsigned long long)(s->now - t0));
	cr_expect_eq(s->end[0]->err_cnt, 100);
	cr_expect_eq(s->end[0]->first_err, -ETIMEDOUT);
	cr_expect_eq(s->end[0]->ev_cnt[PDC_EV_FAILED], 1);
	pdc_mgr_stats(s->end[0]->mgr, &st);
	cr_expect_eq(st.pdcs, 0);
	cr_expect_eq(st.pdc_failed, 1);
	/* Nothing left to do: the run ends by itself, no hang. */
	cr_expect(t_sim_run(s, 20 * T_SEC, NULL));
	t_sim_free(s);
}

static bool t_half_done(struct t_sim *s)
{
	return s->end[0]->ok_cnt >= s->end[0]->msg_cnt / 2;
}

/*
 * 4000 messages from A to B in |mode|; at half of them the wire turns to a
 * black hole and the run goes on until A is done. The time it turned.
 */
static uint64_t t_black_hole_at_half(struct t_sim *s, uint8_t mode)
{
	uint64_t t0;

	t_end_plan(s, 0, 1, mode, 4000, 0);
	cr_assert(t_sim_run(s, 10 * T_SEC, t_half_done));
	s->wire.black_hole = true;
	t0 = s->now;
	cr_assert(t_sim_run(s, 10 * T_SEC, t_sim_senders_done));
	return t0;
}

Test(pdc_fail, black_hole_mid_stream)
{
	struct t_wire w = { .loss_ppm = 10000, .delay_ns = 5000,
			    .jitter_ns = 5000 };
	struct pdc_cfg cfg;
	struct t_sim *s = t_pair(&w, 32, &cfg);
	uint64_t t0 = t_black_hole_at_half(s, PDC_MODE_ROD);

	/* The first error within one give-up period; later PDCs fail too. */
	cr_expect_leq(s->end[0]->first_err_ns - t0, t_give_up_bound(&cfg));
	cr_expect_gt(s->end[0]->err_cnt, 0);
	cr_expect_eq(s->end[0]->ok_cnt + s->end[0]->err_cnt, 4000);
	cr_expect_eq(s->end[0]->first_err, -ETIMEDOUT);
	cr_expect_eq(s->end[0]->done_dup, 0);
	t_sim_free(s);
}

/*
 * How long a silent target is given (pdc_ini_copies_end). An established
 * PDC's copies name the target's PDCID, so they go on while tries are
 * left, past half the TIME_WAIT (a target off the CPU for seconds is not
 * a dead one); copies that open a PDC (SYN) still end there: a late one
 * could open it again at a target that forgot it.
 */
Test(pdc_fail, established_pdc_gets_its_tries_past_half_time_wait)
{
	struct t_wire w = { .delay_ns = 5000 };
	struct pdc_cfg cfg;
	struct t_sim *s = t_pair(&w, 33, &cfg);
	/* t_cfg_lossy: 40 tries of up to 2 ms (about 73 ms), TIME_WAIT 100 */
	uint64_t t0 = t_black_hole_at_half(s, PDC_MODE_RUD);

	cr_expect_eq(s->end[0]->first_err, -ETIMEDOUT);
	/* Ended by half the TIME_WAIT, 51 ms; by the tries, 71 ms. */
	cr_expect_gt(s->end[0]->first_err_ns - t0,
		     cfg.time_wait_ns / 2 + 10 * T_MS,
		     "failed %llu us after the link died",
		     (unsigned long long)(s->end[0]->first_err_ns - t0) / 1000);
	cr_expect_leq(s->end[0]->first_err_ns - t0, t_give_up_bound(&cfg));
	cr_expect_eq(s->end[0]->ok_cnt + s->end[0]->err_cnt, 4000);
	t_sim_free(s);
}

Test(pdc_fail, syn_copies_end_at_half_time_wait)
{
	struct t_wire w = { .delay_ns = 5000, .black_hole = true };
	struct pdc_cfg cfg;
	struct t_sim *s = t_pair(&w, 34, &cfg);
	uint64_t t0 = s->now;

	cfg.max_retries = 200;		/* about 400 ms of tries */
	s->end[0]->cfg.max_retries = 200;
	t_end_restart(s, 0, 34);
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 10, 0);
	cr_assert(t_sim_run(s, 10 * T_SEC, t_sim_senders_done));
	cr_expect_eq(s->end[0]->err_cnt, 10);
	cr_expect_eq(s->end[0]->first_err, -ETIMEDOUT);
	cr_expect_leq(s->end[0]->first_err_ns - t0,
		      cfg.time_wait_ns / 2 + cfg.rto_max_ns, "failed at %llu us",
		      (unsigned long long)(s->end[0]->first_err_ns - t0) / 1000);
	t_sim_free(s);
}

/*
 * A target that refuses for ever (NO_SES_MSG_AVAIL: no receives posted)
 * at the largest max_retries: refused copies are forgiven up to 64, so the
 * tries alone would never run out; 255 copies end it.
 */
Test(pdc_fail, refused_for_ever_ends_at_255_copies)
{
	struct t_wire w = { .delay_ns = 5000 };
	struct pdc_cfg cfg;
	struct t_sim *s = t_pair(&w, 35, &cfg);
	struct pdc_stats st;

	cfg.max_retries = 249;
	cfg.time_wait_ns = 1000 * T_SEC;	/* time never ends it */
	s->end[0]->cfg = cfg;
	t_end_restart(s, 0, 35);
	s->end[1]->eagain_after = 1;
	s->end[1]->eagain_until_ns = UINT64_MAX;
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 4, 0);
	cr_assert(t_sim_run(s, 100 * T_SEC, t_sim_senders_done),
		  "still sending at %llu ms", (unsigned long long)s->now /
					      T_MS);
	cr_expect_eq(s->end[0]->ok_cnt, 1);
	cr_expect_eq(s->end[0]->err_cnt, 3);
	pdc_mgr_stats(s->end[0]->mgr, &st);
	cr_expect_leq(st.tx_retx, 3 * 255, "%llu copies",
		      (unsigned long long)st.tx_retx);
	t_sim_free(s);
}

/*
 * The target crashes and comes back empty. The initiator's PDC is refused
 * (INV_DPDCID), its pending packets fail with ECONNRESET, later ones go
 * through a new PDC, and the new target never sees an old packet.
 */
Test(pdc_fail, target_restart_mid_stream)
{
	struct t_wire w = { .loss_ppm = 50000, .dup_ppm = 20000,
			    .delay_ns = 5000, .jitter_ns = 5000 };
	struct pdc_cfg cfg;
	struct t_sim *s = t_pair(&w, 33, &cfg);
	struct t_end *a = s->end[0], *b = s->end[1];
	struct pdc_stats st;
	uint32_t seq, old_new = 0, twice = 0, lost = 0;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, 4000, 3);
	cr_assert(t_sim_run(s, 10 * T_SEC, t_half_done));
	t_end_restart(s, 1, 4242);
	cr_assert(t_sim_run(s, 10 * T_SEC, t_sim_senders_done));
	cr_expect_eq(a->done_dup, 0);
	cr_expect_gt(a->err_cnt, 0);
	cr_expect_eq(a->first_err, -ECONNRESET);
	cr_expect_geq(a->ev_cnt[PDC_EV_PEER_RESTART], 1);
	cr_expect_geq(a->ev_cnt[PDC_EV_FAILED], 1);
	cr_expect_geq(a->log_cnt, 1);
	cr_expect_eq(a->resp_bad, 0);
	for (seq = 0; seq < 4000; seq++) {
		uint32_t got = b->rx[0][0][0][seq] + b->rx[1][0][0][seq];

		old_new += seq < a->fail_seq && b->rx[1][0][0][seq];
		twice += got > 1;
		lost += a->status[0][seq] == 0 && got != 1;
	}
	cr_expect_eq(old_new, 0, "%u old packets reached the new target",
		     old_new);
	cr_expect_eq(twice, 0);
	cr_expect_eq(lost, 0, "%u acknowledged but not delivered once", lost);
	cr_expect_gt(a->ok_cnt, 2000);
	pdc_mgr_stats(b->mgr, &st);
	cr_expect_gt(st.nack_tx_code[UET_PDS_NACK_INV_DPDCID], 0);
	t_sim_free(s);
}

/*
 * The initiator crashes with packets still on the wire and comes back with
 * a new seed. Old packets may still reach the old target PDC, never the
 * new one; every new message arrives exactly once; and the new one's PDC
 * has a later open_seq than the old one's, late packets or not.
 */
static void t_initiator_restart(uint64_t new_seed, bool same_pdcid)
{
	struct t_wire w = { .loss_ppm = 50000, .dup_ppm = 20000,
			    .delay_ns = 5000, .jitter_ns = 20000 };
	struct pdc_cfg cfg;
	struct t_sim *s = t_pair(&w, 34, &cfg);
	struct t_end *a = s->end[0], *b = s->end[1];
	struct pdc_stats st;
	uint32_t seq;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, 4000, 3);
	cr_assert(t_sim_run(s, 10 * T_SEC, t_half_done));
	cr_assert_gt(s->q_cnt, 0, "want old frames in flight");
	t_end_restart(s, 0, new_seed);
	cr_assert(t_sim_run(s, 10 * T_SEC, t_sim_senders_done));
	cr_expect_eq(a->fin_cnt, 4000);
	for (seq = 0; seq < 4000; seq++) {
		cr_expect_eq(a->status[1][seq], 0);
		cr_expect_eq(b->rx[0][0][1][seq], 1, "new %u: %u", seq,
			     b->rx[0][0][1][seq]);
		cr_expect_leq(b->rx[0][0][0][seq], 1);
	}
	cr_expect_eq(b->rx_mix, 0, "a PDC carried both incarnations");
	/* Every PDC of the new one opened after every PDC of the old one. */
	cr_expect_gt(b->open_min[0][0][1], b->open_max[0][0][0]);
	cr_expect_eq(a->resp_bad, 0);
	pdc_mgr_stats(b->mgr, &st);
	if (same_pdcid)
		cr_expect_geq(st.peer_restarts, 1);
	t_sim_free(s);
}

Test(pdc_fail, initiator_restart_mid_stream)
{
	t_initiator_restart(777, false);
}

/* The seed that makes a fresh manager reuse |pdcid| with another start. */
static uint64_t t_seed_for_pdcid(uint16_t pdcid, uint32_t start)
{
	struct pdc_pkt pkt = { .peer = 1, .len = T_PAYLOAD_LEN,
			       .mode = PDC_MODE_RUD,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	struct t_wire w = { 0 };
	struct t_sim *s = t_sim_new(&w, 1, 1);
	struct pdc_info info;
	struct pdc_cfg cfg;
	uint64_t seed;

	for (seed = 5000; seed < 6000; seed++) {
		t_cfg_lossy(&cfg, seed);
		t_end_start(s, 0, &cfg);
		cr_assert_eq(pdc_send(s->end[0]->mgr, &pkt, 0), 0);
		cr_assert_eq(pdc_info_get(s->end[0]->mgr, 1, PDC_MODE_RUD,
					  &info), 0);
		pdc_mgr_destroy(s->end[0]->mgr);
		s->end[0]->mgr = NULL;
		if (info.pdcid == pdcid && info.start_psn != start)
			break;
	}
	t_sim_free(s);
	cr_assert_lt(seed, 6000, "no seed reuses PDCID %#x", pdcid);
	return seed;
}

/* Same PDCID, new start PSN: the target retires the old PDC. */
Test(pdc_fail, initiator_restart_reusing_its_pdcid)
{
	struct pdc_pkt pkt = { .peer = 1, .len = T_PAYLOAD_LEN,
			       .mode = PDC_MODE_RUD,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	struct t_wire w = { 0 };
	struct t_sim *s = t_sim_new(&w, 1, 1);
	struct pdc_info info;
	struct pdc_cfg cfg;

	/* The PDC t_pair(34) opens first. */
	t_cfg_lossy(&cfg, 34);
	t_end_start(s, 0, &cfg);
	cr_assert_eq(pdc_send(s->end[0]->mgr, &pkt, 0), 0);
	cr_assert_eq(pdc_info_get(s->end[0]->mgr, 1, PDC_MODE_RUD, &info), 0);
	t_sim_free(s);
	t_initiator_restart(t_seed_for_pdcid(info.pdcid, info.start_psn), true);
}

/*
 * B can hold two PDCs: its own to A and A's to it. C's SYN is refused with
 * NO_PDC_AVAIL until B's own PDC closes (idle, or to make room once it has
 * nothing outstanding); C's retries then get in. C's TIME_WAIT sets how
 * long it waits out refusals (PDC_NO_ROOM_BUDGET_TW of them).
 */
static struct t_sim *t_full_target(uint64_t b_idle_ns, uint32_t b_msgs,
				   uint64_t c_time_wait_ns)
{
	struct t_wire w = { .delay_ns = 5000 };
	struct t_sim *s = t_sim_new(&w, 35, 3);
	struct pdc_cfg cfg;

	t_cfg_lossy(&cfg, 35);
	t_end_start(s, 0, &cfg);
	cfg.seed = 36;
	cfg.time_wait_ns = c_time_wait_ns;
	t_end_start(s, 1, &cfg);
	cfg.seed = 37;
	cfg.time_wait_ns = 100 * T_MS;
	cfg.max_pdcs = 2;
	cfg.idle_ns = b_idle_ns;
	t_end_start(s, 2, &cfg);
	t_end_plan(s, 2, 0, PDC_MODE_RUD, b_msgs, 0);	/* B's own PDC */
	t_end_plan(s, 0, 2, PDC_MODE_RUD, 3000, 0);
	/* Let B's two PDCs exist before C asks. */
	cr_assert(t_sim_run(s, 100000 + s->now, NULL) || true);
	t_end_plan(s, 1, 2, PDC_MODE_RUD, 200, 0);
	cr_assert(t_sim_run(s, 10 * T_SEC, t_sim_senders_done));
	return s;
}

Test(pdc_fail, no_pdc_avail_until_room)
{
	struct t_sim *s = t_full_target(200000, 1, 100 * T_MS);
	struct pdc_stats st_b, st_c;
	uint32_t seq;

	cr_expect_eq(s->end[1]->ok_cnt, 200, "C: %u ok, err %d",
		     s->end[1]->ok_cnt, s->end[1]->first_err);
	for (seq = 0; seq < 200; seq++)
		cr_expect_eq(s->end[2]->rx[0][1][0][seq], 1);
	pdc_mgr_stats(s->end[2]->mgr, &st_b);
	pdc_mgr_stats(s->end[1]->mgr, &st_c);
	cr_expect_gt(st_b.nack_tx_code[UET_PDS_NACK_NO_PDC_AVAIL], 0);
	cr_expect_gt(st_c.nack_rx_code[UET_PDS_NACK_NO_PDC_AVAIL], 0);
	t_sim_free(s);
}

Test(pdc_fail, no_pdc_avail_gives_up_with_ebusy)
{
	/* B's PDCs stay busy longer than C waits (3 x 100 us). */
	struct t_sim *s = t_full_target(0, 3000, 100 * T_US);
	struct pdc_stats st;

	pdc_mgr_stats(s->end[1]->mgr, &st);
	cr_expect_eq(s->end[1]->err_cnt, 200);
	cr_expect_eq(s->end[1]->first_err, -EBUSY);
	cr_expect_eq(s->end[0]->ok_cnt, 3000);
	cr_expect_eq(s->end[2]->ok_cnt, 3000);
	cr_expect_gt(st.no_room_waits, 1, "C waited before giving up");
	t_sim_free(s);
}

/*
 * Ephemeral PDCs under pressure: B's table (two slots) holds its own busy
 * PDC and A's, quiet after one message (A never closes on its own). C's
 * SYN finds it full: B asks A to close at once (not after idle_ns), A's
 * empty PDC closes, and C gets the slot it leaves. Nobody's live PDC is
 * evicted and nothing fails.
 */
Test(pdc_fail, a_full_target_asks_a_quiet_initiator_to_close)
{
	struct t_wire w = { .delay_ns = 5000 };
	struct t_sim *s = t_sim_new(&w, 38, 3);
	struct pdc_info info;
	struct pdc_stats st;
	struct pdc_cfg cfg;

	t_cfg_lossy(&cfg, 38);
	t_end_start(s, 0, &cfg);
	cfg.seed = 39;
	t_end_start(s, 1, &cfg);
	cfg.seed = 40;
	cfg.max_pdcs = 2;
	cfg.tgt_reserve = 1;
	t_end_start(s, 2, &cfg);
	t_end_plan(s, 0, 2, PDC_MODE_RUD, 1, 0);
	t_end_plan(s, 2, 0, PDC_MODE_RUD, 3000, 0);
	cr_assert(t_sim_run(s, 2 * T_MS, NULL) || true);
	cr_assert_eq(s->end[0]->ok_cnt, 1);
	t_end_plan(s, 1, 2, PDC_MODE_RUD, 200, 0);
	cr_assert(t_sim_run(s, 10 * T_SEC, t_sim_senders_done));
	cr_expect_eq(s->end[1]->ok_cnt, 200, "C: %u ok, err %d",
		     s->end[1]->ok_cnt, s->end[1]->first_err);
	cr_expect_eq(s->end[2]->ok_cnt, 3000);
	cr_expect_eq(pdc_info_get(s->end[0]->mgr, 2, PDC_MODE_RUD, &info),
		     -ENOENT, "A's PDC closed, asked to");
	cr_expect_eq(s->end[0]->ev_err[PDC_EV_CLOSED], 0);
	pdc_mgr_stats(s->end[2]->mgr, &st);
	cr_expect_geq(st.close_req_pressure, 1);
	cr_expect_eq(st.tgt_evicted, 0);
	t_sim_free(s);
}
