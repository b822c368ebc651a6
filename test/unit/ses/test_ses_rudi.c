/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RUDI at the target (ses_rudi.c): requests handed straight to
 * ses_rx_rudi, as PDC hands them without a PDC. An idempotent-safe region
 * takes WRITEs and serves READs, copies executed again with the same
 * result; a region not registered idempotent-safe, a wrong key, generation
 * or range, a non-idempotent opcode and header data are refused with the
 * right UET code and change no byte.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test_ses_wire.h"

#define R_JOB		101
#define R_PID		2
#define R_RI		0x00a
#define R_RKEY		0x1de3ull	/* idempotent-safe */
#define R_RKEY_PLAIN	0x7a1eull	/* not */
#define R_LEN		16384

static struct t_wire w;
static struct t_node b;
static uint8_t mem[2 * R_LEN], snap[2 * R_LEN];
static uint8_t gen;

static void r_setup(void)
{
	struct ses_ri_id id = { R_JOB, R_PID, R_RI };
	struct ses_config cfg;

	t_wire_init(&w, 3);
	ses_config_init(&cfg);
	cfg.payload_mtu = 4096;
	cfg.initiator = 2;
	t_node_init(&w, &b, 2, &cfg);
	memset(mem, 0x55, sizeof(mem));
	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, R_RKEY, mem, R_LEN,
				SES_ACCESS_REMOTE_WRITE |
				SES_ACCESS_REMOTE_READ |
				SES_ACCESS_IDEMPOTENT), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, R_RKEY_PLAIN, mem + R_LEN, R_LEN,
				SES_ACCESS_REMOTE_WRITE |
				SES_ACCESS_REMOTE_READ), 0);
	gen = 0;
}

static void r_teardown(void)
{
	t_node_fini(&b);
	t_wire_fini(&w);
}

TestSuite(ses_rudi, .init = r_setup, .fini = r_teardown, .timeout = 10);

/* One request of |op| at |off| under |mkey|, |len| bytes of |fill|. */
static ssize_t r_req(uint8_t op, uint64_t mkey, uint64_t off, uint32_t len,
		     uint8_t fill, uint8_t *rsp, size_t rsp_len,
		     uint8_t *next_hdr)
{
	static uint8_t buf[UET_SES_STD_HDR_LEN + R_LEN];
	struct ses_std_hdr h = {
		.opcode = op,
		.f = { .som = 1, .eom = 1, .rel = 1 },
		.message_id = 0x1234, .ri_generation = gen,
		.job_id = R_JOB, .pid_on_fep = R_PID, .resource_index = R_RI,
		.buffer_offset = off, .initiator = 9, .memory_key = mkey,
		.request_length = len,
	};
	uint32_t pay = op == UET_SES_OP_READ ? 0 : len;
	struct ses_rx_pkt pkt = {
		.peer = 1, .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
		.buf = buf, .len = UET_SES_STD_HDR_LEN + pay,
	};

	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h),
		     UET_SES_STD_HDR_LEN);
	memset(buf + UET_SES_STD_HDR_LEN, fill, pay);
	return ses_rx_rudi(b.s, &pkt, rsp, rsp_len, next_hdr);
}

/* The return code of a RESPONSE. */
static uint8_t r_rc(const uint8_t *rsp, ssize_t n, uint8_t next_hdr,
		    uint8_t *opcode)
{
	struct ses_rsp_hdr r;

	cr_assert_eq(next_hdr, UET_PDS_NEXT_HDR_RESPONSE);
	cr_assert_eq(ses_rsp_hdr_decode(&r, rsp, (size_t)n), n);
	cr_expect_eq(r.message_id, 0x1234);
	if (opcode)
		*opcode = r.opcode;
	return r.return_code;
}

Test(ses_rudi, write_placed_and_again_the_same)
{
	uint8_t rsp[128], nh, op;
	ssize_t n;

	for (int copy = 0; copy < 2; copy++) {
		n = r_req(UET_SES_OP_WRITE, R_RKEY | UET_MKEY_IDEMPOTENT_SAFE,
			  100, 300, 0xA7, rsp, sizeof(rsp), &nh);
		cr_assert_gt(n, 0);
		cr_expect_eq(r_rc(rsp, n, nh, &op), UET_SES_RC_OK);
		cr_expect_eq(op, UET_SES_RSP_DEFAULT_RESPONSE);
	}
	for (int i = 0; i < R_LEN; i++)
		cr_assert_eq(mem[i], i >= 100 && i < 400 ? 0xA7 : 0x55,
			     "byte %d", i);
}

Test(ses_rudi, read_answers_with_the_data)
{
	static uint8_t rsp[UET_SES_RSP_DATA_LEN + R_LEN];
	struct ses_rsp_data_hdr d;
	uint8_t nh;
	ssize_t n, hl;

	for (int i = 0; i < R_LEN; i++)
		mem[i] = (uint8_t)(i * 7);
	n = r_req(UET_SES_OP_READ, R_RKEY, 1000, 2000, 0, rsp, sizeof(rsp),
		  &nh);
	cr_assert_eq(nh, UET_PDS_NEXT_HDR_RESPONSE_DATA);
	hl = ses_rsp_data_hdr_decode(&d, rsp, (size_t)n);
	cr_assert_gt(hl, 0);
	cr_expect_eq(d.return_code, UET_SES_RC_OK);
	cr_expect_eq(d.read_request_message_id, 0x1234);
	cr_expect_eq(d.payload_length, 2000);
	cr_expect_eq(d.message_offset, 0);
	cr_assert_eq(n - hl, 2000);
	cr_expect(!memcmp(rsp + hl, mem + 1000, 2000));
	/* Longer than the caller's buffer: refused, not cut. */
	n = r_req(UET_SES_OP_READ, R_RKEY, 0, 2000, 0, rsp, 1000, &nh);
	cr_expect_eq(r_rc(rsp, n, nh, NULL), UET_SES_RC_UNSUPPORTED_SIZE);
}

/* A piece of a RUDI READ of |total| bytes at 100: from |off|. */
static ssize_t r_piece(uint32_t off, bool som, bool eom, uint32_t total,
		       uint8_t *rsp, size_t rsp_len, uint8_t *next_hdr)
{
	uint8_t buf[UET_SES_STD_HDR_LEN];
	struct ses_std_hdr h = {
		.opcode = UET_SES_OP_READ,
		.f = { .som = som, .eom = eom, .rel = 1 },
		.message_id = 0x1234, .job_id = R_JOB, .pid_on_fep = R_PID,
		.resource_index = R_RI, .buffer_offset = 100, .initiator = 9,
		.memory_key = R_RKEY, .request_length = total,
		.message_offset = som ? 0 : off,
	};
	struct ses_rx_pkt pkt = {
		.peer = 1, .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
		.buf = buf, .len = sizeof(buf),
	};

	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h),
		     UET_SES_STD_HDR_LEN);
	return ses_rx_rudi(b.s, &pkt, rsp, rsp_len, next_hdr);
}

/*
 * A READ longer than the Payload MTU (4096 here) asks for it a piece a
 * packet; each is answered with its piece at its message_offset. A last
 * piece longer than our MTU is refused, not cut; a piece not on a 1 KiB
 * boundary or past the end is no READ of ours.
 */
Test(ses_rudi, read_in_pieces)
{
	static uint8_t rsp[UET_SES_RSP_DATA_LEN + R_LEN];
	static const uint32_t offs[] = { 0, 4096, 8192 };
	struct ses_rsp_data_hdr d;
	uint8_t nh;
	ssize_t n, hl;

	for (int i = 0; i < R_LEN; i++)
		mem[i] = (uint8_t)(i * 13 + 1);
	for (int i = 0; i < 3; i++) {
		n = r_piece(offs[i], i == 0, i == 2, 10000, rsp, sizeof(rsp),
			    &nh);
		cr_assert_eq(nh, UET_PDS_NEXT_HDR_RESPONSE_DATA);
		hl = ses_rsp_data_hdr_decode(&d, rsp, (size_t)n);
		cr_assert_gt(hl, 0);
		cr_expect_eq(d.message_offset, offs[i]);
		cr_expect_eq(d.payload_length, i < 2 ? 4096 : 10000 - 8192);
		cr_assert_eq(n - hl, d.payload_length);
		cr_expect(!memcmp(rsp + hl, mem + 100 + offs[i],
				  d.payload_length));
	}
	n = r_piece(4096, false, true, 10000, rsp, sizeof(rsp), &nh);
	cr_expect_eq(r_rc(rsp, n, nh, NULL), UET_SES_RC_UNSUPPORTED_SIZE);
	n = r_piece(4000, false, false, 10000, rsp, sizeof(rsp), &nh);
	cr_expect_eq(r_rc(rsp, n, nh, NULL), UET_SES_RC_OP_VIOLATION);
	n = r_piece(10240, false, true, 10000, rsp, sizeof(rsp), &nh);
	cr_expect_eq(r_rc(rsp, n, nh, NULL), UET_SES_RC_OP_VIOLATION);
}

/* Each refusal: its code, and not one byte of either region changed. */
static void r_refused(uint8_t op, uint64_t mkey, uint64_t off, uint32_t len,
		      uint8_t rc)
{
	uint8_t rsp[R_LEN + 64], nh;
	ssize_t n;

	memcpy(snap, mem, sizeof(mem));
	n = r_req(op, mkey, off, len, 0xEE, rsp, sizeof(rsp), &nh);
	cr_assert_gt(n, 0);
	cr_expect_eq(r_rc(rsp, n, nh, NULL), rc, "op %u key %llx: rc %#x",
		     op, (unsigned long long)mkey, rc);
	cr_expect(!memcmp(snap, mem, sizeof(mem)));
}

Test(ses_rudi, refusals_change_nothing)
{
	/* The key bit is the initiator's claim; the region decides. */
	r_refused(UET_SES_OP_WRITE, R_RKEY_PLAIN | UET_MKEY_IDEMPOTENT_SAFE,
		  0, 64, UET_SES_RC_OP_VIOLATION);
	r_refused(UET_SES_OP_READ, R_RKEY_PLAIN, 0, 64,
		  UET_SES_RC_OP_VIOLATION);
	r_refused(UET_SES_OP_WRITE, 0xbadull, 0, 64, UET_SES_RC_BAD_MKEY);
	r_refused(UET_SES_OP_WRITE, R_RKEY, R_LEN - 8, 64,
		  UET_SES_RC_BAD_ADDR);
	r_refused(UET_SES_OP_SEND, 0, 0, 8, UET_SES_RC_OP_VIOLATION);
	gen = 3;
	r_refused(UET_SES_OP_WRITE, R_RKEY, 0, 64,
		  UET_SES_RC_BAD_GENERATION);
}

Test(ses_rudi, wrong_destination_refused)
{
	static uint8_t buf[UET_SES_STD_HDR_LEN + 8];
	struct ses_std_hdr h = {
		.opcode = UET_SES_OP_WRITE, .f = { .som = 1, .eom = 1,
						   .rel = 1, .hd = 0 },
		.message_id = 0x1234, .job_id = R_JOB + 1, .pid_on_fep = R_PID,
		.resource_index = R_RI, .memory_key = R_RKEY,
		.request_length = 8,
	};
	struct ses_rx_pkt pkt = {
		.peer = 1, .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
		.buf = buf, .len = sizeof(buf),
	};
	uint8_t rsp[64], nh;
	ssize_t n;

	memcpy(snap, mem, sizeof(mem));
	ses_std_hdr_encode(buf, sizeof(buf), &h);
	n = ses_rx_rudi(b.s, &pkt, rsp, sizeof(rsp), &nh);
	cr_expect_eq(r_rc(rsp, n, nh, NULL), UET_SES_RC_BAD_JOB_ID);
	h.job_id = R_JOB;
	h.f.hd = 1;
	h.header_data = 5;
	ses_std_hdr_encode(buf, sizeof(buf), &h);
	n = ses_rx_rudi(b.s, &pkt, rsp, sizeof(rsp), &nh);
	cr_expect_eq(r_rc(rsp, n, nh, NULL), UET_SES_RC_OP_VIOLATION);
	cr_expect(!memcmp(snap, mem, sizeof(mem)));
	/* Cut short: not parsed, not answered. */
	pkt.len = 10;
	cr_expect_lt(ses_rx_rudi(b.s, &pkt, rsp, sizeof(rsp), &nh), 0);
}
