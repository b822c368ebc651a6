/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sleeping and being woken (issue 41; uet_engine_sleep in uet_engine.h).
 * What comes for an idle endpoint wakes one of its fds, so that nothing
 * needs to look again on a timer: frames on the wire its socket; frames
 * through shared memory (its local ring in the control block, its local
 * channels' inbox) the wake socket, which their writers send to while we
 * sleep (dev/uet_dev_wake.h); the service going away the service's
 * connection, which then reads end-of-file. Timers are the engine's own
 * (uet_engine_next_timeout_ns), a reattach's among them.
 */
#include <errno.h>
#include <sys/random.h>
#include <unistd.h>

#include "dev/uet_dev_shm.h"
#include "dev/uet_dev_wake.h"
#include "engine/uet_engine_local.h"
#include "engine/uet_engine_priv.h"

int uet_engine_wake_setup(struct uet_engine *e)
{
	struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);
	int fd;

	if (!shm)
		return 0;
	if (getrandom(&e->wake_nonce, sizeof(e->wake_nonce), 0) !=
	    sizeof(e->wake_nonce) || !e->wake_nonce)
		e->wake_nonce = (uint64_t)getpid() << 32 |
				(uint64_t)e->ep_index << 16 | 1;
	fd = uet_dev_wake_open(e->wake_nonce);
	if (fd < 0)
		return fd;
	e->wake_fd = fd;
	if (uet_dev_shm_lock(shm) == 0) {
		shm->slot[e->ep_index].wake_nonce = e->wake_nonce;
		uet_dev_shm_unlock(shm);
	}
	return 0;
}

void uet_engine_wake_destroy(struct uet_engine *e)
{
	struct uet_dev_shm *shm;

	if (e->wake_fd < 0)
		return;
	shm = uet_xsk_shm(e->xsk);
	if (shm && uet_dev_shm_lock(shm) == 0) {
		if (shm->slot[e->ep_index].wake_nonce == e->wake_nonce)
			shm->slot[e->ep_index].wake_nonce = 0;
		uet_dev_shm_unlock(shm);
	}
	close(e->wake_fd);
	e->wake_fd = -1;
}

int uet_engine_wake_fd(const struct uet_engine *e)
{
	return e->wake_fd;
}

int uet_engine_svc_fd(const struct uet_engine *e)
{
	return e->dev.conn;
}

void uet_engine_svc_poke(struct uet_engine *e)
{
	e->svc_ns = 0;
	e->tick_ns = 0;
}

/*
 * The flags up (again: a writer that took one since must see it set) and
 * a last look at what they guard. False: something waits already.
 */
static bool uet_engine_flags_up(struct uet_engine *e)
{
	struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);
	bool local_idle;

	uet_dev_wake_arm(&shm->slot[e->ep_index].sleeping);
	/* Both flags set before either place is looked at again. */
	local_idle = uet_engine_local_sleep(e);
	return local_idle && uet_xsk_rx_idle(e->xsk);
}

/*
 * Once nobody relies on them, the flags down; and what writers sent
 * read: a writer that took a flag before an earlier sleep ended may send
 * after we read then, and an unread datagram would wake every later
 * sleep at once.
 */
static void uet_engine_flags_down(struct uet_engine *e)
{
	struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);

	if (!e->sleepers && !e->app_asleep) {
		uet_dev_wake_disarm(&shm->slot[e->ep_index].sleeping);
		uet_engine_local_woke(e);
	}
	uet_dev_wake_drain(e->wake_fd);
}

/*
 * Both threads of a process (the application's, the progress thread) may
 * sleep on one engine at once: each sleep counts, so that the first one
 * up does not take down the flags the other sleeps on.
 */
bool uet_engine_sleep(struct uet_engine *e)
{
	if (e->wake_fd < 0)
		return true;
	e->sleepers++;
	if (!uet_engine_flags_up(e)) {
		uet_engine_woke(e);
		return false;
	}
	return true;
}

void uet_engine_woke(struct uet_engine *e)
{
	if (e->wake_fd < 0 || !e->sleepers)
		return;
	e->sleepers--;
	uet_engine_flags_down(e);
}

bool uet_engine_sleep_app(struct uet_engine *e)
{
	if (e->wake_fd < 0)
		return true;
	e->app_asleep = true;
	if (!uet_engine_flags_up(e)) {
		uet_engine_app_back(e);
		return false;
	}
	return true;
}

void uet_engine_app_back(struct uet_engine *e)
{
	if (!e->app_asleep)
		return;
	e->app_asleep = false;
	uet_engine_flags_down(e);
}
