/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES header codecs: host-order structs and explicit encode/decode pairs for
 * the request, extension and response headers of the Semantic Sublayer
 * (ref 3). No struct is ever overlaid on wire bytes.
 *
 * Conventions for every pair below:
 * - encode(|out|, |outlen|, |h|) returns the bytes written, -ENOBUFS when
 *   |outlen| is too short, or -EINVAL when a value does not fit its field or
 *   breaks a rule of the header (reserved opcode, hd without som, ...).
 *   Reserved bits are written as zero.
 * - decode(|h|, |in|, |inlen|) returns the bytes consumed, -EBADMSG when
 *   |in| is truncated or malformed (reserved opcode or code, rule broken), or
 *   -EPROTONOSUPPORT when the version is not 0. Reserved bits are ignored.
 *   Payload after the header is not examined.
 */
#ifndef SES_HDR_H
#define SES_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet_wire.h"

/* Flag bits of a request's second byte (ref 3.1). */
struct ses_req_flags {
	bool dc;	/* delivery complete requested */
	bool ie;	/* initiator error */
	bool rel;	/* relative addressing */
	bool hd;	/* header_data present (som packets only) */
	bool eom;	/* last packet of the message */
	bool som;	/* first packet of the message */
};

/*
 * ref 3.1: standard request header (next_hdr REQUEST_STD), 44 bytes. With
 * som set, bytes 32-39 hold header_data (meaningful when hd); with som clear
 * they hold payload_length and message_offset.
 */
struct ses_std_hdr {
	uint8_t opcode;			/* enum uet_ses_opcode */
	struct ses_req_flags f;
	uint16_t message_id;
	uint8_t ri_generation;
	uint32_t job_id;		/* 24 bits */
	uint16_t pid_on_fep;		/* 12 bits */
	uint16_t resource_index;	/* 12 bits */
	uint64_t buffer_offset;		/* bytes from the region's base */
	uint32_t initiator;
	uint64_t memory_key;		/* match_bits for tagged sends */
	uint64_t header_data;		/* som only; zero when !hd */
	uint16_t payload_length;	/* !som only; 14 bits, bytes */
	uint32_t message_offset;	/* !som only; bytes */
	uint32_t request_length;	/* whole message, bytes */
};

/*
 * ref 3.3: small request header (next_hdr REQUEST_SMALL), 20 bytes. One
 * packet messages only: som and eom must both be set, and hd is reserved.
 */
struct ses_small_hdr {
	uint8_t opcode;
	struct ses_req_flags f;
	uint16_t request_length;	/* 14 bits, bytes */
	uint8_t ri_generation;
	uint32_t job_id;
	uint16_t pid_on_fep;
	uint16_t resource_index;
	uint64_t buffer_offset;
};

/*
 * ref 3.3: medium request header (next_hdr REQUEST_MEDIUM), 32 bytes. One
 * packet messages only; bytes 12-19 hold header_data when hd, else
 * buffer_offset.
 */
struct ses_medium_hdr {
	uint8_t opcode;
	struct ses_req_flags f;
	uint16_t request_length;	/* 14 bits, bytes */
	uint8_t ri_generation;
	uint32_t job_id;
	uint16_t pid_on_fep;
	uint16_t resource_index;
	uint64_t buffer_offset;		/* when !hd */
	uint64_t header_data;		/* when hd */
	uint32_t initiator;
	uint64_t memory_key;		/* match_bits for tagged sends */
};

/* ref 3.4: atomic extension header, 4 bytes. */
struct ses_atomic_ext {
	uint8_t amo_op;			/* enum uet_ses_amo_op or vendor */
	uint8_t amo_dt;			/* enum uet_ses_amo_dt */
	uint8_t semantic_ctl;		/* UET_SES_AMO_CTL_* */
};

/*
 * ref 3.4: compare-and-swap extension header, 36 bytes: the atomic header
 * (its amo_op in CSWAP..CSWAP_GT, as WS selects it) and two 16-byte
 * operands, kept as wire bytes because their layout depends on amo_dt.
 */
struct ses_cas_ext {
	struct ses_atomic_ext atomic;
	uint8_t compare[UET_SES_CAS_OPERAND_LEN];
	uint8_t swap[UET_SES_CAS_OPERAND_LEN];
};

/*
 * ref 3.4: rendezvous extension header, 24 bytes. Follows WS: the second
 * word is reserved 2 + PID 14 | reserved 4 + RI 12 (RP-H and TH:
 * generation 8 | PID 12 | RI 12), and the last field is the read match bits
 * (RP-H: read memory key).
 */
struct ses_rdv_ext {
	uint32_t eager_length;		/* bytes sent eagerly */
	uint16_t pid_on_fep;		/* 14 bits (WS) */
	uint16_t resource_index;	/* 12 bits */
	uint64_t read_offset;
	uint64_t read_match_bits;
};

/*
 * Ours: the extension header of an RDMO request (vendor opcodes
 * RDMO_APPEND, RDMO_SCATTER, RDMO_FLUSH), on every packet of it; its
 * length and fields depend on the opcode (big-endian, reserved bytes 0):
 *
 * RDMO_APPEND, 32 bytes: flags 8 (UET_SES_RDMO_F_RESULT) | reserved 56 |
 *   ptr_memory_key 64 | ptr_offset 64 | data_bias 64. The standard header's
 *   memory_key is the data region's and its buffer_offset 0; the pointer is
 *   a uint64_t at ptr_offset in the region of ptr_memory_key, and the data
 *   goes at (old pointer - data_bias) in the data region.
 * RDMO_SCATTER, 8 bytes: piece_count 16 | reserved 48. The message starts
 *   with piece_count descriptors (struct ses_rdmo_piece, in the first
 *   packet), then the data, cut into the pieces in order.
 * RDMO_FLUSH, 8 bytes: first_message_id 16 | reserved 48: the initiator's
 *   oldest message to this target still unanswered when the flush was
 *   posted (the flush's own id when none): the target answers once every
 *   message from it up to the flush is finished.
 */
struct ses_rdmo_ext {
	uint8_t flags;			/* APPEND */
	uint64_t ptr_memory_key;	/* APPEND */
	uint64_t ptr_offset;		/* APPEND */
	uint64_t data_bias;		/* APPEND */
	uint16_t piece_count;		/* SCATTER */
	uint16_t first_message_id;	/* FLUSH */
};

/* Ours: one scatter descriptor, 20 bytes: memory_key 64 | offset 64 |
 * length 32. */
struct ses_rdmo_piece {
	uint64_t memory_key;
	uint64_t buffer_offset;
	uint32_t length;
};

/* ref 3.5: response header (next_hdr RESPONSE), 12 bytes. */
struct ses_rsp_hdr {
	uint8_t list;			/* 2 bits: 0 expected, 1 overflow */
	uint8_t opcode;			/* DEFAULT, RESPONSE, NO_RESPONSE */
	uint8_t return_code;		/* enum uet_ses_rc */
	uint16_t message_id;		/* of the request answered */
	uint8_t ri_generation;		/* target's current generation */
	uint32_t job_id;		/* 24 bits */
	uint32_t modified_length;	/* bytes placed */
};

/*
 * ref 3.5: response with data (next_hdr RESPONSE_DATA), 20 bytes + data.
 * Follows WS: byte 4 reserved, payload_length 14 bits (TH: 12).
 */
struct ses_rsp_data_hdr {
	uint8_t list;
	uint8_t opcode;			/* RESPONSE_W_DATA */
	uint8_t return_code;
	uint16_t message_id;
	uint32_t job_id;
	uint16_t read_request_message_id;
	uint16_t payload_length;	/* 14 bits, bytes */
	uint32_t modified_length;
	uint32_t message_offset;	/* bytes */
};

/*
 * ref 3.5: small response with data (next_hdr RESPONSE_DATA_SMALL), 12 bytes
 * + data. WS decodes only bytes 0-3 (which agree); RP-H and TH agree on 12
 * bytes. Byte 4 is reserved as in TH.
 */
struct ses_rsp_data_small_hdr {
	uint8_t list;
	uint8_t opcode;			/* RESPONSE_W_DATA */
	uint8_t return_code;
	uint16_t payload_length;	/* 14 bits, bytes */
	uint32_t job_id;
	uint32_t original_request_psn;
};

ssize_t ses_std_hdr_encode(uint8_t *out, size_t outlen,
			   const struct ses_std_hdr *h);
ssize_t ses_std_hdr_decode(struct ses_std_hdr *h, const uint8_t *in,
			   size_t inlen);

ssize_t ses_small_hdr_encode(uint8_t *out, size_t outlen,
			     const struct ses_small_hdr *h);
ssize_t ses_small_hdr_decode(struct ses_small_hdr *h, const uint8_t *in,
			     size_t inlen);

ssize_t ses_medium_hdr_encode(uint8_t *out, size_t outlen,
			      const struct ses_medium_hdr *h);
ssize_t ses_medium_hdr_decode(struct ses_medium_hdr *h, const uint8_t *in,
			      size_t inlen);

/* amo_op must be named or vendor, amo_dt named. */
ssize_t ses_atomic_ext_encode(uint8_t *out, size_t outlen,
			      const struct ses_atomic_ext *h);
ssize_t ses_atomic_ext_decode(struct ses_atomic_ext *h, const uint8_t *in,
			      size_t inlen);

/* As the atomic extension, and amo_op must be CSWAP..CSWAP_GT. */
ssize_t ses_cas_ext_encode(uint8_t *out, size_t outlen,
			   const struct ses_cas_ext *h);
ssize_t ses_cas_ext_decode(struct ses_cas_ext *h, const uint8_t *in,
			   size_t inlen);

ssize_t ses_rdv_ext_encode(uint8_t *out, size_t outlen,
			   const struct ses_rdv_ext *h);
ssize_t ses_rdv_ext_decode(struct ses_rdv_ext *h, const uint8_t *in,
			   size_t inlen);

/* The RDMO extension length of |opcode|, 0 for any other opcode. */
size_t ses_rdmo_ext_len(uint8_t opcode);
/* |opcode| must be an RDMO one (else -EINVAL / -EBADMSG). */
ssize_t ses_rdmo_ext_encode(uint8_t *out, size_t outlen, uint8_t opcode,
			    const struct ses_rdmo_ext *h);
ssize_t ses_rdmo_ext_decode(struct ses_rdmo_ext *h, uint8_t opcode,
			    const uint8_t *in, size_t inlen);
/* Always UET_SES_RDMO_PIECE_LEN bytes (the caller checks room). */
void ses_rdmo_piece_encode(uint8_t *out, const struct ses_rdmo_piece *p);
void ses_rdmo_piece_decode(struct ses_rdmo_piece *p, const uint8_t *in);

/* opcode must not be RESPONSE_W_DATA (that one has data headers). */
ssize_t ses_rsp_hdr_encode(uint8_t *out, size_t outlen,
			   const struct ses_rsp_hdr *h);
ssize_t ses_rsp_hdr_decode(struct ses_rsp_hdr *h, const uint8_t *in,
			   size_t inlen);

/* opcode must be RESPONSE_W_DATA. */
ssize_t ses_rsp_data_hdr_encode(uint8_t *out, size_t outlen,
				const struct ses_rsp_data_hdr *h);
ssize_t ses_rsp_data_hdr_decode(struct ses_rsp_data_hdr *h, const uint8_t *in,
				size_t inlen);

/* opcode must be RESPONSE_W_DATA. */
ssize_t ses_rsp_data_small_hdr_encode(uint8_t *out, size_t outlen,
				      const struct ses_rsp_data_small_hdr *h);
ssize_t ses_rsp_data_small_hdr_decode(struct ses_rsp_data_small_hdr *h,
				      const uint8_t *in, size_t inlen);

/* Validity of code points, as the decoders apply them. */
bool ses_opcode_is_valid(uint8_t opcode);	/* named or vendor */
bool ses_rsp_opcode_is_valid(uint8_t opcode);	/* named or vendor */
bool ses_rc_is_valid(uint8_t rc);		/* named, vendor or escape */
bool ses_amo_op_is_cswap(uint8_t amo_op);	/* CSWAP..CSWAP_GT */

/*
 * Name tables for logs and the dissector: the spec name of a value, or NULL
 * when it has none (reserved and vendor values). Return codes keep their
 * "RC_" prefix ("RC_OK"); the others are bare ("WRITE", "RESPONSE_W_DATA",
 * "CSWAP", "UINT64").
 */
const char *ses_opcode_name(uint8_t opcode);
const char *ses_rsp_opcode_name(uint8_t opcode);
const char *ses_rc_name(uint8_t rc);
const char *ses_amo_op_name(uint8_t amo_op);
const char *ses_amo_dt_name(uint8_t amo_dt);
/* Our vendor opcodes: "RDMO_APPEND", ...; NULL for the others. */
const char *ses_rdmo_opcode_name(uint8_t opcode);

#endif /* SES_HDR_H */
