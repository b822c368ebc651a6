/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Local channels' inboxes and rings (engine/uet_lch.h): an inbox maps
 * only as the inbox it claims to be; records come out as they went in,
 * in order, across the ring's end and between two threads; a new writer
 * takes the ring over and what its predecessor left unread is dropped; a
 * ring that holds what no writer of ours writes is found broken, and the
 * reader never returns a record outside the ring.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/uet_lch.h"

/* The rings here: those of an interface of up to 64 indices. */
#define T_SIZE		UET_LCH_RING_BYTES
#define T_RING_LEN	(sizeof(struct uet_lch_ring) + T_SIZE)

static struct uet_lch_ring *t_ring(void)
{
	struct uet_lch_ring *r = mmap(NULL, T_RING_LEN, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert(r != MAP_FAILED);
	return r;
}

/* Writes a record of |pay| bytes numbered |n| (payload bytes n + i). */
static bool t_put(struct uet_lch_writer *w, uint32_t n, uint32_t pay)
{
	uint32_t len = uet_lch_rec_len(4, pay);
	struct uet_lch_rec rec = { .len = len, .type = UET_LCH_REQ, .seq = n,
				   .hdr_len = 4, .pay_len = pay };
	bool room = uet_lch_room(w, len);
	uint8_t *b = uet_lch_reserve(w, len);

	/* A reader only makes room: room() said yes, reserve() must. */
	if (room && !b)
		abort();
	if (!b)
		return false;
	memcpy(b, &rec, sizeof(rec));
	memcpy(b + sizeof(rec), &n, 4);
	for (uint32_t i = 0; i < pay; i++)
		b[sizeof(rec) + 4 + i] = (uint8_t)(n + i);
	uet_lch_publish(w, b, len);
	return true;
}

/* Reads one record and checks it is number |n| of |pay| bytes. */
static bool t_get(struct uet_lch_reader *rd, struct uet_lch_ring *r,
		  uint32_t n, uint32_t pay)
{
	struct uet_lch_rec rec;
	bool broken;
	const uint8_t *p = uet_lch_peek(rd, r, &rec, &broken);
	uint32_t got;

	cr_assert(!broken, "record %u: ring broken", n);
	if (!p)
		return false;
	cr_assert(p >= r->data && p + rec.len <= r->data + T_SIZE);
	cr_assert_eq(rec.seq, n);
	cr_assert_eq(rec.pay_len, pay, "record %u: %u bytes, want %u", n,
		     rec.pay_len, pay);
	memcpy(&got, p + sizeof(rec), 4);
	cr_assert_eq(got, n);
	for (uint32_t i = 0; i < pay; i++)
		cr_assert_eq(p[sizeof(rec) + 4 + i], (uint8_t)(n + i));
	uet_lch_consume(rd, r, &rec);
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

	cr_assert_eq(uet_lch_inbox_create(5, 8, 0x1234, &fd, &in), 0);
	cr_assert_eq(uet_lch_inbox_map(getpid(), fd, 5, 8, 0x1234, &m), 0);
	cr_assert_eq(m->owner_ep, 5u);
	/* One mapping's writes are the other's. */
	__atomic_store_n(&m->sleeping, 1, __ATOMIC_SEQ_CST);
	cr_assert_eq(__atomic_load_n(&in->sleeping, __ATOMIC_SEQ_CST), 1u);
	uet_lch_inbox_unmap(m, 8);
	cr_assert_eq(uet_lch_inbox_map(getpid(), fd, 5, 9, 0x1234, &m), -EPROTO,
		     "another interface's count of rings");
	cr_assert_eq(uet_lch_inbox_map(getpid(), fd, 6, 8, 0x1234, &m),
		     -EPROTO);
	cr_assert_eq(uet_lch_inbox_map(getpid(), fd, 5, 8, 0x1235, &m),
		     -EPROTO);
	cr_assert_eq(uet_lch_inbox_map(getpid(), 0, 5, 8, 0x1234, &m), -EPROTO,
		     "stdin is no inbox");
	cr_assert_eq(uet_lch_inbox_map(getpid(), 999, 5, 8, 0x1234,
				       &m),
		     -ENOENT);
	uet_lch_inbox_unmap(in, 8);
	close(fd);
}

Test(lch, records_in_order_across_the_end)
{
	struct uet_lch_ring *r = t_ring();
	struct uet_lch_writer w;
	struct uet_lch_reader rd = { .size = T_SIZE };
	uint32_t n = 0, got = 0;

	uet_lch_writer_take(&w, r, T_SIZE, 0xABCDEF);
	cr_assert(!uet_lch_pending(&rd, r) == false, "a new writer shows");
	cr_assert(uet_lch_reader_sync(&rd, r));
	cr_assert(!uet_lch_pending(&rd, r));
	/* Many laps; the writer runs ahead until full, then the reader. */
	while (got < 20000) {
		while (n < 20000 && t_put(&w, n, t_size(n)))
			n++;
		cr_assert(n > got, "a ring with room refused record %u", n);
		cr_assert(uet_lch_pending(&rd, r));
		for (int k = 0; k < 7 && got < n; k++, got++)
			cr_assert(t_get(&rd, r, got, t_size(got)));
	}
	cr_assert(!t_get(&rd, r, got, 0), "nothing more");
	cr_assert(!uet_lch_pending(&rd, r));
	munmap(r, T_RING_LEN);
}

Test(lch, full_ring_refuses_and_oversized_never_fit)
{
	struct uet_lch_ring *r = t_ring();
	struct uet_lch_writer w;
	struct uet_lch_reader rd = { .size = T_SIZE };
	uint32_t n = 0;

	uet_lch_writer_take(&w, r, T_SIZE, 77);
	uet_lch_reader_sync(&rd, r);
	while (t_put(&w, n, 1000))
		n++;
	cr_assert(!uet_lch_room(&w, uet_lch_rec_len(4, 1000)));
	cr_assert_eq(n, T_SIZE / uet_lch_rec_len(4, 1000));
	cr_assert_null(uet_lch_reserve(&w, UET_LCH_REC_MAX(T_SIZE) +
					  UET_LCH_ALIGN));
	cr_assert(t_get(&rd, r, 0, 1000));
	cr_assert(t_put(&w, n, 1000), "room again once one is read");
	munmap(r, T_RING_LEN);
}

Test(lch, a_new_writer_takes_over)
{
	struct uet_lch_ring *r = t_ring();
	struct uet_lch_writer w1, w2;
	struct uet_lch_reader rd = { .size = T_SIZE };

	uet_lch_writer_take(&w1, r, T_SIZE, 1111);
	uet_lch_reader_sync(&rd, r);
	for (uint32_t n = 0; n < 10; n++)
		cr_assert(t_put(&w1, n, 100));
	cr_assert(t_get(&rd, r, 0, 100));
	/* w1's process dies with 9 unread; another takes its index. */
	uet_lch_writer_take(&w2, r, T_SIZE, 2222);
	cr_assert(t_put(&w2, 500, 50));
	cr_assert(uet_lch_pending(&rd, r));
	cr_assert(uet_lch_reader_sync(&rd, r), "the reader sees the new one");
	cr_assert(t_get(&rd, r, 500, 50), "its first record, none of w1's");
	cr_assert(!uet_lch_pending(&rd, r));
	/* The whole ring is the new writer's. */
	for (uint32_t n = 0; n < 200; n++) {
		cr_assert(t_put(&w2, n, 3000));
		cr_assert(t_get(&rd, r, n, 3000));
	}
	munmap(r, T_RING_LEN);
}

struct t_pair {
	struct uet_lch_writer w;
	uint32_t count;
};

static void *t_writer(void *arg)
{
	struct t_pair *tp = arg;

	for (uint32_t n = 0; n < tp->count; n++)
		while (!t_put(&tp->w, n, t_size(n)))
			;
	return NULL;
}

Test(lch, two_threads)
{
	struct uet_lch_ring *r = t_ring();
	struct t_pair tp = { .count = 100000 };
	struct uet_lch_reader rd = { .size = T_SIZE };
	pthread_t th;
	uint32_t n = 0;

	uet_lch_writer_take(&tp.w, r, T_SIZE, 99);
	uet_lch_reader_sync(&rd, r);
	cr_assert_eq(pthread_create(&th, NULL, t_writer, &tp), 0);
	while (n < tp.count)
		if (t_get(&rd, r, n, t_size(n)))
			n++;
	pthread_join(th, NULL);
	munmap(r, T_RING_LEN);
}

/* A record header |rec| at the ring's start, stamped as the first. */
static bool t_broken_by(struct uet_lch_rec rec)
{
	struct uet_lch_ring *r = t_ring();
	struct uet_lch_reader rd = { .size = T_SIZE, .key = 5 };
	struct uet_lch_rec got;
	bool broken;
	const uint8_t *p;

	rec.stamp = 0 ^ 5;
	memcpy(r->data, &rec, sizeof(rec));
	p = uet_lch_peek(&rd, r, &got, &broken);
	munmap(r, T_RING_LEN);
	return broken && !p;
}

Test(lch, what_no_writer_writes_breaks_the_ring)
{
	struct uet_lch_rec ok = { .len = 128, .type = UET_LCH_REQ,
				  .hdr_len = 40, .pay_len = 40 };
	struct uet_lch_rec b;

	cr_assert(!t_broken_by(ok), "a good record");
	b = ok, b.len = 100;
	cr_assert(t_broken_by(b), "length not on a line");
	b = ok, b.len = 0;
	cr_assert(t_broken_by(b), "length 0");
	b = ok, b.type = 0;
	cr_assert(t_broken_by(b), "type 0");
	b = ok, b.type = 200;
	cr_assert(t_broken_by(b), "unknown type");
	b = ok, b.pay_len = 0xFFFFFFF0u;
	cr_assert(t_broken_by(b), "payload past the record");
	b = ok, b.hdr_len = 0xFFFF;
	cr_assert(t_broken_by(b), "header past the record");
	b = ok, b.type = UET_LCH_PAD;
	cr_assert(t_broken_by(b), "a pad that does not reach the end");
	b = ok, b.len = T_SIZE + 64;
	cr_assert(t_broken_by(b), "longer than the ring");
}

Test(lch, stale_and_unstamped_lines_are_not_records)
{
	struct uet_lch_ring *r = t_ring();
	struct uet_lch_writer w;
	struct uet_lch_reader rd = { .size = T_SIZE };
	struct uet_lch_rec rec;
	bool broken;

	uet_lch_writer_take(&w, r, T_SIZE, 4242);
	uet_lch_reader_sync(&rd, r);
	/* Written but not published: not there yet. */
	cr_assert_not_null(uet_lch_reserve(&w, 128));
	memset(r->data, 0x5A, 128);
	cr_assert_null(uet_lch_peek(&rd, r, &rec, &broken));
	cr_assert(!broken);
	cr_assert(!uet_lch_pending(&rd, r));
	/* A whole lap's record where the next should be: not ours. */
	((struct uet_lch_rec *)r->data)->stamp =
		(T_SIZE ^ 4242);
	cr_assert(!uet_lch_pending(&rd, r));
	cr_assert_null(uet_lch_peek(&rd, r, &rec, &broken));
	munmap(r, T_RING_LEN);
}

Test(lch, garbage_never_reads_outside)
{
	struct uet_lch_ring *r = t_ring();
	uint32_t seed = 7;

	for (int round = 0; round < 20000; round++) {
		struct uet_lch_reader rd;
		struct uet_lch_rec rec;
		const uint8_t *p;
		bool broken;

		/* Random words at random lines, stamped where we look. */
		seed = seed * 1103515245u + 12345u;
		rd = (struct uet_lch_reader){ .size = T_SIZE,
					      .tail = (uint64_t)(seed % 4096) *
						      64, .key = seed };
		for (int k = 0; k < 64; k++) {
			uint32_t off = (uint32_t)(rd.tail % T_SIZE);
			struct uet_lch_rec *h = (struct uet_lch_rec *)
						(r->data + off);

			seed = seed * 1103515245u + 12345u;
			memset(h, (int)(seed & 0xFF), sizeof(*h));
			h->len = seed % 3 ? (seed >> 8) % 2048 : seed;
			h->type = (uint8_t)(seed % 9);
			h->stamp = rd.tail ^ rd.key;
			p = uet_lch_peek(&rd, r, &rec, &broken);
			if (!p)
				break;
			cr_assert(p >= r->data &&
				  p + rec.len <= r->data + T_SIZE);
			cr_assert(sizeof(rec) + rec.hdr_len + rec.pay_len <=
				  rec.len);
			uet_lch_consume(&rd, r, &rec);
		}
	}
	munmap(r, T_RING_LEN);
}

/*
 * An interface of 301 indices (uetctl load --endpoints 300): rings of
 * 64 KiB, each at its own place in the inbox, the last one as good as the
 * first: records of up to a packet of 8 KiB go round it in order.
 */
Test(lch, rings_by_index_count)
{
	const uint32_t rings = 301, size = uet_lch_ring_bytes(rings);
	struct uet_lch_inbox *in, *m;
	struct uet_lch_ring *r, *r0;
	struct uet_lch_writer w;
	struct uet_lch_reader rd = { .size = size };
	uint32_t n = 0, got = 0;
	int fd;

	cr_assert_eq(uet_lch_ring_bytes(32), 256u * 1024, "the default");
	cr_assert_eq(uet_lch_ring_bytes(64), 256u * 1024);
	cr_assert_eq(uet_lch_ring_bytes(128), 128u * 1024);
	cr_assert_eq(size, 64u * 1024);
	cr_assert_eq(uet_lch_ring_bytes(512), 64u * 1024, "never below");
	cr_assert_leq(uet_lch_rec_len(64, 8192), UET_LCH_REC_MAX(size),
		      "a packet of 8 KiB fits");
	cr_assert_eq(uet_lch_inbox_create(7, rings, 0x77, &fd, &in), 0);
	cr_assert_eq(in->ring_bytes, size);
	cr_assert_eq(uet_lch_inbox_map(getpid(), fd, 7, rings, 0x77, &m), 0);
	r0 = uet_lch_ring_at(m, rings, 0);
	r = uet_lch_ring_at(m, rings, rings - 1);
	cr_assert_eq((uint8_t *)r - (uint8_t *)r0,
		     (rings - 1) * (sizeof(*r) + size));
	cr_assert_leq((uint8_t *)r + sizeof(*r) + size,
		      (uint8_t *)m + uet_lch_inbox_len(rings));
	uet_lch_active_set(m, rings - 1);
	cr_assert_eq(atomic_load(&in->active[(rings - 1) / 64]),
		     1ull << ((rings - 1) % 64), "the owner sees it");
	uet_lch_writer_take(&w, r, size, 0x300);
	r = uet_lch_ring_at(in, rings, rings - 1);	/* the owner's view */
	cr_assert(uet_lch_reader_sync(&rd, r));
	while (got < 3000) {
		while (n < 3000 && t_put(&w, n, n % 7 ? n % 300 : 8192))
			n++;
		cr_assert(n > got, "a ring with room refused record %u", n);
		for (int k = 0; k < 5 && got < n; k++, got++) {
			struct uet_lch_rec rec;
			bool broken;
			const uint8_t *p = uet_lch_peek(&rd, r, &rec, &broken);

			cr_assert(p && !broken, "record %u", got);
			cr_assert(p >= r->data &&
				  p + rec.len <= r->data + size);
			cr_assert_eq(rec.seq, got);
			cr_assert_eq(rec.pay_len, got % 7 ? got % 300 : 8192);
			uet_lch_consume(&rd, r, &rec);
		}
	}
	uet_lch_inbox_unmap(m, rings);
	uet_lch_inbox_unmap(in, rings);
	close(fd);
}
