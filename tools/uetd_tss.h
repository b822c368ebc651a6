/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd's side of TSS (tss/uet_tss.h): the key file (uetd --tss-keys), the
 * epochs it hands out (uetd --tss-state), the UET_DEV_TSS answer, the XDP
 * program's SDI map, and the secured frames that reach the service.
 *
 * The parser and the state file know nothing of the service, so that unit
 * tests link them alone (uetd_tss.c, uetd_tss_state.c).
 */
#ifndef UETD_TSS_H
#define UETD_TSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tss/uet_tss.h"

#define UETD_TSS_FILE		"/etc/uet/tss.conf"	/* if it exists */
#define UETD_TSS_STATE_FMT	"/var/lib/uet/tss-%s.state"
#define UETD_TSS_SDS_MAX	1024	/* the XDP program's uet_xdp_sdi */
#define UETD_TSS_RANGES_MAX	64	/* JobID ranges of one SD */
#define UETD_TSS_FP_LEN		8	/* key fingerprint: SHA-256, cut */
#define UETD_TSS_EPOCHS		0x10000u
/* A line of the key file, its '\n' and a NUL: 64 ranges and two keys fit. */
#define UETD_TSS_LINE_MAX	4096

struct uetd_tss_range {
	uint32_t lo, hi;
};

struct uetd_tss_sd {
	uint32_t sdi;
	enum uet_tss_mode mode;
	bool use_ssi;
	uint8_t active;		/* the AN senders use */
	uint8_t have;		/* bit |an|: key[an] given */
	uint8_t key[2][UET_TSS_KEY_LEN];
	uint8_t fp[2][UETD_TSS_FP_LEN];
	uint32_t nranges;
	struct uetd_tss_range range[UETD_TSS_RANGES_MAX];
	int line;		/* where the file defines it */
};

struct uetd_tss_conf {
	struct uetd_tss_sd *sd;
	uint32_t nsd;
};

/*
 * uetd_tss_conf_parse() reads secure domains from |f| (named |name| in
 * messages) into |c|, which it empties first. 0, or -EINVAL (or -ENOMEM)
 * with why in |err|, naming the line. Key bytes never reach |err|.
 */
int uetd_tss_conf_parse(struct uetd_tss_conf *c, FILE *f, const char *name,
			char *err, size_t err_len);

/*
 * uetd_tss_conf_load() opens |path|, checks that it is a regular file
 * owned by root that neither group nor others may read or write, and
 * parses it. 0, -ENOENT (no such file), -EPERM (its permissions), or as
 * uetd_tss_conf_parse(); |err| says why.
 */
int uetd_tss_conf_load(struct uetd_tss_conf *c, const char *path, char *err,
		       size_t err_len);
void uetd_tss_conf_free(struct uetd_tss_conf *c);

/* The SD of JobID |job| or of index |sdi|; NULL when none. */
const struct uetd_tss_sd *uetd_tss_conf_job(const struct uetd_tss_conf *c,
					    uint32_t job);
const struct uetd_tss_sd *uetd_tss_conf_sdi(const struct uetd_tss_conf *c,
					    uint32_t sdi);

/* The first 8 bytes of SHA-256 of |key|: 0 or -EIO. */
int uetd_tss_fingerprint(uint8_t fp[UETD_TSS_FP_LEN],
			 const uint8_t key[UET_TSS_KEY_LEN]);

/*
 * Epochs (uetd_tss_state.c): per (SDI, AN, key fingerprint) the next free
 * one, kept in a file so that a restarted service never hands one out
 * twice. A key that changes has a new fingerprint: its epochs start at 0.
 * The file reserves UETD_TSS_EPOCH_BLOCK at a time, so that the service's
 * loop waits for the disk once per block of endpoints, not per endpoint;
 * a restart skips what was reserved and not handed out.
 */
#define UETD_TSS_EPOCH_BLOCK	32

struct uetd_tss_epoch_ent {
	uint32_t sdi;
	uint8_t an;
	uint8_t fp[UETD_TSS_FP_LEN];
	uint32_t next;		/* UETD_TSS_EPOCHS: all spent */
	uint32_t reserved;	/* the file's NEXT: next <= reserved */
};

struct uetd_tss_state {
	char path[256];
	struct uetd_tss_epoch_ent *ent;
	uint32_t n;
};

/*
 * Reads |path| (a missing file is an empty state; its directory is made,
 * 0700). 0 or -errno with why in |err|.
 */
int uetd_tss_state_load(struct uetd_tss_state *st, const char *path,
			char *err, size_t err_len);
void uetd_tss_state_free(struct uetd_tss_state *st);

/*
 * The next epoch of (|sdi|, |an|, |fp|), reserved in the file (a temporary
 * one synced and renamed over it) before it is returned in |*epoch|. 0,
 * -EKEYEXPIRED (all 65536 spent: the key must change), or -errno of the
 * file.
 */
int uetd_tss_epoch_alloc(struct uetd_tss_state *st, uint32_t sdi, uint8_t an,
			 const uint8_t fp[UETD_TSS_FP_LEN], uint16_t *epoch);

#endif /* UETD_TSS_H */
