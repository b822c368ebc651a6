/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDS acknowledgement codecs: ACK, ACK_CC (SACK bitmap and the NSCC or
 * credit CC state), ACK_CCX, NACK and NACK_CCX (ref 2.4, 2.6, 2.8).
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "pdc/pdc_hdr.h"
#include "pdc/pdc_hdr_priv.h"
#include "uet_codec.h"

#define PDC_ACK_TYPES	(1u << UET_PDS_TYPE_ACK | 1u << UET_PDS_TYPE_ACK_CC | \
			 1u << UET_PDS_TYPE_ACK_CCX)
#define PDC_NACK_TYPES	(1u << UET_PDS_TYPE_NACK | 1u << UET_PDS_TYPE_NACK_CCX)

/* ref 2.8: pack the ACK_CC state of |h| into 64 bits; -EINVAL if too wide. */
static int pdc_cc_state_pack(uint64_t *v, const struct pdc_ack *h)
{
	const struct pdc_nscc_state *n = &h->cc.nscc;
	const struct pdc_credit_state *c = &h->cc.credit;

	switch (h->cc_type) {
	case UET_PDS_CC_NSCC:
		if (n->rcv_cwnd_penalty > UET_PDS_NSCC_CWND_PENALTY_MASK ||
		    n->rcvd_bytes > 0xFFFFFFu)
			return -EINVAL;
		*v = (uint64_t)n->service_time <<
			UET_PDS_NSCC_SERVICE_TIME_SHIFT |
		     (uint64_t)n->restore_cwnd <<
			UET_PDS_NSCC_RESTORE_CWND_BIT |
		     (uint64_t)n->rcv_cwnd_penalty <<
			UET_PDS_NSCC_CWND_PENALTY_SHIFT |
		     (uint64_t)n->rcvd_bytes << UET_PDS_NSCC_RCVD_BYTES_SHIFT |
		     n->ooo_count;
		return 0;
	case UET_PDS_CC_CREDIT:
		if (c->credit > 0xFFFFFFu)
			return -EINVAL;
		*v = (uint64_t)c->credit << UET_PDS_CREDIT_SHIFT | c->ooo_count;
		return 0;
	default:
		return -EINVAL;
	}
}

static int pdc_cc_state_unpack(struct pdc_ack *h, uint64_t v)
{
	struct pdc_nscc_state *n = &h->cc.nscc;
	struct pdc_credit_state *c = &h->cc.credit;

	memset(&h->cc, 0, sizeof(h->cc));
	switch (h->cc_type) {
	case UET_PDS_CC_NSCC:
		n->service_time = (uint16_t)(v >>
					     UET_PDS_NSCC_SERVICE_TIME_SHIFT);
		n->restore_cwnd = (v >> UET_PDS_NSCC_RESTORE_CWND_BIT) & 1;
		n->rcv_cwnd_penalty = (v >> UET_PDS_NSCC_CWND_PENALTY_SHIFT) &
				      UET_PDS_NSCC_CWND_PENALTY_MASK;
		n->rcvd_bytes = (v >> UET_PDS_NSCC_RCVD_BYTES_SHIFT) &
				0xFFFFFFu;
		n->ooo_count = v & UET_PDS_CC_OOO_MASK;
		return 0;
	case UET_PDS_CC_CREDIT:
		c->credit = (v >> UET_PDS_CREDIT_SHIFT) & 0xFFFFFFu;
		c->ooo_count = v & UET_PDS_CC_OOO_MASK;
		return 0;
	default:
		return -EBADMSG;
	}
}

ssize_t pdc_ack_encode(uint8_t *out, size_t outlen, const struct pdc_ack *h)
{
	ssize_t len = pdc_encode_start(&h->pro, outlen, PDC_ACK_TYPES);
	bool probe = h->pro.flags & UET_PDS_F_ACK_P;
	uint64_t cc_state = 0;
	uint8_t *p;

	if (len < 0)
		return len;
	if (len > UET_PDS_ACK_LEN && h->cc_type > UET_PDS_CC_FLAGS_MASK)
		return -EINVAL;
	if (len > UET_PDS_ACK_LEN && h->cc_flags > UET_PDS_CC_FLAGS_MASK)
		return -EINVAL;
	if (len == UET_PDS_ACK_CC_LEN && pdc_cc_state_pack(&cc_state, h) < 0)
		return -EINVAL;
	p = pdc_prologue_put(out, &h->pro);
	p = uet_put_be16(p, probe ? h->probe_opaque :
				    (uint16_t)h->ack_psn_offset);
	p = uet_put_be32(p, h->cack_psn);
	p = uet_put_be16(p, h->spdcid);
	p = uet_put_be16(p, h->dpdcid);
	if (len > UET_PDS_ACK_LEN) {
		p = uet_put_u8(p, (uint8_t)(h->cc_type << UET_PDS_CC_TYPE_SHIFT |
					    h->cc_flags));
		p = uet_put_u8(p, h->mpr);
		p = uet_put_be16(p, (uint16_t)h->sack_psn_offset);
		p = uet_put_be64(p, h->sack_bitmap);
	}
	if (len == UET_PDS_ACK_CC_LEN)
		p = uet_put_be64(p, cc_state);
	if (len == UET_PDS_ACK_CCX_LEN) {
		memcpy(p, h->ccx_state, UET_PDS_CCX_STATE_LEN);
		p += UET_PDS_CCX_STATE_LEN;
	}
	assert(p - out == len);
	return len;
}

/* The ACK_CC/ACK_CCX extension, from byte 12. */
static const uint8_t *pdc_ack_ext_get(struct pdc_ack *h, const uint8_t *p)
{
	uint16_t u16;
	uint8_t u8;

	p = uet_get_u8(&u8, p);
	h->cc_type = u8 >> UET_PDS_CC_TYPE_SHIFT;
	h->cc_flags = u8 & UET_PDS_CC_FLAGS_MASK;
	p = uet_get_u8(&h->mpr, p);
	p = uet_get_be16(&u16, p);
	h->sack_psn_offset = (int16_t)u16;
	return uet_get_be64(&h->sack_bitmap, p);
}

ssize_t pdc_ack_decode(struct pdc_ack *h, const uint8_t *in, size_t inlen)
{
	ssize_t len = pdc_decode_start(&h->pro, in, inlen, PDC_ACK_TYPES);
	const uint8_t *p = in + UET_PDS_PROLOGUE_LEN;
	uint64_t cc_state;
	uint16_t u16;

	if (len < 0)
		return len;
	p = uet_get_be16(&u16, p);
	h->probe_opaque = (h->pro.flags & UET_PDS_F_ACK_P) ? u16 : 0;
	h->ack_psn_offset = (h->pro.flags & UET_PDS_F_ACK_P) ? 0 : (int16_t)u16;
	p = uet_get_be32(&h->cack_psn, p);
	p = uet_get_be16(&h->spdcid, p);
	p = uet_get_be16(&h->dpdcid, p);
	h->cc_type = h->cc_flags = h->mpr = 0;
	h->sack_psn_offset = 0;
	h->sack_bitmap = 0;
	memset(&h->cc, 0, sizeof(h->cc));
	memset(h->ccx_state, 0, sizeof(h->ccx_state));
	if (len > UET_PDS_ACK_LEN)
		p = pdc_ack_ext_get(h, p);
	if (len == UET_PDS_ACK_CC_LEN) {
		p = uet_get_be64(&cc_state, p);
		if (pdc_cc_state_unpack(h, cc_state) < 0)
			return -EBADMSG;
	}
	if (len == UET_PDS_ACK_CCX_LEN) {
		memcpy(h->ccx_state, p, UET_PDS_CCX_STATE_LEN);
		p += UET_PDS_CCX_STATE_LEN;
	}
	assert(p - in == len);
	return len;
}

ssize_t pdc_nack_encode(uint8_t *out, size_t outlen, const struct pdc_nack *h)
{
	ssize_t len = pdc_encode_start(&h->pro, outlen, PDC_NACK_TYPES);
	uint8_t *p;

	if (len < 0)
		return len;
	if (!pdc_nack_code_name(h->nack_code) ||
	    (len == UET_PDS_NACK_CCX_LEN && h->nccx_type > 0x0F))
		return -EINVAL;
	p = pdc_prologue_put(out, &h->pro);
	p = uet_put_u8(p, h->nack_code);
	p = uet_put_u8(p, h->vendor_code);
	p = uet_put_be32(p, h->nack_psn);
	p = uet_put_be16(p, h->spdcid);
	p = uet_put_be16(p, h->dpdcid);
	p = uet_put_be32(p, h->payload);
	if (len == UET_PDS_NACK_CCX_LEN) {
		memcpy(p, h->nccx_state, UET_PDS_NCCX_STATE_LEN);
		p[0] = (uint8_t)(h->nccx_type << 4 | (p[0] & 0x0F));
		p += UET_PDS_NCCX_STATE_LEN;
	}
	assert(p - out == len);
	return len;
}

ssize_t pdc_nack_decode(struct pdc_nack *h, const uint8_t *in, size_t inlen)
{
	ssize_t len = pdc_decode_start(&h->pro, in, inlen, PDC_NACK_TYPES);
	const uint8_t *p = in + UET_PDS_PROLOGUE_LEN;

	if (len < 0)
		return len;
	p = uet_get_u8(&h->nack_code, p);
	if (!pdc_nack_code_name(h->nack_code))
		return -EBADMSG;
	p = uet_get_u8(&h->vendor_code, p);
	p = uet_get_be32(&h->nack_psn, p);
	p = uet_get_be16(&h->spdcid, p);
	p = uet_get_be16(&h->dpdcid, p);
	p = uet_get_be32(&h->payload, p);
	h->nccx_type = 0;
	memset(h->nccx_state, 0, sizeof(h->nccx_state));
	if (len == UET_PDS_NACK_CCX_LEN) {
		memcpy(h->nccx_state, p, UET_PDS_NCCX_STATE_LEN);
		h->nccx_type = p[0] >> 4;
		h->nccx_state[0] &= 0x0F;
		p += UET_PDS_NCCX_STATE_LEN;
	}
	assert(p - in == len);
	return len;
}
