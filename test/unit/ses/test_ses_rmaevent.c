/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a target reports through ops.rma_done (counters of remote events,
 * remote CQ data): each WRITE, READ and atomic once, whatever its packet
 * count and however often its packets arrive, with its opcode; a READ
 * once its last data packet is out, and not when its region went first;
 * nothing for refused operations or for the READs that pull a rendezvous
 * send.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "test_ses_wire.h"

#define T_JOB		7
#define T_PID_A		1
#define T_PID_B		3
#define T_RI		0x00a
#define T_RI_MSG	0x002
#define T_RI_RDV	0x100
#define T_RKEY		0x1234ull
#define T_LEN		65536
#define T_BIG		100000		/* a rendezvous send */

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr to_b;
static _Alignas(16) uint8_t region[T_LEN];	/* b's */
static uint8_t src[T_BIG], sink[T_BIG];		/* a's */

/* a initiates; b serves a region, sends, and a rendezvous of a's. */
static void t_setup(void)
{
	struct ses_ri_id rma = { T_JOB, T_PID_B, T_RI };
	struct ses_ri_id msg = { T_JOB, T_PID_B, T_RI_MSG };
	struct ses_config cfg;

	t_wire_init(&w, 11);
	ses_config_init(&cfg);
	cfg.payload_mtu = 4096;
	cfg.job_id = T_JOB;
	cfg.rdv_ri = T_RI_RDV;
	cfg.pid_on_fep = T_PID_A;
	cfg.initiator = 1;
	t_node_init(&w, &a, 1, &cfg);
	cfg.pid_on_fep = T_PID_B;
	cfg.initiator = 2;
	t_node_init(&w, &b, 2, &cfg);
	cr_assert_eq(ses_ri_add(b.s, &rma, 0), 0);
	cr_assert_eq(ses_ri_add(b.s, &msg, SES_RI_F_MSG), 0);
	cr_assert_eq(ses_mr_add(b.s, &rma, T_RKEY, region, T_LEN,
				SES_ACCESS_REMOTE_WRITE |
				SES_ACCESS_REMOTE_READ), 0);
	t_addr(&to_b, 2, T_JOB, T_PID_B);
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 13 + (i >> 10));
	memset(region, 0, sizeof(region));
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
}

TestSuite(ses_rmaevent, .init = t_setup, .fini = t_teardown, .timeout = 30);

static void t_rma(struct ses_wre *wr, struct ses_iov *iov, uint8_t op,
		  void *buf, size_t len, uint64_t mkey)
{
	t_wre(wr, op, &to_b, iov, buf, len);
	wr->ri = T_RI;
	wr->mkey = mkey;
	cr_assert_eq(ses_wre_post(a.s, wr), 0);
}

Test(ses_rmaevent, a_write_once_whatever_its_packets)
{
	struct ses_wre wr;
	struct ses_iov iov;

	w.reorder = true;
	w.dup_pct = 30;
	t_rma(&wr, &iov, UET_SES_OP_WRITE, src, T_LEN, T_RKEY);
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_assert_eq(b.rma_cnt, 1);
	cr_assert_eq(b.rma[0].opcode, UET_SES_OP_WRITE);
	cr_assert_eq(b.rma[0].len, T_LEN);
	cr_assert_eq(b.rma[0].rkey, T_RKEY);
	cr_assert_eq(b.rma[0].ri, T_RI);
	cr_assert_eq(a.rma_cnt, 0);
}

Test(ses_rmaevent, a_read_once_when_its_data_is_out)
{
	struct ses_wre wr;
	struct ses_iov iov;

	memcpy(region, src, T_LEN);
	/* No room for its data: the READ waits in a job. */
	t_rma(&wr, &iov, UET_SES_OP_READ, sink, 16384, T_RKEY);
	w.tx_budget = 0;
	cr_assert(t_wire_step(&w));		/* the READ request */
	t_wire_run(&w, 100);
	cr_assert_eq(b.rma_cnt, 0, "reported before its data left");
	w.tx_budget = -1;
	w.dup_pct = 30;
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	cr_assert_eq(memcmp(sink, src, 16384), 0);
	cr_assert_eq(b.rma_cnt, 1);
	cr_assert_eq(b.rma[0].opcode, UET_SES_OP_READ);
	cr_assert_eq(b.rma[0].len, 16384);
	cr_assert_eq(b.rma[0].rkey, T_RKEY);
	cr_assert_not(b.rma[0].hd);
}

Test(ses_rmaevent, a_read_whose_region_went_is_not_served)
{
	struct ses_ri_id rma = { T_JOB, T_PID_B, T_RI };
	struct ses_wre wr;
	struct ses_iov iov;

	t_rma(&wr, &iov, UET_SES_OP_READ, sink, 16384, T_RKEY);
	w.tx_budget = 0;
	cr_assert(t_wire_step(&w));
	t_wire_run(&w, 100);
	cr_assert_eq(ses_mr_remove(b.s, &rma, T_RKEY), 0);
	w.tx_budget = -1;
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_BAD_MKEY);
	cr_assert_eq(b.rma_cnt, 0);
}

Test(ses_rmaevent, refused_operations_are_not_reported)
{
	struct ses_wre wr[2];
	struct ses_iov iov[2];

	t_rma(&wr[0], &iov[0], UET_SES_OP_WRITE, src, 4096, T_RKEY + 1);
	t_rma(&wr[1], &iov[1], UET_SES_OP_READ, sink, 4096, T_RKEY + 1);
	t_wire_run(&w, 1000);
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_BAD_MKEY);
	cr_assert_eq(a.tx[1].cpl.rc, UET_SES_RC_BAD_MKEY);
	cr_assert_eq(b.rma_cnt, 0);
}

Test(ses_rmaevent, atomics_say_which)
{
	uint64_t one = 1, old = 0;
	struct ses_iov iov, riov = { &old, sizeof(old), NULL };
	struct ses_wre wr[2];

	t_wre(&wr[0], UET_SES_OP_ATOMIC, &to_b, &iov, &one, sizeof(one));
	wr[0].amo_op = UET_SES_AMO_SUM;
	wr[1] = wr[0];
	wr[1].opcode = UET_SES_OP_FETCHING_ATOMIC;
	wr[1].amo_op = UET_SES_AMO_READ;
	wr[1].res_iov = &riov;
	wr[1].res_iov_cnt = 1;
	for (int i = 0; i < 2; i++) {
		wr[i].ri = T_RI;
		wr[i].mkey = T_RKEY;
		wr[i].amo_dt = UET_SES_AMO_DT_UINT64;
		cr_assert_eq(ses_wre_post(a.s, &wr[i]), 0);
		t_wire_run(&w, 1000);
	}
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(old, 1);
	cr_assert_eq(b.rma_cnt, 2);
	cr_assert_eq(b.rma[0].opcode, UET_SES_OP_ATOMIC);
	cr_assert_eq(b.rma[0].amo_op, UET_SES_AMO_SUM);
	cr_assert_eq(b.rma[0].len, 8);
	cr_assert_eq(b.rma[1].opcode, UET_SES_OP_FETCHING_ATOMIC);
	cr_assert_eq(b.rma[1].amo_op, UET_SES_AMO_READ);
}

/* b pulls a's send with a READ of a's rendezvous RI: part of the send. */
Test(ses_rmaevent, rendezvous_pulls_are_not_remote_reads)
{
	struct ses_iov iov, riov = { sink, T_BIG, NULL };
	struct ses_recv_attr ra = { .iov = &riov, .iov_cnt = 1,
				    .initiator = SES_INITIATOR_ANY,
				    .user_ctx = sink };
	struct ses_wre wr;

	cr_assert_eq(ses_recv_post(b.s, &ra), 0);
	t_wre(&wr, UET_SES_OP_SEND, &to_b, &iov, src, T_BIG);
	wr.ri = T_RI_MSG;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 10000);
	cr_assert_eq(b.rx_cnt, 1);
	cr_assert_eq(b.rx[0].len, T_BIG);
	cr_assert_eq(memcmp(sink, src, T_BIG), 0);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.rma_cnt, 0);
	cr_assert_eq(b.rma_cnt, 0);
}
