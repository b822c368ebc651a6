/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writes a classic pcap file of hand-made UET frames for the dissector test
 * (test/e2e/e2e_dissector.sh): the seed example, every PDS header type and SES
 * header, malformed frames, our RDMO requests with their extension
 * headers, TSS-sealed frames (tss/uet_tss.h) and frames with a CRC32C
 * trailer. Usage: gen_uet_pcap FILE.pcap
 *
 * This file writes the pcap records, frames the packets and holds main;
 * the packets are built in gen_uet_pcap_hdrs.c (frames 1-32) and
 * gen_uet_pcap_prot.c (frames 33-40), with the codecs; gen_uet_pcap.h has
 * what they share.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gen_uet_pcap.h"

/* Records a codec's result: append its bytes, or remember the failure. */
void t_put(struct t_gen *g, struct t_pkt *p, const char *what,
	   ssize_t n)
{
	if (n < 0) {
		fprintf(stderr, "gen_uet_pcap: frame %u: %s: %s\n",
			g->frames + 1, what, strerror((int)-n));
		g->err = 1;
		return;
	}
	p->len += (size_t)n;
}

/* Appends |n| payload bytes; the pattern shows where data starts. */
void t_fill(struct t_pkt *p, size_t n)
{
	for (size_t i = 0; i < n && p->len < sizeof(p->b); i++)
		p->b[p->len++] = (uint8_t)(0xA0 + i % 16);
}

static void t_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void t_le32(uint8_t *p, uint32_t v)
{
	t_le16(p, (uint16_t)v);
	t_le16(p + 2, (uint16_t)(v >> 16));
}

/* Classic pcap (not pcapng): version 2.4, Ethernet link type, our order. */
static void t_pcap_header(struct t_gen *g)
{
	uint8_t h[24] = { 0 };

	t_le32(h, 0xA1B2C3D4u);		/* magic: microsecond timestamps */
	t_le16(h + 4, 2);
	t_le16(h + 6, 4);
	t_le32(h + 16, 65535);		/* snaplen */
	t_le32(h + 20, 1);		/* LINKTYPE_ETHERNET */
	if (fwrite(h, sizeof(h), 1, g->f) != 1)
		g->err = 1;
}

/* Writes |len| bytes of |frame| as the next pcap record. */
void t_record(struct t_gen *g, const uint8_t *frame, size_t len)
{
	uint8_t rec[16];

	g->frames++;
	t_le32(rec, T_TIME_SEC);
	t_le32(rec + 4, g->frames * 1000u);	/* 1 ms apart */
	t_le32(rec + 8, (uint32_t)len);
	t_le32(rec + 12, (uint32_t)len);
	if (fwrite(rec, sizeof(rec), 1, g->f) != 1 ||
	    fwrite(frame, len, 1, g->f) != 1)
		g->err = 1;
}

/*
 * Frames |p| in Ethernet/IPv4/UDP in direction |dir| into |frame|; returns
 * the frame's length, or 0 after recording the failure.
 */
size_t t_frame(struct t_gen *g, uint8_t *frame, const struct t_pkt *p,
	       enum t_dir dir)
{
	struct uet_frame_addr src = dir == T_TO_TGT ? g->ini : g->tgt;
	struct uet_frame_addr dst = dir == T_TO_TGT ? g->tgt : g->ini;
	ssize_t hdr;

	dst.port = UET_UDP_PORT;
	hdr = uet_frame_encode(frame, T_FRAME_MAX, &src, &dst, p->len);
	if (hdr < 0) {
		t_put(g, NULL, "uet_frame_encode", hdr);
		return 0;
	}
	memcpy(frame + hdr, p->b, p->len);
	return (size_t)hdr + p->len;
}

/* Frames |p| in Ethernet/IPv4/UDP in direction |dir| and writes a record. */
void t_emit(struct t_gen *g, const struct t_pkt *p, enum t_dir dir)
{
	static uint8_t frame[T_FRAME_MAX];
	size_t len = t_frame(g, frame, p, dir);

	if (len)
		t_record(g, frame, len);
}

static int t_addr(struct uet_frame_addr *a, const char *ip, uint8_t mac_lo,
		  uint16_t entropy)
{
	const uint8_t mac[UET_ETH_ALEN] = { 0x02, 0, 0, 0, 0, mac_lo };

	memset(a, 0, sizeof(*a));
	memcpy(a->mac, mac, sizeof(mac));
	a->port = entropy;
	return inet_pton(AF_INET, ip, &a->v4) == 1 ? 0 : -1;
}

/* The same over IPv6. */
int t_addr6(struct uet_frame_addr *a, const char *ip, uint8_t mac_lo,
	    uint16_t entropy)
{
	const uint8_t mac[UET_ETH_ALEN] = { 0x02, 0, 0, 0, 0, mac_lo };

	memset(a, 0, sizeof(*a));
	memcpy(a->mac, mac, sizeof(mac));
	a->port = entropy;
	a->is_v6 = true;
	return inet_pton(AF_INET6, ip, &a->v6) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct t_gen g = { .f = NULL };

	if (argc == 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h"))) {
		printf("usage: gen_uet_pcap FILE.pcap\n"
		       "  writes hand-made UET frames (every PDS and SES "
		       "header, malformed ones,\n  our RDMO requests, TSS and "
		       "CRC32C trailers) to FILE.pcap for the\n  dissector "
		       "test\n");
		return 0;
	}
	/* A name that starts with '-' is a mistyped option, not a file. */
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: gen_uet_pcap FILE.pcap\n");
		return 2;
	}
	/* Entropy ports above 4793, so UDP offers the datagram to UET first. */
	if (t_addr(&g.ini, "10.77.0.1", 1, 0xC001) < 0 ||
	    t_addr(&g.tgt, "10.77.0.2", 2, 0xC002) < 0)
		return 1;
	g.f = fopen(argv[1], "wb");
	if (!g.f) {
		fprintf(stderr, "gen_uet_pcap: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	t_pcap_header(&g);
	t_seed(&g);
	t_acks(&g);
	t_nacks_ctl(&g);
	t_std_requests(&g);
	t_other_requests(&g);
	t_malformed(&g);
	t_rdmo(&g);
	t_tss(&g);
	t_crc(&g);
	if (fclose(g.f) != 0)
		g.err = 1;
	if (g.err) {
		fprintf(stderr, "gen_uet_pcap: %s: not written correctly\n",
			argv[1]);
		return 1;
	}
	printf("gen_uet_pcap: %u frames in %s\n", g.frames, argv[1]);
	return 0;
}
