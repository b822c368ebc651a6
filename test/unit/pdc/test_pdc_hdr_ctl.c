/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDS header codecs (pdc/pdc_hdr.h): CONTROL, the any-header length and
 * dispatch functions, and the name tables.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <string.h>

#include "pdc/pdc_hdr.h"
#include "test/unit/pdc/t_pdc_hdr.h"
#include "test/unit/pdc/t_pdc_vec.h"

TestSuite(pdc_ctl, .timeout = 10);
TestSuite(pdc_hdr, .timeout = 10);
TestSuite(pdc_names, .timeout = 10);

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
