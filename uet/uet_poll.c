/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Poll sets (fi_poll(3)): CQs and counters of one domain; fi_poll drives
 * the domain's progress once and names, by their contexts, the CQs that
 * hold completions or errors and the counters whose value or error count
 * changed since fi_poll, fi_cntr_set or fi_cntr_add last looked. Members
 * are held (closing one says -FI_EBUSY) until removed or the set closes.
 * The member list is guarded by the domain lock.
 */
#include <stdlib.h>

#include "uet/uet.h"

struct uet_poll_member {
	struct uet_list link;
	struct fid *fid;
};

struct uet_poll_set {
	struct fid_poll poll_fid;
	struct uet_domain *dom;
	struct uet_list members;	/* struct uet_poll_member */
};

static struct uet_poll_set *uet_poll_of(struct fid_poll *poll_fid)
{
	return container_of(poll_fid, struct uet_poll_set, poll_fid);
}

/* The reference a member holds on its CQ or counter. */
static atomic_int *uet_poll_member_ref(struct fid *fid)
{
	if (fid->fclass == FI_CLASS_CQ)
		return &container_of(fid, struct uet_cq, cq_fid.fid)->ref;
	return &container_of(fid, struct uet_cntr, cntr_fid.fid)->ref;
}

/* Called with the domain lock held. */
static struct uet_poll_member *uet_poll_find(struct uet_poll_set *ps,
					     const struct fid *fid)
{
	struct uet_list *pos;
	struct uet_poll_member *m;

	uet_list_for_each(pos, &ps->members) {
		m = container_of(pos, struct uet_poll_member, link);
		if (m->fid == fid)
			return m;
	}
	return NULL;
}

static int uet_poll_add(struct fid_poll *poll_fid, struct fid *fid,
			uint64_t flags)
{
	struct uet_poll_set *ps = uet_poll_of(poll_fid);
	struct uet_domain *dom;
	struct uet_poll_member *m;
	int ret = 0;

	if (!fid)
		return -FI_EINVAL;
	if (flags)
		return -FI_EBADFLAGS;
	if (fid->fclass == FI_CLASS_CQ)
		dom = container_of(fid, struct uet_cq, cq_fid.fid)->dom;
	else if (fid->fclass == FI_CLASS_CNTR)
		dom = container_of(fid, struct uet_cntr, cntr_fid.fid)->dom;
	else
		return -FI_EINVAL;	/* only CQs and counters */
	if (dom != ps->dom)
		return -FI_EDOMAIN;
	m = malloc(sizeof(*m));
	if (!m)
		return -FI_ENOMEM;
	m->fid = fid;
	uet_domain_lock(ps->dom);
	if (uet_poll_find(ps, fid)) {
		ret = -FI_EALREADY;
	} else {
		uet_list_add_tail(&ps->members, &m->link);
		atomic_fetch_add(uet_poll_member_ref(fid), 1);
	}
	uet_domain_unlock(ps->dom);
	if (ret)
		free(m);
	return ret;
}

static int uet_poll_del(struct fid_poll *poll_fid, struct fid *fid,
			uint64_t flags)
{
	struct uet_poll_set *ps = uet_poll_of(poll_fid);
	struct uet_poll_member *m;

	if (!fid)
		return -FI_EINVAL;
	if (flags)
		return -FI_EBADFLAGS;
	uet_domain_lock(ps->dom);
	m = uet_poll_find(ps, fid);
	if (m)
		uet_list_del(&m->link);
	uet_domain_unlock(ps->dom);
	if (!m)
		return -FI_ENOENT;
	atomic_fetch_sub(uet_poll_member_ref(fid), 1);
	free(m);
	return 0;
}

/* Called with the domain lock held. */
static bool uet_poll_member_ready(struct uet_poll_member *m)
{
	if (m->fid->fclass == FI_CLASS_CQ)
		return uet_cq_has_events(container_of(m->fid, struct uet_cq,
						      cq_fid.fid));
	return uet_cntr_changed(container_of(m->fid, struct uet_cntr,
					     cntr_fid.fid));
}

/* The number of contexts written (0: nothing happened), up to |count|. */
static int uet_poll_run(struct fid_poll *poll_fid, void **context, int count)
{
	struct uet_poll_set *ps = uet_poll_of(poll_fid);
	struct uet_list *pos;
	struct uet_poll_member *m;
	int n = 0;

	if (count < 0 || (count && !context))
		return -FI_EINVAL;
	uet_domain_lock(ps->dom);
	uet_domain_progress(ps->dom);
	uet_list_for_each(pos, &ps->members) {
		if (n == count)
			break;	/* the rest are looked at next time */
		m = container_of(pos, struct uet_poll_member, link);
		if (uet_poll_member_ready(m))
			context[n++] = m->fid->context;
	}
	uet_domain_unlock(ps->dom);
	return n;
}

static int uet_poll_close(struct fid *fid)
{
	struct uet_poll_set *ps = container_of(fid, struct uet_poll_set,
					       poll_fid.fid);
	struct uet_poll_member *m;

	while (!uet_list_is_empty(&ps->members)) {
		m = container_of(ps->members.next, struct uet_poll_member,
				 link);
		uet_list_del(&m->link);
		atomic_fetch_sub(uet_poll_member_ref(m->fid), 1);
		free(m);
	}
	atomic_fetch_sub(&ps->dom->ref, 1);
	free(ps);
	return 0;
}

static const struct fi_ops uet_poll_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uet_poll_close,
	.bind = uet_no_bind,
	.control = uet_no_control,
	.ops_open = uet_no_ops_open,
	.tostr = uet_no_tostr,
	.ops_set = uet_no_ops_set,
};

static const struct fi_ops_poll uet_poll_ops = {
	.size = sizeof(struct fi_ops_poll),
	.poll = uet_poll_run,
	.poll_add = uet_poll_add,
	.poll_del = uet_poll_del,
};

int uet_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
		  struct fid_poll **pollset)
{
	struct uet_domain *dom = container_of(domain, struct uet_domain,
					      dom_fid);
	struct uet_poll_set *ps;

	if (!pollset || (attr && attr->flags))
		return -FI_EINVAL;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -FI_ENOMEM;
	ps->dom = dom;
	uet_list_init(&ps->members);
	atomic_fetch_add(&dom->ref, 1);
	ps->poll_fid.fid.fclass = FI_CLASS_POLL;
	ps->poll_fid.fid.ops = (struct fi_ops *)&uet_poll_fi_ops;
	ps->poll_fid.ops = (struct fi_ops_poll *)&uet_poll_ops;
	*pollset = &ps->poll_fid;
	return 0;
}
