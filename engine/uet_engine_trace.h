/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_UET_TRACE: the congestion state of each busy initiator PDC, sampled
 * from progress into a file (uet_engine_trace.c; the lines:
 * uet_engine_trace_fmt.h).
 */
#ifndef UET_ENGINE_TRACE_H
#define UET_ENGINE_TRACE_H

#include "engine/uet_engine_priv.h"

/* Smallest and default sampling interval, us (FI_UET_TRACE_US). */
#define UET_TRACE_US_MIN	100
#define UET_TRACE_US_DEFAULT	1000

/*
 * At create, after the PDC manager: opens the process's trace file when
 * cfg.trace_path asks for one and none is open, else shares it. A file
 * that cannot be opened is reported once per process through ops.warn;
 * the engine then runs without a trace (never fails for it).
 */
void uet_engine_trace_open(struct uet_engine *e);

/*
 * At destroy: the last engine to leave flushes the file, which stays open
 * for the process's next endpoints (uet_engine_trace.c says why).
 */
void uet_engine_trace_close(struct uet_engine *e);

#endif /* UET_ENGINE_TRACE_H */
