/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDS header codecs (pdc/pdc_hdr.h), acknowledgements: ACK, ACK_CC, ACK_CCX,
 * NACK and NACK_CCX, against the vectors of t_pdc_vec.h.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "pdc/pdc_hdr.h"
#include "test/unit/pdc/t_pdc_hdr.h"
#include "test/unit/pdc/t_pdc_vec.h"

TestSuite(pdc_ack, .timeout = 10);
TestSuite(pdc_nack, .timeout = 10);

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
