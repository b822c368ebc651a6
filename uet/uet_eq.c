/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Event queues, minimal: RDM endpoints have no connection events and
 * registration is synchronous, so the only events are those written with
 * fi_eq_write. Reads, blocking reads (a condition variable) and binding;
 * the wait object (uet_wait.c) of FI_GETWAIT and fi_trywait, which holds
 * no endpoint socket: nothing the engines do reaches an EQ.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uet/uet.h"

struct uet_eq_event {
	struct uet_list link;
	uint32_t event;
	size_t len;
	uint8_t data[];
};

static struct uet_eq *uet_eq_of(struct fid_eq *eq_fid)
{
	return container_of(eq_fid, struct uet_eq, eq_fid);
}

/* Called with eq->lock held. */
static ssize_t uet_eq_take(struct uet_eq *eq, uint32_t *event, void *buf,
			   size_t len, uint64_t flags)
{
	struct uet_eq_event *ev;

	if (uet_list_is_empty(&eq->events)) {
		uet_wait_obj_idle(&eq->wait);
		return -FI_EAGAIN;
	}
	ev = container_of(eq->events.next, struct uet_eq_event, link);
	if (len < ev->len)
		return -FI_ETOOSMALL;
	if (event)
		*event = ev->event;
	memcpy(buf, ev->data, ev->len);
	len = ev->len;
	if (!(flags & FI_PEEK)) {
		uet_list_del(&ev->link);
		free(ev);
	}
	return (ssize_t)len;
}

static ssize_t uet_eq_read(struct fid_eq *eq_fid, uint32_t *event, void *buf,
			   size_t len, uint64_t flags)
{
	struct uet_eq *eq = uet_eq_of(eq_fid);
	ssize_t ret;

	if ((flags & ~FI_PEEK) || (len && !buf))
		return -FI_EINVAL;
	pthread_mutex_lock(&eq->lock);
	ret = uet_eq_take(eq, event, buf, len, flags);
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

/* We never queue error events. */
static ssize_t uet_eq_readerr(struct fid_eq *eq_fid,
			      struct fi_eq_err_entry *buf, uint64_t flags)
{
	(void)eq_fid;
	if (!buf || (flags & ~FI_PEEK))
		return -FI_EINVAL;
	return -FI_EAGAIN;
}

static ssize_t uet_eq_write(struct fid_eq *eq_fid, uint32_t event,
			    const void *buf, size_t len, uint64_t flags)
{
	struct uet_eq *eq = uet_eq_of(eq_fid);
	struct uet_eq_event *ev;

	if (flags || (len && !buf))
		return -FI_EINVAL;
	ev = malloc(sizeof(*ev) + len);
	if (!ev)
		return -FI_ENOMEM;
	ev->event = event;
	ev->len = len;
	if (len)
		memcpy(ev->data, buf, len);
	pthread_mutex_lock(&eq->lock);
	uet_list_add_tail(&eq->events, &ev->link);
	pthread_cond_broadcast(&eq->cond);
	uet_wait_obj_note(&eq->wait);
	pthread_mutex_unlock(&eq->lock);
	return (ssize_t)len;
}

static ssize_t uet_eq_sread(struct fid_eq *eq_fid, uint32_t *event,
			    void *buf, size_t len, int timeout,
			    uint64_t flags)
{
	struct uet_eq *eq = uet_eq_of(eq_fid);
	struct timespec ts;
	ssize_t ret;
	int wret = 0;

	if ((flags & ~FI_PEEK) || (len && !buf))
		return -FI_EINVAL;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (timeout >= 0) {
		ts.tv_sec += timeout / 1000;
		ts.tv_nsec += (long)(timeout % 1000) * 1000000;
		ts.tv_sec += ts.tv_nsec / 1000000000;
		ts.tv_nsec %= 1000000000;
	}
	pthread_mutex_lock(&eq->lock);
	while ((ret = uet_eq_take(eq, event, buf, len, flags)) == -FI_EAGAIN &&
	       wret != ETIMEDOUT) {
		if (timeout < 0)
			wret = pthread_cond_wait(&eq->cond, &eq->lock);
		else
			wret = pthread_cond_timedwait(&eq->cond, &eq->lock,
						      &ts);
	}
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

static const char *uet_eq_strerror(struct fid_eq *eq_fid, int prov_errno,
				   const void *err_data, char *buf, size_t len)
{
	(void)eq_fid;
	(void)err_data;
	return uet_strerror(prov_errno, buf, len);
}

/* fi_trywait on the EQ: events are written, never progressed. */
int uet_eq_trywait(struct uet_eq *eq)
{
	int ret;

	if (eq->wait.epfd < 0)
		return -FI_EINVAL;	/* FI_WAIT_NONE, FI_WAIT_YIELD */
	pthread_mutex_lock(&eq->lock);
	ret = uet_list_is_empty(&eq->events) ? uet_wait_obj_arm(&eq->wait) :
					       -FI_EAGAIN;
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

static int uet_eq_close(struct fid *fid)
{
	struct uet_eq *eq = container_of(fid, struct uet_eq, eq_fid.fid);
	struct uet_eq_event *ev;

	if (atomic_load(&eq->ref))
		return -FI_EBUSY;
	while (!uet_list_is_empty(&eq->events)) {
		ev = container_of(eq->events.next, struct uet_eq_event, link);
		uet_list_del(&ev->link);
		free(ev);
	}
	uet_wait_obj_fini(&eq->wait);
	pthread_cond_destroy(&eq->cond);
	pthread_mutex_destroy(&eq->lock);
	atomic_fetch_sub(&eq->fab->ref, 1);
	free(eq);
	return 0;
}

static int uet_eq_control(struct fid *fid, int command, void *arg)
{
	struct uet_eq *eq = container_of(fid, struct uet_eq, eq_fid.fid);

	return uet_wait_obj_control(&eq->wait, command, arg);
}

static const struct fi_ops uet_eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uet_eq_close,
	.bind = uet_no_bind,
	.control = uet_eq_control,
	.ops_open = uet_no_ops_open,
	.tostr = uet_no_tostr,
	.ops_set = uet_no_ops_set,
};

static const struct fi_ops_eq uet_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = uet_eq_read,
	.readerr = uet_eq_readerr,
	.write = uet_eq_write,
	.sread = uet_eq_sread,
	.strerror = uet_eq_strerror,
};

int uet_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		struct fid_eq **eq_fid, void *context)
{
	struct uet_fabric *fab = container_of(fabric, struct uet_fabric,
					      fab_fid);
	struct uet_eq *eq;
	int ret;

	if (!attr || !eq_fid)
		return -FI_EINVAL;
	if (attr->flags & ~FI_WRITE)
		return -FI_EBADFLAGS;
	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return -FI_ENOMEM;
	if (pthread_mutex_init(&eq->lock, NULL)) {
		free(eq);
		return -FI_ENOMEM;
	}
	pthread_cond_init(&eq->cond, NULL);
	uet_list_init(&eq->events);
	atomic_init(&eq->ref, 0);
	eq->fab = fab;
	eq->eq_fid.fid.fclass = FI_CLASS_EQ;
	eq->eq_fid.fid.context = context;
	eq->eq_fid.fid.ops = (struct fi_ops *)&uet_eq_fi_ops;
	eq->eq_fid.ops = (struct fi_ops_eq *)&uet_eq_ops;
	/* Last: a wait set may try the EQ as soon as it joins. */
	ret = uet_wait_obj_init(&eq->wait, &eq->eq_fid.fid, NULL, fab,
				attr->wait_obj, attr->wait_set);
	if (ret) {
		pthread_cond_destroy(&eq->cond);
		pthread_mutex_destroy(&eq->lock);
		free(eq);
		return ret;
	}
	atomic_fetch_add(&fab->ref, 1);
	*eq_fid = &eq->eq_fid;
	return 0;
}
