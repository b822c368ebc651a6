/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_atomic_check: every atomic operation on every integer and floating
 * type, in plain libfabric (any provider). The server exposes a buffer;
 * the client, for each (call, op, type) fi_query_atomic admits, writes the
 * initial values into a slot (fi_write), runs the atomic, checks the old
 * values a fetching one returns, reads the slot back (fi_read) and checks
 * it against a reference computed here. What the query refuses must be
 * refused by the call too. Then an atomic with a wrong key fails.
 *
 *   fi_atomic_check -s [-a ADDR] [-p PORT]
 *   fi_atomic_check -c SERVER [-p PORT]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

#define A_SLOT		64		/* bytes per case in the server */
#define A_SLOTS		2048
#define A_N		4		/* elements, 1 for compares */

enum a_kind { A_WRITE, A_FETCH, A_COMPARE };

static const char *const a_kind_names[] = { "atomic", "fetch", "compare" };
static const char *const a_op_names[FI_ATOMIC_OP_LAST] = {
	"MIN", "MAX", "SUM", "PROD", "LOR", "LAND", "BOR", "BAND", "LXOR",
	"BXOR", "READ", "WRITE", "CSWAP", "CSWAP_NE", "CSWAP_LE", "CSWAP_LT",
	"CSWAP_GE", "CSWAP_GT", "MSWAP",
};
static const char *const a_dt_names[] = {
	"INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64",
	"UINT64", "FLOAT", "DOUBLE",
};

/* The values of a case: element |i| of the target, operand, compare. */
static double a_init(int i, int variant)
{
	static const double v[] = { 0, 3, -2, 7, 1, -5, 2, 0 };

	return v[(i + variant) % 8];
}

static double a_operand(int i)
{
	static const double v[] = { 2, 0, -3, 5 };

	return v[i % 4];
}

/* Reference: fi_atomic(3)'s semantics, on one element of type T. The
 * integer product is taken in at least unsigned int (1u): 16-bit operands
 * would be promoted to int, whose overflow is undefined. */
#define A_REF(T, UT, d, s, c, op, is_int)				\
	((op) == FI_MIN ? ((s) < (d) ? (s) : (d)) :			\
	 (op) == FI_MAX ? ((s) > (d) ? (s) : (d)) :			\
	 (op) == FI_SUM ? ((is_int) ? (T)((UT)(d) + (UT)(s)) : (T)((d) + (s))) : \
	 (op) == FI_PROD ? ((is_int) ? (T)(1u * (UT)(d) * (UT)(s)) : (T)((d) * (s))) : \
	 (op) == FI_LOR ? (T)((d) || (s)) :				\
	 (op) == FI_LAND ? (T)((d) && (s)) :				\
	 (op) == FI_LXOR ? (T)(((d) && !(s)) || (!(d) && (s))) :	\
	 (op) == FI_ATOMIC_READ ? (d) :					\
	 (op) == FI_ATOMIC_WRITE ? (s) :				\
	 (op) == FI_CSWAP ? ((c) == (d) ? (s) : (d)) :			\
	 (op) == FI_CSWAP_NE ? ((c) != (d) ? (s) : (d)) :		\
	 (op) == FI_CSWAP_LE ? ((c) <= (d) ? (s) : (d)) :		\
	 (op) == FI_CSWAP_LT ? ((c) < (d) ? (s) : (d)) :		\
	 (op) == FI_CSWAP_GE ? ((c) >= (d) ? (s) : (d)) :		\
	 (op) == FI_CSWAP_GT ? ((c) > (d) ? (s) : (d)) : (d))

/* Integers: bitwise ops and MSWAP too, arithmetic wraps (unsigned). */
#define A_CASE_INT(T, UT)						\
	do {								\
		T *tg = tgt, *op_ = opd, *cp = cmp, *wn = want;		\
		for (int i = 0; i < n; i++) {				\
			UT d, s_;					\
			tg[i] = (T)(int64_t)a_init(i, variant);	\
			op_[i] = (T)(int64_t)a_operand(i);		\
			cp[i] = (T)(int64_t)(a_init(i, variant) +	\
					     variant - 1);		\
			d = (UT)tg[i];					\
			s_ = (UT)op_[i];				\
			wn[i] = op == FI_BOR ? (T)(d | s_) :		\
				op == FI_BAND ? (T)(d & s_) :		\
				op == FI_BXOR ? (T)(d ^ s_) :		\
				op == FI_MSWAP ?			\
				(T)((s_ & (UT)cp[i]) | (d & (UT)~(UT)cp[i])) : \
				(T)A_REF(T, UT, tg[i], op_[i], cp[i], op, 1); \
		}							\
	} while (0)

#define A_CASE_FLT(T)							\
	do {								\
		T *tg = tgt, *op_ = opd, *cp = cmp, *wn = want;		\
		for (int i = 0; i < n; i++) {				\
			tg[i] = (T)a_init(i, variant);			\
			op_[i] = (T)a_operand(i);			\
			cp[i] = (T)(a_init(i, variant) + variant - 1);	\
			wn[i] = (T)A_REF(T, T, tg[i], op_[i], cp[i], op, 0); \
		}							\
	} while (0)

/* Fills a case's target, operand and compare values, and the target
 * expected after it (|variant| moves the compare below, at, above). */
static void a_values(enum fi_datatype dt, enum fi_op op, int n, int variant,
		     void *tgt, void *opd, void *cmp, void *want)
{
	switch (dt) {
	case FI_INT8: A_CASE_INT(int8_t, uint8_t); break;
	case FI_UINT8: A_CASE_INT(uint8_t, uint8_t); break;
	case FI_INT16: A_CASE_INT(int16_t, uint16_t); break;
	case FI_UINT16: A_CASE_INT(uint16_t, uint16_t); break;
	case FI_INT32: A_CASE_INT(int32_t, uint32_t); break;
	case FI_UINT32: A_CASE_INT(uint32_t, uint32_t); break;
	case FI_INT64: A_CASE_INT(int64_t, uint64_t); break;
	case FI_UINT64: A_CASE_INT(uint64_t, uint64_t); break;
	case FI_FLOAT: A_CASE_FLT(float); break;
	case FI_DOUBLE: A_CASE_FLT(double); break;
	default: break;
	}
}

/* ---- set-up -------------------------------------------------------------------- */
static const char *usage =
	"usage: fi_atomic_check -s [-a ADDR] [-p PORT]\n"
	"       fi_atomic_check -c SERVER [-p PORT]\n";

#define A_CHECK(call)							\
	do {								\
		int a_ret_ = (int)(call);				\
		if (a_ret_ < 0) {					\
			printf("fi_atomic_check: FAIL %s: %s\n", #call,	\
			       fi_strerror(-a_ret_));			\
			return -1;					\
		}							\
	} while (0)

static int a_setup(struct ex_ctx *c, const struct ex_opts *o)
{
	struct ex_fab_opts fo = { .prog = "fi_atomic_check", .cq_size = 256 };

	return ex_setup_hints(c, o, ex_hints_rdm(FI_ATOMIC | EX_RMA_CAPS,
						 FI_CONTEXT | FI_CONTEXT2),
			      &fo, A_SLOTS * A_SLOT) ? -1 : 0;
}

/* ---- the cases ------------------------------------------------------------------ */
struct a_run {
	struct ex_ctx *c;
	struct ex_peer_info *r;
	struct fi_context2 ctx;
	int slot;
	int checked, refused;
	bool try_refused;	/* make the calls the query refuses */
};

/* Retries a data call while the provider says -FI_EAGAIN, then waits for
 * its completion. */
#define A_OP(a, call)							\
	do {								\
		struct fi_cq_data_entry a_e_;				\
		ssize_t a_r_;						\
		while ((a_r_ = (call)) == -FI_EAGAIN)			\
			fi_cq_read((a)->c->fab.cq, NULL, 0);		\
		A_CHECK(a_r_);						\
		A_CHECK(ex_wait_cq((a)->c, &a_e_));			\
	} while (0)

static ssize_t a_call(struct a_run *a, enum a_kind kind, enum fi_op op,
		      enum fi_datatype dt, size_t n, uint64_t raddr,
		      uint8_t *loc)
{
	struct ex_ctx *c = a->c;

	switch (kind) {
	case A_WRITE:
		return fi_atomic(c->fab.ep, loc + 64, n, c->desc, c->peer,
				 raddr, a->r->key, dt, op, &a->ctx);
	case A_FETCH:
		return fi_fetch_atomic(c->fab.ep, loc + 64, n, c->desc,
				       loc + 256, c->desc, c->peer, raddr,
				       a->r->key, dt, op, &a->ctx);
	default:
		return fi_compare_atomic(c->fab.ep, loc + 64, n, c->desc,
					 loc + 128, c->desc, loc + 256,
					 c->desc, c->peer, raddr, a->r->key,
					 dt, op, &a->ctx);
	}
}

/* One case: initial values written, the atomic, old values and the
 * result read back, both checked. */
static int a_case(struct a_run *a, enum a_kind kind, enum fi_op op,
		  enum fi_datatype dt, const struct fi_atomic_attr *attr,
		  int variant)
{
	struct ex_ctx *c = a->c;
	uint8_t *loc = c->buf;	/* tgt 0, operand 64, compare 128, want 192,
				 * old 256, read back 320 */
	size_t n = kind == A_COMPARE ? 1 : attr->count < A_N ? attr->count :
		   A_N, len = n * attr->size;
	uint64_t raddr = a->r->addr + (uint64_t)a->slot++ * A_SLOT;

	if (a->slot == A_SLOTS)
		a->slot = 0;
	a_values(dt, op, (int)n, variant, loc, loc + 64, loc + 128, loc + 192);
	A_OP(a, fi_write(c->fab.ep, loc, len, c->desc, c->peer, raddr,
			 a->r->key, &a->ctx));
	A_OP(a, a_call(a, kind, op, dt, n, raddr, loc));
	if (kind != A_WRITE && memcmp(loc + 256, loc, len)) {
		printf("fi_atomic_check: FAIL %s %s %s: old values differ\n",
		       a_kind_names[kind], a_op_names[op], a_dt_names[dt]);
		return -1;
	}
	A_OP(a, fi_read(c->fab.ep, loc + 320, len, c->desc, c->peer, raddr,
			a->r->key, &a->ctx));
	if (memcmp(loc + 320, loc + 192, len)) {
		printf("fi_atomic_check: FAIL %s %s %s (compare variant %d): "
		       "target differs from the reference\n",
		       a_kind_names[kind], a_op_names[op], a_dt_names[dt],
		       variant);
		return -1;
	}
	a->checked++;
	return 0;
}

static const uint64_t a_kind_flags[] = { 0, FI_FETCH_ATOMIC,
					 FI_COMPARE_ATOMIC };

static int a_client(struct ex_ctx *c, struct ex_peer_info *r)
{
	struct a_run a = { .c = c, .r = r };
	struct fi_atomic_attr attr;
	uint8_t *loc = c->buf;

	/* tcp's rxm takes what its query refuses, and its target then
	 * crashes (a NULL handler): such calls are tried on uet only. */
	a.try_refused = !strcmp(c->fab.info->fabric_attr->prov_name, "uet");
	if (!a.try_refused)
		printf("fi_atomic_check: SKIP: calls the query refuses are not "
		       "tried on %s\n", c->fab.info->fabric_attr->prov_name);

	for (int k = A_WRITE; k <= A_COMPARE; k++) {
		for (int op = 0; op < FI_ATOMIC_OP_LAST; op++) {
			for (int dt = FI_INT8; dt <= FI_DOUBLE; dt++) {
				if (fi_query_atomic(c->fab.domain, dt, op,
						    &attr, a_kind_flags[k])) {
					/* Refused by the query: by the call. */
					if (a.try_refused &&
					    !a_call(&a, k, op, dt, 1,
						    r->addr, loc)) {
						printf("fi_atomic_check: FAIL "
						       "%s %s %s: refused by the "
						       "query, taken by the "
						       "call\n", a_kind_names[k],
						       a_op_names[op],
						       a_dt_names[dt]);
						return -1;
					}
					a.refused++;
					continue;
				}
				for (int v = 0; v < (k == A_COMPARE ? 3 : 1);
				     v++)
					if (a_case(&a, k, op, dt, &attr, v))
						return -1;
			}
		}
	}
	printf("fi_atomic_check: %d cases checked against the reference, %d "
	       "refused by fi_query_atomic%s\n", a.checked, a.refused,
	       a.try_refused ? " and by the call" : "");
	return 0;
}

/* An atomic with a key the server never gave: an error completion. */
static int a_bad_key(struct ex_ctx *c, struct ex_peer_info *r)
{
	struct fi_cq_data_entry e;
	uint64_t one = 1;
	ssize_t ret;

	memcpy(c->buf, &one, sizeof(one));
	while ((ret = fi_atomic(c->fab.ep, c->buf, 1, c->desc, c->peer, r->addr,
				r->key + 0x10000, FI_UINT64, FI_SUM, NULL)) ==
	       -FI_EAGAIN)
		fi_cq_read(c->fab.cq, NULL, 0);
	if (!ret && ex_wait_cq(c, &e) == 0) {
		printf("fi_atomic_check: FAIL an atomic with a wrong key "
		       "completed\n");
		return -1;
	}
	printf("fi_atomic_check: an atomic with a wrong key failed%s\n",
	       ret ? " at once" : "");
	return 0;
}

int main(int argc, char **argv)
{
	struct ex_peer_info remote;
	struct ex_opts o;
	struct ex_ctx c;
	uint8_t done = 1;
	int ret = ex_parse(argc, argv, &o, usage);

	if (ret)
		return ret > 0 ? 0 : 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = 1;
	if (a_setup(&c, &o) || ex_exchange(&c, &o, &remote))
		goto out;
	if (o.server) {
		/* Serve (progress) until the client is done. */
		if (ex_oob_recv(&c, &done, 1))
			goto out;
		printf("fi_atomic_check: server: all ok\n");
	} else {
		if (a_client(&c, &remote) || a_bad_key(&c, &remote) ||
		    ex_oob_send(&c, &done, 1))
			goto out;
		printf("fi_atomic_check: client: all ok\n");
	}
	ret = 0;
out:
	ex_teardown(&c);
	return ret;
}
