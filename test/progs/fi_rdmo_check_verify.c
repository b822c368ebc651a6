/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rdmo_check's server looks at its memory: a queue walked record by
 * record, a client's own regions against what it says they hold, the
 * results the clients got, the shared queue, the remote write counters.
 */
#include <stdlib.h>
#include <string.h>

#include "test/progs/fi_rdmo_check.h"

/*
 * Walks queue |q| (|len| bytes from its start) record by record: each of
 * |client| (any of 1..|clients| when 0), with the length and bytes its
 * (client, seq) give, none twice; where each was found goes to |pos|
 * (index seq, or seq - FRD_SHORT_SEQ0 + FRD_FLUSH_RECS for short ones),
 * the records to *|count|, the times the client changed to *|switches|.
 * 0, or -1 with why.
 */
static int frd_walk(const uint8_t *q, uint64_t len, enum frd_queue kind,
		    uint32_t client, uint32_t clients, uint32_t n_main,
		    uint64_t **pos, uint64_t *count, uint64_t *switches,
		    struct frd_verdict *v)
{
	uint8_t want[FRD_AUX_MAX];
	uint64_t at = 0, n = 0, sw = 0;
	uint32_t last = 0;

	while (at < len) {
		uint32_t c, rlen, seq, idx;

		if (len - at < FRD_HDR_LEN) {
			FRD_WHY(v, "a partial header at %lu of %lu",
				(unsigned long)at, (unsigned long)len);
			return -1;
		}
		c = q[at + 1];
		rlen = q[at + 2] | (uint32_t)q[at + 3] << 8;
		memcpy(&seq, q + at + 4, sizeof(seq));
		if (q[at] != FRD_MAGIC || !c || c > clients ||
		    (client && c != client)) {
			FRD_WHY(v, "no record at %lu (bytes %02x %02x)",
				(unsigned long)at, q[at], q[at + 1]);
			return -1;
		}
		if (kind == FRD_Q_MAIN) {
			idx = seq;
			if (seq >= n_main) {
				FRD_WHY(v, "client %u seq %u at %lu: no such "
					"append", c, seq, (unsigned long)at);
				return -1;
			}
		} else if (seq < FRD_FLUSH_RECS) {
			idx = seq;
		} else if (seq >= FRD_SHORT_SEQ0 &&
			   seq < FRD_SHORT_SEQ0 + FRD_REUSE_MAX) {
			idx = seq - FRD_SHORT_SEQ0 + FRD_FLUSH_RECS;
		} else {
			FRD_WHY(v, "seq %u at %lu: no such append", seq,
				(unsigned long)at);
			return -1;
		}
		if (rlen != frd_rec_len(kind, c, seq) || rlen > len - at) {
			FRD_WHY(v, "client %u seq %u at %lu: length %u, not %u",
				c, seq, (unsigned long)at, rlen,
				frd_rec_len(kind, c, seq));
			return -1;
		}
		frd_rec_fill(want, kind, c, seq);
		if (memcmp(q + at, want, rlen)) {
			FRD_WHY(v, "client %u seq %u at %lu: its bytes differ",
				c, seq, (unsigned long)at);
			return -1;
		}
		if (pos[c][idx] != UINT64_MAX) {
			FRD_WHY(v, "client %u seq %u twice: at %lu and %lu", c,
				seq, (unsigned long)pos[c][idx],
				(unsigned long)at);
			return -1;
		}
		pos[c][idx] = at;
		sw += last && c != last;
		last = c;
		n++;
		at += rlen;
	}
	*count = n;
	if (switches)
		*switches = sw;
	return 0;
}

static bool frd_is_zero(const uint8_t *p, size_t len, size_t *at)
{
	for (size_t i = 0; i < len; i++)
		if (p[i]) {
			*at = i;
			return false;
		}
	return true;
}

/*
 * Client |k|'s own regions against what |m| says they hold: the two
 * pointers, its queue from start to pointer (|pos| filled), nothing past
 * it, the record that exactly fills it when its pointer says so, both
 * scatter regions and the flush rounds' writes.
 */
int frd_srv_client_state(struct frd_srv *s, uint32_t k,
				const struct frd_msg *m, uint64_t *pos,
				struct frd_verdict *v)
{
	struct frd_srv_client *c = &s->cl[k];
	uint64_t base = frd_raddr(&s->f, c->aux, 0);
	uint64_t aux = frd_load(frd_word(s, 8 * k));
	uint64_t full = frd_load(frd_word(s, 8 * k + 1));
	uint64_t *pp[FRD_CLIENTS_MAX + 1] = { 0 }, n = 0, len;
	uint8_t want[FRD_WRITE_LEN];
	size_t at;

	if (aux != m->aux_ptr || full != m->full_ptr) {
		FRD_WHY(v, "pointers %#lx %#lx, not %#lx %#lx",
			(unsigned long)aux, (unsigned long)full,
			(unsigned long)m->aux_ptr, (unsigned long)m->full_ptr);
		return -1;
	}
	len = aux - base;
	if (len > FRD_AUX_LEN - 8) {
		FRD_WHY(v, "its queue's pointer %#lx is past it",
			(unsigned long)aux);
		return -1;
	}
	for (uint32_t i = 0; i < FRD_AUX_IDX; i++)
		pos[i] = UINT64_MAX;
	pp[k] = pos;
	if (frd_walk(c->aux, len, FRD_Q_AUX, k, s->o->clients, 0, pp, &n,
		     NULL, v))
		return -1;
	if (n != m->aux_recs) {
		FRD_WHY(v, "%lu records in its queue, not %u",
			(unsigned long)n, m->aux_recs);
		return -1;
	}
	if (!frd_is_zero(c->aux + len, FRD_AUX_LEN - 8 - len, &at)) {
		FRD_WHY(v, "its queue written at %lu, past its pointer",
			(unsigned long)(len + at));
		return -1;
	}
	if (full == base + FRD_AUX_LEN - 8) {
		if (!frd_is_zero(c->aux + FRD_AUX_LEN - 8, 8, &at)) {
			FRD_WHY(v, "its queue's last 8 bytes written");
			return -1;
		}
	} else {
		frd_rec_fill(want, FRD_Q_AUX, k, FRD_FULL_SEQ);
		if (full != base + FRD_AUX_LEN ||
		    memcmp(c->aux + FRD_AUX_LEN - 8, want, 8)) {
			FRD_WHY(v, "its queue's last 8 bytes are not the "
				"record that fills it");
			return -1;
		}
	}
	if (m->scattered ? memcmp(c->scat, c->img0, FRD_SCAT_AREA) ||
			   memcmp(c->scat2, c->img1, FRD_SCAT2_LEN) :
	    !frd_is_zero(c->scat, FRD_SCAT_AREA, &at) ||
	    !frd_is_zero(c->scat2, FRD_SCAT2_LEN, &at)) {
		for (at = 0; at < FRD_SCAT_AREA &&
		     c->scat[at] == (m->scattered ? c->img0[at] : 0); at++)
			;
		FRD_WHY(v, "scatter regions are not as planned (first "
			"difference at %zu of the first)", at);
		return -1;
	}
	for (uint32_t r = 0; r < FRD_ROUNDS; r++) {
		const uint8_t *w = c->scat + FRD_SCAT_AREA + r * FRD_WRITE_LEN;

		if (r < m->writes) {
			frd_fill(want, FRD_WRITE_LEN, frd_write_seed(k, r));
			if (memcmp(w, want, FRD_WRITE_LEN)) {
				FRD_WHY(v, "round %u's fi_write is not all in",
					r + 1);
				return -1;
			}
		} else if (!frd_is_zero(w, FRD_WRITE_LEN, &at)) {
			FRD_WHY(v, "round %u's write area written", r + 1);
			return -1;
		}
	}
	return 0;
}

/* Client |k|'s own queue against the results it got. */
int frd_srv_aux_results(struct frd_srv *s, uint32_t k,
			       const struct frd_msg *m, const uint64_t *pairs,
			       struct frd_verdict *v)
{
	static uint64_t pos[FRD_AUX_IDX];
	struct frd_srv_client *c = &s->cl[k];
	struct frd_msg now = *m;
	uint64_t base = frd_raddr(&s->f, c->aux, 0);

	now.aux_ptr = frd_load(frd_word(s, 8 * k));
	now.full_ptr = frd_load(frd_word(s, 8 * k + 1));
	if (frd_srv_client_state(s, k, &now, pos, v))
		return -1;
	for (uint32_t i = 0; i < m->n_aux; i++) {
		uint64_t seq = pairs[2 * i], res = pairs[2 * i + 1], idx;

		if (seq == FRD_FULL_SEQ) {
			if (res != base + FRD_AUX_LEN - 8) {
				FRD_WHY(v, "the filling append got %#lx",
					(unsigned long)res);
				return -1;
			}
			continue;
		}
		idx = seq < FRD_FLUSH_RECS ? seq :
		      seq - FRD_SHORT_SEQ0 + FRD_FLUSH_RECS;
		if (idx >= FRD_AUX_IDX || pos[idx] + base != res) {
			FRD_WHY(v, "own queue: seq %lu got %#lx, found at %#lx",
				(unsigned long)seq, (unsigned long)res,
				idx < FRD_AUX_IDX ?
				(unsigned long)(pos[idx] + base) : 0ul);
			return -1;
		}
	}
	if (m->n_aux != m->aux_recs + (now.full_ptr == base + FRD_AUX_LEN)) {
		FRD_WHY(v, "%u results for %u records in its queue",
			m->n_aux, m->aux_recs);
		return -1;
	}
	return 0;
}

/*
 * The remote write counters (FI_RMA_EVENT), once every client is done:
 * an append counts once, on its data region (not its pointer's), a
 * scatter once per piece on the piece's region, an fi_write as ever;
 * refusals not at all.
 */
int frd_srv_counters(struct frd_srv *s, struct frd_verdict *v)
{
	uint64_t all, want_all = 0;
	struct {
		const char *what;
		struct fid_cntr *c;
		uint64_t want;
		uint32_t k;
	} t[3 * FRD_CLIENTS_MAX + 2];
	uint32_t n = 0;

	t[n++] = (typeof(t[0])){ "shared queue", s->q_cntr,
				 (uint64_t)s->o->clients * s->o->n_main, 0 };
	t[n++] = (typeof(t[0])){ "pointers", s->ptr_cntr, 0, 0 };
	for (uint32_t k = 1; k <= s->o->clients; k++) {
		const struct frd_srv_client *c = &s->cl[k];

		t[n++] = (typeof(t[0])){ "own queue", c->aux_cntr,
					 c->aux_writes, k };
		t[n++] = (typeof(t[0])){ "scatter region", c->scat_cntr,
					 c->pieces[0] + c->writes, k };
		t[n++] = (typeof(t[0])){ "second scatter region",
					 c->scat2_cntr, c->pieces[1], k };
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t got = fi_cntr_read(t[i].c);

		want_all += t[i].want;
		if (got != t[i].want) {
			FRD_WHY(v, "client %u's %s: its counter says %lu "
				"remote writes, not %lu", t[i].k, t[i].what,
				(unsigned long)got, (unsigned long)t[i].want);
			return -1;
		}
	}
	all = fi_cntr_read(s->f.fab.cntr[0]);
	if (all != want_all) {
		FRD_WHY(v, "the endpoint's counter says %lu remote writes, not "
			"%lu", (unsigned long)all, (unsigned long)want_all);
		return -1;
	}
	printf("fi_rdmo_check: server: remote write counters: %lu on the "
	       "endpoint, each region's its own (an append once on its data, "
	       "none on its pointer; a scatter once per piece; refused ones "
	       "none)\n", (unsigned long)all);
	return 0;
}

/* The shared queue, once every client has sent its results. */
int frd_srv_main_check(struct frd_srv *s, struct frd_verdict *v)
{
	uint32_t n = s->o->n_main, nc = s->o->clients;
	uint64_t base = frd_raddr(&s->f, s->q, 0);
	uint64_t ptr = frd_load(frd_word(s, 0)), len = ptr - base;
	uint64_t *pos[FRD_CLIENTS_MAX + 1] = { 0 }, count = 0, sw = 0;
	uint64_t want = 0;
	int ret = -1;
	size_t at;

	for (uint32_t k = 1; k <= nc; k++) {
		pos[k] = malloc(n * sizeof(uint64_t));
		if (!pos[k])
			goto out;
		for (uint32_t i = 0; i < n; i++) {
			pos[k][i] = UINT64_MAX;
			want += frd_rec_len(FRD_Q_MAIN, k, i);
		}
	}
	if (len != want || len > s->q_len) {
		FRD_WHY(v, "shared queue's pointer %#lx: %lu bytes, appended "
			"%lu", (unsigned long)ptr, (unsigned long)len,
			(unsigned long)want);
		goto out;
	}
	if (frd_walk(s->q, len, FRD_Q_MAIN, 0, nc, n, pos, &count, &sw, v))
		goto out;
	if (count != (uint64_t)n * nc) {
		FRD_WHY(v, "%lu records in the shared queue, not %lu",
			(unsigned long)count, (unsigned long)n * nc);
		goto out;
	}
	for (uint32_t k = 1; k <= nc; k++)
		for (uint32_t i = 0; i < n; i++)
			if (pos[k][i] + base != s->cl[k].main_res[i]) {
				FRD_WHY(v, "client %u seq %u: got %#lx, is at "
					"%#lx", k, i,
					(unsigned long)s->cl[k].main_res[i],
					(unsigned long)(pos[k][i] + base));
				goto out;
			}
	if (!frd_is_zero(s->q + len, s->q_len - len, &at)) {
		FRD_WHY(v, "shared queue written at %lu, past its pointer",
			(unsigned long)(len + at));
		goto out;
	}
	if (nc > 1 && sw < 2) {
		FRD_WHY(v, "the clients' records never interleave (%lu "
			"switches): they did not append together",
			(unsigned long)sw);
		goto out;
	}
	printf("fi_rdmo_check: server: shared queue: %lu records of %u "
	       "clients, %lu bytes = its pointer, every one once at the "
	       "offset its client got, nothing past it (%lu changes of "
	       "client along it)\n", (unsigned long)count, nc,
	       (unsigned long)len, (unsigned long)sw);
	ret = 0;
out:
	for (uint32_t k = 1; k <= nc; k++)
		free(pos[k]);
	return ret;
}

