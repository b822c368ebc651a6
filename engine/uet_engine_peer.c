/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's peer table: who a peer id names, how it got there, and when
 * it may name someone else.
 *
 * A source that sends to us first is only a reply address until PDC opens
 * a target PDC for it (ops.admit let its first packet in): a provisional
 * peer, from a small pool recycled least recently used first, enough for
 * PDC to NACK it and never seen by SES. It becomes live when the PDC
 * opens, and its id is reused once nothing holds it (PDC, SES, the
 * engine) and it has been silent a while. Peers the application sends to
 * first (uet_engine_peer_get) stay while the provider names them.
 *
 * Next hops come from the neighbour cache (uet_engine_neigh.c). A peer we
 * send to first whose next hop is unknown is RESOLVING: its WREs wait here,
 * and the progress tick posts them once the kernel resolved it, or fails
 * them with -EHOSTUNREACH once it failed or timed out.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet_fep.h"
#include "engine/uet_engine_local.h"
#include "engine/uet_engine_priv.h"
#include "engine/uet_engine_tss.h"

/* ---- provisional peers ---------------------------------------------------- */

/*
 * The least recently heard provisional peer (of source |nb|, or of any
 * when |nb| is negative) that nothing in PDC names: no NACK of its is
 * still queued. A few candidates are tried, oldest first.
 */
static int uet_engine_prov_victim(struct uet_engine *e, int64_t nb)
{
	uint64_t after = 0;

	for (int tries = 0; tries < 4; tries++) {
		int best = -1;

		for (uint32_t k = 0; k < e->nprov; k++) {
			uint32_t i = e->prov_ids[k];
			const struct uet_engine_peer *p = &e->peers[i];

			if ((nb >= 0 && p->nb != (uint32_t)nb) ||
			    p->heard_ns < after)
				continue;
			if (best < 0 || p->heard_ns < e->peers[best].heard_ns)
				best = (int)i;
		}
		if (best < 0)
			return -ENOSPC;
		if (!pdc_peer_in_use(e->pdc, (uint32_t)best))
			return best;
		after = e->peers[best].heard_ns + 1;
	}
	return -ENOSPC;
}

/* Room for one more provisional peer of source |nb|: 0 or -ENOSPC. */
static int uet_engine_prov_room(struct uet_engine *e, uint32_t nb)
{
	int victim;

	if (e->neigh[nb].prov >= UET_ENGINE_PROV_PER_SRC)
		victim = uet_engine_prov_victim(e, nb);
	else if (e->nprov >= UET_ENGINE_PROV_MAX ||
		 (!e->nfree_ids && e->npeers == e->max_peers))
		victim = uet_engine_prov_victim(e, -1);
	else
		return 0;
	if (victim < 0)
		return victim;
	uet_engine_peer_free(e, (uint32_t)victim);
	return 0;
}

/*
 * The peer of a frame from (|src|, |tag|) that is not an answer to one of
 * our PDCs: the live or provisional peer it is, or a new provisional one.
 * Its next hop must be known first (our answers go where the kernel says
 * |src| is); when it is not, the kernel is asked and -EAGAIN returned: the
 * sender resends. -ENOSPC when no provisional peer is free.
 */
int uet_engine_peer_rx(struct uet_engine *e, const struct uet_fa *src,
		       uint32_t tag)
{
	int id = uet_engine_peer_find(e, src, tag), nb, ret;

	if (id >= 0) {
		e->neigh[e->peers[id].nb].used_ns = e->now_ns;
		return id;
	}
	if (src->is_v6 != e->cfg.local.is_v6)
		return -EAFNOSUPPORT;
	nb = uet_engine_neigh_get(e, src, true);
	if (nb < 0)
		return nb;
	if (!e->neigh[nb].has_mac) {
		e->stats.rx_no_neigh++;
		return -EAGAIN;
	}
	ret = uet_engine_prov_room(e, (uint32_t)nb);
	if (ret == 0)
		ret = uet_engine_peer_add(e, src, tag, UET_PEER_PROVISIONAL,
					  (uint32_t)nb);
	if (ret < 0)
		e->stats.rx_no_peer++;
	return ret;
}

/* ---- admission ------------------------------------------------------------ */

/*
 * A response opening a PDC must answer a message of ours to that host, or
 * come from a host we wait on (operations outstanding). The latter: after
 * a link flap the target resends the responses its failed PDC held
 * (uet_engine_resp_resend), and the first one may answer a message we have
 * failed meanwhile; refused, it would take down the new PDC and with it
 * the answers behind it that we still wait for. SES drops the stale one.
 */
static int uet_engine_admit_rsp(struct uet_engine *e,
				const struct pdc_rx_pkt *pkt)
{
	int ret = uet_engine_resp_id(pkt);
	uint32_t owner;
	uint16_t id;

	if (ret < 0)
		return ret;
	id = (uint16_t)ret;
	if (uet_engine_resp_peer(e, pkt->peer, id) != pkt->peer ||
	    (uet_engine_peer_is_up(e, pkt->peer) &&
	     ses_msg_is_outstanding(e->ses, pkt->peer, id)))
		return 0;
	owner = uet_engine_resp_owner(e, pkt->peer, id, true);
	if (uet_engine_peer_is_up(e, owner) && e->peers[owner].ops_out)
		return 0;
	return -ENOENT;
}

/*
 * Peers that send to us first are refused: the user hears it once, with
 * the setting to raise (their initiators time out, FI_ETIMEDOUT).
 */
static void uet_engine_warn_full(struct uet_engine *e, uint32_t nb)
{
	char msg[200];

	if (e->warned_full || !e->ops.warn)
		return;
	e->warned_full = true;
	snprintf(msg, sizeof(msg), "endpoint refuses new peers: it holds %u "
		 "that sent to it first (%u from one host), its most: 3/4 of "
		 "FI_UET_MAX_PEERS=%u (a quarter from one host); raise it",
		 e->nlive_ep, e->neigh[nb].live_ep, e->max_peers);
	e->ops.warn(e->ctx, msg);
}

/*
 * ops.admit: the first packet of a PDC a remote initiator opens. Refused:
 * what SES would not take at all (a header that does not decode, a
 * response to nothing of ours), a source past its share of the table, and
 * requests for another JobID or PIDonFEP once half the room for peers that
 * send first is taken. Until then those are admitted, for SES to answer
 * them RC_BAD_JOB_ID or RC_BAD_PID as the spec asks (a sender learns its
 * mistake instead of timing out; test/e2e/e2e_fep.sh b).
 */
int uet_engine_pdc_admit(void *ctx, const struct pdc_rx_pkt *pkt)
{
	struct uet_engine *e = ctx;
	struct ses_rx_pkt in = {
		.peer = pkt->peer, .next_hdr = pkt->next_hdr,
		.buf = pkt->buf, .len = pkt->len, .now_ns = e->now_ns,
	};
	const struct uet_engine_peer *p;
	int rc;

	if (pkt->peer >= e->npeers)
		return -ENOENT;
	p = &e->peers[pkt->peer];
	if (pkt->next_hdr == UET_PDS_NEXT_HDR_RESPONSE ||
	    pkt->next_hdr == UET_PDS_NEXT_HDR_RESPONSE_DATA)
		rc = uet_engine_admit_rsp(e, pkt);
	else
		rc = ses_req_screen(e->ses, &in);
	if (rc >= 0 && p->state == UET_PEER_PROVISIONAL) {
		if (e->neigh[p->nb].live_ep >= e->live_per_src ||
		    e->nlive_ep >= e->live_max) {
			rc = -EDQUOT;
			uet_engine_warn_full(e, p->nb);
		}
		else if (rc != UET_SES_RC_OK &&
			 e->nlive_ep >= e->live_max / 2)
			rc = -EACCES;
	}
	if (rc < 0) {
		e->stats.peers_refused++;
		return rc;
	}
	return 0;
}

/*
 * A response whose PDC failed (timed out, or canceled behind the failure)
 * goes again on a new one (PDC opens it: the failed one left the hash
 * before its packets were reported), until UET_ENGINE_RESP_RETRY_NS after
 * its first failure; not when the peer refused or restarted (-EPROTO,
 * -ECONNRESET, ...): no answer of the old incarnation is awaited. true:
 * sent again.
 * Its bytes are its own or a region's (a region that goes is copied
 * first: uet_engine_ses_pay_revoke), never a message's the application
 * got back: so the peer's epoch, which the failure moves on, does not
 * cancel it (uet_engine_pdc_fill).
 */
bool uet_engine_resp_resend(struct uet_engine *e, struct uet_engine_slot *s,
			    uint64_t cookie, int status)
{
	uint64_t now = e->now_ns ? e->now_ns : uet_engine_now_ns();
	struct pdc_pkt p = {
		.cookie = cookie, .peer = s->peer,
		.len = s->hdr_len + s->pay_len,
		.mode = e->cfg.ordered ? PDC_MODE_ROD : PDC_MODE_RUD,
		.next_hdr = s->next_hdr, .flags = PDC_PKT_F_AR,
	};

	if ((status != -ETIMEDOUT && status != -ECANCELED) || s->rudi ||
	    uet_next_hdr_is_request(s->next_hdr) ||
	    s->pay_life == SES_PAY_MSG || !uet_engine_peer_is_up(e, s->peer))
		return false;
	if (!s->resp_fail_ns)
		s->resp_fail_ns = now;
	if (now - s->resp_fail_ns > UET_ENGINE_RESP_RETRY_NS ||
	    ++s->resp_resends > UET_ENGINE_RESP_RESENDS)
		return false;
	if (pdc_send(e->pdc, &p, now) < 0)
		return false;
	e->stats.tx_resp_resent++;
	return true;
}

/* PDC opened a target PDC for |peer|: a provisional peer becomes live. */
void uet_engine_peer_opened(struct uet_engine *e, uint32_t peer)
{
	struct uet_engine_peer *p;
	struct uet_engine_neigh *n;

	if (peer >= e->npeers)
		return;
	p = &e->peers[peer];
	if (p->state != UET_PEER_PROVISIONAL)
		return;
	n = &e->neigh[p->nb];
	uet_engine_prov_del(e, peer);
	p->state = UET_PEER_LIVE;
	n->live_ep++;
	e->nlive_ep++;
}

/* ---- aging ------------------------------------------------------------ */

static bool uet_engine_peer_is_idle(struct uet_engine *e, uint32_t id)
{
	const struct uet_engine_peer *p = &e->peers[id];

	return !p->ops_out && !p->probe && !p->gone && !p->nheld &&
	       e->now_ns - p->heard_ns >= UET_ENGINE_PEER_AGE_NS &&
	       !pdc_peer_in_use(e->pdc, id) && ses_peer_is_idle(e->ses, id);
}

/*
 * Live peers that sent to us first, and provisional ones, silent a while
 * and held by nothing, give their ids back. SES forgets them: whoever
 * comes next under the id starts as a new peer. Peers we send to first
 * stay while the provider names them; idle, SES lets their id windows go
 * (ses_peer_trim). UET_ENGINE_AGE_BATCH of them a round, from where the
 * last round stopped.
 */
void uet_engine_peers_age(struct uet_engine *e)
{
	uint32_t n;

	if (e->now_ns - e->age_check_ns < UET_ENGINE_AGE_EVERY_NS)
		return;
	e->age_check_ns = e->now_ns;
	n = e->npeers < UET_ENGINE_AGE_BATCH ? e->npeers : UET_ENGINE_AGE_BATCH;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = e->age_cursor++;
		const struct uet_engine_peer *p;

		if (i >= e->npeers)
			i = e->age_cursor = 0;
		p = &e->peers[i];
		if (p->state == UET_PEER_FREE || !uet_engine_peer_is_idle(e, i))
			continue;
		if (p->state != UET_PEER_PROVISIONAL &&
		    (p->state != UET_PEER_LIVE ||
		     !(p->tag & UET_ENGINE_TAG_EP))) {
			ses_peer_trim(e->ses, i);
			continue;
		}
		ses_peer_forget(e->ses, i);
		uet_engine_peer_free(e, i);
	}
}

/* ---- WREs held while the next hop resolves ---------------------------- */

static void uet_engine_held_drop(struct uet_engine *e, uint32_t i)
{
	e->peers[e->held_wres[i].peer].nheld--;
	memmove(&e->held_wres[i], &e->held_wres[i + 1],
		(e->nheld_wres - i - 1) * sizeof(e->held_wres[0]));
	e->nheld_wres--;
}

/*
 * A send nobody waits for, to a peer of a local channel: written whole
 * now when SES and the channel have nothing of that peer's ahead of it
 * (ses_wre_send_whole). 1 when it went so, 0 when not, or -errno.
 */
static int uet_engine_whole(struct uet_engine *e, const struct ses_wre *wre)
{
	uint32_t peer = wre->dst->peer;

	if (!(wre->flags & SES_WRE_F_NO_ANSWER) ||
	    e->peers[peer].state != UET_PEER_LIVE ||
	    !uet_engine_local_routes(e, peer))
		return 0;
	return ses_wre_send_whole(e->ses, wre, uet_engine_local_tx_whole, e);
}

/*
 * uet_engine_whole, and then the send ended, as its DEFAULT_RESPONSE would
 * (uet_op_level.c), without a message of SES's or a slot of ours. True
 * when it went so (or failed, *|ret|).
 */
static bool uet_engine_post_whole(struct uet_engine *e,
				  const struct ses_wre *wre, int *ret)
{
	struct ses_tx_cpl cpl = { .status = 0, .rc = UET_SES_RC_OK };

	*ret = uet_engine_whole(e, wre);
	if (*ret <= 0)
		return *ret < 0;
	*ret = 0;
	for (size_t i = 0; i < wre->iov_cnt; i++)	/* one packet's */
		cpl.modified_len += (uint32_t)wre->iov[i].len;
	e->cpl_seen = true;
	e->ops.tx_done(e->ctx, wre, &cpl);
	return true;
}

int uet_engine_post_inject(struct uet_engine *e, const struct ses_wre *wre)
{
	uint32_t peer = wre->dst->peer;

	/* Behind WREs held for a next hop: the usual way keeps the order. */
	if (peer >= e->npeers || e->peers[peer].nheld)
		return 0;
	return uet_engine_whole(e, wre) > 0;
}

static int uet_engine_post_now(struct uet_engine *e, const struct ses_wre *wre)
{
	int ret;

	if (uet_engine_post_whole(e, wre, &ret))
		return ret;
	ret = ses_wre_post(e->ses, wre);

	if (ret == 0 && wre->dst->peer < e->npeers) {
		struct uet_engine_peer *p = &e->peers[wre->dst->peer];

		if (!p->ops_out++) {
			p->heard_ns = e->now_ns ? e->now_ns :
						  uet_engine_now_ns();
			p->sent = false;
			uet_engine_busy_add(e, wre->dst->peer);
		}
	}
	return ret;
}

static void uet_engine_held_complete(struct uet_engine *e,
				     const struct ses_wre *wre, int status)
{
	struct ses_tx_cpl cpl = { .status = status };

	e->cpl_seen = true;
	e->ops.tx_done(e->ctx, wre, &cpl);
}

/*
 * Posts |peer|'s held WREs in the order they came, until SES is full
 * (the rest wait for the next tick). A WRE SES refuses for itself
 * completes with that error, as it would have from the post.
 */
static void uet_engine_held_release(struct uet_engine *e, uint32_t peer)
{
	for (uint32_t i = 0; i < e->nheld_wres && e->peers[peer].nheld;) {
		const struct ses_wre *wre = e->held_wres[i].wre;
		int ret;

		if (e->held_wres[i].peer != peer) {
			i++;
			continue;
		}
		ret = uet_engine_post_now(e, wre);
		if (ret == -EAGAIN)
			return;
		uet_engine_held_drop(e, i);
		if (ret < 0)
			uet_engine_held_complete(e, wre, ret);
	}
}

/* Completes |peer|'s held WREs with |status|. */
static void uet_engine_held_fail(struct uet_engine *e, uint32_t peer,
				 int status)
{
	for (uint32_t i = 0; i < e->nheld_wres && e->peers[peer].nheld;) {
		const struct ses_wre *wre = e->held_wres[i].wre;

		if (e->held_wres[i].peer != peer) {
			i++;
			continue;
		}
		uet_engine_held_drop(e, i);
		uet_engine_held_complete(e, wre, status);
	}
}

static void uet_engine_peer_resolve(struct uet_engine *e, uint32_t id)
{
	struct uet_engine_peer *p = &e->peers[id];

	uet_engine_neigh_retry(e, p->nb);
	if (e->neigh[p->nb].has_mac)
		p->state = UET_PEER_LIVE;
	else
		p->state = UET_PEER_RESOLVING;
}

int uet_engine_post(struct uet_engine *e, const struct ses_wre *wre)
{
	uint32_t peer = wre->dst->peer;
	struct uet_engine_peer *p;

	if (peer >= e->npeers || e->peers[peer].state == UET_PEER_FREE)
		return -EINVAL;
	p = &e->peers[peer];
	if (p->state == UET_PEER_UNREACHABLE)
		uet_engine_peer_resolve(e, peer);	/* a new try */
	else if (p->state == UET_PEER_RESOLVING && e->neigh[p->nb].has_mac)
		p->state = UET_PEER_LIVE;	/* the tick has not looked */
	/* Behind the ones held before it: WREs start in post order. */
	if (p->state != UET_PEER_RESOLVING && !p->nheld)
		return uet_engine_post_now(e, wre);
	if (e->nheld_wres == UET_ENGINE_HELD_WRES)
		return -EAGAIN;
	e->held_wres[e->nheld_wres++] = (struct uet_engine_held_wre){
		.wre = wre, .peer = peer };
	p->nheld++;
	return 0;
}

/* ---- the progress tick -------------------------------------------------- */

/*
 * Each millisecond: the neighbour cache asks the kernel what it must;
 * peers with WREs held (the only peers that wait on the tick: a resolving
 * peer with none becomes live at its next post) go live and post them
 * once their next hop came, or fail them once its resolution failed
 * (-EHOSTUNREACH, or the route's error). At most UET_ENGINE_HELD_WRES
 * peers: the cost does not grow with the table.
 */
void uet_engine_peers_tick(struct uet_engine *e)
{
	uint32_t waiting[UET_ENGINE_HELD_WRES], nwait = 0;

	if (e->now_ns - e->tick_ns < UET_ENGINE_TICK_NS)
		return;
	e->tick_ns = e->now_ns;
	uet_engine_neigh_tick(e);
	uet_engine_tss_tick(e);
	uet_engine_pub_tick(e);
	uet_engine_svc_tick(e);
	/* Each peer once, in the order its first held WRE came. */
	for (uint32_t k = 0; k < e->nheld_wres; k++) {
		uint32_t i = e->held_wres[k].peer, j;

		for (j = 0; j < nwait && waiting[j] != i; j++)
			;
		if (j == nwait)
			waiting[nwait++] = i;
	}
	for (uint32_t k = 0; k < nwait; k++) {
		uint32_t i = waiting[k];
		struct uet_engine_peer *p = &e->peers[i];
		const struct uet_engine_neigh *n = &e->neigh[p->nb];

		if (p->state == UET_PEER_RESOLVING && n->has_mac) {
			p->state = UET_PEER_LIVE;
		} else if (p->state == UET_PEER_RESOLVING &&
			   n->state == UET_NEIGH_FAILED) {
			p->state = UET_PEER_UNREACHABLE;
			e->stats.peers_unreachable++;
			uet_engine_peer_fail(e, i, n->err ? n->err :
						   -EHOSTUNREACH);
			continue;
		}
		if (p->state == UET_PEER_LIVE && p->nheld)
			uet_engine_held_release(e, i);
	}
}

/* With UET_ENGINE_DEBUG: which peer failed, for a job's many notes. */
static void uet_engine_peer_fail_note(struct uet_engine *e, uint32_t peer,
				      int status)
{
	const struct uet_engine_peer *p = &e->peers[peer];
	char a[INET6_ADDRSTRLEN], msg[256];
	struct uet_xsk_stats xs;

	if (!getenv("UET_ENGINE_DEBUG"))
		return;
	/* And whether frames still came to us: a peer silent, or us deaf. */
	uet_xsk_stats_read(e->xsk, &xs);
	snprintf(msg, sizeof(msg), "peer %u (%s, tag %#x, %s) failed: %d; "
		 "last frame in %lld ms ago, rx %llu dropped %llu ring full "
		 "%llu fill empty %llu", peer,
		 uet_engine_fa_str(&p->fa, a, sizeof(a)), p->tag,
		 p->path == UET_PATH_LOCAL ? "local" : "wire", status,
		 (long long)(uet_engine_now_ns() - e->last_rx_ns) / 1000000,
		 (unsigned long long)xs.rx_frames,
		 (unsigned long long)xs.rx_dropped,
		 (unsigned long long)xs.rx_ring_full,
		 (unsigned long long)xs.rx_fill_ring_empty_descs);
	uet_engine_note(e, msg);
}

/*
 * Everything in flight to |peer| completes with |status|, held WREs
 * included. Its packets still held by PDC belong to an older epoch from
 * now on, so PDC's fill never reads their (maybe freed) buffers again.
 */
void uet_engine_peer_fail(struct uet_engine *e, uint32_t peer, int status)
{
	if (peer >= e->npeers)
		return;
	uet_engine_peer_fail_note(e, peer, status);
	e->peers[peer].epoch++;
	uet_engine_held_fail(e, peer, status);
	ses_peer_fail(e->ses, peer, status);
}

/* ---- the API -------------------------------------------------------- */

int uet_engine_peer_get(struct uet_engine *e, const struct uet_fa *fa,
			uint16_t pid_on_fep, int timeout_ms)
{
	uint32_t tag = UET_ENGINE_TAG_PID | pid_on_fep;
	int id = uet_engine_peer_find(e, fa, tag), nb;
	const struct uet_engine_neigh *n;

	if (id >= 0) {
		if (e->peers[id].state == UET_PEER_UNREACHABLE)
			uet_engine_peer_resolve(e, (uint32_t)id);
		return id;
	}
	if (fa->is_v6 != e->cfg.local.is_v6)
		return -EAFNOSUPPORT;
	nb = uet_engine_neigh_get(e, fa, false);
	if (nb < 0)
		return nb;
	n = &e->neigh[nb];
	if (n->state == UET_NEIGH_FAILED)
		uet_engine_neigh_retry(e, (uint32_t)nb);
	/* No route, or another interface's: nothing to wait for. */
	if (n->state == UET_NEIGH_FAILED && n->err != -EHOSTUNREACH)
		return n->err;
	uet_engine_neigh_restart(e, (uint32_t)nb,
				 (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) *
				 1000000ull);
	return uet_engine_peer_add(e, fa, tag, n->has_mac ? UET_PEER_LIVE :
				   UET_PEER_RESOLVING, (uint32_t)nb);
}

int uet_engine_peer_fa(const struct uet_engine *e, uint32_t peer,
		       struct uet_fa *fa)
{
	if (peer >= e->npeers || e->peers[peer].state == UET_PEER_FREE)
		return -ENOENT;
	*fa = e->peers[peer].fa;
	return 0;
}

/* The MAC frames to |peer| go to; NULL when its next hop is unknown. */
const uint8_t *uet_engine_peer_mac(const struct uet_engine *e, uint32_t peer)
{
	const struct uet_engine_neigh *n = &e->neigh[e->peers[peer].nb];

	return n->has_mac ? n->mac : NULL;
}
