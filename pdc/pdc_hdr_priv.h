/* SPDX-License-Identifier: BSD-2-Clause */
/* Helpers shared by the PDS codec files; not part of the pdc/ API. */
#ifndef PDC_HDR_PRIV_H
#define PDC_HDR_PRIV_H

#include <stdint.h>
#include <sys/types.h>

#include "pdc/pdc_hdr.h"

/* Flag bits defined for |type| (ref 2.5); the rest are reserved. */
uint8_t pdc_flags_valid_mask(uint8_t type);

/* Prologue put/get at |p|, reserved flag bits cleared; no checks. */
uint8_t *pdc_prologue_put(uint8_t *p, const struct pdc_prologue *pro);
const uint8_t *pdc_prologue_get(struct pdc_prologue *pro, const uint8_t *p);

/*
 * The checks every decoder (encoder) starts with: length, a valid prologue
 * whose type is in |types| (bit set of 1 << type). Return the header length
 * or the decoder's (encoder's) error.
 */
ssize_t pdc_decode_start(struct pdc_prologue *pro, const uint8_t *in,
			 size_t inlen, uint32_t types);
ssize_t pdc_encode_start(const struct pdc_prologue *pro, size_t outlen,
			 uint32_t types);

#endif /* PDC_HDR_PRIV_H */
