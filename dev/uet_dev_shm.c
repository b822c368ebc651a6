/* SPDX-License-Identifier: BSD-2-Clause */
/* The shared control block of an interface's endpoints (uet_dev_shm.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "dev/uet_dev_shm.h"

int uet_dev_shm_init(struct uet_dev_shm *s, uint32_t max_eps,
		     uint32_t tx_chunks)
{
	pthread_mutexattr_t a;
	int ret;

	memset(s, 0, uet_dev_shm_len(max_eps, tx_chunks));
	s->max_eps = max_eps;
	s->tx_chunks = tx_chunks;
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
