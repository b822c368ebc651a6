/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The JobID policy file's rules (uetd --policy FILE): the parser alone
 * (uetd_policy_parse.c), apart from the service, so that its fuzzer and
 * unit tests link it without uetd. uetd_policy.c loads the file and
 * answers from the rules (uetd.h).
 */
#ifndef UETD_POLICY_H
#define UETD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UETD_POLICY_WHO_MAX	16
/* The largest uid or gid a rule names: (uid_t)-1 is nobody's. */
#define UETD_POLICY_ID_MAX	0xFFFFFFFEu

/* One line: JobIDs lo..hi, the users and groups that may use them. */
struct uetd_rule {
	uint32_t lo, hi;
	uint32_t nwho;
	bool is_group[UETD_POLICY_WHO_MAX];
	uint32_t id[UETD_POLICY_WHO_MAX];	/* uid or gid */
};

struct uetd_policy {
	struct uetd_rule *rule;
	uint32_t n;
};

/*
 * uetd_policy_rule() reads the rule of one line (comment and leading
 * blanks gone; |line| is cut up) into |r|. Numbers are decimal digits
 * alone. 0, -EINVAL (not JOB[-JOB] WHO[,WHO...]), -ERANGE (a JobID above
 * 2^24-1, a range backwards, an id above UETD_POLICY_ID_MAX), -ENOENT (no
 * such user or group), -E2BIG (too many WHOs).
 */
int uetd_policy_rule(struct uetd_rule *r, char *line);

/*
 * uetd_policy_parse() reads the rules of |f| (named |name| in messages)
 * into |p|, which it empties first. 0, or -EINVAL (-ENOMEM) with why in
 * |err|, naming the line; |p| is then empty.
 */
int uetd_policy_parse(struct uetd_policy *p, FILE *f, const char *name,
		      char *err, size_t err_len);
void uetd_policy_free(struct uetd_policy *p);

#endif /* UETD_POLICY_H */
