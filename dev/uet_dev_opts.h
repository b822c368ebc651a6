/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Settings of the device service that uetctl checks before it starts
 * uetd with them and uetd reads again: one parser for both.
 */
#ifndef UET_DEV_OPTS_H
#define UET_DEV_OPTS_H

#include <stdbool.h>

#define UET_DEV_BUSY_POLL_US_MAX	1000000
#define UET_DEV_BUSY_POLL_BUDGET_DEFAULT 8
#define UET_DEV_BUSY_POLL_BUDGET_MAX	65535

/*
 * "USEC[,BUDGET]" of --busy-poll into |us| and |budget| (BUDGET 8 when
 * left out). False, with neither touched, when it is not that or out of
 * range (0..1000000 us, budget 1..65535).
 */
bool uet_dev_busy_poll_parse(const char *s, int *us, int *budget);

#endif /* UET_DEV_OPTS_H */
