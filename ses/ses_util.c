/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The small containers the SES engine is built from: a fixed pool, a hash
 * map, a block map for duplicate detection, and iov copies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ses/ses_util.h"
#include "uet_vm.h"

int ses_pool_init(struct ses_pool *p, size_t item_len, uint32_t cap)
{
	memset(p, 0, sizeof(*p));
	/* Keep items 8-byte aligned: they hold pointers and u64s. */
	p->item_len = (item_len + 7) & ~(size_t)7;
	p->buf = uet_vm_reserve((size_t)cap * p->item_len);
	if (!p->buf)
		return -ENOMEM;
	p->cap = cap;
	return 0;
}

void ses_pool_fini(struct ses_pool *p)
{
	uet_vm_release(p->buf, (size_t)p->cap * p->item_len);
	free(p->free);
	memset(p, 0, sizeof(*p));
}

/*
 * A new item from the untouched end. The free stack grows first, so that
 * ses_pool_put, which cannot fail, always has room for every item out.
 */
static void *ses_pool_grow(struct ses_pool *p)
{
	if (p->len == p->cap)
		return NULL;
	if (p->len == p->free_cap) {
		uint32_t n = p->free_cap ? p->free_cap * 2 : 64;
		uint32_t *f;

		if (n > p->cap)
			n = p->cap;
		f = realloc(p->free, (size_t)n * sizeof(*f));
		if (!f)
			return NULL;
		p->free = f;
		p->free_cap = n;
	}
	return ses_pool_at(p, p->len++);
}

void *ses_pool_get(struct ses_pool *p)
{
	void *it;

	if (!p->nfree)
		return ses_pool_grow(p);	/* zero: never used */
	it = ses_pool_at(p, p->free[--p->nfree]);
	memset(it, 0, p->item_len);
	return it;
}

void ses_pool_put(struct ses_pool *p, void *item)
{
	p->free[p->nfree++] = ses_pool_idx(p, item);
}

int ses_map_init(struct ses_map *m, uint32_t min_cap)
{
	uint32_t cap = 16;

	/* At most half full, so probe runs stay short. */
	while (cap < 2 * (uint64_t)min_cap)
		cap *= 2;
	m->ent = calloc(cap, sizeof(*m->ent));
	if (!m->ent)
		return -ENOMEM;
	m->mask = cap - 1;
	m->cnt = 0;
	return 0;
}

void ses_map_fini(struct ses_map *m)
{
	free(m->ent);
	m->ent = NULL;
	m->mask = 0;
	m->cnt = 0;
}

static void ses_map_insert(struct ses_map *m, uint64_t key, uint32_t val)
{
	uint32_t i = ses_map_slot(m, key);

	while (m->ent[i].used)
		i = (i + 1) & m->mask;
	m->ent[i].key = key;
	m->ent[i].val = val;
	m->ent[i].used = 1;
	m->cnt++;
}

static int ses_map_grow(struct ses_map *m)
{
	struct ses_map old = *m;
	uint32_t i;

	if (ses_map_init(m, old.mask + 1) < 0) {
		*m = old;
		return -ENOMEM;
	}
	for (i = 0; i <= old.mask; i++)
		if (old.ent[i].used)
			ses_map_insert(m, old.ent[i].key, old.ent[i].val);
	free(old.ent);
	return 0;
}

int ses_map_put(struct ses_map *m, uint64_t key, uint32_t val)
{
	uint32_t i = ses_map_slot(m, key);

	while (m->ent[i].used) {
		if (m->ent[i].key == key) {
			m->ent[i].val = val;
			return 0;
		}
		i = (i + 1) & m->mask;
	}
	if (2 * (m->cnt + 1) > m->mask + 1 && ses_map_grow(m) < 0)
		return -ENOMEM;
	ses_map_insert(m, key, val);
	return 0;
}

/*
 * Backward-shift deletion: later entries of the probe run move into the
 * hole, so lookups never need tombstones.
 */
bool ses_map_del(struct ses_map *m, uint64_t key)
{
	uint32_t i = ses_map_slot(m, key), j, home;

	while (m->ent[i].used && m->ent[i].key != key)
		i = (i + 1) & m->mask;
	if (!m->ent[i].used)
		return false;
	for (j = (i + 1) & m->mask; m->ent[j].used; j = (j + 1) & m->mask) {
		home = ses_map_slot(m, m->ent[j].key);
		/* Move j into i unless its home lies cyclically in (i, j]. */
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->ent[i] = m->ent[j];
			i = j;
		}
	}
	m->ent[i].used = 0;
	m->cnt--;
	return true;
}

int ses_blkmap_init(struct ses_blkmap *b, uint64_t msg_len)
{
	uint64_t nblk = (msg_len + SES_BLK_LEN - 1) >> SES_BLK_SHIFT;

	b->inl = 0;
	b->ext = NULL;
	if (nblk <= 64)
		return 0;
	b->ext = calloc((nblk + 63) / 64, sizeof(uint64_t));
	return b->ext ? 0 : -ENOMEM;
}

void ses_blkmap_fini(struct ses_blkmap *b)
{
	free(b->ext);
	b->ext = NULL;
}

int ses_blkmap_mark(struct ses_blkmap *b, uint64_t off, uint32_t len)
{
	uint64_t *words = b->ext ? b->ext : &b->inl;
	uint64_t first = off >> SES_BLK_SHIFT, last, i;
	uint32_t seen = 0, total;

	if (!len)
		return 0;
	last = (off + len - 1) >> SES_BLK_SHIFT;
	total = (uint32_t)(last - first + 1);
	for (i = first; i <= last; i++)
		seen += (words[i / 64] >> (i % 64)) & 1;
	if (seen == total)
		return 1;
	if (seen)
		return -EBADMSG;
	for (i = first; i <= last; i++)
		words[i / 64] |= 1ull << (i % 64);
	return 0;
}

uint64_t ses_iov_len(const struct ses_iov *iov, size_t cnt)
{
	uint64_t len = 0;
	size_t i;

	for (i = 0; i < cnt; i++)
		len += iov[i].len;
	return len;
}

/* Finds the entry holding byte |*off| and makes |*off| relative to it. */
size_t ses_iov_seek(const struct ses_iov *iov, size_t cnt, uint64_t *off)
{
	size_t i = 0;

	while (i < cnt && *off >= iov[i].len) {
		*off -= iov[i].len;
		i++;
	}
	return i;
}

size_t ses_iov_write(const struct ses_iov *iov, size_t cnt, uint64_t off,
		     const void *src, size_t len)
{
	const uint8_t *p = src;
	size_t i = ses_iov_seek(iov, cnt, &off), done = 0, n;

	for (; i < cnt && done < len; i++, off = 0) {
		n = iov[i].len - off;
		if (n > len - done)
			n = len - done;
		if (n)
			memcpy((uint8_t *)iov[i].base + off, p + done, n);
		done += n;
	}
	return done;
}

size_t ses_iov_read(void *dst, const struct ses_iov *iov, size_t cnt,
		    uint64_t off, size_t len)
{
	uint8_t *p = dst;
	size_t i = ses_iov_seek(iov, cnt, &off), done = 0, n;

	for (; i < cnt && done < len; i++, off = 0) {
		n = iov[i].len - off;
		if (n > len - done)
			n = len - done;
		if (n)
			memcpy(p + done, (const uint8_t *)iov[i].base + off, n);
		done += n;
	}
	return done;
}

size_t ses_pkt_payload_copy(const struct ses_pkt *pkt, void *dst)
{
	return ses_iov_read(dst, pkt->iov, pkt->iov_cnt, pkt->pay_off,
			    pkt->pay_len);
}
