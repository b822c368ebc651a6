/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tss_send SRC_IP DST_IP SDI KEYHEX EP [COUNT]: sends COUNT (default 1)
 * secured UET frames over UDP (port 4793, from port 4793) to DST_IP:
 * an ACK whose DPDCID names endpoint index EP, sealed in cluster mode with
 * KEYHEX as key 0 of SD SDI (epoch 0xBEEF). For e2e_tss_keys.sh: the
 * device service there peeks at the header to find the endpoint.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tss/uet_tss_ep.h"
#include "uet_fep.h"
#include "uet_wire.h"

int main(int argc, char **argv)
{
	struct uet_tss_sd_keys k = { .mode = UET_TSS_CLUSTER, .have = 1,
				     .epoch = { 0xBEEF } };
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_port = htons(UET_UDP_PORT) };
	struct sockaddr_in dst = src;
	struct uet_tss_src local = { 0 };
	struct uet_tss_pkt pkt;
	struct uet_tss_ep *ep;
	uint8_t buf[256];
	int fd, count = argc > 6 ? atoi(argv[6]) : 1;

	if (argc < 6 || strlen(argv[4]) != 64 ||
	    inet_pton(AF_INET, argv[1], &src.sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: tss_send SRC_IP DST_IP SDI KEYHEX EP "
			"[COUNT]\n");
		return 2;
	}
	k.sdi = (uint32_t)strtoul(argv[3], NULL, 10);
	for (int i = 0; i < 32; i++)
		sscanf(argv[4] + 2 * i, "%2hhx", &k.key[0][i]);
	memcpy(local.addr, &src.sin_addr, 4);
	ep = uet_tss_ep_new(&k, &local);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (!ep || fd < 0 ||
	    bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0) {
		perror("tss_send");
		return 1;
	}
	pkt = (struct uet_tss_pkt){ .saddr = (uint8_t *)&src.sin_addr,
				    .daddr = (uint8_t *)&dst.sin_addr,
				    .sport = UET_UDP_PORT,
				    .dport = UET_UDP_PORT };
	for (int n = 0; n < count; n++) {
		size_t hl = uet_tss_ep_hdr_len(ep);
		uint8_t *pds = buf + hl;
		uint16_t dpdcid = (uint16_t)(atoi(argv[5]) <<
					     UET_FEP_ID_SHIFT | 1);
		ssize_t len;

		/* An ACK (type 7) for PDC 1 of endpoint EP, 32 bytes. */
		memset(pds, 0, 32);
		pds[0] = UET_PDS_TYPE_ACK << 3;
		pds[UET_FEP_PDS_DPDCID_OFF] = (uint8_t)(dpdcid >> 8);
		pds[UET_FEP_PDS_DPDCID_OFF + 1] = (uint8_t)dpdcid;
		len = uet_tss_ep_seal(ep, &pkt, buf, 32);
		if (len < 0 || sendto(fd, buf, (size_t)len, 0,
				      (struct sockaddr *)&dst,
				      sizeof(dst)) < 0) {
			perror("tss_send: seal or send");
			return 1;
		}
	}
	uet_tss_ep_free(ep);
	close(fd);
	return 0;
}
