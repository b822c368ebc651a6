/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target for the PDC engine: an initiator A and a target B whose
 * wire the input drives (send, drop, duplicate, hold and reorder frames,
 * let time pass, close), while random and mutated PDS frames are fed in.
 *
 * Checked besides memory safety, in every mode:
 * - a delivery hands SES bytes of the frame being processed, nothing else;
 * - a genuine frame of A delivers a payload A sent (tag, index, check);
 * - A never completes a packet twice.
 * In the first mode forged frames reach B from a third peer, so they cannot
 * pose as A; then also: no message of A is delivered twice and every packet
 * A completes without error was delivered. In the second mode forged frames
 * reach both ends as the real peers: PDS has no authentication, so a forged
 * NACK may legitimately cause a resend, and only the first checks apply.
 * The first byte also puts A and B under PDCID prefixes of 0 to 7 bits;
 * every SPDCID either sends, and every RUDI pkt_id, is then checked to
 * carry its own. RUDI requests (no PDC) may be delivered more than once
 * (idempotent), but one completes without error only once delivered.
 * After each pump, pdc_active_walk sees only A's PDCs to B, each once,
 * and none of B's (it never sends), whatever PDCs failed or closed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pdc/pdc.h"
#include "pdc/pdc_hdr.h"
#include "uet_codec.h"

#define F_MSGS		512
#define F_FRAME_LEN	256
#define F_HOLD		16
#define F_PAYLOAD_LEN	16
#define F_MAGIC		0x46555a5au
#define F_PEER_A	0
#define F_PEER_B	1
#define F_PEER_X	2	/* the forger in the first mode */
#define F_TIME_WAIT_NS	1000000
#define F_MAX_LIFE_NS	(F_TIME_WAIT_NS / 2)	/* longest a frame is held */

struct f_frame {
	int to;			/* F_PEER_A or F_PEER_B */
	uint64_t held_ns;
	size_t len;
	uint8_t buf[F_FRAME_LEN];
};

struct f_state {
	const uint8_t *in;
	size_t in_len, pos;
	bool chaos;
	uint64_t now;
	struct pdc_mgr *a, *b;
	uint16_t prefix_a, prefix_b;	/* in place in a PDCID */
	uint16_t prefix_mask;
	uint32_t sent;
	uint8_t sent_mode[F_MSGS];
	uint8_t delivered[F_MSGS];	/* through genuine frames */
	uint8_t done[F_MSGS];
	/* The frame B or A is processing right now. */
	const uint8_t *cur;
	size_t cur_len;
	bool cur_genuine;
	struct f_frame hold[F_HOLD];
	uint32_t hold_cnt;
};

static uint8_t f_byte(struct f_state *f)
{
	return f->pos < f->in_len ? f->in[f->pos++] : 0;
}

static uint32_t f_check(uint32_t idx)
{
	return (idx * 2654435761u) ^ F_MAGIC;
}

static int f_fill(void *ctx, uint64_t cookie, uint8_t *buf, size_t len)
{
	struct f_state *f = ctx;
	uint8_t *p = buf;

	if (len != F_PAYLOAD_LEN || cookie >= f->sent)
		abort();
	p = uet_put_be32(p, F_MAGIC);
	p = uet_put_be32(p, (uint32_t)cookie);
	p = uet_put_be32(p, f_check((uint32_t)cookie));
	uet_put_be32(p, f->sent_mode[cookie]);
	return 0;
}

static void f_check_genuine(struct f_state *f, const struct pdc_rx_pkt *pkt)
{
	uint32_t magic, idx, check, mode;
	const uint8_t *p = pkt->buf;

	if (pkt->len != F_PAYLOAD_LEN)
		abort();
	p = uet_get_be32(&magic, p);
	p = uet_get_be32(&idx, p);
	p = uet_get_be32(&check, p);
	uet_get_be32(&mode, p);
	if (magic != F_MAGIC || idx >= f->sent || check != f_check(idx) ||
	    mode != f->sent_mode[idx] || mode != pkt->mode)
		abort();	/* delivered something A never sent */
	if (mode == PDC_MODE_UUD)
		return;		/* unreliable: the wire may duplicate it */
	if (mode == PDC_MODE_RUDI) {
		f->delivered[idx] = 1;	/* idempotent: copies run again */
		return;
	}
	if (f->delivered[idx]++ && !f->chaos)
		abort();	/* delivered twice */
}

static int f_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
		     struct pdc_resp *resp)
{
	struct f_state *f = ctx;

	if (!f->cur || pkt->buf < f->cur ||
	    pkt->buf + pkt->len > f->cur + f->cur_len)
		abort();	/* bytes from outside the frame */
	if (f->cur_genuine && pkt->peer == F_PEER_A)
		f_check_genuine(f, pkt);
	if (pkt->len >= 4 && pkt->mode != PDC_MODE_UUD) {
		resp->next_hdr = UET_PDS_NEXT_HDR_RESPONSE;
		resp->len = 4;
		memcpy(resp->buf, pkt->buf, 4);
	}
	return 0;
}

/* RUDI: no PDC, nothing kept; answered with the first 4 bytes. */
static ssize_t f_rudi(void *ctx, const struct pdc_rx_pkt *pkt, uint8_t *rsp,
		      size_t cap, uint8_t *next_hdr)
{
	struct f_state *f = ctx;

	if (!f->cur || pkt->buf < f->cur ||
	    pkt->buf + pkt->len > f->cur + f->cur_len ||
	    pkt->mode != PDC_MODE_RUDI || cap < 4)
		abort();
	if (f->cur_genuine && pkt->peer == F_PEER_A)
		f_check_genuine(f, pkt);
	if (pkt->len < 4)
		return -EBADMSG;
	memcpy(rsp, pkt->buf, 4);
	*next_hdr = UET_PDS_NEXT_HDR_RESPONSE;
	return 4;
}

static void f_tx_done(void *ctx, const struct pdc_tx_done *d)
{
	struct f_state *f = ctx;

	if (d->cookie >= f->sent || f->done[d->cookie]++)
		abort();	/* unknown, or completed twice */
	if (!f->chaos && d->status == 0 &&
	    f->sent_mode[d->cookie] != PDC_MODE_UUD && !f->delivered[d->cookie])
		abort();	/* acknowledged, never delivered */
}

static void f_event(void *ctx, const struct pdc_event *ev)
{
	(void)ctx;
	if (ev->type > PDC_EV_PEER_RESTART)
		abort();
}

static const struct pdc_ops f_ops = {
	.deliver = f_deliver, .fill = f_fill,
	.tx_done = f_tx_done, .event = f_event, .rudi = f_rudi,
};

static void f_rx(struct f_state *f, int to, int from, const uint8_t *buf,
		 size_t len, bool genuine)
{
	struct pdc_rx_meta meta = { .peer = (uint32_t)from,
				    .ecn_ce = f_byte(f) & 1 };

	f->cur = buf;
	f->cur_len = len;
	f->cur_genuine = genuine;
	pdc_rx_frame(to == F_PEER_A ? f->a : f->b, &meta, buf, len, f->now);
	f->cur = NULL;
}

/* A PDCID the sender chose carries its prefix (0 in a NACK: no PDC). */
static void f_check_prefix(const struct f_state *f, int from,
			   const uint8_t *buf, size_t len)
{
	uint16_t prefix = from == F_PEER_A ? f->prefix_a : f->prefix_b;
	uint16_t spdcid;
	struct pdc_hdr h;

	if (pdc_hdr_decode(&h, buf, len) < 0)
		abort();	/* we built it */
	switch (h.pro.type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
		spdcid = h.req.spdcid;
		break;
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
		spdcid = h.ack.spdcid;
		break;
	case UET_PDS_TYPE_NACK:
	case UET_PDS_TYPE_NACK_CCX:
		spdcid = h.nack.spdcid;
		break;
	case UET_PDS_TYPE_CONTROL:
		spdcid = h.ctl.spdcid;
		break;
	case UET_PDS_TYPE_RUDI_REQ:	/* the pkt_id's top, as a PDCID's */
		spdcid = (uint16_t)(h.rudi.pkt_id >> 16);
		break;
	default:
		return;
	}
	if (spdcid && (spdcid & f->prefix_mask) != prefix)
		abort();
}

static void f_active(void *ctx, const struct pdc_info *in)
{
	const struct f_state *f = ctx;

	if (in->peer != F_PEER_B || (in->pdcid & f->prefix_mask) != f->prefix_a)
		abort();
}

/* At most max_pdcs (4) of A's; the walk never lists a PDC twice. */
static void f_walk(struct f_state *f)
{
	if (pdc_active_walk(f->a, f_active, f) > 4 ||
	    pdc_active_walk(f->b, f_active, f) != 0)
		abort();
}

/* Every frame |from| has: deliver, drop, duplicate or hold it. */
static void f_pump(struct f_state *f, int from)
{
	struct pdc_mgr *mgr = from == F_PEER_A ? f->a : f->b;
	int to = from == F_PEER_A ? F_PEER_B : F_PEER_A;
	uint8_t buf[F_FRAME_LEN];
	uint32_t peer;
	ssize_t n;

	while ((n = pdc_tx_build(mgr, buf, sizeof(buf), &peer, f->now)) > 0) {
		uint8_t how = f_byte(f);

		f_check_prefix(f, from, buf, (size_t)n);
		if (peer != (uint32_t)to)
			continue;	/* to the forger: nobody there */
		if ((how & 3) == 1)
			continue;
		if ((how & 3) == 2 && f->hold_cnt < F_HOLD) {
			f->hold[f->hold_cnt].to = to;
			f->hold[f->hold_cnt].held_ns = f->now;
			f->hold[f->hold_cnt].len = (size_t)n;
			memcpy(f->hold[f->hold_cnt++].buf, buf, (size_t)n);
			continue;
		}
		f_rx(f, to, from, buf, (size_t)n, true);
		if ((how & 3) == 3)
			f_rx(f, to, from, buf, (size_t)n, true);
	}
	if (n < 0)
		abort();	/* our frames are always big enough */
	f_walk(f);
}

/*
 * Held frames arrive, last held first, unless they outlived the longest
 * life a network gives a packet: no protocol without memory of every past
 * PDC could tell such a copy from a new packet (see cfg.time_wait_ns).
 */
static void f_release(struct f_state *f)
{
	while (f->hold_cnt) {
		struct f_frame *h = &f->hold[--f->hold_cnt];

		if (f->now - h->held_ns > F_MAX_LIFE_NS)
			continue;
		f_rx(f, h->to, h->to == F_PEER_B ? F_PEER_A : F_PEER_B,
		     h->buf, h->len, true);
	}
}

static void f_send(struct f_state *f, uint8_t arg)
{
	struct pdc_pkt pkt = {
		.cookie = f->sent, .peer = F_PEER_B, .len = F_PAYLOAD_LEN,
		.mode = arg % 4 == 2 ? PDC_MODE_UUD :
			arg % 4 == 3 ? PDC_MODE_RUDI : arg % 4,
		.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
		.flags = (arg & 0x10 ? PDC_PKT_F_AR : 0) |
			 (arg & 0x20 ? PDC_PKT_F_WANT_RESP : 0),
	};

	if (f->sent == F_MSGS)
		return;
	f->sent_mode[f->sent] = pkt.mode;
	f->sent++;	/* fill may run inside a later call only */
	if (pdc_send(f->a, &pkt, f->now) < 0)
		f->sent--;
}

/* A forged frame: fuzzer bytes, or a genuine-looking header, mutated. */
static void f_forge(struct f_state *f, uint8_t arg)
{
	uint8_t buf[F_FRAME_LEN];
	size_t len = 2 + f_byte(f) % 62, i;
	int to = f->chaos && (arg & 1) ? F_PEER_A : F_PEER_B;
	int from = f->chaos ? (to == F_PEER_A ? F_PEER_B : F_PEER_A) :
			      F_PEER_X;

	for (i = 0; i < len; i++)
		buf[i] = f_byte(f);
	f_rx(f, to, from, buf, len, false);
}

static void f_run(struct f_state *f)
{
	while (f->pos < f->in_len) {
		uint8_t op = f_byte(f), arg = f_byte(f);

		switch (op % 8) {
		case 0:
		case 1:
			f_send(f, arg);
			break;
		case 2:
			f_pump(f, F_PEER_A);
			break;
		case 3:
			f_pump(f, F_PEER_B);
			break;
		case 4:
			f_release(f);
			break;
		case 5:
			f->now += (uint64_t)arg * 1000 + 1;
			break;
		case 6:
			f_forge(f, arg);
			break;
		default:
			pdc_close(f->a, F_PEER_B, arg % 2, f->now);
			break;
		}
	}
}

static void f_cfg(struct pdc_cfg *cfg, uint64_t seed)
{
	pdc_cfg_init(cfg);
	cfg->seed = seed;
	cfg->max_pdcs = 4;
	cfg->window = 64;
	cfg->cwnd_init = 4;
	cfg->rto_init_ns = 20000;
	cfg->rto_min_ns = 10000;
	cfg->rto_max_ns = 200000;
	cfg->max_retries = 6;
	cfg->ack_delay_ns = 3000;
	cfg->ack_coalesce_cnt = 4;
	cfg->idle_ns = 500000;
	cfg->time_wait_ns = F_TIME_WAIT_NS;
	cfg->resp_pool_cnt = 8;
	cfg->max_payload_len = 64;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct f_state *f = calloc(1, sizeof(*f));
	struct pdc_cfg cfg;
	uint8_t mode;
	uint16_t pfx;

	if (!f)
		return 0;
	f->in = data;
	f->in_len = size;
	mode = f_byte(f);
	f->chaos = mode & 1;
	f->now = 1000;
	f_cfg(&cfg, 1 + f_byte(f));
	cfg.pdcid_prefix_bits = (mode >> 1) & 7;
	pfx = (uint16_t)((1u << cfg.pdcid_prefix_bits) - 1);
	f->prefix_mask = (uint16_t)(pfx << (16 - cfg.pdcid_prefix_bits));
	cfg.pdcid_prefix = (mode >> 4) & pfx;
	f->prefix_a = (uint16_t)(cfg.pdcid_prefix << (16 -
						      cfg.pdcid_prefix_bits));
	f->a = pdc_mgr_create(&cfg, &f_ops, f);
	cfg.seed += 1000;
	cfg.pdcid_prefix = (cfg.pdcid_prefix + 1) & pfx;
	f->prefix_b = (uint16_t)(cfg.pdcid_prefix << (16 -
						      cfg.pdcid_prefix_bits));
	f->b = pdc_mgr_create(&cfg, &f_ops, f);
	if (!f->a || !f->b)
		abort();
	f_run(f);
	pdc_mgr_destroy(f->a);
	pdc_mgr_destroy(f->b);
	free(f);
	return 0;
}
