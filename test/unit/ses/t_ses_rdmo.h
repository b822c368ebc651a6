/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the remote memory operation tests (test_ses_rdmo.c,
 * test_ses_rdmo_flush.c): initiators a and c and target b on an in-memory
 * wire, b's queue, pointer words and scatter regions, and the WREs and
 * completion checks the tests share. Each file that includes it has a
 * fixture of its own.
 */
#ifndef T_SES_RDMO_H
#define T_SES_RDMO_H

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
static inline void t_setup_bits(uint8_t prefix_bits)
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

static inline void t_setup(void)
{
	t_setup_bits(0);
}

static inline void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_node_fini(&c);
	t_wire_fini(&w);
}

/* An append WRE of |buf| to the queue whose pointer is words[|word|]. */
static inline void t_append_wre(struct ses_wre *wr, struct ses_iov *iov,
				const struct ses_addr *d, const void *buf,
				size_t len, uint64_t data_key, unsigned word,
				uint64_t *res, struct ses_iov *riov)
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

static inline struct ses_tx_cpl t_run_one(struct t_node *n,
					  struct ses_wre *wr)
{
	n->tx_cnt = 0;
	cr_assert_eq(ses_wre_post(n->s, wr), 0);
	t_wire_run(&w, 100000);
	cr_assert_eq(n->tx_cnt, 1, "no completion");
	return n->tx[0].cpl;
}

static inline void t_ok(struct ses_tx_cpl cpl)
{
	cr_assert_eq(cpl.status, 0, "status %d rc %s", cpl.status,
		     ses_rc_name(cpl.rc));
}

static inline void t_refused(struct ses_tx_cpl cpl, uint8_t rc)
{
	cr_assert_eq(cpl.status, -EREMOTEIO);
	cr_assert_eq(cpl.rc, rc, "rc %s, not %s", ses_rc_name(cpl.rc),
		     ses_rc_name(rc));
}

/* A scatter WRE: |n| pieces, data |data| (their lengths summed). */
struct t_scatter {
	struct ses_wre wr;
	struct ses_iov iov[2];
	uint8_t table[64 * UET_SES_RDMO_PIECE_LEN];
};

static inline void t_scatter_wre(struct t_scatter *sc,
				 const struct ses_addr *d,
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

#endif /* T_SES_RDMO_H */
