/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NSCC, the sender-side congestion control of UE 1.0 3.6.13, for one
 * initiator PDC: a window in bytes, moved on every ACK by two signals, the
 * ECN echo (M) and the queueing delay (the RTT less the target's service
 * time, less the base RTT) against a target delay:
 *
 *   no mark, delay < target:   proportional increase (fast when ~0)
 *   no mark, delay >= target:  fair increase (a constant per window)
 *   mark, delay < target:      hold (the queue is not ours to drain)
 *   mark, delay >= target:     multiplicative decrease, once per base RTT
 *
 * Quick adapt: a loss, a trimmed packet or a marked delay past four
 * targets, when less than 1/8 of the largest window arrived in the last
 * base RTT plus target (a round trip after a loss alone), sets the window
 * to what did arrive. The largest window is 1.5 times the bandwidth-delay
 * product of our link (cfg.link_bps) and the base RTT, which only ever
 * decreases. A target that falls behind holds the window down itself
 * (destination flow control, nscc_rcv_penalty).
 *
 * The constants and their scaling follow the spec's reference (100 Gb/s,
 * 12 us), as the UEC's simulator (uet-htsim, uec.cpp) sets them: the
 * increases scale with a = BDP / reference BDP. Written from the spec's
 * description and the simulator's published defaults; documented in
 * fi_uet(7). In-flight bytes fall by the target's received-bytes count
 * (ACK_CC), not by acknowledged PSNs: arrivals past the SACK bitmap's 64
 * PSNs still open the window.
 *
 * NSCC needs the link's rate, which a virtual device does not report; a
 * guessed rate far above the fabric's (100 Gb/s on an 800 Mb/s port:
 * 125x) makes every increase and the largest window as much too large.
 * So a guessed rate is learnt (nscc_rate_marked, nscc_rate_period), beyond
 * the spec.
 */
#include <string.h>

#include "pdc/pdc_priv.h"

#define NSCC_REF_BDP		150000.0	/* 100 Gb/s x 12 us, bytes */
#define NSCC_REF_RTT_NS		12000.0
#define NSCC_MAX_WND_BDPS	1.5
#define NSCC_GAMMA		0.8	/* decrease: gamma x excess delay */
#define NSCC_MD_FLOOR		0.5	/* ... at most half the window */
#define NSCC_PROP_MSS		4.0	/* proportional increase, MSS x a */
#define NSCC_FAIR_MSS		5.0	/* fair increase per window, MSS x a */
#define NSCC_ETA_MSS		0.15	/* per base RTT, MSS x a */
#define NSCC_FAST_SCALE		0.25	/* fast increase: acked bytes x a x this */
#define NSCC_FAST_DELAY_NS	1000	/* "no queue": below 1 us */
#define NSCC_DELAY_EWMA		0.0125	/* per packet acknowledged */
#define NSCC_DELAY_EWMA_MAX	0.5
#define NSCC_QA_GATE		3	/* quick adapt below max_wnd / 8 */
#define NSCC_QA_TARGETS		4	/* quick adapt past 4 x target delay */
#define NSCC_ADJUST_MSS		8	/* apply increases every 8 MSS */
#define NSCC_DR_PERIODS		8	/* delivery's max: over 8-16 QA periods */
#define NSCC_GUESS_HEADROOM	2.0	/* a guessed rate: twice the delivered */
#define NSCC_GUESS_MIN_BPS	1e6
#define NSCC_MIN_WND_MSS	4	/* the largest window, at least (ours:
					 * 800 Mbit/s x 20 us x 1.5 is 3 KB, a
					 * third of a jumbo frame; 4:1 incast
					 * 4.9 -> 4.1 x its ideal time) */
/*
 * The smallest window, MSS / this: below a packet the window is a rate
 * (pdc_nscc_pace). N senders into one port each with one MSS out queue
 * N MSS there whatever the delay says (4 x 8 KiB at 800 Mbit/s: 330 us);
 * a 4:1 incast's fair share of that port's BDP and target queue (20 us
 * each way) is about an eighth of a jumbo MSS, 8:1 a sixteenth.
 */
#define NSCC_MIN_CWND_DIV	16

static double nscc_mss(const struct pdc_cfg *cfg)
{
	return (double)cfg->max_payload_len;
}

static double nscc_bdp(const struct pdc_nscc *n, uint64_t rtt_ns)
{
	return n->link_bps / 8.0 * (double)rtt_ns / 1e9;
}

/* The target delay: set, or scaled to the base RTT (3/4 with trimming). */
uint64_t pdc_nscc_target(const struct pdc_cfg *cfg, const struct pdc_ini *ini)
{
	if (cfg->target_qdelay_ns)
		return cfg->target_qdelay_ns;
	return cfg->trimming ? ini->cc.base_rtt_ns / 4 * 3 : ini->cc.base_rtt_ns;
}

static void nscc_set_base_rtt(const struct pdc_cfg *cfg, struct pdc_nscc *n,
			      uint64_t rtt_ns)
{
	double bdp = nscc_bdp(n, rtt_ns), max = NSCC_MAX_WND_BDPS * bdp;

	n->base_rtt_ns = rtt_ns;
	n->scale = bdp / NSCC_REF_BDP;
	n->max_wnd = max > NSCC_MIN_WND_MSS * nscc_mss(cfg) ? max :
		     NSCC_MIN_WND_MSS * nscc_mss(cfg);
}

void pdc_nscc_init(const struct pdc_cfg *cfg, struct pdc_ini *ini)
{
	struct pdc_nscc *n = &ini->cc;

	memset(n, 0, sizeof(*n));
	n->link_bps = (double)cfg->link_bps;
	nscc_set_base_rtt(cfg, n, cfg->base_rtt_ns);
	/*
	 * The simulator starts at the largest window, 1.5 BDPs. Ours is at
	 * least NSCC_MIN_WND_MSS packets, so that a slow link's window can
	 * grow past a fraction of a jumbo frame; starting there, 16 senders
	 * into an 800 Mbit/s port put 16 x 4 jumbo frames (530 KB) into its
	 * 256 KiB at once. Start at the simulator's, a packet at least.
	 */
	n->cwnd = NSCC_MAX_WND_BDPS * nscc_bdp(n, cfg->base_rtt_ns);
	/*
	 * A guessed rate's 1.5 BDPs may be far more than the fabric holds
	 * (100 Gb/s x 50 us: 937 KB a sender, into a 256 KiB port): start
	 * at a packet and let the increases find the rate, as TCP's slow
	 * start does.
	 */
	if (n->cwnd < nscc_mss(cfg) || cfg->link_guessed)
		n->cwnd = nscc_mss(cfg);
	if (n->cwnd > n->max_wnd)
		n->cwnd = n->max_wnd;
}

static void nscc_bound(const struct pdc_cfg *cfg, struct pdc_nscc *n)
{
	if (n->cwnd < nscc_mss(cfg) / NSCC_MIN_CWND_DIV)
		n->cwnd = nscc_mss(cfg) / NSCC_MIN_CWND_DIV;
	if (n->cwnd > n->max_wnd)
		n->cwnd = n->max_wnd;
}

/*
 * The delay average, weighted per packet acknowledged: the simulator
 * updates it on every packet's ACK, ours cover up to 16. A delay past the
 * target without a mark is not our queue (a slow host, not a switch):
 * it pulls the average towards a quarter of the base RTT instead.
 */
static void nscc_delay_sample(struct pdc_ini *ini, uint64_t target,
			      uint64_t delay, uint32_t pkts, bool ecn)
{
	struct pdc_nscc *n = &ini->cc;
	double w = NSCC_DELAY_EWMA * (pkts ? pkts : 1);
	double v = (double)delay;

	if (w > NSCC_DELAY_EWMA_MAX)
		w = NSCC_DELAY_EWMA_MAX;
	if (!ecn && delay > target)
		v = (double)n->base_rtt_ns / 4;
	n->avg_delay_ns = (uint64_t)(w * v + (1 - w) * (double)n->avg_delay_ns);
}

/*
 * A guessed link rate (cfg.link_guessed), moved by the most delivered in a
 * QA period lately (the max over 8-16 periods: a flow's share of a busy
 * port with its bursts, not the instant's; with the period still open
 * once it is a base RTT long):
 *  - a switch marks our packets past the target delay: we send more than
 *    the bottleneck gives us, so the rate falls to twice that, at once
 *    (nscc_rate_marked), as a flow that starts finds its rate;
 *  - a period without marks raises it to twice that, never past the
 *    guess: a flow held back by its window grows 3x a period (its largest
 *    window is 1.5 BDPs).
 * Only marks lower it: on shared cores an RTT is mostly waiting for a CPU,
 * and a rate read from deliveries alone would shrink with every slow
 * round trip. So an incast into a slow port, where a rate guessed 125x too
 * high made every increase as much too large and dropped 5-9% of the
 * frames, holds its queue as if the rate were known.
 */
static double nscc_dr_max(const struct pdc_nscc *n)
{
	return n->dr_cur > n->dr_prev ? n->dr_cur : n->dr_prev;
}

/* nscc_dr_max() with the open period, once it is a base RTT long. */
static double nscc_rate_recent(const struct pdc_nscc *n, uint64_t now_ns)
{
	double span = (double)(now_ns - n->qa_start_ns);
	double dr = nscc_dr_max(n);

	if (n->qa_end_ns && span >= (double)n->base_rtt_ns && span > 0 &&
	    (double)n->achieved * 8e9 / span > dr)
		dr = (double)n->achieved * 8e9 / span;
	return dr;
}

static void nscc_rate_set(const struct pdc_cfg *cfg, struct pdc_nscc *n,
			  double rate)
{
	if (rate < NSCC_GUESS_MIN_BPS)
		rate = NSCC_GUESS_MIN_BPS;
	if (rate > (double)cfg->link_bps)
		rate = (double)cfg->link_bps;
	n->link_bps = rate;
	nscc_set_base_rtt(cfg, n, n->base_rtt_ns);
	nscc_bound(cfg, n);
}

/* A marked ACK past the target delay. */
static void nscc_rate_marked(const struct pdc_cfg *cfg, struct pdc_nscc *n,
			     uint64_t now_ns)
{
	double rate;

	if (!cfg->link_guessed)
		return;
	rate = NSCC_GUESS_HEADROOM * nscc_rate_recent(n, now_ns);
	if (rate > 0 && rate < n->link_bps)
		nscc_rate_set(cfg, n, rate);
}

/* The end of a QA period, before it starts the next. */
static void nscc_rate_period(const struct pdc_cfg *cfg, struct pdc_nscc *n,
			     uint64_t now_ns)
{
	double span = (double)(now_ns - n->qa_start_ns), dr, rate;
	bool marked = n->period_marked;

	n->period_marked = false;
	if (!cfg->link_guessed || !n->qa_end_ns || span <= 0)
		return;
	dr = (double)n->achieved * 8e9 / span;
	if (dr > n->dr_cur)
		n->dr_cur = dr;
	rate = NSCC_GUESS_HEADROOM * nscc_dr_max(n);
	if (++n->dr_periods >= NSCC_DR_PERIODS) {
		n->dr_prev = n->dr_cur;
		n->dr_cur = 0;
		n->dr_periods = 0;
	}
	if (!marked && rate > n->link_bps)
		nscc_rate_set(cfg, n, rate);
}

/*
 * Quick adapt (3.6.13): at most once per base RTT plus target. Returns
 * true when it ran or the ACK is one of the marked ones in flight when it
 * last did: then no other change this ACK.
 *
 * Two readings of ours. A delay past 4 targets triggers it only on a
 * marked ACK: unmarked, it is not a switch's queue (nscc_delay_sample),
 * and where a jumbo frame's serialization dwarfs the base RTT (400
 * Mbit/s: 164 us against 15 us) every full packet's delay is past 4
 * targets, so quick adapt cut the window to the packet or two that
 * arrive in a base RTT at every chance. And a loss with no queue behind
 * it (no trim, no such mark since the period began: a failed path, a
 * corrupt frame) measures what arrived over a round trip at least
 * (srtt): it says nothing of a queue to drain, and what the live paths
 * deliver in a base RTT may be less than a packet there (the window fell
 * to its floor and waited out the probe or time-out: bench_multipath's
 * dead link of 4 cost 5-165 ms before the flow was back at 70% of the
 * live links, 0.1-2.6 ms with both changes; its incasts, with marks,
 * measure the same).
 */
static bool nscc_quick_adapt(struct pdc_mgr *mgr, struct pdc_ini *ini,
			     bool loss, bool ecn, uint64_t delay,
			     uint64_t now_ns)
{
	const struct pdc_cfg *cfg = &mgr->cfg;
	struct pdc_nscc *n = &ini->cc;
	uint64_t target = pdc_nscc_target(cfg, ini);
	bool done = false;

	if (ecn && delay > NSCC_QA_TARGETS * target)
		n->qa_queue = true;
	if (ecn && n->ignored < n->ignore) {
		done = true;
	} else if (now_ns > n->qa_end_ns) {
		if (n->qa_end_ns && (n->trigger_qa || loss || n->qa_queue) &&
		    (double)n->achieved < n->max_wnd / (1 << NSCC_QA_GATE)) {
			if (!n->qa_queue &&
			    now_ns - n->qa_start_ns < ini->srtt_ns) {
				n->qa_end_ns = n->qa_start_ns + ini->srtt_ns;
				return false;	/* a round trip's worth first */
			}
			n->cwnd = (double)n->achieved;
			nscc_bound(cfg, n);
			n->ignore = (uint64_t)n->inflight;
			n->ignored = 0;
			n->trigger_qa = false;
			mgr->stats.cc_quick_adapts++;
			done = true;
		}
		nscc_rate_period(cfg, n, now_ns);
		n->achieved = 0;
		n->qa_queue = false;
		n->qa_start_ns = now_ns;
		n->qa_end_ns = now_ns + n->base_rtt_ns + target;
	}
	if (done) {
		n->inc = 0;
		n->received = 0;
	}
	return done;
}

/*
 * How much the window may grow on |acked| bytes: with a guessed rate, by
 * no more than them (twice a round trip, as TCP's slow start), so that a
 * flow starting on a slow fabric finds the queue before it overfills it;
 * the spec's increases, scaled to 100 Gb/s, add up to 100 KB an ACK.
 */
static double nscc_growth(const struct pdc_cfg *cfg, double inc,
			  uint64_t acked)
{
	return cfg->link_guessed && inc > (double)acked ? (double)acked : inc;
}

/* Near-zero delay for a whole window: grow by a share of what arrives. */
static bool nscc_fast_increase(const struct pdc_cfg *cfg, struct pdc_nscc *n,
			       uint64_t newly, uint64_t delay)
{
	if (delay < NSCC_FAST_DELAY_NS) {
		n->fast_cnt += newly;
		if ((double)n->fast_cnt > n->cwnd || n->increasing) {
			n->cwnd += nscc_growth(cfg, (double)newly *
					       NSCC_FAST_SCALE * n->scale,
					       newly);
			n->increasing = true;
			return true;
		}
	} else {
		n->fast_cnt = 0;
	}
	n->increasing = false;
	return false;
}

static void nscc_decrease(struct pdc_mgr *mgr, struct pdc_ini *ini,
			  uint64_t target, uint64_t now_ns)
{
	struct pdc_nscc *n = &ini->cc;
	double avg = (double)n->avg_delay_ns, f;

	n->increasing = false;
	n->fast_cnt = 0;
	if (n->avg_delay_ns <= target || now_ns - n->last_dec_ns <= n->base_rtt_ns)
		return;
	f = 1 - NSCC_GAMMA * (avg - (double)target) / avg;
	n->cwnd *= f > NSCC_MD_FLOOR ? f : NSCC_MD_FLOOR;
	n->last_dec_ns = now_ns;
	mgr->stats.cc_decreases++;
}

/* The increases gathered since the last adjustment, and eta per base RTT. */
static void nscc_adjust(const struct pdc_cfg *cfg, struct pdc_nscc *n,
			uint64_t now_ns)
{
	double inc = n->inc / n->cwnd;

	if (now_ns - n->last_adjust_ns >= n->base_rtt_ns) {
		inc += NSCC_ETA_MSS * nscc_mss(cfg) * n->scale;
		n->last_adjust_ns = now_ns;
	}
	n->cwnd += nscc_growth(cfg, inc, n->received);
	n->inc = 0;
	n->received = 0;
}

/*
 * Destination flow control (3.6.13.2): a target that cannot keep up with
 * what arrives returns a penalty (Rcv_Cwnd_Pend, 1..127). The window falls
 * to what is in flight, less penalty/128 of the bytes this ACK reports
 * received (never below a packet), and does not grow while it lasts: no
 * new packet goes until the penalty ends, and the higher it was the less
 * window is left then. The window before the first penalty is kept;
 * Restore_Cwnd on an ACK without one gives it back. Unlike the spec's
 * pseudocode, never lower than the window has grown to since: a target
 * that caught up long after asks for no less.
 * Returns true while the target holds the window down.
 */
static bool nscc_rcv_penalty(struct pdc_mgr *mgr, struct pdc_nscc *n,
			     const struct pdc_nscc_ack *ack)
{
	double mss = nscc_mss(&mgr->cfg), cut;

	if (ack->rcv_penalty) {
		if (!n->saved_cwnd)
			n->saved_cwnd = n->cwnd;
		cut = (double)(((uint64_t)ack->rcv_penalty * ack->newly) >> 7);
		if (n->cwnd > n->inflight)
			n->cwnd = n->inflight;
		n->cwnd = n->cwnd - cut > mss ? n->cwnd - cut : mss;
		mgr->stats.cc_rcv_penalised++;
		return true;
	}
	if (ack->restore && n->saved_cwnd > 0) {
		if (n->cwnd < n->saved_cwnd)
			n->cwnd = n->saved_cwnd;
		n->saved_cwnd = 0;
		mgr->stats.cc_rcv_restores++;
	}
	return false;
}

void pdc_nscc_on_ack(struct pdc_mgr *mgr, struct pdc_ini *ini,
		     const struct pdc_nscc_ack *ack, uint64_t now_ns)
{
	const struct pdc_cfg *cfg = &mgr->cfg;
	struct pdc_nscc *n = &ini->cc;
	uint64_t delay = n->avg_delay_ns, target;
	double mss = nscc_mss(cfg);
	bool limited;

	n->achieved += ack->newly;
	n->received += ack->newly;
	n->ignored += ack->newly;
	if (ack->rtt_ns && ack->rtt_ns < n->base_rtt_ns)
		nscc_set_base_rtt(cfg, n, ack->rtt_ns);
	limited = nscc_rcv_penalty(mgr, n, ack);
	target = pdc_nscc_target(cfg, ini);
	if (ack->rtt_ns) {
		delay = ack->rtt_ns - n->base_rtt_ns;
		nscc_delay_sample(ini, target, delay, ack->pkts, ack->ecn);
	}
	mgr->stats.cc_ecn_acks += ack->ecn;
	n->period_marked |= ack->ecn;
	if (ack->ecn && delay >= target)
		nscc_rate_marked(cfg, n, now_ns);
	if (nscc_quick_adapt(mgr, ini, false, ack->ecn, delay, now_ns))
		return;
	if (limited && !ack->ecn) {
		/* no increase while the target is behind */
	} else if (!ack->ecn && delay >= target) {
		n->inc += NSCC_FAIR_MSS * mss * n->scale * (double)ack->newly;
		mgr->stats.cc_fair_incs++;
	} else if (!ack->ecn) {
		if (nscc_fast_increase(cfg, n, ack->newly, delay)) {
			mgr->stats.cc_fast_incs++;
		} else {
			/* alpha x newly x (target - delay), alpha's target
			 * cancelling against scale b's */
			n->inc += NSCC_PROP_MSS * mss * n->scale * (double)ack->newly *
				  (double)(target - delay) / NSCC_REF_RTT_NS;
			mgr->stats.cc_prop_incs++;
		}
	} else if (delay >= target) {
		nscc_decrease(mgr, ini, target, now_ns);
	} else {
		mgr->stats.cc_holds++;
	}
	nscc_bound(cfg, n);
	if (n->received > NSCC_ADJUST_MSS * mss ||
	    now_ns - n->last_adjust_ns > n->base_rtt_ns)
		nscc_adjust(cfg, n, now_ns);
	nscc_bound(cfg, n);
}

static void nscc_out_of_flight(struct pdc_nscc *n, uint64_t bytes)
{
	n->inflight = n->inflight > bytes ? n->inflight - bytes : 0;
}

/*
 * A packet found lost (SACK, timeout, a ROD go-back): out of flight; a
 * quick adapt if it may, else the window less it.
 */
void pdc_nscc_on_loss(struct pdc_mgr *mgr, struct pdc_ini *ini,
		      uint32_t bytes, uint64_t now_ns)
{
	struct pdc_nscc *n = &ini->cc;

	nscc_out_of_flight(n, bytes);
	n->trigger_qa = true;
	if (!nscc_quick_adapt(mgr, ini, true, false, 0, now_ns))
		n->cwnd -= bytes;
	nscc_bound(&mgr->cfg, n);
}

/*
 * A trimmed packet (NACK TRIMMED): a queue full enough to trim, a delay of
 * about one more base RTT; quick adapt if it may, else the window less it.
 */
void pdc_nscc_on_trim(struct pdc_mgr *mgr, struct pdc_ini *ini,
		      uint32_t bytes, uint64_t now_ns)
{
	struct pdc_nscc *n = &ini->cc;
	uint64_t target = pdc_nscc_target(&mgr->cfg, ini);

	nscc_out_of_flight(n, bytes);
	n->ignored += bytes;
	nscc_delay_sample(ini, target, n->base_rtt_ns, 1, true);
	n->trigger_qa = true;
	n->qa_queue = true;
	n->period_marked = true;
	nscc_rate_marked(&mgr->cfg, n, now_ns);
	if (!nscc_quick_adapt(mgr, ini, true, true, 0, now_ns))
		n->cwnd -= bytes;
	nscc_bound(&mgr->cfg, n);
}

void pdc_nscc_sent(struct pdc_ini *ini, uint32_t bytes)
{
	ini->cc.inflight += bytes;
}

/*
 * A new packet of |bytes| just left. A window below it is a rate: cwnd
 * bytes per base RTT and target delay, so nothing new goes until the
 * packet's share of that time has passed (the window still gates too:
 * with cwnd below a packet, only one is out at a time).
 */
void pdc_nscc_pace(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t bytes,
		   uint64_t now_ns)
{
	struct pdc_ini *ini = &pdc->ini;
	struct pdc_nscc *n = &ini->cc;
	double rtt;

	if (n->cwnd >= bytes)
		return;
	rtt = (double)(n->base_rtt_ns + pdc_nscc_target(&mgr->cfg, ini));
	n->pace_at_ns = now_ns + (uint64_t)((double)bytes * rtt / n->cwnd);
	pdc_timer_arm(mgr, pdc, n->pace_at_ns);
}

/* From the PDC's timer: a paced PDC may send again once its time came. */
void pdc_nscc_pace_wake(struct pdc_mgr *mgr, struct pdc *pdc,
			uint64_t now_ns)
{
	struct pdc_nscc *n = &pdc->ini.cc;

	if (!n->pace_at_ns)
		return;
	if (now_ns < n->pace_at_ns) {
		pdc_timer_arm(mgr, pdc, n->pace_at_ns);
		return;
	}
	n->pace_at_ns = 0;
	pdc_ready(mgr, pdc);
}

/*
 * ACK_CC's rcvd_bytes, 24 bits of 256-byte units, wrapping: the bytes
 * newly received since the last ACK_CC, 0 for an older one overtaken on
 * another path (a step back of less than half the space).
 */
uint64_t pdc_nscc_received(struct pdc_ini *ini, uint32_t units)
{
	struct pdc_nscc *n = &ini->cc;
	uint32_t d = (units - n->rcvd_units) & UET_PDS_NSCC_RCVD_BYTES_MAX;
	uint64_t bytes;

	if (!n->rcvd_seen) {
		d = units;
		n->rcvd_seen = true;
	} else if (d > UET_PDS_NSCC_RCVD_BYTES_MAX / 2) {
		return 0;
	}
	n->rcvd_units = units;
	bytes = (uint64_t)d << UET_PDS_NSCC_RCVD_UNIT_SHIFT;
	nscc_out_of_flight(n, bytes);
	return bytes;
}
