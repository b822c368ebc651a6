/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Local channels: SES packets between two endpoints of one interface and
 * namespace through shared memory, instead of frames through the UMEM
 * (issue 32). Nothing is lost between two processes of one host, so no
 * PDS runs here: SES's packets and its answers travel as records, in
 * order, and SES's checks at the target are the same as for the wire.
 *
 * Every endpoint owns an inbox: a memfd of one header and one ring per
 * endpoint index of the interface (its service's max_eps, up to
 * UET_LCH_RINGS), of uet_lch_ring_bytes() each: 256 KiB up to 64 indices
 * (today's default load has 32), less beyond, so that an inbox stays
 * within 16 MiB of address space down to rings of 64 KiB (19 MiB at 301
 * indices, 32 MiB at 512). The memfd is sparse: its pages exist once a
 * writer touches them, so what is resident is what writers wrote, at most
 * a ring's bytes per (writer, reader) pair that ever talked. Ring i is
 * written by the endpoint of index i alone (the device service gives
 * each index to one live process) and read by the inbox's owner: single
 * producer, single consumer, positions that only grow. A writer maps the
 * inbox by opening /proc/PID/fd/FD of its owner, which the kernel allows
 * only to a process that may read the owner's memory anyway (ptrace's
 * read access: the same user); others use the frames' path.
 *
 * The reader trusts no record: a line whose stamp is not the one due
 * there is no record yet; a stamped one whose length does not fit or
 * whose type it does not know breaks the ring (counted, the channel
 * failed); it never reads outside the ring.
 */
#ifndef UET_LCH_H
#define UET_LCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet_fep.h"

#define UET_LCH_MAGIC		0x55454C43u	/* "UELC" */
#define UET_LCH_VERSION		5u	/* 5: UET_LCH_REC_F_PULL */
#define UET_LCH_RINGS		UET_FEP_MAX_EPS
#define UET_LCH_ACTIVE_WORDS	(UET_LCH_RINGS / 64)
/*
 * Bytes of records one ring holds: up to 64 rings, 32 packets of 8 KiB in
 * flight; at least 8 (a record is at most a quarter of its ring).
 */
#define UET_LCH_RING_BYTES	(256u * 1024u)
#define UET_LCH_RING_BYTES_MIN	(64u * 1024u)
#define UET_LCH_INBOX_BYTES	(16u << 20)
#define UET_LCH_ALIGN		64u	/* records start on cache lines */

enum uet_lch_type {
	UET_LCH_PAD = 1,	/* fills the ring's end: skip to its start */
	UET_LCH_REQ,		/* a request packet: answered once, in order */
	UET_LCH_RSP,		/* a response packet (RESPONSE, _DATA) */
	UET_LCH_ANS_RSP,	/* answer to request |seq|: SES's response */
	UET_LCH_ANS_DEFAULT,	/* answer: DEFAULT_RESPONSE (ses_rx_default) */
	UET_LCH_ANS_AGAIN,	/* answer: no room now, send it again later */
	UET_LCH_ANS_DROP,	/* answer: dropped (malformed, stale) */
	UET_LCH_TYPE_MAX,
};

/*
 * One record: this header, SES's header bytes, then the payload. Its
 * stamp, written last, is its position in the ring (bytes ever written
 * before it) XOR the ring's key: the reader polls the stamp where the
 * next record must start, so a record travels between the two cores
 * alone, without a position of the writer's to read first. What an
 * earlier lap left there, or an earlier writer's key, never matches.
 */
/*
 * A request whose writer waits for no answer (SES_PKT_F_NO_ANSWER): it
 * ended it on writing. The reader never answers it; what its SES cannot
 * take yet stays in the ring, ahead of everything after it, until it
 * can. A writer sends one only with no request of that channel
 * unanswered or to be sent again, so none is ever behind a refused one.
 */
#define UET_LCH_REC_F_NO_ANSWER	0x1
/*
 * A rendezvous request whose sender's buffer may be copied straight out of
 * its memory (process_vm_readv): a struct uet_lch_pull follows the
 * payload, inside the record's length.
 */
#define UET_LCH_REC_F_PULL	0x2

/* Where the buffer of a UET_LCH_REC_F_PULL request is in its writer. */
struct uet_lch_pull {
	uint64_t addr;
	uint64_t len;
};

struct uet_lch_rec {
	_Atomic uint64_t stamp;
	uint32_t len;		/* bytes, this header included (aligned) */
	uint8_t type;		/* enum uet_lch_type */
	uint8_t next_hdr;	/* REQ, RSP: enum uet_pds_next_hdr */
	uint8_t kind;		/* REQ: the writer's peer kind (its tag) */
	uint8_t flags;		/* REQ: UET_LCH_REC_F_* */
	uint32_t src_peer;	/* the writer's peer id for the reader */
	uint32_t dst_peer;	/* RSP, ANS_*: the reader's peer it answers */
	uint32_t seq;		/* REQ: its number; ANS_*: the one answered */
	uint16_t hdr_len;	/* SES header bytes */
	uint16_t pad1;
	uint32_t pay_len;	/* payload bytes after them */
	uint32_t pad2;
};

/* A ring's shared state, each side's on its own line, then its bytes. */
struct uet_lch_ring {
	/* The writer's: where it is (for the next process on its index). */
	_Atomic uint64_t head;
	uint8_t pad0[56];
	/* The reader's: what it read, for the writer's room (read rarely). */
	_Atomic uint64_t tail;
	/* The reader could not answer (it may not map the writer's inbox). */
	_Atomic uint32_t refused;
	uint8_t pad1[52];
	/*
	 * A process taking the ring over (the writer's index went to a new
	 * process) writes |start| (its first record's position) and |key|,
	 * then bumps |gen|: the reader starts over there, and what the
	 * earlier process left unread is dropped.
	 */
	_Atomic uint32_t gen;
	uint32_t writer_pid;
	uint64_t start;
	uint64_t key;
	uint8_t pad2[40];
	uint8_t data[];		/* uet_lch_ring_bytes() of them */
};

struct uet_lch_inbox {
	uint32_t magic, version;
	uint32_t owner_ep;	/* the owner's endpoint index */
	uint32_t owner_pid;
	uint64_t nonce;		/* the owner's: names its wake socket */
	uint32_t rings;		/* ring[]: the interface's indices */
	uint32_t ring_bytes;	/* data[] of each */
	uint8_t pad0[32];
	uint32_t sleeping;	/* the owner may sleep: wake it (uet_dev_wake.h) */
	uint8_t pad1[60];
	/* Rings that have had a writer: bit i of word i / 64. */
	_Atomic uint64_t active[UET_LCH_ACTIVE_WORDS];
	/* The rings: struct uet_lch_ring and its data, uet_lch_ring_at(). */
};

/* The bytes of each ring of an inbox of |rings| rings (a power of 2). */
static inline uint32_t uet_lch_ring_bytes(uint32_t rings)
{
	uint32_t b = UET_LCH_RING_BYTES;

	while (b > UET_LCH_RING_BYTES_MIN &&
	       (uint64_t)b * rings > UET_LCH_INBOX_BYTES)
		b >>= 1;
	return b;
}

/* Bytes of an inbox of |rings| rings. */
static inline size_t uet_lch_inbox_len(uint32_t rings)
{
	return sizeof(struct uet_lch_inbox) +
	       (size_t)rings * (sizeof(struct uet_lch_ring) +
				uet_lch_ring_bytes(rings));
}

/* Ring |i| of |in|, an inbox of |rings| rings (i < rings). */
static inline struct uet_lch_ring *uet_lch_ring_at(struct uet_lch_inbox *in,
						   uint32_t rings, uint32_t i)
{
	return (struct uet_lch_ring *)((uint8_t *)(in + 1) + (size_t)i *
		(sizeof(struct uet_lch_ring) + uet_lch_ring_bytes(rings)));
}

/* A writer's own view of its ring (in its private memory). */
struct uet_lch_writer {
	struct uet_lch_ring *r;
	uint32_t size;		/* the ring's bytes, as we know them */
	uint64_t head;		/* bytes written */
	uint64_t tail;		/* the reader's, as last read */
	uint64_t key;
	uint32_t gen;		/* the ring's gen we took */
};

/*
 * A reader's own view of one ring: |size|, its bytes, is the reader's
 * (uet_lch_ring_bytes() of its inbox), never read from the shared inbox.
 */
struct uet_lch_reader {
	uint32_t size;
	uint64_t tail;		/* bytes read */
	uint64_t key;
	uint32_t gen;		/* 0: never synced */
};

/* Bytes of a record of |hdr_len| + |pay_len| bytes, header included. */
static inline uint32_t uet_lch_rec_len(uint32_t hdr_len, uint32_t pay_len)
{
	uint32_t n = (uint32_t)sizeof(struct uet_lch_rec) + hdr_len + pay_len;

	return (n + UET_LCH_ALIGN - 1) & ~(UET_LCH_ALIGN - 1);
}

/* The largest record a ring of |size| bytes takes. */
#define UET_LCH_REC_MAX(size)	((size) / 4)

/*
 * Creates the inbox of endpoint |ep| with |rings| rings (the interface's
 * endpoint indices, at most UET_LCH_RINGS): a memfd (*fd) mapped at
 * *inbox. 0 or -errno.
 */
int uet_lch_inbox_create(uint32_t ep, uint32_t rings, uint64_t nonce,
			 int *fd, struct uet_lch_inbox **inbox);
/*
 * Maps the inbox of process |pid| whose fd is |fd| there, after checking
 * it is the inbox of endpoint |ep| with |nonce| and |rings| rings. 0, or
 * -errno: -EACCES / -EPERM when the kernel refuses (another user),
 * -EPROTO when it is no such inbox.
 */
int uet_lch_inbox_map(pid_t pid, int fd, uint32_t ep, uint32_t rings,
		      uint64_t nonce, struct uet_lch_inbox **inbox);
/* |inbox| maps |rings| rings (as it was created or mapped). */
void uet_lch_inbox_unmap(struct uet_lch_inbox *inbox, uint32_t rings);

/* Ring |i| has had a writer (set by the writer, read by the owner). */
static inline void uet_lch_active_set(struct uet_lch_inbox *in, uint32_t i)
{
	atomic_fetch_or(&in->active[i / 64], 1ull << (i % 64));
}

/*
 * The writer's side. uet_lch_writer_take() takes ring |r| of |size|
 * bytes over for this process with a fresh |key| (non-zero).
 * uet_lch_reserve() returns room for a record of |len| bytes
 * (uet_lch_rec_len), or NULL when the ring is full; the record is written
 * there, all but its stamp, then published with uet_lch_publish().
 */
void uet_lch_writer_take(struct uet_lch_writer *w, struct uet_lch_ring *r,
			 uint32_t size, uint64_t key);
void *uet_lch_reserve(struct uet_lch_writer *w, uint32_t len);
void uet_lch_publish(struct uet_lch_writer *w, void *rec, uint32_t len);
/* Whether uet_lch_reserve(|w|, |len|) would find room now. */
bool uet_lch_room(struct uet_lch_writer *w, uint32_t len);

/*
 * The reader's side. uet_lch_reader_sync() follows a takeover of |r|:
 * true when a new process writes it now (its records start afresh).
 * uet_lch_peek() returns the next record, NULL when none, or sets *broken
 * when the ring holds what no writer of ours writes. |*rec| is a private
 * copy of its header; the returned pointer is the record in the ring.
 * uet_lch_consume() lets the writer reuse it.
 */
bool uet_lch_reader_sync(struct uet_lch_reader *rd, struct uet_lch_ring *r);
const uint8_t *uet_lch_peek(struct uet_lch_reader *rd, struct uet_lch_ring *r,
			    struct uet_lch_rec *rec, bool *broken);
void uet_lch_consume(struct uet_lch_reader *rd, struct uet_lch_ring *r,
		     const struct uet_lch_rec *rec);

/* Whether |r| holds a record |rd| has not read, or a new writer. */
static inline bool uet_lch_pending(const struct uet_lch_reader *rd,
				   struct uet_lch_ring *r)
{
	const struct uet_lch_rec *next = (const struct uet_lch_rec *)
		(r->data + (rd->tail & (rd->size - 1)));

	return atomic_load_explicit(&next->stamp, memory_order_relaxed) ==
	       (rd->tail ^ rd->key) ||
	       atomic_load_explicit(&r->gen, memory_order_relaxed) != rd->gen;
}

#endif /* UET_LCH_H */
