// SPDX-License-Identifier: BSD-2-Clause
/*
 * One endpoint's TSS (uet_tss_ep.h).
 *
 * Transmit: a stream per AN, so that moving tx_an back and forth never
 * restarts a TSC under a (key, epoch) already used; the key material is
 * derived once per stream, and its cipher context keeps the key schedule.
 *
 * Receive: a fixed table, scanned linearly (the last hit first: bursts
 * come from one peer) with least-recently-used eviction. A stream enters
 * it only once a packet of it authenticated: a forged header costs a key
 * derivation in the scratch slot, never a victim's replay state. An
 * evicted stream leaves its highest TSC as a floor (uet_tss_floor.c): when
 * it comes back its window starts there, and nothing at or below it is
 * accepted, so any number of senders never reopens a window (issue 40).
 *
 * The KDF's rekey input is 0: the header carries no rekey count for both
 * ends to agree on; a rotation brings a new SD key instead.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "tss/uet_tss_ep.h"

#define RX_STREAMS	64
#define TSS_REKEY	0

/* What names a receive stream; zeroed before filling, compared whole. */
struct rx_id {
	uint8_t addr[16];
	uint32_t ssi;
	uint16_t epoch;
	uint8_t an;
	uint8_t flags;		/* bit 0 IPv6, bit 1 SP */
};

_Static_assert(sizeof(struct rx_id) == UET_TSS_FLOOR_ID, "rx_id: a floor id");

struct rx_stream {
	bool used;
	struct rx_id id;
	uint64_t stamp;		/* last use, for eviction */
	struct uet_tss_keymat km;
	struct uet_tss_aead *aead;
	struct uet_tss_replay win;
};

struct tx_stream {
	bool ready;		/* km and aead match keys */
	uint16_t epoch;
	uint64_t tsc;		/* the next to send */
	struct uet_tss_keymat km;
	struct uet_tss_aead *aead;
};

struct uet_tss_ep {
	struct uet_tss_sd_keys keys;
	struct uet_tss_src local;
	struct tx_stream tx[2];
	struct rx_stream rx[RX_STREAMS];
	struct rx_stream scratch;
	struct uet_tss_floors floors;	/* of the streams evicted */
	unsigned int hint;
	uint64_t clock;
	struct uet_tss_ep_stats st;
};

static bool keys_valid(const struct uet_tss_sd_keys *k)
{
	if (k->mode != UET_TSS_DIRECT && k->mode != UET_TSS_CLUSTER)
		return false;
	return k->tx_an <= 1 && (k->have >> k->tx_an & 1) &&
	       k->sdi <= UET_TSS_SDI_MAX;
}

/* Forget a stream (|n| bytes at |s|): its context, then its key. */
static void drop(void *s, size_t n, struct uet_tss_aead *a)
{
	uet_tss_aead_free(a);
	OPENSSL_cleanse(s, n);
}
#define DROP(s)	drop((s), sizeof(*(s)), (s)->aead)

struct uet_tss_ep *uet_tss_ep_new(const struct uet_tss_sd_keys *keys,
				  const struct uet_tss_src *local)
{
	struct uet_tss_ep *ep;

	if (!keys_valid(keys)) {
		errno = EINVAL;
		return NULL;
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return NULL;	/* errno ENOMEM, from calloc */
	ep->keys = *keys;
	ep->local = *local;
	return ep;
}

void uet_tss_ep_free(struct uet_tss_ep *ep)
{
	unsigned int i;

	if (!ep)
		return;
	for (i = 0; i < RX_STREAMS; i++)
		DROP(&ep->rx[i]);
	for (i = 0; i < 2; i++)
		DROP(&ep->tx[i]);
	DROP(&ep->scratch);
	uet_tss_floor_free(&ep->floors);
	OPENSSL_cleanse(ep, sizeof(*ep));
	free(ep);
}

int uet_tss_ep_set_keys(struct uet_tss_ep *ep,
			const struct uet_tss_sd_keys *keys)
{
	const struct uet_tss_sd_keys *o = &ep->keys;
	bool same_sd, same[2];
	unsigned int i, an;

	if (!keys_valid(keys))
		return -EINVAL;
	same_sd = keys->sdi == o->sdi && keys->mode == o->mode;
	for (an = 0; an < 2; an++)
		same[an] = same_sd && (keys->have >> an & 1) &&
			   (o->have >> an & 1) &&
			   !memcmp(keys->key[an], o->key[an], UET_TSS_KEY_LEN);
	for (i = 0; i < RX_STREAMS; i++)
		if (ep->rx[i].used && !same[ep->rx[i].id.an])
			DROP(&ep->rx[i]);
	/* A new key restarts every TSC under it: its old floors go too. */
	for (an = 0; an < 2; an++)
		if (!same[an])
			uet_tss_floor_drop(&ep->floors,
					   offsetof(struct rx_id, an), an);
	for (an = 0; an < 2; an++) {
		struct tx_stream *t = &ep->tx[an];

		if (!same[an] || keys->epoch[an] != t->epoch) {
			DROP(t);	/* another (key, epoch): TSC from 0 */
		} else if (keys->use_ssi != o->use_ssi ||
			   keys->ssi != o->ssi) {
			/* Another source to derive from; the TSC goes on. */
			uet_tss_aead_free(t->aead);
			t->aead = NULL;
			t->ready = false;
		}
	}
	ep->keys = *keys;
	return 0;
}

size_t uet_tss_ep_hdr_len(const struct uet_tss_ep *ep)
{
	return uet_tss_hdr_len(ep->keys.use_ssi);
}

const struct uet_tss_ep_stats *uet_tss_ep_stats(const struct uet_tss_ep *ep)
{
	return &ep->st;
}

/* ---- transmit --------------------------------------------------------- */

static int tx_prepare(struct uet_tss_ep *ep, struct tx_stream *t,
		      const struct uet_tss_hdr *h)
{
	const struct uet_tss_sd_keys *k = &ep->keys;
	int rc;

	if (t->ready)
		return 0;
	t->epoch = h->epoch;	/* set_keys drops us when it changes */
	rc = uet_tss_derive(&t->km, k->mode, k->key[h->an], h, &ep->local,
			    TSS_REKEY);
	if (!rc && !(t->aead = uet_tss_aead_new(t->km.key)))
		rc = -EIO;
	t->ready = !rc;
	return rc;
}

struct uet_tss_aead *uet_tss_ep_seal_begin(struct uet_tss_ep *ep,
					   const struct uet_tss_pkt *p,
					   uint8_t *hdr)
{
	const struct uet_tss_sd_keys *k = &ep->keys;
	struct tx_stream *t = &ep->tx[k->tx_an];
	uint8_t aad[UET_TSS_AAD_MAX], iv[UET_TSS_IV_LEN];
	struct uet_tss_hdr h = {
		.sp = k->use_ssi, .an = k->tx_an, .sdi = k->sdi,
		.ssi = k->use_ssi ? k->ssi : 0, .epoch = k->epoch[k->tx_an],
	};
	size_t hl = uet_tss_hdr_len(h.sp), al;
	int rc;

	rc = tx_prepare(ep, t, &h);
	if (rc)
		goto fail;
	if (t->tsc > UET_TSS_TSC_MAX) {
		rc = -EKEYEXPIRED;
		goto fail;
	}
	/* Spent before sealing: a failure below never lets a TSC repeat. */
	h.tsc = t->tsc++;
	if (uet_tss_hdr_encode(hdr, hl, &h) < 0) {
		rc = -EIO;
		goto fail;
	}
	al = uet_tss_aad(aad, p->is_v6, p->saddr, p->daddr, p->sport,
			 p->dport, hdr, hl);
	uet_tss_iv(iv, &t->km, &h, &ep->local);
	rc = uet_tss_seal_begin(t->aead, iv, aad, al);
	if (rc)
		goto fail;
	return t->aead;
fail:
	ep->st.tx_fail++;
	errno = rc == -EKEYEXPIRED ? EKEYEXPIRED : EIO;
	return NULL;
}

int uet_tss_ep_seal_end(struct uet_tss_ep *ep, struct uet_tss_aead *a,
			uint8_t icv[UET_TSS_ICV_LEN])
{
	if (uet_tss_seal_final(a, icv)) {
		ep->st.tx_fail++;
		return -EIO;
	}
	ep->st.tx_sealed++;
	return 0;
}

ssize_t uet_tss_ep_seal(struct uet_tss_ep *ep, const struct uet_tss_pkt *p,
			uint8_t *buf, size_t len)
{
	struct uet_tss_aead *a = uet_tss_ep_seal_begin(ep, p, buf);
	size_t hl = uet_tss_ep_hdr_len(ep);
	int rc;

	if (!a)
		return -errno;
	rc = uet_tss_ep_seal_rest(ep, a, buf + hl, buf + hl, len,
				  buf + hl + len);
	return rc ? rc : (ssize_t)(hl + len + UET_TSS_ICV_LEN);
}

int uet_tss_ep_seal_rest(struct uet_tss_ep *ep, struct uet_tss_aead *a,
			 uint8_t *out, const uint8_t *in, size_t len,
			 uint8_t icv[UET_TSS_ICV_LEN])
{
	if (uet_tss_seal_rest(a, out, in, len, icv)) {
		ep->st.tx_fail++;
		return -EIO;
	}
	ep->st.tx_sealed++;
	return 0;
}

/* ---- receive ---------------------------------------------------------- */

/* The header and the stream of a packet: its checks, in open's order. */
static int rx_parse(struct uet_tss_ep *ep, const struct uet_tss_pkt *p,
		    const uint8_t *in, size_t len, struct uet_tss_hdr *h,
		    struct rx_id *id)
{
	ssize_t hl = uet_tss_hdr_decode(h, in, len);

	if (hl < 0 || len < (size_t)hl + UET_TSS_ICV_LEN) {
		ep->st.rx_malformed++;
		return -EBADMSG;
	}
	if (h->sdi != ep->keys.sdi) {
		ep->st.rx_other_sd++;
		return -EXDEV;
	}
	if (!(ep->keys.have >> h->an & 1)) {
		ep->st.rx_no_key++;
		return -ENOKEY;
	}
	memset(id, 0, sizeof(*id));
	memcpy(id->addr, p->saddr, p->is_v6 ? 16 : 4);
	id->ssi = h->ssi;
	id->epoch = h->epoch;
	id->an = h->an;
	id->flags = (p->is_v6 ? 1 : 0) | (h->sp ? 2 : 0);
	return (int)hl;
}

static struct rx_stream *rx_find(struct uet_tss_ep *ep, const struct rx_id *id)
{
	unsigned int i;

	if (ep->rx[ep->hint].used &&
	    !memcmp(&ep->rx[ep->hint].id, id, sizeof(*id)))
		return &ep->rx[ep->hint];
	for (i = 0; i < RX_STREAMS; i++) {
		if (ep->rx[i].used && !memcmp(&ep->rx[i].id, id, sizeof(*id))) {
			ep->hint = i;
			return &ep->rx[i];
		}
	}
	return NULL;
}

static void pkt_src(const struct uet_tss_pkt *p, struct uet_tss_src *src)
{
	memset(src, 0, sizeof(*src));
	src->is_v6 = p->is_v6;
	memcpy(src->addr, p->saddr, p->is_v6 ? 16 : 4);
}

/* Derive an unknown stream into the scratch slot (not yet in the table). */
static struct rx_stream *rx_scratch(struct uet_tss_ep *ep,
				    const struct uet_tss_pkt *p,
				    const struct uet_tss_hdr *h,
				    const struct rx_id *id)
{
	struct rx_stream *s = &ep->scratch;
	struct uet_tss_src src;

	DROP(s);
	pkt_src(p, &src);
	if (uet_tss_derive(&s->km, ep->keys.mode, ep->keys.key[h->an], h,
			   &src, TSS_REKEY))
		return NULL;
	s->aead = uet_tss_aead_new(s->km.key);
	if (!s->aead)
		return NULL;
	s->id = *id;
	return s;
}

/*
 * The scratch stream authenticated a packet: give it a slot, its window
 * from its floor if it was evicted before. NULL when the victim's floor
 * finds no memory (the victim then stays: no window is ever lost).
 */
static struct rx_stream *rx_insert(struct uet_tss_ep *ep)
{
	struct rx_stream *v = &ep->rx[0];
	uint64_t floor;
	unsigned int i;

	/* A free slot has stamp 0: the oldest of all, so taken first. */
	for (i = 1; i < RX_STREAMS; i++)
		if (ep->rx[i].stamp < v->stamp)
			v = &ep->rx[i];
	if (v->used) {
		if (uet_tss_floor_put(&ep->floors, (const uint8_t *)&v->id,
				      v->win.top) < 0)
			return NULL;
		ep->st.rx_evicted++;
		DROP(v);
	}
	*v = ep->scratch;
	if (uet_tss_floor_take(&ep->floors, (const uint8_t *)&v->id, &floor))
		uet_tss_replay_from_floor(&v->win, floor);
	v->used = true;
	memset(&ep->scratch, 0, sizeof(ep->scratch));
	ep->st.rx_streams++;
	ep->hint = (unsigned int)(v - ep->rx);
	return v;
}

/*
 * The IV and AAD of packet |h| (its header |hl| bytes at |in|) set on the
 * context of stream |s|, for opening all or part of it.
 */
static int rx_begin(struct rx_stream *s, const struct uet_tss_pkt *p,
		    const uint8_t *in, int hl, const struct uet_tss_hdr *h)
{
	uint8_t aad[UET_TSS_AAD_MAX], iv[UET_TSS_IV_LEN];
	struct uet_tss_src src;
	size_t al;

	al = uet_tss_aad(aad, p->is_v6, p->saddr, p->daddr, p->sport,
			 p->dport, in, (size_t)hl);
	pkt_src(p, &src);
	uet_tss_iv(iv, &s->km, h, &src);
	return uet_tss_open_begin(s->aead, iv, aad, al);
}

ssize_t uet_tss_ep_open(struct uet_tss_ep *ep, const struct uet_tss_pkt *p,
			const uint8_t *in, size_t len, uint8_t *out)
{
	struct uet_tss_hdr h;
	struct rx_stream *s;
	struct rx_id id;
	uint64_t floor;
	size_t pl;
	int hl, rc;

	hl = rx_parse(ep, p, in, len, &h, &id);
	if (hl < 0)
		return hl;
	pl = len - (size_t)hl - UET_TSS_ICV_LEN;
	s = rx_find(ep, &id);
	if (s) {
		rc = uet_tss_replay_check(&s->win, h.tsc);
		if (rc) {
			if (rc == -EALREADY)
				ep->st.rx_replay++;
			else
				ep->st.rx_stale++;
			return rc;
		}
	} else if (uet_tss_floor_get(&ep->floors, (const uint8_t *)&id,
				     &floor) && h.tsc <= floor) {
		/* Evicted: what it sent up to then may be a replay. */
		ep->st.rx_stale++;
		ep->st.rx_floored++;
		return -ESTALE;
	} else {
		s = rx_scratch(ep, p, &h, &id);
		if (!s) {
			/* libcrypto failed: nothing authenticated it. */
			ep->st.rx_bad_icv++;
			return -EBADMSG;
		}
	}
	rc = rx_begin(s, p, in, hl, &h);
	if (!rc)
		rc = uet_tss_open_rest(s->aead, out, in + hl, pl,
				       in + hl + pl);
	if (rc) {
		/* The plaintext of a forgery must not leave here. */
		OPENSSL_cleanse(out, pl);
		ep->st.rx_bad_icv++;
		return -EBADMSG;
	}
	if (s == &ep->scratch) {
		s = rx_insert(ep);
		if (!s) {
			OPENSSL_cleanse(out, pl);
			ep->st.rx_no_room++;
			return -ENOMEM;
		}
	}
	uet_tss_replay_commit(&s->win, h.tsc);
	s->stamp = ++ep->clock;
	ep->st.rx_opened++;
	return (ssize_t)pl;
}

ssize_t uet_tss_ep_peek(struct uet_tss_ep *ep, const struct uet_tss_pkt *p,
			const uint8_t *in, size_t len, uint8_t *out,
			size_t want)
{
	struct uet_tss_hdr h;
	struct rx_stream *s;
	struct rx_id id;
	size_t pl;
	int hl;

	hl = rx_parse(ep, p, in, len, &h, &id);
	if (hl < 0)
		return hl;
	pl = len - (size_t)hl - UET_TSS_ICV_LEN;
	if (want > pl)
		want = pl;
	/* An unknown stream stays in scratch: peeking authenticates nothing. */
	s = rx_find(ep, &id);
	if (!s)
		s = rx_scratch(ep, p, &h, &id);
	if (!s)
		return -EIO;
	/* GCM's keystream needs no tag: decrypt the prefix, skip final. */
	if (rx_begin(s, p, in, hl, &h) ||
	    uet_tss_update(s->aead, out, in + hl, want))
		return -EIO;
	return (ssize_t)want;
}

ssize_t uet_tss_ep_open_trimmed(struct uet_tss_ep *ep,
				const struct uet_tss_pkt *p, const uint8_t *in,
				size_t len, uint8_t *out, size_t want)
{
	struct uet_tss_hdr h;
	struct rx_stream *s;
	struct rx_id id;
	ssize_t hl = uet_tss_hdr_decode(&h, in, len);
	int rc;

	if (hl < 0 || (size_t)hl >= len) {
		ep->st.rx_malformed++;
		return -EBADMSG;
	}
	if (h.sdi != ep->keys.sdi) {
		ep->st.rx_other_sd++;
		return -EXDEV;
	}
	memset(&id, 0, sizeof(id));
	memcpy(id.addr, p->saddr, p->is_v6 ? 16 : 4);
	id.ssi = h.ssi;
	id.epoch = h.epoch;
	id.an = h.an;
	id.flags = (p->is_v6 ? 1 : 0) | (h.sp ? 2 : 0);
	/* Only a stream an authentic packet set up; never a new key made. */
	s = (ep->keys.have >> h.an & 1) ? rx_find(ep, &id) : NULL;
	if (!s) {
		ep->st.rx_trim_unknown++;
		return -ENOKEY;
	}
	/* A TSC seen (or below the window) is a replay: nothing to ask for. */
	rc = uet_tss_replay_check(&s->win, h.tsc);
	if (rc) {
		if (rc == -EALREADY)
			ep->st.rx_replay++;
		else
			ep->st.rx_stale++;
		return rc;
	}
	if (want > len - (size_t)hl)
		want = len - (size_t)hl;
	if (rx_begin(s, p, in, (int)hl, &h) ||
	    uet_tss_update(s->aead, out, in + hl, want))
		return -EIO;
	ep->st.rx_trimmed++;
	return (ssize_t)want;
}
