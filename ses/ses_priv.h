/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals of the SES engine shared by its files: the engine struct,
 * peers, initiator messages, target messages, RI tables.
 */
#ifndef SES_PRIV_H
#define SES_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "ses/ses.h"
#include "ses/ses_hdr.h"
#include "ses/ses_recv.h"
#include "ses/ses_ri.h"
#include "ses/ses_util.h"

/* ---- peers ---------------------------------------------------------------
 * A message_id is a prefix (cfg.msg_id_prefix, possibly none) over a
 * sequence number in the low bits (s->id_seq_mask), and all arithmetic on
 * ids is done on the sequence, modulo its space S.
 *
 * Initiator: sequences are allocated consecutively; tx_busy marks the ones
 * in flight (bit seq % SES_MSG_WINDOW; while the peer has no ses_peer_win,
 * tx_busy_lo bit seq - tx_base, for up to 64) and allocation stops when the next
 * one is s->msg_window (W <= S / 4) ahead of the oldest in flight, so no id
 * in flight is ever reused, and one is freed only once every packet of it
 * has been answered. A message posted while the window is full is not
 * refused: it waits on tx_wait, in post order behind any already waiting,
 * and takes its id when one is freed (ses_msg_wait_kick). The window fills
 * when the target refuses sends (no receive, unexpected queue full: its
 * PDC resends them) until its application posts receives; that
 * application may be waiting for ours to have posted all its sends.
 *
 * Target: peers number the same way (our own prefix bits). rx_high is the
 * highest sequence seen from the peer. The s->rx_check (C: S / 2, at most
 * SES_RX_WINDOW; C >= 2W) sequences up to it have a bit in rx_done
 * (seq % SES_RX_WINDOW; set: finished); the S / 2 after it are new, and
 * one arriving there moves rx_high up; the rest, older still, are
 * finished. A conforming initiator only sends seq with
 * rx_high - W < seq <= rx_high + W (+ W more after ses_peer_fail dropped
 * messages the target never saw), wherever the first one seen falls, so
 * every id it has in flight is either checked by its bit or new.
 *
 * A late copy of a request (PDC lets none through; the unit tests' wire
 * does) is a duplicate while its sequence is among the C up to rx_high,
 * which is at most the last one allocated: until C sequences were
 * allocated after it. When its message is answered, fewer than W were, so
 * a copy is known for what it is for W more messages at least. That margin
 * is why W is S / 4 under a prefix of 5 bits or more: with W = S / 2 it
 * was nil, and a copy arriving once the next message was sent passed for
 * new (placed twice, or taking the done bit of the message that reuses
 * its sequence). Older copies pass for new: PDC keeps them from arriving,
 * as it keeps them from arriving from 2^15 ids ago without a prefix.
 *
 * All of the target's history of a peer (rx_high, rx_done, the prefix, its
 * messages still arriving) belongs to one incarnation of its initiator:
 * the one sending on delivery context rx_pdc (PDS: its PDC to us). A
 * request on a later PDC is a new incarnation, which numbers its messages
 * afresh: an id on it says nothing about an id seen on the PDC before (a
 * process that restarts on the same address starts again at its first
 * id). The history moves to the new context once a request on it is taken
 * (passes every check; one refused is judged against no history and
 * changes nothing); requests still arriving on an older one are dropped,
 * so nothing of the old incarnation completes, places or answers anything
 * for the new one (ses.h, ses_rx_pkt).
 *
 * A later PDC that carries no request changes nothing: responses come on
 * PDCs the remote opens too (the engine gives each of the remote's peers
 * a peer of ours, engine/uet_engine_tag.h, but a PDC carrying only
 * responses must still not move the history). A live initiator that
 * reopens its PDC after an idle close had every request of the old one
 * answered, so none is dropped.
 */
#define SES_RX_WINDOW		(2 * SES_MSG_WINDOW)
/* A refused id, for RDMO flushes (ses_rx_id_refused). */
struct ses_rx_refusal {
	uint32_t at;		/* rx_answered then; 0: none */
	uint32_t pdc;		/* the context it came on */
	uint16_t id;
	uint8_t rc;		/* the answer */
};

/* Which of a peer's message ids are in flight, and which it finished. */
struct ses_peer_win {
	uint64_t tx_busy[SES_MSG_WINDOW / 64];
	uint64_t rx_done[SES_RX_WINDOW / 64];
};

struct ses_peer {
	uint32_t id;
	uint32_t tx_cnt;
	uint16_t tx_next;	/* sequences, as all four */
	uint16_t tx_base;
	uint16_t rx_high;
	uint16_t rx_prefix;	/* in place, once rx_prefix_set */
	bool rx_init;		/* rx_high and rx_done are set up */
	bool rx_prefix_set;
	bool rx_pdc_set;	/* rx_pdc is known */
	uint32_t rx_pdc;	/* the context the history belongs to */
	/*
	 * Its id windows (ses_peer_win), from its first request to us, or
	 * its 65th id in flight from us, until ses_peer_trim: an endpoint of
	 * a large job has heard from most of its peers once and talks to a
	 * few at a time.
	 */
	struct ses_peer_win *win;
	/*
	 * Ids in flight while the peer has no ses_peer_win: bit i for
	 * sequence tx_base + i, up to 64 ahead (a peer we only write to, a
	 * few messages at a time, as over RUDI to thousands of peers, never
	 * needs the window and its cache miss per message).
	 */
	uint64_t tx_busy_lo;
	/*
	 * Ids refused (answered with an error, so never done): an RDMO flush
	 * waits for the ids before it to be done or refused (ses_rdmo.c).
	 * One slot per sequence modulo rx_check, which is more than a flush
	 * waits for (ses_rdmo_flush_check); allocated at the peer's first
	 * refusal, NULL until then. rx_answered counts ids done and refused.
	 */
	uint32_t rx_answered;
	struct ses_rx_refusal *rx_refused;
	/*
	 * When a request or response of its last came: a rendezvous send it
	 * took waits through our failures while it talks (ses_peer_fail).
	 */
	uint64_t heard_ns;
	struct ses_list tx_wait;	/* messages waiting for an id */
};

/* ---- initiator messages ------------------------------------------------- */
#define SES_MSG_F_DONE		0x01	/* tx_done reported */
#define SES_MSG_F_RETRIED	0x02	/* the one generation retry is used */
#define SES_MSG_F_QUEUED	0x04	/* on tx_pending */
#define SES_MSG_F_INTERNAL	0x08	/* a rendezvous pull: no tx_done */
#define SES_MSG_F_RDV		0x10	/* rendezvous send; rdv_mr exposed */
#define SES_MSG_F_ZOMBIE	0x20	/* superseded by a retry */
#define SES_MSG_F_FAILING	0x40	/* being failed by ses_peer_fail */
#define SES_MSG_F_WAIT		0x80	/* no id yet: on its peer's tx_wait
					 * (until completed) */
#define SES_MSG_F_SPARED	0x100	/* outlived a failure (spared_ns) */
#define SES_MSG_F_PULLED	0x200	/* rendezvous to a peer that pulls:
					 * no eager bytes */

struct ses_msg {
	const struct ses_wre *wre;
	struct ses_list link;	/* tx_pending */
	struct ses_blkmap blk;	/* READ: RESPONSE_DATA blocks placed */
	uint32_t len;
	uint32_t peer;		/* index into s->peers */
	uint32_t pkt_cnt;
	uint32_t pkt_sent;
	uint32_t rsp_cnt;
	uint32_t placed;	/* READ bytes placed */
	uint32_t rdv_mr;	/* rendezvous: region index */
	uint32_t seq;		/* s->msg_seq when taken: its msg_ref */
	uint32_t post_seq;	/* its WRE's first message's seq (a retry
				 * is its WRE's, posted then) */
	uint32_t fetch_len;	/* bytes answered in RESPONSE_DATA: a READ's
				 * or fetching atomic's len, an APPEND's 8
				 * when it asks for the old pointer */
	uint16_t msg_id;	/* unless SES_MSG_F_WAIT */
	uint8_t opcode;		/* on the wire */
	uint8_t gen;
	uint16_t flags;
	uint32_t flush_wait;	/* RDMO_FLUSH answered: earlier writes to
				 * its peer still to complete (ses_rdmo.c) */
	uint64_t spared_ns;	/* the first failure it outlived, when
				 * SES_MSG_F_SPARED (ses_peer_fail) */
};

/* ---- RI tables and regions ---------------------------------------------- */
struct ses_ri_tbl {
	uint64_t key;		/* ses_ri_key() */
	uint32_t nregions;
	uint8_t gen;
	uint8_t flags;		/* SES_RI_F_* */
	bool enabled;
};

struct ses_region {
	uint64_t rkey;
	uint8_t *base;
	uint64_t len;
	uint32_t tbl;		/* index */
	uint32_t access;
	uint32_t seq;		/* changes whenever the slot is reused */
	/*
	 * A peer READ it: for a rendezvous send's buffer, its target took
	 * the send, whether or not the ACK of its request came back
	 * (ses_peer_fail).
	 */
	bool read;
};

static inline uint64_t ses_ri_key(uint32_t job, uint16_t pid, uint16_t ri)
{
	return (uint64_t)job << 24 | (uint64_t)pid << 12 | ri;
}

/* ---- target messages --------------------------------------------------- */
#define SES_RXM_F_INMAP		0x001	/* packets still expected */
#define SES_RXM_F_UX		0x002	/* on the unexpected queue */
#define SES_RXM_F_CLAIMED	0x004	/* peeked with claim */
#define SES_RXM_F_HD		0x008
#define SES_RXM_F_DC		0x010
#define SES_RXM_F_TAGGED	0x020
#define SES_RXM_F_RDV		0x040
#define SES_RXM_F_SEND		0x080	/* a send (else a multi-packet WRITE) */
#define SES_RXM_F_PULLING	0x100	/* rendezvous READ in flight */
#define SES_RXM_F_DISCARD	0x200	/* discarded while still arriving */

/* One request packet being handled by the target, and its answer. */
struct ses_rx_ctx {
	struct ses_std_hdr h;
	struct ses_rdv_ext rdv;
	const struct ses_pull_src *src;	/* ses_rx_pkt's */
	struct ses_cas_ext amo;	/* ATOMIC, FETCHING_ATOMIC (atomic.* alone
				 * unless amo_op is a CSWAP) */
	struct ses_rdmo_ext rdmo;	/* RDMO_* */
	uint8_t *rdmo_ptr;	/* APPEND: the pointer, once checked */
	const uint8_t *pay;
	uint32_t pay_len;
	uint32_t off;		/* message_offset */
	uint64_t now_ns;
	uint32_t job_id;	/* as resolved (absolute: from the PID) */
	struct ses_peer *peer;
	uint32_t pidx;
	uint32_t pdc;		/* the context it came on */
	bool fresh;		/* that context is new to the peer's history */
	struct ses_ri_tbl *tbl;
	struct ses_region *region;
	struct ses_rxm *rxm;
	uint8_t rsp_opcode;
	uint8_t rc;
	uint32_t modified_len;
	bool rudi;		/* came by RUDI (ses_rudi.c) */
};

static inline int ses_rx_ok(struct ses_rx_ctx *c, uint8_t rsp_opcode,
			    uint32_t modified_len)
{
	c->rsp_opcode = rsp_opcode;
	c->rc = UET_SES_RC_OK;
	c->modified_len = modified_len;
	return 0;
}

static inline int ses_rx_fail(struct ses_rx_ctx *c, uint8_t rc)
{
	c->rsp_opcode = UET_SES_RSP_RESPONSE;
	c->rc = rc;
	c->modified_len = 0;
	return 0;
}

struct ses_recv;
struct ses_rdv;
struct ses_rdmo_rxm;

struct ses_rxm {
	struct ses_list link;	/* rx_active while INMAP */
	struct ses_list ux;	/* unexpected queue */
	struct ses_blkmap blk;
	uint64_t last_ns;
	uint64_t buffer_offset;
	uint64_t mkey;		/* RMA key, or match bits */
	uint64_t header_data;
	uint32_t peer;		/* index */
	uint32_t job_id;
	uint32_t initiator;
	uint32_t req_len;
	uint32_t arrived;	/* payload bytes received */
	uint16_t msg_id;
	uint16_t flags;
	uint16_t pid_on_fep;
	uint16_t ri;
	uint8_t opcode;
	uint32_t claim_id;	/* names a claimed message in its handle */
	struct ses_recv *recv;	/* matched receive */
	uint8_t *ux_buf;	/* bytes kept while unexpected */
	uint32_t ux_len;
	struct ses_rdv *rdv;
	struct ses_rdmo_rxm *rdmo;	/* an RDMO still arriving */
};

struct ses_recv {
	struct ses_list link;
	struct ses_iov iov[SES_IOV_MAX];
	uint32_t iov_cnt;
	uint32_t flags;
	uint64_t len;
	uint64_t tag;
	uint64_t ignore;
	uint32_t initiator;
	void *user_ctx;
};

/* Ids below this (the engine's largest table, 2^24) index peer_dir. */
#define SES_PEER_DIR_MAX	(1u << 24)

/* ---- the engine ---------------------------------------------------------- */
struct ses {
	struct ses_config cfg;
	struct ses_ops ops;
	void *ctx;
	struct ses_stats st;
	uint64_t now_ns;		/* as ses_progress was last told */

	struct ses_pool peers;
	/*
	 * Peer id -> index + 1 (0: none), an array for ids below
	 * SES_PEER_DIR_MAX (the engine's are table indices, dense from 1):
	 * one load where a hash map's probe lands anywhere, and ids taken in
	 * turn read it in order. It grows to the largest id seen. Other ids
	 * go to peer_map.
	 */
	uint32_t *peer_dir;
	uint32_t peer_dir_len;
	struct ses_map peer_map;	/* peer id -> index, ids past the array */
	struct ses_peer *last_peer;	/* lookup cache */

	uint16_t id_prefix;		/* cfg.msg_id_prefix in place */
	uint16_t id_seq_mask;		/* the sequence bits of an id */
	uint64_t id_rng;		/* cfg.msg_id_seed, as drawn from */
	uint32_t msg_window;		/* sequences in flight to one peer */
	uint32_t rx_check;		/* sequences a done bit remembers */

	struct ses_pool msgs;
	struct ses_map msg_map;		/* peer index << 16 | id -> index */
	uint32_t msg_seq;		/* ses_msg.seq of the next one */
	struct ses_list tx_pending;

	struct ses_pool tbls;
	struct ses_pool mrs;
	struct ses_map tbl_map;		/* ses_ri_key -> index */
	struct ses_map mr_map;		/* tbl << 48 | rkey -> index */
	struct ses_map job_map;		/* job -> tables */
	struct ses_map pid_map;		/* job << 12 | pid -> tables */
	uint64_t rdv_rkey_next;
	uint32_t mr_seq;

	struct ses_pool rxms;
	struct ses_map rxm_map;		/* peer index << 16 | id -> index */
	struct ses_list rx_active;	/* by last activity, oldest first */
	struct ses_pool recvs;
	struct ses_list posted[2];	/* [0] untagged, [1] tagged */
	struct ses_list ux;
	struct ses_list pull_pending;	/* rendezvous READs not yet started */
	struct ses_list pulling;	/* rendezvous READs started */
	/* Target states of ended rendezvous kept for the next (ses_rdv_get). */
	struct ses_rdv *rdv_spare;
	uint32_t rdv_spares;
	uint64_t pull_check_ns;		/* ses_rdv_expire's last look */
	uint32_t ux_cnt;
	uint64_t ux_bytes;

	uint32_t claim_seq;
	struct ses_list read_jobs;	/* READ responses ops.tx refused */
	struct ses_list rsp_jobs;	/* deferred responses ops.tx refused */
	struct ses_list flush_holds;	/* RDMO flushes not yet answered */
	uint32_t flush_hold_cnt;
	uint32_t flush_gated_cnt;	/* ours answered, with flush_wait */
};

/* Bytes [off, off + len) lie inside a region of |region_len| bytes. */
static inline bool ses_range_is_inside(uint64_t off, uint64_t len,
				       uint64_t region_len)
{
	return off <= region_len && len <= region_len - off;
}

/* ref 5.4: the RKEY is bits 47:0, or 11:0 in the optimized format. */
static inline uint64_t ses_mkey_rkey(uint64_t mkey)
{
	return mkey & (mkey & UET_MKEY_OPTIMIZED ? 0xFFFull :
		       UET_MKEY_RKEY_MASK);
}

static inline bool ses_op_is_rdmo(uint8_t op)
{
	return op >= UET_SES_OP_RDMO_APPEND && op <= UET_SES_OP_RDMO_FLUSH;
}

/*
 * Whether a message of opcode |op| (|dc|: delivery-complete asked) needs
 * from its target no more than "every packet placed": its end is then
 * answered DEFAULT_RESPONSE like its other packets (ses_rx_req), and its
 * initiator completes it when all are answered so (ses_rx_default). Both
 * ends decide by this one rule.
 */
static inline bool ses_op_ends_on_defaults(uint8_t op, bool dc)
{
	switch (op) {
	case UET_SES_OP_WRITE:
	case UET_SES_OP_ATOMIC:
		return true;
	case UET_SES_OP_SEND:
	case UET_SES_OP_TAGGED_SEND:
		return !dc;
	default:
		return false;
	}
}

/* ses_core.c */
struct ses_peer *ses_peer_find(struct ses *s, uint32_t id);
struct ses_peer *ses_peer_get(struct ses *s, uint32_t id);	/* creates */
/* Gives |p| its ses_peer_win, the ids of tx_busy_lo moved there; -ENOMEM. */
int ses_peer_win_make(struct ses *s, struct ses_peer *p);
/* A READ of |peer_id|'s is still being answered (ses_rxm.c). */
bool ses_read_jobs_name(const struct ses *s, uint32_t peer_id);
int ses_tx(struct ses *s, const struct ses_pkt *pkt);
/* Sends a RESPONSE outside an ACK (deferred), queueing it if refused. */
void ses_rsp_send_to(struct ses *s, uint32_t peer_id,
		     const struct ses_rsp_hdr *h);
/* A RESPONSE_DATA carrying |len| bytes of |data| (copied if queued). */
void ses_rsp_data_send_to(struct ses *s, uint32_t peer_id,
			  const struct ses_rsp_data_hdr *h, const void *data,
			  uint32_t len);
/* The deferred RESPONSE that ends the message of |m|. */
void ses_rsp_send(struct ses *s, const struct ses_rxm *m, uint8_t rc,
		  uint32_t modified_len);

/* ses_tx.c */
struct ses_msg_init {
	uint8_t opcode;		/* 0: the WRE's */
	uint16_t flags;		/* SES_MSG_F_* */
	int gen;		/* -1: ask ops.ri_gen_get */
	uint32_t rdv_mr;
	uint32_t post_seq;	/* a retry: its WRE's (0: a new WRE) */
};

int ses_msg_start(struct ses *s, const struct ses_wre *wre,
		  const struct ses_msg_init *in, struct ses_msg **out);
struct ses_msg *ses_msg_find(struct ses *s, uint32_t peer, uint16_t id);
/* The message |msg_ref| (ses_pkt.msg_ref) names, if it is still that one. */
struct ses_msg *ses_msg_by_ref(const struct ses *s, uint64_t msg_ref);
/* Starts the messages waiting for an id to |p| while the window has room. */
void ses_msg_wait_kick(struct ses *s, struct ses_peer *p);
int ses_msg_pump(struct ses *s, struct ses_msg *m);
void ses_msg_release(struct ses *s, struct ses_msg *m);
int ses_tx_progress(struct ses *s);

/* ses_cpl.c */
void ses_msg_complete(struct ses *s, struct ses_msg *m, int status, uint8_t rc,
		      uint32_t modified_len);
void ses_msg_try_free(struct ses *s, struct ses_msg *m);

/* ses_ri.c */
struct ses_ri_tbl *ses_tbl_find(const struct ses *s, uint32_t job,
				uint16_t pid, uint16_t ri);
bool ses_job_is_known(const struct ses *s, uint32_t job);
bool ses_pid_is_known(const struct ses *s, uint32_t job, uint16_t pid);
/* Absolute addressing: the job of the first table with |pid|, or -1. */
int64_t ses_pid_job(const struct ses *s, uint16_t pid);
struct ses_region *ses_mr_find(const struct ses *s,
			       const struct ses_ri_tbl *t, uint64_t rkey);
int ses_mr_add_tbl(struct ses *s, struct ses_ri_tbl *t, uint64_t rkey,
		   void *base, uint64_t len, uint32_t access);
void ses_mr_del(struct ses *s, struct ses_region *r);

/* ses_rx.c */
/* A packet of a message in progress that ses_blkmap_mark took as |mark|. */
int ses_rx_dup_or_bad(struct ses *s, struct ses_rx_ctx *c, int mark);
/* What ops.rma_done says of the request of |c|, |len| bytes long. */
void ses_rx_rma_event_init(struct ses_rma_event *ev,
			   const struct ses_rx_ctx *c, uint32_t len);
/* Reports a WRITE or atomic of |len| bytes done here (ops.rma_done). */
void ses_rx_rma_event(struct ses *s, const struct ses_rx_ctx *c, uint32_t len,
		      bool hd, uint64_t header_data);

/* ses_amo.c */
/* The checks of the atomic of |c| proper, after ses_rx.c's: why not, or OK. */
uint8_t ses_amo_check(const struct ses_rx_ctx *c);
/* Executes the atomic of |c| (every check passed) and answers. */
int ses_rx_amo(struct ses *s, struct ses_rx_ctx *c);
/* Adds the atomic (or CAS) extension of |m| to |pkt|, after its header. */
void ses_amo_pkt_ext(const struct ses_msg *m, struct ses_pkt *pkt);
/* Whether an initiator may send |w| (an atomic) with |mtu|. */
bool ses_amo_wre_is_valid(const struct ses_wre *w, uint32_t mtu);

/* ses_rdmo.c */
/* Whether an initiator may send |w| (an RDMO), and its fetch_len. */
bool ses_rdmo_wre_is_valid(const struct ses *s, const struct ses_wre *w);
/*
 * The target answered our flush |m| RC_OK: it completes with
 * |modified_len|, now or once every write (RMA, atomic, RDMO) to its peer
 * posted before it has completed, generation retries included.
 */
void ses_rdmo_flush_answered(struct ses *s, struct ses_msg *m,
			     uint32_t modified_len);
/* Message |m| completed: flushes to its peer counting on it may. */
void ses_rdmo_flush_ungate(struct ses *s, const struct ses_msg *m);
/* Adds the RDMO extension of |m| to |pkt|, after its header. */
void ses_rdmo_pkt_ext(const struct ses *s, const struct ses_msg *m,
		      struct ses_pkt *pkt);
/* The checks of the RDMO of |c| proper, after ses_rx.c's. */
uint8_t ses_rdmo_check(struct ses *s, struct ses_rx_ctx *c);
/*
 * A later packet of a scatter whose first (with the descriptors) has not
 * come: it cannot be checked yet; the sender sends it again.
 */
bool ses_rdmo_waits_som(const struct ses_rx_ctx *c);
/*
 * A later packet of an append whose first reserved its room: not refused
 * for the RI table's generation (ses_rdmo.c).
 */
bool ses_rdmo_has_room(const struct ses_rx_ctx *c);
/* Whether packet |c| describes the same RDMO as |m| does. */
bool ses_rdmo_is_same(const struct ses_rx_ctx *c, const struct ses_rxm *m);
/* Executes the RDMO of |c| (every check passed) and answers. */
int ses_rx_rdmo(struct ses *s, struct ses_rx_ctx *c);
/* Answers the held flushes of peer index |pidx| that are now clear. */
void ses_rdmo_flush_kick(struct ses *s, uint32_t pidx, uint64_t now_ns);
/* Gives up held flushes that waited rx_idle_ns without progress. */
void ses_rdmo_flush_expire(struct ses *s, uint64_t now_ns);
/* Drops the held flushes of |pidx| unanswered (its initiator is gone). */
void ses_rdmo_flush_drop(struct ses *s, uint32_t pidx);
bool ses_rdmo_flush_names(const struct ses *s, uint32_t pidx);
void ses_rdmo_fini(struct ses *s);

/* ses_rx.c */
/*
 * Design section 4's key, access and range checks of one region: the one
 * of |mkey| in |t|, granting |need| (SES_ACCESS_*), [off, off + len)
 * inside it. Returns UET_SES_RC_OK with *|out| set, or the code why not.
 */
/* ses_rx.c, for ses_rudi.c: a request decoded into |c|, then checked. */
int ses_rx_parse(struct ses_rx_ctx *c, const struct ses_rx_pkt *pkt);
uint8_t ses_rx_check(struct ses *s, struct ses_rx_ctx *c);

uint8_t ses_rx_region_check(const struct ses *s, const struct ses_ri_tbl *t,
			    uint64_t mkey, uint32_t need, uint64_t off,
			    uint64_t len, struct ses_region **out);
/* Refuses the request of |c| with |rc| (counted; the id noted refused). */
int ses_rx_refuse(struct ses *s, struct ses_rx_ctx *c, uint8_t rc);

/* ses_rxm.c: done window, target message state, READ serving */
/*
 * Whether |id| from |p| is finished. Only looks: nothing is recorded of a
 * request until it passed every check (ses_rx_id_done and the takes below
 * record), so a refused one leaves the history as it was.
 */
bool ses_rx_id_is_done(const struct ses *s, const struct ses_peer *p,
		       uint16_t id);
/* Marks |id| finished; may move the window up to it. */
void ses_rx_id_done(const struct ses *s, struct ses_peer *p, uint16_t id);
/*
 * Notes that |id|, on context |pdc|, was refused, apart from the window
 * (which a refused id must not move): in p->rx_refused.
 */
void ses_rx_id_refused(const struct ses *s, struct ses_peer *p, uint16_t id,
		       uint32_t pdc, uint8_t rc);
/* Whether |id| was noted refused on context |pdc|, and then with |*rc|. */
bool ses_rx_id_refused_on(const struct ses *s, const struct ses_peer *p,
			  uint16_t id, uint32_t pdc, uint8_t *rc);
/* Finished, or noted refused on the peer's context. */
bool ses_rx_id_is_settled(const struct ses *s, const struct ses_peer *p,
			  uint16_t id);
/* Whether |id| carries the prefix of |p| (any, while none is fixed). */
bool ses_rx_id_prefix_is_ok(const struct ses *s, const struct ses_peer *p,
			    uint16_t id);
/* The first id taken fixes the prefix of |p|. */
void ses_rx_id_prefix_take(const struct ses *s, struct ses_peer *p,
			   uint16_t id);
/*
 * Where a request on context |pdc| stands against the history of |p|: on
 * its context, on a later one (or the first: a new incarnation, judged
 * against no history), or on an earlier one (stale: dropped).
 */
enum ses_rx_pdc_age {
	SES_RX_PDC_CURRENT,
	SES_RX_PDC_NEW,
	SES_RX_PDC_STALE,
};

enum ses_rx_pdc_age ses_rx_pdc_age(const struct ses_peer *p, uint32_t pdc);
/*
 * A request on new context |pdc| was taken: it becomes the context of |p|,
 * whose history starts afresh (messages of the old one still arriving are
 * dropped).
 */
void ses_rx_pdc_take(struct ses *s, struct ses_peer *p, uint32_t pdc);
/* Forgets the id history of |p| (not its context). */
void ses_rx_history_clear(struct ses_peer *p);
struct ses_rxm *ses_rxm_find(struct ses *s, uint32_t peer_idx, uint16_t id);
/* New state for the message of |c| (NULL when out of state). */
struct ses_rxm *ses_rxm_new(struct ses *s, const struct ses_rx_ctx *c);
/* Accounts the packet of |c|, already placed. */
void ses_rxm_took(struct ses *s, struct ses_rxm *m, const struct ses_rx_ctx *c);
/* All packets are in: the id is finished, the state may live on. */
void ses_rxm_finish(struct ses *s, struct ses_rxm *m);
void ses_rxm_free(struct ses *s, struct ses_rxm *m);
/* Drops new |m| as if its packet never came: the sender sends it again. */
void ses_rxm_forget(struct ses *s, struct ses_rxm *m);
/* Ends |m| early; its receive, if any, completes with |status|. */
void ses_rxm_abort(struct ses *s, struct ses_rxm *m, int status, uint8_t rc);
int ses_rxm_expire(struct ses *s, uint64_t now_ns);
void ses_read_serve(struct ses *s, const struct ses_rx_ctx *c);
int ses_read_progress(struct ses *s);

/* ses_match.c */
int ses_rx_send(struct ses *s, struct ses_rx_ctx *c);
/* The earliest posted receive |m| matches, taken off its list, or NULL. */
struct ses_recv *ses_recv_match(struct ses *s, const struct ses_rxm *m);
/* Queues |m| as unexpected with a |buf_len| buffer; -ENOBUFS when full. */
int ses_ux_add(struct ses *s, struct ses_rxm *m, uint32_t buf_len);
void ses_ux_del(struct ses *s, struct ses_rxm *m);
/* Reports |r| done (|m| may be NULL) and frees it. */
void ses_recv_complete(struct ses *s, struct ses_recv *r,
		       const struct ses_rxm *m, int status, uint8_t rc,
		       uint64_t placed);

/* ses_rdv.c */
/* |pulled|: the peer copies the buffer itself (ses_ops.peer_pulls). */
int ses_rdv_msg_start(struct ses *s, const struct ses_wre *wre, bool pulled);
void ses_rdv_pkt_ext(struct ses *s, const struct ses_msg *m,
		     struct ses_pkt *pkt);
int ses_rx_rdv(struct ses *s, struct ses_rx_ctx *c);
/* Gives back a rendezvous' target state (NULL: nothing), for reuse. */
void ses_rdv_put(struct ses *s, struct ses_rdv *d);
/* Frees the states ses_rdv_put kept. */
void ses_rdv_spares_free(struct ses *s);
/*
 * |m| has its receive: pulls the rest with a READ. Returns 1 when nothing
 * is left to pull: the receive completed, |m| is freed and *|placed| is
 * set; with |answer|, the deferred RESPONSE went to the sender, else the
 * caller answers. Returns 0 when a pull started or waits.
 */
int ses_rdv_pull(struct ses *s, struct ses_rxm *m, bool answer,
		 uint32_t *placed);
void ses_rdv_pull_done(struct ses *s, struct ses_msg *msg, int status,
		       uint8_t rc);
void ses_rdv_progress(struct ses *s);
/*
 * Pulls that moved no data for rx_idle_ns (nor did any other pull from the
 * same peer) end: the READ completes with -ETIMEDOUT, so the receive fails
 * (-EIO, RC_UNDELIVERABLE, as a failed READ) and the sender, should it
 * live, learns it. Returns the number ended.
 */
int ses_rdv_expire(struct ses *s, uint64_t now_ns);
/*
 * The receive of rendezvous |m| (matched: pulling or waiting to) is
 * canceled: the READ ends, data still coming for it is dropped, the
 * receive completes -ECANCELED and the sender is told nothing was placed
 * (as ses_recv_discard). |m| is freed.
 */
void ses_rdv_cancel(struct ses *s, struct ses_rxm *m);

#endif /* SES_PRIV_H */
