// SPDX-License-Identifier: BSD-2-Clause
/*
 * AES-256-GCM through the TSS wrappers against the 256-bit-key test cases
 * of McGrew and Viega, "The Galois/Counter Mode of Operation" (test cases
 * 13 to 16: those with a 96-bit IV), tampering, streaming; and the KDF
 * against SP 800-108 computed here from its definition with EVP_MAC.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "tss/uet_tss.h"

static size_t unhex(uint8_t *out, const char *s)
{
	size_t n = 0;
	unsigned int v;

	while (s[0] && s[1]) {
		sscanf(s, "%2x", &v);
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

struct gcm_vec {
	const char *name, *k, *p, *a, *iv, *c, *t;
};

#define Z16 "00000000000000000000000000000000"
#define Z32 Z16 Z16
#define K15 "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
#define P15 "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72" \
	    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
#define C15 "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa" \
	    "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"

static const struct gcm_vec vecs[] = {
	{ "13", Z32,
	  "", "", "000000000000000000000000", "",
	  "530f8afbc74536b9a963b4f1c4cb738b" },
	{ "14", Z32,
	  "00000000000000000000000000000000", "", "000000000000000000000000",
	  "cea7403d4d606b6e074ec5d3baf39d18",
	  "d0d1c8a799996bf0265b98b5d48ab919" },
	{ "15", K15, P15 "1aafd255", "", "cafebabefacedbaddecaf888",
	  C15 "898015ad", "b094dac5d93471bdec1a502270e3cc6c" },
	{ "16", K15, P15, "feedfacedeadbeeffeedfacedeadbeefabaddad2",
	  "cafebabefacedbaddecaf888", C15,
	  "76fc6ece0f4e1768cddf8853bb2d551b" },
};

struct gcm_bufs {
	uint8_t k[32], p[64], a[32], iv[12], c[64], t[16], out[64], tag[16];
	size_t pl, al;
};

static struct uet_tss_aead *load(const struct gcm_vec *v, struct gcm_bufs *b)
{
	struct uet_tss_aead *a;

	memset(b, 0, sizeof(*b));
	unhex(b->k, v->k);
	b->pl = unhex(b->p, v->p);
	b->al = unhex(b->a, v->a);
	unhex(b->iv, v->iv);
	cr_assert_eq(unhex(b->c, v->c), b->pl);
	unhex(b->t, v->t);
	a = uet_tss_aead_new(b->k);
	cr_assert_not_null(a);
	return a;
}

Test(tss_gcm, spec_vectors_seal_open)
{
	struct gcm_bufs b;
	size_t i;

	for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		struct uet_tss_aead *a = load(&vecs[i], &b);

		cr_assert_eq(uet_tss_seal(a, b.iv, b.a, b.al, b.out, b.p,
					  b.pl, b.tag), 0);
		cr_assert_arr_eq(b.out, b.c, b.pl, "case %s: C", vecs[i].name);
		cr_assert_arr_eq(b.tag, b.t, 16, "case %s: T", vecs[i].name);
		memset(b.out, 0, sizeof(b.out));
		cr_assert_eq(uet_tss_open(a, b.iv, b.a, b.al, b.out, b.c,
					  b.pl, b.t), 0, "case %s",
			     vecs[i].name);
		cr_assert_arr_eq(b.out, b.p, b.pl, "case %s: P", vecs[i].name);
		uet_tss_aead_free(a);
	}
}

Test(tss_gcm, tampering_is_refused)
{
	struct gcm_bufs b;
	struct uet_tss_aead *a = load(&vecs[3], &b);	/* has AAD */
	size_t i;

	for (i = 0; i < b.pl; i += 7) {
		b.c[i] ^= 0x01;
		cr_assert_eq(uet_tss_open(a, b.iv, b.a, b.al, b.out, b.c,
					  b.pl, b.t), -EBADMSG, "C[%zu]", i);
		b.c[i] ^= 0x01;
	}
	for (i = 0; i < b.al; i++) {
		b.a[i] ^= 0x80;
		cr_assert_eq(uet_tss_open(a, b.iv, b.a, b.al, b.out, b.c,
					  b.pl, b.t), -EBADMSG, "A[%zu]", i);
		b.a[i] ^= 0x80;
	}
	for (i = 0; i < 16; i++) {
		b.t[i] ^= 0x10;
		cr_assert_eq(uet_tss_open(a, b.iv, b.a, b.al, b.out, b.c,
					  b.pl, b.t), -EBADMSG, "T[%zu]", i);
		b.t[i] ^= 0x10;
	}
	b.iv[11] ^= 1;
	cr_assert_eq(uet_tss_open(a, b.iv, b.a, b.al, b.out, b.c, b.pl, b.t),
		     -EBADMSG);
	b.iv[11] ^= 1;
	/* Shorter AAD, and the context still works after the failures. */
	cr_assert_eq(uet_tss_open(a, b.iv, b.a, b.al - 1, b.out, b.c, b.pl,
				  b.t), -EBADMSG);
	cr_assert_eq(uet_tss_open(a, b.iv, b.a, b.al, b.out, b.c, b.pl, b.t),
		     0);
	uet_tss_aead_free(a);
}

Test(tss_gcm, streaming_equals_one_shot)
{
	static const size_t cuts[] = { 1, 3, 15, 16, 17, 5, 31, 64, 2, 1000 };
	uint8_t key[32], iv[12], aad[40], in[3001], one[3001], str[3001];
	uint8_t back[3001], t1[16], t2[16];
	struct uet_tss_aead *a;
	size_t i, off, n;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 131 + 7);
	memset(key, 0x5a, sizeof(key));
	memset(iv, 0xa5, sizeof(iv));
	memset(aad, 0x33, sizeof(aad));
	a = uet_tss_aead_new(key);
	cr_assert_not_null(a);
	cr_assert_eq(uet_tss_seal(a, iv, aad, sizeof(aad), one, in,
				  sizeof(in), t1), 0);
	cr_assert_eq(uet_tss_seal_begin(a, iv, aad, sizeof(aad)), 0);
	for (off = 0, i = 0; off < sizeof(in); off += n, i++) {
		n = cuts[i % 10];
		if (n > sizeof(in) - off)
			n = sizeof(in) - off;
		cr_assert_eq(uet_tss_update(a, str + off, in + off, n), 0);
	}
	cr_assert_eq(uet_tss_seal_final(a, t2), 0);
	cr_assert_arr_eq(one, str, sizeof(in));
	cr_assert_arr_eq(t1, t2, 16);
	/* Open in place, in other pieces. */
	memcpy(back, str, sizeof(back));
	cr_assert_eq(uet_tss_open_begin(a, iv, aad, sizeof(aad)), 0);
	for (off = 0, i = 3; off < sizeof(in); off += n, i++) {
		n = cuts[i % 10];
		if (n > sizeof(in) - off)
			n = sizeof(in) - off;
		cr_assert_eq(uet_tss_update(a, back + off, back + off, n), 0);
	}
	cr_assert_eq(uet_tss_open_final(a, t1), 0);
	cr_assert_arr_eq(back, in, sizeof(in));
	uet_tss_aead_free(a);
}

/* ---- KDF ---------------------------------------------------------------- */

/*
 * SP 800-108 counter mode with CMAC over |cipher| (|kl|-byte key) and an
 * |rl|-byte counter before the fixed input, given whole.
 */
static void sp800_108_r(uint8_t *out, size_t len, const char *cipher,
			const uint8_t *key, size_t kl, unsigned int rl,
			const uint8_t *fixed, size_t fl)
{
	OSSL_PARAM prm[2] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER,
						 (char *)cipher, 0),
		OSSL_PARAM_construct_end(),
	};
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "CMAC", NULL);
	uint8_t msg[96], blk[16];
	size_t done = 0, got;
	uint32_t i = 1;
	EVP_MAC_CTX *c;
	unsigned int k;

	cr_assert_not_null(mac);
	cr_assert_leq(fl + rl, sizeof(msg));
	memcpy(msg + rl, fixed, fl);
	for (; done < len; i++) {
		for (k = 0; k < rl; k++)
			msg[k] = (uint8_t)(i >> (8 * (rl - 1 - k)));
		c = EVP_MAC_CTX_new(mac);
		cr_assert(EVP_MAC_init(c, key, kl, prm));
		cr_assert(EVP_MAC_update(c, msg, fl + rl));
		cr_assert(EVP_MAC_final(c, blk, &got, sizeof(blk)));
		EVP_MAC_CTX_free(c);
		got = len - done < 16 ? len - done : 16;
		memcpy(out + done, blk, got);
		done += got;
	}
	EVP_MAC_free(mac);
}

/* What TSS uses: CMAC-AES-256, an 8-bit counter. */
static void sp800_108(uint8_t *out, size_t len, const uint8_t *key,
		      const uint8_t *fixed, size_t fl)
{
	sp800_108_r(out, len, "AES-256-CBC", key, 32, 1, fixed, fl);
}

/* OpenSSL's AES-256-GCM, a reference independent of the library used. */
static void evp_seal(const uint8_t *key, const uint8_t *iv,
		     const uint8_t *aad, size_t aad_len, uint8_t *out,
		     const uint8_t *in, size_t len, uint8_t tag[16])
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n;

	cr_assert(c && EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, key,
					  iv));
	cr_assert(EVP_EncryptUpdate(c, NULL, &n, aad, (int)aad_len));
	cr_assert(EVP_EncryptUpdate(c, out, &n, in, (int)len));
	cr_assert(EVP_EncryptFinal_ex(c, out + len, &n));
	cr_assert(EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag));
	EVP_CIPHER_CTX_free(c);
}

/*
 * The calls of uet_tss_gcm.c (a whole text in one call, the same in
 * pieces of odd lengths, in place too) agree with each other and with
 * OpenSSL at every length to 300 and then at jumbo-frame ones, and each
 * opens the other's; a flipped tag byte is refused by both.
 */
#define GCM_MAXLEN 9100
Test(tss_gcm, whole_pieces_and_openssl_agree)
{
	static uint8_t in[GCM_MAXLEN], one[GCM_MAXLEN], str[GCM_MAXLEN],
		       back[GCM_MAXLEN], ref[GCM_MAXLEN + 16];
	uint8_t key[32], iv[12], aad[36], t1[16], t2[16];
	struct uet_tss_aead *a;
	size_t i, n, len, cut;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 37 + 11);
	memset(key, 0x6b, sizeof(key));
	memset(aad, 0x44, sizeof(aad));
	a = uet_tss_aead_new(key);
	cr_assert_not_null(a);
	for (len = 0; len <= sizeof(in); len += len < 300 ? 1 : 397) {
		memset(iv, (int)len, sizeof(iv));
		cr_assert_eq(uet_tss_seal(a, iv, aad, sizeof(aad), one, in,
					  len, t1), 0);
		evp_seal(key, iv, aad, sizeof(aad), ref, in, len, t2);
		cr_assert_arr_eq(one, ref, len, "openssl, length %zu", len);
		cr_assert_arr_eq(t1, t2, 16, "openssl, length %zu", len);
		/* pieces of 1, then of 17 up to a cut, then the rest */
		cut = len / 3;
		cr_assert_eq(uet_tss_seal_begin(a, iv, aad, sizeof(aad)), 0);
		for (i = 0; i < cut; i += n) {
			n = i ? 17 : 1;
			if (n > cut - i)
				n = cut - i;
			cr_assert_eq(uet_tss_update(a, str + i, in + i, n), 0);
		}
		cr_assert_eq(uet_tss_update(a, str + cut, in + cut,
					    len - cut), 0);
		cr_assert_eq(uet_tss_seal_final(a, t2), 0);
		cr_assert_arr_eq(one, str, len, "length %zu", len);
		cr_assert_arr_eq(t1, t2, 16, "length %zu", len);
		memcpy(back, in, len);
		cr_assert_eq(uet_tss_seal(a, iv, aad, sizeof(aad), back, back,
					  len, t2), 0);
		cr_assert_arr_eq(back, one, len, "in place, length %zu", len);
		cr_assert_arr_eq(t1, t2, 16, "in place, length %zu", len);
		cr_assert_eq(uet_tss_open(a, iv, aad, sizeof(aad), back, str,
					  len, t1), 0, "length %zu", len);
		cr_assert_arr_eq(back, in, len);
		memcpy(back, one, len);
		cr_assert_eq(uet_tss_open(a, iv, aad, sizeof(aad), back, back,
					  len, t1), 0, "in place, length %zu",
			     len);
		cr_assert_arr_eq(back, in, len);
		cr_assert_eq(uet_tss_open_begin(a, iv, aad, sizeof(aad)), 0);
		cr_assert_eq(uet_tss_update(a, back, one, cut), 0);
		cr_assert_eq(uet_tss_update(a, back + cut, one + cut,
					    len - cut), 0);
		cr_assert_eq(uet_tss_open_final(a, t1), 0);
		cr_assert_arr_eq(back, in, len);
		t1[len % 16] ^= 4;
		cr_assert_eq(uet_tss_open(a, iv, aad, sizeof(aad), back, one,
					  len, t1), -EBADMSG, "length %zu", len);
		cr_assert_eq(uet_tss_open_begin(a, iv, aad, sizeof(aad)), 0);
		cr_assert_eq(uet_tss_update(a, back, one, len), 0);
		cr_assert_eq(uet_tss_open_final(a, t1), -EBADMSG);
	}
	uet_tss_aead_free(a);
}

/* A context seals and opens with no AAD, and opens what a twin sealed. */
Test(tss_gcm, no_aad_and_two_contexts)
{
	uint8_t key[32], iv[12] = { 9 }, in[64], out[64], back[64], t[16],
		t2[16], ref[80];
	struct uet_tss_aead *a, *b;

	memset(key, 0x21, sizeof(key));
	memset(in, 0x5a, sizeof(in));
	a = uet_tss_aead_new(key);
	b = uet_tss_aead_new(key);
	cr_assert(a && b);
	cr_assert_eq(uet_tss_seal(a, iv, NULL, 0, out, in, sizeof(in), t), 0);
	evp_seal(key, iv, (const uint8_t *)"", 0, ref, in, sizeof(in), t2);
	cr_assert_arr_eq(out, ref, sizeof(in));
	cr_assert_arr_eq(t, t2, 16);
	cr_assert_eq(uet_tss_open(b, iv, NULL, 0, back, out, sizeof(in), t),
		     0);
	cr_assert_arr_eq(back, in, sizeof(in));
	uet_tss_aead_free(a);
	uet_tss_aead_free(b);
}

/*
 * The reference loop above against NIST CAVP KDFCTR vectors (counter
 * before the fixed input): the 8-bit counter with CMAC-AES-128, and
 * CMAC-AES-256 with a 32-bit counter (no CAVP vector of this pair with
 * RLEN=8 was at hand); uet_tss_derive is then held to the loop below.
 */
Test(tss_kdf, reference_loop_vs_cavp)
{
	uint8_t ki[32], fixed[60], ko[16], out[16];

	unhex(ki, "dff1e50ac0b69dc40f1051d46c2b069c");
	cr_assert_eq(unhex(fixed, "c16e6e02c5a3dcc8d78b9ac1306877761310455b"
			   "4e41469951d9e6c2245a064b33fd8c3b01203a78"
			   "24485bf0a64060c4648b707d2607935699316ea5"), 60);
	unhex(ko, "8be8f0869b3c0ba97b71863d1b9f7813");
	sp800_108_r(out, 16, "AES-128-CBC", ki, 16, 1, fixed, 60);
	cr_assert_arr_eq(out, ko, 16, "CMAC_AES128 RLEN=8");

	unhex(ki, "d0b1b3b70b2393c48ca05159e7e28cbe"
		  "adea93f28a7cdae964e5136070c45d5c");
	cr_assert_eq(unhex(fixed, "dd2f151a3f173492a6fbbb602189d51ddf8ef79f"
			   "c8e96b8fcbe6dabe73a35b48104f9dff2d63d487"
			   "86d2b3af177091d646a9efae005bdfacb61a1214"), 60);
	unhex(ko, "8c449fb474d1c1d4d2a33827103b656a");
	sp800_108_r(out, 16, "AES-256-CBC", ki, 32, 4, fixed, 60);
	cr_assert_arr_eq(out, ko, 16, "CMAC_AES256 RLEN=32");
}

static void check_kdf(const struct uet_tss_hdr *h,
		      const struct uet_tss_src *src, uint32_t rekey,
		      const char *fixed_hex)
{
	uint8_t sdk[32], fixed[64], want[44];
	struct uet_tss_keymat km;
	size_t fl, i;

	for (i = 0; i < 32; i++)
		sdk[i] = (uint8_t)(0xc0 + i);
	fl = unhex(fixed, fixed_hex);
	sp800_108(want, sizeof(want), sdk, fixed, fl);
	cr_assert_eq(uet_tss_derive(&km, UET_TSS_CLUSTER, sdk, h, src, rekey),
		     0);
	cr_assert_arr_eq(km.key, want, 32);
	cr_assert_arr_eq(km.iv_mask, want + 32, 12);
	/* Direct mode: the SD key itself, no mask. */
	cr_assert_eq(uet_tss_derive(&km, UET_TSS_DIRECT, sdk, h, src, rekey),
		     0);
	cr_assert_arr_eq(km.key, sdk, 32);
	for (i = 0; i < 12; i++)
		cr_assert_eq(km.iv_mask[i], 0);
}

Test(tss_kdf, layouts)
{
	struct uet_tss_hdr h = { .sdi = 0x123456, .epoch = 0xbeef };
	struct uet_tss_src v4 = { .addr = { 10, 1, 2, 3 } };
	struct uet_tss_src v6 = { .is_v6 = true, .addr = {
		0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x42 } };

	/* "U1" 00 | epoch | rekey | IPv4 | L = 352 */
	check_kdf(&h, &v4, 0x01020304,
		  "553100" "beef" "01020304" "0a010203" "00000160");
	/* IPv6: 4 zero bytes, epoch, rekey, the address */
	check_kdf(&h, &v6, 7, "553100" "00000000" "beef" "00000007"
		  "fd000000000000000000000000000042" "00000160");
	/* With an SSI the source is the SSI, over IPv4 or IPv6 */
	h.sp = true;
	h.ssi = 0xcafef00d;
	check_kdf(&h, &v4, 0, "553100" "beef" "00000000" "cafef00d"
		  "00000160");
	check_kdf(&h, &v6, 0, "553100" "beef" "00000000" "cafef00d"
		  "00000160");
}

Test(tss_kdf, iv_and_aad)
{
	struct uet_tss_keymat km = { .iv_mask = { 0xff, 0, 0, 0, 0, 0, 0, 0,
						  0, 0, 0, 0x0f } };
	struct uet_tss_hdr h = { .sdi = 0xabcdef, .epoch = 0x0102,
				 .tsc = 0x030405060708 };
	struct uet_tss_src v4 = { .addr = { 192, 168, 1, 2 } };
	struct uet_tss_src v6 = { .is_v6 = true };
	uint8_t iv[12], want[12], aad[UET_TSS_AAD_MAX], hdr[16];
	uint8_t s6[16] = { 1 }, d6[16] = { 2 };
	size_t n;

	uet_tss_iv(iv, &km, &h, &v4);
	unhex(want, "3fa80102" "0102030405060707");
	cr_assert_arr_eq(iv, want, 12);
	uet_tss_iv(iv, &km, &h, &v6);
	unhex(want, "ffabcdef" "0102030405060707");	/* the SDI */
	cr_assert_arr_eq(iv, want, 12);
	h.sp = true;
	h.ssi = 0x11223344;
	uet_tss_iv(iv, &km, &h, &v6);
	unhex(want, "ee223344" "0102030405060707");	/* the SSI */
	cr_assert_arr_eq(iv, want, 12);

	cr_assert_eq(uet_tss_hdr_encode(hdr, sizeof(hdr), &h), 16);
	n = uet_tss_aad(aad, false, v4.addr, (uint8_t[]){ 10, 0, 0, 9 },
			0x1234, 4793, hdr, 16);
	cr_assert_eq(n, 4 + 4 + 4 + 16);
	unhex(want, "c0a801020a0000091234" "12b9");
	cr_assert_arr_eq(aad, want, 12);
	cr_assert_arr_eq(aad + 12, hdr, 16);
	n = uet_tss_aad(aad, true, s6, d6, 1, 2, hdr, 12);
	cr_assert_eq(n, 16 + 16 + 4 + 12);
	cr_assert_arr_eq(aad, s6, 16);
	cr_assert_arr_eq(aad + 16, d6, 16);
	cr_assert_eq(aad[33], 1);
	cr_assert_eq(aad[35], 2);
}
