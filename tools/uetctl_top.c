/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * `uetctl top IFACE` (issue 44): the interface and its endpoints, live.
 * Two samples of the service's UET_DEV_TOP answer make each rate (the
 * endpoints' own timestamps divide it, so a late answer does not bend
 * it). Plain VT100 escapes, 79 columns, so it works over any ssh; --once
 * prints one screen without escapes, for scripts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "dev/uet_dev_client.h"
#include "dev/uet_dev_proto.h"
#include "tools/uetctl.h"
#include "tools/uetctl_top.h"
#include "uet_xdp_shared.h"

#define UETCTL_TOP_USAGE \
	"uetctl top IFACE [--once] [--interval S]\n" \
	"  the interface and its endpoints, refreshed every S seconds " \
	"(default 1);\n  q quits; --once prints one screen (rates over one " \
	"interval) and exits\n"

/* Lines are cut here: 80 columns, less the last (some terminals wrap). */
#define UETCTL_TOP_COLS		79
#define UETCTL_TOP_REP_MAX	(sizeof(struct uet_dev_top_rep) + \
				 UET_FEP_MAX_EPS * sizeof(struct uet_dev_top_ep))

struct uetctl_top {
	const char *ifname;
	double interval_s;
	bool once, live;	/* live: escapes, a terminal to redraw */
	struct uet_dev_top_rep *prev, *cur;
};

/* The service's answer into |rep|; 0 or -errno. */
static int uetctl_top_fetch(const char *ifname, struct uet_dev_top_rep *rep)
{
	struct uet_dev_req req = { .version = UET_DEV_PROTO_VERSION,
				   .type = UET_DEV_TOP };
	int conn = uet_dev_connect(ifname);
	ssize_t n;

	if (conn < 0)
		return conn;
	n = uet_dev_call(conn, &req, rep, UETCTL_TOP_REP_MAX, NULL, 0);
	close(conn);
	if (n < 0)
		return (int)n;
	/* A service of another build closes without a word. */
	if ((size_t)n < sizeof(*rep) ||
	    (size_t)n != sizeof(*rep) + rep->cnt * sizeof(rep->ep[0]))
		return -EPROTO;
	return rep->status;
}

/* |v| in 5 characters or fewer: 999, 1.2k, 12k, 123M. */
static const char *uetctl_top_num(char *buf, size_t len, double v)
{
	static const char unit[] = " kMGTP";
	int u = 0;

	while (v >= 999.5 && u < 5) {
		v /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, v < 9.95 ? "%.1f%c" : "%.0f%c", v, unit[u]);
	return buf;
}

/* Per second from two totals |dt_ns| apart (0: none to compare). */
static double uetctl_top_rate(uint64_t now, uint64_t then, uint64_t dt_ns)
{
	return dt_ns && now >= then ? (double)(now - then) * 1e9 / dt_ns : 0;
}

/* |e|'s sample in |prev|: the same index held by the same process. */
static const struct uet_dev_top_ep *
uetctl_top_before(const struct uet_dev_top_rep *prev,
		  const struct uet_dev_top_ep *e)
{
	for (uint32_t i = 0; prev && i < prev->cnt; i++)
		if (prev->ep[i].index == e->index && prev->ep[i].pid == e->pid)
			return prev->ep[i].fresh ? &prev->ep[i] : NULL;
	return NULL;
}

/* One line, cut to the screen; in live mode each clears its rest. */
static void uetctl_top_line(const struct uetctl_top *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void uetctl_top_line(const struct uetctl_top *t, const char *fmt, ...)
{
	char line[UETCTL_TOP_COLS + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fputs(line, stdout);
	fputs(t->live ? "\033[K\n" : "\n", stdout);
}

static void uetctl_top_user(uint32_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(buf, len, "%s", pw->pw_name);
	else
		snprintf(buf, len, "%u", uid);
}

/* An endpoint's two lines: who it is and its traffic; then the rest. */
static void uetctl_top_ep(const struct uetctl_top *t,
			  const struct uet_dev_top_ep *e)
{
	const struct uet_dev_top_ep *b = uetctl_top_before(t->prev, e);
	const struct uet_dev_ep_counters *c = &e->c, *o = b ? &b->c : c;
	uint64_t dt = b && e->fresh ? c->at_ns - o->at_ns : 0;
	char n[10][8], user[32], comm[sizeof(e->comm)];

	uetctl_top_user(e->uid, user, sizeof(user));
	/* One word a column, for scripts too. */
	snprintf(comm, sizeof(comm), "%s", e->comm);
	for (char *p = comm; *p; p++)
		if (*p == ' ')
			*p = '_';
	uetctl_top_line(t, "%3u %-11.11s %7d %-8.8s %8u %4llu %5s %6s %5s "
			"%6s %6s", e->index, comm, e->pid, user, e->job_id,
			(unsigned long long)c->pdcs,
			uetctl_top_num(n[0], 8, uetctl_top_rate(c->tx_frames,
				o->tx_frames, dt)),
			uetctl_top_num(n[1], 8, uetctl_top_rate(c->tx_bytes,
				o->tx_bytes, dt)),
			uetctl_top_num(n[2], 8, uetctl_top_rate(c->rx_frames,
				o->rx_frames, dt)),
			uetctl_top_num(n[3], 8, uetctl_top_rate(c->rx_bytes,
				o->rx_bytes, dt)),
			uetctl_top_num(n[4], 8, (double)c->cwnd_bytes));
	uetctl_top_line(t, "    retx rto %llu sack %llu probe %llu nack %llu"
			"; local/s out %s %sB in %s %sB; tss %llu crc %llu",
			(unsigned long long)c->retx_rto,
			(unsigned long long)c->retx_sack,
			(unsigned long long)c->retx_probe,
			(unsigned long long)c->retx_nack,
			uetctl_top_num(n[5], 8, uetctl_top_rate(c->local_tx,
				o->local_tx, dt)),
			uetctl_top_num(n[6], 8, uetctl_top_rate(
				c->local_tx_bytes, o->local_tx_bytes, dt)),
			uetctl_top_num(n[7], 8, uetctl_top_rate(c->local_rx,
				o->local_rx, dt)),
			uetctl_top_num(n[8], 8, uetctl_top_rate(
				c->local_rx_bytes, o->local_rx_bytes, dt)),
			(unsigned long long)c->tss_refused,
			(unsigned long long)c->crc_refused);
}

/* Rows the terminal has (live), else no limit. */
static uint32_t uetctl_top_rows(const struct uetctl_top *t)
{
	struct winsize ws;

	if (t->live && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_row > 0)
		return ws.ws_row;
	return UINT32_MAX;
}

static void uetctl_top_screen(const struct uetctl_top *t)
{
	const struct uet_dev_top_rep *r = t->cur, *p = t->prev;
	uint64_t dt = p ? r->now_ns - p->now_ns : 0;
	const uint64_t *x = r->xdp, *px = p ? p->xdp : r->xdp;
	uint32_t rows = uetctl_top_rows(t), shown = 0;
	char n[4][8];

	if (t->live)
		fputs("\033[H", stdout);
	uetctl_top_line(t, "uetctl top %s: %u endpoints (opened %llu, refused "
			"%llu); every %.1f s%s", t->ifname, r->cnt,
			(unsigned long long)r->opens,
			(unsigned long long)r->refusals, t->interval_s,
			t->live ? ", q quits" : "");
	uetctl_top_line(t, "xdp/s: seen %s, to endpoints %s, to the service "
			"%s, passed %s",
			uetctl_top_num(n[0], 8, uetctl_top_rate(
				x[UET_XDP_CNT_SEEN], px[UET_XDP_CNT_SEEN], dt)),
			uetctl_top_num(n[1], 8, uetctl_top_rate(
				x[UET_XDP_CNT_REDIRECTED],
				px[UET_XDP_CNT_REDIRECTED], dt)),
			uetctl_top_num(n[2], 8, uetctl_top_rate(
				x[UET_XDP_CNT_TO_SERVICE],
				px[UET_XDP_CNT_TO_SERVICE], dt)),
			uetctl_top_num(n[3], 8, uetctl_top_rate(
				x[UET_XDP_CNT_PASSED], px[UET_XDP_CNT_PASSED],
				dt)));
	uetctl_top_line(t, "xdp drops: malformed %llu, no socket %llu, fault "
			"%llu; local frames dropped %llu",
			(unsigned long long)x[UET_XDP_CNT_MALFORMED],
			(unsigned long long)x[UET_XDP_CNT_NO_SOCKET],
			(unsigned long long)x[UET_XDP_CNT_FAULT_DROPPED],
			(unsigned long long)r->local_dropped);
	uetctl_top_line(t, "%s", "");
	uetctl_top_line(t, " EP PROCESS         PID USER        JOBID  PDC  "
			"TX/s  TXB/s  RX/s  RXB/s   CWND");
	for (uint32_t i = 0; i < r->cnt; i++) {
		/* Two lines each, and one for the note below. */
		if (5 + 2 * (shown + 1) + 1 > rows) {
			uetctl_top_line(t, "... %u more endpoints", r->cnt - i);
			break;
		}
		uetctl_top_ep(t, &r->ep[i]);
		shown++;
	}
	if (t->live)
		fputs("\033[J", stdout);
	fflush(stdout);
}

static volatile sig_atomic_t uetctl_top_quit;
static struct termios uetctl_top_tty;
static bool uetctl_top_tty_set;

static void uetctl_top_on_signal(int sig)
{
	(void)sig;
	uetctl_top_quit = 1;
}

/* The terminal as it was: cooked, echoing, its cursor shown. */
static void uetctl_top_tty_restore(void)
{
	if (!uetctl_top_tty_set)
		return;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &uetctl_top_tty);
	fputs("\033[?25h", stdout);
	fflush(stdout);
	uetctl_top_tty_set = false;
}

/*
 * Keys one at a time, unechoed (q quits), the cursor hidden. A signal
 * ends the loop (no SA_RESTART: poll returns EINTR), which restores it.
 */
static void uetctl_top_tty_raw(void)
{
	struct sigaction sa = { .sa_handler = uetctl_top_on_signal };
	struct termios raw;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (!isatty(STDIN_FILENO) ||
	    tcgetattr(STDIN_FILENO, &uetctl_top_tty) < 0)
		return;
	raw = uetctl_top_tty;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) < 0)
		return;
	uetctl_top_tty_set = true;
	atexit(uetctl_top_tty_restore);
	fputs("\033[?25l\033[H\033[2J", stdout);
	fflush(stdout);
}

static uint64_t uetctl_top_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Waits |ms|, reading keys from stdin with |keys| (a terminal, or a pipe:
 * `echo q | uetctl top` quits too); false when it is time to quit.
 */
static bool uetctl_top_wait(uint64_t ms, bool keys)
{
	uint64_t until = uetctl_top_now_ms() + ms;
	struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };

	while (!uetctl_top_quit) {
		uint64_t now = uetctl_top_now_ms();
		char c;

		if (now >= until)
			return true;
		if (poll(&pfd, keys ? 1 : 0, (int)(until - now)) <= 0)
			continue;
		if (read(STDIN_FILENO, &c, 1) != 1)
			keys = false;	/* end of input: time alone */
		else if (c == 'q' || c == 'Q')
			return false;
	}
	return false;
}

static int uetctl_top_parse(int argc, char **argv, struct uetctl_top *t)
{
	static const struct option opts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	t->interval_s = 1.0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs("usage: " UETCTL_TOP_USAGE, stdout);
			return 1;
		case 'o':
			t->once = true;
			break;
		case 'i':
			t->interval_s = strtod(optarg, &end);
			if (*end || !(t->interval_s >= 0.1 &&
				      t->interval_s <= 3600))
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	t->ifname = argv[optind];
	return 0;
usage:
	fputs("uetctl top: bad arguments (--interval is 0.1..3600 s)\n"
	      "usage: " UETCTL_TOP_USAGE, stderr);
	return 2;
}

/* Samples one interval apart until q, a signal or an error. */
static int uetctl_top_run(struct uetctl_top *t)
{
	uint64_t ms = (uint64_t)(t->interval_s * 1000);
	int ret = uetctl_top_fetch(t->ifname, t->cur);

	if (ret < 0)
		return ret;
	if (!t->once)
		uetctl_top_tty_raw();
	t->live = !t->once && isatty(STDOUT_FILENO);
	while (uetctl_top_wait(ms, !t->once)) {
		struct uet_dev_top_rep *swap = t->prev;

		t->prev = t->cur;
		t->cur = swap;
		ret = uetctl_top_fetch(t->ifname, t->cur);
		if (ret < 0)
			break;
		if (uetctl_top_quit)	/* it may have cut the fetch short */
			break;
		uetctl_top_screen(t);
		if (t->once)
			break;
	}
	uetctl_top_tty_restore();
	/* A signal that cut a fetch short is a quit like q. */
	return uetctl_top_quit && ret == -EINTR ? 0 : ret;
}

int uetctl_top(int argc, char **argv)
{
	struct uetctl_top t = { 0 };
	int ret = uetctl_top_parse(argc, argv, &t);

	if (ret)
		return ret == 1 ? 0 : ret;
	if (!if_nametoindex(t.ifname))
		return uetctl_fail("top", t.ifname, -ENODEV);
	t.prev = calloc(1, UETCTL_TOP_REP_MAX);
	t.cur = calloc(1, UETCTL_TOP_REP_MAX);
	ret = t.prev && t.cur ? uetctl_top_run(&t) : -ENOMEM;
	free(t.prev);
	free(t.cur);
	if (ret == -ENOENT) {
		fprintf(stderr, "uetctl top: %s: no device service (uetctl "
			"load %s)\n", t.ifname, t.ifname);
		return 1;
	}
	if (ret == -EPROTO) {
		fprintf(stderr, "uetctl top: %s: the service does not answer "
			"(uetd of another build?)\n", t.ifname);
		return 1;
	}
	return ret < 0 ? uetctl_fail("top", t.ifname, ret) : 0;
}
