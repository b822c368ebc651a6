/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Remote memory operations (ses_rdmo.c) between engines over the in-memory
 * wire: appends from two initiators pipelined into one queue over a wire
 * that reorders and duplicates (every one once, at its returned offset);
 * appends of several packets; the pointer biased as under FI_MR_VIRT_ADDR;
 * scatters of one and several packets landing exactly; refusals (keys,
 * access, ranges, alignment) that move no pointer and write no byte. The
 * flush is in test_ses_rdmo_flush.c, the fixture in t_ses_rdmo.h.
 */
#include "t_ses_rdmo.h"

TestSuite(ses_rdmo, .init = t_setup, .fini = t_teardown, .timeout = 60);

Test(ses_rdmo, append_returns_old_pointer_and_places)
{
	uint8_t d1[24], d2[40];
	uint64_t r1 = 99, r2 = 99;
	struct ses_iov iov, riov;
	struct ses_wre wr;

	memset(d1, 0xA1, sizeof(d1));
	memset(d2, 0xB2, sizeof(d2));
	words[0] = 100;
	t_append_wre(&wr, &iov, &dst_a, d1, sizeof(d1), T_RKEY_Q, 0, &r1,
		     &riov);
	t_ok(t_run_one(&a, &wr));
	t_append_wre(&wr, &iov, &dst_a, d2, sizeof(d2), T_RKEY_Q, 0, &r2,
		     &riov);
	t_ok(t_run_one(&a, &wr));
	cr_assert_eq(r1, 100);
	cr_assert_eq(r2, 124);
	cr_assert_eq(words[0], 164);
	cr_assert_eq(memcmp(q + 100, d1, sizeof(d1)), 0);
	cr_assert_eq(memcmp(q + 124, d2, sizeof(d2)), 0);
	cr_assert_eq(q[99], 0);
	cr_assert_eq(q[164], 0);
	/* One write event, for the data, where it went. */
	cr_assert_eq(b.rma_cnt, 2);
	cr_assert_eq(b.rma[1].opcode, UET_SES_OP_RDMO_APPEND);
	cr_assert_eq(b.rma[1].offset, 124);
	cr_assert_eq(b.rma[1].len, sizeof(d2));
}

Test(ses_rdmo, append_without_result_and_of_several_packets)
{
	static uint8_t big[5000];
	struct ses_iov iov, riov;
	struct ses_wre wr;
	uint64_t r = 0;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 1);
	words[1] = 8;
	w.reorder = true;
	t_append_wre(&wr, &iov, &dst_a, big, 3000, T_RKEY_Q, 1, NULL, NULL);
	t_ok(t_run_one(&a, &wr));
	cr_assert_eq(a.tx[0].cpl.modified_len, 3000);
	t_append_wre(&wr, &iov, &dst_a, big, sizeof(big), T_RKEY_Q, 1, &r,
		     &riov);
	t_ok(t_run_one(&a, &wr));
	cr_assert_eq(r, 3008);
	cr_assert_eq(words[1], 8 + 3000 + sizeof(big));
	cr_assert_eq(memcmp(q + 8, big, 3000), 0);
	cr_assert_eq(memcmp(q + 3008, big, sizeof(big)), 0);
}

/* As under FI_MR_VIRT_ADDR: the pointer holds an address, less the bias. */
Test(ses_rdmo, append_pointer_biased)
{
	uint64_t base = 0x7f0000001000ull, r = 0;
	uint32_t v = 0xC0FFEE;
	struct ses_iov iov, riov;
	struct ses_wre wr;

	words[2] = base + 512;
	t_append_wre(&wr, &iov, &dst_a, &v, sizeof(v), T_RKEY_Q, 2, &r, &riov);
	wr.rdmo_data_bias = base;
	t_ok(t_run_one(&a, &wr));
	cr_assert_eq(r, base + 512);
	cr_assert_eq(words[2], base + 516);
	cr_assert_eq(memcmp(q + 512, &v, sizeof(v)), 0);
}

#define T_PIPE		200	/* appends per initiator */

struct t_pipe {
	struct ses_wre wr[T_PIPE];
	struct ses_iov iov[T_PIPE], riov[T_PIPE];
	uint64_t res[T_PIPE];
	uint8_t data[T_PIPE][48];
	unsigned done;
};

static struct t_pipe pa, pc;

static void t_pipe_hook(struct t_node *n, const struct ses_wre *wre,
			const struct ses_tx_cpl *cpl)
{
	struct t_pipe *p = n == &a ? &pa : &pc;

	(void)wre;
	cr_assert_eq(cpl->status, 0, "rc %s", ses_rc_name(cpl->rc));
	p->done++;
}

/* Length of append |i| of initiator |who|: 8..48, multiples of 4. */
static size_t t_pipe_len(unsigned who, unsigned i)
{
	return 8 + (size_t)((i * 5 + who * 3) % 11) * 4;
}

static void t_pipe_post(struct t_node *n, struct t_pipe *p, unsigned who,
			unsigned i)
{
	size_t len = t_pipe_len(who, i);

	memset(p->data[i], 0, sizeof(p->data[i]));
	/* Each append says who wrote it and which it is. */
	p->data[i][0] = (uint8_t)who;
	memcpy(p->data[i] + 1, &i, sizeof(i));
	memset(p->data[i] + 5, (uint8_t)(0x40 + who), len - 5);
	t_append_wre(&p->wr[i], &p->iov[i], who == 1 ? &dst_a : &dst_c,
		     p->data[i], len, T_RKEY_Q, 3, &p->res[i], &p->riov[i]);
	cr_assert_eq(ses_wre_post(n->s, &p->wr[i]), 0);
}

Test(ses_rdmo, two_initiators_pipelined_never_overlap)
{
	uint64_t total = 0, seen = 0;
	static uint8_t owner[T_QLEN];

	memset(&pa, 0, sizeof(pa));
	memset(&pc, 0, sizeof(pc));
	memset(owner, 0, sizeof(owner));
	a.tx_hook = c.tx_hook = t_pipe_hook;
	w.reorder = true;
	w.dup_pct = 10;
	/* All posted before any answer: nothing waits between appends. */
	for (unsigned i = 0; i < T_PIPE; i++) {
		t_pipe_post(&a, &pa, 1, i);
		t_pipe_post(&c, &pc, 3, i);
		total += t_pipe_len(1, i) + t_pipe_len(3, i);
	}
	t_wire_run(&w, 1000000);
	cr_assert_eq(pa.done, T_PIPE);
	cr_assert_eq(pc.done, T_PIPE);
	cr_assert_eq(words[3], total, "pointer %lu, appended %lu",
		     (unsigned long)words[3], (unsigned long)total);
	/* Every append at its returned offset, and none over another. */
	for (unsigned who = 1; who <= 3; who += 2) {
		struct t_pipe *p = who == 1 ? &pa : &pc;

		for (unsigned i = 0; i < T_PIPE; i++) {
			size_t len = t_pipe_len(who, i);

			cr_assert_lt(p->res[i] + len, (uint64_t)T_QLEN + 1);
			cr_assert_eq(memcmp(q + p->res[i], p->data[i], len), 0,
				     "append %u of %u not at %lu", i, who,
				     (unsigned long)p->res[i]);
			for (size_t k = 0; k < len; k++) {
				cr_assert_eq(owner[p->res[i] + k], 0,
					     "overlap at %lu",
					     (unsigned long)(p->res[i] + k));
				owner[p->res[i] + k] = 1;
			}
			seen += len;
		}
	}
	cr_assert_eq(seen, total);
}

Test(ses_rdmo, append_refusals_move_nothing)
{
	struct ses_iov iov, riov;
	struct ses_wre wr;
	uint8_t d[16];
	uint64_t r = 7;

	memset(d, 0x5A, sizeof(d));
	words[4] = 64;
	/* Data key unknown. */
	t_append_wre(&wr, &iov, &dst_a, d, sizeof(d), 0x9999, 4, &r, &riov);
	t_refused(t_run_one(&a, &wr), UET_SES_RC_BAD_MKEY);
	/* Pointer key unknown. */
	t_append_wre(&wr, &iov, &dst_a, d, sizeof(d), T_RKEY_Q, 4, &r, &riov);
	wr.rdmo_ptr_mkey = 0x9999;
	t_refused(t_run_one(&a, &wr), UET_SES_RC_BAD_MKEY);
	/* Data region not writable. */
	t_append_wre(&wr, &iov, &dst_a, d, sizeof(d), T_RKEY_RO, 4, &r, &riov);
	t_refused(t_run_one(&a, &wr), UET_SES_RC_PERM_VIOLATION);
	/* Pointer region not readable. */
	t_append_wre(&wr, &iov, &dst_a, d, sizeof(d), T_RKEY_Q, 4, &r, &riov);
	wr.rdmo_ptr_mkey = T_RKEY_B;
	t_refused(t_run_one(&a, &wr), UET_SES_RC_PERM_VIOLATION);
	/* Pointer outside its region, then not aligned. */
	t_append_wre(&wr, &iov, &dst_a, d, sizeof(d), T_RKEY_Q, 64, &r, &riov);
	t_refused(t_run_one(&a, &wr), UET_SES_RC_BAD_ADDR);
	t_append_wre(&wr, &iov, &dst_a, d, sizeof(d), T_RKEY_Q, 4, &r, &riov);
	wr.rdmo_ptr_offset = 4 * sizeof(uint64_t) + 4;
	t_refused(t_run_one(&a, &wr), UET_SES_RC_AMO_UNALIGNED);
	/* The queue full: the data would run past the region. */
	words[4] = T_QLEN - 8;
	t_append_wre(&wr, &iov, &dst_a, d, sizeof(d), T_RKEY_Q, 4, &r, &riov);
	t_refused(t_run_one(&a, &wr), UET_SES_RC_BAD_ADDR);
	cr_assert_eq(words[4], T_QLEN - 8);
	cr_assert_eq(r, 7, "no result on a refusal");
	for (size_t i = 0; i < T_QLEN; i++)
		cr_assert_eq(q[i], 0, "byte %zu written", i);
	cr_assert_eq(b.rma_cnt, 0);
	/* Exactly at the end fits. */
	words[4] = T_QLEN - 16;
	t_ok(t_run_one(&a, &wr));
	cr_assert_eq(r, T_QLEN - 16);
	cr_assert_eq(words[4], T_QLEN);
}

Test(ses_rdmo, scatter_one_packet_lands_exactly)
{
	struct ses_rdmo_piece pcs[3] = {
		{ T_RKEY_B, 100, 10 }, { T_RKEY_Q, 7, 5 }, { T_RKEY_B, 4000, 96 },
	};
	static uint8_t data[111];
	static struct t_scatter sc;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i + 1);
	t_scatter_wre(&sc, &dst_a, pcs, 3, data);
	t_ok(t_run_one(&a, &sc.wr));
	cr_assert_eq(a.tx[0].cpl.modified_len, 111);
	cr_assert_eq(memcmp(mb + 100, data, 10), 0);
	cr_assert_eq(memcmp(q + 7, data + 10, 5), 0);
	cr_assert_eq(memcmp(mb + 4000, data + 15, 96), 0);
	cr_assert(mb[99] == 0 && mb[110] == 0 && q[6] == 0 && q[12] == 0 &&
		  mb[3999] == 0);
	cr_assert_eq(b.rma_cnt, 3);
	cr_assert_eq(b.rma[1].rkey, T_RKEY_Q);
	cr_assert_eq(b.rma[1].offset, 7);
	cr_assert_eq(b.rma[1].len, 5);
}

/* Pieces across packet boundaries; first packets overtaken at times. */
Test(ses_rdmo, scatter_of_several_packets_lands_exactly)
{
	struct ses_rdmo_piece pcs[40];
	static uint8_t data[40 * 150];
	static uint8_t want_q[T_QLEN];
	static struct t_scatter sc;
	size_t off = 0;

	memset(want_q, 0, sizeof(want_q));
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 13 + 5);
	for (unsigned i = 0; i < 40; i++) {
		pcs[i] = (struct ses_rdmo_piece){ T_RKEY_Q, 1000 + i * 777,
						  50 + (i % 3) * 50 };
		memcpy(want_q + pcs[i].buffer_offset, data + off,
		       pcs[i].length);
		off += pcs[i].length;
	}
	w.reorder = true;
	w.dup_pct = 5;
	for (int round = 0; round < 5; round++) {
		t_scatter_wre(&sc, &dst_a, pcs, 40, data);
		t_ok(t_run_one(&a, &sc.wr));
		cr_assert_eq(a.tx[0].cpl.modified_len, off);
		cr_assert_eq(memcmp(q, want_q, T_QLEN), 0);
	}
	/* Some later packets did come before their first, and waited. */
	cr_assert_gt(w.eagain_cnt, 0);
}

Test(ses_rdmo, scatter_refusals_write_nothing)
{
	struct ses_rdmo_piece pcs[3] = {
		{ T_RKEY_B, 0, 8 }, { T_RKEY_Q, 0, 8 }, { T_RKEY_B, 64, 8 },
	};
	static uint8_t data[24], zero[T_BLEN];
	static struct t_scatter sc;

	memset(data, 0x77, sizeof(data));
	pcs[2].memory_key = 0x9999;
	t_scatter_wre(&sc, &dst_a, pcs, 3, data);
	t_refused(t_run_one(&a, &sc.wr), UET_SES_RC_BAD_MKEY);
	pcs[2].memory_key = T_RKEY_B;
	pcs[2].buffer_offset = T_BLEN - 4;
	t_scatter_wre(&sc, &dst_a, pcs, 3, data);
	t_refused(t_run_one(&a, &sc.wr), UET_SES_RC_BAD_ADDR);
	pcs[2] = (struct ses_rdmo_piece){ T_RKEY_RO, 0, 8 };
	t_scatter_wre(&sc, &dst_a, pcs, 3, data);
	t_refused(t_run_one(&a, &sc.wr), UET_SES_RC_PERM_VIOLATION);
	cr_assert_eq(memcmp(mb, zero, T_BLEN), 0);
	cr_assert_eq(memcmp(q, zero, T_BLEN), 0);
	cr_assert_eq(b.rma_cnt, 0);
}

Test(ses_rdmo, initiator_refuses_bad_wres)
{
	struct ses_rdmo_piece pc = { T_RKEY_B, 0, 8 };
	static struct t_scatter sc;
	struct ses_iov iov, riov;
	uint8_t d[8] = { 0 };
	struct ses_wre wr;
	uint64_t r;

	t_scatter_wre(&sc, &dst_a, &pc, 1, d);
	sc.iov[1].len = 7;	/* data shorter than its pieces */
	cr_assert_eq(ses_wre_post(a.s, &sc.wr), -EINVAL);
	t_scatter_wre(&sc, &dst_a, &pc, 1, d);
	sc.wr.rdmo_pieces = 0;
	cr_assert_eq(ses_wre_post(a.s, &sc.wr), -EINVAL);
	t_append_wre(&wr, &iov, &dst_a, d, sizeof(d), T_RKEY_Q, 0, &r, &riov);
	riov.len = 4;		/* the result is a uint64_t */
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
	t_wre(&wr, UET_SES_OP_RDMO_FLUSH, &dst_a, &iov, d, sizeof(d));
	cr_assert_eq(ses_wre_post(a.s, &wr), -EINVAL);
}
