// SPDX-License-Identifier: BSD-2-Clause
// A loop of MPI_Allreduce with every element checked (issue [R]: random
// kills). Each rank prints "mpi_allreduce_loop: rank R pid P" at start and
// "mpi_allreduce_loop: rank R looping" after its first 50 iterations, so
// that a script can kill a rank once all of them run, and every EVERY
// iterations how far it is. Iteration i reduces
// 1 to 16384 ints (sizes vary: eager and rendezvous messages) of value
// rank * 7 + i + j; a wrong sum aborts the job. The loop ends after
// SECONDS seconds (default 60), when rank 0 prints "mpi_allreduce_loop:
// ok, N iterations".
// Usage: mpirun ... mpi_allreduce_loop [SECONDS [EVERY]] (EVERY: how
// often each rank says how far it is, default 256 iterations)
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define LOOP_MAX_INTS	16384

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static int64_t in[LOOP_MAX_INTS], out[LOOP_MAX_INTS];
	int rank, nranks, stop = 0;
	double limit = argc > 1 ? atof(argv[1]) : 60, t0;
	long i, every = argc > 2 ? atol(argv[2]) : 256;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("mpi_allreduce_loop: rank %d pid %d\n", rank, (int)getpid());
	t0 = now_s();
	for (i = 0; !stop; i++) {
		int n = (int)(i * 977 % LOOP_MAX_INTS) + 1;
		// The sum over ranks r of r * 7 + i + j.
		int64_t base = 7LL * nranks * (nranks - 1) / 2;

		for (int j = 0; j < n; j++)
			in[j] = rank * 7LL + i + j;
		MPI_Allreduce(in, out, n, MPI_INT64_T, MPI_SUM,
			      MPI_COMM_WORLD);
		for (int j = 0; j < n; j++) {
			if (out[j] != base + (int64_t)nranks * (i + j)) {
				fprintf(stderr, "mpi_allreduce_loop: rank %d: "
					"iteration %ld, element %d: %lld\n",
					rank, i, j, (long long)out[j]);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
		if (i == 50)
			printf("mpi_allreduce_loop: rank %d looping\n", rank);
		if (every > 0 && i % every == every - 1)	// where a hang stopped
			printf("mpi_allreduce_loop: rank %d at iteration %ld, "
			       "%.1f s\n", rank, i + 1, now_s() - t0);
		// Rank 0 decides when to stop, so all stop together.
		if (i % 64 == 63) {
			stop = rank == 0 && now_s() - t0 > limit;
			MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("mpi_allreduce_loop: ok, %ld iterations\n", i);
	MPI_Finalize();
	return 0;
}
