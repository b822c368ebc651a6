/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target for the service's TSS key file parser
 * (tools/uetd_tss.c, uetd_tss_conf_parse) with the input as the file.
 *
 * Checked besides memory safety:
 * - a file that parses gives SDs within the documented ranges (SDI
 *   1..2^24-1, mode cluster or direct, the active AN's key given, 1..64
 *   JobID ranges lo <= hi <= 2^24-1), no SDI twice, no JobID in two SDs;
 * - as many SDs as the file has lines with something on them (split at
 *   '\n' here, comments and blanks gone), each from the line it names:
 *   that line parsed alone gives the same SD, so no SD comes from part of
 *   a line or out of a comment;
 * - a refused file leaves no SD, and its message names a line of the
 *   file and holds no key (no run of 16 hex digits).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/uetd_tss.h"
#include "uet_wire.h"

#define F_MAX	(64 * 1024)

static int f_parse(struct uetd_tss_conf *c, const uint8_t *p, size_t len,
		   char *err, size_t err_len)
{
	FILE *f = fmemopen((void *)p, len, "r");
	int ret;

	if (!f)
		abort();
	err[0] = '\0';
	ret = uetd_tss_conf_parse(c, f, "fuzz", err, err_len);
	fclose(f);
	return ret;
}

/* Line |n| (from 1) of |p|: its start and length without the '\n'. */
static bool f_line(const uint8_t *p, size_t len, int n, size_t *at,
		   size_t *ll)
{
	size_t s = 0;

	for (int i = 1; i < n; i++) {
		const uint8_t *nl = memchr(p + s, '\n', len - s);

		if (!nl)
			return false;
		s = (size_t)(nl - p) + 1;
	}
	if (s == len && n > 1)
		return false;	/* after the last '\n': no line */
	*at = s;
	*ll = (size_t)((const uint8_t *)(memchr(p + s, '\n', len - s) ?:
					 p + len) - (p + s));
	return true;
}

/* Whether a line holds something for the parser: up to '#' or a NUL. */
static bool f_line_used(const uint8_t *p, size_t ll)
{
	for (size_t i = 0; i < ll; i++) {
		if (p[i] == '#' || p[i] == '\0')
			return false;
		if (!strchr(" \t\r", p[i]))
			return true;
	}
	return false;
}

static int f_lines_used(const uint8_t *p, size_t len)
{
	size_t at, ll;
	int n = 0;

	for (int i = 1; f_line(p, len, i, &at, &ll); i++)
		n += f_line_used(p + at, ll);
	return n;
}

static void f_sd_check(const struct uetd_tss_sd *sd)
{
	if (sd->sdi < 1 || sd->sdi > UET_TSS_SDI_MAX ||
	    (sd->mode != UET_TSS_CLUSTER && sd->mode != UET_TSS_DIRECT) ||
	    sd->active > 1 || !(sd->have >> sd->active & 1) || sd->have > 3 ||
	    sd->nranges < 1 || sd->nranges > UETD_TSS_RANGES_MAX)
		__builtin_trap();
	for (uint32_t i = 0; i < sd->nranges; i++)
		if (sd->range[i].lo > sd->range[i].hi ||
		    sd->range[i].hi > UET_SES_JOB_ID_MAX)
			__builtin_trap();
}

static bool f_sd_same(const struct uetd_tss_sd *a, const struct uetd_tss_sd *b)
{
	return a->sdi == b->sdi && a->mode == b->mode &&
	       a->use_ssi == b->use_ssi && a->active == b->active &&
	       a->have == b->have && a->nranges == b->nranges &&
	       !memcmp(a->key, b->key, sizeof(a->key)) &&
	       !memcmp(a->fp, b->fp, sizeof(a->fp)) &&
	       !memcmp(a->range, b->range, a->nranges * sizeof(a->range[0]));
}

static bool f_overlap(const struct uetd_tss_sd *a, const struct uetd_tss_sd *b)
{
	for (uint32_t i = 0; i < a->nranges; i++)
		for (uint32_t k = 0; k < b->nranges; k++)
			if (a->range[i].lo <= b->range[k].hi &&
			    b->range[k].lo <= a->range[i].hi)
				return true;
	return false;
}

/* The SD of line |sd->line| alone must be |sd|. */
static void f_sd_from_line(const struct uetd_tss_sd *sd, const uint8_t *p,
			   size_t len)
{
	struct uetd_tss_conf one = { 0 };
	char err[256];
	size_t at, ll;

	if (!f_line(p, len, sd->line, &at, &ll) || !f_line_used(p + at, ll))
		__builtin_trap();
	if (f_parse(&one, p + at, ll, err, sizeof(err)) < 0 ||
	    one.nsd != 1 || !f_sd_same(&one.sd[0], sd))
		__builtin_trap();
	uetd_tss_conf_free(&one);
}

static void f_err_check(const char *err, const uint8_t *p, size_t len)
{
	const char *l = strstr(err, ", line ");
	size_t at, ll, hex = 0;

	if (!l || !f_line(p, len, atoi(l + 7), &at, &ll))
		__builtin_trap();
	for (const char *s = err; *s; s++) {
		hex = strchr("0123456789abcdefABCDEF", *s) ? hex + 1 : 0;
		if (hex >= 16)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct uetd_tss_conf c = { 0 };
	char err[256];

	if (!len || len > F_MAX)
		return 0;
	if (f_parse(&c, data, len, err, sizeof(err)) < 0) {
		if (c.nsd || c.sd)
			__builtin_trap();
		f_err_check(err, data, len);
		return 0;
	}
	if ((int)c.nsd != f_lines_used(data, len))
		__builtin_trap();
	for (uint32_t i = 0; i < c.nsd; i++) {
		f_sd_check(&c.sd[i]);
		for (uint32_t k = 0; k < i; k++)
			if (c.sd[k].sdi == c.sd[i].sdi ||
			    f_overlap(&c.sd[k], &c.sd[i]) ||
			    c.sd[k].line >= c.sd[i].line)
				__builtin_trap();
		f_sd_from_line(&c.sd[i], data, len);
	}
	uetd_tss_conf_free(&c);
	return 0;
}
