/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ses_wre_send_whole: a one-packet send nobody waits for goes whole at
 * once, with no message of SES's kept, only when nothing of its peer's is
 * ahead of it; its id is the next of the peer's, so that what follows it,
 * either way, is taken by the target as the next message.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test_ses_wire.h"

#define T_JOB		7
#define T_RI_MSG	0x002
#define T_MTU		1024
#define T_N		8

static struct t_wire w;
static struct t_node a, b;	/* a sends to b */
static struct ses_addr to_b;

static void t_setup(void)
{
	struct ses_ri_id msg = { T_JOB, 3, T_RI_MSG };
	struct ses_config cfg;

	t_wire_init(&w, 5);
	ses_config_init(&cfg);
	cfg.payload_mtu = T_MTU;
	cfg.job_id = T_JOB;
	cfg.pid_on_fep = 1;
	cfg.initiator = 1;
	t_node_init(&w, &a, 1, &cfg);
	cfg.pid_on_fep = 3;
	cfg.initiator = 2;
	t_node_init(&w, &b, 2, &cfg);
	cr_assert_eq(ses_ri_add(b.s, &msg, SES_RI_F_MSG), 0);
	t_addr(&to_b, 2, T_JOB, 3);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
}

TestSuite(ses_whole, .init = t_setup, .fini = t_teardown, .timeout = 30);

/* What the whole path's tx saw, and what b's SES said of each packet. */
static struct {
	int ret;			/* what the tx returns */
	unsigned calls;
	uint16_t ids[T_N];
	ssize_t rx[T_N];
} t_tx;

/*
 * The whole path's tx, as a local channel's: the packet goes to b's SES
 * in order, now, and nobody hears its answer.
 */
static int t_whole_tx(void *ctx, const struct ses_pkt *pkt)
{
	uint8_t buf[UET_SES_STD_HDR_LEN + T_MTU], rsp[UET_SES_RSP_LEN];
	struct ses_rx_pkt in = { .peer = a.id, .next_hdr = pkt->next_hdr,
				 .buf = buf, .pdc = a.pdc,
				 .len = pkt->hdr_len + pkt->pay_len };
	struct ses_std_hdr h;
	unsigned n = t_tx.calls++;

	cr_assert(ctx == &t_tx);
	cr_assert_lt(n, T_N);
	cr_assert(pkt->flags & SES_PKT_F_NO_ANSWER);
	cr_assert_eq(pkt->msg_ref, 0);
	cr_assert_leq(in.len, sizeof(buf));
	if (t_tx.ret)
		return t_tx.ret;
	memcpy(buf, pkt->hdr, pkt->hdr_len);
	ses_pkt_payload_copy(pkt, buf + pkt->hdr_len);
	cr_assert_eq(ses_std_hdr_decode(&h, buf, in.len), UET_SES_STD_HDR_LEN);
	cr_assert(h.f.som && h.f.eom);
	t_tx.ids[n] = h.message_id;
	t_tx.rx[n] = ses_rx_req(b.s, &in, rsp, sizeof(rsp));
	return 0;
}

static uint8_t t_src[T_N][64], t_dst[T_N][64];
static struct ses_wre t_wr[T_N];
static struct ses_iov t_iov[T_N];

/* WRE |n|: a tagged send of 64 bytes saying n, nobody waiting. */
static struct ses_wre *t_wre_n(unsigned n, size_t len)
{
	memset(t_src[n], (int)n + 1, sizeof(t_src[n]));
	t_wre(&t_wr[n], UET_SES_OP_TAGGED_SEND, &to_b, &t_iov[n], t_src[n],
	      len);
	t_wr[n].ri = T_RI_MSG;
	t_wr[n].tag = 0x77;
	t_wr[n].flags = SES_WRE_F_NO_ANSWER;
	return &t_wr[n];
}

static void t_post(unsigned r)
{
	struct ses_iov iov = { t_dst[r], sizeof(t_dst[r]), NULL };
	struct ses_recv_attr ra = {
		.iov = &iov, .iov_cnt = 1, .tag = 0x77,
		.initiator = SES_INITIATOR_ANY,
		.flags = SES_RECV_F_TAGGED,
		.user_ctx = (void *)(uintptr_t)(r + 1),
	};

	cr_assert_eq(ses_recv_post(b.s, &ra), 0);
}

static int t_whole(unsigned n)
{
	return ses_wre_send_whole(a.s, &t_wr[n], t_whole_tx, &t_tx);
}

Test(ses_whole, sends_go_whole_in_order_and_the_next_message_follows)
{
	for (unsigned r = 0; r < 4; r++)
		t_post(r);
	for (unsigned n = 0; n < 3; n++) {
		t_wre_n(n, sizeof(t_src[n]));
		cr_assert_eq(t_whole(n), 1, "send %u", n);
		/* Taken whole: b's answer is the ACK alone (none here). */
		cr_assert_eq(t_tx.rx[n], 0, "send %u: %zd", n, t_tx.rx[n]);
		if (n)
			cr_assert_eq((uint16_t)(t_tx.ids[n] - t_tx.ids[n - 1]),
				     1, "ids %u, %u", t_tx.ids[n - 1],
				     t_tx.ids[n]);
	}
	/* Nothing of SES's kept, and no tx_done: the caller ends them. */
	cr_assert_eq(a.tx_total, 0);
	cr_assert(!ses_msg_is_outstanding(a.s, 2, t_tx.ids[2]));
	/* The usual way after them: the next id, which b takes. */
	cr_assert_eq(ses_wre_post(a.s, t_wre_n(3, sizeof(t_src[3]))), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_assert_eq(b.rx_cnt, 4);
	for (unsigned r = 0; r < 4; r++) {
		cr_assert_eq(b.rx[r].status, 0);
		cr_assert_eq(b.rx[r].user_ctx, (void *)(uintptr_t)(r + 1));
		cr_assert_eq(t_dst[r][0], r + 1, "receive %u got %u", r,
			     t_dst[r][0]);
	}
}

Test(ses_whole, not_whole_unless_a_lone_eager_send_nobody_waits_for)
{
	static uint8_t big[T_MTU + 1];
	struct ses_wre *wr = t_wre_n(0, sizeof(t_src[0]));

	wr->flags = 0;				/* its answer is waited for */
	cr_assert_eq(t_whole(0), 0);
	wr->flags = SES_WRE_F_NO_ANSWER | SES_WRE_F_DC;
	cr_assert_eq(t_whole(0), 0);
	wr->flags = SES_WRE_F_NO_ANSWER;
	wr->opcode = UET_SES_OP_WRITE;
	cr_assert_eq(t_whole(0), 0);
	/* More than one packet. */
	t_wre(&t_wr[1], UET_SES_OP_TAGGED_SEND, &to_b, &t_iov[1], big,
	      sizeof(big));
	t_wr[1].ri = T_RI_MSG;
	t_wr[1].flags = SES_WRE_F_NO_ANSWER;
	cr_assert_eq(t_whole(1), 0);
	cr_assert_eq(t_tx.calls, 0);
}

Test(ses_whole, not_whole_behind_a_message_in_flight_or_queued)
{
	t_post(0);
	t_post(1);
	/* In flight (not delivered yet): the peer has an id out. */
	cr_assert_eq(ses_wre_post(a.s, t_wre_n(0, sizeof(t_src[0]))), 0);
	t_wre_n(1, 8);
	cr_assert_eq(t_whole(1), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(t_whole(1), 1);
	/* Queued: the lower layer refused an earlier packet. */
	w.tx_budget = 0;
	cr_assert_eq(ses_wre_post(a.s, t_wre_n(2, sizeof(t_src[2]))), 0);
	t_wre_n(3, 8);
	cr_assert_eq(t_whole(3), 0);
	cr_assert_eq(t_tx.calls, 1);
}

Test(ses_whole, a_refusal_of_the_tx_uses_no_id)
{
	t_post(0);
	t_wre_n(0, 8);
	t_tx.ret = -EAGAIN;
	cr_assert_eq(t_whole(0), 0);
	t_tx.ret = -ECONNRESET;
	cr_assert_eq(t_whole(0), -ECONNRESET);
	cr_assert_eq(t_tx.calls, 2);
	/* The usual way then: b takes it as the next message. */
	cr_assert_eq(ses_wre_post(a.s, &t_wr[0]), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, 0);
	cr_assert_eq(t_dst[0][0], 1);
}
