/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tss_keys IFACE JOB [HOLD_S]: opens an endpoint of JobID JOB on IFACE's
 * device service and asks for its TSS keys (uet_dev_tss_keys) twice,
 * printing what came (never key bytes) and whether the epochs held; with
 * HOLD_S, keeps the endpoint that long and asks once more (the service
 * may have reloaded its keys meanwhile). For test/e2e/e2e_tss_keys.sh.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/uet_dev_client.h"

static int t_ask(const struct uet_dev_ep *ep, struct uet_tss_sd_keys *k)
{
	char why[160];
	int ret = uet_dev_tss_keys(ep->conn, k, why, sizeof(why));

	if (ret < 0) {
		printf("ep %u: error %d (%s): %s\n", ep->rep.ep, -ret,
		       strerror(-ret), why);
		return ret;
	}
	printf("ep %u: sdi %u mode %u tx_an %u have %u use_ssi %u ssi 0x%08x "
	       "epoch %u %u gen %u\n", ep->rep.ep, k->sdi, k->mode, k->tx_an,
	       k->have, k->use_ssi, k->ssi, k->epoch[0], k->epoch[1], k->gen);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct uet_tss_sd_keys a, b;
	struct uet_dev_ep ep;
	char why[160];
	int ret;

	if (argc < 3) {
		fprintf(stderr, "usage: tss_keys IFACE JOB [HOLD_S]\n");
		return 2;
	}
	ret = uet_dev_ep_open(argv[1], (uint32_t)strtoul(argv[2], NULL, 10),
			      UET_DEV_PID_ANY, UET_DEV_QUEUE_ANY, &ep, why,
			      sizeof(why));
	if (ret < 0) {
		fprintf(stderr, "tss_keys: endpoint: %s\n", why);
		return 1;
	}
	ret = t_ask(&ep, &a);
	if (ret == 0 && t_ask(&ep, &b) == 0)
		printf("%s\n", memcmp(a.epoch, b.epoch, sizeof(a.epoch)) ?
		       "epochs moved" : "epochs held");
	if (argc > 3) {
		fflush(stdout);
		sleep((unsigned int)atoi(argv[3]));
		ret = t_ask(&ep, &b);
	}
	explicit_bzero(&a, sizeof(a));
	explicit_bzero(&b, sizeof(b));
	uet_dev_ep_close(&ep);
	return ret < 0 ? 1 : 0;
}
