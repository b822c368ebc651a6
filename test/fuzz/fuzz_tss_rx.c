/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target for the engine's sealed receive path (issue 43): a
 * target engine with the keys of a secure domain (the device layer and
 * the service are fake_*: fuzz_engine_fakes.c) gets frames its peers
 * sealed with the real sealer (tss/uet_tss_ep.c) under the same test
 * keys, from PDS packets in the input (fuzz_tss_rx.h), so that most reach
 * decryption and the PDS and SES parsers after it; the input also
 * mutates what was sealed (header, ciphertext, ICV, the authenticated
 * addresses and ports, the length), trims frames as a switch does,
 * replays frames accepted before, and sends raw payloads.
 *
 * Checked after every step, besides memory safety and fe_check():
 * - a frame sealed by a sender with a key the receiver holds, unchanged
 *   and new, is opened (rx_opened) into exactly the plaintext sealed;
 * - a mutated, trimmed or replayed frame is never opened, and a mutated
 *   or replayed one is counted as refused.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/uet_engine_priv.h"
#include "fuzz_engine_common.h"
#include "fuzz_tss_rx.h"

#define F_STEPS		128
#define F_KEEP		8	/* frames kept for replays */

struct f_frame {
	struct uet_frame_addr src;
	uint32_t len;
	uint8_t pay[FAKE_FRAME_MAX];
};

static struct uet_tss_ep *f_tx[FT_SENDERS][2];
static struct f_frame f_kept[F_KEEP];
static uint32_t f_nkept;
static uint8_t f_setup_byte;

static void f_setup(uint8_t setup)
{
	struct uet_tss_sd_keys rx, tx;
	struct uet_engine_cfg cfg;
	struct uet_frame_addr a;
	struct uet_tss_src src = { 0 };

	f_setup_byte = setup;
	ft_keys(&rx, setup, -1, 0);
	fe_cfg_default(&cfg);
	cfg.tss = UET_ENGINE_TSS_ON;
	fe_setup(&cfg, NULL, &rx);
	for (int i = 0; i < FT_SENDERS; i++) {
		fe_host((uint32_t)i, &a);
		memcpy(src.addr, &a.v4, 4);
		for (uint8_t an = 0; an < 2; an++) {
			ft_keys(&tx, setup, i, an);
			f_tx[i][an] = uet_tss_ep_new(&tx, &src);
			if (!f_tx[i][an])
				abort();
		}
	}
	f_nkept = 0;
}

static void f_teardown(void)
{
	for (int i = 0; i < FT_SENDERS; i++)
		for (int an = 0; an < 2; an++) {
			uet_tss_ep_free(f_tx[i][an]);
			f_tx[i][an] = NULL;
		}
	fe_teardown();
}

/* What the engine counts of frames it refused, wherever. */
static uint64_t f_refused(const struct uet_engine_stats *st)
{
	const struct uet_tss_ep_stats *t = &st->tss;

	return st->rx_not_uet + st->rx_bad + st->rx_clear_refused +
	       t->rx_bad_icv + t->rx_replay + t->rx_stale + t->rx_other_sd +
	       t->rx_no_key + t->rx_malformed + t->rx_no_room +
	       t->rx_trim_unknown;
}

/* Receives the frame queued, then checks what became of it. */
static void f_deliver(bool want_open, bool want_refused, const uint8_t *plain,
		      size_t plen)
{
	struct uet_engine_stats a, b;

	uet_engine_stats_get(fe_eng, &a);
	fake_dev.now_ns += 1000;
	uet_engine_progress(fe_eng);
	uet_engine_stats_get(fe_eng, &b);
	if (want_open) {
		if (b.tss.rx_opened != a.tss.rx_opened + 1 ||
		    memcmp(fe_eng->opened, plain, plen))
			__builtin_trap();
	} else if (b.tss.rx_opened != a.tss.rx_opened) {
		__builtin_trap();
	} else if (want_refused && f_refused(&b) == f_refused(&a)) {
		__builtin_trap();
	}
}

static void f_keep(const struct uet_frame_addr *src, const uint8_t *pay,
		   size_t len)
{
	struct f_frame *k = &f_kept[f_nkept++ % F_KEEP];

	k->src = *src;
	k->len = (uint32_t)len;
	memcpy(k->pay, pay, len);
}

/* Flips bit |bit| of byte |at| of the |n| bytes at |p| (none: false). */
static bool f_flip(uint8_t *p, size_t n, size_t at, uint8_t bit)
{
	if (!n)
		return false;
	p[at % n] ^= (uint8_t)(1u << (bit % 8));
	return true;
}

/* Rewrites one field of the TSS header at |p| (|hl| bytes). */
static bool f_fields(struct fe_in *in, uint8_t *p, size_t hl)
{
	uint8_t which = fe_u8(in) % 5;
	uint32_t v = fe_u32(in) | 1;
	struct uet_tss_hdr h;

	if (uet_tss_hdr_decode(&h, p, hl) != (ssize_t)hl)
		abort();
	if (which == 2 && !h.sp)
		which = 1;
	switch (which) {
	case 0: h.epoch ^= (uint16_t)v; break;
	case 1: h.tsc ^= v; break;
	case 2: h.ssi ^= v; break;
	case 3: h.sdi ^= v & UET_TSS_SDI_MAX; break;
	default: h.an ^= 1; break;
	}
	if (!h.sdi)
		h.sdi = FT_SDI + 1;
	return uet_tss_hdr_encode(p, hl, &h) == (ssize_t)hl;
}

/*
 * Mutation |m| of the sealed payload |pay| (*len bytes, TSS header |hl|)
 * or of its addresses: whether something authenticated changed.
 */
static bool f_mutate(struct fe_in *in, uint8_t m, struct uet_frame_addr *src,
		     struct uet_frame_addr *dst, uint8_t *pay, size_t *len,
		     size_t cap, size_t hl)
{
	size_t text = *len - hl - UET_TSS_ICV_LEN, n;

	switch (m % FT_MUT_N) {
	case FT_MUT_HDR:
		return f_flip(pay, hl, fe_u8(in), fe_u8(in));
	case FT_MUT_TEXT:
		return f_flip(pay + hl, text, fe_u16(in), fe_u8(in));
	case FT_MUT_ICV:
		return f_flip(pay + hl + text, UET_TSS_ICV_LEN, fe_u8(in),
			      fe_u8(in));
	case FT_MUT_SADDR:
		src->v4.s_addr ^= htonl(fe_u32(in) | 1);
		return true;
	case FT_MUT_DADDR:
		dst->v4.s_addr ^= htonl(fe_u32(in) | 1);
		return true;
	case FT_MUT_SPORT:
		src->port ^= fe_u16(in) | 1;
		return true;
	case FT_MUT_DPORT:
		dst->port ^= fe_u16(in) | 1;
		return true;
	case FT_MUT_CUT:
		*len -= 1 + fe_u16(in) % *len;
		return true;
	case FT_MUT_GROW:
		n = 1 + fe_u8(in) % 32;
		for (size_t i = 0; i < n && *len < cap; i++)
			pay[(*len)++] = fe_u8(in);
		return true;
	default:
		return f_fields(in, pay, hl);
	}
}

/*
 * Seals the PDS packet of the input (|plain|, *plen bytes) from the
 * sender it names into |pay|: its length; |src| gets the sender's
 * address and port, *an the AN it sealed with.
 */
static size_t f_seal(struct fe_in *in, struct uet_frame_addr *src,
		     uint8_t *plain, size_t *plen, uint8_t *pay, uint8_t *an)
{
	uint8_t who = fe_u8(in);
	struct uet_tss_ep *tx = f_tx[who % FT_SENDERS][who >> 7];
	size_t hl = uet_tss_ep_hdr_len(tx);
	struct uet_frame_addr dst;
	struct uet_tss_pkt p;
	ssize_t n;

	*an = who >> 7;
	fe_host(who % FT_SENDERS, src);
	src->port = fe_u16(in);
	*plen = fe_u16(in) % FT_PLAIN_MAX;
	for (size_t i = 0; i < *plen; i++)
		plain[i] = fe_u8(in);
	fe_local(&dst);
	p.is_v6 = false;
	p.saddr = (const uint8_t *)&src->v4;
	p.daddr = (const uint8_t *)&dst.v4;
	p.sport = src->port;
	p.dport = dst.port;
	memcpy(pay + hl, plain, *plen);
	n = uet_tss_ep_seal(tx, &p, pay, *plen);
	if (n < 0)
		abort();	/* 2^48 packets are far */
	return (size_t)n;
}

static void f_step_sealed(struct fe_in *in)
{
	static uint8_t plain[FT_PLAIN_MAX], pay[FAKE_FRAME_MAX];
	struct uet_frame_addr src, dst;
	size_t plen, len, hl = uet_tss_hdr_len(f_setup_byte & FT_SET_SSI);
	uint8_t an, m;
	bool mutated = false;

	len = f_seal(in, &src, plain, &plen, pay, &an);
	fe_local(&dst);
	m = fe_u8(in);
	if (m >= FT_MUT_FROM)
		mutated = f_mutate(in, m, &src, &dst, pay, &len, sizeof(pay),
				   hl);
	if (!fe_queue(&src, &dst, pay, len))
		return;
	f_deliver(!mutated && !(an == 1 && (f_setup_byte & FT_SET_NO_KEY1)),
		  mutated, plain, plen);
	if (!mutated)
		f_keep(&src, pay, len);
}

/* A request a switch cut: its header may be read, never opened. */
static void f_step_trimmed(struct fe_in *in)
{
	static uint8_t plain[FT_PLAIN_MAX], pay[FAKE_FRAME_MAX];
	struct uet_frame_addr src;
	size_t plen, len;
	uint8_t an;

	len = f_seal(in, &src, plain, &plen, pay, &an);
	len = fe_u16(in) % (len + 1);
	src.tclass = (uint8_t)(fe_eng->cfg.dscp.trimmed << 2);
	if (fe_queue(&src, NULL, pay, len))
		f_deliver(false, false, NULL, 0);
}

static void f_step_replay(struct fe_in *in)
{
	const struct f_frame *k;

	if (!f_nkept)
		return;
	k = &f_kept[fe_u8(in) % (f_nkept < F_KEEP ? f_nkept : F_KEEP)];
	if (fe_queue(&k->src, NULL, k->pay, k->len))
		f_deliver(false, true, NULL, 0);
}

/* Anything, from a host that is no sender of ours: opened or not. */
static void f_step_raw(struct fe_in *in)
{
	static uint8_t pay[FAKE_FRAME_MAX];
	struct uet_frame_addr src;
	size_t len;

	fe_host(FT_RAW_HOST, &src);
	src.port = fe_u16(in);
	len = fe_u16(in) % 1500;
	for (size_t i = 0; i < len; i++)
		pay[i] = fe_u8(in);
	if (fe_queue(&src, NULL, pay, len)) {
		fake_dev.now_ns += 1000;
		uet_engine_progress(fe_eng);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fe_in in = { data, len, 0 };

	f_setup(fe_u8(&in));
	for (int step = 0; step < F_STEPS && in.pos < in.len; step++) {
		uint8_t op = fe_u8(&in) % 8;

		fake_dev.rx_head = fake_dev.rx_cnt = 0;
		if (op < FT_OP_TRIMMED)
			f_step_sealed(&in);
		else if (op == FT_OP_TRIMMED)
			f_step_trimmed(&in);
		else if (op == FT_OP_REPLAY)
			f_step_replay(&in);
		else if (op == FT_OP_RAW)
			f_step_raw(&in);
		else {	/* up to 6.5 s */
			fake_dev.now_ns += (uint64_t)fe_u16(&in) * 100000;
			fe_poll();
		}
		fe_check();
	}
	f_teardown();
	return 0;
}
