/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Semantic Sublayer engine: WREs become SES packets, SES packets become
 * placements, matches and completions. No I/O, no clock, no libfabric:
 * packets leave through ses_ops.tx and arrive through ses_rx_req/ses_rx_rsp.
 * RI tables: ses_ri.h; receives and tag matching: ses_recv.h.
 */
#ifndef SES_H
#define SES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet_wire.h"

struct ses;

/* Most iov entries in one WRE or receive (libfabric's iov_limit). */
#define SES_IOV_MAX		4
/*
 * Message ids one initiator may have in flight to one peer (power of 2);
 * under a message_id prefix of n bits, at most 2^(14 - n) (ses_config).
 */
#define SES_MSG_WINDOW		1024
/* Largest header block of an outgoing packet: standard + compare-and-swap
 * (longer than the rendezvous extension). */
#define SES_PKT_HDR_MAX		(UET_SES_STD_HDR_LEN + UET_SES_CAS_EXT_LEN)
/* Receives and peeks: accept any initiator. */
#define SES_INITIATOR_ANY	UINT32_MAX
/* ses_config.rdv_ri: no rendezvous (large sends go eager). */
#define SES_RI_NONE		UINT16_MAX

struct ses_iov {
	void *base;
	size_t len;
	void *desc;		/* caller's memory descriptor, passed through */
};

/*
 * The remote side of a WRE. It lives in the caller's AV entry and the WRE
 * points to it; ses never copies it. FA is opaque here: ses routes by |peer|.
 */
struct ses_addr {
	uint32_t peer;		/* lower layer's id of the remote process */
	uint32_t job_id;	/* 24 bits */
	uint16_t pid_on_fep;	/* 12 bits */
	bool absolute;		/* rel=0: the target ignores the JobID */
	const void *fa;		/* fabric address, for the caller */
};

/* ses_wre.flags */
#define SES_WRE_F_COMPLETION	0x1	/* caller wants a CQ entry (passed back) */
#define SES_WRE_F_HDR_DATA	0x2	/* hd=1, header_data on the som packet */
#define SES_WRE_F_DC		0x4	/* complete only after remote placement */
/*
 * Send each packet as RUDI (no PDC; ses_rx_rudi at the target): only a
 * WRITE or a READ, without header data or delivery-complete, to a region
 * registered SES_ACCESS_IDEMPOTENT. A RUDI READ asks for its data a
 * Payload MTU a packet (message_offset in each but the first), each
 * answered with its piece.
 */
#define SES_WRE_F_RUDI		0x8
/*
 * Nobody waits for the target's answer: the caller has no completion to
 * give (fi_inject) or gave it already (FI_INJECT_COMPLETE). A SEND or
 * TAGGED_SEND of one packet then goes without one where the lower layer
 * can (SES_PKT_F_NO_ANSWER: local channels), which ends it once the
 * target holds the packet, as a DEFAULT_RESPONSE would; a refusal of the
 * target's is not reported back.
 */
#define SES_WRE_F_NO_ANSWER	0x10

/*
 * Work Request Entity: one operation. The caller owns it, and it (with its
 * iov array and *dst) must stay valid until ses_ops.tx_done reports it.
 */
struct ses_wre {
	uint8_t opcode;		/* UET_SES_OP_WRITE, READ, SEND, TAGGED_SEND,
				 * ATOMIC, FETCHING_ATOMIC, RDMO_* */
	uint32_t flags;		/* SES_WRE_F_* */
	const struct ses_addr *dst;
	uint16_t ri;		/* target resource index (12 bits) */
	const struct ses_iov *iov;	/* local buffer: source, READ sink */
	size_t iov_cnt;		/* 0..SES_IOV_MAX */
	uint64_t mkey;		/* UET memory key (ref 5.4), RMA */
	uint64_t tag;		/* match bits, TAGGED_SEND */
	uint64_t remote_offset;	/* buffer_offset, RMA */
	uint64_t header_data;	/* with SES_WRE_F_HDR_DATA */
	void *user_ctx;
	/*
	 * Atomics (ses_amo.h): one packet of whole elements of |amo_dt|, the
	 * operands in |iov|. CSWAP..CSWAP_GT take one element, compared with
	 * the |amo_compare| one. FETCHING_ATOMIC puts the old values in
	 * |res_iov|, as long as |iov|.
	 */
	uint8_t amo_op;		/* enum uet_ses_amo_op */
	uint8_t amo_dt;		/* enum uet_ses_amo_dt */
	const void *amo_compare;
	const struct ses_iov *res_iov;
	size_t res_iov_cnt;
	/*
	 * Remote memory operations (ses_rdmo.c; wire in ses_hdr.h), executed
	 * by the target:
	 * - RDMO_APPEND: |iov| is the data, |mkey| the data region's key,
	 *   remote_offset 0; the pointer is the uint64_t at rdmo_ptr_offset
	 *   in the region of rdmo_ptr_mkey, and the data lands at (its old
	 *   value - rdmo_data_bias). With one 8-byte |res_iov|, the old value
	 *   comes back there (in the target's byte order, as an atomic's).
	 * - RDMO_SCATTER: |iov|[0] is the table of rdmo_pieces descriptors
	 *   (ses_rdmo_piece_encode, UET_SES_RDMO_PIECE_LEN bytes each, at
	 *   most one Payload MTU), the rest the data, cut into the pieces in
	 *   order.
	 * - RDMO_FLUSH: no data; |ri| names the target's RMA table. Completes
	 *   once every earlier message to dst is finished at the target.
	 */
	uint64_t rdmo_ptr_mkey;
	uint64_t rdmo_ptr_offset;
	uint64_t rdmo_data_bias;
	uint32_t rdmo_pieces;
};

/* How a WRE ended. */
struct ses_tx_cpl {
	int status;		/* 0; -EREMOTEIO (see rc); or a local errno */
	uint8_t rc;		/* UET return code: RC_OK, or the target's */
	uint32_t modified_len;	/* bytes the target placed (READ: read) */
};

/*
 * How long the payload of an outgoing packet may be read (ses_pkt.pay_life).
 * A lower layer that sends a packet again later (PDC retransmits) must obey
 * it: reading past it reads memory that may be freed or reused.
 *
 * SES_PAY_CALL: during the tx call only: copy it before returning (a
 *   fetching atomic's old values live on the target's stack).
 * SES_PAY_MSG: the WRE's buffer, while ses_pkt_payload_live(msg_ref) is
 *   true, i.e. until the message completes. After that the target either
 *   holds every byte of the packet (the message succeeded, so a resend is a
 *   duplicate it drops) or discards the message (it failed), so a resend
 *   may carry any bytes, and must not read the buffer.
 * SES_PAY_REGION: registered memory (a READ's data): valid until
 *   ses_ops.pay_revoke names it, which happens before the region goes; copy
 *   what you still hold of it then.
 */
enum ses_pay_life {
	SES_PAY_CALL,
	SES_PAY_MSG,
	SES_PAY_REGION,
};

/*
 * An outgoing SES packet: |hdr| holds the SES header(s); the payload is
 * |pay_len| bytes starting |pay_off| bytes into the |iov| array (copy it
 * with ses_pkt_payload_copy). The packet itself and the iov array are
 * valid during the tx call only; the bytes the iov points to as long as
 * |pay_life| says.
 */
struct ses_pkt {
	uint32_t peer;
	uint8_t next_hdr;	/* enum uet_pds_next_hdr */
	uint8_t pay_life;	/* enum ses_pay_life */
	uint16_t hdr_len;
	uint8_t hdr[SES_PKT_HDR_MAX];
	const struct ses_iov *iov;
	size_t iov_cnt;
	uint64_t pay_off;
	uint32_t pay_len;
	uint64_t msg_ref;	/* SES_PAY_MSG: for ses_pkt_payload_live */
	uint8_t flags;		/* SES_PKT_F_* */
	/*
	 * A rendezvous request: the buffer it exposes for the target's READ
	 * (all of the send, the part it carries included), which a lower
	 * layer between processes of one host may name to the target so
	 * that it pulls it itself (ses_rx_pkt.src); NULL otherwise.
	 */
	const void *rdv_buf;
	uint64_t rdv_len;
};

#define SES_PKT_F_RUDI		0x1	/* its WRE asked for SES_WRE_F_RUDI */
#define SES_PKT_F_NO_ANSWER	0x2	/* SES_WRE_F_NO_ANSWER, a whole send */

/*
 * Where a rendezvous sender's buffer is, for a copy straight out of it:
 * |len| bytes at |addr| in process |pid| (a peer of this host).
 */
struct ses_pull_src {
	int32_t pid;
	uint64_t addr;
	uint64_t len;
};

/*
 * A received SES packet: next_hdr + SES header + payload, from |peer|.
 *
 * A request also names the lower layer's delivery context it came on
 * (|pdc|: PDS's target PDC), numbered in the order the contexts opened (a
 * later one has a larger number, modulo 2^32); 0 for a lower layer without
 * contexts. A peer's message_ids belong to the context they come on: the
 * first request on a later context than the peer's requests so far is a
 * new incarnation of its initiator (a process that came back on the same
 * address numbers its messages from the start again). SES then judges its
 * ids against a new history, drops the peer's messages still arriving on
 * the context before (their receives complete with -ECONNRESET; complete
 * unexpected ones stay for a receive), and from then on drops requests on
 * earlier contexts unanswered (rx_stale_reqs): nothing of an old
 * incarnation places, answers or completes anything for the new one.
 */
struct ses_rx_pkt {
	uint32_t peer;
	uint32_t pdc;
	uint8_t next_hdr;
	const uint8_t *buf;
	size_t len;
	uint64_t now_ns;
	/*
	 * A rendezvous request's buffer at its initiator (ses_pkt.rdv_buf),
	 * as the lower layer names it to ses_ops.pull; NULL: not known.
	 */
	const struct ses_pull_src *src;
};

/* A receive that completed (ses_recv.h posts them). */
struct ses_recv_cpl {
	void *user_ctx;
	int status;		/* 0, -EMSGSIZE (truncated), -ECANCELED, -EIO */
	uint8_t rc;		/* UET code behind -EIO */
	bool tagged;
	bool hd;		/* header_data valid (FI_REMOTE_CQ_DATA) */
	uint32_t peer;
	uint32_t initiator;
	uint64_t tag;
	uint64_t header_data;
	uint64_t len;		/* bytes placed */
	uint64_t msg_len;	/* bytes sent */
};

/*
 * An RMA operation or atomic done at this target, once each (CQ data,
 * counters of remote events): a WRITE when its last byte is placed, an
 * atomic when executed, a READ when the last of its data has been handed
 * to ops.tx (a retransmission may still read the region until the
 * initiator acknowledges it). The READs a rendezvous target issues to
 * pull a send's data are part of that send and not reported.
 */
struct ses_rma_event {
	uint8_t opcode;		/* UET_SES_OP_WRITE, READ, ATOMIC,
				 * FETCHING_ATOMIC, RDMO_APPEND (once, for
				 * its data) or RDMO_SCATTER (once for each
				 * piece) */
	uint8_t amo_op;		/* atomics: enum uet_ses_amo_op */
	uint32_t peer;
	uint32_t job_id;
	uint16_t pid_on_fep;
	uint16_t ri;
	uint32_t initiator;
	uint64_t rkey;
	uint64_t offset;	/* buffer_offset */
	uint32_t len;
	bool hd;
	uint64_t header_data;
};

/*
 * Sends |pkt| to pkt->peer reliably. Returns 0, or -EAGAIN when the lower
 * layer is full: ses keeps the packet and offers it again in ses_progress.
 */
typedef int (*ses_tx_fn)(void *ctx, const struct ses_pkt *pkt);
/* |wre| is finished; ses holds no reference to it any more. */
typedef void (*ses_tx_done_fn)(void *ctx, const struct ses_wre *wre,
			       const struct ses_tx_cpl *cpl);
typedef void (*ses_recv_done_fn)(void *ctx, const struct ses_recv_cpl *cpl);
typedef void (*ses_rma_done_fn)(void *ctx, const struct ses_rma_event *ev);
/* The initiator's cached generation of (dst, ri), and its update. */
typedef uint8_t (*ses_ri_gen_get_fn)(void *ctx, const struct ses_addr *dst,
				     uint16_t ri);
typedef void (*ses_ri_gen_set_fn)(void *ctx, const struct ses_addr *dst,
				  uint16_t ri, uint8_t gen);
/*
 * Registered memory [base, base + len) stops being readable when this
 * returns: a packet handed to tx with SES_PAY_REGION whose payload lies in
 * it must be copied now if it may be sent again.
 */
typedef void (*ses_pay_revoke_fn)(void *ctx, const void *base, uint64_t len);
/*
 * Copies |len| bytes from |off| of the sender's buffer |src| into |iov|
 * (|cnt| entries), all or nothing: 0 when they are all there, or -errno,
 * after which SES READs them as it would without |src| (whatever the
 * copy placed is written again).
 */
typedef int (*ses_pull_fn)(void *ctx, const struct ses_pull_src *src,
			   uint64_t off, const struct ses_iov *iov, size_t cnt,
			   uint64_t len);
/*
 * Whether peer |peer|'s engine may pull our rendezvous buffers itself (a
 * process of this host): sends to it past cfg.rdv_pull_threshold go as
 * rendezvous.
 */
typedef bool (*ses_peer_pulls_fn)(void *ctx, uint32_t peer);

/*
 * Upcalls. tx and tx_done are required; the others are optional (NULL):
 * without ri_gen_get every request carries generation 0.
 */
struct ses_ops {
	ses_tx_fn tx;
	ses_tx_done_fn tx_done;
	ses_recv_done_fn recv_done;
	ses_rma_done_fn rma_done;
	ses_ri_gen_get_fn ri_gen_get;
	ses_ri_gen_set_fn ri_gen_set;
	ses_pay_revoke_fn pay_revoke;
	ses_pull_fn pull;
	ses_peer_pulls_fn peer_pulls;
};

struct ses_config {
	uint32_t payload_mtu;	/* 1024, 2048, 4096 or 8192 */
	uint32_t job_id;	/* ours: rendezvous buffers are exposed here */
	uint16_t pid_on_fep;
	uint16_t rdv_ri;	/* RI for rendezvous buffers, or SES_RI_NONE */
	uint32_t initiator;	/* written into every request */
	uint32_t rdv_threshold;	/* sends longer than this use rendezvous */
	uint32_t rdv_eager_len;	/* bytes a rendezvous request carries */
	/* Sends longer than this to a peer that pulls (ses_ops.peer_pulls)
	 * use rendezvous too. */
	uint32_t rdv_pull_threshold;
	uint32_t max_msgs;	/* outstanding initiator messages */
	uint32_t max_peers;
	uint32_t max_rx_msgs;	/* target messages in progress or unexpected */
	uint32_t max_recvs;	/* posted receives */
	uint32_t max_ri_tables;	/* RI tables, all endpoints */
	uint32_t max_mrs;	/* registered regions, all tables */
	uint32_t max_unexpected;	/* unexpected messages */
	uint64_t max_unexpected_len;	/* bytes buffered for them */
	uint32_t max_msg_len;	/* largest send accepted as a target */
	uint64_t rx_idle_ns;	/* partial message idle time-out */
	/*
	 * How long a rendezvous send its target took (it answered the
	 * request) outlives our failures to reach that target
	 * (ses_peer_fail with -ETIMEDOUT): its target owes it a deferred
	 * answer, which it sends again on a new PDC after a link flap. 0:
	 * not at all.
	 */
	uint64_t rdv_answer_wait_ns;
	/*
	 * With msg_id_prefix_bits = n > 0 (at most 9), every message_id this
	 * engine allocates as initiator is msg_id_prefix << (16 - n) | seq
	 * (msg_id_prefix < 2^n), so that a shared interface can steer the
	 * responses by it (include/uet_fep.h). seq counts per peer from its
	 * start (msg_id_seed) in the low 16 - n bits and wraps there; at
	 * most SES_MSG_WINDOW and 2^(14 - n) ids are in flight to one peer.
	 * As a target, the engine takes every peer to use the same n: the
	 * high bits of a peer's first request fix its prefix, and a request
	 * under another prefix is malformed. 0 bits (the default): ids use
	 * all 16 bits.
	 */
	uint16_t msg_id_prefix;
	uint8_t msg_id_prefix_bits;
	/*
	 * Where the sequence to each peer starts: 0 (the default) starts
	 * every one at 1, as the seed numbers messages; otherwise at a place
	 * drawn from this seed, for each new peer and after ses_peer_reset,
	 * as TCP picks initial sequence numbers: an answer still on its way
	 * to an earlier process on our address and endpoint index (a target
	 * can tell a new process from an old one only by its new PDC, and
	 * answers some messages later on a PDC of its own) is then unlikely
	 * to name a message of ours in flight. Seed it from getrandom().
	 */
	uint64_t msg_id_seed;
};

/* Counters; ses reports through them instead of logging. */
struct ses_stats {
	uint64_t tx_pkts;
	uint64_t rx_reqs;
	uint64_t rx_rsps;
	uint64_t rx_malformed;	/* dropped: did not parse, or a request
				 * under another prefix than its peer's */
	uint64_t rx_dups;	/* request packets already placed */
	uint64_t rx_rejected;	/* answered with an error code */
	uint64_t rx_default_rsps;	/* answered DEFAULT_RESPONSE: by ACK alone */
	uint64_t rx_implied_rsps;	/* initiator: packets acknowledged without
					 * a response (ses_rx_default) */
	uint64_t rx_stale_rsps;	/* responses for no outstanding message */
	uint64_t rx_stale_reqs;	/* requests on a context of a peer's earlier
				 * incarnation: dropped (ses_rx_pkt) */
	uint64_t rx_timeouts;	/* partial messages dropped when idle */
	uint64_t rx_ux_full;	/* sends not taken: no receive, no room */
	uint64_t gen_retries;	/* RC_BAD_GENERATION retries */
	uint64_t rdmo_flush_held;	/* flushes answered later, not at once */
	uint64_t rdmo_flush_expired;	/* held ones given up (RC_UNDELIVERABLE) */
	uint64_t peers_trimmed;	/* idle peers' id windows let go */
	uint64_t rdv_pulled;	/* rendezvous copied by ses_ops.pull */
	uint64_t rdv_pull_failed;	/* pulls refused: READ instead */
};

/* Fills |cfg| with defaults (MTU 4096, rendezvous above 8192, ...). */
void ses_config_init(struct ses_config *cfg);

/*
 * Creates an engine. |ops| and |ctx| are kept. Returns NULL with errno
 * EINVAL (bad config or ops) or ENOMEM. With cfg->rdv_ri set, the RI
 * (job_id, pid_on_fep, rdv_ri) is created here, without generations.
 */
struct ses *ses_create(const struct ses_config *cfg,
		       const struct ses_ops *ops, void *ctx);
/* Frees |s| without completing anything still outstanding. */
void ses_destroy(struct ses *s);

/*
 * Starts |wre|: fragments it into packets of at most the Payload MTU, each
 * carrying the same new message_id, and offers them to ops.tx. With the
 * message window (SES_MSG_WINDOW, less under a message_id prefix) in
 * flight to that peer, it waits, in post order, for an id to be freed
 * before anything is sent. Returns 0 (tx_done follows, possibly from inside
 * this call), -EINVAL (bad WRE), -EMSGSIZE (longer than 2^32 - 1), or
 * -EAGAIN (no message slot, or no peer state: retry after completions).
 */
int ses_wre_post(struct ses *s, const struct ses_wre *wre);

/*
 * Sends |wre| whole at once through |tx| (not ops.tx) when it may: a SEND
 * or TAGGED_SEND with SES_WRE_F_NO_ANSWER (no dc, no RUDI) of one eager
 * packet, to a peer with no message of ours in flight or waiting, nothing
 * queued ahead. |tx| gets that packet (SES_PKT_F_NO_ANSWER, msg_ref 0:
 * no message of ours; its payload readable during the call only) and
 * takes it (0) or not (-EAGAIN). Returns 1 when it took it: the WRE is
 * done, its id used and free again, and no tx_done follows (the caller
 * completes it); 0 when it may not go so (post it with ses_wre_post);
 * another -errno from |tx| (nothing sent).
 */
int ses_wre_send_whole(struct ses *s, const struct ses_wre *wre,
		       ses_tx_fn tx, void *ctx);

/*
 * Handles one request packet (next_hdr REQUEST_STD) as the target: checks
 * it (design section 4), places it, matches it, and writes the response
 * header to send back (next_hdr RESPONSE) into |rsp| (|rsp_len| >=
 * UET_SES_RSP_LEN). Returns the response length; 0 when the answer is a
 * DEFAULT_RESPONSE (RC_OK and nothing the initiator does not know), which
 * the caller's PDS acknowledges without carrying anything: the initiator
 * takes a packet acknowledged without a response as answered so
 * (ses_rx_default); -ESTALE for a request on a stale context (counted, not
 * answered: ses_rx_pkt); -EBADMSG or -EPROTONOSUPPORT when the packet does
 * not parse (counted, not answered); -EAGAIN when out of target state, or
 * for a send that no receive takes and the unexpected queue has no room
 * for (NACK NO_SES_MSG_AVAIL and let the sender retry); -ENOBUFS when
 * |rsp_len| is too short. Not answered means not acknowledged either: the
 * caller drops the packet.
 */
ssize_t ses_rx_req(struct ses *s, const struct ses_rx_pkt *pkt, uint8_t *rsp,
		   size_t rsp_len);

/*
 * Serves one RUDI request (ses_rudi.c): a WRITE placed or a READ read at
 * once, with the checks of ses_rx_req and one more: the region must be
 * registered SES_ACCESS_IDEMPOTENT (else RC_OP_VIOLATION). Nothing of the
 * peer is looked at or kept (no message id history, no target message):
 * a copy is served again, which an idempotent region allows. The answer,
 * into |rsp| (at least UET_SES_RSP_LEN bytes), its type in |*next_hdr|:
 * RESPONSE (DEFAULT_RESPONSE for a WRITE placed, or the return code of a
 * refusal) or, for a READ, RESPONSE_DATA with the piece it asks for: from
 * its message_offset, a Payload MTU or what is left (RC_UNSUPPORTED_SIZE
 * when that does not fit |rsp|). Returns its length; -EBADMSG or
 * -EPROTONOSUPPORT when the request does not parse (counted, unanswered).
 */
ssize_t ses_rx_rudi(struct ses *s, const struct ses_rx_pkt *pkt, uint8_t *rsp,
		    size_t rsp_len, uint8_t *next_hdr);

/*
 * Handles one response (next_hdr RESPONSE or RESPONSE_DATA) as the
 * initiator, from an ACK or a packet of its own. Returns 0 (also for stale
 * responses, which are counted), -EBADMSG or -EPROTONOSUPPORT.
 */
int ses_rx_rsp(struct ses *s, const struct ses_rx_pkt *pkt);

/*
 * The request packet of message |msg_ref| (ses_pkt.msg_ref) was
 * acknowledged without a response: its target answered DEFAULT_RESPONSE,
 * RC_OK. A WRITE, non-fetching ATOMIC or SEND without delivery-complete
 * completes once every packet of it is answered so (ses_rx_req).
 */
void ses_rx_default(struct ses *s, uint64_t msg_ref);

/*
 * Offers packets that ops.tx refused earlier and drops partial target
 * messages idle for rx_idle_ns. Returns the number of packets sent.
 */
int ses_progress(struct ses *s, uint64_t now_ns);

/*
 * The lower layer gave up on |peer|: every message to it completes with
 * |status| (negative errno), and its partial messages here are dropped
 * (their receives complete with |status|). Ids keep counting up.
 * Except, for -ETIMEDOUT (silence: a link flap, a dead host, an
 * overloaded one), rendezvous sends the peer took (it answered the
 * request, or READ the buffer while the answer was lost): their data is
 * the target's to read and their end its to say, and failed here one may
 * have been received whole there (its answer lost in the flap), so that
 * the application sends it again to a receiver that took it already.
 * They wait for that answer until a failure rdv_answer_wait_ns after the
 * first that spared them and after the last request or response heard
 * from the peer (a dead host's: the liveness probes' PDCs keep failing).
 * Returns 0 or -ENOENT (peer never seen).
 */
int ses_peer_fail(struct ses *s, uint32_t peer, int status);
/* As ses_peer_fail(-ECONNRESET), and forgets the id history: a new peer. */
int ses_peer_reset(struct ses *s, uint32_t peer);

/*
 * Whether SES holds nothing for |peer|: no message to it in flight or
 * waiting for an id, no partial or unexpected message from it, no READ
 * data or response queued for it. A peer never seen is idle.
 */
bool ses_peer_is_idle(struct ses *s, uint32_t peer);
/*
 * Drops the state of an idle |peer| (ses_peer_is_idle), id history
 * included: the id may then name another remote process, which starts as
 * a new peer. Returns 0, -ENOENT (never seen) or -EBUSY (not idle).
 */
int ses_peer_forget(struct ses *s, uint32_t peer);
/*
 * Lets an idle |peer|'s id windows go (some 400 bytes), keeping who it is
 * and where its ids go on: for a lower layer that knows no packet of its
 * current context can still arrive (its PDC closed), as for
 * ses_peer_forget. They come back at its next message either way. Returns
 * 0, -ENOENT (never seen) or -EBUSY (not idle).
 */
int ses_peer_trim(struct ses *s, uint32_t peer);

/*
 * The cheap checks of a request before the lower layer keeps any state
 * for its sender: the header decodes as one SES takes, and names a JobID
 * and PIDonFEP of ours (relative) or a PIDonFEP of ours (absolute).
 * Returns UET_SES_RC_OK, UET_SES_RC_BAD_JOB_ID or UET_SES_RC_BAD_PID (the
 * answer the request would get), or -EBADMSG / -EPROTONOSUPPORT.
 */
int ses_req_screen(struct ses *s, const struct ses_rx_pkt *pkt);

/* Copies the payload of |pkt| to |dst| (pkt->pay_len bytes); returns it. */
size_t ses_pkt_payload_copy(const struct ses_pkt *pkt, void *dst);

/*
 * Whether the payload of a SES_PAY_MSG packet, identified by its msg_ref,
 * may still be read: false once its message has completed.
 */
bool ses_pkt_payload_live(const struct ses *s, uint64_t msg_ref);

/*
 * Whether message |id| to |peer| is outstanding (an answer for it would be
 * taken): for a lower layer that must tell which of its peers a response
 * arriving on another path answers.
 */
bool ses_msg_is_outstanding(struct ses *s, uint32_t peer, uint16_t id);

void ses_stats_get(const struct ses *s, struct ses_stats *st);

/* Bytes of engine state per outstanding message and per peer. */
size_t ses_state_msg_len(const struct ses *s);
size_t ses_state_peer_len(const struct ses *s);	/* idle */
size_t ses_state_peer_win_len(void);		/* more, while active */
/* The pages the peer pool touched (peers' items, not malloc's). */
size_t ses_state_peer_pool_len(const struct ses *s);

#endif /* SES_H */
