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

/*
 * A netlink socket kept open for lookups that must not wait: the kernel
 * answers route and neighbour queries at once, from its tables.
 */
struct uet_nl;

struct uet_nl *uet_nl_open(void);	/* NULL with errno */
void uet_nl_close(struct uet_nl *nl);

/* The kernel's neighbour entry for a next hop, as far as we care. */
enum uet_nl_nud {
	UET_NL_NUD_NONE,	/* no entry */
	UET_NL_NUD_PENDING,	/* being resolved (INCOMPLETE) */
	UET_NL_NUD_USABLE,	/* has a MAC address frames may go to */
	UET_NL_NUD_FAILED,	/* resolution failed */
};

struct uet_nl_hop {
	int ifindex;			/* output interface */
	union {				/* the next hop: gateway or dst */
		struct in_addr v4;
		struct in6_addr v6;
	} addr;
	uint8_t nud;			/* enum uet_nl_nud */
	uint8_t mac[6];			/* when USABLE */
};

/*
 * uet_nl_hop_lookup() finds the route to |dst| and the neighbour entry of
 * its next hop, without waiting for anything. Returns 0 (hop->nud says
 * whether the MAC is there), -ENETUNREACH (no route) or -errno.
 */
int uet_nl_hop_lookup(struct uet_nl *nl, const void *dst, bool is_v6,
		      struct uet_nl_hop *hop);

/*
 * uet_nl_hop_resolve() makes the kernel resolve |hop| (it sends ARP or NS
 * and keeps the answer) and returns at once: an empty datagram to the
 * hop's discard port, from the address the route gives (uet_nl.c says
 * why), else RTM_NEWNEIGH with NTF_USE. 0 or -errno; -ENOBUFS: the
 * kernel could make no neighbour entry (its table full).
 */
int uet_nl_hop_resolve(struct uet_nl *nl, const struct uet_nl_hop *hop,
		       bool is_v6);

/* uet_nl_if_mac() reads the MAC address of |ifindex|; 0 or -errno. */
int uet_nl_if_mac(int ifindex, uint8_t mac[6]);

/* uet_nl_if_mtu() reads the MTU of |ifindex|; the MTU or -errno. */
int uet_nl_if_mtu(int ifindex);

#endif /* UET_NL_H */
