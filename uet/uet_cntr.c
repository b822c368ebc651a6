/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Counters: a success value and an error value. Reads and waits drive
 * progress (FI_PROGRESS_MANUAL); waits sleep on the engines' sockets and
 * the wait object's eventfd (uet_wait.c), which every change signals.
 */
#include <stdlib.h>

#include "uet/uet.h"

/* Both are called with the domain lock held. */
void uet_cntr_inc(struct uet_cntr *c)
{
	c->value++;
	uet_wait_obj_note(&c->wait);
}

void uet_cntr_inc_err(struct uet_cntr *c)
{
	c->err++;
	uet_wait_obj_note(&c->wait);
}

/*
 * Whether the value or the error count moved since fi_poll, fi_trywait,
 * fi_cntr_set or fi_cntr_add last looked; now they have. Domain lock held.
 */
bool uet_cntr_changed(struct uet_cntr *c)
{
	bool changed = c->value != c->seen_value || c->err != c->seen_err;

	c->seen_value = c->value;
	c->seen_err = c->err;
	return changed;
}

static struct uet_cntr *uet_cntr_of(struct fid_cntr *cntr_fid)
{
	return container_of(cntr_fid, struct uet_cntr, cntr_fid);
}

static uint64_t uet_cntr_read(struct fid_cntr *cntr_fid)
{
	struct uet_cntr *c = uet_cntr_of(cntr_fid);
	uint64_t v;

	uet_domain_lock(c->dom);
	uet_domain_progress(c->dom);
	v = c->value;
	if (v != c->read_value) {
		c->read_value = v;
		uet_domain_busy(c->dom);
	} else if (uet_domain_idle(c->dom, c->wait.evfd)) {
		/* Nothing for a while: it slept a little; look again. */
		uet_domain_progress(c->dom);
		v = c->value;
	}
	/* Read: its fd must not stay readable for what was seen. */
	uet_wait_obj_idle(&c->wait);
	uet_domain_unlock(c->dom);
	return v;
}

static uint64_t uet_cntr_readerr(struct fid_cntr *cntr_fid)
{
	struct uet_cntr *c = uet_cntr_of(cntr_fid);
	uint64_t v;

	uet_domain_lock(c->dom);
	uet_domain_progress(c->dom);
	v = c->err;
	uet_wait_obj_idle(&c->wait);
	uet_domain_unlock(c->dom);
	return v;
}

static int uet_cntr_update(struct fid_cntr *cntr_fid, uint64_t value,
			   bool is_err, bool is_add)
{
	struct uet_cntr *c = uet_cntr_of(cntr_fid);
	uint64_t *v = is_err ? &c->err : &c->value;

	uet_domain_lock(c->dom);
	*v = is_add ? *v + value : value;
	/* fi_poll(3): a change the application made is no event... */
	if (is_err)
		c->seen_err = c->err;
	else
		c->seen_value = c->value;
	/* ...but a thread in fi_cntr_wait may wait for it. */
	uet_wait_obj_note(&c->wait);
	uet_domain_unlock(c->dom);
	return 0;
}

static int uet_cntr_add(struct fid_cntr *cntr_fid, uint64_t value)
{
	return uet_cntr_update(cntr_fid, value, false, true);
}

static int uet_cntr_set(struct fid_cntr *cntr_fid, uint64_t value)
{
	return uet_cntr_update(cntr_fid, value, false, false);
}

static int uet_cntr_adderr(struct fid_cntr *cntr_fid, uint64_t value)
{
	return uet_cntr_update(cntr_fid, value, true, true);
}

static int uet_cntr_seterr(struct fid_cntr *cntr_fid, uint64_t value)
{
	return uet_cntr_update(cntr_fid, value, true, false);
}

/* Until value >= threshold (0), the error value changes (-FI_EAVAIL), or
 * |timeout| ms pass (-FI_ETIMEDOUT). */
static int uet_cntr_wait(struct fid_cntr *cntr_fid, uint64_t threshold,
			 int timeout)
{
	struct uet_cntr *c = uet_cntr_of(cntr_fid);
	uint64_t deadline = uet_deadline_ns(timeout), err, spin_until = 0;
	int ret;

	uet_domain_lock(c->dom);
	err = c->err;
	for (;;) {
		uet_domain_progress(c->dom);
		if (c->value >= threshold) {
			ret = 0;
			break;
		}
		if (c->err != err) {
			ret = -FI_EAVAIL;
			break;
		}
		if (uet_deadline_passed(deadline)) {
			ret = -FI_ETIMEDOUT;
			break;
		}
		if (uet_domain_sread_spins(c->dom, &spin_until))
			continue;
		/* What waits for our answer would wait out our sleep. */
		uet_domain_send_held(c->dom);
		if (uet_domain_wait(c->dom, c->wait.evfd, deadline))
			uet_wait_obj_drain(&c->wait);
	}
	uet_domain_unlock(c->dom);
	return ret;
}

/* fi_trywait on the counter: progress once; block only if unchanged. */
int uet_cntr_trywait(struct uet_cntr *c)
{
	int ret;

	if (c->wait.epfd < 0)
		return -FI_EINVAL;	/* FI_WAIT_NONE, FI_WAIT_YIELD */
	uet_domain_lock(c->dom);
	uet_domain_progress(c->dom);
	ret = uet_cntr_changed(c) ? -FI_EAGAIN : uet_wait_obj_arm(&c->wait);
	uet_domain_unlock(c->dom);
	return ret;
}

static int uet_cntr_close(struct fid *fid)
{
	struct uet_cntr *c = container_of(fid, struct uet_cntr, cntr_fid.fid);
	struct uet_domain *dom = c->dom;

	if (atomic_load(&c->ref))
		return -FI_EBUSY;
	/* Regions bound to it stop counting (fi_mr.3: counters go first). */
	uet_domain_lock(dom);
	uet_mr_detach_cntr(c);
	uet_domain_unlock(dom);
	uet_wait_obj_fini(&c->wait);
	atomic_fetch_sub(&dom->ref, 1);
	free(c);
	return 0;
}

static int uet_cntr_control(struct fid *fid, int command, void *arg)
{
	struct uet_cntr *c = container_of(fid, struct uet_cntr, cntr_fid.fid);

	return uet_wait_obj_control(&c->wait, command, arg);
}

static const struct fi_ops uet_cntr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uet_cntr_close,
	.bind = uet_no_bind,
	.control = uet_cntr_control,
	.ops_open = uet_no_ops_open,
	.tostr = uet_no_tostr,
	.ops_set = uet_no_ops_set,
};

static const struct fi_ops_cntr uet_cntr_ops = {
	.size = sizeof(struct fi_ops_cntr),
	.read = uet_cntr_read,
	.readerr = uet_cntr_readerr,
	.add = uet_cntr_add,
	.set = uet_cntr_set,
	.wait = uet_cntr_wait,
	.adderr = uet_cntr_adderr,
	.seterr = uet_cntr_seterr,
};

int uet_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		  struct fid_cntr **cntr_fid, void *context)
{
	struct uet_domain *dom = container_of(domain, struct uet_domain,
					      dom_fid);
	struct uet_cntr *c;
	int ret;

	if (!cntr_fid)
		return -FI_EINVAL;
	if (attr && (attr->events != FI_CNTR_EVENTS_COMP || attr->flags))
		return -FI_EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FI_ENOMEM;
	c->dom = dom;
	atomic_init(&c->ref, 0);
	c->cntr_fid.fid.fclass = FI_CLASS_CNTR;
	c->cntr_fid.fid.context = context;
	c->cntr_fid.fid.ops = (struct fi_ops *)&uet_cntr_fi_ops;
	c->cntr_fid.ops = (struct fi_ops_cntr *)&uet_cntr_ops;
	/* Last: a wait set may try the counter as soon as it joins. */
	ret = uet_wait_obj_init(&c->wait, &c->cntr_fid.fid, dom, dom->fab,
				attr ? attr->wait_obj : FI_WAIT_NONE,
				attr ? attr->wait_set : NULL);
	if (ret) {
		free(c);
		return ret;
	}
	atomic_fetch_add(&dom->ref, 1);
	*cntr_fid = &c->cntr_fid;
	return 0;
}
