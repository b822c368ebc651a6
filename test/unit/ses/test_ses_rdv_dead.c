/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Rendezvous receives whose message can no longer finish: the sender dies
 * once its READ was acknowledged (data stops, or never comes), and
 * fi_cancel of a receive matched to a message in progress (a pull, a pull
 * not yet started, an eager message still arriving). None may leave the
 * receive posted forever, and a canceled one is never written again.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "t_ses_rdv.h"

/* b keeps no bytes of an unexpected message, and |b_max_msgs| at once. */
static void t_setup_msgs(uint32_t b_max_msgs)
{
	const struct t_rdv_opts o = {
		.seed = 5, .b_eager_only = true, .b_max_msgs = b_max_msgs,
		.sink_len = 2 * T_BIG, .src_mul = 7, .src_shift = 9,
		.start_ns = 1000 * T_MS,	/* a monotonic clock is never 0 */
	};

	t_rdv_setup(&o);
}

static void t_setup(void)
{
	t_setup_msgs(4096);
}

TestSuite(ses_rdv_dead, .init = t_setup, .fini = t_teardown, .timeout = 30);

static bool t_is_data(const struct t_pkt *p)
{
	return p->src == a.id && p->next_hdr == UET_PDS_NEXT_HDR_RESPONSE_DATA;
}

/* Steps until READ data from a is on the wire; returns how much is. */
static size_t t_until_data(void)
{
	for (int i = 0; i < 100; i++) {
		size_t n = 0;

		for (size_t k = 0; k < w.q_cnt; k++)
			n += t_is_data(&w.q[k]);
		if (n)
			return n;
		cr_assert(t_wire_step(&w));
	}
	cr_assert_fail("no READ data");
	return 0;
}

/* Drops the READ data on the wire but the first |keep| packets. */
static void t_drop_data(size_t keep)
{
	for (size_t k = 0; k < w.q_cnt;) {
		struct t_pkt p;

		if (!t_is_data(&w.q[k]) || keep) {
			keep -= t_is_data(&w.q[k]);
			k++;
			continue;
		}
		p = t_wire_take(&w, k);
		t_pkt_free(&p);
	}
}

/* Delivers packet |k| of the queue, out of turn. */
static void t_take_deliver(size_t k)
{
	struct t_pkt p = t_wire_take(&w, k);

	t_wire_deliver(&w, &p);
	t_pkt_free(&p);
}

/* Runs the wire with the clock moved on by |ms|, in 50 ms steps. */
static void t_run_for(uint64_t ms)
{
	for (uint64_t t = 0; t < ms; t += 50) {
		w.now_ns += 50 * T_MS;
		t_wire_run(&w, 100000);
	}
}

/*
 * The sender acknowledged the READ, sent some of the data and died: the
 * receive fails once nothing came for the idle time-out, not before, and
 * the sender (were it alive) learns it.
 */
Test(ses_rdv_dead, sender_dies_mid_pull)
{
	struct ses_wre wr;
	struct ses_iov iov;

	t_recv_at(sink, T_BIG, 1, sink);
	t_send(&wr, &iov, T_BIG, 1);
	cr_assert_gt(t_until_data(), 3);
	t_drop_data(3);
	t_wire_run(&w, 1000);
	cr_assert_eq(w.q_cnt, 0);
	cr_assert_eq(b.rx_cnt, 0);
	cr_assert_eq(memcmp(sink, src, 3 * 4096), 0);
	t_run_for(4900);
	cr_assert_eq(b.rx_cnt, 0, "failed early");
	t_run_for(1000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, -EIO);
	cr_assert_eq(b.rx[0].rc, UET_SES_RC_UNDELIVERABLE);
	cr_assert_eq(b.rx[0].user_ctx, sink);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, -EREMOTEIO);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_UNDELIVERABLE);
	/* Nothing is left to end: a later message goes through. */
	memset(sink, 0, T_BIG);
	t_recv_at(sink, T_BIG, 2, sink);
	t_send(&wr, &iov, T_BIG, 2);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 2);
	cr_assert_eq(b.rx[1].status, 0);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
}

/* The READ never reached the sender, and never will (lost for good). */
Test(ses_rdv_dead, read_never_answered)
{
	struct ses_wre wr;
	struct ses_iov iov;
	bool dropped = false;

	t_recv_at(sink, T_BIG, 1, sink);
	t_send(&wr, &iov, T_BIG, 1);
	for (int i = 0; i < 100 && !dropped; i++) {
		for (size_t k = 0; k < w.q_cnt; k++) {
			struct t_pkt p;

			if (w.q[k].src != b.id || !w.q[k].is_req)
				continue;
			p = t_wire_take(&w, k);
			t_pkt_free(&p);
			dropped = true;
			break;
		}
		if (!dropped)
			cr_assert(t_wire_step(&w));
	}
	cr_assert(dropped);
	t_run_for(4900);
	cr_assert_eq(b.rx_cnt, 0, "failed early");
	t_run_for(1000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, -EIO);
}

/* A pull whose data keeps coming, however slowly, is not idle. */
Test(ses_rdv_dead, slow_pull_lives)
{
	struct ses_wre wr;
	struct ses_iov iov;

	t_recv_at(sink, T_BIG, 1, sink);
	t_send(&wr, &iov, T_BIG, 1);
	t_until_data();
	/* One data packet every 2 s: 25 of them take 50 s. */
	while (w.q_cnt) {
		size_t k = 0;

		for (k = 0; k < w.q_cnt && !t_is_data(&w.q[k]); k++)
			;
		if (k == w.q_cnt) {
			t_wire_run(&w, 1000);
			break;
		}
		t_take_deliver(k);
		for (int i = 0; i < 40; i++)
			t_tick(50);
		/* Answers (the READ's ACK) go; the data waits its turn. */
		for (size_t j = 0; j < w.q_cnt;) {
			if (t_is_data(&w.q[j]))
				j++;
			else
				t_take_deliver(j);
		}
	}
	t_wire_run(&w, 1000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, 0);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
}

/*
 * fi_cancel of a receive whose pull is under way: it comes back at once,
 * FI_ECANCELED; the data still coming is never placed; the sender's send
 * ends (nothing placed) and the next message goes through.
 */
Test(ses_rdv_dead, cancel_mid_pull)
{
	struct ses_wre wr;
	struct ses_iov iov;

	t_recv_at(sink, T_BIG, 1, sink);
	t_send(&wr, &iov, T_BIG, 1);
	cr_assert_gt(t_until_data(), 3);
	for (int i = 0; i < 3; i++)
		cr_assert(t_wire_step(&w));
	cr_assert_eq(ses_recv_cancel(b.s, sink), 0);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, -ECANCELED);
	cr_assert_eq(b.rx[0].len, 0);
	cr_assert_eq(b.rx[0].user_ctx, sink);
	cr_assert_eq(ses_recv_cancel(b.s, sink), -ENOENT);
	/* The buffer is the application's again. */
	memset(sink, 0xC5, 2 * T_BIG);
	t_wire_run(&w, 10000);
	for (size_t i = 0; i < 2 * T_BIG; i++)
		cr_assert_eq(sink[i], 0xC5, "byte %zu written after cancel", i);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_assert_eq(a.tx[0].cpl.modified_len, 0);
	t_run_for(6000);	/* no time-out of what is gone */
	cr_assert_eq(b.rx_cnt, 1);
	t_recv_at(sink, T_BIG, 2, sink + 1);
	t_send(&wr, &iov, T_BIG, 2);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 2);
	cr_assert_eq(b.rx[1].status, 0);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
}

/* Canceled while its READ waits for a message slot: it never starts. */
Test(ses_rdv_dead, cancel_pull_not_started)
{
	struct ses_wre wr[2];
	struct ses_iov iov[2];

	t_teardown();
	t_setup_msgs(1);
	t_recv_at(sink, T_BIG, 1, sink);
	t_recv_at(sink + T_BIG, T_BIG, 2, sink + T_BIG);
	t_send(&wr[0], &iov[0], T_BIG, 1);
	t_send(&wr[1], &iov[1], T_BIG, 2);
	/* Both matched; the second READ has no slot while the first runs. */
	while (w.q_cnt && b.rx_cnt == 0) {
		bool req2 = false;

		for (size_t k = 0; k < w.q_cnt; k++)
			req2 |= w.q[k].src == a.id && w.q[k].is_req;
		if (!req2)
			break;
		cr_assert(t_wire_step(&w));
	}
	cr_assert_eq(ses_recv_cancel(b.s, sink + T_BIG), 0);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, -ECANCELED);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 2);
	cr_assert_eq(b.rx[1].status, 0);
	cr_assert_eq(b.rx[1].user_ctx, sink);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
	cr_assert_eq(sink[T_BIG], 0xC5);
	cr_assert_eq(a.tx_cnt, 2);
	for (int i = 0; i < 2; i++) {
		const struct t_tx_rec *t = &a.tx[i];

		cr_assert_eq(t->cpl.status, 0);
		cr_assert_eq(t->cpl.modified_len, t->wre == &wr[0] ? T_BIG : 0);
	}
}

/* An eager message of two packets, canceled between them. */
Test(ses_rdv_dead, cancel_eager_arriving)
{
	struct ses_wre wr;
	struct ses_iov iov;

	t_recv_at(sink, 8192, 1, sink);
	t_send(&wr, &iov, 8192, 1);
	cr_assert(t_wire_step(&w));
	cr_assert_eq(b.rx_cnt, 0);
	cr_assert_eq(ses_recv_cancel(b.s, sink), 0);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, -ECANCELED);
	memset(sink, 0xC5, 8192);
	t_wire_run(&w, 10000);
	for (size_t i = 0; i < 8192; i++)
		cr_assert_eq(sink[i], 0xC5, "byte %zu written after cancel", i);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_assert_eq(a.tx[0].cpl.modified_len, 0);
}
