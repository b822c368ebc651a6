/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd: the device service of one interface (issue 12). It owns the XDP
 * program's attachment, the UMEM, the fill and completion rings of the
 * interface queue and the steering maps; it hands each endpoint an AF_XDP
 * socket of its own over a unix socket, allocates PIDonFEPs, decides which
 * users may use which JobIDs, and answers for absent destinations. It keeps
 * no per-packet protocol state: SES and PDC run in the applications.
 */
#ifndef UETD_H
#define UETD_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <xdp/xsk.h>

#include "dev/uet_dev_proto.h"
#include "dev/uet_dev_shm.h"
#include "dev/uet_xdp_ctl.h"
#include "uet_fep.h"

#define UETD_PIDS		4096
#define UETD_PID_REST_NS	(30ull * 1000000000ull)	/* PIDonFEP quarantine */
#define UETD_SLOT_REST_NS	(2ull * 1000000000ull)	/* chunks settle */
#define UETD_POLICY_FILE	"/etc/uet/jobs.conf"	/* if it exists */

struct uetd_ep {
	int conn;		/* -1: index not in use */
	pid_t pid;		/* of the process, from SO_PEERCRED */
	uid_t uid;
	gid_t gid;
	uint32_t job_id;
	uint16_t pid_on_fep;
	uint32_t queue;		/* offset from d->queue_id of its socket's */
	uint64_t rest_until;	/* index resting after its owner left */
	/* Its rx ring, mapped by us: what is left there when it dies. */
	void *rx_map;
	size_t rx_map_len;
	struct xsk_ring_cons rx;
};

/*
 * The service's socket on one rx queue. Sockets of one UMEM on one queue
 * share its fill and completion rings (kernel af_xdp.rst): those of the
 * first socket there, this one. Each queue has its own; every receive
 * chunk fits in any of them.
 */
struct uetd_queue {
	struct xsk_socket *sock;
	/*
	 * Or, after a takeover (uetd_takeover.c), a socket of ours on the
	 * pool the endpoints kept, its rings mapped here: -1 when none.
	 */
	int raw_fd;
	void *raw_map[4];
	size_t raw_len[4];
	struct xsk_ring_prod fill, tx;	/* tx: the first queue's only */
	struct xsk_ring_cons comp, rx;
	bool rx_mid_frame;	/* the last chunk taken had more after it */
	uint64_t handed_on;	/* frames for an endpoint of another queue */
};

struct uetd {
	char ifname[IF_NAMESIZE];
	int ifindex;
	uint32_t queue_id;	/* the first rx queue served */
	uint32_t queues;	/* from queue_id on (uetd --queues) */
	int mtu;		/* when we started */
	uint16_t udp_port;
	enum uet_xdp_mode mode;
	bool foreground;
	struct uet_dev_layout layout;
	/* The UMEM and the control block, shared with the endpoints. */
	int umem_fd, shm_fd;
	void *area;
	struct uet_dev_shm *shm;
	size_t shm_len;
	/* q[0]'s socket is the UMEM's first; answers go out there. */
	struct xsk_umem *umem;
	struct uetd_queue q[UET_XDP_MAX_QUEUES];
	struct uet_xdp_maps maps;
	int pids_map;		/* uet_xdp_pids */
	int ep_queue_map;	/* uet_xdp_ep_queue */
	bool attached;		/* the program is ours to detach */
	int lsock;
	bool zero_copy;		/* the driver took XDP_ZEROCOPY (native only) */
	/* Busy polling of every socket (0: off), as the kernel holds it. */
	int busy_poll_us, busy_poll_budget;
	bool stop;
	int stop_conn;		/* who asked us to stop: answered once gone */
	struct uetd_ep eps[UET_FEP_MAX_EPS];
	uint64_t pid_rest_until[UETD_PIDS];
	uid_t pid_last_uid[UETD_PIDS];	/* who held a resting PIDonFEP */
	uint16_t next_auto_pid;
	/* Counters of the service itself. */
	uint64_t absent_rx, absent_answered, opens, refusals, ep_closed;
	uint64_t rx_recovered;	/* chunks given back for dead endpoints */
	/* Our own transmissions (answers): index 0's chunks. */
	uint64_t *tx_pool;
	uint32_t tx_pool_cnt;
	uint32_t tx_reserved_idx;
	bool tx_reserved;	/* a tx ring slot reserved, not yet used */
	bool tx_unkicked;
	char why[200];		/* why set-up failed, when errno says too little */
	/*
	 * A takeover (uetd_takeover.c): waiting for the endpoints of a
	 * service that went away, until adopt_until; then adopted, their
	 * pool ours; indices of owners not back looked at from orphans_at.
	 */
	bool adopting, adopted;
	uint64_t adopt_until, orphans_at;
	uint64_t reattached, orphans_freed;
	/* The interface went away (rtnetlink, uetd_link.c): stop for good. */
	int nl_fd;
	int wake_tx;		/* sends endpoints' wakes (uetd_ep_wake) */
	bool iface_gone;
	struct uetd_tss *tss;	/* uetd_tss_svc.c */
};

/* uetd_dev.c: the UMEM, the first socket, endpoint sockets. */
int uetd_dev_setup(struct uetd *d);
void uetd_dev_teardown(struct uetd *d);
/* Unmaps the UMEM area and the control block and closes their files. */
void uetd_dev_unmap(struct uetd *d);
/*
 * A socket for endpoint index |ep| bound to the shared UMEM on queue
 * offset |q| (uetd_dev_queue_pick()); fd or -errno.
 * Its rx ring stays mapped here until uetd_dev_ep_recover().
 */
int uetd_dev_ep_socket(struct uetd *d, uint32_t ep, uint32_t q);
/*
 * After endpoint |ep|'s socket is gone: the receive chunks it held and
 * those left in its rx ring go back to the fill ring, each once. Returns
 * how many.
 */
uint32_t uetd_dev_ep_recover(struct uetd *d, uint32_t ep);
/*
 * Frames that reached the service's own sockets: handed on to their
 * endpoint when it is bound to another queue than they came on, else
 * answered or recycled.
 */
void uetd_dev_rx(struct uetd *d);
/*
 * The fill ring topped up from the reserve (uet_dev_shm.h): endpoints do
 * it when they give chunks back, this when none does (all of them hold
 * what they took).
 */
void uetd_dev_fill_top_up(struct uetd *d);
/* The poll fd of the service's socket on queue offset |q|. */
int uetd_dev_fd(const struct uetd *d, uint32_t q);
/* Endpoints bound to queue offset |q| now. */
uint32_t uetd_dev_queue_eps(const struct uetd *d, uint32_t q);
/* The queue offset for a new endpoint that asked for |want|; -errno. */
int uetd_dev_queue_pick(const struct uetd *d, uint32_t want);

/*
 * uetd_takeover.c (issue 43). begin: 1 when our program is still attached
 * (a service went away): wait for its endpoints; 0: start afresh; -errno.
 * abandon: none came, start afresh. reattach: UET_DEV_REATTACH on |conn|
 * with its 3 fds (closed by the caller). tick: after a takeover.
 */
/*
 * Long enough for an idle endpoint, whose progress (the provider's
 * thread) looks at its service's connection every 1.7 s at worst, and
 * then tries every 100 ms.
 */
#define UETD_TAKEOVER_WAIT_NS	(2000ull * 1000 * 1000)
int uetd_takeover_begin(struct uetd *d);
void uetd_takeover_abandon(struct uetd *d);
void uetd_takeover_reattach(struct uetd *d, int conn,
			    const struct uet_dev_reattach_req *r,
			    const int *fds);
void uetd_takeover_tick(struct uetd *d);
void uetd_takeover_socket_close(struct uetd_queue *dq);
/* Endpoint |ep|'s bound socket |fd| on queue offset |q|: as if ours. */
int uetd_dev_ep_adopt(struct uetd *d, uint32_t ep, uint32_t q, int fd);
/* Start time of process |pid| (/proc/PID/stat, ticks), 0 if none. */
uint64_t uetd_proc_start(pid_t pid);

/*
 * uetd_link.c: rtnetlink link events. open: 0 or -errno (d->nl_fd);
 * read: sets d->iface_gone and d->stop when our interface was deleted.
 */
int uetd_link_open(struct uetd *d);
void uetd_link_read(struct uetd *d);

/* uetd_absent.c: answers a request for an absent destination in |in|. */
void uetd_absent_answer(struct uetd *d, const uint8_t *in, size_t len);

/* uetd_ep.c: endpoints, PIDonFEPs, the JobID policy. */
void uetd_ep_open(struct uetd *d, int conn, const struct uet_dev_req *req);
void uetd_ep_close(struct uetd *d, uint32_t ep);
void uetd_ep_tick(struct uetd *d);
/* Wakes endpoint |ep| if it sleeps: frames were put on its local ring. */
void uetd_ep_wake(struct uetd *d, uint32_t ep);
/* The steering entry of PIDonFEP |pid| (|ep| 0: to the service). */
int uetd_steer_set(struct uetd *d, uint16_t pid, uint32_t job, uint16_t ep);
/* Whether |uid| may use |job| by the default rule (*owner: whose it is). */
bool uetd_job_allowed(const struct uetd *d, uint32_t job, uid_t uid,
		      uid_t *owner);
/* Busy polling (uetd --busy-poll) on socket |fd|: 0 or -errno. */
int uetd_busy_poll_set(const struct uetd *d, int fd);

/*
 * uetd_stats.c: the answer to UET_DEV_STATS on |conn|, in the form its
 * |flags| ask for (UET_DEV_F_TEXT, UET_DEV_F_BINARY, else JSON).
 */
void uetd_stats_reply(struct uetd *d, int conn, uint16_t flags);
/* uetd_top.c: answers UET_DEV_TOP (uet_dev_top_rep) on |conn|. */
void uetd_top_reply(struct uetd *d, int conn);

/*
 * uetd_policy.c: the JobID policy file. load: 0 or -errno (a bad file);
 * a missing file is fine unless |must_exist|. check: 1 when a rule lets
 * |uid| use |job|, 0 when rules name |job| but not it, -1 when no rule
 * names |job| (the default rule decides).
 */
int uetd_policy_load(struct uetd *d, const char *path, bool must_exist);
int uetd_policy_check(uint32_t job, uid_t uid, gid_t gid);
/* Why the last load failed ("" if it did not). */
const char *uetd_policy_error(void);

/*
 * uetd_tss_svc.c: TSS (tools/uetd_tss.h). init reads the key file (|keys|,
 * or /etc/uet/tss.conf if it exists) and the epoch state before the
 * device is set up; start opens the XDP program's SDI map after. 0 or
 * -errno with why in d->why.
 */
int uetd_tss_init(struct uetd *d, const char *keys, const char *state);
int uetd_tss_start(struct uetd *d);
/* |keep_xdp|: the program stays for the next service (uetd_leaves_eps),
 * and so do the XDP program's AES contexts, which steer sealed frames to
 * the endpoints meanwhile (as after kill -9). */
void uetd_tss_fini(struct uetd *d, bool keep_xdp);
/* SIGHUP: the key file again (kept as it was when it is bad). */
void uetd_tss_reload(struct uetd *d);
/* UET_DEV_TSS on endpoint |ep|'s connection: the reply. */
void uetd_tss_request(struct uetd *d, uint32_t ep);
/* Endpoint |ep| opened or closed: the SDI map follows. */
void uetd_tss_ep_changed(struct uetd *d, uint32_t ep);
void uetd_tss_sdi_sync(struct uetd *d);
/*
 * A frame at the service's socket (|len| contiguous bytes of |frame_len|):
 * -1 when it is not secured; else the endpoint to hand it on to, or 0
 * when it goes nowhere (counted: no SD of ours, unsteerable).
 */
/*
 * Keystream the XDP program asks for (uetd_tss_xdp.h): the fd to poll
 * (-1: none), and answering what waits.
 */
int uetd_tss_ks_fd(const struct uetd *d);
void uetd_tss_ks_serve(struct uetd *d);
/* Whether uetd_tss_rx_owner() would use a frame whole (one piece). */
bool uetd_tss_wants_whole(const struct uetd *d);
int uetd_tss_rx_owner(struct uetd *d, const uint8_t *frame, size_t len,
		      size_t frame_len);
/* The TSS figures for stats: lines of text, or into |st| (its flag). */
size_t uetd_tss_stats(const struct uetd *d, char *buf, size_t len);
void uetd_tss_stats_fill(const struct uetd *d, struct uet_dev_stats *st);

/* uetd.c */
uint64_t uetd_now_ns(void);
void uetd_log(struct uetd *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int uetd_send(int conn, const void *buf, size_t len, const int *fds, int nfds);

#endif /* UETD_H */
