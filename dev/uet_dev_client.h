/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Talking to the device service of an interface (dev/uet_dev_proto.h):
 * opening an endpoint (an AF_XDP socket of its own on the shared UMEM),
 * asking for the statistics or the program's maps, stopping the service.
 * Needs no privilege: the service decides what a caller may do.
 */
#ifndef UET_DEV_CLIENT_H
#define UET_DEV_CLIENT_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "dev/uet_dev_proto.h"

struct uet_xsk;

/*
 * An open endpoint: it lives while |conn| is open, or, once its service
 * went away (conn -1), until a new one takes it back (uet_dev_ep_watch).
 */
struct uet_dev_ep {
	int conn;
	struct uet_dev_open_rep rep;
	struct uet_xsk *xsk;
	/* Kept to hand a new service (UET_DEV_REATTACH), when fds_kept. */
	bool fds_kept;
	int umem_fd, shm_fd;
	char ifname[IF_NAMESIZE];
	/* While detached: when to try next, tries so far, 0 or why not. */
	uint64_t retry_at_ns;
	uint32_t tries;
	int gave_up;		/* -errno: the service refused us for good */
	uint64_t detached, reattached;	/* times, since it opened */
	/*
	 * The interface's endpoint index bits (include/uet_fep.h): the
	 * prefix width of the PDCIDs and message_ids it allocates.
	 */
	uint32_t ep_bits;
};

/*
 * uet_dev_connect() connects to the service of |ifname| in this network
 * namespace. Returns the socket, or -ENOENT when no service runs there
 * (nobody ran `uetctl load IFACE`), or another -errno.
 */
int uet_dev_connect(const char *ifname);

/*
 * uet_dev_take_fds() takes the descriptors a received |mh| carries
 * (SCM_RIGHTS): the first |nfds| into the slots of |fds| still -1, the
 * rest closed, so that a peer cannot make us hold descriptors we did not
 * ask for.
 */
void uet_dev_take_fds(struct msghdr *mh, int *fds, int nfds);

/*
 * uet_dev_call() sends |req| on |conn| and receives the reply into |rep|
 * (|rep_len| bytes at most) and up to |nfds| fds into |fds| (-1 where none
 * came). Returns the reply's length or -errno.
 */
ssize_t uet_dev_call(int conn, const struct uet_dev_req *req, void *rep,
		     size_t rep_len, int *fds, int nfds);

/*
 * uet_dev_ep_open() asks the service of |ifname| for an endpoint of JobID
 * |job_id| with PIDonFEP |pid_on_fep| (UET_DEV_PID_ANY: any free one) on rx
 * queue |queue| (UET_DEV_QUEUE_ANY: the service's choice), and attaches to
 * its socket. Returns 0, or -errno with the service's reason
 * in |why| (EADDRINUSE: PIDonFEP taken or resting; EACCES: JobID not
 * allowed for this user; ENOSPC: no endpoint index free; ENOENT: no
 * service; EOPNOTSUPP: kernel too old to share the rings).
 */
int uet_dev_ep_open(const char *ifname, uint32_t job_id, uint16_t pid_on_fep,
		    uint32_t queue, struct uet_dev_ep *ep, char *why,
		    size_t why_len);
void uet_dev_ep_close(struct uet_dev_ep *ep);

/*
 * uet_dev_ep_watch() is called from the endpoint's progress (a few times a
 * second is enough). It notices that the service closed the connection
 * (killed, restarted, stopped) and then tries to reattach to a new one of
 * the same interface every UET_DEV_REATTACH_NS, bounded: after
 * UET_DEV_REATTACH_TRIES tries it gives up (the data path works on;
 * only what needs the service, TSS key rotations, does not).
 * Returns 0 (attached), 1 (just reattached), -ENOTCONN (detached, still
 * trying) or the -errno it gave up with.
 */
#define UET_DEV_REATTACH_NS	(100ull * 1000 * 1000)
#define UET_DEV_REATTACH_TRIES	6000	/* 10 minutes */
int uet_dev_ep_watch(struct uet_dev_ep *ep, uint64_t now_ns);

/*
 * Whether a reattach that failed with |err| (-errno) gives up at once:
 * only for what trying again cannot change (the service refuses us, our
 * PIDonFEP went to another endpoint, a service that speaks another
 * protocol). Anything else, a service short of memory or descriptors
 * while it starts included, is tried again within the bound above.
 */
bool uet_dev_reattach_gives_up(int err);

/*
 * uet_dev_tss_keys() asks the service, on an open endpoint's connection
 * |conn|, for the TSS keys of its JobID's secure domain, with epochs of
 * its own (dev/uet_dev_proto.h: UET_DEV_TSS). Ask again when the control
 * block's tss_gen moves. Returns 0, or -errno with the service's reason in
 * |why|: ENOKEY (the JobID is in no SD), EKEYEXPIRED (a key's epochs are
 * spent), ECONNRESET, EPROTO. |keys| holds key bytes: wipe it after use.
 */
int uet_dev_tss_keys(int conn, struct uet_tss_sd_keys *keys, char *why,
		     size_t why_len);

#endif /* UET_DEV_CLIENT_H */
