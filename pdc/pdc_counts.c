/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Counts by key that the manager keeps as things come and go, so that the
 * questions asked for every peer the engine would age and for every SYN
 * cost O(1) instead of a scan of every PDC: what names each peer (PDCs of
 * both roles, queued NACKs, UUD and RUDI packets, eviction records:
 * pdc_peer_in_use), the live target PDCs of each peer and the target PDCs
 * of each source host (pdc_tgt_admit.c's census). An open-addressed map of
 * the keys counted at all; deletion shifts back, so lookups need no
 * tombstones.
 *
 * The map holds at most |most| keys but is sized for the keys it holds now
 * (at most half full, from 64 slots): a RUDI sender cycling through 64k
 * peers with a few dozen in flight must hit a few cache lines, not a
 * table of a million slots (bench_scale: 43% of the time went to misses
 * there). Both the table and the scratch it grows through are reserved
 * for the most at set-up (uet_vm.h: pages only as written), so growing
 * never fails and counting stays void.
 */
#include <errno.h>
#include <string.h>

#include "uet_vm.h"
#include "pdc/pdc_priv.h"

#define PDC_COUNTS_MIN	64

static uint32_t pdc_counts_slot(const struct pdc_counts *u, uint64_t key)
{
	key ^= key >> 31;
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & u->mask;
}

int pdc_counts_init(struct pdc_counts *u, uint32_t most)
{
	uint32_t cap = PDC_COUNTS_MIN;

	/* At most half full: probe runs stay short. */
	while (cap < 2 * (uint64_t)most)
		cap *= 2;
	u->max = cap;
	u->ent = uet_vm_reserve(cap * sizeof(*u->ent));
	u->tmp = uet_vm_reserve(cap / 2 * sizeof(*u->tmp));
	if (!u->ent || !u->tmp) {
		pdc_counts_fini(u);
		return -ENOMEM;
	}
	u->mask = PDC_COUNTS_MIN - 1;
	u->used = 0;
	return 0;
}

void pdc_counts_fini(struct pdc_counts *u)
{
	uet_vm_release(u->ent, u->max * sizeof(*u->ent));
	uet_vm_release(u->tmp, u->max / 2 * sizeof(*u->tmp));
	u->ent = u->tmp = NULL;
}

/* The entry of |key|, or the empty one where it would go. */
static struct pdc_counts_ent *pdc_counts_find(const struct pdc_counts *u,
					      uint64_t key)
{
	uint32_t i = pdc_counts_slot(u, key);

	while (u->ent[i].cnt && u->ent[i].key != key)
		i = (i + 1) & u->mask;
	return &u->ent[i];
}

/* Twice the slots: the entries out to the scratch, and in again. */
static void pdc_counts_grow(struct pdc_counts *u)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i <= u->mask; i++)
		if (u->ent[i].cnt)
			u->tmp[n++] = u->ent[i];
	memset(u->ent, 0, (u->mask + 1) * sizeof(*u->ent));
	u->mask = 2 * u->mask + 1;
	for (uint32_t i = 0; i < n; i++)
		*pdc_counts_find(u, u->tmp[i].key) = u->tmp[i];
}

void pdc_counts_inc(struct pdc_counts *u, uint64_t key)
{
	struct pdc_counts_ent *e = pdc_counts_find(u, key);

	if (!e->cnt) {
		if (2 * (u->used + 1) > u->mask + 1 && u->mask + 1 < u->max) {
			pdc_counts_grow(u);
			e = pdc_counts_find(u, key);
		}
		u->used++;
	}
	e->key = key;
	e->cnt++;
}

void pdc_counts_dec(struct pdc_counts *u, uint64_t key)
{
	struct pdc_counts_ent *e = pdc_counts_find(u, key);
	uint32_t i, j, home;

	if (!e->cnt || --e->cnt)
		return;
	u->used--;
	/* Backward shift: later entries of the run move into the hole. */
	i = (uint32_t)(e - u->ent);
	for (j = (i + 1) & u->mask; u->ent[j].cnt; j = (j + 1) & u->mask) {
		home = pdc_counts_slot(u, u->ent[j].key);
		/* |j| may move to |i| unless its home lies in (i, j]. */
		if (((j - home) & u->mask) >= ((j - i) & u->mask)) {
			u->ent[i] = u->ent[j];
			u->ent[j].cnt = 0;
			i = j;
		}
	}
}

uint32_t pdc_counts_get(const struct pdc_counts *u, uint64_t key)
{
	return pdc_counts_find(u, key)->cnt;
}
