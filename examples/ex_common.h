/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the example programs share, and the test programs of test/progs/
 * with them: plain libfabric set-up of an RDM endpoint (any provider:
 * FI_PROVIDER=uet, tcp, ...), ex_fab_open for the usual set of objects and
 * ex_setup for RMA, and a TCP side channel on which the server publishes
 * its address, buffer and key.
 */
#ifndef EX_COMMON_H
#define EX_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>

#define EX_NAME_MAX	128

/* Command-line options common to the examples. */
struct ex_opts {
	bool server;
	const char *dst;	/* client: the server's address */
	const char *src;	/* server: the address to serve on */
	const char *service;	/* libfabric service (uet: PIDonFEP) */
	int oob_port;		/* TCP side channel */
	size_t size;		/* bytes per transfer */
	long iters;
	bool cq_data;		/* fi_writedata with remote CQ data */
	bool bad_key;		/* uet_write: use a wrong key (error path) */
	bool rma_event;		/* FI_RMA_EVENT: count remote writes, reads */
	/* Client, -T START: start the timed part at this CLOCK_REALTIME
	 * time (seconds since the epoch), so that several clients start
	 * together; -T @FILE: say "ready" once set up, then start at the
	 * time FILE holds once it appears (ex_start_wait). */
	double start_at;
	const char *start_file;
	double duration;	/* -D: stop after this many seconds (0: no) */
	bool trace;		/* -t: print every sample, not only a summary */
	/* -w: wait for completions as programs on shared cores do
	 * (fi_cq_sread; the server sleeps in fi_trywait and poll), instead
	 * of spinning on fi_cq_read as HPC programs on cores of their own. */
	bool wait;
};

#define EX_FAB_CNTRS	2

/* The usual libfabric objects of one RDM endpoint (ex_fab_open). */
struct ex_fab {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;	/* transmit and receive; transmit with rx_cq */
	struct fid_cq *rx_cq;	/* with ex_fab_opts.rx_cq */
	struct fid_cntr *cntr[EX_FAB_CNTRS];	/* with ex_fab_opts.cntr */
	struct fid_ep *ep;
};

/* Where ex_fab_open asks (fi_getinfo) and what beyond the usual it opens;
 * zeroes are the usual. */
struct ex_fab_opts {
	const char *prog;	/* starts its error lines (NULL: "ex") */
	const char *node;	/* fi_getinfo's node, service and flags */
	const char *service;
	uint64_t flags;		/* FI_SOURCE: node and service are ours */
	size_t cq_size;		/* 0: the provider's default */
	enum fi_cq_format cq_format;	/* 0: FI_CQ_FORMAT_DATA */
	uint64_t cq_flags;	/* bind flags added: FI_SELECTIVE_COMPLETION */
	bool rx_cq;		/* receives on a CQ of their own */
	bool cq_wait;		/* CQs with a wait object (FI_WAIT_UNSPEC) */
	/* Each non-zero: a counter bound with these flags (FI_SEND, ...). */
	uint64_t cntr[EX_FAB_CNTRS];
	size_t min_multi_recv;	/* non-zero: FI_OPT_MIN_MULTI_RECV */
};

/*
 * ex_fab_open() opens fabric, domain, AV (FI_AV_TABLE), CQ(s), counters
 * and endpoint as |o| asks, binds them to the endpoint and enables it.
 * With |hints| it first calls fi_getinfo (version 1.17) with o->node,
 * o->service and o->flags; with NULL it opens f->info, a fi_getinfo
 * result the caller set (and maybe adjusted), which |f| then owns. |f|
 * starts zeroed but for that. Prints what failed (fi_strerror) and
 * returns its negative FI_E*, what was opened left for ex_fab_close().
 */
int ex_fab_open(struct ex_fab *f, const struct fi_info *hints,
		const struct ex_fab_opts *o);
/*
 * ex_fab_open() of an RDM endpoint for messages (FI_MSG, FI_CONTEXT mode,
 * one CQ of FI_CQ_FORMAT_CONTEXT) addressed by |node| and |service|
 * alone: ours with |server| (FI_SOURCE), else the peer's.
 */
int ex_fab_open_msg(struct ex_fab *f, const char *prog, const char *node,
		    const char *service, bool server);
/* Closes what ex_fab_open opened (endpoint first), frees f->info. */
void ex_fab_close(struct ex_fab *f);

/* The libfabric objects of one side. */
struct ex_ctx {
	/* With ex_opts.rma_event: fab.cntr[EX_CNTR_REMOTE_WR] and
	 * [EX_CNTR_REMOTE_RD] count remote writes and reads. */
	struct ex_fab fab;
	struct fid_mr *mr;
	void *buf;
	size_t buf_len;
	void *desc;		/* fi_mr_desc of buf */
	fi_addr_t peer;
	int oob_fd;
	/* Completions read while waiting on the side channel. */
	struct fi_cq_data_entry stash[16];
	int nstash;
	bool wait;		/* ex_opts.wait: CQs opened to be waited on */
};

enum { EX_CNTR_REMOTE_WR, EX_CNTR_REMOTE_RD };

/* What the server publishes: enough for the client to write into it. */
struct ex_peer_info {
	uint8_t name[EX_NAME_MAX];
	uint32_t name_len;
	uint64_t addr;		/* remote address of the buffer for fi_write */
	uint64_t key;
	uint64_t len;
};

/* Parses -s, -c ADDR, -a ADDR, -S SERVICE, -p PORT, -n SIZE, -i ITERS, -d, -K,
 * -T START, -D SECONDS, -t, -w. */
int ex_parse(int argc, char **argv, struct ex_opts *o, const char *usage);

/* The caps of RMA both ways. */
#define EX_RMA_CAPS	(FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | \
			 FI_REMOTE_WRITE)

/*
 * ex_hints_rdm() allocates hints for an RDM endpoint with |caps| and
 * |mode|, and every mr_mode we honour (FI_MR_LOCAL, FI_MR_VIRT_ADDR,
 * FI_MR_ALLOCATED, FI_MR_PROV_KEY, FI_MR_ENDPOINT); NULL without memory.
 */
struct fi_info *ex_hints_rdm(uint64_t caps, uint64_t mode);

/*
 * ex_setup() opens c->fab for |o| (ex_fab_open: one CQ of 256 with data)
 * and registers a buffer of |buf_len| bytes for remote write and read.
 * Prints what failed and returns a negative FI_E* on error.
 */
int ex_setup(struct ex_ctx *c, const struct ex_opts *o, size_t buf_len);
/*
 * ex_setup_hints() is ex_setup() from |hints| (freed; NULL: -FI_ENOMEM)
 * with |fo|'s CQ, counters and name (its node, service and flags come
 * from |o|); it says "NAME: provider P, mr_mode M".
 */
int ex_setup_hints(struct ex_ctx *c, const struct ex_opts *o,
		   struct fi_info *hints, const struct ex_fab_opts *fo,
		   size_t buf_len);
void ex_teardown(struct ex_ctx *c);

/*
 * ex_mr_reg() allocates |len| bytes at *|buf| (page-aligned, zeroed) and
 * registers them with |f|'s domain for local and remote read and write
 * under |key| (FI_MR_PROV_KEY may choose another) into *|mr|, bound to the
 * endpoint and enabled where FI_MR_ENDPOINT asks. 0, or -FI_E* (printed).
 */
int ex_mr_reg(struct ex_fab *f, size_t len, uint64_t key, void **buf,
	      struct fid_mr **mr);

/*
 * ex_exchange() connects the side channel and swaps ex_peer_info: the
 * server sends its own, the client receives it into |remote| and inserts
 * the server into the AV. Both receive the other's name. Returns 0 or -1.
 */
int ex_exchange(struct ex_ctx *c, const struct ex_opts *o,
		struct ex_peer_info *remote);

/* Waits for one CQ completion (or its error, printed); 0 or -FI_E*. */
int ex_wait_cq(struct ex_ctx *c, struct fi_cq_data_entry *entry);

/*
 * Side channel: send and receive exactly |len| bytes; 0 or -1. Receiving
 * keeps reading the CQ meanwhile: providers with manual progress (tcp's
 * rxm, uet) move the peer's RMA only when we do.
 */
int ex_oob_send(struct ex_ctx *c, const void *buf, size_t len);
int ex_oob_recv(struct ex_ctx *c, void *buf, size_t len);

/*
 * ex_tcp_connect() connects a TCP socket to |node|:|port| (any family),
 * trying again every 50 ms for 10 s while the other side comes up.
 * Returns the socket or -1.
 */
int ex_tcp_connect(const char *node, int port);

/*
 * ex_tcp_listen() listens on TCP |port| of every address, IPv4 and IPv6
 * (one dual-stack socket), with |backlog|. Returns the socket or -1.
 */
int ex_tcp_listen(int port, int backlog);

/*
 * ex_time_limit() ends the process with status 3 after |sec| seconds,
 * saying "|name|: time limit reached" on stderr: a test program that
 * hangs fails instead. |name| must live as long as the process.
 */
void ex_time_limit(const char *name, unsigned sec);

/* The CLOCK_REALTIME time in seconds since the epoch. */
double ex_wall_now(void);

/* Sleeps until CLOCK_REALTIME |at| (seconds since the epoch); returns at
 * once when that time has passed. */
void ex_sleep_until(double at);

/* Whether |o| asks for a start at a given time (-T). */
static inline bool ex_is_timed(const struct ex_opts *o)
{
	return o->start_at > 0 || o->start_file;
}

/*
 * ex_start_wait() waits for the start that |o| asks for (-T): with a
 * time, until then; with @FILE, it prints "|prog|: ready" and waits for
 * FILE to hold a time (it looks every millisecond, for 120 s at most),
 * then until that time. Returns 0, or -1 when FILE never came.
 */
int ex_start_wait(const struct ex_opts *o, const char *prog);

/* A simple checksum (FNV-1a, 64 bits) of |len| bytes. */
uint64_t ex_checksum(const void *buf, size_t len);

#endif /* EX_COMMON_H */
