// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * XDP fast path: steer each UET frame (UDP to the UET port with a sane PDS
 * header) to the AF_XDP socket of its endpoint (include/uet_fep.h), or to
 * the device service's; pass everything else to the kernel untouched.
 * Optional capture tap and fault injector for tools.
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

/* Load-time settings, through the skeleton's rodata. */
const volatile __u16 uet_udp_port = UET_UDP_PORT;
/* 16 - the interface's endpoint index bits (include/uet_fep.h). */
const volatile __u32 uet_ep_shift = 16 - UET_FEP_EP_BITS;

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, UET_XDP_XSK_ENTRIES);
	__type(key, __u32);
	__type(value, __u32);
} uet_xdp_xsks SEC(".maps");

/* Written by the device service: which endpoint holds each PIDonFEP. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UET_XDP_MAX_PIDS);
	__type(key, __u32);
	__type(value, struct uet_xdp_pid_ent);
} uet_xdp_pids SEC(".maps");

/* Written by the device service: the queue of each endpoint's socket. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, UET_XDP_MAX_EPS);
	__type(key, __u32);
	__type(value, __u32);
} uet_xdp_ep_queue SEC(".maps");

/* Written by the device service: secured frames' endpoint by SDI. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UET_XDP_MAX_SDS);
	__type(key, __u32);
	__type(value, __u32);
} uet_xdp_sdi SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UET_XDP_EP_RX_ENTRIES);
	__type(key, __u32);
	__type(value, __u64);
} uet_xdp_ep_rx SEC(".maps");

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

static __always_inline void uet_xdp_count_in(void *map, __u32 id)
{
	__u64 *v = bpf_map_lookup_elem(map, &id);

	if (v)
		*v += 1;
}

#define uet_xdp_count(id)	uet_xdp_count_in(&uet_xdp_counters, (id))

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

/* Big-endian 16 bits at |p|; the caller has checked the bounds. */
static __always_inline __u32 uet_xdp_be16(const __u8 *p)
{
	return (__u32)p[0] << 8 | p[1];
}

/* The endpoint index of a PDCID or message_id (16 bits). */
static __always_inline __u32 uet_xdp_id_ep(__u32 id)
{
	return id >> uet_ep_shift;
}

/*
 * A RUDI response's endpoint, or a NACK's with NT set: the index bits of
 * the pkt_id our request carried (include/uet_fep.h), the same width.
 */
static __always_inline __u32 uet_xdp_ep_of_pkt_id(__u8 *pds, void *end)
{
	__u8 *p = pds + UET_FEP_PDS_PKT_ID_OFF;

	if ((void *)(p + 4) > end)
		return UET_FEP_EP_SERVICE;
	return ((__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 |
		p[3]) >> (16 + uet_ep_shift);
}

/* An established PDC's endpoint: the index bits of the DPDCID. */
static __always_inline __u32 uet_xdp_ep_of_dpdcid(__u8 *pds, void *end)
{
	if ((void *)(pds + UET_FEP_PDS_DPDCID_OFF + 2) > end)
		return UET_FEP_EP_SERVICE;
	return uet_xdp_id_ep(uet_xdp_be16(pds + UET_FEP_PDS_DPDCID_OFF));
}

/*
 * A request's endpoint from its SES standard header: the holder of the
 * PIDonFEP, if it holds it for the packet's JobID or the request uses
 * absolute addressing (rel = 0). A header cut short goes to the service,
 * which drops and counts it.
 */
static __always_inline __u32 uet_xdp_ep_of_std(__u8 *ses, void *end)
{
	struct uet_xdp_pid_ent *ent;
	__u32 pid, job_id;

	if ((void *)(ses + UET_SES_STD_HDR_LEN) > end)
		return UET_FEP_EP_SERVICE;
	pid = uet_xdp_be16(ses + UET_FEP_SES_PID_OFF) & UET_SES_PID_ON_FEP_MAX;
	ent = bpf_map_lookup_elem(&uet_xdp_pids, &pid);
	if (!ent || ent->ep == UET_FEP_EP_SERVICE)
		return UET_FEP_EP_SERVICE;
	job_id = (__u32)ses[UET_FEP_SES_JOB_ID_OFF] << 16 |
		 uet_xdp_be16(ses + UET_FEP_SES_JOB_ID_OFF + 1);
	if ((ses[UET_FEP_SES_FLAGS_OFF] & UET_SES_F_REL) &&
	    ent->job_id != job_id)
		return UET_FEP_EP_SERVICE;
	return ent->ep;
}

/*
 * A RUD/ROD request (PDS header of |pds_len| bytes) by the SES header it
 * carries. Responses on an established PDC go by DPDCID. While SYN is set
 * the target has no DPDCID yet: a response then goes by the initiator's
 * message id it echoes. In RESPONSE that is message_id; in RESPONSE_DATA it
 * is read_request_message_id (ref 3.5; the spec lets the target put a
 * response message id of its own in the message_id slot, and our SES
 * matches data to its request by read_request_message_id, ses_cpl.c).
 * RESPONSE_DATA_SMALL echoes none: the service.
 */
static __always_inline __u32 uet_xdp_ep_of_req(__u8 *pds, void *end,
					       __u32 pds_len, __u32 next_hdr,
					       __u32 flags)
{
	__u8 *ses = pds + pds_len;
	__u32 syn = flags & UET_PDS_F_REQ_SYN;

	switch (next_hdr) {
	case UET_PDS_NEXT_HDR_REQUEST_STD:
		return uet_xdp_ep_of_std(ses, end);
	case UET_PDS_NEXT_HDR_RESPONSE:
		if ((void *)(ses + UET_SES_RSP_LEN) > end)
			return UET_FEP_EP_SERVICE;
		if (!syn)
			return uet_xdp_ep_of_dpdcid(pds, end);
		return uet_xdp_id_ep(uet_xdp_be16(ses +
						  UET_FEP_RSP_MSG_ID_OFF));
	case UET_PDS_NEXT_HDR_RESPONSE_DATA:
		if ((void *)(ses + UET_SES_RSP_DATA_LEN) > end)
			return UET_FEP_EP_SERVICE;
		if (!syn)
			return uet_xdp_ep_of_dpdcid(pds, end);
		return uet_xdp_id_ep(uet_xdp_be16(ses +
						  UET_FEP_RSP_DATA_MSG_ID_OFF));
	case UET_PDS_NEXT_HDR_RESPONSE_DATA_SMALL:
		if ((void *)(ses + UET_SES_RSP_DATA_SMALL_LEN) > end || syn)
			return UET_FEP_EP_SERVICE;
		return uet_xdp_ep_of_dpdcid(pds, end);
	default:	/* none, small and medium request headers */
		return UET_FEP_EP_SERVICE;
	}
}

/*
 * The endpoint index a sane UET frame is for (include/uet_fep.h);
 * UET_FEP_EP_SERVICE for anything no endpoint can be named for: RUDI or
 * UUD without a standard request, CONTROL with SYN.
 */
static __always_inline __u32 uet_xdp_steer(__u8 *pds, void *end)
{
	__u32 pro, type, next_hdr, flags;

	if ((void *)(pds + UET_PDS_PROLOGUE_LEN) > end)
		return UET_FEP_EP_SERVICE;
	pro = uet_xdp_be16(pds);
	type = pro >> UET_PDS_TYPE_SHIFT & UET_PDS_TYPE_MASK;
	next_hdr = pro >> UET_PDS_NEXT_HDR_SHIFT & UET_PDS_NEXT_HDR_MASK;
	flags = pro & UET_PDS_FLAGS_MASK;
	switch (type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
		return uet_xdp_ep_of_req(pds, end, UET_PDS_RUD_REQ_LEN,
					 next_hdr, flags);
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		return uet_xdp_ep_of_req(pds, end, UET_PDS_CC_REQ_LEN,
					 next_hdr, flags);
	case UET_PDS_TYPE_UUD_REQ:
		if (next_hdr != UET_PDS_NEXT_HDR_REQUEST_STD)
			return UET_FEP_EP_SERVICE;
		return uet_xdp_ep_of_std(pds + UET_PDS_UUD_LEN, end);
	case UET_PDS_TYPE_RUDI_REQ:
		if (next_hdr != UET_PDS_NEXT_HDR_REQUEST_STD)
			return UET_FEP_EP_SERVICE;
		return uet_xdp_ep_of_std(pds + UET_PDS_RUDI_LEN, end);
	case UET_PDS_TYPE_RUDI_RESP:
		return uet_xdp_ep_of_pkt_id(pds, end);
	case UET_PDS_TYPE_NACK:
	case UET_PDS_TYPE_NACK_CCX:
		if (flags & UET_PDS_F_NACK_NT)
			return uet_xdp_ep_of_pkt_id(pds, end);
		return uet_xdp_ep_of_dpdcid(pds, end);
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
		return uet_xdp_ep_of_dpdcid(pds, end);
	case UET_PDS_TYPE_CONTROL:
		if (flags & UET_PDS_F_CTL_SYN)
			return UET_FEP_EP_SERVICE;
		return uet_xdp_ep_of_dpdcid(pds, end);
	default:
		return UET_FEP_EP_SERVICE;
	}
}

/* Whether the UDP payload at |p| starts with a TSS header. */
static __always_inline int uet_xdp_is_tss(__u8 *p, void *end)
{
	return (void *)(p + 1) <= end && (p[0] >> 3) == UET_XDP_TSS_TYPE;
}

#include "uet_xdp_tss.h"

/*
 * A secured frame's uet_xdp_sdi value (uet_xdp_shared.h), the service's
 * index when there is none: -1 when it is too short to hold its TSS
 * header and ICV.
 */
static __always_inline int uet_xdp_steer_tss(__u8 *p, void *end, __u32 *ep)
{
	__u32 sdi, *v;

	if ((void *)(p + UET_XDP_TSS_HDR_LEN + UET_XDP_TSS_ICV_LEN) > end)
		return -1;
	if ((p[0] & UET_XDP_TSS_SP) &&
	    (void *)(p + UET_XDP_TSS_HDR_SSI_LEN + UET_XDP_TSS_ICV_LEN) > end)
		return -1;
	sdi = (__u32)p[1] << 16 | uet_xdp_be16(p + 2);
	v = bpf_map_lookup_elem(&uet_xdp_sdi, &sdi);
	*ep = v ? *v : UET_FEP_EP_SERVICE;
	return 0;
}

/*
 * The endpoint of a secured frame at |udp| whose SDI map value is |v|:
 * the one named there, or the one its headers name when XDP may read
 * them (uet_xdp_tss.h).
 */
static __always_inline __u32 uet_xdp_tss_ep(struct xdp_md *ctx,
					     struct udphdr *udp, void *end,
					     __u32 v, void *l3, __u16 proto)
{
	__u8 *p = (__u8 *)(udp + 1);
	__u32 hl, len, off;

	if (!(v & (UET_XDP_SDI_READ_SD | UET_XDP_SDI_READ_STREAM)) ||
	    (v & UET_XDP_SDI_EP_MASK) != UET_FEP_EP_SERVICE)
		return v & UET_XDP_SDI_EP_MASK;
	hl = (p[0] & UET_XDP_TSS_SP) ? UET_XDP_TSS_HDR_SSI_LEN :
				       UET_XDP_TSS_HDR_LEN;
	len = bpf_ntohs(udp->len);
	if (len < sizeof(*udp) + hl + UET_XDP_TSS_ICV_LEN)
		return UET_FEP_EP_SERVICE;
	off = (__u32)((void *)p - (void *)(long)ctx->data);
	return uet_xdp_tss_read(ctx, p, end, v, l3,
				proto == bpf_htons(ETH_P_IPV6), off,
				len - sizeof(*udp) - hl - UET_XDP_TSS_ICV_LEN);
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
	void *l3;
	struct udphdr *udp;
	__u32 key = 0, ep = UET_FEP_EP_SERVICE, qoff;
	__u16 proto;
	int tss;

	uet_xdp_count(UET_XDP_CNT_SEEN);
	proto = uet_xdp_parse_eth(&pos, end);
	l3 = pos;
	udp = proto ? uet_xdp_parse_ip(pos, end, proto) : NULL;
	if (!udp || udp->dest != bpf_htons(uet_udp_port)) {
		uet_xdp_count(UET_XDP_CNT_PASSED);
		return XDP_PASS;
	}
	tss = uet_xdp_is_tss((__u8 *)(udp + 1), end);
	if (tss ? uet_xdp_steer_tss((__u8 *)(udp + 1), end, &ep) < 0 :
		  !uet_xdp_pds_is_sane((__u8 *)(udp + 1), end)) {
		uet_xdp_count(UET_XDP_CNT_MALFORMED);
		return XDP_PASS;
	}
	cfg = bpf_map_lookup_elem(&uet_xdp_config, &key);
	if (cfg && cfg->drop_ppm &&
	    bpf_get_prandom_u32() % 1000000 < cfg->drop_ppm) {
		uet_xdp_count(UET_XDP_CNT_FAULT_DROPPED);
		return XDP_DROP;
	}
	/* The kernel redirects only to sockets bound to the arrival queue. */
	qoff = ctx->rx_queue_index - (cfg ? cfg->queue_id : 0);
	if (!cfg || qoff >= (cfg->queues ? cfg->queues : 1u)) {
		uet_xdp_count(UET_XDP_CNT_NO_SOCKET);
		return XDP_PASS;
	}
	if (!tss)
		ep = uet_xdp_steer((__u8 *)(udp + 1), end);
	else
		ep = uet_xdp_tss_ep(ctx, udp, end, ep, l3, proto);
	if (ep != UET_FEP_EP_SERVICE &&
	    !bpf_map_lookup_elem(&uet_xdp_xsks, &ep))
		ep = UET_FEP_EP_SERVICE;
	/* One queue: every endpoint is on it, no lookup per frame. */
	if (ep != UET_FEP_EP_SERVICE && cfg->queues > 1) {
		__u32 *q = bpf_map_lookup_elem(&uet_xdp_ep_queue, &ep);

		if (!q || *q != qoff) {
			uet_xdp_count(UET_XDP_CNT_WRONG_QUEUE);
			ep = UET_FEP_EP_SERVICE;
		}
	}
	key = ep == UET_FEP_EP_SERVICE ? UET_XDP_SVC_KEY(qoff) : ep;
	if (ep == UET_FEP_EP_SERVICE &&
	    !bpf_map_lookup_elem(&uet_xdp_xsks, &key)) {
		uet_xdp_count(UET_XDP_CNT_NO_SOCKET);
		return XDP_PASS;
	}
	if (cfg->capture)
		uet_xdp_capture_frame(ctx);
	if (tss)
		uet_xdp_count(ep == UET_FEP_EP_SERVICE ?
			      UET_XDP_CNT_TSS_TO_SERVICE :
			      UET_XDP_CNT_TSS_STEERED);
	if (ep == UET_FEP_EP_SERVICE) {
		uet_xdp_count(UET_XDP_CNT_TO_SERVICE);
	} else {
		uet_xdp_count(UET_XDP_CNT_REDIRECTED);
		uet_xdp_count_in(&uet_xdp_ep_rx, ep);
	}
	return bpf_redirect_map(&uet_xdp_xsks, key, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
