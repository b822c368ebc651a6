/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The JobID policy file's parser (uetd_policy.h). One rule a line, '#'
 * starts a comment:
 *
 *   JOB[-JOB] WHO[,WHO...]
 *
 * JOB is a JobID (0..16777215) or a range; WHO a user name, a uid, or
 * @group (a name or a gid).
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "tools/uetd_policy.h"
#include "uet_wire.h"

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

int uetd_policy_rule(struct uetd_rule *r, char *line)
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

void uetd_policy_free(struct uetd_policy *p)
{
	free(p->rule);
	p->rule = NULL;
	p->n = 0;
}

int uetd_policy_parse(struct uetd_policy *p, FILE *f, const char *name,
		      char *err, size_t err_len)
{
	char line[512];
	int lineno = 0;

	uetd_policy_free(p);
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *s = line;
		struct uetd_rule r, *n;
		int ret;

		lineno++;
		if (hash)
			*hash = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '\n')
			continue;
		ret = uetd_policy_rule(&r, s);
		if (ret < 0) {
			snprintf(err, err_len, "policy %s, line %d: %s", name,
				 lineno, ret == -ENOENT ?
				 "no such user or group" :
				 "want JOB[-JOB] WHO[,WHO...]");
			uetd_policy_free(p);
			return -EINVAL;
		}
		n = realloc(p->rule, (p->n + 1) * sizeof(*n));
		if (!n) {
			snprintf(err, err_len, "policy %s: out of memory", name);
			uetd_policy_free(p);
			return -ENOMEM;
		}
		p->rule = n;
		p->rule[p->n++] = r;
	}
	return 0;
}
