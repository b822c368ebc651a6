/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The XDP program reading sealed frames' headers (issue 40,
 * bpf/uet_xdp_tss.h): frames sealed by tss/ (AES-256-GCM, as an engine
 * seals them) for an SD with several endpoints on the interface go to the
 * endpoint their encrypted PDS and SES headers name, once the context
 * maker (bpf/uet_tss_ctx.bpf.c) has given the program a context for their
 * key: the SD's in direct mode, the stream's in cluster mode. Without one
 * they go to the service. A request that opens a PDC goes by its SES
 * header (two AES blocks), one on an established PDC and other packets by
 * the first block (its DPDCID). Byte vectors in a private network
 * namespace, one socket at several XSKMAP indices, as test_io_xdp_tss.c.
 * Needs root.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "test/unit/io/t_priv.h"
#include "dev/uet_frame.h"
#include "dev/uet_xdp_ctl.h"
#include "dev/uet_xsk.h"
#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "tss/uet_tss_ep.h"
#include "uet_fep.h"
#include "uet_tss_ctx.skel.h"
#include "uet_wire.h"
#include "uet_xdp.skel.h"

#define T_SDI		0x0A0B0C
#define T_JOB		0x77
#define T_PID_A		0x042		/* held by endpoint 5 */
#define T_PID_B		0x043		/* held by endpoint 3 */
#define T_CAP		512
#define T_ID(ep, low)	((uint16_t)((ep) << UET_FEP_ID_SHIFT | (low)))

struct t_rd {
	struct uet_xdp *skel;
	struct uet_tss_ctx *mk;
	struct uet_xsk *xsk;
	struct uet_xdp_maps maps;
	int prog_fd, sdi, ep_rx;
	uint8_t key[UET_TSS_KEY_LEN];
};

static int t_silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

static void t_setup(struct t_rd *t)
{
	struct uet_xsk_cfg xcfg = { .queue_id = 0, .frame_cnt = 256,
				    .ring_size = 64, .xsks_map_fd = -1 };
	struct uet_xdp_pid_ent a = { .job_id = T_JOB, .ep = 5 };
	struct uet_xdp_pid_ent b = { .job_id = T_JOB, .ep = 3 };
	uint32_t pa = T_PID_A, pb = T_PID_B;
	int fd, pids;

	t_require_root();
	libbpf_set_print(t_silent);
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %m");
	cr_assert_eq(system("ip link add t0 type veth peer name t1 && "
			    "ip link set t0 up && ip link set t1 up"), 0);
	t->skel = uet_xdp__open();
	cr_assert_not_null(t->skel);
	cr_assert_eq(uet_xdp_kptr_fix(t->skel->obj), 0);
	cr_assert_eq(uet_xdp__load(t->skel), 0, "the verifier refused it");
	t->mk = uet_tss_ctx__open();
	cr_assert_not_null(t->mk);
	cr_assert_eq(uet_xdp_kptr_fix(t->mk->obj), 0);
	cr_assert_eq(bpf_map__reuse_fd(t->mk->maps.uet_xdp_tss_ctx,
			bpf_map__fd(t->skel->maps.uet_xdp_tss_ctx)), 0);
	cr_assert_eq(uet_tss_ctx__load(t->mk), 0, "no BPF crypto here");
	t->prog_fd = bpf_program__fd(t->skel->progs.uet_xdp_prog);
	t->maps.xsks = bpf_map__fd(t->skel->maps.uet_xdp_xsks);
	t->maps.counters = bpf_map__fd(t->skel->maps.uet_xdp_counters);
	t->sdi = bpf_map__fd(t->skel->maps.uet_xdp_sdi);
	t->ep_rx = bpf_map__fd(t->skel->maps.uet_xdp_ep_rx);
	pids = bpf_map__fd(t->skel->maps.uet_xdp_pids);
	cr_assert_eq(bpf_map_update_elem(pids, &pa, &a, 0), 0);
	cr_assert_eq(bpf_map_update_elem(pids, &pb, &b, 0), 0);
	xcfg.ifindex = (int)if_nametoindex("t0");
	t->xsk = uet_xsk_create(&xcfg);
	cr_assert_not_null(t->xsk, "xsk: %m");
	fd = uet_xsk_fd(t->xsk);
	for (uint32_t ep = 0; ep <= 5; ep++)
		cr_assert_eq(bpf_map_update_elem(t->maps.xsks, &ep, &fd, 0), 0);
	for (size_t i = 0; i < sizeof(t->key); i++)
		t->key[i] = (uint8_t)(i * 29 + 7);
}

static void t_teardown(struct t_rd *t)
{
	uet_xsk_destroy(t->xsk);
	uet_tss_ctx__destroy(t->mk);
	uet_xdp__destroy(t->skel);
}

static void t_sdi_put(struct t_rd *t, uint32_t flags)
{
	uint32_t sdi = T_SDI, v = UET_FEP_EP_SERVICE | flags;

	cr_assert_eq(bpf_map_update_elem(t->sdi, &sdi, &v, 0), 0);
}

/* A context through the maker, as uetd makes it. */
static void t_ctx_add(struct t_rd *t, const struct uet_xdp_tss_key *k,
		      const uint8_t *key, const uint8_t *mask)
{
	struct uet_xdp_tss_ctx_args a = { .k = *k };
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = &a,
		    .ctx_size_in = sizeof(a));

	memcpy(a.key, key, sizeof(a.key));
	if (mask)
		memcpy(a.iv_mask, mask, sizeof(a.iv_mask));
	cr_assert_eq(bpf_prog_test_run_opts(
		bpf_program__fd(t->mk->progs.uet_tss_ctx_add), &o), 0);
	cr_assert_eq(a.err, 0, "context maker: %d", a.err);
}

/*
 * A frame from 10.99.0.1 sealed by an endpoint of |mode| (with an SSI when
 * |ssi|, epoch 3) around |plain| (|n| bytes: PDS header onwards).
 */
static size_t t_sealed6(struct t_rd *t, uint8_t *f, enum uet_tss_mode mode,
			bool ssi, bool v6, const uint8_t *plain, size_t n);

static size_t t_sealed(struct t_rd *t, uint8_t *f, enum uet_tss_mode mode,
		       bool ssi, const uint8_t *plain, size_t n)
{
	return t_sealed6(t, f, mode, ssi, false, plain, n);
}

/* Packets the next t_sealed6() seals first, to start at a later TSC. */
static unsigned int t_skip;

/* The same over IPv6 (fd00::1 to fd00::2) when |v6|. */
static size_t t_sealed6(struct t_rd *t, uint8_t *f, enum uet_tss_mode mode,
			bool ssi, bool v6, const uint8_t *plain, size_t n)
{
	struct uet_frame_addr src = { .port = 0x5151, .is_v6 = v6 }, dst = {
		.port = UET_UDP_PORT, .is_v6 = v6 };
	struct uet_tss_sd_keys k = {
		.sdi = T_SDI, .mode = mode, .tx_an = 0, .have = 1,
		.use_ssi = ssi, .ssi = 0x0A0B0004, .epoch = { 3, 0 },
	};
	struct uet_tss_src local = { .is_v6 = v6 };
	struct uet_tss_pkt pkt = { .sport = 0x5151, .dport = UET_UDP_PORT,
				   .is_v6 = v6 };
	struct uet_tss_ep *ep;
	ssize_t hl, len;
	size_t thl;

	if (v6) {
		inet_pton(AF_INET6, "fd00::1", &src.v6);
		inet_pton(AF_INET6, "fd00::2", &dst.v6);
		memcpy(local.addr, &src.v6, 16);
	} else {
		inet_pton(AF_INET, "10.99.0.1", &src.v4);
		inet_pton(AF_INET, "10.99.0.2", &dst.v4);
		memcpy(local.addr, &src.v4, 4);
	}
	memcpy(k.key[0], t->key, sizeof(t->key));
	ep = uet_tss_ep_new(&k, &local);
	cr_assert_not_null(ep);
	thl = uet_tss_ep_hdr_len(ep);
	pkt.saddr = v6 ? (const uint8_t *)&src.v6 : (const uint8_t *)&src.v4;
	pkt.daddr = v6 ? (const uint8_t *)&dst.v6 : (const uint8_t *)&dst.v4;
	for (; t_skip; t_skip--)
		cr_assert_gt(uet_tss_ep_seal(ep, &pkt, f, 16), 0);
	memset(f, 0xA5, T_CAP);
	hl = uet_frame_encode(f, T_CAP, &src, &dst,
			      thl + n + UET_TSS_ICV_LEN);
	cr_assert_gt(hl, 0);
	memcpy(f + hl + thl, plain, n);
	len = uet_tss_ep_seal(ep, &pkt, f + hl, n);
	cr_assert_eq(len, (ssize_t)(thl + n + UET_TSS_ICV_LEN));
	uet_tss_ep_free(ep);
	/* Sealed: the SES header's PIDonFEP is not in clear. */
	cr_assert_neq(memcmp(f + hl + thl, plain, n), 0);
	return (size_t)hl + (size_t)len;
}

/* A RUD request (SYN) with a standard SES header to |pid|, 8 B of data. */
static size_t t_req_plain(uint8_t *h, uint16_t pid)
{
	struct pdc_hdr pds = { .req = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
			 UET_PDS_F_REQ_SYN },
		.psn = 1, .spdcid = T_ID(9, 1) } };
	struct ses_std_hdr ses = {
		.opcode = UET_SES_OP_WRITE,
		.f = { .rel = true, .som = true, .eom = true },
		.message_id = 9, .job_id = T_JOB, .pid_on_fep = pid,
		.request_length = 8,
	};
	ssize_t n = pdc_hdr_encode(h, UET_PDS_HDR_MAX_LEN, &pds);

	cr_assert_gt(n, 0);
	cr_assert_eq(ses_std_hdr_encode(h + n, UET_SES_STD_HDR_LEN, &ses),
		     UET_SES_STD_HDR_LEN);
	memset(h + n + UET_SES_STD_HDR_LEN, 0x3C, 8);
	return (size_t)n + UET_SES_STD_HDR_LEN + 8;
}

/*
 * A request on an established PDC (no SYN) whose DPDCID names endpoint
 * |ep|, its SES header naming T_PID_A's (5): sealed, the DPDCID in the
 * first block steers it.
 */
static size_t t_est_plain(uint8_t *h, uint32_t ep)
{
	size_t n = t_req_plain(h, T_PID_A);
	struct pdc_hdr pds = { .req = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
			 0 },
		.psn = 2, .spdcid = T_ID(9, 1), .dpdcid = T_ID(ep, 4) } };

	cr_assert_eq(pdc_hdr_encode(h, UET_PDS_HDR_MAX_LEN, &pds),
		     UET_PDS_RUD_REQ_LEN);
	return n;
}

/* An ACK on the PDC whose DPDCID names endpoint |ep|. */
static size_t t_ack_plain(uint8_t *h, uint32_t ep)
{
	struct pdc_hdr pds = { .ack = {
		.pro = { UET_PDS_TYPE_ACK, 0, 0 },
		.cack_psn = 5, .spdcid = T_ID(9, 1),
		.dpdcid = T_ID(ep, 2) } };
	ssize_t n = pdc_hdr_encode(h, UET_PDS_HDR_MAX_LEN, &pds);

	cr_assert_gt(n, 0);
	return (size_t)n;
}

static uint64_t t_ep_rx(struct t_rd *t, uint32_t ep)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[ncpu > 0 ? ncpu : 1], sum = 0;

	cr_assert_eq(bpf_map_lookup_elem(t->ep_rx, &ep, v), 0);
	for (int c = 0; c < ncpu; c++)
		sum += v[c];
	return sum;
}

/*
 * |f| through the program |reps| times in one test run, the counters read
 * before and after: the program's verdict.
 */
static int t_run(struct t_rd *t, const uint8_t *f, size_t len, uint32_t reps,
		 uint64_t *before, uint64_t *after)
{
	struct xdp_md ctx = { .data_end = (uint32_t)len };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f,
		    .data_size_in = (uint32_t)len, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx), .repeat = reps);

	cr_assert_eq(uet_xdp_counters_read(&t->maps, before), 0);
	cr_assert_eq(bpf_prog_test_run_opts(t->prog_fd, &o), 0);
	cr_assert_eq(uet_xdp_counters_read(&t->maps, after), 0);
	return (int)o.retval;
}

/*
 * Runs |f|: redirected, to endpoint |ep| (its counter up by one) or to the
 * service (|ep| 0: no endpoint's counter moves); counter |cnt| up by one.
 */
static void t_expect(struct t_rd *t, const uint8_t *f, size_t len,
		     uint32_t ep, unsigned int cnt)
{
	uint64_t before[UET_XDP_CNT_MAX], after[UET_XDP_CNT_MAX], rx[2];

	rx[0] = t_ep_rx(t, 3) + t_ep_rx(t, 5);
	rx[1] = ep ? t_ep_rx(t, ep) : 0;
	cr_assert_eq(t_run(t, f, len, 1, before, after), XDP_REDIRECT);
	cr_assert_eq(after[cnt] - before[cnt], 1, "%s",
		     uet_xdp_counter_name(cnt));
	cr_assert_eq(after[ep ? UET_XDP_CNT_TSS_STEERED :
			   UET_XDP_CNT_TSS_TO_SERVICE] -
		     before[ep ? UET_XDP_CNT_TSS_STEERED :
			    UET_XDP_CNT_TSS_TO_SERVICE], 1);
	if (ep)
		cr_assert_eq(t_ep_rx(t, ep), rx[1] + 1, "endpoint %u", ep);
	else
		cr_assert_eq(t_ep_rx(t, 3) + t_ep_rx(t, 5), rx[0]);
}

Test(io_xdp_tss_read, direct_mode_by_the_sds_context)
{
	struct uet_xdp_tss_key k = { .sdi_an = T_SDI };
	uint8_t f[T_CAP], p[128], other[UET_TSS_KEY_LEN] = { 1 };
	struct t_rd t;
	size_t n;

	t_setup(&t);
	t_sdi_put(&t, UET_XDP_SDI_READ_SD);
	n = t_sealed(&t, f, UET_TSS_DIRECT, false, p, t_req_plain(p, T_PID_A));
	/* No context yet: the service. */
	t_expect(&t, f, n, 0, UET_XDP_CNT_TSS_NO_CTX);
	t_ctx_add(&t, &k, t.key, NULL);
	t_expect(&t, f, n, 5, UET_XDP_CNT_TSS_READ);
	n = t_sealed(&t, f, UET_TSS_DIRECT, false, p, t_req_plain(p, T_PID_B));
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_READ);
	/* With an SSI (the IV's source), and an ACK (one block) by DPDCID. */
	n = t_sealed(&t, f, UET_TSS_DIRECT, true, p, t_req_plain(p, T_PID_A));
	t_expect(&t, f, n, 5, UET_XDP_CNT_TSS_READ);
	n = t_sealed(&t, f, UET_TSS_DIRECT, false, p, t_ack_plain(p, 3));
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_READ);
	/* Established: by its DPDCID (first block), not its SES header. */
	n = t_sealed(&t, f, UET_TSS_DIRECT, false, p, t_est_plain(p, 3));
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_READ);
	/* A context of another key: noise, which names no endpoint here. */
	t_ctx_add(&t, &k, other, NULL);
	n = t_sealed(&t, f, UET_TSS_DIRECT, false, p, t_req_plain(p, T_PID_A));
	t_expect(&t, f, n, 0, UET_XDP_CNT_TSS_READ);
	t_teardown(&t);
}

Test(io_xdp_tss_read, cluster_mode_by_the_streams_context)
{
	struct uet_xdp_tss_key k = { .sdi_an = T_SDI, .epoch = 3, .sp = 1,
				     .src = { 0x0A, 0x0B, 0x00, 0x04 } };
	struct uet_tss_src src = { .is_v6 = false };
	struct uet_tss_keymat km;
	struct uet_tss_hdr h;
	uint8_t f[T_CAP], p[128];
	struct t_rd t;
	size_t n, hl = 14 + 20 + 8;

	t_setup(&t);
	t_sdi_put(&t, UET_XDP_SDI_READ_STREAM);
	n = t_sealed(&t, f, UET_TSS_CLUSTER, true, p, t_req_plain(p, T_PID_B));
	t_expect(&t, f, n, 0, UET_XDP_CNT_TSS_NO_CTX);
	/* The SD's key is not the stream's: the SD-wide entry is no use. */
	t_ctx_add(&t, &(struct uet_xdp_tss_key){ .sdi_an = T_SDI }, t.key,
		  NULL);
	t_expect(&t, f, n, 0, UET_XDP_CNT_TSS_NO_CTX);
	cr_assert_gt(uet_tss_hdr_decode(&h, f + hl, n - hl), 0);
	inet_pton(AF_INET, "10.99.0.1", src.addr);
	cr_assert_eq(uet_tss_derive(&km, UET_TSS_CLUSTER, t.key, &h, &src, 0),
		     0);
	t_ctx_add(&t, &k, km.key, km.iv_mask);
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_READ);
	/* Without an SSI the stream is the IPv4 source's. */
	n = t_sealed(&t, f, UET_TSS_CLUSTER, false, p, t_req_plain(p, T_PID_A));
	t_expect(&t, f, n, 0, UET_XDP_CNT_TSS_NO_CTX);
	cr_assert_gt(uet_tss_hdr_decode(&h, f + hl, n - hl), 0);
	cr_assert_eq(uet_tss_derive(&km, UET_TSS_CLUSTER, t.key, &h, &src, 0),
		     0);
	k = (struct uet_xdp_tss_key){ .sdi_an = T_SDI, .epoch = 3,
				      .src = { 10, 99, 0, 1 } };
	t_ctx_add(&t, &k, km.key, km.iv_mask);
	t_expect(&t, f, n, 5, UET_XDP_CNT_TSS_READ);
	t_teardown(&t);
}

/* IPv6: the IV takes the SDI (no SSI), the stream its 16-byte source. */
Test(io_xdp_tss_read, ipv6_both_modes)
{
	struct uet_xdp_tss_key k = { .sdi_an = T_SDI, .epoch = 3,
				     .is_v6 = 1 };
	struct uet_tss_src src = { .is_v6 = true };
	struct uet_tss_keymat km;
	struct uet_tss_hdr h;
	uint8_t f[T_CAP], p[128];
	struct t_rd t;
	size_t n, hl = 14 + 40 + 8;

	t_setup(&t);
	t_sdi_put(&t, UET_XDP_SDI_READ_SD);
	t_ctx_add(&t, &(struct uet_xdp_tss_key){ .sdi_an = T_SDI }, t.key,
		  NULL);
	n = t_sealed6(&t, f, UET_TSS_DIRECT, false, true, p,
		      t_req_plain(p, T_PID_B));
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_READ);
	n = t_sealed6(&t, f, UET_TSS_DIRECT, true, true, p,
		      t_est_plain(p, 5));
	t_expect(&t, f, n, 5, UET_XDP_CNT_TSS_READ);
	t_sdi_put(&t, UET_XDP_SDI_READ_STREAM);
	n = t_sealed6(&t, f, UET_TSS_CLUSTER, false, true, p,
		      t_req_plain(p, T_PID_A));
	t_expect(&t, f, n, 0, UET_XDP_CNT_TSS_NO_CTX);
	cr_assert_gt(uet_tss_hdr_decode(&h, f + hl, n - hl), 0);
	inet_pton(AF_INET6, "fd00::1", src.addr);
	memcpy(k.src, src.addr, 16);
	cr_assert_eq(uet_tss_derive(&km, UET_TSS_CLUSTER, t.key, &h, &src, 0),
		     0);
	t_ctx_add(&t, &k, km.key, km.iv_mask);
	t_expect(&t, f, n, 5, UET_XDP_CNT_TSS_READ);
	t_teardown(&t);
}

/* Requests on the keystream ring: the last one and how many. */
struct t_asked {
	struct uet_xdp_tss_ks_req last;
	int n;
};

static int t_ask_cb(void *ctx, void *data, size_t len)
{
	struct t_asked *a = ctx;

	cr_assert_eq(len, sizeof(a->last));
	memcpy(&a->last, data, sizeof(a->last));
	a->n++;
	return 0;
}

static struct t_asked t_asked(struct t_rd *t)
{
	struct t_asked a = { .n = 0 };
	struct ring_buffer *rb = ring_buffer__new(
		bpf_map__fd(t->skel->maps.uet_xdp_tss_ks_ring), t_ask_cb, &a,
		NULL);

	cr_assert_not_null(rb);
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return a;
}

/* |f| run |reps| times in one test run: how far counter |cnt| moved. */
static uint64_t t_runs(struct t_rd *t, const uint8_t *f, size_t len,
		       uint32_t reps, unsigned int cnt)
{
	uint64_t before[UET_XDP_CNT_MAX], after[UET_XDP_CNT_MAX];

	t_run(t, f, len, reps, before, after);
	return after[cnt] - before[cnt];
}

#define KS	UET_XDP_TSS_KS_N

static uint64_t t_tsc(const uint8_t *iv)
{
	uint64_t tsc = 0;

	for (int i = 6; i < 12; i++)
		tsc = tsc << 8 | iv[i];
	return tsc;
}

/*
 * Keystream made ahead (uet_xdp_tss_ks): a frame without an entry is read
 * with the kernel's AES and asks for its entry on the ring; with the
 * entry, made by uet_tss_keystream() as the service makes it, the frame
 * is read from it (KS_HIT), which a doctored entry shows by sending it
 * elsewhere; a frame past the middle of its entry asks for the next
 * UET_XDP_TSS_KS_AHEAD, once, unless the service marked the entry as
 * made with its next ones.
 */
static void t_ks(enum uet_tss_mode mode)
{
	struct uet_xdp_tss_key k = { .sdi_an = T_SDI };
	static struct uet_xdp_tss_ks_val val;
	uint8_t f[T_CAP], p[128], q[128];
	struct uet_tss_src src = { .is_v6 = false };
	struct uet_tss_keymat km;
	struct uet_tss_hdr h;
	struct uet_xdp_tss_ks_key base;
	struct t_asked a;
	size_t n, hl = 14 + 20 + 8;
	uint32_t idx;
	struct t_rd t;
	int ks;

	t_setup(&t);
	ks = bpf_map__fd(t.skel->maps.uet_xdp_tss_ks);
	t_sdi_put(&t, mode == UET_TSS_DIRECT ? UET_XDP_SDI_READ_SD :
					       UET_XDP_SDI_READ_STREAM);
	n = t_sealed(&t, f, mode, true, p, t_est_plain(p, 3));
	cr_assert_gt(uet_tss_hdr_decode(&h, f + hl, n - hl), 0);
	inet_pton(AF_INET, "10.99.0.1", src.addr);
	cr_assert_eq(uet_tss_derive(&km, mode, t.key, &h, &src, 0), 0);
	if (mode == UET_TSS_CLUSTER)
		k = (struct uet_xdp_tss_key){ .sdi_an = T_SDI, .epoch = 3,
			.sp = 1, .src = { 0x0A, 0x0B, 0x00, 0x04 } };
	t_ctx_add(&t, &k, km.key, km.iv_mask);
	/*
	 * No entry: AES in the kernel, and a request for the entry, once a
	 * while per key: twice in a row (one test run) asks once.
	 */
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_KS_ASKED);
	cr_assert_eq(t_asked(&t).n, 1);
	usleep(2 * UET_XDP_TSS_KS_ASK_NS / 1000);
	cr_assert_eq(t_runs(&t, f, n, 2, UET_XDP_CNT_TSS_KS_ASKED), 1);
	a = t_asked(&t);
	cr_assert_eq(a.n, 1);
	cr_assert_eq(a.last.entries, 1, "a miss asks for its entry alone");
	cr_assert_eq(memcmp(&a.last.key.k, &k, sizeof(k)), 0);
	cr_assert_eq(a.last.key.iv[0], 0x0A);	/* the SSI, 0x0A0B0004 */
	cr_assert_eq(a.last.key.iv[3], 0x04);
	cr_assert_eq(a.last.key.iv[4] << 8 | a.last.key.iv[5], 3);
	cr_assert_eq(t_tsc(a.last.key.iv), h.tsc & ~(uint64_t)(KS - 1));
	/* The entry as the service makes it: read from it. */
	cr_assert_eq(uet_tss_keystream(val.ks, UET_XDP_TSS_KS_N, &km,
				       a.last.key.iv), 0);
	cr_assert_eq(bpf_map_update_elem(ks, &a.last.key, &val, 0), 0);
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_KS_HIT);
	/* Doctored to turn this frame's DPDCID into endpoint 5's. */
	idx = (uint32_t)(h.tsc & (KS - 1));
	t_est_plain(p, 3);
	t_est_plain(q, 5);
	for (int i = 0; i < 16; i++)
		val.ks[idx][i] ^= p[i] ^ q[i];
	cr_assert_eq(bpf_map_update_elem(ks, &a.last.key, &val, 0), 0);
	t_expect(&t, f, n, 5, UET_XDP_CNT_TSS_KS_HIT);
	cr_assert_eq(t_asked(&t).n, 0);
	/* Past the middle of the entry: asks for the next one, once. */
	base = a.last.key;
	t_skip = KS / 2 + 8;
	n = t_sealed(&t, f, mode, true, p, t_est_plain(p, 3));
	cr_assert_gt(uet_tss_hdr_decode(&h, f + hl, n - hl), 0);
	cr_assert_geq(h.tsc & (KS - 1), KS / 2);
	cr_assert_eq(uet_tss_keystream(val.ks, UET_XDP_TSS_KS_N, &km,
				       a.last.key.iv), 0);
	cr_assert_eq(bpf_map_update_elem(ks, &a.last.key, &val, 0), 0);
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_KS_ASKED);
	a = t_asked(&t);
	cr_assert_eq(a.n, 1);
	cr_assert_eq(t_tsc(a.last.key.iv), (h.tsc & ~(uint64_t)(KS - 1)) + KS);
	cr_assert_eq(a.last.entries, UET_XDP_TSS_KS_AHEAD);
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_KS_HIT);
	cr_assert_eq(t_asked(&t).n, 0);
	/*
	 * A PDC-opening request past the middle of a fresh entry: its first
	 * block from the entry, its SES header with the kernel's AES from
	 * the frame's own counter block, not the next entry's it asked for
	 * (a retransmitted SYN went to the service so).
	 */
	t_skip = KS / 2 + 9;
	n = t_sealed(&t, f, mode, true, p, t_req_plain(p, T_PID_B));
	cr_assert_gt(uet_tss_hdr_decode(&h, f + hl, n - hl), 0);
	cr_assert_eq(t_tsc(base.iv), h.tsc & ~(uint64_t)(KS - 1));
	cr_assert_eq(uet_tss_keystream(val.ks, UET_XDP_TSS_KS_N, &km, base.iv),
		     0);
	val.asked_ns = 0;
	cr_assert_eq(bpf_map_update_elem(ks, &base, &val, 0), 0);
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_KS_HIT);
	cr_assert_eq(t_asked(&t).n, 1);
	/* An entry the service made with its next ones asks for none. */
	cr_assert_eq(uet_tss_keystream(val.ks, UET_XDP_TSS_KS_N, &km,
				       a.last.key.iv), 0);
	val.asked_ns = 1;
	cr_assert_eq(bpf_map_update_elem(ks, &a.last.key, &val, 0), 0);
	t_skip = KS + KS / 2 + 8;
	n = t_sealed(&t, f, mode, true, p, t_est_plain(p, 3));
	cr_assert_gt(uet_tss_hdr_decode(&h, f + hl, n - hl), 0);
	cr_assert_eq(t_tsc(a.last.key.iv), h.tsc & ~(uint64_t)(KS - 1));
	t_expect(&t, f, n, 3, UET_XDP_CNT_TSS_KS_HIT);
	cr_assert_eq(t_asked(&t).n, 0);
	t_teardown(&t);
}

Test(io_xdp_tss_read, keystream_made_ahead_direct)
{
	t_ks(UET_TSS_DIRECT);
}

Test(io_xdp_tss_read, keystream_made_ahead_cluster)
{
	t_ks(UET_TSS_CLUSTER);
}
