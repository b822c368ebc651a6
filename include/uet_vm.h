/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tables sized by a setting (the most peers an endpoint may hold: a million
 * by choice) but used by a few dozen entries in most jobs: the address
 * space for the largest is reserved once and the kernel gives it pages as
 * entries are first written. Indices stay O(1) and pointers stable, as with
 * a fixed array, and an idle endpoint pays only for what it touched.
 * MAP_NORESERVE: the reservation is not counted against the commit limit,
 * only the pages written are.
 */
#ifndef UET_VM_H
#define UET_VM_H

#include <stddef.h>
#include <sys/mman.h>

static inline void *uet_vm_reserve(size_t len)
{
	void *p;

	if (!len)
		len = 1;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static inline void uet_vm_release(void *p, size_t len)
{
	if (p)
		munmap(p, len ? len : 1);
}

#endif /* UET_VM_H */
