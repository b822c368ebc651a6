/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES extension header codecs: atomic, compare-and-swap, rendezvous (ref 3.4).
 * Vectors built from ../shared/reference/uet-wire-format.md section 3 (WS).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ses/ses_hdr.h"
#include "test/unit/ses/t_ses_hdr.h"

TestSuite(ses_atomic_ext, .timeout = 10);
TestSuite(ses_cas_ext, .timeout = 10);
TestSuite(ses_rdv_ext, .timeout = 10);

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
