/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Timers: one binary min-heap of PDCs keyed by their wake-up time. A PDC's
 * deadlines only move the heap when they come earlier; a wake-up that turns
 * out early just recomputes, which keeps the per-packet path free of heap
 * work.
 */
#include "pdc/pdc_priv.h"

static void pdc_heap_set(struct pdc_mgr *mgr, uint32_t i,
			 struct pdc_heap_ent ent)
{
	mgr->heap[i] = ent;
	ent.pdc->heap_idx = i;
}

static void pdc_heap_up(struct pdc_mgr *mgr, uint32_t i)
{
	struct pdc_heap_ent ent = mgr->heap[i];

	while (i > 0) {
		uint32_t up = (i - 1) / 2;

		if (mgr->heap[up].wake_ns <= ent.wake_ns)
			break;
		pdc_heap_set(mgr, i, mgr->heap[up]);
		i = up;
	}
	pdc_heap_set(mgr, i, ent);
}

static void pdc_heap_down(struct pdc_mgr *mgr, uint32_t i)
{
	struct pdc_heap_ent ent = mgr->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= mgr->heap_cnt)
			break;
		if (c + 1 < mgr->heap_cnt &&
		    mgr->heap[c + 1].wake_ns < mgr->heap[c].wake_ns)
			c++;
		if (ent.wake_ns <= mgr->heap[c].wake_ns)
			break;
		pdc_heap_set(mgr, i, mgr->heap[c]);
		i = c;
	}
	pdc_heap_set(mgr, i, ent);
}

/* Called only when |at_ns| is earlier than the PDC's wake-up. */
void pdc_timer_arm_slow(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t at_ns)
{
	pdc->wake_ns = at_ns;
	if (pdc->heap_idx != UINT32_MAX) {
		mgr->heap[pdc->heap_idx].wake_ns = at_ns;
		pdc_heap_up(mgr, pdc->heap_idx);
		return;
	}
	pdc_heap_set(mgr, mgr->heap_cnt++,
		     (struct pdc_heap_ent){ .wake_ns = at_ns, .pdc = pdc });
	pdc_heap_up(mgr, pdc->heap_idx);
}

void pdc_timer_del(struct pdc_mgr *mgr, struct pdc *pdc)
{
	uint32_t i = pdc->heap_idx;
	struct pdc_heap_ent last;

	if (i == UINT32_MAX)
		return;
	last = mgr->heap[--mgr->heap_cnt];
	if (last.pdc != pdc) {
		pdc_heap_set(mgr, i, last);
		pdc_heap_down(mgr, i);
		pdc_heap_up(mgr, last.pdc->heap_idx);
	}
	pdc->heap_idx = UINT32_MAX;
	pdc->wake_ns = UINT64_MAX;
}

/*
 * Runs every PDC whose wake-up is due. The handlers re-arm strictly in the
 * future, and the bound guards against a handler that does not.
 */
void pdc_timers_run(struct pdc_mgr *mgr, uint64_t now_ns)
{
	uint32_t budget = 2 * mgr->cfg.max_pdcs + 8;

	while (mgr->heap_cnt && mgr->heap[0].wake_ns <= now_ns && budget--) {
		struct pdc *pdc = mgr->heap[0].pdc;

		pdc_timer_del(mgr, pdc);
		if (pdc->role == PDC_ROLE_INI)
			pdc_ini_on_timer(mgr, pdc, now_ns);
		else
			pdc_tgt_on_timer(mgr, pdc, now_ns);
	}
}

uint64_t pdc_next_timeout(const struct pdc_mgr *mgr)
{
	uint64_t at = mgr->rccc.head ? mgr->rccc.next_ns : UINT64_MAX;

	if (mgr->nackq_cnt || mgr->uudq_cnt || mgr->ready_head)
		return 0;
	if (mgr->heap_cnt && mgr->heap[0].wake_ns < at)
		at = mgr->heap[0].wake_ns;
	if (pdc_rudi_next(mgr) < at)
		at = pdc_rudi_next(mgr);
	return at;
}
