/* SPDX-License-Identifier: BSD-2-Clause */
/* PDC ops that do nothing, for tests that drive a manager by hand. */
#ifndef T_PDC_NOP_H
#define T_PDC_NOP_H

#include <string.h>

#include "pdc/pdc.h"

static int t_nop_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
			 struct pdc_resp *resp)
{
	(void)ctx;
	(void)pkt;
	(void)resp;
	return 0;
}

static int t_nop_fill(void *ctx, uint64_t cookie, uint8_t *buf, size_t len)
{
	(void)ctx;
	(void)cookie;
	memset(buf, 0, len);
	return 0;
}

static void t_nop_done(void *ctx, const struct pdc_tx_done *d)
{
	(void)ctx;
	(void)d;
}

static void t_nop_event(void *ctx, const struct pdc_event *ev)
{
	(void)ctx;
	(void)ev;
}

static const struct pdc_ops t_nop_ops = {
	.deliver = t_nop_deliver, .fill = t_nop_fill,
	.tx_done = t_nop_done, .event = t_nop_event,
};

#endif /* T_PDC_NOP_H */
