/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd IFACE [--mode native|skb] [--port N] [--queue Q] [--queues N]
 *      [--endpoints N] [--tx-chunks N]
 *            [--policy FILE] [--tss-keys FILE] [--tss-state FILE]
 *            [--foreground] [--ready-fd FD]
 *
 * The device service of one interface (tools/uetd.h). `uetctl load IFACE`
 * starts it and waits until it serves; `uetctl unload IFACE` stops it. Run
 * with --foreground under a service manager (systemd: tools/uetd@.service).
 * Without it, it detaches once ready and logs to syslog. SIGHUP reads
 * the TSS key file again (tools/uetd_tss.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "dev/uet_dev_client.h"
#include "dev/uet_dev_opts.h"
#include "tools/uetd.h"
#include "uet_wire.h"

static volatile sig_atomic_t uetd_signalled, uetd_hup;

uint64_t uetd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void uetd_log(struct uetd *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (d->foreground) {
		fprintf(stderr, "uetd %s: ", d->ifname);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		vsyslog(LOG_INFO, fmt, ap);
	}
	va_end(ap);
}

int uetd_send(int conn, const void *buf, size_t len, const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(8 * sizeof(int))] = { 0 };
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds > 0) {
		struct cmsghdr *c;

		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	return sendmsg(conn, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 ? -errno : 0;
}

static int uetd_listen(struct uetd *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, n;

	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1,
		     UET_DEV_SOCK_FMT, d->ifname);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) <
	    0 || listen(fd, (int)UET_FEP_MAX_EPS) < 0) {
		int err = errno;

		close(fd);
		return err == EADDRINUSE ? -EEXIST : -err;
	}
	d->lsock = fd;
	return 0;
}

/* Only root (or the user who started us) may stop the service. */
static bool uetd_may_stop(int conn)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
	       (cred.uid == 0 || cred.uid == geteuid());
}

/*
 * One message on |conn| into |buf| (|len| bytes at most), with up to 3
 * fds into |fds| (-1 where none came; more are closed). Its length or
 * -errno.
 */
static ssize_t uetd_recv(int conn, void *buf, size_t len, int *fds)
{
	char cbuf[CMSG_SPACE(8 * sizeof(int))];
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	ssize_t n = recvmsg(conn, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	fds[0] = fds[1] = fds[2] = -1;
	if (n < 0)
		return -errno;
	uet_dev_take_fds(&mh, fds, 3);
	return n;
}

static void uetd_close_fds(int *fds)
{
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/*
 * While waiting for endpoints to take over from (uetd_takeover.c) there
 * is no UMEM to give out yet: a new endpoint is told to come back.
 */
static void uetd_open_later(struct uetd *d, int conn)
{
	struct uet_dev_open_rep rep = { .status = -EAGAIN };

	snprintf(rep.msg, sizeof(rep.msg), "the uet device service (uetd) of "
		 "%s is taking over from one that went away: try again in a "
		 "second", d->ifname);
	uetd_send(conn, &rep, sizeof(rep), NULL, 0);
}

/* One request on a connection that holds no endpoint; false: close it. */
static bool uetd_request(struct uetd *d, int conn)
{
	union {
		struct uet_dev_req req;
		struct uet_dev_reattach_req reattach;
	} m;
	int fds[3];
	ssize_t n = uetd_recv(conn, &m, sizeof(m), fds);
	const struct uet_dev_req *req = &m.req;

	if (n == -EAGAIN || n == -EINTR)
		return true;
	if (n == (ssize_t)sizeof(m.reattach) &&
	    req->version == UET_DEV_PROTO_VERSION &&
	    req->type == UET_DEV_REATTACH && fds[2] >= 0) {
		uetd_takeover_reattach(d, conn, &m.reattach, fds);
		uetd_close_fds(fds);
		return true;	/* the endpoint (if back) holds it now */
	}
	uetd_close_fds(fds);
	if (n != sizeof(*req) || req->version != UET_DEV_PROTO_VERSION)
		return false;
	/* Nothing to show or give out before a takeover has its pool. */
	if (!d->shm && req->type != UET_DEV_STOP) {
		if (req->type == UET_DEV_OPEN)
			uetd_open_later(d, conn);
		return req->type == UET_DEV_OPEN;
	}
	switch (req->type) {
	case UET_DEV_OPEN:
		uetd_ep_open(d, conn, req);
		return true;	/* the endpoint (if any) holds it now */
	case UET_DEV_STATS:
		uetd_stats_reply(d, conn, req->flags);
		return true;
	case UET_DEV_TOP:
		uetd_top_reply(d, conn);
		return true;
	case UET_DEV_STOP: {
		int32_t st = -EPERM;

		/*
		 * Answered after the teardown (main), so that whoever asked
		 * finds the queue free: a socket bound to it at once would
		 * otherwise meet ours, still closing (EBUSY).
		 */
		if (uetd_may_stop(conn) && d->stop_conn < 0) {
			d->stop_conn = conn;
			d->stop = true;
			return true;
		}
		uetd_send(conn, &st, sizeof(st), NULL, 0);
		return true;
	}
	default:
		return false;
	}
}

/* Every endpoint's connection, and as many asking for one or for stats. */
#define UETD_MAX_CONNS	((int)(2 * UET_FEP_MAX_EPS))

struct uetd_conns {
	int fd[UETD_MAX_CONNS];
	int n;
};

/* Kept across the loops of a takeover's wait and of serving. */
static struct uetd_conns uetd_conns;

/*
 * One request on endpoint |ep|'s connection: its TSS keys, the only one
 * it may make there; false: close it (EOF, or anything else).
 */
static bool uetd_ep_request(struct uetd *d, int conn, uint32_t ep)
{
	struct uet_dev_req req;
	ssize_t n = recv(conn, &req, sizeof(req), MSG_DONTWAIT);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (n != sizeof(req) || req.version != UET_DEV_PROTO_VERSION ||
	    req.type != UET_DEV_TSS)
		return false;
	uetd_tss_request(d, ep);
	return true;
}

static int uetd_conn_ep(const struct uetd *d, int fd)
{
	for (uint32_t i = 1; i < d->layout.max_eps; i++)
		if (d->eps[i].conn == fd)
			return (int)i;
	return -1;
}

/*
 * Serves until asked to stop or signalled; while a takeover waits
 * (d->adopting), only until it has adopted or given up waiting.
 */
static void uetd_loop(struct uetd *d)
{
	static struct pollfd pfd[UETD_MAX_CONNS + 3 + UET_XDP_MAX_QUEUES];
	struct uetd_conns *c = &uetd_conns;
	bool waiting = d->adopting;

	while (!d->stop && !uetd_signalled) {
		int n = 0, ready, first_conn = 3 + (int)d->queues;

		if (waiting && (!d->adopting || uetd_now_ns() > d->adopt_until))
			return;
		pfd[n++] = (struct pollfd){ d->lsock, POLLIN, 0 };
		pfd[n++] = (struct pollfd){ d->nl_fd, POLLIN, 0 };
		pfd[n++] = (struct pollfd){ uetd_tss_ks_fd(d), POLLIN, 0 };
		/* A queue without a socket yet (a takeover): -1, skipped. */
		for (uint32_t q = 0; q < d->queues; q++)
			pfd[n++] = (struct pollfd){ d->shm ? uetd_dev_fd(d, q) :
						    -1, POLLIN, 0 };
		for (int i = 0; i < c->n; i++)
			pfd[n++] = (struct pollfd){ c->fd[i], POLLIN, 0 };
		ready = poll(pfd, (nfds_t)n, waiting ? 20 : 100);
		if (uetd_hup) {
			uetd_hup = 0;
			uetd_tss_reload(d);
		}
		if (pfd[1].revents & POLLIN)
			uetd_link_read(d);
		if (pfd[2].revents & POLLIN)
			uetd_tss_ks_serve(d);
		uetd_dev_rx(d);
		uetd_dev_fill_top_up(d);
		if (d->shm) {
			uetd_takeover_tick(d);
			uetd_ep_tick(d);
		}
		if (ready <= 0)
			continue;
		/* A job's ranks start at once: a batch of them a turn. */
		for (int k = 0; k < 32 && (pfd[0].revents & POLLIN); k++) {
			int fd = accept4(d->lsock, NULL, NULL,
					 SOCK_CLOEXEC | SOCK_NONBLOCK);

			if (fd < 0)
				break;
			if (c->n < UETD_MAX_CONNS)
				c->fd[c->n++] = fd;
			else
				close(fd);
		}
		for (int i = first_conn; i < n; i++) {
			int fd = pfd[i].fd, ep = uetd_conn_ep(d, fd);
			bool keep = true;

			if (!pfd[i].revents)
				continue;
			if (pfd[i].revents & (POLLHUP | POLLERR))
				keep = false;
			else if (ep < 0)
				keep = uetd_request(d, fd);
			else	/* its TSS keys; EOF ends it */
				keep = uetd_ep_request(d, fd, (uint32_t)ep);
			if (keep)
				continue;
			if (ep >= 0)
				uetd_ep_close(d, (uint32_t)ep);
			else
				close(fd);
			for (int k = 0; k < c->n; k++)
				if (c->fd[k] == fd)
					c->fd[k] = c->fd[--c->n];
		}
	}
}

/*
 * Leaving: with |keep_eps|, endpoints keep their index and steering for
 * the next service to take over (their connections close: they start to
 * look for it); else each is closed.
 */
static void uetd_loop_end(struct uetd *d, bool keep_eps)
{
	struct uetd_conns *c = &uetd_conns;

	for (uint32_t i = 1; i < d->layout.max_eps; i++) {
		if (!keep_eps) {
			uetd_ep_close(d, i);
		} else if (d->eps[i].conn >= 0) {
			close(d->eps[i].conn);
			d->eps[i].conn = -1;
		}
	}
	for (int k = 0; k < c->n; k++)
		if (uetd_conn_ep(d, c->fd[k]) < 0 && c->fd[k] != d->stop_conn)
			close(c->fd[k]);
	c->n = 0;
}

/*
 * A signal (SIGTERM: systemctl stop or restart, or a package upgrade)
 * with endpoints attached leaves the interface to them: the program stays
 * attached and the next service takes over. `uetctl unload` (STOP) and
 * the interface going away end everything.
 */
static bool uetd_leaves_eps(const struct uetd *d)
{
	if (d->iface_gone || d->stop_conn >= 0 || !d->shm)
		return false;
	for (uint32_t i = 1; i < d->layout.max_eps; i++)
		if (d->eps[i].conn >= 0 ||
		    d->shm->slot[i].state == UET_DEV_SLOT_ACTIVE)
			return true;
	return false;
}

static void uetd_on_signal(int sig)
{
	if (sig == SIGHUP)
		uetd_hup = 1;
	else
		uetd_signalled = 1;
}

static int uetd_silent(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

static int uetd_silent_xdp(enum libxdp_print_level l, const char *f,
			   va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

static void uetd_usage(void)
{
	fprintf(stderr, "usage: uetd IFACE [--mode native|skb] [--port N] "
		"[--queue Q] [--queues N] [--endpoints N] [--tx-chunks N] "
		"[--policy FILE] "
		"[--tss-keys FILE] [--tss-state FILE] [--busy-poll USEC[,BUDGET]] [--foreground] "
		"[--ready-fd FD]\n");
}

/* Tells the starter (uetctl load) how set-up went: 0 or -errno, text. */
static void uetd_ready(int fd, int err, const char *msg)
{
	char buf[160];
	int n;

	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%d %s", err, msg ? msg : "");
	if (write(fd, buf, (size_t)n) < 0) {
		/* the starter went away; nothing to tell */
	}
	close(fd);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "port", required_argument, NULL, 'p' },
		{ "queue", required_argument, NULL, 'q' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "endpoints", required_argument, NULL, 'e' },
		{ "tx-chunks", required_argument, NULL, 't' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "ready-fd", required_argument, NULL, 'r' },
		{ "policy", required_argument, NULL, 'P' },
		{ "busy-poll", required_argument, NULL, 'B' },
		{ "tss-keys", required_argument, NULL, 'K' },
		{ "tss-state", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	static struct uetd d;
	const char *policy = NULL, *tss_keys = NULL, *tss_state = NULL;
	int ready_fd = -1, c, ret;
	bool keep_eps;
	char *end;
	long v;

	d.mode = UET_XDP_MODE_NATIVE;
	d.udp_port = UET_UDP_PORT;
	d.queues = 1;
	d.umem_fd = d.shm_fd = d.pids_map = d.ep_queue_map = -1;
	d.lsock = d.stop_conn = d.nl_fd = d.wake_tx = -1;
	for (uint32_t q = 0; q < UET_XDP_MAX_QUEUES; q++)
		d.q[q].raw_fd = -1;
	d.next_auto_pid = UET_FEP_PID_AUTO_FIRST;
	for (uint32_t i = 0; i < UET_FEP_MAX_EPS; i++)
		d.eps[i].conn = -1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			d.mode = !strcmp(optarg, "skb") ? UET_XDP_MODE_SKB :
				 UET_XDP_MODE_NATIVE;
			break;
		case 'p':
			v = strtol(optarg, NULL, 10);
			if (v < 1 || v > 65535)
				return uetd_usage(), 2;
			d.udp_port = (uint16_t)v;
			break;
		case 'q':
			d.queue_id = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'Q':
			v = strtol(optarg, NULL, 10);
			if (v < 1 || v > UET_XDP_MAX_QUEUES)
				return uetd_usage(), 2;
			d.queues = (uint32_t)v;
			break;
		case 'e':
			/* N endpoints: indices 1..N, 0 the service's. */
			v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > UET_FEP_EPS_MAX)
				return uetd_usage(), 2;
			d.layout.max_eps = (uint32_t)v + 1;
			break;
		case 't':
			v = strtol(optarg, &end, 10);
			if (*end || v < UET_DEV_TX_CHUNKS_MIN ||
			    v > UET_DEV_TX_CHUNKS_MAX || (v & (v - 1)))
				return uetd_usage(), 2;
			d.layout.tx_chunks = (uint32_t)v;
			break;
		case 'f': d.foreground = true; break;
		case 'r': ready_fd = (int)strtol(optarg, NULL, 10); break;
		case 'P': policy = optarg; break;
		case 'K': tss_keys = optarg; break;
		case 'S': tss_state = optarg; break;
		case 'B':
			if (!uet_dev_busy_poll_parse(optarg, &d.busy_poll_us,
						     &d.busy_poll_budget))
				return uetd_usage(), 2;
			break;
		default: return uetd_usage(), 2;
		}
	}
	if (optind + 1 != argc || strlen(argv[optind]) >= IF_NAMESIZE)
		return uetd_usage(), 2;
	strcpy(d.ifname, argv[optind]);
	libbpf_set_print(uetd_silent);
	libxdp_set_print(uetd_silent_xdp);
	if (!d.foreground)
		openlog("uetd", LOG_PID, LOG_DAEMON);
	d.ifindex = (int)if_nametoindex(d.ifname);
	ret = d.ifindex ? 0 : -ENODEV;
	/* The socket first: it is also the lock against a second service. */
	if (ret == 0)
		ret = uetd_listen(&d);
	if (ret == 0 && geteuid() != 0)
		ret = -EPERM;
	if (ret == 0)
		ret = uetd_policy_load(&d, policy ? policy : UETD_POLICY_FILE,
				       policy != NULL);
	/* Keys before the device: a bad file attaches nothing. */
	if (ret == 0)
		ret = uetd_tss_init(&d, tss_keys, tss_state);
	signal(SIGTERM, uetd_on_signal);
	signal(SIGINT, uetd_on_signal);
	signal(SIGHUP, uetd_on_signal);
	signal(SIGPIPE, SIG_IGN);
	/* Link events before the device: none is missed in between. */
	if (ret == 0)
		ret = uetd_link_open(&d);
	/*
	 * Our program still attached: a service went away and its
	 * endpoints may still run. Wait for them to come back (listening,
	 * before telling the starter we serve) and take over their pool.
	 */
	if (ret == 0 && uetd_takeover_begin(&d) > 0) {
		uetd_loop(&d);
		if (!d.adopted && !d.stop && !uetd_signalled)
			uetd_takeover_abandon(&d);
		/*
		 * Stopped while waiting: `uetctl unload` (STOP) removes the
		 * program as ever; a signal leaves it to whom it was.
		 */
		if (!d.adopted && (d.stop || uetd_signalled)) {
			d.attached = d.stop_conn >= 0;
			ret = -EINTR;
			snprintf(d.why, sizeof(d.why), "stopped while waiting "
				 "for the endpoints of %s", d.ifname);
		}
	}
	/*
	 * A queue is busy for a moment after the last socket on it closed
	 * (the kernel lets go of it in deferred work): right after an
	 * unload, try again for up to 2 s before saying so.
	 */
	for (int tries = 0; ret == 0 && !d.adopted; tries++) {
		ret = uetd_dev_setup(&d);
		if (ret != -EBUSY || tries == 20)
			break;
		uetd_dev_teardown(&d);
		d.why[0] = '\0';
		ret = 0;
		usleep(100000);
	}
	if (ret == 0 && d.adopted) {
		/* Endpoints ask for their TSS keys again: given[] is new. */
		__atomic_add_fetch(&d.shm->tss_gen, 1, __ATOMIC_RELEASE);
	}
	if (ret == 0)
		ret = uetd_tss_start(&d);
	if (ret < 0) {
		uetd_ready(ready_fd, ret, d.why[0] ? d.why :
			   *uetd_policy_error() ? uetd_policy_error() :
			   strerror(-ret));
		if (d.foreground || ready_fd < 0)
			fprintf(stderr, "uetd %s: %s\n", d.ifname,
				ret == -EEXIST ? "already served (uetctl "
				"unload it first)" : d.why[0] ? d.why :
				strerror(-ret));
		if (ret != -EEXIST)
			uetd_dev_teardown(&d);
		uetd_tss_fini(&d, false);
		if (d.stop_conn >= 0) {	/* unloaded as it was asked */
			int32_t st = 0;

			uetd_send(d.stop_conn, &st, sizeof(st), NULL, 0);
			return 0;
		}
		return 1;
	}
	uetd_log(&d, "serving %s: queues %u-%u, UDP port %u, %u endpoints "
		 "(%u index bits), %u MiB UMEM", d.ifname, d.queue_id,
		 d.queue_id + d.queues - 1, d.udp_port,
		 d.layout.max_eps - 1, d.layout.ep_bits,
		 (unsigned)((uint64_t)d.layout.chunks * 4096 >> 20));
	uetd_ready(ready_fd, 0, "ok");
	uetd_loop(&d);
	keep_eps = uetd_signalled && uetd_leaves_eps(&d);
	uetd_loop_end(&d, keep_eps);
	if (keep_eps) {
		/* The program and its maps stay: the next service's. */
		uetd_log(&d, "stopping; the endpoints still on %s keep it for "
			 "the next service (uetctl unload %s ends them)",
			 d.ifname, d.ifname);
		d.attached = false;
	} else {
		uetd_log(&d, "stopping");
	}
	uetd_dev_teardown(&d);
	uetd_tss_fini(&d, keep_eps);
	if (d.stop_conn >= 0) {
		int32_t st = 0;

		uetd_send(d.stop_conn, &st, sizeof(st), NULL, 0);
		close(d.stop_conn);
	}
	return 0;
}
