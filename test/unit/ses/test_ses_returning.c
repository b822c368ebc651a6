/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A returning initiator (issue 13, item 6): an initiator writes and sends
 * to a target, goes away, and a new one on the same address (the same
 * peer id) numbers its messages from the same first message_id again, on
 * a new context (PDC) of its own. Every message of the new one is placed
 * and completes with success: the target's history of the old one says
 * nothing about the new one's ids. Late copies of the old one's requests,
 * finished or in progress, and one with the id of a message of the new
 * one still arriving, place nothing, answer nothing and complete nothing.
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
#define T_PFX_A		5	/* the endpoint index: the same for both */
#define T_PFX_B		9
#define T_ID_A		1
#define T_ID_B		2
#define T_RI		0x00a
#define T_RI_MSG	0x002
#define T_RKEY		0x1234ull
#define T_MTU		1024
#define T_SLOT		4096
#define T_OLD_MSGS	24	/* the first incarnation's writes */
#define T_NEW_MSGS	16	/* the second's, before the one held back */
#define T_SENDS		4
#define T_SEND_LEN	200
#define T_MEM_LEN	((T_OLD_MSGS + 1) * T_SLOT)

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr to_b;
static uint8_t *mem_b;
static uint8_t t_src[T_OLD_MSGS + 1][T_SLOT];
static struct ses_wre t_wr[T_OLD_MSGS + 1];
static struct ses_iov t_iov[T_OLD_MSGS + 1];
static uint8_t t_msg[T_SENDS][T_SEND_LEN];
static uint8_t t_sink[T_SENDS][T_SEND_LEN];
static struct ses_wre t_swr[T_SENDS];
static struct ses_iov t_siov[T_SENDS];

/* One packet, or three for every third message. */
static size_t t_len(unsigned i)
{
	return i % 3 == 2 ? 3 * T_MTU - 100 : 64;
}

static void t_fill(uint8_t *p, size_t len, unsigned inc, unsigned i)
{
	for (size_t k = 0; k < len; k++)
		p[k] = (uint8_t)(k * 7 + i * 31 + inc * 101 + 1);
}

static void t_initiator_seeded(uint32_t pdc, uint64_t seed)
{
	struct ses_config cfg;

	ses_config_init(&cfg);
	cfg.msg_id_seed = seed;
	cfg.payload_mtu = T_MTU;
	cfg.job_id = T_JOB;
	cfg.pid_on_fep = T_PID_A;
	cfg.initiator = T_ID_A;
	cfg.msg_id_prefix = T_PFX_A;
	cfg.msg_id_prefix_bits = UET_FEP_EP_BITS;
	t_node_init(&w, &a, T_ID_A, &cfg);
	a.pdc = pdc;
}

/* Ids from 1, as the seed numbers them. */
static void t_initiator(uint32_t pdc)
{
	t_initiator_seeded(pdc, 0);
}

static void t_setup(void)
{
	struct ses_ri_id rma = { T_JOB, T_PID_B, T_RI };
	struct ses_ri_id msg = { T_JOB, T_PID_B, T_RI_MSG };
	struct ses_config cfg;

	t_wire_init(&w, 13);
	mem_b = calloc(1, T_MEM_LEN);
	cr_assert_not_null(mem_b);
	ses_config_init(&cfg);
	cfg.payload_mtu = T_MTU;
	cfg.job_id = T_JOB;
	cfg.pid_on_fep = T_PID_B;
	cfg.initiator = T_ID_B;
	cfg.msg_id_prefix = T_PFX_B;
	cfg.msg_id_prefix_bits = UET_FEP_EP_BITS;
	t_node_init(&w, &b, T_ID_B, &cfg);
	cr_assert_eq(ses_ri_add(b.s, &rma, 0), 0);
	cr_assert_eq(ses_ri_add(b.s, &msg, SES_RI_F_MSG), 0);
	cr_assert_eq(ses_mr_add(b.s, &rma, T_RKEY, mem_b, T_MEM_LEN,
				SES_ACCESS_REMOTE_WRITE), 0);
	t_addr(&to_b, T_ID_B, T_JOB, T_PID_B);
	t_initiator(1);
}

static void t_teardown(void)
{
	if (a.s)
		t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
	free(mem_b);
}

TestSuite(ses_returning, .init = t_setup, .fini = t_teardown, .timeout = 60);

/* Write i of incarnation |inc|: its bytes to slot i of the target. */
static void t_write(unsigned inc, unsigned i)
{
	t_fill(t_src[i], t_len(i), inc, i);
	t_wre(&t_wr[i], UET_SES_OP_WRITE, &to_b, &t_iov[i], t_src[i],
	      t_len(i));
	t_wr[i].ri = T_RI;
	t_wr[i].mkey = T_RKEY;
	t_wr[i].remote_offset = (uint64_t)i * T_SLOT;
	cr_assert_eq(ses_wre_post(a.s, &t_wr[i]), 0);
}

/* T_SENDS sends of incarnation |inc|, taken by receives posted first. */
static void t_sends(unsigned inc)
{
	for (unsigned j = 0; j < T_SENDS; j++) {
		struct ses_recv_attr ra = {
			.iov = &(struct ses_iov){ .base = t_sink[j],
						  .len = T_SEND_LEN },
			.iov_cnt = 1, .initiator = SES_INITIATOR_ANY,
			.user_ctx = t_sink[j],
		};

		cr_assert_eq(ses_recv_post(b.s, &ra), 0);
	}
	for (unsigned j = 0; j < T_SENDS; j++) {
		t_fill(t_msg[j], T_SEND_LEN, inc, 100 + j);
		t_wre(&t_swr[j], UET_SES_OP_SEND, &to_b, &t_siov[j], t_msg[j],
		      T_SEND_LEN);
		t_swr[j].ri = T_RI_MSG;
		cr_assert_eq(ses_wre_post(a.s, &t_swr[j]), 0);
	}
}

/* Every completion of the initiator so far is a success. */
static void t_all_ok(unsigned want)
{
	cr_assert_eq(a.tx_total, want, "%u of %u completed", a.tx_total,
		     want);
	for (unsigned k = 0; k < a.tx_cnt; k++) {
		cr_assert_eq(a.tx[k].cpl.status, 0, "completion %u: %d", k,
			     a.tx[k].cpl.status);
		cr_assert_eq(a.tx[k].cpl.rc, UET_SES_RC_OK);
	}
}

static void t_slot_holds(unsigned inc, unsigned i)
{
	uint8_t want[T_SLOT];

	t_fill(want, t_len(i), inc, i);
	cr_assert_arr_eq(mem_b + (size_t)i * T_SLOT, want, t_len(i),
			 "slot %u is not incarnation %u's", i, inc);
}

static void t_sends_arrived(unsigned inc)
{
	uint8_t want[T_SEND_LEN];

	cr_assert_eq(b.rx_cnt, T_SENDS);
	for (unsigned j = 0; j < T_SENDS; j++) {
		cr_assert_eq(b.rx[j].status, 0);
		t_fill(want, T_SEND_LEN, inc, 100 + j);
		cr_assert_arr_eq(t_sink[j], want, T_SEND_LEN);
	}
	b.rx_cnt = 0;
}

/* A copy of the som packet of message |msg_id| from the log. */
static struct t_pkt t_old_copy(uint16_t msg_id)
{
	for (size_t k = 0; k < w.log_cnt; k++) {
		struct ses_std_hdr h;

		if (!w.log[k].is_req ||
		    ses_std_hdr_decode(&h, w.log[k].buf, w.log[k].len) < 0)
			continue;
		if (h.message_id == msg_id && h.f.som) {
			struct t_pkt c = w.log[k];

			c.buf = malloc(c.len);
			cr_assert_not_null(c.buf);
			memcpy(c.buf, w.log[k].buf, c.len);
			return c;
		}
	}
	cr_assert_fail("no request %#x in the log", msg_id);
	return (struct t_pkt){ 0 };
}

static uint16_t t_id(unsigned seq)
{
	return (uint16_t)(T_PFX_A << UET_FEP_ID_SHIFT | seq);
}

/* The first incarnation: writes and sends, all done; the log keeps them. */
static void t_first_life(void)
{
	w.capture = true;
	for (unsigned i = 0; i < T_OLD_MSGS; i++)
		t_write(1, i);
	t_sends(1);
	t_wire_run(&w, 100000);
	t_all_ok(T_OLD_MSGS + T_SENDS);
	for (unsigned i = 0; i < T_OLD_MSGS; i++)
		t_slot_holds(1, i);
	t_sends_arrived(1);
	w.capture = false;
	t_node_fini(&a);
}

Test(ses_returning, a_new_initiator_starts_clean)
{
	struct ses_stats st;

	t_first_life();
	t_initiator(2);
	for (unsigned i = 0; i < T_NEW_MSGS; i++)
		t_write(2, i);
	t_sends(2);
	t_wire_run(&w, 100000);
	/* Before the fix: its first ids were "finished": never completed. */
	t_all_ok(T_NEW_MSGS + T_SENDS);
	for (unsigned i = 0; i < T_NEW_MSGS; i++)
		t_slot_holds(2, i);
	t_sends_arrived(2);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rx_dups, 0);
	cr_assert_eq(st.rx_rejected, 0);
}

Test(ses_returning, late_copies_of_the_old_one_do_nothing)
{
	/* The new one's 17th message, and the old one's of the same id. */
	const unsigned next = T_NEW_MSGS + 1, old_slot = T_NEW_MSGS;
	struct t_pkt done1, done3, same, part, held;
	struct ses_stats st;

	t_first_life();
	/* Copies of the old one's requests, all finished long ago. */
	done1 = t_old_copy(t_id(1));		/* one packet */
	done3 = t_old_copy(t_id(3));		/* the first of three */
	same = t_old_copy(t_id(next));		/* one packet, to old_slot */
	part = t_old_copy(t_id(next + 1));	/* the first of three */
	t_initiator(2);
	for (unsigned i = 0; i < T_NEW_MSGS; i++)
		t_write(2, i);
	t_wire_run(&w, 100000);
	t_all_ok(T_NEW_MSGS);

	/* Over the new one's finished messages of the same ids. */
	t_wire_deliver(&w, &done1);
	t_wire_deliver(&w, &done3);
	cr_assert_eq(w.q_cnt, 0, "answered");
	t_slot_holds(2, 0);
	t_slot_holds(2, 2);

	/*
	 * The new one's next write (three packets, id |next|) is one packet
	 * in when the old one's write of that id turns up: it neither joins
	 * nor spoils it, nor is placed, nor answered.
	 */
	memset(mem_b + (size_t)old_slot * T_SLOT, 0, T_SLOT);
	t_write(2, 17);
	cr_assert_eq(w.q_cnt, 3);
	held = t_wire_take(&w, 0);
	t_wire_deliver(&w, &held);
	t_pkt_free(&held);
	cr_assert_eq(w.q_cnt, 3, "two packets and the som's answer");
	t_wire_deliver(&w, &same);
	t_wire_deliver(&w, &part);
	cr_assert_eq(w.q_cnt, 3, "an old copy was answered");
	cr_assert_eq(a.tx_total, T_NEW_MSGS);
	t_wire_run(&w, 100000);
	t_all_ok(T_NEW_MSGS + 1);
	t_slot_holds(2, 17);

	/* Once more, after everything: still nothing. */
	t_wire_deliver(&w, &same);
	t_wire_deliver(&w, &done1);
	cr_assert_eq(w.q_cnt, 0);
	cr_assert_eq(a.tx_total, T_NEW_MSGS + 1);
	t_slot_holds(2, 0);
	t_slot_holds(2, 17);
	for (unsigned k = 0; k < T_SLOT; k++)
		cr_assert_eq(mem_b[(size_t)old_slot * T_SLOT + k], 0,
			     "the old one's write landed");
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rx_stale_reqs, 6);
	cr_assert_eq(st.rx_rejected, 0);
	cr_assert_eq(w.stale_acks, 0);
	t_pkt_free(&done1);
	t_pkt_free(&done3);
	t_pkt_free(&same);
	t_pkt_free(&part);
}

/* The sequence of the |k|-th request with som the log holds. */
static unsigned t_logged_seq(unsigned k)
{
	for (size_t i = 0; i < w.log_cnt; i++) {
		struct ses_std_hdr h;

		if (!w.log[i].is_req ||
		    ses_std_hdr_decode(&h, w.log[i].buf, w.log[i].len) < 0 ||
		    !h.f.som || k--)
			continue;
		cr_assert_eq(UET_FEP_ID_EP(h.message_id), T_PFX_A);
		return h.message_id & ((1u << UET_FEP_ID_SHIFT) - 1);
	}
	cr_assert_fail("no request %u in the log", k);
	return 0;
}

/*
 * With msg_id_seed, sequences start elsewhere for every incarnation and
 * every reset (so late answers meant for an earlier process are unlikely
 * to meet a message in flight), and count on from there; the target takes
 * any start.
 */
Test(ses_returning, seeded_ids_start_elsewhere)
{
	const unsigned mask = (1u << UET_FEP_ID_SHIFT) - 1;
	unsigned first, again, reset;

	t_node_fini(&a);
	t_initiator_seeded(1, 0x5eed0001);
	w.capture = true;
	for (unsigned i = 0; i < 3; i++)
		t_write(1, i);
	t_wire_run(&w, 100000);
	t_all_ok(3);
	first = t_logged_seq(0);
	cr_assert_neq(first, 1);
	cr_assert_eq(t_logged_seq(1), (first + 1) & mask);
	cr_assert_eq(t_logged_seq(2), (first + 2) & mask);

	t_node_fini(&a);
	t_initiator_seeded(2, 0x5eed0002);
	t_write(2, 0);
	t_wire_run(&w, 100000);
	t_all_ok(1);
	again = t_logged_seq(3);
	cr_assert_neq(again, first);
	t_slot_holds(2, 0);

	cr_assert_eq(ses_peer_reset(a.s, T_ID_B), 0);
	cr_assert_eq(ses_peer_reset(b.s, T_ID_A), 0);
	t_write(2, 1);
	t_wire_run(&w, 100000);
	t_all_ok(2);
	reset = t_logged_seq(4);
	cr_assert_neq(reset, (again + 1) & mask);
	cr_assert_neq(reset, 0);
	t_slot_holds(2, 1);
}
