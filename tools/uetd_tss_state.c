/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The epochs uetd has handed out (uetd --tss-state FILE, default
 * /var/lib/uet/tss-IFACE.state). A sender's (SD, AN, source, epoch) is one
 * TSC stream (tss/uet_tss.h): an epoch handed out twice under one key
 * would let two senders, or one sender before and after a restart, use an
 * IV twice, which breaks GCM. So each epoch is on disk before anyone gets
 * it, and what is on disk only grows. A line per (SDI, AN, key):
 *
 *   SDI AN FINGERPRINT NEXT
 *
 * FINGERPRINT the first 8 bytes of the key's SHA-256 (never the key), NEXT
 * the first epoch not yet reserved (65536: all are). Epochs are reserved a
 * block at a time (UETD_TSS_EPOCH_BLOCK), as databases cache sequence
 * numbers: a write and fsync took milliseconds of the service's loop for
 * every endpoint a job opened, while other endpoints' traffic waited on
 * that loop. A restart loses at most a block of a key's 65536.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/uetd_tss.h"

/* The directory of |path|, made 0700 when missing (not its parents). */
static int uetd_tss_state_dir(const char *path)
{
	char dir[256];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

void uetd_tss_state_free(struct uetd_tss_state *st)
{
	free(st->ent);
	st->ent = NULL;
	st->n = 0;
}

static int uetd_tss_state_line(struct uetd_tss_epoch_ent *e, const char *l)
{
	char fp[2 * UETD_TSS_FP_LEN + 1];
	unsigned int sdi, an, next;

	if (sscanf(l, "%u %u %16s %u", &sdi, &an, fp, &next) != 4 ||
	    sdi > UET_TSS_SDI_MAX || an > 1 || next > UETD_TSS_EPOCHS ||
	    strlen(fp) != 2 * UETD_TSS_FP_LEN)
		return -EINVAL;
	e->sdi = sdi;
	e->an = (uint8_t)an;
	e->next = next;
	e->reserved = next;
	for (int i = 0; i < UETD_TSS_FP_LEN; i++) {
		unsigned int b;

		if (sscanf(fp + 2 * i, "%2x", &b) != 1)
			return -EINVAL;
		e->fp[i] = (uint8_t)b;
	}
	return 0;
}

int uetd_tss_state_load(struct uetd_tss_state *st, const char *path,
			char *err, size_t err_len)
{
	char line[256];
	int lineno = 0, ret;
	FILE *f;

	uetd_tss_state_free(st);
	if (strlen(path) >= sizeof(st->path)) {
		snprintf(err, err_len, "TSS state %s: name too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(st->path, path);
	ret = uetd_tss_state_dir(path);
	if (ret < 0) {
		snprintf(err, err_len, "TSS state %s: its directory: %s", path,
			 strerror(-ret));
		return ret;
	}
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		snprintf(err, err_len, "TSS state %s: %s", path,
			 strerror(-ret));
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		struct uetd_tss_epoch_ent e, *n;

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		/*
		 * A state we cannot read might hide epochs already used:
		 * better to stop than to hand them out again.
		 */
		if (uetd_tss_state_line(&e, line) < 0) {
			snprintf(err, err_len, "TSS state %s, line %d: "
				 "unreadable (remove it only after changing "
				 "every key)", path, lineno);
			fclose(f);
			return -EINVAL;
		}
		n = realloc(st->ent, (st->n + 1) * sizeof(*n));
		if (!n) {
			fclose(f);
			return -ENOMEM;
		}
		st->ent = n;
		st->ent[st->n++] = e;
	}
	fclose(f);
	return 0;
}

/* The whole state to a temporary file, synced, then renamed over. */
static int uetd_tss_state_save(const struct uetd_tss_state *st)
{
	char tmp[sizeof(st->path) + 8];
	FILE *f;
	int fd, ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", st->path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		unlink(tmp);
		return ret;
	}
	fprintf(f, "# uetd: TSS epochs handed out (SDI AN KEY-SHA256/64 "
		"NEXT); do not edit\n");
	for (uint32_t i = 0; i < st->n; i++) {
		const struct uetd_tss_epoch_ent *e = &st->ent[i];

		fprintf(f, "%u %u ", e->sdi, e->an);
		for (int k = 0; k < UETD_TSS_FP_LEN; k++)
			fprintf(f, "%02x", e->fp[k]);
		fprintf(f, " %u\n", e->reserved);
	}
	if (fflush(f) != 0 || fsync(fd) < 0)
		ret = -errno;
	if (fclose(f) != 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, st->path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

int uetd_tss_epoch_alloc(struct uetd_tss_state *st, uint32_t sdi, uint8_t an,
			 const uint8_t fp[UETD_TSS_FP_LEN], uint16_t *epoch)
{
	struct uetd_tss_epoch_ent *e = NULL;
	int ret;

	for (uint32_t i = 0; i < st->n && !e; i++)
		if (st->ent[i].sdi == sdi && st->ent[i].an == an &&
		    !memcmp(st->ent[i].fp, fp, UETD_TSS_FP_LEN))
			e = &st->ent[i];
	if (!e) {
		struct uetd_tss_epoch_ent *n;

		n = realloc(st->ent, (st->n + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		st->ent = n;
		e = &st->ent[st->n++];
		*e = (struct uetd_tss_epoch_ent){ .sdi = sdi, .an = an };
		memcpy(e->fp, fp, UETD_TSS_FP_LEN);
	}
	if (e->next >= UETD_TSS_EPOCHS)
		return -EKEYEXPIRED;
	if (e->next >= e->reserved) {
		uint32_t was = e->reserved;

		e->reserved = e->next + UETD_TSS_EPOCH_BLOCK;
		if (e->reserved > UETD_TSS_EPOCHS)
			e->reserved = UETD_TSS_EPOCHS;
		ret = uetd_tss_state_save(st);
		if (ret < 0) {
			/* Not on disk: not reserved, nothing handed out. */
			e->reserved = was;
			return ret;
		}
	}
	*epoch = (uint16_t)e->next++;
	return 0;
}
