/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Map layouts and settings shared by the switch-port model
 * (bpf/uet_port.bpf.c) and its loader (test/progs/uet_port.c).
 */
#ifndef UET_PORT_SHARED_H
#define UET_PORT_SHARED_H

#include <linux/types.h>
#include <linux/bpf.h>		/* struct bpf_spin_lock */

/*
 * Load-time settings (the object's .rodata). A zero threshold turns its
 * feature off. Lengths are bytes of frames as the qdisc counts them
 * (Ethernet header included, no FCS).
 */
struct uet_port_cfg {
	__u64 rate_mbit;	/* drain rate: the tbf's rate, 10^6 bit/s */
	__u32 buf_len;		/* above this the port drops */
	__u32 mark_len;		/* above this ECT frames get CE; 0: off */
	__u32 trim_len;		/* above this trimmable ones are cut; 0: off */
	__u32 trim_keep_len;	/* UDP payload bytes a trimmed frame keeps */
	__u8 dscp_trimmable;
	__u8 dscp_trimmed;
	__u8 dscp_lasthop;	/* DSCP_TRIMMED_LASTHOP */
	__u8 lasthop;		/* the port faces the destination host */
	__u32 pad;
};
_Static_assert(sizeof(struct uet_port_cfg) == 32, "uet_port_cfg layout");

/*
 * Bytes above the buffer that trimmed frames may still occupy, as a
 * switch's separate queue for trimmed headers: without a bound, headers
 * alone arriving faster than the rate would grow the queue forever. It
 * holds a jumbo frame let in just under the buffer and some 200 headers
 * after it, so that trimmed headers are not dropped behind full frames.
 */
#define UET_PORT_TRIM_ROOM		32768

/*
 * Longest idle time the drain works out exactly (rate x this fits in 64
 * bits); uet_port watch drains its reading the same way.
 */
#define UET_PORT_MAX_IDLE_NS	(1000ULL * 1000000000ULL)

/* The virtual queue: one array entry, key 0, updated under its lock. */
struct uet_port_vq {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 vq_len;		/* bytes queued at last_ns */
	__u64 last_ns;		/* bpf_ktime_get_ns() of the last update */
	__u64 max_len;		/* the most vq_len has been */
};
_Static_assert(sizeof(struct uet_port_vq) == 32, "uet_port_vq layout");

/* Per-CPU counters, indexed by these ids. */
#define UET_PORT_CNT_PASSED		0	/* frames sent on, any kind (a
						 * GSO batch counts once) */
#define UET_PORT_CNT_BYTES		1	/* their bytes, once trimmed */
#define UET_PORT_CNT_MARKED		2	/* ECT frames that got CE */
#define UET_PORT_CNT_TRIMMED		3	/* trimmable frames trimmed */
#define UET_PORT_CNT_DROPPED		4	/* frames dropped: no buffer */
#define UET_PORT_CNT_MAX		5

/* Names the kernel reports (16 bytes with the NUL), for finding them. */
#define UET_PORT_PROG_NAME		"uet_port_egress"
#define UET_PORT_VQ_MAP_NAME		"uet_port_vq"
#define UET_PORT_CNT_MAP_NAME		"uet_port_cnt"

#endif /* UET_PORT_SHARED_H */
