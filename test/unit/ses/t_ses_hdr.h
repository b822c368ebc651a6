/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the SES header codec tests (test/unit/ses/test_ses_hdr_*.c,
 * test/unit/ses/test_ses_names.c): output checks, flag and return-code checks.
 */
#ifndef T_SES_HDR_H
#define T_SES_HDR_H

#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ses/ses_hdr.h"

#define T_SENTINEL	0xA5
#define T_BUF_LEN	64

/*
 * Every decoder must refuse every length shorter than its header. A macro,
 * since the decoders take different struct types.
 */
#define T_ASSERT_TRUNCATED(decode, type, vec)				\
	do {								\
		for (size_t n_ = 0; n_ < sizeof(vec); n_++) {		\
			type h_;					\
			memset(&h_, 0, sizeof(h_));			\
			cr_assert_eq(decode(&h_, (vec), n_), -EBADMSG,	\
				     "length %zu of %zu", n_, sizeof(vec)); \
		}							\
	} while (0)

/* Fill an output buffer with a sentinel to catch writes past the header. */
static inline void t_fill(uint8_t *buf)
{
	memset(buf, T_SENTINEL, T_BUF_LEN);
}

/* |ret| and |buf| are what an encoder gave; |vec| is what it should give. */
static inline void t_assert_encoded(ssize_t ret, const uint8_t *buf,
				    const uint8_t *vec, size_t len)
{
	cr_assert_eq(ret, (ssize_t)len, "encode returned %zd, want %zu", ret,
		     len);
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(buf[i], vec[i], "byte %zu: 0x%02x, want 0x%02x",
			     i, buf[i], vec[i]);
	for (size_t i = len; i < T_BUF_LEN; i++)
		cr_assert_eq(buf[i], T_SENTINEL, "byte %zu written past end",
			     i);
}

static inline void t_flags_assert_eq(const struct ses_req_flags *a,
				     const struct ses_req_flags *b)
{
	cr_assert_eq(a->dc, b->dc);
	cr_assert_eq(a->ie, b->ie);
	cr_assert_eq(a->rel, b->rel);
	cr_assert_eq(a->hd, b->hd);
	cr_assert_eq(a->eom, b->eom);
	cr_assert_eq(a->som, b->som);
}

/* Return codes ref 3.5 leaves reserved: 0x25-0x2F, 0x38-0x3D, 0x3F. */
static inline bool t_rc_is_reserved(unsigned int rc)
{
	return (rc >= 0x25 && rc <= 0x2F) || (rc >= 0x38 && rc <= 0x3D) ||
	       rc == 0x3F;
}

#endif /* T_SES_HDR_H */
