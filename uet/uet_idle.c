/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Progress that yields (issue 41): an application that polls (fi_cq_read,
 * fi_cntr_read in a loop) and finds nothing for FI_UET_SPIN_US stops
 * spinning; each read then yields the core for a while, then sleeps on
 * its engines' fds, so that a core it does not need goes to the
 * processes that do.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "uet/uet.h"

/*
 * The longest a read sleeps. A socket or a local peer's write wakes it at
 * once; what it cannot see (another provider's CQ, a flag in the
 * application's own shared memory) waits this long at worst. Each nap
 * costs a ppoll, a progress run and the caller's own loop (Open MPI's
 * opal_progress and its sched_yield): 10-20 us. At 1 ms, the idle ranks
 * of an oversubscribed job spent the cores on those wake-ups: 64 ranks on
 * 2 cores (e2e_mpi64, uet job alone, a sampler at real-time priority
 * reading /proc) had a rank runnable and not run for 1.7 to 4.8 s (the
 * worst of each of 6 jobs), long enough for its peers' retransmissions
 * to give up past 5 s, and a job took 24 to 54 s; at 10 ms, 0.4 to 1.2 s
 * (4 jobs; 0.3 to 0.6 s in 3 more without the yielding millisecond) and
 * 13 to 30 s. Naps growing from 1 ms to 16 ms: 1.1 and 1.5 s.
 */
#define UET_IDLE_NAP_NS		(10ull * 1000ull * 1000ull)

/*
 * How long reads yield (sched_yield) before they sleep. A sleeper woken
 * waits for a core that spinning processes hold: 4 ranks on 2 cores
 * pinging at once (bench_local_yield, no mpi_yield_when_idle) took 60 us
 * a half round trip sleeping at once, 29 us spinning, 15 us yielding
 * first. A yield costs nothing to others (it runs only when nobody else
 * would), and past this the process sleeps.
 */
#define UET_IDLE_YIELD_NS	(1000ull * 1000ull)

/*
 * While reads yield, how long they spin between two yields. A yield
 * costs 0.6 us here even when nobody else wants the core, and what
 * arrives meanwhile waits for it: a 64 KiB ping-pong between two pinned
 * processes (fi_msg_bench, each waiting about 18 us a round trip, past
 * the spin budget) took a median 8.68, 8.94, 7.68 us a half round trip
 * yielding at every read, 8.05, 7.17, 8.01 us with 5 us between yields
 * (alternated runs). A process that wants the core waits at most this
 * much longer for it: 4 ranks on 2 cores (bench_local_yield) gave the
 * same half round trips both ways (15-17 us without yield_when_idle).
 */
#define UET_IDLE_YIELD_GAP_NS	(5ull * 1000ull)

/*
 * Reads that found nothing between two looks at the clock: a clock read
 * costs 20 ns here, a fifth of an empty fi_cq_read.
 */
#define UET_IDLE_READS_PER_CLOCK	32

/* A minute: more is a mistake (-1 says never). */
#define UET_SPIN_US_MAX		60000000

void uet_params_spin_define(void)
{
	fi_param_define(&uet_prov, "spin_us", FI_PARAM_STRING,
			"Microseconds a polling application (fi_cq_read, "
			"fi_cntr_read) may find nothing before its reads yield "
			"the core for 1 ms, then sleep on the endpoints' "
			"sockets, up to 10 ms each, until something arrives: "
			"the core goes to others meanwhile "
			"(default 10; 0: after a few empty reads; -1: "
			"never, spin)");
}

/* 0, or -FI_EINVAL for a value that is no spin budget (warned). */
int uet_params_spin_get(struct uet_params *p)
{
	char *v = NULL, *end;
	long us;

	p->spin_us = UET_SPIN_US_DEFAULT;
	if (fi_param_get_str(&uet_prov, "spin_us", &v) != FI_SUCCESS || !v)
		return 0;
	errno = 0;
	us = strtol(v, &end, 10);
	if (errno || end == v || *end || us < -1 || us > UET_SPIN_US_MAX) {
		FI_WARN(&uet_prov, FI_LOG_DOMAIN, "FI_UET_SPIN_US=%s: not a "
			"number of microseconds from 0 to %d, nor -1 (never "
			"sleep)\n", v, UET_SPIN_US_MAX);
		return -FI_EINVAL;
	}
	p->spin_us = us;
	return 0;
}

void uet_domain_spin_init(struct uet_domain *dom)
{
	dom->spin_ns = dom->params.spin_us < 0 ? UINT64_MAX :
		       (uint64_t)dom->params.spin_us * 1000ull;
	uet_domain_busy(dom);
}

/*
 * A read of the application found nothing (domain lock held). Within the
 * spin budget it returns false at once; for UET_IDLE_YIELD_NS past it,
 * it yields the core every UET_IDLE_YIELD_GAP_NS and returns false; then
 * it sleeps until one of the engines' fds or |extra_fd| (the read
 * object's eventfd, -1: none) is readable, an engine timer is due or
 * UET_IDLE_NAP_NS passed, and returns true: the caller runs progress and
 * reads again.
 */
bool uet_domain_idle(struct uet_domain *dom, int extra_fd)
{
	uint64_t now;

	if (dom->spin_ns == UINT64_MAX ||
	    ++dom->idle_reads < UET_IDLE_READS_PER_CLOCK)
		return false;
	dom->idle_reads = 0;
	now = uet_engine_now_ns();
	if (!dom->idle_since_ns) {
		dom->idle_since_ns = now;
		if (dom->spin_ns)
			return false;
	}
	if (now - dom->idle_since_ns < dom->spin_ns)
		return false;
	if (now - dom->idle_since_ns < dom->spin_ns + UET_IDLE_YIELD_NS) {
		/* The clock is read at every read, and a read yields once
		 * UET_IDLE_YIELD_GAP_NS passed since the last yield. */
		dom->idle_reads = UET_IDLE_READS_PER_CLOCK - 1;
		if (now - dom->idle_yield_ns < UET_IDLE_YIELD_GAP_NS)
			return false;
		uet_domain_unlock(dom);
		sched_yield();
		uet_domain_lock(dom);
		dom->idle_yield_ns = uet_engine_now_ns();
		return false;
	}
	/* Nobody answers while we sleep: what waits for an answer goes. */
	uet_domain_send_held(dom);
	uet_domain_wait(dom, extra_fd, now + UET_IDLE_NAP_NS);
	return true;
}

/*
 * fi_cq_sread or fi_cntr_wait found nothing (domain lock held): whether
 * to look again before sleeping. Within the spin budget from the first
 * empty look (|*until|, 0 before it), as a polling read does: a peer
 * that answers within a round trip is seen without a wake-up (an 8 B
 * ping-pong between namespaces in sread: 17.5 us a half round trip
 * sleeping at once, 3.6 us with the 10 us budget). FI_UET_SPIN_US=-1
 * (never sleep) has the default budget here: sread is asked to sleep.
 * Once woken, it sleeps again at once.
 */
bool uet_domain_sread_spins(struct uet_domain *dom, uint64_t *until)
{
	uint64_t now, budget = dom->spin_ns == UINT64_MAX ?
			       UET_SPIN_US_DEFAULT * 1000ull : dom->spin_ns;

	if (!budget)
		return false;
	now = uet_engine_now_ns();
	if (!*until)
		*until = now + budget;
	return now < *until;
}
