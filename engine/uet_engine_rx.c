/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's receive path: frames in from the socket, their peer found,
 * handed to PDC (uet_engine_rx); and what PDC delivers up to SES, requests
 * and the responses that come back (uet_engine_pdc_deliver). The transmit
 * path and the progress call are in uet_engine_io.c.
 */
#include <errno.h>
#include <string.h>

#include "uet_codec.h"
#include "uet_fep.h"
#include "engine/uet_engine_priv.h"
#include "engine/uet_engine_tss.h"

/* ---- PDC's deliveries up to SES ------------------------------------------- */

/*
 * The peer a response from |from| answers. Responses that ride a PDC the
 * remote endpoint opened arrive at the index peer of the kind of its
 * sending peer, which names ours they answer (uet_engine_tag.h): an index
 * peer by its tag, or the remote's PIDonFEP peer: the one at the same
 * address whose ACKs named that index, else one that has heard no ACK yet
 * (READ data may overtake the ACK of its request), with message |id|
 * outstanding. Never the message of another peer with the same id.
 */
uint32_t uet_engine_resp_peer(struct uet_engine *e, uint32_t from,
			      uint16_t id)
{
	return uet_engine_resp_owner(e, from, id, false);
}

/*
 * uet_engine_resp_peer's search; |any|: a peer with operations outstanding
 * stands for any message id (uet_engine_admit_rsp), from itself too.
 */
uint32_t uet_engine_resp_owner(struct uet_engine *e, uint32_t from,
			       uint16_t id, bool any)
{
	const struct uet_engine_peer *p = &e->peers[from];
	uint32_t owner = uet_engine_tag_resp_owner(p->tag);
	int32_t ep = UET_ENGINE_TAG_EP_IDX(p->tag);

	if (owner == p->tag)
		return from;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < e->npeers; i++) {
			const struct uet_engine_peer *q = &e->peers[i];
			bool same = owner & UET_ENGINE_TAG_EP ?
				    !pass && q->tag == owner :
				    (q->tag & UET_ENGINE_TAG_PID) &&
				    q->remote_ep == (pass ? -1 : ep);

			if (i != from && same && uet_engine_peer_is_up(e, i) &&
			    uet_fa_equal(&q->fa, &p->fa) &&
			    (any ? q->ops_out > 0 :
			     ses_msg_is_outstanding(e->ses, i, id)))
				return i;
		}
	}
	return from;
}

/* The message id a response echoes, or -EBADMSG when too short for one. */
int uet_engine_resp_id(const struct pdc_rx_pkt *pkt)
{
	size_t off = pkt->next_hdr == UET_PDS_NEXT_HDR_RESPONSE_DATA ?
		     UET_FEP_RSP_DATA_MSG_ID_OFF : UET_FEP_RSP_MSG_ID_OFF;

	if (pkt->len < off + 2)
		return -EBADMSG;
	return pkt->buf[off] << 8 | pkt->buf[off + 1];
}

int uet_engine_pdc_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
			   struct pdc_resp *resp)
{
	struct uet_engine *e = ctx;
	/*
	 * The PDC's place in the order PDCs opened: a request on a later one
	 * than the peer's so far is a new incarnation of its initiator (a
	 * process that came back on the same address and endpoint index
	 * numbers its messages from the start again), judged afresh by SES.
	 */
	struct ses_rx_pkt in = {
		.peer = pkt->peer, .pdc = pkt->open_seq,
		.next_hdr = pkt->next_hdr, .buf = pkt->buf, .len = pkt->len,
		.now_ns = e->now_ns,
	};
	ssize_t n;

	resp->next_hdr = UET_PDS_NEXT_HDR_NONE;
	resp->len = 0;
	e->peer_streams = pkt->behind >= UET_ENGINE_DEEP_PSNS;
	if (!uet_next_hdr_is_request(pkt->next_hdr)) {
		/* READ data coming back, on a PDC the target opened (an id
		 * too short to read: SES finds it malformed) */
		int id = uet_engine_resp_id(pkt);

		in.peer = uet_engine_resp_peer(e, pkt->peer,
					       id < 0 ? 0 : (uint16_t)id);
		if (in.peer < e->npeers)
			e->peers[in.peer].heard_ns = e->now_ns;
		ses_rx_rsp(e->ses, &in);
		return 0;
	}
	n = ses_rx_req(e->ses, &in, resp->buf, sizeof(resp->buf));
	if (n < 0)
		return (int)n;	/* malformed and stale ones: counted by SES */
	if (n > 0) {
		resp->next_hdr = UET_PDS_NEXT_HDR_RESPONSE;
		resp->len = (uint8_t)n;
	}
	return 0;		/* 0: DEFAULT_RESPONSE, told by the ACK alone */
}

/* ---- frames in ------------------------------------------------------------ */

static bool uet_engine_is_ours(const struct uet_engine *e,
			       const struct uet_frame_info *info)
{
	const struct uet_fa *l = &e->cfg.local;

	if (info->dst.port != e->cfg.udp_port || info->dst.is_v6 != l->is_v6)
		return false;
	return l->is_v6 ? !memcmp(&info->dst.v6, &l->v6, sizeof(l->v6)) :
			  info->dst.v4.s_addr == l->v4.s_addr;
}

/* Whether a PDS frame answers one of our initiator PDCs (its DPDCID). */
static bool uet_pds_answers_initiator(const uint8_t *pds)
{
	uint8_t type = uet_pds_type(pds);
	uint8_t next = (uint8_t)((pds[0] << 8 | pds[1]) >>
				 UET_PDS_NEXT_HDR_SHIFT) & UET_PDS_NEXT_HDR_MASK;

	return type == UET_PDS_TYPE_ACK || type == UET_PDS_TYPE_ACK_CC ||
	       type == UET_PDS_TYPE_ACK_CCX || type == UET_PDS_TYPE_NACK ||
	       type == UET_PDS_TYPE_NACK_CCX ||
	       (type == UET_PDS_TYPE_CONTROL &&
		(next == UET_PDS_CTL_CLOSE_REQ || next == UET_PDS_CTL_CREDIT));
}

/*
 * The peer a PDS frame comes from. ACKs, NACKs, close requests and
 * credit answer one of our initiator PDCs: its peer, found by the DPDCID;
 * one that answers none is dropped here (counted in rx_stray), and leaves nothing.
 * Requests and control packets come from a remote initiator PDC whose
 * SPDCID carries its endpoint's index: the peer (address, index), a
 * provisional one on first contact (uet_engine_peer.c). 0 or more, or
 * -errno: -ENOENT stray, -EAGAIN next hop unknown, -ENOSPC no room.
 */
static int uet_engine_rx_peer(struct uet_engine *e, const struct uet_fa *src,
			      uint16_t sport, const uint8_t *pds, size_t len)
{
	uint16_t spdcid, dpdcid;
	uint32_t peer, tag;

	if (uet_engine_rudi_is(pds, len))
		return uet_engine_rudi_rx_peer(e, src, sport, pds, len);
	if (len < UET_FEP_PDS_DPDCID_OFF + 2)
		return -EBADMSG;
	uet_get_be16(&spdcid, pds + UET_FEP_PDS_SPDCID_OFF);
	uet_get_be16(&dpdcid, pds + UET_FEP_PDS_DPDCID_OFF);
	if (uet_pds_answers_initiator(pds)) {
		if (pdc_local_peer(e->pdc, dpdcid, true, &peer) < 0) {
			e->stats.rx_stray++;
			return -ENOENT;
		}
		if (uet_pds_type(pds) != UET_PDS_TYPE_CONTROL)
			e->peers[peer].remote_ep =
				(int32_t)uet_fep_id_ep(spdcid, e->dev.ep_bits);
		return (int)peer;
	}
	tag = uet_engine_tag_rx(sport, uet_fep_id_ep(spdcid, e->dev.ep_bits));
	return uet_engine_peer_rx(e, src, tag);
}

/* A switch that cut a request rewrote its DSCP to one of these. */
static uint8_t uet_engine_trim(const struct uet_engine *e,
			       const struct uet_frame_info *info)
{
	if (info->dscp == e->cfg.dscp.trimmed)
		return PDC_TRIM;
	if (info->dscp == e->cfg.dscp.lasthop)
		return PDC_TRIM_LASTHOP;
	return PDC_TRIM_NONE;
}

static void uet_engine_rx_frame(struct uet_engine *e,
				const struct uet_xsk_frame *f)
{
	const uint8_t *buf = f->seg[0];
	struct uet_frame_info info;
	struct pdc_rx_meta meta;
	const uint8_t *pds;
	struct uet_fa src;
	size_t pds_len;
	uint8_t trim;
	int peer;

	if (f->nsegs > 1) {	/* PDC wants the frame in one piece */
		uint32_t off = 0;

		for (uint32_t i = 0; i < f->nsegs; i++) {
			memcpy(e->bounce + off, f->seg[i], f->seg_len[i]);
			off += f->seg_len[i];
		}
		buf = e->bounce;
	}
	if (uet_frame_decode(&info, buf, f->len, f->len) < 0 ||
	    !uet_engine_is_ours(e, &info)) {
		e->stats.rx_not_uet++;
		return;
	}
	src.is_v6 = info.src.is_v6;
	src.v6 = info.src.v6;
	if (!src.is_v6)
		src.v4 = info.src.v4;
	/*
	 * Our own endpoints' frames come by local delivery (origin set); one
	 * from the wire with our address is forged, and answering it would
	 * send to ourselves. info.src.mac is not looked at: anyone writes it.
	 */
	if (!f->origin && uet_fa_equal(&src, &e->cfg.local)) {
		e->stats.rx_bad++;
		return;
	}
	trim = uet_engine_trim(e, &info);
	/* Sealed frames are opened, CRCs checked: what fails goes no further. */
	pds = uet_engine_tss_open(e, buf, &info, trim != PDC_TRIM_NONE,
				  &pds_len);
	if (!pds)
		return;
	peer = uet_engine_rx_peer(e, &src, info.src.port, pds, pds_len);
	if (peer < 0) {
		if (peer == -EBADMSG || peer == -EAFNOSUPPORT)
			e->stats.rx_bad++;
		return;
	}
	meta.peer = (uint32_t)peer;
	meta.src = e->neigh[e->peers[peer].nb].src;
	meta.ecn_ce = info.ecn == UET_IP_CE;
	meta.trim = trim;
	meta.ev = (uint16_t)(info.src.port >> UET_ENGINE_EV_SHIFT);
	e->peers[peer].heard_ns = e->now_ns;
	if (pdc_rx_frame(e->pdc, &meta, pds, pds_len, e->now_ns) < 0)
		e->stats.rx_bad++;
}

/*
 * Destination flow control: what waits in our receive ring as we start
 * to read it tells the initiators, in our ACKs, whether we keep up
 * (pdc_rx_backlog). A ring that fills drops what comes next, and every
 * drop costs its sender a time-out or a SACK round.
 */
void uet_engine_rx_backlog(struct uet_engine *e)
{
	uint32_t size, waiting = uet_xsk_rx_backlog(e->xsk, &size);

	pdc_rx_backlog(e->pdc, waiting, size);
}

int uet_engine_rx(struct uet_engine *e)
{
	struct uet_xsk_frame frames[UET_ENGINE_RX_BATCH];
	uint32_t n = uet_xsk_rx_burst(e->xsk, frames, UET_ENGINE_RX_BATCH);

	/*
	 * The kernel wrote these frames on the sending core: each first
	 * touch is a cache miss. Ask for all their headers (Ethernet to SES:
	 * two lines) at once, so the misses overlap instead of queueing one
	 * frame after another (the decoder was the top symbol of a profile
	 * of 8-byte writes).
	 */
	for (uint32_t i = 0; i < n; i++) {
		__builtin_prefetch(frames[i].seg[0]);
		__builtin_prefetch(frames[i].seg[0] + 64);
	}
	for (uint32_t i = 0; i < n; i++)
		uet_engine_rx_frame(e, &frames[i]);
	uet_xsk_rx_release(e->xsk, frames, n);
	e->stats.rx_frames += n;
	if (n)
		e->last_rx_ns = e->now_ns;
	return (int)n;
}
