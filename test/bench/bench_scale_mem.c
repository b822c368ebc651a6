/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_scale's memory accounts. The binary is linked with --wrap for
 * malloc, calloc, realloc and free (test/test.mk), which routes the calls
 * of libuet_core.a's objects (and the bench's) here; libc's own calls are
 * not. Each call is charged to the account that is current: the bench
 * sets it around every call into one side's SES or PDC, and switches it
 * in the callbacks where one layer calls the other. A chunk costs
 * malloc_usable_size() + 8, what glibc carves for it, its header
 * included: allocator overhead counts. A side frees only what it
 * allocated, so a free is charged where its malloc was; bench_scale
 * checks that every account comes back to where it was, and prints
 * mallinfo2's count beside its own once.
 */
#include <malloc.h>

#include "test/bench/bench_scale.h"

void *__real_malloc(size_t len);
void *__real_calloc(size_t n, size_t len);
void *__real_realloc(void *p, size_t len);
void __real_free(void *p);
void *__wrap_malloc(size_t len);
void *__wrap_calloc(size_t n, size_t len);
void *__wrap_realloc(void *p, size_t len);
void __wrap_free(void *p);

enum b_acct b_acct;
int64_t b_bytes[B_ACCTS];

static int64_t b_chunk(void *p)
{
	return p ? (int64_t)malloc_usable_size(p) + 8 : 0;
}

void *__wrap_malloc(size_t len)
{
	void *p = __real_malloc(len);

	b_bytes[b_acct] += b_chunk(p);
	return p;
}

void *__wrap_calloc(size_t n, size_t len)
{
	void *p = __real_calloc(n, len);

	b_bytes[b_acct] += b_chunk(p);
	return p;
}

void *__wrap_realloc(void *p, size_t len)
{
	int64_t old = b_chunk(p);
	void *q = __real_realloc(p, len);

	if (q || !len)
		b_bytes[b_acct] += b_chunk(q) - old;
	return q;
}

void __wrap_free(void *p)
{
	b_bytes[b_acct] -= b_chunk(p);
	__real_free(p);
}

int64_t b_heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (int64_t)(mi.uordblks + mi.hblkhd);
}
