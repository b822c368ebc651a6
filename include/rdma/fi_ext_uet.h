/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Extensions of the uet libfabric provider (FI_PROVIDER=uet), in the
 * convention of fi_ext_efa.h: obtained with fi_open_ops on a domain.
 *
 * Remote memory operations (RDMO), executed by the target's provider
 * without its application (fi_uet(7), "REMOTE MEMORY OPERATIONS"):
 *
 *	struct fi_uet_rdmo_ops *ops;
 *	fi_open_ops(&domain->fid, FI_UET_RDMO_OPS, 0, (void **)&ops, NULL);
 *
 * append: atomically old = *ptr (a uint64_t at ptr_addr in the region of
 *   ptr_key, which needs FI_REMOTE_READ and FI_REMOTE_WRITE, 8-byte
 *   aligned) and *ptr = old + len, then writes |buf| at address old in the
 *   region of data_key. Addresses (ptr_addr, and the pointer's value)
 *   follow the domain's FI_MR_VIRT_ADDR rule, as for fi_write. If |result|
 *   is not NULL, old is stored there before the completion. Appends to one
 *   pointer never overlap, from any number of initiators; they pipeline
 *   (no round trip between the pointer update and the write). An append
 *   that would not fit the data region fails (err FI_EACCES, prov_errno
 *   the UET code RC_BAD_ADDR, 0x1D) and moves nothing.
 * flush: completes after the target has finished every earlier RDMO and
 *   RMA write of this endpoint to |dest|: what they wrote is visible to
 *   the target application.
 * scatter: |buf| is cut into |count| consecutive pieces of rma_iov[i].len
 *   bytes, each written at rma_iov[i].addr with rma_iov[i].key; the
 *   lengths must add up to |len|; at most FI_UET_RDMO_SCATTER_MAX pieces.
 *   Every piece is checked before any is written: one bad key or range
 *   fails the scatter and writes nothing.
 *
 * Each is one operation with one completion on the transmit CQ, as an
 * fi_write's (flags FI_RMA | FI_WRITE; the write counter); errors are
 * error completions carrying the UET return code in prov_errno. |buf| must
 * stay untouched until the completion. The calls return 0, -FI_EAGAIN,
 * -FI_EINVAL or -FI_EOPBADSTATE as fi_write does.
 */
#ifndef FI_EXT_UET_H
#define FI_EXT_UET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FI_UET_RDMO_OPS "uet rdmo ops"

/*
 * fi_mr_reg / fi_mr_regattr flag: the region is idempotent-safe (UE 1.0
 * memory key bit 63): writing or reading it twice does no harm, so
 * fi_write and fi_read to it may go as RUDI, without a PDC, to a peer
 * that serves RUDI (FI_UET_RUDI, fi_uet(7) "RUDI"). Its key has bit 63
 * set. Such writes raise no FI_RMA_EVENT at the target.
 */
#define FI_UET_MR_IDEMPOTENT	(1ULL << 15)

/* Pieces of one scatter: their descriptors fit the smallest packet. */
#define FI_UET_RDMO_SCATTER_MAX	51

struct fi_uet_rdmo_ops {
	size_t size;
	ssize_t (*append)(struct fid_ep *ep, const void *buf, size_t len,
			  void *desc, fi_addr_t dest, uint64_t ptr_addr,
			  uint64_t ptr_key, uint64_t data_key,
			  uint64_t *result, void *context);
	ssize_t (*flush)(struct fid_ep *ep, fi_addr_t dest, void *context);
	ssize_t (*scatter)(struct fid_ep *ep, const void *buf, size_t len,
			   void *desc, fi_addr_t dest,
			   const struct fi_rma_iov *rma_iov, size_t count,
			   void *context);
};

#ifdef __cplusplus
}
#endif

#endif /* FI_EXT_UET_H */
