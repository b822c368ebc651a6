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

int uet_lch_inbox_create(uint32_t ep, uint32_t rings, uint64_t nonce,
			 int *fd, struct uet_lch_inbox **inbox)
{
	size_t len = uet_lch_inbox_len(rings);
	struct uet_lch_inbox *in;
	int f;

	if (!rings || rings > UET_LCH_RINGS || ep >= rings)
		return -EINVAL;
	f = memfd_create("uet-inbox", MFD_CLOEXEC);
	if (f < 0)
		return -errno;
	/* Sparse: a ring's pages exist once a writer touches them. */
	if (ftruncate(f, (off_t)len) < 0)
		goto fail;
	in = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	if (in == MAP_FAILED)
		goto fail;
	in->owner_ep = ep;
	in->rings = rings;
	in->ring_bytes = uet_lch_ring_bytes(rings);
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

int uet_lch_inbox_map(pid_t pid, int fd, uint32_t ep, uint32_t rings,
		      uint64_t nonce, struct uet_lch_inbox **inbox)
{
	size_t len = uet_lch_inbox_len(rings);
	struct uet_lch_inbox *in;
	char path[64];
	struct stat st;
	int f, err;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	f = open(path, O_RDWR | O_CLOEXEC);
	if (f < 0)
		return -errno;
	if (fstat(f, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size != len) {
		close(f);
		return -EPROTO;
	}
	in = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	err = in == MAP_FAILED ? -errno : 0;
	close(f);
	if (err)
		return err;
	if (in->magic != UET_LCH_MAGIC || in->version != UET_LCH_VERSION ||
	    in->owner_ep != ep || in->nonce != nonce || in->rings != rings ||
	    in->ring_bytes != uet_lch_ring_bytes(rings) ||
	    in->owner_pid != (uint32_t)pid) {
		munmap(in, len);
		return -EPROTO;
	}
	*inbox = in;
	return 0;
}

void uet_lch_inbox_unmap(struct uet_lch_inbox *inbox, uint32_t rings)
{
	if (inbox)
		munmap(inbox, uet_lch_inbox_len(rings));
}

void uet_lch_writer_take(struct uet_lch_writer *w, struct uet_lch_ring *r,
			 uint32_t size, uint64_t key)
{
	w->r = r;
	w->size = size;
	w->head = atomic_load_explicit(&r->head, memory_order_relaxed);
	/* A position on a line: what a dead writer left may be anything. */
	w->head = (w->head + UET_LCH_ALIGN - 1) & ~(uint64_t)(UET_LCH_ALIGN - 1);
	w->tail = w->head;	/* the reader starts over at |start| */
	w->key = key;
	r->start = w->head;
	r->key = key;
	r->writer_pid = (uint32_t)getpid();
	atomic_store_explicit(&r->head, w->head, memory_order_relaxed);
	w->gen = atomic_fetch_add_explicit(&r->gen, 1, memory_order_release) + 1;
}

/* Room for |need| bytes, reading the reader's position only when short. */
static bool uet_lch_has(struct uet_lch_writer *w, uint64_t need)
{
	if (w->size - (w->head - w->tail) >= need)
		return true;
	w->tail = atomic_load_explicit(&w->r->tail, memory_order_acquire);
	/* A reader behind |start| has not followed the takeover yet. */
	if (w->tail > w->head || w->head - w->tail > w->size)
		return false;
	return w->size - (w->head - w->tail) >= need;
}

bool uet_lch_room(struct uet_lch_writer *w, uint32_t len)
{
	uint32_t end = w->size - (uint32_t)(w->head & (w->size - 1));

	return len <= UET_LCH_REC_MAX(w->size) &&
	       uet_lch_has(w, end >= len ? len : (uint64_t)end + len);
}

void *uet_lch_reserve(struct uet_lch_writer *w, uint32_t len)
{
	uint32_t off = (uint32_t)(w->head & (w->size - 1));
	uint32_t end = w->size - off;

	if (len > UET_LCH_REC_MAX(w->size))
		return NULL;
	if (end >= len)
		return uet_lch_has(w, len) ? w->r->data + off : NULL;
	/* The record does not fit before the end: pad to it, start over. */
	if (!uet_lch_has(w, (uint64_t)end + len))
		return NULL;
	{
		struct uet_lch_rec *pad = (struct uet_lch_rec *)(w->r->data + off);

		pad->len = end;
		pad->type = UET_LCH_PAD;
		uet_lch_publish(w, pad, end);
	}
	return w->r->data;
}

void uet_lch_publish(struct uet_lch_writer *w, void *rec, uint32_t len)
{
	struct uet_lch_rec *h = rec;

	atomic_store_explicit(&h->stamp, w->head ^ w->key,
			      memory_order_release);
	w->head += len;
	atomic_store_explicit(&w->r->head, w->head, memory_order_relaxed);
}

bool uet_lch_reader_sync(struct uet_lch_reader *rd, struct uet_lch_ring *r)
{
	uint32_t gen = atomic_load_explicit(&r->gen, memory_order_acquire);

	if (gen == rd->gen)
		return false;
	rd->gen = gen;
	rd->key = r->key;
	rd->tail = r->start;
	atomic_store_explicit(&r->tail, rd->tail, memory_order_release);
	return true;
}

const uint8_t *uet_lch_peek(struct uet_lch_reader *rd, struct uet_lch_ring *r,
			    struct uet_lch_rec *rec, bool *broken)
{
	*broken = false;
	for (;;) {
		uint32_t off = (uint32_t)(rd->tail & (rd->size - 1));
		const uint8_t *p = r->data + off;
		const struct uet_lch_rec *h = (const struct uet_lch_rec *)p;

		if (off % UET_LCH_ALIGN) {
			*broken = true;
			return NULL;
		}
		if (atomic_load_explicit(&h->stamp, memory_order_acquire) !=
		    (rd->tail ^ rd->key))
			return NULL;
		/* Judged on our copy: the writer may change the ring's. */
		memcpy(rec, p, sizeof(*rec));
		if (rec->len < sizeof(*rec) || rec->len % UET_LCH_ALIGN ||
		    rec->len > rd->size - off ||
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
		if (rec->len != rd->size - off) {
			*broken = true;
			return NULL;
		}
		uet_lch_consume(rd, r, rec);
	}
}

void uet_lch_consume(struct uet_lch_reader *rd, struct uet_lch_ring *r,
		     const struct uet_lch_rec *rec)
{
	rd->tail += rec->len;
	atomic_store_explicit(&r->tail, rd->tail, memory_order_release);
}
