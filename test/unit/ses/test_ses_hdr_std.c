/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES standard request header codec (ses/ses_hdr.h, ref 3.1).
 * Vectors built from ../shared/reference/uet-wire-format.md section 3 (WS).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ses/ses_hdr.h"
#include "test/unit/ses/t_ses_hdr.h"

TestSuite(ses_std_hdr, .timeout = 10);

/* ======================================================================
 * Standard request header (ref 3.1), 44 bytes.
 * ====================================================================== */

/* ref 3.1 table, SOM=1 row for bytes 32-39 (header_data). */
static const uint8_t t_std_som_vec[] = {
	0x01, 0x2D, 0xBE, 0xEF, /* rsvd 0|opcode WRITE; ver 0|dc rel hd som; message_id 0xBEEF */
	0x5A, 0xAB, 0xCD, 0xEF, /* ri_generation 0x5A; job_id 0xABCDEF */
	0x0F, 0xED, 0x0C, 0xBA, /* rsvd 4|pid_on_fep 0xFED; rsvd 4|resource_index 0xCBA */
	0x01, 0x23, 0x45, 0x67, /* buffer_offset 63:32 */
	0x89, 0xAB, 0xCD, 0xEF, /* buffer_offset 31:0 */
	0x11, 0x22, 0x33, 0x44, /* initiator 0x11223344 */
	0x88, 0x77, 0x66, 0x55, /* memory_key 63:32 */
	0x44, 0x33, 0x22, 0x11, /* memory_key 31:0 */
	0xFE, 0xDC, 0xBA, 0x98, /* header_data 63:32 */
	0x76, 0x54, 0x32, 0x10, /* header_data 31:0 */
	0x00, 0x10, 0x40, 0x00, /* request_length 0x104000 */
};

/* ref 3.1 table, SOM=0 row for bytes 32-39 (payload_length, offset). */
static const uint8_t t_std_mid_vec[] = {
	0x09, 0x12, 0xBE, 0xEF, /* rsvd 0|opcode TAGGED_SEND; ver 0|ie eom; message_id 0xBEEF */
	0xA5, 0x12, 0x34, 0x56, /* ri_generation 0xA5; job_id 0x123456 */
	0x01, 0x23, 0x04, 0x56, /* rsvd 4|pid_on_fep 0x123; rsvd 4|resource_index 0x456 */
	0x00, 0x00, 0x00, 0x00, /* buffer_offset 63:32 */
	0x00, 0x00, 0x10, 0x00, /* buffer_offset 31:0 (0x1000) */
	0xCA, 0xFE, 0xF0, 0x0D, /* initiator 0xCAFEF00D */
	0xDE, 0xAD, 0xBE, 0xEF, /* match_bits 63:32 */
	0x00, 0xC0, 0xFF, 0xEE, /* match_bits 31:0 */
	0x00, 0x00, 0x2A, 0xBC, /* rsvd 63:46|payload_length 0x2ABC (45:32) */
	0x00, 0x01, 0x20, 0x00, /* message_offset 0x12000 (31:0) */
	0x00, 0x01, 0x4A, 0xBC, /* request_length 0x14ABC */
};

static void t_std_som_fill(struct ses_std_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->opcode = UET_SES_OP_WRITE;
	h->f.dc = true;
	h->f.rel = true;
	h->f.hd = true;
	h->f.som = true;
	h->message_id = 0xBEEF;
	h->ri_generation = 0x5A;
	h->job_id = 0xABCDEF;
	h->pid_on_fep = 0xFED;
	h->resource_index = 0xCBA;
	h->buffer_offset = 0x0123456789ABCDEFull;
	h->initiator = 0x11223344;
	h->memory_key = 0x8877665544332211ull;
	h->header_data = 0xFEDCBA9876543210ull;
	h->request_length = 0x104000;
}

static void t_std_mid_fill(struct ses_std_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->opcode = UET_SES_OP_TAGGED_SEND;
	h->f.ie = true;
	h->f.eom = true;
	h->message_id = 0xBEEF;
	h->ri_generation = 0xA5;
	h->job_id = 0x123456;
	h->pid_on_fep = 0x123;
	h->resource_index = 0x456;
	h->buffer_offset = 0x1000;
	h->initiator = 0xCAFEF00D;
	h->memory_key = 0xDEADBEEF00C0FFEEull;
	h->payload_length = 0x2ABC;
	h->message_offset = 0x12000;
	h->request_length = 0x14ABC;
}

/* Compares the fields the som/hd form of |want| carries on the wire. */
static void t_std_assert_eq(const struct ses_std_hdr *got,
			    const struct ses_std_hdr *want)
{
	cr_assert_eq(got->opcode, want->opcode);
	t_flags_assert_eq(&got->f, &want->f);
	cr_assert_eq(got->message_id, want->message_id);
	cr_assert_eq(got->ri_generation, want->ri_generation);
	cr_assert_eq(got->job_id, want->job_id);
	cr_assert_eq(got->pid_on_fep, want->pid_on_fep);
	cr_assert_eq(got->resource_index, want->resource_index);
	cr_assert_eq(got->buffer_offset, want->buffer_offset);
	cr_assert_eq(got->initiator, want->initiator);
	cr_assert_eq(got->memory_key, want->memory_key);
	if (want->f.som && want->f.hd)
		cr_assert_eq(got->header_data, want->header_data);
	if (!want->f.som) {
		cr_assert_eq(got->payload_length, want->payload_length);
		cr_assert_eq(got->message_offset, want->message_offset);
	}
	cr_assert_eq(got->request_length, want->request_length);
}

Test(ses_std_hdr, decodes_som_vector)
{
	struct ses_std_hdr h;

	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_std_hdr_decode(&h, t_std_som_vec,
					sizeof(t_std_som_vec)),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(h.opcode, 0x01);
	cr_assert_eq(h.f.dc, true);
	cr_assert_eq(h.f.ie, false);
	cr_assert_eq(h.f.rel, true);
	cr_assert_eq(h.f.hd, true);
	cr_assert_eq(h.f.eom, false);
	cr_assert_eq(h.f.som, true);
	cr_assert_eq(h.message_id, 0xBEEF);
	cr_assert_eq(h.ri_generation, 0x5A);
	cr_assert_eq(h.job_id, 0xABCDEF);
	cr_assert_eq(h.pid_on_fep, 0xFED);
	cr_assert_eq(h.resource_index, 0xCBA);
	cr_assert_eq(h.buffer_offset, 0x0123456789ABCDEFull);
	cr_assert_eq(h.initiator, 0x11223344);
	cr_assert_eq(h.memory_key, 0x8877665544332211ull);
	cr_assert_eq(h.header_data, 0xFEDCBA9876543210ull);
	cr_assert_eq(h.request_length, 0x104000);
}

Test(ses_std_hdr, decodes_non_som_vector)
{
	struct ses_std_hdr h;

	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_std_hdr_decode(&h, t_std_mid_vec,
					sizeof(t_std_mid_vec)),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(h.opcode, 0x09);
	cr_assert_eq(h.f.dc, false);
	cr_assert_eq(h.f.ie, true);
	cr_assert_eq(h.f.rel, false);
	cr_assert_eq(h.f.hd, false);
	cr_assert_eq(h.f.eom, true);
	cr_assert_eq(h.f.som, false);
	cr_assert_eq(h.message_id, 0xBEEF);
	cr_assert_eq(h.ri_generation, 0xA5);
	cr_assert_eq(h.job_id, 0x123456);
	cr_assert_eq(h.pid_on_fep, 0x123);
	cr_assert_eq(h.resource_index, 0x456);
	cr_assert_eq(h.buffer_offset, 0x1000);
	cr_assert_eq(h.initiator, 0xCAFEF00D);
	cr_assert_eq(h.memory_key, 0xDEADBEEF00C0FFEEull);
	cr_assert_eq(h.payload_length, 0x2ABC);
	cr_assert_eq(h.message_offset, 0x12000);
	cr_assert_eq(h.request_length, 0x14ABC);
}

Test(ses_std_hdr, ignores_trailing_payload)
{
	uint8_t buf[UET_SES_STD_HDR_LEN + 8];
	struct ses_std_hdr h;

	memcpy(buf, t_std_som_vec, sizeof(t_std_som_vec));
	memset(buf + sizeof(t_std_som_vec), 0xFF, 8);
	cr_assert_eq(ses_std_hdr_decode(&h, buf, sizeof(buf)),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(h.request_length, 0x104000);
}

Test(ses_std_hdr, encodes_som_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_std_hdr h;

	t_std_som_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_std_hdr_encode(buf, sizeof(buf), &h), buf,
			 t_std_som_vec, sizeof(t_std_som_vec));
}

Test(ses_std_hdr, encodes_non_som_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_std_hdr h;

	t_std_mid_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_std_hdr_encode(buf, sizeof(buf), &h), buf,
			 t_std_mid_vec, sizeof(t_std_mid_vec));
}

Test(ses_std_hdr, encodes_som_without_hd_as_zero_header_data)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_std_hdr h;

	t_std_som_fill(&h);
	h.f.hd = false;
	h.header_data = 0;
	t_fill(buf);
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(buf[1], 0x29);
	for (size_t i = 32; i < 40; i++)
		cr_assert_eq(buf[i], 0x00, "byte %zu", i);
}

Test(ses_std_hdr, rejects_short_output)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_std_hdr h;

	t_std_som_fill(&h);
	cr_assert_eq(ses_std_hdr_encode(buf, UET_SES_STD_HDR_LEN - 1, &h),
		     -ENOBUFS);
	cr_assert_eq(ses_std_hdr_encode(buf, 0, &h), -ENOBUFS);
	t_std_mid_fill(&h);
	cr_assert_eq(ses_std_hdr_encode(buf, UET_SES_STD_HDR_LEN - 1, &h),
		     -ENOBUFS);
}

Test(ses_std_hdr, round_trips)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_std_hdr in, out;

	t_std_som_fill(&in);
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(ses_std_hdr_decode(&out, buf, UET_SES_STD_HDR_LEN),
		     UET_SES_STD_HDR_LEN);
	t_std_assert_eq(&out, &in);

	t_std_mid_fill(&in);
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(ses_std_hdr_decode(&out, buf, UET_SES_STD_HDR_LEN),
		     UET_SES_STD_HDR_LEN);
	t_std_assert_eq(&out, &in);

	/* Field maxima survive too. */
	t_std_mid_fill(&in);
	in.job_id = UET_SES_JOB_ID_MAX;
	in.pid_on_fep = UET_SES_PID_ON_FEP_MAX;
	in.resource_index = UET_SES_RI_MAX;
	in.payload_length = UET_SES_PAYLOAD_LEN_MAX;
	in.message_offset = 0xFFFFFFFF;
	in.f.dc = in.f.ie = in.f.rel = in.f.eom = true;
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(ses_std_hdr_decode(&out, buf, UET_SES_STD_HDR_LEN),
		     UET_SES_STD_HDR_LEN);
	t_std_assert_eq(&out, &in);
}

Test(ses_std_hdr, rejects_truncated)
{
	T_ASSERT_TRUNCATED(ses_std_hdr_decode, struct ses_std_hdr,
			   t_std_som_vec);
	T_ASSERT_TRUNCATED(ses_std_hdr_decode, struct ses_std_hdr,
			   t_std_mid_vec);
}

Test(ses_std_hdr, rejects_bad_version)
{
	uint8_t v[sizeof(t_std_som_vec)];
	struct ses_std_hdr h;

	for (unsigned int ver = 1; ver < 4; ver++) {
		memcpy(v, t_std_som_vec, sizeof(v));
		v[1] |= (uint8_t)(ver << 6);
		cr_assert_eq(ses_std_hdr_decode(&h, v, sizeof(v)),
			     -EPROTONOSUPPORT, "version %u", ver);
	}
}

Test(ses_std_hdr, rejects_reserved_opcode)
{
	uint8_t v[sizeof(t_std_som_vec)];
	struct ses_std_hdr h;

	for (unsigned int op = 0x10; op <= 0x2F; op++) {
		memcpy(v, t_std_som_vec, sizeof(v));
		v[0] = (uint8_t)op;
		cr_assert_eq(ses_std_hdr_decode(&h, v, sizeof(v)), -EBADMSG,
			     "opcode 0x%02x", op);
	}
}

Test(ses_std_hdr, accepts_vendor_opcode)
{
	uint8_t v[sizeof(t_std_som_vec)];
	uint8_t buf[T_BUF_LEN];
	struct ses_std_hdr h;

	memcpy(v, t_std_som_vec, sizeof(v));
	v[0] = 0x30;
	cr_assert_eq(ses_std_hdr_decode(&h, v, sizeof(v)),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(h.opcode, 0x30);

	t_std_som_fill(&h);
	h.opcode = 0x30;
	t_fill(buf);
	t_assert_encoded(ses_std_hdr_encode(buf, sizeof(buf), &h), buf, v,
			 sizeof(v));
}

Test(ses_std_hdr, rejects_hd_without_som)
{
	uint8_t v[sizeof(t_std_mid_vec)];
	struct ses_std_hdr h;

	memcpy(v, t_std_mid_vec, sizeof(v));
	v[1] |= 0x04;
	cr_assert_eq(ses_std_hdr_decode(&h, v, sizeof(v)), -EBADMSG);
}

Test(ses_std_hdr, ignores_reserved_bits)
{
	uint8_t v[sizeof(t_std_mid_vec)];
	struct ses_std_hdr h, want;

	/* opcode byte 7:6, pid/ri 15:12, SOM=0 word bits 63:46. */
	memcpy(v, t_std_mid_vec, sizeof(v));
	v[0] |= 0xC0;
	v[8] |= 0xF0;
	v[10] |= 0xF0;
	v[32] = 0xFF;
	v[33] = 0xFF;
	v[34] |= 0xC0;
	t_std_mid_fill(&want);
	cr_assert_eq(ses_std_hdr_decode(&h, v, sizeof(v)),
		     UET_SES_STD_HDR_LEN);
	t_std_assert_eq(&h, &want);

	memcpy(v, t_std_som_vec, sizeof(v));
	v[0] |= 0xC0;
	v[8] |= 0xF0;
	v[10] |= 0xF0;
	t_std_som_fill(&want);
	cr_assert_eq(ses_std_hdr_decode(&h, v, sizeof(v)),
		     UET_SES_STD_HDR_LEN);
	t_std_assert_eq(&h, &want);
}

Test(ses_std_hdr, writes_reserved_bits_as_zero)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_std_hdr h;

	/* Every field at its maximum: anything outside the fields is 0. */
	t_std_mid_fill(&h);
	h.opcode = 0x3F;
	h.pid_on_fep = UET_SES_PID_ON_FEP_MAX;
	h.resource_index = UET_SES_RI_MAX;
	h.payload_length = UET_SES_PAYLOAD_LEN_MAX;
	h.message_offset = 0xFFFFFFFF;
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h),
		     UET_SES_STD_HDR_LEN);
	cr_assert_eq(buf[0], 0x3F);
	cr_assert_eq(buf[8], 0x0F);
	cr_assert_eq(buf[10], 0x0F);
	cr_assert_eq(buf[32], 0x00);
	cr_assert_eq(buf[33], 0x00);
	cr_assert_eq(buf[34], 0x3F);
	cr_assert_eq(buf[35], 0xFF);
}

Test(ses_std_hdr, rejects_out_of_range_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_std_hdr h;

	t_std_som_fill(&h);
	h.job_id = UET_SES_JOB_ID_MAX + 1;
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_std_som_fill(&h);
	h.pid_on_fep = UET_SES_PID_ON_FEP_MAX + 1;
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_std_som_fill(&h);
	h.resource_index = UET_SES_RI_MAX + 1;
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_std_mid_fill(&h);
	h.payload_length = UET_SES_PAYLOAD_LEN_MAX + 1;
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_std_mid_fill(&h);
	h.f.hd = true;
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_std_som_fill(&h);
	h.opcode = 0x10;
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.opcode = 0x2F;
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	/* Wider than the 6-bit field. */
	h.opcode = 0x41;
	cr_assert_eq(ses_std_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
}
