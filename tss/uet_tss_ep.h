/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * TSS as one endpoint uses it (uet_tss.h): the keys of its secure domain
 * as the device service gave them, its own transmit stream, and the
 * receive streams of its peers, each with its derived key, cipher context
 * and replay window. A frame that fails any check is counted and its
 * plaintext never leaves here.
 */
#ifndef UET_TSS_EP_H
#define UET_TSS_EP_H

#include "tss/uet_tss.h"

/* The keys of one SD as an endpoint holds them (from uetd). */
struct uet_tss_sd_keys {
	uint32_t sdi;
	uint32_t mode;			/* enum uet_tss_mode */
	uint8_t tx_an;			/* the AN we send with */
	uint8_t have;			/* bit |an|: key[an] is set */
	uint8_t use_ssi;		/* send SP = 1 with |ssi| */
	uint8_t pad;
	uint32_t ssi;
	uint16_t epoch[2];		/* ours under key[an] */
	uint32_t gen;			/* the service's key generation */
	uint8_t key[2][UET_TSS_KEY_LEN];
};

struct uet_tss_ep_stats {
	uint64_t tx_sealed;
	uint64_t tx_fail;		/* no key, counter spent, libcrypto */
	uint64_t rx_opened;
	uint64_t rx_bad_icv;		/* tampered, or another key */
	uint64_t rx_replay;		/* a TSC seen before */
	uint64_t rx_stale;		/* a TSC below the window */
	uint64_t rx_other_sd;		/* an SDI not ours */
	uint64_t rx_no_key;		/* an AN we hold no key for */
	uint64_t rx_malformed;		/* cut short, bad header */
	uint64_t rx_streams;		/* streams set up */
	uint64_t rx_evicted;		/* streams dropped for room (their
					 * highest TSC kept as a floor) */
	uint64_t rx_floored;		/* of rx_stale: at or below an evicted
					 * stream's floor */
	uint64_t rx_no_room;		/* a new stream refused: no memory for
					 * a floor */
	uint64_t rx_trimmed;		/* trimmed packets' headers read */
	uint64_t rx_trim_unknown;	/* trimmed, of no stream set up */
};

/* The outer addresses of a packet, as on the wire (ports host order). */
struct uet_tss_pkt {
	bool is_v6;
	const uint8_t *saddr;
	const uint8_t *daddr;
	uint16_t sport;
	uint16_t dport;
};

struct uet_tss_ep;

/*
 * An endpoint's TSS with |keys|, sending from |local|. NULL with errno:
 * EINVAL (no key for tx_an, mode unknown), ENOMEM.
 */
struct uet_tss_ep *uet_tss_ep_new(const struct uet_tss_sd_keys *keys,
				  const struct uet_tss_src *local);
void uet_tss_ep_free(struct uet_tss_ep *ep);

/*
 * New keys (a rotation): streams under a key that changed are dropped,
 * the others kept; the transmit stream moves to keys->tx_an. 0 or
 * -EINVAL, -ENOMEM.
 */
int uet_tss_ep_set_keys(struct uet_tss_ep *ep,
			const struct uet_tss_sd_keys *keys);

/* The TSS header length this endpoint sends. */
size_t uet_tss_ep_hdr_len(const struct uet_tss_ep *ep);

/*
 * uet_tss_ep_seal() secures the UDP payload at |buf|: room for the TSS
 * header (uet_tss_ep_hdr_len), then |len| bytes of plaintext (PDS header
 * onwards), then room for the ICV. Writes the header with the next TSC,
 * encrypts in place, writes the ICV. Returns the UDP payload's length, or
 * -EKEYEXPIRED when the counter is spent, -EIO (counted in tx_fail).
 */
ssize_t uet_tss_ep_seal(struct uet_tss_ep *ep, const struct uet_tss_pkt *p,
			uint8_t *buf, size_t len);

/*
 * The same in pieces, for a packet whose output is scattered: begin
 * writes the header at |hdr| (uet_tss_ep_hdr_len bytes) with the next TSC
 * and returns the cipher context, IV and AAD set (NULL with errno
 * EKEYEXPIRED or EIO, counted); the plaintext then goes through
 * uet_tss_update() in pieces of any length, into any output; end writes
 * the ICV. 0 or -EIO.
 */
struct uet_tss_aead *uet_tss_ep_seal_begin(struct uet_tss_ep *ep,
					   const struct uet_tss_pkt *p,
					   uint8_t *hdr);
int uet_tss_ep_seal_end(struct uet_tss_ep *ep, struct uet_tss_aead *a,
			uint8_t icv[UET_TSS_ICV_LEN]);

/*
 * Or, after begin, the whole plaintext |in| at once into |out| (may be
 * |in|), then the ICV: a short packet takes the lighter AEAD call
 * (uet_tss_gcm.c). 0 or -EIO.
 */
int uet_tss_ep_seal_rest(struct uet_tss_ep *ep, struct uet_tss_aead *a,
			 uint8_t *out, const uint8_t *in, size_t len,
			 uint8_t icv[UET_TSS_ICV_LEN]);

/*
 * uet_tss_ep_open() checks and decrypts the secured UDP payload |in| of
 * |len| bytes into |out| (room for |len| bytes; not |in|, which stays as
 * it came). Returns the plaintext's length (PDS header onwards), or
 * -EBADMSG (malformed, bad ICV), -EXDEV (another SD), -ENOKEY (no key for
 * its AN), -EALREADY (replayed), -ESTALE (older than the window, or at or
 * below the floor of its evicted stream), -ENOMEM (a new stream and no
 * memory to keep the floor of the one it would evict), each counted;
 * |out| then holds nothing of use.
 */
ssize_t uet_tss_ep_open(struct uet_tss_ep *ep, const struct uet_tss_pkt *p,
			const uint8_t *in, size_t len, uint8_t *out);

/*
 * uet_tss_ep_peek() decrypts only the first |want| bytes of the secured
 * payload |in| into |out|, checking nothing but the header: for steering
 * (the device service, which never delivers what it peeks). Returns the
 * bytes written, or -errno as uet_tss_ep_open.
 */
ssize_t uet_tss_ep_peek(struct uet_tss_ep *ep, const struct uet_tss_pkt *p,
			const uint8_t *in, size_t len, uint8_t *out,
			size_t want);

/*
 * uet_tss_ep_open_trimmed() reads the headers of a packet a switch
 * trimmed (UE 1.0 3.6.17: its DSCP says so): the ICV went with the cut,
 * so nothing authenticates it. Only for a stream an authentic packet set
 * up, and a TSC it has not seen (checked, not recorded: the whole packet
 * may still come), it decrypts the first |want| bytes of what is left
 * into |out|: the PDS header the NACK TRIMMED answers. The caller must use
 * it for that and nothing else (GCM without its tag is malleable: a bit
 * flipped in the ciphertext flips it in the plaintext). Returns the bytes
 * written, or -EBADMSG, -EXDEV, -ENOKEY (no such stream: rx_trim_unknown),
 * -EALREADY, -ESTALE, -EIO.
 */
ssize_t uet_tss_ep_open_trimmed(struct uet_tss_ep *ep,
				const struct uet_tss_pkt *p, const uint8_t *in,
				size_t len, uint8_t *out, size_t want);

const struct uet_tss_ep_stats *uet_tss_ep_stats(const struct uet_tss_ep *ep);

#endif /* UET_TSS_EP_H */
