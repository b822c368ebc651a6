/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The XDP program on byte vectors (bpf_prog_test_run_opts): which frames are
 * steered to the AF_XDP socket, which pass to the kernel, and the counters.
 * Needs root. Each test runs in a private network namespace of its own
 * (unshare), with a veth pair that gives the XSK a queue to bind to; the
 * namespace and everything in it vanish when the test process exits.
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
#include "test/t_priv.h"
#include "dev/uet_frame.h"
#include "dev/uet_xdp_ctl.h"
#include "dev/uet_xsk.h"
#include "uet_xdp.skel.h"

struct t_xdp {
	struct uet_xdp *skel;
	struct uet_xsk *xsk;
	struct uet_xdp_maps maps;
	int prog_fd;
};

static int t_silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

/* Private netns, a veth pair, the program loaded (not attached), an XSK. */
static void t_xdp_setup(struct t_xdp *t, bool with_xsk, uint16_t port)
{
	struct uet_xsk_cfg xcfg = { .queue_id = 0, .frame_cnt = 256,
				    .ring_size = 64 };

	t_require_root();
	libbpf_set_print(t_silent);
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %m");
	cr_assert_eq(system("ip link add t0 type veth peer name t1 && "
			    "ip link set t0 up && ip link set t1 up"), 0);
	t->skel = uet_xdp__open();
	cr_assert_not_null(t->skel);
	t->skel->rodata->uet_udp_port = port;
	cr_assert_eq(uet_xdp__load(t->skel), 0, "the verifier refused it");
	t->prog_fd = bpf_program__fd(t->skel->progs.uet_xdp_prog);
	t->maps.xsks = bpf_map__fd(t->skel->maps.uet_xdp_xsks);
	t->maps.counters = bpf_map__fd(t->skel->maps.uet_xdp_counters);
	t->maps.config = bpf_map__fd(t->skel->maps.uet_xdp_config);
	t->maps.capture = bpf_map__fd(t->skel->maps.uet_xdp_capture);
	t->xsk = NULL;
	if (with_xsk) {
		xcfg.ifindex = (int)if_nametoindex("t0");
		xcfg.xsks_map_fd = t->maps.xsks;
		t->xsk = uet_xsk_create(&xcfg);
		cr_assert_not_null(t->xsk, "xsk: %m");
	}
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

/* Runs and checks the action and that exactly counter |cnt| moved (+seen). */
static void t_xdp_expect(struct t_xdp *t, const uint8_t *frame, size_t len,
			 int action, unsigned int cnt)
{
	uint64_t before[UET_XDP_CNT_MAX], after[UET_XDP_CNT_MAX];

	cr_assert_eq(uet_xdp_counters_read(&t->maps, before), 0);
	cr_assert_eq(t_xdp_run(t, frame, len), action, "length %zu", len);
	cr_assert_eq(uet_xdp_counters_read(&t->maps, after), 0);
	for (unsigned int i = 0; i < UET_XDP_CNT_MAX; i++) {
		uint64_t want = before[i] + (i == cnt || i == UET_XDP_CNT_SEEN);

		cr_assert_eq(after[i], want, "counter %s after %zu bytes",
			     uet_xdp_counter_name(i), len);
	}
}

/* A UET frame: headers from uet_frame_encode, a RUD request, 32 bytes. */
static size_t t_uet_frame(uint8_t *f, size_t cap, bool v6, uint16_t port)
{
	struct uet_frame_addr src = { .is_v6 = v6, .port = 0x5151,
				      .mac = { 2, 0, 0, 0, 0, 1 } };
	struct uet_frame_addr dst = { .is_v6 = v6, .port = port,
				      .mac = { 2, 0, 0, 0, 0, 2 } };
	struct pdc_req req = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD, 0 },
		.psn = 1, .spdcid = 1, .dpdcid = 2,
	};
	ssize_t hl;

	if (v6) {
		inet_pton(AF_INET6, "fd00::1", &src.v6);
		inet_pton(AF_INET6, "fd00::2", &dst.v6);
	} else {
		inet_pton(AF_INET, "10.99.0.1", &src.v4);
		inet_pton(AF_INET, "10.99.0.2", &dst.v4);
	}
	memset(f, 0xA5, cap);
	hl = uet_frame_encode(f, cap, &src, &dst, 32);
	cr_assert_gt(hl, 0);
	cr_assert_eq(pdc_req_encode(f + hl, cap - (size_t)hl, &req), 12);
	return (size_t)hl + 32;
}

Test(io_xdp, steers_uet_over_ipv4_ipv6_and_vlan)
{
	uint8_t f[256], v[260];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, true, UET_UDP_PORT);
	n = t_uet_frame(f, sizeof(f), false, UET_UDP_PORT);
	t_xdp_expect(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_REDIRECTED);
	n = t_uet_frame(f, sizeof(f), true, UET_UDP_PORT);
	t_xdp_expect(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_REDIRECTED);
	/* 802.1Q tag (VID 7) in front of the IPv4 frame. */
	n = t_uet_frame(f, sizeof(f), false, UET_UDP_PORT);
	memcpy(v, f, 12);
	v[12] = 0x81, v[13] = 0x00, v[14] = 0x00, v[15] = 0x07;
	memcpy(v + 16, f + 12, n - 12);
	t_xdp_expect(&t, v, n + 4, XDP_REDIRECT, UET_XDP_CNT_REDIRECTED);
	t_xdp_teardown(&t);
}

Test(io_xdp, steers_ipv4_with_options)
{
	uint8_t f[256], o[264];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, true, UET_UDP_PORT);
	n = t_uet_frame(f, sizeof(f), false, UET_UDP_PORT);
	memcpy(o, f, 34);
	o[14] = 0x47;				/* IHL 7: 8 bytes of options */
	memset(o + 34, 1, 8);
	memcpy(o + 42, f + 34, n - 34);
	t_xdp_expect(&t, o, n + 8, XDP_REDIRECT, UET_XDP_CNT_REDIRECTED);
	t_xdp_teardown(&t);
}

Test(io_xdp, passes_other_traffic)
{
	uint8_t f[256];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, true, UET_UDP_PORT);
	n = t_uet_frame(f, sizeof(f), false, 4794);	/* wrong port */
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	n = t_uet_frame(f, sizeof(f), false, UET_UDP_PORT);
	f[23] = 6;					/* TCP */
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	f[23] = 17;
	f[20] = 0x20;					/* fragment */
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	f[20] = 0x40;
	f[12] = 0x08, f[13] = 0x06;			/* ARP */
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	n = t_uet_frame(f, sizeof(f), true, UET_UDP_PORT);
	f[20] = 58;					/* ICMPv6 */
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	t_xdp_teardown(&t);
}

Test(io_xdp, malformed_pds_counted_and_passed)
{
	static const uint8_t bad_types[] = { 0, 1, 15, 16, 31 };
	uint8_t f[256];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, true, UET_UDP_PORT);
	for (size_t i = 0; i < sizeof(bad_types); i++) {
		n = t_uet_frame(f, sizeof(f), false, UET_UDP_PORT);
		f[42] = (uint8_t)(bad_types[i] << 3 | (f[42] & 7));
		t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_MALFORMED);
	}
	t_xdp_teardown(&t);
}

/* Every truncation from the Ethernet header (the kernel's minimum) on. */
Test(io_xdp, every_truncated_length)
{
	uint8_t f[256];
	struct t_xdp t;

	t_xdp_setup(&t, true, UET_UDP_PORT);
	for (int v6 = 0; v6 < 2; v6++) {
		size_t udp_end = v6 ? 62 : 42;

		t_uet_frame(f, sizeof(f), v6, UET_UDP_PORT);
		for (size_t len = UET_ETH_HDR_LEN; len < udp_end + 12; len++)
			t_xdp_expect(&t, f, len, XDP_PASS,
				     len < udp_end ? UET_XDP_CNT_PASSED :
						     UET_XDP_CNT_MALFORMED);
		t_xdp_expect(&t, f, udp_end + 12, XDP_REDIRECT,
			     UET_XDP_CNT_REDIRECTED);
	}
	t_xdp_teardown(&t);
}

Test(io_xdp, no_socket_on_queue)
{
	uint8_t f[256];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, false, UET_UDP_PORT);
	n = t_uet_frame(f, sizeof(f), false, UET_UDP_PORT);
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_NO_SOCKET);
	t_xdp_teardown(&t);
}

Test(io_xdp, port_set_at_load)
{
	uint8_t f[256];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, true, 5000);
	n = t_uet_frame(f, sizeof(f), false, UET_UDP_PORT);
	t_xdp_expect(&t, f, n, XDP_PASS, UET_XDP_CNT_PASSED);
	n = t_uet_frame(f, sizeof(f), false, 5000);
	t_xdp_expect(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_REDIRECTED);
	t_xdp_teardown(&t);
}

Test(io_xdp, fault_injector_drops)
{
	struct uet_xdp_cfg cfg = { .drop_ppm = 1000000 };
	uint8_t f[256];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, true, UET_UDP_PORT);
	n = t_uet_frame(f, sizeof(f), false, UET_UDP_PORT);
	cr_assert_eq(uet_xdp_cfg_write(&t.maps, &cfg), 0);
	t_xdp_expect(&t, f, n, XDP_DROP, UET_XDP_CNT_FAULT_DROPPED);
	cfg.drop_ppm = 0;
	cr_assert_eq(uet_xdp_cfg_write(&t.maps, &cfg), 0);
	t_xdp_expect(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_REDIRECTED);
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
	uint8_t f[256];
	struct t_xdp t;
	size_t n;

	t_xdp_setup(&t, true, UET_UDP_PORT);
	rb = ring_buffer__new(t.maps.capture, t_cap_record, &cap, NULL);
	cr_assert_not_null(rb);
	n = t_uet_frame(f, sizeof(f), false, UET_UDP_PORT);
	t_xdp_expect(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_REDIRECTED);
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
