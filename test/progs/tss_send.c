/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tss_send SRC_IP DST_IP SDI KEYHEX EP [COUNT [STREAMS [replay]]]: sends
 * COUNT (default 1) secured UET frames over UDP (port 4793, from port
 * 4793) to DST_IP: an ACK whose DPDCID names endpoint index EP, sealed in
 * cluster mode with KEYHEX as key 0 of SD SDI (epoch 0xBEEF). For
 * e2e_tss_keys.sh: the device service there peeks at the header to find
 * the endpoint. With STREAMS, as many sender streams (epochs 0xBEEF on)
 * send COUNT each, one stream after the other; with "replay" every frame
 * is then sent again, the first stream's first (e2e_tss_eps.sh: replay
 * protection for more streams than a receiver keeps windows for).
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tss/uet_tss_ep.h"
#include "uet_fep.h"
#include "uet_wire.h"

#define TS_MAX		8192	/* frames kept for a replay */
#define TS_FRAME	128

/* One frame out; paced a little, so that a veth's queue keeps up. */
static int ts_send(int fd, const struct sockaddr_in *dst, const uint8_t *buf,
		   size_t len)
{
	static unsigned int n;

	if (sendto(fd, buf, len, 0, (const struct sockaddr *)dst,
		   sizeof(*dst)) < 0) {
		perror("tss_send: sendto");
		return -1;
	}
	if (++n % 64 == 0)
		usleep(1000);
	return 0;
}

int main(int argc, char **argv)
{
	struct uet_tss_sd_keys k = { .mode = UET_TSS_CLUSTER, .have = 1,
				     .epoch = { 0xBEEF } };
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_port = htons(UET_UDP_PORT) };
	struct sockaddr_in dst = src;
	struct uet_tss_src local = { 0 };
	struct uet_tss_pkt pkt;
	struct uet_tss_ep *ep = NULL;
	int fd, count = argc > 6 ? atoi(argv[6]) : 1;
	int streams = argc > 7 ? atoi(argv[7]) : 1;
	bool replay = argc > 8 && !strcmp(argv[8], "replay");
	static uint8_t frames[TS_MAX][TS_FRAME];
	static size_t lens[TS_MAX];
	int nf = 0;

	if (argc < 6 || strlen(argv[4]) != 64 || count < 1 || streams < 1 ||
	    (long)count * streams > TS_MAX ||
	    inet_pton(AF_INET, argv[1], &src.sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: tss_send SRC_IP DST_IP SDI KEYHEX EP "
			"[COUNT [STREAMS [replay]]] (COUNT x STREAMS at most "
			"%d)\n", TS_MAX);
		return 2;
	}
	k.sdi = (uint32_t)strtoul(argv[3], NULL, 10);
	for (int i = 0; i < 32; i++)
		sscanf(argv[4] + 2 * i, "%2hhx", &k.key[0][i]);
	memcpy(local.addr, &src.sin_addr, 4);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0) {
		perror("tss_send");
		return 1;
	}
	pkt = (struct uet_tss_pkt){ .saddr = (uint8_t *)&src.sin_addr,
				    .daddr = (uint8_t *)&dst.sin_addr,
				    .sport = UET_UDP_PORT,
				    .dport = UET_UDP_PORT };
	for (int st = 0; st < streams; st++) {
		k.epoch[0] = (uint16_t)(0xBEEF + st);
		uet_tss_ep_free(ep);
		ep = uet_tss_ep_new(&k, &local);
		if (!ep) {
			perror("tss_send: uet_tss_ep_new");
			return 1;
		}
		for (int n = 0; n < count; n++, nf++) {
			uint8_t *buf = frames[nf];
			size_t hl = uet_tss_ep_hdr_len(ep);
			uint8_t *pds = buf + hl;
			uint16_t dpdcid = (uint16_t)(atoi(argv[5]) <<
						     UET_FEP_ID_SHIFT | 1);
			ssize_t len;

			/* An ACK (type 7) for PDC 1 of endpoint EP, 32 B. */
			memset(pds, 0, 32);
			pds[0] = UET_PDS_TYPE_ACK << 3;
			pds[UET_FEP_PDS_DPDCID_OFF] = (uint8_t)(dpdcid >> 8);
			pds[UET_FEP_PDS_DPDCID_OFF + 1] = (uint8_t)dpdcid;
			len = uet_tss_ep_seal(ep, &pkt, buf, 32);
			if (len < 0 || ts_send(fd, &dst, buf, (size_t)len))
				return 1;
			lens[nf] = (size_t)len;
		}
	}
	for (int i = 0; replay && i < nf; i++)
		if (ts_send(fd, &dst, frames[i], lens[i]))
			return 1;
	printf("tss_send: %d frames of %d streams%s\n", nf, streams,
	       replay ? ", then each again" : "");
	uet_tss_ep_free(ep);
	close(fd);
	return 0;
}
