/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES throughput and state size: an initiator and a target engine joined
 * by an in-memory wire (packets copied into slots, as into UMEM frames),
 * one core. Prints `bench: NAME VALUE UNIT` lines; each rate is the median
 * of three runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ses/ses.h"
#include "ses/ses_ri.h"

#define B_JOB		101
#define B_PID		2
#define B_RI		0x00a
#define B_RKEY		0xacce5ull
#define B_SLOT_LEN	(SES_PKT_HDR_MAX + UET_PAYLOAD_MTU_MAX)
#define B_SLOTS		1024
#define B_RUNS		3

struct b_slot {
	uint32_t src;
	uint8_t next_hdr;
	uint64_t msg_ref;
	uint32_t len;
	uint8_t buf[B_SLOT_LEN];
};

/* The wire: a FIFO of request packets from the initiator. */
struct b_wire {
	struct b_slot *slot;
	unsigned head, tail;
	uint64_t done;
};

static int b_tx(void *ctx, const struct ses_pkt *pkt)
{
	struct b_wire *w = ctx;
	struct b_slot *s;

	if (w->tail - w->head == B_SLOTS)
		return -EAGAIN;
	s = &w->slot[w->tail++ % B_SLOTS];
	s->src = 1;
	s->next_hdr = pkt->next_hdr;
	s->msg_ref = pkt->msg_ref;
	memcpy(s->buf, pkt->hdr, pkt->hdr_len);
	s->len = pkt->hdr_len + (uint32_t)ses_pkt_payload_copy(pkt,
							       s->buf + pkt->hdr_len);
	return 0;
}

static int b_tx_never(void *ctx, const struct ses_pkt *pkt)
{
	(void)ctx;
	(void)pkt;
	return 0;
}

static void b_tx_done(void *ctx, const struct ses_wre *wre,
		      const struct ses_tx_cpl *cpl)
{
	struct b_wire *w = ctx;

	(void)wre;
	if (cpl->status) {
		fprintf(stderr, "bench: completion failed: rc 0x%x\n", cpl->rc);
		exit(1);
	}
	w->done++;
}

static double b_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Delivers every queued request to |tgt| and its answer to |ini|: the
 * response, or, for a DEFAULT_RESPONSE, the ACK alone (ses_rx_default), as
 * PDS would.
 */
static void b_pump(struct b_wire *w, struct ses *ini, struct ses *tgt)
{
	uint8_t rsp[UET_SES_RSP_LEN];
	struct ses_rx_pkt rx = { .peer = 1 }, back = {
		.peer = 2, .next_hdr = UET_PDS_NEXT_HDR_RESPONSE, .buf = rsp };
	ssize_t n;

	while (w->head != w->tail) {
		struct b_slot *s = &w->slot[w->head++ % B_SLOTS];

		rx.next_hdr = s->next_hdr;
		rx.buf = s->buf;
		rx.len = s->len;
		n = ses_rx_req(tgt, &rx, rsp, sizeof(rsp));
		if (n < 0) {
			fprintf(stderr, "bench: ses_rx_req: %zd\n", n);
			exit(1);
		}
		back.len = (size_t)n;
		if (n)
			ses_rx_rsp(ini, &back);
		else
			ses_rx_default(ini, s->msg_ref);
	}
}

/* Messages per second for |nmsg| writes of |len| bytes, |depth| at once. */
static double b_write_rate(uint32_t len, uint64_t nmsg, unsigned depth)
{
	struct ses_ops ini_ops = { .tx = b_tx, .tx_done = b_tx_done };
	struct ses_ops tgt_ops = { .tx = b_tx_never, .tx_done = b_tx_done };
	struct ses_ri_id id = { B_JOB, B_PID, B_RI };
	struct ses_addr dst = { .peer = 2, .job_id = B_JOB,
				.pid_on_fep = B_PID };
	struct b_wire w = { .slot = calloc(B_SLOTS, sizeof(struct b_slot)) };
	uint8_t *src = calloc(1, len), *region = calloc(1, len);
	struct ses_iov iov = { src, len, NULL };
	struct ses_wre wre = { .opcode = UET_SES_OP_WRITE, .dst = &dst,
			       .ri = B_RI, .iov = &iov, .iov_cnt = 1,
			       .mkey = B_RKEY };
	struct ses_config cfg;
	struct ses *ini, *tgt;
	uint64_t posted = 0;
	double t0, t1;

	ses_config_init(&cfg);
	cfg.payload_mtu = 8192;
	ini = ses_create(&cfg, &ini_ops, &w);
	tgt = ses_create(&cfg, &tgt_ops, &w);
	if (!w.slot || !src || !region || !ini || !tgt ||
	    ses_ri_add(tgt, &id, 0) || ses_mr_add(tgt, &id, B_RKEY, region,
						  len, SES_ACCESS_REMOTE_WRITE)) {
		fprintf(stderr, "bench: set-up failed\n");
		exit(1);
	}
	t0 = b_now();
	while (w.done < nmsg) {
		uint64_t before = w.done;

		while (posted < nmsg && posted - w.done < depth) {
			if (ses_wre_post(ini, &wre) < 0)
				break;
			posted++;
		}
		b_pump(&w, ini, tgt);
		/* Everything posted was answered: nothing can be pending. */
		if (w.done == before && w.head == w.tail && posted > w.done) {
			fprintf(stderr, "bench: %llu writes never completed\n",
				(unsigned long long)(posted - w.done));
			exit(1);
		}
	}
	t1 = b_now();
	ses_destroy(ini);
	ses_destroy(tgt);
	free(w.slot);
	free(src);
	free(region);
	return (double)nmsg / (t1 - t0);
}

static int b_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double b_median(uint32_t len, uint64_t nmsg, unsigned depth)
{
	double r[B_RUNS];

	for (int i = 0; i < B_RUNS; i++)
		r[i] = b_write_rate(len, nmsg, depth);
	qsort(r, B_RUNS, sizeof(r[0]), b_cmp);
	return r[B_RUNS / 2];
}

int main(void)
{
	struct ses_ops ops = { .tx = b_tx_never, .tx_done = b_tx_done };
	struct ses_config cfg;
	struct ses *s;

	printf("bench: ses_write8_msgs_per_s %.0f msg/s\n",
	       b_median(8, 4000000, 64));
	printf("bench: ses_write64k_msgs_per_s %.0f msg/s\n",
	       b_median(65536, 100000, 16));
	ses_config_init(&cfg);
	s = ses_create(&cfg, &ops, NULL);
	if (!s)
		return 1;
	printf("bench: ses_state_bytes_per_msg %zu B\n", ses_state_msg_len(s));
	printf("bench: ses_state_bytes_per_peer %zu B\n",
	       ses_state_peer_len(s));
	ses_destroy(s);
	return 0;
}
