/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The data-path ops tables the provider does not serve yet: atomics and
 * collectives. Every slot is filled; each answers -FI_ENOSYS.
 */
#include <rdma/fi_atomic.h>
#include <rdma/fi_collective.h>

#include "uet/uet.h"

#define UET_UNUSED(x)	((void)(x))

static ssize_t uet_no_atomic_write(struct fid_ep *ep, const void *buf,
		size_t count, void *desc, fi_addr_t dest_addr, uint64_t addr,
		uint64_t key, enum fi_datatype datatype, enum fi_op op, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(dest_addr); UET_UNUSED(addr); UET_UNUSED(key);
	UET_UNUSED(datatype); UET_UNUSED(op); UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_atomic_writev(struct fid_ep *ep,
		const struct fi_ioc *iov, void **desc, size_t count,
		fi_addr_t dest_addr, uint64_t addr, uint64_t key,
		enum fi_datatype datatype, enum fi_op op, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(iov); UET_UNUSED(desc); UET_UNUSED(count);
	UET_UNUSED(dest_addr); UET_UNUSED(addr); UET_UNUSED(key);
	UET_UNUSED(datatype); UET_UNUSED(op); UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_atomic_writemsg(struct fid_ep *ep,
		const struct fi_msg_atomic *msg, uint64_t flags)
{
	UET_UNUSED(ep); UET_UNUSED(msg); UET_UNUSED(flags);
	return -FI_ENOSYS;
}

static ssize_t uet_no_atomic_inject(struct fid_ep *ep, const void *buf,
		size_t count, fi_addr_t dest_addr, uint64_t addr, uint64_t key,
		enum fi_datatype datatype, enum fi_op op)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count);
	UET_UNUSED(dest_addr); UET_UNUSED(addr); UET_UNUSED(key);
	UET_UNUSED(datatype); UET_UNUSED(op);
	return -FI_ENOSYS;
}

static ssize_t uet_no_atomic_readwrite(struct fid_ep *ep, const void *buf,
		size_t count, void *desc, void *result, void *result_desc,
		fi_addr_t dest_addr, uint64_t addr, uint64_t key,
		enum fi_datatype datatype, enum fi_op op, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(result); UET_UNUSED(result_desc); UET_UNUSED(dest_addr);
	UET_UNUSED(addr); UET_UNUSED(key); UET_UNUSED(datatype);
	UET_UNUSED(op); UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_atomic_readwritev(struct fid_ep *ep,
		const struct fi_ioc *iov, void **desc, size_t count,
		struct fi_ioc *resultv, void **result_desc, size_t result_count,
		fi_addr_t dest_addr, uint64_t addr, uint64_t key,
		enum fi_datatype datatype, enum fi_op op, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(iov); UET_UNUSED(desc); UET_UNUSED(count);
	UET_UNUSED(resultv); UET_UNUSED(result_desc);
	UET_UNUSED(result_count); UET_UNUSED(dest_addr); UET_UNUSED(addr);
	UET_UNUSED(key); UET_UNUSED(datatype); UET_UNUSED(op);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_atomic_readwritemsg(struct fid_ep *ep,
		const struct fi_msg_atomic *msg, struct fi_ioc *resultv,
		void **result_desc, size_t result_count, uint64_t flags)
{
	UET_UNUSED(ep); UET_UNUSED(msg); UET_UNUSED(resultv);
	UET_UNUSED(result_desc); UET_UNUSED(result_count); UET_UNUSED(flags);
	return -FI_ENOSYS;
}

static ssize_t uet_no_atomic_compwrite(struct fid_ep *ep, const void *buf,
		size_t count, void *desc, const void *compare, void *compare_desc,
		void *result, void *result_desc, fi_addr_t dest_addr, uint64_t addr,
		uint64_t key, enum fi_datatype datatype, enum fi_op op, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(buf); UET_UNUSED(count); UET_UNUSED(desc);
	UET_UNUSED(compare); UET_UNUSED(compare_desc); UET_UNUSED(result);
	UET_UNUSED(result_desc); UET_UNUSED(dest_addr); UET_UNUSED(addr);
	UET_UNUSED(key); UET_UNUSED(datatype); UET_UNUSED(op);
	UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_atomic_compwritev(struct fid_ep *ep,
		const struct fi_ioc *iov, void **desc, size_t count,
		const struct fi_ioc *comparev, void **compare_desc,
		size_t compare_count, struct fi_ioc *resultv, void **result_desc,
		size_t result_count, fi_addr_t dest_addr, uint64_t addr, uint64_t key,
		enum fi_datatype datatype, enum fi_op op, void *context)
{
	UET_UNUSED(ep); UET_UNUSED(iov); UET_UNUSED(desc); UET_UNUSED(count);
	UET_UNUSED(comparev); UET_UNUSED(compare_desc);
	UET_UNUSED(compare_count); UET_UNUSED(resultv);
	UET_UNUSED(result_desc); UET_UNUSED(result_count);
	UET_UNUSED(dest_addr); UET_UNUSED(addr); UET_UNUSED(key);
	UET_UNUSED(datatype); UET_UNUSED(op); UET_UNUSED(context);
	return -FI_ENOSYS;
}

static ssize_t uet_no_atomic_compwritemsg(struct fid_ep *ep,
		const struct fi_msg_atomic *msg, const struct fi_ioc *comparev,
		void **compare_desc, size_t compare_count, struct fi_ioc *resultv,
		void **result_desc, size_t result_count, uint64_t flags)
{
	UET_UNUSED(ep); UET_UNUSED(msg); UET_UNUSED(comparev);
	UET_UNUSED(compare_desc); UET_UNUSED(compare_count);
	UET_UNUSED(resultv); UET_UNUSED(result_desc);
	UET_UNUSED(result_count); UET_UNUSED(flags);
	return -FI_ENOSYS;
}

static int uet_no_atomic_writevalid(struct fid_ep *ep,
		enum fi_datatype datatype, enum fi_op op, size_t *count)
{
	UET_UNUSED(ep); UET_UNUSED(datatype); UET_UNUSED(op);
	UET_UNUSED(count);
	return -FI_ENOSYS;
}

static int uet_no_atomic_readwritevalid(struct fid_ep *ep,
		enum fi_datatype datatype, enum fi_op op, size_t *count)
{
	UET_UNUSED(ep); UET_UNUSED(datatype); UET_UNUSED(op);
	UET_UNUSED(count);
	return -FI_ENOSYS;
}

static int uet_no_atomic_compwritevalid(struct fid_ep *ep,
		enum fi_datatype datatype, enum fi_op op, size_t *count)
{
	UET_UNUSED(ep); UET_UNUSED(datatype); UET_UNUSED(op);
	UET_UNUSED(count);
	return -FI_ENOSYS;
}

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

const struct fi_ops_atomic uet_no_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = uet_no_atomic_write,
	.writev = uet_no_atomic_writev,
	.writemsg = uet_no_atomic_writemsg,
	.inject = uet_no_atomic_inject,
	.readwrite = uet_no_atomic_readwrite,
	.readwritev = uet_no_atomic_readwritev,
	.readwritemsg = uet_no_atomic_readwritemsg,
	.compwrite = uet_no_atomic_compwrite,
	.compwritev = uet_no_atomic_compwritev,
	.compwritemsg = uet_no_atomic_compwritemsg,
	.writevalid = uet_no_atomic_writevalid,
	.readwritevalid = uet_no_atomic_readwritevalid,
	.compwritevalid = uet_no_atomic_compwritevalid,
};

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
