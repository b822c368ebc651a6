/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Map layouts shared by the XDP program (bpf/uet_xdp.bpf.c) and user space
 * (uetctl, the AF_XDP engine). Plain fixed-width types only, sizes pinned.
 */
#ifndef UET_XDP_SHARED_H
#define UET_XDP_SHARED_H

#include <linux/types.h>

#include "uet_fep.h"

/*
 * XSKMAP entries: one per endpoint index any interface may have
 * (uet_fep.h: UET_FEP_MAX_EPS, whatever its width); entry 0 is the
 * device service's own socket on its first rx queue, the one that owns the
 * fill and completion rings of the shared UMEM there. A service of several
 * queues (uetd --queues) has a socket of its own on each further queue,
 * at UET_XDP_SVC_KEY(queue offset). Each endpoint is bound to one queue,
 * uet_xdp_ep_queue names which.
 */
#define UET_XDP_MAX_EPS			UET_FEP_MAX_EPS
#define UET_XDP_MAX_QUEUES		16
#define UET_XDP_XSK_ENTRIES		(UET_XDP_MAX_EPS + UET_XDP_MAX_QUEUES)
/* The service's socket on the queue |qoff| after its first one. */
#define UET_XDP_SVC_KEY(qoff)		((qoff) ? UET_XDP_MAX_EPS + (qoff) : \
					 UET_FEP_EP_SERVICE)

/* The PIDonFEP table: one entry per PIDonFEP (12 bits). */
#define UET_XDP_MAX_PIDS		4096

/* uet_xdp_pids value: which endpoint holds a PIDonFEP, for which JobID. */
struct uet_xdp_pid_ent {
	__u32 job_id;		/* 24 bits */
	__u16 ep;		/* endpoint index; 0: none holds it */
	__u16 pad;
};
_Static_assert(sizeof(struct uet_xdp_pid_ent) == 8, "uet_xdp_pid_ent layout");

/* Per-CPU counters, indexed by these ids. */
#define UET_XDP_CNT_SEEN		0	/* every frame the program saw */
#define UET_XDP_CNT_REDIRECTED		1	/* UET frames sent to an XSK */
#define UET_XDP_CNT_PASSED		2	/* not UET: passed to the kernel */
#define UET_XDP_CNT_MALFORMED		3	/* UET port, bad PDS header */
#define UET_XDP_CNT_NO_SOCKET		4	/* UET, no XSK on the rx queue */
#define UET_XDP_CNT_FAULT_DROPPED	5	/* dropped by the fault injector */
#define UET_XDP_CNT_CAPTURED		6	/* copies sent to the capture tap */
#define UET_XDP_CNT_CAPTURE_LOST	7	/* capture ring full */
#define UET_XDP_CNT_TO_SERVICE		8	/* UET, no endpoint for it: to
						 * the service's socket */
#define UET_XDP_CNT_WRONG_QUEUE		9	/* for an endpoint bound to
						 * another queue: to the
						 * service's socket of this
						 * one, which hands it on */
#define UET_XDP_CNT_TSS_STEERED		10	/* secured (TSS) frames sent to
						 * the one endpoint of their
						 * SD (also REDIRECTED) */
#define UET_XDP_CNT_TSS_TO_SERVICE	11	/* secured frames sent to the
						 * service: SD with several
						 * endpoints, or none (also
						 * TO_SERVICE) */
#define UET_XDP_CNT_MAX			12

/*
 * Run-time settings (one array entry, key 0). Both debug features are off
 * when zero; the program then reads this entry once per UET frame.
 */
struct uet_xdp_cfg {
	__u32 drop_ppm;		/* fault injector: drop per million UET frames */
	__u32 capture;		/* tap on when non-zero: the capturing pid */
	__u16 udp_port;		/* for status only: the program uses rodata */
	__u8 mode;		/* for status only: enum uet_xdp_mode */
	__u8 queues;		/* rx queues served from queue_id; 0 is 1 */
	__u32 queue_id;		/* the first rx queue the sockets are bound to */
};
_Static_assert(sizeof(struct uet_xdp_cfg) == 16, "uet_xdp_cfg layout");

/* Capture tap: ring buffer records of a header and up to SNAPLEN bytes. */
#define UET_XDP_CAPTURE_SNAPLEN		512
#define UET_XDP_CAPTURE_RING_BYTES	(4u << 20)

struct uet_xdp_capture_hdr {
	__u64 ts_ns;		/* bpf_ktime_get_ns() (CLOCK_MONOTONIC) */
	__u32 frame_len;	/* length of the frame on the wire */
	__u32 cap_len;		/* bytes of it that follow this header */
	__u32 ifindex;
	__u32 rx_queue;		/* UET_XDP_CAPTURE_TX: sent by an engine */
};

/*
 * The XDP tap sees only what arrives. Engines mirror what they send, while
 * a capture runs, as datagrams of the same records to the abstract unix
 * socket "uet-capture/ns<netns inode>/<ifname>" that uetctl capture binds.
 */
#define UET_XDP_CAPTURE_TX		0xFFFFFFFFu
#define UET_XDP_CAPTURE_SOCK_FMT	"uet-capture/ns%lu/%s"
_Static_assert(sizeof(struct uet_xdp_capture_hdr) == 24,
	       "uet_xdp_capture_hdr layout");

/*
 * Steering (issue 12). The device service writes uet_xdp_pids (key: the
 * PIDonFEP; value: struct uet_xdp_pid_ent) and puts each endpoint's socket
 * at its index in uet_xdp_xsks. The counters then mean: REDIRECTED, frames
 * sent to an endpoint (index > 0); TO_SERVICE, frames sent to the service's
 * socket of the arrival queue because they name no endpoint or one without
 * a socket, or one bound to another queue (also WRONG_QUEUE: the kernel
 * redirects only to sockets of the arrival queue); NO_SOCKET, frames that
 * arrived on a queue the service does not serve, or found no service
 * socket either (both passed to the kernel).
 *
 * uet_xdp_ep_queue: __u32 per endpoint index, the offset from queue_id of
 * the queue its socket is bound to (written by the service before the
 * socket goes in uet_xdp_xsks).
 *
 * uet_xdp_ep_rx: per-CPU __u64 per endpoint index, the frames redirected to
 * that endpoint (entry 0 stays zero: see TO_SERVICE).
 */
#define UET_XDP_EP_RX_ENTRIES		UET_XDP_MAX_EPS

/*
 * Secured frames (TSS, tss/uet_tss.h: the type slot of the first byte
 * after UDP is 1) carry their PDS header encrypted, so the program steers
 * them by their SDI (the low 24 bits of the first big-endian word):
 * uet_xdp_sdi (HASH, key __u32 SDI, value __u32 endpoint index), written by
 * the service: the index of the only endpoint of the SD's jobs open on the
 * interface, or UET_FEP_EP_SERVICE when there are several (the service
 * decrypts the headers and hands the frame on); no entry when none. A
 * secured frame shorter than its TSS header and ICV is malformed.
 */
#define UET_XDP_MAX_SDS			1024
#define UET_XDP_TSS_TYPE		1
#define UET_XDP_TSS_SP			0x04	/* first byte: an SSI follows */
#define UET_XDP_TSS_HDR_LEN		12
#define UET_XDP_TSS_HDR_SSI_LEN		16
#define UET_XDP_TSS_ICV_LEN		16

#endif /* UET_XDP_SHARED_H */
