/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An interface's link rate as its driver reports it (ethtool's link
 * settings), for congestion control's default: NSCC's largest window and
 * RCCC's credit rate scale with our link's rate.
 */
#ifndef UET_LINK_H
#define UET_LINK_H

#include <stdbool.h>
#include <stdint.h>

struct uet_link_speed {
	uint32_t mbps;		/* 0: the driver reports none */
	bool nominal;		/* a virtual device's fixed figure (veth) */
	char driver[32];	/* "" when the driver would not say */
};

/*
 * Fills |out| for |ifname| through SIOCETHTOOL (ETHTOOL_GLINKSETTINGS, which
 * needs no privilege). Returns 0, or -errno: -ENODEV when there is no such
 * interface, -EOPNOTSUPP when its driver has no link settings.
 */
int uet_link_speed(const char *ifname, struct uet_link_speed *out);

#endif
