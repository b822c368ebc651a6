/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * 10,000 messages through a PDC pair over the simulated wire (loss,
 * duplication, jitter that reorders, ECN marks): RUD delivers each exactly
 * once, ROD each exactly once and in order, every send completes once with
 * the SES response it asked for, and no request runs past the window.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "test/unit/pdc/test_pdc_sim.h"

#define T_STREAM_MSGS	10000
#define T_SIM_LIMIT_NS	(60ull * 1000000000ull)

TestSuite(pdc_stream, .timeout = 60);

struct t_stream_opts {
	uint8_t mode;
	uint32_t loss_ppm, reply_loss_ppm, dup_ppm, ce_ppm;
	uint32_t start_psn;
	uint64_t seed;
	bool in_order;		/* no jitter, hence no reordering */
	bool implied;		/* t_end.implied */
	uint32_t resp_every;	/* 0: 4 */
};

static struct t_sim *t_stream_run(const struct t_stream_opts *o)
{
	struct t_wire w = {
		.loss_ppm = o->loss_ppm,
		.reply_loss_ppm = o->reply_loss_ppm,
		.dup_ppm = o->dup_ppm,
		.ce_ppm = o->ce_ppm,
		.delay_ns = 5000,
		.jitter_ns = o->in_order ? 0 : 5000,
	};
	struct t_sim *s = t_sim_new(&w, o->seed, 2);
	struct pdc_cfg cfg;

	t_cfg_lossy(&cfg, o->seed * 31 + 7);
	cfg.start_psn = o->start_psn;
	t_end_start(s, 0, &cfg);
	cfg.seed++;
	t_end_start(s, 1, &cfg);
	s->win_limit = cfg.window;
	t_end_plan(s, 0, 1, o->mode, T_STREAM_MSGS,
		   o->resp_every ? o->resp_every : 4);
	s->end[0]->implied = o->implied;
	if (!t_sim_run(s, T_SIM_LIMIT_NS, t_sim_senders_done)) {
		struct pdc_stats a, b;

		pdc_mgr_stats(s->end[0]->mgr, &a);
		pdc_mgr_stats(s->end[1]->mgr, &b);
		cr_assert_fail("not done at %llu ns: fin %u next %u ok %u err %d; "
			       "a: req %llu retx %llu ack %llu nack %llu pdcs %llu; "
			       "b: req %llu dup %llu dlv %llu ack %llu nack %llu",
			       (unsigned long long)s->now, s->end[0]->fin_cnt,
			       s->end[0]->next_seq, s->end[0]->ok_cnt,
			       s->end[0]->first_err,
			       (unsigned long long)a.tx_req,
			       (unsigned long long)a.tx_retx,
			       (unsigned long long)a.rx_ack,
			       (unsigned long long)a.rx_nack,
			       (unsigned long long)a.pdcs,
			       (unsigned long long)b.rx_req,
			       (unsigned long long)b.rx_dup,
			       (unsigned long long)b.rx_delivered,
			       (unsigned long long)b.tx_ack,
			       (unsigned long long)b.tx_nack);
	}
	return s;
}

/* The invariants of every reliable stream. */
static void t_stream_check(struct t_sim *s, uint8_t mode)
{
	struct t_end *a = s->end[0], *b = s->end[1];
	uint32_t seq, missing = 0, extra = 0;

	cr_expect_eq(a->ok_cnt, T_STREAM_MSGS, "ok %u err %u (%d)", a->ok_cnt,
		     a->err_cnt, a->first_err);
	cr_expect_eq(a->done_dup, 0);
	cr_expect_eq(a->resp_bad, 0, "bad responses: %u", a->resp_bad);
	for (seq = 0; seq < T_STREAM_MSGS; seq++) {
		missing += b->rx[0][0][0][seq] == 0;
		extra += b->rx[0][0][0][seq] > 1;
	}
	cr_expect_eq(missing, 0, "%u never delivered", missing);
	cr_expect_eq(extra, 0, "%u delivered twice", extra);
	cr_expect_eq(b->rx_dup, 0);
	cr_expect_eq(b->rx_bad, 0);
	cr_expect_eq(b->rx_mix, 0);
	if (mode == PDC_MODE_ROD)
		cr_expect_eq(b->rx_order_err, 0, "%u out of order",
			     b->rx_order_err);
	cr_expect_eq(s->win_violations, 0, "ran %u past cack",
		     s->max_ahead);
}

static void t_stream(uint8_t mode, uint32_t loss_ppm, uint64_t seed)
{
	struct t_stream_opts o = {
		.mode = mode, .loss_ppm = loss_ppm, .dup_ppm = 20000,
		.seed = seed,
	};
	struct t_sim *s = t_stream_run(&o);

	t_stream_check(s, mode);
	if (loss_ppm)
		cr_expect_gt(s->dropped, 0);
	t_sim_free(s);
}

Test(pdc_stream, rud_loss_0pct) { t_stream(PDC_MODE_RUD, 0, 1); }
Test(pdc_stream, rud_loss_1pct) { t_stream(PDC_MODE_RUD, 10000, 2); }
Test(pdc_stream, rud_loss_5pct) { t_stream(PDC_MODE_RUD, 50000, 3); }
Test(pdc_stream, rud_loss_20pct) { t_stream(PDC_MODE_RUD, 200000, 4); }
Test(pdc_stream, rud_loss_30pct) { t_stream(PDC_MODE_RUD, 300000, 5); }
Test(pdc_stream, rod_loss_0pct) { t_stream(PDC_MODE_ROD, 0, 6); }
Test(pdc_stream, rod_loss_1pct) { t_stream(PDC_MODE_ROD, 10000, 7); }
Test(pdc_stream, rod_loss_5pct) { t_stream(PDC_MODE_ROD, 50000, 8); }
Test(pdc_stream, rod_loss_20pct) { t_stream(PDC_MODE_ROD, 200000, 9); }
Test(pdc_stream, rod_loss_30pct) { t_stream(PDC_MODE_ROD, 300000, 10); }

/* The start PSN sits 4000 below 2^32, so the stream wraps early on. */
static void t_wrap(uint8_t mode)
{
	struct t_stream_opts o = {
		.mode = mode, .loss_ppm = 50000, .dup_ppm = 20000,
		.start_psn = 0xFFFFFFFFu - 4000, .seed = 11 + mode,
	};
	struct t_sim *s = t_stream_run(&o);
	struct pdc_info info;

	t_stream_check(s, mode);
	cr_assert_eq(pdc_info_get(s->end[0]->mgr, 1, mode, &info), 0);
	cr_expect_eq(info.start_psn, 0xFFFFFFFFu - 4000);
	cr_expect_lt(info.next_psn, T_STREAM_MSGS, "did not wrap: %#x",
		     info.next_psn);
	t_sim_free(s);
}

Test(pdc_stream, rud_psn_wraps) { t_wrap(PDC_MODE_RUD); }
Test(pdc_stream, rod_psn_wraps) { t_wrap(PDC_MODE_ROD); }

/* Only ACKs and NACKs are lost: duplicates come back with stored responses. */
Test(pdc_stream, ack_loss_only)
{
	struct t_stream_opts o = {
		.mode = PDC_MODE_RUD, .reply_loss_ppm = 500000, .seed = 13,
	};
	struct t_sim *s = t_stream_run(&o);
	struct pdc_stats st;

	t_stream_check(s, PDC_MODE_RUD);
	pdc_mgr_stats(s->end[1]->mgr, &st);
	cr_expect_gt(st.rx_dup, 0, "no duplicate reached the target");
	/* Lost responses went out again, answering duplicates. */
	cr_expect_gt(st.tx_resp, T_STREAM_MSGS / 4 + T_STREAM_MSGS / 20,
		     "%llu responses sent", (unsigned long long)st.tx_resp);
	t_sim_free(s);
}

/*
 * Without asking for responses, as the engine sends: a PSN acknowledged
 * without a response was answered DEFAULT, so no ACK may cover a PSN that
 * has a response unless it carries it, whichever ACKs are lost (resp_bad
 * counts each packet that completed without its response).
 */
static void t_implied(uint32_t loss_ppm, uint32_t reply_loss_ppm,
		      uint32_t resp_every, uint64_t seed)
{
	struct t_stream_opts o = {
		.mode = PDC_MODE_RUD, .loss_ppm = loss_ppm,
		.reply_loss_ppm = reply_loss_ppm, .dup_ppm = 20000,
		.seed = seed, .implied = true, .resp_every = resp_every,
	};
	struct t_sim *s = t_stream_run(&o);
	struct pdc_stats st;

	t_stream_check(s, PDC_MODE_RUD);
	pdc_mgr_stats(s->end[1]->mgr, &st);
	/* Held responses were carried again, or ACKs stopped short of them. */
	cr_expect_gt(st.tx_resp_again, 0, "no response carried again");
	if (resp_every < 8)
		cr_expect_gt(st.tx_ack_held, 0, "no ACK stopped short");
	t_sim_free(s);
}

Test(pdc_stream, implied_clean) { t_implied(0, 0, 4, 31); }
Test(pdc_stream, implied_ack_loss) { t_implied(0, 300000, 4, 32); }
Test(pdc_stream, implied_loss_both_ways) { t_implied(50000, 200000, 4, 33); }
Test(pdc_stream, implied_rare_responses) { t_implied(50000, 200000, 97, 34); }

/* Marked ACKs shrink the window to its floor; clean ones open it fully. */
Test(pdc_stream, ecn_marks_shrink_window)
{
	struct t_stream_opts o = {
		.mode = PDC_MODE_RUD, .ce_ppm = T_PPM, .seed = 14,
	};
	struct t_sim *s = t_stream_run(&o);
	struct pdc_info info;

	t_stream_check(s, PDC_MODE_RUD);
	cr_assert_eq(pdc_info_get(s->end[0]->mgr, 1, PDC_MODE_RUD, &info), 0);
	cr_expect_eq(info.cwnd, s->end[0]->cfg.cwnd_min, "cwnd %u", info.cwnd);
	t_sim_free(s);
}

Test(pdc_stream, clean_acks_open_window)
{
	struct t_stream_opts o = { .mode = PDC_MODE_RUD, .seed = 15,
				   .in_order = true };
	struct t_sim *s = t_stream_run(&o);
	struct pdc_info info;

	t_stream_check(s, PDC_MODE_RUD);
	cr_assert_eq(pdc_info_get(s->end[0]->mgr, 1, PDC_MODE_RUD, &info), 0);
	cr_expect_eq(info.cwnd, s->end[0]->cfg.window, "cwnd %u", info.cwnd);
	cr_expect_gt(s->max_ahead, s->end[0]->cfg.cwnd_init);
	cr_expect_leq(s->max_ahead, s->end[0]->cfg.window);
	cr_expect_gt(info.srtt_ns, 0);
	t_sim_free(s);
}

/* SES refusing now and then (-EAGAIN) costs retries, never a message. */
Test(pdc_stream, ses_backpressure_retries)
{
	struct t_wire w = { .delay_ns = 5000, .jitter_ns = 5000 };
	struct t_sim *s = t_sim_new(&w, 16, 2);
	struct pdc_stats st;
	struct pdc_cfg cfg;
	uint32_t seq;

	t_cfg_lossy(&cfg, 16);
	t_end_start(s, 0, &cfg);
	t_end_start(s, 1, &cfg);
	s->end[1]->eagain_every = 7;
	t_end_plan(s, 0, 1, PDC_MODE_ROD, 2000, 0);
	cr_assert(t_sim_run(s, T_SIM_LIMIT_NS, t_sim_senders_done));
	cr_expect_eq(s->end[0]->ok_cnt, 2000);
	for (seq = 0; seq < 2000; seq++)
		cr_expect_eq(s->end[1]->rx[0][0][0][seq], 1);
	cr_expect_eq(s->end[1]->rx_order_err, 0);
	pdc_mgr_stats(s->end[1]->mgr, &st);
	cr_expect_gt(st.nack_tx_code[UET_PDS_NACK_NO_SES_MSG_AVAIL], 0);
	t_sim_free(s);
}

/*
 * A receiver out of room for 100 ms (its unexpected-message bound full
 * until its application posts receives, fi_msg_check's flood) with the
 * product's timers: the packets past the bound wait at the sender and
 * all arrive once, in order, none failed. In ROD every later packet draws
 * ROD_OOO for the refused one, and those go-backs resent it once a round
 * trip: its tries ran out within tens of ms (CI: 976 sends ETIMEDOUT 54 ms
 * after the first past the bound).
 */
static void t_refused_for(uint8_t mode, uint64_t seed)
{
	/* One path, no jitter: ROD keeps one EV, and nothing reorders. */
	struct t_wire w = { .delay_ns = 20000 };
	struct t_sim *s = t_sim_new(&w, seed, 2);
	struct pdc_cfg cfg;
	uint32_t seq;

	t_cfg_lossy(&cfg, seed);
	cfg.rto_init_ns = 1000000;	/* pdc_cfg_init's */
	cfg.rto_min_ns = 200000;
	cfg.rto_max_ns = 64000000;
	cfg.max_retries = 10;
	cfg.time_wait_ns = 1000000000;
	t_end_start(s, 0, &cfg);
	t_end_start(s, 1, &cfg);
	s->end[1]->eagain_after = 64;
	s->end[1]->eagain_until_ns = 100000000;
	t_end_plan(s, 0, 1, mode, 200, 0);
	cr_assert(t_sim_run(s, T_SIM_LIMIT_NS, t_sim_senders_done));
	cr_expect_eq(s->end[0]->err_cnt, 0, "%u failed (%s) at %llu us",
		     s->end[0]->err_cnt, strerror(-s->end[0]->first_err),
		     (unsigned long long)s->end[0]->first_err_ns / 1000);
	cr_expect_eq(s->end[0]->ok_cnt, 200);
	for (seq = 0; seq < 200; seq++)
		cr_expect_eq(s->end[1]->rx[0][0][0][seq], 1, "message %u", seq);
	cr_expect_eq(s->end[1]->rx_order_err, 0);
	t_sim_free(s);
}

Test(pdc_stream, refused_100ms_rod) { t_refused_for(PDC_MODE_ROD, 41); }
Test(pdc_stream, refused_100ms_rud) { t_refused_for(PDC_MODE_RUD, 42); }

/* UUD: no PDC, no ACK; what the wire loses is simply lost. */
Test(pdc_stream, uud_is_best_effort)
{
	struct t_wire w = { .loss_ppm = 100000, .delay_ns = 5000 };
	struct t_sim *s = t_sim_new(&w, 17, 2);
	struct pdc_stats st;
	struct pdc_cfg cfg;

	t_cfg_lossy(&cfg, 17);
	t_end_start(s, 0, &cfg);
	t_end_start(s, 1, &cfg);
	t_end_plan(s, 0, 1, PDC_MODE_UUD, 1000, 0);
	cr_assert(t_sim_run(s, T_SIM_LIMIT_NS, NULL));
	cr_expect_eq(s->end[0]->ok_cnt, 1000);
	cr_expect_eq(s->end[1]->rx_uud, s->end[1]->rx_cnt);
	cr_expect_eq(s->end[1]->rx_cnt + s->dropped, 1000);
	cr_expect_gt(s->end[1]->rx_cnt, 800);
	pdc_mgr_stats(s->end[0]->mgr, &st);
	cr_expect_eq(st.pdcs, 0);
	cr_expect_eq(st.tx_uud, 1000);
	t_sim_free(s);
}
