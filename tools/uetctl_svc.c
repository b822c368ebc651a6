/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetctl's side of the device service: `load` starts uetd (found beside
 * uetctl, else on PATH) and waits until it serves or says why not;
 * `unload` asks it to stop and waits until it has; `stats` asks it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dev/uet_dev_client.h"
#include "tools/uetctl.h"

/* uetd beside our own binary, else the name alone (PATH). */
static void uetctl_uetd_path(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		snprintf(buf, len, "%s/uetd", dirname(self));
		if (access(buf, X_OK) == 0)
			return;
	}
	snprintf(buf, len, "uetd");
}

int uetctl_svc_start(const char *ifname, const char *mode, long port,
		     long endpoints, long tx_chunks, long queues,
		     const char *policy,
		     const char *busy_poll, const char *tss_keys,
		     const char *tss_state, char *why, size_t why_len)
{
	char path[PATH_MAX], rfd[16], sport[16], seps[16], sq[16], stx[16];
	char buf[200] = "";
	struct pollfd pfd;
	int p[2], status, err;
	size_t got = 0;
	pid_t child;

	uetctl_uetd_path(path, sizeof(path));
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	child = fork();
	if (child < 0) {
		err = errno;
		close(p[0]);
		close(p[1]);
		return -err;
	}
	if (child == 0) {
		int null = open("/dev/null", O_RDWR);

		/* A service of its own: no terminal, its own session. */
		setsid();
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		fcntl(p[1], F_SETFD, 0);
		snprintf(rfd, sizeof(rfd), "%d", p[1]);
		snprintf(sport, sizeof(sport), "%ld", port);
		snprintf(seps, sizeof(seps), "%ld", endpoints);
		snprintf(sq, sizeof(sq), "%ld", queues);
		snprintf(stx, sizeof(stx), "%ld", tx_chunks);
		{
			const char *args[24];
			int n = 0;

			args[n++] = "uetd";
			args[n++] = ifname;
			args[n++] = "--mode";
			args[n++] = mode;
			args[n++] = "--port";
			args[n++] = sport;
			args[n++] = "--ready-fd";
			args[n++] = rfd;
			if (endpoints) {
				args[n++] = "--endpoints";
				args[n++] = seps;
			}
			if (tx_chunks) {
				args[n++] = "--tx-chunks";
				args[n++] = stx;
			}
			if (queues > 1) {
				args[n++] = "--queues";
				args[n++] = sq;
			}
			if (policy) {
				args[n++] = "--policy";
				args[n++] = policy;
			}
			if (busy_poll) {
				args[n++] = "--busy-poll";
				args[n++] = busy_poll;
			}
			if (tss_keys) {
				args[n++] = "--tss-keys";
				args[n++] = tss_keys;
			}
			if (tss_state) {
				args[n++] = "--tss-state";
				args[n++] = tss_state;
			}
			args[n] = NULL;
			execvp(path, (char *const *)args);
		}
		_exit(127);
	}
	close(p[1]);
	pfd = (struct pollfd){ p[0], POLLIN, 0 };
	/* Set-up takes well under a second; give it ten. */
	while (got < sizeof(buf) - 1 && poll(&pfd, 1, 10000) > 0) {
		ssize_t n = read(p[0], buf + got, sizeof(buf) - 1 - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(p[0]);
	buf[got] = '\0';
	if (!got) {
		/* It died before saying anything (exec failed?). */
		if (waitpid(child, &status, WNOHANG) == child &&
		    WIFEXITED(status) && WEXITSTATUS(status) == 127) {
			snprintf(why, why_len, "cannot run %s", path);
			return -ENOENT;
		}
		snprintf(why, why_len, "the service did not start");
		return -EIO;
	}
	err = (int)strtol(buf, NULL, 10);
	if (err < 0) {
		const char *msg = strchr(buf, ' ');

		snprintf(why, why_len, "%s", msg ? msg + 1 : "");
		waitpid(child, &status, 0);
		return err;
	}
	return 0;
}

int uetctl_svc_stop(const char *ifname)
{
	struct uet_dev_req req = { .version = UET_DEV_PROTO_VERSION,
				   .type = UET_DEV_STOP };
	int32_t st = 0;
	int conn = uet_dev_connect(ifname);
	ssize_t n;

	if (conn < 0)
		return conn;
	n = uet_dev_call(conn, &req, &st, sizeof(st), NULL, 0);
	close(conn);
	if (n < 0)
		return (int)n;
	if (st < 0)
		return st;
	/* Gone when its name is free again: up to 5 s. */
	for (int i = 0; i < 500; i++) {
		conn = uet_dev_connect(ifname);
		if (conn < 0)
			return 0;
		close(conn);
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	return -ETIMEDOUT;
}

/* The service's figures as text or JSON into |buf|; length or -errno. */
static ssize_t uetctl_svc_ask(const char *ifname, bool json, char *buf,
			      size_t len)
{
	struct uet_dev_req req = { .version = UET_DEV_PROTO_VERSION,
				   .type = UET_DEV_STATS,
				   .flags = json ? 0 : UET_DEV_F_TEXT };
	int conn = uet_dev_connect(ifname);
	ssize_t n;

	if (conn < 0)
		return conn;
	n = uet_dev_call(conn, &req, buf, len - 1, NULL, 0);
	close(conn);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

int uetctl_svc_stats(const char *ifname, bool json)
{
	static char buf[UET_DEV_STATS_MAX + 1];
	ssize_t n = uetctl_svc_ask(ifname, json, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	fputs(buf, stdout);
	return 0;
}

int uetctl_svc_snapshot(const char *ifname, struct uet_dev_stats *st)
{
	struct uet_dev_req req = { .version = UET_DEV_PROTO_VERSION,
				   .type = UET_DEV_STATS,
				   .flags = UET_DEV_F_BINARY };
	int conn = uet_dev_connect(ifname);
	ssize_t n;

	if (conn < 0)
		return conn;
	n = uet_dev_call(conn, &req, st, sizeof(*st), NULL, 0);
	close(conn);
	if (n < 0)
		return (int)n;
	/* An older service answers JSON; anything but our struct is that. */
	if ((size_t)n < offsetof(struct uet_dev_stats, ep) ||
	    st->size != sizeof(*st) || st->ep_cnt > UET_FEP_MAX_EPS ||
	    (size_t)n != UET_DEV_STATS_LEN(st->ep_cnt) ||
	    !memchr(st->iface, '\0', sizeof(st->iface)))
		return -EPROTO;
	return 0;
}

void uetctl_svc_status(const char *ifname)
{
	static char buf[UET_DEV_STATS_MAX + 1];
	char *line, *save = NULL;

	if (uetctl_svc_ask(ifname, false, buf, sizeof(buf)) < 0) {
		printf("  no device service (applications cannot open "
		       "endpoints)\n");
		return;
	}
	/* Its own lines: the service and its endpoints. */
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "service:", 8) ||
		    !strncmp(line, "tss: frames", 11) ||
		    !strncmp(line, "endpoint ", 9))
			printf("  %s\n", line);
}
