/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_fep_check's client: rounds of writes, reads back and tagged sends
 * from every endpoint to its server endpoint, the expected failures (-x),
 * a peer that goes away (-g), and the report to the server.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <rdma/fi_rma.h>

#include "test/progs/fi_fep_check.h"

/* ---- client -------------------------------------------------------------- */
static uint8_t *fep_src(struct fep *f, struct fep_ep *e, int k)
{
	return e->buf + f->off[k];
}

static uint8_t *fep_back(struct fep *f, struct fep_ep *e, int k)
{
	return e->buf + f->off[FEP_REGIONS] + f->off[k];
}

static uint8_t *fep_msg(struct fep *f, struct fep_ep *e, int which)
{
	return e->buf + 2 * f->off[FEP_REGIONS] + (size_t)which * FEP_MSG_SLOT;
}

/* The slot of operation |kind| on region (or message) |k|. */
static struct fep_op *fep_op_of(struct fep_ep *e, enum fep_kind kind, int k)
{
	return &e->op[kind == FEP_SEND ? 2 * FEP_REGIONS + k :
					 (int)kind * FEP_REGIONS + k];
}

/* Posts operation |kind| on region or message |k| of every endpoint. */
static int fep_post_all(struct fep *f, enum fep_kind kind, int k,
			uint32_t round, uint64_t seed)
{
	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];
		struct fep_op *op = fep_op_of(e, kind, k);
		uint64_t raddr = e->raddr + f->off[k < FEP_REGIONS ? k : 0];
		size_t len = kind == FEP_SEND ? fep_msg_len[k] :
						fep_region_len[k];
		ssize_t ret;

		op->kind = kind;
		op->slot = k;
		if (kind == FEP_WRITE) {
			ret = FEP_POST(f, op, fi_write(e->ep, fep_src(f, e, k),
				       len, e->desc, e->peer, raddr, e->rkey,
				       &op->fctx));
		} else if (kind == FEP_READ) {
			ret = FEP_POST(f, op, fi_read(e->ep, fep_back(f, e, k),
				       len, e->desc, e->peer, raddr, e->rkey,
				       &op->fctx));
		} else {
			struct fep_msg_hdr h = { .magic = FEP_MAGIC,
						 .ep = (uint32_t)i,
						 .round = round,
						 .which = (uint32_t)k,
						 .seed = seed };
			uint8_t *m = fep_msg(f, e, k);

			memcpy(m, &h, sizeof(h));
			fep_fill(m + sizeof(h), len - sizeof(h),
				 fep_key(seed, (uint32_t)i, 8 + (uint32_t)k,
					 round));
			ret = FEP_POST(f, op, fi_tsend(e->ep, m, len, e->desc,
				       e->peer, fep_tag((uint32_t)i, round,
				       (uint32_t)k), &op->fctx));
		}
		if (ret)
			FEP_FAIL("endpoint %d: %s of %zu B: %s", i,
				 fep_kind_name[kind], len,
				 fi_strerror((int)-ret));
	}
	return 0;
}

static void fep_op_print(const struct fep_op *op, const char *what)
{
	printf("fi_fep_check: client endpoint %d: %s of %zu B: %s after %.1f "
	       "ms: err %d (%s: %s), prov_errno %#x (%s)\n", op->ep->idx,
	       fep_kind_name[op->kind], op->kind == FEP_SEND ?
	       fep_msg_len[op->slot] : fep_region_len[op->slot], what,
	       (op->t_done - op->t_post) * 1e3, op->err,
	       fep_err_name(op->err), fi_strerror(op->err), op->prov_errno,
	       op->why);
}

/*
 * -g: whether |op| failed as a peer that went away makes it fail: the
 * service's answer for an absent destination, or FI_ECONNRESET (the PDC
 * with the dead endpoint reset by the service's NACK).
 */
static bool fep_is_gone(const struct fep *f, const struct fep_op *op)
{
	return (op->err == f->o.g_err && op->prov_errno == f->o.g_rc) ||
	       (op->err == FI_ECONNRESET &&
		(!op->prov_errno || op->prov_errno == -FI_ECONNRESET));
}

/*
 * After a phase: 0 if every operation succeeded, 1 if one failed as -g
 * expects (the peer went away), -1 otherwise.
 */
static int fep_phase_end(struct fep *f, enum fep_kind kind, int k)
{
	int fails = 0, gone = 0;

	for (int i = 0; i < f->o.n; i++) {
		struct fep_op *op = fep_op_of(&f->ep[i], kind, k);

		if (!op->err)
			continue;
		if (f->o.g && fep_is_gone(f, op)) {
			fep_op_print(op, "the peer is gone");
			printf("fi_fep_check: client: peer gone: error "
			       "completion at %.3f (wall clock), %.1f ms "
			       "after its posting\n", fep_wall() -
			       (fep_now() - op->t_done),
			       (op->t_done - op->t_post) * 1e3);
			gone++;
			continue;
		}
		fep_op_print(op, "error completion");
		fails++;
	}
	return fails ? -1 : gone ? 1 : 0;
}

/*
 * -g, once the peer is gone: a new write to it must fail with the
 * service's answer for its absent PIDonFEP, (RC, ERR) of -g, in time.
 */
static int fep_probe_gone(struct fep *f)
{
	int fails = 0;

	if (fep_post_all(f, FEP_WRITE, 0, 0, 0) || fep_wait(f, "probe"))
		return -1;
	for (int i = 0; i < f->o.n; i++) {
		struct fep_op *op = fep_op_of(&f->ep[i], FEP_WRITE, 0);
		bool ok = op->err == f->o.g_err && op->prov_errno == f->o.g_rc &&
			  (op->t_done - op->t_post) * 1e3 <= f->o.x_ms;

		if (!op->err)
			printf("fi_fep_check: client endpoint %d: a write to "
			       "the dead peer succeeded\n", i);
		else
			fep_op_print(op, ok ? "a new write to the dead peer "
				     "failed as expected" : "a new write to the "
				     "dead peer failed, but not as expected");
		fails += !ok;
	}
	if (fails)
		FEP_FAIL("client: a new write to the dead peer did not fail "
			 "with err %s and prov_errno %#x within %d ms",
			 fep_err_name(f->o.g_err), f->o.g_rc, f->o.x_ms);
	return 0;
}

/* One round: regions written, read back and compared, two messages. */
static int fep_round(struct fep *f, struct fep_report *r, uint32_t round)
{
	int ret;

	for (int i = 0; i < f->o.n; i++)
		for (int k = 0; k < FEP_REGIONS; k++) {
			fep_fill(fep_src(f, &f->ep[i], k), fep_region_len[k],
				 fep_key(r->seed, (uint32_t)i, (uint32_t)k,
					 round));
			memset(fep_back(f, &f->ep[i], k), 0,
			       fep_region_len[k]);
		}
	for (int kind = FEP_WRITE; kind <= FEP_SEND; kind++) {
		int slots = kind == FEP_SEND ? 2 : FEP_REGIONS;

		for (int k = 0; k < slots; k++)
			if (fep_post_all(f, kind, k, round, r->seed))
				return -1;
		if (fep_wait(f, fep_kind_name[kind]))
			return -1;
		for (int k = 0; k < slots; k++) {
			ret = fep_phase_end(f, kind, k);
			if (ret)
				return ret;
		}
	}
	for (int i = 0; i < f->o.n; i++) {
		for (int k = 0; k < FEP_REGIONS; k++)
			if (memcmp(fep_back(f, &f->ep[i], k),
				   fep_src(f, &f->ep[i], k), fep_region_len[k]))
				FEP_FAIL("endpoint %d, round %u: region %d "
					 "(%zu B) read back differs from what "
					 "it wrote", i, round, k,
					 fep_region_len[k]);
		r->written[i] = 1;
		r->msgs[i] += 2;
	}
	return 0;
}

/* -x: each kind of operation once on every endpoint, each must fail. */
static int fep_expect_failure(struct fep *f)
{
	static const struct { enum fep_kind kind; int k; } ops[] = {
		{ FEP_WRITE, 0 }, { FEP_WRITE, FEP_REGIONS - 1 },
		{ FEP_READ, 1 }, { FEP_SEND, 1 },
	};
	double slowest = 0;
	int fails = 0;

	for (size_t j = 0; j < sizeof(ops) / sizeof(ops[0]); j++) {
		if (fep_post_all(f, ops[j].kind, ops[j].k, 0, 0) ||
		    fep_wait(f, fep_kind_name[ops[j].kind]))
			return -1;
		for (int i = 0; i < f->o.n; i++) {
			struct fep_op *op = fep_op_of(&f->ep[i], ops[j].kind,
						      ops[j].k);
			double ms = (op->t_done - op->t_post) * 1e3;
			bool ok = op->err == f->o.x_err &&
				  op->prov_errno == f->o.x_rc &&
				  ms <= f->o.x_ms;

			if (!op->err) {
				printf("fi_fep_check: client endpoint %d: %s "
				       "succeeded (after %.1f ms)\n", i,
				       fep_kind_name[op->kind], ms);
				fails++;
				continue;
			}
			fep_op_print(op, ok ? "failed as expected" :
				     "failed, but not as expected");
			fails += !ok;
			slowest = ms > slowest ? ms : slowest;
		}
	}
	if (fails)
		FEP_FAIL("client: %d operations did not fail with err %s and "
			 "prov_errno %#x within %d ms", fails,
			 fep_err_name(f->o.x_err), f->o.x_rc, f->o.x_ms);
	printf("fi_fep_check: client: all failed as expected (%d endpoints, "
	       "%zu operations each: err %s, prov_errno %#x, the slowest "
	       "after %.1f ms)\n", f->o.n, sizeof(ops) / sizeof(ops[0]),
	       fep_err_name(f->o.x_err), f->o.x_rc, slowest);
	return 0;
}

/* The server's names, keys and buffers (or, with -P, a lone PIDonFEP). */
static int fep_peers(struct fep *f)
{
	struct fep_hello *h = calloc(1, sizeof(*h));
	int ret = -1;

	if (!h)
		FEP_FAIL("no memory");
	if (f->o.pid >= 0) {
		char svc[16];
		struct fi_info *info;

		snprintf(svc, sizeof(svc), "%d", f->o.pid);
		if (fep_getinfo(f, svc, &info))
			goto out;
		h->n = (uint32_t)f->o.n;
		for (int i = 0; i < f->o.n; i++) {
			memcpy(h->ep[i].name, info->dest_addr,
			       info->dest_addrlen);
			h->ep[i].name_len = info->dest_addrlen;
		}
		fi_freeinfo(info);
	} else if (fep_oob_connect(f, -1) || fep_oob_recv(f, h, sizeof(*h))) {
		goto out;
	}
	if (f->o.pid < 0 && (h->magic != FEP_MAGIC ||
			     h->n != (uint32_t)f->o.n)) {
		printf("fi_fep_check: FAIL: the server has %u endpoints, we "
		       "%d\n", h->n, f->o.n);
		goto out;
	}
	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];

		if (fi_av_insert(f->av, h->ep[i].name, 1, &e->peer, 0,
				 NULL) != 1) {
			printf("fi_fep_check: FAIL: fi_av_insert of server "
			       "endpoint %d\n", i);
			goto out;
		}
		e->raddr = h->ep[i].addr;
		e->rkey = h->ep[i].key;
	}
	ret = 0;
out:
	free(h);
	return ret;
}

int fep_client(struct fep *f)
{
	struct fep_report r = { .magic = FEP_MAGIC, .n = (uint32_t)f->o.n };
	char a[FEP_NAME_MAX], b[FEP_NAME_MAX];
	int32_t verdict = -1;
	uint32_t round = 0;
	double t0;
	int ret = 0;

	if (getrandom(&r.seed, sizeof(r.seed), 0) != sizeof(r.seed))
		r.seed = (uint64_t)getpid() << 32 ^ (uint64_t)fep_wall();
	if (fep_peers(f))
		return -1;
	printf("fi_fep_check: client: process %d: %d endpoints %s .. %s\n",
	       (int)getpid(), f->o.n, fep_str(f, f->ep[0].name, a, sizeof(a)),
	       fep_str(f, f->ep[f->o.n - 1].name, b, sizeof(b)));
	t0 = fep_now();
	if (f->o.x) {
		ret = fep_expect_failure(f);
		r.failed_as_expected = 1;
	} else {
		while (!ret && round < FEP_MAX_ROUNDS - 1 &&
		       (f->o.run_s ? round == 0 || fep_now() - t0 < f->o.run_s :
				     round < (uint32_t)f->o.rounds))
			if (!(ret = fep_round(f, &r, round)) && !round++)
				printf("fi_fep_check: client: round 1 "
				       "done\n");
		r.rounds = round;
	}
	if (ret > 0) {	/* -g: the peer went away, as expected */
		if (fep_probe_gone(f))
			return -1;
		printf("fi_fep_check: client: all ok (the peer went away "
		       "after %u rounds, as expected)\n", round);
		return 0;
	}
	if (f->o.g && !ret)
		FEP_FAIL("client: %u rounds and the peer never went away",
			 round);
	if (ret || f->o.pid >= 0)
		return ret;
	if (fep_oob_send(f, &r, sizeof(r)) ||
	    fep_oob_recv(f, &verdict, sizeof(verdict)))
		return -1;
	if (verdict)
		FEP_FAIL("client: the server found %d failures", verdict);
	if (!f->o.x)
		printf("fi_fep_check: client: all ok (%d endpoints, %u rounds "
		       "of %.1f MiB written and read back and 2 tagged "
		       "messages each, in %.2f s)\n", f->o.n, round,
		       (double)f->off[FEP_REGIONS] * f->o.n / 1048576,
		       fep_now() - t0);
	return 0;
}

