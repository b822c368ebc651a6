/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_flood_check: a target and a legitimate client for the flood and replay
 * tests (test/e2e/e2e_flood.sh, test/e2e/e2e_replay.sh), in plain libfabric.
 *
 *   fi_flood_check -s -a ADDR -P SERVICE -p PORT [-T S] [-L LEN] [-C LEN]
 *   fi_flood_check -c ADDR -P SERVICE -p PORT [-T S] [-w N] [-i MS]
 *                  [-g FILE] [-d MS | -n N] [-r US]
 *
 * The server registers a region of -L bytes (1 MiB) filled with a known
 * pattern, tells the client (TCP side channel on PORT) its address, key
 * and the client's range (the first -C bytes, 64 KiB), then serves until
 * the client reports its writes, or -T seconds pass. It then checks the
 * whole region: the client's range holds what the client wrote last in
 * each block, everything else still the pattern.
 *
 * The client writes 4 KiB blocks into its range, one at a time, each
 * waited for: -w warm-up writes, then -i ms of idleness (running the
 * provider, posting nothing), then waits for FILE (-g) to exist, then
 * writes for -d ms (or -n writes), one every -r us. It prints each
 * phase's write latencies (count, errors, p50, p99, max) and stops at the
 * first error. Exit 0 only when every write completed and the server
 * found its region as it should be.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "examples/ex_common.h"

#define FFC_NAME_MAX	128
#define FFC_BLOCK	4096u
#define FFC_MAGIC	0xF100DC4Eu
#define FFC_MAX_LAT	(1u << 20)
#define FFC_WAIT_MS	10000	/* one write's longest wait */

struct ffc_opts {
	bool server;
	const char *node, *service, *go_file;
	int port;
	unsigned int limit_s, warm, idle_ms, dur_ms, nwrites, gap_us;
	size_t region_len, client_len;
	uint64_t seed;
};

/* Server -> client. */
struct ffc_info {
	uint32_t magic, name_len;
	uint8_t name[FFC_NAME_MAX];
	uint64_t key, region_len, client_len;
};

/* Client -> server, at its end. */
struct ffc_report {
	uint32_t magic;
	uint32_t done;		/* writes that completed, numbered 0.. */
	int32_t failed;		/* the write that failed (number done), -1 */
	uint32_t pad;
	uint64_t seed;
};

struct ffc {
	struct ex_fab fab;
	struct fid_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	int fd;
	fi_addr_t peer;
	struct fi_context2 ctx;
};

#define FFC_CHECK(call)							\
	do {								\
		int ffc_r_ = (int)(call);				\
		if (ffc_r_) {						\
			fprintf(stderr, "fi_flood_check: %s: %s\n",	\
				#call, fi_strerror(-ffc_r_));		\
			return -1;					\
		}							\
	} while (0)

static uint64_t ffc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The server's pattern at region offset |off|. */
static uint8_t ffc_pattern(size_t off)
{
	return (uint8_t)(off * 131 + (off >> 8) * 7 + 0x5A);
}

/* The data of the client's write |i|: xorshift64* of (seed, i). */
static void ffc_data(uint8_t *buf, size_t len, uint64_t seed, uint32_t i)
{
	uint64_t x = (seed ^ ((uint64_t)i << 32 | i)) * 0x9E3779B97F4A7C15ull | 1;

	for (size_t k = 0; k < len; k++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		buf[k] = (uint8_t)(x * 0x2545F4914F6CDD1Dull >> 56);
	}
}

/* ---- set-up ------------------------------------------------------------ */
static int ffc_setup(struct ffc *f, const struct ffc_opts *o)
{
	struct ex_fab_opts fo = { .prog = "fi_flood_check", .node = o->node,
				  .service = o->service,
				  .flags = o->server ? FI_SOURCE : 0,
				  .cq_size = 256 };
	struct fi_info *hints = ex_hints_rdm(FI_RMA, ~0ULL);
	int ret;

	if (!hints)
		return -1;
	hints->domain_attr->mr_mode &= ~(uint64_t)FI_MR_VIRT_ADDR;
	ret = ex_fab_open(&f->fab, hints, &fo);
	fi_freeinfo(hints);
	f->buf_len = o->server ? o->region_len : FFC_BLOCK;
	if (ret || ex_mr_reg(&f->fab, f->buf_len, 0, (void **)&f->buf,
			     &f->mr))
		return -1;
	for (size_t i = 0; o->server && i < f->buf_len; i++)
		f->buf[i] = ffc_pattern(i);
	return 0;
}

static void ffc_teardown(struct ffc *f)
{
	if (f->mr)
		fi_close(&f->mr->fid);
	ex_fab_close(&f->fab);
	free(f->buf);
}

/* ---- side channel -------------------------------------------------------- */

/* Runs the provider until |fd| is readable or |ms| pass; 1, 0 or -1. */
static int ffc_progress_until(struct ffc *f, int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t end = ffc_now_ns() + (uint64_t)ms * 1000000ull;
	struct fi_cq_data_entry e;

	for (;;) {
		if (fd >= 0 && poll(&pfd, 1, 1) == 1)
			return 1;
		if (fd < 0)
			poll(NULL, 0, 1);
		if (fi_cq_read(f->fab.cq, &e, 1) == 1) {
			fprintf(stderr, "fi_flood_check: a completion out of "
				"turn\n");
			return -1;
		}
		if (ms >= 0 && ffc_now_ns() >= end)
			return 0;
	}
}

static int ffc_send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int ffc_recv_all(struct ffc *f, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n;

		if (ffc_progress_until(f, f->fd, -1) < 0)
			return -1;
		n = recv(f->fd, p, len, 0);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int ffc_listen(const struct ffc_opts *o)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)o->port) };
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0), c;

	if (s < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 1)) {
		perror("fi_flood_check: listen");
		close(s);
		return -1;
	}
	printf("fi_flood_check: server: pid %d ready\n", (int)getpid());
	fflush(stdout);
	c = accept(s, NULL, NULL);
	close(s);
	return c;
}

static int ffc_connect(const struct ffc_opts *o)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)o->port) };
	int s;

	if (inet_pton(AF_INET, o->node, &sa.sin_addr) != 1)
		return -1;
	for (int i = 0; i < 100; i++) {	/* 10 s for the server */
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0)
			return -1;
		if (!connect(s, (struct sockaddr *)&sa, sizeof(sa)))
			return s;
		close(s);
		usleep(100000);
	}
	perror("fi_flood_check: connect");
	return -1;
}

/* ---- server -------------------------------------------------------------- */

/* Expected byte |off| of the client's range after |r|; -1: either. */
static int ffc_expect(const struct ffc_report *r, size_t client_len,
		      size_t off, uint8_t *blockbuf, uint32_t *cached)
{
	uint32_t nblocks = (uint32_t)(client_len / FFC_BLOCK);
	uint32_t b = (uint32_t)(off / FFC_BLOCK), last;
	uint32_t total = r->done + (r->failed >= 0 ? 1 : 0);
	int64_t i;

	/* The last write to block b: the largest i < total, i % n == b. */
	if (total == 0 || b >= total)
		return ffc_pattern(off);
	last = b + (total - 1 - b) / nblocks * nblocks;
	if (r->failed >= 0 && last == (uint32_t)r->failed)
		return -1;	/* a failed write: old or new, not checked */
	i = last;
	if (*cached != (uint32_t)i) {
		ffc_data(blockbuf, FFC_BLOCK, r->seed, (uint32_t)i);
		*cached = (uint32_t)i;
	}
	return blockbuf[off % FFC_BLOCK];
}

static int ffc_server(struct ffc *f, const struct ffc_opts *o)
{
	struct ffc_info info = { .magic = FFC_MAGIC };
	struct ffc_report r;
	size_t len = FFC_NAME_MAX, bad_client = 0, bad_rest = 0;
	size_t first_bad = (size_t)-1;
	uint8_t blockbuf[FFC_BLOCK];
	uint32_t cached = UINT32_MAX;
	const uint8_t *n;
	uint8_t verdict;

	FFC_CHECK(fi_getname(&f->fab.ep->fid, info.name, &len));
	info.name_len = (uint32_t)len;
	info.key = fi_mr_key(f->mr);
	info.region_len = o->region_len;
	info.client_len = o->client_len;
	n = info.name;
	/* The address blob (uet/uet_addr.c): PIDonFEP at 20, RI at 22. */
	if (len >= 24)
		printf("fi_flood_check: server: pid_on_fep %u ri %u key 0x%llx "
		       "region %zu client range %zu\n",
		       (n[20] << 8 | n[21]) & 0xFFF,
		       (n[22] << 8 | n[23]) & 0xFFF,
		       (unsigned long long)info.key, o->region_len,
		       o->client_len);
	fflush(stdout);
	f->fd = ffc_listen(o);
	if (f->fd < 0)
		return -1;
	if (ffc_send_all(f->fd, &info, sizeof(info)) ||
	    ffc_recv_all(f, &r, sizeof(r)) || r.magic != FFC_MAGIC) {
		fprintf(stderr, "fi_flood_check: server: no report from the "
			"client\n");
		return -1;
	}
	/* Let the last ACKs go before looking. */
	ffc_progress_until(f, -1, 100);
	for (size_t off = 0; off < o->region_len; off++) {
		int want = off < o->client_len ?
			   ffc_expect(&r, o->client_len, off, blockbuf,
				      &cached) :
			   ffc_pattern(off);

		if (want < 0 || f->buf[off] == (uint8_t)want)
			continue;
		if (first_bad == (size_t)-1)
			first_bad = off;
		if (off < o->client_len)
			bad_client++;
		else
			bad_rest++;
	}
	if (!bad_client)
		printf("fi_flood_check: server: client range (%zu B, %u "
		       "writes%s) holds the client's data ok\n", o->client_len,
		       r.done, r.failed >= 0 ? ", one failed" : "");
	else
		printf("fi_flood_check: server: FAIL: %zu bytes of the client "
		       "range differ from its writes (first at %zu)\n",
		       bad_client, first_bad);
	if (!bad_rest)
		printf("fi_flood_check: server: rest of the region (%zu B) "
		       "holds the pattern ok\n",
		       o->region_len - o->client_len);
	else
		printf("fi_flood_check: server: FAIL: %zu bytes outside the "
		       "client range were written (first at %zu)\n",
		       bad_rest, first_bad);
	verdict = !bad_client && !bad_rest;
	ffc_send_all(f->fd, &verdict, 1);
	close(f->fd);
	return verdict ? 0 : 1;
}

/* ---- client -------------------------------------------------------------- */
struct ffc_lat {
	uint64_t *us;
	uint32_t n, errors;
	const char *first_err;
	char err_text[160];
};

static int ffc_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void ffc_lat_print(const char *phase, struct ffc_lat *l)
{
	uint64_t p50 = 0, p99 = 0, max = 0;

	if (l->n) {
		qsort(l->us, l->n, sizeof(*l->us), ffc_cmp_u64);
		p50 = l->us[l->n / 2];
		p99 = l->us[(uint64_t)l->n * 99 / 100];
		max = l->us[l->n - 1];
	}
	printf("fi_flood_check: client: %s: writes %u errors %u latency_us "
	       "p50 %llu p99 %llu max %llu\n", phase, l->n, l->errors,
	       (unsigned long long)p50, (unsigned long long)p99,
	       (unsigned long long)max);
	if (l->errors)
		printf("fi_flood_check: client: %s: first error: %s\n", phase,
		       l->err_text);
	fflush(stdout);
}

/*
 * Write number |i| (block i % nblocks), posted and waited for. 0, or -1
 * with the reason in |l|.
 */
static int ffc_write_one(struct ffc *f, const struct ffc_info *info,
			 uint64_t seed, uint32_t i, struct ffc_lat *l)
{
	uint32_t nblocks = (uint32_t)(info->client_len / FFC_BLOCK);
	uint64_t off = (uint64_t)(i % nblocks) * FFC_BLOCK;
	uint64_t t0 = ffc_now_ns(), end = t0 + FFC_WAIT_MS * 1000000ull;
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err = { 0 };
	ssize_t r;

	ffc_data(f->buf, FFC_BLOCK, seed, i);
	for (;;) {
		r = fi_write(f->fab.ep, f->buf, FFC_BLOCK, fi_mr_desc(f->mr),
			     f->peer, off, info->key, &f->ctx);
		if (r != -FI_EAGAIN)
			break;
		fi_cq_read(f->fab.cq, &e, 0);
		if (ffc_now_ns() > end)
			break;
	}
	if (r) {
		snprintf(l->err_text, sizeof(l->err_text), "write %u: "
			 "fi_write: %s after %llu ms", i, fi_strerror((int)-r),
			 (unsigned long long)((ffc_now_ns() - t0) / 1000000));
		l->errors++;
		return -1;
	}
	for (;;) {
		r = fi_cq_read(f->fab.cq, &e, 1);
		if (r == 1)
			break;
		if (r == -FI_EAVAIL) {
			fi_cq_readerr(f->fab.cq, &err, 0);
			snprintf(l->err_text, sizeof(l->err_text),
				 "write %u: error completion %s (prov_errno "
				 "%d) after %llu ms", i, fi_strerror(err.err),
				 err.prov_errno,
				 (unsigned long long)((ffc_now_ns() - t0) /
						      1000000));
			l->errors++;
			return -1;
		}
		if (r != -FI_EAGAIN) {
			snprintf(l->err_text, sizeof(l->err_text), "write %u: "
				 "fi_cq_read: %s", i, fi_strerror((int)-r));
			l->errors++;
			return -1;
		}
		if (ffc_now_ns() > end) {
			snprintf(l->err_text, sizeof(l->err_text), "write %u: "
				 "no completion in %d ms", i, FFC_WAIT_MS);
			l->errors++;
			return -1;
		}
	}
	if (l->n < FFC_MAX_LAT)
		l->us[l->n++] = (ffc_now_ns() - t0) / 1000;
	return 0;
}

/* Writes |count| (or for |dur_ms|) from number *next on; 0 or -1. */
static int ffc_phase(struct ffc *f, const struct ffc_opts *o,
		     const struct ffc_info *info, const char *phase,
		     uint32_t count, unsigned int dur_ms, uint32_t *next)
{
	struct ffc_lat l = { .us = calloc(FFC_MAX_LAT, sizeof(uint64_t)) };
	uint64_t end = ffc_now_ns() + (uint64_t)dur_ms * 1000000ull;
	int ret = 0;

	if (!l.us)
		return -1;
	printf("fi_flood_check: client: %s: writing\n", phase);
	fflush(stdout);
	for (uint32_t k = 0; count ? k < count : ffc_now_ns() < end; k++) {
		if (ffc_write_one(f, info, o->seed, *next, &l) < 0) {
			ret = -1;
			break;
		}
		(*next)++;
		if (o->gap_us)
			usleep(o->gap_us);
	}
	ffc_lat_print(phase, &l);
	free(l.us);
	return ret;
}

static int ffc_client(struct ffc *f, const struct ffc_opts *o)
{
	struct ffc_info info;
	struct ffc_report r = { .magic = FFC_MAGIC, .failed = -1,
				.seed = o->seed };
	uint32_t next = 0;
	uint8_t verdict = 0;
	int failed = 0;

	f->fd = ffc_connect(o);
	if (f->fd < 0)
		return -1;
	if (ffc_recv_all(f, &info, sizeof(info)) || info.magic != FFC_MAGIC ||
	    info.name_len > FFC_NAME_MAX || info.client_len < FFC_BLOCK ||
	    fi_av_insert(f->fab.av, info.name, 1, &f->peer, 0, NULL) != 1) {
		fprintf(stderr, "fi_flood_check: client: bad server info\n");
		return -1;
	}
	if (o->warm && ffc_phase(f, o, &info, "warm-up", o->warm, 0, &next))
		failed = 1;
	if (!failed && o->idle_ms) {
		printf("fi_flood_check: client: idle for %u ms\n", o->idle_ms);
		fflush(stdout);
		if (ffc_progress_until(f, -1, (int)o->idle_ms) < 0)
			failed = 1;
	}
	if (!failed && o->go_file) {
		struct stat st;
		uint64_t end = ffc_now_ns() + o->limit_s * 1000000000ull;

		printf("fi_flood_check: client: waiting for %s\n", o->go_file);
		fflush(stdout);
		while (stat(o->go_file, &st) && ffc_now_ns() < end)
			if (ffc_progress_until(f, -1, 5) < 0)
				break;
	}
	if (!failed && ffc_phase(f, o, &info, "main", o->nwrites, o->dur_ms,
				 &next))
		failed = 1;
	r.done = next;
	if (failed)
		r.failed = (int32_t)next;
	if (ffc_send_all(f->fd, &r, sizeof(r)) ||
	    ffc_recv_all(f, &verdict, 1)) {
		fprintf(stderr, "fi_flood_check: client: no verdict from the "
			"server\n");
		return -1;
	}
	printf("fi_flood_check: client: %u writes completed, %s; server "
	       "says region %s\n", next, failed ? "one FAILED" : "no error",
	       verdict ? "as it should be" : "WRONG");
	if (!failed && verdict)
		printf("fi_flood_check: client: all ok\n");
	return failed || !verdict ? 1 : 0;
}

static void ffc_usage(void)
{
	fprintf(stderr,
		"usage: fi_flood_check -s -a ADDR -P SERVICE -p PORT [-T S] "
		"[-L LEN] [-C LEN]\n"
		"       fi_flood_check -c ADDR -P SERVICE -p PORT [-T S] "
		"[-w N] [-i MS] [-g FILE] [-d MS | -n N] [-r US] [-k SEED]\n");
	exit(2);
}

static void ffc_alarm(int sig)
{
	static const char msg[] = "fi_flood_check: FAIL: time limit\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

int main(int argc, char **argv)
{
	struct ffc_opts o = { .limit_s = 60, .region_len = 1 << 20,
			      .client_len = 64 << 10, .gap_us = 1000,
			      .seed = 0x5eed };
	struct ffc f = { .fd = -1 };
	int c, ret;

	while ((c = getopt(argc, argv, "sc:a:P:p:T:L:C:w:i:g:d:n:r:k:")) != -1) {
		switch (c) {
		case 's': o.server = true; break;
		case 'c': o.node = optarg; break;
		case 'a': o.node = optarg; break;
		case 'P': o.service = optarg; break;
		case 'p': o.port = atoi(optarg); break;
		case 'T': o.limit_s = (unsigned int)atoi(optarg); break;
		case 'L': o.region_len = strtoul(optarg, NULL, 0); break;
		case 'C': o.client_len = strtoul(optarg, NULL, 0); break;
		case 'w': o.warm = (unsigned int)atoi(optarg); break;
		case 'i': o.idle_ms = (unsigned int)atoi(optarg); break;
		case 'g': o.go_file = optarg; break;
		case 'd': o.dur_ms = (unsigned int)atoi(optarg); break;
		case 'n': o.nwrites = (unsigned int)atoi(optarg); break;
		case 'r': o.gap_us = (unsigned int)atoi(optarg); break;
		case 'k': o.seed = strtoull(optarg, NULL, 0); break;
		default: ffc_usage();
		}
	}
	if (!o.node || !o.port || o.client_len % FFC_BLOCK ||
	    o.client_len > o.region_len || (!o.server && !o.dur_ms &&
					     !o.nwrites))
		ffc_usage();
	signal(SIGALRM, ffc_alarm);
	alarm(o.limit_s);
	ret = ffc_setup(&f, &o);
	if (ret == 0)
		ret = o.server ? ffc_server(&f, &o) : ffc_client(&f, &o);
	fflush(stdout);
	ffc_teardown(&f);
	return ret ? 1 : 0;
}
