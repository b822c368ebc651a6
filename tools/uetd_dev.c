/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd's device: the UMEM (a memfd, so that endpoints map the same pages),
 * the control block, the first socket on the queue (whose fill and
 * completion rings every endpoint shares), the XDP program, and a socket of
 * its own for each endpoint, bound with XDP_SHARED_UMEM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
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

/*
 * Receive chunks a fill ring keeps (the rest wait in the reserve): this
 * many, or with several queues a share that leaves half of all in the
 * reserve.
 */
#define UETD_FILL_TARGET	2048

static uint32_t uetd_fill_target(const struct uetd *d)
{
	uint32_t share = d->layout.rx_chunks / (2 * d->queues);

	return share < UETD_FILL_TARGET ? share : UETD_FILL_TARGET;
}

/*
 * Every receive chunk to the first queue's fill ring, or past its target
 * the reserve; the other queues' rings then take theirs from the reserve.
 */
static void uetd_fill_all(struct uetd *d)
{
	uint64_t addrs[256];

	for (uint32_t i = 0; i < d->layout.rx_chunks; i += 256) {
		uint32_t n = d->layout.rx_chunks - i < 256 ?
			     d->layout.rx_chunks - i : 256;

		for (uint32_t k = 0; k < n; k++)
			addrs[k] = (uint64_t)(i + k) * UET_XSK_CHUNK_LEN;
		uet_dev_shm_fill(d->shm, &d->q[0].fill, addrs, n);
	}
	for (uint32_t q = 1; q < d->queues; q++)
		uet_dev_shm_fill(d->shm, &d->q[q].fill, NULL, 0);
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
int uetd_busy_poll_set(const struct uetd *d, int fd)
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

/* The first socket is bound: its settings. */
static int uetd_first_socket_done(struct uetd *d)
{
	int fd = xsk_socket__fd(d->q[0].sock), ret = uetd_busy_poll_set(d, fd);

	if (ret < 0) {
		uetd_log(d, "busy polling refused: %s", strerror(-ret));
		return ret;
	}
	if (d->busy_poll_us)
		uetd_busy_poll_read(d, fd);
	return 0;
}

/*
 * The service's socket on queue offset |q| > 0: on the same UMEM, with
 * fill and completion rings of its own (the kernel keeps one pair per
 * device and queue), bound as the first one was (zero-copy or copy,
 * multi-buffer or not). No tx ring: answers go out on the first queue.
 */
static int uetd_queue_socket(struct uetd *d, uint32_t q)
{
	struct uetd_queue *dq = &d->q[q];
	struct xsk_socket_config scfg = {
		.rx_size = d->layout.ring_size,
		.tx_size = d->layout.ring_size,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP |
			      (d->zero_copy ? XDP_ZEROCOPY : XDP_COPY) |
			      (d->layout.multi_buf ? XDP_USE_SG : 0),
	};
	int ret;

	ret = xsk_socket__create_shared(&dq->sock, d->ifname, d->queue_id + q,
					d->umem, &dq->rx, NULL, &dq->fill,
					&dq->comp, &scfg);
	if (ret < 0) {
		dq->sock = NULL;
		return ret;
	}
	return uetd_busy_poll_set(d, xsk_socket__fd(dq->sock));
}

static int uetd_first_socket(struct uetd *d)
{
	const struct uet_dev_layout *l = &d->layout;
	struct xsk_umem_config ucfg = {
		.fill_size = l->rx_chunks,
		.comp_size = uet_dev_comp_size(l),
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

	ret = xsk_umem__create(&d->umem, d->area, len, &d->q[0].fill,
			       &d->q[0].comp, &ucfg);
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
		ret = xsk_socket__create(&d->q[0].sock, d->ifname, d->queue_id,
					 d->umem, &d->q[0].rx, &d->q[0].tx,
					 &scfg);
		if (ret == 0) {
			d->zero_copy = true;
			return uetd_first_socket_done(d);
		}
		uetd_log(d, "zero-copy refused (%s): copy mode",
			 strerror(-ret));
		scfg.bind_flags = (uint16_t)((scfg.bind_flags & ~XDP_ZEROCOPY) |
					     XDP_COPY);
	}
	ret = xsk_socket__create(&d->q[0].sock, d->ifname, d->queue_id, d->umem,
				 &d->q[0].rx, &d->q[0].tx, &scfg);
	if (ret == -EINVAL && l->multi_buf && d->mtu + UET_ETH_HDR_LEN +
	    UET_VLAN_HDR_LEN <= UET_XSK_CHUNK_LEN - UET_XSK_RX_HEADROOM) {
		uetd_log(d, "no AF_XDP multi-buffer here (Linux 6.6): frames "
			 "up to one %u-byte chunk only", UET_XSK_CHUNK_LEN);
		d->layout.multi_buf = 0;
		scfg.bind_flags &= (uint16_t)~XDP_USE_SG;
		ret = xsk_socket__create(&d->q[0].sock, d->ifname, d->queue_id,
					 d->umem, &d->q[0].rx, &d->q[0].tx,
					 &scfg);
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
		l->max_eps = UET_FEP_EPS_DEFAULT + 1;
	l->ep_bits = uet_fep_ep_bits(l->max_eps);
	if (!l->tx_chunks)
		l->tx_chunks = UET_DEV_TX_CHUNKS_DEFAULT;
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
	uint32_t key = 0, q_busy = 0;
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
	ret = uet_dev_shm_init(d->shm, d->layout.max_eps, d->layout.ep_bits,
			       d->layout.tx_chunks,
			       d->layout.rx_chunks, uetd_fill_target(d));
	if (ret < 0)
		return ret;
	d->shm->slot[UET_FEP_EP_SERVICE].state = UET_DEV_SLOT_ACTIVE;
	ret = uet_xdp_load(d->ifname, d->mode, d->udp_port,
			   d->layout.ep_bits);
	if (ret == -EEXIST || ret == -EBUSY) {
		struct uet_xdp_status st;
		int sret = uet_xdp_status_get(d->ifname, &st);

		/*
		 * Pins and no program: left by a service whose interface
		 * was deleted under it (this one is a new interface of the
		 * same name). They name maps of no program now.
		 */
		if (sret == 0 && !st.attached && st.pinned) {
			uetd_log(d, "removing the pins a service of an "
				 "earlier %s left", d->ifname);
			uet_xdp_pins_remove(d->ifname);
			ret = uet_xdp_load(d->ifname, d->mode, d->udp_port,
					   d->layout.ep_bits);
		}
	}
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
			ret = uet_xdp_load(d->ifname, d->mode,
					   d->udp_port, d->layout.ep_bits);
		}
	}
	if (ret < 0)
		return ret;
	d->attached = true;
	ret = uet_xdp_maps_open(d->ifname, &d->maps);
	if (ret < 0)
		return ret;
	d->pids_map = uet_xdp_map_open(d->ifname, "uet_xdp_pids");
	d->ep_queue_map = uet_xdp_map_open(d->ifname, "uet_xdp_ep_queue");
	if (d->ep_queue_map < 0)
		return d->ep_queue_map;
	ret = uet_xdp_cfg_read(&d->maps, &cfg);
	if (ret == 0) {
		cfg.queue_id = d->queue_id;
		cfg.queues = (__u8)d->queues;
		ret = uet_xdp_cfg_write(&d->maps, &cfg);
	}
	if (ret < 0)
		return ret;
	ret = uetd_first_socket(d);
	/*
	 * The queue still has sockets on another UMEM: endpoints of a
	 * service that was killed, whose applications still run.
	 */
	for (uint32_t q = 1; ret == 0 && q < d->queues; q++) {
		ret = uetd_queue_socket(d, q);
		if (ret == -EBUSY)
			q_busy = q;
		else if (ret == -EINVAL)
			snprintf(d->why, sizeof(d->why), "cannot bind to rx "
				 "queue %u of %s (EINVAL): does it have %u rx "
				 "queues? (ethtool -l)", d->queue_id + q,
				 d->ifname, d->queue_id + d->queues);
	}
	if (ret == -EBUSY)
		snprintf(d->why, sizeof(d->why), "queue %u of %s is still held "
			 "by AF_XDP sockets (endpoints of a service that was "
			 "killed?): end those applications, then load again",
			 d->queue_id + q_busy, d->ifname);
	if (ret < 0)
		return ret;
	uetd_fill_all(d);
	d->tx_pool = calloc(d->layout.tx_chunks, sizeof(*d->tx_pool));
	if (!d->tx_pool)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->layout.tx_chunks; i++)
		d->tx_pool[d->tx_pool_cnt++] =
			(uint64_t)(d->layout.rx_chunks + i) * UET_XSK_CHUNK_LEN;
	for (uint32_t q = 0; q < d->queues; q++) {
		fd = xsk_socket__fd(d->q[q].sock);
		key = UET_XDP_SVC_KEY(q);
		if (bpf_map_update_elem(d->maps.xsks, &key, &fd, BPF_ANY) < 0)
			return -errno;
	}
	return 0;
}

void uetd_dev_teardown(struct uetd *d)
{
	/* The first socket last: it holds the UMEM. */
	for (uint32_t q = UET_XDP_MAX_QUEUES; q-- > 0;) {
		if (d->q[q].sock)
			xsk_socket__delete(d->q[q].sock);
		d->q[q].sock = NULL;
		uetd_takeover_socket_close(&d->q[q]);
	}
	if (d->umem)
		xsk_umem__delete(d->umem);
	d->umem = NULL;
	free(d->tx_pool);
	d->tx_pool = NULL;
	d->tx_pool_cnt = 0;
	uet_xdp_maps_close(&d->maps);
	if (d->pids_map >= 0)
		close(d->pids_map);
	if (d->ep_queue_map >= 0)
		close(d->ep_queue_map);
	d->pids_map = d->ep_queue_map = -1;
	/*
	 * Only what we attached: a failed start leaves another's program.
	 * The interface gone, the program went with it: its pins remain.
	 */
	if (d->attached && d->iface_gone)
		uet_xdp_pins_remove(d->ifname);
	else if (d->attached)
		uet_xdp_unload(d->ifname);
	d->attached = false;
	uetd_dev_unmap(d);
}

void uetd_dev_unmap(struct uetd *d)
{
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

int uetd_dev_fd(const struct uetd *d, uint32_t q)
{
	return d->q[q].sock ? xsk_socket__fd(d->q[q].sock) : d->q[q].raw_fd;
}

uint32_t uetd_dev_queue_eps(const struct uetd *d, uint32_t q)
{
	uint32_t n = 0;

	for (uint32_t i = 1; i < d->layout.max_eps; i++)
		n += d->eps[i].conn >= 0 && d->eps[i].queue == q;
	return n;
}

int uetd_dev_queue_pick(const struct uetd *d, uint32_t want)
{
	uint32_t best = 0, best_eps = UINT32_MAX;

	if (want != UET_DEV_QUEUE_ANY)
		return want - d->queue_id < d->queues ?
		       (uetd_dev_fd(d, want - d->queue_id) < 0 ? -EAGAIN :
			(int)(want - d->queue_id)) : -ERANGE;
	/* After a takeover, a queue may wait for its socket (a tick). */
	for (uint32_t q = 0; q < d->queues; q++) {
		uint32_t n = uetd_dev_queue_eps(d, q);

		if (uetd_dev_fd(d, q) >= 0 && n < best_eps) {
			best = q;
			best_eps = n;
		}
	}
	return (int)best;
}

struct uetd_unmap {
	void *addr;
	size_t len;
};

static void *uetd_unmap_run(void *arg)
{
	struct uetd_unmap *u = arg;

	munmap(u->addr, u->len);
	free(u);
	return NULL;
}

/*
 * Unmaps an endpoint's rx ring (a dead one's, or one whose set-up failed)
 * on a thread of its own. The mapping is the last hold on the endpoint's
 * AF_XDP socket, and the socket's release waits for an RCU grace period
 * (8-16 ms a socket here): three endpoints whose rest ended together
 * stopped the service's loop for 25-50 ms, and the other endpoints'
 * sealed frames waited for it (e2e_tss_eps c, one run in about 15: 350
 * frames of new streams handed on before the service could make their
 * contexts). Inline when no thread can be made. The thread takes no
 * signal: the loop's handlers run in the loop.
 */
static void uetd_unmap_async(void *addr, size_t len)
{
	struct uetd_unmap *u = malloc(sizeof(*u));
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	int ret = -1;

	if (u && pthread_attr_init(&attr) == 0) {
		u->addr = addr;
		u->len = len;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		ret = pthread_create(&t, &attr, uetd_unmap_run, u);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&attr);
	}
	if (ret != 0) {
		free(u);
		munmap(addr, len);
	}
}

int uetd_dev_ep_socket(struct uetd *d, uint32_t ep, uint32_t q)
{
	/*
	 * Bound with the first socket of its queue: it shares that one's
	 * fill and completion rings, which it maps through its own fd.
	 */
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP,
		.sxdp_ifindex = (uint32_t)d->ifindex,
		.sxdp_queue_id = d->queue_id + q,
		.sxdp_flags = XDP_SHARED_UMEM,
		.sxdp_shared_umem_fd = (uint32_t)uetd_dev_fd(d, q),
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
	/* Its queue first: the program checks it once the socket is in. */
	if (bind(fd, (struct sockaddr *)&sxdp, sizeof(sxdp)) < 0 ||
	    bpf_map_update_elem(d->ep_queue_map, &key, &q, BPF_ANY) < 0 ||
	    bpf_map_update_elem(d->maps.xsks, &key, &fd, BPF_ANY) < 0)
		goto err;
	e->queue = q;
	return fd;
err:
	{
		int err = errno;

		/* The socket goes with the mapping, after a grace period. */
		close(fd);
		if (e->rx_map)
			uetd_unmap_async(e->rx_map, e->rx_map_len);
		e->rx_map = NULL;
		return -err;
	}
}

static int uetd_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Under the lock: what waits on dead endpoint |ep|'s local ring. Receive
 * chunks the service handed on go to |addrs|; other endpoints' transmit
 * chunks back to their owner's mailbox. Returns how many went to |addrs|.
 */
static uint32_t uetd_dev_local_drain(struct uetd *d, uint32_t ep,
				     uint64_t *addrs)
{
	struct uet_dev_shm_slot *sl = &d->shm->slot[ep];
	uint32_t n = 0;

	for (; sl->local_tail != sl->local_head; sl->local_tail++) {
		const struct uet_dev_local_desc *ld =
			&sl->local[sl->local_tail % UET_DEV_LOCAL_RING];

		if (ld->from == UET_DEV_LOCAL_FROM_RX)
			addrs[n++] = ld->addr &
				     ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
		else
			uet_dev_shm_mbox_put(d->shm, ld->from, ld->addr);
	}
	return n;
}

uint32_t uetd_dev_ep_recover(struct uetd *d, uint32_t ep)
{
	struct uetd_ep *e = &d->eps[ep];
	struct uet_dev_shm_slot *sl = &d->shm->slot[ep];
	uint64_t *addrs;
	uint32_t n = 0, cons, prod, uniq = 0;

	/* No rx ring mapped: an owner gone while no service ran. */
	addrs = calloc(UET_DEV_HELD_MAX + UET_DEV_LOCAL_RING + e->rx.size,
		       sizeof(*addrs));
	if (addrs && uet_dev_shm_lock(d->shm) == 0) {
		cons = e->rx_map ? __atomic_load_n(e->rx.consumer,
						   __ATOMIC_ACQUIRE) : 0;
		prod = e->rx_map ? __atomic_load_n(e->rx.producer,
						   __ATOMIC_ACQUIRE) : 0;
		for (uint32_t i = cons; i != prod && n < e->rx.size; i++)
			addrs[n++] = xsk_ring_cons__rx_desc(&e->rx, i)->addr &
				     ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
		for (uint32_t i = 0; i < sl->held_cnt && i < UET_DEV_HELD_MAX;
		     i++)
			addrs[n++] = sl->held[i];
		sl->held_cnt = 0;
		n += uetd_dev_local_drain(d, ep, addrs + n);
		/* A chunk named twice (it died between the two) goes once. */
		qsort(addrs, n, sizeof(*addrs), uetd_u64_cmp);
		for (uint32_t i = 0; i < n; i++)
			if (!i || addrs[i] != addrs[i - 1])
				addrs[uniq++] = addrs[i];
		if (uniq && !uet_dev_shm_fill(d->shm, &d->q[e->queue].fill,
					      addrs, uniq))
			uniq = 0;
		uet_dev_shm_unlock(d->shm);
	}
	free(addrs);
	if (e->rx_map)
		uetd_unmap_async(e->rx_map, e->rx_map_len);
	e->rx_map = NULL;
	return uniq;
}
