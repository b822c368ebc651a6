/* SPDX-License-Identifier: BSD-2-Clause */
/* Route and neighbour lookups over rtnetlink with libmnl (see uet_nl.h). */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dev/uet_nl.h"

#define UET_NL_POLL_NS	(5 * 1000 * 1000)

struct uet_nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
};

/* Opens |nl|'s socket; 0 or -errno. */
static int uet_nl_sock_open(struct uet_nl *nl)
{
	nl->sock = mnl_socket_open(NETLINK_ROUTE);
	if (!nl->sock)
		return -errno;
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		int ret = -errno;

		mnl_socket_close(nl->sock);
		nl->sock = NULL;
		return ret;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = (unsigned int)time(NULL);
	return 0;
}

/*
 * One request/reply exchange on |nl|; |cb| sees each reply message.
 * Requests carry NLM_F_ACK so that the kernel's ACK (or error) ends the
 * exchange.
 */
static int uet_nl_talk_on(struct uet_nl *nl, struct nlmsghdr *req,
			  mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int seq = ++nl->seq;
	ssize_t n;
	int ret;

	req->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run(buf, (size_t)n, seq, nl->portid, cb, data);
	} while (ret > MNL_CB_STOP);
	return ret < 0 ? -errno : 0;
}

/* As uet_nl_talk_on(), on a socket of its own. */
static int uet_nl_talk(struct nlmsghdr *req, mnl_cb_t cb, void *data)
{
	struct uet_nl nl;
	int ret = uet_nl_sock_open(&nl);

	if (ret < 0)
		return ret;
	ret = uet_nl_talk_on(&nl, req, cb, data);
	mnl_socket_close(nl.sock);
	return ret;
}

struct uet_nl *uet_nl_open(void)
{
	struct uet_nl *nl = calloc(1, sizeof(*nl));
	int ret;

	if (!nl)
		return NULL;
	ret = uet_nl_sock_open(nl);
	if (ret < 0) {
		free(nl);
		errno = -ret;
		return NULL;
	}
	return nl;
}

void uet_nl_close(struct uet_nl *nl)
{
	if (!nl)
		return;
	mnl_socket_close(nl->sock);
	free(nl);
}

struct uet_nl_route_reply {
	struct uet_nl_route *route;
	union { struct in_addr v4; struct in6_addr v6; } gw;
	bool has_gw;
	bool found;
};

static int uet_nl_route_cb(const struct nlmsghdr *nlh, void *data)
{
	struct uet_nl_route_reply *r = data;
	size_t alen = r->route->is_v6 ? 16 : 4;
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct rtmsg)) {
		switch (mnl_attr_get_type(attr)) {
		case RTA_OIF:
			r->route->ifindex = (int)mnl_attr_get_u32(attr);
			r->found = true;
			break;
		case RTA_GATEWAY:
			if (mnl_attr_get_payload_len(attr) == alen) {
				memcpy(&r->gw, mnl_attr_get_payload(attr), alen);
				r->has_gw = true;
			}
			break;
		case RTA_PREFSRC:
			if (mnl_attr_get_payload_len(attr) == alen) {
				memcpy(&r->route->src,
				       mnl_attr_get_payload(attr), alen);
				r->route->has_src = true;
			}
			break;
		}
	}
	return MNL_CB_OK;
}

static int uet_nl_route_get(struct uet_nl *nl, const void *dst,
			    struct uet_nl_route_reply *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;
	bool v6 = r->route->is_v6;
	int ret;

	nlh->nlmsg_type = RTM_GETROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = v6 ? AF_INET6 : AF_INET;
	rtm->rtm_dst_len = v6 ? 128 : 32;
	mnl_attr_put(nlh, RTA_DST, v6 ? 16 : 4, dst);
	ret = nl ? uet_nl_talk_on(nl, nlh, uet_nl_route_cb, r) :
		   uet_nl_talk(nlh, uet_nl_route_cb, r);
	if (ret == -ENETUNREACH || ret == -EHOSTUNREACH || ret == -ENOENT)
		return -ENETUNREACH;
	if (ret == 0 && !r->found)
		return -ENETUNREACH;
	return ret;
}

struct uet_nl_neigh_reply {
	uint8_t mac[6];
	bool valid;		/* a usable entry with a MAC address */
	bool found;		/* any entry */
	uint16_t state;		/* NUD_*, when found */
};

static int uet_nl_neigh_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ndmsg *ndm = mnl_nlmsg_get_payload(nlh);
	struct uet_nl_neigh_reply *r = data;
	struct nlattr *attr;
	const uint16_t usable = NUD_REACHABLE | NUD_STALE | NUD_DELAY |
				NUD_PROBE | NUD_PERMANENT | NUD_NOARP;

	r->found = true;
	r->state = ndm->ndm_state;
	if (!(ndm->ndm_state & usable))
		return MNL_CB_OK;
	mnl_attr_for_each(attr, nlh, sizeof(*ndm)) {
		if (mnl_attr_get_type(attr) == NDA_LLADDR &&
		    mnl_attr_get_payload_len(attr) == 6) {
			memcpy(r->mac, mnl_attr_get_payload(attr), 6);
			r->valid = true;
		}
	}
	return MNL_CB_OK;
}

/* RTM_GETNEIGH for one entry; or, with |use|, RTM_NEWNEIGH + NTF_USE. */
static int uet_nl_neigh(struct uet_nl *nl, int ifindex, const void *addr,
			bool v6, bool use, struct uet_nl_neigh_reply *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ndmsg *ndm;

	nlh->nlmsg_type = use ? RTM_NEWNEIGH : RTM_GETNEIGH;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
			   (use ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	ndm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ndm));
	ndm->ndm_family = v6 ? AF_INET6 : AF_INET;
	ndm->ndm_ifindex = ifindex;
	ndm->ndm_flags = use ? NTF_USE : 0;
	mnl_attr_put(nlh, NDA_DST, v6 ? 16 : 4, addr);
	return nl ? uet_nl_talk_on(nl, nlh, uet_nl_neigh_cb, r) :
		    uet_nl_talk(nlh, uet_nl_neigh_cb, r);
}

int uet_nl_resolve(const void *dst, bool is_v6, int timeout_ms,
		   struct uet_nl_route *route)
{
	struct uet_nl_route_reply rr = { .route = route };
	struct uet_nl_neigh_reply nr = { .valid = false };
	struct timespec pause = { 0, UET_NL_POLL_NS };
	const void *hop;
	long waited_ns = 0;
	int ret;

	memset(route, 0, sizeof(*route));
	route->is_v6 = is_v6;
	ret = uet_nl_route_get(NULL, dst, &rr);
	if (ret < 0)
		return ret;
	hop = rr.has_gw ? (const void *)&rr.gw : dst;
	for (;;) {
		ret = uet_nl_neigh(NULL, route->ifindex, hop, is_v6, false, &nr);
		if (ret == 0 && nr.valid)
			break;
		if (ret < 0 && ret != -ENOENT)
			return ret;
		if (waited_ns >= (long)timeout_ms * 1000000L)
			return -EHOSTUNREACH;
		/* Ask the kernel to resolve (again): it sends ARP or NS. */
		if (waited_ns % (100 * 1000000L) == 0)
			uet_nl_neigh(NULL, route->ifindex, hop, is_v6, true,
				     &nr);
		nanosleep(&pause, NULL);
		waited_ns += UET_NL_POLL_NS;
	}
	memcpy(route->mac, nr.mac, 6);
	return 0;
}

static uint8_t uet_nl_nud_of(const struct uet_nl_neigh_reply *r)
{
	if (r->valid)
		return UET_NL_NUD_USABLE;
	if (!r->found)
		return UET_NL_NUD_NONE;
	return r->state & NUD_FAILED ? UET_NL_NUD_FAILED :
	       UET_NL_NUD_PENDING;
}

int uet_nl_hop_lookup(struct uet_nl *nl, const void *dst, bool is_v6,
		      struct uet_nl_hop *hop)
{
	struct uet_nl_route route = { .is_v6 = is_v6 };
	struct uet_nl_route_reply rr = { .route = &route };
	struct uet_nl_neigh_reply nr = { .valid = false };
	size_t alen = is_v6 ? 16 : 4;
	int ret;

	memset(hop, 0, sizeof(*hop));
	ret = uet_nl_route_get(nl, dst, &rr);
	if (ret < 0)
		return ret;
	hop->ifindex = route.ifindex;
	memcpy(&hop->addr, rr.has_gw ? (const void *)&rr.gw : dst, alen);
	ret = uet_nl_neigh(nl, hop->ifindex, &hop->addr, is_v6, false, &nr);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	hop->nud = uet_nl_nud_of(&nr);
	if (nr.valid)
		memcpy(hop->mac, nr.mac, 6);
	return 0;
}

/*
 * A datagram to the hop makes the kernel resolve it as it resolves for
 * any packet: an empty one to the discard port (9), which the hop drops or
 * answers with an ICMP error we never read. Better than NTF_USE, which
 * has no packet to take a source address from: an IPv6 solicitation then
 * goes from the link-local address, or not at all while that address is
 * tentative (the first second of an interface), leaving the kernel to try
 * again a second later; and the hop learns our link-local address, not
 * the one our frames come from. With the datagram's source, the hop also
 * learns our MAC for the address we talk from, which spares it a
 * resolution of its own when our first frame arrives. Needs no privilege.
 */
static int uet_nl_hop_poke(const struct uet_nl_hop *hop, bool is_v6)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(9) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(9) };
	int fd = socket(is_v6 ? AF_INET6 : AF_INET,
			SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	int on = 1;
	ssize_t n;

	if (fd < 0)
		return -errno;
	/*
	 * Without it UDP hides ENOBUFS, which is how the kernel says it
	 * could make no neighbour entry (its table full).
	 */
	if (is_v6)
		setsockopt(fd, SOL_IPV6, IPV6_RECVERR, &on, sizeof(on));
	else
		setsockopt(fd, SOL_IP, IP_RECVERR, &on, sizeof(on));
	if (is_v6) {
		a6.sin6_addr = hop->addr.v6;
		a6.sin6_scope_id = (uint32_t)hop->ifindex;
		n = sendto(fd, "", 0, 0, (struct sockaddr *)&a6, sizeof(a6));
	} else {
		a4.sin_addr = hop->addr.v4;
		n = sendto(fd, "", 0, 0, (struct sockaddr *)&a4, sizeof(a4));
	}
	close(fd);
	return n < 0 && errno != EAGAIN ? -errno : 0;
}

int uet_nl_hop_resolve(struct uet_nl *nl, const struct uet_nl_hop *hop,
		       bool is_v6)
{
	struct uet_nl_neigh_reply nr = { .valid = false };
	int ret = uet_nl_hop_poke(hop, is_v6);

	/* No entry could be made: NTF_USE would make none either. */
	if (ret == 0 || ret == -ENOBUFS)
		return ret;
	return uet_nl_neigh(nl, hop->ifindex, &hop->addr, is_v6, true, &nr);
}

static int uet_nl_ifreq(int ifindex, unsigned long req, struct ifreq *ifr)
{
	int fd, ret = 0;

	memset(ifr, 0, sizeof(*ifr));
	if (!if_indextoname((unsigned int)ifindex, ifr->ifr_name))
		return -errno;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, req, ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int uet_nl_if_mac(int ifindex, uint8_t mac[6])
{
	struct ifreq ifr;
	int ret = uet_nl_ifreq(ifindex, SIOCGIFHWADDR, &ifr);

	if (ret == 0)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return ret;
}

int uet_nl_if_mtu(int ifindex)
{
	struct ifreq ifr;
	int ret = uet_nl_ifreq(ifindex, SIOCGIFMTU, &ifr);

	return ret < 0 ? ret : ifr.ifr_mtu;
}
