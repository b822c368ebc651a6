// SPDX-License-Identifier: BSD-2-Clause
/*
 * CRC32C: SSE4.2's crc32 instruction, 8 bytes a step, chosen at run time
 * (the build targets plain x86-64), or a byte-wise table elsewhere.
 */
#include <stdbool.h>
#include <string.h>

#include "tss/uet_crc32c.h"

#define CRC32C_POLY	0x82F63B78u

static uint32_t crc_table[256];

static void __attribute__((constructor)) crc_table_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? c >> 1 ^ CRC32C_POLY : c >> 1;
		crc_table[i] = c;
	}
}

/* The raw register (no initial value or final XOR) over |len| bytes. */
static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t len)
{
	while (len--)
		c = crc_table[(c ^ *p++) & 0xff] ^ c >> 8;
	return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t len)
{
	uint64_t c64 = c, v;

	while (len && ((uintptr_t)p & 7)) {
		c64 = __builtin_ia32_crc32qi((uint32_t)c64, *p++);
		len--;
	}
	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
	}
	while (len--)
		c64 = __builtin_ia32_crc32qi((uint32_t)c64, *p++);
	return (uint32_t)c64;
}

static bool have_sse42(void)
{
	static int have = -1;

	/* A benign race: every thread computes the same answer. */
	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("sse4.2");
	}
	return have;
}
#endif

uint32_t uet_crc32c(uint32_t crc, const void *p, size_t len)
{
	uint32_t c = ~crc;

#if defined(__x86_64__)
	if (have_sse42())
		return ~crc_hw(c, p, len);
#endif
	return ~crc_sw(c, p, len);
}
