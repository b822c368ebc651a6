/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wait objects with frames on a wire (t_ns.h: two namespaces, a veth pair,
 * a device service on each end). An endpoint in namespace A blocks, in
 * epoll on its CQ's fd or in fi_wait on a wait set holding its counter,
 * while an endpoint in namespace B, run by a thread of its own, sends to
 * it: the AF_XDP socket in the wait object wakes A, whose reads progress
 * its engine, and the engines' timers keep the exchange going while A
 * sleeps. The same with the peer in namespace A, an endpoint of the same
 * interface: its packets come through the local channel, whose writer
 * wakes the sleeper (issue 32). Needs root.
 */
#define _GNU_SOURCE
#include "test/unit/io/t_ns.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/epoll.h>
#include <time.h>

#include "t_fi.h"

#define T_MSG		"uetwait!"
#define T_MSG_LEN	8

/* One side's objects: an endpoint of its own fabric and domain. */
struct t_side {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_wait *ws;
	struct fid_cntr *cntr;
	struct fid_ep *ep;
	uint8_t name[UET_ADDR_LEN];
};

#define T_TRY(expr)						\
	do {							\
		ret = (expr);					\
		if (ret) {					\
			*what = #expr;				\
			return ret;				\
		}						\
	} while (0)

/*
 * Opens and enables an endpoint of this thread's namespace at |ip|,
 * PIDonFEP |pid|: one CQ (|cq_wait|) for both directions and, with
 * |cntr_in_set|, a receive counter in a wait set. Returns 0, or a
 * libfabric error with *what the call that failed: it also runs in the
 * peer's thread, where Criterion cannot assert.
 */
static int t_side_open(struct t_side *s, int side, const char *pid,
		       enum fi_wait_obj cq_wait, bool cntr_in_set,
		       const char **what)
{
	struct fi_info *h = fi_allocinfo();
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_MSG,
				      .wait_obj = cq_wait };
	struct fi_wait_attr w_attr = { .wait_obj = FI_WAIT_FD };
	struct fi_cntr_attr c_attr = { .events = FI_CNTR_EVENTS_COMP,
				       .wait_obj = FI_WAIT_SET };
	size_t len = sizeof(s->name);
	int ret;

	memset(s, 0, sizeof(*s));
	if (!h)
		return -FI_ENOMEM;
	h->caps = FI_MSG;
	h->ep_attr->type = FI_EP_RDM;
	ret = fi_getinfo(FI_VERSION(1, 17), t_ns_ip[side], pid, FI_SOURCE, h,
			 &s->info);
	fi_freeinfo(h);
	if (ret) {
		*what = "fi_getinfo";
		return ret;
	}
	T_TRY(uet_fabric_open(s->info->fabric_attr, &s->fabric, NULL));
	T_TRY(fi_domain(s->fabric, s->info, &s->domain, NULL));
	T_TRY(fi_av_open(s->domain, &av_attr, &s->av, NULL));
	T_TRY(fi_cq_open(s->domain, &cq_attr, &s->cq, NULL));
	T_TRY(fi_endpoint(s->domain, s->info, &s->ep, NULL));
	T_TRY(fi_ep_bind(s->ep, &s->av->fid, 0));
	T_TRY(fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV));
	if (cntr_in_set) {
		T_TRY(fi_wait_open(s->fabric, &w_attr, &s->ws));
		c_attr.wait_set = s->ws;
		T_TRY(fi_cntr_open(s->domain, &c_attr, &s->cntr, NULL));
		T_TRY(fi_ep_bind(s->ep, &s->cntr->fid, FI_RECV));
	}
	T_TRY(fi_enable(s->ep));
	T_TRY(fi_getname(&s->ep->fid, s->name, &len));
	return 0;
}

static void t_side_close(struct t_side *s)
{
	struct fid *fids[] = {
		s->ep ? &s->ep->fid : NULL, s->cntr ? &s->cntr->fid : NULL,
		s->ws ? &s->ws->fid : NULL, s->cq ? &s->cq->fid : NULL,
		s->av ? &s->av->fid : NULL, s->domain ? &s->domain->fid : NULL,
		s->fabric ? &s->fabric->fid : NULL,
	};

	for (size_t i = 0; i < sizeof(fids) / sizeof(fids[0]); i++)
		if (fids[i])
			fi_close(fids[i]);
	fi_freeinfo(s->info);
}

/* ---- the peer: a thread in namespace B that sends on request ----------------- */
struct t_peer {
	pthread_t th;
	const struct t_ns *ns;
	int side;			/* T_NS_B, or T_NS_A: local */
	uint8_t dest[UET_ADDR_LEN];	/* A's name */
	sem_t go, done;			/* a send asked for; ready / sent */
	bool stop;
	const char *what;		/* what failed, or NULL */
	int ret;
	uint64_t local_wakes;		/* sleepers its engine woke */
};

static int t_peer_send(struct t_side *s, fi_addr_t to, const char **what)
{
	struct fi_cq_msg_entry e;
	int ctx, ret;

	do {
		ret = (int)fi_send(s->ep, T_MSG, T_MSG_LEN, NULL, to, &ctx);
		if (ret == -FI_EAGAIN)
			fi_cq_read(s->cq, NULL, 0);
	} while (ret == -FI_EAGAIN);
	if (ret) {
		*what = "fi_send";
		return ret;
	}
	/* Completes when A acknowledged: A's progress while it sleeps. */
	ret = (int)fi_cq_sread(s->cq, &e, 1, NULL, 5000);
	if (ret != 1) {
		*what = "fi_cq_sread of the send";
		return ret < 0 ? ret : -FI_EOTHER;
	}
	return 0;
}

static void *t_peer_run(void *arg)
{
	struct t_peer *p = arg;
	struct t_side s = { 0 };
	fi_addr_t a;

	if (setns(p->ns->fd[p->side], CLONE_NEWNET)) {
		p->what = "setns";
		p->ret = -errno;
	} else {
		p->ret = t_side_open(&s, p->side, "6", FI_WAIT_UNSPEC, false,
				     &p->what);
	}
	if (!p->ret && fi_av_insert(s.av, p->dest, 1, &a, 0, NULL) != 1) {
		p->what = "fi_av_insert";
		p->ret = -FI_EINVAL;
	}
	sem_post(&p->done);
	while (!p->ret) {
		sem_wait(&p->go);
		if (p->stop)
			break;
		p->ret = t_peer_send(&s, a, &p->what);
		sem_post(&p->done);
	}
	if (s.ep) {
		struct uet_engine_stats st;

		uet_engine_stats_get(t_ep(s.ep)->eng, &st);
		p->local_wakes = st.local_wakes;
	}
	t_side_close(&s);
	return NULL;
}

static bool t_sem_wait_ms(sem_t *s, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return sem_timedwait(s, &ts) == 0;
}

/* ---- the suite: A in this thread, B's peer ready ------------------------------- */
static struct t_ns ns;
static struct t_side a;
static struct t_peer peer;

/*
 * A's endpoint with |cq_wait|, then the peer in namespace |side|, which
 * learns A's name.
 */
static void t_start(enum fi_wait_obj cq_wait, bool cntr_in_set, int side)
{
	const char *what = NULL;
	int ret;

	t_fi_env();
	setenv("FI_UET_IFACE", T_NS_IFACE, 1);
	t_ns_setup(&ns);
	ret = t_side_open(&a, T_NS_A, "5", cq_wait, cntr_in_set, &what);
	cr_assert_eq(ret, 0, "A: %s: %s", what, fi_strerror(-ret));
	memset(&peer, 0, sizeof(peer));
	peer.ns = &ns;
	peer.side = side;
	memcpy(peer.dest, a.name, sizeof(a.name));
	sem_init(&peer.go, 0, 0);
	sem_init(&peer.done, 0, 0);
	cr_assert_eq(pthread_create(&peer.th, NULL, t_peer_run, &peer), 0);
	cr_assert(t_sem_wait_ms(&peer.done, 20000), "B never got ready");
	cr_assert_eq(peer.ret, 0, "B: %s: %s", peer.what,
		     fi_strerror(-peer.ret));
}

static void t_stop(void)
{
	if (peer.th) {
		peer.stop = true;
		sem_post(&peer.go);
		pthread_join(peer.th, NULL);
	}
	t_side_close(&a);
	t_ns_teardown(&ns);
}

TestSuite(uet_wait_net, .fini = t_stop, .timeout = 60);

static uint64_t t_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int t_epoll_of(struct fid *fid)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd = -1, ep = epoll_create1(0);

	cr_assert_eq(fi_control(fid, FI_GETWAIT, &fd), 0);
	cr_assert_eq(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	return ep;
}

/*
 * The application's loop of fi_poll(3): trywait, block on the fd, read.
 * Until |stop| says so or |ms| pass; the number of times epoll woke.
 */
static int t_sleep_and_read(int ep, int ms, bool (*stop)(void))
{
	struct fid *fid = &a.cq->fid;
	uint64_t end = t_ms() + (uint64_t)ms;
	struct fi_cq_msg_entry e;
	struct epoll_event ev;
	int wakes = 0;

	while (!stop() && t_ms() < end) {
		if (fi_trywait(a.fabric, &fid, 1) == 0)
			wakes += epoll_wait(ep, &ev, 1, (int)(end - t_ms())) > 0;
		cr_assert_eq(fi_cq_read(a.cq, &e, 1), -FI_EAGAIN);
	}
	return wakes;
}

static bool t_peer_sent(void)
{
	return sem_trywait(&peer.done) == 0;
}

static bool t_never(void)
{
	return false;
}

/* A's receives came by frames (remote) or through its local channel. */
static void t_came_by(bool local)
{
	struct uet_engine_stats st;

	/* The peer's engine is closed: its counters are in. */
	if (peer.th) {
		peer.stop = true;
		sem_post(&peer.go);
		pthread_join(peer.th, NULL);
		peer.th = 0;
	}
	/* A slept on the fd, and the local writer woke it, not a timer. */
	if (local)
		cr_assert_geq(peer.local_wakes, 1, "no wake-up by the writer");

	uet_engine_stats_get(t_ep(a.ep)->eng, &st);
	if (local)
		cr_assert(st.local_rx > 0 && st.rx_frames == 0,
			  "%" PRIu64 " records, %" PRIu64 " frames",
			  st.local_rx, st.rx_frames);
	else
		cr_assert(st.local_rx == 0 && st.rx_frames > 0,
			  "%" PRIu64 " records, %" PRIu64 " frames",
			  st.local_rx, st.rx_frames);
}

static void t_epoll_wakes(int side)
{
	struct uet_ep *ep;
	struct fid *fid;
	struct epoll_event ev = { .events = EPOLLIN };
	struct fi_cq_msg_entry e;
	char buf[64] = "";
	int fd, app, wakes = 0, rctx;
	ssize_t r = -FI_EAGAIN;
	bool went = false;
	uint64_t t0;

	t_start(FI_WAIT_FD, false, side);
	fid = &a.cq->fid;
	ep = t_ep(a.ep);
	/* The endpoint's socket is in the CQ's epoll set. */
	cr_assert_eq(fi_control(fid, FI_GETWAIT, &fd), 0);
	cr_assert_eq(epoll_ctl(fd, EPOLL_CTL_ADD, uet_engine_fd(ep->eng), &ev),
		     -1);
	cr_assert_eq(errno, EEXIST);
	cr_assert_eq(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			     &rctx), 0);
	app = t_epoll_of(fid);
	/* Nothing sent, nothing to wake for. */
	cr_assert_eq(fi_trywait(a.fabric, &fid, 1), 0);
	cr_assert_eq(epoll_wait(app, &ev, 1, 50), 0);
	t0 = t_ms();
	while (r == -FI_EAGAIN && t_ms() - t0 < 5000) {
		if (fi_trywait(a.fabric, &fid, 1) == 0) {
			/* B sends only once A may sleep: a message that
			 * landed before the trywait would be read without
			 * any wake-up, which is right but proves nothing. */
			if (!went) {
				sem_post(&peer.go);
				went = true;
			}
			wakes += epoll_wait(app, &ev, 1, 1000) > 0;
		}
		r = fi_cq_read(a.cq, &e, 1);
	}
	cr_assert(went, "A never had nothing to do");
	cr_assert_eq(r, 1, "no receive completion: %zd", r);
	cr_assert_geq(wakes, 1, "the completion came without sleeping");
	cr_assert_eq(e.op_context, &rctx);
	cr_assert_eq(e.len, T_MSG_LEN);
	cr_assert_arr_eq(buf, T_MSG, T_MSG_LEN);
	/* B's send completes once A's acknowledgement went out, which A's
	 * engine timer may hold: A sleeps meanwhile. */
	t_sleep_and_read(app, 5000, t_peer_sent);
	cr_assert_eq(peer.ret, 0, "B: %s: %s", peer.what,
		     fi_strerror(-peer.ret));
	/* Idle: a few timer wake-ups at most, no busy loop. */
	wakes = t_sleep_and_read(app, 300, t_never);
	cr_assert_leq(wakes, 50, "%d wake-ups in 300 ms", wakes);
	close(app);
	t_came_by(side == T_NS_A);
}

Test(uet_wait_net, epoll_on_the_cq_fd_wakes_when_a_message_lands)
{
	t_epoll_wakes(T_NS_B);
}

Test(uet_wait_net, epoll_wakes_for_a_local_peer)
{
	t_epoll_wakes(T_NS_A);
}

static void t_set_wakes(int side)
{
	struct fi_cq_msg_entry e;
	char buf[64] = "";
	uint64_t t0;
	int rctx;

	t_start(FI_WAIT_NONE, true, side);
	cr_assert_eq(fi_recv(a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			     &rctx), 0);
	cr_assert_eq(fi_wait(a.ws, 50), -FI_ETIMEDOUT);
	cr_assert_eq(fi_cntr_read(a.cntr), 0);
	t0 = t_ms();
	sem_post(&peer.go);
	/* It returns when its member has something, not before. */
	cr_assert_eq(fi_wait(a.ws, 5000), 0);
	cr_assert_lt(t_ms() - t0, 5000);
	cr_assert_eq(fi_cntr_read(a.cntr), 1);
	cr_assert_eq(fi_cq_read(a.cq, &e, 1), 1);
	cr_assert_eq(e.op_context, &rctx);
	cr_assert_arr_eq(buf, T_MSG, T_MSG_LEN);
	/* Nothing more to come: fi_wait times out, B's send completed. */
	cr_assert_eq(fi_wait(a.ws, 300), -FI_ETIMEDOUT);
	cr_assert(t_sem_wait_ms(&peer.done, 5000));
	cr_assert_eq(peer.ret, 0, "B: %s: %s", peer.what,
		     fi_strerror(-peer.ret));
	t_came_by(side == T_NS_A);
}

Test(uet_wait_net, fi_wait_on_a_set_wakes_for_the_receive_counter)
{
	t_set_wakes(T_NS_B);
}

Test(uet_wait_net, fi_wait_wakes_for_a_local_peer)
{
	t_set_wakes(T_NS_A);
}
