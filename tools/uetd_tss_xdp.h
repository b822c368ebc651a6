/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The service's side of reading sealed frames' headers in XDP
 * (bpf/uet_xdp_tss.h): it makes the AES contexts the program uses, one per
 * (SDI, AN) of a direct-mode SD, one per sender stream of a cluster-mode
 * SD (the stream's first frame reaches the service, which authenticates
 * it, then adds the stream's). Where the kernel cannot (no BPF crypto
 * kfuncs, no ecb(aes)), the service hands frames on as before.
 */
#ifndef UETD_TSS_XDP_H
#define UETD_TSS_XDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tss/uet_tss.h"

struct uetd_tss_xdp;

/*
 * Loads the context maker against |ifname|'s program and makes one
 * context to see that it works. Never NULL unless out of memory: when
 * the kernel cannot, or |setting| (UET_TSS_XDP, checked by the caller:
 * NULL, "auto" or "off") is "off", uetd_tss_xdp_on() says false and
 * uetd_tss_xdp_why() says why.
 */
struct uetd_tss_xdp *uetd_tss_xdp_new(const char *ifname,
				      const char *setting);
void uetd_tss_xdp_free(struct uetd_tss_xdp *x, bool flush);
bool uetd_tss_xdp_on(const struct uetd_tss_xdp *x);
const char *uetd_tss_xdp_why(const struct uetd_tss_xdp *x);

/*
 * A context for frames of |sdi| under AN |an| with |key| and |iv_mask|:
 * for the whole SD (|h| NULL: direct mode) or for the stream of header
 * |h| from |src| (cluster mode). 0 or -errno (counted).
 */
int uetd_tss_xdp_add(struct uetd_tss_xdp *x, uint32_t sdi, uint8_t an,
		     const struct uet_tss_hdr *h, const struct uet_tss_src *src,
		     const uint8_t key[UET_TSS_KEY_LEN],
		     const uint8_t iv_mask[UET_TSS_IV_LEN]);

/* Drops every context and keystream entry (new keys). */
void uetd_tss_xdp_flush(struct uetd_tss_xdp *x);

/*
 * Keystream made ahead (include/uet_xdp_shared.h: uet_xdp_tss_ks): the
 * program asks on a ring for the entries its streams will need, and the
 * service makes them with the CPU's AES. uetd_tss_xdp_ks_fd() is the fd
 * to poll for requests (-1: none come); uetd_tss_xdp_ks_serve() answers
 * those waiting, getting the key material of a context's key |k| from
 * |km| (0 or -errno: that request fails, counted). Returns the entries
 * made, or -errno.
 */
struct uet_xdp_tss_key;
typedef int (*uetd_tss_km_fn)(void *arg, const struct uet_xdp_tss_key *k,
			      struct uet_tss_keymat *km);
int uetd_tss_xdp_ks_fd(const struct uetd_tss_xdp *x);
int uetd_tss_xdp_ks_serve(struct uetd_tss_xdp *x, uetd_tss_km_fn km,
			  void *arg);

/* "in XDP (...)" or "by the service (why)", and the counts. */
int uetd_tss_xdp_describe(const struct uetd_tss_xdp *x, char *buf,
			  size_t len);

#endif /* UETD_TSS_XDP_H */
