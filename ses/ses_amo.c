/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Atomics (ses_amo.h): the element operations, the extension header an
 * initiator's atomic packet carries, and the target, which executes one
 * once its checks passed and answers a fetching one with the old values
 * in a RESPONSE_DATA, as it answers a READ.
 */
#include <string.h>

#include "ses/ses_amo.h"
#include "ses/ses_priv.h"

size_t ses_amo_elem_len(uint8_t amo_dt)
{
	switch (amo_dt) {
	case UET_SES_AMO_DT_INT8:
	case UET_SES_AMO_DT_UINT8:
		return 1;
	case UET_SES_AMO_DT_INT16:
	case UET_SES_AMO_DT_UINT16:
		return 2;
	case UET_SES_AMO_DT_INT32:
	case UET_SES_AMO_DT_UINT32:
	case UET_SES_AMO_DT_FLOAT:
		return 4;
	case UET_SES_AMO_DT_INT64:
	case UET_SES_AMO_DT_UINT64:
	case UET_SES_AMO_DT_DOUBLE:
		return 8;
	default:
		return 0;
	}
}

static bool ses_amo_dt_is_float(uint8_t amo_dt)
{
	return amo_dt == UET_SES_AMO_DT_FLOAT || amo_dt == UET_SES_AMO_DT_DOUBLE;
}

bool ses_amo_is_supported(uint8_t amo_op, uint8_t amo_dt)
{
	if (!ses_amo_elem_len(amo_dt))
		return false;
	switch (amo_op) {
	case UET_SES_AMO_MIN: case UET_SES_AMO_MAX: case UET_SES_AMO_SUM:
	case UET_SES_AMO_PROD: case UET_SES_AMO_READ: case UET_SES_AMO_WRITE:
		return true;
	case UET_SES_AMO_LOR: case UET_SES_AMO_LAND: case UET_SES_AMO_BOR:
	case UET_SES_AMO_BAND: case UET_SES_AMO_LXOR: case UET_SES_AMO_BXOR:
		return !ses_amo_dt_is_float(amo_dt);
	default:
		return ses_amo_op_is_cswap(amo_op);
	}
}

/*
 * One element: |d| the target, |s| the operand, |c| the compare value;
 * returns the new target. Integer arithmetic wraps (done unsigned). The
 * product is taken in at least unsigned int (the 1u): 16-bit operands
 * would be promoted to int, whose overflow (65535 * 65535) is undefined.
 */
#define SES_AMO_OP_INT(d, s, c, T, UT, op)				\
	((op) == UET_SES_AMO_MIN ? ((s) < (d) ? (s) : (d)) :		\
	 (op) == UET_SES_AMO_MAX ? ((s) > (d) ? (s) : (d)) :		\
	 (op) == UET_SES_AMO_SUM ? (T)((UT)(d) + (UT)(s)) :		\
	 (op) == UET_SES_AMO_PROD ? (T)(1u * (UT)(d) * (UT)(s)) :	\
	 (op) == UET_SES_AMO_LOR ? (T)((d) || (s)) :			\
	 (op) == UET_SES_AMO_LAND ? (T)((d) && (s)) :			\
	 (op) == UET_SES_AMO_BOR ? (T)((d) | (s)) :			\
	 (op) == UET_SES_AMO_BAND ? (T)((d) & (s)) :			\
	 (op) == UET_SES_AMO_LXOR ? (T)(!(d) != !(s)) :			\
	 (op) == UET_SES_AMO_BXOR ? (T)((d) ^ (s)) :			\
	 (op) == UET_SES_AMO_READ ? (d) :				\
	 (op) == UET_SES_AMO_WRITE ? (s) : SES_AMO_CSWAP(d, s, c, op))

#define SES_AMO_OP_FLOAT(d, s, c, T, UT, op)				\
	((op) == UET_SES_AMO_MIN ? ((s) < (d) ? (s) : (d)) :		\
	 (op) == UET_SES_AMO_MAX ? ((s) > (d) ? (s) : (d)) :		\
	 (op) == UET_SES_AMO_SUM ? (T)((d) + (s)) :			\
	 (op) == UET_SES_AMO_PROD ? (T)((d) * (s)) :			\
	 (op) == UET_SES_AMO_READ ? (d) :				\
	 (op) == UET_SES_AMO_WRITE ? (s) : SES_AMO_CSWAP(d, s, c, op))

/* fi_atomic(3): CSWAP_LE swaps when compare <= target, and so on. */
#define SES_AMO_CSWAP(d, s, c, op)					\
	(((op) == UET_SES_AMO_CSWAP && (c) == (d)) ||			\
	 ((op) == UET_SES_AMO_CSWAP_NE && (c) != (d)) ||		\
	 ((op) == UET_SES_AMO_CSWAP_LE && (c) <= (d)) ||		\
	 ((op) == UET_SES_AMO_CSWAP_LT && (c) < (d)) ||			\
	 ((op) == UET_SES_AMO_CSWAP_GE && (c) >= (d)) ||		\
	 ((op) == UET_SES_AMO_CSWAP_GT && (c) > (d)) ? (s) : (d))

#define SES_AMO_FN(name, T, UT, OP)					\
static void ses_amo_##name(uint8_t op, uint8_t *dst, const uint8_t *src, \
			   const uint8_t *cmp, uint8_t *old, size_t n)	\
{									\
	T d, s, c = 0;							\
									\
	for (size_t i = 0; i < n; i++) {				\
		memcpy(&d, dst + i * sizeof(T), sizeof(T));		\
		memcpy(&s, src + i * sizeof(T), sizeof(T));		\
		if (cmp)						\
			memcpy(&c, cmp + i * sizeof(T), sizeof(T));	\
		if (old)						\
			memcpy(old + i * sizeof(T), &d, sizeof(T));	\
		d = OP(d, s, c, T, UT, op);				\
		memcpy(dst + i * sizeof(T), &d, sizeof(T));		\
	}								\
}

SES_AMO_FN(i8, int8_t, uint8_t, SES_AMO_OP_INT)
SES_AMO_FN(u8, uint8_t, uint8_t, SES_AMO_OP_INT)
SES_AMO_FN(i16, int16_t, uint16_t, SES_AMO_OP_INT)
SES_AMO_FN(u16, uint16_t, uint16_t, SES_AMO_OP_INT)
SES_AMO_FN(i32, int32_t, uint32_t, SES_AMO_OP_INT)
SES_AMO_FN(u32, uint32_t, uint32_t, SES_AMO_OP_INT)
SES_AMO_FN(i64, int64_t, uint64_t, SES_AMO_OP_INT)
SES_AMO_FN(u64, uint64_t, uint64_t, SES_AMO_OP_INT)
SES_AMO_FN(f32, float, float, SES_AMO_OP_FLOAT)
SES_AMO_FN(f64, double, double, SES_AMO_OP_FLOAT)

typedef void (*ses_amo_fn)(uint8_t op, uint8_t *dst, const uint8_t *src,
			   const uint8_t *cmp, uint8_t *old, size_t n);

static const ses_amo_fn ses_amo_fns[] = {
	[UET_SES_AMO_DT_INT8] = ses_amo_i8,
	[UET_SES_AMO_DT_UINT8] = ses_amo_u8,
	[UET_SES_AMO_DT_INT16] = ses_amo_i16,
	[UET_SES_AMO_DT_UINT16] = ses_amo_u16,
	[UET_SES_AMO_DT_INT32] = ses_amo_i32,
	[UET_SES_AMO_DT_UINT32] = ses_amo_u32,
	[UET_SES_AMO_DT_INT64] = ses_amo_i64,
	[UET_SES_AMO_DT_UINT64] = ses_amo_u64,
	[UET_SES_AMO_DT_FLOAT] = ses_amo_f32,
	[UET_SES_AMO_DT_DOUBLE] = ses_amo_f64,
};

uint8_t ses_amo_apply(uint8_t amo_op, uint8_t amo_dt, uint8_t *dst,
		      const uint8_t *src, const uint8_t *cmp, uint8_t *old,
		      size_t len)
{
	size_t elem = ses_amo_elem_len(amo_dt);

	if (!elem || amo_dt >= sizeof(ses_amo_fns) / sizeof(ses_amo_fns[0]))
		return UET_SES_RC_AMO_UNSUPPORTED_DT;
	if (!ses_amo_is_supported(amo_op, amo_dt))
		return UET_SES_RC_AMO_UNSUPPORTED_OP;
	if (!len || len % elem || (ses_amo_op_is_cswap(amo_op) && !cmp))
		return UET_SES_RC_AMO_UNSUPPORTED_SIZE;
	ses_amo_fns[amo_dt](amo_op, dst, src, cmp, old, len / elem);
	return UET_SES_RC_OK;
}

/* ---- initiator ----------------------------------------------------------- */
bool ses_amo_wre_is_valid(const struct ses_wre *w, uint32_t mtu)
{
	size_t elem = ses_amo_elem_len(w->amo_dt);
	uint64_t len = ses_iov_len(w->iov, w->iov_cnt);

	if (!elem || !len || len % elem || len > mtu ||
	    !ses_amo_op_name(w->amo_op))
		return false;
	if (ses_amo_op_is_cswap(w->amo_op) &&
	    (len != elem || elem > UET_SES_CAS_OPERAND_LEN || !w->amo_compare))
		return false;
	return w->opcode != UET_SES_OP_FETCHING_ATOMIC ||
	       ses_iov_len(w->res_iov, w->res_iov_cnt) == len;
}

void ses_amo_pkt_ext(const struct ses_msg *m, struct ses_pkt *pkt)
{
	const struct ses_wre *w = m->wre;
	struct ses_cas_ext cas = { .atomic = { .amo_op = w->amo_op,
					       .amo_dt = w->amo_dt } };
	size_t elem = ses_amo_elem_len(w->amo_dt);
	uint8_t *p = pkt->hdr + pkt->hdr_len;
	size_t room = sizeof(pkt->hdr) - pkt->hdr_len;
	ssize_t n;

	if (!ses_amo_op_is_cswap(w->amo_op)) {
		n = ses_atomic_ext_encode(p, room, &cas.atomic);
	} else {
		/* Both operands ride in the header; no payload. */
		memcpy(cas.compare, w->amo_compare, elem);
		ses_iov_read(cas.swap, w->iov, w->iov_cnt, 0, elem);
		n = ses_cas_ext_encode(p, room, &cas);
		pkt->pay_len = 0;
	}
	pkt->hdr_len = (uint16_t)(pkt->hdr_len + (n > 0 ? n : 0));
}

/* ---- target -------------------------------------------------------------- */
/*
 * Refusals come before anything is recorded of the request (ses_rx.c), so
 * they are all here rather than when it runs.
 */
uint8_t ses_amo_check(const struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	const struct ses_cas_ext *x = &c->amo;
	const uint8_t *dst = c->region->base + h->buffer_offset;
	size_t elem = ses_amo_elem_len(x->atomic.amo_dt);
	bool cas = ses_amo_op_is_cswap(x->atomic.amo_op);

	if (!elem)
		return UET_SES_RC_AMO_UNSUPPORTED_DT;
	if (!ses_amo_is_supported(x->atomic.amo_op, x->atomic.amo_dt))
		return UET_SES_RC_AMO_UNSUPPORTED_OP;
	if (h->request_length > UET_PAYLOAD_MTU_MAX ||
	    (cas && h->request_length != elem))
		return UET_SES_RC_AMO_UNSUPPORTED_SIZE;
	if ((uintptr_t)dst % elem)
		return UET_SES_RC_AMO_UNALIGNED;
	return UET_SES_RC_OK;
}

/* Runs the atomic of |c| on the region (ses_amo_check passed). */
static uint8_t ses_amo_exec(const struct ses_rx_ctx *c, uint8_t *old)
{
	const struct ses_std_hdr *h = &c->h;
	const struct ses_cas_ext *x = &c->amo;
	bool cas = ses_amo_op_is_cswap(x->atomic.amo_op);

	return ses_amo_apply(x->atomic.amo_op, x->atomic.amo_dt,
			     c->region->base + h->buffer_offset,
			     cas ? x->swap : c->pay, cas ? x->compare : NULL,
			     old, h->request_length);
}

int ses_rx_amo(struct ses *s, struct ses_rx_ctx *c)
{
	const struct ses_std_hdr *h = &c->h;
	bool fetch = h->opcode == UET_SES_OP_FETCHING_ATOMIC;
	uint8_t old[UET_PAYLOAD_MTU_MAX];
	struct ses_rsp_data_hdr d = {
		.opcode = UET_SES_RSP_RESPONSE_W_DATA,
		.return_code = UET_SES_RC_OK, .message_id = h->message_id,
		.job_id = h->job_id, .read_request_message_id = h->message_id,
		.payload_length = (uint16_t)h->request_length,
		.modified_length = h->request_length,
	};
	uint8_t rc;

	rc = ses_amo_exec(c, fetch ? old : NULL);
	if (rc != UET_SES_RC_OK)	/* not run: ses_amo_apply changed nothing */
		return ses_rx_refuse(s, c, rc);
	/* Once only: a late copy of this request is a duplicate. */
	ses_rx_id_done(s, c->peer, h->message_id);
	ses_rx_rma_event(s, c, h->request_length, false, 0);
	if (!fetch)
		return ses_rx_ok(c, UET_SES_RSP_RESPONSE, h->request_length);
	/* As a READ: the old values come back in a RESPONSE_DATA. */
	ses_rsp_data_send_to(s, c->peer->id, &d, old, h->request_length);
	return ses_rx_ok(c, UET_SES_RSP_DEFAULT_RESPONSE, 0);
}
