/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The challenge-and-admit race (pdc_ini_nack.c: pdc_ini_syn_back,
 * pdc_ini_ack_first_start). One copy of an initiator's first SYN is
 * challenged (NEW_START_PSN), another admitted at once; the initiator
 * renumbers to the cookie, and the target refuses that SYN (INV_DPDCID)
 * rather than deliver twice. The initiator failed the write with
 * ECONNRESET though its data had landed (a starved 256-endpoint
 * all-to-all, 2-3 runs in 8); now it goes back to its first numbering,
 * on the admitted PDC's ACK or on the refusal, and completes: delivered
 * once, completed once. A target PDC under our PDCID that is not ours (a
 * restarted initiator's predecessor) still fails it, after a few tries.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pdc/pdc_priv.h"

#define T_MS		1000000ull
#define T_A		1	/* A's peer id at B, and its src */
#define T_B		2	/* B's peer id at A */

TestSuite(pdc_synrace, .timeout = 30);

static uint32_t t_delivered, t_done;
static int t_status;

static int t_deliver(void *c, const struct pdc_rx_pkt *p, struct pdc_resp *r)
{
	(void)c; (void)p; (void)r;
	t_delivered++;
	return 0;
}

static int t_fill(void *c, uint64_t k, uint8_t *b, size_t l)
{
	(void)c; (void)k;
	memset(b, 0x5A, l);
	return 0;
}

static void t_tx_done(void *c, const struct pdc_tx_done *d)
{
	(void)c;
	t_done++;
	t_status = d->status;
}

static void t_event(void *c, const struct pdc_event *e)
{
	(void)c; (void)e;
}

static const struct pdc_ops t_ops = {
	.deliver = t_deliver, .fill = t_fill, .tx_done = t_tx_done,
	.event = t_event,
};

static struct pdc_mgr *t_mgr(uint64_t seed, uint32_t start_psn)
{
	struct pdc_cfg cfg;
	struct pdc_mgr *m;

	pdc_cfg_init(&cfg);
	cfg.seed = seed;
	cfg.start_psn = start_psn;
	m = pdc_mgr_create(&cfg, &t_ops, NULL);
	cr_assert_not_null(m);
	return m;
}

static uint8_t t_type(const uint8_t *buf, size_t len)
{
	struct pdc_hdr h;

	cr_assert_geq(pdc_hdr_decode(&h, buf, len), 0);
	return h.pro.type;
}

/*
 * Hands every frame |from| builds at |now| to |to| (as from |peer|),
 * but those of type |drop| (0: none). Returns how many went.
 */
static int t_pass(struct pdc_mgr *from, struct pdc_mgr *to, uint32_t peer,
		  uint8_t drop, uint64_t now)
{
	struct pdc_rx_meta meta = { .peer = peer, .src = peer };
	uint8_t buf[512];
	uint32_t dst;
	ssize_t n;
	int cnt = 0;

	while ((n = pdc_tx_build(from, buf, sizeof(buf), &dst, now)) > 0) {
		if (drop && t_type(buf, (size_t)n) == drop)
			continue;
		cr_assert_eq(pdc_rx_frame(to, &meta, buf, (size_t)n, now), 0);
		cnt++;
	}
	return cnt;
}

/* A's SYN: its PDC's id and start PSN; the frame in |buf|. */
static size_t t_syn(struct pdc_mgr *a, uint8_t *buf, struct pdc_info *info,
		    uint64_t now)
{
	struct pdc_pkt pkt = { .peer = T_B, .len = 16, .mode = PDC_MODE_RUD };
	uint32_t dst;
	ssize_t n;

	cr_assert_eq(pdc_send(a, &pkt, now), 0);
	n = pdc_tx_build(a, buf, 512, &dst, now);
	cr_assert_gt(n, 0);
	cr_assert_eq(pdc_info_get(a, T_B, PDC_MODE_RUD, info), 0);
	return (size_t)n;
}

/* B's challenge of A's first SYN, as its gate would send it: a cookie. */
static void t_challenge(struct pdc_mgr *a, struct pdc_mgr *b,
			const struct pdc_info *info, uint64_t now)
{
	struct pdc_nack nk = {
		.pro.type = UET_PDS_TYPE_NACK,
		.nack_code = UET_PDS_NACK_NEW_START_PSN,
		.nack_psn = info->start_psn,
		.dpdcid = info->pdcid,
		.payload = pdc_cookie(b, T_A, info->pdcid, now),
	};
	struct pdc_rx_meta meta = { .peer = T_B, .src = T_B };
	uint8_t buf[64];
	ssize_t n = pdc_nack_encode(buf, sizeof(buf), &nk);

	cr_assert_gt(n, 0);
	cr_assert_eq(pdc_rx_frame(a, &meta, buf, (size_t)n, now), 0);
}

/*
 * The race, up to A's copy under the cookie: B admitted A's first SYN
 * (delivered, its ACK held back: not yet built) and challenged another
 * copy; A renumbered. Returns A's first start PSN.
 */
static uint32_t t_race(struct pdc_mgr *a, struct pdc_mgr *b, uint64_t now)
{
	struct pdc_rx_meta meta = { .peer = T_A, .src = T_A };
	struct pdc_info info, after;
	uint8_t syn[512];
	size_t n = t_syn(a, syn, &info, now);

	t_delivered = t_done = 0;
	t_status = 1;
	cr_assert_eq(pdc_rx_frame(b, &meta, syn, n, now), 0);
	cr_assert_eq(t_delivered, 1);
	t_challenge(a, b, &info, now);
	cr_assert_eq(pdc_info_get(a, T_B, PDC_MODE_RUD, &after), 0);
	cr_assert_neq(after.start_psn, info.start_psn, "A renumbered");
	return info.start_psn;
}

/* The admitted PDC's ACK, in A's first numbering, sends A back at once. */
Test(pdc_synrace, an_ack_of_the_first_numbering_completes_the_write)
{
	struct pdc_mgr *a = t_mgr(11, 0), *b = t_mgr(12, 0);
	struct pdc_info info;
	struct pdc_stats st;
	uint32_t first = t_race(a, b, T_MS);

	/* B's ACK of the first SYN reaches A before A's copy reaches B */
	cr_assert_gt(t_pass(b, a, T_B, 0, 2 * T_MS), 0);
	cr_expect_eq(t_done, 1);
	cr_expect_eq(t_status, 0, "completed with %d", t_status);
	cr_assert_eq(pdc_info_get(a, T_B, PDC_MODE_RUD, &info), 0);
	cr_expect_eq(info.start_psn, first);
	cr_expect(info.is_established);
	pdc_mgr_stats(a, &st);
	cr_expect_eq(st.syn_backs, 1);
	cr_expect_eq(st.peer_restarts, 0);
	/* A's copies under the cookie, if any go, change nothing */
	t_pass(a, b, T_A, 0, 3 * T_MS);
	t_pass(b, a, T_B, 0, 4 * T_MS);
	cr_expect_eq(t_delivered, 1);
	cr_expect_eq(t_done, 1);
	pdc_mgr_destroy(a);
	pdc_mgr_destroy(b);
}

/*
 * The ACK lost: A's copy under the cookie draws INV_DPDCID (B holds the
 * PDC of A's first SYN, which never left its SYN phase); A goes back to
 * its first start, B takes the copy for the packet it has, and answers.
 */
Test(pdc_synrace, a_refusal_sends_the_syn_back_to_its_first_start)
{
	struct pdc_mgr *a = t_mgr(21, 0), *b = t_mgr(22, 0);
	struct pdc_stats sa, sb;
	uint64_t now = 2 * T_MS;

	t_race(a, b, T_MS);
	for (int i = 0; i < 20 && !t_done; i++, now += T_MS) {
		t_pass(a, b, T_A, 0, now);
		/* every ACK of B's in this test is lost until the refusal */
		t_pass(b, a, T_B, i < 1 ? UET_PDS_TYPE_ACK_CC : 0, now);
		t_pass(b, a, T_B, i < 1 ? UET_PDS_TYPE_ACK : 0, now);
	}
	cr_expect_eq(t_done, 1);
	cr_expect_eq(t_status, 0, "completed with %d", t_status);
	cr_expect_eq(t_delivered, 1);
	pdc_mgr_stats(a, &sa);
	pdc_mgr_stats(b, &sb);
	cr_expect_geq(sa.syn_backs, 1);
	cr_expect_eq(sa.peer_restarts, 0);
	cr_expect_gt(sb.rx_stale, 0, "B refused a copy under the cookie");
	pdc_mgr_destroy(a);
	pdc_mgr_destroy(b);
}

/*
 * B's PDC under A's PDCID is not A's: it belongs to a predecessor of A
 * (same PDCID, another start PSN), which never left its SYN phase. A is
 * challenged, renumbers, is refused, goes back, and so on: after
 * PDC_SYN_BACKS rounds it fails (ECONNRESET), as before; B delivered
 * only the predecessor's packet.
 */
Test(pdc_synrace, a_target_pdc_not_ours_still_fails_the_write)
{
	struct pdc_mgr *a0 = t_mgr(31, 0x1000), *a = t_mgr(31, 0);
	struct pdc_mgr *b = t_mgr(32, 0);
	struct pdc_info i0, info;
	struct pdc_stats sa;
	uint8_t syn[512];
	uint64_t now = 2 * T_MS;
	struct pdc_rx_meta meta = { .peer = T_A, .src = T_A };
	size_t n = t_syn(a0, syn, &i0, T_MS);

	t_delivered = 0;
	cr_assert_eq(pdc_rx_frame(b, &meta, syn, n, T_MS), 0);
	cr_assert_eq(t_delivered, 1);
	n = t_syn(a, syn, &info, T_MS);
	cr_assert_eq(info.pdcid, i0.pdcid, "the same PDCID");
	cr_assert_neq(info.start_psn, i0.start_psn);
	t_done = 0;
	t_status = 1;
	cr_assert_eq(pdc_rx_frame(b, &meta, syn, n, T_MS), 0);
	for (int i = 0; i < 40 && !t_done; i++, now += T_MS) {
		t_pass(b, a, T_B, 0, now);
		t_pass(a, b, T_A, 0, now);
	}
	cr_expect_eq(t_done, 1);
	cr_expect_eq(t_status, -ECONNRESET, "completed with %d", t_status);
	cr_expect_eq(t_delivered, 1);
	pdc_mgr_stats(a, &sa);
	cr_expect_eq(sa.syn_backs, 3);
	pdc_mgr_destroy(a0);
	pdc_mgr_destroy(a);
	pdc_mgr_destroy(b);
}
