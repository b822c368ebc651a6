/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES header codecs (ses/ses_hdr.h) checked against hand-written vectors
 * built from ../shared/reference/uet-wire-format.md section 3 (WS column).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ses/ses_hdr.h"

#define T_SENTINEL	0xA5
#define T_BUF_LEN	64

TestSuite(ses_std_hdr, .timeout = 10);
TestSuite(ses_small_hdr, .timeout = 10);
TestSuite(ses_medium_hdr, .timeout = 10);
TestSuite(ses_atomic_ext, .timeout = 10);
TestSuite(ses_cas_ext, .timeout = 10);
TestSuite(ses_rdv_ext, .timeout = 10);
TestSuite(ses_rsp_hdr, .timeout = 10);
TestSuite(ses_rsp_data_hdr, .timeout = 10);
TestSuite(ses_rsp_data_small_hdr, .timeout = 10);
TestSuite(ses_names, .timeout = 10);

/*
 * Every decoder must refuse every length shorter than its header. A macro,
 * since the decoders take different struct types.
 */
#define T_ASSERT_TRUNCATED(decode, type, vec)				\
	do {								\
		for (size_t n_ = 0; n_ < sizeof(vec); n_++) {		\
			type h_;					\
			memset(&h_, 0, sizeof(h_));			\
			cr_assert_eq(decode(&h_, (vec), n_), -EBADMSG,	\
				     "length %zu of %zu", n_, sizeof(vec)); \
		}							\
	} while (0)

/* Fill an output buffer with a sentinel to catch writes past the header. */
static void t_fill(uint8_t *buf)
{
	memset(buf, T_SENTINEL, T_BUF_LEN);
}

/* |ret| and |buf| are what an encoder gave; |vec| is what it should give. */
static void t_assert_encoded(ssize_t ret, const uint8_t *buf,
			     const uint8_t *vec, size_t len)
{
	cr_assert_eq(ret, (ssize_t)len, "encode returned %zd, want %zu", ret,
		     len);
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(buf[i], vec[i], "byte %zu: 0x%02x, want 0x%02x",
			     i, buf[i], vec[i]);
	for (size_t i = len; i < T_BUF_LEN; i++)
		cr_assert_eq(buf[i], T_SENTINEL, "byte %zu written past end",
			     i);
}

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

static void t_flags_assert_eq(const struct ses_req_flags *a,
			      const struct ses_req_flags *b)
{
	cr_assert_eq(a->dc, b->dc);
	cr_assert_eq(a->ie, b->ie);
	cr_assert_eq(a->rel, b->rel);
	cr_assert_eq(a->hd, b->hd);
	cr_assert_eq(a->eom, b->eom);
	cr_assert_eq(a->som, b->som);
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

/* ======================================================================
 * Atomic extension header (ref 3.4), 4 bytes.
 * ====================================================================== */

/* ref 3.4 Atomic row; semantic_control bit 1 = CPU coherent (RP-H, SU). */
static const uint8_t t_atomic_vec[] = {
	0x0A, 0x07, 0x02, 0x00, /* atomic_opcode BXOR; datatype UINT64; semantic_control cpu-coherent; rsvd */
};

static void t_atomic_fill(struct ses_atomic_ext *h)
{
	memset(h, 0, sizeof(*h));
	h->amo_op = UET_SES_AMO_BXOR;
	h->amo_dt = UET_SES_AMO_DT_UINT64;
	h->semantic_ctl = UET_SES_AMO_CTL_CPU_COHERENT;
}

static void t_atomic_assert_eq(const struct ses_atomic_ext *got,
			       const struct ses_atomic_ext *want)
{
	cr_assert_eq(got->amo_op, want->amo_op);
	cr_assert_eq(got->amo_dt, want->amo_dt);
	cr_assert_eq(got->semantic_ctl, want->semantic_ctl);
}

Test(ses_atomic_ext, decodes_vector)
{
	struct ses_atomic_ext h;

	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_atomic_ext_decode(&h, t_atomic_vec,
					   sizeof(t_atomic_vec)),
		     UET_SES_ATOMIC_EXT_LEN);
	cr_assert_eq(h.amo_op, 0x0A);
	cr_assert_eq(h.amo_dt, 0x07);
	cr_assert_eq(h.semantic_ctl, 0x02);
}

Test(ses_atomic_ext, encodes_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_atomic_ext h;

	t_atomic_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_atomic_ext_encode(buf, sizeof(buf), &h), buf,
			 t_atomic_vec, sizeof(t_atomic_vec));
}

Test(ses_atomic_ext, encodes_cacheable_in_bit_0)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_atomic_ext h;

	t_atomic_fill(&h);
	h.semantic_ctl = UET_SES_AMO_CTL_CACHEABLE;
	cr_assert_eq(ses_atomic_ext_encode(buf, sizeof(buf), &h),
		     UET_SES_ATOMIC_EXT_LEN);
	cr_assert_eq(buf[2], 0x01);
}

Test(ses_atomic_ext, rejects_short_output)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_atomic_ext h;

	t_atomic_fill(&h);
	cr_assert_eq(ses_atomic_ext_encode(buf, UET_SES_ATOMIC_EXT_LEN - 1,
					   &h),
		     -ENOBUFS);
}

Test(ses_atomic_ext, round_trips)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_atomic_ext in, out;

	t_atomic_fill(&in);
	in.semantic_ctl = UET_SES_AMO_CTL_VALID;
	for (unsigned int op = 0; op <= 0x14; op++) {
		in.amo_op = (uint8_t)op;
		cr_assert_eq(ses_atomic_ext_encode(buf, sizeof(buf), &in),
			     UET_SES_ATOMIC_EXT_LEN, "op 0x%02x", op);
		cr_assert_eq(ses_atomic_ext_decode(&out, buf,
						   UET_SES_ATOMIC_EXT_LEN),
			     UET_SES_ATOMIC_EXT_LEN, "op 0x%02x", op);
		t_atomic_assert_eq(&out, &in);
	}
	in.amo_op = UET_SES_AMO_SUM;
	for (unsigned int dt = 0; dt <= 0x11; dt++) {
		in.amo_dt = (uint8_t)dt;
		cr_assert_eq(ses_atomic_ext_encode(buf, sizeof(buf), &in),
			     UET_SES_ATOMIC_EXT_LEN, "dt 0x%02x", dt);
		cr_assert_eq(ses_atomic_ext_decode(&out, buf,
						   UET_SES_ATOMIC_EXT_LEN),
			     UET_SES_ATOMIC_EXT_LEN, "dt 0x%02x", dt);
		t_atomic_assert_eq(&out, &in);
	}
}

Test(ses_atomic_ext, rejects_truncated)
{
	T_ASSERT_TRUNCATED(ses_atomic_ext_decode, struct ses_atomic_ext,
			   t_atomic_vec);
}

Test(ses_atomic_ext, rejects_unknown_datatype)
{
	uint8_t v[sizeof(t_atomic_vec)];
	struct ses_atomic_ext h;

	memcpy(v, t_atomic_vec, sizeof(v));
	v[1] = 0x12;
	cr_assert_eq(ses_atomic_ext_decode(&h, v, sizeof(v)), -EBADMSG);
	v[1] = 0xFF;
	cr_assert_eq(ses_atomic_ext_decode(&h, v, sizeof(v)), -EBADMSG);
}

Test(ses_atomic_ext, rejects_reserved_op)
{
	uint8_t v[sizeof(t_atomic_vec)];
	struct ses_atomic_ext h;

	for (unsigned int op = 0x15; op <= 0xDF; op++) {
		memcpy(v, t_atomic_vec, sizeof(v));
		v[0] = (uint8_t)op;
		cr_assert_eq(ses_atomic_ext_decode(&h, v, sizeof(v)), -EBADMSG,
			     "op 0x%02x", op);
	}
	/* Past the vendor range 0xE0-0xFE (ref 3.4, TH). */
	memcpy(v, t_atomic_vec, sizeof(v));
	v[0] = 0xFF;
	cr_assert_eq(ses_atomic_ext_decode(&h, v, sizeof(v)), -EBADMSG);
}

Test(ses_atomic_ext, accepts_vendor_op)
{
	uint8_t v[sizeof(t_atomic_vec)];
	uint8_t buf[T_BUF_LEN];
	struct ses_atomic_ext h;

	memcpy(v, t_atomic_vec, sizeof(v));
	v[0] = 0xE0;
	cr_assert_eq(ses_atomic_ext_decode(&h, v, sizeof(v)),
		     UET_SES_ATOMIC_EXT_LEN);
	cr_assert_eq(h.amo_op, 0xE0);
	v[0] = 0xFE;
	cr_assert_eq(ses_atomic_ext_decode(&h, v, sizeof(v)),
		     UET_SES_ATOMIC_EXT_LEN);
	cr_assert_eq(h.amo_op, 0xFE);

	t_atomic_fill(&h);
	h.amo_op = 0xE0;
	v[0] = 0xE0;
	t_fill(buf);
	t_assert_encoded(ses_atomic_ext_encode(buf, sizeof(buf), &h), buf, v,
			 sizeof(v));
}

Test(ses_atomic_ext, ignores_reserved_bits)
{
	uint8_t v[sizeof(t_atomic_vec)];
	struct ses_atomic_ext h;

	/* semantic_control 7:2 and byte 3. */
	memcpy(v, t_atomic_vec, sizeof(v));
	v[2] |= 0xFC;
	v[3] = 0xFF;
	cr_assert_eq(ses_atomic_ext_decode(&h, v, sizeof(v)),
		     UET_SES_ATOMIC_EXT_LEN);
	cr_assert_eq(h.amo_op, 0x0A);
	cr_assert_eq(h.amo_dt, 0x07);
	cr_assert_eq(h.semantic_ctl, 0x02);
}

Test(ses_atomic_ext, writes_reserved_bits_as_zero)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_atomic_ext h;

	t_atomic_fill(&h);
	h.semantic_ctl = 0xFF;
	t_fill(buf);
	cr_assert_eq(ses_atomic_ext_encode(buf, sizeof(buf), &h),
		     UET_SES_ATOMIC_EXT_LEN);
	cr_assert_eq(buf[2], 0x03);
	cr_assert_eq(buf[3], 0x00);
}

Test(ses_atomic_ext, rejects_out_of_range_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_atomic_ext h;

	t_atomic_fill(&h);
	h.amo_dt = 0x12;
	cr_assert_eq(ses_atomic_ext_encode(buf, sizeof(buf), &h), -EINVAL);

	t_atomic_fill(&h);
	h.amo_op = 0x15;
	cr_assert_eq(ses_atomic_ext_encode(buf, sizeof(buf), &h), -EINVAL);
	h.amo_op = 0xDF;
	cr_assert_eq(ses_atomic_ext_encode(buf, sizeof(buf), &h), -EINVAL);
	h.amo_op = 0xFF;
	cr_assert_eq(ses_atomic_ext_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ======================================================================
 * Compare-and-swap extension header (ref 3.4), 36 bytes.
 * ====================================================================== */

/* ref 3.4 Compare-and-swap row: atomic (4) + compare 16 + swap 16. */
static const uint8_t t_cas_vec[] = {
	0x12, 0x08, 0x03, 0x00, /* atomic_opcode CSWAP_GT; datatype INT128; semantic_control cacheable|coherent; rsvd */
	0x00, 0x01, 0x02, 0x03, /* compare 0-3 */
	0x04, 0x05, 0x06, 0x07, /* compare 4-7 */
	0x08, 0x09, 0x0A, 0x0B, /* compare 8-11 */
	0x0C, 0x0D, 0x0E, 0x0F, /* compare 12-15 */
	0xF0, 0xF1, 0xF2, 0xF3, /* swap 0-3 */
	0xF4, 0xF5, 0xF6, 0xF7, /* swap 4-7 */
	0xF8, 0xF9, 0xFA, 0xFB, /* swap 8-11 */
	0xFC, 0xFD, 0xFE, 0xFF, /* swap 12-15 */
};

static void t_cas_fill(struct ses_cas_ext *h)
{
	memset(h, 0, sizeof(*h));
	h->atomic.amo_op = UET_SES_AMO_CSWAP_GT;
	h->atomic.amo_dt = UET_SES_AMO_DT_INT128;
	h->atomic.semantic_ctl = UET_SES_AMO_CTL_CACHEABLE |
				 UET_SES_AMO_CTL_CPU_COHERENT;
	for (unsigned int i = 0; i < UET_SES_CAS_OPERAND_LEN; i++) {
		h->compare[i] = (uint8_t)i;
		h->swap[i] = (uint8_t)(0xF0 + i);
	}
}

static void t_cas_assert_eq(const struct ses_cas_ext *got,
			    const struct ses_cas_ext *want)
{
	t_atomic_assert_eq(&got->atomic, &want->atomic);
	cr_assert_arr_eq(got->compare, want->compare, UET_SES_CAS_OPERAND_LEN);
	cr_assert_arr_eq(got->swap, want->swap, UET_SES_CAS_OPERAND_LEN);
}

Test(ses_cas_ext, decodes_vector)
{
	struct ses_cas_ext h;

	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_cas_ext_decode(&h, t_cas_vec, sizeof(t_cas_vec)),
		     UET_SES_CAS_EXT_LEN);
	cr_assert_eq(h.atomic.amo_op, 0x12);
	cr_assert_eq(h.atomic.amo_dt, 0x08);
	cr_assert_eq(h.atomic.semantic_ctl, 0x03);
	for (unsigned int i = 0; i < UET_SES_CAS_OPERAND_LEN; i++) {
		cr_assert_eq(h.compare[i], i, "compare[%u]", i);
		cr_assert_eq(h.swap[i], 0xF0 + i, "swap[%u]", i);
	}
}

Test(ses_cas_ext, encodes_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_cas_ext h;

	t_cas_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_cas_ext_encode(buf, sizeof(buf), &h), buf,
			 t_cas_vec, sizeof(t_cas_vec));
}

Test(ses_cas_ext, rejects_short_output)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_cas_ext h;

	t_cas_fill(&h);
	cr_assert_eq(ses_cas_ext_encode(buf, UET_SES_CAS_EXT_LEN - 1, &h),
		     -ENOBUFS);
	cr_assert_eq(ses_cas_ext_encode(buf, UET_SES_ATOMIC_EXT_LEN, &h),
		     -ENOBUFS);
}

Test(ses_cas_ext, round_trips)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_cas_ext in, out;

	t_cas_fill(&in);
	for (unsigned int op = 0x0D; op <= 0x12; op++) {
		in.atomic.amo_op = (uint8_t)op;
		cr_assert_eq(ses_cas_ext_encode(buf, sizeof(buf), &in),
			     UET_SES_CAS_EXT_LEN, "op 0x%02x", op);
		cr_assert_eq(ses_cas_ext_decode(&out, buf,
						UET_SES_CAS_EXT_LEN),
			     UET_SES_CAS_EXT_LEN, "op 0x%02x", op);
		t_cas_assert_eq(&out, &in);
	}
}

Test(ses_cas_ext, rejects_truncated)
{
	T_ASSERT_TRUNCATED(ses_cas_ext_decode, struct ses_cas_ext, t_cas_vec);
}

Test(ses_cas_ext, rejects_non_cswap_op)
{
	static const uint8_t ops[] = { 0x02, 0x0C, 0x13, 0x14, 0xE0 };
	uint8_t v[sizeof(t_cas_vec)];
	struct ses_cas_ext h;

	for (size_t i = 0; i < sizeof(ops); i++) {
		memcpy(v, t_cas_vec, sizeof(v));
		v[0] = ops[i];
		cr_assert_eq(ses_cas_ext_decode(&h, v, sizeof(v)), -EBADMSG,
			     "op 0x%02x", ops[i]);
	}
}

Test(ses_cas_ext, rejects_unknown_datatype)
{
	uint8_t v[sizeof(t_cas_vec)];
	struct ses_cas_ext h;

	memcpy(v, t_cas_vec, sizeof(v));
	v[1] = 0x12;
	cr_assert_eq(ses_cas_ext_decode(&h, v, sizeof(v)), -EBADMSG);
}

Test(ses_cas_ext, ignores_reserved_bits)
{
	uint8_t v[sizeof(t_cas_vec)];
	struct ses_cas_ext h, want;

	memcpy(v, t_cas_vec, sizeof(v));
	v[2] |= 0xFC;
	v[3] = 0xFF;
	t_cas_fill(&want);
	cr_assert_eq(ses_cas_ext_decode(&h, v, sizeof(v)),
		     UET_SES_CAS_EXT_LEN);
	t_cas_assert_eq(&h, &want);
}

Test(ses_cas_ext, writes_reserved_bits_as_zero)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_cas_ext h;

	t_cas_fill(&h);
	h.atomic.semantic_ctl = 0xFF;
	cr_assert_eq(ses_cas_ext_encode(buf, sizeof(buf), &h),
		     UET_SES_CAS_EXT_LEN);
	cr_assert_eq(buf[2], 0x03);
	cr_assert_eq(buf[3], 0x00);
}

Test(ses_cas_ext, rejects_out_of_range_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_cas_ext h;

	t_cas_fill(&h);
	h.atomic.amo_op = UET_SES_AMO_SUM;
	cr_assert_eq(ses_cas_ext_encode(buf, sizeof(buf), &h), -EINVAL);
	h.atomic.amo_op = UET_SES_AMO_MSWAP;
	cr_assert_eq(ses_cas_ext_encode(buf, sizeof(buf), &h), -EINVAL);
	h.atomic.amo_op = 0xE0;
	cr_assert_eq(ses_cas_ext_encode(buf, sizeof(buf), &h), -EINVAL);

	t_cas_fill(&h);
	h.atomic.amo_dt = 0x12;
	cr_assert_eq(ses_cas_ext_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ======================================================================
 * Rendezvous extension header (ref 3.4), 24 bytes, WS layout.
 * ====================================================================== */

/* ref 3.4 Rendezvous row and its first two disagreement bullets (WS). */
static const uint8_t t_rdv_vec[] = {
	0x12, 0x34, 0x56, 0x78, /* eager_length 0x12345678 */
	0x2F, 0xED, 0x0C, 0xBA, /* rsvd 2|pid_on_fep 0x2FED (14 bits); rsvd 4|resource_index 0xCBA */
	0x01, 0x23, 0x45, 0x67, /* read_offset 63:32 */
	0x89, 0xAB, 0xCD, 0xEF, /* read_offset 31:0 */
	0x88, 0x77, 0x66, 0x55, /* read_match_bits 63:32 */
	0x44, 0x33, 0x22, 0x11, /* read_match_bits 31:0 */
};

static void t_rdv_fill(struct ses_rdv_ext *h)
{
	memset(h, 0, sizeof(*h));
	h->eager_length = 0x12345678;
	h->pid_on_fep = 0x2FED;
	h->resource_index = 0xCBA;
	h->read_offset = 0x0123456789ABCDEFull;
	h->read_match_bits = 0x8877665544332211ull;
}

static void t_rdv_assert_eq(const struct ses_rdv_ext *got,
			    const struct ses_rdv_ext *want)
{
	cr_assert_eq(got->eager_length, want->eager_length);
	cr_assert_eq(got->pid_on_fep, want->pid_on_fep);
	cr_assert_eq(got->resource_index, want->resource_index);
	cr_assert_eq(got->read_offset, want->read_offset);
	cr_assert_eq(got->read_match_bits, want->read_match_bits);
}

Test(ses_rdv_ext, decodes_vector)
{
	struct ses_rdv_ext h;

	memset(&h, 0, sizeof(h));
	cr_assert_eq(ses_rdv_ext_decode(&h, t_rdv_vec, sizeof(t_rdv_vec)),
		     UET_SES_RDV_EXT_LEN);
	cr_assert_eq(h.eager_length, 0x12345678);
	cr_assert_eq(h.pid_on_fep, 0x2FED);
	cr_assert_eq(h.resource_index, 0xCBA);
	cr_assert_eq(h.read_offset, 0x0123456789ABCDEFull);
	cr_assert_eq(h.read_match_bits, 0x8877665544332211ull);
}

Test(ses_rdv_ext, encodes_vector)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rdv_ext h;

	t_rdv_fill(&h);
	t_fill(buf);
	t_assert_encoded(ses_rdv_ext_encode(buf, sizeof(buf), &h), buf,
			 t_rdv_vec, sizeof(t_rdv_vec));
}

Test(ses_rdv_ext, encodes_12_bit_pid)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rdv_ext h;

	t_rdv_fill(&h);
	h.pid_on_fep = 0xFED;
	cr_assert_eq(ses_rdv_ext_encode(buf, sizeof(buf), &h),
		     UET_SES_RDV_EXT_LEN);
	cr_assert_eq(buf[4], 0x0F);
	cr_assert_eq(buf[5], 0xED);
	cr_assert_eq(buf[6], 0x0C);
	cr_assert_eq(buf[7], 0xBA);
}

Test(ses_rdv_ext, rejects_short_output)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rdv_ext h;

	t_rdv_fill(&h);
	cr_assert_eq(ses_rdv_ext_encode(buf, UET_SES_RDV_EXT_LEN - 1, &h),
		     -ENOBUFS);
	cr_assert_eq(ses_rdv_ext_encode(buf, 0, &h), -ENOBUFS);
}

Test(ses_rdv_ext, round_trips)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rdv_ext in, out;

	t_rdv_fill(&in);
	cr_assert_eq(ses_rdv_ext_encode(buf, sizeof(buf), &in),
		     UET_SES_RDV_EXT_LEN);
	cr_assert_eq(ses_rdv_ext_decode(&out, buf, UET_SES_RDV_EXT_LEN),
		     UET_SES_RDV_EXT_LEN);
	t_rdv_assert_eq(&out, &in);

	in.pid_on_fep = UET_SES_RDV_PID_MAX;
	in.resource_index = UET_SES_RI_MAX;
	in.eager_length = 0xFFFFFFFF;
	cr_assert_eq(ses_rdv_ext_encode(buf, sizeof(buf), &in),
		     UET_SES_RDV_EXT_LEN);
	cr_assert_eq(ses_rdv_ext_decode(&out, buf, UET_SES_RDV_EXT_LEN),
		     UET_SES_RDV_EXT_LEN);
	t_rdv_assert_eq(&out, &in);
}

Test(ses_rdv_ext, rejects_truncated)
{
	T_ASSERT_TRUNCATED(ses_rdv_ext_decode, struct ses_rdv_ext, t_rdv_vec);
}

Test(ses_rdv_ext, ignores_reserved_bits)
{
	uint8_t v[sizeof(t_rdv_vec)];
	struct ses_rdv_ext h, want;

	/* pid 15:14, ri 15:12 of the second word. */
	memcpy(v, t_rdv_vec, sizeof(v));
	v[4] |= 0xC0;
	v[6] |= 0xF0;
	t_rdv_fill(&want);
	cr_assert_eq(ses_rdv_ext_decode(&h, v, sizeof(v)),
		     UET_SES_RDV_EXT_LEN);
	t_rdv_assert_eq(&h, &want);
}

Test(ses_rdv_ext, writes_reserved_bits_as_zero)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rdv_ext h;

	t_rdv_fill(&h);
	h.pid_on_fep = UET_SES_RDV_PID_MAX;
	h.resource_index = UET_SES_RI_MAX;
	cr_assert_eq(ses_rdv_ext_encode(buf, sizeof(buf), &h),
		     UET_SES_RDV_EXT_LEN);
	cr_assert_eq(buf[4], 0x3F);
	cr_assert_eq(buf[5], 0xFF);
	cr_assert_eq(buf[6], 0x0F);
	cr_assert_eq(buf[7], 0xFF);
}

Test(ses_rdv_ext, rejects_out_of_range_on_encode)
{
	uint8_t buf[T_BUF_LEN];
	struct ses_rdv_ext h;

	t_rdv_fill(&h);
	h.pid_on_fep = UET_SES_RDV_PID_MAX + 1;
	cr_assert_eq(ses_rdv_ext_encode(buf, sizeof(buf), &h), -EINVAL);

	t_rdv_fill(&h);
	h.resource_index = UET_SES_RI_MAX + 1;
	cr_assert_eq(ses_rdv_ext_encode(buf, sizeof(buf), &h), -EINVAL);
}

/* ======================================================================
 * Responses (ref 3.5): shared checks for the version and return code.
 * ====================================================================== */

/* Return codes ref 3.5 leaves reserved: 0x25-0x2F, 0x38-0x3D, 0x3F. */
static bool t_rc_is_reserved(unsigned int rc)
{
	return (rc >= 0x25 && rc <= 0x2F) || (rc >= 0x38 && rc <= 0x3D) ||
	       rc == 0x3F;
}

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

/* ======================================================================
 * Name tables and validity predicates (ref 3.2, 3.4, 3.5).
 * ====================================================================== */

enum t_table { T_OPCODE, T_RSP_OPCODE, T_RC, T_AMO_OP, T_AMO_DT };

/*
 * One row: an empty |name| means the reference does not name the value.
 * The name is held by value: Criterion runs each parameter in a fresh
 * process, where pointers into the parent's data are not valid.
 */
struct t_name {
	enum t_table table;
	uint8_t value;
	char name[32];
};

/* Every value named in ref 3.2, 3.4 and 3.5, plus unnamed edges. */
static const struct t_name t_names[] = {
	/* ref 3.2 request opcodes */
	{ T_OPCODE, 0x00, "NO_OP" },
	{ T_OPCODE, 0x01, "WRITE" },
	{ T_OPCODE, 0x02, "READ" },
	{ T_OPCODE, 0x03, "ATOMIC" },
	{ T_OPCODE, 0x04, "FETCHING_ATOMIC" },
	{ T_OPCODE, 0x05, "SEND" },
	{ T_OPCODE, 0x06, "RENDEZVOUS_SEND" },
	{ T_OPCODE, 0x07, "DATAGRAM_SEND" },
	{ T_OPCODE, 0x08, "DEFERRABLE_SEND" },
	{ T_OPCODE, 0x09, "TAGGED_SEND" },
	{ T_OPCODE, 0x0A, "RENDEZVOUS_TSEND" },
	{ T_OPCODE, 0x0B, "DEFERRABLE_TSEND" },
	{ T_OPCODE, 0x0C, "DEFERRABLE_RTR" },
	{ T_OPCODE, 0x0D, "TSEND_ATOMIC" },
	{ T_OPCODE, 0x0E, "TSEND_FETCH_ATOMIC" },
	{ T_OPCODE, 0x0F, "MSG_ERROR" },
	{ T_OPCODE, 0x10, "" },
	{ T_OPCODE, 0x2F, "" },
	{ T_OPCODE, 0x30, "" },
	{ T_OPCODE, 0x3F, "" },
	{ T_OPCODE, 0x40, "" },
	{ T_OPCODE, 0xFF, "" },
	/* ref 3.5 response opcodes */
	{ T_RSP_OPCODE, 0x00, "DEFAULT_RESPONSE" },
	{ T_RSP_OPCODE, 0x01, "RESPONSE" },
	{ T_RSP_OPCODE, 0x02, "RESPONSE_W_DATA" },
	{ T_RSP_OPCODE, 0x03, "NO_RESPONSE" },
	{ T_RSP_OPCODE, 0x04, "" },
	{ T_RSP_OPCODE, 0x30, "" },
	{ T_RSP_OPCODE, 0xFF, "" },
	/* ref 3.5 return codes */
	{ T_RC, 0x00, "RC_NULL" },
	{ T_RC, 0x01, "RC_OK" },
	{ T_RC, 0x02, "RC_BAD_GENERATION" },
	{ T_RC, 0x03, "RC_DISABLED" },
	{ T_RC, 0x04, "RC_DISABLED_GEN" },
	{ T_RC, 0x05, "RC_NO_MATCH" },
	{ T_RC, 0x06, "RC_UNSUPPORTED_OP" },
	{ T_RC, 0x07, "RC_UNSUPPORTED_SIZE" },
	{ T_RC, 0x08, "RC_AT_INVALID" },
	{ T_RC, 0x09, "RC_AT_PERM" },
	{ T_RC, 0x0A, "RC_AT_ATS_ERROR" },
	{ T_RC, 0x0B, "RC_AT_NO_TRANS" },
	{ T_RC, 0x0C, "RC_AT_OUT_OF_RANGE" },
	{ T_RC, 0x0D, "RC_HOST_POISONED" },
	{ T_RC, 0x0E, "RC_HOST_UNSUCCESS_CMPL" },
	{ T_RC, 0x0F, "RC_AMO_UNSUPPORTED_OP" },
	{ T_RC, 0x10, "RC_AMO_UNSUPPORTED_DT" },
	{ T_RC, 0x11, "RC_AMO_UNSUPPORTED_SIZE" },
	{ T_RC, 0x12, "RC_AMO_UNALIGNED" },
	{ T_RC, 0x13, "RC_AMO_FP_NAN" },
	{ T_RC, 0x14, "RC_AMO_FP_UNDERFLOW" },
	{ T_RC, 0x15, "RC_AMO_FP_OVERFLOW" },
	{ T_RC, 0x16, "RC_AMO_FP_INEXACT" },
	{ T_RC, 0x17, "RC_PERM_VIOLATION" },
	{ T_RC, 0x18, "RC_OP_VIOLATION" },
	{ T_RC, 0x19, "RC_BAD_INDEX" },
	{ T_RC, 0x1A, "RC_BAD_PID" },
	{ T_RC, 0x1B, "RC_BAD_JOB_ID" },
	{ T_RC, 0x1C, "RC_BAD_MKEY" },
	{ T_RC, 0x1D, "RC_BAD_ADDR" },
	{ T_RC, 0x1E, "RC_CANCELLED" },
	{ T_RC, 0x1F, "RC_UNDELIVERABLE" },
	{ T_RC, 0x20, "RC_UNCOR" },
	{ T_RC, 0x21, "RC_UNCOR_TRNSNT" },
	{ T_RC, 0x22, "RC_TOO_LONG" },
	{ T_RC, 0x23, "RC_INITIATOR_ERR" },
	{ T_RC, 0x24, "RC_DROPPED" },
	{ T_RC, 0x25, "" },
	{ T_RC, 0x30, "" },
	{ T_RC, 0x3E, "" },
	{ T_RC, 0x3F, "" },
	{ T_RC, 0xFF, "" },
	/* ref 3.4 atomic opcodes */
	{ T_AMO_OP, 0x00, "MIN" },
	{ T_AMO_OP, 0x01, "MAX" },
	{ T_AMO_OP, 0x02, "SUM" },
	{ T_AMO_OP, 0x03, "DIFF" },
	{ T_AMO_OP, 0x04, "PROD" },
	{ T_AMO_OP, 0x05, "LOR" },
	{ T_AMO_OP, 0x06, "LAND" },
	{ T_AMO_OP, 0x07, "BOR" },
	{ T_AMO_OP, 0x08, "BAND" },
	{ T_AMO_OP, 0x09, "LXOR" },
	{ T_AMO_OP, 0x0A, "BXOR" },
	{ T_AMO_OP, 0x0B, "READ" },
	{ T_AMO_OP, 0x0C, "WRITE" },
	{ T_AMO_OP, 0x0D, "CSWAP" },
	{ T_AMO_OP, 0x0E, "CSWAP_NE" },
	{ T_AMO_OP, 0x0F, "CSWAP_LE" },
	{ T_AMO_OP, 0x10, "CSWAP_LT" },
	{ T_AMO_OP, 0x11, "CSWAP_GE" },
	{ T_AMO_OP, 0x12, "CSWAP_GT" },
	{ T_AMO_OP, 0x13, "MSWAP" },
	{ T_AMO_OP, 0x14, "INVAL" },
	{ T_AMO_OP, 0x15, "" },
	{ T_AMO_OP, 0xDF, "" },
	{ T_AMO_OP, 0xE0, "" },
	{ T_AMO_OP, 0xFF, "" },
	/* ref 3.4 atomic datatypes */
	{ T_AMO_DT, 0x00, "INT8" },
	{ T_AMO_DT, 0x01, "UINT8" },
	{ T_AMO_DT, 0x02, "INT16" },
	{ T_AMO_DT, 0x03, "UINT16" },
	{ T_AMO_DT, 0x04, "INT32" },
	{ T_AMO_DT, 0x05, "UINT32" },
	{ T_AMO_DT, 0x06, "INT64" },
	{ T_AMO_DT, 0x07, "UINT64" },
	{ T_AMO_DT, 0x08, "INT128" },
	{ T_AMO_DT, 0x09, "UINT128" },
	{ T_AMO_DT, 0x0A, "FLOAT" },
	{ T_AMO_DT, 0x0B, "DOUBLE" },
	{ T_AMO_DT, 0x0C, "FLOAT_COMPLEX" },
	{ T_AMO_DT, 0x0D, "DOUBLE_COMPLEX" },
	{ T_AMO_DT, 0x0E, "LONG_DOUBLE" },
	{ T_AMO_DT, 0x0F, "LONG_DOUBLE_COMPLEX" },
	{ T_AMO_DT, 0x10, "BF16" },
	{ T_AMO_DT, 0x11, "FP16" },
	{ T_AMO_DT, 0x12, "" },
	{ T_AMO_DT, 0xFF, "" },
};

static const char *t_name_of(enum t_table table, uint8_t value)
{
	switch (table) {
	case T_OPCODE:
		return ses_opcode_name(value);
	case T_RSP_OPCODE:
		return ses_rsp_opcode_name(value);
	case T_RC:
		return ses_rc_name(value);
	case T_AMO_OP:
		return ses_amo_op_name(value);
	case T_AMO_DT:
		return ses_amo_dt_name(value);
	}
	return NULL;
}

ParameterizedTestParameters(ses_names, names_every_value)
{
	return cr_make_param_array(struct t_name, t_names,
				   sizeof(t_names) / sizeof(t_names[0]));
}

ParameterizedTest(const struct t_name *row, ses_names, names_every_value)
{
	const char *got = t_name_of(row->table, row->value);

	if (!row->name[0]) {
		cr_assert_null(got, "table %d value 0x%02x: \"%s\"",
			       (int)row->table, row->value, got);
		return;
	}
	cr_assert_not_null(got, "table %d value 0x%02x", (int)row->table,
			   row->value);
	cr_assert_str_eq(got, row->name, "table %d value 0x%02x",
			 (int)row->table, row->value);
}

Test(ses_names, opcode_validity_edges)
{
	cr_assert(ses_opcode_is_valid(0x00));
	cr_assert(ses_opcode_is_valid(0x0F));
	cr_assert_not(ses_opcode_is_valid(0x10));
	cr_assert_not(ses_opcode_is_valid(0x2F));
	cr_assert(ses_opcode_is_valid(0x30));
	cr_assert(ses_opcode_is_valid(0x3F));
	cr_assert_not(ses_opcode_is_valid(0x40));
	cr_assert_not(ses_opcode_is_valid(0xFF));
}

Test(ses_names, rsp_opcode_validity_edges)
{
	cr_assert(ses_rsp_opcode_is_valid(0x00));
	cr_assert(ses_rsp_opcode_is_valid(0x02));
	cr_assert(ses_rsp_opcode_is_valid(0x03));
	cr_assert_not(ses_rsp_opcode_is_valid(0x04));
	cr_assert_not(ses_rsp_opcode_is_valid(0x2F));
	cr_assert(ses_rsp_opcode_is_valid(0x30));
	cr_assert(ses_rsp_opcode_is_valid(0x3F));
	cr_assert_not(ses_rsp_opcode_is_valid(0x40));
	cr_assert_not(ses_rsp_opcode_is_valid(0xFF));
}

Test(ses_names, rc_validity_edges)
{
	for (unsigned int rc = 0; rc <= 0x3F; rc++)
		cr_assert_eq(ses_rc_is_valid((uint8_t)rc),
			     !t_rc_is_reserved(rc), "rc 0x%02x", rc);
	cr_assert_not(ses_rc_is_valid(0x40));
	cr_assert_not(ses_rc_is_valid(0xFF));
}

Test(ses_names, amo_op_cswap_edges)
{
	cr_assert_not(ses_amo_op_is_cswap(0x00));
	cr_assert_not(ses_amo_op_is_cswap(0x0C));
	for (unsigned int op = 0x0D; op <= 0x12; op++)
		cr_assert(ses_amo_op_is_cswap((uint8_t)op), "op 0x%02x", op);
	cr_assert_not(ses_amo_op_is_cswap(0x13));
	cr_assert_not(ses_amo_op_is_cswap(0xE0));
	cr_assert_not(ses_amo_op_is_cswap(0xFF));
}
