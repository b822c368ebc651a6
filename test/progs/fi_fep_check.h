/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_fep_check's shared declarations: its options, endpoints, operations
 * and messages, and what fi_fep_check.c (helpers, set-up, completions,
 * side channel, main), fi_fep_check_srv.c (the server) and
 * fi_fep_check_cli.c (the client) call of each other.
 */
#ifndef FI_FEP_CHECK_H
#define FI_FEP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#define FEP_MAX_EPS	512
#define FEP_NAME_MAX	128
#define FEP_REGIONS	4
#define FEP_MSG_SLOT	131072		/* a receive buffer */
#define FEP_MAX_ROUNDS	32768
#define FEP_MAGIC	0xFE9C4EC4u
#define FEP_TAG_MAGIC	0xFE9ull
#define FEP_SHOW	3		/* mismatches printed per endpoint */

/* Region sizes: 1 byte, a page boundary crossed, 64 KiB, over 1 MiB. */
extern const size_t fep_region_len[FEP_REGIONS];
/* Tagged messages per round: eager and rendezvous (over 64 KiB). */
extern const size_t fep_msg_len[2];

enum fep_kind { FEP_WRITE, FEP_READ, FEP_SEND, FEP_RECV };
extern const char *const fep_kind_name[4];

struct fep_opts {
	char mode;		/* 's', 'c' or 'o' */
	const char *addr, *server, *service;
	int port, n, clients, limit_s, hold_s, rounds, run_s, x_ms, pid;
	long job;		/* -1: none */
	int x_rc, x_err;	/* -x */
	int g_rc, g_err;	/* -g */
	bool x, g;
};

struct fep_ep;

/* One operation; the libfabric context is its first member. */
struct fep_op {
	struct fi_context2 fctx;
	struct fep_ep *ep;
	enum fep_kind kind;
	int slot;		/* region or message slot */
	double t_post, t_done;
	bool busy;
	int err, prov_errno;
	char why[96];
};

struct fep_ep {
	int idx;
	struct fi_info *info;	/* its own (its own service), or NULL */
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_mr *mr;
	uint8_t *buf;
	void *desc;
	fi_addr_t peer;
	uint64_t raddr, rkey;	/* client: its server endpoint's buffer */
	char name[FEP_NAME_MAX];
	struct fep_op op[2 * FEP_REGIONS + 2];
	/* Server: what arrived from the current client, what it expects. */
	uint32_t msgs, bad;
	uint64_t msg_seed;
	uint8_t *seen;		/* 2 bits a round */
	bool written;
	uint64_t w_seed;
	uint32_t w_round;
};

struct fep {
	struct fep_opts o;
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fep_ep *ep;
	size_t off[FEP_REGIONS + 1];	/* region offsets; the area's end */
	size_t buf_len;
	int oob;
};

/* What the server publishes. */
struct fep_hello {
	uint32_t magic, n;
	struct {
		uint8_t name[FEP_NAME_MAX];
		uint64_t name_len, addr, key;
	} ep[FEP_MAX_EPS];
};

/* What a client did, at its end; the server checks itself against it. */
struct fep_report {
	uint32_t magic, n, rounds, failed_as_expected;
	uint64_t seed;
	uint32_t written[FEP_MAX_EPS];	/* last round written, read back */
	uint32_t msgs[FEP_MAX_EPS];	/* tagged messages completed */
};

/* The head of a tagged message; a pattern follows. */
struct fep_msg_hdr {
	uint32_t magic, ep, round, which;
	uint64_t seed, pad;
};

#define FEP_FAIL(...)							\
	do {								\
		printf("fi_fep_check: FAIL: " __VA_ARGS__);		\
		printf("\n");						\
		return -1;						\
	} while (0)

#define FEP_FI(call)							\
	do {								\
		int fep_ret_ = (int)(call);				\
		if (fep_ret_ < 0)					\
			FEP_FAIL("%s: %s", #call,			\
				 fi_strerror(-fep_ret_));		\
	} while (0)

/* Posts |opp| with |call|, retrying -FI_EAGAIN; the call's result. */
#define FEP_POST(f, opp, call)						\
	({								\
		ssize_t fep_r_;						\
		double fep_t_ = fep_now();				\
		(opp)->busy = true;					\
		(opp)->err = 0;						\
		(opp)->t_post = fep_now();				\
		while ((fep_r_ = (call)) == -FI_EAGAIN &&		\
		       fep_now() - fep_t_ < (f)->o.limit_s)		\
			fep_progress(f);				\
		if (fep_r_)						\
			(opp)->busy = false;				\
		fep_r_;							\
	})

/* ---- fi_fep_check.c ------------------------------------------------------ */
/* fi_getinfo for |service| (at -a with FI_SOURCE, or at the server). */
int fep_getinfo(struct fep *f, const char *service, struct fi_info **info);
double fep_now(void);
double fep_wall(void);
const char *fep_err_name(int err);
/* The stream of |key|: 8 bytes of one mix at a time. */
void fep_fill(uint8_t *p, size_t len, uint64_t key);
/* The pattern of endpoint |ep|'s region |k| (8 + m: message m), round |r|. */
uint64_t fep_key(uint64_t seed, uint32_t ep, uint32_t k, uint32_t r);
/* What a server buffer holds before any client: its own stream. */
uint64_t fep_virgin_key(uint32_t ep);
uint64_t fep_tag(uint32_t ep, uint32_t round, uint32_t which);
/* An endpoint's name as the AV prints it (uet: uet://ADDR/pid=P/ri=R). */
const char *fep_str(struct fep *f, const void *name, char *buf, size_t len);
/* Reads every endpoint's CQ once; 0 or -1. */
int fep_progress(struct fep *f);
/* Waits until no operation of any endpoint is busy, bounded in time. */
int fep_wait(struct fep *f, const char *what);
/* The side channel: the server accepts on |lfd|, a client connects. */
int fep_oob_connect(struct fep *f, int lfd);
int fep_oob_send(struct fep *f, const void *buf, size_t len);
int fep_oob_recv(struct fep *f, void *buf, size_t len);

/* ---- fi_fep_check_srv.c, fi_fep_check_cli.c ------------------------------ */
/* A receive completion of |e|, checked and counted. */
int fep_on_recv(struct fep *f, struct fep_ep *e,
		const struct fi_cq_tagged_entry *c);
int fep_server(struct fep *f);
int fep_client(struct fep *f);

#endif /* FI_FEP_CHECK_H */
