/* SPDX-License-Identifier: BSD-2-Clause */
/* The shared control block of an interface's endpoints (uet_dev_shm.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <xdp/xsk.h>

#include "dev/uet_dev_shm.h"
#include "dev/uet_xsk.h"

int uet_dev_shm_init(struct uet_dev_shm *s, uint32_t max_eps,
		     uint32_t ep_bits, uint32_t tx_chunks, uint32_t rx_chunks,
		     uint32_t fill_target)
{
	pthread_mutexattr_t a;
	int ret;

	memset(s, 0, uet_dev_shm_len(max_eps, tx_chunks, rx_chunks));
	s->max_eps = max_eps;
	s->ep_bits = ep_bits;
	s->tx_chunks = tx_chunks;
	s->rx_chunks = rx_chunks;
	s->fill_target = fill_target < rx_chunks ? fill_target : rx_chunks;
	ret = pthread_mutexattr_init(&a);
	if (ret == 0)
		ret = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (ret == 0)
		ret = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (ret == 0)
		ret = pthread_mutex_init(&s->lock, &a);
	pthread_mutexattr_destroy(&a);
	if (ret)
		return -ret;
	__atomic_store_n(&s->magic, UET_DEV_SHM_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

int uet_dev_shm_lock(struct uet_dev_shm *s)
{
	int ret = pthread_mutex_lock(&s->lock);

	/*
	 * Its holder died inside a critical section. Every section publishes
	 * with single index stores (a ring's producer or consumer, a mailbox
	 * head), so what it left is consistent: at worst entries it reserved
	 * and never published, which are lost chunks, not corrupt rings.
	 */
	if (ret == EOWNERDEAD)
		ret = pthread_mutex_consistent(&s->lock);
	return -ret;
}

void uet_dev_shm_unlock(struct uet_dev_shm *s)
{
	pthread_mutex_unlock(&s->lock);
}

bool uet_dev_shm_mbox_put(struct uet_dev_shm *s, uint32_t ep, uint64_t addr)
{
	struct uet_dev_shm_slot *sl;

	if (ep >= s->max_eps)
		return false;
	sl = &s->slot[ep];
	if (sl->state != UET_DEV_SLOT_ACTIVE ||
	    sl->mbox_head - sl->mbox_tail >= s->tx_chunks) {
		s->comp_orphans++;
		return false;
	}
	uet_dev_shm_mbox(s, ep)[sl->mbox_head % s->tx_chunks] = addr;
	sl->mbox_head++;
	return true;
}

bool uet_dev_shm_fill(struct uet_dev_shm *s, struct xsk_ring_prod *fill,
		      const uint64_t *addrs, uint32_t n)
{
	uint64_t *res = uet_dev_shm_reserve(s);
	uint32_t idx = 0, level, want, to_ring, from_res, rest;

	/*
	 * Other processes produce into it too: both indices afresh (libxdp's
	 * cached ones are this process's alone). The consumer's costs a
	 * cache miss (the kernel writes it at every packet): callers come
	 * with batches.
	 */
	fill->cached_prod = __atomic_load_n(fill->producer, __ATOMIC_ACQUIRE);
	fill->cached_cons = __atomic_load_n(fill->consumer, __ATOMIC_ACQUIRE) +
			    fill->size;
	level = fill->size - (fill->cached_cons - fill->cached_prod);
	want = level < s->fill_target ? s->fill_target - level : 0;
	to_ring = n < want ? n : want;
	from_res = want - to_ring < s->reserve_cnt ? want - to_ring :
						     s->reserve_cnt;
	rest = n - to_ring;
	if (rest > s->rx_chunks - s->reserve_cnt) {
		s->fill_lost += rest - (s->rx_chunks - s->reserve_cnt);
		rest = s->rx_chunks - s->reserve_cnt;
	}
	if (to_ring + from_res &&
	    xsk_ring_prod__reserve(fill, to_ring + from_res, &idx) !=
	    to_ring + from_res) {
		s->fill_lost += n;
		return false;
	}
	for (uint32_t i = 0; i < to_ring; i++)
		*xsk_ring_prod__fill_addr(fill, idx++) = addrs[i];
	for (uint32_t i = 0; i < from_res; i++)
		*xsk_ring_prod__fill_addr(fill, idx++) =
			res[--s->reserve_cnt];
	if (to_ring + from_res)
		xsk_ring_prod__submit(fill, to_ring + from_res);
	for (uint32_t i = 0; i < rest; i++)
		res[s->reserve_cnt++] = addrs[to_ring + i];
	return to_ring + rest == n;
}

uint32_t uet_dev_shm_reap(struct uet_dev_shm *s, struct xsk_ring_cons *comp,
			  uint64_t rx_end, uint32_t self, uint64_t *pool,
			  uint32_t *pool_cnt)
{
	struct uet_dev_shm_slot *sl = &s->slot[self];
	uint64_t *mbox = uet_dev_shm_mbox(s, self);
	uint64_t span = (uint64_t)s->tx_chunks * UET_XSK_CHUNK_LEN;
	uint32_t idx = 0, n, got = 0;

	comp->cached_cons = __atomic_load_n(comp->consumer, __ATOMIC_ACQUIRE);
	comp->cached_prod = __atomic_load_n(comp->producer, __ATOMIC_ACQUIRE);
	n = xsk_ring_cons__peek(comp, comp->size, &idx);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = *xsk_ring_cons__comp_addr(comp, idx + i);

		if (a < rx_end)
			s->comp_orphans++;
		else if ((a - rx_end) / span == self)
			pool[(*pool_cnt)++] = a, got++;
		else
			uet_dev_shm_mbox_put(s, (uint32_t)((a - rx_end) / span),
					     a);
	}
	if (n)
		xsk_ring_cons__release(comp, n);
	for (; sl->mbox_tail != sl->mbox_head; sl->mbox_tail++, got++)
		pool[(*pool_cnt)++] = mbox[sl->mbox_tail % s->tx_chunks];
	return got;
}

/*
 * The sample is words written and read one by one with relaxed atomics
 * (no torn word); the sequence around them says whether they all belong
 * to one sample. The classic seqlock of C11 (Boehm, "Can seqlocks get
 * along with programming language memory models?", 2012): the writer's
 * release fence orders the odd sequence before the words, the reader's
 * acquire fence orders the words before its second look at the sequence.
 */
#define UET_DEV_PUB_WORDS (sizeof(struct uet_dev_ep_counters) / sizeof(uint64_t))

void uet_dev_pub_write(struct uet_dev_ep_pub *p,
		       const struct uet_dev_ep_counters *c)
{
	const uint64_t *src = (const uint64_t *)c;
	uint64_t *dst = (uint64_t *)&p->c;
	uint32_t seq = __atomic_load_n(&p->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&p->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (size_t i = 0; i < UET_DEV_PUB_WORDS; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
	__atomic_store_n(&p->seq, seq + 2, __ATOMIC_RELEASE);
}

/* A writer holds the sequence odd for a few stores: a few tries do. */
#define UET_DEV_PUB_TRIES	64

bool uet_dev_pub_read(const struct uet_dev_ep_pub *p,
		      struct uet_dev_ep_counters *c)
{
	const uint64_t *src = (const uint64_t *)&p->c;
	uint64_t *dst = (uint64_t *)c;

	for (int t = 0; t < UET_DEV_PUB_TRIES; t++) {
		uint32_t s1 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE), s2;

		if (s1 & 1)
			continue;
		for (size_t i = 0; i < UET_DEV_PUB_WORDS; i++)
			dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&p->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return true;
	}
	return false;
}
