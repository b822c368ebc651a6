// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * A switch port for congestion-control tests, on a router's port (tc clsact
 * egress, direct action): a virtual queue in bytes, drained at the port's
 * rate, decides for each frame to pass, ECN-mark, trim or drop it. The tbf
 * behind it is the real queue (test/fabric/fabric_lib.sh, fab_port_model).
 */
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "uet_port.h"
#include "uet_port_shared.h"

#define IP_MF			0x2000
#define IP_OFFSET		0x1FFF
/* RFC 3168's ECN field, the TOS byte's two low bits */
#define UET_PORT_ECN_MASK	3
#define UET_PORT_ECN_ECT_1	1
#define UET_PORT_ECN_ECT_0	2
#define UET_PORT_IP_TOT_OFF	(ETH_HLEN + offsetof(struct iphdr, tot_len))
#define UET_PORT_IP_CSUM_OFF	(ETH_HLEN + offsetof(struct iphdr, check))
#define UET_PORT_UDP_LEN_OFF	offsetof(struct udphdr, len)

/* Load-time settings, through the skeleton's rodata (uet_port_shared.h). */
const volatile struct uet_port_cfg uet_port_cfg = {
	.trim_keep_len = UET_PORT_TRIM_KEEP,
	.dscp_trimmable = UET_PORT_DSCP_TRIMMABLE,
	.dscp_trimmed = UET_PORT_DSCP_TRIMMED,
	.dscp_lasthop = UET_PORT_DSCP_TRIMMED_LASTHOP,
};

/* One queue shared by both CPUs' transmits, hence the lock in its value. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uet_port_vq);
} uet_port_vq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UET_PORT_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} uet_port_cnt SEC(".maps");

enum uet_port_act {
	UET_PORT_PASS,
	UET_PORT_MARK,
	UET_PORT_TRIM,
	UET_PORT_DROP,
};

/* What the decision needs of a frame, read before the lock is taken. */
struct uet_port_frame {
	__u32 len;		/* as the qdisc counts it */
	__u32 trim_len;		/* its length once trimmed; 0: not trimmable */
	__u32 udp_off;		/* offset of its UDP header, when trimmable */
	__u8 tos;
	__u8 is_ip;		/* IPv4: may be dropped; others always pass */
	__u8 is_ect;		/* ECT(0) or ECT(1): may be marked */
};

static __always_inline void uet_port_count(__u32 id, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&uet_port_cnt, &id);

	if (v)
		*v += n;
}

static __always_inline void uet_port_parse(struct __sk_buff *skb,
					   struct uet_port_frame *f)
{
	struct iphdr ip;
	__be16 proto;

	/*
	 * qdisc_pkt_len(): what tbf charges, GSO segments' headers too. A
	 * GSO batch (a host's TSO) is judged as one frame: passed, marked or
	 * dropped whole (fab_host_gso_off avoids them).
	 */
	f->len = skb->wire_len ? skb->wire_len : skb->len;
	if (bpf_skb_load_bytes(skb, offsetof(struct ethhdr, h_proto), &proto,
			       sizeof(proto)) < 0 ||
	    proto != bpf_htons(ETH_P_IP) ||
	    bpf_skb_load_bytes(skb, ETH_HLEN, &ip, sizeof(ip)) < 0 ||
	    ip.version != 4 || ip.ihl < 5)
		return;
	f->is_ip = 1;
	f->tos = ip.tos;
	f->is_ect = (ip.tos & UET_PORT_ECN_MASK) == UET_PORT_ECN_ECT_0 ||
		    (ip.tos & UET_PORT_ECN_MASK) == UET_PORT_ECN_ECT_1;
	/* a fragment or a GSO batch has no one UDP header to cut after */
	if (!uet_port_cfg.trim_len ||
	    ip.tos >> 2 != uet_port_cfg.dscp_trimmable ||
	    ip.protocol != IPPROTO_UDP ||
	    (ip.frag_off & bpf_htons(IP_MF | IP_OFFSET)) || skb->gso_size)
		return;
	f->udp_off = ETH_HLEN + ip.ihl * 4;
	if (skb->len < f->udp_off + sizeof(struct udphdr))
		return;
	f->trim_len = f->udp_off + sizeof(struct udphdr) +
		      uet_port_cfg.trim_keep_len;
	/* a short one is trimmed all the same: only its DSCP changes */
	if (f->trim_len > skb->len)
		f->trim_len = skb->len;
}

/*
 * Drains the queue at the rate since its last update. The clock only
 * advances by the time the bytes taken off took, so that rounding down
 * never slows the drain; a CPU that read the clock before another's
 * update drains nothing.
 */
static __always_inline void uet_port_drain(struct uet_port_vq *vq, __u64 now)
{
	__u64 rate = uet_port_cfg.rate_mbit, idle, out;

	if (now <= vq->last_ns)
		return;
	idle = now - vq->last_ns;
	if (idle > UET_PORT_MAX_IDLE_NS)
		idle = UET_PORT_MAX_IDLE_NS;
	/* 1 Mbit/s is 1/8000 byte a nanosecond */
	out = idle * rate / 8000;
	if (out >= vq->vq_len) {
		vq->vq_len = 0;
		vq->last_ns = now;
	} else {
		vq->vq_len -= out;
		vq->last_ns += out * 8000 / rate;
	}
}

/* |q|: the queue before this frame joins it. */
static __always_inline enum uet_port_act
uet_port_decide(__u64 q, const struct uet_port_frame *f)
{
	__u64 buf = uet_port_cfg.buf_len;

	/* a switch that would drop a trimmable packet trims it instead */
	if (f->trim_len && (q > uet_port_cfg.trim_len || q > buf))
		return q > buf + UET_PORT_TRIM_ROOM ? UET_PORT_DROP :
						      UET_PORT_TRIM;
	if (q > buf)
		return f->is_ip ? UET_PORT_DROP : UET_PORT_PASS;
	if (uet_port_cfg.mark_len && q > uet_port_cfg.mark_len && f->is_ect)
		return UET_PORT_MARK;
	return UET_PORT_PASS;
}

/*
 * Cuts the frame after trim_keep_len bytes of UDP payload and rewrites its
 * DSCP, ECN bits kept. UDP checksum 0 is "none" for IPv4, cheaper than
 * summing what is left. A frame a host's stack left to checksum offload
 * (CHECKSUM_PARTIAL) still is here; veth hands it on unverified, but a
 * device that summed it in software would now get the sum wrong.
 */
static __always_inline int uet_port_trim(struct __sk_buff *skb,
					 const struct uet_port_frame *f)
{
	__u8 dscp = uet_port_cfg.lasthop ? uet_port_cfg.dscp_lasthop :
					   uet_port_cfg.dscp_trimmed;
	__u8 word[2], old_word[2];
	__be16 old_tot, tot, udp[2];

	if (f->trim_len < skb->len) {
		if (bpf_skb_change_tail(skb, f->trim_len, 0) ||
		    bpf_skb_load_bytes(skb, UET_PORT_IP_TOT_OFF, &old_tot, 2))
			return -1;
		tot = bpf_htons(f->trim_len - ETH_HLEN);
		udp[0] = bpf_htons(f->trim_len - f->udp_off);
		udp[1] = 0;
		if (bpf_l3_csum_replace(skb, UET_PORT_IP_CSUM_OFF, old_tot,
					tot, 2) ||
		    bpf_skb_store_bytes(skb, UET_PORT_IP_TOT_OFF, &tot, 2, 0) ||
		    bpf_skb_store_bytes(skb, f->udp_off + UET_PORT_UDP_LEN_OFF,
					udp, 4, 0))
			return -1;
	}
	/* the TOS byte shares a checksummed 16-bit word with version/IHL */
	if (bpf_skb_load_bytes(skb, ETH_HLEN, old_word, 2))
		return -1;
	word[0] = old_word[0];
	word[1] = dscp << 2 | (f->tos & UET_PORT_ECN_MASK);
	if (bpf_l3_csum_replace(skb, UET_PORT_IP_CSUM_OFF,
				*(__u16 *)old_word, *(__u16 *)word, 2) ||
	    bpf_skb_store_bytes(skb, ETH_HLEN, word, 2, 0))
		return -1;
	return 0;
}

SEC("tc")
int uet_port_egress(struct __sk_buff *skb)
{
	struct uet_port_frame f = {};
	enum uet_port_act act;
	struct uet_port_vq *vq;
	__u32 key = 0;
	__u64 now;

	uet_port_parse(skb, &f);
	now = bpf_ktime_get_ns();
	vq = bpf_map_lookup_elem(&uet_port_vq, &key);
	if (!vq)
		return TC_ACT_OK;
	bpf_spin_lock(&vq->lock);
	uet_port_drain(vq, now);
	act = uet_port_decide(vq->vq_len, &f);
	if (act != UET_PORT_DROP)
		vq->vq_len += act == UET_PORT_TRIM ? f.trim_len : f.len;
	if (vq->vq_len > vq->max_len)
		vq->max_len = vq->vq_len;
	bpf_spin_unlock(&vq->lock);

	if (act == UET_PORT_TRIM && uet_port_trim(skb, &f) < 0)
		act = UET_PORT_DROP;
	if (act == UET_PORT_DROP) {
		uet_port_count(UET_PORT_CNT_DROPPED, 1);
		return TC_ACT_SHOT;
	}
	if (act == UET_PORT_TRIM)
		uet_port_count(UET_PORT_CNT_TRIMMED, 1);
	if (act == UET_PORT_MARK && bpf_skb_ecn_set_ce(skb))
		uet_port_count(UET_PORT_CNT_MARKED, 1);
	uet_port_count(UET_PORT_CNT_PASSED, 1);
	uet_port_count(UET_PORT_CNT_BYTES,
		       act == UET_PORT_TRIM ? f.trim_len : f.len);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
