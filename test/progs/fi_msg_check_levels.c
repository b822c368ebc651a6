/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg_check's completion levels of sends (fi_cq(3), COMPLETION
 * SEMANTICS): the receiver posts its receives, says so and sleeps for
 * T_STALL_MS without running its provider. Meanwhile the sender sends
 * with FI_INJECT_COMPLETE, overwrites its buffer as soon as that
 * completes, then sends with FI_TRANSMIT_COMPLETE and then with
 * FI_DELIVERY_COMPLETE, each after the one before completed. The receiver
 * must get the bytes from before the overwrite. On uet the delivery
 * complete send must complete only after the receiver woke up, while the
 * inject complete one must complete while the receiver sleeps (it
 * completes with the copy). The transmit complete one (uet/
 * uet_op_level.c) completes at the target's acknowledgement, after the
 * receiver woke, on the wire; through a local channel (-L) once it is
 * written into the receiver's ring, while the receiver sleeps. Other
 * providers only say when theirs came: tcp;ofi_rxm of libfabric 1.17
 * completes a delivery complete send before the receiver has run.
 */
#include <string.h>
#include <unistd.h>

#include "test/progs/fi_msg_check.h"

#define T_STALL_MS	300	/* far below PDC's retry budget (~1.5 s) */
#define T_LEVEL_LEN	4096	/* one packet, copied by uet */
#define T_LEVELS	3

static const uint64_t t_level_flags[T_LEVELS] = {
	FI_INJECT_COMPLETE, FI_TRANSMIT_COMPLETE, FI_DELIVERY_COMPLETE,
};

static uint64_t t_level_tag(int i)
{
	return T_TAG | 0xC0DE00 | (uint64_t)i;
}

/* Sends with |flags| and waits for its completion: when it came (ms). */
static int t_send_level(struct t *t, int i, uint64_t *when_ms)
{
	struct iovec iov = { t->sbuf + i * T_LEVEL_LEN, T_LEVEL_LEN };
	struct fi_msg_tagged m = { .msg_iov = &iov, .iov_count = 1,
				   .addr = t->peer, .tag = t_level_tag(i),
				   .context = &t_ctx[i] };
	uint64_t end = t_now_ms() + 20000;

	if (t_tsend_msg(t, &m, t_level_flags[i], false))
		return -1;
	while (t->tx_done < t->tx_posted && t_now_ms() < end)
		t_progress(t);
	*when_ms = t_now_ms();
	T_CHECK(t->tx_done == t->tx_posted && !t->tx_errs,
		"send %d: no completion, or an error", i);
	return 0;
}

static int t_levels_send(struct t *t)
{
	uint64_t done[T_LEVELS], woke, t0;
	bool uet = !strcmp(t->prov, "uet");
	uint8_t b;

	for (int i = 0; i < T_LEVELS; i++)
		t_fill(t->sbuf + i * T_LEVEL_LEN, T_LEVEL_LEN, 0x1e7e1 + i);
	T_CHECK(!t_oob_recv(t, &b, 1), "side channel");
	t0 = t_now_ms();
	for (int i = 0; i < T_LEVELS; i++) {
		if (t_send_level(t, i, &done[i]))
			return -1;
		/* Ours again: what was sent must not change now. */
		memset(t->sbuf + i * T_LEVEL_LEN, 0xEE, T_LEVEL_LEN);
	}
	T_CHECK(!t_oob_recv(t, &woke, sizeof(woke)), "side channel");
	printf("fi_msg_check: levels: receiver asleep %d ms; inject complete "
	       "after %lld ms, transmit %lld, delivery %lld (woke at %lld)\n",
	       T_STALL_MS, (long long)(done[0] - t0),
	       (long long)(done[1] - t0), (long long)(done[2] - t0),
	       (long long)(woke - t0));
	if (!uet)
		return 0;
	T_CHECK(done[0] < woke, "inject complete waited for the receiver");
	if (t->local)
		T_CHECK(done[1] < woke, "transmit complete through the local "
			"channel waited for the receiver");
	else
		T_CHECK(done[1] >= woke,
			"transmit complete while the receiver slept");
	T_CHECK(done[2] >= woke, "delivery complete while the receiver slept");
	return 0;
}

static int t_levels_recv(struct t *t)
{
	struct fi_cq_tagged_entry e;
	bool seen[T_LEVELS] = { false };
	uint64_t woke;
	uint8_t b = 1;
	fi_addr_t src;
	int i, ret;

	for (i = 0; i < T_LEVELS; i++)
		if (t_trecv(t, t->rbuf + i * T_LEVEL_LEN, T_LEVEL_LEN,
			    FI_ADDR_UNSPEC, t_level_tag(i), &t_ctx[i]))
			return -1;
	T_CHECK(!ex_oob_send(&t->oob, &b, 1), "side channel");
	usleep(T_STALL_MS * 1000);	/* no progress: nothing arrives */
	woke = t_now_ms();
	T_CHECK(!ex_oob_send(&t->oob, &woke, sizeof(woke)), "side channel");
	/* In any order (unordered endpoints), each with its own bytes. */
	for (int n = 0; n < T_LEVELS; n++) {
		ret = t_rx_wait(t, &e, &src);
		T_CHECK(!ret, "receive: %s", fi_strerror(-ret));
		i = t_ctx_idx(e.op_context);
		T_CHECK(i >= 0 && i < T_LEVELS && !seen[i], "context %p",
			e.op_context);
		seen[i] = true;
		if (t_check_msg(t, &e, src, T_LEVEL_LEN, t_level_tag(i),
				0x1e7e1 + (uint64_t)i))
			return -1;
	}
	return 0;
}

int t_case_levels(struct t *t)
{
	return t->server ? t_levels_recv(t) : t_levels_send(t);
}
