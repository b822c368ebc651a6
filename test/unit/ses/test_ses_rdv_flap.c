/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A rendezvous send its target took, and our PDC to that target failing
 * (ses_peer_fail -ETIMEDOUT: a link down longer than the retry budget).
 * The target reads the data and answers on a PDC of its own, which it
 * sends again after the flap: the send waits for that answer instead of
 * failing, for failed here it may have been received whole there, and
 * the application's resend then waits for ever for a receive the target
 * has no reason to post (issue 43, e2e_link_flap.sh c, tagged). A dead
 * target still fails it, within rdv_answer_wait_ns.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "t_ses_rdv.h"

static void t_setup(void)
{
	const struct t_rdv_opts o = {
		.seed = 9, .sink_len = T_BIG, .src_mul = 13, .src_shift = 8,
		.start_ns = 1000 * T_MS,	/* a monotonic clock is never 0 */
	};

	t_rdv_setup(&o);
}

TestSuite(ses_rdv_flap, .init = t_setup, .fini = t_teardown, .timeout = 30);

/* Takes b's deferred answer to a off the wire; there must be one. */
static struct t_pkt t_take_answer(void)
{
	size_t k;

	for (k = 0; k < w.q_cnt; k++)
		if (w.q[k].src == b.id && !w.q[k].is_req &&
		    !w.q[k].is_default &&
		    w.q[k].next_hdr == UET_PDS_NEXT_HDR_RESPONSE)
			break;
	cr_assert_lt(k, w.q_cnt, "no deferred answer from b");
	return t_wire_take(&w, k);
}

/*
 * The e2e case: b took the send, read it whole and completed its receive;
 * its answer is lost with its PDC and our PDC fails too. b's answer, sent
 * again on a new PDC seconds later, completes the send: received once,
 * completed once, without error.
 */
Test(ses_rdv_flap, answer_after_our_failure)
{
	struct ses_wre wr;
	struct ses_iov iov;
	struct t_pkt ans;

	t_recv(T_BIG, 1);
	t_send(&wr, &iov, T_BIG, 1);
	for (int i = 0; i < 10000 && b.rx_cnt == 0; i++)
		cr_assert(t_wire_step(&w));
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, 0);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
	ans = t_take_answer();
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 0);
	t_tick(1);
	cr_assert_eq(ses_peer_fail(a.s, b.id, -ETIMEDOUT), 0);
	cr_assert_eq(a.tx_cnt, 0, "the send b received failed (%d) with our "
		     "PDC", a.tx_cnt ? a.tx[0].cpl.status : 0);
	/* Every failing PDC of the flap says so; the send still waits. */
	t_tick(1500);
	cr_assert_eq(ses_peer_fail(a.s, b.id, -ETIMEDOUT), 0);
	cr_assert_eq(a.tx_cnt, 0);
	t_tick(1500);
	t_wire_deliver(&w, &ans);
	t_pkt_free(&ans);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].wre, &wr);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_assert_eq(a.tx[0].cpl.modified_len, T_BIG);
	cr_assert(ses_peer_is_idle(a.s, b.id));
}

/*
 * Under load our PDC may give up while the link works: b took the send
 * (its ACK is lost) and read it whole, and its answer is late. Served
 * READs of the send's buffer tell that b took it: it waits too.
 */
Test(ses_rdv_flap, answer_after_ack_lost)
{
	bool dropped = false;
	struct ses_wre wr;
	struct ses_iov iov;
	struct t_pkt ans;
	size_t k;

	t_recv(T_BIG, 1);
	t_send(&wr, &iov, T_BIG, 1);
	for (int i = 0; i < 10000 && b.rx_cnt == 0; i++) {
		for (k = 0; k < w.q_cnt && !dropped; k++) {
			if (w.q[k].src != b.id || !w.q[k].is_default)
				continue;
			ans = t_wire_take(&w, k);	/* the request's ACK */
			t_pkt_free(&ans);
			dropped = true;
		}
		cr_assert(t_wire_step(&w));
	}
	cr_assert(dropped);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, 0);
	ans = t_take_answer();
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 0);
	t_tick(1);
	cr_assert_eq(ses_peer_fail(a.s, b.id, -ETIMEDOUT), 0);
	cr_assert_eq(a.tx_cnt, 0, "the send b read whole failed (%d)",
		     a.tx_cnt ? a.tx[0].cpl.status : 0);
	t_tick(100);
	t_wire_deliver(&w, &ans);
	t_pkt_free(&ans);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_assert_eq(a.tx[0].cpl.modified_len, T_BIG);
}

/*
 * b took the send and never answers (it died): every failure within
 * rdv_answer_wait_ns of the first spares it, the first after fails it.
 */
Test(ses_rdv_flap, dead_target_fails_in_bounded_time)
{
	uint64_t wait_ms = a.cfg.rdv_answer_wait_ns / T_MS;
	struct ses_wre wr;
	struct ses_iov iov;

	cr_assert_gt(wait_ms, 2000);
	t_send(&wr, &iov, T_BIG, 1);	/* no receive: unexpected at b */
	t_wire_run(&w, 10000);
	cr_assert_eq(w.q_cnt, 0);
	cr_assert_eq(a.tx_cnt, 0);
	t_tick(1);
	cr_assert_eq(ses_peer_fail(a.s, b.id, -ETIMEDOUT), 0);
	cr_assert_eq(a.tx_cnt, 0);
	t_tick(wait_ms - 1000);
	cr_assert_eq(ses_peer_fail(a.s, b.id, -ETIMEDOUT), 0);
	cr_assert_eq(a.tx_cnt, 0, "failed before rdv_answer_wait_ns");
	t_tick(2000);
	cr_assert_eq(ses_peer_fail(a.s, b.id, -ETIMEDOUT), 0);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, -ETIMEDOUT);
	cr_assert(ses_peer_is_idle(a.s, b.id));
}

/*
 * After a flap our PDCs may keep timing out (a loaded target, a retry
 * budget of a few ms) past rdv_answer_wait_ns while b lives and answers
 * other messages: the send it took still waits, and completes when b's
 * application takes it.
 */
Test(ses_rdv_flap, live_target_outlasts_wait)
{
	uint64_t wait_ms = a.cfg.rdv_answer_wait_ns / T_MS;
	static uint8_t small_sink[64];
	struct ses_wre wr, small;
	struct ses_iov iov, small_iov;

	/* No receive yet: unexpected at b. */
	t_send(&wr, &iov, T_BIG, 1);
	t_wire_run(&w, 10000);
	t_tick(1);
	cr_assert_eq(ses_peer_fail(a.s, b.id, -ETIMEDOUT), 0);
	for (int i = 0; i < 4; i++) {
		t_tick(wait_ms / 2);
		/* b answers a small send: it lives. */
		t_recv_at(small_sink, sizeof(small_sink), 100 + i, NULL);
		t_send(&small, &small_iov, sizeof(small_sink), 100 + i);
		t_wire_run(&w, 10000);
		cr_assert_eq(a.tx_cnt, (unsigned)i + 1);
		cr_assert_eq(a.tx[i].wre, &small);
		t_tick(wait_ms / 2);
		cr_assert_eq(ses_peer_fail(a.s, b.id, -ETIMEDOUT), 0);
		cr_assert_eq(a.tx_cnt, (unsigned)i + 1, "the send b took "
			     "failed while b lived");
	}
	t_recv(T_BIG, 1);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 5);
	cr_assert_eq(b.rx[4].status, 0);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
	cr_assert_eq(a.tx_cnt, 5);
	cr_assert_eq(a.tx[4].wre, &wr);
	cr_assert_eq(a.tx[4].cpl.status, 0);
}

/*
 * What b did not take fails at once, as does what it took when the
 * failure is not silence (a reset peer: no answer of the old one comes).
 */
Test(ses_rdv_flap, others_fail_at_once)
{
	struct ses_wre wr[2];
	struct ses_iov iov[2];

	t_send(&wr[0], &iov[0], T_BIG, 1);	/* its request never arrives */
	t_tick(1);
	cr_assert_eq(ses_peer_fail(a.s, b.id, -ETIMEDOUT), 0);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, -ETIMEDOUT);
	while (w.q_cnt) {
		struct t_pkt p = t_wire_take(&w, 0);

		t_pkt_free(&p);
	}
	t_send(&wr[1], &iov[1], T_BIG, 2);	/* taken, unexpected */
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(ses_peer_fail(a.s, b.id, -ECONNRESET), 0);
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(a.tx[1].wre, &wr[1]);
	cr_assert_eq(a.tx[1].cpl.status, -ECONNRESET);
}
