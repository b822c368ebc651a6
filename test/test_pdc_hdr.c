/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the PDS header codecs (pdc/pdc_hdr.h): hand-written wire
 * vectors from the reference (ref 2.1-2.8, WS column where sources differ).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <string.h>

#include "pdc/pdc_hdr.h"

#define T_BUF_LEN	(UET_PDS_HDR_MAX_LEN + 8)
#define T_SENTINEL	0xEE

TestSuite(pdc_prologue, .timeout = 10);
TestSuite(pdc_req, .timeout = 10);
TestSuite(pdc_rudi, .timeout = 10);
TestSuite(pdc_uud, .timeout = 10);
TestSuite(pdc_ack, .timeout = 10);
TestSuite(pdc_nack, .timeout = 10);
TestSuite(pdc_ctl, .timeout = 10);
TestSuite(pdc_hdr, .timeout = 10);
TestSuite(pdc_names, .timeout = 10);

/* ---- vectors --------------------------------------------------------------
 * Prologue (ref 2.1): type << 11 | next_hdr << 7 | flags, big-endian.
 * Layouts from ref 2.4, flags from ref 2.5, codes from ref 2.6/2.7, CC state
 * from ref 2.8 with the bit positions of uet_wire.h UET_PDS_NSCC_* and
 * UET_PDS_CREDIT_SHIFT.
 */

/* ref 2.1: type 2 RUD_REQ, next_hdr 3 REQUEST_STD, flags 0x18 RETX|AR. */
static const uint8_t V_PROLOGUE[] = { 0x11, 0x98 };

/*
 * ref 2.4 "RUD/ROD request", 12 bytes. Prologue: RUD_REQ (2), REQUEST_STD
 * (3), flags RETX|AR (0x18). SYN clear, so word 2 is spdcid | dpdcid.
 */
static const uint8_t V_RUD_REQ[] = {
	0x11, 0x98, 0xFF, 0xFE,	/* prologue; clear_psn_offset -2 */
	0x89, 0xAB, 0xCD, 0xEF,	/* psn */
	0x12, 0x34, 0x56, 0x78,	/* spdcid 0x1234; dpdcid 0x5678 */
};

/*
 * ref 2.4 "RUD/ROD request" with the SYN overlay, use_rsv_pdc at bit 15 (WS).
 * Prologue: ROD_REQ (3), REQUEST_STD (3), flags AR|SYN (0x0C).
 */
static const uint8_t V_ROD_REQ_SYN[] = {
	0x19, 0x8C, 0xFF, 0x00,	/* prologue; clear_psn_offset -256 */
	0xFE, 0xDC, 0xBA, 0x98,	/* psn */
	0xAB, 0xCD, 0x8A, 0xBC,	/* spdcid; use_rsv_pdc 1, psn_offset 0xABC */
};

/*
 * ref 2.4 "with CC state", 16 bytes: request + ccc_id 8 + credit_target 24.
 * Prologue: RUD_CC_REQ (13), REQUEST_SMALL (1), flags RETX (0x10).
 */
static const uint8_t V_RUD_CC_REQ[] = {
	0x68, 0x90, 0x80, 0x00,	/* prologue; clear_psn_offset -32768 */
	0x7F, 0xFF, 0xFF, 0xFF,	/* psn */
	0x00, 0x01, 0xFF, 0xFF,	/* spdcid 0x0001; dpdcid 0xFFFF */
	0xA5, 0x12, 0x34, 0x56,	/* ccc_id 0xA5; credit_target 0x123456 */
};

/*
 * ref 2.4 "with CC state" with the SYN overlay. Prologue: ROD_CC_REQ (14),
 * REQUEST_MEDIUM (2), flags RETX|AR|SYN (0x1C).
 */
static const uint8_t V_ROD_CC_REQ_SYN[] = {
	0x71, 0x1C, 0xFF, 0xFF,	/* prologue; clear_psn_offset -1 */
	0x89, 0xAB, 0xCD, 0xEF,	/* psn */
	0x12, 0x34, 0x0F, 0xFF,	/* spdcid; use_rsv_pdc 0, psn_offset 0xFFF */
	0x3C, 0xFF, 0xFF, 0xFF,	/* ccc_id 0x3C; credit_target 0xFFFFFF */
};

/*
 * ref 2.4 "RUDI request / response", 8 bytes. Prologue: RUDI_REQ (4),
 * REQUEST_MEDIUM (2), flags RETX (0x10).
 */
static const uint8_t V_RUDI_REQ[] = {
	0x21, 0x10, 0x00, 0x00,	/* prologue; reserved */
	0xDE, 0xAD, 0xBE, 0xEF,	/* pkt_id */
};

/* As above. Prologue: RUDI_RESP (5), RESPONSE_DATA (5), flags M|RETX. */
static const uint8_t V_RUDI_RESP[] = {
	0x2A, 0xB0, 0x00, 0x00,	/* prologue; reserved */
	0x01, 0x23, 0x45, 0x67,	/* pkt_id */
};

/* ref 2.4 "UUD request", 4 bytes: UUD_REQ (6), REQUEST_SMALL (1), flags 0. */
static const uint8_t V_UUD[] = {
	0x30, 0x80, 0x00, 0x00,	/* prologue; reserved */
};

/*
 * ref 2.4 "ACK (type 7)", 12 bytes; flags per ref 2.5. Prologue: ACK (7),
 * RESPONSE (4), flags M|RETX|REQ=1 clear (0x32).
 */
static const uint8_t V_ACK[] = {
	0x3A, 0x32, 0xFF, 0xFD,	/* prologue; ack_psn_offset -3 */
	0x89, 0xAB, 0xCD, 0xEF,	/* cack_psn */
	0x12, 0x34, 0x56, 0x78,	/* spdcid; dpdcid */
};

/*
 * ref 2.4 "ACK (type 7)" with flag P: bytes 2-3 are probe_opaque.
 * Prologue: ACK (7), NONE (0), flags P|REQ=2 close (0x0C).
 */
static const uint8_t V_ACK_PROBE[] = {
	0x38, 0x0C, 0xBE, 0xEF,	/* prologue; probe_opaque 0xBEEF */
	0x00, 0x00, 0x10, 0x00,	/* cack_psn */
	0x43, 0x21, 0x87, 0x65,	/* spdcid; dpdcid */
};

/*
 * ref 2.4 "ACK_CC (type 8)" and ref 2.8 NSCC state. Prologue: ACK_CC (8),
 * RESPONSE (4), flags M (0x20). State: service_time 0xBEEF, restore_cwnd 1,
 * penalty 0x55, rcvd_bytes 0xABCDEF, ooo_count 0x1357.
 */
static const uint8_t V_ACK_CC_NSCC[] = {
	0x42, 0x20, 0xFF, 0xF0,	/* prologue; ack_psn_offset -16 */
	0x89, 0xAB, 0xCD, 0xEF,	/* cack_psn */
	0x12, 0x34, 0x56, 0x78,	/* spdcid; dpdcid */
	0x0A, 0x08, 0xFF, 0xC0,	/* cc_type 0 | flags 0xA; mpr 8; sack -64 */
	0x01, 0x23, 0x45, 0x67,	/* sack_bitmap 63:32 */
	0x89, 0xAB, 0xCD, 0xEF,	/* sack_bitmap 31:0 */
	0xBE, 0xEF, 0xD5, 0xAB,	/* service_time; restore|penalty; rcvd 23:16 */
	0xCD, 0xEF, 0x13, 0x57,	/* rcvd_bytes 15:0; ooo_count */
};

/*
 * ref 2.4 "ACK_CC (type 8)" and ref 2.8 credit state. Prologue: ACK_CC (8),
 * RESPONSE_DATA (5), flags RETX (0x10).
 */
static const uint8_t V_ACK_CC_CREDIT[] = {
	0x42, 0x90, 0x00, 0x00,	/* prologue; ack_psn_offset 0 */
	0xFF, 0xFF, 0xFF, 0xFF,	/* cack_psn */
	0xAB, 0xCD, 0x00, 0x01,	/* spdcid; dpdcid */
	0x15, 0xFF, 0x00, 0x01,	/* cc_type 1 | flags 5; mpr 0xFF; sack +1 */
	0x80, 0x00, 0x00, 0x00,	/* sack_bitmap 63:32 */
	0x00, 0x00, 0x00, 0x01,	/* sack_bitmap 31:0 */
	0xFE, 0xDC, 0xBA, 0x00,	/* credit 0xFEDCBA; reserved */
	0x00, 0x00, 0x24, 0x68,	/* reserved; ooo_count 0x2468 */
};

/*
 * ref 2.4 "ACK_CCX (type 9)": 40 bytes (WS, RP-H), a 16-byte CC state.
 * Prologue: ACK_CCX (9), RESPONSE_DATA (5), flags RETX|REQ=1 (0x12).
 */
static const uint8_t V_ACK_CCX[] = {
	0x4A, 0x92, 0x00, 0x7F,	/* prologue; ack_psn_offset +127 */
	0x89, 0xAB, 0xCD, 0xEF,	/* cack_psn */
	0x12, 0x34, 0x56, 0x78,	/* spdcid; dpdcid */
	0x7C, 0x10, 0x80, 0x00,	/* cc_type 7 | flags 0xC; mpr 16; sack -32768 */
	0x55, 0xAA, 0x55, 0xAA,	/* sack_bitmap 63:32 */
	0x0F, 0xF0, 0x0F, 0xF0,	/* sack_bitmap 31:0 */
	0xC0, 0xC1, 0xC2, 0xC3,	/* ccx_state[0..3] */
	0xC4, 0xC5, 0xC6, 0xC7,	/* ccx_state[4..7] */
	0xC8, 0xC9, 0xCA, 0xCB,	/* ccx_state[8..11] */
	0xCC, 0xCD, 0xCE, 0xCF,	/* ccx_state[12..15] */
};

/*
 * ref 2.4 "NACK (type 10)", 16 bytes; code from ref 2.6. Prologue: NACK (10),
 * NONE (0), flags M|RETX (0x30).
 */
static const uint8_t V_NACK[] = {
	0x50, 0x30, 0x04, 0x99,	/* prologue; NO_PDC_AVAIL; vendor_code 0x99 */
	0x89, 0xAB, 0xCD, 0xEF,	/* nack_psn */
	0x12, 0x34, 0x56, 0x78,	/* spdcid; dpdcid */
	0x89, 0xAB, 0xCD, 0xF0,	/* payload */
};

/*
 * ref 2.4 "NACK_CCX (type 12)": NACK + 16 bytes whose first nibble is
 * nccx_type (WS). Prologue: NACK_CCX (12), NONE (0), flags NT (0x08).
 */
static const uint8_t V_NACK_CCX[] = {
	0x60, 0x08, 0x17, 0x00,	/* prologue; NEW_START_PSN; vendor_code 0 */
	0xDE, 0xAD, 0xBE, 0xEF,	/* nack_psn (a RUDI pkt_id, NT) */
	0x00, 0x00, 0x00, 0x00,	/* spdcid 0; dpdcid 0 */
	0x13, 0x57, 0x9B, 0xDF,	/* payload */
	0x2A, 0xB1, 0xB2, 0xB3,	/* nccx_type 2 | state[0] 0xA; state[1..3] */
	0xB4, 0xB5, 0xB6, 0xB7,	/* nccx_state[4..7] */
	0xB8, 0xB9, 0xBA, 0xBB,	/* nccx_state[8..11] */
	0xBC, 0xBD, 0xBE, 0xBF,	/* nccx_state[12..15] */
};

/*
 * ref 2.4 "Control packet (type 11)", ctl_type from ref 2.7. Prologue:
 * CONTROL (11), ctl_type 6 PROBE, flags AR (0x08).
 */
static const uint8_t V_CTL_PROBE[] = {
	0x5B, 0x08, 0xBE, 0xEF,	/* prologue; probe_opaque 0xBEEF */
	0x89, 0xAB, 0xCD, 0xEF,	/* psn */
	0x12, 0x34, 0x56, 0x78,	/* spdcid; dpdcid */
	0x89, 0xAB, 0xCD, 0x00,	/* payload: SACK base PSN */
};

/*
 * ref 2.4 "Control packet" with the SYN overlay as in the request.
 * Prologue: CONTROL (11), ctl_type 0 NOOP, flags RETX|SYN (0x14).
 */
static const uint8_t V_CTL_SYN[] = {
	0x58, 0x14, 0x00, 0x00,	/* prologue; reserved */
	0x00, 0x01, 0x00, 0x00,	/* psn */
	0x00, 0x07, 0x80, 0x01,	/* spdcid 7; use_rsv_pdc 1, psn_offset 1 */
	0x00, 0x00, 0x00, 0x00,	/* payload 0 */
};

/* ---- host-order fixtures matching the vectors ---------------------------- */

static const struct pdc_req T_RUD_REQ = {
	.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD, 0x18 },
	.clear_psn_offset = -2, .psn = 0x89ABCDEF,
	.spdcid = 0x1234, .dpdcid = 0x5678,
};

static const struct pdc_req T_ROD_REQ_SYN = {
	.pro = { UET_PDS_TYPE_ROD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD, 0x0C },
	.clear_psn_offset = -256, .psn = 0xFEDCBA98,
	.spdcid = 0xABCD, .use_rsv_pdc = true, .psn_offset = 0xABC,
};

static const struct pdc_req T_RUD_CC_REQ = {
	.pro = { UET_PDS_TYPE_RUD_CC_REQ, UET_PDS_NEXT_HDR_REQUEST_SMALL,
		 0x10 },
	.clear_psn_offset = INT16_MIN, .psn = 0x7FFFFFFF,
	.spdcid = 0x0001, .dpdcid = 0xFFFF,
	.ccc_id = 0xA5, .credit_target = 0x123456,
};

static const struct pdc_req T_ROD_CC_REQ_SYN = {
	.pro = { UET_PDS_TYPE_ROD_CC_REQ, UET_PDS_NEXT_HDR_REQUEST_MEDIUM,
		 0x1C },
	.clear_psn_offset = -1, .psn = 0x89ABCDEF,
	.spdcid = 0x1234, .use_rsv_pdc = false, .psn_offset = 0xFFF,
	.ccc_id = 0x3C, .credit_target = 0xFFFFFF,
};

static const struct pdc_rudi T_RUDI_REQ = {
	.pro = { UET_PDS_TYPE_RUDI_REQ, UET_PDS_NEXT_HDR_REQUEST_MEDIUM, 0x10 },
	.pkt_id = 0xDEADBEEF,
};

static const struct pdc_rudi T_RUDI_RESP = {
	.pro = { UET_PDS_TYPE_RUDI_RESP, UET_PDS_NEXT_HDR_RESPONSE_DATA, 0x30 },
	.pkt_id = 0x01234567,
};

static const struct pdc_uud T_UUD = {
	.pro = { UET_PDS_TYPE_UUD_REQ, UET_PDS_NEXT_HDR_REQUEST_SMALL, 0 },
};

static const struct pdc_ack T_ACK = {
	.pro = { UET_PDS_TYPE_ACK, UET_PDS_NEXT_HDR_RESPONSE, 0x32 },
	.ack_psn_offset = -3, .cack_psn = 0x89ABCDEF,
	.spdcid = 0x1234, .dpdcid = 0x5678,
};

static const struct pdc_ack T_ACK_PROBE = {
	.pro = { UET_PDS_TYPE_ACK, UET_PDS_NEXT_HDR_NONE, 0x0C },
	.probe_opaque = 0xBEEF, .cack_psn = 0x1000,
	.spdcid = 0x4321, .dpdcid = 0x8765,
};

static const struct pdc_ack T_ACK_CC_NSCC = {
	.pro = { UET_PDS_TYPE_ACK_CC, UET_PDS_NEXT_HDR_RESPONSE, 0x20 },
	.ack_psn_offset = -16, .cack_psn = 0x89ABCDEF,
	.spdcid = 0x1234, .dpdcid = 0x5678,
	.cc_type = UET_PDS_CC_NSCC, .cc_flags = 0xA, .mpr = 8,
	.sack_psn_offset = -64, .sack_bitmap = 0x0123456789ABCDEFull,
	.cc.nscc = { .service_time = 0xBEEF, .restore_cwnd = true,
		     .rcv_cwnd_penalty = 0x55, .rcvd_bytes = 0xABCDEF,
		     .ooo_count = 0x1357 },
};

static const struct pdc_ack T_ACK_CC_CREDIT = {
	.pro = { UET_PDS_TYPE_ACK_CC, UET_PDS_NEXT_HDR_RESPONSE_DATA, 0x10 },
	.ack_psn_offset = 0, .cack_psn = 0xFFFFFFFF,
	.spdcid = 0xABCD, .dpdcid = 0x0001,
	.cc_type = UET_PDS_CC_CREDIT, .cc_flags = 5, .mpr = 0xFF,
	.sack_psn_offset = 1, .sack_bitmap = 0x8000000000000001ull,
	.cc.credit = { .credit = 0xFEDCBA, .ooo_count = 0x2468 },
};

static const struct pdc_ack T_ACK_CCX = {
	.pro = { UET_PDS_TYPE_ACK_CCX, UET_PDS_NEXT_HDR_RESPONSE_DATA, 0x12 },
	.ack_psn_offset = 127, .cack_psn = 0x89ABCDEF,
	.spdcid = 0x1234, .dpdcid = 0x5678,
	.cc_type = 7, .cc_flags = 0xC, .mpr = 0x10,
	.sack_psn_offset = INT16_MIN, .sack_bitmap = 0x55AA55AA0FF00FF0ull,
	.ccx_state = { 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7,
		       0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF },
};

static const struct pdc_nack T_NACK = {
	.pro = { UET_PDS_TYPE_NACK, UET_PDS_NEXT_HDR_NONE, 0x30 },
	.nack_code = UET_PDS_NACK_NO_PDC_AVAIL, .vendor_code = 0x99,
	.nack_psn = 0x89ABCDEF, .spdcid = 0x1234, .dpdcid = 0x5678,
	.payload = 0x89ABCDF0,
};

static const struct pdc_nack T_NACK_CCX = {
	.pro = { UET_PDS_TYPE_NACK_CCX, UET_PDS_NEXT_HDR_NONE, 0x08 },
	.nack_code = UET_PDS_NACK_NEW_START_PSN, .vendor_code = 0,
	.nack_psn = 0xDEADBEEF, .payload = 0x13579BDF,
	.nccx_type = 2,
	.nccx_state = { 0x0A, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7,
			0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xBD, 0xBE, 0xBF },
};

static const struct pdc_ctl T_CTL_PROBE = {
	.pro = { UET_PDS_TYPE_CONTROL, UET_PDS_CTL_PROBE, 0x08 },
	.probe_opaque = 0xBEEF, .psn = 0x89ABCDEF,
	.spdcid = 0x1234, .dpdcid = 0x5678, .payload = 0x89ABCD00,
};

static const struct pdc_ctl T_CTL_SYN = {
	.pro = { UET_PDS_TYPE_CONTROL, UET_PDS_CTL_NOOP, 0x14 },
	.psn = 0x00010000, .spdcid = 7,
	.use_rsv_pdc = true, .psn_offset = 1, .payload = 0,
};

/* ---- helpers ------------------------------------------------------------- */

typedef ssize_t (*t_enc_fn)(uint8_t *out, size_t outlen, const void *h);
typedef ssize_t (*t_dec_fn)(void *h, const uint8_t *in, size_t inlen);

/* Adapters so one helper drives every codec without casting function types. */
#define T_ADAPT(name, type)						\
	static ssize_t t_##name##_enc(uint8_t *o, size_t n, const void *h) \
	{ return pdc_##name##_encode(o, n, (const type *)h); }		\
	static ssize_t t_##name##_dec(void *h, const uint8_t *in, size_t n) \
	{ return pdc_##name##_decode((type *)h, in, n); }
T_ADAPT(prologue, struct pdc_prologue)
T_ADAPT(req, struct pdc_req)
T_ADAPT(rudi, struct pdc_rudi)
T_ADAPT(uud, struct pdc_uud)
T_ADAPT(ack, struct pdc_ack)
T_ADAPT(nack, struct pdc_nack)
T_ADAPT(ctl, struct pdc_ctl)
T_ADAPT(hdr, struct pdc_hdr)

static void t_put_prologue(uint8_t *p, unsigned type, unsigned nh,
			   unsigned flags)
{
	unsigned v = type << 11 | nh << 7 | flags;

	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void t_assert_bytes(const uint8_t *got, const uint8_t *want,
			   size_t len)
{
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(got[i], want[i],
			     "byte %zu: got 0x%02x, want 0x%02x", i, got[i],
			     want[i]);
}

/*
 * Encodes |h|: exactly |want| comes out, nothing is written past it, and a
 * buffer one byte short (or empty) gives -ENOBUFS.
 */
static void t_check_encode(t_enc_fn enc, const void *h, const uint8_t *want,
			   size_t len)
{
	uint8_t buf[T_BUF_LEN];

	memset(buf, T_SENTINEL, sizeof(buf));
	cr_assert_eq(enc(buf, sizeof(buf), h), (ssize_t)len);
	t_assert_bytes(buf, want, len);
	for (size_t i = len; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], T_SENTINEL, "wrote past the header at %zu",
			     i);
	cr_assert_eq(enc(buf, len - 1, h), -ENOBUFS);
	cr_assert_eq(enc(buf, 0, h), -ENOBUFS);
}

/* Every length 0..len-1 of |vec| is rejected as truncated. */
static void t_check_truncated(t_dec_fn dec, void *h, const uint8_t *vec,
			      size_t len)
{
	for (size_t n = 0; n < len; n++)
		cr_assert_eq(dec(h, vec, n), -EBADMSG, "inlen %zu of %zu", n,
			     len);
}

/*
 * |vec| with its prologue replaced, padded to the largest header so the
 * length is never the reason for a rejection; returns the decode result.
 */
static ssize_t t_decode_patched(t_dec_fn dec, void *h, const uint8_t *vec,
				size_t len, unsigned type, unsigned nh,
				unsigned flags)
{
	uint8_t buf[T_BUF_LEN] = { 0 };

	memcpy(buf, vec, len);
	t_put_prologue(buf, type, nh, flags);
	return dec(h, buf, sizeof(buf));
}

/* Types 0..31 outside |ok_mask| (bit per type) are rejected by |dec|. */
static void t_check_foreign_types(t_dec_fn dec, void *h, const uint8_t *vec,
				  size_t len, uint32_t ok_mask)
{
	for (unsigned type = 0; type < 32; type++) {
		ssize_t ret;

		if (ok_mask & (1u << type))
			continue;
		ret = t_decode_patched(dec, h, vec, len, type, 0, 0);
		if (type == UET_PDS_TYPE_TSS)
			cr_assert(ret == -EBADMSG || ret == -EPROTONOSUPPORT,
				  "TSS prologue: %zd", ret);
		else
			cr_assert_eq(ret, -EBADMSG, "type %u accepted", type);
	}
}

/* next_hdr 7..15 (ref 2.3 reserved) is rejected for |vec|'s type. */
static void t_check_reserved_next_hdr(t_dec_fn dec, void *h,
				      const uint8_t *vec, size_t len)
{
	unsigned type = vec[0] >> 3, flags = vec[1] & 0x7F;

	for (unsigned nh = 7; nh < 16; nh++)
		cr_assert_eq(t_decode_patched(dec, h, vec, len, type, nh,
					      flags),
			     -EBADMSG, "type %u next_hdr %u accepted", type,
			     nh);
}

/* Decodes |vec| with byte |off| ORed with |mask|; must still succeed. */
static void t_decode_dirty(t_dec_fn dec, void *h, const uint8_t *vec,
			   size_t len, size_t off, uint8_t mask)
{
	uint8_t buf[T_BUF_LEN];

	memcpy(buf, vec, len);
	buf[off] |= mask;
	cr_assert_eq(dec(h, buf, len), (ssize_t)len,
		     "reserved bits 0x%02x at byte %zu not ignored", mask, off);
}

static void t_assert_pro_eq(const struct pdc_prologue *a,
			    const struct pdc_prologue *b)
{
	cr_assert_eq(a->type, b->type);
	cr_assert_eq(a->next_hdr, b->next_hdr);
	cr_assert_eq(a->flags, b->flags);
}

static void t_assert_req_eq(const struct pdc_req *a, const struct pdc_req *b)
{
	t_assert_pro_eq(&a->pro, &b->pro);
	cr_assert_eq(a->clear_psn_offset, b->clear_psn_offset);
	cr_assert_eq(a->psn, b->psn);
	cr_assert_eq(a->spdcid, b->spdcid);
	if (a->pro.flags & UET_PDS_F_REQ_SYN) {
		cr_assert_eq(a->use_rsv_pdc, b->use_rsv_pdc);
		cr_assert_eq(a->psn_offset, b->psn_offset);
	} else {
		cr_assert_eq(a->dpdcid, b->dpdcid);
	}
	if (a->pro.type == UET_PDS_TYPE_RUD_CC_REQ ||
	    a->pro.type == UET_PDS_TYPE_ROD_CC_REQ) {
		cr_assert_eq(a->ccc_id, b->ccc_id);
		cr_assert_eq(a->credit_target, b->credit_target);
	}
}

static void t_assert_ack_eq(const struct pdc_ack *a, const struct pdc_ack *b)
{
	t_assert_pro_eq(&a->pro, &b->pro);
	if (a->pro.flags & UET_PDS_F_ACK_P)
		cr_assert_eq(a->probe_opaque, b->probe_opaque);
	else
		cr_assert_eq(a->ack_psn_offset, b->ack_psn_offset);
	cr_assert_eq(a->cack_psn, b->cack_psn);
	cr_assert_eq(a->spdcid, b->spdcid);
	cr_assert_eq(a->dpdcid, b->dpdcid);
	if (a->pro.type == UET_PDS_TYPE_ACK)
		return;
	cr_assert_eq(a->cc_type, b->cc_type);
	cr_assert_eq(a->cc_flags, b->cc_flags);
	cr_assert_eq(a->mpr, b->mpr);
	cr_assert_eq(a->sack_psn_offset, b->sack_psn_offset);
	cr_assert_eq(a->sack_bitmap, b->sack_bitmap);
	if (a->pro.type == UET_PDS_TYPE_ACK_CCX) {
		t_assert_bytes(a->ccx_state, b->ccx_state,
			       UET_PDS_CCX_STATE_LEN);
	} else if (a->cc_type == UET_PDS_CC_NSCC) {
		cr_assert_eq(a->cc.nscc.service_time, b->cc.nscc.service_time);
		cr_assert_eq(a->cc.nscc.restore_cwnd, b->cc.nscc.restore_cwnd);
		cr_assert_eq(a->cc.nscc.rcv_cwnd_penalty,
			     b->cc.nscc.rcv_cwnd_penalty);
		cr_assert_eq(a->cc.nscc.rcvd_bytes, b->cc.nscc.rcvd_bytes);
		cr_assert_eq(a->cc.nscc.ooo_count, b->cc.nscc.ooo_count);
	} else {
		cr_assert_eq(a->cc.credit.credit, b->cc.credit.credit);
		cr_assert_eq(a->cc.credit.ooo_count, b->cc.credit.ooo_count);
	}
}

static void t_assert_nack_eq(const struct pdc_nack *a,
			     const struct pdc_nack *b)
{
	t_assert_pro_eq(&a->pro, &b->pro);
	cr_assert_eq(a->nack_code, b->nack_code);
	cr_assert_eq(a->vendor_code, b->vendor_code);
	cr_assert_eq(a->nack_psn, b->nack_psn);
	cr_assert_eq(a->spdcid, b->spdcid);
	cr_assert_eq(a->dpdcid, b->dpdcid);
	cr_assert_eq(a->payload, b->payload);
	if (a->pro.type != UET_PDS_TYPE_NACK_CCX)
		return;
	cr_assert_eq(a->nccx_type, b->nccx_type);
	cr_assert_eq(a->nccx_state[0] & 0x0F, b->nccx_state[0] & 0x0F);
	t_assert_bytes(a->nccx_state + 1, b->nccx_state + 1,
		       UET_PDS_NCCX_STATE_LEN - 1);
}

static void t_assert_ctl_eq(const struct pdc_ctl *a, const struct pdc_ctl *b)
{
	t_assert_pro_eq(&a->pro, &b->pro);
	if (a->pro.next_hdr == UET_PDS_CTL_PROBE)
		cr_assert_eq(a->probe_opaque, b->probe_opaque);
	cr_assert_eq(a->psn, b->psn);
	cr_assert_eq(a->spdcid, b->spdcid);
	if (a->pro.flags & UET_PDS_F_CTL_SYN) {
		cr_assert_eq(a->use_rsv_pdc, b->use_rsv_pdc);
		cr_assert_eq(a->psn_offset, b->psn_offset);
	} else {
		cr_assert_eq(a->dpdcid, b->dpdcid);
	}
	cr_assert_eq(a->payload, b->payload);
}

/* Bit masks of the types each decoder accepts (ref 2.2). */
#define T_BIT(t)	(1u << UET_PDS_TYPE_##t)
#define T_REQ_TYPES	(T_BIT(RUD_REQ) | T_BIT(ROD_REQ) | T_BIT(RUD_CC_REQ) | \
			 T_BIT(ROD_CC_REQ))
#define T_RUDI_TYPES	(T_BIT(RUDI_REQ) | T_BIT(RUDI_RESP))
#define T_ACK_TYPES	(T_BIT(ACK) | T_BIT(ACK_CC) | T_BIT(ACK_CCX))
#define T_NACK_TYPES	(T_BIT(NACK) | T_BIT(NACK_CCX))

/* ---- prologue (ref 2.1) -------------------------------------------------- */

Test(pdc_prologue, decodes_vector)
{
	struct pdc_prologue p;

	cr_assert_eq(pdc_prologue_decode(&p, V_PROLOGUE, sizeof(V_PROLOGUE)),
		     UET_PDS_PROLOGUE_LEN);
	cr_assert_eq(p.type, UET_PDS_TYPE_RUD_REQ);
	cr_assert_eq(p.next_hdr, UET_PDS_NEXT_HDR_REQUEST_STD);
	cr_assert_eq(p.flags, UET_PDS_F_REQ_RETX | UET_PDS_F_REQ_AR);
}

Test(pdc_prologue, encodes_vector)
{
	const struct pdc_prologue p = { UET_PDS_TYPE_RUD_REQ,
					UET_PDS_NEXT_HDR_REQUEST_STD, 0x18 };

	t_check_encode(t_prologue_enc, &p, V_PROLOGUE, sizeof(V_PROLOGUE));
}

Test(pdc_prologue, round_trips_every_type)
{
	for (unsigned type = UET_PDS_TYPE_RUD_REQ;
	     type <= UET_PDS_TYPE_ROD_CC_REQ; type++) {
		/* RETX is defined for every type except UUD (ref 2.5). */
		struct pdc_prologue in = {
			type, 5, type == UET_PDS_TYPE_UUD_REQ ? 0 : 0x10 }, out;
		uint8_t buf[2];

		cr_assert_eq(pdc_prologue_encode(buf, 2, &in), 2, "type %u",
			     type);
		cr_assert_eq(pdc_prologue_decode(&out, buf, 2), 2);
		t_assert_pro_eq(&out, &in);
	}
}

Test(pdc_prologue, rejects_truncated)
{
	struct pdc_prologue p;

	t_check_truncated(t_prologue_dec, &p, V_PROLOGUE, sizeof(V_PROLOGUE));
}

Test(pdc_prologue, rejects_bad_type)
{
	struct pdc_prologue p;
	uint8_t buf[2];

	t_put_prologue(buf, 0, 0, 0);
	cr_assert_eq(pdc_prologue_decode(&p, buf, 2), -EBADMSG);
	for (unsigned type = 15; type < 32; type++) {
		t_put_prologue(buf, type, 0, 0);
		cr_assert_eq(pdc_prologue_decode(&p, buf, 2), -EBADMSG,
			     "type %u", type);
	}
	t_put_prologue(buf, UET_PDS_TYPE_TSS, 0, 0);
	cr_assert_eq(pdc_prologue_decode(&p, buf, 2), -EPROTONOSUPPORT);
}

Test(pdc_prologue, checks_next_hdr_per_type)
{
	struct pdc_prologue p;
	uint8_t buf[2];

	for (unsigned nh = 0; nh < 16; nh++) {
		t_put_prologue(buf, UET_PDS_TYPE_ACK, nh, 0);
		cr_assert_eq(pdc_prologue_decode(&p, buf, 2),
			     nh <= 6 ? 2 : -EBADMSG, "next_hdr %u", nh);
		/* CONTROL: the slot is ctl_type, 0..9 named (ref 2.7). */
		t_put_prologue(buf, UET_PDS_TYPE_CONTROL, nh, 0);
		cr_assert_eq(pdc_prologue_decode(&p, buf, 2),
			     nh <= 9 ? 2 : -EBADMSG, "ctl_type %u", nh);
	}
}

Test(pdc_prologue, is_valid)
{
	struct pdc_prologue p = { UET_PDS_TYPE_NACK, 0, 0 };

	cr_assert(pdc_prologue_is_valid(&p));
	p.next_hdr = 7;
	cr_assert_not(pdc_prologue_is_valid(&p));
	p.type = UET_PDS_TYPE_CONTROL;
	p.next_hdr = UET_PDS_CTL_NEGOTIATION;
	cr_assert(pdc_prologue_is_valid(&p));
	p.next_hdr = 10;
	cr_assert_not(pdc_prologue_is_valid(&p));
	p.type = 0;
	p.next_hdr = 0;
	cr_assert_not(pdc_prologue_is_valid(&p));
	p.type = UET_PDS_TYPE_TSS;
	cr_assert_not(pdc_prologue_is_valid(&p));
	p.type = 15;
	cr_assert_not(pdc_prologue_is_valid(&p));
}

Test(pdc_prologue, zeroes_undefined_flags)
{
	const struct pdc_prologue p = { UET_PDS_TYPE_RUD_REQ,
					UET_PDS_NEXT_HDR_REQUEST_STD, 0x7F };
	const uint8_t want[] = { 0x11, 0x9C };	/* only 0x1C survives */

	t_check_encode(t_prologue_enc, &p, want, sizeof(want));
}

Test(pdc_prologue, ignores_reserved_flags_on_decode)
{
	struct pdc_prologue p;

	t_decode_dirty(t_prologue_dec, &p, V_PROLOGUE, 2, 1, 0x63);
	cr_assert_eq(p.type, UET_PDS_TYPE_RUD_REQ);
	cr_assert_eq(p.next_hdr, UET_PDS_NEXT_HDR_REQUEST_STD);
	cr_assert_eq(p.flags & UET_PDS_F_REQ_VALID, 0x18);
}

Test(pdc_prologue, rejects_unfit_values)
{
	struct pdc_prologue p = { 32, 0, 0 };
	uint8_t buf[2];

	cr_assert_eq(pdc_prologue_encode(buf, 2, &p), -EINVAL);
	p.type = UET_PDS_TYPE_ACK;
	p.next_hdr = 16;
	cr_assert_eq(pdc_prologue_encode(buf, 2, &p), -EINVAL);
}

/* ---- RUD/ROD requests (ref 2.4, types 2, 3, 13, 14) ---------------------- */

Test(pdc_req, decodes_rud_vector)
{
	struct pdc_req h;

	cr_assert_eq(pdc_req_decode(&h, V_RUD_REQ, sizeof(V_RUD_REQ)),
		     UET_PDS_RUD_REQ_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_RUD_REQ);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_REQUEST_STD);
	cr_assert_eq(h.pro.flags, UET_PDS_F_REQ_RETX | UET_PDS_F_REQ_AR);
	cr_assert_eq(h.clear_psn_offset, -2);
	cr_assert_eq(h.psn, 0x89ABCDEF);
	cr_assert_eq(h.spdcid, 0x1234);
	cr_assert_eq(h.dpdcid, 0x5678);
}

Test(pdc_req, decodes_rod_syn_vector)
{
	struct pdc_req h;

	cr_assert_eq(pdc_req_decode(&h, V_ROD_REQ_SYN, sizeof(V_ROD_REQ_SYN)),
		     UET_PDS_RUD_REQ_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_ROD_REQ);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_REQUEST_STD);
	cr_assert_eq(h.pro.flags, UET_PDS_F_REQ_AR | UET_PDS_F_REQ_SYN);
	cr_assert_eq(h.clear_psn_offset, -256);
	cr_assert_eq(h.psn, 0xFEDCBA98);
	cr_assert_eq(h.spdcid, 0xABCD);
	cr_assert_eq(h.use_rsv_pdc, true);
	cr_assert_eq(h.psn_offset, 0xABC);
}

Test(pdc_req, decodes_rud_cc_vector)
{
	struct pdc_req h;

	cr_assert_eq(pdc_req_decode(&h, V_RUD_CC_REQ, sizeof(V_RUD_CC_REQ)),
		     UET_PDS_CC_REQ_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_RUD_CC_REQ);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_REQUEST_SMALL);
	cr_assert_eq(h.pro.flags, UET_PDS_F_REQ_RETX);
	cr_assert_eq(h.clear_psn_offset, INT16_MIN);
	cr_assert_eq(h.psn, 0x7FFFFFFF);
	cr_assert_eq(h.spdcid, 0x0001);
	cr_assert_eq(h.dpdcid, 0xFFFF);
	cr_assert_eq(h.ccc_id, 0xA5);
	cr_assert_eq(h.credit_target, 0x123456);
}

Test(pdc_req, decodes_rod_cc_syn_vector)
{
	struct pdc_req h;

	cr_assert_eq(pdc_req_decode(&h, V_ROD_CC_REQ_SYN,
				    sizeof(V_ROD_CC_REQ_SYN)),
		     UET_PDS_CC_REQ_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_ROD_CC_REQ);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_REQUEST_MEDIUM);
	cr_assert_eq(h.pro.flags, UET_PDS_F_REQ_VALID);
	cr_assert_eq(h.clear_psn_offset, -1);
	cr_assert_eq(h.psn, 0x89ABCDEF);
	cr_assert_eq(h.spdcid, 0x1234);
	cr_assert_eq(h.use_rsv_pdc, false);
	cr_assert_eq(h.psn_offset, 0xFFF);
	cr_assert_eq(h.ccc_id, 0x3C);
	cr_assert_eq(h.credit_target, 0xFFFFFF);
}

Test(pdc_req, encodes_vectors)
{
	t_check_encode(t_req_enc, &T_RUD_REQ, V_RUD_REQ, sizeof(V_RUD_REQ));
	t_check_encode(t_req_enc, &T_ROD_REQ_SYN, V_ROD_REQ_SYN,
		       sizeof(V_ROD_REQ_SYN));
	t_check_encode(t_req_enc, &T_RUD_CC_REQ, V_RUD_CC_REQ,
		       sizeof(V_RUD_CC_REQ));
	t_check_encode(t_req_enc, &T_ROD_CC_REQ_SYN, V_ROD_CC_REQ_SYN,
		       sizeof(V_ROD_CC_REQ_SYN));
}

Test(pdc_req, round_trips)
{
	const struct pdc_req *all[] = { &T_RUD_REQ, &T_ROD_REQ_SYN,
					&T_RUD_CC_REQ, &T_ROD_CC_REQ_SYN };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		uint8_t buf[T_BUF_LEN];
		struct pdc_req out;
		ssize_t n = pdc_req_encode(buf, sizeof(buf), all[i]);

		cr_assert_gt(n, 0, "fixture %zu", i);
		cr_assert_eq(pdc_req_decode(&out, buf, (size_t)n), n);
		t_assert_req_eq(&out, all[i]);
	}
}

Test(pdc_req, rejects_truncated)
{
	struct pdc_req h;

	t_check_truncated(t_req_dec, &h, V_RUD_REQ, sizeof(V_RUD_REQ));
	t_check_truncated(t_req_dec, &h, V_ROD_REQ_SYN, sizeof(V_ROD_REQ_SYN));
	t_check_truncated(t_req_dec, &h, V_RUD_CC_REQ, sizeof(V_RUD_CC_REQ));
	t_check_truncated(t_req_dec, &h, V_ROD_CC_REQ_SYN,
			  sizeof(V_ROD_CC_REQ_SYN));
}

Test(pdc_req, rejects_bad_prologue)
{
	struct pdc_req h;

	t_check_foreign_types(t_req_dec, &h, V_RUD_CC_REQ,
			      sizeof(V_RUD_CC_REQ), T_REQ_TYPES);
	t_check_reserved_next_hdr(t_req_dec, &h, V_RUD_REQ, sizeof(V_RUD_REQ));
	t_check_reserved_next_hdr(t_req_dec, &h, V_ROD_CC_REQ_SYN,
				  sizeof(V_ROD_CC_REQ_SYN));
}

Test(pdc_req, zeroes_reserved_bits)
{
	struct pdc_req h = T_RUD_REQ;
	uint8_t want[UET_PDS_CC_REQ_LEN];

	/* Undefined flags 0x63 drop; SYN clear ignores the overlay; a non-CC
	 * type ignores the CC fields. */
	h.pro.flags = 0x7B;
	h.use_rsv_pdc = true;
	h.psn_offset = 0xABC;
	h.ccc_id = 0xA5;
	h.credit_target = 0x123456;
	t_check_encode(t_req_enc, &h, V_RUD_REQ, sizeof(V_RUD_REQ));

	/* flags 0x7F: only RETX|AR|SYN (0x1C) survive; with SYN set the slot
	 * is the overlay and bits 14:12 stay zero whatever dpdcid holds. */
	h = T_ROD_REQ_SYN;
	h.pro.flags = 0x7F;
	h.dpdcid = 0xFFFF;
	memcpy(want, V_ROD_REQ_SYN, sizeof(V_ROD_REQ_SYN));
	want[1] = 0x9C;
	t_check_encode(t_req_enc, &h, want, sizeof(V_ROD_REQ_SYN));

	h = T_ROD_CC_REQ_SYN;
	h.pro.flags = 0x7F;
	h.dpdcid = 0x7000;
	t_check_encode(t_req_enc, &h, V_ROD_CC_REQ_SYN,
		       sizeof(V_ROD_CC_REQ_SYN));
}

Test(pdc_req, ignores_reserved_bits_on_decode)
{
	struct pdc_req h;

	t_decode_dirty(t_req_dec, &h, V_RUD_REQ, sizeof(V_RUD_REQ), 1, 0x63);
	cr_assert_eq(h.pro.flags & UET_PDS_F_REQ_VALID, 0x18);
	cr_assert_eq(h.dpdcid, 0x5678);

	/* SYN overlay bits 14:12 are reserved (ref 2.4). */
	t_decode_dirty(t_req_dec, &h, V_ROD_REQ_SYN, sizeof(V_ROD_REQ_SYN), 10,
		       0x70);
	cr_assert_eq(h.use_rsv_pdc, true);
	cr_assert_eq(h.psn_offset, 0xABC);
	t_decode_dirty(t_req_dec, &h, V_ROD_CC_REQ_SYN,
		       sizeof(V_ROD_CC_REQ_SYN), 10, 0x70);
	cr_assert_eq(h.use_rsv_pdc, false);
	cr_assert_eq(h.psn_offset, 0xFFF);
	cr_assert_eq(h.credit_target, 0xFFFFFF);
}

Test(pdc_req, rejects_unfit_values)
{
	static const uint8_t wrong[] = { 0, UET_PDS_TYPE_TSS,
					 UET_PDS_TYPE_RUDI_REQ,
					 UET_PDS_TYPE_ACK,
					 UET_PDS_TYPE_CONTROL, 15 };
	uint8_t buf[T_BUF_LEN];
	struct pdc_req h = T_ROD_REQ_SYN;

	h.psn_offset = 0x1000;
	cr_assert_eq(pdc_req_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_ROD_CC_REQ_SYN;
	h.psn_offset = 0xFFFF;
	cr_assert_eq(pdc_req_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_RUD_CC_REQ;
	h.credit_target = 0x1000000;
	cr_assert_eq(pdc_req_encode(buf, sizeof(buf), &h), -EINVAL);
	for (size_t i = 0; i < sizeof(wrong); i++) {
		h = T_RUD_REQ;
		h.pro.type = wrong[i];
		cr_assert_eq(pdc_req_encode(buf, sizeof(buf), &h), -EINVAL,
			     "type %u", wrong[i]);
	}
}

/* ---- RUDI request/response (ref 2.4, types 4, 5) ------------------------- */

Test(pdc_rudi, decodes_vectors)
{
	struct pdc_rudi h;

	cr_assert_eq(pdc_rudi_decode(&h, V_RUDI_REQ, sizeof(V_RUDI_REQ)),
		     UET_PDS_RUDI_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_RUDI_REQ);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_REQUEST_MEDIUM);
	cr_assert_eq(h.pro.flags, UET_PDS_F_RUDI_RETX);
	cr_assert_eq(h.pkt_id, 0xDEADBEEF);

	cr_assert_eq(pdc_rudi_decode(&h, V_RUDI_RESP, sizeof(V_RUDI_RESP)),
		     UET_PDS_RUDI_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_RUDI_RESP);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_RESPONSE_DATA);
	cr_assert_eq(h.pro.flags, UET_PDS_F_RUDI_M | UET_PDS_F_RUDI_RETX);
	cr_assert_eq(h.pkt_id, 0x01234567);
}

Test(pdc_rudi, encodes_vectors)
{
	t_check_encode(t_rudi_enc, &T_RUDI_REQ, V_RUDI_REQ,
		       sizeof(V_RUDI_REQ));
	t_check_encode(t_rudi_enc, &T_RUDI_RESP, V_RUDI_RESP,
		       sizeof(V_RUDI_RESP));
}

Test(pdc_rudi, round_trips)
{
	const struct pdc_rudi *all[] = { &T_RUDI_REQ, &T_RUDI_RESP };

	for (size_t i = 0; i < 2; i++) {
		uint8_t buf[UET_PDS_RUDI_LEN];
		struct pdc_rudi out;

		cr_assert_eq(pdc_rudi_encode(buf, sizeof(buf), all[i]),
			     UET_PDS_RUDI_LEN);
		cr_assert_eq(pdc_rudi_decode(&out, buf, sizeof(buf)),
			     UET_PDS_RUDI_LEN);
		t_assert_pro_eq(&out.pro, &all[i]->pro);
		cr_assert_eq(out.pkt_id, all[i]->pkt_id);
	}
}

Test(pdc_rudi, rejects_truncated)
{
	struct pdc_rudi h;

	t_check_truncated(t_rudi_dec, &h, V_RUDI_REQ, sizeof(V_RUDI_REQ));
	t_check_truncated(t_rudi_dec, &h, V_RUDI_RESP, sizeof(V_RUDI_RESP));
}

Test(pdc_rudi, rejects_bad_prologue)
{
	struct pdc_rudi h;

	t_check_foreign_types(t_rudi_dec, &h, V_RUDI_REQ, sizeof(V_RUDI_REQ),
			      T_RUDI_TYPES);
	t_check_reserved_next_hdr(t_rudi_dec, &h, V_RUDI_REQ,
				  sizeof(V_RUDI_REQ));
	t_check_reserved_next_hdr(t_rudi_dec, &h, V_RUDI_RESP,
				  sizeof(V_RUDI_RESP));
}

Test(pdc_rudi, zeroes_reserved_bits)
{
	struct pdc_rudi h = T_RUDI_REQ;

	h.pro.flags = 0x7F;	/* request: only RETX defined */
	t_check_encode(t_rudi_enc, &h, V_RUDI_REQ, sizeof(V_RUDI_REQ));
	h = T_RUDI_RESP;
	h.pro.flags = 0x7F;	/* response: M|RETX */
	t_check_encode(t_rudi_enc, &h, V_RUDI_RESP, sizeof(V_RUDI_RESP));
}

Test(pdc_rudi, ignores_reserved_bits_on_decode)
{
	struct pdc_rudi h;

	t_decode_dirty(t_rudi_dec, &h, V_RUDI_REQ, sizeof(V_RUDI_REQ), 1, 0x6F);
	cr_assert_eq(h.pro.flags & UET_PDS_F_RUDI_REQ_VALID, 0x10);
	t_decode_dirty(t_rudi_dec, &h, V_RUDI_REQ, sizeof(V_RUDI_REQ), 2, 0xFF);
	t_decode_dirty(t_rudi_dec, &h, V_RUDI_RESP, sizeof(V_RUDI_RESP), 3,
		       0xFF);
	cr_assert_eq(h.pkt_id, 0x01234567);
}

Test(pdc_rudi, rejects_wrong_type)
{
	uint8_t buf[T_BUF_LEN];
	struct pdc_rudi h = T_RUDI_REQ;

	h.pro.type = UET_PDS_TYPE_RUD_REQ;
	cr_assert_eq(pdc_rudi_encode(buf, sizeof(buf), &h), -EINVAL);
	h.pro.type = UET_PDS_TYPE_UUD_REQ;
	cr_assert_eq(pdc_rudi_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ---- UUD request (ref 2.4, type 6) --------------------------------------- */

Test(pdc_uud, decodes_vector)
{
	struct pdc_uud h;

	cr_assert_eq(pdc_uud_decode(&h, V_UUD, sizeof(V_UUD)), UET_PDS_UUD_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_UUD_REQ);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_REQUEST_SMALL);
	cr_assert_eq(h.pro.flags, 0);
}

Test(pdc_uud, encodes_vector)
{
	t_check_encode(t_uud_enc, &T_UUD, V_UUD, sizeof(V_UUD));
}

Test(pdc_uud, round_trips)
{
	const struct pdc_uud in = {
		{ UET_PDS_TYPE_UUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD, 0 } };
	struct pdc_uud out;
	uint8_t buf[UET_PDS_UUD_LEN];

	cr_assert_eq(pdc_uud_encode(buf, sizeof(buf), &in), UET_PDS_UUD_LEN);
	cr_assert_eq(pdc_uud_decode(&out, buf, sizeof(buf)), UET_PDS_UUD_LEN);
	t_assert_pro_eq(&out.pro, &in.pro);
}

Test(pdc_uud, rejects_truncated)
{
	struct pdc_uud h;

	t_check_truncated(t_uud_dec, &h, V_UUD, sizeof(V_UUD));
}

Test(pdc_uud, rejects_bad_prologue)
{
	struct pdc_uud h;

	t_check_foreign_types(t_uud_dec, &h, V_UUD, sizeof(V_UUD),
			      T_BIT(UUD_REQ));
	t_check_reserved_next_hdr(t_uud_dec, &h, V_UUD, sizeof(V_UUD));
}

Test(pdc_uud, zeroes_reserved_bits)
{
	struct pdc_uud h = T_UUD;

	h.pro.flags = 0x7F;	/* ref 2.5: UUD flags all zero */
	t_check_encode(t_uud_enc, &h, V_UUD, sizeof(V_UUD));
}

Test(pdc_uud, ignores_reserved_bits_on_decode)
{
	struct pdc_uud h;

	t_decode_dirty(t_uud_dec, &h, V_UUD, sizeof(V_UUD), 1, 0x7F);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_UUD_REQ);
	t_decode_dirty(t_uud_dec, &h, V_UUD, sizeof(V_UUD), 2, 0xFF);
	t_decode_dirty(t_uud_dec, &h, V_UUD, sizeof(V_UUD), 3, 0xFF);
}

Test(pdc_uud, rejects_wrong_type)
{
	uint8_t buf[T_BUF_LEN];
	struct pdc_uud h = T_UUD;

	h.pro.type = UET_PDS_TYPE_RUDI_REQ;
	cr_assert_eq(pdc_uud_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ---- ACK, ACK_CC, ACK_CCX (ref 2.4, 2.5, 2.8; types 7, 8, 9) ------------- */

Test(pdc_ack, decodes_ack_vector)
{
	struct pdc_ack h;

	cr_assert_eq(pdc_ack_decode(&h, V_ACK, sizeof(V_ACK)), UET_PDS_ACK_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_ACK);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_RESPONSE);
	cr_assert_eq(h.pro.flags, UET_PDS_F_ACK_M | UET_PDS_F_ACK_RETX |
		     UET_PDS_ACK_REQ_CLEAR << UET_PDS_F_ACK_REQ_SHIFT);
	cr_assert_eq(h.ack_psn_offset, -3);
	cr_assert_eq(h.cack_psn, 0x89ABCDEF);
	cr_assert_eq(h.spdcid, 0x1234);
	cr_assert_eq(h.dpdcid, 0x5678);
}

Test(pdc_ack, decodes_probe_vector)
{
	struct pdc_ack h;

	cr_assert_eq(pdc_ack_decode(&h, V_ACK_PROBE, sizeof(V_ACK_PROBE)),
		     UET_PDS_ACK_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_ACK);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_NONE);
	cr_assert_eq(h.pro.flags, UET_PDS_F_ACK_P |
		     UET_PDS_ACK_REQ_CLOSE << UET_PDS_F_ACK_REQ_SHIFT);
	cr_assert_eq(h.probe_opaque, 0xBEEF);
	cr_assert_eq(h.cack_psn, 0x1000);
	cr_assert_eq(h.spdcid, 0x4321);
	cr_assert_eq(h.dpdcid, 0x8765);
}

Test(pdc_ack, decodes_ack_cc_nscc_vector)
{
	struct pdc_ack h;

	cr_assert_eq(pdc_ack_decode(&h, V_ACK_CC_NSCC, sizeof(V_ACK_CC_NSCC)),
		     UET_PDS_ACK_CC_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_ACK_CC);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_RESPONSE);
	cr_assert_eq(h.pro.flags, UET_PDS_F_ACK_M);
	cr_assert_eq(h.ack_psn_offset, -16);
	cr_assert_eq(h.cack_psn, 0x89ABCDEF);
	cr_assert_eq(h.spdcid, 0x1234);
	cr_assert_eq(h.dpdcid, 0x5678);
	cr_assert_eq(h.cc_type, UET_PDS_CC_NSCC);
	cr_assert_eq(h.cc_flags, 0xA);
	cr_assert_eq(h.mpr, 8);
	cr_assert_eq(h.sack_psn_offset, -64);
	cr_assert_eq(h.sack_bitmap, 0x0123456789ABCDEFull);
	cr_assert_eq(h.cc.nscc.service_time, 0xBEEF);
	cr_assert_eq(h.cc.nscc.restore_cwnd, true);
	cr_assert_eq(h.cc.nscc.rcv_cwnd_penalty, 0x55);
	cr_assert_eq(h.cc.nscc.rcvd_bytes, 0xABCDEF);
	cr_assert_eq(h.cc.nscc.ooo_count, 0x1357);
}

Test(pdc_ack, decodes_ack_cc_credit_vector)
{
	struct pdc_ack h;

	cr_assert_eq(pdc_ack_decode(&h, V_ACK_CC_CREDIT,
				    sizeof(V_ACK_CC_CREDIT)),
		     UET_PDS_ACK_CC_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_ACK_CC);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_RESPONSE_DATA);
	cr_assert_eq(h.pro.flags, UET_PDS_F_ACK_RETX);
	cr_assert_eq(h.ack_psn_offset, 0);
	cr_assert_eq(h.cack_psn, 0xFFFFFFFF);
	cr_assert_eq(h.spdcid, 0xABCD);
	cr_assert_eq(h.dpdcid, 0x0001);
	cr_assert_eq(h.cc_type, UET_PDS_CC_CREDIT);
	cr_assert_eq(h.cc_flags, 5);
	cr_assert_eq(h.mpr, 0xFF);
	cr_assert_eq(h.sack_psn_offset, 1);
	cr_assert_eq(h.sack_bitmap, 0x8000000000000001ull);
	cr_assert_eq(h.cc.credit.credit, 0xFEDCBA);
	cr_assert_eq(h.cc.credit.ooo_count, 0x2468);
}

Test(pdc_ack, decodes_ack_ccx_vector)
{
	struct pdc_ack h;

	cr_assert_eq(pdc_ack_decode(&h, V_ACK_CCX, sizeof(V_ACK_CCX)),
		     UET_PDS_ACK_CCX_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_ACK_CCX);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_RESPONSE_DATA);
	cr_assert_eq(h.pro.flags, UET_PDS_F_ACK_RETX |
		     UET_PDS_ACK_REQ_CLEAR << UET_PDS_F_ACK_REQ_SHIFT);
	cr_assert_eq(h.ack_psn_offset, 127);
	cr_assert_eq(h.cack_psn, 0x89ABCDEF);
	cr_assert_eq(h.spdcid, 0x1234);
	cr_assert_eq(h.dpdcid, 0x5678);
	cr_assert_eq(h.cc_type, 7);
	cr_assert_eq(h.cc_flags, 0xC);
	cr_assert_eq(h.mpr, 0x10);
	cr_assert_eq(h.sack_psn_offset, INT16_MIN);
	cr_assert_eq(h.sack_bitmap, 0x55AA55AA0FF00FF0ull);
	for (unsigned i = 0; i < UET_PDS_CCX_STATE_LEN; i++)
		cr_assert_eq(h.ccx_state[i], 0xC0 + i, "ccx_state[%u]", i);
}

Test(pdc_ack, encodes_vectors)
{
	t_check_encode(t_ack_enc, &T_ACK, V_ACK, sizeof(V_ACK));
	t_check_encode(t_ack_enc, &T_ACK_PROBE, V_ACK_PROBE,
		       sizeof(V_ACK_PROBE));
	t_check_encode(t_ack_enc, &T_ACK_CC_NSCC, V_ACK_CC_NSCC,
		       sizeof(V_ACK_CC_NSCC));
	t_check_encode(t_ack_enc, &T_ACK_CC_CREDIT, V_ACK_CC_CREDIT,
		       sizeof(V_ACK_CC_CREDIT));
	t_check_encode(t_ack_enc, &T_ACK_CCX, V_ACK_CCX, sizeof(V_ACK_CCX));
}

Test(pdc_ack, round_trips)
{
	const struct pdc_ack *all[] = { &T_ACK, &T_ACK_PROBE, &T_ACK_CC_NSCC,
					&T_ACK_CC_CREDIT, &T_ACK_CCX };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		uint8_t buf[T_BUF_LEN];
		struct pdc_ack out;
		ssize_t n = pdc_ack_encode(buf, sizeof(buf), all[i]);

		cr_assert_gt(n, 0, "fixture %zu", i);
		cr_assert_eq(pdc_ack_decode(&out, buf, (size_t)n), n);
		t_assert_ack_eq(&out, all[i]);
	}
}

Test(pdc_ack, rejects_truncated)
{
	struct pdc_ack h;

	t_check_truncated(t_ack_dec, &h, V_ACK, sizeof(V_ACK));
	t_check_truncated(t_ack_dec, &h, V_ACK_PROBE, sizeof(V_ACK_PROBE));
	t_check_truncated(t_ack_dec, &h, V_ACK_CC_NSCC, sizeof(V_ACK_CC_NSCC));
	t_check_truncated(t_ack_dec, &h, V_ACK_CC_CREDIT,
			  sizeof(V_ACK_CC_CREDIT));
	t_check_truncated(t_ack_dec, &h, V_ACK_CCX, sizeof(V_ACK_CCX));
}

Test(pdc_ack, rejects_bad_prologue)
{
	struct pdc_ack h;

	/* A RUD_REQ vector is not an ACK. */
	cr_assert_eq(pdc_ack_decode(&h, V_RUD_CC_REQ, sizeof(V_RUD_CC_REQ)),
		     -EBADMSG);
	t_check_foreign_types(t_ack_dec, &h, V_ACK_CCX, sizeof(V_ACK_CCX),
			      T_ACK_TYPES);
	t_check_reserved_next_hdr(t_ack_dec, &h, V_ACK, sizeof(V_ACK));
	t_check_reserved_next_hdr(t_ack_dec, &h, V_ACK_CC_NSCC,
				  sizeof(V_ACK_CC_NSCC));
	t_check_reserved_next_hdr(t_ack_dec, &h, V_ACK_CCX, sizeof(V_ACK_CCX));
}

Test(pdc_ack, rejects_unknown_cc_type)
{
	struct pdc_ack h;
	uint8_t buf[UET_PDS_ACK_CC_LEN];

	for (unsigned cc = 2; cc < 16; cc++) {
		memcpy(buf, V_ACK_CC_CREDIT, sizeof(buf));
		buf[12] = (uint8_t)(cc << 4 | 5);
		cr_assert_eq(pdc_ack_decode(&h, buf, sizeof(buf)), -EBADMSG,
			     "cc_type %u", cc);
	}
}

Test(pdc_ack, zeroes_reserved_bits)
{
	struct pdc_ack h = T_ACK;

	/* Flags 0x41 undefined; P clear so probe_opaque is unused; a plain ACK
	 * carries no CC fields. */
	h.pro.flags = 0x73;
	h.probe_opaque = 0x5555;
	h.cc_type = 5;
	h.mpr = 0x77;
	h.sack_bitmap = ~0ull;
	t_check_encode(t_ack_enc, &h, V_ACK, sizeof(V_ACK));

	/* P set: ack_psn_offset is unused. */
	h = T_ACK_PROBE;
	h.pro.flags |= 0x41;
	h.ack_psn_offset = -1;
	t_check_encode(t_ack_enc, &h, V_ACK_PROBE, sizeof(V_ACK_PROBE));

	/* Credit layout: bits 39:16 reserved; ccx_state unused by ACK_CC. */
	h = T_ACK_CC_CREDIT;
	h.pro.flags |= 0x41;
	memset(h.ccx_state, 0xFF, sizeof(h.ccx_state));
	t_check_encode(t_ack_enc, &h, V_ACK_CC_CREDIT, sizeof(V_ACK_CC_CREDIT));

	h = T_ACK_CCX;
	h.pro.flags |= 0x41;
	t_check_encode(t_ack_enc, &h, V_ACK_CCX, sizeof(V_ACK_CCX));
}

Test(pdc_ack, ignores_reserved_bits_on_decode)
{
	struct pdc_ack h;

	t_decode_dirty(t_ack_dec, &h, V_ACK, sizeof(V_ACK), 1, 0x41);
	cr_assert_eq(h.pro.flags & UET_PDS_F_ACK_VALID, 0x32);
	cr_assert_eq(h.ack_psn_offset, -3);
	for (size_t off = 27; off <= 29; off++) {
		t_decode_dirty(t_ack_dec, &h, V_ACK_CC_CREDIT,
			       sizeof(V_ACK_CC_CREDIT), off, 0xFF);
		cr_assert_eq(h.cc.credit.credit, 0xFEDCBA);
		cr_assert_eq(h.cc.credit.ooo_count, 0x2468);
	}
}

Test(pdc_ack, rejects_unfit_values)
{
	uint8_t buf[T_BUF_LEN];
	struct pdc_ack h = T_ACK_CC_NSCC;

	h.cc_type = 2;
	cr_assert_eq(pdc_ack_encode(buf, sizeof(buf), &h), -EINVAL);
	h.cc_type = 15;
	cr_assert_eq(pdc_ack_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_ACK_CCX;
	h.cc_type = 0x10;
	cr_assert_eq(pdc_ack_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_ACK_CC_NSCC;
	h.cc_flags = 0x10;
	cr_assert_eq(pdc_ack_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_ACK_CC_NSCC;
	h.cc.nscc.rcvd_bytes = 0x1000000;
	cr_assert_eq(pdc_ack_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_ACK_CC_NSCC;
	h.cc.nscc.rcv_cwnd_penalty = 0x80;
	cr_assert_eq(pdc_ack_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_ACK_CC_CREDIT;
	h.cc.credit.credit = 0x1000000;
	cr_assert_eq(pdc_ack_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_ACK;
	h.pro.type = UET_PDS_TYPE_NACK;
	cr_assert_eq(pdc_ack_encode(buf, sizeof(buf), &h), -EINVAL);
	h.pro.type = UET_PDS_TYPE_RUD_REQ;
	cr_assert_eq(pdc_ack_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ---- NACK, NACK_CCX (ref 2.4, 2.6; types 10, 12) ------------------------- */

Test(pdc_nack, decodes_nack_vector)
{
	struct pdc_nack h;

	cr_assert_eq(pdc_nack_decode(&h, V_NACK, sizeof(V_NACK)),
		     UET_PDS_NACK_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_NACK);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_NONE);
	cr_assert_eq(h.pro.flags, UET_PDS_F_NACK_M | UET_PDS_F_NACK_RETX);
	cr_assert_eq(h.nack_code, UET_PDS_NACK_NO_PDC_AVAIL);
	cr_assert_eq(h.vendor_code, 0x99);
	cr_assert_eq(h.nack_psn, 0x89ABCDEF);
	cr_assert_eq(h.spdcid, 0x1234);
	cr_assert_eq(h.dpdcid, 0x5678);
	cr_assert_eq(h.payload, 0x89ABCDF0);
}

Test(pdc_nack, decodes_nack_ccx_vector)
{
	struct pdc_nack h;

	cr_assert_eq(pdc_nack_decode(&h, V_NACK_CCX, sizeof(V_NACK_CCX)),
		     UET_PDS_NACK_CCX_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_NACK_CCX);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_NEXT_HDR_NONE);
	cr_assert_eq(h.pro.flags, UET_PDS_F_NACK_NT);
	cr_assert_eq(h.nack_code, UET_PDS_NACK_NEW_START_PSN);
	cr_assert_eq(h.vendor_code, 0);
	cr_assert_eq(h.nack_psn, 0xDEADBEEF);
	cr_assert_eq(h.spdcid, 0);
	cr_assert_eq(h.dpdcid, 0);
	cr_assert_eq(h.payload, 0x13579BDF);
	cr_assert_eq(h.nccx_type, 2);
	cr_assert_eq(h.nccx_state[0], 0x0A);	/* low nibble only */
	for (unsigned i = 1; i < UET_PDS_NCCX_STATE_LEN; i++)
		cr_assert_eq(h.nccx_state[i], 0xB0 + i, "nccx_state[%u]", i);
}

Test(pdc_nack, encodes_vectors)
{
	t_check_encode(t_nack_enc, &T_NACK, V_NACK, sizeof(V_NACK));
	t_check_encode(t_nack_enc, &T_NACK_CCX, V_NACK_CCX,
		       sizeof(V_NACK_CCX));
}

Test(pdc_nack, round_trips)
{
	const struct pdc_nack *all[] = { &T_NACK, &T_NACK_CCX };

	for (size_t i = 0; i < 2; i++) {
		uint8_t buf[T_BUF_LEN];
		struct pdc_nack out;
		ssize_t n = pdc_nack_encode(buf, sizeof(buf), all[i]);

		cr_assert_gt(n, 0, "fixture %zu", i);
		cr_assert_eq(pdc_nack_decode(&out, buf, (size_t)n), n);
		t_assert_nack_eq(&out, all[i]);
	}
}

Test(pdc_nack, rejects_truncated)
{
	struct pdc_nack h;

	t_check_truncated(t_nack_dec, &h, V_NACK, sizeof(V_NACK));
	t_check_truncated(t_nack_dec, &h, V_NACK_CCX, sizeof(V_NACK_CCX));
}

Test(pdc_nack, rejects_bad_prologue)
{
	struct pdc_nack h;

	t_check_foreign_types(t_nack_dec, &h, V_NACK_CCX, sizeof(V_NACK_CCX),
			      T_NACK_TYPES);
	t_check_reserved_next_hdr(t_nack_dec, &h, V_NACK, sizeof(V_NACK));
	t_check_reserved_next_hdr(t_nack_dec, &h, V_NACK_CCX,
				  sizeof(V_NACK_CCX));
}

Test(pdc_nack, rejects_unknown_code)
{
	static const uint8_t bad[] = { 0x00, 0x0C, 0x1B, 0x80, 0xFC };
	struct pdc_nack h;
	uint8_t buf[UET_PDS_NACK_CCX_LEN];

	for (size_t i = 0; i < sizeof(bad); i++) {
		memcpy(buf, V_NACK, sizeof(V_NACK));
		buf[2] = bad[i];
		cr_assert_eq(pdc_nack_decode(&h, buf, sizeof(V_NACK)), -EBADMSG,
			     "code 0x%02x", bad[i]);
		memcpy(buf, V_NACK_CCX, sizeof(V_NACK_CCX));
		buf[2] = bad[i];
		cr_assert_eq(pdc_nack_decode(&h, buf, sizeof(V_NACK_CCX)),
			     -EBADMSG, "CCX code 0x%02x", bad[i]);
	}
}

Test(pdc_nack, zeroes_reserved_bits)
{
	struct pdc_nack h = T_NACK;

	/* Flags 0x47 undefined; a plain NACK carries no CCX fields. */
	h.pro.flags = 0x77;
	h.nccx_type = 0xF;
	memset(h.nccx_state, 0xFF, sizeof(h.nccx_state));
	t_check_encode(t_nack_enc, &h, V_NACK, sizeof(V_NACK));

	h = T_NACK_CCX;
	h.pro.flags = 0x4F;
	t_check_encode(t_nack_enc, &h, V_NACK_CCX, sizeof(V_NACK_CCX));
}

Test(pdc_nack, ignores_reserved_bits_on_decode)
{
	struct pdc_nack h;

	t_decode_dirty(t_nack_dec, &h, V_NACK, sizeof(V_NACK), 1, 0x47);
	cr_assert_eq(h.pro.flags & UET_PDS_F_NACK_VALID, 0x30);
	cr_assert_eq(h.nack_code, UET_PDS_NACK_NO_PDC_AVAIL);
	t_decode_dirty(t_nack_dec, &h, V_NACK_CCX, sizeof(V_NACK_CCX), 1, 0x47);
	cr_assert_eq(h.pro.flags & UET_PDS_F_NACK_VALID, UET_PDS_F_NACK_NT);
}

Test(pdc_nack, rejects_unfit_values)
{
	uint8_t buf[T_BUF_LEN];
	struct pdc_nack h = T_NACK;
	static const uint8_t bad[] = { 0x00, 0x0C, 0x1B, 0xFC };

	for (size_t i = 0; i < sizeof(bad); i++) {
		h.nack_code = bad[i];
		cr_assert_eq(pdc_nack_encode(buf, sizeof(buf), &h), -EINVAL,
			     "code 0x%02x", bad[i]);
	}
	h = T_NACK_CCX;
	h.nccx_type = 0x10;
	cr_assert_eq(pdc_nack_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_NACK;
	h.pro.type = UET_PDS_TYPE_ACK;
	cr_assert_eq(pdc_nack_encode(buf, sizeof(buf), &h), -EINVAL);
	h.pro.type = UET_PDS_TYPE_CONTROL;
	cr_assert_eq(pdc_nack_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ---- CONTROL (ref 2.4, 2.7; type 11) ------------------------------------- */

Test(pdc_ctl, decodes_probe_vector)
{
	struct pdc_ctl h;

	cr_assert_eq(pdc_ctl_decode(&h, V_CTL_PROBE, sizeof(V_CTL_PROBE)),
		     UET_PDS_CTL_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_CONTROL);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_CTL_PROBE);
	cr_assert_eq(h.pro.flags, UET_PDS_F_CTL_AR);
	cr_assert_eq(h.probe_opaque, 0xBEEF);
	cr_assert_eq(h.psn, 0x89ABCDEF);
	cr_assert_eq(h.spdcid, 0x1234);
	cr_assert_eq(h.dpdcid, 0x5678);
	cr_assert_eq(h.payload, 0x89ABCD00);
}

Test(pdc_ctl, decodes_syn_vector)
{
	struct pdc_ctl h;

	cr_assert_eq(pdc_ctl_decode(&h, V_CTL_SYN, sizeof(V_CTL_SYN)),
		     UET_PDS_CTL_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_CONTROL);
	cr_assert_eq(h.pro.next_hdr, UET_PDS_CTL_NOOP);
	cr_assert_eq(h.pro.flags, UET_PDS_F_CTL_RETX | UET_PDS_F_CTL_SYN);
	cr_assert_eq(h.psn, 0x00010000);
	cr_assert_eq(h.spdcid, 7);
	cr_assert_eq(h.use_rsv_pdc, true);
	cr_assert_eq(h.psn_offset, 1);
	cr_assert_eq(h.payload, 0);
}

Test(pdc_ctl, encodes_vectors)
{
	t_check_encode(t_ctl_enc, &T_CTL_PROBE, V_CTL_PROBE,
		       sizeof(V_CTL_PROBE));
	t_check_encode(t_ctl_enc, &T_CTL_SYN, V_CTL_SYN, sizeof(V_CTL_SYN));
}

Test(pdc_ctl, round_trips)
{
	const struct pdc_ctl *all[] = { &T_CTL_PROBE, &T_CTL_SYN };

	for (size_t i = 0; i < 2; i++) {
		uint8_t buf[UET_PDS_CTL_LEN];
		struct pdc_ctl out;

		cr_assert_eq(pdc_ctl_encode(buf, sizeof(buf), all[i]),
			     UET_PDS_CTL_LEN);
		cr_assert_eq(pdc_ctl_decode(&out, buf, sizeof(buf)),
			     UET_PDS_CTL_LEN);
		t_assert_ctl_eq(&out, all[i]);
	}
}

Test(pdc_ctl, rejects_truncated)
{
	struct pdc_ctl h;

	t_check_truncated(t_ctl_dec, &h, V_CTL_PROBE, sizeof(V_CTL_PROBE));
	t_check_truncated(t_ctl_dec, &h, V_CTL_SYN, sizeof(V_CTL_SYN));
}

Test(pdc_ctl, rejects_bad_prologue)
{
	struct pdc_ctl h;

	t_check_foreign_types(t_ctl_dec, &h, V_CTL_PROBE, sizeof(V_CTL_PROBE),
			      T_BIT(CONTROL));
	for (unsigned ctl = 10; ctl < 16; ctl++)
		cr_assert_eq(t_decode_patched(t_ctl_dec, &h, V_CTL_PROBE,
					      sizeof(V_CTL_PROBE),
					      UET_PDS_TYPE_CONTROL, ctl, 0x08),
			     -EBADMSG, "ctl_type %u", ctl);
}

Test(pdc_ctl, zeroes_reserved_bits)
{
	struct pdc_ctl h = T_CTL_PROBE;
	uint8_t want[UET_PDS_CTL_LEN];

	/* 0x20 (isROD in RP-H/TH/SU) is reserved per WS, like 0x43. */
	h.pro.flags = 0x6B;
	h.use_rsv_pdc = true;	/* SYN clear: overlay unused */
	h.psn_offset = 0xFFF;
	t_check_encode(t_ctl_enc, &h, V_CTL_PROBE, sizeof(V_CTL_PROBE));

	/* Not PROBE: probe_opaque is reserved; SYN set: dpdcid unused. */
	h = T_CTL_SYN;
	h.pro.flags = 0x7F;
	h.probe_opaque = 0xBEEF;
	h.dpdcid = 0x7000;
	memcpy(want, V_CTL_SYN, sizeof(want));
	want[1] = 0x1C;
	t_check_encode(t_ctl_enc, &h, want, sizeof(want));
}

Test(pdc_ctl, ignores_reserved_bits_on_decode)
{
	struct pdc_ctl h;

	t_decode_dirty(t_ctl_dec, &h, V_CTL_PROBE, sizeof(V_CTL_PROBE), 1,
		       0x63);
	cr_assert_eq(h.pro.flags & UET_PDS_F_CTL_VALID, UET_PDS_F_CTL_AR);
	cr_assert_eq(h.probe_opaque, 0xBEEF);
	t_decode_dirty(t_ctl_dec, &h, V_CTL_SYN, sizeof(V_CTL_SYN), 2, 0xFF);
	t_decode_dirty(t_ctl_dec, &h, V_CTL_SYN, sizeof(V_CTL_SYN), 10, 0x70);
	cr_assert_eq(h.use_rsv_pdc, true);
	cr_assert_eq(h.psn_offset, 1);
}

Test(pdc_ctl, rejects_unfit_values)
{
	uint8_t buf[T_BUF_LEN];
	struct pdc_ctl h = T_CTL_PROBE;

	h.pro.next_hdr = 10;
	cr_assert_eq(pdc_ctl_encode(buf, sizeof(buf), &h), -EINVAL);
	h.pro.next_hdr = 15;
	cr_assert_eq(pdc_ctl_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_CTL_SYN;
	h.psn_offset = 0x1000;
	cr_assert_eq(pdc_ctl_encode(buf, sizeof(buf), &h), -EINVAL);
	h = T_CTL_PROBE;
	h.pro.type = UET_PDS_TYPE_NACK;
	cr_assert_eq(pdc_ctl_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ---- any header: length and dispatch (ref 2.2) --------------------------- */

Test(pdc_hdr, len_of_every_type)
{
	static const struct { uint8_t type; ssize_t len; } lens[] = {
		{ 0, -EBADMSG }, { UET_PDS_TYPE_TSS, -EBADMSG },
		{ UET_PDS_TYPE_RUD_REQ, 12 }, { UET_PDS_TYPE_ROD_REQ, 12 },
		{ UET_PDS_TYPE_RUDI_REQ, 8 }, { UET_PDS_TYPE_RUDI_RESP, 8 },
		{ UET_PDS_TYPE_UUD_REQ, 4 }, { UET_PDS_TYPE_ACK, 12 },
		{ UET_PDS_TYPE_ACK_CC, 32 }, { UET_PDS_TYPE_ACK_CCX, 40 },
		{ UET_PDS_TYPE_NACK, 16 }, { UET_PDS_TYPE_CONTROL, 16 },
		{ UET_PDS_TYPE_NACK_CCX, 32 }, { UET_PDS_TYPE_RUD_CC_REQ, 16 },
		{ UET_PDS_TYPE_ROD_CC_REQ, 16 }, { 15, -EBADMSG },
		{ 16, -EBADMSG }, { 31, -EBADMSG }, { 32, -EBADMSG },
		{ 255, -EBADMSG },
	};

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		cr_assert_eq(pdc_hdr_len(lens[i].type), lens[i].len,
			     "type %u", lens[i].type);
}

Test(pdc_hdr, decode_dispatches)
{
	struct pdc_hdr h;
	uint8_t buf[T_BUF_LEN] = { 0 };

	cr_assert_eq(pdc_hdr_decode(&h, V_ROD_CC_REQ_SYN,
				    sizeof(V_ROD_CC_REQ_SYN)),
		     UET_PDS_CC_REQ_LEN);
	t_assert_req_eq(&h.req, &T_ROD_CC_REQ_SYN);
	cr_assert_eq(pdc_hdr_decode(&h, V_RUDI_RESP, sizeof(V_RUDI_RESP)),
		     UET_PDS_RUDI_LEN);
	cr_assert_eq(h.rudi.pkt_id, 0x01234567);
	cr_assert_eq(pdc_hdr_decode(&h, V_UUD, sizeof(V_UUD)), UET_PDS_UUD_LEN);
	cr_assert_eq(h.pro.type, UET_PDS_TYPE_UUD_REQ);
	cr_assert_eq(pdc_hdr_decode(&h, V_ACK_CC_NSCC, sizeof(V_ACK_CC_NSCC)),
		     UET_PDS_ACK_CC_LEN);
	t_assert_ack_eq(&h.ack, &T_ACK_CC_NSCC);
	cr_assert_eq(pdc_hdr_decode(&h, V_NACK_CCX, sizeof(V_NACK_CCX)),
		     UET_PDS_NACK_CCX_LEN);
	t_assert_nack_eq(&h.nack, &T_NACK_CCX);
	cr_assert_eq(pdc_hdr_decode(&h, V_CTL_SYN, sizeof(V_CTL_SYN)),
		     UET_PDS_CTL_LEN);
	t_assert_ctl_eq(&h.ctl, &T_CTL_SYN);

	/* Trailing bytes are not examined. */
	memcpy(buf, V_ACK, sizeof(V_ACK));
	memset(buf + sizeof(V_ACK), 0xFF, sizeof(buf) - sizeof(V_ACK));
	cr_assert_eq(pdc_hdr_decode(&h, buf, sizeof(buf)), UET_PDS_ACK_LEN);
	t_assert_ack_eq(&h.ack, &T_ACK);
}

Test(pdc_hdr, encode_dispatches)
{
	struct pdc_hdr h;

	memset(&h, 0, sizeof(h));
	h.req = T_RUD_CC_REQ;
	t_check_encode(t_hdr_enc, &h, V_RUD_CC_REQ, sizeof(V_RUD_CC_REQ));
	memset(&h, 0, sizeof(h));
	h.ack = T_ACK_CCX;
	t_check_encode(t_hdr_enc, &h, V_ACK_CCX, sizeof(V_ACK_CCX));
	memset(&h, 0, sizeof(h));
	h.nack = T_NACK;
	t_check_encode(t_hdr_enc, &h, V_NACK, sizeof(V_NACK));
	memset(&h, 0, sizeof(h));
	h.ctl = T_CTL_PROBE;
	t_check_encode(t_hdr_enc, &h, V_CTL_PROBE, sizeof(V_CTL_PROBE));
	memset(&h, 0, sizeof(h));
	h.uud = T_UUD;
	t_check_encode(t_hdr_enc, &h, V_UUD, sizeof(V_UUD));
	memset(&h, 0, sizeof(h));
	h.rudi = T_RUDI_REQ;
	t_check_encode(t_hdr_enc, &h, V_RUDI_REQ, sizeof(V_RUDI_REQ));
}

Test(pdc_hdr, rejects_bad_type)
{
	uint8_t buf[T_BUF_LEN];
	struct pdc_hdr h;

	cr_assert_eq(t_decode_patched(t_hdr_dec, &h, V_ACK, sizeof(V_ACK),
				      UET_PDS_TYPE_TSS, 0, 0),
		     -EPROTONOSUPPORT);
	cr_assert_eq(t_decode_patched(t_hdr_dec, &h, V_ACK, sizeof(V_ACK), 0,
				      0, 0),
		     -EBADMSG);
	for (unsigned type = 15; type < 32; type++)
		cr_assert_eq(t_decode_patched(t_hdr_dec, &h, V_ACK,
					      sizeof(V_ACK), type, 0, 0),
			     -EBADMSG, "type %u", type);
	t_check_reserved_next_hdr(t_hdr_dec, &h, V_RUD_REQ, sizeof(V_RUD_REQ));
	cr_assert_eq(t_decode_patched(t_hdr_dec, &h, V_CTL_PROBE,
				      sizeof(V_CTL_PROBE),
				      UET_PDS_TYPE_CONTROL, 12, 0),
		     -EBADMSG);

	memset(&h, 0, sizeof(h));
	h.pro.type = 0;
	cr_assert_eq(pdc_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.pro.type = UET_PDS_TYPE_TSS;
	cr_assert_eq(pdc_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.pro.type = 15;
	cr_assert_eq(pdc_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
}

Test(pdc_hdr, rejects_truncated)
{
	struct pdc_hdr h;

	t_check_truncated(t_hdr_dec, &h, V_ROD_REQ_SYN, sizeof(V_ROD_REQ_SYN));
	t_check_truncated(t_hdr_dec, &h, V_ACK_CCX, sizeof(V_ACK_CCX));
	t_check_truncated(t_hdr_dec, &h, V_NACK_CCX, sizeof(V_NACK_CCX));
	t_check_truncated(t_hdr_dec, &h, V_CTL_PROBE, sizeof(V_CTL_PROBE));
}

/* ---- name tables (ref 2.2, 2.3, 2.6, 2.7, 2.8) --------------------------- */

struct t_name {
	uint8_t value;
	char name[24];
};

Test(pdc_names, named_values)
{
	cr_assert_str_eq(pdc_type_name(UET_PDS_TYPE_ACK_CC), "ACK_CC");
	cr_assert_str_eq(pdc_type_name(UET_PDS_TYPE_RUD_REQ), "RUD_REQ");
	cr_assert_str_eq(pdc_type_name(UET_PDS_TYPE_ROD_CC_REQ), "ROD_CC_REQ");
	cr_assert_str_eq(pdc_nack_code_name(0x04), "NO_PDC_AVAIL");
	cr_assert_str_eq(pdc_ctl_type_name(5), "CLOSE_REQ");
	cr_assert_str_eq(pdc_next_hdr_name(3), "REQUEST_STD");
	cr_assert_str_eq(pdc_cc_type_name(UET_PDS_CC_NSCC), "NSCC");
	cr_assert_str_eq(pdc_cc_type_name(UET_PDS_CC_CREDIT), "CREDIT");
}

Test(pdc_names, every_type_and_next_hdr)
{
	static const char *const types[] = {
		[2] = "RUD_REQ", [3] = "ROD_REQ", [4] = "RUDI_REQ",
		[5] = "RUDI_RESP", [6] = "UUD_REQ", [7] = "ACK",
		[8] = "ACK_CC", [9] = "ACK_CCX", [10] = "NACK",
		[11] = "CONTROL", [12] = "NACK_CCX", [13] = "RUD_CC_REQ",
		[14] = "ROD_CC_REQ",
	};
	static const char *const nhs[] = {
		"NONE", "REQUEST_SMALL", "REQUEST_MEDIUM", "REQUEST_STD",
		"RESPONSE", "RESPONSE_DATA", "RESPONSE_DATA_SMALL",
	};

	for (unsigned t = 2; t < 15; t++) {
		cr_assert_not_null(pdc_type_name(t), "type %u", t);
		cr_assert_str_eq(pdc_type_name(t), types[t]);
	}
	for (unsigned nh = 0; nh < 7; nh++) {
		cr_assert_not_null(pdc_next_hdr_name(nh), "next_hdr %u", nh);
		cr_assert_str_eq(pdc_next_hdr_name(nh), nhs[nh]);
	}
}

Test(pdc_names, unnamed_values_are_null)
{
	cr_assert_null(pdc_type_name(0));
	cr_assert_null(pdc_type_name(15));
	cr_assert_null(pdc_type_name(31));
	cr_assert_null(pdc_type_name(255));
	for (unsigned nh = 7; nh < 16; nh++)
		cr_assert_null(pdc_next_hdr_name(nh), "next_hdr %u", nh);
	cr_assert_null(pdc_next_hdr_name(255));
	cr_assert_null(pdc_nack_code_name(0x00));
	cr_assert_null(pdc_nack_code_name(0x0C));
	for (unsigned c = 0x1B; c <= 0xFC; c++)
		cr_assert_null(pdc_nack_code_name(c), "code 0x%02x", c);
	for (unsigned c = 10; c < 256; c++)
		cr_assert_null(pdc_ctl_type_name(c), "ctl_type %u", c);
	cr_assert_null(pdc_cc_type_name(2));
	cr_assert_null(pdc_cc_type_name(15));
}

/* ref 2.6: every named NACK code has its name and survives a round trip. */
ParameterizedTestParameters(pdc_names, nack_code)
{
	static struct t_name codes[] = {
		{ 0x01, "TRIMMED" }, { 0x02, "TRIMMED_LASTHOP" },
		{ 0x03, "TRIMMED_ACK" }, { 0x04, "NO_PDC_AVAIL" },
		{ 0x05, "NO_CCC_AVAIL" }, { 0x06, "NO_BITMAP" },
		{ 0x07, "NO_PKT_BUFFER" }, { 0x08, "NO_GTD_DEL_AVAIL" },
		{ 0x09, "NO_SES_MSG_AVAIL" }, { 0x0A, "NO_RESOURCE" },
		{ 0x0B, "PSN_OOR_WINDOW" }, { 0x0D, "ROD_OOO" },
		{ 0x0E, "INV_DPDCID" }, { 0x0F, "PDC_HDR_MISMATCH" },
		{ 0x10, "CLOSING" }, { 0x11, "CLOSING_IN_ERR" },
		{ 0x12, "PKT_NOT_RCVD" }, { 0x13, "GTD_RESP_UNAVAIL" },
		{ 0x14, "ACK_WITH_DATA" }, { 0x15, "INVALID_SYN" },
		{ 0x16, "PDC_MODE_MISMATCH" }, { 0x17, "NEW_START_PSN" },
		{ 0x18, "RCVD_SES_PROCG" }, { 0x19, "UNEXP_EVENT" },
		{ 0x1A, "RCVR_INFER_LOSS" }, { 0xFD, "EXP_NORMAL" },
		{ 0xFE, "EXP_ERROR" }, { 0xFF, "EXP_FATAL" },
	};

	return cr_make_param_array(struct t_name, codes,
				   sizeof(codes) / sizeof(codes[0]));
}

ParameterizedTest(struct t_name *p, pdc_names, nack_code)
{
	struct pdc_nack h = T_NACK, out;
	uint8_t buf[UET_PDS_NACK_LEN];

	cr_assert_not_null(pdc_nack_code_name(p->value), "code 0x%02x",
			   p->value);
	cr_assert_str_eq(pdc_nack_code_name(p->value), p->name);
	h.nack_code = p->value;
	cr_assert_eq(pdc_nack_encode(buf, sizeof(buf), &h), UET_PDS_NACK_LEN);
	cr_assert_eq(buf[2], p->value);
	cr_assert_eq(pdc_nack_decode(&out, buf, sizeof(buf)), UET_PDS_NACK_LEN);
	cr_assert_eq(out.nack_code, p->value);
}

/* ref 2.7: every control type has its name and survives a round trip. */
ParameterizedTestParameters(pdc_names, ctl_type)
{
	static struct t_name types[] = {
		{ 0, "NOOP" }, { 1, "ACK_REQ" }, { 2, "CLEAR" },
		{ 3, "CLEAR_REQ" }, { 4, "CLOSE" }, { 5, "CLOSE_REQ" },
		{ 6, "PROBE" }, { 7, "CREDIT" }, { 8, "CREDIT_REQ" },
		{ 9, "NEGOTIATION" },
	};

	return cr_make_param_array(struct t_name, types,
				   sizeof(types) / sizeof(types[0]));
}

ParameterizedTest(struct t_name *p, pdc_names, ctl_type)
{
	struct pdc_ctl h = T_CTL_PROBE, out;
	uint8_t buf[UET_PDS_CTL_LEN];

	cr_assert_not_null(pdc_ctl_type_name(p->value), "ctl_type %u",
			   p->value);
	cr_assert_str_eq(pdc_ctl_type_name(p->value), p->name);
	h.pro.next_hdr = p->value;
	cr_assert_eq(pdc_ctl_encode(buf, sizeof(buf), &h), UET_PDS_CTL_LEN);
	cr_assert_eq(buf[0], 0x58 | p->value >> 1);	/* type 11, ctl 10:7 */
	cr_assert_eq(buf[1], (p->value & 1) << 7 | 0x08);
	cr_assert_eq(pdc_ctl_decode(&out, buf, sizeof(buf)), UET_PDS_CTL_LEN);
	t_assert_ctl_eq(&out, &h);
}
