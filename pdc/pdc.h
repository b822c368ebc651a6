/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Packet Delivery Sublayer: the PDCs of one endpoint, kept by a manager.
 * No I/O and no clock: frames go in through pdc_rx_frame(), come out of
 * pdc_tx_build() into the caller's buffer, and every call takes |now_ns|.
 *
 * Roles. A PDC carries requests one way: the initiator end numbers them with
 * PSNs, the target end delivers them to SES and acknowledges them; SES
 * responses ride back in the ACKs. Traffic the other way uses a second PDC
 * that the other endpoint initiates. pdc_send() opens the initiator PDC to a
 * peer on first use (SYN, ref 2.9); a target PDC appears when a SYN arrives.
 *
 * Peers are opaque caller-chosen ids (an address-vector index, say); the
 * manager never sees an address. Callbacks run only inside calls into the
 * manager, and may call pdc_send() and pdc_close(), never
 * pdc_mgr_destroy().
 *
 * The caller's loop: after pdc_send() or pdc_rx_frame(), and whenever the
 * clock reaches pdc_next_timeout(), call pdc_tx_build() until it returns 0
 * and put each frame on the wire to the peer it names. Timers only run
 * inside pdc_tx_build().
 *
 * Target PDCs and hostile peers. A SYN that names no PDC of ours opens one
 * at once (0-RTT) unless its sender must first prove it receives frames
 * at its address: when its peer already has a live target PDC (a forged
 * SYN can then neither retire nor displace it), when fewer than
 * cfg.tgt_reserve slots are free, or when its host (pdc_rx_meta.src)
 * holds cfg.tgt_max_per_src target PDCs. The proof is the secure setup of
 * ref 2.9: NACK NEW_START_PSN carries a start PSN minted as a keyed hash
 * (a cookie, nothing is kept), the initiator renumbers and resends, and a
 * SYN at a valid cookie opens its PDC (one extra round trip). With no
 * free slot, the target evicts before it refuses: the host's own oldest
 * when it is at its share, TIME_WAIT PDCs, then the least recently used
 * idle PDC of the host holding the most; initiator PDCs never. Only then
 * NO_PDC_AVAIL. Counters: syn_challenged, syn_confirmed, tgt_evicted.
 *
 * Exactly-once delivery rests on two assumptions, as TCP's does: start
 * PSNs and PDCIDs are random (seed cfg.seed from getrandom()), and no copy
 * of a packet lives in the network longer than cfg.time_wait_ns / 2.
 */
#ifndef PDC_H
#define PDC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pdc/pdc_psn.h"

/* Longest SES response an ACK carries and a target stores for duplicates. */
#define PDC_RESP_MAX_LEN	64

enum pdc_mode {
	PDC_MODE_RUD,		/* reliable, unordered */
	PDC_MODE_ROD,		/* reliable, ordered */
	PDC_MODE_UUD,		/* unreliable, unordered; no PDC state */
	PDC_MODE_RUDI,		/* reliable, unordered, idempotent; no PDC:
				 * each packet its own pkt_id, answered by
				 * one RUDI_RESP, resent on its own timer
				 * (pdc_rudi.c) */
	PDC_MODE_CNT
};

/*
 * How an initiator PDC picks the entropy value (EV) of each packet, which
 * the caller puts in the UDP source port, so that the fabric's switches
 * hash packets with different EVs onto different paths (UE 1.0 3.6.16).
 * An RUD PDC sprays; a ROD PDC keeps one EV (in-order delivery needs one
 * path) and changes it only after a loss. The target's ACK travels under
 * the EV of the request that drew it.
 */
enum pdc_mp_mode {
	PDC_MP_AWARE,		/* RUD: REPS, EVs whose packets came back
				 * clean are used again, new ones explored
				 * when none is, failed ones left a while;
				 * 0, so that a zeroed setting is the default */
	PDC_MP_OBLIVIOUS,	/* RUD: a random EV of the PDC's for each */
	PDC_MP_OFF,		/* EV 0 on every frame: the caller's own */
	PDC_MP_CNT
};

/*
 * Congestion control of initiator PDCs (UE 1.0 3.6.13), cfg.cc. Without
 * NSCC the window counts packets and halves on loss (AIMD, the first
 * design; "off" to the user). With it the window counts bytes, targets
 * ACKs carry ACK_CC NSCC state (service time, received bytes), and ECN
 * marks, queueing delay and trimmed packets steer it (pdc_nscc.c).
 */
#define PDC_CC_NSCC		0x01
/*
 * RCCC (UE 1.0 3.6.14, pdc_rccc.c): new bytes need the receiver's credit,
 * which it grants at its link's rate (cfg.link_bps) to senders that report
 * a backlog; requests go as RUD_CC_REQ / ROD_CC_REQ.
 */
#define PDC_CC_RCCC		0x02

/* What a switch did to a request on its way (its DSCP tells the caller). */
enum pdc_trim {
	PDC_TRIM_NONE,
	PDC_TRIM,		/* cut to its headers: NACK TRIMMED */
	PDC_TRIM_LASTHOP,	/* cut by the last switch: NACK TRIMMED_LASTHOP */
};

/* Tunables; pdc_cfg_init() fills the defaults (ref 2.9 where it has one). */
struct pdc_cfg {
	uint64_t seed;		/* PRNG for PDCIDs and start PSNs: seed it
				 * from a real random source in production */
	uint32_t start_psn;	/* tests only: non-zero fixes every start PSN */
	uint32_t max_pdcs;	/* PDCs of both roles; power of 2, 2..4096 */
	uint32_t window;	/* ring and tracking window, packets; power of
				 * 2, 64..4096 (the SYN psn_offset is 12 bits) */
	uint32_t cwnd_init;	/* packets; without NSCC */
	uint32_t cwnd_min;	/* packets, >= 1; without NSCC */
	uint8_t cc;		/* PDC_CC_*; 0 (the default): AIMD */
	bool trimming;		/* NSCC: the fabric trims (target delay 3/4
				 * of the base RTT instead of 1) */
	uint64_t link_bps;	/* NSCC: our link's rate, bits/s: the
				 * largest window is 1.5 x rate x base RTT */
	bool link_guessed;	/* NSCC: link_bps is an assumption (the
				 * driver reported no rate): each flow lowers
				 * it where a switch marks, to twice what it
				 * delivers, and raises it back (no further)
				 * as deliveries grow unmarked */
	uint64_t base_rtt_ns;	/* NSCC: the base RTT assumed until a
				 * smaller one is measured */
	uint64_t target_qdelay_ns;	/* NSCC: 0 (the default): scaled to
					 * the measured base RTT */
	bool no_dfc;		/* NSCC: never ask initiators for less when
				 * behind (pdc_rx_backlog); default false */
	uint32_t rccc_spec;	/* RCCC: bytes a sender may send on
				 * speculation (0: two of max_payload_len) */
	uint64_t rto_init_ns;
	uint64_t rto_min_ns;
	uint64_t rto_max_ns;	/* back-off stops here */
	uint32_t max_retries;	/* retransmissions of one packet, then fail */
	uint8_t mp_mode;	/* enum pdc_mp_mode */
	uint16_t ev_count;	/* EVs one PDC may use, 1..ev_mask */
	uint16_t ev_mask;	/* EVs are 1..ev_mask: the bits the caller
				 * has for them in its source port */
	uint32_t ack_coalesce_len;	/* bytes received before an ACK */
	uint32_t ack_coalesce_cnt;	/* packets received before an ACK */
	uint64_t ack_delay_ns;	/* longest an ACK waits */
	uint64_t ack_hold_ns;	/* longest the caller keeps an ACK built
				 * before it goes (default 0); the peer is
				 * assumed to do the same */
	uint64_t idle_ns;	/* idle PDCs close after this; 0: never */
	uint64_t time_wait_ns;	/* closed target PDCs linger to catch strays;
				 * no packet is resent once half this old, so
				 * copies that live less than the other half
				 * in the network never outlive the target's
				 * memory of the PDC */
	uint32_t resp_pool_cnt;	/* stored SES responses, whole manager */
	/*
	 * Target PDCs against hostile peers (see pdc_rx_frame()). A src
	 * (pdc_rx_meta.src) holds at most tgt_max_per_src target PDCs, TIME_WAIT
	 * included (0, the default: max_pdcs / 4, at least 2); with fewer
	 * than tgt_reserve free slots (0, the default: max_pdcs / 4; must be
	 * below max_pdcs) new PDCs need a SYN cookie.
	 */
	uint32_t tgt_max_per_src;
	uint32_t tgt_reserve;
	/*
	 * Initiator PDCs opening at once: their SYN sent, no answer yet. A
	 * packet to a peer with no PDC waits (pdc_send: -EBUSY) while this
	 * many are; 0 (the default): no bound.
	 */
	uint32_t max_opening;
	uint32_t max_payload_len;	/* longest SES part of one packet */
	/*
	 * Every local PDCID is pdcid_prefix << (16 - pdcid_prefix_bits) |
	 * local, so that a shared interface can steer by DPDCID alone (the
	 * endpoint index of include/uet_fep.h). local is a random generation
	 * over the slot, gen << log2(max_pdcs) | slot; the generation keeps at
	 * least 1 bit: max_pdcs <= 2^(15 - pdcid_prefix_bits). It is never 0
	 * under prefix 0, where it would make the id 0, so prefix 0 wants 2
	 * bits or more for it to vary. pdcid_prefix_bits <= 9 and
	 * pdcid_prefix < 2^pdcid_prefix_bits; 0 bits (the default): no prefix.
	 * An incoming DPDCID under another prefix is an unknown PDC.
	 */
	uint16_t pdcid_prefix;
	uint8_t pdcid_prefix_bits;
};

/* A request that arrived for SES. */
struct pdc_rx_pkt {
	uint32_t peer;
	uint16_t pdcid;		/* the target PDC's local id; 0 for UUD */
	/*
	 * The manager's target PDCs numbered as they open, from 1 (modulo
	 * 2^32, never 0): of two PDCs from one peer, the later one has the
	 * larger number, whatever order their packets arrive in. 0 for UUD.
	 */
	uint32_t open_seq;
	uint8_t mode;		/* enum pdc_mode */
	uint8_t next_hdr;	/* enum uet_pds_next_hdr: the SES header */
	uint32_t psn;		/* 0 for UUD */
	/*
	 * PSNs its initiator had not seen acknowledged before this one (its
	 * clear_psn_offset, negated): how deep it streams. 0 for UUD.
	 */
	uint16_t behind;
	const uint8_t *buf;	/* SES bytes, valid during the callback */
	size_t len;
};

/* What SES answers; next_hdr UET_PDS_NEXT_HDR_NONE for no response. */
struct pdc_resp {
	uint8_t next_hdr;
	uint8_t len;
	uint8_t buf[PDC_RESP_MAX_LEN];
};

/* The end of one pdc_send(): acknowledged, or failed. */
struct pdc_tx_done {
	uint64_t cookie;	/* as given to pdc_send() */
	uint32_t peer;
	int status;		/* 0, or a negative errno (see pdc_send()) */
	uint8_t resp_next_hdr;	/* NONE unless the ACK carried a response */
	const uint8_t *resp;	/* valid during the callback */
	size_t resp_len;
};

enum pdc_event_type {
	PDC_EV_ESTABLISHED,	/* initiator: the first ACK arrived */
	PDC_EV_CLOSED,		/* either end; err says how */
	PDC_EV_FAILED,		/* initiator: packets completed with err */
	PDC_EV_PEER_RESTART,	/* the peer came back as a new incarnation */
};

struct pdc_event {
	uint32_t type;		/* enum pdc_event_type */
	uint32_t peer;
	uint16_t pdcid;		/* local id */
	uint8_t mode;
	bool is_initiator;
	int err;		/* 0 or a negative errno */
};

/*
 * Upcalls. All but log and admit are required.
 * admit: a SYN request would open a new target PDC (|pkt| as for deliver,
 *   with pdcid and open_seq 0). Nothing exists for it yet: return 0 to let
 *   the PDC be made, or a negative errno to drop the packet unanswered
 *   (counted in rx_refused) when its first packet fails the caller's cheap
 *   checks (SES header, JobID, PIDonFEP). NULL admits every SYN.
 * deliver: a new request arrived (never called twice for one PSN of one PDC).
 *   Fill |resp| to answer; return 0, or -EAGAIN when SES cannot take it now
 *   (the initiator is told to retry; nothing is recorded), or another
 *   negative errno to leave it unanswered (dropped, not acknowledged:
 *   rx_unanswered). Left empty, |resp| is a DEFAULT_RESPONSE: the ACK alone
 *   carries it, coalesced with others, and the initiator's tx_done reports
 *   the packet without a response. A PSN with a response is never
 *   acknowledged without it while the response is held (cumulative ACKs
 *   stop short of it, SACKs leave it out) until the initiator's clear PSN
 *   passes it.
 * fill: write the |len| SES bytes of |cookie| into |buf| for a first
 *   transmission or a retransmission; return 0 or a negative errno (the
 *   packet then fails with it).
 * tx_done: a packet sent with pdc_send() is finished.
 * event: a PDC changed state.
 * log: a one-line note on a rare event; may be NULL.
 */
typedef int (*pdc_admit_fn)(void *ctx, const struct pdc_rx_pkt *pkt);
typedef int (*pdc_deliver_fn)(void *ctx, const struct pdc_rx_pkt *pkt,
			      struct pdc_resp *resp);
typedef int (*pdc_fill_fn)(void *ctx, uint64_t cookie, uint8_t *buf,
			   size_t len);
typedef void (*pdc_tx_done_fn)(void *ctx, const struct pdc_tx_done *done);
typedef void (*pdc_event_fn)(void *ctx, const struct pdc_event *ev);
typedef void (*pdc_log_fn)(void *ctx, const char *msg);
/*
 * rudi: a RUDI request arrived (|pkt| as for deliver, mode PDC_MODE_RUDI,
 *   pdcid and open_seq 0, psn its pkt_id). The manager keeps nothing of
 *   it: a copy is offered again, and must be safe to execute again (the
 *   caller serves only idempotent operations). Write the SES response into
 *   |rsp| (at most |cap| bytes: cfg.max_payload_len plus
 *   PDC_RUDI_RSP_HDR_MAX) and its header type into |*next_hdr|; return its
 *   length, which one RUDI_RESP carries back; -EAGAIN to have the
 *   initiator retry later (NACK NO_RESOURCE); -EPROTONOSUPPORT when RUDI
 *   is not served (NACK UNEXP_EVENT); another negative errno to drop it
 *   unanswered. NULL: RUDI is not served.
 */
typedef ssize_t (*pdc_rudi_fn)(void *ctx, const struct pdc_rx_pkt *pkt,
			       uint8_t *rsp, size_t cap, uint8_t *next_hdr);

struct pdc_ops {
	pdc_admit_fn admit;
	pdc_deliver_fn deliver;
	pdc_fill_fn fill;
	pdc_tx_done_fn tx_done;
	pdc_event_fn event;
	pdc_log_fn log;
	pdc_rudi_fn rudi;
};

/* SES header bytes a RUDI response may add to a packet's payload. */
#define PDC_RUDI_RSP_HDR_MAX	64

/* One packet for pdc_send(). */
struct pdc_pkt {
	uint64_t cookie;	/* caller's; handed to fill and tx_done */
	uint32_t peer;
	uint32_t len;		/* SES bytes, <= cfg.max_payload_len */
	uint8_t mode;		/* enum pdc_mode */
	uint8_t next_hdr;	/* SES header type that starts the bytes */
	uint8_t flags;		/* PDC_PKT_F_* */
};

#define PDC_PKT_F_AR		0x01	/* ask the target to ACK at once */
#define PDC_PKT_F_WANT_RESP	0x02	/* complete only with the response */

/* Per-frame facts the caller learnt below PDS. */
struct pdc_rx_meta {
	uint32_t peer;
	/*
	 * The sending host as the caller tells hosts apart (a digest of its
	 * address, say): frames from one host carry the same value whatever
	 * peer they come from. Limits on target PDCs apply per src.
	 */
	uint64_t src;
	bool ecn_ce;		/* the IP header carried Congestion Experienced */
	uint8_t trim;		/* enum pdc_trim: a request cut by a switch */
	uint16_t ev;		/* the frame's entropy value; 0 unknown */
};

/* Counters of one manager. */
struct pdc_stats {
	uint64_t tx_req, tx_retx, tx_ack, tx_nack, tx_ctl, tx_uud;
	uint64_t tx_resp;	/* ACKs that carried a SES response */
	uint64_t tx_resp_again;	/* of them, a held one carried again */
	uint64_t rx_req, rx_dup, rx_delivered, rx_ack, rx_nack, rx_ctl;
	uint64_t rx_uud, rx_bad, rx_stale, rx_dropped;
	uint64_t rx_refused;	/* SYNs ops->admit turned away */
	uint64_t rx_unanswered;	/* requests ops->deliver left unanswered */
	uint64_t tx_ack_held;	/* ACKs whose cumulative PSN stopped short
				 * of a held response */
	uint64_t nack_tx_code[32], nack_rx_code[32];	/* by code, < 32 */
	uint64_t pdc_created, pdc_closed, pdc_failed, peer_restarts;
	uint64_t pdcs;		/* live PDCs, TIME_WAIT included */
	uint64_t state_len;	/* bytes held by live PDCs */
	uint64_t syn_challenged;	/* SYNs answered with a cookie */
	uint64_t syn_confirmed;	/* SYNs that came back with a valid one */
	uint64_t tgt_evicted;	/* live target PDCs freed to make room */
	uint64_t close_req_crossed;	/* a target's CLOSE_REQs ignored: our
					 * unacknowledged packets crossed them */
	uint64_t close_req_pressure;	/* CLOSE_REQs to quiet initiators
					 * while our table was short */
	uint64_t ini_closed_pressure;	/* our idle PDCs closed for a slot */
	uint64_t no_room_waits;	/* NO_PDC_AVAIL refusals waited out */
	uint64_t opening_waits;	/* sends to a new peer refused: max_opening
				 * PDCs were unanswered */
	uint64_t tx_tomb_ack;	/* ACKs from records of evicted PDCs */
	/* Retransmissions queued, by cause (pdc_ini_*.c). */
	uint64_t retx_rto, retx_sack, retx_probe, retx_nack;
	uint64_t retx_stall;	/* resent beside a stalled packet, each on
				 * its own EV (pdc_ini_stall_probes) */
	uint64_t rto_fired;	/* retransmit timeouts (retx_rto: packets) */
	uint64_t retx_held;	/* timer runs that found a queued copy
				 * unsent PDC_HELD_RTOS RTOs on
				 * (pdc_ini_retx_held) */
	uint64_t rto_link_down;	/* time-outs of copies held by a link
				 * down (pdc_link_state) */
	uint64_t retx_spurious;	/* the original's ACK came back after a
				 * retransmission had gone: reordering, not
				 * loss */
	uint64_t rto_undone;	/* timeouts found spurious, windows restored */
	uint64_t syn_backs;	/* SYNs sent back to their first start PSN
				 * after INV_DPDCID (pdc_ini_syn_back) */
	/* Entropies (enum pdc_mp_mode). */
	uint64_t ev_explored;	/* new EVs tried */
	uint64_t ev_recycled;	/* EVs of clean ACKs kept for reuse */
	uint64_t ev_retired;	/* EVs left after a loss, timeout or mark */
	uint64_t ev_in_use;	/* now: EVs kept for reuse by live PDCs */
	/* Congestion (pdc_nscc.c). */
	uint64_t rx_ce;		/* requests that arrived marked CE */
	uint64_t rx_trimmed;	/* requests that arrived trimmed */
	uint64_t cc_ecn_acks;	/* ACKs that echoed a mark */
	uint64_t cc_decreases;	/* NSCC multiplicative decreases */
	uint64_t cc_quick_adapts;	/* NSCC quick adapts */
	uint64_t cc_fair_incs, cc_prop_incs, cc_fast_incs;	/* ACKs by case */
	uint64_t cc_holds;	/* marked ACKs of a queue below target */
	uint64_t cc_rcv_penalised;	/* ACKs whose target asked for less
					 * (Rcv_Cwnd_Pend) */
	uint64_t cc_rcv_restores;	/* windows given back (Restore_Cwnd) */
	uint64_t tx_rcv_penalty;	/* ACKs we sent asking for less: we
					 * were behind (pdc_rx_backlog) */
	uint64_t rccc_granted;	/* bytes of credit granted (receiver) */
	uint64_t rccc_credits_tx, rccc_credits_rx;	/* CREDIT packets */
	uint64_t rccc_reqs;	/* CREDIT_REQs sent */
	uint64_t rccc_starved;	/* allowances after an RTO without credit */
	uint64_t rccc_off;	/* PDCs whose peer grants none: RCCC off */
	/* RUDI (pdc_rudi.c). */
	uint64_t rudi_tx_req, rudi_tx_retx, rudi_tx_resp;
	uint64_t rudi_rx_req, rudi_rx_resp;
	uint64_t rudi_rx_stale;	/* responses and NACKs naming no request of
				 * ours (late, duplicated or forged) */
	uint64_t rudi_timeouts;	/* requests failed after max_retries */
	uint64_t rudi_nacked;	/* requests the target asked us to retry */
	uint64_t rudi_busy;	/* requests we asked an initiator to retry */
	uint64_t rudi_inflight;	/* now: requests awaiting their response */
};

/* A snapshot of one initiator PDC, for tests and diagnostics. */
struct pdc_info {
	uint32_t peer;
	uint8_t mode;		/* enum pdc_mode */
	uint16_t pdcid, remote_pdcid;
	bool is_established;
	uint32_t start_psn, next_psn;
	uint32_t cwnd, inflight, queued;	/* packets */
	uint32_t unacked_bytes;	/* SES bytes of the inflight packets */
	uint64_t retx;		/* retransmissions since the PDC opened */
	uint64_t srtt_ns, rto_ns;
	/* NSCC (cfg.cc), when |nscc|: bytes and the delays it steers by. */
	bool nscc;
	uint32_t cwnd_bytes, max_wnd_bytes, inflight_bytes;
	uint32_t link_mbps;	/* the rate max_wnd is of: learnt, when
				 * cfg.link_guessed */
	uint64_t base_rtt_ns, avg_delay_ns, target_qdelay_ns;
	/* RCCC: bytes the sender may still send new. */
	int32_t credit;
	size_t state_len;
};

struct pdc_mgr;

/* Fills |cfg| with the defaults. */
void pdc_cfg_init(struct pdc_cfg *cfg);

/*
 * pdc_mgr_create() makes a manager for one endpoint. |cfg| is copied; |ops|
 * and |ctx| must outlive the manager. Returns NULL with errno EINVAL (a bad
 * |cfg| or a missing callback) or ENOMEM.
 */
struct pdc_mgr *pdc_mgr_create(const struct pdc_cfg *cfg,
			       const struct pdc_ops *ops, void *ctx);

/* Frees the manager and every PDC in it; no callback runs. */
void pdc_mgr_destroy(struct pdc_mgr *mgr);

/*
 * pdc_send() queues |pkt| on the initiator PDC for (peer, mode), opening it
 * when there is none. The SES bytes are pulled later through ops->fill and
 * again for each retransmission, so they must stay available until
 * ops->tx_done reports the packet. Returns 0; -EAGAIN when the PDC's ring
 * is full (retry after a tx_done); -EMSGSIZE when |pkt->len| is too long;
 * -EINVAL for a bad mode or next_hdr; -EBUSY when no PDC can be opened.
 * tx_done status: 0; -ETIMEDOUT (retries exhausted); -ECONNRESET (the
 * target lost the PDC: it restarted); -ECONNABORTED (the target closed it);
 * -EPROTO (the target rejected the PDC); -EBUSY (the target had no PDC for
 * us until retries ran out); a fill error.
 *
 * PDC_MODE_RUDI opens no PDC: the packet gets a pkt_id of its own (under
 * cfg.pdcid_prefix in its top bits, so that a shared interface steers the
 * response back by it), waits in a table of cfg.window requests (-EAGAIN
 * when full) until its RUDI_RESP comes, and is resent with RETX set each
 * time its own RTO runs out (rto_init_ns doubling to rto_max_ns). Its
 * tx_done carries the response (resp_next_hdr, resp: the SES response the
 * target wrote). Status: 0; -ETIMEDOUT after max_retries resends;
 * -EPROTONOSUPPORT (the target does not serve RUDI: NACK UNEXP_EVENT);
 * -EPROTO (another NACK code); a fill error.
 */
int pdc_send(struct pdc_mgr *mgr, const struct pdc_pkt *pkt, uint64_t now_ns);

/*
 * pdc_tx_build() runs due timers and writes the next frame to send (the PDS
 * header and what follows it) into |buf|. Returns its length and sets
 * |*peer|; 0 when nothing is waiting; -ENOBUFS when |len| is too short for
 * the frame (it stays queued). Call it until it returns 0.
 */
ssize_t pdc_tx_build(struct pdc_mgr *mgr, uint8_t *buf, size_t len,
		     uint32_t *peer, uint64_t now_ns);

/*
 * pdc_tx_build_ev() is pdc_tx_build() that also tells the frame's entropy
 * value in |*ev| (0: the caller's default, e.g. with PDC_MP_OFF, NACKs).
 */
ssize_t pdc_tx_build_ev(struct pdc_mgr *mgr, uint8_t *buf, size_t len,
			uint32_t *peer, uint16_t *ev, uint64_t now_ns);

/*
 * pdc_rx_frame() takes one received PDS frame (from the PDS prologue to the
 * end of the UDP payload). Returns 0 when it was handled (delivered,
 * acknowledged, recognised as a duplicate or a stray, or answered with a
 * NACK); -EBADMSG when it does not decode; -EPROTONOSUPPORT for TSS,
 * which is opened before PDS.
 */
int pdc_rx_frame(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		 const uint8_t *buf, size_t len, uint64_t now_ns);

/*
 * pdc_next_timeout() returns when pdc_tx_build() should next be called: 0
 * when frames are waiting now, UINT64_MAX when nothing is scheduled.
 */
uint64_t pdc_next_timeout(const struct pdc_mgr *mgr);

/*
 * pdc_close() closes the initiator PDC for (peer, mode) once everything
 * queued on it is acknowledged; later sends open a new one. Returns 0 or
 * -ENOENT when there is no such PDC.
 */
int pdc_close(struct pdc_mgr *mgr, uint32_t peer, uint8_t mode,
	      uint64_t now_ns);

/*
 * pdc_local_peer() tells the peer of our PDC |pdcid| (an initiator one when
 * |initiator|, else a target one): a caller that demultiplexes peers by
 * more than their address finds the peer of an ACK or NACK by its DPDCID.
 * Returns 0 or -ENOENT.
 */
int pdc_local_peer(const struct pdc_mgr *mgr, uint16_t pdcid, bool initiator,
		   uint32_t *peer);

/*
 * Destination flow control (UE 1.0 3.6.13.2): how far behind the caller
 * is in reading what arrives, |waiting| frames in a receive queue of
 * |room|, as it starts to read. While more than half the queue waits,
 * the NSCC ACKs this manager sends ask their initiators for a smaller
 * window (Rcv_Cwnd_Pend, rising to 127 with a full queue); once no more
 * than an eighth waits, they tell them to restore the window
 * they had (Restore_Cwnd). Holds until the next call. The queue that
 * overflows when a receiver falls behind is the caller's (an AF_XDP ring
 * drops what it has no room for), so only the caller can tell.
 */
void pdc_rx_backlog(struct pdc_mgr *mgr, uint32_t waiting, uint32_t room);

/*
 * pdc_ack_flush() makes every ACK this manager's target PDCs owe due now
 * (instead of at the end of its coalescing delay), so that the next
 * pdc_tx_build() calls write them: a completion the application can see
 * must not wait on a delayed ACK (the application may never call again).
 */
void pdc_ack_flush(struct pdc_mgr *mgr);

/*
 * pdc_peer_in_use() tells whether anything of the manager still names
 * |peer|: a PDC of either role (TIME_WAIT included) or a queued NACK. A
 * caller may reuse a peer id only once it is not.
 */
bool pdc_peer_in_use(const struct pdc_mgr *mgr, uint32_t peer);

/*
 * pdc_peer_unacked() tells whether an initiator PDC of ours to |peer|, of
 * either mode, holds packets not yet acknowledged (sent, queued or waiting
 * to go again): its retransmit timer is then judging the peer.
 */
bool pdc_peer_unacked(const struct pdc_mgr *mgr, uint32_t peer);

/*
 * pdc_rudi_local_peer() tells the peer of our outstanding RUDI request
 * |pkt_id| (a RUDI response, or a NACK with NT set, names it): 0 or
 * -ENOENT.
 */
int pdc_rudi_local_peer(const struct pdc_mgr *mgr, uint32_t pkt_id,
			uint32_t *peer);

/*
 * pdc_link_state() says whether the device's link is down (it sends
 * nothing). While it is, a copy that waits to go and times out has spent a
 * try, as it would have on a NIC that sent it into the dead link: the
 * retry budget then ends a PDC as it does for a dead path.
 */
void pdc_link_state(struct pdc_mgr *mgr, bool down);

/*
 * pdc_timers_run() runs the PDCs' timers that are due (retransmit, ACK,
 * idle, TIME_WAIT), as pdc_tx_build() does first. For a caller that has
 * no frame to build into, the link down holding them all, so that the
 * time-outs still count (pdc_link_state).
 */
void pdc_timers_run(struct pdc_mgr *mgr, uint64_t now_ns);

/* Copies the manager's counters into |stats|. */
void pdc_mgr_stats(const struct pdc_mgr *mgr, struct pdc_stats *stats);

/*
 * The windows of every initiator PDC summed, bytes: NSCC's, or AIMD's
 * packets times cfg.max_payload_len. What the manager may have in flight
 * at most; walks the table (for stats, not per packet).
 */
uint64_t pdc_mgr_cwnd_bytes(const struct pdc_mgr *mgr);

/* Describes the initiator PDC for (peer, mode); 0 or -ENOENT. */
int pdc_info_get(const struct pdc_mgr *mgr, uint32_t peer, uint8_t mode,
		 struct pdc_info *info);

/*
 * pdc_active_walk() calls |fn| with the snapshot of each initiator PDC
 * that transmitted since the previous walk or still has packets in
 * flight, and returns how many it saw. The manager keeps those PDCs on a
 * list as they send, so a walk costs the busy PDCs only, however many
 * idle ones there are. |fn| must not call into the manager.
 */
typedef void (*pdc_active_fn)(void *ctx, const struct pdc_info *info);
uint32_t pdc_active_walk(struct pdc_mgr *mgr, pdc_active_fn fn, void *ctx);

#endif /* PDC_H */
