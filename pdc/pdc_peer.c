/* SPDX-License-Identifier: BSD-2-Clause */
/* Which peer a local PDC belongs to (pdc.h, pdc_local_peer). */
#include <errno.h>

#include "pdc/pdc_priv.h"

int pdc_local_peer(const struct pdc_mgr *mgr, uint16_t pdcid, bool initiator,
		   uint32_t *peer)
{
	const struct pdc *pdc = pdc_by_id(mgr, pdcid);

	if (!pdc || pdc->role != (initiator ? PDC_ROLE_INI : PDC_ROLE_TGT))
		return -ENOENT;
	*peer = pdc->peer;
	return 0;
}
