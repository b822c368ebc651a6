/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target for the engine's receive path (issue 14) with a
 * spoofed-source model: whole Ethernet frames from a few real hosts and
 * from random forged ones (any source IP, any source MAC), built from the
 * input so that most pass the outer checks, some as raw PDS bytes, hit a
 * live target engine (the device layer is fake_*: fuzz_engine_fakes.c)
 * while time passes in steps of up to seconds.
 *
 * Checked after every step, besides memory safety:
 * - no byte outside the registered region and the posted receive
 *   changed (guards around both, and the rest of the arena);
 * - the state stays bounded: PDCs within the manager's table, live
 *   state bytes within what that table can hold, provisional and live
 *   peers within their caps;
 * - every frame sent goes to the layer-2 address the neighbour table
 *   gives for its destination IP, never to a MAC a frame came with.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/uet_frame.h"
#include "dev/uet_nl.h"
#include "engine/uet_engine.h"
#include "engine/uet_engine_priv.h"
#include "fuzz_engine_fakes.h"
#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "ses/ses_recv.h"
#include "ses/ses_ri.h"
#include "uet_fep.h"

#define F_JOB		42
#define F_RI		5
#define F_KEY		0x1234
#define F_ARENA_LEN	16384
#define F_REGION_OFF	4096
#define F_REGION_LEN	4096
#define F_RECV_OFF	10240
#define F_RECV_LEN	2048
#define F_CANARY	0x5A
#define F_HOSTS		6
#define F_STEPS		256
/* A target PDC holds its struct and a PSN bitmap; this bounds both. */
#define F_PDC_STATE_MAX	(64u * 1024)

struct f_in {
	const uint8_t *p;
	size_t len, pos;
};

static uint8_t f_arena[F_ARENA_LEN];
static uint8_t f_written[F_ARENA_LEN];	/* 1: may change */
static struct uet_engine *f_eng;
static bool f_bad_l2;

static uint8_t f_u8(struct f_in *in)
{
	return in->pos < in->len ? in->p[in->pos++] : 0;
}

static uint16_t f_u16(struct f_in *in)
{
	return (uint16_t)(f_u8(in) << 8 | f_u8(in));
}

static uint32_t f_u32(struct f_in *in)
{
	return (uint32_t)f_u16(in) << 16 | f_u16(in);
}

/* A MAC per IP that only the neighbour table knows. */
void fake_neigh_mac(const void *addr, bool is_v6, uint8_t mac[6])
{
	uint32_t h = 2166136261u;
	const uint8_t *a = addr;

	for (size_t i = 0; i < (is_v6 ? 16u : 4u); i++)
		h = (h ^ a[i]) * 16777619u;
	mac[0] = 0x06;
	mac[1] = 0xbe;
	memcpy(mac + 2, &h, 4);
}

void fake_tx_seen(const uint8_t *frame, uint32_t len)
{
	struct uet_frame_info info;
	uint8_t want[6];

	if (uet_frame_decode(&info, frame, len, len) < 0) {
		if (getenv("FUZZ_ENGINE_DEBUG"))
			fprintf(stderr, "sent frame of %u B does not decode\n", len);
		f_bad_l2 = true;
		return;
	}
	fake_neigh_mac(&info.dst.v4, false, want);
	if (memcmp(want, info.dst.mac, 6)) {
		if (getenv("FUZZ_ENGINE_DEBUG"))
			fprintf(stderr, "frame to %08x went to another MAC\n",
				ntohl(info.dst.v4.s_addr));
		f_bad_l2 = true;
	}
}

static void f_tx_done(void *ctx, const struct ses_wre *wre,
		      const struct ses_tx_cpl *cpl)
{
	(void)ctx;
	(void)wre;
	(void)cpl;
}

static void f_recv_done(void *ctx, const struct ses_recv_cpl *cpl)
{
	(void)ctx;
	(void)cpl;
}

/* The source of a frame: one of the hosts, or a forged one. */
static void f_source(struct f_in *in, struct uet_frame_addr *src)
{
	uint8_t pick = f_u8(in);
	uint32_t ip;

	memset(src, 0, sizeof(*src));
	if (pick < 160)
		ip = 0x0A000010u + pick % F_HOSTS;	/* 10.0.0.16.. */
	else
		ip = 0x0A000000u | (f_u32(in) & 0xFFFFFF);
	src->v4.s_addr = htonl(ip);
	if (f_u8(in) & 1) {	/* forged MAC */
		for (int i = 0; i < 6; i++)
			src->mac[i] = f_u8(in);
	} else {
		fake_neigh_mac(&src->v4, false, src->mac);
	}
	src->port = f_u16(in);
}

/* Queues |pds| (|len| bytes) from |src| to us as one frame. */
static void f_queue(const struct uet_frame_addr *src, const uint8_t *pds,
		    size_t len)
{
	struct uet_frame_addr dst = { .port = 4793 };
	struct fake_frame *f;
	ssize_t hl;

	if (fake_dev.rx_cnt == FAKE_RX_MAX)
		return;
	dst.v4.s_addr = htonl(0x0A000001u);
	uet_nl_if_mac(0, dst.mac);
	f = &fake_dev.rx[fake_dev.rx_cnt];
	hl = uet_frame_encode(f->buf, sizeof(f->buf), src, &dst, len);
	if (hl < 0 || (size_t)hl + len > sizeof(f->buf))
		return;
	memcpy(f->buf + hl, pds, len);
	f->len = (uint32_t)(hl + len);
	fake_dev.rx_cnt++;
}

/* A request built from the input: most fields sensible, some not. */
static size_t f_build_req(struct f_in *in, uint8_t *out, size_t cap)
{
	uint8_t sel = f_u8(in);
	struct pdc_req r = {
		.pro.type = sel & 1 ? UET_PDS_TYPE_ROD_REQ : UET_PDS_TYPE_RUD_REQ,
		.pro.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
		.pro.flags = (sel & 2 ? UET_PDS_F_REQ_SYN : 0) |
			     (sel & 4 ? UET_PDS_F_REQ_AR : 0),
		.psn = f_u32(in),
		.spdcid = f_u16(in),
		.clear_psn_offset = -(int16_t)(f_u8(in) & 0x3f),
	};
	struct ses_std_hdr h = {
		.opcode = sel & 8 ? UET_SES_OP_SEND : UET_SES_OP_WRITE,
		.f = { .rel = true, .som = true, .eom = !(sel & 16) },
		.message_id = f_u16(in),
		.job_id = sel & 32 ? f_u32(in) & 0xFFFFFF : F_JOB,
		.pid_on_fep = sel & 64 ? f_u16(in) & 0xFFF : FAKE_PID,
		.resource_index = sel & 128 ? f_u16(in) & 0xFFF : F_RI,
		.buffer_offset = f_u16(in) % (F_REGION_LEN + 512),
		.memory_key = f_u8(in) & 1 ? f_u16(in) : F_KEY,
		.initiator = 1,
	};
	size_t pay = f_u8(in) % 160, n;
	ssize_t m;

	if (r.pro.flags & UET_PDS_F_REQ_SYN)
		r.psn_offset = f_u8(in) & 0xF;
	else
		r.dpdcid = f_u8(in) & 1 ? f_u16(in) :
			   (uint16_t)(FAKE_EP_INDEX << UET_FEP_ID_SHIFT |
				      (f_u8(in) & 0xFF));
	h.request_length = (uint32_t)pay + (h.f.eom ? 0 : f_u16(in));
	m = pdc_req_encode(out, cap, &r);
	if (m < 0)
		return 0;
	n = (size_t)m;
	m = ses_std_hdr_encode(out + n, cap - n, &h);
	if (m < 0)
		return 0;
	n += (size_t)m;
	for (size_t i = 0; i < pay && n < cap; i++)
		out[n++] = f_u8(in);
	return n;
}

static void f_step_frame(struct f_in *in, bool raw)
{
	struct uet_frame_addr src;
	uint8_t pds[512];
	size_t n = 0;

	f_source(in, &src);
	if (raw) {
		size_t want = f_u8(in);

		while (n < want && n < sizeof(pds))
			pds[n++] = f_u8(in);
	} else {
		n = f_build_req(in, pds, sizeof(pds));
	}
	if (n)
		f_queue(&src, pds, n);
}

static void f_arena_check(void)
{
	for (size_t i = 0; i < F_ARENA_LEN; i++)
		if (!f_written[i] && f_arena[i] != F_CANARY)
			abort();
}

static void f_state_check(void)
{
	struct uet_engine_stats st;

	uet_engine_stats_get(f_eng, &st);
	if (st.pdc.pdcs > uet_engine_max_pdcs(UET_FEP_EP_BITS) ||
	    st.pdc.state_len > st.pdc.pdcs * F_PDC_STATE_MAX)
		abort();
	/* Forged sources get reply addresses from a bounded pool only. */
	if (st.peers_provisional > UET_ENGINE_PROV_MAX ||
	    st.peers_live > f_eng->live_max)
		abort();
	if (f_bad_l2 && !getenv("FUZZ_ENGINE_NO_L2"))
		abort();
}

static int f_setup(void)
{
	struct uet_engine_cfg cfg = {
		.ifname = "lo", .udp_port = 4793, .job_id = F_JOB,
		.pid_on_fep = FAKE_PID, .initiator = FAKE_PID,
		.max_peers = 1024,	/* small: a flood fills it */
	};
	struct uet_engine_ops ops = { .tx_done = f_tx_done,
				      .recv_done = f_recv_done };
	struct ses_ri_id ri = { F_JOB, FAKE_PID, F_RI };
	struct ses_iov iov = { .base = f_arena + F_RECV_OFF,
			       .len = F_RECV_LEN };
	struct ses_recv_attr ra = { .iov = &iov, .iov_cnt = 1,
				    .ignore = ~0ull };
	struct ses *s;

	cfg.local.v4.s_addr = htonl(0x0A000001u);
	fake_dev.ifindex = 1;	/* lo */
	f_eng = uet_engine_create(&cfg, &ops, NULL);
	if (!f_eng)
		return -1;
	s = uet_engine_ses(f_eng);
	if (ses_ri_add(s, &ri, SES_RI_F_MSG | SES_RI_F_NO_GEN) ||
	    ses_mr_add(s, &ri, F_KEY, f_arena + F_REGION_OFF, F_REGION_LEN,
		       SES_ACCESS_REMOTE_WRITE | SES_ACCESS_REMOTE_READ) ||
	    ses_recv_post(s, &ra))
		return -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct f_in in = { data, len, 0 };

	memset(f_arena, F_CANARY, sizeof(f_arena));
	memset(f_written, 0, sizeof(f_written));
	memset(f_written + F_REGION_OFF, 1, F_REGION_LEN);
	memset(f_written + F_RECV_OFF, 1, F_RECV_LEN);
	memset(&fake_dev, 0, sizeof(fake_dev));
	fake_dev.now_ns = 1000000000ull;
	f_bad_l2 = false;
	if (f_setup() < 0)
		abort();
	for (int step = 0; step < F_STEPS && in.pos < in.len; step++) {
		uint8_t op = f_u8(&in);

		fake_dev.rx_head = fake_dev.rx_cnt = 0;
		switch (op % 8) {
		case 0: case 1: case 2: case 3: case 4:
			f_step_frame(&in, false);
			break;
		case 5:
			f_step_frame(&in, true);
			break;
		case 6:	/* up to 6.5 s */
			fake_dev.now_ns += (uint64_t)f_u16(&in) * 100000;
			break;
		default:	/* a burst of requests, as a flood comes */
			for (int i = f_u8(&in) % 32; i >= 0; i--)
				f_step_frame(&in, false);
			break;
		}
		fake_dev.now_ns += 1000;
		uet_engine_progress(f_eng);
		f_arena_check();
		f_state_check();
	}
	uet_engine_destroy(f_eng);
	f_eng = NULL;
	return 0;
}
