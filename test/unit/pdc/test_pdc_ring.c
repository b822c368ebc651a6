/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An initiator's ring of packets (pdc_ini_ring_grow): it starts small and
 * doubles as more packets are out, up to the window; each packet keeps
 * its slot's contents at its new place, and the resend queue keeps its
 * order under the new indices, leaving out finished slots.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pdc/pdc_priv.h"
#include "test/unit/pdc/t_pdc_nop.h"

/* The PSNs the resend queue names, in order, into |psn|; their count. */
static int t_retx_psns(const struct pdc *pdc, uint32_t *psn, int max)
{
	const struct pdc_ini *ini = &pdc->ini;
	uint32_t una = (ini->una_psn - ini->start_psn) & ini->ring_mask;
	int n = 0;

	for (uint16_t i = ini->retx_head; i != PDC_NO_SLOT && n < max;
	     i = ini->slot[i].retx_next)
		psn[n++] = ini->una_psn + ((i - una) & ini->ring_mask);
	return n;
}

Test(pdc_ring, grows_keeping_packets_and_resend_order)
{
	static const uint32_t order[] = { 9, 3, 14, 0, 7 };
	struct pdc_cfg cfg;
	struct pdc_mgr *mgr;
	struct pdc *pdc;
	uint32_t start, got[16];
	size_t small;
	int n;

	pdc_cfg_init(&cfg);
	mgr = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert_not_null(mgr);
	for (uint64_t i = 0; i < PDC_RING_MIN; i++) {
		struct pdc_pkt pkt = { .peer = 1, .mode = PDC_MODE_RUD,
				       .cookie = 1000 + i, .len = 100 + i,
				       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };

		cr_assert_eq(pdc_send(mgr, &pkt, 1), 0);
	}
	pdc = mgr->send_cache;
	cr_assert_not_null(pdc);
	cr_assert_eq(pdc->ini.ring_mask + 1, PDC_RING_MIN, "starts small");
	small = pdc->alloc_len;
	start = pdc->ini.start_psn;
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		pdc_ini_retx_push(pdc, start + order[k]);
	/* Slot 14 finished meanwhile: the grown queue leaves it out. */
	pdc_ini_slot(pdc, start + 14)->flags |= PDC_SLOT_DONE;
	{
		struct pdc_pkt pkt = { .peer = 1, .mode = PDC_MODE_RUD,
				       .cookie = 2000, .len = 64,
				       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };

		cr_assert_eq(pdc_send(mgr, &pkt, 1), 0, "the ring grows");
	}
	cr_assert_eq(pdc->ini.ring_mask + 1, 2 * PDC_RING_MIN);
	cr_expect_gt(pdc->alloc_len, small);
	for (uint32_t i = 0; i < PDC_RING_MIN; i++) {
		const struct pdc_slot *s = pdc_ini_slot(pdc, start + i);

		cr_expect_eq(s->cookie, 1000 + i, "packet %u kept", i);
		cr_expect_eq(s->len, 100 + i, "packet %u kept", i);
	}
	cr_expect_eq(pdc_ini_slot(pdc, start + PDC_RING_MIN)->cookie, 2000);
	n = t_retx_psns(pdc, got, 16);
	cr_assert_eq(n, 4);
	cr_expect_eq(got[0], start + 9);
	cr_expect_eq(got[1], start + 3);
	cr_expect_eq(got[2], start + 0);
	cr_expect_eq(got[3], start + 7);
	cr_expect(pdc_ini_slot(pdc, start + 3)->flags & PDC_SLOT_RETXQ);
	cr_expect(!(pdc_ini_slot(pdc, start + 14)->flags & PDC_SLOT_RETXQ));
	/* Up to the window, then -EAGAIN: the window is full. */
	for (uint32_t i = PDC_RING_MIN + 1; i < cfg.window; i++) {
		struct pdc_pkt pkt = { .peer = 1, .mode = PDC_MODE_RUD,
				       .cookie = i, .len = 64,
				       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };

		cr_assert_eq(pdc_send(mgr, &pkt, 1), 0, "packet %u", i);
	}
	{
		struct pdc_pkt pkt = { .peer = 1, .mode = PDC_MODE_RUD,
				       .cookie = 1, .len = 64,
				       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };

		cr_expect_eq(pdc_send(mgr, &pkt, 1), -EAGAIN);
	}
	cr_expect_eq(pdc->ini.ring_mask + 1, cfg.window);
	pdc_mgr_destroy(mgr);
}

/*
 * pdc_ack_flush: a delayed ACK the target armed goes at once; only the
 * PDCs that armed one are looked at (mgr->ack_due), and the list empties.
 */
Test(pdc_ring, ack_flush_sends_delayed_acks)
{
	struct pdc_cfg cfg;
	struct pdc_mgr *ini, *tgt;
	struct pdc_rx_meta meta = { .peer = 1, .src = 1 };
	uint8_t frame[512];
	uint32_t peer;
	ssize_t n;
	int delayed = 0;

	pdc_cfg_init(&cfg);
	cfg.ack_coalesce_cnt = 64;	/* nothing forces an ACK early */
	cfg.ack_coalesce_len = 1 << 20;
	ini = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cfg.seed++;
	tgt = pdc_mgr_create(&cfg, &t_nop_ops, NULL);
	cr_assert(ini && tgt);
	/*
	 * Packets queued behind others carry no ACK request: the target
	 * delays their ACK. A round: queue 4, deliver the first 2.
	 */
	for (uint64_t i = 0; i < 32; i++) {
		struct pdc_pkt pkt = { .peer = 1, .mode = PDC_MODE_RUD,
				       .cookie = i, .len = 64,
				       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };

		cr_assert_eq(pdc_send(ini, &pkt, 10), 0);
		if (i % 4 != 3)
			continue;
		for (int k = 0; k < 2; k++) {
			n = pdc_tx_build(ini, frame, sizeof(frame), &peer, 10);
			cr_assert_gt(n, 0);
			cr_assert_geq(pdc_rx_frame(tgt, &meta, frame,
						   (size_t)n, 10), 0);
		}
		n = pdc_tx_build(tgt, frame, sizeof(frame), &peer, 11);
		if (n <= 0) {
			delayed++;
			cr_assert_gt(tgt->ack_due_cnt, 0, "round %u: listed",
				     (unsigned)i / 4);
			pdc_ack_flush(tgt);
			cr_expect_eq(tgt->ack_due_cnt, 0);
			n = pdc_tx_build(tgt, frame, sizeof(frame), &peer, 11);
			cr_assert_gt(n, 0, "round %u: the flush sent its ACK",
				     (unsigned)i / 4);
		}
		/* Back to the initiator, and what it holds goes too. */
		cr_assert_geq(pdc_rx_frame(ini, &meta, frame, (size_t)n, 12), 0);
		while ((n = pdc_tx_build(ini, frame, sizeof(frame), &peer,
					 12)) > 0)
			cr_assert_geq(pdc_rx_frame(tgt, &meta, frame,
						   (size_t)n, 12), 0);
		while ((n = pdc_tx_build(tgt, frame, sizeof(frame), &peer,
					 13)) > 0)
			cr_assert_geq(pdc_rx_frame(ini, &meta, frame,
						   (size_t)n, 13), 0);
	}
	cr_expect_gt(delayed, 0, "some ACKs were delayed");
	pdc_mgr_destroy(ini);
	pdc_mgr_destroy(tgt);
}
