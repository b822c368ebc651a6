/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_return_check: returning clients (issue 13, item 6), in plain
 * libfabric. One server stays up and serves -n clients one after the
 * other; each client is a new process that writes, reads back and sends,
 * and the server checks that every byte it holds is that client's (each
 * uses its own -k seed). A client that comes back on the same address and
 * endpoint index must start clean: nothing the one before it left may
 * answer for it.
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
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include "examples/ex_common.h"

#define FRT_NAME_MAX	128
#define FRT_MIB		(1024 * 1024ull)
#define FRT_NWRITES	6
#define FRT_NSENDS	6
#define FRT_REGION_LEN	(FRT_NWRITES * FRT_MIB)	/* write i at i MiB */
#define FRT_SEND_MAX	FRT_MIB
#define FRT_BUF_LEN	(FRT_REGION_LEN + FRT_NSENDS * FRT_SEND_MAX)

/* Eager and rendezvous (sends over 64 KiB), one packet and many (Payload
 * MTU 8192 here). */
static const size_t frt_write_len[FRT_NWRITES] = {
	1, 64, 1000, 8192, 20000, FRT_MIB,
};
static const size_t frt_send_len[FRT_NSENDS] = {
	1, 1000, 8192, 9000, 100000, FRT_MIB,
};

struct frt_opts {
	bool server;
	const char *node;	/* server: its address; client: the server's */
	const char *service;	/* libfabric service (uet: PIDonFEP) */
	int port;		/* TCP side channel */
	unsigned int clients;	/* server: how many, one after the other */
	uint64_t seed;		/* client: its data */
	unsigned int limit_s;
};

/* The client's hello, and the server's answer. */
struct frt_hello {
	uint8_t name[FRT_NAME_MAX];
	uint32_t name_len, pad;
	uint64_t seed;
};

struct frt_info {
	uint8_t name[FRT_NAME_MAX];
	uint32_t name_len, pad;
	uint64_t addr, key;	/* the region */
};

struct frt {
	struct ex_fab fab;
	struct fid_mr *mr;
	uint8_t *buf;		/* region, then one slot per send */
	int fd;			/* side channel */
	fi_addr_t peer;
	struct fi_context2 ctx[FRT_NWRITES + FRT_NSENDS];
	/* Completions read while a post was retried, and an error then. */
	unsigned int early;
	bool early_err;
};

#define FRT_CHECK(call)							\
	do {								\
		int frt_r_ = (int)(call);				\
		if (frt_r_) {						\
			fprintf(stderr, "fi_return_check: %s: %s\n",	\
				#call, fi_strerror(-frt_r_));		\
			return -1;					\
		}							\
	} while (0)

/* xorshift64*: no two seeds, and no two offsets, alike. */
static void frt_pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull | 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		buf[i] = (uint8_t)(x * 0x2545F4914F6CDD1Dull >> 56);
	}
}

static int frt_pattern_is(const uint8_t *buf, size_t len, uint64_t seed)
{
	uint8_t *want = malloc(len);
	int same;

	if (!want)
		return 0;
	frt_pattern(want, len, seed);
	same = !memcmp(buf, want, len);
	free(want);
	return same;
}

/* The data of write |i| and send |j| of the client of |seed|. */
static uint64_t frt_wseed(uint64_t seed, unsigned int i)
{
	return seed << 8 | i;
}

static uint64_t frt_sseed(uint64_t seed, unsigned int j)
{
	return seed << 8 | 0x80 | j;
}

/* ---- set-up ------------------------------------------------------------ */
static int frt_mr_setup(struct frt *f)
{
	uint64_t access = FI_READ | FI_WRITE | FI_REMOTE_READ |
			  FI_REMOTE_WRITE | FI_SEND | FI_RECV;

	if (posix_memalign((void **)&f->buf, 4096, FRT_BUF_LEN))
		return -1;
	memset(f->buf, 0, FRT_BUF_LEN);
	FRT_CHECK(fi_mr_reg(f->fab.domain, f->buf, FRT_BUF_LEN, access, 0,
			    0x5e7, 0, &f->mr, NULL));
	if (f->fab.info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
		FRT_CHECK(fi_mr_bind(f->mr, &f->fab.ep->fid, 0));
		FRT_CHECK(fi_mr_enable(f->mr));
	}
	return 0;
}

static int frt_setup(struct frt *f, const struct frt_opts *o)
{
	struct ex_fab_opts fo = { .prog = "fi_return_check", .node = o->node,
				  .service = o->service,
				  .flags = o->server ? FI_SOURCE : 0,
				  .cq_size = 256 };
	struct fi_info *hints = ex_hints_rdm(FI_MSG | FI_RMA, ~0ULL);
	int ret;

	if (!hints)
		return -1;
	ret = ex_fab_open(&f->fab, hints, &fo);
	fi_freeinfo(hints);
	return ret ? -1 : frt_mr_setup(f);
}

static void frt_teardown(struct frt *f)
{
	if (f->mr)
		fi_close(&f->mr->fid);
	ex_fab_close(&f->fab);
	free(f->buf);
}

/* ---- completions and the side channel ------------------------------------ */

/* Reads one completion: 1, 0 when none, or -1 (an error, printed). */
static int frt_cq_read(struct frt *f)
{
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err = { 0 };
	ssize_t r = fi_cq_read(f->fab.cq, &e, 1);

	if (r == 1 || r == -FI_EAGAIN)
		return r == 1;
	if (r == -FI_EAVAIL && fi_cq_readerr(f->fab.cq, &err, 0) == 1)
		fprintf(stderr, "fi_return_check: error completion: %s "
			"(prov_errno %d)\n", fi_strerror(err.err),
			err.prov_errno);
	else
		fprintf(stderr, "fi_return_check: fi_cq_read: %s\n",
			fi_strerror((int)-r));
	return -1;
}

/* Waits for |n| completions, every one a success; 0 or -1. */
static int frt_wait(struct frt *f, unsigned int n)
{
	int r;

	if (f->early_err)
		return -1;
	while (n && f->early) {
		n--;
		f->early--;
	}
	while (n) {
		r = frt_cq_read(f);
		if (r < 0)
			return -1;
		n -= (unsigned int)r;
	}
	return 0;
}

/* A post the provider refused for now: run it, keeping what completes. */
static void frt_retry_progress(struct frt *f)
{
	int r = frt_cq_read(f);

	if (r < 0)
		f->early_err = true;
	else
		f->early += (unsigned int)r;
}

/*
 * Runs the provider until |fd| is readable: with manual progress, a
 * server that waits for its next client keeps its timers running too
 * (at least every millisecond). Nothing may complete meanwhile.
 */
static int frt_progress_until_readable(struct frt *f, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		if (poll(&pfd, 1, 1) == 1)
			return 0;
		if (frt_cq_read(f)) {
			fprintf(stderr, "fi_return_check: a completion out "
				"of turn\n");
			return -1;
		}
	}
}

static int frt_send(struct frt *f, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(f->fd, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int frt_recv(struct frt *f, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n;

		if (frt_progress_until_readable(f, f->fd))
			return -1;
		n = recv(f->fd, p, len, 0);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int frt_name(struct frt *f, uint8_t *name, uint32_t *name_len)
{
	size_t len = FRT_NAME_MAX;

	FRT_CHECK(fi_getname(&f->fab.ep->fid, name, &len));
	*name_len = (uint32_t)len;
	return 0;
}

static int frt_av_insert(struct frt *f, const uint8_t *name, uint32_t len)
{
	if (len > FRT_NAME_MAX ||
	    fi_av_insert(f->fab.av, name, 1, &f->peer, 0, NULL) != 1) {
		fprintf(stderr, "fi_return_check: fi_av_insert failed\n");
		return -1;
	}
	return 0;
}

/* Any data call, retried while the provider says -FI_EAGAIN. */
#define FRT_POST(f, call)						\
	do {								\
		ssize_t frt_p_;						\
		while ((frt_p_ = (call)) == -FI_EAGAIN)			\
			frt_retry_progress(f);				\
		FRT_CHECK(frt_p_);					\
	} while (0)

/* ---- server ----------------------------------------------------------------- */

/* Receives posted before the client may send: one slot per send. */
static int frt_post_recvs(struct frt *f)
{
	void *desc = fi_mr_desc(f->mr);

	for (unsigned int j = 0; j < FRT_NSENDS; j++) {
		uint8_t *slot = f->buf + FRT_REGION_LEN + j * FRT_SEND_MAX;

		memset(slot, 0, FRT_SEND_MAX);
		FRT_POST(f, fi_recv(f->fab.ep, slot, FRT_SEND_MAX, desc,
				    FI_ADDR_UNSPEC, &f->ctx[j]));
	}
	return 0;
}

/* Whether the region and the receive slots hold the client's bytes. */
static int frt_server_verify(struct frt *f, uint64_t seed)
{
	int bad = 0;

	for (unsigned int i = 0; i < FRT_NWRITES; i++)
		if (!frt_pattern_is(f->buf + i * FRT_MIB, frt_write_len[i],
				    frt_wseed(seed, i))) {
			printf("fi_return_check: server: write %u (%zu B) "
			       "is not the client's\n", i, frt_write_len[i]);
			bad++;
		}
	for (unsigned int j = 0; j < FRT_NSENDS; j++)
		if (!frt_pattern_is(f->buf + FRT_REGION_LEN + j * FRT_SEND_MAX,
				    frt_send_len[j], frt_sseed(seed, j))) {
			printf("fi_return_check: server: send %u (%zu B) is "
			       "not the client's\n", j, frt_send_len[j]);
			bad++;
		}
	return bad ? -1 : 0;
}

/* One client, start to end; the verdict goes back to it. */
static int frt_serve_one(struct frt *f, int lfd, unsigned int k)
{
	struct frt_info info = { .key = fi_mr_key(f->mr) };
	struct frt_hello hello;
	uint32_t verdict, ready = 1, done;
	int ret;

	if (frt_progress_until_readable(f, lfd))
		return -1;
	f->fd = accept(lfd, NULL, NULL);
	if (f->fd < 0 || frt_name(f, info.name, &info.name_len))
		return -1;
	if (f->fab.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR)
		info.addr = (uint64_t)(uintptr_t)f->buf;
	if (frt_recv(f, &hello, sizeof(hello)) ||
	    frt_av_insert(f, hello.name, hello.name_len) ||
	    frt_send(f, &info, sizeof(info)) || frt_post_recvs(f) ||
	    frt_send(f, &ready, sizeof(ready)))
		return -1;
	/* The sends complete here; the writes and reads tell nothing. */
	if (frt_wait(f, FRT_NSENDS) || frt_recv(f, &done, sizeof(done)))
		return -1;
	ret = frt_server_verify(f, hello.seed);
	verdict = ret == 0;
	if (frt_send(f, &verdict, sizeof(verdict)))
		return -1;
	close(f->fd);
	f->fd = -1;
	FRT_CHECK(fi_av_remove(f->fab.av, &f->peer, 1, 0));
	if (!ret)
		printf("fi_return_check: server: client %u (seed %llu): %u "
		       "writes and %u sends ok\n", k,
		       (unsigned long long)hello.seed, FRT_NWRITES,
		       FRT_NSENDS);
	return ret;
}

static int frt_server(const struct frt_opts *o)
{
	struct frt f = { .fd = -1 };
	int lfd, ret = -1;

	if (frt_setup(&f, o))
		goto out;
	lfd = ex_tcp_listen(o->port, 4);
	if (lfd < 0) {
		perror("fi_return_check: side channel");
		goto out;
	}
	printf("fi_return_check: server: pid %d ready\n", getpid());
	fflush(stdout);
	for (unsigned int k = 1; k <= o->clients; k++)
		if (frt_serve_one(&f, lfd, k))
			goto out_close;
	printf("fi_return_check: server: all %u clients ok\n", o->clients);
	ret = 0;
out_close:
	close(lfd);
out:
	if (f.fd >= 0)
		close(f.fd);
	frt_teardown(&f);
	return ret ? 1 : 0;
}

/* ---- client ----------------------------------------------------------------- */

/* Every write, then each read back over what it wrote. */
static int frt_client_rma(struct frt *f, const struct frt_info *srv,
			  uint64_t seed)
{
	void *desc = fi_mr_desc(f->mr);
	uint8_t *back = f->buf + FRT_REGION_LEN;

	for (unsigned int i = 0; i < FRT_NWRITES; i++) {
		frt_pattern(f->buf + i * FRT_MIB, frt_write_len[i],
			    frt_wseed(seed, i));
		FRT_POST(f, fi_write(f->fab.ep, f->buf + i * FRT_MIB,
				     frt_write_len[i], desc, f->peer,
				     srv->addr + i * FRT_MIB, srv->key,
				     &f->ctx[i]));
	}
	if (frt_wait(f, FRT_NWRITES))
		return -1;
	for (unsigned int i = 0; i < FRT_NWRITES; i++) {
		memset(back, 0, frt_write_len[i]);
		FRT_POST(f, fi_read(f->fab.ep, back, frt_write_len[i], desc,
				    f->peer, srv->addr + i * FRT_MIB,
				    srv->key, &f->ctx[i]));
		if (frt_wait(f, 1))
			return -1;
		if (!frt_pattern_is(back, frt_write_len[i],
				    frt_wseed(seed, i))) {
			printf("fi_return_check: client: read %u is not what "
			       "it wrote\n", i);
			return -1;
		}
	}
	return 0;
}

static int frt_client_sends(struct frt *f, uint64_t seed)
{
	void *desc = fi_mr_desc(f->mr);

	for (unsigned int j = 0; j < FRT_NSENDS; j++) {
		uint8_t *src = f->buf + FRT_REGION_LEN + j * FRT_SEND_MAX;

		frt_pattern(src, frt_send_len[j], frt_sseed(seed, j));
		FRT_POST(f, fi_send(f->fab.ep, src, frt_send_len[j], desc,
				    f->peer, &f->ctx[FRT_NWRITES + j]));
	}
	return frt_wait(f, FRT_NSENDS);
}

static int frt_client(const struct frt_opts *o)
{
	struct frt f = { .fd = -1 };
	struct frt_hello hello = { .seed = o->seed };
	struct frt_info srv;
	uint32_t ready, done = 1, verdict = 0;
	int ret = -1;

	if (frt_setup(&f, o) || frt_name(&f, hello.name, &hello.name_len))
		goto out;
	f.fd = ex_tcp_connect(o->node, o->port);
	if (f.fd < 0) {
		perror("fi_return_check: side channel");
		goto out;
	}
	if (frt_send(&f, &hello, sizeof(hello)) ||
	    frt_recv(&f, &srv, sizeof(srv)) ||
	    frt_av_insert(&f, srv.name, srv.name_len) ||
	    frt_recv(&f, &ready, sizeof(ready)))
		goto out;
	if (frt_client_rma(&f, &srv, o->seed) ||
	    frt_client_sends(&f, o->seed))
		goto out;
	printf("fi_return_check: client %llu: %u writes read back, %u sends "
	       "completed\n", (unsigned long long)o->seed, FRT_NWRITES,
	       FRT_NSENDS);
	if (frt_send(&f, &done, sizeof(done)) ||
	    frt_recv(&f, &verdict, sizeof(verdict)) || !verdict)
		goto out;
	printf("fi_return_check: client %llu: all ok\n",
	       (unsigned long long)o->seed);
	ret = 0;
out:
	if (f.fd >= 0)
		close(f.fd);
	frt_teardown(&f);
	return ret ? 1 : 0;
}

/* ---- main ------------------------------------------------------------------- */
static const char *frt_usage =
	"usage: fi_return_check -s [-a ADDR] [-n CLIENTS] [-p PORT] [-S SVC] "
	"[-T SEC]\n"
	"       fi_return_check -c SERVER -k SEED [-p PORT] [-S SVC] "
	"[-T SEC]\n";


static int frt_parse(int argc, char **argv, struct frt_opts *o)
{
	int c;

	*o = (struct frt_opts){ .service = "42", .port = 47933, .clients = 1,
				.limit_s = 60 };
	while ((c = getopt(argc, argv, "sc:a:n:k:p:S:T:h")) != -1) {
		switch (c) {
		case 's': o->server = true; break;
		case 'c': o->node = optarg; break;
		case 'a': o->node = optarg; break;
		case 'n': o->clients = (unsigned int)atoi(optarg); break;
		case 'k': o->seed = strtoull(optarg, NULL, 0); break;
		case 'p': o->port = atoi(optarg); break;
		case 'S': o->service = optarg; break;
		case 'T': o->limit_s = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "%s", frt_usage);
			return -1;
		}
	}
	if ((!o->server && (!o->node || !o->seed)) || !o->clients ||
	    !o->limit_s) {
		fprintf(stderr, "%s", frt_usage);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct frt_opts o;

	if (frt_parse(argc, argv, &o))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ex_time_limit("fi_return_check", o.limit_s);
	return o.server ? frt_server(&o) : frt_client(&o);
}
