/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shared fill ring and its reserve (dev/uet_dev_shm.c) on a ring in
 * plain memory, the kernel's part played by moving the consumer index: the
 * ring keeps fill_target chunks, the rest wait in the reserve, the ring is
 * topped up from the reserve as the kernel takes chunks, each chunk is in
 * one place, and what does not fit is counted, not written.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <xdp/xsk.h>

#include "dev/uet_dev_shm.h"
#include "uet_fep.h"

#define T_RING		64
#define T_RX		64
#define T_TARGET	16

struct t_fill {
	struct uet_dev_shm *s;
	struct xsk_ring_prod ring;
	uint32_t prod, cons, flags;
	uint64_t slots[T_RING];
};

static struct t_fill *t_fill_new(void)
{
	struct t_fill *t = calloc(1, sizeof(*t));

	cr_assert(t);
	t->s = calloc(1, uet_dev_shm_len(2, 4, T_RX));
	cr_assert(t->s);
	cr_assert_eq(uet_dev_shm_init(t->s, 2, UET_FEP_EP_BITS, 4, T_RX,
				      T_TARGET), 0);
	t->ring.mask = T_RING - 1;
	t->ring.size = T_RING;
	t->ring.producer = &t->prod;
	t->ring.consumer = &t->cons;
	t->ring.flags = &t->flags;
	t->ring.ring = t->slots;
	return t;
}

static void t_fill_free(struct t_fill *t)
{
	free(t->s);
	free(t);
}

static uint32_t t_level(const struct t_fill *t)
{
	return t->prod - t->cons;
}

/* Chunks base .. base + n - 1 (as addresses, chunk i at i * 4096). */
static void t_give(struct t_fill *t, uint32_t base, uint32_t n, bool ok)
{
	uint64_t a[T_RX];

	for (uint32_t i = 0; i < n; i++)
		a[i] = (uint64_t)(base + i) * 4096;
	cr_assert_eq(uet_dev_shm_fill(t->s, &t->ring, n ? a : NULL, n), ok);
}

/* Every chunk in exactly one place: the ring or the reserve. */
static void t_assert_each_once(const struct t_fill *t, uint32_t held)
{
	uint8_t seen[T_RX] = { 0 };
	uint32_t n = 0;

	for (uint32_t i = t->cons; i != t->prod; i++, n++)
		seen[t->slots[i % T_RING] / 4096]++;
	for (uint32_t i = 0; i < t->s->reserve_cnt; i++, n++)
		seen[uet_dev_shm_reserve(t->s)[i] / 4096]++;
	for (uint32_t i = 0; i < T_RX; i++)
		cr_assert_leq(seen[i], 1, "chunk %u placed %u times", i,
			      seen[i]);
	cr_assert_eq(n + held, T_RX);
}

Test(dev_shm, fill_keeps_target_rest_in_reserve)
{
	struct t_fill *t = t_fill_new();

	t_give(t, 0, T_RX, true);
	cr_assert_eq(t_level(t), T_TARGET);
	cr_assert_eq(t->s->reserve_cnt, T_RX - T_TARGET);
	t_assert_each_once(t, 0);
	t_fill_free(t);
}

Test(dev_shm, kernel_takes_then_top_up_from_reserve)
{
	struct t_fill *t = t_fill_new();

	t_give(t, 0, T_RX, true);
	t->cons += 10;			/* the kernel received 10 frames */
	t_give(t, 0, 0, true);		/* a top-up */
	cr_assert_eq(t_level(t), T_TARGET);
	cr_assert_eq(t->s->reserve_cnt, T_RX - T_TARGET - 10);
	t_assert_each_once(t, 10);
	t_fill_free(t);
}

Test(dev_shm, returned_chunks_go_to_ring_when_short)
{
	struct t_fill *t = t_fill_new();
	uint64_t taken[4];

	t_give(t, 0, T_RX, true);
	for (int i = 0; i < 4; i++)
		taken[i] = t->slots[(t->cons + i) % T_RING];
	t->cons += 4;
	/* Back they come: straight to the ring, the reserve untouched. */
	cr_assert(uet_dev_shm_fill(t->s, &t->ring, taken, 4));
	cr_assert_eq(t_level(t), T_TARGET);
	cr_assert_eq(t->s->reserve_cnt, T_RX - T_TARGET);
	t_assert_each_once(t, 0);
	t_fill_free(t);
}

Test(dev_shm, reserve_is_a_stack)
{
	struct t_fill *t = t_fill_new();
	uint64_t a[T_RX];

	for (uint32_t i = 0; i < T_RX; i++)
		a[i] = (uint64_t)i * 4096;
	cr_assert(uet_dev_shm_fill(t->s, &t->ring, a, T_TARGET));
	cr_assert(uet_dev_shm_fill(t->s, &t->ring, a + T_TARGET, 8));
	t->cons += 1;
	t_give(t, 0, 0, true);
	/* The last chunk put in the reserve is the first out: a warm one. */
	cr_assert_eq(t->slots[(t->prod - 1) % T_RING],
		     (uint64_t)(T_TARGET + 7) * 4096);
	t_fill_free(t);
}

Test(dev_shm, overflow_is_counted_not_written)
{
	struct t_fill *t = t_fill_new();

	t_give(t, 0, T_RX, true);
	/*
	 * Chunks given back twice: the reserve has room for what the ring
	 * holds (16), the other 4 are counted and dropped, never written
	 * past its end.
	 */
	t_give(t, 0, T_TARGET + 4, false);
	cr_assert_eq(t->s->fill_lost, 4);
	cr_assert_eq(t_level(t), T_TARGET);
	cr_assert_eq(t->s->reserve_cnt, T_RX);
	t_fill_free(t);
}

Test(dev_shm, stale_consumer_never_overfills)
{
	struct t_fill *t = t_fill_new();

	t_give(t, 0, T_RX, true);
	/* Another process's producer moved on; our cached view is stale. */
	t->ring.cached_cons = 0;
	t->ring.cached_prod = 0;
	t->cons += T_TARGET;
	t_give(t, 0, 0, true);
	cr_assert_eq(t_level(t), T_TARGET);
	cr_assert_leq(t_level(t), T_RING);
	t_fill_free(t);
}
