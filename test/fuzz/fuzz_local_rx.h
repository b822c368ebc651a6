/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The input of the local-channel fuzzer (fuzz_local_rx.c), shared with
 * the seed writer (fuzz_seeds.c). The engine under test has endpoint
 * index FAKE_EP_INDEX of an interface of FL_RINGS indices; the fuzzer
 * plays the endpoints of indices fl_writer_ep[]: the first FL_PEERS have
 * an inbox of their own (PIDonFEP FL_PID(i)), the last has none.
 *
 * Input: operations, each a byte (its value modulo 8: FL_OP_*) and its
 * fields, big endian:
 *   REC     writer (u8, % FL_WRITERS), flags (u8, FL_REC_*), a record's
 *           header as a peer lays it in the ring (struct uet_lch_rec,
 *           host order, its stamp not read), its body (u16 length %
 *           FL_BODY_MAX, bytes): what follows the header;
 *   TAKE    writer, flags (FL_TAKE_*), a position (u32), a key (u64): a
 *           new process takes the writer's index, its records from that
 *           far after where the last one stopped, under a key of its own
 *           (FL_TAKE_RAW: from the position itself, even backwards or off
 *           a line; FL_TAKE_KEY: under the key of the input);
 *   POST    peer (u8, % FL_PEERS), opcode (u8: % 3 WRITE, SEND, READ),
 *           length (u16, % FL_POST_MAX), remote offset (u16): the engine
 *           sends to the peer;
 *   ANSWER  peer, how (u8, FL_ANS_* = % 8), return code (u8), then for
 *           RAW a body (u8 length, bytes), for DATA the data (u16 length,
 *           bytes): the peer answers the engine's oldest request;
 *   TIME    100 us steps (u16), events (u8, FL_EV_*; bits 6-7: the peer).
 */
#ifndef FUZZ_LOCAL_RX_H
#define FUZZ_LOCAL_RX_H

#include <stdint.h>

#define FL_RINGS	8
#define FL_WRITERS	4
#define FL_PEERS	3
#define FL_PID(i)	(11 + (i))
#define FL_BODY_MAX	4096
#define FL_POST_MAX	1024

static const uint32_t fl_writer_ep[FL_WRITERS] = { 1, 2, 5, 6 };

enum fl_op {
	FL_OP_REC = 0,		/* 0 to 3 */
	FL_OP_TAKE = 4,
	FL_OP_POST,
	FL_OP_ANSWER,
	FL_OP_TIME,
};

#define FL_REC_RAW	0x1	/* len as in the header, not computed */
#define FL_REC_BAD_STAMP 0x2	/* published with a stamp not due there */

#define FL_TAKE_RAW	0x1	/* start exactly there, even off a line */
#define FL_TAKE_KEY	0x2	/* the input's key, maybe an earlier one */

enum fl_ans {
	FL_ANS_RSP,		/* ANS_RSP: SES's response to it */
	FL_ANS_DEFAULT,
	FL_ANS_AGAIN,
	FL_ANS_DROP,
	FL_ANS_DATA,		/* an RSP record: a READ's data */
	FL_ANS_BAD_SEQ,		/* ANS_DEFAULT naming another request */
	FL_ANS_RAW,		/* ANS_RSP of the input's bytes */
	FL_ANS_NONE,
};

#define FL_EV_GONE	0x01	/* the peer's slot freed, or back */
#define FL_EV_SLEEPING	0x02	/* the peer sleeps: writers wake it */
#define FL_EV_REFUSED	0x04	/* the peer may not answer the engine */
#define FL_EV_SLEEP	0x08	/* the engine sleeps and wakes */

#endif /* FUZZ_LOCAL_RX_H */
