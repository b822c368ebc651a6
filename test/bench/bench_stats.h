/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the in-memory benchmarks share: a monotonic clock in ns and the
 * median of a run's figures (the machines are noisy: medians, not means).
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stdlib.h>
#include <time.h>

static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts |v| in place. */
static inline double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return v[n / 2];
}

#endif
