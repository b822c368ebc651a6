/* SPDX-License-Identifier: BSD-2-Clause */
/* The application's side of the device service (uet_dev_client.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "dev/uet_dev_client.h"
#include "dev/uet_xsk.h"

/*
 * The UMEM and control block kept for a reattach (uet_dev_ep_watch): one
 * copy per file in the process, shared by its endpoints, so that one with
 * hundreds of endpoints on an interface holds two more fds, not hundreds.
 */
#define UET_DEV_KEPT_MAX	32

static struct {
	dev_t dev;
	ino_t ino;
	int fd;
	uint32_t refs;
} uet_dev_kept[UET_DEV_KEPT_MAX];
static pthread_mutex_t uet_dev_kept_lock = PTHREAD_MUTEX_INITIALIZER;

/* A kept copy of |fd|'s file (shared), or -1 when none can be had. */
static int uet_dev_keep(int fd)
{
	struct stat sb;
	int i, kept = -1, free_i = -1;

	if (fstat(fd, &sb) < 0)
		return -1;
	pthread_mutex_lock(&uet_dev_kept_lock);
	for (i = 0; i < UET_DEV_KEPT_MAX; i++) {
		if (uet_dev_kept[i].refs && uet_dev_kept[i].dev == sb.st_dev &&
		    uet_dev_kept[i].ino == sb.st_ino) {
			uet_dev_kept[i].refs++;
			kept = uet_dev_kept[i].fd;
			break;
		}
		if (!uet_dev_kept[i].refs && free_i < 0)
			free_i = i;
	}
	if (kept < 0 && free_i >= 0) {
		kept = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (kept >= 0) {
			uet_dev_kept[free_i].dev = sb.st_dev;
			uet_dev_kept[free_i].ino = sb.st_ino;
			uet_dev_kept[free_i].fd = kept;
			uet_dev_kept[free_i].refs = 1;
		}
	}
	pthread_mutex_unlock(&uet_dev_kept_lock);
	return kept;
}

static void uet_dev_unkeep(int fd)
{
	pthread_mutex_lock(&uet_dev_kept_lock);
	for (int i = 0; i < UET_DEV_KEPT_MAX; i++)
		if (uet_dev_kept[i].refs && uet_dev_kept[i].fd == fd &&
		    !--uet_dev_kept[i].refs)
			close(fd);
	pthread_mutex_unlock(&uet_dev_kept_lock);
}

/* The kept copies of |ep| let go of. */
static void uet_dev_ep_unkeep(struct uet_dev_ep *ep)
{
	if (ep->umem_fd >= 0)
		uet_dev_unkeep(ep->umem_fd);
	if (ep->shm_fd >= 0)
		uet_dev_unkeep(ep->shm_fd);
	ep->umem_fd = ep->shm_fd = -1;
	ep->fds_kept = false;
}

int uet_dev_connect(const char *ifname)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd, n;

	/* Abstract: a NUL first, the name after it, no terminator. */
	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     UET_DEV_SOCK_FMT, ifname);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path) - 1)
		return -ENAMETOOLONG;
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, len) < 0) {
		int err = errno == ECONNREFUSED ? ENOENT : errno;

		close(fd);
		return -err;
	}
	return fd;
}

void uet_dev_take_fds(struct msghdr *mh, int *fds, int nfds)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c;
	     c = CMSG_NXTHDR(mh, c)) {
		int got;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		got = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (int i = 0; i < got; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (i < nfds && fds[i] < 0)
				fds[i] = fd;
			else
				close(fd);
		}
	}
}

ssize_t uet_dev_call(int conn, const struct uet_dev_req *req, void *rep,
		     size_t rep_len, int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(8 * sizeof(int))];
	struct iovec iov = { rep, rep_len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	ssize_t n;

	for (int i = 0; i < nfds; i++)
		fds[i] = -1;
	if (nfds > 8)
		return -EINVAL;
	if (send(conn, req, sizeof(*req), MSG_NOSIGNAL) != sizeof(*req))
		return -errno;
	do
		n = recvmsg(conn, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	uet_dev_take_fds(&mh, fds, nfds);
	return n;
}

int uet_dev_ep_open(const char *ifname, uint32_t job_id, uint16_t pid_on_fep,
		    uint32_t queue, struct uet_dev_ep *ep, char *why,
		    size_t why_len)
{
	struct uet_dev_req req = { .version = UET_DEV_PROTO_VERSION,
				   .type = UET_DEV_OPEN, .job_id = job_id,
				   .pid_on_fep = pid_on_fep, .queue = queue };
	struct uet_xsk_shared sh;
	int fds[3];
	ssize_t n;

	memset(ep, 0, sizeof(*ep));
	ep->umem_fd = ep->shm_fd = -1;
	if (why_len)
		why[0] = '\0';
	ep->conn = uet_dev_connect(ifname);
	if (ep->conn < 0) {
		int err = ep->conn;

		if (why_len && err == -ENOENT)
			snprintf(why, why_len, "no uet device service (uetd) "
				 "on %s: run `uetctl load %s` or `systemctl "
				 "start uetd@%s`", ifname, ifname, ifname);
		else if (why_len)
			snprintf(why, why_len, "cannot reach the uet device "
				 "service (uetd) of %s: %s", ifname,
				 strerror(-err));
		return err;
	}
	n = uet_dev_call(ep->conn, &req, &ep->rep, sizeof(ep->rep), fds, 3);
	if (n < 0 || (size_t)n != sizeof(ep->rep) ||
	    (ep->rep.status == 0 && (fds[0] < 0 || fds[1] < 0 || fds[2] < 0)))
		ep->rep.status = n < 0 ? (int32_t)n : -EPROTO;
	if (ep->rep.status < 0) {
		int err = ep->rep.status;

		for (int i = 0; i < 3; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		if (why_len)
			snprintf(why, why_len, "%s", ep->rep.msg[0] ?
				 ep->rep.msg : strerror(-err));
		close(ep->conn);
		ep->conn = -1;
		return err;
	}
	snprintf(ep->ifname, sizeof(ep->ifname), "%s", ifname);
	/* Copies kept for a new service, should this one go away. */
	ep->umem_fd = uet_dev_keep(fds[1]);
	ep->shm_fd = uet_dev_keep(fds[2]);
	ep->fds_kept = ep->umem_fd >= 0 && ep->shm_fd >= 0;
	if (!ep->fds_kept)
		uet_dev_ep_unkeep(ep);
	sh = (struct uet_xsk_shared){ .xsk_fd = fds[0], .umem_fd = fds[1],
				      .shm_fd = fds[2], .ep = ep->rep.ep,
				      .layout = &ep->rep.layout };
	ep->ep_bits = ep->rep.layout.ep_bits;	/* checked by the attach */
	ep->xsk = uet_xsk_attach(&sh);
	if (!ep->xsk) {
		int err = errno;

		if (why_len)
			snprintf(why, why_len, err == EOPNOTSUPP ?
				 "this kernel cannot map a shared UMEM's fill "
				 "and completion rings after bind (needs Linux "
				 "6.4: xsk: allow remap of fill and/or "
				 "completion rings)" : "attach: %s",
				 strerror(err));
		close(ep->conn);
		ep->conn = -1;
		uet_dev_ep_unkeep(ep);
		return -err;
	}
	return 0;
}

void uet_dev_ep_close(struct uet_dev_ep *ep)
{
	uet_xsk_destroy(ep->xsk);
	ep->xsk = NULL;
	if (ep->conn >= 0)
		close(ep->conn);
	ep->conn = -1;
	if (ep->fds_kept)
		uet_dev_ep_unkeep(ep);
}

/* Whether the service closed |conn| (it went away). */
static bool uet_dev_conn_gone(int conn)
{
	struct pollfd p = { conn, POLLIN, 0 };
	char c;

	if (poll(&p, 1, 0) <= 0)
		return false;
	if (p.revents & (POLLHUP | POLLERR))
		return true;
	return (p.revents & POLLIN) &&
	       recv(conn, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* How long a reattach waits for the service's answer: it answers at once. */
#define UET_DEV_REATTACH_WAIT_MS	200

/* One try: 0, or -errno (-EAGAIN, -ENOENT: try again). */
static int uet_dev_reattach(struct uet_dev_ep *ep)
{
	struct uet_dev_reattach_req req = {
		.hdr = { .version = UET_DEV_PROTO_VERSION,
			 .type = UET_DEV_REATTACH, .job_id = ep->rep.job_id,
			 .pid_on_fep = ep->rep.pid_on_fep,
			 .queue = ep->rep.queue_id },
		.ep = ep->rep.ep, .ifindex = ep->rep.ifindex,
		.queue_id = ep->rep.queue_id, .udp_port = ep->rep.udp_port,
		.layout = ep->rep.layout };
	int fds[3] = { uet_xsk_fd(ep->xsk), ep->umem_fd, ep->shm_fd };
	char cbuf[CMSG_SPACE(sizeof(fds))] = { 0 };
	struct iovec iov = { &req, sizeof(req) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	struct uet_dev_open_rep rep;
	struct pollfd p;
	int conn = uet_dev_connect(ep->ifname);
	ssize_t n;

	if (conn < 0)
		return conn;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	p = (struct pollfd){ conn, POLLIN, 0 };
	if (sendmsg(conn, &mh, MSG_NOSIGNAL) != (ssize_t)sizeof(req))
		n = -errno;
	else if (poll(&p, 1, UET_DEV_REATTACH_WAIT_MS) <= 0)
		n = -EAGAIN;
	else if ((n = recv(conn, &rep, sizeof(rep), MSG_DONTWAIT)) < 0)
		n = -errno;	/* ECONNRESET: a service on its way out */
	if (n == (ssize_t)sizeof(rep) && rep.status == 0) {
		ep->conn = conn;
		return 0;
	}
	close(conn);
	if (n == (ssize_t)sizeof(rep))
		return rep.status < 0 ? rep.status : -EPROTO;
	return n < 0 ? (int)n : -ECONNRESET;
}

bool uet_dev_reattach_gives_up(int err)
{
	switch (err) {
	case -EACCES:		/* the service's socket or policy refuses us */
	case -EPERM:
	case -EADDRINUSE:	/* our PIDonFEP went to another endpoint */
	case -EPROTO:		/* another protocol, or what we bring is not */
	case -EPROTONOSUPPORT:	/* what it checks (uetd_takeover.c) */
	case -EINVAL:
	case -EBADF:
		return true;
	default:		/* no service yet, one not ready, or short */
		return false;
	}
}

int uet_dev_ep_watch(struct uet_dev_ep *ep, uint64_t now_ns)
{
	int ret;

	if (ep->gave_up)
		return ep->gave_up;
	if (ep->conn >= 0) {
		if (!uet_dev_conn_gone(ep->conn))
			return 0;
		close(ep->conn);
		ep->conn = -1;
		ep->detached++;
		ep->tries = 0;
		ep->retry_at_ns = now_ns;
	}
	if (!ep->fds_kept || !ep->xsk) {
		ep->gave_up = -EBADF;
		return ep->gave_up;
	}
	if (now_ns < ep->retry_at_ns)
		return -ENOTCONN;
	ret = uet_dev_reattach(ep);
	if (getenv("UET_ENGINE_DEBUG"))
		fprintf(stderr, "uet: reattach to the service of %s: %s\n",
			ep->ifname, ret ? strerror(-ret) : "ok");
	if (ret == 0) {
		ep->reattached++;
		return 1;
	}
	ep->retry_at_ns = now_ns + UET_DEV_REATTACH_NS;
	if (uet_dev_reattach_gives_up(ret))
		ep->gave_up = ret;
	else if (++ep->tries >= UET_DEV_REATTACH_TRIES)
		ep->gave_up = -ETIMEDOUT;
	return ep->gave_up ? ep->gave_up : -ENOTCONN;
}

int uet_dev_tss_keys(int conn, struct uet_tss_sd_keys *keys, char *why,
		     size_t why_len)
{
	struct uet_dev_req req = { .version = UET_DEV_PROTO_VERSION,
				   .type = UET_DEV_TSS };
	struct uet_dev_tss_rep rep;
	ssize_t n;
	int err;

	if (why_len)
		why[0] = '\0';
	memset(&rep, 0, sizeof(rep));
	n = uet_dev_call(conn, &req, &rep, sizeof(rep), NULL, 0);
	err = n < 0 ? (int)n : (size_t)n != sizeof(rep) ? -EPROTO :
	      rep.status > 0 ? -EPROTO : rep.status;
	if (err == 0)
		*keys = rep.keys;
	else if (why_len)
		snprintf(why, why_len, "%s", rep.status < 0 && rep.msg[0] ?
			 rep.msg : strerror(-err));
	/* The keys live in |keys| only: none left on the stack. */
	explicit_bzero(&rep, sizeof(rep));
	return err;
}
