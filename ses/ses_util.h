/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The small containers the SES engine is built from: an intrusive list, a
 * fixed pool, a hash map, a block map for duplicate detection, and iov
 * copies. Internal to ses/.
 */
#ifndef SES_UTIL_H
#define SES_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ses/ses.h"

#define ses_container_of(p, type, member) \
	((type *)(void *)((char *)(p) - offsetof(type, member)))

/* ---- intrusive doubly linked list -------------------------------------- */
struct ses_list {
	struct ses_list *next, *prev;
};

static inline void ses_list_init(struct ses_list *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool ses_list_is_empty(const struct ses_list *h)
{
	return h->next == h;
}

static inline void ses_list_add_tail(struct ses_list *h, struct ses_list *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

/* Unlinks |n| and leaves it self-linked, so a second del is harmless. */
static inline void ses_list_del(struct ses_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	ses_list_init(n);
}

/*
 * ---- pool: up to |cap| items, stable pointers, zeroed on get ------------
 * The space for |cap| items is reserved (uet_vm.h) and used from the low
 * end: |len| items have ever been handed out, those below it are the only
 * ones a scan need look at (all zero until first taken), and freed ones
 * are taken again first, so memory follows the most ever in use at once.
 */
struct ses_pool {
	uint8_t *buf;
	size_t item_len;
	uint32_t cap;
	uint32_t len;		/* items ever handed out: [0, len) */
	uint32_t nfree;		/* of those, free (on the stack) */
	uint32_t free_cap;
	uint32_t *free;
};

int ses_pool_init(struct ses_pool *p, size_t item_len, uint32_t cap);
void ses_pool_fini(struct ses_pool *p);
void *ses_pool_get(struct ses_pool *p);		/* NULL when empty */
void ses_pool_put(struct ses_pool *p, void *item);

static inline uint32_t ses_pool_idx(const struct ses_pool *p, const void *it)
{
	return (uint32_t)(((const uint8_t *)it - p->buf) / p->item_len);
}

static inline void *ses_pool_at(const struct ses_pool *p, uint32_t idx)
{
	return p->buf + (size_t)idx * p->item_len;
}

/* ---- hash map: u64 key -> u32 value, linear probing, grows ------------- */
struct ses_map_ent {
	uint64_t key;
	uint32_t val;
	uint32_t used;
};

struct ses_map {
	struct ses_map_ent *ent;
	uint32_t mask;
	uint32_t cnt;
};

int ses_map_init(struct ses_map *m, uint32_t min_cap);
void ses_map_fini(struct ses_map *m);
/* Inserts or overwrites. Returns 0 or -ENOMEM. */
int ses_map_put(struct ses_map *m, uint64_t key, uint32_t val);
bool ses_map_del(struct ses_map *m, uint64_t key);

static inline uint32_t ses_map_slot(const struct ses_map *m, uint64_t key)
{
	/* Fibonacci hashing spreads the dense keys we use (ids, indices). */
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & m->mask;
}

static inline bool ses_map_get(const struct ses_map *m, uint64_t key,
			       uint32_t *val)
{
	uint32_t i = ses_map_slot(m, key);

	while (m->ent[i].used) {
		if (m->ent[i].key == key) {
			*val = m->ent[i].val;
			return true;
		}
		i = (i + 1) & m->mask;
	}
	return false;
}

/*
 * ---- block map: which 1 KiB blocks of a message arrived ---------------
 * Every Payload MTU is a multiple of 1 KiB and every packet but the last
 * carries a whole MTU, so each packet covers whole blocks (the last one
 * ends the message). A packet is new, a duplicate, or malformed.
 */
#define SES_BLK_SHIFT		10
#define SES_BLK_LEN		(1u << SES_BLK_SHIFT)

struct ses_blkmap {
	uint64_t inl;		/* messages up to 64 blocks */
	uint64_t *ext;		/* longer ones */
};

int ses_blkmap_init(struct ses_blkmap *b, uint64_t msg_len);
void ses_blkmap_fini(struct ses_blkmap *b);
/* Returns 0 (all blocks new, now marked), 1 (all seen), -EBADMSG (mixed). */
int ses_blkmap_mark(struct ses_blkmap *b, uint64_t off, uint32_t len);

/* ---- iov helpers -------------------------------------------------------- */
uint64_t ses_iov_len(const struct ses_iov *iov, size_t cnt);
/* The entry of |iov| byte |*off| is in, |*off| then its offset there. */
size_t ses_iov_seek(const struct ses_iov *iov, size_t cnt, uint64_t *off);
/* Copies into/out of the bytes of |iov| from |off|; returns bytes copied. */
size_t ses_iov_write(const struct ses_iov *iov, size_t cnt, uint64_t off,
		     const void *src, size_t len);
size_t ses_iov_read(void *dst, const struct ses_iov *iov, size_t cnt,
		    uint64_t off, size_t len);

#endif /* SES_UTIL_H */
