/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writes the seed corpora of the engine fuzzers that take wire data
 * (`make fuzz-seeds`): test/fuzz/corpus/tss_rx (fuzz_tss_rx.h: PDS
 * requests for the peers to seal, and a frame sealed here under the test
 * keys) and test/fuzz/corpus/local_rx (fuzz_local_rx.h: records as a
 * peer lays them in a ring, and the engine's own sends answered). Every
 * header comes from the real encoders; the output is the same at every
 * run. Usage: fuzz_seeds DIR (DIR/tss_rx and DIR/local_rx must exist).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/uet_lch.h"
#include "fuzz_engine_common.h"
#include "fuzz_local_rx.h"
#include "fuzz_tss_rx.h"
#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"

struct s_buf {
	uint8_t b[16384];
	size_t n;
};

static void s_put(struct s_buf *s, const void *p, size_t n)
{
	if (s->n + n > sizeof(s->b))
		abort();
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void s_u8(struct s_buf *s, uint8_t v)
{
	s_put(s, &v, 1);
}

static void s_u16(struct s_buf *s, uint16_t v)
{
	s_u8(s, (uint8_t)(v >> 8));
	s_u8(s, (uint8_t)v);
}

static void s_u32(struct s_buf *s, uint32_t v)
{
	s_u16(s, (uint16_t)(v >> 16));
	s_u16(s, (uint16_t)v);
}

static const char *s_dir;

static void s_save(const char *corpus, const char *name, const struct s_buf *s)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", s_dir, corpus, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->n, f) != s->n || fclose(f)) {
		fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* An SES standard header for the target's region (WRITE) or receive. */
static size_t s_ses(uint8_t *out, uint8_t op, uint16_t msg, uint64_t off,
		    uint32_t len)
{
	struct ses_std_hdr h = {
		.opcode = op, .f = { .rel = true, .som = true, .eom = true },
		.message_id = msg, .job_id = FE_JOB, .pid_on_fep = FAKE_PID,
		.resource_index = FE_RI, .buffer_offset = off,
		.initiator = 1, .memory_key = FE_KEY, .request_length = len,
	};
	ssize_t n = ses_std_hdr_encode(out, 64, &h);

	if (n < 0)
		abort();
	return (size_t)n;
}

/*
 * A PDS request (SYN: the target learns of the PDC from it) of PSN |psn|
 * carrying |op| of |len| bytes.
 */
static size_t s_pds(uint8_t *out, uint32_t psn, uint8_t op, uint16_t msg,
		    uint32_t len)
{
	struct pdc_req r = {
		.pro.type = UET_PDS_TYPE_RUD_REQ,
		.pro.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
		.pro.flags = UET_PDS_F_REQ_SYN | UET_PDS_F_REQ_AR,
		.psn = psn, .spdcid = 2 << UET_FEP_ID_SHIFT | 1,
		.psn_offset = (uint16_t)(psn - 1000),
	};
	ssize_t n = pdc_req_encode(out, 64, &r);
	size_t k;

	if (n < 0)
		abort();
	k = (size_t)n + s_ses(out + n, op, msg, 64 * (psn - 1000), len);
	for (uint32_t i = 0; i < len; i++)
		out[k++] = (uint8_t)(psn + i);
	return k;
}

/*
 * Operation |code| (SEALED, TRIMMED) from |who| (bit 7: the AN): its
 * fields up to the PDS packet of PSN |psn|.
 */
static void s_pkt(struct s_buf *s, uint8_t code, uint8_t who, uint32_t psn,
		  uint8_t op, uint32_t len)
{
	uint8_t pds[1024];
	size_t n = s_pds(pds, psn, op, (uint16_t)psn, len);

	s_u8(s, code);
	s_u8(s, who);
	s_u16(s, 0x1234 + who);
	s_u16(s, (uint16_t)n);
	s_put(s, pds, n);
}

/* FT_OP_SEALED, then mutation |mut| (0: none). */
static void s_sealed(struct s_buf *s, uint8_t who, uint32_t psn, uint8_t op,
		     uint32_t len, uint8_t mut)
{
	s_pkt(s, FT_OP_SEALED, who, psn, op, len);
	s_u8(s, mut);
}

/* FT_OP_TRIMMED: |keep| bytes of the sealed payload left by a switch. */
static void s_trimmed(struct s_buf *s, uint8_t who, uint32_t psn, uint8_t op,
		      uint32_t len, uint16_t keep)
{
	s_pkt(s, FT_OP_TRIMMED, who, psn, op, len);
	s_u16(s, keep);
}

/* FT_OP_RAW: a request sealed here as host FT_RAW_HOST would. */
static void s_raw_sealed(struct s_buf *s, uint8_t setup, uint32_t psn)
{
	uint32_t saddr = htonl(FE_HOST_IP + FT_RAW_HOST);
	uint32_t daddr = htonl(FE_LOCAL_IP);
	struct uet_tss_sd_keys k;
	struct uet_tss_src src = { 0 };
	struct uet_tss_pkt p = {
		.saddr = (const uint8_t *)&saddr,
		.daddr = (const uint8_t *)&daddr,
		.sport = 0x4321, .dport = 4793,
	};
	struct uet_tss_ep *ep;
	uint8_t pay[2048];
	size_t hl;
	ssize_t n;

	ft_keys(&k, setup, FT_RAW_HOST, 0);
	memcpy(src.addr, &saddr, 4);
	ep = uet_tss_ep_new(&k, &src);
	if (!ep)
		abort();
	hl = uet_tss_ep_hdr_len(ep);
	n = uet_tss_ep_seal(ep, &p, pay,
			    s_pds(pay + hl, psn, UET_SES_OP_WRITE, 77, 48));
	if (n < 0)
		abort();
	uet_tss_ep_free(ep);
	s_u8(s, FT_OP_RAW);
	s_u16(s, p.sport);
	s_u16(s, (uint16_t)n);
	s_put(s, pay, (size_t)n);
}

static void s_tss_seeds(void)
{
	struct s_buf s = { .n = 0 };
	uint8_t mut_text[] = { FT_MUT_FROM + FT_MUT_TEXT, 0, 5, 3 };

	/* Cluster keys: a write, the next, a replay, a send under key1. */
	s_u8(&s, 0);
	s_sealed(&s, 0, 1000, UET_SES_OP_WRITE, 64, 0);
	s_sealed(&s, 0, 1001, UET_SES_OP_WRITE, 64, 0);
	s_u8(&s, FT_OP_REPLAY);
	s_u8(&s, 0);
	s_u8(&s, FT_OP_TIME);
	s_u16(&s, 10);
	s_sealed(&s, 0x81, 1000, UET_SES_OP_SEND, 32, 0);
	s_save("tss_rx", "cluster-write-replay-send", &s);

	/* Direct keys with SSIs: a write, a trimmed one, a flipped bit. */
	s.n = 0;
	s_u8(&s, FT_SET_DIRECT | FT_SET_SSI);
	s_sealed(&s, 2, 1000, UET_SES_OP_WRITE, 200, 0);
	s_trimmed(&s, 2, 1001, UET_SES_OP_WRITE, 200, 16 + 12 + 20);
	s_sealed(&s, 3, 1000, UET_SES_OP_WRITE, 16, 0);
	s.n--;
	s_put(&s, mut_text, sizeof(mut_text));
	s_save("tss_rx", "direct-ssi-trim-flip", &s);

	/* Cluster keys with SSIs: a frame sealed here, from a raw host. */
	s.n = 0;
	s_u8(&s, FT_SET_SSI);
	s_raw_sealed(&s, FT_SET_SSI, 1000);
	s_sealed(&s, 1, 1000, UET_SES_OP_SEND, 100, 0);
	s_save("tss_rx", "cluster-ssi-raw-sealed", &s);

	/* The receiver holds key0 alone: key1's frame refused, key0's not. */
	s.n = 0;
	s_u8(&s, FT_SET_DIRECT | FT_SET_NO_KEY1);
	s_sealed(&s, 0x80, 1000, UET_SES_OP_WRITE, 64, 0);
	s_sealed(&s, 0, 1000, UET_SES_OP_WRITE, 64, 0);
	s_raw_sealed(&s, FT_SET_DIRECT | FT_SET_NO_KEY1, 1000);
	s_save("tss_rx", "direct-key0-only", &s);
}

/*
 * FL_OP_REC from writer |w|: a request record of |op| (|len| bytes) as a
 * peer writes it, numbered |seq|, from its peer |src_peer|.
 */
static void s_rec_req(struct s_buf *s, uint8_t w, uint32_t seq,
		      uint32_t src_peer, uint8_t op, uint64_t off, uint32_t len)
{
	uint8_t body[FL_BODY_MAX];
	size_t hl = s_ses(body, op, (uint16_t)(100 + seq), off, len);
	struct uet_lch_rec rec = {
		.type = UET_LCH_REQ,
		.next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
		.src_peer = src_peer, .seq = seq,
		.hdr_len = (uint16_t)hl, .pay_len = len,
	};

	rec.len = uet_lch_rec_len(rec.hdr_len, rec.pay_len);
	for (uint32_t i = 0; i < len; i++)
		body[hl + i] = (uint8_t)(seq * 7 + i);
	s_u8(s, FL_OP_REC);
	s_u8(s, w);
	s_u8(s, 0);
	s_put(s, &rec, sizeof(rec));
	s_u16(s, (uint16_t)(hl + len));
	s_put(s, body, hl + len);
}

static void s_post(struct s_buf *s, uint8_t peer, uint8_t op, uint16_t len,
		   uint16_t off)
{
	s_u8(s, FL_OP_POST);
	s_u8(s, peer);
	s_u8(s, op);
	s_u16(s, len);
	s_u16(s, off);
}

static void s_answer(struct s_buf *s, uint8_t peer, uint8_t how)
{
	s_u8(s, FL_OP_ANSWER);
	s_u8(s, peer);
	s_u8(s, how);
	s_u8(s, 0);		/* RC_OK */
}

static void s_time(struct s_buf *s, uint16_t steps, uint8_t ev)
{
	s_u8(s, FL_OP_TIME);
	s_u16(s, steps);
	s_u8(s, ev);
}

static void s_local_seeds(void)
{
	uint32_t ring = uet_lch_ring_bytes(FL_RINGS);
	struct s_buf s = { .n = 0 };

	/* A peer's write into our region and send into our receive. */
	s_rec_req(&s, 0, 0, 7, UET_SES_OP_WRITE, 256, 64);
	s_rec_req(&s, 0, 1, 7, UET_SES_OP_SEND, 0, 32);
	s_time(&s, 1, 0);
	s_rec_req(&s, 1, 0, 3, UET_SES_OP_READ, 0, 0);
	s_save("local_rx", "peer-write-send-read", &s);

	/* Our sends to the peers, each answered its own way. */
	s.n = 0;
	s_post(&s, 0, 0, 100, 0);
	s_answer(&s, 0, FL_ANS_DEFAULT);
	s_post(&s, 1, 1, 64, 0);
	s_answer(&s, 1, FL_ANS_RSP);
	s_post(&s, 2, 0, 512, 128);
	s_answer(&s, 2, FL_ANS_AGAIN);
	s_time(&s, 1, 0);
	s_answer(&s, 2, FL_ANS_DEFAULT);
	s_post(&s, 0, 2, 128, 0);
	s_answer(&s, 0, FL_ANS_DATA);
	s_u16(&s, 128);
	for (int i = 0; i < 128; i++)
		s_u8(&s, (uint8_t)i);
	s_answer(&s, 0, FL_ANS_DEFAULT);
	s_save("local_rx", "post-and-answers", &s);

	/* A new process on index 1, near the ring's end: records wrap. */
	s.n = 0;
	s_u8(&s, FL_OP_TAKE);
	s_u8(&s, 0);
	s_u8(&s, 0);
	s_u32(&s, ring - 2 * UET_LCH_ALIGN);
	s_u32(&s, 0x12345678);
	s_u32(&s, 0x9abcdef1);
	for (uint32_t i = 0; i < 4; i++)
		s_rec_req(&s, 0, i, 9, UET_SES_OP_WRITE, 64 * i, 100);
	s_save("local_rx", "takeover-wrap", &s);

	/*
	 * A takeover back to the start under the key of the first (the one
	 * fuzz_local_rx.c draws first): the engine reads the request again.
	 */
	s.n = 0;
	s_rec_req(&s, 0, 0, 7, UET_SES_OP_WRITE, 0, 64);
	s_u8(&s, FL_OP_TAKE);
	s_u8(&s, 0);
	s_u8(&s, FL_TAKE_RAW | FL_TAKE_KEY);
	s_u32(&s, 0);
	s_u32(&s, 1u << 16);
	s_u32(&s, fl_writer_ep[0]);
	s_time(&s, 1, 0);
	s_save("local_rx", "takeover-rewind", &s);

	/* Requests from index 6, whose endpoint has no inbox: refused. */
	s.n = 0;
	s_rec_req(&s, 3, 0, 1, UET_SES_OP_WRITE, 0, 16);
	s_time(&s, 20, FL_EV_SLEEP);
	s_rec_req(&s, 3, 1, 1, UET_SES_OP_WRITE, 16, 16);
	s_save("local_rx", "no-inbox-refused", &s);

	/*
	 * A write nobody answers, a peer silent past UET_ENGINE_SILENT_NS:
	 * the engine probes it with an empty READ, a packet without iov.
	 */
	s.n = 0;
	s_post(&s, 0, 0, 100, 0);
	for (int i = 0; i < 4; i++)
		s_time(&s, 1000, 0);
	s_save("local_rx", "probe-silent-peer", &s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_seeds DIR\n");
		return 2;
	}
	s_dir = argv[1];
	s_tss_seeds();
	s_local_seeds();
	return 0;
}
