/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_soak's client: rma runs (writes checked by the server, read back)
 * and tag runs of verified data, and with -K the survivor's view of a
 * server killed mid-transfer.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_endpoint.h>

#include "test/progs/fi_soak.h"

/* ---- the client --------------------------------------------------------- */
static double sk_mbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e3 / (double)ns : 0;
}

/* -E: the op of the error completion just seen, posted again; 0 or -1. */
static int sk_repost(struct sk *s)
{
	const struct sk_op *op = s->err_op;

	if (!s->nretry) {
		snprintf(s->first_err, sizeof(s->first_err), "%s (prov_errno "
			 "%d: %s) after %.0f ms", fi_strerror(s->err.err),
			 s->err.prov_errno, fi_cq_strerror(s->fab.cq,
			 s->err.prov_errno, s->err.err_data, NULL, 0),
			 (double)(sk_now_ns() - op->t_post) / 1e6);
		printf("fi_soak: first error: %s\n", s->first_err);
	}
	if (++s->nretry > SK_RETRY_MAX) {
		fprintf(stderr, "fi_soak: %d errors: giving up\n", SK_RETRY_MAX);
		return -1;
	}
	return sk_post(s, op->kind, op->k, op->slot, op->len);
}

/* Waits until at most |max| ops are in flight; 1 on an error completion
 * (-E: the op is posted again instead). */
int sk_drain_to(struct sk *s, int max)
{
	while (s->inflight > max) {
		int ret = sk_wait_one(s);

		if (ret == 1 && s->o.retry && s->err_op) {
			if (sk_repost(s))
				return -1;
			continue;
		}
		if (ret)
			return ret;
	}
	return 0;
}

int sk_cmd(struct sk *s, const struct sk_cmd *c, struct sk_reply *r)
{
	if (sk_send(s, c, sizeof(*c)) || sk_recv(s, r, sizeof(*r))) {
		fprintf(stderr, "fi_soak: side channel lost\n");
		return -1;
	}
	return 0;
}

/* Survivor's end (-K): the first error completion came; every op still in
 * flight must complete and a new one must fail. */
static int sk_survive(struct sk *s, enum sk_kind kind, uint64_t posted)
{
	uint64_t t_err = sk_now_ns(), drained = 0, errs = 0;
	struct fi_cq_err_entry first = s->err;
	int ret;

	printf("fi_soak: first error at %llu ms (wall clock) after %llu "
	       "posted: %s\n", sk_wall_ms(), (unsigned long long)posted,
	       fi_strerror(first.err));
	sk_err_print(s, "first error");
	while (s->inflight) {
		ret = sk_wait_one(s);
		if (ret < 0)
			return -1;
		drained++;
		errs += (uint64_t)ret;
	}
	if (sk_post(s, kind, posted, 0, s->o.size))
		return -1;
	ret = sk_wait_one(s);
	if (ret != 1) {
		fprintf(stderr, "fi_soak: a new operation did not fail (%d)\n",
			ret);
		return -1;
	}
	printf("fi_soak: survivor: %llu in flight completed (%llu errors), "
	       "a new one failed (%s) within %.0f ms; longest operation "
	       "%.1f ms\n", (unsigned long long)drained,
	       (unsigned long long)errs, fi_strerror(s->err.err),
	       (double)(sk_now_ns() - t_err) / 1e6,
	       (double)s->lat_max_ns / 1e6);
	return 0;
}

static int sk_read_back(struct sk *s, uint64_t count)
{
	int ret;

	memset(s->buf + SK_REGION, 0, count * s->o.size);
	for (uint64_t k = 0; k < count; k++) {
		ret = sk_drain_to(s, s->o.window - 1);
		if (ret == 1)
			sk_err_print(s, "read");
		if (ret || sk_post(s, SK_READ, k, (int)k, s->o.size))
			return -1;
	}
	ret = sk_drain_to(s, 0);
	if (ret == 1)
		sk_err_print(s, "read");
	if (ret)
		return -1;
	if (memcmp(s->buf, s->buf + SK_REGION, count * s->o.size)) {
		fprintf(stderr, "fi_soak: rma: read back differs\n");
		return -1;
	}
	return 0;
}

/* Mix keeps the top of the region for atomics and appends (fi_soak.h). */
static uint64_t sk_rma_slots(const struct sk *s)
{
	return (s->o.mode == SK_MIX ? SK_MIX_OFF : SK_REGION) / s->o.size;
}

int sk_client_rma(struct sk *s, uint64_t k0, uint64_t total)
{
	uint64_t slots = sk_rma_slots(s), t0 = sk_now_ns(), k = k0, ns;
	/*
	 * "running" says a fault may come now. -E: early in the second round,
	 * so that the whole round and its read-back are ahead (a link that
	 * goes down between rounds would stall the side channel's TCP, not
	 * the operations under test).
	 */
	uint64_t running = (s->o.retry && total > 2 * slots ? slots : 16) +
			   (uint64_t)s->o.window;
	struct sk_reply r;
	int ret;

	total += k0;
	while (s->o.keep_going || k < total) {
		uint64_t first = k, round = s->o.keep_going ? slots :
			total - k < slots ? total - k : slots;

		for (uint64_t j = 0; j < round; j++, k++) {
			ret = sk_drain_to(s, s->o.window - 1);
			if (ret == 1 && s->o.keep_going)
				return sk_survive(s, s->o.reads ? SK_READ :
						  SK_WRITE, k);
			if (ret == 1)
				sk_err_print(s, "write");
			if (ret)
				return -1;
			if (!s->o.reads)	/* -K -r: reads only */
				sk_pattern(s->buf + j * s->o.size, s->o.size,
					   s->seed + k);
			if (sk_post(s, s->o.reads ? SK_READ : SK_WRITE, k,
				    (int)j, s->o.size))
				return -1;
			if (k == running && !s->quiet)
				printf("fi_soak: running\n");
		}
		ret = sk_drain_to(s, 0);
		if (ret == 1 && s->o.keep_going)
			return sk_survive(s, s->o.reads ? SK_READ : SK_WRITE, k);
		if (ret == 1)
			sk_err_print(s, "write");
		if (ret)
			return -1;
		if (s->o.keep_going)
			continue;
		struct sk_cmd c = { .op = SK_CMD_CHECK, .first = first,
				    .count = round, .size = s->o.size,
				    .seed = s->seed };
		if (sk_cmd(s, &c, &r))
			return -1;
		if (!r.ok) {
			fprintf(stderr, "fi_soak: rma: the server found %llu "
				"of writes %llu..%llu wrong\n",
				(unsigned long long)r.bad,
				(unsigned long long)first,
				(unsigned long long)(k - 1));
			return -1;
		}
		if (!s->o.no_read_back && sk_read_back(s, round))
			return -1;
	}
	ns = sk_now_ns() - t0;
	total -= k0;
	if (s->quiet)
		return 0;
	printf("fi_soak: rma: %llu bytes in %llu writes of %llu B (%d in "
	       "flight), checked by the target%s: %.2f s, %.1f MB/s, max "
	       "latency %.1f ms\n", (unsigned long long)(total * s->o.size),
	       (unsigned long long)total, (unsigned long long)s->o.size,
	       s->o.window, s->o.no_read_back ? "" : " and read back",
	       (double)ns / 1e9, sk_mbps(total * s->o.size, ns),
	       (double)s->lat_max_ns / 1e6);
	return 0;
}

int sk_client_tag(struct sk *s, uint64_t k0, uint64_t total)
{
	uint64_t slots = SK_REGION / s->o.size, bytes = 0, k = k0, t0, ns;
	struct sk_cmd c = { .op = SK_CMD_TAG, .size = s->o.size,
			    .seed = s->seed, .first = k0,
			    .count = s->o.keep_going ? UINT64_MAX : total };
	struct sk_reply r;
	int ret;

	/* The server answers once its receives are posted. */
	if (sk_cmd(s, &c, &r))
		return -1;
	t0 = sk_now_ns();
	total += k0;
	while (s->o.keep_going || k < total) {
		uint64_t round = s->o.keep_going ? slots :
			total - k < slots ? total - k : slots;

		for (uint64_t j = 0; j < round; j++, k++) {
			uint64_t len = sk_msg_len(k, s->o.size);

			ret = sk_drain_to(s, s->o.window - 1);
			if (ret == 1 && s->o.keep_going)
				return sk_survive(s, SK_TSEND, k);
			if (ret == 1)
				sk_err_print(s, "tsend");
			if (ret)
				return -1;
			sk_pattern(s->buf + j * s->o.size, len, s->seed + k);
			if (sk_post(s, SK_TSEND, k, (int)j, len))
				return -1;
			bytes += len;
			if (k == 16 + (uint64_t)s->o.window && !s->quiet)
				printf("fi_soak: running\n");
		}
		ret = sk_drain_to(s, 0);
		if (ret == 1 && s->o.keep_going)
			return sk_survive(s, SK_TSEND, k);
		if (ret == 1)
			sk_err_print(s, "tsend");
		if (ret)
			return -1;
	}
	if (sk_recv(s, &r, sizeof(r))) {
		fprintf(stderr, "fi_soak: side channel lost\n");
		return -1;
	}
	ns = sk_now_ns() - t0;
	total -= k0;
	if (!r.ok || r.done != total) {
		fprintf(stderr, "fi_soak: tag: the server received %llu of "
			"%llu, %llu wrong\n", (unsigned long long)r.done,
			(unsigned long long)total, (unsigned long long)r.bad);
		return -1;
	}
	/* Each tag once: more only as resends of sends that failed. */
	if (r.extra > s->nretry) {
		fprintf(stderr, "fi_soak: tag: %llu messages arrived twice "
			"(%llu sends failed and were sent again)\n",
			(unsigned long long)r.extra,
			(unsigned long long)s->nretry);
		return -1;
	}
	s->tag_bytes += bytes;
	if (s->quiet)
		return 0;
	printf("fi_soak: tag: %llu bytes in %llu messages of 0 to %llu B (%d "
	       "in flight), tag, length and bytes checked by the receiver: "
	       "%.2f s, %.1f MB/s, max latency %.1f ms, %llu extra\n",
	       (unsigned long long)bytes, (unsigned long long)total,
	       (unsigned long long)s->o.size, s->o.window, (double)ns / 1e9,
	       sk_mbps(bytes, ns), (double)s->lat_max_ns / 1e6,
	       (unsigned long long)r.extra);
	return 0;
}

int sk_client(struct sk *s)
{
	struct sk_hello mine;
	struct sk_cmd done = { .op = SK_CMD_DONE };
	uint64_t total;
	int ret;

	if (sk_open(s) || sk_hello_make(s, &mine, s->o.mode))
		return -1;
	s->fd = ex_tcp_connect(s->o.ctrl_addr ? s->o.ctrl_addr : s->o.addr,
			       s->o.port);
	if (s->fd < 0 || sk_send(s, &mine, sizeof(mine)) ||
	    sk_recv(s, &s->srv, sizeof(s->srv)) || sk_av_insert(s, &s->srv)) {
		fprintf(stderr, "fi_soak: no server\n");
		return -1;
	}
	printf("fi_soak: client: pid %d, server pid %llu, session %u\n",
	       getpid(), (unsigned long long)s->srv.pid, s->srv.session);
	total = s->o.mib * SK_MIB / s->o.size;
	ret = s->o.mode == SK_MIX ? sk_client_mix(s) :
	      s->o.mode == SK_RMA ? sk_client_rma(s, 0, total) :
	      sk_client_tag(s, 0, total);
	if (s->o.retry)
		printf("fi_soak: errors: %llu, each posted again%s%s\n",
		       (unsigned long long)s->nretry, s->nretry ? "; first: " :
		       "", s->first_err);
	if (!ret && !s->o.keep_going)
		ret = sk_send(s, &done, sizeof(done));
	return ret;
}

