/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Admission of new target PDCs against hostile peers: SYN cookies (the
 * 1-RTT secure setup of ref 2.9, RP), per-host limits, and eviction before
 * refusal. Called only when a SYN names no PDC we hold (pdc_tgt.c), which
 * is rare next to established traffic: scanning the table (max_pdcs <=
 * 4096) here is fine, and the per-packet path of established PDCs never
 * comes here.
 *
 * Cookie. A start PSN the target mints without keeping anything: a keyed
 * hash of (secret, src, SPDCID, epoch), epoch = now_ns >> 32 (~4.3 s); the
 * current and the previous epoch are valid. The target sends it in NACK
 * NEW_START_PSN; the initiator renumbers its PDC, still in SYN, to it and
 * resends. A SYN whose start PSN is a valid cookie is "confirmed": its
 * sender receives frames at the address it claims, so it is no spoofer.
 *
 * Tombstones. An evicted PDC leaves a small record (key, start PSN, until
 * its TIME_WAIT would have ended): a late SYN copy of it, which would pass
 * a cookie check as well as a 0-RTT one, is answered INV_DPDCID instead of
 * opening a fresh PDC that would deliver its packets a second time. A
 * record is never dropped before its time: with no room for one there is
 * no eviction (PDC_TOMBS_PER_PDC records per slot, and one src may hold
 * no more records than its share of PDCs, so one host cannot use them up).
 */
#include <stdlib.h>

#include "pdc/pdc_priv.h"

#define PDC_EPOCH_SHIFT		32		/* cookie epoch: ~4.3 s */

static uint64_t pdc_rotl(uint64_t v, int n)
{
	return v << n | v >> (64 - n);
}

static void pdc_sip_round(uint64_t v[4])
{
	v[0] += v[1]; v[1] = pdc_rotl(v[1], 13); v[1] ^= v[0];
	v[0] = pdc_rotl(v[0], 32);
	v[2] += v[3]; v[3] = pdc_rotl(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = pdc_rotl(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = pdc_rotl(v[1], 17); v[1] ^= v[2];
	v[2] = pdc_rotl(v[2], 32);
}

/*
 * SipHash-2-4 rounds over two fixed words (fixed length, so no length
 * byte): a keyed PRF that a peer seeing its own cookies cannot turn into
 * the cookies of another address.
 */
static uint64_t pdc_prf(const struct pdc_mgr *mgr, uint64_t a, uint64_t b)
{
	uint64_t v[4] = {
		mgr->cookie_key[0] ^ 0x736f6d6570736575ull,
		mgr->cookie_key[1] ^ 0x646f72616e646f6dull,
		mgr->cookie_key[0] ^ 0x6c7967656e657261ull,
		mgr->cookie_key[1] ^ 0x7465646279746573ull,
	};
	uint64_t m[2] = { a, b };
	int i, r;

	for (i = 0; i < 2; i++) {
		v[3] ^= m[i];
		for (r = 0; r < 2; r++)
			pdc_sip_round(v);
		v[0] ^= m[i];
	}
	v[2] ^= 0xff;
	for (r = 0; r < 4; r++)
		pdc_sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

static uint32_t pdc_cookie_at(const struct pdc_mgr *mgr, uint64_t src,
			      uint16_t spdcid, uint64_t epoch)
{
	uint32_t c = (uint32_t)pdc_prf(mgr, src, epoch << 16 | spdcid);

	return c ? c : 1;	/* a start PSN is never 0 (ref 2.9) */
}

uint32_t pdc_cookie(const struct pdc_mgr *mgr, uint64_t src, uint16_t spdcid,
		    uint64_t now_ns)
{
	return pdc_cookie_at(mgr, src, spdcid, now_ns >> PDC_EPOCH_SHIFT);
}

/* Minted this epoch or the one before: at least 4.3 s to come back. */
static bool pdc_cookie_is_valid(const struct pdc_mgr *mgr, uint64_t src,
				uint16_t spdcid, uint32_t start,
				uint64_t now_ns)
{
	uint64_t epoch = now_ns >> PDC_EPOCH_SHIFT;

	return start == pdc_cookie_at(mgr, src, spdcid, epoch) ||
	       (epoch && start == pdc_cookie_at(mgr, src, spdcid, epoch - 1));
}

/* ---- census and eviction ------------------------------------------------ */

struct pdc_census {
	bool peer_live;		/* the peer has a target PDC not in TIME_WAIT */
	uint32_t src_cnt;	/* target PDCs of the src, TIME_WAIT included */
};

static void pdc_census_take(const struct pdc_mgr *mgr, uint32_t peer,
			    uint64_t src, struct pdc_census *c)
{
	c->peer_live = pdc_counts_get(&mgr->tgt_live, peer) != 0;
	c->src_cnt = pdc_counts_get(&mgr->tgt_src, src);
}

/* Older goes first: TIME_WAIT by expiry, live PDCs by their last arrival. */
static uint64_t pdc_evict_age(const struct pdc *p)
{
	return p->state == PDC_ST_TIME_WAIT ? p->tgt.expire_at :
					      p->tgt.last_rx_ns;
}

/*
 * Nothing to lose but the PDC itself: nothing stored, and quiet for two of
 * the initiator's longest RTOs, so that an initiator still waiting for an
 * ACK (lost, or late behind a busy host) would have resent by now: its
 * resend, finding the PDC gone, would get INV_DPDCID and fail (ECONNRESET)
 * though the data was placed. A quiet initiator has meanwhile been asked
 * to close (pdc_room.c) and usually has.
 */
static bool pdc_is_idle(const struct pdc_mgr *mgr, const struct pdc *p,
			uint64_t now_ns)
{
	return now_ns - p->tgt.last_rx_ns >= 2 * mgr->cfg.rto_max_ns &&
	       p->tgt.resp_head == PDC_NIL && !pdc_tgt_has_ack(p);
}

/*
 * Frees a target PDC to make room, leaving its record; false when there
 * is no room for the record. A live one goes silently: the wire learns of
 * it only when a later packet of it gets INV_DPDCID, while SES hears
 * PDC_EV_CLOSED (-ECONNABORTED) at once.
 */
static bool pdc_evict(struct pdc_mgr *mgr, struct pdc *p, uint64_t now_ns)
{
	bool live = p->state != PDC_ST_TIME_WAIT;
	if (!pdc_tomb_room(&mgr->tombs, now_ns))
		return false;
	pdc_tomb_put(&mgr->tombs, p, live ? now_ns + mgr->cfg.time_wait_ns :
					    p->tgt.expire_at);
	if (live) {
		mgr->stats.tgt_evicted++;
		mgr->stats.pdc_closed++;
		pdc_log(mgr, "pdc %#x: peer %u evicted to make room", p->id,
			p->peer);
		pdc_emit(mgr, p, PDC_EV_CLOSED, -ECONNABORTED);
	}
	pdc_free(mgr, p);
	return true;
}

/* The oldest target PDC of |src| (any src when !by_src) matching the rest. */
static struct pdc *pdc_evict_pick(const struct pdc_mgr *mgr, bool by_src,
				  uint64_t src, bool time_wait_only,
				  bool idle_only, uint64_t now_ns)
{
	struct pdc *best = NULL;
	uint32_t i;

	for (i = 0; i < mgr->cfg.max_pdcs; i++) {
		struct pdc *p = mgr->tbl[i];

		if (!p || p->role != PDC_ROLE_TGT || (by_src && p->src != src))
			continue;
		if (time_wait_only && p->state != PDC_ST_TIME_WAIT)
			continue;
		if (idle_only && (p->state == PDC_ST_TIME_WAIT ||
				  !pdc_is_idle(mgr, p, now_ns)))
			continue;
		if (!best || pdc_evict_age(p) < pdc_evict_age(best))
			best = p;
	}
	return best;
}

/* The src with the most target PDCs among those with an idle one. */
static bool pdc_biggest_src(const struct pdc_mgr *mgr, uint64_t now_ns,
			    uint64_t *src)
{
	uint32_t i, j, n = mgr->cfg.max_pdcs, best = 0;
	uint64_t *cnt_src = mgr->scratch_src;
	uint32_t *cnt = mgr->scratch_cnt;
	uint32_t mask = 2 * n - 1;

	for (i = 0; i < 2 * n; i++)
		cnt[i] = 0;
	for (i = 0; i < n; i++) {
		const struct pdc *p = mgr->tbl[i];

		if (!p || p->role != PDC_ROLE_TGT)
			continue;
		j = (uint32_t)((p->src * 0x9e3779b97f4a7c15ull) >> 32) & mask;
		while (cnt[j] && cnt_src[j] != p->src)
			j = (j + 1) & mask;
		cnt_src[j] = p->src;
		cnt[j]++;
	}
	for (i = 0; i < n; i++) {
		const struct pdc *p = mgr->tbl[i];

		if (!p || p->role != PDC_ROLE_TGT ||
		    p->state == PDC_ST_TIME_WAIT || !pdc_is_idle(mgr, p, now_ns))
			continue;
		j = (uint32_t)((p->src * 0x9e3779b97f4a7c15ull) >> 32) & mask;
		while (cnt_src[j] != p->src)
			j = (j + 1) & mask;
		if (cnt[j] > best) {
			best = cnt[j];
			*src = p->src;
		}
	}
	return best > 0;
}

/*
 * A slot for a new target PDC of |src| that was admitted (0-RTT) or
 * confirmed. In order:
 *  - a src at its share (cfg.tgt_max_per_src) makes room among its own:
 *    its oldest TIME_WAIT PDC, else its least recently used one, while it
 *    holds fewer eviction records than its share (else it is refused);
 *  - with no free slot: the TIME_WAIT PDC that expires first, else the
 *    least recently used idle PDC of the src holding the most.
 * Initiator PDCs are never evicted (only closed). A flood from one src thus costs that
 * src (its share) and idle state only.
 *
 * Evicting a TIME_WAIT PDC before its time would let a late SYN copy of it
 * open a fresh PDC and deliver twice; its tombstone (above) answers such a
 * copy until the TIME_WAIT would have ended. Cookies alone would not do:
 * the table is under pressure while we evict, so unconfirmed SYNs need a
 * cookie, but a copy of a SYN whose start PSN was a cookie of the last two
 * epochs passes. Hence no eviction without room for the record.
 */
bool pdc_tgt_make_room(struct pdc_mgr *mgr, uint64_t src, uint64_t now_ns)
{
	struct pdc_census c;
	struct pdc *p;

	pdc_census_take(mgr, UINT32_MAX, src, &c);
	if (c.src_cnt >= mgr->tgt_per_src) {
		if (pdc_tomb_src_cnt(&mgr->tombs, src, now_ns) >=
		    mgr->tgt_per_src)
			return false;
		p = pdc_evict_pick(mgr, true, src, true, false, now_ns);
		if (!p)
			p = pdc_evict_pick(mgr, true, src, false, false,
					   now_ns);
		if (!p || !pdc_evict(mgr, p, now_ns))
			return false;
	}
	return pdc_make_room(mgr, now_ns);
}

/*
 * A free slot, evicting when there is none: the TIME_WAIT PDC that expires
 * first, else the least recently used idle target PDC of the src holding
 * the most, else (a slot later) an idle initiator PDC of ours closed
 * (pdc_room.c). Also for our own initiator PDCs: a table that hosts filled
 * with PDCs to us must not stop us from reaching anyone. Short of the
 * reserve, quiet targets are asked to close first, so that evictions of
 * live PDCs stay rare.
 */
bool pdc_make_room(struct pdc_mgr *mgr, uint64_t now_ns)
{
	struct pdc *p;
	uint64_t big;

	if (mgr->free_cnt < mgr->tgt_reserve)
		pdc_room_ask(mgr, now_ns);
	if (mgr->free_cnt)
		return true;
	p = pdc_evict_pick(mgr, false, 0, true, false, now_ns);
	if (!p && pdc_biggest_src(mgr, now_ns, &big))
		p = pdc_evict_pick(mgr, true, big, false, true, now_ns);
	if (p && pdc_evict(mgr, p, now_ns))
		return true;
	return pdc_room_close_own(mgr, now_ns);
}

/*
 * May a SYN that names no PDC of ours open one? A cookie is required
 * (unconfirmed SYNs are answered with one, and nothing is kept) when
 *  (a) its peer already has a live target PDC, under any SPDCID: a forged
 *      SYN can then neither retire nor displace it, while a restarted
 *      initiator passes with one more round trip; or
 *  (b) the manager is under pressure: fewer free slots than the reserve
 *      (cfg.tgt_reserve), or the src holds its share of target PDCs.
 * Otherwise the SYN opens at once (0-RTT), as in the normal case.
 */
enum pdc_gate pdc_tgt_gate(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
			   uint16_t spdcid, uint32_t start, uint32_t *cookie,
			   uint64_t now_ns)
{
	struct pdc_census c;
	bool confirmed, pressure;

	if (pdc_tomb_find(&mgr->tombs, pdc_key_tgt(meta->peer, spdcid), start,
			  now_ns))
		return PDC_GATE_STALE;
	confirmed = pdc_cookie_is_valid(mgr, meta->src, spdcid, start, now_ns);
	if (confirmed) {
		mgr->stats.syn_confirmed++;
		return PDC_GATE_OPEN;
	}
	pdc_census_take(mgr, meta->peer, meta->src, &c);
	pressure = mgr->free_cnt < mgr->tgt_reserve ||
		   c.src_cnt >= mgr->tgt_per_src;
	if (!c.peer_live && !pressure)
		return PDC_GATE_OPEN;
	mgr->stats.syn_challenged++;
	*cookie = pdc_cookie(mgr, meta->src, spdcid, now_ns);
	return PDC_GATE_CHALLENGE;
}

/* ---- set-up ------------------------------------------------------------- */

/*
 * The cookie key comes from cfg.seed through its own generator, so that
 * the PDCIDs and start PSNs a seed gives stay what they were.
 */
int pdc_admit_init(struct pdc_mgr *mgr)
{
	const struct pdc_cfg *c = &mgr->cfg;
	uint64_t s = c->seed ^ 0x636f6f6b69657321ull;
	uint32_t n = c->max_pdcs;

	mgr->cookie_key[0] = pdc_splitmix(&s);
	mgr->cookie_key[1] = pdc_splitmix(&s);
	mgr->tgt_per_src = c->tgt_max_per_src ? c->tgt_max_per_src :
			   n / 4 > 2 ? n / 4 : 2;
	mgr->tgt_reserve = c->tgt_reserve ? c->tgt_reserve : n / 4;

	mgr->scratch_src = calloc(2 * n, sizeof(*mgr->scratch_src));
	mgr->scratch_cnt = calloc(2 * n, sizeof(*mgr->scratch_cnt));
	mgr->tombs.peer_use = &mgr->peer_use;
	if (pdc_tombs_init(&mgr->tombs, n * PDC_TOMBS_PER_PDC) < 0 ||
	    !mgr->scratch_src || !mgr->scratch_cnt)
		return -ENOMEM;
	return 0;
}

void pdc_admit_fini(struct pdc_mgr *mgr)
{
	free(mgr->scratch_cnt);
	free(mgr->scratch_src);
	pdc_tombs_fini(&mgr->tombs);
}
