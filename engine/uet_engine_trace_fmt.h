/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The text of FI_UET_TRACE's file (uet_engine_trace.c writes it): a
 * header line, then one line per initiator PDC and sample,
 *
 *   EPOCH_S PDCID PEER CWND_BYTES INFLIGHT_BYTES AVG_DELAY_NS SRTT_NS
 *   BASE_RTT_NS MAX_WND_BYTES RETX_TOTAL LINK_MBPS
 *
 * eleven numbers separated by one space: EPOCH_S the wall clock of the
 * sample (CLOCK_REALTIME, uet_engine_trace.c) in seconds with 6 decimals
 * (what bash's $EPOCHREALTIME prints, so that a benchmark's script can
 * line its own events up with it), the rest integers. No I/O here, so
 * that tests can check the text.
 */
#ifndef UET_ENGINE_TRACE_FMT_H
#define UET_ENGINE_TRACE_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "pdc/pdc.h"

/* Longest line either function below writes, its newline included. */
#define UET_TRACE_LINE_MAX	256

/* Writes the header line into |buf|; returns its length. */
int uet_trace_fmt_header(char *buf, size_t len);

/*
 * Writes the line of |in| sampled at |ts| into |buf| and returns its
 * length (snprintf's: |len| >= UET_TRACE_LINE_MAX always suffices).
 * Without NSCC the window is the PDC's in packets times |payload_mtu|,
 * bytes in flight are the SES bytes sent and not acknowledged, and the
 * delays and largest window NSCC keeps are 0.
 */
int uet_trace_fmt_line(char *buf, size_t len, const struct timespec *ts,
		       const struct pdc_info *in, uint32_t payload_mtu);

/*
 * Expands |pat| into |out|: each "%p" becomes |pid|, "%%" a '%'; any
 * other '%' stays. Returns the length, or -ENAMETOOLONG when it does not
 * fit |len| (a NUL included), -EINVAL for an empty pattern.
 */
int uet_trace_path(char *out, size_t len, const char *pat, pid_t pid);

#endif /* UET_ENGINE_TRACE_FMT_H */
