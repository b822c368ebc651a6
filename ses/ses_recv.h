/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Receives at the target: untagged and tagged posted receives, directed
 * receive by initiator, a bounded unexpected-message queue (a send it has
 * no room for is not taken: ses_rx_req says -EAGAIN and the sender's PDC
 * retries), and peek/claim/discard. Ordering (seeds/hw-tag-matching.md): a receive takes
 * the earliest matching unexpected message, an arriving message takes the
 * earliest posted matching receive, and messages are matched in the order
 * their first packet arrives, which is send order on an ordered PDC (ROD,
 * what FI_ORDER_SAS selects).
 */
#ifndef SES_RECV_H
#define SES_RECV_H

#include "ses/ses.h"

/* ses_recv_attr.flags */
#define SES_RECV_F_TAGGED	0x1	/* match TAGGED_SEND by tag/ignore */
/*
 * Queue ahead of the receives already posted, not behind them: for a
 * multi-receive buffer posted again for its remaining space, which keeps
 * its place before the buffers posted after it.
 */
#define SES_RECV_F_FRONT	0x2

/*
 * A receive. The iov array is copied; the buffers it names must stay
 * valid until recv_done reports |user_ctx|. A message matches when it is
 * tagged as the receive is, its tag equals |tag| in every bit not set in
 * |ignore|, and it came from |initiator| (or SES_INITIATOR_ANY).
 */
struct ses_recv_attr {
	const struct ses_iov *iov;
	size_t iov_cnt;		/* 0..SES_IOV_MAX */
	uint64_t tag;
	uint64_t ignore;
	uint32_t initiator;
	uint32_t flags;		/* SES_RECV_F_* */
	void *user_ctx;
};

/* What ses_recv_peek found. */
struct ses_recv_info {
	uint64_t handle;	/* for claim/discard when peeked with claim */
	uint32_t peer;
	uint32_t initiator;
	uint64_t tag;
	uint64_t msg_len;
	bool hd;
	uint64_t header_data;
};

/*
 * Posts a receive: takes the earliest matching unexpected message, or
 * waits for one. Returns 0 (recv_done may follow from inside this call),
 * -EINVAL or -EAGAIN (max_recvs posted).
 */
int ses_recv_post(struct ses *s, const struct ses_recv_attr *a);
/*
 * Takes back the receive with |user_ctx|; recv_done reports it with
 * -ECANCELED, from inside this call. A receive already matched to a
 * message in progress is taken back too: the rest of the message is
 * dropped as it comes (a rendezvous stops pulling), never placed, and its
 * sender is told nothing was placed. Returns 0 or -ENOENT (no such
 * receive: never posted, or already completed).
 */
int ses_recv_cancel(struct ses *s, void *user_ctx);

/*
 * Finds the earliest unexpected message matching |a| (a->iov unused) and
 * describes it in |info|. With |claim|, the message is reserved for
 * ses_recv_claim or ses_recv_discard with info->handle and no other
 * receive can match it. Returns 0 or -ENOMSG.
 */
int ses_recv_peek(struct ses *s, const struct ses_recv_attr *a, bool claim,
		  struct ses_recv_info *info);
/*
 * Receives the claimed message |handle| into a->iov, as a posted receive
 * would (a's match fields are ignored). Returns 0 or -ENOENT.
 */
int ses_recv_claim(struct ses *s, uint64_t handle,
		   const struct ses_recv_attr *a);
/* Drops the claimed message |handle|. Returns 0 or -ENOENT. */
int ses_recv_discard(struct ses *s, uint64_t handle);

#endif /* SES_RECV_H */
