/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Remote memory operations (ses_rdmo.c), the flush: answered only once
 * what came before it is in the target's memory (a write of several
 * packets, retries for a generation), not held by a refused message, given
 * up when an earlier one never comes; appends of several packets across a
 * generation change or a region replaced; a refused scatter of several
 * packets leaves nothing waiting. The fixture is t_ses_rdmo.h's.
 */
#include "t_ses_rdmo.h"

TestSuite(ses_rdmo_flush, .init = t_setup, .fini = t_teardown, .timeout = 60);

/* A WRITE WRE of |buf| to the target's region of |mkey| at |off|. */
static void t_write_wre(struct ses_wre *wr, struct ses_iov *iov, void *buf,
			size_t len, uint64_t mkey, uint64_t off)
{
	t_wre(wr, UET_SES_OP_WRITE, &dst_a, iov, buf, len);
	wr->ri = T_RI;
	wr->mkey = mkey;
	wr->remote_offset = off;
}

static void t_flush_wre(struct ses_wre *wr, struct ses_iov *iov)
{
	t_wre(wr, UET_SES_OP_RDMO_FLUSH, &dst_a, iov, NULL, 0);
	wr->iov_cnt = 0;
	wr->ri = T_RI;
}

/* Takes every request of a's still queued whose opcode is |op|. */
static size_t t_hold_reqs(uint8_t op, struct t_pkt *out, size_t max)
{
	struct ses_std_hdr h;
	size_t n = 0;

	for (size_t i = 0; i < w.q_cnt && n < max;) {
		if (w.q[i].is_req && w.q[i].src == a.id &&
		    ses_std_hdr_decode(&h, w.q[i].buf, w.q[i].len) > 0 &&
		    h.opcode == op) {
			out[n++] = t_wire_take(&w, i);
			continue;
		}
		i++;
	}
	return n;
}

Test(ses_rdmo_flush, flush_answers_after_earlier_data_is_in)
{
	static uint8_t big[4000];
	struct ses_wre wr, fl;
	struct ses_iov iov, fiov;
	struct t_pkt held[8];
	size_t n;

	memset(big, 0xE7, sizeof(big));
	a.tx_cnt = 0;
	t_write_wre(&wr, &iov, big, sizeof(big), T_RKEY_Q, 256);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_flush_wre(&fl, &fiov);
	cr_assert_eq(ses_wre_post(a.s, &fl), 0);
	/* The write's packets are delayed: the flush arrives first. */
	n = t_hold_reqs(UET_SES_OP_WRITE, held, 8);
	cr_assert_eq(n, 4);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 0, "flush completed before the data was in");
	cr_assert_eq(q[256], 0);
	/* Three of four: still held. */
	for (size_t i = 0; i < 3; i++) {
		t_wire_deliver(&w, &held[i]);
		t_pkt_free(&held[i]);
	}
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 0);
	t_wire_deliver(&w, &held[3]);
	t_pkt_free(&held[3]);
	t_wire_run(&w, 100000);
	/* Answered with (not after) the last packet's ACK: either first. */
	cr_assert_eq(a.tx_cnt, 2);
	t_ok(a.tx[0].cpl);
	t_ok(a.tx[1].cpl);
	cr_assert(a.tx[0].wre == &fl || a.tx[1].wre == &fl);
	cr_assert_eq(memcmp(q + 256, big, sizeof(big)), 0);
	cr_assert_eq(ses_peer_is_idle(b.s, a.id), true);
}

Test(ses_rdmo_flush, flush_at_once_when_nothing_is_outstanding)
{
	struct ses_iov fiov;
	struct ses_wre fl;
	struct ses_stats st;

	t_flush_wre(&fl, &fiov);
	t_ok(t_run_one(&a, &fl));
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rdmo_flush_held, 0);
}

/* A refused write before it does not hold a flush back. */
Test(ses_rdmo_flush, flush_not_held_by_a_refused_message)
{
	struct ses_wre wr, ok, fl;
	struct ses_iov iov, oiov, fiov;
	uint8_t d[64] = { 1 };
	struct ses_stats st;

	/* Something taken first, so the target has a's history. */
	t_write_wre(&ok, &oiov, d, sizeof(d), T_RKEY_Q, 0);
	t_ok(t_run_one(&a, &ok));
	a.tx_cnt = 0;
	t_write_wre(&wr, &iov, d, sizeof(d), 0x9999, 0);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_flush_wre(&fl, &fiov);
	cr_assert_eq(ses_wre_post(a.s, &fl), 0);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 2);
	t_refused(a.tx[0].cpl, UET_SES_RC_BAD_MKEY);
	t_ok(a.tx[1].cpl);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rdmo_flush_expired, 0);
}

Test(ses_rdmo_flush, flush_given_up_when_an_earlier_message_never_comes)
{
	struct ses_wre wr, fl;
	struct ses_iov iov, fiov;
	uint8_t d[64] = { 1 };
	struct t_pkt held[2];
	struct ses_stats st;

	a.tx_cnt = 0;
	t_write_wre(&wr, &iov, d, sizeof(d), T_RKEY_Q, 0);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_flush_wre(&fl, &fiov);
	cr_assert_eq(ses_wre_post(a.s, &fl), 0);
	cr_assert_eq(t_hold_reqs(UET_SES_OP_WRITE, held, 2), 1);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 0);
	cr_assert_eq(ses_peer_is_idle(b.s, a.id), false, "the hold names a");
	w.now_ns += 6ull * 1000000000;
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 1);
	cr_assert_eq(a.tx[0].wre, &fl);
	t_refused(a.tx[0].cpl, UET_SES_RC_UNDELIVERABLE);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rdmo_flush_expired, 1);
	t_pkt_free(&held[0]);
}

/*
 * The first request to a target is refused for its RI generation (the
 * initiator had none cached) and sent again: a flush that was that first
 * request waits, as its retry, for the refused id, refused on a context
 * the target had not taken yet. It is settled all the same.
 */
Test(ses_rdmo_flush, flush_first_to_a_target_retried_for_its_generation)
{
	struct ses_iov fiov;
	struct ses_wre fl;
	struct ses_stats st;

	a.gen[T_RI] = 5;	/* b's table is at 0 */
	t_flush_wre(&fl, &fiov);
	t_ok(t_run_one(&a, &fl));
	ses_stats_get(a.s, &st);
	cr_assert_eq(st.gen_retries, 1);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rdmo_flush_expired, 0);
	cr_assert_eq(ses_peer_is_idle(b.s, a.id), true);
}

/* Refused before anything of a's was taken: the flush after is not held. */
Test(ses_rdmo_flush, flush_after_refusals_on_a_new_context)
{
	struct ses_wre wr[4], fl;
	struct ses_iov iov[4], fiov;
	uint8_t d[64] = { 1 };
	struct ses_stats st;

	a.tx_cnt = 0;
	for (unsigned i = 0; i < 4; i++) {
		t_write_wre(&wr[i], &iov[i], d, sizeof(d), 0x9999, 0);
		cr_assert_eq(ses_wre_post(a.s, &wr[i]), 0);
	}
	t_flush_wre(&fl, &fiov);
	cr_assert_eq(ses_wre_post(a.s, &fl), 0);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 5, "%u completions: the flush is held",
		     a.tx_cnt);
	for (unsigned i = 0; i < 4; i++)
		t_refused(a.tx[i].cpl, UET_SES_RC_BAD_MKEY);
	cr_assert_eq(a.tx[4].wre, &fl);
	t_ok(a.tx[4].cpl);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rdmo_flush_expired, 0);
}

#define T_FULL_APPENDS	100

/* Appends to a full queue, pipelined, then a flush: none holds it. */
Test(ses_rdmo_flush, flush_after_many_refused_appends)
{
	static struct ses_wre wr[T_FULL_APPENDS];
	static struct ses_iov iov[T_FULL_APPENDS];
	struct ses_wre ok, fl;
	struct ses_iov oiov, fiov;
	uint8_t d[16] = { 2 };
	struct ses_stats st;

	/* Something taken first: the target has a's history. */
	t_write_wre(&ok, &oiov, d, sizeof(d), T_RKEY_B, 0);
	t_ok(t_run_one(&a, &ok));
	words[5] = T_QLEN - 8;
	a.tx_cnt = 0;
	for (unsigned i = 0; i < T_FULL_APPENDS; i++) {
		t_append_wre(&wr[i], &iov[i], &dst_a, d, sizeof(d), T_RKEY_Q,
			     5, NULL, NULL);
		cr_assert_eq(ses_wre_post(a.s, &wr[i]), 0);
	}
	t_flush_wre(&fl, &fiov);
	cr_assert_eq(ses_wre_post(a.s, &fl), 0);
	t_wire_run(&w, 1000000);
	cr_assert_eq(a.tx_total, 1 + T_FULL_APPENDS + 1,
		     "%u completions: the flush is held", a.tx_total);
	cr_assert_eq(words[5], T_QLEN - 8);
	ses_stats_get(b.s, &st);
	cr_assert_eq(st.rdmo_flush_expired, 0);
	cr_assert_eq(ses_peer_is_idle(b.s, a.id), true);
}

/*
 * A request refused on a later context (not a's until one of its requests
 * is taken) with the id a's held flush waits for settles nothing of a's.
 */
Test(ses_rdmo_flush, refusal_on_a_later_context_settles_nothing)
{
	uint8_t d[64], buf[512], out[UET_SES_RSP_LEN];
	struct ses_wre wr, fl;
	struct ses_iov iov, fiov;
	struct ses_rsp_hdr rsp;
	struct ses_std_hdr h;
	struct t_pkt held[1];
	ssize_t n;

	memset(d, 0x3C, sizeof(d));
	a.tx_cnt = 0;
	t_write_wre(&wr, &iov, d, sizeof(d), T_RKEY_B, 0);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	t_flush_wre(&fl, &fiov);
	cr_assert_eq(ses_wre_post(a.s, &fl), 0);
	cr_assert_eq(t_hold_reqs(UET_SES_OP_WRITE, held, 1), 1);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 0);
	/* The write's id, refused on context 7. */
	cr_assert_lt(held[0].len, sizeof(buf));
	memcpy(buf, held[0].buf, held[0].len);
	cr_assert_gt(ses_std_hdr_decode(&h, buf, held[0].len), 0);
	h.memory_key = 0x9999;
	cr_assert_gt(ses_std_hdr_encode(buf, sizeof(buf), &h), 0);
	n = ses_rx_req(b.s, &(struct ses_rx_pkt){ .peer = a.id, .pdc = 7,
			.next_hdr = held[0].next_hdr, .buf = buf,
			.len = held[0].len, .now_ns = w.now_ns },
		       out, sizeof(out));
	cr_assert_gt(n, 0);
	cr_assert_gt(ses_rsp_hdr_decode(&rsp, out, (size_t)n), 0);
	cr_assert_eq(rsp.return_code, UET_SES_RC_BAD_MKEY);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 0, "the flush was answered for another's");
	cr_assert_eq(ses_peer_is_idle(b.s, a.id), false);
	/* The write itself: then the flush. */
	t_wire_deliver(&w, &held[0]);
	t_pkt_free(&held[0]);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 2);
	t_ok(a.tx[0].cpl);
	t_ok(a.tx[1].cpl);
	cr_assert_eq(memcmp(mb, d, sizeof(d)), 0);
}

/*
 * The RI table's generation changes (a region of the table removed) while
 * an append of several packets arrives: its room was reserved with its
 * first packet, so it completes there, once; a retry under a new id would
 * reserve again and leave the first room half written.
 */
Test(ses_rdmo_flush, append_of_several_packets_across_a_generation_change)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	static uint8_t big[3000];
	struct t_pkt held[4];
	struct ses_iov iov, riov;
	struct ses_wre wr;
	uint64_t r = 0;
	size_t n;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 11 + 3);
	words[6] = 64;
	a.tx_cnt = 0;
	t_append_wre(&wr, &iov, &dst_a, big, sizeof(big), T_RKEY_Q, 6, &r,
		     &riov);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	/* The first packet in; the others wait. */
	n = t_hold_reqs(UET_SES_OP_RDMO_APPEND, held, 4);
	cr_assert_eq(n, 3);
	t_wire_deliver(&w, &held[0]);
	t_pkt_free(&held[0]);
	cr_assert_eq(words[6], 64 + sizeof(big), "room reserved");
	cr_assert_eq(ses_mr_remove(b.s, &id, T_RKEY_RO), 0);
	for (size_t i = 1; i < n; i++) {
		t_wire_deliver(&w, &held[i]);
		t_pkt_free(&held[i]);
	}
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 1);
	t_ok(a.tx[0].cpl);
	cr_assert_eq(r, 64);
	cr_assert_eq(words[6], 64 + sizeof(big), "reserved twice: %lu",
		     (unsigned long)words[6]);
	cr_assert_eq(memcmp(q + 64, big, sizeof(big)), 0);
}

/*
 * Its data region replaced while an append of several packets arrives:
 * the rest is refused (the room was another region's), not sent again to
 * be reserved a second time, and nothing lands in the new region.
 */
Test(ses_rdmo_flush, append_of_several_packets_its_region_replaced)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	static uint8_t big[3000], other[T_QLEN];
	struct t_pkt held[4];
	struct ses_iov iov, riov;
	struct ses_wre wr;
	uint64_t r = 0;
	size_t n;

	memset(big, 0x6B, sizeof(big));
	memset(other, 0, sizeof(other));
	words[7] = 128;
	a.tx_cnt = 0;
	t_append_wre(&wr, &iov, &dst_a, big, sizeof(big), T_RKEY_Q, 7, &r,
		     &riov);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	n = t_hold_reqs(UET_SES_OP_RDMO_APPEND, held, 4);
	cr_assert_eq(n, 3);
	t_wire_deliver(&w, &held[0]);
	t_pkt_free(&held[0]);
	cr_assert_eq(ses_mr_replace(b.s, &id, T_RKEY_Q, other, T_QLEN,
				    SES_ACCESS_REMOTE_WRITE |
				    SES_ACCESS_REMOTE_READ), 0);
	for (size_t i = 1; i < n; i++) {
		t_wire_deliver(&w, &held[i]);
		t_pkt_free(&held[i]);
	}
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 1);
	t_refused(a.tx[0].cpl, UET_SES_RC_BAD_MKEY);
	cr_assert_eq(words[7], 128 + sizeof(big), "reserved once");
	for (size_t i = 0; i < T_QLEN; i++)
		cr_assert_eq(other[i], 0, "byte %zu of the new region", i);
}

/* ---- a flush and the generation retries of what came before it ---------- */
static struct ses_wre t_gw, t_gf;
static uint8_t t_gd[200];
static bool t_gf_done, t_gf_saw_data, t_gw_done;

static void t_gen_hook(struct t_node *n, const struct ses_wre *wre,
		       const struct ses_tx_cpl *cpl)
{
	(void)n;
	cr_assert_eq(cpl->status, 0, "rc %s", ses_rc_name(cpl->rc));
	if (wre == &t_gw)
		t_gw_done = true;
	if (wre == &t_gf) {
		t_gf_done = true;
		t_gf_saw_data = !memcmp(mb + 512, t_gd, sizeof(t_gd));
	}
}

/*
 * The RI generation moves while a write and a flush are on their way:
 * the flush, refused first, is sent again, and held for the write; the
 * write, refused then, is sent again under an id after the flush's. The
 * flush must still complete only once the write's data is in place.
 */
Test(ses_rdmo_flush, flush_waits_for_a_generation_retry_of_an_earlier_write)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	struct ses_iov iov, fiov;
	struct t_pkt held[1];

	memset(t_gd, 0x4D, sizeof(t_gd));
	t_gf_done = t_gf_saw_data = t_gw_done = false;
	a.tx_hook = t_gen_hook;
	t_write_wre(&t_gw, &iov, t_gd, sizeof(t_gd), T_RKEY_B, 512);
	cr_assert_eq(ses_wre_post(a.s, &t_gw), 0);
	t_flush_wre(&t_gf, &fiov);
	cr_assert_eq(ses_wre_post(a.s, &t_gf), 0);
	cr_assert_eq(t_hold_reqs(UET_SES_OP_WRITE, held, 1), 1);
	cr_assert_eq(ses_mr_remove(b.s, &id, T_RKEY_RO), 0);
	t_wire_run(&w, 100000);
	cr_assert(!t_gf_done, "the flush completed with the write unseen");
	t_wire_deliver(&w, &held[0]);
	t_pkt_free(&held[0]);
	t_wire_run(&w, 100000);
	cr_assert(t_gw_done && t_gf_done);
	cr_assert(t_gf_saw_data, "the flush completed before the write's "
		  "retry had placed its data");
}

/*
 * A write of several packets, its first taken and the rest refused for a
 * generation that moved meanwhile: the initiator sends it all again under
 * a new id and frees the old one, which comes back after S ids (1024
 * here, as in the engine). The target must not keep the old message's
 * partial state for it until rx_idle_ns: the message that next has the
 * id would be refused as not the same (RC_OP_VIOLATION).
 */
Test(ses_rdmo_flush, generation_retry_leaves_no_partial_message)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	static uint8_t big[3000], d[8];
	struct ses_iov iov;
	struct ses_wre wr;
	struct t_pkt held[4];
	size_t n;

	t_teardown();
	t_setup_bits(UET_FEP_EP_BITS);
	memset(big, 0x2F, sizeof(big));
	a.tx_cnt = 0;
	t_write_wre(&wr, &iov, big, sizeof(big), T_RKEY_B, 0);
	cr_assert_eq(ses_wre_post(a.s, &wr), 0);
	n = t_hold_reqs(UET_SES_OP_WRITE, held, 4);
	cr_assert_eq(n, 3);
	t_wire_deliver(&w, &held[0]);
	cr_assert_eq(ses_mr_remove(b.s, &id, T_RKEY_RO), 0);
	for (size_t i = 1; i < n; i++)
		t_wire_deliver(&w, &held[i]);
	for (size_t i = 0; i < n; i++)
		t_pkt_free(&held[i]);
	t_wire_run(&w, 100000);
	cr_assert_eq(a.tx_cnt, 1);
	t_ok(a.tx[0].cpl);
	cr_assert_eq(memcmp(mb, big, sizeof(big)), 0);
	/* Once round the ids, and past: every write its own. */
	for (unsigned i = 0; i < 1100; i++) {
		memset(d, (uint8_t)i, sizeof(d));
		t_write_wre(&wr, &iov, d, sizeof(d), T_RKEY_B, 3200);
		t_ok(t_run_one(&a, &wr));
		cr_assert_eq(mb[3200], (uint8_t)i);
	}
}

/*
 * A scatter of several packets refused at its first (one piece's key is
 * wrong): its other packets, which wait for the first while it has not
 * come, must be answered too once it was refused, or PDC sends them
 * again until it gives the peer up.
 */
Test(ses_rdmo_flush, scatter_of_several_packets_refused_leaves_nothing_waiting)
{
	struct ses_rdmo_piece pcs[20];
	static uint8_t data[20 * 150];
	static struct t_scatter sc;
	struct ses_iov iov;
	struct ses_wre wr;
	uint8_t d[8] = { 9 };

	for (unsigned i = 0; i < 20; i++)
		pcs[i] = (struct ses_rdmo_piece){ T_RKEY_B, i * 200, 150 };
	pcs[7].memory_key = 0x9999;
	memset(data, 0x33, sizeof(data));
	t_scatter_wre(&sc, &dst_a, pcs, 20, data);
	t_refused(t_run_one(&a, &sc.wr), UET_SES_RC_BAD_MKEY);
	cr_assert_eq(w.q_cnt, 0, "%zu packets still going round (%u not "
		     "taken)", w.q_cnt, w.eagain_cnt);
	for (size_t i = 0; i < T_BLEN; i++)
		cr_assert_eq(mb[i], 0, "byte %zu written", i);
	/* And the peer goes on. */
	t_write_wre(&wr, &iov, d, sizeof(d), T_RKEY_B, 0);
	t_ok(t_run_one(&a, &wr));
}
