// SPDX-License-Identifier: BSD-2-Clause
/*
 * CRC32C cost per call on 64, 1024 and 8192 bytes: uet_crc32c against a
 * direct call of ISA-L's crc32_iscsi (libisal2), which it wraps since
 * issue 44, so that the wrapper's cost shows (ratio near 1; its extra
 * call is about 1 ns). Before, uet_crc32c was our own SSE4.2 loop and
 * this bench chose between them (ISA-L 1.3 to 5 times faster: the
 * figures are in tss/uet_crc32c.c). The data starts 26 bytes into a
 * cache line, where the engine's CRC starts (an IPv4 frame's source
 * address). Each run times both, in turn (which goes first alternates,
 * so that neither always finds the caches warmed by the other); the
 * figures are medians of B_RUNS runs, printed as `bench: NAME VALUE
 * UNIT` lines. BENCH_SMOKE=1 (bench_smoke.sh): 3 short runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <isa-l/crc.h>

#include "tss/uet_crc32c.h"

#include "test/bench/bench_stats.h"

#define B_RUNS		9
#define B_RUN_BYTES	(64u << 20)	/* bytes per run and implementation */
#define B_MAX		8192
#define B_OFF		26		/* 14 (Ethernet) + 12 (IPv4 to saddr) */

/* ISA-L called directly (its register in and out without the XOR). */
static uint32_t isal_crc32c(uint32_t crc, const void *p, size_t len)
{
	return ~crc32_iscsi((unsigned char *)p, (int)len, ~crc);
}

typedef uint32_t (*crc_fn)(uint32_t crc, const void *p, size_t len);

static volatile uint32_t sink;

/* ns per call of |fn| over |n| calls on |len| bytes at |p|. */
static double time_ns(crc_fn fn, const uint8_t *p, size_t len, size_t n)
{
	uint32_t acc = 0;
	double t0 = now_ns();
	size_t i;

	/* Independent calls, as the engine's packets are; the sum keeps
	 * the compiler from dropping any. */
	for (i = 0; i < n; i++)
		acc += fn(0, p, len);
	sink = acc;
	return (now_ns() - t0) / (double)n;
}

int main(void)
{
	static const struct { size_t len; const char *tag; } sz[] = {
		{ 64, "64" }, { 1024, "1k" }, { 8192, "8k" },
	};
	static uint8_t buf[B_OFF + B_MAX] __attribute__((aligned(64)));
	double wrap[B_RUNS], isal[B_RUNS], mw, mi;
	int runs = getenv("BENCH_SMOKE") ? 3 : B_RUNS, r;
	size_t bytes = getenv("BENCH_SMOKE") ? 4u << 20 : B_RUN_BYTES;
	const uint8_t *p = buf + B_OFF;
	unsigned int i;
	size_t n;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 37 + 1);
	for (i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
		/* Different answers would make the comparison meaningless. */
		if (uet_crc32c(0, p, sz[i].len) != isal_crc32c(0, p, sz[i].len)) {
			fprintf(stderr, "bench_crc32c: CRCs differ on %zu bytes\n",
				sz[i].len);
			return 1;
		}
		n = bytes / sz[i].len;
		for (r = 0; r < runs; r++) {
			if (r & 1) {
				isal[r] = time_ns(isal_crc32c, p, sz[i].len, n);
				wrap[r] = time_ns(uet_crc32c, p, sz[i].len, n);
			} else {
				wrap[r] = time_ns(uet_crc32c, p, sz[i].len, n);
				isal[r] = time_ns(isal_crc32c, p, sz[i].len, n);
			}
		}
		mw = median(wrap, runs);
		mi = median(isal, runs);
		printf("bench: crc32c_%s_ns %.2f ns\n", sz[i].tag, mw);
		printf("bench: crc32c_%s_gbps %.2f GB/s\n", sz[i].tag,
		       sz[i].len / mw);
		printf("bench: crc32c_isal_direct_%s_ns %.2f ns\n", sz[i].tag,
		       mi);
		printf("bench: crc32c_over_isal_direct_%s %.3f ratio\n",
		       sz[i].tag, mw / mi);
		fflush(stdout);
	}
	return 0;
}
