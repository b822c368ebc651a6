/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Rendezvous sends a target copies straight out of the sender's buffer
 * (ses_ops.pull, as local channels do with process_vm_readv): no READ
 * goes, the request's answer ends the send, a short receive copies what
 * fits, a refused copy falls back to the READ (the request carries no
 * eager bytes: the target takes all of the buffer), and sends past
 * rdv_pull_threshold to a peer that pulls go as a rendezvous.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "t_ses_rdv.h"

static void t_setup_opts(uint32_t eager, uint32_t thr, uint32_t pull_thr)
{
	const struct t_rdv_opts o = {
		.seed = 21, .eager_len = eager, .sink_len = T_BIG + 4096,
		.src_mul = 13, .src_shift = 7, .rdv_threshold = thr,
		.rdv_pull_threshold = pull_thr,
	};

	t_rdv_setup(&o);
	w.capture = true;
	w.pull = 1;
}

static void t_setup(void)
{
	t_setup_opts(512, 0, 0);
}

TestSuite(ses_rdv_pull, .init = t_setup, .fini = t_teardown, .timeout = 30);

/* Requests of |opcode| in the capture. */
static unsigned t_reqs_of(uint8_t opcode)
{
	unsigned n = 0;

	for (size_t i = 0; i < w.log_cnt; i++) {
		struct ses_std_hdr h;

		if (!w.log[i].is_req ||
		    ses_std_hdr_decode(&h, w.log[i].buf, w.log[i].len) < 0)
			continue;
		n += h.opcode == opcode;
	}
	return n;
}

static struct ses_stats t_stats(struct t_node *n)
{
	struct ses_stats st;

	ses_stats_get(n->s, &st);
	return st;
}

Test(ses_rdv_pull, expected_send_is_copied_without_a_read)
{
	struct ses_wre wr;
	struct ses_iov iov;

	t_recv(T_BIG, 4);
	t_send(&wr, &iov, T_BIG, 4);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, 0);
	cr_assert_eq(b.rx[0].len, T_BIG);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
	cr_assert_eq(sink[T_BIG], 0xC5, "nothing past the receive");
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[0].cpl.modified_len, T_BIG);
	cr_assert_eq(w.pulls, 1);
	cr_assert_eq(t_reqs_of(UET_SES_OP_RENDEZVOUS_TSEND), 1);
	cr_assert_eq(w.log[0].len, UET_SES_STD_HDR_LEN + UET_SES_RDV_EXT_LEN,
		     "no eager bytes to a target that copies them itself");
	cr_assert_eq(t_reqs_of(UET_SES_OP_READ), 0, "no READ went");
	cr_assert_eq(t_stats(&b).rdv_pulled, 1);
	cr_assert_eq(t_stats(&b).rdv_pull_failed, 0);
}

Test(ses_rdv_pull, unexpected_send_is_copied_once_matched)
{
	struct ses_wre wr;
	struct ses_iov iov;

	t_send(&wr, &iov, T_BIG, 8);
	t_wire_run(&w, 1000);
	cr_assert_eq(b.rx_cnt, 0);
	cr_assert_eq(a.tx_cnt, 0, "the buffer stays exposed until matched");
	cr_assert_eq(w.pulls, 0);
	t_recv(T_BIG, 8);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, 0);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[0].cpl.modified_len, T_BIG);
	cr_assert_eq(w.pulls, 1);
	cr_assert_eq(t_reqs_of(UET_SES_OP_READ), 0);
}

Test(ses_rdv_pull, short_receive_copies_what_fits)
{
	struct ses_wre wr;
	struct ses_iov iov;

	t_recv(30000, 9);
	t_send(&wr, &iov, T_BIG, 9);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, -EMSGSIZE);
	cr_assert_eq(b.rx[0].len, 30000);
	cr_assert_eq(memcmp(sink, src, 30000), 0);
	cr_assert_eq(sink[30000], 0xC5);
	cr_assert_eq(a.tx[0].cpl.modified_len, 30000);
	cr_assert_eq(w.pulls, 1);
}

Test(ses_rdv_pull, refused_copy_falls_back_to_the_read)
{
	struct ses_wre wr;
	struct ses_iov iov;

	w.pull = -1;
	t_recv(T_BIG, 5);
	t_send(&wr, &iov, T_BIG, 5);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, 0);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[0].cpl.modified_len, T_BIG);
	cr_assert_eq(w.pulls, 0);
	cr_assert_eq(t_reqs_of(UET_SES_OP_READ), 1);
	cr_assert_eq(t_stats(&b).rdv_pulled, 0);
	cr_assert_eq(t_stats(&b).rdv_pull_failed, 1);
}

/* Past rdv_pull_threshold a send to a peer that pulls is a rendezvous. */
Test(ses_rdv_pull, pulling_peer_gets_rendezvous_past_its_threshold)
{
	struct ses_wre wr[2];
	struct ses_iov iov[2];

	t_teardown();
	t_setup_opts(512, 65536, 16384);
	t_recv(20000, 1);
	t_send(&wr[0], &iov[0], 20000, 1);
	t_wire_run(&w, 10000);
	cr_assert_eq(t_reqs_of(UET_SES_OP_RENDEZVOUS_TSEND), 1);
	cr_assert_eq(t_reqs_of(UET_SES_OP_TAGGED_SEND), 0);
	cr_assert_eq(w.pulls, 1);
	cr_assert_eq(memcmp(sink, src, 20000), 0);
	/* A peer that does not pull gets it eager. */
	w.pull = 0;
	memset(sink, 0xC5, 20000);
	t_recv(20000, 2);
	t_send(&wr[1], &iov[1], 20000, 2);
	t_wire_run(&w, 10000);
	cr_assert_eq(t_reqs_of(UET_SES_OP_RENDEZVOUS_TSEND), 1);
	cr_assert_gt(t_reqs_of(UET_SES_OP_TAGGED_SEND), 0);
	cr_assert_eq(b.rx_cnt, 2);
	cr_assert_eq(memcmp(sink, src, 20000), 0);
	cr_assert_eq(a.tx_cnt, 2);
}
