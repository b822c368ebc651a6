/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AF_XDP engine (see uet_xsk.h): the UMEM is split in two halves, the first
 * kept in the fill ring for reception, the second a free pool for
 * transmission, so rx and tx never compete for chunks.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <xdp/xsk.h>

#include "dev/uet_dev_proto.h"
#include "dev/uet_dev_shm.h"
#include "dev/uet_fep_steer.h"
#include "dev/uet_xsk.h"

#define UET_XSK_DEF_FRAMES	4096
#define UET_XSK_DEF_RING	1024
#define UET_XSK_BATCH		64
/*
 * Shared: released rx chunks go back to the fill ring in batches of this
 * many, under the interface's lock; one lock and fill per packet cost 3% of
 * a ping-pong (measured). The ring holds thousands, so an endpoint keeping
 * a batch back starves no one; they stay on its held list meanwhile.
 */
#define UET_XSK_RX_RETURN_BATCH	32

struct uet_xsk {
	struct xsk_umem *umem;
	struct xsk_socket *sock;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
	uint8_t *area;
	size_t area_len;
	uint32_t frame_max;
	uint64_t *tx_pool;	/* free tx chunk addresses (a stack) */
	uint32_t tx_pool_cnt;
	uint32_t tx_chunks;	/* size of the tx half */
	uint32_t tx_in_flight;	/* chunks on the tx or completion ring */
	bool tx_unkicked;	/* frames queued since the last good kick */
	bool rx_discarding;	/* inside an oversized frame, dropping it */
	uint64_t rx_oversized;	/* frames over UET_XSK_MAX_SEGS chunks */
	uint64_t rx_frames, tx_frames;
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
};

static void uet_xsk_rx_return_held(struct uet_xsk *x);

void uet_xsk_set_local_mac(struct uet_xsk *x, const uint8_t mac[6])
{
	memcpy(x->local_mac, mac, 6);
	x->has_local_mac = x->shm != NULL;
}

/*
 * A frame for another endpoint of the interface: its chunks go on that
 * endpoint's local ring (they come back to us through our mailbox once it
 * read them, as completions do). A frame no endpoint takes is dropped and
 * counted: its sender retries, as with a loss.
 */
static int uet_xsk_tx_local(struct uet_xsk *x, struct uet_xsk_frame *f,
			    uint32_t len)
{
	struct uet_dev_shm *s = x->shm;
	uint32_t need = (len + UET_XSK_CHUNK_LEN - 1) / UET_XSK_CHUNK_LEN;
	struct uet_dev_shm_slot *sl;
	uint32_t left = len;
	/* Steering reads headers only: those are in the first chunk. */
	int ep = uet_fep_steer(s, f->seg[0], len < f->seg_len[0] ? len :
			       f->seg_len[0], len);

	if (uet_dev_shm_lock(s) < 0)
		return -EAGAIN;
	if (ep <= 0 || (uint32_t)ep >= s->max_eps ||
	    s->slot[ep].state != UET_DEV_SLOT_ACTIVE) {
		s->local_dropped++;
		uet_dev_shm_unlock(s);
		uet_xsk_tx_free(x, f);
		return 0;
	}
	sl = &s->slot[ep];
	if (UET_DEV_LOCAL_RING - (sl->local_head - sl->local_tail) < need) {
		uet_dev_shm_unlock(s);
		return -EAGAIN;
	}
	while (f->nsegs > need)
		x->tx_pool[x->tx_pool_cnt++] = f->addr[--f->nsegs];
	for (uint32_t i = 0; i < f->nsegs; i++) {
		struct uet_dev_local_desc *d =
			&sl->local[sl->local_head++ % UET_DEV_LOCAL_RING];
		uint32_t n = left < UET_XSK_CHUNK_LEN ? left : UET_XSK_CHUNK_LEN;

		*d = (struct uet_dev_local_desc){
			.addr = f->addr[i], .len = n,
			.contd = i + 1 < f->nsegs, .from = (uint16_t)x->ep };
		left -= n;
	}
	uet_dev_shm_unlock(s);
	x->tx_in_flight += f->nsegs;
	x->tx_frames++;
	f->nsegs = 0;
	return 0;
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

int uet_xsk_fd(const struct uet_xsk *x)
{
	return x->sock ? xsk_socket__fd(x->sock) : x->fd;
}

uint32_t uet_xsk_frame_max(const struct uet_xsk *x)
{
	return x->frame_max;
}

uint32_t uet_xsk_tx_outstanding(const struct uet_xsk *x)
{
	return x->tx_in_flight;
}

bool uet_xsk_tx_needs_kick(const struct uet_xsk *x)
{
	return x->tx_unkicked;
}

/*
 * Hands |n| chunk addresses to the fill ring. The ring is as large as the rx
 * half of the UMEM, so it always has room; if that ever failed the chunks
 * would be counted as lost rather than spun on. A socket of our own only:
 * a shared fill ring is fed by uet_xsk_rx_return().
 */
static void uet_xsk_fill(struct uet_xsk *x, const uint64_t *addrs, uint32_t n)
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

static int uet_xsk_umem_setup(struct uet_xsk *x, uint32_t frames)
{
	/* Fill and completion rings hold a whole half of the UMEM each. */
	struct xsk_umem_config ucfg = {
		.fill_size = frames / 2,
		.comp_size = frames / 2,
		.frame_size = UET_XSK_CHUNK_LEN,
		.frame_headroom = 0,
	};
	int ret;

	x->area_len = (size_t)frames * UET_XSK_CHUNK_LEN;
	x->area = mmap(NULL, x->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (x->area == MAP_FAILED) {
		x->area = NULL;
		return -errno;
	}
	ret = xsk_umem__create(&x->umem, x->area, x->area_len, &x->fill,
			       &x->comp, &ucfg);
	return ret;
}

static int uet_xsk_socket_setup(struct uet_xsk *x,
				const struct uet_xsk_cfg *cfg, uint32_t ring)
{
	struct xsk_socket_config scfg = {
		.rx_size = ring,
		.tx_size = ring,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP |
			      (cfg->zero_copy ? XDP_ZEROCOPY : XDP_COPY) |
			      (cfg->multi_buf ? XDP_USE_SG : 0),
	};
	char ifname[IF_NAMESIZE];
	int ret;

	if (!if_indextoname((unsigned int)cfg->ifindex, ifname))
		return -errno;
	/*
	 * A socket closed a moment ago may still hold the queue (its release
	 * is deferred in the kernel): wait for it, up to a second.
	 */
	for (int tries = 0; tries < 50; tries++) {
		ret = xsk_socket__create(&x->sock, ifname, cfg->queue_id,
					 x->umem, &x->rx, &x->tx, &scfg);
		if (ret != -EBUSY)
			break;
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	if (ret < 0)
		return ret;
	if (cfg->xsks_map_fd >= 0)
		ret = xsk_socket__update_xskmap(x->sock, cfg->xsks_map_fd);
	return ret;
}

/* Half the chunks to the fill ring, the other half to the tx pool. */
static int uet_xsk_pools_setup(struct uet_xsk *x, uint32_t frames)
{
	uint32_t rx_chunks = frames / 2;
	uint64_t addrs[UET_XSK_BATCH];

	x->tx_chunks = frames - rx_chunks;
	x->tx_pool = calloc(x->tx_chunks, sizeof(*x->tx_pool));
	if (!x->tx_pool)
		return -ENOMEM;
	for (uint32_t i = 0; i < x->tx_chunks; i++)
		x->tx_pool[i] = (uint64_t)(rx_chunks + i) * UET_XSK_CHUNK_LEN;
	x->tx_pool_cnt = x->tx_chunks;
	for (uint32_t i = 0; i < rx_chunks; i += UET_XSK_BATCH) {
		uint32_t n = rx_chunks - i < UET_XSK_BATCH ? rx_chunks - i :
							     UET_XSK_BATCH;

		for (uint32_t j = 0; j < n; j++)
			addrs[j] = (uint64_t)(i + j) * UET_XSK_CHUNK_LEN;
		uet_xsk_fill(x, addrs, n);
	}
	return 0;
}

struct uet_xsk *uet_xsk_create(const struct uet_xsk_cfg *cfg)
{
	uint32_t frames = cfg->frame_cnt ? cfg->frame_cnt : UET_XSK_DEF_FRAMES;
	uint32_t ring = cfg->ring_size ? cfg->ring_size : UET_XSK_DEF_RING;
	struct uet_xsk *x;
	int ret;

	if (frames < 2 * UET_XSK_BATCH || (frames & (frames - 1)) ||
	    (ring & (ring - 1))) {
		errno = EINVAL;
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		errno = ENOMEM;
		return NULL;
	}
	x->frame_max = cfg->multi_buf ? UET_XSK_FRAME_MAX : UET_XSK_CHUNK_LEN;
	ret = uet_xsk_umem_setup(x, frames);
	if (ret == 0)
		ret = uet_xsk_pools_setup(x, frames);
	if (ret == 0)
		ret = uet_xsk_socket_setup(x, cfg, ring);
	if (ret < 0) {
		uet_xsk_destroy(x);
		errno = -ret;
		return NULL;
	}
	return x;
}

void uet_xsk_destroy(struct uet_xsk *x)
{
	if (!x)
		return;
	if (x->shm)
		uet_xsk_rx_return_held(x);
	if (x->sock)
		xsk_socket__delete(x->sock);
	if (x->umem)
		xsk_umem__delete(x->umem);
	for (int i = 0; i < 4; i++)
		if (x->map[i])
			munmap(x->map[i], x->map_len[i]);
	if (x->fd > 0)
		close(x->fd);
	if (x->shm)
		munmap(x->shm, x->shm_len);
	if (x->area)
		munmap(x->area, x->area_len);
	free(x->tx_pool);
	free(x);
}

/*
 * The shared completion ring returns every endpoint's chunks: ours go back
 * to the pool, the others' to their owner's mailbox; then our mailbox.
 */
static void uet_xsk_tx_reap_shared(struct uet_xsk *x)
{
	struct uet_dev_shm *s = x->shm;
	struct uet_dev_shm_slot *sl = &s->slot[x->ep];

	/* Nothing completed and nothing for us: no lock to take. */
	if (__atomic_load_n(x->comp.producer, __ATOMIC_ACQUIRE) ==
	    __atomic_load_n(x->comp.consumer, __ATOMIC_ACQUIRE) &&
	    __atomic_load_n(&sl->mbox_head, __ATOMIC_ACQUIRE) == sl->mbox_tail)
		return;
	if (uet_dev_shm_lock(s) < 0)
		return;
	x->tx_in_flight -= uet_dev_shm_reap(s, &x->comp, x->rx_end, x->ep,
					    x->tx_pool, &x->tx_pool_cnt);
	uet_dev_shm_unlock(s);
}

/* Moves completed tx chunks back to the pool. */
static void uet_xsk_tx_reap(struct uet_xsk *x)
{
	uint32_t idx = 0, n;

	if (x->shm) {
		uet_xsk_tx_reap_shared(x);
		return;
	}
	n = xsk_ring_cons__peek(&x->comp, x->tx_chunks, &idx);
	for (uint32_t i = 0; i < n; i++)
		x->tx_pool[x->tx_pool_cnt++] =
			*xsk_ring_cons__comp_addr(&x->comp, idx + i);
	if (n)
		xsk_ring_cons__release(&x->comp, n);
	x->tx_in_flight -= n;
}

int uet_xsk_tx_alloc(struct uet_xsk *x, uint32_t len, struct uet_xsk_frame *f)
{
	uint32_t nsegs = (len + UET_XSK_CHUNK_LEN - 1) / UET_XSK_CHUNK_LEN;

	if (len > x->frame_max)
		return -EMSGSIZE;
	if (nsegs == 0)
		nsegs = 1;
	if (x->tx_pool_cnt < nsegs)
		uet_xsk_tx_reap(x);
	/* Room in the ring too: a frame built but not queued would be lost. */
	if (x->tx_pool_cnt < nsegs || xsk_prod_nb_free(&x->tx, nsegs) < nsegs)
		return -EAGAIN;
	f->len = len;
	f->nsegs = nsegs;
	for (uint32_t i = 0; i < nsegs; i++) {
		f->addr[i] = x->tx_pool[--x->tx_pool_cnt];
		f->seg[i] = x->area + f->addr[i];
		f->seg_len[i] = UET_XSK_CHUNK_LEN;
	}
	return 0;
}

void uet_xsk_frame_write(struct uet_xsk_frame *f, uint32_t off,
			 const void *src, uint32_t n)
{
	const uint8_t *s = src;

	for (uint32_t i = 0; i < f->nsegs && n; i++) {
		uint32_t take;

		if (off >= f->seg_len[i]) {
			off -= f->seg_len[i];
			continue;
		}
		take = f->seg_len[i] - off < n ? f->seg_len[i] - off : n;
		memcpy(f->seg[i] + off, s, take);
		s += take;
		n -= take;
		off = 0;
	}
}

void uet_xsk_tx_free(struct uet_xsk *x, struct uet_xsk_frame *f)
{
	for (uint32_t i = 0; i < f->nsegs; i++)
		x->tx_pool[x->tx_pool_cnt++] = f->addr[i];
	f->nsegs = 0;
}

int uet_xsk_tx_submit(struct uet_xsk *x, struct uet_xsk_frame *f,
		      uint32_t len)
{
	uint32_t idx = 0, left = len;
	uint32_t need = (len + UET_XSK_CHUNK_LEN - 1) / UET_XSK_CHUNK_LEN;

	if (len > f->nsegs * UET_XSK_CHUNK_LEN || len == 0)
		return -EINVAL;
	if (x->has_local_mac && !memcmp(f->seg[0], x->local_mac, 6))
		return uet_xsk_tx_local(x, f, len);
	if (xsk_ring_prod__reserve(&x->tx, need, &idx) != need)
		return -EAGAIN;
	/* Allocated for a longer frame: give back the chunks not used. */
	while (f->nsegs > need)
		x->tx_pool[x->tx_pool_cnt++] = f->addr[--f->nsegs];
	for (uint32_t i = 0; i < f->nsegs; i++) {
		struct xdp_desc *d = xsk_ring_prod__tx_desc(&x->tx, idx + i);
		uint32_t n = left < UET_XSK_CHUNK_LEN ? left : UET_XSK_CHUNK_LEN;

		d->addr = f->addr[i];
		d->len = n;
		d->options = i + 1 < f->nsegs ? XDP_PKT_CONTD : 0;
		left -= n;
	}
	xsk_ring_prod__submit(&x->tx, f->nsegs);
	x->tx_unkicked = true;
	x->tx_in_flight += f->nsegs;
	x->tx_frames++;
	if (x->shm)	/* for the service's stats; only we write it */
		__atomic_store_n(&x->shm->slot[x->ep].tx_frames, x->tx_frames,
				 __ATOMIC_RELAXED);
	f->nsegs = 0;
	return 0;
}

int uet_xsk_tx_kick(struct uet_xsk *x)
{
	int ret = 0;

	/*
	 * In copy mode every transmission happens inside this sendto(), and
	 * the tx ring always asks for it; a kick with nothing new queued is
	 * a wasted syscall in the progress loop (1-2 us each, measured), so
	 * kick only while frames wait. The kernel sends a bounded batch per
	 * call and answers EAGAIN when more remain: keep kicking then.
	 */
	if (x->tx_unkicked && xsk_ring_prod__needs_wakeup(&x->tx)) {
		if (sendto(uet_xsk_fd(x), NULL, 0, MSG_DONTWAIT, NULL, 0) == 0)
			x->tx_unkicked = false;
		else if (errno != EAGAIN && errno != EBUSY &&
			 errno != ENOBUFS && errno != ENETDOWN)
			ret = -errno;
	} else {
		x->tx_unkicked = false;
	}
	/*
	 * Shared: the completion ring is reaped under the interface's lock,
	 * so only once a quarter of our chunks is out (the ring holds every
	 * endpoint's chunks and never overflows; tx_alloc reaps when short).
	 */
	if (!x->shm || x->tx_pool_cnt < x->tx_chunks - x->tx_chunks / 4)
		uet_xsk_tx_reap(x);
	return ret;
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

uint32_t uet_xsk_rx_burst(struct uet_xsk *x, struct uet_xsk_frame *frames,
			  uint32_t max)
{
	uint32_t idx = 0, avail, used = 0, n = 0, want = max * UET_XSK_MAX_SEGS;

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
static void uet_xsk_rx_return_held(struct uet_xsk *x)
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

int uet_xsk_stats_read(struct uet_xsk *x, struct uet_xsk_stats *st)
{
	struct xdp_statistics xs;
	socklen_t len = sizeof(xs);

	memset(st, 0, sizeof(*st));
	st->rx_frames = x->rx_frames;
	st->tx_frames = x->tx_frames;
	st->fill_lost = x->fill_lost;
	st->rx_oversized = x->rx_oversized;
	if (getsockopt(uet_xsk_fd(x), SOL_XDP, XDP_STATISTICS, &xs, &len) < 0)
		return -errno;
	st->rx_dropped = xs.rx_dropped;
	st->rx_invalid_descs = xs.rx_invalid_descs;
	st->tx_invalid_descs = xs.tx_invalid_descs;
	st->rx_ring_full = xs.rx_ring_full;
	st->rx_fill_ring_empty_descs = xs.rx_fill_ring_empty_descs;
	st->tx_ring_empty_descs = xs.tx_ring_empty_descs;
	return 0;
}

/* ---- an endpoint on a service's interface (uet_xsk_attach) ---------------- */

#ifndef XDP_UMEM_PGOFF_FILL_RING
#define XDP_UMEM_PGOFF_FILL_RING	0x100000000ULL
#define XDP_UMEM_PGOFF_COMPLETION_RING	0x180000000ULL
#endif

/* Maps ring |i| (rx, tx, fill, completion) of |x|'s socket. */
static void *uet_xsk_map_ring(struct uet_xsk *x, int i, uint64_t pgoff,
			      const struct xdp_ring_offset *off, uint32_t n,
			      size_t desc_len)
{
	x->map_len[i] = off->desc + (size_t)n * desc_len;
	x->map[i] = mmap(NULL, x->map_len[i], PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE, x->fd, (off_t)pgoff);
	if (x->map[i] == MAP_FAILED) {
		x->map[i] = NULL;
		return NULL;
	}
	return x->map[i];
}

#define UET_XSK_RING_INIT(r, base, off, n) do {				\
	(r)->producer = (void *)((uint8_t *)(base) + (off)->producer);	\
	(r)->consumer = (void *)((uint8_t *)(base) + (off)->consumer);	\
	(r)->flags = (void *)((uint8_t *)(base) + (off)->flags);	\
	(r)->ring = (uint8_t *)(base) + (off)->desc;			\
	(r)->mask = (n) - 1;						\
	(r)->size = (n);						\
} while (0)

static int uet_xsk_attach_rings(struct uet_xsk *x,
				const struct uet_dev_layout *l)
{
	uint32_t comp_n = l->max_eps * l->tx_chunks;
	struct xdp_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	void *m;

	if (getsockopt(x->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen) < 0)
		return -errno;
	m = uet_xsk_map_ring(x, 0, XDP_PGOFF_RX_RING, &off.rx, l->ring_size,
			     sizeof(struct xdp_desc));
	if (!m)
		return -errno;
	UET_XSK_RING_INIT(&x->rx, m, &off.rx, l->ring_size);
	m = uet_xsk_map_ring(x, 1, XDP_PGOFF_TX_RING, &off.tx, l->ring_size,
			     sizeof(struct xdp_desc));
	if (!m)
		return -errno;
	UET_XSK_RING_INIT(&x->tx, m, &off.tx, l->ring_size);
	x->tx.cached_cons = l->ring_size;
	/* A bound socket's shared rings: mappable from Linux 6.4 on. */
	m = uet_xsk_map_ring(x, 2, XDP_UMEM_PGOFF_FILL_RING, &off.fr,
			     l->rx_chunks, sizeof(uint64_t));
	if (!m)
		return -EOPNOTSUPP;
	UET_XSK_RING_INIT(&x->fill, m, &off.fr, l->rx_chunks);
	m = uet_xsk_map_ring(x, 3, XDP_UMEM_PGOFF_COMPLETION_RING, &off.cr,
			     comp_n, sizeof(uint64_t));
	if (!m)
		return -EOPNOTSUPP;
	UET_XSK_RING_INIT(&x->comp, m, &off.cr, comp_n);
	return 0;
}

static bool uet_dev_layout_is_sane(const struct uet_dev_layout *l,
				   uint32_t ep)
{
	return l->chunk_len == UET_XSK_CHUNK_LEN && l->max_eps &&
	       ep < l->max_eps && l->tx_chunks &&
	       !(l->ring_size & (l->ring_size - 1)) && l->ring_size &&
	       !(l->rx_chunks & (l->rx_chunks - 1)) && l->rx_chunks &&
	       !((l->max_eps * l->tx_chunks) & (l->max_eps * l->tx_chunks - 1)) &&
	       l->chunks == l->rx_chunks + l->max_eps * l->tx_chunks;
}

struct uet_xsk *uet_xsk_attach(const struct uet_xsk_shared *sh)
{
	const struct uet_dev_layout *l = sh->layout;
	struct uet_xsk *x = calloc(1, sizeof(*x));
	int ret = 0;

	if (!x) {
		close(sh->xsk_fd);
		close(sh->umem_fd);
		close(sh->shm_fd);
		errno = ENOMEM;
		return NULL;
	}
	x->fd = sh->xsk_fd;
	x->ep = sh->ep;
	if (!uet_dev_layout_is_sane(l, sh->ep))
		ret = -EPROTO;
	if (ret == 0) {
		x->area_len = (size_t)l->chunks * UET_XSK_CHUNK_LEN;
		x->area = mmap(NULL, x->area_len, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_POPULATE, sh->umem_fd, 0);
		if (x->area == MAP_FAILED) {
			x->area = NULL;
			ret = -errno;
		}
	}
	if (ret == 0) {
		x->shm_len = uet_dev_shm_len(l->max_eps, l->tx_chunks,
					     l->rx_chunks);
		x->shm = mmap(NULL, x->shm_len, PROT_READ | PROT_WRITE,
			      MAP_SHARED, sh->shm_fd, 0);
		if (x->shm == MAP_FAILED) {
			x->shm = NULL;
			ret = -errno;
		} else if (x->shm->magic != UET_DEV_SHM_MAGIC ||
			   x->shm->max_eps != l->max_eps ||
			   x->shm->tx_chunks != l->tx_chunks ||
			   x->shm->rx_chunks != l->rx_chunks) {
			ret = -EPROTO;
		}
	}
	if (ret == 0)
		ret = uet_xsk_attach_rings(x, l);
	if (ret == 0) {
		x->frame_max = l->multi_buf ? UET_XSK_FRAME_MAX :
					      UET_XSK_CHUNK_LEN;
		x->rx_end = (uint64_t)l->rx_chunks * UET_XSK_CHUNK_LEN;
		x->tx_chunks = l->tx_chunks;
		x->tx_pool = calloc(x->tx_chunks, sizeof(*x->tx_pool));
		if (!x->tx_pool)
			ret = -ENOMEM;
	}
	if (ret == 0) {
		/* Our transmit chunks (dev/uet_dev_proto.h, the layout). */
		uint64_t tx_lo = x->rx_end + (uint64_t)sh->ep * l->tx_chunks *
					     UET_XSK_CHUNK_LEN;

		for (uint32_t i = 0; i < x->tx_chunks; i++)
			x->tx_pool[i] = tx_lo + (uint64_t)i * UET_XSK_CHUNK_LEN;
		x->tx_pool_cnt = x->tx_chunks;
	}
	close(sh->umem_fd);
	close(sh->shm_fd);
	if (ret < 0) {
		uet_xsk_destroy(x);
		errno = -ret;
		return NULL;
	}
	return x;
}
