/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gen_uet_pcap's frames 33-40, data protection: TSS-sealed frames
 * (tss/uet_tss.h) and frames with a CRC32C trailer (gen_uet_pcap.h).
 */
#include <stdbool.h>
#include <string.h>

#include "gen_uet_pcap.h"
#include "tss/uet_crc32c.h"
#include "tss/uet_tss.h"

/* One TSS header as the dissector test wants it; |rsvd| sets bit 25. */
struct t_tss {
	bool sp, rsvd;
	uint8_t an;
	uint32_t sdi, ssi;
	uint16_t epoch;
	uint64_t tsc;
};

static void t_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * Appends the TSS header |h| by hand, not with uet_tss_hdr_encode: that one
 * refuses the reserved bit, and the test needs it set once.
 */
static void t_tss_hdr(struct t_pkt *p, const struct t_tss *h)
{
	uint8_t *o = p->b + p->len;

	t_be32(o, (uint32_t)UET_TSS_TYPE << 27 | (uint32_t)h->sp << 26 |
		  (uint32_t)h->rsvd << 25 | (uint32_t)(h->an & 1) << 24 |
		  (h->sdi & UET_TSS_SDI_MAX));
	o += 4;
	if (h->sp) {
		t_be32(o, h->ssi);
		o += 4;
	}
	t_be32(o, (uint32_t)h->epoch << 16 | (uint32_t)(h->tsc >> 32));
	t_be32(o + 4, (uint32_t)h->tsc);
	p->len += uet_tss_hdr_len(h->sp);
}

/* Appends |n| bytes that look like ciphertext (a fixed xorshift stream). */
static void t_noise(struct t_pkt *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n && p->len < sizeof(p->b); i++) {
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		p->b[p->len++] = (uint8_t)seed;
	}
}

/* A sealed packet: header |h|, 60 bytes of "ciphertext", a 16-byte ICV. */
static void t_sealed(struct t_pkt *p, const struct t_tss *h, uint32_t seed)
{
	p->len = 0;
	t_tss_hdr(p, h);
	t_noise(p, 60, seed);
	memset(p->b + p->len, 0x1C, UET_TSS_ICV_LEN);
	p->len += UET_TSS_ICV_LEN;
}

/*
 * Frames 33-36, TSS: a sealed packet without SSI (SDI 7, AN 0, epoch 3,
 * TSC 41), one with SSI 10.0.0.1 (AN 1, TSC 42); then malformed on purpose:
 * one cut inside its ICV, one with the reserved bit set.
 */
void t_tss(struct t_gen *g)
{
	struct t_tss h = { .sdi = 7, .an = 0, .epoch = 3, .tsc = 41 };
	struct t_pkt p = { .len = 0 };

	t_sealed(&p, &h, 0x5EA1ED01u);
	t_emit(g, &p, T_TO_TGT);

	h.sp = true;
	h.ssi = 0x0A000001u;
	h.an = 1;
	h.tsc = 42;
	t_sealed(&p, &h, 0x5EA1ED02u);
	t_emit(g, &p, T_TO_TGT);

	h = (struct t_tss){ .sdi = 7, .epoch = 3, .tsc = 43 };
	t_sealed(&p, &h, 0x5EA1ED03u);
	p.len = UET_TSS_HDR_LEN + 10;		/* 22 of at least 28 */
	t_emit(g, &p, T_TO_TGT);

	h.rsvd = true;
	h.tsc = 44;
	t_sealed(&p, &h, 0x5EA1ED04u);
	t_emit(g, &p, T_TO_TGT);
}

/*
 * Frames |p| with a CRC32C trailer as the engine writes it: over the IP
 * source address to the end of the payload, little endian after it;
 * |flip| spoils it.
 */
static void t_emit_crc(struct t_gen *g, struct t_pkt *p, enum t_dir dir,
		       uint32_t flip)
{
	static uint8_t frame[T_FRAME_MAX];
	/* The source address: byte 12 of IPv4's header, 8 of IPv6's. */
	const size_t from = UET_ETH_HDR_LEN + (g->ini.is_v6 ? 8 : 12);
	size_t len;

	p->len += 4;				/* room for the trailer */
	len = t_frame(g, frame, p, dir);
	p->len -= 4;
	if (!len)
		return;
	t_le32(frame + len - 4, uet_crc32c(0, frame + from, len - 4 - from) ^ flip);
	t_record(g, frame, len);
}

/*
 * Frames 37-40, the CRC32C trailer: a small write with 32 bytes of data and
 * a correct trailer, an ACK_CC with its RESPONSE and a correct trailer, the
 * write again with a wrong one, and over IPv6 with a correct one.
 */
void t_crc(struct t_gen *g)
{
	struct pdc_req pds = t_req(UET_PDS_TYPE_RUD_REQ,
				   UET_PDS_NEXT_HDR_REQUEST_SMALL, 0,
				   T_PSN + 40, 0);
	struct ses_small_hdr sm = {
		.opcode = UET_SES_OP_WRITE, .f = { .som = true, .eom = true },
		.request_length = 32, .job_id = T_JOB, .pid_on_fep = 2,
		.resource_index = 0x00a, .buffer_offset = 256,
	};
	struct pdc_ack a = t_ack(UET_PDS_TYPE_ACK_CC,
				 UET_PDS_NEXT_HDR_RESPONSE, 0);
	struct ses_rsp_hdr r = {
		.opcode = UET_SES_RSP_RESPONSE, .return_code = UET_SES_RC_OK,
		.message_id = 20, .job_id = T_JOB, .modified_length = 32,
	};
	struct t_pkt w = { .len = 0 }, p = { .len = 0 };
	struct uet_frame_addr ini, tgt;

	T_PUT(g, &w, pdc_req_encode, &pds);
	T_PUT(g, &w, ses_small_hdr_encode, &sm);
	t_fill(&w, 32);
	t_emit_crc(g, &w, T_TO_TGT, 0);

	a.cack_psn = T_PSN + 40;
	a.cc_type = UET_PDS_CC_CREDIT;
	a.cc.credit = (struct pdc_credit_state){ .credit = 4096 };
	T_PUT(g, &p, pdc_ack_encode, &a);
	T_PUT(g, &p, ses_rsp_hdr_encode, &r);
	t_emit_crc(g, &p, T_TO_INI, 0);

	t_emit_crc(g, &w, T_TO_TGT, 0x00000100u);

	ini = g->ini;
	tgt = g->tgt;
	if (t_addr6(&g->ini, "fd00:77::1", 1, 0xC001) < 0 ||
	    t_addr6(&g->tgt, "fd00:77::2", 2, 0xC002) < 0)
		g->err = 1;
	else
		t_emit_crc(g, &w, T_TO_TGT, 0);
	g->ini = ini;
	g->tgt = tgt;
}
