/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetctl's Prometheus exposition (tools/uetctl_prom.c) on made-up
 * figures: a HELP and a TYPE line before every metric's samples, counters
 * named _total, the labels of each endpoint, label values escaped, the
 * same bytes for the same figures, and only what the service reported.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/uetctl_prom.h"

static struct uet_dev_stats t_st;

static void t_fill(void)
{
	memset(&t_st, 0, sizeof(t_st));
	t_st.size = sizeof(t_st);
	t_st.flags = UET_DEV_STATS_SERVICE;
	snprintf(t_st.iface, sizeof(t_st.iface), "veth0");
	for (unsigned int i = 0; i < UET_XDP_CNT_MAX; i++)
		t_st.xdp[i] = 1000 + i;
	t_st.opened = 5;
	t_st.rx_reserve = 77;
	t_st.ep_cnt = 2;
	t_st.ep[0] = (struct uet_dev_stats_ep){ .index = 3, .pid = 777,
		.uid = 1000, .job_id = 42, .pid_on_fep = 9, .queue = 0,
		.rx_frames = 11, .rx_refused = 1, .tx_frames = 12 };
	t_st.ep[1] = (struct uet_dev_stats_ep){ .index = 5, .pid = 778,
		.uid = 0, .job_id = 0xFFFFFF, .pid_on_fep = 10, .queue = 1,
		.rx_frames = 21, .tx_frames = 22 };
}

static const char *t_user_name;

static const char *t_user(uint32_t uid, void *ctx)
{
	(void)ctx;
	return uid == 1000 ? t_user_name : "root";
}

/* The exposition of t_st, NUL-terminated; the caller frees it. */
static char *t_write(uetctl_prom_user_fn *user)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	cr_assert(f);
	cr_assert_eq(uetctl_prom_write(f, &t_st, user, NULL), 0);
	fclose(f);
	return out;
}

static void t_setup(void)
{
	t_user_name = "alice";
	t_fill();
}

TestSuite(uetctl_prom, .init = t_setup, .timeout = 10);

Test(uetctl_prom, every_sample_follows_its_help_and_type)
{
	char *out = t_write(t_user), *save = NULL, *line;
	char typed[128] = "", helped[128] = "";
	bool counter = false;
	int samples = 0;

	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128];

		if (sscanf(line, "# HELP %127s", name) == 1) {
			strcpy(helped, name);
			continue;
		}
		if (sscanf(line, "# TYPE %127s", name) == 1) {
			cr_assert_str_eq(name, helped, "TYPE without HELP: %s",
					 line);
			strcpy(typed, name);
			counter = strstr(line, " counter");
			cr_assert(counter || strstr(line, " gauge"), "%s", line);
			cr_assert_eq(counter, strlen(name) > 6 &&
				     !strcmp(name + strlen(name) - 6, "_total"),
				     "counters, and only they, end _total: %s",
				     line);
			continue;
		}
		cr_assert_eq(sscanf(line, "%127[^{ ]", name), 1);
		cr_assert_str_eq(name, typed, "sample of no TYPE: %s", line);
		cr_assert(!strncmp(name, "uet_", 4), "%s", line);
		cr_assert(strstr(line, "{iface=\"veth0\""), "%s", line);
		samples++;
	}
	/* XDP counters, service figures, 2 endpoints by 4 metrics. */
	cr_assert_geq(samples, UET_XDP_CNT_MAX + 8 + 8);
	free(out);
}

Test(uetctl_prom, labels_each_endpoint)
{
	char *out = t_write(t_user);

	cr_assert(strstr(out, "uet_endpoint_tx_frames_total{iface=\"veth0\","
			 "endpoint=\"3\",job_id=\"42\",uid=\"1000\","
			 "user=\"alice\",pid=\"777\"} 12\n"), "%s", out);
	cr_assert(strstr(out, "uet_endpoint_rx_frames_total{iface=\"veth0\","
			 "endpoint=\"5\",job_id=\"16777215\",uid=\"0\","
			 "user=\"root\",pid=\"778\"} 21\n"), "%s", out);
	cr_assert(strstr(out, "uet_endpoint_info{iface=\"veth0\",endpoint="
			 "\"5\",job_id=\"16777215\",uid=\"0\",user=\"root\","
			 "pid=\"778\",pid_on_fep=\"10\",queue=\"1\"} 1\n"));
	cr_assert(strstr(out, "uet_service_endpoints{iface=\"veth0\"} 2\n"));
	cr_assert(strstr(out, "uet_service_endpoints_opened_total{iface="
			 "\"veth0\"} 5\n"));
	cr_assert(strstr(out, "uet_service_rx_reserve_chunks{iface="
			 "\"veth0\"} 77\n"));
	cr_assert(strstr(out, "uet_xdp_redirected_total{iface=\"veth0\"} "
			 "1001\n"));
	free(out);
}

Test(uetctl_prom, no_user_label_when_unnamed)
{
	char *out = t_write(NULL);

	cr_assert_null(strstr(out, "user="));
	cr_assert(strstr(out, "uid=\"1000\",pid=\"777\"} 12\n"));
	free(out);
}

Test(uetctl_prom, escapes_label_values)
{
	char *out;

	t_user_name = "a\"b\\c\nd";
	snprintf(t_st.iface, sizeof(t_st.iface), "e\"\\0");
	out = t_write(t_user);
	cr_assert(strstr(out, "user=\"a\\\"b\\\\c\\nd\""), "%s", out);
	cr_assert(strstr(out, "{iface=\"e\\\"\\\\0\"}"), "%s", out);
	/* No sample line is broken by the newline of the name. */
	cr_assert_null(strstr(out, "\nd\""));
	free(out);
}

Test(uetctl_prom, same_figures_same_bytes)
{
	char *a = t_write(t_user), *b = t_write(t_user);

	cr_assert_str_eq(a, b);
	free(a);
	free(b);
}

Test(uetctl_prom, only_what_was_reported)
{
	char *out;

	out = t_write(t_user);
	cr_assert_null(strstr(out, "uet_tss_"), "no TSS, no TSS metrics");
	free(out);
	t_st.flags |= UET_DEV_STATS_TSS;
	t_st.tss_no_sd = 4;
	out = t_write(t_user);
	cr_assert(strstr(out, "\nuet_tss_no_sd_total{iface=\"veth0\"} 4\n"));
	free(out);
	/* The bare program: its counters, nothing of a service. */
	t_st.flags = 0;
	out = t_write(t_user);
	cr_assert(strstr(out, "\nuet_xdp_seen_total{iface=\"veth0\"} 1000\n"));
	cr_assert_null(strstr(out, "uet_service_"));
	cr_assert_null(strstr(out, "uet_endpoint_"));
	free(out);
}

Test(uetctl_prom, every_xdp_counter_has_help)
{
	for (unsigned int i = 0; i < UET_XDP_CNT_MAX; i++)
		cr_assert(uetctl_prom_xdp_counter_help(i), "counter %u", i);
	cr_assert_null(uetctl_prom_xdp_counter_help(UET_XDP_CNT_MAX));
}

Test(uetctl_prom, refuses_a_bad_struct)
{
	FILE *f = fopen("/dev/null", "w");

	cr_assert(f);
	t_st.ep_cnt = UET_FEP_MAX_EPS + 1;
	cr_assert_eq(uetctl_prom_write(f, &t_st, NULL, NULL), -EINVAL);
	t_fill();
	memset(t_st.iface, 'x', sizeof(t_st.iface));
	cr_assert_eq(uetctl_prom_write(f, &t_st, NULL, NULL), -EINVAL);
	fclose(f);
}
