/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Stubs for every libfabric slot the provider does not serve: messaging
 * and tagged messaging (issue 7), atomics, collectives, connection
 * management, passive endpoints, shared contexts.
 * Each answers -FI_ENOSYS and touches nothing.
 */
#include "uet/uet.h"

#define UET_UNUSED(x)	((void)(x))

int uet_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	UET_UNUSED(fid), UET_UNUSED(bfid), UET_UNUSED(flags);
	return -FI_ENOSYS;
}

int uet_no_control(struct fid *fid, int command, void *arg)
{
	UET_UNUSED(fid), UET_UNUSED(command), UET_UNUSED(arg);
	return -FI_ENOSYS;
}

int uet_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context)
{
	UET_UNUSED(fid), UET_UNUSED(name), UET_UNUSED(flags);
	UET_UNUSED(ops), UET_UNUSED(context);
	return -FI_ENOSYS;
}

int uet_no_tostr(const struct fid *fid, char *buf, size_t len)
{
	UET_UNUSED(fid), UET_UNUSED(buf), UET_UNUSED(len);
	return -FI_ENOSYS;
}

int uet_no_ops_set(struct fid *fid, const char *name, uint64_t flags,
		   void *ops, void *context)
{
	UET_UNUSED(fid), UET_UNUSED(name), UET_UNUSED(flags);
	UET_UNUSED(ops), UET_UNUSED(context);
	return -FI_ENOSYS;
}

/* ---- connection management (RDM endpoints have none) --------------------- */
int uet_no_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	UET_UNUSED(ep), UET_UNUSED(addr), UET_UNUSED(addrlen);
	return -FI_ENOSYS;
}

int uet_no_connect(struct fid_ep *ep, const void *addr, const void *param,
		   size_t paramlen)
{
	UET_UNUSED(ep), UET_UNUSED(addr), UET_UNUSED(param);
	UET_UNUSED(paramlen);
	return -FI_ENOSYS;
}

int uet_no_listen(struct fid_pep *pep)
{
	UET_UNUSED(pep);
	return -FI_ENOSYS;
}

int uet_no_accept(struct fid_ep *ep, const void *param, size_t paramlen)
{
	UET_UNUSED(ep), UET_UNUSED(param), UET_UNUSED(paramlen);
	return -FI_ENOSYS;
}

int uet_no_reject(struct fid_pep *pep, fid_t handle, const void *param,
		  size_t paramlen)
{
	UET_UNUSED(pep), UET_UNUSED(handle), UET_UNUSED(param);
	UET_UNUSED(paramlen);
	return -FI_ENOSYS;
}

int uet_no_shutdown(struct fid_ep *ep, uint64_t flags)
{
	UET_UNUSED(ep), UET_UNUSED(flags);
	return -FI_ENOSYS;
}

int uet_no_join(struct fid_ep *ep, const void *addr, uint64_t flags,
		struct fid_mc **mc, void *context)
{
	UET_UNUSED(ep), UET_UNUSED(addr), UET_UNUSED(flags);
	UET_UNUSED(mc), UET_UNUSED(context);
	return -FI_ENOSYS;
}

/* ---- endpoint, AV, fabric and domain slots ------------------------------- */
int uet_no_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		  struct fid_ep **tx_ep, void *context)
{
	UET_UNUSED(sep), UET_UNUSED(index), UET_UNUSED(attr);
	UET_UNUSED(tx_ep), UET_UNUSED(context);
	return -FI_ENOSYS;
}

int uet_no_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
		  struct fid_ep **rx_ep, void *context)
{
	UET_UNUSED(sep), UET_UNUSED(index), UET_UNUSED(attr);
	UET_UNUSED(rx_ep), UET_UNUSED(context);
	return -FI_ENOSYS;
}

int uet_no_av_set(struct fid_av *av, struct fi_av_set_attr *attr,
		  struct fid_av_set **av_set, void *context)
{
	UET_UNUSED(av), UET_UNUSED(attr), UET_UNUSED(av_set);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

int uet_no_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
		      struct fid_pep **pep, void *context)
{
	UET_UNUSED(fabric), UET_UNUSED(info), UET_UNUSED(pep);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

int uet_no_scalable_ep(struct fid_domain *domain, struct fi_info *info,
		       struct fid_ep **sep, void *context)
{
	UET_UNUSED(domain), UET_UNUSED(info), UET_UNUSED(sep);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

int uet_no_stx_ctx(struct fid_domain *domain, struct fi_tx_attr *attr,
		   struct fid_stx **stx, void *context)
{
	UET_UNUSED(domain), UET_UNUSED(attr), UET_UNUSED(stx);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

int uet_no_srx_ctx(struct fid_domain *domain, struct fi_rx_attr *attr,
		   struct fid_ep **rx_ep, void *context)
{
	UET_UNUSED(domain), UET_UNUSED(attr), UET_UNUSED(rx_ep);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

int uet_no_query_collective(struct fid_domain *domain,
			    enum fi_collective_op coll,
			    struct fi_collective_attr *attr, uint64_t flags)
{
	UET_UNUSED(domain), UET_UNUSED(coll), UET_UNUSED(attr);
	UET_UNUSED(flags);
	return -FI_ENOSYS;
}
