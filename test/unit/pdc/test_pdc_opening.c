/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDCs opening at once (cfg.max_opening): a send to a peer with no PDC
 * waits (-EBUSY, nothing queued) while that many initiator PDCs are
 * unanswered; sends on a PDC that exists go on; an answer, or a PDC that
 * fails, lets the next one open.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "pdc/pdc_priv.h"
#include "test/unit/pdc/t_pdc_nop.h"

#define T_OPENING	4

TestSuite(pdc_opening, .timeout = 30);

static int t_send(struct pdc_mgr *mgr, uint32_t peer, uint64_t now)
{
	struct pdc_pkt pkt = { .peer = peer, .mode = PDC_MODE_RUD,
			       .cookie = peer, .len = 64,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };

	return pdc_send(mgr, &pkt, now);
}

/*
 * Frames of |from| to |to| as the peer the frame was built for (each
 * remote peer its own source), then |to|'s answers back, as the peer
 * they were built for.
 */
static void t_round(struct pdc_mgr *from, struct pdc_mgr *to, uint64_t now)
{
	uint8_t frame[512];
	uint32_t peer;
	ssize_t n;

	while ((n = pdc_tx_build(from, frame, sizeof(frame), &peer, now)) > 0) {
		struct pdc_rx_meta meta = { .peer = peer, .src = peer };

		cr_assert_geq(pdc_rx_frame(to, &meta, frame, (size_t)n, now), 0);
	}
	pdc_ack_flush(to);
	while ((n = pdc_tx_build(to, frame, sizeof(frame), &peer, now + 1)) > 0) {
		struct pdc_rx_meta meta = { .peer = peer, .src = peer };

		cr_assert_geq(pdc_rx_frame(from, &meta, frame, (size_t)n,
					   now + 1), 0);
	}
}

static struct pdc_mgr *t_ini(uint32_t max_retries)
{
	struct pdc_cfg cfg;
	struct pdc_mgr *m;

	pdc_cfg_init(&cfg);
	cfg.max_opening = T_OPENING;
	if (max_retries)
		cfg.max_retries = max_retries;
	m = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert(m);
	return m;
}

Test(pdc_opening, new_peers_wait_for_an_answer)
{
	struct pdc_mgr *ini = t_ini(0), *tgt;
	struct pdc_cfg cfg;
	struct pdc_stats st;

	pdc_cfg_init(&cfg);
	cfg.seed = 7;
	tgt = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert(tgt);
	for (uint32_t p = 1; p <= T_OPENING; p++)
		cr_assert_eq(t_send(ini, p, 10), 0, "peer %u", p);
	cr_expect_eq(ini->opening, T_OPENING);
	cr_expect_eq(t_send(ini, T_OPENING + 1, 10), -EBUSY,
		     "a fifth new peer waits");
	cr_expect_eq(t_send(ini, 1, 10), 0, "an opening PDC takes more");
	pdc_mgr_stats(ini, &st);
	cr_expect_eq(st.opening_waits, 1);
	cr_expect_eq(st.pdc_created, T_OPENING, "nothing made for the wait");
	/* The targets answer: every PDC is established, none opening. */
	t_round(ini, tgt, 100);
	cr_expect_eq(ini->opening, 0);
	for (uint32_t p = T_OPENING + 1; p <= 2 * T_OPENING; p++)
		cr_assert_eq(t_send(ini, p, 200), 0, "peer %u", p);
	cr_expect_eq(t_send(ini, 2 * T_OPENING + 1, 200), -EBUSY);
	t_round(ini, tgt, 300);
	cr_expect_eq(ini->opening, 0);
	pdc_mgr_destroy(ini);
	pdc_mgr_destroy(tgt);
}

Test(pdc_opening, a_peer_that_never_answers_gives_its_turn_back)
{
	struct pdc_mgr *ini = t_ini(2);
	uint8_t frame[512];
	uint64_t now = 10;
	uint32_t peer;
	int i;

	for (uint32_t p = 1; p <= T_OPENING; p++)
		cr_assert_eq(t_send(ini, p, now), 0);
	cr_expect_eq(t_send(ini, T_OPENING + 1, now), -EBUSY);
	/* Into a black hole: the copies go, the retries run out. */
	for (i = 0; i < 100000 && ini->opening; i++) {
		now += 1000000;
		while (pdc_tx_build(ini, frame, sizeof(frame), &peer, now) > 0)
			;
	}
	cr_expect_eq(ini->opening, 0, "failed PDCs are not opening");
	cr_expect_eq(t_send(ini, T_OPENING + 1, now), 0);
	cr_expect_eq(ini->opening, 1);
	pdc_mgr_destroy(ini);
}

/*
 * A full target refuses the SYN (NO_PDC_AVAIL): the PDC waits on it, for
 * seconds maybe, but was answered: the next new peer may open.
 */
Test(pdc_opening, a_full_target_s_refusal_gives_the_turn_back)
{
	struct pdc_mgr *ini, *fill, *tgt;
	struct pdc_cfg cfg;
	struct pdc_stats st;

	pdc_cfg_init(&cfg);
	cfg.max_opening = 1;
	ini = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cfg.max_opening = 0;
	cfg.seed = 11;
	fill = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cfg.seed = 12;
	cfg.max_pdcs = 2;
	cfg.tgt_reserve = 1;
	tgt = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert(ini && fill && tgt);
	/* Two live target PDCs, busy a moment ago: nothing to evict. */
	cr_assert_eq(t_send(fill, 10, 100), 0);
	cr_assert_eq(t_send(fill, 11, 100), 0);
	t_round(fill, tgt, 100);
	cr_assert_eq(tgt->free_cnt, 0);
	cr_assert_eq(t_send(ini, 1, 200), 0);
	cr_expect_eq(t_send(ini, 2, 200), -EBUSY);
	/* A cookie first (the table is short), then the refusal. */
	for (uint64_t now = 300; now < 1000 && ini->opening; now += 100)
		t_round(ini, tgt, now);
	pdc_mgr_stats(ini, &st);
	cr_assert_gt(st.nack_rx_code[UET_PDS_NACK_NO_PDC_AVAIL], 0);
	cr_expect_eq(ini->opening, 0);
	cr_expect_eq(t_send(ini, 2, 1000), 0, "the next new peer opens");
	pdc_mgr_destroy(ini);
	pdc_mgr_destroy(fill);
	pdc_mgr_destroy(tgt);
}
