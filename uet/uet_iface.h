/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Host names, PIDonFEP service strings and local interfaces, for
 * fi_getinfo and fi_av_insertsvc (uet_iface.c). No libfabric here.
 */
#ifndef UET_IFACE_H
#define UET_IFACE_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "uet/uet_addr.h"

#define UET_CAND_MAX	32

/* A local interface address an endpoint could use. */
struct uet_cand {
	char ifname[IF_NAMESIZE];
	struct uet_fa fa;
};

/* What to look for: each field may be NULL. */
struct uet_cand_query {
	const char *ifname;		/* only this interface */
	const struct uet_fa *src;	/* exactly this local address */
	const struct uet_fa *dest;	/* the interface that reaches it */
};

/*
 * uet_fa_resolve() turns a host name or address into an address, IPv4
 * preferred. With |numeric| no name lookup is done. 0 or -ENOENT.
 */
int uet_fa_resolve(const char *node, bool numeric, struct uet_fa *fa);

/*
 * uet_pid_parse() reads a service string: a PIDonFEP "0".."4095", or a
 * port-like number up to 65535 mapped to one (uet_fep_service_pid(),
 * include/uet_fep.h). 0 or -EINVAL.
 */
int uet_pid_parse(const char *service, uint16_t *pid);

/*
 * uet_cands_find() lists up to |max| local addresses (up, not IPv6
 * link-local; loopback only when |q->ifname| names it or |q->src| or
 * |q->dest| is on it) matching |q|. With |q->dest|: the one interface
 * whose subnet holds it, else the first of its family. Returns the count
 * or -errno from getifaddrs.
 */
int uet_cands_find(const struct uet_cand_query *q, struct uet_cand *out,
		   int max);

/* uet_iface_fa() gives the first address of |ifname| of one family.
 * 0, -EADDRNOTAVAIL or -errno. */
int uet_iface_fa(const char *ifname, bool want_v6, struct uet_fa *fa);

#endif /* UET_IFACE_H */
