// SPDX-License-Identifier: BSD-2-Clause
/*
 * AES-256-GCM per packet (uet_tss.h), on two well-kept libraries:
 *
 * - libsodium's crypto_aead_aes256gcm_*_detached_afternm (AES-NI and
 *   PCLMULQDQ, the key schedule and GHASH key made once) for a packet's
 *   text of up to UET_TSS_GCM_SMALL bytes given whole: its call costs
 *   some 120-160 ns at 64 bytes here, where OpenSSL 3.0's EVP costs
 *   190-260 ns (most of it the provider's dispatch per call);
 * - libcrypto's EVP for longer texts (its stitched AES-GCM does 8 KiB in
 *   about half libsodium 1.0.18's time) and for text given in pieces.
 *
 * A packet's begin only records its IV and AAD: whichever does the work
 * takes them when the text comes (uet_tss_seal_rest/open_rest whole, or
 * uet_tss_update in pieces). Both compute the same GCM: the choice is
 * invisible on the wire (test_tss_gcm checks both against the NIST
 * vectors and each other).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sodium.h>

#include "tss/uet_tss.h"

struct uet_tss_aead {
	EVP_CIPHER_CTX *ctx;
	crypto_aead_aes256gcm_state *st;	/* NULL: no AES-NI */
	bool started;		/* EVP has this packet's IV and AAD */
	int enc;
	size_t aad_len;
	uint8_t iv[UET_TSS_IV_LEN];
	uint8_t aad[UET_TSS_AAD_MAX];
};

/* libsodium's AES-GCM, when this CPU has what it needs (once). */
static bool gcm_sodium_ok(void)
{
	static int ok = -1;
	int v = __atomic_load_n(&ok, __ATOMIC_ACQUIRE);

	if (v < 0) {
		v = sodium_init() >= 0 && crypto_aead_aes256gcm_is_available();
		__atomic_store_n(&ok, v, __ATOMIC_RELEASE);
	}
	return v;
}

struct uet_tss_aead *uet_tss_aead_new(const uint8_t key[UET_TSS_KEY_LEN])
{
	struct uet_tss_aead *a = OPENSSL_zalloc(sizeof(*a));

	if (!a)
		return NULL;
	a->ctx = EVP_CIPHER_CTX_new();
	/*
	 * The key schedule (and GHASH's table) is made here once; a packet
	 * then only sets its IV. The IV length is fixed before the key, as
	 * the 96-bit IV is GCM's fast path.
	 */
	if (!a->ctx ||
	    !EVP_CipherInit_ex(a->ctx, EVP_aes_256_gcm(), NULL, NULL, NULL,
			       1) ||
	    !EVP_CIPHER_CTX_ctrl(a->ctx, EVP_CTRL_GCM_SET_IVLEN,
				 UET_TSS_IV_LEN, NULL) ||
	    !EVP_CipherInit_ex(a->ctx, NULL, NULL, key, NULL, -1))
		goto fail;
	if (gcm_sodium_ok()) {
		a->st = aligned_alloc(16, sizeof(*a->st));
		if (!a->st || crypto_aead_aes256gcm_beforenm(a->st, key))
			goto fail;
	}
	return a;
fail:
	uet_tss_aead_free(a);
	return NULL;
}

void uet_tss_aead_free(struct uet_tss_aead *a)
{
	if (!a)
		return;
	EVP_CIPHER_CTX_free(a->ctx);	/* it cleanses the key schedule */
	if (a->st) {
		sodium_memzero(a->st, sizeof(*a->st));
		free(a->st);
	}
	OPENSSL_clear_free(a, sizeof(*a));
}

/* The recorded IV and AAD into EVP, for text in pieces or a long one. */
static int evp_start(struct uet_tss_aead *a)
{
	int outl;

	if (a->started)
		return 0;
	if (!EVP_CipherInit_ex(a->ctx, NULL, NULL, NULL, a->iv, a->enc))
		return -EIO;
	if (a->aad_len &&
	    !EVP_CipherUpdate(a->ctx, NULL, &outl, a->aad, (int)a->aad_len))
		return -EIO;
	a->started = true;
	return 0;
}

static int aead_begin(struct uet_tss_aead *a, const uint8_t *iv,
		      const uint8_t *aad, size_t aad_len, int enc)
{
	if (aad_len > sizeof(a->aad))
		return -EIO;	/* longer than any packet's (UET_TSS_AAD_MAX) */
	memcpy(a->iv, iv, UET_TSS_IV_LEN);
	memcpy(a->aad, aad, aad_len);
	a->aad_len = aad_len;
	a->enc = enc;
	a->started = false;
	return 0;
}

int uet_tss_seal_begin(struct uet_tss_aead *a, const uint8_t iv[UET_TSS_IV_LEN],
		       const uint8_t *aad, size_t aad_len)
{
	return aead_begin(a, iv, aad, aad_len, 1);
}

int uet_tss_open_begin(struct uet_tss_aead *a, const uint8_t iv[UET_TSS_IV_LEN],
		       const uint8_t *aad, size_t aad_len)
{
	return aead_begin(a, iv, aad, aad_len, 0);
}

int uet_tss_update(struct uet_tss_aead *a, uint8_t *out, const uint8_t *in,
		   size_t len)
{
	int outl, n;

	if (evp_start(a))
		return -EIO;
	/* GCM is a stream mode: every byte in gives one byte out, now. */
	while (len) {
		n = len > INT_MAX ? INT_MAX & ~15 : (int)len;
		if (!EVP_CipherUpdate(a->ctx, out, &outl, in, n) || outl != n)
			return -EIO;
		out += n;
		in += n;
		len -= (size_t)n;
	}
	return 0;
}

int uet_tss_seal_final(struct uet_tss_aead *a, uint8_t icv[UET_TSS_ICV_LEN])
{
	uint8_t none[16];
	int outl;

	if (evp_start(a) || !EVP_CipherFinal_ex(a->ctx, none, &outl) ||
	    !EVP_CIPHER_CTX_ctrl(a->ctx, EVP_CTRL_GCM_GET_TAG,
				 UET_TSS_ICV_LEN, icv))
		return -EIO;
	return 0;
}

int uet_tss_open_final(struct uet_tss_aead *a,
		       const uint8_t icv[UET_TSS_ICV_LEN])
{
	uint8_t none[16];
	int outl;

	if (evp_start(a) ||
	    !EVP_CIPHER_CTX_ctrl(a->ctx, EVP_CTRL_GCM_SET_TAG,
				 UET_TSS_ICV_LEN, (void *)icv))
		return -EIO;
	/* Final compares the tags in constant time; a mismatch is all it
	 * can fail on once the context is set up. */
	if (EVP_CipherFinal_ex(a->ctx, none, &outl) <= 0)
		return -EBADMSG;
	return 0;
}

/* A begun packet's text given whole goes to libsodium when it is short. */
static bool gcm_small(const struct uet_tss_aead *a, size_t len)
{
	return a->st && !a->started && len <= UET_TSS_GCM_SMALL;
}

int uet_tss_seal_rest(struct uet_tss_aead *a, uint8_t *out, const uint8_t *in,
		      size_t len, uint8_t icv[UET_TSS_ICV_LEN])
{
	int rc;

	if (gcm_small(a, len))
		return crypto_aead_aes256gcm_encrypt_detached_afternm(
			out, icv, NULL, in, len, a->aad, a->aad_len, NULL,
			a->iv, a->st) ? -EIO : 0;
	rc = uet_tss_update(a, out, in, len);
	return rc ? rc : uet_tss_seal_final(a, icv);
}

int uet_tss_open_rest(struct uet_tss_aead *a, uint8_t *out, const uint8_t *in,
		      size_t len, const uint8_t icv[UET_TSS_ICV_LEN])
{
	int rc;

	if (gcm_small(a, len))
		return crypto_aead_aes256gcm_decrypt_detached_afternm(
			out, NULL, in, len, icv, a->aad, a->aad_len, a->iv,
			a->st) ? -EBADMSG : 0;
	rc = uet_tss_update(a, out, in, len);
	return rc ? rc : uet_tss_open_final(a, icv);
}

int uet_tss_seal(struct uet_tss_aead *a, const uint8_t iv[UET_TSS_IV_LEN],
		 const uint8_t *aad, size_t aad_len, uint8_t *out,
		 const uint8_t *in, size_t len, uint8_t icv[UET_TSS_ICV_LEN])
{
	int rc = uet_tss_seal_begin(a, iv, aad, aad_len);

	return rc ? rc : uet_tss_seal_rest(a, out, in, len, icv);
}

int uet_tss_open(struct uet_tss_aead *a, const uint8_t iv[UET_TSS_IV_LEN],
		 const uint8_t *aad, size_t aad_len, uint8_t *out,
		 const uint8_t *in, size_t len,
		 const uint8_t icv[UET_TSS_ICV_LEN])
{
	int rc = uet_tss_open_begin(a, iv, aad, aad_len);

	return rc ? rc : uet_tss_open_rest(a, out, in, len, icv);
}
