/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What an engine publishes for `uetctl top` (uet_dev_ep_pub, in
 * dev/uet_dev_shm.c): a reader gets whole samples only. A writer thread
 * publishes samples whose every word is the same number, as fast as it
 * can, while the reader checks that no copy mixes two of them.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "dev/uet_dev_shm.h"

#define T_WORDS (sizeof(struct uet_dev_ep_counters) / sizeof(uint64_t))

struct t_pub {
	struct uet_dev_ep_pub pub;
	atomic_bool stop;
	uint64_t written;
};

static void t_fill(struct uet_dev_ep_counters *c, uint64_t v)
{
	uint64_t *w = (uint64_t *)c;

	for (size_t i = 0; i < T_WORDS; i++)
		w[i] = v;
}

/* The word of a sample all of whose words agree, or ~0 if they do not. */
static uint64_t t_whole(const struct uet_dev_ep_counters *c)
{
	const uint64_t *w = (const uint64_t *)c;

	for (size_t i = 1; i < T_WORDS; i++)
		if (w[i] != w[0])
			return ~0ull;
	return w[0];
}

static void *t_writer(void *arg)
{
	struct t_pub *t = arg;
	struct uet_dev_ep_counters c;

	for (uint64_t v = 1; !atomic_load(&t->stop); v++) {
		t_fill(&c, v);
		uet_dev_pub_write(&t->pub, &c);
		t->written = v;
	}
	return NULL;
}

Test(dev_pub, reads_what_was_written)
{
	struct uet_dev_ep_pub pub = { 0 };
	struct uet_dev_ep_counters in, out;

	for (size_t i = 0; i < T_WORDS; i++)
		((uint64_t *)&in)[i] = 0x31F2F3F4F5F6F700ull + i;
	uet_dev_pub_write(&pub, &in);
	cr_assert_eq(pub.seq, 2, "one write: the sequence is even again");
	cr_assert(uet_dev_pub_read(&pub, &out));
	cr_assert_eq(memcmp(&in, &out, sizeof(in)), 0);
}

Test(dev_pub, refuses_a_sample_being_written)
{
	struct uet_dev_ep_pub pub = { .seq = 3 };	/* a writer is at it */
	struct uet_dev_ep_counters out;

	cr_assert_not(uet_dev_pub_read(&pub, &out));
}

Test(dev_pub, never_mixes_two_samples, .timeout = 30)
{
	static struct t_pub t;
	struct uet_dev_ep_counters out;
	uint64_t last = 0, reads = 0, fails = 0;
	pthread_t th;

	memset(&t, 0, sizeof(t));
	cr_assert_eq(pthread_create(&th, NULL, t_writer, &t), 0);
	/* Bounded in count; the writer runs on the other core meanwhile. */
	for (int i = 0; i < 2000000; i++) {
		uint64_t v;

		if (!uet_dev_pub_read(&t.pub, &out)) {
			fails++;
			continue;
		}
		v = t_whole(&out);
		cr_assert_neq(v, ~0ull, "a torn sample (read %llu)",
			      (unsigned long long)reads);
		cr_assert_geq(v, last, "samples went back in time");
		last = v;
		reads++;
	}
	atomic_store(&t.stop, true);
	pthread_join(th, NULL);
	cr_assert_gt(reads, 0);
	cr_assert_gt(last, 0, "the reader saw the writer's samples");
	cr_log_info("dev_pub: %llu reads, %llu refused, %llu written",
		    (unsigned long long)reads, (unsigned long long)fails,
		    (unsigned long long)t.written);
}
