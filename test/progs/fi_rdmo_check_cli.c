/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rdmo_check's client: its operations and their completions, the
 * server's answers, the appends to the shared queue, the scatters, the
 * flush rounds, the results and the write counter (the refused operations
 * and -x are in fi_rdmo_check_cli_err.c).
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test/progs/fi_rdmo_check_cli.h"

void frd_op_init(struct frd_op *op, enum frd_kind kind,
			const uint64_t *result)
{
	memset(op, 0, sizeof(*op));
	op->kind = (uint8_t)kind;
	op->result = result;
}

static void frd_op_end(struct frd_cli *c, void *ctx, uint64_t flags,
		       int err, int prov_errno)
{
	struct frd_op *op = ctx;

	if (!op) {
		c->stray++;
		return;
	}
	/* Every one of ours completes as an fi_write does. */
	if (flags != (FI_RMA | FI_WRITE))
		c->bad_flags++;
	if (err)
		c->cpl_err++;
	else
		c->cpl_ok++;
	if (op->done)
		c->twice++;
	op->done = true;
	op->err = err;
	op->prov_errno = prov_errno;
	if (!err && op->result && *op->result == FRD_SENTINEL)
		op->early = true;
	c->cpl[op->kind]++;
}

/* Reads what completed: how many, or -1 (the CQ failed). */
int frd_pump(struct frd_cli *c)
{
	struct fi_cq_msg_entry e[32];
	struct fi_cq_err_entry err;
	ssize_t r = fi_cq_read(c->f.fab.cq, e, 32);

	if (r > 0) {
		for (ssize_t i = 0; i < r; i++)
			frd_op_end(c, e[i].op_context, e[i].flags, 0, 0);
		return (int)r;
	}
	if (r == -FI_EAGAIN)
		return 0;
	if (r == -FI_EAVAIL) {
		memset(&err, 0, sizeof(err));
		if (fi_cq_readerr(c->f.fab.cq, &err, 0) != 1)
			return -1;
		frd_op_end(c, err.op_context, err.flags, err.err,
			   err.prov_errno);
		return 1;
	}
	fprintf(stderr, "fi_rdmo_check: client %u: fi_cq_read: %s\n", c->k,
		fi_strerror((int)-r));
	return -1;
}

/* Until |op| has completed (FRD_WAIT_S at most); 0 or -1. */
int frd_wait_op(struct frd_cli *c, const struct frd_op *op)
{
	uint64_t end = frd_now_ms() + FRD_WAIT_S * 1000;

	while (!op->done) {
		if (frd_pump(c) < 0)
			return -1;
		if (frd_now_ms() > end) {
			fprintf(stderr, "fi_rdmo_check: client %u: no "
				"completion in %d s\n", c->k, FRD_WAIT_S);
			return -1;
		}
	}
	return 0;
}

/* Until |n| operations of |kind| have completed. */
static int frd_wait_kind(struct frd_cli *c, enum frd_kind kind, uint64_t n)
{
	uint64_t end = frd_now_ms() + FRD_WAIT_S * 1000;

	while (c->cpl[kind] < n) {
		if (frd_pump(c) < 0)
			return -1;
		if (frd_now_ms() > end) {
			fprintf(stderr, "fi_rdmo_check: client %u: %lu of %lu "
				"completions in %d s\n", c->k,
				(unsigned long)c->cpl[kind], (unsigned long)n,
				FRD_WAIT_S);
			return -1;
		}
	}
	return 0;
}

/* The server's answer, the provider running meanwhile. */
static int frd_cli_recv(struct frd_cli *c, void *buf, size_t len)
{
	uint64_t end = frd_now_ms() + FRD_WAIT_S * 1000;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	for (;;) {
		if (poll(&pfd, 1, 1) == 1)
			return frd_recv_all(c->fd, buf, len);
		if (frd_pump(c) < 0 || frd_now_ms() > end)
			return -1;
	}
}

static int frd_cli_verdict(struct frd_cli *c, const char *what)
{
	struct frd_verdict v;

	if (frd_cli_recv(c, &v, sizeof(v))) {
		fprintf(stderr, "fi_rdmo_check: client %u: %s: no verdict\n",
			c->k, what);
		return -1;
	}
	if (!v.ok) {
		v.why[sizeof(v.why) - 1] = 0;
		printf("fi_rdmo_check: client %u: %s: FAIL: the server found: "
		       "%s\n", c->k, what, v.why);
		return -1;
	}
	return 0;
}

/* Asks the server to look at our regions as we think they are. */
int frd_cli_state(struct frd_cli *c, uint32_t what)
{
	struct frd_msg m = {
		.type = FRD_STATE, .what = what, .client = c->k,
		.aux_ptr = c->in.aux_addr + c->aux_bytes,
		.full_ptr = c->in.aux_addr + FRD_AUX_LEN - (c->filled ? 0 : 8),
		.aux_recs = c->aux_recs, .writes = c->writes,
		.scattered = c->scattered,
	};

	if (frd_send_all(c->fd, &m, sizeof(m)))
		return -1;
	return frd_cli_verdict(c, frd_case_names[what]);
}

static int frd_cli_setup(struct frd_cli *c)
{
	const struct frd_opts *o = c->o;
	size_t main_len = (size_t)FRD_MAIN_N_MAX * FRD_MAIN_MAX;
	size_t aux_len = (size_t)FRD_FLUSH_RECS * FRD_AUX_MAX;
	size_t write_len = (size_t)FRD_ROUNDS * FRD_WRITE_LEN;
	size_t scat_len = (size_t)FRD_NSCAT * FI_UET_RDMO_SCATTER_MAX * 1000;
	void *p = NULL;

	if (frd_fab_open(&c->f, o))
		return -1;
	c->buf_len = main_len + aux_len + write_len + scat_len + 4096;
	if (frd_mr(&c->f, &p, c->buf_len, FI_READ | FI_WRITE, &c->mr))
		return -1;
	c->buf = p;
	c->desc = fi_mr_desc(c->mr);
	c->main_src = c->buf;
	c->aux_src = c->main_src + main_len;
	c->write_src = c->aux_src + aux_len;
	c->scat_src = c->write_src + write_len;
	c->junk = c->scat_src + scat_len;
	c->main_ops = calloc(FRD_MAIN_N_MAX, sizeof(*c->main_ops));
	c->main_res = calloc(FRD_MAIN_N_MAX, sizeof(*c->main_res));
	c->junk_ops = calloc(FRD_JUNK_MAX, sizeof(*c->junk_ops));
	return c->main_ops && c->main_res && c->junk_ops ? 0 : -1;
}

/* fi_open_ops: ours by its name, nothing by another, no flags. */
static int frd_cli_open_ops(struct frd_cli *c)
{
	static const char *const others[] = {
		"", "uet rdmo ops v2", "uet rdmo", "efa ops",
	};
	void *other = NULL;
	int r;

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		r = fi_open_ops(&c->f.fab.domain->fid, others[i], 0, &other,
				NULL);
		if (r != -FI_ENOSYS || other) {
			printf("fi_rdmo_check: client %u: fi_open_ops(\"%s\"): "
			       "%d, not -FI_ENOSYS\n", c->k, others[i], r);
			return -1;
		}
	}
	r = fi_open_ops(&c->f.fab.domain->fid, FI_UET_RDMO_OPS, 1, &other,
			NULL);
	if (r != -FI_EBADFLAGS) {
		printf("fi_rdmo_check: client %u: fi_open_ops with flags: %d, "
		       "not -FI_EBADFLAGS\n", c->k, r);
		return -1;
	}
	FRD_CHECK(fi_open_ops(&c->f.fab.domain->fid, FI_UET_RDMO_OPS, 0,
			      (void **)&c->ops, NULL));
	if (!c->ops || c->ops->size < sizeof(*c->ops) || !c->ops->append ||
	    !c->ops->flush || !c->ops->scatter) {
		printf("fi_rdmo_check: client %u: FI_UET_RDMO_OPS incomplete\n",
		       c->k);
		return -1;
	}
	printf("fi_rdmo_check: client %u: fi_open_ops: FI_UET_RDMO_OPS given, "
	       "4 other names -FI_ENOSYS, flags -FI_EBADFLAGS ok\n", c->k);
	return 0;
}

static int frd_cli_connect(struct frd_cli *c)
{
	struct frd_msg m = { .type = FRD_HELLO, .client = c->k };

	if (frd_name(&c->f, m.name, &m.name_len))
		return -1;
	c->fd = ex_tcp_connect(c->o->node, c->o->port);
	if (c->fd < 0) {
		perror("fi_rdmo_check: side channel");
		return -1;
	}
	if (frd_send_all(c->fd, &m, sizeof(m)) ||
	    frd_cli_recv(c, &c->in, sizeof(c->in)))
		return -1;
	if (c->in.name_len > FRD_NAME_MAX ||
	    fi_av_insert(c->f.fab.av, c->in.name, 1, &c->srv, 0, NULL) != 1) {
		fprintf(stderr, "fi_rdmo_check: client %u: fi_av_insert\n",
			c->k);
		return -1;
	}
	if (c->in.mr_mode != (uint32_t)c->f.fab.info->domain_attr->mr_mode ||
	    !c->in.n_main || c->in.n_main > FRD_MAIN_N_MAX) {
		fprintf(stderr, "fi_rdmo_check: client %u: server's mr_mode "
			"%#x, ours %#x (or %u appends)\n", c->k,
			c->in.mr_mode, c->f.fab.info->domain_attr->mr_mode,
			c->in.n_main);
		return -1;
	}
	return 0;
}

/*
 * A flush (our first operation to the server sets up what the transport
 * needs), then the server's word that every client is as far: appends
 * start together.
 */
static int frd_cli_ready(struct frd_cli *c)
{
	struct frd_msg m = { .type = FRD_READY, .client = c->k };

	frd_op_init(&c->flush_ops[FRD_ROUNDS], FRD_K_FLUSH, NULL);
	FRD_POST(c, c->ops->flush(c->f.fab.ep, c->srv,
				  &c->flush_ops[FRD_ROUNDS]));
	if (frd_wait_op(c, &c->flush_ops[FRD_ROUNDS]))
		return -1;
	if (c->flush_ops[FRD_ROUNDS].err) {
		printf("fi_rdmo_check: client %u: first flush: %s "
		       "(prov_errno %#x)\n", c->k,
		       fi_strerror(c->flush_ops[FRD_ROUNDS].err),
		       c->flush_ops[FRD_ROUNDS].prov_errno);
		return -1;
	}
	if (frd_send_all(c->fd, &m, sizeof(m)) ||
	    frd_cli_verdict(c, "start"))
		return -1;
	printf("fi_rdmo_check: client %u: first operation, a flush: "
	       "completed ok\n", c->k);
	return 0;
}

/* -N records to the shared queue, -W in flight, none waited for alone. */
static int frd_cli_appends(struct frd_cli *c)
{
	uint32_t n = c->in.n_main, w = c->o->window, posted = 0, most = 0;
	uint64_t end = frd_now_ms() + FRD_WAIT_S * 1000, t0 = frd_now_ms();
	uint64_t lo = c->in.q_addr, hi = c->in.q_addr + c->in.q_len;

	while (c->cpl[FRD_K_MAIN] < n) {
		while (posted < n && posted - c->cpl[FRD_K_MAIN] < w) {
			uint8_t *src = c->main_src + (size_t)posted *
				       FRD_MAIN_MAX;
			uint32_t len = frd_rec_fill(src, FRD_Q_MAIN, c->k,
						    posted);
			ssize_t r;

			c->main_res[posted] = FRD_SENTINEL;
			frd_op_init(&c->main_ops[posted], FRD_K_MAIN,
				    &c->main_res[posted]);
			r = c->ops->append(c->f.fab.ep, src, len, c->desc,
					   c->srv, c->in.main_ptr_addr,
					   c->in.ptr_key, c->in.q_key,
					   &c->main_res[posted],
					   &c->main_ops[posted]);
			if (r == -FI_EAGAIN)
				break;
			if (r) {
				printf("fi_rdmo_check: client %u: append %u: "
				       "%s\n", c->k, posted,
				       fi_strerror((int)-r));
				return -1;
			}
			posted++;
			if (posted - c->cpl[FRD_K_MAIN] > most)
				most = posted - (uint32_t)c->cpl[FRD_K_MAIN];
		}
		if (frd_pump(c) < 0)
			return -1;
		if (frd_now_ms() > end) {
			printf("fi_rdmo_check: client %u: appends: %lu of %u "
			       "completed in %d s\n", c->k,
			       (unsigned long)c->cpl[FRD_K_MAIN], n,
			       FRD_WAIT_S);
			return -1;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct frd_op *op = &c->main_ops[i];
		uint64_t r = c->main_res[i];

		if (op->err || op->early || r < lo || r >= hi) {
			printf("fi_rdmo_check: client %u: append %u: %s%s, "
			       "result %#lx\n", c->k, i,
			       op->err ? fi_strerror(op->err) : "completed",
			       op->early ? " before its result was written" :
			       "", (unsigned long)r);
			return -1;
		}
	}
	printf("fi_rdmo_check: client %u: %u appends of 8..%u bytes, up to "
	       "%u in flight (-W %u), in %lu ms: every one completed with its "
	       "old pointer already written ok\n", c->k, n, FRD_MAIN_MAX, most,
	       w, (unsigned long)(frd_now_ms() - t0));
	return 0;
}

/* The table of scatter |sc|, addresses in our regions at the server. */
static void frd_cli_rma_iov(const struct frd_cli *c,
			    const struct frd_scatter *sc,
			    struct fi_rma_iov *iov)
{
	for (uint32_t i = 0; i < sc->n; i++) {
		const struct frd_piece *pc = &sc->pc[i];

		iov[i] = (struct fi_rma_iov){
			.addr = (pc->region ? c->in.scat2_addr :
				 c->in.scat_addr) + pc->off,
			.len = pc->len,
			.key = pc->region ? c->in.scat2_key : c->in.scat_key,
		};
	}
}

static int frd_cli_scatters(struct frd_cli *c)
{
	struct frd_scatter plan[FRD_NSCAT];
	struct fi_rma_iov iov[FI_UET_RDMO_SCATTER_MAX];
	uint32_t pieces = 0;
	uint64_t bytes = 0;

	if (frd_scatter_plan(c->k, plan))
		return -1;
	/* 0 and 1 alone; then 2..9 posted together. */
	for (uint32_t s = 0; s < FRD_NSCAT; s++) {
		uint8_t *src = c->scat_src + (size_t)s *
			       FI_UET_RDMO_SCATTER_MAX * 1000;

		frd_fill(src, plan[s].len, frd_scat_seed(c->k, s));
		frd_cli_rma_iov(c, &plan[s], iov);
		frd_op_init(&c->scat_ops[s], FRD_K_SCAT, NULL);
		FRD_POST(c, c->ops->scatter(c->f.fab.ep, src, plan[s].len,
					    c->desc, c->srv, iov, plan[s].n,
					    &c->scat_ops[s]));
		if (s < 2 && frd_wait_op(c, &c->scat_ops[s]))
			return -1;
		pieces += plan[s].n;
		bytes += plan[s].len;
	}
	if (frd_wait_kind(c, FRD_K_SCAT, FRD_NSCAT))
		return -1;
	for (uint32_t s = 0; s < FRD_NSCAT; s++)
		if (c->scat_ops[s].err) {
			printf("fi_rdmo_check: client %u: scatter %u: %s "
			       "(prov_errno %#x)\n", c->k, s,
			       fi_strerror(c->scat_ops[s].err),
			       c->scat_ops[s].prov_errno);
			return -1;
		}
	c->scattered = true;
	if (frd_cli_state(c, 0))
		return -1;
	printf("fi_rdmo_check: client %u: %u scatters (%u pieces, %lu bytes, "
	       "two regions; one of %u pieces over several packets, 8 "
	       "pipelined) landed exactly, nothing else written ok\n", c->k,
	       FRD_NSCAT, pieces, (unsigned long)bytes,
	       FI_UET_RDMO_SCATTER_MAX);
	return 0;
}

/*
 * A batch of appends to our own queue and an fi_write, none waited for,
 * then a flush: once it alone has completed, the server must find all of
 * it in its memory.
 */
static int frd_cli_flush_round(struct frd_cli *c, uint32_t r)
{
	uint8_t *wsrc = c->write_src + (size_t)r * FRD_WRITE_LEN;
	struct frd_msg bump = { .type = FRD_BUMP, .client = c->k };

	for (uint32_t i = 0; i < FRD_BATCH; i++) {
		uint32_t seq = r * FRD_BATCH + i;
		uint8_t *src = c->aux_src + (size_t)seq * FRD_AUX_MAX;
		uint32_t len = frd_rec_fill(src, FRD_Q_AUX, c->k, seq);

		/*
		 * Client 1's round 2: the generation moves mid-batch. Once
		 * in a run: a request refused for it is sent again once,
		 * and must not meet a second move.
		 */
		if (c->k == 1 && r == 1 && i == FRD_BATCH / 2 &&
		    frd_send_all(c->fd, &bump, sizeof(bump)))
			return -1;
		c->aux_res[seq] = FRD_SENTINEL;
		frd_op_init(&c->aux_ops[seq], FRD_K_AUX, &c->aux_res[seq]);
		FRD_POST(c, c->ops->append(c->f.fab.ep, src, len, c->desc,
					   c->srv, c->in.aux_ptr_addr,
					   c->in.ptr_key, c->in.aux_key,
					   &c->aux_res[seq],
					   &c->aux_ops[seq]));
		c->aux_bytes += len;
		c->aux_recs++;
	}
	frd_fill(wsrc, FRD_WRITE_LEN, frd_write_seed(c->k, r));
	frd_op_init(&c->write_ops[r], FRD_K_WRITE, NULL);
	FRD_POST(c, fi_write(c->f.fab.ep, wsrc, FRD_WRITE_LEN, c->desc, c->srv,
			     c->in.scat_addr + FRD_SCAT_AREA +
			     (uint64_t)r * FRD_WRITE_LEN, c->in.scat_key,
			     &c->write_ops[r]));
	c->writes++;
	frd_op_init(&c->flush_ops[r], FRD_K_FLUSH, NULL);
	FRD_POST(c, c->ops->flush(c->f.fab.ep, c->srv, &c->flush_ops[r]));
	if (frd_wait_op(c, &c->flush_ops[r]))
		return -1;
	if (c->flush_ops[r].err) {
		printf("fi_rdmo_check: client %u: flush %u: %s (prov_errno "
		       "%#x)\n", c->k, r + 1, fi_strerror(c->flush_ops[r].err),
		       c->flush_ops[r].prov_errno);
		return -1;
	}
	/* Nothing else waited for: tell the server at once. */
	return frd_cli_state(c, FRD_CASE_FLUSH1 + r);
}

static int frd_cli_flushes(struct frd_cli *c)
{
	for (uint32_t r = 0; r < FRD_ROUNDS; r++) {
		if (frd_cli_flush_round(c, r))
			return -1;
		printf("fi_rdmo_check: client %u: flush round %u: %u appends "
		       "(%lu bytes in all) and a %u-byte fi_write%s, then the "
		       "flush; on its completion alone the server found all in "
		       "its memory ok\n", c->k, r + 1, FRD_BATCH,
		       (unsigned long)c->aux_bytes, FRD_WRITE_LEN,
		       c->k == 1 && r == 1 ? ", a region of the server's "
		       "closed meanwhile" : "");
	}
	if (frd_wait_kind(c, FRD_K_AUX, FRD_FLUSH_RECS) ||
	    frd_wait_kind(c, FRD_K_WRITE, FRD_ROUNDS))
		return -1;
	for (uint32_t i = 0; i < FRD_FLUSH_RECS; i++)
		if (c->aux_ops[i].err || c->aux_ops[i].early) {
			printf("fi_rdmo_check: client %u: own queue append %u: "
			       "%s\n", c->k, i, c->aux_ops[i].err ?
			       fi_strerror(c->aux_ops[i].err) :
			       "completed before its result was written");
			return -1;
		}
	for (uint32_t r = 0; r < FRD_ROUNDS; r++)
		if (c->write_ops[r].err) {
			printf("fi_rdmo_check: client %u: write %u: %s\n", c->k,
			       r + 1, fi_strerror(c->write_ops[r].err));
			return -1;
		}
	return 0;
}

static int frd_cli_results(struct frd_cli *c)
{
	uint32_t n = c->in.n_main, na = 0;
	struct frd_msg m = { .type = FRD_RESULTS, .client = c->k,
			     .n_main = n, .aux_recs = c->aux_recs,
			     .writes = c->writes, .scattered = c->scattered };
	uint64_t *pairs = malloc(2 * (FRD_AUX_IDX + 1) * sizeof(*pairs));
	int ret;

	if (!pairs)
		return -1;
	for (uint32_t i = 0; i < FRD_FLUSH_RECS; i++) {
		pairs[2 * na] = i;
		pairs[2 * na++ + 1] = c->aux_res[i];
	}
	for (uint32_t i = 0; i < c->reuse_n; i++) {
		pairs[2 * na] = FRD_SHORT_SEQ0 + i;
		pairs[2 * na++ + 1] = c->reuse_res[i];
	}
	pairs[2 * na] = FRD_FULL_SEQ;
	pairs[2 * na++ + 1] = c->full_res;
	m.n_aux = na;
	ret = frd_send_all(c->fd, &m, sizeof(m)) ||
	      frd_send_all(c->fd, c->main_res, n * sizeof(uint64_t)) ||
	      frd_send_all(c->fd, pairs, na * 2 * sizeof(uint64_t)) ?
	      -1 : frd_cli_verdict(c, "the queues at the end");
	free(pairs);
	return ret;
}

/* The write counter counts what the CQ said: successes, errors. */
static int frd_cli_counter(struct frd_cli *c)
{
	uint64_t ok = fi_cntr_read(c->f.fab.cntr[0]);
	uint64_t err = fi_cntr_readerr(c->f.fab.cntr[0]);

	if (ok != c->cpl_ok || err != c->cpl_err) {
		printf("fi_rdmo_check: client %u: the write counter says %lu "
		       "and %lu errors, the CQ %lu and %lu\n", c->k,
		       (unsigned long)ok, (unsigned long)err,
		       (unsigned long)c->cpl_ok, (unsigned long)c->cpl_err);
		return -1;
	}
	printf("fi_rdmo_check: client %u: %lu completions, %lu of them "
	       "errors, each flagged FI_RMA | FI_WRITE and counted by the "
	       "write counter ok\n", c->k,
	       (unsigned long)(c->cpl_ok + c->cpl_err),
	       (unsigned long)c->cpl_err);
	return 0;
}

int frd_client(const struct frd_opts *o)
{
	struct frd_cli c = { .o = o, .fd = -1, .k = o->id };
	int ret = -1;

	if (frd_cli_setup(&c) || frd_cli_open_ops(&c) || frd_cli_connect(&c))
		goto out;
	printf("fi_rdmo_check: client %u: provider %s, mr_mode %#x, %u "
	       "appends to the queue of %u clients\n", c.k,
	       c.f.fab.info->fabric_attr->prov_name,
	       c.f.fab.info->domain_attr->mr_mode,
	       c.in.n_main, c.in.clients);
	if (frd_cli_ready(&c) || frd_cli_appends(&c) || frd_cli_scatters(&c) ||
	    frd_cli_flushes(&c) || frd_cli_errors(&c) ||
	    (o->absent && frd_cli_reuse(&c)) || frd_cli_results(&c))
		goto out;
	/* Nothing completed twice, nothing unasked for. */
	if (frd_pump(&c) < 0 || c.stray || c.twice || c.bad_flags) {
		printf("fi_rdmo_check: client %u: %lu completions without a "
		       "context, %lu twice, %lu not FI_RMA | FI_WRITE\n", c.k,
		       (unsigned long)c.stray, (unsigned long)c.twice,
		       (unsigned long)c.bad_flags);
		goto out;
	}
	if (frd_cli_counter(&c))
		goto out;
	printf("fi_rdmo_check: client %u: all ok\n", c.k);
	ret = 0;
out:
	if (c.fd >= 0)
		close(c.fd);
	if (c.mr)
		fi_close(&c.mr->fid);
	ex_fab_close(&c.f.fab);
	free(c.buf);
	free(c.main_ops);
	free(c.main_res);
	free(c.junk_ops);
	return ret ? 1 : 0;
}

