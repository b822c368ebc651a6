/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Codecs of our RDMO extension headers and scatter descriptors (layouts in
 * ses_hdr.h). Vendor-defined: no spec section; fi_uet(7) documents them.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "ses/ses_hdr.h"
#include "uet_codec.h"

#define SES_RDMO_APPEND_RSVD	7	/* bytes after flags */
#define SES_RDMO_SHORT_RSVD	6	/* bytes after a 16-bit field */

size_t ses_rdmo_ext_len(uint8_t opcode)
{
	switch (opcode) {
	case UET_SES_OP_RDMO_APPEND:
		return UET_SES_RDMO_APPEND_EXT_LEN;
	case UET_SES_OP_RDMO_SCATTER:
		return UET_SES_RDMO_SCATTER_EXT_LEN;
	case UET_SES_OP_RDMO_FLUSH:
		return UET_SES_RDMO_FLUSH_EXT_LEN;
	default:
		return 0;
	}
}

static uint8_t *ses_put_zero(uint8_t *p, size_t n)
{
	memset(p, 0, n);
	return p + n;
}

ssize_t ses_rdmo_ext_encode(uint8_t *out, size_t outlen, uint8_t opcode,
			    const struct ses_rdmo_ext *h)
{
	size_t len = ses_rdmo_ext_len(opcode);
	uint8_t *p = out;

	if (!len || (h->flags & ~UET_SES_RDMO_F_RESULT))
		return -EINVAL;
	if (outlen < len)
		return -ENOBUFS;
	switch (opcode) {
	case UET_SES_OP_RDMO_APPEND:
		p = uet_put_u8(p, h->flags);
		p = ses_put_zero(p, SES_RDMO_APPEND_RSVD);
		p = uet_put_be64(p, h->ptr_memory_key);
		p = uet_put_be64(p, h->ptr_offset);
		p = uet_put_be64(p, h->data_bias);
		break;
	case UET_SES_OP_RDMO_SCATTER:
		p = uet_put_be16(p, h->piece_count);
		p = ses_put_zero(p, SES_RDMO_SHORT_RSVD);
		break;
	default:
		p = uet_put_be16(p, h->first_message_id);
		p = ses_put_zero(p, SES_RDMO_SHORT_RSVD);
		break;
	}
	assert((size_t)(p - out) == len);
	return (ssize_t)len;
}

ssize_t ses_rdmo_ext_decode(struct ses_rdmo_ext *h, uint8_t opcode,
			    const uint8_t *in, size_t inlen)
{
	size_t len = ses_rdmo_ext_len(opcode);
	const uint8_t *p = in;

	if (!len || inlen < len)
		return -EBADMSG;
	memset(h, 0, sizeof(*h));
	switch (opcode) {
	case UET_SES_OP_RDMO_APPEND:
		/* Reserved flags are ignored, as reserved bits are. */
		h->flags = p[0] & UET_SES_RDMO_F_RESULT;
		p += 1 + SES_RDMO_APPEND_RSVD;
		p = uet_get_be64(&h->ptr_memory_key, p);
		p = uet_get_be64(&h->ptr_offset, p);
		p = uet_get_be64(&h->data_bias, p);
		break;
	case UET_SES_OP_RDMO_SCATTER:
		p = uet_get_be16(&h->piece_count, p);
		p += SES_RDMO_SHORT_RSVD;
		break;
	default:
		p = uet_get_be16(&h->first_message_id, p);
		p += SES_RDMO_SHORT_RSVD;
		break;
	}
	assert((size_t)(p - in) == len);
	return (ssize_t)len;
}

void ses_rdmo_piece_encode(uint8_t *out, const struct ses_rdmo_piece *pc)
{
	uint8_t *p = uet_put_be64(out, pc->memory_key);

	p = uet_put_be64(p, pc->buffer_offset);
	uet_put_be32(p, pc->length);
}

void ses_rdmo_piece_decode(struct ses_rdmo_piece *pc, const uint8_t *in)
{
	const uint8_t *p = uet_get_be64(&pc->memory_key, in);

	p = uet_get_be64(&pc->buffer_offset, p);
	uet_get_be32(&pc->length, p);
}
