/* SPDX-License-Identifier: BSD-2-Clause */
/* The application's side of the device service (uet_dev_client.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "dev/uet_dev_client.h"
#include "dev/uet_xsk.h"

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

ssize_t uet_dev_call(int conn, const struct uet_dev_req *req, void *rep,
		     size_t rep_len, int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(8 * sizeof(int))];
	struct iovec iov = { rep, rep_len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
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
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		int got;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		got = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (int i = 0; i < got; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (i < nfds)
				fds[i] = fd;
			else
				close(fd);
		}
	}
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
	if (why_len)
		why[0] = '\0';
	ep->conn = uet_dev_connect(ifname);
	if (ep->conn < 0) {
		int err = ep->conn;

		if (why_len)
			snprintf(why, why_len, err == -ENOENT ?
				 "no uet service on %s (run: uetctl load %s)" :
				 "cannot reach the uet service of %s: %s",
				 ifname, err == -ENOENT ? ifname :
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
