/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The transport engine (see uet_engine.h): SES packets ride PDCs, PDS
 * frames ride the AF_XDP socket. One copy each way: user buffer to UMEM
 * frame (pdc fill), UMEM frame to target buffer (ses placement).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "engine/uet_engine.h"
#include "engine/uet_engine_priv.h"
#include "engine/uet_engine_local.h"
#include "engine/uet_engine_trace.h"
#include "engine/uet_engine_tss.h"
#include "dev/uet_dev_client.h"
#include "dev/uet_nl.h"
#include "uet_fep.h"
#include "dev/uet_xdp_ctl.h"

uint64_t uet_engine_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct ses *uet_engine_ses(struct uet_engine *e)
{
	return e->ses;
}

uint32_t uet_engine_payload_mtu(const struct uet_engine *e)
{
	return e->payload_mtu;
}

int uet_engine_fd(const struct uet_engine *e)
{
	return uet_xsk_fd(e->xsk);
}

const struct uet_engine_dscp uet_engine_dscp_default = {
	.data = UET_DSCP_TRIMMABLE,
	.ctl = UET_DSCP_CONTROL,
	.trimmed = UET_DSCP_TRIMMED,
	.lasthop = UET_DSCP_TRIMMED_LASTHOP,
};

uint64_t uet_engine_next_timeout_ns(const struct uet_engine *e)
{
	uint64_t at = pdc_next_timeout(e->pdc), now = uet_engine_now_ns();

	/* Frames wait for a kick (uet_engine_progress defers some). */
	if (uet_xsk_tx_needs_kick(e->xsk))
		return 0;
	/* ACKs alone wait a little for an answer to go with. */
	if (e->nheld && e->held_since_ns + UET_ENGINE_ACK_WAIT_NS < at)
		at = e->held_since_ns + UET_ENGINE_ACK_WAIT_NS;
	/* WREs wait for a next hop: the tick looks each millisecond. */
	if (e->nheld_wres && e->tick_ns + UET_ENGINE_TICK_NS < at)
		at = e->tick_ns + UET_ENGINE_TICK_NS;
	if (uet_engine_svc_due_ns(e) < at)
		at = uet_engine_svc_due_ns(e);
	if (uet_engine_pub_due_ns(e) < at)
		at = uet_engine_pub_due_ns(e);
	{
		uint64_t l = uet_engine_local_timeout(e, now);

		if (l != UINT64_MAX && now + l < at)
			at = now + l;
	}
	if (at == UINT64_MAX)
		return UINT64_MAX;
	return at > now ? at - now : 0;
}

void uet_engine_stats_get(const struct uet_engine *e,
			  struct uet_engine_stats *st)
{
	*st = e->stats;
	st->peers_provisional = e->nprov;
	st->peers_live = 0;	/* a scan: counters are read rarely */
	for (uint32_t i = 0; i < e->npeers; i++)
		st->peers_live += e->peers[i].state == UET_PEER_LIVE;
	pdc_mgr_stats(e->pdc, &st->pdc);
	ses_stats_get(e->ses, &st->ses);
	if (e->tss)
		st->tss = *uet_tss_ep_stats(e->tss);
}

/* ---- setup ---------------------------------------------------------------- */

static __thread char uet_engine_why[200];

const char *uet_engine_last_error(void)
{
	return uet_engine_why;
}

/*
 * An endpoint of the interface's device service: its own AF_XDP socket on
 * the shared UMEM, its endpoint index (the prefix of its PDCIDs and
 * message_ids) and its PIDonFEP, the one asked for or one the service
 * chose.
 */
static int uet_engine_dev_open(struct uet_engine *e)
{
	uint16_t want = e->cfg.pid_on_fep ? e->cfg.pid_on_fep :
					    UET_DEV_PID_ANY;
	int ret;

	ret = uet_dev_ep_open(e->cfg.ifname, e->cfg.job_id, want,
			      e->cfg.queue_id, &e->dev, uet_engine_why,
			      sizeof(uet_engine_why));
	if (ret < 0)
		return ret;
	e->xsk = e->dev.xsk;
	e->ep_index = e->dev.rep.ep;
	e->cfg.pid_on_fep = e->dev.rep.pid_on_fep;
	e->cfg.initiator = (e->cfg.initiator & ~(uint32_t)0xFFF) |
			   e->cfg.pid_on_fep;
	e->cfg.queue_id = e->dev.rep.queue_id;
	e->cfg.udp_port = e->dev.rep.udp_port;
	return 0;
}

static int uet_engine_io_setup(struct uet_engine *e)
{
	struct uet_xdp_maps maps;
	int mtu, ret;

	e->ifindex = (int)if_nametoindex(e->cfg.ifname);
	if (!e->ifindex)
		return -ENODEV;
	mtu = uet_nl_if_mtu(e->ifindex);
	if (mtu < 0)
		return mtu;
	ret = uet_nl_if_mac(e->ifindex, e->mac);
	if (ret < 0)
		return ret;
	/* The largest Payload MTU whose packets fit the interface MTU. */
	ret = uet_frame_payload_mtu((unsigned int)mtu, e->cfg.local.is_v6);
	if (ret < 0)
		return ret;
	if (e->cfg.payload_mtu > (uint32_t)ret)
		return -EMSGSIZE;
	e->payload_mtu = e->cfg.payload_mtu ? e->cfg.payload_mtu :
					      (uint32_t)ret;
	e->nl = uet_nl_open();
	if (!e->nl)
		return -errno;
	/* The key of the host digests PDC limits sources by. */
	if (getrandom(&e->src_key, sizeof(e->src_key), 0) !=
	    sizeof(e->src_key))
		e->src_key = uet_engine_now_ns() * 0x9E3779B97F4A7C15ull;
	ret = uet_engine_dev_open(e);
	if (ret < 0)
		return ret;
	ret = uet_engine_tss_setup(e, uet_engine_why, sizeof(uet_engine_why));
	if (ret < 0)
		return ret;
	uet_xsk_set_local_mac(e->xsk, e->mac);
	/* Jumbo frames need the service's UMEM to span chunks. */
	if ((uint32_t)mtu + UET_ETH_HDR_LEN + UET_VLAN_HDR_LEN >
	    uet_xsk_frame_max(e->xsk)) {
		snprintf(uet_engine_why, sizeof(uet_engine_why), "MTU %d of %s "
			 "is larger than the service's frames (%u): uetctl "
			 "unload and load it again", mtu, e->cfg.ifname,
			 uet_xsk_frame_max(e->xsk));
		return -EMSGSIZE;
	}
	/*
	 * Without the mirror only the receive side can be captured; it needs
	 * the program's settings, which only root reaches (through the pins).
	 */
	if (uet_xdp_maps_open(e->cfg.ifname, &maps) == 0) {
		if (uet_mirror_open(&e->mirror, e->cfg.ifname, e->ifindex,
				    maps.config) < 0 &&
		    getenv("UET_ENGINE_DEBUG"))
			fprintf(stderr, "uet engine: no capture mirror: %m\n");
		uet_xdp_maps_close(&maps);
	}
	return 0;
}

/*
 * Notes on rare events, PDC's and the engine's, to stderr when
 * UET_ENGINE_DEBUG is set, with the wall-clock time, so that a soak's
 * notes line up with its faults (blackholes, service restarts) and with
 * the other hosts' notes.
 */
void uet_engine_note(void *ctx, const char *msg)
{
	const struct uet_engine *e = ctx;
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	/* Whose note: a job of many ranks writes to one stream. */
	fprintf(stderr, "uet engine %d %s/%u: %s (at %02d:%02d:%02d.%03ld)\n",
		(int)getpid(), e->cfg.ifname, e->ep_index, msg, tm.tm_hour,
		tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

const char *uet_engine_fa_str(const struct uet_fa *fa, char *buf,
			      size_t len)
{
	if (!inet_ntop(fa->is_v6 ? AF_INET6 : AF_INET,
		       fa->is_v6 ? (const void *)&fa->v6 :
				   (const void *)&fa->v4, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

static int uet_engine_pdc_setup(struct uet_engine *e)
{
	struct pdc_ops ops = {
		.admit = uet_engine_pdc_admit,
		.deliver = uet_engine_pdc_deliver,
		.fill = uet_engine_pdc_fill,
		.tx_done = uet_engine_pdc_tx_done,
		.event = uet_engine_pdc_event,
		.rudi = uet_engine_pdc_rudi,
		.log = getenv("UET_ENGINE_DEBUG") ? uet_engine_note : NULL,
	};
	struct pdc_cfg cfg;

	pdc_cfg_init(&cfg);
	if (getrandom(&cfg.seed, sizeof(cfg.seed), 0) != sizeof(cfg.seed))
		cfg.seed = uet_engine_now_ns() ^ (uint64_t)getpid() << 32;
	cfg.max_payload_len = SES_PKT_HDR_MAX + e->payload_mtu;
	/* Our index in every PDCID: the XDP program steers by it. */
	cfg.pdcid_prefix = (uint16_t)e->ep_index;
	cfg.pdcid_prefix_bits = (uint8_t)e->dev.ep_bits;
	/*
	 * PDCs of both roles: the prefix (the interface's width, uetctl load
	 * --endpoints: 6 to 9 bits) leaves 16 - bits of PDCID, one of
	 * them at least for the generation that tells a reused slot's PDCs
	 * apart; idle ones close (ephemeral PDCs), so a job that talks to
	 * more peers than this at once waits for one to close.
	 */
	cfg.max_pdcs = uet_engine_max_pdcs(cfg.pdcid_prefix_bits);
	if (e->cfg.max_pdcs) {
		if (e->cfg.max_pdcs > cfg.max_pdcs ||
		    (e->cfg.max_pdcs & (e->cfg.max_pdcs - 1)) ||
		    e->cfg.max_pdcs < 4) {
			snprintf(uet_engine_why, sizeof(uet_engine_why),
				 "max PDCs %u: a power of 2 from 4 to %u (the "
				 "PDCID bits this interface's endpoint index "
				 "leaves)", e->cfg.max_pdcs, cfg.max_pdcs);
			return -EINVAL;
		}
		cfg.max_pdcs = e->cfg.max_pdcs;
	}
	cfg.max_opening = e->cfg.max_opening ? e->cfg.max_opening :
					       UET_ENGINE_MAX_OPENING;
	/*
	 * The spec's 1 ms initial RTO (ref 2.9) is too short for a software
	 * target sharing two cores: a burst of a window's packets waits for
	 * its process to be scheduled, and spurious retransmissions then use
	 * up the retry budget. Measured here: 1 ms gave ~1 spurious resend per
	 * packet of a 100 KB write, 5 ms none; RTT samples adapt it after.
	 */
	cfg.rto_init_ns = e->cfg.rto_init_ns ? e->cfg.rto_init_ns :
					       UET_ENGINE_RTO_INIT_NS;
	/*
	 * PDC never resends a packet older than half of TIME_WAIT (so no copy
	 * outlives the target's memory of it) and fails the PDC instead. On
	 * shared cores a process may not run for hundreds of ms, and with the
	 * 1 s default a live peer was declared dead under load and 5% loss
	 * (test/e2e/e2e_fi_rma.sh, with two busy loops beside it): 10 s here.
	 */
	cfg.time_wait_ns = UET_ENGINE_TIME_WAIT_NS;
	/* Our peers hold ACKs as we do (uet_engine_acks_wait). */
	cfg.ack_hold_ns = UET_ENGINE_ACK_WAIT_NS;
	if (e->cfg.max_retries)
		cfg.max_retries = e->cfg.max_retries;
	cfg.cc = e->cfg.cc_set ? e->cfg.cc : PDC_CC_NSCC;
	if (e->cfg.link_mbps)
		cfg.link_bps = (uint64_t)e->cfg.link_mbps * 1000000;
	cfg.link_guessed = e->cfg.link_guessed || !e->cfg.link_mbps;
	cfg.trimming = e->cfg.trimming;
	cfg.no_dfc = e->cfg.no_dfc;
	cfg.mp_mode = e->cfg.multipath;
	cfg.ev_mask = UET_ENGINE_EV_MASK;	/* a bad count fails the create */
	if (e->cfg.entropies)
		cfg.ev_count = e->cfg.entropies;
	e->pdc_ops = ops;
	e->pdc = pdc_mgr_create(&cfg, &e->pdc_ops, e);
	return e->pdc ? 0 : -errno;
}

static int uet_engine_ses_setup(struct uet_engine *e)
{
	struct ses_ops ops = {
		.tx = uet_engine_ses_tx,
		.tx_done = uet_engine_ses_tx_done,
		.recv_done = uet_engine_ses_recv_done,
		.rma_done = uet_engine_ses_rma_done,
		.ri_gen_get = uet_engine_gen_get,
		.ri_gen_set = uet_engine_gen_set,
		.pay_revoke = uet_engine_ses_pay_revoke,
		.pull = uet_engine_local_pull,
		.peer_pulls = uet_engine_local_peer_pulls,
	};
	struct ses_config cfg;

	ses_config_init(&cfg);
	cfg.payload_mtu = e->payload_mtu;
	cfg.job_id = e->cfg.job_id;
	cfg.pid_on_fep = e->cfg.pid_on_fep;
	cfg.initiator = e->cfg.initiator;
	cfg.rdv_ri = e->cfg.rdv ? e->cfg.rdv_ri : SES_RI_NONE;
	if (e->cfg.rdv_threshold)
		cfg.rdv_threshold = e->cfg.rdv_threshold;
	cfg.rdv_eager_len = e->cfg.rdv_eager_len;
	cfg.rdv_pull_threshold = e->cfg.local_pull_threshold ?
				 e->cfg.local_pull_threshold :
				 UET_ENGINE_LOCAL_PULL_DEFAULT;
	if (cfg.rdv_eager_len > cfg.payload_mtu)
		cfg.rdv_eager_len = cfg.payload_mtu;
	if (cfg.rdv_eager_len > cfg.rdv_threshold)
		cfg.rdv_eager_len = cfg.rdv_threshold;
	/*
	 * A rendezvous send the target took waits through our PDC's failure
	 * for the answer the target sends again (uet_engine_resp_resend,
	 * for UET_ENGINE_RESP_RETRY_NS after its own PDC failed, which may
	 * be a retry budget after ours).
	 */
	cfg.rdv_answer_wait_ns = UET_ENGINE_RESP_RETRY_NS + 2000000000ull;
	cfg.max_peers = e->max_peers;
	/* Our index in every message_id: responses on a PDC the target
	 * opens are steered by it while that PDC's SYN is set. */
	cfg.msg_id_prefix = (uint16_t)e->ep_index;
	cfg.msg_id_prefix_bits = (uint8_t)e->dev.ep_bits;
	/* Receives take any length; unexpected bytes are bounded apart. */
	cfg.max_msg_len = UINT32_MAX;
	/*
	 * Our ids start somewhere else than those of the process that had
	 * our address and endpoint index before us (ses.h): late answers
	 * meant for it do not meet our messages.
	 */
	if (getrandom(&cfg.msg_id_seed, sizeof(cfg.msg_id_seed), 0) !=
	    sizeof(cfg.msg_id_seed))
		cfg.msg_id_seed = uet_engine_now_ns() ^ (uint64_t)getpid() << 32;
	cfg.msg_id_seed |= 1;	/* 0 would mean "start at 1" */
	e->ses_ops = ops;
	e->ses = ses_create(&cfg, &e->ses_ops, e);
	return e->ses ? 0 : -errno;
}

static int uet_engine_slots_setup(struct uet_engine *e)
{
	e->nslots = UET_ENGINE_TX_SLOTS;
	e->slots = calloc(e->nslots, sizeof(*e->slots));
	e->free_slots = calloc(e->nslots, sizeof(*e->free_slots));
	e->bounce = malloc(UET_XSK_FRAME_MAX);
	if (!e->slots || !e->free_slots || !e->bounce)
		return -ENOMEM;
	for (uint32_t i = 0; i < e->nslots; i++)
		e->free_slots[i] = e->nslots - 1 - i;
	e->nfree = e->nslots;
	return 0;
}

struct uet_engine *uet_engine_create(const struct uet_engine_cfg *cfg,
				     const struct uet_engine_ops *ops,
				     void *ctx)
{
	struct uet_engine *e;
	int ret;

	if (!cfg || !ops || !ops->tx_done || !cfg->udp_port) {
		errno = EINVAL;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		errno = ENOMEM;
		return NULL;
	}
	e->mirror.sock = -1;	/* destroy may run before it is opened */
	e->trace_at_ns = UINT64_MAX;	/* no trace until it is open */
	e->dev.conn = -1;
	e->wake_fd = -1;
	uet_engine_why[0] = '\0';
	e->cfg = *cfg;
	e->cfg.ifname[sizeof(e->cfg.ifname) - 1] = '\0';
	if (!e->cfg.dscp_set)
		e->cfg.dscp = uet_engine_dscp_default;
	e->ops = *ops;
	e->ctx = ctx;
	/*
	 * A stable, non-zero entropy value per engine (ref 1.4) for frames
	 * PDC gives none (NACKs, UUD, multipath off); its low two bits are
	 * set per peer kind (uet_engine_frame_hdr).
	 */
	e->entropy = (uint16_t)(0x8000 | (getpid() & 0x7ffc));
	ret = uet_engine_peers_setup(e);
	if (ret == -EINVAL)
		snprintf(uet_engine_why, sizeof(uet_engine_why),
			 "max peers %u: 16 to %u", e->cfg.max_peers,
			 UET_ENGINE_MAX_PEERS_MAX);
	if (ret == 0)
		ret = uet_engine_io_setup(e);
	if (ret == 0)
		ret = uet_engine_slots_setup(e);
	if (ret == 0)
		ret = uet_engine_pdc_setup(e);
	if (ret == 0)
		ret = uet_engine_ses_setup(e);
	if (ret == 0)
		ret = uet_engine_wake_setup(e);
	if (ret == 0)
		ret = uet_engine_local_setup(e);
	if (ret < 0) {
		uet_engine_destroy(e);
		errno = -ret;
		return NULL;
	}
	uet_engine_trace_open(e);
	if (getenv("UET_ENGINE_DEBUG")) {
		char a[INET6_ADDRSTRLEN], msg[96];

		snprintf(msg, sizeof(msg), "up as %s PIDonFEP %u",
			 uet_engine_fa_str(&e->cfg.local, a, sizeof(a)),
			 e->cfg.pid_on_fep);
		uet_engine_note(e, msg);
	}
	return e;
}

void uet_engine_destroy(struct uet_engine *e)
{
	if (!e)
		return;
	if (e->ses && e->pdc && e->xsk)
		uet_engine_flush(e);
	if (e->ses && e->pdc && (e->cfg.print_stats ||
				 getenv("UET_ENGINE_DEBUG")))
		uet_engine_stats_json(e, stderr);
	uet_engine_trace_close(e);
	uet_engine_local_destroy(e);
	uet_engine_wake_destroy(e);
	if (e->ses)
		ses_destroy(e->ses);
	if (e->pdc)
		pdc_mgr_destroy(e->pdc);
	uet_dev_ep_close(&e->dev);	/* and its socket, e->xsk */
	uet_engine_tss_destroy(e);
	uet_mirror_close(&e->mirror);
	uet_nl_close(e->nl);
	uet_engine_peers_destroy(e);
	for (uint32_t i = 0; e->slots && i < e->nslots; i++)
		free(e->slots[i].own);
	free(e->slots);
	free(e->free_slots);
	free(e->bounce);
	free(e);
}

uint32_t uet_engine_max_peers(const struct uet_engine *e)
{
	return e->max_peers;
}

uint16_t uet_engine_pid_on_fep(const struct uet_engine *e)
{
	return e->cfg.pid_on_fep;
}
