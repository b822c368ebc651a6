/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared set-up of the example programs (see ex_common.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

#define EX_CHECK(call)							\
	do {								\
		int ex_ret_ = (int)(call);				\
		if (ex_ret_ < 0) {					\
			fprintf(stderr, "%s: %s\n", #call,		\
				fi_strerror(-ex_ret_));			\
			return ex_ret_;					\
		}							\
	} while (0)

int ex_parse(int argc, char **argv, struct ex_opts *o, const char *usage)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->service = "42";
	o->oob_port = 47931;
	o->size = 16384;
	o->iters = 1;
	while ((c = getopt(argc, argv, "sc:a:S:p:n:i:dKT:D:twh")) != -1) {
		switch (c) {
		case 's': o->server = true; break;
		case 'c': o->dst = optarg; break;
		case 'a': o->src = optarg; break;
		case 'S': o->service = optarg; break;
		case 'p': o->oob_port = atoi(optarg); break;
		case 'n': o->size = strtoul(optarg, NULL, 0); break;
		case 'i': o->iters = strtol(optarg, NULL, 0); break;
		case 'd': o->cq_data = true; break;
		case 'K': o->bad_key = true; break;
		case 'T':
			if (optarg[0] == '@')
				o->start_file = optarg + 1;
			else
				o->start_at = strtod(optarg, NULL);
			break;
		case 'D': o->duration = strtod(optarg, NULL); break;
		case 't': o->trace = true; break;
		case 'w': o->wait = true; break;
		default:
			fprintf(stderr, "%s", usage);
			return c == 'h' ? 1 : -1;
		}
	}
	if (o->server == (o->dst != NULL) || !o->size || o->iters < 1 ||
	    o->start_at < 0 || o->duration < 0 ||
	    (o->start_file && !o->start_file[0])) {
		fprintf(stderr, "%s", usage);
		return -1;
	}
	return 0;
}

struct fi_info *ex_hints_rdm(uint64_t caps, uint64_t mode)
{
	struct fi_info *h = fi_allocinfo();

	if (!h)
		return NULL;
	h->ep_attr->type = FI_EP_RDM;
	h->caps = caps;
	h->mode = mode;
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				  FI_MR_ALLOCATED | FI_MR_PROV_KEY |
				  FI_MR_ENDPOINT;
	return h;
}

int ex_mr_reg(struct ex_fab *f, size_t len, uint64_t key, void **buf,
	      struct fid_mr **mr)
{
	if (posix_memalign(buf, 4096, len)) {
		fprintf(stderr, "no memory for %zu bytes\n", len);
		return -FI_ENOMEM;
	}
	memset(*buf, 0, len);
	EX_CHECK(fi_mr_reg(f->domain, *buf, len, FI_READ | FI_WRITE |
			   FI_REMOTE_READ | FI_REMOTE_WRITE, 0, key, 0, mr,
			   NULL));
	if (f->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
		EX_CHECK(fi_mr_bind(*mr, &f->ep->fid, 0));
		EX_CHECK(fi_mr_enable(*mr));
	}
	return 0;
}

/* ex_mr_reg() of c->buf into c->mr, with c->buf_len and c->desc. */
static int ex_buf_reg(struct ex_ctx *c, size_t len, uint64_t key)
{
	int ret = ex_mr_reg(&c->fab, len, key, &c->buf, &c->mr);

	if (ret)
		return ret;
	c->buf_len = len;
	c->desc = fi_mr_desc(c->mr);
	return 0;
}

/* As EX_CHECK, the lines starting with |prog|. */
#define EX_FAB_CHECK(prog, call)					\
	do {								\
		int ex_ret_ = (int)(call);				\
		if (ex_ret_ < 0) {					\
			fprintf(stderr, "%s: %s: %s\n", (prog), #call,	\
				fi_strerror(-ex_ret_));			\
			return ex_ret_;					\
		}							\
	} while (0)

/* The CQ(s) and counters of |f|. */
static int ex_fab_queues(struct ex_fab *f, const struct ex_fab_opts *o,
			 const char *prog)
{
	struct fi_cq_attr cq_attr = {
		.size = o->cq_size,
		.format = o->cq_format ? o->cq_format : FI_CQ_FORMAT_DATA,
		.wait_obj = o->cq_wait ? FI_WAIT_UNSPEC : FI_WAIT_NONE,
	};
	struct fi_cntr_attr cntr_attr = { .events = FI_CNTR_EVENTS_COMP };

	EX_FAB_CHECK(prog, fi_cq_open(f->domain, &cq_attr, &f->cq, NULL));
	if (o->rx_cq)
		EX_FAB_CHECK(prog, fi_cq_open(f->domain, &cq_attr, &f->rx_cq,
					      NULL));
	for (int i = 0; i < EX_FAB_CNTRS; i++)
		if (o->cntr[i])
			EX_FAB_CHECK(prog, fi_cntr_open(f->domain, &cntr_attr,
							&f->cntr[i], NULL));
	return 0;
}

/* Binds the AV, CQ(s) and counters of |f| to its endpoint. */
static int ex_fab_bind(struct ex_fab *f, const struct ex_fab_opts *o,
		       const char *prog)
{
	uint64_t cq_bind = (o->rx_cq ? FI_TRANSMIT : FI_TRANSMIT | FI_RECV) |
			   o->cq_flags;

	EX_FAB_CHECK(prog, fi_ep_bind(f->ep, &f->av->fid, 0));
	EX_FAB_CHECK(prog, fi_ep_bind(f->ep, &f->cq->fid, cq_bind));
	if (f->rx_cq)
		EX_FAB_CHECK(prog, fi_ep_bind(f->ep, &f->rx_cq->fid, FI_RECV));
	for (int i = 0; i < EX_FAB_CNTRS; i++)
		if (f->cntr[i])
			EX_FAB_CHECK(prog, fi_ep_bind(f->ep, &f->cntr[i]->fid,
						      o->cntr[i]));
	return 0;
}

int ex_fab_open(struct ex_fab *f, const struct fi_info *hints,
		const struct ex_fab_opts *o)
{
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	const char *prog = o->prog ? o->prog : "ex";
	int ret;

	if (hints) {
		ret = fi_getinfo(FI_VERSION(1, 17), o->node, o->service,
				 o->flags, hints, &f->info);
		if (ret) {
			fprintf(stderr, "%s: fi_getinfo(%s, %s): %s\n", prog,
				o->node ? o->node : "-",
				o->service ? o->service : "-",
				fi_strerror(-ret));
			return ret;
		}
	}
	EX_FAB_CHECK(prog, fi_fabric(f->info->fabric_attr, &f->fabric, NULL));
	EX_FAB_CHECK(prog, fi_domain(f->fabric, f->info, &f->domain, NULL));
	EX_FAB_CHECK(prog, fi_av_open(f->domain, &av_attr, &f->av, NULL));
	ret = ex_fab_queues(f, o, prog);
	if (ret)
		return ret;
	EX_FAB_CHECK(prog, fi_endpoint(f->domain, f->info, &f->ep, NULL));
	ret = ex_fab_bind(f, o, prog);
	if (ret)
		return ret;
	if (o->min_multi_recv)
		EX_FAB_CHECK(prog, fi_setopt(&f->ep->fid, FI_OPT_ENDPOINT,
					     FI_OPT_MIN_MULTI_RECV,
					     &o->min_multi_recv,
					     sizeof(o->min_multi_recv)));
	EX_FAB_CHECK(prog, fi_enable(f->ep));
	return 0;
}

int ex_fab_open_msg(struct ex_fab *f, const char *prog, const char *node,
		    const char *service, bool server)
{
	struct ex_fab_opts fo = { .prog = prog, .node = node,
				  .service = service,
				  .flags = server ? FI_SOURCE : 0,
				  .cq_format = FI_CQ_FORMAT_CONTEXT };
	struct fi_info *hints = fi_allocinfo();
	int ret;

	if (!hints)
		return -FI_ENOMEM;
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG;
	hints->mode = FI_CONTEXT;
	ret = ex_fab_open(f, hints, &fo);
	fi_freeinfo(hints);
	return ret;
}

void ex_fab_close(struct ex_fab *f)
{
	/* The endpoint first: what is bound to it closes after it. */
	struct fid *fids[] = {
		f->ep ? &f->ep->fid : NULL,
		f->cntr[0] ? &f->cntr[0]->fid : NULL,
		f->cntr[1] ? &f->cntr[1]->fid : NULL,
		f->rx_cq ? &f->rx_cq->fid : NULL,
		f->cq ? &f->cq->fid : NULL,
		f->av ? &f->av->fid : NULL,
		f->domain ? &f->domain->fid : NULL,
		f->fabric ? &f->fabric->fid : NULL,
	};

	_Static_assert(EX_FAB_CNTRS == 2, "ex_fab_close closes 2 counters");
	for (size_t i = 0; i < sizeof(fids) / sizeof(fids[0]); i++)
		if (fids[i])
			fi_close(fids[i]);
	if (f->info)
		fi_freeinfo(f->info);
	memset(f, 0, sizeof(*f));
}

int ex_setup_hints(struct ex_ctx *c, const struct ex_opts *o,
		   struct fi_info *hints, const struct ex_fab_opts *fo,
		   size_t buf_len)
{
	struct ex_fab_opts at = *fo;
	int ret;

	memset(c, 0, sizeof(*c));
	c->oob_fd = -1;
	if (!hints)
		return -FI_ENOMEM;
	at.node = o->server ? o->src : o->dst;
	at.service = o->service;
	at.flags = o->server ? FI_SOURCE : 0;
	at.cq_wait = at.cq_wait || o->wait;
	c->wait = at.cq_wait;
	ret = ex_fab_open(&c->fab, hints, &at);
	fi_freeinfo(hints);
	if (c->fab.info)
		printf("%s: provider %s, mr_mode %#x\n",
		       fo->prog ? fo->prog : "ex",
		       c->fab.info->fabric_attr->prov_name,
		       c->fab.info->domain_attr->mr_mode);
	return ret ? ret : ex_buf_reg(c, buf_len, 0xc0de);
}

int ex_setup(struct ex_ctx *c, const struct ex_opts *o, size_t buf_len)
{
	uint64_t ev = o->rma_event;
	struct ex_fab_opts fo = {
		.cq_size = 256,
		.cntr = { [EX_CNTR_REMOTE_WR] = ev ? FI_REMOTE_WRITE : 0,
			  [EX_CNTR_REMOTE_RD] = ev ? FI_REMOTE_READ : 0 },
	};

	/* Every mode we know how to honour; the provider keeps what it
	 * needs, and ex_setup follows what it kept. */
	return ex_setup_hints(c, o, ex_hints_rdm(EX_RMA_CAPS |
						 (ev ? FI_RMA_EVENT : 0),
						 ~0ULL), &fo, buf_len);
}

void ex_teardown(struct ex_ctx *c)
{
	if (c->mr)
		fi_close(&c->mr->fid);
	ex_fab_close(&c->fab);
	if (c->oob_fd >= 0)
		close(c->oob_fd);
	free(c->buf);
}

int ex_tcp_listen(int port, int backlog)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
				     .sin6_port = htons((uint16_t)port),
				     .sin6_addr = IN6ADDR_ANY_INIT };
	int one = 1, zero = 0, fd = socket(AF_INET6, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)) ||
	    listen(fd, backlog)) {
		close(fd);
		return -1;
	}
	return fd;
}

static const char *ex_limit_name;

static void ex_on_alarm(int sig)
{
	static const char tail[] = ": time limit reached\n";
	ssize_t n;

	(void)sig;
	/* Only async-signal-safe calls; exiting whatever they return. */
	n = write(STDERR_FILENO, ex_limit_name, strlen(ex_limit_name));
	n = write(STDERR_FILENO, tail, sizeof(tail) - 1);
	(void)n;
	_exit(3);
}

void ex_time_limit(const char *name, unsigned sec)
{
	ex_limit_name = name;
	signal(SIGALRM, ex_on_alarm);
	alarm(sec);
}

int ex_tcp_connect(const char *node, int port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV }, *ai;
	char serv[16];
	int fd = -1;

	snprintf(serv, sizeof(serv), "%d", port);
	if (getaddrinfo(node, serv, &hints, &ai))
		return -1;
	for (int i = 0; i < 200 && fd < 0; i++) {
		fd = socket(ai->ai_family, SOCK_STREAM, 0);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			close(fd);
			fd = -1;
			usleep(50000);
		}
	}
	freeaddrinfo(ai);
	return fd;
}

/* Server: accept one client within 60 s. Client: connect within 10 s. */
static int ex_oob_connect(struct ex_ctx *c, const struct ex_opts *o)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)o->oob_port) };
	struct pollfd pfd;
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (!o->server) {
		if (inet_pton(AF_INET, o->dst, &sin.sin_addr) != 1)
			goto fail;
		for (int i = 0; i < 200; i++) {
			if (!connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
				c->oob_fd = fd;
				return 0;
			}
			usleep(50000);
		}
		goto fail;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 1))
		goto fail;
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&pfd, 1, 60000) != 1)
		goto fail;
	c->oob_fd = accept(fd, NULL, NULL);
	close(fd);
	return c->oob_fd < 0 ? -1 : 0;
fail:
	perror("side channel");
	close(fd);
	return -1;
}

int ex_oob_send(struct ex_ctx *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(c->oob_fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Sleeps until the CQ's wait object or |fd| is readable, at most 100 ms,
 * when the provider has nothing to do now (fi_trywait); returns at once
 * otherwise. Without a wait fd (FI_GETWAIT unsupported), it naps 1 ms.
 */
static void ex_sleep_cq_or(struct ex_ctx *c, int fd)
{
	struct fid *cq = &c->fab.cq->fid;
	struct pollfd pfd[2] = { { .fd = fd, .events = POLLIN },
				 { .fd = -1, .events = POLLIN } };

	if (fi_trywait(c->fab.fabric, &cq, 1) != FI_SUCCESS)
		return;
	if (fi_control(cq, FI_GETWAIT, &pfd[1].fd) < 0)
		pfd[1].fd = -1;
	(void)poll(pfd, 2, pfd[1].fd < 0 ? 1 : 100);
}

/*
 * Drives the provider while |fd| has nothing to read (a provider with
 * manual progress moves the peer's RMA only while we call it), spinning
 * as HPC programs do, or with ex_opts.wait sleeping between calls on the
 * CQ's wait object and |fd|; bounded to 120 s.
 */
static int ex_progress_until_readable(struct ex_ctx *c, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int i = 0;; i++) {
		if (c->nstash < 16 &&
		    fi_cq_read(c->fab.cq, &c->stash[c->nstash], 1) == 1)
			c->nstash++;
		if (c->wait)
			ex_sleep_cq_or(c, fd);
		else if (i % 256)
			continue;
		if (poll(&pfd, 1, 0) == 1)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 120)
			return -1;
	}
}

int ex_oob_recv(struct ex_ctx *c, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n;

		if (ex_progress_until_readable(c, c->oob_fd))
			return -1;
		n = recv(c->oob_fd, p, len, 0);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ex_exchange(struct ex_ctx *c, const struct ex_opts *o,
		struct ex_peer_info *remote)
{
	struct ex_peer_info mine = { .key = fi_mr_key(c->mr),
				     .len = c->buf_len };
	size_t name_len = sizeof(mine.name);
	int ret;

	ret = fi_getname(&c->fab.ep->fid, mine.name, &name_len);
	if (ret) {
		fprintf(stderr, "fi_getname: %s\n", fi_strerror(-ret));
		return -1;
	}
	mine.name_len = (uint32_t)name_len;
	mine.addr = (c->fab.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ?
		    (uint64_t)(uintptr_t)c->buf : 0;
	if (ex_oob_connect(c, o) || ex_oob_send(c, &mine, sizeof(mine)) ||
	    ex_oob_recv(c, remote, sizeof(*remote)))
		return -1;
	if (fi_av_insert(c->fab.av, remote->name, 1, &c->peer, 0, NULL) != 1) {
		fprintf(stderr, "fi_av_insert failed\n");
		return -1;
	}
	return 0;
}

int ex_wait_cq(struct ex_ctx *c, struct fi_cq_data_entry *entry)
{
	struct fi_cq_err_entry err = { 0 };
	ssize_t n;

	if (c->nstash) {
		*entry = c->stash[0];
		memmove(c->stash, c->stash + 1,
			(size_t)--c->nstash * sizeof(c->stash[0]));
		return 0;
	}
	do {
		n = c->wait ? fi_cq_sread(c->fab.cq, entry, 1, NULL, 1000) :
			      fi_cq_read(c->fab.cq, entry, 1);
	} while (n == -FI_EAGAIN);
	if (n == 1)
		return 0;
	if (n == -FI_EAVAIL && fi_cq_readerr(c->fab.cq, &err, 0) == 1) {
		fprintf(stderr, "completion error: %s (prov_errno %d: %s)\n",
			fi_strerror(err.err), err.prov_errno,
			fi_cq_strerror(c->fab.cq, err.prov_errno, err.err_data,
				       NULL, 0));
		return -err.err;
	}
	fprintf(stderr, "fi_cq_read: %s\n", fi_strerror((int)-n));
	return (int)n;
}

double ex_wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ex_sleep_until(double at)
{
	struct timespec ts = { .tv_sec = (time_t)at };

	ts.tv_nsec = (long)((at - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* The start time FILE holds, or 0 while it holds none. */
static double ex_start_read(const char *file)
{
	FILE *f = fopen(file, "r");
	double at = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%lf", &at) != 1)
		at = 0;
	fclose(f);
	return at;
}

int ex_start_wait(const struct ex_opts *o, const char *prog)
{
	struct timespec ms = { .tv_nsec = 1000000 };
	double at = o->start_at;

	if (o->start_file) {
		printf("%s: ready\n", prog);
		fflush(stdout);
		for (int i = 0; i < 120000 && at <= 0; i++) {
			at = ex_start_read(o->start_file);
			if (at <= 0)
				nanosleep(&ms, NULL);
		}
		if (at <= 0) {
			fprintf(stderr, "%s: no start time in %s\n", prog,
				o->start_file);
			return -1;
		}
	}
	ex_sleep_until(at);
	return 0;
}

uint64_t ex_checksum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}
