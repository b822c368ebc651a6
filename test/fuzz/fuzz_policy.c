/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target for the service's JobID policy parser
 * (tools/uetd_policy_parse.c) with the input as the file.
 *
 * The file is also split into lines here (at '\n', comments gone) and
 * each line given to uetd_policy_rule() alone: the file parses exactly
 * when every line with something on it does, into those lines' rules in
 * order. Each rule accepted is checked against its words, read here: JOB
 * is decimal digits, or two runs of them around one '-', lo <= hi <=
 * 2^24-1; a WHO that is no user (no group after '@') is decimal digits
 * naming an id below 2^32-1 ((uid_t)-1 is no user). Besides memory
 * safety, anything else traps.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/uetd_policy.h"
#include "uet_wire.h"

#define F_MAX		(64 * 1024)
#define F_RULES_MAX	4096
#define F_ID_MAX	0xFFFFFFFEull

static struct uetd_rule f_want[F_RULES_MAX];

/* A run of decimal digits, whole, at most |max|: its value, or -1. */
static int64_t f_num(const char *s, size_t n, uint64_t max)
{
	uint64_t v = 0;

	if (!n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > max)
			return -1;
	}
	return (int64_t)v;
}

/* Whether JOB word |w| says what rule |r| holds. */
static bool f_job_ok(const char *w, const struct uetd_rule *r)
{
	const char *dash = strchr(w, '-');
	int64_t lo, hi;

	lo = f_num(w, dash ? (size_t)(dash - w) : strlen(w),
		   UET_SES_JOB_ID_MAX);
	hi = dash ? f_num(dash + 1, strlen(dash + 1), UET_SES_JOB_ID_MAX) : lo;
	return lo >= 0 && hi >= lo && r->lo == lo && r->hi == hi;
}

/* Whether WHO word |w| is entry |k| of |r|. */
static bool f_who_ok(const char *w, const struct uetd_rule *r, uint32_t k)
{
	int64_t v;

	if (*w == '@') {
		struct group *g = getgrnam(w + 1);

		if (g)
			return r->is_group[k] && r->id[k] == g->gr_gid;
		v = f_num(w + 1, strlen(w + 1), F_ID_MAX);
		return v >= 0 && r->is_group[k] && r->id[k] == v;
	}
	v = f_num(w, strlen(w), F_ID_MAX);
	if (v < 0) {
		struct passwd *p = getpwnam(w);

		if (!p)
			return false;
		v = p->pw_uid;
	}
	return !r->is_group[k] && r->id[k] == v;
}

/* The rule |r| the parser made of |line| must be what its words say. */
static void f_rule_check(const char *line, const struct uetd_rule *r)
{
	char *copy = strdup(line), *save = NULL, *job, *who, *w;
	uint32_t k = 0;

	if (!copy)
		abort();
	job = strtok_r(copy, " \t\r\n", &save);
	who = strtok_r(NULL, " \t\r\n", &save);
	if (!job || !who || !f_job_ok(job, r) || r->nwho > UETD_POLICY_WHO_MAX)
		__builtin_trap();
	for (w = strtok_r(who, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (k >= r->nwho || !f_who_ok(w, r, k++))
			__builtin_trap();
	if (k != r->nwho)
		__builtin_trap();
	free(copy);
}

/*
 * The rules of |p| line by line: how many into f_want, or -1 when a line
 * is refused.
 */
static int f_lines(const uint8_t *p, size_t len)
{
	size_t s = 0;
	int n = 0;

	while (s < len) {
		const uint8_t *nl = memchr(p + s, '\n', len - s);
		size_t ll = nl ? (size_t)(nl - (p + s)) : len - s;
		char *line = strndup((const char *)p + s, ll), *hash, *t;
		struct uetd_rule r;
		int ret = 0;

		if (!line)
			abort();
		s += ll + 1;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (t = line; *t == ' ' || *t == '\t' || *t == '\r'; t++)
			;
		if (*t) {
			char *keep = strdup(t);

			if (!keep)
				abort();
			ret = uetd_policy_rule(&r, t);
			if (!ret) {
				f_rule_check(keep, &r);
				if (n == F_RULES_MAX)
					abort();
				f_want[n++] = r;
			}
			free(keep);
		}
		free(line);
		if (ret < 0)
			return -1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct uetd_policy pol = { 0 };
	char err[256];
	FILE *f;
	int ret, want;

	if (!len || len > F_MAX)
		return 0;
	f = fmemopen((void *)data, len, "r");
	if (!f)
		abort();
	ret = uetd_policy_parse(&pol, f, "fuzz", err, sizeof(err));
	fclose(f);
	want = f_lines(data, len);
	if (ret == -ENOMEM)
		return 0;
	if ((ret < 0) != (want < 0))
		__builtin_trap();
	if (ret < 0) {
		if (pol.n || pol.rule || !strstr(err, ", line "))
			__builtin_trap();
		return 0;
	}
	if (pol.n != (uint32_t)want)
		__builtin_trap();
	for (uint32_t i = 0; i < pol.n; i++)
		if (memcmp(&pol.rule[i], &f_want[i], sizeof(f_want[i])))
			__builtin_trap();
	uetd_policy_free(&pol);
	return 0;
}
