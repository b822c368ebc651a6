/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Privilege checks for tests that need root (XDP, AF_XDP, namespaces): they
 * skip on a developer's unprivileged machine, and fail instead under CI=true
 * or UET_TEST_REQUIRE_PRIV=1, where a skip would hide lost coverage.
 */
#ifndef T_PRIV_H
#define T_PRIV_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline bool t_priv_required(void)
{
	const char *ci = getenv("CI"), *req = getenv("UET_TEST_REQUIRE_PRIV");

	return (ci && !strcmp(ci, "true")) || (req && !strcmp(req, "1"));
}

/* Call first in a test that needs root. */
#define t_require_root()						\
	do {								\
		if (geteuid() != 0) {					\
			if (t_priv_required())				\
				cr_assert_fail("needs root (CI=true)"); \
			else						\
				cr_skip_test("needs root");		\
		}							\
	} while (0)

#endif /* T_PRIV_H */
