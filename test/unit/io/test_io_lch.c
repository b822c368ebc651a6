/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Local channels' inboxes and rings (engine/uet_lch.h): an inbox maps
 * only as the inbox it claims to be; records come out as they went in,
 * in order, across the ring's end and between two threads; a ring that
 * holds what no writer of ours writes is found broken, and the reader
 * never returns a record outside the ring.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/uet_lch.h"

static struct uet_lch_ring *t_ring(void)
{
	struct uet_lch_ring *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert(r != MAP_FAILED);
	return r;
}

/* Writes a record of |pay| bytes numbered |n| (payload bytes n + i). */
static bool t_put(struct uet_lch_ring *r, uint32_t n, uint32_t pay)
{
	uint32_t len = uet_lch_rec_len(4, pay);
	struct uet_lch_rec rec = { .len = len, .type = UET_LCH_REQ, .seq = n,
				   .hdr_len = 4, .pay_len = pay };
	bool room = uet_lch_room(r, len);
	uint8_t *b = uet_lch_reserve(r, len);

	/* A reader only makes room: room() said yes, reserve() must. */
	if (room && !b)
		abort();
	if (!b)
		return false;
	memcpy(b, &rec, sizeof(rec));
	memcpy(b + sizeof(rec), &n, 4);
	for (uint32_t i = 0; i < pay; i++)
		b[sizeof(rec) + 4 + i] = (uint8_t)(n + i);
	uet_lch_publish(r, len);
	return true;
}

/* Reads one record and checks it is number |n| of |pay| bytes. */
static bool t_get(struct uet_lch_ring *r, uint32_t n, uint32_t pay)
{
	struct uet_lch_rec rec;
	bool broken;
	const uint8_t *p = uet_lch_peek(r, &rec, &broken);
	uint32_t got;

	cr_assert(!broken, "record %u: ring broken", n);
	if (!p)
		return false;
	cr_assert(p >= r->data && p + rec.len <= r->data + sizeof(r->data));
	cr_assert_eq(rec.seq, n);
	cr_assert_eq(rec.pay_len, pay, "record %u: %u bytes, want %u", n,
		     rec.pay_len, pay);
	memcpy(&got, p + sizeof(rec), 4);
	cr_assert_eq(got, n);
	for (uint32_t i = 0; i < pay; i++)
		cr_assert_eq(p[sizeof(rec) + 4 + i], (uint8_t)(n + i));
	uet_lch_consume(r, &rec);
	return true;
}

static uint32_t t_size(uint32_t n)
{
	/* Small ones, and now and then one of 8 or 60 KiB. */
	return n % 17 == 0 ? 8192 : n % 101 == 0 ? 60000 : (n * 37) % 300;
}

Test(lch, inbox_maps_only_as_itself)
{
	struct uet_lch_inbox *in, *m;
	int fd;

	cr_assert_eq(uet_lch_inbox_create(5, 0x1234, &fd, &in), 0);
	cr_assert_eq(uet_lch_inbox_map(getpid(), fd, 5, 0x1234, &m), 0);
	cr_assert_eq(m->owner_ep, 5u);
	/* One mapping's writes are the other's. */
	atomic_store(&m->sleeping, 1);
	cr_assert_eq(atomic_load(&in->sleeping), 1u);
	uet_lch_inbox_unmap(m);
	cr_assert_eq(uet_lch_inbox_map(getpid(), fd, 6, 0x1234, &m), -EPROTO);
	cr_assert_eq(uet_lch_inbox_map(getpid(), fd, 5, 0x1235, &m), -EPROTO);
	cr_assert_eq(uet_lch_inbox_map(getpid(), 0, 5, 0x1234, &m), -EPROTO,
		     "stdin is no inbox");
	cr_assert_eq(uet_lch_inbox_map(getpid(), 999, 5, 0x1234, &m),
		     -ENOENT);
	uet_lch_inbox_unmap(in);
	close(fd);
}

Test(lch, records_in_order_across_the_end)
{
	struct uet_lch_ring *r = t_ring();
	uint32_t w = 0, rd = 0;

	/* Many laps; the writer runs ahead until full, then the reader. */
	while (rd < 20000) {
		while (w < 20000 && t_put(r, w, t_size(w)))
			w++;
		cr_assert(w > rd, "a ring with room refused record %u", w);
		for (int k = 0; k < 7 && rd < w; k++, rd++)
			cr_assert(t_get(r, rd, t_size(rd)));
	}
	cr_assert(!t_get(r, rd, 0), "nothing more");
	cr_assert(!uet_lch_pending(r));
	munmap(r, sizeof(*r));
}

Test(lch, full_ring_refuses_and_oversized_never_fit)
{
	struct uet_lch_ring *r = t_ring();
	uint32_t n = 0;

	while (t_put(r, n, 1000))
		n++;
	cr_assert(!uet_lch_room(r, uet_lch_rec_len(4, 1000)));
	cr_assert_eq(n, UET_LCH_RING_BYTES / uet_lch_rec_len(4, 1000));
	cr_assert_null(uet_lch_reserve(r, UET_LCH_REC_MAX + UET_LCH_ALIGN));
	cr_assert(t_get(r, 0, 1000));
	cr_assert(t_put(r, n, 1000), "room again once one is read");
	munmap(r, sizeof(*r));
}

struct t_pair {
	struct uet_lch_ring *r;
	uint32_t count;
};

static void *t_writer(void *arg)
{
	struct t_pair *tp = arg;

	for (uint32_t n = 0; n < tp->count; n++)
		while (!t_put(tp->r, n, t_size(n)))
			;
	return NULL;
}

Test(lch, two_threads)
{
	struct t_pair tp = { .r = t_ring(), .count = 100000 };
	pthread_t th;
	uint32_t n = 0;

	cr_assert_eq(pthread_create(&th, NULL, t_writer, &tp), 0);
	while (n < tp.count)
		if (t_get(tp.r, n, t_size(n)))
			n++;
	pthread_join(th, NULL);
	munmap(tp.r, sizeof(*tp.r));
}

/* A record header |rec| at the ring's start, published whole. */
static bool t_broken_by(const struct uet_lch_rec *rec, uint64_t head)
{
	struct uet_lch_ring *r = t_ring();
	struct uet_lch_rec got;
	bool broken;
	const uint8_t *p;

	memcpy(r->data, rec, sizeof(*rec));
	atomic_store(&r->head, head);
	p = uet_lch_peek(r, &got, &broken);
	munmap(r, sizeof(*r));
	return broken && !p;
}

Test(lch, what_no_writer_writes_breaks_the_ring)
{
	struct uet_lch_rec ok = { .len = 128, .type = UET_LCH_REQ,
				  .hdr_len = 40, .pay_len = 50 };
	struct uet_lch_rec b;

	cr_assert(!t_broken_by(&ok, 128), "a good record");
	b = ok, b.len = 100;
	cr_assert(t_broken_by(&b, 128), "length not on a line");
	b = ok, b.len = 0;
	cr_assert(t_broken_by(&b, 128), "length 0");
	b = ok;
	cr_assert(t_broken_by(&b, 64), "longer than what was published");
	b = ok, b.type = 0;
	cr_assert(t_broken_by(&b, 128), "type 0");
	b = ok, b.type = 200;
	cr_assert(t_broken_by(&b, 128), "unknown type");
	b = ok, b.pay_len = 0xFFFFFFF0u;
	cr_assert(t_broken_by(&b, 128), "payload past the record");
	b = ok, b.hdr_len = 0xFFFF;
	cr_assert(t_broken_by(&b, 128), "header past the record");
	b = ok, b.type = UET_LCH_PAD;
	cr_assert(t_broken_by(&b, 128), "a pad that does not reach the end");
	b = ok, b.len = UET_LCH_RING_BYTES + 64;
	cr_assert(t_broken_by(&b, UET_LCH_RING_BYTES + 64),
		  "more published than the ring holds");
}

Test(lch, garbage_never_reads_outside)
{
	struct uet_lch_ring *r = t_ring();
	uint32_t seed = 7;

	for (int round = 0; round < 20000; round++) {
		struct uet_lch_rec rec;
		const uint8_t *p;
		bool broken;

		/* Random words at random places, a random position pair. */
		for (int k = 0; k < 8; k++) {
			seed = seed * 1103515245u + 12345u;
			uint32_t off = (seed >> 4) % (UET_LCH_RING_BYTES - 4);

			seed = seed * 1103515245u + 12345u;
			memcpy(r->data + (off & ~63u), &seed, 4);
			if (k & 1)
				r->data[(off & ~63u) + 4] = (uint8_t)(seed % 9);
		}
		seed = seed * 1103515245u + 12345u;
		atomic_store(&r->tail, (uint64_t)(seed % 4096) * 64);
		seed = seed * 1103515245u + 12345u;
		atomic_store(&r->head, atomic_load(&r->tail) + seed % 600000);
		for (int k = 0; k < 64; k++) {
			p = uet_lch_peek(r, &rec, &broken);
			if (!p)
				break;
			cr_assert(p >= r->data &&
				  p + rec.len <= r->data + sizeof(r->data));
			cr_assert(sizeof(rec) + rec.hdr_len + rec.pay_len <=
				  rec.len);
			uet_lch_consume(r, &rec);
		}
	}
	munmap(r, sizeof(*r));
}
