/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg_check's receiving cases: peek, claim and discard, truncation,
 * multi-receive buffers, directed receive, cancel, selective completion.
 */
#include <string.h>

#include "test/progs/fi_msg_check.h"

/* ---- peek, claim, discard, truncation --------------------------------------------- */
/* FI_PEEK: 0 found (|e| says what), 1 not found (FI_ENOMSG), -1 failed. */
static int t_peek(struct t *t, uint64_t tag, uint64_t flags, void *ctx,
		  struct fi_cq_tagged_entry *e)
{
	struct fi_msg_tagged m = { .addr = FI_ADDR_UNSPEC, .tag = tag,
				   .context = ctx };
	int ret;

	T_RETRY(t, fi_trecvmsg(t->fab.ep, &m, FI_PEEK | flags));
	ret = t_rx_wait(t, e, NULL);
	if (ret == -FI_ENOMSG) {
		T_CHECK(t->err.op_context == ctx, "error context");
		return 1;
	}
	T_CHECK(!ret, "peek: %s", fi_strerror(-ret));
	T_CHECK(e->op_context == ctx && e->tag == tag, "peek: context %p "
		"tag %#llx", e->op_context, (unsigned long long)e->tag);
	return 0;
}

int t_case_peek(struct t *t)
{
	static const size_t sz[3] = { 100, 200000, 50 };
	const uint64_t tag[3] = { T_TAG | 0xE001, T_TAG | 0xE002,
				  T_TAG | 0xE003 };
	struct fi_context ca, cb, cc, ca2;
	struct iovec iov = { t->rbuf + (1u << 20), 300000 };
	struct fi_msg_tagged m = { .msg_iov = &iov, .iov_count = 1,
				   .addr = FI_ADDR_UNSPEC };
	struct fi_cq_tagged_entry e;
	int ret;

	if (!t->server) {
		for (int i = 0; i < 3; i++) {
			uint8_t *p = t->sbuf + (size_t)i * 262144;

			t_fill(p, sz[i], 300 + (uint64_t)i);
			T_RETRY(t, fi_tsenddata(t->fab.ep, p, sz[i], NULL,
						(uint64_t)i + 1, t->peer,
						tag[i], NULL));
			t->tx_posted++;
			t->sends_ok++;
		}
		return t_sync(t) || t_sync(t) || t_tx_drain(t) ? -1 : 0;
	}
	if (t_sync(t))
		return -1;
	t_idle(t, 100);
	T_CHECK(t_peek(t, T_TAG | 0xE999, 0, &t_ctx[0], &e) == 1,
		"peek found a message never sent");
	T_CHECK(!t_peek(t, tag[0], 0, &ca, &e) && e.len == sz[0] &&
		e.data == 1 && (e.flags & FI_TAGGED),
		"peek: len %zu data %llu flags %#llx", e.len,
		(unsigned long long)e.data, (unsigned long long)e.flags);
	/* tcp's rxm gives the data of a peeked message without the flag. */
	if (!(e.flags & FI_REMOTE_CQ_DATA)) {
		T_CHECK(strcmp(t->prov, "uet"), "peek: no FI_REMOTE_CQ_DATA");
		printf("fi_msg_check: peek SKIP: FI_REMOTE_CQ_DATA flag not "
		       "checked (%s leaves it out)\n", t->prov);
	}
	T_CHECK(!t_peek(t, tag[1], FI_CLAIM, &cb, &e) && e.len == sz[1],
		"peek and claim: len %zu", e.len);
	if (t_trecv(t, t->rbuf, 300000, FI_ADDR_UNSPEC, tag[1], &t_ctx[1]))
		return -1;
	T_CHECK(t_rx_none(t), "a receive took a claimed message");
	m.tag = tag[1];
	m.context = &cb;
	T_RETRY(t, fi_trecvmsg(t->fab.ep, &m, FI_CLAIM));
	if (t_expect(t, &cb, sz[1], tag[1], 301))
		return -1;
	T_CHECK(!fi_cancel(&t->fab.ep->fid, &t_ctx[1]), "fi_cancel");
	if (t_expect_err(t, &t_ctx[1], FI_ECANCELED))
		return -1;
	T_CHECK(!t_peek(t, tag[2], FI_DISCARD, &cc, &e), "peek and discard");
	/* The length of what was dropped, or (tcp's rxm) 0. */
	T_CHECK(e.len == sz[2] || (!e.len && strcmp(t->prov, "uet")),
		"peek and discard: len %zu", e.len);
	T_CHECK(t_peek(t, tag[2], 0, &cc, &e) == 1, "discarded, still there");
	T_CHECK(!t_peek(t, tag[0], FI_CLAIM, &ca2, &e), "claim again");
	m = (struct fi_msg_tagged){ .addr = FI_ADDR_UNSPEC, .tag = tag[0],
				    .context = &ca2 };
	T_RETRY(t, fi_trecvmsg(t->fab.ep, &m, FI_CLAIM | FI_DISCARD));
	ret = t_rx_wait(t, &e, NULL);
	T_CHECK(!ret && e.op_context == &ca2, "claimed discard: %s",
		fi_strerror(-ret));
	T_CHECK(t_peek(t, tag[0], 0, &ca, &e) == 1, "discarded, still there");
	return t_sync(t) ? -1 : 0;
}

/* FI_ETRUNC with len = bytes placed, olen = bytes not delivered. */
int t_case_truncate(struct t *t)
{
	static const struct { size_t len, room; uint64_t tag; } m[3] = {
		{ 1000, 600, T_TAG | 0xF001 },
		{ 1u << 20, 300000, T_TAG | 0xF002 },
		{ 5000, 4000, 0 },
	};
	/* tcp's rxm never ends truncated unexpected ones: not sent there. */
	bool all = !strcmp(t->prov, "uet");
	struct fi_cq_tagged_entry e;
	int i, ret;

	if (!all && t->server)
		printf("fi_msg_check: truncation SKIP: unexpected ones not "
		       "sent (%s never completes them)\n", t->prov);
	if (!t->server) {
		if (t_sync(t))
			return -1;
		for (i = 0; i < 3; i++) {
			uint8_t *p = t->sbuf + (size_t)i * (2u << 20);

			if (i && !all)
				continue;
			t_fill(p, m[i].len, 400 + (uint64_t)i);
			if (m[i].tag ? t_tsend(t, p, m[i].len, m[i].tag, NULL) :
				       t_send(t, p, m[i].len, NULL))
				return -1;
		}
		return t_sync(t) || t_tx_drain(t) || t_sync(t) ? -1 : 0;
	}
	/* The first is posted before it arrives, the others after. */
	for (i = 0; i < 3; i++) {
		uint8_t *p = t->rbuf + (size_t)i * (2u << 20);

		if (i == 1 && (t_sync(t) || t_sync(t) || (t_idle(t, 100), 0)))
			return -1;
		if (i && !all)
			continue;
		if (m[i].tag ? t_trecv(t, p, m[i].room, FI_ADDR_UNSPEC,
				       m[i].tag, &t_ctx[i]) :
			       t_recv(t, p, m[i].room, &t_ctx[i]))
			return -1;
	}
	for (int n = 0; n < (all ? 3 : 1); n++) {
		ret = t_rx_wait(t, &e, NULL);
		T_CHECK(ret == -FI_ETRUNC, "got %s, want FI_ETRUNC",
			fi_strerror(-ret));
		i = t_ctx_idx(t->err.op_context);
		T_CHECK(i >= 0 && i < 3, "error context");
		if ((t->err.len != m[i].room ||
		     t->err.olen != m[i].len - m[i].room) &&
		    strcmp(t->prov, "uet")) {
			printf("fi_msg_check: truncation SKIP: lengths of "
			       "message %d not checked (%s: len %zu olen %zu)"
			       "\n", i, t->prov, t->err.len, t->err.olen);
		} else {
			T_CHECK(t->err.len == m[i].room &&
				t->err.olen == m[i].len - m[i].room,
				"message %d: len %zu olen %zu, want %zu %zu",
				i, t->err.len, t->err.olen, m[i].room,
				m[i].len - m[i].room);
		}
		T_CHECK(!m[i].tag || t->err.tag == m[i].tag, "error tag");
		T_CHECK(t->err.len <= m[i].room &&
			!t_verify(t->rbuf + (size_t)i * (2u << 20), t->err.len,
				  400 + (uint64_t)i), "placed bytes differ");
		t->recv_errs++;
	}
	return t_sync(t) ? -1 : 0;
}

/* ---- multi-receive, directed receive, cancel, selective completion --------------- */
#define T_MR_BUF	65536
#define T_MR_LEN	4000
#define T_MR_N		20

/* Waits for the end of multi-receive buffer 1, cancelled. */
static int t_multi_cancel(struct t *t)
{
	struct fi_cq_tagged_entry e;
	int ret;

	T_CHECK(!fi_cancel(&t->fab.ep->fid, &t_ctx[1]), "fi_cancel");
	ret = t_rx_wait(t, &e, NULL);
	if (ret == -FI_ECANCELED) {
		T_CHECK(t->err.op_context == &t_ctx[1], "error context");
		return 0;
	}
	T_CHECK(!ret && e.op_context == &t_ctx[1] &&
		(e.flags & FI_MULTI_RECV) && !e.len,
		"cancelled buffer: %s", fi_strerror(-ret));
	return 0;
}

/* One message into buffer |b|: packed after the previous ones. */
static int t_multi_msg(struct t *t, const struct fi_cq_tagged_entry *e,
		       int b, int *got, bool *seen)
{
	uint8_t *base = t->rbuf + (size_t)b * T_MR_BUF;
	uint64_t k;

	T_CHECK((uint8_t *)e->buf == base + (size_t)got[b] * T_MR_LEN,
		"message %d of buffer %d at %p, want %p", got[b], b, e->buf,
		base + (size_t)got[b] * T_MR_LEN);
	T_CHECK(e->len == T_MR_LEN && (e->flags & FI_MSG), "len %zu", e->len);
	memcpy(&k, e->buf, sizeof(k));
	T_CHECK(k < T_MR_N && !seen[k], "message number %llu",
		(unsigned long long)k);
	T_CHECK(!t_verify((uint8_t *)e->buf + 8, T_MR_LEN - 8, 500 + k),
		"message %llu differs", (unsigned long long)k);
	seen[k] = true;
	got[b]++;
	t->recvs_ok++;
	return 0;
}

int t_case_multi_recv(struct t *t)
{
	struct iovec iov[2] = { { t->rbuf, T_MR_BUF },
				{ t->rbuf + T_MR_BUF, T_MR_BUF } };
	struct fi_msg m = { .iov_count = 1, .addr = FI_ADDR_UNSPEC };
	int got[2] = { 0, 0 }, rel[2] = { 0, 0 }, b, ret;
	bool seen[T_MR_N] = { false };
	struct fi_cq_tagged_entry e;

	if (!t->multi) {
		printf("fi_msg_check: multi-receive SKIP: no FI_MULTI_RECV\n");
		return 1;
	}
	if (!t->server) {
		if (t_sync(t))
			return -1;
		for (uint64_t k = 0; k < T_MR_N; k++) {
			uint8_t *p = t->sbuf + k * T_MR_LEN;

			t_fill(p + 8, T_MR_LEN - 8, 500 + k);
			memcpy(p, &k, sizeof(k));
			if (t_send(t, p, T_MR_LEN, NULL))
				return -1;
		}
		return t_tx_drain(t) || t_sync(t) || t_sync(t) ? -1 : 0;
	}
	for (b = 0; b < 2; b++) {
		m.msg_iov = &iov[b];
		m.context = &t_ctx[b];
		T_RETRY(t, fi_recvmsg(t->fab.ep, &m, FI_MULTI_RECV));
	}
	if (t_sync(t))
		return -1;
	/* 64 KiB, at least 4 KiB left: 16 messages of 4000 B, then the next
	 * buffer; the release may come with the 16th or on its own. */
	while (got[0] + got[1] < T_MR_N || !rel[0]) {
		ret = t_rx_wait(t, &e, NULL);
		T_CHECK(!ret, "receive: %s", fi_strerror(-ret));
		b = t_ctx_idx(e.op_context);
		T_CHECK(b == 0 || b == 1, "context %p", e.op_context);
		T_CHECK(!rel[b], "buffer %d used after its release", b);
		if (e.len && t_multi_msg(t, &e, b, got, seen))
			return -1;
		rel[b] += !!(e.flags & FI_MULTI_RECV);
		T_CHECK(e.len || rel[b], "empty completion, not a release");
	}
	T_CHECK(got[0] == 16 && got[1] == 4 && !rel[1],
		"buffers took %d and %d messages, released %d %d", got[0],
		got[1], rel[0], rel[1]);
	if (t_sync(t) || t_multi_cancel(t))
		return -1;
	return t_sync(t) ? -1 : 0;
}

int t_case_directed(struct t *t)
{
	const uint64_t tag = T_TAG | 0x7001;
	fi_addr_t other;

	if (!t->directed) {
		printf("fi_msg_check: directed receive SKIP: no "
		       "FI_DIRECTED_RECV\n");
		return 1;
	}
	if (!t->server) {
		t_fill(t->sbuf, 300, 600);
		return t_sync(t) || t_tsend(t, t->sbuf, 300, tag, NULL) ||
		       t_tx_drain(t) || t_sync(t) ? -1 : 0;
	}
	/* Another endpoint on the client's host: service 77. */
	T_CHECK(fi_av_insertsvc(t->fab.av, t->peer_ip, "77", &other, 0, NULL) ==
		1, "fi_av_insertsvc %s 77", t->peer_ip);
	if (t_trecv(t, t->rbuf, 4096, other, tag, &t_ctx[0]) || t_sync(t))
		return -1;
	t_idle(t, 100);
	T_CHECK(t_rx_none(t), "a receive for another source took it");
	if (t_trecv(t, t->rbuf + 8192, 4096, t->peer, tag, &t_ctx[1]) ||
	    t_expect(t, &t_ctx[1], 300, tag, 600))
		return -1;
	T_CHECK(!fi_cancel(&t->fab.ep->fid, &t_ctx[0]), "fi_cancel");
	if (t_expect_err(t, &t_ctx[0], FI_ECANCELED))
		return -1;
	return t_sync(t) ? -1 : 0;
}

int t_case_cancel(struct t *t)
{
	const uint64_t tag = T_TAG | 0x8001;
	struct fi_cq_tagged_entry e;
	int ret, seen = 0, i;

	if (!t->server) {
		t_fill(t->sbuf, 1000, 800);
		t_fill(t->sbuf + 4096, 1000, 801);
		return t_sync(t) || t_sync(t) ||
		       t_send(t, t->sbuf, 1000, NULL) ||
		       t_tsend(t, t->sbuf + 4096, 1000, tag, NULL) ||
		       t_tx_drain(t) || t_sync(t) ? -1 : 0;
	}
	if (t_recv(t, t->rbuf, 1000, &t_ctx[0]) ||
	    t_trecv(t, t->rbuf + 4096, 1000, FI_ADDR_UNSPEC, tag, &t_ctx[1]))
		return -1;
	T_CHECK(!fi_cancel(&t->fab.ep->fid, &t_ctx[0]) &&
		!fi_cancel(&t->fab.ep->fid, &t_ctx[1]), "fi_cancel");
	for (int n = 0; n < 2; n++) {
		ret = t_rx_wait(t, &e, NULL);
		i = t_ctx_idx(t->err.op_context);
		T_CHECK(ret == -FI_ECANCELED && (i == 0 || i == 1) &&
			!(seen & (1 << i)), "cancel: %s", fi_strerror(-ret));
		seen |= 1 << i;
	}
	ret = (int)fi_cancel(&t->fab.ep->fid, &t_ctx[5]);
	T_CHECK(!ret || ret == -FI_ENOENT, "fi_cancel of nothing: %d", ret);
	/* The cancelled receives took nothing: new ones get the messages. */
	if (t_sync(t) || t_recv(t, t->rbuf, 1000, &t_ctx[2]) ||
	    t_trecv(t, t->rbuf + 4096, 1000, FI_ADDR_UNSPEC, tag, &t_ctx[3]) ||
	    t_sync(t))
		return -1;
	for (int n = 0; n < 2; n++) {
		fi_addr_t src;

		ret = t_rx_wait(t, &e, &src);
		i = t_ctx_idx(e.op_context);
		T_CHECK(!ret && (i == 2 || i == 3), "receive: %s",
			fi_strerror(-ret));
		if (t_check_msg(t, &e, src, 1000, i == 3 ? tag : 0,
				(uint64_t)(798 + i)))
			return -1;
	}
	return t_sync(t) ? -1 : 0;
}

/* FI_SELECTIVE_COMPLETION: sends without FI_COMPLETION stay silent. */
int t_case_selective(struct t *t)
{
	struct fi_msg_tagged m = { .iov_count = 1, .addr = 0 };
	struct iovec iov;

	if (!t->server) {
		m.addr = t->peer;
		m.msg_iov = &iov;
		for (int k = 0; k < 4; k++) {
			iov = (struct iovec){ t->sbuf + (size_t)k * 16384,
					      1000 + (size_t)k };
			t_fill(iov.iov_base, iov.iov_len, 900 + (uint64_t)k);
			m.tag = T_TAG | (0x6001 + (uint64_t)k);
			if (t_tsend_msg(t, &m, 0, k != 3))
				return -1;
		}
		if (t_tx_drain(t) || t_sync(t))
			return -1;
		t_idle(t, 50);
		T_CHECK(t->tx_done == t->tx_posted,
			"silent sends completed: %llu completions for %llu",
			(unsigned long long)t->tx_done,
			(unsigned long long)t->tx_posted);
		return 0;
	}
	for (int k = 0; k < 4; k++)
		if (t_trecv(t, t->rbuf + (size_t)k * 16384, 16384,
			    FI_ADDR_UNSPEC, T_TAG | (0x6001 + (uint64_t)k),
			    &t_ctx[k]))
			return -1;
	for (int k = 0; k < 4; k++) {
		struct fi_cq_tagged_entry e;
		fi_addr_t src;
		int ret = t_rx_wait(t, &e, &src), i = t_ctx_idx(e.op_context);

		T_CHECK(!ret && i >= 0 && i < 4, "receive: %s",
			fi_strerror(-ret));
		if (t_check_msg(t, &e, src, 1000 + (size_t)i,
				T_TAG | (0x6001 + (uint64_t)i),
				900 + (uint64_t)i))
			return -1;
	}
	return t_sync(t) ? -1 : 0;
}
