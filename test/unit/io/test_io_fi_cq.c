/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Completion queues, counters and event queues with no traffic: formats,
 * empty reads, error entries with the UET return code, sread and its
 * time-out and signal, strerror, counter arithmetic and waits, EQ events.
 */
#include <pthread.h>
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

TestSuite(uet_cq, .init = t_setup, .fini = t_teardown);

static struct fid_cq *t_cq(enum fi_cq_format format, enum fi_wait_obj wait)
{
	struct fi_cq_attr attr = { .format = format, .wait_obj = wait,
				   .size = 2 };
	struct fid_cq *cq;

	cr_assert_eq(fi_cq_open(t.domain, &attr, &cq, NULL), 0);
	return cq;
}

static struct uet_cq *t_ucq(struct fid_cq *cq)
{
	return container_of(cq, struct uet_cq, cq_fid);
}

static uint64_t t_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

Test(uet_cq, empty_reads_say_eagain)
{
	struct fid_cq *cq = t_cq(FI_CQ_FORMAT_DATA, FI_WAIT_NONE);
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err = { 0 };

	cr_assert_eq(fi_cq_read(cq, &e, 1), -FI_EAGAIN);
	cr_assert_eq(fi_cq_read(cq, NULL, 0), -FI_EAGAIN);
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), -FI_EAGAIN);
	cr_assert_eq(fi_cq_read(cq, NULL, 1), -FI_EINVAL);
	cr_assert_eq(fi_close(&cq->fid), 0);
}

Test(uet_cq, copies_out_each_format_and_grows)
{
	enum fi_cq_format f[] = { FI_CQ_FORMAT_CONTEXT, FI_CQ_FORMAT_MSG,
				  FI_CQ_FORMAT_DATA, FI_CQ_FORMAT_TAGGED };
	struct uet_cq_entry in = { .op_context = &t, .flags = FI_RMA | FI_WRITE,
				   .len = 77, .buf = &in, .data = 0xD00D,
				   .tag = 0x7A6, .src = 5 };
	struct fi_cq_tagged_entry out[5];
	fi_addr_t src[5];

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct fid_cq *cq = t_cq(f[i], FI_WAIT_NONE);

		/* Five entries into a CQ sized for two: nothing is lost. */
		for (int k = 0; k < 5; k++)
			uet_cq_write(t_ucq(cq), &in);
		memset(out, 0, sizeof(out));
		cr_assert_eq(fi_cq_readfrom(cq, out, 5, src), 5);
		cr_assert_eq(src[4], 5);
		/* The fields the format has, densely packed. */
		if (f[i] == FI_CQ_FORMAT_TAGGED) {
			cr_assert_eq(out[4].op_context, &t);
			cr_assert_eq(out[4].flags, FI_RMA | FI_WRITE);
			cr_assert_eq(out[4].len, 77);
			cr_assert_eq(out[4].data, 0xD00D);
			cr_assert_eq(out[4].tag, 0x7A6);
		} else if (f[i] == FI_CQ_FORMAT_CONTEXT) {
			struct fi_cq_entry *c = (struct fi_cq_entry *)out;

			cr_assert_eq(c[4].op_context, &t);
		} else if (f[i] == FI_CQ_FORMAT_DATA) {
			struct fi_cq_data_entry *d =
				(struct fi_cq_data_entry *)out;

			cr_assert_eq(d[4].data, 0xD00D);
			cr_assert_eq(d[4].len, 77);
		}
		cr_assert_eq(fi_cq_read(cq, out, 1), -FI_EAGAIN);
		cr_assert_eq(fi_close(&cq->fid), 0);
	}
}

Test(uet_cq, error_entries_come_first_and_carry_the_uet_code)
{
	struct fid_cq *cq = t_cq(FI_CQ_FORMAT_MSG, FI_WAIT_NONE);
	struct uet_cq_entry in = { .op_context = &t };
	struct fi_cq_err_entry err = {
		.op_context = &in, .err = FI_EKEYREJECTED,
		.prov_errno = UET_SES_RC_BAD_MKEY };
	struct fi_cq_msg_entry e;
	char buf[64];

	uet_cq_write(t_ucq(cq), &in);
	uet_cq_write_err(t_ucq(cq), &err);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(fi_cq_read(cq, &e, 1), -FI_EAVAIL);
	cr_assert_eq(fi_cq_readerr(cq, &err, FI_PEEK), 1);
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_eq(err.op_context, &in);
	cr_assert_eq(err.err, FI_EKEYREJECTED);
	cr_assert_eq(err.prov_errno, UET_SES_RC_BAD_MKEY);
	cr_assert_eq(err.err_data_size, 0);
	cr_assert_str_eq(fi_cq_strerror(cq, err.prov_errno, NULL, buf,
					sizeof(buf)), "the target answered RC_BAD_MKEY");
	cr_assert_eq(fi_cq_read(cq, &e, 1), 1);
	cr_assert_eq(e.op_context, &t);
	cr_assert_eq(fi_close(&cq->fid), 0);
}

/* Local failures read as what they are, never as a UET code (RC_NULL). */
Test(uet_cq, strerror_of_local_failures)
{
	struct fid_cq *cq = t_cq(FI_CQ_FORMAT_MSG, FI_WAIT_NONE);
	char buf[160];

	cr_assert_eq(uet_prov_errno(-ETIMEDOUT, 0), -ETIMEDOUT);
	cr_assert_eq(uet_prov_errno(-EREMOTEIO, UET_SES_RC_BAD_PID),
		     UET_SES_RC_BAD_PID);
	cr_assert_eq(uet_prov_errno(0, 0), 0);
	cr_assert(strstr(fi_cq_strerror(cq, -ETIMEDOUT, NULL, buf,
					sizeof(buf)), "timed out"));
	cr_assert(strstr(fi_cq_strerror(cq, -ECONNRESET, NULL, buf,
					sizeof(buf)), "gone"));
	cr_assert(strstr(fi_cq_strerror(cq, -EHOSTUNREACH, NULL, NULL, 0),
			 "unreachable"));
	cr_assert_null(strstr(fi_cq_strerror(cq, -ETIMEDOUT, NULL, buf,
					     sizeof(buf)), "RC_"));
	cr_assert(strstr(fi_cq_strerror(cq, UET_SES_RC_BAD_PID, NULL, buf,
					sizeof(buf)), "RC_BAD_PID"));
	cr_assert_eq(fi_close(&cq->fid), 0);
}

Test(uet_cq, sread_times_out)
{
	struct fid_cq *cq = t_cq(FI_CQ_FORMAT_CONTEXT, FI_WAIT_UNSPEC);
	struct fi_cq_entry e;
	uint64_t t0 = t_ms();

	cr_assert_eq(fi_cq_sread(cq, &e, 1, NULL, 50), -FI_EAGAIN);
	cr_assert_geq(t_ms() - t0, 50);
	cr_assert_lt(t_ms() - t0, 1000);
	cr_assert_eq(fi_close(&cq->fid), 0);
}

static void *t_signal(void *arg)
{
	struct timespec ts = { 0, 20 * 1000000 };

	nanosleep(&ts, NULL);
	fi_cq_signal(arg);
	return NULL;
}

Test(uet_cq, signal_wakes_sread)
{
	struct fid_cq *cq = t_cq(FI_CQ_FORMAT_CONTEXT, FI_WAIT_UNSPEC);
	struct fi_cq_entry e;
	uint64_t t0 = t_ms();
	pthread_t th;

	pthread_create(&th, NULL, t_signal, cq);
	cr_assert_eq(fi_cq_sread(cq, &e, 1, NULL, -1), -FI_EAGAIN);
	cr_assert_lt(t_ms() - t0, 1000);
	pthread_join(th, NULL);
	cr_assert_eq(fi_close(&cq->fid), 0);
}

Test(uet_cq, refuses_what_it_lacks)
{
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_CONTEXT,
				   .wait_obj = FI_WAIT_MUTEX_COND };
	struct fid_cq *cq;

	cr_assert_eq(fi_cq_open(t.domain, &attr, &cq, NULL), -FI_ENOSYS);
	attr.wait_obj = FI_WAIT_NONE;
	attr.format = 42;
	cr_assert_eq(fi_cq_open(t.domain, &attr, &cq, NULL), -FI_ENOSYS);
	attr.format = FI_CQ_FORMAT_CONTEXT;
	attr.flags = FI_PEEK;
	cr_assert_eq(fi_cq_open(t.domain, &attr, &cq, NULL), -FI_EBADFLAGS);
}

Test(uet_cq, counters_count)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP };
	struct fid_cntr *c;
	uint64_t t0;

	cr_assert_eq(fi_cntr_open(t.domain, &attr, &c, NULL), 0);
	cr_assert_eq(fi_cntr_read(c), 0);
	cr_assert_eq(fi_cntr_add(c, 5), 0);
	cr_assert_eq(fi_cntr_add(c, 2), 0);
	cr_assert_eq(fi_cntr_read(c), 7);
	cr_assert_eq(fi_cntr_set(c, 3), 0);
	cr_assert_eq(fi_cntr_read(c), 3);
	cr_assert_eq(fi_cntr_adderr(c, 2), 0);
	cr_assert_eq(fi_cntr_readerr(c), 2);
	cr_assert_eq(fi_cntr_seterr(c, 0), 0);
	cr_assert_eq(fi_cntr_readerr(c), 0);
	cr_assert_eq(fi_cntr_wait(c, 3, 0), 0);
	t0 = t_ms();
	cr_assert_eq(fi_cntr_wait(c, 4, 30), -FI_ETIMEDOUT);
	cr_assert_geq(t_ms() - t0, 30);
	cr_assert_eq(fi_close(&c->fid), 0);
	attr.wait_obj = FI_WAIT_MUTEX_COND;
	cr_assert_eq(fi_cntr_open(t.domain, &attr, &c, NULL), -FI_ENOSYS);
}

Test(uet_cq, eq_carries_written_events)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_UNSPEC };
	struct fi_eq_entry in = { .context = &t, .data = 42 }, out;
	uint32_t event;
	struct fid_eq *eq;

	cr_assert_eq(fi_eq_open(t.fabric, &attr, &eq, NULL), 0);
	cr_assert_eq(fi_eq_read(eq, &event, &out, sizeof(out), 0),
		     -FI_EAGAIN);
	cr_assert_eq(fi_eq_sread(eq, &event, &out, sizeof(out), 20, 0),
		     -FI_EAGAIN);
	cr_assert_eq(fi_eq_write(eq, FI_NOTIFY, &in, sizeof(in), 0),
		     (ssize_t)sizeof(in));
	cr_assert_eq(fi_eq_read(eq, &event, &out, 4, 0), -FI_ETOOSMALL);
	cr_assert_eq(fi_eq_sread(eq, &event, &out, sizeof(out), -1, 0),
		     (ssize_t)sizeof(in));
	cr_assert_eq(event, FI_NOTIFY);
	cr_assert_eq(out.data, 42);
	cr_assert_eq(fi_close(&t.fabric->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&eq->fid), 0);
}
