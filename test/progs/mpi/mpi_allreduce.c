// SPDX-License-Identifier: BSD-2-Clause
// MPI_Allreduce latency for the benchmark of issue 32 (bench_local.sh):
// BYTES of int64 summed over all ranks (8 B: one element), WARMUP calls
// untimed, then ITERS calls each timed on rank 0. Rank 0 prints
//   mpi_allreduce: 8 B: X us (median of ITERS; mean Y us, N ranks)
// The median, not the mean: on a loaded machine of few cores a rank that
// loses its core for a time slice turns one call into milliseconds, which
// the mean keeps and the median does not. Every call's sum is checked, so
// that a transport that drops or mixes up contributions cannot look fast.
// Usage: mpirun ... mpi_allreduce [ITERS [BYTES]] (10000, 8)
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define AR_WARMUP	200
#define AR_MAX_BYTES	(1 << 20)

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static int64_t in[AR_MAX_BYTES / 8], out[AR_MAX_BYTES / 8];
	long iters = argc > 1 ? atol(argv[1]) : 10000;
	long bytes = argc > 2 ? atol(argv[2]) : 8;
	int rank, nranks, n;
	double *t, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (iters < 1 || bytes < 8 || bytes > AR_MAX_BYTES || bytes % 8) {
		if (!rank)
			fprintf(stderr, "usage: mpi_allreduce [ITERS [BYTES]] "
				"(BYTES a multiple of 8, at most %d)\n",
				AR_MAX_BYTES);
		MPI_Finalize();
		return 2;
	}
	n = (int)(bytes / 8);
	t = calloc((size_t)iters, sizeof(*t));
	if (!t)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (long i = 0; i < AR_WARMUP + iters; i++) {
		// Values that change every call: a stale result is caught.
		int64_t want = (int64_t)nranks * (nranks - 1) / 2 +
			       (int64_t)nranks * i;
		double t0;

		for (int j = 0; j < n; j++)
			in[j] = rank + i + j;
		t0 = now_us();
		MPI_Allreduce(in, out, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
		if (i >= AR_WARMUP)
			t[i - AR_WARMUP] = now_us() - t0;
		for (int j = 0; j < n; j++) {
			if (out[j] != want + (int64_t)nranks * j) {
				fprintf(stderr, "mpi_allreduce: rank %d: FAIL "
					"at call %ld, element %d: %lld\n", rank,
					i, j, (long long)out[j]);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
	}
	if (!rank) {
		for (long i = 0; i < iters; i++)
			sum += t[i];
		qsort(t, (size_t)iters, sizeof(*t), cmp_double);
		printf("mpi_allreduce: %ld B: %.3f us (median of %ld; mean "
		       "%.3f us, %d ranks)\n", bytes, t[iters / 2], iters,
		       sum / (double)iters, nranks);
	}
	free(t);
	MPI_Finalize();
	return 0;
}
