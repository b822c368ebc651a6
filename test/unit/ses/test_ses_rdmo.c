/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Remote memory operations (ses_rdmo.c) between engines over the in-memory
 * wire: appends from two initiators pipelined into one queue over a wire
 * that reorders and duplicates (every one once, at its returned offset);
 * appends of several packets; the pointer biased as under FI_MR_VIRT_ADDR;
 * scatters of one and several packets landing exactly; refusals (keys,
 * access, ranges, alignment) that move no pointer and write no byte; a
 * flush answered only once what came before it is in memory, not held by
 * a refused message, and given up when an earlier one never comes.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_ses_wire.h"
#include "uet_fep.h"

#define T_JOB		7
#define T_PID		2
#define T_RI		0x00a
#define T_RKEY_Q	0x1111ull	/* the queue's data */
#define T_RKEY_PTR	0x2222ull	/* its pointer (and other words) */
#define T_RKEY_B	0x3333ull	/* scatter target */
#define T_RKEY_RO	0x4444ull	/* remote read only */
#define T_QLEN		(64 * 1024)
#define T_BLEN		4096

static struct t_wire w;
static struct t_node a, b, c;
static struct ses_addr dst_a, dst_c;
static _Alignas(64) uint8_t q[T_QLEN];
static _Alignas(64) uint64_t words[64];
static _Alignas(64) uint8_t mb[T_BLEN];
static _Alignas(64) uint8_t ro[T_BLEN];

/* Message ids of |prefix_bits| prefix bits (0: the whole 16 bits). */
static void t_setup_bits(uint8_t prefix_bits)
{
	struct ses_ri_id id = { T_JOB, T_PID, T_RI };
	uint32_t rw = SES_ACCESS_REMOTE_WRITE | SES_ACCESS_REMOTE_READ;
	struct ses_config cfg;

	t_wire_init(&w, 11);
	ses_config_init(&cfg);
	cfg.msg_id_prefix_bits = prefix_bits;
	cfg.payload_mtu = 1024;
	cfg.job_id = T_JOB;
	cfg.initiator = 1;
	t_node_init(&w, &a, 1, &cfg);
	cfg.initiator = 2;
	t_node_init(&w, &b, 2, &cfg);
	cfg.initiator = 3;
	t_node_init(&w, &c, 3, &cfg);
	memset(q, 0, sizeof(q));
	memset(words, 0, sizeof(words));
	memset(mb, 0, sizeof(mb));
	memset(ro, 0, sizeof(ro));
	cr_assert_eq(ses_ri_add(b.s, &id, 0), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY_Q, q, T_QLEN, rw), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY_PTR, words, sizeof(words),
				rw), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY_B, mb, T_BLEN,
				SES_ACCESS_REMOTE_WRITE), 0);
	cr_assert_eq(ses_mr_add(b.s, &id, T_RKEY_RO, ro, T_BLEN,
				SES_ACCESS_REMOTE_READ), 0);
	t_addr(&dst_a, 2, T_JOB, T_PID);
	t_addr(&dst_c, 2, T_JOB, T_PID);
}

static void t_setup(void)
{
	t_setup_bits(0);
}

static void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_node_fini(&c);
	t_wire_fini(&w);
}

TestSuite(ses_rdmo, .init = t_setup, .fini = t_teardown, .timeout = 60);

/* An append WRE of |buf| to the queue whose pointer is words[|word|]. */
static void t_append_wre(struct ses_wre *wr, struct ses_iov *iov,
			 const struct ses_addr *d, const void *buf, size_t len,
			 uint64_t data_key, unsigned word, uint64_t *res,
			 struct ses_iov *riov)
{
	t_wre(wr, UET_SES_OP_RDMO_APPEND, d, iov, (void *)buf, len);
	wr->ri = T_RI;
	wr->mkey = data_key;
	wr->rdmo_ptr_mkey = T_RKEY_PTR;
	wr->rdmo_ptr_offset = word * sizeof(uint64_t);
	if (res) {
		*riov = (struct ses_iov){ res, sizeof(*res), NULL };
		wr->res_iov = riov;
		wr->res_iov_cnt = 1;
	}
}

static struct ses_tx_cpl t_run_one(struct t_node *n, struct ses_wre *wr)
{
	n->tx_cnt = 0;
	cr_assert_eq(ses_wre_post(n->s, wr), 0);
	t_wire_run(&w, 100000);
	cr_assert_eq(n->tx_cnt, 1, "no completion");
	return n->tx[0].cpl;
}

static void t_ok(struct ses_tx_cpl cpl)
{
	cr_assert_eq(cpl.status, 0, "status %d rc %s", cpl.status,
		     ses_rc_name(cpl.rc));
}

static void t_refused(struct ses_tx_cpl cpl, uint8_t rc)
{
	cr_assert_eq(cpl.status, -EREMOTEIO);
	cr_assert_eq(cpl.rc, rc, "rc %s, not %s", ses_rc_name(cpl.rc),
		     ses_rc_name(rc));
}

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

/* A scatter WRE: |n| pieces, data |data| (their lengths summed). */
struct t_scatter {
	struct ses_wre wr;
	struct ses_iov iov[2];
	uint8_t table[64 * UET_SES_RDMO_PIECE_LEN];
};

static void t_scatter_wre(struct t_scatter *sc, const struct ses_addr *d,
			  const struct ses_rdmo_piece *pcs, unsigned n,
			  const void *data)
{
	size_t len = 0;

	for (unsigned i = 0; i < n; i++) {
		ses_rdmo_piece_encode(sc->table + i * UET_SES_RDMO_PIECE_LEN,
				      &pcs[i]);
		len += pcs[i].length;
	}
	memset(&sc->wr, 0, sizeof(sc->wr));
	sc->iov[0] = (struct ses_iov){ sc->table,
				       n * UET_SES_RDMO_PIECE_LEN, NULL };
	sc->iov[1] = (struct ses_iov){ (void *)data, len, NULL };
	sc->wr.opcode = UET_SES_OP_RDMO_SCATTER;
	sc->wr.dst = d;
	sc->wr.ri = T_RI;
	sc->wr.iov = sc->iov;
	sc->wr.iov_cnt = 2;
	sc->wr.rdmo_pieces = n;
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

/* ---- flush ------------------------------------------------------------- */
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

Test(ses_rdmo, flush_answers_after_earlier_data_is_in)
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

Test(ses_rdmo, flush_at_once_when_nothing_is_outstanding)
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
Test(ses_rdmo, flush_not_held_by_a_refused_message)
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

Test(ses_rdmo, flush_given_up_when_an_earlier_message_never_comes)
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
Test(ses_rdmo, flush_first_to_a_target_retried_for_its_generation)
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
Test(ses_rdmo, flush_after_refusals_on_a_new_context)
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
Test(ses_rdmo, flush_after_many_refused_appends)
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
Test(ses_rdmo, refusal_on_a_later_context_settles_nothing)
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
Test(ses_rdmo, append_of_several_packets_across_a_generation_change)
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
Test(ses_rdmo, append_of_several_packets_its_region_replaced)
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
Test(ses_rdmo, flush_waits_for_a_generation_retry_of_an_earlier_write)
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
Test(ses_rdmo, generation_retry_leaves_no_partial_message)
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
Test(ses_rdmo, scatter_of_several_packets_refused_leaves_nothing_waiting)
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
