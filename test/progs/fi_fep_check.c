/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_fep_check (issue 12): one process, many endpoints on one interface, in
 * plain libfabric (any provider). Each side opens N endpoints in one domain,
 * each with its own CQ and registered buffer (one AV for all). The server
 * publishes its N names and keys on a TCP side channel; client endpoint i
 * writes a pattern unique to (i, round) into regions of 1 B to over 1 MiB of
 * server endpoint i's buffer, reads them back, and sends it two tagged
 * messages (eager and rendezvous sizes). Server endpoint i posts receives
 * that match any tag, so a message steered to the wrong endpoint shows; at
 * the end it checks that every region holds exactly the pattern of its own
 * peer endpoint, the bytes around them are untouched, and every message
 * arrived once, at the right endpoint.
 *
 *   fi_fep_check -s -a ADDR [-p PORT] [-e N] [-S PID] [-j JOB] [-C CLIENTS]
 *   fi_fep_check -c SERVER [-p PORT] [-e N] [-j JOB] [-i ROUNDS | -R SEC]
 *                [-x RC,ERR [-l MS] [-P PID]] [-g RC,ERR]
 *   fi_fep_check -o -a ADDR [-e N] [-S PID] [-j JOB] [-H SEC]
 *
 * -e: endpoints (default 16, at most 64); -S: service (uet: PIDonFEP) of
 * endpoint 0, endpoint i gets PID+i (default: the provider's choice);
 * -j: JobID, as a 4-byte auth_key; -C: clients served one after another;
 * -i/-R: rounds, by count or for SEC seconds; -T: the longest any wait may
 * take (default 60 s).
 * -x RC,ERR: expect failure: every write, read and send must end in an error
 *    completion with prov_errno RC and err ERR (a number or FI_E name)
 *    within MS ms (default 1000) of its posting; the server then checks
 *    that nothing arrived and its buffers are unchanged. With -P, no server:
 *    the target is PIDonFEP PID at SERVER, without side channel.
 * -g RC,ERR: rounds until the peer goes away: the first error completion
 *    must be (RC, ERR) or FI_ECONNRESET, and ends the rounds (it prints
 *    when it came); a new write to the peer must then fail with (RC, ERR)
 *    within MS ms.
 * -o: open N endpoints, print their names, hold them SEC seconds (-H,
 *    default 0); a failed fi_enable prints its code and exits 1.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "examples/ex_common.h"

#define FEP_MAX_EPS	64
#define FEP_NAME_MAX	128
#define FEP_REGIONS	4
#define FEP_MSG_SLOT	131072		/* a receive buffer */
#define FEP_MAX_ROUNDS	32768
#define FEP_MAGIC	0xFE9C4EC4u
#define FEP_TAG_MAGIC	0xFE9ull
#define FEP_SHOW	3		/* mismatches printed per endpoint */

/* Region sizes: 1 byte, a page boundary crossed, 64 KiB, over 1 MiB. */
static const size_t fep_region_len[FEP_REGIONS] = { 1, 4097, 65539,
						    (1u << 20) + 4099 };
/* Tagged messages per round: eager and rendezvous (over 64 KiB). */
static const size_t fep_msg_len[2] = { 64, 100000 };

enum fep_kind { FEP_WRITE, FEP_READ, FEP_SEND, FEP_RECV };
static const char *const fep_kind_name[] = { "fi_write", "fi_read",
					     "fi_tsend", "fi_trecv" };

struct fep_opts {
	char mode;		/* 's', 'c' or 'o' */
	const char *addr, *server, *service;
	int port, n, clients, limit_s, hold_s, rounds, run_s, x_ms, pid;
	long job;		/* -1: none */
	int x_rc, x_err;	/* -x */
	int g_rc, g_err;	/* -g */
	bool x, g;
};

struct fep_ep;

/* One operation; the libfabric context is its first member. */
struct fep_op {
	struct fi_context2 fctx;
	struct fep_ep *ep;
	enum fep_kind kind;
	int slot;		/* region or message slot */
	double t_post, t_done;
	bool busy;
	int err, prov_errno;
	char why[96];
};

struct fep_ep {
	int idx;
	struct fi_info *info;	/* its own (its own service), or NULL */
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_mr *mr;
	uint8_t *buf;
	void *desc;
	fi_addr_t peer;
	uint64_t raddr, rkey;	/* client: its server endpoint's buffer */
	char name[FEP_NAME_MAX];
	struct fep_op op[2 * FEP_REGIONS + 2];
	/* Server: what arrived from the current client, what it expects. */
	uint32_t msgs, bad;
	uint64_t msg_seed;
	uint8_t *seen;		/* 2 bits a round */
	bool written;
	uint64_t w_seed;
	uint32_t w_round;
};

struct fep {
	struct fep_opts o;
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fep_ep *ep;
	size_t off[FEP_REGIONS + 1];	/* region offsets; the area's end */
	size_t buf_len;
	int oob;
};

/* What the server publishes. */
struct fep_hello {
	uint32_t magic, n;
	struct {
		uint8_t name[FEP_NAME_MAX];
		uint64_t name_len, addr, key;
	} ep[FEP_MAX_EPS];
};

/* What a client did, at its end; the server checks itself against it. */
struct fep_report {
	uint32_t magic, n, rounds, failed_as_expected;
	uint64_t seed;
	uint32_t written[FEP_MAX_EPS];	/* last round written, read back */
	uint32_t msgs[FEP_MAX_EPS];	/* tagged messages completed */
};

/* The head of a tagged message; a pattern follows. */
struct fep_msg_hdr {
	uint32_t magic, ep, round, which;
	uint64_t seed, pad;
};

#define FEP_FAIL(...)							\
	do {								\
		printf("fi_fep_check: FAIL: " __VA_ARGS__);		\
		printf("\n");						\
		return -1;						\
	} while (0)

#define FEP_FI(call)							\
	do {								\
		int fep_ret_ = (int)(call);				\
		if (fep_ret_ < 0)					\
			FEP_FAIL("%s: %s", #call,			\
				 fi_strerror(-fep_ret_));		\
	} while (0)

/* ---- helpers ------------------------------------------------------------- */
static double fep_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double fep_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const struct {
	int err;
	const char *name;
} fep_errs[] = {
	{ FI_EACCES, "FI_EACCES" }, { FI_EADDRINUSE, "FI_EADDRINUSE" },
	{ FI_EADDRNOTAVAIL, "FI_EADDRNOTAVAIL" }, { FI_ENODEV, "FI_ENODEV" },
	{ FI_ETIMEDOUT, "FI_ETIMEDOUT" }, { FI_ECONNREFUSED, "FI_ECONNREFUSED" },
	{ FI_EKEYREJECTED, "FI_EKEYREJECTED" }, { FI_EIO, "FI_EIO" },
	{ FI_EREMOTEIO, "FI_EREMOTEIO" }, { FI_ENOSPC, "FI_ENOSPC" },
	{ FI_EINVAL, "FI_EINVAL" }, { FI_EOPNOTSUPP, "FI_EOPNOTSUPP" },
	{ FI_ECANCELED, "FI_ECANCELED" }, { FI_EHOSTUNREACH, "FI_EHOSTUNREACH" },
	{ FI_ENOMSG, "FI_ENOMSG" }, { FI_EMSGSIZE, "FI_EMSGSIZE" },
	{ FI_ENOENT, "FI_ENOENT" }, { FI_EPERM, "FI_EPERM" },
	{ FI_ECONNRESET, "FI_ECONNRESET" },
};

static const char *fep_err_name(int err)
{
	for (size_t i = 0; i < sizeof(fep_errs) / sizeof(fep_errs[0]); i++)
		if (fep_errs[i].err == err)
			return fep_errs[i].name;
	return "FI_E?";
}

/* "RC,ERR": a UET return code and an FI_E* (number or name). */
static int fep_parse_expect(const char *s, int *rc, int *err)
{
	char *end;
	const char *e = strchr(s, ',');

	*rc = (int)strtol(s, &end, 0);
	if (!e || end != e)
		return -1;
	for (size_t i = 0; i < sizeof(fep_errs) / sizeof(fep_errs[0]); i++)
		if (!strcmp(e + 1, fep_errs[i].name)) {
			*err = fep_errs[i].err;
			return 0;
		}
	*err = (int)strtol(e + 1, &end, 0);
	return *end || *err <= 0 ? -1 : 0;
}

static uint64_t fep_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The stream of |key|: 8 bytes of one mix at a time. */
static void fep_fill(uint8_t *p, size_t len, uint64_t key)
{
	for (size_t q = 0; q < len; q += 8) {
		uint64_t v = fep_mix(key + q);

		memcpy(p + q, &v, len - q < 8 ? len - q : 8);
	}
}

/* The pattern of endpoint |ep|'s region |k| (8 + m: message m), round |r|. */
static uint64_t fep_key(uint64_t seed, uint32_t ep, uint32_t k, uint32_t r)
{
	return fep_mix(seed ^ (uint64_t)ep << 48 ^ (uint64_t)k << 40 ^ r);
}

/* What a server buffer holds before any client: its own stream. */
static uint64_t fep_virgin_key(uint32_t ep)
{
	return fep_mix(0x5EED0000ull + ep);
}

static uint64_t fep_tag(uint32_t ep, uint32_t round, uint32_t which)
{
	return FEP_TAG_MAGIC << 52 | (uint64_t)ep << 32 | round << 1 | which;
}

/* ---- options ------------------------------------------------------------- */
static const char *fep_usage =
	"usage: fi_fep_check -s -a ADDR [-p PORT] [-e N] [-S PID] [-j JOB] "
	"[-C CLIENTS] [-T SEC]\n"
	"       fi_fep_check -c SERVER [-p PORT] [-e N] [-j JOB] "
	"[-i ROUNDS | -R SEC]\n"
	"                    [-x RC,ERR [-l MS] [-P PID]] [-g RC,ERR] "
	"[-T SEC]\n"
	"       fi_fep_check -o -a ADDR [-e N] [-S PID] [-j JOB] [-H SEC]\n";

static int fep_parse(int argc, char **argv, struct fep_opts *o)
{
	int c;

	*o = (struct fep_opts){ .port = 47940, .n = 16, .clients = 1,
				.limit_s = 60, .rounds = 1, .x_ms = 1000,
				.pid = -1, .job = -1 };
	while ((c = getopt(argc, argv, "sc:oa:p:e:S:j:C:i:R:x:l:P:g:H:T:h")) !=
	       -1) {
		switch (c) {
		case 's': case 'o': o->mode = (char)c; break;
		case 'c': o->mode = 'c'; o->server = optarg; break;
		case 'a': o->addr = optarg; break;
		case 'p': o->port = atoi(optarg); break;
		case 'e': o->n = atoi(optarg); break;
		case 'S': o->service = optarg; break;
		case 'j': o->job = strtol(optarg, NULL, 0); break;
		case 'C': o->clients = atoi(optarg); break;
		case 'i': o->rounds = atoi(optarg); break;
		case 'R': o->run_s = atoi(optarg); break;
		case 'l': o->x_ms = atoi(optarg); break;
		case 'P': o->pid = atoi(optarg); break;
		case 'H': o->hold_s = atoi(optarg); break;
		case 'T': o->limit_s = atoi(optarg); break;
		case 'x':
			o->x = !fep_parse_expect(optarg, &o->x_rc, &o->x_err);
			if (!o->x)
				goto usage;
			break;
		case 'g':
			o->g = !fep_parse_expect(optarg, &o->g_rc, &o->g_err);
			if (!o->g)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (!o->mode || o->n < 1 || o->n > FEP_MAX_EPS || o->clients < 1 ||
	    o->rounds < 1 || o->rounds >= FEP_MAX_ROUNDS || o->limit_s < 1 ||
	    (o->pid >= 0 && !o->x) || (o->x && o->g) ||
	    (o->mode != 'c' && !o->addr))
		goto usage;
	return 0;
usage:
	fprintf(stderr, "%s", fep_usage);
	return -1;
}

/* ---- set-up -------------------------------------------------------------- */
static int fep_getinfo(struct fep *f, const char *service,
		       struct fi_info **info)
{
	/* FI_MR_ENDPOINT when offered: each region serves its endpoint. */
	struct fi_info *h = ex_hints_rdm(EX_RMA_CAPS | FI_TAGGED | FI_SEND |
					 FI_RECV, FI_CONTEXT | FI_CONTEXT2);
	bool src = f->o.mode != 'c';
	int ret;

	if (!h)
		FEP_FAIL("fi_allocinfo");
	ret = fi_getinfo(FI_VERSION(1, 17), src ? f->o.addr : f->o.server,
			 service, src ? FI_SOURCE : 0, h, info);
	fi_freeinfo(h);
	if (ret)
		FEP_FAIL("fi_getinfo(%s, %s): %s", src ? f->o.addr :
			 f->o.server, service ? service : "-",
			 fi_strerror(-ret));
	return 0;
}

static int fep_domain(struct fep *f)
{
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	struct fi_domain_attr *d;
	uint32_t job = (uint32_t)f->o.job;

	if (fep_getinfo(f, f->o.service, &f->info))
		return -1;
	d = f->info->domain_attr;
	if (f->o.job >= 0) {	/* the JobID: a 4-byte auth_key */
		free(d->auth_key);
		d->auth_key = malloc(sizeof(job));
		if (!d->auth_key)
			FEP_FAIL("no memory");
		memcpy(d->auth_key, &job, sizeof(job));
		d->auth_key_size = sizeof(job);
	}
	FEP_FI(fi_fabric(f->info->fabric_attr, &f->fabric, NULL));
	FEP_FI(fi_domain(f->fabric, f->info, &f->domain, NULL));
	av_attr.count = (size_t)f->o.n;
	FEP_FI(fi_av_open(f->domain, &av_attr, &f->av, NULL));
	return 0;
}

/*
 * Endpoint |i|, enabled, with its CQ and its buffer registered. Returns 0,
 * -1, or fi_enable's -FI_E* (printed with its name).
 */
static int fep_ep_open(struct fep *f, struct fep_ep *e, int i)
{
	struct fi_cq_attr cq_attr = { .size = 256,
				      .format = FI_CQ_FORMAT_TAGGED };
	struct fi_info *info = f->info;
	char svc[16];
	size_t len = sizeof(e->name);
	int ret;

	e->idx = i;
	e->peer = FI_ADDR_UNSPEC;
	if (f->o.mode != 'c' && f->o.service) {
		snprintf(svc, sizeof(svc), "%ld", atol(f->o.service) + i);
		if (fep_getinfo(f, svc, &e->info))
			return -1;
		info = e->info;
	}
	FEP_FI(fi_cq_open(f->domain, &cq_attr, &e->cq, NULL));
	FEP_FI(fi_endpoint(f->domain, info, &e->ep, NULL));
	FEP_FI(fi_ep_bind(e->ep, &f->av->fid, 0));
	FEP_FI(fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV));
	ret = fi_enable(e->ep);
	if (ret) {
		printf("fi_fep_check: endpoint %d: fi_enable: %d (%s: %s)\n", i,
		       ret, fep_err_name(-ret), fi_strerror(-ret));
		return ret;
	}
	if (posix_memalign((void **)&e->buf, 4096, f->buf_len))
		FEP_FAIL("no memory for %zu bytes", f->buf_len);
	memset(e->buf, 0, f->buf_len);
	FEP_FI(fi_mr_reg(f->domain, e->buf, f->buf_len, FI_READ | FI_WRITE |
			 FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV,
			 0, 0xfe0 + (uint64_t)i, 0, &e->mr, NULL));
	if (f->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
		FEP_FI(fi_mr_bind(e->mr, &e->ep->fid, 0));
		FEP_FI(fi_mr_enable(e->mr));
	}
	e->desc = fi_mr_desc(e->mr);
	FEP_FI(fi_getname(&e->ep->fid, e->name, &len));
	for (size_t k = 0; k < sizeof(e->op) / sizeof(e->op[0]); k++)
		e->op[k].ep = e;
	return 0;
}

static void fep_close(struct fep *f)
{
	for (int i = 0; f->ep && i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];

		if (e->mr)
			fi_close(&e->mr->fid);
		if (e->ep)
			fi_close(&e->ep->fid);
		if (e->cq)
			fi_close(&e->cq->fid);
		if (e->info)
			fi_freeinfo(e->info);
		free(e->buf);
		free(e->seen);
	}
	if (f->av)
		fi_close(&f->av->fid);
	if (f->domain)
		fi_close(&f->domain->fid);
	if (f->fabric)
		fi_close(&f->fabric->fid);
	if (f->info)
		fi_freeinfo(f->info);
	if (f->oob >= 0)
		close(f->oob);
	free(f->ep);
}

/* An endpoint's name as the AV prints it (uet: uet://ADDR/pid=P/ri=R). */
static const char *fep_str(struct fep *f, const void *name, char *buf,
			   size_t len)
{
	size_t l = len;

	if (!fi_av_straddr(f->av, name, buf, &l))
		snprintf(buf, len, "?");
	return buf;
}

/* ---- completions --------------------------------------------------------- */
static int fep_on_recv(struct fep *f, struct fep_ep *e,
		       const struct fi_cq_tagged_entry *c);

/* The error completion on |e|'s CQ, recorded in its operation. */
static void fep_op_error(struct fep_ep *e)
{
	struct fi_cq_err_entry err = { 0 };
	struct fep_op *op;

	if (fi_cq_readerr(e->cq, &err, 0) != 1)
		return;
	op = err.op_context;
	if (!op)
		return;
	op->busy = false;
	op->t_done = fep_now();
	op->err = err.err;
	op->prov_errno = err.prov_errno;
	snprintf(op->why, sizeof(op->why), "%s", fi_cq_strerror(e->cq,
		 err.prov_errno, err.err_data, NULL, 0));
	/* A server's receive never fails while it runs. */
	if (op->kind == FEP_RECV && e->bad++ < FEP_SHOW)
		printf("fi_fep_check: server endpoint %d: fi_trecv failed: %s "
		       "(%s)\n", e->idx, fi_strerror(op->err), op->why);
}

/* Reads every CQ once; -1 on a failure that ends the run. */
static int fep_progress(struct fep *f)
{
	struct fi_cq_tagged_entry c[16];

	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];
		ssize_t n = e->cq ? fi_cq_read(e->cq, c, 16) : -FI_EAGAIN;

		if (n == -FI_EAVAIL) {
			fep_op_error(e);
			continue;
		}
		if (n == -FI_EAGAIN)
			continue;
		if (n < 0)
			FEP_FAIL("endpoint %d: fi_cq_read: %s", i,
				 fi_strerror((int)-n));
		for (ssize_t k = 0; k < n; k++) {
			struct fep_op *op = c[k].op_context;

			if (!op || op->ep != e)
				FEP_FAIL("endpoint %d: a completion of "
					 "context %p, not its own", i, (void *)op);
			op->busy = false;
			op->t_done = fep_now();
			op->err = 0;
			if (op->kind == FEP_RECV && fep_on_recv(f, e, &c[k]))
				return -1;
		}
	}
	return 0;
}

/* Posts |opp| with |call|, retrying -FI_EAGAIN; the call's result. */
#define FEP_POST(f, opp, call)						\
	({								\
		ssize_t fep_r_;						\
		double fep_t_ = fep_now();				\
		(opp)->busy = true;					\
		(opp)->err = 0;						\
		(opp)->t_post = fep_now();				\
		while ((fep_r_ = (call)) == -FI_EAGAIN &&		\
		       fep_now() - fep_t_ < (f)->o.limit_s)		\
			fep_progress(f);				\
		if (fep_r_)						\
			(opp)->busy = false;				\
		fep_r_;							\
	})

/* Waits until no operation of any endpoint is busy, bounded in time. */
static int fep_wait(struct fep *f, const char *what)
{
	double t0 = fep_now();

	for (unsigned long spin = 0;; spin++) {
		int busy = 0;

		if (fep_progress(f))
			return -1;
		for (int i = 0; i < f->o.n; i++)
			for (size_t k = 0; k < sizeof(f->ep[i].op) /
					       sizeof(f->ep[i].op[0]); k++)
				busy += f->ep[i].op[k].busy &&
					f->ep[i].op[k].kind != FEP_RECV;
		if (!busy)
			return 0;
		if (!(spin % 256) && fep_now() - t0 > f->o.limit_s)
			FEP_FAIL("%s: %d operations not completed after %d s",
				 what, busy, f->o.limit_s);
	}
}

/* ---- side channel -------------------------------------------------------- */
/* Server: accept one client; client: connect. Both within the time limit. */
static int fep_oob_connect(struct fep *f, int lfd)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)f->o.port) };
	double t0 = fep_now();

	if (lfd >= 0) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };

		while (poll(&pfd, 1, 0) != 1) {
			if (fep_progress(f))
				return -1;
			if (fep_now() - t0 > f->o.limit_s)
				FEP_FAIL("no client within %d s", f->o.limit_s);
		}
		f->oob = accept(lfd, NULL, NULL);
		return f->oob < 0 ? -1 : 0;
	}
	if (inet_pton(AF_INET, f->o.server, &sin.sin_addr) != 1)
		FEP_FAIL("%s: not an IPv4 address", f->o.server);
	while (fep_now() - t0 < f->o.limit_s) {
		f->oob = socket(AF_INET, SOCK_STREAM, 0);
		if (f->oob >= 0 &&
		    !connect(f->oob, (struct sockaddr *)&sin, sizeof(sin)))
			return 0;
		close(f->oob);
		f->oob = -1;
		usleep(50000);
	}
	FEP_FAIL("no server at %s port %d within %d s", f->o.server,
		 f->o.port, f->o.limit_s);
}

static int fep_oob_send(struct fep *f, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(f->oob, p, len, MSG_NOSIGNAL);

		if (n <= 0)
			FEP_FAIL("side channel: send failed");
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Receives |len| bytes, running every endpoint meanwhile. */
static int fep_oob_recv(struct fep *f, void *buf, size_t len)
{
	struct pollfd pfd = { .fd = f->oob, .events = POLLIN };
	double t0 = fep_now();
	uint8_t *p = buf;

	while (len) {
		ssize_t n;

		for (unsigned long spin = 0; poll(&pfd, 1, 0) != 1; spin++) {
			if (fep_progress(f))
				return -1;
			if (!(spin % 64) && fep_now() - t0 > f->o.limit_s)
				FEP_FAIL("side channel: nothing for %d s",
					 f->o.limit_s);
		}
		n = recv(f->oob, p, len, 0);
		if (n <= 0)
			FEP_FAIL("side channel: closed by the peer");
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- server -------------------------------------------------------------- */
static struct fep_op *fep_recv_op(struct fep_ep *e, int which)
{
	return &e->op[2 * FEP_REGIONS + which];
}

static int fep_post_recv(struct fep *f, struct fep_ep *e, int which)
{
	struct fep_op *op = fep_recv_op(e, which);
	ssize_t ret;

	op->kind = FEP_RECV;
	op->slot = which;
	ret = FEP_POST(f, op, fi_trecv(e->ep, e->buf + f->off[FEP_REGIONS] +
				       (size_t)which * FEP_MSG_SLOT,
				       FEP_MSG_SLOT, e->desc, FI_ADDR_UNSPEC,
				       0, ~0ull, &op->fctx));
	if (ret)
		FEP_FAIL("endpoint %d: fi_trecv: %s", e->idx,
			 fi_strerror((int)-ret));
	return 0;
}

/* A message at server endpoint |e|: for it, whole, and new; reposts. */
static int fep_on_recv(struct fep *f, struct fep_ep *e,
		       const struct fi_cq_tagged_entry *c)
{
	const struct fep_op *op = c->op_context;
	const uint8_t *p = e->buf + f->off[FEP_REGIONS] +
			   (size_t)op->slot * FEP_MSG_SLOT;
	static uint8_t want[FEP_MSG_SLOT];
	struct fep_msg_hdr h;
	const char *bad = NULL;

	memcpy(&h, p, sizeof(h));
	if (c->len < sizeof(h) || h.magic != FEP_MAGIC)
		bad = "not one of ours";
	else if (h.ep != (uint32_t)e->idx)
		bad = "for another endpoint";
	else if (h.which > 1 || c->len != fep_msg_len[h.which] ||
		 c->tag != fep_tag(h.ep, h.round, h.which))
		bad = "length or tag not as sent";
	else if (h.round >= FEP_MAX_ROUNDS ||
		 (e->seen[h.round / 4] >> (h.round % 4 * 2 + h.which) & 1))
		bad = "a second time";
	else if (e->msgs && h.seed != e->msg_seed)
		bad = "from another client";
	if (!bad) {
		fep_fill(want, c->len - sizeof(h), fep_key(h.seed, h.ep,
			 8 + h.which, h.round));
		if (memcmp(p + sizeof(h), want, c->len - sizeof(h)))
			bad = "with a wrong payload";
	}
	if (bad) {
		if (e->bad++ < FEP_SHOW)
			printf("fi_fep_check: server endpoint %d: a message "
			       "(tag %#llx, %zu B, for endpoint %u) %s\n",
			       e->idx, (unsigned long long)c->tag, c->len,
			       h.ep, bad);
	} else {
		e->seen[h.round / 4] |= (uint8_t)(1u << (h.round % 4 * 2 +
							h.which));
		e->msg_seed = h.seed;
		e->msgs++;
	}
	return fep_post_recv(f, e, op->slot);
}

/* Fills |want| with what endpoint |e|'s area must hold. */
static void fep_expected(struct fep *f, struct fep_ep *e, uint8_t *want)
{
	fep_fill(want, f->off[FEP_REGIONS], fep_virgin_key((uint32_t)e->idx));
	if (!e->written)
		return;
	for (int k = 0; k < FEP_REGIONS; k++)
		fep_fill(want + f->off[k], fep_region_len[k],
			 fep_key(e->w_seed, (uint32_t)e->idx, (uint32_t)k,
				 e->w_round));
}

/* Where offset |o| of the area is, for messages. */
static void fep_where(struct fep *f, size_t o, char *buf, size_t len)
{
	for (int k = 0; k < FEP_REGIONS; k++) {
		if (o >= f->off[k] && o < f->off[k] + fep_region_len[k]) {
			snprintf(buf, len, "region %d (%zu B) at byte %zu", k,
				 fep_region_len[k], o - f->off[k]);
			return;
		}
	}
	snprintf(buf, len, "outside the regions, at offset %zu", o);
}

/* Checks endpoint |e| after a client; returns the failures. */
static int fep_check_ep(struct fep *f, struct fep_ep *e,
			const struct fep_report *r, uint8_t *want)
{
	uint32_t sent = r->msgs[e->idx];
	uint32_t rounds = sent / 2;
	size_t len = f->off[FEP_REGIONS], diff = 0;
	char where[96];
	int fails = e->bad ? 1 : 0;

	fep_expected(f, e, want);
	if (memcmp(e->buf, want, len)) {
		while (e->buf[diff] == want[diff])
			diff++;
		fep_where(f, diff, where, sizeof(where));
		printf("fi_fep_check: server endpoint %d: its buffer differs "
		       "from %s first in %s (%#x, expected %#x)\n", e->idx,
		       e->written ? "its peer's pattern" : "what it held",
		       where, e->buf[diff], want[diff]);
		fails++;
	}
	if (e->msgs != sent) {
		printf("fi_fep_check: server endpoint %d: %u tagged messages "
		       "arrived, its peer sent %u\n", e->idx, e->msgs, sent);
		fails++;
	}
	for (uint32_t q = 0; q < rounds * 2 && e->msgs == sent; q++)
		if (!(e->seen[q / 8] >> (q % 8) & 1)) {
			printf("fi_fep_check: server endpoint %d: message %u "
			       "of round %u never arrived\n", e->idx, q % 2,
			       q / 2);
			fails++;
			break;
		}
	if (e->msgs && e->msg_seed != r->seed) {
		printf("fi_fep_check: server endpoint %d: messages of "
		       "another client\n", e->idx);
		fails++;
	}
	return fails;
}

/*
 * One client, from its side channel's accept to the verdict: 0 if it and
 * the checks went well, 1 if not, -1 if no client came.
 */
static int fep_serve(struct fep *f, int lfd, int client, uint8_t *want)
{
	struct fep_hello *hello = calloc(1, sizeof(*hello));
	struct fep_report r;
	double t0;
	int32_t fails = 0;
	int busy;

	if (!hello)
		FEP_FAIL("no memory");
	hello->magic = FEP_MAGIC;
	hello->n = (uint32_t)f->o.n;
	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];
		size_t len = sizeof(hello->ep[i].name);

		fi_getname(&e->ep->fid, hello->ep[i].name, &len);
		hello->ep[i].name_len = len;
		hello->ep[i].key = fi_mr_key(e->mr);
		hello->ep[i].addr = f->info->domain_attr->mr_mode &
				    FI_MR_VIRT_ADDR ? (uintptr_t)e->buf : 0;
		e->msgs = e->bad = 0;
		memset(e->seen, 0, FEP_MAX_ROUNDS / 4);
	}
	if (fep_oob_connect(f, lfd)) {
		free(hello);
		return -1;
	}
	busy = fep_oob_send(f, hello, sizeof(*hello)) ||
	       fep_oob_recv(f, &r, sizeof(r));
	free(hello);
	if (busy)	/* it failed on its side; the next one may come */
		printf("fi_fep_check: server: client %d failed: no report\n",
		       client);
	else if (r.magic != FEP_MAGIC || r.n != (uint32_t)f->o.n)
		printf("fi_fep_check: server: client %d: a report for %u "
		       "endpoints, not %d\n", client, r.n, f->o.n);
	if (busy || r.magic != FEP_MAGIC || r.n != (uint32_t)f->o.n) {
		close(f->oob);
		f->oob = -1;
		return 1;
	}
	/* Its last messages may still be on their way here. */
	for (t0 = fep_now(), busy = 1; busy;) {
		busy = 0;
		for (int i = 0; i < f->o.n; i++)
			busy += f->ep[i].msgs + f->ep[i].bad < r.msgs[i];
		if (busy && fep_now() - t0 > f->o.limit_s)
			break;
		if (fep_progress(f))
			return 1;
	}
	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];

		if (r.written[i]) {
			e->written = true;
			e->w_seed = r.seed;
			e->w_round = r.rounds - 1;
		}
		fails += fep_check_ep(f, e, &r, want);
	}
	fep_oob_send(f, &fails, sizeof(fails));
	close(f->oob);
	f->oob = -1;
	if (fails) {
		printf("fi_fep_check: server: client %d: %d checks failed\n",
		       client, fails);
		return 1;
	}
	if (r.failed_as_expected)
		printf("fi_fep_check: server: client %d: every operation "
		       "failed as it expected; no message arrived and all %d "
		       "buffers are unchanged\n", client, f->o.n);
	else
		printf("fi_fep_check: server: client %d: %u rounds: every "
		       "region holds its peer endpoint's pattern, every "
		       "message arrived once at its own endpoint\n", client,
		       r.rounds);
	return 0;
}

static int fep_server(struct fep *f)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)f->o.port) };
	uint8_t *want = malloc(f->off[FEP_REGIONS]);
	char a[FEP_NAME_MAX], b[FEP_NAME_MAX];
	int one = 1, lfd, ret = -1, failed = 0;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (!want || lfd < 0)
		FEP_FAIL("no memory or socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 4)) {
		printf("fi_fep_check: FAIL: side channel port %d: %m\n",
		       f->o.port);
		goto out;
	}
	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];

		e->seen = calloc(FEP_MAX_ROUNDS / 4, 1);
		if (!e->seen)
			goto out;
		fep_fill(e->buf, f->off[FEP_REGIONS],
			 fep_virgin_key((uint32_t)i));
		if (fep_post_recv(f, e, 0) || fep_post_recv(f, e, 1))
			goto out;
	}
	printf("fi_fep_check: server: process %d: %d endpoints ready: %s .. "
	       "%s\n", (int)getpid(), f->o.n, fep_str(f, f->ep[0].name, a,
	       sizeof(a)), fep_str(f, f->ep[f->o.n - 1].name, b, sizeof(b)));
	for (int c = 1, r; c <= f->o.clients; c++) {
		r = fep_serve(f, lfd, c, want);
		if (r < 0)
			goto out;
		failed += r;
	}
	if (failed) {
		printf("fi_fep_check: FAIL: server: %d of %d clients failed\n",
		       failed, f->o.clients);
		goto out;
	}
	printf("fi_fep_check: server: all ok (%d endpoints %s .. %s, %d "
	       "client%s)\n", f->o.n, a, b, f->o.clients,
	       f->o.clients > 1 ? "s" : "");
	ret = 0;
out:
	close(lfd);
	free(want);
	return ret;
}

/* ---- client -------------------------------------------------------------- */
static uint8_t *fep_src(struct fep *f, struct fep_ep *e, int k)
{
	return e->buf + f->off[k];
}

static uint8_t *fep_back(struct fep *f, struct fep_ep *e, int k)
{
	return e->buf + f->off[FEP_REGIONS] + f->off[k];
}

static uint8_t *fep_msg(struct fep *f, struct fep_ep *e, int which)
{
	return e->buf + 2 * f->off[FEP_REGIONS] + (size_t)which * FEP_MSG_SLOT;
}

/* The slot of operation |kind| on region (or message) |k|. */
static struct fep_op *fep_op_of(struct fep_ep *e, enum fep_kind kind, int k)
{
	return &e->op[kind == FEP_SEND ? 2 * FEP_REGIONS + k :
					 (int)kind * FEP_REGIONS + k];
}

/* Posts operation |kind| on region or message |k| of every endpoint. */
static int fep_post_all(struct fep *f, enum fep_kind kind, int k,
			uint32_t round, uint64_t seed)
{
	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];
		struct fep_op *op = fep_op_of(e, kind, k);
		uint64_t raddr = e->raddr + f->off[k < FEP_REGIONS ? k : 0];
		size_t len = kind == FEP_SEND ? fep_msg_len[k] :
						fep_region_len[k];
		ssize_t ret;

		op->kind = kind;
		op->slot = k;
		if (kind == FEP_WRITE) {
			ret = FEP_POST(f, op, fi_write(e->ep, fep_src(f, e, k),
				       len, e->desc, e->peer, raddr, e->rkey,
				       &op->fctx));
		} else if (kind == FEP_READ) {
			ret = FEP_POST(f, op, fi_read(e->ep, fep_back(f, e, k),
				       len, e->desc, e->peer, raddr, e->rkey,
				       &op->fctx));
		} else {
			struct fep_msg_hdr h = { .magic = FEP_MAGIC,
						 .ep = (uint32_t)i,
						 .round = round,
						 .which = (uint32_t)k,
						 .seed = seed };
			uint8_t *m = fep_msg(f, e, k);

			memcpy(m, &h, sizeof(h));
			fep_fill(m + sizeof(h), len - sizeof(h),
				 fep_key(seed, (uint32_t)i, 8 + (uint32_t)k,
					 round));
			ret = FEP_POST(f, op, fi_tsend(e->ep, m, len, e->desc,
				       e->peer, fep_tag((uint32_t)i, round,
				       (uint32_t)k), &op->fctx));
		}
		if (ret)
			FEP_FAIL("endpoint %d: %s of %zu B: %s", i,
				 fep_kind_name[kind], len,
				 fi_strerror((int)-ret));
	}
	return 0;
}

static void fep_op_print(const struct fep_op *op, const char *what)
{
	printf("fi_fep_check: client endpoint %d: %s of %zu B: %s after %.1f "
	       "ms: err %d (%s: %s), prov_errno %#x (%s)\n", op->ep->idx,
	       fep_kind_name[op->kind], op->kind == FEP_SEND ?
	       fep_msg_len[op->slot] : fep_region_len[op->slot], what,
	       (op->t_done - op->t_post) * 1e3, op->err,
	       fep_err_name(op->err), fi_strerror(op->err), op->prov_errno,
	       op->why);
}

/*
 * -g: whether |op| failed as a peer that went away makes it fail: the
 * service's answer for an absent destination, or FI_ECONNRESET (the PDC
 * with the dead endpoint reset by the service's NACK).
 */
static bool fep_is_gone(const struct fep *f, const struct fep_op *op)
{
	return (op->err == f->o.g_err && op->prov_errno == f->o.g_rc) ||
	       (op->err == FI_ECONNRESET &&
		(!op->prov_errno || op->prov_errno == -FI_ECONNRESET));
}

/*
 * After a phase: 0 if every operation succeeded, 1 if one failed as -g
 * expects (the peer went away), -1 otherwise.
 */
static int fep_phase_end(struct fep *f, enum fep_kind kind, int k)
{
	int fails = 0, gone = 0;

	for (int i = 0; i < f->o.n; i++) {
		struct fep_op *op = fep_op_of(&f->ep[i], kind, k);

		if (!op->err)
			continue;
		if (f->o.g && fep_is_gone(f, op)) {
			fep_op_print(op, "the peer is gone");
			printf("fi_fep_check: client: peer gone: error "
			       "completion at %.3f (wall clock), %.1f ms "
			       "after its posting\n", fep_wall() -
			       (fep_now() - op->t_done),
			       (op->t_done - op->t_post) * 1e3);
			gone++;
			continue;
		}
		fep_op_print(op, "error completion");
		fails++;
	}
	return fails ? -1 : gone ? 1 : 0;
}

/*
 * -g, once the peer is gone: a new write to it must fail with the
 * service's answer for its absent PIDonFEP, (RC, ERR) of -g, in time.
 */
static int fep_probe_gone(struct fep *f)
{
	int fails = 0;

	if (fep_post_all(f, FEP_WRITE, 0, 0, 0) || fep_wait(f, "probe"))
		return -1;
	for (int i = 0; i < f->o.n; i++) {
		struct fep_op *op = fep_op_of(&f->ep[i], FEP_WRITE, 0);
		bool ok = op->err == f->o.g_err && op->prov_errno == f->o.g_rc &&
			  (op->t_done - op->t_post) * 1e3 <= f->o.x_ms;

		if (!op->err)
			printf("fi_fep_check: client endpoint %d: a write to "
			       "the dead peer succeeded\n", i);
		else
			fep_op_print(op, ok ? "a new write to the dead peer "
				     "failed as expected" : "a new write to the "
				     "dead peer failed, but not as expected");
		fails += !ok;
	}
	if (fails)
		FEP_FAIL("client: a new write to the dead peer did not fail "
			 "with err %s and prov_errno %#x within %d ms",
			 fep_err_name(f->o.g_err), f->o.g_rc, f->o.x_ms);
	return 0;
}

/* One round: regions written, read back and compared, two messages. */
static int fep_round(struct fep *f, struct fep_report *r, uint32_t round)
{
	int ret;

	for (int i = 0; i < f->o.n; i++)
		for (int k = 0; k < FEP_REGIONS; k++) {
			fep_fill(fep_src(f, &f->ep[i], k), fep_region_len[k],
				 fep_key(r->seed, (uint32_t)i, (uint32_t)k,
					 round));
			memset(fep_back(f, &f->ep[i], k), 0,
			       fep_region_len[k]);
		}
	for (int kind = FEP_WRITE; kind <= FEP_SEND; kind++) {
		int slots = kind == FEP_SEND ? 2 : FEP_REGIONS;

		for (int k = 0; k < slots; k++)
			if (fep_post_all(f, kind, k, round, r->seed))
				return -1;
		if (fep_wait(f, fep_kind_name[kind]))
			return -1;
		for (int k = 0; k < slots; k++) {
			ret = fep_phase_end(f, kind, k);
			if (ret)
				return ret;
		}
	}
	for (int i = 0; i < f->o.n; i++) {
		for (int k = 0; k < FEP_REGIONS; k++)
			if (memcmp(fep_back(f, &f->ep[i], k),
				   fep_src(f, &f->ep[i], k), fep_region_len[k]))
				FEP_FAIL("endpoint %d, round %u: region %d "
					 "(%zu B) read back differs from what "
					 "it wrote", i, round, k,
					 fep_region_len[k]);
		r->written[i] = 1;
		r->msgs[i] += 2;
	}
	return 0;
}

/* -x: each kind of operation once on every endpoint, each must fail. */
static int fep_expect_failure(struct fep *f)
{
	static const struct { enum fep_kind kind; int k; } ops[] = {
		{ FEP_WRITE, 0 }, { FEP_WRITE, FEP_REGIONS - 1 },
		{ FEP_READ, 1 }, { FEP_SEND, 1 },
	};
	double slowest = 0;
	int fails = 0;

	for (size_t j = 0; j < sizeof(ops) / sizeof(ops[0]); j++) {
		if (fep_post_all(f, ops[j].kind, ops[j].k, 0, 0) ||
		    fep_wait(f, fep_kind_name[ops[j].kind]))
			return -1;
		for (int i = 0; i < f->o.n; i++) {
			struct fep_op *op = fep_op_of(&f->ep[i], ops[j].kind,
						      ops[j].k);
			double ms = (op->t_done - op->t_post) * 1e3;
			bool ok = op->err == f->o.x_err &&
				  op->prov_errno == f->o.x_rc &&
				  ms <= f->o.x_ms;

			if (!op->err) {
				printf("fi_fep_check: client endpoint %d: %s "
				       "succeeded (after %.1f ms)\n", i,
				       fep_kind_name[op->kind], ms);
				fails++;
				continue;
			}
			fep_op_print(op, ok ? "failed as expected" :
				     "failed, but not as expected");
			fails += !ok;
			slowest = ms > slowest ? ms : slowest;
		}
	}
	if (fails)
		FEP_FAIL("client: %d operations did not fail with err %s and "
			 "prov_errno %#x within %d ms", fails,
			 fep_err_name(f->o.x_err), f->o.x_rc, f->o.x_ms);
	printf("fi_fep_check: client: all failed as expected (%d endpoints, "
	       "%zu operations each: err %s, prov_errno %#x, the slowest "
	       "after %.1f ms)\n", f->o.n, sizeof(ops) / sizeof(ops[0]),
	       fep_err_name(f->o.x_err), f->o.x_rc, slowest);
	return 0;
}

/* The server's names, keys and buffers (or, with -P, a lone PIDonFEP). */
static int fep_peers(struct fep *f)
{
	struct fep_hello *h = calloc(1, sizeof(*h));
	int ret = -1;

	if (!h)
		FEP_FAIL("no memory");
	if (f->o.pid >= 0) {
		char svc[16];
		struct fi_info *info;

		snprintf(svc, sizeof(svc), "%d", f->o.pid);
		if (fep_getinfo(f, svc, &info))
			goto out;
		h->n = (uint32_t)f->o.n;
		for (int i = 0; i < f->o.n; i++) {
			memcpy(h->ep[i].name, info->dest_addr,
			       info->dest_addrlen);
			h->ep[i].name_len = info->dest_addrlen;
		}
		fi_freeinfo(info);
	} else if (fep_oob_connect(f, -1) || fep_oob_recv(f, h, sizeof(*h))) {
		goto out;
	}
	if (f->o.pid < 0 && (h->magic != FEP_MAGIC ||
			     h->n != (uint32_t)f->o.n)) {
		printf("fi_fep_check: FAIL: the server has %u endpoints, we "
		       "%d\n", h->n, f->o.n);
		goto out;
	}
	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];

		if (fi_av_insert(f->av, h->ep[i].name, 1, &e->peer, 0,
				 NULL) != 1) {
			printf("fi_fep_check: FAIL: fi_av_insert of server "
			       "endpoint %d\n", i);
			goto out;
		}
		e->raddr = h->ep[i].addr;
		e->rkey = h->ep[i].key;
	}
	ret = 0;
out:
	free(h);
	return ret;
}

static int fep_client(struct fep *f)
{
	struct fep_report r = { .magic = FEP_MAGIC, .n = (uint32_t)f->o.n };
	char a[FEP_NAME_MAX], b[FEP_NAME_MAX];
	int32_t verdict = -1;
	uint32_t round = 0;
	double t0;
	int ret = 0;

	if (getrandom(&r.seed, sizeof(r.seed), 0) != sizeof(r.seed))
		r.seed = (uint64_t)getpid() << 32 ^ (uint64_t)fep_wall();
	if (fep_peers(f))
		return -1;
	printf("fi_fep_check: client: process %d: %d endpoints %s .. %s\n",
	       (int)getpid(), f->o.n, fep_str(f, f->ep[0].name, a, sizeof(a)),
	       fep_str(f, f->ep[f->o.n - 1].name, b, sizeof(b)));
	t0 = fep_now();
	if (f->o.x) {
		ret = fep_expect_failure(f);
		r.failed_as_expected = 1;
	} else {
		while (!ret && round < FEP_MAX_ROUNDS - 1 &&
		       (f->o.run_s ? round == 0 || fep_now() - t0 < f->o.run_s :
				     round < (uint32_t)f->o.rounds))
			if (!(ret = fep_round(f, &r, round)) && !round++)
				printf("fi_fep_check: client: round 1 "
				       "done\n");
		r.rounds = round;
	}
	if (ret > 0) {	/* -g: the peer went away, as expected */
		if (fep_probe_gone(f))
			return -1;
		printf("fi_fep_check: client: all ok (the peer went away "
		       "after %u rounds, as expected)\n", round);
		return 0;
	}
	if (f->o.g && !ret)
		FEP_FAIL("client: %u rounds and the peer never went away",
			 round);
	if (ret || f->o.pid >= 0)
		return ret;
	if (fep_oob_send(f, &r, sizeof(r)) ||
	    fep_oob_recv(f, &verdict, sizeof(verdict)))
		return -1;
	if (verdict)
		FEP_FAIL("client: the server found %d failures", verdict);
	if (!f->o.x)
		printf("fi_fep_check: client: all ok (%d endpoints, %u rounds "
		       "of %.1f MiB written and read back and 2 tagged "
		       "messages each, in %.2f s)\n", f->o.n, round,
		       (double)f->off[FEP_REGIONS] * f->o.n / 1048576,
		       fep_now() - t0);
	return 0;
}

/* ---- main ---------------------------------------------------------------- */
static int fep_hold(struct fep *f)
{
	char a[FEP_NAME_MAX];
	double t0 = fep_now();

	for (int i = 0; i < f->o.n; i++)
		printf("fi_fep_check: open: endpoint %d: %s\n", i,
		       fep_str(f, f->ep[i].name, a, sizeof(a)));
	printf("fi_fep_check: open: process %d, uid %u: %d endpoints "
	       "enabled\n", (int)getpid(), (unsigned)getuid(), f->o.n);
	while (fep_now() - t0 < f->o.hold_s) {
		if (fep_progress(f))
			return -1;
		usleep(1000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct fep f = { .oob = -1 };
	int ret = 1;

	if (fep_parse(argc, argv, &f.o))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Regions each start on a page, with untouched bytes after them. */
	for (int k = 0; k < FEP_REGIONS; k++)
		f.off[k + 1] = f.off[k] + ((fep_region_len[k] + 4096) &
					   ~(size_t)4095);
	f.buf_len = f.o.mode == 'c' ? 2 * f.off[FEP_REGIONS] :
				      f.off[FEP_REGIONS];
	f.buf_len += 2 * FEP_MSG_SLOT;
	f.ep = calloc((size_t)f.o.n, sizeof(*f.ep));
	if (!f.ep || fep_domain(&f))
		goto out;
	printf("fi_fep_check: provider %s, mr_mode %#x%s\n",
	       f.info->fabric_attr->prov_name, f.info->domain_attr->mr_mode,
	       f.o.job >= 0 ? ", JobID from auth_key" : "");
	for (int i = 0; i < f.o.n; i++)
		if (fep_ep_open(&f, &f.ep[i], i))
			goto out;
	if (f.o.mode == 's')
		ret = fep_server(&f) ? 1 : 0;
	else if (f.o.mode == 'c')
		ret = fep_client(&f) ? 1 : 0;
	else
		ret = fep_hold(&f) ? 1 : 0;
out:
	fep_close(&f);
	return ret;
}
