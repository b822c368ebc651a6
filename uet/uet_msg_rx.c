/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Receives: fi_recv* and fi_trecv* become SES receives (ses_recv.h does
 * the matching, the bounded unexpected queue and the rendezvous pulls),
 * and their ends become CQ entries, FI_ETRUNC and FI_ECANCELED errors and
 * counter events. A FI_MULTI_RECV buffer is one receive for the space it
 * has left, posted again after each message until less than
 * FI_OPT_MIN_MULTI_RECV is left; the completion that releases it carries
 * FI_MULTI_RECV. Arguments are checked before anything changes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ses/ses_hdr.h"
#include "uet/uet.h"

#define UET_RECV_FLAGS	(FI_COMPLETION | FI_MORE | FI_MSG | FI_TAGGED | \
			 FI_RECV | FI_TRANSMIT_COMPLETE | \
			 FI_DELIVERY_COMPLETE)

int uet_msg_rx_init(struct uet_ep *ep, size_t size)
{
	struct uet_msg_rx *q = &ep->rx;

	q->rxs = calloc(size, sizeof(*q->rxs));
	if (!q->rxs)
		return -FI_ENOMEM;
	q->size = size;
	q->min_multi_recv = UET_MIN_MULTI_RECV;
	uet_list_init(&q->free);
	uet_list_init(&q->posted);
	uet_list_init(&q->repost);
	for (size_t i = 0; i < size; i++)
		uet_list_add_tail(&q->free, &q->rxs[i].link);
	return 0;
}

void uet_msg_rx_fini(struct uet_ep *ep)
{
	free(ep->rx.rxs);
	ep->rx.rxs = NULL;
}

fi_addr_t uet_msg_src(struct uet_ep *ep, uint32_t peer, uint32_t initiator)
{
	struct uet_fa fa;

	if (!(ep->caps & FI_SOURCE) || !ep->av ||
	    uet_engine_peer_fa(ep->eng, peer, &fa))
		return FI_ADDR_NOTAVAIL;
	return uet_av_reverse(ep->av, &fa, initiator);
}

static bool uet_rx_directed(uint64_t caps, bool tagged)
{
	if (caps & FI_DIRECTED_RECV)
		return true;
	if (caps & UET_FI_TAGGED_DIRECTED_RECV)
		return tagged;
	return caps & UET_FI_EXACT_DIRECTED_RECV;
}

int uet_msg_recv_check(struct uet_ep *ep, const struct uet_recv_req *r,
		       uint32_t *initiator)
{
	uint64_t ok = UET_RECV_FLAGS | (r->tagged ? 0 : FI_MULTI_RECV);
	const struct uet_av_entry *e;

	if (r->flags & ~ok)
		return -FI_EBADFLAGS;
	if (r->iov_cnt > SES_IOV_MAX || (r->iov_cnt && !r->iov))
		return -FI_EINVAL;
	for (size_t i = 0; i < r->iov_cnt; i++)
		if (!r->iov[i].iov_base && r->iov[i].iov_len)
			return -FI_EINVAL;
	if ((r->flags & FI_MULTI_RECV) && r->iov_cnt != 1)
		return -FI_EINVAL;
	if (!ep->eng)
		return -FI_EOPBADSTATE;
	*initiator = SES_INITIATOR_ANY;
	/*
	 * Without FI_DIRECTED_RECV the source is ignored (fi_msg(3)); 2.0's
	 * FI_TAGGED_DIRECTED_RECV asks it for tagged receives only, and
	 * FI_EXACT_DIRECTED_RECV (the application never posts
	 * FI_ADDR_UNSPEC) for both unless paired with the former.
	 */
	if (!uet_rx_directed(ep->caps, r->tagged) || r->src == FI_ADDR_UNSPEC)
		return 0;
	e = uet_av_entry_get(ep->av, r->src);
	if (!e)
		return -FI_EINVAL;
	*initiator = e->initiator;
	return 0;
}

static void uet_rx_attr(const struct uet_rx *rx, struct ses_recv_attr *a)
{
	*a = (struct ses_recv_attr){
		.iov = rx->iov, .iov_cnt = rx->iov_cnt, .tag = rx->tag,
		.ignore = rx->ignore, .initiator = rx->initiator,
		.flags = rx->tagged ? SES_RECV_F_TAGGED : 0,
		.user_ctx = (void *)rx,
	};
}

static void uet_rx_put(struct uet_ep *ep, struct uet_rx *rx)
{
	uet_list_del(&rx->link);
	uet_list_add_tail(&ep->rx.free, &rx->link);
	ep->rx.used--;
}

static void uet_rx_fill(struct uet_ep *ep, struct uet_rx *rx,
			const struct uet_recv_req *r, uint32_t initiator)
{
	memset(rx, 0, sizeof(*rx));
	uet_list_init(&rx->link);
	rx->context = r->context;
	rx->tag = r->tag;
	rx->ignore = r->ignore;
	rx->initiator = initiator;
	rx->tagged = r->tagged;
	rx->want_cq = ep->rx_cq &&
		      (!ep->rx_selective || (r->flags & FI_COMPLETION));
	rx->iov_cnt = r->iov_cnt;
	for (size_t i = 0; i < r->iov_cnt; i++)
		rx->iov[i] = (struct ses_iov){ .base = r->iov[i].iov_base,
					       .len = r->iov[i].iov_len };
	if (r->flags & FI_MULTI_RECV) {
		rx->multi = true;
		rx->base = r->iov[0].iov_base;
		rx->len = r->iov[0].iov_len;
		rx->min_left = ep->rx.min_multi_recv;
	}
}

static ssize_t uet_msg_recv_locked(struct uet_ep *ep,
				   const struct uet_recv_req *r,
				   uint32_t initiator)
{
	struct ses *s = uet_engine_ses(ep->eng);
	struct ses_recv_attr a;
	struct uet_rx *rx;
	int ret;

	if (uet_list_is_empty(&ep->rx.free)) {
		uet_domain_progress(ep->dom);
		if (uet_list_is_empty(&ep->rx.free))
			return -FI_EAGAIN;
	}
	rx = container_of(ep->rx.free.next, struct uet_rx, link);
	uet_list_del(&rx->link);
	uet_rx_fill(ep, rx, r, initiator);
	ep->rx.used++;
	/* Posted first: the receive may complete inside the SES call. */
	uet_list_add_tail(&ep->rx.posted, &rx->link);
	uet_rx_attr(rx, &a);
	ret = r->claim ? ses_recv_claim(s, r->handle, &a) :
			 ses_recv_post(s, &a);
	if (ret) {
		uet_rx_put(ep, rx);
		return ret == -ENOENT ? -FI_EINVAL : -FI_EAGAIN;
	}
	return 0;
}

ssize_t uet_msg_recv_post(struct uet_ep *ep, const struct uet_recv_req *r)
{
	uint32_t initiator;
	ssize_t ret;

	uet_domain_lock(ep->dom);
	ret = uet_msg_recv_check(ep, r, &initiator);
	if (!ret)
		ret = uet_msg_recv_locked(ep, r, initiator);
	uet_domain_unlock(ep->dom);
	return ret;
}

/* ---- completions ------------------------------------------------------------- */
static int uet_recv_errno(const struct ses_recv_cpl *cpl)
{
	switch (cpl->status) {
	case -EMSGSIZE:
		return FI_ETRUNC;
	case -EIO:
		/* A code from the wire says more than the errno. */
		if (cpl->rc != UET_SES_RC_NULL && cpl->rc != UET_SES_RC_OK)
			return uet_fi_errno(-EREMOTEIO, cpl->rc);
		return FI_EIO;
	default:
		return uet_fi_errno(cpl->status, cpl->rc);
	}
}

/* Reports the end of |rx|'s receive of |cpl|, placed at |buf|. */
static void uet_rx_report(struct uet_ep *ep, const struct uet_rx *rx,
			  const struct ses_recv_cpl *cpl, void *buf,
			  uint64_t extra_flags)
{
	struct uet_cntr *c = ep->cntr[UET_CNTR_RECV];
	uint64_t flags = FI_RECV | (rx->tagged ? FI_TAGGED : FI_MSG) |
			 (cpl->hd ? FI_REMOTE_CQ_DATA : 0) | extra_flags;
	struct fi_cq_err_entry err;
	struct uet_cq_entry e;

	if (!cpl->status) {
		if (ep->rx_cq && (rx->want_cq || (extra_flags & FI_MULTI_RECV))) {
			e = (struct uet_cq_entry){
				.op_context = rx->context, .flags = flags,
				.len = cpl->len, .buf = buf,
				.data = cpl->header_data, .tag = cpl->tag,
				.src = uet_msg_src(ep, cpl->peer,
						   cpl->initiator),
			};
			uet_cq_write(ep->rx_cq, &e);
		}
		if (c)
			uet_cntr_inc(c);
		return;
	}
	/* Errors are reported whatever completions were asked for. */
	if (ep->rx_cq) {
		err = (struct fi_cq_err_entry){
			.op_context = rx->context, .flags = flags,
			.len = cpl->len, .buf = buf,
			.data = cpl->header_data,
			.tag = cpl->status == -ECANCELED ? rx->tag : cpl->tag,
			.olen = cpl->msg_len > cpl->len ?
				cpl->msg_len - cpl->len : 0,
			.err = uet_recv_errno(cpl),
			.prov_errno = cpl->status == -EIO ? cpl->rc :
				      uet_prov_errno(cpl->status, cpl->rc),
		};
		uet_cq_write_err(ep->rx_cq, &err);
	}
	if (c && cpl->status != -ECANCELED)
		uet_cntr_inc_err(c);
}

/* Posts the multi-receive buffers waiting on the repost list. */
static void uet_rx_repost(struct uet_ep *ep)
{
	struct ses *s = uet_engine_ses(ep->eng);
	struct ses_recv_cpl none = { .status = 0 };
	struct ses_recv_attr a;
	struct uet_rx *rx;

	/* Nested completions only queue: the outermost call posts. */
	if (ep->rx.reposting)
		return;
	ep->rx.reposting = true;
	while (!uet_list_is_empty(&ep->rx.repost)) {
		rx = container_of(ep->rx.repost.next, struct uet_rx, link);
		uet_list_del(&rx->link);
		rx->iov[0] = (struct ses_iov){ .base = rx->base + rx->off,
					       .len = rx->len - rx->off };
		uet_list_add_tail(&ep->rx.posted, &rx->link);
		uet_rx_attr(rx, &a);
		/* Ahead of the buffers posted after it, where it was. */
		a.flags |= SES_RECV_F_FRONT;
		if (!ses_recv_post(s, &a))
			continue;
		/* No room in SES (cannot happen: this one just left). */
		uet_rx_report(ep, rx, &none, rx->base + rx->off,
			      FI_MULTI_RECV);
		uet_rx_put(ep, rx);
	}
	ep->rx.reposting = false;
}

static void uet_rx_multi_done(struct uet_ep *ep, struct uet_rx *rx,
			      const struct ses_recv_cpl *cpl)
{
	uint8_t *buf = rx->base + rx->off;
	bool release;

	rx->off += cpl->len;
	release = cpl->status || rx->cancel ||
		  rx->len - rx->off < rx->min_left;
	uet_rx_report(ep, rx, cpl, buf, release ? FI_MULTI_RECV : 0);
	if (release) {
		uet_rx_put(ep, rx);
		return;
	}
	uet_list_del(&rx->link);
	uet_list_add_tail(&ep->rx.repost, &rx->link);
	uet_rx_repost(ep);
}

/* The engine's recv_done upcall: a receive ended. */
void uet_msg_recv_done(void *ctx, const struct ses_recv_cpl *cpl)
{
	struct uet_ep *ep = ctx;
	struct uet_rx *rx = cpl->user_ctx;

	if (rx->multi) {
		uet_rx_multi_done(ep, rx, cpl);
		return;
	}
	uet_rx_report(ep, rx, cpl, rx->iov_cnt ? rx->iov[0].base : NULL, 0);
	uet_rx_put(ep, rx);
}

int uet_msg_cancel(struct uet_ep *ep, void *context)
{
	struct uet_list *pos;
	struct uet_rx *rx;

	if (!ep->eng)
		return -FI_ENOENT;
	uet_list_for_each(pos, &ep->rx.posted) {
		rx = container_of(pos, struct uet_rx, link);
		if (rx->context != context)
			continue;
		/*
		 * recv_done reports it, FI_ECANCELED, from inside; also when
		 * matched to a message in progress (its rest is dropped, a
		 * rendezvous pull stops), and a multi-receive buffer is
		 * released with it.
		 */
		if (!ses_recv_cancel(uet_engine_ses(ep->eng), rx))
			return 0;
		/* Not in SES (cannot happen): it ends as it would have. */
		rx->cancel = true;
		return 0;
	}
	return -FI_ENOENT;
}

/* ---- FI_OPT_MIN_MULTI_RECV ------------------------------------------------------ */
int uet_msg_getopt(struct uet_ep *ep, int optname, void *optval,
		   size_t *optlen)
{
	if (optname != FI_OPT_MIN_MULTI_RECV)
		return -FI_ENOPROTOOPT;
	if (!optval || !optlen)
		return -FI_EINVAL;
	if (*optlen < sizeof(size_t)) {
		*optlen = sizeof(size_t);
		return -FI_ETOOSMALL;
	}
	uet_domain_lock(ep->dom);
	memcpy(optval, &ep->rx.min_multi_recv, sizeof(size_t));
	uet_domain_unlock(ep->dom);
	*optlen = sizeof(size_t);
	return 0;
}

int uet_msg_setopt(struct uet_ep *ep, int optname, const void *optval,
		   size_t optlen)
{
	if (optname != FI_OPT_MIN_MULTI_RECV)
		return -FI_ENOPROTOOPT;
	if (!optval || optlen != sizeof(size_t))
		return -FI_EINVAL;
	uet_domain_lock(ep->dom);
	memcpy(&ep->rx.min_multi_recv, optval, sizeof(size_t));
	uet_domain_unlock(ep->dom);
	return 0;
}
