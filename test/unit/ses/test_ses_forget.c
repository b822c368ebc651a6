/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Peer ids a lower layer reuses (issue [R] hostile peers): ses_peer_is_idle
 * tells when SES holds nothing for a peer, ses_peer_forget drops it so the
 * id starts as a new peer, and ses_req_screen makes a request's cheap
 * checks before anything is kept for its sender.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_ses_wire.h"
#include "uet_fep.h"

#define T_JOB		7
#define T_PID_A		1
#define T_PID_B		3
#define T_ID_A		1
#define T_ID_B		2
#define T_RI		0x00a
#define T_RI_MSG	0x002
#define T_RKEY		0x1234ull
#define T_LEN		64

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr to_b;
static uint8_t mem_b[4 * T_LEN];
static uint8_t src[4][T_LEN];
static struct ses_wre wr[4];
static struct ses_iov iov[4];

static void t_initiator_as(uint32_t id)
{
	struct ses_config cfg;

	ses_config_init(&cfg);
	cfg.job_id = T_JOB;
	cfg.pid_on_fep = T_PID_A;
	cfg.initiator = id;
	t_node_init(&w, &a, id, &cfg);
	a.pdc = 1;
}

static void t_initiator(void)
{
	t_initiator_as(T_ID_A);
}

static void t_setup(void)
{
	struct ses_ri_id rma = { T_JOB, T_PID_B, T_RI };
	struct ses_ri_id msg = { T_JOB, T_PID_B, T_RI_MSG };
	struct ses_config cfg;

	t_wire_init(&w, 5);
	memset(mem_b, 0, sizeof(mem_b));
	ses_config_init(&cfg);
	cfg.job_id = T_JOB;
	cfg.pid_on_fep = T_PID_B;
	cfg.initiator = T_ID_B;
	t_node_init(&w, &b, T_ID_B, &cfg);
	cr_assert_eq(ses_ri_add(b.s, &rma, 0), 0);
	cr_assert_eq(ses_ri_add(b.s, &msg, SES_RI_F_MSG), 0);
	cr_assert_eq(ses_mr_add(b.s, &rma, T_RKEY, mem_b, sizeof(mem_b),
				SES_ACCESS_REMOTE_WRITE), 0);
	t_addr(&to_b, T_ID_B, T_JOB, T_PID_B);
	t_initiator();
}

static void t_teardown(void)
{
	if (a.s)
		t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
}

TestSuite(ses_forget, .init = t_setup, .fini = t_teardown, .timeout = 30);

static void t_write(unsigned i, uint8_t fill)
{
	memset(src[i], fill, T_LEN);
	t_wre(&wr[i], UET_SES_OP_WRITE, &to_b, &iov[i], src[i], T_LEN);
	wr[i].ri = T_RI;
	wr[i].mkey = T_RKEY;
	wr[i].remote_offset = (uint64_t)i * T_LEN;
	cr_assert_eq(ses_wre_post(a.s, &wr[i]), 0);
}

Test(ses_forget, idle_once_everything_completed)
{
	cr_expect(ses_peer_is_idle(b.s, T_ID_A), "never seen: idle");
	t_write(0, 0x11);
	cr_expect(!ses_peer_is_idle(a.s, T_ID_B), "a write in flight");
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_expect(ses_peer_is_idle(a.s, T_ID_B));
	cr_expect(ses_peer_is_idle(b.s, T_ID_A));
	cr_expect_eq(ses_peer_forget(b.s, T_ID_A), 0);
	cr_expect_eq(ses_peer_forget(b.s, T_ID_A), -ENOENT);
}

Test(ses_forget, unexpected_message_keeps_the_peer)
{
	static uint8_t msg[T_LEN];
	struct ses_wre s;
	struct ses_iov si;

	t_wre(&s, UET_SES_OP_SEND, &to_b, &si, msg, sizeof(msg));
	s.ri = T_RI_MSG;
	cr_assert_eq(ses_wre_post(a.s, &s), 0);
	t_wire_run(&w, 1000);
	/* No receive took it: it waits at b, queued unexpected. */
	cr_expect(!ses_peer_is_idle(b.s, T_ID_A));
	cr_expect_eq(ses_peer_forget(b.s, T_ID_A), -EBUSY);
}

/*
 * The same id, the same context number and the same message ids, after
 * b forgot the first holder: a new peer, whose writes are all placed
 * (without the forget they would be taken for copies of done ones).
 */
Test(ses_forget, reused_id_starts_as_a_new_peer)
{
	t_write(0, 0x11);
	t_write(1, 0x22);
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(ses_peer_forget(b.s, T_ID_A), 0);
	t_node_fini(&a);
	t_initiator();
	t_write(0, 0x33);
	t_write(1, 0x44);
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 2);
	for (unsigned i = 0; i < 2; i++) {
		cr_expect_eq(a.tx[i].cpl.status, 0);
		cr_expect_eq(mem_b[i * T_LEN], i ? 0x44 : 0x33,
			     "write %u of the new peer placed", i);
	}
}

static int t_screen(uint32_t job, uint16_t pid, bool rel)
{
	struct ses_std_hdr h = {
		.opcode = UET_SES_OP_WRITE,
		.f = { .rel = rel, .som = true, .eom = true },
		.job_id = job, .pid_on_fep = pid, .resource_index = T_RI,
	};
	uint8_t buf[64];
	ssize_t n = ses_std_hdr_encode(buf, sizeof(buf), &h);
	struct ses_rx_pkt p = { .peer = 9, .buf = buf, .len = (size_t)n,
				.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };

	cr_assert_gt(n, 0);
	return ses_req_screen(b.s, &p);
}

Test(ses_forget, screen)
{
	uint8_t junk[3] = { 1, 2, 3 };
	struct ses_rx_pkt p = { .peer = 9, .buf = junk, .len = sizeof(junk),
				.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };

	cr_expect_eq(t_screen(T_JOB, T_PID_B, true), UET_SES_RC_OK);
	cr_expect_eq(t_screen(T_JOB + 1, T_PID_B, true), UET_SES_RC_BAD_JOB_ID);
	cr_expect_eq(t_screen(T_JOB, T_PID_B + 1, true), UET_SES_RC_BAD_PID);
	cr_expect_eq(t_screen(0, T_PID_B, false), UET_SES_RC_OK);
	cr_expect_eq(t_screen(0, T_PID_B + 1, false), UET_SES_RC_BAD_PID);
	cr_expect_lt(ses_req_screen(b.s, &p), 0, "too short");
	p.next_hdr = UET_PDS_NEXT_HDR_REQUEST_SMALL;
	cr_expect_eq(ses_req_screen(b.s, &p), -EPROTONOSUPPORT);
	cr_expect(ses_peer_is_idle(b.s, 9), "screening keeps nothing");
}

/*
 * An idle peer's id windows let go on both sides (ses_peer_trim): refused
 * while a message is in flight, and its next messages, on a new context
 * as after a PDC closed, are all placed and complete.
 */
Test(ses_forget, trimmed_peer_resumes_on_a_new_context)
{
	struct ses_stats st;

	t_write(0, 0x11);
	cr_expect_eq(ses_peer_trim(a.s, T_ID_B), -EBUSY, "a write in flight");
	cr_expect_eq(ses_peer_trim(b.s, T_ID_B), -ENOENT, "never seen");
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(ses_peer_trim(a.s, T_ID_B), 0);
	cr_assert_eq(ses_peer_trim(b.s, T_ID_A), 0);
	cr_assert_eq(ses_peer_trim(b.s, T_ID_A), 0, "twice: nothing to do");
	ses_stats_get(b.s, &st);
	cr_expect_eq(st.peers_trimmed, 1);
	a.pdc++;
	t_write(1, 0x22);
	t_write(2, 0x33);
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 3);
	for (unsigned i = 0; i < 3; i++) {
		cr_expect_eq(a.tx[i].cpl.status, 0);
		cr_expect_eq(mem_b[i * T_LEN], 0x11 * (i + 1),
			     "write %u placed", i);
	}
	cr_expect(ses_peer_is_idle(a.s, T_ID_B));
}

/*
 * Peer ids below SES_PEER_DIR_MAX are filed in an array, the rest in a
 * hash map: ids on both sides of that line, one after the other with the
 * earlier ones still known, each found, placed, then forgotten.
 */
Test(ses_forget, ids_on_both_sides_of_the_directory)
{
	static const uint32_t ids[] = { 70000, (1u << 24) - 1, 1u << 24,
					0xfffffffeu };

	for (unsigned i = 0; i < 4; i++) {
		t_node_fini(&a);
		t_initiator_as(ids[i]);
		t_write(i, (uint8_t)(0x51 + i));
		t_wire_run(&w, 1000);
		cr_assert_eq(a.tx_cnt, 1, "id %#x", ids[i]);
		cr_expect_eq(a.tx[0].cpl.status, 0);
		cr_expect_eq(mem_b[i * T_LEN], 0x51 + i, "id %#x", ids[i]);
		cr_expect(ses_peer_is_idle(b.s, ids[i]));
	}
	for (unsigned i = 0; i < 4; i++) {
		cr_expect_eq(ses_peer_forget(b.s, ids[i]), 0, "id %#x", ids[i]);
		cr_expect_eq(ses_peer_forget(b.s, ids[i]), -ENOENT);
	}
	cr_expect_eq(ses_peer_forget(b.s, T_ID_A), -ENOENT, "never heard");
}

/*
 * A peer we only write to, a few ids in flight at a time, needs no id
 * window (ses_peer_win): the peer itself says those ids (tx_busy_lo), and
 * trimming it finds nothing to let go. Past 64 ids in flight it gets one,
 * the ids already out moved into it, and every write still completes.
 */
#define T_MANY	100
Test(ses_forget, a_window_only_past_64_ids_in_flight)
{
	static struct ses_wre many[T_MANY];
	static struct ses_iov many_iov[T_MANY];
	struct ses_stats st;
	unsigned i, k, bad = 0;

	for (k = 0; k < 5; k++) {
		for (i = 0; i < 3; i++)
			t_write(i, (uint8_t)(0x10 * k + i + 1));
		t_wire_run(&w, 1000);
	}
	cr_assert_eq(a.tx_cnt, 15);
	cr_assert_eq(ses_peer_trim(a.s, T_ID_B), 0);
	ses_stats_get(a.s, &st);
	cr_expect_eq(st.peers_trimmed, 0, "a window for 3 ids in flight");
	cr_expect_eq(mem_b[2 * T_LEN], 0x43, "the last round placed");
	for (k = 0; k < T_MANY; k++) {
		t_wre(&many[k], UET_SES_OP_WRITE, &to_b, &many_iov[k], src[3],
		      T_LEN);
		many[k].ri = T_RI;
		many[k].mkey = T_RKEY;
		many[k].remote_offset = 3 * T_LEN;
		cr_assert_eq(ses_wre_post(a.s, &many[k]), 0, "write %u", k);
	}
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 15 + T_MANY);
	for (k = 0; k < a.tx_cnt; k++)
		bad += a.tx[k].cpl.status != 0;
	cr_expect_eq(bad, 0, "%u writes failed", bad);
	cr_assert_eq(ses_peer_trim(a.s, T_ID_B), 0);
	ses_stats_get(a.s, &st);
	cr_expect_eq(st.peers_trimmed, 1, "no window for %u in flight",
		     T_MANY);
	cr_expect(ses_peer_is_idle(a.s, T_ID_B));
}
