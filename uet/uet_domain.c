/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The domain: one interface, one JobID (from the domain's auth_key, else
 * FI_UET_JOB_ID), one lock, the memory regions and the endpoints.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "uet/uet.h"
#include "uet/uet_iface.h"

/* Every open domain, for the flush at exit (uet_domains_flush). */
static struct uet_list uet_domains = { &uet_domains, &uet_domains };
static pthread_mutex_t uet_domains_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The process exits (or libfabric lets the provider go): the progress
 * threads stop, and what the endpoints owe their peers (ACKs of what
 * arrived, a completion's ACK held for the next call) goes out now, or the
 * peers resend to PDCs that are gone and fail what did arrive. A domain
 * whose lock stays held (a thread of the application inside a call) is
 * passed over after a while rather than hanging the exit.
 */
/* 50 ms from now, for pthread_mutex_timedlock. */
static struct timespec uet_domains_flush_deadline(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 50000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	return until;
}

void uet_domains_flush(void)
{
	struct timespec until = uet_domains_flush_deadline();
	struct uet_list *pos, *epos;

	/* A forked child may find it held by a thread it does not have. */
	if (pthread_mutex_timedlock(&uet_domains_lock, &until))
		return;
	uet_list_for_each(pos, &uet_domains) {
		struct uet_domain *dom = container_of(pos, struct uet_domain,
						      all_link);

		/*
		 * A forked child's copy: its sockets and peers are the
		 * parent's, which flushes them itself.
		 */
		if (dom->owner_pid != getpid())
			continue;
		until = uet_domains_flush_deadline();
		if (pthread_mutex_timedlock(&dom->lock, &until))
			continue;
		/*
		 * No progress thread after this: the library may be unloaded
		 * next (fi_fini closes providers), with its code under it.
		 */
		uet_domain_unlock(dom);
		uet_progress_thread_stop(dom);
		uet_domain_lock(dom);
		uet_list_for_each(epos, &dom->eps) {
			struct uet_ep *ep = container_of(epos, struct uet_ep,
							 link);

			if (ep->eng)
				uet_engine_flush(ep->eng);
		}
		uet_domain_unlock(dom);
	}
	pthread_mutex_unlock(&uet_domains_lock);
}

static int uet_domain_close(struct fid *fid)
{
	struct uet_domain *dom = container_of(fid, struct uet_domain,
					      dom_fid.fid);

	if (atomic_load(&dom->ref))
		return -FI_EBUSY;
	uet_progress_thread_stop(dom);
	pthread_mutex_lock(&uet_domains_lock);
	uet_list_del(&dom->all_link);
	pthread_mutex_unlock(&uet_domains_lock);
	pthread_mutex_destroy(&dom->lock);
	atomic_fetch_sub(&dom->fab->ref, 1);
	free(dom);
	return 0;
}

static int uet_domain_control(struct fid *fid, int command, void *arg)
{
	struct uet_domain *dom = container_of(fid, struct uet_domain,
					      dom_fid.fid);
	int ret;

	switch (command) {
	case FI_MAP_RAW_MR:
		if (!arg)
			return -FI_EINVAL;
		uet_domain_lock(dom);
		ret = uet_mr_map_raw(dom, arg);
		uet_domain_unlock(dom);
		return ret;
	case FI_UNMAP_KEY:
		/* Mapping allocates nothing: the key is the whole of it. */
		return arg ? 0 : -FI_EINVAL;
	default:
		return -FI_ENOSYS;
	}
}

static const struct fi_ops uet_domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uet_domain_close,
	.bind = uet_no_bind,
	.control = uet_domain_control,
	.ops_open = uet_domain_ops_open,
	.tostr = uet_no_tostr,
	.ops_set = uet_no_ops_set,
};

static int uet_endpoint2(struct fid_domain *domain, struct fi_info *info,
			 struct fid_ep **ep, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EBADFLAGS;
	return uet_ep_open(domain, info, ep, context);
}

static const struct fi_ops_domain uet_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = uet_av_open,
	.cq_open = uet_cq_open,
	.endpoint = uet_ep_open,
	.scalable_ep = uet_no_scalable_ep,
	.cntr_open = uet_cntr_open,
	.poll_open = uet_poll_open,
	.stx_ctx = uet_no_stx_ctx,
	.srx_ctx = uet_no_srx_ctx,
	.query_atomic = uet_query_atomic,
	.query_collective = uet_no_query_collective,
	.endpoint2 = uet_endpoint2,
};

/* The JobID: a 4-byte auth_key (host order), else FI_UET_JOB_ID. */
static int uet_domain_job(const struct fi_domain_attr *attr,
			  const struct uet_params *p, uint32_t *job)
{
	/* getinfo reports the size a key has, with no key. */
	if (!attr->auth_key) {
		*job = p->job_id;
		return 0;
	}
	if (attr->auth_key_size != sizeof(*job))
		return -FI_EINVAL;
	memcpy(job, attr->auth_key, sizeof(*job));
	return *job <= 0xFFFFFF ? 0 : -FI_EINVAL;
}

/* The interface and the address on it, from the info's source. */
static int uet_domain_where(struct uet_domain *dom, const struct fi_info *info)
{
	const char *name = info->domain_attr->name;
	struct uet_addr *a = &dom->src;

	if (!name || strlen(name) >= sizeof(dom->ifname))
		return -FI_EINVAL;
	strcpy(dom->ifname, name);
	dom->link_mbps = uet_cc_link_mbps(name, dom->params.link_mbps,
					  &dom->link_guessed);
	a->pid_on_fep = dom->params.pid_on_fep;
	a->ri_base = dom->params.ri_base;
	if (info->src_addr) {
		if (info->addr_format != FI_FORMAT_UNSPEC ||
		    uet_addr_decode(a, info->src_addr, info->src_addrlen) < 0)
			return -FI_EINVAL;
	} else if (uet_iface_fa(name, false, &a->fa) &&
		   uet_iface_fa(name, true, &a->fa)) {
		return -FI_ENODEV;
	}
	a->fep_caps = UET_ADDR_CAPS |
		      (dom->params.rudi ? UET_ADDR_CAP_RUDI : 0);
	a->initiator = uet_addr_initiator(&a->fa, a->pid_on_fep);
	return 0;
}

/* How long the application may be away before the thread runs. */
static uint64_t uet_domain_idle_ns(enum fi_progress mode, int64_t idle_us)
{
	if (idle_us < 0)
		idle_us = UET_PROGRESS_IDLE_US;
	/* Auto progress has no "off": the shortest period instead. */
	if (mode == FI_PROGRESS_AUTO && idle_us < UET_PROGRESS_IDLE_MIN_US)
		idle_us = UET_PROGRESS_IDLE_MIN_US;
	return (uint64_t)idle_us * 1000;
}

static int uet_domain_init(struct uet_domain *dom, const struct fi_info *info)
{
	const struct fi_domain_attr *attr = info->domain_attr;
	int ret;

	uet_params_get(&dom->params);
	ret = uet_params_spin_get(&dom->params);
	if (ret)
		return ret;
	uet_domain_spin_init(dom);
	ret = uet_domain_job(attr, &dom->params, &dom->job_id);
	if (ret)
		return ret;
	dom->mr_mode = uet_mr_mode_effective(attr->mr_mode);
	if ((dom->mr_mode & FI_MR_VIRT_ADDR) &&
	    !(dom->mr_mode & FI_MR_PROV_KEY))
		return -FI_EINVAL;
	dom->progress = attr->data_progress == FI_PROGRESS_AUTO ||
			attr->control_progress == FI_PROGRESS_AUTO ?
			FI_PROGRESS_AUTO : FI_PROGRESS_MANUAL;
	dom->prog_idle_ns = uet_domain_idle_ns(dom->progress,
					       dom->params.progress_idle_us);
	dom->prog_stop_fd = -1;
	dom->threading = attr->threading;
	dom->caps = info->caps;
	dom->next_rkey = 1;
	uet_list_init(&dom->eps);
	uet_list_init(&dom->waits);
	return uet_domain_where(dom, info);
}

int uet_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **domain, void *context)
{
	struct uet_fabric *fab = container_of(fabric, struct uet_fabric,
					      fab_fid);
	struct uet_domain *dom;
	int ret;

	if (!info || !info->domain_attr || !domain)
		return -FI_EINVAL;
	dom = calloc(1, sizeof(*dom));
	if (!dom)
		return -FI_ENOMEM;
	ret = uet_domain_init(dom, info);
	if (ret)
		goto err_free;
	ret = -pthread_mutex_init(&dom->lock, NULL);
	if (ret)
		goto err_free;
	atomic_init(&dom->ref, 0);
	dom->owner_pid = getpid();
	pthread_mutex_lock(&uet_domains_lock);
	uet_list_add_tail(&uet_domains, &dom->all_link);
	pthread_mutex_unlock(&uet_domains_lock);
	dom->fab = fab;
	atomic_fetch_add(&fab->ref, 1);
	dom->dom_fid.fid.fclass = FI_CLASS_DOMAIN;
	dom->dom_fid.fid.context = context;
	dom->dom_fid.fid.ops = (struct fi_ops *)&uet_domain_fi_ops;
	dom->dom_fid.ops = (struct fi_ops_domain *)&uet_domain_ops;
	dom->dom_fid.mr = (struct fi_ops_mr *)&uet_mr_ops;
	*domain = &dom->dom_fid;
	return 0;
err_free:
	free(dom);
	return ret;
}
