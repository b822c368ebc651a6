/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AV's table, sized for a million peers: its slots, FI_AV_MAP's list
 * of removed slots, and the reverse index (source address and initiator
 * to fi_addr) that FI_SOURCE asks on every receive.
 *
 * Slots live in chunks (UET_AV_CHUNK, uet.h), so that growing never
 * copies the table and costs at most one chunk beyond the last slot. The
 * index is a chained hash whose links are in the slots themselves, one
 * u32 head per bucket, as many buckets as addresses or up to twice that:
 * 36 + 4 to 8 bytes an address. Lookups, reverse lookups, insertions and
 * reuse are O(1); a removal walks one chain (O(k) when k slots hold the
 * very same address). The caller holds the domain lock.
 */
#include <stdlib.h>
#include <string.h>

#include "uet/uet.h"

/* The budget fi_uet(7) states: 36 bytes a slot. */
_Static_assert(sizeof(struct uet_av_entry) == 36, "AV entry grew");

#define UET_AV_MIN_BUCKETS	64
/* An AV's count hint presizes the index up to this many buckets. */
#define UET_AV_HINT_BUCKETS	(1u << 20)

static struct uet_av_entry *uet_av_at(const struct uet_av *av, uint32_t i)
{
	return &av->chunk[i >> UET_AV_CHUNK_SHIFT][i & (UET_AV_CHUNK - 1)];
}

static fi_addr_t uet_av_fi_addr(const struct uet_av *av, uint32_t i,
				uint32_t gen)
{
	return av->type == FI_AV_MAP ? (fi_addr_t)gen << 32 | i : i;
}

/* The 16 bytes an address is indexed by. */
static void uet_av_key(const struct uet_fa *fa, uint8_t ip[16])
{
	memset(ip, 0, 16);
	if (fa->is_v6)
		memcpy(ip, &fa->v6, 16);
	else
		memcpy(ip, &fa->v4, 4);
}

static uint32_t uet_av_hash(const uint8_t ip[16], uint32_t initiator)
{
	uint64_t w[2], h;

	memcpy(w, ip, sizeof(w));
	h = (w[0] ^ (uint64_t)initiator << 32) * 0x9e3779b97f4a7c15ull;
	h ^= w[1] * 0xc2b2ae3d27d4eb4full;
	/* splitmix64's finaliser: the low bits pick the bucket. */
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

static uint32_t *uet_av_head(const struct uet_av *av,
			     const struct uet_av_entry *e)
{
	return &av->bucket[uet_av_hash(e->ip, e->initiator) &
			   (av->nbucket - 1)];
}

static void uet_av_index_add(struct uet_av *av, uint32_t i,
			     struct uet_av_entry *e)
{
	uint32_t *head = uet_av_head(av, e);

	e->next = *head;
	*head = i;
}

/* A new index of |n| buckets, every address in it. */
static int uet_av_index_resize(struct uet_av *av, uint32_t n)
{
	struct uet_av_entry *e;
	uint32_t *b = malloc(n * sizeof(*b));

	if (!b)
		return -FI_ENOMEM;
	memset(b, 0xff, n * sizeof(*b));	/* UET_AV_NIL */
	free(av->bucket);
	av->bucket = b;
	av->nbucket = n;
	for (uint32_t i = 0; i < av->used; i++) {
		e = uet_av_at(av, i);
		if (e->flags & UET_AV_E_USED)
			uet_av_index_add(av, i, e);
	}
	return 0;
}

int uet_av_tbl_init(struct uet_av *av, size_t count_hint)
{
	uint32_t n = UET_AV_MIN_BUCKETS;

	while (n < count_hint && n < UET_AV_HINT_BUCKETS)
		n *= 2;
	av->free_head = UET_AV_NIL;
	return uet_av_index_resize(av, n);
}

void uet_av_tbl_fini(struct uet_av *av)
{
	for (uint32_t c = 0; c < av->nchunk; c++)
		free(av->chunk[c]);
	free(av->chunk);
	free(av->bucket);
	av->chunk = NULL;
	av->bucket = NULL;
	av->nchunk = av->chunk_room = av->cap = av->used = av->count = 0;
}

/* Room for one more slot: the first chunk doubles, then whole chunks. */
static int uet_av_grow(struct uet_av *av)
{
	struct uet_av_entry *c, **cs;
	uint32_t n;

	if (av->cap < UET_AV_CHUNK) {
		n = av->cap ? av->cap * 2 : UET_AV_DEF_SIZE;
		c = realloc(av->nchunk ? av->chunk[0] : NULL, n * sizeof(*c));
		if (!c)
			return -FI_ENOMEM;
		if (!av->nchunk) {
			cs = malloc(sizeof(*cs));
			if (!cs) {
				free(c);
				return -FI_ENOMEM;
			}
			av->chunk = cs;
			av->chunk_room = av->nchunk = 1;
		}
		av->chunk[0] = c;
		av->cap = n;
		return 0;
	}
	if (av->nchunk == av->chunk_room) {
		n = av->chunk_room * 2;
		cs = realloc(av->chunk, n * sizeof(*cs));
		if (!cs)
			return -FI_ENOMEM;
		av->chunk = cs;
		av->chunk_room = n;
	}
	c = malloc(UET_AV_CHUNK * sizeof(*c));
	if (!c)
		return -FI_ENOMEM;
	av->chunk[av->nchunk++] = c;
	av->cap += UET_AV_CHUNK;
	return 0;
}

/* A slot to fill: a removed one for FI_AV_MAP, else the next new one. */
static int uet_av_take(struct uet_av *av, uint32_t *idx)
{
	struct uet_av_entry *e;
	int ret;

	if (av->free_head != UET_AV_NIL) {
		*idx = av->free_head;
		av->free_head = uet_av_at(av, *idx)->next;
		return 0;
	}
	if (av->used == UET_AV_MAX) {
		/* Sparse: an insertion of many would warn for each. */
		FI_WARN_SPARSE(&uet_prov, FI_LOG_AV,
			       "av full: %u addresses inserted, the most an "
			       "AV holds (UET_AV_MAX)\n", UET_AV_MAX);
		return -FI_ENOSPC;
	}
	if (av->used == av->cap) {
		ret = uet_av_grow(av);
		if (ret)
			return ret;
	}
	e = uet_av_at(av, av->used);
	e->gen = 0;
	*idx = av->used++;
	return 0;
}

int uet_av_tbl_put(struct uet_av *av, const struct uet_addr *a,
		   fi_addr_t *fi_addr)
{
	struct uet_av_entry *e;
	uint32_t i;
	int ret;

	/* Chains stay one long on average: the index doubles first. */
	if (av->count >= av->nbucket && av->nbucket < UET_AV_MAX) {
		ret = uet_av_index_resize(av, av->nbucket * 2);
		if (ret)
			return ret;
	}
	ret = uet_av_take(av, &i);
	if (ret)
		return ret;
	e = uet_av_at(av, i);
	uet_av_key(&a->fa, e->ip);
	e->initiator = a->initiator;
	e->gen = e->gen + 1 ? e->gen + 1 : 1;
	e->pid_on_fep = a->pid_on_fep;
	e->ri_base = a->ri_base;
	e->fep_caps = a->fep_caps;
	e->flags = UET_AV_E_USED | (a->fa.is_v6 ? UET_AV_E_V6 : 0);
	e->pad = 0;
	uet_av_index_add(av, i, e);
	av->count++;
	*fi_addr = uet_av_fi_addr(av, i, e->gen);
	return 0;
}

const struct uet_av_entry *uet_av_entry_get(const struct uet_av *av,
					    fi_addr_t addr)
{
	const struct uet_av_entry *e;
	uint32_t i = (uint32_t)addr;

	if (!av || i >= av->used)
		return NULL;
	e = uet_av_at(av, i);
	if (!(e->flags & UET_AV_E_USED))
		return NULL;
	/* FI_AV_TABLE: the slot number alone; FI_AV_MAP: and its gen. */
	if (addr >> 32 != (av->type == FI_AV_MAP ? e->gen : 0))
		return NULL;
	return e;
}

/* Takes |addr|, which uet_av_entry_get() accepted, out of the AV. */
void uet_av_tbl_del(struct uet_av *av, fi_addr_t addr)
{
	uint32_t i = uet_av_slot_of(addr);
	struct uet_av_entry *e = uet_av_at(av, i);
	uint32_t *link = uet_av_head(av, e);

	while (*link != i)
		link = &uet_av_at(av, *link)->next;
	*link = e->next;
	e->flags = 0;
	av->count--;
	/* FI_AV_TABLE never hands a slot out twice. */
	if (av->type == FI_AV_MAP) {
		e->next = av->free_head;
		av->free_head = i;
	}
}

void uet_av_entry_fa(const struct uet_av_entry *e, struct uet_fa *fa)
{
	memset(fa, 0, sizeof(*fa));
	fa->is_v6 = e->flags & UET_AV_E_V6;
	if (fa->is_v6)
		memcpy(&fa->v6, e->ip, 16);
	else
		memcpy(&fa->v4, e->ip, 4);
}

void uet_av_entry_addr(const struct uet_av_entry *e, struct uet_addr *a)
{
	memset(a, 0, sizeof(*a));
	uet_av_entry_fa(e, &a->fa);
	a->fep_caps = e->fep_caps;
	a->pid_on_fep = e->pid_on_fep;
	a->ri_base = e->ri_base;
	a->initiator = e->initiator;
}

fi_addr_t uet_av_reverse(const struct uet_av *av, const struct uet_fa *fa,
			 uint32_t initiator)
{
	const struct uet_av_entry *e;
	uint8_t ip[16];
	uint8_t flags = UET_AV_E_USED | (fa->is_v6 ? UET_AV_E_V6 : 0);

	uet_av_key(fa, ip);
	for (uint32_t i = av->bucket[uet_av_hash(ip, initiator) &
				     (av->nbucket - 1)];
	     i != UET_AV_NIL; i = e->next) {
		e = uet_av_at(av, i);
		if (e->initiator == initiator && e->flags == flags &&
		    !memcmp(e->ip, ip, sizeof(ip)))
			return uet_av_fi_addr(av, i, e->gen);
	}
	return FI_ADDR_NOTAVAIL;
}
