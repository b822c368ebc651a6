// SPDX-License-Identifier: BSD-2-Clause
/*
 * TSS replay protection with many more senders than a receiver's stream
 * table holds (issue 40): N sender streams (each its own SSI, epoch and
 * address, cluster mode) seal 3 packets each to one receiving endpoint,
 * which opens them all; then every packet is sent again, the oldest
 * streams' first. Printed: the share of replays accepted (0 is the only
 * right answer: evicted streams meet their floor, the others their
 * window), and what a receiver pays per packet for a stream's first
 * packet (its key derived, perhaps an eviction) and per refused replay,
 * at 1200 and 100000 streams.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tss/uet_tss_ep.h"

#include "test/bench/bench_stats.h"

#define R_PL		64	/* plaintext bytes of each packet */
#define R_PKTS		3	/* packets per stream */

struct r_wire {
	uint8_t buf[R_PL + UET_TSS_OVERHEAD];
	uint16_t len;
	uint8_t saddr[4];
	uint16_t sport;
};

static const uint8_t r_daddr[4] = { 10, 255, 0, 1 };

static void die(const char *what)
{
	fprintf(stderr, "bench_tss_replay: %s\n", what);
	exit(1);
}

static void r_keys(struct uet_tss_sd_keys *k, uint32_t ssi, uint16_t epoch)
{
	memset(k, 0, sizeof(*k));
	k->sdi = 0x00abcd;
	k->mode = UET_TSS_CLUSTER;
	k->have = 1;
	k->use_ssi = 1;
	k->ssi = ssi;
	k->epoch[0] = epoch;
	memset(k->key[0], 0x5c, UET_TSS_KEY_LEN);
}

/* Sender i's R_PKTS sealed packets into w[0..R_PKTS). */
static void r_seal_stream(uint32_t i, struct r_wire *w)
{
	struct uet_tss_sd_keys k;
	struct uet_tss_src src = { .addr = { 10, (uint8_t)(i >> 16),
					     (uint8_t)(i >> 8), (uint8_t)i } };
	struct uet_tss_ep *ep;
	size_t hl;
	ssize_t n;

	r_keys(&k, 0x100000u + i, (uint16_t)i);
	ep = uet_tss_ep_new(&k, &src);
	if (!ep)
		die("uet_tss_ep_new (sender)");
	hl = uet_tss_ep_hdr_len(ep);
	for (int p = 0; p < R_PKTS; p++) {
		struct uet_tss_pkt pkt = { .saddr = src.addr, .daddr = r_daddr,
					   .sport = (uint16_t)(0xc000 | p),
					   .dport = 4793 };

		memset(w[p].buf + hl, (int)(i + p), R_PL);
		n = uet_tss_ep_seal(ep, &pkt, w[p].buf, R_PL);
		if (n != (ssize_t)(hl + R_PL + UET_TSS_ICV_LEN))
			die("seal");
		w[p].len = (uint16_t)n;
		memcpy(w[p].saddr, src.addr, 4);
		w[p].sport = pkt.sport;
	}
	uet_tss_ep_free(ep);
}

static ssize_t r_open(struct uet_tss_ep *rx, const struct r_wire *w)
{
	uint8_t out[sizeof(w->buf)];
	struct uet_tss_pkt pkt = { .saddr = w->saddr, .daddr = r_daddr,
				   .sport = w->sport, .dport = 4793 };

	return uet_tss_ep_open(rx, &pkt, w->buf, w->len, out);
}

static void r_run(uint32_t streams, const char *tag)
{
	size_t total = (size_t)streams * R_PKTS, accepted = 0, i;
	struct uet_tss_src dst = { .addr = { 10, 255, 0, 1 } };
	const struct uet_tss_ep_stats *st;
	struct uet_tss_sd_keys k;
	struct uet_tss_ep *rx;
	struct r_wire *w;
	double t0, first_ns, replay_ns;

	w = calloc(total, sizeof(*w));
	if (!w)
		die("no memory for the packets");
	for (i = 0; i < streams; i++)
		r_seal_stream((uint32_t)i, w + i * R_PKTS);
	r_keys(&k, 0x42, 1);
	rx = uet_tss_ep_new(&k, &dst);
	if (!rx)
		die("uet_tss_ep_new (receiver)");
	t0 = now_ns();
	for (i = 0; i < total; i++)
		if (r_open(rx, w + i) != R_PL)
			die("a fresh packet did not open");
	first_ns = (now_ns() - t0) / (double)total;
	t0 = now_ns();
	for (i = 0; i < total; i++)
		accepted += r_open(rx, w + i) >= 0;
	replay_ns = (now_ns() - t0) / (double)total;
	st = uet_tss_ep_stats(rx);
	if (st->rx_streams != streams || st->rx_replay + st->rx_stale +
	    accepted != total)
		die("the receiver's counts do not add up");
	printf("%u streams: %zu of %zu replays accepted, %llu streams "
	       "evicted, %llu replays refused by a floor\n", streams,
	       accepted, total, (unsigned long long)st->rx_evicted,
	       (unsigned long long)st->rx_floored);
	printf("bench: tss_replay_accepted_pct_%s %.4f pct\n", tag,
	       100.0 * (double)accepted / (double)total);
	printf("bench: tss_open_fresh_ns_%s %.0f ns\n", tag, first_ns);
	printf("bench: tss_open_replay_ns_%s %.0f ns\n", tag, replay_ns);
	fflush(stdout);
	uet_tss_ep_free(rx);
	free(w);
}

int main(void)
{
	r_run(1200, "1200");
	r_run(100000, "100k");
	return 0;
}
