/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Target-side Resource Index tables: per endpoint (JobID, PIDonFEP) and RI,
 * a table of registered regions selected by the 48-bit RKEY of the memory
 * key, with an 8-bit generation bumped whenever an entry is removed or
 * replaced (design section 3).
 */
#ifndef SES_RI_H
#define SES_RI_H

#include "ses/ses.h"

/* Names one RI table. */
struct ses_ri_id {
	uint32_t job_id;	/* 24 bits */
	uint16_t pid_on_fep;	/* 12 bits */
	uint16_t ri;		/* 12 bits */
};

/* ses_ri_add flags */
#define SES_RI_F_MSG		0x1	/* sends may target this RI */
#define SES_RI_F_NO_GEN		0x2	/* no generations: never checked */
#define SES_RI_F_DISABLED	0x4	/* created disabled */

/* Region access rights (ses_mr_add). */
#define SES_ACCESS_REMOTE_WRITE	0x1
#define SES_ACCESS_REMOTE_READ	0x2
/* Idempotent-safe (UET_MKEY_IDEMPOTENT_SAFE): RUDI may write or read it. */
#define SES_ACCESS_IDEMPOTENT	0x4

/*
 * Creates the RI table |id| (the endpoint exists while it has tables).
 * Returns 0, -EINVAL (field too wide, bad flags), -EEXIST or -ENOMEM.
 */
int ses_ri_add(struct ses *s, const struct ses_ri_id *id, uint32_t flags);
/* Removes table |id| and its regions. Returns 0 or -ENOENT. */
int ses_ri_remove(struct ses *s, const struct ses_ri_id *id);
/*
 * A disabled table answers RC_DISABLED (RC_DISABLED_GEN when it uses
 * generations). Return 0 or -ENOENT.
 */
int ses_ri_enable(struct ses *s, const struct ses_ri_id *id);
int ses_ri_disable(struct ses *s, const struct ses_ri_id *id);
/* The current generation (0..255) of |id|, or -ENOENT. */
int ses_ri_gen_get(const struct ses *s, const struct ses_ri_id *id);

/*
 * Registers [base, base + len) under |rkey| (47:0; wider values -EINVAL)
 * in table |id| with SES_ACCESS_* rights. Returns 0, -ENOENT (no table),
 * -EEXIST (key in use), -EINVAL or -ENOMEM.
 */
int ses_mr_add(struct ses *s, const struct ses_ri_id *id, uint64_t rkey,
	       void *base, uint64_t len, uint32_t access);
/* Unregisters |rkey| and bumps the generation. Returns 0 or -ENOENT. */
int ses_mr_remove(struct ses *s, const struct ses_ri_id *id, uint64_t rkey);
/*
 * Points |rkey| at a new region and bumps the generation, so requests
 * made against the old one fail RC_BAD_GENERATION. Returns as ses_mr_add,
 * -ENOENT when the key is not registered.
 */
int ses_mr_replace(struct ses *s, const struct ses_ri_id *id, uint64_t rkey,
		   void *base, uint64_t len, uint32_t access);

#endif /* SES_RI_H */
