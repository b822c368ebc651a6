/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pdc_active_walk: it sees the initiator PDCs that transmitted since the
 * last walk or have packets in flight, each once, with their snapshot
 * (peer, bytes in flight, retransmissions, NSCC's window); idle ones drop
 * out until they send again, and a PDC that fails between walks is gone
 * from the next. pdc_peer_unacked: a peer's packets queued, in flight or
 * waiting to go again, until they are acknowledged.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "test/unit/pdc/t_pdc_hand.h"
#include "test/unit/pdc/t_pdc_nop.h"
#include "test/unit/pdc/test_pdc_sim.h"

#define T_MS	1000000ull
#define T_SEC	1000000000ull

TestSuite(pdc_active, .timeout = 30);

/* What a walk saw: the snapshots, in order. */
struct t_seen {
	uint32_t n;
	struct pdc_info info[8];
};

static void t_seen_add(void *ctx, const struct pdc_info *info)
{
	struct t_seen *s = ctx;

	if (s->n < 8)
		s->info[s->n] = *info;
	s->n++;
}

static uint32_t t_walk(struct pdc_mgr *mgr, struct t_seen *seen)
{
	uint32_t n;

	memset(seen, 0, sizeof(*seen));
	n = pdc_active_walk(mgr, t_seen_add, seen);
	cr_expect_eq(n, seen->n, "the count is what fn saw");
	return n;
}

static void t_send(struct pdc_mgr *mgr, uint32_t peer, uint64_t now)
{
	struct pdc_pkt pkt = { .peer = peer, .len = 16, .mode = PDC_MODE_RUD,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };

	cr_assert_eq(pdc_send(mgr, &pkt, now), 0);
}

static uint32_t t_drain(struct pdc_mgr *mgr, uint64_t now)
{
	uint8_t buf[256];
	uint32_t peer, n = 0;

	while (pdc_tx_build(mgr, buf, sizeof(buf), &peer, now) > 0)
		n++;
	return n;
}

Test(pdc_active, sees_what_transmitted_and_what_is_in_flight)
{
	struct t_seen seen;
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;

	pdc_cfg_init(&cfg);
	cfg.cc = PDC_CC_NSCC;
	mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert_not_null(mgr);
	cr_expect_eq(t_walk(mgr, &seen), 0, "an empty manager");
	for (uint32_t peer = 1; peer <= 3; peer++)
		t_send(mgr, peer, 0);
	cr_expect_eq(t_walk(mgr, &seen), 0, "queued is not transmitted");
	cr_assert_eq(t_drain(mgr, 0), 3);
	cr_assert_eq(t_walk(mgr, &seen), 3);
	for (uint32_t i = 0; i < 3; i++) {
		const struct pdc_info *in = &seen.info[i];

		cr_expect_eq(in->peer, i + 1, "in the order they first sent");
		cr_expect_eq(in->mode, PDC_MODE_RUD);
		cr_expect_eq(in->inflight, 1);
		cr_expect_eq(in->unacked_bytes, 16);
		cr_expect_eq(in->retx, 0);
		cr_expect(in->nscc);
		cr_expect_gt(in->cwnd_bytes, 0);
		cr_expect_geq(in->inflight_bytes, 16);
		cr_expect_neq(in->pdcid, 0);
	}
	cr_expect_eq(t_walk(mgr, &seen), 3, "still in flight: seen again");
	pdc_mgr_destroy(mgr);
}

/* Retries run out for peer 1's PDC, which is freed while listed. */
struct t_fail_ctx {
	int status;
};

static void t_fail_done(void *ctx, const struct pdc_tx_done *d)
{
	struct t_fail_ctx *c = ctx;

	if (d->status)
		c->status = d->status;
}

Test(pdc_active, counts_retransmissions_and_forgets_a_failed_pdc)
{
	struct pdc_ops ops = t_nop_ops;
	struct t_fail_ctx fc = { 0 };
	uint64_t now = 0, retx = 0;
	struct t_seen seen;
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;

	ops.tx_done = t_fail_done;
	pdc_cfg_init(&cfg);
	cfg.max_retries = 3;
	mgr = pdc_mgr_create(&cfg, &ops, &fc);
	cr_assert_not_null(mgr);
	t_send(mgr, 1, now);
	cr_assert_eq(t_drain(mgr, now), 1);
	/* No answer ever comes: resends until the PDC fails (bounded). */
	while (!fc.status && now < 10 * T_SEC) {
		now += T_MS / 2;
		t_drain(mgr, now);
		if (!fc.status && t_walk(mgr, &seen) == 1)
			retx = seen.info[0].retx;
	}
	cr_assert_eq(fc.status, -ETIMEDOUT, "status %d at %llu ns", fc.status,
		     (unsigned long long)now);
	cr_expect_geq(retx, cfg.max_retries, "retx %llu",
		      (unsigned long long)retx);
	cr_expect_eq(t_walk(mgr, &seen), 0, "the failed PDC is gone");
	/* A new PDC to another peer is listed alone. */
	t_send(mgr, 2, now);
	cr_assert_eq(t_drain(mgr, now), 1);
	cr_assert_eq(t_walk(mgr, &seen), 1);
	cr_expect_eq(seen.info[0].peer, 2);
	pdc_mgr_destroy(mgr);
}

/* Over the simulated wire: once everything is acknowledged, it drops out. */
Test(pdc_active, an_idle_pdc_drops_out_until_it_sends_again)
{
	struct t_wire w = { .delay_ns = 5000 };
	struct t_sim *s = t_sim_new(&w, 41, 2);
	struct t_seen seen;
	struct pdc_cfg cfg;

	pdc_cfg_init(&cfg);
	cfg.seed = 41;
	t_end_start(s, 0, &cfg);
	cfg.seed = 42;
	t_end_start(s, 1, &cfg);
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 200, 0);
	cr_assert(t_sim_run(s, 10 * T_SEC, t_sim_senders_done));
	cr_assert_eq(t_walk(s->end[0]->mgr, &seen), 1, "it sent");
	cr_expect_eq(seen.info[0].peer, 1);
	cr_expect_eq(seen.info[0].inflight, 0, "all acknowledged");
	cr_expect(seen.info[0].is_established);
	cr_expect_gt(seen.info[0].srtt_ns, 0);
	cr_expect_eq(t_walk(s->end[0]->mgr, &seen), 0, "idle: not listed");
	cr_expect_eq(t_walk(s->end[1]->mgr, &seen), 0,
		     "a target PDC is never listed");
	t_sim_free(s);
}

Test(pdc_active, tells_a_peer_with_packets_unacknowledged)
{
	struct pdc_mgr *a, *b;
	struct pdc_cfg cfg;
	uint8_t buf[256];
	uint32_t peer;

	pdc_cfg_init(&cfg);
	a = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cfg.seed++;
	b = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert(a && b);
	cr_expect_not(pdc_peer_unacked(a, 1), "no PDC");
	t_send(a, 1, 0);
	cr_expect(pdc_peer_unacked(a, 1), "queued");
	cr_expect_not(pdc_peer_unacked(a, 2), "another peer");
	cr_assert_gt(pdc_tx_build(a, buf, sizeof(buf), &peer, 0), 0);
	cr_expect(pdc_peer_unacked(a, 1), "in flight (and lost)");
	cr_assert_eq(pdc_tx_build(a, buf, 8, &peer, 10 * T_MS), -ENOBUFS);
	cr_expect(pdc_peer_unacked(a, 1), "waiting to go again");
	t_hand(a, b, 0, 10 * T_MS);
	pdc_ack_flush(b);
	t_hand(b, a, 1, 10 * T_MS);
	cr_expect_not(pdc_peer_unacked(a, 1), "acknowledged");
	cr_expect_not(pdc_peer_unacked(b, 0), "a target PDC is not ours");
	pdc_mgr_destroy(a);
	pdc_mgr_destroy(b);
}
