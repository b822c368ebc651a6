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
#define UET_XDP_CNT_TSS_READ		12	/* secured frames whose PDS
						 * and SES headers the program
						 * read with its keystream
						 * (uet_xdp_tss_ctx) and
						 * steered as clear ones */
#define UET_XDP_CNT_TSS_NO_CTX		13	/* secured frames of an SD
						 * read in XDP whose stream
						 * has no context yet: to the
						 * service, which adds it */
#define UET_XDP_CNT_TSS_KS_HIT		14	/* secured frames whose first
						 * block was read with a
						 * keystream the service made
						 * ahead (uet_xdp_tss_ks):
						 * no AES in XDP (also
						 * TSS_READ) */
#define UET_XDP_CNT_TSS_KS_ASKED	15	/* keystream the program asked
						 * the service for
						 * (uet_xdp_tss_ks_ring) */
#define UET_XDP_CNT_MAX			16

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
/*
 * uet_xdp_sdi value: the endpoint index in the low 16 bits; with one of
 * these bits set (and UET_FEP_EP_SERVICE below, several endpoints), the
 * program reads the frame's PDS and SES headers itself (issue 40): it
 * encrypts GCM's counter blocks 2 and 3 (AES-CTR keystream, ECB through the
 * BPF crypto kfuncs) with the context uet_xdp_tss_ctx holds for the
 * frame's key, XORs the ciphertext's first bytes and steers by the
 * plaintext as for a clear frame, verifying nothing (the endpoint
 * authenticates the whole frame, as before). READ_SD: one context per
 * (SDI, AN) (direct mode); READ_STREAM: one per sender stream (cluster
 * mode: SDI, AN, epoch and source), which the service adds when a
 * stream's first frame reaches it.
 */
#define UET_XDP_SDI_EP_MASK		0xFFFFu
#define UET_XDP_SDI_READ_SD		(1u << 30)
#define UET_XDP_SDI_READ_STREAM		(1u << 31)

/* uet_xdp_tss_ctx: LRU hash, this many contexts at most. */
#define UET_XDP_TSS_CTXS		8192
/*
 * Bytes of a sealed frame the program steers by: its length checks see up
 * to PDS 16 + SES 44; the fields it reads are decrypted (uet_xdp_tss.h).
 */
#define UET_XDP_TSS_READ_LEN		64

/*
 * uet_xdp_tss_ctx key. READ_SD: sdi_an and zeros. READ_STREAM: the
 * stream's epoch and source as the IV and KDF take it: the SSI (4 bytes,
 * big endian) when the header has one (sp = 1), else the IPv4 (4) or
 * IPv6 (16) source address.
 */
struct uet_xdp_tss_key {
	__u32 sdi_an;		/* SDI | AN << 24 */
	__u16 epoch;
	__u8 sp;
	__u8 is_v6;
	__u8 src[16];
};
_Static_assert(sizeof(struct uet_xdp_tss_key) == 24, "uet_xdp_tss_key layout");

/*
 * What user space hands the context-making program (bpf/uet_tss_ctx.bpf.c,
 * a BPF_PROG_TYPE_SYSCALL run with this as its context): the key and IV
 * mask of |k|'s stream. The value kept in uet_xdp_tss_ctx is the IV mask
 * and the context as a kptr (defined on the BPF side only).
 */
struct uet_xdp_tss_ctx_args {
	struct uet_xdp_tss_key k;
	__u8 key[32];
	__u8 iv_mask[12];
	__s32 err;		/* out: 0 or -errno */
};
_Static_assert(sizeof(struct uet_xdp_tss_ctx_args) == 72,
	       "uet_xdp_tss_ctx_args layout");

/*
 * Keystream made ahead (issue 40). The first block of a sealed frame's
 * keystream depends only on its key and IV, not on the frame: a stream's
 * IVs are known before its frames come (its TSC counts up), so the
 * service, whose AES uses the CPU's instructions, encrypts the counter
 * blocks of its next UET_XDP_TSS_KS_N TSCs in one call, and the program
 * XORs instead of calling the kernel's AES (aes-fixed-time here: 0.4 us a
 * block). uet_xdp_tss_ks (LRU hash): key, the context's key and the IV
 * before its mask with the TSC's low bits clear; value, the first
 * keystream block of each of those TSCs. A frame whose entry is missing
 * is read with the kernel's AES as before, and the program asks for the
 * entry on uet_xdp_tss_ks_ring (at most once per UET_XDP_TSS_KS_ASK_NS
 * per context: 10000 a second, so that forged TSCs cost the service at
 * most a few percent of a core); a frame past the middle of its entry asks for the next
 * one (once per entry).
 */
/*
 * 256 TSCs an entry (4 KiB): each request wakes the service, a context
 * switch on a core busy with the stream; at 64 a sealed 1 MiB stream
 * (110000 packets a second) woke it 1700 times a second. At most 256:
 * the TSC's low byte indexes an entry.
 */
#define UET_XDP_TSS_KS_N		256
#define UET_XDP_TSS_KS_ENTRIES		4096
_Static_assert((UET_XDP_TSS_KS_N & (UET_XDP_TSS_KS_N - 1)) == 0 &&
	       UET_XDP_TSS_KS_N <= 256, "UET_XDP_TSS_KS_N: a power of 2, <= 256");
#define UET_XDP_TSS_KS_RING_BYTES	(64u << 10)
#define UET_XDP_TSS_KS_ASK_NS		100000ull

struct uet_xdp_tss_ks_key {
	struct uet_xdp_tss_key k;	/* the context's: which AES key */
	__u8 iv[12];		/* source, epoch, TSC & ~(KS_N - 1) */
	__u32 pad;
};
_Static_assert(sizeof(struct uet_xdp_tss_ks_key) == 40,
	       "uet_xdp_tss_ks_key layout");

struct uet_xdp_tss_ks_val {
	__u8 ks[UET_XDP_TSS_KS_N][16];	/* E_K(IV ^ mask | 2), TSC by TSC */
	__u64 asked_ns;		/* when the next entry was asked for */
};

/*
 * On uet_xdp_tss_ks_ring: make |entries| entries from |key|'s on (TSC
 * bases KS_N apart), each but the last marked as if its next had been
 * asked for. A frame that missed asks for 1 (a stream may send only a
 * few); a stream past the middle of its last entry asks for
 * UET_XDP_TSS_KS_AHEAD, so that a sealed 1 MiB stream wakes the service
 * once per 1024 frames, not 256 (each wake a context switch on a core
 * the stream keeps busy, and in cluster mode a key derivation).
 */
#define UET_XDP_TSS_KS_AHEAD		4
struct uet_xdp_tss_ks_req {
	struct uet_xdp_tss_ks_key key;
	__u32 entries;
	__u32 pad;
};
_Static_assert(sizeof(struct uet_xdp_tss_ks_req) == 48,
	       "uet_xdp_tss_ks_req layout");

#define UET_XDP_TSS_TYPE		1
#define UET_XDP_TSS_SP			0x04	/* first byte: an SSI follows */
#define UET_XDP_TSS_HDR_LEN		12
#define UET_XDP_TSS_HDR_SSI_LEN		16
#define UET_XDP_TSS_ICV_LEN		16

#endif /* UET_XDP_SHARED_H */
