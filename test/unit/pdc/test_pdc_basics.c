/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDC basics: wrap-safe PSN helpers, configuration and argument checks, and
 * establishment (ref 2.9): SYN with psn_offset from a random non-zero start
 * PSN, PDCID 0 never used, SYN dropped once the target's ACK names its PDC.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "test/unit/pdc/t_pdc_nop.h"
#include "test/unit/pdc/test_pdc_sim.h"

TestSuite(pdc_psn, .timeout = 10);
TestSuite(pdc_api, .timeout = 10);
TestSuite(pdc_est, .timeout = 30);

Test(pdc_psn, compares_across_wrap)
{
	cr_expect(pdc_psn_before(1, 2));
	cr_expect(pdc_psn_before(0xFFFFFFFFu, 0));
	cr_expect(pdc_psn_after(0, 0xFFFFFFFFu));
	cr_expect(pdc_psn_after(5, 0xFFFFFFF0u));
	cr_expect(!pdc_psn_before(7, 7));
	cr_expect(pdc_psn_before_eq(7, 7));
	cr_expect_eq(pdc_psn_diff(2, 0xFFFFFFFEu), 4);
	cr_expect_eq(pdc_psn_diff(0xFFFFFFFEu, 2), -4);
	cr_expect_eq(pdc_psn_max(0xFFFFFFFEu, 3), 3);
	cr_expect(pdc_psn_in(1, 0xFFFFFFFFu, 4));
	cr_expect(!pdc_psn_in(3, 0xFFFFFFFFu, 4));
	/* Half the space apart: the window of ref 2.9 ends there. */
	cr_expect(pdc_psn_before(0, 0x7FFFFFFFu));
	cr_expect(pdc_psn_after(0, 0x80000001u));
}

static void t_expect_bad_cfg(const struct pdc_cfg *cfg, const char *what)
{
	errno = 0;
	cr_expect_null(pdc_mgr_create(cfg, &t_nop_ops, NULL), "%s", what);
	cr_expect_eq(errno, EINVAL, "%s", what);
}

Test(pdc_api, rejects_bad_cfg)
{
	struct pdc_ops ops = t_nop_ops;
	struct pdc_cfg cfg;

	pdc_cfg_init(&cfg);
	cfg.window = 100;
	t_expect_bad_cfg(&cfg, "window not a power of 2");
	pdc_cfg_init(&cfg);
	cfg.window = 8192;
	t_expect_bad_cfg(&cfg, "window past the 12-bit psn_offset");
	pdc_cfg_init(&cfg);
	cfg.max_pdcs = 8192;
	t_expect_bad_cfg(&cfg, "too many PDCs for random PDCIDs");
	pdc_cfg_init(&cfg);
	cfg.rto_min_ns = cfg.rto_max_ns + 1;
	t_expect_bad_cfg(&cfg, "rto bounds upside down");
	pdc_cfg_init(&cfg);
	cfg.cwnd_min = 0;
	t_expect_bad_cfg(&cfg, "no window floor");
	pdc_cfg_init(&cfg);
	ops.deliver = NULL;
	errno = 0;
	cr_expect_null(pdc_mgr_create(&cfg, &ops, NULL));
	cr_expect_eq(errno, EINVAL);
}

Test(pdc_api, send_checks_arguments_and_room)
{
	struct pdc_pkt pkt = { .peer = 3, .len = 16, .mode = PDC_MODE_RUD,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;
	uint32_t i;

	pdc_cfg_init(&cfg);
	cfg.window = 64;
	cfg.max_payload_len = 100;
	mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert_not_null(mgr);
	pkt.len = 101;
	cr_expect_eq(pdc_send(mgr, &pkt, 0), -EMSGSIZE);
	pkt.len = 16;
	pkt.mode = PDC_MODE_CNT;
	cr_expect_eq(pdc_send(mgr, &pkt, 0), -EINVAL);
	pkt.mode = PDC_MODE_RUD;
	pkt.next_hdr = 9;
	cr_expect_eq(pdc_send(mgr, &pkt, 0), -EINVAL);
	pkt.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD;
	for (i = 0; i < 64; i++)
		cr_expect_eq(pdc_send(mgr, &pkt, 0), 0);
	cr_expect_eq(pdc_send(mgr, &pkt, 0), -EAGAIN, "ring holds 64");
	cr_expect_eq(pdc_close(mgr, 4, PDC_MODE_RUD, 0), -ENOENT);
	pdc_mgr_destroy(mgr);
}

Test(pdc_api, rx_rejects_what_it_cannot_decode)
{
	static const uint8_t trunc[] = { 0x10 };
	static const uint8_t tss[16] = { 0x08, 0x00 };		/* type 1 */
	static const uint8_t rudi[8] = { 0x20, 0x00 };		/* type 4 */
	static const uint8_t reserved[16] = { 0x78, 0x00 };	/* type 15 */
	static const uint8_t short_req[8] = { 0x11, 0x80 };	/* RUD, 8 B */
	struct pdc_rx_meta meta = { .peer = 1 };
	struct pdc_nack nack;
	struct pdc_stats st;
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;
	uint8_t out[64];
	uint32_t peer;
	ssize_t n;

	pdc_cfg_init(&cfg);
	mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert_not_null(mgr);
	cr_expect_eq(pdc_rx_frame(mgr, &meta, trunc, sizeof(trunc), 0), -EBADMSG);
	cr_expect_eq(pdc_rx_frame(mgr, &meta, tss, sizeof(tss), 0),
		     -EPROTONOSUPPORT);
	/* No ops->rudi: RUDI is not served, and the initiator is told so. */
	cr_expect_eq(pdc_rx_frame(mgr, &meta, rudi, sizeof(rudi), 0), 0);
	cr_expect_eq(pdc_rx_frame(mgr, &meta, reserved, sizeof(reserved), 0),
		     -EBADMSG);
	cr_expect_eq(pdc_rx_frame(mgr, &meta, short_req, sizeof(short_req), 0),
		     -EBADMSG);
	pdc_mgr_stats(mgr, &st);
	cr_expect_eq(st.rx_bad, 3);
	cr_expect_eq(st.pdcs, 0);
	cr_expect_eq(pdc_next_timeout(mgr), 0);
	n = pdc_tx_build(mgr, out, sizeof(out), &peer, 0);
	cr_assert_eq(n, UET_PDS_NACK_LEN);
	cr_assert_eq(pdc_nack_decode(&nack, out, (size_t)n), n);
	cr_expect(nack.pro.flags & UET_PDS_F_NACK_NT);
	cr_expect_eq(nack.nack_code, UET_PDS_NACK_UNEXP_EVENT);
	cr_expect_eq(peer, 1);
	cr_expect_eq(pdc_next_timeout(mgr), UINT64_MAX);
	pdc_mgr_destroy(mgr);
}

/* Runs 5 messages, then 5 more, capturing every frame. */
static struct t_sim *t_est_run(void)
{
	struct t_wire w = { .delay_ns = 5000 };
	struct t_sim *s = t_sim_new(&w, 21, 2);
	struct pdc_cfg cfg;

	t_cfg_lossy(&cfg, 21);
	t_end_start(s, 0, &cfg);
	cfg.seed = 22;
	t_end_start(s, 1, &cfg);
	t_sim_capture(s, 256);
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 5, 0);
	cr_assert(t_sim_run(s, 1000000000ull, t_sim_senders_done));
	t_end_plan(s, 0, 1, PDC_MODE_RUD, 10, 0);
	cr_assert(t_sim_run(s, 2000000000ull, t_sim_senders_done));
	return s;
}

Test(pdc_est, syn_until_the_target_names_its_pdc)
{
	struct t_sim *s = t_est_run();
	struct pdc_req first, req;
	struct pdc_ack ack;
	struct pdc_info info;
	const struct t_cap *c;
	uint32_t i, reqs = 0;

	cr_assert_eq(pdc_info_get(s->end[0]->mgr, 1, PDC_MODE_RUD, &info), 0);
	c = t_sim_find(s, 0, 0, UET_PDS_TYPE_RUD_REQ, 0);
	cr_assert_not_null(c);
	cr_assert_gt(pdc_req_decode(&first, c->buf, c->len), 0);
	cr_expect(first.pro.flags & UET_PDS_F_REQ_SYN);
	cr_expect_eq(first.psn_offset, 0);
	cr_expect_neq(first.psn, 0);
	cr_expect_eq(first.psn, info.start_psn);
	cr_expect_neq(first.spdcid, 0);
	cr_expect_eq(first.spdcid, info.pdcid);
	c = t_sim_find(s, 0, 1, UET_PDS_TYPE_ACK, 0);
	cr_assert_not_null(c);
	cr_assert_gt(pdc_ack_decode(&ack, c->buf, c->len), 0);
	cr_expect_neq(ack.spdcid, 0);
	cr_expect_eq(ack.dpdcid, first.spdcid);
	cr_expect_eq(ack.spdcid, info.remote_pdcid);
	cr_expect(info.is_established);
	for (i = 0; i < s->cap_cnt; i++) {
		c = &s->cap[i];
		if (c->from || pdc_req_decode(&req, c->buf, c->len) < 0)
			continue;
		reqs++;
		if (c->at_ns < s->cap[0].at_ns + 2 * 5000) {
			/* Before any ACK could be back: SYN, offsets count up. */
			cr_expect(req.pro.flags & UET_PDS_F_REQ_SYN);
			cr_expect_eq(req.psn_offset, req.psn - first.psn);
		} else if (req.psn - first.psn >= 5) {
			cr_expect(!(req.pro.flags & UET_PDS_F_REQ_SYN));
			cr_expect_eq(req.dpdcid, ack.spdcid);
		}
	}
	cr_expect_eq(reqs, 10);
	cr_expect_eq(s->end[0]->ev_cnt[PDC_EV_ESTABLISHED], 1);
	cr_expect_eq(s->end[1]->ev_cnt[PDC_EV_ESTABLISHED], 1);
	t_sim_free(s);
}

/* Random, non-zero, never repeating closer than 2^16 (ref 2.9). */
Test(pdc_est, start_psns_and_pdcids_are_random_and_nonzero)
{
	struct pdc_pkt pkt = { .len = 16, .mode = PDC_MODE_RUD,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	uint32_t prev_start = 0, peer, seed, i;
	uint16_t ids[64];
	struct pdc_info info;
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;

	for (seed = 1; seed <= 20; seed++) {
		pdc_cfg_init(&cfg);
		cfg.seed = seed;
		mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
		cr_assert_not_null(mgr);
		for (peer = 0; peer < 64; peer++) {
			pkt.peer = peer;
			cr_assert_eq(pdc_send(mgr, &pkt, 0), 0);
			cr_assert_eq(pdc_info_get(mgr, peer, PDC_MODE_RUD,
						  &info), 0);
			cr_expect_neq(info.pdcid, 0);
			cr_expect_neq(info.start_psn, 0);
			cr_expect_geq(info.start_psn - prev_start + (1u << 16),
				      1u << 17, "start PSNs too close");
			prev_start = info.start_psn;
			ids[peer] = info.pdcid;
		}
		for (peer = 0; peer < 64; peer++)
			for (i = peer + 1; i < 64; i++)
				cr_expect_neq(ids[peer], ids[i]);
		pdc_mgr_destroy(mgr);
	}
}

/* A buffer too short for the next frame leaves it queued. */
Test(pdc_api, tx_build_wants_room)
{
	struct pdc_pkt pkt = { .peer = 3, .len = 16, .mode = PDC_MODE_RUD,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	uint8_t buf[64];
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;
	uint32_t peer = 0;

	pdc_cfg_init(&cfg);
	mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert_not_null(mgr);
	cr_assert_eq(pdc_send(mgr, &pkt, 0), 0);
	cr_expect_eq(pdc_next_timeout(mgr), 0);
	cr_expect_eq(pdc_tx_build(mgr, buf, UET_PDS_RUD_REQ_LEN + 15, &peer, 0),
		     -ENOBUFS);
	cr_expect_eq(pdc_tx_build(mgr, buf, sizeof(buf), &peer, 0),
		     UET_PDS_RUD_REQ_LEN + 16);
	cr_expect_eq(peer, 3);
	cr_expect_eq(pdc_tx_build(mgr, buf, sizeof(buf), &peer, 0), 0);
	cr_expect_neq(pdc_next_timeout(mgr), 0, "the RTO is all that is left");
	cr_expect_neq(pdc_next_timeout(mgr), UINT64_MAX);
	pdc_mgr_destroy(mgr);
}
