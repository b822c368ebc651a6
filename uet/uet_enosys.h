/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Stubs for the libfabric slots the provider does not serve (uet_enosys.c):
 * every ops table is filled, unsupported entries answer -FI_ENOSYS.
 */
#ifndef UET_ENOSYS_H
#define UET_ENOSYS_H

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_tagged.h>

extern const struct fi_ops_collective uet_no_collective_ops;
int uet_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int uet_no_control(struct fid *fid, int command, void *arg);
int uet_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context);
int uet_no_tostr(const struct fid *fid, char *buf, size_t len);
int uet_no_ops_set(struct fid *fid, const char *name, uint64_t flags,
		   void *ops, void *context);
int uet_no_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen);
int uet_no_connect(struct fid_ep *ep, const void *addr, const void *param,
		   size_t paramlen);
int uet_no_listen(struct fid_pep *pep);
int uet_no_accept(struct fid_ep *ep, const void *param, size_t paramlen);
int uet_no_reject(struct fid_pep *pep, fid_t handle, const void *param,
		  size_t paramlen);
int uet_no_shutdown(struct fid_ep *ep, uint64_t flags);
int uet_no_join(struct fid_ep *ep, const void *addr, uint64_t flags,
		struct fid_mc **mc, void *context);
int uet_no_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		  struct fid_ep **tx_ep, void *context);
int uet_no_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
		  struct fid_ep **rx_ep, void *context);
int uet_no_av_set(struct fid_av *av, struct fi_av_set_attr *attr,
		  struct fid_av_set **av_set, void *context);
int uet_no_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
		      struct fid_pep **pep, void *context);
int uet_no_scalable_ep(struct fid_domain *domain, struct fi_info *info,
		       struct fid_ep **sep, void *context);
int uet_no_stx_ctx(struct fid_domain *domain, struct fi_tx_attr *attr,
		   struct fid_stx **stx, void *context);
int uet_no_srx_ctx(struct fid_domain *domain, struct fi_rx_attr *attr,
		   struct fid_ep **rx_ep, void *context);
int uet_no_query_collective(struct fid_domain *domain,
			    enum fi_collective_op coll,
			    struct fi_collective_attr *attr, uint64_t flags);

#endif /* UET_ENOSYS_H */
