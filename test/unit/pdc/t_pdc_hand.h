/* SPDX-License-Identifier: BSD-2-Clause */
/* Two managers driven by hand, frames passed between them at given times. */
#ifndef T_PDC_HAND_H
#define T_PDC_HAND_H

#include <criterion/criterion.h>

#include "pdc/pdc.h"

/* Hands every frame |from| has now to |to|, as from peer (and src) |src|. */
static inline void t_hand(struct pdc_mgr *from, struct pdc_mgr *to,
			  uint32_t src, uint64_t now)
{
	struct pdc_rx_meta meta = { .peer = src, .src = src };
	uint8_t buf[512];
	uint32_t peer;
	ssize_t n;

	while ((n = pdc_tx_build(from, buf, sizeof(buf), &peer, now)) > 0)
		cr_assert_eq(pdc_rx_frame(to, &meta, buf, (size_t)n, now), 0);
}

#endif /* T_PDC_HAND_H */
