/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How long a lower layer may read an outgoing packet's payload (ses.h,
 * enum ses_pay_life), on a wire that reads payloads only at delivery, as
 * PDC does when it frames or resends a packet (t_wire.lazy): fetching
 * atomics in flight together each get their own old values (issue 11: the
 * old values were read from the target's stack after the call); READ data
 * whose region goes while it is in flight arrives as it was read; a resend
 * of a message that completed never reads the application's buffer.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ses/ses_amo.h"
#include "test_ses_wire.h"

#define T_JOB		7
#define T_PID		2
#define T_RI		0x00a
#define T_RKEY		0x1234ull
#define T_LEN		4096
#define T_AMO_CNT	64

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr dst;
static _Alignas(16) uint8_t mem[T_LEN];
static const struct ses_ri_id t_id = { T_JOB, T_PID, T_RI };

static void t_setup(void)
{
	struct ses_config cfg;

	t_wire_init(&w, 11);
	w.lazy = true;
	ses_config_init(&cfg);
	cfg.payload_mtu = 1024;
	cfg.job_id = T_JOB;
	cfg.initiator = 1;
	t_node_init(&w, &a, 1, &cfg);
	cfg.initiator = 2;
	t_node_init(&w, &b, 2, &cfg);
	memset(mem, 0, sizeof(mem));
	cr_assert_eq(ses_ri_add(b.s, &t_id, 0), 0);
	cr_assert_eq(ses_mr_add(b.s, &t_id, T_RKEY, mem, T_LEN,
				SES_ACCESS_REMOTE_WRITE |
				SES_ACCESS_REMOTE_READ), 0);
	t_addr(&dst, 2, T_JOB, T_PID);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
}

TestSuite(ses_paylife, .init = t_setup, .fini = t_teardown, .timeout = 30);

static int t_cmp_u64(const void *x, const void *y)
{
	uint64_t a1 = *(const uint64_t *)x, b1 = *(const uint64_t *)y;

	return a1 < b1 ? -1 : a1 > b1;
}

/* fi_fetch_atomic(FI_SUM, UINT64) of 8, T_AMO_CNT of them in flight. */
static void t_fetch_window(bool reorder)
{
	static struct ses_wre wr[T_AMO_CNT];
	static struct ses_iov iov[T_AMO_CNT], riov[T_AMO_CNT];
	static uint64_t add = 8, old[T_AMO_CNT];
	uint64_t counter;

	w.reorder = reorder;
	for (int i = 0; i < T_AMO_CNT; i++) {
		old[i] = UINT64_MAX;
		t_wre(&wr[i], UET_SES_OP_FETCHING_ATOMIC, &dst, &iov[i], &add,
		      sizeof(add));
		riov[i] = (struct ses_iov){ &old[i], sizeof(old[i]), NULL };
		wr[i].ri = T_RI;
		wr[i].mkey = T_RKEY;
		wr[i].amo_op = UET_SES_AMO_SUM;
		wr[i].amo_dt = UET_SES_AMO_DT_UINT64;
		wr[i].res_iov = &riov[i];
		wr[i].res_iov_cnt = 1;
		cr_assert_eq(ses_wre_post(a.s, &wr[i]), 0);
	}
	/* Every request is served before any answer is read. */
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, T_AMO_CNT);
	for (int i = 0; i < T_AMO_CNT; i++)
		cr_assert_eq(a.tx[i].cpl.status, 0);
	memcpy(&counter, mem, sizeof(counter));
	cr_assert_eq(counter, 8ull * T_AMO_CNT);
	qsort(old, T_AMO_CNT, sizeof(old[0]), t_cmp_u64);
	for (int i = 0; i < T_AMO_CNT; i++)
		cr_assert_eq(old[i], 8ull * i, "old value %d is %llu", i,
			     (unsigned long long)old[i]);
}

Test(ses_paylife, fetching_atomics_in_flight_get_their_own_old_values)
{
	t_fetch_window(false);
}

Test(ses_paylife, fetching_atomics_reordered_get_their_own_old_values)
{
	t_fetch_window(true);
}

Test(ses_paylife, read_data_in_flight_survives_its_region)
{
	static uint8_t got[3000];
	struct ses_iov iov;
	struct ses_wre wr;
	struct t_pkt req;

	for (size_t i = 0; i < sizeof(got); i++)
		mem[i] = (uint8_t)(i * 7 + 1);
	t_wre(&wr, UET_SES_OP_READ, &dst, &iov, got, sizeof(got));
	wr.ri = T_RI;
	wr.mkey = T_RKEY;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	/* The READ request reaches the target, which queues its data. */
	cr_assert_eq(w.q_cnt, 1);
	req = t_wire_take(&w, 0);
	t_wire_deliver(&w, &req);
	t_pkt_free(&req);
	cr_assert_geq(w.q_cnt, 3, "data packets and the answer queued");
	/* The region goes, and its memory is reused, before they leave. */
	cr_assert_eq(ses_mr_remove(b.s, &t_id, T_RKEY), 0);
	memset(mem, 0xEE, sizeof(got));
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	for (size_t i = 0; i < sizeof(got); i++)
		cr_assert_eq(got[i], (uint8_t)(i * 7 + 1), "byte %zu", i);
}

Test(ses_paylife, resend_of_a_completed_message_does_not_read_its_buffer)
{
	uint8_t *src = malloc(3000);
	struct ses_iov iov;
	struct ses_wre wr;
	struct t_pkt first;

	cr_assert_not_null(src);
	memset(src, 0x5A, 3000);
	/* Three packets to a key the target does not know: the first one
	 * answered fails the write while the other two are still out. */
	t_wre(&wr, UET_SES_OP_WRITE, &dst, &iov, src, 3000);
	wr.ri = T_RI;
	wr.mkey = T_RKEY + 1;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	cr_assert_eq(w.q_cnt, 3);
	first = t_wire_take(&w, 0);
	t_wire_deliver(&w, &first);
	t_pkt_free(&first);
	/* The answer is the last queued; deliver it. */
	first = t_wire_take(&w, w.q_cnt - 1);
	t_wire_deliver(&w, &first);
	t_pkt_free(&first);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].cpl.status, -EREMOTEIO);
	cr_assert_eq(a.tx[0].cpl.rc, UET_SES_RC_BAD_MKEY);
	/* The application frees its buffer at the completion. */
	free(src);
	t_wire_run(&w, 10000);
	cr_assert_eq(w.lazy_dead, 2, "resends that read nothing: %u",
		     w.lazy_dead);
	cr_assert_eq(a.tx_cnt, 1);
	for (size_t i = 0; i < T_LEN; i++)
		cr_assert_eq(mem[i], 0);
}
