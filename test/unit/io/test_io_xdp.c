/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The XDP program on byte vectors (bpf_prog_test_run_opts): which frames are
 * steered to which AF_XDP socket (an endpoint's, by SES destination, DPDCID
 * or echoed message id; the device service's at index 0), which pass to the
 * kernel, and the counters. Needs root. Each test runs in a private network
 * namespace of its own (unshare), with a veth pair that gives the XSK a
 * queue to bind to; the namespace and everything in it vanish when the test
 * process exits.
 *
 * A queue takes more sockets only on a UMEM shared through the device
 * service (tools/uetd), so the tests put their one socket at several
 * XSKMAP indices at once, or leave an index empty, and tell which index the
 * program chose by the counters: redirected plus uet_xdp_ep_rx[index] for an
 * endpoint, to_service for the service, no_socket when neither has one.
 */
#define _GNU_SOURCE
#include "test/unit/io/t_xdp.h"

Test(io_xdp, steers_uet_over_ipv4_ipv6_and_vlan)
{
	uint8_t f[T_FRAME_CAP], v[260];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	n = t_uet_frame(f, false, UET_UDP_PORT);
	t_xdp_to(&t, f, n, T_EP);
	n = t_uet_frame(f, true, UET_UDP_PORT);
	t_xdp_to(&t, f, n, T_EP);
	/* 802.1Q tag (VID 7) in front of the IPv4 frame. */
	n = t_uet_frame(f, false, UET_UDP_PORT);
	memcpy(v, f, 12);
	v[12] = 0x81, v[13] = 0x00, v[14] = 0x00, v[15] = 0x07;
	memcpy(v + 16, f + 12, n - 12);
	t_xdp_to(&t, v, n + 4, T_EP);
	t_xdp_teardown(&t);
}

Test(io_xdp, steers_ipv4_with_options)
{
	uint8_t f[T_FRAME_CAP], o[264];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	n = t_uet_frame(f, false, UET_UDP_PORT);
	memcpy(o, f, 34);
	o[14] = 0x47;				/* IHL 7: 8 bytes of options */
	memset(o + 34, 1, 8);
	memcpy(o + 42, f + 34, n - 34);
	t_xdp_to(&t, o, n + 8, T_EP);
	t_xdp_teardown(&t);
}

Test(io_xdp, passes_other_traffic)
{
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	n = t_uet_frame(f, false, 4794);	/* wrong port */
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	n = t_uet_frame(f, false, UET_UDP_PORT);
	f[23] = 6;					/* TCP */
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	f[23] = 17;
	f[20] = 0x20;					/* fragment */
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	f[20] = 0x40;
	f[12] = 0x08, f[13] = 0x06;			/* ARP */
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	n = t_uet_frame(f, true, UET_UDP_PORT);
	f[20] = 58;					/* ICMPv6 */
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	t_xdp_teardown(&t);
}

Test(io_xdp, malformed_pds_counted_and_passed)
{
	/* 1 is TSS: test_io_xdp_tss.c */
	static const uint8_t bad_types[] = { 0, 15, 16, 31 };
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	for (size_t i = 0; i < sizeof(bad_types); i++) {
		n = t_uet_frame(f, false, UET_UDP_PORT);
		f[42] = (uint8_t)(bad_types[i] << 3 | (f[42] & 7));
		t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_MALFORMED);
	}
	t_xdp_teardown(&t);
}

/* Every truncation from the Ethernet header (the kernel's minimum) on. */
Test(io_xdp, every_truncated_length)
{
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	for (int v6 = 0; v6 < 2; v6++) {
		size_t udp_end = v6 ? 62 : 42;

		size_t ses = udp_end + UET_PDS_RUD_REQ_LEN;

		t_uet_frame(f, v6, UET_UDP_PORT);
		for (size_t len = UET_ETH_HDR_LEN; len < ses; len++)
			t_xdp_expect(&t, f, len, XDP_PASS,
				     len < udp_end ? UET_XDP_CNT_PASSED :
						     UET_XDP_CNT_MALFORMED);
		/* A PDS header and a cut SES header: the service drops it. */
		for (size_t len = ses; len < ses + UET_SES_STD_HDR_LEN; len++)
			t_xdp_to(&t, f, len, UET_FEP_EP_SERVICE);
		t_xdp_to(&t, f, ses + UET_SES_STD_HDR_LEN, T_EP);
	}
	t_xdp_teardown(&t);
}

Test(io_xdp, port_set_at_load)
{
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), 5000);
	n = t_uet_frame(f, false, UET_UDP_PORT);
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	n = t_uet_frame(f, false, 5000);
	t_xdp_to(&t, f, n, T_EP);
	t_xdp_teardown(&t);
}

Test(io_xdp, fault_injector_drops)
{
	struct uet_xdp_cfg cfg = { .drop_ppm = 1000000 };
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	n = t_uet_frame(f, false, UET_UDP_PORT);
	cr_assert_eq(uet_xdp_cfg_write(&t.maps, &cfg), 0);
	t_xdp_expect(&t, f, n, XDP_DROP, UET_XDP_CNT_FAULT_DROPPED);
	cfg.drop_ppm = 0;
	cr_assert_eq(uet_xdp_cfg_write(&t.maps, &cfg), 0);
	t_xdp_to(&t, f, n, T_EP);
	t_xdp_teardown(&t);
}

struct t_cap {
	uint8_t frame[UET_XDP_CAPTURE_SNAPLEN];
	struct uet_xdp_capture_hdr hdr;
	int records;
};

static int t_cap_record(void *ctx, void *data, size_t size)
{
	struct t_cap *c = ctx;

	cr_assert_geq(size, sizeof(c->hdr));
	memcpy(&c->hdr, data, sizeof(c->hdr));
	cr_assert_leq(c->hdr.cap_len, size - sizeof(c->hdr));
	memcpy(c->frame, (uint8_t *)data + sizeof(c->hdr), c->hdr.cap_len);
	c->records++;
	return 0;
}

Test(io_xdp, capture_tap_copies_steered_frames)
{
	struct uet_xdp_cfg cfg = { .capture = 1 };
	struct t_cap cap = { .records = 0 };
	struct ring_buffer *rb;
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	rb = ring_buffer__new(t.maps.capture, t_cap_record, &cap, NULL);
	cr_assert_not_null(rb);
	n = t_uet_frame(f, false, UET_UDP_PORT);
	t_xdp_to(&t, f, n, T_EP);
	cr_assert_eq(ring_buffer__consume(rb), 0, "tap off: nothing");
	cr_assert_eq(uet_xdp_cfg_write(&t.maps, &cfg), 0);
	cr_assert_eq(t_xdp_run(&t, f, n), XDP_REDIRECT);
	cr_assert_eq(ring_buffer__consume(rb), 1);
	cr_assert_eq(cap.records, 1);
	cr_assert_eq(cap.hdr.frame_len, n);
	cr_assert_eq(cap.hdr.cap_len, n);
	cr_assert_arr_eq(cap.frame, f, n);
	ring_buffer__free(rb);
	t_xdp_teardown(&t);
}

/*
 * Requests go by SES destination, whatever PDS type carries them: plain and
 * CC RUD/ROD (PDS header 12 or 16 bytes), with or without SYN (a DPDCID of
 * another endpoint does not matter), and UUD (4 bytes).
 */
Test(io_xdp, request_to_the_pid_on_fep_holder)
{
	static const uint8_t types[] = {
		UET_PDS_TYPE_RUD_REQ, UET_PDS_TYPE_ROD_REQ,
		UET_PDS_TYPE_RUD_CC_REQ, UET_PDS_TYPE_ROD_CC_REQ,
	};
	struct pdc_hdr uud = { .uud = { .pro = { UET_PDS_TYPE_UUD_REQ,
					UET_PDS_NEXT_HDR_REQUEST_STD, 0 } } };
	struct pdc_hdr req;
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(3) | T_BIT(T_EP), UET_UDP_PORT);
	for (size_t i = 0; i < sizeof(types); i++) {
		for (int syn = 0; syn < 2; syn++) {
			req = t_req(types[i], UET_PDS_NEXT_HDR_REQUEST_STD,
				    syn, T_ID(3, 1));
			n = t_std_frame(f, &req, T_PID, T_JOB, true);
			t_xdp_to(&t, f, n, T_EP);
		}
	}
	t_xdp_to(&t, f, t_std_frame(f, &uud, T_PID, T_JOB, true), T_EP);
	n = t_uet_frame(f, true, UET_UDP_PORT);	/* IPv6 */
	t_xdp_to(&t, f, n, T_EP);
	t_xdp_teardown(&t);
}

/*
 * The PIDonFEP table decides: a PIDonFEP no endpoint holds (never written,
 * or released with ep 0) goes to the service; under relative addressing
 * the table's JobID must match the packet's, every byte of it; under
 * absolute addressing (rel = 0) the PIDonFEP alone counts.
 */
Test(io_xdp, pid_on_fep_table_and_job_id)
{
	static const uint32_t jobs[] = { 0x123456, T_JOB ^ 0x010000,
					 T_JOB ^ 0x000100, T_JOB ^ 0x000001 };
	uint8_t f[T_FRAME_CAP];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		n = t_std_frame(f, &t_rud_syn, T_PID, jobs[i], true);
		t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
		n = t_std_frame(f, &t_rud_syn, T_PID, jobs[i], false);
		t_xdp_to(&t, f, n, T_EP);
	}
	n = t_std_frame(f, &t_rud_syn, T_PID + 1, T_JOB, true);
	t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
	t_pid_put(&t, T_PID + 1, T_JOB, 0);
	t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
	n = t_std_frame(f, &t_rud_syn, T_PID + 1, T_JOB, false);
	t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
	/* The highest PIDonFEP, and the field's reserved bits ignored. */
	t_pid_put(&t, UET_SES_PID_ON_FEP_MAX, T_JOB, T_EP);
	n = t_std_frame(f, &t_rud_syn, UET_SES_PID_ON_FEP_MAX, T_JOB, true);
	t_xdp_to(&t, f, n, T_EP);
	n = t_std_frame(f, &t_rud_syn, T_PID, T_JOB, true);
	f[n - 8 - UET_SES_STD_HDR_LEN + 8] |= 0xF0;	/* bits 15:12 */
	t_xdp_to(&t, f, n, T_EP);
	t_xdp_teardown(&t);
}

/*
 * A named endpoint without a socket (gone, or never there): the service;
 * when the service has none either, the kernel.
 */
Test(io_xdp, missing_sockets_fall_back)
{
	struct pdc_hdr ack = { .ack = {
		.pro = { UET_PDS_TYPE_ACK, UET_PDS_NEXT_HDR_NONE, 0 },
		.spdcid = T_ID(9, 1), .dpdcid = T_ID(T_EP, 1) } };
	uint8_t f[T_FRAME_CAP], a[T_FRAME_CAP];
	struct t_xdp t;
	size_t n, an;

	t_xdp_setup(&t, T_SVC | T_BIT(T_EP), UET_UDP_PORT);
	n = t_uet_frame(f, false, UET_UDP_PORT);
	an = t_pds_frame(a, &ack);
	t_xsk_del(&t, T_EP);
	t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
	t_xdp_to(&t, a, an, UET_FEP_EP_SERVICE);
	/* An index beyond the XSKMAP in the PIDonFEP table. */
	t_pid_put(&t, T_PID, T_JOB, UET_XDP_XSK_ENTRIES);
	t_xdp_to(&t, f, n, UET_FEP_EP_SERVICE);
	/* The endpoint's socket without the service's. */
	t_pid_put(&t, T_PID, T_JOB, T_EP);
	t_xsk_put(&t, T_EP);
	t_xsk_del(&t, UET_FEP_EP_SERVICE);
	t_xdp_to(&t, f, n, T_EP);
	t_xdp_to(&t, a, an, T_EP);
	n = t_std_frame(f, &t_rud_syn, T_PID + 1, T_JOB, true);
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_NO_SOCKET);
	t_xsk_del(&t, T_EP);			/* no socket at all */
	t_xdp_expect(&t, a, an, XDP_PASS, UET_XDP_CNT_NO_SOCKET);
	t_xdp_teardown(&t);
}
