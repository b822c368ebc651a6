/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The seed example (seeds/uet-wre-ses-blog.txt) as wire vectors: a 16384-byte
 * UET_WRITE at Payload MTU 8192, and a 32 KiB gradient chunk (bucket 12)
 * written with header data. Each packet is a RUD request + standard SES
 * header, 56 bytes, decoded field by field and re-encoded byte for byte.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"

#define T_PKT_HDR_LEN	(UET_PDS_RUD_REQ_LEN + UET_SES_STD_HDR_LEN)
#define T_MTU		8192
#define T_RKEY		0xacce5ull	/* standard key: vendor 0, RKEY 47:0 */

/*
 * Blog figure 5-5, packet 1 of 2. The PDC is new, so the request carries SYN
 * with psn_offset 0 (ref 2.4, 2.9); start PSN 0x2A3B4C5D is our choice.
 */
static const uint8_t t_write_pkt1[T_PKT_HDR_LEN] = {
	0x11, 0x84, 0x00, 0x00,	/* RUD_REQ(2)<<11 | STD(3)<<7 | SYN; clear 0 */
	0x2A, 0x3B, 0x4C, 0x5D,	/* psn */
	0x01, 0x01, 0x00, 0x00,	/* spdcid 0x0101; SYN overlay: rsv 0, off 0 */
	0x01, 0x09, 0x00, 0x01,	/* WRITE; ver 0, rel|som; message_id 1 */
	0x00, 0x00, 0x00, 0x65,	/* ri_generation 0; job_id 101 */
	0x00, 0x02, 0x00, 0x0A,	/* pid_on_fep 2; resource_index 0x00a */
	0x00, 0x00, 0x00, 0x00,	/* buffer_offset 0 (high) */
	0x00, 0x00, 0x00, 0x00,	/* buffer_offset 0 (low) */
	0x00, 0x00, 0x00, 0x01,	/* initiator 1 */
	0x00, 0x00, 0x00, 0x00,	/* memory_key (high) */
	0x00, 0x0A, 0xCC, 0xE5,	/* memory_key: RKEY 0xacce5 */
	0x00, 0x00, 0x00, 0x00,	/* header_data (som=1, hd=0) */
	0x00, 0x00, 0x00, 0x00,	/* header_data */
	0x00, 0x00, 0x40, 0x00,	/* request_length 16384 */
};

/* Packet 2 of 2: still SYN (no ACK yet), psn_offset 1; som=0, eom=1. */
static const uint8_t t_write_pkt2[T_PKT_HDR_LEN] = {
	0x11, 0x84, 0x00, 0x00,	/* RUD_REQ | STD | SYN; clear 0 */
	0x2A, 0x3B, 0x4C, 0x5E,	/* psn = start + 1 */
	0x01, 0x01, 0x00, 0x01,	/* spdcid 0x0101; SYN overlay: off 1 */
	0x01, 0x0A, 0x00, 0x01,	/* WRITE; rel|eom; message_id 1 */
	0x00, 0x00, 0x00, 0x65,	/* ri_generation 0; job_id 101 */
	0x00, 0x02, 0x00, 0x0A,	/* pid_on_fep 2; resource_index 0x00a */
	0x00, 0x00, 0x00, 0x00,	/* buffer_offset 0 */
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01,	/* initiator 1 */
	0x00, 0x00, 0x00, 0x00,	/* memory_key */
	0x00, 0x0A, 0xCC, 0xE5,
	0x00, 0x00, 0x20, 0x00,	/* rsvd; payload_length 8192 */
	0x00, 0x00, 0x20, 0x00,	/* message_offset 8192 */
	0x00, 0x00, 0x40, 0x00,	/* request_length 16384 */
};

/*
 * The gradient chunk (blog, bucket_id 12): one SES message of four packets
 * on the now established PDC (dpdcid 0x0202), written after the first chunk
 * at buffer_offset 32768 as fi_writedata. The blog numbers the four parts
 * with message_id 1..3; we follow the spec, where every packet of a message
 * carries the same message_id (here 2, the next after the write above) and
 * message_offset tells them apart. Only the first has hd=1, header_data 12.
 */
#define T_GRAD_PKT(flags_pds, psn_lo, ses_flags, w8, w9)		\
	{								\
	0x11, 0x80 | (flags_pds), 0x00, 0x00,	/* RUD_REQ | STD */	\
	0x2A, 0x3B, 0x4C, (psn_lo),		/* psn */		\
	0x01, 0x01, 0x02, 0x02,		/* spdcid; dpdcid 0x0202 */	\
	0x01, (ses_flags), 0x00, 0x02,	/* WRITE; flags; msg id 2 */	\
	0x00, 0x00, 0x00, 0x65,		/* gen 0; job_id 101 */		\
	0x00, 0x02, 0x00, 0x0A,		/* pid 2; ri 0x00a */		\
	0x00, 0x00, 0x00, 0x00,		/* buffer_offset 32768 */	\
	0x00, 0x00, 0x80, 0x00,						\
	0x00, 0x00, 0x00, 0x01,		/* initiator 1 */		\
	0x00, 0x00, 0x00, 0x00,		/* memory_key RKEY 0xacce5 */	\
	0x00, 0x0A, 0xCC, 0xE5,						\
	w8,				/* header_data or length */	\
	w9,				/* header_data or offset */	\
	0x00, 0x00, 0x80, 0x00,		/* request_length 32768 */	\
	}
#define T_W(a, b, c, d)	a, b, c, d

static const uint8_t t_grad_pkts[4][T_PKT_HDR_LEN] = {
	/* rel|hd|som; header_data 12 */
	T_GRAD_PKT(0x00, 0x5F, 0x0D, T_W(0, 0, 0, 0), T_W(0, 0, 0, 0x0C)),
	/* rel; payload_length 8192, message_offset 8192 */
	T_GRAD_PKT(0x00, 0x60, 0x08, T_W(0, 0, 0x20, 0), T_W(0, 0, 0x20, 0)),
	/* rel; message_offset 16384 */
	T_GRAD_PKT(0x00, 0x61, 0x08, T_W(0, 0, 0x20, 0), T_W(0, 0, 0x40, 0)),
	/* rel|eom; message_offset 24576; PDS asks for an ACK (AR) */
	T_GRAD_PKT(0x08, 0x62, 0x0A, T_W(0, 0, 0x20, 0), T_W(0, 0, 0x60, 0)),
};

/* The SES header every packet of the seed shares, before per-packet fields. */
static struct ses_std_hdr t_seed_ses(uint16_t message_id, uint64_t buf_off,
				     uint32_t request_len)
{
	struct ses_std_hdr h = {
		.opcode = UET_SES_OP_WRITE,
		.f.rel = true,
		.message_id = message_id,
		.ri_generation = 0,
		.job_id = 101,
		.pid_on_fep = 2,
		.resource_index = 0x00a,
		.buffer_offset = buf_off,
		.initiator = 1,
		.memory_key = T_RKEY,
		.request_length = request_len,
	};
	return h;
}

/* Encodes |pds| + |ses| and compares with |want|, then decodes |want|. */
static void t_check_packet(const uint8_t *want, const struct pdc_req *pds,
			   const struct ses_std_hdr *ses)
{
	uint8_t out[T_PKT_HDR_LEN];
	struct pdc_req pd;
	struct ses_std_hdr sd;

	memset(out, 0xEE, sizeof(out));
	cr_assert_eq(pdc_req_encode(out, sizeof(out), pds), UET_PDS_RUD_REQ_LEN);
	cr_assert_eq(ses_std_hdr_encode(out + UET_PDS_RUD_REQ_LEN,
					sizeof(out) - UET_PDS_RUD_REQ_LEN, ses),
		     UET_SES_STD_HDR_LEN);
	for (size_t i = 0; i < sizeof(out); i++)
		cr_assert_eq(out[i], want[i], "byte %zu: got 0x%02x want 0x%02x",
			     i, out[i], want[i]);

	cr_assert_eq(pdc_req_decode(&pd, want, T_PKT_HDR_LEN),
		     UET_PDS_RUD_REQ_LEN);
	cr_assert_eq(pd.pro.type, pds->pro.type);
	cr_assert_eq(pd.pro.next_hdr, UET_PDS_NEXT_HDR_REQUEST_STD);
	cr_assert_eq(pd.pro.flags, pds->pro.flags);
	cr_assert_eq(pd.psn, pds->psn);
	cr_assert_eq(pd.spdcid, pds->spdcid);
	cr_assert_eq(pd.dpdcid, pds->dpdcid);
	cr_assert_eq(pd.psn_offset, pds->psn_offset);
	cr_assert_eq(pd.use_rsv_pdc, false);

	cr_assert_eq(ses_std_hdr_decode(&sd, want + UET_PDS_RUD_REQ_LEN,
					UET_SES_STD_HDR_LEN),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(sd.opcode, UET_SES_OP_WRITE);
	cr_assert(sd.f.rel);
	cr_assert_eq(sd.f.som, ses->f.som);
	cr_assert_eq(sd.f.eom, ses->f.eom);
	cr_assert_eq(sd.f.hd, ses->f.hd);
	cr_assert(!sd.f.dc && !sd.f.ie);
	cr_assert_eq(sd.message_id, ses->message_id);
	cr_assert_eq(sd.job_id, 101);
	cr_assert_eq(sd.pid_on_fep, 2);
	cr_assert_eq(sd.resource_index, 0x00a);
	cr_assert_eq(sd.memory_key & UET_MKEY_RKEY_MASK, T_RKEY);
	cr_assert_eq(sd.buffer_offset, ses->buffer_offset);
	cr_assert_eq(sd.header_data, ses->header_data);
	cr_assert_eq(sd.payload_length, ses->payload_length);
	cr_assert_eq(sd.message_offset, ses->message_offset);
	cr_assert_eq(sd.request_length, ses->request_length);
}

Test(seed, write_16k_two_packets_at_mtu_8192)
{
	struct pdc_req pds = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
			 UET_PDS_F_REQ_SYN },
		.psn = 0x2A3B4C5D,
		.spdcid = 0x0101,
		.psn_offset = 0,
	};
	struct ses_std_hdr ses = t_seed_ses(1, 0, 16384);

	ses.f.som = true;
	t_check_packet(t_write_pkt1, &pds, &ses);

	pds.psn++;
	pds.psn_offset = 1;
	ses.f.som = false;
	ses.f.eom = true;
	ses.payload_length = T_MTU;
	ses.message_offset = T_MTU;
	t_check_packet(t_write_pkt2, &pds, &ses);
}

/* Target view: each packet lands at buffer_offset + message_offset. */
Test(seed, write_16k_places_at_0_and_8192)
{
	const uint8_t *pkts[] = { t_write_pkt1, t_write_pkt2 };
	uint64_t want_at[] = { 0, 8192 };

	for (int i = 0; i < 2; i++) {
		struct ses_std_hdr h;

		cr_assert_eq(ses_std_hdr_decode(&h, pkts[i] + 12, 44), 44);
		cr_assert_eq(h.buffer_offset + h.message_offset, want_at[i]);
		/* som packets imply offset 0 and a full-MTU payload here */
		cr_assert_eq(h.f.som ? T_MTU : h.payload_length, T_MTU);
	}
}

Test(seed, gradient_chunk_header_data_on_first_packet_only)
{
	uint32_t total = 0;

	for (int i = 0; i < 4; i++) {
		struct pdc_req pds = {
			.pro = { UET_PDS_TYPE_RUD_REQ,
				 UET_PDS_NEXT_HDR_REQUEST_STD,
				 i == 3 ? UET_PDS_F_REQ_AR : 0 },
			.psn = 0x2A3B4C5F + (uint32_t)i,
			.spdcid = 0x0101,
			.dpdcid = 0x0202,
		};
		struct ses_std_hdr ses = t_seed_ses(2, 32768, 32768);
		struct ses_std_hdr got;

		ses.f.som = i == 0;
		ses.f.eom = i == 3;
		ses.f.hd = i == 0;
		ses.header_data = i == 0 ? 12 : 0;
		ses.payload_length = i == 0 ? 0 : T_MTU;
		ses.message_offset = (uint32_t)i * T_MTU;
		t_check_packet(t_grad_pkts[i], &pds, &ses);

		ses_std_hdr_decode(&got, t_grad_pkts[i] + 12, 44);
		cr_assert_eq(got.f.hd, i == 0);
		cr_assert_eq(got.header_data, i == 0 ? 12u : 0u);
		cr_assert_eq(got.message_id, 2);
		total += got.f.som ? T_MTU : got.payload_length;
	}
	cr_assert_eq(total, 32768);
}
