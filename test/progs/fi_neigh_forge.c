/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Forged source MACs (test/e2e/e2e_neigh.sh, check c):
 *
 *   fi_neigh_forge IFACE DST_IP JOB_ID PID_ON_FEP FAKE_MAC COUNT
 *
 * From a raw AF_PACKET socket on IFACE (no UET program on it), sends COUNT
 * requests to the UET endpoint (JOB_ID, PID_ON_FEP) at DST_IP (the target's
 * XDP program steers them to it by their SES header), 20 ms apart, from
 * our own IPv4 address but with FAKE_MAC as Ethernet source. Each names a
 * PDC the target does not have, which it answers with a NACK. Every UET frame
 * coming back from DST_IP is sorted by its Ethernet destination: ours (the
 * kernel's neighbour entry for us at the target) or the forged one. Exit
 * 0 when answers came, all of them to our real MAC.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
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
#include "uet_wire.h"

#define FORGE_GAP_MS	20
#define FORGE_TAIL_MS	500	/* answers still coming after the last */

struct forge {
	int fd, ifindex;
	struct uet_frame_addr src, dst;
	uint8_t real_mac[6];
	struct ses_std_hdr ses;
	unsigned long to_real, to_fake;
};

static uint64_t forge_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int forge_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* One request on a PDC the target never opened (SYN clear). */
static int forge_send(struct forge *f, uint32_t psn)
{
	uint8_t frame[256];
	struct pdc_req req = {
		.pro = { .type = UET_PDS_TYPE_RUD_REQ,
			 .next_hdr = UET_PDS_NEXT_HDR_REQUEST_STD,
			 .flags = UET_PDS_F_REQ_AR },
		.psn = psn, .spdcid = 0x1234, .dpdcid = 0x02a5,
	};
	struct sockaddr_ll to = { .sll_family = AF_PACKET,
				  .sll_ifindex = f->ifindex, .sll_halen = 6 };
	ssize_t hl, pl, sl;

	hl = uet_frame_hdr_len(false);
	pl = pdc_req_encode(frame + hl, sizeof(frame) - (size_t)hl, &req);
	if (pl < 0)
		return -1;
	sl = ses_std_hdr_encode(frame + hl + pl, sizeof(frame) -
				(size_t)(hl + pl), &f->ses);
	if (sl < 0)
		return -1;
	pl += sl;
	if (uet_frame_encode(frame, sizeof(frame), &f->src, &f->dst,
			     (size_t)pl) < 0)
		return -1;
	memcpy(to.sll_addr, f->dst.mac, 6);
	return sendto(f->fd, frame, (size_t)(hl + pl), 0,
		      (struct sockaddr *)&to, sizeof(to)) < 0 ? -1 : 0;
}

/* Sorts the UET frames from the target that arrive within |wait_ms|. */
static void forge_drain(struct forge *f, int wait_ms)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN };
	uint64_t end = forge_now_ms() + (uint64_t)wait_ms;
	struct uet_frame_info info;
	struct sockaddr_ll from;
	socklen_t flen;
	uint8_t buf[2048];
	ssize_t n;
	uint64_t now;

	while ((now = forge_now_ms()) < end &&
	       poll(&p, 1, (int)(end - now)) > 0) {
		flen = sizeof(from);
		n = recvfrom(f->fd, buf, sizeof(buf), 0,
			     (struct sockaddr *)&from, &flen);
		if (n <= 0 || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (uet_frame_decode(&info, buf, (size_t)n, (size_t)n) < 0 ||
		    info.src.is_v6 ||
		    info.src.v4.s_addr != f->dst.v4.s_addr ||
		    info.dst.port != UET_UDP_PORT)
			continue;
		if (!memcmp(info.dst.mac, f->real_mac, 6))
			f->to_real++;
		else if (!memcmp(info.dst.mac, f->src.mac, 6))
			f->to_fake++;
	}
}

/* The raw socket, our addresses and the target's MAC. */
static int forge_open(struct forge *f, const char *ifname, const char *dst)
{
	struct sockaddr_ll me = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_P_ALL) };
	struct uet_nl_route rt;

	f->ifindex = (int)if_nametoindex(ifname);
	if (!f->ifindex || inet_pton(AF_INET, dst, &f->dst.v4) != 1)
		return -1;
	if (uet_nl_resolve(&f->dst.v4, false, 5000, &rt) < 0 || !rt.has_src ||
	    rt.ifindex != f->ifindex) {
		fprintf(stderr, "fi_neigh_forge: no route to %s on %s\n", dst,
			ifname);
		return -1;
	}
	memcpy(f->dst.mac, rt.mac, 6);
	f->src.v4 = rt.src.v4;
	f->src.port = 0x8001;		/* an entropy value */
	f->dst.port = UET_UDP_PORT;
	if (uet_nl_if_mac(f->ifindex, f->real_mac) < 0)
		return -1;
	f->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (f->fd < 0)
		return -1;
	me.sll_ifindex = f->ifindex;
	return bind(f->fd, (struct sockaddr *)&me, sizeof(me));
}

int main(int argc, char **argv)
{
	struct forge f = { .fd = -1 };
	long count;

	if (argc != 7) {
		fprintf(stderr, "usage: fi_neigh_forge IFACE DST_IP JOB_ID "
			"PID_ON_FEP FAKE_MAC COUNT\n");
		return 2;
	}
	if (forge_open(&f, argv[1], argv[2]) < 0 ||
	    forge_parse_mac(argv[5], f.src.mac) < 0) {
		perror("fi_neigh_forge");
		return 1;
	}
	/* A one-packet WRITE of nothing, relative to the endpoint. */
	f.ses = (struct ses_std_hdr){
		.opcode = UET_SES_OP_WRITE,
		.f = { .rel = true, .som = true, .eom = true },
		.job_id = (uint32_t)strtoul(argv[3], NULL, 0),
		.pid_on_fep = (uint16_t)strtoul(argv[4], NULL, 0),
	};
	count = atol(argv[6]);
	for (long i = 0; i < count; i++) {
		if (forge_send(&f, 1000 + (uint32_t)i) < 0) {
			perror("fi_neigh_forge: send");
			return 1;
		}
		forge_drain(&f, FORGE_GAP_MS);
	}
	forge_drain(&f, FORGE_TAIL_MS);
	printf("fi_neigh_forge: %ld requests from %s with source MAC %s: "
	       "%lu answers to our real MAC, %lu to the forged one %s\n",
	       count, inet_ntoa(f.src.v4), argv[5], f.to_real, f.to_fake,
	       f.to_real && !f.to_fake ? "ok" : "FAIL");
	close(f.fd);
	return f.to_real && !f.to_fake ? 0 : 1;
}
