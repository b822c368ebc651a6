/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The AF_XDP socket's receive path (see uet_xsk.h): frames from the rx ring
 * (a jumbo frame's chunks gathered into one frame, one of more chunks than
 * we take discarded), frames other endpoints of the interface deliver on
 * its local ring, and their chunks back to the fill ring once read: at once
 * on a socket of our own, in batches under the interface's lock on a shared
 * one. The UMEM, the rings and transmission are in uet_xsk.c.
 */
#include <sys/socket.h>
#include <xdp/xsk.h>

#include "dev/uet_dev_shm.h"
#include "dev/uet_xsk_priv.h"

/*
 * Shared: released rx chunks go back to the fill ring in batches of this
 * many, under the interface's lock; one lock and fill per packet cost 3% of
 * a ping-pong (measured). The ring holds thousands, so an endpoint keeping
 * a batch back starves no one; they stay on its held list meanwhile.
 */
#define UET_XSK_RX_RETURN_BATCH	32

/*
 * Hands |n| chunk addresses to the fill ring. The ring is as large as the rx
 * half of the UMEM, so it always has room; if that ever failed the chunks
 * would be counted as lost rather than spun on. A socket of our own only:
 * a shared fill ring is fed by uet_xsk_rx_return().
 */
void uet_xsk_fill(struct uet_xsk *x, const uint64_t *addrs, uint32_t n)
{
	uint32_t idx = 0;

	if (xsk_ring_prod__reserve(&x->fill, n, &idx) != n) {
		x->fill_lost += n;
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&x->fill, idx + i) = addrs[i];
	xsk_ring_prod__submit(&x->fill, n);
}

/*
 * Frames other endpoints queued for us (uet_xsk_tx_local), and frames the
 * service handed on from another queue: whole ones. The latter's chunks are
 * receive chunks: named in the held list, as those of our rx ring are,
 * until they go back to the fill ring.
 */
static uint32_t uet_xsk_rx_local(struct uet_xsk *x, struct uet_xsk_frame *fr,
				 uint32_t max)
{
	struct uet_dev_shm_slot *sl = &x->shm->slot[x->ep];
	uint32_t n = 0;

	if (__atomic_load_n(&sl->local_head, __ATOMIC_ACQUIRE) ==
	    sl->local_tail || uet_dev_shm_lock(x->shm) < 0)
		return 0;
	while (n < max && sl->local_tail != sl->local_head) {
		struct uet_xsk_frame *f = &fr[n];
		uint32_t t = sl->local_tail;

		/* Handed-on chunks are held: only with room to name them. */
		if (sl->local[t % UET_DEV_LOCAL_RING].from ==
		    UET_DEV_LOCAL_FROM_RX &&
		    sl->held_cnt + UET_XSK_MAX_SEGS > UET_DEV_HELD_MAX)
			break;

		f->len = 0;
		f->nsegs = 0;
		f->origin = 0;
		do {
			const struct uet_dev_local_desc *d =
				&sl->local[t++ % UET_DEV_LOCAL_RING];

			if (d->from == UET_DEV_LOCAL_FROM_RX)
				sl->held[sl->held_cnt++] = d->addr &
					~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
			if (f->nsegs < UET_XSK_MAX_SEGS) {
				f->addr[f->nsegs] = d->addr;
				f->seg[f->nsegs] = x->area + d->addr;
				f->seg_len[f->nsegs++] = d->len;
				f->len += d->len;
			}
			if (d->from != UET_DEV_LOCAL_FROM_RX)
				f->origin = (uint16_t)(d->from + 1);
			if (!d->contd)
				break;
		} while (t != sl->local_head);
		sl->local_tail = t;
		n++;
	}
	uet_dev_shm_unlock(x->shm);
	return n;
}

/*
 * Descriptors of one frame starting at |idx|, |avail| peeked: its count;
 * 0 when the frame is cut off by the end of |avail| (wait for the rest); or
 * minus the count when it has more than UET_XSK_MAX_SEGS (the count then
 * runs to its end, or to the end of |avail| when that comes first).
 */
static int uet_xsk_rx_frame_descs(struct uet_xsk *x, uint32_t idx,
				  uint32_t avail)
{
	for (uint32_t i = 0; i < avail; i++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&x->rx, idx + i);

		if (!(d->options & XDP_PKT_CONTD))
			return i < UET_XSK_MAX_SEGS ? (int)i + 1 : -(int)(i + 1);
	}
	return avail > UET_XSK_MAX_SEGS ? -(int)avail : 0;
}

/*
 * Gives the chunks of |n| descriptors from |idx| back to the fill ring: a
 * frame longer than we take (a peer may send any UDP datagram to the
 * port), or the rest of one.
 */
static void uet_xsk_rx_discard(struct uet_xsk *x, uint32_t idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = xsk_ring_cons__rx_desc(&x->rx, idx + i)->addr &
			     ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);

		/* Shared: held until returned, like the frames taken. */
		if (x->shm && x->nret < UET_DEV_HELD_MAX)
			x->ret[x->nret++] = a;
		else if (!x->shm)
			uet_xsk_fill(x, &a, 1);
	}
}

/* Shared: the |n| descriptors from |idx| are held now (uet_dev_shm.h). */
static void uet_xsk_rx_hold(struct uet_xsk *x, uint32_t idx, uint32_t n)
{
	struct uet_dev_shm_slot *sl = &x->shm->slot[x->ep];
	uint32_t cnt = sl->held_cnt;

	for (uint32_t i = 0; i < n && cnt < UET_DEV_HELD_MAX; i++)
		sl->held[cnt++] = xsk_ring_cons__rx_desc(&x->rx, idx + i)->addr &
				  ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
	__atomic_store_n(&sl->held_cnt, cnt, __ATOMIC_RELEASE);
}

/*
 * Shared: every held chunk back to the fill ring in one critical section,
 * the held list emptied before the ring publishes them.
 */
static void uet_xsk_rx_return(struct uet_xsk *x, const uint64_t *addrs,
			      uint32_t n)
{
	if (uet_dev_shm_lock(x->shm) < 0) {
		x->fill_lost += n;
		return;
	}
	/* Emptied before the ring publishes them: lost, never twice. */
	__atomic_store_n(&x->shm->slot[x->ep].held_cnt, 0, __ATOMIC_RELEASE);
	if (!uet_dev_shm_fill(x->shm, &x->fill, addrs, n))
		x->fill_lost += n;
	uet_dev_shm_unlock(x->shm);
}

bool uet_xsk_rx_idle(const struct uet_xsk *x)
{
	if (__atomic_load_n(x->rx.producer, __ATOMIC_ACQUIRE) !=
	    x->rx.cached_cons)
		return false;
	if (x->shm) {
		const struct uet_dev_shm_slot *sl = &x->shm->slot[x->ep];

		return __atomic_load_n(&sl->local_head, __ATOMIC_ACQUIRE) ==
		       sl->local_tail;
	}
	return true;
}

uint32_t uet_xsk_rx_backlog(const struct uet_xsk *x, uint32_t *size)
{
	*size = x->rx.size;
	return __atomic_load_n(x->rx.producer, __ATOMIC_ACQUIRE) -
	       x->rx.cached_cons;
}

uint32_t uet_xsk_rx_burst(struct uet_xsk *x, struct uet_xsk_frame *frames,
			  uint32_t max)
{
	uint32_t idx = 0, avail, used = 0, n = 0, want = max * UET_XSK_MAX_SEGS;

	/* Nothing there and no kick owed: most calls between local peers. */
	if (uet_xsk_rx_idle(x) && !xsk_ring_prod__needs_wakeup(&x->fill))
		return 0;
	/* Shared: no more than the held list can name. */
	if (x->shm) {
		uint32_t room = UET_DEV_HELD_MAX - x->shm->slot[x->ep].held_cnt;

		want = want < room ? want : room;
	}
	avail = xsk_ring_cons__peek(&x->rx, want, &idx);
	if (!avail) {
		if (xsk_ring_prod__needs_wakeup(&x->fill))
			recvfrom(uet_xsk_fd(x), NULL, 0, MSG_DONTWAIT, NULL,
				 NULL);
		return x->shm ? uet_xsk_rx_local(x, frames, max) : 0;
	}
	while (n < max && used < avail) {
		struct uet_xsk_frame *f = &frames[n];
		int nd;

		if (x->rx_discarding) {	/* the tail of an oversized frame */
			nd = uet_xsk_rx_frame_descs(x, idx + used, avail - used);
			nd = nd ? (nd < 0 ? -nd : nd) : (int)(avail - used);
			x->rx_discarding = !(nd > 0 &&
				!(xsk_ring_cons__rx_desc(&x->rx, idx + used +
					(uint32_t)nd - 1)->options & XDP_PKT_CONTD));
			uet_xsk_rx_discard(x, idx + used, (uint32_t)nd);
			used += (uint32_t)nd;
			continue;
		}
		nd = uet_xsk_rx_frame_descs(x, idx + used, avail - used);
		if (!nd)
			break;
		if (nd < 0) {
			x->rx_oversized++;
			x->rx_discarding = true;
			continue;	/* discarded by the branch above */
		}
		f->len = 0;
		f->origin = 0;
		f->nsegs = (uint32_t)nd;
		for (uint32_t i = 0; i < (uint32_t)nd; i++) {
			const struct xdp_desc *d =
				xsk_ring_cons__rx_desc(&x->rx, idx + used + i);

			f->addr[i] = d->addr;
			f->seg[i] = xsk_umem__get_data(x->area, d->addr);
			f->seg_len[i] = d->len;
			f->len += d->len;
		}
		x->rx_bytes += f->len;
		used += (uint32_t)nd;
		n++;
	}
	/* Give back what we peeked but did not take (a cut-off frame). */
	if (used < avail)
		xsk_ring_cons__cancel(&x->rx, avail - used);
	if (used && x->shm)
		uet_xsk_rx_hold(x, idx, used);
	if (used)
		xsk_ring_cons__release(&x->rx, used);
	x->rx_frames += n;
	if (x->shm && n)
		__atomic_store_n(&x->shm->slot[x->ep].rx_frames, x->rx_frames,
				 __ATOMIC_RELAXED);
	if (x->shm && n < max)
		n += uet_xsk_rx_local(x, frames + n, max - n);
	return n;
}

/* Shared: the chunks of |frames|, released. */
static void uet_xsk_rx_release_shared(struct uet_xsk *x,
				      struct uet_xsk_frame *frames, uint32_t n)
{
	bool local = false;

	for (uint32_t i = 0; i < n; i++)
		local |= frames[i].origin != 0;
	/* Chunks another endpoint sent us: back to it, as completions. */
	if (local && uet_dev_shm_lock(x->shm) == 0) {
		for (uint32_t i = 0; i < n; i++) {
			for (uint32_t s = 0; frames[i].origin &&
			     s < frames[i].nsegs; s++)
				uet_dev_shm_mbox_put(x->shm,
						     frames[i].origin - 1u,
						     frames[i].addr[s]);
			if (frames[i].origin)
				frames[i].nsegs = 0;
		}
		uet_dev_shm_unlock(x->shm);
	}
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t s = 0; s < frames[i].nsegs &&
		     x->nret < UET_DEV_HELD_MAX; s++)
			x->ret[x->nret++] = frames[i].addr[s] &
					    ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
		frames[i].nsegs = 0;
	}
	if (x->nret >= UET_XSK_RX_RETURN_BATCH)
		uet_xsk_rx_return_held(x);
}

/*
 * Shared: the released chunks (x->ret) back to the fill ring; what is
 * still held but not released stays named in the held list.
 */
void uet_xsk_rx_return_held(struct uet_xsk *x)
{
	struct uet_dev_shm_slot *sl = &x->shm->slot[x->ep];
	uint64_t *addrs = x->ret;
	uint64_t keep_addrs[UET_DEV_HELD_MAX];
	uint32_t cnt = x->nret, keep = 0;

	if (!cnt)
		return;
	x->nret = 0;
	/*
	 * A part of what is held: the rest stays named in the list. Only
	 * when the caller returns frames in several batches.
	 */
	if (cnt != sl->held_cnt) {
		for (uint32_t h = 0; h < sl->held_cnt; h++) {
			bool back = false;

			for (uint32_t i = 0; i < cnt && !back; i++)
				back = sl->held[h] == addrs[i];
			if (!back)
				keep_addrs[keep++] = sl->held[h];
		}
	}
	uet_xsk_rx_return(x, addrs, cnt);
	/* Those not returned are held again. */
	for (uint32_t i = 0; i < keep; i++)
		sl->held[i] = keep_addrs[i];
	if (keep)
		__atomic_store_n(&sl->held_cnt, keep, __ATOMIC_RELEASE);
}

void uet_xsk_rx_release(struct uet_xsk *x, struct uet_xsk_frame *frames,
			uint32_t n)
{
	uint64_t addrs[UET_XSK_BATCH];
	uint32_t cnt = 0;

	if (!n)
		return;
	if (x->shm) {
		uet_xsk_rx_release_shared(x, frames, n);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t s = 0; s < frames[i].nsegs; s++) {
			/* Chunk-aligned mode: the kernel may add an offset. */
			addrs[cnt++] = frames[i].addr[s] &
				       ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
			if (cnt == UET_XSK_BATCH) {
				uet_xsk_fill(x, addrs, cnt);
				cnt = 0;
			}
		}
		frames[i].nsegs = 0;
	}
	if (cnt)
		uet_xsk_fill(x, addrs, cnt);
}
