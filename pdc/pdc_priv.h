/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDC internals shared by the pdc/ engine files: the manager, the two ends
 * of a PDC and the functions the files call in each other. Not an API.
 */
#ifndef PDC_PRIV_H
#define PDC_PRIV_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "pdc/pdc.h"
#include "pdc/pdc_hdr.h"
#include "pdc/pdc_cc_priv.h"

#define PDC_NIL		UINT32_MAX	/* end of a pool index list */
#define PDC_NO_SLOT	UINT16_MAX	/* end of a ring slot list */
#define PDC_RING_MIN	16		/* an initiator ring's first slots */
#define PDC_NACKQ_LEN	64		/* queued NACKs; more are dropped */
#define PDC_CLOSE_REQ_TRIES	3	/* CLOSE_REQs before giving up */
/* NO_PDC_AVAIL: longest wait before a SYN goes again, and for how many
 * TIME_WAITs a target may keep refusing before the PDC fails -EBUSY. */
#define PDC_NO_ROOM_WAIT_MAX_NS	256000000ull
#define PDC_NO_ROOM_BUDGET_TW	3
#define PDC_PROBE_MAX		2	/* tail-loss probes per quiet spell */
/* RTOs a copy may sit queued, past its RTO, before the timer looks why. */
#define PDC_HELD_RTOS		4
#define PDC_LOSS_MEMORY_NS	100000000ull	/* see pdc_ini.loss_ns */
#define PDC_RACK_SAMPLES	32	/* path RTTs before loss by reordering:
					 * enough to have seen every path */
#define PDC_REO_MULT_MAX	16	/* reorder window: min RTT / 4 times
					 * at most this + 1 */
#define PDC_EV_RING		64	/* clean returns kept for reuse
					 * (REPS's buffer; 8 in htsim, which
					 * ACKs every packet: one ACK of ours
					 * covers 16 or more); power of 2 */
#define PDC_STALL_PROBES	3	/* packets resent beside a stalled
						 * one (pdc_ini_stall_probes) */
#define PDC_EV_BAD		8	/* EVs left after a failure */
#define PDC_EV_RTTS		32	/* paths whose RTT is remembered */
#define PDC_EV_EXPLORE		64	/* a new EV for one new packet in this
					 * many, so that a path that came back
					 * is found again */

enum pdc_role { PDC_ROLE_INI, PDC_ROLE_TGT };

enum pdc_state {
	PDC_ST_SYN,		/* initiator: no ACK yet, requests carry SYN */
	PDC_ST_EST,
	PDC_ST_CLOSING,		/* initiator: draining, then CLOSE */
	PDC_ST_TIME_WAIT,	/* target: closed, lingers to catch strays */
};

/* Initiator ring slot flags. */
#define PDC_SLOT_SENT	0x01	/* transmitted at least once */
#define PDC_SLOT_ACKED	0x02	/* the target has it */
#define PDC_SLOT_DONE	0x04	/* tx_done reported */
#define PDC_SLOT_RETXQ	0x08	/* on the retransmit queue */
#define PDC_SLOT_RESP	0x10	/* completes only with a response */
#define PDC_SLOT_AR	0x20	/* SES asked for an immediate ACK */
#define PDC_SLOT_CLOSE	0x40	/* the CLOSE control packet, not SES data */
#define PDC_SLOT_INFL	0x80	/* counted in inflight */

/* One packet of the initiator ring, at index (psn - start_psn) % window. */
struct pdc_slot {
	uint64_t cookie;
	uint64_t sent_ns;	/* last transmission */
	uint64_t first_ns;	/* first transmission */
	uint32_t len;
	uint16_t retx_next;	/* retransmit queue link */
	uint8_t next_hdr;
	uint8_t flags;		/* PDC_SLOT_* */
	uint8_t tx_cnt;		/* transmissions so far */
	/*
	 * Of those, copies that are no tries against max_retries: a trim
	 * asked for them (NACK TRIMMED: the header arrived, it met a full
	 * queue, not a lost path) or the target refused them for want of
	 * room (pdc_ini_refused: it is there and answers); at most
	 * PDC_FORGIVEN. Time still bounds them (pdc_ini_put).
	 */
	uint8_t forgiven;
	uint16_t ev;		/* entropy of the last transmission */
};

#define PDC_FORGIVEN		64

/* The tries |s| has used against cfg.max_retries. */
static inline unsigned int pdc_slot_tries(const struct pdc_slot *s)
{
	return (unsigned int)(s->tx_cnt - s->forgiven);
}

/*
 * The entropies of an initiator PDC (pdc_ev.c). Its EVs are
 * 1 + (base + i) % ev_mask for i < cfg.ev_count: a random block per PDC,
 * so that PDCs of one host spread apart.
 */
struct pdc_paths {
	uint16_t ring[PDC_EV_RING];	/* EVs of clean returns, oldest at
					 * head, one entry per return */
	uint8_t head, cnt;
	uint8_t explore_in;	/* new packets until the next exploration */
	uint8_t bad_next;
	uint16_t base;
	uint16_t cur;		/* ROD: the one EV */
	uint16_t bad[PDC_EV_BAD];	/* left until bad_until */
	uint64_t bad_until[PDC_EV_BAD];
	uint64_t bad_last;	/* the latest of bad_until */
	/*
	 * The EV of the latest clean return, and when it came back (0:
	 * none, or it went bad since): a path alive now, for a packet
	 * whose resend was lost too (pdc_ev_pick).
	 */
	uint16_t fresh_ev;
	uint64_t fresh_ns;
	/* The latest RTT of recent EVs' paths, direct-mapped by EV. */
	uint16_t rtt_ev[PDC_EV_RTTS];
	uint64_t rtt_ns[PDC_EV_RTTS];
};

/* Initiator end: numbers, sends, retransmits, completes. */
struct pdc_ini {
	/*
	 * The packets from una on, by PSN from the start PSN: a ring that
	 * starts at PDC_RING_MIN slots and doubles up to cfg.window as more
	 * are out (pdc_ini_ring_grow), so a PDC with a few packets out at a
	 * time, as most of a large job's are, stays small.
	 */
	struct pdc_slot *slot;
	uint32_t ring_mask;
	uint32_t start_psn;
	uint32_t next_psn;	/* next PSN pdc_send() hands out */
	uint32_t send_psn;	/* first PSN never transmitted */
	uint32_t una_psn;	/* oldest packet not done; the clear PSN */
	uint32_t cack_psn;	/* latest cumulative ACK */
	uint32_t sack_high;	/* highest PSN known to have arrived */
	uint32_t inflight;	/* sent and not acknowledged */
	uint32_t infl_bytes;	/* their bytes (pdc_ini_slot_bytes) */
	uint32_t acked_bytes;	/* bytes of PSNs newly acknowledged by the
				 * ACK being read (for ACKs without NSCC
				 * state) */
	uint32_t cwnd, cwnd_acc, ssthresh;	/* without NSCC, packets */
	bool nscc;		/* cfg.cc has PDC_CC_NSCC */
	struct pdc_nscc cc;
	/* RCCC (pdc_rccc.c): bytes from the PDC's start, wrapping. */
	bool rccc;		/* cfg.cc has PDC_CC_RCCC */
	bool cr_req_due;	/* a CREDIT_REQ to send */
	bool cr_heard;		/* a CREDIT came: the peer grants */
	uint64_t cr_wait_ns;	/* since when work waits for credit; 0 */
	uint64_t cr_req_ns;	/* when the last was asked for */
	uint32_t cr_used;	/* new bytes sent */
	uint32_t cr_granted;	/* the largest CREDIT */
	uint32_t cr_spec;	/* the speculative allowance */
	uint64_t queued_bytes;	/* bytes queued, not yet sent: the backlog */
	uint32_t cc_hold_psn;	/* no second cut before cack passes it */
	uint32_t peer_win;	/* PSNs past cack the target can track */
	uint32_t rewind_psn;	/* last ROD go-back point */
	/*
	 * The last PSN the target refused for want of resources (NACK
	 * NO_SES_MSG_AVAIL and the like); meaningful while refused is set
	 * and the PSN is not acknowledged (pdc_ini_refused).
	 */
	uint32_t refused_psn;
	bool refused;
	/*
	 * A stalled packet with no other to probe with goes again at once
	 * on another EV (pdc_ini_twin): |twin_psn|'s next copy is
	 * that twin while twin_due is set, and no try against max_retries.
	 */
	bool twin_due;
	bool held_told;		/* a held copy was logged (pdc_ini_retx_held) */
	uint32_t twin_psn;
	uint32_t resend_psn, resend_end;	/* ROD go-back still to send */
	uint64_t rewind_ns;
	uint64_t srtt_ns, rttvar_ns, rto_ns;
	uint64_t min_rtt_ns;	/* 0: no sample yet */
	/* The largest path RTT of this window and the last (pdc_cc.c). */
	uint64_t rtt_win_ns, rtt_cur_max_ns, rtt_prev_max_ns;
	uint8_t rtt_cnt;	/* of those samples, saturating */
	/*
	 * Loss by time, not by count (RACK, RFC 8985): the newest packet
	 * known to have arrived was sent at rack_sent_ns and took
	 * rack_rtt_ns; one sent before it and still missing after that RTT
	 * and a reorder window (pdc_ini_rx.c) is lost. Spraying over paths
	 * whose queues differ reorders far more than any fixed count of
	 * later arrivals allows.
	 */
	uint64_t rack_sent_ns, rack_rtt_ns;
	uint8_t reo_mult;	/* grows with each spurious retransmission */
	/*
	 * The windows before the last retransmit timeout, restored when an
	 * ACK without the RETX echo shows that a packet it resent had
	 * arrived after all (the original was late: a peer that did not run
	 * for a while, not a loss; Eifel, RFC 3522, by the echo instead of a
	 * timestamp).
	 */
	bool undo_ok;
	bool ack_retx;		/* the ACK being read echoes a retransmit */
	uint32_t undo_cwnd, undo_ssthresh;
	double undo_nscc;
	bool reordered;		/* a packet arrived after a later-sent one */
	struct pdc_paths paths;
	uint64_t rto_at;	/* retransmit timer; 0: off */
	/*
	 * After a retransmit timeout, the packets sent before it,
	 * [rto_next_psn, rto_end_psn), go again oldest first, rto_room at a
	 * time: one at the timeout, then as many more as each ACK shows
	 * progress (slow start over the lost window, as TCP's loss window
	 * does). A peer that was only late (it did not run for a while:
	 * two cores shared by a dozen processes) answers the first with an
	 * ACK that covers the rest, and they never go; resending a whole
	 * window at once sent 98% of it twice (one uet_bw flow on a clean
	 * veth: 17484 resends, 17130 duplicates) and filled the late
	 * peer's ring.
	 */
	bool rto_recov;
	uint32_t rto_next_psn, rto_end_psn, rto_room;
	uint64_t rto_fired_ns;
	uint32_t done_cnt;	/* packets completed without error */
	/*
	 * When a loss was last proven (SACK, NACK, an ACK echoing a resend
	 * that filled a hole). A timeout within PDC_LOSS_MEMORY_NS of one
	 * is taken for loss: everything due goes at once, as before, for
	 * one packet a round trip crawls on a lossy path (e2e_soak's 256
	 * MiB of writes at 30% loss each way: 108 s and over 180 s under
	 * load, against 27 s; 3.7-4.2 s both ways on a quieter machine).
	 */
	uint64_t loss_ns;
	/*
	 * RACK's reorder timer (RFC 8985 6.3): when the hole that waits
	 * least is due. Without it a hole was judged only when an ACK came,
	 * and a full window caught by a dead path draws no more ACKs: it
	 * waited for the probe or the RTO (test_pdc_deadpath). 0: off.
	 */
	uint64_t rack_at;
	uint64_t probe_at;	/* tail-loss probe timer; 0: off */
	uint8_t probe_cnt;	/* probes since the last ACK progress */
	uint64_t last_active_ns;
	uint64_t retx_cnt;	/* retransmissions, for pdc_info */
	/*
	 * The manager's list of PDCs that sent since its last walk or have
	 * packets in flight (pdc_active.c).
	 */
	bool act_listed;
	struct pdc *act_prev, *act_next;
	uint16_t retx_head, retx_tail;
	uint8_t last_nack;	/* code of the latest NACK, for the error */
	/*
	 * The start PSN before the first NEW_START_PSN (0: never
	 * renumbered), and how often an INV_DPDCID sent us back to it
	 * (pdc_ini_nack.c, pdc_ini_syn_back).
	 */
	uint32_t first_start_psn;
	uint8_t syn_backs;
	uint64_t no_room_since;	/* first NO_PDC_AVAIL of this SYN, or 0 */
	uint64_t no_room_wait;	/* the last wait it drew (pdc_ini_nack.c) */
	uint64_t no_room_until;	/* and its end */
	bool close_queued;	/* the CLOSE packet has its PSN */
	bool opening;		/* counted in mgr->opening (pdc_tx.c) */
};

/* Target end: tracks PSNs, delivers, acknowledges, keeps responses. */
struct pdc_tgt {
	uint32_t start_psn;
	uint32_t cack_psn;	/* every PSN up to this one arrived */
	uint32_t clear_psn;	/* responses before this one are released */
	uint32_t last_psn;	/* latest arrival; the ACK's ack_psn */
	uint32_t high_psn;	/* the highest PSN that arrived */
	uint32_t sack_rep_psn;	/* the last PSN a SACK bitmap covered */
	uint32_t close_psn;	/* PSN of CLOSE, when close_seen */
	uint32_t ooo_cnt;	/* arrivals past a hole (bits set) */
	uint32_t ack_cnt, ack_len;	/* arrivals not yet acknowledged */
	uint32_t rcvd_bytes;	/* SES bytes of every arrival, wrapping: the
				 * ACK_CC's received bytes (NSCC) */
	uint64_t last_psn_ns;	/* when last_psn arrived: service time */
	/* RCCC (pdc_rccc.c). */
	uint32_t cr_granted;	/* bytes granted, in all */
	uint32_t cr_backlog;	/* the sender's, 256-byte units */
	bool cr_listed, cr_due;
	struct pdc *cr_next;	/* the manager's list of PDCs owed credit */
	uint64_t ack_at;	/* coalescing timer; 0: off */
	bool ack_listed;	/* in mgr->ack_due */
	uint64_t last_rx_ns;
	uint64_t expire_at;	/* TIME_WAIT end */
	uint32_t resp_head, resp_tail;	/* stored responses, arrival order */
	uint32_t due_head, due_tail;	/* responses waiting for an ACK */
	uint8_t close_req_cnt;	/* CLOSE_REQs sent while idle */
	bool ack_now, ecn, retx, close_seen, closed_in_err, close_req;
	bool syn_done;		/* a packet without SYN arrived: the initiator
				 * left its SYN phase */
	uint32_t open_seq;	/* pdc_rx_pkt.open_seq */
	uint16_t ack_ev;	/* EV of the latest request: its ACK's */
	uint64_t *bits;		/* PSNs past cack that arrived */
};

struct pdc {
	uint64_t key;		/* hash key, see pdc_key_ini/tgt() */
	uint32_t hnext;		/* hash chain: slot index + 1, 0 ends */
	uint32_t heap_idx;	/* UINT32_MAX: not in the timer heap */
	uint64_t wake_ns;	/* heap key; never after the real deadline */
	struct pdc *ready_next;
	uint32_t peer;
	uint64_t src;		/* target: pdc_rx_meta.src of its SYN */
	uint16_t id;		/* local: prefix | gen << id_bits | slot */
	uint16_t rid;		/* the other end's PDCID; 0 unknown */
	uint32_t win_mask;	/* cfg.window - 1 */
	uint8_t role, mode, state;
	bool on_ready, in_hash;
	size_t alloc_len;
	union {
		struct pdc_ini ini;
		struct pdc_tgt tgt;
	};
	uint64_t mem[];		/* ring slots or PSN bitmap */
};

struct pdc_resp_ent {
	uint32_t psn;
	uint64_t rx_ns;		/* when its request arrived */
	uint32_t next;		/* stored list or free list */
	uint32_t due_next;
	uint8_t next_hdr, len;
	bool due;
	uint8_t buf[PDC_RESP_MAX_LEN];
};

/*
 * A NACK, or (nack.pro.type UET_PDS_TYPE_ACK) the ACK an eviction record
 * answers for its PDC: nack_psn the PSN acknowledged, payload the
 * cumulative PSN (pdc_tgt_tomb_ack()).
 */
struct pdc_nackq_ent {
	uint32_t peer;
	struct pdc_nack nack;
};

/* What is left of an evicted target PDC (pdc_tgt_admit.c, pdc_tomb.c). */
struct pdc_tomb {
	uint64_t key;
	uint64_t until;		/* when its TIME_WAIT would have ended */
	uint64_t src;
	uint32_t start_psn;
	uint32_t cack_psn;	/* every PSN up to this one was delivered */
	uint32_t next;		/* its hash chain */
	uint16_t id;		/* its PDCID */
	bool syn_done;		/* its initiator had left the SYN phase */
};

struct pdc_uud_ent {
	uint64_t cookie;
	uint32_t peer, len;
	uint8_t next_hdr;
};

/* Counts by key, kept as things come and go (pdc_counts.c). */
struct pdc_counts_ent {
	uint64_t key;
	uint32_t cnt;		/* 0: empty */
};

struct pdc_counts {
	struct pdc_counts_ent *ent;	/* max slots reserved, mask + 1 used */
	struct pdc_counts_ent *tmp;	/* max / 2: where growing moves them */
	uint32_t mask, max, used;
};

int pdc_counts_init(struct pdc_counts *u, uint32_t most);
void pdc_counts_fini(struct pdc_counts *u);
void pdc_counts_inc(struct pdc_counts *u, uint64_t key);
void pdc_counts_dec(struct pdc_counts *u, uint64_t key);
uint32_t pdc_counts_get(const struct pdc_counts *u, uint64_t key);

/* The records, oldest first in a ring, found by key (pdc_tomb.c). */
struct pdc_tombs {
	struct pdc_tomb *rec;
	uint32_t cap, head, cnt;
	uint32_t *bucket;	/* chain heads; mask + 1 of them */
	uint32_t mask;
	struct pdc_counts by_src;
	/*
	 * The manager's count of what each peer holds here: a record keeps
	 * its peer, so that the caller does not retire the peer (and give
	 * its index to another) while a late packet of it may still come.
	 */
	struct pdc_counts *peer_use;
};

/*
 * Eviction records per slot: an incast of many more initiators than slots
 * evicts one PDC each within a TIME_WAIT (e2e_scale: 4092 initiators, 512
 * slots); 40 bytes a record.
 */
#define PDC_TOMBS_PER_PDC	16

int pdc_tombs_init(struct pdc_tombs *ts, uint32_t cnt);
void pdc_tombs_fini(struct pdc_tombs *ts);
bool pdc_tomb_room(struct pdc_tombs *ts, uint64_t now_ns);
void pdc_tomb_put(struct pdc_tombs *ts, const struct pdc *pdc,
		  uint64_t until);
bool pdc_tomb_find(struct pdc_tombs *ts, uint64_t key, uint32_t start,
		   uint64_t now_ns);
const struct pdc_tomb *pdc_tomb_of(struct pdc_tombs *ts, uint64_t key,
				   uint16_t id, uint32_t start,
				   uint64_t now_ns);
uint32_t pdc_tomb_src_cnt(struct pdc_tombs *ts, uint64_t src,
			  uint64_t now_ns);

struct pdc_heap_ent {
	uint64_t wake_ns;	/* its PDC's wake_ns */
	struct pdc *pdc;
};

struct pdc_mgr {
	struct pdc_cfg cfg;
	struct pdc_ops ops;
	void *ctx;
	uint64_t rng;
	uint32_t last_start_psn;
	uint32_t tgt_opens;	/* the last target PDC's open_seq */
	uint32_t id_bits;	/* slot bits of a PDCID: log2(max_pdcs) */
	uint32_t gen_bits;	/* generation bits, between slot and prefix */
	uint16_t id_prefix;	/* cfg.pdcid_prefix in place in a PDCID */
	struct pdc **tbl;	/* by slot */
	/*
	 * Free slots in the order they were freed (a ring from free_head):
	 * the slot used longest ago goes first. A PDCID is its slot and only
	 * a bit or two of generation, so a slot taken again at once would
	 * often give the PDCID just closed, which the peer may still hold
	 * in TIME_WAIT (or, if it only ever heard SYNs, take for a replay:
	 * INV_DPDCID, and the new PDC fails).
	 */
	uint16_t *free_slot;
	uint32_t free_head, free_cnt;
	uint32_t *hash;		/* bucket heads: slot + 1 */
	uint32_t hash_mask;
	/*
	 * The timer heap: each entry carries its key, so that sifting reads
	 * the heap's own array and not the PDCs it points to (64k PDCs: a
	 * cache miss per comparison made pdc_timer_del 10% of a RUDI bench).
	 */
	struct pdc_heap_ent *heap;
	uint32_t heap_cnt;
	struct pdc *ready_head, *ready_tail;
	struct pdc *send_cache;	/* last initiator PDC pdc_send() used */
	struct pdc *act_head, *act_tail;	/* pdc_active.c */
	struct pdc_nackq_ent nackq[PDC_NACKQ_LEN];
	uint32_t nackq_head, nackq_cnt;
	struct pdc_uud_ent *uudq;
	uint32_t uudq_head, uudq_cnt;
	struct pdc_resp_ent *resp;
	uint32_t resp_free, resp_free_cnt;
	/* Admission of target PDCs (pdc_tgt_admit.c). */
	uint64_t cookie_key[2];	/* SYN cookie PRF key, from cfg.seed */
	uint32_t tgt_per_src;	/* cfg.tgt_max_per_src, default applied */
	uint32_t tgt_reserve;	/* cfg.tgt_reserve, default applied */
	struct pdc_tombs tombs;	/* records of evicted PDCs */
	uint64_t *scratch_src;	/* 2 * max_pdcs: counts by src */
	uint32_t *scratch_cnt;
	uint64_t room_ask_ns;	/* last scans of pdc_room.c */
	uint64_t room_close_ns;
	uint16_t tx_ev;		/* EV of the frame built last */
	/*
	 * How long this manager's peers lately took to answer: the largest
	 * RTO the RTT samples of any of its PDCs gave, decaying toward the
	 * newer ones (pdc_rto_hint_sample). A new PDC, which has no sample
	 * of its own, waits at least this long before it resends.
	 */
	uint64_t rto_hint_ns;
	bool link_down;		/* pdc_link_state */
	uint32_t opening;	/* initiator PDCs unanswered (cfg.max_opening) */
	/* What our NSCC ACKs say of our own backlog (pdc_rx_backlog). */
	uint8_t rcv_penalty;
	bool rcv_restore;
	/*
	 * Ids of target PDCs that armed a delayed ACK, for pdc_ack_flush:
	 * an id may stay after its ACK went or its PDC closed (checked
	 * then), never twice while tgt.ack_listed; 2 x max_pdcs of them.
	 */
	uint16_t *ack_due;
	uint32_t ack_due_cnt;
	struct pdc_counts peer_use;	/* PDCs, NACKs and UUDs by peer */
	struct pdc_counts tgt_live;	/* target PDCs not in TIME_WAIT, by peer */
	struct pdc_counts tgt_src;	/* target PDCs, by pdc->src */
	struct pdc_rccc rccc;
	struct pdc_rudi_tbl *rudi;	/* RUDI requests and responses (pdc_rudi.c) */
	struct pdc_stats stats;
};

/* ---- small hot helpers ----------------------------------------------- */

/*
 * The slot is in the low bits; comparing the whole id turns away another
 * generation and another endpoint's prefix alike.
 */
static inline struct pdc *pdc_by_id(const struct pdc_mgr *mgr, uint16_t id)
{
	struct pdc *pdc = mgr->tbl[id & ((1u << mgr->id_bits) - 1)];

	return pdc && pdc->id == id ? pdc : NULL;
}

/* The ring is indexed from the start PSN so a renumbered PDC keeps it. */
static inline struct pdc_slot *pdc_ini_slot(struct pdc *pdc, uint32_t psn)
{
	return &pdc->ini.slot[(psn - pdc->ini.start_psn) & pdc->ini.ring_mask];
}

/* Sent and not yet passed by una: a PSN replies may talk about. */
static inline bool pdc_ini_is_live(const struct pdc *pdc, uint32_t psn)
{
	const struct pdc_ini *ini = &pdc->ini;

	return pdc_psn_in(psn, ini->una_psn, ini->send_psn - ini->una_psn);
}

/* Not done, and either unacknowledged or still owed its response. */
static inline bool pdc_slot_needs_tx(const struct pdc_slot *slot)
{
	return !(slot->flags & PDC_SLOT_DONE) &&
	       (!(slot->flags & PDC_SLOT_ACKED) ||
		(slot->flags & PDC_SLOT_RESP));
}

/* The slowest path's RTT lately: the larger of two windows' largest. */
/* A loss was proven within PDC_LOSS_MEMORY_NS of |now_ns| (loss_ns). */
static inline bool pdc_ini_lossy(const struct pdc_ini *ini, uint64_t now_ns)
{
	return ini->loss_ns && now_ns - ini->loss_ns < PDC_LOSS_MEMORY_NS;
}

static inline uint64_t pdc_ini_max_rtt(const struct pdc_ini *ini)
{
	return ini->rtt_cur_max_ns > ini->rtt_prev_max_ns ?
	       ini->rtt_cur_max_ns : ini->rtt_prev_max_ns;
}

/*
 * An ACK of a resent |slot| back sooner than 3/4 of any round trip after
 * the resend answers an earlier copy: the resend was spurious.
 */
static inline bool pdc_ini_acks_earlier_copy(const struct pdc_ini *ini,
					     const struct pdc_slot *slot,
					     uint64_t now_ns)
{
	return slot->tx_cnt > 1 &&
	       now_ns - slot->sent_ns < ini->min_rtt_ns / 4 * 3;
}

/*
 * The bytes a slot puts in flight, as the target counts them (SES bytes);
 * a CLOSE, which has none, counts as a small packet.
 */
static inline uint32_t pdc_ini_slot_bytes(const struct pdc_slot *slot)
{
	return slot->len ? slot->len : 64;
}

/* Giving up: EBUSY when the target kept saying it had no room for us. */
static inline int pdc_ini_fail_err(const struct pdc_ini *ini)
{
	return ini->last_nack == UET_PDS_NACK_NO_PDC_AVAIL ? -EBUSY :
							     -ETIMEDOUT;
}

void pdc_timer_arm_slow(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t at_ns);

/* |pdc| was answered, or goes: no longer opening (cfg.max_opening). */
static inline void pdc_ini_answered(struct pdc_mgr *mgr, struct pdc *pdc)
{
	if (pdc->role == PDC_ROLE_INI && pdc->ini.opening) {
		pdc->ini.opening = false;
		mgr->opening--;
	}
}

/* Deadlines only move the heap when they come earlier (pdc_timer.c). */
static inline void pdc_timer_arm(struct pdc_mgr *mgr, struct pdc *pdc,
				 uint64_t at_ns)
{
	if (at_ns < pdc->wake_ns)
		pdc_timer_arm_slow(mgr, pdc, at_ns);
}

/* pdc_mgr.c */
uint64_t pdc_splitmix(uint64_t *s);
uint32_t pdc_rand32(struct pdc_mgr *mgr);
uint64_t pdc_key_ini(uint32_t peer, uint8_t mode);
uint64_t pdc_key_tgt(uint32_t peer, uint16_t rid);
struct pdc *pdc_new(struct pdc_mgr *mgr, uint8_t role, uint32_t peer,
		    uint8_t mode);
void pdc_free(struct pdc_mgr *mgr, struct pdc *pdc);
struct pdc *pdc_hash_find(const struct pdc_mgr *mgr, uint64_t key,
			  const struct pdc *after);
void pdc_hash_add(struct pdc_mgr *mgr, struct pdc *pdc);
void pdc_hash_del(struct pdc_mgr *mgr, struct pdc *pdc);
uint32_t pdc_new_start_psn(struct pdc_mgr *mgr);
void pdc_emit(struct pdc_mgr *mgr, const struct pdc *pdc, uint32_t type,
	      int err);
void pdc_log(struct pdc_mgr *mgr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* pdc_active.c */
void pdc_active_add(struct pdc_mgr *mgr, struct pdc *pdc);
void pdc_active_del(struct pdc_mgr *mgr, struct pdc *pdc);
void pdc_info_fill(const struct pdc_mgr *mgr, const struct pdc *pdc,
		   struct pdc_info *info);

/* An initiator PDC transmits: on the active list, once. */
static inline void pdc_active_mark(struct pdc_mgr *mgr, struct pdc *pdc)
{
	if (!pdc->ini.act_listed)
		pdc_active_add(mgr, pdc);
}

/* pdc_timer.c */
void pdc_timer_del(struct pdc_mgr *mgr, struct pdc *pdc);

/* pdc_tx.c */
/* pdc_rudi.c: RUDI, no PDC (see there) */
int pdc_rudi_init(struct pdc_mgr *mgr);
void pdc_rudi_fini(struct pdc_mgr *mgr);
int pdc_rudi_send(struct pdc_mgr *mgr, const struct pdc_pkt *pkt);
ssize_t pdc_rudi_build(struct pdc_mgr *mgr, uint8_t *buf, size_t len,
		       uint32_t *peer, uint64_t now_ns);
uint64_t pdc_rudi_next(const struct pdc_mgr *mgr);
int pdc_rudi_rx(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		const uint8_t *buf, size_t len);
bool pdc_rudi_rx_nack(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		      const struct pdc_nack *nack, uint64_t now_ns);

void pdc_ready(struct pdc_mgr *mgr, struct pdc *pdc);
void pdc_ready_del(struct pdc_mgr *mgr, struct pdc *pdc);
void pdc_nack_queue(struct pdc_mgr *mgr, uint32_t peer,
		    const struct pdc_nack *nack);
ssize_t pdc_put_ctl(const struct pdc *pdc, uint8_t ctl_type, uint8_t flags,
		    uint32_t psn, uint32_t payload, uint8_t *buf, size_t len);

/* pdc_ini.c */
bool pdc_ini_can_send(const struct pdc *pdc);
void pdc_ini_retx_push(struct pdc *pdc, uint32_t psn);
void pdc_ini_retx_clear(struct pdc *pdc);
void pdc_ini_retx_prune(struct pdc *pdc);
void pdc_ini_retx_held(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t psn,
		       uint64_t now_ns);
int pdc_ini_ring_grow(struct pdc_mgr *mgr, struct pdc *pdc);
ssize_t pdc_ini_build(struct pdc_mgr *mgr, struct pdc *pdc, uint8_t *buf,
		      size_t len, uint64_t now_ns);
void pdc_ini_mark_acked(struct pdc *pdc, struct pdc_slot *slot);
void pdc_ini_complete(struct pdc_mgr *mgr, struct pdc *pdc,
		      struct pdc_slot *slot, int status,
		      const struct pdc_tx_done *resp);
bool pdc_ini_advance(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns);
void pdc_ini_fail(struct pdc_mgr *mgr, struct pdc *pdc, int err);
bool pdc_ini_start_close(struct pdc_mgr *mgr, struct pdc *pdc,
			 uint64_t now_ns);
/* A target's request to close: taken unless our packets crossed it. */
bool pdc_ini_close_asked(struct pdc_mgr *mgr, struct pdc *pdc,
			 uint64_t now_ns);
void pdc_ini_on_timer(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns);
void pdc_ini_arm_probe(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns);
uint32_t pdc_ini_sack_holes(struct pdc_mgr *mgr, struct pdc *pdc,
			    uint64_t now_ns);
void pdc_ini_rto_release(struct pdc_mgr *mgr, struct pdc *pdc,
			 uint32_t room, uint64_t now_ns);

/* pdc_ini_nack.c */
struct pdc *pdc_ini_reply_pdc(struct pdc_mgr *mgr,
			      const struct pdc_rx_meta *meta, uint16_t dpdcid,
			      uint16_t spdcid);
bool pdc_ini_ack_first_start(struct pdc_mgr *mgr, struct pdc *pdc,
			     uint32_t cack_psn);

/* pdc_ini_rx.c */
void pdc_ini_rx_ack(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		    const struct pdc_ack *ack, const uint8_t *resp,
		    size_t resp_len, uint64_t now_ns);
void pdc_ini_rx_nack(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		     const struct pdc_nack *nack, uint64_t now_ns);
void pdc_ini_rx_close_req(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
			  const struct pdc_ctl *ctl, uint64_t now_ns);

/* pdc_ev.c */
void pdc_ev_init(struct pdc_mgr *mgr, struct pdc *pdc);
uint16_t pdc_ev_pick(struct pdc_mgr *mgr, struct pdc *pdc,
		     const struct pdc_slot *slot, uint64_t now_ns);
void pdc_ev_good(struct pdc_mgr *mgr, struct pdc *pdc, uint16_t ev,
		 uint64_t now_ns);
bool pdc_ev_heard(struct pdc_mgr *mgr, struct pdc *pdc, uint16_t ev,
		  uint64_t now_ns);
void pdc_ev_bad(struct pdc_mgr *mgr, struct pdc *pdc, uint16_t ev,
		uint64_t now_ns);
uint32_t pdc_ev_in_use(const struct pdc *pdc);
void pdc_ev_rtt_set(struct pdc *pdc, uint16_t ev, uint64_t rtt_ns);
uint64_t pdc_ev_rtt(const struct pdc *pdc, uint16_t ev);

/* pdc_tgt.c */
void pdc_tgt_rx_req(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		    const struct pdc_req *req, const uint8_t *ses,
		    size_t ses_len, uint64_t now_ns);
void pdc_tgt_rx_ctl(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		    const struct pdc_ctl *ctl, uint64_t now_ns);
void pdc_tgt_on_timer(struct pdc_mgr *mgr, struct pdc *pdc, uint64_t now_ns);
void pdc_tgt_close(struct pdc_mgr *mgr, struct pdc *pdc, int err,
		   uint64_t now_ns);

/* pdc_tgt_admit.c */
enum pdc_gate {
	PDC_GATE_OPEN,		/* open a PDC (after pdc_tgt_make_room) */
	PDC_GATE_CHALLENGE,	/* answer NEW_START_PSN with the cookie */
	PDC_GATE_STALE,		/* a late SYN of an evicted PDC */
};

int pdc_admit_init(struct pdc_mgr *mgr);
void pdc_admit_fini(struct pdc_mgr *mgr);
uint32_t pdc_cookie(const struct pdc_mgr *mgr, uint64_t src, uint16_t spdcid,
		    uint64_t now_ns);
enum pdc_gate pdc_tgt_gate(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
			   uint16_t spdcid, uint32_t start, uint32_t *cookie,
			   uint64_t now_ns);
bool pdc_tgt_make_room(struct pdc_mgr *mgr, uint64_t src, uint64_t now_ns);
bool pdc_make_room(struct pdc_mgr *mgr, uint64_t now_ns);
void pdc_room_ask(struct pdc_mgr *mgr, uint64_t now_ns);
bool pdc_room_close_own(struct pdc_mgr *mgr, uint64_t now_ns);

/* pdc_tgt_ack.c */
bool pdc_tgt_bit_test(const struct pdc *pdc, uint32_t psn);
void pdc_tgt_mark(struct pdc *pdc, uint32_t psn);
bool pdc_tgt_has_ack(const struct pdc *pdc);
ssize_t pdc_tgt_build(struct pdc_mgr *mgr, struct pdc *pdc, uint8_t *buf,
		      size_t len, uint64_t now_ns);
bool pdc_resp_reserve_ok(const struct pdc_mgr *mgr);
void pdc_resp_store(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t psn,
		    const struct pdc_resp *resp);
bool pdc_resp_resend(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t psn);
void pdc_resp_clear(struct pdc_mgr *mgr, struct pdc *pdc, uint32_t clear_psn);
void pdc_resp_free_all(struct pdc_mgr *mgr, struct pdc *pdc);

#endif /* PDC_PRIV_H */
