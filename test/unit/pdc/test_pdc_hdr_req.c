/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDS header codecs (pdc/pdc_hdr.h), requests: the prologue, RUD/ROD with
 * and without CC state, RUDI and UUD, against the vectors of t_pdc_vec.h.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "pdc/pdc_hdr.h"
#include "test/unit/pdc/t_pdc_hdr.h"
#include "test/unit/pdc/t_pdc_vec.h"

TestSuite(pdc_prologue, .timeout = 10);
TestSuite(pdc_req, .timeout = 10);
TestSuite(pdc_rudi, .timeout = 10);
TestSuite(pdc_uud, .timeout = 10);

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
