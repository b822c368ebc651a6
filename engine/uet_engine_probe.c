/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Liveness of the peers we wait on: one silent for UET_ENGINE_SILENT_NS
 * while operations to it are outstanding is asked whether it lives (an
 * empty READ of an RI nobody uses, uet_engine_priv.h), and the answer
 * tells a live peer from one whose device service says it is gone.
 */
#include <errno.h>
#include <stdlib.h>

#include "engine/uet_engine_priv.h"

/*
 * Peers we wait on that have been silent UET_ENGINE_SILENT_NS are asked
 * whether they live (uet_engine_priv.h). Checked after the frames that
 * were waiting were read, so our own stalls do not count as their silence.
 * Only peers with something outstanding are looked at (e->busy); those
 * with nothing left leave the list here. Not one our PDC still has packets
 * unacknowledged to: its retransmit timer judges the peer (a dead one's
 * service NACKs them, a dead host times out), and a probe would only
 * queue behind them (a starved all-to-all of 256 endpoints probed every
 * peer: 240 extra requests an endpoint). Nor one we have sent nothing
 * yet since its operations began: they wait on us (a 128-endpoint
 * all-to-all, its PDCs opening 32 at a time, probed 16 peers an endpoint).
 */
void uet_engine_silent_peers(struct uet_engine *e)
{
	if (e->now_ns - e->silent_check_ns < UET_ENGINE_SILENT_NS / 4)
		return;
	e->silent_check_ns = e->now_ns;
	for (uint32_t k = 0; k < e->nbusy;) {
		uint32_t i = e->busy[k];
		struct uet_engine_peer *p = &e->peers[i];

		if (p->gone) {
			p->gone = false;
			p->ops_out = 0;
			uet_engine_peer_fail(e, i, -ECONNRESET);
		}
		if (!p->ops_out && !p->probe) {
			p->busy_listed = false;
			e->busy[k] = e->busy[--e->nbusy];
			continue;
		}
		k++;
		if (p->state != UET_PEER_LIVE || !p->ops_out || p->probe ||
		    !p->sent || e->now_ns - p->heard_ns < UET_ENGINE_SILENT_NS ||
		    !(p->tag & UET_ENGINE_TAG_PID) ||
		    pdc_peer_unacked(e->pdc, i))
			continue;
		p->probe = calloc(1, sizeof(*p->probe));
		if (!p->probe)
			continue;
		p->probe->dst = (struct ses_addr){
			.peer = i, .job_id = e->cfg.job_id,
			.pid_on_fep = (uint16_t)(p->tag & UET_SES_PID_ON_FEP_MAX) };
		p->probe->wre = (struct ses_wre){ .opcode = UET_SES_OP_READ,
						  .dst = &p->probe->dst,
						  .ri = UET_ENGINE_PROBE_RI };
		if (ses_wre_post(e->ses, &p->probe->wre) < 0) {
			free(p->probe);
			p->probe = NULL;
		}
	}
}

/*
 * The answer to a probe: the device service of a dead peer said so
 * (RC_BAD_PID, RC_BAD_JOB_ID), or its PDC failed: everything to it fails
 * (FI_ECONNRESET for the former). Any other answer means it lives.
 */
void uet_engine_probe_done(struct uet_engine *e, uint32_t peer,
			   const struct ses_tx_cpl *cpl)
{
	struct uet_engine_peer *p = &e->peers[peer];

	free(p->probe);
	p->probe = NULL;
	p->heard_ns = e->now_ns ? e->now_ns : uet_engine_now_ns();
	if (cpl->status == -EREMOTEIO && (cpl->rc == UET_SES_RC_BAD_PID ||
					  cpl->rc == UET_SES_RC_BAD_JOB_ID)) {
		p->gone = true;
		uet_engine_busy_add(e, peer);
		e->silent_check_ns = 0;	/* handled at the next progress */
	}
}
