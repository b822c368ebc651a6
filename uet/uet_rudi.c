/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RUDI for RMA (UE 1.0 3.5, the HPC profile; fi_uet(7) "RUDI"): which
 * fi_write and fi_read go without a PDC. Three parties must agree:
 *
 * - the target application registered the region with
 *   FI_UET_MR_IDEMPOTENT (rdma/fi_ext_uet.h): writing or reading it twice
 *   is harmless to it. Its key then carries UET_MKEY_IDEMPOTENT_SAFE (bit
 *   63), which is how the initiator learns it, with the key itself;
 * - the target endpoint serves RUDI: it says so in its address
 *   (UET_ADDR_CAP_RUDI, the HPC profile of ref 5.2), which the initiator
 *   has from fi_av_insert, so that no exchange precedes the first request;
 * - FI_UET_RUDI is auto (the default) on both sides; off sends none,
 *   serves none and advertises none.
 *
 * Then a WRITE or READ that RUDI can carry goes so: no FI_REMOTE_CQ_DATA
 * (its completion at the target would be raised once per copy), no
 * FI_DELIVERY_COMPLETE (answered per packet, nothing waits for the
 * message). A READ asks for its data a Payload MTU a packet. Anything
 * else takes a PDC as before. The target checks all
 * again: a key bit set by the initiator on a region registered otherwise
 * is refused (RC_OP_VIOLATION) and changes nothing.
 */
#include <string.h>

#include "uet/uet.h"
#include "uet/uet_addr.h"

void uet_params_rudi_define(void)
{
	fi_param_define(&uet_prov, "rudi", FI_PARAM_STRING,
			"RUDI, reliable unordered delivery without a PDC, for "
			"fi_write and fi_read to regions registered "
			"FI_UET_MR_IDEMPOTENT: auto (when the peer's address "
			"says it serves RUDI; serve and advertise it) or off "
			"(never: RMA takes a PDC; RUDI requests are refused); "
			"default auto");
}

void uet_params_rudi_get(struct uet_params *p)
{
	char *v = NULL;

	p->rudi = true;
	if (fi_param_get_str(&uet_prov, "rudi", &v) != FI_SUCCESS || !v)
		return;
	if (!strcmp(v, "off"))
		p->rudi = false;
	else if (strcmp(v, "auto"))
		FI_WARN(&uet_prov, FI_LOG_CORE,
			"FI_UET_RUDI=%s is not auto or off: auto\n", v);
}

bool uet_rudi_wanted(const struct uet_ep *ep, fi_addr_t addr, uint64_t mkey,
		     uint8_t opcode, uint64_t flags)
{
	const struct uet_av_entry *e;

	if (!ep->dom->params.rudi || !(mkey & UET_MKEY_IDEMPOTENT_SAFE) ||
	    (flags & (FI_REMOTE_CQ_DATA | FI_DELIVERY_COMPLETE)))
		return false;
	if (opcode != UET_SES_OP_READ && opcode != UET_SES_OP_WRITE)
		return false;
	e = uet_av_entry_get(ep->av, addr);
	return e && (e->fep_caps & UET_ADDR_CAP_RUDI);
}
