/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The XDP program and secured (TSS) frames, whose PDS header is sealed:
 * steered by SDI through uet_xdp_sdi to the endpoint named there, to the
 * service when none is (or the entry names it), and counted malformed when
 * shorter than their TSS header and ICV. As test_io_xdp.c: byte vectors in
 * a private network namespace, one socket at several XSKMAP indices. Needs
 * root.
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

#include "test/unit/io/t_priv.h"
#include "dev/uet_frame.h"
#include "dev/uet_xdp_ctl.h"
#include "dev/uet_xsk.h"
#include "uet_wire.h"
#include "uet_xdp.skel.h"

#define T_EP		5
#define T_SDI		0x0A0B0C
#define T_CAP		256

struct t_tss {
	struct uet_xdp *skel;
	struct uet_xsk *xsk;
	struct uet_xdp_maps maps;
	int prog_fd, sdi;
};

static int t_silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

static void t_setup(struct t_tss *t)
{
	struct uet_xsk_cfg xcfg = { .queue_id = 0, .frame_cnt = 256,
				    .ring_size = 64, .xsks_map_fd = -1 };
	int fd;

	t_require_root();
	libbpf_set_print(t_silent);
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %m");
	cr_assert_eq(system("ip link add t0 type veth peer name t1 && "
			    "ip link set t0 up && ip link set t1 up"), 0);
	t->skel = uet_xdp__open();
	cr_assert_not_null(t->skel);
	cr_assert_eq(uet_xdp_kptr_fix(t->skel->obj), 0);
	cr_assert_eq(uet_xdp__load(t->skel), 0, "the verifier refused it");
	t->prog_fd = bpf_program__fd(t->skel->progs.uet_xdp_prog);
	t->maps.xsks = bpf_map__fd(t->skel->maps.uet_xdp_xsks);
	t->maps.counters = bpf_map__fd(t->skel->maps.uet_xdp_counters);
	t->sdi = bpf_map__fd(t->skel->maps.uet_xdp_sdi);
	xcfg.ifindex = (int)if_nametoindex("t0");
	t->xsk = uet_xsk_create(&xcfg);
	cr_assert_not_null(t->xsk, "xsk: %m");
	fd = uet_xsk_fd(t->xsk);
	for (uint32_t ep = 0; ep <= T_EP; ep += T_EP)
		cr_assert_eq(bpf_map_update_elem(t->maps.xsks, &ep, &fd, 0), 0);
}

/* A secured frame of |len| bytes after UDP for T_SDI, SP when |sp|. */
static size_t t_tss_frame(uint8_t *f, size_t len, bool sp)
{
	struct uet_frame_addr src = { .port = 0x5151 }, dst = {
		.port = UET_UDP_PORT };
	ssize_t hl;

	inet_pton(AF_INET, "10.99.0.1", &src.v4);
	inet_pton(AF_INET, "10.99.0.2", &dst.v4);
	memset(f, 0xA5, T_CAP);
	hl = uet_frame_encode(f, T_CAP, &src, &dst, len);
	cr_assert_gt(hl, 0);
	f[hl] = (uint8_t)(UET_PDS_TYPE_TSS << 3 | (sp ? 0x04 : 0));
	f[hl + 1] = T_SDI >> 16;
	f[hl + 2] = (T_SDI >> 8) & 0xFF;
	f[hl + 3] = T_SDI & 0xFF;
	return (size_t)hl + len;
}

/*
 * Runs |f| and checks the action and which counters moved: |a| and |b|
 * by one (b may be UET_XDP_CNT_MAX: none), the others not (but seen).
 */
static void t_run(struct t_tss *t, const uint8_t *f, size_t len, int action,
		  unsigned int a, unsigned int b)
{
	struct xdp_md ctx = { .data_end = (uint32_t)len };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = f,
		    .data_size_in = (uint32_t)len, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = 1);
	uint64_t before[UET_XDP_CNT_MAX], after[UET_XDP_CNT_MAX];

	cr_assert_eq(uet_xdp_counters_read(&t->maps, before), 0);
	cr_assert_eq(bpf_prog_test_run_opts(t->prog_fd, &opts), 0);
	cr_assert_eq((int)opts.retval, action, "length %zu", len);
	cr_assert_eq(uet_xdp_counters_read(&t->maps, after), 0);
	for (unsigned int i = 0; i < UET_XDP_CNT_MAX; i++)
		cr_assert_eq(after[i] - before[i],
			     i == UET_XDP_CNT_SEEN || i == a || i == b,
			     "length %zu, %s", len, uet_xdp_counter_name(i));
}

Test(io_xdp_tss, steered_by_sdi)
{
	struct t_tss t;
	uint8_t f[T_CAP];
	uint32_t sdi = T_SDI, ep = T_EP, svc = UET_FEP_EP_SERVICE;
	size_t n = t_tss_frame(f, 12 + 16 + 40, false);

	t_setup(&t);
	/* No entry: the service. */
	t_run(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_TSS_TO_SERVICE,
	      UET_XDP_CNT_TO_SERVICE);
	cr_assert_eq(bpf_map_update_elem(t.sdi, &sdi, &ep, 0), 0);
	t_run(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_TSS_STEERED,
	      UET_XDP_CNT_REDIRECTED);
	n = t_tss_frame(f, 16 + 16, true);
	t_run(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_TSS_STEERED,
	      UET_XDP_CNT_REDIRECTED);
	/* Several endpoints: the entry names the service. */
	cr_assert_eq(bpf_map_update_elem(t.sdi, &sdi, &svc, 0), 0);
	t_run(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_TSS_TO_SERVICE,
	      UET_XDP_CNT_TO_SERVICE);
	/* Its endpoint's socket is gone: the service. */
	cr_assert_eq(bpf_map_update_elem(t.sdi, &sdi, &ep, 0), 0);
	cr_assert_eq(bpf_map_delete_elem(t.maps.xsks, &ep), 0);
	t_run(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_TSS_TO_SERVICE,
	      UET_XDP_CNT_TO_SERVICE);
	uet_xsk_destroy(t.xsk);
	uet_xdp__destroy(t.skel);
}

Test(io_xdp_tss, short_ones_malformed)
{
	struct t_tss t;
	uint8_t f[T_CAP];
	size_t n;

	t_setup(&t);
	n = t_tss_frame(f, 12 + 16 - 1, false);
	t_run(&t, f, n, XDP_PASS, UET_XDP_CNT_MALFORMED, UET_XDP_CNT_MAX);
	n = t_tss_frame(f, 12 + 16, false);
	t_run(&t, f, n, XDP_REDIRECT, UET_XDP_CNT_TSS_TO_SERVICE,
	      UET_XDP_CNT_TO_SERVICE);
	/* With an SSI the header is 16 bytes. */
	n = t_tss_frame(f, 16 + 16 - 1, true);
	t_run(&t, f, n, XDP_PASS, UET_XDP_CNT_MALFORMED, UET_XDP_CNT_MAX);
	uet_xsk_destroy(t.xsk);
	uet_xdp__destroy(t.skel);
}
