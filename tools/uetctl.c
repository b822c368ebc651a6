/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetctl: load the UET XDP program on an interface, unload it, and show or
 * change what it does (status, counters, fault injection).
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "tools/uetctl.h"
#include "tools/uetctl_prom.h"
#include "dev/uet_dev_opts.h"
#include "dev/uet_dev_proto.h"
#include "dev/uet_xdp_ctl.h"
#include "uet_wire.h"
#include "tools/uetctl_top.h"

struct uetctl_verb {
	const char *name;
	const char *usage;
	int (*run)(int argc, char **argv);
};

int uetctl_fail(const char *verb, const char *ifname, int err)
{
	const char *why;

	switch (err) {
	case -EPERM:
	case -EACCES:	why = "permission denied (run as root)"; break;
	case -ENODEV:	why = "no such interface"; break;
	case -EEXIST:	why = "already loaded (uetctl unload it first)"; break;
	case -EBUSY:	why = "another XDP program holds the interface "
			      "(and this kernel cannot share it)"; break;
	case -ENOENT:	why = strcmp(verb, "load") ? "not loaded" :
					strerror(ENOENT); break;
	default:	why = strerror(-err); break;
	}
	fprintf(stderr, "uetctl %s: %s%s%s\n", verb, ifname ? ifname : "",
		ifname ? ": " : "", why);
	return 1;
}

static int uetctl_usage_error(const struct uetctl_verb *v, const char *msg)
{
	fprintf(stderr, "uetctl %s: %s\nusage: %s", v->name, msg, v->usage);
	return 2;
}

/* Parses common options; returns the option index of IFACE or -1. */
static const struct option uetctl_opts[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "port", required_argument, NULL, 'p' },
	{ "json", no_argument, NULL, 'j' },
	{ "drop", required_argument, NULL, 'd' },
	{ "off", no_argument, NULL, 'o' },
	{ "write", required_argument, NULL, 'w' },
	{ "count", required_argument, NULL, 'c' },
	{ "duration", required_argument, NULL, 'D' },
	{ "decode", no_argument, NULL, 'x' },
	{ "endpoints", required_argument, NULL, 'e' },
	{ "tx-chunks", required_argument, NULL, 't' },
	{ "no-service", no_argument, NULL, 'n' },
	{ "policy", required_argument, NULL, 'P' },
	{ "tss-keys", required_argument, NULL, 'K' },
	{ "tss-state", required_argument, NULL, 'S' },
	{ "busy-poll", required_argument, NULL, 'B' },
	{ "queues", required_argument, NULL, 'Q' },
	{ "prometheus", no_argument, NULL, 'M' },
	{ "textfile", required_argument, NULL, 'F' },
	{ "interval", required_argument, NULL, 'I' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct uetctl_args {
	const char *ifname;
	enum uet_xdp_mode mode;
	long port;
	bool json, off, has_drop, decode, no_service;
	long endpoints, tx_chunks, queues;
	const char *policy;
	const char *tss_keys, *tss_state;
	const char *busy_poll;	/* "USEC[,BUDGET]", checked */
	double drop_pct;
	const char *file;
	long count;
	double duration_s;
	bool prometheus;
	const char *textfile;	/* --prometheus into DIR/uet_IFACE.prom */
	long interval_s;	/* then again every N s */
};

static const struct uetctl_verb *uetctl_cur;

/* Returns 0, 1 for --help shown, 2 for a usage error. */
static int uetctl_parse(int argc, char **argv, const char *allowed,
			bool need_if, struct uetctl_args *a)
{
	char *end;
	int c;

	memset(a, 0, sizeof(*a));
	a->mode = UET_XDP_MODE_NATIVE;
	a->port = UET_UDP_PORT;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hw:c:", uetctl_opts, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: %s", uetctl_cur->usage);
			return 1;
		}
		if (c == '?' || !strchr(allowed, c))
			return uetctl_usage_error(uetctl_cur, "bad option");
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "native"))
				a->mode = UET_XDP_MODE_NATIVE;
			else if (!strcmp(optarg, "skb"))
				a->mode = UET_XDP_MODE_SKB;
			else
				return uetctl_usage_error(uetctl_cur,
					"--mode is native or skb");
			break;
		case 'p':
			a->port = strtol(optarg, &end, 10);
			if (*end || a->port < 1 || a->port > 65535)
				return uetctl_usage_error(uetctl_cur,
					"--port is 1..65535");
			break;
		case 'j': a->json = true; break;
		case 'n': a->no_service = true; break;
		case 'P': a->policy = optarg; break;
		case 'K': a->tss_keys = optarg; break;
		case 'S': a->tss_state = optarg; break;
		case 'B': {
			int us, budget;

			if (!uet_dev_busy_poll_parse(optarg, &us, &budget))
				return uetctl_usage_error(uetctl_cur,
					"--busy-poll is USEC[,BUDGET]: 0..1000000 "
					"us, budget 1..65535");
			a->busy_poll = optarg;	/* uetd reads it again */
			break;
		}
		case 'e':
			a->endpoints = strtol(optarg, &end, 10);
			if (*end || a->endpoints < 1 ||
			    a->endpoints > UET_FEP_EPS_MAX)
				return uetctl_usage_error(uetctl_cur,
					"--endpoints is 1..511: an interface "
					"has 511 endpoint indices at most (9 "
					"bits of every PDCID and message_id)");
			break;
		case 't':
			a->tx_chunks = strtol(optarg, &end, 10);
			if (*end || a->tx_chunks < UET_DEV_TX_CHUNKS_MIN ||
			    a->tx_chunks > UET_DEV_TX_CHUNKS_MAX ||
			    (a->tx_chunks & (a->tx_chunks - 1)))
				return uetctl_usage_error(uetctl_cur,
					"--tx-chunks is a power of 2, "
					"32..4096 (4 KiB each)");
			break;
		case 'Q':
			a->queues = strtol(optarg, &end, 10);
			if (*end || a->queues < 1 ||
			    a->queues > UET_XDP_MAX_QUEUES)
				return uetctl_usage_error(uetctl_cur,
					"--queues is 1..16");
			break;
		case 'x': a->decode = true; break;
		case 'w': a->file = optarg; break;
		case 'c':
			a->count = strtol(optarg, &end, 10);
			if (*end || a->count < 1)
				return uetctl_usage_error(uetctl_cur,
					"-c is a count of frames, 1 or more");
			break;
		case 'D':
			a->duration_s = strtod(optarg, &end);
			if (*end || !(a->duration_s > 0))
				return uetctl_usage_error(uetctl_cur,
					"--duration is seconds, above 0");
			break;
		case 'o': a->off = true; break;
		case 'M': a->prometheus = true; break;
		case 'F': a->textfile = optarg; break;
		case 'I':
			a->interval_s = strtol(optarg, &end, 10);
			if (*end || a->interval_s < 1 || a->interval_s > 86400)
				return uetctl_usage_error(uetctl_cur,
					"--interval is seconds, 1..86400");
			break;
		case 'd':
			a->drop_pct = strtod(optarg, &end);
			a->has_drop = true;
			if (*end || !(a->drop_pct >= 0 && a->drop_pct <= 100))
				return uetctl_usage_error(uetctl_cur,
					"--drop is a percentage 0..100");
			break;
		}
	}
	if (optind < argc)
		a->ifname = argv[optind++];
	if (optind < argc)
		return uetctl_usage_error(uetctl_cur, "too many arguments");
	if (need_if && !a->ifname)
		return uetctl_usage_error(uetctl_cur, "IFACE is required");
	if (a->ifname && strlen(a->ifname) >= IF_NAMESIZE)
		return uetctl_usage_error(uetctl_cur, "IFACE name too long");
	return 0;
}

/*
 * load: the device service (uetd), which attaches the program and serves
 * endpoints; --no-service attaches the bare program for a single AF_XDP
 * socket of one's own (test/progs/xsk_peer, bench_xsk).
 */
static int uetctl_load(int argc, char **argv)
{
	const char *mode;
	struct uetctl_args a;
	char why[200] = "";
	int ret = uetctl_parse(argc, argv, "mpentPBQKS", true, &a);

	if (ret)
		return ret == 1 ? 0 : ret;
	mode = a.mode == UET_XDP_MODE_SKB ? "skb" : "native";
	if (a.no_service) {
		ret = uet_xdp_load(a.ifname, a.mode, (uint16_t)a.port,
				   UET_FEP_EP_BITS);
		if (ret < 0)
			return uetctl_fail("load", a.ifname, ret);
		printf("uetctl: loaded on %s (%s mode, UDP port %ld, no "
		       "service)\n", a.ifname, mode, a.port);
		return 0;
	}
	if (geteuid() != 0)
		return uetctl_fail("load", a.ifname, -EPERM);
	if (!if_nametoindex(a.ifname))
		return uetctl_fail("load", a.ifname, -ENODEV);
	ret = uetctl_svc_start(a.ifname, mode, a.port, a.endpoints,
			       a.tx_chunks, a.queues, a.policy, a.busy_poll,
			       a.tss_keys, a.tss_state, why, sizeof(why));
	if (ret == -EEXIST)
		return uetctl_fail("load", a.ifname, ret);
	if (ret < 0) {
		fprintf(stderr, "uetctl load: %s: %s\n", a.ifname,
			why[0] ? why : strerror(-ret));
		return 1;
	}
	printf("uetctl: loaded on %s (%s mode, UDP port %ld)\n", a.ifname,
	       mode, a.port);
	return 0;
}

static int uetctl_unload(int argc, char **argv)
{
	struct uetctl_args a;
	int ret = uetctl_parse(argc, argv, "", true, &a);

	if (ret)
		return ret == 1 ? 0 : ret;
	if (geteuid() != 0)
		return uetctl_fail("unload", a.ifname, -EPERM);
	ret = uetctl_svc_stop(a.ifname);
	/* No service: a bare program (--no-service), or one left behind. */
	if (ret == -ENOENT)
		ret = uet_xdp_unload(a.ifname);
	if (ret < 0)
		return uetctl_fail("unload", a.ifname, ret);
	printf("uetctl: unloaded from %s\n", a.ifname);
	return 0;
}

static int uetctl_status_one(const char *ifname, bool quiet_if_absent)
{
	struct uet_xdp_status st;
	int ret = uet_xdp_status_get(ifname, &st);

	if (ret == -ENOENT && quiet_if_absent)
		return 0;
	if (ret < 0)
		return uetctl_fail("status", ifname, ret);
	/* Pins out of sight (another ip netns exec): what netlink tells. */
	if (st.attached && !st.pinned) {
		printf("%s: loaded, %s mode, prog id %u, %d other XDP "
		       "program(s)\n", ifname,
		       st.mode == UET_XDP_MODE_SKB ? "skb" : "native",
		       st.prog_id, st.other_progs);
		uetctl_svc_status(ifname);
		return 0;
	}
	printf("%s: %s, %s mode, UDP port %u, prog id %u, %d other XDP "
	       "program(s), fault drop %.4g%%, capture %s%s\n", ifname,
	       st.attached ? "loaded" : "NOT attached (stale pins)",
	       st.mode == UET_XDP_MODE_SKB ? "skb" : "native", st.udp_port,
	       st.prog_id, st.other_progs, st.cfg.drop_ppm / 10000.0,
	       st.cfg.capture ? "on" : "off",
	       st.pinned ? "" : ", maps not pinned");
	if (st.attached)
		uetctl_svc_status(ifname);
	return 0;
}

/*
 * Without IFACE: every interface of the namespace that has the program
 * (pins may be out of sight: `ip netns exec` hides /sys/fs/bpf).
 */
static int uetctl_status(int argc, char **argv)
{
	struct if_nameindex *ifs, *i;
	struct uet_xdp_status st;
	struct uetctl_args a;
	int ret = uetctl_parse(argc, argv, "", false, &a), shown = 0;

	if (ret)
		return ret == 1 ? 0 : ret;
	if (a.ifname)
		return uetctl_status_one(a.ifname, false);
	ifs = if_nameindex();
	if (!ifs)
		return uetctl_fail("status", NULL, -errno);
	for (i = ifs; i->if_index; i++) {
		if (uet_xdp_status_get(i->if_name, &st) < 0)
			continue;
		ret |= uetctl_status_one(i->if_name, true);
		shown++;
	}
	if_freenameindex(ifs);
	if (!shown)
		printf("uetctl: not loaded on any interface\n");
	return ret;
}

static int uetctl_stats(int argc, char **argv)
{
	uint64_t cnt[UET_XDP_CNT_MAX];
	struct uet_xdp_maps m;
	struct uetctl_args a;
	int ret = uetctl_parse(argc, argv, "jMFI", true, &a);

	if (ret)
		return ret == 1 ? 0 : ret;
	if (a.json && a.prometheus)
		return uetctl_usage_error(uetctl_cur,
					  "--json or --prometheus, not both");
	if (a.textfile && !a.prometheus)
		return uetctl_usage_error(uetctl_cur,
					  "--textfile needs --prometheus");
	if (a.interval_s && !a.textfile)
		return uetctl_usage_error(uetctl_cur,
					  "--interval needs --textfile");
	if (!if_nametoindex(a.ifname))
		return uetctl_fail("stats", a.ifname, -ENODEV);
	if (a.prometheus)
		return uetctl_prom_run(a.ifname, a.textfile, a.interval_s);
	/* From the service, which any shell of the namespace can reach. */
	ret = uetctl_svc_stats(a.ifname, a.json);
	if (ret != -ENOENT)
		return ret < 0 ? uetctl_fail("stats", a.ifname, ret) : 0;
	ret = uet_xdp_maps_open(a.ifname, &m);
	if (ret == 0)
		ret = uet_xdp_counters_read(&m, cnt);
	uet_xdp_maps_close(&m);
	if (ret < 0)
		return uetctl_fail("stats", a.ifname, ret);
	if (a.json)
		printf("{\"iface\": \"%s\"", a.ifname);
	for (unsigned int i = 0; i < UET_XDP_CNT_MAX; i++) {
		if (a.json)
			printf(", \"%s\": %llu", uet_xdp_counter_name(i),
			       (unsigned long long)cnt[i]);
		else
			printf("%-14s %llu\n", uet_xdp_counter_name(i),
			       (unsigned long long)cnt[i]);
	}
	if (a.json)
		printf("}\n");
	return 0;
}

static int uetctl_fault(int argc, char **argv)
{
	struct uet_xdp_maps m;
	struct uet_xdp_cfg cfg;
	struct uetctl_args a;
	int ret = uetctl_parse(argc, argv, "do", true, &a);

	if (ret)
		return ret == 1 ? 0 : ret;
	if (a.has_drop == a.off)
		return uetctl_usage_error(uetctl_cur,
					  "give exactly one of --drop, --off");
	if (!if_nametoindex(a.ifname))
		return uetctl_fail("fault", a.ifname, -ENODEV);
	ret = uet_xdp_maps_open(a.ifname, &m);
	if (ret == 0)
		ret = uet_xdp_cfg_read(&m, &cfg);
	if (ret == 0) {
		cfg.drop_ppm = a.off ? 0 : (uint32_t)(a.drop_pct * 10000 + 0.5);
		ret = uet_xdp_cfg_write(&m, &cfg);
	}
	uet_xdp_maps_close(&m);
	if (ret < 0)
		return uetctl_fail("fault", a.ifname, ret);
	printf("uetctl: %s: fault injection %s\n", a.ifname,
	       a.off ? "off" : "on");
	return 0;
}

static int uetctl_capture_verb(int argc, char **argv)
{
	struct uetctl_args a;
	int ret = uetctl_parse(argc, argv, "wcDx", true, &a);

	if (ret)
		return ret == 1 ? 0 : ret;
	if (!a.file)
		return uetctl_usage_error(uetctl_cur, "-w FILE is required");
	if (!if_nametoindex(a.ifname))
		return uetctl_fail("capture", a.ifname, -ENODEV);
	return uetctl_capture(a.ifname, a.file, a.count, a.duration_s,
			      a.decode);
}

static const struct uetctl_verb uetctl_verbs[] = {
	{ "load", "uetctl load IFACE [--mode native|skb] [--port N] "
		  "[--endpoints N]\n  [--tx-chunks N] [--queues N] "
		  "[--policy FILE] [--tss-keys FILE]\n  [--tss-state FILE] "
		  "[--busy-poll USEC[,BUDGET]] [--no-service]\n"
		  "  start the interface's device service (uetd), which "
		  "attaches the UET XDP\n  program (default native mode, "
		  "port 4793) and serves up to N endpoints\n  (1..511, "
		  "default 31; above 63 every PDCID and message_id gives "
		  "more\n  bits to the endpoint index: uetctl(8)); "
		  "--tx-chunks: 4 KiB transmit\n  chunks of UMEM per "
		  "endpoint (a power of 2, 32..4096, default 512);\n"
		  "  --policy: which users may use which JobIDs (default"
		  "\n  /etc/uet/jobs.conf if it exists); --no-service: the "
		  "bare program, for one\n  AF_XDP socket; --busy-poll: "
		  "the endpoints' sockets busy-poll the NIC's\n  queue "
		  "(SO_PREFER_BUSY_POLL, SO_BUSY_POLL USEC, SO_BUSY_POLL_BUDGET"
		  ",\n  default 8); --queues: serve rx queues 0..N-1, each "
		  "endpoint on one\n  (FI_UET_QUEUE_ID, or the one with "
		  "fewest); --tss-keys, --tss-state: the TSS key file "
		  "and epoch state\n  (uetd(8))\n", uetctl_load },
	{ "unload", "uetctl unload IFACE\n"
		    "  stop the service, detach the program, remove its "
		    "pinned maps\n", uetctl_unload },
	{ "status", "uetctl status [IFACE]\n"
		    "  where it is loaded, mode, port, debug settings\n",
	  uetctl_status },
	{ "stats", "uetctl stats IFACE [--json | --prometheus [--textfile DIR "
		   "[--interval N]]]\n"
		   "  the program's counters, summed over CPUs, and the "
		   "service's endpoints;\n  --prometheus: in Prometheus' text "
		   "format; --textfile: into DIR/uet_IFACE.prom\n  (for "
		   "node_exporter), again every N seconds until SIGTERM\n",
	  uetctl_stats },
	{ "fault", "uetctl fault IFACE --drop PERCENT | --off\n"
		   "  drop a fraction of UET frames (for loss tests)\n",
	  uetctl_fault },
	{ "capture", "uetctl capture IFACE -w FILE [-c COUNT] [--duration S] "
		     "[--decode]\n"
		     "  record steered UET frames into a pcap file; --decode "
		     "shows them with tshark\n", uetctl_capture_verb },
	{ "top", "uetctl top IFACE [--once] [--interval S]\n"
		 "  the interface and its endpoints live (q quits); --once: "
		 "one screen\n", uetctl_top },
};

static void uetctl_help(FILE *out)
{
	fprintf(out, "uetctl: control the UET XDP program\n");
	for (size_t i = 0; i < sizeof(uetctl_verbs) / sizeof(uetctl_verbs[0]);
	     i++)
		fprintf(out, "  %s", uetctl_verbs[i].usage);
	fprintf(out, "each verb takes --help\n");
}

static int uetctl_silent(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

static int uetctl_silent_xdp(enum libxdp_print_level level, const char *fmt,
			     va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		uetctl_help(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!getenv("UETCTL_DEBUG")) {
		libbpf_set_print(uetctl_silent);
		libxdp_set_print(uetctl_silent_xdp);
	}
	for (size_t i = 0; i < sizeof(uetctl_verbs) / sizeof(uetctl_verbs[0]);
	     i++) {
		if (!strcmp(argv[1], uetctl_verbs[i].name)) {
			uetctl_cur = &uetctl_verbs[i];
			return uetctl_verbs[i].run(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "uetctl: unknown verb '%s'\n", argv[1]);
	uetctl_help(stderr);
	return 2;
}
