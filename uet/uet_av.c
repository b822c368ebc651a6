/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The address vector's operations: portable address blobs (uet_addr.h)
 * in, fi_addr out. FI_AV_TABLE hands out indices in insertion order and
 * never reuses one; FI_AV_MAP reuses removed slots, its fi_addr carrying
 * the slot's generation so that a stale one is refused and endpoints
 * notice a reused slot. The table itself is uet_av_tbl.c.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/uet_nl.h"
#include "uet/uet.h"
#include "uet/uet_iface.h"

/* Addresses of one insertion whose next hop is looked up at once. */
#define UET_AV_PREFETCH_MAX	64

/*
 * Whether the next hop of |fa| was asked for lately; notes it if not. A
 * job inserts each host once per rank on it, often one call each: one
 * lookup per host is enough. Domain lock held.
 */
static bool uet_av_asked(struct uet_av *av, const struct uet_fa *fa)
{
	uint32_t w[4], h;
	struct uet_fa *slot;

	if (fa->is_v6) {
		memcpy(w, &fa->v6, sizeof(w));
		h = w[0] ^ w[1] ^ w[2] ^ w[3];
	} else {
		h = fa->v4.s_addr;
	}
	slot = &av->asked[(h * 0x9e3779b1u) >> 26];	/* 64 of them */
	if (uet_fa_is_equal(slot, fa))
		return true;
	*slot = *fa;
	return false;
}

/*
 * Asks the kernel to resolve the next hops of |n| addresses now, outside
 * the domain lock, so that the first operation to each finds it known:
 * the engine never waits for a resolution (uet_engine_peer_get), it holds
 * the operation meanwhile. Only a lookup and, for an unknown neighbour,
 * a request that never waits (uet_nl_hop_resolve); at most
 * UET_AV_PREFETCH_MAX of them per insertion, so a large AV costs no more
 * than a few ms here. The AV keeps its netlink socket for the next call
 * (opening and closing one costs 6 us of CPU, a host's lookup 10 us: an
 * application inserting one address per call paid both each time); a
 * thread that finds it taken opens its own.
 */
static void uet_av_prefetch(struct uet_av *av, const struct uet_addr *a,
			    size_t n)
{
	struct uet_nl *nl;
	struct uet_nl_hop hop;
	char ifname[IF_NAMESIZE];
	bool keep = true;
	int ret;

	if (!n)
		return;
	nl = atomic_exchange(&av->nl, NULL);
	if (!nl)
		nl = uet_nl_open();
	if (!nl)
		return;
	for (size_t i = 0; i < n && i < UET_AV_PREFETCH_MAX; i++) {
		ret = uet_nl_hop_lookup(nl, &a[i].fa.v6, a[i].fa.is_v6, &hop);
		/* A failed exchange may leave replies unread: new socket. */
		keep &= ret == 0;
		if (ret < 0 || hop.nud == UET_NL_NUD_USABLE)
			continue;
		/* Our own addresses route through lo: nothing to resolve. */
		if (if_indextoname((unsigned int)hop.ifindex, ifname) &&
		    !strcmp(ifname, "lo"))
			continue;
		keep &= uet_nl_hop_resolve(nl, &hop, a[i].fa.is_v6) == 0;
	}
	if (keep)
		nl = atomic_exchange(&av->nl, nl);
	uet_nl_close(nl);
}

/* Records the outcome of one insertion; counts the successes. */
static void uet_av_result(int ret, size_t i, fi_addr_t *fi_addr,
			  uint64_t flags, void *context, int *done)
{
	if (ret && fi_addr)
		fi_addr[i] = FI_ADDR_NOTAVAIL;
	if (flags & FI_SYNC_ERR)
		((int *)context)[i] = -ret;
	if (!ret)
		(*done)++;
}

static int uet_av_insert(struct fid_av *av_fid, const void *addr,
			 size_t count, fi_addr_t *fi_addr, uint64_t flags,
			 void *context)
{
	struct uet_av *av = container_of(av_fid, struct uet_av, av_fid);
	const uint8_t *blob = addr;
	struct uet_addr a, fetch[UET_AV_PREFETCH_MAX];
	size_t nfetch = 0;
	fi_addr_t tmp;
	int done = 0, ret;

	if ((count && !addr) || (flags & ~(FI_MORE | FI_SYNC_ERR)) ||
	    ((flags & FI_SYNC_ERR) && !context))
		return -FI_EINVAL;
	uet_domain_lock(av->dom);
	for (size_t i = 0; i < count; i++) {
		ret = uet_addr_decode(&a, blob + i * UET_ADDR_LEN,
				      UET_ADDR_LEN) < 0 ? -FI_EINVAL : 0;
		if (!ret)
			ret = uet_av_tbl_put(av, &a,
					     fi_addr ? &fi_addr[i] : &tmp);
		if (!ret && nfetch < UET_AV_PREFETCH_MAX &&
		    !uet_av_asked(av, &a.fa))
			fetch[nfetch++] = a;
		uet_av_result(ret, i, fi_addr, flags, context, &done);
	}
	uet_domain_unlock(av->dom);
	uet_av_prefetch(av, fetch, nfetch);
	return done;
}

/* The address an endpoint at |node|:|service| (PIDonFEP) has. */
static int uet_av_svc_addr(const struct uet_av *av, const char *node,
			   const char *service, uint64_t flags,
			   struct uet_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (!node || uet_pid_parse(service, &a->pid_on_fep) ||
	    uet_fa_resolve(node, flags & FI_NUMERICHOST, &a->fa))
		return -FI_EINVAL;
	a->fep_caps = UET_ADDR_CAPS;
	a->ri_base = av->dom->params.ri_base;
	a->initiator = uet_addr_initiator(&a->fa, a->pid_on_fep);
	return 0;
}

static int uet_av_insertsvc(struct fid_av *av_fid, const char *node,
			    const char *service, fi_addr_t *fi_addr,
			    uint64_t flags, void *context)
{
	struct uet_av *av = container_of(av_fid, struct uet_av, av_fid);
	struct uet_addr a;
	fi_addr_t tmp;
	int done = 0, ret;
	bool fetch;

	if ((flags & ~(FI_MORE | FI_SYNC_ERR | FI_NUMERICHOST)) ||
	    ((flags & FI_SYNC_ERR) && !context))
		return -FI_EINVAL;
	ret = uet_av_svc_addr(av, node, service, flags, &a);
	uet_domain_lock(av->dom);
	if (!ret)
		ret = uet_av_tbl_put(av, &a, fi_addr ? fi_addr : &tmp);
	fetch = !ret && !uet_av_asked(av, &a.fa);
	uet_domain_unlock(av->dom);
	if (fetch)
		uet_av_prefetch(av, &a, 1);
	uet_av_result(ret, 0, fi_addr, flags, context, &done);
	return done;
}

/* |nodecnt| consecutive addresses from |node|, |svccnt| PIDs from
 * |service| on each: the n-th node's i-th PID lands at n * svccnt + i. */
static int uet_av_insertsym(struct fid_av *av_fid, const char *node,
			    size_t nodecnt, const char *service, size_t svccnt,
			    fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct uet_av *av = container_of(av_fid, struct uet_av, av_fid);
	struct uet_addr base, a;
	size_t k = 0;
	fi_addr_t tmp;
	int done = 0, ret;

	if ((flags & ~(FI_MORE | FI_SYNC_ERR | FI_NUMERICHOST)) ||
	    ((flags & FI_SYNC_ERR) && !context) ||
	    uet_av_svc_addr(av, node, service, flags, &base) ||
	    base.pid_on_fep + svccnt > 0x1000)
		return -FI_EINVAL;
	uet_domain_lock(av->dom);
	for (size_t n = 0; n < nodecnt; n++) {
		for (size_t i = 0; i < svccnt; i++, k++) {
			a = base;
			if (a.fa.is_v6)
				a.fa.v6.s6_addr[15] += (uint8_t)n;
			else
				a.fa.v4.s_addr = htonl(ntohl(a.fa.v4.s_addr) +
						       (uint32_t)n);
			a.pid_on_fep = (uint16_t)(base.pid_on_fep + i);
			a.initiator = uet_addr_initiator(&a.fa, a.pid_on_fep);
			ret = uet_av_tbl_put(av, &a,
					     fi_addr ? &fi_addr[k] : &tmp);
			uet_av_result(ret, k, fi_addr, flags, context, &done);
		}
	}
	uet_domain_unlock(av->dom);
	return done;
}

static int uet_av_remove(struct fid_av *av_fid, fi_addr_t *fi_addr,
			 size_t count, uint64_t flags)
{
	struct uet_av *av = container_of(av_fid, struct uet_av, av_fid);
	int ret = 0;

	if (flags || (count && !fi_addr))
		return -FI_EINVAL;
	uet_domain_lock(av->dom);
	/* All or nothing: check every address first. */
	for (size_t i = 0; i < count && !ret; i++)
		if (!uet_av_entry_get(av, fi_addr[i]))
			ret = -FI_EINVAL;
	/* An fi_addr listed twice goes once. */
	for (size_t i = 0; i < count && !ret; i++)
		if (uet_av_entry_get(av, fi_addr[i]))
			uet_av_tbl_del(av, fi_addr[i]);
	uet_domain_unlock(av->dom);
	return ret;
}

static int uet_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr,
			 void *addr, size_t *addrlen)
{
	struct uet_av *av = container_of(av_fid, struct uet_av, av_fid);
	const struct uet_av_entry *e;
	uint8_t blob[UET_ADDR_LEN];
	struct uet_addr a;
	int ret = 0;

	if (!addrlen || (*addrlen && !addr))
		return -FI_EINVAL;
	uet_domain_lock(av->dom);
	e = uet_av_entry_get(av, fi_addr);
	if (e)
		uet_av_entry_addr(e, &a);
	if (!e || uet_addr_encode(blob, sizeof(blob), &a) < 0)
		ret = -FI_EINVAL;
	uet_domain_unlock(av->dom);
	if (ret)
		return ret;
	if (*addrlen)
		memcpy(addr, blob,
		       *addrlen < sizeof(blob) ? *addrlen : sizeof(blob));
	ret = *addrlen < sizeof(blob) ? -FI_ETOOSMALL : 0;
	*addrlen = sizeof(blob);
	return ret;
}

static const char *uet_av_straddr(struct fid_av *av_fid, const void *addr,
				  char *buf, size_t *len)
{
	struct uet_addr a;
	int n;

	(void)av_fid;
	if (!buf || !len)
		return NULL;
	if (uet_addr_decode(&a, addr, UET_ADDR_LEN) < 0)
		n = snprintf(buf, *len, "uet://invalid");
	else
		n = uet_addr_str(&a, buf, *len);
	*len = (size_t)n + 1;
	return buf;
}

static int uet_av_close(struct fid *fid)
{
	struct uet_av *av = container_of(fid, struct uet_av, av_fid.fid);

	if (atomic_load(&av->ref))
		return -FI_EBUSY;
	atomic_fetch_sub(&av->dom->ref, 1);
	uet_nl_close(atomic_load(&av->nl));
	uet_av_tbl_fini(av);
	free(av);
	return 0;
}

static const struct fi_ops uet_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uet_av_close,
	.bind = uet_no_bind,
	.control = uet_no_control,
	.ops_open = uet_no_ops_open,
	.tostr = uet_no_tostr,
	.ops_set = uet_no_ops_set,
};

static const struct fi_ops_av uet_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = uet_av_insert,
	.insertsvc = uet_av_insertsvc,
	.insertsym = uet_av_insertsym,
	.remove = uet_av_remove,
	.lookup = uet_av_lookup,
	.straddr = uet_av_straddr,
	.av_set = uet_no_av_set,
};

int uet_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		struct fid_av **av_fid, void *context)
{
	struct uet_domain *dom = container_of(domain, struct uet_domain,
					      dom_fid);
	struct uet_av *av;

	if (!attr || !av_fid)
		return -FI_EINVAL;
	if (attr->type != FI_AV_UNSPEC && attr->type != FI_AV_MAP &&
	    attr->type != FI_AV_TABLE)
		return -FI_EINVAL;
	if (attr->rx_ctx_bits || attr->ep_per_node > 1 || attr->name ||
	    attr->map_addr || (attr->flags & ~FI_SYMMETRIC))
		return -FI_ENOSYS;	/* shared, named, async, scalable */
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	av->dom = dom;
	av->type = attr->type == FI_AV_MAP ? FI_AV_MAP : FI_AV_TABLE;
	if (uet_av_tbl_init(av, attr->count)) {
		free(av);
		return -FI_ENOMEM;
	}
	atomic_init(&av->ref, 0);
	atomic_init(&av->nl, NULL);
	atomic_fetch_add(&dom->ref, 1);
	av->av_fid.fid.fclass = FI_CLASS_AV;
	av->av_fid.fid.context = context;
	av->av_fid.fid.ops = (struct fi_ops *)&uet_av_fi_ops;
	av->av_fid.ops = (struct fi_ops_av *)&uet_av_ops;
	*av_fid = &av->av_fid;
	return 0;
}
