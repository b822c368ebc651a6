/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Atomics (ses_amo.h) between two engines over the in-memory wire: the
 * operations on each kind of datatype, fetching (old values back), every
 * CSWAP comparison both ways; the checks of a WRITE and a READ, and the
 * atomic codes, each leaving memory untouched; once only on a duplicating
 * wire; WREs an initiator refuses.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "ses/ses_amo.h"
#include "test_ses_wire.h"

#define T_JOB		7
#define T_PID		2
#define T_RI		0x00a
#define T_RKEY		0x1234ull
#define T_RKEY_RO	0x5678ull
#define T_RKEY_WO	0x9abcull
#define T_LEN		4096

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr dst;
static _Alignas(16) uint8_t mem[3 * T_LEN];	/* rw | ro | wo */

static void t_setup(void)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	struct ses_config cfg;

	t_wire_init(&w, 5);
	ses_config_init(&cfg);
	cfg.payload_mtu = 1024;
	cfg.job_id = T_JOB;
	cfg.initiator = 1;
	t_node_init(&w, &a, 1, &cfg);
	cfg.initiator = 2;
	t_node_init(&w, &b, 2, &cfg);
	memset(mem, 0, sizeof(mem));
	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY, mem, T_LEN,
				SES_ACCESS_REMOTE_WRITE |
				SES_ACCESS_REMOTE_READ), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY_RO, mem + T_LEN, T_LEN,
				SES_ACCESS_REMOTE_READ), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY_WO, mem + 2 * T_LEN, T_LEN,
				SES_ACCESS_REMOTE_WRITE), 0);
	t_addr(&dst, 2, T_JOB, T_PID);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
}

TestSuite(ses_amo, .init = t_setup, .fini = t_teardown, .timeout = 30);

/* One atomic; |res| non-NULL makes it fetching. Returns its completion. */
static struct ses_tx_cpl t_amo(uint8_t op, uint8_t dt, uint64_t mkey,
			       uint64_t off, const void *src, size_t len,
			       const void *cmp, void *res)
{
	struct ses_iov iov, riov = { res, len, NULL };
	struct ses_wre wr;

	t_wre(&wr, res ? UET_SES_OP_FETCHING_ATOMIC : UET_SES_OP_ATOMIC, &dst,
	      &iov, (void *)src, len);
	wr.ri = T_RI;
	wr.mkey = mkey;
	wr.remote_offset = off;
	wr.amo_op = op;
	wr.amo_dt = dt;
	wr.amo_compare = cmp;
	wr.res_iov = res ? &riov : NULL;
	wr.res_iov_cnt = res ? 1 : 0;
	a.tx_cnt = 0;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 10000);
	cr_assert_eq(a.tx_cnt, 1);
	return a.tx[0].cpl;
}

static void t_ok(struct ses_tx_cpl cpl)
{
	cr_assert_eq(cpl.status, 0, "status %d rc %s", cpl.status,
		     ses_rc_name(cpl.rc));
}

Test(ses_amo, integer_arithmetic_wraps_and_fetches)
{
	uint64_t init[4] = { 1, UINT64_MAX, 40, 7 }, add[4] = { 2, 3, 2, 0 };
	uint64_t old[4], got[4];

	memcpy(mem, init, sizeof(init));
	t_ok(t_amo(UET_SES_AMO_SUM, UET_SES_AMO_DT_UINT64, T_RKEY, 0, add,
		   sizeof(add), NULL, old));
	cr_assert_eq(memcmp(old, init, sizeof(init)), 0);
	memcpy(got, mem, sizeof(got));
	cr_assert(got[0] == 3 && got[1] == 2 && got[2] == 42 && got[3] == 7);
	t_ok(t_amo(UET_SES_AMO_PROD, UET_SES_AMO_DT_UINT64, T_RKEY, 0, add,
		   sizeof(add), NULL, NULL));
	memcpy(got, mem, sizeof(got));
	cr_assert(got[0] == 6 && got[1] == 6 && got[2] == 84 && got[3] == 0);
}

/*
 * 16-bit products past int: uint16_t operands are promoted to int, and
 * 65534 * 65533 overflows it (undefined; UBSan's make sanitize sees it).
 */
Test(ses_amo, sixteen_bit_products_wrap)
{
	uint16_t u[2] = { 65534, 65535 }, uop[2] = { 65533, 65535 };
	int16_t v[2] = { -2, INT16_MIN }, vop[2] = { -3, -1 };

	cr_assert_eq(ses_amo_apply(UET_SES_AMO_PROD, UET_SES_AMO_DT_UINT16,
				   (uint8_t *)u, (const uint8_t *)uop, NULL,
				   NULL, sizeof(u)), UET_SES_RC_OK);
	cr_assert(u[0] == 6 && u[1] == 1, "%u %u", u[0], u[1]);
	cr_assert_eq(ses_amo_apply(UET_SES_AMO_PROD, UET_SES_AMO_DT_INT16,
				   (uint8_t *)v, (const uint8_t *)vop, NULL,
				   NULL, sizeof(v)), UET_SES_RC_OK);
	cr_assert(v[0] == 6 && v[1] == INT16_MIN, "%d %d", v[0], v[1]);
}

Test(ses_amo, signed_min_max_and_logic)
{
	int8_t v[2] = { -5, 3 }, op[2] = { 3, -7 };
	uint32_t u = 0xF0F0, m = 0x0FF0, zero = 0;

	memcpy(mem, v, 2);
	t_ok(t_amo(UET_SES_AMO_MIN, UET_SES_AMO_DT_INT8, T_RKEY, 0, op, 2,
		   NULL, NULL));
	cr_assert(((int8_t *)mem)[0] == -5 && ((int8_t *)mem)[1] == -7);
	t_ok(t_amo(UET_SES_AMO_MAX, UET_SES_AMO_DT_INT8, T_RKEY, 0, op, 2,
		   NULL, NULL));
	cr_assert(((int8_t *)mem)[0] == 3 && ((int8_t *)mem)[1] == -7);
	memcpy(mem + 64, &u, 4);
	t_ok(t_amo(UET_SES_AMO_BXOR, UET_SES_AMO_DT_UINT32, T_RKEY, 64, &m, 4,
		   NULL, NULL));
	cr_assert_eq(*(uint32_t *)(mem + 64), 0xFF00);
	t_ok(t_amo(UET_SES_AMO_BAND, UET_SES_AMO_DT_UINT32, T_RKEY, 64, &m, 4,
		   NULL, NULL));
	cr_assert_eq(*(uint32_t *)(mem + 64), 0x0F00);
	t_ok(t_amo(UET_SES_AMO_LAND, UET_SES_AMO_DT_UINT32, T_RKEY, 64, &zero,
		   4, NULL, NULL));
	cr_assert_eq(*(uint32_t *)(mem + 64), 0);
	t_ok(t_amo(UET_SES_AMO_LXOR, UET_SES_AMO_DT_UINT32, T_RKEY, 64, &m, 4,
		   NULL, NULL));
	cr_assert_eq(*(uint32_t *)(mem + 64), 1);
}

Test(ses_amo, floating_point_read_and_write)
{
	double d = 1.5, f = 4.0, old;
	float x = 2.5f, y = -1.0f;

	memcpy(mem + 8, &d, 8);
	t_ok(t_amo(UET_SES_AMO_PROD, UET_SES_AMO_DT_DOUBLE, T_RKEY, 8, &f, 8,
		   NULL, NULL));
	cr_assert_eq(*(double *)(mem + 8), 6.0);
	t_ok(t_amo(UET_SES_AMO_READ, UET_SES_AMO_DT_DOUBLE, T_RKEY, 8, &f, 8,
		   NULL, &old));
	cr_assert(old == 6.0 && *(double *)(mem + 8) == 6.0);
	memcpy(mem + 16, &x, 4);
	t_ok(t_amo(UET_SES_AMO_MIN, UET_SES_AMO_DT_FLOAT, T_RKEY, 16, &y, 4,
		   NULL, NULL));
	cr_assert_eq(*(float *)(mem + 16), -1.0f);
	t_ok(t_amo(UET_SES_AMO_WRITE, UET_SES_AMO_DT_DOUBLE, T_RKEY, 8, &d, 8,
		   NULL, NULL));
	cr_assert_eq(*(double *)(mem + 8), 1.5);
}

/* compare <c> target, for compare 5 against targets 4, 5 and 6. */
Test(ses_amo, every_compare_and_swap)
{
	static const struct { uint8_t op; bool swaps[3]; } rows[] = {
		{ UET_SES_AMO_CSWAP, { false, true, false } },
		{ UET_SES_AMO_CSWAP_NE, { true, false, true } },
		{ UET_SES_AMO_CSWAP_LE, { false, true, true } },
		{ UET_SES_AMO_CSWAP_LT, { false, false, true } },
		{ UET_SES_AMO_CSWAP_GE, { true, true, false } },
		{ UET_SES_AMO_CSWAP_GT, { true, false, false } },
	};
	int32_t cmp = 5, swap = 99, old, t;

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		for (int k = 0; k < 3; k++) {
			t = 4 + k;
			memcpy(mem + 32, &t, 4);
			t_ok(t_amo(rows[r].op, UET_SES_AMO_DT_INT32, T_RKEY,
				   32, &swap, 4, &cmp, &old));
			cr_assert_eq(old, t);
			cr_assert_eq(*(int32_t *)(mem + 32),
				     rows[r].swaps[k] ? swap : t,
				     "%s, target %d", ses_amo_op_name(rows[r].op),
				     t);
		}
	}
}

static void t_refused(struct ses_tx_cpl cpl, uint8_t rc)
{
	cr_assert_eq(cpl.status, -EREMOTEIO);
	cr_assert_eq(cpl.rc, rc, "rc %s, want %s", ses_rc_name(cpl.rc),
		     ses_rc_name(rc));
}

Test(ses_amo, checks_and_codes_leave_memory_alone)
{
	uint8_t before[sizeof(mem)], res[16];
	uint64_t one = 1;
	uint32_t four = 4;

	memset(mem, 0x3C, sizeof(mem));
	memcpy(before, mem, sizeof(mem));
	t_refused(t_amo(UET_SES_AMO_SUM, UET_SES_AMO_DT_UINT64, T_RKEY_RO, 0,
			&one, 8, NULL, NULL), UET_SES_RC_PERM_VIOLATION);
	t_refused(t_amo(UET_SES_AMO_SUM, UET_SES_AMO_DT_UINT64, T_RKEY_WO, 0,
			&one, 8, NULL, res), UET_SES_RC_PERM_VIOLATION);
	t_refused(t_amo(UET_SES_AMO_SUM, UET_SES_AMO_DT_UINT64, T_RKEY,
			T_LEN - 4, &one, 8, NULL, NULL), UET_SES_RC_BAD_ADDR);
	t_refused(t_amo(UET_SES_AMO_SUM, UET_SES_AMO_DT_UINT64, 0x777, 0,
			&one, 8, NULL, NULL), UET_SES_RC_BAD_MKEY);
	t_refused(t_amo(UET_SES_AMO_SUM, UET_SES_AMO_DT_UINT64, T_RKEY, 4,
			&one, 8, NULL, NULL), UET_SES_RC_AMO_UNALIGNED);
	t_refused(t_amo(UET_SES_AMO_BOR, UET_SES_AMO_DT_FLOAT, T_RKEY, 0,
			&four, 4, NULL, NULL), UET_SES_RC_AMO_UNSUPPORTED_OP);
	cr_assert_eq(memcmp(mem, before, sizeof(mem)), 0);
	/* An atomic READ needs read access only. */
	t_ok(t_amo(UET_SES_AMO_READ, UET_SES_AMO_DT_UINT32, T_RKEY_RO, 0,
		   &four, 4, NULL, res));
	cr_assert_eq(*(uint32_t *)res, 0x3C3C3C3C);
}

Test(ses_amo, once_only_on_a_duplicating_wire)
{
	uint64_t one = 1;

	w.dup_pct = 100;
	w.reorder = true;
	for (int i = 0; i < 20; i++)
		t_ok(t_amo(UET_SES_AMO_SUM, UET_SES_AMO_DT_UINT64, T_RKEY, 0,
			   &one, 8, NULL, NULL));
	cr_assert_eq(*(uint64_t *)mem, 20);
	cr_assert_gt(b.rma_cnt, 0);
}

Test(ses_amo, initiator_refuses_bad_wres)
{
	uint8_t src[2048] = { 0 }, res[2048];
	struct ses_iov iov, riov = { res, 8, NULL };
	struct ses_wre wr;

	t_wre(&wr, UET_SES_OP_ATOMIC, &dst, &iov, src, 6);
	wr.amo_op = UET_SES_AMO_SUM;
	wr.amo_dt = UET_SES_AMO_DT_UINT32;	/* 6 is not whole elements */
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
	iov.len = 2048;				/* over the payload MTU */
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
	iov.len = 8;
	wr.amo_dt = UET_SES_AMO_DT_INT128;	/* not served */
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
	wr.amo_dt = UET_SES_AMO_DT_UINT32;
	wr.amo_op = UET_SES_AMO_CSWAP;		/* two elements, no compare */
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
	wr.amo_op = UET_SES_AMO_SUM;
	wr.opcode = UET_SES_OP_FETCHING_ATOMIC;	/* result 8 of 8: fine */
	wr.res_iov = &riov;
	wr.res_iov_cnt = 1;
	riov.len = 4;				/* result too short */
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
	cr_assert_eq(a.tx_cnt, 0);
	cr_assert(ses_amo_is_supported(UET_SES_AMO_LXOR, UET_SES_AMO_DT_INT8));
	cr_assert(!ses_amo_is_supported(UET_SES_AMO_LXOR,
					UET_SES_AMO_DT_DOUBLE));
	cr_assert(!ses_amo_is_supported(UET_SES_AMO_MSWAP,
					UET_SES_AMO_DT_UINT64));
}
