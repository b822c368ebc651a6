/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The provider's congestion-control settings (FI_UET_CC, FI_UET_LINK_MBPS,
 * FI_UET_TRIMMING, FI_UET_DFC, FI_UET_DSCP_*): what the engine hands PDC's NSCC and
 * writes in its frames' traffic class. See fi_uet(7).
 */
#include <stdatomic.h>
#include <string.h>

#include "dev/uet_link.h"
#include "pdc/pdc.h"
#include "uet/uet.h"

/* What NSCC and RCCC assume where neither the driver nor the user says:
 * the spec's reference link (pdc_cfg_init's default). */
#define UET_LINK_MBPS_DEFAULT	100000u

void uet_params_cc_define(void)
{
	fi_param_define(&uet_prov, "cc", FI_PARAM_STRING,
			"Congestion control: nscc (UE 1.0 NSCC: a window in "
			"bytes steered by ECN marks and queueing delay), "
			"nscc,rccc (and receiver credits: a receiver grants "
			"the right to send at its link's rate), rccc or off "
			"(a window in packets that halves on loss); default "
			"nscc");
	fi_param_define(&uet_prov, "link_mbps", FI_PARAM_INT,
			"Our link's rate, Mbit/s: NSCC's largest window is 1.5 "
			"x rate x base RTT, and RCCC grants credit at 0.99 of "
			"it (default: the speed the interface's driver "
			"reports; 100000 where it reports none or a virtual "
			"device's nominal one, such as veth's: set this to "
			"the rate of the fabric behind it)");
	fi_param_define(&uet_prov, "trimming", FI_PARAM_BOOL,
			"The fabric trims packets: NSCC's target delay is 3/4 "
			"of the base RTT instead of 1 (default 0)");
	fi_param_define(&uet_prov, "dfc", FI_PARAM_BOOL,
			"Destination flow control: while an endpoint's receive "
			"ring backs up, its ACKs ask the senders for smaller "
			"windows, and for the old ones back once it caught up "
			"(NSCC; default 1)");
	fi_param_define(&uet_prov, "dscp", FI_PARAM_INT,
			"DSCP of requests, which a switch may trim (default "
			"10)");
	fi_param_define(&uet_prov, "dscp_ctl", FI_PARAM_INT,
			"DSCP of ACKs, NACKs and control packets (default 0)");
	fi_param_define(&uet_prov, "dscp_trimmed", FI_PARAM_INT,
			"DSCP a trimming switch writes (default 46)");
	fi_param_define(&uet_prov, "dscp_trimmed_lasthop", FI_PARAM_INT,
			"DSCP a trimming last-hop switch writes (default 44)");
}

static void uet_param_dscp(const char *name, uint8_t *v)
{
	uint32_t x = *v;

	uet_param_int(name, 63, &x);
	*v = (uint8_t)x;
}

void uet_params_cc_get(struct uet_params *p)
{
	char *cc = NULL;
	int trim, dfc;

	/*
	 * NSCC alone by default: on bench_incast it finished incasts as
	 * fast as or faster than with receiver credits too (fi_uet(7),
	 * CONGESTION CONTROL, has the figures). The MPI_ERR_INTERN once
	 * seen with nscc,rccc (a PDC out of retries) came on loaded cores
	 * with ranks that busy-polled, and NSCC alone stalled there too;
	 * it went when polling began to yield (FI_UET_SPIN_US), and
	 * e2e_mpi_rccc runs that job with RCCC in make check.
	 */
	p->cc = PDC_CC_NSCC;
	if (fi_param_get_str(&uet_prov, "cc", &cc) == FI_SUCCESS && cc) {
		if (!strcmp(cc, "off"))
			p->cc = 0;
		else if (!strcmp(cc, "nscc"))
			p->cc = PDC_CC_NSCC;
		else if (!strcmp(cc, "rccc"))
			p->cc = PDC_CC_RCCC;
		else if (!strcmp(cc, "nscc,rccc") || !strcmp(cc, "rccc,nscc"))
			p->cc = PDC_CC_NSCC | PDC_CC_RCCC;
		else
			FI_WARN(&uet_prov, FI_LOG_CORE,
				"FI_UET_CC=%s is not nscc, nscc,rccc, rccc or "
				"off: nscc\n", cc);
	}
	uet_param_int("link_mbps", 10000000, &p->link_mbps);	/* 0: default */
	if (fi_param_get_bool(&uet_prov, "trimming", &trim) == FI_SUCCESS)
		p->trimming = trim != 0;
	p->dfc = true;
	if (fi_param_get_bool(&uet_prov, "dfc", &dfc) == FI_SUCCESS)
		p->dfc = dfc != 0;
	p->dscp = uet_engine_dscp_default;
	uet_param_dscp("dscp", &p->dscp.data);
	uet_param_dscp("dscp_ctl", &p->dscp.ctl);
	uet_param_dscp("dscp_trimmed", &p->dscp.trimmed);
	uet_param_dscp("dscp_trimmed_lasthop", &p->dscp.lasthop);
	/* A frame we send must never look trimmed to its receiver. */
	if (p->dscp.trimmed == p->dscp.data || p->dscp.trimmed == p->dscp.ctl ||
	    p->dscp.lasthop == p->dscp.data || p->dscp.lasthop == p->dscp.ctl) {
		FI_WARN(&uet_prov, FI_LOG_CORE,
			"FI_UET_DSCP_*: a trimmed DSCP equals one we send: "
			"the defaults instead\n");
		p->dscp = uet_engine_dscp_default;
	}
}

/*
 * The link rate the engine's CC uses on |ifname|: FI_UET_LINK_MBPS when set
 * (|param_mbps|), else the driver's, else the default, the most NSCC's
 * learnt rate may be (*|guessed|). Said once per process
 * (FI_LOG_LEVEL=info; warn when it is a guess), as every endpoint of a job
 * on one interface gets the same answer.
 */
uint32_t uet_cc_link_mbps(const char *ifname, uint32_t param_mbps,
			  bool *guessed)
{
	static atomic_bool said;
	struct uet_link_speed l;
	bool say = !atomic_exchange(&said, true);
	int ret;

	*guessed = false;
	if (param_mbps) {
		if (say)
			FI_INFO(&uet_prov, FI_LOG_CORE, "%s: link rate %u "
				"Mbit/s (FI_UET_LINK_MBPS)\n", ifname,
				param_mbps);
		return param_mbps;
	}
	ret = uet_link_speed(ifname, &l);
	if (!ret && l.mbps && !l.nominal) {
		if (say)
			FI_INFO(&uet_prov, FI_LOG_CORE, "%s: link rate %u "
				"Mbit/s (its driver %s)\n", ifname, l.mbps,
				l.driver);
		return l.mbps;
	}
	*guessed = true;
	/*
	 * A virtual device's figure is not a rate: veth says 10000 and
	 * carries what the CPUs can copy, more than that between two
	 * namespaces. Its peer's real link, if any, is out of sight.
	 */
	if (!ret && l.mbps) {
		if (say)
			FI_WARN(&uet_prov, FI_LOG_CORE, "%s: a %s device, "
				"whose %u Mbit/s is nominal: congestion "
				"control learns the rate from the fabric's "
				"marks, up to %u Mbit/s; set FI_UET_LINK_MBPS "
				"to the fabric's rate\n",
				ifname, l.driver, l.mbps,
				UET_LINK_MBPS_DEFAULT);
		return UET_LINK_MBPS_DEFAULT;
	}
	if (say)
		FI_WARN(&uet_prov, FI_LOG_CORE, "%s: the driver reports no "
			"link speed (%s): congestion control learns the "
			"rate from the fabric's marks, up to %u Mbit/s; set "
			"FI_UET_LINK_MBPS\n", ifname,
			ret ? strerror(-ret) : "speed unknown",
			UET_LINK_MBPS_DEFAULT);
	return UET_LINK_MBPS_DEFAULT;
}
