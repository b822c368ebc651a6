/* SPDX-License-Identifier: BSD-2-Clause */
/* uet_dev_opts.h: the device service's settings, parsed once. */
#include <stdlib.h>

#include "dev/uet_dev_opts.h"

bool uet_dev_busy_poll_parse(const char *s, int *us, int *budget)
{
	long u, b = UET_DEV_BUSY_POLL_BUDGET_DEFAULT;
	char *end;

	u = strtol(s, &end, 10);
	if (end == s)
		return false;
	if (*end == ',')
		b = strtol(end + 1, &end, 10);
	if (*end || u < 0 || u > UET_DEV_BUSY_POLL_US_MAX || b < 1 ||
	    b > UET_DEV_BUSY_POLL_BUDGET_MAX)
		return false;
	*us = (int)u;
	*budget = (int)b;
	return true;
}
