/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A refused request changes nothing (issue 14, item 2). A request that
 * fails a target check arrives on the legitimate initiator's own peer and
 * context with the message id that initiator uses next, as a spoofer's or
 * a mistaken one would: it is answered with its code (a copy with the same
 * code), no byte of the regions changes, and the initiator's own messages
 * with that id and the next ones complete and place their data. Before,
 * the refused id was marked finished and the real message got a default
 * response and never completed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test_ses_wire.h"

#define T_JOB		101
#define T_PID		2
#define T_RI		0x00a
#define T_RI_MSG	0x00b	/* sends allowed */
#define T_RKEY		0xacce5ull
#define T_RKEY_RO	0xbeefull	/* remote read only */
#define T_LEN		16384
#define T_MEM		(2 * T_LEN)	/* the region, then the read-only one */
#define T_PDC		7		/* the initiator's context */
#define T_FOLLOWING	3		/* its messages checked after one refused */

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr dst;
static uint8_t *mem;
static uint8_t *snap;
static uint16_t next_id;	/* the id a uses next */

/* a's ids carry |prefix| in their top |prefix_bits| (b's number too). */
static void t_setup_prefix(uint16_t prefix, uint8_t prefix_bits)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	struct ses_ri_id msg = { T_JOB, T_PID, T_RI_MSG };
	struct ses_config cfg;

	t_wire_init(&w, 5);
	ses_config_init(&cfg);
	cfg.payload_mtu = 4096;
	cfg.initiator = 1;
	cfg.msg_id_prefix = prefix;
	cfg.msg_id_prefix_bits = prefix_bits;
	t_node_init(&w, &a, 1, &cfg);
	a.pdc = T_PDC;
	cfg.initiator = 2;
	cfg.msg_id_prefix = 0;
	cfg.max_msg_len = 65536;
	t_node_init(&w, &b, 2, &cfg);
	mem = calloc(1, T_MEM);
	snap = malloc(T_MEM);
	cr_assert(mem && snap);
	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_ri_add(b.s, &msg, SES_RI_F_MSG), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY, mem, T_LEN,
				SES_ACCESS_REMOTE_WRITE |
				SES_ACCESS_REMOTE_READ), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY_RO, mem + T_LEN, T_LEN,
				SES_ACCESS_REMOTE_READ), 0);
	t_addr(&dst, 2, T_JOB, T_PID);
	w.capture = true;
}

static void t_setup(void)
{
	t_setup_prefix(0, 0);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
	free(mem);
	free(snap);
}

TestSuite(ses_reject, .init = t_setup, .fini = t_teardown, .timeout = 30);

/* The message id of the last request a sent (the wire's capture). */
static uint16_t t_last_req_id(void)
{
	struct ses_std_hdr h;

	for (size_t i = w.log_cnt; i-- > 0;) {
		if (!w.log[i].is_req || w.log[i].src != a.id)
			continue;
		cr_assert_gt(ses_std_hdr_decode(&h, w.log[i].buf,
						w.log[i].len), 0);
		return h.message_id;
	}
	cr_assert_fail("no request sent");
	return 0;
}

/*
 * a writes |len| bytes of |fill| at |off| of the region: it completes
 * with RC_OK and the bytes are there.
 */
static void t_legit_write(uint64_t off, size_t len, uint8_t fill)
{
	static uint8_t src[T_LEN];
	struct ses_wre wr;
	struct ses_iov iov;

	memset(src, fill, len);
	t_wre(&wr, UET_SES_OP_WRITE, &dst, &iov, src, len);
	wr.ri = T_RI;
	wr.mkey = T_RKEY;
	wr.remote_offset = off;
	a.tx_cnt = 0;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 1, "message 0x%04x never completed",
		     t_last_req_id());
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK, "rc %s",
		     ses_rc_name(a.tx[0].cpl.rc));
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(mem[off + i], fill, "byte %zu not placed", i);
	next_id = (uint16_t)(t_last_req_id() + 1);
}

/* A one-packet WRITE a could send next, every check passing. */
static struct ses_std_hdr t_valid_write(uint32_t len)
{
	return (struct ses_std_hdr){
		.opcode = UET_SES_OP_WRITE,
		.f = { .som = true, .eom = true, .rel = true },
		.message_id = next_id, .job_id = T_JOB,
		.pid_on_fep = T_PID, .resource_index = T_RI,
		.ri_generation = (uint8_t)ses_ri_gen_get(b.s, &(struct ses_ri_id){
			T_JOB, T_PID, T_RI }),
		.initiator = 1, .memory_key = T_RKEY,
		.request_length = len,
	};
}

struct t_req {
	struct ses_std_hdr h;
	const struct ses_atomic_ext *amo;	/* NULL: none */
	uint32_t pay_len;
	uint32_t pdc;
};

/*
 * Hands |r| to b as if it came from a; returns what ses_rx_req did, the
 * answer in *|rsp|.
 */
static ssize_t t_inject(const struct t_req *r, struct ses_rsp_hdr *rsp)
{
	uint8_t buf[UET_SES_STD_HDR_LEN + 64 + T_LEN], out[UET_SES_RSP_LEN];
	struct ses_rx_pkt pkt = { .peer = a.id, .pdc = r->pdc,
				  .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
				  .buf = buf, .now_ns = w.now_ns };
	ssize_t n = ses_std_hdr_encode(buf, sizeof(buf), &r->h), e;

	cr_assert_gt(n, 0);
	if (r->amo) {
		e = ses_atomic_ext_encode(buf + n, sizeof(buf) - (size_t)n,
					  r->amo);
		cr_assert_gt(e, 0);
		n += e;
	}
	cr_assert_leq((size_t)n + r->pay_len, sizeof(buf));
	memset(buf + n, 0xEE, r->pay_len);	/* what must not land */
	pkt.len = (size_t)n + r->pay_len;
	n = ses_rx_req(b.s, &pkt, out, sizeof(out));
	if (n > 0)
		cr_assert_gt(ses_rsp_hdr_decode(rsp, out, (size_t)n), 0);
	return n;
}

/* b answers |r| (twice: a copy the same) with |rc|, changing no byte. */
static void t_refused(const struct t_req *r, uint8_t rc)
{
	struct ses_rsp_hdr rsp;

	memcpy(snap, mem, T_MEM);
	for (int copy = 0; copy < 2; copy++) {
		cr_assert_gt(t_inject(r, &rsp), 0);
		cr_assert_eq(rsp.return_code, rc, "copy %d: rc %s, want %s",
			     copy, ses_rc_name(rsp.return_code),
			     ses_rc_name(rc));
		cr_assert_eq(rsp.opcode, UET_SES_RSP_RESPONSE);
		cr_assert_eq(rsp.message_id, r->h.message_id);
	}
	cr_assert_eq(memcmp(mem, snap, T_MEM), 0, "a region changed");
}

/* a's messages with id |id| (its next) and the following ones complete. */
static void t_following_complete(uint16_t id)
{
	cr_assert_eq(next_id, id);
	for (int i = 0; i < T_FOLLOWING; i++)
		t_legit_write(1024 * (uint64_t)i, 700, (uint8_t)(0x30 + i));
	cr_assert_eq(b.rx_cnt, 0);
}

/*
 * One refusal: a first writes once (so b knows its context and ids), then
 * |r| (under a's next id, on its context) is refused with |rc|, then a's
 * own messages with that id go through.
 */
static void t_case(struct t_req r, uint8_t rc)
{
	uint16_t id;

	t_legit_write(8192, 100, 0x11);
	id = next_id;
	if (!r.h.message_id)
		r.h.message_id = id;
	if (!r.pdc)
		r.pdc = T_PDC;
	t_refused(&r, rc);
	t_following_complete(id);
}

/* A valid WRITE of |len| bytes under a's next id. */
static struct t_req t_req_write(uint32_t len)
{
	return (struct t_req){ .h = t_valid_write(len), .pay_len = len };
}

Test(ses_reject, forged_valid_write_is_taken)
{
	struct t_req r;
	struct ses_rsp_hdr rsp;

	/* The harness: the forged request passes when nothing is wrong. */
	t_legit_write(8192, 100, 0x11);
	r = t_req_write(100);
	r.pdc = T_PDC;
	/* DEFAULT_RESPONSE: the ACK alone answers it. */
	cr_assert_eq(t_inject(&r, &rsp), 0);
	cr_assert_eq(mem[0], 0xEE);
}

Test(ses_reject, bad_job_id)
{
	struct t_req r = t_req_write(100);

	r.h.job_id = 999;
	t_case(r, UET_SES_RC_BAD_JOB_ID);
}

Test(ses_reject, bad_pid)
{
	struct t_req r = t_req_write(100);

	r.h.pid_on_fep = 7;
	t_case(r, UET_SES_RC_BAD_PID);
}

Test(ses_reject, bad_pid_absolute)
{
	struct t_req r = t_req_write(100);

	r.h.f.rel = false;
	r.h.pid_on_fep = 7;
	t_case(r, UET_SES_RC_BAD_PID);
}

Test(ses_reject, bad_index)
{
	struct t_req r = t_req_write(100);

	r.h.resource_index = 0x1ff;
	t_case(r, UET_SES_RC_BAD_INDEX);
}

Test(ses_reject, disabled)
{
	struct ses_ri_id msg = { T_JOB, T_PID, T_RI_MSG };
	struct t_req r = t_req_write(100);

	cr_assert_eq(ses_ri_disable(b.s, &msg), 0);
	r.h.resource_index = T_RI_MSG;
	r.h.ri_generation = (uint8_t)ses_ri_gen_get(b.s, &msg);
	t_case(r, UET_SES_RC_DISABLED_GEN);
}

Test(ses_reject, bad_generation)
{
	struct t_req r = t_req_write(100);

	r.h.ri_generation++;
	t_case(r, UET_SES_RC_BAD_GENERATION);
}

Test(ses_reject, bad_mkey)
{
	struct t_req r = t_req_write(100);

	r.h.memory_key = 0x1234;
	t_case(r, UET_SES_RC_BAD_MKEY);
}

Test(ses_reject, perm_violation)
{
	struct t_req r = t_req_write(100);

	r.h.memory_key = T_RKEY_RO;
	t_case(r, UET_SES_RC_PERM_VIOLATION);
}

Test(ses_reject, bad_addr)
{
	struct t_req r = t_req_write(100);

	r.h.buffer_offset = T_LEN - 50;
	t_case(r, UET_SES_RC_BAD_ADDR);
}

Test(ses_reject, length_violation)
{
	struct t_req r = t_req_write(100);

	r.pay_len = 60;		/* one packet, short of request_length */
	t_case(r, UET_SES_RC_OP_VIOLATION);
}

Test(ses_reject, send_where_no_sends)
{
	struct t_req r = t_req_write(100);

	r.h.opcode = UET_SES_OP_SEND;
	t_case(r, UET_SES_RC_OP_VIOLATION);
}

Test(ses_reject, unsupported_op)
{
	struct t_req r = t_req_write(100);

	r.h.opcode = UET_SES_OP_DEFERRABLE_SEND;
	t_case(r, UET_SES_RC_UNSUPPORTED_OP);
}

Test(ses_reject, unsupported_size)
{
	struct ses_ri_id msg = { T_JOB, T_PID, T_RI_MSG };
	struct t_req r = t_req_write(100);

	r.h.opcode = UET_SES_OP_SEND;
	r.h.resource_index = T_RI_MSG;
	r.h.ri_generation = (uint8_t)ses_ri_gen_get(b.s, &msg);
	r.h.request_length = 65537;
	r.h.f.eom = false;
	r.pay_len = 4096;
	t_case(r, UET_SES_RC_UNSUPPORTED_SIZE);
}

Test(ses_reject, initiator_error)
{
	struct t_req r = t_req_write(100);

	r.h.f.ie = true;
	t_case(r, UET_SES_RC_INITIATOR_ERR);
}

Test(ses_reject, atomic_unaligned)
{
	static const struct ses_atomic_ext x = {
		.amo_op = UET_SES_AMO_SUM, .amo_dt = UET_SES_AMO_DT_UINT32,
	};
	struct t_req r = t_req_write(4);

	r.h.opcode = UET_SES_OP_ATOMIC;
	r.h.buffer_offset = 2;
	r.amo = &x;
	t_case(r, UET_SES_RC_AMO_UNALIGNED);
}

Test(ses_reject, atomic_unsupported_dt)
{
	static const struct ses_atomic_ext x = {
		.amo_op = UET_SES_AMO_SUM,
		.amo_dt = UET_SES_AMO_DT_LONG_DOUBLE_COMPLEX,
	};
	struct t_req r = t_req_write(4);

	r.h.opcode = UET_SES_OP_ATOMIC;
	r.amo = &x;
	t_case(r, UET_SES_RC_AMO_UNSUPPORTED_DT);
}

/* Refused far ahead of a's ids: the window must not move past them. */
Test(ses_reject, far_ahead_id)
{
	struct t_req r = t_req_write(100);
	uint16_t id;

	r.h.memory_key = 0x1234;
	t_legit_write(8192, 100, 0x11);
	id = next_id;
	/* Up to half the id space ahead: further on, ids count as old. */
	for (uint16_t ahead = 1; ahead <= 0x4000; ahead <<= 1) {
		r.h.message_id = (uint16_t)(id + ahead);
		r.pdc = T_PDC;
		t_refused(&r, UET_SES_RC_BAD_MKEY);
	}
	t_following_complete(id);
}

/*
 * Refused on a later context than a's: it is not a new incarnation of a
 * until one of its requests is taken, so a's context stays its own.
 */
Test(ses_reject, later_context)
{
	struct t_req r = t_req_write(100);

	r.h.memory_key = 0x1234;
	r.pdc = T_PDC + 1;
	t_case(r, UET_SES_RC_BAD_MKEY);
}

/* Under a prefix, a refused first request fixes none. */
Test(ses_reject, prefix_not_fixed)
{
	struct t_req r = t_req_write(100);
	uint16_t id;

	t_teardown();
	t_setup_prefix(3, 4);
	/* b has not heard from a: its first id is 3 << 12 | 1. */
	id = 3 << 12 | 1;
	r.h.message_id = (uint16_t)(5 << 12 | 1);
	r.h.memory_key = 0x1234;
	r.pdc = T_PDC;
	t_refused(&r, UET_SES_RC_BAD_MKEY);
	next_id = id;
	t_following_complete(id);
}

/* A packet that does not parse is dropped, unanswered, and forgotten. */
Test(ses_reject, malformed)
{
	struct t_req r = t_req_write(100);
	uint8_t buf[UET_SES_STD_HDR_LEN], out[UET_SES_RSP_LEN];
	struct ses_rx_pkt pkt = { .peer = a.id, .pdc = T_PDC,
				  .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
				  .buf = buf, .len = 10 };
	uint16_t id;

	t_legit_write(8192, 100, 0x11);
	id = next_id;
	r.h.message_id = id;
	cr_assert_gt(ses_std_hdr_encode(buf, sizeof(buf), &r.h), 0);
	memcpy(snap, mem, T_MEM);
	cr_assert_lt(ses_rx_req(b.s, &pkt, out, sizeof(out)), 0);
	cr_assert_eq(memcmp(mem, snap, T_MEM), 0);
	t_following_complete(id);
}

/*
 * A two-packet WRITE whose first packet is refused, then its second: each
 * refused, nothing placed, and a's own message with the id goes through.
 */
Test(ses_reject, multi_packet_write)
{
	struct t_req first = t_req_write(8192), second;
	uint16_t id;

	t_legit_write(8192, 100, 0x11);
	id = next_id;
	first.h.message_id = id;
	first.h.memory_key = 0x1234;
	first.h.f.eom = false;
	first.pay_len = 4096;
	first.pdc = T_PDC;
	second = first;
	second.h.f.som = false;
	second.h.f.eom = true;
	second.h.message_offset = 4096;
	second.h.payload_length = 4096;
	t_refused(&first, UET_SES_RC_BAD_MKEY);
	t_refused(&second, UET_SES_RC_BAD_MKEY);
	t_following_complete(id);
}

/*
 * The same with a send, a receive posted: the receive is neither filled
 * nor completed by the refused packets.
 */
Test(ses_reject, multi_packet_send)
{
	struct ses_ri_id msg = { T_JOB, T_PID, T_RI_MSG };
	static uint8_t rbuf[8192];
	struct ses_iov riov = { .base = rbuf, .len = sizeof(rbuf) };
	struct ses_recv_attr ra = { .iov = &riov, .iov_cnt = 1,
				    .initiator = SES_INITIATOR_ANY };
	struct t_req first = t_req_write(8192), second;
	uint16_t id;

	t_legit_write(8192, 100, 0x11);
	id = next_id;
	cr_assert_eq(ses_recv_post(b.s, &ra), 0);
	first.h.opcode = UET_SES_OP_SEND;
	first.h.message_id = id;
	first.h.resource_index = T_RI_MSG;
	first.h.ri_generation = (uint8_t)ses_ri_gen_get(b.s, &msg);
	first.h.job_id = 999;
	first.h.memory_key = 0;
	first.h.f.eom = false;
	first.pay_len = 4096;
	first.pdc = T_PDC;
	second = first;
	second.h.f.som = false;
	second.h.f.eom = true;
	second.h.message_offset = 4096;
	second.h.payload_length = 4096;
	t_refused(&second, UET_SES_RC_BAD_JOB_ID);	/* out of order too */
	t_refused(&first, UET_SES_RC_BAD_JOB_ID);
	for (size_t i = 0; i < sizeof(rbuf); i++)
		cr_assert_eq(rbuf[i], 0, "receive byte %zu filled", i);
	t_following_complete(id);
}

/*
 * A refused packet naming a message of a's in progress leaves it be: the
 * message's own packets complete it.
 */
Test(ses_reject, message_in_progress_kept)
{
	static uint8_t src[8192];
	struct ses_wre wr;
	struct ses_iov iov;
	struct t_req r;
	struct t_pkt held;
	uint16_t id;
	size_t i;

	t_legit_write(8192, 100, 0x11);
	id = next_id;
	memset(src, 0x77, sizeof(src));
	t_wre(&wr, UET_SES_OP_WRITE, &dst, &iov, src, sizeof(src));
	wr.ri = T_RI;
	wr.mkey = T_RKEY;
	a.tx_cnt = 0;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	/* Its first packet arrives; the second waits. */
	cr_assert_eq(w.q_cnt, 2);
	t_wire_step(&w);
	for (i = 0; i < w.q_cnt && !w.q[i].is_req; i++)
		;
	cr_assert_lt(i, w.q_cnt);
	held = t_wire_take(&w, i);
	r = t_req_write(100);
	r.h.message_id = id;
	r.pdc = T_PDC;	/* another message under its id */
	t_refused(&r, UET_SES_RC_OP_VIOLATION);
	t_wire_deliver(&w, &held);
	t_pkt_free(&held);
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK, "rc %s",
		     ses_rc_name(a.tx[0].cpl.rc));
	for (i = 0; i < sizeof(src); i++)
		cr_assert_eq(mem[i], 0x77, "byte %zu", i);
}
