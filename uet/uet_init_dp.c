/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The provider's data-protection settings (FI_UET_TSS, FI_UET_CRC): TSS
 * with the keys the device service holds for the endpoint's JobID, or a
 * CRC32C trailer (UE 1.0 3.7; engine/uet_engine_tss.c). See fi_uet(7).
 */
#include <string.h>

#include "uet/uet.h"

void uet_params_dp_define(void)
{
	fi_param_define(&uet_prov, "tss", FI_PARAM_STRING,
			"Encryption and authentication of every packet (UE "
			"TSS, AES-256-GCM) with the keys of the secure domain "
			"the device service's key file puts the JobID in: auto "
			"(when there is one), on (fail without), direct or "
			"cluster (on, and the domain's mode must be this one), "
			"off (clear; sealed packets are dropped); default auto");
	fi_param_define(&uet_prov, "crc", FI_PARAM_BOOL,
			"Without TSS, a CRC32C trailer on every packet, checked "
			"on receipt: bad ones are dropped and counted; both "
			"ends must agree (default 0)");
}

void uet_params_dp_get(struct uet_params *p)
{
	static const char *const names[] = {
		[UET_ENGINE_TSS_OFF] = "off",
		[UET_ENGINE_TSS_AUTO] = "auto",
		[UET_ENGINE_TSS_ON] = "on",
		[UET_ENGINE_TSS_DIRECT] = "direct",
		[UET_ENGINE_TSS_CLUSTER] = "cluster",
	};
	char *tss = NULL;
	int crc;

	p->tss = UET_ENGINE_TSS_AUTO;
	if (fi_param_get_str(&uet_prov, "tss", &tss) == FI_SUCCESS && tss) {
		uint8_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tss, names[i]))
				break;
		if (i < sizeof(names) / sizeof(names[0]))
			p->tss = i;
		else
			FI_WARN(&uet_prov, FI_LOG_CORE,
				"FI_UET_TSS=%s is not auto, on, direct, "
				"cluster or off: auto\n", tss);
	}
	if (fi_param_get_bool(&uet_prov, "crc", &crc) == FI_SUCCESS)
		p->crc = crc != 0;
}
