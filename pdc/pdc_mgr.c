/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The PDC manager: configuration, PDC allocation and PDCIDs, lookup by id and
 * by key, the PRNG behind PDCIDs and start PSNs, counters and events.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdc/pdc_priv.h"

#define PDC_MAX_PDCS		4096	/* leaves >= 4 random bits in a PDCID */
/* include/uet_fep.h: UET_FEP_EP_BITS_MAX */
#define PDC_MAX_PREFIX_BITS	9
#define PDC_MIN_GEN_BITS	1	/* under a prefix, see struct pdc_cfg */
#define PDC_MAX_WINDOW		4096	/* the SYN psn_offset is 12 bits */
#define PDC_MIN_WINDOW		64	/* one SACK bitmap */
#define PDC_START_PSN_GAP	(1u << 16)	/* ref 2.9 */

void pdc_cfg_init(struct pdc_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->seed = 0x9e3779b97f4a7c15ull;
	cfg->max_pdcs = 256;
	cfg->window = 256;
	cfg->cwnd_init = 32;
	cfg->cwnd_min = 2;
	cfg->link_bps = 100000000000ull;	/* the spec's reference link */
	cfg->base_rtt_ns = 50000;	/* lowered by the first samples */
	cfg->rto_init_ns = 1000000;	/* ref 2.9: RTO 1 ms (TH) */
	cfg->rto_min_ns = 200000;
	cfg->rto_max_ns = 64000000;
	cfg->max_retries = 10;
	cfg->mp_mode = PDC_MP_AWARE;
	cfg->ev_count = 256;	/* spec 3.6.16: typical oblivious EV space */
	cfg->ev_mask = UINT16_MAX;
	cfg->ack_coalesce_len = 16384;	/* ref 2.9: 16 KiB */
	cfg->ack_coalesce_cnt = 16;
	cfg->ack_delay_ns = 20000;
	cfg->idle_ns = 1000000000;
	cfg->time_wait_ns = 1000000000;
	cfg->resp_pool_cnt = 1024;
	cfg->max_payload_len = UET_PAYLOAD_MTU_MAX + UET_SES_STD_HDR_LEN +
			       UET_SES_CAS_EXT_LEN;
}

static bool pdc_is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The prefix fits its bits and leaves the generation room over the slot. */
static bool pdc_cfg_prefix_is_valid(const struct pdc_cfg *c)
{
	uint32_t bits = c->pdcid_prefix_bits;

	return bits <= PDC_MAX_PREFIX_BITS && c->pdcid_prefix < (1u << bits) &&
	       c->max_pdcs <= (1u << (16 - bits - PDC_MIN_GEN_BITS));
}

static bool pdc_cfg_is_valid(const struct pdc_cfg *c)
{
	return pdc_cfg_prefix_is_valid(c) &&
	       pdc_is_pow2(c->max_pdcs) && c->max_pdcs >= 2 &&
	       c->max_pdcs <= PDC_MAX_PDCS && pdc_is_pow2(c->window) &&
	       c->window >= PDC_MIN_WINDOW && c->window <= PDC_MAX_WINDOW &&
	       c->cwnd_min >= 1 && c->cwnd_min <= c->cwnd_init &&
	       c->cwnd_init <= c->window && c->rto_min_ns > 0 &&
	       c->rto_min_ns <= c->rto_init_ns &&
	       c->rto_init_ns <= c->rto_max_ns && c->max_retries < 250 &&
	       c->mp_mode < PDC_MP_CNT && c->ev_mask &&
	       c->ev_count >= 1 && c->ev_count <= c->ev_mask &&
	       c->ack_coalesce_cnt >= 1 && c->resp_pool_cnt >= 1 &&
	       c->max_payload_len > 0 && c->max_payload_len < (1u << 24) &&
	       c->tgt_reserve < c->max_pdcs &&
	       (!c->cc || (c->link_bps && c->base_rtt_ns)) &&
	       !(c->cc & ~(PDC_CC_NSCC | PDC_CC_RCCC));
}

static bool pdc_ops_are_valid(const struct pdc_ops *ops)
{
	return ops && ops->deliver && ops->fill && ops->tx_done && ops->event;
}

/* splitmix64: turns any seed, 0 included, into a well-mixed state. */
uint64_t pdc_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t pdc_rand32(struct pdc_mgr *mgr)
{
	return (uint32_t)(pdc_splitmix(&mgr->rng) >> 32);
}

static int pdc_mgr_alloc(struct pdc_mgr *mgr)
{
	const struct pdc_cfg *c = &mgr->cfg;
	uint32_t i;

	mgr->tbl = calloc(c->max_pdcs, sizeof(*mgr->tbl));
	mgr->free_slot = calloc(c->max_pdcs, sizeof(*mgr->free_slot));
	mgr->hash = calloc(c->max_pdcs * 2, sizeof(*mgr->hash));
	mgr->heap = calloc(c->max_pdcs, sizeof(*mgr->heap));
	mgr->ack_due = calloc(2 * c->max_pdcs, sizeof(*mgr->ack_due));
	mgr->uudq = calloc(c->window, sizeof(*mgr->uudq));
	mgr->resp = calloc(c->resp_pool_cnt, sizeof(*mgr->resp));
	if (!mgr->tbl || !mgr->free_slot || !mgr->hash || !mgr->heap ||
	    !mgr->ack_due ||
	    !mgr->uudq || !mgr->resp)
		return -ENOMEM;
	/* Lowest slot first, so PDCIDs are easy to read in a capture. */
	for (i = 0; i < c->max_pdcs; i++)
		mgr->free_slot[i] = (uint16_t)i;
	mgr->free_head = 0;
	mgr->free_cnt = c->max_pdcs;
	mgr->hash_mask = c->max_pdcs * 2 - 1;
	for (i = 0; i < c->resp_pool_cnt; i++)
		mgr->resp[i].next = i + 1 < c->resp_pool_cnt ? i + 1 : PDC_NIL;
	mgr->resp_free = 0;
	mgr->resp_free_cnt = c->resp_pool_cnt;
	if (pdc_admit_init(mgr) < 0 ||
	    pdc_counts_init(&mgr->peer_use, c->max_pdcs *
			    (1 + PDC_TOMBS_PER_PDC) + PDC_NACKQ_LEN +
			    3 * c->window) < 0 ||
	    pdc_counts_init(&mgr->tgt_live, c->max_pdcs) < 0 ||
	    pdc_counts_init(&mgr->tgt_src, c->max_pdcs) < 0 ||
	    pdc_rudi_init(mgr) < 0)
		return -ENOMEM;
	while ((1u << mgr->id_bits) < c->max_pdcs)
		mgr->id_bits++;
	mgr->gen_bits = 16 - c->pdcid_prefix_bits - mgr->id_bits;
	mgr->id_prefix = c->pdcid_prefix_bits ?
		(uint16_t)(c->pdcid_prefix << (16 - c->pdcid_prefix_bits)) : 0;
	return 0;
}

struct pdc_mgr *pdc_mgr_create(const struct pdc_cfg *cfg,
			       const struct pdc_ops *ops, void *ctx)
{
	struct pdc_mgr *mgr;

	if (!cfg || !pdc_cfg_is_valid(cfg) || !pdc_ops_are_valid(ops)) {
		errno = EINVAL;
		return NULL;
	}
	mgr = calloc(1, sizeof(*mgr));
	if (!mgr)
		goto err_nomem;
	mgr->cfg = *cfg;
	mgr->ops = *ops;
	mgr->ctx = ctx;
	mgr->rng = cfg->seed;
	pdc_rccc_init(mgr);
	if (pdc_mgr_alloc(mgr) < 0)
		goto err_free_mgr;
	return mgr;

err_free_mgr:
	pdc_mgr_destroy(mgr);
err_nomem:
	errno = ENOMEM;
	return NULL;
}

void pdc_mgr_destroy(struct pdc_mgr *mgr)
{
	uint32_t i;

	if (!mgr)
		return;
	for (i = 0; mgr->tbl && i < mgr->cfg.max_pdcs; i++) {
		if (mgr->tbl[i] && mgr->tbl[i]->role == PDC_ROLE_INI)
			free(mgr->tbl[i]->ini.slot);
		free(mgr->tbl[i]);
	}
	pdc_admit_fini(mgr);
	pdc_rudi_fini(mgr);
	pdc_counts_fini(&mgr->peer_use);
	pdc_counts_fini(&mgr->tgt_live);
	pdc_counts_fini(&mgr->tgt_src);
	free(mgr->resp);
	free(mgr->uudq);
	free(mgr->heap);
	free(mgr->ack_due);
	free(mgr->hash);
	free(mgr->free_slot);
	free(mgr->tbl);
	free(mgr);
}

uint64_t pdc_key_ini(uint32_t peer, uint8_t mode)
{
	return (uint64_t)peer << 32 | 1u << 31 | mode;
}

uint64_t pdc_key_tgt(uint32_t peer, uint16_t rid)
{
	return (uint64_t)peer << 32 | rid;
}

static uint32_t pdc_hash_bucket(const struct pdc_mgr *mgr, uint64_t key)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(key >> 32) & mgr->hash_mask;
}

static uint32_t pdc_slot_of(const struct pdc_mgr *mgr, const struct pdc *pdc)
{
	return pdc->id & ((1u << mgr->id_bits) - 1);
}

/* The next PDC with |key| in its chain, after |after| when it is given. */
struct pdc *pdc_hash_find(const struct pdc_mgr *mgr, uint64_t key,
			  const struct pdc *after)
{
	uint32_t i = after ? after->hnext :
			     mgr->hash[pdc_hash_bucket(mgr, key)];

	while (i) {
		struct pdc *pdc = mgr->tbl[i - 1];

		if (pdc->key == key)
			return pdc;
		i = pdc->hnext;
	}
	return NULL;
}

void pdc_hash_add(struct pdc_mgr *mgr, struct pdc *pdc)
{
	uint32_t *head = &mgr->hash[pdc_hash_bucket(mgr, pdc->key)];

	pdc->hnext = *head;
	*head = pdc_slot_of(mgr, pdc) + 1;
	pdc->in_hash = true;
}

void pdc_hash_del(struct pdc_mgr *mgr, struct pdc *pdc)
{
	uint32_t *link = &mgr->hash[pdc_hash_bucket(mgr, pdc->key)];
	uint32_t me = pdc_slot_of(mgr, pdc) + 1;

	if (mgr->send_cache == pdc)
		mgr->send_cache = NULL;
	if (!pdc->in_hash)
		return;
	while (*link && *link != me)
		link = &mgr->tbl[*link - 1]->hnext;
	if (*link)
		*link = pdc->hnext;
	pdc->in_hash = false;
	pdc->hnext = 0;
}

/*
 * A PDCID is the endpoint prefix over a random generation over the slot,
 * never 0 (ref 2.9). Under a non-zero prefix the generation may be 0 too:
 * the id cannot be, and one more value keeps a small generation varied.
 */
static uint16_t pdc_new_id(struct pdc_mgr *mgr, uint16_t slot)
{
	uint32_t gen_cnt = 1u << mgr->gen_bits;
	uint32_t gen = mgr->id_prefix ? pdc_rand32(mgr) % gen_cnt :
					1 + pdc_rand32(mgr) % (gen_cnt - 1);

	return (uint16_t)(mgr->id_prefix | gen << mgr->id_bits | slot);
}

/*
 * Random, non-zero and at least 2^16 from the previous one, so a restarted
 * PDC's PSNs cannot pass for the old one's (ref 2.9).
 */
uint32_t pdc_new_start_psn(struct pdc_mgr *mgr)
{
	uint32_t psn;

	if (mgr->cfg.start_psn)
		return mgr->cfg.start_psn;
	do {
		psn = pdc_rand32(mgr);
	} while (psn == 0 || (uint32_t)(psn - mgr->last_start_psn +
					 PDC_START_PSN_GAP) <
				     2 * PDC_START_PSN_GAP);
	mgr->last_start_psn = psn;
	return psn;
}

struct pdc *pdc_new(struct pdc_mgr *mgr, uint8_t role, uint32_t peer,
		    uint8_t mode)
{
	size_t ring_len = role == PDC_ROLE_INI ?
		PDC_RING_MIN * sizeof(struct pdc_slot) : mgr->cfg.window / 8;
	struct pdc_slot *ring = NULL;
	uint16_t slot;
	struct pdc *pdc;

	if (!mgr->free_cnt)
		return NULL;
	pdc = calloc(1, sizeof(*pdc) + (role == PDC_ROLE_INI ? 0 : ring_len));
	if (role == PDC_ROLE_INI)
		ring = calloc(PDC_RING_MIN, sizeof(*ring));
	if (!pdc || (role == PDC_ROLE_INI && !ring)) {
		free(pdc);
		free(ring);
		return NULL;
	}
	slot = mgr->free_slot[mgr->free_head];
	mgr->free_head = (mgr->free_head + 1) % mgr->cfg.max_pdcs;
	mgr->free_cnt--;
	mgr->tbl[slot] = pdc;
	pdc->id = pdc_new_id(mgr, slot);
	pdc->heap_idx = UINT32_MAX;
	pdc->wake_ns = UINT64_MAX;
	pdc->peer = peer;
	pdc_counts_inc(&mgr->peer_use, peer);
	pdc->role = role;
	pdc->mode = mode;
	pdc->win_mask = mgr->cfg.window - 1;
	pdc->alloc_len = sizeof(*pdc) + ring_len;
	if (role == PDC_ROLE_INI) {
		pdc->ini.slot = ring;
		pdc->ini.ring_mask = PDC_RING_MIN - 1;
		pdc->ini.retx_head = pdc->ini.retx_tail = PDC_NO_SLOT;
	} else {
		pdc->tgt.bits = pdc->mem;
		pdc->tgt.resp_head = pdc->tgt.resp_tail = PDC_NIL;
		pdc->tgt.due_head = pdc->tgt.due_tail = PDC_NIL;
	}
	mgr->stats.pdc_created++;
	mgr->stats.pdcs++;
	mgr->stats.state_len += pdc->alloc_len;
	return pdc;
}

void pdc_free(struct pdc_mgr *mgr, struct pdc *pdc)
{
	uint32_t slot = pdc_slot_of(mgr, pdc);

	pdc_ini_answered(mgr, pdc);
	pdc_hash_del(mgr, pdc);
	pdc_timer_del(mgr, pdc);
	pdc_ready_del(mgr, pdc);
	pdc_rccc_forget(mgr, pdc);
	if (pdc->role == PDC_ROLE_TGT)
		pdc_resp_free_all(mgr, pdc);
	mgr->stats.pdcs--;
	mgr->stats.state_len -= pdc->alloc_len;
	mgr->tbl[slot] = NULL;
	mgr->free_slot[(mgr->free_head + mgr->free_cnt++) %
		       mgr->cfg.max_pdcs] = (uint16_t)slot;
	pdc_counts_dec(&mgr->peer_use, pdc->peer);
	if (pdc->role == PDC_ROLE_TGT) {
		if (pdc->state != PDC_ST_TIME_WAIT)
			pdc_counts_dec(&mgr->tgt_live, pdc->peer);
		pdc_counts_dec(&mgr->tgt_src, pdc->src);
	} else {
		pdc_active_del(mgr, pdc);
		free(pdc->ini.slot);
	}
	free(pdc);
}

void pdc_emit(struct pdc_mgr *mgr, const struct pdc *pdc, uint32_t type,
	      int err)
{
	struct pdc_event ev = {
		.type = type,
		.peer = pdc->peer,
		.pdcid = pdc->id,
		.mode = pdc->mode,
		.is_initiator = pdc->role == PDC_ROLE_INI,
		.err = err,
	};

	mgr->ops.event(mgr->ctx, &ev);
}

void pdc_log(struct pdc_mgr *mgr, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!mgr->ops.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mgr->ops.log(mgr->ctx, msg);
}

void pdc_link_state(struct pdc_mgr *mgr, bool down)
{
	mgr->link_down = down;
}

void pdc_mgr_stats(const struct pdc_mgr *mgr, struct pdc_stats *stats)
{
	*stats = mgr->stats;
	stats->ev_in_use = 0;
	for (uint32_t i = 0; mgr->cfg.mp_mode != PDC_MP_OFF &&
			     i < mgr->cfg.max_pdcs; i++) {
		const struct pdc *pdc = mgr->tbl[i];

		if (pdc && pdc->role == PDC_ROLE_INI)
			stats->ev_in_use += pdc_ev_in_use(pdc);
	}
}

uint64_t pdc_mgr_cwnd_bytes(const struct pdc_mgr *mgr)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < mgr->cfg.max_pdcs; i++) {
		const struct pdc *pdc = mgr->tbl[i];

		if (!pdc || pdc->role != PDC_ROLE_INI)
			continue;
		sum += pdc->ini.nscc ? (uint64_t)pdc->ini.cc.cwnd :
		       (uint64_t)pdc->ini.cwnd * mgr->cfg.max_payload_len;
	}
	return sum;
}

int pdc_info_get(const struct pdc_mgr *mgr, uint32_t peer, uint8_t mode,
		 struct pdc_info *info)
{
	const struct pdc *pdc = pdc_hash_find(mgr, pdc_key_ini(peer, mode),
					      NULL);

	if (!pdc)
		return -ENOENT;
	pdc_info_fill(mgr, pdc, info);
	return 0;
}

bool pdc_peer_in_use(const struct pdc_mgr *mgr, uint32_t peer)
{
	return pdc_counts_get(&mgr->peer_use, peer) != 0;
}

bool pdc_peer_unacked(const struct pdc_mgr *mgr, uint32_t peer)
{
	static const uint8_t modes[] = { PDC_MODE_RUD, PDC_MODE_ROD };

	for (size_t m = 0; m < sizeof(modes); m++) {
		const struct pdc *p = pdc_hash_find(mgr,
						    pdc_key_ini(peer, modes[m]),
						    NULL);

		if (p && p->ini.una_psn != p->ini.next_psn)
			return true;
	}
	return false;
}
