// SPDX-License-Identifier: BSD-2-Clause
/*
 * The endpoint object: two endpoints of one SD exchange sealed packets,
 * and every kind of bad packet is refused with its code and counted.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "tss/uet_tss_ep.h"

#define PL	300	/* plaintext length of the test packets */

struct side {
	struct uet_tss_ep *ep;
	struct uet_tss_sd_keys keys;
	struct uet_tss_src src;
};

struct wire {
	uint8_t buf[PL + UET_TSS_OVERHEAD];
	size_t len;
	uint8_t plain[PL];
	struct uet_tss_pkt pkt;
};

static void mk_keys(struct uet_tss_sd_keys *k, enum uet_tss_mode mode,
		    bool ssi, uint32_t ssi_val, uint16_t epoch)
{
	memset(k, 0, sizeof(*k));
	k->sdi = 0x00abcd;
	k->mode = mode;
	k->tx_an = 0;
	k->have = 1;
	k->use_ssi = ssi;
	k->ssi = ssi_val;
	k->epoch[0] = epoch;
	k->epoch[1] = (uint16_t)(epoch + 100);
	memset(k->key[0], 0x11, UET_TSS_KEY_LEN);
	memset(k->key[1], 0x22, UET_TSS_KEY_LEN);
}

static void mk_side(struct side *s, enum uet_tss_mode mode, bool v6,
		    bool ssi, uint8_t host)
{
	mk_keys(&s->keys, mode, ssi, 0x1000u + host, (uint16_t)(7 * host));
	memset(&s->src, 0, sizeof(s->src));
	s->src.is_v6 = v6;
	if (v6) {
		s->src.addr[0] = 0xfd;
		s->src.addr[15] = host;
	} else {
		s->src.addr[0] = 10;
		s->src.addr[3] = host;
	}
	s->ep = uet_tss_ep_new(&s->keys, &s->src);
	cr_assert_not_null(s->ep);
}

/* Seal a fresh plaintext from |a| to |b| into |w|. */
static void seal(struct side *a, struct side *b, struct wire *w,
		 uint8_t seed)
{
	size_t hl = uet_tss_ep_hdr_len(a->ep);
	ssize_t n;
	size_t i;

	for (i = 0; i < PL; i++)
		w->plain[i] = (uint8_t)(seed + i * 3);
	memcpy(w->buf + hl, w->plain, PL);
	w->pkt = (struct uet_tss_pkt){ .is_v6 = a->src.is_v6,
		.saddr = a->src.addr, .daddr = b->src.addr,
		.sport = 0xc000 | seed, .dport = 4793 };
	n = uet_tss_ep_seal(a->ep, &w->pkt, w->buf, PL);
	cr_assert_eq(n, (ssize_t)(hl + PL + UET_TSS_ICV_LEN));
	w->len = (size_t)n;
	cr_assert_neq(memcmp(w->buf + hl, w->plain, 32), 0, "not encrypted");
}

static ssize_t open_w(struct side *b, const struct wire *w)
{
	uint8_t out[sizeof(w->buf)];
	ssize_t n = uet_tss_ep_open(b->ep, &w->pkt, w->buf, w->len, out);

	if (n >= 0) {
		cr_assert_eq(n, PL);
		cr_assert_arr_eq(out, w->plain, PL);
	}
	return n;
}

static void exchange(enum uet_tss_mode mode, bool v6, bool ssi)
{
	struct side a, b;
	struct wire w;
	int i;

	mk_side(&a, mode, v6, ssi, 1);
	mk_side(&b, mode, v6, ssi, 2);
	for (i = 0; i < 20; i++) {
		seal(&a, &b, &w, (uint8_t)i);
		cr_assert_eq(open_w(&b, &w), PL, "a->b %d", i);
		seal(&b, &a, &w, (uint8_t)(i + 50));
		cr_assert_eq(open_w(&a, &w), PL, "b->a %d", i);
	}
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_opened, 20);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_streams, 1);
	cr_assert_eq(uet_tss_ep_stats(a.ep)->tx_sealed, 20);
	uet_tss_ep_free(a.ep);
	uet_tss_ep_free(b.ep);
}

Test(tss_ep, exchange_all_modes)
{
	int m, v6, ssi;

	for (m = UET_TSS_DIRECT; m <= UET_TSS_CLUSTER; m++)
		for (v6 = 0; v6 < 2; v6++)
			for (ssi = 0; ssi < 2; ssi++)
				exchange(m, v6, ssi);
}

Test(tss_ep, new_rejects)
{
	struct uet_tss_sd_keys k;
	struct uet_tss_src s = { 0 };

	mk_keys(&k, UET_TSS_CLUSTER, false, 0, 1);
	k.mode = 7;
	cr_assert_null(uet_tss_ep_new(&k, &s));
	cr_assert_eq(errno, EINVAL);
	k.mode = UET_TSS_DIRECT;
	k.tx_an = 1;			/* no key in AN 1 */
	cr_assert_null(uet_tss_ep_new(&k, &s));
	cr_assert_eq(errno, EINVAL);
}

static void tamper_case(bool v6, bool ssi)
{
	struct side a, b;
	struct wire w, t;
	const struct uet_tss_ep_stats *st;
	uint8_t addr[16];
	uint64_t bad = 0;
	size_t i;

	mk_side(&a, UET_TSS_CLUSTER, v6, ssi, 1);
	mk_side(&b, UET_TSS_CLUSTER, v6, ssi, 2);
	st = uet_tss_ep_stats(b.ep);
	seal(&a, &b, &w, 9);
	/* Every byte of the UDP payload: header, ciphertext, ICV. */
	for (i = 0; i < w.len; i++) {
		t = w;
		if (i == 0) {
			/* the reserved bit: malformed, not an ICV failure */
			t.buf[i] ^= 0x02;
			cr_assert_eq(open_w(&b, &t), -EBADMSG);
			t.buf[i] ^= 0x03;	/* AN 1: no key */
			cr_assert_eq(open_w(&b, &t), -ENOKEY);
			continue;
		}
		t.buf[i] ^= 0x04;
		cr_assert_eq(open_w(&b, &t), i < 4 ? -EXDEV : -EBADMSG,
			     "byte %zu", i);
		bad += i >= 4;
	}
	/* The AAD: addresses and ports. */
	t = w;
	memcpy(addr, a.src.addr, 16);
	addr[v6 ? 15 : 3] ^= 1;
	t.pkt.saddr = addr;
	cr_assert_eq(open_w(&b, &t), -EBADMSG);
	t = w;
	t.pkt.daddr = addr;
	cr_assert_eq(open_w(&b, &t), -EBADMSG);
	t = w;
	t.pkt.sport ^= 1;
	cr_assert_eq(open_w(&b, &t), -EBADMSG);
	t = w;
	t.pkt.dport ^= 0x100;
	cr_assert_eq(open_w(&b, &t), -EBADMSG);
	bad += 4;
	cr_assert_eq(st->rx_bad_icv, bad);
	cr_assert_eq(st->rx_malformed, 1);
	cr_assert_eq(st->rx_other_sd, 3);
	cr_assert_eq(st->rx_streams, 0, "a forgery made a stream");
	/* The genuine packet still opens, once. */
	cr_assert_eq(open_w(&b, &w), PL);
	cr_assert_eq(open_w(&b, &w), -EALREADY);
	cr_assert_eq(st->rx_replay, 1);
	/* A tampered packet of a known stream: refused, nothing recorded. */
	seal(&a, &b, &w, 10);
	t = w;
	t.buf[w.len - 1] ^= 0x80;
	cr_assert_eq(open_w(&b, &t), -EBADMSG);
	cr_assert_eq(open_w(&b, &w), PL);
	/* Cut short. */
	cr_assert_eq(uet_tss_ep_open(b.ep, &w.pkt, w.buf, 11, t.buf),
		     -EBADMSG);
	cr_assert_eq(uet_tss_ep_open(b.ep, &w.pkt, w.buf,
				     uet_tss_ep_hdr_len(a.ep) + 15, t.buf),
		     -EBADMSG);
	cr_assert_eq(st->rx_malformed, 3);
	uet_tss_ep_free(a.ep);
	uet_tss_ep_free(b.ep);
}

Test(tss_ep, tampering_v4)
{
	tamper_case(false, false);
	tamper_case(false, true);
}

Test(tss_ep, tampering_v6)
{
	tamper_case(true, false);
	tamper_case(true, true);
}

Test(tss_ep, other_sd_key_an)
{
	struct side a, b, c;
	struct wire w;

	mk_side(&a, UET_TSS_CLUSTER, false, false, 1);
	mk_side(&b, UET_TSS_CLUSTER, false, false, 2);
	/* Another SDI. */
	mk_side(&c, UET_TSS_CLUSTER, false, false, 3);
	c.keys.sdi = 0x00abce;
	cr_assert_eq(uet_tss_ep_set_keys(c.ep, &c.keys), 0);
	seal(&c, &b, &w, 1);
	cr_assert_eq(open_w(&b, &w), -EXDEV);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_other_sd, 1);
	/* Another key of the same SDI. */
	c.keys.sdi = a.keys.sdi;
	c.keys.key[0][5] ^= 1;
	cr_assert_eq(uet_tss_ep_set_keys(c.ep, &c.keys), 0);
	seal(&c, &b, &w, 2);
	cr_assert_eq(open_w(&b, &w), -EBADMSG);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_bad_icv, 1);
	/* An AN b holds no key for. */
	a.keys.have = 3;
	a.keys.tx_an = 1;
	cr_assert_eq(uet_tss_ep_set_keys(a.ep, &a.keys), 0);
	seal(&a, &b, &w, 3);
	cr_assert_eq(open_w(&b, &w), -ENOKEY);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_no_key, 1);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_opened, 0);
	uet_tss_ep_free(a.ep);
	uet_tss_ep_free(b.ep);
	uet_tss_ep_free(c.ep);
}

Test(tss_ep, replay_and_stale)
{
	static struct wire w[UET_TSS_REPLAY_WIN + 2];
	struct side a, b;
	int i;

	mk_side(&a, UET_TSS_DIRECT, false, true, 1);
	mk_side(&b, UET_TSS_DIRECT, false, true, 2);
	for (i = 0; i < UET_TSS_REPLAY_WIN + 2; i++)
		seal(&a, &b, &w[i], (uint8_t)i);
	cr_assert_eq(open_w(&b, &w[UET_TSS_REPLAY_WIN + 1]), PL);
	cr_assert_eq(open_w(&b, &w[0]), -ESTALE);
	cr_assert_eq(open_w(&b, &w[1]), -ESTALE);
	cr_assert_eq(open_w(&b, &w[2]), PL);	/* reordered, in the window */
	cr_assert_eq(open_w(&b, &w[2]), -EALREADY);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_stale, 2);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_replay, 1);
	uet_tss_ep_free(a.ep);
	uet_tss_ep_free(b.ep);
}

static uint64_t tsc_of(const struct wire *w)
{
	struct uet_tss_hdr h;

	cr_assert_gt(uet_tss_hdr_decode(&h, w->buf, w->len), 0);
	return h.tsc;
}

Test(tss_ep, rotation)
{
	struct wire old0, old1, w;
	struct side a, b;

	mk_side(&a, UET_TSS_CLUSTER, false, false, 1);
	mk_side(&b, UET_TSS_CLUSTER, false, false, 2);
	seal(&a, &b, &w, 1);
	cr_assert_eq(open_w(&b, &w), PL);
	seal(&a, &b, &old0, 2);		/* in flight across the rotation */
	seal(&a, &b, &old1, 3);
	/* A new key in AN 1; both send with it. */
	a.keys.have = b.keys.have = 3;
	a.keys.tx_an = b.keys.tx_an = 1;
	cr_assert_eq(uet_tss_ep_set_keys(a.ep, &a.keys), 0);
	cr_assert_eq(uet_tss_ep_set_keys(b.ep, &b.keys), 0);
	cr_assert_eq(open_w(&b, &old1), PL);	/* the AN 0 stream kept */
	seal(&a, &b, &w, 4);
	cr_assert_eq(tsc_of(&w), 0);
	cr_assert_eq(open_w(&b, &w), PL);
	seal(&b, &a, &w, 5);
	cr_assert_eq(open_w(&a, &w), PL);
	cr_assert_eq(open_w(&b, &old0), PL);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_streams, 2);
	/* Back to AN 0 (same key, same epoch): its TSC goes on. */
	a.keys.tx_an = 0;
	cr_assert_eq(uet_tss_ep_set_keys(a.ep, &a.keys), 0);
	seal(&a, &b, &w, 6);
	cr_assert_eq(tsc_of(&w), 3);
	cr_assert_eq(open_w(&b, &w), PL);
	/* AN 0's key replaced: its streams go, old packets fail. */
	seal(&a, &b, &old0, 7);
	a.keys.tx_an = b.keys.tx_an = 1;
	memset(a.keys.key[0], 0x33, UET_TSS_KEY_LEN);
	memcpy(b.keys.key[0], a.keys.key[0], UET_TSS_KEY_LEN);
	cr_assert_eq(uet_tss_ep_set_keys(a.ep, &a.keys), 0);
	cr_assert_eq(uet_tss_ep_set_keys(b.ep, &b.keys), 0);
	cr_assert_eq(open_w(&b, &old0), -EBADMSG);
	a.keys.tx_an = 0;
	cr_assert_eq(uet_tss_ep_set_keys(a.ep, &a.keys), 0);
	seal(&a, &b, &w, 8);
	cr_assert_eq(tsc_of(&w), 0);	/* a new key: a new stream */
	cr_assert_eq(open_w(&b, &w), PL);
	/* Bad keys are refused and change nothing. */
	a.keys.mode = 0;
	cr_assert_eq(uet_tss_ep_set_keys(a.ep, &a.keys), -EINVAL);
	uet_tss_ep_free(a.ep);
	uet_tss_ep_free(b.ep);
}

Test(tss_ep, peek)
{
	uint8_t out[64];
	struct side a, b;
	struct wire w;
	size_t hl;

	mk_side(&a, UET_TSS_CLUSTER, true, false, 1);
	mk_side(&b, UET_TSS_CLUSTER, true, false, 2);
	hl = uet_tss_ep_hdr_len(a.ep);
	seal(&a, &b, &w, 1);
	cr_assert_eq(uet_tss_ep_peek(b.ep, &w.pkt, w.buf, w.len, out, 40), 40);
	cr_assert_arr_eq(out, w.plain, 40);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_streams, 0);
	cr_assert_eq(open_w(&b, &w), PL);	/* peek committed nothing */
	cr_assert_eq(uet_tss_ep_peek(b.ep, &w.pkt, w.buf, w.len, out, 40), 40);
	cr_assert_arr_eq(out, w.plain, 40);
	/* More than there is: the whole plaintext. */
	seal(&a, &b, &w, 2);
	cr_assert_eq(uet_tss_ep_peek(b.ep, &w.pkt, w.buf, hl + 16 + 20, out,
				     64), 20);
	cr_assert_eq(open_w(&b, &w), PL);
	cr_assert_eq(uet_tss_ep_peek(b.ep, &w.pkt, w.buf, 5, out, 8),
		     -EBADMSG);
	uet_tss_ep_free(a.ep);
	uet_tss_ep_free(b.ep);
}

Test(tss_ep, eviction)
{
	struct side a[70], b;
	struct wire w;
	int i;

	mk_side(&b, UET_TSS_CLUSTER, false, false, 200);
	for (i = 0; i < 70; i++) {
		mk_side(&a[i], UET_TSS_CLUSTER, false, false, (uint8_t)i);
		seal(&a[i], &b, &w, (uint8_t)i);
		cr_assert_eq(open_w(&b, &w), PL);
	}
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_streams, 70);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_evicted, 6);
	/* The evicted (oldest) come back as new streams. */
	seal(&a[0], &b, &w, 1);
	cr_assert_eq(open_w(&b, &w), PL);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_evicted, 7);
	/* A recent one is still known: its replay is caught. */
	cr_assert_eq(open_w(&b, &w), -EALREADY);
	for (i = 0; i < 70; i++)
		uet_tss_ep_free(a[i].ep);
	uet_tss_ep_free(b.ep);
}

/*
 * Replay with many more senders than the table holds (issue 40): 1200
 * streams to one receiver, each sending 3 packets, kept; every kept packet
 * sent again, the oldest streams' first: none accepted (the evicted ones
 * meet their floor, the others their window), and each stream's next
 * packet still opens.
 */
#define MANY	1200

Test(tss_ep, replay_with_1200_streams, .timeout = 60)
{
	static struct side a[MANY];
	static struct wire w[MANY][3];
	struct side b;
	struct wire next;
	uint64_t accepted = 0;
	const struct uet_tss_ep_stats *st;

	mk_side(&b, UET_TSS_CLUSTER, false, true, 250);
	for (int i = 0; i < MANY; i++) {
		/* A sender each: its own SSI, epoch and address. */
		mk_keys(&a[i].keys, UET_TSS_CLUSTER, true, 0x20000u + i,
			(uint16_t)i);
		memset(&a[i].src, 0, sizeof(a[i].src));
		a[i].src.addr[0] = 10;
		a[i].src.addr[2] = (uint8_t)(i >> 8);
		a[i].src.addr[3] = (uint8_t)i;
		a[i].ep = uet_tss_ep_new(&a[i].keys, &a[i].src);
		cr_assert_not_null(a[i].ep);
		for (int k = 0; k < 3; k++) {
			seal(&a[i], &b, &w[i][k], (uint8_t)(i + k));
			cr_assert_eq(open_w(&b, &w[i][k]), PL, "%d/%d", i, k);
		}
	}
	st = uet_tss_ep_stats(b.ep);
	cr_assert_eq(st->rx_streams, MANY);
	cr_assert_eq(st->rx_evicted, MANY - 64);
	for (int i = 0; i < MANY; i++)
		for (int k = 0; k < 3; k++)
			accepted += open_w(&b, &w[i][k]) >= 0;
	cr_assert_eq(accepted, 0, "%llu replayed packets accepted",
		     (unsigned long long)accepted);
	cr_assert_geq(st->rx_floored, 1);
	cr_assert_eq(st->rx_replay + st->rx_stale, 3 * MANY);
	/* Senders go on: a fresh packet of every stream opens. */
	for (int i = 0; i < MANY; i++) {
		seal(&a[i], &b, &next, (uint8_t)(i + 9));
		cr_assert_eq(open_w(&b, &next), PL, "stream %d goes on", i);
		cr_assert_eq(open_w(&b, &next), -EALREADY);
	}
	cr_assert_eq(st->rx_no_room, 0);
	for (int i = 0; i < MANY; i++)
		uet_tss_ep_free(a[i].ep);
	uet_tss_ep_free(b.ep);
}

/* A key rotation forgets the floors under the key that changed. */
Test(tss_ep, floors_go_with_their_key)
{
	struct side a[70], b;
	struct wire w;

	mk_side(&b, UET_TSS_CLUSTER, false, false, 200);
	for (int i = 0; i < 70; i++) {
		mk_side(&a[i], UET_TSS_CLUSTER, false, false, (uint8_t)i);
		seal(&a[i], &b, &w, (uint8_t)i);
		cr_assert_eq(open_w(&b, &w), PL);
	}
	/* a[0] evicted: its first packet again meets its floor. */
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_evicted, 6);
	memset(b.keys.key[0], 0x33, UET_TSS_KEY_LEN);
	cr_assert_eq(uet_tss_ep_set_keys(b.ep, &b.keys), 0);
	memset(a[0].keys.key[0], 0x33, UET_TSS_KEY_LEN);
	cr_assert_eq(uet_tss_ep_set_keys(a[0].ep, &a[0].keys), 0);
	/* New key, TSC from 0 again: no old floor refuses it. */
	seal(&a[0], &b, &w, 1);
	cr_assert_eq(open_w(&b, &w), PL);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_floored, 0);
	for (int i = 0; i < 70; i++)
		uet_tss_ep_free(a[i].ep);
	uet_tss_ep_free(b.ep);
}

/*
 * A trimmed packet (ICV and payload cut): its first bytes are read for a
 * known stream and a TSC not seen, without recording it (the whole packet
 * still opens); a replayed TSC, an unknown stream, another SD refused.
 */
Test(tss_ep, trimmed_headers)
{
	struct side a, b, c;
	struct wire w, w2;
	uint8_t out[64];
	size_t hl, cut;

	mk_side(&a, UET_TSS_CLUSTER, false, true, 1);
	mk_side(&b, UET_TSS_CLUSTER, false, true, 2);
	mk_side(&c, UET_TSS_CLUSTER, false, true, 3);
	hl = uet_tss_ep_hdr_len(a.ep);
	cut = hl + 48;		/* 64 bytes of UDP payload kept */
	seal(&a, &b, &w, 1);
	/* No stream yet: nothing read (no key derived for it either). */
	cr_assert_eq(uet_tss_ep_open_trimmed(b.ep, &w.pkt, w.buf, cut, out,
					     40), -ENOKEY);
	cr_assert_eq(open_w(&b, &w), PL);
	seal(&a, &b, &w2, 2);
	cr_assert_eq(uet_tss_ep_open_trimmed(b.ep, &w2.pkt, w2.buf, cut, out,
					     40), 40);
	cr_assert_arr_eq(out, w2.plain, 40);
	/* Less left than asked: what there is. */
	cr_assert_eq(uet_tss_ep_open_trimmed(b.ep, &w2.pkt, w2.buf, hl + 10,
					     out, 40), 10);
	/* Not recorded: the whole packet still opens, then is a replay. */
	cr_assert_eq(open_w(&b, &w2), PL);
	cr_assert_eq(uet_tss_ep_open_trimmed(b.ep, &w2.pkt, w2.buf, cut, out,
					     40), -EALREADY);
	cr_assert_eq(uet_tss_ep_open_trimmed(b.ep, &w.pkt, w.buf, cut, out,
					     40), -EALREADY);
	/* Another sender's stream: unknown. */
	seal(&c, &b, &w, 3);
	cr_assert_eq(uet_tss_ep_open_trimmed(b.ep, &w.pkt, w.buf, cut, out,
					     40), -ENOKEY);
	cr_assert_eq(uet_tss_ep_open_trimmed(b.ep, &w.pkt, w.buf, hl, out,
					     40), -EBADMSG);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_trimmed, 2);
	cr_assert_eq(uet_tss_ep_stats(b.ep)->rx_trim_unknown, 2);
	uet_tss_ep_free(a.ep);
	uet_tss_ep_free(b.ep);
	uet_tss_ep_free(c.ep);
}

/*
 * The keystream made ahead (uet_tss_keystream, for the XDP program): the
 * first 16 bytes of every packet of a stream, ciphertext XOR plaintext,
 * from one call for all of them, given the first packet's IV only.
 */
static void keystream_ahead(enum uet_tss_mode mode, bool v6, bool ssi)
{
	enum { N = 70 };
	static uint8_t ks[N][16];
	struct uet_tss_keymat km, plain_km = { 0 };
	uint8_t iv[UET_TSS_IV_LEN];
	struct uet_tss_hdr h;
	struct side a, b;
	struct wire w;
	size_t hl;

	mk_side(&a, mode, v6, ssi, 1);
	mk_side(&b, mode, v6, ssi, 2);
	hl = uet_tss_ep_hdr_len(a.ep);
	for (int i = 0; i < N; i++) {
		seal(&a, &b, &w, (uint8_t)i);
		cr_assert_gt(uet_tss_hdr_decode(&h, w.buf, w.len), 0);
		if (i == 0) {
			cr_assert_eq(uet_tss_derive(&km, mode, a.keys.key[0],
						    &h, &a.src, 0), 0);
			uet_tss_iv(iv, &plain_km, &h, &a.src);
			cr_assert_eq(uet_tss_keystream(ks, N, &km, iv), 0);
		}
		for (int j = 0; j < 16; j++)
			cr_assert_eq(ks[i][j], w.buf[hl + j] ^ w.plain[j],
				     "packet %d byte %d", i, j);
	}
	cr_assert_eq(uet_tss_keystream(ks, 0, &km, iv), -EINVAL);
	cr_assert_eq(uet_tss_keystream(ks, UET_TSS_KS_MAX + 1, &km, iv),
		     -EINVAL);
	uet_tss_ep_free(a.ep);
	uet_tss_ep_free(b.ep);
}

Test(tss_ep, keystream_ahead_all_modes)
{
	for (int m = 0; m < 2; m++)
		for (int v6 = 0; v6 < 2; v6++)
			for (int ssi = 0; ssi < 2; ssi++)
				keystream_ahead(m ? UET_TSS_CLUSTER :
						UET_TSS_DIRECT, v6, ssi);
}
