// SPDX-License-Identifier: BSD-2-Clause
/*
 * The replay window of one receive stream. The bitmap is a ring indexed by
 * TSC modulo UET_TSS_REPLAY_WIN rather than a register shifted on every
 * new top: in-order traffic then moves the window by clearing one bit,
 * where a shift would rewrite all of it per packet. A bit is meaningful
 * only for TSCs in (top - WIN, top]; moving the top clears the slots the
 * window enters, so stale bits of older laps never show through.
 */
#include <errno.h>
#include <string.h>

#include "tss/uet_tss.h"

#define W_WORDS	(UET_TSS_REPLAY_WIN / 64)

_Static_assert(UET_TSS_REPLAY_WIN % 64 == 0, "window: whole words");

static bool bit_test(const uint64_t *b, uint64_t tsc)
{
	unsigned int i = tsc % UET_TSS_REPLAY_WIN;

	return b[i / 64] >> (i % 64) & 1;
}

static void bit_set(uint64_t *b, uint64_t tsc)
{
	unsigned int i = tsc % UET_TSS_REPLAY_WIN;

	b[i / 64] |= 1ull << (i % 64);
}

int uet_tss_replay_check(const struct uet_tss_replay *w, uint64_t tsc)
{
	if (!w->any || tsc > w->top)
		return 0;
	if (w->top - tsc >= UET_TSS_REPLAY_WIN)
		return -ESTALE;
	return bit_test(w->bits, tsc) ? -EALREADY : 0;
}

/* Clear the slots of TSCs (from, to]: the window's new part. */
static void advance(uint64_t *b, uint64_t from, uint64_t to)
{
	uint64_t t = from + 1;
	unsigned int i;

	if (to - from >= UET_TSS_REPLAY_WIN) {
		memset(b, 0, W_WORDS * sizeof(*b));
		return;
	}
	while (t <= to) {
		i = t % UET_TSS_REPLAY_WIN;
		if (i % 64 == 0 && to - t >= 63) {
			b[i / 64] = 0;
			t += 64;
		} else {
			b[i / 64] &= ~(1ull << (i % 64));
			t++;
		}
	}
}

void uet_tss_replay_commit(struct uet_tss_replay *w, uint64_t tsc)
{
	if (!w->any) {
		memset(w->bits, 0, sizeof(w->bits));
		w->any = true;
		w->top = tsc;
	} else if (tsc > w->top) {
		advance(w->bits, w->top, tsc);
		w->top = tsc;
	} else if (w->top - tsc >= UET_TSS_REPLAY_WIN) {
		return;		/* below the window: nothing to record */
	}
	bit_set(w->bits, tsc);
}

void uet_tss_replay_from_floor(struct uet_tss_replay *w, uint64_t floor)
{
	/* Every slot set: all of (floor - WIN, floor] seen, and below stale. */
	memset(w->bits, 0xFF, sizeof(w->bits));
	w->any = true;
	w->top = floor;
}
