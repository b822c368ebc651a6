/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which users may use which JobIDs: the service's policy file (uetd
 * --policy FILE, default /etc/uet/jobs.conf when it exists). One rule a
 * line, '#' starts a comment:
 *
 *   JOB[-JOB] WHO[,WHO...]
 *
 * JOB is a JobID (0..16777215) or a range; WHO a user name, a uid, or
 * @group. A JobID that some rule names may be used only by the users it
 * names (and root). A JobID no rule names follows the default rule: it
 * belongs to the user who opened its first endpoint while any of its
 * endpoints is open (uetd_ep.c). Rules are read at start; a bad line
 * stops the service with its line number.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/uetd.h"
#include "uet_wire.h"

#define UETD_POLICY_WHO_MAX	16

struct uetd_rule {
	uint32_t lo, hi;
	uint32_t nwho;
	bool is_group[UETD_POLICY_WHO_MAX];
	uint32_t id[UETD_POLICY_WHO_MAX];	/* uid or gid */
};

static struct uetd_rule *uetd_rules;
static uint32_t uetd_nrules;
static char uetd_policy_err[200];

const char *uetd_policy_error(void)
{
	return uetd_policy_err;
}

static int uetd_policy_who(struct uetd_rule *r, const char *w)
{
	char *end;
	unsigned long v;

	if (r->nwho == UETD_POLICY_WHO_MAX)
		return -E2BIG;
	if (*w == '@') {
		struct group *g = getgrnam(w + 1);

		v = strtoul(w + 1, &end, 10);
		if (!g && (*end || end == w + 1))
			return -ENOENT;
		r->is_group[r->nwho] = true;
		r->id[r->nwho++] = g ? (uint32_t)g->gr_gid : (uint32_t)v;
		return 0;
	}
	v = strtoul(w, &end, 10);
	if (*end || end == w) {
		struct passwd *p = getpwnam(w);

		if (!p)
			return -ENOENT;
		v = p->pw_uid;
	}
	r->id[r->nwho++] = (uint32_t)v;
	return 0;
}

static int uetd_policy_line(char *line, struct uetd_rule *r)
{
	char *job = strtok(line, " \t\n"), *who = strtok(NULL, " \t\n");
	char *dash, *end, *w, *save = NULL;

	memset(r, 0, sizeof(*r));
	if (!job || !who || strtok(NULL, " \t\n"))
		return -EINVAL;
	dash = strchr(job, '-');
	r->lo = (uint32_t)strtoul(job, &end, 10);
	if (end == job || (dash ? end != dash : *end != '\0'))
		return -EINVAL;
	r->hi = dash ? (uint32_t)strtoul(dash + 1, &end, 10) : r->lo;
	if (dash && (*end || end == dash + 1))
		return -EINVAL;
	if (r->lo > r->hi || r->hi > UET_SES_JOB_ID_MAX)
		return -ERANGE;
	for (w = strtok_r(who, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int ret = uetd_policy_who(r, w);

		if (ret < 0)
			return ret;
	}
	return 0;
}

int uetd_policy_load(struct uetd *d, const char *path, bool must_exist)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int lineno = 0;

	if (!f) {
		int err = errno;

		if (!must_exist && err == ENOENT)
			return 0;
		snprintf(uetd_policy_err, sizeof(uetd_policy_err),
			 "policy %s: %s", path, strerror(err));
		uetd_log(d, "%s", uetd_policy_err);
		return -err;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *p = line;
		struct uetd_rule r, *n;
		int ret;

		lineno++;
		if (hash)
			*hash = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			continue;
		ret = uetd_policy_line(p, &r);
		if (ret < 0) {
			snprintf(uetd_policy_err, sizeof(uetd_policy_err),
				 "policy %s, line %d: %s", path, lineno,
				 ret == -ENOENT ? "no such user or group" :
				 "want JOB[-JOB] WHO[,WHO...]");
			uetd_log(d, "%s", uetd_policy_err);
			fclose(f);
			return -EINVAL;
		}
		n = realloc(uetd_rules, (uetd_nrules + 1) * sizeof(*n));
		if (!n) {
			fclose(f);
			return -ENOMEM;
		}
		uetd_rules = n;
		uetd_rules[uetd_nrules++] = r;
	}
	fclose(f);
	uetd_log(d, "policy %s: %u rule(s)", path, uetd_nrules);
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

	for (uint32_t i = 0; i < uetd_nrules; i++) {
		const struct uetd_rule *r = &uetd_rules[i];

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
