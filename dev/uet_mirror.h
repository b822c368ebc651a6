/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Transmit-side capture mirror: while `uetctl capture` runs on our
 * interface, copies of the frames an engine sends go to it (see
 * UET_XDP_CAPTURE_SOCK_FMT), so one capture shows both directions. When no
 * capture runs it costs one load from the mmapped XDP settings per frame.
 */
#ifndef UET_MIRROR_H
#define UET_MIRROR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "uet_xdp_shared.h"

struct uet_mirror {
	const volatile struct uet_xdp_cfg *cfg;	/* NULL: mirroring off */
	int sock;
	struct sockaddr_un addr;
	socklen_t addr_len;
	int ifindex;
	uint64_t sent, lost;
};

/*
 * uet_mirror_open() maps the XDP settings map |config_fd| (it may be
 * closed afterwards) for |ifname|. Returns 0 or -errno; on error the
 * mirror stays off, which costs nothing.
 */
int uet_mirror_open(struct uet_mirror *m, const char *ifname, int ifindex,
		    int config_fd);
void uet_mirror_close(struct uet_mirror *m);

static inline bool uet_mirror_is_on(const struct uet_mirror *m)
{
	return m->cfg && m->cfg->capture;
}

/* Sends a copy of |frame| (|len| bytes) to the capture; never blocks. */
void uet_mirror_frame(struct uet_mirror *m, const uint8_t *frame,
		      uint32_t len);

/* The socket name for |ifname| in our network namespace; 0 or -errno. */
int uet_mirror_sock_name(struct sockaddr_un *addr, socklen_t *len,
			 const char *ifname);

#endif /* UET_MIRROR_H */
