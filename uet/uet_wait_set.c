/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wait sets (fi_wait_open, fi_wait) and fi_trywait. A set is an epoll fd
 * holding its members' own epoll fds (uet_wait.c), so that it wakes on
 * whatever wakes one of them; fi_wait sleeps on it between checks of the
 * members, each of which drives its domain's progress.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "uet/uet.h"

struct uet_wait_set {
	struct fid_wait wait_fid;
	struct uet_fabric *fab;
	pthread_mutex_t lock;		/* members */
	int epfd;
	struct uet_list members;	/* struct uet_wait_obj, by set_link */
};

static const struct fi_ops uet_wait_set_fi_ops;

/* |set| if it is one of ours, opened on |fab|; else NULL. */
struct uet_wait_set *uet_wait_set_of(struct fid_wait *set,
				     const struct uet_fabric *fab)
{
	struct uet_wait_set *ws;

	if (!set || set->fid.fclass != FI_CLASS_WAIT ||
	    set->fid.ops != &uet_wait_set_fi_ops)
		return NULL;
	ws = container_of(set, struct uet_wait_set, wait_fid);
	return ws->fab == fab ? ws : NULL;
}

int uet_wait_set_fd(const struct uet_wait_set *set)
{
	return set->epfd;
}

int uet_wait_set_join(struct uet_wait_set *set, struct uet_wait_obj *w)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };
	int ret = 0;

	pthread_mutex_lock(&set->lock);
	if (epoll_ctl(set->epfd, EPOLL_CTL_ADD, w->epfd, &ev))
		ret = -errno;
	else
		uet_list_add_tail(&set->members, &w->set_link);
	pthread_mutex_unlock(&set->lock);
	if (!ret)
		w->set = set;
	return ret;
}

void uet_wait_set_leave(struct uet_wait_set *set, struct uet_wait_obj *w)
{
	pthread_mutex_lock(&set->lock);
	epoll_ctl(set->epfd, EPOLL_CTL_DEL, w->epfd, NULL);
	uet_list_del(&w->set_link);
	pthread_mutex_unlock(&set->lock);
	w->set = NULL;
}

/* ---- fi_trywait --------------------------------------------------------------- */
static struct uet_wait_obj *uet_wait_obj_of(struct fid *fid)
{
	switch (fid->fclass) {
	case FI_CLASS_CQ:
		return &container_of(fid, struct uet_cq, cq_fid.fid)->wait;
	case FI_CLASS_CNTR:
		return &container_of(fid, struct uet_cntr, cntr_fid.fid)->wait;
	case FI_CLASS_EQ:
		return &container_of(fid, struct uet_eq, eq_fid.fid)->wait;
	default:
		return NULL;
	}
}

static const struct uet_fabric *uet_wait_obj_fabric(
	const struct uet_wait_obj *w)
{
	if (w->dom)
		return w->dom->fab;
	return container_of(w->owner, struct uet_eq, eq_fid.fid)->fab;
}

/* Progress once; -FI_EAGAIN when the owner has something to read. */
static int uet_wait_obj_try(struct uet_wait_obj *w)
{
	switch (w->owner->fclass) {
	case FI_CLASS_CQ:
		return uet_cq_trywait(container_of(w->owner, struct uet_cq,
						   cq_fid.fid));
	case FI_CLASS_CNTR:
		return uet_cntr_trywait(container_of(w->owner,
						     struct uet_cntr,
						     cntr_fid.fid));
	default:
		return uet_eq_trywait(container_of(w->owner, struct uet_eq,
						   eq_fid.fid));
	}
}

static int uet_wait_set_try(struct uet_wait_set *set)
{
	struct uet_list *pos;
	int ret = 0;

	pthread_mutex_lock(&set->lock);
	uet_list_for_each(pos, &set->members) {
		ret = uet_wait_obj_try(container_of(pos, struct uet_wait_obj,
						    set_link));
		if (ret)
			break;
	}
	pthread_mutex_unlock(&set->lock);
	return ret;
}

static int uet_trywait_one(const struct uet_fabric *fab, struct fid *fid)
{
	struct uet_wait_set *set;
	struct uet_wait_obj *w;

	if (!fid)
		return -FI_EINVAL;
	if (fid->fclass == FI_CLASS_WAIT) {
		set = uet_wait_set_of(container_of(fid, struct fid_wait, fid),
				      fab);
		return set ? uet_wait_set_try(set) : -FI_EINVAL;
	}
	w = uet_wait_obj_of(fid);
	/* Without an fd there is nothing to block on natively. */
	if (!w || w->epfd < 0 || uet_wait_obj_fabric(w) != fab)
		return -FI_EINVAL;
	return uet_wait_obj_try(w);
}

/*
 * fi_poll(3): FI_SUCCESS when the application may block on the fds of
 * |fids| (each empty, its eventfd drained, its timer armed), -FI_EAGAIN
 * when one has something to read first.
 */
int uet_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	const struct uet_fabric *fab = container_of(fabric, struct uet_fabric,
						    fab_fid);
	int ret;

	if (count < 0 || (count && !fids))
		return -FI_EINVAL;
	for (int i = 0; i < count; i++) {
		ret = uet_trywait_one(fab, fids[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- the set ------------------------------------------------------------------- */
/* Until a member has something to read (0) or |timeout| ms pass. */
static int uet_wait_set_wait(struct fid_wait *wait_fid, int timeout)
{
	struct uet_wait_set *set = container_of(wait_fid, struct uet_wait_set,
						wait_fid);
	uint64_t deadline = uet_deadline_ns(timeout), now;
	struct epoll_event ev;
	int ret, ms = -1;

	for (;;) {
		ret = uet_wait_set_try(set);
		if (ret)
			return ret == -FI_EAGAIN ? 0 : ret;
		if (deadline != UINT64_MAX) {
			now = uet_engine_now_ns();
			if (now >= deadline)
				return -FI_ETIMEDOUT;
			ms = (int)((deadline - now + 999999) / 1000000);
		}
		/* A wake-up may be a frame that completes nothing: recheck. */
		if (epoll_wait(set->epfd, &ev, 1, ms) < 0 && errno != EINTR)
			return -errno;
	}
}

static int uet_wait_set_close(struct fid *fid)
{
	struct uet_wait_set *set = container_of(fid, struct uet_wait_set,
						wait_fid.fid);
	bool busy;

	pthread_mutex_lock(&set->lock);
	busy = !uet_list_is_empty(&set->members);
	pthread_mutex_unlock(&set->lock);
	if (busy)
		return -FI_EBUSY;
	close(set->epfd);
	pthread_mutex_destroy(&set->lock);
	atomic_fetch_sub(&set->fab->ref, 1);
	free(set);
	return 0;
}

static int uet_wait_set_control(struct fid *fid, int command, void *arg)
{
	struct uet_wait_set *set = container_of(fid, struct uet_wait_set,
						wait_fid.fid);

	if (command != FI_GETWAIT && command != FI_GETWAITOBJ)
		return -FI_ENOSYS;
	if (!arg)
		return -FI_EINVAL;
	if (command == FI_GETWAIT)
		*(int *)arg = set->epfd;
	else
		*(enum fi_wait_obj *)arg = FI_WAIT_FD;
	return 0;
}

static const struct fi_ops uet_wait_set_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uet_wait_set_close,
	.bind = uet_no_bind,
	.control = uet_wait_set_control,
	.ops_open = uet_no_ops_open,
	.tostr = uet_no_tostr,
	.ops_set = uet_no_ops_set,
};

static const struct fi_ops_wait uet_wait_set_ops = {
	.size = sizeof(struct fi_ops_wait),
	.wait = uet_wait_set_wait,
};

/* FI_WAIT_FD or FI_WAIT_UNSPEC (which is FD); no mutex, yield or pollfd. */
int uet_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
		  struct fid_wait **waitset)
{
	struct uet_fabric *fab = container_of(fabric, struct uet_fabric,
					      fab_fid);
	struct uet_wait_set *set;

	if (!attr || !waitset || attr->flags)
		return -FI_EINVAL;
	switch (attr->wait_obj) {
	case FI_WAIT_UNSPEC:
	case FI_WAIT_FD:
		break;
	case FI_WAIT_MUTEX_COND:
	case FI_WAIT_YIELD:
	case FI_WAIT_POLLFD:
		return -FI_ENOSYS;
	default:
		return -FI_EINVAL;	/* FI_WAIT_NONE, FI_WAIT_SET: no set */
	}
	set = calloc(1, sizeof(*set));
	if (!set)
		return -FI_ENOMEM;
	set->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (set->epfd < 0 || pthread_mutex_init(&set->lock, NULL)) {
		if (set->epfd >= 0)
			close(set->epfd);
		free(set);
		return -FI_ENOMEM;
	}
	uet_list_init(&set->members);
	set->fab = fab;
	atomic_fetch_add(&fab->ref, 1);
	set->wait_fid.fid.fclass = FI_CLASS_WAIT;
	set->wait_fid.fid.context = NULL;
	set->wait_fid.fid.ops = (struct fi_ops *)&uet_wait_set_fi_ops;
	set->wait_fid.ops = (struct fi_ops_wait *)&uet_wait_set_ops;
	*waitset = &set->wait_fid;
	return 0;
}
