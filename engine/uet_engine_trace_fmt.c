/* SPDX-License-Identifier: BSD-2-Clause */
/* FI_UET_TRACE's lines and file name (uet_engine_trace_fmt.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/uet_engine_trace_fmt.h"

int uet_trace_fmt_header(char *buf, size_t len)
{
	return snprintf(buf, len, "# EPOCH_S PDCID PEER CWND_BYTES "
			"INFLIGHT_BYTES AVG_DELAY_NS SRTT_NS BASE_RTT_NS "
			"MAX_WND_BYTES RETX_TOTAL LINK_MBPS\n");
}

int uet_trace_fmt_line(char *buf, size_t len, const struct timespec *ts,
		       const struct pdc_info *in, uint32_t payload_mtu)
{
	uint64_t cwnd = in->nscc ? in->cwnd_bytes :
			(uint64_t)in->cwnd * payload_mtu;
	uint64_t infl = in->nscc ? in->inflight_bytes : in->unacked_bytes;

	return snprintf(buf, len, "%lld.%06ld %u %u %llu %llu %llu %llu %llu "
			"%u %llu %u\n", (long long)ts->tv_sec,
			ts->tv_nsec / 1000, in->pdcid, in->peer,
			(unsigned long long)cwnd, (unsigned long long)infl,
			(unsigned long long)in->avg_delay_ns,
			(unsigned long long)in->srtt_ns,
			(unsigned long long)in->base_rtt_ns, in->max_wnd_bytes,
			(unsigned long long)in->retx, in->link_mbps);
}

int uet_trace_path(char *out, size_t len, const char *pat, pid_t pid)
{
	size_t n = 0;

	if (!pat || !*pat)
		return -EINVAL;
	for (; *pat; pat++) {
		char num[24];
		const char *add = num;
		size_t k;

		if (pat[0] == '%' && pat[1] == 'p') {
			snprintf(num, sizeof(num), "%ld", (long)pid);
			pat++;
		} else if (pat[0] == '%' && pat[1] == '%') {
			add = "%";
			pat++;
		} else {
			num[0] = *pat;
			num[1] = '\0';
		}
		k = strlen(add);
		if (n + k >= len)
			return -ENAMETOOLONG;
		memcpy(out + n, add, k);
		n += k;
	}
	out[n] = '\0';
	return (int)n;
}
