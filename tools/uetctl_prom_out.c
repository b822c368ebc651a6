/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * `uetctl stats IFACE --prometheus [--textfile DIR [--interval N]]`: takes
 * the figures (from the device service, else the bare program's maps) and
 * prints them, or writes them where node_exporter's textfile collector
 * reads them, replacing the file whole so that a scrape never sees half.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dev/uet_xdp_ctl.h"
#include "tools/uetctl.h"
#include "tools/uetctl_prom.h"

static volatile sig_atomic_t uetctl_prom_stop;

static void uetctl_prom_on_signal(int sig)
{
	(void)sig;
	uetctl_prom_stop = 1;
}

/* The figures of |ifname| into |st|: 0 or -errno. */
static int uetctl_prom_take(const char *ifname, struct uet_dev_stats *st)
{
	struct uet_xdp_maps m;
	int ret = uetctl_svc_snapshot(ifname, st);

	if (ret != -ENOENT)
		return ret;
	/* No service: the bare program (load --no-service) has counters. */
	memset(st, 0, offsetof(struct uet_dev_stats, ep));
	st->size = sizeof(*st);
	snprintf(st->iface, sizeof(st->iface), "%s", ifname);
	ret = uet_xdp_maps_open(ifname, &m);
	if (ret == 0)
		ret = uet_xdp_counters_read(&m, st->xdp);
	uet_xdp_maps_close(&m);
	return ret;
}

/* uetctl_fail(), and what -EPROTO means here. */
static int uetctl_prom_fail(const char *ifname, int err)
{
	if (err != -EPROTO)
		return uetctl_fail("stats", ifname, err);
	fprintf(stderr, "uetctl stats: %s: the service's answer is not the "
		"figures this uetctl reads (a uetd of another version runs: "
		"restart it)\n", ifname);
	return 1;
}

/*
 * |st| into |dir|/uet_|ifname|.prom: a temporary file of the same
 * directory (so that rename is atomic), synced, readable by the collector
 * (which runs as another user), renamed over the old one. 0 or -errno.
 */
static int uetctl_prom_file_write(const char *dir, const char *ifname,
				  const struct uet_dev_stats *st)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	FILE *f;
	int fd, ret;

	/* Not *.prom: the collector ignores it until it is renamed. */
	if (snprintf(path, sizeof(path), "%s/uet_%s.prom", dir, ifname) >=
		    (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.uet_%s.prom.XXXXXX", dir,
		     ifname) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto err_unlink;
	}
	ret = uetctl_prom_write(f, st, uetctl_prom_user_passwd, NULL);
	if (!ret && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		ret = -errno;
	if (fclose(f) == EOF && !ret)
		ret = -errno;
	if (ret)
		goto err_unlink;
	if (rename(tmp, path) < 0) {
		ret = -errno;
		goto err_unlink;
	}
	return 0;
err_unlink:
	unlink(tmp);
	return ret;
}

/* A directory we may write into, or a message and false. */
static bool uetctl_prom_dir_ok(const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb) < 0) {
		fprintf(stderr, "uetctl stats: --textfile %s: %s\n", dir,
			strerror(errno));
		return false;
	}
	if (!S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "uetctl stats: --textfile %s: not a "
			"directory\n", dir);
		return false;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		fprintf(stderr, "uetctl stats: --textfile %s: not writable: "
			"%s\n", dir, strerror(errno));
		return false;
	}
	return true;
}

/* Takes the figures and writes one file: uetctl's exit status. */
static int uetctl_prom_once(const char *ifname, const char *dir)
{
	static struct uet_dev_stats st;
	int ret = uetctl_prom_take(ifname, &st);

	if (ret < 0)
		return uetctl_prom_fail(ifname, ret);
	ret = uetctl_prom_file_write(dir, ifname, &st);
	if (ret < 0) {
		fprintf(stderr, "uetctl stats: %s/uet_%s.prom: %s\n", dir,
			ifname, strerror(-ret));
		return 1;
	}
	return 0;
}

/* Sleeps until |deadline| (CLOCK_MONOTONIC) or a stop signal. */
static void uetctl_prom_sleep_until(const struct timespec *deadline)
{
	while (!uetctl_prom_stop &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline,
			       NULL) == EINTR)
		;
}

static int uetctl_prom_loop(const char *ifname, const char *dir,
			    long interval_s)
{
	struct sigaction sa = { .sa_handler = uetctl_prom_on_signal };
	struct timespec next;
	char path[PATH_MAX];

	/* No SA_RESTART: the sleep ends at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	snprintf(path, sizeof(path), "%s/uet_%s.prom", dir, ifname);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!uetctl_prom_stop) {
		/*
		 * The service may come back (a restart): go on. Figures that
		 * are no longer true go, so that the collector exports none.
		 */
		if (uetctl_prom_once(ifname, dir))
			unlink(path);
		next.tv_sec += interval_s;
		uetctl_prom_sleep_until(&next);
	}
	return 0;
}

int uetctl_prom_run(const char *ifname, const char *dir, long interval_s)
{
	static struct uet_dev_stats st;
	int ret;

	if (!dir) {
		ret = uetctl_prom_take(ifname, &st);
		if (ret == 0)
			ret = uetctl_prom_write(stdout, &st,
						uetctl_prom_user_passwd, NULL);
		return ret < 0 ? uetctl_prom_fail(ifname, ret) : 0;
	}
	if (!uetctl_prom_dir_ok(dir))
		return 1;
	if (interval_s <= 0)
		return uetctl_prom_once(ifname, dir);
	return uetctl_prom_loop(ifname, dir, interval_s);
}
