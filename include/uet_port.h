/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Code points of the switch-port model (bpf/uet_port.bpf.c) that the
 * endpoints must agree on: which DSCP marks a packet trimmable and what a
 * trimming switch rewrites it to. Macros only, so that BPF, the loader and
 * the engine can all include it.
 */
#ifndef UET_PORT_H
#define UET_PORT_H

#include "uet_wire.h"

/* The endpoints' code points (uet_wire.h, UET_DSCP_*): one definition. */
#define UET_PORT_DSCP_TRIMMABLE		UET_DSCP_TRIMMABLE
#define UET_PORT_DSCP_TRIMMED		UET_DSCP_TRIMMED
#define UET_PORT_DSCP_TRIMMED_LASTHOP	UET_DSCP_TRIMMED_LASTHOP

/*
 * UDP payload bytes a trimmed packet keeps by default: the PDS header and
 * the start of the SES header, enough for the receiver to tell which
 * packet it was and NACK it (htsim trims to 64 bytes too).
 */
#define UET_PORT_TRIM_KEEP		64

#endif /* UET_PORT_H */
