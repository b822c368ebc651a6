/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Send window and retransmit timeout of an initiator PDC. A window in
 * packets grows on clean ACKs, shrinks a little on ECN-marked ACKs and by
 * half on loss, at most once per window of PSNs (AIMD). With NSCC
 * (cfg.cc) NSCC's window in bytes (pdc_nscc.c) steers the rate, and the
 * packet window stays beside it for loss recovery only (it ignores marks):
 * NSCC alone, whose window far exceeds what a lossy path delivers until a
 * quick adapt, had a ROD PDC resend its whole window at every go-back
 * (the unit sims at 2% loss: 18000 retransmissions for 200 packets, 791
 * with the packet window beside it). The RTO follows measured RTT as in
 * RFC 6298, bounded and backed off.
 */
#include "pdc/pdc_priv.h"

/* ECN cut: 1/8 of the window plus one, gentler than loss's half. */
#define PDC_CC_ECN_SHIFT	3

void pdc_cc_init(const struct pdc_cfg *cfg, struct pdc_ini *ini)
{
	ini->cwnd = cfg->cwnd_init;
	ini->ssthresh = cfg->window;
	ini->cwnd_acc = 0;
	ini->cc_hold_psn = ini->start_psn - 1;
	ini->rto_ns = cfg->rto_init_ns;
	ini->srtt_ns = 0;
	ini->rttvar_ns = 0;
	ini->nscc = cfg->cc & PDC_CC_NSCC;
	if (ini->nscc)
		pdc_nscc_init(cfg, ini);
}

/* The window has room for another packet (one may overshoot it). */
bool pdc_cc_has_room(const struct pdc_ini *ini)
{
	return ini->inflight < ini->cwnd &&
	       (!ini->nscc || (ini->cc.inflight < ini->cc.cwnd &&
			       !ini->cc.pace_at_ns));
}

/* Sending |bytes| more fills the window: that packet asks for an ACK. */
bool pdc_cc_fills(const struct pdc_ini *ini, uint32_t bytes)
{
	return ini->inflight + 1 >= ini->cwnd ||
	       (ini->nscc && ini->cc.inflight + bytes >= ini->cc.cwnd);
}

/*
 * One cut per window of PSNs: packets sent before the cut were sent at the
 * old rate and their loss or marks say nothing new.
 */
static bool pdc_cc_may_cut(const struct pdc_ini *ini)
{
	return !pdc_psn_before(ini->cack_psn, ini->cc_hold_psn);
}

static void pdc_cc_cut(const struct pdc_cfg *cfg, struct pdc_ini *ini,
		       uint32_t cwnd)
{
	ini->cwnd = cwnd < cfg->cwnd_min ? cfg->cwnd_min : cwnd;
	ini->ssthresh = ini->cwnd;
	ini->cwnd_acc = 0;
	ini->cc_hold_psn = ini->send_psn;
}

void pdc_cc_on_ack(const struct pdc_cfg *cfg, struct pdc_ini *ini,
		   uint32_t acked_cnt, bool ecn)
{
	if (ecn && !ini->nscc) {
		if (pdc_cc_may_cut(ini))
			pdc_cc_cut(cfg, ini, ini->cwnd - 1 -
				   (ini->cwnd >> PDC_CC_ECN_SHIFT));
		return;
	}
	if (ini->cwnd < ini->ssthresh) {
		ini->cwnd += acked_cnt;
	} else {
		ini->cwnd_acc += acked_cnt;
		while (ini->cwnd_acc >= ini->cwnd) {
			ini->cwnd_acc -= ini->cwnd;
			ini->cwnd++;
		}
	}
	if (ini->cwnd > cfg->window)
		ini->cwnd = cfg->window;
}

void pdc_cc_on_loss(const struct pdc_cfg *cfg, struct pdc_ini *ini)
{
	if (pdc_cc_may_cut(ini))
		pdc_cc_cut(cfg, ini, ini->cwnd / 2);
}

static uint64_t pdc_clamp_ns(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * The longest RTO the samples may give: rto_max bounds the back-off of a
 * PDC whose peer answered fast (so that a dead one is found in a bounded
 * time), not what a peer that answers slowly is measured to take. A
 * process off its core on a loaded host answers in hundreds of ms; held
 * to 64 ms, its initiators resent every packet (a 256-endpoint
 * all-to-all on 2 cores: 4.7 copies per packet). Some copies of a SYN
 * still fit in pdc_ini_put's time_wait / 2 at this bound.
 */
static uint64_t pdc_rto_ceiling(const struct pdc_cfg *cfg)
{
	uint64_t c = cfg->time_wait_ns / 8;

	return c > cfg->rto_max_ns ? c : cfg->rto_max_ns;
}

/* The RTO the samples give, without the back-off of timeouts since. */
uint64_t pdc_rto_estimate(const struct pdc_cfg *cfg,
			  const struct pdc_ini *ini)
{
	return pdc_clamp_ns(ini->srtt_ns + 4 * ini->rttvar_ns,
			    cfg->rto_min_ns, pdc_rto_ceiling(cfg));
}

/*
 * The RTO after a sample: the estimate, and with nothing lost lately no
 * time-out before half again the slowest round trip of the last windows
 * (at most twice the estimate). In an incast the RTTs of a queue that
 * fills and drains swing past what srtt + 4 rttvar follows: 8:1 fired
 * 38-44 time-outs a run (16384 packets, none dropped), 12-16 with this.
 * With loss, the plain estimate: the timer is how lost packets go again;
 * but never below 9/8 of the slowest round trip lately, which also caps
 * RACK's wait for a sprayed packet (pdc_ini_reorder_wait): shorter, it
 * resends what a slow path still carries, and each resend keeps the PDC
 * lossy (bench_multipath's no-loss run, queues of 3-4 ms: 420-520 of
 * 25600 packets sent twice, none lost, most at an RTO below the slowest
 * RTT; 110-190 with this floor).
 */
static uint64_t pdc_rto_sampled(const struct pdc_cfg *cfg,
				const struct pdc_ini *ini, uint64_t now_ns)
{
	uint64_t est = pdc_rto_estimate(cfg, ini), max = pdc_ini_max_rtt(ini);
	uint64_t floor;

	if (pdc_ini_lossy(ini, now_ns))
		floor = max + max / 8;
	else
		floor = max + max / 2 < 2 * est ? max + max / 2 : 2 * est;
	return floor > est ? pdc_clamp_ns(floor, cfg->rto_min_ns,
					  pdc_rto_ceiling(cfg)) : est;
}

void pdc_rtt_sample(const struct pdc_cfg *cfg, struct pdc_ini *ini,
		    uint64_t rtt_ns, uint64_t now_ns)
{
	uint64_t err;

	/* srtt 0 means no sample yet; a path faster than 1 ns is 1 ns. */
	if (!rtt_ns)
		rtt_ns = 1;
	if (!ini->min_rtt_ns || rtt_ns < ini->min_rtt_ns)
		ini->min_rtt_ns = rtt_ns;
	if (!ini->srtt_ns) {
		ini->srtt_ns = rtt_ns;
		ini->rttvar_ns = rtt_ns / 2;
	} else {
		err = ini->srtt_ns > rtt_ns ? ini->srtt_ns - rtt_ns :
					      rtt_ns - ini->srtt_ns;
		ini->rttvar_ns = (3 * ini->rttvar_ns + err) / 4;
		ini->srtt_ns = (7 * ini->srtt_ns + rtt_ns) / 8;
	}
	ini->rto_ns = pdc_rto_sampled(cfg, ini, now_ns);
}

/*
 * A PDC learnt that its peer may take |est| to answer (its RTO after a
 * sample, or a slow answer): the manager's hint rises to it at once and
 * falls by an eighth of the difference at each smaller one, so that a
 * spell of slow answers is remembered for a few samples, not for ever.
 */
void pdc_rto_hint_sample(struct pdc_mgr *mgr, uint64_t est)
{
	if (est > pdc_rto_ceiling(&mgr->cfg))
		est = pdc_rto_ceiling(&mgr->cfg);
	if (est >= mgr->rto_hint_ns)
		mgr->rto_hint_ns = est;
	else
		mgr->rto_hint_ns -= (mgr->rto_hint_ns - est) / 8;
}

/*
 * A packet whose arrival drew an ACK: how long it took, its path's RTT.
 * The largest of the last two windows of four RTTs each is the slowest
 * path's lately: loss by reordering must wait that long.
 */
void pdc_rtt_path_sample(struct pdc_ini *ini, uint64_t rtt_ns,
			 uint64_t now_ns)
{
	uint64_t max = pdc_ini_max_rtt(ini);
	uint64_t win = 4 * (ini->srtt_ns > max ? ini->srtt_ns : max);

	if (now_ns - ini->rtt_win_ns > win) {
		ini->rtt_win_ns = now_ns;
		ini->rtt_prev_max_ns = ini->rtt_cur_max_ns;
		ini->rtt_cur_max_ns = 0;
	}
	if (rtt_ns > ini->rtt_cur_max_ns)
		ini->rtt_cur_max_ns = rtt_ns;
	if (ini->rtt_cnt < UINT8_MAX)
		ini->rtt_cnt++;
}

/*
 * Doubles the RTO after a time-out, up to rto_max, or up to twice what
 * the samples give when that is longer. A PDC with no sample of its own
 * (its peer never answered) waits at least what the manager's other
 * peers lately took (rto_hint_ns): a new PDC to a host as slow as those
 * would otherwise resend every 64 ms while its first packet waits to be
 * read (and fail after time_wait / 2 of copies).
 */
void pdc_rto_backoff(const struct pdc_mgr *mgr, struct pdc_ini *ini)
{
	const struct pdc_cfg *cfg = &mgr->cfg;
	/* What the PDC has evidence a peer may take: its own, else others'. */
	uint64_t slow = ini->srtt_ns ? 2 * pdc_rto_estimate(cfg, ini) :
				       mgr->rto_hint_ns;
	uint64_t cap = slow > cfg->rto_max_ns ? slow : cfg->rto_max_ns;
	uint64_t rto = ini->rto_ns * 2;

	if (!ini->srtt_ns && rto < slow)
		rto = slow;
	if (cap > pdc_rto_ceiling(cfg))
		cap = pdc_rto_ceiling(cfg);
	ini->rto_ns = pdc_clamp_ns(rto, cfg->rto_min_ns, cap);
}
