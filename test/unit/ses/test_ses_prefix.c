/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * message_ids under an endpoint prefix (ses_config.msg_id_prefix,
 * include/uet_fep.h), between two engines over the in-memory wire under
 * different prefixes of UET_FEP_EP_BITS: every request carries its
 * initiator's prefix and every response echoes it; sequences start at 1,
 * stay consecutive and wrap in the low bits; the window is a quarter of
 * the sequence space, and a message past it waits for an id; a late copy
 * of a request is a duplicate for a window more after its answer; many
 * turns of it over a reordering, duplicating wire complete exactly once;
 * READs, fetching atomics and rendezvous work; a peer that changes its
 * prefix is malformed; bad configs are refused.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ses/ses_amo.h"
#include "test_ses_wire.h"
#include "uet_fep.h"

#define T_JOB		7
#define T_PID_A		1
#define T_PID_B		3
#define T_PFX_A		5
#define T_PFX_B		9
#define T_RI		0x00a	/* RMA, on both */
#define T_RI_MSG	0x002	/* sends, on both */
#define T_RI_RDV	0x100
#define T_RKEY		0x1234ull
#define T_SLOT		4096
#define T_SLOTS		512
#define T_MEM_LEN	(T_SLOTS * T_SLOT)
#define T_SEQ_MASK	((1u << UET_FEP_ID_SHIFT) - 1)
#define T_SEQ		(1u << UET_FEP_ID_SHIFT)	/* 1024 */
#define T_WINDOW	(T_SEQ / 4)			/* 256 */
/* Packets a copy may trail its answer by and still be known (ses_priv.h). */
#define T_COPY_TTL	(T_SEQ / 2 - T_WINDOW)

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr to_a, to_b;
static uint8_t *mem_a, *mem_b;

static void t_node_setup(struct t_node *n, uint32_t id, uint16_t pid,
			 uint16_t prefix, uint8_t *mem)
{
	struct ses_ri_id rma = { T_JOB, pid, T_RI }, msg = { T_JOB, pid,
							       T_RI_MSG };
	struct ses_config cfg;

	ses_config_init(&cfg);
	cfg.payload_mtu = 1024;
	cfg.job_id = T_JOB;
	cfg.pid_on_fep = pid;
	cfg.initiator = id;
	cfg.rdv_ri = T_RI_RDV;
	cfg.msg_id_prefix = prefix;
	cfg.msg_id_prefix_bits = UET_FEP_EP_BITS;
	t_node_init(&w, n, id, &cfg);
	cr_assert_eq(ses_ri_add(n->s, &rma, 0), 0);
	cr_assert_eq(ses_ri_add(n->s, &msg, SES_RI_F_MSG), 0);
	cr_assert_eq(ses_mr_add(n->s, &rma, T_RKEY, mem, T_MEM_LEN,
				SES_ACCESS_REMOTE_READ |
				SES_ACCESS_REMOTE_WRITE), 0);
}

static void t_setup(void)
{
	t_wire_init(&w, 12);
	mem_a = calloc(1, T_MEM_LEN);
	mem_b = calloc(1, T_MEM_LEN);
	cr_assert(mem_a && mem_b);
	t_node_setup(&a, 1, T_PID_A, T_PFX_A, mem_a);
	t_node_setup(&b, 2, T_PID_B, T_PFX_B, mem_b);
	t_addr(&to_a, 1, T_JOB, T_PID_A);
	t_addr(&to_b, 2, T_JOB, T_PID_B);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
	free(mem_a);
	free(mem_b);
}

TestSuite(ses_prefix, .init = t_setup, .fini = t_teardown, .timeout = 60);

static void t_fill(uint8_t *p, size_t len, uint32_t salt)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 13 + salt * 7 + (i >> 8));
}

static uint16_t t_prefix_of(uint32_t node)
{
	return node == 1 ? T_PFX_A : T_PFX_B;
}

/* Counts of what the captured log held, by kind. */
struct t_ids {
	unsigned reqs, rsps, defaults, data, bad;
};

/*
 * Requests carry the prefix of their sender, responses and response data
 * that of their receiver: the initiator of the message they answer.
 */
static struct t_ids t_ids_check(void)
{
	struct t_ids n = { 0 };

	for (size_t i = 0; i < w.log_cnt; i++) {
		const struct t_pkt *p = &w.log[i];
		struct ses_rsp_data_hdr dh;
		struct ses_std_hdr h;
		struct ses_rsp_hdr r;

		if (p->is_default) {
			n.defaults++;	/* the ACK alone: no id to check */
		} else if (p->is_req) {
			cr_assert_geq(ses_std_hdr_decode(&h, p->buf, p->len),
				      0);
			n.reqs++;
			n.bad += UET_FEP_ID_EP(h.message_id) !=
				 t_prefix_of(p->src);
		} else if (p->next_hdr == UET_PDS_NEXT_HDR_RESPONSE) {
			cr_assert_geq(ses_rsp_hdr_decode(&r, p->buf, p->len),
				      0);
			n.rsps++;
			n.bad += UET_FEP_ID_EP(r.message_id) !=
				 t_prefix_of(p->dst);
		} else {
			cr_assert_eq(p->next_hdr,
				     UET_PDS_NEXT_HDR_RESPONSE_DATA);
			cr_assert_geq(ses_rsp_data_hdr_decode(&dh, p->buf,
							      p->len), 0);
			n.data++;
			n.bad += UET_FEP_ID_EP(dh.message_id) !=
				 t_prefix_of(p->dst);
			n.bad += UET_FEP_ID_EP(dh.read_request_message_id) !=
				 t_prefix_of(p->dst);
		}
	}
	return n;
}

static void t_rma(struct ses_wre *wr, struct ses_iov *iov, uint8_t op,
		  const struct ses_addr *dst, void *buf, size_t len,
		  uint64_t off)
{
	t_wre(wr, op, dst, iov, buf, len);
	wr->ri = T_RI;
	wr->mkey = T_RKEY;
	wr->remote_offset = off;
}

static void t_recv(struct t_node *n, void *buf, size_t len, uint64_t tag)
{
	struct ses_iov iov = { buf, len, NULL };
	struct ses_recv_attr ra = { .iov = &iov, .iov_cnt = 1, .tag = tag,
				    .initiator = SES_INITIATOR_ANY,
				    .flags = SES_RECV_F_TAGGED,
				    .user_ctx = buf };

	cr_assert_eq(ses_recv_post(n->s, &ra), 0);
}

static void t_tsend(struct t_node *n, struct ses_wre *wr, struct ses_iov *iov,
		    const struct ses_addr *dst, void *buf, size_t len,
		    uint64_t tag)
{
	t_wre(wr, UET_SES_OP_TAGGED_SEND, dst, iov, buf, len);
	wr->ri = T_RI_MSG;
	wr->tag = tag;
	cr_assert_eq(ses_wre_post(n->s, wr), 0);
}

static void t_all_ok(const struct t_node *n, unsigned cnt)
{
	cr_assert_eq(n->tx_cnt, cnt);
	for (unsigned i = 0; i < cnt; i++)
		cr_assert_eq(n->tx[i].cpl.status, 0, "wre %u: %d %s", i,
			     n->tx[i].cpl.status, ses_rc_name(n->tx[i].cpl.rc));
}

/*
 * Every kind of message both ways, rendezvous included (B pulls from A
 * with a READ of its own), captured whole.
 */
Test(ses_prefix, requests_carry_the_initiators_prefix_responses_echo_it)
{
	static uint8_t wsrc[3000], ssrc[2500], sdst[2500], rsink[3000];
	static uint8_t big[20000], bigdst[20000], bsrc[1500], bsink[2100];
	uint64_t add = 5, old = 0, sum = 3;
	struct ses_iov iov[10], riov = { &old, 8, NULL };
	struct ses_wre wr[10];
	struct ses_std_hdr h;
	struct t_ids ids;

	t_fill(wsrc, sizeof(wsrc), 1);
	t_fill(ssrc, sizeof(ssrc), 2);
	t_fill(big, sizeof(big), 3);
	t_fill(bsrc, sizeof(bsrc), 4);
	t_fill(mem_b + T_SLOT, T_SLOT, 5);
	t_fill(mem_a + T_SLOT, T_SLOT, 6);
	memcpy(mem_b + 2 * T_SLOT, &sum, 8);
	t_recv(&b, sdst, sizeof(sdst), 1);
	t_recv(&b, bigdst, sizeof(bigdst), 2);
	w.capture = true;

	t_rma(&wr[0], &iov[0], UET_SES_OP_WRITE, &to_b, wsrc, sizeof(wsrc), 0);
	cr_assert_eq(ses_wre_post(a.s, &wr[0]), 0);
	cr_assert_eq(ses_std_hdr_decode(&h, w.log[0].buf, w.log[0].len), 44);
	cr_assert_eq(h.message_id, T_PFX_A << UET_FEP_ID_SHIFT | 1,
		     "the first id: prefix over sequence 1");
	t_tsend(&a, &wr[1], &iov[1], &to_b, ssrc, sizeof(ssrc), 1);
	t_rma(&wr[2], &iov[2], UET_SES_OP_READ, &to_b, rsink, sizeof(rsink),
	      T_SLOT + 7);
	cr_assert_eq(ses_wre_post(a.s, &wr[2]), 0);
	t_rma(&wr[3], &iov[3], UET_SES_OP_FETCHING_ATOMIC, &to_b, &add, 8,
	      2 * T_SLOT);
	wr[3].amo_op = UET_SES_AMO_SUM;
	wr[3].amo_dt = UET_SES_AMO_DT_UINT64;
	wr[3].res_iov = &riov;
	wr[3].res_iov_cnt = 1;
	cr_assert_eq(ses_wre_post(a.s, &wr[3]), 0);
	t_rma(&wr[4], &iov[4], UET_SES_OP_ATOMIC, &to_b, &add, 8, 2 * T_SLOT);
	wr[4].amo_op = UET_SES_AMO_SUM;
	wr[4].amo_dt = UET_SES_AMO_DT_UINT64;
	cr_assert_eq(ses_wre_post(a.s, &wr[4]), 0);
	t_tsend(&a, &wr[5], &iov[5], &to_b, big, sizeof(big), 2);  /* rdv */
	t_rma(&wr[6], &iov[6], UET_SES_OP_WRITE, &to_a, bsrc, sizeof(bsrc),
	      0);
	cr_assert_eq(ses_wre_post(b.s, &wr[6]), 0);
	t_rma(&wr[7], &iov[7], UET_SES_OP_READ, &to_a, bsink, sizeof(bsink),
	      T_SLOT + 3);
	cr_assert_eq(ses_wre_post(b.s, &wr[7]), 0);
	t_wire_run(&w, 100000);

	cr_assert_eq(w.q_cnt, 0);
	t_all_ok(&a, 6);
	t_all_ok(&b, 2);
	cr_assert_eq(memcmp(mem_b, wsrc, sizeof(wsrc)), 0);
	cr_assert_eq(b.rx_cnt, 2);
	cr_assert_eq(memcmp(sdst, ssrc, sizeof(ssrc)), 0);
	cr_assert_eq(memcmp(bigdst, big, sizeof(big)), 0, "rendezvous");
	cr_assert_eq(memcmp(rsink, mem_b + T_SLOT + 7, sizeof(rsink)), 0);
	cr_assert_eq(old, 3, "the fetched old value");
	memcpy(&sum, mem_b + 2 * T_SLOT, 8);
	cr_assert_eq(sum, 13);
	cr_assert_eq(memcmp(mem_a, bsrc, sizeof(bsrc)), 0);
	cr_assert_eq(memcmp(bsink, mem_a + T_SLOT + 3, sizeof(bsink)), 0);

	ids = t_ids_check();
	cr_assert_gt(ids.reqs, 10);
	cr_assert_gt(ids.rsps, 0, "the rendezvous send ends with one");
	cr_assert_gt(ids.defaults, 10);
	cr_assert_gt(ids.data, 5, "READ, fetch and pull data");
	cr_assert_eq(ids.bad, 0, "%u ids under the wrong prefix", ids.bad);
}

#define T_RUN		250	/* within a window */

/*
 * 3000 one-packet WRITEs: ids are the prefix over sequences 1, 2, ...,
 * wrapping in the low bits (to 0, then 1) and never touching the prefix.
 */
Test(ses_prefix, sequences_are_consecutive_and_wrap_in_the_low_bits)
{
	static uint64_t val[T_RUN];
	static struct ses_wre wr[T_RUN];
	static struct ses_iov iov[T_RUN];
	uint32_t k = 0, wraps = 0;
	struct ses_std_hdr h;

	w.capture = true;
	while (k < 3000) {
		for (unsigned i = 0; i < T_RUN; i++) {
			val[i] = k + i;
			t_rma(&wr[i], &iov[i], UET_SES_OP_WRITE, &to_b,
			      &val[i], 8, 8 * i);
			cr_assert_eq(ses_wre_post(a.s, &wr[i]), 0);
		}
		cr_assert_eq(w.log_cnt, T_RUN);
		for (size_t i = 0; i < w.log_cnt; i++, k++) {
			uint16_t want = (uint16_t)(T_PFX_A << UET_FEP_ID_SHIFT |
						   ((k + 1) & T_SEQ_MASK));

			cr_assert_eq(ses_std_hdr_decode(&h, w.log[i].buf,
							w.log[i].len), 44);
			cr_assert_eq(h.message_id, want, "message %u: %#x",
				     k, h.message_id);
			wraps += (h.message_id & T_SEQ_MASK) == 0;
			t_pkt_free(&w.log[i]);
		}
		w.log_cnt = 0;
		w.capture = false;
		t_wire_run(&w, 100000);
		w.capture = true;
		for (unsigned i = 0; i < T_RUN; i++) {
			uint64_t got;

			memcpy(&got, mem_b + 8 * i, 8);
			cr_assert_eq(got, val[i]);
		}
	}
	cr_assert_eq(a.tx_total, 3000);
	cr_assert_eq(wraps, 2);
}

/*
 * A quarter of the sequence space in flight to one peer, and not one
 * more: a message posted past it waits for an id, and goes once the oldest
 * one in flight is answered.
 */
Test(ses_prefix, window_is_a_quarter_of_the_sequence_space)
{
	static uint64_t val;
	struct ses_wre wr, wr_b;
	struct ses_iov iov;
	struct ses_std_hdr h;
	struct t_pkt held;
	unsigned n = 1;

	t_rma(&wr, &iov, UET_SES_OP_WRITE, &to_b, &val, 8, 0);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	held = t_wire_take(&w, 0);	/* sequence 1 stays unanswered */
	for (unsigned round = 0; round < 3; round++) {
		for (unsigned i = 0; i < T_WINDOW / 4; i++, n++)
			cr_assert_eq(ses_wre_post(a.s, &wr), 0);
		t_wire_run(&w, 100000);
	}
	for (; n < T_WINDOW; n++)
		cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_total, T_WINDOW - 1);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0, "taken, to wait");
	cr_assert_eq(w.q_cnt, 0, "nothing sent");
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_total, T_WINDOW - 1);
	/*
	 * Still to one peer only: B may send to A meanwhile. Its WRE lives
	 * to the end of the test, as SES keeps it until tx_done (a compound
	 * literal in the assertion died with the assertion's block).
	 */
	wr_b = (struct ses_wre){ .opcode = UET_SES_OP_WRITE, .dst = &to_a,
		.ri = T_RI, .iov = &iov, .iov_cnt = 1, .mkey = T_RKEY };
	cr_assert_eq(ses_wre_post(b.s, &wr_b), 0);
	t_wire_run(&w, 100);
	cr_assert_eq(b.tx_total, 1);
	w.capture = true;
	t_wire_deliver(&w, &held);	/* late, yet taken: never seen */
	t_pkt_free(&held);
	t_wire_run(&w, 100);
	cr_assert_eq(a.tx_total, T_WINDOW + 1);
	cr_assert_eq(a.tx[0].cpl.status, 0);
	/* The one that waited went after the answer, as sequence W + 1. */
	cr_assert_eq(w.log_cnt, 3, "answer, request, answer");
	cr_assert(w.log[1].is_req);
	cr_assert_eq(ses_std_hdr_decode(&h, w.log[1].buf, w.log[1].len), 44);
	cr_assert_eq(h.message_id & T_SEQ_MASK, T_WINDOW + 1);
}

#define T_BATCH_WRITES	384
#define T_BATCH_SENDS	128
#define T_SEND_MAX	3000

#define T_BATCH		(T_BATCH_WRITES + T_BATCH_SENDS)	/* 2 windows */

/*
 * Two windows of WRITEs (up to 4 packets each) and tagged sends (up to
 * 3), each to its own slot or receive, over a wire that reorders,
 * duplicates and drops (and resends) packets; run until quiet. The second
 * window goes as the first is answered, while copies of its requests are
 * still arriving.
 */
static void t_batch(uint32_t round)
{
	static uint8_t wsrc[T_BATCH_WRITES][T_SLOT];
	static uint8_t ssrc[T_BATCH_SENDS][T_SEND_MAX];
	static uint8_t sdst[T_BATCH_SENDS][T_SEND_MAX];
	static struct ses_wre wr[T_BATCH];
	static struct ses_iov iov[T_BATCH];
	static size_t wlen[T_BATCH_WRITES], slen[T_BATCH_SENDS];
	unsigned total = a.tx_total, i;

	a.tx_cnt = 0;
	b.rx_cnt = 0;
	for (i = 0; i < T_BATCH_SENDS; i++) {
		memset(sdst[i], 0, T_SEND_MAX);
		t_recv(&b, sdst[i], T_SEND_MAX, (uint64_t)round << 8 | i);
	}
	for (i = 0; i < T_BATCH_WRITES; i++) {
		wlen[i] = 1 + t_rand(&w) % T_SLOT;
		t_fill(wsrc[i], wlen[i], round * 1000 + i);
		t_rma(&wr[i], &iov[i], UET_SES_OP_WRITE, &to_b, wsrc[i],
		      wlen[i], (uint64_t)i * T_SLOT);
		cr_assert_eq(ses_wre_post(a.s, &wr[i]), 0);
	}
	for (i = 0; i < T_BATCH_SENDS; i++) {
		slen[i] = 1 + t_rand(&w) % T_SEND_MAX;
		t_fill(ssrc[i], slen[i], round * 1000 + 500 + i);
		t_tsend(&a, &wr[T_BATCH_WRITES + i], &iov[T_BATCH_WRITES + i],
			&to_b, ssrc[i], slen[i], (uint64_t)round << 8 | i);
	}
	t_wire_run(&w, 10000000);
	cr_assert_eq(w.q_cnt, 0);
	cr_assert_eq(a.tx_total, total + T_BATCH, "each completes once");
	for (i = 0; i < a.tx_cnt; i++)
		cr_assert_eq(a.tx[i].cpl.status, 0, "round %u wre %u: %s",
			     round, i, ses_rc_name(a.tx[i].cpl.rc));
	for (i = 0; i < T_BATCH_WRITES; i++)
		cr_assert_eq(memcmp(mem_b + (size_t)i * T_SLOT, wsrc[i],
				    wlen[i]), 0, "round %u slot %u", round, i);
	cr_assert_eq(b.rx_cnt, T_BATCH_SENDS, "each delivered once");
	for (i = 0; i < T_BATCH_SENDS; i++) {
		const struct ses_recv_cpl *c = &b.rx[i];
		unsigned k = (unsigned)(c->tag & 0xFF);

		cr_assert_eq(c->status, 0);
		cr_assert_eq(c->tag >> 8, round);
		cr_assert_eq(c->len, slen[k]);
		cr_assert_eq(memcmp(sdst[k], ssrc[k], slen[k]), 0,
			     "round %u send %u", round, k);
	}
}

/* 20 windows, 5 turns of the sequence space; copies up to a window late. */
Test(ses_prefix, many_turns_over_a_reordering_duplicating_wire)
{
	struct ses_stats st;

	w.reorder = true;
	w.dup_pct = 20;
	w.drop_pct = 10;
	for (uint32_t round = 0; round < 10; round++)
		t_batch(round);
	cr_assert_eq(a.tx_total, 10 * T_BATCH);
	ses_stats_get(b.s, &st);
	cr_assert_gt(st.rx_dups, 100, "duplicates seen and dropped");
	cr_assert_eq(st.rx_malformed, 0);
	cr_assert_eq(st.rx_rejected, 0);
}

/*
 * A copy of a request arriving after its message was answered, once a
 * full window had gone past it and a window more after its answer, is
 * still a duplicate: it does not place its bytes again over those of a
 * later WRITE. (With half the sequence space in flight, the window before
 * its answer used up the target's memory of it: it passed for new.)
 */
Test(ses_prefix, a_late_copy_is_a_duplicate_for_a_window_more)
{
	static uint64_t first = 0x1111, later = 0x2222, val;
	struct ses_wre wr, wx, wl;
	struct ses_iov iov, ix, il;
	struct t_pkt held, copy;
	struct ses_stats st;
	uint64_t got, dups;
	unsigned n, k;

	t_rma(&wx, &ix, UET_SES_OP_WRITE, &to_b, &first, 8, 0);
	t_rma(&wl, &il, UET_SES_OP_WRITE, &to_b, &later, 8, 0);
	t_rma(&wr, &iov, UET_SES_OP_WRITE, &to_b, &val, 8, 8);
	cr_assert_eq(ses_wre_post(a.s, &wx), 0);
	held = t_wire_take(&w, 0);
	copy = held;
	copy.buf = malloc(held.len);
	cr_assert_not_null(copy.buf);
	memcpy(copy.buf, held.buf, held.len);
	/* The window past it, whatever its width: posts go until one waits. */
	for (n = 1;; n++) {
		size_t q = w.q_cnt;

		cr_assert_eq(ses_wre_post(a.s, &wr), 0);
		if (w.q_cnt == q)
			break;
	}
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_total, n - 1);
	t_wire_deliver(&w, &held);	/* answered: the one waiting goes */
	t_pkt_free(&held);
	/* A window more, with a later WRITE over its bytes. */
	cr_assert_eq(ses_wre_post(a.s, &wl), 0);
	for (k = 2; k < n; k++)
		cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_total, 2 * n);
	memcpy(&got, mem_b, 8);
	cr_assert_eq(got, later);
	ses_stats_get(b.s, &st);
	dups = st.rx_dups;
	t_wire_deliver(&w, &copy);
	t_pkt_free(&copy);
	memcpy(&got, mem_b, 8);
	cr_assert_eq(got, later, "the late copy was placed again");
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rx_dups, dups + 1);
	/* The ids go on. */
	cr_assert_eq(ses_wre_post(a.s, &wx), 0);
	t_wire_run(&w, 100);
	memcpy(&got, mem_b, 8);
	cr_assert_eq(got, first);
	cr_assert_eq(a.tx_total, 2 * n + 1);
	cr_assert_eq(n, T_WINDOW);
}

#define T_READS		200
#define T_FETCHES	200
#define T_ADDS		100
#define T_READ_MAX	3000

/*
 * READs, fetching adds on one counter and plain adds on another, a window
 * at a time over the bad wire: READ data is right, every fetch saw a
 * different old value, and every add counted once.
 */
Test(ses_prefix, reads_and_fetching_atomics_return_their_data)
{
	static uint8_t sink[T_READS][T_READ_MAX];
	static uint64_t old[T_FETCHES];
	static struct ses_wre wr[T_READS + T_FETCHES + T_ADDS];
	static struct ses_iov iov[T_READS + T_FETCHES + T_ADDS];
	static struct ses_iov riov[T_FETCHES];
	static uint8_t seen[6 * T_FETCHES];
	static size_t rlen[T_READS];
	static uint64_t roff[T_READS];
	uint64_t one = 1, cnt, adds;
	unsigned i, n;

	t_fill(mem_b, 64 * T_SLOT, 99);
	memset(mem_b + 100 * T_SLOT, 0, 16);
	w.reorder = true;
	w.dup_pct = 20;
	w.drop_pct = 10;
	for (uint32_t round = 0; round < 6; round++) {
		a.tx_cnt = 0;
		for (n = 0, i = 0; i < T_READS; i++, n++) {
			rlen[i] = 1 + t_rand(&w) % T_READ_MAX;
			roff[i] = t_rand(&w) % (60 * T_SLOT);
			memset(sink[i], 0, T_READ_MAX);
			t_rma(&wr[n], &iov[n], UET_SES_OP_READ, &to_b, sink[i],
			      rlen[i], roff[i]);
			cr_assert_eq(ses_wre_post(a.s, &wr[n]), 0);
		}
		for (i = 0; i < T_FETCHES + T_ADDS; i++, n++) {
			bool fetch = i < T_FETCHES;

			t_rma(&wr[n], &iov[n], fetch ?
			      UET_SES_OP_FETCHING_ATOMIC : UET_SES_OP_ATOMIC,
			      &to_b, &one, 8, 100 * T_SLOT + (fetch ? 0 : 8));
			wr[n].amo_op = UET_SES_AMO_SUM;
			wr[n].amo_dt = UET_SES_AMO_DT_UINT64;
			if (fetch) {
				old[i] = UINT64_MAX;
				riov[i] = (struct ses_iov){ &old[i], 8, NULL };
				wr[n].res_iov = &riov[i];
				wr[n].res_iov_cnt = 1;
			}
			cr_assert_eq(ses_wre_post(a.s, &wr[n]), 0);
		}
		t_wire_run(&w, 10000000);
		cr_assert_eq(w.q_cnt, 0);
		cr_assert_eq(a.tx_total, (round + 1) * n);
		for (i = 0; i < a.tx_cnt; i++)
			cr_assert_eq(a.tx[i].cpl.status, 0);
		for (i = 0; i < T_READS; i++)
			cr_assert_eq(memcmp(sink[i], mem_b + roff[i], rlen[i]),
				     0, "round %u read %u", round, i);
		for (i = 0; i < T_FETCHES; i++) {
			cr_assert_lt(old[i], 6 * T_FETCHES);
			cr_assert_eq(seen[old[i]]++, 0, "old value %llu twice",
				     (unsigned long long)old[i]);
		}
	}
	memcpy(&cnt, mem_b + 100 * T_SLOT, 8);
	memcpy(&adds, mem_b + 100 * T_SLOT + 8, 8);
	cr_assert_eq(cnt, 6 * T_FETCHES);
	cr_assert_eq(adds, 6 * T_ADDS);
}

/* A copy of captured request |p| under prefix |prefix|. */
static struct t_pkt t_reprefix(const struct t_pkt *p, uint16_t prefix)
{
	struct t_pkt c = *p;
	struct ses_std_hdr h;

	c.buf = malloc(p->len);
	cr_assert_not_null(c.buf);
	memcpy(c.buf, p->buf, p->len);
	cr_assert_eq(ses_std_hdr_decode(&h, c.buf, c.len), 44);
	h.message_id = (uint16_t)(prefix << UET_FEP_ID_SHIFT |
				  ((h.message_id + 1) & T_SEQ_MASK));
	cr_assert_eq(ses_std_hdr_encode(c.buf, 44, &h), 44);
	c.seq = w.next_seq++;
	return c;
}

/*
 * The first request of a peer fixes its prefix: one under another is
 * malformed, neither placed nor answered, until the peer is reset.
 */
Test(ses_prefix, a_peer_changing_its_prefix_is_malformed)
{
	static uint8_t src[64];
	struct ses_wre wr;
	struct ses_iov iov;
	struct ses_stats st;
	struct t_pkt forged;

	memset(src, 0x3C, sizeof(src));
	t_rma(&wr, &iov, UET_SES_OP_WRITE, &to_b, src, sizeof(src), 0);
	w.capture = true;
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 100);
	cr_assert_eq(mem_b[0], 0x3C);
	forged = t_reprefix(&w.log[0], T_PFX_A + 1);
	memset(mem_b, 0, 64);
	t_wire_deliver(&w, &forged);
	cr_assert_eq(w.q_cnt, 0, "not answered");
	cr_assert_eq(mem_b[0], 0, "not placed");
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rx_malformed, 1);
	cr_assert_eq(st.rx_rejected, 0);

	/* A's own ids still go through. */
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_wire_run(&w, 100);
	cr_assert_eq(mem_b[0], 0x3C);
	cr_assert_eq(a.tx_total, 2);

	/* A new incarnation of the peer may come under another prefix. */
	cr_assert_eq(ses_peer_reset(b.s, 1), 0);
	memset(mem_b, 0, 64);
	t_wire_deliver(&w, &forged);
	t_pkt_free(&forged);
	cr_assert_eq(w.q_cnt, 1, "answered");
	cr_assert_eq(mem_b[0], 0x3C);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rx_malformed, 1);
}

static unsigned t_nop_sent;

static int t_nop_tx(void *ctx, const struct ses_pkt *pkt)
{
	(void)ctx;
	(void)pkt;
	t_nop_sent++;
	return 0;
}

static void t_nop_tx_done(void *ctx, const struct ses_wre *wre,
			  const struct ses_tx_cpl *cpl)
{
	(void)ctx;
	(void)wre;
	(void)cpl;
}

static const struct ses_ops t_nop_ops = {
	.tx = t_nop_tx, .tx_done = t_nop_tx_done,
};

/* An engine under |prefix| of |bits|, or NULL with errno. */
static struct ses *t_engine(uint16_t prefix, uint8_t bits)
{
	struct ses_config cfg;

	ses_config_init(&cfg);
	cfg.msg_id_prefix = prefix;
	cfg.msg_id_prefix_bits = bits;
	errno = 0;
	return ses_create(&cfg, &t_nop_ops, NULL);
}

static void t_expect_bad_cfg(uint16_t prefix, uint8_t bits)
{
	cr_expect_null(t_engine(prefix, bits), "prefix %u of %u bits taken",
		       prefix, bits);
	cr_expect_eq(errno, EINVAL);
}

Test(ses_prefix, rejects_bad_prefix_cfg)
{
	struct ses_config cfg;

	ses_config_init(&cfg);
	cr_expect_eq(cfg.msg_id_prefix_bits, 0, "no prefix by default");
	cr_expect_eq(cfg.msg_id_prefix, 0);
	t_expect_bad_cfg(1, 0);		/* a prefix without bits */
	t_expect_bad_cfg(0, 10);	/* more than 9 bits */
	t_expect_bad_cfg(64, 6);	/* wider than its bits */
	t_expect_bad_cfg(256, 8);
	t_expect_bad_cfg(512, 9);
}

/*
 * Messages that can be in flight to one peer (none is ever answered): of
 * twice SES_MSG_WINDOW one-packet WRITEs, all taken, those sent.
 */
static unsigned t_window(uint16_t prefix, uint8_t bits)
{
	static uint64_t val;
	struct ses_wre wr;
	struct ses_iov iov;
	struct ses *s = t_engine(prefix, bits);

	cr_assert_not_null(s, "prefix %u of %u bits", prefix, bits);
	t_rma(&wr, &iov, UET_SES_OP_WRITE, &to_b, &val, 8, 0);
	t_nop_sent = 0;
	for (unsigned i = 0; i < 2 * SES_MSG_WINDOW; i++)
		cr_assert_eq(ses_wre_post(s, &wr), 0);
	ses_destroy(s);
	return t_nop_sent;
}

/* SES_MSG_WINDOW, or a quarter of the sequence space when that is less. */
Test(ses_prefix, window_follows_the_prefix_bits)
{
	cr_expect_eq(t_window(0, 0), SES_MSG_WINDOW);
	cr_expect_eq(t_window(15, 4), SES_MSG_WINDOW);
	cr_expect_eq(t_window(31, 5), 512);
	cr_expect_eq(t_window(63, 6), 256);
	cr_expect_eq(t_window(0, 7), 128);
	cr_expect_eq(t_window(255, 8), 64);
}
