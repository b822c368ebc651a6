// SPDX-License-Identifier: BSD-2-Clause
/*
 * AES contexts for the XDP program (uetd_tss_xdp.h): the syscall program
 * of bpf/uet_tss_ctx.bpf.c, run with bpf_prog_test_run, puts each in the
 * program's pinned uet_xdp_tss_ctx.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <openssl/crypto.h>

#include "dev/uet_xdp_ctl.h"
#include "tools/uetd_tss_xdp.h"
#include "uet_tss_ctx.skel.h"
#include "uet_xdp_shared.h"

struct uetd_tss_xdp {
	struct uet_tss_ctx *skel;
	int map;
	bool on;
	char why[160];
	uint64_t added, failed;
	/* Keystream made ahead (uet_xdp_tss_ks); -1 and NULL: not here. */
	int ks_map, ks_ring_fd;
	struct ring_buffer *ks_ring;
	uetd_tss_km_fn ks_km;
	void *ks_arg;
	uint64_t ks_made, ks_failed;
};

static int uetd_tss_xdp_quiet(enum libbpf_print_level level, const char *fmt,
			      va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int uetd_tss_xdp_run(struct uetd_tss_xdp *x,
			    struct uet_xdp_tss_ctx_args *a)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = a,
		    .ctx_size_in = sizeof(*a));
	int ret;

	ret = bpf_prog_test_run_opts(
		bpf_program__fd(x->skel->progs.uet_tss_ctx_add), &o);
	if (ret < 0)
		ret = -errno;
	else
		ret = a->err;
	OPENSSL_cleanse(a->key, sizeof(a->key));
	return ret;
}

/* What the kernel said, for status. */
static void uetd_tss_xdp_off(struct uetd_tss_xdp *x, const char *what,
			     int err)
{
	snprintf(x->why, sizeof(x->why), "%s: %s", what, strerror(-err));
	x->on = false;
}

/* |iv|'s 48-bit TSC (its last 6 bytes) plus |d|. */
static void uetd_tss_xdp_tsc_add(uint8_t iv[12], uint64_t d)
{
	uint64_t tsc = 0;
	int i;

	for (i = 6; i < 12; i++)
		tsc = tsc << 8 | iv[i];
	tsc += d;
	for (i = 11; i >= 6; i--, tsc >>= 8)
		iv[i] = (uint8_t)tsc;
}

_Static_assert(UET_XDP_TSS_KS_AHEAD * UET_XDP_TSS_KS_N <= UET_TSS_KS_MAX,
	       "a request's entries in one uet_tss_keystream() call");

/*
 * One request of the program's: the entries of keystream it names (its
 * key's and the next ones, struct uet_xdp_tss_ks_req), made in one call
 * with the key material of its context's key (x->ks_km).
 */
static int uetd_tss_xdp_ks_make(void *ctx, void *data, size_t len)
{
	static uint8_t ks[UET_XDP_TSS_KS_AHEAD * UET_XDP_TSS_KS_N][16];
	static struct uet_xdp_tss_ks_val val;
	struct uetd_tss_xdp *x = ctx;
	struct uet_xdp_tss_ks_req req = { .entries = 1 };
	struct uet_tss_keymat km;
	uint32_t e;
	int ret;

	/* (A program older than the batches asks with the key alone.) */
	if (len < sizeof(req.key))
		return 0;
	memcpy(&req, data, len < sizeof(req) ? len : sizeof(req));
	if (!req.entries || req.entries > UET_XDP_TSS_KS_AHEAD)
		req.entries = 1;
	ret = x->ks_km(x->ks_arg, &req.key.k, &km);
	if (!ret)
		ret = uet_tss_keystream(ks, req.entries * UET_XDP_TSS_KS_N,
					&km, req.key.iv);
	OPENSSL_cleanse(&km, sizeof(km));
	for (e = 0; e < req.entries; e++) {
		if (e)
			uetd_tss_xdp_tsc_add(req.key.iv, UET_XDP_TSS_KS_N);
		memcpy(val.ks, ks[e * UET_XDP_TSS_KS_N], sizeof(val.ks));
		/* Set: the program's frames past its middle ask for none. */
		val.asked_ns = e + 1 < req.entries;
		/*
		 * An entry there already holds these very bytes (a key's
		 * keystream never changes; a reload flushes them all), and
		 * replacing it would free its element to the LRU's free list
		 * while the program may be reading it on the other core: the
		 * next update could reuse it for another stream's row.
		 */
		if (!ret && bpf_map_update_elem(x->ks_map, &req.key, &val,
						BPF_NOEXIST) && errno != EEXIST)
			ret = -errno;
		if (ret)
			x->ks_failed++;
		else
			x->ks_made++;
	}
	OPENSSL_cleanse(ks, sizeof(ks));
	OPENSSL_cleanse(&val, sizeof(val));
	return 0;
}

/* The keystream map and ring, when the program has them (not older). */
static void uetd_tss_xdp_ks_open(struct uetd_tss_xdp *x, const char *ifname)
{
	x->ks_ring_fd = uet_xdp_map_open(ifname, "uet_xdp_tss_ks_ring");
	x->ks_map = uet_xdp_map_open(ifname, "uet_xdp_tss_ks");
	if (x->ks_ring_fd >= 0 && x->ks_map >= 0)
		x->ks_ring = ring_buffer__new(x->ks_ring_fd,
					      uetd_tss_xdp_ks_make, x, NULL);
	if (!x->ks_ring) {
		if (x->ks_ring_fd >= 0)
			close(x->ks_ring_fd);
		if (x->ks_map >= 0)
			close(x->ks_map);
		x->ks_ring_fd = x->ks_map = -1;
	}
}

struct uetd_tss_xdp *uetd_tss_xdp_new(const char *ifname,
				      const char *setting)
{
	struct uetd_tss_xdp *x = calloc(1, sizeof(*x));
	struct uet_xdp_tss_ctx_args a = { .k.sdi_an = UINT32_MAX };
	libbpf_print_fn_t old;
	int ret;

	if (!x)
		return NULL;
	x->ks_map = x->ks_ring_fd = -1;
	if (setting && !strcmp(setting, "off")) {
		snprintf(x->why, sizeof(x->why), "UET_TSS_XDP=off");
		x->map = -1;
		return x;
	}
	x->map = uet_xdp_map_open(ifname, "uet_xdp_tss_ctx");
	if (x->map < 0) {
		uetd_tss_xdp_off(x, "the XDP program has no context map "
				 "(an older one)", x->map);
		return x;
	}
	old = libbpf_set_print(uetd_tss_xdp_quiet);
	x->skel = uet_tss_ctx__open();
	ret = x->skel ? uet_xdp_kptr_fix(x->skel->obj) : -errno;
	if (!ret)
		ret = bpf_map__reuse_fd(x->skel->maps.uet_xdp_tss_ctx, x->map);
	if (!ret)
		ret = uet_tss_ctx__load(x->skel);
	libbpf_set_print(old);
	if (ret) {
		uetd_tss_xdp_off(x, "no BPF crypto kfuncs for the context "
				 "maker", ret < 0 ? ret : -EINVAL);
		return x;
	}
	/* One context of a key no frame has (SDI above 24 bits). */
	ret = uetd_tss_xdp_run(x, &a);
	bpf_map_delete_elem(x->map, &a.k);
	if (ret) {
		uetd_tss_xdp_off(x, "no ecb(aes) context", ret);
		return x;
	}
	x->on = true;
	uetd_tss_xdp_ks_open(x, ifname);
	return x;
}

void uetd_tss_xdp_free(struct uetd_tss_xdp *x, bool flush)
{
	if (!x)
		return;
	if (x->on && flush)
		uetd_tss_xdp_flush(x);
	uet_tss_ctx__destroy(x->skel);
	if (x->map >= 0)
		close(x->map);
	ring_buffer__free(x->ks_ring);
	if (x->ks_ring_fd >= 0)
		close(x->ks_ring_fd);
	if (x->ks_map >= 0)
		close(x->ks_map);
	free(x);
}

bool uetd_tss_xdp_on(const struct uetd_tss_xdp *x)
{
	return x && x->on;
}

const char *uetd_tss_xdp_why(const struct uetd_tss_xdp *x)
{
	return x ? x->why : "out of memory";
}

int uetd_tss_xdp_add(struct uetd_tss_xdp *x, uint32_t sdi, uint8_t an,
		     const struct uet_tss_hdr *h, const struct uet_tss_src *src,
		     const uint8_t key[UET_TSS_KEY_LEN],
		     const uint8_t iv_mask[UET_TSS_IV_LEN])
{
	struct uet_xdp_tss_ctx_args a = {
		.k.sdi_an = sdi | (uint32_t)an << 24,
	};
	int ret;

	if (!uetd_tss_xdp_on(x))
		return -EOPNOTSUPP;
	if (h) {
		a.k.epoch = h->epoch;
		a.k.sp = h->sp;
		if (h->sp) {
			a.k.src[0] = (uint8_t)(h->ssi >> 24);
			a.k.src[1] = (uint8_t)(h->ssi >> 16);
			a.k.src[2] = (uint8_t)(h->ssi >> 8);
			a.k.src[3] = (uint8_t)h->ssi;
		} else {
			a.k.is_v6 = src->is_v6;
			memcpy(a.k.src, src->addr, src->is_v6 ? 16 : 4);
		}
	}
	memcpy(a.key, key, sizeof(a.key));
	memcpy(a.iv_mask, iv_mask, sizeof(a.iv_mask));
	ret = uetd_tss_xdp_run(x, &a);
	if (ret)
		x->failed++;
	else
		x->added++;
	return ret;
}

void uetd_tss_xdp_flush(struct uetd_tss_xdp *x)
{
	struct uet_xdp_tss_key k;
	struct uet_xdp_tss_ks_key kk;

	if (!uetd_tss_xdp_on(x))
		return;
	/* Deleting releases each context; the first key is then new. */
	for (unsigned int i = 0; i < UET_XDP_TSS_CTXS &&
	     bpf_map_get_next_key(x->map, NULL, &k) == 0; i++)
		bpf_map_delete_elem(x->map, &k);
	/* Keystream of the old keys would name wrong endpoints. */
	for (unsigned int i = 0; x->ks_map >= 0 &&
	     i < UET_XDP_TSS_KS_ENTRIES &&
	     bpf_map_get_next_key(x->ks_map, NULL, &kk) == 0; i++)
		bpf_map_delete_elem(x->ks_map, &kk);
}

int uetd_tss_xdp_ks_fd(const struct uetd_tss_xdp *x)
{
	return uetd_tss_xdp_on(x) && x->ks_ring ?
	       ring_buffer__epoll_fd(x->ks_ring) : -1;
}

int uetd_tss_xdp_ks_serve(struct uetd_tss_xdp *x, uetd_tss_km_fn km,
			  void *arg)
{
	uint64_t made = x ? x->ks_made : 0;
	int ret;

	if (!uetd_tss_xdp_on(x) || !x->ks_ring)
		return 0;
	x->ks_km = km;
	x->ks_arg = arg;
	ret = ring_buffer__consume(x->ks_ring);
	if (ret < 0)
		return ret;
	return (int)(x->ks_made - made);
}

int uetd_tss_xdp_describe(const struct uetd_tss_xdp *x, char *buf,
			  size_t len)
{
	if (uetd_tss_xdp_on(x) && x->ks_ring)
		return snprintf(buf, len, "in XDP (BPF crypto ecb(aes): "
				"%llu contexts made, %llu failed; keystream "
				"made ahead: %llu entries, %llu failed)",
				(unsigned long long)x->added,
				(unsigned long long)x->failed,
				(unsigned long long)x->ks_made,
				(unsigned long long)x->ks_failed);
	if (uetd_tss_xdp_on(x))
		return snprintf(buf, len, "in XDP (BPF crypto ecb(aes): "
				"%llu contexts made, %llu failed; no keystream "
				"made ahead: an older program)",
				(unsigned long long)x->added,
				(unsigned long long)x->failed);
	return snprintf(buf, len, "by the service (%s)", uetd_tss_xdp_why(x));
}
