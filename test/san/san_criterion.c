// SPDX-License-Identifier: BSD-2-Clause
/*
 * Linked into the unit-test binaries of an ASan build only (test/san/san.mk).
 *
 * Criterion runs each test in a sandbox: a child process whose environment
 * has BXFI_MAP (BoxFort, linked into libcriterion.so.3). The parent, the
 * runner, runs none of our code, and it leaks: BoxFort's bxfi_push_timeout
 * allocates a 48-byte request for each test of a suite with .timeout, and
 * bxfi_cancel_timeout leaves it on a list that nobody frees once the
 * killer thread has ended (libcriterion 2.4.1, Debian 12). A suppression
 * cannot name it: Debian's libcriterion has no symbols, and one naming the
 * library would match every leak of a test too, as a sandbox's stacks run
 * through criterion_internal_test_main. So the runner alone ignores what
 * its main thread allocates (BoxFort's requests among it), and the
 * sandboxes keep the full leak check.
 */
#include <stdlib.h>
#include <sanitizer/lsan_interface.h>

__attribute__((constructor)) static void san_criterion_runner(void)
{
	if (!getenv("BXFI_MAP"))
		__lsan_disable();
}
