/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd's device: the UMEM (a memfd, so that endpoints map the same pages),
 * the control block, the first socket on the queue (whose fill and
 * completion rings every endpoint shares), the XDP program, and a socket of
 * its own for each endpoint, bound with XDP_SHARED_UMEM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <linux/if_xdp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "dev/uet_frame.h"
#include "dev/uet_nl.h"
#include "dev/uet_xsk.h"
#include "tools/uetd.h"
#include "uet_wire.h"

#ifndef XDP_USE_SG
#define XDP_USE_SG		(1 << 4)
#endif

static int uetd_memfd(const char *name, size_t len, void **map)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	*map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*map == MAP_FAILED) {
		int err = errno;

		close(fd);
		*map = NULL;
		return -err;
	}
	return fd;
}

/* Every receive chunk goes to the fill ring at the start. */
/* Receive chunks the fill ring keeps (the rest wait in the reserve). */
#define UETD_FILL_TARGET	2048

/* Every receive chunk to the fill ring, or past its target the reserve. */
static void uetd_fill_all(struct uetd *d)
{
	uint64_t addrs[256];

	for (uint32_t i = 0; i < d->layout.rx_chunks; i += 256) {
		uint32_t n = d->layout.rx_chunks - i < 256 ?
			     d->layout.rx_chunks - i : 256;

		for (uint32_t k = 0; k < n; k++)
			addrs[k] = (uint64_t)(i + k) * UET_XSK_CHUNK_LEN;
		uet_dev_shm_fill(d->shm, &d->fill, addrs, n);
	}
}

/* Older libc headers lack these (Linux 5.11). */
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL	69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET	70
#endif

/*
 * Busy polling (uetd --busy-poll): the socket's syscalls run the NIC
 * queue's NAPI themselves instead of waiting for its interrupt, up to
 * USEC and BUDGET packets a call, and the kernel leaves the queue to them
 * (prefer). Raising them needs CAP_NET_ADMIN, which endpoints lack: the
 * service sets them on every socket it makes. On veth they are taken and
 * do nothing (no NAPI id). 0 or -errno.
 */
static int uetd_busy_poll_set(const struct uetd *d, int fd)
{
	int one = 1;

	if (!d->busy_poll_us)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one,
		       sizeof(one)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &d->busy_poll_us,
		       sizeof(d->busy_poll_us)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET,
		       &d->busy_poll_budget, sizeof(d->busy_poll_budget)) < 0)
		return -errno;
	return 0;
}

/* What the kernel holds for |fd|, into d's figures (for status). */
static void uetd_busy_poll_read(struct uetd *d, int fd)
{
	socklen_t len = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &d->busy_poll_us,
		       &len) < 0)
		d->busy_poll_us = 0;
	/* The budget cannot be read back (no getsockopt): the one set. */
}

/* The first socket is bound: its settings, then the fill ring. */
static int uetd_first_socket_done(struct uetd *d)
{
	int fd = xsk_socket__fd(d->sock), ret = uetd_busy_poll_set(d, fd);

	if (ret < 0) {
		uetd_log(d, "busy polling refused: %s", strerror(-ret));
		return ret;
	}
	if (d->busy_poll_us)
		uetd_busy_poll_read(d, fd);
	uetd_fill_all(d);
	return 0;
}

static int uetd_first_socket(struct uetd *d)
{
	const struct uet_dev_layout *l = &d->layout;
	struct xsk_umem_config ucfg = {
		.fill_size = l->rx_chunks,
		.comp_size = l->max_eps * l->tx_chunks,
		.frame_size = UET_XSK_CHUNK_LEN,
	};
	struct xsk_socket_config scfg = {
		.rx_size = l->ring_size,
		.tx_size = l->ring_size,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP | XDP_COPY |
			      (l->multi_buf ? XDP_USE_SG : 0),
	};
	size_t len = (size_t)l->chunks * UET_XSK_CHUNK_LEN;
	int ret;

	ret = xsk_umem__create(&d->umem, d->area, len, &d->fill, &d->comp,
			       &ucfg);
	if (ret < 0)
		return ret;
	/*
	 * Zero-copy where the driver has it (the NIC DMAs into the UMEM, no
	 * copy in the kernel either way); copy mode otherwise. Generic (skb)
	 * XDP never has it, nor does veth: the bind says EOPNOTSUPP (or
	 * EINVAL), and the endpoints' sockets share whichever the first got.
	 */
	d->zero_copy = false;
	if (d->mode == UET_XDP_MODE_NATIVE) {
		scfg.bind_flags = (uint16_t)((scfg.bind_flags & ~XDP_COPY) |
					     XDP_ZEROCOPY);
		ret = xsk_socket__create(&d->sock, d->ifname, d->queue_id,
					 d->umem, &d->rx, &d->tx, &scfg);
		if (ret == 0) {
			d->zero_copy = true;
			return uetd_first_socket_done(d);
		}
		uetd_log(d, "zero-copy refused (%s): copy mode",
			 strerror(-ret));
		scfg.bind_flags = (uint16_t)((scfg.bind_flags & ~XDP_ZEROCOPY) |
					     XDP_COPY);
	}
	ret = xsk_socket__create(&d->sock, d->ifname, d->queue_id, d->umem,
				 &d->rx, &d->tx, &scfg);
	if (ret == -EINVAL && l->multi_buf && d->mtu + UET_ETH_HDR_LEN +
	    UET_VLAN_HDR_LEN <= UET_XSK_CHUNK_LEN - UET_XSK_RX_HEADROOM) {
		uetd_log(d, "no AF_XDP multi-buffer here (Linux 6.6): frames "
			 "up to one %u-byte chunk only", UET_XSK_CHUNK_LEN);
		d->layout.multi_buf = 0;
		scfg.bind_flags &= (uint16_t)~XDP_USE_SG;
		ret = xsk_socket__create(&d->sock, d->ifname, d->queue_id,
					 d->umem, &d->rx, &d->tx, &scfg);
	}
	if (ret < 0)
		return ret;
	return uetd_first_socket_done(d);
}

static void uetd_layout_init(struct uetd *d, int mtu)
{
	struct uet_dev_layout *l = &d->layout;

	l->chunk_len = UET_XSK_CHUNK_LEN;
	if (!l->max_eps)
		l->max_eps = 32;
	l->tx_chunks = 512;
	l->rx_chunks = 8192;
	l->ring_size = 1024;
	l->chunks = l->rx_chunks + l->max_eps * l->tx_chunks;
	/*
	 * Frames may span chunks whatever the MTU is now: it may be raised
	 * while we serve (a frame, a VLAN tag and the headroom must fit).
	 * Kernels without AF_XDP multi-buffer (before 6.6) refuse the bind;
	 * uetd_first_socket() then falls back to what the MTU needs now.
	 */
	(void)mtu;
	l->multi_buf = 1;
}

int uetd_dev_setup(struct uetd *d)
{
	struct uet_xdp_cfg cfg;
	uint32_t key = 0;
	int mtu, fd, ret;

	mtu = uet_nl_if_mtu(d->ifindex);
	if (mtu < 0)
		return mtu;
	d->mtu = mtu;
	uetd_layout_init(d, mtu);
	d->umem_fd = uetd_memfd("uet-umem", (size_t)d->layout.chunks *
				UET_XSK_CHUNK_LEN, &d->area);
	if (d->umem_fd < 0)
		return d->umem_fd;
	d->shm_len = uet_dev_shm_len(d->layout.max_eps, d->layout.tx_chunks,
				     d->layout.rx_chunks);
	d->shm_fd = uetd_memfd("uet-ctl", d->shm_len, (void **)&d->shm);
	if (d->shm_fd < 0)
		return d->shm_fd;
	ret = uet_dev_shm_init(d->shm, d->layout.max_eps, d->layout.tx_chunks,
			       d->layout.rx_chunks, UETD_FILL_TARGET);
	if (ret < 0)
		return ret;
	d->shm->slot[UET_FEP_EP_SERVICE].state = UET_DEV_SLOT_ACTIVE;
	ret = uet_xdp_load(d->ifname, d->mode, d->udp_port);
	if (ret == -EEXIST || ret == -EBUSY) {
		struct uet_xdp_status st;

		/*
		 * We hold the service's socket name, so no service runs
		 * here: a program of ours still attached was left by one
		 * that died. Take it away and start afresh.
		 */
		if (uet_xdp_status_get(d->ifname, &st) == 0 && st.attached) {
			uetd_log(d, "removing the uet program left on %s by a "
				 "service that died", d->ifname);
			uet_xdp_unload(d->ifname);
			ret = uet_xdp_load(d->ifname, d->mode, d->udp_port);
		}
	}
	if (ret < 0)
		return ret;
	d->attached = true;
	ret = uet_xdp_maps_open(d->ifname, &d->maps);
	if (ret < 0)
		return ret;
	d->pids_map = uet_xdp_map_open(d->ifname, "uet_xdp_pids");
	ret = uet_xdp_cfg_read(&d->maps, &cfg);
	if (ret == 0) {
		cfg.queue_id = d->queue_id;
		ret = uet_xdp_cfg_write(&d->maps, &cfg);
	}
	if (ret < 0)
		return ret;
	ret = uetd_first_socket(d);
	/*
	 * The queue still has sockets on another UMEM: endpoints of a
	 * service that was killed, whose applications still run.
	 */
	if (ret == -EBUSY)
		snprintf(d->why, sizeof(d->why), "queue %u of %s is still held "
			 "by AF_XDP sockets (endpoints of a service that was "
			 "killed?): end those applications, then load again",
			 d->queue_id, d->ifname);
	if (ret < 0)
		return ret;
	d->tx_pool = calloc(d->layout.tx_chunks, sizeof(*d->tx_pool));
	if (!d->tx_pool)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->layout.tx_chunks; i++)
		d->tx_pool[d->tx_pool_cnt++] =
			(uint64_t)(d->layout.rx_chunks + i) * UET_XSK_CHUNK_LEN;
	fd = xsk_socket__fd(d->sock);
	key = UET_FEP_EP_SERVICE;
	if (bpf_map_update_elem(d->maps.xsks, &key, &fd, BPF_ANY) < 0)
		return -errno;
	return 0;
}

void uetd_dev_teardown(struct uetd *d)
{
	if (d->sock)
		xsk_socket__delete(d->sock);
	if (d->umem)
		xsk_umem__delete(d->umem);
	d->sock = NULL;
	d->umem = NULL;
	free(d->tx_pool);
	d->tx_pool = NULL;
	uet_xdp_maps_close(&d->maps);
	if (d->pids_map >= 0)
		close(d->pids_map);
	d->pids_map = -1;
	/* Only what we attached: a failed start leaves another's program. */
	if (d->attached)
		uet_xdp_unload(d->ifname);
	d->attached = false;
	if (d->area)
		munmap(d->area, (size_t)d->layout.chunks * UET_XSK_CHUNK_LEN);
	if (d->shm)
		munmap(d->shm, d->shm_len);
	if (d->umem_fd >= 0)
		close(d->umem_fd);
	if (d->shm_fd >= 0)
		close(d->shm_fd);
	d->area = NULL;
	d->shm = NULL;
	d->umem_fd = d->shm_fd = -1;
}

int uetd_dev_fd(const struct uetd *d)
{
	return xsk_socket__fd(d->sock);
}

int uetd_dev_ep_socket(struct uetd *d, uint32_t ep)
{
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP,
		.sxdp_ifindex = (uint32_t)d->ifindex,
		.sxdp_queue_id = d->queue_id,
		.sxdp_flags = XDP_SHARED_UMEM,
		.sxdp_shared_umem_fd = (uint32_t)xsk_umem__fd(d->umem),
	};
	int ring = (int)d->layout.ring_size;
	int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	struct uetd_ep *e = &d->eps[ep];
	struct xdp_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	uint32_t key = ep;

	if (fd < 0)
		return -errno;
	if (uetd_busy_poll_set(d, fd) < 0 ||
	    setsockopt(fd, SOL_XDP, XDP_RX_RING, &ring, sizeof(ring)) < 0 ||
	    setsockopt(fd, SOL_XDP, XDP_TX_RING, &ring, sizeof(ring)) < 0 ||
	    getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen) < 0)
		goto err;
	/*
	 * Its rx ring, mapped before bind (every kernel allows that) and
	 * kept: when the endpoint dies, what the kernel put there and it
	 * never took is ours to give back.
	 */
	e->rx_map_len = off.rx.desc + (size_t)ring * sizeof(struct xdp_desc);
	e->rx_map = mmap(NULL, e->rx_map_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE, fd, XDP_PGOFF_RX_RING);
	if (e->rx_map == MAP_FAILED) {
		e->rx_map = NULL;
		goto err;
	}
	e->rx.producer = (void *)((uint8_t *)e->rx_map + off.rx.producer);
	e->rx.consumer = (void *)((uint8_t *)e->rx_map + off.rx.consumer);
	e->rx.ring = (uint8_t *)e->rx_map + off.rx.desc;
	e->rx.mask = (uint32_t)ring - 1;
	e->rx.size = (uint32_t)ring;
	if (bind(fd, (struct sockaddr *)&sxdp, sizeof(sxdp)) < 0 ||
	    bpf_map_update_elem(d->maps.xsks, &key, &fd, BPF_ANY) < 0)
		goto err;
	return fd;
err:
	{
		int err = errno;

		if (e->rx_map)
			munmap(e->rx_map, e->rx_map_len);
		e->rx_map = NULL;
		close(fd);
		return -err;
	}
}

static int uetd_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint32_t uetd_dev_ep_recover(struct uetd *d, uint32_t ep)
{
	struct uetd_ep *e = &d->eps[ep];
	struct uet_dev_shm_slot *sl = &d->shm->slot[ep];
	uint64_t *addrs;
	uint32_t n = 0, cons, prod, uniq = 0;

	if (!e->rx_map)
		return 0;
	addrs = calloc(UET_DEV_HELD_MAX + e->rx.size, sizeof(*addrs));
	if (addrs && uet_dev_shm_lock(d->shm) == 0) {
		cons = __atomic_load_n(e->rx.consumer, __ATOMIC_ACQUIRE);
		prod = __atomic_load_n(e->rx.producer, __ATOMIC_ACQUIRE);
		for (uint32_t i = cons; i != prod && n < e->rx.size; i++)
			addrs[n++] = xsk_ring_cons__rx_desc(&e->rx, i)->addr &
				     ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
		for (uint32_t i = 0; i < sl->held_cnt && i < UET_DEV_HELD_MAX;
		     i++)
			addrs[n++] = sl->held[i];
		sl->held_cnt = 0;
		/* A chunk named twice (it died between the two) goes once. */
		qsort(addrs, n, sizeof(*addrs), uetd_u64_cmp);
		for (uint32_t i = 0; i < n; i++)
			if (!i || addrs[i] != addrs[i - 1])
				addrs[uniq++] = addrs[i];
		if (uniq && !uet_dev_shm_fill(d->shm, &d->fill, addrs, uniq))
			uniq = 0;
		uet_dev_shm_unlock(d->shm);
	}
	free(addrs);
	munmap(e->rx_map, e->rx_map_len);
	e->rx_map = NULL;
	return uniq;
}

/*
 * The completion ring under the shared lock: our chunks back to our pool,
 * the endpoints' to their mailboxes (as dev/uet_xsk.c does), then ours.
 */
static void uetd_dev_reap(struct uetd *d)
{
	if (uet_dev_shm_lock(d->shm) < 0)
		return;
	uet_dev_shm_reap(d->shm, &d->comp,
			 (uint64_t)d->layout.rx_chunks * UET_XSK_CHUNK_LEN,
			 UET_FEP_EP_SERVICE, d->tx_pool, &d->tx_pool_cnt);
	uet_dev_shm_unlock(d->shm);
}

/*
 * Frames for no endpoint: requests for an absent destination answered
 * (uetd_absent.c), the rest counted; their chunks go back to the fill
 * ring under the shared lock (the endpoints produce into it too).
 */
void uetd_dev_rx(struct uetd *d)
{
	uint64_t addrs[64];
	uint32_t idx = 0, n;

	uetd_dev_reap(d);
	n = xsk_ring_cons__peek(&d->rx, 64, &idx);
	if (!n) {
		if (xsk_ring_prod__needs_wakeup(&d->fill))
			recvfrom(uetd_dev_fd(d), NULL, 0, MSG_DONTWAIT, NULL,
				 NULL);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct xdp_desc *desc = xsk_ring_cons__rx_desc(&d->rx,
								     idx + i);

		addrs[i] = desc->addr & ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
		/*
		 * The first chunk of a frame holds all its headers: answer
		 * on it (XDP_PKT_CONTD marks chunks that more follow).
		 */
		if (!d->rx_mid_frame) {
			d->absent_rx++;
			uetd_absent_answer(d, xsk_umem__get_data(d->area,
								 desc->addr),
					   desc->len);
		}
		d->rx_mid_frame = desc->options & 1;
	}
	xsk_ring_cons__release(&d->rx, n);
	if (d->tx_unkicked) {
		sendto(uetd_dev_fd(d), NULL, 0, MSG_DONTWAIT, NULL, 0);
		d->tx_unkicked = false;
	}
	if (uet_dev_shm_lock(d->shm) < 0)
		return;
	uet_dev_shm_fill(d->shm, &d->fill, addrs, n);
	uet_dev_shm_unlock(d->shm);
}

void uetd_dev_fill_top_up(struct uetd *d)
{
	if (!__atomic_load_n(&d->shm->reserve_cnt, __ATOMIC_RELAXED) ||
	    uet_dev_shm_lock(d->shm) < 0)
		return;
	uet_dev_shm_fill(d->shm, &d->fill, NULL, 0);
	uet_dev_shm_unlock(d->shm);
}
