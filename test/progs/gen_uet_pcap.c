/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writes a classic pcap file of hand-made UET frames for the dissector test
 * (test/e2e/e2e_dissector.sh): the seed example, every PDS header type and SES
 * header, malformed frames, our RDMO requests with their extension
 * headers, TSS-sealed frames (tss/uet_tss.h) and frames with a CRC32C
 * trailer. Usage: gen_uet_pcap FILE.pcap
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "dev/uet_frame.h"
#include "uet_wire.h"
#include "tss/uet_crc32c.h"
#include "tss/uet_tss.h"

#define T_MTU		8192			/* Payload MTU of the seed */
#define T_PKT_MAX	(UET_PDS_HDR_MAX_LEN + 128 + T_MTU)
#define T_FRAME_MAX	(UET_FRAME_HDR_MAX + T_PKT_MAX)
#define T_PSN		0x2A3B4C5Du		/* the seed's start PSN */
#define T_INI_PDC	0x0101
#define T_TGT_PDC	0x0202
#define T_JOB		101
#define T_RKEY		0xacce5ull
/* Fixed capture time, so the file is the same on every run. */
#define T_TIME_SEC	1767225600u

/* One UDP payload being built: PDS header, SES header(s), data. */
struct t_pkt {
	uint8_t b[T_PKT_MAX];
	size_t len;
};

struct t_gen {
	FILE *f;
	unsigned int frames;
	int err;
	struct uet_frame_addr ini;	/* initiator: 10.77.0.1, entropy */
	struct uet_frame_addr tgt;	/* target: 10.77.0.2, entropy */
};

enum t_dir { T_TO_TGT, T_TO_INI };

/* Records a codec's result: append its bytes, or remember the failure. */
static void t_put(struct t_gen *g, struct t_pkt *p, const char *what,
		  ssize_t n)
{
	if (n < 0) {
		fprintf(stderr, "gen_uet_pcap: frame %u: %s: %s\n",
			g->frames + 1, what, strerror((int)-n));
		g->err = 1;
		return;
	}
	p->len += (size_t)n;
}

#define T_PUT(g, p, fn, h) \
	t_put((g), (p), #fn, fn((p)->b + (p)->len, sizeof((p)->b) - (p)->len, (h)))

/* Appends |n| payload bytes; the pattern shows where data starts. */
static void t_fill(struct t_pkt *p, size_t n)
{
	for (size_t i = 0; i < n && p->len < sizeof(p->b); i++)
		p->b[p->len++] = (uint8_t)(0xA0 + i % 16);
}

static void t_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void t_le32(uint8_t *p, uint32_t v)
{
	t_le16(p, (uint16_t)v);
	t_le16(p + 2, (uint16_t)(v >> 16));
}

/* Classic pcap (not pcapng): version 2.4, Ethernet link type, our order. */
static void t_pcap_header(struct t_gen *g)
{
	uint8_t h[24] = { 0 };

	t_le32(h, 0xA1B2C3D4u);		/* magic: microsecond timestamps */
	t_le16(h + 4, 2);
	t_le16(h + 6, 4);
	t_le32(h + 16, 65535);		/* snaplen */
	t_le32(h + 20, 1);		/* LINKTYPE_ETHERNET */
	if (fwrite(h, sizeof(h), 1, g->f) != 1)
		g->err = 1;
}

/* Writes |len| bytes of |frame| as the next pcap record. */
static void t_record(struct t_gen *g, const uint8_t *frame, size_t len)
{
	uint8_t rec[16];

	g->frames++;
	t_le32(rec, T_TIME_SEC);
	t_le32(rec + 4, g->frames * 1000u);	/* 1 ms apart */
	t_le32(rec + 8, (uint32_t)len);
	t_le32(rec + 12, (uint32_t)len);
	if (fwrite(rec, sizeof(rec), 1, g->f) != 1 ||
	    fwrite(frame, len, 1, g->f) != 1)
		g->err = 1;
}

/*
 * Frames |p| in Ethernet/IPv4/UDP in direction |dir| into |frame|; returns
 * the frame's length, or 0 after recording the failure.
 */
static size_t t_frame(struct t_gen *g, uint8_t *frame, const struct t_pkt *p,
		      enum t_dir dir)
{
	struct uet_frame_addr src = dir == T_TO_TGT ? g->ini : g->tgt;
	struct uet_frame_addr dst = dir == T_TO_TGT ? g->tgt : g->ini;
	ssize_t hdr;

	dst.port = UET_UDP_PORT;
	hdr = uet_frame_encode(frame, T_FRAME_MAX, &src, &dst, p->len);
	if (hdr < 0) {
		t_put(g, NULL, "uet_frame_encode", hdr);
		return 0;
	}
	memcpy(frame + hdr, p->b, p->len);
	return (size_t)hdr + p->len;
}

/* Frames |p| in Ethernet/IPv4/UDP in direction |dir| and writes a record. */
static void t_emit(struct t_gen *g, const struct t_pkt *p, enum t_dir dir)
{
	static uint8_t frame[T_FRAME_MAX];
	size_t len = t_frame(g, frame, p, dir);

	if (len)
		t_record(g, frame, len);
}

/* A RUD/ROD request header; SYN requests carry |psn_offset| instead. */
static struct pdc_req t_req(uint8_t type, uint8_t next_hdr, uint8_t flags,
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
static void t_seed(struct t_gen *g)
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
static struct pdc_ack t_ack(uint8_t type, uint8_t next_hdr, uint8_t flags)
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
static void t_acks(struct t_gen *g)
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
static void t_nacks_ctl(struct t_gen *g)
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
static void t_std_requests(struct t_gen *g)
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
static void t_other_requests(struct t_gen *g)
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
static void t_malformed(struct t_gen *g)
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
static void t_rdmo(struct t_gen *g)
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

static int t_addr(struct uet_frame_addr *a, const char *ip, uint8_t mac_lo,
		  uint16_t entropy)
{
	const uint8_t mac[UET_ETH_ALEN] = { 0x02, 0, 0, 0, 0, mac_lo };

	memset(a, 0, sizeof(*a));
	memcpy(a->mac, mac, sizeof(mac));
	a->port = entropy;
	return inet_pton(AF_INET, ip, &a->v4) == 1 ? 0 : -1;
}

/* The same over IPv6. */
static int t_addr6(struct uet_frame_addr *a, const char *ip, uint8_t mac_lo,
		   uint16_t entropy)
{
	const uint8_t mac[UET_ETH_ALEN] = { 0x02, 0, 0, 0, 0, mac_lo };

	memset(a, 0, sizeof(*a));
	memcpy(a->mac, mac, sizeof(mac));
	a->port = entropy;
	a->is_v6 = true;
	return inet_pton(AF_INET6, ip, &a->v6) == 1 ? 0 : -1;
}

/* ---- data protection: TSS (tss/uet_tss.h), the CRC32C trailer ---------- */

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
static void t_tss(struct t_gen *g)
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
static void t_crc(struct t_gen *g)
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

int main(int argc, char **argv)
{
	struct t_gen g = { .f = NULL };

	if (argc == 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h"))) {
		printf("usage: gen_uet_pcap FILE.pcap\n"
		       "  writes hand-made UET frames (every PDS and SES "
		       "header, malformed ones,\n  our RDMO requests, TSS and "
		       "CRC32C trailers) to FILE.pcap for the\n  dissector "
		       "test\n");
		return 0;
	}
	/* A name that starts with '-' is a mistyped option, not a file. */
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: gen_uet_pcap FILE.pcap\n");
		return 2;
	}
	/* Entropy ports above 4793, so UDP offers the datagram to UET first. */
	if (t_addr(&g.ini, "10.77.0.1", 1, 0xC001) < 0 ||
	    t_addr(&g.tgt, "10.77.0.2", 2, 0xC002) < 0)
		return 1;
	g.f = fopen(argv[1], "wb");
	if (!g.f) {
		fprintf(stderr, "gen_uet_pcap: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	t_pcap_header(&g);
	t_seed(&g);
	t_acks(&g);
	t_nacks_ctl(&g);
	t_std_requests(&g);
	t_other_requests(&g);
	t_malformed(&g);
	t_rdmo(&g);
	t_tss(&g);
	t_crc(&g);
	if (fclose(g.f) != 0)
		g.err = 1;
	if (g.err) {
		fprintf(stderr, "gen_uet_pcap: %s: not written correctly\n",
			argv[1]);
		return 1;
	}
	printf("gen_uet_pcap: %u frames in %s\n", g.frames, argv[1]);
	return 0;
}
