/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which users may use which JobIDs: the service's policy file (uetd
 * --policy FILE, default /etc/uet/jobs.conf when it exists), its rules
 * read by uetd_policy_parse.c. A JobID that some rule names may be used
 * only by the users it names (and root). A JobID no rule names follows
 * the default rule: it belongs to the user who opened its first endpoint
 * while any of its endpoints is open (uetd_ep.c). Rules are read at
 * start; a bad line stops the service with its line number.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "tools/uetd.h"
#include "tools/uetd_policy.h"

static struct uetd_policy uetd_rules;
static char uetd_policy_err[200];

const char *uetd_policy_error(void)
{
	return uetd_policy_err;
}

int uetd_policy_load(struct uetd *d, const char *path, bool must_exist)
{
	FILE *f = fopen(path, "r");
	int ret;

	if (!f) {
		int err = errno;

		if (!must_exist && err == ENOENT)
			return 0;
		snprintf(uetd_policy_err, sizeof(uetd_policy_err),
			 "policy %s: %s", path, strerror(err));
		uetd_log(d, "%s", uetd_policy_err);
		return -err;
	}
	ret = uetd_policy_parse(&uetd_rules, f, path, uetd_policy_err,
				sizeof(uetd_policy_err));
	fclose(f);
	if (ret < 0) {
		uetd_log(d, "%s", uetd_policy_err);
		return ret;
	}
	uetd_log(d, "policy %s: %u rule(s)", path, uetd_rules.n);
	return 0;
}

/* Whether |gid| or a supplementary group of |uid| is |want|. */
static bool uetd_in_group(uid_t uid, gid_t gid, gid_t want)
{
	struct passwd *p;
	gid_t groups[64];
	int n = 64;

	if (gid == want)
		return true;
	p = getpwuid(uid);
	if (!p || getgrouplist(p->pw_name, p->pw_gid, groups, &n) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (groups[i] == want)
			return true;
	return false;
}

int uetd_policy_check(uint32_t job, uid_t uid, gid_t gid)
{
	bool named = false;

	for (uint32_t i = 0; i < uetd_rules.n; i++) {
		const struct uetd_rule *r = &uetd_rules.rule[i];

		if (job < r->lo || job > r->hi)
			continue;
		named = true;
		for (uint32_t k = 0; k < r->nwho; k++)
			if (r->is_group[k] ? uetd_in_group(uid, gid, r->id[k]) :
					     r->id[k] == uid)
				return 1;
	}
	return named ? (uid == 0 ? 1 : 0) : -1;
}
