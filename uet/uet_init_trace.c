/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The provider's congestion trace settings (FI_UET_TRACE, FI_UET_TRACE_US):
 * a file of each busy initiator PDC's window and delays over time, for
 * plots of an incast (engine/uet_engine_trace.c). See fi_uet(7).
 */
#include <string.h>

#include "engine/uet_engine_trace.h"
#include "uet/uet.h"

/* An hour: a longer interval is a mistake. */
#define UET_TRACE_US_MAX	3600000000u

void uet_params_trace_define(void)
{
	/* Help texts are printf formats: %% is one % (man/params.sh too). */
	fi_param_define(&uet_prov, "trace", FI_PARAM_STRING,
			"File into which each endpoint's progress writes, "
			"every FI_UET_TRACE_US, a line for each initiator PDC "
			"that sent since the last sample or has packets in "
			"flight (idle ones cost nothing), after a header line "
			"naming the columns: EPOCH_S PDCID PEER CWND_BYTES "
			"INFLIGHT_BYTES AVG_DELAY_NS SRTT_NS BASE_RTT_NS "
			"MAX_WND_BYTES RETX_TOTAL LINK_MBPS, that is the "
			"sample's wall "
			"clock time (CLOCK_REALTIME as at the file's opening "
			"plus the monotonic time since: it never goes back) "
			"in seconds with 6 decimals, as bash's EPOCHREALTIME, "
			"the PDC's id, the endpoint's index "
			"of its peer, NSCC's window, bytes in flight, average "
			"queueing delay, smoothed RTT, base RTT and largest "
			"window, the PDC's retransmissions so far, and the "
			"link rate NSCC works with (learnt, where the driver "
			"reports none). "
			"Without NSCC (FI_UET_CC=off or rccc) the window is "
			"the one in packets times the Payload MTU, bytes in "
			"flight are those not yet acknowledged, and the NSCC "
			"delays, largest window and rate are 0. Each %%p in the "
			"name becomes the process id; a process's endpoints "
			"share the file the first one creates. A file that "
			"cannot be created is warned of once and the "
			"endpoints run without it (default: none)");
	fi_param_define(&uet_prov, "trace_us", FI_PARAM_INT,
			"Microseconds between two samples of FI_UET_TRACE, "
			"100 or more (default 1000)");
}

void uet_params_trace_get(struct uet_params *p)
{
	char *path = NULL;
	uint32_t us = UET_TRACE_US_DEFAULT;

	if (fi_param_get_str(&uet_prov, "trace", &path) == FI_SUCCESS &&
	    path && *path) {
		if (strlen(path) < sizeof(p->trace_path))
			strcpy(p->trace_path, path);
		else
			FI_WARN(&uet_prov, FI_LOG_CORE, "FI_UET_TRACE=%s is "
				"longer than %zu bytes: no trace\n", path,
				sizeof(p->trace_path) - 1);
	}
	uet_param_int("trace_us", UET_TRACE_US_MAX, &us);
	if (us < UET_TRACE_US_MIN) {
		FI_WARN(&uet_prov, FI_LOG_CORE, "FI_UET_TRACE_US=%u is below "
			"%u: %u\n", us, UET_TRACE_US_MIN, UET_TRACE_US_MIN);
		us = UET_TRACE_US_MIN;
	}
	p->trace_us = us;
}
