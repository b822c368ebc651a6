/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's peer table itself: ids, the (address, tag) -> id hash, and
 * the list of peers with operations outstanding. Sized by cfg.max_peers
 * (FI_UET_MAX_PEERS): the arrays are reserved at that size and take pages
 * as ids are first given (uet_vm.h); the hash doubles as peers come, so
 * its chains stay under two long on average. What a peer is and when it
 * goes: uet_engine_peer.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/uet_engine_priv.h"
#include "uet_vm.h"

/* ---- set-up ---------------------------------------------------------------- */

static uint32_t *uet_engine_hash_alloc(uint32_t buckets)
{
	return calloc(buckets, sizeof(uint32_t));
}

int uet_engine_peers_setup(struct uet_engine *e)
{
	uint32_t max = e->cfg.max_peers ? e->cfg.max_peers :
					  UET_ENGINE_MAX_PEERS_DEF;

	if (max < 16 || max > UET_ENGINE_MAX_PEERS_MAX)
		return -EINVAL;
	e->max_peers = max;
	e->live_per_src = max / 4;
	e->live_max = max / 4 * 3;
	e->peers = uet_vm_reserve((size_t)max * sizeof(*e->peers));
	e->free_ids = uet_vm_reserve((size_t)max * sizeof(uint32_t));
	e->busy = uet_vm_reserve((size_t)max * sizeof(uint32_t));
	e->peer_hash_mask = UET_ENGINE_PEER_HASH_MIN - 1;
	e->peer_hash = uet_engine_hash_alloc(UET_ENGINE_PEER_HASH_MIN);
	/* A host per peer at most, and the provisional ones' hosts. */
	e->neigh_max = max + UET_ENGINE_PROV_MAX;
	e->neigh = uet_vm_reserve((size_t)e->neigh_max * sizeof(*e->neigh));
	e->neigh_hash_mask = UET_ENGINE_NEIGH_HASH_MIN - 1;
	e->neigh_hash = uet_engine_hash_alloc(UET_ENGINE_NEIGH_HASH_MIN);
	if (!e->peers || !e->free_ids || !e->busy || !e->peer_hash ||
	    !e->neigh || !e->neigh_hash)
		return -ENOMEM;
	return 0;
}

void uet_engine_peers_destroy(struct uet_engine *e)
{
	for (uint32_t i = 0; i < e->nbusy; i++)
		free(e->peers[e->busy[i]].probe);
	uet_vm_release(e->peers, (size_t)e->max_peers * sizeof(*e->peers));
	uet_vm_release(e->free_ids, (size_t)e->max_peers * sizeof(uint32_t));
	uet_vm_release(e->busy, (size_t)e->max_peers * sizeof(uint32_t));
	uet_vm_release(e->neigh, (size_t)e->neigh_max * sizeof(*e->neigh));
	free(e->peer_hash);
	free(e->neigh_hash);
}

/* ---- (address, tag) -> id ------------------------------------------------- */

static uint32_t uet_peer_hash(const struct uet_fa *fa, uint32_t tag,
			      uint32_t mask)
{
	uint64_t w[2];

	uet_fa_words(fa, w);
	w[0] ^= (w[1] + tag) * 0x9E3779B97F4A7C15ull;
	w[0] ^= w[0] >> 29;
	return (uint32_t)((w[0] * 0xBF58476D1CE4E5B9ull) >> 32) & mask;
}

int uet_engine_peer_find(const struct uet_engine *e, const struct uet_fa *fa,
			 uint32_t tag)
{
	uint32_t i = e->peer_hash[uet_peer_hash(fa, tag, e->peer_hash_mask)];

	for (; i; i = e->peers[i - 1].hash_next) {
		const struct uet_engine_peer *p = &e->peers[i - 1];

		if (p->tag == tag && uet_fa_equal(&p->fa, fa))
			return (int)(i - 1);
	}
	return -ENOENT;
}

static void uet_engine_peer_link(struct uet_engine *e, uint32_t id)
{
	struct uet_engine_peer *p = &e->peers[id];
	uint32_t *head = &e->peer_hash[uet_peer_hash(&p->fa, p->tag,
						     e->peer_hash_mask)];

	p->hash_next = *head;
	*head = id + 1;
}

static void uet_engine_peer_unhash(struct uet_engine *e, uint32_t id)
{
	const struct uet_engine_peer *p = &e->peers[id];
	uint32_t *link = &e->peer_hash[uet_peer_hash(&p->fa, p->tag,
						     e->peer_hash_mask)];

	while (*link && *link != id + 1)
		link = &e->peers[*link - 1].hash_next;
	if (*link)
		*link = p->hash_next;
}

/*
 * Twice the buckets once there are more peers than buckets: a rehash of
 * every peer, each doubling, so O(1) per peer added over its life. A
 * failed allocation keeps the old hash (longer chains, still correct).
 */
static void uet_engine_peer_hash_grow(struct uet_engine *e)
{
	uint32_t n = (e->peer_hash_mask + 1) * 2, *h;

	if (e->nused < e->peer_hash_mask + 1 || n > 2 * e->max_peers)
		return;
	h = uet_engine_hash_alloc(n);
	if (!h)
		return;
	free(e->peer_hash);
	e->peer_hash = h;
	e->peer_hash_mask = n - 1;
	for (uint32_t id = 0; id < e->npeers; id++)
		if (e->peers[id].state != UET_PEER_FREE)
			uet_engine_peer_link(e, id);
}

/* ---- ids ---------------------------------------------------------------- */

int uet_engine_peer_add(struct uet_engine *e, const struct uet_fa *fa,
			uint32_t tag, uint8_t state, uint32_t nb)
{
	struct uet_engine_peer *p;
	uint32_t id, epoch;

	if (e->nfree_ids)
		id = e->free_ids[--e->nfree_ids];
	else if (e->npeers < e->max_peers)
		id = e->npeers++;
	else
		return -ENOSPC;
	p = &e->peers[id];
	/* A reused id's packets still held (none: PDC let it go) would
	 * belong to its earlier holder: a new epoch keeps them apart. */
	epoch = p->epoch + 1;
	memset(p, 0, sizeof(*p));
	p->epoch = epoch;
	p->fa = *fa;
	p->tag = tag;
	p->state = state;
	p->remote_ep = -1;
	p->nb = nb;
	p->heard_ns = e->now_ns ? e->now_ns : uet_engine_now_ns();
	e->neigh[nb].refs++;
	if (state == UET_PEER_PROVISIONAL) {
		e->neigh[nb].prov++;
		e->prov_ids[e->nprov++] = id;
	}
	e->nused++;
	uet_engine_peer_link(e, id);
	uet_engine_peer_hash_grow(e);
	return (int)id;
}

/* |id| leaves the provisional list (it was on it). */
void uet_engine_prov_del(struct uet_engine *e, uint32_t id)
{
	for (uint32_t i = 0; i < e->nprov; i++) {
		if (e->prov_ids[i] == id) {
			e->prov_ids[i] = e->prov_ids[--e->nprov];
			break;
		}
	}
	e->neigh[e->peers[id].nb].prov--;
}

void uet_engine_peer_free(struct uet_engine *e, uint32_t id)
{
	struct uet_engine_peer *p = &e->peers[id];
	struct uet_engine_neigh *n = &e->neigh[p->nb];

	uet_engine_peer_unhash(e, id);
	n->refs--;
	if (p->state == UET_PEER_PROVISIONAL) {
		uet_engine_prov_del(e, id);
	} else if (p->state == UET_PEER_LIVE && (p->tag & UET_ENGINE_TAG_EP)) {
		n->live_ep--;
		e->nlive_ep--;
	}
	p->state = UET_PEER_FREE;
	p->epoch++;
	e->free_ids[e->nfree_ids++] = id;
	e->nused--;
	e->stats.peers_aged++;
}

/* ---- peers with operations outstanding ---------------------------------- */

/* |peer| has something outstanding, or was found gone: the silence check
 * (uet_engine_silent_peers) looks at it until it has neither. */
void uet_engine_busy_add(struct uet_engine *e, uint32_t peer)
{
	struct uet_engine_peer *p = &e->peers[peer];

	if (p->busy_listed)
		return;
	p->busy_listed = true;
	e->busy[e->nbusy++] = peer;
}
