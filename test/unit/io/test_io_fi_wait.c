/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wait objects, wait sets and poll sets with no traffic: FI_GETWAIT's fd
 * under epoll wakes when another thread adds a completion, an event or a
 * count, or calls fi_cq_signal, not before, and stops being readable once
 * the queue is read; fi_trywait; fi_wait; fi_poll's contexts; what is
 * refused. test_io_fi_wait_net.c does the same with frames on a wire.
 */
#include <pthread.h>
#include <sys/epoll.h>
#include <time.h>

#include "t_fi.h"

static struct t_fi t;

static void t_setup(void)
{
	t_fi_open(&t, 0);
}

static void t_teardown(void)
{
	t_fi_close(&t);
}

TestSuite(uet_wait, .init = t_setup, .fini = t_teardown);

static uint64_t t_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct fid_cq *t_cq(enum fi_wait_obj wait, struct fid_wait *set,
			   void *ctx)
{
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_CONTEXT,
				   .wait_obj = wait, .wait_set = set };
	struct fid_cq *cq;

	cr_assert_eq(fi_cq_open(t.domain, &attr, &cq, ctx), 0);
	return cq;
}

static struct fid_cntr *t_cntr(enum fi_wait_obj wait, struct fid_wait *set,
			       void *ctx)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP,
				     .wait_obj = wait, .wait_set = set };
	struct fid_cntr *c;

	cr_assert_eq(fi_cntr_open(t.domain, &attr, &c, ctx), 0);
	return c;
}

static struct fid_eq *t_eq(enum fi_wait_obj wait, struct fid_wait *set)
{
	struct fi_eq_attr attr = { .wait_obj = wait, .wait_set = set };
	struct fid_eq *eq;

	cr_assert_eq(fi_eq_open(t.fabric, &attr, &eq, NULL), 0);
	return eq;
}

/* An epoll set of the application's own, watching |fid|'s wait fd. */
static int t_epoll_of(struct fid *fid)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd = -1, ep = epoll_create1(0);

	cr_assert_eq(fi_control(fid, FI_GETWAIT, &fd), 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	return ep;
}

static int t_epoll_wait(int ep, int ms)
{
	struct epoll_event ev;

	return epoll_wait(ep, &ev, 1, ms);
}

/* Writes from another thread, as a progress thread or a peer would. */
static void t_cq_add(struct fid_cq *cq_fid, void *ctx)
{
	struct uet_cq *cq = container_of(cq_fid, struct uet_cq, cq_fid);
	struct uet_cq_entry e = { .op_context = ctx };

	uet_domain_lock(cq->dom);
	uet_cq_write(cq, &e);
	uet_domain_unlock(cq->dom);
}

static void t_cntr_inc(struct fid_cntr *c_fid)
{
	struct uet_cntr *c = container_of(c_fid, struct uet_cntr, cntr_fid);

	uet_domain_lock(c->dom);
	uet_cntr_inc(c);
	uet_domain_unlock(c->dom);
}

enum t_act { T_CQ_ADD, T_CQ_SIGNAL, T_CNTR_INC, T_EQ_WRITE };

struct t_later {
	pthread_t th;
	enum t_act act;
	void *fid;
};

static void *t_later_run(void *arg)
{
	struct t_later *l = arg;
	struct timespec ts = { 0, 30 * 1000000 };
	struct fi_eq_entry ev = { .data = 7 };

	nanosleep(&ts, NULL);
	switch (l->act) {
	case T_CQ_ADD:
		t_cq_add(l->fid, &t);
		break;
	case T_CQ_SIGNAL:
		fi_cq_signal(l->fid);
		break;
	case T_CNTR_INC:
		t_cntr_inc(l->fid);
		break;
	case T_EQ_WRITE:
		fi_eq_write(l->fid, FI_NOTIFY, &ev, sizeof(ev), 0);
		break;
	}
	return NULL;
}

/* Does |act| on |fid| from another thread, 30 ms from now. */
static void t_later(struct t_later *l, enum t_act act, void *fid)
{
	l->act = act;
	l->fid = fid;
	cr_assert_eq(pthread_create(&l->th, NULL, t_later_run, l), 0);
}

/*
 * |act| on |fid| from another thread 30 ms from now must wake epoll fd
 * |ep|, and not before it happened.
 */
static void t_epoll_woken_by(int ep, enum t_act act, void *fid)
{
	uint64_t t0 = t_ms();
	struct t_later l;

	t_later(&l, act, fid);
	cr_assert_eq(t_epoll_wait(ep, 5000), 1);
	cr_assert_geq(t_ms() - t0, 25, "woke before it happened");
	pthread_join(l.th, NULL);
}

Test(uet_wait, getwait_hands_out_an_fd)
{
	struct fid_cq *cq = t_cq(FI_WAIT_FD, NULL, NULL);
	struct fid_cq *cq_unspec = t_cq(FI_WAIT_UNSPEC, NULL, NULL);
	struct fid_cq *cq_none = t_cq(FI_WAIT_NONE, NULL, NULL);
	struct fid_cntr *c = t_cntr(FI_WAIT_FD, NULL, NULL);
	struct fid_eq *eq = t_eq(FI_WAIT_FD, NULL);
	struct fid *fids[] = { &cq->fid, &cq_unspec->fid, &c->fid, &eq->fid };
	enum fi_wait_obj kind;
	int fd, ep;

	for (size_t i = 0; i < sizeof(fids) / sizeof(fids[0]); i++) {
		cr_assert_eq(fi_control(fids[i], FI_GETWAITOBJ, &kind), 0);
		cr_assert_eq(kind, FI_WAIT_FD);
		/* Usable with epoll, and not readable with nothing in it. */
		ep = t_epoll_of(fids[i]);
		cr_assert_eq(t_epoll_wait(ep, 0), 0);
		close(ep);
		cr_assert_eq(fi_control(fids[i], FI_GETWAIT, NULL), -FI_EINVAL);
		cr_assert_eq(fi_control(fids[i], FI_GETOPSFLAG, &fd),
			     -FI_ENOSYS);
	}
	/* FI_WAIT_NONE: nothing to hand out. */
	cr_assert_eq(fi_control(&cq_none->fid, FI_GETWAIT, &fd), -FI_ENODATA);
	cr_assert_eq(fi_control(&cq_none->fid, FI_GETWAITOBJ, &kind), 0);
	cr_assert_eq(kind, FI_WAIT_NONE);
	cr_assert_eq(fi_close(&cq->fid), 0);
	cr_assert_eq(fi_close(&cq_unspec->fid), 0);
	cr_assert_eq(fi_close(&cq_none->fid), 0);
	cr_assert_eq(fi_close(&c->fid), 0);
	cr_assert_eq(fi_close(&eq->fid), 0);
}

Test(uet_wait, completion_wakes_the_fd_until_read)
{
	struct fid_cq *cq = t_cq(FI_WAIT_FD, NULL, NULL);
	struct fid *fid = &cq->fid;
	int ep = t_epoll_of(fid);
	struct fi_cq_entry e;

	cr_assert_eq(fi_trywait(t.fabric, &fid, 1), 0);
	t_epoll_woken_by(ep, T_CQ_ADD, cq);
	/* Level-triggered: readable until the application reads. */
	cr_assert_eq(t_epoll_wait(ep, 0), 1);
	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	cr_assert_eq(e.op_context, &t);
	cr_assert_eq(fi_cq_read(cq, &e, 1), -FI_EAGAIN);
	/* Read empty: no longer readable, so epoll is no busy loop. */
	cr_assert_eq(t_epoll_wait(ep, 0), 0);
	cr_assert_eq(fi_trywait(t.fabric, &fid, 1), 0);
	cr_assert_eq(t_epoll_wait(ep, 20), 0);
	close(ep);
	cr_assert_eq(fi_close(&cq->fid), 0);
}

Test(uet_wait, counter_and_eq_fds_wake)
{
	struct fid_cntr *c = t_cntr(FI_WAIT_FD, NULL, NULL);
	struct fid_eq *eq = t_eq(FI_WAIT_UNSPEC, NULL);
	struct fid *fids[] = { &c->fid, &eq->fid };
	int cep = t_epoll_of(&c->fid), eep = t_epoll_of(&eq->fid);
	struct fi_eq_entry ev;
	uint32_t event;

	cr_assert_eq(fi_trywait(t.fabric, fids, 2), 0);
	t_epoll_woken_by(cep, T_CNTR_INC, c);
	cr_assert_eq(t_epoll_wait(eep, 0), 0, "the EQ's fd woke too");
	cr_assert_eq(fi_cntr_read(c), 1);
	cr_assert_eq(t_epoll_wait(cep, 0), 0);
	t_epoll_woken_by(eep, T_EQ_WRITE, eq);
	cr_assert_eq(fi_eq_read(eq, &event, &ev, sizeof(ev), 0),
		     (ssize_t)sizeof(ev));
	cr_assert_eq(ev.data, 7);
	cr_assert_eq(fi_eq_read(eq, &event, &ev, sizeof(ev), 0), -FI_EAGAIN);
	cr_assert_eq(t_epoll_wait(eep, 0), 0);
	close(cep);
	close(eep);
	cr_assert_eq(fi_close(&c->fid), 0);
	cr_assert_eq(fi_close(&eq->fid), 0);
}

Test(uet_wait, trywait_says_eagain_while_something_is_queued)
{
	struct fid_cq *cq = t_cq(FI_WAIT_FD, NULL, NULL);
	struct fid_cntr *c = t_cntr(FI_WAIT_FD, NULL, NULL);
	struct fid_eq *eq = t_eq(FI_WAIT_FD, NULL);
	struct fid *cqf = &cq->fid, *cf = &c->fid, *eqf = &eq->fid;
	struct fid *all[] = { cqf, cf, eqf };
	struct fi_cq_err_entry err = { .err = FI_EIO };
	struct fi_cq_entry e;
	struct fi_eq_entry ev = { 0 };
	uint32_t event;

	cr_assert_eq(fi_trywait(t.fabric, all, 3), 0);
	cr_assert_eq(fi_trywait(t.fabric, all, 0), 0);
	/* A CQ: while it holds a completion or an error. */
	t_cq_add(cq, &t);
	cr_assert_eq(fi_trywait(t.fabric, &cqf, 1), -FI_EAGAIN);
	cr_assert_eq(fi_trywait(t.fabric, all, 3), -FI_EAGAIN);
	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	cr_assert_eq(fi_trywait(t.fabric, &cqf, 1), 0);
	uet_cq_write_err(container_of(cq, struct uet_cq, cq_fid), &err);
	cr_assert_eq(fi_trywait(t.fabric, &cqf, 1), -FI_EAGAIN);
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_eq(fi_trywait(t.fabric, &cqf, 1), 0);
	/* A counter: once per change of value or errors (fi_poll(3)). */
	t_cntr_inc(c);
	cr_assert_eq(fi_trywait(t.fabric, &cf, 1), -FI_EAGAIN);
	cr_assert_eq(fi_trywait(t.fabric, &cf, 1), 0);
	uet_cntr_inc_err(container_of(c, struct uet_cntr, cntr_fid));
	cr_assert_eq(fi_trywait(t.fabric, &cf, 1), -FI_EAGAIN);
	cr_assert_eq(fi_trywait(t.fabric, &cf, 1), 0);
	/* ...not for what the application set itself. */
	cr_assert_eq(fi_cntr_add(c, 5), 0);
	cr_assert_eq(fi_trywait(t.fabric, &cf, 1), 0);
	cr_assert_eq(fi_cntr_read(c), 6);
	/* An EQ: while it holds an event. */
	cr_assert_eq(fi_eq_write(eq, FI_NOTIFY, &ev, sizeof(ev), 0),
		     (ssize_t)sizeof(ev));
	cr_assert_eq(fi_trywait(t.fabric, &eqf, 1), -FI_EAGAIN);
	cr_assert_eq(fi_eq_read(eq, &event, &ev, sizeof(ev), 0),
		     (ssize_t)sizeof(ev));
	cr_assert_eq(fi_trywait(t.fabric, all, 3), 0);
	cr_assert_eq(fi_close(&cq->fid), 0);
	cr_assert_eq(fi_close(&c->fid), 0);
	cr_assert_eq(fi_close(&eq->fid), 0);
}

Test(uet_wait, trywait_refuses_what_has_no_fd)
{
	struct fid_cq *none = t_cq(FI_WAIT_NONE, NULL, NULL);
	struct fid_cq *yield = t_cq(FI_WAIT_YIELD, NULL, NULL);
	struct fid_cq *cq = t_cq(FI_WAIT_FD, NULL, NULL);
	struct fi_eq_attr eattr = { .wait_obj = FI_WAIT_FD };
	struct fid *fids[2] = { &cq->fid, NULL };
	struct fid_fabric *fab2;
	struct fid_eq *eq2;

	cr_assert_eq(fi_trywait(t.fabric, fids, -1), -FI_EINVAL);
	cr_assert_eq(fi_trywait(t.fabric, NULL, 1), -FI_EINVAL);
	cr_assert_eq(fi_trywait(t.fabric, fids, 2), -FI_EINVAL);
	fids[1] = &none->fid;
	cr_assert_eq(fi_trywait(t.fabric, fids, 2), -FI_EINVAL);
	fids[1] = &yield->fid;
	cr_assert_eq(fi_trywait(t.fabric, fids, 2), -FI_EINVAL);
	fids[1] = &t.domain->fid;
	cr_assert_eq(fi_trywait(t.fabric, fids, 2), -FI_EINVAL);
	/* Another fabric's EQ. */
	cr_assert_eq(uet_fabric_open(t.info->fabric_attr, &fab2, NULL), 0);
	cr_assert_eq(fi_eq_open(fab2, &eattr, &eq2, NULL), 0);
	fids[1] = &eq2->fid;
	cr_assert_eq(fi_trywait(t.fabric, fids, 2), -FI_EINVAL);
	cr_assert_eq(fi_trywait(fab2, &fids[1], 1), 0);
	cr_assert_eq(fi_close(&eq2->fid), 0);
	cr_assert_eq(fi_close(&fab2->fid), 0);
	cr_assert_eq(fi_close(&none->fid), 0);
	cr_assert_eq(fi_close(&yield->fid), 0);
	cr_assert_eq(fi_close(&cq->fid), 0);
}

Test(uet_wait, cq_signal_wakes_an_epoll_waiter)
{
	struct fid_cq *cq = t_cq(FI_WAIT_FD, NULL, NULL);
	struct fid *fid = &cq->fid;
	int ep = t_epoll_of(fid);
	struct fi_cq_entry e;

	cr_assert_eq(fi_trywait(t.fabric, &fid, 1), 0);
	t_epoll_woken_by(ep, T_CQ_SIGNAL, cq);
	/* Nothing to read; trywait says look once more, then block. */
	cr_assert_eq(fi_cq_read(cq, &e, 1), -FI_EAGAIN);
	cr_assert_eq(fi_trywait(t.fabric, &fid, 1), -FI_EAGAIN);
	cr_assert_eq(fi_trywait(t.fabric, &fid, 1), 0);
	cr_assert_eq(t_epoll_wait(ep, 0), 0);
	close(ep);
	cr_assert_eq(fi_close(&cq->fid), 0);
}

Test(uet_wait, sread_and_cntr_wait_take_entries_from_another_thread)
{
	struct fid_cq *cq = t_cq(FI_WAIT_FD, NULL, NULL);
	struct fid_cntr *c = t_cntr(FI_WAIT_UNSPEC, NULL, NULL);
	struct fi_cq_entry e;
	struct t_later l;

	/* The eventfd's wake-up is an entry to read, not a signal. */
	t_later(&l, T_CQ_ADD, cq);
	cr_assert_eq(fi_cq_sread(cq, &e, 1, NULL, 5000), 1);
	cr_assert_eq(e.op_context, &t);
	pthread_join(l.th, NULL);
	t_later(&l, T_CNTR_INC, c);
	cr_assert_eq(fi_cntr_wait(c, 1, 5000), 0);
	cr_assert_eq(fi_cntr_read(c), 1);
	pthread_join(l.th, NULL);
	cr_assert_eq(fi_close(&cq->fid), 0);
	cr_assert_eq(fi_close(&c->fid), 0);
}

/* ---- poll sets ---------------------------------------------------------------- */
static int t_poll(struct fid_poll *ps, void **ctx, int count)
{
	for (int i = 0; i < count; i++)
		ctx[i] = NULL;
	return fi_poll(ps, ctx, count);
}

Test(uet_wait, poll_set_names_what_has_events)
{
	int c1, c2, c3;
	struct fid_cq *cq1 = t_cq(FI_WAIT_NONE, NULL, &c1);
	struct fid_cq *cq2 = t_cq(FI_WAIT_FD, NULL, &c2);
	struct fid_cntr *c = t_cntr(FI_WAIT_NONE, NULL, &c3);
	struct fi_poll_attr attr = { 0 };
	struct fid_poll *ps;
	struct fi_cq_entry e;
	void *ctx[4];

	cr_assert_eq(fi_poll_open(t.domain, &attr, &ps), 0);
	cr_assert_eq(fi_poll_add(ps, &cq1->fid, 0), 0);
	cr_assert_eq(fi_poll_add(ps, &cq2->fid, 0), 0);
	cr_assert_eq(fi_poll_add(ps, &c->fid, 0), 0);
	cr_assert_eq(t_poll(ps, ctx, 4), 0);
	t_cq_add(cq2, &t);
	cr_assert_eq(t_poll(ps, ctx, 4), 1);
	cr_assert_eq(ctx[0], &c2);
	t_cntr_inc(c);
	cr_assert_eq(t_poll(ps, ctx, 4), 2);
	cr_assert_eq(ctx[0], &c2);
	cr_assert_eq(ctx[1], &c3);
	/* The counter is named once per change; the CQ while it holds. */
	cr_assert_eq(t_poll(ps, ctx, 4), 1);
	cr_assert_eq(ctx[0], &c2);
	/* No more than asked for: the rest wait for the next call. */
	t_cq_add(cq1, &t);
	t_cntr_inc(c);
	cr_assert_eq(t_poll(ps, ctx, 1), 1);
	cr_assert_eq(ctx[0], &c1);
	cr_assert_eq(t_poll(ps, ctx, 4), 3);
	cr_assert_eq(ctx[2], &c3);
	cr_assert_eq(fi_cq_read(cq1, &e, 1), 1);
	cr_assert_eq(fi_cq_read(cq2, &e, 1), 1);
	cr_assert_eq(t_poll(ps, ctx, 4), 0);
	/* Members are held; removed ones are not looked at. */
	cr_assert_eq(fi_close(&cq2->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&t.domain->fid), -FI_EBUSY);
	cr_assert_eq(fi_poll_del(ps, &cq2->fid, 0), 0);
	cr_assert_eq(fi_poll_del(ps, &cq2->fid, 0), -FI_ENOENT);
	t_cq_add(cq2, &t);
	cr_assert_eq(t_poll(ps, ctx, 4), 0);
	cr_assert_eq(fi_close(&cq2->fid), 0);
	/* Closing the set lets its members go. */
	cr_assert_eq(fi_close(&ps->fid), 0);
	cr_assert_eq(fi_close(&cq1->fid), 0);
	cr_assert_eq(fi_close(&c->fid), 0);
}

Test(uet_wait, poll_set_refuses_bad_arguments)
{
	struct fid_cq *cq = t_cq(FI_WAIT_NONE, NULL, NULL);
	struct fid_eq *eq = t_eq(FI_WAIT_NONE, NULL);
	struct fi_poll_attr attr = { .flags = 1 };
	struct fid_domain *dom2;
	struct fid_cq *cq2;
	struct fi_cq_attr cattr = { 0 };
	struct fid_poll *ps;
	void *ctx[1];

	cr_assert_eq(fi_poll_open(t.domain, &attr, &ps), -FI_EINVAL);
	attr.flags = 0;
	cr_assert_eq(fi_poll_open(t.domain, &attr, NULL), -FI_EINVAL);
	cr_assert_eq(fi_poll_open(t.domain, &attr, &ps), 0);
	cr_assert_eq(fi_poll_add(ps, NULL, 0), -FI_EINVAL);
	cr_assert_eq(fi_poll_add(ps, &eq->fid, 0), -FI_EINVAL);
	cr_assert_eq(fi_poll_add(ps, &t.domain->fid, 0), -FI_EINVAL);
	cr_assert_eq(fi_poll_add(ps, &cq->fid, FI_SEND), -FI_EBADFLAGS);
	cr_assert_eq(fi_poll_add(ps, &cq->fid, 0), 0);
	cr_assert_eq(fi_poll_add(ps, &cq->fid, 0), -FI_EALREADY);
	cr_assert_eq(fi_poll(ps, NULL, 1), -FI_EINVAL);
	cr_assert_eq(fi_poll(ps, ctx, -1), -FI_EINVAL);
	cr_assert_eq(fi_poll(ps, NULL, 0), 0);
	/* Another domain's CQ. */
	cr_assert_eq(fi_domain(t.fabric, t.info, &dom2, NULL), 0);
	cr_assert_eq(fi_cq_open(dom2, &cattr, &cq2, NULL), 0);
	cr_assert_eq(fi_poll_add(ps, &cq2->fid, 0), -FI_EDOMAIN);
	cr_assert_eq(fi_close(&cq2->fid), 0);
	cr_assert_eq(fi_close(&dom2->fid), 0);
	cr_assert_eq(fi_poll_del(ps, &cq->fid, 0), 0);
	cr_assert_eq(fi_close(&ps->fid), 0);
	cr_assert_eq(fi_close(&cq->fid), 0);
	cr_assert_eq(fi_close(&eq->fid), 0);
}

/* ---- wait sets ---------------------------------------------------------------- */
static struct fid_wait *t_wait_set(void)
{
	struct fi_wait_attr attr = { .wait_obj = FI_WAIT_FD };
	struct fid_wait *ws;

	cr_assert_eq(fi_wait_open(t.fabric, &attr, &ws), 0);
	return ws;
}

Test(uet_wait, wait_set_wakes_on_any_member)
{
	struct fid_wait *ws = t_wait_set();
	struct fid_cq *cq = t_cq(FI_WAIT_SET, ws, NULL);
	struct fid_cntr *c = t_cntr(FI_WAIT_SET, ws, NULL);
	struct fid_eq *eq = t_eq(FI_WAIT_SET, ws);
	struct fid *wsf = &ws->fid;
	int fd = -1, member_fd = -1, ep = t_epoll_of(wsf);
	struct fi_eq_entry ev;
	struct fi_cq_entry e;
	enum fi_wait_obj kind;
	struct t_later l;
	uint32_t event;
	uint64_t t0;

	cr_assert_eq(fi_control(wsf, FI_GETWAIT, &fd), 0);
	cr_assert_eq(fi_control(wsf, FI_GETWAITOBJ, &kind), 0);
	cr_assert_eq(kind, FI_WAIT_FD);
	/* A member's wait object is the set's. */
	cr_assert_eq(fi_control(&cq->fid, FI_GETWAIT, &member_fd), 0);
	cr_assert_eq(member_fd, fd);
	t0 = t_ms();
	cr_assert_eq(fi_wait(ws, 30), -FI_ETIMEDOUT);
	cr_assert_geq(t_ms() - t0, 30);
	/* fi_wait returns once a member has something. */
	t_later(&l, T_EQ_WRITE, eq);
	cr_assert_eq(fi_wait(ws, 5000), 0);
	pthread_join(l.th, NULL);
	cr_assert_eq(fi_trywait(t.fabric, &wsf, 1), -FI_EAGAIN);
	cr_assert_eq(fi_eq_read(eq, &event, &ev, sizeof(ev), 0),
		     (ssize_t)sizeof(ev));
	t_later(&l, T_CQ_ADD, cq);
	cr_assert_eq(fi_wait(ws, 5000), 0);
	pthread_join(l.th, NULL);
	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	/* The set's fd under the application's own epoll. */
	cr_assert_eq(fi_trywait(t.fabric, &wsf, 1), 0);
	cr_assert_eq(t_epoll_wait(ep, 0), 0);
	t_epoll_woken_by(ep, T_CNTR_INC, c);
	cr_assert_eq(fi_trywait(t.fabric, &wsf, 1), -FI_EAGAIN);
	cr_assert_eq(fi_cntr_read(c), 1);
	cr_assert_eq(fi_trywait(t.fabric, &wsf, 1), 0);
	cr_assert_eq(t_epoll_wait(ep, 0), 0);
	close(ep);
	/* Members first. */
	cr_assert_eq(fi_close(wsf), -FI_EBUSY);
	cr_assert_eq(fi_close(&t.fabric->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&cq->fid), 0);
	cr_assert_eq(fi_close(&c->fid), 0);
	cr_assert_eq(fi_close(&eq->fid), 0);
	cr_assert_eq(fi_close(wsf), 0);
}

Test(uet_wait, refuses_wait_objects_it_lacks)
{
	struct fi_cq_attr cattr = { .wait_obj = FI_WAIT_MUTEX_COND };
	struct fi_cntr_attr nattr = { .events = FI_CNTR_EVENTS_COMP,
				      .wait_obj = FI_WAIT_MUTEX_COND };
	struct fi_eq_attr eattr = { .wait_obj = FI_WAIT_MUTEX_COND };
	struct fi_wait_attr wattr = { .wait_obj = FI_WAIT_MUTEX_COND };
	struct fid_fabric *fab2;
	struct fid_wait *ws, *ws2;
	struct fid_cntr *c;
	struct fid_cq *cq;
	struct fid_eq *eq;

	cr_assert_eq(fi_cq_open(t.domain, &cattr, &cq, NULL), -FI_ENOSYS);
	cr_assert_eq(fi_cntr_open(t.domain, &nattr, &c, NULL), -FI_ENOSYS);
	cr_assert_eq(fi_eq_open(t.fabric, &eattr, &eq, NULL), -FI_ENOSYS);
	cattr.wait_obj = FI_WAIT_POLLFD;
	cr_assert_eq(fi_cq_open(t.domain, &cattr, &cq, NULL), -FI_ENOSYS);
	cattr.wait_obj = (enum fi_wait_obj)99;
	cr_assert_eq(fi_cq_open(t.domain, &cattr, &cq, NULL), -FI_EINVAL);
	/* FI_WAIT_SET needs a set, of this fabric. */
	cattr.wait_obj = FI_WAIT_SET;
	cr_assert_eq(fi_cq_open(t.domain, &cattr, &cq, NULL), -FI_EINVAL);
	nattr.wait_obj = FI_WAIT_SET;
	cr_assert_eq(fi_cntr_open(t.domain, &nattr, &c, NULL), -FI_EINVAL);
	eattr.wait_obj = FI_WAIT_SET;
	cr_assert_eq(fi_eq_open(t.fabric, &eattr, &eq, NULL), -FI_EINVAL);
	cr_assert_eq(uet_fabric_open(t.info->fabric_attr, &fab2, NULL), 0);
	wattr.wait_obj = FI_WAIT_UNSPEC;
	cr_assert_eq(fi_wait_open(fab2, &wattr, &ws2), 0);
	cattr.wait_set = ws2;
	cr_assert_eq(fi_cq_open(t.domain, &cattr, &cq, NULL), -FI_EINVAL);
	cr_assert_eq(fi_close(&ws2->fid), 0);
	cr_assert_eq(fi_close(&fab2->fid), 0);
	/* Wait sets: FD (UNSPEC is FD), nothing else. */
	wattr.wait_obj = FI_WAIT_MUTEX_COND;
	cr_assert_eq(fi_wait_open(t.fabric, &wattr, &ws), -FI_ENOSYS);
	wattr.wait_obj = FI_WAIT_YIELD;
	cr_assert_eq(fi_wait_open(t.fabric, &wattr, &ws), -FI_ENOSYS);
	wattr.wait_obj = FI_WAIT_POLLFD;
	cr_assert_eq(fi_wait_open(t.fabric, &wattr, &ws), -FI_ENOSYS);
	wattr.wait_obj = FI_WAIT_NONE;
	cr_assert_eq(fi_wait_open(t.fabric, &wattr, &ws), -FI_EINVAL);
	wattr.wait_obj = FI_WAIT_SET;
	cr_assert_eq(fi_wait_open(t.fabric, &wattr, &ws), -FI_EINVAL);
	wattr.wait_obj = FI_WAIT_FD;
	wattr.flags = 1;
	cr_assert_eq(fi_wait_open(t.fabric, &wattr, &ws), -FI_EINVAL);
	cr_assert_eq(fi_wait_open(t.fabric, NULL, &ws), -FI_EINVAL);
	wattr.flags = 0;
	cr_assert_eq(fi_wait_open(t.fabric, &wattr, NULL), -FI_EINVAL);
}
