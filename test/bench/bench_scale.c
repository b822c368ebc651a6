/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scale: SES over PDC in memory (no device, no engine), one initiator and
 * one target joined by a wire that hands each frame straight over, one
 * core. The initiator writes 64 bytes at a time, B_WINDOW messages in
 * flight in total, round robin over N peer ids; frames to peer p reach
 * the target as coming from peer p on host p, so the target sees N
 * sources. Prints `bench: NAME VALUE UNIT` lines:
 *
 * - the message rate at 1, 1024, 65536 and 1048576 peers, per second of
 *   CPU time (median of three runs of B_MSGS writes, or of what a run
 *   does in B_CAP_S), and its ratio to 1 peer's;
 * - the PDCs the initiator opened per message at N (with fewer PDCs than
 *   peers, each one a SYN on the wire and a close);
 * - the memory an idle peer costs each side, and an open PDC with a
 *   packet in flight, counted by bench_scale_mem.c (see main and
 *   b_active for what is measured when).
 *
 * Limits are the library's: SES gets max_peers = N, PDC the largest
 * max_pdcs its config accepts (probed, so a larger limit is picked up
 * when there is one). An N whose set-up fails (ses_create with max_peers
 * N, say) prints no figure, only why on stderr. With fewer PDCs than
 * peers, PDCs are recycled the way PDC does it, by closing idle ones;
 * the clock is simulated (b_tick), so idle time costs no real time.
 *
 * BENCH_SMOKE=1 (bench_smoke.sh): one run each, fewer messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pdc/pdc.h"
#include "ses/ses.h"
#include "ses/ses_ri.h"
#include "test/bench/bench_scale.h"

#define B_JOB		101
#define B_PID		2
#define B_RI		0x00a
#define B_RKEY		0xacce5ull
#define B_MSG_LEN	64
#define B_WINDOW	64	/* messages in flight, all peers together */
#define B_REGION_MSGS	1024	/* the target region holds this many */
#define B_PKT_LEN	(SES_PKT_HDR_MAX + B_MSG_LEN)
#define B_FRAME_LEN	2048
#define B_RUNS		3
/*
 * Messages of one run at any N (at least N would be needed for the target
 * to see every peer), and the wall time after which a run posts no more,
 * which bounds `make bench`: 65536 peers run at 75k msg/s of CPU today,
 * and get a fraction of a CPU on busy shared cores, so a run then reaches
 * part of its peers (said on stderr).
 */
#define B_MSGS		262144
#define B_CAP_S		4.0
#define B_SMOKE_MSGS	65536
#define B_SMOKE_CAP_S	0.5
#define B_ACTIVE_PDCS	1024
/*
 * The most PDCs asked of PDC: a budget this large keeps up to half of it
 * open at once (b_cfg_pdc), 12 KiB a pair today: 1.5 GiB at 2^18.
 */
#define B_PDCS_CAP	(1u << 18)
/*
 * Simulated time. One tick carries every frame one hop each way, a round
 * trip: B_TICK_NS stands for a fabric's. A PDC that sees no packet for as
 * long as half the budget's worth of messages takes (B_WINDOW a tick)
 * closes, so a round robin over fewer peers than half the budget keeps
 * its PDCs open (as the real idle time-out, 1 s, would at this rate) and
 * one over more closes each PDC before its peer's turn comes again.
 */
#define B_TICK_NS	1000ull
#define B_T0_NS		1000000000ull
#define B_STUCK_TICKS	100000	/* no completion for this long: a bug */

/* ---- the two sides and the wire ----------------------------------------- */

/* One SES packet handed to PDC, its bytes kept for fill (the cookie). */
struct b_pkt {
	uint64_t msg_ref;
	uint32_t len;
	uint8_t buf[B_PKT_LEN];
};

struct b_bench {
	struct ses *ini_ses, *tgt_ses;
	struct pdc_mgr *ini_pdc, *tgt_pdc;
	uint64_t now;
	uint32_t npeers, depth;	/* peers; messages in flight at most */
	struct ses_wre *wre;	/* depth of them, each with its dst */
	struct ses_addr *dst;
	uint32_t *wre_free, nwre_free;
	struct b_pkt *pkt;	/* depth of them */
	uint32_t *pkt_free, npkt_free;
	struct ses_iov iov;
	uint8_t src[B_MSG_LEN];
	uint8_t region[B_REGION_MSGS * B_MSG_LEN];
	uint64_t posted, done, placed, busy, again;
	int64_t mark[B_ACCTS];	/* the accounts before b_create */
};

/*
 * RUDI (no PDC: each write its own request, answered once, resent on its
 * own timer) instead of RUD, for the runs that say so: the idempotent
 * writes of a large job need no PDC per peer.
 */
static bool b_rudi;

static void b_die(const char *what, long long v)
{
	fprintf(stderr, "bench_scale: %s: %lld\n", what, v);
	exit(1);
}

static int b_ini_tx(void *ctx, const struct ses_pkt *pkt)
{
	struct b_bench *b = ctx;
	struct pdc_pkt p = {
		.peer = pkt->peer, .len = pkt->hdr_len + pkt->pay_len,
		.mode = pkt->flags & SES_PKT_F_RUDI ? PDC_MODE_RUDI :
						      PDC_MODE_RUD,
		.next_hdr = pkt->next_hdr,
	};
	enum b_acct old;
	struct b_pkt *s;
	uint32_t i;
	int ret;

	if (p.len > B_PKT_LEN)
		b_die("packet longer than expected", p.len);
	if (!b->npkt_free)
		return -EAGAIN;
	i = b->pkt_free[--b->npkt_free];
	s = &b->pkt[i];
	s->msg_ref = pkt->msg_ref;
	s->len = p.len;
	memcpy(s->buf, pkt->hdr, pkt->hdr_len);
	ses_pkt_payload_copy(pkt, s->buf + pkt->hdr_len);
	p.cookie = i;
	old = b_enter(B_INI_PDC);
	ret = pdc_send(b->ini_pdc, &p, b->now);
	b_acct = old;
	if (ret < 0) {
		b->pkt_free[b->npkt_free++] = i;
		/* -EBUSY: no PDC free for a new peer; SES offers it again */
		b->busy += ret == -EBUSY;
		return ret == -EAGAIN || ret == -EBUSY ? -EAGAIN : ret;
	}
	return 0;
}

/* Writes draw no packet from the target. */
static int b_tgt_tx(void *ctx, const struct ses_pkt *pkt)
{
	(void)ctx;
	b_die("target sent a packet, next_hdr", pkt->next_hdr);
	return -EIO;
}

static void b_ses_done(void *ctx, const struct ses_wre *wre,
		       const struct ses_tx_cpl *cpl)
{
	struct b_bench *b = ctx;

	if (cpl->status)
		b_die("write failed", cpl->status);
	b->done++;
	b->wre_free[b->nwre_free++] = (uint32_t)(uintptr_t)wre->user_ctx;
}

static void b_placed(void *ctx, const struct ses_rma_event *ev)
{
	struct b_bench *b = ctx;

	b->placed += ev->opcode == UET_SES_OP_WRITE && ev->len == B_MSG_LEN;
}

static int b_fill(void *ctx, uint64_t cookie, uint8_t *buf, size_t len)
{
	struct b_bench *b = ctx;
	const struct b_pkt *s = &b->pkt[cookie];

	if (len != s->len)
		return -EINVAL;
	memcpy(buf, s->buf, len);
	return 0;
}

/* A packet acknowledged: its response, or the ACK alone, goes to SES. */
static void b_pdc_done(void *ctx, const struct pdc_tx_done *d)
{
	struct b_bench *b = ctx;
	struct ses_rx_pkt rsp = {
		.peer = d->peer, .next_hdr = d->resp_next_hdr,
		.buf = d->resp, .len = d->resp_len, .now_ns = b->now,
	};
	uint64_t ref = b->pkt[d->cookie].msg_ref;
	enum b_acct old;

	if (d->status)
		b_die("packet failed", d->status);
	b->pkt_free[b->npkt_free++] = (uint32_t)d->cookie;
	old = b_enter(B_INI_SES);
	if (d->resp_next_hdr != UET_PDS_NEXT_HDR_NONE && d->resp_len)
		ses_rx_rsp(b->ini_ses, &rsp);
	else
		ses_rx_default(b->ini_ses, ref);
	b_acct = old;
}

static int b_tgt_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
			 struct pdc_resp *resp)
{
	struct b_bench *b = ctx;
	struct ses_rx_pkt in = {
		.peer = pkt->peer, .pdc = pkt->open_seq,
		.next_hdr = pkt->next_hdr, .buf = pkt->buf, .len = pkt->len,
		.now_ns = b->now,
	};
	enum b_acct old = b_enter(B_TGT_SES);
	ssize_t n = ses_rx_req(b->tgt_ses, &in, resp->buf, sizeof(resp->buf));

	b_acct = old;
	resp->next_hdr = UET_PDS_NEXT_HDR_NONE;
	resp->len = 0;
	if (n == -EAGAIN) {
		b->again++;	/* out of target state: the initiator retries */
		return -EAGAIN;
	}
	if (n < 0)
		b_die("ses_rx_req", n);
	if (n > 0) {
		resp->next_hdr = UET_PDS_NEXT_HDR_RESPONSE;
		resp->len = (uint8_t)n;
	}
	return 0;
}

/* A RUDI write: placed at once, answered by its RUDI_RESP, nothing kept. */
static ssize_t b_tgt_rudi(void *ctx, const struct pdc_rx_pkt *pkt,
			  uint8_t *rsp, size_t cap, uint8_t *next_hdr)
{
	struct b_bench *b = ctx;
	struct ses_rx_pkt in = {
		.peer = pkt->peer, .next_hdr = pkt->next_hdr, .buf = pkt->buf,
		.len = pkt->len, .now_ns = b->now,
	};
	enum b_acct old = b_enter(B_TGT_SES);
	ssize_t n = ses_rx_rudi(b->tgt_ses, &in, rsp, cap, next_hdr);

	b_acct = old;
	if (n < 0)
		b_die("ses_rx_rudi", n);
	b->placed++;	/* RUDI writes raise no rma_done */
	return n;
}

static int b_ini_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
			 struct pdc_resp *resp)
{
	(void)ctx;
	(void)resp;
	b_die("the initiator got a request from peer", pkt->peer);
	return -EIO;
}

static int b_tgt_fill(void *ctx, uint64_t cookie, uint8_t *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	b_die("the target filled a packet", (long long)cookie);
	return -EIO;
}

static void b_tgt_pdc_done(void *ctx, const struct pdc_tx_done *d)
{
	(void)ctx;
	b_die("the target finished a packet", (long long)d->cookie);
}

static void b_event(void *ctx, const struct pdc_event *ev)
{
	(void)ctx;
	if (ev->type == PDC_EV_FAILED ||
	    (ev->type == PDC_EV_CLOSED && ev->err && ev->is_initiator))
		b_die("a PDC failed, err", ev->err);
}

static const struct pdc_ops b_ini_pdc_ops = {
	.deliver = b_ini_deliver, .fill = b_fill,
	.tx_done = b_pdc_done, .event = b_event,
};

static const struct pdc_ops b_tgt_pdc_ops = {
	.deliver = b_tgt_deliver, .fill = b_tgt_fill,
	.tx_done = b_tgt_pdc_done, .event = b_event, .rudi = b_tgt_rudi,
};

static const struct ses_ops b_ini_ses_ops = {
	.tx = b_ini_tx, .tx_done = b_ses_done,
};

static const struct ses_ops b_tgt_ses_ops = {
	.tx = b_tgt_tx, .tx_done = b_ses_done, .rma_done = b_placed,
};

/*
 * Every PDC setting but the budget is PDC's default, as in bench_pdc,
 * except the idle and TIME_WAIT times, in simulated ticks (see
 * B_TICK_NS): closed target PDCs linger a quarter of the idle time, so
 * that the target's slots, open and lingering, stay above the quarter
 * PDC keeps free before it asks SYNs for cookies.
 */
static void b_cfg_pdc(struct pdc_cfg *cfg, uint32_t max_pdcs, uint64_t seed)
{
	uint64_t idle = max_pdcs / (2 * B_WINDOW);

	pdc_cfg_init(cfg);
	cfg->seed = seed;
	cfg->max_pdcs = max_pdcs;
	cfg->idle_ns = (idle > 2 ? idle : 2) * B_TICK_NS;
	cfg->time_wait_ns = (idle / 4 > 2 ? idle / 4 : 2) * B_TICK_NS;
}

/*
 * The largest power of 2 up to B_PDCS_CAP that pdc_mgr_create takes as
 * max_pdcs; 0 when none is.
 */
static uint32_t b_max_pdcs(void)
{
	struct pdc_cfg cfg;
	struct pdc_mgr *m;
	uint32_t n;

	for (n = B_PDCS_CAP; n >= 2; n /= 2) {
		b_cfg_pdc(&cfg, n, 1);
		m = pdc_mgr_create(&cfg, &b_tgt_pdc_ops, NULL);
		if (m) {
			pdc_mgr_destroy(m);
			return n;
		}
	}
	return 0;
}

static void b_destroy(struct b_bench *b)
{
	b_acct = B_INI_SES;
	ses_destroy(b->ini_ses);
	b_acct = B_TGT_SES;
	ses_destroy(b->tgt_ses);
	b_acct = B_INI_PDC;
	pdc_mgr_destroy(b->ini_pdc);
	b_acct = B_TGT_PDC;
	pdc_mgr_destroy(b->tgt_pdc);
	b_acct = B_NONE;
	for (int a = B_INI_SES; a < B_ACCTS; a++)
		if (b_bytes[a] != b->mark[a])
			b_die("memory accounting: bytes left in account", a);
	free(b->wre);
	free(b->dst);
	free(b->wre_free);
	free(b->pkt);
	free(b->pkt_free);
	free(b);
}

/*
 * Both sides for |npeers| peers, at most |depth| messages in flight.
 * Returns NULL with errno when SES or PDC refuses the configuration.
 */
static struct b_bench *b_create(uint32_t npeers, uint32_t depth,
				uint32_t max_pdcs)
{
	struct b_bench *b = calloc(1, sizeof(*b));
	struct ses_ri_id id = { B_JOB, B_PID, B_RI };
	struct ses_config sc;
	struct pdc_cfg pc;
	int err;

	if (!b)
		b_die("out of memory", 0);
	memcpy(b->mark, b_bytes, sizeof(b->mark));
	b->npeers = npeers;
	b->depth = depth;
	b->now = B_T0_NS;
	b->wre = calloc(depth, sizeof(*b->wre));
	b->dst = calloc(depth, sizeof(*b->dst));
	b->wre_free = calloc(depth, sizeof(*b->wre_free));
	b->pkt = calloc(depth, sizeof(*b->pkt));
	b->pkt_free = calloc(depth, sizeof(*b->pkt_free));
	if (!b->wre || !b->dst || !b->wre_free || !b->pkt || !b->pkt_free)
		b_die("out of memory", depth);
	memset(b->src, 0x5a, sizeof(b->src));
	b->iov = (struct ses_iov){ b->src, B_MSG_LEN, NULL };
	for (uint32_t i = 0; i < depth; i++) {
		b->dst[i] = (struct ses_addr){ .job_id = B_JOB,
					       .pid_on_fep = B_PID };
		b->wre[i] = (struct ses_wre){
			.opcode = UET_SES_OP_WRITE, .dst = &b->dst[i],
			.ri = B_RI, .iov = &b->iov, .iov_cnt = 1,
			.mkey = B_RKEY, .user_ctx = (void *)(uintptr_t)i,
			.flags = b_rudi ? SES_WRE_F_RUDI : 0,
		};
		b->wre_free[b->nwre_free++] = depth - 1 - i;
		b->pkt_free[b->npkt_free++] = depth - 1 - i;
	}
	ses_config_init(&sc);
	sc.max_peers = npeers;
	b_acct = B_INI_SES;
	b->ini_ses = ses_create(&sc, &b_ini_ses_ops, b);
	b_acct = B_TGT_SES;
	b->tgt_ses = b->ini_ses ? ses_create(&sc, &b_tgt_ses_ops, b) : NULL;
	err = errno;
	if (b->tgt_ses && (ses_ri_add(b->tgt_ses, &id, 0) ||
			   ses_mr_add(b->tgt_ses, &id, B_RKEY, b->region,
				      sizeof(b->region),
				      SES_ACCESS_REMOTE_WRITE |
				      SES_ACCESS_IDEMPOTENT)))
		b_die("target RI or region", 0);
	b_cfg_pdc(&pc, max_pdcs, 0x5eed + npeers);
	b_acct = B_INI_PDC;
	b->ini_pdc = b->tgt_ses ? pdc_mgr_create(&pc, &b_ini_pdc_ops, b) : NULL;
	pc.seed++;
	b_acct = B_TGT_PDC;
	b->tgt_pdc = b->ini_pdc ? pdc_mgr_create(&pc, &b_tgt_pdc_ops, b) :
				  NULL;
	b_acct = B_NONE;
	if (!b->tgt_pdc) {
		err = b->tgt_ses ? errno : err;
		b_destroy(b);
		errno = err;
		return NULL;
	}
	return b;
}

/* Moves every frame |from| has to |to|, as coming from its peer's host. */
static void b_pump(struct b_bench *b, struct pdc_mgr *from,
		   enum b_acct from_acct, struct pdc_mgr *to,
		   enum b_acct to_acct)
{
	struct pdc_rx_meta meta = { 0 };
	uint8_t buf[B_FRAME_LEN];
	uint32_t peer;
	ssize_t n;
	int ret;

	for (;;) {
		b_acct = from_acct;
		n = pdc_tx_build(from, buf, sizeof(buf), &peer, b->now);
		if (n <= 0)
			break;
		meta.peer = peer;
		meta.src = peer;
		b_acct = to_acct;
		ret = pdc_rx_frame(to, &meta, buf, (size_t)n, b->now);
		if (ret < 0)
			b_die("pdc_rx_frame", ret);
	}
	b_acct = B_NONE;
	if (n < 0)
		b_die("pdc_tx_build", n);
}

/* One round trip of simulated time. */
static void b_tick(struct b_bench *b)
{
	b_acct = B_INI_SES;
	ses_progress(b->ini_ses, b->now);
	b_pump(b, b->ini_pdc, B_INI_PDC, b->tgt_pdc, B_TGT_PDC);
	b_pump(b, b->tgt_pdc, B_TGT_PDC, b->ini_pdc, B_INI_PDC);
	b_acct = B_TGT_SES;
	ses_progress(b->tgt_ses, b->now);
	b_acct = B_NONE;
	b->now += B_TICK_NS;
}

/* Posts writes, round robin over the peers, until |nmsg| or a full window. */
static void b_post(struct b_bench *b, uint64_t nmsg)
{
	while (b->posted < nmsg && b->nwre_free) {
		uint32_t i = b->wre_free[--b->nwre_free];
		int ret;

		b->dst[i].peer = 1 + (uint32_t)(b->posted % b->npeers);
		b->wre[i].remote_offset =
			b->posted % B_REGION_MSGS * B_MSG_LEN;
		b->posted++;
		b_acct = B_INI_SES;
		ret = ses_wre_post(b->ini_ses, &b->wre[i]);
		b_acct = B_NONE;
		if (ret == -EAGAIN) {
			b->posted--;
			b->wre_free[b->nwre_free++] = i;
			break;
		}
		if (ret < 0)
			b_die("ses_wre_post", ret);
	}
}

static double b_clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Posts up to |nmsg| writes, none once the monotonic clock passes
 * |deadline| (0: none), and runs until every one posted is done.
 */
static void b_drain(struct b_bench *b, uint64_t nmsg, double deadline)
{
	uint64_t last = b->done, still = 0, tick = 0;

	while (b->done < nmsg) {
		/* The clock costs ~20 ns: read it every 64 ticks. */
		if (deadline && !(++tick % 64) &&
		    b_clock_s(CLOCK_MONOTONIC) > deadline)
			nmsg = b->posted;
		b_post(b, nmsg);
		b_tick(b);
		if (b->done != last) {
			last = b->done;
			still = 0;
		} else if (++still > B_STUCK_TICKS) {
			fprintf(stderr, "bench_scale: %llu of %llu posted "
				"writes stuck\n",
				(unsigned long long)(b->posted - b->done),
				(unsigned long long)b->posted);
			exit(1);
		}
	}
}

/* Each write landed once, and the region holds what was written. */
static void b_check(const struct b_bench *b)
{
	uint64_t n = b->done < B_REGION_MSGS ? b->done : B_REGION_MSGS;

	if (b->placed != b->done || b->posted != b->done)
		b_die("writes placed", (long long)b->placed);
	for (uint64_t i = 0; i < n * B_MSG_LEN; i++)
		if (b->region[i] != b->src[i % B_MSG_LEN])
			b_die("wrong byte in the target region at", (long long)i);
}

/* Ticks until neither side holds a PDC: idle ones closed, TIME_WAIT over. */
static void b_quiesce(struct b_bench *b)
{
	struct pdc_stats si, st;

	for (uint32_t t = 0;; t++) {
		if (!(t % 64)) {
			pdc_mgr_stats(b->ini_pdc, &si);
			pdc_mgr_stats(b->tgt_pdc, &st);
			if (!si.pdcs && !st.pdcs)
				return;
		}
		if (t > B_STUCK_TICKS)
			b_die("PDCs still open after ticks", t);
		b_tick(b);
	}
}

/* Bytes one side holds: its SES and its PDC manager, everything in them. */
static int64_t b_side(const struct b_bench *b, enum b_acct ses,
		      enum b_acct pdc)
{
	return b_bytes[ses] - b->mark[ses] + b_bytes[pdc] - b->mark[pdc];
}

struct b_idle {
	uint32_t npeers;	/* 0: not measured */
	int64_t ini, tgt;	/* both sides' bytes with npeers idle */
};

static int b_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * The median rate of |runs| runs of |nmsg| writes over |npeers| peers, in
 * messages per second of this thread's CPU time (two cores shared with
 * others: wall time would measure the neighbours too); each run posts
 * nothing more after |cap_s| seconds. The PDCs the initiator opened per
 * message in |*pdcs|. When the last run reached every peer, what both
 * sides hold once its PDCs have closed, in |*idle|. Returns 0, or -errno
 * when SES or PDC refuses the configuration.
 */
static int b_rate(uint32_t npeers, uint64_t nmsg, double cap_s, int runs,
		  uint32_t max_pdcs, double *rate, double *pdcs,
		  struct b_idle *idle)
{
	double r[B_RUNS];
	struct pdc_stats st;

	for (int i = 0; i < runs; i++) {
		struct b_bench *b = b_create(npeers, B_WINDOW, max_pdcs);
		double t0;

		if (!b)
			return -errno;
		t0 = b_clock_s(CLOCK_THREAD_CPUTIME_ID);
		b_drain(b, nmsg, b_clock_s(CLOCK_MONOTONIC) + cap_s);
		r[i] = (double)b->done /
		       (b_clock_s(CLOCK_THREAD_CPUTIME_ID) - t0);
		b_check(b);
		pdc_mgr_stats(b->ini_pdc, &st);
		*pdcs = (double)st.pdc_created / (double)b->done;
		if (b->done < nmsg)
			fprintf(stderr, "bench_scale: %u peers: %llu writes "
				"in %.1f s, not %llu\n", npeers,
				(unsigned long long)b->done, cap_s,
				(unsigned long long)nmsg);
		if (b->busy || b->again)
			fprintf(stderr, "bench_scale: %u peers: %llu sends "
				"waited for a free PDC, %llu requests for "
				"target state\n", npeers,
				(unsigned long long)b->busy,
				(unsigned long long)b->again);
		if (i == runs - 1 && b->done >= npeers) {
			b_quiesce(b);
			/*
			 * Their PDCs closed, the engine's aging lets idle
			 * peers' id windows go (uet_engine_peers_age): so
			 * here. The pool's items live in pages SES
			 * reserved (not malloc's): counted apart.
			 */
			b_acct = B_INI_SES;
			for (uint32_t p = 1; p <= npeers; p++)
				ses_peer_trim(b->ini_ses, p);
			b_acct = B_TGT_SES;
			for (uint32_t p = 1; p <= npeers; p++)
				ses_peer_trim(b->tgt_ses, p);
			b_acct = B_NONE;
			idle->npeers = npeers;
			idle->ini = b_side(b, B_INI_SES, B_INI_PDC) +
				(int64_t)ses_state_peer_pool_len(b->ini_ses);
			idle->tgt = b_side(b, B_TGT_SES, B_TGT_PDC) +
				(int64_t)ses_state_peer_pool_len(b->tgt_ses);
		}
		b_destroy(b);
	}
	qsort(r, (size_t)runs, sizeof(r[0]), b_cmp);
	*rate = r[runs / 2];
	return 0;
}

/*
 * Bytes per open PDC with a packet in flight, each side: writes to
 * B_ACTIVE_PDCS peers (at most half the budget, so that no SYN needs a
 * cookie) are handed to the target, whose ACKs are not yet sent back;
 * what the two PDC managers grew by then, over the PDCs open, allocator
 * overhead included. PDC's own count (state_len) goes to stderr beside.
 */
static void b_active(uint32_t max_pdcs, double *ini, double *tgt)
{
	uint32_t k = max_pdcs / 2 < B_ACTIVE_PDCS ? max_pdcs / 2 :
						    B_ACTIVE_PDCS;
	struct b_bench *b = b_create(k, k, max_pdcs);
	struct pdc_stats si, st;
	int64_t i0, t0;

	if (!b)
		b_die("set-up for active PDCs, errno", errno);
	i0 = b_bytes[B_INI_PDC];
	t0 = b_bytes[B_TGT_PDC];
	b_post(b, k);
	b_pump(b, b->ini_pdc, B_INI_PDC, b->tgt_pdc, B_TGT_PDC);
	pdc_mgr_stats(b->ini_pdc, &si);
	pdc_mgr_stats(b->tgt_pdc, &st);
	if (si.pdcs != k || st.pdcs != k || b->done)
		b_die("PDCs open with a packet in flight", (long long)st.pdcs);
	*ini = (double)(b_bytes[B_INI_PDC] - i0) / k;
	*tgt = (double)(b_bytes[B_TGT_PDC] - t0) / k;
	fprintf(stderr, "bench_scale: %u active PDCs: PDC's state_len per "
		"PDC %llu B initiator, %llu B target\n", k,
		(unsigned long long)(si.state_len / k),
		(unsigned long long)(st.state_len / k));
	b_drain(b, k, 0);
	b_check(b);
	b_destroy(b);
}

static double b_max(double a, double b)
{
	return a > b ? a : b;
}

int main(void)
{
	static const uint32_t npeers[] = { 1024, 65536, 1048576 };
	const char *smoke = getenv("BENCH_SMOKE");
	bool quick = smoke && *smoke && strcmp(smoke, "0");
	uint64_t nmsg = quick ? B_SMOKE_MSGS : B_MSGS;
	double cap_s = quick ? B_SMOKE_CAP_S : B_CAP_S;
	int runs = quick ? 1 : B_RUNS;
	uint32_t max_pdcs = b_max_pdcs();
	struct b_idle idle = { 0 }, base;
	double one, rate, pdcs, ini, tgt;
	struct b_bench *b;
	int64_t heap;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!max_pdcs)
		b_die("pdc_mgr_create takes no max_pdcs, errno", errno);
	fprintf(stderr, "bench_scale: max_pdcs %u, idle time-out %llu ticks\n",
		max_pdcs, (unsigned long long)(max_pdcs / (2 * B_WINDOW)));
	ret = b_rate(1, nmsg, cap_s, runs, max_pdcs, &one, &pdcs, &idle);
	if (ret)
		b_die("set-up for 1 peer", ret);
	printf("bench: scale_rate_1peer_mmsg_s %.4f Mmsg/s\n", one / 1e6);
	for (size_t i = 0; i < sizeof(npeers) / sizeof(npeers[0]); i++) {
		uint32_t n = npeers[i];

		ret = b_rate(n, nmsg, cap_s, runs, max_pdcs, &rate, &pdcs,
			     &idle);
		/*
		 * No figure for an N the library cannot be configured for
		 * (SES's max_peers, say); 1024 peers must work.
		 */
		if (ret && n > 1024) {
			fprintf(stderr, "bench_scale: %u peers: set-up "
				"refused (%s): no figure\n", n, strerror(-ret));
			continue;
		}
		if (ret)
			b_die("set-up for 1024 peers", ret);
		printf("bench: scale_rate_%upeers_mmsg_s %.4f Mmsg/s\n", n,
		       rate / 1e6);
		printf("bench: scale_rate_ratio_%u %.4f x\n", n, rate / one);
		printf("bench: scale_pdcs_per_msg_%u %.4f PDC/msg\n", n, pdcs);
	}
	/*
	 * Bytes per idle peer, each side, at the most peers a run reached
	 * in full: what both layers hold once every PDC has closed, less
	 * what an endpoint set up for one peer holds before any traffic
	 * (fixed costs), over the peers. Pools sized for the peers
	 * (max_peers) count.
	 */
	heap = b_heap_in_use();
	b = b_create(1, B_WINDOW, max_pdcs);
	if (!b)
		b_die("set-up for 1 peer, errno", errno);
	base.ini = b_side(b, B_INI_SES, B_INI_PDC);
	base.tgt = b_side(b, B_TGT_SES, B_TGT_PDC);
	fprintf(stderr, "bench_scale: an endpoint pair for 1 peer: %lld B "
		"charged to SES and PDC, the heap grew %lld B (mallinfo2; "
		"with the bench's own)\n", (long long)(base.ini + base.tgt),
		(long long)(b_heap_in_use() - heap));
	b_destroy(b);
	ini = (double)(idle.ini - base.ini) / idle.npeers;
	tgt = (double)(idle.tgt - base.tgt) / idle.npeers;
	fprintf(stderr, "bench_scale: idle peers measured at %u\n",
		idle.npeers);
	printf("bench: scale_bytes_per_idle_peer %.0f B\n", b_max(ini, tgt));
	printf("bench: scale_bytes_per_idle_peer_ini %.0f B\n", ini);
	printf("bench: scale_bytes_per_idle_peer_tgt %.0f B\n", tgt);
	b_active(max_pdcs, &ini, &tgt);
	printf("bench: scale_bytes_per_active_pdc %.0f B\n", b_max(ini, tgt));
	printf("bench: scale_bytes_per_active_pdc_ini %.0f B\n", ini);
	printf("bench: scale_bytes_per_active_pdc_tgt %.0f B\n", tgt);
	/*
	 * The same writes as RUDI (the region idempotent-safe): no PDC to
	 * open per peer, one request and one response per write. The ratio
	 * is to the same RUDI traffic on one peer.
	 */
	b_rudi = true;
	ret = b_rate(1, nmsg, cap_s, runs, max_pdcs, &one, &pdcs, &idle);
	if (ret)
		b_die("RUDI set-up for 1 peer", ret);
	printf("bench: scale_rudi_rate_1peer_mmsg_s %.4f Mmsg/s\n", one / 1e6);
	for (size_t i = 0; i < sizeof(npeers) / sizeof(npeers[0]); i++) {
		uint32_t n = npeers[i];

		if (b_rate(n, nmsg, cap_s, runs, max_pdcs, &rate, &pdcs,
			   &idle))
			continue;
		printf("bench: scale_rudi_rate_%upeers_mmsg_s %.4f Mmsg/s\n", n,
		       rate / 1e6);
		printf("bench: scale_rudi_rate_ratio_%u %.4f x\n", n, rate / one);
	}
	return 0;
}
