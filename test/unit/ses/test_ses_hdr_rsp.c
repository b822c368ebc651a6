/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES response header codecs: RESPONSE, RESPONSE_DATA, RESPONSE_DATA_SMALL.
 * Vectors built from ../shared/reference/uet-wire-format.md section 3.5 (WS).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ses/ses_hdr.h"
#include "test/unit/ses/t_ses_hdr.h"

TestSuite(ses_rsp_hdr, .timeout = 10);
TestSuite(ses_rsp_data_hdr, .timeout = 10);
TestSuite(ses_rsp_data_small_hdr, .timeout = 10);

/* ======================================================================
 * RESPONSE (ref 3.5), 12 bytes.
 * ====================================================================== */

/* ref 3.5 common 8 bytes + RESPONSE row (modified_length). */
static const uint8_t t_rsp_vec[] = {
	0x41, 0x02, 0xBE, 0xEF, /* list 1|opcode RESPONSE; ver 0|return_code RC_BAD_GENERATION; message_id 0xBEEF */
	0x5A, 0xAB, 0xCD, 0xEF, /* ri_generation 0x5A; job_id 0xABCDEF */
	0x00, 0x01, 0x23, 0x45, /* modified_length 0x12345 */
};

static void t_rsp_fill(struct ses_rsp_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->list = 1;
	h->opcode = UET_SES_RSP_RESPONSE;
	h->return_code = UET_SES_RC_BAD_GENERATION;
	h->message_id = 0xBEEF;
	h->ri_generation = 0x5A;
	h->job_id = 0xABCDEF;
	h->modified_length = 0x12345;
}

static void t_rsp_assert_eq(const struct ses_rsp_hdr *got,
			    const struct ses_rsp_hdr *want)
{
	cr_assert_eq(got->list, want->list);
	cr_assert_eq(got->opcode, want->opcode);
	cr_assert_eq(got->return_code, want->return_code);
	cr_assert_eq(got->message_id, want->message_id);
	cr_assert_eq(got->ri_generation, want->ri_generation);
	cr_assert_eq(got->job_id, want->job_id);
	cr_assert_eq(got->modified_length, want->modified_length);
}

Test(ses_rsp_hdr, decodes_vector)
{
	struct ses_rsp_hdr h;

	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_rsp_hdr_decode(&h, t_rsp_vec, sizeof(t_rsp_vec)),
		     UET_SES_RSP_LEN);
	cr_assert_eq(h.list, 1);
	cr_assert_eq(h.opcode, 0x01);
	cr_assert_eq(h.return_code, 0x02);
	cr_assert_eq(h.message_id, 0xBEEF);
	cr_assert_eq(h.ri_generation, 0x5A);
	cr_assert_eq(h.job_id, 0xABCDEF);
	cr_assert_eq(h.modified_length, 0x12345);
}

Test(ses_rsp_hdr, encodes_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_hdr h;

	t_rsp_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_rsp_hdr_encode(buf, sizeof(buf), &h), buf,
			 t_rsp_vec, sizeof(t_rsp_vec));
}

Test(ses_rsp_hdr, rejects_short_output)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_hdr h;

	t_rsp_fill(&h);
	cr_assert_eq(ses_rsp_hdr_encode(buf, UET_SES_RSP_LEN - 1, &h),
		     -ENOBUFS);
	cr_assert_eq(ses_rsp_hdr_encode(buf, 0, &h), -ENOBUFS);
}

Test(ses_rsp_hdr, round_trips)
{
	static const uint8_t ops[] = { 0x00, 0x01, 0x03 };
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_hdr in, out;

	t_rsp_fill(&in);
	for (size_t i = 0; i < sizeof(ops); i++) {
		in.opcode = ops[i];
		in.list = (uint8_t)i;
		cr_assert_eq(ses_rsp_hdr_encode(buf, sizeof(buf), &in),
			     UET_SES_RSP_LEN, "opcode 0x%02x", ops[i]);
		cr_assert_eq(ses_rsp_hdr_decode(&out, buf, UET_SES_RSP_LEN),
			     UET_SES_RSP_LEN, "opcode 0x%02x", ops[i]);
		t_rsp_assert_eq(&out, &in);
	}
	/* Vendor list value 3 (TH), largest job_id, last named code. */
	in.list = 3;
	in.job_id = UET_SES_JOB_ID_MAX;
	in.return_code = UET_SES_RC_DROPPED;
	cr_assert_eq(ses_rsp_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_RSP_LEN);
	cr_assert_eq(buf[0], 0xC3);
	cr_assert_eq(ses_rsp_hdr_decode(&out, buf, UET_SES_RSP_LEN),
		     UET_SES_RSP_LEN);
	t_rsp_assert_eq(&out, &in);
}

Test(ses_rsp_hdr, rejects_truncated)
{
	T_ASSERT_TRUNCATED(ses_rsp_hdr_decode, struct ses_rsp_hdr, t_rsp_vec);
}

Test(ses_rsp_hdr, rejects_bad_version)
{
	uint8_t v[sizeof(t_rsp_vec)];
	struct ses_rsp_hdr h;

	for (unsigned int ver = 1; ver < 4; ver++) {
		memcpy(v, t_rsp_vec, sizeof(v));
		v[1] |= (uint8_t)(ver << 6);
		cr_assert_eq(ses_rsp_hdr_decode(&h, v, sizeof(v)),
			     -EPROTONOSUPPORT, "version %u", ver);
	}
}

Test(ses_rsp_hdr, rejects_reserved_opcode)
{
	uint8_t v[sizeof(t_rsp_vec)];
	struct ses_rsp_hdr h;

	for (unsigned int op = 0x04; op <= 0x2F; op++) {
		memcpy(v, t_rsp_vec, sizeof(v));
		v[0] = (uint8_t)(0x40 | op);
		cr_assert_eq(ses_rsp_hdr_decode(&h, v, sizeof(v)), -EBADMSG,
			     "opcode 0x%02x", op);
	}
}

Test(ses_rsp_hdr, rejects_response_w_data)
{
	uint8_t v[sizeof(t_rsp_vec)];
	struct ses_rsp_hdr h;

	memcpy(v, t_rsp_vec, sizeof(v));
	v[0] = 0x42;
	cr_assert_eq(ses_rsp_hdr_decode(&h, v, sizeof(v)), -EBADMSG);
}

Test(ses_rsp_hdr, accepts_vendor_opcode)
{
	uint8_t v[sizeof(t_rsp_vec)];
	struct ses_rsp_hdr h;

	memcpy(v, t_rsp_vec, sizeof(v));
	v[0] = 0x70;
	cr_assert_eq(ses_rsp_hdr_decode(&h, v, sizeof(v)), UET_SES_RSP_LEN);
	cr_assert_eq(h.list, 1);
	cr_assert_eq(h.opcode, 0x30);
}

Test(ses_rsp_hdr, checks_return_code)
{
	uint8_t v[sizeof(t_rsp_vec)];
	struct ses_rsp_hdr h;

	for (unsigned int rc = 0; rc <= 0x3F; rc++) {
		memcpy(v, t_rsp_vec, sizeof(v));
		v[1] = (uint8_t)rc;
		if (t_rc_is_reserved(rc)) {
			cr_assert_eq(ses_rsp_hdr_decode(&h, v, sizeof(v)),
				     -EBADMSG, "rc 0x%02x", rc);
		} else {
			cr_assert_eq(ses_rsp_hdr_decode(&h, v, sizeof(v)),
				     UET_SES_RSP_LEN, "rc 0x%02x", rc);
			cr_assert_eq(h.return_code, rc);
		}
	}
}

Test(ses_rsp_hdr, rejects_out_of_range_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_hdr h;

	t_rsp_fill(&h);
	h.job_id = UET_SES_JOB_ID_MAX + 1;
	cr_assert_eq(ses_rsp_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_rsp_fill(&h);
	h.opcode = UET_SES_RSP_RESPONSE_W_DATA;
	cr_assert_eq(ses_rsp_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.opcode = 0x04;
	cr_assert_eq(ses_rsp_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.opcode = 0x40;
	cr_assert_eq(ses_rsp_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_rsp_fill(&h);
	h.list = 4;
	cr_assert_eq(ses_rsp_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
}

Test(ses_rsp_hdr, rejects_reserved_code_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_hdr h;

	t_rsp_fill(&h);
	h.return_code = 0x25;
	cr_assert_eq(ses_rsp_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.return_code = 0x3F;
	cr_assert_eq(ses_rsp_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.return_code = 0x40;
	cr_assert_eq(ses_rsp_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ======================================================================
 * RESPONSE_DATA (ref 3.5), 20 bytes + data, WS layout.
 * ====================================================================== */

/* ref 3.5 RESPONSE_DATA row; byte 4 reserved and 14-bit length per WS. */
static const uint8_t t_rsp_data_vec[] = {
	0x02, 0x01, 0xBE, 0xEF, /* list 0|opcode RESPONSE_W_DATA; ver 0|return_code RC_OK; message_id 0xBEEF */
	0x00, 0xAB, 0xCD, 0xEF, /* rsvd (WS); job_id 0xABCDEF */
	0x12, 0x34, 0x3A, 0xBC, /* read_request_message_id 0x1234; rsvd 2|payload_length 0x3ABC */
	0x00, 0xC0, 0xFF, 0xEE, /* modified_length 0xC0FFEE */
	0x00, 0x01, 0x20, 0x00, /* message_offset 0x12000 */
};

static void t_rsp_data_fill(struct ses_rsp_data_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->list = 0;
	h->opcode = UET_SES_RSP_RESPONSE_W_DATA;
	h->return_code = UET_SES_RC_OK;
	h->message_id = 0xBEEF;
	h->job_id = 0xABCDEF;
	h->read_request_message_id = 0x1234;
	h->payload_length = 0x3ABC;
	h->modified_length = 0xC0FFEE;
	h->message_offset = 0x12000;
}

static void t_rsp_data_assert_eq(const struct ses_rsp_data_hdr *got,
				 const struct ses_rsp_data_hdr *want)
{
	cr_assert_eq(got->list, want->list);
	cr_assert_eq(got->opcode, want->opcode);
	cr_assert_eq(got->return_code, want->return_code);
	cr_assert_eq(got->message_id, want->message_id);
	cr_assert_eq(got->job_id, want->job_id);
	cr_assert_eq(got->read_request_message_id,
		     want->read_request_message_id);
	cr_assert_eq(got->payload_length, want->payload_length);
	cr_assert_eq(got->modified_length, want->modified_length);
	cr_assert_eq(got->message_offset, want->message_offset);
}

Test(ses_rsp_data_hdr, decodes_vector)
{
	uint8_t buf[UET_SES_RSP_DATA_LEN + 16];
	struct ses_rsp_data_hdr h;

	/* Followed by data, which the decoder leaves alone. */
	memcpy(buf, t_rsp_data_vec, sizeof(t_rsp_data_vec));
	memset(buf + sizeof(t_rsp_data_vec), 0x77, 16);
	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_rsp_data_hdr_decode(&h, buf, sizeof(buf)),
		     UET_SES_RSP_DATA_LEN);
	cr_assert_eq(h.list, 0);
	cr_assert_eq(h.opcode, 0x02);
	cr_assert_eq(h.return_code, 0x01);
	cr_assert_eq(h.message_id, 0xBEEF);
	cr_assert_eq(h.job_id, 0xABCDEF);
	cr_assert_eq(h.read_request_message_id, 0x1234);
	cr_assert_eq(h.payload_length, 0x3ABC);
	cr_assert_eq(h.modified_length, 0xC0FFEE);
	cr_assert_eq(h.message_offset, 0x12000);
}

Test(ses_rsp_data_hdr, encodes_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_hdr h;

	t_rsp_data_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_rsp_data_hdr_encode(buf, sizeof(buf), &h), buf,
			 t_rsp_data_vec, sizeof(t_rsp_data_vec));
}

Test(ses_rsp_data_hdr, rejects_short_output)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_hdr h;

	t_rsp_data_fill(&h);
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, UET_SES_RSP_DATA_LEN - 1,
					     &h),
		     -ENOBUFS);
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, 0, &h), -ENOBUFS);
}

Test(ses_rsp_data_hdr, round_trips)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_hdr in, out;

	t_rsp_data_fill(&in);
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_RSP_DATA_LEN);
	cr_assert_eq(ses_rsp_data_hdr_decode(&out, buf, UET_SES_RSP_DATA_LEN),
		     UET_SES_RSP_DATA_LEN);
	t_rsp_data_assert_eq(&out, &in);

	in.list = 1;
	in.payload_length = UET_SES_PAYLOAD_LEN_MAX;
	in.job_id = UET_SES_JOB_ID_MAX;
	in.return_code = 0x3E;
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_RSP_DATA_LEN);
	cr_assert_eq(ses_rsp_data_hdr_decode(&out, buf, UET_SES_RSP_DATA_LEN),
		     UET_SES_RSP_DATA_LEN);
	t_rsp_data_assert_eq(&out, &in);
}

Test(ses_rsp_data_hdr, rejects_truncated)
{
	T_ASSERT_TRUNCATED(ses_rsp_data_hdr_decode, struct ses_rsp_data_hdr,
			   t_rsp_data_vec);
}

Test(ses_rsp_data_hdr, rejects_bad_version)
{
	uint8_t v[sizeof(t_rsp_data_vec)];
	struct ses_rsp_data_hdr h;

	for (unsigned int ver = 1; ver < 4; ver++) {
		memcpy(v, t_rsp_data_vec, sizeof(v));
		v[1] |= (uint8_t)(ver << 6);
		cr_assert_eq(ses_rsp_data_hdr_decode(&h, v, sizeof(v)),
			     -EPROTONOSUPPORT, "version %u", ver);
	}
}

Test(ses_rsp_data_hdr, rejects_other_opcodes)
{
	uint8_t v[sizeof(t_rsp_data_vec)];
	struct ses_rsp_data_hdr h;

	for (unsigned int op = 0; op <= 0x3F; op++) {
		if (op == UET_SES_RSP_RESPONSE_W_DATA)
			continue;
		memcpy(v, t_rsp_data_vec, sizeof(v));
		v[0] = (uint8_t)op;
		cr_assert_eq(ses_rsp_data_hdr_decode(&h, v, sizeof(v)),
			     -EBADMSG, "opcode 0x%02x", op);
	}
}

Test(ses_rsp_data_hdr, checks_return_code)
{
	uint8_t v[sizeof(t_rsp_data_vec)];
	struct ses_rsp_data_hdr h;

	for (unsigned int rc = 0; rc <= 0x3F; rc++) {
		memcpy(v, t_rsp_data_vec, sizeof(v));
		v[1] = (uint8_t)rc;
		if (t_rc_is_reserved(rc)) {
			cr_assert_eq(ses_rsp_data_hdr_decode(&h, v, sizeof(v)),
				     -EBADMSG, "rc 0x%02x", rc);
		} else {
			cr_assert_eq(ses_rsp_data_hdr_decode(&h, v, sizeof(v)),
				     UET_SES_RSP_DATA_LEN, "rc 0x%02x", rc);
			cr_assert_eq(h.return_code, rc);
		}
	}
}

Test(ses_rsp_data_hdr, ignores_reserved_bits)
{
	uint8_t v[sizeof(t_rsp_data_vec)];
	struct ses_rsp_data_hdr h, want;

	/* Byte 4 (WS) and payload_length 15:14. */
	memcpy(v, t_rsp_data_vec, sizeof(v));
	v[4] = 0xFF;
	v[10] |= 0xC0;
	t_rsp_data_fill(&want);
	cr_assert_eq(ses_rsp_data_hdr_decode(&h, v, sizeof(v)),
		     UET_SES_RSP_DATA_LEN);
	t_rsp_data_assert_eq(&h, &want);
}

Test(ses_rsp_data_hdr, writes_reserved_bits_as_zero)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_hdr h;

	t_rsp_data_fill(&h);
	h.payload_length = UET_SES_PAYLOAD_LEN_MAX;
	t_fill(buf);
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, sizeof(buf), &h),
		     UET_SES_RSP_DATA_LEN);
	cr_assert_eq(buf[4], 0x00);
	cr_assert_eq(buf[10], 0x3F);
	cr_assert_eq(buf[11], 0xFF);
}

Test(ses_rsp_data_hdr, rejects_out_of_range_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_hdr h;

	t_rsp_data_fill(&h);
	h.job_id = UET_SES_JOB_ID_MAX + 1;
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_rsp_data_fill(&h);
	h.payload_length = UET_SES_PAYLOAD_LEN_MAX + 1;
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_rsp_data_fill(&h);
	h.opcode = UET_SES_RSP_RESPONSE;
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_rsp_data_fill(&h);
	h.list = 4;
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
}

Test(ses_rsp_data_hdr, rejects_reserved_code_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_hdr h;

	t_rsp_data_fill(&h);
	h.return_code = 0x25;
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.return_code = 0x40;
	cr_assert_eq(ses_rsp_data_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ======================================================================
 * RESPONSE_DATA_SMALL (ref 3.5), 12 bytes + data.
 * ====================================================================== */

/* ref 3.5 RESPONSE_DATA_SMALL row (RP-H/TH 12 bytes; byte 4 rsvd per TH). */
static const uint8_t t_rsp_data_small_vec[] = {
	0x42, 0x23, 0x2A, 0xBC, /* list 1|opcode RESPONSE_W_DATA; ver 0|RC_INITIATOR_ERR; rsvd 2|payload_length 0x2ABC */
	0x00, 0xAB, 0xCD, 0xEF, /* rsvd (TH); job_id 0xABCDEF */
	0xDE, 0xAD, 0xBE, 0xEF, /* original_request_psn 0xDEADBEEF */
};

static void t_rsp_data_small_fill(struct ses_rsp_data_small_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->list = 1;
	h->opcode = UET_SES_RSP_RESPONSE_W_DATA;
	h->return_code = UET_SES_RC_INITIATOR_ERR;
	h->payload_length = 0x2ABC;
	h->job_id = 0xABCDEF;
	h->original_request_psn = 0xDEADBEEF;
}

static void
t_rsp_data_small_assert_eq(const struct ses_rsp_data_small_hdr *got,
			   const struct ses_rsp_data_small_hdr *want)
{
	cr_assert_eq(got->list, want->list);
	cr_assert_eq(got->opcode, want->opcode);
	cr_assert_eq(got->return_code, want->return_code);
	cr_assert_eq(got->payload_length, want->payload_length);
	cr_assert_eq(got->job_id, want->job_id);
	cr_assert_eq(got->original_request_psn, want->original_request_psn);
}

Test(ses_rsp_data_small_hdr, decodes_vector)
{
	uint8_t buf[UET_SES_RSP_DATA_SMALL_LEN + 16];
	struct ses_rsp_data_small_hdr h;

	memcpy(buf, t_rsp_data_small_vec, sizeof(t_rsp_data_small_vec));
	memset(buf + sizeof(t_rsp_data_small_vec), 0x77, 16);
	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_rsp_data_small_hdr_decode(&h, buf, sizeof(buf)),
		     UET_SES_RSP_DATA_SMALL_LEN);
	cr_assert_eq(h.list, 1);
	cr_assert_eq(h.opcode, 0x02);
	cr_assert_eq(h.return_code, 0x23);
	cr_assert_eq(h.payload_length, 0x2ABC);
	cr_assert_eq(h.job_id, 0xABCDEF);
	cr_assert_eq(h.original_request_psn, 0xDEADBEEF);
}

Test(ses_rsp_data_small_hdr, encodes_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_small_hdr h;

	t_rsp_data_small_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_rsp_data_small_hdr_encode(buf, sizeof(buf), &h),
			 buf, t_rsp_data_small_vec,
			 sizeof(t_rsp_data_small_vec));
}

Test(ses_rsp_data_small_hdr, rejects_short_output)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_small_hdr h;

	t_rsp_data_small_fill(&h);
	cr_assert_eq(ses_rsp_data_small_hdr_encode(
			     buf, UET_SES_RSP_DATA_SMALL_LEN - 1, &h),
		     -ENOBUFS);
	cr_assert_eq(ses_rsp_data_small_hdr_encode(buf, 0, &h), -ENOBUFS);
}

Test(ses_rsp_data_small_hdr, round_trips)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_small_hdr in, out;

	t_rsp_data_small_fill(&in);
	cr_assert_eq(ses_rsp_data_small_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_RSP_DATA_SMALL_LEN);
	cr_assert_eq(ses_rsp_data_small_hdr_decode(&out, buf,
						   UET_SES_RSP_DATA_SMALL_LEN),
		     UET_SES_RSP_DATA_SMALL_LEN);
	t_rsp_data_small_assert_eq(&out, &in);

	in.list = 2;
	in.payload_length = UET_SES_PAYLOAD_LEN_MAX;
	in.job_id = UET_SES_JOB_ID_MAX;
	in.return_code = 0x37;
	cr_assert_eq(ses_rsp_data_small_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_RSP_DATA_SMALL_LEN);
	cr_assert_eq(ses_rsp_data_small_hdr_decode(&out, buf,
						   UET_SES_RSP_DATA_SMALL_LEN),
		     UET_SES_RSP_DATA_SMALL_LEN);
	t_rsp_data_small_assert_eq(&out, &in);
}

Test(ses_rsp_data_small_hdr, rejects_truncated)
{
	T_ASSERT_TRUNCATED(ses_rsp_data_small_hdr_decode,
			   struct ses_rsp_data_small_hdr,
			   t_rsp_data_small_vec);
}

Test(ses_rsp_data_small_hdr, rejects_bad_version)
{
	uint8_t v[sizeof(t_rsp_data_small_vec)];
	struct ses_rsp_data_small_hdr h;

	for (unsigned int ver = 1; ver < 4; ver++) {
		memcpy(v, t_rsp_data_small_vec, sizeof(v));
		v[1] |= (uint8_t)(ver << 6);
		cr_assert_eq(ses_rsp_data_small_hdr_decode(&h, v, sizeof(v)),
			     -EPROTONOSUPPORT, "version %u", ver);
	}
}

Test(ses_rsp_data_small_hdr, rejects_other_opcodes)
{
	uint8_t v[sizeof(t_rsp_data_small_vec)];
	struct ses_rsp_data_small_hdr h;

	for (unsigned int op = 0; op <= 0x3F; op++) {
		if (op == UET_SES_RSP_RESPONSE_W_DATA)
			continue;
		memcpy(v, t_rsp_data_small_vec, sizeof(v));
		v[0] = (uint8_t)(0x40 | op);
		cr_assert_eq(ses_rsp_data_small_hdr_decode(&h, v, sizeof(v)),
			     -EBADMSG, "opcode 0x%02x", op);
	}
}

Test(ses_rsp_data_small_hdr, checks_return_code)
{
	uint8_t v[sizeof(t_rsp_data_small_vec)];
	struct ses_rsp_data_small_hdr h;
	ssize_t ret;

	for (unsigned int rc = 0; rc <= 0x3F; rc++) {
		memcpy(v, t_rsp_data_small_vec, sizeof(v));
		v[1] = (uint8_t)rc;
		ret = ses_rsp_data_small_hdr_decode(&h, v, sizeof(v));
		if (t_rc_is_reserved(rc)) {
			cr_assert_eq(ret, -EBADMSG, "rc 0x%02x", rc);
		} else {
			cr_assert_eq(ret, UET_SES_RSP_DATA_SMALL_LEN,
				     "rc 0x%02x", rc);
			cr_assert_eq(h.return_code, rc);
		}
	}
}

Test(ses_rsp_data_small_hdr, ignores_reserved_bits)
{
	uint8_t v[sizeof(t_rsp_data_small_vec)];
	struct ses_rsp_data_small_hdr h, want;

	/* payload_length 15:14 and byte 4. */
	memcpy(v, t_rsp_data_small_vec, sizeof(v));
	v[2] |= 0xC0;
	v[4] = 0xFF;
	t_rsp_data_small_fill(&want);
	cr_assert_eq(ses_rsp_data_small_hdr_decode(&h, v, sizeof(v)),
		     UET_SES_RSP_DATA_SMALL_LEN);
	t_rsp_data_small_assert_eq(&h, &want);
}

Test(ses_rsp_data_small_hdr, writes_reserved_bits_as_zero)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_small_hdr h;

	t_rsp_data_small_fill(&h);
	h.payload_length = UET_SES_PAYLOAD_LEN_MAX;
	t_fill(buf);
	cr_assert_eq(ses_rsp_data_small_hdr_encode(buf, sizeof(buf), &h),
		     UET_SES_RSP_DATA_SMALL_LEN);
	cr_assert_eq(buf[2], 0x3F);
	cr_assert_eq(buf[3], 0xFF);
	cr_assert_eq(buf[4], 0x00);
}

Test(ses_rsp_data_small_hdr, rejects_out_of_range_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_small_hdr h;

	t_rsp_data_small_fill(&h);
	h.job_id = UET_SES_JOB_ID_MAX + 1;
	cr_assert_eq(ses_rsp_data_small_hdr_encode(buf, sizeof(buf), &h),
		     -EINVAL);

	t_rsp_data_small_fill(&h);
	h.payload_length = UET_SES_PAYLOAD_LEN_MAX + 1;
	cr_assert_eq(ses_rsp_data_small_hdr_encode(buf, sizeof(buf), &h),
		     -EINVAL);

	t_rsp_data_small_fill(&h);
	h.opcode = UET_SES_RSP_NO_RESPONSE;
	cr_assert_eq(ses_rsp_data_small_hdr_encode(buf, sizeof(buf), &h),
		     -EINVAL);

	t_rsp_data_small_fill(&h);
	h.list = 4;
	cr_assert_eq(ses_rsp_data_small_hdr_encode(buf, sizeof(buf), &h),
		     -EINVAL);
}

Test(ses_rsp_data_small_hdr, rejects_reserved_code_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rsp_data_small_hdr h;

	t_rsp_data_small_fill(&h);
	h.return_code = 0x38;
	cr_assert_eq(ses_rsp_data_small_hdr_encode(buf, sizeof(buf), &h),
		     -EINVAL);
	h.return_code = 0x40;
	cr_assert_eq(ses_rsp_data_small_hdr_encode(buf, sizeof(buf), &h),
		     -EINVAL);
}
