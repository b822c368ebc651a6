/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Ethernet + IPv4/IPv6 + UDP framing of UET packets (ref 1.2): written
 * straight into a frame buffer on transmit, parsed with the same layout on
 * receive. The UDP checksum is 0 and the source port carries the entropy.
 */
#ifndef UET_FRAME_H
#define UET_FRAME_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UET_ETH_ALEN		6
#define UET_ETH_HDR_LEN		14
#define UET_VLAN_HDR_LEN	4
#define UET_IPV4_HDR_LEN	20
#define UET_IPV6_HDR_LEN	40
#define UET_UDP_HDR_LEN		8
/* Longest header we write: Ethernet, IPv6, UDP (no VLAN on transmit). */
#define UET_FRAME_HDR_MAX	(UET_ETH_HDR_LEN + UET_IPV6_HDR_LEN + \
				 UET_UDP_HDR_LEN)

/* One side of a UET flow: an IPv4 or IPv6 address (IPv4 as ::ffff:a.b.c.d
 * is not used: |is_v6| tells), a MAC, and a UDP port. */
struct uet_frame_addr {
	bool is_v6;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
	uint8_t mac[UET_ETH_ALEN];
	uint16_t port;		/* host order */
	/*
	 * The IP traffic class, DSCP << 2 | ECN: a sender's is written in its
	 * frames (0: CS0, not ECN-capable), a receiver's is ignored.
	 */
	uint8_t tclass;
};

/* What a frame's outer headers say, as parsed by uet_frame_decode(). */
struct uet_frame_info {
	struct uet_frame_addr src;
	struct uet_frame_addr dst;
	uint16_t vlan_tci;	/* 0 when untagged */
	uint8_t ecn;		/* IP ECN bits */
	uint8_t dscp;		/* IP DSCP: a switch may rewrite it (trim) */
	uint16_t hdr_len;	/* bytes before the UDP payload */
	uint16_t payload_len;	/* UDP payload bytes (from the UDP length) */
};

/*
 * uet_frame_hdr_len() returns the header bytes for a flow of |is_v6|.
 */
static inline size_t uet_frame_hdr_len(bool is_v6)
{
	return UET_ETH_HDR_LEN + (is_v6 ? UET_IPV6_HDR_LEN : UET_IPV4_HDR_LEN) +
	       UET_UDP_HDR_LEN;
}

/*
 * uet_frame_encode() writes Ethernet, IP and UDP headers for a UDP payload of
 * |payload_len| bytes from |src| to |dst| at |out|; the source UDP port is
 * |src|->port (the entropy value). Returns the header length, -ENOBUFS when
 * |outlen| is too short for the headers, -EINVAL when the families differ or
 * the datagram would exceed 65535 bytes.
 */
ssize_t uet_frame_encode(uint8_t *out, size_t outlen,
			 const struct uet_frame_addr *src,
			 const struct uet_frame_addr *dst, size_t payload_len);

/*
 * uet_frame_decode() parses a received frame of |frame_len| bytes whose
 * first |len| are contiguous at |frame| (a multi-buffer frame continues in
 * other buffers): Ethernet with at most one VLAN tag, IPv4 with any IHL or
 * IPv6, UDP, all within |len|. Returns 0 and fills |info|, or -EBADMSG when
 * the frame is truncated, not UDP, fragmented or its lengths disagree.
 */
int uet_frame_decode(struct uet_frame_info *info, const uint8_t *frame,
		     size_t len, size_t frame_len);

/*
 * Bytes of a packet's IP datagram that are not SES payload, at most: IP, UDP,
 * a TSS header with SSI (16), the largest PDS request (RUD/ROD with CC
 * state, 16), the standard SES header (44), the largest extension
 * (compare-and-swap, 36) and the ICV (16). The Payload MTU is the same with
 * TSS on or off, as the reference provider's budget is.
 */
#define UET_FRAME_HDR_BUDGET_V4	(UET_IPV4_HDR_LEN + UET_UDP_HDR_LEN + 16 + \
				 16 + 44 + 36 + 16)
#define UET_FRAME_HDR_BUDGET_V6	(UET_IPV6_HDR_LEN + UET_UDP_HDR_LEN + 16 + \
				 16 + 44 + 36 + 16)

/*
 * uet_frame_payload_mtu() chooses the Payload MTU for an interface MTU
 * |if_mtu| (ref 1.5): the largest of 8192, 4096, 2048, 1024 that fits with
 * the header budget. Returns it, or -EMSGSIZE when not even 1024 fits.
 */
int uet_frame_payload_mtu(unsigned int if_mtu, bool is_v6);

/* The IPv4 header checksum (RFC 791) over |len| bytes at |hdr|. */
uint16_t uet_ipv4_csum(const uint8_t *hdr, size_t len);

#endif /* UET_FRAME_H */
