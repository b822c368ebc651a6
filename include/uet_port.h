/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Code points of the switch-port model (bpf/uet_port.bpf.c) that the
 * endpoints must agree on: which DSCP marks a packet trimmable and what a
 * trimming switch rewrites it to. Macros only, so that BPF, the loader and
 * the engine can all include it.
 */
#ifndef UET_PORT_H
#define UET_PORT_H

/*
 * spec 3.6.17 leaves DSCP_TRIMMABLE, DSCP_TRIMMED and DSCP_TRIMMED_LASTHOP
 * to the operator; these are ours: 10 is AF11, 46 EF (forwarded first,
 * which suits a trimmed header), 44 VOICE-ADMIT (RFC 5865); nothing on
 * the emulated fabric gives them any other meaning.
 */
#define UET_PORT_DSCP_TRIMMABLE		10
#define UET_PORT_DSCP_TRIMMED		46
#define UET_PORT_DSCP_TRIMMED_LASTHOP	44

/*
 * UDP payload bytes a trimmed packet keeps by default: the PDS header and
 * the start of the SES header, enough for the receiver to tell which
 * packet it was and NACK it (htsim trims to 64 bytes too).
 */
#define UET_PORT_TRIM_KEEP		64

#endif /* UET_PORT_H */
