/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The transport engine of one endpoint: an AF_XDP socket (uet_xsk), a PDC
 * manager (pdc/) and an SES engine (ses/), tied together and driven by
 * uet_engine_progress(). Independent of libfabric: the provider's objects
 * sit on top of it and receive its completions through uet_engine_ops.
 *
 * Peers are fabric endpoints (an IP address; one engine per address and
 * interface queue); their ids are the ses/pdc peer ids. Peers that send to
 * us first become peers when PDC admits their first packet (before that
 * they are only answered), and their ids are reused once they are idle
 * (engine/uet_engine_peer.c). Frames go to the next hop the kernel's
 * neighbour table names, never to a received frame's source MAC.
 */
#ifndef UET_ENGINE_H
#define UET_ENGINE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pdc/pdc.h"
#include "ses/ses.h"
#include "ses/ses_recv.h"
#include "ses/ses_ri.h"
#include "tss/uet_tss_ep.h"

struct uet_engine;

/* A fabric address: IPv4 or IPv6 (|is_v6|), network byte order inside. */
struct uet_fa {
	bool is_v6;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

/*
 * The DSCPs of our frames (UE 1.0 3.6.17): of requests (trimmable), of
 * other frames, and the two a trimming switch writes in a request it cut.
 */
struct uet_engine_dscp {
	uint8_t data, ctl, trimmed, lasthop;
};

/* UET_DSCP_* (uet_wire.h). */
extern const struct uet_engine_dscp uet_engine_dscp_default;

struct uet_engine_cfg {
	char ifname[16];		/* the interface the XDP program is on */
	uint32_t queue_id;		/* its rx queue: asked for (or
					 * UET_DEV_QUEUE_ANY), then got */
	struct uet_fa local;		/* our address on it */
	uint16_t udp_port;		/* UET port, normally 4793 */
	uint32_t payload_mtu;		/* 0: chosen from the interface MTU */
	uint32_t job_id;
	uint16_t pid_on_fep;		/* 0: any, the service chooses */
	uint32_t initiator;		/* its low 12 bits: the PIDonFEP */
	uint64_t rto_init_ns;		/* 0: 5 ms */
	uint32_t max_retries;		/* 0: pdc default */
	/*
	 * Peers (remote endpoints) at once, 16..2^24 (0: 262144), and PDCs
	 * of both roles, a power of 2 (0: the most the PDCID prefix leaves,
	 * uet_engine_max_pdcs()). Both tables take memory as used.
	 */
	uint32_t max_peers;
	uint32_t max_pdcs;
	/* PDCs opening at once (pdc_cfg.max_opening; 0: 16). */
	uint32_t max_opening;
	uint32_t ring_size;		/* 0: 1024 */
	uint32_t frame_cnt;		/* 0: 4096 UMEM chunks */
	/*
	 * Every packet on ordered PDCs (ROD): SES matches sends in the order
	 * their first packet arrives, so this gives send-after-send order.
	 */
	bool ordered;
	/* Rendezvous for large sends, their buffers exposed in |rdv_ri|. */
	bool rdv;
	uint16_t rdv_ri;		/* 12 bits, not used by other tables */
	uint32_t rdv_threshold;		/* 0: the SES default */
	/*
	 * Bytes of a rendezvous send its request carries, so that they
	 * travel while the target sets up its READ; at most a packet (and
	 * the threshold). 0: none, only the header.
	 */
	uint32_t rdv_eager_len;
	/*
	 * Every ACK a completion owes is kicked to the kernel before the
	 * completion goes up. Without it, they go with the next progress
	 * call, in the same kick as the application's answer (0.7 us of an
	 * 8-byte ping-pong's 2.2, measured); the caller then sees to it that
	 * progress runs soon (uet_engine_next_timeout_ns() says 0 while
	 * frames wait for a kick) and at the end (uet_engine_flush()).
	 */
	bool ack_before_cpl;
	/*
	 * Paths: how each packet's entropy value, which the UDP source port
	 * carries for the fabric to hash on, is chosen (enum pdc_mp_mode; 0:
	 * aware, the default). |entropies|: how many one PDC may use, at most
	 * UET_ENGINE_EV_MASK (0: 256).
	 */
	uint8_t multipath;
	uint16_t entropies;
	/* At destroy, the counters to stderr (uet_engine_stats_json()). */
	bool print_stats;
	/*
	 * FI_UET_TRACE (uet_engine_trace.c): every |trace_us| microseconds
	 * (0: 1000; at least 100), from progress, a line per busy initiator
	 * PDC into the file |trace_path| names, each "%p" the pid. The
	 * process's endpoints share the file the first one opens. Read at
	 * create only; NULL or "": no trace.
	 */
	const char *trace_path;
	uint32_t trace_us;
	/*
	 * Congestion control (pdc.h, UE 1.0 3.6.13 and 3.6.14): |cc|, the
	 * PDC_CC_* flags, when |cc_set|; else NSCC (0 alone: a loss-driven
	 * window in packets). |link_mbps|: our link's rate, for
	 * NSCC's largest window and the credit RCCC grants (0: 100000, the
	 * spec's reference rate; an emulated fabric behind an unshaped veth
	 * wants its own); |link_guessed|: it is not the link's (NSCC learns
	 * it down, pdc_cfg.link_guessed).
	 * |trimming|: the fabric trims (NSCC's target delay is then 3/4 of
	 * the base RTT). |no_dfc|: never ask initiators for a smaller
	 * window when our receive ring backs up (pdc_rx_backlog).
	 * |dscp_set|: |dscp| holds the DSCPs to use; else
	 * uet_engine_dscp_default.
	 */
	bool cc_set;
	uint8_t cc;
	uint32_t link_mbps;
	bool link_guessed;
	bool trimming;
	bool no_dfc;
	bool dscp_set;
	struct uet_engine_dscp dscp;
	/*
	 * Data protection (UE 1.0 3.7): |tss|, enum uet_engine_tss, whether
	 * frames are sealed with the keys the device service holds for our
	 * JobID (uet_engine_tss.c); |crc|, without TSS, a CRC32C trailer on
	 * every frame, checked on receipt.
	 */
	uint8_t tss;
	bool crc;
	/*
	 * RUDI (UE 1.0 3.5, engine/uet_engine_rudi.c): serve RUDI requests
	 * to idempotent-safe regions. Off: they are refused (NACK
	 * UNEXP_EVENT). Sending RUDI is the caller's choice per WRE
	 * (SES_WRE_F_RUDI).
	 */
	bool rudi;
	/*
	 * Endpoints of our interface and namespace run by our user are
	 * reached through shared memory (uet_engine_local.c) unless this
	 * is set: then by frames through the UMEM, as others are.
	 */
	bool local_off;
	/*
	 * Sends longer than this to an endpoint of a local channel go as a
	 * rendezvous that its engine copies straight out of our memory
	 * (process_vm_readv): one copy instead of two through the ring.
	 * 0: UET_ENGINE_LOCAL_PULL_DEFAULT; UINT32_MAX: never.
	 */
	uint32_t local_pull_threshold;
};

#define UET_ENGINE_LOCAL_PULL_DEFAULT	16384u

enum uet_engine_tss {
	UET_ENGINE_TSS_OFF = 0,		/* clear; secured frames dropped */
	UET_ENGINE_TSS_AUTO,		/* as the service's key file says */
	UET_ENGINE_TSS_ON,		/* sealed, or the engine fails */
	UET_ENGINE_TSS_DIRECT,		/* ON, and the SD's mode must be */
	UET_ENGINE_TSS_CLUSTER,		/* likewise */
};

/*
 * The source port: the entropy value over its low two bits, which tell
 * the receiver the kind of our peer (uet_engine_tag.h). 14 bits of EV vary
 * per packet; 0 is never one (the engine's own fixed entropy then).
 */
#define UET_ENGINE_EV_MASK	0x3FFFu
#define UET_ENGINE_EV_SHIFT	2

/* Upcalls, made only from inside uet_engine_progress() or a post call. */
struct uet_engine_ops {
	ses_tx_done_fn tx_done;		/* a WRE finished */
	ses_recv_done_fn recv_done;	/* a posted receive finished; may be NULL */
	ses_rma_done_fn rma_done;	/* a peer's WRITE, READ or atomic was
					 * done here; may be NULL */
	/*
	 * A limit was reached that the user may want to raise (a table
	 * full), or a setting could not be honoured (FI_UET_TRACE's file,
	 * from uet_engine_create()): |msg| names the setting. Once per limit
	 * and engine; may be NULL.
	 */
	void (*warn)(void *ctx, const char *msg);
};

/* Engine, PDC and SES counters, plus the socket's. */
struct uet_engine_stats {
	uint64_t rx_frames, rx_not_uet, rx_bad;
	uint64_t tx_frames, tx_no_frame;
	uint64_t tx_build_err;	/* PDC refused a frame otherwise than for
				 * want of a chunk: what it holds waits */
	uint64_t tx_acks_superseded;	/* held ACKs a newer one of their PDC
					 * replaced before they went */
	uint64_t tx_pay_lost;	/* held READ data that could not be copied
				 * when its region went: resent as zeros */
	uint64_t tx_resp_resent;	/* responses sent again on a new PDC
					 * after theirs failed */
	uint64_t rx_no_neigh;	/* from a source whose next hop the kernel
				 * does not know yet: dropped, resolving */
	uint64_t rx_no_peer;	/* from an unknown source, no provisional
				 * peer free for it: dropped */
	uint64_t rx_stray;	/* ACK, NACK or close request for no PDC of
				 * ours: dropped before any peer is made */
	uint64_t tx_no_neigh;	/* frames to a peer with no next hop */
	uint64_t neigh_changed;	/* a next hop's MAC changed in the kernel */
	uint64_t peers_provisional, peers_live;	/* now */
	uint64_t peers_aged;	/* ids freed for reuse: aged or recycled
				 * provisional ones */
	uint64_t peers_refused;	/* admissions refused by the engine */
	uint64_t peers_unreachable;	/* resolutions failed */
	/* Data protection: frames of the wrong kind, bad CRCs, and TSS's. */
	uint64_t rx_clear_refused;	/* clear while we seal */
	uint64_t rx_sealed_refused;	/* sealed while we do not */
	uint64_t rx_crc_bad, tx_crc;
	uint64_t tss_rekeyed;		/* the service's keys changed */
	/* The device service went away; a new one took us back (#43). */
	uint64_t svc_detached, svc_reattached;
	/*
	 * Local channels: records, their SES bytes, channels opened,
	 * endpoints whose inbox we may not map (frames then), targets'
	 * "send again", rings found broken, sleepers woken, channels of
	 * endpoints that went away.
	 */
	uint64_t local_tx, local_rx, local_tx_bytes, local_rx_bytes;
	uint64_t local_connects, local_refused, local_again;
	/*
	 * Requests without answer (UET_LCH_REC_F_NO_ANSWER): taken, held for
	 * SES to take later (struct lch_held), refused for good (nobody
	 * told).
	 */
	uint64_t local_unanswered, local_unanswered_held;
	uint64_t local_unanswered_refused;
	/* Of ours: written whole at once (ses_wre_send_whole), no slot. */
	uint64_t local_tx_whole;
	/*
	 * Rendezvous sends of local peers copied out of their memory, their
	 * bytes, and copies refused (the kernel's: READ through the channel
	 * instead).
	 */
	uint64_t local_pulls, local_pull_bytes, local_pull_failed;
	uint64_t local_broken, local_wakes, local_gone, local_stale;
	struct uet_tss_ep_stats tss;
	struct pdc_stats pdc;
	struct ses_stats ses;
};

/*
 * uet_engine_create() opens the engine described by |cfg|: needs the XDP
 * program loaded on cfg->ifname (uetctl load). Returns NULL with errno:
 * ENOENT (program not loaded), ENODEV (no such interface), EMSGSIZE (MTU
 * too small for UET), EINVAL, ENOMEM, or the socket's error.
 */
struct uet_engine *uet_engine_create(const struct uet_engine_cfg *cfg,
				     const struct uet_engine_ops *ops,
				     void *ctx);
void uet_engine_destroy(struct uet_engine *e);

/*
 * Why the last uet_engine_create() of this thread failed, when the device
 * service said (no service on the interface, PIDonFEP in use, JobID not
 * allowed, ...); "" otherwise.
 */
const char *uet_engine_last_error(void);

/*
 * Writes the engine's counters (uet_engine_stats) to |out| as one line:
 * "uet_engine_stats " and a JSON object {"endpoint", "pid_on_fep",
 * "engine": {...}, "pdc": {...}, "ses": {...}} of counter names and values.
 */
void uet_engine_stats_json(const struct uet_engine *e, FILE *out);

/* The PIDonFEP the service gave the endpoint (cfg: 0 lets it choose). */
uint16_t uet_engine_pid_on_fep(const struct uet_engine *e);

/* The SES engine, for RI tables (ses_ri.h) and receives (ses_recv.h). */
struct ses *uet_engine_ses(struct uet_engine *e);

/* The Payload MTU in use. */
uint32_t uet_engine_payload_mtu(const struct uet_engine *e);

/*
 * uet_engine_peer_get() returns the peer id of the endpoint |pid_on_fep|
 * at |fa|, adding it when new. A host serves many endpoints, each a peer
 * of its own with PDCs of its own. It never waits: when the kernel does
 * not know the next hop yet, it is asked to resolve it, and WREs posted
 * to the peer wait in the engine (uet_engine_post) until it is resolved;
 * when the kernel's resolution fails or |timeout_ms| passes, they complete
 * with -EHOSTUNREACH (tx_done), and the next post tries again. Returns the
 * id (>= 0), or -ENETUNREACH (no route, or not through our interface) /
 * -EAFNOSUPPORT (family differs from ours) / -ENOSPC.
 */
int uet_engine_peer_get(struct uet_engine *e, const struct uet_fa *fa,
			uint16_t pid_on_fep, int timeout_ms);
/* The address of peer |peer|; 0 or -ENOENT. */
int uet_engine_peer_fa(const struct uet_engine *e, uint32_t peer,
		       struct uet_fa *fa);

/*
 * uet_engine_post() starts |wre| (see ses_wre_post(): -EINVAL, -EMSGSIZE,
 * -EAGAIN), or holds it while its peer's next hop resolves (-EAGAIN when
 * UET_ENGINE_HELD_WRES wait already). The WRE and what it points to stay
 * the caller's until tx_done.
 */
int uet_engine_post(struct uet_engine *e, const struct ses_wre *wre);
/*
 * A send nobody waits for (SES_WRE_F_NO_ANSWER) to a peer of a local
 * channel, written whole into its ring now if it can go so: 1 when it
 * went, and it has ended (no tx_done comes for it); 0 when it cannot go
 * so now (uet_engine_post then). Nothing of |wre| is kept.
 */
int uet_engine_post_inject(struct uet_engine *e, const struct ses_wre *wre);

/*
 * uet_engine_progress() receives what arrived, runs timers, and sends what
 * is due; completions are reported through the ops. Returns the number of
 * frames moved (>= 0) or a negative errno from the socket.
 */
int uet_engine_progress(struct uet_engine *e);

/*
 * uet_engine_flush() hands the kernel everything owed now: every delayed
 * ACK, every frame built. For an endpoint that goes away (its peers would
 * otherwise resend what arrived, to a PDC that no longer exists).
 */
void uet_engine_flush(struct uet_engine *e);

/*
 * uet_engine_answer_may_come(): the caller handed the application a
 * peer's operation it can see (remote CQ data, a counter), so ACKs may
 * wait a little for its answer (uet_engine_progress). Receives count
 * without it.
 */
void uet_engine_answer_may_come(struct uet_engine *e);

/*
 * uet_engine_send_held() sends the ACKs held for the application's answer
 * (uet_engine_progress) now, with whatever is due, as the next progress
 * would, without that pass's receive and timer work; nothing when no ACK
 * is held. For when the answer came or cannot come: a post with nothing
 * else in flight (that post was the answer), a pass of the progress
 * thread (the application is away: nobody will answer).
 */
void uet_engine_send_held(struct uet_engine *e);

/* The socket's fd, for a wait object: readable when frames arrived. */
int uet_engine_fd(const struct uet_engine *e);
/*
 * The fd writers through shared memory wake us on (uet_engine_sleep), or
 * -1 without a device service: a sleeper waits on it beside
 * uet_engine_fd(). Two fds, not one epoll of both: a nested epoll's
 * wake-ups cost the wire path 10% of its 8-byte write rate (measured).
 */
int uet_engine_wake_fd(const struct uet_engine *e);
/*
 * The device service's connection, or -1: a sleeper waits on it too
 * (it reads end-of-file when the service went away: reattach).
 */
int uet_engine_svc_fd(const struct uet_engine *e);
/* That fd woke a sleeper: the next progress call looks at it. */
void uet_engine_svc_poke(struct uet_engine *e);

/*
 * Around a sleep on those fds: uet_engine_sleep() says whether the caller
 * may sleep (false: frames wait already; run progress instead), and from
 * then on whoever writes frames to us through shared memory wakes the
 * wake fd; uet_engine_woke() after the sleep, when it said true. Any
 * number of threads may sleep at once (under the caller's lock).
 */
bool uet_engine_sleep(struct uet_engine *e);
void uet_engine_woke(struct uet_engine *e);
/*
 * The same for an application about to block on a wait object it armed
 * (fi_trywait): the flags stay up until its next progress call, which
 * calls uet_engine_app_back().
 */
bool uet_engine_sleep_app(struct uet_engine *e);
void uet_engine_app_back(struct uet_engine *e);
/* Nanoseconds until progress must run again (timers), or UINT64_MAX. */
uint64_t uet_engine_next_timeout_ns(const struct uet_engine *e);

void uet_engine_stats_get(const struct uet_engine *e,
			  struct uet_engine_stats *st);

/* The engine's clock (CLOCK_MONOTONIC), in nanoseconds. */
uint64_t uet_engine_now_ns(void);
/* The most peers |e| holds at once (cfg.max_peers, default applied). */
uint32_t uet_engine_max_peers(const struct uet_engine *e);
/* The most PDCs an endpoint may hold under |prefix_bits| of PDCID. */
static inline uint32_t uet_engine_max_pdcs(uint32_t prefix_bits)
{
	return 1u << (15 - prefix_bits);
}

#endif /* UET_ENGINE_H */
