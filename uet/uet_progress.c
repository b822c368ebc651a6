/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Manual progress (FI_PROGRESS_MANUAL): CQ and counter reads and the data
 * calls run every enabled endpoint's engine; the engine's upcalls turn
 * finished WREs into completions, landed WRITEs into remote CQ data and
 * FI_RMA_EVENT counters, and hand receives to uet_msg_rx.c. Also the one
 * table that maps UET return codes to libfabric error numbers, and the
 * sleeping of sread and wait.
 */
#define _GNU_SOURCE	/* ppoll */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>

#include "ses/ses_hdr.h"
#include "uet/uet.h"

/*
 * A target's UET return code (prov_errno of the error completion) and the
 * libfabric error it becomes (err). Codes not listed: FI_EREMOTEIO.
 */
static const struct {
	uint8_t rc;
	int err;
} uet_rc_errs[] = {
	{ UET_SES_RC_BAD_GENERATION,	FI_EKEYREJECTED },  /* after a retry */
	{ UET_SES_RC_DISABLED,		FI_ECONNREFUSED },
	{ UET_SES_RC_DISABLED_GEN,	FI_ECONNREFUSED },
	{ UET_SES_RC_NO_MATCH,		FI_ENOMSG },
	{ UET_SES_RC_UNSUPPORTED_OP,	FI_EOPNOTSUPP },
	{ UET_SES_RC_UNSUPPORTED_SIZE,	FI_EMSGSIZE },
	{ UET_SES_RC_AT_PERM,		FI_EACCES },
	{ UET_SES_RC_HOST_POISONED,	FI_EIO },
	{ UET_SES_RC_HOST_UNSUCCESS_CMPL, FI_EIO },
	{ UET_SES_RC_AMO_UNSUPPORTED_OP, FI_EOPNOTSUPP },
	{ UET_SES_RC_AMO_UNSUPPORTED_DT, FI_EOPNOTSUPP },
	{ UET_SES_RC_AMO_UNSUPPORTED_SIZE, FI_EOPNOTSUPP },
	{ UET_SES_RC_AMO_UNALIGNED,	FI_EINVAL },
	{ UET_SES_RC_PERM_VIOLATION,	FI_EACCES },	/* access rights */
	{ UET_SES_RC_OP_VIOLATION,	FI_EINVAL },	/* op or lengths */
	{ UET_SES_RC_BAD_INDEX,		FI_EADDRNOTAVAIL },  /* no such RI */
	{ UET_SES_RC_BAD_PID,		FI_EADDRNOTAVAIL },
	{ UET_SES_RC_BAD_JOB_ID,	FI_EACCES },	/* auth_key */
	{ UET_SES_RC_BAD_MKEY,		FI_EKEYREJECTED },
	{ UET_SES_RC_BAD_ADDR,		FI_EACCES },	/* outside region */
	{ UET_SES_RC_CANCELLED,		FI_ECANCELED },
	{ UET_SES_RC_UNDELIVERABLE,	FI_EHOSTUNREACH },
	{ UET_SES_RC_UNCOR,		FI_EIO },
	{ UET_SES_RC_UNCOR_TRNSNT,	FI_EIO },
	{ UET_SES_RC_TOO_LONG,		FI_EMSGSIZE },
	{ UET_SES_RC_INITIATOR_ERR,	FI_EIO },
};

/* |status| from ses (0, -EREMOTEIO with |rc|, or a local errno). */
int uet_fi_errno(int status, uint8_t rc)
{
	if (status != -EREMOTEIO)
		return status < 0 ? -status : FI_EOTHER;
	for (size_t i = 0; i < sizeof(uet_rc_errs) / sizeof(uet_rc_errs[0]);
	     i++)
		if (uet_rc_errs[i].rc == rc)
			return uet_rc_errs[i].err;
	return FI_EREMOTEIO;
}

const char *uet_rc_str(uint8_t rc)
{
	const char *name = ses_rc_name(rc);

	return name ? name : "unknown UET return code";
}

int uet_prov_errno(int status, uint8_t rc)
{
	return status == -EREMOTEIO ? rc : status < 0 ? status : 0;
}

/* What a local failure means here, for fi_cq_strerror. */
static const struct {
	int errnum;
	const char *what;
} uet_local_errs[] = {
	{ ETIMEDOUT, "timed out: the peer acknowledged nothing through "
		     "every retransmission allowed (FI_UET_MAX_RETRIES)" },
	{ ECONNRESET, "the peer's endpoint is gone (its device service "
		      "answered for it, or its PDC was torn down)" },
	{ EHOSTUNREACH, "the peer is unreachable (no route or neighbour)" },
	{ ENETUNREACH, "the peer's network is unreachable" },
	{ ENOBUFS, "the peer is unreachable: the kernel made no neighbour "
		   "entry for its next hop (its table full? "
		   "net.ipv4.neigh.default.gc_thresh3)" },
	{ ECANCELED, "cancelled (fi_cancel or the endpoint closed)" },
	{ EMSGSIZE, "longer than the buffer or the peer allows" },
};

const char *uet_strerror(int prov_errno, char *buf, size_t len)
{
	static __thread char own[160];
	const char *s = NULL;

	/* Without a buffer (fi_cq_strerror allows it): a per-thread one. */
	if (!buf || !len) {
		buf = own;
		len = sizeof(own);
	}
	if (prov_errno > 0) {
		snprintf(buf, len, "the target answered %s",
			 uet_rc_str((uint8_t)prov_errno));
	} else if (prov_errno < 0) {
		for (size_t i = 0; i < sizeof(uet_local_errs) /
		     sizeof(uet_local_errs[0]); i++)
			if (uet_local_errs[i].errnum == -prov_errno)
				s = uet_local_errs[i].what;
		snprintf(buf, len, "%s", s ? s : fi_strerror(-prov_errno));
	} else {
		snprintf(buf, len, "no further detail");
	}
	return buf;
}

/* Called with the domain lock held; completes and frees |op|. */
void uet_op_complete(struct uet_op *op, int status, uint8_t rc)
{
	struct uet_ep *ep = op->ep;
	struct uet_cntr *c = ep->cntr[op->cq_flags & FI_SEND ? UET_CNTR_SEND :
				      op->cq_flags & FI_READ ?
				      UET_CNTR_READ : UET_CNTR_WRITE];
	struct fi_cq_err_entry err;
	struct uet_cq_entry e;

	/* Completed already: FI_INJECT_COMPLETE (uet_op_level.c). */
	if (uet_op_end_was_reported(op, status, rc)) {
		uet_list_add_tail(&ep->free_ops, &op->link);
		return;
	}
	if (!status) {
		if (op->want_cq) {
			e = (struct uet_cq_entry){ .op_context = op->context,
						   .flags = op->cq_flags,
						   .src = FI_ADDR_NOTAVAIL };
			uet_cq_write(ep->tx_cq, &e);
		}
		if (c)
			uet_cntr_inc(c);
	} else {
		/* Errors are reported whatever completions were asked for. */
		if (ep->tx_cq) {
			err = (struct fi_cq_err_entry){
				.op_context = op->context,
				.flags = op->cq_flags, .len = op->len,
				.err = uet_fi_errno(status, rc),
				.prov_errno = uet_prov_errno(status, rc) };
			uet_cq_write_err(ep->tx_cq, &err);
		}
		if (c)
			uet_cntr_inc_err(c);
		FI_DBG(&uet_prov, FI_LOG_EP_DATA, "op %p failed: %d rc %s\n",
		       op->context, status, uet_rc_str(rc));
	}
	uet_list_add_tail(&ep->free_ops, &op->link);
}

static void uet_ep_tx_done(void *ctx, const struct ses_wre *wre,
			   const struct ses_tx_cpl *cpl)
{
	struct uet_ep *ep = ctx;
	struct uet_op *op = wre->user_ctx;

	ep->outstanding--;
	uet_op_complete(op, cpl->status, cpl->rc);
	uet_ep_fence_kick(ep);
}

/* A peer's WRITE, READ or atomic was done on one of our regions. */
static void uet_ep_rma_done(void *ctx, const struct ses_rma_event *ev)
{
	struct uet_ep *ep = ctx;
	struct uet_mr *mr = NULL;
	struct uet_cq_entry e;
	struct uet_fa fa;
	bool cq;

	if (ev->hd || ep->dom->mr_cntr_cnt)
		mr = uet_mr_find(ep->dom, ev->rkey);
	cq = ev->hd && ep->rx_cq;
	/* The application sees it: it may answer (engine-less in tests). */
	if ((uet_rma_event_count(ep, ev, mr) || cq) && ep->eng)
		uet_engine_answer_may_come(ep->eng);
	if (!cq)
		return;
	e = (struct uet_cq_entry){
		.flags = FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA,
		.len = ev->len, .data = ev->header_data,
		.buf = mr ? mr->base + ev->offset : NULL,
		.src = FI_ADDR_NOTAVAIL,
	};
	if ((ep->caps & FI_SOURCE) && ep->av &&
	    !uet_engine_peer_fa(ep->eng, ev->peer, &fa))
		e.src = uet_av_reverse(ep->av, &fa, ev->initiator);
	uet_cq_write(ep->rx_cq, &e);
}

static void uet_ep_engine_warn(void *ctx, const char *msg)
{
	(void)ctx;
	FI_WARN(&uet_prov, FI_LOG_EP_DATA, "%s\n", msg);
}

const struct uet_engine_ops uet_engine_ops = {
	.tx_done = uet_ep_tx_done,
	.recv_done = uet_msg_recv_done,
	.rma_done = uet_ep_rma_done,
	.warn = uet_ep_engine_warn,
};

/* The application is here: the progress thread keeps away meanwhile. */
void uet_domain_app_came(struct uet_domain *dom)
{
	atomic_fetch_add_explicit(&dom->app_calls, 1, memory_order_relaxed);
}

/* Called with the domain lock held: the application's progress. */
void uet_domain_progress(struct uet_domain *dom)
{
	uet_domain_app_came(dom);
	uet_domain_run_engines(dom);
}

void uet_domain_run_engines(struct uet_domain *dom)
{
	struct uet_list *pos;
	struct uet_ep *ep;
	int ret;

	uet_list_for_each(pos, &dom->eps) {
		ep = container_of(pos, struct uet_ep, link);
		if (!ep->eng)
			continue;
		ret = uet_engine_progress(ep->eng);
		if (ret > 0)
			uet_domain_busy(dom);
		if (ret < 0)
			FI_WARN_SPARSE(&uet_prov, FI_LOG_EP_DATA,
				       "progress on %s: %s\n", dom->ifname,
				       fi_strerror(-ret));
		uet_ep_fence_kick(ep);
	}
}

void uet_domain_send_held(struct uet_domain *dom)
{
	struct uet_list *pos;
	struct uet_ep *ep;

	uet_list_for_each(pos, &dom->eps) {
		ep = container_of(pos, struct uet_ep, link);
		if (ep->eng)
			uet_engine_send_held(ep->eng);
	}
}

uint64_t uet_deadline_ns(int timeout_ms)
{
	if (timeout_ms < 0)
		return UINT64_MAX;
	return uet_engine_now_ns() + (uint64_t)timeout_ms * 1000000ull;
}

bool uet_deadline_passed(uint64_t deadline_ns)
{
	return deadline_ns != UINT64_MAX && uet_engine_now_ns() >= deadline_ns;
}

#define UET_WAIT_FDS	64
/*
 * Everything that comes for an engine wakes one of its three fds
 * (engine/uet_engine_wake.c), so a sleep is bounded only by the engines'
 * timers and, against what no fd tells, a long recheck. Engines past
 * UET_WAIT_FDS are not polled: with any of them, the short one.
 */
#define UET_WAIT_RECHECK_NS	(1000ull * 1000000)
#define UET_WAIT_UNPOLLED_NS	(100ull * 1000000)

/*
 * Sleeps until a socket of the domain's engines is readable, an engine
 * timer is due, |extra_fd| is readable (returns 1) or |deadline_ns|.
 * Called with the domain lock held; drops it while sleeping.
 */
int uet_domain_wait(struct uet_domain *dom, int extra_fd,
		    uint64_t deadline_ns)
{
	struct pollfd fds[UET_WAIT_FDS];
	uint64_t now = uet_engine_now_ns(), wait_ns, t;
	struct timespec ts;
	/* The progress thread keeps away while the application sleeps. */
	bool app = extra_fd < 0 || extra_fd != dom->prog_stop_fd;
	uint64_t max_ns = UET_WAIT_RECHECK_NS;
	/* The engines this sleep counts on (uet_engine_woke after it). */
	struct uet_engine *slept[UET_WAIT_FDS];
	int n = 0, nslept = 0, ret;
	struct uet_list *pos;
	struct uet_ep *ep;

	wait_ns = deadline_ns == UINT64_MAX ? UINT64_MAX :
		  deadline_ns > now ? deadline_ns - now : 0;
	if (extra_fd >= 0)
		fds[n++] = (struct pollfd){ .fd = extra_fd, .events = POLLIN };
	uet_list_for_each(pos, &dom->eps) {
		ep = container_of(pos, struct uet_ep, link);
		if (!ep->eng)
			continue;
		if (n + 3 > UET_WAIT_FDS) {
			max_ns = UET_WAIT_UNPOLLED_NS;
			continue;
		}
		fds[n++] = (struct pollfd){ .fd = uet_engine_fd(ep->eng),
					    .events = POLLIN };
		if (uet_engine_wake_fd(ep->eng) >= 0)
			fds[n++] = (struct pollfd){
				.fd = uet_engine_wake_fd(ep->eng),
				.events = POLLIN };
		if (uet_engine_svc_fd(ep->eng) >= 0)
			fds[n++] = (struct pollfd){
				.fd = uet_engine_svc_fd(ep->eng),
				.events = POLLIN };
		t = uet_engine_next_timeout_ns(ep->eng);
		/* A local peer's packets wait already: no sleep. */
		if (uet_engine_sleep(ep->eng))
			slept[nslept++] = ep->eng;
		else
			t = 0;
		wait_ns = t < wait_ns ? t : wait_ns;
	}
	/* ns, not ms: ACK delays and retransmit timers are microseconds. */
	t = wait_ns < max_ns ? wait_ns : max_ns;
	ts.tv_sec = (time_t)(t / 1000000000ull);
	ts.tv_nsec = (long)(t % 1000000000ull);
	if (app)
		atomic_fetch_add(&dom->app_sleeping, 1);
	uet_domain_unlock(dom);
	ret = ppoll(fds, (nfds_t)n, &ts, NULL);
	uet_domain_lock(dom);
	if (app)
		atomic_fetch_sub(&dom->app_sleeping, 1);
	/* By the list again: an endpoint may have closed meanwhile. */
	uet_list_for_each(pos, &dom->eps) {
		ep = container_of(pos, struct uet_ep, link);
		if (!ep->eng)
			continue;
		for (int i = 0; i < nslept; i++)
			if (slept[i] == ep->eng)
				uet_engine_woke(ep->eng);
		/* The service went away: look now, not at the next check. */
		for (int i = 0; ret > 0 && i < n; i++)
			if (fds[i].revents &&
			    fds[i].fd == uet_engine_svc_fd(ep->eng))
				uet_engine_svc_poke(ep->eng);
	}
	return ret > 0 && extra_fd >= 0 && (fds[0].revents & POLLIN);
}
