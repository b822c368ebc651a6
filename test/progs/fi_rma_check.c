/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rma_check: the RMA battery of the end-to-end tests (issue 6). The
 * server (fi_rma_check_srv.c) exposes a region between guard bytes and a
 * region without remote write access; the client (fi_rma_check_cli.c)
 * writes, reads and misbehaves, and the server says by checksum what
 * landed and that nothing landed where it must not. Plain libfabric: runs
 * with FI_PROVIDER=uet and, unchanged, with tcp. Here: options, the side
 * channel and main.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "test/progs/fi_rma_check.h"

static const char *frc_usage =
	"usage: fi_rma_check -s [-a ADDR] [-S SERVICE] [-p PORT] [-T SEC] [-R]\n"
	"       fi_rma_check -c SERVER [-S SERVICE] [-p PORT] [-T SEC] [-E]\n"
	"                    [-m battery|bulk|victim] [-B MIB] [-D] [-R]\n"
	"  -E: also expect the UET return codes in prov_errno (uet only)\n"
	"  -D: refused writes ask for FI_DELIVERY_COMPLETE (fi_writemsg)\n"
	"  -R: count remote events (FI_RMA_EVENT; give it to both sides)\n"
	"  -B: bulk mode: MiB to write in 1 MiB writes (default 256)\n"
	"  -T: give up after SEC seconds (default 120)\n";

/* ---- helpers of both sides ---------------------------------------------- */
uint64_t frc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: cheap, and no two seeds alike. */
void frc_pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull | 1, v;

	for (size_t i = 0; i < len; i += sizeof(v)) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		v = x * 0x2545F4914F6CDD1Dull;
		memcpy(buf + i, &v, len - i < sizeof(v) ? len - i : sizeof(v));
	}
}


static int frc_parse(int argc, char **argv, struct frc_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->ex.service = "42";
	o->ex.oob_port = 47931;
	o->ex.size = 1;
	o->ex.iters = 1;
	o->bulk_mib = 256;
	o->limit_s = 120;
	while ((c = getopt(argc, argv, "sc:a:S:p:m:B:T:EDRh")) != -1) {
		switch (c) {
		case 's': o->ex.server = true; break;
		case 'c': o->ex.dst = optarg; break;
		case 'a': o->ex.src = optarg; break;
		case 'S': o->ex.service = optarg; break;
		case 'p': o->ex.oob_port = atoi(optarg); break;
		case 'B': o->bulk_mib = strtoull(optarg, NULL, 0); break;
		case 'T': o->limit_s = (unsigned int)atoi(optarg); break;
		case 'E': o->uet_rc = true; break;
		case 'D': o->refused_dc = true; break;
		case 'R': o->events = o->ex.rma_event = true; break;
		case 'm':
			o->mode = !strcmp(optarg, "bulk") ? FRC_BULK :
				  !strcmp(optarg, "victim") ? FRC_VICTIM :
				  !strcmp(optarg, "battery") ? FRC_BATTERY : -1;
			break;
		default:
			fprintf(stderr, "%s", frc_usage);
			return c == 'h' ? 1 : -1;
		}
	}
	if (o->ex.server == (o->ex.dst != NULL) || (int)o->mode < 0 ||
	    !o->bulk_mib || !o->limit_s) {
		fprintf(stderr, "%s", frc_usage);
		return -1;
	}
	return 0;
}

/*
 * The side channel, on IPv4 or IPv6 as the address says (ex_exchange's is
 * IPv4 only): the server accepts one client within 60 s on a dual-stack
 * socket, the client connects within 10 s.
 */
static int frc_oob_accept(int port)
{
	int fd = ex_tcp_listen(port, 1), cfd = -1;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (fd < 0)
		return -1;
	if (poll(&pfd, 1, 60000) == 1)
		cfd = accept(fd, NULL, NULL);
	close(fd);
	return cfd;
}


int frc_exchange(struct ex_ctx *c, const struct frc_opts *o,
		 struct frc_info *mine, struct frc_info *peer)
{
	size_t name_len = sizeof(mine->name);
	int one = 1, ret = fi_getname(&c->fab.ep->fid, mine->name, &name_len);

	if (ret) {
		fprintf(stderr, "fi_getname: %s\n", fi_strerror(-ret));
		return -1;
	}
	mine->name_len = (uint32_t)name_len;
	c->oob_fd = o->ex.server ? frc_oob_accept(o->ex.oob_port) :
		    ex_tcp_connect(o->ex.dst, o->ex.oob_port);
	if (c->oob_fd < 0) {
		perror("fi_rma_check: side channel");
		return -1;
	}
	/* Commands and replies are small and alternate: no batching. */
	setsockopt(c->oob_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (ex_oob_send(c, mine, sizeof(*mine)) ||
	    ex_oob_recv(c, peer, sizeof(*peer)))
		return -1;
	if (peer->name_len > sizeof(peer->name) ||
	    fi_av_insert(c->fab.av, peer->name, 1, &c->peer, 0, NULL) != 1) {
		fprintf(stderr, "fi_rma_check: fi_av_insert failed\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct frc_opts o;
	int ret = frc_parse(argc, argv, &o);

	if (ret)
		return ret > 0 ? 0 : 2;
	/* Lines, not blocks: the e2e script watches for "victim: writing". */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ex_time_limit("fi_rma_check", o.limit_s);
	return o.ex.server ? frc_server_main(&o) : frc_client_main(&o);
}

