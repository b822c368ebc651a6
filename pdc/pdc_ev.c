/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Entropy values of an initiator PDC: which path of the fabric each of its
 * packets takes (UE 1.0 3.6.16). Switches hash the UDP source port, which
 * carries the EV, so packets with different EVs spread over the
 * equal-cost paths; one EV is one path.
 *
 * PDC_MP_AWARE follows REPS, the spec's example of the path-aware mode
 * (arXiv 2407.21625; the UEC's htsim, buffer_reps.cpp): the EV of a packet
 * acknowledged without an ECN mark goes into a small ring and a later
 * packet takes it from there, so paths are used as fast as they deliver
 * (a slow or congested path gets its EVs back late, and less traffic);
 * with the ring empty, a new EV is explored. A return that finds the ring
 * full is dropped (paths keep the share their returns had). An EV whose
 * packet was lost (a SACK hole, a timeout, a probe) or marked is not
 * recycled and is left out of exploration for a while (PDC_EV_BAD of them
 * remembered), so a dead path is left within a round trip of noticing. Retransmissions take
 * recycled EVs first: known good paths. One new packet in PDC_EV_EXPLORE
 * explores even when the ring holds EVs (our choice: REPS explores only
 * when it runs dry, and a flow that never ran dry would never find a path
 * that came back).
 *
 * ROD keeps one EV, a random one of its block, and takes another only
 * when a packet sent on it failed: a new path reorders, which ROD must
 * not. PDC_MP_OBLIVIOUS draws every packet's EV at random from the block.
 */
#include <string.h>

#include "pdc/pdc_priv.h"

/*
 * The |i|-th EV of the PDC's block (i < ev_count <= ev_mask): never 0, at
 * most ev_mask. base < ev_mask (pdc_ev_init), so no division.
 */
static uint16_t pdc_ev_nth(const struct pdc_mgr *mgr,
			   const struct pdc_paths *p, uint32_t i)
{
	uint32_t x = p->base + i;

	return (uint16_t)(1 + (x >= mgr->cfg.ev_mask ? x - mgr->cfg.ev_mask :
						       x));
}

/* A random one of the block's EVs (multiply and shift: no division). */
static uint16_t pdc_ev_any(struct pdc_mgr *mgr, const struct pdc_paths *p)
{
	return pdc_ev_nth(mgr, p, (uint32_t)(((uint64_t)pdc_rand32(mgr) *
					      mgr->cfg.ev_count) >> 32));
}

static bool pdc_ev_is_bad(const struct pdc_paths *p, uint16_t ev,
			  uint64_t now_ns)
{
	if (now_ns >= p->bad_last)	/* none left lately: the usual case */
		return false;
	for (uint32_t i = 0; i < PDC_EV_BAD; i++)
		if (p->bad[i] == ev && now_ns < p->bad_until[i])
			return true;
	return false;
}

/* A random EV of the block, avoiding those recently left (a few tries). */
static uint16_t pdc_ev_explore(struct pdc_mgr *mgr, struct pdc_paths *p,
			       uint64_t now_ns)
{
	uint16_t ev = 0;

	for (int tries = 0; tries < 4; tries++) {
		ev = pdc_ev_any(mgr, p);
		if (!pdc_ev_is_bad(p, ev, now_ns))
			break;
	}
	mgr->stats.ev_explored++;
	return ev;
}

void pdc_ev_init(struct pdc_mgr *mgr, struct pdc *pdc)
{
	struct pdc_paths *p = &pdc->ini.paths;

	memset(p, 0, sizeof(*p));
	p->base = (uint16_t)(pdc_rand32(mgr) % mgr->cfg.ev_mask);
	p->explore_in = PDC_EV_EXPLORE;
	p->cur = pdc_ev_any(mgr, p);
}

static uint16_t pdc_ev_ring_pop(struct pdc_paths *p)
{
	uint16_t ev = p->ring[p->head];

	p->head = (uint8_t)((p->head + 1) & (PDC_EV_RING - 1));
	p->cnt--;
	return ev;
}

/*
 * The EV of the next copy of |slot| (its tx_cnt and sent_ns still those
 * of the copy before). A packet whose resend was lost too goes on the
 * path that delivered last, when that was after its copy left: a path
 * alive now. The ring's EVs came back before: in a blackhole of most
 * paths, those of the window that stalled are mostly dead, and with the
 * ring empty an exploration finds a live path only as often as there
 * are live paths (a quarter of them for one link of four down,
 * e2e_soak_mix.sh: 25 tries all dead about once a soak).
 */
uint16_t pdc_ev_pick(struct pdc_mgr *mgr, struct pdc *pdc,
		     const struct pdc_slot *slot, uint64_t now_ns)
{
	struct pdc_paths *p = &pdc->ini.paths;
	bool retx = slot->tx_cnt > 0;

	if (mgr->cfg.mp_mode == PDC_MP_OFF)
		return 0;
	if (pdc->mode == PDC_MODE_ROD)
		return p->cur;
	if (mgr->cfg.mp_mode == PDC_MP_OBLIVIOUS)
		return pdc_ev_any(mgr, p);
	if (slot->tx_cnt >= 2 && p->fresh_ev && p->fresh_ns > slot->sent_ns)
		return p->fresh_ev;
	if (!retx && --p->explore_in == 0) {
		p->explore_in = PDC_EV_EXPLORE;
		return pdc_ev_explore(mgr, p, now_ns);
	}
	if (p->cnt)
		return pdc_ev_ring_pop(p);
	return pdc_ev_explore(mgr, p, now_ns);
}

/*
 * A packet sent on |ev| came back, acknowledged or refused (the target
 * out of room): the path works, though a refused packet must go again.
 * The EV is the fresh one a stalled packet takes, and no stall is probed
 * past it (pdc_ini.c): a receiver that refuses is not a blackhole. False
 * where EVs are not followed (ROD, not PDC_MP_AWARE).
 */
bool pdc_ev_heard(struct pdc_mgr *mgr, struct pdc *pdc, uint16_t ev,
		  uint64_t now_ns)
{
	struct pdc_paths *p = &pdc->ini.paths;

	if (!ev || mgr->cfg.mp_mode != PDC_MP_AWARE ||
	    pdc->mode == PDC_MODE_ROD)
		return false;
	p->fresh_ev = ev;
	p->fresh_ns = now_ns;
	return true;
}

/* A packet sent on |ev| was acknowledged without a mark: reuse it. */
void pdc_ev_good(struct pdc_mgr *mgr, struct pdc *pdc, uint16_t ev,
		 uint64_t now_ns)
{
	struct pdc_paths *p = &pdc->ini.paths;

	if (!pdc_ev_heard(mgr, pdc, ev, now_ns) || p->cnt == PDC_EV_RING)
		return;
	p->ring[(p->head + p->cnt++) & (PDC_EV_RING - 1)] = ev;
	mgr->stats.ev_recycled++;
}

/*
 * A packet sent on |ev| was lost, timed out or marked: the EV leaves the
 * ring and is not explored again for two round trips (at least the
 * minimum RTO); a ROD PDC moves to another.
 */
void pdc_ev_bad(struct pdc_mgr *mgr, struct pdc *pdc, uint16_t ev,
		uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	struct pdc_paths *p = &ini->paths;
	uint64_t rest = 2 * ini->srtt_ns;
	uint8_t n = p->cnt, kept = 0, at;

	if (!ev || mgr->cfg.mp_mode == PDC_MP_OFF)
		return;
	if (rest < mgr->cfg.rto_min_ns)
		rest = mgr->cfg.rto_min_ns;
	if (!pdc_ev_is_bad(p, ev, now_ns)) {
		p->bad[p->bad_next] = ev;
		p->bad_until[p->bad_next] = now_ns + rest;
		if (p->bad_last < now_ns + rest)
			p->bad_last = now_ns + rest;
		p->bad_next = (uint8_t)((p->bad_next + 1) % PDC_EV_BAD);
		mgr->stats.ev_retired++;
	}
	for (uint8_t i = 0; i < n; i++) {	/* compacted in place */
		at = (uint8_t)((p->head + i) & (PDC_EV_RING - 1));
		if (p->ring[at] != ev)
			p->ring[(p->head + kept++) & (PDC_EV_RING - 1)] =
				p->ring[at];
	}
	p->cnt = kept;
	if (p->fresh_ev == ev)
		p->fresh_ev = 0;
	if (pdc->mode == PDC_MODE_ROD && p->cur == ev && mgr->cfg.ev_count > 1)
		do
			p->cur = pdc_ev_explore(mgr, p, now_ns);
		while (p->cur == ev);
}

/*
 * Each path's own RTT, for loss by time (pdc_ini_rx.c): sprayed paths whose
 * queues differ take milliseconds apart, and a packet is late only
 * against its own path. The latest sample of an EV, kept for the EVs
 * seen lately (direct-mapped; 0 for one not there).
 */
static uint32_t pdc_ev_rtt_slot(uint16_t ev)
{
	return (uint32_t)(ev * 2654435761u >> 16) % PDC_EV_RTTS;
}

void pdc_ev_rtt_set(struct pdc *pdc, uint16_t ev, uint64_t rtt_ns)
{
	struct pdc_paths *p = &pdc->ini.paths;
	uint32_t i = pdc_ev_rtt_slot(ev);

	p->rtt_ev[i] = ev;
	p->rtt_ns[i] = rtt_ns;
}

uint64_t pdc_ev_rtt(const struct pdc *pdc, uint16_t ev)
{
	const struct pdc_paths *p = &pdc->ini.paths;
	uint32_t i = pdc_ev_rtt_slot(ev);

	return ev && p->rtt_ev[i] == ev ? p->rtt_ns[i] : 0;
}

uint32_t pdc_ev_in_use(const struct pdc *pdc)
{
	return pdc->mode == PDC_MODE_ROD ? 1u : pdc->ini.paths.cnt;
}
