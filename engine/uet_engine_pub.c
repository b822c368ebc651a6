/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Our figures for `uetctl top` (issue 44), published in our slot of the
 * interface's control block (uet_dev_ep_pub): totals of counters the
 * engine keeps anyway, copied from the millisecond tick at most every
 * UET_DEV_PUB_NS, so the data path pays nothing for them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "dev/uet_dev_client.h"
#include "dev/uet_dev_shm.h"
#include "dev/uet_xsk.h"
#include "engine/uet_engine_priv.h"
#include "engine/uet_engine_tss.h"

/* Frames the TSS checks, ours or the session's, refused. */
static uint64_t uet_engine_pub_tss_refused(const struct uet_engine *e)
{
	const struct uet_tss_ep_stats *t = e->tss ? uet_tss_ep_stats(e->tss) :
				       NULL;
	uint64_t n = e->stats.rx_clear_refused + e->stats.rx_sealed_refused;

	if (t)
		n += t->rx_bad_icv + t->rx_replay + t->rx_stale +
		     t->rx_other_sd + t->rx_no_key + t->rx_malformed +
		     t->rx_no_room;
	return n;
}

void uet_engine_pub_tick(struct uet_engine *e)
{
	struct uet_dev_shm *shm = uet_xsk_shm(e->xsk);
	struct uet_dev_ep_counters c = { .at_ns = e->now_ns };
	struct uet_xsk_stats xs;
	struct pdc_stats ps;

	if (!shm || e->now_ns - e->pub_ns < UET_DEV_PUB_NS)
		return;
	e->pub_ns = e->now_ns;
	e->pub_owed = false;
	/* Its frame counts come before the getsockopt that may fail. */
	uet_xsk_stats_read(e->xsk, &xs);
	pdc_mgr_stats(e->pdc, &ps);
	c.tx_frames = xs.tx_frames;
	c.tx_bytes = xs.tx_bytes;
	c.rx_frames = xs.rx_frames;
	c.rx_bytes = xs.rx_bytes;
	c.pdcs = ps.pdcs;
	c.retx_rto = ps.retx_rto;
	c.retx_sack = ps.retx_sack;
	c.retx_probe = ps.retx_probe;
	c.retx_nack = ps.retx_nack;
	c.cwnd_bytes = pdc_mgr_cwnd_bytes(e->pdc);
	c.local_tx = e->stats.local_tx;
	c.local_tx_bytes = e->stats.local_tx_bytes;
	c.local_rx = e->stats.local_rx;
	c.local_rx_bytes = e->stats.local_rx_bytes;
	c.tss_refused = uet_engine_pub_tss_refused(e);
	c.crc_refused = e->stats.rx_crc_bad;
	uet_dev_pub_write(&shm->slot[e->ep_index].pub, &c);
}

/*
 * The device service's connection, looked at every UET_ENGINE_SVC_NS: when
 * the service went away (killed, restarted, upgraded), the data path goes
 * on (the service is not in it) and we reattach to the next one, which
 * takes the interface over (dev/uet_dev_client.h: uet_dev_ep_watch).
 */
#define UET_ENGINE_SVC_NS	(20ull * 1000 * 1000)

void uet_engine_svc_tick(struct uet_engine *e)
{
	int ret;

	if (e->now_ns - e->svc_ns < UET_ENGINE_SVC_NS)
		return;
	e->svc_ns = e->now_ns;
	ret = uet_dev_ep_watch(&e->dev, e->now_ns);
	e->svc_retrying = ret == -ENOTCONN;
	e->stats.svc_detached = e->dev.detached;
	e->stats.svc_reattached = e->dev.reattached;
	if (ret == 1 && getenv("UET_ENGINE_DEBUG"))
		fprintf(stderr, "uet: endpoint %u reattached to the device "
			"service of %s\n", e->ep_index, e->cfg.ifname);
}

/*
 * After traffic, one publishing more (its tick also publishes what TSS
 * refused, uet_engine_tss_tick): an endpoint asleep shows its last frames.
 */
uint64_t uet_engine_pub_due_ns(const struct uet_engine *e)
{
	return e->pub_owed && uet_xsk_shm(e->xsk) ? e->pub_ns + UET_DEV_PUB_NS :
						      UINT64_MAX;
}

/*
 * A sleeper is woken when the connection closes (uet_engine_svc_fd); the
 * tries that follow are timers, so that an idle endpoint is back within
 * a new service's wait without anything looking on a clock of its own.
 */
uint64_t uet_engine_svc_due_ns(const struct uet_engine *e)
{
	uint64_t at = e->svc_ns + UET_ENGINE_SVC_NS;

	if (!e->svc_retrying)
		return UINT64_MAX;
	return e->dev.retry_at_ns > at ? e->dev.retry_at_ns : at;
}
