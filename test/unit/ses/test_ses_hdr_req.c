/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES small and medium request header codecs (ses/ses_hdr.h, ref 3.3).
 * Vectors built from ../shared/reference/uet-wire-format.md section 3 (WS).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ses/ses_hdr.h"
#include "test/unit/ses/t_ses_hdr.h"

TestSuite(ses_small_hdr, .timeout = 10);
TestSuite(ses_medium_hdr, .timeout = 10);

/* ======================================================================
 * Small request header (ref 3.3), 20 bytes.
 * ====================================================================== */

/* ref 3.3: first 12 bytes of 3.1 with rsvd 2|request_length 14 at 2-3. */
static const uint8_t t_small_vec[] = {
	0x05, 0x2B, 0x2A, 0xBC, /* rsvd 0|opcode SEND; ver 0|dc rel eom som; rsvd 2|request_length 0x2ABC */
	0x5A, 0xAB, 0xCD, 0xEF, /* ri_generation 0x5A; job_id 0xABCDEF */
	0x0F, 0xED, 0x0C, 0xBA, /* rsvd 4|pid_on_fep 0xFED; rsvd 4|resource_index 0xCBA */
	0x01, 0x23, 0x45, 0x67, /* buffer_offset 63:32 */
	0x89, 0xAB, 0xCD, 0xEF, /* buffer_offset 31:0 */
};

static void t_small_fill(struct ses_small_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->opcode = UET_SES_OP_SEND;
	h->f.dc = true;
	h->f.rel = true;
	h->f.eom = true;
	h->f.som = true;
	h->request_length = 0x2ABC;
	h->ri_generation = 0x5A;
	h->job_id = 0xABCDEF;
	h->pid_on_fep = 0xFED;
	h->resource_index = 0xCBA;
	h->buffer_offset = 0x0123456789ABCDEFull;
}

static void t_small_assert_eq(const struct ses_small_hdr *got,
			      const struct ses_small_hdr *want)
{
	cr_assert_eq(got->opcode, want->opcode);
	t_flags_assert_eq(&got->f, &want->f);
	cr_assert_eq(got->request_length, want->request_length);
	cr_assert_eq(got->ri_generation, want->ri_generation);
	cr_assert_eq(got->job_id, want->job_id);
	cr_assert_eq(got->pid_on_fep, want->pid_on_fep);
	cr_assert_eq(got->resource_index, want->resource_index);
	cr_assert_eq(got->buffer_offset, want->buffer_offset);
}

Test(ses_small_hdr, decodes_vector)
{
	struct ses_small_hdr h;

	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_small_hdr_decode(&h, t_small_vec,
					  sizeof(t_small_vec)),
		     UET_SES_SMALL_HDR_LEN);
	cr_assert_eq(h.opcode, 0x05);
	cr_assert_eq(h.f.dc, true);
	cr_assert_eq(h.f.ie, false);
	cr_assert_eq(h.f.rel, true);
	cr_assert_eq(h.f.hd, false);
	cr_assert_eq(h.f.eom, true);
	cr_assert_eq(h.f.som, true);
	cr_assert_eq(h.request_length, 0x2ABC);
	cr_assert_eq(h.ri_generation, 0x5A);
	cr_assert_eq(h.job_id, 0xABCDEF);
	cr_assert_eq(h.pid_on_fep, 0xFED);
	cr_assert_eq(h.resource_index, 0xCBA);
	cr_assert_eq(h.buffer_offset, 0x0123456789ABCDEFull);
}

Test(ses_small_hdr, encodes_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_small_hdr h;

	t_small_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_small_hdr_encode(buf, sizeof(buf), &h), buf,
			 t_small_vec, sizeof(t_small_vec));
}

Test(ses_small_hdr, rejects_short_output)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_small_hdr h;

	t_small_fill(&h);
	cr_assert_eq(ses_small_hdr_encode(buf, UET_SES_SMALL_HDR_LEN - 1, &h),
		     -ENOBUFS);
	cr_assert_eq(ses_small_hdr_encode(buf, 0, &h), -ENOBUFS);
}

Test(ses_small_hdr, round_trips)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_small_hdr in, out;

	t_small_fill(&in);
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_SMALL_HDR_LEN);
	cr_assert_eq(ses_small_hdr_decode(&out, buf, UET_SES_SMALL_HDR_LEN),
		     UET_SES_SMALL_HDR_LEN);
	t_small_assert_eq(&out, &in);

	in.request_length = UET_SES_SMALL_REQ_LEN_MAX;
	in.job_id = UET_SES_JOB_ID_MAX;
	in.f.ie = true;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_SMALL_HDR_LEN);
	cr_assert_eq(ses_small_hdr_decode(&out, buf, UET_SES_SMALL_HDR_LEN),
		     UET_SES_SMALL_HDR_LEN);
	t_small_assert_eq(&out, &in);
}

Test(ses_small_hdr, rejects_truncated)
{
	T_ASSERT_TRUNCATED(ses_small_hdr_decode, struct ses_small_hdr,
			   t_small_vec);
}

Test(ses_small_hdr, rejects_bad_version)
{
	uint8_t v[sizeof(t_small_vec)];
	struct ses_small_hdr h;

	for (unsigned int ver = 1; ver < 4; ver++) {
		memcpy(v, t_small_vec, sizeof(v));
		v[1] |= (uint8_t)(ver << 6);
		cr_assert_eq(ses_small_hdr_decode(&h, v, sizeof(v)),
			     -EPROTONOSUPPORT, "version %u", ver);
	}
}

Test(ses_small_hdr, rejects_reserved_opcode)
{
	uint8_t v[sizeof(t_small_vec)];
	struct ses_small_hdr h;

	for (unsigned int op = 0x10; op <= 0x2F; op++) {
		memcpy(v, t_small_vec, sizeof(v));
		v[0] = (uint8_t)op;
		cr_assert_eq(ses_small_hdr_decode(&h, v, sizeof(v)), -EBADMSG,
			     "opcode 0x%02x", op);
	}
	memcpy(v, t_small_vec, sizeof(v));
	v[0] = 0x30;
	cr_assert_eq(ses_small_hdr_decode(&h, v, sizeof(v)),
		     UET_SES_SMALL_HDR_LEN);
	cr_assert_eq(h.opcode, 0x30);
}

Test(ses_small_hdr, rejects_missing_som_or_eom)
{
	static const uint8_t flags[] = { 0x01, 0x02, 0x00, 0x2D };
	uint8_t v[sizeof(t_small_vec)];
	struct ses_small_hdr h;

	for (size_t i = 0; i < sizeof(flags); i++) {
		memcpy(v, t_small_vec, sizeof(v));
		v[1] = flags[i];
		cr_assert_eq(ses_small_hdr_decode(&h, v, sizeof(v)), -EBADMSG,
			     "flags 0x%02x", flags[i]);
	}
}

Test(ses_small_hdr, ignores_reserved_bits)
{
	uint8_t v[sizeof(t_small_vec)];
	struct ses_small_hdr h, want;

	/* opcode 7:6, hd position, request_length 15:14, pid/ri 15:12. */
	memcpy(v, t_small_vec, sizeof(v));
	v[0] |= 0xC0;
	v[1] |= 0x04;
	v[2] |= 0xC0;
	v[8] |= 0xF0;
	v[10] |= 0xF0;
	t_small_fill(&want);
	cr_assert_eq(ses_small_hdr_decode(&h, v, sizeof(v)),
		     UET_SES_SMALL_HDR_LEN);
	t_small_assert_eq(&h, &want);
}

Test(ses_small_hdr, writes_reserved_bits_as_zero)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_small_hdr h;

	t_small_fill(&h);
	h.opcode = 0x3F;
	h.f.hd = true;	/* reserved position in this header */
	h.request_length = UET_SES_SMALL_REQ_LEN_MAX;
	h.pid_on_fep = UET_SES_PID_ON_FEP_MAX;
	h.resource_index = UET_SES_RI_MAX;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &h),
		     UET_SES_SMALL_HDR_LEN);
	cr_assert_eq(buf[0], 0x3F);
	cr_assert_eq(buf[1], 0x2B);
	cr_assert_eq(buf[2], 0x3F);
	cr_assert_eq(buf[8], 0x0F);
	cr_assert_eq(buf[10], 0x0F);
}

Test(ses_small_hdr, rejects_out_of_range_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_small_hdr h;

	t_small_fill(&h);
	h.job_id = UET_SES_JOB_ID_MAX + 1;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_small_fill(&h);
	h.pid_on_fep = UET_SES_PID_ON_FEP_MAX + 1;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_small_fill(&h);
	h.resource_index = UET_SES_RI_MAX + 1;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_small_fill(&h);
	h.request_length = UET_SES_SMALL_REQ_LEN_MAX + 1;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_small_fill(&h);
	h.f.eom = false;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	t_small_fill(&h);
	h.f.som = false;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.f.eom = false;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_small_fill(&h);
	h.opcode = 0x10;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.opcode = 0x2F;
	cr_assert_eq(ses_small_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ======================================================================
 * Medium request header (ref 3.3), 32 bytes.
 * ====================================================================== */

/* ref 3.3 REQUEST_MEDIUM row, HD=1: header_data at 12. */
static const uint8_t t_medium_hd_vec[] = {
	0x09, 0x17, 0x10, 0x00, /* rsvd 0|opcode TAGGED_SEND; ver 0|ie hd eom som; rsvd 2|request_length 0x1000 */
	0x5A, 0xAB, 0xCD, 0xEF, /* ri_generation 0x5A; job_id 0xABCDEF */
	0x0F, 0xED, 0x0C, 0xBA, /* rsvd 4|pid_on_fep 0xFED; rsvd 4|resource_index 0xCBA */
	0xFE, 0xDC, 0xBA, 0x98, /* header_data 63:32 */
	0x76, 0x54, 0x32, 0x10, /* header_data 31:0 */
	0x11, 0x22, 0x33, 0x44, /* initiator 0x11223344 */
	0x88, 0x77, 0x66, 0x55, /* match_bits 63:32 */
	0x44, 0x33, 0x22, 0x11, /* match_bits 31:0 */
};

/* ref 3.3 REQUEST_MEDIUM row, HD=0: buffer_offset at 12. */
static const uint8_t t_medium_bo_vec[] = {
	0x01, 0x0B, 0x3F, 0xFF, /* rsvd 0|opcode WRITE; ver 0|rel eom som; rsvd 2|request_length 0x3FFF */
	0x07, 0x00, 0x00, 0x2A, /* ri_generation 0x07; job_id 0x00002A */
	0x00, 0x01, 0x0F, 0xFF, /* rsvd 4|pid_on_fep 0x001; rsvd 4|resource_index 0xFFF */
	0x01, 0x23, 0x45, 0x67, /* buffer_offset 63:32 */
	0x89, 0xAB, 0xCD, 0xEF, /* buffer_offset 31:0 */
	0xCA, 0xFE, 0xF0, 0x0D, /* initiator 0xCAFEF00D */
	0xDE, 0xAD, 0xBE, 0xEF, /* memory_key 63:32 */
	0x00, 0xC0, 0xFF, 0xEE, /* memory_key 31:0 */
};

static void t_medium_hd_fill(struct ses_medium_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->opcode = UET_SES_OP_TAGGED_SEND;
	h->f.ie = true;
	h->f.hd = true;
	h->f.eom = true;
	h->f.som = true;
	h->request_length = 0x1000;
	h->ri_generation = 0x5A;
	h->job_id = 0xABCDEF;
	h->pid_on_fep = 0xFED;
	h->resource_index = 0xCBA;
	h->header_data = 0xFEDCBA9876543210ull;
	h->initiator = 0x11223344;
	h->memory_key = 0x8877665544332211ull;
}

static void t_medium_bo_fill(struct ses_medium_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->opcode = UET_SES_OP_WRITE;
	h->f.rel = true;
	h->f.eom = true;
	h->f.som = true;
	h->request_length = 0x3FFF;
	h->ri_generation = 0x07;
	h->job_id = 0x2A;
	h->pid_on_fep = 0x001;
	h->resource_index = 0xFFF;
	h->buffer_offset = 0x0123456789ABCDEFull;
	h->initiator = 0xCAFEF00D;
	h->memory_key = 0xDEADBEEF00C0FFEEull;
}

static void t_medium_assert_eq(const struct ses_medium_hdr *got,
			       const struct ses_medium_hdr *want)
{
	cr_assert_eq(got->opcode, want->opcode);
	t_flags_assert_eq(&got->f, &want->f);
	cr_assert_eq(got->request_length, want->request_length);
	cr_assert_eq(got->ri_generation, want->ri_generation);
	cr_assert_eq(got->job_id, want->job_id);
	cr_assert_eq(got->pid_on_fep, want->pid_on_fep);
	cr_assert_eq(got->resource_index, want->resource_index);
	if (want->f.hd)
		cr_assert_eq(got->header_data, want->header_data);
	else
		cr_assert_eq(got->buffer_offset, want->buffer_offset);
	cr_assert_eq(got->initiator, want->initiator);
	cr_assert_eq(got->memory_key, want->memory_key);
}

Test(ses_medium_hdr, decodes_hd_vector)
{
	struct ses_medium_hdr h;

	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_medium_hdr_decode(&h, t_medium_hd_vec,
					   sizeof(t_medium_hd_vec)),
		     UET_SES_MEDIUM_HDR_LEN);
	cr_assert_eq(h.opcode, 0x09);
	cr_assert_eq(h.f.dc, false);
	cr_assert_eq(h.f.ie, true);
	cr_assert_eq(h.f.rel, false);
	cr_assert_eq(h.f.hd, true);
	cr_assert_eq(h.f.eom, true);
	cr_assert_eq(h.f.som, true);
	cr_assert_eq(h.request_length, 0x1000);
	cr_assert_eq(h.ri_generation, 0x5A);
	cr_assert_eq(h.job_id, 0xABCDEF);
	cr_assert_eq(h.pid_on_fep, 0xFED);
	cr_assert_eq(h.resource_index, 0xCBA);
	cr_assert_eq(h.header_data, 0xFEDCBA9876543210ull);
	cr_assert_eq(h.initiator, 0x11223344);
	cr_assert_eq(h.memory_key, 0x8877665544332211ull);
}

Test(ses_medium_hdr, decodes_buffer_offset_vector)
{
	struct ses_medium_hdr h;

	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_medium_hdr_decode(&h, t_medium_bo_vec,
					   sizeof(t_medium_bo_vec)),
		     UET_SES_MEDIUM_HDR_LEN);
	cr_assert_eq(h.opcode, 0x01);
	cr_assert_eq(h.f.dc, false);
	cr_assert_eq(h.f.ie, false);
	cr_assert_eq(h.f.rel, true);
	cr_assert_eq(h.f.hd, false);
	cr_assert_eq(h.f.eom, true);
	cr_assert_eq(h.f.som, true);
	cr_assert_eq(h.request_length, 0x3FFF);
	cr_assert_eq(h.ri_generation, 0x07);
	cr_assert_eq(h.job_id, 0x2A);
	cr_assert_eq(h.pid_on_fep, 0x001);
	cr_assert_eq(h.resource_index, 0xFFF);
	cr_assert_eq(h.buffer_offset, 0x0123456789ABCDEFull);
	cr_assert_eq(h.initiator, 0xCAFEF00D);
	cr_assert_eq(h.memory_key, 0xDEADBEEF00C0FFEEull);
}

Test(ses_medium_hdr, encodes_hd_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_medium_hdr h;

	t_medium_hd_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_medium_hdr_encode(buf, sizeof(buf), &h), buf,
			 t_medium_hd_vec, sizeof(t_medium_hd_vec));
}

Test(ses_medium_hdr, encodes_buffer_offset_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_medium_hdr h;

	t_medium_bo_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_medium_hdr_encode(buf, sizeof(buf), &h), buf,
			 t_medium_bo_vec, sizeof(t_medium_bo_vec));
}

Test(ses_medium_hdr, rejects_short_output)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_medium_hdr h;

	t_medium_hd_fill(&h);
	cr_assert_eq(ses_medium_hdr_encode(buf, UET_SES_MEDIUM_HDR_LEN - 1,
					   &h),
		     -ENOBUFS);
	t_medium_bo_fill(&h);
	cr_assert_eq(ses_medium_hdr_encode(buf, UET_SES_MEDIUM_HDR_LEN - 1,
					   &h),
		     -ENOBUFS);
	cr_assert_eq(ses_medium_hdr_encode(buf, 0, &h), -ENOBUFS);
}

Test(ses_medium_hdr, round_trips)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_medium_hdr in, out;

	t_medium_hd_fill(&in);
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_MEDIUM_HDR_LEN);
	cr_assert_eq(ses_medium_hdr_decode(&out, buf, UET_SES_MEDIUM_HDR_LEN),
		     UET_SES_MEDIUM_HDR_LEN);
	t_medium_assert_eq(&out, &in);

	t_medium_bo_fill(&in);
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &in),
		     UET_SES_MEDIUM_HDR_LEN);
	cr_assert_eq(ses_medium_hdr_decode(&out, buf, UET_SES_MEDIUM_HDR_LEN),
		     UET_SES_MEDIUM_HDR_LEN);
	t_medium_assert_eq(&out, &in);
}

Test(ses_medium_hdr, rejects_truncated)
{
	T_ASSERT_TRUNCATED(ses_medium_hdr_decode, struct ses_medium_hdr,
			   t_medium_hd_vec);
	T_ASSERT_TRUNCATED(ses_medium_hdr_decode, struct ses_medium_hdr,
			   t_medium_bo_vec);
}

Test(ses_medium_hdr, rejects_bad_version)
{
	uint8_t v[sizeof(t_medium_hd_vec)];
	struct ses_medium_hdr h;

	for (unsigned int ver = 1; ver < 4; ver++) {
		memcpy(v, t_medium_hd_vec, sizeof(v));
		v[1] |= (uint8_t)(ver << 6);
		cr_assert_eq(ses_medium_hdr_decode(&h, v, sizeof(v)),
			     -EPROTONOSUPPORT, "version %u", ver);
	}
}

Test(ses_medium_hdr, rejects_reserved_opcode)
{
	uint8_t v[sizeof(t_medium_bo_vec)];
	struct ses_medium_hdr h;

	for (unsigned int op = 0x10; op <= 0x2F; op++) {
		memcpy(v, t_medium_bo_vec, sizeof(v));
		v[0] = (uint8_t)op;
		cr_assert_eq(ses_medium_hdr_decode(&h, v, sizeof(v)), -EBADMSG,
			     "opcode 0x%02x", op);
	}
	memcpy(v, t_medium_bo_vec, sizeof(v));
	v[0] = 0x30;
	cr_assert_eq(ses_medium_hdr_decode(&h, v, sizeof(v)),
		     UET_SES_MEDIUM_HDR_LEN);
	cr_assert_eq(h.opcode, 0x30);
}

Test(ses_medium_hdr, rejects_missing_som_or_eom)
{
	static const uint8_t flags[] = { 0x01, 0x02, 0x00, 0x05, 0x06, 0x3C };
	uint8_t v[sizeof(t_medium_hd_vec)];
	struct ses_medium_hdr h;

	for (size_t i = 0; i < sizeof(flags); i++) {
		memcpy(v, t_medium_hd_vec, sizeof(v));
		v[1] = flags[i];
		cr_assert_eq(ses_medium_hdr_decode(&h, v, sizeof(v)),
			     -EBADMSG, "flags 0x%02x", flags[i]);
	}
}

Test(ses_medium_hdr, ignores_reserved_bits)
{
	uint8_t v[sizeof(t_medium_bo_vec)];
	struct ses_medium_hdr h, want;

	/* opcode 7:6, request_length 15:14, pid/ri 15:12. */
	memcpy(v, t_medium_bo_vec, sizeof(v));
	v[0] |= 0xC0;
	v[2] |= 0xC0;
	v[8] |= 0xF0;
	v[10] |= 0xF0;
	t_medium_bo_fill(&want);
	cr_assert_eq(ses_medium_hdr_decode(&h, v, sizeof(v)),
		     UET_SES_MEDIUM_HDR_LEN);
	t_medium_assert_eq(&h, &want);
}

Test(ses_medium_hdr, writes_reserved_bits_as_zero)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_medium_hdr h;

	t_medium_hd_fill(&h);
	h.opcode = 0x3F;
	h.request_length = 0x3FFF;
	h.pid_on_fep = UET_SES_PID_ON_FEP_MAX;
	h.resource_index = UET_SES_RI_MAX;
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &h),
		     UET_SES_MEDIUM_HDR_LEN);
	cr_assert_eq(buf[0], 0x3F);
	cr_assert_eq(buf[2], 0x3F);
	cr_assert_eq(buf[8], 0x0F);
	cr_assert_eq(buf[10], 0x0F);
}

Test(ses_medium_hdr, rejects_out_of_range_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_medium_hdr h;

	t_medium_bo_fill(&h);
	h.job_id = UET_SES_JOB_ID_MAX + 1;
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_medium_bo_fill(&h);
	h.pid_on_fep = UET_SES_PID_ON_FEP_MAX + 1;
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_medium_bo_fill(&h);
	h.resource_index = UET_SES_RI_MAX + 1;
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_medium_bo_fill(&h);
	h.request_length = 0x4000;
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_medium_hd_fill(&h);
	h.f.eom = false;
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	t_medium_hd_fill(&h);
	h.f.som = false;
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.f.eom = false;
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &h), -EINVAL);

	t_medium_bo_fill(&h);
	h.opcode = 0x10;
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.opcode = 0x2F;
	cr_assert_eq(ses_medium_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
}
