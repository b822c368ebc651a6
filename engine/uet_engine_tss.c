/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Data protection of the engine's frames (UE 1.0 3.7): TSS, with the keys
 * the device service holds for our JobID (tss/uet_tss_ep.h), or without
 * it an optional CRC32C trailer.
 *
 * Plaintext never sits in the shared UMEM, which every endpoint of the
 * interface maps, whatever its job: a sealed frame is built in our own
 * bounce buffer, sealed there and copied to its chunks; a received one is
 * opened into |opened|, a buffer of ours. Frames between endpoints of the
 * interface are sealed too, for the same reason.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev/uet_dev_shm.h"
#include "dev/uet_fep_steer.h"
#include "engine/uet_engine_priv.h"
#include "engine/uet_engine_tss.h"
#include "ses/ses_util.h"
#include "tss/uet_crc32c.h"

#define UET_CRC_LEN	4

static bool uet_engine_tss_mode_ok(const struct uet_engine *e,
				   const struct uet_tss_sd_keys *k)
{
	if (e->cfg.tss == UET_ENGINE_TSS_DIRECT)
		return k->mode == UET_TSS_DIRECT;
	if (e->cfg.tss == UET_ENGINE_TSS_CLUSTER)
		return k->mode == UET_TSS_CLUSTER;
	return true;
}

static void uet_engine_tss_src(const struct uet_engine *e,
			       struct uet_tss_src *src)
{
	memset(src, 0, sizeof(*src));
	src->is_v6 = e->cfg.local.is_v6;
	if (src->is_v6)
		memcpy(src->addr, &e->cfg.local.v6, 16);
	else
		memcpy(src->addr, &e->cfg.local.v4, 4);
}

int uet_engine_tss_setup(struct uet_engine *e, char *why, size_t why_len)
{
	struct uet_tss_sd_keys keys;
	struct uet_tss_src src;
	int ret;

	e->frame_hdr_len = uet_frame_hdr_len(e->cfg.local.is_v6);
	e->hdr_len = e->frame_hdr_len;
	e->trailer_len = e->cfg.crc ? UET_CRC_LEN : 0;
	if (e->cfg.tss == UET_ENGINE_TSS_OFF)
		return 0;
	ret = uet_dev_tss_keys(e->dev.conn, &keys, why, why_len);
	if (ret == -ENOKEY && e->cfg.tss == UET_ENGINE_TSS_AUTO)
		return 0;
	if (ret < 0)
		return ret;
	if (!uet_engine_tss_mode_ok(e, &keys)) {
		snprintf(why, why_len, "FI_UET_TSS asks for another mode than "
			 "the service's key file gives JobID %u (%s)",
			 e->cfg.job_id, keys.mode == UET_TSS_DIRECT ?
			 "direct" : "cluster");
		return -EACCES;
	}
	uet_engine_tss_src(e, &src);
	e->tss = uet_tss_ep_new(&keys, &src);
	if (!e->tss)
		return -errno;
	e->opened = malloc(UET_XSK_FRAME_MAX);
	if (!e->opened)
		return -ENOMEM;
	e->tss_gen = keys.gen;
	e->tss_len = uet_tss_ep_hdr_len(e->tss);
	e->hdr_len = e->frame_hdr_len + e->tss_len;
	e->trailer_len = UET_TSS_ICV_LEN;
	return 0;
}

void uet_engine_tss_destroy(struct uet_engine *e)
{
	uet_tss_ep_free(e->tss);
	e->tss = NULL;
	free(e->opened);
	e->opened = NULL;
}

/* Frames our data-protection checks dropped, for the service's stats. */
static void uet_engine_tss_publish(struct uet_engine *e,
				   struct uet_dev_shm *shm)
{
	const struct uet_tss_ep_stats *t = e->tss ? uet_tss_ep_stats(e->tss) :
				       NULL;
	uint64_t n = e->stats.rx_clear_refused + e->stats.rx_sealed_refused +
		     e->stats.rx_crc_bad;

	if (t)
		n += t->rx_bad_icv + t->rx_replay + t->rx_stale +
		     t->rx_other_sd + t->rx_no_key + t->rx_malformed +
		     t->rx_no_room;
	if (n != __atomic_load_n(&shm->slot[e->ep_index].rx_refused,
				 __ATOMIC_RELAXED))
		__atomic_store_n(&shm->slot[e->ep_index].rx_refused, n,
				 __ATOMIC_RELAXED);
}

/*
 * The service reloaded its key file (a rotation): ask for our keys again.
 * Streams under unchanged keys go on; a failed request keeps the old keys
 * and asks again at the next tick.
 */
void uet_engine_tss_tick(struct uet_engine *e)
{
	struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);
	struct uet_tss_sd_keys keys;
	char why[128];

	if (shm)
		uet_engine_tss_publish(e, shm);
	if (!e->tss || !shm ||
	    __atomic_load_n(&shm->tss_gen, __ATOMIC_ACQUIRE) == e->tss_gen)
		return;
	if (uet_dev_tss_keys(e->dev.conn, &keys, why, sizeof(why)) < 0 ||
	    uet_tss_ep_set_keys(e->tss, &keys) < 0)
		return;
	e->tss_gen = keys.gen;
	e->stats.tss_rekeyed++;
}

/* Where the IP addresses and UDP ports of a frame we wrote are. */
static void uet_engine_tss_pkt(const struct uet_engine *e, const uint8_t *frame,
			       struct uet_tss_pkt *p)
{
	const uint8_t *ip = frame + UET_ETH_HDR_LEN;
	const uint8_t *udp = frame + e->frame_hdr_len - UET_UDP_HDR_LEN;

	p->is_v6 = e->cfg.local.is_v6;
	p->saddr = ip + (p->is_v6 ? 8 : 12);
	p->daddr = ip + (p->is_v6 ? 24 : 16);
	p->sport = (uint16_t)(udp[0] << 8 | udp[1]);
	p->dport = (uint16_t)(udp[2] << 8 | udp[3]);
}

/*
 * The CRC32C trailer of the reference provider (ref 1.5): from the IP
 * source address to the end of the payload, its bytes little endian as
 * the reference provider writes them (RFC 3309's order for CRC32C too).
 * IP's TOS (ECN marks, a trimmed DSCP) and TTL are before it: switches
 * rewrite those.
 */
static uint32_t uet_engine_crc(const uint8_t *ip, const uint8_t *end,
			       bool is_v6)
{
	const uint8_t *from = ip + (is_v6 ? 8 : 12);

	return uet_crc32c(0, from, (size_t)(end - from));
}

ssize_t uet_engine_tss_seal(struct uet_engine *e, uint8_t *frame,
			    size_t pds_len)
{
	struct uet_tss_pkt p;
	ssize_t n;

	if (e->tss) {
		uet_engine_tss_pkt(e, frame, &p);
		n = uet_tss_ep_seal(e->tss, &p, frame + e->frame_hdr_len,
				    pds_len);
		return n < 0 ? n : (ssize_t)e->frame_hdr_len + n;
	}
	if (e->cfg.crc) {
		size_t end = e->hdr_len + pds_len;
		uint32_t crc = uet_engine_crc(frame + UET_ETH_HDR_LEN,
					      frame + end, e->cfg.local.is_v6);

		frame[end] = (uint8_t)crc;
		frame[end + 1] = (uint8_t)(crc >> 8);
		frame[end + 2] = (uint8_t)(crc >> 16);
		frame[end + 3] = (uint8_t)(crc >> 24);
		e->stats.tx_crc++;
		return (ssize_t)(end + UET_CRC_LEN);
	}
	return (ssize_t)(e->hdr_len + pds_len);
}

/*
 * Encrypts |n| bytes at |src| into the chunks of |f|, from frame offset
 * |off| on.
 */
static int uet_engine_tss_put(struct uet_tss_aead *a, struct uet_xsk_frame *f,
			      uint32_t off, const uint8_t *src, uint32_t n)
{
	uint32_t end = off + n;

	for (uint32_t i = 0, base = 0; i < f->nsegs && off < end; i++) {
		uint32_t in, k;

		if (off >= base + f->seg_len[i]) {
			base += f->seg_len[i];
			continue;
		}
		in = off - base;
		k = f->seg_len[i] - in < end - off ? f->seg_len[i] - in :
						     end - off;
		if (uet_tss_update(a, f->seg[i] + in, src, k))
			return -EIO;
		src += k;
		off += k;
		base += f->seg_len[i];
	}
	return off == end ? 0 : -EIO;
}

/*
 * The payload that stayed in the application's buffer (e->tx_gather,
 * uet_engine_pdc_fill) into the chunks of |f| at its place in the frame.
 * An iov shorter than the payload leaves zeros, as a copy would have.
 */
static int uet_engine_tss_put_gather(struct uet_engine *e,
				     struct uet_tss_aead *a,
				     struct uet_xsk_frame *f)
{
	const struct ses_iov *iov = e->tx_gather.iov;
	uint64_t from = e->tx_gather.from;
	uint32_t at = e->tx_gather.off, left = e->tx_gather.len;
	size_t i = ses_iov_seek(iov, e->tx_gather.cnt, &from);

	for (; i < e->tx_gather.cnt && left; i++, from = 0) {
		uint32_t k = iov[i].len - from < left ?
			     (uint32_t)(iov[i].len - from) : left;

		if (k && uet_engine_tss_put(a, f, at,
					    (const uint8_t *)iov[i].base + from,
					    k))
			return -EIO;
		at += k;
		left -= k;
	}
	if (!left)
		return 0;
	memset(e->bounce + at, 0, left);
	return uet_engine_tss_put(a, f, at, e->bounce + at, left);
}

/*
 * Seals the frame built at |frame| (our bounce buffer) straight into the
 * chunks of |f|: the ciphertext is written where it goes, so the
 * plaintext is read once and nothing is copied after (an 8 KiB copy per
 * packet, measured as 5% of a sealed stream). Its payload, when it stayed
 * in the application's buffer, is read there.
 */
ssize_t uet_engine_tss_seal_to(struct uet_engine *e, const uint8_t *frame,
			       size_t pds_len, struct uet_xsk_frame *f)
{
	uint32_t off = (uint32_t)e->hdr_len, end = off + (uint32_t)pds_len;
	uint32_t g_at = e->tx_gather.off, g_len = e->tx_gather.len;
	uint8_t icv[UET_TSS_ICV_LEN];
	struct uet_tss_aead *a;
	struct uet_tss_pkt p;

	if (g_len && (g_at < off || g_at + g_len > end))
		return -EIO;	/* never: the payload is inside the PDS */
	uet_engine_tss_pkt(e, frame, &p);
	/* The header goes into our copy first: the AAD is read from it. */
	a = uet_tss_ep_seal_begin(e->tss, &p, (uint8_t *)frame +
				  e->frame_hdr_len);
	if (!a)
		return -errno;
	uet_xsk_frame_write(f, 0, frame, off);
	/* All of it in the first chunk (short packets): at once. */
	if (!g_len && f->nsegs && end <= f->seg_len[0]) {
		if (uet_tss_ep_seal_rest(e->tss, a, f->seg[0] + off,
					 frame + off, pds_len, icv))
			return -EIO;
		uet_xsk_frame_write(f, end, icv, UET_TSS_ICV_LEN);
		return (ssize_t)end + UET_TSS_ICV_LEN;
	}
	if (!g_len) {
		if (uet_engine_tss_put(a, f, off, frame + off, end - off))
			return -EIO;
	} else if (uet_engine_tss_put(a, f, off, frame + off, g_at - off) ||
		   uet_engine_tss_put_gather(e, a, f) ||
		   uet_engine_tss_put(a, f, g_at + g_len,
				      frame + g_at + g_len,
				      end - g_at - g_len)) {
		return -EIO;
	}
	if (uet_tss_ep_seal_end(e->tss, a, icv))
		return -EIO;
	uet_xsk_frame_write(f, end, icv, UET_TSS_ICV_LEN);
	return (ssize_t)end + UET_TSS_ICV_LEN;
}

int uet_engine_tss_local_ep(struct uet_engine *e, const uint8_t *frame,
			    size_t pds_len)
{
	struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);
	int ep;

	if (!shm)
		return 0;
	ep = uet_fep_steer_pds(shm, frame + e->hdr_len, pds_len);
	return ep > 0 ? ep : -1;
}

/*
 * A sealed request a switch trimmed lost its ICV with its payload: its
 * PDS header, decrypted but not authenticated (uet_tss_ep_open_trimmed:
 * a stream we know, a TSC not seen), goes to PDC only if it is a request,
 * which PDC answers with NACK TRIMMED and nothing else (pdc_tgt.c), so
 * that the initiator resends at once instead of at its timer. Anything
 * else marked trimmed is dropped: an ACK's fields could be flipped by
 * whoever flips ciphertext bits (GCM without its tag is malleable), a
 * request's only make its sender resend, as a forged clear one does.
 */
static const uint8_t *uet_engine_tss_trimmed(struct uet_engine *e,
					     const struct uet_tss_pkt *p,
					     const uint8_t *pay, size_t len,
					     size_t *pds_len)
{
	ssize_t n = uet_tss_ep_open_trimmed(e->tss, p, pay, len, e->opened,
					    UET_PDS_HDR_MAX_LEN);
	uint8_t type;

	if (n < UET_PDS_PROLOGUE_LEN)
		return NULL;
	type = e->opened[0] >> (UET_PDS_TYPE_SHIFT - 8);
	if (type != UET_PDS_TYPE_RUD_REQ && type != UET_PDS_TYPE_ROD_REQ &&
	    type != UET_PDS_TYPE_RUD_CC_REQ && type != UET_PDS_TYPE_ROD_CC_REQ)
		return NULL;
	*pds_len = (size_t)n;
	return e->opened;
}

const uint8_t *uet_engine_tss_open(struct uet_engine *e, const uint8_t *frame,
				   const struct uet_frame_info *info,
				   bool trimmed, size_t *pds_len)
{
	const uint8_t *pay = frame + info->hdr_len;
	/* Ethernet, maybe a VLAN tag, then IP (uet_frame_decode). */
	const uint8_t *ip = frame + UET_ETH_HDR_LEN +
			    (info->vlan_tci ? UET_VLAN_HDR_LEN : 0);
	size_t len = info->payload_len;
	struct uet_tss_pkt p;
	ssize_t n;

	if (e->tss) {
		if (!uet_tss_is_tss(pay, len)) {
			e->stats.rx_clear_refused++;
			return NULL;
		}
		p.is_v6 = info->src.is_v6;
		p.saddr = ip + (p.is_v6 ? 8 : 12);
		p.daddr = p.saddr + (p.is_v6 ? 16 : 4);
		p.sport = info->src.port;
		p.dport = info->dst.port;
		if (trimmed)
			return uet_engine_tss_trimmed(e, &p, pay, len, pds_len);
		n = uet_tss_ep_open(e->tss, &p, pay, len, e->opened);
		if (n < 0)
			return NULL;
		*pds_len = (size_t)n;
		return e->opened;
	}
	if (uet_tss_is_tss(pay, len)) {
		e->stats.rx_sealed_refused++;
		return NULL;
	}
	if (e->cfg.crc && !trimmed) {
		const uint8_t *t = pay + len - UET_CRC_LEN;
		uint32_t want;

		if (len < UET_CRC_LEN) {
			e->stats.rx_crc_bad++;
			return NULL;
		}
		want = (uint32_t)t[0] | (uint32_t)t[1] << 8 |
		       (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
		if (uet_engine_crc(ip, t, info->src.is_v6) != want) {
			e->stats.rx_crc_bad++;
			return NULL;
		}
		len -= UET_CRC_LEN;
	}
	*pds_len = len;
	return pay;
}
