/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's transmit path and its progress: SES packets down to PDC and
 * PDC's upcalls about them, SES's completions passed on to the application,
 * PDS frames out into UMEM frames behind Ethernet/IP/UDP headers (ACKs held
 * to leave behind the application's answer: uet_engine_held.c), and the
 * progress call that runs both directions. The receive path (frames in,
 * PDC's deliveries up to SES) is in uet_engine_rx.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pdc/pdc_hdr.h"
#include "engine/uet_engine_priv.h"
#include "engine/uet_engine_local.h"
#include "engine/uet_engine_tss.h"

/* ---- SES packets held for PDC ------------------------------------------- */

/* Copies |s|'s payload into its own buffer; from now on it reads that. */
static int uet_engine_slot_own(struct uet_engine_slot *s)
{
	struct ses_pkt pkt = {
		.iov = s->iov, .iov_cnt = s->iov_cnt,
		.pay_off = s->pay_off, .pay_len = s->pay_len,
	};

	if (s->own_cap < s->pay_len) {
		uint8_t *own = realloc(s->own, s->pay_len);

		if (!own)
			return -ENOMEM;
		s->own = own;
		s->own_cap = s->pay_len;
	}
	ses_pkt_payload_copy(&pkt, s->own);
	s->iov[0] = (struct ses_iov){ .base = s->own, .len = s->pay_len };
	s->iov_cnt = 1;
	s->pay_off = 0;
	s->pay_life = SES_PAY_CALL;
	return 0;
}

/* Whether |s| reads its payload from a registered region (pay_revoke). */
static bool uet_slot_in_region(const struct uet_engine_slot *s)
{
	return s->pay_life == SES_PAY_REGION && s->pay_len;
}

static bool uet_slot_overlaps(const struct uet_engine_slot *s,
			      const uint8_t *base, uint64_t len)
{
	for (size_t i = 0; i < s->iov_cnt; i++) {
		const uint8_t *b = s->iov[i].base;

		if (b < base + len && base < b + s->iov[i].len)
			return true;
	}
	return false;
}

int uet_engine_slot_take(struct uet_engine *e, const struct ses_pkt *pkt)
{
	struct uet_engine_slot *s;
	uint32_t i;

	if (pkt->iov_cnt > SES_IOV_MAX)
		return -EINVAL;
	if (!e->nfree)
		return -EAGAIN;
	i = e->free_slots[--e->nfree];
	s = &e->slots[i];
	s->next_hdr = pkt->next_hdr;
	s->hdr_len = pkt->hdr_len;
	memcpy(s->hdr, pkt->hdr, pkt->hdr_len);
	/* A packet without payload may have no iov at all (a probe's READ):
	 * memcpy from NULL is undefined, even of 0 bytes. */
	if (pkt->iov_cnt)
		memcpy(s->iov, pkt->iov, pkt->iov_cnt * sizeof(*s->iov));
	s->iov_cnt = pkt->iov_cnt;
	s->pay_off = pkt->pay_off;
	s->pay_len = pkt->pay_len;
	s->pay_life = pkt->pay_life;
	s->msg_ref = pkt->msg_ref;
	s->rdv_buf = pkt->rdv_buf;
	s->rdv_len = pkt->rdv_buf ? pkt->rdv_len : 0;
	s->peer = pkt->peer;
	s->epoch = e->peers[pkt->peer].epoch;
	s->resp_fail_ns = 0;
	s->resp_resends = 0;
	if (pkt->pay_life == SES_PAY_CALL && pkt->pay_len &&
	    uet_engine_slot_own(s) < 0) {
		e->free_slots[e->nfree++] = i;
		return -ENOMEM;
	}
	s->busy = true;
	e->nslots_region += uet_slot_in_region(s);
	return (int)i;
}

void uet_engine_slot_put(struct uet_engine *e, uint32_t i)
{
	e->nslots_region -= uet_slot_in_region(&e->slots[i]);
	e->slots[i].busy = false;
	e->free_slots[e->nfree++] = i;
}

/* A packet to |peer| left SES: what it waits for now waits on the peer. */
static void uet_engine_peer_sent(struct uet_engine *e, uint32_t peer)
{
	struct uet_engine_peer *q = &e->peers[peer];

	if (!q->sent) {
		q->sent = true;
		q->heard_ns = e->now_ns ? e->now_ns : uet_engine_now_ns();
	}
}

int uet_engine_ses_tx(void *ctx, const struct ses_pkt *pkt)
{
	struct uet_engine *e = ctx;
	bool req = uet_next_hdr_is_request(pkt->next_hdr);
	struct pdc_pkt p = {
		.peer = pkt->peer,
		.len = pkt->hdr_len + pkt->pay_len,
		.mode = pkt->flags & SES_PKT_F_RUDI ? PDC_MODE_RUDI :
			e->cfg.ordered ? PDC_MODE_ROD : PDC_MODE_RUD,
		.next_hdr = pkt->next_hdr,
		/*
		 * A request's answer may be the ACK alone (ses_rx_default).
		 * PDC asks for it on the last packet it has queued, so a
		 * burst of messages is answered by a few ACKs and a lone one
		 * at once; responses sent apart ask at once.
		 */
		.flags = req ? 0 : PDC_PKT_F_AR,
	};
	int i, ret;

	if (uet_engine_local_routes(e, pkt->peer)) {
		ret = uet_engine_local_tx(e, pkt);
		if (ret == 0)
			uet_engine_peer_sent(e, pkt->peer);
		return ret;
	}
	i = uet_engine_slot_take(e, pkt);
	if (i < 0)
		return i;
	p.cookie = (uint32_t)i;
	e->slots[i].rudi = p.mode == PDC_MODE_RUDI;
	ret = pdc_send(e->pdc, &p, e->now_ns ? e->now_ns : uet_engine_now_ns());
	if (ret < 0) {
		uet_engine_slot_put(e, (uint32_t)i);
		return ret == -EAGAIN || ret == -EBUSY ? -EAGAIN : ret;
	}
	uet_engine_peer_sent(e, pkt->peer);
	return 0;
}

/*
 * A registered region is going: the READ data that PDC still holds of it
 * is copied, so that a retransmission sends the bytes the first
 * transmission sent instead of reading memory the application may free.
 * If the copy cannot be made, the packet is sent again as zeros (counted
 * in pay_lost) rather than read after the region is gone.
 */
void uet_engine_ses_pay_revoke(void *ctx, const void *base, uint64_t len)
{
	struct uet_engine *e = ctx;

	/* Most revokes (a rendezvous send's buffer) find none: no walk. */
	for (uint32_t i = 0; e->nslots_region && i < e->nslots; i++) {
		struct uet_engine_slot *s = &e->slots[i];

		if (!s->busy || !uet_slot_in_region(s) ||
		    !uet_slot_overlaps(s, base, len))
			continue;
		e->nslots_region--;
		if (uet_engine_slot_own(s) < 0) {
			s->iov_cnt = 0;
			s->pay_life = SES_PAY_CALL;
			e->stats.tx_pay_lost++;
		}
	}
}

/*
 * The payload of a frame being built in the bounce buffer (over one chunk)
 * goes straight to its chunks, at |off| in the frame: one copy of the
 * application's bytes instead of two; the headers before it are copied
 * from the bounce buffer afterwards (uet_engine_tx_one).
 */
static void uet_engine_fill_scatter(struct uet_engine *e,
				    const struct ses_pkt *pay, uint32_t off)
{
	struct uet_xsk_frame *f = e->tx_scatter;
	struct ses_pkt part = *pay;
	uint32_t done = 0, at = 0;

	e->tx_scatter_off = off;
	e->tx_scatter_end = off + pay->pay_len;
	for (uint32_t i = 0; i < f->nsegs && done < pay->pay_len; i++) {
		uint32_t end = at + f->seg_len[i], from, take;

		if (off + done >= end) {
			at = end;
			continue;
		}
		from = off + done - at;
		take = f->seg_len[i] - from;
		if (take > pay->pay_len - done)
			take = pay->pay_len - done;
		if (pay->iov_cnt) {
			part.pay_off = pay->pay_off + done;
			part.pay_len = take;
			ses_pkt_payload_copy(&part, f->seg[i] + from);
		} else {
			memset(f->seg[i] + from, 0, take);
		}
		done += take;
		at = end;
	}
}

int uet_engine_pdc_fill(void *ctx, uint64_t cookie, uint8_t *buf, size_t len)
{
	struct uet_engine *e = ctx;
	struct uet_engine_slot *s = &e->slots[cookie];
	struct ses_pkt pkt = {
		.iov = s->iov, .iov_cnt = s->iov_cnt,
		.pay_off = s->pay_off, .pay_len = s->pay_len,
	};

	if (len != (size_t)s->hdr_len + s->pay_len)
		return -EINVAL;
	/*
	 * Its message was completed with an error (the peer failed) and the
	 * application may have freed the buffer: never read it again. A
	 * response sent again (uet_engine_resp_resend) holds no such buffer;
	 * the failure of the PDC it rode moved the epoch on after it.
	 */
	if (s->epoch != e->peers[s->peer].epoch && !s->resp_fail_ns)
		return -ECANCELED;
	memcpy(buf, s->hdr, s->hdr_len);
	/*
	 * A resend of a message that completed: its buffer is the
	 * application's again, and no byte of it can matter (ses.h,
	 * SES_PAY_MSG).
	 */
	if ((s->pay_life == SES_PAY_MSG &&
	     !ses_pkt_payload_live(e->ses, s->msg_ref)) || !s->iov_cnt)
		pkt.iov_cnt = 0;	/* zeros */
	if (e->tx_scatter && buf >= e->bounce &&
	    buf + len <= e->bounce + uet_xsk_frame_max(e->xsk)) {
		uet_engine_fill_scatter(e, &pkt,
					(uint32_t)(buf + s->hdr_len - e->bounce));
		return 0;
	}
	if (e->tx_gather.ok && pkt.iov_cnt && s->pay_len &&
	    buf >= e->bounce &&
	    buf + len <= e->bounce + uet_xsk_frame_max(e->xsk)) {
		/* sealed from where it is (uet_engine_tss_seal_to) */
		e->tx_gather.off = (uint32_t)(buf + s->hdr_len - e->bounce);
		e->tx_gather.len = s->pay_len;
		e->tx_gather.iov = pkt.iov;
		e->tx_gather.cnt = pkt.iov_cnt;
		e->tx_gather.from = pkt.pay_off;
		return 0;
	}
	if (!pkt.iov_cnt)
		memset(buf + s->hdr_len, 0, s->pay_len);
	else
		ses_pkt_payload_copy(&pkt, buf + s->hdr_len);
	return 0;
}

void uet_engine_pdc_tx_done(void *ctx, const struct pdc_tx_done *done)
{
	struct uet_engine *e = ctx;
	struct ses_rx_pkt rsp = {
		.peer = done->peer, .next_hdr = done->resp_next_hdr,
		.buf = done->resp, .len = done->resp_len, .now_ns = e->now_ns,
	};

	struct uet_engine_slot *s = &e->slots[done->cookie];

	if (done->status < 0 &&
	    uet_engine_resp_resend(e, s, done->cookie, done->status))
		return;
	uet_engine_slot_put(e, (uint32_t)done->cookie);
	if (done->resp_next_hdr != UET_PDS_NEXT_HDR_NONE && done->resp_len) {
		if (s->rudi)
			uet_engine_rudi_rsp(e, s, &rsp);
		else
			ses_rx_rsp(e->ses, &rsp);
	} else if (done->status < 0 && done->status != -ECANCELED)
		uet_engine_peer_fail(e, done->peer, done->status);
	else if (!done->status && uet_next_hdr_is_request(s->next_hdr) &&
		 s->epoch == e->peers[s->peer].epoch)
		/* Acknowledged without a response: DEFAULT_RESPONSE. */
		ses_rx_default(e->ses, s->msg_ref);
}

void uet_engine_pdc_event(void *ctx, const struct pdc_event *ev)
{
	struct uet_engine *e = ctx;

	if (ev->type == PDC_EV_ESTABLISHED && !ev->is_initiator) {
		uet_engine_peer_opened(e, ev->peer);
	} else if (ev->type == PDC_EV_FAILED && ev->is_initiator) {
		uet_engine_peer_fail(e, ev->peer, ev->err ? ev->err : -EIO);
	} else if (ev->type == PDC_EV_PEER_RESTART && ev->peer < e->npeers) {
		e->peers[ev->peer].epoch++;
		ses_peer_reset(e->ses, ev->peer);
	}
}

/* ---- SES upcalls passed on, and the generation cache ----------------------- */

void uet_engine_ses_tx_done(void *ctx, const struct ses_wre *wre,
			    const struct ses_tx_cpl *cpl)
{
	struct uet_engine *e = ctx;

	if (wre->dst->peer < e->npeers) {
		struct uet_engine_peer *p = &e->peers[wre->dst->peer];

		if (p->probe && wre == &p->probe->wre) {	/* ours */
			uet_engine_probe_done(e, wre->dst->peer, cpl);
			return;
		}
		if (p->ops_out)
			p->ops_out--;
	}
	e->cpl_seen = true;
	e->ops.tx_done(e->ctx, wre, cpl);
}

void uet_engine_ses_recv_done(void *ctx, const struct ses_recv_cpl *cpl)
{
	struct uet_engine *e = ctx;

	e->cpl_seen = true;
	e->answer_may_come = true;
	if (e->ops.recv_done)
		e->ops.recv_done(e->ctx, cpl);
}

void uet_engine_ses_rma_done(void *ctx, const struct ses_rma_event *ev)
{
	struct uet_engine *e = ctx;

	e->cpl_seen = true;
	if (e->ops.rma_done)
		e->ops.rma_done(e->ctx, ev);
}

/* ---- frames out ----------------------------------------------------------- */

/*
 * Every frame is ECN-capable, ECT(0) (UE 1.0 3.6.13: NSCC reads the
 * marks); requests carry the trimmable DSCP, so that a switch short of
 * buffer cuts them instead of dropping them, and everything else (ACKs,
 * NACKs, control) the other one: trimmed, it would mean nothing.
 */
static uint8_t uet_engine_tclass(const struct uet_engine *e,
				 const uint8_t *pds)
{
	switch (uet_pds_type(pds)) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
	case UET_PDS_TYPE_UUD_REQ:
		return (uint8_t)(e->cfg.dscp.data << 2 | UET_IP_ECT0);
	default:
		return (uint8_t)(e->cfg.dscp.ctl << 2 | UET_IP_ECT0);
	}
}

/*
 * Writes Ethernet/IP/UDP for |pds_len| bytes to |peer| at |out|, from the
 * source port of entropy value |ev| (0: the engine's own).
 */
static void uet_engine_frame_hdr(struct uet_engine *e, uint8_t *out,
				 uint32_t peer, size_t pds_len, uint16_t ev)
{
	const struct uet_engine_peer *p = &e->peers[peer];
	const uint8_t *mac = uet_engine_peer_mac(e, peer);
	struct uet_frame_addr src = {
		.is_v6 = e->cfg.local.is_v6,
		/* The kind of our peer, for the receiver's (engine_tag.h) */
		.port = (ev ? (uint16_t)(ev << UET_ENGINE_EV_SHIFT) :
			      e->entropy) | uet_engine_tag_send_kind(p->tag),
	};
	struct uet_frame_addr dst = { .is_v6 = p->fa.is_v6,
				      .port = e->cfg.udp_port };

	src.tclass = uet_engine_tclass(e, out + e->hdr_len);
	memcpy(&src.v6, &e->cfg.local.v6, sizeof(src.v6));
	memcpy(&dst.v6, &p->fa.v6, sizeof(dst.v6));
	memcpy(src.mac, e->mac, 6);
	memcpy(dst.mac, mac, 6);
	uet_frame_encode(out, e->frame_hdr_len, &src, &dst,
			 e->tss_len + pds_len + e->trailer_len);
}

/*
 * Hands the kernel what is queued: the held ACKs behind what was built
 * since (uet_engine_held.c); nothing stays deferred.
 */
static int uet_engine_kick_all(struct uet_engine *e)
{
	int ret;

	uet_engine_tx_held(e);
	e->kick_deferred = false;
	ret = uet_xsk_tx_kick(e->xsk);
	/* A link down holds the frames: the PDCs' timers must know. */
	pdc_link_state(e->pdc, uet_xsk_link_down(e->xsk));
	return ret;
}

/* A frame built in the bounce buffer to its chunks: all, or around the
 * payload when that went there already (uet_engine_fill_scatter). */
static void uet_engine_frame_put(struct uet_engine *e, struct uet_xsk_frame *f,
				 uint32_t len)
{
	uint32_t off = e->tx_scatter_off, end = e->tx_scatter_end;

	if (off >= len || end > len) {
		uet_xsk_frame_write(f, 0, e->bounce, len);
		return;
	}
	uet_xsk_frame_write(f, 0, e->bounce, off);
	if (end < len)
		uet_xsk_frame_write(f, end, e->bounce + end, len - end);
}

/*
 * Builds PDC's next frame into |f|, allocated for |size| bytes: in its one
 * chunk, or in the bounce buffer when it has more (uet_engine_frame_put
 * copies the headers over); |*frame| says which. Returns the PDS length as
 * pdc_tx_build, or -EAGAIN when no chunk is free; |f| is freed unless the
 * result is > 0.
 */
static ssize_t uet_engine_tx_build(struct uet_engine *e,
				   struct uet_xsk_frame *f, uint32_t size,
				   uint8_t **frame, uint32_t *peer,
				   uint16_t *ev)
{
	ssize_t n;

	if (uet_xsk_tx_alloc(e->xsk, size, f) < 0)
		return -EAGAIN;
	/* Plaintext to be sealed stays out of the shared UMEM. */
	*frame = f->nsegs > 1 || e->tss ? e->bounce : f->seg[0];
	/*
	 * A capture wants the whole frame in one piece, a trailer is over
	 * all of it: no scatter then.
	 */
	e->tx_scatter = f->nsegs > 1 && !uet_mirror_is_on(&e->mirror) &&
			!e->trailer_len ? f : NULL;
	e->tx_scatter_off = UINT32_MAX;
	/*
	 * Sealed over several chunks, the payload is encrypted from the
	 * application's buffer straight into them: no copy into bounce first
	 * (an 8 KiB memcpy a packet, 5% of a sealed stream's sender). A
	 * capture wants the plaintext frame whole: not then.
	 */
	e->tx_gather.ok = e->tss && f->nsegs > 1 &&
			  !uet_mirror_is_on(&e->mirror);
	e->tx_gather.len = 0;
	n = pdc_tx_build_ev(e->pdc, *frame + e->hdr_len,
			    size - e->hdr_len - e->trailer_len, peer, ev,
			    e->now_ns);
	e->tx_scatter = NULL;
	e->tx_gather.ok = false;
	if (n <= 0)
		uet_xsk_tx_free(e->xsk, f);
	return n;
}

/*
 * Builds and queues one frame; 1 when sent, 0 when nothing was due.
 *
 * Most frames (ACKs, small requests and responses) fit one chunk: they are
 * built in it, with no bounce copy and no chunks taken only to be given
 * back. PDC refuses a longer one (-ENOBUFS, it stays queued), which is
 * then built over a whole frame's chunks. After a long frame the next is
 * tried long first, so a stream of them pays no refusals.
 */
static int uet_engine_tx_one(struct uet_engine *e)
{
	uint32_t max = (uint32_t)(e->hdr_len + SES_PKT_HDR_MAX +
				  UET_PDS_HDR_MAX_LEN + e->payload_mtu +
				  e->trailer_len), one, size;
	struct uet_xsk_frame f;
	uint8_t *frame;
	uint32_t peer = 0;
	uint16_t ev = 0;
	ssize_t n, len;
	bool ack;

	if (max > uet_xsk_frame_max(e->xsk))
		max = uet_xsk_frame_max(e->xsk);
	one = max < UET_XSK_CHUNK_LEN ? max : UET_XSK_CHUNK_LEN;
	size = e->tx_long ? max : one;
	n = uet_engine_tx_build(e, &f, size, &frame, &peer, &ev);
	if (n == -ENOBUFS && size < max)
		n = uet_engine_tx_build(e, &f, max, &frame, &peer, &ev);
	if (n == -EAGAIN) {
		e->stats.tx_no_frame++;
		/*
		 * PDC's timers run inside pdc_tx_build. With the link down
		 * no frame comes back from the kernel, and they would stop
		 * until it came up: run them alone, so that the time-outs
		 * spend their tries (pdc_link_state).
		 */
		if (uet_xsk_link_down(e->xsk))
			pdc_timers_run(e->pdc, e->now_ns);
	} else if (n < 0 && n != -ECANCELED) {
		/*
		 * Counted, and said under UET_ENGINE_DEBUG (at 1, 2, 4...):
		 * a PDC whose frame keeps failing to build stays at the head
		 * of the ready list, and its queued copies with it.
		 */
		e->stats.tx_build_err++;
		if (!(e->stats.tx_build_err & (e->stats.tx_build_err - 1)) &&
		    getenv("UET_ENGINE_DEBUG"))
			fprintf(stderr, "uet: endpoint %u: PDC could not build "
				"a frame of %u bytes: %s (%llu times)\n",
				e->ep_index, size, strerror((int)-n),
				(unsigned long long)e->stats.tx_build_err);
	}
	if (n <= 0)
		return 0;
	if (peer >= e->npeers) {
		uet_xsk_tx_free(e->xsk, &f);
		return 0;
	}
	e->tx_long = (uint32_t)(e->hdr_len + n + e->trailer_len) > one;
	if (!uet_engine_peer_mac(e, peer)) {
		/* Never so for the peers PDC sends to; PDC resends. */
		uet_xsk_tx_free(e->xsk, &f);
		e->stats.tx_no_neigh++;
		return 1;
	}
	uet_engine_frame_hdr(e, frame, peer, (size_t)n, ev);
	ack = uet_engine_is_ack(frame + e->hdr_len);
	/* Sealed, a frame for an endpoint of ours steers by what we say. */
	if (e->tss && !memcmp(frame, e->mac, 6))
		f.local_ep = (int16_t)uet_engine_tss_local_ep(e, frame,
							      (size_t)n);
	/* A capture wants the sealed frame whole: sealed in place then. */
	if (e->tss && !uet_mirror_is_on(&e->mirror))
		len = uet_engine_tss_seal_to(e, frame, (size_t)n, &f);
	else
		len = uet_engine_tss_seal(e, frame, (size_t)n);
	if (len < 0) {
		uet_xsk_tx_free(e->xsk, &f);
		return 0;
	}
	if (uet_mirror_is_on(&e->mirror))
		uet_mirror_frame(&e->mirror, frame, (uint32_t)len);
	if (frame == e->bounce && (!e->tss || uet_mirror_is_on(&e->mirror)))
		uet_engine_frame_put(e, &f, (uint32_t)len);
	if (ack && uet_engine_ack_hold(e, &f, (uint32_t)len))
		return 1;
	if (uet_xsk_tx_submit(e->xsk, &f, (uint32_t)len) < 0) {
		/* Ring full: PDC resends it when its timer fires. */
		uet_xsk_tx_free(e->xsk, &f);
		e->stats.tx_no_frame++;
		return 0;
	}
	e->stats.tx_frames++;
	return 1;
}

static int uet_engine_tx(struct uet_engine *e)
{
	int sent = 0;

	while (pdc_next_timeout(e->pdc) <= e->now_ns && uet_engine_tx_one(e))
		sent++;
	return sent;
}

void uet_engine_flush(struct uet_engine *e)
{
	e->now_ns = uet_engine_now_ns();
	pdc_ack_flush(e->pdc);
	uet_engine_tx(e);
	uet_engine_kick_all(e);
	/* A copy-mode kick sends a bounded batch: a few more when short. */
	for (int i = 0; i < 8 && uet_xsk_tx_needs_kick(e->xsk); i++)
		if (uet_xsk_tx_kick(e->xsk) < 0)
			break;
	e->now_ns = 0;
}

void uet_engine_send_held(struct uet_engine *e)
{
	if (!e->nheld)
		return;
	e->now_ns = uet_engine_now_ns();
	uet_engine_tx(e);
	uet_engine_kick_all(e);
	e->now_ns = 0;
}

void uet_engine_answer_may_come(struct uet_engine *e)
{
	e->answer_may_come = true;
}

/*
 * Whether only ACKs wait, held for less than UET_ENGINE_ACK_WAIT_NS, and
 * either the application has something of a peer's it may answer (they
 * wait on for that answer and leave behind it, in one kick, instead of
 * alone ahead of it) or the peer streams (a newer ACK takes their place,
 * uet_engine_ack_hold). Otherwise no answer comes, and a peer that may be
 * waiting on them (its write's completion is the ACK) would wait the
 * whole time for nothing.
 */
static bool uet_engine_acks_wait(const struct uet_engine *e)
{
	return e->nheld && (e->answer_may_come || e->peer_streams) &&
	       !uet_xsk_tx_needs_kick(e->xsk) &&
	       e->now_ns - e->held_since_ns < UET_ENGINE_ACK_WAIT_NS;
}

int uet_engine_progress(struct uet_engine *e)
{
	bool owed;
	int rx, tx, ret;

	uet_engine_app_back(e);	/* after a sleep on an fd (fi_trywait) */
	if (e->idle_polls && !e->kick_deferred && !e->nheld &&
	    !e->svc_retrying &&
	    !uet_xsk_tx_needs_kick(e->xsk) && uet_xsk_rx_idle(e->xsk) &&
	    !uet_engine_local_pending(e)) {
		e->idle_polls--;
		return 0;
	}
	e->idle_polls = 0;
	e->now_ns = uet_engine_now_ns();
	rx = uet_engine_local_rx(e);
	uet_engine_rx_backlog(e);
	/*
	 * Every frame waiting is read before the timers run: after a spell
	 * off the CPU the ring holds the ACKs that answer the packets whose
	 * timers are now due, and reading one batch of them fired those
	 * timers anyway (one uet_bw flow on a clean veth: 311-383 time-outs
	 * in 2000 x 1 MiB; 28-102 with the whole ring read first). Bounded:
	 * a flood cannot hold the timers off for ever.
	 */
	for (int i = 0, n = UET_ENGINE_RX_BATCH;
	     n == UET_ENGINE_RX_BATCH && i < UET_ENGINE_RX_BATCHES; i++) {
		n = uet_engine_rx(e);
		rx += n;
	}
	uet_engine_local_tick(e);
	uet_engine_silent_peers(e);
	uet_engine_peers_tick(e);
	uet_engine_peers_age(e);
	uet_engine_trace_tick(e);
	ses_progress(e->ses, e->now_ns);
	/*
	 * A completion went up: the application may act on it and never
	 * call again (exit, sleep on something else). What we owe its peers
	 * goes to the kernel before it can see it: every delayed ACK now,
	 * and no deferred kick.
	 */
	owed = e->cpl_seen;
	e->cpl_seen = false;
	if (owed)
		pdc_ack_flush(e->pdc);
	tx = uet_engine_tx(e);
	e->pub_owed |= rx || tx;	/* figures to publish, even asleep */
	/*
	 * Frames built while receiving are mostly ACKs, and the application
	 * often answers what it just received: leave them for one more call,
	 * so that its reply leaves in the same kick. A copy-mode kick is a
	 * syscall that runs the whole transmission (1-2 us on veth). Unless
	 * asked to hand them over before the completions go up.
	 */
	if (!(owed && e->cfg.ack_before_cpl) &&
	    ((rx > 0 && !e->kick_deferred) || uet_engine_acks_wait(e))) {
		e->kick_deferred = true;
		e->now_ns = 0;
		return rx + tx;
	}
	ret = uet_engine_kick_all(e);
	e->now_ns = 0;		/* outside progress, read the clock afresh */
	if (!rx && !tx)
		e->idle_polls = UET_ENGINE_IDLE_POLLS;
	return ret < 0 ? ret : rx + tx;
}
