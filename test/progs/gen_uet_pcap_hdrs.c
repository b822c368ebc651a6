/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gen_uet_pcap's frames 1-32: the seed example, every PDS header type and
 * SES header, malformed frames and our RDMO requests with their extension
 * headers, each built with the codecs (gen_uet_pcap.h).
 */
#include <errno.h>
#include <string.h>

#include "gen_uet_pcap.h"

/* A RUD/ROD request header; SYN requests carry |psn_offset| instead. */
struct pdc_req t_req(uint8_t type, uint8_t next_hdr, uint8_t flags,
		     uint32_t psn, uint16_t psn_offset)
{
	struct pdc_req h = {
		.pro = { type, next_hdr, flags },
		.psn = psn,
		.spdcid = T_INI_PDC,
		.dpdcid = (flags & UET_PDS_F_REQ_SYN) ? 0 : T_TGT_PDC,
		.psn_offset = psn_offset,
	};
	return h;
}

/* The standard SES header of the seed's write; callers adjust it. */
static struct ses_std_hdr t_std(uint8_t opcode, uint16_t message_id,
				uint32_t request_length)
{
	struct ses_std_hdr h = {
		.opcode = opcode,
		.f = { .rel = true, .som = true, .eom = true },
		.message_id = message_id,
		.job_id = T_JOB,
		.pid_on_fep = 2,
		.resource_index = 0x00a,
		.initiator = 1,
		.memory_key = T_RKEY,
		.request_length = request_length,
	};
	return h;
}

/*
 * Frames 1-2, the seed example: a 16384-byte UET_WRITE at Payload MTU 8192
 * on a new PDC (SYN, psn_offset 0 and 1), message_id 1 in both packets.
 */
void t_seed(struct t_gen *g)
{
	struct pdc_req pds = t_req(UET_PDS_TYPE_RUD_REQ,
				   UET_PDS_NEXT_HDR_REQUEST_STD,
				   UET_PDS_F_REQ_SYN, T_PSN, 0);
	struct ses_std_hdr ses = t_std(UET_SES_OP_WRITE, 1, 2 * T_MTU);
	struct t_pkt p = { .len = 0 };

	ses.f.eom = false;
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_fill(&p, T_MTU);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	pds.psn++;
	pds.psn_offset = 1;
	ses.f.som = false;
	ses.f.eom = true;
	ses.payload_length = T_MTU;
	ses.message_offset = T_MTU;
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_fill(&p, T_MTU);
	t_emit(g, &p, T_TO_TGT);
}

/* An ACK-family header from the target, acknowledging the seed. */
struct pdc_ack t_ack(uint8_t type, uint8_t next_hdr, uint8_t flags)
{
	struct pdc_ack h = {
		.pro = { type, next_hdr, flags },
		.cack_psn = T_PSN + 1,
		.spdcid = T_TGT_PDC,
		.dpdcid = T_INI_PDC,
	};
	return h;
}

/*
 * Frame 3: the seed's ACK_CC (NSCC state, SACK bitmap) carrying the
 * write's RESPONSE. Frames 4-6: ACK (REQ=CLEAR) with RESPONSE_DATA of a
 * read; ACK_CC (credit state, probe) with RESPONSE_DATA_SMALL; ACK_CCX with
 * a default response.
 */
void t_acks(struct t_gen *g)
{
	struct pdc_ack a = t_ack(UET_PDS_TYPE_ACK_CC,
				 UET_PDS_NEXT_HDR_RESPONSE, 0);
	struct ses_rsp_hdr r = {
		.opcode = UET_SES_RSP_RESPONSE, .return_code = UET_SES_RC_OK,
		.message_id = 1, .job_id = T_JOB, .modified_length = 2 * T_MTU,
	};
	struct ses_rsp_data_hdr rd = {
		.opcode = UET_SES_RSP_RESPONSE_W_DATA,
		.return_code = UET_SES_RC_OK, .message_id = 7, .job_id = T_JOB,
		.read_request_message_id = 7, .payload_length = 64,
		.modified_length = 64, .message_offset = 0,
	};
	struct ses_rsp_data_small_hdr rs = {
		.opcode = UET_SES_RSP_RESPONSE_W_DATA,
		.return_code = UET_SES_RC_OK, .payload_length = 8,
		.job_id = T_JOB, .original_request_psn = T_PSN + 9,
	};
	struct t_pkt p = { .len = 0 };

	a.cc_type = UET_PDS_CC_NSCC;
	a.mpr = 8;
	a.sack_psn_offset = 2;
	a.sack_bitmap = 0x8000000000000005ull;
	a.cc.nscc = (struct pdc_nscc_state){ .service_time = 0x1234,
		.restore_cwnd = true, .rcv_cwnd_penalty = 5,
		.rcvd_bytes = 2 * T_MTU, .ooo_count = 0 };
	T_PUT(g, &p, pdc_ack_encode, &a);
	T_PUT(g, &p, ses_rsp_hdr_encode, &r);
	t_emit(g, &p, T_TO_INI);

	p.len = 0;
	a = t_ack(UET_PDS_TYPE_ACK, UET_PDS_NEXT_HDR_RESPONSE_DATA,
		  UET_PDS_ACK_REQ_CLEAR << UET_PDS_F_ACK_REQ_SHIFT);
	a.ack_psn_offset = -1;
	T_PUT(g, &p, pdc_ack_encode, &a);
	T_PUT(g, &p, ses_rsp_data_hdr_encode, &rd);
	t_fill(&p, 64);
	t_emit(g, &p, T_TO_INI);

	p.len = 0;
	a = t_ack(UET_PDS_TYPE_ACK_CC, UET_PDS_NEXT_HDR_RESPONSE_DATA_SMALL,
		  UET_PDS_F_ACK_P);
	a.probe_opaque = 0xBEEF;
	a.cc_type = UET_PDS_CC_CREDIT;
	a.cc.credit = (struct pdc_credit_state){ .credit = 65536,
						 .ooo_count = 3 };
	T_PUT(g, &p, pdc_ack_encode, &a);
	T_PUT(g, &p, ses_rsp_data_small_hdr_encode, &rs);
	t_fill(&p, 8);
	t_emit(g, &p, T_TO_INI);

	p.len = 0;
	a = t_ack(UET_PDS_TYPE_ACK_CCX, UET_PDS_NEXT_HDR_RESPONSE,
		  UET_PDS_F_ACK_M);
	memset(a.ccx_state, 0x5C, sizeof(a.ccx_state));
	r.opcode = UET_SES_RSP_DEFAULT_RESPONSE;
	T_PUT(g, &p, pdc_ack_encode, &a);
	T_PUT(g, &p, ses_rsp_hdr_encode, &r);
	t_emit(g, &p, T_TO_INI);
}

/*
 * Frames 7-10: NACK (NO_PDC_AVAIL), NACK_CCX (RUDI, RCVR_INFER_LOSS),
 * CONTROL CLOSE and CONTROL PROBE with the SYN overlay.
 */
void t_nacks_ctl(struct t_gen *g)
{
	struct pdc_nack n = {
		.pro = { UET_PDS_TYPE_NACK, UET_PDS_NEXT_HDR_NONE,
			 UET_PDS_F_NACK_RETX },
		.nack_code = UET_PDS_NACK_NO_PDC_AVAIL, .nack_psn = T_PSN + 2,
		.spdcid = T_TGT_PDC, .dpdcid = T_INI_PDC, .payload = T_PSN + 3,
	};
	struct pdc_ctl c = {
		.pro = { UET_PDS_TYPE_CONTROL, UET_PDS_CTL_CLOSE,
			 UET_PDS_F_CTL_AR },
		.psn = T_PSN + 4, .spdcid = T_INI_PDC, .dpdcid = T_TGT_PDC,
	};
	struct t_pkt p = { .len = 0 };

	T_PUT(g, &p, pdc_nack_encode, &n);
	t_emit(g, &p, T_TO_INI);

	p.len = 0;
	n.pro = (struct pdc_prologue){ UET_PDS_TYPE_NACK_CCX,
				       UET_PDS_NEXT_HDR_NONE, UET_PDS_F_NACK_NT };
	n.nack_code = UET_PDS_NACK_RCVR_INFER_LOSS;
	n.nack_psn = 0x00C0FFEE;		/* a RUDI pkt_id */
	n.spdcid = n.dpdcid = 0;
	n.nccx_type = 2;
	memset(n.nccx_state, 0x3C, sizeof(n.nccx_state));
	T_PUT(g, &p, pdc_nack_encode, &n);
	t_emit(g, &p, T_TO_INI);

	p.len = 0;
	T_PUT(g, &p, pdc_ctl_encode, &c);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	c.pro.next_hdr = UET_PDS_CTL_PROBE;
	c.pro.flags = UET_PDS_F_CTL_SYN;
	c.probe_opaque = 0x5A5A;
	c.use_rsv_pdc = true;
	c.psn_offset = 7;
	c.payload = T_PSN;
	T_PUT(g, &p, pdc_ctl_encode, &c);
	t_emit(g, &p, T_TO_TGT);
}

/*
 * Frames 11-14: ROD_REQ with a tagged send (header data), RUD_CC_REQ with
 * a fetching atomic, ROD_CC_REQ with a compare-and-swap, RUD_REQ (SYN,
 * reserved PDC) with a rendezvous send.
 */
void t_std_requests(struct t_gen *g)
{
	struct pdc_req pds = t_req(UET_PDS_TYPE_ROD_REQ,
				   UET_PDS_NEXT_HDR_REQUEST_STD,
				   UET_PDS_F_REQ_AR, T_PSN + 10, 0);
	struct ses_std_hdr ses = t_std(UET_SES_OP_TAGGED_SEND, 2, 64);
	struct ses_atomic_ext at = { UET_SES_AMO_SUM, UET_SES_AMO_DT_UINT64,
				     UET_SES_AMO_CTL_CACHEABLE };
	struct ses_cas_ext cas = { .atomic = { UET_SES_AMO_CSWAP,
					       UET_SES_AMO_DT_UINT64, 0 } };
	struct ses_rdv_ext rdv = { .eager_length = 256, .pid_on_fep = 3,
				   .resource_index = 0x00b,
				   .read_offset = 4096,
				   .read_match_bits = 0x123456789ull };
	struct t_pkt p = { .len = 0 };

	ses.f.hd = true;
	ses.header_data = 0xC0FFEE0012345678ull;
	ses.memory_key = 0x7A67;		/* match bits: the tag */
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_fill(&p, 64);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	pds = t_req(UET_PDS_TYPE_RUD_CC_REQ, UET_PDS_NEXT_HDR_REQUEST_STD, 0,
		    T_PSN + 11, 0);
	pds.ccc_id = 3;
	pds.credit_target = 0x010000;
	ses = t_std(UET_SES_OP_FETCHING_ATOMIC, 3, 8);
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	T_PUT(g, &p, ses_atomic_ext_encode, &at);
	t_fill(&p, 8);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	pds.pro.type = UET_PDS_TYPE_ROD_CC_REQ;
	pds.psn = T_PSN + 12;
	ses.message_id = 4;
	memset(cas.compare, 0x11, sizeof(cas.compare));
	memset(cas.swap, 0x22, sizeof(cas.swap));
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	T_PUT(g, &p, ses_cas_ext_encode, &cas);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	pds = t_req(UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
		    UET_PDS_F_REQ_SYN, T_PSN + 13, 5);
	pds.use_rsv_pdc = true;
	ses = t_std(UET_SES_OP_RENDEZVOUS_SEND, 5, 65536);
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	T_PUT(g, &p, ses_rdv_ext_encode, &rdv);
	t_fill(&p, 256);
	t_emit(g, &p, T_TO_TGT);
}

/*
 * Frames 15-19: small and medium requests, RUDI request and response, and
 * a UUD datagram.
 */
void t_other_requests(struct t_gen *g)
{
	struct pdc_req pds = t_req(UET_PDS_TYPE_RUD_REQ,
				   UET_PDS_NEXT_HDR_REQUEST_SMALL, 0,
				   T_PSN + 14, 0);
	struct ses_small_hdr sm = {
		.opcode = UET_SES_OP_WRITE, .f = { .som = true, .eom = true },
		.request_length = 32, .job_id = T_JOB, .pid_on_fep = 2,
		.resource_index = 0x00a, .buffer_offset = 128,
	};
	struct ses_medium_hdr md = {
		.opcode = UET_SES_OP_SEND,
		.f = { .hd = true, .som = true, .eom = true },
		.request_length = 100, .job_id = T_JOB, .pid_on_fep = 2,
		.resource_index = 0x00c, .header_data = 42, .initiator = 1,
	};
	struct pdc_rudi rudi = {
		.pro = { UET_PDS_TYPE_RUDI_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
			 0 },
		.pkt_id = 0x00C0FFEE,
	};
	struct ses_std_hdr ses = t_std(UET_SES_OP_SEND, 6, 16);
	struct ses_rsp_hdr r = {
		.opcode = UET_SES_RSP_RESPONSE,
		.return_code = UET_SES_RC_NO_MATCH, .message_id = 6,
		.job_id = T_JOB,
	};
	struct pdc_uud uud = { .pro = { UET_PDS_TYPE_UUD_REQ,
					UET_PDS_NEXT_HDR_REQUEST_STD, 0 } };
	struct t_pkt p = { .len = 0 };

	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_small_hdr_encode, &sm);
	t_fill(&p, 32);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	pds = t_req(UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_MEDIUM,
		    UET_PDS_F_REQ_RETX, T_PSN + 15, 0);
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_medium_hdr_encode, &md);
	t_fill(&p, 100);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	T_PUT(g, &p, pdc_rudi_encode, &rudi);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_fill(&p, 16);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	rudi.pro = (struct pdc_prologue){ UET_PDS_TYPE_RUDI_RESP,
					  UET_PDS_NEXT_HDR_RESPONSE,
					  UET_PDS_F_RUDI_M };
	T_PUT(g, &p, pdc_rudi_encode, &rudi);
	T_PUT(g, &p, ses_rsp_hdr_encode, &r);
	t_emit(g, &p, T_TO_INI);

	p.len = 0;
	ses = t_std(UET_SES_OP_DATAGRAM_SEND, 0, 16);
	T_PUT(g, &p, pdc_uud_encode, &uud);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_fill(&p, 16);
	t_emit(g, &p, T_TO_TGT);
}

/*
 * Frames 20-26, malformed on purpose: a truncated PDS header, reserved PDS
 * type 15, SES version 1, a truncated SES header, reserved next_hdr 9,
 * reserved NACK code 0x0C and a one-byte datagram.
 */
void t_malformed(struct t_gen *g)
{
	struct pdc_req pds = t_req(UET_PDS_TYPE_RUD_REQ,
				   UET_PDS_NEXT_HDR_REQUEST_STD, 0,
				   T_PSN + 20, 0);
	struct ses_std_hdr ses = t_std(UET_SES_OP_WRITE, 9, 16);
	struct pdc_nack n = {
		.pro = { UET_PDS_TYPE_NACK, UET_PDS_NEXT_HDR_NONE, 0 },
		.nack_code = UET_PDS_NACK_ROD_OOO, .nack_psn = T_PSN,
	};
	struct t_pkt p = { .len = 0 };
	uint16_t pro;

	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_fill(&p, 16);
	p.len = 7;				/* PDS cut at 7 of 12 */
	t_emit(g, &p, T_TO_TGT);

	p.b[0] = (uint8_t)(15 << (UET_PDS_TYPE_SHIFT - 8) | (p.b[0] & 7));
	p.len = UET_PDS_RUD_REQ_LEN;		/* type 15: reserved */
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_fill(&p, 16);
	p.b[UET_PDS_RUD_REQ_LEN + 1] |= 1 << UET_SES_VERSION_SHIFT;
	t_emit(g, &p, T_TO_TGT);

	p.b[UET_PDS_RUD_REQ_LEN + 1] &= 0x3F;
	p.len = UET_PDS_RUD_REQ_LEN + 20;	/* SES cut at 20 of 44 */
	t_emit(g, &p, T_TO_TGT);

	pro = (uint16_t)(p.b[0] << 8 | p.b[1]);
	pro &= (uint16_t)~(UET_PDS_NEXT_HDR_MASK << UET_PDS_NEXT_HDR_SHIFT);
	pro |= 9 << UET_PDS_NEXT_HDR_SHIFT;	/* next_hdr 9: reserved */
	p.b[0] = (uint8_t)(pro >> 8);
	p.b[1] = (uint8_t)pro;
	p.len = UET_PDS_RUD_REQ_LEN;
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	T_PUT(g, &p, pdc_nack_encode, &n);
	p.b[2] = 0x0C;				/* reserved between codes */
	t_emit(g, &p, T_TO_INI);

	p.len = 1;
	t_emit(g, &p, T_TO_TGT);
}

/* Appends the RDMO extension header of |opcode| (ses_rdmo_ext_encode). */
static void t_rdmo_ext(struct t_gen *g, struct t_pkt *p, uint8_t opcode,
		       const struct ses_rdmo_ext *x)
{
	t_put(g, p, "ses_rdmo_ext_encode",
	      ses_rdmo_ext_encode(p->b + p->len, sizeof(p->b) - p->len, opcode,
				  x));
}

/* Appends |n| scatter descriptors (ses_rdmo_piece_encode). */
static void t_rdmo_pieces(struct t_gen *g, struct t_pkt *p,
			  const struct ses_rdmo_piece *pc, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (sizeof(p->b) - p->len < UET_SES_RDMO_PIECE_LEN) {
			t_put(g, p, "ses_rdmo_piece_encode", -ENOBUFS);
			return;
		}
		ses_rdmo_piece_encode(p->b + p->len, &pc[i]);
		p->len += UET_SES_RDMO_PIECE_LEN;
	}
}

/*
 * Frames 27-32, our RDMO requests: an RDMO_APPEND asking for the old
 * pointer; an RDMO_SCATTER of 3 pieces in two packets (the first with the
 * descriptors and 64 bytes of data, the second the other 76); an RDMO_FLUSH;
 * then malformed on purpose: an append's extension cut at 10 of 32 bytes,
 * and a scatter whose 3 descriptors do not fit its payload.
 */
void t_rdmo(struct t_gen *g)
{
	static const struct ses_rdmo_piece pieces[] = {
		{ .memory_key = 0xb0001, .buffer_offset = 0, .length = 16 },
		{ .memory_key = 0xb0002, .buffer_offset = 4096, .length = 24 },
		{ .memory_key = 0xb0003, .buffer_offset = 123456,
		  .length = 100 },
	};
	const size_t table = 3 * UET_SES_RDMO_PIECE_LEN;	/* 60 */
	struct pdc_req pds = t_req(UET_PDS_TYPE_RUD_REQ,
				   UET_PDS_NEXT_HDR_REQUEST_STD, 0,
				   T_PSN + 30, 0);
	struct ses_std_hdr ses = t_std(UET_SES_OP_RDMO_APPEND, 10, 64);
	struct ses_rdmo_ext x = {
		.flags = UET_SES_RDMO_F_RESULT,
		.ptr_memory_key = 0xacce6,
		.ptr_offset = 0x1238,
		.data_bias = 0x10000000040ull,
	};
	struct t_pkt p = { .len = 0 };

	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_rdmo_ext(g, &p, ses.opcode, &x);
	t_fill(&p, 64);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	pds.psn++;
	ses = t_std(UET_SES_OP_RDMO_SCATTER, 11, table + 16 + 24 + 100);
	ses.f.eom = false;
	x = (struct ses_rdmo_ext){ .piece_count = 3 };
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_rdmo_ext(g, &p, ses.opcode, &x);
	t_rdmo_pieces(g, &p, pieces, 3);
	t_fill(&p, 64);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	pds.psn++;
	ses.f.som = false;
	ses.f.eom = true;
	ses.payload_length = 76;
	ses.message_offset = (uint32_t)table + 64;
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_rdmo_ext(g, &p, ses.opcode, &x);
	t_fill(&p, 76);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	pds.psn++;
	ses = t_std(UET_SES_OP_RDMO_FLUSH, 12, 0);
	x = (struct ses_rdmo_ext){ .first_message_id = 10 };
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_rdmo_ext(g, &p, ses.opcode, &x);
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	pds.psn++;
	ses = t_std(UET_SES_OP_RDMO_APPEND, 13, 64);
	x = (struct ses_rdmo_ext){ .ptr_memory_key = 0xacce6 };
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_rdmo_ext(g, &p, ses.opcode, &x);
	p.len -= UET_SES_RDMO_APPEND_EXT_LEN - 10;	/* cut at 10 of 32 */
	t_emit(g, &p, T_TO_TGT);

	p.len = 0;
	pds.psn++;
	ses = t_std(UET_SES_OP_RDMO_SCATTER, 14, table + 40);
	x = (struct ses_rdmo_ext){ .piece_count = 3 };
	T_PUT(g, &p, pdc_req_encode, &pds);
	T_PUT(g, &p, ses_std_hdr_encode, &ses);
	t_rdmo_ext(g, &p, ses.opcode, &x);
	t_rdmo_pieces(g, &p, pieces, 2);		/* 40 of 60 bytes */
	t_emit(g, &p, T_TO_TGT);
}
