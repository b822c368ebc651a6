/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetd's endpoints: an index and a socket per endpoint, PIDonFEPs (asked
 * for or free, never two holders, resting after use so that late packets
 * cannot reach another user's newcomer; "any" never picks a resting one),
 * the JobID policy and the steering entries (the statistics that
 * `uetctl stats` prints: uetd_stats.c).
 *
 * JobID policy: the rules of the policy file (uetd_policy.c) for the
 * JobIDs they name; for the others, the default: a JobID belongs to the
 * user who opened its first endpoint, for as long as any endpoint of it is
 * open; root may join any. Another user's endpoint of it is refused with
 * EACCES, so one user's job cannot be joined, or its endpoints addressed
 * as members, by another's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "dev/uet_dev_wake.h"
#include "tools/uetd.h"
#include "uet_wire.h"
#include "uet_xdp_shared.h"

static void uetd_refuse(struct uetd *d, int conn, int err, const char *fmt,
			...) __attribute__((format(printf, 4, 5)));

static void uetd_refuse(struct uetd *d, int conn, int err, const char *fmt,
			...)
{
	struct uet_dev_open_rep rep = { .status = -err };
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rep.msg, sizeof(rep.msg), fmt, ap);
	va_end(ap);
	d->refusals++;
	uetd_log(d, "refused an endpoint: %s", rep.msg);
	uetd_send(conn, &rep, sizeof(rep), NULL, 0);
}

/* Whether |uid| may open an endpoint of |job|. */
bool uetd_job_allowed(const struct uetd *d, uint32_t job, uid_t uid,
			     uid_t *owner)
{
	for (uint32_t i = 1; i < d->layout.max_eps; i++) {
		const struct uetd_ep *e = &d->eps[i];

		if (e->conn >= 0 && e->job_id == job && e->uid != 0) {
			*owner = e->uid;
			return uid == 0 || e->uid == uid;
		}
	}
	return true;
}

static int uetd_pid_holder(const struct uetd *d, uint16_t pid)
{
	uint16_t ep = d->shm->pid_ep[pid];

	for (uint32_t i = 1; i < d->layout.max_eps; i++)
		if (d->eps[i].conn >= 0 && d->eps[i].pid_on_fep == pid)
			return (int)i;
	/* An owner that has not come back since a takeover holds it too. */
	if (ep && ep < d->layout.max_eps && d->eps[ep].conn < 0 &&
	    d->shm->slot[ep].state == UET_DEV_SLOT_ACTIVE)
		return ep;
	return -1;
}

/* A free PIDonFEP of the lower half, round robin; -1 if none. */
static int uetd_pid_alloc(struct uetd *d, uint64_t now)
{
	for (uint32_t n = 0; n < UET_FEP_PID_AUTO_END - UET_FEP_PID_AUTO_FIRST;
	     n++) {
		uint16_t pid = d->next_auto_pid;

		d->next_auto_pid = pid + 1 >= UET_FEP_PID_AUTO_END ?
				   UET_FEP_PID_AUTO_FIRST : pid + 1;
		if (uetd_pid_holder(d, pid) < 0 &&
		    d->pid_rest_until[pid] <= now)
			return pid;
	}
	return -1;
}

int uetd_steer_set(struct uetd *d, uint16_t pid, uint32_t job,
			  uint16_t ep)
{
	struct uet_xdp_pid_ent ent = { .job_id = job, .ep = ep };
	uint32_t key = pid;

	/* The copy local frames are steered by (dev/uet_fep_steer.h). */
	if (uet_dev_shm_lock(d->shm) == 0) {
		d->shm->pid_job[pid] = job;
		d->shm->pid_ep[pid] = ep;
		uet_dev_shm_unlock(d->shm);
	}
	if (d->pids_map < 0)
		return -ENOENT;
	return bpf_map_update_elem(d->pids_map, &key, &ent, BPF_ANY) < 0 ?
	       -errno : 0;
}

void uetd_ep_open(struct uetd *d, int conn, const struct uet_dev_req *req)
{
	struct uet_dev_open_rep rep = { 0 };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	uint64_t now = uetd_now_ns();
	uid_t owner = 0;
	uint32_t ep = 0;
	int pid, fd, ret, q, fds[3];

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return uetd_refuse(d, conn, errno, "no peer credentials");
	if (req->job_id > UET_SES_JOB_ID_MAX)
		return uetd_refuse(d, conn, EINVAL, "JobID %u is over 24 bits",
				   req->job_id);
	if (req->pid_on_fep != UET_DEV_PID_ANY &&
	    req->pid_on_fep > UET_SES_PID_ON_FEP_MAX)
		return uetd_refuse(d, conn, EINVAL, "PIDonFEP %u is over 12 "
				   "bits", req->pid_on_fep);
	ret = uetd_policy_check(req->job_id, cred.uid, cred.gid);
	if (ret == 0)
		return uetd_refuse(d, conn, EACCES, "the policy does not let "
				   "uid %u (pid %d) use JobID %u", cred.uid,
				   cred.pid, req->job_id);
	if (ret < 0 && !uetd_job_allowed(d, req->job_id, cred.uid, &owner))
		return uetd_refuse(d, conn, EACCES, "JobID %u belongs to uid "
				   "%u; uid %u (pid %d) may not join it",
				   req->job_id, owner, cred.uid, cred.pid);
	if (req->pid_on_fep == UET_DEV_PID_ANY) {
		pid = uetd_pid_alloc(d, now);
		if (pid < 0)
			return uetd_refuse(d, conn, EADDRINUSE,
					   "no free PIDonFEP");
	} else {
		int h;

		pid = req->pid_on_fep;
		h = uetd_pid_holder(d, (uint16_t)pid);
		if (h >= 0)
			return uetd_refuse(d, conn, EADDRINUSE, "PIDonFEP %d "
					   "is in use (process %d)", pid,
					   d->eps[h].pid);
		/*
		 * Resting: never for another user, whose endpoint late
		 * packets of the old one could reach. The same user may
		 * restart a server on its PIDonFEP at once: its PDCs are
		 * new (fresh PDCIDs and start PSNs), so the old one's late
		 * packets find no PDC there.
		 */
		if (d->pid_rest_until[pid] > now &&
		    d->pid_last_uid[pid] != cred.uid)
			return uetd_refuse(d, conn, EADDRINUSE, "PIDonFEP %d "
					   "was freed %.1f s ago by another "
					   "user and rests %.0f s", pid,
					   (double)(now + UETD_PID_REST_NS -
					   d->pid_rest_until[pid]) / 1e9,
					   UETD_PID_REST_NS / 1e9);
	}
	for (uint32_t i = 1; i < d->layout.max_eps && !ep; i++)
		if (d->eps[i].conn < 0 && d->eps[i].rest_until <= now &&
		    d->shm->slot[i].state != UET_DEV_SLOT_ACTIVE)
			ep = i;
	if (!ep)
		return uetd_refuse(d, conn, ENOSPC, "all %u endpoint indices "
				   "of %s are in use (uetctl load --endpoints "
				   "N: up to %u)", d->layout.max_eps - 1,
				   d->ifname, UET_FEP_EPS_MAX);
	q = uetd_dev_queue_pick(d, req->queue);
	if (q == -EAGAIN)
		return uetd_refuse(d, conn, EAGAIN, "rx queue %u of %s is being "
				   "taken over: try again in a second",
				   req->queue, d->ifname);
	if (q < 0)
		return uetd_refuse(d, conn, ERANGE, "rx queue %u is not served "
				   "here (queues %u-%u)", req->queue,
				   d->queue_id, d->queue_id + d->queues - 1);
	fd = uetd_dev_ep_socket(d, ep, (uint32_t)q);
	if (fd < 0)
		return uetd_refuse(d, conn, -fd, "endpoint socket: %s",
				   strerror(-fd));
	ret = uetd_steer_set(d, (uint16_t)pid, req->job_id, (uint16_t)ep);
	if (ret < 0) {
		close(fd);
		return uetd_refuse(d, conn, -ret, "steering entry: %s",
				   strerror(-ret));
	}
	if (uet_dev_shm_lock(d->shm) == 0) {
		struct uet_dev_shm_slot *sl = &d->shm->slot[ep];

		sl->mbox_head = sl->mbox_tail = 0;
		sl->tx_frames = sl->rx_frames = sl->rx_refused = 0;
		sl->lch_pid = 0;
		sl->lch_fd = -1;
		sl->lch_nonce = 0;
		sl->wake_nonce = 0;
		sl->sleeping = 0;
		/* Its owner has not had it yet: nobody writes it now. */
		memset(&sl->pub, 0, sizeof(sl->pub));
		sl->owner_pid = (uint32_t)cred.pid;
		sl->owner_start = uetd_proc_start(cred.pid);
		sl->state = UET_DEV_SLOT_ACTIVE;
		uet_dev_shm_unlock(d->shm);
	}
	/* Field by field: the socket's rx ring mapping is in there. */
	d->eps[ep].conn = conn;
	d->eps[ep].pid = cred.pid;
	d->eps[ep].uid = cred.uid;
	d->eps[ep].gid = cred.gid;
	d->eps[ep].job_id = req->job_id;
	d->eps[ep].pid_on_fep = (uint16_t)pid;
	d->eps[ep].rest_until = 0;
	uetd_tss_ep_changed(d, ep);
	rep.ep = ep;
	rep.pid_on_fep = (uint16_t)pid;
	rep.udp_port = d->udp_port;
	rep.job_id = req->job_id;
	rep.ifindex = (uint32_t)d->ifindex;
	rep.queue_id = d->queue_id + (uint32_t)q;
	rep.layout = d->layout;
	fds[0] = fd;
	fds[1] = d->umem_fd;
	fds[2] = d->shm_fd;
	ret = uetd_send(conn, &rep, sizeof(rep), fds, 3);
	/*
	 * Our copy goes: the socket then lives exactly as long as the
	 * endpoint's process holds it, and the kernel takes it out of the
	 * XSKMAP when it closes.
	 */
	close(fd);
	d->opens++;
	uetd_log(d, "endpoint %u: PIDonFEP %d, JobID %u, process %d, uid %u, "
		 "queue %u", ep, pid, req->job_id, cred.pid, cred.uid,
		 rep.queue_id);
	if (ret < 0)
		uetd_ep_close(d, ep);
}

void uetd_ep_close(struct uetd *d, uint32_t ep)
{
	struct uetd_ep *e = &d->eps[ep];
	uint64_t now = uetd_now_ns();
	uint32_t key = ep;

	if (e->conn < 0)
		return;
	/* Steering first: from now on its packets go to the service. */
	uetd_steer_set(d, e->pid_on_fep, 0, 0);
	bpf_map_delete_elem(d->maps.xsks, &key);
	d->pid_rest_until[e->pid_on_fep] = now + UETD_PID_REST_NS;
	d->pid_last_uid[e->pid_on_fep] = e->uid;
	if (uet_dev_shm_lock(d->shm) == 0) {
		d->shm->slot[ep].state = UET_DEV_SLOT_QUARANTINE;
		uet_dev_shm_unlock(d->shm);
	}
	e->rest_until = now + UETD_SLOT_REST_NS;
	uetd_log(d, "endpoint %u closed: PIDonFEP %u (process %d) rests %.0f s",
		 ep, e->pid_on_fep, e->pid, UETD_PID_REST_NS / 1e9);
	close(e->conn);
	e->conn = -1;
	uetd_tss_ep_changed(d, ep);
	d->ep_closed++;
}

/* Indices whose owner left long enough ago become free. */
void uetd_ep_tick(struct uetd *d)
{
	uint64_t now = uetd_now_ns();

	for (uint32_t i = 1; i < d->layout.max_eps; i++) {
		if (d->eps[i].conn >= 0 || d->eps[i].rest_until > now ||
		    d->shm->slot[i].state != UET_DEV_SLOT_QUARANTINE)
			continue;
		/* Its socket is long gone: nothing writes its ring now. */
		d->rx_recovered += uetd_dev_ep_recover(d, i);
		if (uet_dev_shm_lock(d->shm) == 0) {
			d->shm->slot[i].state = UET_DEV_SLOT_FREE;
			uet_dev_shm_unlock(d->shm);
		}
	}
}

void uetd_ep_wake(struct uetd *d, uint32_t ep)
{
	uet_dev_wake_owner(&d->shm->slot[ep], &d->wake_tx);
}
