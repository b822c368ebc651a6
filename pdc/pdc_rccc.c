/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RCCC, receiver credits (UE 1.0 3.6.14): a receiver that many senders
 * converge on hands out the right to send at its own link's rate, so that
 * their sum never exceeds what its port drains.
 *
 * Senders. Requests go as RUD_CC_REQ / ROD_CC_REQ, whose credit_target is
 * the sender's backlog: bytes queued and not yet sent, in 256-byte units
 * (our choice; 24 bits). A sender may send as many new bytes as it was
 * granted, counted from the PDC's start (wrapping 32 bits: the largest
 * CREDIT), plus a speculative allowance (cfg.rccc_spec) it starts with;
 * retransmissions take none. It asks with CREDIT_REQ, once per round
 * trip, while work waits for credit.
 *
 * Receivers. A target PDC whose sender reports a backlog waits on the
 * manager's list; the manager grants chunks of 4 MSS round robin as a
 * token bucket filled at 99% of cfg.link_bps allows, while what it granted
 * and the speculative allowance exceed what it received by less than its
 * backlog and the allowance, at most rccc.cap. A sender without a backlog is topped up to the speculative
 * allowance again as its bytes arrive (paced the same): an idle sender
 * finds it there when work comes, without asking. The sum granted goes back in a CREDIT control packet, which
 * takes no PSN and is never acknowledged: a lost one is made good by the
 * next, as each carries the whole sum, or by the answer to the sender's
 * CREDIT_REQ, which always carries it. The constants follow the UEC
 * simulator's model (htsim: credit paced at 0.99 of line rate, 4 MTU a
 * pull); the wire encoding of amounts is ours.
 */
#include "pdc/pdc_priv.h"

#define RCCC_RATE		0.99	/* of the receiver's link */
#define RCCC_CHUNK_MSS		4	/* bytes a grant adds */
#define RCCC_BUCKET_CHUNKS	2	/* tokens an idle spell may keep */
#define RCCC_CAP_MSS		8	/* outstanding credit per sender, at
					 * least; or one BDP of the link */
#define RCCC_UNIT_SHIFT		8	/* credit_target: 256-byte units */

void pdc_rccc_init(struct pdc_mgr *mgr)
{
	const struct pdc_cfg *cfg = &mgr->cfg;
	struct pdc_rccc *r = &mgr->rccc;
	double bdp = (double)cfg->link_bps / 8 * (double)cfg->base_rtt_ns / 1e9;

	r->rate = (double)cfg->link_bps / 8 / 1e9 * RCCC_RATE;	/* B/ns */
	r->chunk = RCCC_CHUNK_MSS * cfg->max_payload_len;
	r->cap = RCCC_CAP_MSS * cfg->max_payload_len;
	if (bdp > r->cap)
		r->cap = bdp > UINT32_MAX / 4 ? UINT32_MAX / 4 : (uint32_t)bdp;
	r->spec = cfg->rccc_spec ? cfg->rccc_spec : 2 * cfg->max_payload_len;
	r->tokens = RCCC_BUCKET_CHUNKS * (double)r->chunk;
	r->next_ns = UINT64_MAX;
}

/* ---- sender ------------------------------------------------------------ */

void pdc_rccc_ini_init(struct pdc_mgr *mgr, struct pdc_ini *ini)
{
	ini->rccc = mgr->cfg.cc & PDC_CC_RCCC;
	ini->cr_used = ini->cr_granted = 0;
	ini->cr_spec = mgr->rccc.spec;
}

int32_t pdc_rccc_credit(const struct pdc_ini *ini)
{
	return (int32_t)(ini->cr_spec + ini->cr_granted - ini->cr_used);
}

/* Credit for a new packet (one may overshoot the limit). */
bool pdc_rccc_has_credit(const struct pdc_ini *ini)
{
	return !ini->rccc || pdc_rccc_credit(ini) > 0;
}

/* The backlog a request reports: queued bytes, 256-byte units, 24 bits. */
uint32_t pdc_rccc_backlog(const struct pdc_ini *ini)
{
	uint64_t u = ((uint64_t)ini->queued_bytes + (1u << RCCC_UNIT_SHIFT) -
		      1) >> RCCC_UNIT_SHIFT;

	return u > 0xFFFFFFu ? 0xFFFFFFu : (uint32_t)u;
}

/*
 * Waiting for credit a whole RTO. A receiver that never sent a CREDIT does
 * not grant (RCCC off there, or our control packets do not reach it): the
 * PDC goes on without RCCC. One that did gets another speculative
 * allowance per RTO, so that nothing waits forever on a silent receiver.
 */
static void pdc_rccc_starved(struct pdc_mgr *mgr, struct pdc *pdc,
			     uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;

	ini->cr_wait_ns = now_ns;
	if (!ini->cr_heard) {
		ini->rccc = false;
		mgr->stats.rccc_off++;
		pdc_log(mgr, "pdc %#x: peer %u grants no credit: RCCC off",
			pdc->id, pdc->peer);
	} else {
		ini->cr_spec += mgr->rccc.spec;
		mgr->stats.rccc_starved++;
	}
	pdc_ready(mgr, pdc);
}

/*
 * Work waits and no credit is left: a CREDIT_REQ tells the receiver of the
 * backlog (at most once per round trip: its answer is on the way), again
 * on the timer in case it or the CREDIT was lost.
 */
void pdc_rccc_wake(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	uint64_t gap = ini->srtt_ns ? ini->srtt_ns : mgr->cfg.base_rtt_ns;

	if (!ini->rccc || pdc_rccc_has_credit(ini) ||
	    ini->send_psn == ini->next_psn) {
		ini->cr_wait_ns = 0;
		return;
	}
	if (!pdc->rid)
		return;		/* the SYN's own backlog tells the target */
	if (!ini->cr_wait_ns) {
		ini->cr_wait_ns = now_ns;
	} else if (now_ns - ini->cr_wait_ns >= ini->rto_ns) {
		pdc_rccc_starved(mgr, pdc, now_ns);
		if (!ini->rccc || pdc_rccc_has_credit(ini))
			return;
	}
	if (now_ns - ini->cr_req_ns >= gap) {
		ini->cr_req_due = true;
		ini->cr_req_ns = now_ns;
		pdc_ready(mgr, pdc);
	}
	/* A lost CREDIT_REQ or CREDIT: ask again if nothing comes. */
	pdc_timer_arm(mgr, pdc, ini->cr_req_ns + gap);
}

/* ref 2.7: CREDIT_REQ, payload the backlog in 256-byte units. */
ssize_t pdc_rccc_put_req(struct pdc_mgr *mgr, struct pdc *pdc, uint8_t *buf,
			 size_t len)
{
	ssize_t n = pdc_put_ctl(pdc, UET_PDS_CTL_CREDIT_REQ, 0,
				pdc->ini.send_psn, pdc_rccc_backlog(&pdc->ini),
				buf, len);

	if (n < 0)
		return n;
	pdc->ini.cr_req_due = false;
	mgr->stats.tx_ctl++;
	mgr->stats.rccc_reqs++;
	return n;
}

/* A CREDIT: the sum only ever rises (a late one changes nothing). */
void pdc_rccc_rx_credit(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
			const struct pdc_ctl *ctl)
{
	struct pdc *pdc = pdc_ini_reply_pdc(mgr, meta, ctl->dpdcid,
					    ctl->spdcid);

	if (!pdc)
		return;
	if (!pdc->ini.rccc) {
		mgr->stats.rx_stale++;
		return;
	}
	mgr->stats.rccc_credits_rx++;
	pdc->ini.cr_heard = true;
	if ((int32_t)(ctl->payload - pdc->ini.cr_granted) > 0) {
		pdc->ini.cr_granted = ctl->payload;
		pdc->ini.cr_wait_ns = 0;
	}
	if (pdc_ini_can_send(pdc))
		pdc_ready(mgr, pdc);
}

/* ---- receiver ---------------------------------------------------------- */

/*
 * What the sender may have sent (the speculative allowance included) less
 * what arrived: credit it has unused or in flight. It needs more while
 * that is below its backlog and the allowance (at most rccc.cap), or
 * below the allowance alone without a backlog.
 */
static bool pdc_rccc_needs(const struct pdc_mgr *mgr, const struct pdc *pdc)
{
	const struct pdc_tgt *tgt = &pdc->tgt;
	const struct pdc_rccc *r = &mgr->rccc;
	int32_t out = (int32_t)(tgt->cr_granted + r->spec - tgt->rcvd_bytes);
	uint64_t want = ((uint64_t)tgt->cr_backlog << RCCC_UNIT_SHIFT) +
			r->spec;

	return pdc->state != PDC_ST_TIME_WAIT &&
	       out < (int64_t)(want < r->cap ? want : r->cap);
}

static void pdc_rccc_list_add(struct pdc_mgr *mgr, struct pdc *pdc)
{
	struct pdc_rccc *r = &mgr->rccc;

	if (pdc->tgt.cr_listed)
		return;
	pdc->tgt.cr_listed = true;
	pdc->tgt.cr_next = NULL;
	if (r->tail)
		r->tail->tgt.cr_next = pdc;
	else
		r->head = pdc;
	r->tail = pdc;
	if (r->next_ns == UINT64_MAX)
		r->next_ns = 0;		/* pdc_rccc_run() decides */
}

static struct pdc *pdc_rccc_list_pop(struct pdc_rccc *r)
{
	struct pdc *pdc = r->head;

	r->head = pdc->tgt.cr_next;
	if (!r->head)
		r->tail = NULL;
	pdc->tgt.cr_listed = false;
	pdc->tgt.cr_next = NULL;
	return pdc;
}

/* A target PDC going away leaves the list (rare: a walk). */
void pdc_rccc_forget(struct pdc_mgr *mgr, struct pdc *pdc)
{
	struct pdc_rccc *r = &mgr->rccc;
	struct pdc **link = &r->head, *prev = NULL;

	if (pdc->role != PDC_ROLE_TGT || !pdc->tgt.cr_listed)
		return;
	while (*link != pdc) {
		prev = *link;
		link = &prev->tgt.cr_next;
	}
	*link = pdc->tgt.cr_next;
	if (r->tail == pdc)
		r->tail = prev;
	pdc->tgt.cr_listed = false;
}

/* A request or CREDIT_REQ told of the sender's backlog (256-byte units). */
void pdc_rccc_tgt_backlog(struct pdc_mgr *mgr, struct pdc *pdc,
			  uint32_t units)
{
	struct pdc_tgt *tgt = &pdc->tgt;

	if (!(mgr->cfg.cc & PDC_CC_RCCC))
		return;
	tgt->cr_backlog = units;
	if (pdc_rccc_needs(mgr, pdc))
		pdc_rccc_list_add(mgr, pdc);
}

/*
 * Grants what the bucket holds, a chunk at a time, round robin over the
 * PDCs that need credit; notes when the next chunk's tokens will be there.
 */
void pdc_rccc_run(struct pdc_mgr *mgr, uint64_t now_ns)
{
	struct pdc_rccc *r = &mgr->rccc;
	double max = RCCC_BUCKET_CHUNKS * (double)r->chunk;

	if (now_ns < r->next_ns)
		return;
	r->tokens += (double)(now_ns - r->last_ns) * r->rate;
	if (r->tokens > max)
		r->tokens = max;
	r->last_ns = now_ns;
	while (r->head && r->tokens >= r->chunk) {
		struct pdc *pdc = pdc_rccc_list_pop(r);

		if (!pdc_rccc_needs(mgr, pdc))
			continue;
		pdc->tgt.cr_granted += r->chunk;
		pdc->tgt.cr_due = true;
		r->tokens -= r->chunk;
		mgr->stats.rccc_granted += r->chunk;
		pdc_ready(mgr, pdc);
		if (pdc_rccc_needs(mgr, pdc))
			pdc_rccc_list_add(mgr, pdc);
	}
	r->next_ns = !r->head ? UINT64_MAX :
		     now_ns + (uint64_t)(((double)r->chunk - r->tokens) /
					 r->rate) + 1;
}

/* ref 2.7: CREDIT, payload the bytes granted in all (wrapping). */
ssize_t pdc_rccc_put_credit(struct pdc_mgr *mgr, struct pdc *pdc,
			    uint8_t *buf, size_t len)
{
	ssize_t n = pdc_put_ctl(pdc, UET_PDS_CTL_CREDIT, 0,
				pdc->tgt.cack_psn + 1, pdc->tgt.cr_granted,
				buf, len);

	if (n < 0)
		return n;
	pdc->tgt.cr_due = false;
	mgr->stats.tx_ctl++;
	mgr->stats.rccc_credits_tx++;
	mgr->tx_ev = pdc->tgt.ack_ev;
	return n;
}

/*
 * A CREDIT_REQ: the sender waits for credit. Its last CREDIT may have been
 * lost while we think it has credit enough: the sum goes again at once,
 * more when it needs more.
 */
void pdc_rccc_rx_req(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		     const struct pdc_ctl *ctl)
{
	struct pdc *pdc = pdc_by_id(mgr, ctl->dpdcid);

	if (!pdc || pdc->role != PDC_ROLE_TGT || pdc->peer != meta->peer ||
	    pdc->rid != ctl->spdcid) {
		mgr->stats.rx_stale++;
		return;
	}
	pdc_rccc_tgt_backlog(mgr, pdc, ctl->payload & 0xFFFFFFu);
	if (mgr->cfg.cc & PDC_CC_RCCC) {
		pdc->tgt.cr_due = true;
		pdc_ready(mgr, pdc);
	}
}
