/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg_check's sending cases: tagged ping-pong, iovecs, inject and
 * remote CQ data, unexpected messages, send order. The client sends, the
 * server receives and checks (lengths, tags, remote CQ data, the source
 * with FI_SOURCE, every byte). Sizes span eager, multi-packet and, on
 * uet, rendezvous (over 64 KiB).
 */
#include <string.h>

#include "test/progs/fi_msg_check.h"

/* ---- ping-pong and shapes ---------------------------------------------------------- */
int t_case_pingpong(struct t *t)
{
	static const size_t sizes[] = { 0, 1, 8, 64, 65, 1000, 4096, 8192,
					8193, 65536, 65537, 1u << 20, 16u << 20 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t s = sizes[k], room = s + (s < T_BUF_LEN ? 1 : 0);
		int iters = s <= 65536 ? 4 : s <= (1u << 20) ? 2 : 1;
		uint64_t ping = T_TAG | 1ull << 32 | s;
		uint64_t pong = T_TAG | 2ull << 32 | s;

		for (int i = 0; i < iters; i++) {
			uint64_t seed = s * 16 + (uint64_t)i;

			if (t->server) {
				if (t_trecv(t, t->rbuf, room, FI_ADDR_UNSPEC,
					    ping, &t_ctx[0]) ||
				    t_expect(t, &t_ctx[0], s, ping, seed))
					return -1;
				t_fill(t->sbuf, s, seed + 1);
				if (t_tsend(t, t->sbuf, s, pong, NULL) ||
				    t_tx_drain(t))
					return -1;
				continue;
			}
			if (t_trecv(t, t->rbuf, room, FI_ADDR_UNSPEC, pong,
				    &t_ctx[0]))
				return -1;
			t_fill(t->sbuf, s, seed);
			if (t_tsend(t, t->sbuf, s, ping, NULL) ||
			    t_expect(t, &t_ctx[0], s, pong, seed + 1) ||
			    t_tx_drain(t))
				return -1;
		}
	}
	return 0;
}

/* Copies |len| bytes of |src| into the pieces of |iov| (or back). */
static void t_scatter(const struct iovec *iov, int cnt, uint8_t *flat,
		      bool gather)
{
	for (int i = 0; i < cnt; i++) {
		if (gather)
			memcpy(flat, iov[i].iov_base, iov[i].iov_len);
		else
			memcpy(iov[i].iov_base, flat, iov[i].iov_len);
		flat += iov[i].iov_len;
	}
}

/* Scatter-gather: the message is the iovecs in order, apart in memory. */
int t_case_iov(struct t *t)
{
	const size_t M = 1u << 20, two = 2 * M;
	uint8_t *s = t->sbuf, *r = t->rbuf, *flat = t->sbuf + 12 * M;
	struct iovec tx[4] = { { s, 100 }, { s + 200, 5000 },
			       { s + 8000, 70000 } };
	struct iovec rx[3] = { { r, 40000 }, { r + 50000, 40000 } };
	struct fi_msg_tagged m = { .msg_iov = tx, .iov_count = 3,
				   .addr = t->peer, .tag = T_TAG | 0x9001 };
	struct iovec *p;

	if (t->server) {
		flat = t->rbuf + 12 * M;
		T_RETRY(t, fi_trecvv(t->fab.ep, rx, NULL, 2, FI_ADDR_UNSPEC,
				     T_TAG | 0x9001, 0, &t_ctx[0]));
		rx[0] = (struct iovec){ r + M, M };
		rx[1] = (struct iovec){ r + 3 * M, M / 2 };
		rx[2] = (struct iovec){ r + 5 * M, M };
		T_RETRY(t, fi_recvv(t->fab.ep, rx, NULL, 3, FI_ADDR_UNSPEC,
				    &t_ctx[1]));
		/* Checked as one flat copy of what the pieces hold. */
		if (t_expect(t, &t_ctx[0], 75100, T_TAG | 0x9001, T_NOCHECK))
			return -1;
		p = (struct iovec[]){ { r, 40000 }, { r + 50000, 35100 } };
		t_scatter(p, 2, flat, true);
		T_CHECK(!t_verify(flat, 75100, 7), "tagged iovecs differ");
		if (t_expect(t, &t_ctx[1], two, 0, T_NOCHECK))
			return -1;
		rx[2].iov_len = M / 2;
		t_scatter(rx, 3, flat, true);
		T_CHECK(!t_verify(flat, two, 8), "iovecs differ");
		return 0;
	}
	t_fill(flat, 75100, 7);
	t_scatter(tx, 3, flat, false);
	if (t_tsend_msg(t, &m, 0, false))
		return -1;
	for (int i = 0; i < 4; i++)
		tx[i] = (struct iovec){ s + (size_t)(i + 1) * 2 * M, two / 4 };
	t_fill(flat, two, 8);
	t_scatter(tx, 4, flat, false);
	T_RETRY(t, fi_sendv(t->fab.ep, tx, NULL, 4, t->peer, NULL));
	t->tx_posted++;
	t->sends_ok++;
	return t_tx_drain(t);
}

/* fi_tinject*, fi_inject*, fi_*senddata: copies and remote CQ data. */
int t_case_inject_data(struct t *t)
{
	static const struct { size_t len; uint64_t tag, data; } m[] = {
		{ 64, T_TAG | 0xB001, 0 }, { 32, T_TAG | 0xB002, 0xdead0001 },
		{ 5000, T_TAG | 0xB003, 0xdead0002 }, { 16, 0, 0xdead0003 },
		{ 100000, 0, 0xdead0004 },
	};
	struct fi_cq_tagged_entry e;
	uint8_t *s = t->sbuf;
	fi_addr_t src;
	int i, ret;

	if (!t->server) {
		t_fill(s, 64, 20);
		T_RETRY(t, fi_tinject(t->fab.ep, s, 64, t->peer, m[0].tag));
		memset(s, 0, 64);	/* the provider kept a copy */
		t_fill(s + 64, 32, 21);
		T_RETRY(t, fi_tinjectdata(t->fab.ep, s + 64, 32, m[1].data,
					  t->peer, m[1].tag));
		memset(s + 64, 0, 32);
		t_fill(s + 4096, 5000, 22);
		T_RETRY(t, fi_tsenddata(t->fab.ep, s + 4096, 5000, NULL,
					m[2].data, t->peer, m[2].tag, NULL));
		t_fill(s + 16384, 16, 23);
		T_RETRY(t, fi_injectdata(t->fab.ep, s + 16384, 16, m[3].data,
					 t->peer));
		memset(s + 16384, 0, 16);
		t_fill(s + (1u << 20), 100000, 24);
		T_RETRY(t, fi_senddata(t->fab.ep, s + (1u << 20), 100000, NULL,
				       m[4].data, t->peer, NULL));
		t->tx_posted += 2;
		t->sends_ok += 5;
		return t_tx_drain(t);
	}
	for (i = 0; i < 3; i++)
		if (t_trecv(t, t->rbuf + (size_t)i * 8192, 8192, FI_ADDR_UNSPEC,
			    m[i].tag, &t_ctx[i]))
			return -1;
	for (i = 3; i < 5; i++)
		if (t_recv(t, t->rbuf + (size_t)i * 131072, 131072, &t_ctx[i]))
			return -1;
	for (int n = 0; n < 5; n++) {
		ret = t_rx_wait(t, &e, &src);
		T_CHECK(!ret, "receive: %s", fi_strerror(-ret));
		/* The untagged two may match either receive: by their data. */
		i = e.tag ? t_ctx_idx(e.op_context) :
		    e.data == m[3].data ? 3 : 4;
		T_CHECK(i >= 0 && i < 5, "context %p", e.op_context);
		T_CHECK(!!(e.flags & FI_REMOTE_CQ_DATA) == !!m[i].data &&
			(!m[i].data || e.data == m[i].data),
			"message %d: flags %#llx data %#llx", i,
			(unsigned long long)e.flags,
			(unsigned long long)e.data);
		if (t_check_msg(t, &e, src, m[i].len, m[i].tag,
				20 + (uint64_t)i))
			return -1;
	}
	return 0;
}

/* ---- matching ------------------------------------------------------------------------ */
#define T_UX_N	10

/* Sent before any receive is posted; peeked, then received backwards. */
int t_case_unexpected(struct t *t)
{
	static const size_t sz[T_UX_N] = { 0, 8, 64, 1000, 8192, 8193, 9000,
					   65536, 1u << 20, 4u << 20 };
	struct fi_msg_tagged pm = { .addr = FI_ADDR_UNSPEC };
	struct fi_cq_tagged_entry e;
	size_t off[T_UX_N];
	fi_addr_t src;
	int i, ret;

	off[0] = 0;
	for (i = 1; i < T_UX_N; i++)
		off[i] = off[i - 1] + sz[i - 1];
	if (!t->server) {
		for (i = 0; i < T_UX_N; i++) {
			t_fill(t->sbuf + off[i], sz[i], 100 + (uint64_t)i);
			T_RETRY(t, fi_tsenddata(t->fab.ep, t->sbuf + off[i],
						sz[i], NULL, (uint64_t)i,
						t->peer, T_TAG | (0xC000 + i),
						NULL));
			t->tx_posted++;
			t->sends_ok++;
		}
		return t_sync(t) || t_sync(t) || t_tx_drain(t) ? -1 : 0;
	}
	if (t_sync(t))
		return -1;
	t_idle(t, 200);		/* everything has arrived */
	for (i = 0; i < T_UX_N; i++) {
		pm.tag = T_TAG | (0xC000 + (uint64_t)i);
		pm.context = &t_ctx[i];
		T_RETRY(t, fi_trecvmsg(t->fab.ep, &pm, FI_PEEK));
		ret = t_rx_wait(t, &e, NULL);
		T_CHECK(!ret && e.len == sz[i] && e.tag == pm.tag &&
			e.op_context == &t_ctx[i],
			"peek %d: %s, len %zu", i, fi_strerror(-ret), e.len);
	}
	for (i = T_UX_N - 1; i >= 0; i--)
		if (t_trecv(t, t->rbuf + off[i], sz[i], FI_ADDR_UNSPEC,
			    T_TAG | (0xC000 + (uint64_t)i), &t_ctx[i]))
			return -1;
	if (t_sync(t))
		return -1;
	for (int n = 0; n < T_UX_N; n++) {
		ret = t_rx_wait(t, &e, &src);
		T_CHECK(!ret, "receive: %s", fi_strerror(-ret));
		i = t_ctx_idx(e.op_context);
		T_CHECK(i >= 0 && i < T_UX_N && e.data == (uint64_t)i &&
			(e.flags & FI_REMOTE_CQ_DATA), "context %d data %llu",
			i, (unsigned long long)e.data);
		if (t_check_msg(t, &e, src, sz[i], T_TAG | (0xC000 + i),
				100 + (uint64_t)i))
			return -1;
	}
	return 0;
}

#define T_FLOOD_N	2000
#define T_FLOOD_LEN	64
#define T_FLOOD_BOUND	1024	/* uet's unexpected messages */

/*
 * More unexpected messages than uet buffers (1024): those past the bound
 * wait at the sender (flow control), none is lost or refused. Sent with
 * fi_tinjectdata (|inject|), nobody waits for an answer: between
 * endpoints of one host the target holds those past the bound
 * (UET_LCH_REC_F_NO_ANSWER), in order. Before it takes them, the target
 * sends one message back and waits for its completion: the answer that
 * ends it comes behind them, and must not wait for them.
 */
static int t_flood(struct t *t, bool inject, uint64_t tag)
{
	static bool seen[T_FLOOD_N];
	struct fi_cq_tagged_entry e;
	uint8_t *p;
	int k, ret;

	if (!t->server) {
		uint64_t past_bound_ms = 0;

		if (inject && t_trecv(t, t->rbuf, T_FLOOD_LEN, FI_ADDR_UNSPEC,
				      tag + 1, NULL))
			return -1;
		for (k = 0; k < T_FLOOD_N; k++) {
			p = t->sbuf + (size_t)k * T_FLOOD_LEN;
			t_fill(p, T_FLOOD_LEN, 1000 + (uint64_t)k);
			if (inject) {
				T_RETRY(t, fi_tinjectdata(t->fab.ep, p,
							  T_FLOOD_LEN,
							  (uint64_t)k, t->peer,
							  tag));
				memset(p, 0, T_FLOOD_LEN);	/* copied */
			} else {
				T_RETRY(t, fi_tsenddata(t->fab.ep, p,
							T_FLOOD_LEN, NULL,
							(uint64_t)k, t->peer,
							tag, NULL));
				t->tx_posted++;
			}
			t->sends_ok++;
			if (k == T_FLOOD_BOUND)
				past_bound_ms = t_now_ms();
		}
		if (t_sync(t))
			return -1;
		/*
		 * Those past the bound are resent until receives make room
		 * (100 ms after the sync here); a sender's PDC gives up on a
		 * packet after FI_UET_MAX_RETRIES resends past the 64
		 * refused ones it forgives. When they fail, this says which
		 * bound was near.
		 */
		if (t_tx_drain(t)) {
			printf("fi_msg_check: flood: the sends past the bound "
			       "ended %llu ms after the first was posted\n",
			       (unsigned long long)(t_now_ms() -
						    past_bound_ms));
			return -1;
		}
		if (inject) {
			fi_addr_t src;

			ret = t_rx_wait(t, &e, &src);
			T_CHECK(!ret, "flood: the target's message: %s",
				fi_strerror(-ret));
			if (t_check_msg(t, &e, src, T_FLOOD_LEN, tag + 1, 7))
				return -1;
		}
		return t_sync(t) ? -1 : 0;
	}
	memset(seen, 0, sizeof(seen));
	if (t_sync(t))
		return -1;
	if (inject) {
		t_fill(t->sbuf, T_FLOOD_LEN, 7);
		T_RETRY(t, fi_tsend(t->fab.ep, t->sbuf, T_FLOOD_LEN, NULL,
				    t->peer, tag + 1, NULL));
		t->tx_posted++;
		t->sends_ok++;
		T_CHECK(!t_tx_drain(t), "flood: the message back did not "
			"complete");
	}
	t_idle(t, 100);
	for (k = 0; k < T_FLOOD_N; k++)
		if (t_trecv(t, t->rbuf + (size_t)k * T_FLOOD_LEN, T_FLOOD_LEN,
			    FI_ADDR_UNSPEC, tag, NULL))
			return -1;
	for (k = 0; k < T_FLOOD_N; k++) {
		fi_addr_t src;

		ret = t_rx_wait(t, &e, &src);
		T_CHECK(!ret && e.data < T_FLOOD_N && !seen[e.data],
			"message %d: %s, number %llu", k, fi_strerror(-ret),
			(unsigned long long)e.data);
		/* In send order, with FI_ORDER_SAS, into receive k. */
		T_CHECK(!t->sas || (e.data == (uint64_t)k &&
				    e.buf == t->rbuf + (size_t)k * T_FLOOD_LEN),
			"receive %d got message %llu", k,
			(unsigned long long)e.data);
		seen[e.data] = true;
		if (t_check_msg(t, &e, src, T_FLOOD_LEN, tag, 1000 + e.data))
			return -1;
	}
	return t_sync(t) ? -1 : 0;
}

int t_case_flood(struct t *t)
{
	return t_flood(t, false, T_TAG | 0xC800);
}

int t_case_flood_inject(struct t *t)
{
	return t_flood(t, true, T_TAG | 0xC900);
}

#define T_ORD_N		40
#define T_ORD_SLOT	70000

static size_t t_ord_len(int k)
{
	static const size_t sz[] = { 16, 9000, 100, T_ORD_SLOT, 0, 3000 };

	return sz[k % 6];
}

/* Same tag: receive k gets message k, expected and unexpected. */
int t_case_order(struct t *t)
{
	struct fi_cq_tagged_entry e;
	fi_addr_t src;
	int k, ret;

	if (!t->sas) {
		printf("fi_msg_check: send-after-send order SKIP: no "
		       "FI_ORDER_SAS\n");
		return 1;
	}
	for (int round = 0; round < 2; round++) {
		if (!t->server) {
			if (!round && t_sync(t))
				return -1;
			for (k = 0; k < T_ORD_N; k++) {
				uint8_t *p = t->sbuf + (size_t)k * T_ORD_SLOT;

				t_fill(p, t_ord_len(k), 200 + (uint64_t)k);
				T_RETRY(t, fi_tsenddata(t->fab.ep, p,
							t_ord_len(k), NULL,
							(uint64_t)k,
							t->peer, T_TAG | 0xD000,
							NULL));
				t->tx_posted++;
				t->sends_ok++;
			}
			if ((round && t_sync(t)) || t_tx_drain(t) ||
			    t_sync(t))
				return -1;
			continue;
		}
		if (round && (t_sync(t) || (t_idle(t, 100), 0)))
			return -1;
		for (k = 0; k < T_ORD_N; k++)
			if (t_trecv(t, t->rbuf + (size_t)k * T_ORD_SLOT,
				    T_ORD_SLOT, FI_ADDR_UNSPEC, T_TAG | 0xD000,
				    &t_ctx[k]))
				return -1;
		if (!round && t_sync(t))
			return -1;
		for (int n = 0; n < T_ORD_N; n++) {
			ret = t_rx_wait(t, &e, &src);
			T_CHECK(!ret, "receive: %s", fi_strerror(-ret));
			k = t_ctx_idx(e.op_context);
			T_CHECK(k >= 0 && e.data == (uint64_t)k,
				"round %d: receive %d got message %llu", round,
				k, (unsigned long long)e.data);
			if (t_check_msg(t, &e, src, t_ord_len(k),
					T_TAG | 0xD000, 200 + (uint64_t)k))
				return -1;
		}
		if (t_sync(t))
			return -1;
	}
	return 0;
}
