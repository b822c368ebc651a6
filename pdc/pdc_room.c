/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Room in a full PDC table without failing anyone: ephemeral PDCs (UE 1.0
 * 3.5.8) under pressure. A table of max_pdcs slots serves many more peers
 * than it holds only if PDCs that have nothing to do go soon, and go the
 * polite way: a target asks a quiet initiator to close (CLOSE_REQ), the
 * initiator closes an empty PDC at once, and the target is left with a
 * TIME_WAIT PDC it may turn into an eviction record whenever a slot is
 * needed. Evicting a live PDC instead (pdc_tgt_admit.c) is the last
 * resort: only its record (pdc_tomb.c) then answers a late resend.
 *
 * Both scans here walk the table (max_pdcs <= 4096), only when it is
 * under pressure and at most once per PDC_ROOM_SCAN_NS.
 */
#include "pdc/pdc_priv.h"

/*
 * Quiet long enough to be asked to close while the table is under
 * pressure: a few round trips on a LAN, far below cfg.idle_ns (1 s),
 * which remains the rule without pressure. An initiator still busy
 * ignores the request (its packets crossed it) and costs one control
 * packet; an idle one costs the next message a SYN.
 */
#define PDC_ROOM_QUIET_NS	1000000ull
#define PDC_ROOM_SCAN_NS	1000000ull

static bool pdc_tgt_is_quiet(const struct pdc *p, uint64_t now_ns)
{
	return p->state != PDC_ST_TIME_WAIT && !p->tgt.close_req_cnt &&
	       now_ns - p->tgt.last_rx_ns >= PDC_ROOM_QUIET_NS &&
	       p->tgt.resp_head == PDC_NIL && !pdc_tgt_has_ack(p);
}

/*
 * Asks every quiet target PDC to close (once per quiet spell: an arrival
 * resets close_req_cnt). The usual idle timer then repeats the request
 * after idle_ns and closes in error after PDC_CLOSE_REQ_TRIES, as for any
 * idle PDC.
 */
static void pdc_room_ask_quiet(struct pdc_mgr *mgr, uint64_t now_ns)
{
	for (uint32_t i = 0; i < mgr->cfg.max_pdcs; i++) {
		struct pdc *p = mgr->tbl[i];

		if (!p || p->role != PDC_ROLE_TGT ||
		    !pdc_tgt_is_quiet(p, now_ns))
			continue;
		p->tgt.close_req_cnt = 1;
		p->tgt.close_req = true;
		mgr->stats.close_req_pressure++;
		pdc_ready(mgr, p);
	}
}

/*
 * Closes our least recently used initiator PDC with nothing outstanding.
 * One that the target never answered goes at once; an established one
 * sends CLOSE and leaves its slot when that is acknowledged (a round
 * trip). Returns true when a slot is free now.
 */
static bool pdc_room_close_ini(struct pdc_mgr *mgr, uint64_t now_ns)
{
	struct pdc *best = NULL;

	for (uint32_t i = 0; i < mgr->cfg.max_pdcs; i++) {
		struct pdc *p = mgr->tbl[i];

		if (!p || p->role != PDC_ROLE_INI ||
		    p->state == PDC_ST_CLOSING ||
		    p->ini.una_psn != p->ini.next_psn)
			continue;
		if (!best || p->ini.last_active_ns < best->ini.last_active_ns)
			best = p;
	}
	if (!best)
		return false;
	mgr->stats.ini_closed_pressure++;
	pdc_ini_start_close(mgr, best, now_ns);
	return mgr->free_cnt > 0;
}

/* Asks quiet targets to close: fewer free slots than the reserve. */
void pdc_room_ask(struct pdc_mgr *mgr, uint64_t now_ns)
{
	if (now_ns - mgr->room_ask_ns < PDC_ROOM_SCAN_NS)
		return;
	mgr->room_ask_ns = now_ns;
	pdc_room_ask_quiet(mgr, now_ns);
}

/*
 * No slot is free and none could be evicted: close an idle PDC of our
 * own. Returns true when a slot is free now.
 */
bool pdc_room_close_own(struct pdc_mgr *mgr, uint64_t now_ns)
{
	if (now_ns - mgr->room_close_ns < PDC_ROOM_SCAN_NS)
		return false;
	mgr->room_close_ns = now_ns;
	return pdc_room_close_ini(mgr, now_ns);
}
