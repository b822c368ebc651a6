/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Messaging (FI_MSG, FI_TAGGED): an endpoint's receive state and the calls
 * between uet_msg.c, uet_tagged.c (the libfabric entry points),
 * uet_msg_tx.c (sends) and uet_msg_rx.c (receives and their completions).
 */
#ifndef UET_MSG_H
#define UET_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_tagged.h>

#include "ses/ses.h"
#include "uet/uet_list.h"

/*
 * The RIs an endpoint serves beside ri_base (its RMA regions): sends, and
 * the buffers of its rendezvous sends. Neither uses generations: a send
 * names no region, and rendezvous keys are never reused.
 */
#define UET_RI_MSG(ri_base)	(((ri_base) + 1u) & 0xFFFu)
#define UET_RI_RDV(ri_base)	(((ri_base) + 2u) & 0xFFFu)

struct uet_ep;

/* One posted receive; SES holds it as user_ctx until recv_done. */
struct uet_rx {
	struct uet_list link;		/* free, posted or repost list */
	void *context;
	struct ses_iov iov[SES_IOV_MAX];
	size_t iov_cnt;
	uint64_t tag, ignore;
	uint32_t initiator;		/* SES_INITIATOR_ANY: any source */
	bool tagged;
	bool want_cq;			/* a success completion was asked for */
	bool multi;			/* FI_MULTI_RECV */
	bool cancel;			/* multi: release at the next message */
	uint8_t *base;			/* multi: the buffer, |off| bytes used */
	size_t len, off, min_left;
};

/* An endpoint's receives. */
struct uet_msg_rx {
	struct uet_rx *rxs;
	size_t size, used;
	struct uet_list free, posted;
	struct uet_list repost;		/* multi buffers to post again */
	bool reposting;
	size_t min_multi_recv;		/* FI_OPT_MIN_MULTI_RECV */
};

/* One send call, whatever its shape. */
struct uet_send_req {
	const struct iovec *iov;
	size_t iov_cnt;
	fi_addr_t addr;
	uint64_t tag;
	uint64_t data;
	void *context;
	uint64_t flags;
	bool tagged;
	bool inject_call;		/* fi_inject, fi_tinject*: no completion */
};

/* One receive call. */
struct uet_recv_req {
	const struct iovec *iov;
	size_t iov_cnt;
	fi_addr_t src;
	uint64_t tag, ignore;
	void *context;
	uint64_t flags;
	bool tagged;
	bool claim;			/* take the claimed message |handle| */
	uint64_t handle;
};

extern const struct fi_ops_msg uet_msg_ops;
extern const struct fi_ops_tagged uet_tagged_ops;

/* uet_msg_tx.c: posts a send; 0 or -FI_E* (nothing changed). */
ssize_t uet_msg_send(struct uet_ep *ep, const struct uet_send_req *r);

/* uet_msg_rx.c; with the domain lock held unless said otherwise. */
int uet_msg_rx_init(struct uet_ep *ep, size_t size);
void uet_msg_rx_fini(struct uet_ep *ep);
/* Checks |r| and finds its SES initiator filter; 0 or -FI_E*. */
int uet_msg_recv_check(struct uet_ep *ep, const struct uet_recv_req *r,
		       uint32_t *initiator);
/* Posts a receive, or claims; takes the lock. 0 or -FI_E* (no change). */
ssize_t uet_msg_recv_post(struct uet_ep *ep, const struct uet_recv_req *r);
void uet_msg_recv_done(void *ctx, const struct ses_recv_cpl *cpl);
/* fi_cancel of a posted receive: 0 or -FI_ENOENT. */
int uet_msg_cancel(struct uet_ep *ep, void *context);
/* The sender's fi_addr (FI_SOURCE), or FI_ADDR_NOTAVAIL. */
fi_addr_t uet_msg_src(struct uet_ep *ep, uint32_t peer, uint32_t initiator);
int uet_msg_getopt(struct uet_ep *ep, int optname, void *optval,
		   size_t *optlen);
int uet_msg_setopt(struct uet_ep *ep, int optname, const void *optval,
		   size_t optlen);

#endif /* UET_MSG_H */
