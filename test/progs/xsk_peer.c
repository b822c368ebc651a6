/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test peer for the AF_XDP engine, run inside a test's network namespace:
 *   xsk_peer recv IFACE COUNT TIMEOUT_MS [READY_FILE]
 *   xsk_peer send IFACE DST_IP COUNT PAYLOAD_LEN
 * The sender frames COUNT UET packets (a RUD request whose PSN is the
 * sequence number, then a pattern derived from it) to DST_IP, next hop from
 * the kernel's tables. The receiver rebuilds each expected frame from the
 * received headers and PSN and compares every byte; it prints one line
 * "xsk_peer: received N ok M bad B dup D" and exits 0 when B and D are 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "pdc/pdc_hdr.h"
#include "dev/uet_frame.h"
#include "dev/uet_nl.h"
#include "dev/uet_xdp_ctl.h"
#include "dev/uet_xsk.h"
#include "uet_wire.h"

#define PEER_BATCH	64
#define PEER_ENTROPY	0x7e57

static uint64_t peer_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The UDP payload of packet |seq|: a RUD request, then a pattern. */
static void peer_payload(uint8_t *p, uint32_t len, uint32_t seq)
{
	struct pdc_req req = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_NONE, 0 },
		.psn = seq, .spdcid = 1, .dpdcid = 1,
	};

	pdc_req_encode(p, len, &req);
	for (uint32_t i = UET_PDS_RUD_REQ_LEN; i < len; i++)
		p[i] = (uint8_t)(seq * 31 + i * 7);
}

static struct uet_xsk *peer_engine(const char *ifname, bool multi_buf)
{
	struct uet_xsk_cfg cfg = { .ring_size = 1024, .multi_buf = multi_buf };
	struct uet_xdp_maps maps;
	struct uet_xsk *x;
	int ret;

	cfg.ifindex = (int)if_nametoindex(ifname);
	ret = uet_xdp_maps_open(ifname, &maps);
	if (ret < 0) {
		fprintf(stderr, "xsk_peer: %s: XDP maps: %s\n", ifname,
			strerror(-ret));
		exit(1);
	}
	cfg.xsks_map_fd = maps.xsks;
	x = uet_xsk_create(&cfg);
	uet_xdp_maps_close(&maps);
	if (!x) {
		fprintf(stderr, "xsk_peer: %s: engine: %m\n", ifname);
		exit(1);
	}
	return x;
}

/* Flattens a frame into |buf| (frames may span several chunks). */
static uint32_t peer_flatten(const struct uet_xsk_frame *f, uint8_t *buf)
{
	uint32_t off = 0;

	for (uint32_t i = 0; i < f->nsegs; i++) {
		memcpy(buf + off, f->seg[i], f->seg_len[i]);
		off += f->seg_len[i];
	}
	return off;
}

/* 0 when |frame| is exactly what the sender built for its PSN. */
static int peer_check(const uint8_t *frame, uint32_t len, uint32_t *seq)
{
	static uint8_t want[UET_XSK_FRAME_MAX];
	struct uet_frame_info info;
	struct pdc_req req;

	if (uet_frame_decode(&info, frame, len, len) < 0 ||
	    info.hdr_len + info.payload_len != len ||
	    pdc_req_decode(&req, frame + info.hdr_len, info.payload_len) < 0)
		return -1;
	*seq = req.psn;
	if (uet_frame_encode(want, sizeof(want), &info.src, &info.dst,
			     info.payload_len) != info.hdr_len)
		return -1;
	peer_payload(want + info.hdr_len, info.payload_len, req.psn);
	return memcmp(want, frame, len) ? -1 : 0;
}

static int peer_recv(const char *ifname, uint32_t count, uint64_t timeout_ms,
		     const char *ready_file)
{
	static uint8_t flat[UET_XSK_FRAME_MAX];
	struct uet_xsk_frame frames[PEER_BATCH];
	uint64_t deadline = peer_now_ns() + timeout_ms * 1000000ull;
	uint32_t got = 0, ok = 0, bad = 0, dup = 0;
	uint8_t *seen = calloc(count ? count : 1, 1);
	struct uet_xsk *x = peer_engine(ifname, true);
	struct pollfd pfd = { .fd = uet_xsk_fd(x), .events = POLLIN };
	struct uet_xsk_stats st = { .rx_frames = 0 };

	if (ready_file) {
		FILE *f = fopen(ready_file, "w");

		if (f)
			fclose(f);
	}
	while (got < count && peer_now_ns() < deadline) {
		uint32_t n = uet_xsk_rx_burst(x, frames, PEER_BATCH);

		if (!n) {
			poll(&pfd, 1, 10);
			continue;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t len = peer_flatten(&frames[i], flat), seq = 0;

			got++;
			if (peer_check(flat, len, &seq) < 0)
				bad++;
			else if (seq >= count || seen[seq]++)
				dup++;
			else
				ok++;
		}
		uet_xsk_rx_release(x, frames, n);
	}
	if (uet_xsk_stats_read(x, &st) == 0)
		fprintf(stderr, "xsk_peer: engine rx_frames %llu rx_dropped %llu "
			"fill_ring_empty %llu rx_ring_full %llu\n",
			(unsigned long long)st.rx_frames,
			(unsigned long long)st.rx_dropped,
			(unsigned long long)st.rx_fill_ring_empty_descs,
			(unsigned long long)st.rx_ring_full);
	if (st.rx_frames != got)
		bad++;		/* the engine's count must agree with ours */
	printf("xsk_peer: received %u ok %u bad %u dup %u\n", got, ok, bad, dup);
	uet_xsk_destroy(x);
	free(seen);
	return bad || dup ? 1 : 0;
}

/* Source and destination of the flow to |dst_ip|, from the kernel. */
static void peer_flow(const char *ifname, const char *dst_ip,
		      struct uet_frame_addr *src, struct uet_frame_addr *dst)
{
	struct uet_nl_route rt;
	int ret;

	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	dst->is_v6 = src->is_v6 = strchr(dst_ip, ':') != NULL;
	if (inet_pton(dst->is_v6 ? AF_INET6 : AF_INET, dst_ip, &dst->v6) != 1) {
		fprintf(stderr, "xsk_peer: bad address %s\n", dst_ip);
		exit(2);
	}
	ret = uet_nl_resolve(&dst->v6, dst->is_v6, 5000, &rt);
	if (ret < 0 || !rt.has_src ||
	    rt.ifindex != (int)if_nametoindex(ifname)) {
		fprintf(stderr, "xsk_peer: no usable route to %s: %s\n",
			dst_ip, ret < 0 ? strerror(-ret) : "wrong interface");
		exit(1);
	}
	memcpy(dst->mac, rt.mac, 6);
	memcpy(&src->v6, &rt.src, sizeof(rt.src));
	uet_nl_if_mac(rt.ifindex, src->mac);
	src->port = PEER_ENTROPY;
	dst->port = UET_UDP_PORT;
}

static int peer_send(const char *ifname, const char *dst_ip, uint32_t count,
		     uint32_t payload_len)
{
	struct uet_frame_addr src, dst;
	struct uet_xsk *x = peer_engine(ifname, true);
	uint64_t deadline = peer_now_ns() + 30ull * 1000000000ull;
	uint32_t hdr_len, sent = 0;
	static uint8_t frame[UET_XSK_FRAME_MAX];

	peer_flow(ifname, dst_ip, &src, &dst);
	hdr_len = (uint32_t)uet_frame_hdr_len(dst.is_v6);
	if (hdr_len + payload_len > uet_xsk_frame_max(x)) {
		fprintf(stderr, "xsk_peer: frame too large\n");
		return 2;
	}
	while (sent < count && peer_now_ns() < deadline) {
		struct uet_xsk_frame f;
		uint32_t len = hdr_len + payload_len;

		if (uet_xsk_tx_alloc(x, len, &f) < 0) {
			uet_xsk_tx_kick(x);
			continue;
		}
		uet_frame_encode(frame, sizeof(frame), &src, &dst, payload_len);
		peer_payload(frame + hdr_len, payload_len, sent);
		uet_xsk_frame_write(&f, 0, frame, len);
		if (uet_xsk_tx_submit(x, &f, len) < 0) {
			uet_xsk_tx_free(x, &f);
			uet_xsk_tx_kick(x);
			continue;
		}
		if (++sent % PEER_BATCH == 0) {
			/* Pace: let the receiver keep up (losses would blur
			 * what the tests measure). */
			uet_xsk_tx_kick(x);
			while (uet_xsk_tx_outstanding(x) > 2 * PEER_BATCH &&
			       peer_now_ns() < deadline)
				uet_xsk_tx_kick(x);
			nanosleep(&(struct timespec){ 0, 200000 }, NULL);
		}
	}
	while (uet_xsk_tx_outstanding(x) && peer_now_ns() < deadline)
		uet_xsk_tx_kick(x);
	printf("xsk_peer: sent %u\n", sent);
	uet_xsk_destroy(x);
	return sent == count ? 0 : 1;
}

static int peer_libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			     va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(int argc, char **argv)
{
	libbpf_set_print(peer_libbpf_quiet);
	if (argc >= 5 && !strcmp(argv[1], "recv"))
		return peer_recv(argv[2], (uint32_t)strtoul(argv[3], NULL, 0),
				 strtoull(argv[4], NULL, 0),
				 argc > 5 ? argv[5] : NULL);
	if (argc == 6 && !strcmp(argv[1], "send"))
		return peer_send(argv[2], argv[3],
				 (uint32_t)strtoul(argv[4], NULL, 0),
				 (uint32_t)strtoul(argv[5], NULL, 0));
	fprintf(stderr, "usage: xsk_peer recv IFACE COUNT TIMEOUT_MS [READY]\n"
			"       xsk_peer send IFACE DST_IP COUNT PAYLOAD_LEN\n");
	return 2;
}
