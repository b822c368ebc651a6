/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Transport Security Sublayer (UE 1.0 3.7, TSS): AES-256-GCM per
 * packet with keys of a secure domain (SD), as the UEC reference provider
 * puts it on the wire (ref 1.6 of ../shared/reference/uet-wire-format.md):
 *
 *   IP | UDP | TSS header | PDS header | SES header | payload | ICV (16)
 *              \ in clear, authenticated /\------ encrypted -------/
 *
 * TSS header (12 bytes, 16 with an SSI), big endian:
 *   type (5) = 1 | SP (1) | reserved (1) | AN (1) | SDI (24)
 *   [SSI (32), when SP]
 *   epoch (16) | TSC (48)
 *
 * Keys (the two modes built here):
 * - direct: every member of the SD uses the SD key of the association
 *   number (AN) as it is; the IV is the 12 bytes below.
 * - cluster: each sender's key is derived from the SD key, so that no two
 *   senders share a (key, IV) space: KDF in counter mode (NIST SP 800-108)
 *   with AES-256-CMAC, an 8-bit counter, label "U1", a 0x00 separator, the
 *   context, and L = 352 bits; the 44 bytes are the AES key (32) and an IV
 *   mask (12) XORed into the IV. Context: epoch (16), rekey (32), and the
 *   source: its SSI or IPv4 address (10 bytes), or 4 zero bytes, epoch,
 *   rekey and its IPv6 address (26 bytes).
 *
 * IV: the SSI (when SP) or the IPv4 source address, or the SDI for IPv6
 * without SSI (32 bits), then epoch and TSC (64 bits), big endian.
 *
 * AAD: source and destination IP addresses, the 4 bytes that carry the
 * entropy (the entropy header over IP; UDP's source and destination ports
 * under UDP: UDP length and checksum are left out, a switch may rewrite
 * neither but the checksum is 0 and ignored), then the TSS header.
 *
 * A sender's (SD, AN, source, epoch) is one stream: its TSC counts from 0
 * and never repeats, so neither does the IV. The device service gives
 * every endpoint an epoch of its own per key (uetd), so endpoints sharing
 * a source address never share a stream. Receivers keep a replay window
 * per stream.
 */
#ifndef UET_TSS_H
#define UET_TSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UET_TSS_TYPE		1	/* the PDS type slot's value for TSS */
#define UET_TSS_HDR_LEN		12
#define UET_TSS_HDR_SSI_LEN	16
#define UET_TSS_HDR_MAX		UET_TSS_HDR_SSI_LEN
#define UET_TSS_ICV_LEN		16
#define UET_TSS_KEY_LEN		32	/* AES-256 */
#define UET_TSS_IV_LEN		12
#define UET_TSS_KEYMAT_LEN	44	/* KDF output: key, then IV mask */
#define UET_TSS_SDI_MAX		0xFFFFFFu
#define UET_TSS_TSC_MAX		((1ull << 48) - 1)
/* TSS header, ICV: what a secured packet adds to a clear one. */
#define UET_TSS_OVERHEAD	(UET_TSS_HDR_MAX + UET_TSS_ICV_LEN)
/* Longest AAD: two IPv6 addresses, ports, a header with SSI. */
#define UET_TSS_AAD_MAX		(32 + 4 + UET_TSS_HDR_MAX)

enum uet_tss_mode {
	UET_TSS_OFF = 0,
	UET_TSS_DIRECT = 1,
	UET_TSS_CLUSTER = 2,
};

/* ---- the header ------------------------------------------------------------ */

struct uet_tss_hdr {
	bool sp;		/* an SSI follows */
	uint8_t an;		/* association number, 0 or 1 */
	uint32_t sdi;		/* secure domain index, 24 bits */
	uint32_t ssi;		/* secure source index, when sp */
	uint16_t epoch;
	uint64_t tsc;		/* 48 bits */
};

static inline size_t uet_tss_hdr_len(bool sp)
{
	return sp ? UET_TSS_HDR_SSI_LEN : UET_TSS_HDR_LEN;
}

/* Whether a UDP payload of |len| bytes starts with a TSS header (type 1). */
static inline bool uet_tss_is_tss(const uint8_t *p, size_t len)
{
	return len >= 1 && (p[0] >> 3) == UET_TSS_TYPE;
}

/*
 * uet_tss_hdr_encode() writes |h| at |out| (|len| bytes of room). Returns
 * the header length, -ENOBUFS when it does not fit, -EINVAL when a field
 * is out of range (an > 1, sdi > 24 bits, tsc > 48 bits).
 */
ssize_t uet_tss_hdr_encode(uint8_t *out, size_t len,
			   const struct uet_tss_hdr *h);

/*
 * uet_tss_hdr_decode() reads the header at |in| (|len| bytes). Returns its
 * length, or -EBADMSG when it is not a TSS header, is cut short or has its
 * reserved bit set.
 */
ssize_t uet_tss_hdr_decode(struct uet_tss_hdr *h, const uint8_t *in,
			   size_t len);

/* ---- keys -------------------------------------------------------------------- */

/* What identifies a sender to the KDF and the IV. */
struct uet_tss_src {
	bool is_v6;
	uint8_t addr[16];	/* IPv4 in the first 4, network order */
};

struct uet_tss_keymat {
	uint8_t key[UET_TSS_KEY_LEN];
	uint8_t iv_mask[UET_TSS_IV_LEN];	/* zero in direct mode */
};

/*
 * uet_tss_derive() makes the key material of one stream from the SD key
 * |sdk|: in direct mode |sdk| itself and no mask, in cluster mode the KDF
 * above over (|epoch|, |rekey|, the source: |h|'s SSI when it has one,
 * else |src|'s address). 0, or -EIO when libcrypto fails.
 */
int uet_tss_derive(struct uet_tss_keymat *km, enum uet_tss_mode mode,
		   const uint8_t sdk[UET_TSS_KEY_LEN],
		   const struct uet_tss_hdr *h, const struct uet_tss_src *src,
		   uint32_t rekey);

/* The IV of packet |h| from |src| under |km| (the mask applied). */
void uet_tss_iv(uint8_t iv[UET_TSS_IV_LEN], const struct uet_tss_keymat *km,
		const struct uet_tss_hdr *h, const struct uet_tss_src *src);

/*
 * uet_tss_keystream() makes the first keystream block of |n| packets in
 * a row of one stream: out[i] = AES(key, IV_i ^ mask | counter 2), where
 * IV_i is |iv| (unmasked, as uet_tss_iv() builds it before the mask) with
 * its TSC plus i; XORed with a sealed packet's first 16 bytes of
 * ciphertext it gives its first 16 of plaintext, as GCM made it. The XDP
 * program reads headers with these (include/uet_xdp_shared.h). 0, -EINVAL
 * (|n| 0 or over UET_TSS_KS_MAX) or -EIO.
 */
#define UET_TSS_KS_MAX	1024	/* uetd makes 4 entries of 256 at once */
int uet_tss_keystream(uint8_t (*out)[16], size_t n,
		      const struct uet_tss_keymat *km,
		      const uint8_t iv[UET_TSS_IV_LEN]);

/*
 * The AAD of a packet: the addresses (4 or 16 bytes each, network order),
 * the UDP ports (host order) and its TSS header as on the wire. Returns its
 * length (at most UET_TSS_AAD_MAX).
 */
size_t uet_tss_aad(uint8_t *aad, bool is_v6, const uint8_t *saddr,
		   const uint8_t *daddr, uint16_t sport, uint16_t dport,
		   const uint8_t *hdr, size_t hdr_len);

/* ---- AES-256-GCM (on Intel's ipsec-mb library: uet_tss_gcm.c) ------------ */

struct uet_tss_aead;

/* A cipher context with |key|'s schedule, or NULL (out of memory). */
struct uet_tss_aead *uet_tss_aead_new(const uint8_t key[UET_TSS_KEY_LEN]);
void uet_tss_aead_free(struct uet_tss_aead *a);

/*
 * Streaming seal and open: begin with the IV and the AAD, then pass the
 * text in pieces of any length (|out| may be |in|: in place), then final.
 * Seal's final writes the ICV; open's compares it and returns -EBADMSG on
 * a mismatch (the output must then be thrown away). Other failures -EIO.
 */
int uet_tss_seal_begin(struct uet_tss_aead *a, const uint8_t iv[UET_TSS_IV_LEN],
		       const uint8_t *aad, size_t aad_len);
int uet_tss_open_begin(struct uet_tss_aead *a, const uint8_t iv[UET_TSS_IV_LEN],
		       const uint8_t *aad, size_t aad_len);
int uet_tss_update(struct uet_tss_aead *a, uint8_t *out, const uint8_t *in,
		   size_t len);
int uet_tss_seal_final(struct uet_tss_aead *a, uint8_t icv[UET_TSS_ICV_LEN]);
int uet_tss_open_final(struct uet_tss_aead *a,
		       const uint8_t icv[UET_TSS_ICV_LEN]);

/*
 * After a begin, the rest of a packet at once: its whole text, then the
 * ICV written (seal) or checked (open: -EBADMSG on a mismatch), as update
 * and final would, in one call of the library.
 */
int uet_tss_seal_rest(struct uet_tss_aead *a, uint8_t *out, const uint8_t *in,
		      size_t len, uint8_t icv[UET_TSS_ICV_LEN]);
int uet_tss_open_rest(struct uet_tss_aead *a, uint8_t *out, const uint8_t *in,
		      size_t len, const uint8_t icv[UET_TSS_ICV_LEN]);

/* One-shot forms over contiguous text. */
int uet_tss_seal(struct uet_tss_aead *a, const uint8_t iv[UET_TSS_IV_LEN],
		 const uint8_t *aad, size_t aad_len, uint8_t *out,
		 const uint8_t *in, size_t len, uint8_t icv[UET_TSS_ICV_LEN]);
int uet_tss_open(struct uet_tss_aead *a, const uint8_t iv[UET_TSS_IV_LEN],
		 const uint8_t *aad, size_t aad_len, uint8_t *out,
		 const uint8_t *in, size_t len,
		 const uint8_t icv[UET_TSS_ICV_LEN]);

/* ---- replay window ---------------------------------------------------------- */

/*
 * The TSCs of one stream seen lately: the highest, and a bitmap of the
 * UET_TSS_REPLAY_WIN below it. Spraying over paths reorders packets by
 * far less than that.
 */
#define UET_TSS_REPLAY_WIN	1024
struct uet_tss_replay {
	bool any;
	uint64_t top;
	uint64_t bits[UET_TSS_REPLAY_WIN / 64];
};

/*
 * uet_tss_replay_check() says whether |tsc| may be accepted: 0, -EALREADY
 * when it was seen, -ESTALE when it is below the window. Nothing changes:
 * uet_tss_replay_commit() records it once the packet is authentic.
 */
int uet_tss_replay_check(const struct uet_tss_replay *w, uint64_t tsc);
void uet_tss_replay_commit(struct uet_tss_replay *w, uint64_t tsc);

/*
 * A window that starts at |floor|: every TSC at or below it counts as
 * seen (a stream whose window was dropped, then came back: nothing it sent
 * before may be accepted again).
 */
void uet_tss_replay_from_floor(struct uet_tss_replay *w, uint64_t floor);

/*
 * The floors of streams whose windows were dropped for room (evicted):
 * their highest TSC, by a stream id of UET_TSS_FLOOR_ID bytes. Open
 * addressing, doubled when 3/4 full: it holds one entry per evicted
 * stream that has not come back, however many (a stream is a sender
 * with the key, so only members of the SD make entries).
 */
#define UET_TSS_FLOOR_ID	24

struct uet_tss_floor_ent {
	uint8_t id[UET_TSS_FLOOR_ID];
	uint64_t floor;
	bool used;
};

struct uet_tss_floors {
	struct uet_tss_floor_ent *ent;
	size_t cap;		/* a power of two, or 0 */
	size_t n;
};

/* Records |floor| for |id| (the higher of it and one there). 0, -ENOMEM. */
int uet_tss_floor_put(struct uet_tss_floors *f, const uint8_t *id,
		      uint64_t floor);

/* Takes |id|'s floor out: true with |*floor| set, false when none. */
bool uet_tss_floor_take(struct uet_tss_floors *f, const uint8_t *id,
			uint64_t *floor);

/* The floor of |id| without taking it: true when there is one. */
bool uet_tss_floor_get(const struct uet_tss_floors *f, const uint8_t *id,
		       uint64_t *floor);

/* Drops the entries whose id byte |at| is |val| (a key that changed). */
void uet_tss_floor_drop(struct uet_tss_floors *f, size_t at, uint8_t val);

void uet_tss_floor_free(struct uet_tss_floors *f);

#endif /* UET_TSS_H */
