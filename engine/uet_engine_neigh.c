/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's neighbour cache: the layer-2 next hop of each address we
 * talk to, as the kernel's neighbour table has it. Never the source MAC of
 * a received frame: anyone can write that, and answering it would let a
 * forged frame redirect our traffic.
 *
 * The kernel is asked without waiting (dev/uet_nl.h): a missing entry is
 * resolved by the kernel (NTF_USE) while the engine goes on, and
 * uet_engine_neigh_tick() looks again each millisecond until it resolves,
 * fails, or the entry's timeout passes. Usable entries are read again at
 * most once a second while in use, so a host that changes its MAC is
 * followed. Each entry also carries what the engine counts per host: the
 * peers naming it, and the keyed digest of its address that PDC's
 * per-source limits use (pdc_rx_meta.src).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/uet_nl.h"
#include "engine/uet_engine_priv.h"

#define UET_NEIGH_RECHECK_NS	1000000ull	/* resolving: look again */
/* Resolving and named by no peer (a source we only heard): the tick looks
 * again this seldom; its own next frame makes it look sooner. */
#define UET_NEIGH_RECHECK_IDLE_NS	100000000ull
#define UET_NEIGH_REFRESH_NS	1000000000ull	/* usable: read again */
#define UET_NEIGH_REKICK_NS	1000000000ull	/* resolving: ask again */
#define UET_NEIGH_MIN_FAIL_NS	1000000000ull	/* the kernel's retrans_time */

/* ---- the host digest -------------------------------------------------- */

static uint64_t uet_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/*
 * A digest of |fa| under the engine's random key: a remote host cannot
 * choose addresses that collide with another host's under PDC's
 * per-source limits without knowing the key.
 */
static uint64_t uet_engine_fa_digest(const struct uet_engine *e,
				     const struct uet_fa *fa)
{
	uint64_t w[2], h = e->src_key;

	uet_fa_words(fa, w);
	h = uet_mix64(h ^ w[0]);
	h = uet_mix64(h ^ w[1] ^ (fa->is_v6 ? 6 : 4));
	return h;
}

/* ---- the table ------------------------------------------------------------ */

static uint32_t uet_fa_hash(const struct uet_fa *fa, uint32_t buckets)
{
	uint64_t w[2];

	uet_fa_words(fa, w);
	return (uint32_t)(uet_mix64(w[0] ^ uet_mix64(w[1])) % buckets);
}

int uet_engine_neigh_find(const struct uet_engine *e, const struct uet_fa *fa)
{
	uint32_t i = e->neigh_hash[uet_fa_hash(fa, e->neigh_hash_mask + 1)];

	for (; i; i = e->neigh[i - 1].hash_next) {
		const struct uet_engine_neigh *n = &e->neigh[i - 1];

		if (uet_fa_equal(&n->fa, fa))
			return (int)(i - 1);
	}
	return -ENOENT;
}

static void uet_engine_neigh_unhash(struct uet_engine *e, uint32_t idx)
{
	uint32_t *link = &e->neigh_hash[uet_fa_hash(&e->neigh[idx].fa,
						    e->neigh_hash_mask + 1)];

	while (*link && *link != idx + 1)
		link = &e->neigh[*link - 1].hash_next;
	if (*link)
		*link = e->neigh[idx].hash_next;
}

static void uet_engine_neigh_link(struct uet_engine *e, uint32_t idx)
{
	uint32_t *head = &e->neigh_hash[uet_fa_hash(&e->neigh[idx].fa,
						    e->neigh_hash_mask + 1)];

	e->neigh[idx].hash_next = *head;
	*head = idx + 1;
}

/*
 * Twice the buckets once there are more entries than buckets (entries are
 * only ever added: a full table reuses slots); a failed allocation keeps
 * the old hash.
 */
static void uet_engine_neigh_hash_grow(struct uet_engine *e)
{
	uint32_t n = (e->neigh_hash_mask + 1) * 2, *h;

	if (e->nneigh < e->neigh_hash_mask + 1)
		return;
	h = calloc(n, sizeof(*h));
	if (!h)
		return;
	free(e->neigh_hash);
	e->neigh_hash = h;
	e->neigh_hash_mask = n - 1;
	for (uint32_t i = 0; i < e->nneigh; i++)
		uet_engine_neigh_link(e, i);
}

/*
 * A slot for a new entry: a never used one, else the least recently used
 * entry that no peer names (the rest of a flood of forged sources).
 */
static int uet_engine_neigh_slot(struct uet_engine *e)
{
	int best = -1;

	if (e->nneigh < e->neigh_max)
		return (int)e->nneigh++;
	for (uint32_t i = 0; i < e->neigh_max; i++) {
		const struct uet_engine_neigh *n = &e->neigh[i];

		if (!n->refs && !n->local &&
		    (best < 0 || n->used_ns < e->neigh[best].used_ns))
			best = (int)i;
	}
	if (best >= 0)
		uet_engine_neigh_unhash(e, (uint32_t)best);
	return best;
}

static int uet_engine_neigh_new(struct uet_engine *e, const struct uet_fa *fa)
{
	int idx = uet_engine_neigh_slot(e);
	struct uet_engine_neigh *n;

	if (idx < 0)
		return -ENOSPC;
	n = &e->neigh[idx];
	memset(n, 0, sizeof(*n));
	n->fa = *fa;
	n->src = uet_engine_fa_digest(e, fa);
	n->used_ns = e->now_ns ? e->now_ns : uet_engine_now_ns();
	n->timeout_ns = UET_ENGINE_NEIGH_TIMEOUT_NS;
	/* Another endpoint of our interface: frames to our own MAC stay on
	 * it (dev/uet_xsk.c delivers them), the kernel has no route. */
	if (uet_fa_equal(fa, &e->cfg.local)) {
		n->local = true;
		n->state = UET_NEIGH_VALID;
		n->has_mac = true;
		memcpy(n->mac, e->mac, 6);
	} else {
		n->state = UET_NEIGH_RESOLVING;
		n->since_ns = n->used_ns;
	}
	uet_engine_neigh_link(e, (uint32_t)idx);
	uet_engine_neigh_hash_grow(e);
	return idx;
}

/* ---- asking the kernel ---------------------------------------------------- */

/*
 * Kernel lookups in the current millisecond: each is a netlink exchange
 * (a few microseconds), and a flood of forged sources must not turn into
 * a flood of them. Lookups that do not fit wait for the next tick.
 */
static bool uet_engine_nl_budget(struct uet_engine *e, uint64_t now)
{
	if (now - e->nl_budget_ns >= UET_NEIGH_RECHECK_NS) {
		e->nl_budget_ns = now;
		e->nl_budget = UET_ENGINE_NL_BUDGET;
	}
	if (!e->nl_budget)
		return false;
	e->nl_budget--;
	return true;
}

static void uet_engine_neigh_kick(struct uet_engine *e,
				  struct uet_engine_neigh *n, uint64_t now)
{
	n->kicked_ns = now;
	n->no_entry = uet_nl_hop_resolve(e->nl, &n->hop, n->fa.is_v6) ==
		      -ENOBUFS;
}

/*
 * The kernel made no entry for a hop we asked it to resolve (our datagram
 * to it failed ENOBUFS): its neighbour table is full. It is one table for
 * every namespace of the host, of at most net.ipv4.neigh.default.
 * gc_thresh3 entries (1024 by default): said once, as its peers fail
 * -ENOBUFS instead of a plain -EHOSTUNREACH.
 */
static void uet_engine_neigh_warn_full(struct uet_engine *e)
{
	if (e->warned_neigh_full || !e->ops.warn)
		return;
	e->warned_neigh_full = true;
	e->ops.warn(e->ctx, "peers unreachable: the kernel made no neighbour "
		    "(ARP/ND) entry for their next hops, its table full? "
		    "(net.ipv4.neigh.default.gc_thresh3, .ipv6. for IPv6: "
		    "one table for all the host's namespaces)");
}

/*
 * |n| failed (n->err set): with UET_ENGINE_DEBUG, why, for a job whose
 * peers come out unreachable: the kernel's last state of the hop, how
 * long this attempt lasted and whether the kernel was seen resolving.
 */
static void uet_engine_neigh_failed(struct uet_engine *e,
				    struct uet_engine_neigh *n, uint64_t now)
{
	char a[INET6_ADDRSTRLEN], msg[256];

	n->state = UET_NEIGH_FAILED;
	if (!getenv("UET_ENGINE_DEBUG"))
		return;
	snprintf(msg, sizeof(msg), "next hop of %s failed: %s (kernel "
		 "state %u, %llu ms since asked, resolving seen %d, refs %u)",
		 uet_engine_fa_str(&n->fa, a, sizeof(a)),
		 strerror(-n->err), n->hop.nud,
		 /* since_ns may be read later than |now| was */
		 (unsigned long long)(now > n->since_ns ?
				      (now - n->since_ns) / 1000000 : 0),
		 n->seen_pending, n->refs);
	uet_engine_note(e, msg);
}

/* What the kernel said of a resolving entry. */
static void uet_engine_neigh_pending(struct uet_engine *e,
				     struct uet_engine_neigh *n,
				     const struct uet_nl_hop *hop, uint64_t now)
{
	/*
	 * FAILED counts only once this attempt saw the kernel try, for
	 * longer than one of its probe intervals: an entry that failed
	 * before we asked, or an earlier attempt's probing that ends just
	 * after we asked, restarts with our request.
	 */
	if (hop->nud == UET_NL_NUD_FAILED && n->seen_pending &&
	    now - n->since_ns >= UET_NEIGH_MIN_FAIL_NS) {
		n->err = -EHOSTUNREACH;
		uet_engine_neigh_failed(e, n, now);
		return;
	}
	if (hop->nud == UET_NL_NUD_PENDING)
		n->seen_pending = true;
	if (now - n->since_ns >= n->timeout_ns) {
		/* Never resolving: the kernel could make no entry for it. */
		n->err = n->no_entry && !n->seen_pending ? -ENOBUFS :
							   -EHOSTUNREACH;
		if (n->err == -ENOBUFS)
			uet_engine_neigh_warn_full(e);
		uet_engine_neigh_failed(e, n, now);
		return;
	}
	if (!n->kicked_ns || now - n->kicked_ns >= UET_NEIGH_REKICK_NS ||
	    hop->nud == UET_NL_NUD_NONE || hop->nud == UET_NL_NUD_FAILED)
		uet_engine_neigh_kick(e, n, now);
}

/*
 * Reads the kernel's entry for |n| now and updates it. A usable entry
 * that the kernel forgot keeps its MAC: frames keep going where they went
 * (the kernel learns it again from the host's next ARP or ND).
 */
static void uet_engine_neigh_query(struct uet_engine *e,
				   struct uet_engine_neigh *n, uint64_t now)
{
	struct uet_nl_hop hop;
	int ret;

	n->checked_ns = now;
	ret = uet_nl_hop_lookup(e->nl, &n->fa.v6, n->fa.is_v6, &hop);
	if (ret == 0 && hop.ifindex != e->ifindex)
		ret = -ENETUNREACH;	/* not reachable through our socket */
	if (ret < 0) {
		if (!n->has_mac) {
			n->err = ret;
			uet_engine_neigh_failed(e, n, now);
		}
		return;
	}
	n->hop = hop;
	if (hop.nud == UET_NL_NUD_USABLE) {
		if (n->has_mac && memcmp(n->mac, hop.mac, 6))
			e->stats.neigh_changed++;
		memcpy(n->mac, hop.mac, 6);
		n->has_mac = true;
		n->state = UET_NEIGH_VALID;
		n->err = 0;
		return;
	}
	if (n->state == UET_NEIGH_RESOLVING)
		uet_engine_neigh_pending(e, n, &hop, now);
}

/* Starts resolving |n| again (it failed, or was never asked). */
void uet_engine_neigh_restart(struct uet_engine *e, uint32_t idx,
			      uint64_t timeout_ns)
{
	struct uet_engine_neigh *n = &e->neigh[idx];
	uint64_t now = e->now_ns ? e->now_ns : uet_engine_now_ns();

	if (n->state != UET_NEIGH_FAILED && n->state != UET_NEIGH_RESOLVING)
		return;
	if (n->state == UET_NEIGH_FAILED) {
		n->state = UET_NEIGH_RESOLVING;
		n->since_ns = now;
		n->seen_pending = false;
		n->kicked_ns = 0;
		n->checked_ns = 0;
	}
	if (timeout_ns > n->timeout_ns)
		n->timeout_ns = timeout_ns;
}

/* As uet_engine_neigh_restart(), and asks the kernel at once. */
void uet_engine_neigh_retry(struct uet_engine *e, uint32_t idx)
{
	struct uet_engine_neigh *n = &e->neigh[idx];

	uet_engine_neigh_restart(e, idx, 0);
	if (n->state == UET_NEIGH_RESOLVING)
		uet_engine_neigh_query(e, n, e->now_ns ? e->now_ns :
						   uet_engine_now_ns());
}

/*
 * The entry for |fa|, made when new. The kernel is asked at once about a
 * new one, and again about a resolving one at most each millisecond, so
 * that an answer it has is used without waiting for a tick: within the
 * lookup budget for frames (|budgeted|), always otherwise. A source that
 * failed is tried again after a second.
 * Returns the index or -ENOSPC.
 */
int uet_engine_neigh_get(struct uet_engine *e, const struct uet_fa *fa,
			 bool budgeted)
{
	uint64_t now = e->now_ns ? e->now_ns : uet_engine_now_ns();
	int idx = uet_engine_neigh_find(e, fa);
	struct uet_engine_neigh *n;

	if (idx < 0)
		idx = uet_engine_neigh_new(e, fa);
	if (idx < 0)
		return idx;
	n = &e->neigh[idx];
	n->used_ns = now;
	if (n->state == UET_NEIGH_FAILED && budgeted &&
	    now - n->checked_ns >= UET_NEIGH_REFRESH_NS)
		uet_engine_neigh_restart(e, (uint32_t)idx, 0);
	if (n->state == UET_NEIGH_RESOLVING &&
	    (!n->checked_ns || now - n->checked_ns >= UET_NEIGH_RECHECK_NS) &&
	    (!budgeted || uet_engine_nl_budget(e, now)))
		uet_engine_neigh_query(e, n, now);
	return idx;
}

/*
 * Each millisecond of progress: resolving entries are looked at again,
 * usable ones in use are read again once a second; within the budget.
 * UET_ENGINE_NEIGH_BATCH entries a tick, from where the last scan stopped
 * (the end of its batch, or where it ran out of budget): a cache of many
 * hosts costs no more per tick, and a flood of forged sources being
 * resolved delays the others' turn, never stops it.
 */
void uet_engine_neigh_tick(struct uet_engine *e)
{
	uint64_t now = e->now_ns;
	uint32_t batch, start;

	if (!e->nneigh)
		return;
	batch = e->nneigh < UET_ENGINE_NEIGH_BATCH ? e->nneigh :
						     UET_ENGINE_NEIGH_BATCH;
	start = e->neigh_cursor % e->nneigh;
	e->neigh_cursor = (start + batch) % e->nneigh;
	for (uint32_t k = 0; k < batch; k++) {
		uint32_t i = (start + k) % e->nneigh;
		struct uet_engine_neigh *n = &e->neigh[i];
		bool due;

		if (n->local)
			continue;
		if (n->state == UET_NEIGH_RESOLVING)
			due = now - n->checked_ns >= (n->refs ?
			      UET_NEIGH_RECHECK_NS : UET_NEIGH_RECHECK_IDLE_NS);
		else if (n->state == UET_NEIGH_VALID)
			due = n->refs && n->used_ns > n->checked_ns &&
			      now - n->checked_ns >= UET_NEIGH_REFRESH_NS;
		else
			due = false;
		if (!due)
			continue;
		if (!uet_engine_nl_budget(e, now)) {
			e->neigh_cursor = i;
			break;
		}
		uet_engine_neigh_query(e, n, now);
	}
}
