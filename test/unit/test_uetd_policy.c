/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd's JobID policy file (tools/uetd_policy_parse.c): what parses into
 * which rules, and what is refused with which line.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tools/uetd_policy.h"

static int t_parse(struct uetd_policy *p, const char *text, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	cr_assert(f);
	err[0] = '\0';
	ret = uetd_policy_parse(p, f, "t.conf", err, 200);
	fclose(f);
	return ret;
}

Test(uetd_policy, parses_rules)
{
	struct uetd_policy p = { 0 };
	char err[200];

	cr_assert_eq(t_parse(&p, "# jobs\n\n500 root\n"
			     "  600-610 1000,@0,@root,daemon # a range\n"
			     "16777215 4294967294", err), 0, "%s", err);
	cr_assert_eq(p.n, 3);
	cr_assert_eq(p.rule[0].lo, 500);
	cr_assert_eq(p.rule[0].hi, 500);
	cr_assert_eq(p.rule[0].nwho, 1);
	cr_assert_eq(p.rule[0].id[0], 0);
	cr_assert_not(p.rule[0].is_group[0]);
	cr_assert_eq(p.rule[1].lo, 600);
	cr_assert_eq(p.rule[1].hi, 610);
	cr_assert_eq(p.rule[1].nwho, 4);
	cr_assert_eq(p.rule[1].id[0], 1000);
	cr_assert(p.rule[1].is_group[1] && p.rule[1].is_group[2]);
	cr_assert_eq(p.rule[1].id[1], 0);
	cr_assert_eq(p.rule[1].id[2], 0);
	cr_assert_eq(p.rule[1].id[3], 1);	/* daemon */
	cr_assert_eq(p.rule[2].lo, 0xFFFFFF);
	cr_assert_eq(p.rule[2].id[0], 4294967294u);
	uetd_policy_free(&p);
}

/* A file saved with CRLF line ends reads as the same rules. */
Test(uetd_policy, reads_crlf_line_ends)
{
	struct uetd_policy p = { 0 };
	char err[200];

	cr_assert_eq(t_parse(&p, "# jobs\r\n\r\n500 root\r\n"
			     "600-610 daemon,@root # a range\r\n", err), 0,
		     "%s", err);
	cr_assert_eq(p.n, 2);
	cr_assert_eq(p.rule[0].lo, 500);
	cr_assert_eq(p.rule[0].id[0], 0);
	cr_assert_eq(p.rule[1].hi, 610);
	cr_assert_eq(p.rule[1].nwho, 2);
	cr_assert_eq(p.rule[1].id[0], 1);	/* daemon */
	cr_assert(p.rule[1].is_group[1]);
	uetd_policy_free(&p);
}

static void t_bad(const char *text, const char *want)
{
	struct uetd_policy p = { 0 };
	char err[200];

	cr_assert_eq(t_parse(&p, text, err), -EINVAL, "accepted: %s", text);
	cr_assert(strstr(err, want), "'%s' lacks '%s'", err, want);
	cr_assert_eq(p.n, 0);
	cr_assert_null(p.rule);
}

Test(uetd_policy, refuses_bad_lines)
{
	t_bad("500\n", "line 1: want JOB");
	t_bad("# c\n500 root extra\n", "line 2: want JOB");
	t_bad("5x root\n", "want JOB");
	t_bad("5- root\n", "want JOB");
	t_bad("9-3 root\n", "want JOB");
	t_bad("16777216 root\n", "want JOB");
	t_bad("500 root\n501 nosuchuser-here\n", "line 2: no such user");
	t_bad("500 @nosuchgroup-here\n", "no such user or group");
	t_bad("500 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n", "want JOB");
}

/*
 * Numbers are decimal digits, in range: strtoul's signs, blanks and
 * wrap-around once let "4294967796" stand for JobID 500 and "-1" for uid
 * 4294967295 (found by test/fuzz/fuzz_policy.c).
 */
Test(uetd_policy, refuses_numbers_out_of_range)
{
	t_bad("4294967796 root\n", "want JOB");
	t_bad("0-4294967296 root\n", "want JOB");
	t_bad("+500 root\n", "want JOB");
	t_bad("\v500 root\n", "want JOB");
	t_bad("500-+600 root\n", "want JOB");
	t_bad("500 -1\n", "line 1:");
	t_bad("500 root,-610\n", "line 1:");
	t_bad("500 4294967295\n", "want JOB");
	t_bad("500 4294968296\n", "want JOB");
	t_bad("500 @-5\n", "line 1:");
	t_bad("500 @4294967295\n", "want JOB");
}

/*
 * Lines are whole however long: read in pieces of 511 bytes, the tail of
 * a long comment was a rule and a long rule was refused (found by
 * test/fuzz/fuzz_policy.c).
 */
Test(uetd_policy, reads_long_lines_whole)
{
	struct uetd_policy p = { 0 };
	char text[2048], err[200];

	/* A comment whose bytes from 511 on read as a rule. */
	memset(text, 'x', sizeof(text));
	text[0] = '#';
	strcpy(text + 511, " 500 root\n");
	cr_assert_eq(t_parse(&p, text, err), 0, "%s", err);
	cr_assert_eq(p.n, 0, "a rule out of a comment");
	t_bad(strcat(text, "600 nosuchuser-here\n"), "line 2: no such user");
	/* A rule of 1000 bytes. */
	memset(text, ' ', sizeof(text));
	memcpy(text, "500", 3);
	strcpy(text + 1000, "root\n");
	cr_assert_eq(t_parse(&p, text, err), 0, "%s", err);
	cr_assert_eq(p.n, 1);
	cr_assert_eq(p.rule[0].lo, 500);
	cr_assert_eq(p.rule[0].id[0], 0);
	uetd_policy_free(&p);
}
