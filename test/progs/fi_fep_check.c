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
 * -e: endpoints (default 16, at most 512); -S: service (uet: PIDonFEP) of
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
 *
 * This file: helpers, options, set-up, completions, the side channel and
 * main; the server is in fi_fep_check_srv.c, the client in
 * fi_fep_check_cli.c.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "examples/ex_common.h"
#include "test/progs/fi_fep_check.h"

const size_t fep_region_len[FEP_REGIONS] = { 1, 4097, 65539,
					     (1u << 20) + 4099 };
const size_t fep_msg_len[2] = { 64, 100000 };
const char *const fep_kind_name[4] = { "fi_write", "fi_read", "fi_tsend",
				       "fi_trecv" };

/* ---- helpers ------------------------------------------------------------- */
double fep_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double fep_wall(void)
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

const char * fep_err_name(int err)
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
void fep_fill(uint8_t *p, size_t len, uint64_t key)
{
	for (size_t q = 0; q < len; q += 8) {
		uint64_t v = fep_mix(key + q);

		memcpy(p + q, &v, len - q < 8 ? len - q : 8);
	}
}

/* The pattern of endpoint |ep|'s region |k| (8 + m: message m), round |r|. */
uint64_t fep_key(uint64_t seed, uint32_t ep, uint32_t k, uint32_t r)
{
	return fep_mix(seed ^ (uint64_t)ep << 48 ^ (uint64_t)k << 40 ^ r);
}

/* What a server buffer holds before any client: its own stream. */
uint64_t fep_virgin_key(uint32_t ep)
{
	return fep_mix(0x5EED0000ull + ep);
}

uint64_t fep_tag(uint32_t ep, uint32_t round, uint32_t which)
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
int fep_getinfo(struct fep *f, const char *service,
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
const char * fep_str(struct fep *f, const void *name, char *buf,
			   size_t len)
{
	size_t l = len;

	if (!fi_av_straddr(f->av, name, buf, &l))
		snprintf(buf, len, "?");
	return buf;
}

/* ---- completions --------------------------------------------------------- */
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
int fep_progress(struct fep *f)
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

/* Waits until no operation of any endpoint is busy, bounded in time. */
int fep_wait(struct fep *f, const char *what)
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
int fep_oob_connect(struct fep *f, int lfd)
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

int fep_oob_send(struct fep *f, const void *buf, size_t len)
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
int fep_oob_recv(struct fep *f, void *buf, size_t len)
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
