/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Resource Index tables and their regions (design section 3). Tables are
 * found by (JobID, PIDonFEP, RI), regions by (table, RKEY); the JobID and
 * PID maps count tables so the target can tell "unknown job" from
 * "unknown PID" from "unknown RI", as the return codes require.
 */
#include <errno.h>

#include "ses/ses_priv.h"

#define SES_RI_F_VALID	(SES_RI_F_MSG | SES_RI_F_NO_GEN | SES_RI_F_DISABLED)
#define SES_ACCESS_VALID (SES_ACCESS_REMOTE_WRITE | SES_ACCESS_REMOTE_READ | \
			  SES_ACCESS_IDEMPOTENT)

static uint64_t ses_pid_key(uint32_t job, uint16_t pid)
{
	return (uint64_t)job << 12 | pid;
}

static uint64_t ses_mr_key(uint32_t tbl, uint64_t rkey)
{
	return (uint64_t)tbl << 48 | rkey;
}

/* A map used as a multiset: |key| -> how many tables have it. */
static int ses_count_add(struct ses_map *m, uint64_t key, int delta)
{
	uint32_t n = 0;

	ses_map_get(m, key, &n);
	n += (uint32_t)delta;
	if (!n) {
		ses_map_del(m, key);
		return 0;
	}
	return ses_map_put(m, key, n);
}

static bool ses_ri_id_is_valid(const struct ses_ri_id *id)
{
	return id && id->job_id <= UET_SES_JOB_ID_MAX &&
	       id->pid_on_fep <= UET_SES_PID_ON_FEP_MAX &&
	       id->ri <= UET_SES_RI_MAX;
}

struct ses_ri_tbl *ses_tbl_find(const struct ses *s, uint32_t job,
				uint16_t pid, uint16_t ri)
{
	uint32_t idx;

	if (!ses_map_get(&s->tbl_map, ses_ri_key(job, pid, ri), &idx))
		return NULL;
	return ses_pool_at(&s->tbls, idx);
}

static struct ses_ri_tbl *ses_tbl_find_id(const struct ses *s,
					  const struct ses_ri_id *id)
{
	if (!ses_ri_id_is_valid(id))
		return NULL;
	return ses_tbl_find(s, id->job_id, id->pid_on_fep, id->ri);
}

bool ses_job_is_known(const struct ses *s, uint32_t job)
{
	uint32_t n;

	return ses_map_get(&s->job_map, job, &n);
}

bool ses_pid_is_known(const struct ses *s, uint32_t job, uint16_t pid)
{
	uint32_t n;

	return ses_map_get(&s->pid_map, ses_pid_key(job, pid), &n);
}

int64_t ses_pid_job(const struct ses *s, uint16_t pid)
{
	const struct ses_map *m = &s->pid_map;
	int64_t job = -1;
	uint32_t i;

	/* Absolute addressing is rare; a scan keeps the maps simple. */
	for (i = 0; i <= m->mask; i++) {
		if (m->ent[i].used && (m->ent[i].key & 0xFFF) == pid &&
		    (job < 0 || (int64_t)(m->ent[i].key >> 12) < job))
			job = (int64_t)(m->ent[i].key >> 12);
	}
	return job;
}

int ses_ri_add(struct ses *s, const struct ses_ri_id *id, uint32_t flags)
{
	uint64_t key;
	struct ses_ri_tbl *t;
	int ret;

	if (!ses_ri_id_is_valid(id) || (flags & ~SES_RI_F_VALID))
		return -EINVAL;
	key = ses_ri_key(id->job_id, id->pid_on_fep, id->ri);
	if (ses_tbl_find_id(s, id))
		return -EEXIST;
	t = ses_pool_get(&s->tbls);
	if (!t)
		return -ENOMEM;
	t->key = key;
	t->flags = (uint8_t)flags;
	t->enabled = !(flags & SES_RI_F_DISABLED);
	ret = ses_map_put(&s->tbl_map, key, ses_pool_idx(&s->tbls, t));
	if (ret < 0)
		goto err_put_tbl;
	ret = ses_count_add(&s->job_map, id->job_id, 1);
	if (ret < 0)
		goto err_del_tbl;
	ret = ses_count_add(&s->pid_map,
			    ses_pid_key(id->job_id, id->pid_on_fep), 1);
	if (ret < 0)
		goto err_del_job;
	return 0;

err_del_job:
	ses_count_add(&s->job_map, id->job_id, -1);
err_del_tbl:
	ses_map_del(&s->tbl_map, key);
err_put_tbl:
	ses_pool_put(&s->tbls, t);
	return ret;
}

int ses_ri_remove(struct ses *s, const struct ses_ri_id *id)
{
	struct ses_ri_tbl *t = ses_tbl_find_id(s, id);
	uint32_t idx, i;

	if (!t)
		return -ENOENT;
	idx = ses_pool_idx(&s->tbls, t);
	for (i = 0; i < s->mrs.len && t->nregions; i++) {
		struct ses_region *r = ses_pool_at(&s->mrs, i);

		if (r->base && r->tbl == idx)
			ses_mr_del(s, r);
	}
	ses_map_del(&s->tbl_map, t->key);
	ses_count_add(&s->job_map, id->job_id, -1);
	ses_count_add(&s->pid_map, ses_pid_key(id->job_id, id->pid_on_fep), -1);
	ses_pool_put(&s->tbls, t);
	return 0;
}

int ses_ri_enable(struct ses *s, const struct ses_ri_id *id)
{
	struct ses_ri_tbl *t = ses_tbl_find_id(s, id);

	if (!t)
		return -ENOENT;
	t->enabled = true;
	return 0;
}

int ses_ri_disable(struct ses *s, const struct ses_ri_id *id)
{
	struct ses_ri_tbl *t = ses_tbl_find_id(s, id);

	if (!t)
		return -ENOENT;
	t->enabled = false;
	return 0;
}

int ses_ri_gen_get(const struct ses *s, const struct ses_ri_id *id)
{
	const struct ses_ri_tbl *t = ses_tbl_find_id(s, id);

	return t ? t->gen : -ENOENT;
}

struct ses_region *ses_mr_find(const struct ses *s,
			       const struct ses_ri_tbl *t, uint64_t rkey)
{
	uint32_t idx;

	if (!ses_map_get(&s->mr_map,
			 ses_mr_key(ses_pool_idx(&s->tbls, t), rkey), &idx))
		return NULL;
	return ses_pool_at(&s->mrs, idx);
}

static bool ses_mr_args_are_valid(uint64_t rkey, const void *base,
				  uint32_t access)
{
	/* A region is live while its base is set, so base can't be NULL. */
	return rkey <= UET_MKEY_RKEY_MASK && base &&
	       !(access & ~SES_ACCESS_VALID);
}

int ses_mr_add_tbl(struct ses *s, struct ses_ri_tbl *t, uint64_t rkey,
		   void *base, uint64_t len, uint32_t access)
{
	uint32_t tidx = ses_pool_idx(&s->tbls, t);
	struct ses_region *r;
	int ret;

	if (!ses_mr_args_are_valid(rkey, base, access))
		return -EINVAL;
	if (ses_mr_find(s, t, rkey))
		return -EEXIST;
	r = ses_pool_get(&s->mrs);
	if (!r)
		return -ENOMEM;
	ret = ses_map_put(&s->mr_map, ses_mr_key(tidx, rkey),
			  ses_pool_idx(&s->mrs, r));
	if (ret < 0) {
		ses_pool_put(&s->mrs, r);
		return ret;
	}
	r->rkey = rkey;
	r->base = base;
	r->len = len;
	r->tbl = tidx;
	r->access = access;
	r->seq = ++s->mr_seq;
	r->read = false;
	t->nregions++;
	return 0;
}

/* Unregisters |r|; requests still carrying the old generation now fail. */
void ses_mr_del(struct ses *s, struct ses_region *r)
{
	struct ses_ri_tbl *t = ses_pool_at(&s->tbls, r->tbl);

	if (s->ops.pay_revoke)
		s->ops.pay_revoke(s->ctx, r->base, r->len);
	ses_map_del(&s->mr_map, ses_mr_key(r->tbl, r->rkey));
	t->nregions--;
	t->gen++;
	r->base = NULL;
	r->seq = ++s->mr_seq;
	ses_pool_put(&s->mrs, r);
}

int ses_mr_add(struct ses *s, const struct ses_ri_id *id, uint64_t rkey,
	       void *base, uint64_t len, uint32_t access)
{
	struct ses_ri_tbl *t = ses_tbl_find_id(s, id);

	if (!ses_ri_id_is_valid(id))
		return -EINVAL;
	if (!t)
		return -ENOENT;
	return ses_mr_add_tbl(s, t, rkey, base, len, access);
}

int ses_mr_remove(struct ses *s, const struct ses_ri_id *id, uint64_t rkey)
{
	struct ses_ri_tbl *t = ses_tbl_find_id(s, id);
	struct ses_region *r;

	if (!t)
		return -ENOENT;
	r = ses_mr_find(s, t, rkey & UET_MKEY_RKEY_MASK);
	if (!r || r->rkey != rkey)
		return -ENOENT;
	ses_mr_del(s, r);
	return 0;
}

int ses_mr_replace(struct ses *s, const struct ses_ri_id *id, uint64_t rkey,
		   void *base, uint64_t len, uint32_t access)
{
	struct ses_ri_tbl *t = ses_tbl_find_id(s, id);
	struct ses_region *r;

	if (!ses_ri_id_is_valid(id) || !ses_mr_args_are_valid(rkey, base,
							       access))
		return -EINVAL;
	if (!t)
		return -ENOENT;
	r = ses_mr_find(s, t, rkey);
	if (!r)
		return -ENOENT;
	if (s->ops.pay_revoke)
		s->ops.pay_revoke(s->ctx, r->base, r->len);
	r->base = base;
	r->len = len;
	r->access = access;
	r->seq = ++s->mr_seq;
	t->gen++;
	return 0;
}
