// SPDX-License-Identifier: BSD-2-Clause
// Every pair pings at once, as OSU's osu_multi_lat does (issue 41): rank i
// of the first half with rank i + n/2, each pair a ping-pong of BYTES-byte
// messages, ITERATIONS round trips after a warm-up, every pong checked
// (the ping's number plus one). With more ranks than cores every rank is
// busy and the ping-pongs take the cores from each other: what a
// provider's waiting costs shows. Rank 0 prints the mean half round trip
// over all pairs (osu_multi_lat's figure) and the median of the pairs'
// medians:
//   mpi_multi_lat: 2 pairs, 8 B, 1000 round trips: mean 12.3 us, median 4.5 us
// Usage: mpirun ... mpi_multi_lat [ITERATIONS [BYTES]]
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MULTI_LAT_TAG		41
#define MULTI_LAT_WARMUP	100

static int rank, nranks;

static void multi_lat_fail(const char *what, long at)
{
	fprintf(stderr, "mpi_multi_lat: rank %d: FAIL: %s (%ld)\n", rank, what,
		at);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

// One ping-pong of |iters| round trips; the first half of the ranks
// pings. Each round trip's half goes to |half| (NULL in the warm-up).
static void ping_pong(int peer, long iters, uint64_t *buf, int len,
		      double *half)
{
	int pinger = rank < nranks / 2;

	for (long i = 0; i < iters; i++) {
		double t0 = now_us();

		if (pinger) {
			buf[0] = (uint64_t)i;
			MPI_Send(buf, len, MPI_BYTE, peer, MULTI_LAT_TAG,
				 MPI_COMM_WORLD);
			MPI_Recv(buf, len, MPI_BYTE, peer, MULTI_LAT_TAG,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (buf[0] != (uint64_t)i + 1)
				multi_lat_fail("pong", i);
		} else {
			MPI_Recv(buf, len, MPI_BYTE, peer, MULTI_LAT_TAG,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (buf[0] != (uint64_t)i)
				multi_lat_fail("ping", i);
			buf[0]++;
			MPI_Send(buf, len, MPI_BYTE, peer, MULTI_LAT_TAG,
				 MPI_COMM_WORLD);
		}
		if (half)
			half[i] = (now_us() - t0) / 2;
	}
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1000;
	int len = argc > 2 ? atoi(argv[2]) : 8, peer;
	double *half, sum = 0, med, mean, *meds = NULL;
	uint64_t *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (nranks < 2 || nranks % 2 || iters < 1 || len < 8)
		multi_lat_fail("an even number of ranks, ITERATIONS >= 1 and "
			       "BYTES >= 8 (usage: mpi_multi_lat [ITERATIONS "
			       "[BYTES]])", nranks);
	peer = rank < nranks / 2 ? rank + nranks / 2 : rank - nranks / 2;
	half = malloc(sizeof(*half) * (size_t)iters);
	buf = calloc(1, (size_t)len);
	if (rank == 0)
		meds = malloc(sizeof(*meds) * (size_t)nranks);
	if (!half || !buf || (rank == 0 && !meds))
		multi_lat_fail("malloc", 0);
	ping_pong(peer, MULTI_LAT_WARMUP, buf, len, NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	ping_pong(peer, iters, buf, len, half);
	for (long i = 0; i < iters; i++)
		sum += half[i];
	qsort(half, (size_t)iters, sizeof(*half), cmp_double);
	med = half[iters / 2];
	mean = sum / (double)iters;
	MPI_Reduce(&mean, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Gather(&med, 1, MPI_DOUBLE, meds, 1, MPI_DOUBLE, 0,
		   MPI_COMM_WORLD);
	if (rank == 0) {
		qsort(meds, (size_t)nranks, sizeof(*meds), cmp_double);
		printf("mpi_multi_lat: %d pairs, %d B, %ld round trips: mean "
		       "%.2f us, median %.2f us\n", nranks / 2, len, iters,
		       sum / nranks, meds[nranks / 2]);
	}
	free(meds);
	free(half);
	free(buf);
	MPI_Finalize();
	return 0;
}
