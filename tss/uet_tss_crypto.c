// SPDX-License-Identifier: BSD-2-Clause
/*
 * TSS key derivation, IV and AAD, on libcrypto: nothing here computes a
 * cipher by hand. AES-256-GCM itself is in uet_tss_gcm.c.
 *
 * The KDF is SP 800-108 in counter mode with an 8-bit counter. OpenSSL
 * 3.0's "KBKDF" always writes a 32-bit counter (its "r" parameter came in
 * 3.1, and 3.0 ignores parameters it does not know, so asking for it would
 * silently give other keys); the loop is therefore written here, one
 * EVP_MAC CMAC per 16-byte block.
 */
#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "tss/uet_tss.h"

#define KDF_LABEL	"U1"
#define KDF_LABEL_LEN	2
#define KDF_L_BITS	(UET_TSS_KEYMAT_LEN * 8)	/* 352 */
#define KDF_CTX_MAX	26
#define CMAC_LEN	16

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The KDF context of one sender (layouts in uet_tss.h). */
static size_t kdf_context(uint8_t *c, const struct uet_tss_hdr *h,
			  const struct uet_tss_src *src, uint32_t rekey)
{
	if (!h->sp && src->is_v6) {
		memset(c, 0, 4);
		put_be16(c + 4, h->epoch);
		put_be32(c + 6, rekey);
		memcpy(c + 10, src->addr, 16);
		return 26;
	}
	put_be16(c, h->epoch);
	put_be32(c + 2, rekey);
	if (h->sp)
		put_be32(c + 6, h->ssi);
	else
		memcpy(c + 6, src->addr, 4);
	return 10;
}

/*
 * K(i) = CMAC(sdk, [i]_8 || label || 0x00 || context || [L]_32) for
 * i = 1, 2, 3; the first 44 bytes of K(1) || K(2) || K(3).
 */
static int kdf_ctr_cmac(uint8_t *out, size_t out_len, const uint8_t *key,
			const uint8_t *ctx, size_t ctx_len)
{
	uint8_t fixed[1 + KDF_LABEL_LEN + 1 + KDF_CTX_MAX + 4];
	uint8_t blk[CMAC_LEN];
	char cipher[] = "AES-256-CBC";
	OSSL_PARAM params[2];
	EVP_MAC_CTX *mc = NULL;
	EVP_MAC *mac;
	size_t n = 0, fl, got;
	int rc = -EIO;
	uint8_t i;

	fixed[0] = 0;
	memcpy(fixed + 1, KDF_LABEL, KDF_LABEL_LEN);
	fixed[1 + KDF_LABEL_LEN] = 0;
	memcpy(fixed + 2 + KDF_LABEL_LEN, ctx, ctx_len);
	fl = 2 + KDF_LABEL_LEN + ctx_len;
	put_be32(fixed + fl, (uint32_t)out_len * 8);
	fl += 4;

	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER,
						     cipher, 0);
	params[1] = OSSL_PARAM_construct_end();
	mac = EVP_MAC_fetch(NULL, "CMAC", NULL);
	if (!mac)
		return -EIO;
	mc = EVP_MAC_CTX_new(mac);
	if (!mc)
		goto out;
	for (i = 1; n < out_len; i++) {
		fixed[0] = i;
		/* The key each round: re-initialising restarts the MAC. */
		if (!EVP_MAC_init(mc, key, UET_TSS_KEY_LEN, params) ||
		    !EVP_MAC_update(mc, fixed, fl) ||
		    !EVP_MAC_final(mc, blk, &got, sizeof(blk)) ||
		    got != CMAC_LEN)
			goto out;
		got = out_len - n < CMAC_LEN ? out_len - n : CMAC_LEN;
		memcpy(out + n, blk, got);
		n += got;
	}
	rc = 0;
out:
	OPENSSL_cleanse(blk, sizeof(blk));
	EVP_MAC_CTX_free(mc);
	EVP_MAC_free(mac);
	return rc;
}

int uet_tss_derive(struct uet_tss_keymat *km, enum uet_tss_mode mode,
		   const uint8_t sdk[UET_TSS_KEY_LEN],
		   const struct uet_tss_hdr *h, const struct uet_tss_src *src,
		   uint32_t rekey)
{
	uint8_t c[KDF_CTX_MAX], out[UET_TSS_KEYMAT_LEN];
	size_t cl;
	int rc;

	if (mode != UET_TSS_CLUSTER) {
		memcpy(km->key, sdk, UET_TSS_KEY_LEN);
		memset(km->iv_mask, 0, UET_TSS_IV_LEN);
		return 0;
	}
	cl = kdf_context(c, h, src, rekey);
	rc = kdf_ctr_cmac(out, sizeof(out), sdk, c, cl);
	if (!rc) {
		memcpy(km->key, out, UET_TSS_KEY_LEN);
		memcpy(km->iv_mask, out + UET_TSS_KEY_LEN, UET_TSS_IV_LEN);
	}
	OPENSSL_cleanse(out, sizeof(out));
	return rc;
}

void uet_tss_iv(uint8_t iv[UET_TSS_IV_LEN], const struct uet_tss_keymat *km,
		const struct uet_tss_hdr *h, const struct uet_tss_src *src)
{
	uint64_t lo = (uint64_t)h->epoch << 48 | (h->tsc & UET_TSS_TSC_MAX);
	int i;

	if (h->sp)
		put_be32(iv, h->ssi);
	else if (!src->is_v6)
		memcpy(iv, src->addr, 4);
	else
		put_be32(iv, h->sdi);
	put_be32(iv + 4, (uint32_t)(lo >> 32));
	put_be32(iv + 8, (uint32_t)lo);
	for (i = 0; i < UET_TSS_IV_LEN; i++)
		iv[i] ^= km->iv_mask[i];
}

size_t uet_tss_aad(uint8_t *aad, bool is_v6, const uint8_t *saddr,
		   const uint8_t *daddr, uint16_t sport, uint16_t dport,
		   const uint8_t *hdr, size_t hdr_len)
{
	size_t al = is_v6 ? 16 : 4, n = 0;

	if (hdr_len > UET_TSS_HDR_MAX)
		hdr_len = UET_TSS_HDR_MAX;	/* never past UET_TSS_AAD_MAX */
	memcpy(aad, saddr, al);
	memcpy(aad + al, daddr, al);
	n = 2 * al;
	put_be16(aad + n, sport);
	put_be16(aad + n + 2, dport);
	n += 4;
	memcpy(aad + n, hdr, hdr_len);
	return n + hdr_len;
}

int uet_tss_keystream(uint8_t (*out)[16], size_t n,
		      const struct uet_tss_keymat *km,
		      const uint8_t iv[UET_TSS_IV_LEN])
{
	uint64_t tsc = 0, mask = 0;
	uint8_t tmpl[16] = { 0 };
	EVP_CIPHER_CTX *c;
	int len = 0, rc = -EIO;

	if (!n || n > UET_TSS_KS_MAX)
		return -EINVAL;
	for (int i = 6; i < UET_TSS_IV_LEN; i++) {
		tsc = tsc << 8 | iv[i];
		mask = mask << 8 | km->iv_mask[i];
	}
	/*
	 * The counter blocks: the masked IV, then GCM's counter 2. Only the
	 * TSC changes from one to the next (a loop over every byte of every
	 * block cost more than the AES).
	 */
	for (int i = 0; i < 6; i++)
		tmpl[i] = iv[i] ^ km->iv_mask[i];
	put_be32(tmpl + UET_TSS_IV_LEN, 2);
	for (size_t b = 0; b < n; b++) {
		uint64_t t = ((tsc + b) & UET_TSS_TSC_MAX) ^ mask;

		memcpy(out[b], tmpl, 16);
		for (int i = 0; i < 6; i++)
			out[b][6 + i] = (uint8_t)(t >> (40 - 8 * i));
	}
	c = EVP_CIPHER_CTX_new();
	if (c && EVP_EncryptInit_ex(c, EVP_aes_256_ecb(), NULL, km->key,
				    NULL) == 1 &&
	    EVP_CIPHER_CTX_set_padding(c, 0) == 1 &&
	    EVP_EncryptUpdate(c, out[0], &len, out[0], (int)(16 * n)) == 1 &&
	    len == (int)(16 * n))
		rc = 0;
	EVP_CIPHER_CTX_free(c);	/* its key schedule is cleansed */
	if (rc)
		OPENSSL_cleanse(out, 16 * n);
	return rc;
}
