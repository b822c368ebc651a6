/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the engine fuzzers share (fuzz_engine_common.h): the target
 * engine over the fake device layer, the arena it may write, frames and
 * requests from the input, and the checks after every step.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/uet_nl.h"
#include "engine/uet_engine_priv.h"
#include "fuzz_engine_common.h"
#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "ses/ses_recv.h"
#include "ses/ses_ri.h"
#include "uet_fep.h"

/* A target PDC holds its struct and a PSN bitmap; this bounds both. */
#define FE_PDC_STATE_MAX	(64u * 1024)

uint8_t fe_arena[FE_ARENA_LEN];
static uint8_t fe_written[FE_ARENA_LEN];	/* 1: may change */
struct uet_engine *fe_eng;
bool fe_bad_l2;
void (*fe_tx_done_hook)(const struct ses_wre *wre,
			const struct ses_tx_cpl *cpl);

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
		fe_bad_l2 = true;
		return;
	}
	/* Our own address: our own MAC (local delivery through the UMEM). */
	if (info.dst.v4.s_addr == htonl(FE_LOCAL_IP))
		uet_nl_if_mac(0, want);
	else
		fake_neigh_mac(&info.dst.v4, false, want);
	if (memcmp(want, info.dst.mac, 6)) {
		if (getenv("FUZZ_ENGINE_DEBUG"))
			fprintf(stderr, "frame to %08x went to another MAC\n",
				ntohl(info.dst.v4.s_addr));
		fe_bad_l2 = true;
	}
}

static void fe_tx_done(void *ctx, const struct ses_wre *wre,
		       const struct ses_tx_cpl *cpl)
{
	(void)ctx;
	if (fe_tx_done_hook)
		fe_tx_done_hook(wre, cpl);
}

static void fe_recv_done(void *ctx, const struct ses_recv_cpl *cpl)
{
	(void)ctx;
	(void)cpl;
}

void fe_cfg_default(struct uet_engine_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->ifname, "lo");
	cfg->udp_port = 4793;
	cfg->job_id = FE_JOB;
	cfg->pid_on_fep = FAKE_PID;
	cfg->initiator = FAKE_PID;
	cfg->max_peers = 1024;	/* small: a flood fills it */
	cfg->local_off = true;
	cfg->local.v4.s_addr = htonl(FE_LOCAL_IP);
}

void fe_setup(const struct uet_engine_cfg *cfg, struct uet_dev_shm *shm,
	      const struct uet_tss_sd_keys *keys)
{
	struct uet_engine_cfg def;
	struct uet_engine_ops ops = { .tx_done = fe_tx_done,
				      .recv_done = fe_recv_done };
	struct ses_ri_id ri = { FE_JOB, FAKE_PID, FE_RI };
	struct ses_iov iov = { .base = fe_arena + FE_RECV_OFF,
			       .len = FE_RECV_LEN };
	struct ses_recv_attr ra = { .iov = &iov, .iov_cnt = 1,
				    .ignore = ~0ull };
	struct ses *s;

	memset(fe_arena, FE_CANARY, sizeof(fe_arena));
	memset(fe_written, 0, sizeof(fe_written));
	memset(fe_written + FE_REGION_OFF, 1, FE_REGION_LEN);
	memset(fe_written + FE_RECV_OFF, 1, FE_RECV_LEN);
	memset(&fake_dev, 0, sizeof(fake_dev));
	fake_dev.now_ns = 1000000000ull;
	fake_dev.ifindex = 1;	/* lo */
	fake_dev.shm = shm;
	fake_dev.tss_keys = keys;
	fe_bad_l2 = false;
	if (!cfg) {
		fe_cfg_default(&def);
		cfg = &def;
	}
	fe_eng = uet_engine_create(cfg, &ops, NULL);
	if (!fe_eng) {
		fprintf(stderr, "engine: %m (%s)\n", uet_engine_last_error());
		abort();
	}
	s = uet_engine_ses(fe_eng);
	if (ses_ri_add(s, &ri, SES_RI_F_MSG | SES_RI_F_NO_GEN) ||
	    ses_mr_add(s, &ri, FE_KEY, fe_arena + FE_REGION_OFF, FE_REGION_LEN,
		       SES_ACCESS_REMOTE_WRITE | SES_ACCESS_REMOTE_READ) ||
	    ses_recv_post(s, &ra))
		abort();
}

void fe_teardown(void)
{
	/* What a run did, for a look at what an input reaches. */
	if (getenv("FUZZ_ENGINE_DEBUG"))
		uet_engine_stats_json(fe_eng, stderr);
	uet_engine_destroy(fe_eng);
	fe_eng = NULL;
}

void fe_host(uint32_t i, struct uet_frame_addr *src)
{
	memset(src, 0, sizeof(*src));
	src->v4.s_addr = htonl(FE_HOST_IP + i);
	fake_neigh_mac(&src->v4, false, src->mac);
	src->port = 4793;
}

void fe_local(struct uet_frame_addr *dst)
{
	memset(dst, 0, sizeof(*dst));
	dst->port = 4793;
	dst->v4.s_addr = htonl(FE_LOCAL_IP);
	uet_nl_if_mac(0, dst->mac);
}

void fe_source(struct fe_in *in, struct uet_frame_addr *src)
{
	uint8_t pick = fe_u8(in);

	fe_host(pick % FE_HOSTS, src);
	if (pick >= 160)
		src->v4.s_addr = htonl(0x0A000000u | (fe_u32(in) & 0xFFFFFF));
	if (fe_u8(in) & 1) {	/* forged MAC */
		for (int i = 0; i < 6; i++)
			src->mac[i] = fe_u8(in);
	} else {
		fake_neigh_mac(&src->v4, false, src->mac);
	}
	src->port = fe_u16(in);
}

bool fe_queue(const struct uet_frame_addr *src,
	      const struct uet_frame_addr *dst, const uint8_t *pay,
	      size_t len)
{
	struct uet_frame_addr us;
	struct fake_frame *f;
	ssize_t hl;

	if (fake_dev.rx_cnt == FAKE_RX_MAX)
		return false;
	if (!dst) {
		fe_local(&us);
		dst = &us;
	}
	f = &fake_dev.rx[fake_dev.rx_cnt];
	hl = uet_frame_encode(f->buf, sizeof(f->buf), src, dst, len);
	if (hl < 0 || (size_t)hl + len > sizeof(f->buf))
		return false;
	memcpy(f->buf + hl, pay, len);
	f->len = (uint32_t)(hl + len);
	fake_dev.rx_cnt++;
	return true;
}

size_t fe_build_ses(struct fe_in *in, uint8_t *out, size_t cap)
{
	static const uint8_t ops[4] = { UET_SES_OP_WRITE, UET_SES_OP_SEND,
					UET_SES_OP_READ, UET_SES_OP_WRITE };
	uint8_t sel = fe_u8(in);
	struct ses_std_hdr h = {
		.opcode = ops[sel & 3],
		.f = { .rel = true, .som = !(sel & 128), .eom = !(sel & 4) },
		.message_id = fe_u16(in),
		.job_id = sel & 8 ? fe_u32(in) & 0xFFFFFF : FE_JOB,
		.pid_on_fep = sel & 16 ? fe_u16(in) & 0xFFF : FAKE_PID,
		.resource_index = sel & 32 ? fe_u16(in) & 0xFFF : FE_RI,
		.buffer_offset = fe_u16(in) % (FE_REGION_LEN + 512),
		.memory_key = sel & 64 ? fe_u16(in) : FE_KEY,
		.initiator = 1,
	};
	size_t pay = fe_u8(in) % 160, n;
	ssize_t m;

	if (h.opcode == UET_SES_OP_READ)
		pay = 0;
	h.request_length = (uint32_t)pay + (h.f.eom ? 0 : fe_u16(in));
	if (h.opcode == UET_SES_OP_READ)
		h.request_length = fe_u16(in) % (FE_REGION_LEN + 512);
	if (!h.f.som) {
		h.payload_length = (uint16_t)pay;
		h.message_offset = fe_u16(in);
	}
	m = ses_std_hdr_encode(out, cap, &h);
	if (m < 0)
		return 0;
	n = (size_t)m;
	for (size_t i = 0; i < pay && n < cap; i++)
		out[n++] = fe_u8(in);
	return n;
}

size_t fe_build_req(struct fe_in *in, uint8_t *out, size_t cap)
{
	uint8_t sel = fe_u8(in);
	struct pdc_req r = {
		.pro.type = sel & 1 ? UET_PDS_TYPE_ROD_REQ : UET_PDS_TYPE_RUD_REQ,
		.pro.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
		.pro.flags = (sel & 2 ? UET_PDS_F_REQ_SYN : 0) |
			     (sel & 4 ? UET_PDS_F_REQ_AR : 0),
		.psn = fe_u32(in),
		.spdcid = fe_u16(in),
		.clear_psn_offset = -(int16_t)(fe_u8(in) & 0x3f),
	};
	size_t n, s;
	ssize_t m;

	if (r.pro.flags & UET_PDS_F_REQ_SYN)
		r.psn_offset = fe_u8(in) & 0xF;
	else
		r.dpdcid = fe_u8(in) & 1 ? fe_u16(in) :
			   (uint16_t)(FAKE_EP_INDEX << UET_FEP_ID_SHIFT |
				      (fe_u8(in) & 0xFF));
	m = pdc_req_encode(out, cap, &r);
	if (m < 0)
		return 0;
	n = (size_t)m;
	s = fe_build_ses(in, out + n, cap - n);
	return s ? n + s : 0;
}

void fe_poll(void)
{
	for (int i = 0; i <= UET_ENGINE_IDLE_POLLS; i++)
		uet_engine_progress(fe_eng);
}

static void fe_arena_check(void)
{
	for (size_t i = 0; i < FE_ARENA_LEN; i++)
		if (!fe_written[i] && fe_arena[i] != FE_CANARY)
			abort();
}

static void fe_state_check(void)
{
	struct uet_engine_stats st;

	uet_engine_stats_get(fe_eng, &st);
	if (st.pdc.pdcs > uet_engine_max_pdcs(UET_FEP_EP_BITS) ||
	    st.pdc.state_len > st.pdc.pdcs * FE_PDC_STATE_MAX)
		abort();
	/* Forged sources get reply addresses from a bounded pool only. */
	if (st.peers_provisional > UET_ENGINE_PROV_MAX ||
	    st.peers_live > fe_eng->live_max)
		abort();
	if (fe_bad_l2 && !getenv("FUZZ_ENGINE_NO_L2"))
		abort();
}

void fe_check(void)
{
	fe_arena_check();
	fe_state_check();
}
