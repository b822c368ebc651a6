/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_UET_TRACE's text (engine/uet_engine_trace_fmt.c) on made-up PDC
 * snapshots: a header naming the ten columns, lines of ten numbers in
 * that order with the epoch in microseconds, the window and bytes in
 * flight without NSCC, the longest line within UET_TRACE_LINE_MAX, and
 * the file name's %p.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engine/uet_engine_trace_fmt.h"

static const struct timespec t_ts = { .tv_sec = 1764386075,
				      .tv_nsec = 123456789 };

Test(trace_fmt, header_names_the_eleven_columns)
{
	char buf[UET_TRACE_LINE_MAX];
	int n = uet_trace_fmt_header(buf, sizeof(buf));

	cr_assert_gt(n, 0);
	cr_assert_lt(n, UET_TRACE_LINE_MAX);
	cr_expect_str_eq(buf, "# EPOCH_S PDCID PEER CWND_BYTES "
			 "INFLIGHT_BYTES AVG_DELAY_NS SRTT_NS BASE_RTT_NS "
			 "MAX_WND_BYTES RETX_TOTAL LINK_MBPS\n");
}

Test(trace_fmt, nscc_line_in_column_order)
{
	struct pdc_info in = {
		.peer = 7, .pdcid = 0x8123, .nscc = true,
		.cwnd = 3, .unacked_bytes = 999,	/* not NSCC's: unused */
		.cwnd_bytes = 150000, .inflight_bytes = 61440,
		.avg_delay_ns = 1234, .srtt_ns = 25000, .base_rtt_ns = 8000,
		.max_wnd_bytes = 187500, .retx = 42, .link_mbps = 2345,
	};
	char buf[UET_TRACE_LINE_MAX];
	int n = uet_trace_fmt_line(buf, sizeof(buf), &t_ts, &in, 4096);

	cr_expect_str_eq(buf, "1764386075.123456 33059 7 150000 61440 1234 "
			 "25000 8000 187500 42 2345\n");
	cr_expect_eq(n, (int)strlen(buf));
}

Test(trace_fmt, without_nscc_the_packet_window_times_the_mtu)
{
	struct pdc_info in = {
		.peer = 1, .pdcid = 5, .cwnd = 32, .unacked_bytes = 3000,
		.srtt_ns = 40000, .retx = 1,
	};
	char buf[UET_TRACE_LINE_MAX];

	uet_trace_fmt_line(buf, sizeof(buf), &t_ts, &in, 1024);
	cr_expect_str_eq(buf, "1764386075.123456 5 1 32768 3000 0 40000 0 0 "
			 "1 0\n");
}

Test(trace_fmt, epoch_keeps_leading_zeros_of_the_microseconds)
{
	struct timespec ts = { .tv_sec = 10, .tv_nsec = 5999 };
	struct pdc_info in = { .nscc = true };
	char buf[UET_TRACE_LINE_MAX];

	uet_trace_fmt_line(buf, sizeof(buf), &ts, &in, 1024);
	cr_expect_str_eq(buf, "10.000005 0 0 0 0 0 0 0 0 0 0\n");
	ts.tv_nsec = 999999999;
	uet_trace_fmt_line(buf, sizeof(buf), &ts, &in, 1024);
	cr_expect(!strncmp(buf, "10.999999 ", 10), "%s", buf);
}

/* Every field at its largest: eleven fields, and room to spare. */
Test(trace_fmt, the_longest_line_fits)
{
	struct timespec ts = { .tv_sec = INT64_MAX, .tv_nsec = 999999999 };
	struct pdc_info in = {
		.peer = UINT32_MAX, .pdcid = UINT16_MAX, .cwnd = UINT32_MAX,
		.unacked_bytes = UINT32_MAX, .avg_delay_ns = UINT64_MAX,
		.srtt_ns = UINT64_MAX, .base_rtt_ns = UINT64_MAX,
		.max_wnd_bytes = UINT32_MAX, .retx = UINT64_MAX,
		.link_mbps = UINT32_MAX,
	};
	char buf[UET_TRACE_LINE_MAX], *tok, *save;
	int n = uet_trace_fmt_line(buf, sizeof(buf), &ts, &in, 8192);
	int fields = 0;

	cr_assert_lt(n, UET_TRACE_LINE_MAX, "%d bytes", n);
	cr_expect_eq(buf[n - 1], '\n');
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		fields++;
	cr_expect_eq(fields, 11);
}

Test(trace_fmt, path_puts_the_pid_for_each_p)
{
	char out[64];

	cr_expect_eq(uet_trace_path(out, sizeof(out), "/tmp/trace.%p", 4321),
		     15);
	cr_expect_str_eq(out, "/tmp/trace.4321");
	uet_trace_path(out, sizeof(out), "%p-%p", 7);
	cr_expect_str_eq(out, "7-7");
	uet_trace_path(out, sizeof(out), "a%%p%d%", 7);
	cr_expect_str_eq(out, "a%p%d%", "%% is a %%, others stay");
	uet_trace_path(out, sizeof(out), "plain", 7);
	cr_expect_str_eq(out, "plain");
}

Test(trace_fmt, path_refuses_what_does_not_fit)
{
	char out[8];

	cr_expect_eq(uet_trace_path(out, sizeof(out), "abcdefg", 1), 7,
		     "7 bytes and the NUL fit 8");
	cr_expect_eq(uet_trace_path(out, sizeof(out), "abcdefgh", 1),
		     -ENAMETOOLONG);
	cr_expect_eq(uet_trace_path(out, sizeof(out), "t.%p", 1234567),
		     -ENAMETOOLONG);
	cr_expect_eq(uet_trace_path(out, sizeof(out), "", 1), -EINVAL);
	cr_expect_eq(uet_trace_path(out, sizeof(out), NULL, 1), -EINVAL);
}
