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

/*
 * A whole decimal number at |s|: digits only (strtoul would take a sign
 * and blanks, and wrap what is too large into range), at most |max|. 0,
 * -EINVAL or -ERANGE.
 */
static int uetd_policy_num(const char *s, uint64_t max, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

static bool uetd_policy_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static int uetd_policy_who(struct uetd_rule *r, const char *w)
{
	uint32_t id;
	int ret;

	if (r->nwho == UETD_POLICY_WHO_MAX)
		return -E2BIG;
	if (*w == '@') {
		struct group *g = getgrnam(w + 1);

		if (g) {
			id = (uint32_t)g->gr_gid;
		} else if (uetd_policy_digits(w + 1)) {
			ret = uetd_policy_num(w + 1, UETD_POLICY_ID_MAX, &id);
			if (ret < 0)
				return ret;
		} else {
			return -ENOENT;
		}
		r->is_group[r->nwho] = true;
		r->id[r->nwho++] = id;
		return 0;
	}
	if (uetd_policy_digits(w)) {
		ret = uetd_policy_num(w, UETD_POLICY_ID_MAX, &id);
		if (ret < 0)
			return ret;
	} else {
		struct passwd *p = getpwnam(w);

		if (!p)
			return -ENOENT;
		id = (uint32_t)p->pw_uid;
	}
	r->id[r->nwho++] = id;
	return 0;
}

int uetd_policy_rule(struct uetd_rule *r, char *line)
{
	char *job = strtok(line, " \t\r\n"), *who = strtok(NULL, " \t\r\n");
	char *dash, *w, *save = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!job || !who || strtok(NULL, " \t\r\n"))
		return -EINVAL;
	dash = strchr(job, '-');
	if (dash)
		*dash = '\0';
	ret = uetd_policy_num(job, UET_SES_JOB_ID_MAX, &r->lo);
	if (!ret)
		ret = dash ? uetd_policy_num(dash + 1, UET_SES_JOB_ID_MAX,
					     &r->hi) : 0;
	if (ret < 0)
		return ret;
	if (!dash)
		r->hi = r->lo;
	if (r->lo > r->hi)
		return -ERANGE;
	for (w = strtok_r(who, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		ret = uetd_policy_who(r, w);
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
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, ret = 0;

	uetd_policy_free(p);
	/*
	 * Whole lines, however long: a line read in pieces would make a
	 * rule of the tail of a long comment, and refuse a long rule.
	 */
	while (getline(&line, &cap, f) >= 0) {
		char *hash = strchr(line, '#'), *s = line;
		struct uetd_rule r, *n;

		lineno++;
		if (hash)
			*hash = '\0';
		/* Blanks, and a CR: a file saved with CRLF line ends. */
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (!*s || *s == '\n')
			continue;
		ret = uetd_policy_rule(&r, s);
		if (ret < 0) {
			snprintf(err, err_len, "policy %s, line %d: %s", name,
				 lineno, ret == -ENOENT ?
				 "no such user or group" :
				 "want JOB[-JOB] WHO[,WHO...]");
			ret = -EINVAL;
			break;
		}
		n = realloc(p->rule, (p->n + 1) * sizeof(*n));
		if (!n) {
			snprintf(err, err_len, "policy %s: out of memory", name);
			ret = -ENOMEM;
			break;
		}
		p->rule = n;
		p->rule[p->n++] = r;
	}
	free(line);
	if (ret < 0)
		uetd_policy_free(p);
	return ret;
}
