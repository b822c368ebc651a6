/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target for the SES engine as a target: random sequences of
 * request packets (raw, or built from input fields so that most get past
 * parsing) from three peers on three contexts (PDCs) each, responses,
 * receive operations, refused tx, time passing, and peers that fail or
 * restart.
 * After every step it checks that no byte of the arena outside the
 * registered regions and posted receives changed, that the read-only
 * region never changed, and that every payload sent out was read from a
 * readable region. The first byte puts the engine's message_ids under a
 * prefix of 1 to 8 bits in half the runs: every request it sends must carry
 * it, and requests come under varying prefixes. Built requests include our
 * RDMOs (appends whose pointer and data lie in the regions, scatters with
 * descriptors, flushes).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ses/ses.h"
#include "ses/ses_hdr.h"
#include "ses/ses_recv.h"
#include "ses/ses_ri.h"

#define F_ARENA_LEN	32768
#define F_CANARY	0xA5
#define F_JOB		1
#define F_PID		1

/* Arena ranges: [off, off + len), what may change them. */
struct f_range {
	uint32_t off, len;
	bool writable;		/* by the peer: region or receive */
	bool readable;		/* payload may be sent from it */
};

static const struct f_range f_ranges[] = {
	{ 1024, 4096, true, true },	/* rkey 0x11, ri 1, read + write */
	{ 8192, 1024, false, true },	/* rkey 0x22, ri 1, read only */
	{ 12288, 4096, true, false },	/* rkey 0x33, ri 1, write only */
	{ 17408, 2048, true, false },	/* rkey 0x11, ri 3 (no gen) */
	{ 20480, 2048, true, false },	/* receive buffers */
	{ 22528, 2048, true, false },
	{ 26624, 4096, true, false },	/* our READ's sink */
};
#define F_NRANGES	(sizeof(f_ranges) / sizeof(f_ranges[0]))

static uint8_t f_arena[F_ARENA_LEN];
static uint8_t f_ro_snap[1024];
static int f_tx_refuse;
static uint16_t f_id_prefix, f_id_prefix_mask;	/* in place */

static const uint8_t f_canary_run[F_ARENA_LEN] = { [0 ... F_ARENA_LEN - 1] =
							F_CANARY };

static void f_check(void)
{
	uint32_t at = 0, r;

	/* f_ranges is sorted: compare the gaps between them to canaries. */
	for (r = 0; r < F_NRANGES; r++) {
		if (memcmp(f_arena + at, f_canary_run, f_ranges[r].off - at))
			abort();		/* written outside */
		at = f_ranges[r].off + f_ranges[r].len;
	}
	if (memcmp(f_arena + at, f_canary_run, F_ARENA_LEN - at))
		abort();
	if (memcmp(f_arena + f_ranges[1].off, f_ro_snap, sizeof(f_ro_snap)))
		abort();			/* read-only region written */
}

static bool f_is_readable(const uint8_t *p, size_t len)
{
	uintptr_t lo = (uintptr_t)f_arena, a = (uintptr_t)p;

	for (uint32_t r = 0; r < F_NRANGES; r++)
		if (f_ranges[r].readable && a >= lo + f_ranges[r].off &&
		    a + len <= lo + f_ranges[r].off + f_ranges[r].len)
			return true;
	return false;
}

static int f_tx(void *ctx, const struct ses_pkt *pkt)
{
	static uint8_t out[SES_PKT_HDR_MAX + UET_PAYLOAD_MTU_MAX];
	size_t off = pkt->pay_off;

	(void)ctx;
	if (f_tx_refuse > 0) {
		f_tx_refuse--;
		return -EAGAIN;
	}
	if (pkt->hdr_len > SES_PKT_HDR_MAX || pkt->pay_len > 16383)
		abort();
	/* Our requests carry our prefix. */
	if (pkt->next_hdr == UET_PDS_NEXT_HDR_REQUEST_STD) {
		struct ses_std_hdr h;

		if (ses_std_hdr_decode(&h, pkt->hdr, pkt->hdr_len) < 0 ||
		    (h.message_id & f_id_prefix_mask) != f_id_prefix)
			abort();
	}
	/* Response data must come from a readable region. */
	if (pkt->next_hdr == UET_PDS_NEXT_HDR_RESPONSE_DATA) {
		if (pkt->iov_cnt != 1 || off > pkt->iov[0].len ||
		    !f_is_readable((const uint8_t *)pkt->iov[0].base + off,
				   pkt->pay_len))
			abort();
	}
	ses_pkt_payload_copy(pkt, out);
	return 0;
}

static void f_tx_done(void *ctx, const struct ses_wre *wre,
		      const struct ses_tx_cpl *cpl)
{
	(void)ctx;
	(void)wre;
	(void)cpl;
}

static void f_recv_done(void *ctx, const struct ses_recv_cpl *cpl)
{
	(void)ctx;
	if (cpl->len > 2048)
		abort();			/* more than the receive holds */
}

static const struct ses_ops f_ops = {
	.tx = f_tx, .tx_done = f_tx_done, .recv_done = f_recv_done,
};

/* Input reader: bytes run out as zeros. */
struct f_in {
	const uint8_t *p;
	size_t n;
};

static uint64_t f_take(struct f_in *in, unsigned nbytes)
{
	uint64_t v = 0;

	while (nbytes--) {
		v <<= 8;
		if (in->n) {
			v |= *in->p++;
			in->n--;
		}
	}
	return v;
}

static void f_post_recv(struct ses *s, unsigned which, bool tagged,
			uint64_t tag)
{
	struct ses_iov iov = { f_arena + f_ranges[4 + which].off, 2048, NULL };
	struct ses_recv_attr ra = { .iov = &iov, .iov_cnt = 1, .tag = tag,
				    .ignore = tag & 0xF0,
				    .initiator = SES_INITIATOR_ANY,
				    .flags = tagged ? SES_RECV_F_TAGGED : 0,
				    .user_ctx = (void *)(uintptr_t)(which + 1) };

	/* Posting the same buffer twice is the caller's business; avoid it. */
	ses_recv_cancel(s, ra.user_ctx);
	ses_recv_post(s, &ra);
}

static struct ses *f_setup(uint8_t mode)
{
	struct ses_ri_id ri1 = { F_JOB, F_PID, 1 }, ri2 = { F_JOB, F_PID, 2 };
	struct ses_ri_id ri3 = { F_JOB, F_PID, 3 };
	struct ses_config cfg;
	struct ses *s;

	ses_config_init(&cfg);
	cfg.payload_mtu = 1024;
	cfg.job_id = F_JOB;
	cfg.pid_on_fep = F_PID;
	cfg.rdv_ri = 9;
	cfg.max_rx_msgs = 16;
	cfg.max_unexpected = 4;
	cfg.max_unexpected_len = 8192;
	cfg.max_msg_len = 65536;
	cfg.max_msgs = 16;
	cfg.max_peers = 8;
	cfg.max_recvs = 8;
	cfg.max_ri_tables = 8;
	cfg.max_mrs = 16;
	cfg.msg_id_prefix_bits = mode & 0x8 ? (mode & 7) + 1 : 0;
	cfg.msg_id_prefix = (uint16_t)((mode >> 4) &
				       ((1u << cfg.msg_id_prefix_bits) - 1));
	f_id_prefix_mask = (uint16_t)(0xFFFF0000u >> cfg.msg_id_prefix_bits);
	f_id_prefix = (uint16_t)(cfg.msg_id_prefix <<
				 (16 - cfg.msg_id_prefix_bits));
	s = ses_create(&cfg, &f_ops, NULL);
	if (!s)
		abort();
	if (ses_ri_add(s, &ri1, 0) || ses_ri_add(s, &ri2, SES_RI_F_MSG) ||
	    ses_ri_add(s, &ri3, SES_RI_F_NO_GEN | SES_RI_F_MSG) ||
	    ses_mr_add(s, &ri1, 0x11, f_arena + 1024, 4096,
		       SES_ACCESS_REMOTE_READ | SES_ACCESS_REMOTE_WRITE) ||
	    ses_mr_add(s, &ri1, 0x22, f_arena + 8192, 1024,
		       SES_ACCESS_REMOTE_READ) ||
	    ses_mr_add(s, &ri1, 0x33, f_arena + 12288, 4096,
		       SES_ACCESS_REMOTE_WRITE) ||
	    ses_mr_add(s, &ri3, 0x11, f_arena + 17408, 2048,
		       SES_ACCESS_REMOTE_WRITE))
		abort();
	return s;
}

/* The last request built, for continuation packets of its message. */
static struct ses_std_hdr f_last;
static struct ses_rdmo_ext f_last_rdmo;

/*
 * An RDMO's extension after the header (continuation packets repeat
 * it) and, for a scatter's first packet, descriptors at the payload's
 * start: mostly of the regions, sometimes not.
 */
static size_t f_rdmo_ext(struct f_in *in, const struct ses_std_hdr *h,
			 uint8_t *pkt, size_t n, size_t cap, size_t pay,
			 bool fresh)
{
	static const uint64_t keys[] = { 0x11, 0x22, 0x33, 0x44 };
	struct ses_rdmo_ext *x = &f_last_rdmo;
	struct ses_rdmo_piece pc;
	ssize_t e;

	if (fresh) {
		memset(x, 0, sizeof(*x));
		x->flags = (uint8_t)(f_take(in, 1) & 1);
		x->ptr_memory_key = keys[f_take(in, 1) % 4];
		x->ptr_offset = f_take(in, 2) % 4200;
		x->data_bias = f_take(in, 1) & 1 ? 0 : f_take(in, 8);
		x->piece_count = (uint16_t)(f_take(in, 1) % 9);
		x->first_message_id = (uint16_t)(h->message_id -
						 f_take(in, 1) % 8);
	}
	e = ses_rdmo_ext_encode(pkt + n, cap - n, h->opcode, x);
	if (e < 0)
		return n;
	n += (size_t)e;
	if (h->opcode != UET_SES_OP_RDMO_SCATTER || !h->f.som)
		return n;
	for (unsigned i = 0; i < x->piece_count &&
	     (i + 1) * UET_SES_RDMO_PIECE_LEN <= pay &&
	     n + UET_SES_RDMO_PIECE_LEN <= cap; i++) {
		pc.memory_key = keys[f_take(in, 1) % 4];
		pc.buffer_offset = f_take(in, 2) % 4200;
		pc.length = (uint32_t)(f_take(in, 2) % 1200);
		ses_rdmo_piece_encode(pkt + n + i * UET_SES_RDMO_PIECE_LEN,
				      &pc);
	}
	return n;
}

/* A later packet of the message f_last began: mostly a plausible one. */
static size_t f_next_req(struct f_in *in, uint8_t *pkt, size_t cap)
{
	uint8_t sel = (uint8_t)f_take(in, 1);
	struct ses_std_hdr h = f_last;
	size_t n, pay;

	h.f.som = false;
	h.f.hd = false;
	h.f.eom = sel & 1;
	h.message_offset = (uint32_t)(sel >> 1) << 10;
	pay = h.f.eom && h.request_length > h.message_offset ?
	      h.request_length - h.message_offset : 1024;
	if (sel & 0x80)
		pay = f_take(in, 2) % 1500;
	if (pay > 2048)
		pay = 2048;
	h.payload_length = (uint16_t)pay;
	n = (size_t)ses_std_hdr_encode(pkt, cap, &h);
	if (ses_rdmo_ext_len(h.opcode))
		n = f_rdmo_ext(in, &h, pkt, n, cap, pay, false);
	if (pay > cap - n)
		pay = cap - n;
	memset(pkt + n, (int)sel, pay);
	return n + pay;
}

/* A request built from input fields: mostly sane, sometimes not. */
static size_t f_build_req(struct f_in *in, uint8_t *pkt, size_t cap)
{
	static const uint8_t ops[] = {
		UET_SES_OP_WRITE, UET_SES_OP_READ, UET_SES_OP_SEND,
		UET_SES_OP_TAGGED_SEND, UET_SES_OP_RENDEZVOUS_SEND,
		UET_SES_OP_RENDEZVOUS_TSEND, UET_SES_OP_ATOMIC, UET_SES_OP_NO_OP,
	};
	static const uint64_t keys[] = { 0x11, 0x22, 0x33, 0x44 };
	struct ses_std_hdr h = { 0 };
	struct ses_rdv_ext e = { 0 };
	uint8_t sel = (uint8_t)f_take(in, 1), sel2 = (uint8_t)f_take(in, 1);
	size_t n, pay, table = 0;

	h.opcode = ops[sel & 7];
	/* Our RDMOs, now and then. */
	if (sel2 & 8)
		h.opcode = (uint8_t)(UET_SES_OP_RDMO_APPEND + (sel2 >> 4) % 3);
	h.f.som = sel & 0x08;
	h.f.eom = sel & 0x10;
	h.f.rel = !(sel & 0x20);
	h.f.dc = sel & 0x40;
	h.f.hd = h.f.som && (sel & 0x80);
	h.message_id = (uint16_t)f_take(in, sel2 & 4 ? 2 : 1);
	h.ri_generation = (uint8_t)(f_take(in, 1) & 3);
	h.job_id = F_JOB + (uint32_t)(f_take(in, 1) % 8 == 0);
	h.pid_on_fep = F_PID;
	h.resource_index = (uint16_t)(f_take(in, 1) % 4);
	h.memory_key = keys[f_take(in, 1) % 4] | (f_take(in, 1) & 1) << 62;
	/* Mostly near the regions' sizes, sometimes anything at all. */
	h.buffer_offset = sel2 & 1 ? f_take(in, 8) : f_take(in, 2) % 6144;
	h.header_data = 77;
	h.initiator = (uint32_t)f_take(in, 1);
	h.message_offset = (uint32_t)f_take(in, 1) << 10;
	h.request_length = sel2 & 2 ? (uint32_t)f_take(in, 4) :
			   (uint32_t)f_take(in, 2) % 6144;
	pay = f_take(in, 2) % (2 * 1024 + 1);
	h.payload_length = (uint16_t)(h.f.som ? 0 : pay);
	f_last = h;
	n = (size_t)ses_std_hdr_encode(pkt, cap, &h);
	if (h.opcode == UET_SES_OP_RENDEZVOUS_SEND ||
	    h.opcode == UET_SES_OP_RENDEZVOUS_TSEND) {
		e.eager_length = (uint32_t)pay;
		e.pid_on_fep = (uint16_t)(f_take(in, 1) % 3);
		e.resource_index = 9;
		e.read_offset = f_take(in, 1);
		e.read_match_bits = f_take(in, 1);
		n += (size_t)ses_rdv_ext_encode(pkt + n, cap - n, &e);
	}
	if (ses_rdmo_ext_len(h.opcode)) {
		n = f_rdmo_ext(in, &h, pkt, n, cap, pay, true);
		/* A scatter's descriptors are its payload's first bytes. */
		if (h.f.som && h.opcode == UET_SES_OP_RDMO_SCATTER)
			table = (size_t)f_last_rdmo.piece_count *
				UET_SES_RDMO_PIECE_LEN;
	}
	if (pay > cap - n)
		pay = cap - n;
	if (table > pay)
		table = pay;
	memset(pkt + n + table, (int)sel, pay - table);
	return n + pay;
}

static void f_step(struct ses *s, struct f_in *in, uint64_t *now)
{
	static uint8_t pkt[4096];
	uint8_t rsp[UET_SES_RSP_LEN];
	uint32_t from = (uint32_t)f_take(in, 1);
	/* Three peers, each on one of three contexts (PDCs). */
	struct ses_rx_pkt rx = { .peer = 2 + from % 3, .pdc = from / 3 % 3 };
	struct ses_recv_attr any = { .initiator = SES_INITIATOR_ANY,
				     .ignore = ~0ull };
	struct ses_recv_info info;
	uint8_t op = (uint8_t)f_take(in, 1);
	size_t len;

	rx.buf = pkt;
	rx.now_ns = *now;
	switch (op % 8) {
	case 0:		/* raw request bytes */
		rx.next_hdr = (uint8_t)(f_take(in, 1) % 7);
		len = f_take(in, 1) % 128;
		len = len < in->n ? len : in->n;
		memcpy(pkt, in->p, len);
		in->p += len;
		in->n -= len;
		rx.len = len;
		ses_rx_req(s, &rx, rsp, sizeof(rsp));
		ses_rx_rsp(s, &rx);
		break;
	case 1:
	case 2:		/* a built request */
		rx.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD;
		rx.len = f_build_req(in, pkt, sizeof(pkt));
		ses_rx_req(s, &rx, rsp, sizeof(rsp));
		break;
	case 3:		/* the next packet of the last built message */
		rx.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD;
		rx.len = f_next_req(in, pkt, sizeof(pkt));
		ses_rx_req(s, &rx, rsp, sizeof(rsp));
		break;
	case 4:		/* receives */
		f_post_recv(s, op >> 7, op & 0x10, f_take(in, 1));
		break;
	case 5:		/* peek, claim into a receive buffer, or discard */
		any.flags = op & 0x10 ? SES_RECV_F_TAGGED : 0;
		if (ses_recv_peek(s, &any, true, &info))
			break;
		if (op & 0x20) {
			ses_recv_discard(s, info.handle);
		} else {
			ses_recv_cancel(s, (void *)(uintptr_t)2);
			any.iov = &(struct ses_iov){ f_arena + 22528, 2048, 0 };
			any.iov_cnt = 1;
			any.user_ctx = (void *)(uintptr_t)2;
			ses_recv_claim(s, info.handle, &any);
		}
		break;
	case 6:		/* time passes; tx refuses for a while */
		*now += f_take(in, 1) * 100000000ull;
		f_tx_refuse = op >> 5;
		ses_progress(s, *now);
		break;
	default:	/* a peer fails or restarts */
		if (op & 0x80)
			ses_peer_reset(s, rx.peer);
		else
			ses_peer_fail(s, rx.peer, -EIO);
		break;
	}
	f_check();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct f_in in = { data, size };
	struct ses_addr peer = { .peer = 2, .job_id = F_JOB, .pid_on_fep = 1 };
	struct ses_iov sink = { f_arena + 26624, 4096, NULL };
	struct ses_wre rd = { .opcode = UET_SES_OP_READ, .dst = &peer,
			      .ri = 1, .iov = &sink, .iov_cnt = 1,
			      .mkey = 0x11 };
	uint64_t now = 0;
	struct ses *s;

	memset(f_arena, F_CANARY, sizeof(f_arena));
	for (size_t i = 0; i < sizeof(f_ro_snap); i++)
		f_arena[8192 + i] = f_ro_snap[i] = (uint8_t)(i * 5);
	f_tx_refuse = 0;
	memset(&f_last, 0, sizeof(f_last));
	f_last.opcode = UET_SES_OP_WRITE;
	s = f_setup((uint8_t)f_take(&in, 1));
	/* Outstanding messages of ours, for stray responses to meet. */
	ses_wre_post(s, &rd);
	while (in.n)
		f_step(s, &in, &now);
	ses_progress(s, now + 10000000000ull);
	f_check();
	ses_destroy(s);
	return 0;
}
