/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the example programs share: plain libfabric set-up of an RDM
 * endpoint for RMA (any provider: FI_PROVIDER=uet, tcp, ...), and a TCP
 * side channel on which the server publishes its address, buffer and key.
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
};

/* The libfabric objects of one side. */
struct ex_ctx {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_mr *mr;
	/* With ex_opts.rma_event: FI_REMOTE_WRITE, FI_REMOTE_READ counters. */
	struct fid_cntr *remote_wr, *remote_rd;
	void *buf;
	size_t buf_len;
	void *desc;		/* fi_mr_desc of buf */
	fi_addr_t peer;
	int oob_fd;
	/* Completions read while waiting on the side channel. */
	struct fi_cq_data_entry stash[16];
	int nstash;
};

/* What the server publishes: enough for the client to write into it. */
struct ex_peer_info {
	uint8_t name[EX_NAME_MAX];
	uint32_t name_len;
	uint64_t addr;		/* remote address of the buffer for fi_write */
	uint64_t key;
	uint64_t len;
};

/* Parses -s, -c ADDR, -a ADDR, -S SERVICE, -p PORT, -n SIZE, -i ITERS, -d, -K. */
int ex_parse(int argc, char **argv, struct ex_opts *o, const char *usage);

/*
 * ex_setup() opens fabric, domain, AV, CQ and endpoint for |o| and
 * registers a buffer of |buf_len| bytes for remote write and read. Prints
 * what failed and returns a negative FI_E* on error.
 */
int ex_setup(struct ex_ctx *c, const struct ex_opts *o, size_t buf_len);
void ex_teardown(struct ex_ctx *c);

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

/* A simple checksum (FNV-1a, 64 bits) of |len| bytes. */
uint64_t ex_checksum(const void *buf, size_t len);

#endif /* EX_COMMON_H */
