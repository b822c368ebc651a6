/* SPDX-License-Identifier: BSD-2-Clause */
/* A circular doubly linked list, embedded in the provider's objects. */
#ifndef UET_LIST_H
#define UET_LIST_H

#include <stdbool.h>

struct uet_list {
	struct uet_list *next, *prev;
};

static inline void uet_list_init(struct uet_list *l)
{
	l->next = l->prev = l;
}

static inline bool uet_list_is_empty(const struct uet_list *l)
{
	return l->next == l;
}

static inline void uet_list_add_tail(struct uet_list *l, struct uet_list *n)
{
	n->prev = l->prev;
	n->next = l;
	l->prev->next = n;
	l->prev = n;
}

static inline void uet_list_add_head(struct uet_list *l, struct uet_list *n)
{
	uet_list_add_tail(l->next, n);
}

static inline void uet_list_del(struct uet_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	uet_list_init(n);
}

#define uet_list_for_each(pos, head)					\
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

#endif /* UET_LIST_H */
