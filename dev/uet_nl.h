/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Next-hop resolution through the kernel's routing and neighbour tables
 * (rtnetlink), so frames written by the AF_XDP engine carry the MAC address
 * the kernel itself would use.
 */
#ifndef UET_NL_H
#define UET_NL_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

struct uet_nl_route {
	int ifindex;			/* output interface */
	bool is_v6;
	union {				/* preferred source address */
		struct in_addr v4;
		struct in6_addr v6;
	} src;
	bool has_src;
	uint8_t mac[6];			/* next hop's MAC address */
};

/*
 * uet_nl_resolve() looks up the route to |dst| (an in_addr or in6_addr as
 * |is_v6| says) and the MAC address of its next hop. When the neighbour
 * entry is missing or unresolved, it asks the kernel to resolve it
 * (RTM_NEWNEIGH with NTF_USE) and polls for up to |timeout_ms|.
 * Returns 0, -ENETUNREACH (no route), -EHOSTUNREACH (not resolved in time),
 * or another negative errno from netlink.
 */
int uet_nl_resolve(const void *dst, bool is_v6, int timeout_ms,
		   struct uet_nl_route *route);

/* uet_nl_if_mac() reads the MAC address of |ifindex|; 0 or -errno. */
int uet_nl_if_mac(int ifindex, uint8_t mac[6]);

/* uet_nl_if_mtu() reads the MTU of |ifindex|; the MTU or -errno. */
int uet_nl_if_mtu(int ifindex);

#endif /* UET_NL_H */
