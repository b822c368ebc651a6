/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The XDP program on byte vectors, continued (test_io_xdp.c says how):
 * PDC packets by their DPDCID, responses by DPDCID or echoed message id,
 * RUDI by destination and pkt_id, and the forms that go to the service.
 * Needs root.
 */
#define _GNU_SOURCE
#include "test/unit/io/t_xdp.h"

/*
 * Every ACK and NACK form, and CONTROL without SYN, goes by the endpoint
 * bits of its DPDCID (up to index 63); CONTROL with SYN opens a PDC: the
 * service. uet_xdp_ep_rx counts each endpoint's frames.
 */
Test(io_xdp, pdc_packets_by_dpdcid)
{
	static const uint8_t acks[] = { UET_PDS_TYPE_ACK, UET_PDS_TYPE_ACK_CC,
					UET_PDS_TYPE_ACK_CCX };
	static const uint8_t nacks[] = { UET_PDS_TYPE_NACK,
					 UET_PDS_TYPE_NACK_CCX };
	struct pdc_hdr ctl = { .ctl = {
		.pro = { UET_PDS_TYPE_CONTROL, UET_PDS_CTL_CLOSE, 0 },
		.psn = 7, .spdcid = T_ID(9, 1), .dpdcid = T_ID(T_EP, 2),
		.psn_offset = 0xC00 } };
	uint64_t cnt[UET_XDP_EP_RX_ENTRIES];
	uint8_t f[T_FRAME_CAP];
	struct pdc_hdr h;
	struct t_xdp t;

	t_xdp_setup(&t, T_SVC | T_BIT(3) | T_BIT(T_EP) | T_BIT(63),
		    UET_UDP_PORT);
	for (size_t i = 0; i < sizeof(acks); i++) {
		h = (struct pdc_hdr){ .ack = {
			.pro = { acks[i], UET_PDS_NEXT_HDR_RESPONSE, 0 },
			.cack_psn = 7, .spdcid = T_ID(3, 2),
			.dpdcid = T_ID(T_EP, 0x3FF) } };
		t_xdp_to(&t, f, t_pds_frame(f, &h), T_EP);
		h.ack.dpdcid = T_ID(3, 0);
		t_xdp_to(&t, f, t_pds_frame(f, &h), 3);
		h.ack.dpdcid = T_ID(UET_FEP_EP_SERVICE, 0x3FF);
		t_xdp_to(&t, f, t_pds_frame(f, &h), UET_FEP_EP_SERVICE);
	}
	h.ack.dpdcid = T_ID(63, 0x3FF);
	t_xdp_to(&t, f, t_pds_frame(f, &h), 63);
	for (size_t i = 0; i < sizeof(nacks); i++) {
		h = (struct pdc_hdr){ .nack = {
			.pro = { nacks[i], UET_PDS_NEXT_HDR_NONE, 0 },
			.nack_code = UET_PDS_NACK_INV_DPDCID, .nack_psn = 7,
			.spdcid = T_ID(3, 2), .dpdcid = T_ID(T_EP, 1) } };
		t_xdp_to(&t, f, t_pds_frame(f, &h), T_EP);
		h.nack.dpdcid = T_ID(62, 1);		/* no socket there */
		t_xdp_to(&t, f, t_pds_frame(f, &h), UET_FEP_EP_SERVICE);
	}
	t_xdp_to(&t, f, t_pds_frame(f, &ctl), T_EP);
	ctl.ctl.pro.next_hdr = UET_PDS_CTL_NOOP;
	ctl.ctl.pro.flags = UET_PDS_F_CTL_SYN;
	t_xdp_to(&t, f, t_pds_frame(f, &ctl), UET_FEP_EP_SERVICE);
	t_ep_rx_read(&t, cnt);
	for (uint32_t ep = 0; ep < UET_XDP_EP_RX_ENTRIES; ep++)
		cr_assert_eq(cnt[ep], ep == T_EP ? 6u : ep == 3 ? 3u : ep == 63,
			     "ep_rx[%u]", ep);
	t_xdp_teardown(&t);
}

/*
 * A request carrying a response goes, on an established PDC, by DPDCID
 * whatever its message ids. With SYN the target has no DPDCID yet:
 * RESPONSE goes by its message_id, RESPONSE_DATA by read_request_message_id
 * (the initiator's id, ref 3.5; message_id may be the target's own),
 * RESPONSE_DATA_SMALL to the service. The SYN slot reads as endpoint 3,
 * which has a socket, to show it unused.
 */
Test(io_xdp, responses_by_dpdcid_or_echoed_id)
{
	static const uint8_t rsps[] = { UET_PDS_NEXT_HDR_RESPONSE,
					UET_PDS_NEXT_HDR_RESPONSE_DATA,
					UET_PDS_NEXT_HDR_RESPONSE_DATA_SMALL };
	struct pdc_hdr req;
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(3) | T_BIT(T_EP), UET_UDP_PORT);
	for (size_t i = 0; i < sizeof(rsps); i++) {
		req = t_req(UET_PDS_TYPE_RUD_REQ, rsps[i], false,
			    T_ID(T_EP, 9));
		n = t_rsp_frame(f, &req, T_ID(3, 1), T_ID(3, 1));
		t_xdp_to(&t, f, n, T_EP);
		req = t_req(UET_PDS_TYPE_ROD_CC_REQ, rsps[i], false,
			    T_ID(3, 9));
		n = t_rsp_frame(f, &req, T_ID(T_EP, 1), T_ID(T_EP, 1));
		t_xdp_to(&t, f, n, 3);
	}
	req = t_req(UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_RESPONSE_DATA, true,
		    0);
	t_xdp_to(&t, f, t_rsp_frame(f, &req, T_ID(9, 4), T_ID(T_EP, 4)), T_EP);
	n = t_rsp_frame(f, &req, T_ID(T_EP, 4), T_ID(9, 4));
	t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
	req = t_req(UET_PDS_TYPE_ROD_CC_REQ, UET_PDS_NEXT_HDR_RESPONSE_DATA,
		    true, 0);
	t_xdp_to(&t, f, t_rsp_frame(f, &req, T_ID(9, 4), T_ID(T_EP, 4)), T_EP);
	req = t_req(UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_RESPONSE, true, 0);
	t_xdp_to(&t, f, t_rsp_frame(f, &req, T_ID(T_EP, 0x3FF), 0), T_EP);
	req = t_req(UET_PDS_TYPE_RUD_REQ,
		    UET_PDS_NEXT_HDR_RESPONSE_DATA_SMALL, true, 0);
	t_xdp_to(&t, f, t_rsp_frame(f, &req, 0, 0), UET_FEP_EP_SERVICE);
	t_xdp_teardown(&t);
}

/*
 * RUDI has no PDC: a request goes by its SES destination (whatever its
 * pkt_id says), a response and a NACK with NT set by the endpoint bits at
 * the top of the pkt_id they echo (a NACK's DPDCID slot is then unused).
 */
#define T_PKT_ID(ep, low)	((uint32_t)(ep) << (32 - UET_FEP_EP_BITS) | (low))

Test(io_xdp, rudi_by_destination_and_pkt_id)
{
	struct pdc_hdr req = { .rudi = { .pro = { UET_PDS_TYPE_RUDI_REQ,
					 UET_PDS_NEXT_HDR_REQUEST_STD, 0 },
					 .pkt_id = T_PKT_ID(3, 1) } };
	struct pdc_hdr rsp = { .rudi = { .pro = { UET_PDS_TYPE_RUDI_RESP,
					 UET_PDS_NEXT_HDR_RESPONSE, 0 },
					 .pkt_id = T_PKT_ID(T_EP, 0x3FFFFFF) } };
	struct pdc_hdr nack = { .nack = {
		.pro = { UET_PDS_TYPE_NACK, UET_PDS_NEXT_HDR_NONE,
			 UET_PDS_F_NACK_NT },
		.nack_code = UET_PDS_NACK_NO_RESOURCE,
		.nack_psn = T_PKT_ID(3, 5), .dpdcid = T_ID(T_EP, 1) } };
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;

	t_xdp_setup(&t, T_SVC | T_BIT(3) | T_BIT(T_EP), UET_UDP_PORT);
	t_xdp_to(&t, f, t_std_frame(f, &req, T_PID, T_JOB, true), T_EP);
	t_xdp_to(&t, f, t_std_frame(f, &req, T_PID + 1, T_JOB, true),
		 UET_FEP_EP_SERVICE);
	t_xdp_to(&t, f, t_rsp_frame(f, &rsp, 0, 0), T_EP);
	rsp.rudi.pkt_id = T_PKT_ID(3, 0);
	t_xdp_to(&t, f, t_rsp_frame(f, &rsp, 0, 0), 3);
	rsp.rudi.pkt_id = T_PKT_ID(62, 0);		/* no socket there */
	t_xdp_to(&t, f, t_rsp_frame(f, &rsp, 0, 0), UET_FEP_EP_SERVICE);
	t_xdp_to(&t, f, t_pds_frame(f, &nack), 3);
	nack.nack.pro.type = UET_PDS_TYPE_NACK_CCX;
	nack.nack.nack_psn = T_PKT_ID(T_EP, 5);
	nack.nack.dpdcid = T_ID(3, 1);
	t_xdp_to(&t, f, t_pds_frame(f, &nack), T_EP);
	t_xdp_teardown(&t);
}

/* RUDI or UUD without a request, small request headers: the service. */
Test(io_xdp, unsteerable_forms_to_service)
{
	struct pdc_hdr rudi = { .rudi = { .pro = { UET_PDS_TYPE_RUDI_REQ,
					  UET_PDS_NEXT_HDR_RESPONSE, 0 },
					  .pkt_id = T_PKT_ID(T_EP, 1) } };
	struct pdc_hdr uud = { .uud = { .pro = { UET_PDS_TYPE_UUD_REQ,
					UET_PDS_NEXT_HDR_RESPONSE, 0 } } };
	struct ses_small_hdr small = {
		.opcode = UET_SES_OP_WRITE, .f = { .som = true, .eom = true },
		.request_length = 8, .job_id = T_JOB, .pid_on_fep = T_PID };
	struct pdc_hdr req = t_req(UET_PDS_TYPE_RUD_REQ,
				   UET_PDS_NEXT_HDR_REQUEST_SMALL, false,
				   T_ID(T_EP, 1));
	uint8_t f[T_FRAME_CAP], h[64];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	n = t_rsp_frame(f, &rudi, T_ID(T_EP, 1), 0);
	t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
	n = t_rsp_frame(f, &uud, T_ID(T_EP, 1), 0);
	t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
	n = (size_t)pdc_req_encode(h, sizeof(h), &req.req);
	cr_assert_eq(ses_small_hdr_encode(h + n, sizeof(h) - n, &small),
		     UET_SES_SMALL_HDR_LEN);
	n = t_frame(f, false, UET_UDP_PORT, h, n + UET_SES_SMALL_HDR_LEN);
	t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
	t_xdp_teardown(&t);
}

/* A frame on another queue than the sockets' cannot reach them. */
Test(io_xdp, other_rx_queue_passed)
{
	struct uet_xdp_cfg cfg = { .queue_id = 1 };
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	n = t_uet_frame(f, false, UET_UDP_PORT);
	cr_assert_eq(uet_xdp_cfg_write(&t.maps, &cfg), 0);
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_NO_SOCKET);
	n = t_std_frame(f, &t_rud_syn, T_PID + 1, T_JOB, true);
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_NO_SOCKET);
	cfg.queue_id = 0;
	cr_assert_eq(uet_xdp_cfg_write(&t.maps, &cfg), 0);
	t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
	t_xdp_teardown(&t);
}

/*
 * Every cut of an SES header the steering reads: the service (which drops
 * and counts it), never a crash or a read past the end; whole: the endpoint.
 */
Test(io_xdp, truncated_ses_header_to_service)
{
	struct pdc_hdr uud = { .uud = { .pro = { UET_PDS_TYPE_UUD_REQ,
					UET_PDS_NEXT_HDR_REQUEST_STD, 0 } } };
	struct pdc_hdr syn = t_req(UET_PDS_TYPE_RUD_CC_REQ,
				   UET_PDS_NEXT_HDR_RESPONSE_DATA, true, 0);
	struct pdc_hdr est = t_req(UET_PDS_TYPE_RUD_REQ,
				   UET_PDS_NEXT_HDR_RESPONSE, false,
				   T_ID(T_EP, 1));
	struct {
		size_t n, ses_len;
		uint8_t f[T_FRAME_CAP];
	} c[3];
	struct t_xdp t;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	c[0].n = t_std_frame(c[0].f, &uud, T_PID, T_JOB, true);
	c[0].ses_len = UET_SES_STD_HDR_LEN;
	c[1].n = t_rsp_frame(c[1].f, &syn, 0, T_ID(T_EP, 1));
	c[1].ses_len = UET_SES_RSP_DATA_LEN;
	c[2].n = t_rsp_frame(c[2].f, &est, 0, 0);
	c[2].ses_len = UET_SES_RSP_LEN;
	for (int i = 0; i < 3; i++) {
		size_t ses = c[i].n - 8 - c[i].ses_len;

		for (size_t len = ses; len < ses + c[i].ses_len; len++)
			t_xdp_to(&t, c[i].f, len, UET_FEP_EP_SERVICE);
		t_xdp_to(&t, c[i].f, ses + c[i].ses_len, T_EP);
	}
	t_xdp_teardown(&t);
}
