/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the rendezvous tests (test_ses_rdv.c, test_ses_rdv_dead.c,
 * test_ses_rdv_flap.c): sender a and target b on an in-memory wire, b with
 * a tagged message RI and a a rendezvous RI its READs come to, the
 * sender's buffer |src| and the receiver's |sink|, and the sends, receives
 * and clock ticks the tests share. Each file that includes it has a
 * fixture of its own; struct t_rdv_opts says where the files differ.
 */
#ifndef T_SES_RDV_H
#define T_SES_RDV_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_ses_wire.h"

#define T_JOB		7
#define T_RI_MSG	0x002
#define T_RI_RDV	0x100
#define T_BIG		100000		/* bytes of |src|: a large send */
#define T_MS		1000000ull

static struct t_wire w;
static struct t_node a, b;
static struct ses_addr to_b;
static uint8_t *src, *sink;

struct t_rdv_opts {
	uint64_t seed;			/* the wire's */
	uint32_t eager_len;		/* rdv_eager_len */
	/* b keeps no more of an unexpected message than its eager bytes. */
	bool b_eager_only;
	uint32_t b_max_msgs;		/* 0: ses_config_init's */
	size_t sink_len;		/* at least T_BIG */
	/* src[i] = i * src_mul + (i >> src_shift) */
	unsigned src_mul, src_shift;
	uint64_t start_ns;		/* the wire's clock at start */
	/* a's rdv_threshold and rdv_pull_threshold; 0: ses_config_init's */
	uint32_t rdv_threshold, rdv_pull_threshold;
};

static inline void t_rdv_setup(const struct t_rdv_opts *o)
{
	struct ses_ri_id msg = { T_JOB, 3, T_RI_MSG };
	struct ses_config cfg;

	cr_assert_geq(o->sink_len, T_BIG);
	t_wire_init(&w, o->seed);
	ses_config_init(&cfg);
	cfg.payload_mtu = 4096;
	cfg.job_id = T_JOB;
	cfg.pid_on_fep = 1;
	cfg.initiator = 1;
	cfg.rdv_ri = T_RI_RDV;
	cfg.rdv_eager_len = o->eager_len;
	if (o->rdv_threshold)
		cfg.rdv_threshold = o->rdv_threshold;
	if (o->rdv_pull_threshold)
		cfg.rdv_pull_threshold = o->rdv_pull_threshold;
	t_node_init(&w, &a, 1, &cfg);
	cfg.pid_on_fep = 3;
	cfg.initiator = 2;
	if (o->b_eager_only)
		cfg.max_unexpected_len = o->eager_len;
	if (o->b_max_msgs)
		cfg.max_msgs = o->b_max_msgs;
	t_node_init(&w, &b, 2, &cfg);
	cr_assert_eq(ses_ri_add(b.s, &msg, SES_RI_F_MSG), 0);
	t_addr(&to_b, 2, T_JOB, 3);
	src = malloc(T_BIG);
	sink = malloc(o->sink_len);
	cr_assert(src && sink);
	for (size_t i = 0; i < T_BIG; i++)
		src[i] = (uint8_t)(i * o->src_mul + (i >> o->src_shift));
	memset(sink, 0xC5, o->sink_len);
	w.now_ns = o->start_ns;
}

static inline void t_teardown(void)
{
	t_node_fini(&a);
	t_node_fini(&b);
	t_wire_fini(&w);
	free(src);
	free(sink);
}

/* a posts a tagged send of |len| bytes of |buf| to b's message RI. */
static inline void t_send_from(struct ses_wre *wr, struct ses_iov *iov,
			       uint8_t *buf, size_t len, uint64_t tag)
{
	t_wre(wr, UET_SES_OP_TAGGED_SEND, &to_b, iov, buf, len);
	wr->ri = T_RI_MSG;
	wr->tag = tag;
	cr_assert_eq(ses_wre_post(a.s, wr), 0);
}

/* The same, of the first |len| bytes of src. */
static inline void t_send(struct ses_wre *wr, struct ses_iov *iov,
			  size_t len, uint64_t tag)
{
	t_send_from(wr, iov, src, len, tag);
}

/* b posts a tagged receive of |tag| into |buf|, from anyone. */
static inline void t_recv_at(uint8_t *buf, size_t len, uint64_t tag,
			     void *ctx)
{
	struct ses_iov iov = { buf, len, NULL };
	struct ses_recv_attr ra = { .iov = &iov, .iov_cnt = 1, .tag = tag,
				    .initiator = SES_INITIATOR_ANY,
				    .flags = SES_RECV_F_TAGGED,
				    .user_ctx = ctx };

	cr_assert_eq(ses_recv_post(b.s, &ra), 0);
}

/* The same into sink, its context sink. */
static inline void t_recv(size_t len, uint64_t tag)
{
	t_recv_at(sink, len, tag, sink);
}

/* The clock moves on by |ms|; every node's progress sees it. */
static inline void t_tick(uint64_t ms)
{
	w.now_ns += ms * T_MS;
	for (unsigned n = 0; n < w.n; n++)
		ses_progress(w.nodes[n]->s, w.now_ns);
}

#endif /* T_SES_RDV_H */
