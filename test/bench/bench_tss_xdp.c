/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What reading a sealed frame's headers costs the XDP program (issue 40,
 * bpf/uet_xdp_tss.h), in ns a frame, from bpf_prog_test_run's own timing
 * over many runs, clear against sealed: a request opening a PDC (SYN:
 * sealed, two AES blocks in two calls, to reach its SES header), a
 * request on an established PDC and an ACK (sealed, one block: their
 * DPDCID). The differences are the cost of the keystream and the context
 * lookup. The AES is the kernel's ecb(aes) through the BPF crypto kfuncs
 * (here aes-fixed-time: AES-NI is not built into this kernel). Nothing is
 * sent: the frames go nowhere (no socket: XDP_PASS after steering). Needs
 * root. Then the same established request and ACK read with the
 * keystream made ahead (uet_xdp_tss_ks: what the service makes on the
 * program's request, here made by the bench the same way): no AES.
 *
 *   bench: tss_xdp_clear_ns, tss_xdp_clear_est_ns, tss_xdp_clear_ack_ns,
 *	    tss_xdp_req_ns, tss_xdp_est_ns, tss_xdp_ack_ns NS ns
 *   bench: tss_xdp_req_cost_ns, tss_xdp_est_cost_ns, tss_xdp_ack_cost_ns
 *	    (sealed minus clear) NS ns
 *   bench: tss_xdp_est_ks_ns, tss_xdp_ack_ks_ns, tss_xdp_est_ks_cost_ns,
 *	    tss_xdp_ack_ks_cost_ns NS ns
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dev/uet_frame.h"
#include "dev/uet_xdp_ctl.h"
#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "tss/uet_tss_ep.h"
#include "uet_fep.h"
#include "uet_tss_ctx.skel.h"
#include "uet_wire.h"
#include "uet_xdp.skel.h"

#define B_SDI		0x0A0B0C
#define B_JOB		0x77
#define B_PID		0x042
#define B_CAP		512
#define B_REPS		5

static struct uet_xdp *skel;
static struct uet_tss_ctx *mk;
static uint8_t key[UET_TSS_KEY_LEN];

static int b_silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

static int b_fail(const char *what)
{
	fprintf(stderr, "bench_tss_xdp: %s\n", what);
	return 1;
}

/* The program and the context maker loaded; SD B_SDI read in XDP. */
static int b_setup(void)
{
	struct uet_xdp_pid_ent ent = { .job_id = B_JOB, .ep = 5 };
	struct uet_xdp_tss_ctx_args a = { .k.sdi_an = B_SDI };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &a,
		    .ctx_size_in = sizeof(a));
	uint32_t pid = B_PID, sdi = B_SDI;
	uint32_t v = UET_FEP_EP_SERVICE | UET_XDP_SDI_READ_SD;

	libbpf_set_print(b_silent);
	if (unshare(CLONE_NEWNET) < 0)
		return b_fail("unshare (root needed)");
	skel = uet_xdp__open();
	if (!skel || uet_xdp_kptr_fix(skel->obj) || uet_xdp__load(skel))
		return b_fail("the XDP program does not load");
	mk = uet_tss_ctx__open();
	if (!mk || uet_xdp_kptr_fix(mk->obj) ||
	    bpf_map__reuse_fd(mk->maps.uet_xdp_tss_ctx,
			      bpf_map__fd(skel->maps.uet_xdp_tss_ctx)) ||
	    uet_tss_ctx__load(mk))
		return b_fail("no BPF crypto kfuncs in this kernel");
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 13 + 1);
	memcpy(a.key, key, sizeof(key));
	if (bpf_prog_test_run_opts(bpf_program__fd(mk->progs.uet_tss_ctx_add),
				   &o) || a.err)
		return b_fail("no ecb(aes) context");
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.uet_xdp_pids), &pid,
				&ent, 0) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.uet_xdp_sdi), &sdi, &v,
				0))
		return b_fail("map update");
	return 0;
}

/* Ethernet, IPv4, UDP around |p| (|n| bytes), sealed when |seal|. */
static size_t b_frame(uint8_t *f, const uint8_t *p, size_t n, bool seal)
{
	struct uet_frame_addr src = { .port = 0x5151 }, dst = {
		.port = UET_UDP_PORT };
	struct uet_tss_sd_keys k = { .sdi = B_SDI, .mode = UET_TSS_DIRECT,
				     .have = 1 };
	struct uet_tss_src local = { .is_v6 = false };
	struct uet_tss_pkt pkt = { .sport = 0x5151, .dport = UET_UDP_PORT };
	struct uet_tss_ep *ep = NULL;
	size_t thl = 0;
	ssize_t hl;

	inet_pton(AF_INET, "10.99.0.1", &src.v4);
	inet_pton(AF_INET, "10.99.0.2", &dst.v4);
	if (seal) {
		memcpy(local.addr, &src.v4, 4);
		memcpy(k.key[0], key, sizeof(key));
		ep = uet_tss_ep_new(&k, &local);
		if (!ep)
			return 0;
		thl = uet_tss_ep_hdr_len(ep);
	}
	hl = uet_frame_encode(f, B_CAP, &src, &dst,
			      thl + n + (seal ? UET_TSS_ICV_LEN : 0));
	if (hl < 0)
		return 0;
	memcpy(f + hl + thl, p, n);
	if (!seal)
		return (size_t)hl + n;
	pkt.saddr = (const uint8_t *)&src.v4;
	pkt.daddr = (const uint8_t *)&dst.v4;
	if (uet_tss_ep_seal(ep, &pkt, f + hl, n) < 0)
		n = 0;
	uet_tss_ep_free(ep);
	return n ? (size_t)hl + thl + n + UET_TSS_ICV_LEN : 0;
}

static size_t b_req(uint8_t *h)
{
	struct pdc_hdr pds = { .req = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
			 UET_PDS_F_REQ_SYN }, .psn = 1, .spdcid = 0x0101 } };
	struct ses_std_hdr ses = {
		.opcode = UET_SES_OP_WRITE,
		.f = { .rel = true, .som = true, .eom = true },
		.job_id = B_JOB, .pid_on_fep = B_PID, .request_length = 8,
	};
	ssize_t n = pdc_hdr_encode(h, UET_PDS_HDR_MAX_LEN, &pds);

	ses_std_hdr_encode(h + n, UET_SES_STD_HDR_LEN, &ses);
	memset(h + n + UET_SES_STD_HDR_LEN, 0x3C, 8);
	return (size_t)n + UET_SES_STD_HDR_LEN + 8;
}

/* The same on an established PDC (no SYN): the common request. */
static size_t b_est(uint8_t *h)
{
	size_t n = b_req(h);
	struct pdc_hdr pds = { .req = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
			 0 }, .psn = 2, .spdcid = 0x0101,
		.dpdcid = (uint16_t)(5 << UET_FEP_ID_SHIFT | 2) } };

	pdc_hdr_encode(h, UET_PDS_HDR_MAX_LEN, &pds);
	return n;
}

static size_t b_ack(uint8_t *h)
{
	struct pdc_hdr pds = { .ack = {
		.pro = { UET_PDS_TYPE_ACK, 0, 0 }, .cack_psn = 5,
		.spdcid = 0x0101,
		.dpdcid = (uint16_t)(5 << UET_FEP_ID_SHIFT | 2) } };

	return (size_t)pdc_hdr_encode(h, UET_PDS_HDR_MAX_LEN, &pds);
}

/* ns a run of |f|, the median of B_REPS timings of |runs| runs each. */
static double b_time(const uint8_t *f, size_t len, uint32_t runs)
{
	struct xdp_md ctx = { .data_end = (uint32_t)len };
	double v[B_REPS], t;

	for (int r = 0; r < B_REPS; r++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f,
			    .data_size_in = (uint32_t)len, .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx), .repeat = runs);

		if (bpf_prog_test_run_opts(
			bpf_program__fd(skel->progs.uet_xdp_prog), &o))
			return -1;
		v[r] = o.duration;	/* ns a run, averaged by the kernel */
	}
	for (int i = 1; i < B_REPS; i++)
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--)
			t = v[j], v[j] = v[j - 1], v[j - 1] = t;
	return v[B_REPS / 2];
}

static int b_asked_cb(void *ctx, void *data, size_t len)
{
	if (len == sizeof(struct uet_xdp_tss_ks_req))
		memcpy(ctx, data, len);
	return 0;
}

/*
 * The keystream entry the program asked for while the sealed frames ran
 * (they are all of one stream, at its first TSCs), made as the service
 * makes it: the next runs read from it, with no AES.
 */
static int b_ks_fill(void)
{
	static struct uet_xdp_tss_ks_val val;
	struct uet_xdp_tss_ks_req req = { .key.k.sdi_an = 0 };
	struct uet_tss_keymat km = { .iv_mask = { 0 } };
	struct ring_buffer *rb = ring_buffer__new(
		bpf_map__fd(skel->maps.uet_xdp_tss_ks_ring), b_asked_cb, &req,
		NULL);

	if (!rb)
		return -1;
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	if (req.key.k.sdi_an != B_SDI)
		return -1;
	memcpy(km.key, key, sizeof(key));
	if (uet_tss_keystream(val.ks, UET_XDP_TSS_KS_N, &km, req.key.iv))
		return -1;
	return bpf_map_update_elem(bpf_map__fd(skel->maps.uet_xdp_tss_ks),
				   &req.key, &val, 0);
}

int main(void)
{
	uint8_t clear[B_CAP], cack[B_CAP], cest[B_CAP], req[B_CAP];
	uint8_t est[B_CAP], ack[B_CAP], p[128];
	size_t nc, nca, nce, nr, ne, na;
	uint32_t runs = getenv("BENCH_SMOKE") ? 2000 : 200000;
	double tc, tca, tce, tr, te, ta, tek, tak;

	if (b_setup())
		return 1;
	nc = b_frame(clear, p, b_req(p), false);
	nca = b_frame(cack, p, b_ack(p), false);
	nce = b_frame(cest, p, b_est(p), false);
	nr = b_frame(req, p, b_req(p), true);
	ne = b_frame(est, p, b_est(p), true);
	na = b_frame(ack, p, b_ack(p), true);
	if (!nc || !nca || !nce || !nr || !ne || !na)
		return b_fail("frames");
	tc = b_time(clear, nc, runs);
	tca = b_time(cack, nca, runs);
	tce = b_time(cest, nce, runs);
	tr = b_time(req, nr, runs);
	te = b_time(est, ne, runs);
	ta = b_time(ack, na, runs);
	if (tc < 0 || tca < 0 || tce < 0 || tr < 0 || te < 0 || ta < 0)
		return b_fail("test run");
	if (b_ks_fill())
		return b_fail("no keystream entry asked for");
	tek = b_time(est, ne, runs);
	tak = b_time(ack, na, runs);
	if (tek < 0 || tak < 0)
		return b_fail("test run");
	printf("bench_tss_xdp: XDP program per frame, median of %d x %u "
	       "runs (bpf_prog_test_run; kernel ecb(aes) %s)\n", B_REPS, runs,
	       "aes-fixed-time here");
	printf("bench: tss_xdp_clear_ns %.0f ns\n", tc);
	printf("bench: tss_xdp_clear_ack_ns %.0f ns\n", tca);
	printf("bench: tss_xdp_clear_est_ns %.0f ns\n", tce);
	printf("bench: tss_xdp_req_ns %.0f ns\n", tr);
	printf("bench: tss_xdp_est_ns %.0f ns\n", te);
	printf("bench: tss_xdp_ack_ns %.0f ns\n", ta);
	printf("bench: tss_xdp_req_cost_ns %.0f ns\n",
	       tr > tc ? tr - tc : 1);
	printf("bench: tss_xdp_est_cost_ns %.0f ns\n",
	       te > tce ? te - tce : 1);
	printf("bench: tss_xdp_ack_cost_ns %.0f ns\n",
	       ta > tca ? ta - tca : 1);
	printf("bench: tss_xdp_est_ks_ns %.0f ns\n", tek);
	printf("bench: tss_xdp_ack_ks_ns %.0f ns\n", tak);
	printf("bench: tss_xdp_est_ks_cost_ns %.0f ns\n",
	       tek > tce ? tek - tce : 1);
	printf("bench: tss_xdp_ack_ks_cost_ns %.0f ns\n",
	       tak > tca ? tak - tca : 1);
	uet_tss_ctx__destroy(mk);
	uet_xdp__destroy(skel);
	return 0;
}
