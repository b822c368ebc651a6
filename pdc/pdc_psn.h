/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wrap-safe PSN arithmetic. PSNs are 32-bit and compared through the signed
 * difference (ref 2.9: window 2^31); never compare two PSNs with < or >.
 */
#ifndef PDC_PSN_H
#define PDC_PSN_H

#include <stdbool.h>
#include <stdint.h>

/* |a| - |b| as a signed distance; meaningful while |a| and |b| are < 2^31 apart. */
static inline int32_t pdc_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

/* True when |a| comes strictly before |b|. */
static inline bool pdc_psn_before(uint32_t a, uint32_t b)
{
	return pdc_psn_diff(a, b) < 0;
}

/* True when |a| comes strictly after |b|. */
static inline bool pdc_psn_after(uint32_t a, uint32_t b)
{
	return pdc_psn_diff(a, b) > 0;
}

/* True when |a| is |b| or comes before it. */
static inline bool pdc_psn_before_eq(uint32_t a, uint32_t b)
{
	return pdc_psn_diff(a, b) <= 0;
}

/* True when |psn| lies in [|lo|, |lo| + |cnt|), however the range wraps. */
static inline bool pdc_psn_in(uint32_t psn, uint32_t lo, uint32_t cnt)
{
	return psn - lo < cnt;
}

/* The later of |a| and |b|. */
static inline uint32_t pdc_psn_max(uint32_t a, uint32_t b)
{
	return pdc_psn_after(a, b) ? a : b;
}

#endif /* PDC_PSN_H */
