/* SPDX-License-Identifier: BSD-2-Clause */
/* uetctl's verbs shared between its source files. */
#ifndef UETCTL_H
#define UETCTL_H

#include <stdbool.h>

/* Prints "uetctl VERB: IFACE: why" for |err| (-errno); returns 1. */
int uetctl_fail(const char *verb, const char *ifname, int err);

/*
 * Captures UET frames steered on |ifname| into the pcap file |path| until
 * |count| frames (0: no limit), |duration_s| seconds (0: none) or a signal;
 * with |decode|, then shows them with tshark. Returns the exit status.
 */
int uetctl_capture(const char *ifname, const char *path, long count,
		   double duration_s, bool decode);

#endif /* UETCTL_H */
