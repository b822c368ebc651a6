// SPDX-License-Identifier: BSD-2-Clause
// The MPI message rate of issue 12's benchmark: the ranks form pairs, rank
// i of the first half with rank i + n/2 of the second (with --host
// A:P,B:P, each rank of namespace A with one of namespace B), and every
// pair streams small messages one way at once: windows of W MPI_Isend
// against W pre-posted MPI_Irecv, a zero-byte reply closing each window
// (as OSU's osu_mbw_mr does). Each message carries its sequence number,
// checked by the receiver. Rank 0 prints the aggregate rate, all pairs'
// messages over the slowest rank's time:
//   mpi_rate: 4 pairs, 8 B, window 64, 20000 messages each: 123456 msgs/s
// Usage: mpirun ... mpi_rate [-n MESSAGES_PER_PAIR] [-w WINDOW] [-s BYTES]
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MPI_RATE_TAG		21
#define MPI_RATE_TAG_ACK	22
#define MPI_RATE_WARMUP		10	/* windows before the timed run */

static int rank, nranks;

static void rate_fail(const char *what, long at)
{
	fprintf(stderr, "mpi_rate: rank %d: FAIL: %s (%ld)\n", rank, what, at);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

// Streams |count| messages of |size| bytes (at least 8) in windows of
// |window|, sender to peer or receiver from it, numbered from |seq|.
static void stream(int peer, int sender, long count, int window, int size,
		   uint8_t *bufs, MPI_Request *req, long seq)
{
	for (long done = 0; done < count; done += window) {
		int n = count - done < window ? (int)(count - done) : window;

		for (int j = 0; j < n; j++) {
			uint8_t *b = bufs + (size_t)j * (size_t)size;
			uint64_t s = (uint64_t)(seq + done + j);

			if (sender) {
				memcpy(b, &s, sizeof(s));
				MPI_Isend(b, size, MPI_BYTE, peer, MPI_RATE_TAG,
					  MPI_COMM_WORLD, &req[j]);
			} else {
				memset(b, 0xA5, sizeof(s));
				MPI_Irecv(b, size, MPI_BYTE, peer, MPI_RATE_TAG,
					  MPI_COMM_WORLD, &req[j]);
			}
		}
		MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
		if (sender) {
			MPI_Recv(NULL, 0, MPI_BYTE, peer, MPI_RATE_TAG_ACK,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			continue;
		}
		for (int j = 0; j < n; j++) {
			uint64_t s;

			memcpy(&s, bufs + (size_t)j * (size_t)size, sizeof(s));
			if (s != (uint64_t)(seq + done + j))
				rate_fail("message out of sequence",
					  seq + done + j);
		}
		MPI_Send(NULL, 0, MPI_BYTE, peer, MPI_RATE_TAG_ACK,
			 MPI_COMM_WORLD);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long count = 20000;
	int window = 64, size = 8, opt, pairs, peer, sender;
	double t, tmax;
	uint8_t *bufs;
	MPI_Request *req;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "n:w:s:")) != -1) {
		if (opt == 'n')
			count = strtol(optarg, NULL, 10);
		else if (opt == 'w')
			window = atoi(optarg);
		else if (opt == 's')
			size = atoi(optarg);
		else
			count = -1;
	}
	if (nranks < 2 || nranks % 2 || count < 1 || window < 1 || size < 8 ||
	    optind != argc) {
		if (rank == 0)
			fprintf(stderr, "mpi_rate: needs an even number of "
				"ranks (usage: mpi_rate [-n MESSAGES_PER_PAIR] "
				"[-w WINDOW] [-s BYTES, at least 8])\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	pairs = nranks / 2;
	sender = rank < pairs;
	peer = sender ? rank + pairs : rank - pairs;
	bufs = malloc((size_t)window * (size_t)size);
	req = malloc(sizeof(*req) * (size_t)window);
	if (!bufs || !req)
		rate_fail("malloc", (long)window);
	stream(peer, sender, (long)MPI_RATE_WARMUP * window, window, size, bufs,
	       req, 0);
	MPI_Barrier(MPI_COMM_WORLD);
	t = now_s();
	stream(peer, sender, count, window, size, bufs, req,
	       (long)MPI_RATE_WARMUP * window);
	t = now_s() - t;
	MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi_rate: %d pairs, %d B, window %d, %ld messages "
		       "each: %.0f msgs/s in %.3f s\n", pairs, size, window,
		       count, (double)pairs * (double)count / tmax, tmax);
	free(bufs);
	free(req);
	MPI_Finalize();
	return 0;
}
