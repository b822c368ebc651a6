/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetctl's Prometheus exposition (issue 44): the formatter
 * (uetctl_prom.c, no I/O of its own) and the verb around it
 * (uetctl_prom_out.c: stdout, or a node_exporter textfile).
 */
#ifndef UETCTL_PROM_H
#define UETCTL_PROM_H

#include <stdint.h>
#include <stdio.h>

#include "dev/uet_dev_proto.h"

/* The name of the user |uid| for the `user` label, or NULL: no label. */
typedef const char *uetctl_prom_user_fn(uint32_t uid, void *ctx);

/*
 * Writes |st| to |f| in Prometheus' text exposition format 0.0.4: a HELP
 * and a TYPE line per metric, every name uet_*, every sample labelled
 * iface; the endpoints' samples also endpoint, job_id, uid, user (when
 * |user| names it) and pid. Counters end in _total. The same |st| gives
 * the same bytes. Returns 0, -EINVAL (|st| is not one: ep_cnt too big,
 * iface unterminated), or -errno of the stream.
 */
int uetctl_prom_write(FILE *f, const struct uet_dev_stats *st,
		      uetctl_prom_user_fn *user, void *ctx);

/* A uetctl_prom_user_fn from the password database (getpwuid_r). */
const char *uetctl_prom_user_passwd(uint32_t uid, void *ctx);

/* The HELP text of the XDP program's counter |id|; NULL past the last. */
const char *uetctl_prom_xdp_counter_help(unsigned int id);

/*
 * uetctl stats IFACE --prometheus: prints to stdout when |dir| is NULL;
 * else writes DIR/uet_IFACE.prom (a temporary file in DIR, synced, then
 * renamed over it), once, or every |interval_s| seconds (> 0) until
 * SIGINT or SIGTERM. Returns uetctl's exit status (messages on stderr).
 */
int uetctl_prom_run(const char *ifname, const char *dir, long interval_s);

#endif /* UETCTL_PROM_H */
