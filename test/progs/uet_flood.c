/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uet_flood: hostile UET frames for the flood and replay tests (issue [R]),
 * built with the project's codecs (pdc/pdc_hdr.h, ses/ses_hdr.h).
 *
 *   uet_flood syn --dst IP --job J --pid P --ri R --key K --region LEN
 *                 [--count N] [--rate PPS] [--seed S]
 *                 [--raw IFACE --spoof A.B.C]
 *     N (5000) SYN requests (RUD request, SYN set, random SPDCID and PSN)
 *     with a SES standard WRITE header, cycling through eight kinds: right
 *     JobID, PIDonFEP and RI but a wrong key (at offsets in the region); the
 *     same with a wrong generation; wrong key and offset or length outside
 *     the region; wrong JobID; wrong PIDonFEP; a truncated SES header;
 *     inconsistent lengths; garbage. None may ever write. Over a UDP socket
 *     from this host's address to port 4793, or with --raw as AF_PACKET
 *     frames on IFACE from random source addresses A.B.C.100-250 and random
 *     MACs.
 *
 *   uet_flood learn --pcap FILE --dst IP
 *     Prints what a capture of a client's frames to IP (uetctl capture)
 *     tells: its address, endpoint index, live PDC ids, PSNs, message ids,
 *     JobID, PIDonFEP, RI, key.
 *
 *   uet_flood replay --pcap FILE --dst IP --raw IFACE [--ids K]
 *     Learns as above, then sends from the client's own address, MAC and
 *     UDP source port, with the client's endpoint index in every SPDCID,
 *     each rejected-frame kind with each of the K (16) message ids the
 *     client will use next: as SYNs of new PDCs, bad JobID, bad PIDonFEP,
 *     bad RI, bad key, offset outside, length outside, malformed SES; on
 *     the client's live PDC with PSNs it already used (replays), bad key;
 *     a wrong SPDCID for the live DPDCID (PDC_HDR_MISMATCH); an unknown
 *     DPDCID; a SYN reusing the live SPDCID with another start PSN.
 *     --kinds sends only those named (--list-kinds lists them).
 *
 * Every frame's data bytes are 0xEE: the target's region check finds any
 * that landed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dev/uet_frame.h"
#include "dev/uet_nl.h"
#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "uet_codec.h"
#include "uet_fep.h"
#include "uet_wire.h"

#define FL_FRAME_MAX	2048
#define FL_DATA_MAX	1024	/* Payload MTU at interface MTU 1500 */
#define FL_DATA_BYTE	0xEE
#define FL_OLD_PSNS	256

struct fl_opts {
	const char *cmd, *dst, *raw, *spoof, *pcap, *kinds;
	uint32_t job, pid, ri;
	uint64_t key, region;
	uint32_t count, rate, ids;
	uint64_t seed;
};

struct fl_out {
	int fd;			/* UDP or AF_PACKET socket */
	bool raw;
	int ifindex;
	struct sockaddr_in to;	/* UDP */
	struct uet_frame_addr src, dst;	/* raw */
	uint64_t sent, errors;
};

static uint64_t fl_rng;

static uint64_t fl_rand(void)
{
	uint64_t z = (fl_rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t fl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noreturn)) static void fl_die(const char *what)
{
	fprintf(stderr, "uet_flood: %s\n", what);
	exit(2);
}

/* ---- output -------------------------------------------------------------- */
static void fl_out_udp(struct fl_out *o, const char *dst)
{
	o->fd = socket(AF_INET, SOCK_DGRAM, 0);
	o->to.sin_family = AF_INET;
	o->to.sin_port = htons(UET_UDP_PORT);
	if (o->fd < 0 || inet_pton(AF_INET, dst, &o->to.sin_addr) != 1)
		fl_die("UDP socket or destination");
}

static void fl_out_raw(struct fl_out *o, const char *ifname)
{
	o->raw = true;
	o->ifindex = (int)if_nametoindex(ifname);
	o->fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (!o->ifindex || o->fd < 0)
		fl_die("raw socket (root? interface?)");
}

/* The destination's MAC, from the kernel (as xsk_peer does). */
static void fl_resolve(struct fl_out *o, const char *dst)
{
	struct uet_nl_route rt;

	o->dst.is_v6 = false;
	if (inet_pton(AF_INET, dst, &o->dst.v4) != 1)
		fl_die("bad --dst");
	if (uet_nl_resolve(&o->dst.v4, false, 3000, &rt) < 0)
		fl_die("cannot resolve --dst");
	memcpy(o->dst.mac, rt.mac, 6);
	o->dst.port = UET_UDP_PORT;
}

/* Sends |len| bytes of UDP payload: over UDP, or framed from o->src. */
static void fl_send(struct fl_out *o, const uint8_t *udp, size_t len)
{
	static uint8_t frame[FL_FRAME_MAX];
	struct sockaddr_ll ll = { .sll_family = AF_PACKET,
				  .sll_ifindex = 0, .sll_halen = 6 };
	ssize_t hl, n;

	if (!o->raw) {
		n = sendto(o->fd, udp, len, 0, (struct sockaddr *)&o->to,
			   sizeof(o->to));
	} else {
		hl = uet_frame_encode(frame, sizeof(frame), &o->src, &o->dst,
				      len);
		if (hl < 0 || (size_t)hl + len > sizeof(frame)) {
			o->errors++;
			return;
		}
		memcpy(frame + hl, udp, len);
		ll.sll_ifindex = o->ifindex;
		ll.sll_protocol = htons(ETH_P_IP);
		memcpy(ll.sll_addr, o->dst.mac, 6);
		n = sendto(o->fd, frame, (size_t)hl + len, 0,
			   (struct sockaddr *)&ll, sizeof(ll));
	}
	if (n < 0)
		o->errors++;
	else
		o->sent++;
}

/* Keeps |rate| frames a second: sleeps until frame |i|'s time. */
static void fl_pace(uint64_t t0, uint32_t i, uint32_t rate)
{
	uint64_t due = t0 + (uint64_t)i * 1000000000ull / rate;
	uint64_t now = fl_now_ns();

	if (rate && due > now + 50000)
		nanosleep(&(struct timespec){ 0, (long)(due - now) }, NULL);
}

/* ---- frames -------------------------------------------------------------- */

/* A RUD request (PDS) then a SES standard header then |data| bytes. */
static size_t fl_build(uint8_t *p, const struct pdc_req *req,
		       const struct ses_std_hdr *h, size_t data)
{
	ssize_t a = pdc_req_encode(p, FL_FRAME_MAX, req), b;

	if (a < 0)
		fl_die("pdc_req_encode");
	b = ses_std_hdr_encode(p + a, FL_FRAME_MAX - (size_t)a, h);
	if (b < 0)
		fl_die("ses_std_hdr_encode");
	memset(p + a + b, FL_DATA_BYTE, data);
	return (size_t)(a + b) + data;
}

static uint64_t fl_wrong_key(uint64_t key)
{
	uint64_t k;

	do
		k = fl_rand() & UET_MKEY_RKEY_MASK;
	while (k == key);
	return k;
}

enum fl_syn_kind {
	FL_WRONG_KEY, FL_WRONG_GEN, FL_OUTSIDE, FL_BAD_JOB, FL_BAD_PID,
	FL_TRUNCATED, FL_BAD_LEN, FL_GARBAGE, FL_SYN_KINDS
};

static const char *const fl_syn_names[FL_SYN_KINDS] = {
	"wrong_key", "wrong_generation", "outside_region", "bad_job_id",
	"bad_pid_on_fep", "truncated_ses", "bad_lengths", "garbage",
};

/* One SYN of |kind| into |p|; its length. */
static size_t fl_syn(uint8_t *p, const struct fl_opts *o, int kind)
{
	size_t data = 1 + fl_rand() % FL_DATA_MAX, len;
	struct pdc_req req = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
			 UET_PDS_F_REQ_SYN |
			 (fl_rand() & 1 ? UET_PDS_F_REQ_AR : 0) },
		.psn = (uint32_t)fl_rand(),
		.spdcid = (uint16_t)(1 + fl_rand() % 0xFFFF),
	};
	struct ses_std_hdr h = {
		.opcode = UET_SES_OP_WRITE,
		.f = { .rel = true, .som = true, .eom = true },
		.message_id = (uint16_t)fl_rand(),
		.job_id = o->job, .pid_on_fep = (uint16_t)o->pid,
		.resource_index = (uint16_t)o->ri,
		.buffer_offset = fl_rand() % (o->region - data + 1),
		.initiator = (uint32_t)fl_rand(),
		.memory_key = fl_wrong_key(o->key),
		.request_length = (uint32_t)data,
	};

	switch (kind) {
	case FL_WRONG_GEN:
		h.ri_generation = (uint8_t)(1 + fl_rand() % 255);
		break;
	case FL_OUTSIDE:
		if (fl_rand() & 1)
			h.buffer_offset = o->region - data / 2 +
					  fl_rand() % 1000000;
		else
			h.request_length = (uint32_t)(o->region + 1 +
						      fl_rand() % 1000000);
		break;
	case FL_BAD_JOB:
		h.job_id = (o->job + 1 + fl_rand() % 0xFFFFFE) & 0xFFFFFF;
		break;
	case FL_BAD_PID:
		h.pid_on_fep = (uint16_t)((o->pid + 1 + fl_rand() % 4094) &
					  0xFFF);
		break;
	case FL_TRUNCATED:	/* cut somewhere inside the SES header */
		fl_build(p, &req, &h, 0);
		return UET_PDS_RUD_REQ_LEN + fl_rand() % UET_SES_STD_HDR_LEN;
	case FL_BAD_LEN:
		switch (fl_rand() % 3) {
		case 0:	/* says fewer bytes than it carries */
			h.request_length = (uint32_t)(data / 2);
			break;
		case 1:	/* says more, in one packet with eom */
			h.request_length = (uint32_t)(data + 1 + fl_rand() %
						      100000);
			break;
		default: /* a middle packet whose payload_length lies */
			h.f.som = false;
			h.payload_length = (uint16_t)((data + 1 +
						       fl_rand() % 1000) &
						      0x3FFF);
			h.message_offset = (uint32_t)(fl_rand() % o->region);
			h.request_length = (uint32_t)o->region;
		}
		break;
	case FL_GARBAGE:
		len = 1 + fl_rand() % 200;
		for (size_t i = 0; i < len; i++)
			p[i] = (uint8_t)fl_rand();
		/* Half of them a SYN's PDS header, the rest random. */
		if (len >= UET_PDS_RUD_REQ_LEN && fl_rand() & 1)
			pdc_req_encode(p, len, &req);
		return len;
	}
	return fl_build(p, &req, &h, data);
}

static void fl_random_mac(uint8_t mac[6])
{
	uint64_t r = fl_rand();

	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)(r >> (8 * i));
	mac[0] = (uint8_t)((mac[0] & 0xFE) | 0x02);	/* local unicast */
}

static int fl_cmd_syn(const struct fl_opts *o)
{
	static uint8_t p[FL_FRAME_MAX];
	struct fl_out out = { .fd = -1 };
	uint64_t per[FL_SYN_KINDS] = { 0 }, t0;
	uint8_t spoof[3];

	if (!o->dst || !o->region || o->region < FL_DATA_MAX)
		fl_die("syn: --dst and --region (>= 1024) needed");
	if (o->raw) {
		unsigned int a, b, c;

		if (!o->spoof || sscanf(o->spoof, "%u.%u.%u", &a, &b, &c) != 3)
			fl_die("--raw needs --spoof A.B.C");
		spoof[0] = (uint8_t)a;
		spoof[1] = (uint8_t)b;
		spoof[2] = (uint8_t)c;
		fl_out_raw(&out, o->raw);
		fl_resolve(&out, o->dst);
	} else {
		fl_out_udp(&out, o->dst);
	}
	t0 = fl_now_ns();
	for (uint32_t i = 0; i < o->count; i++) {
		int kind = (int)(i % FL_SYN_KINDS);
		size_t len = fl_syn(p, o, kind);

		if (out.raw) {
			uint8_t *ip = (uint8_t *)&out.src.v4;

			memcpy(ip, spoof, 3);
			ip[3] = (uint8_t)(100 + fl_rand() % 151);
			fl_random_mac(out.src.mac);
			out.src.port = (uint16_t)(1024 + fl_rand() % 64000);
		}
		fl_send(&out, p, len);
		per[kind]++;
		fl_pace(t0, i + 1, o->rate);
	}
	printf("uet_flood: syn: sent %llu of %u frames (%s) in %llu ms, %llu "
	       "send errors;", (unsigned long long)out.sent, o->count,
	       out.raw ? "raw, spoofed sources" : "UDP",
	       (unsigned long long)((fl_now_ns() - t0) / 1000000),
	       (unsigned long long)out.errors);
	for (int k = 0; k < FL_SYN_KINDS; k++)
		printf(" %s %llu", fl_syn_names[k], (unsigned long long)per[k]);
	printf("\n");
	return out.sent == o->count ? 0 : 1;
}

/* ---- learning from a capture --------------------------------------------- */
struct fl_learn {
	uint32_t frames, reqs, acks;
	uint32_t pdcs;			/* the client's PDCs, one after another */
	struct uet_frame_addr cli, tgt;	/* client's and target's */
	bool have_req, have_dpdcid, have_first_id;
	uint16_t spdcid, dpdcid;	/* client's live PDC; target's id */
	uint32_t last_psn, start_psn;
	uint32_t old_psn[FL_OLD_PSNS], nold;
	uint16_t first_id, last_id;
	struct ses_std_hdr last;	/* the last request header */
};

/* Reads a pcap file (Ethernet) and learns the client's flow to |dst|. */
static int fl_learn(struct fl_learn *l, const char *path, const char *dst)
{
	FILE *f = fopen(path, "rb");
	uint8_t gh[24], rh[16], *buf = malloc(65536);
	struct in_addr tgt;
	uint32_t magic, link;

	memset(l, 0, sizeof(*l));
	if (!f || !buf || inet_pton(AF_INET, dst, &tgt) != 1 ||
	    fread(gh, 1, sizeof(gh), f) != sizeof(gh))
		fl_die("learn: cannot read the capture");
	memcpy(&magic, gh, 4);
	memcpy(&link, gh + 20, 4);
	if ((magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) || link != 1)
		fl_die("learn: not a native-order Ethernet pcap file");
	while (fread(rh, 1, sizeof(rh), f) == sizeof(rh)) {
		struct uet_frame_info info;
		struct pdc_req req;
		struct pdc_ack ack;
		struct ses_std_hdr h;
		uint32_t cap, orig;
		const uint8_t *pds;

		memcpy(&cap, rh + 8, 4);
		memcpy(&orig, rh + 12, 4);
		if (cap > 65536 || fread(buf, 1, cap, f) != cap)
			break;
		l->frames++;
		/* Captures keep the first UET_XDP_CAPTURE_SNAPLEN bytes. */
		if (uet_frame_decode(&info, buf, cap, orig) < 0 ||
		    info.dst.port != UET_UDP_PORT || info.dst.is_v6)
			continue;
		pds = buf + info.hdr_len;
		if (info.payload_len > cap - info.hdr_len)
			info.payload_len = (uint16_t)(cap - info.hdr_len);
		if (info.src.v4.s_addr == tgt.s_addr &&
		    pdc_ack_decode(&ack, pds, info.payload_len) > 0) {
			/* The target's ACK: its id of the client's PDC. */
			l->acks++;
			if (!l->have_dpdcid) {
				l->dpdcid = ack.spdcid;
				l->have_dpdcid = true;
			}
			continue;
		}
		if (info.dst.v4.s_addr != tgt.s_addr ||
		    pdc_req_decode(&req, pds, info.payload_len) < 0 ||
		    req.pro.next_hdr != UET_PDS_NEXT_HDR_REQUEST_STD ||
		    ses_std_hdr_decode(&h, pds + UET_PDS_RUD_REQ_LEN,
				       info.payload_len -
				       UET_PDS_RUD_REQ_LEN) < 0)
			continue;
		l->reqs++;
		/*
		 * A new PDC of the client: start over on it. It may reuse
		 * the last one's SPDCID (a PDCID has as little as one bit of
		 * generation over its slot): its SYNs' start PSN tells it.
		 */
		if (!l->have_req || req.spdcid != l->spdcid ||
		    ((req.pro.flags & UET_PDS_F_REQ_SYN) &&
		     req.psn - req.psn_offset != l->start_psn)) {
			l->pdcs++;
			l->spdcid = req.spdcid;
			l->have_dpdcid = false;
			l->nold = 0;
			l->start_psn = req.psn - req.psn_offset;
		}
		l->have_req = true;
		l->cli = info.src;
		l->tgt = info.dst;
		if (!(req.pro.flags & UET_PDS_F_REQ_SYN)) {
			l->dpdcid = req.dpdcid;
			l->have_dpdcid = true;
		}
		if (l->nold < FL_OLD_PSNS && !(req.pro.flags &
					       UET_PDS_F_REQ_RETX))
			l->old_psn[l->nold++] = req.psn;
		if (l->nold == 1 || (int32_t)(req.psn - l->last_psn) > 0)
			l->last_psn = req.psn;
		if (!l->have_first_id) {
			l->first_id = h.message_id;
			l->have_first_id = true;
		}
		l->last_id = h.message_id;
		l->last = h;
	}
	fclose(f);
	free(buf);
	return l->have_req ? 0 : -1;
}

static void fl_learn_print(const struct fl_learn *l)
{
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &l->cli.v4, ip, sizeof(ip));
	printf("uet_flood: learnt from %u frames (%u requests, %u ACKs, %u "
	       "PDCs): client %s port %u ep %u spdcid 0x%04x dpdcid 0x%04x%s psn "
	       "0x%08x..0x%08x first_id 0x%04x last_id 0x%04x job %u pid "
	       "%u ri %u gen %u key 0x%llx offset %llu\n", l->frames, l->reqs,
	       l->acks, l->pdcs, ip, l->cli.port, UET_FEP_ID_EP(l->spdcid), l->spdcid,
	       l->dpdcid, l->have_dpdcid ? "" : " (unknown)", l->start_psn,
	       l->last_psn, l->first_id, l->last_id, l->last.job_id,
	       l->last.pid_on_fep, l->last.resource_index,
	       l->last.ri_generation, (unsigned long long)l->last.memory_key,
	       (unsigned long long)l->last.buffer_offset);
}

static int fl_cmd_learn(const struct fl_opts *o)
{
	struct fl_learn l;

	if (!o->pcap || !o->dst)
		fl_die("learn: --pcap and --dst needed");
	if (fl_learn(&l, o->pcap, o->dst) < 0) {
		printf("uet_flood: learnt nothing: no request to %s in %s\n",
		       o->dst, o->pcap);
		return 1;
	}
	fl_learn_print(&l);
	return 0;
}

/* ---- replay -------------------------------------------------------------- */
enum fl_rp_kind {
	RP_BAD_JOB, RP_BAD_PID, RP_BAD_RI, RP_BAD_KEY, RP_BAD_OFFSET,
	RP_BAD_LENGTH, RP_MALFORMED, RP_LIVE_OLD_PSN, RP_HDR_MISMATCH,
	RP_UNKNOWN_DPDCID, RP_SYN_REUSE, RP_KINDS
};

static const char *const fl_rp_names[RP_KINDS] = {
	"syn_bad_job_id", "syn_bad_pid_on_fep", "syn_bad_ri", "syn_bad_key",
	"syn_offset_outside", "syn_length_outside", "syn_malformed_ses",
	"live_pdc_replayed_psn_bad_key", "wrong_spdcid_live_dpdcid",
	"unknown_dpdcid", "syn_reusing_live_spdcid",
};

/* An id under |ep|'s prefix other than |not|, never 0. */
static uint16_t fl_pdcid_under(uint16_t like, uint16_t not)
{
	uint16_t id;

	do
		id = (uint16_t)((like & ~((1u << UET_FEP_ID_SHIFT) - 1)) |
				(fl_rand() & ((1u << UET_FEP_ID_SHIFT) - 1)));
	while (id == not || id == 0);
	return id;
}

static size_t fl_rp_frame(uint8_t *p, const struct fl_learn *l, int kind,
			  uint16_t id, uint32_t j)
{
	size_t data = 256;
	struct pdc_req req = {
		.pro = { UET_PDS_TYPE_RUD_REQ, UET_PDS_NEXT_HDR_REQUEST_STD,
			 UET_PDS_F_REQ_SYN | UET_PDS_F_REQ_AR },
		.psn = (uint32_t)fl_rand(),
		.spdcid = fl_pdcid_under(l->spdcid, l->spdcid),
	};
	struct ses_std_hdr h = l->last;

	h.f.som = h.f.eom = true;
	h.f.hd = false;
	h.header_data = 0;
	h.payload_length = 0;
	h.message_offset = 0;
	h.message_id = id;
	h.request_length = (uint32_t)data;
	h.memory_key = fl_wrong_key(l->last.memory_key);
	switch (kind) {
	case RP_BAD_JOB:
		h.job_id = (h.job_id + 1 + fl_rand() % 0xFFFFFE) & 0xFFFFFF;
		break;
	case RP_BAD_PID:
		h.pid_on_fep = (uint16_t)((h.pid_on_fep + 1) & 0xFFF);
		break;
	case RP_BAD_RI:
		h.resource_index = (uint16_t)((h.resource_index + 1 +
					       fl_rand() % 4094) & 0xFFF);
		h.memory_key = l->last.memory_key;
		break;
	case RP_BAD_KEY:
		break;
	case RP_BAD_OFFSET:
		h.memory_key = l->last.memory_key;	/* the right key */
		h.buffer_offset = 1ull << 40;
		break;
	case RP_BAD_LENGTH:
		h.memory_key = l->last.memory_key;
		h.request_length = 0xFFFFFF00u;
		break;
	case RP_MALFORMED:	/* the SES header cut short */
		fl_build(p, &req, &h, 0);
		return UET_PDS_RUD_REQ_LEN + j % UET_SES_STD_HDR_LEN;
	case RP_LIVE_OLD_PSN:
		req.pro.flags = UET_PDS_F_REQ_AR;
		req.spdcid = l->spdcid;
		req.dpdcid = l->dpdcid;
		req.psn = l->old_psn[j % l->nold];
		break;
	case RP_HDR_MISMATCH:
		req.pro.flags = UET_PDS_F_REQ_AR;
		req.dpdcid = l->dpdcid;
		req.psn = l->last_psn + 1 + j;
		break;
	case RP_UNKNOWN_DPDCID:
		req.pro.flags = UET_PDS_F_REQ_AR;
		req.spdcid = l->spdcid;
		req.dpdcid = fl_pdcid_under(l->dpdcid, l->dpdcid);
		req.psn = l->last_psn + 1 + j;
		break;
	case RP_SYN_REUSE:
		req.spdcid = l->spdcid;
		break;
	}
	return fl_build(p, &req, &h, data);
}

/* Whether |kind| is in the comma-separated |list| (NULL: all). */
static bool fl_kind_wanted(const char *list, int kind)
{
	size_t n = strlen(fl_rp_names[kind]);

	for (const char *p = list; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, fl_rp_names[kind], n) &&
		    (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return !list;
}

static int fl_cmd_replay(const struct fl_opts *o)
{
	static uint8_t p[FL_FRAME_MAX];
	struct fl_out out = { .fd = -1 };
	struct fl_learn l;
	uint32_t mask = (1u << UET_FEP_ID_SHIFT) - 1, n = 0;
	uint16_t ids[256];
	uint64_t t0;

	if (!o->pcap || !o->dst || !o->raw || !o->ids || o->ids > 256)
		fl_die("replay: --pcap, --dst, --raw and --ids <= 256 needed");
	if (fl_learn(&l, o->pcap, o->dst) < 0 || !l.have_dpdcid || !l.nold)
		fl_die("replay: the capture shows no live PDC of a client");
	fl_learn_print(&l);
	/* The next ids: the same prefix, the sequence counting on. */
	for (uint32_t k = 0; k < o->ids; k++)
		ids[k] = (uint16_t)((l.last_id & ~mask) |
				    ((l.last_id + 1 + k) & mask));
	fl_out_raw(&out, o->raw);
	out.src = l.cli;	/* the client's address, MAC and port */
	out.dst = l.tgt;
	t0 = fl_now_ns();
	for (int kind = 0; kind < RP_KINDS; kind++)
		for (uint32_t k = 0; k < o->ids &&
				     fl_kind_wanted(o->kinds, kind); k++) {
			size_t len = fl_rp_frame(p, &l, kind, ids[k], k);

			fl_send(&out, p, len);
			fl_pace(t0, ++n, o->rate);
		}
	printf("uet_flood: replay: sent %llu of %u frames in %llu ms, %llu "
	       "send errors, message_ids 0x%04x..0x%04x for each of:",
	       (unsigned long long)out.sent, n,
	       (unsigned long long)((fl_now_ns() - t0) / 1000000),
	       (unsigned long long)out.errors, ids[0], ids[o->ids - 1]);
	for (int kind = 0; kind < RP_KINDS; kind++)
		if (fl_kind_wanted(o->kinds, kind))
			printf(" %s", fl_rp_names[kind]);
	printf("\n");
	return n && out.sent == n ? 0 : 1;
}

static void fl_usage(void)
{
	fprintf(stderr,
		"usage: uet_flood syn --dst IP --job J --pid P --ri R --key K "
		"--region LEN [--count N] [--rate PPS] [--seed S] "
		"[--raw IFACE --spoof A.B.C]\n"
		"       uet_flood learn --pcap FILE --dst IP\n"
		"       uet_flood replay --pcap FILE --dst IP --raw IFACE "
		"[--ids K] [--rate PPS] [--kinds K1,K2...]\n"
		"       uet_flood replay --list-kinds\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dst", required_argument, NULL, 'd' },
		{ "job", required_argument, NULL, 'j' },
		{ "pid", required_argument, NULL, 'P' },
		{ "ri", required_argument, NULL, 'R' },
		{ "key", required_argument, NULL, 'k' },
		{ "region", required_argument, NULL, 'L' },
		{ "count", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "raw", required_argument, NULL, 'x' },
		{ "spoof", required_argument, NULL, 'S' },
		{ "pcap", required_argument, NULL, 'f' },
		{ "ids", required_argument, NULL, 'i' },
		{ "kinds", required_argument, NULL, 'K' },
		{ "list-kinds", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	struct fl_opts o = { .count = 5000, .rate = 2500, .ids = 16 };
	int c;

	if (argc < 2)
		fl_usage();
	o.cmd = argv[1];
	optind = 2;
	o.seed = fl_now_ns() ^ (uint64_t)getpid() << 32;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o.dst = optarg; break;
		case 'j': o.job = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'P': o.pid = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'R': o.ri = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'k': o.key = strtoull(optarg, NULL, 0); break;
		case 'L': o.region = strtoull(optarg, NULL, 0); break;
		case 'n': o.count = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'r': o.rate = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': o.seed = strtoull(optarg, NULL, 0); break;
		case 'x': o.raw = optarg; break;
		case 'S': o.spoof = optarg; break;
		case 'f': o.pcap = optarg; break;
		case 'i': o.ids = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'K': o.kinds = optarg; break;
		case 'l':
			for (int k = 0; k < RP_KINDS; k++)
				printf("%s\n", fl_rp_names[k]);
			return 0;
		default: fl_usage();
		}
	}
	fl_rng = o.seed;
	if (o.job > 0xFFFFFF || o.pid > 0xFFF || o.ri > 0xFFF)
		fl_die("--job, --pid or --ri too large");
	if (!strcmp(o.cmd, "syn"))
		return fl_cmd_syn(&o);
	if (!strcmp(o.cmd, "learn"))
		return fl_cmd_learn(&o);
	if (!strcmp(o.cmd, "replay"))
		return fl_cmd_replay(&o);
	fl_usage();
	return 2;
}
