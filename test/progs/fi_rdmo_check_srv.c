/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rdmo_check's server (the target): its regions, the clients' hellos,
 * their STATE and RESULTS messages answered, and the loop that runs the
 * provider meanwhile (fi_rdmo_check_verify.c looks at the memory).
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test/progs/fi_rdmo_check.h"

/* Runs the provider: reads the CQ, where nothing is due. 0 or -1. */
static int frd_srv_progress(struct frd_fab *f)
{
	struct fi_cq_msg_entry e;
	struct fi_cq_err_entry err = { 0 };
	ssize_t r = fi_cq_read(f->fab.cq, &e, 1);

	if (r == -FI_EAGAIN)
		return 0;
	if (r == -FI_EAVAIL && fi_cq_readerr(f->fab.cq, &err, 0) == 1)
		fprintf(stderr, "fi_rdmo_check: server: error completion "
			"%s (prov_errno %#x)\n", fi_strerror(err.err),
			err.prov_errno);
	else
		fprintf(stderr, "fi_rdmo_check: server: fi_cq_read: %zd\n", r);
	return -1;
}

static int frd_srv_regions(struct frd_srv *s)
{
	uint64_t rw = FI_REMOTE_READ | FI_REMOTE_WRITE;
	struct frd_fab *f = &s->f;
	struct fid_mr *stale = NULL;
	void *p = NULL, *sp = NULL;

	s->q_len = (size_t)s->o->clients * s->o->n_main * FRD_MAIN_MAX + 4096;
	if (frd_mr_cntr(f, &p, s->q_len, rw, &s->q_mr, &s->q_cntr))
		return -1;
	s->q = p;
	p = NULL;
	if (frd_mr_cntr(f, &p, FRD_PTR_WORDS * sizeof(uint64_t), rw,
			&s->ptr_mr, &s->ptr_cntr))
		return -1;
	s->ptr = p;
	*frd_word(s, 0) = frd_raddr(f, s->q, 0);
	for (uint32_t k = 1; k <= s->o->clients; k++) {
		struct frd_srv_client *c = &s->cl[k];
		struct frd_scatter plan[FRD_NSCAT];
		void *a = NULL, *b = NULL, *d = NULL;

		if (frd_mr_cntr(f, &a, FRD_AUX_LEN, rw, &c->aux_mr,
				&c->aux_cntr) ||
		    frd_mr_cntr(f, &b, FRD_SCAT_LEN, rw, &c->scat_mr,
				&c->scat_cntr) ||
		    frd_mr_cntr(f, &d, FRD_SCAT2_LEN, rw, &c->scat2_mr,
				&c->scat2_cntr) ||
		    frd_scatter_plan(k, plan))
			return -1;
		for (uint32_t i = 0; i < FRD_NSCAT; i++)
			for (uint32_t j = 0; j < plan[i].n; j++)
				c->pieces[plan[i].pc[j].region]++;
		c->aux = a;
		c->scat = b;
		c->scat2 = d;
		c->img0 = malloc(FRD_SCAT_AREA);
		c->img1 = malloc(FRD_SCAT2_LEN);
		c->main_res = calloc(s->o->n_main, sizeof(uint64_t));
		if (!c->img0 || !c->img1 || !c->main_res ||
		    frd_scatter_image(k, c->img0, c->img1))
			return -1;
		*frd_word(s, 8 * k) = frd_raddr(f, c->aux, 0);
		*frd_word(s, 8 * k + 1) = frd_raddr(f, c->aux, FRD_AUX_LEN - 8);
	}
	for (uint32_t i = 0; i < FRD_BUMPS_MAX; i++)
		if (frd_mr(f, &s->spare_buf[i], 4096, rw, &s->spare[i]))
			return -1;
	/* A key that was a region's: nobody's now. */
	if (frd_mr(f, &sp, 4096, rw, &stale))
		return -1;
	s->stale_key = fi_mr_key(stale);
	FRD_CHECK(fi_close(&stale->fid));
	free(sp);
	return 0;
}

static int frd_srv_verdict(struct frd_srv_client *c,
			   const struct frd_verdict *v)
{
	return frd_send_all(c->fd, v, sizeof(*v));
}

static int frd_srv_info(struct frd_srv *s, uint32_t k)
{
	struct frd_srv_client *c = &s->cl[k];
	struct frd_fab *f = &s->f;
	struct frd_info in = {
		.mr_mode = (uint32_t)f->fab.info->domain_attr->mr_mode,
		.n_main = s->o->n_main, .clients = s->o->clients,
		.q_addr = frd_raddr(f, s->q, 0), .q_key = fi_mr_key(s->q_mr),
		.q_len = s->q_len, .ptr_key = fi_mr_key(s->ptr_mr),
		.main_ptr_addr = frd_raddr(f, s->ptr, 0),
		.aux_ptr_addr = frd_raddr(f, s->ptr, 8 * k * 8),
		.full_ptr_addr = frd_raddr(f, s->ptr, (8 * k + 1) * 8),
		.aux_addr = frd_raddr(f, c->aux, 0),
		.aux_key = fi_mr_key(c->aux_mr),
		.scat_addr = frd_raddr(f, c->scat, 0),
		.scat_key = fi_mr_key(c->scat_mr),
		.scat2_addr = frd_raddr(f, c->scat2, 0),
		.scat2_key = fi_mr_key(c->scat2_mr),
		.stale_key = s->stale_key,
	};

	if (frd_name(f, in.name, &in.name_len))
		return -1;
	return frd_send_all(c->fd, &in, sizeof(in));
}

static int frd_srv_hello(struct frd_srv *s, struct frd_srv_client *tmp,
			 const struct frd_msg *m)
{
	fi_addr_t a;
	uint32_t k = m->client;

	if (!k || k > s->o->clients || s->cl[k].id ||
	    m->name_len > FRD_NAME_MAX) {
		fprintf(stderr, "fi_rdmo_check: server: hello from client %u "
			"refused\n", k);
		return -1;
	}
	if (fi_av_insert(s->f.fab.av, m->name, 1, &a, 0, NULL) != 1) {
		fprintf(stderr, "fi_rdmo_check: server: fi_av_insert\n");
		return -1;
	}
	s->cl[k].fd = tmp->fd;
	s->cl[k].id = k;
	tmp->fd = -1;
	if (++s->hellos < s->o->clients)
		return 0;
	/* Everyone is here: start them together. */
	for (uint32_t i = 1; i <= s->o->clients; i++)
		if (frd_srv_info(s, i))
			return -1;
	printf("fi_rdmo_check: server: %u clients, started together\n",
	       s->o->clients);
	return 0;
}

/*
 * The STATE of |k|: read, then looked at in memory at once (for a flush:
 * before any libfabric call), and answered.
 */
static int frd_srv_state(struct frd_srv *s, uint32_t k,
			 const struct frd_msg *m)
{
	static uint64_t pos[FRD_AUX_IDX];
	struct frd_srv_client *c = &s->cl[k];
	struct frd_verdict v = { .ok = 1 };
	const char *what = m->what < FRD_CASE_COUNT ?
			   frd_case_names[m->what] : "?";

	if (frd_srv_client_state(s, k, m, pos, &v))
		v.ok = 0;
	if (v.ok) {
		c->checks++;
		if (m->what >= FRD_CASE_FLUSH1 &&
		    m->what < FRD_CASE_FLUSH1 + FRD_ROUNDS) {
			c->flush_checked++;
			printf("fi_rdmo_check: server: client %u %s: pointer, "
			       "%u records (%lu bytes) and the write in "
			       "memory before any libfabric call\n", k, what,
			       m->aux_recs, (unsigned long)(m->aux_ptr -
				frd_raddr(&s->f, c->aux, 0)));
		}
	} else {
		printf("fi_rdmo_check: server: client %u %s: FAIL: %s\n", k,
		       what, v.why);
	}
	return frd_srv_verdict(c, &v) || !v.ok ? -1 : 0;
}

static int frd_srv_results(struct frd_srv *s, uint32_t k,
			   const struct frd_msg *m)
{
	struct frd_srv_client *c = &s->cl[k];
	struct frd_verdict v = { .ok = 1 };
	uint64_t *pairs = NULL;

	if (c->results || m->n_main != s->o->n_main ||
	    m->n_aux > FRD_AUX_IDX + 1) {
		fprintf(stderr, "fi_rdmo_check: server: client %u: bad "
			"results\n", k);
		return -1;
	}
	pairs = malloc((size_t)(m->n_aux + 1) * 2 * sizeof(uint64_t));
	if (!pairs ||
	    frd_recv_all(c->fd, c->main_res, m->n_main * sizeof(uint64_t)) ||
	    frd_recv_all(c->fd, pairs, m->n_aux * 2 * sizeof(uint64_t))) {
		free(pairs);
		return -1;
	}
	c->results = true;
	c->aux_writes = m->n_aux;
	c->writes = m->writes;
	s->results++;
	if (frd_srv_aux_results(s, k, m, pairs, &v)) {
		printf("fi_rdmo_check: server: client %u own queue: FAIL: "
		       "%s\n", k, v.why);
		v.ok = 0;
	} else {
		printf("fi_rdmo_check: server: client %u: own queue (%u "
		       "records, each at the offset it got), scatter "
		       "regions, writes: %u checks, %u flush rounds in memory "
		       "at the flush's word\n", k, m->aux_recs, c->checks,
		       c->flush_checked);
	}
	free(pairs);
	if (!v.ok) {
		frd_srv_verdict(c, &v);
		return -1;
	}
	if (s->results < s->o->clients)
		return 0;
	if (frd_srv_main_check(s, &v)) {
		printf("fi_rdmo_check: server: shared queue: FAIL: %s\n",
		       v.why);
		v.ok = 0;
	} else if (frd_srv_counters(s, &v)) {
		printf("fi_rdmo_check: server: FAIL: %s\n", v.why);
		v.ok = 0;
	}
	for (uint32_t i = 1; i <= s->o->clients; i++)
		if (frd_srv_verdict(&s->cl[i], &v))
			return -1;
	return v.ok ? 0 : -1;
}

/*
 * Client |k| reached us (a flush): once all have, all start appending at
 * the same moment.
 */
static int frd_srv_ready(struct frd_srv *s, uint32_t k)
{
	struct frd_verdict go = { .ok = 1 };

	if (s->cl[k].ready)
		return -1;
	s->cl[k].ready = true;
	if (++s->readies < s->o->clients)
		return 0;
	for (uint32_t i = 1; i <= s->o->clients; i++)
		if (frd_srv_verdict(&s->cl[i], &go))
			return -1;
	return 0;
}

/*
 * A client's appends are arriving: a region of the endpoint's RI table
 * closed now moves its generation, and requests made under the old one
 * are refused RC_BAD_GENERATION and sent again by their initiator. An
 * append of several packets whose first is in must still land once.
 */
static int frd_srv_bump(struct frd_srv *s)
{
	uint32_t i = s->bumps;

	if (i >= FRD_BUMPS_MAX || !s->spare[i])
		return -1;
	FRD_CHECK(fi_close(&s->spare[i]->fid));
	s->spare[i] = NULL;
	s->bumps++;
	return 0;
}

/* One message from |c|, read whole, handled. */
static int frd_srv_message(struct frd_srv *s, struct frd_srv_client *c)
{
	struct frd_msg m;

	if (frd_recv_all(c->fd, &m, sizeof(m))) {
		fprintf(stderr, "fi_rdmo_check: server: client %u went "
			"away\n", c->id);
		return -1;
	}
	if (!c->id)
		return m.type == FRD_HELLO ? frd_srv_hello(s, c, &m) : -1;
	if (m.client != c->id)
		return -1;
	switch (m.type) {
	case FRD_READY:
		return frd_srv_ready(s, c->id);
	case FRD_BUMP:
		return frd_srv_bump(s);
	case FRD_STATE:
		return frd_srv_state(s, c->id, &m);
	case FRD_RESULTS:
		return frd_srv_results(s, c->id, &m);
	default:
		return -1;
	}
}

int frd_server(const struct frd_opts *o)
{
	struct frd_srv s = { .o = o };
	struct frd_srv_client pending[FRD_CLIENTS_MAX];
	uint32_t npending = 0;
	uint64_t deadline = frd_now_ms() + (uint64_t)o->limit_s * 1000;
	int lfd = -1, ret = -1;

	for (uint32_t i = 0; i < FRD_CLIENTS_MAX; i++)
		pending[i].fd = -1;
	for (uint32_t k = 0; k <= FRD_CLIENTS_MAX; k++)
		s.cl[k].fd = -1;
	if (frd_fab_open(&s.f, o) || frd_srv_regions(&s))
		goto out;
	lfd = ex_tcp_listen(o->port, FRD_CLIENTS_MAX);
	if (lfd < 0) {
		perror("fi_rdmo_check: side channel");
		goto out;
	}
	printf("fi_rdmo_check: server: provider %s, mr_mode %#x (%s), %u "
	       "clients of %u appends, pid %d ready\n",
	       s.f.fab.info->fabric_attr->prov_name,
	       s.f.fab.info->domain_attr->mr_mode,
	       s.f.va ? "pointers hold addresses" : "pointers hold offsets",
	       o->clients, o->n_main, getpid());
	while (s.results < o->clients) {
		struct pollfd pfd[1 + 2 * FRD_CLIENTS_MAX];
		struct frd_srv_client *who[1 + 2 * FRD_CLIENTS_MAX];
		nfds_t n = 0;
		int r;

		if (frd_now_ms() > deadline) {
			fprintf(stderr, "fi_rdmo_check: server: time limit\n");
			goto out;
		}
		if (npending < o->clients) {
			pfd[n] = (struct pollfd){ .fd = lfd, .events = POLLIN };
			who[n++] = NULL;
		}
		for (uint32_t i = 0; i < npending; i++)
			if (pending[i].fd >= 0) {
				pfd[n] = (struct pollfd){ .fd = pending[i].fd,
							  .events = POLLIN };
				who[n++] = &pending[i];
			}
		for (uint32_t k = 1; k <= o->clients; k++)
			if (s.cl[k].id && !s.cl[k].results) {
				pfd[n] = (struct pollfd){ .fd = s.cl[k].fd,
							  .events = POLLIN };
				who[n++] = &s.cl[k];
			}
		r = poll(pfd, n, 1);
		for (nfds_t i = 0; r > 0 && i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (!who[i]) {
				pending[npending].fd = accept(lfd, NULL, NULL);
				pending[npending].id = 0;
				if (pending[npending++].fd < 0)
					goto out;
				continue;
			}
			/* Read and looked at before any libfabric call. */
			if (frd_srv_message(&s, who[i]))
				goto out;
		}
		if (frd_srv_progress(&s.f))
			goto out;
	}
	printf("fi_rdmo_check: server: %u regions closed while appends "
	       "were arriving (the RI generation moved)\n", s.bumps);
	printf("fi_rdmo_check: server: all ok\n");
	ret = 0;
out:
	if (lfd >= 0)
		close(lfd);
	for (uint32_t i = 0; i < FRD_CLIENTS_MAX; i++)
		if (pending[i].fd >= 0)
			close(pending[i].fd);
	for (uint32_t k = 1; k <= o->clients && k <= FRD_CLIENTS_MAX; k++) {
		struct frd_srv_client *c = &s.cl[k];

		if (c->fd >= 0)
			close(c->fd);
		/* Counters first: a region with one bound will not close. */
		frd_close_cntr(c->aux_cntr);
		frd_close_cntr(c->scat_cntr);
		frd_close_cntr(c->scat2_cntr);
		if (c->aux_mr)
			fi_close(&c->aux_mr->fid);
		if (c->scat_mr)
			fi_close(&c->scat_mr->fid);
		if (c->scat2_mr)
			fi_close(&c->scat2_mr->fid);
		free(c->aux);
		free(c->scat);
		free(c->scat2);
		free(c->img0);
		free(c->img1);
		free(c->main_res);
	}
	for (uint32_t i = 0; i < FRD_BUMPS_MAX; i++) {
		if (s.spare[i])
			fi_close(&s.spare[i]->fid);
		free(s.spare_buf[i]);
	}
	frd_close_cntr(s.q_cntr);
	frd_close_cntr(s.ptr_cntr);
	if (s.q_mr)
		fi_close(&s.q_mr->fid);
	if (s.ptr_mr)
		fi_close(&s.ptr_mr->fid);
	ex_fab_close(&s.f.fab);
	free(s.q);
	free(s.ptr);
	return ret ? 1 : 0;
}

