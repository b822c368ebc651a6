/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDS header codecs: the prologue, requests (RUD/ROD, CC, RUDI, UUD), control
 * packets, and the dispatch over every type (ref 2.1-2.4, 2.7).
 */
#include <assert.h>
#include <errno.h>

#include "pdc/pdc_hdr.h"
#include "pdc/pdc_hdr_priv.h"
#include "uet_codec.h"

ssize_t pdc_hdr_len(uint8_t type)
{
	switch (type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:	return UET_PDS_RUD_REQ_LEN;
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:	return UET_PDS_CC_REQ_LEN;
	case UET_PDS_TYPE_RUDI_REQ:
	case UET_PDS_TYPE_RUDI_RESP:	return UET_PDS_RUDI_LEN;
	case UET_PDS_TYPE_UUD_REQ:	return UET_PDS_UUD_LEN;
	case UET_PDS_TYPE_ACK:		return UET_PDS_ACK_LEN;
	case UET_PDS_TYPE_ACK_CC:	return UET_PDS_ACK_CC_LEN;
	case UET_PDS_TYPE_ACK_CCX:	return UET_PDS_ACK_CCX_LEN;
	case UET_PDS_TYPE_NACK:		return UET_PDS_NACK_LEN;
	case UET_PDS_TYPE_NACK_CCX:	return UET_PDS_NACK_CCX_LEN;
	case UET_PDS_TYPE_CONTROL:	return UET_PDS_CTL_LEN;
	default:			return -EBADMSG;
	}
}

/* Flag bits defined for |type| (ref 2.5); every other bit is reserved. */
uint8_t pdc_flags_valid_mask(uint8_t type)
{
	switch (type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:	return UET_PDS_F_REQ_VALID;
	case UET_PDS_TYPE_RUDI_REQ:	return UET_PDS_F_RUDI_REQ_VALID;
	case UET_PDS_TYPE_RUDI_RESP:	return UET_PDS_F_RUDI_RESP_VALID;
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:	return UET_PDS_F_ACK_VALID;
	case UET_PDS_TYPE_NACK:
	case UET_PDS_TYPE_NACK_CCX:	return UET_PDS_F_NACK_VALID;
	case UET_PDS_TYPE_CONTROL:	return UET_PDS_F_CTL_VALID;
	default:			return 0;	/* UUD: all zero */
	}
}

bool pdc_prologue_is_valid(const struct pdc_prologue *pro)
{
	if (pdc_hdr_len(pro->type) < 0)
		return false;
	if (pro->type == UET_PDS_TYPE_CONTROL)
		return pdc_ctl_type_name(pro->next_hdr) != NULL;
	return pdc_next_hdr_name(pro->next_hdr) != NULL;
}

/* Writes the prologue with reserved flag bits cleared. */
uint8_t *pdc_prologue_put(uint8_t *p, const struct pdc_prologue *pro)
{
	uint16_t v = (uint16_t)((pro->type & UET_PDS_TYPE_MASK) <<
				UET_PDS_TYPE_SHIFT |
				(pro->next_hdr & UET_PDS_NEXT_HDR_MASK) <<
				UET_PDS_NEXT_HDR_SHIFT |
				(pro->flags & pdc_flags_valid_mask(pro->type)));

	return uet_put_be16(p, v);
}

/* Reads a prologue, reserved flag bits dropped; no validity check. */
const uint8_t *pdc_prologue_get(struct pdc_prologue *pro, const uint8_t *p)
{
	uint16_t v;

	p = uet_get_be16(&v, p);
	pro->type = (v >> UET_PDS_TYPE_SHIFT) & UET_PDS_TYPE_MASK;
	pro->next_hdr = (v >> UET_PDS_NEXT_HDR_SHIFT) & UET_PDS_NEXT_HDR_MASK;
	pro->flags = v & pdc_flags_valid_mask(pro->type);
	return p;
}

/*
 * Common start of every decoder: length, prologue validity and that the type
 * is one of |types| (a bit set of 1 << type).
 */
ssize_t pdc_decode_start(struct pdc_prologue *pro, const uint8_t *in,
			 size_t inlen, uint32_t types)
{
	ssize_t len;

	if (inlen < UET_PDS_PROLOGUE_LEN)
		return -EBADMSG;
	pdc_prologue_get(pro, in);
	if (pro->type == UET_PDS_TYPE_TSS)
		return -EPROTONOSUPPORT;
	if (!(types & (1u << pro->type)) || !pdc_prologue_is_valid(pro))
		return -EBADMSG;
	len = pdc_hdr_len(pro->type);
	if (inlen < (size_t)len)
		return -EBADMSG;
	return len;
}

/* Common start of every encoder: type and room. */
ssize_t pdc_encode_start(const struct pdc_prologue *pro, size_t outlen,
			 uint32_t types)
{
	ssize_t len;

	if (pro->type >= 32 || !(types & (1u << pro->type)) ||
	    !pdc_prologue_is_valid(pro))
		return -EINVAL;
	len = pdc_hdr_len(pro->type);
	if (outlen < (size_t)len)
		return -ENOBUFS;
	return len;
}

ssize_t pdc_prologue_encode(uint8_t *out, size_t outlen,
			    const struct pdc_prologue *pro)
{
	if (!pdc_prologue_is_valid(pro))
		return -EINVAL;
	if (outlen < UET_PDS_PROLOGUE_LEN)
		return -ENOBUFS;
	pdc_prologue_put(out, pro);
	return UET_PDS_PROLOGUE_LEN;
}

ssize_t pdc_prologue_decode(struct pdc_prologue *pro, const uint8_t *in,
			    size_t inlen)
{
	if (inlen < UET_PDS_PROLOGUE_LEN)
		return -EBADMSG;
	pdc_prologue_get(pro, in);
	if (pro->type == UET_PDS_TYPE_TSS)
		return -EPROTONOSUPPORT;
	if (!pdc_prologue_is_valid(pro))
		return -EBADMSG;
	return UET_PDS_PROLOGUE_LEN;
}

/* The dpdcid slot: a PDC id, or with SYN the overlay (WS: bit 15). */
static int pdc_dpdcid_slot(uint16_t *slot, bool syn, uint16_t dpdcid,
			   bool use_rsv_pdc, uint16_t psn_offset)
{
	if (!syn) {
		*slot = dpdcid;
		return 0;
	}
	if (psn_offset > UET_PDS_SYN_PSN_OFFSET_MASK)
		return -EINVAL;
	*slot = (uint16_t)((use_rsv_pdc ? UET_PDS_SYN_USE_RSV_PDC : 0) |
			   psn_offset);
	return 0;
}

static void pdc_dpdcid_unslot(uint16_t slot, bool syn, uint16_t *dpdcid,
			      bool *use_rsv_pdc, uint16_t *psn_offset)
{
	*dpdcid = syn ? 0 : slot;
	*use_rsv_pdc = syn && (slot & UET_PDS_SYN_USE_RSV_PDC);
	*psn_offset = syn ? slot & UET_PDS_SYN_PSN_OFFSET_MASK : 0;
}

#define PDC_REQ_TYPES	(1u << UET_PDS_TYPE_RUD_REQ | 1u << UET_PDS_TYPE_ROD_REQ | \
			 1u << UET_PDS_TYPE_RUD_CC_REQ |			\
			 1u << UET_PDS_TYPE_ROD_CC_REQ)

ssize_t pdc_req_encode(uint8_t *out, size_t outlen, const struct pdc_req *h)
{
	ssize_t len = pdc_encode_start(&h->pro, outlen, PDC_REQ_TYPES);
	bool syn = h->pro.flags & UET_PDS_F_REQ_SYN;
	uint16_t slot;
	uint8_t *p;

	if (len < 0)
		return len;
	if (pdc_dpdcid_slot(&slot, syn, h->dpdcid, h->use_rsv_pdc,
			    h->psn_offset) < 0 ||
	    h->credit_target > 0xFFFFFFu)
		return -EINVAL;
	p = pdc_prologue_put(out, &h->pro);
	p = uet_put_be16(p, (uint16_t)h->clear_psn_offset);
	p = uet_put_be32(p, h->psn);
	p = uet_put_be16(p, h->spdcid);
	p = uet_put_be16(p, slot);
	if (len == UET_PDS_CC_REQ_LEN) {
		p = uet_put_u8(p, h->ccc_id);
		p = uet_put_be24(p, h->credit_target);
	}
	assert(p - out == len);
	return len;
}

ssize_t pdc_req_decode(struct pdc_req *h, const uint8_t *in, size_t inlen)
{
	ssize_t len = pdc_decode_start(&h->pro, in, inlen, PDC_REQ_TYPES);
	const uint8_t *p = in + UET_PDS_PROLOGUE_LEN;
	uint16_t u16, slot;

	if (len < 0)
		return len;
	p = uet_get_be16(&u16, p);
	h->clear_psn_offset = (int16_t)u16;
	p = uet_get_be32(&h->psn, p);
	p = uet_get_be16(&h->spdcid, p);
	p = uet_get_be16(&slot, p);
	pdc_dpdcid_unslot(slot, h->pro.flags & UET_PDS_F_REQ_SYN, &h->dpdcid,
			  &h->use_rsv_pdc, &h->psn_offset);
	h->ccc_id = 0;
	h->credit_target = 0;
	if (len == UET_PDS_CC_REQ_LEN) {
		p = uet_get_u8(&h->ccc_id, p);
		p = uet_get_be24(&h->credit_target, p);
	}
	assert(p - in == len);
	return len;
}

#define PDC_RUDI_TYPES	(1u << UET_PDS_TYPE_RUDI_REQ | 1u << UET_PDS_TYPE_RUDI_RESP)

ssize_t pdc_rudi_encode(uint8_t *out, size_t outlen, const struct pdc_rudi *h)
{
	ssize_t len = pdc_encode_start(&h->pro, outlen, PDC_RUDI_TYPES);
	uint8_t *p;

	if (len < 0)
		return len;
	p = pdc_prologue_put(out, &h->pro);
	p = uet_put_be16(p, 0);		/* reserved */
	p = uet_put_be32(p, h->pkt_id);
	assert(p - out == len);
	return len;
}

ssize_t pdc_rudi_decode(struct pdc_rudi *h, const uint8_t *in, size_t inlen)
{
	ssize_t len = pdc_decode_start(&h->pro, in, inlen, PDC_RUDI_TYPES);

	if (len < 0)
		return len;
	uet_get_be32(&h->pkt_id, in + 4);
	return len;
}

#define PDC_UUD_TYPES	(1u << UET_PDS_TYPE_UUD_REQ)

ssize_t pdc_uud_encode(uint8_t *out, size_t outlen, const struct pdc_uud *h)
{
	ssize_t len = pdc_encode_start(&h->pro, outlen, PDC_UUD_TYPES);
	uint8_t *p;

	if (len < 0)
		return len;
	p = pdc_prologue_put(out, &h->pro);
	p = uet_put_be16(p, 0);		/* reserved */
	assert(p - out == len);
	return len;
}

ssize_t pdc_uud_decode(struct pdc_uud *h, const uint8_t *in, size_t inlen)
{
	return pdc_decode_start(&h->pro, in, inlen, PDC_UUD_TYPES);
}

#define PDC_CTL_TYPES	(1u << UET_PDS_TYPE_CONTROL)

ssize_t pdc_ctl_encode(uint8_t *out, size_t outlen, const struct pdc_ctl *h)
{
	ssize_t len = pdc_encode_start(&h->pro, outlen, PDC_CTL_TYPES);
	bool syn = h->pro.flags & UET_PDS_F_CTL_SYN;
	bool probe = h->pro.next_hdr == UET_PDS_CTL_PROBE;
	uint16_t slot;
	uint8_t *p;

	if (len < 0)
		return len;
	if (pdc_dpdcid_slot(&slot, syn, h->dpdcid, h->use_rsv_pdc,
			    h->psn_offset) < 0)
		return -EINVAL;
	p = pdc_prologue_put(out, &h->pro);
	p = uet_put_be16(p, probe ? h->probe_opaque : 0);
	p = uet_put_be32(p, h->psn);
	p = uet_put_be16(p, h->spdcid);
	p = uet_put_be16(p, slot);
	p = uet_put_be32(p, h->payload);
	assert(p - out == len);
	return len;
}

ssize_t pdc_ctl_decode(struct pdc_ctl *h, const uint8_t *in, size_t inlen)
{
	ssize_t len = pdc_decode_start(&h->pro, in, inlen, PDC_CTL_TYPES);
	const uint8_t *p = in + UET_PDS_PROLOGUE_LEN;
	uint16_t slot;

	if (len < 0)
		return len;
	p = uet_get_be16(&h->probe_opaque, p);
	if (h->pro.next_hdr != UET_PDS_CTL_PROBE)
		h->probe_opaque = 0;
	p = uet_get_be32(&h->psn, p);
	p = uet_get_be16(&h->spdcid, p);
	p = uet_get_be16(&slot, p);
	pdc_dpdcid_unslot(slot, h->pro.flags & UET_PDS_F_CTL_SYN, &h->dpdcid,
			  &h->use_rsv_pdc, &h->psn_offset);
	p = uet_get_be32(&h->payload, p);
	assert(p - in == len);
	return len;
}

ssize_t pdc_hdr_encode(uint8_t *out, size_t outlen, const struct pdc_hdr *h)
{
	switch (h->pro.type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		return pdc_req_encode(out, outlen, &h->req);
	case UET_PDS_TYPE_RUDI_REQ:
	case UET_PDS_TYPE_RUDI_RESP:
		return pdc_rudi_encode(out, outlen, &h->rudi);
	case UET_PDS_TYPE_UUD_REQ:
		return pdc_uud_encode(out, outlen, &h->uud);
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
		return pdc_ack_encode(out, outlen, &h->ack);
	case UET_PDS_TYPE_NACK:
	case UET_PDS_TYPE_NACK_CCX:
		return pdc_nack_encode(out, outlen, &h->nack);
	case UET_PDS_TYPE_CONTROL:
		return pdc_ctl_encode(out, outlen, &h->ctl);
	default:
		return -EINVAL;
	}
}

ssize_t pdc_hdr_decode(struct pdc_hdr *h, const uint8_t *in, size_t inlen)
{
	struct pdc_prologue pro;
	ssize_t ret = pdc_prologue_decode(&pro, in, inlen);

	if (ret < 0)
		return ret;
	switch (pro.type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		return pdc_req_decode(&h->req, in, inlen);
	case UET_PDS_TYPE_RUDI_REQ:
	case UET_PDS_TYPE_RUDI_RESP:
		return pdc_rudi_decode(&h->rudi, in, inlen);
	case UET_PDS_TYPE_UUD_REQ:
		return pdc_uud_decode(&h->uud, in, inlen);
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
		return pdc_ack_decode(&h->ack, in, inlen);
	case UET_PDS_TYPE_NACK:
	case UET_PDS_TYPE_NACK_CCX:
		return pdc_nack_decode(&h->nack, in, inlen);
	default:
		return pdc_ctl_decode(&h->ctl, in, inlen);
	}
}
