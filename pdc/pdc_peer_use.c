/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How many things of the manager name each peer: its PDCs of both roles,
 * its NACKs and UUD packets queued. The engine asks for every peer it
 * would age (pdc_peer_in_use), and a table of many thousand peers must
 * not cost a scan of every PDC each time. An open-addressed map of the
 * peers named at all, so it holds at most max_pdcs + the queues' lengths
 * entries; deletion shifts back, so lookups need no tombstones.
 */
#include <errno.h>
#include <stdlib.h>

#include "pdc/pdc_priv.h"

static uint32_t pdc_use_slot(const struct pdc_peer_use *u, uint32_t peer)
{
	return (uint32_t)(((uint64_t)peer * 0x9E3779B97F4A7C15ull) >> 32) &
	       u->mask;
}

int pdc_peer_use_init(struct pdc_peer_use *u, uint32_t most)
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

void pdc_peer_use_fini(struct pdc_peer_use *u)
{
	free(u->ent);
	u->ent = NULL;
}

/* The entry of |peer|, or the empty one where it would go. */
static struct pdc_peer_use_ent *pdc_use_find(const struct pdc_peer_use *u,
					     uint32_t peer)
{
	uint32_t i = pdc_use_slot(u, peer);

	while (u->ent[i].cnt && u->ent[i].peer != peer)
		i = (i + 1) & u->mask;
	return &u->ent[i];
}

void pdc_peer_use_inc(struct pdc_peer_use *u, uint32_t peer)
{
	struct pdc_peer_use_ent *e = pdc_use_find(u, peer);

	e->peer = peer;
	e->cnt++;
}

void pdc_peer_use_dec(struct pdc_peer_use *u, uint32_t peer)
{
	struct pdc_peer_use_ent *e = pdc_use_find(u, peer);
	uint32_t i, j, home;

	if (!e->cnt || --e->cnt)
		return;
	/* Backward shift: later entries of the run move into the hole. */
	i = (uint32_t)(e - u->ent);
	for (j = (i + 1) & u->mask; u->ent[j].cnt; j = (j + 1) & u->mask) {
		home = pdc_use_slot(u, u->ent[j].peer);
		/* |j| may move to |i| unless its home lies in (i, j]. */
		if (((j - home) & u->mask) >= ((j - i) & u->mask)) {
			u->ent[i] = u->ent[j];
			u->ent[j].cnt = 0;
			i = j;
		}
	}
}

bool pdc_peer_use_any(const struct pdc_peer_use *u, uint32_t peer)
{
	return pdc_use_find(u, peer)->cnt != 0;
}
