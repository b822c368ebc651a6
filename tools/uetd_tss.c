/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The service's TSS key file (uetd --tss-keys FILE, default
 * /etc/uet/tss.conf when it exists). One secure domain (SD) a line, '#'
 * starts a comment:
 *
 *   sd SDI jobs JOBLIST [mode cluster|direct] [ssi] active AN
 *      key0 HEX [key1 HEX]
 *
 * SDI 1..16777215; JOBLIST JobIDs or ranges lo-hi, comma-separated, none
 * in two SDs; mode cluster unless said; ssi: endpoints send an SSI of their
 * own (SP = 1); AN the key senders use, 0 or 1, which must be given; keys
 * 64 hex digits; a line holds at most UETD_TSS_LINE_MAX - 1 characters.
 * Holding every key of the interface, the file must be root's and nobody
 * else's to read or write: anything else is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "tools/uetd_tss.h"
#include "uet_wire.h"

int uetd_tss_fingerprint(uint8_t fp[UETD_TSS_FP_LEN],
			 const uint8_t key[UET_TSS_KEY_LEN])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	if (!EVP_Digest(key, UET_TSS_KEY_LEN, md, &len, EVP_sha256(), NULL) ||
	    len < UETD_TSS_FP_LEN)
		return -EIO;
	memcpy(fp, md, UETD_TSS_FP_LEN);
	return 0;
}

/* A whole decimal number in [lo, hi] at |s|. */
static bool uetd_tss_num(const char *s, uint32_t lo, uint32_t hi,
			 uint32_t *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int uetd_tss_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool uetd_tss_key(const char *s, uint8_t key[UET_TSS_KEY_LEN])
{
	if (strlen(s) != 2 * UET_TSS_KEY_LEN)
		return false;
	for (int i = 0; i < UET_TSS_KEY_LEN; i++) {
		int hi = uetd_tss_hex(s[2 * i]), lo = uetd_tss_hex(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

static const char *uetd_tss_jobs(struct uetd_tss_sd *sd, char *list)
{
	char *save = NULL;

	for (char *j = strtok_r(list, ",", &save); j;
	     j = strtok_r(NULL, ",", &save)) {
		struct uetd_tss_range r;
		char *dash = strchr(j, '-');

		if (dash)
			*dash = '\0';
		if (!uetd_tss_num(j, 0, UET_SES_JOB_ID_MAX, &r.lo) ||
		    (dash && !uetd_tss_num(dash + 1, 0, UET_SES_JOB_ID_MAX,
					   &r.hi)))
			return "a JobID is 0..16777215, a range lo-hi";
		if (!dash)
			r.hi = r.lo;
		if (r.lo > r.hi)
			return "a JobID range goes from low to high";
		if (sd->nranges == UETD_TSS_RANGES_MAX)
			return "too many JobIDs and ranges (64 at most)";
		sd->range[sd->nranges++] = r;
	}
	return sd->nranges ? NULL : "jobs names no JobID";
}

#define UETD_TSS_SYNTAX	"want: sd SDI jobs JOBLIST [mode cluster|direct] " \
			"[ssi] active AN key0 HEX [key1 HEX]"

/* One line's SD into |sd|: NULL, or what is wrong with it. */
static const char *uetd_tss_line(struct uetd_tss_sd *sd, char *line)
{
	const char *delim = " \t\r\n", *why;
	char *save = NULL, *w = strtok_r(line, delim, &save), *v;
	bool jobs = false, mode = false, active = false;

	memset(sd, 0, sizeof(*sd));
	sd->mode = UET_TSS_CLUSTER;
	if (!w || strcmp(w, "sd"))
		return UETD_TSS_SYNTAX;
	v = strtok_r(NULL, delim, &save);
	if (!v || !uetd_tss_num(v, 1, UET_TSS_SDI_MAX, &sd->sdi))
		return "an SDI is 1..16777215";
	while ((w = strtok_r(NULL, delim, &save))) {
		uint32_t an;

		if (!strcmp(w, "ssi")) {
			if (sd->use_ssi)
				return "ssi given twice";
			sd->use_ssi = true;
			continue;
		}
		v = strtok_r(NULL, delim, &save);
		if (!v)
			return UETD_TSS_SYNTAX;
		if (!strcmp(w, "jobs")) {
			if (jobs)
				return "jobs given twice";
			jobs = true;
			why = uetd_tss_jobs(sd, v);
			if (why)
				return why;
		} else if (!strcmp(w, "mode")) {
			if (mode)
				return "mode given twice";
			mode = true;
			if (!strcmp(v, "cluster"))
				sd->mode = UET_TSS_CLUSTER;
			else if (!strcmp(v, "direct"))
				sd->mode = UET_TSS_DIRECT;
			else
				return "mode is cluster or direct";
		} else if (!strcmp(w, "active")) {
			if (active)
				return "active given twice";
			active = true;
			if (!uetd_tss_num(v, 0, 1, &an))
				return "active is 0 or 1";
			sd->active = (uint8_t)an;
		} else if (!strcmp(w, "key0") || !strcmp(w, "key1")) {
			an = (uint32_t)(w[3] - '0');
			if (sd->have & (1u << an))
				return "a key given twice";
			if (!uetd_tss_key(v, sd->key[an]))
				return "a key is 64 hex digits (32 bytes)";
			if (uetd_tss_fingerprint(sd->fp[an], sd->key[an]) < 0)
				return "libcrypto cannot hash the key";
			sd->have |= (uint8_t)(1u << an);
		} else {
			return UETD_TSS_SYNTAX;
		}
	}
	if (!jobs || !active)
		return UETD_TSS_SYNTAX;
	if (!(sd->have & (1u << sd->active)))
		return "the active AN has no key";
	return NULL;
}

static bool uetd_tss_overlap(const struct uetd_tss_sd *a,
			     const struct uetd_tss_sd *b, uint32_t *job)
{
	for (uint32_t i = 0; i < a->nranges; i++)
		for (uint32_t k = 0; k < b->nranges; k++)
			if (a->range[i].lo <= b->range[k].hi &&
			    b->range[k].lo <= a->range[i].hi) {
				*job = a->range[i].lo > b->range[k].lo ?
				       a->range[i].lo : b->range[k].lo;
				return true;
			}
	return false;
}

void uetd_tss_conf_free(struct uetd_tss_conf *c)
{
	if (c->sd)
		OPENSSL_cleanse(c->sd, c->nsd * sizeof(*c->sd));
	free(c->sd);
	c->sd = NULL;
	c->nsd = 0;
}

/* Whether |sd|, read at |lineno|, clashes with those before it. */
static const char *uetd_tss_clash(const struct uetd_tss_conf *c,
				  const struct uetd_tss_sd *sd, char *buf,
				  size_t len)
{
	uint32_t job;

	for (uint32_t i = 0; i < c->nsd; i++) {
		if (c->sd[i].sdi == sd->sdi) {
			snprintf(buf, len, "SD %u is defined on line %d too",
				 sd->sdi, c->sd[i].line);
			return buf;
		}
		if (uetd_tss_overlap(sd, &c->sd[i], &job)) {
			snprintf(buf, len, "JobID %u is in SD %u (line %d) "
				 "too", job, c->sd[i].sdi, c->sd[i].line);
			return buf;
		}
	}
	return NULL;
}

/*
 * The next line of |f| into |line| (|cap| bytes), whole: its length, -1
 * at the end, -E2BIG when it is longer than |cap| - 1. Read in pieces
 * (fgets), the tail of a long comment would be a line of its own; not
 * getline either, whose reallocations leave copies of keys in freed
 * memory.
 */
static int uetd_tss_getline(FILE *f, char *line, size_t cap)
{
	size_t n = 0;
	int ch;

	while ((ch = getc(f)) != EOF) {
		if (n + 1 < cap)
			line[n] = (char)ch;
		n++;
		if (ch == '\n')
			break;
	}
	if (!n)
		return -1;
	if (n >= cap)
		return -E2BIG;
	line[n] = '\0';
	return (int)n;
}

int uetd_tss_conf_parse(struct uetd_tss_conf *c, FILE *f, const char *name,
			char *err, size_t err_len)
{
	char line[UETD_TSS_LINE_MAX], buf[128];
	struct uetd_tss_sd sd;
	int lineno = 0, ret = 0, len;

	uetd_tss_conf_free(c);
	while ((len = uetd_tss_getline(f, line, sizeof(line))) != -1) {
		char *hash, *p = line;
		const char *why;
		struct uetd_tss_sd *n;

		lineno++;
		if (len == -E2BIG) {
			snprintf(err, err_len, "%s, line %d: longer than %d "
				 "characters", name, lineno,
				 UETD_TSS_LINE_MAX - 1);
			ret = -EINVAL;
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		p += strspn(p, " \t\r\n");
		if (!*p)
			continue;
		why = uetd_tss_line(&sd, p);
		sd.line = lineno;
		if (!why)
			why = uetd_tss_clash(c, &sd, buf, sizeof(buf));
		if (!why && c->nsd == UETD_TSS_SDS_MAX)
			why = "too many SDs (1024 at most)";
		if (why) {
			snprintf(err, err_len, "%s, line %d: %s", name, lineno,
				 why);
			ret = -EINVAL;
			break;
		}
		/* Not realloc: the block it leaves would keep the keys. */
		n = malloc((c->nsd + 1) * sizeof(*n));
		if (!n) {
			snprintf(err, err_len, "%s: out of memory", name);
			ret = -ENOMEM;
			break;
		}
		if (c->nsd) {
			memcpy(n, c->sd, c->nsd * sizeof(*n));
			OPENSSL_cleanse(c->sd, c->nsd * sizeof(*n));
		}
		free(c->sd);
		c->sd = n;
		c->sd[c->nsd++] = sd;
	}
	OPENSSL_cleanse(&sd, sizeof(sd));
	OPENSSL_cleanse(line, sizeof(line));
	if (ret < 0)
		uetd_tss_conf_free(c);
	return ret;
}

int uetd_tss_conf_load(struct uetd_tss_conf *c, const char *path, char *err,
		       size_t err_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), ret;
	struct stat sb;
	char iobuf[BUFSIZ];
	FILE *f;

	if (fd < 0) {
		ret = -errno;
		snprintf(err, err_len, "TSS keys %s: %s", path,
			 ret == -ELOOP ? "a symbolic link" : strerror(-ret));
		return ret;
	}
	/* The file as opened: no swapping it between check and read. */
	if (fstat(fd, &sb) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_uid != 0 || (sb.st_mode & 0077)) {
		snprintf(err, err_len, "TSS keys %s: %s", path,
			 !S_ISREG(sb.st_mode) ? "not a regular file" :
			 sb.st_uid != 0 ? "not owned by root" :
			 "group or others may read or write it (chmod 600)");
		close(fd);
		return -EPERM;
	}
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	/* stdio's buffer, which holds the file's keys, is ours to wipe. */
	setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));
	ret = uetd_tss_conf_parse(c, f, path, err, err_len);
	fclose(f);
	OPENSSL_cleanse(iobuf, sizeof(iobuf));
	return ret;
}

static bool uetd_tss_has_job(const struct uetd_tss_sd *sd, uint32_t job)
{
	for (uint32_t i = 0; i < sd->nranges; i++)
		if (job >= sd->range[i].lo && job <= sd->range[i].hi)
			return true;
	return false;
}

const struct uetd_tss_sd *uetd_tss_conf_job(const struct uetd_tss_conf *c,
					    uint32_t job)
{
	for (uint32_t i = 0; i < c->nsd; i++)
		if (uetd_tss_has_job(&c->sd[i], job))
			return &c->sd[i];
	return NULL;
}

const struct uetd_tss_sd *uetd_tss_conf_sdi(const struct uetd_tss_conf *c,
					    uint32_t sdi)
{
	for (uint32_t i = 0; i < c->nsd; i++)
		if (c->sd[i].sdi == sdi)
			return &c->sd[i];
	return NULL;
}
