/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target for one header decoder, chosen at build time with
 * -DFUZZ_TARGET=<codec> (e.g. ses_std_hdr). Besides memory safety it checks
 * that whatever decodes also encodes, and that encode(decode(x)) is a fixed
 * point: a second decode/encode gives the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "tss/uet_tss.h"

#ifndef FUZZ_TARGET
#error "build with -DFUZZ_TARGET=<codec name>"
#endif

#define FUZZ_CAT(a, b)		a##b
#define FUZZ_FN(t, verb)	FUZZ_CAT(t, verb)
#define FUZZ_DECODE		FUZZ_FN(FUZZ_TARGET, _decode)
#define FUZZ_ENCODE		FUZZ_FN(FUZZ_TARGET, _encode)

typedef struct FUZZ_TARGET fuzz_hdr_t;

/* Larger than any header; the decoder must not read past |size|. */
#define FUZZ_OUT_LEN	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t out1[FUZZ_OUT_LEN], out2[FUZZ_OUT_LEN];
	fuzz_hdr_t h1, h2;
	ssize_t n, m1, m2;

	memset(&h1, 0, sizeof(h1));
	memset(&h2, 0, sizeof(h2));
	n = FUZZ_DECODE(&h1, data, size);
	if (n < 0)
		return 0;
	if ((size_t)n > size || n > FUZZ_OUT_LEN)
		abort();
	m1 = FUZZ_ENCODE(out1, sizeof(out1), &h1);
	if (m1 != n)
		abort();	/* decoded but not encodable, or lengths differ */
	if (FUZZ_DECODE(&h2, out1, (size_t)m1) != n)
		abort();
	m2 = FUZZ_ENCODE(out2, sizeof(out2), &h2);
	if (m2 != m1 || memcmp(out1, out2, (size_t)m1) != 0)
		abort();
	return 0;
}
