/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The PDS's congestion control, inside the PDC library: the state NSCC
 * keeps per initiator PDC, RCCC's grants per manager, and the functions
 * of pdc_cc.c (the window without NSCC, the RTO), pdc_nscc.c and
 * pdc_rccc.c. Included by pdc_priv.h; not for the library's users.
 */
#ifndef PDC_CC_PRIV_H
#define PDC_CC_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pdc/pdc.h"
#include "pdc/pdc_hdr.h"

struct pdc;
struct pdc_ini;
struct pdc_mgr;

/*
 * NSCC's state of one initiator PDC (pdc_nscc.c): a window in bytes, and
 * what steers it. Doubles: the increases are fractions of a byte per ACK.
 */
struct pdc_nscc {
	double cwnd, max_wnd;	/* bytes */
	double scale;		/* a: BDP over the spec's reference BDP,
				 * set with the base RTT as max_wnd is */
	double inc;		/* increase to apply, bytes x bytes of cwnd */
	double inflight;	/* bytes sent and not yet reported received */
	uint64_t base_rtt_ns;	/* smallest RTT less service time seen */
	uint64_t avg_delay_ns;	/* EWMA of queueing delay */
	uint32_t rcvd_units;	/* the last ACK_CC rcvd_bytes (256 B units) */
	bool rcvd_seen;		/* rcvd_units holds a value */
	bool increasing;	/* fast increase going on */
	bool trigger_qa;	/* a loss or trim asks for a quick adapt */
	bool qa_queue;		/* a trim or a marked delay past 4 targets
				 * since qa_start_ns: a queue to drain */
	uint64_t achieved;	/* bytes received since the last QA check */
	uint64_t received;	/* bytes received since the last adjustment */
	uint64_t fast_cnt;	/* bytes acknowledged at near-zero delay */
	uint64_t ignore, ignored;	/* marked bytes after a QA to skip */
	uint64_t qa_start_ns, qa_end_ns, last_dec_ns, last_adjust_ns;
	double link_bps;	/* the rate max_wnd and scale are of: cfg's,
				 * or what a guessed one became (pdc_nscc.c,
				 * nscc_rate_marked and nscc_rate_period) */
	double dr_cur, dr_prev;	/* the most delivered in a QA period, bits/s:
				 * in this run of NSCC_DR_PERIODS and the last */
	uint32_t dr_periods;
	bool period_marked;	/* an ECN mark or a trim since qa_start_ns */
	double saved_cwnd;	/* the window before the target's penalty
				 * (Rcv_Cwnd_Pend) began; 0: none */
	uint64_t pace_at_ns;	/* a window below a packet: nothing new
				 * before this (pdc_nscc_pace); 0: none */
};

/* RCCC's grants of one manager (pdc_rccc.c). */
struct pdc_rccc {
	double rate;		/* bytes per ns */
	double tokens;		/* bytes that may be granted now */
	uint32_t chunk, cap, spec;
	uint64_t last_ns, next_ns;
	struct pdc *head, *tail;	/* target PDCs owed credit */
};

/* pdc_cc.c */
void pdc_cc_init(const struct pdc_cfg *cfg, struct pdc_ini *ini);
void pdc_cc_on_ack(const struct pdc_cfg *cfg, struct pdc_ini *ini,
		   uint32_t acked_cnt, bool ecn);
void pdc_cc_on_loss(const struct pdc_cfg *cfg, struct pdc_ini *ini);
bool pdc_cc_has_room(const struct pdc_ini *ini);
bool pdc_cc_fills(const struct pdc_ini *ini, uint32_t bytes);
void pdc_ini_lost(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t psn,
		  uint64_t now_ns);

/* pdc_nscc.c */
/* What one ACK tells NSCC. */
struct pdc_nscc_ack {
	uint64_t newly;		/* bytes newly received */
	uint64_t rtt_ns;	/* RTT less the target's service time; 0: none */
	uint32_t pkts;		/* packets it newly acknowledged */
	bool ecn;		/* it echoed a CE mark */
	uint8_t rcv_penalty;	/* Rcv_Cwnd_Pend, 0..127: the target is
				 * behind (3.6.13.2) */
	bool restore;		/* Restore_Cwnd: it has caught up */
};

void pdc_nscc_init(const struct pdc_cfg *cfg, struct pdc_ini *ini);
void pdc_nscc_on_ack(struct pdc_mgr *mgr, struct pdc_ini *ini,
		     const struct pdc_nscc_ack *a, uint64_t now_ns);
void pdc_nscc_on_loss(struct pdc_mgr *mgr, struct pdc_ini *ini,
		      uint32_t bytes, uint64_t now_ns);
void pdc_nscc_on_trim(struct pdc_mgr *mgr, struct pdc_ini *ini,
		      uint32_t bytes, uint64_t now_ns);
void pdc_nscc_sent(struct pdc_ini *ini, uint32_t bytes);
void pdc_nscc_pace(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t bytes,
		   uint64_t now_ns);
void pdc_nscc_pace_wake(struct pdc_mgr *mgr, struct pdc *pdc,
			uint64_t now_ns);
uint64_t pdc_nscc_received(struct pdc_ini *ini, uint32_t units);
uint64_t pdc_nscc_target(const struct pdc_cfg *cfg, const struct pdc_ini *ini);
uint64_t pdc_rto_estimate(const struct pdc_cfg *cfg,
			  const struct pdc_ini *ini);
void pdc_rto_hint_sample(struct pdc_mgr *mgr, uint64_t est);
void pdc_rtt_sample(const struct pdc_cfg *cfg, struct pdc_ini *ini,
		    uint64_t rtt_ns, uint64_t now_ns);
void pdc_rtt_path_sample(struct pdc_ini *ini, uint64_t rtt_ns,
			 uint64_t now_ns);
void pdc_rto_backoff(const struct pdc_mgr *mgr, struct pdc_ini *ini);

/* pdc_rccc.c */
void pdc_rccc_init(struct pdc_mgr *mgr);
void pdc_rccc_ini_init(struct pdc_mgr *mgr, struct pdc_ini *ini);
bool pdc_rccc_has_credit(const struct pdc_ini *ini);
int32_t pdc_rccc_credit(const struct pdc_ini *ini);
uint32_t pdc_rccc_backlog(const struct pdc_ini *ini);
void pdc_rccc_wake(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns);
ssize_t pdc_rccc_put_req(struct pdc_mgr *mgr, struct pdc *pdc, uint8_t *buf,
			 size_t len);
void pdc_rccc_rx_credit(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
			const struct pdc_ctl *ctl);
void pdc_rccc_forget(struct pdc_mgr *mgr, struct pdc *pdc);
void pdc_rccc_tgt_backlog(struct pdc_mgr *mgr, struct pdc *pdc,
			  uint32_t units);
void pdc_rccc_run(struct pdc_mgr *mgr, uint64_t now_ns);
ssize_t pdc_rccc_put_credit(struct pdc_mgr *mgr, struct pdc *pdc,
			    uint8_t *buf, size_t len);
void pdc_rccc_rx_req(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		     const struct pdc_ctl *ctl);

#endif
