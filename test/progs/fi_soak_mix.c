/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_soak -m mix (the long soak of issue 43): cycles of an rma run, a tag
 * run, a round of fetch-and-adds and a round of RDMO appends, until -D
 * seconds have passed; and the server's side of the checks the last two
 * need. Every operation is verified, and counted lost, duplicated or
 * misplaced when it is not where it must be:
 *  - fetch-and-add (FI_SUM of 1, FI_UINT64) on one counter of the server:
 *    the old values of a round must be base..base+n-1 each once (one
 *    missing: lost; twice: duplicated), the counter, read by the server
 *    in its memory, base+n (more: an add applied twice; less: lost);
 *  - appends of 8-byte records (value v0+k for append k) to the server's
 *    queue: the old pointers must be the queue's n slots each once, the
 *    record read back at each one the value its append wrote (else
 *    misplaced), and the server must find its pointer at the queue's
 *    start + 8n and every value once.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/fi_errno.h>

#include "test/progs/fi_soak.h"

#define SK_MIX_AMO	4096	/* fetch-and-adds a round */
#define SK_MIX_APPENDS	4096	/* appends a round */
#define SK_MIX_UNSET	0xdeadbeefdeadbeefull	/* result not written */
#define SK_MIX_SAY_S	60	/* a progress line this often */

struct sk_mix_tally {
	uint64_t cycles, rma_ops, tag_ops, amo_ops, rdmo_ops;
	uint64_t lost, dup, misplaced;
};

/* The server's region base as pointers and old values carry it: its
 * address with FI_MR_VIRT_ADDR, else 0 (offsets). */
static uint64_t sk_mix_base(const struct sk *s)
{
	return (s->fab.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ?
	       (uint64_t)(uintptr_t)s->buf : 0;
}

/* ---- the server ---------------------------------------------------------- */
int sk_srv_mix_cmd(struct sk *s, const struct sk_cmd *c)
{
	uint64_t q0 = sk_mix_base(s) + SK_MIX_QDATA, ptr, v;
	const uint64_t *rec = (const uint64_t *)(void *)(s->buf + SK_MIX_QDATA);
	struct sk_reply r = { .ok = 1 };
	uint8_t *seen;

	switch (c->op) {
	case SK_CMD_WORD:
		if (c->first > SK_REGION - 8 || c->first % 8)
			return -1;
		memcpy(&r.done, s->buf + c->first, 8);
		break;
	case SK_CMD_QRESET:
		memset(s->buf + SK_MIX_QDATA, 0, SK_MIX_QMAX * 8);
		memcpy(s->buf + SK_MIX_QPTR, &q0, 8);
		break;
	case SK_CMD_QCHECK:
		if (c->count > SK_MIX_QMAX)
			return -1;
		seen = calloc(c->count + 1, 1);
		if (!seen)
			return -1;
		for (uint64_t i = 0; i < c->count; i++) {
			v = rec[i] - c->seed;
			if (v >= c->count)
				r.bad++;	/* not one of the round's */
			else if (seen[v]++)
				r.extra++;	/* the same record again */
			else
				r.done++;
		}
		free(seen);
		memcpy(&ptr, s->buf + SK_MIX_QPTR, 8);
		if (ptr != q0 + 8 * c->count) {
			fprintf(stderr, "fi_soak: server: queue pointer at "
				"%+lld B from its start, want %llu\n",
				(long long)(ptr - q0),
				(unsigned long long)(8 * c->count));
			r.bad++;
		}
		r.ok = !r.bad && !r.extra && r.done == c->count;
		break;
	default:
		return -1;
	}
	return sk_send(s, &r, sizeof(r));
}

/* ---- the client ---------------------------------------------------------- */
/* The server's word at region offset |off|; 0 or -1. */
static int sk_mix_word(struct sk *s, uint64_t off, uint64_t *v)
{
	struct sk_cmd c = { .op = SK_CMD_WORD, .first = off };
	struct sk_reply r;

	if (sk_cmd(s, &c, &r))
		return -1;
	*v = r.done;
	return 0;
}

/* Posts |n| ops of |kind| (op k: local k * 8, remote |roff|), the window
 * full, and waits for all; 0 or -1 (an error completion said). */
static int sk_mix_post_all(struct sk *s, enum sk_kind kind, uint64_t n,
			   uint64_t roff, const char *what)
{
	int ret = 0;

	for (uint64_t k = 0; k < n && !ret; k++) {
		ret = sk_drain_to(s, s->o.window - 1);
		if (!ret)
			ret = sk_post_at(s, kind, k, k * 8, roff, 8);
	}
	if (!ret)
		ret = sk_drain_to(s, 0);
	if (ret == 1)
		sk_err_print(s, what);
	return ret ? -1 : 0;
}

/*
 * |n| results at |res| (each 8 B) must be |lo| + step * i for i < n each
 * once: adds the missing to |lost| and the repeated to |dup|; its slot
 * index per result in |pos| (n: none). Returns the results not of the set.
 */
static uint64_t sk_mix_perm(const uint64_t *res, uint64_t n, uint64_t lo,
			    uint64_t step, uint64_t *pos, uint64_t *lost,
			    uint64_t *dup)
{
	uint8_t *seen = calloc(n + 1, 1);
	uint64_t odd = 0;

	if (!seen) {
		*lost += n;
		return n;
	}
	for (uint64_t k = 0; k < n; k++) {
		uint64_t d = res[k] - lo, i = d / step;

		pos[k] = n;
		if (d % step || i >= n)
			odd++;
		else if (seen[i]++)
			(*dup)++;
		else
			pos[k] = i;
	}
	for (uint64_t i = 0; i < n; i++)
		*lost += !seen[i];
	free(seen);
	return odd;
}

static int sk_mix_amo(struct sk *s, struct sk_mix_tally *t)
{
	uint64_t *res = (uint64_t *)(void *)s->buf, *pos, base, after, one = 1;
	uint64_t n = SK_MIX_AMO, lost = 0, dup = 0, odd;

	memcpy(s->buf + SK_MIX_OFF, &one, 8);	/* what each adds */
	for (uint64_t k = 0; k < n; k++)
		res[k] = SK_MIX_UNSET;
	if (sk_mix_word(s, SK_MIX_COUNTER, &base) ||
	    sk_mix_post_all(s, SK_FADD, n, SK_MIX_COUNTER, "fetch-and-add") ||
	    sk_mix_word(s, SK_MIX_COUNTER, &after))
		return -1;
	pos = malloc(n * sizeof(*pos));
	if (!pos)
		return -1;
	odd = sk_mix_perm(res, n, base, 1, pos, &lost, &dup);
	free(pos);
	/* An op seen both ways (its old value, the counter) counts once. */
	if (after > base + n && after - base - n > dup)
		dup = after - base - n;
	else if (after < base + n && base + n - after > lost)
		lost = base + n - after;
	t->amo_ops += n;
	t->lost += lost;
	t->dup += dup;
	t->misplaced += odd;
	if (lost || dup || odd) {
		fprintf(stderr, "fi_soak: mix: fetch-and-add round from %llu: "
			"counter %llu (want %llu), %llu old values lost, %llu "
			"twice, %llu out of range\n", (unsigned long long)base,
			(unsigned long long)after,
			(unsigned long long)(base + n),
			(unsigned long long)lost, (unsigned long long)dup,
			(unsigned long long)odd);
		return -1;
	}
	return 0;
}

static int sk_mix_rdmo(struct sk *s, uint64_t v0, struct sk_mix_tally *t)
{
	uint64_t n = SK_MIX_APPENDS, q0 = s->srv.region_addr + SK_MIX_QDATA;
	uint64_t *rec = (uint64_t *)(void *)s->buf, lost = 0, dup = 0, bad = 0;
	uint64_t *res = (uint64_t *)(void *)(s->buf + SK_REGION);
	uint64_t *back = (uint64_t *)(void *)(s->buf + SK_REGION + SK_MIB);
	struct sk_cmd c = { .op = SK_CMD_QRESET };
	struct sk_reply r;
	uint64_t *pos;

	for (uint64_t k = 0; k < n; k++) {
		rec[k] = v0 + k;
		res[k] = SK_MIX_UNSET;
	}
	if (sk_cmd(s, &c, &r) ||
	    sk_mix_post_all(s, SK_APPEND, n, SK_MIX_QPTR, "append"))
		return -1;
	/* The queue read back: each record where its append said. */
	memset(back, 0, n * 8);
	if (sk_post_at(s, SK_READ_AT, n, SK_MIB, SK_MIX_QDATA, n * 8) ||
	    sk_drain_to(s, 0)) {
		sk_err_print(s, "queue read back");
		return -1;
	}
	pos = malloc(n * sizeof(*pos));
	if (!pos)
		return -1;
	bad = sk_mix_perm(res, n, q0, 8, pos, &lost, &dup);
	for (uint64_t k = 0; k < n; k++)
		bad += pos[k] < n && back[pos[k]] != v0 + k;
	free(pos);
	c = (struct sk_cmd){ .op = SK_CMD_QCHECK, .count = n, .seed = v0 };
	if (sk_cmd(s, &c, &r))
		return -1;
	/* The client's view and the server's: an op seen in both, once. */
	t->rdmo_ops += n;
	t->lost += lost > n - r.done ? lost : n - r.done;
	t->dup += dup > r.extra ? dup : r.extra;
	t->misplaced += bad > r.bad ? bad : r.bad;
	if (lost || dup || bad || !r.ok) {
		fprintf(stderr, "fi_soak: mix: append round of %llu: %llu "
			"slots unused, %llu given twice, %llu records not "
			"where their append said; the server found %llu of "
			"them, %llu twice, %llu wrong (its pointer counts)\n",
			(unsigned long long)n, (unsigned long long)lost,
			(unsigned long long)dup, (unsigned long long)bad,
			(unsigned long long)r.done,
			(unsigned long long)r.extra,
			(unsigned long long)r.bad);
		return -1;
	}
	return 0;
}

static void sk_mix_say(const struct sk *s, const char *what, uint64_t secs,
		       const struct sk_mix_tally *t)
{
	printf("fi_soak: mix: %s %llu s: %llu cycles; rma %llu writes %llu "
	       "B; tag %llu messages %llu B; amo %llu fetch-adds; rdmo %llu "
	       "appends; lost %llu duplicated %llu misplaced %llu; max "
	       "latency %.1f ms\n", what, (unsigned long long)secs,
	       (unsigned long long)t->cycles, (unsigned long long)t->rma_ops,
	       (unsigned long long)(t->rma_ops * s->o.size),
	       (unsigned long long)t->tag_ops,
	       (unsigned long long)s->tag_bytes,
	       (unsigned long long)t->amo_ops,
	       (unsigned long long)t->rdmo_ops, (unsigned long long)t->lost,
	       (unsigned long long)t->dup,
	       (unsigned long long)t->misplaced,
	       (double)s->lat_max_ns / 1e6);
}

int sk_client_mix(struct sk *s)
{
	uint64_t t0 = sk_now_ns(), per = s->o.mib * SK_MIB / s->o.size;
	uint64_t end = t0 + (uint64_t)s->o.duration_s * 1000000000ull;
	uint64_t next_say = SK_MIX_SAY_S;
	struct sk_mix_tally t = { 0 };
	const char *failed = NULL;

	if (!per || per > (1ull << 24)) {
		fprintf(stderr, "fi_soak: mix: -M %llu MiB of %llu B\n",
			(unsigned long long)s->o.mib,
			(unsigned long long)s->o.size);
		return -1;
	}
	s->quiet = true;
	printf("fi_soak: running\n");
	while (!failed && sk_now_ns() < end) {
		/* Each cycle's ops: numbers (tags, patterns) of their own. */
		uint64_t k0 = t.cycles * per;

		if (sk_client_rma(s, k0, per))
			failed = "rma";
		else if ((t.rma_ops += per, sk_client_tag(s, k0, per)))
			failed = "tag";
		else if ((t.tag_ops += per, sk_mix_amo(s, &t)))
			failed = "fetch-and-add";
		else if (sk_mix_rdmo(s, t.cycles << 32 | 1, &t))
			failed = "append";
		else
			t.cycles++;
		if ((sk_now_ns() - t0) / 1000000000ull >= next_say) {
			sk_mix_say(s, "at", next_say, &t);
			next_say += SK_MIX_SAY_S;
		}
	}
	if (failed)
		printf("fi_soak: mix: FAILED in cycle %llu, %s round\n",
		       (unsigned long long)t.cycles, failed);
	sk_mix_say(s, "done in", (sk_now_ns() - t0) / 1000000000ull, &t);
	return failed ? -1 : 0;
}
