/* SPDX-License-Identifier: BSD-2-Clause */
/* The engine's state, shared by its files; not part of its API. */
#ifndef UET_ENGINE_PRIV_H
#define UET_ENGINE_PRIV_H

#include "engine/uet_engine.h"
#include "engine/uet_engine_tag.h"
#include "dev/uet_dev_client.h"
#include "dev/uet_frame.h"
#include "dev/uet_mirror.h"
#include "dev/uet_nl.h"
#include "dev/uet_xsk.h"

/*
 * Peers: SES and PDC peer ids, up to cfg.max_peers (FI_UET_MAX_PEERS), in
 * tables whose space is reserved at that size and used as ids are first
 * given (uet_vm.h). PDCs are fewer (cfg.max_pdcs, FI_UET_MAX_PDCS: at
 * most what the PDCID prefix leaves, 2^(15 - prefix bits)) and close
 * when idle; peers outlive them until aged (uet_engine_peer.c).
 */
#define UET_ENGINE_MAX_PEERS_DEF	262144
#define UET_ENGINE_MAX_PEERS_MAX	(1u << 24)
#define UET_ENGINE_PEER_HASH_MIN	1024	/* buckets of (address, tag) */
/*
 * Provisional peers: reply addresses for sources PDC has not admitted,
 * enough to send them a NACK. Few, and few per source.
 */
#define UET_ENGINE_PROV_MAX	64
#define UET_ENGINE_PROV_PER_SRC	16
/*
 * Live peers that sent to us first: at most a quarter of the table per
 * source address, three quarters in all (the rest is for those we send
 * to first, which the application names): e->live_per_src, e->live_max.
 */
/* Heard from this long ago and held by nothing: its id may be reused. */
#define UET_ENGINE_PEER_AGE_NS	1000000000ull
#define UET_ENGINE_AGE_EVERY_NS	100000000ull
/*
 * Peers looked at per aging round: a table of a million costs what one of
 * a few thousand does each round, and an idle peer waits a few rounds
 * more (at 64k peers, 16 rounds: 1.6 s) for its turn.
 */
#define UET_ENGINE_AGE_BATCH	4096
/* WREs to peers whose next hop is being resolved, all peers. */
#define UET_ENGINE_HELD_WRES	256
/*
 * Neighbour cache (uet_engine_neigh.c): an entry per host, at most one
 * per peer (e->neigh_max); its hash grows with it. Each tick looks at
 * UET_ENGINE_NEIGH_BATCH entries from where the last stopped.
 */
#define UET_ENGINE_NEIGH_HASH_MIN	1024
#define UET_ENGINE_NEIGH_BATCH	512
#define UET_ENGINE_NEIGH_TIMEOUT_NS	3000000000ull
/*
 * Kernel lookups per millisecond: a lookup is two netlink exchanges, a
 * resolution request a datagram (some 10-30 us in all); a flood of forged
 * sources gets at most this many, and a fraction of a core.
 */
#define UET_ENGINE_NL_BUDGET	8
#define UET_ENGINE_TICK_NS	1000000ull	/* neighbours, resolving peers */
/*
 * Progress calls in a row that only look whether anything arrived, after
 * one that found nothing: an application polling in a loop pays a clock
 * read and every timer's check once per this many calls (some 30 ns
 * each otherwise), and timers (tens of microseconds and up) slip by a
 * few of its polls at most.
 */
#define UET_ENGINE_IDLE_POLLS	16
#define UET_ENGINE_TX_SLOTS	4096	/* SES packets held for (re)send */
#define UET_ENGINE_GEN_SLOTS	1024	/* cached RI generations */
#define UET_ENGINE_RX_BATCH	64
#define UET_ENGINE_RX_BATCHES	16	/* read per progress call, at most */
#define UET_ENGINE_ACK_HOLD	32	/* ACK frames queued behind requests */
/*
 * How long ACKs alone may wait for the application's next request before a
 * kick of their own (uet_engine_progress). An application that waits for
 * two completions before answering (its own send's and the peer's
 * message, as fi_pingpong and MPI do) would otherwise send the ACK of the
 * second one alone, a syscall and a frame delivery ahead of its answer.
 * Well under the peers' retransmit timer (200 us at least).
 */
#define UET_ENGINE_ACK_WAIT_NS	20000ull
/*
 * An initiator with at least this many PSNs outstanding before its last
 * request (its clear_psn_offset says so) streams: holding our ACKs for
 * UET_ENGINE_ACK_WAIT_NS to merge them does not stall it, as it would an
 * initiator with one write out that waits for its completion.
 */
#define UET_ENGINE_DEEP_PSNS	16
#define UET_ENGINE_RTO_INIT_NS	5000000ull	/* see uet_engine_pdc_setup */
#define UET_ENGINE_TIME_WAIT_NS	10000000000ull	/* likewise */
/* PDCs opening at once (pdc_cfg.max_opening): see uet_engine_pdc_setup. */
#define UET_ENGINE_MAX_OPENING	16
/* A peer that owes us READ data and is silent this long is dead. */
/*
 * A peer we wait on (operations outstanding) and have not heard from this
 * long is asked whether it lives: an empty READ of an RI nobody uses,
 * which any live target answers at once (with an error code), and which
 * the device service of a dead one answers with RC_BAD_PID.
 */
#define UET_ENGINE_SILENT_NS	250000000ull
#define UET_ENGINE_PROBE_RI	0xFFFu

/*
 * A response (a deferred RESPONSE, READ data) rides a PDC of ours that
 * the initiator waits on with nothing of its own left to retransmit: its
 * request was acknowledged. When that PDC fails (the link down longer
 * than the retry budget), the response goes again on a new PDC, for this
 * long after the first failure; else the initiator's operation would wait
 * for it for ever (uet_engine_resp_resend).
 */
#define UET_ENGINE_RESP_RETRY_NS	10000000000ull
#define UET_ENGINE_RESP_RESENDS		64	/* and at most this often */

/* Peer tags and kinds: uet_engine_tag.h. */

/*
 * What a peer id is now. PROVISIONAL: a source PDC has not admitted, only
 * answered (NACKs), never handed to SES. RESOLVING: one we send to first,
 * whose next hop the kernel is resolving: its WREs wait in the engine.
 * UNREACHABLE: that failed; the next post tries again. LIVE: in use.
 */
enum uet_engine_peer_state {
	UET_PEER_FREE,
	UET_PEER_PROVISIONAL,
	UET_PEER_RESOLVING,
	UET_PEER_UNREACHABLE,
	UET_PEER_LIVE,
};

struct uet_engine_peer {
	struct uet_fa fa;
	uint32_t tag;
	uint8_t state;		/* enum uet_engine_peer_state */
	uint32_t nb;		/* its neighbour entry (e->neigh) */
	uint32_t hash_next;	/* e->peer_hash chain: index + 1, 0 ends */
	uint32_t nheld;		/* its WREs in e->held_wres */
	/*
	 * The two peers of one remote endpoint: a PIDonFEP peer learns the
	 * endpoint index from the SPDCID of its ACKs, so that responses
	 * arriving through the index peer find the PIDonFEP peer their
	 * message went to (uet_engine_resp_peer).
	 */
	int32_t remote_ep;	/* PIDonFEP peer: -1 until an ACK says */
	/*
	 * Operations outstanding to it, and when we last heard from it: one
	 * that acknowledged a READ or a rendezvous send and then died sends
	 * nothing more, and nothing of ours waits on the wire to fail.
	 */
	uint32_t ops_out;
	uint64_t heard_ns;
	struct uet_engine_probe *probe;	/* out, or NULL */
	bool gone;		/* its service said so: fail it (not from
				 * inside SES's callback) */
	bool busy_listed;	/* in e->busy (uet_engine_busy_add) */
	/*
	 * A packet went to it since its operations began: its silence
	 * counts from then. Until one does, they wait on us (our queue,
	 * PDCs opening: pdc_cfg.max_opening), not on it.
	 */
	bool sent;
	uint32_t epoch;		/* bumped when its messages are failed */
	/*
	 * How its packets travel (enum uet_engine_peer_path): by frames, or
	 * through the local channel of endpoint |lch_ep| of our interface
	 * (uet_engine_local.c), where |lch_rpeer| is that endpoint's peer
	 * for us, which our responses name.
	 */
	uint8_t path;
	uint16_t lch_ep;
	uint32_t lch_rpeer;
};

/* A silent peer's "are you alive" (uet_engine_silent_peers). */
struct uet_engine_probe {
	struct ses_addr dst;	/* our JobID, its PIDonFEP */
	struct ses_wre wre;
};

enum uet_engine_peer_path {
	UET_PATH_UNTRIED = 0,	/* decided at its first packet */
	UET_PATH_WIRE,		/* frames (the wire, or the UMEM locally) */
	UET_PATH_LOCAL,		/* a local channel */
};

/*
 * An SES packet handed to PDC: its header and where its payload is, for
 * as long as PDC may ask for it again (ses.h, enum ses_pay_life). A
 * payload SES lends only for the call, or one whose region goes while the
 * packet is held, is copied into |own|, which the slot keeps for reuse.
 */
struct uet_engine_slot {
	uint8_t next_hdr;
	uint8_t pay_life;	/* enum ses_pay_life; CALL once copied */
	bool busy;		/* held by PDC */
	uint16_t hdr_len;
	uint8_t hdr[SES_PKT_HDR_MAX];
	struct ses_iov iov[SES_IOV_MAX];
	size_t iov_cnt;
	uint64_t pay_off;
	uint32_t pay_len;
	uint32_t peer;
	uint32_t epoch;		/* the peer's epoch when it was sent */
	uint64_t msg_ref;	/* SES_PAY_MSG */
	uint8_t *own;		/* copied payload */
	uint32_t own_cap;
	uint32_t lch_seq;	/* a local channel's request: its number */
	const void *rdv_buf;	/* a rendezvous request's (ses_pkt) */
	uint64_t rdv_len;
	bool rudi;		/* sent as RUDI (PDC_MODE_RUDI) */
	uint64_t resp_fail_ns;	/* a response: when its PDC first failed */
	uint32_t resp_resends;	/* and how often it went again since */
};

enum uet_engine_neigh_state {
	UET_NEIGH_RESOLVING,	/* the kernel is asked; no MAC yet */
	UET_NEIGH_VALID,	/* has_mac */
	UET_NEIGH_FAILED,	/* err: -EHOSTUNREACH, -ENETUNREACH, ... */
};

/* The next hop of one address, and what is counted per host. */
struct uet_engine_neigh {
	struct uet_fa fa;
	struct uet_nl_hop hop;	/* the kernel's last answer */
	uint8_t state;		/* enum uet_engine_neigh_state */
	bool has_mac;		/* mac holds a usable MAC (once VALID) */
	bool local;		/* our own address: our MAC, never asked */
	bool seen_pending;	/* this attempt saw the kernel resolving */
	bool no_entry;		/* the kernel made no entry when asked */
	uint8_t mac[6];
	int err;		/* FAILED: why */
	uint64_t src;		/* keyed digest: pdc_rx_meta.src */
	uint32_t refs;		/* peers naming it */
	uint32_t prov;		/* of those, provisional */
	uint32_t live_ep;	/* of those, live and sent to us first */
	uint64_t used_ns, checked_ns, since_ns, kicked_ns, timeout_ns;
	uint32_t hash_next;	/* e->neigh_hash chain: index + 1 */
};

/* A WRE held until its peer's next hop is known. */
struct uet_engine_held_wre {
	const struct ses_wre *wre;
	uint32_t peer;
};

/* The initiator's cached generation of (peer, pid_on_fep, ri). */
struct uet_engine_gen {
	uint64_t key;		/* 0: empty; else bit 63 | (peer, pid, ri) */
	uint8_t gen;
};

struct uet_engine {
	struct uet_engine_cfg cfg;
	struct uet_engine_ops ops;
	void *ctx;
	struct uet_dev_ep dev;	/* our endpoint of the device service */
	struct uet_xsk *xsk;	/* its socket */
	uint32_t ep_index;	/* its index: our PDCID/message_id prefix */
	struct pdc_mgr *pdc;
	struct pdc_ops pdc_ops;
	struct ses *ses;
	struct ses_ops ses_ops;
	int ifindex;
	uint8_t mac[6];
	uint16_t entropy;
	uint32_t payload_mtu;
	size_t hdr_len;		/* Ethernet + IP + UDP (+ TSS): PDS's offset */
	size_t frame_hdr_len;	/* Ethernet + IP + UDP */
	size_t tss_len;		/* the TSS header we send, or 0 */
	size_t trailer_len;	/* ICV or CRC after the PDS packet, or 0 */
	struct uet_tss_ep *tss;	/* NULL: frames in clear */
	uint32_t tss_gen;	/* the service's key generation we hold */
	uint8_t *opened;	/* received frames' plaintext: private */
	/* Reserved for cfg.max_peers (uet_vm.h), used below npeers. */
	struct uet_engine_peer *peers;
	uint32_t max_peers;
	uint32_t npeers;	/* ids ever used: those below it */
	uint32_t nused;		/* of those, not free */
	uint32_t *peer_hash;	/* index + 1; peer_hash_mask + 1 buckets */
	uint32_t peer_hash_mask;
	uint32_t *free_ids, nfree_ids;	/* reserved as peers */
	uint32_t nprov, nlive_ep;	/* provisional; live, sent first */
	uint32_t live_per_src, live_max;	/* limits of nlive_ep */
	uint32_t prov_ids[UET_ENGINE_PROV_MAX];	/* the provisional ones */
	/*
	 * Peers with operations outstanding (or found gone): the only ones
	 * the silence check looks at. Reserved as peers.
	 */
	uint32_t *busy, nbusy;
	uint32_t age_cursor;	/* where the next aging round starts */
	bool warned_full;	/* ops.warn said the table refuses peers */
	bool warned_neigh_full;	/* the kernel's neighbour table, once */
	uint64_t age_check_ns, tick_ns;
	uint64_t pub_ns;	/* figures last published (uet_engine_pub.c) */
	bool pub_owed;		/* traffic since: publish, if need be asleep */
	uint64_t svc_ns;	/* the service's connection last looked at */
	/*
	 * The service went away and we try to reattach: every progress
	 * call runs the tick (no idle skip), so that an idle endpoint is
	 * back within the new service's wait (uetd_takeover.c).
	 */
	bool svc_retrying;
	/*
	 * Our wake socket (uet_engine_wake.c): local writers and the
	 * service send to it while we sleep. -1 without a service.
	 */
	int wake_fd;
	uint64_t wake_nonce;
	/*
	 * Who relies on the flags (uet_engine_wake.c): threads asleep in
	 * uet_engine_sleep..uet_engine_woke, and an application blocked on
	 * a wait object it armed, until its next progress call.
	 */
	uint32_t sleepers;
	bool app_asleep;
	/* FI_UET_TRACE (uet_engine_trace.c): UINT64_MAX when off. */
	uint64_t trace_at_ns, trace_every_ns;
	uint64_t trace_wall_ns;	/* the wall clock less the monotonic */
	FILE *trace_f;
	struct uet_engine_held_wre held_wres[UET_ENGINE_HELD_WRES];
	uint32_t nheld_wres;
	struct uet_nl *nl;	/* kept for neighbour lookups */
	struct uet_engine_neigh *neigh;	/* reserved for neigh_max */
	uint32_t neigh_max;
	uint32_t nneigh;	/* slots ever used */
	uint32_t neigh_cursor;	/* where the tick's scan starts */
	uint32_t *neigh_hash;	/* index + 1; neigh_hash_mask + 1 */
	uint32_t neigh_hash_mask;
	uint64_t src_key;	/* of the host digests */
	uint64_t nl_budget_ns;
	uint32_t nl_budget;
	struct uet_engine_slot *slots;
	uint32_t *free_slots, nfree, nslots;
	/* Busy slots whose payload is in a registered region (pay_revoke). */
	uint32_t nslots_region;
	struct uet_engine_gen gens[UET_ENGINE_GEN_SLOTS];
	uint8_t *bounce;	/* one frame, for frames over one chunk */
	struct uet_xsk_frame *tx_scatter;	/* being built in bounce */
	uint32_t tx_scatter_off;	/* where its payload went, or MAX */
	uint32_t tx_scatter_end;
	/*
	 * A frame to be sealed, over several chunks: its payload stays in the
	 * application's buffer, which uet_engine_tss_seal_to encrypts from
	 * (recorded by uet_engine_pdc_fill).
	 */
	struct {
		bool ok;	/* the frame being built may */
		uint32_t off;	/* where its payload is in the frame */
		uint32_t len;	/* 0: all of it is in bounce */
		const struct ses_iov *iov;
		size_t cnt;
		uint64_t from;	/* into the iov */
	} tx_gather;
	bool tx_long;		/* the last frame took more than one chunk */
	uint64_t now_ns;	/* of the current progress call */
	uint64_t last_rx_ns;	/* a frame last came (debug notes) */
	uint64_t silent_check_ns;	/* uet_engine_silent_peers */
	bool kick_deferred;	/* frames built while receiving wait a call */
	uint32_t idle_polls;	/* calls left that only look (UET_ENGINE_IDLE_POLLS) */
	bool cpl_seen;		/* a completion went up in this progress */
	/* ACKs built, queued on the ring only just before the kick. */
	struct uet_xsk_frame held[UET_ENGINE_ACK_HOLD];
	uint32_t held_len[UET_ENGINE_ACK_HOLD];
	uint32_t held_key[UET_ENGINE_ACK_HOLD];	/* uet_engine_ack_key */
	uint32_t nheld;
	uint64_t held_since_ns;	/* when the first of them was held */
	/*
	 * The application was handed something of a peer's (a receive, a
	 * write's CQ data or counter) since the held ACKs went: it may
	 * answer, so they may wait for it (uet_engine_acks_wait).
	 */
	bool answer_may_come;
	bool peer_streams;	/* the last request's initiator had
				   UET_ENGINE_DEEP_PSNS out before it */
	struct uet_mirror mirror;	/* sent frames to a running capture */
	struct uet_engine_local *local;	/* NULL: no local channels */
	struct uet_engine_stats stats;
};

/* The address in two words (IPv4 in the first, the rest 0), for hashes. */
static inline void uet_fa_words(const struct uet_fa *fa, uint64_t w[2])
{
	w[0] = w[1] = 0;
	if (fa->is_v6)
		memcpy(w, &fa->v6, sizeof(fa->v6));
	else
		memcpy(w, &fa->v4, sizeof(fa->v4));
}

static inline bool uet_fa_equal(const struct uet_fa *a, const struct uet_fa *b)
{
	if (a->is_v6 != b->is_v6)
		return false;
	return a->is_v6 ? !memcmp(&a->v6, &b->v6, sizeof(a->v6)) :
			  a->v4.s_addr == b->v4.s_addr;
}

void uet_engine_peer_fail(struct uet_engine *e, uint32_t peer, int status);
void uet_engine_silent_peers(struct uet_engine *e);
void uet_engine_probe_done(struct uet_engine *e, uint32_t peer,
			   const struct ses_tx_cpl *cpl);

/* Peer table (uet_engine_peer.c). */
static inline bool uet_engine_peer_is_up(const struct uet_engine *e,
					 uint32_t peer)
{
	return peer < e->npeers && e->peers[peer].state == UET_PEER_LIVE;
}

int uet_engine_peers_setup(struct uet_engine *e);
void uet_engine_peers_destroy(struct uet_engine *e);
void uet_engine_busy_add(struct uet_engine *e, uint32_t peer);
int uet_engine_peer_add(struct uet_engine *e, const struct uet_fa *fa,
			uint32_t tag, uint8_t state, uint32_t nb);
void uet_engine_peer_free(struct uet_engine *e, uint32_t id);
void uet_engine_prov_del(struct uet_engine *e, uint32_t id);
int uet_engine_peer_find(const struct uet_engine *e, const struct uet_fa *fa,
			 uint32_t tag);
int uet_engine_peer_rx(struct uet_engine *e, const struct uet_fa *src,
		       uint32_t tag);
int uet_engine_pdc_admit(void *ctx, const struct pdc_rx_pkt *pkt);
void uet_engine_peer_opened(struct uet_engine *e, uint32_t peer);
void uet_engine_peers_tick(struct uet_engine *e);
void uet_engine_peers_age(struct uet_engine *e);
const uint8_t *uet_engine_peer_mac(const struct uet_engine *e, uint32_t peer);

/*
 * FI_UET_TRACE (uet_engine_trace.c), each progress call: without a trace
 * trace_at_ns is UINT64_MAX, so this costs one compare and a branch that
 * is never taken.
 */
void uet_engine_trace_sample(struct uet_engine *e);

static inline void uet_engine_trace_tick(struct uet_engine *e)
{
	if (e->now_ns >= e->trace_at_ns)
		uet_engine_trace_sample(e);
}

/* Neighbour cache (uet_engine_neigh.c). */
int uet_engine_neigh_find(const struct uet_engine *e, const struct uet_fa *fa);
int uet_engine_neigh_get(struct uet_engine *e, const struct uet_fa *fa,
			 bool budgeted);
void uet_engine_neigh_restart(struct uet_engine *e, uint32_t idx,
			      uint64_t timeout_ns);
void uet_engine_neigh_retry(struct uet_engine *e, uint32_t idx);
void uet_engine_neigh_tick(struct uet_engine *e);

/* The PDS prologue, read by both directions. */
static inline bool uet_next_hdr_is_request(uint8_t next_hdr)
{
	return next_hdr == UET_PDS_NEXT_HDR_REQUEST_STD ||
	       next_hdr == UET_PDS_NEXT_HDR_REQUEST_SMALL ||
	       next_hdr == UET_PDS_NEXT_HDR_REQUEST_MEDIUM;
}

static inline uint8_t uet_pds_type(const uint8_t *pds)
{
	return (pds[0] >> (UET_PDS_TYPE_SHIFT - 8)) & UET_PDS_TYPE_MASK;
}

/* The receive path (uet_engine_rx.c): frames in, PDC's deliveries up. */
int uet_engine_rx(struct uet_engine *e);
void uet_engine_rx_backlog(struct uet_engine *e);
int uet_engine_pdc_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
			   struct pdc_resp *resp);
int uet_engine_resp_id(const struct pdc_rx_pkt *pkt);
uint32_t uet_engine_resp_peer(struct uet_engine *e, uint32_t from,
			      uint16_t id);
uint32_t uet_engine_resp_owner(struct uet_engine *e, uint32_t from,
			       uint16_t id, bool any);
bool uet_engine_resp_resend(struct uet_engine *e, struct uet_engine_slot *s,
			    uint64_t cookie, int status);

/* RUDI (uet_engine_rudi.c). */
bool uet_engine_rudi_is(const uint8_t *pds, size_t len);
int uet_engine_rudi_rx_peer(struct uet_engine *e, const struct uet_fa *src,
			    uint16_t sport, const uint8_t *pds, size_t len);
ssize_t uet_engine_pdc_rudi(void *ctx, const struct pdc_rx_pkt *pkt,
			    uint8_t *rsp, size_t cap, uint8_t *next_hdr);
void uet_engine_rudi_rsp(struct uet_engine *e,
			 const struct uet_engine_slot *s,
			 const struct ses_rx_pkt *rsp);

/*
 * Held ACKs (uet_engine_held.c). uet_engine_ack_hold() holds the ACK |f|
 * (|len| bytes); false when it cannot be held: it goes now.
 * uet_engine_tx_held() queues them all, behind what was built since.
 */
bool uet_engine_is_ack(const uint8_t *pds);
bool uet_engine_ack_hold(struct uet_engine *e, struct uet_xsk_frame *f,
			 uint32_t len);
void uet_engine_tx_held(struct uet_engine *e);

/* A note on a rare event, with the time (UET_ENGINE_DEBUG; uet_engine.c). */
void uet_engine_note(void *ctx, const char *msg);
/* |fa| in words into |buf| (INET6_ADDRSTRLEN), for the notes: |buf|. */
const char *uet_engine_fa_str(const struct uet_fa *fa, char *buf,
			      size_t len);

/* PDC upcalls (uet_engine_io.c). */
int uet_engine_pdc_fill(void *ctx, uint64_t cookie, uint8_t *buf, size_t len);
void uet_engine_pdc_tx_done(void *ctx, const struct pdc_tx_done *done);
void uet_engine_pdc_event(void *ctx, const struct pdc_event *ev);

/* SES upcalls (uet_engine_io.c). */
int uet_engine_ses_tx(void *ctx, const struct ses_pkt *pkt);
/*
 * Takes a slot for |pkt| (a copy of its header and payload references;
 * its payload copied when it is SES_PAY_CALL): its index, or -EAGAIN /
 * -ENOMEM. uet_engine_slot_put() gives it back.
 */
int uet_engine_slot_take(struct uet_engine *e, const struct ses_pkt *pkt);
void uet_engine_slot_put(struct uet_engine *e, uint32_t i);
void uet_engine_ses_pay_revoke(void *ctx, const void *base, uint64_t len);
void uet_engine_ses_tx_done(void *ctx, const struct ses_wre *wre,
			    const struct ses_tx_cpl *cpl);
void uet_engine_ses_recv_done(void *ctx, const struct ses_recv_cpl *cpl);
void uet_engine_ses_rma_done(void *ctx, const struct ses_rma_event *ev);
uint8_t uet_engine_gen_get(void *ctx, const struct ses_addr *dst, uint16_t ri);
void uet_engine_gen_set(void *ctx, const struct ses_addr *dst, uint16_t ri,
			uint8_t gen);

/* uet_engine_wake.c: the wake socket, made with the engine. */
int uet_engine_wake_setup(struct uet_engine *e);
void uet_engine_wake_destroy(struct uet_engine *e);

#endif /* UET_ENGINE_PRIV_H */
