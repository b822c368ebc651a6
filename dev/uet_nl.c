/* SPDX-License-Identifier: BSD-2-Clause */
/* Route and neighbour lookups over rtnetlink with libmnl (see uet_nl.h). */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "dev/uet_nl.h"

#define UET_NL_POLL_NS	(5 * 1000 * 1000)

/*
 * One request/reply exchange; |cb| sees each reply message. Requests carry
 * NLM_F_ACK so that the kernel's ACK (or error) ends the exchange.
 */
static int uet_nl_talk(struct nlmsghdr *req, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	unsigned int portid, seq = (unsigned int)time(NULL);
	ssize_t n;
	int ret;

	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(nl);
	req->nlmsg_seq = seq;
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	do {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, cb, data);
	} while (ret > MNL_CB_STOP);
	ret = ret < 0 ? -errno : 0;
out:
	mnl_socket_close(nl);
	return ret;
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

static int uet_nl_route_get(const void *dst, struct uet_nl_route_reply *r)
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
	ret = uet_nl_talk(nlh, uet_nl_route_cb, r);
	if (ret == -ENETUNREACH || ret == -EHOSTUNREACH || ret == -ENOENT)
		return -ENETUNREACH;
	if (ret == 0 && !r->found)
		return -ENETUNREACH;
	return ret;
}

struct uet_nl_neigh_reply {
	uint8_t mac[6];
	bool valid;
};

static int uet_nl_neigh_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ndmsg *ndm = mnl_nlmsg_get_payload(nlh);
	struct uet_nl_neigh_reply *r = data;
	struct nlattr *attr;
	const uint16_t usable = NUD_REACHABLE | NUD_STALE | NUD_DELAY |
				NUD_PROBE | NUD_PERMANENT | NUD_NOARP;

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
static int uet_nl_neigh(int ifindex, const void *addr, bool v6, bool use,
			struct uet_nl_neigh_reply *r)
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
	return uet_nl_talk(nlh, uet_nl_neigh_cb, r);
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
	ret = uet_nl_route_get(dst, &rr);
	if (ret < 0)
		return ret;
	hop = rr.has_gw ? (const void *)&rr.gw : dst;
	for (;;) {
		ret = uet_nl_neigh(route->ifindex, hop, is_v6, false, &nr);
		if (ret == 0 && nr.valid)
			break;
		if (ret < 0 && ret != -ENOENT)
			return ret;
		if (waited_ns >= (long)timeout_ms * 1000000L)
			return -EHOSTUNREACH;
		/* Ask the kernel to resolve (again): it sends ARP or NS. */
		if (waited_ns % (100 * 1000000L) == 0)
			uet_nl_neigh(route->ifindex, hop, is_v6, true, &nr);
		nanosleep(&pause, NULL);
		waited_ns += UET_NL_POLL_NS;
	}
	memcpy(route->mac, nr.mac, 6);
	return 0;
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
