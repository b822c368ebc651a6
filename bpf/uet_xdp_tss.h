/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * XDP reads a secured frame's PDS and SES headers (issue 40), so that any
 * number of endpoints of one secure domain on an interface get their
 * frames without the device service's hop. Included by uet_xdp.bpf.c.
 *
 * AES-256-GCM encrypts plaintext block i with E_K(J0 + 1 + i), where J0 is
 * the 96-bit IV then the 32-bit counter 1 (NIST SP 800-38D 7.1). So the
 * ECB encryption of the counter blocks IV|2 and IV|3 is the keystream of
 * the first 32 plaintext bytes: the PDS header and the SES fields that
 * name the endpoint; most frames need only the first block (their
 * DPDCID). This kernel's BPF crypto kfuncs give ECB (an lskcipher) to
 * XDP; a context per key is made by a sleepable program
 * (uet_tss_ctx.bpf.c, run by the service) and kept here as a kptr.
 *
 * Nothing is verified here: a forger who knows no key makes a frame go to
 * some endpoint of the SD (or the service), which authenticates the whole
 * frame and drops it. That is what the service's hand-on already allowed.
 */
#ifndef UET_XDP_TSS_H
#define UET_XDP_TSS_H

#define UET_XDP_KPTR	__attribute__((btf_type_tag("kptr")))
/* As libbpf's bpf_ksym_exists (newer than Debian 12's libbpf 1.1). */
#define uet_xdp_ksym_exists(sym)	(!!(sym))

/*
 * Opaque: the kernel's is found by name (kfunc and kptr types must be
 * structs here, not declarations, for libbpf and the verifier to match).
 */
struct bpf_crypto_ctx {
	int opaque;
};

/* Weak: a kernel without them loads the program, which then never reads. */
extern int bpf_crypto_encrypt(struct bpf_crypto_ctx *ctx,
			      const struct bpf_dynptr *src,
			      const struct bpf_dynptr *dst,
			      const struct bpf_dynptr *siv) __ksym __weak;

struct uet_xdp_tss_ctx_val {
	struct bpf_crypto_ctx UET_XDP_KPTR *ctx;
	__u8 iv_mask[12];
	__u32 pad;
	__u64 ks_asked_ns;	/* a frame of this key missed its keystream */
};

/*
 * Contexts by key (uet_xdp_shared.h). LRU: cluster-mode streams come and
 * go; an evicted one's next frame goes to the service, which adds it back.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UET_XDP_TSS_CTXS);
	__type(key, struct uet_xdp_tss_key);
	__type(value, struct uet_xdp_tss_ctx_val);
} uet_xdp_tss_ctx SEC(".maps");

/* Keystream made ahead by the service (uet_xdp_shared.h). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UET_XDP_TSS_KS_ENTRIES);
	__type(key, struct uet_xdp_tss_ks_key);
	__type(value, struct uet_xdp_tss_ks_val);
} uet_xdp_tss_ks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, UET_XDP_TSS_KS_RING_BYTES);
} uet_xdp_tss_ks_ring SEC(".maps");

/* Keystream bytes made: two AES blocks (see uet_xdp_tss_read()). */
#define UET_XDP_TSS_KS_LEN	32

/* Per CPU: counter blocks in, keystream out, ciphertext read. */
struct uet_xdp_tss_scratch {
	__u8 ctr[UET_XDP_TSS_READ_LEN];
	__u8 pt[UET_XDP_TSS_READ_LEN];
	__u8 ct[UET_XDP_TSS_READ_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uet_xdp_tss_scratch);
} uet_xdp_tss_scratch SEC(".maps");

/* The key of a frame's context under SDI map value |v|. */
static __always_inline int uet_xdp_tss_key(struct uet_xdp_tss_key *k,
					   __u8 *p, __u32 v, void *l3,
					   void *end, int is_v6)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->sdi_an = ((__u32)p[1] << 16 | uet_xdp_be16(p + 2)) |
		    (__u32)(p[0] & 1) << 24;
	if (v & UET_XDP_SDI_READ_SD)
		return 0;
	k->sp = !!(p[0] & UET_XDP_TSS_SP);
	k->epoch = (__u16)uet_xdp_be16(p + (k->sp ? 8 : 4));
	if (k->sp) {
		__builtin_memcpy(k->src, p + 4, 4);
	} else if (is_v6) {
		struct ipv6hdr *ip6 = l3;

		if ((void *)(ip6 + 1) > end)
			return -1;
		k->is_v6 = 1;
		__builtin_memcpy(k->src, &ip6->saddr, 16);
	} else {
		struct iphdr *ip = l3;

		if ((void *)(ip + 1) > end)
			return -1;
		__builtin_memcpy(k->src, &ip->saddr, 4);
	}
	return 0;
}

/* The IV's first 4 bytes (tss/uet_tss.h), at |iv|. */
static __always_inline int uet_xdp_tss_iv_src(__u8 *iv, __u8 *p, void *l3,
					      void *end, int is_v6)
{
	if (p[0] & UET_XDP_TSS_SP) {
		__builtin_memcpy(iv, p + 4, 4);
	} else if (is_v6) {
		iv[0] = 0;
		iv[1] = p[1];
		iv[2] = p[2];
		iv[3] = p[3];
	} else {
		struct iphdr *ip = l3;

		if ((void *)(ip + 1) > end)
			return -1;
		__builtin_memcpy(iv, &ip->saddr, 4);
	}
	return 0;
}

/*
 * Plaintext block |b| (0 or 1) of the frame whose ciphertext starts at
 * |off|, into s->pt: AES of counter block 2 + b (s->ctr holds the IV),
 * XORed with the ciphertext (up to |n| bytes of it). 0 or -1.
 */
static __always_inline int uet_xdp_tss_keystream(struct xdp_md *ctx,
						 struct bpf_crypto_ctx *cc,
						 struct uet_xdp_tss_scratch *s,
						 __u32 off, __u32 b, __u64 n)
{
	struct bpf_dynptr src, dst, iv;
	__u64 *pt, *ct, len;
	__u8 *blk;

	b &= 1;
	blk = s->ctr + 16 * b;
	if (b)
		__builtin_memcpy(blk, s->ctr, 12);
	blk[12] = 0;
	blk[13] = 0;
	blk[14] = 0;
	blk[15] = (__u8)(2 + b);
	bpf_dynptr_from_mem(blk, 16, 0, &src);
	bpf_dynptr_from_mem(s->pt + 16 * b, 16, 0, &dst);
	bpf_dynptr_from_mem(s->ct, 0, 0, &iv);
	if (bpf_crypto_encrypt(cc, &src, &dst, &iv) < 0)
		return -1;
	len = n > 16 * b + 16 ? 16 : n - 16 * b;
	len &= 0x1F;
	if (!len || len > 16)
		return -1;
	if (bpf_xdp_load_bytes(ctx, off + 16 * b, s->ct + 16 * b, len) < 0)
		return -1;
	pt = (__u64 *)(s->pt + 16 * b);
	ct = (__u64 *)(s->ct + 16 * b);
	pt[0] ^= ct[0];
	pt[1] ^= ct[1];
	return 0;
}

/* |iv| names the next entry: its 48-bit TSC plus UET_XDP_TSS_KS_N. */
static __always_inline void uet_xdp_tss_ks_next(__u8 *iv)
{
	__u64 tsc = 0;
	int i;

	for (i = 6; i < 12; i++)
		tsc = tsc << 8 | iv[i];
	tsc += UET_XDP_TSS_KS_N;
	for (i = 11; i >= 6; i--) {
		iv[i] = (__u8)tsc;
		tsc >>= 8;
	}
}

/*
 * Asks the service for |n| keystream entries on the ring, from |kk|'s on,
 * or from the one after it when |next|. (|kk| itself unchanged: the
 * caller builds the frame's counter block from it.)
 */
static __always_inline void uet_xdp_tss_ks_ask(const struct uet_xdp_tss_ks_key *kk,
					       __u32 n, int next)
{
	struct uet_xdp_tss_ks_req req = { .entries = n };

	__builtin_memcpy(&req.key, kk, sizeof(*kk));
	if (next)
		uet_xdp_tss_ks_next(req.key.iv);
	if (bpf_ringbuf_output(&uet_xdp_tss_ks_ring, &req, sizeof(req), 0) == 0)
		uet_xdp_count(UET_XDP_CNT_TSS_KS_ASKED);
}

/*
 * The first plaintext block from the keystream entry made ahead, into
 * s->pt, as uet_xdp_tss_keystream() makes it with AES: 0, or -1 when
 * there is no entry for the frame's TSC. A frame past the middle of its
 * entry asks for the next ones, once (unless the service made them with
 * it: asked_ns set).
 */
static __always_inline int uet_xdp_tss_ks_read(struct xdp_md *ctx,
					       const struct uet_xdp_tss_ks_key *kk,
					       struct uet_xdp_tss_scratch *s,
					       __u32 off, __u64 n, __u32 idx)
{
	struct uet_xdp_tss_ks_val *kv;
	__u64 *pt, *ct, *ks, len;

	kv = bpf_map_lookup_elem(&uet_xdp_tss_ks, kk);
	if (!kv)
		return -1;
	idx &= UET_XDP_TSS_KS_N - 1;
	len = n > 16 ? 16 : n;
	len &= 0x1F;
	if (!len || len > 16)
		return -1;
	if (bpf_xdp_load_bytes(ctx, off, s->ct, len) < 0)
		return -1;
	ks = (__u64 *)kv->ks[idx];
	pt = (__u64 *)s->pt;
	ct = (__u64 *)s->ct;
	pt[0] = ks[0] ^ ct[0];
	pt[1] = ks[1] ^ ct[1];
	uet_xdp_count(UET_XDP_CNT_TSS_KS_HIT);
	if (idx >= UET_XDP_TSS_KS_N / 2 && !kv->asked_ns) {
		kv->asked_ns = bpf_ktime_get_ns();
		uet_xdp_tss_ks_ask(kk, UET_XDP_TSS_KS_AHEAD, 1);
	}
	return 0;
}

/* Whether the first plaintext block at |pt| cannot name the endpoint. */
static __always_inline int uet_xdp_tss_needs_ses(__u8 *pt)
{
	__u32 pro = uet_xdp_be16(pt);
	__u32 type = pro >> UET_PDS_TYPE_SHIFT & UET_PDS_TYPE_MASK;

	switch (type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		return !!(pro & UET_PDS_F_REQ_SYN);
	case UET_PDS_TYPE_UUD_REQ:
	case UET_PDS_TYPE_RUDI_REQ:
		return 1;
	default:
		return 0;
	}
}

/* A frame named by its first block: requests by DPDCID, others as clear. */
static __always_inline __u32 uet_xdp_tss_first_block(__u8 *pt, void *end)
{
	__u32 type = uet_xdp_be16(pt) >> UET_PDS_TYPE_SHIFT & UET_PDS_TYPE_MASK;

	switch (type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		return uet_xdp_ep_of_dpdcid(pt, end);
	default:
		return uet_xdp_steer(pt, end);
	}
}

/*
 * The endpoint of the secured frame whose TSS header is at |p| (bounds of
 * its header and ICV checked by the caller), under SDI map value |v|:
 * UET_FEP_EP_SERVICE when it cannot be read (no context: counted). |ct_len|
 * is the ciphertext's length by the UDP header; |off| its offset in the
 * frame.
 */
static __always_inline __u32 uet_xdp_tss_read(struct xdp_md *ctx, __u8 *p,
					      void *end, __u32 v, void *l3,
					      int is_v6, __u32 off,
					      __u32 ct_len)
{
	struct uet_xdp_tss_ctx_val *cv;
	struct uet_xdp_tss_scratch *s;
	struct uet_xdp_tss_ks_key kk;
	struct uet_xdp_tss_key k;
	struct bpf_crypto_ctx *cc;
	__u32 zero = 0, hl, i, idx;
	__u64 n, now;	/* n 64 bits: a helper's length is bounded in all */
	int hit;

	if (!uet_xdp_ksym_exists(bpf_crypto_encrypt))
		return UET_FEP_EP_SERVICE;
	if (uet_xdp_tss_key(&k, p, v, l3, end, is_v6) < 0)
		return UET_FEP_EP_SERVICE;
	s = bpf_map_lookup_elem(&uet_xdp_tss_scratch, &zero);
	if (!s)
		return UET_FEP_EP_SERVICE;
	hl = (p[0] & UET_XDP_TSS_SP) ? UET_XDP_TSS_HDR_SSI_LEN :
				       UET_XDP_TSS_HDR_LEN;
	n = ct_len < UET_XDP_TSS_READ_LEN ? ct_len : UET_XDP_TSS_READ_LEN;
	barrier_var(n);
	if (n < UET_PDS_PROLOGUE_LEN || n > UET_XDP_TSS_READ_LEN)
		return UET_FEP_EP_SERVICE;
	/*
	 * The IV before its mask: SSI, IPv4 source or (IPv6, no SSI) SDI;
	 * epoch and TSC. Its keystream entry's key: the TSC's low bits
	 * clear. Most frames are read from the entry alone, without their
	 * context.
	 */
	__builtin_memcpy(&kk.k, &k, sizeof(k));
	if (uet_xdp_tss_iv_src(kk.iv, p, l3, end, is_v6) < 0)
		return UET_FEP_EP_SERVICE;
	__builtin_memcpy(kk.iv + 4, p + hl - 8, 8);
	kk.pad = 0;
	idx = kk.iv[11] & (UET_XDP_TSS_KS_N - 1);
	kk.iv[11] &= (__u8)~(UET_XDP_TSS_KS_N - 1);
	hit = uet_xdp_tss_ks_read(ctx, &kk, s, off + hl, n, idx) == 0;
	if (hit && !uet_xdp_tss_needs_ses(s->pt))
		goto first_block;
	cv = bpf_map_lookup_elem(&uet_xdp_tss_ctx, &k);
	cc = cv ? cv->ctx : NULL;
	if (!cv || !cc) {
		uet_xdp_count(UET_XDP_CNT_TSS_NO_CTX);
		return UET_FEP_EP_SERVICE;
	}
	/* The counter block: kk's IV with the TSC's low bits back, masked. */
	__builtin_memcpy(s->ctr, kk.iv, 11);
	s->ctr[11] = p[hl - 1];
	for (i = 0; i < 12; i++)
		s->ctr[i] ^= cv->iv_mask[i];
	if (!hit) {
		if (uet_xdp_tss_keystream(ctx, cc, s, off + hl, 0, n) < 0)
			return UET_FEP_EP_SERVICE;
		/* Ask for it, once a while per key (forged TSCs miss too). */
		now = bpf_ktime_get_ns();
		if (now - cv->ks_asked_ns > UET_XDP_TSS_KS_ASK_NS) {
			cv->ks_asked_ns = now;
			uet_xdp_tss_ks_ask(&kk, 1, 0);
		}
	}
	/*
	 * Most frames are named by their first block: an established PDC's
	 * DPDCID (bytes 10-11; a request's too, whose SES header a clear
	 * frame is steered by: the endpoint authenticates a sealed one, so
	 * its job is checked there). The others need the second block: what
	 * uet_xdp_steer() reads ends at byte 25 (a CC request's PIDonFEP).
	 * The rest of the buffer is not decrypted; its length checks see
	 * the frame's real length.
	 */
	if (!uet_xdp_tss_needs_ses(s->pt))
		goto first_block;
	uet_xdp_count(UET_XDP_CNT_TSS_READ);
	if (n > 16 && uet_xdp_tss_keystream(ctx, cc, s, off + hl, 1, n) < 0)
		return UET_FEP_EP_SERVICE;
	return uet_xdp_steer(s->pt, s->pt + n);
first_block:
	uet_xdp_count(UET_XDP_CNT_TSS_READ);
	return uet_xdp_tss_first_block(s->pt, s->pt + n);
}

#endif /* UET_XDP_TSS_H */
