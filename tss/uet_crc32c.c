// SPDX-License-Identifier: BSD-2-Clause
/*
 * CRC32C on ISA-L's crc32_iscsi (libisal2), which picks its fastest code
 * for the CPU at load time (three interleaved crc32 streams folded with
 * PCLMULQDQ where there are both). It replaced our own SSE4.2 loop, one
 * crc32 at a time, 8 bytes a step (issue 44): bench_crc32c, 4 runs
 * pinned and unpinned, medians of 9, ns per call ours vs ISA-L: 64 B
 * 8.8-15.7 vs 6.8-10.1 (ISA-L 1.3-1.6 times faster), 1 KiB 99-109 vs
 * 27-33 (3.3-3.8 times), 8 KiB 835-884 vs 157-202 (4.3-5.3 times).
 */
#include <limits.h>

#include <isa-l/crc.h>

#include "tss/uet_crc32c.h"

uint32_t uet_crc32c(uint32_t crc, const void *p, size_t len)
{
	/* ISA-L takes and returns the raw register: the initial value and
	 * final XOR with ~0 are ours to apply. It does not write the buffer
	 * (its prototype lacks the const). */
	unsigned char *b = (unsigned char *)p;
	uint32_t c = ~crc;

	/* Its length is an int: longer buffers go in pieces. */
	for (; len > INT_MAX; len -= INT_MAX, b += INT_MAX)
		c = crc32_iscsi(b, INT_MAX, c);
	return ~crc32_iscsi(b, (int)len, c);
}
