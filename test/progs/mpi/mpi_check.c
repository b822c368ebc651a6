// SPDX-License-Identifier: BSD-2-Clause
// The MPI check of issue 7: a ping-pong of 0 B to 1 MiB between rank 0 and
// every other rank with the data verified, an MPI_Allreduce and an
// MPI_Alltoall with every element checked, then the ping-pong half round
// trip of 8 B, 8 KiB and 16 KiB between ranks 0 and 1 (median of many;
// -l names another partner of rank 0, in another namespace, say).
// Rank 0 prints "mpi_check: ok" when everything matched; any mismatch
// aborts the job.
// It also says how the ranks spread over network namespaces, and with -u
// checks that every rank and the process that started it (mpirun or orted)
// run as user UID with no capability (issue 12: unprivileged jobs).
// -m, -r and -a shrink the ping-pong's largest message (bytes, default
// 1 MiB), the allreduce's largest count (long longs, default 200000) and
// the alltoall's largest block (12-byte elements, default 5000), so that a
// job of many ranks on few cores stays short (issue 39: 64 ranks). The
// largest alltoall is timed: the slowest rank's time is printed.
// Usage: mpirun ... mpi_check [-u UID] [-m BYTES] [-r COUNT] [-a COUNT]
//	  [-l RANK] [LATENCY_ITERATIONS]
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MPI_CHECK_MAX_LEN	(1u << 20)
#define MPI_CHECK_PP_ROUNDS	3
#define MPI_CHECK_TAG_PING	11
#define MPI_CHECK_TAG_PONG	12
#define MPI_CHECK_LAT_WARMUP	200

static int rank, nranks;
static size_t pp_max = MPI_CHECK_MAX_LEN;
static int lat_peer = 1;	// rank 0's partner in the latency test
static const size_t lat_sizes[] = { 8, 8192, 16384 };

static void check_fail(const char *what, size_t len, size_t at)
{
	fprintf(stderr, "mpi_check: rank %d: FAIL: %s, %zu B, at byte %zu\n",
		rank, what, len, at);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

// A byte pattern that differs by peer, size, round and direction, so that
// a message delivered to the wrong receive or a stale buffer is caught.
static uint8_t pattern(size_t i, int peer, size_t len, int round, int dir)
{
	return (uint8_t)(i * 131 + (size_t)peer * 31 + len * 7 +
			 (size_t)round * 17 + (size_t)dir * 101 + 1);
}

static void fill(uint8_t *buf, size_t len, int peer, int round, int dir)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern(i, peer, len, round, dir);
}

static void verify(const uint8_t *buf, size_t len, int peer, int round,
		   int dir, const char *what)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pattern(i, peer, len, round, dir))
			check_fail(what, len, i);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

// A barrier that sleeps while it waits. Ranks left out of a ping-pong
// would otherwise spin in MPI_Barrier, and with more ranks than cores (4
// ranks on a 2-core machine) they take the cores the ping-pong needs:
// its round trip then becomes a scheduler time slice (ms instead of us).
static void idle_barrier(void)
{
	MPI_Request req;
	int done = 0;

	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	while (!done) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (!done)
			usleep(1000);
	}
}

// Rank 0 pings |peer| and checks the pong; |peer| checks the ping and
// answers. The receiving buffer is poisoned first and the received length
// checked, so a short or missing delivery cannot pass.
static void pingpong_one(uint8_t *sbuf, uint8_t *rbuf, size_t len, int peer,
			 int round)
{
	int other = rank == 0 ? peer : 0, got;
	MPI_Status st;

	memset(rbuf, 0xA5, len + 1);
	if (rank == 0) {
		fill(sbuf, len, peer, round, 0);
		MPI_Send(sbuf, (int)len, MPI_BYTE, other, MPI_CHECK_TAG_PING,
			 MPI_COMM_WORLD);
		MPI_Recv(rbuf, (int)len + 1, MPI_BYTE, other,
			 MPI_CHECK_TAG_PONG, MPI_COMM_WORLD, &st);
	} else {
		MPI_Recv(rbuf, (int)len + 1, MPI_BYTE, other,
			 MPI_CHECK_TAG_PING, MPI_COMM_WORLD, &st);
	}
	MPI_Get_count(&st, MPI_BYTE, &got);
	if ((size_t)got != len)
		check_fail("ping-pong length", len, (size_t)got);
	verify(rbuf, len, peer, round, rank == 0 ? 1 : 0, "ping-pong data");
	if (rbuf[len] != 0xA5)
		check_fail("ping-pong wrote past its length", len, len);
	if (rank != 0) {
		fill(sbuf, len, peer, round, 1);
		MPI_Send(sbuf, (int)len, MPI_BYTE, other, MPI_CHECK_TAG_PONG,
			 MPI_COMM_WORLD);
	}
}

// 0 B, then every power of two up to pp_max, with rank 0 against each peer.
static void check_pingpong(void)
{
	uint8_t *sbuf = malloc(pp_max + 1);
	uint8_t *rbuf = malloc(pp_max + 1);

	if (!sbuf || !rbuf)
		check_fail("malloc", pp_max, 0);
	for (int peer = 1; peer < nranks; peer++) {
		if (rank != 0 && rank != peer)
			continue;
		for (size_t len = 0; len <= pp_max;
		     len = len ? len * 2 : 1)
			for (int r = 0; r < MPI_CHECK_PP_ROUNDS; r++)
				pingpong_one(sbuf, rbuf, len, peer, r);
	}
	free(sbuf);
	free(rbuf);
	idle_barrier();
}

// Each rank adds rank * (i + 1) + i at index i: the sum is known in closed
// form, and an element reduced twice or not at all changes it.
static void check_allreduce(int count)
{
	long long *in = malloc(sizeof(*in) * (size_t)count);
	long long *out = malloc(sizeof(*out) * (size_t)count);
	long long n = nranks, ranksum = n * (n - 1) / 2;

	if (!in || !out)
		check_fail("malloc", (size_t)count, 0);
	for (int i = 0; i < count; i++)
		in[i] = (long long)rank * (i + 1) + i;
	MPI_Allreduce(in, out, count, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
	for (int i = 0; i < count; i++)
		if (out[i] != ranksum * (i + 1) + n * i)
			check_fail("allreduce sum", (size_t)count * sizeof(*out),
				   (size_t)i * sizeof(*out));
	free(in);
	free(out);
}

// Block j of rank r carries (r, j, k) in each element k, so each received
// block names its sender and that it was meant for this rank. Returns the
// slowest rank's time in the MPI_Alltoall (us; on rank 0, which prints
// it), the ranks having left a barrier together.
static double check_alltoall(int count)
{
	size_t total = (size_t)count * (size_t)nranks;
	int32_t *sbuf = malloc(sizeof(*sbuf) * total * 3);
	int32_t *rbuf = malloc(sizeof(*rbuf) * total * 3);
	double t, slowest = 0;

	if (!sbuf || !rbuf)
		check_fail("malloc", total, 0);
	for (int j = 0; j < nranks; j++)
		for (int k = 0; k < count; k++) {
			int32_t *e = &sbuf[((size_t)j * count + k) * 3];
			e[0] = rank;
			e[1] = j;
			e[2] = k;
		}
	memset(rbuf, 0xff, sizeof(*rbuf) * total * 3);
	MPI_Barrier(MPI_COMM_WORLD);
	t = now_us();
	MPI_Alltoall(sbuf, count * 3, MPI_INT32_T, rbuf, count * 3, MPI_INT32_T,
		     MPI_COMM_WORLD);
	t = now_us() - t;
	for (int j = 0; j < nranks; j++)
		for (int k = 0; k < count; k++) {
			const int32_t *e = &rbuf[((size_t)j * count + k) * 3];

			if (e[0] != j || e[1] != rank || e[2] != k)
				check_fail("alltoall block", (size_t)count * 12,
					   (size_t)k * 12);
		}
	free(sbuf);
	free(rbuf);
	MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	return slowest;
}

// Whether process |pid| runs as |uid| (real, effective, saved and file
// system) with no capability permitted, effective, inheritable or ambient.
static bool unprivileged(long pid, unsigned uid, char *why, size_t len)
{
	char path[64], line[256];
	unsigned u[4];
	unsigned long long caps;
	int uids = 0, zero_caps = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "r");
	if (!f)
		return snprintf(why, len, "cannot read %s", path), false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %u %u %u %u", &u[0], &u[1], &u[2],
			   &u[3]) == 4) {
			uids = u[0] == uid && u[1] == uid && u[2] == uid &&
			       u[3] == uid ? 1 : -1;
			if (uids < 0)
				snprintf(why, len, "process %ld: Uid %u %u %u "
					 "%u", pid, u[0], u[1], u[2], u[3]);
		} else if ((sscanf(line, "CapInh: %llx", &caps) == 1 ||
			    sscanf(line, "CapPrm: %llx", &caps) == 1 ||
			    sscanf(line, "CapEff: %llx", &caps) == 1 ||
			    sscanf(line, "CapAmb: %llx", &caps) == 1)) {
			if (caps == 0)
				zero_caps++;
			else
				snprintf(why, len, "process %ld: %.*s", pid,
					 (int)strcspn(line, "\n"), line);
		}
	}
	fclose(f);
	if (uids == 0)
		snprintf(why, len, "process %ld: no Uid line", pid);
	return uids == 1 && zero_caps == 4;
}

static void check_unprivileged(unsigned uid)
{
	char why[160] = "";

	if (!unprivileged((long)getpid(), uid, why, sizeof(why)) ||
	    !unprivileged((long)getppid(), uid, why, sizeof(why))) {
		fprintf(stderr, "mpi_check: rank %d: FAIL: not unprivileged "
			"as uid %u: %s\n", rank, uid, why);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	idle_barrier();
	if (rank == 0)
		printf("mpi_check: every rank and its launcher run as uid %u "
		       "with no capability ok\n", uid);
}

// Rank 0 says how many network namespaces hold the ranks, and how many
// ranks each (in order of first rank): "8 ranks in 2 network namespaces
// (4 4)".
static void report_netns(void)
{
	struct stat st;
	uint64_t ino = 0, *all = NULL;
	int *count = NULL, n = 0;

	if (stat("/proc/self/ns/net", &st) == 0)
		ino = (uint64_t)st.st_ino;
	if (rank == 0) {
		all = calloc((size_t)nranks, sizeof(*all));
		count = calloc((size_t)nranks, sizeof(*count));
		if (!all || !count)
			check_fail("malloc", (size_t)nranks, 0);
	}
	MPI_Gather(&ino, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0,
		   MPI_COMM_WORLD);
	if (rank != 0)
		return;
	for (int r = 0; r < nranks; r++) {
		int k = 0;

		while (k < r && all[k] != all[r])
			k++;
		if (k == r)
			n++;
		count[k]++;
	}
	printf("mpi_check: %d ranks in %d network namespaces (", nranks, n);
	for (int r = 0, first = 1; r < nranks; r++)
		if (count[r]) {
			printf("%s%d", first ? "" : " ", count[r]);
			first = 0;
		}
	printf(")\n");
	free(all);
	free(count);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

// Each round trip is timed alone and the median taken, so that a few
// scheduler hiccups on a busy machine do not move the figure. Every pong
// carries the ping's number plus one in its first 8 bytes.
static double latency_us(size_t len, int iters)
{
	double *rt = malloc(sizeof(*rt) * (size_t)iters), med = 0;
	uint64_t *buf = calloc(1, len < 8 ? 8 : len);
	bool in = rank == 0 || rank == lat_peer;

	if (!rt || !buf)
		check_fail("malloc", len, 0);
	for (int i = -MPI_CHECK_LAT_WARMUP; i < iters && in; i++) {
		double t0 = now_us();

		if (rank == 0) {
			buf[0] = (uint64_t)i;
			MPI_Send(buf, (int)len, MPI_BYTE, lat_peer,
				 MPI_CHECK_TAG_PING, MPI_COMM_WORLD);
			MPI_Recv(buf, (int)len, MPI_BYTE, lat_peer,
				 MPI_CHECK_TAG_PONG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (buf[0] != (uint64_t)i + 1)
				check_fail("latency pong", len, 0);
		} else {
			MPI_Recv(buf, (int)len, MPI_BYTE, 0, MPI_CHECK_TAG_PING,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			buf[0]++;
			MPI_Send(buf, (int)len, MPI_BYTE, 0, MPI_CHECK_TAG_PONG,
				 MPI_COMM_WORLD);
		}
		if (i >= 0)
			rt[i] = now_us() - t0;
	}
	if (rank == 0) {
		qsort(rt, (size_t)iters, sizeof(*rt), cmp_double);
		med = rt[iters / 2] / 2;
	}
	free(buf);
	free(rt);
	idle_barrier();
	return med;
}

// strtol of a whole argument within [lo, hi]; -1 when it is not one.
static long arg_in(const char *arg, long lo, long hi)
{
	char *end;
	long v = strtol(arg, &end, 10);

	return *arg && !*end && v >= lo && v <= hi ? v : -1;
}

int main(int argc, char **argv)
{
	long iters = 5000, uid = -1, ar_max = 200000, a2a_max = 5000;
	long pp = MPI_CHECK_MAX_LEN, lp = 1, ar_mid, *val;
	int opt, ok = 1;
	double lat, a2a_us;

	// A line as soon as each step passes: a job killed for hanging shows
	// which step it hung in.
	setvbuf(stdout, NULL, _IOLBF, 0);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "u:m:r:a:l:")) != -1) {
		long lo = 1, hi;

		switch (opt) {
		case 'u':
			val = &uid, lo = 0, hi = 1L << 31;
			break;
		case 'm':
			val = &pp, lo = 0, hi = MPI_CHECK_MAX_LEN;
			break;
		case 'r':
			val = &ar_max, hi = 1L << 24;
			break;
		case 'a':
			val = &a2a_max, hi = (1L << 20) / nranks;
			break;
		case 'l':
			val = &lp, hi = nranks - 1;
			break;
		default:
			ok = 0;
			continue;
		}
		*val = arg_in(optarg, lo, hi);
		ok &= *val >= 0;
	}
	if (optind < argc)
		iters = arg_in(argv[optind], 1, 1L << 24);
	if (nranks < 2 || iters < 1 || !ok || optind + 1 < argc) {
		if (rank == 0)
			fprintf(stderr, "mpi_check: needs 2 or more ranks, "
				"-m BYTES at most %u, -r COUNT at most %ld, "
				"-a COUNT at most %d, -l RANK 1 to %d, a "
				"positive iteration count (usage: mpi_check "
				"[-u UID] [-m BYTES] [-r COUNT] [-a COUNT] "
				"[-l RANK] [LATENCY_ITERATIONS])\n",
				MPI_CHECK_MAX_LEN, 1L << 24,
				(1 << 20) / nranks, nranks - 1);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	pp_max = (size_t)pp;
	lat_peer = (int)lp;
	report_netns();
	if (uid >= 0)
		check_unprivileged((unsigned)uid);
	check_pingpong();
	if (rank == 0)
		printf("mpi_check: %d ranks: ping-pong 0 B to %zu B with rank "
		       "0, data verified ok\n", nranks, pp_max);
	ar_mid = ar_max < 1000 ? ar_max : 1000;
	check_allreduce(1);
	check_allreduce((int)ar_mid);
	check_allreduce((int)ar_max);
	if (rank == 0)
		printf("mpi_check: allreduce sum of 1, %ld and %ld long longs "
		       "ok\n", ar_mid, ar_max);
	check_alltoall(1);
	a2a_us = check_alltoall((int)a2a_max);
	if (rank == 0)
		printf("mpi_check: alltoall of 12 B and %ld B blocks ok; the "
		       "second took %.3f ms (slowest rank)\n", a2a_max * 12,
		       a2a_us / 1e3);
	// 8 B, and either side of the eager limit's usual place (the
	// benchmark's rendezvous step is 16 KiB over 8 KiB).
	for (size_t k = 0; k < sizeof(lat_sizes) / sizeof(lat_sizes[0]); k++) {
		lat = latency_us(lat_sizes[k], (int)iters);
		if (rank == 0)
			printf("mpi_check: %zu B ping-pong half round trip "
			       "%.2f us (median of %ld, ranks 0 and %d)\n",
			       lat_sizes[k], lat, iters, lat_peer);
	}
	if (rank == 0)
		printf("mpi_check: ok\n");
	MPI_Finalize();
	return 0;
}
