/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd's TSS key file (tools/uetd_tss.c) and epoch state
 * (tools/uetd_tss_state.c): what parses, what is refused and with which
 * line, that files others may read are refused, and that epochs are never
 * handed out twice, across a reload of the state too.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/uetd_tss.h"

#define K0 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define K1 "ffeeddccbbaa99887766554433221100FFEEDDCCBBAA99887766554433221100"

static int t_parse(struct uetd_tss_conf *c, const char *text, char *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	cr_assert(f);
	err[0] = '\0';
	ret = uetd_tss_conf_parse(c, f, "t.conf", err, 200);
	fclose(f);
	return ret;
}

Test(uetd_tss, parses_sds)
{
	struct uetd_tss_conf c = { 0 };
	const struct uetd_tss_sd *sd;
	char err[200];

	cr_assert_eq(t_parse(&c, "# keys\n\n"
			     "sd 7 jobs 100,200-210 active 0 key0 " K0 "\n"
			     "  sd 16777215 jobs 5 mode direct ssi active 1 "
			     "key0 " K0 " key1 " K1 " # rotating\n", err), 0,
		     "%s", err);
	cr_assert_eq(c.nsd, 2);
	sd = uetd_tss_conf_job(&c, 205);
	cr_assert(sd);
	cr_assert_eq(sd->sdi, 7);
	cr_assert_eq(sd->mode, UET_TSS_CLUSTER);
	cr_assert_not(sd->use_ssi);
	cr_assert_eq(sd->have, 1);
	cr_assert_eq(sd->key[0][31], 0x1f);
	cr_assert_null(uetd_tss_conf_job(&c, 211));
	sd = uetd_tss_conf_sdi(&c, 0xFFFFFF);
	cr_assert(sd);
	cr_assert_eq(sd->mode, UET_TSS_DIRECT);
	cr_assert(sd->use_ssi);
	cr_assert_eq(sd->active, 1);
	cr_assert_eq(sd->have, 3);
	cr_assert_eq(sd->key[1][0], 0xff);
	cr_assert_eq(sd->key[1][16], 0xff);
	cr_assert_eq(sd->line, 4);
	/* Fingerprints: of the key, so equal keys have equal ones. */
	cr_assert_eq(memcmp(sd->fp[0], c.sd[0].fp[0], UETD_TSS_FP_LEN), 0);
	cr_assert_neq(memcmp(sd->fp[0], sd->fp[1], UETD_TSS_FP_LEN), 0);
	uetd_tss_conf_free(&c);
}

static void t_bad(const char *text, const char *want)
{
	struct uetd_tss_conf c = { 0 };
	char err[200];

	cr_assert_eq(t_parse(&c, text, err), -EINVAL, "accepted: %s", text);
	cr_assert(strstr(err, want), "'%s' lacks '%s'", err, want);
	cr_assert_null(strstr(err, "0001020304"), "a key in: %s", err);
	cr_assert_eq(c.nsd, 0);
}

Test(uetd_tss, refuses_bad_lines)
{
	t_bad("sd 0 jobs 1 active 0 key0 " K0 "\n", "line 1: an SDI is");
	t_bad("sd 16777216 jobs 1 active 0 key0 " K0 "\n", "an SDI is");
	t_bad("\nsd 1 jobs 1 active 1 key0 " K0 "\n",
	      "line 2: the active AN has no key");
	t_bad("sd 1 jobs 1 active 0 key0 " K0 "0\n", "64 hex digits");
	t_bad("sd 1 jobs 1 active 0 key0 " K0 " key0 " K0 "\n", "twice");
	t_bad("sd 1 jobs 9-3 active 0 key0 " K0 "\n", "low to high");
	t_bad("sd 1 jobs 16777216 active 0 key0 " K0 "\n", "0..16777215");
	t_bad("sd 1 jobs 1 mode fast active 0 key0 " K0 "\n",
	      "cluster or direct");
	t_bad("sd 1 jobs 1 key0 " K0 "\n", "want: sd SDI");
	t_bad("sd 1 jobs 1 active 0 key0 " K0 " colour red\n", "want: sd");
	t_bad("sd 1 jobs 1-10 active 0 key0 " K0 "\n"
	      "sd 2 jobs 20,5 active 0 key0 " K0 "\n",
	      "line 2: JobID 5 is in SD 1 (line 1) too");
	t_bad("sd 1 jobs 1 active 0 key0 " K0 "\n"
	      "sd 1 jobs 2 active 0 key0 " K0 "\n",
	      "line 2: SD 1 is defined on line 1 too");
}

/*
 * Lines are whole: read in pieces of 1023 bytes, the tail of a long
 * comment was an SD and an SD of 64 JobID ranges was refused (found by
 * test/fuzz/fuzz_tss_keyfile.c). Longer than UETD_TSS_LINE_MAX: refused.
 */
Test(uetd_tss, reads_long_lines_whole)
{
	static char text[3 * UETD_TSS_LINE_MAX];
	struct uetd_tss_conf c = { 0 };
	char err[200];
	size_t n;

	memset(text, 'x', 2000);
	text[0] = '#';
	strcpy(text + 1023, " sd 1 jobs 1 active 0 key0 " K0 "\n");
	cr_assert_eq(t_parse(&c, text, err), 0, "%s", err);
	cr_assert_eq(c.nsd, 0, "an SD out of a comment");
	n = (size_t)sprintf(text, "sd 2 jobs ");
	for (int i = 0; i < UETD_TSS_RANGES_MAX; i++)
		n += (size_t)sprintf(text + n, "%d-%d,", 16000000 + i * 1000,
				     16000000 + i * 1000 + 999);
	sprintf(text + n - 1, " mode direct ssi active 1 key0 " K0 " key1 "
		K1 "\nsd 3 jobs 5 active 0 key0 " K0 "\n");
	cr_assert_eq(t_parse(&c, text, err), 0, "%s", err);
	cr_assert_eq(c.nsd, 2);
	cr_assert_eq(c.sd[0].nranges, UETD_TSS_RANGES_MAX);
	cr_assert_eq(c.sd[0].have, 3);
	cr_assert_eq(c.sd[1].line, 2);
	uetd_tss_conf_free(&c);
	memset(text, ' ', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	t_bad(text, "line 1: longer than 4095");
}

Test(uetd_tss, refuses_open_permissions)
{
	struct uetd_tss_conf c = { 0 };
	char path[] = "/tmp/uetd_tss_XXXXXX", err[200];
	int fd = mkstemp(path), ret;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "sd 1 jobs 1 active 0 key0 " K0 "\n", 91), 91);
	close(fd);
	chmod(path, 0644);
	cr_assert_eq(uetd_tss_conf_load(&c, path, err, sizeof(err)), -EPERM);
	cr_assert(strstr(err, geteuid() ? "not owned by root" :
			 "group or others"), "%s", err);
	chmod(path, 0600);
	ret = uetd_tss_conf_load(&c, path, err, sizeof(err));
	if (geteuid() == 0)
		cr_assert_eq(ret, 0, "%s", err);
	else
		cr_assert_eq(ret, -EPERM);
	uetd_tss_conf_free(&c);
	unlink(path);
	cr_assert_eq(uetd_tss_conf_load(&c, path, err, sizeof(err)), -ENOENT);
}

/* NEXT of the state file's line for (|sdi|, |an|) and key fp1; -1: none. */
static long state_next(const char *path, unsigned int sdi, unsigned int an)
{
	char line[256], fp[32];
	unsigned int s, a, next;
	long ret = -1;
	FILE *f = fopen(path, "r");

	cr_assert(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %u %31s %u", &s, &a, fp, &next) == 4 &&
		    s == sdi && a == an && !strcmp(fp, "0100000000000000"))
			ret = next;
	fclose(f);
	return ret;
}

Test(uetd_tss, epochs_never_twice)
{
	struct uetd_tss_state st = { 0 };
	char dir[] = "/tmp/uetd_tss_XXXXXX", path[128], err[200];
	uint8_t fp1[UETD_TSS_FP_LEN] = { 1 }, fp2[UETD_TSS_FP_LEN] = { 2 };
	uint16_t e;
	struct stat sb;
	FILE *f;

	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub/tss-x.state", dir);
	cr_assert_eq(uetd_tss_state_load(&st, path, err, sizeof(err)), 0,
		     "%s", err);
	for (uint16_t i = 0; i < 3; i++) {
		cr_assert_eq(uetd_tss_epoch_alloc(&st, 5, 0, fp1, &e), 0);
		cr_assert_eq(e, i);
		cr_assert_eq(state_next(path, 5, 0), UETD_TSS_EPOCH_BLOCK,
			     "the file reserves a block ahead");
	}
	cr_assert_eq(uetd_tss_epoch_alloc(&st, 5, 1, fp1, &e), 0);
	cr_assert_eq(e, 0, "another AN: its own epochs");
	cr_assert_eq(uetd_tss_epoch_alloc(&st, 5, 0, fp2, &e), 0);
	cr_assert_eq(e, 0, "a changed key starts at 0");
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq(sb.st_mode & 0777, 0600);
	/*
	 * A restarted service goes on past what the last one reserved: the
	 * rest of its block may have been handed out.
	 */
	uetd_tss_state_free(&st);
	cr_assert_eq(uetd_tss_state_load(&st, path, err, sizeof(err)), 0);
	cr_assert_eq(uetd_tss_epoch_alloc(&st, 5, 0, fp1, &e), 0);
	cr_assert_eq(e, UETD_TSS_EPOCH_BLOCK);
	cr_assert_eq(state_next(path, 5, 0), 2 * UETD_TSS_EPOCH_BLOCK);
	/* The block's last epoch from memory, the next one from a new block. */
	for (uint16_t i = 1; i < UETD_TSS_EPOCH_BLOCK; i++)
		cr_assert_eq(uetd_tss_epoch_alloc(&st, 5, 0, fp1, &e), 0);
	cr_assert_eq(e, 2 * UETD_TSS_EPOCH_BLOCK - 1);
	cr_assert_eq(state_next(path, 5, 0), 2 * UETD_TSS_EPOCH_BLOCK);
	cr_assert_eq(uetd_tss_epoch_alloc(&st, 5, 0, fp1, &e), 0);
	cr_assert_eq(e, 2 * UETD_TSS_EPOCH_BLOCK);
	cr_assert_eq(state_next(path, 5, 0), 3 * UETD_TSS_EPOCH_BLOCK);
	uetd_tss_state_free(&st);
	/* The last epoch, then none. */
	f = fopen(path, "w");
	fprintf(f, "5 0 0100000000000000 65535\n");
	fclose(f);
	cr_assert_eq(uetd_tss_state_load(&st, path, err, sizeof(err)), 0);
	cr_assert_eq(uetd_tss_epoch_alloc(&st, 5, 0, fp1, &e), 0);
	cr_assert_eq(e, 0xFFFF);
	cr_assert_eq(uetd_tss_epoch_alloc(&st, 5, 0, fp1, &e), -EKEYEXPIRED);
	uetd_tss_state_free(&st);
	cr_assert_eq(uetd_tss_state_load(&st, path, err, sizeof(err)), 0);
	cr_assert_eq(uetd_tss_epoch_alloc(&st, 5, 0, fp1, &e), -EKEYEXPIRED);
	/* Unreadable: refused, not taken as empty. */
	f = fopen(path, "w");
	fprintf(f, "5 0 zz 1\n");
	fclose(f);
	cr_assert_eq(uetd_tss_state_load(&st, path, err, sizeof(err)),
		     -EINVAL);
	cr_assert(strstr(err, "line 1"), "%s", err);
	uetd_tss_state_free(&st);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}
