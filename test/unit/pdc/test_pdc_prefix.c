/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDCIDs under an endpoint prefix (cfg.pdcid_prefix, include/uet_fep.h):
 * every id a manager hands out carries it, so a shared interface can steer
 * by DPDCID; managers under different prefixes talk as before; an id under
 * another prefix is unknown; bad prefixes are refused; the generation under
 * the prefix stays random.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test/unit/pdc/t_pdc_nop.h"
#include "test/unit/pdc/test_pdc_sim.h"
#include "uet_fep.h"

#define T_MS		1000000ull
#define T_PFX_MSGS	4000
#define T_PFX_A		5
#define T_PFX_B		9

TestSuite(pdc_prefix, .timeout = 60);

/* What the tap saw: ids checked, and ids under the wrong prefix. */
static uint16_t t_pfx[T_ENDS];
static uint32_t t_ids_seen, t_ids_bad;

static void t_id_check(uint16_t id, int end)
{
	t_ids_seen++;
	if (UET_FEP_ID_EP(id) != t_pfx[end])
		t_ids_bad++;
}

/*
 * Every SPDCID names the sender's PDC (0 is "no PDC" in a NACK), every
 * DPDCID of a packet without SYN the receiver's.
 */
static bool t_prefix_tap(struct t_sim *s, int from, int to,
			 const uint8_t *buf, size_t len)
{
	uint16_t spdcid, dpdcid;
	struct pdc_hdr h;
	bool syn = false;

	(void)s;
	cr_assert_geq(pdc_hdr_decode(&h, buf, len), 0);
	switch (h.pro.type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
		spdcid = h.req.spdcid;
		dpdcid = h.req.dpdcid;
		syn = h.pro.flags & UET_PDS_F_REQ_SYN;
		break;
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
		spdcid = h.ack.spdcid;
		dpdcid = h.ack.dpdcid;
		break;
	case UET_PDS_TYPE_NACK:
		spdcid = h.nack.spdcid;
		dpdcid = h.nack.dpdcid;
		break;
	case UET_PDS_TYPE_CONTROL:
		spdcid = h.ctl.spdcid;
		dpdcid = h.ctl.dpdcid;
		syn = h.pro.flags & UET_PDS_F_REQ_SYN;
		break;
	default:
		cr_assert_fail("unexpected PDS type %u", h.pro.type);
		return false;
	}
	if (spdcid || h.pro.type != UET_PDS_TYPE_NACK)
		t_id_check(spdcid, from);
	if (!syn)
		t_id_check(dpdcid, to);
	return true;
}

static void t_cfg_prefix(struct pdc_cfg *cfg, uint64_t seed, uint16_t prefix)
{
	t_cfg_lossy(cfg, seed);
	cfg->pdcid_prefix = prefix;
	cfg->pdcid_prefix_bits = UET_FEP_EP_BITS;
}

/* Two ends under |pa| and |pb|, each sending |msgs| to the other. */
static struct t_sim *t_prefix_run(uint16_t pa, uint16_t pb, uint32_t loss_ppm,
				  uint32_t msgs, uint64_t seed)
{
	struct t_wire w = { .loss_ppm = loss_ppm, .dup_ppm = 20000,
			    .ce_ppm = 10000, .delay_ns = 5000,
			    .jitter_ns = 5000 };
	struct t_sim *s = t_sim_new(&w, seed, 2);
	struct pdc_cfg cfg;

	t_pfx[0] = pa;
	t_pfx[1] = pb;
	t_ids_seen = t_ids_bad = 0;
	s->tap = t_prefix_tap;
	t_cfg_prefix(&cfg, seed * 31 + 7, pa);
	t_end_start(s, 0, &cfg);
	t_cfg_prefix(&cfg, seed * 31 + 8, pb);
	t_end_start(s, 1, &cfg);
	s->win_limit = cfg.window;
	t_end_plan(s, 0, 1, PDC_MODE_RUD, msgs, 4);
	t_end_plan(s, 1, 0, PDC_MODE_ROD, msgs, 3);
	cr_assert(t_sim_run(s, 60000 * T_MS, t_sim_senders_done),
		  "not done: a fin %u, b fin %u", s->end[0]->fin_cnt,
		  s->end[1]->fin_cnt);
	return s;
}

/* Each end delivered the other's messages exactly once, responses intact. */
static void t_prefix_check(struct t_sim *s, uint32_t msgs)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct t_end *tx = s->end[i], *rx = s->end[1 - i];
		uint32_t seq, missing = 0, extra = 0;

		cr_expect_eq(tx->ok_cnt, msgs, "end %d: ok %u err %u (%d)", i,
			     tx->ok_cnt, tx->err_cnt, tx->first_err);
		cr_expect_eq(tx->done_dup, 0);
		cr_expect_eq(tx->resp_bad, 0);
		for (seq = 0; seq < msgs; seq++) {
			missing += rx->rx[0][i][0][seq] == 0;
			extra += rx->rx[0][i][0][seq] > 1;
		}
		cr_expect_eq(missing, 0, "end %d: %u never delivered", i,
			     missing);
		cr_expect_eq(extra, 0, "end %d: %u delivered twice", i, extra);
		cr_expect_eq(rx->rx_bad, 0);
		cr_expect_eq(rx->rx_mix, 0);
	}
	cr_expect_eq(s->end[0]->rx_order_err, 0, "ROD out of order");
	cr_expect_eq(s->win_violations, 0);
}

Test(pdc_prefix, every_pdcid_on_the_wire_has_it)
{
	struct t_sim *s = t_prefix_run(T_PFX_A, T_PFX_A, 20000, 1000, 61);
	struct pdc_info info;

	t_prefix_check(s, 1000);
	cr_expect_gt(t_ids_seen, 4000);
	cr_expect_eq(t_ids_bad, 0, "%u of %u ids without the prefix",
		     t_ids_bad, t_ids_seen);
	cr_assert_eq(pdc_info_get(s->end[0]->mgr, 1, PDC_MODE_RUD, &info), 0);
	cr_expect_eq(UET_FEP_ID_EP(info.pdcid), T_PFX_A);
	cr_expect_eq(UET_FEP_ID_EP(info.remote_pdcid), T_PFX_A);
	t_sim_free(s);
}

/* Both directions, both modes, loss, duplicates and reordering. */
Test(pdc_prefix, different_prefixes_exchange_over_a_lossy_wire)
{
	struct t_sim *s = t_prefix_run(T_PFX_A, T_PFX_B, 50000, T_PFX_MSGS,
				       62);
	struct pdc_info info;

	t_prefix_check(s, T_PFX_MSGS);
	cr_expect_gt(s->dropped, 0);
	cr_expect_gt(s->dups, 0);
	cr_expect_eq(t_ids_bad, 0, "%u of %u ids under the wrong prefix",
		     t_ids_bad, t_ids_seen);
	cr_assert_eq(pdc_info_get(s->end[1]->mgr, 0, PDC_MODE_ROD, &info), 0);
	cr_expect_eq(UET_FEP_ID_EP(info.pdcid), T_PFX_B);
	cr_expect_eq(UET_FEP_ID_EP(info.remote_pdcid), T_PFX_A);
	t_sim_free(s);
}

/* Prefix 0 of 6 bits is the service's (index 0): no id may be 0 there. */
Test(pdc_prefix, prefix_zero_still_avoids_id_zero)
{
	struct t_sim *s = t_prefix_run(0, T_PFX_B, 0, 200, 63);

	t_prefix_check(s, 200);
	cr_expect_eq(t_ids_bad, 0);
	t_sim_free(s);
}

static uint16_t t_other_prefix(uint16_t id)
{
	return (uint16_t)((id & ((1u << UET_FEP_ID_SHIFT) - 1)) |
			  (UET_FEP_ID_EP(id) ^ 1u) << UET_FEP_ID_SHIFT);
}

/* The right slot and generation under another prefix: an unknown PDC. */
Test(pdc_prefix, another_prefix_is_unknown)
{
	struct t_sim *s = t_prefix_run(T_PFX_A, T_PFX_B, 0, 10, 64);
	struct pdc_req h = {
		.pro = { .type = UET_PDS_TYPE_RUD_REQ,
			 .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD },
	};
	struct pdc_ack ack = { .pro = { .type = UET_PDS_TYPE_ACK } };
	struct pdc_stats a0, a1;
	uint8_t buf[T_FRAME_MAX];
	struct pdc_info info;
	const struct t_cap *c;
	struct pdc_nack n;
	ssize_t len;

	s->tap = NULL;
	t_sim_capture(s, 64);
	cr_assert_eq(pdc_info_get(s->end[0]->mgr, 1, PDC_MODE_RUD, &info), 0);
	h.psn = info.next_psn;
	h.spdcid = info.pdcid;
	h.dpdcid = t_other_prefix(info.remote_pdcid);
	t_sim_inject(s, 0, 1, buf, t_req_frame(buf, &h, 0, 11));
	cr_assert(t_sim_run(s, s->now + 10 * T_MS, NULL));
	c = t_sim_find(s, 0, 1, UET_PDS_TYPE_NACK, UET_PDS_NACK_INV_DPDCID);
	cr_assert_not_null(c);
	cr_assert_gt(pdc_nack_decode(&n, c->buf, c->len), 0);
	cr_expect_eq(n.spdcid, 0, "no PDC of B");
	cr_expect_eq(s->end[1]->rx[0][0][0][11], 0, "never delivered");

	pdc_mgr_stats(s->end[0]->mgr, &a0);
	ack.cack_psn = info.next_psn - 1;
	ack.spdcid = info.remote_pdcid;
	ack.dpdcid = t_other_prefix(info.pdcid);
	len = pdc_ack_encode(buf, sizeof(buf), &ack);
	cr_assert_gt(len, 0);
	t_sim_inject(s, 1, 0, buf, (size_t)len);
	cr_assert(t_sim_run(s, s->now + 10 * T_MS, NULL));
	pdc_mgr_stats(s->end[0]->mgr, &a1);
	cr_expect_eq(a1.rx_stale, a0.rx_stale + 1, "an ACK for no PDC of A");
	t_sim_free(s);
}

static void t_expect_cfg(uint16_t prefix, uint8_t bits, uint32_t max_pdcs,
			 bool ok)
{
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;

	pdc_cfg_init(&cfg);
	cfg.pdcid_prefix = prefix;
	cfg.pdcid_prefix_bits = bits;
	cfg.max_pdcs = max_pdcs;
	errno = 0;
	mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	if (ok) {
		cr_expect_not_null(mgr, "prefix %u/%u, %u PDCs refused",
				   prefix, bits, max_pdcs);
	} else {
		cr_expect_null(mgr, "prefix %u/%u, %u PDCs taken", prefix,
			       bits, max_pdcs);
		cr_expect_eq(errno, EINVAL);
	}
	pdc_mgr_destroy(mgr);
}

Test(pdc_prefix, rejects_bad_prefix_cfg)
{
	struct pdc_cfg cfg;

	pdc_cfg_init(&cfg);
	cr_expect_eq(cfg.pdcid_prefix_bits, 0, "no prefix by default");
	cr_expect_eq(cfg.pdcid_prefix, 0);
	t_expect_cfg(1, 0, 256, false);		/* a prefix without bits */
	t_expect_cfg(0, 10, 32, false);		/* more than 9 bits */
	t_expect_cfg(511, 9, 64, true);		/* --endpoints 511 */
	t_expect_cfg(511, 9, 128, false);	/* no generation bit left */
	t_expect_cfg(64, 6, 256, false);	/* prefix wider than its bits */
	t_expect_cfg(255, 8, 128, true);
	t_expect_cfg(255, 8, 256, false);	/* no generation bit left */
	t_expect_cfg(63, 6, 512, true);		/* one generation bit */
	t_expect_cfg(63, 6, 1024, false);
	t_expect_cfg(0, 6, 512, true);
	t_expect_cfg(0, 0, 4096, true);
}

/*
 * Opens a PDC to each of |peers| peers under prefix |prefix| of 6 bits and
 * |max_pdcs| slots, for seeds 1..20; counts each generation seen.
 */
static void t_gens(uint16_t prefix, uint32_t max_pdcs, uint32_t peers,
		   uint32_t *gen_cnt)
{
	struct pdc_pkt pkt = { .len = 16, .mode = PDC_MODE_RUD,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	uint32_t slot_bits = 0, seed, peer, i;
	struct pdc_info info;
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;
	uint16_t ids[64];

	cr_assert(peers <= 64);
	while ((1u << slot_bits) < max_pdcs)
		slot_bits++;
	for (seed = 1; seed <= 20; seed++) {
		pdc_cfg_init(&cfg);
		cfg.seed = seed;
		cfg.max_pdcs = max_pdcs;
		cfg.pdcid_prefix = prefix;
		cfg.pdcid_prefix_bits = UET_FEP_EP_BITS;
		mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
		cr_assert_not_null(mgr);
		for (peer = 0; peer < peers; peer++) {
			pkt.peer = peer;
			cr_assert_eq(pdc_send(mgr, &pkt, 0), 0);
			cr_assert_eq(pdc_info_get(mgr, peer, PDC_MODE_RUD,
						  &info), 0);
			ids[peer] = info.pdcid;
			cr_expect_neq(info.pdcid, 0);
			cr_expect_eq(UET_FEP_ID_EP(info.pdcid), prefix);
			gen_cnt[(info.pdcid & ((1u << UET_FEP_ID_SHIFT) - 1)) >>
				slot_bits]++;
		}
		for (peer = 0; peer < peers; peer++)
			for (i = peer + 1; i < peers; i++)
				cr_expect_neq(ids[peer], ids[i]);
		pdc_mgr_destroy(mgr);
	}
}

/* The generation between prefix and slot takes every value it may. */
Test(pdc_prefix, generations_stay_random)
{
	uint32_t gen_cnt[1u << UET_FEP_ID_SHIFT];
	uint32_t g;

	memset(gen_cnt, 0, sizeof(gen_cnt));
	t_gens(T_PFX_A, 256, 64, gen_cnt);	/* 2 generation bits */
	for (g = 0; g < 4; g++)
		cr_expect_gt(gen_cnt[g], 200, "generation %u: %u times", g,
			     gen_cnt[g]);
	memset(gen_cnt, 0, sizeof(gen_cnt));
	t_gens(T_PFX_A, 512, 64, gen_cnt);	/* 1 generation bit */
	cr_expect_gt(gen_cnt[0], 400);
	cr_expect_gt(gen_cnt[1], 400);
	memset(gen_cnt, 0, sizeof(gen_cnt));
	t_gens(0, 64, 64, gen_cnt);		/* prefix 0: never gen 0 */
	cr_expect_eq(gen_cnt[0], 0);
	for (g = 1; g < 16; g++)
		cr_expect_gt(gen_cnt[g], 40, "generation %u: %u times", g,
			     gen_cnt[g]);
}
