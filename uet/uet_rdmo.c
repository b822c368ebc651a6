/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Remote memory operations (<rdma/fi_ext_uet.h>): fi_open_ops on a domain
 * with FI_UET_RDMO_OPS gives append, flush and scatter, each one struct
 * uet_op with an RDMO WRE (ses/ses_rdmo.c runs them at the target).
 * Completions are an fi_write's. Keys and addresses become what the wire
 * carries as for fi_write (uet_mr_key_to_wire): under FI_MR_VIRT_ADDR the
 * append's pointer holds addresses, so the data region's base goes along
 * as the bias the target subtracts from it.
 */
#include <string.h>

#include <rdma/fi_ext_uet.h>

#include "ses/ses_hdr.h"
#include "uet/uet.h"

/* The descriptors of the largest scatter fit the smallest Payload MTU. */
_Static_assert(FI_UET_RDMO_SCATTER_MAX * UET_SES_RDMO_PIECE_LEN <=
	       UET_PAYLOAD_MTU_MIN, "scatter table larger than a packet");
_Static_assert(FI_UET_RDMO_SCATTER_MAX * UET_SES_RDMO_PIECE_LEN <=
	       UET_INJECT_COPY_MAX, "scatter table larger than op scratch");

static struct uet_ep *uet_rdmo_ep(struct fid_ep *ep_fid)
{
	return container_of(ep_fid, struct uet_ep, ep_fid);
}

/*
 * A free operation to |dest| with its destination and completion set up
 * as an fi_write's; or NULL with *|ret| set. Called with the domain lock.
 */
static struct uet_op *uet_rdmo_op(struct uet_ep *ep, fi_addr_t dest,
				  uint64_t len, void *context, ssize_t *ret)
{
	struct ses_addr dst;
	struct uet_op *op;
	uint16_t ri;

	*ret = 0;
	if (!ep->eng) {
		*ret = -FI_EOPBADSTATE;
		return NULL;
	}
	if (!(ep->caps & FI_RMA) || len > UET_MAX_MSG_SIZE) {
		*ret = -FI_EINVAL;
		return NULL;
	}
	*ret = uet_ep_peer_dst(ep, dest, &dst, &ri);
	if (*ret)
		return NULL;
	op = uet_op_take(ep);
	if (!op) {
		*ret = -FI_EAGAIN;
		return NULL;
	}
	op->dst = dst;
	op->context = context;
	op->len = len;
	op->cq_flags = FI_RMA | FI_WRITE;
	op->want_cq = ep->tx_cq && (!ep->tx_selective ||
				    (ep->tx_op_flags & FI_COMPLETION));
	op->fence = false;
	memset(&op->wre, 0, sizeof(op->wre));
	op->wre.dst = &op->dst;
	op->wre.ri = ri;
	op->wre.user_ctx = op;
	op->wre.iov = op->iov;
	if (ep->tx_op_flags & FI_DELIVERY_COMPLETE)
		op->wre.flags |= SES_WRE_F_DC;
	if (op->want_cq)
		op->wre.flags |= SES_WRE_F_COMPLETION;
	return op;
}

/* Gives |op| back unused. */
static void uet_rdmo_op_put(struct uet_ep *ep, struct uet_op *op)
{
	uet_list_add_tail(&ep->free_ops, &op->link);
}

static ssize_t uet_rdmo_append(struct fid_ep *ep_fid, const void *buf,
			       size_t len, void *desc, fi_addr_t dest,
			       uint64_t ptr_addr, uint64_t ptr_key,
			       uint64_t data_key, uint64_t *result,
			       void *context)
{
	struct uet_ep *ep = uet_rdmo_ep(ep_fid);
	uint64_t pmkey, poff, dmkey, dneg;
	struct uet_op *op;
	ssize_t ret;

	(void)desc;
	if (len && !buf)
		return -FI_EINVAL;
	uet_domain_lock(ep->dom);
	ret = uet_mr_key_to_wire(ep->dom, ptr_key, ptr_addr, &pmkey, &poff);
	/* Address 0 in the data region: minus its base (0 without VA). */
	if (!ret)
		ret = uet_mr_key_to_wire(ep->dom, data_key, 0, &dmkey, &dneg);
	op = ret ? NULL : uet_rdmo_op(ep, dest, len, context, &ret);
	if (!op)
		goto out;
	op->wre.opcode = UET_SES_OP_RDMO_APPEND;
	op->wre.mkey = dmkey;
	op->wre.rdmo_ptr_mkey = pmkey;
	op->wre.rdmo_ptr_offset = poff;
	op->wre.rdmo_data_bias = 0 - dneg;
	op->iov[0] = (struct ses_iov){ .base = (void *)buf, .len = len };
	op->wre.iov_cnt = len ? 1 : 0;
	if (result) {
		op->res_iov[0] = (struct ses_iov){ .base = result,
						   .len = sizeof(*result) };
		op->wre.res_iov = op->res_iov;
		op->wre.res_iov_cnt = 1;
	}
	ret = uet_op_submit(op);
out:
	uet_domain_unlock(ep->dom);
	return ret;
}

static ssize_t uet_rdmo_flush(struct fid_ep *ep_fid, fi_addr_t dest,
			      void *context)
{
	struct uet_ep *ep = uet_rdmo_ep(ep_fid);
	struct uet_op *op;
	ssize_t ret;

	uet_domain_lock(ep->dom);
	op = uet_rdmo_op(ep, dest, 0, context, &ret);
	if (op) {
		op->wre.opcode = UET_SES_OP_RDMO_FLUSH;
		op->wre.iov_cnt = 0;
		ret = uet_op_submit(op);
	}
	uet_domain_unlock(ep->dom);
	return ret;
}

/* The descriptors of |rma_iov| in wire form into |table|. */
static ssize_t uet_rdmo_table(struct uet_ep *ep, uint8_t *table,
			      const struct fi_rma_iov *rma_iov, size_t count,
			      size_t len)
{
	struct ses_rdmo_piece pc;
	uint64_t sum = 0;
	int ret;

	for (size_t i = 0; i < count; i++) {
		ret = uet_mr_key_to_wire(ep->dom, rma_iov[i].key,
					 rma_iov[i].addr, &pc.memory_key,
					 &pc.buffer_offset);
		if (ret)
			return ret;
		if (rma_iov[i].len > UET_MAX_MSG_SIZE)
			return -FI_EINVAL;
		pc.length = (uint32_t)rma_iov[i].len;
		sum += rma_iov[i].len;
		ses_rdmo_piece_encode(table + i * UET_SES_RDMO_PIECE_LEN, &pc);
	}
	return sum == len ? 0 : -FI_EINVAL;
}

static ssize_t uet_rdmo_scatter(struct fid_ep *ep_fid, const void *buf,
				size_t len, void *desc, fi_addr_t dest,
				const struct fi_rma_iov *rma_iov, size_t count,
				void *context)
{
	struct uet_ep *ep = uet_rdmo_ep(ep_fid);
	struct uet_op *op;
	uint8_t *table;
	ssize_t ret;

	(void)desc;
	if (!rma_iov || !count || count > FI_UET_RDMO_SCATTER_MAX ||
	    (len && !buf))
		return -FI_EINVAL;
	uet_domain_lock(ep->dom);
	op = uet_rdmo_op(ep, dest, len, context, &ret);
	if (!op)
		goto out;
	table = uet_op_scratch(op);
	ret = table ? uet_rdmo_table(ep, table, rma_iov, count, len) :
	      -FI_EAGAIN;
	if (ret) {
		uet_rdmo_op_put(ep, op);
		goto out;
	}
	op->wre.opcode = UET_SES_OP_RDMO_SCATTER;
	op->wre.rdmo_pieces = (uint32_t)count;
	op->iov[0] = (struct ses_iov){ .base = table,
				       .len = count * UET_SES_RDMO_PIECE_LEN };
	op->iov[1] = (struct ses_iov){ .base = (void *)buf, .len = len };
	op->wre.iov_cnt = 2;
	ret = uet_op_submit(op);
out:
	uet_domain_unlock(ep->dom);
	return ret;
}

static struct fi_uet_rdmo_ops uet_rdmo_ops = {
	.size = sizeof(struct fi_uet_rdmo_ops),
	.append = uet_rdmo_append,
	.flush = uet_rdmo_flush,
	.scatter = uet_rdmo_scatter,
};

int uet_domain_ops_open(struct fid *fid, const char *name, uint64_t flags,
			void **ops, void *context)
{
	(void)fid, (void)context;
	if (!name || !ops)
		return -FI_EINVAL;
	if (strcmp(name, FI_UET_RDMO_OPS))
		return -FI_ENOSYS;
	if (flags)
		return -FI_EBADFLAGS;
	*ops = &uet_rdmo_ops;
	return 0;
}
