// SPDX-License-Identifier: BSD-2-Clause
/*
 * The TSS header codec, the replay window and CRC32C.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tss/uet_crc32c.h"
#include "tss/uet_tss.h"

static void round_trip(const struct uet_tss_hdr *h)
{
	uint8_t buf[UET_TSS_HDR_MAX + 4];
	struct uet_tss_hdr d;
	ssize_t n = uet_tss_hdr_encode(buf, sizeof(buf), h);

	cr_assert_eq(n, (ssize_t)uet_tss_hdr_len(h->sp));
	cr_assert(uet_tss_is_tss(buf, (size_t)n));
	memset(&d, 0xee, sizeof(d));
	cr_assert_eq(uet_tss_hdr_decode(&d, buf, (size_t)n), n);
	cr_assert_eq(d.sp, h->sp);
	cr_assert_eq(d.an, h->an);
	cr_assert_eq(d.sdi, h->sdi);
	cr_assert_eq(d.ssi, h->sp ? h->ssi : 0);
	cr_assert_eq(d.epoch, h->epoch);
	cr_assert_eq(d.tsc, h->tsc);
	/* One byte short is refused. */
	cr_assert_eq(uet_tss_hdr_decode(&d, buf, (size_t)n - 1), -EBADMSG);
	cr_assert_eq(uet_tss_hdr_encode(buf, (size_t)n - 1, h), -ENOBUFS);
}

Test(tss_hdr, round_trip_extremes)
{
	static const uint32_t sdis[] = { 0, 1, 0x800000, UET_TSS_SDI_MAX };
	static const uint64_t tscs[] = { 0, 1, 1ull << 47, UET_TSS_TSC_MAX };
	static const uint32_t ssis[] = { 0, 0x80000001, 0xffffffff };
	static const uint16_t epochs[] = { 0, 0x8000, 0xffff };
	struct uet_tss_hdr h;
	unsigned int a, b, c, d, e;

	for (a = 0; a < 2; a++)
	for (b = 0; b < 4; b++)
	for (c = 0; c < 4; c++)
	for (d = 0; d < 3; d++)
	for (e = 0; e < 3; e++) {
		h = (struct uet_tss_hdr){ .an = a, .sdi = sdis[b],
			.tsc = tscs[c], .epoch = epochs[d], .ssi = ssis[e] };
		h.sp = false;
		round_trip(&h);
		h.sp = true;
		round_trip(&h);
	}
}

Test(tss_hdr, wire_layout)
{
	struct uet_tss_hdr h = { .sp = true, .an = 1, .sdi = 0x123456,
				 .ssi = 0x89abcdef, .epoch = 0x0102,
				 .tsc = 0xa1a2a3a4a5a6 };
	static const uint8_t want[16] = {
		0x0d, 0x12, 0x34, 0x56, 0x89, 0xab, 0xcd, 0xef,
		0x01, 0x02, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6 };
	uint8_t buf[16];

	cr_assert_eq(uet_tss_hdr_encode(buf, sizeof(buf), &h), 16);
	cr_assert_arr_eq(buf, want, 16);
	h.sp = false;
	h.an = 0;
	cr_assert_eq(uet_tss_hdr_encode(buf, sizeof(buf), &h), 12);
	cr_assert_eq(buf[0], 0x08);
	cr_assert_arr_eq(buf + 4, want + 8, 8);
}

Test(tss_hdr, encode_rejects)
{
	struct uet_tss_hdr h = { .an = 2 };
	uint8_t buf[16];

	cr_assert_eq(uet_tss_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.an = 0;
	h.sdi = UET_TSS_SDI_MAX + 1;
	cr_assert_eq(uet_tss_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
	h.sdi = 0;
	h.tsc = UET_TSS_TSC_MAX + 1;
	cr_assert_eq(uet_tss_hdr_encode(buf, sizeof(buf), &h), -EINVAL);
}

Test(tss_hdr, decode_rejects)
{
	struct uet_tss_hdr h = { .sp = true, .sdi = 5, .tsc = 9 }, d;
	uint8_t buf[16];

	cr_assert_eq(uet_tss_hdr_encode(buf, sizeof(buf), &h), 16);
	cr_assert_eq(uet_tss_hdr_decode(&d, buf, 0), -EBADMSG);
	cr_assert_eq(uet_tss_hdr_decode(&d, buf, 11), -EBADMSG);
	cr_assert_eq(uet_tss_hdr_decode(&d, buf, 15), -EBADMSG);
	buf[0] |= 0x02;			/* reserved */
	cr_assert_eq(uet_tss_hdr_decode(&d, buf, 16), -EBADMSG);
	buf[0] &= ~0x02;
	buf[0] = (uint8_t)(2 << 3 | (buf[0] & 7));	/* RUD_REQ */
	cr_assert_eq(uet_tss_hdr_decode(&d, buf, 16), -EBADMSG);
	buf[0] = (uint8_t)(0 << 3 | (buf[0] & 7));
	cr_assert_eq(uet_tss_hdr_decode(&d, buf, 16), -EBADMSG);
	buf[0] = (uint8_t)(UET_TSS_TYPE << 3 | 4);
	cr_assert_eq(uet_tss_hdr_decode(&d, buf, 16), 16);
}

Test(tss_hdr, random_bytes)
{
	uint8_t buf[32], out[32];
	struct uet_tss_hdr d;
	unsigned int i, j;
	ssize_t n;

	srand(12345);
	for (i = 0; i < 200000; i++) {
		size_t len = (size_t)rand() % sizeof(buf);

		for (j = 0; j < len; j++)
			buf[j] = (uint8_t)rand();
		if (i & 1)
			buf[0] = (uint8_t)(UET_TSS_TYPE << 3 | (buf[0] & 7));
		n = uet_tss_hdr_decode(&d, buf, len);
		if (n < 0)
			continue;
		cr_assert_leq((size_t)n, len);
		cr_assert_eq(uet_tss_hdr_encode(out, sizeof(out), &d), n);
		cr_assert_arr_eq(out, buf, (size_t)n);
	}
}

/* ---- replay window ------------------------------------------------------ */

static int accept(struct uet_tss_replay *w, uint64_t tsc)
{
	int rc = uet_tss_replay_check(w, tsc);

	if (!rc)
		uet_tss_replay_commit(w, tsc);
	return rc;
}

Test(tss_replay, in_order_and_duplicates)
{
	struct uet_tss_replay w = { 0 };
	uint64_t t;

	for (t = 0; t < 5000; t++) {
		cr_assert_eq(accept(&w, t), 0);
		cr_assert_eq(uet_tss_replay_check(&w, t), -EALREADY);
	}
	for (t = 5000 - UET_TSS_REPLAY_WIN; t < 5000; t++)
		cr_assert_eq(uet_tss_replay_check(&w, t), -EALREADY);
	cr_assert_eq(uet_tss_replay_check(&w, 5000 - UET_TSS_REPLAY_WIN - 1),
		     -ESTALE);
	cr_assert_eq(uet_tss_replay_check(&w, 0), -ESTALE);
}

Test(tss_replay, check_does_not_record)
{
	struct uet_tss_replay w = { 0 };

	cr_assert_eq(uet_tss_replay_check(&w, 7), 0);
	cr_assert_eq(uet_tss_replay_check(&w, 7), 0);
	cr_assert_eq(accept(&w, 7), 0);
	cr_assert_eq(uet_tss_replay_check(&w, 7), -EALREADY);
	cr_assert_eq(uet_tss_replay_check(&w, 100), 0);
	cr_assert_eq(uet_tss_replay_check(&w, 6), 0);
}

Test(tss_replay, reordering_within_window)
{
	struct uet_tss_replay w = { 0 };
	uint64_t t;

	/* Evens first, then odds, in blocks of the window's size. */
	for (t = 0; t < UET_TSS_REPLAY_WIN; t += 2)
		cr_assert_eq(accept(&w, t), 0);
	for (t = 1; t < UET_TSS_REPLAY_WIN; t += 2)
		cr_assert_eq(accept(&w, t), 0);
	for (t = 0; t < UET_TSS_REPLAY_WIN; t++)
		cr_assert_eq(accept(&w, t), -EALREADY);
	/* Backwards from a far top, down to its window's end. */
	cr_assert_eq(accept(&w, 10000), 0);
	for (t = 9999; t > 10000 - UET_TSS_REPLAY_WIN; t--)
		cr_assert_eq(accept(&w, t), 0, "tsc %lu", (unsigned long)t);
	cr_assert_eq(accept(&w, 10000 - UET_TSS_REPLAY_WIN), -ESTALE);
	cr_assert_eq(accept(&w, 9500), -EALREADY);
}

Test(tss_replay, jump_beyond_window)
{
	struct uet_tss_replay w = { 0 };
	uint64_t t;

	for (t = 0; t < 100; t++)
		cr_assert_eq(accept(&w, t), 0);
	/* A jump by exactly the window, and by more: old bits must not
	 * show through the ring. */
	cr_assert_eq(accept(&w, 99 + UET_TSS_REPLAY_WIN), 0);
	for (t = 100; t < 99 + UET_TSS_REPLAY_WIN; t++)
		cr_assert_eq(uet_tss_replay_check(&w, t), 0, "tsc %lu",
			     (unsigned long)t);
	cr_assert_eq(uet_tss_replay_check(&w, 99), -ESTALE);
	cr_assert_eq(accept(&w, 1ull << 40), 0);
	for (t = (1ull << 40) - UET_TSS_REPLAY_WIN + 1; t < 1ull << 40; t++)
		cr_assert_eq(uet_tss_replay_check(&w, t), 0);
	cr_assert_eq(uet_tss_replay_check(&w, 1ull << 40), -EALREADY);
	cr_assert_eq(accept(&w, UET_TSS_TSC_MAX), 0);
	cr_assert_eq(uet_tss_replay_check(&w, UET_TSS_TSC_MAX), -EALREADY);
}

/* ---- CRC32C ------------------------------------------------------------- */

Test(tss_crc32c, check_value_and_chaining)
{
	static const char s[] = "123456789";
	uint8_t buf[1031];
	uint32_t whole, c;
	size_t i, cut;

	cr_assert_eq(uet_crc32c(0, s, 9), 0xE3069283u);
	cr_assert_eq(uet_crc32c(0, s, 0), 0);
	for (cut = 0; cut <= 9; cut++)
		cr_assert_eq(uet_crc32c(uet_crc32c(0, s, cut), s + cut,
					9 - cut), 0xE3069283u);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 37 + 1);
	whole = uet_crc32c(0, buf, sizeof(buf));
	/* Unaligned starts and odd pieces give the same CRC. */
	for (cut = 1; cut < 40; cut += 3) {
		c = 0;
		for (i = 0; i < sizeof(buf); i += cut)
			c = uet_crc32c(c, buf + i, sizeof(buf) - i < cut ?
				       sizeof(buf) - i : cut);
		cr_assert_eq(c, whole, "pieces of %zu", cut);
	}
	/* 32 zero bytes: the iSCSI test vector (RFC 3720 B.4). */
	memset(buf, 0, 32);
	cr_assert_eq(uet_crc32c(0, buf, 32), 0x8A9136AAu);
	memset(buf, 0xff, 32);
	cr_assert_eq(uet_crc32c(0, buf, 32), 0x62A8AB43u);
}

/* CRC32C bit by bit, straight from the polynomial: the reference below. */
static uint32_t crc32c_bitwise(const uint8_t *p, size_t len)
{
	uint32_t c = ~0u;
	int k;

	while (len--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c & 1 ? c >> 1 ^ 0x82F63B78u : c >> 1;
	}
	return ~c;
}

/*
 * ISA-L (under uet_crc32c) takes other paths by length and alignment:
 * bytes, 8-byte steps, three interleaved streams folded with PCLMULQDQ
 * from a few hundred bytes on. Every one must give the polynomial's CRC.
 */
Test(tss_crc32c, matches_bitwise_reference)
{
	static uint8_t buf[8 + 9000];
	size_t lens[] = { 1, 7, 8, 63, 64, 65, 255, 256, 1023, 1024, 1025,
			  3071, 4096, 8192, 9000 };
	size_t i, off, len;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + (i >> 8) + 5);
	for (off = 0; off < 8; off++) {
		for (len = 0; len <= 300; len++)
			cr_assert_eq(uet_crc32c(0, buf + off, len),
				     crc32c_bitwise(buf + off, len),
				     "offset %zu, %zu bytes", off, len);
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
			cr_assert_eq(uet_crc32c(0, buf + off, lens[i]),
				     crc32c_bitwise(buf + off, lens[i]),
				     "offset %zu, %zu bytes", off, lens[i]);
	}
}
