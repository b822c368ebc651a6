/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AF_XDP engine: one socket on one rx queue, its UMEM and four rings.
 * This is the only code that touches AF_XDP rings. Frames larger than one
 * UMEM chunk (jumbo frames) travel as several chunks (XDP_USE_SG).
 */
#ifndef UET_XSK_H
#define UET_XSK_H

#include <linux/if_xdp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Debian 12's kernel headers predate AF_XDP multi-buffer. */
#ifndef XDP_USE_SG
#define XDP_USE_SG		(1 << 4)
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD		(1 << 0)
#endif

#define UET_XSK_CHUNK_LEN	4096	/* larger chunks are refused (EINVAL) */
#define UET_XSK_RX_HEADROOM	256	/* XDP_PACKET_HEADROOM, copy mode rx */
#define UET_XSK_MAX_SEGS	4	/* chunks per frame: 16 KiB frames */
#define UET_XSK_FRAME_MAX	(UET_XSK_MAX_SEGS * UET_XSK_CHUNK_LEN)

struct uet_xsk;
struct uet_dev_shm;
struct uet_dev_layout;

struct uet_xsk_cfg {
	int ifindex;
	uint32_t queue_id;
	uint32_t frame_cnt;	/* UMEM chunks, power of 2, half rx half tx; 0: 4096 */
	uint32_t ring_size;	/* each ring; power of two; 0: 1024 */
	bool multi_buf;		/* accept and send frames over one chunk */
	bool zero_copy;		/* ask for XDP_ZEROCOPY (veth refuses it) */
	int xsks_map_fd;	/* XSKMAP to register the socket in, or -1 */
};

/* A frame: up to UET_XSK_MAX_SEGS pieces, in order. */
struct uet_xsk_frame {
	uint32_t len;				/* all segments */
	uint32_t nsegs;
	uint8_t *seg[UET_XSK_MAX_SEGS];
	uint32_t seg_len[UET_XSK_MAX_SEGS];	/* rx: bytes; tx: room */
	uint64_t addr[UET_XSK_MAX_SEGS];	/* UMEM addresses */
	uint16_t origin;	/* rx: 0 from the wire, else 1 + the index of
				 * the endpoint of this interface that sent it */
	/*
	 * tx, a frame for another endpoint of the interface: 0, steered by
	 * its headers; > 0 that endpoint's index; < 0 none takes it. The
	 * sender says when TSS hides the headers (uet_engine_tss.c).
	 */
	int16_t local_ep;
};

struct uet_xsk_stats {
	uint64_t rx_frames, tx_frames;
	uint64_t rx_bytes, tx_bytes;	/* of those frames */
	uint64_t fill_lost;		/* engine bug guard; always 0 */
	uint64_t rx_oversized;		/* frames too long for us, dropped */
	uint64_t rx_dropped;		/* XDP_STATISTICS from here down */
	uint64_t rx_invalid_descs;
	uint64_t tx_invalid_descs;
	uint64_t rx_ring_full;
	uint64_t rx_fill_ring_empty_descs;
	uint64_t tx_ring_empty_descs;
};

/*
 * uet_xsk_create() makes the UMEM, fills the fill ring, creates the socket
 * bound to |cfg|->ifindex/queue_id without loading any XDP program (uetctl
 * loads ours) and registers it in |cfg|->xsks_map_fd. Returns the engine,
 * or NULL with errno set.
 */
struct uet_xsk *uet_xsk_create(const struct uet_xsk_cfg *cfg);

/*
 * An endpoint's share of an interface that the device service owns
 * (dev/uet_dev_proto.h): its socket, bound by the service with
 * XDP_SHARED_UMEM, the UMEM and the shared control block, as fds.
 */
struct uet_xsk_shared {
	int xsk_fd;
	int umem_fd;
	int shm_fd;
	uint32_t ep;		/* its index: it sends from its chunks only */
	const struct uet_dev_layout *layout;
};

/*
 * uet_xsk_attach() maps the shared UMEM, the socket's own rx and tx rings
 * and the queue's fill and completion rings, which it then uses under the
 * control block's lock. Takes the three fds (closed on failure too).
 * Returns NULL with errno: EOPNOTSUPP when the kernel cannot map the fill
 * and completion rings of a socket bound to a shared UMEM (before Linux
 * 6.4, "xsk: allow remap of fill and/or completion rings").
 */
struct uet_xsk *uet_xsk_attach(const struct uet_xsk_shared *sh);
void uet_xsk_destroy(struct uet_xsk *x);

/* uet_xsk_fd() is the socket's fd, for poll(). */
int uet_xsk_fd(const struct uet_xsk *x);

/* Largest frame this engine can send or receive, in bytes. */
uint32_t uet_xsk_frame_max(const struct uet_xsk *x);

/* The device service's control block the socket shares, or NULL. */
struct uet_dev_shm *uet_xsk_shm(const struct uet_xsk *x);
/*
 * Whether nothing waits to be received: the rx ring and (shared) the
 * local ring are empty. Cheap: for a caller that polls in a loop.
 */
bool uet_xsk_rx_idle(const struct uet_xsk *x);
/*
 * Frames waiting in the receive ring now (descriptors: a multi-buffer
 * frame counts each) and, in |*size|, how many it holds: how far behind
 * the reader is, before the kernel drops what has no room.
 */
uint32_t uet_xsk_rx_backlog(const struct uet_xsk *x, uint32_t *size);

/*
 * uet_xsk_tx_alloc() takes free chunks for a frame of |len| bytes and
 * describes them in |f| (seg_len = room in each). Reaps completions when
 * the pool is low. Returns 0, -EAGAIN when no chunk or no tx ring slot is
 * free now (the frame could not be queued), or
 * -EMSGSIZE when |len| exceeds uet_xsk_frame_max().
 */
int uet_xsk_tx_alloc(struct uet_xsk *x, uint32_t len, struct uet_xsk_frame *f);

/* Copies |n| bytes of |src| into |f| at frame offset |off| (bounded). */
void uet_xsk_frame_write(struct uet_xsk_frame *f, uint32_t off,
			 const void *src, uint32_t n);

/*
 * uet_xsk_tx_submit() queues frame |f| of |len| bytes on the tx ring; chunks
 * of |f| that |len| does not need go back to the pool.
 * Returns 0 or -EAGAIN (ring full: the frame stays the caller's; send it
 * later or give it back with uet_xsk_tx_free()).
 */
int uet_xsk_tx_submit(struct uet_xsk *x, struct uet_xsk_frame *f,
		      uint32_t len);
void uet_xsk_tx_free(struct uet_xsk *x, struct uet_xsk_frame *f);

/*
 * uet_xsk_tx_kick() tells the kernel about queued frames (when it needs
 * the wakeup) and reaps completed ones. Returns 0 or -errno.
 */
int uet_xsk_tx_kick(struct uet_xsk *x);

/*
 * The interface was down at the last kick (ENETDOWN): the kernel sends
 * nothing and the frames on the tx ring stay there until it comes up.
 */
bool uet_xsk_link_down(const struct uet_xsk *x);

/* Frames queued or in flight on tx, not yet completed. */
uint32_t uet_xsk_tx_outstanding(const struct uet_xsk *x);

/* Frames were queued since the last kick that took them all. */
bool uet_xsk_tx_needs_kick(const struct uet_xsk *x);

/*
 * uet_xsk_rx_burst() takes up to |max| received frames into |frames|
 * (frames of more than UET_XSK_MAX_SEGS chunks are dropped and counted);
 * each must be returned with uet_xsk_rx_release() (in any batch) once read.
 * Returns the number of frames (0 if none).
 */
uint32_t uet_xsk_rx_burst(struct uet_xsk *x, struct uet_xsk_frame *frames,
			  uint32_t max);
void uet_xsk_rx_release(struct uet_xsk *x, struct uet_xsk_frame *frames,
			uint32_t n);

/*
 * uet_xsk_set_local_mac() tells an attached socket the interface's MAC:
 * frames it sends to that MAC are for another endpoint of the interface,
 * which the wire would never bring back, and go to it directly.
 */
void uet_xsk_set_local_mac(struct uet_xsk *x, const uint8_t mac[6]);

/* Engine counters plus the socket's XDP_STATISTICS; 0 or -errno. */
int uet_xsk_stats_read(struct uet_xsk *x, struct uet_xsk_stats *st);

#endif /* UET_XSK_H */
