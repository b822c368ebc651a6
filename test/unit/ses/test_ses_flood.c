/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A flood of sends past the target's unexpected bound, under message_id
 * prefixes of UET_FEP_EP_BITS (sequences of 10 bits, 256 in flight to a
 * peer), as test/progs/fi_msg_check_cases.c t_case_flood does end to end: the
 * initiator posts every send before the target posts a receive; the target
 * takes as many as its unexpected queue holds and refuses the rest
 * (-EAGAIN, resent by the wire as by PDC) until receives are posted; then
 * every message arrives exactly once with its data, in send order over an
 * ordered wire, and every send completes. Over a wire that reorders,
 * duplicates and drops too, with copies of requests arriving up to a
 * window after their answer (the horizon of the target's done bits,
 * ses_priv.h).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_ses_wire.h"
#include "uet_fep.h"

#define T_JOB		7
#define T_PID_A		1
#define T_PID_B		3
#define T_PFX_A		5
#define T_PFX_B		9
#define T_RI_MSG	0x002
#define T_MTU		1024
#define T_TAG		0xF100D
#define T_N		2100		/* past two turns of the sequence */
#define T_LEN_MAX	3000		/* up to 3 packets */
#define T_STUCK		20000		/* wire steps a post may wait */
#define T_SEQ		(1u << UET_FEP_ID_SHIFT)
#define T_COPY_TTL	(T_SEQ / 2 - T_SEQ / 4)	/* packets, ses_priv.h */

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr to_b;
static uint8_t *t_src, *t_dst;
static struct ses_wre t_wr[T_N];
static struct ses_iov t_iov[T_N];
static size_t t_len[T_N];
static unsigned t_tx_cnt[T_N];		/* completions of send j */
static int t_tx_status[T_N];
static uint8_t t_tx_rc[T_N];
static unsigned t_rx_cnt[T_N];		/* completions of receive k */
static struct ses_recv_cpl t_rx[T_N];
static unsigned t_rx_total;

static void t_tx_hook(struct t_node *n, const struct ses_wre *wre,
		      const struct ses_tx_cpl *cpl)
{
	size_t j = (size_t)(wre - t_wr);

	(void)n;
	cr_assert_lt(j, T_N);
	t_tx_cnt[j]++;
	t_tx_status[j] = cpl->status;
	t_tx_rc[j] = cpl->rc;
}

static void t_rx_hook(struct t_node *n, const struct ses_recv_cpl *cpl)
{
	size_t k = (size_t)(uintptr_t)cpl->user_ctx - 1;

	(void)n;
	cr_assert_lt(k, T_N);
	t_rx_cnt[k]++;
	t_rx[k] = *cpl;
	t_rx_total++;
}

static void t_node_setup(struct t_node *n, uint32_t id, uint16_t pid,
			 uint16_t prefix, uint32_t max_ux)
{
	struct ses_config cfg;

	ses_config_init(&cfg);
	cfg.payload_mtu = T_MTU;
	cfg.job_id = T_JOB;
	cfg.pid_on_fep = pid;
	cfg.initiator = id;
	cfg.msg_id_prefix = prefix;
	cfg.msg_id_prefix_bits = UET_FEP_EP_BITS;
	cfg.max_unexpected = max_ux;
	t_node_init(&w, n, id, &cfg);
	n->tx_hook = t_tx_hook;
	n->rx_hook = t_rx_hook;
}

static void t_setup(void)
{
	t_src = malloc((size_t)T_N * T_LEN_MAX);
	t_dst = malloc((size_t)T_N * T_LEN_MAX);
	cr_assert(t_src && t_dst);
	memset(t_tx_cnt, 0, sizeof(t_tx_cnt));
	memset(t_rx_cnt, 0, sizeof(t_rx_cnt));
	t_rx_total = 0;
	t_wire_init(&w, 0xF100D);
	t_addr(&to_b, 2, T_JOB, T_PID_B);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
	free(t_src);
	free(t_dst);
}

TestSuite(ses_flood, .init = t_setup, .fini = t_teardown, .timeout = 120);

static void t_fill(uint8_t *p, size_t len, uint32_t salt)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 29 + salt * 11 + (salt >> 8) + (i >> 8));
}

/* Delivers a packet, or lets the nodes progress when none is in flight. */
static void t_step(void)
{
	if (t_wire_step(&w))
		return;
	ses_progress(a.s, w.now_ns);
	ses_progress(b.s, w.now_ns);
}

/*
 * Posts send |j| as an application does: on -EAGAIN it lets the wire run
 * and tries again, but the target posts no receive meanwhile.
 */
static void t_post_send(unsigned j)
{
	uint8_t *src = t_src + (size_t)j * T_LEN_MAX;
	unsigned steps = 0;
	int ret;

	t_fill(src, t_len[j], j);
	t_wre(&t_wr[j], UET_SES_OP_TAGGED_SEND, &to_b, &t_iov[j], src,
	      t_len[j]);
	t_wr[j].ri = T_RI_MSG;
	t_wr[j].tag = T_TAG;
	t_wr[j].flags = SES_WRE_F_HDR_DATA;
	t_wr[j].header_data = j;
	while ((ret = ses_wre_post(a.s, &t_wr[j])) == -EAGAIN &&
	       steps++ < T_STUCK)
		t_step();
	cr_assert_eq(ret, 0, "send %u of %u: %d after %u wire steps (%u "
		     "sends done, %u refused by the target, which has no "
		     "receive yet)", j, T_N, ret, steps, a.tx_total,
		     w.eagain_cnt);
}

/*
 * |n| sends of t_len[] bytes to a target that keeps at most |max_ux|
 * unexpected messages, over the wire as the caller set it up; receives are
 * posted once every send is posted and the target refuses the rest.
 */
static void t_flood(unsigned n, uint32_t max_ux, bool ordered)
{
	struct ses_ri_id msg = { T_JOB, T_PID_B, T_RI_MSG };
	struct ses_stats st;
	unsigned j, k, steps;
	static bool seen[T_N];
	static uint8_t want[T_LEN_MAX];

	cr_assert_leq(n, T_N);
	t_node_setup(&a, 1, T_PID_A, T_PFX_A, 1024);
	t_node_setup(&b, 2, T_PID_B, T_PFX_B, max_ux);
	cr_assert_eq(ses_ri_add(b.s, &msg, SES_RI_F_MSG), 0);

	/* Every send posted, no receive: the unexpected queue fills. */
	for (j = 0; j < n; j++)
		t_post_send(j);
	for (steps = 0; a.tx_total < max_ux && steps < 1000000; steps++)
		t_step();
	for (steps = 0; steps < 2000; steps++)
		t_step();
	cr_assert_eq(a.tx_total, max_ux, "%u sends taken as unexpected",
		     a.tx_total);
	cr_assert_gt(w.eagain_cnt, 0, "the rest refused");
	cr_assert_eq(t_rx_total, 0);

	/* Receives for all, in order, taking any tag. */
	memset(t_dst, 0, (size_t)n * T_LEN_MAX);
	for (k = 0; k < n; k++) {
		struct ses_iov iov = { t_dst + (size_t)k * T_LEN_MAX,
				       T_LEN_MAX, NULL };
		struct ses_recv_attr ra = {
			.iov = &iov, .iov_cnt = 1, .ignore = ~0ull,
			.initiator = SES_INITIATOR_ANY,
			.flags = SES_RECV_F_TAGGED,
			.user_ctx = (void *)(uintptr_t)(k + 1),
		};

		cr_assert_eq(ses_recv_post(b.s, &ra), 0);
	}
	t_wire_run(&w, 50000000);
	cr_assert_eq(w.q_cnt, 0, "the wire is quiet");

	for (j = 0; j < n; j++) {
		cr_assert_eq(t_tx_cnt[j], 1, "send %u completed %u times", j,
			     t_tx_cnt[j]);
		cr_assert_eq(t_tx_status[j], 0, "send %u: %d (%s)", j,
			     t_tx_status[j], ses_rc_name(t_tx_rc[j]));
	}
	cr_assert_eq(t_rx_total, n);
	memset(seen, 0, sizeof(seen));
	for (k = 0; k < n; k++) {
		const struct ses_recv_cpl *c = &t_rx[k];
		uint64_t m = c->header_data;

		cr_assert_eq(t_rx_cnt[k], 1, "receive %u completed %u times",
			     k, t_rx_cnt[k]);
		cr_assert_eq(c->status, 0, "receive %u: %d", k, c->status);
		cr_assert(c->hd && m < n, "receive %u: message %llu", k,
			  (unsigned long long)m);
		cr_assert(!seen[m], "message %llu twice", (unsigned long long)m);
		seen[m] = true;
		if (ordered)
			cr_assert_eq(m, k, "receive %u got message %llu", k,
				     (unsigned long long)m);
		cr_assert_eq(c->tag, T_TAG);
		cr_assert_eq(c->len, t_len[m]);
		cr_assert_eq(c->msg_len, t_len[m]);
		t_fill(want, t_len[m], (uint32_t)m);
		cr_assert_eq(memcmp(t_dst + (size_t)k * T_LEN_MAX, want,
				    t_len[m]), 0, "receive %u: message %llu's "
			     "data", k, (unsigned long long)m);
	}
	ses_stats_get(b.s, &st);
	cr_assert_gt(st.rx_ux_full, 0);
	if (w.dup_pct)
		cr_assert_gt(st.rx_dups, 0, "copies seen and dropped");
	cr_assert_eq(st.rx_malformed, 0);
	cr_assert_eq(st.rx_rejected, 0);
}

static void t_lens(unsigned n, bool varied)
{
	for (unsigned j = 0; j < n; j++)
		t_len[j] = varied ? 1 + (j * 997u) % T_LEN_MAX : 64;
}

/*
 * As end to end: 64-byte messages, an unexpected bound of 1024 (the whole
 * sequence space), ROD.
 */
Test(ses_flood, past_a_bound_of_the_sequence_space_in_order)
{
	w.rod = true;
	t_lens(T_N, false);
	t_flood(T_N, 1024, true);
}

/* A small bound: most sends wait at the initiator, up to 3 packets each. */
Test(ses_flood, past_a_small_bound_in_order)
{
	w.rod = true;
	t_lens(T_N, true);
	t_flood(T_N, 64, true);
}

/* Copies up to a window late; dropped packets sent again. */
Test(ses_flood, past_a_small_bound_reordered_duplicated_dropped)
{
	w.reorder = true;
	w.dup_pct = 10;
	w.drop_pct = 5;
	w.copy_ttl = T_COPY_TTL;
	t_lens(T_N, true);
	t_flood(T_N, 64, false);
}

Test(ses_flood, past_a_bound_of_the_sequence_space_reordered_duplicated)
{
	w.reorder = true;
	w.dup_pct = 10;
	w.copy_ttl = T_COPY_TTL;
	t_lens(T_N, false);
	t_flood(T_N, 1024, false);
}
