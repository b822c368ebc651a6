/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uet_link_speed(): what congestion control's default link rate comes
 * from. In a private namespace (this test's process only): loopback has
 * no link settings, a missing interface is ENODEV, veth answers with its
 * driver's nominal figure and says it is nominal.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "dev/uet_link.h"
#include "test/unit/io/t_priv.h"

static void t_link_netns(void)
{
	t_require_root();
	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare: %m");
	cr_assert_eq(system("ip link set lo up"), 0);
}

Test(link, loopback_has_no_link_settings)
{
	struct uet_link_speed l;
	int ret;

	t_link_netns();
	ret = uet_link_speed("lo", &l);
	/* Either no ethtool link settings, or settings without a speed. */
	cr_assert(ret == -EOPNOTSUPP || (!ret && !l.mbps), "ret %d mbps %u",
		  ret, l.mbps);
}

Test(link, missing_interface_is_enodev)
{
	struct uet_link_speed l = { .mbps = 7 };

	t_link_netns();
	cr_assert_eq(uet_link_speed("uetnosuch0", &l), -ENODEV);
	cr_assert_eq(l.mbps, 0);
	cr_assert_eq(uet_link_speed("", &l), -ENODEV);
	cr_assert_eq(uet_link_speed("an-interface-name-too-long", &l),
		     -ENODEV);
}

Test(link, veth_is_nominal)
{
	struct uet_link_speed l;

	t_link_netns();
	cr_assert_eq(system("ip link add tl0 type veth peer name tl1"), 0);
	cr_assert_eq(uet_link_speed("tl0", &l), 0);
	cr_assert_str_eq(l.driver, "veth");
	cr_assert(l.nominal);
	/* The kernel's veth says 10000 Mbit/s (drivers/net/veth.c). */
	cr_assert_eq(l.mbps, 10000);
}
