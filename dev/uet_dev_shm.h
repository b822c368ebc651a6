/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control block the device service shares with every endpoint of an
 * interface (a memfd, mapped by all). Sockets bound to one queue share one
 * fill ring and one completion ring (kernel af_xdp.rst, XDP_SHARED_UMEM);
 * the rings are single-producer/single-consumer, so every process that
 * touches them holds |lock|, a robust process-shared mutex: a process
 * killed while holding it hands it over (EOWNERDEAD) instead of locking
 * the interface up. Everything else here is also touched under |lock|.
 *
 * Transmit chunks belong to endpoint indices (uet_dev_proto.h, layout);
 * the completion ring returns everybody's. Whoever reaps it keeps its own
 * and puts the others' in their owner's mailbox; owners empty their
 * mailbox when they reap. Completions of an index that is not in use
 * (its endpoint died) are dropped and counted.
 */
#ifndef UET_DEV_SHM_H
#define UET_DEV_SHM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UET_DEV_SHM_MAGIC	0x55455444u	/* "UETD" */

enum uet_dev_slot_state {
	UET_DEV_SLOT_FREE = 0,
	UET_DEV_SLOT_ACTIVE = 1,
	UET_DEV_SLOT_QUARANTINE = 2,	/* owner gone; its chunks settle */
};

/* Receive chunks an endpoint may hold between two releases. */
#define UET_DEV_HELD_MAX	256
/* Chunks other endpoints of the interface may have queued for one. */
#define UET_DEV_LOCAL_RING	512

/*
 * A chunk of a frame sent to us by another endpoint of the interface
 * (uet_fep_steer.h): in the sender's transmit chunks, which go back to the
 * sender's mailbox once read. Or a receive chunk the service handed on
 * (from UET_DEV_LOCAL_FROM_RX): a frame for us that arrived on another
 * queue than ours (uetd --queues); it goes back to the fill ring, as the
 * chunks of our rx ring do.
 */
struct uet_dev_local_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t contd;		/* more chunks of the frame follow */
	uint16_t from;		/* the sender's index */
};

#define UET_DEV_LOCAL_FROM_RX	0xFFFFu

/*
 * What an endpoint's engine publishes for `uetctl top` (issue 44): totals
 * since it opened, taken from counters it keeps anyway, written at most
 * every UET_DEV_PUB_NS from its progress path (engine/uet_engine_pub.c),
 * never per packet. Rates are the reader's: two samples apart, over the
 * difference of their |at_ns|.
 */
struct uet_dev_ep_counters {
	uint64_t at_ns;		/* CLOCK_MONOTONIC of the sample */
	uint64_t tx_frames, tx_bytes;	/* on the wire (the XSK) */
	uint64_t rx_frames, rx_bytes;
	uint64_t pdcs;		/* open, TIME_WAIT included */
	/* Retransmissions queued, by cause (pdc_stats). */
	uint64_t retx_rto, retx_sack, retx_probe, retx_nack;
	/*
	 * The sum of the windows of its initiator PDCs, bytes (NSCC's, or
	 * AIMD's packets x the payload MTU): what it may have in flight.
	 */
	uint64_t cwnd_bytes;
	/* Local channels (engine/uet_lch.h): records and their SES bytes. */
	uint64_t local_tx, local_tx_bytes, local_rx, local_rx_bytes;
	/* Received frames its TSS checks refused, and bad CRC32Cs. */
	uint64_t tss_refused, crc_refused;
};

_Static_assert(sizeof(struct uet_dev_ep_counters) == 17 * 8,
	       "uet_dev_ep_counters: 64-bit words only (uet_dev_pub_read)");

#define UET_DEV_PUB_NS		(100ull * 1000 * 1000)

/*
 * One writer (the owner), any readers (the service): a sequence lock, odd
 * while a sample is written, so that a reader never takes half of one.
 */
struct uet_dev_ep_pub {
	uint32_t seq;
	uint32_t pad;
	struct uet_dev_ep_counters c;
};

struct uet_dev_shm_slot {
	uint32_t state;		/* enum uet_dev_slot_state */
	uint32_t mbox_head;	/* next to write (reapers) */
	uint32_t mbox_tail;	/* next to read (the owner) */
	/*
	 * Receive chunks the owner took off its rx ring and has not given
	 * back to the fill ring: written by the owner before it releases
	 * them from the ring, cleared (under the lock) before it publishes
	 * them in the fill ring. When the owner dies, the service gives back
	 * these and what is left in its rx ring, each chunk once: a chunk is
	 * lost rather than ever put in the fill ring twice.
	 */
	uint32_t held_cnt;
	/*
	 * Its owner (the service writes them when it gives the index out):
	 * a service that takes over (uetd_takeover.c) frees the index of an
	 * owner that died while no service ran, and keeps that of one that
	 * lives and has not come back yet. Start time in clock ticks since
	 * boot (/proc/PID/stat), so that a reused PID is not taken for it.
	 */
	uint32_t owner_pid;
	uint64_t owner_start;
	uint64_t tx_frames;	/* the owner's, for stats */
	uint64_t rx_frames;
	/* Of those, what its TSS or CRC32C checks dropped (the engine's). */
	uint64_t rx_refused;
	/*
	 * Its local-channel inbox (engine/uet_lch.h), written by the owner
	 * once it made it, cleared by the service when it gives the index
	 * out: /proc/lch_pid/fd/lch_fd, with lch_nonce; 0 nonce: none.
	 */
	uint32_t lch_pid;
	int32_t lch_fd;
	uint64_t lch_nonce;
	/*
	 * Waking the owner (dev/uet_dev_wake.h): the nonce that names its
	 * wake socket (0: none), and its flag, set while it sleeps, which
	 * whoever puts frames on |local| takes. Cleared when given out.
	 */
	uint64_t wake_nonce;
	uint32_t sleeping;
	uint32_t wake_pad;
	/* The owner's figures for `uetctl top`; cleared when given out. */
	struct uet_dev_ep_pub pub;
	uint64_t held[UET_DEV_HELD_MAX];
	/* Local frames for the owner: others write under the lock. */
	uint32_t local_head, local_tail;
	struct uet_dev_local_desc local[UET_DEV_LOCAL_RING];
};

struct uet_dev_shm {
	uint32_t magic;
	uint32_t max_eps;
	uint32_t ep_bits;	/* index bits in PDCIDs, message_ids */
	uint32_t tx_chunks;	/* mailbox entries per index */
	uint32_t rx_chunks;	/* receive chunks, and the reserve's room */
	/*
	 * Receive chunks beyond |fill_target| wait in the reserve (a stack)
	 * instead of the fill ring. The ring is a queue: every chunk in it
	 * is written once per lap, so all of them would be the working set
	 * of the copies into and out of the UMEM. Kept to a few thousand,
	 * the hot ones stay in cache (a 32 MiB lap cost 8% of 1 MiB write
	 * bandwidth, measured); the reserve refills the ring when endpoints
	 * hold many.
	 */
	uint32_t fill_target;
	uint32_t reserve_cnt;
	pthread_mutex_t lock;
	uint64_t comp_orphans;	/* completions of an index not in use */
	uint64_t fill_lost;	/* chunks the fill ring had no room for */
	uint64_t local_dropped;	/* local frames no endpoint took */
	/* Bumped when the service reloads its TSS key file (UET_DEV_TSS). */
	uint32_t tss_gen;
	/* The PIDonFEP table the XDP program steers by, mirrored for
	 * local frames (the service writes both). */
	uint16_t pid_ep[4096];
	uint32_t pid_job[4096];
	struct uet_dev_shm_slot slot[];	/* max_eps, then the mailboxes */
};

/*
 * Bytes of a control block for |max_eps| indices of |tx_chunks| each and
 * |rx_chunks| receive chunks.
 */
static inline size_t uet_dev_shm_len(uint32_t max_eps, uint32_t tx_chunks,
				     uint32_t rx_chunks)
{
	return sizeof(struct uet_dev_shm) +
	       max_eps * sizeof(struct uet_dev_shm_slot) +
	       ((size_t)max_eps * tx_chunks + rx_chunks) * sizeof(uint64_t);
}

/* The mailbox of index |ep|: tx_chunks chunk addresses. */
static inline uint64_t *uet_dev_shm_mbox(struct uet_dev_shm *s, uint32_t ep)
{
	uint64_t *base = (uint64_t *)&s->slot[s->max_eps];

	return base + (size_t)ep * s->tx_chunks;
}

/* The reserve: rx_chunks chunk addresses, reserve_cnt of them in use. */
static inline uint64_t *uet_dev_shm_reserve(struct uet_dev_shm *s)
{
	return uet_dev_shm_mbox(s, s->max_eps);
}

/*
 * The owner of |p| publishes |c| (uet_dev_ep_pub); |p| has one writer.
 * uet_dev_pub_read() copies a whole sample into |c|: true, or false when
 * a writer was at it every time it looked (a few tries; try later).
 */
void uet_dev_pub_write(struct uet_dev_ep_pub *p,
		       const struct uet_dev_ep_counters *c);
bool uet_dev_pub_read(const struct uet_dev_ep_pub *p,
		      struct uet_dev_ep_counters *c);

/* Initialises a new block (the service). 0 or -errno. */
int uet_dev_shm_init(struct uet_dev_shm *s, uint32_t max_eps,
		     uint32_t ep_bits, uint32_t tx_chunks, uint32_t rx_chunks,
		     uint32_t fill_target);

/* Takes |lock|, repairing it when its holder died. 0 or -errno. */
int uet_dev_shm_lock(struct uet_dev_shm *s);
void uet_dev_shm_unlock(struct uet_dev_shm *s);

/* Under the lock: queues |addr| for index |ep|; false if not in use. */
bool uet_dev_shm_mbox_put(struct uet_dev_shm *s, uint32_t ep, uint64_t addr);

struct xsk_ring_prod;
struct xsk_ring_cons;

/*
 * Under the lock: |n| receive chunk addresses (none: a top-up) into the
 * queue's shared fill ring (|fill|, this process's mapping of it) up to
 * fill_target, the rest into the reserve; the ring is topped up from the
 * reserve when short. Returns false, the chunks counted in fill_lost, when
 * there is no room (never, unless a chunk was given back twice).
 */
bool uet_dev_shm_fill(struct uet_dev_shm *s, struct xsk_ring_prod *fill,
		      const uint64_t *addrs, uint32_t n);

/*
 * Under the lock: takes the shared completion ring (|comp|, this
 * process's mapping of it). Chunks of index |self| (those from |rx_end| +
 * self * tx_chunks) go to |pool|, the others to their owner's mailbox;
 * then |self|'s mailbox empties into |pool|. Returns how many came to
 * |pool| (|*pool_cnt| grew by that).
 */
uint32_t uet_dev_shm_reap(struct uet_dev_shm *s, struct xsk_ring_cons *comp,
			  uint64_t rx_end, uint32_t self, uint64_t *pool,
			  uint32_t *pool_cnt);

#endif /* UET_DEV_SHM_H */
