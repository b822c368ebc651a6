/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ACKs held to leave behind the application's answer. A target's ACKs are
 * built while it receives, and the application often answers what it just
 * received: the ACKs wait (up to UET_ENGINE_ACK_HOLD of them) and go on
 * the ring only just before the kick, behind the answer. A newer ACK of a
 * PDC takes the place of its older one still held.
 */
#include <string.h>

#include "pdc/pdc_hdr.h"
#include "engine/uet_engine_priv.h"

bool uet_engine_is_ack(const uint8_t *pds)
{
	uint8_t type = uet_pds_type(pds);

	return type == UET_PDS_TYPE_ACK || type == UET_PDS_TYPE_ACK_CC ||
	       type == UET_PDS_TYPE_ACK_CCX;
}

/*
 * The key under which a newer ACK may take the place of the held ACK |a|:
 * its PDC pair (our PDCID is never 0); 0 when none may, as it carries a
 * SES response or answers a probe (P: it echoes the probe).
 */
static uint32_t uet_engine_ack_key(const struct pdc_ack *a)
{
	if (a->pro.next_hdr != UET_PDS_NEXT_HDR_NONE ||
	    (a->pro.flags & UET_PDS_F_ACK_P))
		return 0;
	return (uint32_t)a->spdcid << 16 | a->dpdcid;
}

/*
 * Holds the ACK |f| (|len| bytes) to leave behind the application's answer
 * (uet_engine_tx_held). One built while an older one of the same PDC is
 * still held takes its place: the newer says all the older did (cumulative
 * PSN and SACK only move on), and the flags the older reported once (ECN
 * mark, RETX, a close request) pass to it. A stream's target so sends one
 * ACK per kick instead of one per receive batch. False when there is no
 * room: it goes now.
 */
bool uet_engine_ack_hold(struct uet_engine *e, struct uet_xsk_frame *f,
			 uint32_t len)
{
	uint8_t *pds = f->seg[0] + e->hdr_len;
	size_t pds_len = len - e->hdr_len;
	uint32_t key = 0, i;
	struct pdc_ack a, b;

	/*
	 * Merging reads and rewrites the header: it must be in one chunk,
	 * and in clear, with no trailer to keep right.
	 */
	if (!e->trailer_len && len <= f->seg_len[0] &&
	    pdc_ack_decode(&b, pds, pds_len) >= 0)
		key = uet_engine_ack_key(&b);
	for (i = 0; key && i < e->nheld; i++) {
		if (e->held_key[i] != key ||
		    pdc_ack_decode(&a, e->held[i].seg[0] + e->hdr_len,
				   e->held_len[i] - e->hdr_len) < 0)
			continue;
		b.pro.flags |= a.pro.flags & (UET_PDS_F_ACK_M |
					      UET_PDS_F_ACK_RETX);
		if (!(b.pro.flags & UET_PDS_F_ACK_REQ_MASK))
			b.pro.flags |= a.pro.flags & UET_PDS_F_ACK_REQ_MASK;
		if (pdc_ack_encode(pds, pds_len, &b) < 0)
			break;
		uet_xsk_tx_free(e->xsk, &e->held[i]);
		e->held[i] = *f;
		e->held_len[i] = len;
		e->stats.tx_acks_superseded++;
		return true;
	}
	if (e->nheld == UET_ENGINE_ACK_HOLD)
		return false;
	if (!e->nheld)
		e->held_since_ns = e->now_ns;
	e->held[e->nheld] = *f;
	e->held_key[e->nheld] = key;
	e->held_len[e->nheld++] = len;
	e->stats.tx_frames++;
	return true;
}

/*
 * Queues the held ACKs behind what was built since. In copy mode one kick
 * sends the ring in order, each frame delivered to the peer before the
 * next goes: an ACK ahead of the application's reply would delay it.
 */
void uet_engine_tx_held(struct uet_engine *e)
{
	e->answer_may_come = false;
	for (uint32_t i = 0; i < e->nheld; i++) {
		if (uet_xsk_tx_submit(e->xsk, &e->held[i], e->held_len[i]) < 0) {
			/* Ring full: the peer's PDC asks again. */
			uet_xsk_tx_free(e->xsk, &e->held[i]);
			e->stats.tx_no_frame++;
		}
	}
	e->nheld = 0;
}
