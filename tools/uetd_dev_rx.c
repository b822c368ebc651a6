/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd's receive path (uetd_dev.c sets the device up): the completion
 * rings it reaps for everybody, the frames that reach its own sockets
 * (for an endpoint bound to another queue, or sealed ones the XDP
 * program could not read: handed on to the endpoint's local ring; or its
 * own to answer), and the fill rings it tops up.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dev/uet_fep_steer.h"
#include "dev/uet_xsk.h"
#include "tools/uetd.h"

/*
 * Every queue's completion ring under the shared lock: our chunks back to
 * our pool, the endpoints' to their mailboxes (as dev/uet_xsk.c does),
 * then ours. Endpoints reap their queue's too; one whose endpoints all
 * left has only us.
 */
static void uetd_dev_reap(struct uetd *d)
{
	if (uet_dev_shm_lock(d->shm) < 0)
		return;
	for (uint32_t q = 0; q < d->queues; q++)
		if (uetd_dev_fd(d, q) >= 0)
			uet_dev_shm_reap(d->shm, &d->q[q].comp,
					 (uint64_t)d->layout.rx_chunks *
					 UET_XSK_CHUNK_LEN, UET_FEP_EP_SERVICE,
					 d->tx_pool, &d->tx_pool_cnt);
	uet_dev_shm_unlock(d->shm);
}

/*
 * A frame for endpoint |ep| that came on queue |q| while it is bound to
 * another (the NIC chose the queue; the kernel redirects only to sockets
 * of the arrival queue): its chunks go on the endpoint's local ring, as
 * frames between two endpoints of the interface do, and come back to a
 * fill ring once it read them; it is woken if it sleeps. Under the lock.
 * False: not handed on.
 */
static bool uetd_dev_hand_on(struct uetd *d, uint32_t q, uint32_t ep,
			     const struct xdp_desc *descs, uint32_t nd)
{
	struct uet_dev_shm_slot *sl = &d->shm->slot[ep];

	if (sl->state != UET_DEV_SLOT_ACTIVE ||
	    UET_DEV_LOCAL_RING - (sl->local_head - sl->local_tail) < nd) {
		d->shm->local_dropped++;
		return false;
	}
	for (uint32_t i = 0; i < nd; i++)
		sl->local[sl->local_head++ % UET_DEV_LOCAL_RING] =
			(struct uet_dev_local_desc){
				.addr = descs[i].addr, .len = descs[i].len,
				.contd = i + 1 < nd,
				.from = UET_DEV_LOCAL_FROM_RX };
	d->q[q].handed_on++;
	uetd_ep_wake(d, ep);
	return true;
}

#define UETD_RX_BURST	64

/*
 * The endpoint a whole frame (|nd| chunks at |descs|) that reached our
 * socket on queue |q| is for, when that one is bound to another queue, or
 * for a secured frame (TSS) any endpoint its headers name (uetd_tss_svc.c:
 * the program cannot read them); 0 when the frame is ours to answer or
 * drop. |*secured|: a TSS frame, which we cannot answer (nor seal).
 */
static uint32_t uetd_dev_rx_owner(struct uetd *d, uint32_t q,
				  const struct xdp_desc *descs, uint32_t nd,
				  bool *secured)
{
	static uint8_t whole[UET_XSK_FRAME_MAX];
	const uint8_t *head = xsk_umem__get_data(d->area, descs[0].addr);
	size_t len = 0;
	int ep;

	*secured = false;
	if (nd > UET_XSK_MAX_SEGS)
		return 0;
	for (uint32_t i = 0; i < nd; i++)
		len += descs[i].len;
	/*
	 * A frame of several chunks in one piece, when TSS may authenticate
	 * it whole (a cluster stream's first frame: uetd_tss_svc.c).
	 */
	if (nd > 1 && uetd_tss_wants_whole(d)) {
		size_t off = 0;

		for (uint32_t i = 0; i < nd; i++) {
			memcpy(whole + off,
			       xsk_umem__get_data(d->area, descs[i].addr),
			       descs[i].len);
			off += descs[i].len;
		}
		ep = uetd_tss_rx_owner(d, whole, len, len);
	} else {
		ep = uetd_tss_rx_owner(d, head, descs[0].len, len);
	}
	if (ep >= 0) {
		*secured = true;
		return (uint32_t)ep;
	}
	if (d->queues == 1)
		return 0;
	ep = uet_fep_steer(d->shm, head, descs[0].len, len);
	if (ep <= 0 || (uint32_t)ep >= d->layout.max_eps ||
	    d->eps[ep].conn < 0 || d->eps[ep].queue == q)
		return 0;
	return (uint32_t)ep;
}

/*
 * Frames for no endpoint of this queue: handed on to an endpoint of
 * another queue, or for an absent destination answered (uetd_absent.c),
 * the rest counted; the chunks not handed on go back to the fill ring
 * under the shared lock (the endpoints produce into it too).
 */
static void uetd_dev_rx_queue(struct uetd *d, uint32_t q)
{
	struct uetd_queue *dq = &d->q[q];
	struct xdp_desc descs[UETD_RX_BURST];
	/* Per frame, at its first chunk: its chunks, its endpoint (or 0). */
	uint32_t chunks[UETD_RX_BURST], owner[UETD_RX_BURST];
	uint64_t addrs[UETD_RX_BURST];
	uint32_t idx = 0, n, m, nback = 0;

	n = xsk_ring_cons__peek(&dq->rx, UETD_RX_BURST, &idx);
	if (!n) {
		if (xsk_ring_prod__needs_wakeup(&dq->fill))
			recvfrom(uetd_dev_fd(d, q), NULL, 0, MSG_DONTWAIT,
				 NULL, NULL);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		descs[i] = *xsk_ring_cons__rx_desc(&dq->rx, idx + i);
	/* A frame cut by the end of the burst waits for the next one. */
	for (m = n; m > 0 && (descs[m - 1].options & XDP_PKT_CONTD); m--)
		;
	if (m && m < n) {
		xsk_ring_cons__cancel(&dq->rx, n - m);
		n = m;
	}
	xsk_ring_cons__release(&dq->rx, n);
	/*
	 * Frame by frame: the first chunk of a frame holds all its headers
	 * (XDP_PKT_CONTD marks chunks that more follow). A frame longer than
	 * a burst, cut anyway, is not handed on, nor is its tail.
	 */
	for (uint32_t i = 0, nd; i < n; i += nd) {
		bool head = !dq->rx_mid_frame, secured = false;

		for (nd = 1; i + nd - 1 < n &&
		     (descs[i + nd - 1].options & XDP_PKT_CONTD); nd++)
			;
		if (i + nd > n)
			nd = n - i;
		dq->rx_mid_frame = descs[i + nd - 1].options & XDP_PKT_CONTD;
		chunks[i] = nd;
		owner[i] = head && !dq->rx_mid_frame ?
			   uetd_dev_rx_owner(d, q, descs + i, nd, &secured) :
			   0;
		if (head && !owner[i] && !secured) {
			d->absent_rx++;
			uetd_absent_answer(d, xsk_umem__get_data(d->area,
								 descs[i].addr),
					   descs[i].len);
		}
	}
	if (d->tx_unkicked) {
		sendto(uetd_dev_fd(d, 0), NULL, 0, MSG_DONTWAIT, NULL, 0);
		d->tx_unkicked = false;
	}
	if (uet_dev_shm_lock(d->shm) < 0)
		return;
	for (uint32_t i = 0, nd; i < n; i += nd) {
		nd = chunks[i];
		if (owner[i] && uetd_dev_hand_on(d, q, owner[i], descs + i, nd))
			continue;
		for (uint32_t k = 0; k < nd; k++)
			addrs[nback++] = descs[i + k].addr &
					 ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
	}
	if (nback)
		uet_dev_shm_fill(d->shm, &dq->fill, addrs, nback);
	uet_dev_shm_unlock(d->shm);
}

void uetd_dev_rx(struct uetd *d)
{
	/* Waiting for endpoints to take over from: nothing of ours yet. */
	if (!d->shm)
		return;
	uetd_dev_reap(d);
	for (uint32_t q = 0; q < d->queues; q++)
		if (uetd_dev_fd(d, q) >= 0)
			uetd_dev_rx_queue(d, q);
}

void uetd_dev_fill_top_up(struct uetd *d)
{
	if (!d->shm ||
	    !__atomic_load_n(&d->shm->reserve_cnt, __ATOMIC_RELAXED) ||
	    uet_dev_shm_lock(d->shm) < 0)
		return;
	for (uint32_t q = 0; q < d->queues; q++)
		if (uetd_dev_fd(d, q) >= 0)
			uet_dev_shm_fill(d->shm, &d->q[q].fill, NULL, 0);
	uet_dev_shm_unlock(d->shm);
}
