/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uet_link_speed(): SIOCETHTOOL on a datagram socket, as ethtool(8) does.
 * ETHTOOL_GLINKSETTINGS first asks how many 32-bit words the link mode
 * masks take (the kernel answers with their negated count) and then reads
 * with that count; only the speed is used, so the masks' room is a
 * generous fixed array. Virtual devices report a figure of their own
 * choosing (veth: 10000) that says nothing of what is behind them: the
 * driver's name lets the caller say so.
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "dev/uet_link.h"

#define LINK_MASK_WORDS	64	/* 3 masks; the kernel's need 2-4 words each */

/*
 * The request and room for the masks the kernel writes after it (into
 * s.link_mode_masks[]): a union, as ISO C lets no member follow a struct
 * that ends in a flexible array (clang refuses it, gcc takes it).
 */
union link_req {
	struct ethtool_link_settings s;
	uint8_t room[sizeof(struct ethtool_link_settings) +
		     3 * LINK_MASK_WORDS * sizeof(uint32_t)];
};

/* Drivers whose speed is a fixed figure, not a link's. */
static const char *const nominal_drivers[] = { "veth", "tun", "bridge",
					       "macvlan", "ipvlan", "vxlan" };

static int link_ioctl(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static void link_driver(int fd, const char *ifname, struct uet_link_speed *out)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	size_t i;

	if (link_ioctl(fd, ifname, &info))
		return;
	memcpy(out->driver, info.driver, sizeof(out->driver) - 1);
	for (i = 0; i < sizeof(nominal_drivers) / sizeof(*nominal_drivers); i++)
		if (!strcmp(out->driver, nominal_drivers[i]))
			out->nominal = true;
}

int uet_link_speed(const char *ifname, struct uet_link_speed *out)
{
	union link_req req;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ)
		return -ENODEV;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&req, 0, sizeof(req));
	req.s.cmd = ETHTOOL_GLINKSETTINGS;
	ret = link_ioctl(fd, ifname, &req);
	if (!ret && req.s.link_mode_masks_nwords < 0 &&
	    -req.s.link_mode_masks_nwords <= LINK_MASK_WORDS) {
		int8_t nwords = (int8_t)-req.s.link_mode_masks_nwords;

		memset(&req, 0, sizeof(req));
		req.s.cmd = ETHTOOL_GLINKSETTINGS;
		req.s.link_mode_masks_nwords = nwords;
		ret = link_ioctl(fd, ifname, &req);
	} else if (!ret) {
		ret = -EPROTO;	/* no handshake: not the API we know */
	}
	if (!ret) {
		/* SPEED_UNKNOWN is -1; 0 is what some drivers say instead. */
		if (req.s.speed != (uint32_t)SPEED_UNKNOWN && req.s.speed)
			out->mbps = req.s.speed;
		link_driver(fd, ifname, out);
	} else if (ret == -ENODEV || ret == -ENXIO) {
		ret = -ENODEV;
	}
	close(fd);
	return ret;
}
