/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The device service's control protocol (issue 12). One service (uetd) per
 * interface and network namespace owns the XDP program's attachment, the
 * UMEM, the fill and completion rings of the interface queue and the
 * steering maps. Applications (any user) reach it on an abstract unix
 * socket named after the interface, which belongs to the network namespace
 * it was bound in and needs no filesystem: "\0uet-dev/IFACE".
 *
 * SOCK_SEQPACKET, one fixed-size message each way per request. An endpoint
 * is one connection: the service answers UET_DEV_OPEN with the endpoint's
 * AF_XDP socket, the UMEM and the shared control block (SCM_RIGHTS), and
 * the endpoint lives as long as the connection (closing it, or the
 * process dying, frees its index, its steering entries and its PIDonFEP).
 */
#ifndef UET_DEV_PROTO_H
#define UET_DEV_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "dev/uet_dev_shm.h"
#include "tss/uet_tss_ep.h"
#include "uet_fep.h"
#include "uet_xdp_shared.h"

#define UET_DEV_SOCK_FMT	"uet-dev/%s"	/* abstract: a NUL first */
/*
 * 5: UET_DEV_TOP, and the control block's slots grew (pub).
 * 6: UET_DEV_REATTACH, and the slots name their owner (owner_pid).
 */
#define UET_DEV_PROTO_VERSION	6

enum uet_dev_req_type {
	UET_DEV_OPEN = 1,	/* an endpoint: reply + 3 fds */
	UET_DEV_STATS = 2,	/* counters and endpoints, as JSON text */
	UET_DEV_STOP = 3,	/* detach and exit (root or the loader) */
	UET_DEV_MAPS = 4,	/* the program's maps (root): reply + 4 fds */
	UET_DEV_TSS = 5,	/* on an endpoint's connection: its SD keys */
	UET_DEV_TOP = 6,	/* endpoints' published figures (anyone) */
	UET_DEV_REATTACH = 7,	/* a running endpoint, to a new service */
};

/* UET_DEV_OPEN: PIDonFEP wanted, or this for any free one. */
#define UET_DEV_PID_ANY		0xFFFFu
/* UET_DEV_OPEN: rx queue wanted, or this for the one with fewest. */
#define UET_DEV_QUEUE_ANY	0xFFFFFFFFu

struct uet_dev_req {
	uint32_t version;	/* UET_DEV_PROTO_VERSION */
	uint32_t type;		/* enum uet_dev_req_type */
	uint32_t job_id;	/* OPEN: 24 bits */
	uint16_t pid_on_fep;	/* OPEN: 0..4095 or UET_DEV_PID_ANY */
	uint16_t flags;		/* UET_DEV_F_* */
	uint32_t queue;		/* OPEN: an rx queue or UET_DEV_QUEUE_ANY */
};

#define UET_DEV_F_TEXT		0x1	/* STATS: lines for people, not JSON */
#define UET_DEV_F_BINARY	0x2	/* STATS: struct uet_dev_stats */

/*
 * The layout of the shared UMEM, identical for every endpoint: chunks
 * [0, rx_chunks) circulate through the fill ring (rx_chunks entries); then
 * each endpoint index i (0, the service, to max_eps - 1) owns the tx_chunks
 * chunks from rx_chunks + i * tx_chunks for its transmissions. The
 * completion ring has max_eps * tx_chunks entries or more (a power of 2:
 * uet_dev_comp_size()), so it never overflows. Endpoint indices are the
 * top ep_bits bits of PDCIDs and message_ids (include/uet_fep.h), which
 * the endpoint's engine configures its PDC and SES with.
 */
struct uet_dev_layout {
	uint32_t chunk_len;	/* UET_XSK_CHUNK_LEN */
	uint32_t chunks;	/* all of them */
	uint32_t rx_chunks;
	uint32_t tx_chunks;	/* per endpoint index */
	uint32_t max_eps;	/* indices 0..max_eps-1 */
	uint32_t ring_size;	/* fill/completion: rx_chunks; rx/tx: this */
	uint32_t multi_buf;	/* frames span chunks (XDP_USE_SG) */
	uint32_t ep_bits;	/* index bits: 2^ep_bits >= max_eps */
};

/*
 * Transmit chunks per endpoint index (uetd --tx-chunks): a power of 2.
 * The default, 512 chunks, is 2 MiB of UMEM per index, pinned.
 */
#define UET_DEV_TX_CHUNKS_DEFAULT	512
#define UET_DEV_TX_CHUNKS_MIN		32
#define UET_DEV_TX_CHUNKS_MAX		4096

/* Entries of the completion ring of |l|: a power of 2. */
static inline uint32_t uet_dev_comp_size(const struct uet_dev_layout *l)
{
	uint32_t need = l->max_eps * l->tx_chunks, n = 1;

	while (n < need)
		n <<= 1;
	return n;
}

struct uet_dev_open_rep {
	int32_t status;		/* 0 or -errno (EADDRINUSE, EACCES, ...) */
	uint32_t ep;		/* endpoint index, 1..max_eps-1 */
	uint16_t pid_on_fep;	/* the one allocated */
	uint16_t udp_port;
	uint32_t job_id;
	uint32_t ifindex;
	uint32_t queue_id;	/* the rx queue its socket is bound to */
	struct uet_dev_layout layout;
	char msg[128];		/* with a non-zero status: why, for logs */
};

/*
 * UET_DEV_REATTACH (issue 43): an endpoint whose service went away (killed,
 * restarted, upgraded) hands a new service of the same interface what it
 * was given, so that the service takes over the UMEM, the control block
 * and the queue's rings instead of starting afresh, and the endpoint keeps
 * its index, PIDonFEP and steering. Sent with 3 fds: its AF_XDP socket,
 * the UMEM and the control block; answered with a uet_dev_open_rep
 * (status 0, or -EAGAIN: the service is not ready, ask again; -ESTALE:
 * the interface is another one now; anything else: never again). The
 * connection is then the endpoint's, as after UET_DEV_OPEN.
 */
struct uet_dev_reattach_req {
	struct uet_dev_req hdr;	/* type UET_DEV_REATTACH, job_id, pid_on_fep */
	uint32_t ep;		/* its index */
	uint32_t ifindex;	/* of the interface it was opened on */
	uint32_t queue_id;	/* its rx queue */
	uint16_t udp_port;
	uint16_t pad;
	struct uet_dev_layout layout;	/* as the first service gave it */
};

/*
 * UET_DEV_TSS, sent on an endpoint's own connection (after UET_DEV_OPEN):
 * the keys of the secure domain its JobID belongs to in the service's key
 * file (uetd --tss-keys), with an epoch of the endpoint's own under each
 * key (tss/uet_tss.h: no two endpoints ever share a stream). status
 * -ENOKEY: the JobID is in no secure domain; -EKEYEXPIRED: a key's epochs
 * are spent (rotate it). Asked again whenever the control block's
 * |tss_gen| moves (the service reloaded its key file: a rotation).
 */
struct uet_dev_tss_rep {
	int32_t status;
	uint32_t pad;
	struct uet_tss_sd_keys keys;
	char msg[128];
};

/*
 * UET_DEV_TOP: what `uetctl top` shows. Anyone may ask, as for
 * UET_DEV_STATS: the figures are those stats prints, by cause and per
 * second. Binary, for uetctl of the same build (the version checks it).
 */
struct uet_dev_top_ep {
	uint32_t index;
	int32_t pid;		/* of its process, as the service sees it */
	uint32_t uid, job_id;
	uint16_t pid_on_fep;
	uint16_t pad;
	uint32_t queue;		/* its rx queue */
	char comm[16];		/* its process's name (/proc/PID/comm) */
	uint32_t fresh;		/* 0: no whole sample could be read */
	uint32_t pad2;
	struct uet_dev_ep_counters c;
};

/* XDP counters in a reply: UET_XDP_CNT_MAX of them, room to grow. */
#define UET_DEV_TOP_XDP_CNT	16

struct uet_dev_top_rep {
	int32_t status;		/* 0 or -errno */
	uint32_t cnt;		/* endpoints that follow */
	uint64_t now_ns;	/* the service's CLOCK_MONOTONIC */
	uint64_t xdp[UET_DEV_TOP_XDP_CNT];	/* UET_XDP_CNT_*, all CPUs */
	uint64_t local_dropped;	/* local frames no endpoint took */
	uint64_t opens, refusals;	/* endpoints, since it started */
	struct uet_dev_top_ep ep[];
};

/* UET_DEV_STATS: status, then up to this many bytes of JSON text. */
#define UET_DEV_STATS_MAX	(256 * UET_FEP_MAX_EPS)

/* One open endpoint in struct uet_dev_stats. */
struct uet_dev_stats_ep {
	uint32_t index;		/* endpoint index, 1..max_eps-1 */
	int32_t pid;		/* of its process, from SO_PEERCRED */
	uint32_t uid;
	uint32_t job_id;
	uint32_t pid_on_fep;
	uint32_t queue;		/* the rx queue its socket is bound to */
	uint64_t rx_frames, rx_refused, tx_frames;	/* since it opened */
};

#define UET_DEV_STATS_SERVICE	0x1	/* the service's members are set */
#define UET_DEV_STATS_TSS	0x2	/* the tss_ members are set */

/*
 * UET_DEV_STATS with UET_DEV_F_BINARY: the figures the JSON and text
 * replies are written from, as they are. The reply is this struct cut
 * after ep[ep_cnt]. Service and tool are built together; |size| lets a
 * tool tell an older service (which answers JSON) from a garbled reply.
 * uetctl also fills one from the bare program's maps (flags 0).
 */
struct uet_dev_stats {
	uint32_t size;		/* sizeof(struct uet_dev_stats) */
	uint32_t flags;		/* UET_DEV_STATS_* */
	char iface[16];		/* IF_NAMESIZE, NUL-terminated */
	uint64_t xdp[UET_XDP_CNT_MAX];	/* the program's, summed over CPUs */
	/* The service (UET_DEV_STATS_SERVICE). */
	int32_t pid;
	uint32_t zero_copy;	/* 1: the driver took XDP_ZEROCOPY */
	int32_t busy_poll_us, busy_poll_budget;
	uint32_t queue, queues;	/* the first rx queue served, how many */
	uint32_t endpoints_max, ep_bits;
	uint32_t tx_chunks, umem_chunks;
	uint32_t rx_reserve;	/* chunks in the fill ring's reserve now */
	uint32_t ep_cnt;	/* entries of ep[] used: endpoints open */
	uint64_t handed_on, local_dropped;
	uint64_t opened, refused, closed;
	uint64_t absent_rx, absent_answered;
	uint64_t comp_orphans, fill_lost, rx_recovered;
	/* TSS (UET_DEV_STATS_TSS). */
	uint32_t tss_sds, tss_gen;
	uint32_t tss_xdp_read;	/* 1: the program reads sealed headers */
	uint32_t tss_pad;
	uint64_t tss_reloads, tss_reload_failed, tss_refused;
	uint64_t tss_handed_on, tss_no_sd, tss_unsteerable, tss_xdp_streams;
	uint64_t tss_ep_closed;	/* for an endpoint closed within 2 s */
	struct uet_dev_stats_ep ep[UET_FEP_MAX_EPS];
};

/* The bytes of a binary STATS reply with |ep_cnt| endpoints. */
#define UET_DEV_STATS_LEN(ep_cnt) \
	(offsetof(struct uet_dev_stats, ep) + \
	 (size_t)(ep_cnt) * sizeof(struct uet_dev_stats_ep))

#endif /* UET_DEV_PROTO_H */
