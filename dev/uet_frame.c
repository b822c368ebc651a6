/* SPDX-License-Identifier: BSD-2-Clause */
/* Ethernet + IPv4/IPv6 + UDP framing of UET packets (see uet_frame.h). */
#include <errno.h>
#include <string.h>

#include "dev/uet_frame.h"
#include "uet_codec.h"

#define ETH_P_IPV4	0x0800
#define ETH_P_IPV6	0x86DD
#define ETH_P_VLAN	0x8100
#define ETH_P_QINQ	0x88A8
#define IP_PROTO_UDP	17
#define IPV4_DF		0x4000
#define IPV4_MF_OFF	0x3FFF	/* MF flag and fragment offset */
#define UET_IP_TTL	64

int uet_frame_payload_mtu(unsigned int if_mtu, bool is_v6)
{
	unsigned int budget = is_v6 ? UET_FRAME_HDR_BUDGET_V6 :
				      UET_FRAME_HDR_BUDGET_V4;

	for (int mtu = 8192; mtu >= 1024; mtu /= 2)
		if ((unsigned int)mtu + budget <= if_mtu)
			return mtu;
	return -EMSGSIZE;
}

uint16_t uet_ipv4_csum(const uint8_t *hdr, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)hdr[i] << 8 | hdr[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint8_t *uet_frame_ipv4_put(uint8_t *p, const struct uet_frame_addr *src,
				   const struct uet_frame_addr *dst,
				   size_t ip_len)
{
	uint8_t *ip = p;

	p = uet_put_u8(p, 0x45);		/* version 4, IHL 5 */
	p = uet_put_u8(p, src->tclass);		/* DSCP and ECN */
	p = uet_put_be16(p, (uint16_t)ip_len);
	p = uet_put_be16(p, 0);			/* id: DF set, never fragmented */
	p = uet_put_be16(p, IPV4_DF);
	p = uet_put_u8(p, UET_IP_TTL);
	p = uet_put_u8(p, IP_PROTO_UDP);
	p = uet_put_be16(p, 0);			/* checksum, below */
	memcpy(p, &src->v4, 4);
	memcpy(p + 4, &dst->v4, 4);
	p += 8;
	uet_put_be16(ip + 10, uet_ipv4_csum(ip, UET_IPV4_HDR_LEN));
	return p;
}

static uint8_t *uet_frame_ipv6_put(uint8_t *p, const struct uet_frame_addr *src,
				   const struct uet_frame_addr *dst,
				   size_t udp_len)
{
	/* version 6, traffic class, flow 0 */
	p = uet_put_be32(p, 6u << 28 | (uint32_t)src->tclass << 20);
	p = uet_put_be16(p, (uint16_t)udp_len);
	p = uet_put_u8(p, IP_PROTO_UDP);
	p = uet_put_u8(p, UET_IP_TTL);
	memcpy(p, &src->v6, 16);
	memcpy(p + 16, &dst->v6, 16);
	return p + 32;
}

ssize_t uet_frame_encode(uint8_t *out, size_t outlen,
			 const struct uet_frame_addr *src,
			 const struct uet_frame_addr *dst, size_t payload_len)
{
	size_t hdr_len = uet_frame_hdr_len(dst->is_v6);
	size_t udp_len = UET_UDP_HDR_LEN + payload_len;
	size_t ip_len = udp_len + (dst->is_v6 ? 0 : UET_IPV4_HDR_LEN);
	uint8_t *p = out;

	if (src->is_v6 != dst->is_v6 || ip_len > 0xFFFF)
		return -EINVAL;
	if (outlen < hdr_len)
		return -ENOBUFS;
	memcpy(p, dst->mac, UET_ETH_ALEN);
	memcpy(p + UET_ETH_ALEN, src->mac, UET_ETH_ALEN);
	p = uet_put_be16(p + 2 * UET_ETH_ALEN,
			 dst->is_v6 ? ETH_P_IPV6 : ETH_P_IPV4);
	if (dst->is_v6)
		p = uet_frame_ipv6_put(p, src, dst, udp_len);
	else
		p = uet_frame_ipv4_put(p, src, dst, ip_len);
	p = uet_put_be16(p, src->port);
	p = uet_put_be16(p, dst->port);
	p = uet_put_be16(p, (uint16_t)udp_len);
	p = uet_put_be16(p, 0);			/* checksum 0 (ref 1.2) */
	return p - out;
}

/* IPv4 at |ip| with |avail| bytes; returns the header length or -EBADMSG. */
static int uet_frame_ipv4_get(struct uet_frame_info *info, const uint8_t *ip,
			      size_t avail, size_t frame_avail,
			      size_t *ip_payload)
{
	size_t ihl_len, tot_len;
	uint16_t u16;

	if (avail < UET_IPV4_HDR_LEN || ip[0] >> 4 != 4 || ip[9] != IP_PROTO_UDP)
		return -EBADMSG;
	ihl_len = (size_t)(ip[0] & 0x0F) * 4;
	uet_get_be16(&u16, ip + 2);
	tot_len = u16;
	uet_get_be16(&u16, ip + 6);
	if (ihl_len < UET_IPV4_HDR_LEN || tot_len < ihl_len ||
	    ihl_len + UET_UDP_HDR_LEN > avail || tot_len > frame_avail ||
	    (u16 & IPV4_MF_OFF))
		return -EBADMSG;
	info->ecn = ip[1] & 3;
	info->dscp = ip[1] >> 2;
	info->src.is_v6 = info->dst.is_v6 = false;
	memcpy(&info->src.v4, ip + 12, 4);
	memcpy(&info->dst.v4, ip + 16, 4);
	*ip_payload = tot_len - ihl_len;
	return (int)ihl_len;
}

static int uet_frame_ipv6_get(struct uet_frame_info *info, const uint8_t *ip,
			      size_t avail, size_t frame_avail,
			      size_t *ip_payload)
{
	uint16_t plen;

	if (avail < UET_IPV6_HDR_LEN + UET_UDP_HDR_LEN || ip[0] >> 4 != 6 ||
	    ip[6] != IP_PROTO_UDP)
		return -EBADMSG;
	uet_get_be16(&plen, ip + 4);
	if (plen > frame_avail - UET_IPV6_HDR_LEN)
		return -EBADMSG;
	info->ecn = (ip[1] >> 4) & 3;
	info->dscp = (uint8_t)((ip[0] & 0x0F) << 2 | ip[1] >> 6);
	info->src.is_v6 = info->dst.is_v6 = true;
	memcpy(&info->src.v6, ip + 8, 16);
	memcpy(&info->dst.v6, ip + 24, 16);
	*ip_payload = plen;
	return UET_IPV6_HDR_LEN;
}

int uet_frame_decode(struct uet_frame_info *info, const uint8_t *frame,
		     size_t len, size_t frame_len)
{
	size_t off = UET_ETH_HDR_LEN, ip_payload = 0;
	uint16_t proto, udp_len;
	int ip_len;

	memset(info, 0, sizeof(*info));
	if (len < UET_ETH_HDR_LEN || frame_len < len)
		return -EBADMSG;
	memcpy(info->dst.mac, frame, UET_ETH_ALEN);
	memcpy(info->src.mac, frame + UET_ETH_ALEN, UET_ETH_ALEN);
	uet_get_be16(&proto, frame + 12);
	if (proto == ETH_P_VLAN || proto == ETH_P_QINQ) {
		if (len < off + UET_VLAN_HDR_LEN)
			return -EBADMSG;
		uet_get_be16(&info->vlan_tci, frame + off);
		uet_get_be16(&proto, frame + off + 2);
		off += UET_VLAN_HDR_LEN;
	}
	if (proto == ETH_P_IPV4)
		ip_len = uet_frame_ipv4_get(info, frame + off, len - off,
					    frame_len - off, &ip_payload);
	else if (proto == ETH_P_IPV6)
		ip_len = uet_frame_ipv6_get(info, frame + off, len - off,
					    frame_len - off, &ip_payload);
	else
		return -EBADMSG;
	if (ip_len < 0)
		return ip_len;
	off += (size_t)ip_len;
	if (ip_payload < UET_UDP_HDR_LEN)
		return -EBADMSG;
	uet_get_be16(&info->src.port, frame + off);
	uet_get_be16(&info->dst.port, frame + off + 2);
	uet_get_be16(&udp_len, frame + off + 4);
	if (udp_len < UET_UDP_HDR_LEN || udp_len > ip_payload)
		return -EBADMSG;
	info->hdr_len = (uint16_t)(off + UET_UDP_HDR_LEN);
	info->payload_len = (uint16_t)(udp_len - UET_UDP_HDR_LEN);
	return 0;
}
