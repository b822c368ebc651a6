/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rdmo_check: remote memory operations (<rdma/fi_ext_uet.h>) end to
 * end, in plain libfabric and the provider's extension.
 *
 * The server (the target) registers a queue (its data region and a
 * pointer region) and, for each client, a queue of its own, a scatter
 * region and a second one; it hands their addresses and keys out over a
 * TCP side channel once every client has said hello, lets them start
 * appending together once each has reached it (its first operation, a
 * flush), then only runs the provider and answers what the clients ask
 * it to look at. Each record appended is self-describing
 * (client, sequence number, length, then bytes that follow from the
 * three), so that the server can walk a queue from its start to its
 * pointer.
 *
 * A client:
 *  - appends -N records of 8..256 bytes to the shared queue, -W in flight
 *    without waiting between them; each completion must find its result
 *    (the old pointer) already written;
 *  - scatters: 3 pieces in one packet, FI_UET_RDMO_SCATTER_MAX pieces over
 *    several, and 8 pipelined, over two regions; the server compares both
 *    regions with what the plan says, byte for byte;
 *  - flush: FRD_ROUNDS times, FRD_BATCH appends of up to 4000 bytes (several
 *    packets) to its own queue and a 16 KiB fi_write, none waited for, then
 *    a flush; once only the flush has completed it tells the server, which
 *    checks, before any libfabric call, that the pointer and every byte are
 *    in its memory. In client 1's second round the server closes a region
 *    of its endpoint meanwhile: the RI generation moves, and what arrives
 *    under the old one is refused and sent again;
 *  - refusals: an append with a wrong data key and one with a wrong pointer
 *    key (RC_BAD_MKEY), one that does not fit the queue's end (RC_BAD_ADDR),
 *    and one that exactly fits; a scatter of several packets with one
 *    wrong key, one with one piece past its region: each error completion
 *    carries its UET code in prov_errno, no result is written, and the
 *    server finds no pointer moved and no byte written; FRD_BATCH appends
 *    to the full queue and a flush posted together: the refusals hold the
 *    flush back no time;
 *  - with -x ADDR (an address nobody answers): fi_writemsg with
 *    FI_INJECT_COMPLETE to it until the provider says -FI_EAGAIN (its
 *    operations wait for the address), then appends one after the other
 *    until the operation that call gave back has served again: every
 *    append must still complete only once its result is written;
 *  - sends its results; the server walks the shared queue (every (client,
 *    seq) once, at the offset the client got, nothing past the pointer)
 *    and each client's own queue, and gives each client its verdict.
 * Also: fi_open_ops with another name is -FI_ENOSYS, with flags
 * -FI_EBADFLAGS; every completion is an fi_write's (FI_RMA | FI_WRITE,
 * counted by the write counter, errors as errors); the server's
 * FI_RMA_EVENT counters, its endpoint's and each region's, count an
 * append once on its data region (none on its pointer's), a scatter once
 * per piece, an fi_write once, a refusal not at all.
 *
 * -m va or -m off: FI_MR_VIRT_ADDR offered or not (the pointer then holds
 * addresses or offsets); both sides must run the same.
 *
 * This file: what both sides compute the same, the side channel's
 * transfers, the libfabric set-up and main. The server is in
 * fi_rdmo_check_srv.c and _verify.c, the client in fi_rdmo_check_cli.c
 * and _cli_err.c.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "test/progs/fi_rdmo_check.h"

/* ---- what both sides compute the same ------------------------------------ */
static uint64_t frd_mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* |len| bytes that follow from |seed|. */
void frd_fill(uint8_t *p, size_t len, uint64_t seed)
{
	for (size_t i = 0; i < len; i += 8) {
		uint64_t h = frd_mix(seed ^ (uint64_t)i << 20);

		for (size_t j = 0; j < 8 && i + j < len; j++)
			p[i + j] = (uint8_t)(h >> (8 * j));
	}
}

static uint64_t frd_rec_seed(enum frd_queue q, uint32_t client, uint32_t seq)
{
	return (uint64_t)q << 60 | (uint64_t)client << 40 | seq;
}

/* The length of record |seq| of |client| in queue |q|. */
uint32_t frd_rec_len(enum frd_queue q, uint32_t client, uint32_t seq)
{
	uint64_t h = frd_mix(frd_rec_seed(q, client, seq) ^ 0x1e11);

	if (q == FRD_Q_MAIN)
		return 8 + (uint32_t)(h % (FRD_MAIN_MAX - 7));
	if (seq >= FRD_SHORT_SEQ0)
		return 8;
	return 8 + (uint32_t)(h % (FRD_AUX_MAX - 7));
}

/* Record |seq|: its header, then its bytes; its length returned. */
uint32_t frd_rec_fill(uint8_t *p, enum frd_queue q, uint32_t client,
			     uint32_t seq)
{
	uint32_t len = frd_rec_len(q, client, seq);

	p[0] = FRD_MAGIC;
	p[1] = (uint8_t)client;
	p[2] = (uint8_t)len;
	p[3] = (uint8_t)(len >> 8);
	memcpy(p + 4, &seq, sizeof(seq));
	frd_fill(p + FRD_HDR_LEN, len - FRD_HDR_LEN,
		 frd_rec_seed(q, client, seq));
	return len;
}

/* The data of flush round |r|'s fi_write. */
uint64_t frd_write_seed(uint32_t client, uint32_t r)
{
	return 0x3717eull << 40 | (uint64_t)client << 8 | r;
}

uint64_t frd_scat_seed(uint32_t client, uint32_t s)
{
	return 0x5ca77ull << 40 | (uint64_t)client << 8 | s;
}

/*
 * Scatter 0: 3 pieces in one packet; 1: the most pieces, several packets,
 * in falling order; 2..9: 6 small pieces each, posted together. 0 when
 * the plan fits the regions (less their spare ends).
 */
int frd_scatter_plan(uint32_t client, struct frd_scatter *plan)
{
	static const uint32_t first[3] = { 10, 5, 96 };
	const uint32_t lim[2] = { FRD_SCAT_AREA - FRD_SCAT_SPARE,
				  FRD_SCAT2_LEN - FRD_SCAT_SPARE };
	uint32_t cur[2] = { 0, 0 };

	for (uint32_t s = 0; s < FRD_NSCAT; s++) {
		struct frd_scatter *sc = &plan[s];

		sc->n = s == 0 ? 3 : s == 1 ? FI_UET_RDMO_SCATTER_MAX : 6;
		sc->len = 0;
		for (uint32_t i = 0; i < sc->n; i++) {
			uint64_t h = frd_mix(frd_scat_seed(client, s) << 8 | i);
			struct frd_piece *pc = &sc->pc[i];

			pc->region = i % 3 == 1;
			pc->len = s == 0 ? first[i] :
				  s == 1 ? 100 + (uint32_t)(h % 800) :
				  1 + (uint32_t)(h % 200);
			pc->off = cur[pc->region] + 1 +
				  (uint32_t)(h >> 40) % 13;
			cur[pc->region] = pc->off + pc->len;
			if (cur[pc->region] > lim[pc->region])
				return -1;
			sc->len += pc->len;
		}
		for (uint32_t i = 0; s == 1 && i < sc->n / 2; i++) {
			struct frd_piece t = sc->pc[i];

			sc->pc[i] = sc->pc[sc->n - 1 - i];
			sc->pc[sc->n - 1 - i] = t;
		}
	}
	return 0;
}

/* What the two scatter regions hold once every scatter is in. */
int frd_scatter_image(uint32_t client, uint8_t *img0, uint8_t *img1)
{
	struct frd_scatter plan[FRD_NSCAT];
	uint8_t *data = malloc(FI_UET_RDMO_SCATTER_MAX * 1000);

	if (!data || frd_scatter_plan(client, plan)) {
		free(data);
		return -1;
	}
	memset(img0, 0, FRD_SCAT_AREA);
	memset(img1, 0, FRD_SCAT2_LEN);
	for (uint32_t s = 0; s < FRD_NSCAT; s++) {
		uint64_t pos = 0;

		frd_fill(data, plan[s].len, frd_scat_seed(client, s));
		for (uint32_t i = 0; i < plan[s].n; i++) {
			const struct frd_piece *pc = &plan[s].pc[i];

			memcpy((pc->region ? img1 : img0) + pc->off, data + pos,
			       pc->len);
			pos += pc->len;
		}
	}
	free(data);
	return 0;
}

/* ---- the side channel ---------------------------------------------------- */
/* What the client's STATE messages are about, for the server's lines. */
const char *const frd_case_names[FRD_CASE_COUNT] = {
	"scatters",
	"flush round 1", "flush round 2", "flush round 3", "flush round 4",
	"append with a wrong data key",
	"append with a wrong pointer key",
	"append past the queue's end",
	"append that exactly fills the queue",
	"append to the full queue",
	"scatter with one wrong key",
	"scatter with one piece past its region",
	"appends after an operation refused for FI_INJECT_COMPLETE",
	"appends to the full queue, then a flush",
};
_Static_assert(sizeof(frd_case_names) / sizeof(frd_case_names[0]) ==
	       FRD_CASE_COUNT, "frd_case_names");
_Static_assert(FRD_ROUNDS == 4, "frd_case_names has 4 flush rounds");

int frd_send_all(int fd, const void *buf, size_t len)
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

/* Blocking: the sender sends each message whole. */
int frd_recv_all(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

uint64_t frd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- libfabric set-up ---------------------------------------------------- */
int frd_fab_open(struct frd_fab *f, const struct frd_opts *o)
{
	struct ex_fab_opts fo = {
		.prog = "fi_rdmo_check", .node = o->node, .service = o->service,
		.flags = o->server ? FI_SOURCE : 0, .cq_size = 8192,
		.cq_format = FI_CQ_FORMAT_MSG,
		.cntr = { o->server ? FI_REMOTE_WRITE : FI_WRITE },
	};
	struct fi_info *hints = ex_hints_rdm(EX_RMA_CAPS |
					     (o->server ? FI_RMA_EVENT : 0),
					     FI_CONTEXT | FI_CONTEXT2);
	int ret;

	if (!hints)
		return -1;
	if (!o->va)
		hints->domain_attr->mr_mode &= ~(uint64_t)FI_MR_VIRT_ADDR;
	ret = ex_fab_open(&f->fab, hints, &fo);
	fi_freeinfo(hints);
	if (ret)
		return -1;
	f->va = f->fab.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR;
	if (f->va != o->va) {
		fprintf(stderr, "fi_rdmo_check: asked %s FI_MR_VIRT_ADDR, got "
			"mr_mode %#x\n", o->va ? "for" : "without",
			f->fab.info->domain_attr->mr_mode);
		return -1;
	}
	return 0;
}

/*
 * Registers |len| bytes at |buf| (a page-aligned zeroed one if NULL),
 * with a counter of the remote writes to it when |cntr| is not NULL.
 */
int frd_mr_cntr(struct frd_fab *f, void **buf, size_t len,
		       uint64_t access, struct fid_mr **mr,
		       struct fid_cntr **cntr)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP };
	bool ep = f->fab.info->domain_attr->mr_mode & FI_MR_ENDPOINT;

	if (!*buf) {
		if (posix_memalign(buf, 4096, len))
			return -1;
		memset(*buf, 0, len);
	}
	FRD_CHECK(fi_mr_reg(f->fab.domain, *buf, len, access, 0, 0,
			    cntr ? FI_RMA_EVENT : 0, mr, NULL));
	if (ep)
		FRD_CHECK(fi_mr_bind(*mr, &f->fab.ep->fid, 0));
	if (cntr) {
		FRD_CHECK(fi_cntr_open(f->fab.domain, &attr, cntr, NULL));
		FRD_CHECK(fi_mr_bind(*mr, &(*cntr)->fid, FI_REMOTE_WRITE));
	}
	if (ep || cntr)
		FRD_CHECK(fi_mr_enable(*mr));
	return 0;
}

int frd_mr(struct frd_fab *f, void **buf, size_t len, uint64_t access,
		  struct fid_mr **mr)
{
	return frd_mr_cntr(f, buf, len, access, mr, NULL);
}

void frd_close_cntr(struct fid_cntr *c)
{
	if (c)
		fi_close(&c->fid);
}

/* How peers address |p| in its region: the address, or an offset. */
uint64_t frd_raddr(const struct frd_fab *f, const void *base,
			  size_t off)
{
	return (f->va ? (uint64_t)(uintptr_t)base : 0) + off;
}

int frd_name(struct frd_fab *f, uint8_t *name, uint32_t *len)
{
	size_t n = FRD_NAME_MAX;

	FRD_CHECK(fi_getname(&f->fab.ep->fid, name, &n));
	*len = (uint32_t)n;
	return 0;
}

/* ---- main ---------------------------------------------------------------- */
static const char *frd_usage =
	"usage: fi_rdmo_check -s [-a ADDR] [-n CLIENTS] [-N APPENDS] "
	"[-m va|off] [-p PORT] [-S SVC] [-T SEC]\n"
	"       fi_rdmo_check -c SERVER -k ID [-W WINDOW] [-x ABSENT] "
	"[-m va|off] [-p PORT] [-S SVC] [-T SEC]\n";


static int frd_parse(int argc, char **argv, struct frd_opts *o)
{
	int c;

	*o = (struct frd_opts){ .service = "42", .port = 47935, .clients = 2,
				.n_main = 2000, .window = 64, .va = true,
				.limit_s = 120 };
	while ((c = getopt(argc, argv, "sc:a:n:N:k:W:x:m:p:S:T:h")) != -1) {
		switch (c) {
		case 's': o->server = true; break;
		case 'c': o->node = optarg; break;
		case 'a': o->node = optarg; break;
		case 'n': o->clients = (uint32_t)atoi(optarg); break;
		case 'N': o->n_main = (uint32_t)atoi(optarg); break;
		case 'k': o->id = (uint32_t)atoi(optarg); break;
		case 'W': o->window = (uint32_t)atoi(optarg); break;
		case 'x': o->absent = optarg; break;
		case 'm': o->va = !strcmp(optarg, "va"); break;
		case 'p': o->port = atoi(optarg); break;
		case 'S': o->service = optarg; break;
		case 'T': o->limit_s = (unsigned int)atoi(optarg); break;
		default:
			fprintf(stderr, "%s", frd_usage);
			return -1;
		}
	}
	if ((!o->server && (!o->node || !o->id ||
			    o->id > FRD_CLIENTS_MAX)) ||
	    !o->clients || o->clients > FRD_CLIENTS_MAX || !o->n_main ||
	    o->n_main > FRD_MAIN_N_MAX || !o->window || !o->limit_s) {
		fprintf(stderr, "%s", frd_usage);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct frd_opts o;

	if (frd_parse(argc, argv, &o))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ex_time_limit("fi_rdmo_check", o.limit_s);
	return o.server ? frd_server(&o) : frd_client(&o);
}
