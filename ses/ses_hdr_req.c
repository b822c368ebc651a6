/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES request header codecs: standard (both SOM forms), small and medium
 * (ref 3.1, 3.3).
 */
#include <assert.h>
#include <errno.h>

#include "ses/ses_hdr.h"
#include "uet_codec.h"

/* ref 3.1: bits 63:46 of the SOM=0 word are reserved. */
#define SES_SOM0_PAYLOAD_LEN_SHIFT	32

/* The fields at bytes 0-11 that every request form shares. */
struct ses_req_common {
	uint8_t opcode;
	struct ses_req_flags f;
	uint16_t word1;		/* message_id, or rsvd 2 + request_length 14 */
	uint8_t ri_generation;
	uint32_t job_id;
	uint16_t pid_on_fep;
	uint16_t resource_index;
};

bool ses_opcode_is_valid(uint8_t opcode)
{
	return ses_opcode_name(opcode) != NULL ||
	       (opcode >= UET_SES_OP_VENDOR_FIRST &&
		opcode <= UET_SES_OP_VENDOR_LAST);
}

static uint8_t ses_req_flags_pack(const struct ses_req_flags *f)
{
	return (uint8_t)((f->dc ? UET_SES_F_DC : 0) | (f->ie ? UET_SES_F_IE : 0) |
			 (f->rel ? UET_SES_F_REL : 0) |
			 (f->hd ? UET_SES_F_HD : 0) |
			 (f->eom ? UET_SES_F_EOM : 0) |
			 (f->som ? UET_SES_F_SOM : 0));
}

static void ses_req_flags_unpack(struct ses_req_flags *f, uint8_t v)
{
	f->dc = v & UET_SES_F_DC;
	f->ie = v & UET_SES_F_IE;
	f->rel = v & UET_SES_F_REL;
	f->hd = v & UET_SES_F_HD;
	f->eom = v & UET_SES_F_EOM;
	f->som = v & UET_SES_F_SOM;
}

static bool ses_req_common_fits(const struct ses_req_common *c)
{
	return ses_opcode_is_valid(c->opcode) &&
	       c->job_id <= UET_SES_JOB_ID_MAX &&
	       c->pid_on_fep <= UET_SES_PID_ON_FEP_MAX &&
	       c->resource_index <= UET_SES_RI_MAX;
}

static uint8_t *ses_req_common_put(uint8_t *p, const struct ses_req_common *c)
{
	p = uet_put_u8(p, c->opcode & UET_SES_OPCODE_MASK);
	p = uet_put_u8(p, (uint8_t)(UET_SES_VERSION << UET_SES_VERSION_SHIFT |
				    ses_req_flags_pack(&c->f)));
	p = uet_put_be16(p, c->word1);
	p = uet_put_u8(p, c->ri_generation);
	p = uet_put_be24(p, c->job_id);
	p = uet_put_be16(p, c->pid_on_fep & UET_SES_PID_ON_FEP_MAX);
	return uet_put_be16(p, c->resource_index & UET_SES_RI_MAX);
}

/* Reads bytes 0-11 of |in| (at least 12 long); checks version and opcode. */
static int ses_req_common_get(struct ses_req_common *c, const uint8_t *in)
{
	const uint8_t *p = in;
	uint8_t u8;

	p = uet_get_u8(&u8, p);
	c->opcode = u8 & UET_SES_OPCODE_MASK;
	p = uet_get_u8(&u8, p);
	if (u8 >> UET_SES_VERSION_SHIFT != UET_SES_VERSION)
		return -EPROTONOSUPPORT;
	ses_req_flags_unpack(&c->f, u8);
	p = uet_get_be16(&c->word1, p);
	p = uet_get_u8(&c->ri_generation, p);
	p = uet_get_be24(&c->job_id, p);
	p = uet_get_be16(&c->pid_on_fep, p);
	c->pid_on_fep &= UET_SES_PID_ON_FEP_MAX;
	p = uet_get_be16(&c->resource_index, p);
	c->resource_index &= UET_SES_RI_MAX;
	assert(p - in == 12);
	return ses_opcode_is_valid(c->opcode) ? 0 : -EBADMSG;
}

#define SES_REQ_COMMON_FROM(h, w1) {					\
	.opcode = (h)->opcode, .f = (h)->f, .word1 = (w1),		\
	.ri_generation = (h)->ri_generation, .job_id = (h)->job_id,	\
	.pid_on_fep = (h)->pid_on_fep,					\
	.resource_index = (h)->resource_index }

#define SES_REQ_COMMON_TO(h, c) do {					\
	(h)->opcode = (c).opcode;					\
	(h)->f = (c).f;							\
	(h)->ri_generation = (c).ri_generation;				\
	(h)->job_id = (c).job_id;					\
	(h)->pid_on_fep = (c).pid_on_fep;				\
	(h)->resource_index = (c).resource_index;			\
} while (0)

ssize_t ses_std_hdr_encode(uint8_t *out, size_t outlen,
			   const struct ses_std_hdr *h)
{
	struct ses_req_common c = SES_REQ_COMMON_FROM(h, h->message_id);
	uint64_t word4;
	uint8_t *p;

	/* header_data exists only in the SOM form (ref 4). */
	if (!ses_req_common_fits(&c) || (h->f.hd && !h->f.som) ||
	    h->payload_length > UET_SES_PAYLOAD_LEN_MAX)
		return -EINVAL;
	if (outlen < UET_SES_STD_HDR_LEN)
		return -ENOBUFS;
	if (h->f.som)
		word4 = h->f.hd ? h->header_data : 0;
	else
		word4 = (uint64_t)h->payload_length <<
			SES_SOM0_PAYLOAD_LEN_SHIFT | h->message_offset;
	p = ses_req_common_put(out, &c);
	p = uet_put_be64(p, h->buffer_offset);
	p = uet_put_be32(p, h->initiator);
	p = uet_put_be64(p, h->memory_key);
	p = uet_put_be64(p, word4);
	p = uet_put_be32(p, h->request_length);
	assert(p - out == UET_SES_STD_HDR_LEN);
	return UET_SES_STD_HDR_LEN;
}

ssize_t ses_std_hdr_decode(struct ses_std_hdr *h, const uint8_t *in,
			   size_t inlen)
{
	struct ses_req_common c;
	const uint8_t *p = in + 12;
	uint64_t word4;
	int ret;

	if (inlen < UET_SES_STD_HDR_LEN)
		return -EBADMSG;
	ret = ses_req_common_get(&c, in);
	if (ret < 0)
		return ret;
	if (c.f.hd && !c.f.som)
		return -EBADMSG;
	SES_REQ_COMMON_TO(h, c);
	h->message_id = c.word1;
	p = uet_get_be64(&h->buffer_offset, p);
	p = uet_get_be32(&h->initiator, p);
	p = uet_get_be64(&h->memory_key, p);
	p = uet_get_be64(&word4, p);
	p = uet_get_be32(&h->request_length, p);
	h->header_data = h->f.som && h->f.hd ? word4 : 0;
	h->payload_length = h->f.som ? 0 :
		(word4 >> SES_SOM0_PAYLOAD_LEN_SHIFT) & UET_SES_PAYLOAD_LEN_MAX;
	h->message_offset = h->f.som ? 0 : (uint32_t)word4;
	assert(p - in == UET_SES_STD_HDR_LEN);
	return UET_SES_STD_HDR_LEN;
}

/* Small and medium headers carry one-packet messages only (ref 3.3). */
static bool ses_single_packet_ok(const struct ses_req_flags *f)
{
	return f->som && f->eom;
}

ssize_t ses_small_hdr_encode(uint8_t *out, size_t outlen,
			     const struct ses_small_hdr *h)
{
	struct ses_req_common c = SES_REQ_COMMON_FROM(h, h->request_length);
	uint8_t *p;

	c.f.hd = false;		/* reserved in the small header */
	if (!ses_req_common_fits(&c) || !ses_single_packet_ok(&h->f) ||
	    h->request_length > UET_SES_SMALL_REQ_LEN_MAX)
		return -EINVAL;
	if (outlen < UET_SES_SMALL_HDR_LEN)
		return -ENOBUFS;
	p = ses_req_common_put(out, &c);
	p = uet_put_be64(p, h->buffer_offset);
	assert(p - out == UET_SES_SMALL_HDR_LEN);
	return UET_SES_SMALL_HDR_LEN;
}

ssize_t ses_small_hdr_decode(struct ses_small_hdr *h, const uint8_t *in,
			     size_t inlen)
{
	struct ses_req_common c;
	int ret;

	if (inlen < UET_SES_SMALL_HDR_LEN)
		return -EBADMSG;
	ret = ses_req_common_get(&c, in);
	if (ret < 0)
		return ret;
	if (!ses_single_packet_ok(&c.f))
		return -EBADMSG;
	c.f.hd = false;
	SES_REQ_COMMON_TO(h, c);
	h->request_length = c.word1 & UET_SES_SMALL_REQ_LEN_MAX;
	uet_get_be64(&h->buffer_offset, in + 12);
	return UET_SES_SMALL_HDR_LEN;
}

ssize_t ses_medium_hdr_encode(uint8_t *out, size_t outlen,
			      const struct ses_medium_hdr *h)
{
	struct ses_req_common c = SES_REQ_COMMON_FROM(h, h->request_length);
	uint8_t *p;

	if (!ses_req_common_fits(&c) || !ses_single_packet_ok(&h->f) ||
	    h->request_length > UET_SES_SMALL_REQ_LEN_MAX)
		return -EINVAL;
	if (outlen < UET_SES_MEDIUM_HDR_LEN)
		return -ENOBUFS;
	p = ses_req_common_put(out, &c);
	p = uet_put_be64(p, h->f.hd ? h->header_data : h->buffer_offset);
	p = uet_put_be32(p, h->initiator);
	p = uet_put_be64(p, h->memory_key);
	assert(p - out == UET_SES_MEDIUM_HDR_LEN);
	return UET_SES_MEDIUM_HDR_LEN;
}

ssize_t ses_medium_hdr_decode(struct ses_medium_hdr *h, const uint8_t *in,
			      size_t inlen)
{
	struct ses_req_common c;
	const uint8_t *p = in + 12;
	uint64_t word3;
	int ret;

	if (inlen < UET_SES_MEDIUM_HDR_LEN)
		return -EBADMSG;
	ret = ses_req_common_get(&c, in);
	if (ret < 0)
		return ret;
	if (!ses_single_packet_ok(&c.f))
		return -EBADMSG;
	SES_REQ_COMMON_TO(h, c);
	h->request_length = c.word1 & UET_SES_SMALL_REQ_LEN_MAX;
	p = uet_get_be64(&word3, p);
	h->header_data = h->f.hd ? word3 : 0;
	h->buffer_offset = h->f.hd ? 0 : word3;
	p = uet_get_be32(&h->initiator, p);
	p = uet_get_be64(&h->memory_key, p);
	assert(p - in == UET_SES_MEDIUM_HDR_LEN);
	return UET_SES_MEDIUM_HDR_LEN;
}
