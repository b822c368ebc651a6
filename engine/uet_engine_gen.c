/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The generations the engine last learnt of its targets' RIs (SES's
 * ri_gen_get/ri_gen_set upcalls): requests carry the generation a target
 * gave, so that a request for a region since replaced is refused. An open
 * hash in the engine (e->gens, UET_ENGINE_GEN_SLOTS), no allocation: when
 * full, a request carries 0 and the target's answer corrects it.
 */
#include "engine/uet_engine_priv.h"

static struct uet_engine_gen *uet_engine_gen_slot(struct uet_engine *e,
						  const struct ses_addr *dst,
						  uint16_t ri, bool add)
{
	/* Bit 63 marks a used slot; peer, PIDonFEP and RI fit below it. */
	uint64_t key = 1ull << 63 | (uint64_t)dst->peer << 24 |
		       (uint64_t)(dst->pid_on_fep & 0xfff) << 12 | (ri & 0xfffu);
	uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) %
		     UET_ENGINE_GEN_SLOTS;

	for (uint32_t i = 0; i < UET_ENGINE_GEN_SLOTS; i++) {
		struct uet_engine_gen *g =
			&e->gens[(h + i) % UET_ENGINE_GEN_SLOTS];

		if (g->key == key)
			return g;
		if (!g->key) {
			if (!add)
				return NULL;
			g->key = key;
			g->gen = 0;
			return g;
		}
	}
	return NULL;	/* full: requests carry 0 and get corrected */
}

uint8_t uet_engine_gen_get(void *ctx, const struct ses_addr *dst, uint16_t ri)
{
	struct uet_engine_gen *g = uet_engine_gen_slot(ctx, dst, ri, false);

	return g ? g->gen : 0;
}

void uet_engine_gen_set(void *ctx, const struct ses_addr *dst, uint16_t ri,
			uint8_t gen)
{
	struct uet_engine_gen *g = uet_engine_gen_slot(ctx, dst, ri, true);

	if (g)
		g->gen = gen;
}
