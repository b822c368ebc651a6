/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Counts by key (pdc/pdc_counts.c), against a plain
 * array: random increments and decrements over peers whose hashes collide
 * in a small map, so that backward-shift deletion runs through long runs
 * and across the table's end.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "pdc/pdc_priv.h"

#define T_PEERS		4096
#define T_STEPS		200000

Test(pdc_counts, matches_a_plain_count)
{
	static uint32_t ref[T_PEERS];
	struct pdc_counts u;
	uint64_t x = 0x2545F4914F6CDD1Dull;
	uint32_t live = 0;

	cr_assert_eq(pdc_counts_init(&u, 40), 0);
	for (uint32_t step = 0; step < T_STEPS; step++) {
		uint32_t peer;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* Peers spread over a wide range: ids of a large table. */
		peer = (uint32_t)(x % 64) * 977 + (uint32_t)(x >> 40) % 3;
		peer %= T_PEERS;
		if (ref[peer] && (x & 0x300)) {
			pdc_counts_dec(&u, peer);
			if (!--ref[peer])
				live--;
		} else if (live < 40 || ref[peer]) {
			if (!ref[peer]++)
				live++;
			pdc_counts_inc(&u, peer);
		}
		if (step % 997 == 0)
			for (uint32_t p = 0; p < T_PEERS; p++)
				cr_assert_eq(pdc_counts_get(&u, p), ref[p],
					     "peer %u at step %u", p, step);
	}
	for (uint32_t p = 0; p < T_PEERS; p++)
		while (ref[p]--)
			pdc_counts_dec(&u, p);
	for (uint32_t p = 0; p < T_PEERS; p++)
		cr_assert(!pdc_counts_get(&u, p));
	/* A peer never counted, decremented: nothing changes. */
	pdc_counts_dec(&u, 17);
	cr_assert(!pdc_counts_get(&u, 17));
	pdc_counts_fini(&u);
}
