/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES response header codecs: RESPONSE, RESPONSE_DATA and
 * RESPONSE_DATA_SMALL (ref 3.5).
 */
#include <assert.h>
#include <errno.h>

#include "ses/ses_hdr.h"
#include "uet_codec.h"

bool ses_rsp_opcode_is_valid(uint8_t opcode)
{
	return ses_rsp_opcode_name(opcode) != NULL ||
	       (opcode >= UET_SES_RSP_VENDOR_FIRST &&
		opcode <= UET_SES_RSP_VENDOR_LAST);
}

bool ses_rc_is_valid(uint8_t rc)
{
	return ses_rc_name(rc) != NULL || rc == UET_SES_RC_EXTENDED ||
	       (rc >= UET_SES_RC_VENDOR_FIRST && rc <= UET_SES_RC_VENDOR_LAST);
}

/* Bytes 0-1 of every response: list, opcode, version, return code. */
struct ses_rsp_common {
	uint8_t list;
	uint8_t opcode;
	uint8_t return_code;
};

/*
 * A response with data must say RESPONSE_W_DATA and one without must not
 * (ref 3.5: next_hdr and opcode agree).
 */
static bool ses_rsp_common_is_valid(const struct ses_rsp_common *c,
				    bool with_data)
{
	return c->list <= 3 && ses_rsp_opcode_is_valid(c->opcode) &&
	       ses_rc_is_valid(c->return_code) &&
	       (c->opcode == UET_SES_RSP_RESPONSE_W_DATA) == with_data;
}

static uint8_t *ses_rsp_common_put(uint8_t *p, const struct ses_rsp_common *c)
{
	p = uet_put_u8(p, (uint8_t)(c->list << UET_SES_RSP_LIST_SHIFT |
				    c->opcode));
	return uet_put_u8(p, (uint8_t)(UET_SES_VERSION << UET_SES_VERSION_SHIFT |
				       c->return_code));
}

static int ses_rsp_common_get(struct ses_rsp_common *c, const uint8_t *p,
			      bool with_data)
{
	c->list = p[0] >> UET_SES_RSP_LIST_SHIFT;
	c->opcode = p[0] & UET_SES_OPCODE_MASK;
	if (p[1] >> UET_SES_VERSION_SHIFT != UET_SES_VERSION)
		return -EPROTONOSUPPORT;
	c->return_code = p[1] & UET_SES_RC_MASK;
	return ses_rsp_common_is_valid(c, with_data) ? 0 : -EBADMSG;
}

ssize_t ses_rsp_hdr_encode(uint8_t *out, size_t outlen,
			   const struct ses_rsp_hdr *h)
{
	struct ses_rsp_common c = { h->list, h->opcode, h->return_code };
	uint8_t *p;

	if (!ses_rsp_common_is_valid(&c, false) ||
	    h->job_id > UET_SES_JOB_ID_MAX)
		return -EINVAL;
	if (outlen < UET_SES_RSP_LEN)
		return -ENOBUFS;
	p = ses_rsp_common_put(out, &c);
	p = uet_put_be16(p, h->message_id);
	p = uet_put_u8(p, h->ri_generation);
	p = uet_put_be24(p, h->job_id);
	p = uet_put_be32(p, h->modified_length);
	assert(p - out == UET_SES_RSP_LEN);
	return UET_SES_RSP_LEN;
}

ssize_t ses_rsp_hdr_decode(struct ses_rsp_hdr *h, const uint8_t *in,
			   size_t inlen)
{
	struct ses_rsp_common c;
	const uint8_t *p = in + 2;
	int ret;

	if (inlen < UET_SES_RSP_LEN)
		return -EBADMSG;
	ret = ses_rsp_common_get(&c, in, false);
	if (ret < 0)
		return ret;
	h->list = c.list;
	h->opcode = c.opcode;
	h->return_code = c.return_code;
	p = uet_get_be16(&h->message_id, p);
	p = uet_get_u8(&h->ri_generation, p);
	p = uet_get_be24(&h->job_id, p);
	p = uet_get_be32(&h->modified_length, p);
	assert(p - in == UET_SES_RSP_LEN);
	return UET_SES_RSP_LEN;
}

ssize_t ses_rsp_data_hdr_encode(uint8_t *out, size_t outlen,
				const struct ses_rsp_data_hdr *h)
{
	struct ses_rsp_common c = { h->list, h->opcode, h->return_code };
	uint8_t *p;

	if (!ses_rsp_common_is_valid(&c, true) ||
	    h->job_id > UET_SES_JOB_ID_MAX ||
	    h->payload_length > UET_SES_PAYLOAD_LEN_MAX)
		return -EINVAL;
	if (outlen < UET_SES_RSP_DATA_LEN)
		return -ENOBUFS;
	p = ses_rsp_common_put(out, &c);
	p = uet_put_be16(p, h->message_id);
	p = uet_put_u8(p, 0);		/* reserved (WS) */
	p = uet_put_be24(p, h->job_id);
	p = uet_put_be16(p, h->read_request_message_id);
	p = uet_put_be16(p, h->payload_length);
	p = uet_put_be32(p, h->modified_length);
	p = uet_put_be32(p, h->message_offset);
	assert(p - out == UET_SES_RSP_DATA_LEN);
	return UET_SES_RSP_DATA_LEN;
}

ssize_t ses_rsp_data_hdr_decode(struct ses_rsp_data_hdr *h, const uint8_t *in,
				size_t inlen)
{
	struct ses_rsp_common c;
	const uint8_t *p = in + 2;
	int ret;

	if (inlen < UET_SES_RSP_DATA_LEN)
		return -EBADMSG;
	ret = ses_rsp_common_get(&c, in, true);
	if (ret < 0)
		return ret;
	h->list = c.list;
	h->opcode = c.opcode;
	h->return_code = c.return_code;
	p = uet_get_be16(&h->message_id, p);
	p++;				/* reserved (WS) */
	p = uet_get_be24(&h->job_id, p);
	p = uet_get_be16(&h->read_request_message_id, p);
	p = uet_get_be16(&h->payload_length, p);
	h->payload_length &= UET_SES_PAYLOAD_LEN_MAX;
	p = uet_get_be32(&h->modified_length, p);
	p = uet_get_be32(&h->message_offset, p);
	assert(p - in == UET_SES_RSP_DATA_LEN);
	return UET_SES_RSP_DATA_LEN;
}

ssize_t ses_rsp_data_small_hdr_encode(uint8_t *out, size_t outlen,
				      const struct ses_rsp_data_small_hdr *h)
{
	struct ses_rsp_common c = { h->list, h->opcode, h->return_code };
	uint8_t *p;

	if (!ses_rsp_common_is_valid(&c, true) ||
	    h->job_id > UET_SES_JOB_ID_MAX ||
	    h->payload_length > UET_SES_PAYLOAD_LEN_MAX)
		return -EINVAL;
	if (outlen < UET_SES_RSP_DATA_SMALL_LEN)
		return -ENOBUFS;
	p = ses_rsp_common_put(out, &c);
	p = uet_put_be16(p, h->payload_length);
	p = uet_put_u8(p, 0);		/* reserved (TH) */
	p = uet_put_be24(p, h->job_id);
	p = uet_put_be32(p, h->original_request_psn);
	assert(p - out == UET_SES_RSP_DATA_SMALL_LEN);
	return UET_SES_RSP_DATA_SMALL_LEN;
}

ssize_t ses_rsp_data_small_hdr_decode(struct ses_rsp_data_small_hdr *h,
				      const uint8_t *in, size_t inlen)
{
	struct ses_rsp_common c;
	const uint8_t *p = in + 2;
	int ret;

	if (inlen < UET_SES_RSP_DATA_SMALL_LEN)
		return -EBADMSG;
	ret = ses_rsp_common_get(&c, in, true);
	if (ret < 0)
		return ret;
	h->list = c.list;
	h->opcode = c.opcode;
	h->return_code = c.return_code;
	p = uet_get_be16(&h->payload_length, p);
	h->payload_length &= UET_SES_PAYLOAD_LEN_MAX;
	p++;				/* reserved (TH) */
	p = uet_get_be24(&h->job_id, p);
	p = uet_get_be32(&h->original_request_psn, p);
	assert(p - in == UET_SES_RSP_DATA_SMALL_LEN);
	return UET_SES_RSP_DATA_SMALL_LEN;
}
