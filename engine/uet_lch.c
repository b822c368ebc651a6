/* SPDX-License-Identifier: BSD-2-Clause */
/* Local channels' inboxes and rings (uet_lch.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/uet_lch.h"

int uet_lch_inbox_create(uint32_t ep, uint64_t nonce, int *fd,
			 struct uet_lch_inbox **inbox)
{
	struct uet_lch_inbox *in;
	int f = memfd_create("uet-inbox", MFD_CLOEXEC);

	if (f < 0)
		return -errno;
	/* Sparse: a ring's pages exist once a writer touches them. */
	if (ftruncate(f, sizeof(*in)) < 0)
		goto fail;
	in = mmap(NULL, sizeof(*in), PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	if (in == MAP_FAILED)
		goto fail;
	in->owner_ep = ep;
	in->owner_pid = (uint32_t)getpid();
	in->nonce = nonce;
	in->version = UET_LCH_VERSION;
	atomic_thread_fence(memory_order_release);
	in->magic = UET_LCH_MAGIC;
	*fd = f;
	*inbox = in;
	return 0;
fail:
	{
		int err = -errno;

		close(f);
		return err;
	}
}

int uet_lch_inbox_map(pid_t pid, int fd, uint32_t ep, uint64_t nonce,
		      struct uet_lch_inbox **inbox)
{
	struct uet_lch_inbox *in;
	char path[64];
	struct stat st;
	int f, err;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	f = open(path, O_RDWR | O_CLOEXEC);
	if (f < 0)
		return -errno;
	if (fstat(f, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size != sizeof(*in)) {
		close(f);
		return -EPROTO;
	}
	in = mmap(NULL, sizeof(*in), PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	err = in == MAP_FAILED ? -errno : 0;
	close(f);
	if (err)
		return err;
	if (in->magic != UET_LCH_MAGIC || in->version != UET_LCH_VERSION ||
	    in->owner_ep != ep || in->nonce != nonce ||
	    in->owner_pid != (uint32_t)pid) {
		munmap(in, sizeof(*in));
		return -EPROTO;
	}
	*inbox = in;
	return 0;
}

void uet_lch_inbox_unmap(struct uet_lch_inbox *inbox)
{
	if (inbox)
		munmap(inbox, sizeof(*inbox));
}

void *uet_lch_reserve(struct uet_lch_ring *r, uint32_t len)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	uint32_t off = (uint32_t)(head % UET_LCH_RING_BYTES);
	uint32_t end = UET_LCH_RING_BYTES - off;
	uint64_t room = UET_LCH_RING_BYTES - (head - tail);

	if (len > UET_LCH_REC_MAX)
		return NULL;
	if (end >= len)
		return room >= len ? r->data + off : NULL;
	/* The record does not fit before the end: pad to it, start over. */
	if (room < (uint64_t)end + len)
		return NULL;
	{
		struct uet_lch_rec pad = { .len = end, .type = UET_LCH_PAD };

		memcpy(r->data + off, &pad, sizeof(pad));
		atomic_store_explicit(&r->head, head + end,
				      memory_order_release);
	}
	return r->data;
}

bool uet_lch_room(struct uet_lch_ring *r, uint32_t len)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	uint32_t end = UET_LCH_RING_BYTES -
		       (uint32_t)(head % UET_LCH_RING_BYTES);
	uint64_t room = UET_LCH_RING_BYTES - (head - tail);

	return len <= UET_LCH_REC_MAX &&
	       room >= (end >= len ? len : (uint64_t)end + len);
}

void uet_lch_publish(struct uet_lch_ring *r, uint32_t len)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);

	atomic_store_explicit(&r->head, head + len, memory_order_release);
}

const uint8_t *uet_lch_peek(struct uet_lch_ring *r, struct uet_lch_rec *rec,
			    bool *broken)
{
	for (;;) {
		uint64_t head = atomic_load_explicit(&r->head,
						     memory_order_acquire);
		uint64_t tail = atomic_load_explicit(&r->tail,
						     memory_order_relaxed);
		uint64_t avail = head - tail;
		uint32_t off = (uint32_t)(tail % UET_LCH_RING_BYTES);
		const uint8_t *p = r->data + off;

		*broken = false;
		if (!avail)
			return NULL;
		if (avail > UET_LCH_RING_BYTES || off % UET_LCH_ALIGN) {
			*broken = true;
			return NULL;
		}
		/* Judged on our copy: the writer may change the ring's. */
		memcpy(rec, p, sizeof(*rec));
		if (rec->len < sizeof(*rec) || rec->len % UET_LCH_ALIGN ||
		    rec->len > avail || rec->len > UET_LCH_RING_BYTES - off ||
		    !rec->type || rec->type >= UET_LCH_TYPE_MAX) {
			*broken = true;
			return NULL;
		}
		if (rec->type != UET_LCH_PAD) {
			if ((uint64_t)sizeof(*rec) + rec->hdr_len +
			    rec->pay_len > rec->len) {
				*broken = true;
				return NULL;
			}
			return p;
		}
		if (rec->len != UET_LCH_RING_BYTES - off) {
			*broken = true;
			return NULL;
		}
		atomic_store_explicit(&r->tail, tail + rec->len,
				      memory_order_release);
	}
}

void uet_lch_consume(struct uet_lch_ring *r, const struct uet_lch_rec *rec)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	atomic_store_explicit(&r->tail, tail + rec->len, memory_order_release);
}
