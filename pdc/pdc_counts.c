/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Counts by key that the manager keeps as things come and go, so that the
 * questions asked for every peer the engine would age and for every SYN
 * cost O(1) instead of a scan of every PDC: what names each peer (PDCs of
 * both roles, queued NACKs and UUD packets: pdc_peer_in_use), the live
 * target PDCs of each peer and the target PDCs of each source host
 * (pdc_tgt_admit.c's census). An open-addressed map of the keys counted
 * at all, so it holds at most max_pdcs + the queues' lengths entries;
 * deletion shifts back, so lookups need no tombstones.
 */
#include <errno.h>
#include <stdlib.h>

#include "pdc/pdc_priv.h"

static uint32_t pdc_counts_slot(const struct pdc_counts *u, uint64_t key)
{
	key ^= key >> 31;
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & u->mask;
}

int pdc_counts_init(struct pdc_counts *u, uint32_t most)
{
	uint32_t cap = 16;

	/* At most half full: probe runs stay short. */
	while (cap < 2 * (uint64_t)most)
		cap *= 2;
	u->ent = calloc(cap, sizeof(*u->ent));
	if (!u->ent)
		return -ENOMEM;
	u->mask = cap - 1;
	return 0;
}

void pdc_counts_fini(struct pdc_counts *u)
{
	free(u->ent);
	u->ent = NULL;
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

void pdc_counts_inc(struct pdc_counts *u, uint64_t key)
{
	struct pdc_counts_ent *e = pdc_counts_find(u, key);

	e->key = key;
	e->cnt++;
}

void pdc_counts_dec(struct pdc_counts *u, uint64_t key)
{
	struct pdc_counts_ent *e = pdc_counts_find(u, key);
	uint32_t i, j, home;

	if (!e->cnt || --e->cnt)
		return;
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
