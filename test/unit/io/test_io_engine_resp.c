/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which of our peers a response that rides a PDC of the remote's answers
 * (engine/uet_engine_tag.h). One remote endpoint B reaches us, A, through
 * several peers of its own, and our PIDonFEP peer of B and our index peer
 * of B (which pulls B's rendezvous sends) number their messages apart
 * under the same prefix, so both may have the same message_id out at
 * once. The MPI_Allreduce hang: the READ data of a pull (id N, our index
 * peer) arrived while our rendezvous send to B also had id N; with one
 * kind bit in the source port both answers came to one peer and were told
 * apart by the id alone, the data went to the send and was dropped, and
 * the pull, the receive and B's send never ended.
 *
 * The engine's own uet_engine_pdc_deliver is driven with the packets B
 * sends, from the peer (tag) they arrive at, computed with the kinds B's
 * peers put in their source port; SES completes what they answer.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "engine/uet_engine_priv.h"
#include "ses/ses_hdr.h"

#define T_B_EP		5	/* B's endpoint index */
#define T_B_PID		0x101	/* B's PIDonFEP */
#define T_A_EP		2	/* ours */
#define T_READ_LEN	1024
#define T_SEND_LEN	64

struct t_env {
	struct uet_engine *e;
	uint32_t pid_peer;	/* ours for B, PIDonFEP: sends to B */
	uint32_t ep_peer;	/* ours for B's PIDonFEP peer: pulls B's sends */
	struct ses_addr dst_pid, dst_ep;
	struct ses_iov read_iov, send_iov;
	struct ses_wre read, send;
	uint8_t read_buf[T_READ_LEN], send_buf[T_SEND_LEN];
	const struct ses_wre *done[4];
	struct ses_tx_cpl cpl[4];
	int ndone;
};

static int t_tx(void *ctx, const struct ses_pkt *pkt)
{
	(void)ctx;
	(void)pkt;
	return 0;	/* held by a PDC that never answers */
}

static void t_tx_done(void *ctx, const struct ses_wre *wre,
		      const struct ses_tx_cpl *cpl)
{
	struct t_env *t = ctx;

	cr_assert_lt(t->ndone, 4);
	t->done[t->ndone] = wre;
	t->cpl[t->ndone++] = *cpl;
}

/* A peer of ours for B with |tag| (at B's address). */
static uint32_t t_peer_add(struct t_env *t, uint32_t tag, int32_t remote_ep)
{
	struct uet_engine_peer *p = &t->e->peers[t->e->npeers];

	p->fa.is_v6 = false;
	inet_pton(AF_INET, "10.0.0.5", &p->fa.v4);
	p->tag = tag;
	p->remote_ep = remote_ep;
	p->state = UET_PEER_LIVE;
	return t->e->npeers++;
}

/* Our peer that hears what B's peer |b_tag| sends us. */
static uint32_t t_mailbox(struct t_env *t, uint32_t b_tag)
{
	uint16_t sport = 0x8000 | uet_engine_tag_send_kind(b_tag);
	uint32_t tag = uet_engine_tag_rx(sport, T_B_EP);

	for (uint32_t i = 0; i < t->e->npeers; i++)
		if (t->e->peers[i].tag == tag)
			return i;
	return t_peer_add(t, tag, T_B_EP);
}

/*
 * Ours: the PIDonFEP peer first (as when we sent to B before B sent to
 * us), then the index peer of B's PIDonFEP peer. Both send their first
 * message (seed 0: every sequence starts at 1) and so have the same id out:
 * a tagged send from the PIDonFEP peer, a READ (a pull) from the other.
 */
static void t_setup(struct t_env *t)
{
	struct ses_ops ops = { .tx = t_tx, .tx_done = t_tx_done };
	struct ses_config cfg;

	memset(t, 0, sizeof(*t));
	t->e = calloc(1, sizeof(*t->e));
	cr_assert_not_null(t->e);
	cr_assert_eq(uet_engine_peers_setup(t->e), 0);
	ses_config_init(&cfg);
	cfg.msg_id_prefix = T_A_EP;
	cfg.msg_id_prefix_bits = 6;
	t->e->ses = ses_create(&cfg, &ops, t);
	cr_assert_not_null(t->e->ses);
	t->pid_peer = t_peer_add(t, UET_ENGINE_TAG_PID | T_B_PID, T_B_EP);
	t->ep_peer = t_peer_add(t, uet_engine_tag_rx(0x8000, T_B_EP), -1);

	t->dst_pid = (struct ses_addr){ .peer = t->pid_peer,
					.pid_on_fep = T_B_PID };
	t->send_iov = (struct ses_iov){ .base = t->send_buf, .len = T_SEND_LEN };
	t->send = (struct ses_wre){ .opcode = UET_SES_OP_TAGGED_SEND,
				    .flags = SES_WRE_F_COMPLETION,
				    .dst = &t->dst_pid, .iov = &t->send_iov,
				    .iov_cnt = 1, .tag = 7 };
	t->dst_ep = (struct ses_addr){ .peer = t->ep_peer,
				       .pid_on_fep = T_B_PID };
	t->read_iov = (struct ses_iov){ .base = t->read_buf, .len = T_READ_LEN };
	t->read = (struct ses_wre){ .opcode = UET_SES_OP_READ,
				    .flags = SES_WRE_F_COMPLETION,
				    .dst = &t->dst_ep, .iov = &t->read_iov,
				    .iov_cnt = 1, .mkey = 0x42 };
	cr_assert_eq(ses_wre_post(t->e->ses, &t->send), 0);
	cr_assert_eq(ses_wre_post(t->e->ses, &t->read), 0);
}

static void t_teardown(struct t_env *t)
{
	ses_destroy(t->e->ses);
	uet_engine_peers_destroy(t->e);
	free(t->e);
}

/* The id both have out: our prefix, sequence 1. */
static uint16_t t_id(void)
{
	return (uint16_t)(T_A_EP << 10 | 1);
}

static void t_deliver(struct t_env *t, uint32_t peer, uint8_t next_hdr,
		      const uint8_t *buf, size_t len)
{
	struct pdc_rx_pkt pkt = { .peer = peer, .open_seq = 1,
				  .next_hdr = next_hdr, .buf = buf,
				  .len = len };
	struct pdc_resp resp;

	cr_assert_eq(uet_engine_pdc_deliver(t->e, &pkt, &resp), 0);
}

/* B's index peer of our index peer serves the pull: the data is the READ's. */
Test(engine_resp, read_data_finds_the_pull_not_the_send_with_its_id)
{
	struct ses_rsp_data_hdr h = {
		.opcode = UET_SES_RSP_RESPONSE_W_DATA,
		.return_code = UET_SES_RC_OK, .message_id = t_id(),
		.read_request_message_id = t_id(),
		.payload_length = T_READ_LEN, .modified_length = T_READ_LEN,
	};
	uint8_t pkt[64 + T_READ_LEN];
	struct ses_stats st;
	struct t_env t;
	ssize_t n;

	t_setup(&t);
	cr_assert(ses_msg_is_outstanding(t.e->ses, t.pid_peer, t_id()));
	cr_assert(ses_msg_is_outstanding(t.e->ses, t.ep_peer, t_id()));
	n = ses_rsp_data_hdr_encode(pkt, sizeof(pkt), &h);
	cr_assert_gt(n, 0);
	memset(pkt + n, 0xab, T_READ_LEN);
	/* B's peer that our index peer's READ reached: B's index peer of
	 * the kind of ours. */
	t_deliver(&t, t_mailbox(&t, uet_engine_tag_rx(
				    uet_engine_tag_send_kind(
					    t.e->peers[t.ep_peer].tag),
				    T_A_EP)),
		  UET_PDS_NEXT_HDR_RESPONSE_DATA, pkt, (size_t)n + T_READ_LEN);
	cr_assert_eq(t.ndone, 1, "the READ data ended nothing");
	cr_assert_eq(t.done[0], &t.read);
	cr_assert_eq(t.cpl[0].status, 0);
	cr_assert_eq(t.read_buf[0], 0xab);
	cr_assert_eq(t.read_buf[T_READ_LEN - 1], 0xab);
	cr_assert(ses_msg_is_outstanding(t.e->ses, t.pid_peer, t_id()));
	ses_stats_get(t.e->ses, &st);
	cr_assert_eq(st.rx_stale_rsps, 0);
	t_teardown(&t);
}

/*
 * B's index peer of our PIDonFEP peer answers our send late (a rendezvous
 * send, answered once B pulled it): the answer is the send's.
 */
Test(engine_resp, deferred_response_finds_the_send_not_the_pull)
{
	struct ses_rsp_hdr h = {
		.opcode = UET_SES_RSP_RESPONSE, .return_code = UET_SES_RC_OK,
		.message_id = t_id(), .modified_length = T_SEND_LEN,
	};
	uint8_t pkt[64];
	struct t_env t;
	ssize_t n;

	t_setup(&t);
	n = ses_rsp_hdr_encode(pkt, sizeof(pkt), &h);
	cr_assert_gt(n, 0);
	t_deliver(&t, t_mailbox(&t, uet_engine_tag_rx(
				    uet_engine_tag_send_kind(
					    t.e->peers[t.pid_peer].tag),
				    T_A_EP)),
		  UET_PDS_NEXT_HDR_RESPONSE, pkt, (size_t)n);
	cr_assert_eq(t.ndone, 1, "the answer ended nothing");
	cr_assert_eq(t.done[0], &t.send);
	cr_assert_eq(t.cpl[0].status, 0);
	cr_assert(ses_msg_is_outstanding(t.e->ses, t.ep_peer, t_id()));
	t_teardown(&t);
}

/*
 * The peers B's peers send from: each of ours that sends requests (the
 * PIDonFEP peer, index peers of kind 0 and 1) is served by a peer of B
 * whose packets come to a peer of ours of its own, and that one's
 * responses go back to the one that asked.
 */
Test(engine_resp, each_asking_peer_has_its_own_mailbox)
{
	uint32_t askers[] = { UET_ENGINE_TAG_PID | T_B_PID,
			      uet_engine_tag_ep(0, T_B_EP),
			      uet_engine_tag_ep(1, T_B_EP) };
	uint32_t seen[3];

	for (int i = 0; i < 3; i++) {
		/* B's peer for our asker, then ours for B's. */
		uint32_t b = uet_engine_tag_rx(
			uet_engine_tag_send_kind(askers[i]), T_A_EP);
		uint32_t mine = uet_engine_tag_rx(
			uet_engine_tag_send_kind(b), T_B_EP);
		uint32_t owner = uet_engine_tag_resp_owner(mine);

		seen[i] = mine;
		for (int j = 0; j < i; j++)
			cr_assert_neq(seen[j], mine, "askers %d and %d share "
				      "the peer their answers come to", j, i);
		if (askers[i] & UET_ENGINE_TAG_PID)
			cr_assert_eq(owner, UET_ENGINE_TAG_PID);
		else
			cr_assert_eq(owner, askers[i]);
	}
	/* Requests from B's PIDonFEP peer are its own, answered in ACKs. */
	cr_assert_eq(uet_engine_tag_resp_owner(uet_engine_tag_ep(0, T_B_EP)),
		     uet_engine_tag_ep(0, T_B_EP));
	cr_assert_eq(uet_engine_tag_resp_owner(UET_ENGINE_TAG_PID | T_B_PID),
		     UET_ENGINE_TAG_PID | T_B_PID);
}
