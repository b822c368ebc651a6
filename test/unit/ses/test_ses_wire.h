/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An in-memory wire for the SES unit tests: engines ("nodes") exchange SES
 * packets through a queue that can reorder (seeded), duplicate and drop.
 * It stands in for PDC: a request is answered once however often it
 * arrives, and a dropped packet is sent again later unless `lose` is set.
 */
#ifndef TEST_SES_WIRE_H
#define TEST_SES_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ses/ses.h"
#include "ses/ses_hdr.h"
#include "ses/ses_recv.h"
#include "ses/ses_ri.h"

#define T_MAX_NODES	4
#define T_MAX_CPL	256

struct t_wire;

struct t_tx_rec {
	const struct ses_wre *wre;
	struct ses_tx_cpl cpl;
};

struct t_node {
	struct ses *s;
	uint32_t id;			/* its peer id */
	struct t_wire *w;
	/*
	 * The context its requests ride, as PDC's: 0 for none. Give each
	 * incarnation of a peer id a larger one (PDCs numbered as they
	 * open, ses_rx_pkt); an answer riding one (an ACK) reaches the node
	 * only while it is still the node's own.
	 */
	uint32_t pdc;
	struct ses_config cfg;
	struct t_tx_rec tx[T_MAX_CPL];	/* completions, in order */
	unsigned tx_cnt;
	unsigned tx_total;
	struct ses_recv_cpl rx[T_MAX_CPL];
	unsigned rx_cnt;
	struct ses_rma_event rma[T_MAX_CPL];
	unsigned rma_cnt;
	uint8_t gen[UET_SES_RI_MAX + 1];	/* cached, by RI */
	unsigned gen_sets;
	/*
	 * When set, completions go here instead of tx[] and rx[] (tx_total
	 * still counts): for tests with more of them than T_MAX_CPL.
	 */
	void (*tx_hook)(struct t_node *n, const struct ses_wre *wre,
			const struct ses_tx_cpl *cpl);
	void (*rx_hook)(struct t_node *n, const struct ses_recv_cpl *cpl);
};

struct t_pkt {
	uint32_t src, dst;
	uint8_t next_hdr;
	bool is_req;
	bool is_default;		/* an answer that is the ACK alone:
					 * DEFAULT_RESPONSE for msg_ref */
	uint64_t seq;			/* identifies a request for its answer */
	uint32_t pdc;			/* a request's context, an answer's */
	uint8_t *buf;
	size_t len;
	/*
	 * With t_wire.lazy, as PDC does, the payload is read only when the
	 * packet is delivered (or a region it lies in is revoked): |buf|
	 * holds the header, and these say where the payload is.
	 */
	bool lazy;
	struct t_node *owner;
	struct ses_iov iov[SES_IOV_MAX];
	size_t iov_cnt;
	uint64_t pay_off;
	uint32_t pay_len;
	uint8_t pay_life;
	uint64_t msg_ref;
	const void *rdv_buf;		/* ses_pkt's: a rendezvous request */
	uint64_t rdv_len;
};

struct t_wire {
	struct t_node *nodes[T_MAX_NODES];
	unsigned n;
	struct t_pkt *q;		/* in flight */
	size_t q_cnt, q_cap;
	struct t_pkt *log;		/* every packet sent, when capturing */
	size_t log_cnt, log_cap;
	bool capture;
	uint64_t next_seq;
	uint8_t *answered;		/* by seq: answer already returned */
	uint64_t *answered_at;		/* by seq: next_seq then */
	size_t answered_cap;
	uint64_t rng;
	bool reorder;
	unsigned drop_pct, dup_pct;
	bool lose;			/* dropped packets are gone */
	long tx_budget;			/* < 0: unlimited; else -EAGAIN at 0 */
	uint64_t now_ns;
	unsigned eagain_cnt;		/* ses_rx_req said -EAGAIN */
	/*
	 * As PDC in ROD mode: a request ses_rx_req did not take goes again
	 * after the packets queued, and every later request of its pair
	 * (source, destination) behind it, so that none overtakes it.
	 * Without it the request alone goes to the end of the queue.
	 */
	bool rod;
	/*
	 * > 0: a copy of a request that arrives once more than copy_ttl
	 * packets were sent after its answer is dropped (copies_late), as PDC
	 * drops a PSN it acknowledged: SES recognises a copy of a finished
	 * message only for a while (ses_priv.h). 0: however late.
	 */
	unsigned copy_ttl;
	unsigned copies_late;
	bool lazy;			/* payloads read late, as PDC does */
	unsigned lazy_dead;		/* late reads of completed messages */
	unsigned stale_acks;		/* answers for a context gone */
	/*
	 * As local channels do: 1, rendezvous requests name their buffer
	 * (ses_rx_pkt.src) and targets copy out of it (ses_ops.pull, a
	 * memcpy here); -1, they name it but every copy fails (-EPERM); 0,
	 * no peer pulls. pulls counts the copies made.
	 */
	int pull;
	unsigned pulls;
};

void t_wire_init(struct t_wire *w, uint64_t seed);
void t_wire_fini(struct t_wire *w);
/* Creates a node with |cfg| (NULL: defaults) as peer |id|. */
void t_node_init(struct t_wire *w, struct t_node *n, uint32_t id,
		 const struct ses_config *cfg);
/* Destroys it and takes it off the wire: its id may come back. */
void t_node_fini(struct t_node *n);
/* Delivers one packet; returns false when nothing was in flight. */
bool t_wire_step(struct t_wire *w);
/* Steps (and progresses every node) until quiet or |max_steps|. */
size_t t_wire_run(struct t_wire *w, size_t max_steps);
uint64_t t_rand(struct t_wire *w);
/* Takes packet |i| out of the queue without delivering it. */
struct t_pkt t_wire_take(struct t_wire *w, size_t i);
void t_wire_deliver(struct t_wire *w, const struct t_pkt *p);
void t_pkt_free(struct t_pkt *p);

/* A destination address and a WRE over one buffer. */
void t_addr(struct ses_addr *a, uint32_t peer, uint32_t job, uint16_t pid);
void t_wre(struct ses_wre *w, uint8_t op, const struct ses_addr *dst,
	   struct ses_iov *iov, void *buf, size_t len);

#endif /* TEST_SES_WIRE_H */
