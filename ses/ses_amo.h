/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Atomics (ref 3.4, opcodes ATOMIC and FETCHING_ATOMIC): what a target
 * executes, under the checks of a WRITE (and, fetching, of a READ too).
 * Integers of 8 to 64 bits, float and double; operands travel in the
 * initiator's byte order (little-endian on every host this runs on). The
 * semantics are libfabric's (fi_atomic(3)): MIN, MAX, SUM, PROD, LOR,
 * LAND, BOR, BAND, LXOR, BXOR combine the operand into the target (the
 * logical and bitwise ones on integers only), READ leaves it, WRITE
 * replaces it, CSWAP_<c> replaces it when "compare <c> target" holds
 * (CSWAP: equal). A fetching atomic returns the values from before.
 */
#ifndef SES_AMO_H
#define SES_AMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of one |amo_dt| element, 0 for a datatype not served. */
size_t ses_amo_elem_len(uint8_t amo_dt);

/* Whether a target executes |amo_op| on |amo_dt|. */
bool ses_amo_is_supported(uint8_t amo_op, uint8_t amo_dt);

/*
 * Applies |amo_op| to the |len| bytes (whole elements) at |dst| with the
 * operands at |src| (and, for CSWAP.., the compare values at |cmp|),
 * copying the values from before to |old| when it is not NULL. Returns
 * UET_SES_RC_OK, or UET_SES_RC_AMO_UNSUPPORTED_OP / _DT / _SIZE and
 * changes nothing.
 */
uint8_t ses_amo_apply(uint8_t amo_op, uint8_t amo_dt, uint8_t *dst,
		      const uint8_t *src, const uint8_t *cmp, uint8_t *old,
		      size_t len);

#endif /* SES_AMO_H */
