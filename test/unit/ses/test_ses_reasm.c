/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Reassembly: the packets of a message in every order (WRITE, SEND, READ
 * data), duplicates never placed twice, a lossy reordering wire, idle
 * time-out of partial messages, and peers that fail or restart.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test_ses_wire.h"

#define T_JOB		7
#define T_PID		3
#define T_RI		0x001
#define T_RI_MSG	0x002
#define T_RKEY		0x1234ull
#define T_CANARY	0xA7
#define T_GUARD		4096
#define T_LEN		65536
#define T_MTU		1024

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr dst;
static uint8_t *mem;

static uint8_t *t_region(void)
{
	return mem + T_GUARD;
}

static void t_setup_seed(uint64_t seed)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	struct ses_ri_id msg = { T_JOB, T_PID, T_RI_MSG };
	struct ses_config cfg;

	t_wire_init(&w, seed);
	ses_config_init(&cfg);
	cfg.payload_mtu = T_MTU;
	cfg.initiator = 1;
	t_node_init(&w, &a, 1, &cfg);
	cfg.initiator = 2;
	t_node_init(&w, &b, 2, &cfg);
	mem = malloc(T_LEN + 2 * T_GUARD);
	cr_assert_not_null(mem);
	memset(mem, T_CANARY, T_LEN + 2 * T_GUARD);
	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_ri_add(b.s, &msg, SES_RI_F_MSG), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY, t_region(), T_LEN,
				SES_ACCESS_REMOTE_WRITE |
				SES_ACCESS_REMOTE_READ), 0);
	t_addr(&dst, 2, T_JOB, T_PID);
}

static void t_setup(void)
{
	t_setup_seed(5);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
	free(mem);
}

TestSuite(ses_reasm, .init = t_setup, .fini = t_teardown, .timeout = 60);

static void t_guards_intact(void)
{
	for (size_t i = 0; i < T_GUARD; i++) {
		cr_assert_eq(mem[i], T_CANARY);
		cr_assert_eq(mem[T_GUARD + T_LEN + i], T_CANARY);
	}
}

static void t_fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 13 + (i >> 10));
}

/* The 24 orders of 4 items, lexicographic. */
static void t_perm(unsigned k, unsigned out[4])
{
	unsigned pool[4] = { 0, 1, 2, 3 }, fact[4] = { 6, 2, 1, 1 };

	for (unsigned i = 0; i < 4; i++) {
		unsigned j = k / fact[i];

		k %= fact[i];
		out[i] = pool[j];
		memmove(&pool[j], &pool[j + 1], (3 - j) * sizeof(*pool));
	}
}

/* Delivers the first 4 queued packets in |order|, leaving the rest. */
static void t_deliver_in(const unsigned order[4])
{
	struct t_pkt p[4];

	cr_assert_geq(w.q_cnt, 4);
	for (unsigned i = 0; i < 4; i++)
		p[i] = t_wire_take(&w, 0);
	for (unsigned i = 0; i < 4; i++) {
		t_wire_deliver(&w, &p[order[i]]);
		t_pkt_free(&p[order[i]]);
	}
}

static void t_write_wre(struct ses_wre *wr, struct ses_iov *iov, void *buf,
			size_t len, uint64_t off)
{
	t_wre(wr, UET_SES_OP_WRITE, &dst, iov, buf, len);
	wr->ri = T_RI;
	wr->mkey = T_RKEY;
	wr->remote_offset = off;
}

Test(ses_reasm, write_in_all_24_orders)
{
	static uint8_t src[24][4 * T_MTU];
	struct ses_wre wr;
	struct ses_iov iov;
	unsigned order[4];

	for (unsigned k = 0; k < 24; k++) {
		t_perm(k, order);
		t_fill(src[k], sizeof(src[k]), k);
		t_write_wre(&wr, &iov, src[k], sizeof(src[k]),
			    k * sizeof(src[k]) / 2);
		cr_assert_eq(ses_wre_post(a.s, &wr), 0);
		cr_assert_eq(w.q_cnt, 4);
		t_deliver_in(order);
		t_wire_run(&w, 100);
		cr_assert_eq(a.tx_cnt, k + 1);
		cr_assert_eq(a.tx[k].cpl.rc, UET_SES_RC_OK);
		cr_assert_eq(a.tx[k].cpl.modified_len, 4 * T_MTU);
		cr_assert_eq(memcmp(t_region() + k * sizeof(src[k]) / 2,
				    src[k], sizeof(src[k])), 0, "order %u", k);
		cr_assert_eq(b.rma_cnt, k + 1);
	}
	t_guards_intact();
}

static void t_send_wre(struct ses_wre *wr, struct ses_iov *iov, void *buf,
		       size_t len)
{
	t_wre(wr, UET_SES_OP_SEND, &dst, iov, buf, len);
	wr->ri = T_RI_MSG;
}

static void t_recv_post(void *buf, size_t len, void *ctx)
{
	struct ses_iov iov = { buf, len, NULL };
	struct ses_recv_attr ra = { .iov = &iov, .iov_cnt = 1,
				    .initiator = SES_INITIATOR_ANY,
				    .user_ctx = ctx };

	cr_assert_eq(ses_recv_post(b.s, &ra), 0);
}

/* Sends, expected (receive first) and unexpected, in every order. */
Test(ses_reasm, send_in_all_24_orders_expected_and_not)
{
	static uint8_t src[4 * T_MTU], dst_buf[4 * T_MTU + 16];
	struct ses_wre wr;
	struct ses_iov iov;
	unsigned order[4];

	for (unsigned k = 0; k < 48; k++) {
		bool expected = k < 24;

		t_perm(k % 24, order);
		t_fill(src, sizeof(src), k);
		memset(dst_buf, 0, sizeof(dst_buf));
		if (expected)
			t_recv_post(dst_buf, sizeof(dst_buf), (void *)(uintptr_t)k);
		t_send_wre(&wr, &iov, src, sizeof(src));
		cr_assert_eq(ses_wre_post(a.s, &wr), 0);
		t_deliver_in(order);
		if (!expected)
			t_recv_post(dst_buf, sizeof(dst_buf), (void *)(uintptr_t)k);
		t_wire_run(&w, 100);
		cr_assert_eq(b.rx_cnt, k + 1);
		cr_assert_eq(b.rx[k].user_ctx, (void *)(uintptr_t)k);
		cr_assert_eq(b.rx[k].status, 0);
		cr_assert_eq(b.rx[k].len, sizeof(src));
		cr_assert_eq(memcmp(dst_buf, src, sizeof(src)), 0, "order %u", k);
		cr_assert_eq(a.tx[k].cpl.rc, UET_SES_RC_OK);
	}
}

/* RESPONSE_DATA of a 4-packet READ placed by message_offset, any order. */
Test(ses_reasm, read_data_in_all_24_orders)
{
	static uint8_t sink[4 * T_MTU];
	struct ses_wre wr;
	struct ses_iov iov;
	unsigned order[4];

	t_fill(t_region(), T_LEN, 99);
	for (unsigned k = 0; k < 24; k++) {
		t_perm(k, order);
		memset(sink, 0, sizeof(sink));
		t_wre(&wr, UET_SES_OP_READ, &dst, &iov, sink, sizeof(sink));
		wr.ri = T_RI;
		wr.mkey = T_RKEY;
		wr.remote_offset = 1000 * k;
		cr_assert_eq(ses_wre_post(a.s, &wr), 0);
		cr_assert(t_wire_step(&w));	/* the READ request */
		cr_assert_eq(w.q_cnt, 5);	/* 4 data + the response */
		t_deliver_in(order);
		t_wire_run(&w, 100);
		cr_assert_eq(a.tx_cnt, k + 1);
		cr_assert_eq(a.tx[k].cpl.rc, UET_SES_RC_OK);
		cr_assert_eq(a.tx[k].cpl.modified_len, sizeof(sink));
		cr_assert_eq(memcmp(sink, t_region() + 1000 * k, sizeof(sink)),
			     0, "order %u", k);
	}
	t_guards_intact();
}

/*
 * A duplicate is never placed again: not while the message is arriving,
 * and not after it is complete (the target's memory moved on meanwhile).
 */
Test(ses_reasm, duplicates_never_placed_twice)
{
	static uint8_t src[4 * T_MTU];
	struct ses_wre wr;
	struct ses_iov iov;
	struct t_pkt p[4], d0, d3;
	struct ses_stats st;

	t_fill(src, sizeof(src), 1);
	t_write_wre(&wr, &iov, src, sizeof(src), 0);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	for (unsigned i = 0; i < 4; i++)
		p[i] = t_wire_take(&w, 0);
	d0 = p[0];
	d0.buf = malloc(p[0].len);
	memcpy(d0.buf, p[0].buf, p[0].len);
	d3 = p[3];
	d3.buf = malloc(p[3].len);
	memcpy(d3.buf, p[3].buf, p[3].len);
	t_wire_deliver(&w, &p[0]);
	t_wire_deliver(&w, &p[1]);
	memset(t_region(), 0xEE, T_MTU);
	t_wire_deliver(&w, &d0);		/* while arriving */
	cr_assert_eq(t_region()[0], 0xEE);
	t_wire_deliver(&w, &p[2]);
	t_wire_deliver(&w, &p[3]);
	t_wire_run(&w, 100);
	cr_assert_eq(a.tx_cnt, 1);
	memset(t_region() + 3 * T_MTU, 0xDD, T_MTU);
	t_wire_deliver(&w, &d3);		/* after completion */
	t_wire_run(&w, 100);
	cr_assert_eq(t_region()[3 * T_MTU], 0xDD);
	cr_assert_eq(b.rma_cnt, 1);
	cr_assert_eq(a.tx_cnt, 1);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rx_dups, 2);
	for (unsigned i = 0; i < 4; i++)
		t_pkt_free(&p[i]);
	t_pkt_free(&d0);
	t_pkt_free(&d3);
	t_guards_intact();
}

#define T_RKEY_PAT	0x5678ull	/* read-only pattern for READs */
#define T_SLOT		8192

/*
 * One batch over a reordering, duplicating, dropping wire: writes to
 * distinct slots, tagged sends each to its own receive, READs of a fixed
 * pattern. Every WRE completes once, with the right bytes everywhere.
 */
static void t_lossy_batch(const uint8_t *pat, unsigned round)
{
	static uint8_t wsrc[8][T_SLOT], ssrc[4][6000], sdst[4][6000];
	static uint8_t rsink[2][5000];
	static struct ses_wre wr[14];
	static struct ses_iov iov[14];
	unsigned n = 0;

	a.tx_cnt = 0;
	b.rx_cnt = 0;
	for (unsigned i = 0; i < 4; i++) {
		struct ses_iov ri = { sdst[i], sizeof(sdst[i]), NULL };
		struct ses_recv_attr ra = { .iov = &ri, .iov_cnt = 1,
					    .tag = round * 4 + i,
					    .initiator = SES_INITIATOR_ANY,
					    .flags = SES_RECV_F_TAGGED };

		memset(sdst[i], 0, sizeof(sdst[i]));
		cr_assert_eq(ses_recv_post(b.s, &ra), 0);
	}
	for (unsigned i = 0; i < 8; i++, n++) {
		size_t len = 1 + t_rand(&w) % T_SLOT;

		t_fill(wsrc[i], len, round * 8 + i);
		t_write_wre(&wr[n], &iov[n], wsrc[i], len, i * T_SLOT);
		cr_assert_eq(ses_wre_post(a.s, &wr[n]), 0);
	}
	for (unsigned i = 0; i < 4; i++, n++) {
		t_fill(ssrc[i], sizeof(ssrc[i]), round * 4 + i + 77);
		t_wre(&wr[n], UET_SES_OP_TAGGED_SEND, &dst, &iov[n], ssrc[i],
		      sizeof(ssrc[i]));
		wr[n].ri = T_RI_MSG;
		wr[n].tag = round * 4 + i;
		cr_assert_eq(ses_wre_post(a.s, &wr[n]), 0);
	}
	for (unsigned i = 0; i < 2; i++, n++) {
		memset(rsink[i], 0, sizeof(rsink[i]));
		t_wre(&wr[n], UET_SES_OP_READ, &dst, &iov[n], rsink[i],
		      sizeof(rsink[i]));
		wr[n].ri = T_RI;
		wr[n].mkey = T_RKEY_PAT;
		wr[n].remote_offset = 100 * i + round;
		cr_assert_eq(ses_wre_post(a.s, &wr[n]), 0);
	}
	t_wire_run(&w, 1000000);
	cr_assert_eq(w.q_cnt, 0);
	cr_assert_eq(a.tx_cnt, n);
	for (unsigned i = 0; i < n; i++)
		cr_assert_eq(a.tx[i].cpl.rc, UET_SES_RC_OK, "wre %u", i);
	for (unsigned i = 0; i < 8; i++)
		cr_assert_eq(memcmp(t_region() + i * T_SLOT, wsrc[i],
				    wr[i].iov[0].len), 0, "slot %u", i);
	cr_assert_eq(b.rx_cnt, 4);
	for (unsigned i = 0; i < 4; i++)
		cr_assert_eq(memcmp(sdst[i], ssrc[i], sizeof(ssrc[i])), 0);
	for (unsigned i = 0; i < 2; i++)
		cr_assert_eq(memcmp(rsink[i], pat + 100 * i + round,
				    sizeof(rsink[i])), 0);
}

Test(ses_reasm, lossy_reordering_wire_many_seeds)
{
	static uint8_t pat[16384];
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	struct ses_stats st;
	uint64_t dups = 0;

	for (uint64_t seed = 1; seed <= 6; seed++) {
		t_teardown();
		t_setup_seed(seed);
		t_fill(pat, sizeof(pat), 5);
		cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY_PAT, pat, sizeof(pat),
					SES_ACCESS_REMOTE_READ), 0);
		w.reorder = true;
		w.dup_pct = 20;
		w.drop_pct = 20;
		for (unsigned round = 0; round < 10; round++)
			t_lossy_batch(pat, round);
		t_guards_intact();
		ses_stats_get(b.s, &st);
		dups += st.rx_dups;
	}
	cr_assert_gt(dups, 0);
}

/* A partial message idle too long is dropped; its receive reports it. */
Test(ses_reasm, idle_partial_message_times_out)
{
	static uint8_t src[3 * T_MTU], sink[3 * T_MTU];
	struct ses_wre wr;
	struct ses_iov iov;
	struct t_pkt lost;
	struct ses_stats st;

	t_recv_post(sink, sizeof(sink), sink);
	t_send_wre(&wr, &iov, src, sizeof(src));
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	lost = t_wire_take(&w, 1);
	t_wire_run(&w, 100);
	cr_assert_eq(b.rx_cnt, 0);
	w.now_ns = 4000000000ull;
	ses_progress(b.s, w.now_ns);
	cr_assert_eq(b.rx_cnt, 0);		/* 4 s: not yet */
	w.now_ns = 5000000001ull;
	ses_progress(b.s, w.now_ns);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, -ETIMEDOUT);
	cr_assert_eq(b.rx[0].user_ctx, sink);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rx_timeouts, 1);
	/* The lost packet turns up: it is finished business, not placed. */
	memset(sink, 0, sizeof(sink));
	t_wire_deliver(&w, &lost);
	t_pkt_free(&lost);
	t_wire_run(&w, 100);
	cr_assert_eq(sink[T_MTU], 0);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rx_dups, 1);
	/*
	 * Its answer says the message was dropped: every other packet was
	 * answered DEFAULT_RESPONSE, and one more so would have completed
	 * the message as placed.
	 */
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, -EREMOTEIO);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_UNDELIVERABLE);
	cr_assert_eq(ses_peer_fail(a.s, 99, -ETIMEDOUT), -ENOENT);
}

/* After both ends reset, ids start again and are not taken for old. */
Test(ses_reasm, peer_reset_starts_ids_again)
{
	static uint8_t src[64];
	struct ses_wre wr;
	struct ses_iov iov;
	struct ses_std_hdr h;

	memset(src, 0x3C, sizeof(src));
	t_write_wre(&wr, &iov, src, sizeof(src), 0);
	for (unsigned i = 0; i < 10; i++)
		cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(ses_peer_reset(a.s, 2), 0);
	cr_assert_eq(ses_peer_reset(b.s, 1), 0);
	memset(t_region(), 0, 64);
	w.capture = true;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	cr_assert_eq(ses_std_hdr_decode(&h, w.log[0].buf, w.log[0].len), 44);
	cr_assert_eq(h.message_id, 1);
	t_wire_run(&w, 1000);
	cr_assert_eq(t_region()[0], 0x3C);
	cr_assert_eq(a.tx[a.tx_cnt - 1].cpl.rc, UET_SES_RC_OK);
}
