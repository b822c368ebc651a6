/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench_scale's memory accounts (bench_scale_mem.c): every allocation of
 * SES and PDC is charged to the side and layer the bench is running.
 */
#ifndef BENCH_SCALE_H
#define BENCH_SCALE_H

#include <stdint.h>

enum b_acct {
	B_NONE, B_INI_SES, B_INI_PDC, B_TGT_SES, B_TGT_PDC, B_ACCTS
};

/* The account charged now, and the bytes held by each. */
extern enum b_acct b_acct;
extern int64_t b_bytes[B_ACCTS];

/* Makes |a| the account charged; returns the one before. */
static inline enum b_acct b_enter(enum b_acct a)
{
	enum b_acct old = b_acct;

	b_acct = a;
	return old;
}

/* Bytes of the heap in use by glibc's own count (mallinfo2), all of it. */
int64_t b_heap_in_use(void);

#endif /* BENCH_SCALE_H */
