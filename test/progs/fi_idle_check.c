/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_idle_check (issue 41): what an endpoint with nothing to do costs its
 * host. Plain libfabric (any provider), one RDM endpoint on ADDR:
 *
 *   fi_idle_check -a ADDR [-m sread|epoll|poll] [-W MS] [-L PERCENT]
 *
 * It posts a receive that nothing will match, then, after a warm-up of
 * 100 ms that is not counted, waits MS milliseconds (default 1000) for a
 * completion that cannot come: in fi_cq_sread (-m sread, the default), in
 * epoll on the CQ's fd after fi_trywait (-m epoll), or calling fi_cq_read
 * in a loop as a busy-polling application does (-m poll). The CPU time
 * of the whole process (every thread: the provider's too,
 * CLOCK_PROCESS_CPUTIME_ID) over the wait is printed as a share of one
 * core, "fi_idle_check: MODE: CPU P % of a core over MS ms", and must stay
 * under PERCENT (default 1) or it fails. Exits 0 on success, 1 on
 * failure.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#define IC_FAIL(...)	do { printf("fi_idle_check: FAIL: " __VA_ARGS__); \
			     printf("\n"); exit(1); } while (0)
#define IC_CALL(call)	do { int r_ = (int)(call); if (r_) \
			     IC_FAIL("%s: %s", #call, fi_strerror(-r_)); \
			} while (0)

#define IC_WARMUP_MS	100

struct ic {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	char buf[64];
};

static uint64_t ic_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void ic_open(struct ic *c, const char *addr)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA,
				      .wait_obj = FI_WAIT_FD };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_info *hints = fi_allocinfo();

	if (!hints)
		IC_FAIL("fi_allocinfo");
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_TAGGED;
	IC_CALL(fi_getinfo(FI_VERSION(1, 17), addr, "7", FI_SOURCE, hints,
			   &c->info));
	fi_freeinfo(hints);
	IC_CALL(fi_fabric(c->info->fabric_attr, &c->fabric, NULL));
	IC_CALL(fi_domain(c->fabric, c->info, &c->domain, NULL));
	IC_CALL(fi_av_open(c->domain, &av_attr, &c->av, NULL));
	IC_CALL(fi_cq_open(c->domain, &cq_attr, &c->cq, NULL));
	IC_CALL(fi_endpoint(c->domain, c->info, &c->ep, NULL));
	IC_CALL(fi_ep_bind(c->ep, &c->av->fid, 0));
	IC_CALL(fi_ep_bind(c->ep, &c->cq->fid, FI_TRANSMIT | FI_RECV));
	IC_CALL(fi_enable(c->ep));
	/* A receive that nothing matches: the endpoint has work posted. */
	IC_CALL(fi_trecv(c->ep, c->buf, sizeof(c->buf), NULL, FI_ADDR_UNSPEC,
			 0x41, 0, NULL));
}

static void ic_close(struct ic *c)
{
	fi_close(&c->ep->fid);
	fi_close(&c->cq->fid);
	fi_close(&c->av->fid);
	fi_close(&c->domain->fid);
	fi_close(&c->fabric->fid);
	fi_freeinfo(c->info);
}

/* A completion or an error here means the check is wrong, not slow. */
static void ic_nothing(ssize_t ret, const char *call)
{
	if (ret != -FI_EAGAIN)
		IC_FAIL("%s: %zd (%s), expected nothing", call, ret,
			ret < 0 ? fi_strerror((int)-ret) : "a completion");
}

static void ic_wait_epoll(struct ic *c, int ms)
{
	struct fid *fids[1] = { &c->cq->fid };
	struct epoll_event ev = { .events = EPOLLIN }, out;
	uint64_t end = ic_ns(CLOCK_MONOTONIC) + (uint64_t)ms * 1000000ull;
	int fd, ep, left;

	IC_CALL(fi_control(&c->cq->fid, FI_GETWAIT, &fd));
	ep = epoll_create1(0);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		IC_FAIL("epoll: %s", strerror(errno));
	/* Woken early (an engine timer), the application tries again. */
	/* Rounded up: epoll_wait's 0 would not wait at all. */
	while ((left = (int)(((int64_t)(end - ic_ns(CLOCK_MONOTONIC)) +
			      999999) / 1000000)) > 0) {
		if (fi_trywait(c->fabric, fids, 1) == FI_SUCCESS)
			epoll_wait(ep, &out, 1, left);
		ic_nothing(fi_cq_read(c->cq, c->buf, 0), "fi_cq_read");
	}
}

static void ic_wait(struct ic *c, const char *mode, int ms)
{
	struct fi_cq_data_entry e;
	uint64_t end;

	if (!strcmp(mode, "sread")) {
		ic_nothing(fi_cq_sread(c->cq, &e, 1, NULL, ms),
			   "fi_cq_sread");
	} else if (!strcmp(mode, "epoll")) {
		ic_wait_epoll(c, ms);
	} else if (!strcmp(mode, "poll")) {
		end = ic_ns(CLOCK_MONOTONIC) + (uint64_t)ms * 1000000ull;
		while (ic_ns(CLOCK_MONOTONIC) < end)
			ic_nothing(fi_cq_read(c->cq, &e, 1), "fi_cq_read");
	} else {
		IC_FAIL("-m %s: sread, epoll or poll", mode);
	}
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *mode = "sread";
	uint64_t cpu0, wall0, cpu, wall;
	double limit = 1.0, pct;
	int ms = 1000, opt;
	struct ic c = { 0 };

	while ((opt = getopt(argc, argv, "a:m:W:L:")) != -1) {
		switch (opt) {
		case 'a': addr = optarg; break;
		case 'm': mode = optarg; break;
		case 'W': ms = atoi(optarg); break;
		case 'L': limit = atof(optarg); break;
		default: addr = NULL; optind = argc; break;
		}
	}
	if (!addr || ms <= 0 || limit <= 0)
		IC_FAIL("usage: fi_idle_check -a ADDR [-m sread|epoll|poll] "
			"[-W MS] [-L PERCENT]");
	ic_open(&c, addr);
	/* Not counted: first touches of rings and pages, lazy binding. */
	ic_wait(&c, mode, IC_WARMUP_MS);
	wall0 = ic_ns(CLOCK_MONOTONIC);
	cpu0 = ic_ns(CLOCK_PROCESS_CPUTIME_ID);
	ic_wait(&c, mode, ms);
	cpu = ic_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	wall = ic_ns(CLOCK_MONOTONIC) - wall0;
	pct = 100.0 * (double)cpu / (double)wall;
	ic_close(&c);
	if (wall < (uint64_t)ms * 1000000ull)
		IC_FAIL("%s: woke after %.1f ms of %d", mode, wall / 1e6, ms);
	printf("fi_idle_check: %s: CPU %.3f %% of a core over %.0f ms%s\n",
	       mode, pct, wall / 1e6, pct < limit ? "" : " (too much)");
	return pct < limit ? 0 : 1;
}
