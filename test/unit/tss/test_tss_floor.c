// SPDX-License-Identifier: BSD-2-Clause
/*
 * The floors of evicted streams (tss/uet_tss_floor.c): many ids in and
 * out in any order, growth, the higher floor kept, removal by a key byte,
 * and no id ever found that was not put or was taken.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "tss/uet_tss.h"

#define N	20000

static void mk_id(uint8_t *id, uint32_t i)
{
	memset(id, 0, UET_TSS_FLOOR_ID);
	id[0] = 10;
	id[3] = (uint8_t)i;
	id[16] = (uint8_t)(i >> 8);
	id[17] = (uint8_t)(i >> 16);
	id[22] = (uint8_t)(i & 1);	/* as rx_id's AN */
}

Test(tss_floor, many_in_and_out)
{
	struct uet_tss_floors f = { 0 };
	uint8_t id[UET_TSS_FLOOR_ID];
	uint64_t v;

	for (uint32_t i = 0; i < N; i++) {
		mk_id(id, i);
		cr_assert_eq(uet_tss_floor_put(&f, id, i * 3ull), 0);
	}
	cr_assert_eq(f.n, N);
	cr_assert_leq(f.n * 4, f.cap * 3);
	/* The higher floor stays. */
	mk_id(id, 7);
	cr_assert_eq(uet_tss_floor_put(&f, id, 5), 0);
	cr_assert(uet_tss_floor_get(&f, id, &v));
	cr_assert_eq(v, 21);
	/* Every third taken out, in an order unlike the insertion's. */
	for (uint32_t i = N; i-- > 0;)
		if (i % 3 == 0) {
			mk_id(id, i);
			cr_assert(uet_tss_floor_take(&f, id, &v), "%u", i);
			cr_assert_eq(v, i * 3ull);
			cr_assert_not(uet_tss_floor_take(&f, id, &v));
		}
	for (uint32_t i = 0; i < N; i++) {
		mk_id(id, i);
		cr_assert_eq(uet_tss_floor_get(&f, id, &v), i % 3 != 0, "%u",
			     i);
	}
	/* The AN-1 ids (odd) go; the even ones that were left stay. */
	uet_tss_floor_drop(&f, 22, 1);
	for (uint32_t i = 0; i < N; i++) {
		mk_id(id, i);
		cr_assert_eq(uet_tss_floor_get(&f, id, &v),
			     i % 3 != 0 && i % 2 == 0, "%u", i);
	}
	uet_tss_floor_free(&f);
	cr_assert_eq(f.cap, 0);
	cr_assert_not(uet_tss_floor_get(&f, id, &v));
}
