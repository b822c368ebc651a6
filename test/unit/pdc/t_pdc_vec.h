/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDS header wire vectors from the reference (ref 2.1-2.8, WS column where
 * sources differ) and the matching host-order fixtures, for test_pdc_hdr_*.c.
 */
#ifndef T_PDC_VEC_H
#define T_PDC_VEC_H

#include <stdint.h>

#include "pdc/pdc_hdr.h"

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

#endif /* T_PDC_VEC_H */
