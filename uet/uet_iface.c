/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where fi_getinfo points: host names and addresses resolved, and the
 * local interfaces (getifaddrs) that could serve them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "uet/uet_iface.h"
#include "uet_fep.h"

int uet_fa_resolve(const char *node, bool numeric, struct uet_fa *fa)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res, *ai, *v6 = NULL;
	int ret = -ENOENT;

	if (numeric)
		hints.ai_flags |= AI_NUMERICHOST;
	if (getaddrinfo(node, NULL, &hints, &res))
		return -ENOENT;
	/* IPv4 first, as most hosts name both. */
	for (ai = res; ai; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET) {
			fa->is_v6 = false;
			fa->v4 = ((struct sockaddr_in *)ai->ai_addr)->sin_addr;
			ret = 0;
			break;
		}
		if (ai->ai_family == AF_INET6 && !v6)
			v6 = ai;
	}
	if (ret && v6) {
		fa->is_v6 = true;
		fa->v6 = ((struct sockaddr_in6 *)v6->ai_addr)->sin6_addr;
		ret = 0;
	}
	freeaddrinfo(res);
	return ret;
}

int uet_pid_parse(const char *service, uint16_t *pid)
{
	unsigned long v;
	char *end;

	if (!service || !*service)
		return -EINVAL;
	errno = 0;
	v = strtoul(service, &end, 10);
	if (errno || *end || v > UET_FEP_SERVICE_MAX || *service == '-')
		return -EINVAL;
	*pid = (uint16_t)uet_fep_service_pid(v);
	return 0;
}

/* The address of |ifa| when it is one an engine can use. */
static bool uet_ifa_fa(const struct ifaddrs *ifa, struct uet_fa *fa)
{
	const struct sockaddr_in6 *s6;

	if (!ifa->ifa_addr || !(ifa->ifa_flags & IFF_UP))
		return false;
	if (ifa->ifa_addr->sa_family == AF_INET) {
		fa->is_v6 = false;
		fa->v4 = ((const struct sockaddr_in *)ifa->ifa_addr)->sin_addr;
		return true;
	}
	if (ifa->ifa_addr->sa_family != AF_INET6)
		return false;
	s6 = (const struct sockaddr_in6 *)ifa->ifa_addr;
	/* Link-local addresses need a scope the engine does not carry. */
	if (IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr))
		return false;
	fa->is_v6 = true;
	fa->v6 = s6->sin6_addr;
	return true;
}

/* |a| and |b| agree in the bits set in the netmask of |ifa|. */
static bool uet_ifa_holds(const struct ifaddrs *ifa, const struct uet_fa *a,
			  const struct uet_fa *b)
{
	const uint8_t *pa, *pb, *pm;
	size_t n;

	if (!ifa->ifa_netmask || a->is_v6 != b->is_v6)
		return false;
	if (a->is_v6) {
		pa = a->v6.s6_addr;
		pb = b->v6.s6_addr;
		pm = ((const struct sockaddr_in6 *)ifa->ifa_netmask)->
		     sin6_addr.s6_addr;
		n = 16;
	} else {
		pa = (const uint8_t *)&a->v4;
		pb = (const uint8_t *)&b->v4;
		pm = (const uint8_t *)&((const struct sockaddr_in *)
					ifa->ifa_netmask)->sin_addr;
		n = 4;
	}
	for (size_t i = 0; i < n; i++)
		if ((pa[i] ^ pb[i]) & pm[i])
			return false;
	return true;
}

static bool uet_cand_match(const struct uet_cand_query *q,
			   const struct ifaddrs *ifa, const struct uet_fa *fa,
			   bool any_subnet)
{
	bool named = q->ifname && *q->ifname;

	if (named && strcmp(q->ifname, ifa->ifa_name))
		return false;
	if (q->src)
		return uet_fa_is_equal(q->src, fa);
	if (q->dest) {
		if (fa->is_v6 != q->dest->is_v6)
			return false;
		if (!any_subnet)
			return uet_ifa_holds(ifa, fa, q->dest);
	}
	return named || !(ifa->ifa_flags & IFF_LOOPBACK);
}

static int uet_cands_pass(const struct uet_cand_query *q,
			  const struct ifaddrs *list, bool any_subnet,
			  struct uet_cand *out, int max)
{
	const struct ifaddrs *ifa;
	struct uet_fa fa;
	int n = 0;

	for (ifa = list; ifa && n < max; ifa = ifa->ifa_next) {
		if (!uet_ifa_fa(ifa, &fa) ||
		    !uet_cand_match(q, ifa, &fa, any_subnet))
			continue;
		strncpy(out[n].ifname, ifa->ifa_name, IF_NAMESIZE - 1);
		out[n].ifname[IF_NAMESIZE - 1] = '\0';
		out[n].fa = fa;
		n++;
		/* A peer is reached through one interface. */
		if (q->dest)
			break;
	}
	return n;
}

int uet_cands_find(const struct uet_cand_query *q, struct uet_cand *out,
		   int max)
{
	struct ifaddrs *list;
	int n;

	if (getifaddrs(&list))
		return -errno;
	n = uet_cands_pass(q, list, false, out, max);
	/* No interface holds the peer's subnet: it is behind a router. */
	if (!n && q->dest)
		n = uet_cands_pass(q, list, true, out, max);
	freeifaddrs(list);
	return n;
}

int uet_iface_fa(const char *ifname, bool want_v6, struct uet_fa *fa)
{
	struct uet_cand_query q = { .ifname = ifname };
	struct uet_cand c[UET_CAND_MAX];
	int n = uet_cands_find(&q, c, UET_CAND_MAX);

	for (int i = 0; i < n; i++) {
		if (c[i].fa.is_v6 == want_v6) {
			*fa = c[i].fa;
			return 0;
		}
	}
	return n < 0 ? n : -EADDRNOTAVAIL;
}
