/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * RUDI (pdc_rudi.c): requests without a PDC, one response each, reliability
 * at the initiator. Two managers on a hand-driven wire, so that each test
 * picks exactly which frame is lost or copied: lost requests and lost
 * responses recovered by the initiator's timer, copies served twice,
 * retries exhausted, NACKs from a busy or unwilling target, forged
 * responses ignored, and not one PDC opened.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "pdc/pdc.h"
#include "pdc/pdc_hdr.h"

TestSuite(pdc_rudi_xfer, .timeout = 10);

#define R_PEER_A	7	/* A as B knows it */
#define R_PEER_B	3	/* B as A knows it */
#define R_LEN		24
#define R_MAX		16

struct r_end {
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;
	/* Initiator side. */
	uint32_t done_cnt, done_ok;
	int last_status;
	uint8_t last_nh;
	uint8_t last_rsp[64];
	size_t last_rsp_len;
	uint64_t done_cookie[R_MAX];
	/* Target side. */
	uint32_t served;	/* ops->rudi calls that answered */
	uint8_t seen[R_MAX];	/* executions per cookie byte */
	int busy_left;		/* answer -EAGAIN this many times */
	int refuse;		/* ops->rudi returns this when non-zero */
	bool long_odd;		/* odd cookies answered with R_LONG bytes */
	uint32_t rsp_bad;	/* initiator: responses not as served */
};

#define R_LONG		300	/* longer than a response kept inline */

static int r_deliver(void *ctx, const struct pdc_rx_pkt *pkt,
		     struct pdc_resp *resp)
{
	(void)ctx;
	(void)pkt;
	(void)resp;
	cr_assert_fail("RUDI must not go through deliver");
	return 0;
}

static int r_fill(void *ctx, uint64_t cookie, uint8_t *buf, size_t len)
{
	(void)ctx;
	memset(buf, (int)cookie, len);
	return 0;
}

static void r_done(void *ctx, const struct pdc_tx_done *d)
{
	struct r_end *e = ctx;

	/* Every byte of a long response is its request's cookie. */
	for (size_t i = 3; i < d->resp_len; i++)
		e->rsp_bad += d->resp[i] != (uint8_t)d->cookie;
	e->done_cookie[e->done_cnt % R_MAX] = d->cookie;
	e->done_cnt++;
	e->last_status = d->status;
	e->last_nh = d->resp_next_hdr;
	e->last_rsp_len = d->resp_len;
	if (d->resp_len && d->resp_len <= sizeof(e->last_rsp))
		memcpy(e->last_rsp, d->resp, d->resp_len);
	if (!d->status)
		e->done_ok++;
}

static void r_event(void *ctx, const struct pdc_event *ev)
{
	(void)ctx;
	(void)ev;
	cr_assert_fail("RUDI must raise no PDC event");
}

/* The target's SES stand-in: answers "OK" and the byte it was sent. */
static ssize_t r_rudi(void *ctx, const struct pdc_rx_pkt *pkt, uint8_t *rsp,
		      size_t cap, uint8_t *next_hdr)
{
	struct r_end *e = ctx;

	cr_assert_eq(pkt->mode, PDC_MODE_RUDI);
	cr_assert_eq(pkt->peer, R_PEER_A);
	cr_assert_eq(pkt->len, R_LEN);
	cr_assert_geq(cap, R_LEN + PDC_RUDI_RSP_HDR_MAX);
	if (e->refuse)
		return e->refuse;
	if (e->busy_left > 0) {
		e->busy_left--;
		return -EAGAIN;
	}
	e->seen[pkt->buf[0] % R_MAX]++;
	e->served++;
	rsp[0] = 'O';
	rsp[1] = 'K';
	rsp[2] = pkt->buf[0];
	*next_hdr = UET_PDS_NEXT_HDR_RESPONSE;
	if (e->long_odd && (pkt->buf[0] & 1)) {
		memset(rsp + 3, pkt->buf[0], R_LONG - 3);
		return R_LONG;
	}
	return 3;
}

static const struct pdc_ops r_ops = {
	.deliver = r_deliver, .fill = r_fill, .tx_done = r_done,
	.event = r_event, .rudi = r_rudi,
};

static struct r_end ra, rb;
static uint64_t r_now;

static void r_setup(bool target_serves)
{
	struct pdc_ops ops = r_ops;

	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	r_now = 1000000;
	pdc_cfg_init(&ra.cfg);
	ra.cfg.seed = 11;
	ra.cfg.pdcid_prefix_bits = 6;
	ra.cfg.pdcid_prefix = 5;
	ra.cfg.max_retries = 3;
	ra.cfg.window = 64;
	ra.cfg.max_pdcs = 8;
	ra.cfg.cwnd_init = 8;
	rb.cfg = ra.cfg;
	rb.cfg.seed = 12;
	rb.cfg.pdcid_prefix = 9;
	ra.mgr = pdc_mgr_create(&ra.cfg, &r_ops, &ra);
	if (!target_serves)
		ops.rudi = NULL;
	rb.mgr = pdc_mgr_create(&rb.cfg, &ops, &rb);
	cr_assert(ra.mgr && rb.mgr);
}

static void r_teardown(void)
{
	pdc_mgr_destroy(ra.mgr);
	pdc_mgr_destroy(rb.mgr);
}

/*
 * Moves every frame each end has to the other, |drop| deciding by the
 * frame's type and its ordinal among frames of that type (from 0).
 * Returns the frames moved.
 */
typedef bool (*r_drop_fn)(uint8_t type, uint8_t flags, uint32_t nth);

static uint32_t r_nth[16];

static uint32_t r_pump(r_drop_fn drop, bool dup_resp)
{
	uint8_t buf[512];
	uint32_t moved = 0;

	for (int round = 0; round < 50; round++) {
		bool any = false;

		for (int side = 0; side < 2; side++) {
			struct r_end *from = side ? &rb : &ra;
			struct r_end *to = side ? &ra : &rb;
			struct pdc_rx_meta meta = {
				.peer = side ? R_PEER_B : R_PEER_A,
				.src = side ? 2 : 1, .ev = 1,
			};
			uint32_t peer;
			ssize_t n;

			while ((n = pdc_tx_build(from->mgr, buf, sizeof(buf),
						 &peer, r_now)) > 0) {
				uint8_t type = buf[0] >> 3;
				uint8_t flags = buf[1] & 0x7F;

				any = true;
				cr_assert_eq(peer, side ? R_PEER_A : R_PEER_B);
				if (drop &&
				    drop(type, flags, r_nth[type & 15]++))
					continue;
				moved++;
				cr_assert_eq(pdc_rx_frame(to->mgr, &meta, buf,
							  (size_t)n, r_now), 0);
				if (dup_resp && type == UET_PDS_TYPE_RUDI_RESP)
					cr_assert_eq(pdc_rx_frame(
						to->mgr, &meta, buf,
						(size_t)n, r_now), 0);
			}
		}
		if (!any)
			break;
	}
	return moved;
}

static void r_send(uint8_t cookie)
{
	struct pdc_pkt p = {
		.cookie = cookie, .peer = R_PEER_B, .len = R_LEN,
		.mode = PDC_MODE_RUDI,
		.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
	};

	cr_assert_eq(pdc_send(ra.mgr, &p, r_now), 0);
}

/* Time passes until the initiator's next timer. */
static void r_tick(void)
{
	uint64_t at = pdc_next_timeout(ra.mgr);

	cr_assert_neq(at, UINT64_MAX, "a request must have a timer");
	if (at > r_now)
		r_now = at;
}

static void r_no_pdcs(void)
{
	struct pdc_stats sa, sb;

	pdc_mgr_stats(ra.mgr, &sa);
	pdc_mgr_stats(rb.mgr, &sb);
	cr_expect_eq(sa.pdc_created + sb.pdc_created, 0);
	cr_expect_eq(sa.pdcs + sb.pdcs, 0);
	cr_expect_eq(sa.rudi_inflight, 0);
	cr_expect(!pdc_peer_in_use(ra.mgr, R_PEER_B));
	cr_expect(!pdc_peer_in_use(rb.mgr, R_PEER_A));
}

Test(pdc_rudi_xfer, each_request_answered_once_without_a_pdc)
{
	struct pdc_stats sa;

	r_setup(true);
	memset(r_nth, 0, sizeof(r_nth));
	for (uint8_t i = 1; i <= 5; i++)
		r_send(i);
	r_pump(NULL, false);
	cr_assert_eq(ra.done_ok, 5);
	cr_assert_eq(rb.served, 5);
	for (int i = 1; i <= 5; i++)
		cr_expect_eq(rb.seen[i], 1);
	cr_expect_eq(ra.last_nh, UET_PDS_NEXT_HDR_RESPONSE);
	cr_expect_eq(ra.last_rsp_len, 3);
	cr_expect(!memcmp(ra.last_rsp, "OK\5", 3));
	pdc_mgr_stats(ra.mgr, &sa);
	cr_expect_eq(sa.rudi_tx_req, 5);
	cr_expect_eq(sa.rudi_tx_retx, 0);
	cr_expect_eq(pdc_next_timeout(ra.mgr), UINT64_MAX);
	r_no_pdcs();
	r_teardown();
}

static bool r_drop_first_req(uint8_t type, uint8_t flags, uint32_t nth)
{
	if (type == UET_PDS_TYPE_RUDI_REQ && nth > 0)
		cr_assert(flags & UET_PDS_F_RUDI_RETX, "a resend says so");
	return type == UET_PDS_TYPE_RUDI_REQ && nth == 0;
}

Test(pdc_rudi_xfer, lost_request_resent_on_its_timer)
{
	struct pdc_stats sa;

	r_setup(true);
	memset(r_nth, 0, sizeof(r_nth));
	r_send(1);
	r_pump(r_drop_first_req, false);
	cr_assert_eq(ra.done_cnt, 0);
	r_tick();
	r_pump(r_drop_first_req, false);
	cr_assert_eq(ra.done_ok, 1);
	cr_expect_eq(rb.seen[1], 1);
	pdc_mgr_stats(ra.mgr, &sa);
	cr_expect_eq(sa.rudi_tx_retx, 1);
	r_no_pdcs();
	r_teardown();
}

static bool r_drop_first_resp(uint8_t type, uint8_t flags, uint32_t nth)
{
	(void)flags;
	return type == UET_PDS_TYPE_RUDI_RESP && nth == 0;
}

Test(pdc_rudi_xfer, lost_response_executes_again_and_completes_once)
{
	r_setup(true);
	memset(r_nth, 0, sizeof(r_nth));
	r_send(2);
	r_pump(r_drop_first_resp, false);
	cr_assert_eq(ra.done_cnt, 0);
	cr_assert_eq(rb.seen[2], 1);
	r_tick();
	r_pump(r_drop_first_resp, false);
	cr_assert_eq(ra.done_cnt, 1);
	cr_assert_eq(ra.done_ok, 1);
	/* No state at the target: the resend is served again. */
	cr_expect_eq(rb.seen[2], 2);
	r_no_pdcs();
	r_teardown();
}

Test(pdc_rudi_xfer, duplicated_response_completes_once)
{
	struct pdc_stats sa;

	r_setup(true);
	memset(r_nth, 0, sizeof(r_nth));
	r_send(3);
	r_send(4);
	r_pump(NULL, true);
	cr_assert_eq(ra.done_cnt, 2);
	pdc_mgr_stats(ra.mgr, &sa);
	cr_expect_eq(sa.rudi_rx_stale, 2);
	r_no_pdcs();
	r_teardown();
}

static bool r_drop_all_req(uint8_t type, uint8_t flags, uint32_t nth)
{
	(void)flags;
	(void)nth;
	return type == UET_PDS_TYPE_RUDI_REQ;
}

Test(pdc_rudi_xfer, retries_exhausted_fail_with_etimedout)
{
	struct pdc_stats sa;
	int ticks = 0;

	r_setup(true);
	memset(r_nth, 0, sizeof(r_nth));
	r_send(5);
	r_pump(r_drop_all_req, false);
	while (!ra.done_cnt && ticks++ < 20) {
		r_tick();
		r_pump(r_drop_all_req, false);
	}
	cr_assert_eq(ra.done_cnt, 1);
	cr_expect_eq(ra.last_status, -ETIMEDOUT);
	/* The first transmission and max_retries resends. */
	cr_expect_eq(r_nth[UET_PDS_TYPE_RUDI_REQ], 1 + ra.cfg.max_retries);
	pdc_mgr_stats(ra.mgr, &sa);
	cr_expect_eq(sa.rudi_timeouts, 1);
	cr_expect_eq(rb.served, 0);
	r_no_pdcs();
	r_teardown();
}

Test(pdc_rudi_xfer, busy_target_nacks_and_initiator_retries)
{
	struct pdc_stats sa, sb;

	r_setup(true);
	memset(r_nth, 0, sizeof(r_nth));
	rb.busy_left = 2;
	r_send(6);
	r_pump(NULL, false);
	for (int i = 0; i < 5 && !ra.done_cnt; i++) {
		r_tick();
		r_pump(NULL, false);
	}
	cr_assert_eq(ra.done_ok, 1);
	cr_expect_eq(rb.seen[6], 1);
	pdc_mgr_stats(ra.mgr, &sa);
	pdc_mgr_stats(rb.mgr, &sb);
	cr_expect_eq(sa.rudi_nacked, 2);
	cr_expect_eq(sb.rudi_busy, 2);
	cr_expect_eq(sb.nack_tx_code[UET_PDS_NACK_NO_RESOURCE], 2);
	r_no_pdcs();
	r_teardown();
}

Test(pdc_rudi_xfer, target_without_rudi_fails_it_at_once)
{
	struct pdc_stats sb;

	r_setup(false);
	memset(r_nth, 0, sizeof(r_nth));
	r_send(7);
	r_pump(NULL, false);
	cr_assert_eq(ra.done_cnt, 1);
	cr_expect_eq(ra.last_status, -EPROTONOSUPPORT);
	pdc_mgr_stats(rb.mgr, &sb);
	cr_expect_eq(sb.nack_tx_code[UET_PDS_NACK_UNEXP_EVENT], 1);
	r_no_pdcs();
	r_teardown();
}

Test(pdc_rudi_xfer, unanswered_when_the_target_drops_it)
{
	struct pdc_stats sb;

	r_setup(true);
	memset(r_nth, 0, sizeof(r_nth));
	rb.refuse = -EBADMSG;
	r_send(8);
	r_pump(NULL, false);
	cr_assert_eq(ra.done_cnt, 0);
	pdc_mgr_stats(rb.mgr, &sb);
	cr_expect_eq(sb.rx_unanswered, 1);
	cr_expect_eq(sb.tx_nack, 0);
	r_teardown();
}

/* A response from another peer, or for no request of ours, is ignored. */
Test(pdc_rudi_xfer, forged_and_stale_responses_ignored)
{
	struct pdc_rudi h = {
		.pro = { .type = UET_PDS_TYPE_RUDI_RESP,
			 .next_hdr = UET_PDS_NEXT_HDR_RESPONSE },
	};
	struct pdc_rx_meta other = { .peer = R_PEER_B + 1 };
	struct pdc_rx_meta right = { .peer = R_PEER_B };
	uint8_t req[512], rsp[16];
	struct pdc_rudi got;
	struct pdc_stats sa;
	uint32_t peer;
	ssize_t n;

	r_setup(true);
	r_send(9);
	n = pdc_tx_build(ra.mgr, req, sizeof(req), &peer, r_now);
	cr_assert_gt(n, 0);
	cr_assert_eq(pdc_rudi_decode(&got, req, (size_t)n), UET_PDS_RUDI_LEN);
	/* Steerable: our prefix in the top bits of the pkt_id. */
	cr_expect_eq(got.pkt_id >> 26, 5);
	cr_expect_eq(pdc_rudi_local_peer(ra.mgr, got.pkt_id, &peer), 0);
	cr_expect_eq(peer, R_PEER_B);
	h.pkt_id = got.pkt_id;
	n = pdc_rudi_encode(rsp, sizeof(rsp), &h);
	cr_assert_eq(pdc_rx_frame(ra.mgr, &other, rsp, (size_t)n, r_now), 0);
	h.pkt_id = got.pkt_id ^ 0x100;
	pdc_rudi_encode(rsp, sizeof(rsp), &h);
	cr_assert_eq(pdc_rx_frame(ra.mgr, &right, rsp, (size_t)n, r_now), 0);
	cr_expect_eq(ra.done_cnt, 0);
	pdc_mgr_stats(ra.mgr, &sa);
	cr_expect_eq(sa.rudi_rx_stale, 2);
	h.pkt_id = got.pkt_id;
	pdc_rudi_encode(rsp, sizeof(rsp), &h);
	cr_assert_eq(pdc_rx_frame(ra.mgr, &right, rsp, (size_t)n, r_now), 0);
	cr_expect_eq(ra.done_ok, 1);
	cr_expect_eq(pdc_rudi_local_peer(ra.mgr, got.pkt_id, &peer), -ENOENT);
	r_teardown();
}

/*
 * Long responses (READ data) and short ones mixed, more than the target's
 * queue of built responses over a few rounds: each arrives whole and its
 * own, whichever buffer the target built it in.
 */
Test(pdc_rudi_xfer, long_and_short_responses_each_its_own)
{
	struct pdc_pkt p = {
		.peer = R_PEER_B, .len = R_LEN, .mode = PDC_MODE_RUDI,
		.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
	};

	r_setup(true);
	rb.long_odd = true;
	for (int round = 0; round < 3; round++) {
		for (uint32_t i = 0; i < ra.cfg.window; i++) {
			p.cookie = (uint64_t)(round * 64 + i) & 0xFF;
			cr_assert_eq(pdc_send(ra.mgr, &p, r_now), 0);
		}
		memset(r_nth, 0, sizeof(r_nth));
		r_pump(NULL, false);
	}
	cr_expect_eq(ra.done_ok, 3 * ra.cfg.window);
	cr_expect_eq(ra.rsp_bad, 0);
	r_no_pdcs();
	r_teardown();
}

Test(pdc_rudi_xfer, table_full_is_eagain)
{
	struct pdc_pkt p = {
		.cookie = 1, .peer = R_PEER_B, .len = R_LEN,
		.mode = PDC_MODE_RUDI,
		.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
	};
	uint32_t i;

	r_setup(true);
	for (i = 0; i < ra.cfg.window; i++)
		cr_assert_eq(pdc_send(ra.mgr, &p, r_now), 0);
	cr_expect_eq(pdc_send(ra.mgr, &p, r_now), -EAGAIN);
	memset(r_nth, 0, sizeof(r_nth));
	r_pump(NULL, false);
	cr_expect_eq(ra.done_ok, ra.cfg.window);
	cr_expect_eq(pdc_send(ra.mgr, &p, r_now), 0);
	r_teardown();
}
