/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_exit_target (issue 13): a target that exits right after reading its
 * last completion must leave its initiator with success. Plain libfabric
 * (any provider), addressed by node and service alone, no side channel.
 *
 *   fi_exit_target -s -a ADDR -p SERVICE [-n COUNT] [-x exit|close]
 *   fi_exit_target -c SERVER -p SERVICE [-n COUNT] [-F]
 *
 * The target posts COUNT receives of 4 KiB, checks each message's pattern,
 * and after the last completion calls exit(0) at once (-x exit, the default:
 * nothing closed) or closes everything first (-x close). The initiator sends
 * COUNT messages, one at a time, each waited for: every send must complete
 * without error within 10 s. With -F it first forks a child that exits at
 * once through exit() (atexit handlers and destructors run in a copy of
 * the provider's state, without its threads): the child must be gone within
 * 2 s and the parent's sends unharmed. Prints one line "fi_exit_target:
 * ..." and exits 0 on success, 1 on failure.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

#define XT_LEN		4096
#define XT_MAX		64
#define XT_WAIT_S	10

struct xt {
	struct ex_fab fab;
	uint8_t buf[XT_MAX][XT_LEN];
};

#define XT_FAIL(...)	do { printf("fi_exit_target: FAIL: " __VA_ARGS__); \
			     printf("\n"); exit(1); } while (0)
#define XT_CALL(call)	do { int r_ = (int)(call); if (r_) \
			     XT_FAIL("%s: %s", #call, fi_strerror(-r_)); \
			} while (0)

static uint8_t xt_byte(int msg, int i)
{
	return (uint8_t)(msg * 31 + i * 7 + 1);
}

static void xt_open(struct xt *x, const char *node, const char *service,
		    bool server)
{
	int ret = ex_fab_open_msg(&x->fab, "fi_exit_target", node, service,
				  server);

	if (ret)
		XT_FAIL("set-up: %s", fi_strerror(-ret));
}

/* One completion, within XT_WAIT_S; an error completion fails. */
static void *xt_wait(struct xt *x, const char *what, int i)
{
	time_t end = time(NULL) + XT_WAIT_S;
	struct fi_cq_entry e;
	ssize_t n;

	do {
		n = fi_cq_read(x->fab.cq, &e, 1);
		if (n == 1)
			return e.op_context;
		if (n == -FI_EAVAIL) {
			struct fi_cq_err_entry err = { 0 };
			char buf[128];

			fi_cq_readerr(x->fab.cq, &err, 0);
			XT_FAIL("%s %d: error completion %s (%s)", what, i,
				fi_strerror(err.err),
				fi_cq_strerror(x->fab.cq, err.prov_errno,
					       err.err_data, buf,
					       sizeof(buf)));
		}
		if (n != -FI_EAGAIN)
			XT_FAIL("%s %d: fi_cq_read: %s", what, i,
				fi_strerror((int)-n));
	} while (time(NULL) < end);
	XT_FAIL("%s %d: no completion in %d s", what, i, XT_WAIT_S);
	return NULL;
}

static void xt_target(struct xt *x, int count, bool close_first)
{
	static struct fi_context ctx[XT_MAX];

	for (int m = 0; m < count; m++)
		XT_CALL(fi_recv(x->fab.ep, x->buf[m], XT_LEN, NULL,
				FI_ADDR_UNSPEC, &ctx[m]));
	printf("fi_exit_target: ready\n");
	fflush(stdout);
	for (int m = 0; m < count; m++) {
		struct fi_context *c = xt_wait(x, "receive", m);
		int k = (int)(c - ctx);

		for (int i = 0; i < XT_LEN; i++)
			if (x->buf[k][i] != xt_byte(k, i))
				XT_FAIL("message %d byte %d: %u, not %u", k, i,
					x->buf[k][i], xt_byte(k, i));
	}
	printf("fi_exit_target: received %d messages, data ok; %s\n", count,
	       close_first ? "closing, then exit" : "exit at once");
	fflush(stdout);
	if (close_first)
		ex_fab_close(&x->fab);
	exit(0);
}

/* A send, retried while the provider is short of room (-FI_EAGAIN). */
static void xt_send(struct xt *x, int m, fi_addr_t dest, void *ctx)
{
	time_t end = time(NULL) + XT_WAIT_S;
	ssize_t ret;

	while ((ret = fi_send(x->fab.ep, x->buf[m], XT_LEN, NULL, dest, ctx)) ==
	       -FI_EAGAIN && time(NULL) < end)
		fi_cq_read(x->fab.cq, NULL, 0);	/* progress */
	if (ret)
		XT_FAIL("fi_send %d: %s", m, fi_strerror((int)-ret));
}

/* A child that exits through exit() right after the fork. */
static void xt_fork_exit(void)
{
	pid_t pid = fork();
	int status = 0;

	if (pid < 0)
		XT_FAIL("fork");
	if (pid == 0)
		exit(0);
	for (int i = 0; i < 200; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				XT_FAIL("a forked child's exit: status %#x",
					status);
			printf("fi_exit_target: a forked child exited cleanly\n");
			return;
		}
		usleep(10000);
	}
	kill(pid, SIGKILL);
	XT_FAIL("a forked child did not exit within 2 s");
}

static void xt_initiator(struct xt *x, int count)
{
	static struct fi_context ctx[XT_MAX];
	fi_addr_t dest;

	if (fi_av_insert(x->fab.av, x->fab.info->dest_addr, 1, &dest, 0,
			 NULL) != 1)
		XT_FAIL("fi_av_insert of the target's address");
	for (int m = 0; m < count; m++) {
		for (int i = 0; i < XT_LEN; i++)
			x->buf[m][i] = xt_byte(m, i);
		xt_send(x, m, dest, &ctx[m]);
		if (xt_wait(x, "send", m) != &ctx[m])
			XT_FAIL("send %d: another operation's context", m);
	}
	printf("fi_exit_target: %d sends completed with success\n", count);
	ex_fab_close(&x->fab);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *server = NULL, *service = NULL;
	static struct xt x;
	bool close_first = false, fork_first = false;
	int count = 16, opt;

	while ((opt = getopt(argc, argv, "sa:c:p:n:x:F")) != -1) {
		switch (opt) {
		case 'F': fork_first = true; break;
		case 's': break;
		case 'a': addr = optarg; break;
		case 'c': server = optarg; break;
		case 'p': service = optarg; break;
		case 'n': count = atoi(optarg); break;
		case 'x': close_first = !strcmp(optarg, "close"); break;
		default: return 2;
		}
	}
	if ((!addr == !server) || !service || count < 1 || count > XT_MAX) {
		fprintf(stderr, "usage: fi_exit_target -s -a ADDR -p SERVICE "
			"[-n COUNT] [-x exit|close] | -c SERVER -p SERVICE "
			"[-n COUNT] [-F]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	xt_open(&x, addr ? addr : server, service, addr != NULL);
	if (addr) {
		xt_target(&x, count, close_first);
	} else {
		if (fork_first)
			xt_fork_exit();
		xt_initiator(&x, count);
	}
	return 0;
}
