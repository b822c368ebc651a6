/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg_check's helpers: patterns, progress, sends and receives retried
 * on -FI_EAGAIN, and the waits that check what a receive delivered.
 */
#include <string.h>
#include <time.h>

#include "test/progs/fi_msg_check.h"

uint64_t t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void t_fill(void *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		if (!(i & 7))
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		p[i] = (uint8_t)(x >> (8 * (i & 7)));
	}
}

int t_verify(const void *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		if (!(i & 7))
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		if (p[i] != (uint8_t)(x >> (8 * (i & 7))))
			return -1;
	}
	return 0;
}

void t_progress(struct t *t)
{
	struct fi_cq_tagged_entry e[16];
	struct fi_cq_err_entry err = { 0 };
	ssize_t n = fi_cq_read(t->fab.cq, e, 16);

	if (n > 0) {
		t->tx_done += (uint64_t)n;
	} else if (n == -FI_EAVAIL && fi_cq_readerr(t->fab.cq, &err, 0) == 1) {
		printf("fi_msg_check: send error: %s (prov_errno %d)\n",
		       fi_strerror(err.err), err.prov_errno);
		t->tx_done++;
		t->tx_errs++;
	}
}

void t_idle(struct t *t, int ms)
{
	uint64_t end = t_now_ms() + (uint64_t)ms;

	while (t_now_ms() < end)
		t_progress(t);
}

int t_tsend_msg(struct t *t, const struct fi_msg_tagged *m, uint64_t flags,
		bool silent)
{
	ssize_t ret;

	if (!silent)
		flags |= FI_COMPLETION;
	while ((ret = fi_tsendmsg(t->fab.ep, m, flags)) == -FI_EAGAIN)
		t_progress(t);
	T_CHECK(!ret, "fi_tsendmsg: %s", fi_strerror((int)-ret));
	t->tx_posted += !silent;
	t->sends_ok++;
	return 0;
}

int t_tsend(struct t *t, const void *buf, size_t len, uint64_t tag, void *ctx)
{
	ssize_t ret;

	while ((ret = fi_tsend(t->fab.ep, buf, len, NULL, t->peer, tag, ctx)) ==
	       -FI_EAGAIN)
		t_progress(t);
	T_CHECK(!ret, "fi_tsend %zu bytes: %s", len, fi_strerror((int)-ret));
	t->tx_posted++;
	t->sends_ok++;
	return 0;
}

int t_send(struct t *t, const void *buf, size_t len, void *ctx)
{
	ssize_t ret;

	while ((ret = fi_send(t->fab.ep, buf, len, NULL, t->peer, ctx)) ==
	       -FI_EAGAIN)
		t_progress(t);
	T_CHECK(!ret, "fi_send %zu bytes: %s", len, fi_strerror((int)-ret));
	t->tx_posted++;
	t->sends_ok++;
	return 0;
}

int t_tx_drain(struct t *t)
{
	uint64_t end = t_now_ms() + 30000;

	while (t->tx_done < t->tx_posted && t_now_ms() < end)
		t_progress(t);
	T_CHECK(t->tx_done == t->tx_posted, "%llu of %llu sends completed",
		(unsigned long long)t->tx_done,
		(unsigned long long)t->tx_posted);
	T_CHECK(!t->tx_errs, "%llu send errors",
		(unsigned long long)t->tx_errs);
	return 0;
}

int t_rx_wait(struct t *t, struct fi_cq_tagged_entry *e, fi_addr_t *src)
{
	uint64_t end = t_now_ms() + 20000;
	fi_addr_t dummy;
	ssize_t n;

	for (unsigned int i = 0;; i++) {
		n = fi_cq_readfrom(t->fab.rx_cq, e, 1, src ? src : &dummy);
		if (n == 1)
			return 0;
		if (n == -FI_EAVAIL) {
			memset(&t->err, 0, sizeof(t->err));
			if (fi_cq_readerr(t->fab.rx_cq, &t->err, 0) == 1)
				return -t->err.err;
		}
		t_progress(t);
		if (!(i % 1024) && t_now_ms() > end)
			return -FI_ETIMEDOUT;
	}
}

int t_rx_none(struct t *t)
{
	struct fi_cq_tagged_entry e;
	ssize_t n;

	t_idle(t, 50);
	n = fi_cq_read(t->fab.rx_cq, &e, 1);
	if (n == 1)
		printf("fi_msg_check: unexpected completion, tag %#llx len "
		       "%zu\n", (unsigned long long)e.tag, e.len);
	return n == -FI_EAGAIN;
}

struct fi_context2 t_ctx[T_NCTX];

int t_ctx_idx(const void *ctx)
{
	const struct fi_context2 *c = ctx;

	return c >= t_ctx && c < t_ctx + T_NCTX ? (int)(c - t_ctx) : -1;
}

int t_trecv(struct t *t, void *buf, size_t len, fi_addr_t src, uint64_t tag,
	    void *ctx)
{
	ssize_t ret;

	while ((ret = fi_trecv(t->fab.ep, buf, len, NULL, src, tag, 0, ctx)) ==
	       -FI_EAGAIN)
		t_progress(t);
	T_CHECK(!ret, "fi_trecv: %s", fi_strerror((int)-ret));
	return 0;
}

int t_recv(struct t *t, void *buf, size_t len, void *ctx)
{
	ssize_t ret;

	while ((ret = fi_recv(t->fab.ep, buf, len, NULL, FI_ADDR_UNSPEC,
			      ctx)) == -FI_EAGAIN)
		t_progress(t);
	T_CHECK(!ret, "fi_recv: %s", fi_strerror((int)-ret));
	return 0;
}

int t_check_msg(struct t *t, const struct fi_cq_tagged_entry *e,
		fi_addr_t src, size_t len, uint64_t tag, uint64_t seed)
{
	bool tagged = tag != 0;

	T_CHECK(e->len == len, "length %zu, sent %zu", e->len, len);
	T_CHECK(e->flags & FI_RECV, "flags %#llx",
		(unsigned long long)e->flags);
	T_CHECK(!!(e->flags & FI_TAGGED) == tagged &&
		!!(e->flags & FI_MSG) == !tagged, "flags %#llx",
		(unsigned long long)e->flags);
	T_CHECK(!tagged || e->tag == tag, "tag %#llx, sent %#llx",
		(unsigned long long)e->tag, (unsigned long long)tag);
	T_CHECK(!t->source || src == t->peer, "source %#llx",
		(unsigned long long)src);
	T_CHECK(!len || seed == T_NOCHECK ||
		(e->buf && !t_verify(e->buf, len, seed)),
		"%zu bytes differ (tag %#llx)", len,
		(unsigned long long)tag);
	t->recvs_ok++;
	return 0;
}

int t_expect(struct t *t, void *ctx, size_t len, uint64_t tag, uint64_t seed)
{
	struct fi_cq_tagged_entry e;
	fi_addr_t src;
	int ret = t_rx_wait(t, &e, &src);

	T_CHECK(!ret, "receive of %zu: %s", len, fi_strerror(-ret));
	T_CHECK(e.op_context == ctx, "context %p, want %p", e.op_context, ctx);
	return t_check_msg(t, &e, src, len, tag, seed);
}

int t_expect_err(struct t *t, void *ctx, int err)
{
	struct fi_cq_tagged_entry e;
	int ret = t_rx_wait(t, &e, NULL);

	T_CHECK(ret == -err, "got %s, want %s", fi_strerror(-ret),
		fi_strerror(err));
	T_CHECK(t->err.op_context == ctx, "error context %p, want %p",
		t->err.op_context, ctx);
	return 0;
}
