/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Completion queues: a growing ring of completions, kept in the widest
 * form and copied out in the CQ's format, and a list of error entries.
 * Reads drive progress (FI_PROGRESS_MANUAL); sread sleeps in poll() on
 * the engines' sockets and the wait object's eventfd (new entries from
 * another thread, fi_cq_signal) between progress runs. The wait object
 * (uet_wait.c) is what FI_GETWAIT hands out and fi_trywait prepares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet/uet.h"

struct uet_cq_err {
	struct uet_list link;
	struct fi_cq_err_entry e;
};

static size_t uet_cq_entry_len(enum fi_cq_format f)
{
	switch (f) {
	case FI_CQ_FORMAT_CONTEXT:
		return sizeof(struct fi_cq_entry);
	case FI_CQ_FORMAT_MSG:
		return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA:
		return sizeof(struct fi_cq_data_entry);
	case FI_CQ_FORMAT_TAGGED:
		return sizeof(struct fi_cq_tagged_entry);
	default:
		return 0;
	}
}

static bool uet_cq_grow(struct uet_cq *cq)
{
	size_t cap = cq->cap * 2;
	struct uet_cq_entry *ring = malloc(cap * sizeof(*ring));

	if (!ring)
		return false;
	for (size_t i = 0; i < cq->cnt; i++)
		ring[i] = cq->ring[(cq->head + i) % cq->cap];
	free(cq->ring);
	cq->ring = ring;
	cq->cap = cap;
	cq->head = 0;
	return true;
}

/* Called with the domain lock held. The ring grows rather than drop. */
void uet_cq_write(struct uet_cq *cq, const struct uet_cq_entry *e)
{
	if (cq->cnt == cq->cap && !uet_cq_grow(cq)) {
		FI_WARN_SPARSE(&uet_prov, FI_LOG_CQ,
			       "completion dropped: out of memory\n");
		return;
	}
	cq->ring[(cq->head + cq->cnt) % cq->cap] = *e;
	cq->cnt++;
	uet_wait_obj_note(&cq->wait);
}

void uet_cq_write_err(struct uet_cq *cq, const struct fi_cq_err_entry *e)
{
	struct uet_cq_err *err = malloc(sizeof(*err));

	if (!err) {
		FI_WARN_SPARSE(&uet_prov, FI_LOG_CQ,
			       "error completion dropped: out of memory\n");
		return;
	}
	err->e = *e;
	/* Applications often abort on an error completion without saying
	 * why (Open MPI: MPI_ERR_INTERN): the log keeps the cause. */
	FI_WARN_SPARSE(&uet_prov, FI_LOG_CQ,
		       "error completion: %s (prov_errno %d), flags 0x%llx, "
		       "len %zu\n", fi_strerror(e->err), e->prov_errno,
		       (unsigned long long)e->flags, e->len);
	uet_list_add_tail(&cq->errs, &err->link);
	uet_wait_obj_note(&cq->wait);
}

/* Called with the domain lock held. */
bool uet_cq_has_events(const struct uet_cq *cq)
{
	return cq->cnt || !uet_list_is_empty(&cq->errs);
}

static void uet_cq_copy(const struct uet_cq *cq, void *dst,
			const struct uet_cq_entry *e)
{
	struct fi_cq_tagged_entry t = {
		.op_context = e->op_context, .flags = e->flags, .len = e->len,
		.buf = e->buf, .data = e->data, .tag = e->tag,
	};

	/* Every format is a prefix of the tagged one. */
	memcpy(dst, &t, cq->entry_len);
}

static ssize_t uet_cq_read_locked(struct uet_cq *cq, void *buf, size_t count,
				  fi_addr_t *src)
{
	size_t n;

	if (!uet_list_is_empty(&cq->errs))
		return -FI_EAVAIL;
	if (!cq->cnt) {
		uet_wait_obj_idle(&cq->wait);
		return -FI_EAGAIN;
	}
	n = count < cq->cnt ? count : cq->cnt;
	uet_domain_busy(cq->dom);
	for (size_t i = 0; i < n; i++) {
		const struct uet_cq_entry *e = &cq->ring[cq->head];

		uet_cq_copy(cq, (uint8_t *)buf + i * cq->entry_len, e);
		if (src)
			src[i] = e->src;
		cq->head = (cq->head + 1) % cq->cap;
		cq->cnt--;
	}
	return (ssize_t)n;
}

static ssize_t uet_cq_readfrom(struct fid_cq *cq_fid, void *buf, size_t count,
			       fi_addr_t *src)
{
	struct uet_cq *cq = container_of(cq_fid, struct uet_cq, cq_fid);
	ssize_t ret;

	if (count && !buf)
		return -FI_EINVAL;
	uet_domain_lock(cq->dom);
	/*
	 * Enough here already: hand them over without running the engines.
	 * The frames an engine holds back (ACKs waiting to leave with the
	 * application's answer) then leave in one kick with that answer, not
	 * in a kick of their own in this read (an 8-byte ping-pong made two
	 * sendto()s a round trip, one of them for the lone ACK).
	 */
	if (count == 0 || cq->cnt < count || !uet_list_is_empty(&cq->errs))
		uet_domain_progress(cq->dom);
	else
		uet_domain_app_came(cq->dom);
	ret = uet_cq_read_locked(cq, buf, count, src);
	/* Nothing for a while: sleep a little, then look again. */
	if (ret == -FI_EAGAIN && count &&
	    uet_domain_idle(cq->dom, cq->wait.evfd)) {
		uet_domain_progress(cq->dom);
		ret = uet_cq_read_locked(cq, buf, count, src);
	}
	uet_domain_unlock(cq->dom);
	return ret;
}

static ssize_t uet_cq_read(struct fid_cq *cq_fid, void *buf, size_t count)
{
	return uet_cq_readfrom(cq_fid, buf, count, NULL);
}

static ssize_t uet_cq_readerr(struct fid_cq *cq_fid,
			      struct fi_cq_err_entry *buf, uint64_t flags)
{
	struct uet_cq *cq = container_of(cq_fid, struct uet_cq, cq_fid);
	struct uet_cq_err *err;
	void *user_data;

	if (!buf || (flags & ~FI_PEEK))
		return -FI_EINVAL;
	uet_domain_lock(cq->dom);
	if (uet_list_is_empty(&cq->errs)) {
		uet_domain_unlock(cq->dom);
		return -FI_EAGAIN;
	}
	err = container_of(cq->errs.next, struct uet_cq_err, link);
	user_data = buf->err_data;
	*buf = err->e;
	/* We have no error data; the caller's buffer stays as it was. */
	buf->err_data = user_data;
	buf->err_data_size = 0;
	if (!(flags & FI_PEEK)) {
		uet_list_del(&err->link);
		free(err);
	}
	uet_domain_unlock(cq->dom);
	return 1;
}

static ssize_t uet_cq_sreadfrom(struct fid_cq *cq_fid, void *buf,
				size_t count, fi_addr_t *src, const void *cond,
				int timeout)
{
	struct uet_cq *cq = container_of(cq_fid, struct uet_cq, cq_fid);
	uint64_t deadline = uet_deadline_ns(timeout), spin_until = 0;
	ssize_t ret;

	(void)cond;	/* a threshold is only an optimisation */
	if (count && !buf)
		return -FI_EINVAL;
	uet_domain_lock(cq->dom);
	for (;;) {
		uet_domain_progress(cq->dom);
		ret = uet_cq_read_locked(cq, buf, count, src);
		if (ret != -FI_EAGAIN || uet_deadline_passed(deadline))
			break;
		if (cq->signalled) {
			cq->signalled = false;
			break;
		}
		if (uet_domain_sread_spins(cq->dom, &spin_until))
			continue;
		/* What waits for our answer would wait out our sleep. */
		uet_domain_send_held(cq->dom);
		/* Woken by the eventfd: a new entry or fi_cq_signal. */
		if (uet_domain_wait(cq->dom, cq->wait.evfd, deadline))
			uet_wait_obj_drain(&cq->wait);
	}
	uet_domain_unlock(cq->dom);
	return ret;
}

static ssize_t uet_cq_sread(struct fid_cq *cq_fid, void *buf, size_t count,
			    const void *cond, int timeout)
{
	return uet_cq_sreadfrom(cq_fid, buf, count, NULL, cond, timeout);
}

/* Wakes sread, and a thread blocked on the CQ's fd (fi_trywait then
 * says -FI_EAGAIN once, so that it looks before blocking again). */
static int uet_cq_signal(struct fid_cq *cq_fid)
{
	struct uet_cq *cq = container_of(cq_fid, struct uet_cq, cq_fid);

	uet_domain_lock(cq->dom);
	cq->signalled = true;
	if (!cq->wait.pending)
		uet_wait_obj_signal(&cq->wait);
	uet_domain_unlock(cq->dom);
	return 0;
}

/* fi_trywait on the CQ: progress once, then block only when empty. */
int uet_cq_trywait(struct uet_cq *cq)
{
	int ret;

	if (cq->wait.epfd < 0)
		return -FI_EINVAL;	/* FI_WAIT_NONE, FI_WAIT_YIELD */
	uet_domain_lock(cq->dom);
	uet_domain_progress(cq->dom);
	if (cq->signalled || uet_cq_has_events(cq)) {
		cq->signalled = false;
		ret = -FI_EAGAIN;
	} else {
		ret = uet_wait_obj_arm(&cq->wait);
	}
	uet_domain_unlock(cq->dom);
	return ret;
}

static const char *uet_cq_strerror(struct fid_cq *cq_fid, int prov_errno,
				   const void *err_data, char *buf, size_t len)
{
	(void)cq_fid;
	(void)err_data;
	return uet_strerror(prov_errno, buf, len);
}

static int uet_cq_close(struct fid *fid)
{
	struct uet_cq *cq = container_of(fid, struct uet_cq, cq_fid.fid);
	struct uet_cq_err *err;

	if (atomic_load(&cq->ref))
		return -FI_EBUSY;
	while (!uet_list_is_empty(&cq->errs)) {
		err = container_of(cq->errs.next, struct uet_cq_err, link);
		uet_list_del(&err->link);
		free(err);
	}
	uet_wait_obj_fini(&cq->wait);
	atomic_fetch_sub(&cq->dom->ref, 1);
	free(cq->ring);
	free(cq);
	return 0;
}

static int uet_cq_control(struct fid *fid, int command, void *arg)
{
	struct uet_cq *cq = container_of(fid, struct uet_cq, cq_fid.fid);

	return uet_wait_obj_control(&cq->wait, command, arg);
}

static const struct fi_ops uet_cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uet_cq_close,
	.bind = uet_no_bind,
	.control = uet_cq_control,
	.ops_open = uet_no_ops_open,
	.tostr = uet_no_tostr,
	.ops_set = uet_no_ops_set,
};

static const struct fi_ops_cq uet_cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = uet_cq_read,
	.readfrom = uet_cq_readfrom,
	.readerr = uet_cq_readerr,
	.sread = uet_cq_sread,
	.sreadfrom = uet_cq_sreadfrom,
	.signal = uet_cq_signal,
	.strerror = uet_cq_strerror,
};

static int uet_cq_attr_check(const struct fi_cq_attr *attr)
{
	if (attr->flags & ~FI_AFFINITY)
		return -FI_EBADFLAGS;
	if (attr->format != FI_CQ_FORMAT_UNSPEC &&
	    !uet_cq_entry_len(attr->format))
		return -FI_ENOSYS;
	return 0;	/* the wait object is checked as it is made */
}

int uet_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		struct fid_cq **cq_fid, void *context)
{
	struct uet_domain *dom = container_of(domain, struct uet_domain,
					      dom_fid);
	struct uet_cq *cq;
	int ret;

	if (!attr || !cq_fid)
		return -FI_EINVAL;
	ret = uet_cq_attr_check(attr);
	if (ret)
		return ret;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -FI_ENOMEM;
	cq->format = attr->format == FI_CQ_FORMAT_UNSPEC ?
		     FI_CQ_FORMAT_CONTEXT : attr->format;
	cq->entry_len = uet_cq_entry_len(cq->format);
	cq->cap = attr->size ? attr->size : UET_CQ_DEF_SIZE;
	cq->ring = malloc(cq->cap * sizeof(*cq->ring));
	if (!cq->ring) {
		free(cq);
		return -FI_ENOMEM;
	}
	uet_list_init(&cq->errs);
	atomic_init(&cq->ref, 0);
	cq->dom = dom;
	cq->cq_fid.fid.fclass = FI_CLASS_CQ;
	cq->cq_fid.fid.context = context;
	cq->cq_fid.fid.ops = (struct fi_ops *)&uet_cq_fi_ops;
	cq->cq_fid.ops = (struct fi_ops_cq *)&uet_cq_ops;
	/* Last: a wait set may try the CQ as soon as it joins. */
	ret = uet_wait_obj_init(&cq->wait, &cq->cq_fid.fid, dom, dom->fab,
				attr->wait_obj, attr->wait_set);
	if (ret) {
		free(cq->ring);
		free(cq);
		return ret;
	}
	atomic_fetch_add(&dom->ref, 1);
	*cq_fid = &cq->cq_fid;
	return 0;
}
