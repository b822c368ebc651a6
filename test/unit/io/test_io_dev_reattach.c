/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An endpoint whose service went away tries to reattach to the next one
 * for up to 10 minutes (dev/uet_dev_client.c). It gave up for good on any
 * error but five (issue 43): a service that answered -ENOMEM while it
 * started left the endpoint detached for its whole life. Now only errors
 * that trying again cannot change end the tries.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "dev/uet_dev_client.h"

Test(dev_reattach, gives_up_only_on_what_cannot_change)
{
	static const int again[] = { -ENOENT, -EAGAIN, -ECONNRESET,
				     -ECONNREFUSED, -EPIPE, -ENOMEM, -EMFILE,
				     -ENFILE, -ENOBUFS, -ETIMEDOUT, -EINTR,
				     -ENODEV, -EBUSY };
	static const int never[] = { -EACCES, -EPERM, -EADDRINUSE, -EPROTO,
				     -EPROTONOSUPPORT, -EINVAL, -EBADF };

	for (size_t i = 0; i < sizeof(again) / sizeof(again[0]); i++)
		cr_expect(!uet_dev_reattach_gives_up(again[i]),
			  "tries again after %d", again[i]);
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		cr_expect(uet_dev_reattach_gives_up(never[i]),
			  "gives up after %d", never[i]);
}
