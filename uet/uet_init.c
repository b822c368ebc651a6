/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The provider's entry point: fi_prov_ini (the only exported symbol), the
 * struct fi_provider, and the FI_UET_* parameters.
 */
#include <string.h>

#include "dev/uet_dev_proto.h"
#include "uet/uet.h"

/*
 * libfabric calls it when the process exits (fi_fini); our destructor too,
 * for a libfabric that does not. Endpoints still open owe their peers ACKs.
 */
static void uet_cleanup(void)
{
	uet_domains_flush();
}

__attribute__((destructor)) static void uet_fini(void)
{
	uet_domains_flush();
}

struct fi_provider uet_prov = {
	.version = UET_PROV_VERSION,
	.fi_version = UET_FI_VERSION,	/* then the core's (fi_prov_ini) */
	.name = UET_PROV_NAME,
	.getinfo = uet_getinfo,
	.fabric = uet_fabric_open,
	.cleanup = uet_cleanup,
};

static void uet_params_define(void)
{
	fi_param_define(&uet_prov, "iface", FI_PARAM_STRING,
			"Interface to use (the XDP program must be loaded on "
			"it: uetctl load IFACE); default: the one holding the "
			"node address");
	fi_param_define(&uet_prov, "payload_mtu", FI_PARAM_INT,
			"SES payload bytes per packet: 1024, 2048, 4096 or "
			"8192 (default: from the interface MTU)");
	fi_param_define(&uet_prov, "job_id", FI_PARAM_INT,
			"JobID (24 bits) when the domain has no auth_key "
			"(default 0)");
	fi_param_define(&uet_prov, "port", FI_PARAM_INT,
			"UDP port of UET (default 4793)");
	fi_param_define(&uet_prov, "rto_ns", FI_PARAM_SIZE_T,
			"Initial retransmit time-out in ns (default 5000000, "
			"5 ms)");
	fi_param_define(&uet_prov, "max_retries", FI_PARAM_INT,
			"Retransmissions before a peer is declared dead and "
			"its operations fail (default 25)");
	fi_param_define(&uet_prov, "max_peers", FI_PARAM_INT,
			"Remote endpoints one endpoint may hold at once, "
			"16..16777216; memory is taken as they come, about "
			"200 bytes per idle peer (default 262144)");
	fi_param_define(&uet_prov, "max_pdcs", FI_PARAM_INT,
			"PDCs (both roles) one endpoint may hold at once, a "
			"power of 2 up to what its interface's endpoint "
			"index leaves in a PDCID (512 with 64 endpoints); "
			"idle ones close, so more peers than this take turns "
			"(default: that most)");
	fi_param_define(&uet_prov, "max_opening", FI_PARAM_INT,
			"PDCs one endpoint opens at once (first packet sent, "
			"no answer yet); messages to further new peers wait "
			"for one to be answered, so that a job's first "
			"all-to-all does not send every first packet at once "
			"(default 16)");
	fi_param_define(&uet_prov, "rdv_threshold", FI_PARAM_INT,
			"Sends longer than this many bytes go as a rendezvous "
			"(the target reads them once matched; default 65536)");
	fi_param_define(&uet_prov, "rdv_eager", FI_PARAM_INT,
			"Bytes a rendezvous send carries in its request, at "
			"most one packet (default: a full packet; 0: none)");
	fi_param_define(&uet_prov, "queue_id", FI_PARAM_INT,
			"Interface rx queue of an endpoint's AF_XDP socket, one "
			"the service serves (uetctl load --queues; default: "
			"the one with fewest endpoints)");
	fi_param_define(&uet_prov, "pid_on_fep", FI_PARAM_INT,
			"PIDonFEP of endpoints that got no service "
			"(default 0)");
	fi_param_define(&uet_prov, "progress_idle_us", FI_PARAM_INT,
			"Microseconds the application may be away before the "
			"provider's progress thread runs the engines itself "
			"(default 100; 0 turns the thread off under manual "
			"progress, and its peers then wait on its calls)");
	fi_param_define(&uet_prov, "ack_before_completion", FI_PARAM_BOOL,
			"Hand the kernel every ACK a completion owes before "
			"the completion is reported, instead of in the "
			"application's next call or the progress thread's run "
			"(costs latency; default 0)");
	fi_param_define(&uet_prov, "multipath", FI_PARAM_STRING,
			"How packets spread over a fabric's equal-cost paths "
			"(their entropy, the UDP source port): aware (each "
			"packet of an unordered PDC on a path whose last "
			"packets came back clean, new ones explored, failed "
			"ones left; ordered PDCs keep one path until it "
			"fails), oblivious (a random one of its entropies for "
			"each packet) or off (one per endpoint; default "
			"aware)");
	fi_param_define(&uet_prov, "entropies", FI_PARAM_INT,
			"Entropy values one PDC may use, 1..16383 (default "
			"256)");
	fi_param_define(&uet_prov, "local", FI_PARAM_STRING,
			"Endpoints of the same interface and namespace run by "
			"the same user: auto (through shared memory) or off "
			"(by frames through the device's UMEM, as other "
			"users' endpoints are); default auto");
	fi_param_define(&uet_prov, "local_pull", FI_PARAM_INT,
			"Sends longer than this many bytes to an endpoint of "
			"a local channel go as a rendezvous its process copies "
			"straight out of the sender's memory "
			"(process_vm_readv), once, instead of twice through "
			"shared memory (default 16384; -1: never)");
	fi_param_define(&uet_prov, "stats", FI_PARAM_BOOL,
			"At each endpoint's close, print its counters to "
			"stderr as a line \"uet_engine_stats\" and a JSON "
			"object: frames, PDC retransmissions by cause "
			"(retx_rto, retx_sack, retx_probe, retx_nack, "
			"retx_spurious), entropies (ev_in_use, ev_explored, "
			"ev_recycled, ev_retired), SES (default 0)");
	uet_params_cc_define();
	uet_params_dp_define();
	uet_params_rudi_define();
	uet_params_spin_define();
	uet_params_trace_define();
	fi_param_define(&uet_prov, "ri_base", FI_PARAM_INT,
			"Resource index of an endpoint's RMA regions "
			"(12 bits, default 0)");
}

/* Reads an FI_PARAM_INT into |*v| when set and within [0, max]. */
void uet_param_int(const char *name, uint32_t max, uint32_t *v)
{
	int x;

	if (fi_param_get_int(&uet_prov, name, &x) != FI_SUCCESS)
		return;
	if (x < 0 || (uint32_t)x > max) {
		FI_WARN(&uet_prov, FI_LOG_CORE,
			"FI_UET_%s=%d out of range 0..%u: ignored\n", name,
			x, max);
		return;
	}
	*v = (uint32_t)x;
}

static bool uet_payload_mtu_is_valid(uint32_t mtu)
{
	return mtu == 0 || mtu == 1024 || mtu == 2048 || mtu == 4096 ||
	       mtu == 8192;
}

void uet_params_get(struct uet_params *p)
{
	uint32_t port = 4793, pid = 0, ri = 0;
	char *iface = NULL, *mp = NULL, *local = NULL;
	uint32_t entropies = 0;
	size_t rto = 0;
	int idle, strict;

	memset(p, 0, sizeof(*p));
	if (fi_param_get_str(&uet_prov, "iface", &iface) == FI_SUCCESS &&
	    iface)
		strncpy(p->iface, iface, sizeof(p->iface) - 1);
	uet_param_int("payload_mtu", 8192, &p->payload_mtu);
	if (!uet_payload_mtu_is_valid(p->payload_mtu)) {
		FI_WARN(&uet_prov, FI_LOG_CORE,
			"FI_UET_PAYLOAD_MTU=%u is not 1024, 2048, 4096 or "
			"8192: ignored\n", p->payload_mtu);
		p->payload_mtu = 0;
	}
	uet_param_int("job_id", 0xFFFFFF, &p->job_id);
	uet_param_int("port", 0xFFFF, &port);
	uet_param_int("max_retries", 1000000, &p->max_retries);
	uet_param_int("max_peers", 1u << 24, &p->max_peers);
	uet_param_int("max_pdcs", 32768, &p->max_pdcs);
	uet_param_int("max_opening", 32768, &p->max_opening);
	p->queue_id = UET_DEV_QUEUE_ANY;
	uet_param_int("queue_id", 0xFFFF, &p->queue_id);
	p->rdv_threshold = UET_RDV_THRESHOLD_DEFAULT;
	uet_param_int("rdv_threshold", 1u << 30, &p->rdv_threshold);
	p->rdv_eager = UET_RDV_EAGER_DEFAULT;
	uet_param_int("rdv_eager", 8192, &p->rdv_eager);
	uet_param_int("pid_on_fep", 0xFFF, &pid);
	uet_param_int("ri_base", 0xFFF, &ri);
	p->progress_idle_us = -1;
	if (fi_param_get_int(&uet_prov, "progress_idle_us", &idle) ==
	    FI_SUCCESS && idle >= 0)
		p->progress_idle_us = idle;
	if (fi_param_get_bool(&uet_prov, "ack_before_completion", &strict) ==
	    FI_SUCCESS)
		p->ack_before_cpl = strict != 0;
	if (fi_param_get_str(&uet_prov, "local", &local) == FI_SUCCESS &&
	    local) {
		if (!strcmp(local, "off"))
			p->local_off = true;
		else if (strcmp(local, "auto"))
			FI_WARN(&uet_prov, FI_LOG_CORE, "FI_UET_LOCAL=%s is "
				"not auto or off: auto\n", local);
	}
	if (fi_param_get_int(&uet_prov, "local_pull", &idle) == FI_SUCCESS)
		p->local_pull = idle < 0 ? UINT32_MAX :
				idle == 0 ? 1 : (uint32_t)idle;
	if (fi_param_get_bool(&uet_prov, "stats", &strict) == FI_SUCCESS)
		p->print_stats = strict != 0;
	if (fi_param_get_size_t(&uet_prov, "rto_ns", &rto) == FI_SUCCESS)
		p->rto_ns = rto;
	if (fi_param_get_str(&uet_prov, "multipath", &mp) == FI_SUCCESS && mp) {
		if (!strcmp(mp, "aware"))
			p->multipath = PDC_MP_AWARE;
		else if (!strcmp(mp, "oblivious"))
			p->multipath = PDC_MP_OBLIVIOUS;
		else if (!strcmp(mp, "off"))
			p->multipath = PDC_MP_OFF;
		else
			FI_WARN(&uet_prov, FI_LOG_CORE,
				"FI_UET_MULTIPATH=%s is not aware, oblivious or "
				"off: ignored\n", mp);
	}
	uet_param_int("entropies", UET_ENGINE_EV_MASK, &entropies);
	p->entropies = (uint16_t)entropies;
	p->port = port ? (uint16_t)port : 4793;
	p->pid_on_fep = (uint16_t)pid;
	p->ri_base = (uint16_t)ri;
	uet_params_cc_get(p);
	uet_params_dp_get(p);
	uet_params_rudi_get(p);
	uet_params_trace_get(p);
}

/*
 * The version we declare under a core of version |core|: its own, up to
 * the newest we honour, so that applications asking for the core's see
 * us; under a core older than our headers, 1.17 as before.
 */
uint32_t uet_fi_version_pick(uint32_t core)
{
	if (FI_VERSION_LT(core, UET_FI_VERSION))
		return UET_FI_VERSION;
	if (FI_VERSION_LT(UET_FI_VERSION_MAX, core))
		return UET_FI_VERSION_MAX;
	return core;
}

FI_EXT_INI
{
	/* fi_version() is the loading core's, not our headers'. */
	uet_prov.fi_version = uet_fi_version_pick(fi_version());
	uet_params_define();
	return &uet_prov;
}
