/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's neighbour lookups (dev/uet_nl.h, the kept socket and the
 * lookups that never wait) for the engine fuzzer: every address is
 * reachable through the fake interface, at the MAC the fuzzer's neighbour
 * table gives it (fake_neigh_mac), as fuzz_engine_fakes.c has
 * uet_nl_resolve() say.
 */
#include <string.h>

#include "dev/uet_nl.h"
#include "fuzz_engine_fakes.h"

static int fake_nl_sock;

struct uet_nl *uet_nl_open(void)
{
	return (struct uet_nl *)&fake_nl_sock;
}

void uet_nl_close(struct uet_nl *nl)
{
	(void)nl;
}

int uet_nl_hop_lookup(struct uet_nl *nl, const void *dst, bool is_v6,
		      struct uet_nl_hop *hop)
{
	(void)nl;
	memset(hop, 0, sizeof(*hop));
	hop->ifindex = fake_dev.ifindex;
	memcpy(&hop->addr, dst, is_v6 ? 16 : 4);
	hop->nud = UET_NL_NUD_USABLE;
	fake_neigh_mac(dst, is_v6, hop->mac);
	return 0;
}

int uet_nl_hop_resolve(struct uet_nl *nl, const struct uet_nl_hop *hop,
		       bool is_v6)
{
	(void)nl;
	(void)hop;
	(void)is_v6;
	return 0;
}
