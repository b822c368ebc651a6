/* SPDX-License-Identifier: BSD-2-Clause */
/* uetctl's verbs shared between its source files. */
#ifndef UETCTL_H
#define UETCTL_H

#include <stdbool.h>
#include <stddef.h>

/* Prints "uetctl VERB: IFACE: why" for |err| (-errno); returns 1. */
int uetctl_fail(const char *verb, const char *ifname, int err);

/*
 * Captures UET frames steered on |ifname| into the pcap file |path| until
 * |count| frames (0: no limit), |duration_s| seconds (0: none) or a signal;
 * with |decode|, then shows them with tshark. Returns the exit status.
 */
int uetctl_capture(const char *ifname, const char *path, long count,
		   double duration_s, bool decode);

/*
 * The device service (uetctl_svc.c). start: runs uetd for |ifname| and
 * waits until it serves (0) or fails (-errno, reason in |why|); stop:
 * asks it to stop and waits (-ENOENT: none runs); stats: prints its
 * figures (-ENOENT: none runs).
 */
int uetctl_svc_start(const char *ifname, const char *mode, long port,
		     long endpoints, long tx_chunks, long queues,
		     const char *policy,
		     const char *busy_poll, const char *tss_keys,
		     const char *tss_state, char *why, size_t why_len);
int uetctl_svc_stop(const char *ifname);
int uetctl_svc_stats(const char *ifname, bool json);
/*
 * The service's figures as they are (UET_DEV_F_BINARY) into |st|: 0,
 * -ENOENT (none runs), -EPROTO (its answer is not one: an older
 * service), or -errno.
 */
struct uet_dev_stats;
int uetctl_svc_snapshot(const char *ifname, struct uet_dev_stats *st);
/* Prints the service's own lines (itself, its endpoints) for status. */
void uetctl_svc_status(const char *ifname);

#endif /* UETCTL_H */
