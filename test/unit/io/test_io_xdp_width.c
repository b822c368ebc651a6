/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The XDP program under a wider endpoint index (uetctl load --endpoints
 * 300: 9 bits, include/uet_fep.h): an ACK reaches index 300 by its
 * DPDCID's 9 high bits and a request by its PIDonFEP; loaded with the
 * default 6 bits, the same DPDCID names index 37, which has no socket,
 * and goes to the service. As test_io_xdp.c: byte vectors in a private
 * network namespace, one socket at the index. Needs root.
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
#include "uet_wire.h"
#include "uet_xdp.skel.h"

#define T_EP		300
#define T_PID		0x2A5
#define T_JOB		0x5A5A5A
#define T_CAP		256

struct t_w {
	struct uet_xdp *skel;
	struct uet_xsk *xsk;
	int prog_fd;
};

static int t_silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

/* The program loaded with |bits|, the test's socket at T_EP and 0. */
static void t_setup(struct t_w *t, unsigned int bits)
{
	struct uet_xsk_cfg xcfg = { .queue_id = 0, .frame_cnt = 256,
				    .ring_size = 64, .xsks_map_fd = -1 };
	struct uet_xdp_pid_ent ent = { .job_id = T_JOB, .ep = T_EP };
	uint32_t key = T_PID, ep;
	int xsks, pids, fd;

	t_require_root();
	libbpf_set_print(t_silent);
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %m");
	cr_assert_eq(system("ip link add t0 type veth peer name t1 && "
			    "ip link set t0 up && ip link set t1 up"), 0);
	t->skel = uet_xdp__open();
	cr_assert_not_null(t->skel);
	t->skel->rodata->uet_ep_shift = 16 - bits;
	cr_assert_eq(uet_xdp_kptr_fix(t->skel->obj), 0);
	cr_assert_eq(uet_xdp__load(t->skel), 0, "the verifier refused it");
	t->prog_fd = bpf_program__fd(t->skel->progs.uet_xdp_prog);
	pids = bpf_map__fd(t->skel->maps.uet_xdp_pids);
	cr_assert_eq(bpf_map_update_elem(pids, &key, &ent, 0), 0);
	xcfg.ifindex = (int)if_nametoindex("t0");
	t->xsk = uet_xsk_create(&xcfg);
	cr_assert_not_null(t->xsk, "xsk: %m");
	xsks = bpf_map__fd(t->skel->maps.uet_xdp_xsks);
	fd = uet_xsk_fd(t->xsk);
	for (ep = 0; ep <= T_EP; ep += T_EP)
		cr_assert_eq(bpf_map_update_elem(xsks, &ep, &fd, 0), 0,
			     "xskmap[%u]: %m", ep);
}

static void t_teardown(struct t_w *t)
{
	uet_xsk_destroy(t->xsk);
	uet_xdp__destroy(t->skel);
}

/* Frames redirected to index T_EP so far (uet_xdp_ep_rx, all CPUs). */
static uint64_t t_ep_rx(struct t_w *t)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[ncpu > 0 ? ncpu : 1], n = 0;
	int fd = bpf_map__fd(t->skel->maps.uet_xdp_ep_rx);
	uint32_t ep = T_EP;

	cr_assert_gt(ncpu, 0);
	cr_assert_eq(bpf_map_lookup_elem(fd, &ep, v), 0);
	for (int c = 0; c < ncpu; c++)
		n += v[c];
	return n;
}

/* Runs |f|: XDP_REDIRECT; whether it went to index T_EP. */
static bool t_to_ep(struct t_w *t, const uint8_t *f, size_t len)
{
	uint8_t out[T_CAP];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = f, .data_size_in =
		    (uint32_t)len, .data_out = out, .data_size_out =
		    sizeof(out), .repeat = 1);
	uint64_t before = t_ep_rx(t);

	cr_assert_eq(bpf_prog_test_run_opts(t->prog_fd, &opts), 0, "%m");
	cr_assert_eq(opts.retval, XDP_REDIRECT);
	return t_ep_rx(t) == before + 1;
}

/* Ethernet, IPv4 and UDP to the UET port around |hdr| of |n| bytes. */
static size_t t_frame(uint8_t *f, const uint8_t *hdr, size_t n)
{
	struct uet_frame_addr src = { .port = 0x5151,
				      .mac = { 2, 0, 0, 0, 0, 1 } };
	struct uet_frame_addr dst = { .port = UET_UDP_PORT,
				      .mac = { 2, 0, 0, 0, 0, 2 } };
	ssize_t hl;

	inet_pton(AF_INET, "10.99.0.1", &src.v4);
	inet_pton(AF_INET, "10.99.0.2", &dst.v4);
	memset(f, 0xA5, T_CAP);
	hl = uet_frame_encode(f, T_CAP, &src, &dst, n + 8);
	cr_assert(hl > 0 && (size_t)hl + n + 8 <= T_CAP);
	memcpy(f + hl, hdr, n);
	return (size_t)hl + n + 8;
}

/* An ACK to the PDCID of index T_EP under 9 bits. */
static size_t t_ack(uint8_t *f)
{
	struct pdc_hdr ack = { .ack = {
		.pro = { UET_PDS_TYPE_ACK, UET_PDS_NEXT_HDR_NONE, 0 },
		.spdcid = 1, .dpdcid = (uint16_t)(T_EP << 7 | 5) } };
	uint8_t h[UET_PDS_HDR_MAX_LEN];
	ssize_t n = pdc_hdr_encode(h, sizeof(h), &ack);

	cr_assert_gt(n, 0);
	cr_assert_eq(uet_fep_id_ep(ack.ack.dpdcid, 9), T_EP);
	cr_assert_eq(uet_fep_id_ep(ack.ack.dpdcid, 6), 37u);
	return t_frame(f, h, (size_t)n);
}

/* A RUD SYN write to T_PID of T_JOB. */
static size_t t_req(uint8_t *f)
{
	struct pdc_hdr req = { .req = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
			 UET_PDS_F_REQ_SYN },
		.spdcid = 1, .psn = 100 } };
	struct ses_std_hdr ses = {
		.opcode = UET_SES_OP_WRITE,
		.f = { .rel = true, .som = true, .eom = true },
		.message_id = (uint16_t)(T_EP << 7 | 1), .job_id = T_JOB,
		.pid_on_fep = T_PID, .request_length = 8,
	};
	uint8_t h[UET_PDS_HDR_MAX_LEN + UET_SES_STD_HDR_LEN];
	ssize_t n = pdc_hdr_encode(h, UET_PDS_HDR_MAX_LEN, &req);

	cr_assert_gt(n, 0);
	cr_assert_eq(ses_std_hdr_encode(h + n, UET_SES_STD_HDR_LEN, &ses),
		     UET_SES_STD_HDR_LEN);
	return t_frame(f, h, (size_t)n + UET_SES_STD_HDR_LEN);
}

Test(io_xdp_width, widths_by_endpoint_count)
{
	cr_assert_eq(uet_fep_ep_bits(32), 6, "the default: as before");
	cr_assert_eq(uet_fep_ep_bits(64), 6, "63 endpoints: as before");
	cr_assert_eq(uet_fep_ep_bits(65), 7);
	cr_assert_eq(uet_fep_ep_bits(257), 9);
	cr_assert_eq(uet_fep_ep_bits(UET_FEP_EPS_MAX + 1), 9);
}

Test(io_xdp_width, nine_bits_reach_index_300)
{
	uint8_t f[T_CAP];
	struct t_w t;
	size_t n;

	t_setup(&t, 9);
	n = t_ack(f);
	cr_assert(t_to_ep(&t, f, n), "an ACK by its DPDCID");
	n = t_req(f);
	cr_assert(t_to_ep(&t, f, n), "a request by its PIDonFEP");
	t_teardown(&t);
}

Test(io_xdp_width, six_bits_read_another_index)
{
	uint8_t f[T_CAP];
	struct t_w t;
	size_t n;

	t_setup(&t, 6);
	n = t_ack(f);
	cr_assert(!t_to_ep(&t, f, n), "index 37 has no socket: the service");
	t_teardown(&t);
}
