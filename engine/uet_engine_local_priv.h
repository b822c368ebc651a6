/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's local channels' state, shared by uet_engine_local.c (set
 * up, sending, failures, sleeping) and uet_engine_local_rx.c (reading the
 * inbox); not part of the engine's API.
 */
#ifndef UET_ENGINE_LOCAL_PRIV_H
#define UET_ENGINE_LOCAL_PRIV_H

#include "engine/uet_engine_local.h"
#include "engine/uet_lch.h"

/* Requests unanswered on one channel. */
#define LCH_FIFO	512
/* Answers waiting for room in the initiator's ring. */
#define LCH_ANS_MAX	LCH_FIFO
/* A target that asked again is asked again this much later, at first. */
#define LCH_AGAIN_NS	20000ull
#define LCH_AGAIN_MAX_NS	1000000ull
/* Requests written without an answer to wait for, not yet ended. */
#define LCH_DONE_MAX	LCH_FIFO
/*
 * Requests without answer a target holds for its SES (struct lch_held),
 * at most, per channel: past it the channel's ring waits for them.
 */
#define LCH_HELD_MAX	4096
/* Records read from one ring per progress call. */
#define LCH_RX_BUDGET	64

enum lch_state { LCH_NONE, LCH_UP, LCH_DOWN };

struct lch_ans {
	uint8_t type;
	uint8_t len;
	uint32_t seq;
	uint32_t dst_peer;
	uint8_t rsp[PDC_RESP_MAX_LEN];
};

/* A request without answer SES could not take yet: a copy, in order. */
struct lch_held {
	struct lch_held *next;
	struct uet_lch_rec rec;
	uint8_t body[];		/* rec.hdr_len + rec.pay_len bytes */
};

/* Our side of the channel with the endpoint of one index. */
struct lch {
	uint8_t state;		/* enum lch_state: our ring in its inbox */
	struct uet_lch_inbox *their;
	struct uet_lch_writer w;	/* our ring in it */
	uint64_t nonce;		/* its inbox's */
	int32_t pid;		/* its process, as the service's slot says */
	int wake;		/* connected to its wake socket */
	uint32_t seq;		/* our next request's */
	uint32_t fifo[LCH_FIFO], fh, ft;	/* slots unanswered */
	uint32_t again[LCH_FIFO], ah, at;	/* slots to send again */
	uint64_t again_ns;	/* when the first goes again */
	uint64_t again_wait;	/* the wait after a refusal */
	bool probing;		/* the first went again: its answer? */
	bool again_all;		/* it was taken: the rest go now */
	uint32_t probe;		/* its slot */
	struct lch_ans ans[LCH_ANS_MAX];	/* answers not written yet */
	uint32_t nh, nt;
	/* What it writes to us. */
	struct uet_lch_reader rd;
	bool rd_broken;		/* nothing read until a new writer */
	uint32_t in_ctx;	/* its incarnation, for SES (ses_rx_pkt.pdc) */
	bool in_blocked;	/* we asked again for |in_blocked_seq| */
	uint32_t in_blocked_seq;
	uint32_t in_peer[UET_ENGINE_KIND_MAX + 1];	/* by kind: id + 1 */
	/*
	 * Requests without answer that SES could not take yet, copied out
	 * of the ring so that what follows them there (answers to our
	 * requests) is read; offered again at in_wait_ns, the wait doubling
	 * from LCH_AGAIN_NS while refused. While any is held, the channel's
	 * answered requests are asked again (in_blocked) and its requests
	 * without answer join them. Past LCH_HELD_MAX, or without memory,
	 * the ring itself waits (in_wait_ns, nothing held to offer).
	 */
	struct lch_held *held, *held_tail;
	uint32_t nheld;
	bool ring_waits;	/* nothing read from the ring before then */
	uint64_t in_wait_ns;
	uint64_t in_wait;
};

/*
 * Ends our request in slot |i| as a DEFAULT_RESPONSE does (its slot freed,
 * SES told unless its peer failed since).
 */
void uet_lch_slot_default(struct uet_engine *e, uint32_t i);
/* Frees what |c| holds (lch_held). */
void uet_lch_held_free(struct lch *c);

struct uet_engine_local {
	struct uet_lch_inbox *in;
	int fd;			/* the inbox's memfd */
	uint64_t nonce;		/* our inbox's: the engine's wake_nonce */
	uint32_t ctx;		/* incarnations seen, all channels */
	uint64_t check_ns;	/* when peers were last looked at */
	uint32_t rings;		/* every inbox's: the indices */
	uint32_t ring_bytes;	/* every ring's: uet_lch_ring_bytes() */
	/* Channels whose state is LCH_UP: bit i of word i / 64. */
	uint64_t up[UET_LCH_ACTIVE_WORDS];
	uint64_t keys;		/* ring keys drawn */
	bool armed;		/* |sleeping| set by us: undo at next rx */
	/*
	 * process_vm_readv works here (a seccomp filter may refuse it):
	 * rendezvous requests name their buffer (UET_LCH_REC_F_PULL).
	 */
	bool pull_ok;
	/* Slots of requests sent without answer, ended at the next tick. */
	uint32_t done[LCH_DONE_MAX], dh, dt;
	struct lch *ch[UET_LCH_RINGS];
};

/* The channel with endpoint |ep|, made on first use; NULL: no memory. */
struct lch *uet_lch_get(struct uet_engine_local *l, uint32_t ep);
/*
 * Maps the inbox of endpoint |ep| and takes our ring in it. 0, or -errno:
 * -ENOENT no endpoint there with an inbox, -EACCES/-EPERM another user's.
 */
int uet_lch_connect(struct uet_engine *e, uint32_t ep);
/* Tells the owner of |c|'s inbox that something came, if it sleeps. */
void uet_lch_kick(struct uet_engine *e, struct lch *c);
/*
 * The channel with |ep| ends (|gone|: its process went; else it broke the
 * rules): our peers on it fail as those of a dead remote do.
 */
void uet_lch_down(struct uet_engine *e, uint32_t ep, bool gone);
/* Whether the endpoint |c| writes to is the one it mapped. */
bool uet_lch_alive(struct uet_engine *e, uint32_t ep, const struct lch *c);
/* Writes the answers |c| holds, in order, while there is room. */
void uet_lch_answers_flush(struct uet_engine *e, struct lch *c);

#endif /* UET_ENGINE_LOCAL_PRIV_H */
