/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The XDP program's test bench, shared by test_io_xdp.c and
 * test_io_xdp_pdc.c: a private namespace with a veth pair, the program
 * loaded with its maps, one XSK at chosen indices, frames built from PDS
 * and SES headers and run through bpf_prog_test_run_opts, and checks of
 * where each went by the counters.
 */
#ifndef T_XDP_H
#define T_XDP_H

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

static inline int t_silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

/* Puts the test's one socket at XSKMAP index |ep|, or takes it out. */
static inline void t_xsk_put(struct t_xdp *t, uint32_t ep)
{
	int fd = uet_xsk_fd(t->xsk);

	cr_assert_eq(bpf_map_update_elem(t->maps.xsks, &ep, &fd, 0), 0,
		     "xskmap[%u]: %m", ep);
}

static inline void t_xsk_del(struct t_xdp *t, uint32_t ep)
{
	cr_assert_eq(bpf_map_delete_elem(t->maps.xsks, &ep), 0);
}

static inline void t_pid_put(struct t_xdp *t, uint32_t pid, uint32_t job_id,
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
static inline void t_xdp_setup(struct t_xdp *t, uint64_t xsk_eps, uint16_t port)
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

static inline void t_xdp_teardown(struct t_xdp *t)
{
	uet_xsk_destroy(t->xsk);
	uet_xdp__destroy(t->skel);
}

/* Runs the program once on |frame|; returns the XDP action. */
static inline int t_xdp_run(struct t_xdp *t, const uint8_t *frame, size_t len)
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
static inline void t_ep_rx_read(struct t_xdp *t, uint64_t *cnt)
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
static inline void t_xdp_check(struct t_xdp *t, const uint8_t *frame,
			       size_t len, int action, unsigned int cnt,
			       uint32_t ep)
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
static inline void t_xdp_expect(struct t_xdp *t, const uint8_t *frame,
				size_t len, int action, unsigned int cnt)
{
	t_xdp_check(t, frame, len, action, cnt, UET_FEP_EP_SERVICE);
}

/* A frame redirected to endpoint |ep|, or to the service when |ep| is 0. */
static inline void t_xdp_to(struct t_xdp *t, const uint8_t *frame, size_t len,
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
static inline size_t t_frame(uint8_t *f, bool v6, uint16_t port,
			     const uint8_t *hdr, size_t hdr_len)
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
static inline size_t t_std_hdr(uint8_t *h, const struct pdc_hdr *pds,
			       uint16_t pid, uint32_t job_id, bool rel)
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
static inline size_t t_std_frame(uint8_t *f, const struct pdc_hdr *pds,
				 uint16_t pid, uint32_t job_id, bool rel)
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
static inline size_t t_uet_frame(uint8_t *f, bool v6, uint16_t port)
{
	uint8_t h[UET_PDS_HDR_MAX_LEN + UET_SES_STD_HDR_LEN];
	size_t n = t_std_hdr(h, &t_rud_syn, T_PID, T_JOB, true);

	return t_frame(f, v6, port, h, n);
}

/* A RUD/ROD request (plain or CC) carrying |next_hdr|, SYN or |dpdcid|. */
static inline struct pdc_hdr t_req(uint8_t type, uint8_t next_hdr, bool syn,
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
static inline size_t t_rsp_frame(uint8_t *f, const struct pdc_hdr *pds,
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
static inline size_t t_pds_frame(uint8_t *f, const struct pdc_hdr *pds)
{
	uint8_t h[UET_PDS_HDR_MAX_LEN];
	ssize_t n = pdc_hdr_encode(h, sizeof(h), pds);

	cr_assert_gt(n, 0, "pds type %u", pds->pro.type);
	return t_frame(f, false, UET_UDP_PORT, h, (size_t)n);
}

#endif /* T_XDP_H */
