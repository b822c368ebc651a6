/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Initiator side: the seed example packet by packet, fragmentation at every
 * Payload MTU, message_id allocation (consecutive, wrapping at 16 bits,
 * never reusing an id in flight) and packets the lower layer refuses.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test_ses_wire.h"

#define T_JOB		101
#define T_PID		2
#define T_RI		0x00a
#define T_RKEY		0xacce5ull
#define T_CANARY	0xC5

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr dst;
static uint8_t *region;		/* T_CANARY guard, 64 KiB, guard */
static const size_t guard = 4096, region_len = 65536;

/* Node 1 writes to node 2, which registers the seed's RI and key. */
static void t_setup_mtu(uint32_t mtu)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	struct ses_config cfg;

	t_wire_init(&w, 7);
	ses_config_init(&cfg);
	cfg.payload_mtu = mtu;
	cfg.initiator = 1;
	t_node_init(&w, &a, 1, &cfg);
	cfg.initiator = 2;
	t_node_init(&w, &b, 2, &cfg);
	region = malloc(region_len + 2 * guard);
	cr_assert_not_null(region);
	memset(region, T_CANARY, region_len + 2 * guard);
	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY, region + guard, region_len,
				SES_ACCESS_REMOTE_WRITE |
				SES_ACCESS_REMOTE_READ), 0);
	t_addr(&dst, 2, T_JOB, T_PID);
}

static void t_setup(void)
{
	t_setup_mtu(8192);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
	free(region);
}

static void t_guards_intact(void)
{
	for (size_t i = 0; i < guard; i++) {
		cr_assert_eq(region[i], T_CANARY, "front guard byte %zu", i);
		cr_assert_eq(region[guard + region_len + i], T_CANARY,
			     "back guard byte %zu", i);
	}
}

static void t_fill(uint8_t *p, size_t len, uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

static void t_write_wre(struct ses_wre *wr, struct ses_iov *iov, void *buf,
			size_t len, uint64_t off)
{
	t_wre(wr, UET_SES_OP_WRITE, &dst, iov, buf, len);
	wr->ri = T_RI;
	wr->mkey = T_RKEY;
	wr->remote_offset = off;
	wr->flags = SES_WRE_F_COMPLETION;
}

static void t_expect_hdr(const struct t_pkt *p, const uint8_t *want)
{
	cr_assert_eq(p->next_hdr, UET_PDS_NEXT_HDR_REQUEST_STD);
	cr_assert_geq(p->len, UET_SES_STD_HDR_LEN);
	for (size_t i = 0; i < UET_SES_STD_HDR_LEN; i++)
		cr_assert_eq(p->buf[i], want[i], "byte %zu: 0x%02x, want 0x%02x",
			     i, p->buf[i], want[i]);
}

/*
 * The seed's two packets (seeds/uet-wre-ses-blog.txt, figure 5-5), SES part
 * as in test_seed_vectors.c: WRITE, rel, JobID 101, PIDonFEP 2, RI 0x00a,
 * RKEY 0xacce5, 16384 bytes at offsets 0 and 8192, message_id 1.
 */
static const uint8_t t_seed_ses1[UET_SES_STD_HDR_LEN] = {
	0x01, 0x09, 0x00, 0x01,	/* WRITE; rel|som; message_id 1 */
	0x00, 0x00, 0x00, 0x65,	/* ri_generation 0; job_id 101 */
	0x00, 0x02, 0x00, 0x0A,	/* pid_on_fep 2; resource_index 0x00a */
	0x00, 0x00, 0x00, 0x00,	/* buffer_offset 0 */
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01,	/* initiator 1 */
	0x00, 0x00, 0x00, 0x00,	/* memory_key: RKEY 0xacce5 */
	0x00, 0x0A, 0xCC, 0xE5,
	0x00, 0x00, 0x00, 0x00,	/* header_data (hd=0) */
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x40, 0x00,	/* request_length 16384 */
};

static const uint8_t t_seed_ses2[UET_SES_STD_HDR_LEN] = {
	0x01, 0x0A, 0x00, 0x01,	/* WRITE; rel|eom; message_id 1 */
	0x00, 0x00, 0x00, 0x65,
	0x00, 0x02, 0x00, 0x0A,
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x0A, 0xCC, 0xE5,
	0x00, 0x00, 0x20, 0x00,	/* payload_length 8192 */
	0x00, 0x00, 0x20, 0x00,	/* message_offset 8192 */
	0x00, 0x00, 0x40, 0x00,
};

TestSuite(ses_frag, .init = t_setup, .fini = t_teardown, .timeout = 30);

Test(ses_frag, seed_write_16k_is_two_packets)
{
	static uint8_t src[16384];
	struct ses_wre wr;
	struct ses_iov iov;

	t_fill(src, sizeof(src), 3);
	t_write_wre(&wr, &iov, src, sizeof(src), 0);
	w.capture = true;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	cr_assert_eq(w.log_cnt, 2);
	t_expect_hdr(&w.log[0], t_seed_ses1);
	t_expect_hdr(&w.log[1], t_seed_ses2);
	cr_assert_eq(w.log[0].len, UET_SES_STD_HDR_LEN + 8192);
	cr_assert_eq(w.log[1].len, UET_SES_STD_HDR_LEN + 8192);
	cr_assert_eq(memcmp(w.log[1].buf + UET_SES_STD_HDR_LEN, src + 8192,
			    8192), 0);

	t_wire_run(&w, 100);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].wre, &wr);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[0].cpl.modified_len, 16384);
	cr_assert_eq(memcmp(region + guard, src, sizeof(src)), 0);
	t_guards_intact();
	cr_assert_eq(b.rma_cnt, 1);
	cr_assert_eq(b.rma[0].len, 16384);
	cr_assert(!b.rma[0].hd);
}

/*
 * The gradient chunk (bucket 12): 32 KiB with header data after the first
 * write, so message_id 2; four packets, hd and header_data 12 on the first.
 */
Test(ses_frag, seed_gradient_chunk_hd_on_first_packet_only)
{
	static uint8_t first[16384], chunk[32768];
	struct ses_wre w1, w2;
	struct ses_iov i1, i2;
	struct ses_std_hdr h;

	t_write_wre(&w1, &i1, first, sizeof(first), 0);
	cr_assert_eq(ses_wre_post(a.s, &w1), 0);
	t_wire_run(&w, 100);
	t_fill(chunk, sizeof(chunk), 12);
	t_write_wre(&w2, &i2, chunk, sizeof(chunk), 32768);
	w2.flags |= SES_WRE_F_HDR_DATA;
	w2.header_data = 12;
	w.capture = true;
	cr_assert_eq(ses_wre_post(a.s, &w2), 0);
	cr_assert_eq(w.log_cnt, 4);
	for (unsigned i = 0; i < 4; i++) {
		cr_assert_eq(ses_std_hdr_decode(&h, w.log[i].buf, w.log[i].len),
			     UET_SES_STD_HDR_LEN);
		cr_assert_eq(h.message_id, 2);
		cr_assert_eq(h.f.som, i == 0);
		cr_assert_eq(h.f.eom, i == 3);
		cr_assert_eq(h.f.hd, i == 0);
		cr_assert_eq(h.header_data, i == 0 ? 12 : 0);
		cr_assert_eq(w.log[i].buf[1] & UET_SES_F_HD,
			     i == 0 ? UET_SES_F_HD : 0);
		cr_assert_eq(h.buffer_offset, 32768);
		cr_assert_eq(h.message_offset, i * 8192);
		cr_assert_eq(h.payload_length, i ? 8192 : 0);
		cr_assert_eq(h.request_length, 32768);
	}
	/* bytes 32-39 of the first packet: header_data 12 */
	cr_assert_eq(w.log[0].buf[39], 12);
	t_wire_run(&w, 100);
	cr_assert_eq(memcmp(region + guard + 32768, chunk, sizeof(chunk)), 0);
	t_guards_intact();
	cr_assert_eq(b.rma_cnt, 2);
	cr_assert(b.rma[1].hd);
	cr_assert_eq(b.rma[1].header_data, 12);
	cr_assert_eq(b.rma[1].len, 32768);
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(a.tx[1].cpl.modified_len, 32768);
}

/* Lengths around each MTU: packet count, flags, offsets, data. */
static void t_frag_check(uint32_t mtu, uint32_t len)
{
	static uint8_t src[65536];
	uint32_t npkt = len ? (len + mtu - 1) / mtu : 1, i;
	struct ses_wre wr;
	struct ses_iov iov;
	struct ses_std_hdr h;
	size_t first = w.log_cnt;

	t_fill(src, len, (uint8_t)len);
	t_write_wre(&wr, &iov, src, len, 100);
	w.capture = true;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	cr_assert_eq(w.log_cnt - first, npkt, "mtu %u len %u", mtu, len);
	for (i = 0; i < npkt; i++) {
		const struct t_pkt *p = &w.log[first + i];
		uint32_t want = len - i * mtu < mtu ? len - i * mtu : mtu;

		cr_assert_eq(ses_std_hdr_decode(&h, p->buf, p->len), 44);
		cr_assert_eq(h.f.som, i == 0);
		cr_assert_eq(h.f.eom, i + 1 == npkt);
		cr_assert_eq(p->len - 44, want);
		if (i)
			cr_assert_eq(h.payload_length, want);
		cr_assert_eq(h.message_offset, i * mtu);
		cr_assert_eq(h.request_length, len);
		cr_assert_eq(h.buffer_offset, 100);
	}
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx[a.tx_cnt - 1].cpl.status, 0);
	cr_assert_eq(a.tx[a.tx_cnt - 1].cpl.modified_len, len);
	cr_assert_eq(memcmp(region + guard + 100, src, len), 0);
}

Test(ses_frag, every_mtu_and_edge_length)
{
	static const uint32_t mtus[] = { 1024, 2048, 4096, 8192 };

	for (unsigned m = 0; m < 4; m++) {
		uint32_t mtu = mtus[m];
		uint32_t lens[] = { 0, 1, mtu - 1, mtu, mtu + 1, 3 * mtu + 5 };

		t_teardown();
		t_setup_mtu(mtu);
		for (unsigned l = 0; l < 6; l++)
			t_frag_check(mtu, lens[l]);
		t_guards_intact();
	}
}

Test(ses_frag, ids_are_consecutive_and_wrap_over_70000_messages)
{
	static uint64_t val[512];
	static struct ses_wre wr[512];
	static struct ses_iov iov[512];
	uint16_t want = 1;
	struct ses_std_hdr h;
	unsigned done = 0;

	w.capture = true;
	while (done < 70000) {
		unsigned batch = 70000 - done < 512 ? 70000 - done : 512;

		for (unsigned i = 0; i < batch; i++) {
			val[i] = done + i;
			t_write_wre(&wr[i], &iov[i], &val[i], 8, 8 * i);
			cr_assert_eq(ses_wre_post(a.s, &wr[i]), 0);
		}
		for (size_t i = 0; i < w.log_cnt; i++) {
			cr_assert_eq(ses_std_hdr_decode(&h, w.log[i].buf,
							w.log[i].len), 44);
			cr_assert_eq(h.message_id, want, "message %u",
				     done + (unsigned)i);
			want++;
			t_pkt_free(&w.log[i]);
		}
		w.log_cnt = 0;
		w.capture = false;
		a.tx_cnt = 0;
		t_wire_run(&w, 100000);
		w.capture = true;
		cr_assert_eq(a.tx_cnt, batch > T_MAX_CPL ? T_MAX_CPL : batch);
		for (unsigned i = 0; i < a.tx_cnt; i++)
			cr_assert_eq(a.tx[i].cpl.rc, UET_SES_RC_OK);
		for (unsigned i = 0; i < batch; i++) {
			uint64_t got;

			memcpy(&got, region + guard + 8 * i, 8);
			cr_assert_eq(got, done + i);
		}
		done += batch;
	}
	cr_assert_eq(a.tx_total, 70000);
	cr_assert_eq(want, (uint16_t)(70000 + 1));
	t_guards_intact();
}

/* An id whose message is unanswered is never handed out again. */
Test(ses_frag, id_in_flight_is_never_reused)
{
	static uint64_t val;
	struct ses_std_hdr h;
	struct ses_wre wr;
	struct ses_iov iov;
	struct t_pkt held;
	unsigned n = 0;

	t_write_wre(&wr, &iov, &val, 8, 0);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	held = t_wire_take(&w, 0);	/* message 1 stays unanswered */
	/* Everything else is answered; ids move on around the held one. */
	for (unsigned round = 0; round < 8; round++) {
		for (unsigned i = 0; i < 100; i++, n++)
			cr_assert_eq(ses_wre_post(a.s, &wr), 0);
		t_wire_run(&w, 100000);
	}
	/* ids 1..801 handed out; the window ends at 1 + SES_MSG_WINDOW */
	for (; n + 1 < SES_MSG_WINDOW; n++)
		cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_total, SES_MSG_WINDOW - 1);
	/* Past it, a message waits for an id and sends nothing. */
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	cr_assert_eq(w.q_cnt, 0);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_total, SES_MSG_WINDOW - 1);
	w.capture = true;
	t_wire_deliver(&w, &held);
	t_pkt_free(&held);
	t_wire_run(&w, 100);
	cr_assert_eq(a.tx_total, SES_MSG_WINDOW + 1);
	/* Answer, then the one that waited, as id 1 + SES_MSG_WINDOW. */
	cr_assert_eq(w.log_cnt, 3);
	cr_assert(w.log[1].is_req);
	cr_assert_eq(ses_std_hdr_decode(&h, w.log[1].buf, w.log[1].len),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(h.message_id, 1 + SES_MSG_WINDOW);
}

/* Packets the lower layer refuses go out later, in post order. */
Test(ses_frag, refused_packets_wait_and_keep_order)
{
	static uint8_t src[3][20000];
	struct ses_wre wr[3];
	struct ses_iov iov[3];

	w.tx_budget = 1;
	for (unsigned i = 0; i < 3; i++) {
		t_fill(src[i], sizeof(src[i]), (uint8_t)(40 + i));
		t_write_wre(&wr[i], &iov[i], src[i], sizeof(src[i]),
			    20000 * i);
		cr_assert_eq(ses_wre_post(a.s, &wr[i]), 0);
	}
	cr_assert_eq(w.q_cnt, 1);
	w.tx_budget = -1;
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 3);
	for (unsigned i = 0; i < 3; i++) {
		cr_assert_eq(a.tx[i].wre, &wr[i]);
		cr_assert_eq(memcmp(region + guard + 20000 * i, src[i],
				    sizeof(src[i])), 0);
	}
	t_guards_intact();
}

Test(ses_frag, rejects_bad_wres)
{
	static uint8_t buf[8];
	struct ses_wre wr;
	struct ses_iov iov;
	struct ses_addr far = dst;

	t_write_wre(&wr, &iov, buf, 8, 0);
	wr.opcode = UET_SES_OP_DEFERRABLE_SEND;	/* not served */
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
	t_write_wre(&wr, &iov, buf, 8, 0);
	wr.iov_cnt = SES_IOV_MAX + 1;
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
	t_write_wre(&wr, &iov, buf, 8, 0);
	wr.ri = 0x1000;
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
	far.job_id = 1u << 24;
	t_write_wre(&wr, &iov, buf, 8, 0);
	wr.dst = &far;
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
	cr_assert_eq(ses_wre_post(a.s, NULL), -EINVAL);
	cr_assert_eq(w.q_cnt, 0);
}
