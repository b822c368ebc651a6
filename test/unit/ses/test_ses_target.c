/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Target checks (design section 4), each return code with a canary region
 * around the target buffer proven untouched; generations and key reuse;
 * the response to the initiator, with the code preserved in its
 * completion; malformed packets.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test_ses_wire.h"

#define T_JOB		101
#define T_PID		2
#define T_RI		0x00a
#define T_RI_MSG	0x00b	/* sends allowed */
#define T_RI_NOGEN	0x00c	/* no generations */
#define T_RKEY		0xacce5ull
#define T_RKEY_RO	0xbeefull	/* remote read only */
#define T_RKEY_WO	0xf00dull	/* remote write only */
#define T_CANARY	0xC5
#define T_GUARD		4096
#define T_LEN		16384

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr dst;
static uint8_t *mem;		/* guard | region | guard | ro | wo */
static uint8_t *snap;

static uint8_t *t_region(void)
{
	return mem + T_GUARD;
}

static void t_setup(void)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	struct ses_ri_id msg = { T_JOB, T_PID, T_RI_MSG };
	struct ses_ri_id nogen = { T_JOB, T_PID, T_RI_NOGEN };
	struct ses_config cfg;
	size_t total = 2 * T_GUARD + 3 * T_LEN;

	t_wire_init(&w, 11);
	ses_config_init(&cfg);
	cfg.payload_mtu = 4096;
	cfg.initiator = 1;
	t_node_init(&w, &a, 1, &cfg);
	cfg.initiator = 2;
	cfg.max_msg_len = 65536;
	t_node_init(&w, &b, 2, &cfg);
	mem = malloc(total);
	snap = malloc(total);
	cr_assert(mem && snap);
	memset(mem, T_CANARY, total);
	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_ri_add(b.s, &msg, SES_RI_F_MSG), 0);
	cr_assert_eq(ses_ri_add(b.s, &nogen, SES_RI_F_NO_GEN), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY, t_region(), T_LEN,
				SES_ACCESS_REMOTE_WRITE |
				SES_ACCESS_REMOTE_READ), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY_RO, t_region() + T_LEN +
				T_GUARD, T_LEN, SES_ACCESS_REMOTE_READ), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY_WO, t_region() + 2 * T_LEN +
				T_GUARD, T_LEN, SES_ACCESS_REMOTE_WRITE), 0);
	cr_assert_eq(ses_mr_add(b.s, &nogen, T_RKEY, t_region(), T_LEN,
				SES_ACCESS_REMOTE_WRITE), 0);
	t_addr(&dst, 2, T_JOB, T_PID);
	memcpy(snap, mem, total);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
	free(mem);
	free(snap);
}

TestSuite(ses_target, .init = t_setup, .fini = t_teardown, .timeout = 30);

/* No byte of the regions or the guards around them changed. */
static void t_untouched(void)
{
	size_t total = 2 * T_GUARD + 3 * T_LEN;

	for (size_t i = 0; i < total; i++)
		cr_assert_eq(mem[i], snap[i], "byte %zu changed", i);
}

/* Writes |len| bytes at |off| with key |mkey| to |ri|; returns the cpl. */
static struct ses_tx_cpl t_write(uint64_t mkey, uint16_t ri, uint64_t off,
				 size_t len)
{
	static uint8_t src[T_LEN + 8192];
	struct ses_wre wr;
	struct ses_iov iov;

	memset(src, 0x5A, sizeof(src));
	t_wre(&wr, UET_SES_OP_WRITE, &dst, &iov, src, len);
	wr.ri = ri;
	wr.mkey = mkey;
	wr.remote_offset = off;
	a.tx_cnt = 0;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 1);
	return a.tx[0].cpl;
}

static void t_expect_rc(struct ses_tx_cpl cpl, uint8_t rc)
{
	cr_assert_eq(cpl.rc, rc, "rc 0x%02x (%s), want 0x%02x (%s)", cpl.rc,
		     ses_rc_name(cpl.rc), rc, ses_rc_name(rc));
	cr_assert_eq(cpl.status, rc == UET_SES_RC_OK ? 0 : -EREMOTEIO);
}

Test(ses_target, write_ok_lands_inside_only)
{
	t_expect_rc(t_write(T_RKEY, T_RI, 100, 9000), UET_SES_RC_OK);
	for (size_t i = 0; i < 2 * T_GUARD + 3 * T_LEN; i++) {
		bool inside = i >= T_GUARD + 100 && i < T_GUARD + 9100;

		cr_assert_eq(mem[i], inside ? 0x5A : snap[i], "byte %zu", i);
	}
}

Test(ses_target, bad_job_id)
{
	dst.job_id = 999;
	t_expect_rc(t_write(T_RKEY, T_RI, 0, 100), UET_SES_RC_BAD_JOB_ID);
	t_untouched();
}

Test(ses_target, bad_pid)
{
	dst.pid_on_fep = 7;
	t_expect_rc(t_write(T_RKEY, T_RI, 0, 100), UET_SES_RC_BAD_PID);
	t_untouched();
}

Test(ses_target, bad_index)
{
	t_expect_rc(t_write(T_RKEY, 0x0ff, 0, 100), UET_SES_RC_BAD_INDEX);
	t_untouched();
}

Test(ses_target, disabled_gen_and_disabled)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	struct ses_ri_id nogen = { T_JOB, T_PID, T_RI_NOGEN };

	cr_assert_eq(ses_ri_disable(b.s, &id), 0);
	t_expect_rc(t_write(T_RKEY, T_RI, 0, 100), UET_SES_RC_DISABLED_GEN);
	cr_assert_eq(ses_ri_disable(b.s, &nogen), 0);
	t_expect_rc(t_write(T_RKEY, T_RI_NOGEN, 0, 100), UET_SES_RC_DISABLED);
	t_untouched();
	cr_assert_eq(ses_ri_enable(b.s, &id), 0);
	t_expect_rc(t_write(T_RKEY, T_RI, 0, 100), UET_SES_RC_OK);
}

Test(ses_target, bad_mkey)
{
	t_expect_rc(t_write(0x12345, T_RI, 0, 100), UET_SES_RC_BAD_MKEY);
	t_untouched();
}

Test(ses_target, perm_violation_both_ways)
{
	static uint8_t sink[100];
	struct ses_wre wr;
	struct ses_iov iov;

	t_expect_rc(t_write(T_RKEY_RO, T_RI, 0, 100),
		    UET_SES_RC_PERM_VIOLATION);
	t_wre(&wr, UET_SES_OP_READ, &dst, &iov, sink, sizeof(sink));
	wr.ri = T_RI;
	wr.mkey = T_RKEY_WO;
	a.tx_cnt = 0;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 100);
	t_expect_rc(a.tx[0].cpl, UET_SES_RC_PERM_VIOLATION);
	t_untouched();
}

Test(ses_target, bad_addr_past_the_end)
{
	t_expect_rc(t_write(T_RKEY, T_RI, T_LEN - 99, 100),
		    UET_SES_RC_BAD_ADDR);
	t_expect_rc(t_write(T_RKEY, T_RI, T_LEN + 1, 0), UET_SES_RC_BAD_ADDR);
	t_expect_rc(t_write(T_RKEY, T_RI, UINT64_MAX - 10, 100),
		    UET_SES_RC_BAD_ADDR);
	/* Four packets, the last one past the end: none lands. */
	t_expect_rc(t_write(T_RKEY, T_RI, 1, T_LEN), UET_SES_RC_BAD_ADDR);
	t_untouched();
	t_expect_rc(t_write(T_RKEY, T_RI, 0, T_LEN), UET_SES_RC_OK);
}

Test(ses_target, send_to_rma_only_ri_is_op_violation)
{
	static uint8_t src[64];
	struct ses_wre wr;
	struct ses_iov iov;

	t_wre(&wr, UET_SES_OP_SEND, &dst, &iov, src, sizeof(src));
	wr.ri = T_RI;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 100);
	t_expect_rc(a.tx[0].cpl, UET_SES_RC_OP_VIOLATION);
	t_untouched();
}

Test(ses_target, send_too_long_is_unsupported_size)
{
	static uint8_t src[65537];
	struct ses_wre wr;
	struct ses_iov iov;

	t_wre(&wr, UET_SES_OP_SEND, &dst, &iov, src, sizeof(src));
	wr.ri = T_RI_MSG;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 1000);
	t_expect_rc(a.tx[0].cpl, UET_SES_RC_UNSUPPORTED_SIZE);
}

/*
 * A generation mismatch is answered with the current generation; the
 * initiator caches it and retries once, successfully.
 */
Test(ses_target, bad_generation_retries_once_with_new_generation)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	struct ses_stats st;

	cr_assert_eq(ses_mr_remove(b.s, &id, T_RKEY_WO), 0);
	cr_assert_eq(ses_ri_gen_get(b.s, &id), 1);
	t_expect_rc(t_write(T_RKEY, T_RI, 0, 100), UET_SES_RC_OK);
	cr_assert_eq(a.gen[T_RI], 1);
	cr_assert_eq(a.gen_sets, 1);
	ses_stats_get(a.s, &st);
	cr_assert_eq(st.gen_retries, 1);
	/* Cached now: no second retry. */
	t_expect_rc(t_write(T_RKEY, T_RI, 0, 100), UET_SES_RC_OK);
	cr_assert_eq(a.gen_sets, 1);
}

/* The retry fails too (generation moved again): code preserved. */
Test(ses_target, bad_generation_twice_is_an_error_completion)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	static uint8_t src[100];
	struct ses_wre wr;
	struct ses_iov iov;

	cr_assert_eq(ses_mr_remove(b.s, &id, T_RKEY_WO), 0);
	t_wre(&wr, UET_SES_OP_WRITE, &dst, &iov, src, sizeof(src));
	wr.ri = T_RI;
	wr.mkey = T_RKEY;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	cr_assert(t_wire_step(&w));	/* request: RC_BAD_GENERATION */
	cr_assert(t_wire_step(&w));	/* response: the retry goes out */
	cr_assert_eq(w.q_cnt, 1);
	cr_assert_eq(ses_mr_remove(b.s, &id, T_RKEY_RO), 0);
	t_wire_run(&w, 100);
	cr_assert_eq(a.tx_cnt, 1);
	t_expect_rc(a.tx[0].cpl, UET_SES_RC_BAD_GENERATION);
	t_untouched();
}

/*
 * A region removed and its key registered again for another buffer: a
 * request made against the old region (old generation) is refused, and
 * the old buffer is never written through the key.
 */
Test(ses_target, reused_key_never_writes_the_old_region)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	static uint8_t src[T_LEN], other[T_LEN + 2 * T_GUARD];
	struct ses_wre wr;
	struct ses_iov iov;
	struct t_pkt late;

	memset(src, 0x77, sizeof(src));
	memset(other, T_CANARY, sizeof(other));
	t_wre(&wr, UET_SES_OP_WRITE, &dst, &iov, src, sizeof(src));
	wr.ri = T_RI;
	wr.mkey = T_RKEY;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	late = t_wire_take(&w, 2);	/* the third packet is held back */
	cr_assert_eq(ses_mr_remove(b.s, &id, T_RKEY), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY, other + T_GUARD, T_LEN,
				SES_ACCESS_REMOTE_WRITE), 0);
	/* The held packet and the rest arrive after the key moved. */
	t_wire_deliver(&w, &late);
	t_pkt_free(&late);
	t_wire_run(&w, 1000);
	t_untouched();
	/* The retry, with the new generation, went to the new buffer. */
	cr_assert_eq(a.tx_cnt, 1);
	t_expect_rc(a.tx[0].cpl, UET_SES_RC_OK);
	cr_assert_eq(memcmp(other + T_GUARD, src, T_LEN), 0);
	for (size_t i = 0; i < T_GUARD; i++) {
		cr_assert_eq(other[i], T_CANARY);
		cr_assert_eq(other[T_GUARD + T_LEN + i], T_CANARY);
	}
	/* Replacing it moves the generation on again. */
	cr_assert_eq(ses_mr_replace(b.s, &id, T_RKEY, t_region(), T_LEN,
				    SES_ACCESS_REMOTE_WRITE), 0);
	cr_assert_eq(ses_ri_gen_get(b.s, &id), 2);
}

/* A hand-made request from node 1, answered by node 2 directly. */
static struct ses_std_hdr t_hdr(uint8_t op, uint16_t id)
{
	struct ses_std_hdr h = {
		.opcode = op, .f = { .som = true, .eom = true, .rel = true },
		.message_id = id, .job_id = T_JOB, .pid_on_fep = T_PID,
		.resource_index = T_RI, .initiator = 1, .memory_key = T_RKEY,
	};
	return h;
}

/* Returns the response's code, or the negative ses_rx_req result. */
static int t_craft(const struct ses_std_hdr *h, const void *pay,
		   size_t pay_len)
{
	uint8_t pkt[UET_SES_STD_HDR_LEN + 8192], rsp[UET_SES_RSP_LEN];
	struct ses_rx_pkt rx = { .peer = 1,
				 .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
				 .buf = pkt, .len = UET_SES_STD_HDR_LEN + pay_len };
	struct ses_rsp_hdr r;
	ssize_t n;

	cr_assert_eq(ses_std_hdr_encode(pkt, sizeof(pkt), h),
		     UET_SES_STD_HDR_LEN);
	memcpy(pkt + UET_SES_STD_HDR_LEN, pay, pay_len);
	n = ses_rx_req(b.s, &rx, rsp, sizeof(rsp));
	if (n < 0)
		return (int)n;
	if (!n)
		return UET_SES_RC_OK;	/* DEFAULT_RESPONSE: the ACK alone */
	cr_assert_eq(n, UET_SES_RSP_LEN);
	cr_assert_eq(ses_rsp_hdr_decode(&r, rsp, (size_t)n), n);
	cr_assert_eq(r.message_id, h->message_id);
	cr_assert_eq(r.job_id, h->job_id);
	return r.return_code;
}

Test(ses_target, crafted_unsupported_op_initiator_err_op_violation)
{
	static const uint8_t pay[2048] = { 1 };
	struct ses_std_hdr h;

	h = t_hdr(UET_SES_OP_TSEND_ATOMIC, 10);
	h.request_length = 8;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_UNSUPPORTED_OP);
	h = t_hdr(UET_SES_OP_DEFERRABLE_SEND, 11);
	cr_assert_eq(t_craft(&h, pay, 0), UET_SES_RC_UNSUPPORTED_OP);
	h = t_hdr(UET_SES_OP_WRITE, 12);
	h.f.ie = true;
	h.request_length = 8;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_INITIATOR_ERR);
	/* request_length shorter than the payload */
	h = t_hdr(UET_SES_OP_WRITE, 13);
	h.request_length = 4;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_OP_VIOLATION);
	/* eom packet that does not end the message */
	h = t_hdr(UET_SES_OP_WRITE, 14);
	h.request_length = 100;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_OP_VIOLATION);
	/* non-som: payload_length disagrees with the bytes present */
	h = t_hdr(UET_SES_OP_WRITE, 15);
	h.f.som = false;
	h.message_offset = 1024;
	h.payload_length = 1000;
	h.request_length = 2048;
	cr_assert_eq(t_craft(&h, pay, 1024), UET_SES_RC_OP_VIOLATION);
	/* a middle packet that is not whole 1 KiB blocks */
	h = t_hdr(UET_SES_OP_WRITE, 16);
	h.f.eom = false;
	h.request_length = 4096;
	cr_assert_eq(t_craft(&h, pay, 1000), UET_SES_RC_OP_VIOLATION);
	/* READ carrying a payload */
	h = t_hdr(UET_SES_OP_READ, 17);
	h.request_length = 8;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_OP_VIOLATION);
	t_untouched();
}

/* Checks come in the design's order: the first failing one answers. */
Test(ses_target, checks_in_design_order)
{
	static const uint8_t pay[8];
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	struct ses_std_hdr h = t_hdr(UET_SES_OP_WRITE, 20);

	h.request_length = 8;
	h.job_id = 5;			/* and everything below wrong too */
	h.pid_on_fep = 9;
	h.resource_index = 0x123;
	h.ri_generation = 9;
	h.memory_key = 1;
	h.buffer_offset = 1u << 30;
	h.f.ie = true;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_BAD_JOB_ID);
	h.message_id++;
	h.job_id = T_JOB;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_BAD_PID);
	h.message_id++;
	h.pid_on_fep = T_PID;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_BAD_INDEX);
	h.message_id++;
	h.resource_index = T_RI;
	cr_assert_eq(ses_ri_disable(b.s, &id), 0);
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_DISABLED_GEN);
	cr_assert_eq(ses_ri_enable(b.s, &id), 0);
	h.message_id++;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_BAD_GENERATION);
	h.message_id++;
	h.ri_generation = 0;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_BAD_MKEY);
	h.message_id++;
	h.memory_key = T_RKEY_RO;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_PERM_VIOLATION);
	h.message_id++;
	h.memory_key = T_RKEY;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_BAD_ADDR);
	h.message_id++;
	h.buffer_offset = 0;
	h.request_length = 4;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_OP_VIOLATION);
	h.message_id++;
	h.request_length = 8;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_INITIATOR_ERR);
	h.message_id++;
	h.f.ie = false;
	t_untouched();
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_OK);
}

Test(ses_target, absolute_addressing_finds_the_pid)
{
	static const uint8_t pay[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	struct ses_std_hdr h = t_hdr(UET_SES_OP_WRITE, 30);

	h.f.rel = false;
	h.job_id = 4242;		/* ignored when absolute */
	h.request_length = 8;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_OK);
	cr_assert_eq(t_region()[7], 9);
	h.message_id++;
	h.pid_on_fep = 99;
	cr_assert_eq(t_craft(&h, pay, 8), UET_SES_RC_BAD_PID);
}

Test(ses_target, malformed_packets_are_counted_not_answered)
{
	uint8_t pkt[UET_SES_STD_HDR_LEN] = { 0 }, rsp[UET_SES_RSP_LEN];
	struct ses_std_hdr h = t_hdr(UET_SES_OP_WRITE, 40);
	struct ses_rx_pkt rx = { .peer = 1, .buf = pkt,
				 .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	struct ses_stats st;

	cr_assert_eq(ses_std_hdr_encode(pkt, sizeof(pkt), &h), 44);
	for (rx.len = 0; rx.len < UET_SES_STD_HDR_LEN; rx.len++)
		cr_assert_eq(ses_rx_req(b.s, &rx, rsp, sizeof(rsp)), -EBADMSG);
	rx.len = sizeof(pkt);
	pkt[1] |= 0x40;			/* version 1 */
	cr_assert_eq(ses_rx_req(b.s, &rx, rsp, sizeof(rsp)),
		     -EPROTONOSUPPORT);
	pkt[1] &= 0x3F;
	pkt[0] = 0x20;			/* reserved opcode */
	cr_assert_eq(ses_rx_req(b.s, &rx, rsp, sizeof(rsp)), -EBADMSG);
	rx.next_hdr = UET_PDS_NEXT_HDR_REQUEST_SMALL;
	cr_assert_eq(ses_rx_req(b.s, &rx, rsp, sizeof(rsp)),
		     -EPROTONOSUPPORT);
	cr_assert_eq(ses_rx_req(b.s, &rx, rsp, 4), -ENOBUFS);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rx_malformed, UET_SES_STD_HDR_LEN + 3);
	t_untouched();
}
