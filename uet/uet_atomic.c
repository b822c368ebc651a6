/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Atomics: every fi_atomic, fi_fetch_atomic and fi_compare_atomic variant
 * becomes one struct uet_op with an ATOMIC or FETCHING_ATOMIC WRE to the
 * peer's RMA regions (ses_amo.h executes it there, under a WRITE's
 * checks). One packet each: at most UET_AMO_MAX_LEN bytes of operands, one
 * element for a compare. fi_query_atomic and the *valid calls say what
 * ses_amo_is_supported says. Arguments are checked before anything
 * changes.
 */
#include <rdma/fi_atomic.h>

#include "ses/ses_amo.h"
#include "uet/uet.h"

/* The smallest Payload MTU: an atomic fits one packet on any interface. */
#define UET_AMO_MAX_LEN		UET_PAYLOAD_MTU_MIN

#define UET_AMO_FLAGS	(FI_COMPLETION | FI_INJECT | FI_INJECT_COMPLETE | \
			 FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE | \
			 FI_FENCE | FI_MORE | FI_ATOMIC | FI_READ | FI_WRITE)

enum uet_amo_kind { UET_AMO_WRITE, UET_AMO_FETCH, UET_AMO_COMPARE };

/* One call, whatever its shape. */
struct uet_amo_req {
	enum uet_amo_kind kind;
	const struct fi_ioc *iov;	/* operands (READ: may be NULL) */
	size_t iov_cnt;
	const struct fi_ioc *res;	/* fetch and compare: old values */
	size_t res_cnt;
	const struct fi_ioc *cmp;	/* compare: one element */
	size_t cmp_cnt;
	fi_addr_t addr;
	const struct fi_rma_ioc *rma;	/* one remote range */
	size_t rma_cnt;
	enum fi_datatype dt;
	enum fi_op op;
	void *context;
	uint64_t flags;
	bool inject_call;		/* fi_inject_atomic: no completion */
};

static const uint8_t uet_amo_dts[FI_DATATYPE_LAST] = {
	[FI_INT8] = UET_SES_AMO_DT_INT8, [FI_UINT8] = UET_SES_AMO_DT_UINT8,
	[FI_INT16] = UET_SES_AMO_DT_INT16, [FI_UINT16] = UET_SES_AMO_DT_UINT16,
	[FI_INT32] = UET_SES_AMO_DT_INT32, [FI_UINT32] = UET_SES_AMO_DT_UINT32,
	[FI_INT64] = UET_SES_AMO_DT_INT64, [FI_UINT64] = UET_SES_AMO_DT_UINT64,
	[FI_FLOAT] = UET_SES_AMO_DT_FLOAT, [FI_DOUBLE] = UET_SES_AMO_DT_DOUBLE,
	[FI_FLOAT_COMPLEX] = UET_SES_AMO_DT_FLOAT_COMPLEX,
	[FI_DOUBLE_COMPLEX] = UET_SES_AMO_DT_DOUBLE_COMPLEX,
	[FI_LONG_DOUBLE] = UET_SES_AMO_DT_LONG_DOUBLE,
	[FI_LONG_DOUBLE_COMPLEX] = UET_SES_AMO_DT_LONG_DOUBLE_COMPLEX,
};

/* FI_MSWAP has no UET opcode with two operands: not served. */
static const uint8_t uet_amo_ops[FI_ATOMIC_OP_LAST] = {
	[FI_MIN] = UET_SES_AMO_MIN, [FI_MAX] = UET_SES_AMO_MAX,
	[FI_SUM] = UET_SES_AMO_SUM, [FI_PROD] = UET_SES_AMO_PROD,
	[FI_LOR] = UET_SES_AMO_LOR, [FI_LAND] = UET_SES_AMO_LAND,
	[FI_BOR] = UET_SES_AMO_BOR, [FI_BAND] = UET_SES_AMO_BAND,
	[FI_LXOR] = UET_SES_AMO_LXOR, [FI_BXOR] = UET_SES_AMO_BXOR,
	[FI_ATOMIC_READ] = UET_SES_AMO_READ,
	[FI_ATOMIC_WRITE] = UET_SES_AMO_WRITE,
	[FI_CSWAP] = UET_SES_AMO_CSWAP, [FI_CSWAP_NE] = UET_SES_AMO_CSWAP_NE,
	[FI_CSWAP_LE] = UET_SES_AMO_CSWAP_LE,
	[FI_CSWAP_LT] = UET_SES_AMO_CSWAP_LT,
	[FI_CSWAP_GE] = UET_SES_AMO_CSWAP_GE,
	[FI_CSWAP_GT] = UET_SES_AMO_CSWAP_GT,
	[FI_MSWAP] = UET_SES_AMO_INVAL,
};

/*
 * Whether |kind| serves |op| on |dt|, with the UET codes and the element
 * size; fi_atomic(3) says which ops go with which call.
 */
static bool uet_amo_map(enum uet_amo_kind kind, enum fi_datatype dt,
			enum fi_op op, uint8_t *amo_op, uint8_t *amo_dt,
			size_t *elem)
{
	bool cswap;

	if ((unsigned int)dt >= FI_DATATYPE_LAST ||
	    (unsigned int)op >= FI_ATOMIC_OP_LAST)
		return false;
	*amo_op = uet_amo_ops[op];
	*amo_dt = uet_amo_dts[dt];
	*elem = ses_amo_elem_len(*amo_dt);
	if (!ses_amo_is_supported(*amo_op, *amo_dt))
		return false;
	cswap = op >= FI_CSWAP && op <= FI_MSWAP;
	if (kind == UET_AMO_COMPARE)
		return cswap;
	return !cswap && (kind == UET_AMO_FETCH || op != FI_ATOMIC_READ);
}

static int uet_amo_valid(enum uet_amo_kind kind, enum fi_datatype dt,
			 enum fi_op op, size_t *count)
{
	uint8_t amo_op, amo_dt;
	size_t elem;

	if (!uet_amo_map(kind, dt, op, &amo_op, &amo_dt, &elem))
		return -FI_EOPNOTSUPP;
	if (count)
		*count = kind == UET_AMO_COMPARE ? 1 : UET_AMO_MAX_LEN / elem;
	return 0;
}

int uet_query_atomic(struct fid_domain *domain, enum fi_datatype datatype,
		     enum fi_op op, struct fi_atomic_attr *attr, uint64_t flags)
{
	enum uet_amo_kind kind = flags & FI_COMPARE_ATOMIC ? UET_AMO_COMPARE :
				 flags & FI_FETCH_ATOMIC ? UET_AMO_FETCH :
				 UET_AMO_WRITE;
	uint8_t amo_op, amo_dt;
	size_t elem;
	int ret;

	(void)domain;
	if (!attr || (flags & ~(FI_FETCH_ATOMIC | FI_COMPARE_ATOMIC |
				FI_TAGGED)) ||
	    (flags & FI_FETCH_ATOMIC && flags & FI_COMPARE_ATOMIC))
		return -FI_EINVAL;
	if (flags & FI_TAGGED)
		return -FI_EOPNOTSUPP;	/* no tagged atomics */
	ret = uet_amo_valid(kind, datatype, op, &attr->count);
	if (ret)
		return ret;
	uet_amo_map(kind, datatype, op, &amo_op, &amo_dt, &elem);
	attr->size = elem;
	return 0;
}

/* Elements in |iov|; SIZE_MAX when it is malformed. */
static size_t uet_ioc_count(const struct fi_ioc *iov, size_t cnt,
			    bool may_be_null)
{
	size_t n = 0;

	if (cnt > SES_IOV_MAX || (cnt && !iov))
		return SIZE_MAX;
	for (size_t i = 0; i < cnt; i++) {
		if ((!iov[i].addr && iov[i].count && !may_be_null) ||
		    iov[i].count > UET_AMO_MAX_LEN)
			return SIZE_MAX;
		n += iov[i].count;
	}
	return n;
}

static int uet_amo_check(const struct uet_ep *ep, const struct uet_amo_req *r,
			 struct ses_wre *w, size_t *len)
{
	bool read = r->op == FI_ATOMIC_READ;
	size_t elem, n;

	if (r->flags & ~UET_AMO_FLAGS)
		return -FI_EBADFLAGS;
	if (!uet_amo_map(r->kind, r->dt, r->op, &w->amo_op, &w->amo_dt,
			 &elem))
		return -FI_EOPNOTSUPP;
	n = uet_ioc_count(r->iov, r->iov_cnt, read);
	if (!n || n == SIZE_MAX || n * elem > UET_AMO_MAX_LEN ||
	    r->rma_cnt != 1 || !r->rma || r->rma[0].count != n)
		return -FI_EINVAL;
	if (r->kind != UET_AMO_WRITE &&
	    uet_ioc_count(r->res, r->res_cnt, false) != n)
		return -FI_EINVAL;
	if (r->kind == UET_AMO_COMPARE &&
	    (n != 1 || uet_ioc_count(r->cmp, r->cmp_cnt, false) != 1))
		return -FI_EINVAL;
	if ((r->flags & FI_INJECT) &&
	    (r->kind != UET_AMO_WRITE || n * elem > UET_INJECT_SIZE))
		return -FI_EINVAL;
	if (!ep->eng)
		return -FI_EOPBADSTATE;
	*len = n * elem;
	return 0;
}

/* The WRE's buffers: operands (READ: the result buffers), results. */
static void uet_amo_wre(struct uet_op *op, const struct uet_amo_req *r,
			size_t elem)
{
	bool read = r->op == FI_ATOMIC_READ;
	/* A READ's operands are ignored by the target; the length counts. */
	const struct fi_ioc *src = read ? r->res : r->iov;
	size_t cnt = read ? r->res_cnt : r->iov_cnt;
	struct ses_wre *w = &op->wre;
	struct iovec v[SES_IOV_MAX];

	for (size_t i = 0; i < cnt; i++)
		v[i] = (struct iovec){ .iov_base = src[i].addr,
				       .iov_len = src[i].count * elem };
	/* Results come back with the completion: no inject completion. */
	uet_op_set_iov(op, v, cnt, r->kind == UET_AMO_WRITE ? r->flags :
		       r->flags & ~FI_INJECT_COMPLETE);
	for (size_t i = 0; i < r->res_cnt; i++)
		op->res_iov[i] = (struct ses_iov){
			.base = r->res[i].addr, .len = r->res[i].count * elem };
	w->res_iov = op->res_iov;
	w->res_iov_cnt = r->kind == UET_AMO_WRITE ? 0 : r->res_cnt;
	w->amo_compare = r->kind == UET_AMO_COMPARE ? r->cmp[0].addr : NULL;
	if (r->flags & FI_COMPLETION)
		w->flags |= SES_WRE_F_COMPLETION;
	if (r->flags & FI_DELIVERY_COMPLETE)
		w->flags |= SES_WRE_F_DC;
}

static ssize_t uet_amo_post(struct uet_ep *ep, const struct uet_amo_req *r)
{
	struct ses_wre w = { 0 };
	uint64_t mkey, offset;
	struct ses_addr dst;
	struct uet_op *op;
	size_t len;
	uint16_t ri;
	ssize_t ret;

	uet_domain_lock(ep->dom);
	ret = uet_amo_check(ep, r, &w, &len);
	if (!ret)
		ret = uet_mr_key_to_wire(ep->dom, r->rma[0].key,
					 r->rma[0].addr, &mkey, &offset);
	if (!ret)
		ret = uet_ep_peer_dst(ep, r->addr, &dst, &ri);
	op = ret ? NULL : uet_op_take(ep);
	if (!op) {
		ret = ret ? ret : -FI_EAGAIN;
		goto out;
	}
	op->dst = dst;
	op->context = r->context;
	op->len = len;
	op->cq_flags = FI_ATOMIC | (r->kind == UET_AMO_WRITE ? FI_WRITE :
				    FI_READ);
	op->want_cq = !r->inject_call && ep->tx_cq &&
		      (!ep->tx_selective || (r->flags & FI_COMPLETION));
	op->fence = r->flags & FI_FENCE;
	op->wre = w;
	op->wre.opcode = r->kind == UET_AMO_WRITE ? UET_SES_OP_ATOMIC :
			 UET_SES_OP_FETCHING_ATOMIC;
	op->wre.dst = &op->dst;
	op->wre.ri = ri;
	op->wre.mkey = mkey;
	op->wre.remote_offset = offset;
	op->wre.user_ctx = op;
	uet_amo_wre(op, r, ses_amo_elem_len(w.amo_dt));
	ret = uet_op_submit(op);
out:
	uet_domain_unlock(ep->dom);
	return ret;
}

/* ---- the fi_ops_atomic entry points ------------------------------------------ */
static struct uet_ep *uet_amo_ep(struct fid_ep *ep_fid)
{
	return container_of(ep_fid, struct uet_ep, ep_fid);
}

/* The calls without a message: one remote range, the op_flags. */
static ssize_t uet_amo_call(struct fid_ep *ep_fid, struct uet_amo_req *r,
			    uint64_t addr, uint64_t key)
{
	struct uet_ep *ep = uet_amo_ep(ep_fid);
	struct fi_rma_ioc rma = { .addr = addr, .key = key };

	for (size_t i = 0; r->iov && i < r->iov_cnt && i < SES_IOV_MAX; i++)
		rma.count += r->iov[i].count;
	r->rma = &rma;
	r->rma_cnt = 1;
	r->flags |= ep->tx_op_flags & ~FI_INJECT;
	return uet_amo_post(ep, r);
}

static ssize_t uet_amo_msg(struct fid_ep *ep_fid, struct uet_amo_req *r,
			   const struct fi_msg_atomic *msg, uint64_t flags)
{
	if (!msg)
		return -FI_EINVAL;
	r->iov = msg->msg_iov;
	r->iov_cnt = msg->iov_count;
	r->addr = msg->addr;
	r->rma = msg->rma_iov;
	r->rma_cnt = msg->rma_iov_count;
	r->dt = msg->datatype;
	r->op = msg->op;
	r->context = msg->context;
	/* FI_REMOTE_CQ_DATA is not served: uet_amo_check refuses it. */
	r->flags = flags;
	return uet_amo_post(uet_amo_ep(ep_fid), r);
}

static ssize_t uet_amo_writev(struct fid_ep *ep, const struct fi_ioc *iov,
			      void **desc, size_t count, fi_addr_t dest_addr,
			      uint64_t addr, uint64_t key,
			      enum fi_datatype datatype, enum fi_op op,
			      void *context)
{
	struct uet_amo_req r = {
		.kind = UET_AMO_WRITE, .iov = iov, .iov_cnt = count,
		.addr = dest_addr, .dt = datatype, .op = op,
		.context = context,
	};

	(void)desc;
	return uet_amo_call(ep, &r, addr, key);
}

static ssize_t uet_amo_write(struct fid_ep *ep, const void *buf, size_t count,
			     void *desc, fi_addr_t dest_addr, uint64_t addr,
			     uint64_t key, enum fi_datatype datatype,
			     enum fi_op op, void *context)
{
	struct fi_ioc iov = { .addr = (void *)buf, .count = count };

	return uet_amo_writev(ep, &iov, &desc, 1, dest_addr, addr, key,
			      datatype, op, context);
}

static ssize_t uet_amo_writemsg(struct fid_ep *ep,
				const struct fi_msg_atomic *msg,
				uint64_t flags)
{
	struct uet_amo_req r = { .kind = UET_AMO_WRITE };

	return uet_amo_msg(ep, &r, msg, flags);
}

static ssize_t uet_amo_inject(struct fid_ep *ep, const void *buf,
			      size_t count, fi_addr_t dest_addr, uint64_t addr,
			      uint64_t key, enum fi_datatype datatype,
			      enum fi_op op)
{
	struct fi_ioc iov = { .addr = (void *)buf, .count = count };
	struct uet_amo_req r = {
		.kind = UET_AMO_WRITE, .iov = &iov, .iov_cnt = 1,
		.addr = dest_addr, .dt = datatype, .op = op,
		.flags = FI_INJECT, .inject_call = true,
	};

	return uet_amo_call(ep, &r, addr, key);
}

static ssize_t uet_amo_readwritev(struct fid_ep *ep, const struct fi_ioc *iov,
				  void **desc, size_t count,
				  struct fi_ioc *resultv, void **result_desc,
				  size_t result_count, fi_addr_t dest_addr,
				  uint64_t addr, uint64_t key,
				  enum fi_datatype datatype, enum fi_op op,
				  void *context)
{
	struct uet_amo_req r = {
		.kind = UET_AMO_FETCH, .iov = iov, .iov_cnt = count,
		.res = resultv, .res_cnt = result_count, .addr = dest_addr,
		.dt = datatype, .op = op, .context = context,
	};

	(void)desc;
	(void)result_desc;
	return uet_amo_call(ep, &r, addr, key);
}

static ssize_t uet_amo_readwrite(struct fid_ep *ep, const void *buf,
				 size_t count, void *desc, void *result,
				 void *result_desc, fi_addr_t dest_addr,
				 uint64_t addr, uint64_t key,
				 enum fi_datatype datatype, enum fi_op op,
				 void *context)
{
	struct fi_ioc iov = { .addr = (void *)buf, .count = count };
	struct fi_ioc res = { .addr = result, .count = count };

	return uet_amo_readwritev(ep, &iov, &desc, 1, &res, &result_desc, 1,
				  dest_addr, addr, key, datatype, op, context);
}

static ssize_t uet_amo_readwritemsg(struct fid_ep *ep,
				    const struct fi_msg_atomic *msg,
				    struct fi_ioc *resultv, void **result_desc,
				    size_t result_count, uint64_t flags)
{
	struct uet_amo_req r = { .kind = UET_AMO_FETCH, .res = resultv,
				 .res_cnt = result_count };

	(void)result_desc;
	return uet_amo_msg(ep, &r, msg, flags);
}

static ssize_t uet_amo_compwritev(struct fid_ep *ep, const struct fi_ioc *iov,
				  void **desc, size_t count,
				  const struct fi_ioc *comparev,
				  void **compare_desc, size_t compare_count,
				  struct fi_ioc *resultv, void **result_desc,
				  size_t result_count, fi_addr_t dest_addr,
				  uint64_t addr, uint64_t key,
				  enum fi_datatype datatype, enum fi_op op,
				  void *context)
{
	struct uet_amo_req r = {
		.kind = UET_AMO_COMPARE, .iov = iov, .iov_cnt = count,
		.res = resultv, .res_cnt = result_count, .cmp = comparev,
		.cmp_cnt = compare_count, .addr = dest_addr, .dt = datatype,
		.op = op, .context = context,
	};

	(void)desc;
	(void)compare_desc;
	(void)result_desc;
	return uet_amo_call(ep, &r, addr, key);
}

static ssize_t uet_amo_compwrite(struct fid_ep *ep, const void *buf,
				 size_t count, void *desc, const void *compare,
				 void *compare_desc, void *result,
				 void *result_desc, fi_addr_t dest_addr,
				 uint64_t addr, uint64_t key,
				 enum fi_datatype datatype, enum fi_op op,
				 void *context)
{
	struct fi_ioc iov = { .addr = (void *)buf, .count = count };
	struct fi_ioc cmp = { .addr = (void *)compare, .count = count };
	struct fi_ioc res = { .addr = result, .count = count };

	return uet_amo_compwritev(ep, &iov, &desc, 1, &cmp, &compare_desc, 1,
				  &res, &result_desc, 1, dest_addr, addr, key,
				  datatype, op, context);
}

static ssize_t uet_amo_compwritemsg(struct fid_ep *ep,
				    const struct fi_msg_atomic *msg,
				    const struct fi_ioc *comparev,
				    void **compare_desc, size_t compare_count,
				    struct fi_ioc *resultv, void **result_desc,
				    size_t result_count, uint64_t flags)
{
	struct uet_amo_req r = {
		.kind = UET_AMO_COMPARE, .res = resultv,
		.res_cnt = result_count, .cmp = comparev,
		.cmp_cnt = compare_count,
	};

	(void)compare_desc;
	(void)result_desc;
	return uet_amo_msg(ep, &r, msg, flags);
}

static int uet_amo_writevalid(struct fid_ep *ep, enum fi_datatype datatype,
			      enum fi_op op, size_t *count)
{
	(void)ep;
	return uet_amo_valid(UET_AMO_WRITE, datatype, op, count);
}

static int uet_amo_readwritevalid(struct fid_ep *ep,
				  enum fi_datatype datatype, enum fi_op op,
				  size_t *count)
{
	(void)ep;
	return uet_amo_valid(UET_AMO_FETCH, datatype, op, count);
}

static int uet_amo_compwritevalid(struct fid_ep *ep,
				  enum fi_datatype datatype, enum fi_op op,
				  size_t *count)
{
	(void)ep;
	return uet_amo_valid(UET_AMO_COMPARE, datatype, op, count);
}

const struct fi_ops_atomic uet_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = uet_amo_write,
	.writev = uet_amo_writev,
	.writemsg = uet_amo_writemsg,
	.inject = uet_amo_inject,
	.readwrite = uet_amo_readwrite,
	.readwritev = uet_amo_readwritev,
	.readwritemsg = uet_amo_readwritemsg,
	.compwrite = uet_amo_compwrite,
	.compwritev = uet_amo_compwritev,
	.compwritemsg = uet_amo_compwritemsg,
	.writevalid = uet_amo_writevalid,
	.readwritevalid = uet_amo_readwritevalid,
	.compwritevalid = uet_amo_compwritevalid,
};
