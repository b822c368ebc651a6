/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Congestion control driven one ACK at a time, for the NSCC tests
 * (test_pdc_nscc.c, test_pdc_dfc.c): a manager for its cfg and counters,
 * and one initiator's state that no wire touches.
 */
#ifndef T_PDC_CC_H
#define T_PDC_CC_H

#include <criterion/criterion.h>

#include "pdc/pdc_priv.h"
#include "test/unit/pdc/t_pdc_nop.h"

#define T_US		1000ull
#define T_MSS		8192
#define T_LINK_BPS	100000000000ull	/* 100 Gb/s */

struct t_cc {
	struct pdc_mgr *mgr;
	struct pdc_ini ini;
	uint64_t now;
	struct pdc_stats base;
};

static void t_cc_init(struct t_cc *t, bool trimming)
{
	struct pdc_cfg cfg;

	pdc_cfg_init(&cfg);
	cfg.cc = PDC_CC_NSCC;
	cfg.link_bps = T_LINK_BPS;
	cfg.base_rtt_ns = 100 * T_US;
	cfg.trimming = trimming;
	cfg.max_payload_len = T_MSS;
	t->mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert(t->mgr);
	memset(&t->ini, 0, sizeof(t->ini));
	pdc_cc_init(&t->mgr->cfg, &t->ini);
	t->now = 1000 * T_US;
}

/* An ACK of |bytes|, with the target's |penalty| and |restore| flag. */
static void t_ack_rcv(struct t_cc *t, uint64_t rtt_ns, uint64_t bytes,
		      bool ecn, uint8_t penalty, bool restore)
{
	struct pdc_nscc_ack a = { .newly = bytes, .rtt_ns = rtt_ns,
				  .pkts = (uint32_t)(bytes / T_MSS), .ecn = ecn,
				  .rcv_penalty = penalty, .restore = restore };

	pdc_nscc_on_ack(t->mgr, &t->ini, &a, t->now);
}

static void t_ack(struct t_cc *t, uint64_t rtt_ns, uint64_t bytes, bool ecn)
{
	t_ack_rcv(t, rtt_ns, bytes, ecn, 0, false);
}

/* 10 us base RTT: BDP 125 KB, largest window 187.5 KB; the window half. */
static void t_cc_settle(struct t_cc *t)
{
	t_ack(t, 10 * T_US, 0, false);
	cr_assert_eq(t->ini.cc.base_rtt_ns, 10 * T_US);
	t->ini.cc.cwnd = t->ini.cc.max_wnd / 2;
	t->ini.cc.avg_delay_ns = 0;
	t->ini.cc.last_adjust_ns = t->now;
	t->ini.cc.qa_end_ns = t->now + 1000 * T_US;	/* no QA in the way */
	t->now += 20 * T_US;
	pdc_mgr_stats(t->mgr, &t->base);
}

static struct pdc_stats t_st(const struct t_cc *t)
{
	struct pdc_stats st;

	pdc_mgr_stats(t->mgr, &st);
	return st;
}

/* Counts since t_cc_settle(), whose own ACK is a proportional increase. */
#define t_since(t, f)	(t_st(t).f - (t)->base.f)

#endif /* T_PDC_CC_H */
