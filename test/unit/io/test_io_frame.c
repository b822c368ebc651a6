/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Ethernet/IP/UDP framing of UET packets: exact bytes for IPv4 and IPv6,
 * round trips, and rejection of truncated, fragmented and non-UDP frames.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "dev/uet_frame.h"

static struct uet_frame_addr t_v4(const char *ip, uint8_t mac_lo,
				  uint16_t port)
{
	struct uet_frame_addr a = { .is_v6 = false, .port = port,
				    .mac = { 0x02, 0, 0, 0, 0, mac_lo } };

	inet_pton(AF_INET, ip, &a.v4);
	return a;
}

static struct uet_frame_addr t_v6(const char *ip, uint8_t mac_lo,
				  uint16_t port)
{
	struct uet_frame_addr a = { .is_v6 = true, .port = port,
				    .mac = { 0x02, 0, 0, 0, 0, mac_lo } };

	inet_pton(AF_INET6, ip, &a.v6);
	return a;
}

/*
 * 10.11.0.1:0xBEEF -> 10.11.0.2:4793, 4 payload bytes. IPv4 header checksum
 * worked by hand: 4500+0020+0000+4000+4011+0a0b+0001+0a0b+0002 = 0xD94A,
 * complement 0x26B5.
 */
static const uint8_t t_v4_hdr[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02,	/* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,	/* src MAC */
	0x08, 0x00,				/* IPv4 */
	0x45, 0x00, 0x00, 0x20,			/* v4, IHL 5; len 32 */
	0x00, 0x00, 0x40, 0x00,			/* id 0; DF */
	0x40, 0x11, 0x26, 0xB5,			/* TTL 64, UDP; csum */
	0x0A, 0x0B, 0x00, 0x01,			/* src 10.11.0.1 */
	0x0A, 0x0B, 0x00, 0x02,			/* dst 10.11.0.2 */
	0xBE, 0xEF, 0x12, 0xB9,			/* sport entropy; 4793 */
	0x00, 0x0C, 0x00, 0x00,			/* UDP len 12; csum 0 */
};

Test(io_frame, ipv4_header_bytes)
{
	struct uet_frame_addr src = t_v4("10.11.0.1", 1, 0xBEEF);
	struct uet_frame_addr dst = t_v4("10.11.0.2", 2, 4793);
	uint8_t out[64];

	cr_assert_eq(uet_frame_encode(out, sizeof(out), &src, &dst, 4),
		     (ssize_t)sizeof(t_v4_hdr));
	cr_assert_arr_eq(out, t_v4_hdr, sizeof(t_v4_hdr));
	cr_assert_eq(uet_ipv4_csum(out + 14, 20), 0,
		     "a correct header sums to zero");
}

Test(io_frame, ipv4_round_trip)
{
	struct uet_frame_addr src = t_v4("10.11.0.1", 1, 0xBEEF);
	struct uet_frame_addr dst = t_v4("10.11.0.2", 2, 4793);
	struct uet_frame_info info;
	uint8_t out[128] = { 0 };
	ssize_t hl = uet_frame_encode(out, sizeof(out), &src, &dst, 60);

	cr_assert_eq(hl, 42);
	cr_assert_eq(uet_frame_decode(&info, out, (size_t)hl + 60,
				      (size_t)hl + 60), 0);
	cr_assert_eq(info.hdr_len, 42);
	cr_assert_eq(info.payload_len, 60);
	cr_assert_eq(info.src.port, 0xBEEF);
	cr_assert_eq(info.dst.port, 4793);
	cr_assert(!info.src.is_v6);
	cr_assert_eq(info.src.v4.s_addr, src.v4.s_addr);
	cr_assert_eq(info.dst.v4.s_addr, dst.v4.s_addr);
	cr_assert_arr_eq(info.src.mac, src.mac, 6);
	cr_assert_arr_eq(info.dst.mac, dst.mac, 6);
}

Test(io_frame, ipv6_round_trip)
{
	struct uet_frame_addr src = t_v6("fd00:75e7::1", 1, 0x1234);
	struct uet_frame_addr dst = t_v6("fd00:75e7::2", 2, 4793);
	struct uet_frame_info info;
	uint8_t out[256] = { 0 };
	ssize_t hl = uet_frame_encode(out, sizeof(out), &src, &dst, 100);

	cr_assert_eq(hl, 62);
	cr_assert_eq(out[12], 0x86);
	cr_assert_eq(out[13], 0xDD);
	cr_assert_eq(out[14] >> 4, 6);
	cr_assert_eq(out[20], 17, "next header UDP");
	cr_assert_eq(out[60], 0);
	cr_assert_eq(out[61], 0, "UDP checksum 0");
	cr_assert_eq(uet_frame_decode(&info, out, 162, 162), 0);
	cr_assert(info.dst.is_v6);
	cr_assert_arr_eq(&info.dst.v6, &dst.v6, 16);
	cr_assert_eq(info.payload_len, 100);
}

Test(io_frame, vlan_tag_and_any_ihl_decode)
{
	struct uet_frame_addr src = t_v4("10.11.0.1", 1, 7);
	struct uet_frame_addr dst = t_v4("10.11.0.2", 2, 4793);
	struct uet_frame_info info;
	uint8_t plain[64] = { 0 }, f[96] = { 0 };

	uet_frame_encode(plain, sizeof(plain), &src, &dst, 4);
	/* Insert an 802.1Q tag (VID 100) and 8 bytes of IPv4 options. */
	memcpy(f, plain, 12);
	f[12] = 0x81, f[13] = 0x00, f[14] = 0x00, f[15] = 0x64;
	memcpy(f + 16, plain + 12, 2);
	memcpy(f + 18, plain + 14, 20);
	f[18] = 0x47;				/* IHL 7 */
	f[21] = 20 + 8 + 12;			/* total length */
	memset(f + 38, 1, 8);			/* NOP options */
	memcpy(f + 46, plain + 34, 12);		/* UDP + payload */
	cr_assert_eq(uet_frame_decode(&info, f, 58, 58), 0);
	cr_assert_eq(info.vlan_tci, 100);
	cr_assert_eq(info.hdr_len, 18 + 28 + 8);
	cr_assert_eq(info.payload_len, 4);
}

Test(io_frame, rejects_truncated_and_bad_frames)
{
	struct uet_frame_addr src = t_v4("10.11.0.1", 1, 7);
	struct uet_frame_addr dst = t_v4("10.11.0.2", 2, 4793);
	struct uet_frame_info info;
	uint8_t f[64] = { 0 };

	uet_frame_encode(f, sizeof(f), &src, &dst, 4);
	for (size_t len = 0; len < 46; len++)
		cr_assert_eq(uet_frame_decode(&info, f, len, len), -EBADMSG,
			     "length %zu", len);
	f[23] = 6;				/* TCP */
	cr_assert_eq(uet_frame_decode(&info, f, 46, 46), -EBADMSG);
	f[23] = 17;
	f[20] = 0x20;				/* MF: a fragment */
	cr_assert_eq(uet_frame_decode(&info, f, 46, 46), -EBADMSG);
	f[20] = 0x40;
	f[38] = 0, f[39] = 200;			/* UDP length past IP */
	cr_assert_eq(uet_frame_decode(&info, f, 46, 46), -EBADMSG);
	f[39] = 12;
	cr_assert_eq(uet_frame_decode(&info, f, 46, 46), 0);
}

Test(io_frame, encode_errors)
{
	struct uet_frame_addr a4 = t_v4("10.11.0.1", 1, 7);
	struct uet_frame_addr a6 = t_v6("fd00::1", 2, 7);
	uint8_t f[64];

	cr_assert_eq(uet_frame_encode(f, 41, &a4, &a4, 0), -ENOBUFS);
	cr_assert_eq(uet_frame_encode(f, sizeof(f), &a4, &a6, 0), -EINVAL);
	cr_assert_eq(uet_frame_encode(f, sizeof(f), &a4, &a4, 65536), -EINVAL);
}

/* ref 1.5: the largest Payload MTU that fits the interface MTU. */
Test(io_frame, payload_mtu_from_interface_mtu)
{
	cr_assert_eq(uet_frame_payload_mtu(9000, false), 8192);
	cr_assert_eq(uet_frame_payload_mtu(9000, true), 8192);
	cr_assert_eq(uet_frame_payload_mtu(1500, false), 1024);
	cr_assert_eq(uet_frame_payload_mtu(1500, true), 1024);
	cr_assert_eq(uet_frame_payload_mtu(4500, false), 4096);
	cr_assert_eq(uet_frame_payload_mtu(3000, false), 2048);
	/*
	 * Exactly at the edge: 1024 + 20 + 8 + 16 (TSS header) + 16 + 44 +
	 * 36 + 16 (ICV) = 1180.
	 */
	cr_assert_eq(uet_frame_payload_mtu(1180, false), 1024);
	cr_assert_eq(uet_frame_payload_mtu(1179, false), -EMSGSIZE);
	cr_assert_eq(uet_frame_payload_mtu(8192 + 156, false), 8192);
	cr_assert_eq(uet_frame_payload_mtu(8192 + 155, false), 4096);
	cr_assert_eq(uet_frame_payload_mtu(8192 + 176, true), 8192);
	cr_assert_eq(uet_frame_payload_mtu(8192 + 175, true), 4096);
}
