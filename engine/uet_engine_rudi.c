/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RUDI in the engine (UE 1.0 3.5; PDC's side is pdc/pdc_rudi.c, SES's
 * ses/ses_rudi.c). The engine sends a SES packet as RUDI when its WRE asked
 * (SES_PKT_F_RUDI, uet_engine_ses_tx); here are the rest: the peer a RUDI
 * frame belongs to, the target's upcall into SES, and the initiator's
 * bookkeeping of a READ answered with its data.
 *
 * Peers. A RUDI request has no SPDCID: the sender's endpoint index is the
 * top of its pkt_id (include/uet_fep.h), so it arrives at the same index
 * peer as the sender's PDC requests would. A RUDI response, or a NACK with
 * NT set, names our request by its pkt_id: its peer is the one we sent it
 * to (pdc_rudi_local_peer), never one found from the frame's source, so a
 * forged answer from elsewhere names nobody's request.
 */
#include <errno.h>

#include "uet_codec.h"
#include "uet_fep.h"
#include "engine/uet_engine_priv.h"
#include "engine/uet_engine_tag.h"

bool uet_engine_rudi_is(const uint8_t *pds, size_t len)
{
	uint8_t type;

	if (len < UET_PDS_PROLOGUE_LEN)
		return false;
	type = uet_pds_type(pds);
	if (type == UET_PDS_TYPE_RUDI_REQ || type == UET_PDS_TYPE_RUDI_RESP)
		return true;
	return (type == UET_PDS_TYPE_NACK || type == UET_PDS_TYPE_NACK_CCX) &&
	       (pds[1] & UET_PDS_F_NACK_NT);
}

int uet_engine_rudi_rx_peer(struct uet_engine *e, const struct uet_fa *src,
			    uint16_t sport, const uint8_t *pds, size_t len)
{
	uint32_t id, peer;

	if (len < UET_FEP_PDS_PKT_ID_OFF + 4)
		return -EBADMSG;
	uet_get_be32(&id, pds + UET_FEP_PDS_PKT_ID_OFF);
	if (uet_pds_type(pds) == UET_PDS_TYPE_RUDI_REQ)
		return uet_engine_peer_rx(e, src, uet_engine_tag_rx(sport,
					  uet_fep_pkt_id_ep(id, e->dev.ep_bits)));
	if (pdc_rudi_local_peer(e->pdc, id, &peer) < 0) {
		e->stats.rx_stray++;
		return -ENOENT;
	}
	return (int)peer;
}

ssize_t uet_engine_pdc_rudi(void *ctx, const struct pdc_rx_pkt *pkt,
			    uint8_t *rsp, size_t cap, uint8_t *next_hdr)
{
	struct uet_engine *e = ctx;
	struct ses_rx_pkt in = {
		.peer = pkt->peer, .next_hdr = pkt->next_hdr,
		.buf = pkt->buf, .len = pkt->len, .now_ns = e->now_ns,
	};

	if (!e->cfg.rudi)
		return -EPROTONOSUPPORT;	/* NACK UNEXP_EVENT */
	return ses_rx_rudi(e->ses, &in, rsp, cap, next_hdr);
}

/*
 * The response to our RUDI request of slot |s| (already freed: read before
 * SES, whose completions may send and take the slot again). Over a PDC a
 * READ request is answered twice: its ACK (a DEFAULT_RESPONSE) and the
 * data. RUDI's one response carries only the data, so the request is
 * counted answered too, or its message would never be released.
 */
void uet_engine_rudi_rsp(struct uet_engine *e,
			 const struct uet_engine_slot *s,
			 const struct ses_rx_pkt *rsp)
{
	bool data = rsp->next_hdr == UET_PDS_NEXT_HDR_RESPONSE_DATA &&
		    s->epoch == e->peers[s->peer].epoch;
	uint64_t ref = s->msg_ref;

	ses_rx_rsp(e->ses, rsp);
	if (data)
		ses_rx_default(e->ses, ref);
}
