/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Target of RUDI (UE 1.0 3.5): a WRITE or READ packet that came without a
 * PDC, served at once and answered once, with no state of its initiator
 * looked at or kept. Its checks are ses_rx_req's (design section 4: JobID,
 * PIDonFEP, RI, generation, key, access, bounds, lengths), then the ones
 * RUDI adds: only a region registered idempotent-safe may be touched
 * (RC_OP_VIOLATION otherwise, as the reference provider answers), and only
 * by what doing twice cannot change: a WRITE (the same bytes to the same
 * place) or a READ, without header data (a completion at the target would
 * be raised once per copy). A refusal changes no memory.
 *
 * Each packet of a WRITE is placed on its own and answered
 * DEFAULT_RESPONSE, so the initiator completes the message when every
 * packet has been answered, as over a PDC (ses_cpl.c). A READ asks for its
 * data a piece a packet: the first from offset 0, the others from their
 * message_offset, each a Payload MTU (the same on every FEP of a fabric,
 * ref 1.5) or what is left; one RESPONSE_DATA answers each with its piece.
 * A last piece (eom) longer than our Payload MTU is refused
 * RC_UNSUPPORTED_SIZE rather than cut, and an initiator whose pieces all
 * came back short of the whole fails the READ so (ses_cpl.c): a mismatch
 * of Payload MTUs never hangs it.
 */
#include <errno.h>
#include <string.h>

#include "ses/ses_priv.h"

static uint8_t ses_rudi_check(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	uint8_t rc;

	/* Nothing else is idempotent, nor checked without peer state. */
	if (h->opcode != UET_SES_OP_WRITE && h->opcode != UET_SES_OP_READ)
		return UET_SES_RC_OP_VIOLATION;
	rc = ses_rx_check(s, c);
	if (rc != UET_SES_RC_OK)
		return rc;
	if (!(c->region->access & SES_ACCESS_IDEMPOTENT) || h->f.hd)
		return UET_SES_RC_OP_VIOLATION;
	return UET_SES_RC_OK;
}

static ssize_t ses_rudi_rsp(const struct ses_rx_ctx *c, uint8_t opcode,
			    uint8_t rc, uint32_t modified_len, uint8_t *rsp,
			    size_t rsp_len)
{
	struct ses_rsp_hdr r = {
		.opcode = opcode, .return_code = rc,
		.message_id = c->h.message_id,
		/* RC_BAD_GENERATION tells the initiator the current one. */
		.ri_generation = c->tbl ? c->tbl->gen : 0,
		.job_id = c->h.job_id, .modified_length = modified_len,
	};

	return ses_rsp_hdr_encode(rsp, rsp_len, &r);
}

static ssize_t ses_rudi_read(const struct ses *s, const struct ses_rx_ctx *c,
			     uint8_t *rsp, size_t rsp_len, uint8_t *next_hdr)
{
	const struct ses_std_hdr *h = &c->h;
	uint32_t left = h->request_length - c->off;
	uint32_t piece = left < s->cfg.payload_mtu ? left : s->cfg.payload_mtu;
	struct ses_rsp_data_hdr d = {
		.opcode = UET_SES_RSP_RESPONSE_W_DATA,
		.return_code = UET_SES_RC_OK, .message_id = h->message_id,
		.job_id = h->job_id, .read_request_message_id = h->message_id,
		.payload_length = (uint16_t)piece,
		.modified_length = h->request_length,
		.message_offset = c->off,
	};
	ssize_t n;

	if (!h->request_length)		/* an empty READ ends here */
		return ses_rudi_rsp(c, UET_SES_RSP_RESPONSE, UET_SES_RC_OK, 0,
				    rsp, rsp_len);
	if ((h->f.eom && piece < left) || piece > UET_SES_PAYLOAD_LEN_MAX ||
	    piece + UET_SES_RSP_DATA_LEN > rsp_len)
		return ses_rudi_rsp(c, UET_SES_RSP_RESPONSE,
				    UET_SES_RC_UNSUPPORTED_SIZE, 0, rsp,
				    rsp_len);
	n = ses_rsp_data_hdr_encode(rsp, rsp_len, &d);
	if (n < 0)
		return n;
	memcpy(rsp + n, c->region->base + h->buffer_offset + c->off, piece);
	*next_hdr = UET_PDS_NEXT_HDR_RESPONSE_DATA;
	return n + piece;
}

ssize_t ses_rx_rudi(struct ses *s, const struct ses_rx_pkt *pkt, uint8_t *rsp,
		    size_t rsp_len, uint8_t *next_hdr)
{
	struct ses_rx_ctx c;
	uint8_t rc;
	int ret;

	if (rsp_len < UET_SES_RSP_DATA_LEN)
		return -ENOBUFS;
	memset(&c, 0, sizeof(c));
	c.rudi = true;
	s->st.rx_reqs++;
	ret = ses_rx_parse(&c, pkt);
	if (ret < 0) {
		s->st.rx_malformed++;
		return ret;
	}
	*next_hdr = UET_PDS_NEXT_HDR_RESPONSE;
	rc = ses_rudi_check(s, &c);
	if (rc != UET_SES_RC_OK) {
		s->st.rx_rejected++;
		return ses_rudi_rsp(&c, UET_SES_RSP_RESPONSE, rc, 0, rsp,
				    rsp_len);
	}
	if (c.h.opcode == UET_SES_OP_READ)
		return ses_rudi_read(s, &c, rsp, rsp_len, next_hdr);
	if (c.pay_len)
		memcpy(c.region->base + c.h.buffer_offset + c.off, c.pay,
		       c.pay_len);
	s->st.rx_default_rsps++;
	return ses_rudi_rsp(&c, UET_SES_RSP_DEFAULT_RESPONSE, UET_SES_RC_OK,
			    c.pay_len, rsp, rsp_len);
}
