/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uet_port_udp: UDP traffic for the switch-port model's test. send paces
 * datagrams of one size and TOS byte (DSCP and ECN) at a rate; recv counts
 * what arrives by source, TOS byte and length (IP_RECVTOS), which shows
 * marks and trims as the receiver sees them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define UPU_MAX_KINDS	64
#define UPU_FRAME_HDRS	42	/* Ethernet, IPv4, UDP: 14 + 20 + 8 */
#define UPU_RCVBUF	(4 << 20)

static const char upu_usage[] =
	"usage: uet_port_udp send DST PORT [--tos T] [--size BYTES]\n"
	"                    [--rate MBIT] [--seconds S] [--count N]\n"
	"       uet_port_udp recv PORT [--idle MS] [--seconds S]\n"
	"send: --rate 0 (the default) sends as fast as it can; it stops after\n"
	"S seconds (default 1) or N datagrams, prints \"sent N failed F\"\n"
	"(F: sends that failed, ENOBUFS or an ICMP error, each lost) and the\n"
	"first failure's reason on stderr.\n"
	"recv: prints \"ready\", then after MS ms without a datagram (default\n"
	"500; once one came) or S seconds (default 30) one line per kind:\n"
	"\"from ADDR tos T len L n N\" (T in hex, L the UDP payload).\n";

struct upu_args {
	const char *dst;
	unsigned long port, tos, size, count, idle_ms;
	double rate_mbit, seconds;
};

/* One kind of datagram received, and how many. */
struct upu_kind {
	struct in_addr from;
	unsigned int tos;
	size_t len;
	unsigned long n;
};

static int upu_usage_error(const char *msg)
{
	fprintf(stderr, "uet_port_udp: %s\n%s", msg, upu_usage);
	return 2;
}

static double upu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void upu_sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t };

	ts.tv_nsec = (long)((t - ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static int upu_send(const struct upu_args *a)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	double start, gap = 0, next;
	unsigned long sent = 0, failed = 0;
	int fd, tos = a->tos, first_err = 0;
	char *buf;

	sa.sin_port = htons(a->port);
	if (inet_pton(AF_INET, a->dst, &sa.sin_addr) != 1)
		return upu_usage_error("DST is an IPv4 address");
	buf = calloc(1, a->size ? a->size : 1);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (!buf || fd < 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("uet_port_udp send");
		return 1;
	}
	/* a frame's time on the wire at the rate, headers counted */
	if (a->rate_mbit > 0)
		gap = (a->size + UPU_FRAME_HDRS) * 8 / (a->rate_mbit * 1e6);
	start = next = upu_now();
	while ((!a->count || sent < a->count) &&
	       upu_now() - start < a->seconds) {
		if (gap > 0) {
			upu_sleep_until(next);
			next += gap;
		}
		/* ENOBUFS and ICMP errors: the datagram is lost, go on */
		if (send(fd, buf, a->size, 0) == (ssize_t)a->size) {
			sent++;
		} else {
			failed++;
			if (!first_err)
				first_err = errno;
		}
	}
	printf("sent %lu failed %lu\n", sent, failed);
	if (failed)
		fprintf(stderr, "uet_port_udp send: %lu sends failed, the first: "
			"%s\n", failed, strerror(first_err));
	close(fd);
	free(buf);
	return 0;
}

/* The TOS byte of a datagram, from its IP_TOS control message; 256: none. */
static unsigned int upu_tos(struct msghdr *mh)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
			return *(unsigned char *)CMSG_DATA(c);
	return 256;
}

static void upu_note(struct upu_kind *k, int *nk, struct in_addr from,
		     unsigned int tos, size_t len)
{
	int i;

	for (i = 0; i < *nk; i++)
		if (k[i].from.s_addr == from.s_addr && k[i].tos == tos &&
		    k[i].len == len)
			break;
	if (i == *nk) {
		if (*nk == UPU_MAX_KINDS)
			return;
		k[i] = (struct upu_kind){ .from = from, .tos = tos,
					  .len = len };
		(*nk)++;
	}
	k[i].n++;
}

/* A UDP socket bound to |port| that reports each datagram's TOS byte. */
static int upu_recv_socket(unsigned long port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd, on = 1, rcvbuf = UPU_RCVBUF;

	sa.sin_port = htons(port);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	/* room for a while of traffic should the machine stall us; above
	 * rmem_max only for root, hence the fallback */
	if (setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &on, sizeof(on)) ||
	    (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
			sizeof(rcvbuf)) &&
	     setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int upu_recv(const struct upu_args *a)
{
	static char buf[65536];
	struct upu_kind kinds[UPU_MAX_KINDS];
	double end = upu_now() + a->seconds;
	int fd, nk = 0, i;
	bool got = false;

	fd = upu_recv_socket(a->port);
	if (fd < 0) {
		perror("uet_port_udp recv");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (upu_now() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct sockaddr_in from;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		ssize_t n;

		if (poll(&p, 1, got ? a->idle_ms : 100) == 0 && got)
			break;
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0)
			continue;
		got = true;
		upu_note(kinds, &nk, from.sin_addr, upu_tos(&mh), n);
	}
	for (i = 0; i < nk; i++)
		printf("from %s tos 0x%02x len %zu n %lu\n",
		       inet_ntoa(kinds[i].from), kinds[i].tos, kinds[i].len,
		       kinds[i].n);
	close(fd);
	return 0;
}

static const struct option upu_opts[] = {
	{ "tos", required_argument, NULL, 't' },
	{ "size", required_argument, NULL, 's' },
	{ "rate", required_argument, NULL, 'r' },
	{ "seconds", required_argument, NULL, 'S' },
	{ "count", required_argument, NULL, 'c' },
	{ "idle", required_argument, NULL, 'i' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Returns 0, 1 for --help shown, 2 for a usage error. */
static int upu_parse(int argc, char **argv, bool send, struct upu_args *a)
{
	char *end;
	int c;

	optind = 2;
	while ((c = getopt_long(argc, argv, "h", upu_opts, NULL)) != -1) {
		errno = 0;
		switch (c) {
		case 'h': printf("%s", upu_usage); return 1;
		case 't': a->tos = strtoul(optarg, &end, 0); break;
		case 's': a->size = strtoul(optarg, &end, 0); break;
		case 'r': a->rate_mbit = strtod(optarg, &end); break;
		case 'S': a->seconds = strtod(optarg, &end); break;
		case 'c': a->count = strtoul(optarg, &end, 0); break;
		case 'i': a->idle_ms = strtoul(optarg, &end, 0); break;
		default: return upu_usage_error("bad option");
		}
		if (errno || *end || end == optarg)
			return upu_usage_error("a bad number");
	}
	if (a->tos > 255 || a->size > 65507 || a->rate_mbit < 0 ||
	    !(a->seconds > 0) || a->idle_ms < 1)
		return upu_usage_error("a number out of range");
	if (optind + (send ? 2 : 1) != argc)
		return upu_usage_error(send ? "DST and PORT are required" :
					      "PORT is required");
	a->dst = send ? argv[optind++] : NULL;
	a->port = strtoul(argv[optind], &end, 10);
	if (*end || a->port < 1 || a->port > 65535)
		return upu_usage_error("PORT is 1..65535");
	return 0;
}

int main(int argc, char **argv)
{
	struct upu_args a = { .size = 1000, .seconds = 1, .idle_ms = 500 };
	bool send;
	int ret;

	if (argc < 2 || (strcmp(argv[1], "send") && strcmp(argv[1], "recv")))
		return upu_usage_error("the verb is send or recv");
	send = !strcmp(argv[1], "send");
	if (!send)
		a.seconds = 30;
	ret = upu_parse(argc, argv, send, &a);
	if (ret)
		return ret == 1 ? 0 : ret;
	return send ? upu_send(&a) : upu_recv(&a);
}
