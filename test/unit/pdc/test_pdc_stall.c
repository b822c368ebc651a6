/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A blackhole of most paths, longer than the retry budget (the 3-minute
 * soak's, e2e_soak_mix.sh: one leaf-to-spine link of four dropping
 * everything 5 s, which leaves a cross-leaf packet and its ACK a quarter
 * of the EVs). Once the window stalls, no ACK brings a good EV back to
 * the ring, and each copy of the oldest packet explores one random EV:
 * resending only the oldest at each time-out tried one path a time-out,
 * and the PDC failed -ETIMEDOUT when max_retries copies all went to dead
 * paths ((3/4)^25 a stalled packet there, with a few dozen stalled in
 * each blackhole: about one soak in four).
 * Here 7 paths of 8 die for 40 ms, past the budget of max_retries 10,
 * in 16 streams: the old way failed 23 PDCs. A packet whose resend was
 * lost too takes a few others out as long with it, each on its own EV
 * (pdc_ini_stall_probes), and its next copy the EV that delivered last
 * (pdc_ev_pick): either alone still failed some of them.
 */
#include <criterion/criterion.h>

#include "pdc/pdc_priv.h"
#include "test/unit/pdc/test_pdc_sim.h"

#define T_PATHS_USED	8
#define T_HOLES		16
#define T_MSGS		4000
#define T_LIMIT_NS	(60ull * 1000000000ull)
#define T_HOLE_NS	(40ull * 1000000ull)	/* past the ~15 ms budget */
#define T_LONE_RUNS	200

TestSuite(pdc_stall, .timeout = 120);

static bool t_quarter_done(struct t_sim *s)
{
	return s->end[0]->fin_cnt >= T_MSGS / 4;
}

static uint64_t t_hole_end;

static bool t_hole_ended(struct t_sim *s)
{
	return s->now >= t_hole_end;
}

/*
 * One stream, and with a quarter of it done all paths but |live| dead
 * for T_HOLE_NS. Returns the initiator's failed PDCs.
 */
static uint64_t t_blackhole(uint64_t seed, uint32_t live)
{
	struct t_sim *s = t_fabric(T_PATHS_USED, NULL, PDC_MP_AWARE, seed);
	struct pdc_stats st;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, T_MSGS, 0);
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_quarter_done));
	for (uint32_t p = 0; p < T_PATHS_USED; p++)
		s->wire.path_dead[p] = p != live;
	t_hole_end = s->now + T_HOLE_NS;
	t_sim_run(s, T_LIMIT_NS, t_hole_ended);
	for (uint32_t p = 0; p < T_PATHS_USED; p++)
		s->wire.path_dead[p] = false;
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_sim_senders_done));
	cr_expect_eq(s->end[0]->ok_cnt + s->end[0]->err_cnt, T_MSGS);
	cr_expect_eq(s->end[1]->rx_dup, 0);
	st = t_stats(s, 0);
	if (st.pdc_failed)
		cr_log_info("seed %llu, path %u live: %u operations failed "
			    "(%d)", (unsigned long long)seed, live,
			    s->end[0]->err_cnt, s->end[0]->first_err);
	else
		cr_expect_eq(s->end[0]->ok_cnt, T_MSGS);
	t_sim_free(s);
	return st.pdc_failed;
}

Test(pdc_stall, a_window_stalled_by_dead_paths_finds_the_live_one)
{
	uint64_t failed = 0;

	for (uint32_t hole = 0; hole < T_HOLES; hole++)
		failed += t_blackhole(100 + hole, hole % T_PATHS_USED);
	cr_expect_eq(failed, 0, "%llu PDCs of %u failed in a blackhole of %u "
		     "paths of %u", (unsigned long long)failed, T_HOLES,
		     T_PATHS_USED - 1, T_PATHS_USED);
}

/*
 * A PDC with one packet out has no other to probe with: its copies alone
 * explored one EV a time-out, and in the blackhole above it failed when
 * every try went to a dead path. Each stalled copy now has a twin on
 * another EV (pdc_ini_twin). Here a PDC of one packet, all paths but one
 * dead from the start for T_HOLE_NS: returns 1 when it failed. Its tries
 * (max_retries 10 here) all find dead paths with (7/8)^11 = 23% alone, 47
 * of 200 runs; with twins from the third copy about (7/8)^20 = 7%: 17.
 */
static uint64_t t_lone(uint64_t seed)
{
	struct t_sim *s = t_fabric(T_PATHS_USED, NULL, PDC_MP_AWARE, seed);
	struct pdc_stats st;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, 1, 0);
	for (uint32_t p = 0; p < T_PATHS_USED; p++)
		s->wire.path_dead[p] = p != seed % T_PATHS_USED;
	t_hole_end = s->now + T_HOLE_NS;
	t_sim_run(s, T_LIMIT_NS, t_hole_ended);
	for (uint32_t p = 0; p < T_PATHS_USED; p++)
		s->wire.path_dead[p] = false;
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_sim_senders_done));
	cr_expect_eq(s->end[0]->ok_cnt + s->end[0]->err_cnt, 1);
	cr_expect_eq(s->end[1]->rx_dup, 0, "a twin delivered once");
	st = t_stats(s, 0);
	t_sim_free(s);
	return st.pdc_failed;
}

Test(pdc_stall, a_lone_stalled_packet_explores_two_paths_a_time_out)
{
	uint64_t failed = 0;

	for (uint32_t i = 0; i < T_LONE_RUNS; i++)
		failed += t_lone(500 + i);
	cr_log_info("lone packets: %llu of %u failed",
		    (unsigned long long)failed, T_LONE_RUNS);
	cr_expect_leq(failed, T_LONE_RUNS / 8, "%llu of %u lone packets failed "
		      "in a blackhole of %u paths of %u",
		      (unsigned long long)failed, T_LONE_RUNS,
		      T_PATHS_USED - 1, T_PATHS_USED);
}
