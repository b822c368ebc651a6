/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the test/unit/pdc/test_pdc_hdr_*.c files: codec adapters, the
 * encode/decode checks and field-by-field comparisons of decoded headers.
 */
#ifndef T_PDC_HDR_H
#define T_PDC_HDR_H

#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "pdc/pdc_hdr.h"

#define T_BUF_LEN	(UET_PDS_HDR_MAX_LEN + 8)
#define T_SENTINEL	0xEE

/* ---- helpers ------------------------------------------------------------- */

typedef ssize_t (*t_enc_fn)(uint8_t *out, size_t outlen, const void *h);
typedef ssize_t (*t_dec_fn)(void *h, const uint8_t *in, size_t inlen);

/* Adapters so one helper drives every codec without casting function types. */
#define T_ADAPT(name, type)						\
	static inline ssize_t t_##name##_enc(uint8_t *o, size_t n,	\
					     const void *h)		\
	{ return pdc_##name##_encode(o, n, (const type *)h); }		\
	static inline ssize_t t_##name##_dec(void *h, const uint8_t *in, \
					     size_t n)			\
	{ return pdc_##name##_decode((type *)h, in, n); }
T_ADAPT(prologue, struct pdc_prologue)
T_ADAPT(req, struct pdc_req)
T_ADAPT(rudi, struct pdc_rudi)
T_ADAPT(uud, struct pdc_uud)
T_ADAPT(ack, struct pdc_ack)
T_ADAPT(nack, struct pdc_nack)
T_ADAPT(ctl, struct pdc_ctl)
T_ADAPT(hdr, struct pdc_hdr)

static inline void t_put_prologue(uint8_t *p, unsigned type, unsigned nh,
				  unsigned flags)
{
	unsigned v = type << 11 | nh << 7 | flags;

	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void t_assert_bytes(const uint8_t *got, const uint8_t *want,
				  size_t len)
{
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(got[i], want[i],
			     "byte %zu: got 0x%02x, want 0x%02x", i, got[i],
			     want[i]);
}

/*
 * Encodes |h|: exactly |want| comes out, nothing is written past it, and a
 * buffer one byte short (or empty) gives -ENOBUFS.
 */
static inline void t_check_encode(t_enc_fn enc, const void *h,
				  const uint8_t *want, size_t len)
{
	uint8_t buf[T_BUF_LEN];

	memset(buf, T_SENTINEL, sizeof(buf));
	cr_assert_eq(enc(buf, sizeof(buf), h), (ssize_t)len);
	t_assert_bytes(buf, want, len);
	for (size_t i = len; i < sizeof(buf); i++)
		cr_assert_eq(buf[i], T_SENTINEL, "wrote past the header at %zu",
			     i);
	cr_assert_eq(enc(buf, len - 1, h), -ENOBUFS);
	cr_assert_eq(enc(buf, 0, h), -ENOBUFS);
}

/* Every length 0..len-1 of |vec| is rejected as truncated. */
static inline void t_check_truncated(t_dec_fn dec, void *h,
				     const uint8_t *vec, size_t len)
{
	for (size_t n = 0; n < len; n++)
		cr_assert_eq(dec(h, vec, n), -EBADMSG, "inlen %zu of %zu", n,
			     len);
}

/*
 * |vec| with its prologue replaced, padded to the largest header so the
 * length is never the reason for a rejection; returns the decode result.
 */
static inline ssize_t t_decode_patched(t_dec_fn dec, void *h,
				       const uint8_t *vec, size_t len,
				       unsigned type, unsigned nh,
				       unsigned flags)
{
	uint8_t buf[T_BUF_LEN] = { 0 };

	memcpy(buf, vec, len);
	t_put_prologue(buf, type, nh, flags);
	return dec(h, buf, sizeof(buf));
}

/* Types 0..31 outside |ok_mask| (bit per type) are rejected by |dec|. */
static inline void t_check_foreign_types(t_dec_fn dec, void *h,
					 const uint8_t *vec, size_t len,
					 uint32_t ok_mask)
{
	for (unsigned type = 0; type < 32; type++) {
		ssize_t ret;

		if (ok_mask & (1u << type))
			continue;
		ret = t_decode_patched(dec, h, vec, len, type, 0, 0);
		if (type == UET_PDS_TYPE_TSS)
			cr_assert(ret == -EBADMSG || ret == -EPROTONOSUPPORT,
				  "TSS prologue: %zd", ret);
		else
			cr_assert_eq(ret, -EBADMSG, "type %u accepted", type);
	}
}

/* next_hdr 7..15 (ref 2.3 reserved) is rejected for |vec|'s type. */
static inline void t_check_reserved_next_hdr(t_dec_fn dec, void *h,
					     const uint8_t *vec, size_t len)
{
	unsigned type = vec[0] >> 3, flags = vec[1] & 0x7F;

	for (unsigned nh = 7; nh < 16; nh++)
		cr_assert_eq(t_decode_patched(dec, h, vec, len, type, nh,
					      flags),
			     -EBADMSG, "type %u next_hdr %u accepted", type,
			     nh);
}

/* Decodes |vec| with byte |off| ORed with |mask|; must still succeed. */
static inline void t_decode_dirty(t_dec_fn dec, void *h, const uint8_t *vec,
				  size_t len, size_t off, uint8_t mask)
{
	uint8_t buf[T_BUF_LEN];

	memcpy(buf, vec, len);
	buf[off] |= mask;
	cr_assert_eq(dec(h, buf, len), (ssize_t)len,
		     "reserved bits 0x%02x at byte %zu not ignored", mask, off);
}

static inline void t_assert_pro_eq(const struct pdc_prologue *a,
				   const struct pdc_prologue *b)
{
	cr_assert_eq(a->type, b->type);
	cr_assert_eq(a->next_hdr, b->next_hdr);
	cr_assert_eq(a->flags, b->flags);
}

static inline void t_assert_req_eq(const struct pdc_req *a,
				   const struct pdc_req *b)
{
	t_assert_pro_eq(&a->pro, &b->pro);
	cr_assert_eq(a->clear_psn_offset, b->clear_psn_offset);
	cr_assert_eq(a->psn, b->psn);
	cr_assert_eq(a->spdcid, b->spdcid);
	if (a->pro.flags & UET_PDS_F_REQ_SYN) {
		cr_assert_eq(a->use_rsv_pdc, b->use_rsv_pdc);
		cr_assert_eq(a->psn_offset, b->psn_offset);
	} else {
		cr_assert_eq(a->dpdcid, b->dpdcid);
	}
	if (a->pro.type == UET_PDS_TYPE_RUD_CC_REQ ||
	    a->pro.type == UET_PDS_TYPE_ROD_CC_REQ) {
		cr_assert_eq(a->ccc_id, b->ccc_id);
		cr_assert_eq(a->credit_target, b->credit_target);
	}
}

static inline void t_assert_ack_eq(const struct pdc_ack *a,
				   const struct pdc_ack *b)
{
	t_assert_pro_eq(&a->pro, &b->pro);
	if (a->pro.flags & UET_PDS_F_ACK_P)
		cr_assert_eq(a->probe_opaque, b->probe_opaque);
	else
		cr_assert_eq(a->ack_psn_offset, b->ack_psn_offset);
	cr_assert_eq(a->cack_psn, b->cack_psn);
	cr_assert_eq(a->spdcid, b->spdcid);
	cr_assert_eq(a->dpdcid, b->dpdcid);
	if (a->pro.type == UET_PDS_TYPE_ACK)
		return;
	cr_assert_eq(a->cc_type, b->cc_type);
	cr_assert_eq(a->cc_flags, b->cc_flags);
	cr_assert_eq(a->mpr, b->mpr);
	cr_assert_eq(a->sack_psn_offset, b->sack_psn_offset);
	cr_assert_eq(a->sack_bitmap, b->sack_bitmap);
	if (a->pro.type == UET_PDS_TYPE_ACK_CCX) {
		t_assert_bytes(a->ccx_state, b->ccx_state,
			       UET_PDS_CCX_STATE_LEN);
	} else if (a->cc_type == UET_PDS_CC_NSCC) {
		cr_assert_eq(a->cc.nscc.service_time, b->cc.nscc.service_time);
		cr_assert_eq(a->cc.nscc.restore_cwnd, b->cc.nscc.restore_cwnd);
		cr_assert_eq(a->cc.nscc.rcv_cwnd_penalty,
			     b->cc.nscc.rcv_cwnd_penalty);
		cr_assert_eq(a->cc.nscc.rcvd_bytes, b->cc.nscc.rcvd_bytes);
		cr_assert_eq(a->cc.nscc.ooo_count, b->cc.nscc.ooo_count);
	} else {
		cr_assert_eq(a->cc.credit.credit, b->cc.credit.credit);
		cr_assert_eq(a->cc.credit.ooo_count, b->cc.credit.ooo_count);
	}
}

static inline void t_assert_nack_eq(const struct pdc_nack *a,
				    const struct pdc_nack *b)
{
	t_assert_pro_eq(&a->pro, &b->pro);
	cr_assert_eq(a->nack_code, b->nack_code);
	cr_assert_eq(a->vendor_code, b->vendor_code);
	cr_assert_eq(a->nack_psn, b->nack_psn);
	cr_assert_eq(a->spdcid, b->spdcid);
	cr_assert_eq(a->dpdcid, b->dpdcid);
	cr_assert_eq(a->payload, b->payload);
	if (a->pro.type != UET_PDS_TYPE_NACK_CCX)
		return;
	cr_assert_eq(a->nccx_type, b->nccx_type);
	cr_assert_eq(a->nccx_state[0] & 0x0F, b->nccx_state[0] & 0x0F);
	t_assert_bytes(a->nccx_state + 1, b->nccx_state + 1,
		       UET_PDS_NCCX_STATE_LEN - 1);
}

static inline void t_assert_ctl_eq(const struct pdc_ctl *a,
				   const struct pdc_ctl *b)
{
	t_assert_pro_eq(&a->pro, &b->pro);
	if (a->pro.next_hdr == UET_PDS_CTL_PROBE)
		cr_assert_eq(a->probe_opaque, b->probe_opaque);
	cr_assert_eq(a->psn, b->psn);
	cr_assert_eq(a->spdcid, b->spdcid);
	if (a->pro.flags & UET_PDS_F_CTL_SYN) {
		cr_assert_eq(a->use_rsv_pdc, b->use_rsv_pdc);
		cr_assert_eq(a->psn_offset, b->psn_offset);
	} else {
		cr_assert_eq(a->dpdcid, b->dpdcid);
	}
	cr_assert_eq(a->payload, b->payload);
}

/* Bit masks of the types each decoder accepts (ref 2.2). */
#define T_BIT(t)	(1u << UET_PDS_TYPE_##t)
#define T_REQ_TYPES	(T_BIT(RUD_REQ) | T_BIT(ROD_REQ) | T_BIT(RUD_CC_REQ) | \
			 T_BIT(ROD_CC_REQ))
#define T_RUDI_TYPES	(T_BIT(RUDI_REQ) | T_BIT(RUDI_RESP))
#define T_ACK_TYPES	(T_BIT(ACK) | T_BIT(ACK_CC) | T_BIT(ACK_CCX))
#define T_NACK_TYPES	(T_BIT(NACK) | T_BIT(NACK_CCX))

#endif /* T_PDC_HDR_H */
