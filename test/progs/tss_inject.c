/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tss_inject: a third host's attacks on TSS (test/e2e/e2e_tss.sh). It sends
 * again, from its own interface, the sealed UET frames of a capture that
 * go to --dst, as they were or changed:
 *
 *   tss_inject --pcap FILE --dst IPV4 --raw IFACE --mode MODE [--at N]
 *              [--sdi N] [--max N]
 *
 *   replay   the frames as they were (a replay: every TSC seen before)
 *   tamper   one bit flipped at byte N of the UDP payload (--at; -1: the
 *            last byte, the ICV; a position past the end is the last)
 *   port     one bit of the UDP source port flipped (the AAD covers it)
 *   sdi      the TSS header's SDI replaced by N (another secure domain)
 *   clear    a clear frame (no TSS: one with a CRC32C trailer) with one
 *            bit flipped at byte N of the UDP payload (--at; -1: the
 *            middle)
 *
 * The Ethernet source becomes the interface's own MAC (so that a bridge
 * does not learn the victim's on our port); IP and UDP stay as captured.
 * Prints "tss_inject: sent N frames (MODE)"; exit 0 when N > 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dev/uet_frame.h"
#include "tss/uet_tss.h"

struct ti_opts {
	const char *pcap, *dst, *ifname, *mode;
	long at, sdi, max;
};

static void ti_die(const char *what)
{
	fprintf(stderr, "tss_inject: %s\n", what);
	exit(2);
}

/* Changes the UDP payload |pay| (|len| bytes) of |frame| as |o| says. */
static void ti_mangle(const struct ti_opts *o, uint8_t *frame,
		      const struct uet_frame_info *info, uint8_t *pay,
		      size_t len)
{
	size_t at;

	if (!strcmp(o->mode, "clear")) {
		at = o->at < 0 || (size_t)o->at >= len ? len / 2 :
		     (size_t)o->at;
		pay[at] ^= 0x10;
	} else if (!strcmp(o->mode, "tamper")) {
		at = o->at < 0 || (size_t)o->at >= len ? len - 1 :
		     (size_t)o->at;
		pay[at] ^= 0x10;
	} else if (!strcmp(o->mode, "port")) {
		frame[info->hdr_len - UET_UDP_HDR_LEN + 1] ^= 0x04;
	} else if (!strcmp(o->mode, "sdi")) {
		pay[1] = (uint8_t)(o->sdi >> 16);
		pay[2] = (uint8_t)(o->sdi >> 8);
		pay[3] = (uint8_t)o->sdi;
	}
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "pcap", 1, NULL, 'p' }, { "dst", 1, NULL, 'd' },
		{ "raw", 1, NULL, 'r' }, { "mode", 1, NULL, 'm' },
		{ "at", 1, NULL, 'a' }, { "sdi", 1, NULL, 's' },
		{ "max", 1, NULL, 'n' }, { NULL, 0, NULL, 0 },
	};
	struct ti_opts o = { .at = -1, .sdi = 0xABCDE, .max = 1000 };
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const uint8_t *data;
	static uint8_t frame[65536];
	struct in_addr dst;
	struct ifreq ifr;
	long sent = 0;
	pcap_t *pc;
	int c, fd;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o.pcap = optarg; break;
		case 'd': o.dst = optarg; break;
		case 'r': o.ifname = optarg; break;
		case 'm': o.mode = optarg; break;
		case 'a': o.at = strtol(optarg, NULL, 0); break;
		case 's': o.sdi = strtol(optarg, NULL, 0); break;
		case 'n': o.max = strtol(optarg, NULL, 0); break;
		default: ti_die("bad option");
		}
	}
	if (!o.pcap || !o.dst || !o.ifname || !o.mode ||
	    inet_pton(AF_INET, o.dst, &dst) != 1)
		ti_die("usage: --pcap FILE --dst IPV4 --raw IFACE --mode "
		       "replay|tamper|port|sdi [--at N] [--sdi N] [--max N]");
	if (strcmp(o.mode, "replay") && strcmp(o.mode, "tamper") &&
	    strcmp(o.mode, "port") && strcmp(o.mode, "sdi") &&
	    strcmp(o.mode, "clear"))
		ti_die("--mode is replay, tamper, port, sdi or clear");
	pc = pcap_open_offline(o.pcap, err);
	if (!pc)
		ti_die(err);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	ll.sll_ifindex = (int)if_nametoindex(o.ifname);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", o.ifname);
	if (fd < 0 || !ll.sll_ifindex || ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		ti_die("raw socket (root? interface?)");
	while (sent < o.max && pcap_next_ex(pc, &h, &data) == 1) {
		struct uet_frame_info info;
		uint8_t *pay;

		/* Whole frames only: the capture's snap length cut the rest. */
		if (h->caplen != h->len || h->caplen > sizeof(frame))
			continue;
		memcpy(frame, data, h->caplen);
		if (uet_frame_decode(&info, frame, h->caplen, h->caplen) < 0 ||
		    info.dst.is_v6 || info.dst.v4.s_addr != dst.s_addr)
			continue;
		pay = frame + info.hdr_len;
		if (!strcmp(o.mode, "clear") ?
		    uet_tss_is_tss(pay, info.payload_len) :
		    !uet_tss_is_tss(pay, info.payload_len) ||
		    info.payload_len < UET_TSS_HDR_LEN + UET_TSS_ICV_LEN)
			continue;
		ti_mangle(&o, frame, &info, pay, info.payload_len);
		memcpy(frame + 6, ifr.ifr_hwaddr.sa_data, 6);
		ll.sll_protocol = htons(ETH_P_IP);
		memcpy(ll.sll_addr, frame, 6);
		if (sendto(fd, frame, h->caplen, 0, (struct sockaddr *)&ll,
			   sizeof(ll)) < 0)
			ti_die("sendto");
		sent++;
		usleep(200);	/* a burst would only meet a full ring */
	}
	pcap_close(pc);
	printf("tss_inject: sent %ld frames (%s)\n", sent, o.mode);
	return sent > 0 ? 0 : 1;
}
