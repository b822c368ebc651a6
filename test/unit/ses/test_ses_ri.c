/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RI tables and regions through their API (add, remove, replace, enable,
 * disable, generations), engine creation, empty messages, stale answers.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test_ses_wire.h"

static struct t_wire w;
static struct t_node a, b;

static void t_setup(void)
{
	t_wire_init(&w, 1);
	t_node_init(&w, &a, 1, NULL);
	t_node_init(&w, &b, 2, NULL);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
}

TestSuite(ses_ri, .init = t_setup, .fini = t_teardown, .timeout = 10);

Test(ses_ri, tables_and_regions_lifecycle)
{
	struct ses_ri_id id = { 101, 2, 0x00a }, other = { 101, 3, 0x00a };
	static uint8_t r1[64], r2[64];

	cr_assert_eq(ses_ri_gen_get(b.s, &id), -ENOENT);
	cr_assert_eq(ses_mr_add(b.s, &id, 1, r1, 64, 0), -ENOENT);
	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_ri_add(b.s, &id, 0), -EEXIST);
	cr_assert_eq(ses_ri_gen_get(b.s, &id), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, 1, r1, 64,
				SES_ACCESS_REMOTE_WRITE), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, 1, r2, 64,
				SES_ACCESS_REMOTE_WRITE), -EEXIST);
	cr_assert_eq(ses_mr_add(b.s, &id, 2, r2, 64, SES_ACCESS_REMOTE_READ),
		     0);
	/* Adding does not move the generation; removing and replacing do. */
	cr_assert_eq(ses_ri_gen_get(b.s, &id), 0);
	cr_assert_eq(ses_mr_replace(b.s, &id, 1, r2, 32,
				    SES_ACCESS_REMOTE_READ), 0);
	cr_assert_eq(ses_ri_gen_get(b.s, &id), 1);
	cr_assert_eq(ses_mr_remove(b.s, &id, 2), 0);
	cr_assert_eq(ses_ri_gen_get(b.s, &id), 2);
	cr_assert_eq(ses_mr_remove(b.s, &id, 2), -ENOENT);
	cr_assert_eq(ses_mr_replace(b.s, &id, 2, r1, 8, 0), -ENOENT);
	cr_assert_eq(ses_mr_remove(b.s, &other, 1), -ENOENT);
	cr_assert_eq(ses_ri_disable(b.s, &id), 0);
	cr_assert_eq(ses_ri_enable(b.s, &id), 0);
	cr_assert_eq(ses_ri_disable(b.s, &other), -ENOENT);
	cr_assert_eq(ses_ri_enable(b.s, &other), -ENOENT);
	cr_assert_eq(ses_ri_remove(b.s, &id), 0);
	cr_assert_eq(ses_ri_remove(b.s, &id), -ENOENT);
	cr_assert_eq(ses_mr_remove(b.s, &id, 1), -ENOENT);
	/* Created again, it starts empty. */
	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, 1, r1, 64, 0), 0);
}

Test(ses_ri, generation_wraps_at_8_bits)
{
	struct ses_ri_id id = { 1, 1, 1 };
	static uint8_t r[8];

	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	for (unsigned i = 0; i < 256; i++) {
		cr_assert_eq(ses_mr_add(b.s, &id, 7, r, 8, 0), 0);
		cr_assert_eq(ses_mr_remove(b.s, &id, 7), 0);
	}
	cr_assert_eq(ses_ri_gen_get(b.s, &id), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, 7, r, 8, 0), 0);
	cr_assert_eq(ses_mr_remove(b.s, &id, 7), 0);
	cr_assert_eq(ses_ri_gen_get(b.s, &id), 1);
}

Test(ses_ri, rejects_bad_arguments)
{
	struct ses_ri_id id = { 1, 1, 1 };
	struct ses_ri_id wide_job = { 1u << 24, 1, 1 }, wide_pid = { 1, 0x1000, 1 };
	struct ses_ri_id wide_ri = { 1, 1, 0x1000 };
	static uint8_t r[8];

	cr_assert_eq(ses_ri_add(b.s, &wide_job, 0), -EINVAL);
	cr_assert_eq(ses_ri_add(b.s, &wide_pid, 0), -EINVAL);
	cr_assert_eq(ses_ri_add(b.s, &wide_ri, 0), -EINVAL);
	cr_assert_eq(ses_ri_add(b.s, &id, 0x80), -EINVAL);
	cr_assert_eq(ses_ri_add(b.s, NULL, 0), -EINVAL);
	cr_assert_eq(ses_ri_add(b.s, &id, SES_RI_F_DISABLED), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, 1ull << 48, r, 8, 0), -EINVAL);
	cr_assert_eq(ses_mr_add(b.s, &id, 1, NULL, 8, 0), -EINVAL);
	cr_assert_eq(ses_mr_add(b.s, &id, 1, r, 8, 0x80), -EINVAL);
	cr_assert_eq(ses_mr_add(b.s, &wide_ri, 1, r, 8, 0), -EINVAL);
}

Test(ses_ri, tables_and_regions_are_bounded)
{
	struct ses_config cfg;
	struct ses_ri_id id = { 1, 1, 0 };
	static uint8_t r[8];

	t_teardown();
	t_wire_init(&w, 1);
	ses_config_init(&cfg);
	cfg.max_ri_tables = 3;
	cfg.max_mrs = 2;
	t_node_init(&w, &a, 1, &cfg);
	t_node_init(&w, &b, 2, &cfg);
	for (id.ri = 0; id.ri < 3; id.ri++)
		cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_ri_add(b.s, &id, 0), -ENOMEM);
	id.ri = 0;
	cr_assert_eq(ses_mr_add(b.s, &id, 1, r, 8, 0), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, 2, r, 8, 0), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, 3, r, 8, 0), -ENOMEM);
	cr_assert_eq(ses_ri_remove(b.s, &id), 0);
	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, 3, r, 8, 0), 0);
}

Test(ses_ri, create_rejects_bad_configs)
{
	struct ses_ops ops = { 0 };
	struct ses_config cfg;

	ses_config_init(&cfg);
	cr_assert_null(ses_create(&cfg, &ops, NULL));
	cr_assert_eq(errno, EINVAL);
	ops.tx = (ses_tx_fn)1;
	ops.tx_done = (ses_tx_done_fn)1;
	cfg.payload_mtu = 3000;
	cr_assert_null(ses_create(&cfg, &ops, NULL));
	cfg.payload_mtu = 16384;
	cr_assert_null(ses_create(&cfg, &ops, NULL));
	ses_config_init(&cfg);
	cfg.rdv_ri = 0x1000;
	cr_assert_null(ses_create(&cfg, &ops, NULL));
	ses_config_init(&cfg);
	cfg.max_msgs = 0;
	cr_assert_null(ses_create(&cfg, &ops, NULL));
	cr_assert_null(ses_create(NULL, &ops, NULL));
}

/* Empty WRITE and READ complete; a stray answer is only counted. */
Test(ses_ri, empty_messages_and_stray_answers)
{
	struct ses_ri_id id = { 5, 6, 7 };
	struct ses_addr dst;
	struct ses_wre wr;
	struct ses_iov iov;
	static uint8_t r[16];
	uint8_t rsp[UET_SES_RSP_LEN];
	struct ses_rsp_hdr h = { .opcode = UET_SES_RSP_RESPONSE,
				 .return_code = UET_SES_RC_OK,
				 .message_id = 999, .job_id = 5 };
	struct ses_rx_pkt rx = { .peer = 2, .buf = rsp, .len = sizeof(rsp),
				 .next_hdr = UET_PDS_NEXT_HDR_RESPONSE };
	struct ses_stats st;

	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, 9, r, sizeof(r),
				SES_ACCESS_REMOTE_READ |
				SES_ACCESS_REMOTE_WRITE), 0);
	t_addr(&dst, 2, 5, 6);
	t_wre(&wr, UET_SES_OP_WRITE, &dst, &iov, r, 0);
	wr.ri = 7;
	wr.mkey = 9;
	wr.remote_offset = sizeof(r);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	wr.opcode = UET_SES_OP_READ;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 100);
	cr_assert_eq(a.tx_cnt, 2);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[1].cpl.rc, UET_SES_RC_OK);
	cr_assert_eq(a.tx[1].cpl.modified_len, 0);
	cr_assert_eq(ses_rsp_hdr_encode(rsp, sizeof(rsp), &h), sizeof(rsp));
	cr_assert_eq(ses_rx_rsp(a.s, &rx), 0);
	rx.len = 3;
	cr_assert_eq(ses_rx_rsp(a.s, &rx), -EBADMSG);
	rx.next_hdr = UET_PDS_NEXT_HDR_RESPONSE_DATA_SMALL;
	cr_assert_eq(ses_rx_rsp(a.s, &rx), -EPROTONOSUPPORT);
	ses_stats_get(a.s, &st);
	cr_assert_eq(st.rx_stale_rsps, 1);
	cr_assert_eq(st.rx_malformed, 2);
	cr_assert_eq(a.tx_cnt, 2);
}

Test(ses_ri, state_sizes_are_reported)
{
	cr_assert_gt(ses_state_msg_len(a.s), sizeof(uint64_t));
	cr_assert_lt(ses_state_msg_len(a.s), 256);
	/* An idle peer holds no id windows; an active one both: the
	 * SES_MSG_WINDOW bits, and twice that. */
	cr_assert_lt(ses_state_peer_len(a.s), 256);
	cr_assert_geq(ses_state_peer_win_len(), 3 * SES_MSG_WINDOW / 8);
}
