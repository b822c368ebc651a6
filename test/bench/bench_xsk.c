/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One-way AF_XDP throughput between two namespaces, through the engine
 * (dev/uet_xsk.c) or through a bare loop on libxdp's ring helpers, so the
 * engine's overhead shows against the same substrate in the same run.
 *   bench_xsk rx IFACE SECONDS engine|bare
 *   bench_xsk tx IFACE DST_IP SECONDS PAYLOAD engine|bare
 * The receiver prints "rx FRAMES PAYLOAD_BYTES NS" for the frames that
 * arrived between its first frame and SECONDS later.
 * And the floor of a ping-pong (bare loop only): the client sends a frame
 * and waits for the one the server sends back on receiving it, ITERS times,
 * and prints "pingpong median half round trip NS ns"; both busy-poll.
 * With TURN frames (default 1) each side sends that many frames in one
 * kick and waits for as many: 2 is the floor of a reliable protocol whose
 * every turn carries an answer and the ACK of the last one.
 * The rings drop a frame now and then on a loaded machine and nothing here
 * resends, so every turn carries a number (the payload's last 4 bytes) that
 * its answer echoes: a turn unanswered within PP_WAIT_NS is started again
 * under a new number (its time not counted; answers to old numbers are
 * ignored), at most ITERS / 100 + 10 times in a run, then the client fails.
 * The server stops once no frame came for SECONDS.
 *   bench_xsk pong IFACE DST_IP SECONDS PAYLOAD [TURN]
 *   bench_xsk ping IFACE DST_IP ITERS PAYLOAD [TURN]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <xdp/xsk.h>
#include <bpf/libbpf.h>

#include "pdc/pdc_hdr.h"
#include "dev/uet_frame.h"
#include "dev/uet_nl.h"
#include "dev/uet_xdp_ctl.h"
#include "dev/uet_xsk.h"

#define BATCH		64
#define FRAMES		4096
#define RING		1024
#define PP_WAIT_NS	50000000ull	/* a turn's answer: longer than a
					 * scheduler's tick or two */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int xsks_map(const char *ifname)
{
	struct uet_xdp_maps m;
	int fd;

	if (uet_xdp_maps_open(ifname, &m) < 0) {
		fprintf(stderr, "bench_xsk: %s: XDP program not loaded\n",
			ifname);
		exit(1);
	}
	fd = dup(m.xsks);
	uet_xdp_maps_close(&m);
	return fd;
}

/* ---- the bare loop: libxdp rings, nothing else -------------------------- */
struct bare {
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq, tx;
	struct xsk_ring_cons cq, rx;
	uint8_t *area;
	uint64_t free_addr[FRAMES / 2];
	uint32_t nfree;
};

static void bare_open(struct bare *b, const char *ifname)
{
	struct xsk_umem_config ucfg = { .fill_size = FRAMES / 2,
					.comp_size = FRAMES / 2,
					.frame_size = UET_XSK_CHUNK_LEN };
	struct xsk_socket_config scfg = {
		.rx_size = RING, .tx_size = RING,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP | XDP_COPY | XDP_USE_SG,
	};
	size_t len = (size_t)FRAMES * UET_XSK_CHUNK_LEN;
	uint32_t idx = 0;
	int map = xsks_map(ifname);

	int ret = -ENOMEM;

	b->area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (b->area != MAP_FAILED)
		ret = xsk_umem__create(&b->umem, b->area, len, &b->fq, &b->cq,
				       &ucfg);
	/* The device service stopped a moment ago may still hold queue 0
	 * (the kernel releases a socket's pool later): up to a second. */
	for (int tries = 1; ret == 0; tries++) {
		ret = xsk_socket__create(&b->xsk, ifname, 0, b->umem, &b->rx,
					 &b->tx, &scfg);
		if (ret != -EBUSY || tries == 50)
			break;
		ret = 0;
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	if (ret || xsk_socket__update_xskmap(b->xsk, map)) {
		errno = ret < 0 ? -ret : errno;
		fprintf(stderr, "bench_xsk: bare socket: %m\n");
		exit(1);
	}
	xsk_ring_prod__reserve(&b->fq, FRAMES / 2, &idx);
	for (uint32_t i = 0; i < FRAMES / 2; i++)
		*xsk_ring_prod__fill_addr(&b->fq, idx + i) =
			(uint64_t)i * UET_XSK_CHUNK_LEN;
	xsk_ring_prod__submit(&b->fq, FRAMES / 2);
	for (uint32_t i = 0; i < FRAMES / 2; i++)
		b->free_addr[i] = (uint64_t)(FRAMES / 2 + i) * UET_XSK_CHUNK_LEN;
	b->nfree = FRAMES / 2;
}

/* Receives for |ns| after the first frame; returns frames, sets bytes. */
static uint64_t bare_rx(struct bare *b, uint64_t ns, uint64_t *bytes,
			uint64_t *elapsed)
{
	uint64_t frames = 0, start = 0, t = 0;
	uint32_t idx = 0, fidx = 0;

	while (!start || (t = now_ns()) - start < ns) {
		uint32_t n = xsk_ring_cons__peek(&b->rx, BATCH, &idx);

		if (!n) {
			if (xsk_ring_prod__needs_wakeup(&b->fq))
				recvfrom(xsk_socket__fd(b->xsk), NULL, 0,
					 MSG_DONTWAIT, NULL, NULL);
			continue;
		}
		if (!start)
			start = now_ns();
		xsk_ring_prod__reserve(&b->fq, n, &fidx);
		for (uint32_t i = 0; i < n; i++) {
			const struct xdp_desc *d =
				xsk_ring_cons__rx_desc(&b->rx, idx + i);

			*bytes += d->len;
			frames += !(d->options & XDP_PKT_CONTD);
			*xsk_ring_prod__fill_addr(&b->fq, fidx + i) =
				d->addr & ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
		}
		xsk_ring_prod__submit(&b->fq, n);
		xsk_ring_cons__release(&b->rx, n);
	}
	*elapsed = t - start;
	return frames;
}

static void bare_tx(struct bare *b, const uint8_t *frame, uint32_t len,
		    uint64_t ns)
{
	uint32_t segs = (len + UET_XSK_CHUNK_LEN - 1) / UET_XSK_CHUNK_LEN;
	uint64_t end = now_ns() + ns;
	uint32_t idx = 0;

	while (now_ns() < end) {
		uint32_t n = xsk_ring_cons__peek(&b->cq, FRAMES / 2, &idx);
		uint32_t want = BATCH * segs;

		for (uint32_t i = 0; i < n; i++)
			b->free_addr[b->nfree++] =
				*xsk_ring_cons__comp_addr(&b->cq, idx + i);
		xsk_ring_cons__release(&b->cq, n);
		if (b->nfree < want ||
		    xsk_ring_prod__reserve(&b->tx, want, &idx) != want) {
			sendto(xsk_socket__fd(b->xsk), NULL, 0, MSG_DONTWAIT,
			       NULL, 0);
			continue;
		}
		for (uint32_t i = 0; i < want; i++) {
			struct xdp_desc *d = xsk_ring_prod__tx_desc(&b->tx,
								     idx + i);
			uint32_t s = i % segs, off = s * UET_XSK_CHUNK_LEN;
			uint32_t l = len - off < UET_XSK_CHUNK_LEN ?
				     len - off : UET_XSK_CHUNK_LEN;

			d->addr = b->free_addr[--b->nfree];
			memcpy(b->area + d->addr, frame + off, l);
			d->len = l;
			d->options = s + 1 < segs ? XDP_PKT_CONTD : 0;
		}
		xsk_ring_prod__submit(&b->tx, want);
		sendto(xsk_socket__fd(b->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0);
	}
}

/* Sends |turn| copies of |frame| (one chunk), numbered |seq|, in one kick,
 * at once. */
static void bare_send_turn(struct bare *b, const uint8_t *frame, uint32_t len,
			   uint32_t turn, uint32_t seq)
{
	uint32_t idx = 0, n = xsk_ring_cons__peek(&b->cq, FRAMES / 2, &idx);
	struct xdp_desc *d;

	for (uint32_t i = 0; i < n; i++)
		b->free_addr[b->nfree++] = *xsk_ring_cons__comp_addr(&b->cq,
								      idx + i);
	xsk_ring_cons__release(&b->cq, n);
	if (b->nfree < turn || xsk_ring_prod__reserve(&b->tx, turn, &idx) !=
	    turn) {
		fprintf(stderr, "bench_xsk: no tx room\n");
		exit(1);
	}
	for (uint32_t i = 0; i < turn; i++) {
		d = xsk_ring_prod__tx_desc(&b->tx, idx + i);
		d->addr = b->free_addr[--b->nfree];
		memcpy(b->area + d->addr, frame, len);
		memcpy(b->area + d->addr + len - sizeof(seq), &seq,
		       sizeof(seq));
		d->len = len;
		d->options = 0;
	}
	xsk_ring_prod__submit(&b->tx, turn);
	sendto(xsk_socket__fd(b->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0);
}

/* Waits (busy) for one frame, up to |until|; true when one came, its
 * number in |seq| (0 for one too short to carry it). */
static bool bare_recv_one(struct bare *b, uint64_t until, uint32_t *seq)
{
	uint32_t idx = 0, fidx = 0;
	const struct xdp_desc *d;

	while (xsk_ring_cons__peek(&b->rx, 1, &idx) != 1)
		if (now_ns() > until)
			return false;
	d = xsk_ring_cons__rx_desc(&b->rx, idx);
	*seq = 0;
	if (d->len >= sizeof(*seq))
		memcpy(seq, b->area + d->addr + d->len - sizeof(*seq),
		       sizeof(*seq));
	xsk_ring_prod__reserve(&b->fq, 1, &fidx);
	*xsk_ring_prod__fill_addr(&b->fq, fidx) =
		d->addr & ~(uint64_t)(UET_XSK_CHUNK_LEN - 1);
	xsk_ring_prod__submit(&b->fq, 1);
	xsk_ring_cons__release(&b->rx, 1);
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Waits (busy) for the |turn| frames numbered |seq|, up to |until|,
 * skipping the answers to turns started again; true when they came. */
static bool bare_recv_turn(struct bare *b, uint64_t until, uint32_t turn,
			   uint32_t seq)
{
	uint32_t got = 0, s;

	while (got < turn) {
		if (!bare_recv_one(b, until, &s))
			return false;
		got += s == seq;
	}
	return true;
}

/* The server: answers a turn once |turn| frames of one number came, with
 * that number, until no frame came for |idle_ns|. A frame of a newer
 * number starts its count again: its turn's missing frame was lost. */
static int bare_pong(struct bare *b, const uint8_t *frame, uint32_t len,
		     uint64_t idle_ns, uint32_t turn)
{
	uint32_t seq, cur = 0, got = 0;

	while (bare_recv_one(b, now_ns() + idle_ns, &seq)) {
		if (seq != cur)
			cur = seq, got = 0;
		if (++got == turn) {
			bare_send_turn(b, frame, len, turn, cur);
			got = 0;
		}
	}
	return 0;
}

static int bare_pingpong(struct bare *b, const uint8_t *frame, uint32_t len,
			 bool ping, uint64_t n, uint32_t turn)
{
	uint64_t *rtt, again = 0, max_again = n / 100 + 10;
	uint32_t seq = 0;

	if (!ping)	/* |n| seconds without a frame end it */
		return bare_pong(b, frame, len, n * 1000000000ull, turn);
	rtt = calloc(n, sizeof(*rtt));
	if (!rtt)
		return 1;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t t0 = now_ns();

		bare_send_turn(b, frame, len, turn, ++seq);
		if (!bare_recv_turn(b, t0 + PP_WAIT_NS, turn, seq)) {
			if (++again > max_again) {
				fprintf(stderr, "bench_xsk: no answer to "
					"%llu turns\n",
					(unsigned long long)again);
				return 1;
			}
			i--;	/* this turn again, under a new number */
			continue;
		}
		rtt[i] = now_ns() - t0;
	}
	qsort(rtt, n, sizeof(*rtt), cmp_u64);
	printf("pingpong median half round trip %llu ns (%llu turns started "
	       "again)\n", (unsigned long long)rtt[n / 2] / 2,
	       (unsigned long long)again);
	return 0;
}

/* ---- the engine ---------------------------------------------------------- */
static struct uet_xsk *engine_open(const char *ifname)
{
	struct uet_xsk_cfg cfg = { .frame_cnt = FRAMES, .ring_size = RING,
				   .multi_buf = true };
	struct uet_xsk *x;

	cfg.ifindex = (int)if_nametoindex(ifname);
	cfg.xsks_map_fd = xsks_map(ifname);
	x = uet_xsk_create(&cfg);
	if (!x) {
		fprintf(stderr, "bench_xsk: engine: %m\n");
		exit(1);
	}
	return x;
}

static uint64_t engine_rx(struct uet_xsk *x, uint64_t ns, uint64_t *bytes,
			  uint64_t *elapsed)
{
	struct uet_xsk_frame f[BATCH];
	uint64_t frames = 0, start = 0, t = 0;

	while (!start || (t = now_ns()) - start < ns) {
		uint32_t n = uet_xsk_rx_burst(x, f, BATCH);

		if (!n)
			continue;
		if (!start)
			start = now_ns();
		for (uint32_t i = 0; i < n; i++)
			*bytes += f[i].len;
		frames += n;
		uet_xsk_rx_release(x, f, n);
	}
	*elapsed = t - start;
	return frames;
}

static void engine_tx(struct uet_xsk *x, const uint8_t *frame, uint32_t len,
		      uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end) {
		for (int i = 0; i < BATCH; i++) {
			struct uet_xsk_frame f;

			if (uet_xsk_tx_alloc(x, len, &f) < 0)
				break;
			uet_xsk_frame_write(&f, 0, frame, len);
			if (uet_xsk_tx_submit(x, &f, len) < 0) {
				uet_xsk_tx_free(x, &f);
				break;
			}
		}
		uet_xsk_tx_kick(x);
	}
}

/* A UET frame to |dst_ip|: headers from the kernel's tables, RUD request. */
static uint32_t build_frame(uint8_t *frame, const char *dst_ip,
			    uint32_t payload)
{
	struct uet_frame_addr src = { .port = 0x5eed }, dst = {
		.port = 4793 };
	struct pdc_req req = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_NONE, 0 },
		.psn = 1, .spdcid = 1, .dpdcid = 1,
	};
	struct uet_nl_route rt;
	ssize_t hl;

	inet_pton(AF_INET, dst_ip, &dst.v4);
	if (uet_nl_resolve(&dst.v4, false, 5000, &rt) < 0 || !rt.has_src) {
		fprintf(stderr, "bench_xsk: no route to %s\n", dst_ip);
		exit(1);
	}
	memcpy(dst.mac, rt.mac, 6);
	src.v4 = rt.src.v4;
	uet_nl_if_mac(rt.ifindex, src.mac);
	hl = uet_frame_encode(frame, UET_XSK_FRAME_MAX, &src, &dst, payload);
	pdc_req_encode(frame + hl, payload, &req);
	return (uint32_t)hl + payload;
}

static int quiet(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l, (void)f, (void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t frame[UET_XSK_FRAME_MAX];
	uint64_t bytes = 0, elapsed = 0, frames;
	bool bare_mode;

	libbpf_set_print(quiet);
	if (argc == 5 && !strcmp(argv[1], "rx")) {
		uint64_t ns = strtoull(argv[3], NULL, 0) * 1000000000ull;
		struct bare b;

		bare_mode = !strcmp(argv[4], "bare");
		if (bare_mode) {
			bare_open(&b, argv[2]);
			printf("ready\n");
			fflush(stdout);
			frames = bare_rx(&b, ns, &bytes, &elapsed);
		} else {
			struct uet_xsk *x = engine_open(argv[2]);

			printf("ready\n");
			fflush(stdout);
			frames = engine_rx(x, ns, &bytes, &elapsed);
		}
		printf("rx %llu %llu %llu\n", (unsigned long long)frames,
		       (unsigned long long)bytes, (unsigned long long)elapsed);
		return 0;
	}
	if (argc == 7 && !strcmp(argv[1], "tx")) {
		uint64_t ns = strtoull(argv[4], NULL, 0) * 1000000000ull;
		uint32_t len = build_frame(frame, argv[3],
					   (uint32_t)strtoul(argv[5], NULL, 0));
		struct bare b;

		if (!strcmp(argv[6], "bare")) {
			bare_open(&b, argv[2]);
			bare_tx(&b, frame, len, ns);
		} else {
			engine_tx(engine_open(argv[2]), frame, len, ns);
		}
		return 0;
	}
	if ((argc == 6 || argc == 7) && (!strcmp(argv[1], "ping") ||
					 !strcmp(argv[1], "pong"))) {
		uint32_t len = build_frame(frame, argv[3],
					   (uint32_t)strtoul(argv[5], NULL, 0));
		uint32_t turn = argc == 7 ?
				(uint32_t)strtoul(argv[6], NULL, 0) : 1;
		struct bare b;

		if (len > UET_XSK_CHUNK_LEN || turn < 1 || turn > 16)
			return 2;
		bare_open(&b, argv[2]);
		printf("ready\n");
		fflush(stdout);
		return bare_pingpong(&b, frame, len, argv[1][1] == 'i',
				     strtoull(argv[4], NULL, 0), turn);
	}
	fprintf(stderr, "usage: bench_xsk rx IFACE SECONDS engine|bare\n"
		"       bench_xsk tx IFACE DST SECONDS PAYLOAD engine|bare\n"
		"       bench_xsk pong IFACE DST SECONDS PAYLOAD [TURN]\n"
		"       bench_xsk ping IFACE DST ITERS PAYLOAD [TURN]\n");
	return 2;
}
