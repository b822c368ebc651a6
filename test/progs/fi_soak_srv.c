/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_soak's server: serves its clients one after the other, checks the
 * rounds an rma client wrote, keeps a tag client's receives posted and
 * checks every message, and cancels what a client that died left posted.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/fi_endpoint.h>
#include <rdma/fi_tagged.h>

#include "test/progs/fi_soak.h"

/* ---- the server --------------------------------------------------------- */
static int sk_srv_check(struct sk *s, const struct sk_cmd *c)
{
	struct sk_reply r = { .ok = 1 };
	uint64_t slots;

	if (!c->size || c->size > SK_REGION)
		return -1;
	slots = SK_REGION / c->size;
	for (uint64_t j = 0; j < c->count && j < slots; j++)
		if (!sk_pattern_ok(s->buf + j * c->size, c->size,
				   c->seed + c->first + j))
			r.bad++;
	r.ok = !r.bad && c->count <= slots;
	r.done = c->count;
	return sk_send(s, &r, sizeof(r));
}

/* Posts the receive of message k into a free window slot. */
static int sk_srv_post_recv(struct sk *s, uint32_t session, uint64_t k,
			    uint64_t slot_len)
{
	struct sk_op *op = sk_op_free(s);
	uint64_t end = sk_now_ns() + SK_OP_WAIT_MS * 1000000ull;
	ssize_t ret;

	if (!op)
		return -1;
	op->k = (uint64_t)session << 40 | k;
	op->slot = (int)(op - s->ops);
	for (;;) {
		ret = fi_trecv(s->fab.ep, s->buf + SK_REGION +
			       (uint64_t)op->slot * slot_len, slot_len,
			       s->desc, s->peer, op->k, 0, &op->ctx);
		if (ret != -FI_EAGAIN || sk_now_ns() > end)
			break;
		fi_cq_read(s->fab.cq, NULL, 0);
	}
	if (ret) {
		fprintf(stderr, "fi_soak: fi_trecv: %s\n",
			fi_strerror((int)-ret));
		return -1;
	}
	op->busy = true;
	s->inflight++;
	return 0;
}

/*
 * The client is gone with receives posted: what comes back by itself in
 * grace_ms, then fi_cancel on the rest; each must come back within
 * SK_CANCEL_MS. 0 or -1 (a receive that never comes back).
 */
static int sk_srv_orphans(struct sk *s, uint64_t rcvd)
{
	uint64_t t0 = sk_now_ns(), end = t0 + s->o.grace_ms * 1000000ull;
	uint64_t ok = 0, errs = 0, canceled = 0, other = 0, posted;
	uint64_t t_last = t0;
	int last_err = 0;
	struct sk_op *op;
	bool err;

	posted = (uint64_t)s->inflight;
	while (s->inflight && sk_now_ns() < end) {
		if (sk_cq_poll(s, &op, &err) < 0)
			return -1;
		if (op && op->busy) {
			op->busy = false;
			s->inflight--;
			if (err) {
				errs++;
				last_err = s->err.err;
			} else {
				ok++;
			}
			t_last = sk_now_ns();
		}
	}
	printf("fi_soak: server: client gone after %llu messages; of %llu "
	       "receives posted, %llu completed and %llu failed (last %s), "
	       "the last %.0f ms after it went (waited %u ms)\n",
	       (unsigned long long)rcvd, (unsigned long long)posted,
	       (unsigned long long)ok, (unsigned long long)errs,
	       last_err ? fi_strerror(last_err) : "none",
	       (double)(t_last - t0) / 1e6, s->o.grace_ms);
	posted = (uint64_t)s->inflight;
	for (int i = 0; i < s->o.window; i++)
		if (s->ops[i].busy)
			fi_cancel(&s->fab.ep->fid, &s->ops[i].ctx);
	t0 = sk_now_ns();
	end = t0 + SK_CANCEL_MS * 1000000ull;
	while (s->inflight && sk_now_ns() < end) {
		if (sk_cq_poll(s, &op, &err) < 0)
			return -1;
		if (op && op->busy) {
			op->busy = false;
			s->inflight--;
			if (err && s->err.err == FI_ECANCELED)
				canceled++;
			else
				other++;
		}
	}
	printf("fi_soak: server: %llu receives canceled: %llu FI_ECANCELED, "
	       "%llu other completions, %d never came back, in %.0f ms\n",
	       (unsigned long long)posted, (unsigned long long)canceled,
	       (unsigned long long)other, s->inflight,
	       (double)(sk_now_ns() - t0) / 1e6);
	return s->inflight ? -1 : 0;
}

/*
 * Every tag's message came: any message more (a receive of every tag of
 * the session) is an extra; each must still be a whole message of the
 * run. Returns the extras, or -1 (a bad one, or a receive that would not
 * come back when canceled).
 */
static int64_t sk_srv_extras(struct sk *s, const struct sk_cmd *c,
			     uint32_t session, uint64_t slot_len)
{
	struct sk_op *op = &s->ops[0], *done;
	int64_t extra = 0;
	uint64_t end;
	bool err;

	for (int n = 0; n <= SK_EXTRA_MAX; n++) {
		if (fi_trecv(s->fab.ep, s->buf + SK_REGION, slot_len, s->desc,
			     s->peer, (uint64_t)session << 40,
			     (1ull << 40) - 1, &op->ctx)) {
			fprintf(stderr, "fi_soak: fi_trecv (extras) failed\n");
			return -1;
		}
		op->busy = true;
		op->k = UINT64_MAX;	/* any tag: sk_cq_poll checks none */
		end = sk_now_ns() + SK_EXTRA_WAIT_MS * 1000000ull;
		do {
			if (sk_cq_poll(s, &done, &err) < 0)
				return -1;
		} while (done != op && sk_now_ns() < end);
		if (done != op) {	/* none came: the receive goes */
			fi_cancel(&s->fab.ep->fid, &op->ctx);
			end = sk_now_ns() + SK_CANCEL_MS * 1000000ull;
			do {
				if (sk_cq_poll(s, &done, &err) < 0)
					return -1;
			} while (done != op && sk_now_ns() < end);
			op->busy = false;
			if (done != op) {
				fprintf(stderr, "fi_soak: the receive of "
					"extras did not come back\n");
				return -1;
			}
			if (err)	/* canceled (or failed): the end */
				return extra;
		}
		op->busy = false;
		if (err)
			continue;	/* -E: a failed one; look again */
		extra++;
		uint64_t k = s->last_tag & ((1ull << 40) - 1);
		if (op->t_post != sk_msg_len(k, c->size) ||
		    !sk_pattern_ok(s->buf + SK_REGION, op->t_post,
				   c->seed + k)) {
			fprintf(stderr, "fi_soak: an extra message (tag "
				"%#llx) is not one of the run\n",
				(unsigned long long)s->last_tag);
			return -1;
		}
		fprintf(stderr, "fi_soak: message %llu arrived again\n",
			(unsigned long long)k);
	}
	return extra;
}

/* A tag session: count messages (UINT64_MAX: until the client goes);
 * 0, 1 (the client went and its receives came back) or -1. */
static int sk_srv_tag(struct sk *s, const struct sk_cmd *c, uint32_t session)
{
	uint64_t slot_len = SK_REGION / (uint64_t)s->o.window, next = c->first,
		 rcvd = 0, end = c->first + c->count;
	struct sk_reply r = { 0 };
	struct sk_op *op;
	bool err;

	if (c->size > slot_len) {
		fprintf(stderr, "fi_soak: messages of %llu B, receives of "
			"%llu B\n", (unsigned long long)c->size,
			(unsigned long long)slot_len);
		return -1;
	}
	if (c->count == UINT64_MAX)	/* -K: until the client goes */
		end = UINT64_MAX;
	while (next < end && s->inflight < s->o.window)
		if (sk_srv_post_recv(s, session, next++, slot_len))
			return -1;
	if (sk_send(s, &r, sizeof(r)))
		return -1;
	for (unsigned long i = 0; rcvd < c->count; i++) {
		if (!(i % 256) && sk_readable(s->fd)) {	/* client gone */
			printf("fi_soak: server: session %u: client gone\n",
			       session);
			return sk_srv_orphans(s, rcvd) ? -1 : 1;
		}
		if (sk_cq_poll(s, &op, &err) < 0)
			return -1;
		if (!op)
			continue;
		if (!op->busy) {
			fprintf(stderr, "fi_soak: completion of no receive\n");
			return -1;
		}
		op->busy = false;
		s->inflight--;
		uint64_t k = op->k & ((1ull << 40) - 1);
		uint64_t want = sk_msg_len(k, c->size);

		if (err && s->o.retry) {	/* -E: the same receive again */
			sk_err_print(s, "trecv (posted again)");
			if (++s->nretry > SK_RETRY_MAX ||
			    sk_srv_post_recv(s, session, k, slot_len))
				return -1;
			continue;
		}
		rcvd++;
		if (err) {
			sk_err_print(s, "trecv");
			r.bad++;
		} else if (op->t_post != want ||
			   !sk_pattern_ok(s->buf + SK_REGION +
					  (uint64_t)op->slot * slot_len,
					  want, c->seed + k)) {
			fprintf(stderr, "fi_soak: message %llu: %llu B, want "
				"%llu B, or bytes differ\n",
				(unsigned long long)k,
				(unsigned long long)op->t_post,
				(unsigned long long)want);
			r.bad++;
		}
		if (next < end &&
		    sk_srv_post_recv(s, session, next++, slot_len))
			return -1;
	}
	int64_t extra = sk_srv_extras(s, c, session, slot_len);

	r.done = rcvd;
	r.ok = !r.bad && extra >= 0;
	r.extra = extra > 0 ? (uint64_t)extra : 0;
	if (s->o.mode != SK_MIX || r.bad || r.extra)	/* mix: many runs */
		printf("fi_soak: server: session %u: %llu messages, %llu "
		       "wrong, %llu extra\n", session, (unsigned long long)rcvd,
		       (unsigned long long)r.bad, (unsigned long long)r.extra);
	return sk_send(s, &r, sizeof(r)) || r.bad ? -1 : 0;
}

/* One client's session; -1 only for a failed check of ours. */
static int sk_srv_session(struct sk *s, uint32_t session)
{
	struct sk_hello mine, peer;
	struct sk_cmd c;
	int ret = 0;

	if (sk_hello_make(s, &mine, session) ||
	    sk_recv(s, &peer, sizeof(peer)) || sk_av_insert(s, &peer))
		return -1;
	if (sk_send(s, &mine, sizeof(mine)))
		return -1;
	printf("fi_soak: server: session %u: client pid %llu\n", session,
	       (unsigned long long)peer.pid);
	for (;;) {
		if (sk_recv(s, &c, sizeof(c))) {
			printf("fi_soak: server: session %u: client gone\n",
			       session);
			break;
		}
		if (c.op == SK_CMD_DONE)
			break;
		if (c.op == SK_CMD_CHECK)
			ret = sk_srv_check(s, &c);
		else if (c.op == SK_CMD_TAG)
			ret = sk_srv_tag(s, &c, session);
		else if (c.op >= SK_CMD_WORD && c.op <= SK_CMD_QCHECK)
			ret = sk_srv_mix_cmd(s, &c);
		else
			ret = -1;
		if (ret == 1)		/* the client went, receives back */
			ret = 0;
		else if (!ret)
			continue;
		break;
	}
	/* Receives of a finished or failed session go. */
	for (int i = 0; i < s->o.window; i++)
		if (s->ops[i].busy)
			ret = -1;
	fi_av_remove(s->fab.av, &s->peer, 1, 0);
	return ret;
}

int sk_server(struct sk *s)
{
	int lfd, failed = 0;

	if (sk_open(s))
		return -1;
	lfd = ex_tcp_listen(s->o.port, 4);
	if (lfd < 0) {
		perror("fi_soak: listen");
		return -1;
	}
	printf("fi_soak: server: pid %d ready\n", getpid());
	for (unsigned int n = 1; n <= s->o.clients; n++) {
		int one = 1;

		s->fd = accept(lfd, NULL, NULL);
		if (s->fd < 0)
			return -1;
		setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (sk_srv_session(s, n)) {
			printf("fi_soak: server: session %u failed\n", n);
			failed++;
			if (s->inflight)	/* receives that hang: stop */
				break;
		}
		close(s->fd);
	}
	close(lfd);
	printf("fi_soak: server: %s\n", failed ? "FAILED" : "all ok");
	return failed ? -1 : 0;
}

