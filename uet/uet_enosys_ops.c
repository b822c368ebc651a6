/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The data-path ops table the provider does not serve: collectives. Every
 * slot is filled; each answers -FI_ENOSYS.
 */
#include <rdma/fi_collective.h>

#include "uet/uet.h"

#define UET_UNUSED(x)	((void)(x))

static ssize_t uet_no_collective_barrier(struct fid_ep *ep,
		fi_addr_t coll_addr, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(coll_addr); UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_collective_broadcast(struct fid_ep *ep, void *buf,
		size_t count, void *desc, fi_addr_t coll_addr, fi_addr_t root_addr,
		enum fi_datatype datatype, uint64_t flags, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(coll_addr); UET_UNUSED(root_addr); UET_UNUSED(datatype);
	UET_UNUSED(flags); UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_collective_alltoall(struct fid_ep *ep, const void *buf,
		size_t count, void *desc, void *result, void *result_desc,
		fi_addr_t coll_addr, enum fi_datatype datatype, uint64_t flags,
		void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(result); UET_UNUSED(result_desc); UET_UNUSED(coll_addr);
	UET_UNUSED(datatype); UET_UNUSED(flags); UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_collective_allreduce(struct fid_ep *ep, const void *buf,
		size_t count, void *desc, void *result, void *result_desc,
		fi_addr_t coll_addr, enum fi_datatype datatype, enum fi_op op,
		uint64_t flags, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(result); UET_UNUSED(result_desc); UET_UNUSED(coll_addr);
	UET_UNUSED(datatype); UET_UNUSED(op); UET_UNUSED(flags);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_collective_allgather(struct fid_ep *ep, const void *buf,
		size_t count, void *desc, void *result, void *result_desc,
		fi_addr_t coll_addr, enum fi_datatype datatype, uint64_t flags,
		void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(result); UET_UNUSED(result_desc); UET_UNUSED(coll_addr);
	UET_UNUSED(datatype); UET_UNUSED(flags); UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_collective_reduce_scatter(struct fid_ep *ep,
		const void *buf, size_t count, void *desc, void *result,
		void *result_desc, fi_addr_t coll_addr, enum fi_datatype datatype,
		enum fi_op op, uint64_t flags, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(result); UET_UNUSED(result_desc); UET_UNUSED(coll_addr);
	UET_UNUSED(datatype); UET_UNUSED(op); UET_UNUSED(flags);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_collective_reduce(struct fid_ep *ep, const void *buf,
		size_t count, void *desc, void *result, void *result_desc,
		fi_addr_t coll_addr, fi_addr_t root_addr, enum fi_datatype datatype,
		enum fi_op op, uint64_t flags, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(result); UET_UNUSED(result_desc); UET_UNUSED(coll_addr);
	UET_UNUSED(root_addr); UET_UNUSED(datatype); UET_UNUSED(op);
	UET_UNUSED(flags); UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_collective_scatter(struct fid_ep *ep, const void *buf,
		size_t count, void *desc, void *result, void *result_desc,
		fi_addr_t coll_addr, fi_addr_t root_addr, enum fi_datatype datatype,
		uint64_t flags, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(result); UET_UNUSED(result_desc); UET_UNUSED(coll_addr);
	UET_UNUSED(root_addr); UET_UNUSED(datatype); UET_UNUSED(flags);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_collective_gather(struct fid_ep *ep, const void *buf,
		size_t count, void *desc, void *result, void *result_desc,
		fi_addr_t coll_addr, fi_addr_t root_addr, enum fi_datatype datatype,
		uint64_t flags, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(result); UET_UNUSED(result_desc); UET_UNUSED(coll_addr);
	UET_UNUSED(root_addr); UET_UNUSED(datatype); UET_UNUSED(flags);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_collective_msg(struct fid_ep *ep,
		const struct fi_msg_collective *msg, struct fi_ioc *resultv,
		void **result_desc, size_t result_count, uint64_t flags)
{
	UET_UNUSED(ep); UET_UNUSED(msg); UET_UNUSED(resultv);
	UET_UNUSED(result_desc); UET_UNUSED(result_count); UET_UNUSED(flags);
	return -FI_ENOSYS;
}

static ssize_t uet_no_collective_barrier2(struct fid_ep *ep,
		fi_addr_t coll_addr, uint64_t flags, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(coll_addr); UET_UNUSED(flags);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

const struct fi_ops_collective uet_no_collective_ops = {
	.size = sizeof(struct fi_ops_collective),
	.barrier = uet_no_collective_barrier,
	.broadcast = uet_no_collective_broadcast,
	.alltoall = uet_no_collective_alltoall,
	.allreduce = uet_no_collective_allreduce,
	.allgather = uet_no_collective_allgather,
	.reduce_scatter = uet_no_collective_reduce_scatter,
	.reduce = uet_no_collective_reduce,
	.scatter = uet_no_collective_scatter,
	.gather = uet_no_collective_gather,
	.msg = uet_no_collective_msg,
	.barrier2 = uet_no_collective_barrier2,
};
