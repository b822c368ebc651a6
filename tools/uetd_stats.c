/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd's answer to UET_DEV_STATS: the program's and the service's
 * counters and the open endpoints, as JSON, as lines for people, or as
 * struct uet_dev_stats (which the JSON is written from, and uetctl's
 * Prometheus exposition: tools/uetctl_prom.c).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tools/uetd.h"
#include "uet_xdp_shared.h"

/* Appends to |buf| at |*off| (bounded; the end is cut when it is full). */
static void uetd_cat(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void uetd_cat(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n < len - *off ? (size_t)n : len - *off - 1;
}

/* The same figures as uetd_stats_json(), a line each, for people. */
static size_t uetd_stats_text(struct uetd *d, char *buf, size_t len,
			      const uint64_t *cnt)
{
	size_t off = 0;

	for (unsigned int i = 0; i < UET_XDP_CNT_MAX; i++)
		uetd_cat(buf, len, &off, "%-14s %llu\n",
			 uet_xdp_counter_name(i), (unsigned long long)cnt[i]);
	/* Native mode asks for zero-copy; copying there means refused. */
	uetd_cat(buf, len, &off, "service: pid %d, queue", getpid());
	if (d->queues > 1)
		uetd_cat(buf, len, &off, "s %u-%u", d->queue_id,
			 d->queue_id + d->queues - 1);
	else
		uetd_cat(buf, len, &off, " %u", d->queue_id);
	uetd_cat(buf, len, &off, " (%s", d->zero_copy ? "zero-copy" :
		 d->mode == UET_XDP_MODE_SKB ?
		 "copy mode: zero-copy needs native mode" :
		 "copy mode: zero-copy refused by the driver");
	if (d->busy_poll_us)
		uetd_cat(buf, len, &off, "; busy poll %d us, budget %d",
			 d->busy_poll_us, d->busy_poll_budget);
	uetd_cat(buf, len, &off, "), UDP port "
		 "%u, %u endpoints at most (%u index bits, %u MiB UMEM: %u "
		 "KiB an endpoint); opened %llu, refused %llu, closed "
		 "%llu; absent destinations: %llu frames, %llu answered\n",
		 d->udp_port, d->layout.max_eps - 1, d->layout.ep_bits,
		 (unsigned)((uint64_t)d->layout.chunks *
			    d->layout.chunk_len >> 20),
		 d->layout.tx_chunks * d->layout.chunk_len >> 10,
		 (unsigned long long)d->opens, (unsigned long long)d->refusals,
		 (unsigned long long)d->ep_closed,
		 (unsigned long long)d->absent_rx,
		 (unsigned long long)d->absent_answered);
	off += uetd_tss_stats(d, buf + off, len - off);
	for (uint32_t q = 0; d->queues > 1 && q < d->queues; q++)
		uetd_cat(buf, len, &off, "queue %u: %u endpoints, %llu frames "
			 "handed on to endpoints of other queues\n",
			 d->queue_id + q, uetd_dev_queue_eps(d, q),
			 (unsigned long long)d->q[q].handed_on);
	for (uint32_t i = 1; i < d->layout.max_eps; i++) {
		const struct uetd_ep *e = &d->eps[i];
		const struct uet_dev_shm_slot *sl = &d->shm->slot[i];

		if (e->conn < 0)
			continue;
		uetd_cat(buf, len, &off, "endpoint %u: process %d, uid %u, "
			 "JobID %u, PIDonFEP %u, queue %u, %llu frames in "
			 "(%llu refused), %llu out\n", i, e->pid, e->uid,
			 e->job_id, e->pid_on_fep, d->queue_id + e->queue,
			 (unsigned long long)__atomic_load_n(&sl->rx_frames,
							      __ATOMIC_RELAXED),
			 (unsigned long long)__atomic_load_n(&sl->rx_refused,
							      __ATOMIC_RELAXED),
			 (unsigned long long)__atomic_load_n(&sl->tx_frames,
							      __ATOMIC_RELAXED));
	}
	return off;
}

/* Frames the service handed on from one queue to another, in all. */
static uint64_t uetd_handed_on(const struct uetd *d)
{
	uint64_t n = 0;

	for (uint32_t q = 0; q < d->queues; q++)
		n += d->q[q].handed_on;
	return n;
}

/* The open endpoints into |st|, by index. */
static void uetd_stats_fill_eps(const struct uetd *d, struct uet_dev_stats *st)
{
	for (uint32_t i = 1; i < d->layout.max_eps; i++) {
		const struct uetd_ep *e = &d->eps[i];
		const struct uet_dev_shm_slot *sl = &d->shm->slot[i];
		struct uet_dev_stats_ep *o = &st->ep[st->ep_cnt];

		if (e->conn < 0)
			continue;
		*o = (struct uet_dev_stats_ep){
			.index = i, .pid = e->pid, .uid = e->uid,
			.job_id = e->job_id, .pid_on_fep = e->pid_on_fep,
			.queue = d->queue_id + e->queue,
			.rx_frames = __atomic_load_n(&sl->rx_frames,
						     __ATOMIC_RELAXED),
			.rx_refused = __atomic_load_n(&sl->rx_refused,
						      __ATOMIC_RELAXED),
			.tx_frames = __atomic_load_n(&sl->tx_frames,
						     __ATOMIC_RELAXED),
		};
		st->ep_cnt++;
	}
}

/* Everything the replies say, read once. */
static void uetd_stats_fill(struct uetd *d, struct uet_dev_stats *st)
{
	memset(st, 0, offsetof(struct uet_dev_stats, ep));
	st->size = sizeof(*st);
	st->flags = UET_DEV_STATS_SERVICE;
	snprintf(st->iface, sizeof(st->iface), "%s", d->ifname);
	uet_xdp_counters_read(&d->maps, st->xdp);
	st->pid = getpid();
	st->zero_copy = d->zero_copy;
	st->busy_poll_us = d->busy_poll_us;
	st->busy_poll_budget = d->busy_poll_budget;
	st->queue = d->queue_id;
	st->queues = d->queues;
	st->endpoints_max = d->layout.max_eps - 1;
	st->ep_bits = d->layout.ep_bits;
	st->tx_chunks = d->layout.tx_chunks;
	st->umem_chunks = d->layout.chunks;
	st->rx_reserve = __atomic_load_n(&d->shm->reserve_cnt,
					 __ATOMIC_RELAXED);
	st->handed_on = uetd_handed_on(d);
	st->local_dropped = d->shm->local_dropped;
	st->opened = d->opens;
	st->refused = d->refusals;
	st->closed = d->ep_closed;
	st->absent_rx = d->absent_rx;
	st->absent_answered = d->absent_answered;
	st->comp_orphans = d->shm->comp_orphans;
	st->fill_lost = d->shm->fill_lost;
	st->rx_recovered = d->rx_recovered;
	uetd_tss_stats_fill(d, st);
	uetd_stats_fill_eps(d, st);
}

static size_t uetd_stats_json(const struct uet_dev_stats *st, char *buf,
			      size_t len)
{
	size_t off = 0;

	uetd_cat(buf, len, &off, "{\"iface\": \"%s\"", st->iface);
	for (unsigned int i = 0; i < UET_XDP_CNT_MAX; i++)
		uetd_cat(buf, len, &off, ", \"%s\": %llu",
			 uet_xdp_counter_name(i),
			 (unsigned long long)st->xdp[i]);
	uetd_cat(buf, len, &off, ", \"service\": {\"pid\": %d, "
		 "\"zero_copy\": %s, \"busy_poll_us\": %d, "
		 "\"busy_poll_budget\": %d, \"queue\": %u, \"queues\": %u, "
		 "\"handed_on\": %llu, \"local_dropped\": %llu, "
		 "\"endpoints_max\": %u, \"ep_bits\": %u, "
		 "\"tx_chunks\": %u, \"umem_chunks\": %u, "
		 "\"opened\": %llu, "
		 "\"refused\": %llu, \"closed\": %llu, \"absent_rx\": %llu, "
		 "\"absent_answered\": %llu, \"comp_orphans\": %llu, "
		 "\"fill_lost\": %llu, \"rx_recovered\": %llu, "
		 "\"rx_reserve\": %u}", st->pid,
		 st->zero_copy ? "true" : "false", st->busy_poll_us,
		 st->busy_poll_budget, st->queue, st->queues,
		 (unsigned long long)st->handed_on,
		 (unsigned long long)st->local_dropped,
		 st->endpoints_max, st->ep_bits, st->tx_chunks,
		 st->umem_chunks, (unsigned long long)st->opened,
		 (unsigned long long)st->refused,
		 (unsigned long long)st->closed,
		 (unsigned long long)st->absent_rx,
		 (unsigned long long)st->absent_answered,
		 (unsigned long long)st->comp_orphans,
		 (unsigned long long)st->fill_lost,
		 (unsigned long long)st->rx_recovered, st->rx_reserve);
	if (st->flags & UET_DEV_STATS_TSS)
		uetd_cat(buf, len, &off, ", \"tss\": {\"sds\": %u, \"gen\": "
			 "%u, \"reloads\": %llu, \"reload_failed\": %llu, "
			 "\"refused\": %llu, \"tss_handed_on\": %llu, "
			 "\"tss_no_sd\": %llu, \"tss_unsteerable\": %llu, "
			 "\"tss_ep_closed\": %llu, "
			 "\"tss_xdp_read\": %s, \"tss_xdp_streams\": %llu}",
			 st->tss_sds, st->tss_gen,
			 (unsigned long long)st->tss_reloads,
			 (unsigned long long)st->tss_reload_failed,
			 (unsigned long long)st->tss_refused,
			 (unsigned long long)st->tss_handed_on,
			 (unsigned long long)st->tss_no_sd,
			 (unsigned long long)st->tss_unsteerable,
			 (unsigned long long)st->tss_ep_closed,
			 st->tss_xdp_read ? "true" : "false",
			 (unsigned long long)st->tss_xdp_streams);
	uetd_cat(buf, len, &off, ", \"endpoints\": [");
	for (uint32_t i = 0; i < st->ep_cnt; i++) {
		const struct uet_dev_stats_ep *e = &st->ep[i];

		uetd_cat(buf, len, &off, "%s{\"index\": %u, \"pid\": "
			 "%d, \"uid\": %u, \"job_id\": %u, \"pid_on_fep\": "
			 "%u, \"queue\": %u, \"rx_frames\": %llu, "
			 "\"rx_refused\": %llu, \"tx_frames\": %llu}",
			 i ? ", " : "", e->index, e->pid, e->uid, e->job_id,
			 e->pid_on_fep, e->queue,
			 (unsigned long long)e->rx_frames,
			 (unsigned long long)e->rx_refused,
			 (unsigned long long)e->tx_frames);
	}
	uetd_cat(buf, len, &off, "]}\n");
	return off;
}

void uetd_stats_reply(struct uetd *d, int conn, uint16_t flags)
{
	static char buf[UET_DEV_STATS_MAX];
	static struct uet_dev_stats st;
	size_t off;

	uetd_stats_fill(d, &st);
	if (flags & UET_DEV_F_BINARY) {
		uetd_send(conn, &st, UET_DEV_STATS_LEN(st.ep_cnt), NULL, 0);
		return;
	}
	if (flags & UET_DEV_F_TEXT)
		off = uetd_stats_text(d, buf, sizeof(buf), st.xdp);
	else
		off = uetd_stats_json(&st, buf, sizeof(buf));
	uetd_send(conn, buf, off, NULL, 0);
}
