/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The wait objects of CQs, counters and EQs (struct uet_wait_obj in
 * uet.h): creation for each fi_wait_obj, the eventfd's signal and drain,
 * the timer fi_trywait arms, FI_GETWAIT, and the domain's endpoint
 * sockets joining and leaving every CQ's and counter's epoll set.
 */
#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "uet/uet.h"

/*
 * The timer never waits longer than this while the domain has enabled
 * endpoints. Everything that comes for an engine wakes one of the fds in
 * the set (engine/uet_engine_wake.c): its socket, its wake socket (frames
 * through shared memory), the service's connection (which the set holds
 * as it was when the engine joined: after a reattach, the next service's
 * going away is seen at a recheck, within a new service's 2 s wait). So
 * this is a last resort, not a poll: at 100 ms it cost an idle process
 * 0.9-1.4% of a core in epoll on a 2-core VM.
 */
#define UET_WAIT_RECHECK_NS	(1000 * 1000000ull)
/* How late past its timer an armed application is taken to be elsewhere. */
#define UET_WAIT_OVERDUE_NS	(100 * 1000000ull)

static int uet_wait_epoll_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Adds the sockets of the domain's enabled endpoints (domain lock held). */
/*
 * An engine's fds (its socket, its wake socket, the service's connection)
 * in |epfd|; 0 or -errno.
 */
static int uet_wait_epoll_add_engine(int epfd, const struct uet_engine *eng)
{
	int ret = uet_wait_epoll_add(epfd, uet_engine_fd(eng));

	if (!ret && uet_engine_wake_fd(eng) >= 0)
		ret = uet_wait_epoll_add(epfd, uet_engine_wake_fd(eng));
	if (!ret && uet_engine_svc_fd(eng) >= 0)
		ret = uet_wait_epoll_add(epfd, uet_engine_svc_fd(eng));
	return ret;
}

static void uet_wait_obj_add_engines(struct uet_wait_obj *w)
{
	struct uet_list *pos;
	struct uet_ep *ep;
	int ret;

	uet_list_for_each(pos, &w->dom->eps) {
		ep = container_of(pos, struct uet_ep, link);
		if (!ep->eng)
			continue;
		ret = uet_wait_epoll_add_engine(w->epfd, ep->eng);
		if (ret)
			FI_WARN(&uet_prov, FI_LOG_CQ,
				"wait object misses an endpoint: %s\n",
				fi_strerror(-ret));
	}
}

/* The fds of an FD wait object: epoll holding the eventfd and timerfd. */
static int uet_wait_obj_make_fd(struct uet_wait_obj *w)
{
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (w->epfd < 0 || w->tfd < 0)
		return -FI_ENOMEM;
	if (uet_wait_epoll_add(w->epfd, w->evfd) ||
	    uet_wait_epoll_add(w->epfd, w->tfd))
		return -FI_ENOMEM;
	return 0;
}

static void uet_wait_obj_close_fds(struct uet_wait_obj *w)
{
	if (w->tfd >= 0)
		close(w->tfd);
	if (w->epfd >= 0)
		close(w->epfd);
	if (w->evfd >= 0)
		close(w->evfd);
	w->tfd = w->epfd = w->evfd = -1;
}

/* -FI_ENOSYS for what we do not offer, -FI_EINVAL for what is no kind. */
static int uet_wait_obj_kind_check(enum fi_wait_obj kind,
				   struct fid_wait *set,
				   const struct uet_fabric *fab)
{
	switch (kind) {
	case FI_WAIT_NONE:
	case FI_WAIT_YIELD:
	case FI_WAIT_UNSPEC:
	case FI_WAIT_FD:
		return 0;
	case FI_WAIT_SET:
		return uet_wait_set_of(set, fab) ? 0 : -FI_EINVAL;
	case FI_WAIT_MUTEX_COND:
	case FI_WAIT_POLLFD:
		return -FI_ENOSYS;
	default:
		return -FI_EINVAL;
	}
}

/*
 * Makes |w| for |owner| (a CQ or counter of |dom|, or an EQ of |fab| with
 * |dom| NULL). FI_WAIT_UNSPEC gets an fd: what FI_GETWAIT can hand out.
 * Takes the domain lock; the caller holds none.
 */
int uet_wait_obj_init(struct uet_wait_obj *w, struct fid *owner,
		      struct uet_domain *dom, struct uet_fabric *fab,
		      enum fi_wait_obj kind, struct fid_wait *set)
{
	int ret = uet_wait_obj_kind_check(kind, set, fab);

	*w = (struct uet_wait_obj){ .evfd = -1, .epfd = -1, .tfd = -1,
				    .kind = kind, .owner = owner, .dom = dom };
	uet_list_init(&w->link);
	uet_list_init(&w->set_link);
	if (ret)
		return ret;
	w->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->evfd < 0)
		return -FI_ENOMEM;
	if (kind == FI_WAIT_NONE || kind == FI_WAIT_YIELD)
		return 0;
	ret = uet_wait_obj_make_fd(w);
	if (!ret && kind == FI_WAIT_SET)
		ret = uet_wait_set_join(uet_wait_set_of(set, fab), w);
	if (ret) {
		uet_wait_obj_close_fds(w);
		return ret;
	}
	if (dom) {
		uet_domain_lock(dom);
		uet_list_add_tail(&dom->waits, &w->link);
		uet_wait_obj_add_engines(w);
		uet_domain_unlock(dom);
	}
	return 0;
}

/* Takes the domain lock; the caller holds none. */
void uet_wait_obj_fini(struct uet_wait_obj *w)
{
	if (w->set)
		uet_wait_set_leave(w->set, w);
	if (w->dom && w->epfd >= 0) {
		uet_domain_lock(w->dom);
		uet_list_del(&w->link);
		uet_domain_unlock(w->dom);
	}
	uet_wait_obj_close_fds(w);
}

/* The owner's lock held, as for every call below. */
void uet_wait_obj_signal(struct uet_wait_obj *w)
{
	uint64_t one = 1;

	if (write(w->evfd, &one, sizeof(one)) == sizeof(one))
		w->pending = true;
}

void uet_wait_obj_drain(struct uet_wait_obj *w)
{
	uint64_t n;

	if (read(w->evfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		FI_WARN_SPARSE(&uet_prov, FI_LOG_CQ, "eventfd: %s\n",
			       fi_strerror(errno));
	w->pending = false;
}

/* Empty owner: neither the eventfd nor an expired timer stays readable. */
void uet_wait_obj_quiet(struct uet_wait_obj *w)
{
	uint64_t n;

	if (w->pending)
		uet_wait_obj_drain(w);
	if (w->armed && read(w->tfd, &n, sizeof(n)) == sizeof(n))
		w->armed = false;
}

/*
 * The time until the first timer of the domain's engines is due; 0 when
 * a local peer's packets wait already. From now on, local peers that
 * write to the engines wake their fds (uet_engine_sleep).
 */
static uint64_t uet_wait_engines_due_ns(const struct uet_domain *dom)
{
	uint64_t due = UINT64_MAX, t;
	const struct uet_list *pos;
	struct uet_ep *ep;

	uet_list_for_each(pos, &dom->eps) {
		ep = container_of(pos, struct uet_ep, link);
		if (!ep->eng)
			continue;
		if (!uet_engine_sleep_app(ep->eng))
			return 0;
		t = uet_engine_next_timeout_ns(ep->eng);
		due = t < due ? t : due;
		due = due < UET_WAIT_RECHECK_NS ? due : UET_WAIT_RECHECK_NS;
	}
	return due;
}

/*
 * The owner is empty and its application is about to block on the fd
 * (fi_trywait): the eventfd is drained and the timer set to when the
 * engines next need progress, so that retransmissions and acknowledgements
 * still go out while the application sleeps.
 */
int uet_wait_obj_arm(struct uet_wait_obj *w)
{
	struct itimerspec its = { 0 };
	uint64_t due = w->dom ? uet_wait_engines_due_ns(w->dom) : UINT64_MAX;

	if (w->pending)
		uet_wait_obj_drain(w);
	if (due == UINT64_MAX && !w->armed)
		return 0;
	if (due != UINT64_MAX) {
		due = due ? due : 1;	/* 0 would disarm it */
		its.it_value.tv_sec = (time_t)(due / 1000000000ull);
		its.it_value.tv_nsec = (long)(due % 1000000000ull);
	}
	/* Setting it also forgets expirations not yet read. */
	if (timerfd_settime(w->tfd, 0, &its, NULL))
		return -errno;
	w->armed = due != UINT64_MAX;
	/*
	 * The application blocks on the fd next, which wakes for every
	 * socket and timer of the engines: the progress thread need not
	 * (uet_progress_thread.c) until it calls again, or until its timer
	 * is overdue (an application that armed and went elsewhere is
	 * progressed by the thread then).
	 */
	if (w->dom && w->armed) {
		atomic_store(&w->dom->app_armed_until_ns,
			     uet_engine_now_ns() + due + UET_WAIT_OVERDUE_NS);
		atomic_store(&w->dom->app_armed_calls,
			     atomic_load(&w->dom->app_calls));
	}
	return 0;
}

/* FI_GETWAIT and FI_GETWAITOBJ on a CQ, counter or EQ. */
int uet_wait_obj_control(struct uet_wait_obj *w, int command, void *arg)
{
	switch (command) {
	case FI_GETWAIT:
		if (!arg)
			return -FI_EINVAL;
		if (w->epfd < 0)
			return -FI_ENODATA;	/* FI_WAIT_NONE, FI_WAIT_YIELD */
		*(int *)arg = w->set ? uet_wait_set_fd(w->set) : w->epfd;
		return 0;
	case FI_GETWAITOBJ:
		if (!arg)
			return -FI_EINVAL;
		*(enum fi_wait_obj *)arg = w->epfd >= 0 ? FI_WAIT_FD : w->kind;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

/*
 * An endpoint of the domain got its engine (domain lock held): its socket
 * joins every fd wait object, which is signalled so that a thread asleep
 * on one re-arms its timer with the new engine's timers in view.
 */
void uet_wait_ep_enabled(struct uet_ep *ep)
{
	struct uet_list *pos;
	struct uet_wait_obj *w;
	int ret;

	uet_list_for_each(pos, &ep->dom->waits) {
		w = container_of(pos, struct uet_wait_obj, link);
		ret = uet_wait_epoll_add_engine(w->epfd, ep->eng);
		if (ret)
			FI_WARN(&uet_prov, FI_LOG_EP_CTRL,
				"wait object misses an endpoint: %s\n",
				fi_strerror(-ret));
		if (!w->pending)
			uet_wait_obj_signal(w);
	}
}

/* Its engine is about to go (domain lock held). */
void uet_wait_ep_closing(struct uet_ep *ep)
{
	struct uet_list *pos;
	struct uet_wait_obj *w;

	uet_list_for_each(pos, &ep->dom->waits) {
		w = container_of(pos, struct uet_wait_obj, link);
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, uet_engine_fd(ep->eng), NULL);
		if (uet_engine_wake_fd(ep->eng) >= 0)
			epoll_ctl(w->epfd, EPOLL_CTL_DEL,
				  uet_engine_wake_fd(ep->eng), NULL);
		if (uet_engine_svc_fd(ep->eng) >= 0)
			epoll_ctl(w->epfd, EPOLL_CTL_DEL,
				  uet_engine_svc_fd(ep->eng), NULL);
	}
}
