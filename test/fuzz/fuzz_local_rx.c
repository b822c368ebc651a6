/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target for the engine's local channels (engine/uet_lch.h,
 * uet_engine_local_rx.c): the fuzzer plays the other endpoints of the
 * interface, processes of one host that share memory with the engine.
 * Through their rings in the engine's inbox it writes whole records as a
 * peer process lays them there (header, SES header, payload: real ones in
 * the seeds, anything after mutation), takes rings over at any position
 * with any key, and as the target of the engine's own sends it reads
 * what the engine wrote into its inbox and answers in every way a peer
 * may (fuzz_local_rx.h). The engine reads with uet_engine_local_rx()
 * from its progress; the device layer and the service are fake_*
 * (fuzz_engine_fakes.c; the control block is ours).
 *
 * Checked after every step, besides memory safety and fe_check() (no
 * byte outside the registered region and the posted receive changed):
 * - what the engine writes into a peer's inbox reads back well formed
 *   with the real reader: never a broken ring;
 * - its answers to a peer's requests come in the order of the requests
 *   (a subsequence of them: a broken ring or a takeover drops some), each
 *   to the peer id the request named; once a takeover went back or took
 *   an earlier key, the engine may read requests again, so that answers
 *   must then only answer some request; its responses name a peer id a
 *   request of that peer named;
 * - every WRE posted completes once, never twice.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "dev/uet_dev_shm.h"
#include "engine/uet_engine_local_priv.h"
#include "fuzz_engine_common.h"
#include "fuzz_local_rx.h"
#include "ses/ses_hdr.h"

#define F_STEPS		256
#define F_REQS		(F_STEPS + 8)
#define F_POSTS		32
#define F_SRC_PEERS	16

/* A request the engine wrote to a peer, waiting for the peer's answer. */
struct f_ereq {
	uint32_t seq, src_peer;
	uint16_t msg_id;
	uint8_t opcode;
	uint32_t len;
};

struct f_peer {
	uint32_t ep;
	/* The peer's own inbox (FL_PEERS of them) and wake socket. */
	int fd, wake;
	uint64_t nonce;
	struct uet_lch_inbox *inbox;
	/* Its ring in the engine's inbox. */
	struct uet_lch_writer w;
	bool taken;
	/* Requests it wrote there, for the order of the answers. */
	struct { uint32_t seq, src_peer; } req[F_REQS];
	uint32_t nreq, cur;
	bool unordered;		/* requests may be read again */
	uint64_t keys;		/* keys of its own drawn */
	uint32_t src_peer[F_SRC_PEERS];
	uint32_t nsrc;
	/* What the engine writes it: read with the real reader. */
	struct uet_lch_reader rd;
	struct f_ereq ereq[LCH_FIFO];
	uint32_t eh, et;
};

static struct f_peer f_peers[FL_WRITERS];
static struct uet_dev_shm *f_shm;
static struct {
	struct ses_wre wre;
	struct ses_addr dst;
	struct ses_iov iov;
	bool busy;
} f_post[F_POSTS];
static uint8_t f_src[FL_POST_MAX], f_sink[F_POSTS][FL_POST_MAX];

/* The abstract name of a wake socket (uet_engine_local.c's). */
static void f_wake_name(struct sockaddr_un *a, socklen_t *len, uint64_t nonce)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1,
		     "uet-lch-%016llx", (unsigned long long)nonce);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/*
 * The engine's wake socket has a name fixed by the fake random source:
 * in a network namespace of our own, runs side by side do not clash.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (unshare(CLONE_NEWNET) && unshare(CLONE_NEWUSER | CLONE_NEWNET))
		fprintf(stderr, "fuzz_local_rx: no network namespace of its "
			"own (%m): another run at once would clash\n");
	return 0;
}

static void f_peer_open(struct f_peer *p, uint32_t i)
{
	struct uet_dev_shm_slot *sl = &f_shm->slot[fl_writer_ep[i]];
	struct sockaddr_un a;
	socklen_t alen;

	memset(p, 0, sizeof(*p));
	p->ep = fl_writer_ep[i];
	p->fd = p->wake = -1;
	p->rd.size = uet_lch_ring_bytes(FL_RINGS);
	sl->state = UET_DEV_SLOT_ACTIVE;
	if (i >= FL_PEERS)
		return;		/* no inbox: requests to it are refused */
	p->nonce = (uint64_t)getpid() << 16 | (0xA0 + i);
	if (uet_lch_inbox_create(p->ep, FL_RINGS, p->nonce, &p->fd,
				 &p->inbox) < 0)
		abort();
	p->wake = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	f_wake_name(&a, &alen, p->nonce);
	if (p->wake < 0 || bind(p->wake, (struct sockaddr *)&a, alen) < 0)
		abort();
	sl->lch_pid = (uint32_t)getpid();
	sl->lch_fd = p->fd;
	sl->lch_nonce = p->nonce;
	f_shm->pid_ep[FL_PID(i)] = (uint16_t)p->ep;
	f_shm->pid_job[FL_PID(i)] = FE_JOB;
}

static void f_peer_close(struct f_peer *p)
{
	uet_lch_inbox_unmap(p->inbox, FL_RINGS);
	if (p->fd >= 0)
		close(p->fd);
	if (p->wake >= 0)
		close(p->wake);
}

/* Every WRE completes once. */
static void f_tx_done(const struct ses_wre *wre, const struct ses_tx_cpl *cpl)
{
	size_t i = (size_t)(uintptr_t)wre->user_ctx;

	(void)cpl;
	if (i >= F_POSTS || wre != &f_post[i].wre || !f_post[i].busy)
		__builtin_trap();
	f_post[i].busy = false;
}

static void f_setup(void)
{
	size_t len = uet_dev_shm_len(FL_RINGS, 0, 0);
	struct uet_engine_cfg cfg;

	if (!f_shm) {
		f_shm = calloc(1, len);
		if (!f_shm)
			abort();
	}
	memset(f_shm, 0, len);
	f_shm->magic = UET_DEV_SHM_MAGIC;
	f_shm->max_eps = FL_RINGS;
	f_shm->ep_bits = UET_FEP_EP_BITS;
	f_shm->slot[FAKE_EP_INDEX].state = UET_DEV_SLOT_ACTIVE;
	for (uint32_t i = 0; i < FL_WRITERS; i++)
		f_peer_open(&f_peers[i], i);
	memset(f_post, 0, sizeof(f_post));
	fe_tx_done_hook = f_tx_done;
	fe_cfg_default(&cfg);
	cfg.local_off = false;
	fe_setup(&cfg, f_shm, NULL);
	if (!fe_eng->local)
		abort();
}

static void f_teardown(void)
{
	fe_teardown();
	for (uint32_t i = 0; i < FL_WRITERS; i++)
		f_peer_close(&f_peers[i]);
}

static struct uet_lch_ring *f_our_ring(const struct f_peer *p)
{
	return uet_lch_ring_at(fe_eng->local->in, FL_RINGS, p->ep);
}

/* Writer |p| takes its ring in the engine's inbox with |key|. */
static void f_take(struct f_peer *p, uint64_t head, bool raw, uint64_t key)
{
	struct uet_lch_ring *r = f_our_ring(p);

	atomic_store(&r->head, head);
	uet_lch_writer_take(&p->w, r, fe_eng->local->ring_bytes, key);
	if (raw) {	/* a writer that does not keep to lines */
		p->w.head = p->w.tail = head;
		r->start = head;
		atomic_store(&r->head, head);
	}
	uet_lch_active_set(fe_eng->local->in, p->ep);
	p->taken = true;
}

/*
 * Room for |len| bytes in |p|'s ring, as uet_lch_reserve() makes it, for
 * a writer off the lines that function keeps to (a PAD record there
 * would be misaligned for it): bytes copied, never a struct's access.
 */
static uint8_t *f_reserve_raw(struct f_peer *p, uint32_t len)
{
	struct uet_lch_writer *w = &p->w;
	uint32_t off = (uint32_t)(w->head & (w->size - 1)), end = w->size - off;
	struct uet_lch_rec pad = { .len = end, .type = UET_LCH_PAD };
	uint64_t stamp = w->head ^ w->key;

	if (!uet_lch_room(w, len))
		return NULL;
	if (end >= len)
		return w->r->data + off;
	memset(w->r->data + off, 0, end);
	if (end >= sizeof(pad)) {
		memcpy(w->r->data + off, &pad, sizeof(pad));
		memcpy(w->r->data + off, &stamp, sizeof(stamp));
	}
	w->head += end;
	return w->r->data;
}

/*
 * Writes record |rec| with |blen| bytes of |body| after its header (the
 * rest zeros) into |p|'s ring: its len as the writer computes it from
 * hdr_len and pay_len, or as it is (|raw|); a stamp not due there
 * (|bad_stamp|) hides it and all after it. False when it does not fit.
 */
static bool f_write(struct f_peer *p, struct uet_lch_rec *rec,
		    const uint8_t *body, size_t blen, bool raw, bool bad_stamp)
{
	uint64_t len = raw ? rec->len : (uint64_t)sizeof(*rec) +
		       rec->hdr_len + rec->pay_len, stamp;
	bool lines;
	uint8_t *buf;

	if (!p->taken)
		f_take(p, 0, false, ++p->keys << 48 | p->ep);
	if (!raw)
		len = (len + UET_LCH_ALIGN - 1) & ~(uint64_t)(UET_LCH_ALIGN - 1);
	if (len < sizeof(*rec))
		len = sizeof(*rec);
	if (len > UET_LCH_REC_MAX(p->w.size))
		return false;
	lines = !(p->w.head % UET_LCH_ALIGN) && !(len % UET_LCH_ALIGN);
	buf = lines ? uet_lch_reserve(&p->w, (uint32_t)len) :
		      f_reserve_raw(p, (uint32_t)len);
	if (!buf)
		return false;
	if (!raw)
		rec->len = (uint32_t)len;
	memcpy(buf, rec, sizeof(*rec));
	if (blen > len - sizeof(*rec))
		blen = len - sizeof(*rec);
	memcpy(buf + sizeof(*rec), body, blen);
	memset(buf + sizeof(*rec) + blen, 0, len - sizeof(*rec) - blen);
	if (lines && !bad_stamp) {
		uet_lch_publish(&p->w, buf, (uint32_t)len);
	} else {
		stamp = p->w.head ^ p->w.key;
		if (bad_stamp)	/* the reader waits for what is due there */
			stamp = ~stamp;
		memcpy(buf, &stamp, sizeof(stamp));
		p->w.head += len;
		atomic_store(&p->w.r->head, p->w.head);
	}
	if (rec->type == UET_LCH_REQ && p->nreq < F_REQS) {
		p->req[p->nreq].seq = rec->seq;
		p->req[p->nreq++].src_peer = rec->src_peer;
		if (p->nsrc < F_SRC_PEERS)
			p->src_peer[p->nsrc++] = rec->src_peer;
	}
	return true;
}

/* An answer of the engine to |p|: to its next request but those dropped. */
static void f_check_ans(struct f_peer *p, const struct uet_lch_rec *rec)
{
	if (p->unordered)
		p->cur = 0;
	while (p->cur < p->nreq && (p->req[p->cur].seq != rec->seq ||
				    p->req[p->cur].src_peer != rec->dst_peer))
		p->cur++;
	if (p->cur == p->nreq && p->nreq < F_REQS)
		__builtin_trap();
	p->cur++;
}

/* A response of the engine to |p|: to a peer id |p| named. */
static void f_check_rsp(const struct f_peer *p, const struct uet_lch_rec *rec)
{
	if (p->nsrc == F_SRC_PEERS)
		return;		/* too many to tell */
	for (uint32_t i = 0; i < p->nsrc; i++)
		if (p->src_peer[i] == rec->dst_peer)
			return;
	__builtin_trap();
}

/* A request of the engine to |p|: kept for the answer. */
static void f_ereq_put(struct f_peer *p, const struct uet_lch_rec *rec,
		       const uint8_t *body)
{
	struct f_ereq *q = &p->ereq[p->et % LCH_FIFO];
	struct ses_std_hdr h;

	if (rec->src_peer >= fe_eng->npeers || p->et - p->eh == LCH_FIFO)
		__builtin_trap();
	memset(q, 0, sizeof(*q));
	q->seq = rec->seq;
	q->src_peer = rec->src_peer;
	if (rec->next_hdr == UET_PDS_NEXT_HDR_REQUEST_STD &&
	    ses_std_hdr_decode(&h, body, rec->hdr_len) > 0) {
		q->msg_id = h.message_id;
		q->opcode = h.opcode;
		q->len = h.request_length;
	}
	p->et++;
}

/* Reads what the engine wrote into |p|'s inbox, checking all of it. */
static void f_peer_read(struct f_peer *p)
{
	struct uet_lch_ring *r;
	struct uet_lch_rec rec;
	const uint8_t *b;
	bool broken;

	if (!p->inbox)
		return;
	r = uet_lch_ring_at(p->inbox, FL_RINGS, FAKE_EP_INDEX);
	if (!atomic_load(&r->gen))
		return;		/* never taken: nothing written */
	if (uet_lch_reader_sync(&p->rd, r))
		p->eh = p->et = 0;	/* a new channel: its requests anew */
	while ((b = uet_lch_peek(&p->rd, r, &rec, &broken))) {
		if (rec.type == UET_LCH_REQ)
			f_ereq_put(p, &rec, b + sizeof(rec));
		else if (rec.type == UET_LCH_RSP)
			f_check_rsp(p, &rec);
		else
			f_check_ans(p, &rec);
		uet_lch_consume(&p->rd, r, &rec);
	}
	if (broken)
		__builtin_trap();
}

static void f_step_rec(struct fe_in *in)
{
	struct f_peer *p = &f_peers[fe_u8(in) % FL_WRITERS];
	uint8_t flags = fe_u8(in);
	struct uet_lch_rec rec;
	size_t blen;

	for (size_t i = 0; i < sizeof(rec); i++)
		((uint8_t *)&rec)[i] = fe_u8(in);
	blen = fe_u16(in) % FL_BODY_MAX;
	if (blen > in->len - in->pos)
		blen = in->len - in->pos;
	f_write(p, &rec, in->p + in->pos, blen, flags & FL_REC_RAW,
		flags & FL_REC_BAD_STAMP);
	in->pos += blen;
}

static void f_step_take(struct fe_in *in)
{
	struct f_peer *p = &f_peers[fe_u8(in) % FL_WRITERS];
	uint8_t flags = fe_u8(in);
	uint64_t head = fe_u32(in), key = (uint64_t)fe_u32(in) << 32;

	key |= fe_u32(in);
	if (!(flags & FL_TAKE_RAW))
		head += p->w.head;
	/*
	 * A key of its own differs from every earlier one above bit 48,
	 * where positions never reach: no earlier record's stamp matches.
	 */
	if (!(flags & FL_TAKE_KEY))
		key = ++p->keys << 48 | p->ep;
	if (flags & (FL_TAKE_RAW | FL_TAKE_KEY))
		p->unordered = true;
	f_take(p, head, flags & FL_TAKE_RAW, key);
}

static void f_step_post(struct fe_in *in)
{
	static const uint8_t ops[3] = { UET_SES_OP_WRITE, UET_SES_OP_SEND,
					UET_SES_OP_READ };
	uint32_t i = fe_u8(in) % FL_PEERS, k;
	uint8_t op = ops[fe_u8(in) % 3];
	size_t len = fe_u16(in) % FL_POST_MAX;
	uint64_t off = fe_u16(in) % FE_REGION_LEN;
	struct uet_fa fa = { .v4.s_addr = htonl(FE_LOCAL_IP) };
	int peer;

	for (k = 0; k < F_POSTS && f_post[k].busy; k++)
		;
	peer = uet_engine_peer_get(fe_eng, &fa, FL_PID(i), 0);
	if (k == F_POSTS || peer < 0)
		return;
	memset(&f_post[k], 0, sizeof(f_post[k]));
	f_post[k].dst = (struct ses_addr){ .peer = (uint32_t)peer,
					   .job_id = FE_JOB,
					   .pid_on_fep = FL_PID(i) };
	f_post[k].iov.base = op == UET_SES_OP_READ ? f_sink[k] : f_src;
	f_post[k].iov.len = len;
	f_post[k].wre = (struct ses_wre){
		.opcode = op, .flags = SES_WRE_F_COMPLETION,
		.dst = &f_post[k].dst, .ri = FE_RI, .iov = &f_post[k].iov,
		.iov_cnt = 1, .mkey = FE_KEY, .remote_offset = off,
		.user_ctx = (void *)(uintptr_t)k,
	};
	f_post[k].busy = true;
	if (uet_engine_post(fe_eng, &f_post[k].wre) < 0)
		f_post[k].busy = false;
}

/* Peer |p|'s answer to the engine's oldest request, as the input says. */
static void f_step_answer(struct fe_in *in)
{
	struct f_peer *p = &f_peers[fe_u8(in) % FL_PEERS];
	uint8_t how = fe_u8(in) % 8, rc = fe_u8(in), body[FL_BODY_MAX];
	struct uet_lch_rec rec = { .next_hdr = UET_PDS_NEXT_HDR_RESPONSE };
	const struct f_ereq *q;
	size_t blen = 0;
	ssize_t n = 0;

	f_peer_read(p);
	if (p->eh == p->et)
		return;
	q = &p->ereq[p->eh % LCH_FIFO];
	rec.dst_peer = q->src_peer;
	rec.seq = q->seq;
	rc = rc < 192 ? UET_SES_RC_OK : rc % 0x20;
	switch (how) {
	case FL_ANS_RSP: {
		struct ses_rsp_hdr h = {
			.opcode = UET_SES_RSP_RESPONSE, .return_code = rc,
			.message_id = q->msg_id, .job_id = FE_JOB,
			.modified_length = q->len,
		};

		rec.type = UET_LCH_ANS_RSP;
		n = ses_rsp_hdr_encode(body, sizeof(body), &h);
		break;
	}
	case FL_ANS_DATA: {	/* a READ's data, its answer to come */
		struct ses_rsp_data_hdr h = {
			.opcode = UET_SES_RSP_RESPONSE_W_DATA,
			.return_code = rc, .message_id = q->msg_id,
			.job_id = FE_JOB, .read_request_message_id = q->msg_id,
			.modified_length = q->len,
		};

		blen = fe_u16(in) % FL_POST_MAX;
		h.payload_length = (uint16_t)blen;
		n = ses_rsp_data_hdr_encode(body, sizeof(body), &h);
		if (n < 0)
			return;
		for (size_t i = 0; i < blen; i++)
			body[n + (ssize_t)i] = fe_u8(in);
		rec.type = UET_LCH_RSP;
		rec.next_hdr = UET_PDS_NEXT_HDR_RESPONSE_DATA;
		rec.hdr_len = (uint16_t)n;
		rec.pay_len = (uint32_t)blen;
		f_write(p, &rec, body, (size_t)n + blen, false, false);
		return;
	}
	case FL_ANS_BAD_SEQ:
		rec.seq ^= 1u + fe_u8(in);
		/* fall through */
	case FL_ANS_DEFAULT:
		rec.type = UET_LCH_ANS_DEFAULT;
		break;
	case FL_ANS_AGAIN:
		rec.type = UET_LCH_ANS_AGAIN;
		break;
	case FL_ANS_DROP:
		rec.type = UET_LCH_ANS_DROP;
		break;
	case FL_ANS_RAW:
		rec.type = UET_LCH_ANS_RSP;
		n = fe_u8(in) % 64;
		for (ssize_t i = 0; i < n; i++)
			body[i] = fe_u8(in);
		break;
	default:
		return;
	}
	if (n < 0)
		return;
	rec.hdr_len = (uint16_t)n;
	if (f_write(p, &rec, body, (size_t)n, false, false))
		p->eh++;
}

static void f_step_time(struct fe_in *in)
{
	uint64_t dt = (uint64_t)fe_u16(in) * 100000;	/* up to 6.5 s */
	uint8_t ev = fe_u8(in);
	struct f_peer *p = &f_peers[(ev >> 6) % FL_PEERS];
	struct uet_dev_shm_slot *sl = &f_shm->slot[p->ep];
	struct lch *c = fe_eng->local->ch[p->ep];

	fake_dev.now_ns += dt;
	if (ev & FL_EV_GONE)
		sl->state = sl->state == UET_DEV_SLOT_ACTIVE ?
			    UET_DEV_SLOT_FREE : UET_DEV_SLOT_ACTIVE;
	if (ev & FL_EV_SLEEPING)
		__atomic_store_n(&p->inbox->sleeping, 1, __ATOMIC_SEQ_CST);
	if ((ev & FL_EV_REFUSED) && c && c->state == LCH_UP)
		atomic_store(&uet_lch_ring_at(p->inbox, FL_RINGS,
					      FAKE_EP_INDEX)->refused, 1);
	if ((ev & FL_EV_SLEEP) && uet_engine_sleep(fe_eng))
		uet_engine_woke(fe_eng);
	fe_poll();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fe_in in = { data, len, 0 };

	f_setup();
	for (int step = 0; step < F_STEPS && in.pos < in.len; step++) {
		uint8_t op = fe_u8(&in) % 8;

		if (op < FL_OP_TAKE)
			f_step_rec(&in);
		else if (op == FL_OP_TAKE)
			f_step_take(&in);
		else if (op == FL_OP_POST)
			f_step_post(&in);
		else if (op == FL_OP_ANSWER)
			f_step_answer(&in);
		else
			f_step_time(&in);
		fake_dev.now_ns += 1000;
		uet_engine_progress(fe_eng);
		for (uint32_t i = 0; i < FL_PEERS; i++)
			f_peer_read(&f_peers[i]);
		fe_check();
	}
	f_teardown();
	return 0;
}
