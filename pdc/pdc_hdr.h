/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDS header codecs: host-order structs and explicit encode/decode pairs for
 * every PDS header type (ref 2). No struct is ever overlaid on wire bytes.
 *
 * Conventions for every pair below:
 * - encode(|out|, |outlen|, |h|) writes the header and returns the bytes
 *   written, -ENOBUFS when |outlen| is too short, or -EINVAL when |h| holds a
 *   value that does not fit its field or a type the function does not encode.
 *   Reserved bits, including flag bits not defined for the type, are written
 *   as zero.
 * - decode(|h|, |in|, |inlen|) fills |h| and returns the bytes consumed,
 *   -EBADMSG when |in| is truncated or malformed (wrong or reserved type,
 *   reserved next_hdr, unknown code), or -EPROTONOSUPPORT when the prologue
 *   announces a TSS header (type 1), which we do not implement. Reserved bits
 *   are ignored on read. Trailing bytes after the header are not examined.
 */
#ifndef PDC_HDR_H
#define PDC_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet_wire.h"

/* ref 2.1: the 16-bit prologue common to every PDS header. */
struct pdc_prologue {
	uint8_t type;		/* enum uet_pds_type */
	uint8_t next_hdr;	/* enum uet_pds_next_hdr; ctl_type for CONTROL */
	uint8_t flags;		/* 7 bits; UET_PDS_F_* of the type */
};

/*
 * ref 2.4: RUD/ROD request (types 2, 3; 12 bytes) and RUD/ROD request with
 * CC state (types 13, 14; 16 bytes).
 */
struct pdc_req {
	struct pdc_prologue pro;
	int16_t clear_psn_offset;	/* CLEAR_PSN = psn + offset, <= 0 */
	uint32_t psn;
	uint16_t spdcid;		/* sender's PDC id */
	/* SYN clear: the target's PDC id. */
	uint16_t dpdcid;
	/* SYN set: the dpdcid slot holds these instead (WS: bit 15). */
	bool use_rsv_pdc;
	uint16_t psn_offset;		/* 12 bits: psn - start PSN */
	/* CC request types only. */
	uint8_t ccc_id;
	uint32_t credit_target;		/* 24 bits */
};

/* ref 2.4: RUDI request/response (types 4, 5; 8 bytes). */
struct pdc_rudi {
	struct pdc_prologue pro;
	uint32_t pkt_id;
};

/* ref 2.4: UUD request (type 6; 4 bytes; flags all zero). */
struct pdc_uud {
	struct pdc_prologue pro;
};

/* ref 2.8: the two layouts of the 64-bit ACK_CC state. */
struct pdc_nscc_state {
	uint16_t service_time;
	bool restore_cwnd;
	uint8_t rcv_cwnd_penalty;	/* 7 bits */
	uint32_t rcvd_bytes;		/* 24 bits */
	uint16_t ooo_count;
};

struct pdc_credit_state {
	uint32_t credit;		/* 24 bits */
	uint16_t ooo_count;
};

/*
 * ref 2.4: ACK (type 7; 12 bytes), ACK_CC (type 8; 32 bytes) and ACK_CCX
 * (type 9; 40 bytes per WS and RP-H, TH says 32).
 */
struct pdc_ack {
	struct pdc_prologue pro;	/* next_hdr: SES response carried */
	int16_t ack_psn_offset;		/* when flag P is clear */
	uint16_t probe_opaque;		/* when flag P is set */
	uint32_t cack_psn;		/* cumulative ACK PSN */
	uint16_t spdcid;
	uint16_t dpdcid;
	/* ACK_CC and ACK_CCX only. */
	uint8_t cc_type;		/* 4 bits; enum uet_pds_cc_type for ACK_CC */
	uint8_t cc_flags;		/* 4 bits */
	uint8_t mpr;			/* maximum PSN range */
	int16_t sack_psn_offset;	/* SACK base = cack_psn + offset */
	uint64_t sack_bitmap;		/* bit i: base + i received */
	/* ACK_CC: one of these, selected by cc_type. */
	union {
		struct pdc_nscc_state nscc;
		struct pdc_credit_state credit;
	} cc;
	/* ACK_CCX: opaque extended CC state. */
	uint8_t ccx_state[UET_PDS_CCX_STATE_LEN];
};

/* ref 2.4: NACK (type 10; 16 bytes) and NACK_CCX (type 12; 32 bytes, WS). */
struct pdc_nack {
	struct pdc_prologue pro;
	uint8_t nack_code;		/* enum uet_pds_nack_code */
	uint8_t vendor_code;
	uint32_t nack_psn;		/* pkt_id of a RUDI request when NT */
	uint16_t spdcid;
	uint16_t dpdcid;
	uint32_t payload;		/* meaning depends on nack_code */
	/* NACK_CCX only: nccx_type is the first nibble of the 16 bytes. */
	uint8_t nccx_type;		/* 4 bits */
	uint8_t nccx_state[UET_PDS_NCCX_STATE_LEN];	/* [0] low nibble only */
};

/* ref 2.4 and 2.7: control packet (type 11; 16 bytes). */
struct pdc_ctl {
	struct pdc_prologue pro;	/* next_hdr holds ctl_type */
	uint16_t probe_opaque;		/* PROBE only; else reserved */
	uint32_t psn;
	uint16_t spdcid;
	uint16_t dpdcid;		/* SYN clear */
	bool use_rsv_pdc;		/* SYN set, as in struct pdc_req */
	uint16_t psn_offset;		/* SYN set, 12 bits */
	uint32_t payload;		/* ref 2.7, per ctl_type */
};

/* Any PDS header, tagged by pro.type (see pdc_hdr_decode()). */
struct pdc_hdr {
	union {
		struct pdc_prologue pro;
		struct pdc_req req;
		struct pdc_rudi rudi;
		struct pdc_uud uud;
		struct pdc_ack ack;
		struct pdc_nack nack;
		struct pdc_ctl ctl;
	};
};

/*
 * pdc_hdr_len() returns the length of the PDS header of |type|, or -EBADMSG
 * for a type that is not a PDS header (0, TSS, 15-31).
 */
ssize_t pdc_hdr_len(uint8_t type);

/*
 * pdc_prologue_is_valid() tells whether |pro| is a PDS prologue we decode:
 * a PDS type, a next_hdr (or ctl_type) that is not reserved.
 */
bool pdc_prologue_is_valid(const struct pdc_prologue *pro);

/* The prologue alone (2 bytes); decode checks type and next_hdr. */
ssize_t pdc_prologue_encode(uint8_t *out, size_t outlen,
			    const struct pdc_prologue *pro);
ssize_t pdc_prologue_decode(struct pdc_prologue *pro, const uint8_t *in,
			    size_t inlen);

/* Types RUD_REQ, ROD_REQ, RUD_CC_REQ, ROD_CC_REQ. */
ssize_t pdc_req_encode(uint8_t *out, size_t outlen, const struct pdc_req *h);
ssize_t pdc_req_decode(struct pdc_req *h, const uint8_t *in, size_t inlen);

/* Types RUDI_REQ, RUDI_RESP. */
ssize_t pdc_rudi_encode(uint8_t *out, size_t outlen, const struct pdc_rudi *h);
ssize_t pdc_rudi_decode(struct pdc_rudi *h, const uint8_t *in, size_t inlen);

/* Type UUD_REQ. */
ssize_t pdc_uud_encode(uint8_t *out, size_t outlen, const struct pdc_uud *h);
ssize_t pdc_uud_decode(struct pdc_uud *h, const uint8_t *in, size_t inlen);

/*
 * Types ACK, ACK_CC, ACK_CCX. For ACK_CC, cc_type must be NSCC or CREDIT
 * (anything else: -EINVAL on encode, -EBADMSG on decode).
 */
ssize_t pdc_ack_encode(uint8_t *out, size_t outlen, const struct pdc_ack *h);
ssize_t pdc_ack_decode(struct pdc_ack *h, const uint8_t *in, size_t inlen);

/* Types NACK, NACK_CCX; nack_code must be a named code. */
ssize_t pdc_nack_encode(uint8_t *out, size_t outlen, const struct pdc_nack *h);
ssize_t pdc_nack_decode(struct pdc_nack *h, const uint8_t *in, size_t inlen);

/* Type CONTROL; ctl_type (pro.next_hdr) must be a named type. */
ssize_t pdc_ctl_encode(uint8_t *out, size_t outlen, const struct pdc_ctl *h);
ssize_t pdc_ctl_decode(struct pdc_ctl *h, const uint8_t *in, size_t inlen);

/* Any PDS header: dispatches on the prologue's type. */
ssize_t pdc_hdr_encode(uint8_t *out, size_t outlen, const struct pdc_hdr *h);
ssize_t pdc_hdr_decode(struct pdc_hdr *h, const uint8_t *in, size_t inlen);

/*
 * Name tables for logs and the dissector: the bare spec name of a value
 * ("RUD_REQ", "REQUEST_STD", "NO_PDC_AVAIL", "CLOSE_REQ", "NSCC"), or NULL
 * when the value has none.
 */
const char *pdc_type_name(uint8_t type);
const char *pdc_next_hdr_name(uint8_t next_hdr);
const char *pdc_nack_code_name(uint8_t code);
const char *pdc_ctl_type_name(uint8_t ctl_type);
const char *pdc_cc_type_name(uint8_t cc_type);

#endif /* PDC_HDR_H */
