/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_fep_check's server: receives posted at every endpoint, the clients
 * served one after the other, and each endpoint's buffer and messages
 * checked against what its client says it did.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test/progs/fi_fep_check.h"

/* ---- server -------------------------------------------------------------- */
static struct fep_op *fep_recv_op(struct fep_ep *e, int which)
{
	return &e->op[2 * FEP_REGIONS + which];
}

static int fep_post_recv(struct fep *f, struct fep_ep *e, int which)
{
	struct fep_op *op = fep_recv_op(e, which);
	ssize_t ret;

	op->kind = FEP_RECV;
	op->slot = which;
	ret = FEP_POST(f, op, fi_trecv(e->ep, e->buf + f->off[FEP_REGIONS] +
				       (size_t)which * FEP_MSG_SLOT,
				       FEP_MSG_SLOT, e->desc, FI_ADDR_UNSPEC,
				       0, ~0ull, &op->fctx));
	if (ret)
		FEP_FAIL("endpoint %d: fi_trecv: %s", e->idx,
			 fi_strerror((int)-ret));
	return 0;
}

/* A message at server endpoint |e|: for it, whole, and new; reposts. */
int fep_on_recv(struct fep *f, struct fep_ep *e,
		       const struct fi_cq_tagged_entry *c)
{
	const struct fep_op *op = c->op_context;
	const uint8_t *p = e->buf + f->off[FEP_REGIONS] +
			   (size_t)op->slot * FEP_MSG_SLOT;
	static uint8_t want[FEP_MSG_SLOT];
	struct fep_msg_hdr h;
	const char *bad = NULL;

	memcpy(&h, p, sizeof(h));
	if (c->len < sizeof(h) || h.magic != FEP_MAGIC)
		bad = "not one of ours";
	else if (h.ep != (uint32_t)e->idx)
		bad = "for another endpoint";
	else if (h.which > 1 || c->len != fep_msg_len[h.which] ||
		 c->tag != fep_tag(h.ep, h.round, h.which))
		bad = "length or tag not as sent";
	else if (h.round >= FEP_MAX_ROUNDS ||
		 (e->seen[h.round / 4] >> (h.round % 4 * 2 + h.which) & 1))
		bad = "a second time";
	else if (e->msgs && h.seed != e->msg_seed)
		bad = "from another client";
	if (!bad) {
		fep_fill(want, c->len - sizeof(h), fep_key(h.seed, h.ep,
			 8 + h.which, h.round));
		if (memcmp(p + sizeof(h), want, c->len - sizeof(h)))
			bad = "with a wrong payload";
	}
	if (bad) {
		if (e->bad++ < FEP_SHOW)
			printf("fi_fep_check: server endpoint %d: a message "
			       "(tag %#llx, %zu B, for endpoint %u) %s\n",
			       e->idx, (unsigned long long)c->tag, c->len,
			       h.ep, bad);
	} else {
		e->seen[h.round / 4] |= (uint8_t)(1u << (h.round % 4 * 2 +
							h.which));
		e->msg_seed = h.seed;
		e->msgs++;
	}
	return fep_post_recv(f, e, op->slot);
}

/* Fills |want| with what endpoint |e|'s area must hold. */
static void fep_expected(struct fep *f, struct fep_ep *e, uint8_t *want)
{
	fep_fill(want, f->off[FEP_REGIONS], fep_virgin_key((uint32_t)e->idx));
	if (!e->written)
		return;
	for (int k = 0; k < FEP_REGIONS; k++)
		fep_fill(want + f->off[k], fep_region_len[k],
			 fep_key(e->w_seed, (uint32_t)e->idx, (uint32_t)k,
				 e->w_round));
}

/* Where offset |o| of the area is, for messages. */
static void fep_where(struct fep *f, size_t o, char *buf, size_t len)
{
	for (int k = 0; k < FEP_REGIONS; k++) {
		if (o >= f->off[k] && o < f->off[k] + fep_region_len[k]) {
			snprintf(buf, len, "region %d (%zu B) at byte %zu", k,
				 fep_region_len[k], o - f->off[k]);
			return;
		}
	}
	snprintf(buf, len, "outside the regions, at offset %zu", o);
}

/* Checks endpoint |e| after a client; returns the failures. */
static int fep_check_ep(struct fep *f, struct fep_ep *e,
			const struct fep_report *r, uint8_t *want)
{
	uint32_t sent = r->msgs[e->idx];
	uint32_t rounds = sent / 2;
	size_t len = f->off[FEP_REGIONS], diff = 0;
	char where[96];
	int fails = e->bad ? 1 : 0;

	fep_expected(f, e, want);
	if (memcmp(e->buf, want, len)) {
		while (e->buf[diff] == want[diff])
			diff++;
		fep_where(f, diff, where, sizeof(where));
		printf("fi_fep_check: server endpoint %d: its buffer differs "
		       "from %s first in %s (%#x, expected %#x)\n", e->idx,
		       e->written ? "its peer's pattern" : "what it held",
		       where, e->buf[diff], want[diff]);
		fails++;
	}
	if (e->msgs != sent) {
		printf("fi_fep_check: server endpoint %d: %u tagged messages "
		       "arrived, its peer sent %u\n", e->idx, e->msgs, sent);
		fails++;
	}
	for (uint32_t q = 0; q < rounds * 2 && e->msgs == sent; q++)
		if (!(e->seen[q / 8] >> (q % 8) & 1)) {
			printf("fi_fep_check: server endpoint %d: message %u "
			       "of round %u never arrived\n", e->idx, q % 2,
			       q / 2);
			fails++;
			break;
		}
	if (e->msgs && e->msg_seed != r->seed) {
		printf("fi_fep_check: server endpoint %d: messages of "
		       "another client\n", e->idx);
		fails++;
	}
	return fails;
}

/*
 * One client, from its side channel's accept to the verdict: 0 if it and
 * the checks went well, 1 if not, -1 if no client came.
 */
static int fep_serve(struct fep *f, int lfd, int client, uint8_t *want)
{
	struct fep_hello *hello = calloc(1, sizeof(*hello));
	struct fep_report r;
	double t0;
	int32_t fails = 0;
	int busy;

	if (!hello)
		FEP_FAIL("no memory");
	hello->magic = FEP_MAGIC;
	hello->n = (uint32_t)f->o.n;
	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];
		size_t len = sizeof(hello->ep[i].name);

		fi_getname(&e->ep->fid, hello->ep[i].name, &len);
		hello->ep[i].name_len = len;
		hello->ep[i].key = fi_mr_key(e->mr);
		hello->ep[i].addr = f->info->domain_attr->mr_mode &
				    FI_MR_VIRT_ADDR ? (uintptr_t)e->buf : 0;
		e->msgs = e->bad = 0;
		memset(e->seen, 0, FEP_MAX_ROUNDS / 4);
	}
	if (fep_oob_connect(f, lfd)) {
		free(hello);
		return -1;
	}
	busy = fep_oob_send(f, hello, sizeof(*hello)) ||
	       fep_oob_recv(f, &r, sizeof(r));
	free(hello);
	if (busy)	/* it failed on its side; the next one may come */
		printf("fi_fep_check: server: client %d failed: no report\n",
		       client);
	else if (r.magic != FEP_MAGIC || r.n != (uint32_t)f->o.n)
		printf("fi_fep_check: server: client %d: a report for %u "
		       "endpoints, not %d\n", client, r.n, f->o.n);
	if (busy || r.magic != FEP_MAGIC || r.n != (uint32_t)f->o.n) {
		close(f->oob);
		f->oob = -1;
		return 1;
	}
	/* Its last messages may still be on their way here. */
	for (t0 = fep_now(), busy = 1; busy;) {
		busy = 0;
		for (int i = 0; i < f->o.n; i++)
			busy += f->ep[i].msgs + f->ep[i].bad < r.msgs[i];
		if (busy && fep_now() - t0 > f->o.limit_s)
			break;
		if (fep_progress(f))
			return 1;
	}
	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];

		if (r.written[i]) {
			e->written = true;
			e->w_seed = r.seed;
			e->w_round = r.rounds - 1;
		}
		fails += fep_check_ep(f, e, &r, want);
	}
	fep_oob_send(f, &fails, sizeof(fails));
	close(f->oob);
	f->oob = -1;
	if (fails) {
		printf("fi_fep_check: server: client %d: %d checks failed\n",
		       client, fails);
		return 1;
	}
	if (r.failed_as_expected)
		printf("fi_fep_check: server: client %d: every operation "
		       "failed as it expected; no message arrived and all %d "
		       "buffers are unchanged\n", client, f->o.n);
	else
		printf("fi_fep_check: server: client %d: %u rounds: every "
		       "region holds its peer endpoint's pattern, every "
		       "message arrived once at its own endpoint\n", client,
		       r.rounds);
	return 0;
}

int fep_server(struct fep *f)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)f->o.port) };
	uint8_t *want = malloc(f->off[FEP_REGIONS]);
	char a[FEP_NAME_MAX], b[FEP_NAME_MAX];
	int one = 1, lfd, ret = -1, failed = 0;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (!want || lfd < 0)
		FEP_FAIL("no memory or socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 4)) {
		printf("fi_fep_check: FAIL: side channel port %d: %m\n",
		       f->o.port);
		goto out;
	}
	for (int i = 0; i < f->o.n; i++) {
		struct fep_ep *e = &f->ep[i];

		e->seen = calloc(FEP_MAX_ROUNDS / 4, 1);
		if (!e->seen)
			goto out;
		fep_fill(e->buf, f->off[FEP_REGIONS],
			 fep_virgin_key((uint32_t)i));
		if (fep_post_recv(f, e, 0) || fep_post_recv(f, e, 1))
			goto out;
	}
	printf("fi_fep_check: server: process %d: %d endpoints ready: %s .. "
	       "%s\n", (int)getpid(), f->o.n, fep_str(f, f->ep[0].name, a,
	       sizeof(a)), fep_str(f, f->ep[f->o.n - 1].name, b, sizeof(b)));
	for (int c = 1, r; c <= f->o.clients; c++) {
		r = fep_serve(f, lfd, c, want);
		if (r < 0)
			goto out;
		failed += r;
	}
	if (failed) {
		printf("fi_fep_check: FAIL: server: %d of %d clients failed\n",
		       failed, f->o.clients);
		goto out;
	}
	printf("fi_fep_check: server: all ok (%d endpoints %s .. %s, %d "
	       "client%s)\n", f->o.n, a, b, f->o.clients,
	       f->o.clients > 1 ? "s" : "");
	ret = 0;
out:
	close(lfd);
	free(want);
	return ret;
}

