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
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "test/unit/io/t_priv.h"
#include "dev/uet_frame.h"
#include "dev/uet_xdp_ctl.h"
#include "dev/uet_xsk.h"
#include "uet_fep.h"
#include "uet_xdp.skel.h"

/* The endpoint under test holds T_PID for T_JOB (written at set-up). */
#define T_EP		5
#define T_PID		0x2A5
#define T_JOB		0x5A5A5A
#define T_SVC		(1ull << UET_FEP_EP_SERVICE)
#define T_BIT(ep)	(1ull << (ep))
/* A PDCID or message id of endpoint |ep|, low bits |low|. */
#define T_ID(ep, low)	((uint16_t)((ep) << UET_FEP_ID_SHIFT | (low)))

struct t_xdp {
	struct uet_xdp *skel;
	struct uet_xsk *xsk;
	struct uet_xdp_maps maps;
	int prog_fd;
	int pids;
	int ep_rx;
};

static int t_silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

/* Puts the test's one socket at XSKMAP index |ep|, or takes it out. */
static void t_xsk_put(struct t_xdp *t, uint32_t ep)
{
	int fd = uet_xsk_fd(t->xsk);

	cr_assert_eq(bpf_map_update_elem(t->maps.xsks, &ep, &fd, 0), 0,
		     "xskmap[%u]: %m", ep);
}

static void t_xsk_del(struct t_xdp *t, uint32_t ep)
{
	cr_assert_eq(bpf_map_delete_elem(t->maps.xsks, &ep), 0);
}

static void t_pid_put(struct t_xdp *t, uint32_t pid, uint32_t job_id,
		      uint16_t ep)
{
	struct uet_xdp_pid_ent ent = { .job_id = job_id, .ep = ep };

	cr_assert_eq(bpf_map_update_elem(t->pids, &pid, &ent, 0), 0);
}

/*
 * Private netns, a veth pair, the program loaded (not attached), T_PID held
 * by T_EP, and one XSK on queue 0 put at each index set in |xsk_eps| (none
 * when 0).
 */
static void t_xdp_setup(struct t_xdp *t, uint64_t xsk_eps, uint16_t port)
{
	struct uet_xsk_cfg xcfg = { .queue_id = 0, .frame_cnt = 256,
				    .ring_size = 64, .xsks_map_fd = -1 };

	t_require_root();
	libbpf_set_print(t_silent);
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %m");
	cr_assert_eq(system("ip link add t0 type veth peer name t1 && "
			    "ip link set t0 up && ip link set t1 up"), 0);
	t->skel = uet_xdp__open();
	cr_assert_not_null(t->skel);
	t->skel->rodata->uet_udp_port = port;
	cr_assert_eq(uet_xdp_kptr_fix(t->skel->obj), 0);
	cr_assert_eq(uet_xdp__load(t->skel), 0, "the verifier refused it");
	t->prog_fd = bpf_program__fd(t->skel->progs.uet_xdp_prog);
	t->maps.xsks = bpf_map__fd(t->skel->maps.uet_xdp_xsks);
	t->maps.counters = bpf_map__fd(t->skel->maps.uet_xdp_counters);
	t->maps.config = bpf_map__fd(t->skel->maps.uet_xdp_config);
	t->maps.capture = bpf_map__fd(t->skel->maps.uet_xdp_capture);
	t->pids = bpf_map__fd(t->skel->maps.uet_xdp_pids);
	t->ep_rx = bpf_map__fd(t->skel->maps.uet_xdp_ep_rx);
	t_pid_put(t, T_PID, T_JOB, T_EP);
	t->xsk = NULL;
	if (!xsk_eps)
		return;
	xcfg.ifindex = (int)if_nametoindex("t0");
	t->xsk = uet_xsk_create(&xcfg);
	cr_assert_not_null(t->xsk, "xsk: %m");
	for (uint32_t ep = 0; ep < 64; ep++)
		if (xsk_eps & T_BIT(ep))
			t_xsk_put(t, ep);
}

static void t_xdp_teardown(struct t_xdp *t)
{
	uet_xsk_destroy(t->xsk);
	uet_xdp__destroy(t->skel);
}

/* Runs the program once on |frame|; returns the XDP action. */
static int t_xdp_run(struct t_xdp *t, const uint8_t *frame, size_t len)
{
	/* The kernel wants ctx->data_end to match the data's size. */
	struct xdp_md ctx = { .data_end = (uint32_t)len, .rx_queue_index = 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
		    .data_size_in = (uint32_t)len, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);

	cr_assert_eq(bpf_prog_test_run_opts(t->prog_fd, &opts), 0,
		     "test run of %zu bytes: %m", len);
	return (int)opts.retval;
}

/* Sums the per-CPU uet_xdp_ep_rx counters into |cnt|. */
static void t_ep_rx_read(struct t_xdp *t, uint64_t *cnt)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[ncpu > 0 ? ncpu : 1];

	cr_assert_gt(ncpu, 0);
	for (uint32_t ep = 0; ep < UET_XDP_EP_RX_ENTRIES; ep++) {
		cr_assert_eq(bpf_map_lookup_elem(t->ep_rx, &ep, v), 0);
		cnt[ep] = 0;
		for (int c = 0; c < ncpu; c++)
			cnt[ep] += v[c];
	}
}

/*
 * Runs and checks the action, that exactly counter |cnt| moved (+seen), and
 * that uet_xdp_ep_rx moved by one at |ep| when |ep| > 0, else not at all.
 */
static void t_xdp_check(struct t_xdp *t, const uint8_t *frame, size_t len,
			int action, unsigned int cnt, uint32_t ep)
{
	uint64_t before[UET_XDP_CNT_MAX], after[UET_XDP_CNT_MAX];
	uint64_t ep_before[UET_XDP_EP_RX_ENTRIES];
	uint64_t ep_after[UET_XDP_EP_RX_ENTRIES];

	cr_assert_eq(uet_xdp_counters_read(&t->maps, before), 0);
	t_ep_rx_read(t, ep_before);
	cr_assert_eq(t_xdp_run(t, frame, len), action, "length %zu", len);
	cr_assert_eq(uet_xdp_counters_read(&t->maps, after), 0);
	t_ep_rx_read(t, ep_after);
	for (unsigned int i = 0; i < UET_XDP_CNT_MAX; i++) {
		uint64_t want = before[i] + (i == cnt || i == UET_XDP_CNT_SEEN);

		cr_assert_eq(after[i], want, "counter %s after %zu bytes",
			     uet_xdp_counter_name(i), len);
	}
	for (uint32_t i = 0; i < UET_XDP_EP_RX_ENTRIES; i++)
		cr_assert_eq(ep_after[i], ep_before[i] + (i == ep && ep > 0),
			     "ep_rx[%u] after %zu bytes (want ep %u)", i, len,
			     ep);
}

/* A frame the program passes or drops: no endpoint counter moves. */
static void t_xdp_expect(struct t_xdp *t, const uint8_t *frame, size_t len,
			 int action, unsigned int cnt)
{
	t_xdp_check(t, frame, len, action, cnt, UET_FEP_EP_SERVICE);
}

/* A frame redirected to endpoint |ep|, or to the service when |ep| is 0. */
static void t_xdp_to(struct t_xdp *t, const uint8_t *frame, size_t len,
		     uint32_t ep)
{
	t_xdp_check(t, frame, len, XDP_REDIRECT,
		    ep ? UET_XDP_CNT_REDIRECTED : UET_XDP_CNT_TO_SERVICE, ep);
}

/* Frames are built in buffers of this size. */
#define T_FRAME_CAP	256

/*
 * A frame of Ethernet, IP (|v6|) and UDP to |port| around |hdr| (the PDS
 * and SES headers, |hdr_len| bytes) and 8 bytes of payload.
 */
static size_t t_frame(uint8_t *f, bool v6, uint16_t port, const uint8_t *hdr,
		      size_t hdr_len)
{
	struct uet_frame_addr src = { .is_v6 = v6, .port = 0x5151,
				      .mac = { 2, 0, 0, 0, 0, 1 } };
	struct uet_frame_addr dst = { .is_v6 = v6, .port = port,
				      .mac = { 2, 0, 0, 0, 0, 2 } };
	ssize_t hl;

	if (v6) {
		inet_pton(AF_INET6, "fd00::1", &src.v6);
		inet_pton(AF_INET6, "fd00::2", &dst.v6);
	} else {
		inet_pton(AF_INET, "10.99.0.1", &src.v4);
		inet_pton(AF_INET, "10.99.0.2", &dst.v4);
	}
	memset(f, 0xA5, T_FRAME_CAP);
	hl = uet_frame_encode(f, T_FRAME_CAP, &src, &dst, hdr_len + 8);
	cr_assert_gt(hl, 0);
	cr_assert_leq((size_t)hl + hdr_len + 8, T_FRAME_CAP);
	memcpy(f + hl, hdr, hdr_len);
	return (size_t)hl + hdr_len + 8;
}

/* PDS header |pds|, then a standard SES request to |pid| in |job_id|. */
static size_t t_std_hdr(uint8_t *h, const struct pdc_hdr *pds, uint16_t pid,
			uint32_t job_id, bool rel)
{
	struct ses_std_hdr ses = {
		.opcode = UET_SES_OP_WRITE,
		.f = { .rel = rel, .som = true, .eom = true },
		.message_id = T_ID(3, 0x1F), .job_id = job_id,
		.pid_on_fep = pid, .resource_index = 0x123,
		.request_length = 8,
	};
	ssize_t n = pdc_hdr_encode(h, UET_PDS_HDR_MAX_LEN, pds);

	cr_assert_gt(n, 0, "pds type %u", pds->pro.type);
	cr_assert_eq(ses_std_hdr_encode(h + n, UET_SES_STD_HDR_LEN, &ses),
		     UET_SES_STD_HDR_LEN);
	return (size_t)n + UET_SES_STD_HDR_LEN;
}

/* The same, framed over IPv4 to the UET port. */
static size_t t_std_frame(uint8_t *f, const struct pdc_hdr *pds, uint16_t pid,
			  uint32_t job_id, bool rel)
{
	uint8_t h[UET_PDS_HDR_MAX_LEN + UET_SES_STD_HDR_LEN];
	size_t n = t_std_hdr(h, pds, pid, job_id, rel);

	return t_frame(f, false, UET_UDP_PORT, h, n);
}

/* A RUD request (SYN) for T_PID, T_JOB, relative: T_EP's. */
static const struct pdc_hdr t_rud_syn = { .req = {
	.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
		 UET_PDS_F_REQ_SYN },
	.psn = 1, .spdcid = T_ID(9, 1), .psn_offset = 0 } };

/* A UET frame for T_EP: a RUD request with a standard SES header. */
static size_t t_uet_frame(uint8_t *f, bool v6, uint16_t port)
{
	uint8_t h[UET_PDS_HDR_MAX_LEN + UET_SES_STD_HDR_LEN];
	size_t n = t_std_hdr(h, &t_rud_syn, T_PID, T_JOB, true);

	return t_frame(f, v6, port, h, n);
}

/* A RUD/ROD request (plain or CC) carrying |next_hdr|, SYN or |dpdcid|. */
static struct pdc_hdr t_req(uint8_t type, uint8_t next_hdr, bool syn,
			    uint16_t dpdcid)
{
	/* With SYN the slot holds 0xC00: endpoint bits 3, if misread. */
	struct pdc_hdr h = { .req = {
		.pro = { type, next_hdr, syn ? UET_PDS_F_REQ_SYN : 0 },
		.psn = 7, .spdcid = T_ID(9, 1), .dpdcid = dpdcid,
		.psn_offset = 0xC00 } };

	return h;
}

/*
 * A frame of PDS header |pds| (a request) and the SES response its
 * next_hdr names: message id |msg_id| and, in RESPONSE_DATA,
 * read_request_message_id |rr_id|.
 */
static size_t t_rsp_frame(uint8_t *f, const struct pdc_hdr *pds,
			  uint16_t msg_id, uint16_t rr_id)
{
	struct ses_rsp_hdr r = { .opcode = UET_SES_RSP_RESPONSE,
				 .return_code = UET_SES_RC_OK,
				 .message_id = msg_id, .job_id = T_JOB };
	struct ses_rsp_data_hdr d = {
		.opcode = UET_SES_RSP_RESPONSE_W_DATA,
		.return_code = UET_SES_RC_OK, .message_id = msg_id,
		.job_id = T_JOB, .read_request_message_id = rr_id,
		.payload_length = 8, .modified_length = 8 };
	struct ses_rsp_data_small_hdr ds = {
		.opcode = UET_SES_RSP_RESPONSE_W_DATA,
		.return_code = UET_SES_RC_OK, .payload_length = 8,
		.job_id = T_JOB, .original_request_psn = 3 };
	uint8_t h[UET_PDS_HDR_MAX_LEN + UET_SES_RSP_DATA_LEN], *s;
	ssize_t n = pdc_hdr_encode(h, UET_PDS_HDR_MAX_LEN, pds), m = -1;

	cr_assert_gt(n, 0);
	s = h + n;
	if (pds->pro.next_hdr == UET_PDS_NEXT_HDR_RESPONSE)
		m = ses_rsp_hdr_encode(s, UET_SES_RSP_LEN, &r);
	else if (pds->pro.next_hdr == UET_PDS_NEXT_HDR_RESPONSE_DATA)
		m = ses_rsp_data_hdr_encode(s, UET_SES_RSP_DATA_LEN, &d);
	else
		m = ses_rsp_data_small_hdr_encode(s, UET_SES_RSP_LEN, &ds);
	cr_assert_gt(m, 0);
	return t_frame(f, false, UET_UDP_PORT, h, (size_t)(n + m));
}

/* Frame of a PDS header alone (ACK, NACK, CONTROL). */
static size_t t_pds_frame(uint8_t *f, const struct pdc_hdr *pds)
{
	uint8_t h[UET_PDS_HDR_MAX_LEN];
	ssize_t n = pdc_hdr_encode(h, sizeof(h), pds);

	cr_assert_gt(n, 0, "pds type %u", pds->pro.type);
	return t_frame(f, false, UET_UDP_PORT, h, (size_t)n);
}

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
