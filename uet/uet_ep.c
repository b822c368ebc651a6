/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RDM endpoints: bindings (AV, CQs, counters, EQ), enable (one transport
 * engine per endpoint, its RI tables and the regions it serves), names,
 * options, cancel. Closing an endpoint releases what it holds, so any
 * order works; objects it is bound to refuse to close (-FI_EBUSY) first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "uet/uet.h"

static struct uet_ep *uet_ep_of(struct fid *fid)
{
	return container_of(fid, struct uet_ep, ep_fid.fid);
}

/* ---- bind ------------------------------------------------------------------- */
static int uet_ep_bind_cq(struct uet_ep *ep, struct uet_cq *cq,
			  uint64_t flags)
{
	if (flags & ~(FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION) ||
	    !(flags & (FI_TRANSMIT | FI_RECV)))
		return -FI_EBADFLAGS;
	if (((flags & FI_TRANSMIT) && ep->tx_cq) ||
	    ((flags & FI_RECV) && ep->rx_cq))
		return -FI_EINVAL;
	if (flags & FI_TRANSMIT) {
		ep->tx_cq = cq;
		ep->tx_selective = flags & FI_SELECTIVE_COMPLETION;
		atomic_fetch_add(&cq->ref, 1);
	}
	if (flags & FI_RECV) {
		ep->rx_cq = cq;
		ep->rx_selective = flags & FI_SELECTIVE_COMPLETION;
		atomic_fetch_add(&cq->ref, 1);
	}
	return 0;
}

static const uint64_t uet_ep_cntr_flags[UET_CNTR_MAX] = {
	[UET_CNTR_SEND] = FI_SEND,
	[UET_CNTR_RECV] = FI_RECV,
	[UET_CNTR_READ] = FI_READ,
	[UET_CNTR_WRITE] = FI_WRITE,
	[UET_CNTR_REMOTE_WRITE] = FI_REMOTE_WRITE,
	[UET_CNTR_REMOTE_READ] = FI_REMOTE_READ,
};

static int uet_ep_bind_cntr(struct uet_ep *ep, struct uet_cntr *c,
			    uint64_t flags)
{
	uint64_t all = FI_SEND | FI_RECV | FI_READ | FI_WRITE |
		       FI_REMOTE_WRITE | FI_REMOTE_READ;

	/*
	 * Remote events count on any endpoint: fi_endpoint(3) asks the
	 * application for FI_RMA_EVENT, and libfabric's own providers, and
	 * fabtests binding FI_REMOTE_* to any FI_RMA endpoint, do not check.
	 */
	if ((flags & ~all) || !flags)
		return -FI_EBADFLAGS;
	for (int i = 0; i < UET_CNTR_MAX; i++)
		if ((flags & uet_ep_cntr_flags[i]) && ep->cntr[i])
			return -FI_EINVAL;
	for (int i = 0; i < UET_CNTR_MAX; i++) {
		if (flags & uet_ep_cntr_flags[i]) {
			ep->cntr[i] = c;
			atomic_fetch_add(&c->ref, 1);
		}
	}
	return 0;
}

static int uet_ep_bind_locked(struct uet_ep *ep, struct fid *bfid,
			      uint64_t flags)
{
	struct uet_av *av;
	struct uet_eq *eq;

	switch (bfid->fclass) {
	case FI_CLASS_AV:
		av = container_of(bfid, struct uet_av, av_fid.fid);
		if (av->dom != ep->dom)
			return -FI_EDOMAIN;
		if (flags)
			return -FI_EBADFLAGS;
		if (ep->av || ep->eng)
			return ep->av ? -FI_EINVAL : -FI_EOPBADSTATE;
		ep->av = av;
		atomic_fetch_add(&av->ref, 1);
		return 0;
	case FI_CLASS_CQ:
		if (container_of(bfid, struct uet_cq, cq_fid.fid)->dom != ep->dom)
			return -FI_EDOMAIN;
		return uet_ep_bind_cq(ep, container_of(bfid, struct uet_cq,
						       cq_fid.fid), flags);
	case FI_CLASS_CNTR:
		if (container_of(bfid, struct uet_cntr, cntr_fid.fid)->dom !=
		    ep->dom)
			return -FI_EDOMAIN;
		return uet_ep_bind_cntr(ep, container_of(bfid, struct uet_cntr,
							 cntr_fid.fid), flags);
	case FI_CLASS_EQ:
		eq = container_of(bfid, struct uet_eq, eq_fid.fid);
		if (eq->fab != ep->dom->fab)
			return -FI_EDOMAIN;
		if (ep->eq)
			return -FI_EINVAL;
		ep->eq = eq;
		atomic_fetch_add(&eq->ref, 1);
		return 0;
	default:
		return -FI_EINVAL;
	}
}

static int uet_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uet_ep *ep = uet_ep_of(fid);
	int ret;

	if (!bfid)
		return -FI_EINVAL;
	uet_domain_lock(ep->dom);
	ret = uet_ep_bind_locked(ep, bfid, flags);
	uet_domain_unlock(ep->dom);
	return ret;
}

/* ---- enable ------------------------------------------------------------------ */
static void uet_ep_engine_cfg(const struct uet_ep *ep,
			      struct uet_engine_cfg *cfg)
{
	const struct uet_domain *dom = ep->dom;
	const struct uet_params *p = &dom->params;

	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->ifname, dom->ifname);
	cfg->queue_id = p->queue_id;
	cfg->local = ep->src.fa;
	cfg->udp_port = p->port;
	cfg->payload_mtu = p->payload_mtu;
	cfg->job_id = dom->job_id;
	cfg->pid_on_fep = ep->src.pid_on_fep;
	cfg->initiator = ep->src.initiator;
	cfg->rto_init_ns = p->rto_ns;
	cfg->max_retries = p->max_retries ? p->max_retries : UET_MAX_RETRIES;
	cfg->max_peers = p->max_peers;
	cfg->max_pdcs = p->max_pdcs;
	cfg->max_opening = p->max_opening;
	cfg->ordered = ep->ordered;
	cfg->rdv = true;
	cfg->rdv_ri = (uint16_t)UET_RI_RDV(ep->src.ri_base);
	/* 0 would mean the SES default (8 KiB): 1 sends every byte as one. */
	cfg->rdv_threshold = p->rdv_threshold ? p->rdv_threshold : 1;
	cfg->rdv_eager_len = p->rdv_eager;
	cfg->ack_before_cpl = p->ack_before_cpl;
	cfg->multipath = p->multipath;
	cfg->entropies = p->entropies;
	cfg->print_stats = p->print_stats;
	cfg->trace_path = p->trace_path;	/* read by create only */
	cfg->trace_us = p->trace_us;
	cfg->cc_set = true;
	cfg->cc = p->cc;
	cfg->link_mbps = dom->link_mbps;
	cfg->link_guessed = dom->link_guessed;
	cfg->trimming = p->trimming;
	cfg->no_dfc = !p->dfc;
	cfg->dscp_set = true;
	cfg->dscp = p->dscp;
	cfg->tss = p->tss;
	cfg->crc = p->crc;
	cfg->local_off = p->local_off;
	cfg->local_pull_threshold = p->local_pull;
	cfg->rudi = p->rudi;
}

static int uet_ep_enable_locked(struct uet_ep *ep)
{
	struct ses_ri_id id = { .job_id = ep->dom->job_id,
				.pid_on_fep = ep->src.pid_on_fep,
				.ri = ep->src.ri_base };
	struct ses_ri_id msg = id;
	struct uet_engine_cfg cfg;
	int ret;

	if (ep->eng)
		return 0;
	if (!ep->av)
		return -FI_ENOAV;
	uet_ep_engine_cfg(ep, &cfg);
	ep->eng = uet_engine_create(&cfg, &uet_engine_ops, ep);
	if (!ep->eng) {
		const char *why = uet_engine_last_error();

		/* FI_E* equal the errnos: EADDRINUSE, EACCES, ENOSPC, ... */
		ret = errno == ENOENT ? -FI_ENODEV :
		      errno == ENOKEY ? -FI_ENOKEY :
		      errno == EKEYEXPIRED ? -FI_EKEYREJECTED : -errno;
		FI_WARN(&uet_prov, FI_LOG_EP_CTRL, "no endpoint on %s: %s\n",
			cfg.ifname, *why ? why : strerror(errno));
		return ret;
	}
	/* PIDonFEP 0 asked for none: the one the service gave is ours. */
	if (ep->src.pid_on_fep != uet_engine_pid_on_fep(ep->eng)) {
		ep->src.pid_on_fep = uet_engine_pid_on_fep(ep->eng);
		ep->src.initiator = uet_addr_initiator(&ep->src.fa,
						       ep->src.pid_on_fep);
		id.pid_on_fep = ep->src.pid_on_fep;
		msg.pid_on_fep = ep->src.pid_on_fep;
	}
	msg.ri = (uint16_t)UET_RI_MSG(id.ri);
	ret = ses_ri_add(uet_engine_ses(ep->eng), &id, 0);
	if (!ret)
		ret = ses_ri_add(uet_engine_ses(ep->eng), &msg,
				 SES_RI_F_MSG | SES_RI_F_NO_GEN);
	if (ret)
		ret = ret == -ENOMEM ? -FI_ENOMEM : -FI_EINVAL;
	else
		ret = uet_mr_install_ep(ep);
	if (ret) {
		uet_engine_destroy(ep->eng);
		ep->eng = NULL;
		return ret;
	}
	ret = uet_progress_thread_start(ep->dom);
	if (ret)	/* the wire then waits on the application's calls */
		FI_WARN(&uet_prov, FI_LOG_EP_CTRL, "no progress thread: %s\n",
			strerror(-ret));
	/* Its arrivals must wake whoever sleeps on a CQ's or counter's fd. */
	uet_wait_ep_enabled(ep);
	FI_INFO(&uet_prov, FI_LOG_EP_CTRL, "enabled on %s, payload MTU %u\n",
		cfg.ifname, uet_engine_payload_mtu(ep->eng));
	return 0;
}

static int uet_ep_ops_flag(struct uet_ep *ep, uint64_t *arg, bool set)
{
	uint64_t sel = *arg & (FI_TRANSMIT | FI_RECV);
	uint64_t *flags = sel == FI_TRANSMIT ? &ep->tx_op_flags :
			  &ep->rx_op_flags;

	if (sel != FI_TRANSMIT && sel != FI_RECV)
		return -FI_EINVAL;
	if (!set) {
		*arg = *flags;
		return 0;
	}
	if (sel == FI_TRANSMIT &&
	    (*arg & ~(FI_TRANSMIT | UET_TX_OP_FLAGS | FI_INJECT)))
		return -FI_EBADFLAGS;
	*flags = *arg & ~sel;
	return 0;
}

static int uet_ep_control(struct fid *fid, int command, void *arg)
{
	struct uet_ep *ep = uet_ep_of(fid);
	int ret;

	if ((command == FI_GETOPSFLAG || command == FI_SETOPSFLAG) && !arg)
		return -FI_EINVAL;
	uet_domain_lock(ep->dom);
	switch (command) {
	case FI_ENABLE:
		ret = uet_ep_enable_locked(ep);
		break;
	case FI_GETOPSFLAG:
	case FI_SETOPSFLAG:
		ret = uet_ep_ops_flag(ep, arg, command == FI_SETOPSFLAG);
		break;
	default:
		ret = -FI_ENOSYS;
		break;
	}
	uet_domain_unlock(ep->dom);
	return ret;
}

/*
 * The endpoint's state for AV slot |slot|, made on first use: chunks of
 * UET_AV_CHUNK slots as the AV's (the first grows up to that), only those
 * the endpoint sends to, so that a million-entry AV costs an endpoint
 * that talks to a few peers a few chunks. NULL: out of memory.
 */
struct uet_ep_peer *uet_ep_peer_slot(struct uet_ep *ep, uint32_t slot)
{
	uint32_t c = slot >> UET_AV_CHUNK_SHIFT;
	uint32_t off = slot & (UET_AV_CHUNK - 1);
	struct uet_ep_peer **pp, *p;
	uint32_t n;

	if (c >= ep->peer_chunks) {
		n = ep->peer_chunks * 2 > c + 1 ? ep->peer_chunks * 2 : c + 1;
		pp = realloc(ep->peers, n * sizeof(*pp));
		if (!pp)
			return NULL;
		memset(pp + ep->peer_chunks, 0,
		       (n - ep->peer_chunks) * sizeof(*pp));
		ep->peers = pp;
		ep->peer_chunks = n;
	}
	if (!c && off >= ep->peers0_cap) {
		for (n = UET_AV_DEF_SIZE; n <= off; n *= 2)
			;
		p = realloc(ep->peers[0], n * sizeof(*p));
		if (!p)
			return NULL;
		memset(p + ep->peers0_cap, 0,
		       (n - ep->peers0_cap) * sizeof(*p));
		ep->peers[0] = p;
		ep->peers0_cap = n;
	} else if (c && !ep->peers[c]) {
		ep->peers[c] = calloc(UET_AV_CHUNK, sizeof(*p));
		if (!ep->peers[c])
			return NULL;
	}
	return &ep->peers[c][off];
}

int uet_ep_peer_dst(struct uet_ep *ep, fi_addr_t addr, struct ses_addr *dst,
		    uint16_t *ri)
{
	const struct uet_av_entry *e = uet_av_entry_get(ep->av, addr);
	struct uet_ep_peer *p;
	struct uet_fa fa;
	int id;

	if (!e)
		return -FI_EINVAL;
	p = uet_ep_peer_slot(ep, uet_av_slot_of(addr));
	if (!p)
		return -FI_ENOMEM;
	if (p->gen != e->gen) {
		uet_av_entry_fa(e, &fa);
		id = uet_engine_peer_get(ep->eng, &fa, e->pid_on_fep,
					 UET_PEER_TIMEOUT_MS);
		if (id == -ENOSPC)
			FI_WARN_ONCE(&uet_prov, FI_LOG_EP_DATA,
				     "endpoint holds %u peers, its most: "
				     "raise FI_UET_MAX_PEERS (FI_ENOSPC)\n",
				     uet_engine_max_peers(ep->eng));
		if (id < 0)
			return id;	/* FI_E* equal the errnos here */
		p->id = (uint32_t)id;
		p->gen = e->gen;
	}
	*dst = (struct ses_addr){ .peer = p->id, .job_id = ep->dom->job_id,
				  .pid_on_fep = e->pid_on_fep };
	*ri = e->ri_base;
	return 0;
}

/* ---- close ------------------------------------------------------------------- */
static void uet_ep_unbind(struct uet_ep *ep)
{
	if (ep->av)
		atomic_fetch_sub(&ep->av->ref, 1);
	if (ep->tx_cq)
		atomic_fetch_sub(&ep->tx_cq->ref, 1);
	if (ep->rx_cq)
		atomic_fetch_sub(&ep->rx_cq->ref, 1);
	for (int i = 0; i < UET_CNTR_MAX; i++)
		if (ep->cntr[i])
			atomic_fetch_sub(&ep->cntr[i]->ref, 1);
	if (ep->eq)
		atomic_fetch_sub(&ep->eq->ref, 1);
}

static int uet_ep_close(struct fid *fid)
{
	struct uet_ep *ep = uet_ep_of(fid);
	struct uet_domain *dom = ep->dom;

	uet_domain_lock(dom);
	uet_list_del(&ep->link);
	uet_mr_detach_ep(ep);
	/* Operations in flight end with the engine, unreported. */
	if (ep->eng) {
		uet_wait_ep_closing(ep);
		uet_engine_destroy(ep->eng);
	}
	uet_domain_unlock(dom);
	uet_ep_unbind(ep);
	atomic_fetch_sub(&dom->ref, 1);
	uet_msg_rx_fini(ep);
	for (uint32_t c = 0; c < ep->peer_chunks; c++)
		free(ep->peers[c]);
	free(ep->peers);
	uet_op_free_copies(ep);
	free(ep->ops);
	free(ep);
	return 0;
}

/* ---- names, options, cancel, sizes ----------------------------------------- */
static int uet_ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct uet_ep *ep = uet_ep_of(fid);
	uint8_t blob[UET_ADDR_LEN];
	size_t len;

	if (!addrlen || (*addrlen && !addr))
		return -FI_EINVAL;
	uet_domain_lock(ep->dom);
	uet_addr_encode(blob, sizeof(blob), &ep->src);
	uet_domain_unlock(ep->dom);
	len = *addrlen < sizeof(blob) ? *addrlen : sizeof(blob);
	if (len)
		memcpy(addr, blob, len);
	*addrlen = sizeof(blob);
	return len < sizeof(blob) ? -FI_ETOOSMALL : 0;
}

static int uet_ep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct uet_ep *ep = uet_ep_of(fid);
	struct uet_addr a;
	int ret = 0;

	if (!addr || uet_addr_decode(&a, addr, addrlen) < 0)
		return -FI_EINVAL;
	uet_domain_lock(ep->dom);
	if (ep->eng)
		ret = -FI_EOPBADSTATE;
	else if (!uet_fa_is_equal(&a.fa, &ep->dom->src.fa))
		ret = -FI_EINVAL;	/* not this domain's interface */
	else
		ep->src = a;
	uet_domain_unlock(ep->dom);
	return ret;
}

static ssize_t uet_ep_cancel(fid_t fid, void *context)
{
	struct uet_ep *ep = uet_ep_of(fid);
	struct uet_list *pos;
	struct uet_op *op;
	ssize_t ret = -FI_ENOENT;

	uet_domain_lock(ep->dom);
	/* Sends and RMA only while they wait for a fence; receives. */
	uet_list_for_each(pos, &ep->fenced) {
		op = container_of(pos, struct uet_op, link);
		/* One that had its inject completion is done for the app. */
		if (op->context == context && !uet_op_is_reported(op)) {
			uet_list_del(&op->link);
			uet_op_complete(op, -ECANCELED, 0);
			ret = 0;
			break;
		}
	}
	if (ret)
		ret = uet_msg_cancel(ep, context);
	uet_domain_unlock(ep->dom);
	return ret;
}

static int uet_ep_getopt(fid_t fid, int level, int optname, void *optval,
			 size_t *optlen)
{
	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	return uet_msg_getopt(uet_ep_of(fid), optname, optval, optlen);
}

static int uet_ep_setopt(fid_t fid, int level, int optname,
			 const void *optval, size_t optlen)
{
	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	return uet_msg_setopt(uet_ep_of(fid), optname, optval, optlen);
}

static ssize_t uet_ep_tx_size_left(struct fid_ep *ep_fid)
{
	struct uet_ep *ep = container_of(ep_fid, struct uet_ep, ep_fid);
	ssize_t n;

	uet_domain_lock(ep->dom);
	n = (ssize_t)(ep->tx_size - ep->outstanding);
	uet_domain_unlock(ep->dom);
	return n;
}

static ssize_t uet_ep_rx_size_left(struct fid_ep *ep_fid)
{
	struct uet_ep *ep = container_of(ep_fid, struct uet_ep, ep_fid);
	ssize_t n;

	uet_domain_lock(ep->dom);
	n = (ssize_t)(ep->rx.size - ep->rx.used);
	uet_domain_unlock(ep->dom);
	return n;
}

static const struct fi_ops uet_ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uet_ep_close,
	.bind = uet_ep_bind,
	.control = uet_ep_control,
	.ops_open = uet_no_ops_open,
	.tostr = uet_no_tostr,
	.ops_set = uet_no_ops_set,
};

static const struct fi_ops_ep uet_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = uet_ep_cancel,
	.getopt = uet_ep_getopt,
	.setopt = uet_ep_setopt,
	.tx_ctx = uet_no_tx_ctx,
	.rx_ctx = uet_no_rx_ctx,
	.rx_size_left = uet_ep_rx_size_left,
	.tx_size_left = uet_ep_tx_size_left,
};

static const struct fi_ops_cm uet_ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = uet_ep_setname,
	.getname = uet_ep_getname,
	.getpeer = uet_no_getpeer,
	.connect = uet_no_connect,
	.listen = uet_no_listen,
	.accept = uet_no_accept,
	.reject = uet_no_reject,
	.shutdown = uet_no_shutdown,
	.join = uet_no_join,
};

/* ---- open -------------------------------------------------------------------- */
static int uet_ep_init(struct uet_ep *ep, const struct fi_info *info)
{
	const struct fi_tx_attr *tx = info->tx_attr;
	const struct fi_rx_attr *rx = info->rx_attr;

	uint64_t order = (tx ? tx->msg_order : 0) | (rx ? rx->msg_order : 0);

	if ((info->ep_attr && info->ep_attr->type != FI_EP_RDM &&
	     info->ep_attr->type != FI_EP_UNSPEC) ||
	    (tx && tx->size > UET_TX_SIZE) || (rx && rx->size > UET_RX_SIZE) ||
	    (order & ~UET_MSG_ORDER))
		return -FI_EINVAL;
	if (info->caps & (FI_COLLECTIVE | FI_MULTICAST))
		return -FI_EOPNOTSUPP;
	/* What fi_getinfo accepts in the hints, as FI_SETOPSFLAG does. */
	if (tx && (tx->op_flags & ~(UET_TX_OP_FLAGS | FI_INJECT)))
		return -FI_EBADFLAGS;
	ep->caps = info->caps ? info->caps : UET_CAPS;
	/* Under an API before 2.0, these bits named other things. */
	if (FI_VERSION_LT(ep->dom->fab->fab_fid.api_version, FI_VERSION(2, 0)))
		ep->caps &= ~UET_CAPS_2_0;
	ep->tx_op_flags = tx ? tx->op_flags : 0;
	ep->rx_op_flags = rx ? rx->op_flags : 0;
	ep->ordered = order & FI_ORDER_SAS;
	ep->src = ep->dom->src;
	if (info->src_addr &&
	    (uet_addr_decode(&ep->src, info->src_addr, info->src_addrlen) < 0 ||
	     !uet_fa_is_equal(&ep->src.fa, &ep->dom->src.fa)))
		return -FI_EINVAL;
	/* What it serves is the domain's to say (FI_UET_RUDI), not the blob's. */
	ep->src.fep_caps = ep->dom->src.fep_caps;
	ep->tx_size = tx && tx->size ? tx->size : UET_TX_SIZE;
	ep->ops = calloc(ep->tx_size, sizeof(*ep->ops));
	if (!ep->ops)
		return -FI_ENOMEM;
	uet_list_init(&ep->free_ops);
	uet_list_init(&ep->fenced);
	for (size_t i = 0; i < ep->tx_size; i++) {
		ep->ops[i].ep = ep;
		uet_list_add_tail(&ep->free_ops, &ep->ops[i].link);
	}
	return uet_msg_rx_init(ep, rx && rx->size ? rx->size : UET_RX_SIZE);
}

int uet_ep_open(struct fid_domain *domain, struct fi_info *info,
		struct fid_ep **ep_fid, void *context)
{
	struct uet_domain *dom = container_of(domain, struct uet_domain,
					      dom_fid);
	struct uet_ep *ep;
	int ret;

	if (!info || !ep_fid)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ep->dom = dom;
	ret = uet_ep_init(ep, info);
	if (ret) {
		uet_msg_rx_fini(ep);
		free(ep->ops);
		free(ep);
		return ret;
	}
	ep->ep_fid.fid.fclass = FI_CLASS_EP;
	ep->ep_fid.fid.context = context;
	ep->ep_fid.fid.ops = (struct fi_ops *)&uet_ep_fi_ops;
	ep->ep_fid.ops = (struct fi_ops_ep *)&uet_ep_ops;
	ep->ep_fid.cm = (struct fi_ops_cm *)&uet_ep_cm_ops;
	ep->ep_fid.msg = (struct fi_ops_msg *)&uet_msg_ops;
	ep->ep_fid.rma = (struct fi_ops_rma *)&uet_rma_ops;
	ep->ep_fid.tagged = (struct fi_ops_tagged *)&uet_tagged_ops;
	ep->ep_fid.atomic = (struct fi_ops_atomic *)&uet_atomic_ops;
	ep->ep_fid.collective =
		(struct fi_ops_collective *)&uet_no_collective_ops;
	atomic_fetch_add(&dom->ref, 1);
	uet_domain_lock(dom);
	uet_list_add_tail(&dom->eps, &ep->link);
	uet_domain_unlock(dom);
	*ep_fid = &ep->ep_fid;
	return 0;
}
