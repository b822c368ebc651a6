/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AF_XDP socket's state, shared by uet_xsk.c (UMEM, rings, transmission,
 * attaching to a service's interface) and uet_xsk_rx.c (reception); not part
 * of its API (uet_xsk.h).
 */
#ifndef UET_XSK_PRIV_H
#define UET_XSK_PRIV_H

#include <xdp/xsk.h>

#include "dev/uet_dev_shm.h"
#include "dev/uet_xsk.h"

#define UET_XSK_BATCH		64

struct uet_xsk {
	struct xsk_umem *umem;
	struct xsk_socket *sock;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
	uint8_t *area;
	size_t area_len;
	bool area_shared;	/* a service's UMEM: uet_xsk_area_put() */
	uint32_t frame_max;
	uint64_t *tx_pool;	/* free tx chunk addresses (a stack) */
	uint32_t tx_pool_cnt;
	uint32_t tx_chunks;	/* size of the tx half */
	uint32_t tx_in_flight;	/* chunks on the tx or completion ring */
	bool tx_unkicked;	/* frames queued since the last good kick */
	bool link_down;		/* the last kick: ENETDOWN */
	bool rx_discarding;	/* inside an oversized frame, dropping it */
	uint64_t rx_oversized;	/* frames over UET_XSK_MAX_SEGS chunks */
	uint64_t rx_frames, tx_frames;
	uint64_t rx_bytes, tx_bytes;	/* of those frames */
	uint64_t fill_lost;	/* chunks the fill ring had no room for */
	/* Attached to a service's interface (uet_xsk_attach): */
	int fd;			/* the socket, not libxdp's */
	struct uet_dev_shm *shm;	/* fill and completion under its lock */
	size_t shm_len;
	uint32_t ep;
	uint64_t rx_end;	/* receive chunks are below */
	void *map[4];		/* rx, tx, fill, completion */
	size_t map_len[4];
	/* Shared: released or discarded, still held: to return. */
	uint64_t ret[UET_DEV_HELD_MAX];
	uint32_t nret;
	uint8_t local_mac[6];	/* frames to it stay on the interface */
	bool has_local_mac;
	int wake_tx;		/* sends wakes (uet_dev_wake.h); -1: not yet */
};

/* Reception (uet_xsk_rx.c). */
void uet_xsk_fill(struct uet_xsk *x, const uint64_t *addrs, uint32_t n);
void uet_xsk_rx_return_held(struct uet_xsk *x);

#endif /* UET_XSK_PRIV_H */
