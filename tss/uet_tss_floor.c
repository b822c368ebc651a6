// SPDX-License-Identifier: BSD-2-Clause
/*
 * Floors of evicted receive streams (uet_tss.h). A receiver keeps full
 * replay windows for the streams it hears now (a cache, uet_tss_ep.c);
 * a stream pushed out leaves its highest TSC here, 32 bytes, so that when
 * it comes back nothing at or below that TSC is accepted again: eviction
 * never reopens a window, however many senders there are.
 *
 * Linear probing over a power-of-two table; a removal shifts the entries
 * of its run back (no tombstones), so that lookups stay short.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tss/uet_tss.h"

#define FLOOR_CAP_MIN	64

/* FNV-1a: ids are not chosen by an attacker (they need the key). */
static size_t floor_hash(const uint8_t *id)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < UET_TSS_FLOOR_ID; i++)
		h = (h ^ id[i]) * 0x100000001b3ull;
	return (size_t)(h ^ h >> 29);
}

static struct uet_tss_floor_ent *floor_find(const struct uet_tss_floors *f,
					    const uint8_t *id)
{
	size_t i;

	if (!f->cap)
		return NULL;
	for (i = floor_hash(id) & (f->cap - 1); f->ent[i].used;
	     i = (i + 1) & (f->cap - 1))
		if (!memcmp(f->ent[i].id, id, UET_TSS_FLOOR_ID))
			return &f->ent[i];
	return NULL;
}

/* The slot |id| goes in (f has room: n < cap). */
static struct uet_tss_floor_ent *floor_slot(struct uet_tss_floors *f,
					    const uint8_t *id)
{
	size_t i = floor_hash(id) & (f->cap - 1);

	while (f->ent[i].used && memcmp(f->ent[i].id, id, UET_TSS_FLOOR_ID))
		i = (i + 1) & (f->cap - 1);
	return &f->ent[i];
}

static int floor_grow(struct uet_tss_floors *f)
{
	struct uet_tss_floors g = { .cap = f->cap ? f->cap * 2 :
					   FLOOR_CAP_MIN };

	g.ent = calloc(g.cap, sizeof(*g.ent));
	if (!g.ent)
		return -ENOMEM;
	for (size_t i = 0; i < f->cap; i++)
		if (f->ent[i].used) {
			*floor_slot(&g, f->ent[i].id) = f->ent[i];
			g.n++;
		}
	free(f->ent);
	*f = g;
	return 0;
}

int uet_tss_floor_put(struct uet_tss_floors *f, const uint8_t *id,
		      uint64_t floor)
{
	struct uet_tss_floor_ent *e = floor_find(f, id);

	if (e) {
		if (floor > e->floor)
			e->floor = floor;
		return 0;
	}
	if ((f->n + 1) * 4 > f->cap * 3 && floor_grow(f) < 0)
		return -ENOMEM;
	e = floor_slot(f, id);
	memcpy(e->id, id, UET_TSS_FLOOR_ID);
	e->floor = floor;
	e->used = true;
	f->n++;
	return 0;
}

bool uet_tss_floor_get(const struct uet_tss_floors *f, const uint8_t *id,
		       uint64_t *floor)
{
	const struct uet_tss_floor_ent *e = floor_find(f, id);

	if (e)
		*floor = e->floor;
	return e != NULL;
}

/* Empties slot |i| and moves back the entries of its run that may. */
static void floor_remove(struct uet_tss_floors *f, size_t i)
{
	size_t mask = f->cap - 1, j = i, home;

	f->ent[i].used = false;
	for (;;) {
		j = (j + 1) & mask;
		if (!f->ent[j].used)
			break;
		home = floor_hash(f->ent[j].id) & mask;
		/* j's entry may fill i when its home is not in (i, j]. */
		if (i <= j ? (home > i && home <= j) :
			     (home > i || home <= j))
			continue;
		f->ent[i] = f->ent[j];
		f->ent[j].used = false;
		i = j;
	}
	f->n--;
}

bool uet_tss_floor_take(struct uet_tss_floors *f, const uint8_t *id,
			uint64_t *floor)
{
	struct uet_tss_floor_ent *e = floor_find(f, id);

	if (!e)
		return false;
	*floor = e->floor;
	floor_remove(f, (size_t)(e - f->ent));
	return true;
}

void uet_tss_floor_drop(struct uet_tss_floors *f, size_t at, uint8_t val)
{
	size_t i = 0;

	if (at >= UET_TSS_FLOOR_ID)
		return;
	/* A removal may move a later entry into i: look at i again. */
	while (i < f->cap) {
		if (f->ent[i].used && f->ent[i].id[at] == val)
			floor_remove(f, i);
		else
			i++;
	}
}

void uet_tss_floor_free(struct uet_tss_floors *f)
{
	free(f->ent);
	memset(f, 0, sizeof(*f));
}
