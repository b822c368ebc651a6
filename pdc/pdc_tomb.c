/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Records of evicted target PDCs (pdc_tgt_admit.c says why they exist):
 * until its TIME_WAIT would have ended, a record turns away SYN copies of
 * its PDC. An incast of many more initiators than PDC slots evicts one
 * PDC per initiator within a TIME_WAIT, so records are many (PDC_TOMBS_PER_PDC
 * a slot) and each question must cost O(1): they are kept in a ring in
 * the order they were made (the oldest is reused once it has expired: a
 * record is never dropped before its time), found by key through a
 * chained hash, and counted by source host (pdc_counts) for the share
 * each host may hold. Records expire from the ring's head; one that
 * expires before an older one is counted until that one goes too (a
 * TIME_WAIT at most), which only errs on the side of refusing.
 */
#include <errno.h>
#include <stdlib.h>

#include "pdc/pdc_priv.h"

#define PDC_TOMB_NIL	UINT32_MAX

static uint32_t pdc_tomb_bucket(const struct pdc_tombs *ts, uint64_t key)
{
	key ^= key >> 29;
	return (uint32_t)((key * 0xBF58476D1CE4E5B9ull) >> 32) & ts->mask;
}

int pdc_tombs_init(struct pdc_tombs *ts, uint32_t cnt)
{
	uint32_t buckets = 16;

	while (buckets < cnt)
		buckets *= 2;
	ts->rec = calloc(cnt, sizeof(*ts->rec));
	ts->bucket = malloc(buckets * sizeof(*ts->bucket));
	if (!ts->rec || !ts->bucket || pdc_counts_init(&ts->by_src, cnt) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < buckets; i++)
		ts->bucket[i] = PDC_TOMB_NIL;
	ts->mask = buckets - 1;
	ts->cap = cnt;
	ts->head = ts->cnt = 0;
	return 0;
}

void pdc_tombs_fini(struct pdc_tombs *ts)
{
	free(ts->rec);
	free(ts->bucket);
	pdc_counts_fini(&ts->by_src);
	ts->rec = NULL;
	ts->bucket = NULL;
}

/* The oldest record leaves: out of its chain and its host's count. */
static void pdc_tomb_pop(struct pdc_tombs *ts)
{
	struct pdc_tomb *t = &ts->rec[ts->head];
	uint32_t *link = &ts->bucket[pdc_tomb_bucket(ts, t->key)];

	while (*link != ts->head)
		link = &ts->rec[*link].next;
	*link = t->next;
	pdc_counts_dec(&ts->by_src, t->src);
	pdc_counts_dec(ts->peer_use, t->key >> 32);
	ts->head = (ts->head + 1) % ts->cap;
	ts->cnt--;
}

/* Expired records at the head go. */
static void pdc_tomb_expire(struct pdc_tombs *ts, uint64_t now_ns)
{
	while (ts->cnt && ts->rec[ts->head].until <= now_ns)
		pdc_tomb_pop(ts);
}

bool pdc_tomb_room(struct pdc_tombs *ts, uint64_t now_ns)
{
	pdc_tomb_expire(ts, now_ns);
	return ts->cnt < ts->cap;
}

void pdc_tomb_put(struct pdc_tombs *ts, const struct pdc *pdc,
		  uint64_t until)
{
	uint32_t i = (ts->head + ts->cnt) % ts->cap, *head;
	struct pdc_tomb *t = &ts->rec[i];

	t->key = pdc->key;
	t->src = pdc->src;
	t->start_psn = pdc->tgt.start_psn;
	t->cack_psn = pdc->tgt.cack_psn;
	t->id = pdc->id;
	t->syn_done = pdc->tgt.syn_done;
	t->until = until;
	head = &ts->bucket[pdc_tomb_bucket(ts, t->key)];
	t->next = *head;
	*head = i;
	pdc_counts_inc(&ts->by_src, t->src);
	pdc_counts_inc(ts->peer_use, t->key >> 32);
	ts->cnt++;
}

/*
 * A SYN of the evicted PDC itself; or, while that PDC's initiator had not
 * left its SYN phase, any SYN under its key: it may be that initiator,
 * renumbered to a cookie after we both challenged and admitted its window
 * (see pdc_tgt_syn_new()), whose packets the evicted PDC delivered.
 */
bool pdc_tomb_find(struct pdc_tombs *ts, uint64_t key, uint32_t start,
		   uint64_t now_ns)
{
	pdc_tomb_expire(ts, now_ns);
	for (uint32_t i = ts->bucket[pdc_tomb_bucket(ts, key)];
	     i != PDC_TOMB_NIL; i = ts->rec[i].next) {
		const struct pdc_tomb *t = &ts->rec[i];

		if (t->key == key && t->until > now_ns &&
		    (t->start_psn == start || !t->syn_done))
			return true;
	}
	return false;
}

/*
 * The record of an evicted PDC under |key|, or NULL: the one of PDCID |id|
 * (a packet naming it), or with |id| 0 the one of start PSN |start| (a
 * SYN: its initiator never learnt our PDCID).
 */
const struct pdc_tomb *pdc_tomb_of(struct pdc_tombs *ts, uint64_t key,
				   uint16_t id, uint32_t start,
				   uint64_t now_ns)
{
	pdc_tomb_expire(ts, now_ns);
	for (uint32_t i = ts->bucket[pdc_tomb_bucket(ts, key)];
	     i != PDC_TOMB_NIL; i = ts->rec[i].next) {
		const struct pdc_tomb *t = &ts->rec[i];

		if (t->key == key && t->until > now_ns &&
		    (id ? t->id == id : t->start_psn == start))
			return t;
	}
	return NULL;
}

uint32_t pdc_tomb_src_cnt(struct pdc_tombs *ts, uint64_t src, uint64_t now_ns)
{
	pdc_tomb_expire(ts, now_ns);
	return pdc_counts_get(&ts->by_src, src);
}
