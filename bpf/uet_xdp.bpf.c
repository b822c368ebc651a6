// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * XDP fast path: steer UET frames (UDP to the UET port with a sane PDS
 * prologue) to the AF_XDP socket of their rx queue; pass everything else to
 * the kernel untouched. Optional capture tap and fault injector for tools.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <xdp/xdp_helpers.h>

#include "uet_wire.h"
#include "uet_xdp_shared.h"

#define VLAN_HDR_LEN	4
#define IP_MF		0x2000
#define IP_OFFSET	0x1FFF

/* Load-time setting, through the skeleton's rodata. */
const volatile __u16 uet_udp_port = UET_UDP_PORT;

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, UET_XDP_MAX_EPS);
	__type(key, __u32);
	__type(value, __u32);
} uet_xdp_xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UET_XDP_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} uet_xdp_counters SEC(".maps");

/* Mmapable so that engines read the capture switch with a plain load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct uet_xdp_cfg);
} uet_xdp_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, UET_XDP_CAPTURE_RING_BYTES);
} uet_xdp_capture SEC(".maps");

/* libxdp dispatcher: run early; on XDP_PASS go on to the next program. */
struct {
	__uint(priority, 10);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(uet_xdp_prog);

static __always_inline void uet_xdp_count(__u32 id)
{
	__u64 *v = bpf_map_lookup_elem(&uet_xdp_counters, &id);

	if (v)
		*v += 1;
}

/* Ethernet and one optional VLAN tag; returns the L3 protocol or 0. */
static __always_inline __u16 uet_xdp_parse_eth(void **pos, void *end)
{
	struct ethhdr *eth = *pos;
	__u16 proto;

	if ((void *)(eth + 1) > end)
		return 0;
	proto = eth->h_proto;
	*pos = eth + 1;
	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
		__u8 *vlan = *pos;

		if ((void *)(vlan + VLAN_HDR_LEN) > end)
			return 0;
		proto = *(__u16 *)(vlan + 2);
		*pos = vlan + VLAN_HDR_LEN;
	}
	return proto;
}

/* IPv4 (any IHL, unfragmented) or IPv6 carrying UDP; returns the UDP hdr. */
static __always_inline struct udphdr *uet_xdp_parse_ip(void *pos, void *end,
						       __u16 proto)
{
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = pos;
		__u32 ihl_len;

		if ((void *)(ip + 1) > end || ip->version != 4 ||
		    ip->protocol != IPPROTO_UDP ||
		    (ip->frag_off & bpf_htons(IP_MF | IP_OFFSET)))
			return NULL;
		ihl_len = ip->ihl * 4;
		if (ihl_len < sizeof(*ip))
			return NULL;
		pos += ihl_len;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = pos;

		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_UDP)
			return NULL;
		pos = ip6 + 1;
	} else {
		return NULL;
	}
	if (pos + sizeof(struct udphdr) > end)
		return NULL;
	return pos;
}

/* Length of the PDS header of |type| (as pdc_hdr_len()), 0 if none. */
static __always_inline __u32 uet_xdp_pds_len(__u8 type)
{
	switch (type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:	return UET_PDS_RUD_REQ_LEN;
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:	return UET_PDS_CC_REQ_LEN;
	case UET_PDS_TYPE_RUDI_REQ:
	case UET_PDS_TYPE_RUDI_RESP:	return UET_PDS_RUDI_LEN;
	case UET_PDS_TYPE_UUD_REQ:	return UET_PDS_UUD_LEN;
	case UET_PDS_TYPE_ACK:		return UET_PDS_ACK_LEN;
	case UET_PDS_TYPE_ACK_CC:	return UET_PDS_ACK_CC_LEN;
	case UET_PDS_TYPE_ACK_CCX:	return UET_PDS_ACK_CCX_LEN;
	case UET_PDS_TYPE_NACK:		return UET_PDS_NACK_LEN;
	case UET_PDS_TYPE_NACK_CCX:	return UET_PDS_NACK_CCX_LEN;
	case UET_PDS_TYPE_CONTROL:	return UET_PDS_CTL_LEN;
	default:			return 0;
	}
}

/* The PDS header after UDP: a known type, all of its bytes present. */
static __always_inline int uet_xdp_pds_is_sane(__u8 *pds, void *end)
{
	__u32 len;

	if ((void *)(pds + UET_PDS_PROLOGUE_LEN) > end)
		return 0;
	len = uet_xdp_pds_len(pds[0] >> (UET_PDS_TYPE_SHIFT - 8));
	return len && (void *)(pds + len) <= end;
}

static __always_inline void uet_xdp_capture_frame(struct xdp_md *ctx)
{
	struct uet_xdp_capture_hdr *rec;
	__u32 len = bpf_xdp_get_buff_len(ctx);
	__u32 cap = len;

	/*
	 * Clamp to [1, SNAPLEN] in a form the verifier can follow through
	 * clang's register allocation (a frame is never empty).
	 */
	if (cap > UET_XDP_CAPTURE_SNAPLEN)
		cap = UET_XDP_CAPTURE_SNAPLEN;
	barrier_var(cap);
	cap = ((cap - 1) & (UET_XDP_CAPTURE_SNAPLEN - 1)) + 1;

	rec = bpf_ringbuf_reserve(&uet_xdp_capture, sizeof(*rec) +
				  UET_XDP_CAPTURE_SNAPLEN, 0);
	if (!rec) {
		uet_xdp_count(UET_XDP_CNT_CAPTURE_LOST);
		return;
	}
	rec->ts_ns = bpf_ktime_get_ns();
	rec->frame_len = len;
	rec->ifindex = ctx->ingress_ifindex;
	rec->rx_queue = ctx->rx_queue_index;
	if (bpf_xdp_load_bytes(ctx, 0, rec + 1, cap) < 0)
		cap = 0;
	rec->cap_len = cap;
	bpf_ringbuf_submit(rec, 0);
	uet_xdp_count(UET_XDP_CNT_CAPTURED);
}

SEC("xdp.frags")
int uet_xdp_prog(struct xdp_md *ctx)
{
	void *end = (void *)(long)ctx->data_end;
	void *pos = (void *)(long)ctx->data;
	struct uet_xdp_cfg *cfg;
	struct udphdr *udp;
	__u32 key = 0, qid = ctx->rx_queue_index;
	__u16 proto;

	uet_xdp_count(UET_XDP_CNT_SEEN);
	proto = uet_xdp_parse_eth(&pos, end);
	udp = proto ? uet_xdp_parse_ip(pos, end, proto) : NULL;
	if (!udp || udp->dest != bpf_htons(uet_udp_port)) {
		uet_xdp_count(UET_XDP_CNT_PASSED);
		return XDP_PASS;
	}
	if (!uet_xdp_pds_is_sane((__u8 *)(udp + 1), end)) {
		uet_xdp_count(UET_XDP_CNT_MALFORMED);
		return XDP_PASS;
	}
	cfg = bpf_map_lookup_elem(&uet_xdp_config, &key);
	if (cfg && cfg->drop_ppm &&
	    bpf_get_prandom_u32() % 1000000 < cfg->drop_ppm) {
		uet_xdp_count(UET_XDP_CNT_FAULT_DROPPED);
		return XDP_DROP;
	}
	if (!bpf_map_lookup_elem(&uet_xdp_xsks, &qid)) {
		uet_xdp_count(UET_XDP_CNT_NO_SOCKET);
		return XDP_PASS;
	}
	if (cfg && cfg->capture)
		uet_xdp_capture_frame(ctx);
	uet_xdp_count(UET_XDP_CNT_REDIRECTED);
	return bpf_redirect_map(&uet_xdp_xsks, qid, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
