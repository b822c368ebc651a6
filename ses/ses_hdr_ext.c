/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES extension header codecs: atomic, compare-and-swap and rendezvous
 * (ref 3.4). They follow the standard request header.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "ses/ses_hdr.h"
#include "uet_codec.h"

bool ses_amo_op_is_cswap(uint8_t amo_op)
{
	return amo_op >= UET_SES_AMO_CSWAP && amo_op <= UET_SES_AMO_CSWAP_GT;
}

static bool ses_atomic_ext_is_valid(const struct ses_atomic_ext *h)
{
	bool op_ok = ses_amo_op_name(h->amo_op) != NULL ||
		     (h->amo_op >= UET_SES_AMO_VENDOR_FIRST &&
		      h->amo_op <= UET_SES_AMO_VENDOR_LAST);

	return op_ok && ses_amo_dt_name(h->amo_dt) != NULL;
}

static uint8_t *ses_atomic_ext_put(uint8_t *p, const struct ses_atomic_ext *h)
{
	p = uet_put_u8(p, h->amo_op);
	p = uet_put_u8(p, h->amo_dt);
	p = uet_put_u8(p, h->semantic_ctl & UET_SES_AMO_CTL_VALID);
	return uet_put_u8(p, 0);	/* reserved */
}

static void ses_atomic_ext_get(struct ses_atomic_ext *h, const uint8_t *p)
{
	h->amo_op = p[0];
	h->amo_dt = p[1];
	h->semantic_ctl = p[2] & UET_SES_AMO_CTL_VALID;
}

ssize_t ses_atomic_ext_encode(uint8_t *out, size_t outlen,
			      const struct ses_atomic_ext *h)
{
	if (!ses_atomic_ext_is_valid(h))
		return -EINVAL;
	if (outlen < UET_SES_ATOMIC_EXT_LEN)
		return -ENOBUFS;
	ses_atomic_ext_put(out, h);
	return UET_SES_ATOMIC_EXT_LEN;
}

ssize_t ses_atomic_ext_decode(struct ses_atomic_ext *h, const uint8_t *in,
			      size_t inlen)
{
	if (inlen < UET_SES_ATOMIC_EXT_LEN)
		return -EBADMSG;
	ses_atomic_ext_get(h, in);
	if (!ses_atomic_ext_is_valid(h))
		return -EBADMSG;
	return UET_SES_ATOMIC_EXT_LEN;
}

ssize_t ses_cas_ext_encode(uint8_t *out, size_t outlen,
			   const struct ses_cas_ext *h)
{
	uint8_t *p;

	if (!ses_atomic_ext_is_valid(&h->atomic) ||
	    !ses_amo_op_is_cswap(h->atomic.amo_op))
		return -EINVAL;
	if (outlen < UET_SES_CAS_EXT_LEN)
		return -ENOBUFS;
	p = ses_atomic_ext_put(out, &h->atomic);
	memcpy(p, h->compare, UET_SES_CAS_OPERAND_LEN);
	p += UET_SES_CAS_OPERAND_LEN;
	memcpy(p, h->swap, UET_SES_CAS_OPERAND_LEN);
	p += UET_SES_CAS_OPERAND_LEN;
	assert(p - out == UET_SES_CAS_EXT_LEN);
	return UET_SES_CAS_EXT_LEN;
}

ssize_t ses_cas_ext_decode(struct ses_cas_ext *h, const uint8_t *in,
			   size_t inlen)
{
	const uint8_t *p = in + UET_SES_ATOMIC_EXT_LEN;

	if (inlen < UET_SES_CAS_EXT_LEN)
		return -EBADMSG;
	ses_atomic_ext_get(&h->atomic, in);
	if (!ses_atomic_ext_is_valid(&h->atomic) ||
	    !ses_amo_op_is_cswap(h->atomic.amo_op))
		return -EBADMSG;
	memcpy(h->compare, p, UET_SES_CAS_OPERAND_LEN);
	memcpy(h->swap, p + UET_SES_CAS_OPERAND_LEN, UET_SES_CAS_OPERAND_LEN);
	return UET_SES_CAS_EXT_LEN;
}

ssize_t ses_rdv_ext_encode(uint8_t *out, size_t outlen,
			   const struct ses_rdv_ext *h)
{
	uint8_t *p;

	if (h->pid_on_fep > UET_SES_RDV_PID_MAX ||
	    h->resource_index > UET_SES_RI_MAX)
		return -EINVAL;
	if (outlen < UET_SES_RDV_EXT_LEN)
		return -ENOBUFS;
	p = uet_put_be32(out, h->eager_length);
	p = uet_put_be16(p, h->pid_on_fep);
	p = uet_put_be16(p, h->resource_index);
	p = uet_put_be64(p, h->read_offset);
	p = uet_put_be64(p, h->read_match_bits);
	assert(p - out == UET_SES_RDV_EXT_LEN);
	return UET_SES_RDV_EXT_LEN;
}

ssize_t ses_rdv_ext_decode(struct ses_rdv_ext *h, const uint8_t *in,
			   size_t inlen)
{
	const uint8_t *p = in;

	if (inlen < UET_SES_RDV_EXT_LEN)
		return -EBADMSG;
	p = uet_get_be32(&h->eager_length, p);
	p = uet_get_be16(&h->pid_on_fep, p);
	h->pid_on_fep &= UET_SES_RDV_PID_MAX;
	p = uet_get_be16(&h->resource_index, p);
	h->resource_index &= UET_SES_RI_MAX;
	p = uet_get_be64(&h->read_offset, p);
	p = uet_get_be64(&h->read_match_bits, p);
	assert(p - in == UET_SES_RDV_EXT_LEN);
	return UET_SES_RDV_EXT_LEN;
}
