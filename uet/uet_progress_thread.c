/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The domain's progress thread: the wire does not wait on the application.
 *
 * A UET NIC acknowledges, retransmits and answers reads whatever its host
 * does; a software engine runs only when called. So each domain with an
 * enabled endpoint has a thread that runs the engines whenever the
 * application has not for progress_idle_us (FI_UET_PROGRESS_IDLE_US,
 * default 100 us): a target that reads its last completion and then waits
 * on something else (fi_pingpong's own socket, a barrier, a computation)
 * still sends the ACKs it owes, before its peers' retransmit timer (at
 * least 200 us) runs out.
 *
 * While the application calls us, the thread keeps out of its way: it
 * sleeps for the idle time and looks whether any call came meanwhile
 * (a counter, no lock), doubling its nap while calls keep coming (up to
 * UET_PROG_NAP_MAX_NS), so a busy-polling application pays a wake-up every
 * few ms and no lock contention. Once the application is away,
 * the thread runs progress and sleeps in poll() on the engines' sockets
 * and timers until the next event, looking again after each.
 *
 * FI_PROGRESS_AUTO and FI_PROGRESS_MANUAL run the same thread; manual
 * progress may turn it off (FI_UET_PROGRESS_IDLE_US=0), auto may not.
 */
#define _GNU_SOURCE	/* ppoll, pthread_setname_np */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "uet/uet.h"

/* Sleeps |ns|, or until the domain's stop eventfd is written. */
static void uet_prog_nap(struct uet_domain *dom, uint64_t ns)
{
	struct pollfd pfd = { .fd = dom->prog_stop_fd, .events = POLLIN };
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	ppoll(&pfd, 1, &ts, NULL);
}

/* Whether the application called since |*seen|; updates it. */
static bool uet_prog_app_came(struct uet_domain *dom, unsigned long *seen)
{
	unsigned long now = atomic_load_explicit(&dom->app_calls,
						 memory_order_relaxed);
	bool came = now != *seen;

	*seen = now;
	return came;
}

/*
 * The longest nap while the application keeps calling. Every wake-up of
 * the thread preempts a busy-polling process on a small machine: at one
 * per 100 us, 1 MiB write bandwidth fell 25%, at one per ms 7%, at one per
 * 10 ms not measurably (2-core machine, both ends busy). So the nap doubles
 * from the idle time up to this while the application stays; an
 * application that leaves is then noticed within this much (its peers
 * may resend meanwhile; nothing fails).
 */
#define UET_PROG_NAP_MAX_NS	(8ull * 1000000ull)

/*
 * The longest nap while the application sleeps in our wait (fi_cq_sread,
 * fi_cntr_wait, a polling read past FI_UET_SPIN_US) or on a wait object
 * it armed (fi_trywait, then epoll on its fd: then until its timer is
 * overdue, uet_prog_app_waits_ns), which wakes for
 * everything the thread would: an idle endpoint in fi_cq_sread cost 0.3-1%
 * of a core with 8 ms naps, 125 wake-ups a second. An application that
 * leaves the wait for elsewhere is noticed within this much.
 */
#define UET_PROG_NAP_SLEEPER_NS	(64ull * 1000000ull)

/*
 * How long the application is known to wait for us yet, 0 when it is
 * not: in our own wait (fi_cq_sread and the like: UET_PROG_NAP_SLEEPER_NS,
 * it may leave it for elsewhere), or blocked on a wait object it armed
 * with fi_trywait and has not called since (uet_wait_obj_arm): until that
 * one's timer is overdue. An idle endpoint in epoll cost 0.7-1.3% of a
 * core when this thread, as well as the application, woke for the same
 * 100 ms timer and each time took the lock and ran the engines the
 * application had just run.
 */
static uint64_t uet_prog_app_waits_ns(struct uet_domain *dom)
{
	uint64_t now, until;

	if (atomic_load(&dom->app_sleeping) > 0)
		return UET_PROG_NAP_SLEEPER_NS;
	if (atomic_load(&dom->app_armed_calls) != atomic_load(&dom->app_calls))
		return 0;
	now = uet_engine_now_ns();
	until = atomic_load(&dom->app_armed_until_ns);
	return until > now ? until - now : 0;
}

static void *uet_prog_main(void *arg)
{
	struct uet_domain *dom = arg;
	unsigned long seen = atomic_load(&dom->app_calls);
	uint64_t nap = dom->prog_idle_ns, cap, waits;
	bool away = false;

	while (!atomic_load(&dom->prog_stop)) {
		if (!away) {
			uet_prog_nap(dom, nap);
			/* Asleep in our wait, it wakes for what we would. */
			waits = uet_prog_app_waits_ns(dom);
			away = !uet_prog_app_came(dom, &seen) && !waits;
			cap = !waits ? UET_PROG_NAP_MAX_NS :
			      waits > UET_PROG_NAP_SLEEPER_NS ? waits :
			      UET_PROG_NAP_SLEEPER_NS;
			nap = away ? dom->prog_idle_ns :
			      nap * 2 < cap ? nap * 2 : cap;
			continue;
		}
		uet_domain_lock(dom);
		if (!atomic_load(&dom->prog_stop)) {
			uet_domain_run_engines(dom);
			/*
			 * No answer comes from an application that is away:
			 * what an engine holds for one would only make its
			 * peers wait (a write to a passive target completed
			 * 20 us late, UET_ENGINE_ACK_WAIT_NS).
			 */
			uet_domain_send_held(dom);
			/* Until something arrives or a timer is due. */
			uet_domain_wait(dom, dom->prog_stop_fd, UINT64_MAX);
		}
		uet_domain_unlock(dom);
		away = !uet_prog_app_came(dom, &seen) &&
		       !uet_prog_app_waits_ns(dom);
	}
	return NULL;
}

int uet_progress_thread_start(struct uet_domain *dom)
{
	int ret;

	if (dom->prog_started || !dom->prog_idle_ns)
		return 0;
	dom->prog_stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (dom->prog_stop_fd < 0)
		return -errno;
	atomic_store(&dom->prog_stop, false);
	ret = pthread_create(&dom->prog_thread, NULL, uet_prog_main, dom);
	if (ret) {
		close(dom->prog_stop_fd);
		dom->prog_stop_fd = -1;
		return -ret;
	}
	pthread_setname_np(dom->prog_thread, "uet-progress");
	dom->prog_started = true;
	return 0;
}

void uet_progress_thread_stop(struct uet_domain *dom)
{
	uint64_t one = 1;

	if (!dom->prog_started)
		return;
	/* A forked child has no such thread: only its copy of the fd. */
	if (dom->owner_pid != getpid()) {
		close(dom->prog_stop_fd);
		dom->prog_stop_fd = -1;
		dom->prog_started = false;
		return;
	}
	atomic_store(&dom->prog_stop, true);
	if (write(dom->prog_stop_fd, &one, sizeof(one)) < 0)
		FI_WARN(&uet_prov, FI_LOG_DOMAIN, "progress thread: %s\n",
			strerror(errno));
	pthread_join(dom->prog_thread, NULL);
	close(dom->prog_stop_fd);
	dom->prog_stop_fd = -1;
	dom->prog_started = false;
}
