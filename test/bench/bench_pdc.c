/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PDC throughput: an initiator and a target manager in one thread, frames
 * handed straight from one to the other (no I/O), RUD with 64-byte SES
 * payloads, lossless and with 1% of frames dropped each way. Prints the
 * median of three runs as `bench: NAME VALUE UNIT` lines, plus the state
 * one PDC holds (both ends, default configuration).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pdc/pdc.h"
#include "pdc/pdc_hdr.h"

#define B_PAYLOAD_LEN	64
#define B_FRAME_LEN	256
#define B_RUNS		3

struct b_side {
	uint64_t delivered, done, failed;
};

static const uint8_t b_payload[B_PAYLOAD_LEN] = { 0x42 };

static int b_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
		     struct pdc_resp *resp)
{
	struct b_side *s = ctx;

	(void)resp;
	s->delivered += pkt->len == B_PAYLOAD_LEN;
	return 0;
}

static int b_fill(void *ctx, uint64_t cookie, uint8_t *buf, size_t len)
{
	(void)ctx;
	(void)cookie;
	memcpy(buf, b_payload, len);
	return 0;
}

static void b_tx_done(void *ctx, const struct pdc_tx_done *d)
{
	struct b_side *s = ctx;

	if (d->status)
		s->failed++;
	else
		s->done++;
}

static void b_event(void *ctx, const struct pdc_event *ev)
{
	(void)ctx;
	(void)ev;
}

static const struct pdc_ops b_ops = {
	.deliver = b_deliver,
	.fill = b_fill,
	.tx_done = b_tx_done,
	.event = b_event,
};

static uint64_t b_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64: cheap enough not to show in the figure. */
static bool b_drop(uint64_t *rng, uint32_t loss_per_mille)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return loss_per_mille && *rng % 1000 < loss_per_mille;
}

/* Moves every frame |from| has to |to|; returns how many were built. */
static uint32_t b_pump(struct pdc_mgr *from, struct pdc_mgr *to,
		       uint32_t from_id, uint32_t loss, uint64_t *rng,
		       uint64_t now_ns)
{
	struct pdc_rx_meta meta = { .peer = from_id };
	uint8_t buf[B_FRAME_LEN];
	uint32_t peer, cnt = 0;
	ssize_t n;

	while ((n = pdc_tx_build(from, buf, sizeof(buf), &peer, now_ns)) > 0) {
		cnt++;
		if (!b_drop(rng, loss))
			pdc_rx_frame(to, &meta, buf, (size_t)n, now_ns);
	}
	if (n < 0) {
		fprintf(stderr, "bench_pdc: pdc_tx_build: %zd\n", n);
		exit(1);
	}
	return cnt;
}

/* Sends |pkts| packets from A (peer 0) to B (peer 1); returns pkt/s. */
static double b_run(uint64_t pkts, uint32_t loss, uint64_t seed)
{
	struct b_side sa = { 0 }, sb = { 0 };
	struct pdc_pkt pkt = { .peer = 1, .len = B_PAYLOAD_LEN,
			       .mode = PDC_MODE_RUD,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	struct pdc_mgr *a, *b;
	struct pdc_cfg cfg;
	uint64_t sent = 0, rng = seed | 1, t0, t1, now;

	pdc_cfg_init(&cfg);
	cfg.seed = seed;
	a = pdc_mgr_create(&cfg, &b_ops, &sa);
	cfg.seed = seed + 1;
	b = pdc_mgr_create(&cfg, &b_ops, &sb);
	if (!a || !b) {
		fprintf(stderr, "bench_pdc: pdc_mgr_create: %s\n",
			strerror(errno));
		exit(1);
	}
	t0 = now = b_now_ns();
	while (sa.done + sa.failed < pkts) {
		while (sent < pkts && pdc_send(a, &pkt, now) == 0)
			pkt.cookie = ++sent;
		b_pump(a, b, 0, loss, &rng, now);
		b_pump(b, a, 1, loss, &rng, now);
		now = b_now_ns();
	}
	t1 = b_now_ns();
	if (sa.failed || sb.delivered < pkts) {
		fprintf(stderr, "bench_pdc: %llu failed, %llu delivered\n",
			(unsigned long long)sa.failed,
			(unsigned long long)sb.delivered);
		exit(1);
	}
	pdc_mgr_destroy(a);
	pdc_mgr_destroy(b);
	return (double)pkts * 1e9 / (double)(t1 - t0);
}

static int b_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double b_median(uint64_t pkts, uint32_t loss)
{
	double r[B_RUNS];
	int i;

	for (i = 0; i < B_RUNS; i++)
		r[i] = b_run(pkts, loss, 0x5eed + (uint64_t)i);
	qsort(r, B_RUNS, sizeof(r[0]), b_cmp);
	return r[B_RUNS / 2];
}

/* Both ends of one established PDC, default configuration. */
static uint64_t b_state_len(void)
{
	struct b_side sa = { 0 }, sb = { 0 };
	struct pdc_pkt pkt = { .peer = 1, .len = B_PAYLOAD_LEN,
			       .mode = PDC_MODE_RUD,
			       .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD };
	struct pdc_stats st_a, st_b;
	struct pdc_mgr *a, *b;
	struct pdc_cfg cfg;
	uint64_t rng = 1;

	pdc_cfg_init(&cfg);
	a = pdc_mgr_create(&cfg, &b_ops, &sa);
	b = pdc_mgr_create(&cfg, &b_ops, &sb);
	if (!a || !b || pdc_send(a, &pkt, 1) < 0)
		exit(1);
	b_pump(a, b, 0, 0, &rng, 1);
	b_pump(b, a, 1, 0, &rng, 1);
	pdc_mgr_stats(a, &st_a);
	pdc_mgr_stats(b, &st_b);
	pdc_mgr_destroy(a);
	pdc_mgr_destroy(b);
	return st_a.state_len + st_b.state_len;
}

int main(int argc, char **argv)
{
	uint64_t pkts = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;

	printf("bench: pdc_pkts_per_s %.0f pkt/s\n", b_median(pkts, 0));
	printf("bench: pdc_pkts_per_s_loss1 %.0f pkt/s\n",
	       b_median(pkts / 4, 10));
	printf("bench: pdc_state_bytes %llu B\n",
	       (unsigned long long)b_state_len());
	return 0;
}
