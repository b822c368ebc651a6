/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_getinfo: the attribute templates, true to what is implemented, and
 * the filter that holds hints against them. Only FI_EP_RDM; everything
 * else is answered -FI_ENODATA at once (the utility providers probe us).
 *
 * Each answer follows the API version asked for (fi_getinfo's |version|,
 * at most the one fi_prov_ini declared): what 1.17 meant is kept for it,
 * and after it (libfabric's NEWS.md, fi_getinfo(3), fi_domain(3)):
 * - 1.20: a domain's or endpoint's auth_key_size FI_AV_AUTH_KEY asks for
 *   keys given per peer through the AV (fi_av_insert_auth_key): refused,
 *   as is max_ep_auth_key above 1 (each endpoint has its one JobID);
 * - 2.0: caps bits 45 and 48, an MR flag and FI_VARIABLE_MSG before,
 *   are FI_TAGGED_DIRECTED_RECV and FI_EXACT_DIRECTED_RECV, which we have;
 *   a mem_tag_format below 1 << 16 names a format (FI_TAG_MPI, ...);
 *   control_progress may be FI_PROGRESS_CONTROL_UNIFIED, which ours is
 *   (control operations complete in the call); peer groups
 *   (max_group_id above 0) are refused;
 * - 2.5: counters have their full uint64_t range (max_cntr_value).
 * The fi_domain_attr fields appended since 1.17 are read and written
 * only when the core has them (uet_domain_attr_ext). Not version-bound:
 * FI_MR_BASIC and FI_MR_SCALABLE, deprecated in 2.0 and still defined,
 * are answered as before; the ops tables keep 1.17's sizes, so the calls
 * added since (fi_av_insert_auth_key, ...) answer -FI_ENOSYS.
 */
#include <stdlib.h>
#include <string.h>

#include "uet/uet.h"
#include "uet/uet_iface.h"

/* libfabric's FI_TAG_GENERIC (not in its public headers): 64 tag bits. */
#define UET_TAG_FORMAT	0xAAAAAAAAAAAAAAAAull

static const struct fi_tx_attr uet_tx_attr = {
	.caps = UET_TX_CAPS,
	.mode = 0,
	.op_flags = 0,
	/* RUD: any order; FI_ORDER_SAS when asked for (ROD, uet_info_ep). */
	.msg_order = FI_ORDER_NONE,
	.comp_order = FI_ORDER_NONE,
	.inject_size = UET_INJECT_SIZE,
	.size = UET_TX_SIZE,
	.iov_limit = SES_IOV_MAX,
	.rma_iov_limit = 1,		/* one remote range per WRE */
};

static const struct fi_rx_attr uet_rx_attr = {
	.caps = UET_RX_CAPS,
	.mode = 0,
	.op_flags = 0,
	.msg_order = FI_ORDER_NONE,
	.comp_order = FI_ORDER_NONE,
	.total_buffered_recv = 0,
	.size = UET_RX_SIZE,
	.iov_limit = SES_IOV_MAX,
};

static const struct fi_ep_attr uet_ep_attr = {
	.type = FI_EP_RDM,
	.protocol = FI_PROTO_UNSPEC,
	.protocol_version = 1,
	.max_msg_size = UET_MAX_MSG_SIZE,
	.msg_prefix_size = 0,
	.max_order_raw_size = 0,
	.max_order_war_size = 0,
	.max_order_waw_size = 0,
	.mem_tag_format = UET_TAG_FORMAT,
	.tx_ctx_cnt = 1,
	.rx_ctx_cnt = 1,
	.auth_key_size = 0,
};

static const struct fi_domain_attr uet_domain_attr = {
	.threading = FI_THREAD_SAFE,	/* one lock per domain */
	.control_progress = FI_PROGRESS_MANUAL,
	.data_progress = FI_PROGRESS_MANUAL,
	.resource_mgmt = FI_RM_ENABLED,
	.av_type = FI_AV_UNSPEC,
	.mr_mode = FI_MR_PROV_KEY | FI_MR_ENDPOINT,
	.mr_key_size = sizeof(uint64_t),
	.cq_data_size = sizeof(uint64_t),	/* header_data */
	.cq_cnt = 256,
	.ep_cnt = 16,
	.tx_ctx_cnt = 1,
	.rx_ctx_cnt = 1,
	.max_ep_tx_ctx = 1,
	.max_ep_rx_ctx = 1,
	.max_ep_stx_ctx = 0,
	.max_ep_srx_ctx = 0,
	.cntr_cnt = 256,
	.mr_iov_limit = 1,		/* a region is one range */
	.caps = UET_DOMAIN_CAPS,
	.mode = 0,
	.auth_key_size = sizeof(uint32_t),	/* the JobID */
	.max_err_data = 0,
	.mr_cnt = UET_MR_CNT,
};

/* What node, service, flags and hints ask for. */
struct uet_gi {
	const struct fi_info *hints;
	uint32_t version;
	struct uet_fa src_fa, dest_fa;
	bool have_src, have_dest;
	uint16_t src_pid, dest_pid;
};

/* The caps the API version |v| lets an application ask for. */
static uint64_t uet_caps_for(uint32_t v)
{
	if (FI_VERSION_GE(v, FI_VERSION(2, 0)))
		return UET_CAPS | UET_CAPS_2_0;
	return UET_CAPS;
}

/* Whether the core's fi_domain_attr has the fields of version |v|. */
static bool uet_core_has(uint32_t v)
{
	return FI_VERSION_GE(fi_version(), v);
}

/* ---- hints ---------------------------------------------------------------- */
static bool uet_tx_hints_ok(const struct fi_tx_attr *t, uint64_t caps)
{
	return !t || (!(t->caps & ~caps) &&
		      !(t->op_flags & ~(UET_TX_OP_FLAGS | FI_INJECT)) &&
		      !(t->msg_order & ~UET_MSG_ORDER) &&
		      !(t->comp_order & ~uet_tx_attr.comp_order) &&
		      t->inject_size <= uet_tx_attr.inject_size &&
		      t->size <= uet_tx_attr.size &&
		      t->iov_limit <= uet_tx_attr.iov_limit &&
		      t->rma_iov_limit <= uet_tx_attr.rma_iov_limit);
}

static bool uet_rx_hints_ok(const struct fi_rx_attr *r, uint64_t caps)
{
	return !r || (!(r->caps & ~caps) &&
		      !(r->msg_order & ~UET_MSG_ORDER) &&
		      !(r->comp_order & ~uet_rx_attr.comp_order) &&
		      !r->total_buffered_recv &&
		      r->size <= uet_rx_attr.size &&
		      r->iov_limit <= uet_rx_attr.iov_limit);
}

static bool uet_auth_key_ok(const uint8_t *key, size_t size)
{
	uint32_t job;

	if (!key)
		return true;
	if (size != sizeof(job))
		return false;
	memcpy(&job, key, sizeof(job));
	return job <= 0xFFFFFF;
}

/* 1.20's FI_AV_AUTH_KEY: keys per peer, through the AV; we have none. */
static bool uet_av_auth_key(uint32_t v, size_t size)
{
	return FI_VERSION_GE(v, FI_VERSION(1, 20)) && size == UET_FI_AV_AUTH_KEY;
}

/*
 * From 2.0, a mem_tag_format below 1 << 16 names a format: 0 FI_TAG_BITS,
 * 1 FI_TAG_MPI and 2 FI_TAG_CCL, fields of the 64 bits our matching
 * takes as they are (so the value is echoed); the others are reserved.
 */
static bool uet_tag_format_ok(uint64_t f, uint32_t v)
{
	return FI_VERSION_LT(v, FI_VERSION(2, 0)) || f <= UET_FI_TAG_CCL ||
	       f >= UET_FI_TAG_MAX_FORMAT;
}

static bool uet_ep_hints_ok(const struct fi_ep_attr *e, uint32_t v)
{
	return !e || ((e->type == FI_EP_UNSPEC || e->type == FI_EP_RDM) &&
		      !uet_av_auth_key(v, e->auth_key_size) &&
		      uet_tag_format_ok(e->mem_tag_format, v) &&
		      (e->protocol == FI_PROTO_UNSPEC) &&
		      e->max_msg_size <= uet_ep_attr.max_msg_size &&
		      !e->msg_prefix_size &&
		      !e->max_order_raw_size && !e->max_order_war_size &&
		      !e->max_order_waw_size && e->tx_ctx_cnt <= 1 &&
		      e->rx_ctx_cnt <= 1 &&
		      uet_auth_key_ok(e->auth_key, e->auth_key_size));
}

/*
 * The fields after 1.17's, when the version asked for has them (then the
 * core, at least as new, handed us its own struct).
 */
static bool uet_domain_ext_hints_ok(const struct fi_domain_attr *d,
				    uint32_t v)
{
	const struct uet_domain_attr_ext *x = (const void *)d;

	if (FI_VERSION_GE(v, FI_VERSION(1, 20)) && x->max_ep_auth_key > 1)
		return false;
	if (FI_VERSION_GE(v, FI_VERSION(2, 0)) && x->max_group_id)
		return false;
	return true;
}

static bool uet_progress_ok(enum fi_progress p, uint32_t v)
{
	if ((int)p == UET_FI_PROGRESS_CONTROL_UNIFIED)
		return FI_VERSION_GE(v, FI_VERSION(2, 0));
	return true;	/* as before 2.0: anything else is taken as asked */
}

static bool uet_domain_hints_ok(const struct fi_domain_attr *d, uint32_t v)
{
	const struct fi_domain_attr *t = &uet_domain_attr;

	return !d || (!(d->caps & ~(UET_DOMAIN_CAPS | uet_caps_for(v))) &&
		      !uet_av_auth_key(v, d->auth_key_size) &&
		      uet_domain_ext_hints_ok(d, v) &&
		      uet_progress_ok(d->control_progress, v) &&
		      d->mr_key_size <= t->mr_key_size &&
		      d->cq_data_size <= t->cq_data_size &&
		      d->cq_cnt <= t->cq_cnt && d->ep_cnt <= t->ep_cnt &&
		      d->tx_ctx_cnt <= 1 && d->rx_ctx_cnt <= 1 &&
		      d->max_ep_tx_ctx <= 1 && d->max_ep_rx_ctx <= 1 &&
		      !d->max_ep_stx_ctx && !d->max_ep_srx_ctx &&
		      d->cntr_cnt <= t->cntr_cnt &&
		      d->mr_iov_limit <= t->mr_iov_limit &&
		      d->mr_cnt <= t->mr_cnt &&
		      uet_auth_key_ok(d->auth_key, d->auth_key_size));
}

/* 0, or -FI_ENODATA when the hints ask for what we do not have. */
static int uet_hints_check(const struct fi_info *h, uint32_t v)
{
	uint64_t caps = uet_caps_for(v);
	const char *why = NULL;

	if (!h)
		return 0;
	if (h->ep_attr && h->ep_attr->type != FI_EP_UNSPEC &&
	    h->ep_attr->type != FI_EP_RDM)
		return -FI_ENODATA;	/* the common probe: say nothing */
	if (h->caps & ~caps)
		why = "caps";
	else if (h->addr_format != FI_FORMAT_UNSPEC)
		why = "addr_format";
	else if (!uet_ep_hints_ok(h->ep_attr, v))
		why = "ep_attr";
	else if (!uet_tx_hints_ok(h->tx_attr, caps))
		why = "tx_attr";
	else if (!uet_rx_hints_ok(h->rx_attr, caps))
		why = "rx_attr";
	else if (!uet_domain_hints_ok(h->domain_attr, v))
		why = "domain_attr";
	else if (h->fabric_attr && h->fabric_attr->name &&
		 strcmp(h->fabric_attr->name, UET_PROV_NAME))
		why = "fabric name";
	if (why)
		FI_INFO(&uet_prov, FI_LOG_CORE, "hints: %s not supported\n",
			why);
	return why ? -FI_ENODATA : 0;
}

/*
 * The mr_mode bits we return: those of UET_MR_MODE the application
 * offers (FI_MR_VIRT_ADDR only together with FI_MR_PROV_KEY, as its keys
 * carry the region's base), FI_MR_BASIC and FI_MR_SCALABLE as asked.
 */
static int uet_mr_mode_pick(uint32_t version, const struct fi_info *h)
{
	int m;

	if (!h || !h->domain_attr)
		return uet_domain_attr.mr_mode;
	m = h->domain_attr->mr_mode;
	if (m == FI_MR_BASIC)
		return FI_MR_BASIC;
	if (m == FI_MR_SCALABLE ||
	    (m == FI_MR_UNSPEC && FI_VERSION_LT(version, FI_VERSION(1, 5))))
		return FI_MR_SCALABLE;
	m &= UET_MR_MODE;
	if (!(m & FI_MR_PROV_KEY))
		m &= ~FI_MR_VIRT_ADDR;
	return m;
}

int uet_mr_mode_effective(int mr_mode)
{
	if (mr_mode == FI_MR_BASIC)
		return FI_MR_VIRT_ADDR | FI_MR_PROV_KEY;
	if (mr_mode == FI_MR_SCALABLE)
		return 0;
	return mr_mode & UET_MR_MODE;
}

/*
 * The caps asked for; a primary cap without direction bits means both
 * directions. RMA costs the other interfaces nothing, so it always comes.
 */
static uint64_t uet_caps_pick(const struct fi_info *h)
{
	uint64_t caps;

	if (!h || !h->caps)
		return UET_CAPS;
	caps = h->caps;
	if (!(caps & (FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)))
		caps |= FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
	if ((caps & (FI_MSG | FI_TAGGED)) && !(caps & (FI_SEND | FI_RECV)))
		caps |= FI_SEND | FI_RECV;
	return caps | FI_RMA | FI_REMOTE_COMM;
}

/* ---- building an fi_info -------------------------------------------------- */
static void *uet_dup_key(const uint8_t *key, size_t size)
{
	void *p = size ? malloc(size) : NULL;

	if (p)
		memcpy(p, key, size);
	return p;
}

/*
 * The fields appended since 1.17, in the core's struct when it has them
 * (fi_allocinfo gave us the core's), for applications of any version to
 * read: one JobID per endpoint, no peer groups, full-range counters.
 */
static void uet_info_domain_ext(struct fi_domain_attr *d)
{
	struct uet_domain_attr_ext *x = (void *)d;

	if (uet_core_has(FI_VERSION(1, 20)))
		x->max_ep_auth_key = 1;
	if (uet_core_has(FI_VERSION(2, 0)))
		x->max_group_id = 0;
	if (uet_core_has(FI_VERSION(2, 5))) {
		x->max_cntr_value = UINT64_MAX;
		x->max_err_cntr_value = UINT64_MAX;
	}
}

static int uet_info_domain(struct fi_info *fi, const struct uet_gi *gi,
			   const char *ifname)
{
	const struct fi_info *h = gi->hints;
	const struct fi_domain_attr *hd = h ? h->domain_attr : NULL;
	struct fi_domain_attr *d = fi->domain_attr;

	*d = uet_domain_attr;
	d->name = strdup(ifname);
	d->mr_mode = uet_mr_mode_pick(gi->version, h);
	if (hd) {
		if (hd->threading != FI_THREAD_UNSPEC)
			d->threading = hd->threading;
		if (hd->resource_mgmt != FI_RM_UNSPEC)
			d->resource_mgmt = hd->resource_mgmt;
		/* Both served by the progress thread (uet_progress_thread.c) */
		if (hd->control_progress != FI_PROGRESS_UNSPEC)
			d->control_progress = hd->control_progress;
		if (hd->data_progress != FI_PROGRESS_UNSPEC)
			d->data_progress = hd->data_progress;
		d->av_type = hd->av_type;
		if (hd->auth_key) {
			d->auth_key = uet_dup_key(hd->auth_key,
						  hd->auth_key_size);
			if (!d->auth_key)
				return -FI_ENOMEM;
			d->auth_key_size = hd->auth_key_size;
		}
	}
	uet_info_domain_ext(d);
	return d->name ? 0 : -FI_ENOMEM;
}

static int uet_info_ep(struct fi_info *fi, const struct uet_gi *gi)
{
	const struct fi_info *h = gi->hints;
	const struct fi_ep_attr *he = h ? h->ep_attr : NULL;

	*fi->ep_attr = uet_ep_attr;
	*fi->tx_attr = uet_tx_attr;
	*fi->rx_attr = uet_rx_attr;
	fi->tx_attr->caps = fi->caps & UET_TX_CAPS;
	fi->rx_attr->caps = fi->caps & (UET_RX_CAPS | UET_CAPS_2_0);
	if (h && h->tx_attr)
		fi->tx_attr->op_flags = h->tx_attr->op_flags;
	/* What operations asking for no level get (uet_op_level.c). */
	if (!(fi->tx_attr->op_flags & UET_TX_CPL_LEVELS))
		fi->tx_attr->op_flags |= UET_TX_CPL_DEFAULT;
	if (h && h->rx_attr)
		fi->rx_attr->op_flags = h->rx_attr->op_flags;
	/* Asked for on either side, sends are ordered on both (ROD). */
	if (h && ((h->tx_attr && (h->tx_attr->msg_order & FI_ORDER_SAS)) ||
		  (h->rx_attr && (h->rx_attr->msg_order & FI_ORDER_SAS))))
		fi->tx_attr->msg_order = fi->rx_attr->msg_order =
			FI_ORDER_SAS;
	if (he && he->mem_tag_format)
		fi->ep_attr->mem_tag_format = he->mem_tag_format;
	if (he && he->auth_key) {
		fi->ep_attr->auth_key = uet_dup_key(he->auth_key,
						    he->auth_key_size);
		if (!fi->ep_attr->auth_key)
			return -FI_ENOMEM;
		fi->ep_attr->auth_key_size = he->auth_key_size;
	}
	return 0;
}

static void *uet_blob(const struct uet_fa *fa, uint16_t pid, uint16_t ri)
{
	struct uet_addr a = {
		.fep_caps = UET_ADDR_CAPS, .fa = *fa, .pid_on_fep = pid,
		.ri_base = ri, .initiator = uet_addr_initiator(fa, pid),
	};
	uint8_t *p = malloc(UET_ADDR_LEN);

	if (p && uet_addr_encode(p, UET_ADDR_LEN, &a) < 0) {
		free(p);
		p = NULL;
	}
	return p;
}

static struct fi_info *uet_info_build(const struct uet_gi *gi,
				      const struct uet_params *p,
				      const struct uet_cand *c)
{
	struct fi_info *fi = fi_allocinfo();

	if (!fi)
		return NULL;
	fi->caps = uet_caps_pick(gi->hints);
	fi->mode = 0;
	fi->addr_format = FI_FORMAT_UNSPEC;
	fi->src_addr = uet_blob(&c->fa, gi->src_pid, p->ri_base);
	fi->src_addrlen = UET_ADDR_LEN;
	if (gi->have_dest) {
		fi->dest_addr = uet_blob(&gi->dest_fa, gi->dest_pid,
					 p->ri_base);
		fi->dest_addrlen = UET_ADDR_LEN;
	}
	fi->fabric_attr->name = strdup(UET_PROV_NAME);
	fi->fabric_attr->prov_version = UET_PROV_VERSION;
	fi->fabric_attr->api_version = gi->version;
	if (!fi->src_addr || (gi->have_dest && !fi->dest_addr) ||
	    !fi->fabric_attr->name ||
	    uet_info_domain(fi, gi, c->ifname) ||
	    uet_info_ep(fi, gi)) {
		fi_freeinfo(fi);
		return NULL;
	}
	return fi;
}

/* ---- node, service and address hints ------------------------------------ */
static int uet_gi_blob(const void *blob, size_t len, struct uet_fa *fa,
		       uint16_t *pid)
{
	struct uet_addr a;

	if (uet_addr_decode(&a, blob, len) < 0)
		return -FI_ENODATA;
	*fa = a.fa;
	*pid = a.pid_on_fep;
	return 0;
}

static int uet_gi_parse(struct uet_gi *gi, const char *node,
			const char *service, uint64_t flags,
			const struct uet_params *p)
{
	const struct fi_info *h = gi->hints;
	bool source = (flags & FI_SOURCE) || !node;
	uint16_t pid = p->pid_on_fep;

	gi->src_pid = gi->dest_pid = p->pid_on_fep;
	if (service && uet_pid_parse(service, &pid))
		return -FI_ENODATA;
	if (node && uet_fa_resolve(node, flags & FI_NUMERICHOST,
				   source ? &gi->src_fa : &gi->dest_fa))
		return -FI_ENODATA;
	if (source) {
		gi->have_src = node != NULL;
		gi->src_pid = pid;
	} else {
		gi->have_dest = true;
		gi->dest_pid = pid;
	}
	if (h && h->src_addr && !(flags & FI_SOURCE) && !gi->have_src) {
		if (uet_gi_blob(h->src_addr, h->src_addrlen, &gi->src_fa,
				&gi->src_pid))
			return -FI_ENODATA;
		gi->have_src = true;
	}
	if (h && h->dest_addr && !gi->have_dest) {
		if (uet_gi_blob(h->dest_addr, h->dest_addrlen, &gi->dest_fa,
				&gi->dest_pid))
			return -FI_ENODATA;
		gi->have_dest = true;
	}
	return 0;
}

static int uet_gi_cands(const struct uet_gi *gi, const struct uet_params *p,
			struct uet_cand *c)
{
	const struct fi_info *h = gi->hints;
	const char *dname = h && h->domain_attr ? h->domain_attr->name : NULL;
	struct uet_cand_query q = {
		.ifname = *p->iface ? p->iface : dname,
		.src = gi->have_src ? &gi->src_fa : NULL,
		.dest = gi->have_dest ? &gi->dest_fa : NULL,
	};
	int n;

	if (*p->iface && dname && strcmp(p->iface, dname))
		return 0;
	n = uet_cands_find(&q, c, UET_CAND_MAX);
	/* A peer's family decides ours. */
	for (int i = 0; q.dest && i < n; i++)
		if (c[i].fa.is_v6 != q.dest->is_v6)
			c[i--] = c[--n];
	return n;
}

int uet_getinfo(uint32_t version, const char *node, const char *service,
		uint64_t flags, const struct fi_info *hints,
		struct fi_info **info)
{
	struct uet_gi gi = { .hints = hints, .version = version };
	struct uet_cand c[UET_CAND_MAX];
	struct fi_info *head = NULL, **tail = &head;
	struct uet_params p;
	int ret, n;

	*info = NULL;
	ret = uet_hints_check(hints, version);
	if (ret)
		return ret;
	uet_params_get(&p);
	ret = uet_gi_parse(&gi, node, service, flags, &p);
	if (ret) {
		FI_INFO(&uet_prov, FI_LOG_CORE,
			"node %s service %s: not an address and PIDonFEP\n",
			node ? node : "-", service ? service : "-");
		return ret;
	}
	n = uet_gi_cands(&gi, &p, c);
	if (n <= 0)
		FI_INFO(&uet_prov, FI_LOG_CORE, "no interface for node %s%s\n",
			node ? node : "-",
			flags & FI_SOURCE ? " (FI_SOURCE)" : "");
	for (int i = 0; i < n; i++) {
		*tail = uet_info_build(&gi, &p, &c[i]);
		if (!*tail) {
			fi_freeinfo(head);
			return -FI_ENOMEM;
		}
		tail = &(*tail)->next;
	}
	if (!head)
		return -FI_ENODATA;
	*info = head;
	return 0;
}
