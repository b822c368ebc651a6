/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tag matching (seeds/hw-tag-matching.md): tables of wildcards, directed
 * receive, unexpected-before-posted and posted-before-arrival, send order
 * between a pair; untagged receives; truncation; the unexpected bound;
 * peek/claim/discard; delivery complete; cancel; receives posted in front.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test_ses_wire.h"

#define T_JOB		7
#define T_RI_MSG	0x002
#define T_MTU		1024

static struct t_wire w;
static struct t_node a, b, c;	/* a, c send to b */
static struct ses_addr to_b;

static void t_setup_cfg(const struct ses_config *bcfg)
{
	struct ses_ri_id msg = { T_JOB, 3, T_RI_MSG };
	struct ses_config cfg;

	t_wire_init(&w, 3);
	ses_config_init(&cfg);
	cfg.payload_mtu = T_MTU;
	cfg.job_id = T_JOB;
	cfg.pid_on_fep = 1;
	cfg.initiator = 1;
	t_node_init(&w, &a, 1, &cfg);
	cfg.pid_on_fep = 4;
	cfg.initiator = 3;
	t_node_init(&w, &c, 3, &cfg);
	if (bcfg) {
		t_node_init(&w, &b, 2, bcfg);
	} else {
		cfg.pid_on_fep = 3;
		cfg.initiator = 2;
		t_node_init(&w, &b, 2, &cfg);
	}
	cr_assert_eq(ses_ri_add(b.s, &msg, SES_RI_F_MSG), 0);
	t_addr(&to_b, 2, T_JOB, 3);
}

static void t_setup(void)
{
	t_setup_cfg(NULL);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_node_fini(&c);
	t_wire_fini(&w);
}

TestSuite(ses_match, .init = t_setup, .fini = t_teardown, .timeout = 30);

#define T_MSGS		16
static uint8_t t_src[T_MSGS][64];
static struct ses_wre t_wr[T_MSGS];
static struct ses_iov t_iov[T_MSGS];
static unsigned t_nsent;

/* Sends message number |n| (its bytes say n) from |from|. */
static void t_send(struct t_node *from, bool tagged, uint64_t tag)
{
	unsigned n = t_nsent++;

	cr_assert_lt(n, T_MSGS);
	memset(t_src[n], (int)n + 1, sizeof(t_src[n]));
	t_wre(&t_wr[n], tagged ? UET_SES_OP_TAGGED_SEND : UET_SES_OP_SEND,
	      &to_b, &t_iov[n], t_src[n], sizeof(t_src[n]));
	t_wr[n].ri = T_RI_MSG;
	t_wr[n].tag = tag;
	cr_assert_eq(ses_wre_post(from->s, &t_wr[n]), 0);
	t_wire_run(&w, 1000);
}

static uint8_t t_dst[T_MSGS][64];

/* Posts receive |r| (its buffer is t_dst[r], its context r + 1). */
static int t_post(unsigned r, bool tagged, uint64_t tag, uint64_t ignore,
		  uint32_t initiator)
{
	struct ses_iov iov = { t_dst[r], sizeof(t_dst[r]), NULL };
	struct ses_recv_attr ra = {
		.iov = &iov, .iov_cnt = 1, .tag = tag, .ignore = ignore,
		.initiator = initiator,
		.flags = tagged ? SES_RECV_F_TAGGED : 0,
		.user_ctx = (void *)(uintptr_t)(r + 1),
	};
	int ret = ses_recv_post(b.s, &ra);

	t_wire_run(&w, 1000);
	return ret;
}

/* Receive |r| completed (somewhere) with message number |n|. */
static void t_got(unsigned r, unsigned n)
{
	for (unsigned i = 0; i < b.rx_cnt; i++) {
		if (b.rx[i].user_ctx != (void *)(uintptr_t)(r + 1))
			continue;
		cr_assert_eq(b.rx[i].status, 0);
		cr_assert_eq(t_dst[r][0], n + 1, "receive %u got message %u, "
			     "want %u", r, t_dst[r][0] - 1, n);
		return;
	}
	cr_assert_fail("receive %u not completed", r);
}

static void t_not_done(unsigned r)
{
	for (unsigned i = 0; i < b.rx_cnt; i++)
		cr_assert_neq(b.rx[i].user_ctx, (void *)(uintptr_t)(r + 1),
			      "receive %u completed", r);
}

/* Wildcards: tag and ignore bits, one row per case. */
Test(ses_match, wildcard_table)
{
	static const struct {
		uint64_t rtag, ignore, mtag;
		bool match;
	} rows[] = {
		{ 0x1234, 0, 0x1234, true },
		{ 0x1234, 0, 0x1235, false },
		{ 0x1200, 0xFF, 0x12AB, true },
		{ 0x1200, 0xFF, 0x13AB, false },
		{ 0, ~0ull, 0xDEADBEEFCAFEull, true },
		{ 0xF0000000000000AAull, 0x0FFFFFFFFFFFFF00ull,
		  0xF123456789ABCDAAull, true },
		{ 0xF0000000000000AAull, 0x0FFFFFFFFFFFFF00ull,
		  0xE123456789ABCDAAull, false },
	};

	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned before = b.rx_cnt;

		cr_assert_eq(t_post(i, true, rows[i].rtag, rows[i].ignore,
				    SES_INITIATOR_ANY), 0);
		t_send(&a, true, rows[i].mtag);
		cr_assert_eq(b.rx_cnt - before, rows[i].match, "row %u", i);
		if (rows[i].match) {
			t_got(i, t_nsent - 1);
			cr_assert_eq(b.rx[before].tag, rows[i].mtag);
			cr_assert(b.rx[before].tagged);
		} else {
			cr_assert_eq(ses_recv_cancel(b.s,
						     (void *)(uintptr_t)(i + 1)),
				     0);
			/* Unmatched, it waits for a receive; take it. */
			cr_assert_eq(t_post(15, true, rows[i].mtag, 0,
					    SES_INITIATOR_ANY), 0);
			t_got(15, t_nsent - 1);
		}
	}
}

/* Directed receive: only the named initiator's messages match. */
Test(ses_match, directed_receive_by_initiator)
{
	cr_assert_eq(t_post(0, true, 9, 0, 3), 0);	/* from c only */
	cr_assert_eq(t_post(1, true, 9, 0, SES_INITIATOR_ANY), 0);
	t_send(&a, true, 9);				/* msg 0 from a */
	t_got(1, 0);
	t_not_done(0);
	t_send(&c, true, 9);				/* msg 1 from c */
	t_got(0, 1);
	cr_assert_eq(b.rx[1].initiator, 3);
	cr_assert_eq(b.rx[1].peer, 3);
	/* Unexpected first, then a directed receive skips a's message. */
	t_send(&a, true, 9);				/* msg 2 */
	t_send(&c, true, 9);				/* msg 3 */
	cr_assert_eq(t_post(2, true, 9, 0, 3), 0);
	t_got(2, 3);
	cr_assert_eq(t_post(3, true, 9, 0, 1), 0);
	t_got(3, 2);
}

/* Unexpected before posted: a receive takes the earliest match. */
Test(ses_match, unexpected_before_posted)
{
	t_send(&a, true, 5);	/* 0 */
	t_send(&a, true, 6);	/* 1 */
	t_send(&a, true, 5);	/* 2 */
	t_send(&a, false, 5);	/* 3: untagged */
	cr_assert_eq(b.rx_cnt, 0);
	cr_assert_eq(t_post(0, true, 5, 0, SES_INITIATOR_ANY), 0);
	t_got(0, 0);
	cr_assert_eq(t_post(1, true, 0, ~0ull, SES_INITIATOR_ANY), 0);
	t_got(1, 1);
	cr_assert_eq(t_post(2, false, 0, 0, SES_INITIATOR_ANY), 0);
	t_got(2, 3);		/* untagged takes the untagged one */
	cr_assert_eq(t_post(3, true, 5, 0, SES_INITIATOR_ANY), 0);
	t_got(3, 2);
	cr_assert_eq(t_post(4, true, 5, 0, SES_INITIATOR_ANY), 0);
	t_not_done(4);
}

/* Posted before arrival: an arrival takes the earliest matching receive. */
Test(ses_match, posted_before_arrival)
{
	cr_assert_eq(t_post(0, true, 5, 0, SES_INITIATOR_ANY), 0);
	cr_assert_eq(t_post(1, true, 0, ~0ull, SES_INITIATOR_ANY), 0);
	cr_assert_eq(t_post(2, true, 5, 0, SES_INITIATOR_ANY), 0);
	cr_assert_eq(t_post(3, false, 0, 0, SES_INITIATOR_ANY), 0);
	t_send(&a, true, 7);	/* 0: only the wildcard */
	t_got(1, 0);
	t_send(&a, true, 5);	/* 1 */
	t_got(0, 1);
	t_send(&a, true, 5);	/* 2 */
	t_got(2, 2);
	t_send(&a, true, 5);	/* 3: no tagged receive left */
	t_not_done(3);
	t_send(&a, false, 0);	/* 4 */
	t_got(3, 4);
	cr_assert_eq(t_post(4, true, 5, 0, SES_INITIATOR_ANY), 0);
	t_got(4, 3);
}

/* Between one pair, messages are matched in send order. */
Test(ses_match, send_order_between_a_pair)
{
	for (unsigned i = 0; i < 6; i++)
		t_send(&a, true, 100 + i);
	for (unsigned i = 0; i < 6; i++)
		cr_assert_eq(t_post(i, true, 0, ~0ull, SES_INITIATOR_ANY), 0);
	for (unsigned i = 0; i < 6; i++)
		t_got(i, i);
	for (unsigned i = 6; i < 12; i++)
		cr_assert_eq(t_post(i, true, 0, ~0ull, SES_INITIATOR_ANY), 0);
	for (unsigned i = 6; i < 12; i++)
		t_send(&a, true, 100 + i);
	for (unsigned i = 6; i < 12; i++)
		t_got(i, i);
}

/* SES_RECV_F_FRONT: a receive posted again goes ahead of the others. */
Test(ses_match, front_receive_goes_first)
{
	struct ses_iov iov = { t_dst[2], sizeof(t_dst[2]), NULL };
	struct ses_recv_attr ra = { .iov = &iov, .iov_cnt = 1,
				    .initiator = SES_INITIATOR_ANY,
				    .flags = SES_RECV_F_FRONT,
				    .user_ctx = (void *)3 };

	cr_assert_eq(t_post(0, false, 0, 0, SES_INITIATOR_ANY), 0);
	cr_assert_eq(t_post(1, false, 0, 0, SES_INITIATOR_ANY), 0);
	cr_assert_eq(ses_recv_post(b.s, &ra), 0);
	t_send(&a, false, 0);
	t_got(2, 0);
	t_send(&a, false, 0);
	t_got(0, 1);
	t_send(&a, false, 0);
	t_got(1, 2);
	/* An unexpected message still comes before a front receive. */
	t_send(&a, false, 0);
	iov.base = t_dst[3];
	ra.user_ctx = (void *)4;
	cr_assert_eq(ses_recv_post(b.s, &ra), 0);
	t_got(3, 3);
}

/* Longer than the receive: truncated and reported, never overflowed. */
Test(ses_match, truncation_reported_never_overflowed)
{
	static uint8_t src[3000], sink[1500 + 64];
	struct ses_iov iov[2] = { { sink, 700, NULL }, { sink + 700, 800, NULL } };
	struct ses_recv_attr ra = { .iov = iov, .iov_cnt = 2,
				    .initiator = SES_INITIATOR_ANY,
				    .user_ctx = sink };
	struct ses_wre wr;
	struct ses_iov siov;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 3);
	memset(sink, 0xC5, sizeof(sink));
	cr_assert_eq(ses_recv_post(b.s, &ra), 0);
	t_wre(&wr, UET_SES_OP_SEND, &to_b, &siov, src, sizeof(src));
	wr.ri = T_RI_MSG;
	wr.flags = SES_WRE_F_HDR_DATA;
	wr.header_data = 0xB0C4E7;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 100);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, -EMSGSIZE);
	cr_assert_eq(b.rx[0].len, 1500);
	cr_assert_eq(b.rx[0].msg_len, 3000);
	cr_assert(b.rx[0].hd);
	cr_assert_eq(b.rx[0].header_data, 0xB0C4E7);
	cr_assert_eq(memcmp(sink, src, 1500), 0);
	for (size_t i = 1500; i < sizeof(sink); i++)
		cr_assert_eq(sink[i], 0xC5, "byte %zu past the receive", i);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[0].cpl.modified_len, 1500);
}

/*
 * The unexpected queue is bounded by count and bytes; a send it has no
 * room for is not taken (NACK) and comes again until there is room.
 */
/* The nodes again, b with the defaults in |cfg| the caller then changes. */
static void t_b_cfg(struct ses_config *cfg)
{
	t_teardown();
	ses_config_init(cfg);
	cfg->payload_mtu = T_MTU;
	cfg->job_id = T_JOB;
	cfg->pid_on_fep = 3;
}

Test(ses_match, unexpected_queue_is_bounded)
{
	struct ses_config cfg;

	t_b_cfg(&cfg);
	cfg.max_unexpected = 2;
	cfg.max_unexpected_len = 100;
	t_setup_cfg(&cfg);
	t_send(&a, true, 1);			/* 64 bytes */
	t_send(&a, true, 2);			/* 128 > 100: not taken */
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK);
	cr_assert_gt(w.eagain_cnt, 0);
	cr_assert_eq(t_post(0, true, 1, 0, SES_INITIATOR_ANY), 0);
	t_got(0, 0);
	t_wire_run(&w, 1000);			/* room: the retry is taken */
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(a.tx[1].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(t_post(1, true, 2, 0, SES_INITIATOR_ANY), 0);
	t_got(1, 1);
	t_send(&a, false, 0);			/* 64 bytes */
	t_send(&a, false, 0);			/* 128 > 100: not taken */
	cr_assert_eq(a.tx_cnt, 3);
	cr_assert_eq(t_post(2, false, 0, 0, SES_INITIATOR_ANY), 0);
	t_got(2, 2);
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 4);
	cr_assert_eq(a.tx[3].cpl.rc, UET_SES_RC_OK);
}

Test(ses_match, peek_claim_discard)
{
	struct ses_recv_attr any = { .initiator = SES_INITIATOR_ANY,
				     .ignore = ~0ull,
				     .flags = SES_RECV_F_TAGGED };
	struct ses_iov iov = { t_dst[0], sizeof(t_dst[0]), NULL };
	struct ses_recv_attr into = { .iov = &iov, .iov_cnt = 1,
				      .user_ctx = (void *)1 };
	struct ses_recv_info info, info2;

	cr_assert_eq(ses_recv_peek(b.s, &any, false, &info), -ENOMSG);
	t_send(&a, true, 40);		/* 0 */
	t_send(&c, true, 41);		/* 1 */
	t_send(&a, true, 42);		/* 2 */
	cr_assert_eq(ses_recv_peek(b.s, &any, false, &info), 0);
	cr_assert_eq(info.tag, 40);
	cr_assert_eq(info.msg_len, 64);
	cr_assert_eq(info.initiator, 1);
	/* Peeking again without claim sees the same one. */
	cr_assert_eq(ses_recv_peek(b.s, &any, true, &info), 0);
	cr_assert_eq(info.tag, 40);
	/* Claimed, it is skipped by peeks and by receives. */
	cr_assert_eq(ses_recv_peek(b.s, &any, true, &info2), 0);
	cr_assert_eq(info2.tag, 41);
	cr_assert_eq(t_post(5, true, 0, ~0ull, SES_INITIATOR_ANY), 0);
	t_got(5, 2);
	cr_assert_eq(ses_recv_claim(b.s, info.handle, &into), 0);
	t_wire_run(&w, 100);
	t_got(0, 0);
	cr_assert_eq(ses_recv_claim(b.s, info.handle, &into), -ENOENT);
	cr_assert_eq(ses_recv_discard(b.s, info2.handle), 0);
	cr_assert_eq(ses_recv_discard(b.s, info2.handle), -ENOENT);
	cr_assert_eq(ses_recv_peek(b.s, &any, false, &info), -ENOMSG);
	cr_assert_eq(b.rx_cnt, 2);
}

/* dc: an unexpected send completes only once it is placed. */
Test(ses_match, delivery_complete_waits_for_placement)
{
	static uint8_t src[2][3000], sink[2][3000];
	struct ses_wre wr[2];
	struct ses_iov iov[2];

	for (unsigned i = 0; i < 2; i++) {
		memset(src[i], 0x10 + i, sizeof(src[i]));
		t_wre(&wr[i], UET_SES_OP_SEND, &to_b, &iov[i], src[i],
		      sizeof(src[i]));
		wr[i].ri = T_RI_MSG;
		wr[i].flags = i ? SES_WRE_F_DC : 0;
		cr_assert_eq(ses_wre_post(a.s, &wr[i]), 0);
	}
	t_wire_run(&w, 1000);
	/* The plain one is done (buffered); the dc one waits. */
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].wre, &wr[0]);
	for (unsigned i = 0; i < 2; i++) {
		struct ses_iov ri = { sink[i], sizeof(sink[i]), NULL };
		struct ses_recv_attr ra = { .iov = &ri, .iov_cnt = 1,
					    .initiator = SES_INITIATOR_ANY };

		cr_assert_eq(ses_recv_post(b.s, &ra), 0);
	}
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(a.tx[1].wre, &wr[1]);
	cr_assert_eq(a.tx[1].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[1].cpl.modified_len, 3000);
	cr_assert_eq(memcmp(sink[1], src[1], 3000), 0);
}

Test(ses_match, cancel_posted_receive)
{
	cr_assert_eq(t_post(0, true, 1, 0, SES_INITIATOR_ANY), 0);
	cr_assert_eq(ses_recv_cancel(b.s, (void *)1), 0);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, -ECANCELED);
	cr_assert_eq(ses_recv_cancel(b.s, (void *)1), -ENOENT);
	t_send(&a, true, 1);		/* now unexpected */
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(t_dst[0][0], 0);
}

Test(ses_match, rejects_bad_receives)
{
	struct ses_iov iov = { t_dst[0], 8, NULL };
	struct ses_recv_attr ra = { .iov = &iov, .iov_cnt = SES_IOV_MAX + 1 };

	cr_assert_eq(ses_recv_post(b.s, &ra), -EINVAL);
	ra.iov_cnt = 1;
	ra.flags = 0x80;
	cr_assert_eq(ses_recv_post(b.s, &ra), -EINVAL);
	cr_assert_eq(ses_recv_post(b.s, NULL), -EINVAL);
}

/*
 * A whole message a posted receive takes at once needs no message state:
 * with the target's one message slot held by an unexpected message, a
 * one-packet send to a posted receive is still placed, its header data
 * reported as ever (ses_rx_send_placed).
 */
Test(ses_match, a_matched_whole_message_takes_no_slot)
{
	struct ses_config cfg;

	t_b_cfg(&cfg);
	cfg.max_rx_msgs = 1;
	t_setup_cfg(&cfg);
	t_send(&a, true, 1);			/* unexpected: the slot */
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(t_post(1, true, 2, 0, SES_INITIATOR_ANY), 0);
	t_nsent = 2;
	memset(t_src[1], 2, sizeof(t_src[1]));
	t_wre(&t_wr[1], UET_SES_OP_TAGGED_SEND, &to_b, &t_iov[1], t_src[1],
	      sizeof(t_src[1]));
	t_wr[1].ri = T_RI_MSG;
	t_wr[1].tag = 2;
	t_wr[1].flags = SES_WRE_F_HDR_DATA;
	t_wr[1].header_data = 0xfeed;
	cr_assert_eq(ses_wre_post(a.s, &t_wr[1]), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(w.eagain_cnt, 0);
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(a.tx[1].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[1].cpl.modified_len, sizeof(t_src[1]));
	t_got(1, 1);
	cr_assert(b.rx[0].hd);
	cr_assert_eq(b.rx[0].header_data, 0xfeed);
	cr_assert_eq(b.rx[0].msg_len, sizeof(t_src[1]));
	/* The unexpected one is still there for its receive. */
	cr_assert_eq(t_post(0, true, 1, 0, SES_INITIATOR_ANY), 0);
	t_got(0, 0);
}

/*
 * ses_wre_send_whole: a one-packet send nobody waits for goes whole at
 * once, with no message of SES's kept, only when nothing of its peer's is
 * ahead of it; its id is the next of the peer's, so that what follows it,
 * either way, is taken by the target as the next message.
 */
static struct {
	int ret;			/* what the tx returns */
	unsigned calls;
	uint16_t ids[T_MSGS];
	ssize_t rx[T_MSGS];		/* what b's SES said of each */
	uint8_t hdr[UET_SES_STD_HDR_LEN];	/* the last one's */
} t_tx;

/* As a local channel's: to b's SES in order, now; nobody hears back. */
static int t_whole_tx(void *ctx, const struct ses_pkt *pkt)
{
	uint8_t buf[UET_SES_STD_HDR_LEN + T_MTU], rsp[UET_SES_RSP_LEN];
	struct ses_rx_pkt in = { .peer = a.id, .next_hdr = pkt->next_hdr,
				 .buf = buf, .pdc = a.pdc,
				 .len = pkt->hdr_len + pkt->pay_len };
	struct ses_std_hdr h;
	unsigned n = t_tx.calls++;

	cr_assert(ctx == &t_tx);
	cr_assert_lt(n, T_MSGS);
	cr_assert(pkt->flags & SES_PKT_F_NO_ANSWER);
	cr_assert_eq(pkt->msg_ref, 0);
	cr_assert_leq(in.len, sizeof(buf));
	if (t_tx.ret)
		return t_tx.ret;
	memcpy(buf, pkt->hdr, pkt->hdr_len);
	ses_pkt_payload_copy(pkt, buf + pkt->hdr_len);
	cr_assert_eq(ses_std_hdr_decode(&h, buf, in.len), UET_SES_STD_HDR_LEN);
	cr_assert(h.f.som && h.f.eom);
	memcpy(t_tx.hdr, buf, sizeof(t_tx.hdr));
	t_tx.ids[n] = h.message_id;
	t_tx.rx[n] = ses_rx_req(b.s, &in, rsp, sizeof(rsp));
	return 0;
}

/* WRE |n|: a tagged send (tag 1) of |len| bytes saying n, nobody waiting. */
static struct ses_wre *t_wre_whole(unsigned n, size_t len)
{
	static uint8_t big[T_MTU + 1];

	memset(t_src[n], (int)n + 1, sizeof(t_src[n]));
	t_wre(&t_wr[n], UET_SES_OP_TAGGED_SEND, &to_b, &t_iov[n],
	      len > sizeof(t_src[n]) ? big : t_src[n], len);
	t_wr[n].ri = T_RI_MSG;
	t_wr[n].tag = 1;
	t_wr[n].flags = SES_WRE_F_NO_ANSWER;
	return &t_wr[n];
}

static int t_whole(unsigned n)
{
	return ses_wre_send_whole(a.s, &t_wr[n], t_whole_tx, &t_tx);
}

Test(ses_match, whole_sends_go_in_order_and_the_next_message_follows)
{
	for (unsigned r = 0; r < 4; r++)
		cr_assert_eq(t_post(r, true, 1, 0, SES_INITIATOR_ANY), 0);
	for (unsigned n = 0; n < 3; n++) {
		t_wre_whole(n, sizeof(t_src[n]));
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
	cr_assert_eq(ses_wre_post(a.s, t_wre_whole(3, sizeof(t_src[3]))), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_assert_eq(b.rx_cnt, 4);
	for (unsigned r = 0; r < 4; r++)
		t_got(r, r);
}

Test(ses_match, not_whole_unless_a_lone_eager_send_nobody_waits_for)
{
	struct ses_wre *wr = t_wre_whole(0, sizeof(t_src[0]));

	wr->flags = 0;				/* its answer is waited for */
	cr_assert_eq(t_whole(0), 0);
	wr->flags = SES_WRE_F_NO_ANSWER | SES_WRE_F_DC;
	cr_assert_eq(t_whole(0), 0);
	wr->flags = SES_WRE_F_NO_ANSWER;
	wr->opcode = UET_SES_OP_WRITE;
	cr_assert_eq(t_whole(0), 0);
	t_wre_whole(1, T_MTU + 1);		/* two packets */
	cr_assert_eq(t_whole(1), 0);
	cr_assert_eq(t_tx.calls, 0);
}

Test(ses_match, not_whole_behind_a_message_in_flight_or_queued)
{
	cr_assert_eq(t_post(0, true, 1, 0, SES_INITIATOR_ANY), 0);
	cr_assert_eq(t_post(1, true, 1, 0, SES_INITIATOR_ANY), 0);
	/* In flight (not delivered yet): the peer has an id out. */
	cr_assert_eq(ses_wre_post(a.s, t_wre_whole(0, sizeof(t_src[0]))), 0);
	t_wre_whole(1, 8);
	cr_assert_eq(t_whole(1), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(t_whole(1), 1);
	/* Queued: the lower layer refused an earlier packet. */
	w.tx_budget = 0;
	cr_assert_eq(ses_wre_post(a.s, t_wre_whole(2, sizeof(t_src[2]))), 0);
	t_wre_whole(3, 8);
	cr_assert_eq(t_whole(3), 0);
	cr_assert_eq(t_tx.calls, 1);
}

/* A whole send's header says what the usual way's one packet says. */
Test(ses_match, a_whole_send_says_what_its_usual_packet_says)
{
	struct ses_wre *wr = t_wre_whole(0, 24);
	uint8_t again[UET_SES_STD_HDR_LEN];
	struct ses_std_hdr usual, whole;

	wr->tag = 0x1234567890abcdefull;
	wr->flags |= SES_WRE_F_HDR_DATA;
	wr->header_data = 0xfeedface;
	cr_assert_eq(t_whole(0), 1);
	w.capture = true;
	cr_assert_eq(ses_wre_post(a.s, wr), 0);
	t_wire_run(&w, 1000);
	cr_assert_geq(w.log_cnt, 1);
	cr_assert(w.log[0].is_req);
	cr_assert_eq(ses_std_hdr_decode(&usual, w.log[0].buf, w.log[0].len),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(ses_std_hdr_decode(&whole, t_tx.hdr, sizeof(t_tx.hdr)),
		     UET_SES_STD_HDR_LEN);
	/* The next id: the only difference, byte for byte. */
	cr_assert_eq((uint16_t)(usual.message_id - whole.message_id), 1);
	usual.message_id = whole.message_id;
	cr_assert_eq(ses_std_hdr_encode(again, sizeof(again), &usual),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(memcmp(again, t_tx.hdr, sizeof(again)), 0);
	cr_assert(whole.f.hd && whole.header_data == 0xfeedface);
	cr_assert_eq(whole.memory_key, wr->tag);
	cr_assert_eq(whole.request_length, 24);
}

Test(ses_match, a_refusal_of_the_whole_tx_uses_no_id)
{
	cr_assert_eq(t_post(0, true, 1, 0, SES_INITIATOR_ANY), 0);
	t_wre_whole(0, sizeof(t_src[0]));
	t_tx.ret = -EAGAIN;
	cr_assert_eq(t_whole(0), 0);
	t_tx.ret = -ECONNRESET;
	cr_assert_eq(t_whole(0), -ECONNRESET);
	cr_assert_eq(t_tx.calls, 2);
	/* The usual way then: b takes it as the next message. */
	cr_assert_eq(ses_wre_post(a.s, &t_wr[0]), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(b.rx_cnt, 1);
	t_got(0, 0);
}
