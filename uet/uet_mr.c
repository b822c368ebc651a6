/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Memory regions (seeds/fi_mr.3.txt). A region is one virtual range, found
 * by peers through its 48-bit RKEY in the RI table (JobID, PIDonFEP,
 * ri_base) of each endpoint that serves it: the endpoint it is bound to
 * under FI_MR_ENDPOINT, else every endpoint of the domain. Registration
 * adds it there (ses_mr_add) with the SES access rights its remote access
 * flags grant; closing removes it, which bumps the table's generation.
 *
 * Keys: the RKEY itself; under FI_MR_VIRT_ADDR the key also carries the
 * region's base (base in bits 63:16, RKEY in 15:0) so that an initiator
 * turns a target virtual address into the 0-based offset SES carries.
 * Provider RKEYs are a counter times an odd constant (a bijection modulo
 * the key space), so neighbouring keys are not another region's: a key an
 * application gets wrong by a little is RC_BAD_MKEY, not someone's data.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_ext_uet.h>

#include "uet_codec.h"
#include "uet/uet.h"

#define UET_MR_RAW_KEY_LEN	8
#define UET_MR_ACCESS		(FI_SEND | FI_RECV | FI_READ | FI_WRITE | \
				 FI_REMOTE_READ | FI_REMOTE_WRITE)

static size_t uet_mr_bucket(uint64_t rkey)
{
	return (size_t)((rkey * 0x9E3779B97F4A7C15ull) >> 56) %
	       UET_MR_HASH_SIZE;
}

struct uet_mr *uet_mr_find(const struct uet_domain *dom, uint64_t rkey)
{
	struct uet_mr *mr = dom->mr_hash[uet_mr_bucket(rkey)];

	while (mr && mr->rkey != rkey)
		mr = mr->hnext;
	return mr;
}

static void uet_mr_hash_del(struct uet_domain *dom, struct uet_mr *mr)
{
	struct uet_mr **pp = &dom->mr_hash[uet_mr_bucket(mr->rkey)];

	while (*pp != mr)
		pp = &(*pp)->hnext;
	*pp = mr->hnext;
}

/* Every region of |dom|, bucket by bucket. */
#define uet_mr_for_each(dom, mr, i)					\
	for ((i) = 0; (i) < UET_MR_HASH_SIZE; (i)++)			\
		for ((mr) = (dom)->mr_hash[i]; (mr); (mr) = (mr)->hnext)

static bool uet_mr_serves(const struct uet_mr *mr, const struct uet_ep *ep)
{
	if (!mr->enabled || !ep->eng)
		return false;
	return !(mr->dom->mr_mode & FI_MR_ENDPOINT) || mr->ep == ep;
}

static struct ses_ri_id uet_mr_ri(const struct uet_ep *ep)
{
	return (struct ses_ri_id){ .job_id = ep->dom->job_id,
				   .pid_on_fep = ep->src.pid_on_fep,
				   .ri = ep->src.ri_base };
}

static int uet_mr_add_ep(const struct uet_mr *mr, const struct uet_ep *ep)
{
	struct ses_ri_id id = uet_mr_ri(ep);
	uint32_t access = 0;
	int ret;

	if (mr->access & FI_REMOTE_WRITE)
		access |= SES_ACCESS_REMOTE_WRITE;
	if (mr->access & FI_REMOTE_READ)
		access |= SES_ACCESS_REMOTE_READ;
	if (mr->idempotent)
		access |= SES_ACCESS_IDEMPOTENT;
	ret = ses_mr_add(uet_engine_ses(ep->eng), &id, mr->rkey, mr->base,
			 mr->len, access);
	if (ret == -EEXIST)
		return -FI_ENOKEY;
	return ret == -ENOMEM ? -FI_ENOMEM : ret ? -FI_EINVAL : 0;
}

static void uet_mr_remove_ep(const struct uet_mr *mr, const struct uet_ep *ep)
{
	struct ses_ri_id id = uet_mr_ri(ep);

	ses_mr_remove(uet_engine_ses(ep->eng), &id, mr->rkey);
}

/* Adds |mr| to every endpoint that serves it, or to none. */
static int uet_mr_install(struct uet_mr *mr)
{
	struct uet_list *pos, *undo;
	struct uet_ep *ep;
	int ret;

	uet_list_for_each(pos, &mr->dom->eps) {
		ep = container_of(pos, struct uet_ep, link);
		if (!uet_mr_serves(mr, ep))
			continue;
		ret = uet_mr_add_ep(mr, ep);
		if (!ret)
			continue;
		for (undo = mr->dom->eps.next; undo != pos; undo = undo->next) {
			ep = container_of(undo, struct uet_ep, link);
			if (uet_mr_serves(mr, ep))
				uet_mr_remove_ep(mr, ep);
		}
		return ret;
	}
	return 0;
}

static void uet_mr_uninstall(struct uet_mr *mr)
{
	struct uet_list *pos;
	struct uet_ep *ep;

	uet_list_for_each(pos, &mr->dom->eps) {
		ep = container_of(pos, struct uet_ep, link);
		if (uet_mr_serves(mr, ep))
			uet_mr_remove_ep(mr, ep);
	}
}

int uet_mr_install_ep(struct uet_ep *ep)
{
	struct uet_mr *mr;
	size_t i;
	int ret;

	uet_mr_for_each(ep->dom, mr, i) {
		if (!uet_mr_serves(mr, ep))
			continue;
		ret = uet_mr_add_ep(mr, ep);
		if (ret)
			return ret;
	}
	return 0;
}

void uet_mr_detach_ep(struct uet_ep *ep)
{
	struct uet_mr *mr;
	size_t i;

	uet_mr_for_each(ep->dom, mr, i)
		if (mr->ep == ep)
			mr->ep = NULL;
}

void uet_mr_detach_cntr(struct uet_cntr *c)
{
	struct uet_mr *mr;
	size_t i;

	uet_mr_for_each(c->dom, mr, i) {
		if (mr->write_cntr == c) {
			mr->write_cntr = NULL;
			c->dom->mr_cntr_cnt--;
		}
		if (mr->read_cntr == c) {
			mr->read_cntr = NULL;
			c->dom->mr_cntr_cnt--;
		}
	}
}

int uet_mr_key_to_wire(const struct uet_domain *dom, uint64_t key,
		       uint64_t addr, uint64_t *mkey, uint64_t *offset)
{
	uint64_t idem = key & UET_MKEY_IDEMPOTENT_SAFE;

	key &= ~UET_MKEY_IDEMPOTENT_SAFE;
	if (dom->mr_mode & FI_MR_VIRT_ADDR) {
		/* Below the base wraps to a huge offset: RC_BAD_ADDR. */
		*mkey = (key & UET_MR_VA_RKEY_MAX) | idem;
		*offset = addr - (key >> UET_MR_VA_SHIFT);
		return 0;
	}
	if (key > UET_MKEY_RKEY_MASK)
		return -FI_EINVAL;	/* no region ever had such a key */
	*mkey = key | idem;
	*offset = addr;
	return 0;
}

int uet_mr_map_raw(struct uet_domain *dom, struct fi_mr_map_raw *map)
{
	uint64_t rkey;

	if (map->flags)
		return -FI_EBADFLAGS;
	if (!map->raw_key || !map->key || map->key_size != UET_MR_RAW_KEY_LEN)
		return -FI_EINVAL;
	uet_get_be64(&rkey, map->raw_key);
	if (rkey > UET_MKEY_RKEY_MASK)
		return -FI_EINVAL;
	if (!(dom->mr_mode & FI_MR_VIRT_ADDR)) {
		*map->key = rkey;
		return 0;
	}
	if (rkey > UET_MR_VA_RKEY_MAX || map->base_addr > UET_MR_VA_BASE_MAX)
		return -FI_EINVAL;
	*map->key = map->base_addr << UET_MR_VA_SHIFT | rkey;
	return 0;
}

/* ---- the region's own calls --------------------------------------------------- */
static int uet_mr_close(struct fid *fid)
{
	struct uet_mr *mr = container_of(fid, struct uet_mr, mr_fid.fid);
	struct uet_domain *dom = mr->dom;

	uet_domain_lock(dom);
	/*
	 * Its counter bindings go with it: fi_cntr(3) has a counter refuse
	 * to close while regions are bound to it, so regions close first
	 * (fabtests 2.x check that they can); a counter closed first has
	 * let them go already (uet_mr_detach_cntr).
	 */
	if (mr->write_cntr) {
		mr->write_cntr = NULL;
		dom->mr_cntr_cnt--;
	}
	if (mr->read_cntr) {
		mr->read_cntr = NULL;
		dom->mr_cntr_cnt--;
	}
	uet_mr_uninstall(mr);
	uet_mr_hash_del(dom, mr);
	dom->mr_cnt--;
	uet_domain_unlock(dom);
	atomic_fetch_sub(&dom->ref, 1);
	free(mr);
	return 0;
}

static int uet_mr_bind_ep(struct uet_mr *mr, struct uet_ep *ep,
			  uint64_t flags)
{
	if (ep->dom != mr->dom)
		return -FI_EDOMAIN;
	if (flags)
		return -FI_EBADFLAGS;
	/* Without FI_MR_ENDPOINT a region serves every endpoint already. */
	if (!(mr->dom->mr_mode & FI_MR_ENDPOINT))
		return 0;
	if (mr->enabled)
		return -FI_EOPBADSTATE;
	if (mr->ep && mr->ep != ep)
		return -FI_EINVAL;
	mr->ep = ep;
	return 0;
}

/* Binds |c| to one kind of event of |mr|; binding it again is no change. */
static void uet_mr_cntr_set(struct uet_mr *mr, struct uet_cntr **slot,
			    struct uet_cntr *c)
{
	if (*slot == c)
		return;
	*slot = c;
	mr->dom->mr_cntr_cnt++;
}

/*
 * FI_REMOTE_WRITE (fi_mr(3)) and FI_REMOTE_READ (as the endpoint flag of
 * fi_endpoint(3)), one or both: counted in uet_rma_event.c. Another
 * counter already bound for either kind is -FI_EINVAL, with no change.
 */
static int uet_mr_bind_cntr(struct uet_mr *mr, struct uet_cntr *c,
			    uint64_t flags)
{
	if (c->dom != mr->dom)
		return -FI_EDOMAIN;
	if (!flags || (flags & ~(FI_REMOTE_WRITE | FI_REMOTE_READ)))
		return -FI_EBADFLAGS;
	if (((flags & FI_REMOTE_WRITE) && mr->write_cntr &&
	     mr->write_cntr != c) ||
	    ((flags & FI_REMOTE_READ) && mr->read_cntr && mr->read_cntr != c))
		return -FI_EINVAL;
	if (flags & FI_REMOTE_WRITE)
		uet_mr_cntr_set(mr, &mr->write_cntr, c);
	if (flags & FI_REMOTE_READ)
		uet_mr_cntr_set(mr, &mr->read_cntr, c);
	return 0;
}

static int uet_mr_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uet_mr *mr = container_of(fid, struct uet_mr, mr_fid.fid);
	int ret;

	if (!bfid)
		return -FI_EINVAL;
	uet_domain_lock(mr->dom);
	switch (bfid->fclass) {
	case FI_CLASS_EP:
		ret = uet_mr_bind_ep(mr, container_of(bfid, struct uet_ep,
						      ep_fid.fid), flags);
		break;
	case FI_CLASS_CNTR:
		ret = uet_mr_bind_cntr(mr, container_of(bfid, struct uet_cntr,
							cntr_fid.fid), flags);
		break;
	default:
		ret = -FI_EINVAL;
		break;
	}
	uet_domain_unlock(mr->dom);
	return ret;
}

static int uet_mr_enable(struct uet_mr *mr)
{
	int ret;

	if (mr->enabled)
		return 0;
	if (!mr->ep)
		return -FI_EOPBADSTATE;	/* FI_MR_ENDPOINT: bind first */
	mr->enabled = true;
	ret = uet_mr_install(mr);
	if (ret)
		mr->enabled = false;
	return ret;
}

static int uet_mr_raw_attr(const struct uet_mr *mr, struct fi_mr_raw_attr *a)
{
	if (a->flags)
		return -FI_EBADFLAGS;
	if (!a->key_size)
		return -FI_EINVAL;
	if (*a->key_size < UET_MR_RAW_KEY_LEN || !a->raw_key) {
		*a->key_size = UET_MR_RAW_KEY_LEN;
		return -FI_ETOOSMALL;
	}
	uet_put_be64(a->raw_key, mr->rkey);
	*a->key_size = UET_MR_RAW_KEY_LEN;
	if (a->base_addr)
		*a->base_addr = (uintptr_t)mr->base;
	return 0;
}

/* Regions are reached by virtual address at copy time: nothing to redo,
 * but the ranges must be the region's. */
static int uet_mr_refresh(const struct uet_mr *mr,
			  const struct fi_mr_modify *m)
{
	const struct iovec *iov = m->attr.mr_iov;
	uintptr_t lo = (uintptr_t)mr->base, b;

	if (m->flags)
		return -FI_EBADFLAGS;
	if (m->attr.iov_count && !iov)
		return -FI_EINVAL;
	for (size_t i = 0; i < m->attr.iov_count; i++) {
		b = (uintptr_t)iov[i].iov_base;
		if (b < lo || b - lo > mr->len || iov[i].iov_len > mr->len -
		    (b - lo))
			return -FI_EINVAL;
	}
	return 0;
}

static int uet_mr_control(struct fid *fid, int command, void *arg)
{
	struct uet_mr *mr = container_of(fid, struct uet_mr, mr_fid.fid);
	int ret;

	if (command != FI_ENABLE && !arg)
		return -FI_EINVAL;
	uet_domain_lock(mr->dom);
	switch (command) {
	case FI_ENABLE:
		ret = uet_mr_enable(mr);
		break;
	case FI_GET_RAW_MR:
		ret = uet_mr_raw_attr(mr, arg);
		break;
	case FI_REFRESH:
		ret = uet_mr_refresh(mr, arg);
		break;
	default:
		ret = -FI_ENOSYS;
		break;
	}
	uet_domain_unlock(mr->dom);
	return ret;
}

static const struct fi_ops uet_mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uet_mr_close,
	.bind = uet_mr_bind,
	.control = uet_mr_control,
	.ops_open = uet_no_ops_open,
	.tostr = uet_no_tostr,
	.ops_set = uet_no_ops_set,
};

/* ---- registration ---------------------------------------------------------------- */
#define UET_MR_KEY_SPREAD	0x9E3779B97F4Bull	/* odd */

static int uet_mr_key_pick(struct uet_domain *dom, uint64_t requested,
			   uint64_t *rkey)
{
	uint64_t mask = dom->mr_mode & FI_MR_VIRT_ADDR ? UET_MR_VA_RKEY_MAX :
			UET_MKEY_RKEY_MASK;

	if (!(dom->mr_mode & FI_MR_PROV_KEY)) {
		if (requested > UET_MKEY_RKEY_MASK)
			return -FI_EKEYREJECTED;
		if (uet_mr_find(dom, requested))
			return -FI_ENOKEY;
		*rkey = requested;
		return 0;
	}
	for (size_t tries = 0; tries <= UET_MR_CNT; tries++) {
		/* next_rkey runs 1..mask, so the product is never 0. */
		*rkey = dom->next_rkey * UET_MR_KEY_SPREAD & mask;
		dom->next_rkey = dom->next_rkey >= mask ? 1 :
				 dom->next_rkey + 1;
		if (!uet_mr_find(dom, *rkey))
			return 0;
	}
	return -FI_ENOKEY;
}

static int uet_mr_attr_check(const struct uet_domain *dom,
			     const struct fi_mr_attr *attr, uint64_t flags)
{
	const struct iovec *iov = attr->mr_iov;
	uint32_t job;

	if (flags & ~(FI_RMA_EVENT | FI_UET_MR_IDEMPOTENT))
		return -FI_EBADFLAGS;
	if (attr->iov_count != 1 || !iov || !iov->iov_base || !iov->iov_len ||
	    attr->offset || (attr->access & ~UET_MR_ACCESS))
		return -FI_EINVAL;
	if (attr->iface != FI_HMEM_SYSTEM)
		return -FI_ENOSYS;
	if (attr->auth_key_size) {
		if (attr->auth_key_size != sizeof(job) || !attr->auth_key)
			return -FI_EINVAL;
		memcpy(&job, attr->auth_key, sizeof(job));
		if (job != dom->job_id)
			return -FI_EINVAL;	/* one JobID per domain */
	}
	if ((dom->mr_mode & FI_MR_VIRT_ADDR) &&
	    (uintptr_t)iov->iov_base > UET_MR_VA_BASE_MAX)
		return -FI_EINVAL;
	return dom->mr_cnt < UET_MR_CNT ? 0 : -FI_ENOSPC;
}

static int uet_mr_new(struct uet_domain *dom, const struct fi_mr_attr *attr,
		      uint64_t rkey, bool idempotent, struct uet_mr **out)
{
	struct uet_mr *mr = calloc(1, sizeof(*mr));
	size_t b;
	int ret;

	if (!mr)
		return -FI_ENOMEM;
	mr->dom = dom;
	mr->base = attr->mr_iov->iov_base;
	mr->len = attr->mr_iov->iov_len;
	mr->access = attr->access;
	mr->rkey = rkey;
	mr->idempotent = idempotent;
	mr->enabled = !(dom->mr_mode & FI_MR_ENDPOINT);
	ret = uet_mr_install(mr);
	if (ret) {
		free(mr);
		return ret;
	}
	b = uet_mr_bucket(rkey);
	mr->hnext = dom->mr_hash[b];
	dom->mr_hash[b] = mr;
	dom->mr_cnt++;
	*out = mr;
	return 0;
}

static int uet_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			  uint64_t flags, struct fid_mr **mr_fid)
{
	struct uet_domain *dom = container_of(fid, struct uet_domain,
					      dom_fid.fid);
	struct uet_mr *mr;
	uint64_t rkey;
	int ret;

	if (!attr || !mr_fid)
		return -FI_EINVAL;
	uet_domain_lock(dom);
	ret = uet_mr_attr_check(dom, attr, flags);
	if (!ret)
		ret = uet_mr_key_pick(dom, attr->requested_key, &rkey);
	if (!ret)
		ret = uet_mr_new(dom, attr, rkey,
				 flags & FI_UET_MR_IDEMPOTENT, &mr);
	uet_domain_unlock(dom);
	if (ret)
		return ret;
	atomic_fetch_add(&dom->ref, 1);
	mr->mr_fid.fid.fclass = FI_CLASS_MR;
	mr->mr_fid.fid.context = attr->context;
	mr->mr_fid.fid.ops = (struct fi_ops *)&uet_mr_fi_ops;
	mr->mr_fid.mem_desc = mr;
	mr->mr_fid.key = dom->mr_mode & FI_MR_VIRT_ADDR ?
			 (uint64_t)(uintptr_t)mr->base << UET_MR_VA_SHIFT | rkey :
			 rkey;
	if (mr->idempotent)
		mr->mr_fid.key |= UET_MKEY_IDEMPOTENT_SAFE;
	*mr_fid = &mr->mr_fid;
	return 0;
}

static int uet_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
		       uint64_t access, uint64_t offset, uint64_t requested_key,
		       uint64_t flags, struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov, .iov_count = count, .access = access,
		.offset = offset, .requested_key = requested_key,
		.context = context, .iface = FI_HMEM_SYSTEM,
	};

	return uet_mr_regattr(fid, &attr, flags, mr);
}

static int uet_mr_reg(struct fid *fid, const void *buf, size_t len,
		      uint64_t access, uint64_t offset, uint64_t requested_key,
		      uint64_t flags, struct fid_mr **mr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return uet_mr_regv(fid, &iov, 1, access, offset, requested_key, flags,
			   mr, context);
}

const struct fi_ops_mr uet_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = uet_mr_reg,
	.regv = uet_mr_regv,
	.regattr = uet_mr_regattr,
};
