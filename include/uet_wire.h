/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * UET wire constants: ports, header sizes, prologue masks, type, opcode and
 * code values. Shared by the XDP program and user space, so it includes
 * nothing and defines only macros and enums.
 *
 * Facts come from ../shared/reference/uet-wire-format.md (sections cited as
 * "ref 2.4" etc.). Where sources disagree we follow the Wireshark dissector
 * (ref tag WS), as noted at each such place.
 */
#ifndef UET_WIRE_H
#define UET_WIRE_H

/* ref 1.2: IANA "Ultra Ethernet" UDP port; source port carries entropy. */
#define UET_UDP_PORT			4793

/* ref 1.5: Payload MTU, SES payload bytes in a full packet. */
#define UET_PAYLOAD_MTU_MIN		1024
#define UET_PAYLOAD_MTU_MAX		8192

/*
 * X-macro lists: one list gives both the enum and its name table
 * (X(NAME, value)). Users define X to expand as they need.
 */

/* ref 2.2: PDS header type, prologue bits 15:11. */
#define UET_PDS_TYPE_LIST(X)						\
	X(TSS, 1)							\
	X(RUD_REQ, 2)							\
	X(ROD_REQ, 3)							\
	X(RUDI_REQ, 4)							\
	X(RUDI_RESP, 5)							\
	X(UUD_REQ, 6)							\
	X(ACK, 7)							\
	X(ACK_CC, 8)							\
	X(ACK_CCX, 9)							\
	X(NACK, 10)							\
	X(CONTROL, 11)							\
	X(NACK_CCX, 12)							\
	X(RUD_CC_REQ, 13)						\
	X(ROD_CC_REQ, 14)

/* ref 2.3: next_hdr, prologue bits 10:7: which SES header follows. */
#define UET_PDS_NEXT_HDR_LIST(X)					\
	X(NONE, 0)							\
	X(REQUEST_SMALL, 1)						\
	X(REQUEST_MEDIUM, 2)						\
	X(REQUEST_STD, 3)						\
	X(RESPONSE, 4)							\
	X(RESPONSE_DATA, 5)						\
	X(RESPONSE_DATA_SMALL, 6)

/* ref 2.6: NACK codes. */
#define UET_PDS_NACK_CODE_LIST(X)					\
	X(TRIMMED, 0x01)						\
	X(TRIMMED_LASTHOP, 0x02)					\
	X(TRIMMED_ACK, 0x03)						\
	X(NO_PDC_AVAIL, 0x04)						\
	X(NO_CCC_AVAIL, 0x05)						\
	X(NO_BITMAP, 0x06)						\
	X(NO_PKT_BUFFER, 0x07)						\
	X(NO_GTD_DEL_AVAIL, 0x08)					\
	X(NO_SES_MSG_AVAIL, 0x09)					\
	X(NO_RESOURCE, 0x0A)						\
	X(PSN_OOR_WINDOW, 0x0B)						\
	X(ROD_OOO, 0x0D)						\
	X(INV_DPDCID, 0x0E)						\
	X(PDC_HDR_MISMATCH, 0x0F)					\
	X(CLOSING, 0x10)						\
	X(CLOSING_IN_ERR, 0x11)						\
	X(PKT_NOT_RCVD, 0x12)						\
	X(GTD_RESP_UNAVAIL, 0x13)					\
	X(ACK_WITH_DATA, 0x14)						\
	X(INVALID_SYN, 0x15)						\
	X(PDC_MODE_MISMATCH, 0x16)					\
	X(NEW_START_PSN, 0x17)						\
	X(RCVD_SES_PROCG, 0x18)						\
	X(UNEXP_EVENT, 0x19)						\
	X(RCVR_INFER_LOSS, 0x1A)					\
	X(EXP_NORMAL, 0xFD)						\
	X(EXP_ERROR, 0xFE)						\
	X(EXP_FATAL, 0xFF)

/* ref 2.7: control packet types, carried in the next_hdr slot. */
#define UET_PDS_CTL_TYPE_LIST(X)					\
	X(NOOP, 0)							\
	X(ACK_REQ, 1)							\
	X(CLEAR, 2)							\
	X(CLEAR_REQ, 3)							\
	X(CLOSE, 4)							\
	X(CLOSE_REQ, 5)							\
	X(PROBE, 6)							\
	X(CREDIT, 7)							\
	X(CREDIT_REQ, 8)						\
	X(NEGOTIATION, 9)

/* ref 2.8: cc_type of ACK_CC. */
#define UET_PDS_CC_TYPE_LIST(X)						\
	X(NSCC, 0)							\
	X(CREDIT, 1)

/* ref 3.2: SES request opcodes (0x10-0x2F reserved, 0x30-0x3F vendor). */
#define UET_SES_OPCODE_LIST(X)						\
	X(NO_OP, 0x00)							\
	X(WRITE, 0x01)							\
	X(READ, 0x02)							\
	X(ATOMIC, 0x03)							\
	X(FETCHING_ATOMIC, 0x04)					\
	X(SEND, 0x05)							\
	X(RENDEZVOUS_SEND, 0x06)					\
	X(DATAGRAM_SEND, 0x07)						\
	X(DEFERRABLE_SEND, 0x08)					\
	X(TAGGED_SEND, 0x09)						\
	X(RENDEZVOUS_TSEND, 0x0A)					\
	X(DEFERRABLE_TSEND, 0x0B)					\
	X(DEFERRABLE_RTR, 0x0C)						\
	X(TSEND_ATOMIC, 0x0D)						\
	X(TSEND_FETCH_ATOMIC, 0x0E)					\
	X(MSG_ERROR, 0x0F)

/*
 * Our vendor request opcodes (ref 3.2 leaves 0x30-0x3E to vendors): remote
 * memory operations the target executes (seeds/doca-urom-rdmo.txt), each
 * with an extension header of ours after the standard header (sizes
 * below, layouts in ses/ses_hdr.h and fi_uet(7)).
 */
#define UET_SES_RDMO_OPCODE_LIST(X)					\
	X(RDMO_APPEND, 0x30)						\
	X(RDMO_SCATTER, 0x31)						\
	X(RDMO_FLUSH, 0x32)

/* ref 3.5: SES response opcodes (0x30-0x3F vendor). */
#define UET_SES_RSP_OPCODE_LIST(X)					\
	X(DEFAULT_RESPONSE, 0x00)					\
	X(RESPONSE, 0x01)						\
	X(RESPONSE_W_DATA, 0x02)					\
	X(NO_RESPONSE, 0x03)

/* ref 3.5: SES return codes (0x30-0x37 vendor, 0x3E escape). */
#define UET_SES_RC_LIST(X)						\
	X(NULL, 0x00)							\
	X(OK, 0x01)							\
	X(BAD_GENERATION, 0x02)						\
	X(DISABLED, 0x03)						\
	X(DISABLED_GEN, 0x04)						\
	X(NO_MATCH, 0x05)						\
	X(UNSUPPORTED_OP, 0x06)						\
	X(UNSUPPORTED_SIZE, 0x07)					\
	X(AT_INVALID, 0x08)						\
	X(AT_PERM, 0x09)						\
	X(AT_ATS_ERROR, 0x0A)						\
	X(AT_NO_TRANS, 0x0B)						\
	X(AT_OUT_OF_RANGE, 0x0C)					\
	X(HOST_POISONED, 0x0D)						\
	X(HOST_UNSUCCESS_CMPL, 0x0E)					\
	X(AMO_UNSUPPORTED_OP, 0x0F)					\
	X(AMO_UNSUPPORTED_DT, 0x10)					\
	X(AMO_UNSUPPORTED_SIZE, 0x11)					\
	X(AMO_UNALIGNED, 0x12)						\
	X(AMO_FP_NAN, 0x13)						\
	X(AMO_FP_UNDERFLOW, 0x14)					\
	X(AMO_FP_OVERFLOW, 0x15)					\
	X(AMO_FP_INEXACT, 0x16)						\
	X(PERM_VIOLATION, 0x17)						\
	X(OP_VIOLATION, 0x18)						\
	X(BAD_INDEX, 0x19)						\
	X(BAD_PID, 0x1A)						\
	X(BAD_JOB_ID, 0x1B)						\
	X(BAD_MKEY, 0x1C)						\
	X(BAD_ADDR, 0x1D)						\
	X(CANCELLED, 0x1E)						\
	X(UNDELIVERABLE, 0x1F)						\
	X(UNCOR, 0x20)							\
	X(UNCOR_TRNSNT, 0x21)						\
	X(TOO_LONG, 0x22)						\
	X(INITIATOR_ERR, 0x23)						\
	X(DROPPED, 0x24)

/* ref 3.4: atomic opcodes (0xE0-0xFE vendor). */
#define UET_SES_AMO_OP_LIST(X)						\
	X(MIN, 0x00)							\
	X(MAX, 0x01)							\
	X(SUM, 0x02)							\
	X(DIFF, 0x03)							\
	X(PROD, 0x04)							\
	X(LOR, 0x05)							\
	X(LAND, 0x06)							\
	X(BOR, 0x07)							\
	X(BAND, 0x08)							\
	X(LXOR, 0x09)							\
	X(BXOR, 0x0A)							\
	X(READ, 0x0B)							\
	X(WRITE, 0x0C)							\
	X(CSWAP, 0x0D)							\
	X(CSWAP_NE, 0x0E)						\
	X(CSWAP_LE, 0x0F)						\
	X(CSWAP_LT, 0x10)						\
	X(CSWAP_GE, 0x11)						\
	X(CSWAP_GT, 0x12)						\
	X(MSWAP, 0x13)							\
	X(INVAL, 0x14)

/* ref 3.4: atomic datatypes. */
#define UET_SES_AMO_DT_LIST(X)						\
	X(INT8, 0x00)							\
	X(UINT8, 0x01)							\
	X(INT16, 0x02)							\
	X(UINT16, 0x03)							\
	X(INT32, 0x04)							\
	X(UINT32, 0x05)							\
	X(INT64, 0x06)							\
	X(UINT64, 0x07)							\
	X(INT128, 0x08)							\
	X(UINT128, 0x09)						\
	X(FLOAT, 0x0A)							\
	X(DOUBLE, 0x0B)							\
	X(FLOAT_COMPLEX, 0x0C)						\
	X(DOUBLE_COMPLEX, 0x0D)						\
	X(LONG_DOUBLE, 0x0E)						\
	X(LONG_DOUBLE_COMPLEX, 0x0F)					\
	X(BF16, 0x10)							\
	X(FP16, 0x11)

#define UET_PDS_TYPE_ENUM(n, v)		UET_PDS_TYPE_##n = v,
#define UET_PDS_NEXT_HDR_ENUM(n, v)	UET_PDS_NEXT_HDR_##n = v,
#define UET_PDS_NACK_ENUM(n, v)		UET_PDS_NACK_##n = v,
#define UET_PDS_CTL_ENUM(n, v)		UET_PDS_CTL_##n = v,
#define UET_PDS_CC_ENUM(n, v)		UET_PDS_CC_##n = v,
#define UET_SES_OPCODE_ENUM(n, v)	UET_SES_OP_##n = v,
#define UET_SES_RSP_OPCODE_ENUM(n, v)	UET_SES_RSP_##n = v,
#define UET_SES_RC_ENUM(n, v)		UET_SES_RC_##n = v,
#define UET_SES_AMO_OP_ENUM(n, v)	UET_SES_AMO_##n = v,
#define UET_SES_AMO_DT_ENUM(n, v)	UET_SES_AMO_DT_##n = v,

enum uet_pds_type { UET_PDS_TYPE_LIST(UET_PDS_TYPE_ENUM) };
enum uet_pds_next_hdr { UET_PDS_NEXT_HDR_LIST(UET_PDS_NEXT_HDR_ENUM) };
enum uet_pds_nack_code { UET_PDS_NACK_CODE_LIST(UET_PDS_NACK_ENUM) };
enum uet_pds_ctl_type { UET_PDS_CTL_TYPE_LIST(UET_PDS_CTL_ENUM) };
enum uet_pds_cc_type { UET_PDS_CC_TYPE_LIST(UET_PDS_CC_ENUM) };
enum uet_ses_opcode { UET_SES_OPCODE_LIST(UET_SES_OPCODE_ENUM)
		      UET_SES_RDMO_OPCODE_LIST(UET_SES_OPCODE_ENUM) };
enum uet_ses_rsp_opcode { UET_SES_RSP_OPCODE_LIST(UET_SES_RSP_OPCODE_ENUM) };
enum uet_ses_rc { UET_SES_RC_LIST(UET_SES_RC_ENUM) };
enum uet_ses_amo_op { UET_SES_AMO_OP_LIST(UET_SES_AMO_OP_ENUM) };
enum uet_ses_amo_dt { UET_SES_AMO_DT_LIST(UET_SES_AMO_DT_ENUM) };

/* Ranges the lists above do not name (ref 3.2, 3.4, 3.5). */
#define UET_SES_OP_VENDOR_FIRST		0x30
#define UET_SES_OP_VENDOR_LAST		0x3F	/* 0x3F: extended-opcode escape */
#define UET_SES_RSP_VENDOR_FIRST	0x30
#define UET_SES_RSP_VENDOR_LAST		0x3F
#define UET_SES_RC_VENDOR_FIRST		0x30
#define UET_SES_RC_VENDOR_LAST		0x37
#define UET_SES_RC_EXTENDED		0x3E
#define UET_SES_AMO_VENDOR_FIRST	0xE0
#define UET_SES_AMO_VENDOR_LAST		0xFE

/*
 * ref 2.1: the 16-bit PDS prologue: type 15:11, next_hdr (or ctl_type)
 * 10:7, flags 6:0.
 */
#define UET_PDS_PROLOGUE_LEN		2
#define UET_PDS_TYPE_SHIFT		11
#define UET_PDS_TYPE_MASK		0x1Fu
#define UET_PDS_NEXT_HDR_SHIFT		7
#define UET_PDS_NEXT_HDR_MASK		0x0Fu
#define UET_PDS_FLAGS_MASK		0x7Fu

/* ref 2.2 and 2.4: PDS header lengths (ACK_CCX, NACK_CCX per WS). */
#define UET_PDS_RUD_REQ_LEN		12	/* also ROD */
#define UET_PDS_CC_REQ_LEN		16	/* RUD_CC, ROD_CC */
#define UET_PDS_RUDI_LEN		8	/* request and response */
#define UET_PDS_UUD_LEN			4
#define UET_PDS_ACK_LEN			12
#define UET_PDS_ACK_CC_LEN		32
#define UET_PDS_ACK_CCX_LEN		40
#define UET_PDS_NACK_LEN		16
#define UET_PDS_NACK_CCX_LEN		32
#define UET_PDS_CTL_LEN			16
#define UET_PDS_HDR_MAX_LEN		40

/* ref 2.5: flag bits, as seen in the 7-bit flags field. */
#define UET_PDS_F_REQ_RETX		0x10
#define UET_PDS_F_REQ_AR		0x08
#define UET_PDS_F_REQ_SYN		0x04
#define UET_PDS_F_REQ_VALID		0x1C

#define UET_PDS_F_ACK_M			0x20
#define UET_PDS_F_ACK_RETX		0x10
#define UET_PDS_F_ACK_P			0x08
#define UET_PDS_F_ACK_REQ_SHIFT		1	/* 2-bit REQ field */
#define UET_PDS_F_ACK_REQ_MASK		0x06
#define UET_PDS_F_ACK_VALID		0x3E	/* WS: 0x40 reserved (RP-H EPSN) */

/* ACK REQ field values (ref 2.5). */
#define UET_PDS_ACK_REQ_NONE		0
#define UET_PDS_ACK_REQ_CLEAR		1
#define UET_PDS_ACK_REQ_CLOSE		2

#define UET_PDS_F_NACK_M		0x20
#define UET_PDS_F_NACK_RETX		0x10
#define UET_PDS_F_NACK_NT		0x08	/* 1: RUDI, nack_psn is a pkt_id */
#define UET_PDS_F_NACK_VALID		0x38

/* WS shows 0x20 (isROD in RP-H, TH, SU) reserved in control packets. */
#define UET_PDS_F_CTL_RETX		0x10
#define UET_PDS_F_CTL_AR		0x08
#define UET_PDS_F_CTL_SYN		0x04
#define UET_PDS_F_CTL_VALID		0x1C

#define UET_PDS_F_RUDI_M		0x20	/* responses only */
#define UET_PDS_F_RUDI_RETX		0x10
#define UET_PDS_F_RUDI_REQ_VALID	0x10
#define UET_PDS_F_RUDI_RESP_VALID	0x30

/*
 * ref 2.4: SYN overlay of the dpdcid slot. WS, TH and SU put use_rsv_pdc at
 * bit 15; RP-H uses bit 12. We follow WS.
 */
#define UET_PDS_SYN_USE_RSV_PDC		0x8000u
#define UET_PDS_SYN_PSN_OFFSET_MASK	0x0FFFu

/* ref 2.8: ACK_CC cc_type nibble and the two 64-bit CC state layouts. */
#define UET_PDS_CC_TYPE_SHIFT		4
#define UET_PDS_CC_FLAGS_MASK		0x0Fu
#define UET_PDS_NSCC_SERVICE_TIME_SHIFT	48
#define UET_PDS_NSCC_RESTORE_CWND_BIT	47
#define UET_PDS_NSCC_CWND_PENALTY_SHIFT	40
#define UET_PDS_NSCC_CWND_PENALTY_MASK	0x7Fu
#define UET_PDS_NSCC_RCVD_BYTES_SHIFT	16
#define UET_PDS_NSCC_RCVD_BYTES_MAX	0xFFFFFFu
#define UET_PDS_NSCC_RCVD_UNIT_SHIFT	8	/* units of 256 bytes (xdp2) */
#define UET_PDS_NSCC_SERVICE_TIME_NS	128	/* unit of service_time */
#define UET_PDS_NSCC_SERVICE_TIME_NONE	0xFFFFu	/* ours: no time to give */
#define UET_PDS_CREDIT_SHIFT		40
#define UET_PDS_CC_OOO_MASK		0xFFFFu
#define UET_PDS_CCX_STATE_LEN		16
#define UET_PDS_NCCX_STATE_LEN		16

/*
 * IP traffic class of UET frames (UE 1.0 3.6.17): requests are marked
 * trimmable, and a switch that trims one rewrites its DSCP to TRIMMED, or
 * TRIMMED_LASTHOP at the last hop. The spec leaves the code points to the
 * operator; these are our defaults (FI_UET_DSCP_*). Every frame is
 * ECN-capable, ECT(0).
 */
#define UET_DSCP_TRIMMABLE		10	/* AF11 */
#define UET_DSCP_TRIMMED		46	/* EF: forwarded first */
#define UET_DSCP_TRIMMED_LASTHOP	44
#define UET_DSCP_CONTROL		0	/* ACKs, NACKs, control: CS0 */
#define UET_IP_ECT0			0x02
#define UET_IP_CE			0x03

/* ref 3.1: SES standard request header. */
#define UET_SES_STD_HDR_LEN		44
#define UET_SES_SMALL_HDR_LEN		20
#define UET_SES_MEDIUM_HDR_LEN		32
#define UET_SES_VERSION			0
#define UET_SES_OPCODE_MASK		0x3Fu
#define UET_SES_VERSION_SHIFT		6
#define UET_SES_F_DC			0x20
#define UET_SES_F_IE			0x10
#define UET_SES_F_REL			0x08
#define UET_SES_F_HD			0x04
#define UET_SES_F_EOM			0x02
#define UET_SES_F_SOM			0x01
#define UET_SES_JOB_ID_MAX		0xFFFFFFu	/* 24 bits */
#define UET_SES_PID_ON_FEP_MAX		0x0FFFu		/* 12 bits */
#define UET_SES_RI_MAX			0x0FFFu		/* 12 bits */
#define UET_SES_PAYLOAD_LEN_MAX		0x3FFFu		/* 14 bits */
#define UET_SES_SMALL_REQ_LEN_MAX	0x3FFFu		/* 14 bits */

/* ref 3.4: SES extension headers. */
#define UET_SES_ATOMIC_EXT_LEN		4
#define UET_SES_CAS_EXT_LEN		36
#define UET_SES_CAS_OPERAND_LEN		16
#define UET_SES_RDV_EXT_LEN		24
#define UET_SES_AMO_CTL_CACHEABLE	0x01
#define UET_SES_AMO_CTL_CPU_COHERENT	0x02
#define UET_SES_AMO_CTL_VALID		0x03
/* WS: rendezvous PID is 14 bits (RP-H, TH: 12 bits); we follow WS. */
#define UET_SES_RDV_PID_MAX		0x3FFFu

/* Ours (vendor opcodes above): the RDMO extension headers. */
#define UET_SES_RDMO_APPEND_EXT_LEN	32
#define UET_SES_RDMO_SCATTER_EXT_LEN	8
#define UET_SES_RDMO_FLUSH_EXT_LEN	8
#define UET_SES_RDMO_PIECE_LEN		20	/* one scatter descriptor */
#define UET_SES_RDMO_F_RESULT		0x01	/* append: answer the old
						 * pointer (RESPONSE_W_DATA) */

/* ref 3.5: SES response headers. */
#define UET_SES_RSP_LEN			12
#define UET_SES_RSP_DATA_LEN		20
#define UET_SES_RSP_DATA_SMALL_LEN	12
#define UET_SES_RSP_LIST_SHIFT		6
#define UET_SES_RC_MASK			0x3Fu

/* ref 5.4: the memory key. */
#define UET_MKEY_IDEMPOTENT_SAFE	(1ull << 63)
#define UET_MKEY_OPTIMIZED		(1ull << 62)
#define UET_MKEY_VENDOR_SHIFT		48
#define UET_MKEY_RKEY_MASK		0xFFFFFFFFFFFFull	/* 47:0 */

#endif /* UET_WIRE_H */
