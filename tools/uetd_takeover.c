/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd taking over an interface from a service that went away (issue 43:
 * killed, restarted, upgraded) without disturbing the endpoints that run
 * on it.
 *
 * The service is not in the data path: when it dies, the kernel keeps the
 * queue's buffer pool (UMEM, fill and completion rings) for as long as
 * endpoint sockets are bound to it, the XDP program stays attached (libxdp)
 * with its pinned maps and their steering entries, and endpoints go on
 * sending and receiving. What a new service needs, it cannot find alone:
 * the UMEM and the control block are memfds, the pool is reached only
 * through a socket bound to it. So the endpoints bring them back: an
 * endpoint whose service connection closed tries every 100 ms to reattach
 * (UET_DEV_REATTACH, dev/uet_dev_client.c) and hands over its socket, the
 * UMEM and the control block. A new service that finds our program still
 * attached (a service went away without unloading) waits up to
 * UETD_TAKEOVER_WAIT_NS for the first of them, adopts what it brings
 * (checked: sizes, the control block's magic and layout, the same files
 * for every endpoint, an AF_XDP socket), binds its own sockets to the
 * same pool and serves; every endpoint that comes back keeps its index,
 * PIDonFEP and steering. When none comes, it starts afresh as before.
 *
 * Indices whose owner has not come back stay reserved while the owner
 * lives (it may be idle: it reattaches at its next progress) and are
 * freed once it is gone (uetd_takeover_tick). Lost in a takeover: what was
 * in the dead service's own rx ring, and with several queues the fill
 * ring of a queue no endpoint held (its pool went with the service).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if_xdp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "dev/uet_nl.h"
#include "dev/uet_xsk.h"
#include "tools/uetd.h"
#include "uet_wire.h"

uint64_t uetd_proc_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* After the command's closing parenthesis: field 3 on; 22 is it. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%*u %*u %*d %*d %*d %*d %*d %*d %llu", &start) != 1)
		return 0;
	return start;
}

int uetd_takeover_begin(struct uetd *d)
{
	struct uet_xdp_status st;
	int ret;

	if (uet_xdp_status_get(d->ifname, &st) < 0 || !st.attached ||
	    !st.pinned)
		return 0;
	ret = uet_xdp_maps_open(d->ifname, &d->maps);
	if (ret < 0)
		return ret;
	d->pids_map = uet_xdp_map_open(d->ifname, "uet_xdp_pids");
	d->ep_queue_map = uet_xdp_map_open(d->ifname, "uet_xdp_ep_queue");
	if (d->pids_map < 0 || d->ep_queue_map < 0)
		return -ENOENT;
	/* The program's port is the one its endpoints use. */
	if (st.udp_port && st.udp_port != d->udp_port) {
		uetd_log(d, "taking over UDP port %u (asked for %u)",
			 st.udp_port, d->udp_port);
		d->udp_port = st.udp_port;
	}
	d->attached = true;	/* ours to detach, should we stop */
	d->adopting = true;
	d->adopt_until = uetd_now_ns() + UETD_TAKEOVER_WAIT_NS;
	uetd_log(d, "the uet program is still attached to %s (a service "
		 "went away): waiting %.1f s for its endpoints to come back",
		 d->ifname, UETD_TAKEOVER_WAIT_NS / 1e9);
	return 1;
}

void uetd_takeover_abandon(struct uetd *d)
{
	uet_xdp_maps_close(&d->maps);
	if (d->pids_map >= 0)
		close(d->pids_map);
	if (d->ep_queue_map >= 0)
		close(d->ep_queue_map);
	d->pids_map = d->ep_queue_map = -1;
	d->adopting = false;
	d->attached = false;
	uetd_log(d, "no endpoint came back: starting afresh");
	/* uetd_dev_setup() removes the program left and loads its own. */
}

static void *uetd_map_ring(int fd, off_t pgoff, const struct xdp_ring_offset *o,
			   uint32_t n, size_t ent, size_t *len)
{
	void *m;

	*len = o->desc + (size_t)n * ent;
	m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		 fd, pgoff);
	return m == MAP_FAILED ? NULL : m;
}

#define UETD_RING_SET(r, m, o, n) do {					\
	(r)->producer = (void *)((uint8_t *)(m) + (o)->producer);	\
	(r)->consumer = (void *)((uint8_t *)(m) + (o)->consumer);	\
	(r)->flags = (void *)((uint8_t *)(m) + (o)->flags);		\
	(r)->ring = (uint8_t *)(m) + (o)->desc;				\
	(r)->mask = (n) - 1;						\
	(r)->size = (n);						\
	(r)->cached_prod = *(r)->producer;				\
	(r)->cached_cons = *(r)->consumer;				\
} while (0)

/*
 * The service's socket on queue offset |q|, bound to the adopted pool
 * through |share_fd| (a socket on the same UMEM): on the same queue it
 * shares that queue's fill and completion rings, on another it makes a
 * new pool with rings of its own (|own_rings|). Raw, as libxdp cannot
 * wrap a UMEM it did not register. 0 or -errno.
 */
static int uetd_takeover_socket(struct uetd *d, uint32_t q, int share_fd,
				bool own_rings)
{
	const struct uet_dev_layout *l = &d->layout;
	struct uetd_queue *dq = &d->q[q];
	struct sockaddr_xdp sxdp = {
		.sxdp_family = AF_XDP, .sxdp_ifindex = (uint32_t)d->ifindex,
		.sxdp_queue_id = d->queue_id + q, .sxdp_flags = XDP_SHARED_UMEM,
		.sxdp_shared_umem_fd = (uint32_t)share_fd };
	int ring = (int)l->ring_size, fill = (int)l->rx_chunks;
	int comp = (int)uet_dev_comp_size(l);
	struct xdp_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	dq->raw_fd = fd;
	if (uetd_busy_poll_set(d, fd) < 0 ||
	    setsockopt(fd, SOL_XDP, XDP_RX_RING, &ring, sizeof(ring)) < 0 ||
	    setsockopt(fd, SOL_XDP, XDP_TX_RING, &ring, sizeof(ring)) < 0 ||
	    (own_rings &&
	     (setsockopt(fd, SOL_XDP, XDP_UMEM_FILL_RING, &fill,
			 sizeof(fill)) < 0 ||
	      setsockopt(fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &comp,
			 sizeof(comp)) < 0)) ||
	    bind(fd, (struct sockaddr *)&sxdp, sizeof(sxdp)) < 0 ||
	    getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen) < 0)
		return -errno;
	dq->raw_map[0] = uetd_map_ring(fd, XDP_PGOFF_RX_RING, &off.rx,
				       l->ring_size, sizeof(struct xdp_desc),
				       &dq->raw_len[0]);
	dq->raw_map[1] = uetd_map_ring(fd, XDP_PGOFF_TX_RING, &off.tx,
				       l->ring_size, sizeof(struct xdp_desc),
				       &dq->raw_len[1]);
	dq->raw_map[2] = uetd_map_ring(fd, XDP_UMEM_PGOFF_FILL_RING, &off.fr,
				       l->rx_chunks, sizeof(uint64_t),
				       &dq->raw_len[2]);
	dq->raw_map[3] = uetd_map_ring(fd, XDP_UMEM_PGOFF_COMPLETION_RING,
				       &off.cr, (uint32_t)comp,
				       sizeof(uint64_t), &dq->raw_len[3]);
	for (int i = 0; i < 4; i++)
		if (!dq->raw_map[i])
			return -errno;
	UETD_RING_SET(&dq->rx, dq->raw_map[0], &off.rx, l->ring_size);
	UETD_RING_SET(&dq->tx, dq->raw_map[1], &off.tx, l->ring_size);
	dq->tx.cached_cons += l->ring_size;	/* free slots, as libxdp */
	UETD_RING_SET(&dq->fill, dq->raw_map[2], &off.fr, l->rx_chunks);
	dq->fill.cached_cons += l->rx_chunks;
	UETD_RING_SET(&dq->comp, dq->raw_map[3], &off.cr, (uint32_t)comp);
	return 0;
}

void uetd_takeover_socket_close(struct uetd_queue *dq)
{
	for (int i = 0; i < 4; i++) {
		if (dq->raw_map[i])
			munmap(dq->raw_map[i], dq->raw_len[i]);
		dq->raw_map[i] = NULL;
	}
	if (dq->raw_fd >= 0)
		close(dq->raw_fd);
	dq->raw_fd = -1;
}

/* The service's socket on queue offset |q| is in the program's map. */
static int uetd_takeover_svc_key(struct uetd *d, uint32_t q)
{
	uint32_t key = UET_XDP_SVC_KEY(q);
	int fd = uetd_dev_fd(d, q);

	return bpf_map_update_elem(d->maps.xsks, &key, &fd, BPF_ANY) < 0 ?
	       -errno : 0;
}

static bool uetd_same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * The first endpoint back: its UMEM and control block become ours, and a
 * socket of ours joins the pool of its queue. 0 or -errno, why in d->why.
 */
static int uetd_adopt_try(struct uetd *d,
			  const struct uet_dev_reattach_req *r, const int *fds)
{
	const struct uet_dev_layout *l = &r->layout;
	size_t area_len = (size_t)l->chunks * UET_XSK_CHUNK_LEN;
	uint32_t q = r->queue_id - d->queue_id, opts_len;
	struct xdp_options opts;
	struct stat sb = { 0 };
	int ret;

	/* 1024: every service's ring size (uetd_layout_init). */
	if (l->chunk_len != UET_XSK_CHUNK_LEN || !l->max_eps ||
	    l->max_eps > UET_FEP_MAX_EPS || l->ring_size != 1024 ||
	    !l->tx_chunks || l->chunks != l->rx_chunks +
	    l->max_eps * l->tx_chunks || q >= d->queues ||
	    fstat(fds[1], &sb) < 0 || (size_t)sb.st_size != area_len) {
		snprintf(d->why, sizeof(d->why), "its layout or UMEM does not "
			 "match (queue %u, %zu bytes)", r->queue_id,
			 (size_t)sb.st_size);
		return -EPROTO;
	}
	d->layout = *l;
	d->shm_len = uet_dev_shm_len(l->max_eps, l->tx_chunks, l->rx_chunks);
	d->area = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fds[1], 0);
	d->shm = mmap(NULL, d->shm_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fds[2], 0);
	if (d->area == MAP_FAILED || d->shm == MAP_FAILED ||
	    d->shm->magic != UET_DEV_SHM_MAGIC ||
	    d->shm->max_eps != l->max_eps || d->shm->ep_bits != l->ep_bits ||
	    d->shm->tx_chunks != l->tx_chunks ||
	    d->shm->rx_chunks != l->rx_chunks) {
		if (d->area == MAP_FAILED)
			d->area = NULL;
		if (d->shm == MAP_FAILED)
			d->shm = NULL;
		snprintf(d->why, sizeof(d->why), "its control block does not "
			 "match its layout");
		return -EPROTO;
	}
	d->umem_fd = fcntl(fds[1], F_DUPFD_CLOEXEC, 3);
	d->shm_fd = fcntl(fds[2], F_DUPFD_CLOEXEC, 3);
	if (d->umem_fd < 0 || d->shm_fd < 0)
		return -errno;
	opts_len = sizeof(opts);
	if (getsockopt(fds[0], SOL_XDP, XDP_OPTIONS, &opts,
		       (socklen_t *)&opts_len) == 0)
		d->zero_copy = opts.flags & XDP_OPTIONS_ZEROCOPY;
	ret = uetd_takeover_socket(d, q, fds[0], false);
	if (ret < 0) {
		snprintf(d->why, sizeof(d->why), "a socket on its pool (queue "
			 "%u): %s", r->queue_id, strerror(-ret));
		return ret;
	}
	d->tx_pool = calloc(l->tx_chunks, sizeof(*d->tx_pool));
	if (!d->tx_pool)
		return -ENOMEM;
	/*
	 * Index 0's chunks are ours again, all of them, once none can come
	 * back: what the dead service had sent is in the completion ring or
	 * in index 0's mailbox, both emptied here (its own rings went).
	 */
	if (uet_dev_shm_lock(d->shm) == 0) {
		uint32_t cnt = 0;

		uet_dev_shm_reap(d->shm, &d->q[q].comp,
				 (uint64_t)l->rx_chunks * UET_XSK_CHUNK_LEN,
				 UET_FEP_EP_SERVICE, d->tx_pool, &cnt);
		d->shm->slot[UET_FEP_EP_SERVICE].mbox_tail =
			d->shm->slot[UET_FEP_EP_SERVICE].mbox_head;
		d->shm->slot[UET_FEP_EP_SERVICE].state = UET_DEV_SLOT_ACTIVE;
		uet_dev_shm_unlock(d->shm);
	}
	for (uint32_t i = 0; i < l->tx_chunks; i++)
		d->tx_pool[i] = (uint64_t)(l->rx_chunks + i) *
				UET_XSK_CHUNK_LEN;
	d->tx_pool_cnt = l->tx_chunks;
	d->mtu = uet_nl_if_mtu(d->ifindex);
	d->adopting = false;
	d->adopted = true;
	d->orphans_at = uetd_now_ns() + UETD_TAKEOVER_WAIT_NS;
	uetd_log(d, "took over %s: %u endpoints, %u MiB UMEM, queue %u from "
		 "the pool its endpoints kept", d->ifname, l->max_eps - 1,
		 (unsigned)(area_len >> 20), r->queue_id);
	return uetd_takeover_svc_key(d, q);
}

/* uetd_adopt_try(), and what it got undone when it fails. */
static int uetd_adopt(struct uetd *d, const struct uet_dev_reattach_req *r,
		      const int *fds)
{
	int ret = uetd_adopt_try(d, r, fds);

	if (ret == 0)
		return 0;
	for (uint32_t q = 0; q < UET_XDP_MAX_QUEUES; q++)
		uetd_takeover_socket_close(&d->q[q]);
	uetd_dev_unmap(d);	/* d->layout is r's once the area is mapped */
	free(d->tx_pool);
	d->tx_pool = NULL;
	d->tx_pool_cnt = 0;
	memset(&d->layout, 0, sizeof(d->layout));
	d->adopted = false;
	d->adopting = true;	/* another endpoint may bring better */
	return ret;
}

static void uetd_reattach_refuse(struct uetd *d, int conn, int err,
				 const char *why)
{
	struct uet_dev_open_rep rep = { .status = -err };

	snprintf(rep.msg, sizeof(rep.msg), "%s", why);
	if (err != EAGAIN)
		uetd_log(d, "refused a returning endpoint: %s", why);
	uetd_send(conn, &rep, sizeof(rep), NULL, 0);
}

/* Checks of a returning endpoint |r| on a service that has adopted. */
static int uetd_reattach_check(struct uetd *d, const struct ucred *cr,
			       const struct uet_dev_reattach_req *r,
			       const int *fds, char *why, size_t why_len)
{
	int domain = 0;
	socklen_t len = sizeof(domain);
	uid_t owner = 0;
	int pol;

	if (r->ep < 1 || r->ep >= d->layout.max_eps ||
	    memcmp(&r->layout, &d->layout, sizeof(r->layout)) ||
	    r->queue_id - d->queue_id >= d->queues)
		return snprintf(why, why_len, "index %u, its layout or its "
				"queue %u are not this service's", r->ep,
				r->queue_id), -EPROTO;
	if (!uetd_same_file(fds[1], d->umem_fd) ||
	    !uetd_same_file(fds[2], d->shm_fd) ||
	    getsockopt(fds[0], SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0 ||
	    domain != AF_XDP)
		return snprintf(why, why_len, "it holds another UMEM, control "
				"block or socket than the others"), -EPROTO;
	if (d->eps[r->ep].conn >= 0 ||
	    d->shm->slot[r->ep].state != UET_DEV_SLOT_ACTIVE ||
	    r->hdr.pid_on_fep > UET_SES_PID_ON_FEP_MAX ||
	    d->shm->pid_ep[r->hdr.pid_on_fep] != r->ep)
		return snprintf(why, why_len, "index %u (PIDonFEP %u) is not "
				"one waiting for its owner", r->ep,
				r->hdr.pid_on_fep), -EADDRINUSE;
	pol = uetd_policy_check(r->hdr.job_id, cr->uid, cr->gid);
	if (pol == 0 || (pol < 0 && !uetd_job_allowed(d, r->hdr.job_id,
						       cr->uid, &owner)))
		return snprintf(why, why_len, "uid %u may not use JobID %u "
				"(now)", cr->uid, r->hdr.job_id), -EACCES;
	return 0;
}

void uetd_takeover_reattach(struct uetd *d, int conn,
			    const struct uet_dev_reattach_req *r,
			    const int *fds)
{
	struct uet_dev_open_rep rep = { 0 };
	struct ucred cr;
	socklen_t len = sizeof(cr);
	uint32_t q = r->queue_id - d->queue_id;
	char why[128];
	int ret;

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return uetd_reattach_refuse(d, conn, EACCES, "no credentials");
	if (r->ifindex != (uint32_t)d->ifindex) {
		snprintf(why, sizeof(why), "%s is another interface now "
			 "(ifindex %u, was %u): open a new endpoint",
			 d->ifname, d->ifindex, r->ifindex);
		return uetd_reattach_refuse(d, conn, ESTALE, why);
	}
	if (!d->adopted && !d->adopting)
		return uetd_reattach_refuse(d, conn, ESTALE, "this service "
					    "started afresh: the endpoint's "
					    "pool is not its own");
	if (!d->adopted) {
		ret = uetd_adopt(d, r, fds);
		if (ret < 0) {
			snprintf(why, sizeof(why), "cannot take over: %.100s",
				 d->why);
			return uetd_reattach_refuse(d, conn, -ret, why);
		}
	}
	ret = uetd_reattach_check(d, &cr, r, fds, why, sizeof(why));
	if (ret < 0)
		return uetd_reattach_refuse(d, conn, -ret, why);
	/* Its queue's first endpoint back: our socket joins that pool. */
	if (uetd_dev_fd(d, q) < 0) {
		ret = uetd_takeover_socket(d, q, fds[0], false);
		if (ret == 0)
			ret = uetd_takeover_svc_key(d, q);
		if (ret < 0) {
			uetd_takeover_socket_close(&d->q[q]);
			return uetd_reattach_refuse(d, conn, -ret,
						    "no socket on its queue");
		}
	}
	ret = uetd_dev_ep_adopt(d, r->ep, q, fds[0]);
	if (ret < 0)
		return uetd_reattach_refuse(d, conn, -ret, "its rx ring");
	if (uet_dev_shm_lock(d->shm) == 0) {
		d->shm->slot[r->ep].owner_pid = (uint32_t)cr.pid;
		d->shm->slot[r->ep].owner_start = uetd_proc_start(cr.pid);
		uet_dev_shm_unlock(d->shm);
	}
	d->eps[r->ep].conn = conn;
	d->eps[r->ep].pid = cr.pid;
	d->eps[r->ep].uid = cr.uid;
	d->eps[r->ep].gid = cr.gid;
	d->eps[r->ep].job_id = r->hdr.job_id;
	d->eps[r->ep].pid_on_fep = r->hdr.pid_on_fep;
	d->eps[r->ep].rest_until = 0;
	uetd_steer_set(d, r->hdr.pid_on_fep, r->hdr.job_id, (uint16_t)r->ep);
	uetd_tss_ep_changed(d, r->ep);
	d->reattached++;
	rep.ep = r->ep;
	rep.pid_on_fep = r->hdr.pid_on_fep;
	rep.udp_port = d->udp_port;
	rep.job_id = r->hdr.job_id;
	rep.ifindex = (uint32_t)d->ifindex;
	rep.queue_id = r->queue_id;
	rep.layout = d->layout;
	uetd_log(d, "endpoint %u came back: PIDonFEP %u, JobID %u, process "
		 "%d, uid %u", r->ep, r->hdr.pid_on_fep, r->hdr.job_id, cr.pid,
		 cr.uid);
	if (uetd_send(conn, &rep, sizeof(rep), NULL, 0) < 0)
		uetd_ep_close(d, r->ep);
}

/* Whether the owner recorded in slot |ep| still runs. */
static bool uetd_owner_lives(const struct uetd *d, uint32_t ep)
{
	const struct uet_dev_shm_slot *sl = &d->shm->slot[ep];

	return sl->owner_pid && sl->owner_start &&
	       uetd_proc_start((pid_t)sl->owner_pid) == sl->owner_start;
}

/*
 * After a takeover, once a second: indices in use whose owner has not come
 * back. Gone owners' are freed as a closed endpoint's are (their receive
 * chunks held and queued to them go back; what was in their rx ring is
 * lost: no one mapped it); living owners' stay reserved. Queues no
 * endpoint brought back get a socket with rings of their own.
 */
void uetd_takeover_tick(struct uetd *d)
{
	uint64_t now = uetd_now_ns();
	uint32_t first_q = d->queues;

	if (!d->adopted || now < d->orphans_at)
		return;
	d->orphans_at = now + 1000000000ull;
	for (uint32_t q = 0; q < d->queues; q++)
		if (uetd_dev_fd(d, q) >= 0 && first_q == d->queues)
			first_q = q;
	for (uint32_t q = 0; q < d->queues; q++) {
		if (uetd_dev_fd(d, q) >= 0)
			continue;
		if (uetd_takeover_socket(d, q, uetd_dev_fd(d, first_q),
					 true) < 0 ||
		    uetd_takeover_svc_key(d, q) < 0) {
			/* Endpoints there still: theirs, when they come. */
			uetd_takeover_socket_close(&d->q[q]);
			continue;
		}
		if (uet_dev_shm_lock(d->shm) == 0) {
			uet_dev_shm_fill(d->shm, &d->q[q].fill, NULL, 0);
			uet_dev_shm_unlock(d->shm);
		}
	}
	for (uint32_t i = 1; i < d->layout.max_eps; i++) {
		struct uetd_ep *e = &d->eps[i];

		if (e->conn >= 0 ||
		    d->shm->slot[i].state != UET_DEV_SLOT_ACTIVE ||
		    uetd_owner_lives(d, i))
			continue;
		for (uint32_t p = 0; p < UETD_PIDS; p++)
			if (d->shm->pid_ep[p] == i)
				uetd_steer_set(d, (uint16_t)p, 0, 0);
		if (uet_dev_shm_lock(d->shm) == 0) {
			d->shm->slot[i].state = UET_DEV_SLOT_QUARANTINE;
			uet_dev_shm_unlock(d->shm);
		}
		e->queue = first_q;
		e->rest_until = now + UETD_SLOT_REST_NS;
		d->orphans_freed++;
		/* One fewer awaited: an SD's steering may change. */
		uetd_tss_ep_changed(d, i);
		uetd_log(d, "endpoint %u did not come back (process %u is "
			 "gone): its index rests", i,
			 d->shm->slot[i].owner_pid);
	}
}

int uetd_dev_ep_adopt(struct uetd *d, uint32_t ep, uint32_t q, int fd)
{
	struct uetd_ep *e = &d->eps[ep];
	struct xdp_mmap_offsets off;
	socklen_t optlen = sizeof(off);
	uint32_t key = ep, ring = d->layout.ring_size;

	/* Its rx ring, as uetd_dev_ep_socket() keeps it (Linux 6.4 on). */
	if (getsockopt(fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen) < 0)
		return -errno;
	e->rx_map = uetd_map_ring(fd, XDP_PGOFF_RX_RING, &off.rx, ring,
				  sizeof(struct xdp_desc), &e->rx_map_len);
	if (!e->rx_map)
		return -errno;
	e->rx.producer = (void *)((uint8_t *)e->rx_map + off.rx.producer);
	e->rx.consumer = (void *)((uint8_t *)e->rx_map + off.rx.consumer);
	e->rx.ring = (uint8_t *)e->rx_map + off.rx.desc;
	e->rx.mask = ring - 1;
	e->rx.size = ring;
	e->queue = q;
	/* Both there already (the kernel keeps them): made sure of. */
	if (bpf_map_update_elem(d->ep_queue_map, &key, &q, BPF_ANY) < 0 ||
	    bpf_map_update_elem(d->maps.xsks, &key, &fd, BPF_ANY) < 0) {
		int err = errno;

		munmap(e->rx_map, e->rx_map_len);
		e->rx_map = NULL;
		return -err;
	}
	return 0;
}
