/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AF_XDP engine (see uet_xsk.h): the UMEM and its rings, a socket of our own
 * or one on a service's interface (uet_xsk_attach), and transmission; the
 * receive path is in uet_xsk_rx.c. The UMEM is split in two halves, the
 * first kept in the fill ring for reception, the second a free pool for
 * transmission, so rx and tx never compete for chunks.
 */
#include <errno.h>
#include <net/if.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xdp/xsk.h>

#include "dev/uet_dev_proto.h"
#include "uet_fep.h"
#include "dev/uet_dev_shm.h"
#include "dev/uet_dev_wake.h"
#include "dev/uet_fep_steer.h"
#include "dev/uet_xsk_priv.h"

#define UET_XSK_DEF_FRAMES	4096
#define UET_XSK_DEF_RING	1024

void uet_xsk_set_local_mac(struct uet_xsk *x, const uint8_t mac[6])
{
	memcpy(x->local_mac, mac, 6);
	x->has_local_mac = x->shm != NULL;
}

/*
 * A frame for another endpoint of the interface: its chunks go on that
 * endpoint's local ring (they come back to us through our mailbox once it
 * read them, as completions do), and it is woken if it sleeps. A frame no
 * endpoint takes is dropped and counted: its sender retries, as with a
 * loss.
 */
static int uet_xsk_tx_local(struct uet_xsk *x, struct uet_xsk_frame *f,
			    uint32_t len)
{
	struct uet_dev_shm *s = x->shm;
	uint32_t need = (len + UET_XSK_CHUNK_LEN - 1) / UET_XSK_CHUNK_LEN;
	struct uet_dev_shm_slot *sl;
	uint32_t left = len;
	/* Steering reads headers only: those are in the first chunk. */
	int ep = f->local_ep ? f->local_ep :
		 uet_fep_steer(s, f->seg[0], len < f->seg_len[0] ? len :
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
	uet_dev_wake_owner(sl, &x->wake_tx);
	x->tx_in_flight += f->nsegs;
	x->tx_frames++;
	x->tx_bytes += len;
	f->nsegs = 0;
	return 0;
}

int uet_xsk_fd(const struct uet_xsk *x)
{
	return x->sock ? xsk_socket__fd(x->sock) : x->fd;
}

uint32_t uet_xsk_frame_max(const struct uet_xsk *x)
{
	return x->frame_max;
}

struct uet_dev_shm *uet_xsk_shm(const struct uet_xsk *x)
{
	return x->shm;
}

uint32_t uet_xsk_tx_outstanding(const struct uet_xsk *x)
{
	return x->tx_in_flight;
}

bool uet_xsk_tx_needs_kick(const struct uet_xsk *x)
{
	return x->tx_unkicked;
}

bool uet_xsk_link_down(const struct uet_xsk *x)
{
	return x->link_down;
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
	x->wake_tx = -1;
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

/*
 * This process's mappings of services' UMEMs, one per memfd: endpoints of
 * one process on one interface share one (each of its own, populated,
 * cost 0.16 s and 350 KiB of page tables for a 182 MiB UMEM: 300
 * endpoints of one process took 48 s to open). A memfd we map cannot be
 * freed, so no other one has its inode while the entry lives.
 */
struct uet_xsk_area {
	dev_t dev;
	ino_t ino;
	size_t len;
	void *area;
	uint32_t refs;
	struct uet_xsk_area *next;
};

static pthread_mutex_t uet_xsk_areas_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uet_xsk_area *uet_xsk_areas;

/* The UMEM memfd |fd| of |len| bytes, mapped; NULL with errno. */
static void *uet_xsk_area_get(int fd, size_t len)
{
	struct uet_xsk_area *a;
	struct stat st;
	void *area = NULL;

	if (fstat(fd, &st) < 0)
		return NULL;
	pthread_mutex_lock(&uet_xsk_areas_lock);
	for (a = uet_xsk_areas; a; a = a->next)
		if (a->dev == st.st_dev && a->ino == st.st_ino &&
		    a->len == len)
			break;
	if (a) {
		a->refs++;
		area = a->area;
		goto out;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		goto out;
	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, 0);
	if (area == MAP_FAILED) {
		free(a);
		area = NULL;
		goto out;
	}
	*a = (struct uet_xsk_area){ .dev = st.st_dev, .ino = st.st_ino,
				    .len = len, .area = area, .refs = 1,
				    .next = uet_xsk_areas };
	uet_xsk_areas = a;
out:
	pthread_mutex_unlock(&uet_xsk_areas_lock);
	return area;
}

static void uet_xsk_area_put(void *area)
{
	struct uet_xsk_area **pa, *a;

	pthread_mutex_lock(&uet_xsk_areas_lock);
	for (pa = &uet_xsk_areas; (a = *pa); pa = &a->next) {
		if (a->area != area)
			continue;
		if (!--a->refs) {
			*pa = a->next;
			munmap(a->area, a->len);
			free(a);
		}
		break;
	}
	pthread_mutex_unlock(&uet_xsk_areas_lock);
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
	if (x->wake_tx >= 0)
		close(x->wake_tx);
	if (x->shm)
		munmap(x->shm, x->shm_len);
	if (x->area && x->area_shared)
		uet_xsk_area_put(x->area);
	else if (x->area)
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
	f->local_ep = 0;
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
	x->tx_bytes += len;
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
		int err = sendto(uet_xsk_fd(x), NULL, 0, MSG_DONTWAIT, NULL,
				 0) ? errno : 0;

		x->link_down = err == ENETDOWN;
		if (!err)
			x->tx_unkicked = false;
		else if (err != EAGAIN && err != EBUSY && err != ENOBUFS &&
			 err != ENETDOWN)
			ret = -err;
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

int uet_xsk_stats_read(struct uet_xsk *x, struct uet_xsk_stats *st)
{
	struct xdp_statistics xs;
	socklen_t len = sizeof(xs);

	memset(st, 0, sizeof(*st));
	st->rx_frames = x->rx_frames;
	st->tx_frames = x->tx_frames;
	st->rx_bytes = x->rx_bytes;
	st->tx_bytes = x->tx_bytes;
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
	uint32_t comp_n = uet_dev_comp_size(l);
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
	       l->max_eps <= UET_FEP_MAX_EPS && ep < l->max_eps &&
	       l->ep_bits >= UET_FEP_EP_BITS_MIN &&
	       l->ep_bits <= UET_FEP_EP_BITS_MAX &&
	       l->max_eps <= 1u << l->ep_bits && l->tx_chunks &&
	       l->tx_chunks <= UET_DEV_TX_CHUNKS_MAX &&
	       !(l->ring_size & (l->ring_size - 1)) && l->ring_size &&
	       !(l->rx_chunks & (l->rx_chunks - 1)) && l->rx_chunks &&
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
	x->wake_tx = -1;
	if (!uet_dev_layout_is_sane(l, sh->ep))
		ret = -EPROTO;
	if (ret == 0) {
		x->area_len = (size_t)l->chunks * UET_XSK_CHUNK_LEN;
		x->area = uet_xsk_area_get(sh->umem_fd, x->area_len);
		x->area_shared = x->area != NULL;
		if (!x->area)
			ret = errno ? -errno : -ENOMEM;
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
			   x->shm->ep_bits != l->ep_bits ||
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
