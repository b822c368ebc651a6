/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How the engine names its peers, and which of them a response answers.
 * Pure functions of the tags, so that unit tests can check them.
 *
 * A peer is one remote endpoint as one of its peers sees us: an address
 * and a tag. Those we send to first are named by their PIDonFEP; those
 * that send to us first, by the endpoint index in their PDCIDs
 * (uet_fep.h), which is all a request's PDS header tells, and by the kind
 * of the remote's own peer for us, which it puts in the low two bits of
 * the UDP source port (its entropy). Each peer has its own message_id
 * sequence, under the same prefix, and SES must keep them apart.
 *
 * The kinds, for a remote endpoint B and us, A:
 *   0  a PIDonFEP peer: its requests reach B's index peer of kind 0;
 *   k  (1..3) an index peer of kind k - 1: B's peer of the same kind,
 *      sending to us, answers our peer of kind k - 1 (B's kind-0 peer
 *      answers our PIDonFEP peer: deferred RESPONSEs of our rendezvous
 *      sends, RESPONSE_DATA of our READs, and its pulls of our rendezvous
 *      buffers; B's kind-1 peer answers the pulls of our kind-0 peer).
 * Saturated at 3: a deeper chain needs a peer that serves READs and sends
 * requests of its own, which none does.
 *
 * Responses that ride a PDC B opened (not an ACK of ours) arrive at our
 * index peer of the kind of B's sending peer. With one kind bit, B's
 * kind-0 and kind-1 peers both sent "1", and their responses (to our
 * PIDonFEP peer and to our kind-0 peer, two sequences under one prefix)
 * arrived at one peer and were told apart by the message_id alone: when
 * both peers had the same id outstanding, one took the other's response
 * (READ data dropped as not a READ's, a rendezvous send never ended).
 */
#ifndef UET_ENGINE_TAG_H
#define UET_ENGINE_TAG_H

#include <stdint.h>

#define UET_ENGINE_TAG_PID	0x10000u	/* | PIDonFEP */
#define UET_ENGINE_TAG_EP	0x20000u	/* | kind << 8 | endpoint index */
/*
 * With TAG_EP: the peer's packets come through a local channel
 * (uet_engine_local.c), apart from the same endpoint's frames, whose
 * PDCs number its incarnations by another count.
 */
#define UET_ENGINE_TAG_LOCAL	0x40000u
/* The endpoint index: up to 12 bits (uet_fep.h uses 9 at most). */
#define UET_ENGINE_TAG_EP_MASK	0xFFFu
#define UET_ENGINE_TAG_KIND_SHIFT	12
#define UET_ENGINE_KIND_MASK	0x3u	/* of the UDP source port */
#define UET_ENGINE_KIND_MAX	3u
#define UET_ENGINE_TAG_KIND(t)	(((t) >> UET_ENGINE_TAG_KIND_SHIFT) & \
				 UET_ENGINE_KIND_MASK)
#define UET_ENGINE_TAG_EP_IDX(t)	\
	((int32_t)((t) & UET_ENGINE_TAG_EP_MASK))

/* The index peer for endpoint |ep| of the remote, of kind |kind|. */
static inline uint32_t uet_engine_tag_ep(uint32_t kind, uint32_t ep)
{
	return UET_ENGINE_TAG_EP |
	       (kind & UET_ENGINE_KIND_MASK) << UET_ENGINE_TAG_KIND_SHIFT |
	       (ep & UET_ENGINE_TAG_EP_MASK);
}

/* The kind that our peer |tag| puts in its UDP source port. */
static inline uint16_t uet_engine_tag_send_kind(uint32_t tag)
{
	uint32_t k;

	if (!(tag & UET_ENGINE_TAG_EP))
		return 0;
	k = UET_ENGINE_TAG_KIND(tag) + 1;
	return (uint16_t)(k > UET_ENGINE_KIND_MAX ? UET_ENGINE_KIND_MAX : k);
}

/* Our peer for what endpoint |ep| sends from UDP source port |sport|. */
static inline uint32_t uet_engine_tag_rx(uint16_t sport, uint32_t ep)
{
	return uet_engine_tag_ep(sport & UET_ENGINE_KIND_MASK, ep);
}

/*
 * Whose messages the responses arriving at our peer |tag| answer: |tag|
 * itself (a PIDonFEP peer, or an index peer of kind 0, whose remote peer
 * answers nobody's), UET_ENGINE_TAG_PID (our PIDonFEP peer of that
 * endpoint: which one is told by the ACKs, uet_engine_peer.remote_ep), or
 * the tag of our index peer of that endpoint whose messages they are.
 */
static inline uint32_t uet_engine_tag_resp_owner(uint32_t tag)
{
	uint32_t k = UET_ENGINE_TAG_KIND(tag);

	if (!(tag & UET_ENGINE_TAG_EP) || k == 0)
		return tag;
	if (k == 1)
		return UET_ENGINE_TAG_PID;
	return uet_engine_tag_ep(k - 2, (uint32_t)UET_ENGINE_TAG_EP_IDX(tag));
}

#endif /* UET_ENGINE_TAG_H */
