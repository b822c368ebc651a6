/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The input of the TSS receive fuzzer (fuzz_tss_rx.c), shared with the
 * seed writer (fuzz_seeds.c): the secure domain, its test keys, who sends
 * under which stream, and the operations.
 *
 * Input: a setup byte (FT_SET_*), then operations, each a byte (its value
 * modulo 8: FT_OP_*) and its fields, big endian:
 *   SEALED  sender (u8: % FT_SENDERS, bit 7 the AN), sport (u16), the
 *           PDS packet in clear (u16 length % FT_PLAIN_MAX, bytes), a
 *           mutation (u8: below FT_MUT_FROM none, else FT_MUT_* = % 10,
 *           then its own fields);
 *   TRIMMED sender, sport, the PDS packet as SEALED, then the UDP payload
 *           bytes a switch leaves (u16);
 *   REPLAY  which of the last frames accepted (u8);
 *   RAW     sport (u16), a UDP payload as it is (u16 length, bytes), from
 *           host FT_RAW_HOST: a sealed frame of the seeds, or anything;
 *   TIME    100 us steps (u16).
 */
#ifndef FUZZ_TSS_RX_H
#define FUZZ_TSS_RX_H

#include <string.h>

#include "tss/uet_tss_ep.h"

#define FT_SDI		7
#define FT_SENDERS	4	/* hosts 0..3 (fuzz_engine_common.h) */
#define FT_RAW_HOST	5
#define FT_PLAIN_MAX	1400

#define FT_SET_DIRECT	0x1	/* else cluster */
#define FT_SET_SSI	0x2	/* senders send an SSI */
#define FT_SET_NO_KEY1	0x4	/* the receiver holds key0 alone */

enum ft_op {
	FT_OP_SEALED = 0,	/* 0 to 3 */
	FT_OP_TRIMMED = 4,
	FT_OP_REPLAY,
	FT_OP_RAW,
	FT_OP_TIME,
};

#define FT_MUT_FROM	128
enum ft_mut {
	FT_MUT_HDR,		/* a bit of the TSS header (u8 at, u8 bit) */
	FT_MUT_TEXT,		/* a bit of the ciphertext (u16, u8) */
	FT_MUT_ICV,		/* a bit of the ICV (u8, u8) */
	FT_MUT_SADDR,		/* another source address (u32 XORed) */
	FT_MUT_DADDR,		/* another destination address (u32) */
	FT_MUT_SPORT,		/* another source port (u16 XORed) */
	FT_MUT_DPORT,		/* another destination port (u16) */
	FT_MUT_CUT,		/* bytes cut off the end (u16) */
	FT_MUT_GROW,		/* bytes added at the end (u8 count, bytes) */
	FT_MUT_FIELDS,		/* header fields rewritten (u8 which, u32) */
	FT_MUT_N,
};

/* Test keys: key0 and key1 of the SD. */
static const uint8_t ft_key[2][UET_TSS_KEY_LEN] = {
	{ 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	  0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	  0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	  0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f },
	{ 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88,
	  0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00,
	  0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78,
	  0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0 },
};

/*
 * The keys of sender |who| (FT_SENDERS of them, FT_RAW_HOST, or -1: the
 * receiver) sending under |an|: an epoch and an SSI of its own.
 */
static inline void ft_keys(struct uet_tss_sd_keys *k, uint8_t setup, int who,
			   uint8_t an)
{
	memset(k, 0, sizeof(*k));
	k->sdi = FT_SDI;
	k->mode = setup & FT_SET_DIRECT ? UET_TSS_DIRECT : UET_TSS_CLUSTER;
	k->tx_an = an;
	k->have = who < 0 && (setup & FT_SET_NO_KEY1) ? 1 : 3;
	k->use_ssi = !!(setup & FT_SET_SSI);
	k->ssi = 0x10000u + (uint32_t)(who + 1);
	k->epoch[0] = k->epoch[1] = (uint16_t)(100 + who);
	memcpy(k->key, ft_key, sizeof(k->key));
}

#endif /* FUZZ_TSS_RX_H */
