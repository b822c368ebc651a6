/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd noticing that its interface went away (issue 43): a driver reset,
 * a VF removed, `ip link del`. The kernel then detaches the XDP program
 * and unbinds every AF_XDP socket of the interface; nothing is left to
 * serve, so the service stops for good (its UMEM freed with it) instead of
 * holding memory for an interface that is no more. Its ifindex, not its
 * name, says which: a new interface of the same name is another one, to
 * be loaded again (`uetctl load IFACE`; systemd's unit binds to the
 * device and starts with it).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tools/uetd.h"

int uetd_link_open(struct uetd *d)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_LINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	d->nl_fd = fd;
	return 0;
}

void uetd_link_read(struct uetd *d)
{
	/* Link messages are small; a burst of them is read to the end. */
	static char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n;

	while ((n = recv(d->nl_fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf;
		     NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			const struct ifinfomsg *ifi = NLMSG_DATA(h);

			if (h->nlmsg_type != RTM_DELLINK ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
			    ifi->ifi_index != d->ifindex)
				continue;
			uetd_log(d, "%s (ifindex %d) was deleted: stopping, "
				 "its UMEM freed (uetctl load %s once it is "
				 "back)", d->ifname, d->ifindex, d->ifname);
			d->iface_gone = true;
			d->stop = true;
		}
	}
	/* ENOBUFS: events were lost; is it still there? */
	if (n < 0 && errno == ENOBUFS && !if_indextoname((unsigned)d->ifindex,
							  (char[IF_NAMESIZE]){0})) {
		d->iface_gone = true;
		d->stop = true;
	}
}
