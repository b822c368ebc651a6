/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FI_UET_TRACE (uet_engine_trace.h): the file and the sampling. No thread
 * of its own: progress samples when the interval has passed (so a process
 * that does not call progress takes no samples, and has nothing moving),
 * and only the PDCs pdc_active_walk() names, those that sent since the
 * last sample or have packets in flight: thousands of idle PDCs cost
 * nothing. Lines go through a large stdio buffer, written out when it
 * fills and at close (or at exit(), which flushes every stream).
 *
 * One file per process, shared by its endpoints (a PDCID names its
 * endpoint: the endpoint index is its prefix), so that "%p" in the path
 * is enough to keep processes apart: a second endpoint opening the same
 * name with O_TRUNC would wipe the first one's lines. For the same reason
 * it stays open when the last endpoint closes (flushed then), for the
 * process's next ones; exit() writes what is left. No destructor closes
 * it: the progress thread may still sample while the process exits, and
 * glibc's own flush at exit locks the stream against it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/uet_engine_trace.h"
#include "engine/uet_engine_trace_fmt.h"

/*
 * A write every 1 MiB, some 12,000 lines: a second of 12 busy PDCs at
 * the default interval.
 */
#define UET_TRACE_BUF_LEN	(1u << 20)

static struct {
	pthread_mutex_t lock;
	FILE *f;
	char *buf;		/* f's buffer */
	unsigned int refs;	/* engines writing to f */
	bool failed;		/* warned: no more tries */
} uet_trace = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void uet_trace_warn(struct uet_engine *e, const char *path, int err)
{
	char msg[PATH_MAX + 128];

	uet_trace.failed = true;
	if (!e->ops.warn)
		return;
	snprintf(msg, sizeof(msg), "FI_UET_TRACE: cannot open %s: %s; no "
		 "trace", path, strerror(err));
	e->ops.warn(e->ctx, msg);
}

/* Opens the file, under the lock; 0 or a negative errno. */
static int uet_trace_file_open(const char *path)
{
	char head[UET_TRACE_LINE_MAX];
	int fd, n;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	uet_trace.f = fdopen(fd, "w");
	uet_trace.buf = malloc(UET_TRACE_BUF_LEN);
	if (!uet_trace.f || !uet_trace.buf) {
		if (uet_trace.f)
			fclose(uet_trace.f);
		else
			close(fd);
		free(uet_trace.buf);
		uet_trace.f = NULL;
		uet_trace.buf = NULL;
		return -ENOMEM;
	}
	setvbuf(uet_trace.f, uet_trace.buf, _IOFBF, UET_TRACE_BUF_LEN);
	n = uet_trace_fmt_header(head, sizeof(head));
	fwrite(head, 1, (size_t)n, uet_trace.f);
	return 0;
}

/*
 * CLOCK_REALTIME less CLOCK_MONOTONIC, ns. A sample's epoch is its
 * monotonic time plus this: the wall clock, as NTP's slewing moves both
 * clocks alike, but never going back (a step of the wall clock is not
 * followed) and as far apart as the samples were taken, which a second
 * clock read per sample could not promise to a process descheduled
 * between the two reads.
 */
static uint64_t uet_trace_wall_offset(void)
{
	struct timespec rt;
	uint64_t mono = uet_engine_now_ns();

	clock_gettime(CLOCK_REALTIME, &rt);
	return (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec -
	       mono;
}

void uet_engine_trace_open(struct uet_engine *e)
{
	char path[PATH_MAX];
	uint32_t us = e->cfg.trace_us ? e->cfg.trace_us : UET_TRACE_US_DEFAULT;
	int ret = 0;

	e->trace_at_ns = UINT64_MAX;
	if (!e->cfg.trace_path || !*e->cfg.trace_path)
		return;
	if (us < UET_TRACE_US_MIN)
		us = UET_TRACE_US_MIN;
	pthread_mutex_lock(&uet_trace.lock);
	if (!uet_trace.f && !uet_trace.failed) {
		ret = uet_trace_path(path, sizeof(path), e->cfg.trace_path,
				     getpid());
		if (ret >= 0)
			ret = uet_trace_file_open(path);
		else
			snprintf(path, sizeof(path), "%s", e->cfg.trace_path);
		if (ret < 0)
			uet_trace_warn(e, path, -ret);
	}
	if (uet_trace.f) {
		uet_trace.refs++;
		e->trace_f = uet_trace.f;
		e->trace_every_ns = (uint64_t)us * 1000;
		e->trace_wall_ns = uet_trace_wall_offset();
		e->trace_at_ns = 0;	/* the first progress call samples */
	}
	pthread_mutex_unlock(&uet_trace.lock);
}

void uet_engine_trace_close(struct uet_engine *e)
{
	if (!e->trace_f)
		return;
	pthread_mutex_lock(&uet_trace.lock);
	if (--uet_trace.refs == 0)
		fflush(uet_trace.f);
	pthread_mutex_unlock(&uet_trace.lock);
	e->trace_f = NULL;
	e->trace_at_ns = UINT64_MAX;
}

struct uet_trace_walk {
	struct uet_engine *e;
	struct timespec ts;
};

/* One line: a stdio call, atomic against other endpoints' lines. */
static void uet_trace_put(void *ctx, const struct pdc_info *in)
{
	struct uet_trace_walk *w = ctx;
	char line[UET_TRACE_LINE_MAX];
	int n = uet_trace_fmt_line(line, sizeof(line), &w->ts, in,
				   w->e->payload_mtu);

	fwrite(line, 1, (size_t)n, w->e->trace_f);
}

/*
 * The clock is read afresh: e->now_ns was read when the progress call
 * began, which a descheduled process may have left milliseconds ago.
 */
void uet_engine_trace_sample(struct uet_engine *e)
{
	struct uet_trace_walk w = { .e = e };
	uint64_t now = uet_engine_now_ns(), wall = now + e->trace_wall_ns;

	e->trace_at_ns = now + e->trace_every_ns;
	w.ts.tv_sec = (time_t)(wall / 1000000000ull);
	w.ts.tv_nsec = (long)(wall % 1000000000ull);
	pdc_active_walk(e->pdc, uet_trace_put, &w);
}
