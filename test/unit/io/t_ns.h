/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Two private network namespaces joined by a veth pair, called uw0 on
 * both sides, each end with an address and its device service (uetd),
 * for provider tests with frames on a wire. Needs root. The namespaces
 * are held by fds, not names, so nothing outlives the test process: the
 * services are its children and are told to stop when it ends
 * (PR_SET_PDEATHSIG) if t_ns_teardown does not run. Namespaces are per
 * thread: t_ns_enter() moves the calling thread into one; the thread that
 * called t_ns_setup is left in T_NS_A. Include it first, after
 * defining _GNU_SOURCE (setns, pipe2).
 */
#ifndef T_NS_H
#define T_NS_H

#include <criterion/criterion.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test/unit/io/t_priv.h"

#define T_NS_A		0
#define T_NS_B		1
#define T_NS_IFACE	"uw0"

static const char *const t_ns_ip[2] = { "10.213.0.1", "10.213.0.2" };

struct t_ns {
	int fd[2];
	pid_t uetd[2];
};

static inline void t_ns_enter(const struct t_ns *n, int side)
{
	cr_assert_eq(setns(n->fd[side], CLONE_NEWNET), 0, "setns: %m");
}

static inline int t_ns_self(void)
{
	int fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "netns: %m");
	return fd;
}

static inline void t_ns_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* Starts build/uetd on |ifname| of this thread's namespace; its pid. */
static inline pid_t t_ns_uetd(const char *ifname)
{
	char dir[PATH_MAX], path[PATH_MAX + 8], rfd[16], buf[160] = "";
	struct pollfd pfd;
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	size_t got = 0;
	int p[2];
	pid_t pid;

	cr_assert_gt(n, 0);
	dir[n] = '\0';
	snprintf(path, sizeof(path), "%s/uetd", dirname(dir));
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		fcntl(p[1], F_SETFD, 0);
		snprintf(rfd, sizeof(rfd), "%d", p[1]);
		execl(path, "uetd", ifname, "--mode", "skb", "--foreground",
		      "--ready-fd", rfd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	while (got < sizeof(buf) - 1 && poll(&pfd, 1, 10000) > 0) {
		n = read(p[0], buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(p[0]);
	buf[got] = '\0';
	cr_assert(got && strtol(buf, NULL, 10) == 0, "uetd %s: '%s'", ifname,
		  buf);
	return pid;
}

static inline void t_ns_setup(struct t_ns *n)
{
	n->fd[0] = n->fd[1] = -1;
	n->uetd[0] = n->uetd[1] = 0;
	t_require_root();
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %m");
	n->fd[T_NS_A] = t_ns_self();
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %m");
	n->fd[T_NS_B] = t_ns_self();
	t_ns_enter(n, T_NS_A);
	t_ns_sh("ip link add " T_NS_IFACE " type veth peer name " T_NS_IFACE
		" netns /proc/%d/fd/%d", (int)getpid(), n->fd[T_NS_B]);
	for (int side = T_NS_B; side >= T_NS_A; side--) {
		t_ns_enter(n, side);
		t_ns_sh("ip link set lo up && ip addr add %s/24 dev "
			T_NS_IFACE " && ip link set " T_NS_IFACE " up",
			t_ns_ip[side]);
		n->uetd[side] = t_ns_uetd(T_NS_IFACE);
	}
}

static inline void t_ns_teardown(struct t_ns *n)
{
	for (int side = T_NS_A; side <= T_NS_B; side++) {
		if (n->uetd[side] <= 0)
			continue;
		kill(n->uetd[side], SIGTERM);
		waitpid(n->uetd[side], NULL, 0);
	}
	for (int side = T_NS_A; side <= T_NS_B; side++)
		if (n->fd[side] >= 0)
			close(n->fd[side]);
}

#endif /* T_NS_H */
