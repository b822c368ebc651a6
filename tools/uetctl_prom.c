/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * `uetctl stats IFACE --prometheus`: struct uet_dev_stats in Prometheus'
 * text exposition format (version 0.0.4), as node_exporter's textfile
 * collector reads it. No I/O but the stream it is given, so that unit
 * tests drive it with made-up figures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dev/uet_xdp_ctl.h"
#include "tools/uetctl_prom.h"

#define UETCTL_PROM_CNT(a)	(sizeof(a) / sizeof((a)[0]))

/* What each of the program's counters counts (uet_xdp_shared.h). */
static const char *const uetctl_prom_xdp_help[UET_XDP_CNT_MAX] = {
	[UET_XDP_CNT_SEEN] = "Frames the XDP program saw.",
	[UET_XDP_CNT_REDIRECTED] = "UET frames redirected to an AF_XDP "
				   "socket.",
	[UET_XDP_CNT_PASSED] = "Frames that are not UET, passed to the "
			       "kernel.",
	[UET_XDP_CNT_MALFORMED] = "Frames to the UET port with a bad PDS "
				  "header.",
	[UET_XDP_CNT_NO_SOCKET] = "UET frames dropped: no AF_XDP socket on "
				  "their rx queue.",
	[UET_XDP_CNT_FAULT_DROPPED] = "UET frames dropped by the fault "
				      "injector (uetctl fault).",
	[UET_XDP_CNT_CAPTURED] = "Copies of UET frames sent to the capture "
				 "tap (uetctl capture).",
	[UET_XDP_CNT_CAPTURE_LOST] = "Copies lost: the capture ring was "
				     "full.",
	[UET_XDP_CNT_TO_SERVICE] = "UET frames for no endpoint here, sent to "
				   "the device service.",
	[UET_XDP_CNT_WRONG_QUEUE] = "Frames for an endpoint bound to another "
				    "rx queue than they came on.",
	[UET_XDP_CNT_TSS_STEERED] = "Secured (TSS) frames steered to their "
				    "endpoint.",
	[UET_XDP_CNT_TSS_TO_SERVICE] = "Secured (TSS) frames sent to the "
				       "device service.",
	[UET_XDP_CNT_TSS_READ] = "Secured frames whose PDS header the "
				 "program read.",
	[UET_XDP_CNT_TSS_NO_CTX] = "Secured frames of an SD the program "
				   "holds no context for.",
	[UET_XDP_CNT_TSS_KS_HIT] = "Secured frames read with keystream the "
				   "service made ahead (no AES in XDP).",
	[UET_XDP_CNT_TSS_KS_ASKED] = "Keystream entries the program asked "
				     "the service for.",
};

/* A figure of the service or of TSS: where it is in the struct. */
struct uetctl_prom_metric {
	const char *name;	/* the whole name, uet_... */
	bool is_counter;	/* else a gauge */
	uint32_t need;		/* UET_DEV_STATS_* that must be set */
	size_t off;		/* in struct uet_dev_stats */
	size_t len;		/* 4 or 8 */
	const char *help;
};

#define UETCTL_PROM_U64(name, field, help) \
	{ name, true, UET_DEV_STATS_SERVICE, \
	  offsetof(struct uet_dev_stats, field), \
	  sizeof(((struct uet_dev_stats *)0)->field), help }
#define UETCTL_PROM_GAUGE(name, field, help) \
	{ name, false, UET_DEV_STATS_SERVICE, \
	  offsetof(struct uet_dev_stats, field), \
	  sizeof(((struct uet_dev_stats *)0)->field), help }

static const struct uetctl_prom_metric uetctl_prom_service[] = {
	UETCTL_PROM_GAUGE("uet_service_endpoints", ep_cnt,
			  "Endpoints open now."),
	UETCTL_PROM_GAUGE("uet_service_endpoints_max", endpoints_max,
			  "Endpoints the service serves at most."),
	UETCTL_PROM_GAUGE("uet_service_queues", queues,
			  "Rx queues the service serves."),
	UETCTL_PROM_GAUGE("uet_service_zero_copy", zero_copy,
			  "1 when the driver took XDP_ZEROCOPY, 0 when "
			  "frames are copied."),
	UETCTL_PROM_GAUGE("uet_service_busy_poll_microseconds", busy_poll_us,
			  "Busy polling of the sockets (0: off)."),
	UETCTL_PROM_GAUGE("uet_service_umem_chunks", umem_chunks,
			  "Chunks of the shared UMEM."),
	UETCTL_PROM_GAUGE("uet_service_tx_chunks", tx_chunks,
			  "Transmit chunks of each endpoint index."),
	UETCTL_PROM_GAUGE("uet_service_rx_reserve_chunks", rx_reserve,
			  "Receive chunks in the fill ring's reserve now."),
	UETCTL_PROM_U64("uet_service_endpoints_opened_total", opened,
			"Endpoints opened."),
	UETCTL_PROM_U64("uet_service_endpoints_refused_total", refused,
			"Endpoint requests refused (JobID policy, PIDonFEP "
			"in use, no free index)."),
	UETCTL_PROM_U64("uet_service_endpoints_closed_total", closed,
			"Endpoints closed."),
	UETCTL_PROM_U64("uet_service_absent_frames_total", absent_rx,
			"Frames for absent destinations that reached the "
			"service."),
	UETCTL_PROM_U64("uet_service_absent_answered_total", absent_answered,
			"Frames for absent destinations the service "
			"answered."),
	UETCTL_PROM_U64("uet_service_handed_on_total", handed_on,
			"Frames handed on to an endpoint of another rx "
			"queue."),
	UETCTL_PROM_U64("uet_service_local_dropped_total", local_dropped,
			"Local frames no endpoint took."),
	UETCTL_PROM_U64("uet_service_completion_orphans_total",
			comp_orphans,
			"Transmit completions of an endpoint index not in "
			"use."),
	UETCTL_PROM_U64("uet_service_fill_lost_total", fill_lost,
			"Receive chunks the fill ring had no room for."),
	UETCTL_PROM_U64("uet_service_rx_recovered_total", rx_recovered,
			"Receive chunks given back for endpoints that died."),
};

#define UETCTL_PROM_TSS(name, is_counter, field, help) \
	{ name, is_counter, UET_DEV_STATS_TSS, \
	  offsetof(struct uet_dev_stats, field), \
	  sizeof(((struct uet_dev_stats *)0)->field), help }

static const struct uetctl_prom_metric uetctl_prom_tss[] = {
	UETCTL_PROM_TSS("uet_tss_secure_domains", false, tss_sds,
			"Secure domains in the key file."),
	UETCTL_PROM_TSS("uet_tss_generation", false, tss_gen,
			"Key file generation (moves on each reload)."),
	UETCTL_PROM_TSS("uet_tss_xdp_read", false, tss_xdp_read,
			"1 when the XDP program reads sealed headers."),
	UETCTL_PROM_TSS("uet_tss_reloads_total", true, tss_reloads,
			"Reloads of the key file."),
	UETCTL_PROM_TSS("uet_tss_reload_failed_total", true,
			tss_reload_failed,
			"Reloads of the key file that failed."),
	UETCTL_PROM_TSS("uet_tss_key_requests_refused_total", true,
			tss_refused, "Key requests refused."),
	UETCTL_PROM_TSS("uet_tss_handed_on_total", true, tss_handed_on,
			"Secured frames the service handed on."),
	UETCTL_PROM_TSS("uet_tss_no_sd_total", true, tss_no_sd,
			"Secured frames of no secure domain here."),
	UETCTL_PROM_TSS("uet_tss_unsteerable_total", true, tss_unsteerable,
			"Secured frames the service could not steer."),
	UETCTL_PROM_TSS("uet_tss_ep_closed_total", true, tss_ep_closed,
			"Secured frames for an endpoint closed within 2 s "
			"(a teardown's late ACKs and resends), dropped."),
	UETCTL_PROM_TSS("uet_tss_xdp_streams_total", true, tss_xdp_streams,
			"Cluster streams given a context in the XDP "
			"program."),
};

/* The per-endpoint counters (struct uet_dev_stats_ep). */
static const struct {
	const char *name;
	size_t off;
	const char *help;
} uetctl_prom_ep[] = {
	{ "uet_endpoint_rx_frames_total",
	  offsetof(struct uet_dev_stats_ep, rx_frames),
	  "Frames the endpoint received since it opened." },
	{ "uet_endpoint_rx_refused_total",
	  offsetof(struct uet_dev_stats_ep, rx_refused),
	  "Frames the endpoint refused since it opened." },
	{ "uet_endpoint_tx_frames_total",
	  offsetof(struct uet_dev_stats_ep, tx_frames),
	  "Frames the endpoint sent since it opened." },
};

/* |s| with \ " and newline escaped; |quote|: as a label value, else HELP. */
static void uetctl_prom_escape(FILE *f, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && quote)
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

static void uetctl_prom_head(FILE *f, const char *name, bool is_counter,
			     const char *help)
{
	fprintf(f, "# HELP %s ", name);
	uetctl_prom_escape(f, help, false);
	fprintf(f, "\n# TYPE %s %s\n", name, is_counter ? "counter" : "gauge");
}

/* name{iface="..."} */
static void uetctl_prom_iface(FILE *f, const char *name,
			      const struct uet_dev_stats *st)
{
	fprintf(f, "%s{iface=\"", name);
	uetctl_prom_escape(f, st->iface, true);
	fputs("\"", f);
}

static uint64_t uetctl_prom_field(const void *base, size_t off, size_t len)
{
	uint64_t v64;
	uint32_t v32;

	if (len == 8) {
		memcpy(&v64, (const char *)base + off, 8);
		return v64;
	}
	memcpy(&v32, (const char *)base + off, 4);
	return v32;
}

static void uetctl_prom_table(FILE *f, const struct uet_dev_stats *st,
			      const struct uetctl_prom_metric *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((st->flags & m[i].need) != m[i].need)
			continue;
		uetctl_prom_head(f, m[i].name, m[i].is_counter, m[i].help);
		uetctl_prom_iface(f, m[i].name, st);
		/* Signed fields (busy poll) are never negative. */
		fprintf(f, "} %llu\n", (unsigned long long)
			uetctl_prom_field(st, m[i].off, m[i].len));
	}
}

/* {iface, endpoint, job_id, uid, user, pid} of endpoint |e|, unclosed. */
static void uetctl_prom_ep_labels(FILE *f, const char *name,
				  const struct uet_dev_stats *st,
				  const struct uet_dev_stats_ep *e,
				  uetctl_prom_user_fn *user, void *ctx)
{
	const char *who = user ? user(e->uid, ctx) : NULL;

	uetctl_prom_iface(f, name, st);
	fprintf(f, ",endpoint=\"%u\",job_id=\"%u\",uid=\"%u\"", e->index,
		e->job_id, e->uid);
	if (who) {
		fputs(",user=\"", f);
		uetctl_prom_escape(f, who, true);
		fputs("\"", f);
	}
	fprintf(f, ",pid=\"%d\"", e->pid);
}

static void uetctl_prom_endpoints(FILE *f, const struct uet_dev_stats *st,
				  uetctl_prom_user_fn *user, void *ctx)
{
	const char *info = "uet_endpoint_info";

	uetctl_prom_head(f, info, false, "An open endpoint (always 1): its "
			 "labels say whose it is, its PIDonFEP and rx queue.");
	for (uint32_t i = 0; i < st->ep_cnt; i++) {
		uetctl_prom_ep_labels(f, info, st, &st->ep[i], user, ctx);
		fprintf(f, ",pid_on_fep=\"%u\",queue=\"%u\"} 1\n",
			st->ep[i].pid_on_fep, st->ep[i].queue);
	}
	for (size_t m = 0; m < UETCTL_PROM_CNT(uetctl_prom_ep); m++) {
		uetctl_prom_head(f, uetctl_prom_ep[m].name, true,
				 uetctl_prom_ep[m].help);
		for (uint32_t i = 0; i < st->ep_cnt; i++) {
			uetctl_prom_ep_labels(f, uetctl_prom_ep[m].name, st,
					      &st->ep[i], user, ctx);
			fprintf(f, "} %llu\n", (unsigned long long)
				uetctl_prom_field(&st->ep[i],
						  uetctl_prom_ep[m].off, 8));
		}
	}
}

const char *uetctl_prom_xdp_counter_help(unsigned int id)
{
	return id < UET_XDP_CNT_MAX ? uetctl_prom_xdp_help[id] : NULL;
}

int uetctl_prom_write(FILE *f, const struct uet_dev_stats *st,
		      uetctl_prom_user_fn *user, void *ctx)
{
	char name[64];

	if (st->ep_cnt > UET_FEP_MAX_EPS || !memchr(st->iface, '\0',
						    sizeof(st->iface)))
		return -EINVAL;
	for (unsigned int i = 0; i < UET_XDP_CNT_MAX; i++) {
		snprintf(name, sizeof(name), "uet_xdp_%s_total",
			 uet_xdp_counter_name(i));
		uetctl_prom_head(f, name, true, uetctl_prom_xdp_help[i]);
		uetctl_prom_iface(f, name, st);
		fprintf(f, "} %llu\n", (unsigned long long)st->xdp[i]);
	}
	uetctl_prom_table(f, st, uetctl_prom_service,
			  UETCTL_PROM_CNT(uetctl_prom_service));
	uetctl_prom_table(f, st, uetctl_prom_tss, UETCTL_PROM_CNT(uetctl_prom_tss));
	if (st->flags & UET_DEV_STATS_SERVICE)
		uetctl_prom_endpoints(f, st, user, ctx);
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

const char *uetctl_prom_user_passwd(uint32_t uid, void *ctx)
{
	/*
	 * Asked for each sample of an endpoint, and most endpoints are one
	 * user's: the last answer is kept (the database may be LDAP).
	 */
	static char buf[1024];
	static struct passwd pw;
	static struct passwd *found;
	static uint32_t found_uid;
	static bool asked;

	(void)ctx;
	if (asked && found_uid == uid)
		return found ? found->pw_name : NULL;
	asked = true;
	found_uid = uid;
	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &found))
		found = NULL;
	return found ? found->pw_name : NULL;
}
