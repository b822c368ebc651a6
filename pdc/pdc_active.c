/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Snapshots of initiator PDCs (pdc_info_get, pdc_active_walk). A walk
 * does not scan the table: a PDC joins the manager's active list when it
 * transmits (pdc_active_mark, from pdc_ini_put) and a walk drops the ones
 * that have nothing in flight, so a sampler that walks every millisecond
 * pays for the PDCs that moved, not for thousands of idle ones. A doubly
 * linked list, so that a PDC freed between walks leaves it at once.
 */
#include <string.h>

#include "pdc/pdc_priv.h"

void pdc_active_add(struct pdc_mgr *mgr, struct pdc *pdc)
{
	struct pdc_ini *ini = &pdc->ini;

	ini->act_listed = true;
	ini->act_next = NULL;
	ini->act_prev = mgr->act_tail;
	if (mgr->act_tail)
		mgr->act_tail->ini.act_next = pdc;
	else
		mgr->act_head = pdc;
	mgr->act_tail = pdc;
}

void pdc_active_del(struct pdc_mgr *mgr, struct pdc *pdc)
{
	struct pdc_ini *ini = &pdc->ini;

	if (!ini->act_listed)
		return;
	if (ini->act_prev)
		ini->act_prev->ini.act_next = ini->act_next;
	else
		mgr->act_head = ini->act_next;
	if (ini->act_next)
		ini->act_next->ini.act_prev = ini->act_prev;
	else
		mgr->act_tail = ini->act_prev;
	ini->act_listed = false;
	ini->act_prev = ini->act_next = NULL;
}

void pdc_info_fill(const struct pdc_mgr *mgr, const struct pdc *pdc,
		   struct pdc_info *info)
{
	const struct pdc_ini *ini = &pdc->ini;

	memset(info, 0, sizeof(*info));
	info->peer = pdc->peer;
	info->mode = pdc->mode;
	info->pdcid = pdc->id;
	info->remote_pdcid = pdc->rid;
	info->is_established = pdc->state != PDC_ST_SYN;
	info->start_psn = ini->start_psn;
	info->next_psn = ini->next_psn;
	info->cwnd = ini->cwnd;
	info->inflight = ini->inflight;
	info->queued = ini->next_psn - ini->send_psn;
	info->unacked_bytes = ini->infl_bytes;
	info->retx = ini->retx_cnt;
	info->srtt_ns = ini->srtt_ns;
	info->rto_ns = ini->rto_ns;
	info->state_len = pdc->alloc_len;
	info->nscc = ini->nscc;
	if (ini->nscc) {
		info->cwnd_bytes = (uint32_t)ini->cc.cwnd;
		info->max_wnd_bytes = (uint32_t)ini->cc.max_wnd;
		info->link_mbps = (uint32_t)(ini->cc.link_bps / 1e6);
		info->inflight_bytes = (uint32_t)ini->cc.inflight;
		info->base_rtt_ns = ini->cc.base_rtt_ns;
		info->avg_delay_ns = ini->cc.avg_delay_ns;
		info->target_qdelay_ns = pdc_nscc_target(&mgr->cfg, ini);
	}
	if (ini->rccc)
		info->credit = pdc_rccc_credit(ini);
}

uint32_t pdc_active_walk(struct pdc_mgr *mgr, pdc_active_fn fn, void *ctx)
{
	struct pdc *pdc = mgr->act_head, *next;
	struct pdc_info info;
	uint32_t n = 0;

	for (; pdc; pdc = next) {
		next = pdc->ini.act_next;
		pdc_info_fill(mgr, pdc, &info);
		fn(ctx, &info);
		n++;
		/* Seen once idle; it comes back with its next packet. */
		if (!pdc->ini.inflight)
			pdc_active_del(mgr, pdc);
	}
	return n;
}
