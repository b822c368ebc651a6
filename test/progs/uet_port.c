/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uet_port: attach the switch-port model (bpf/uet_port.bpf.c) to a router's
 * port, print or reset its counters, watch its queue, detach it. Later calls
 * find it by its tc filter, so nothing is pinned and nothing outlives the
 * device.
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "uet_port.h"
#include "uet_port_shared.h"
#include "uet_port.skel.h"

/* Our filter's place on clsact egress ("UE"): one model per port. */
#define UET_PORT_TC_HANDLE	0x5545
#define UET_PORT_TC_PRIO	0x5545
#define UET_PORT_MAX_MAPS	8
/* The object's .rodata as the kernel names it (15 characters: it fits). */
#define UET_PORT_RODATA_MAP_NAME	"uet_port.rodata"
/* watch's default sampling interval, and its bounds */
#define UET_PORT_WATCH_US	1000
#define UET_PORT_WATCH_MIN_US	100
#define UET_PORT_WATCH_MAX_US	10000000

static const char uet_port_usage[] =
	"usage: uet_port attach DEV --rate MBIT --buf BYTES [--mark BYTES]\n"
	"                  [--trim BYTES] [--trim-keep BYTES]\n"
	"                  [--dscp-trimmable N] [--dscp-trimmed N]\n"
	"                  [--dscp-lasthop N] [--lasthop]\n"
	"       uet_port stats DEV [--json]\n"
	"       uet_port reset DEV\n"
	"       uet_port watch DEV [--interval-us N]\n"
	"       uet_port detach DEV\n"
	"attach replaces a model already there (its counters start again);\n"
	"--mark and --trim are queue thresholds in bytes, 0 or absent: off.\n"
	"watch prints \"EPOCH_S QUEUE_BYTES PASSED DROPPED MARKED\" every N us\n"
	"(1000) until SIGTERM or SIGINT: the queue as it stands now.\n";

struct uet_port_args {
	const char *verb;
	const char *dev;
	int ifindex;
	bool json;
	unsigned long long interval_us;	/* watch */
	struct uet_port_cfg cfg;
};

/* The model's maps, found from its program. */
struct uet_port_fds {
	int vq;
	int cnt;
	int rodata;	/* its settings: -1 when not found (watch needs it) */
};

static int uet_port_fail(const struct uet_port_args *a, int err)
{
	const char *why;

	switch (err) {
	case -EPERM:
	case -EACCES:	why = "permission denied (run as root)"; break;
	case -ENODEV:
		why = "no such device (in this network namespace)";
		break;
	case -ENOENT:
		why = "no port model attached (uet_port attach it)";
		break;
	case -EMEDIUMTYPE:
		why = "the tc filter in the model's place is not uet_port's";
		break;
	default:	why = strerror(-err); break;
	}
	fprintf(stderr, "uet_port %s: %s: %s\n", a->verb, a->dev, why);
	return 1;
}

static int uet_port_usage_error(const char *msg)
{
	fprintf(stderr, "uet_port: %s\n%s", msg, uet_port_usage);
	return 2;
}

/* |s| as a number in [min, max], or a usage error naming --|name|. */
static int uet_port_num(const char *s, const char *name, unsigned long long min,
			unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || *out < min ||
	    *out > max) {
		char msg[120];

		snprintf(msg, sizeof(msg), "--%s is %llu..%llu, not \"%s\"",
			 name, min, max, s);
		return uet_port_usage_error(msg);
	}
	return 0;
}

static const struct option uet_port_opts[] = {
	{ "rate", required_argument, NULL, 'r' },
	{ "buf", required_argument, NULL, 'b' },
	{ "mark", required_argument, NULL, 'm' },
	{ "trim", required_argument, NULL, 't' },
	{ "trim-keep", required_argument, NULL, 'k' },
	{ "dscp-trimmable", required_argument, NULL, 'A' },
	{ "dscp-trimmed", required_argument, NULL, 'T' },
	{ "dscp-lasthop", required_argument, NULL, 'L' },
	{ "lasthop", no_argument, NULL, 'l' },
	{ "json", no_argument, NULL, 'j' },
	{ "interval-us", required_argument, NULL, 'i' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One option of attach; 0 or a usage error. */
static int uet_port_opt(int c, struct uet_port_cfg *cfg)
{
	unsigned long long v;
	int ret = 0;

	switch (c) {
	case 'r': ret = uet_port_num(optarg, "rate", 1, 1000000, &v);
		  cfg->rate_mbit = v; break;
	case 'b': ret = uet_port_num(optarg, "buf", 1, 1U << 30, &v);
		  cfg->buf_len = v; break;
	case 'm': ret = uet_port_num(optarg, "mark", 0, 1U << 30, &v);
		  cfg->mark_len = v; break;
	case 't': ret = uet_port_num(optarg, "trim", 0, 1U << 30, &v);
		  cfg->trim_len = v; break;
	case 'k': ret = uet_port_num(optarg, "trim-keep", 0, 9000, &v);
		  cfg->trim_keep_len = v; break;
	case 'A': ret = uet_port_num(optarg, "dscp-trimmable", 0, 63, &v);
		  cfg->dscp_trimmable = v; break;
	case 'T': ret = uet_port_num(optarg, "dscp-trimmed", 0, 63, &v);
		  cfg->dscp_trimmed = v; break;
	case 'L': ret = uet_port_num(optarg, "dscp-lasthop", 0, 63, &v);
		  cfg->dscp_lasthop = v; break;
	case 'l': cfg->lasthop = 1; break;
	}
	return ret;
}

/* Returns 0, 1 for --help shown, 2 for a usage error. */
static int uet_port_parse(int argc, char **argv, struct uet_port_args *a)
{
	bool attach, watch;
	int c, ret;

	memset(a, 0, sizeof(*a));
	a->cfg.trim_keep_len = UET_PORT_TRIM_KEEP;
	a->cfg.dscp_trimmable = UET_PORT_DSCP_TRIMMABLE;
	a->cfg.dscp_trimmed = UET_PORT_DSCP_TRIMMED;
	a->cfg.dscp_lasthop = UET_PORT_DSCP_TRIMMED_LASTHOP;
	a->interval_us = UET_PORT_WATCH_US;
	if (argc < 2)
		return uet_port_usage_error("a verb is required");
	a->verb = argv[1];
	if (strcmp(a->verb, "attach") && strcmp(a->verb, "stats") &&
	    strcmp(a->verb, "reset") && strcmp(a->verb, "watch") &&
	    strcmp(a->verb, "detach"))
		return uet_port_usage_error("the verb is attach, stats, reset, "
					    "watch or detach");
	attach = !strcmp(a->verb, "attach");
	watch = !strcmp(a->verb, "watch");
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", uet_port_opts, NULL)) != -1) {
		if (c == 'h') {
			printf("%s", uet_port_usage);
			return 1;
		}
		if (c == 'j' && !strcmp(a->verb, "stats")) {
			a->json = true;
			continue;
		}
		if (c == 'i' && watch) {
			ret = uet_port_num(optarg, "interval-us",
					   UET_PORT_WATCH_MIN_US,
					   UET_PORT_WATCH_MAX_US,
					   &a->interval_us);
			if (ret)
				return ret;
			continue;
		}
		if (c == '?' || !attach || c == 'j' || c == 'i')
			return uet_port_usage_error("bad option");
		ret = uet_port_opt(c, &a->cfg);
		if (ret)
			return ret;
	}
	if (optind + 1 != argc)
		return uet_port_usage_error("one DEV is required");
	a->dev = argv[optind];
	if (attach && (!a->cfg.rate_mbit || !a->cfg.buf_len))
		return uet_port_usage_error("attach needs --rate and --buf");
	return 0;
}

/* The hook and the filter of our place on DEV's clsact egress. */
static void uet_port_place(const struct uet_port_args *a,
			   struct bpf_tc_hook *hook, struct bpf_tc_opts *opts)
{
	memset(hook, 0, sizeof(*hook));
	hook->sz = sizeof(*hook);
	hook->ifindex = a->ifindex;
	hook->attach_point = BPF_TC_EGRESS;
	memset(opts, 0, sizeof(*opts));
	opts->sz = sizeof(*opts);
	opts->handle = UET_PORT_TC_HANDLE;
	opts->priority = UET_PORT_TC_PRIO;
}

static int uet_port_quiet(enum libbpf_print_level level, const char *fmt,
			  va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int uet_port_attach(const struct uet_port_args *a)
{
	libbpf_print_fn_t old_print;
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	struct uet_port *skel;
	int err;

	skel = uet_port__open();
	if (!skel)
		return -errno;
	skel->rodata->uet_port_cfg = a->cfg;
	err = uet_port__load(skel);
	if (err) {
		fprintf(stderr, "uet_port attach: the kernel refused the "
			"program (libbpf's log above)\n");
		goto out_destroy;
	}
	uet_port_place(a, &hook, &opts);
	/*
	 * The clsact qdisc may be there already (a model replaced, another
	 * filter), which libbpf would warn of.
	 */
	old_print = libbpf_set_print(uet_port_quiet);
	err = bpf_tc_hook_create(&hook);
	libbpf_set_print(old_print);
	if (err && err != -EEXIST)
		goto out_destroy;
	opts.prog_fd = bpf_program__fd(skel->progs.uet_port_egress);
	opts.flags = BPF_TC_F_REPLACE;
	/* the filter holds the program and its maps once we exit */
	err = bpf_tc_attach(&hook, &opts);
out_destroy:
	uet_port__destroy(skel);
	return err;
}

/* The id of the map of |prog_fd| named |name|, or 0. */
static __u32 uet_port_map_id(int prog_fd, const char *name)
{
	__u32 ids[UET_PORT_MAX_MAPS], n, i, len;
	struct bpf_prog_info info;

	memset(&info, 0, sizeof(info));
	info.nr_map_ids = UET_PORT_MAX_MAPS;
	info.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	n = info.nr_map_ids < UET_PORT_MAX_MAPS ? info.nr_map_ids :
						  UET_PORT_MAX_MAPS;
	for (i = 0; i < n; i++) {
		struct bpf_map_info minfo;
		int fd = bpf_map_get_fd_by_id(ids[i]);
		bool hit;

		if (fd < 0)
			continue;
		memset(&minfo, 0, sizeof(minfo));
		len = sizeof(minfo);
		hit = !bpf_obj_get_info_by_fd(fd, &minfo, &len) &&
		      !strcmp(minfo.name, name);
		close(fd);
		if (hit)
			return ids[i];
	}
	return 0;
}

/*
 * The maps of the model attached to DEV: its filter's program (checked by
 * name, so that a stranger's filter there is not taken for ours), then the
 * program's maps by name.
 */
static int uet_port_find(const struct uet_port_args *a,
			 struct uet_port_fds *fds)
{
	libbpf_print_fn_t old_print;
	struct bpf_prog_info info;
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	__u32 len = sizeof(info), vq_id, cnt_id, rodata_id;
	int prog_fd, err;

	uet_port_place(a, &hook, &opts);
	/* libbpf would print the kernel's words for "none there" */
	old_print = libbpf_set_print(uet_port_quiet);
	err = bpf_tc_query(&hook, &opts);
	libbpf_set_print(old_print);
	/* no clsact qdisc at all is EINVAL */
	if (err == -EINVAL || err == -ENOENT)
		return -ENOENT;
	if (err)
		return err;
	prog_fd = bpf_prog_get_fd_by_id(opts.prog_id);
	if (prog_fd < 0)
		return -errno;
	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(prog_fd, &info, &len) ? -errno : 0;
	if (!err && strcmp(info.name, UET_PORT_PROG_NAME))
		err = -EMEDIUMTYPE;
	vq_id = err ? 0 : uet_port_map_id(prog_fd, UET_PORT_VQ_MAP_NAME);
	cnt_id = err ? 0 : uet_port_map_id(prog_fd, UET_PORT_CNT_MAP_NAME);
	rodata_id = err ? 0 : uet_port_map_id(prog_fd,
					      UET_PORT_RODATA_MAP_NAME);
	close(prog_fd);
	if (err)
		return err;
	if (!vq_id || !cnt_id)
		return -EMEDIUMTYPE;
	fds->vq = bpf_map_get_fd_by_id(vq_id);
	fds->cnt = bpf_map_get_fd_by_id(cnt_id);
	if (fds->vq < 0 || fds->cnt < 0) {
		err = -errno;
		if (fds->vq >= 0)
			close(fds->vq);
		if (fds->cnt >= 0)
			close(fds->cnt);
		return err;
	}
	fds->rodata = rodata_id ? bpf_map_get_fd_by_id(rodata_id) : -1;
	return 0;
}

static void uet_port_close(const struct uet_port_fds *fds)
{
	close(fds->vq);
	close(fds->cnt);
	if (fds->rodata >= 0)
		close(fds->rodata);
}

/* A zeroed value of the per-CPU counter map, its CPUs in |*ncpu|. */
static int uet_port_percpu(__u64 **v, int *ncpu)
{
	*ncpu = libbpf_num_possible_cpus();
	if (*ncpu < 0)
		return *ncpu;
	*v = calloc(*ncpu, sizeof(**v));
	return *v ? 0 : -ENOMEM;
}

/*
 * Counters summed over CPUs into |out|, then the queue's value, read
 * under its lock as the program updates it.
 */
static int uet_port_read(const struct uet_port_fds *fds,
			 __u64 out[UET_PORT_CNT_MAX], struct uet_port_vq *vq)
{
	int ncpu, c, err;
	__u32 key;
	__u64 *v;

	err = uet_port_percpu(&v, &ncpu);
	if (err)
		return err;
	for (key = 0; key < UET_PORT_CNT_MAX && !err; key++) {
		out[key] = 0;
		if (bpf_map_lookup_elem(fds->cnt, &key, v)) {
			err = -errno;
			break;
		}
		for (c = 0; c < ncpu; c++)
			out[key] += v[c];
	}
	free(v);
	key = 0;
	if (!err && bpf_map_lookup_elem_flags(fds->vq, &key, vq, BPF_F_LOCK))
		err = -errno;
	return err;
}

static int uet_port_stats(const struct uet_port_args *a,
			  const struct uet_port_fds *fds)
{
	__u64 c[UET_PORT_CNT_MAX];
	struct uet_port_vq vq;
	const char *fmt;
	int err;

	err = uet_port_read(fds, c, &vq);
	if (err)
		return err;
	fmt = a->json ? "{\"passed\":%llu,\"bytes\":%llu,\"marked\":%llu,"
			"\"trimmed\":%llu,\"dropped\":%llu,\"maxq\":%llu}\n" :
			"passed %llu bytes %llu marked %llu trimmed %llu "
			"dropped %llu maxq %llu\n";
	printf(fmt, (unsigned long long)c[UET_PORT_CNT_PASSED],
	       (unsigned long long)c[UET_PORT_CNT_BYTES],
	       (unsigned long long)c[UET_PORT_CNT_MARKED],
	       (unsigned long long)c[UET_PORT_CNT_TRIMMED],
	       (unsigned long long)c[UET_PORT_CNT_DROPPED],
	       (unsigned long long)vq.max_len);
	return 0;
}

/* Counters, the queue and its maximum back to zero (a quiet port). */
static int uet_port_reset(const struct uet_port_fds *fds)
{
	struct uet_port_vq vq;
	int ncpu, err;
	__u32 key;
	__u64 *v;

	err = uet_port_percpu(&v, &ncpu);
	if (err)
		return err;
	for (key = 0; key < UET_PORT_CNT_MAX && !err; key++)
		if (bpf_map_update_elem(fds->cnt, &key, v, BPF_ANY))
			err = -errno;
	free(v);
	/* last_ns 0: the next frame finds the queue drained */
	memset(&vq, 0, sizeof(vq));
	key = 0;
	if (!err && bpf_map_update_elem(fds->vq, &key, &vq, BPF_F_LOCK))
		err = -errno;
	return err;
}

/* The settings the model was loaded with, from its .rodata map. */
static int uet_port_cfg_read(const struct uet_port_fds *fds,
			     struct uet_port_cfg *cfg)
{
	size_t off = offsetof(struct uet_port__rodata, uet_port_cfg);
	struct bpf_map_info info;
	__u32 len = sizeof(info), key = 0;
	char *v;
	int err = 0;

	if (fds->rodata < 0)
		return -EMEDIUMTYPE;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fds->rodata, &info, &len))
		return -errno;
	if (info.value_size < off + sizeof(*cfg))
		return -EMEDIUMTYPE;
	v = malloc(info.value_size);
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fds->rodata, &key, v))
		err = -errno;
	else
		memcpy(cfg, v + off, sizeof(*cfg));
	free(v);
	return err;
}

/*
 * The queue at |now_ns| (CLOCK_MONOTONIC, the program's bpf_ktime_get_ns):
 * the program drains it only when a frame comes, so the value read is the
 * queue at its last update, less what the port has sent since. The same
 * arithmetic as its uet_port_drain, without writing anything back.
 */
static __u64 uet_port_queue_now(const struct uet_port_vq *vq, __u64 rate_mbit,
				__u64 now_ns)
{
	__u64 idle, out;

	if (!rate_mbit || now_ns <= vq->last_ns)
		return vq->vq_len;
	idle = now_ns - vq->last_ns;
	if (idle > UET_PORT_MAX_IDLE_NS)
		idle = UET_PORT_MAX_IDLE_NS;
	out = idle * rate_mbit / 8000;
	return out >= vq->vq_len ? 0 : vq->vq_len - out;
}

static volatile sig_atomic_t uet_port_stopped;

static void uet_port_on_stop(int sig)
{
	(void)sig;
	uet_port_stopped = 1;
}

static __u64 uet_port_ns(const struct timespec *t)
{
	return (__u64)t->tv_sec * 1000000000ULL + t->tv_nsec;
}

/*
 * Every interval, a line "EPOCH_S QUEUE_BYTES PASSED DROPPED MARKED" until
 * SIGTERM or SIGINT, which end it with what is buffered written out: a
 * benchmark's plot of the queue over time. A late wake-up skips the
 * samples it missed rather than bunching them.
 */
static int uet_port_watch(const struct uet_port_args *a,
			  const struct uet_port_fds *fds)
{
	struct sigaction sa = { .sa_handler = uet_port_on_stop };
	__u64 c[UET_PORT_CNT_MAX], next, now, step = a->interval_us * 1000;
	struct timespec mono, real;
	struct uet_port_cfg cfg = { 0 };
	struct uet_port_vq vq;
	int err;

	err = uet_port_cfg_read(fds, &cfg);
	if (err)
		return err;
	/* no SA_RESTART: the signal cuts the sleep short */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	next = uet_port_ns(&mono);
	while (!uet_port_stopped) {
		err = uet_port_read(fds, c, &vq);
		if (err)
			break;
		/* after the read: a clock read before it could precede
		 * the last update and see too long a queue */
		clock_gettime(CLOCK_MONOTONIC, &mono);
		clock_gettime(CLOCK_REALTIME, &real);
		now = uet_port_ns(&mono);
		printf("%lld.%06ld %llu %llu %llu %llu\n",
		       (long long)real.tv_sec, real.tv_nsec / 1000,
		       (unsigned long long)uet_port_queue_now(&vq,
							     cfg.rate_mbit,
							     now),
		       (unsigned long long)c[UET_PORT_CNT_PASSED],
		       (unsigned long long)c[UET_PORT_CNT_DROPPED],
		       (unsigned long long)c[UET_PORT_CNT_MARKED]);
		next += step;
		if (next <= now)
			next = now + step;
		mono.tv_sec = next / 1000000000ULL;
		mono.tv_nsec = next % 1000000000ULL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &mono, NULL);
	}
	if (fflush(stdout) && !err)
		err = -errno;
	return err;
}

/* Our filter only: the clsact qdisc may hold others' too. */
static int uet_port_detach(const struct uet_port_args *a)
{
	struct uet_port_fds fds;
	struct bpf_tc_hook hook;
	struct bpf_tc_opts opts;
	int err;

	err = uet_port_find(a, &fds);
	if (err)
		return err;
	uet_port_close(&fds);
	uet_port_place(a, &hook, &opts);
	return bpf_tc_detach(&hook, &opts);
}

static int uet_port_run(const struct uet_port_args *a)
{
	struct uet_port_fds fds;
	int err;

	if (!strcmp(a->verb, "attach"))
		return uet_port_attach(a);
	if (!strcmp(a->verb, "detach"))
		return uet_port_detach(a);
	err = uet_port_find(a, &fds);
	if (err)
		return err;
	if (!strcmp(a->verb, "stats"))
		err = uet_port_stats(a, &fds);
	else if (!strcmp(a->verb, "watch"))
		err = uet_port_watch(a, &fds);
	else
		err = uet_port_reset(&fds);
	uet_port_close(&fds);
	return err;
}

int main(int argc, char **argv)
{
	struct uet_port_args a;
	int ret;

	ret = uet_port_parse(argc, argv, &a);
	if (ret)
		return ret == 1 ? 0 : ret;
	a.ifindex = if_nametoindex(a.dev);
	if (!a.ifindex)
		return uet_port_fail(&a, -ENODEV);
	ret = uet_port_run(&a);
	return ret ? uet_port_fail(&a, ret) : 0;
}
