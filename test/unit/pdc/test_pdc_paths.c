/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Entropies over the simulated fabric (test_pdc_sim.h, wire.paths): an RUD
 * PDC sprays its packets over every path; reordering from paths of
 * different delays is not taken for loss; a dead path is left, not the
 * PDC, and found again once it lives; ROD keeps one path and moves only
 * after a loss; with multipath off a dead path is the PDC's end.
 */
#include <criterion/criterion.h>

#include "pdc/pdc_priv.h"
#include "test/unit/pdc/test_pdc_sim.h"

#define T_MSGS		4000
#define T_LIMIT_NS	(20ull * 1000000000ull)

TestSuite(pdc_paths, .timeout = 60);

/* Every message completed once and arrived once. */
static void t_all_delivered(const struct t_sim *s, uint32_t msgs)
{
	const struct t_end *a = s->end[0], *b = s->end[1];

	cr_assert_eq(a->ok_cnt, msgs, "ok %u of %u, err %u (%d)", a->ok_cnt,
		     msgs, a->err_cnt, a->first_err);
	cr_assert_eq(b->rx_cnt, msgs, "delivered %u of %u", b->rx_cnt, msgs);
	cr_assert_eq(b->rx_dup, 0);
}

static struct t_sim *t_stream(uint32_t paths, const uint32_t *delay_us,
			      uint8_t mp_mode, uint8_t mode, uint64_t seed)
{
	struct t_sim *s = t_fabric(paths, delay_us, mp_mode, seed);

	t_end_plan(s, 0, 1, mode, T_MSGS, 0);
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_sim_senders_done),
		  "not done: ok %u err %u", s->end[0]->ok_cnt,
		  s->end[0]->err_cnt);
	t_all_delivered(s, T_MSGS);
	return s;
}

Test(pdc_paths, rud_sprays_over_every_path)
{
	struct t_sim *s = t_stream(4, NULL, PDC_MP_AWARE, PDC_MODE_RUD, 11);
	struct pdc_stats st = t_stats(s, 0);

	for (int p = 0; p < 4; p++)
		cr_expect_gt(s->path_frames[p], s->frames / 10,
			     "path %d carried %llu of %llu frames", p,
			     (unsigned long long)s->path_frames[p],
			     (unsigned long long)s->frames);
	cr_expect_eq(st.tx_retx, 0, "%llu retransmissions without loss",
		     (unsigned long long)st.tx_retx);
	cr_expect_gt(st.ev_recycled, T_MSGS / 4, "recycled %llu",
		     (unsigned long long)st.ev_recycled);
	cr_expect_gt(st.ev_explored, 0);
	t_sim_free(s);
}

Test(pdc_paths, oblivious_sprays_too)
{
	struct t_sim *s = t_stream(4, NULL, PDC_MP_OBLIVIOUS, PDC_MODE_RUD, 12);

	for (int p = 0; p < 4; p++)
		cr_expect_gt(s->path_frames[p], s->frames / 10, "path %d", p);
	cr_expect_eq(t_stats(s, 0).ev_recycled, 0);
	t_sim_free(s);
}

/* Paths of 2, 6, 12 and 20 us (one way, 4 us more each direction:
 * RTTs from 12 to 48 us) reorder heavily; nothing is lost. */
Test(pdc_paths, reordering_is_not_loss)
{
	static const uint32_t delay_us[4] = { 2, 6, 12, 20 };
	struct t_sim *s = t_stream(4, delay_us, PDC_MP_OBLIVIOUS, PDC_MODE_RUD,
				   13);
	struct pdc_stats st = t_stats(s, 0);

	cr_expect_eq(st.tx_retx, 0, "%llu retransmissions (%llu by SACK, "
		     "%llu spurious) with no loss",
		     (unsigned long long)st.tx_retx,
		     (unsigned long long)st.retx_sack,
		     (unsigned long long)st.retx_spurious);
	t_sim_free(s);
}

static bool t_quarter_done(struct t_sim *s)
{
	return s->end[0]->fin_cnt >= T_MSGS / 4;
}

/* A path dies with the stream under way: the PDC leaves it. */
Test(pdc_paths, dead_path_is_left_not_the_pdc)
{
	struct t_sim *s = t_fabric(4, NULL, PDC_MP_AWARE, 14);
	uint64_t before, lost, after;
	struct pdc_stats st;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, T_MSGS, 0);
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_quarter_done));
	s->wire.path_dead[2] = true;
	before = s->path_frames[2];
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_sim_senders_done),
		  "not done: ok %u err %u (%d)", s->end[0]->ok_cnt,
		  s->end[0]->err_cnt, s->end[0]->first_err);
	t_all_delivered(s, T_MSGS);
	st = t_stats(s, 0);
	lost = s->path_lost[2];
	after = s->path_frames[2] - before;
	/* Only explorations (one new packet in 64) find it afterwards. */
	cr_expect_lt(after, s->frames / 16, "%llu frames went to the dead path "
		     "of %llu (explored %llu, retired %llu, req %llu, retx "
		     "%llu: rto %llu sack %llu probe %llu)",
		     (unsigned long long)after, (unsigned long long)s->frames,
		     (unsigned long long)st.ev_explored,
		     (unsigned long long)st.ev_retired,
		     (unsigned long long)st.tx_req,
		     (unsigned long long)st.tx_retx,
		     (unsigned long long)st.retx_rto,
		     (unsigned long long)st.retx_sack,
		     (unsigned long long)st.retx_probe);
	cr_expect_eq(lost, after);
	cr_expect_gt(st.ev_retired, 0);
	cr_expect_eq(st.pdc_failed, 0);
	t_sim_free(s);
}

static bool t_third_done(struct t_sim *s)
{
	return s->end[0]->fin_cnt >= T_MSGS;
}

static bool t_two_thirds_done(struct t_sim *s)
{
	return s->end[0]->fin_cnt >= 2 * T_MSGS;
}

/* The dead path comes back: exploration finds it and spraying resumes. */
Test(pdc_paths, path_that_comes_back_is_used_again)
{
	struct t_sim *s = t_fabric(4, NULL, PDC_MP_AWARE, 15);
	uint64_t mark, total;

	t_end_plan(s, 0, 1, PDC_MODE_RUD, 3 * T_MSGS, 0);
	s->wire.path_dead[1] = true;
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_third_done));
	s->wire.path_dead[1] = false;
	mark = s->path_frames[1];
	total = s->frames;
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_two_thirds_done));
	/*
	 * Explorations alone would put 1 packet in 256 there (1 in 64 new
	 * packets, a quarter of them on this path); the EVs found there come
	 * back clean and are reused, so its share grows towards a quarter
	 * (no congestion elsewhere here pushes it faster).
	 */
	cr_expect_gt(s->path_frames[1] - mark, (s->frames - total) / 20,
		     "path 1 carried %llu frames of %llu since it came back",
		     (unsigned long long)(s->path_frames[1] - mark),
		     (unsigned long long)(s->frames - total));
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_sim_senders_done));
	t_all_delivered(s, 3 * T_MSGS);
	t_sim_free(s);
}

/* ROD: one path; after it dies, another one, and still in order. */
Test(pdc_paths, rod_keeps_one_path_and_moves_on_loss)
{
	struct t_sim *s = t_fabric(4, NULL, PDC_MP_AWARE, 16);
	int used = 0, first = -1;

	t_end_plan(s, 0, 1, PDC_MODE_ROD, T_MSGS, 0);
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_quarter_done));
	for (int p = 0; p < 4; p++)
		if (s->path_frames[p]) {
			used++;
			first = p;
		}
	cr_assert_eq(used, 1, "ROD used %d paths", used);
	s->wire.path_dead[first] = true;
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_sim_senders_done),
		  "not done: ok %u err %u", s->end[0]->ok_cnt,
		  s->end[0]->err_cnt);
	t_all_delivered(s, T_MSGS);
	cr_expect_eq(s->end[1]->rx_order_err, 0);
	t_sim_free(s);
}

/* Multipath off: every frame takes the caller's one entropy, and when its
 * path dies so does the PDC, the failure the modes above avoid. */
Test(pdc_paths, off_dies_with_its_path)
{
	struct t_sim *s = t_fabric(4, NULL, PDC_MP_OFF, 17);

	t_end_plan(s, 0, 1, PDC_MODE_RUD, T_MSGS, 0);
	cr_assert(t_sim_run(s, T_LIMIT_NS, t_quarter_done));
	cr_assert_eq(s->path_frames[t_path_of(s, 0)], s->frames);
	s->wire.path_dead[t_path_of(s, 0)] = true;
	t_sim_run(s, T_LIMIT_NS, t_sim_senders_done);
	cr_expect_lt(s->end[0]->ok_cnt, T_MSGS);
	cr_expect_eq(s->end[0]->first_err, -ETIMEDOUT);
	t_sim_free(s);
}
