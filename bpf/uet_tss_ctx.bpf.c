// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Makes the AES contexts with which the XDP program reads secured frames'
 * headers (uet_xdp_tss.h): bpf_crypto_ctx_create() may sleep, so it runs
 * in this BPF_PROG_TYPE_SYSCALL program, which the device service runs
 * (bpf_prog_test_run) with a struct uet_xdp_tss_ctx_args as its context,
 * and which puts the context in the XDP program's uet_xdp_tss_ctx (its
 * pinned map, reused) as a kptr. Deleting the entry releases it.
 */
#include <linux/bpf.h>
#include <linux/errno.h>
#include <bpf/bpf_helpers.h>

#include "uet_xdp_shared.h"

#define UET_XDP_KPTR	__attribute__((btf_type_tag("kptr")))

/*
 * Opaque: the kernel's is found by name (kfunc and kptr types must be
 * structs here, not declarations, for libbpf and the verifier to match).
 */
struct bpf_crypto_ctx {
	int opaque;
};

/* The kernel's (kernel/bpf/crypto.c), checked against params__sz. */
struct bpf_crypto_params {
	char type[14];
	__u8 reserved[2];
	char algo[128];
	__u8 key[256];
	__u32 key_len;
	__u32 authsize;
};

extern struct bpf_crypto_ctx *
bpf_crypto_ctx_create(const struct bpf_crypto_params *params,
		      __u32 params__sz, int *err) __ksym;
extern void bpf_crypto_ctx_release(struct bpf_crypto_ctx *ctx) __ksym;

/* As in uet_xdp_tss.h: the map is the XDP program's, by its pin. */
struct uet_xdp_tss_ctx_val {
	struct bpf_crypto_ctx UET_XDP_KPTR *ctx;
	__u8 iv_mask[12];
	__u32 pad;
	__u64 ks_asked_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UET_XDP_TSS_CTXS);
	__type(key, struct uet_xdp_tss_key);
	__type(value, struct uet_xdp_tss_ctx_val);
} uet_xdp_tss_ctx SEC(".maps");

SEC("syscall")
int uet_tss_ctx_add(struct uet_xdp_tss_ctx_args *a)
{
	struct bpf_crypto_params params = {
		.type = "skcipher",
		.algo = "ecb(aes)",
		.key_len = sizeof(a->key),
	};
	struct uet_xdp_tss_ctx_val val = { 0 }, *v;
	struct bpf_crypto_ctx *cc, *old;
	struct uet_xdp_tss_key k;
	int err = 0;

	/* Map calls take keys from the stack, not the context. */
	__builtin_memcpy(&k, &a->k, sizeof(k));
	__builtin_memcpy(params.key, a->key, sizeof(a->key));
	cc = bpf_crypto_ctx_create(&params, sizeof(params), &err);
	__builtin_memset(params.key, 0, sizeof(params.key));
	if (!cc) {
		a->err = err ? err : -ENOMEM;
		return 0;
	}
	/*
	 * An entry there already (the service asks again for each frame
	 * of a stream that came before XDP had its context) gets the new
	 * context in place. Replacing the element put its memory up for
	 * reuse while XDP on the other core could still be reading it,
	 * and left the stream a moment without a context; a context
	 * swapped out is freed only after XDP's readers are done (RCU).
	 */
	v = bpf_map_lookup_elem(&uet_xdp_tss_ctx, &k);
	if (v) {
		__builtin_memcpy(v->iv_mask, a->iv_mask, sizeof(v->iv_mask));
	} else {
		__builtin_memcpy(val.iv_mask, a->iv_mask,
				 sizeof(val.iv_mask));
		err = bpf_map_update_elem(&uet_xdp_tss_ctx, &k, &val,
					  BPF_NOEXIST);
		if (err == -EEXIST)
			err = 0;
		v = err ? NULL : bpf_map_lookup_elem(&uet_xdp_tss_ctx, &k);
	}
	if (!v) {
		bpf_crypto_ctx_release(cc);
		a->err = err ? err : -ENOENT;
		return 0;
	}
	old = bpf_kptr_xchg(&v->ctx, cc);
	if (old)
		bpf_crypto_ctx_release(old);
	a->err = 0;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
