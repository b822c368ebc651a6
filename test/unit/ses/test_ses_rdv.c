/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Rendezvous sends: an unexpected large send costs the target no buffer;
 * once matched the target pulls with READ; eager bytes, truncation,
 * claim/discard, the withdrawn send buffer, and a lossy wire.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "t_ses_rdv.h"

/* b has room for the headers (and eager bytes) of unexpected sends only. */
static void t_setup_eager(uint32_t eager, uint64_t seed)
{
	const struct t_rdv_opts o = {
		.seed = seed, .eager_len = eager, .b_eager_only = true,
		.sink_len = T_BIG + 4096, .src_mul = 7, .src_shift = 9,
	};

	t_rdv_setup(&o);
}

static void t_setup(void)
{
	t_setup_eager(0, 9);
}

TestSuite(ses_rdv, .init = t_setup, .fini = t_teardown, .timeout = 30);

Test(ses_rdv, unexpected_costs_a_header_then_pulls)
{
	struct ses_iov iov, siov, riov = { NULL, 64, NULL };
	struct ses_recv_attr ra = { .iov = &riov, .iov_cnt = 1,
				    .initiator = SES_INITIATOR_ANY,
				    .user_ctx = src };
	struct ses_wre wr, small;
	struct ses_std_hdr h;

	w.capture = true;
	t_send(&wr, &iov, T_BIG, 5);
	cr_assert_eq(w.log_cnt, 1);
	cr_assert_eq(ses_std_hdr_decode(&h, w.log[0].buf, w.log[0].len), 44);
	cr_assert_eq(h.opcode, UET_SES_OP_RENDEZVOUS_TSEND);
	cr_assert_eq(h.request_length, T_BIG);
	cr_assert(h.f.som && h.f.eom);
	cr_assert_eq(w.log[0].len, UET_SES_STD_HDR_LEN + UET_SES_RDV_EXT_LEN);
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 0);		/* buffer still exposed */
	cr_assert_eq(b.rx_cnt, 0);
	/* The same budget has no room for an eager send of just 64 bytes:
	 * not taken, it comes again (NACK) until a receive takes it. */
	t_wre(&small, UET_SES_OP_SEND, &to_b, &siov, src, 64);
	small.ri = T_RI_MSG;
	cr_assert_eq(ses_wre_post(a.s, &small), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 0);
	cr_assert_gt(w.eagain_cnt, 0);
	t_recv(T_BIG, 5);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, 0);
	cr_assert_eq(b.rx[0].len, T_BIG);
	cr_assert_eq(b.rx[0].tag, 5);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
	cr_assert_eq(sink[T_BIG], 0xC5);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].wre, &wr);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[0].cpl.modified_len, T_BIG);
	riov.base = sink + T_BIG;
	cr_assert_eq(ses_recv_post(b.s, &ra), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(b.rx_cnt, 2);
	cr_assert_eq(memcmp(sink + T_BIG, src, 64), 0);
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(a.tx[1].wre, &small);
	cr_assert_eq(a.tx[1].cpl.rc, UET_SES_RC_OK);
}

/* With eager bytes, the READ starts after them; expected receive. */
Test(ses_rdv, expected_with_eager_bytes)
{
	struct ses_wre wr;
	struct ses_iov iov;

	t_teardown();
	t_setup_eager(512, 9);
	t_recv(T_BIG, 6);
	t_send(&wr, &iov, T_BIG, 6);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, 0);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[0].cpl.modified_len, T_BIG);
}

/* A short receive pulls only what fits, and says it was truncated. */
Test(ses_rdv, truncated_pulls_only_what_fits)
{
	struct ses_wre wr;
	struct ses_iov iov;

	t_recv(50000, 7);
	w.capture = true;
	t_send(&wr, &iov, T_BIG, 7);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].status, -EMSGSIZE);
	cr_assert_eq(b.rx[0].len, 50000);
	cr_assert_eq(b.rx[0].msg_len, T_BIG);
	cr_assert_eq(memcmp(sink, src, 50000), 0);
	cr_assert_eq(sink[50000], 0xC5);
	cr_assert_eq(a.tx[0].cpl.modified_len, 50000);
	/* The READ asked for 50000 bytes only. */
	for (size_t i = 0; i < w.log_cnt; i++) {
		struct ses_std_hdr h;

		if (w.log[i].src != 2 || !w.log[i].is_req)
			continue;
		cr_assert_eq(ses_std_hdr_decode(&h, w.log[i].buf,
						w.log[i].len), 44);
		cr_assert_eq(h.opcode, UET_SES_OP_READ);
		cr_assert_eq(h.request_length, 50000);
		cr_assert_eq(h.resource_index, T_RI_RDV);
		cr_assert_eq(h.pid_on_fep, 1);
	}
}

/* Once the send completed, its buffer is no longer readable. */
Test(ses_rdv, send_buffer_withdrawn_after_completion)
{
	struct ses_wre wr;
	struct ses_iov iov;
	struct ses_rx_pkt rx = { .peer = 2,
				 .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	uint8_t rsp[UET_SES_RSP_LEN];
	struct ses_rsp_hdr r;
	struct t_pkt *read = NULL;

	t_recv(T_BIG, 8);
	w.capture = true;
	t_send(&wr, &iov, T_BIG, 8);
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK);
	for (size_t i = 0; i < w.log_cnt; i++)
		if (w.log[i].src == 2 && w.log[i].is_req)
			read = &w.log[i];
	cr_assert_not_null(read);
	/* A READ with a new id (not a duplicate) but the old key. */
	read->buf[3] ^= 0x40;
	rx.buf = read->buf;
	rx.len = read->len;
	cr_assert_eq(ses_rx_req(a.s, &rx, rsp, sizeof(rsp)), UET_SES_RSP_LEN);
	cr_assert_eq(ses_rsp_hdr_decode(&r, rsp, sizeof(rsp)), UET_SES_RSP_LEN);
	cr_assert_eq(r.return_code, UET_SES_RC_BAD_MKEY);
}

Test(ses_rdv, claim_pulls_and_discard_releases_the_sender)
{
	struct ses_recv_attr any = { .initiator = SES_INITIATOR_ANY,
				     .ignore = ~0ull,
				     .flags = SES_RECV_F_TAGGED };
	struct ses_iov riov = { sink, T_BIG, NULL };
	struct ses_recv_attr into = { .iov = &riov, .iov_cnt = 1 };
	struct ses_recv_info i1, i2;
	struct ses_wre wr[2];
	struct ses_iov iov[2];

	t_send(&wr[0], &iov[0], T_BIG, 1);
	t_send(&wr[1], &iov[1], 20000, 2);
	t_wire_run(&w, 1000);
	cr_assert_eq(ses_recv_peek(b.s, &any, true, &i1), 0);
	cr_assert_eq(ses_recv_peek(b.s, &any, true, &i2), 0);
	cr_assert_eq(i1.msg_len, T_BIG);
	cr_assert_eq(i2.msg_len, 20000);
	cr_assert_eq(ses_recv_discard(b.s, i2.handle), 0);
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].wre, &wr[1]);
	cr_assert_eq(a.tx[0].cpl.modified_len, 0);
	cr_assert_eq(ses_recv_claim(b.s, i1.handle, &into), 0);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(a.tx[1].cpl.modified_len, T_BIG);
}

/* Several rendezvous at once over a reordering, duplicating, lossy wire. */
Test(ses_rdv, lossy_wire)
{
	static struct ses_wre wr[4];
	static struct ses_iov iov[4];
	static uint8_t out[4][30000];

	for (uint64_t seed = 1; seed <= 4; seed++) {
		t_teardown();
		t_setup_eager(seed % 2 ? 0 : 1000, seed);
		w.reorder = true;
		w.dup_pct = 15;
		w.drop_pct = 15;
		a.tx_cnt = 0;
		for (unsigned i = 0; i < 4; i++) {
			memset(out[i], 0, sizeof(out[i]));
			if (i % 2)
				t_recv_at(out[i], sizeof(out[i]), i, NULL);
			t_send_from(&wr[i], &iov[i], src + 1000 * i,
				    sizeof(out[i]), i);
			t_wire_run(&w, 50);
			if (!(i % 2))
				t_recv_at(out[i], sizeof(out[i]), i, NULL);
		}
		t_wire_run(&w, 100000);
		cr_assert_eq(a.tx_cnt, 4);
		cr_assert_eq(b.rx_cnt, 4);
		for (unsigned i = 0; i < 4; i++) {
			cr_assert_eq(a.tx[i].cpl.rc, UET_SES_RC_OK);
			cr_assert_eq(memcmp(out[i], src + 1000 * i,
					    sizeof(out[i])), 0, "seed %lu msg %u",
				     (unsigned long)seed, i);
		}
	}
}
