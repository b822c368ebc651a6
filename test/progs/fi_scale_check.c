/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Many peers at once (issue 39), with plain libfabric (any provider):
 *
 *   fi_scale_check -s SLOTS -p SERVICE [-l LEN]
 *	a target endpoint: a region of SLOTS slots of LEN bytes (key
 *	FSC_KEY), waits in fi_cntr_wait until SLOTS remote writes came,
 *	then checks that each slot holds what its writer writes;
 *   fi_scale_check -c ADDR -p SERVICE -n K -o FIRST [-l LEN]
 *	K initiator endpoints in one process, each writing its own slot
 *	(FIRST + i) of the target at ADDR, waiting in fi_cq_sread;
 *   fi_scale_check -a HOSTS -h H -p BASE -n K [-l LEN]
 *	all to all: K endpoints here (services BASE .. BASE + K - 1) of H
 *	in the comma-separated HOSTS, each holding one slot per endpoint of
 *	the job; every endpoint writes LEN bytes into its slot of every
 *	other, waits for its writes and for the others' (fi_cntr_wait),
 *	then checks its region.
 *
 * With -g FILE every mode says "ready" once set up and starts when FILE
 * appears, so that many processes start at once. With -B DIR the
 * all-to-all's processes also wait for each other before they close
 * (fsc_barrier). -t SECONDS bounds every wait (default 60). Exit 0 when
 * every byte checked out; the last line says what was done
 * ("fi_scale_check: ... ok") or what failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#define FSC_KEY		0x5CA1E00ull	/* + the endpoint's local index */
#define FSC_MAX_EPS	1024
#define FSC_MAX_HOSTS	256

struct fsc_ep {
	struct fid_ep *ep;
	struct fid_cntr *cntr;	/* remote writes into region */
	struct fid_mr *mr;
	uint8_t *region;
	uint8_t *src;		/* what it writes: one slot's worth */
	fi_addr_t *to;		/* its peers' addresses (all-to-all) */
};

static struct {
	char mode;
	const char *addr, *go_file, *done_dir;
	char *hosts[FSC_MAX_HOSTS];
	int nhosts, host, n, first, slots, timeout_s;
	unsigned long service;
	size_t len;
} o = { .n = 1, .len = 64, .timeout_s = 60 };

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fsc_ep eps[FSC_MAX_EPS];
static double t_start;

static double fsc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fsc_die(const char *what, int ret)
{
	printf("fi_scale_check: %c: FAIL: %s: %s (%d)\n", o.mode, what,
	       fi_strerror(ret < 0 ? -ret : ret), ret);
	exit(1);
}

/* The byte |i| of what endpoint |from| writes into endpoint |to|'s slot. */
static uint8_t fsc_byte(int from, int to, size_t i)
{
	return (uint8_t)(from * 131 + to * 7 + i * 13 + 1);
}

static void fsc_open(void)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT,
				      .wait_obj = FI_WAIT_UNSPEC,
				      .size = 4096 };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	int ret;

	hints->caps = FI_RMA | FI_RMA_EVENT;
	hints->ep_attr->type = FI_EP_RDM;
	hints->domain_attr->mr_mode = FI_MR_ENDPOINT;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info);
	fi_freeinfo(hints);
	if (ret)
		fsc_die("fi_getinfo", ret);
	if ((ret = fi_fabric(info->fabric_attr, &fabric, NULL)) ||
	    (ret = fi_domain(fabric, info, &domain, NULL)) ||
	    (ret = fi_av_open(domain, &av_attr, &av, NULL)) ||
	    (ret = fi_cq_open(domain, &cq_attr, &cq, NULL)))
		fsc_die("fabric, domain, AV, CQ", ret);
}

/* Endpoint |i| at |service| (0: any), bound, enabled, its region made. */
static void fsc_ep_open(int i, unsigned long service, size_t region_len)
{
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_UNSPEC };
	struct fsc_ep *e = &eps[i];
	struct fi_info *mine = fi_dupinfo(info);
	char svc[24];
	int ret;

	/* Our own service: the PIDonFEP the others reach us at. */
	if (service) {
		struct fi_info *hints = fi_dupinfo(info), *got;

		snprintf(svc, sizeof(svc), "%lu", service);
		free(hints->src_addr);
		hints->src_addr = NULL;
		hints->src_addrlen = 0;
		ret = fi_getinfo(FI_VERSION(1, 17), NULL, svc, FI_SOURCE,
				 hints, &got);
		fi_freeinfo(hints);
		if (ret)
			fsc_die("fi_getinfo of our service", ret);
		fi_freeinfo(mine);
		mine = got;
	}
	if ((ret = fi_endpoint(domain, mine, &e->ep, e)) ||
	    (ret = fi_ep_bind(e->ep, &av->fid, 0)) ||
	    (ret = fi_ep_bind(e->ep, &cq->fid, FI_TRANSMIT | FI_RECV)))
		fsc_die("endpoint", ret);
	fi_freeinfo(mine);
	if (region_len) {
		if ((ret = fi_cntr_open(domain, &ca, &e->cntr, NULL)) ||
		    (ret = fi_ep_bind(e->ep, &e->cntr->fid, FI_REMOTE_WRITE)))
			fsc_die("counter", ret);
	}
	if ((ret = fi_enable(e->ep)))
		fsc_die("fi_enable", ret);
	if (!region_len)
		return;
	e->region = calloc(1, region_len);
	if (!e->region)
		fsc_die("region", -FI_ENOMEM);
	ret = fi_mr_reg(domain, e->region, region_len, FI_REMOTE_WRITE, 0,
			FSC_KEY + (uint64_t)i, 0, &e->mr, NULL);
	if (!ret)
		ret = fi_mr_bind(e->mr, &e->ep->fid, 0);
	if (!ret)
		ret = fi_mr_enable(e->mr);
	if (ret)
		fsc_die("fi_mr_reg", ret);
}

/* Says "ready", then waits for the go file (bounded). */
static void fsc_go(void)
{
	double until = fsc_now() + o.timeout_s;

	printf("fi_scale_check: %c: ready\n", o.mode);
	fflush(stdout);
	while (o.go_file && access(o.go_file, F_OK) && fsc_now() < until)
		usleep(2000);
	if (o.go_file && access(o.go_file, F_OK))
		fsc_die("no go file", -FI_ETIMEDOUT);
	t_start = fsc_now();
	/*
	 * From the go itself, not from when this process saw it (a 2 ms
	 * poll): a small incast is over before the target looks.
	 */
	if (o.go_file) {
		struct timespec now;
		struct stat st;
		double ago;

		clock_gettime(CLOCK_REALTIME, &now);
		if (!stat(o.go_file, &st)) {
			ago = (double)(now.tv_sec - st.st_mtim.tv_sec) +
			      (double)(now.tv_nsec - st.st_mtim.tv_nsec) / 1e9;
			if (ago > 0 && ago < 1)
				t_start -= ago;
		}
	}
}

/* Waits in fi_cq_sread for |n| completions; the errors printed. */
static int fsc_reap(int n)
{
	struct fi_cq_entry ent[64];
	int done = 0, errs = 0;

	while (done + errs < n) {
		int left = (int)(t_start + o.timeout_s - fsc_now());
		ssize_t got;

		if (left <= 0) {
			printf("fi_scale_check: %c: %d of %d completions, "
			       "%d errors, then the time ran out\n", o.mode,
			       done, n, errs);
			return -1;
		}
		got = fi_cq_sread(cq, ent, 64, NULL, 1000);
		if (got == -FI_EAVAIL) {
			struct fi_cq_err_entry err = { 0 };
			char buf[128];

			if (fi_cq_readerr(cq, &err, 0) != 1)
				continue;
			if (errs++ < 5)
				printf("fi_scale_check: %c: error completion: "
				       "%s (%s)\n", o.mode, fi_strerror(err.err),
				       fi_cq_strerror(cq, err.prov_errno,
						      err.err_data, buf,
						      sizeof(buf)));
			continue;
		}
		if (got == -FI_EAGAIN)
			continue;
		if (got < 0)
			fsc_die("fi_cq_sread", (int)got);
		done += (int)got;
	}
	return errs ? -1 : 0;
}

/* fi_write, waiting for room when the provider is out of it. */
static void fsc_write(struct fsc_ep *e, const void *src, fi_addr_t to,
		      uint64_t off, uint64_t key, int *posted)
{
	ssize_t ret;

	for (;;) {
		ret = fi_write(e->ep, src, o.len, NULL, to, off, key, e);
		if (ret != -FI_EAGAIN)
			break;
		if (fsc_now() > t_start + o.timeout_s)
			fsc_die("fi_write: no room", (int)ret);
		(void)fi_cq_read(cq, NULL, 0);	/* progress */
	}
	if (ret)
		fsc_die("fi_write", (int)ret);
	(*posted)++;
}

/* Slots of |e|'s region that hold what |writer(slot)| writes; -1: any. */
static int fsc_verify(const struct fsc_ep *e, int me, int nslots, int skip)
{
	int good = 0;

	for (int s = 0; s < nslots; s++) {
		const uint8_t *p = e->region + (size_t)s * o.len;
		size_t i;

		if (s == skip)
			continue;
		for (i = 0; i < o.len && p[i] == fsc_byte(s, me, i); i++)
			;
		good += i == o.len;
	}
	return good;
}

static int fsc_server(void)
{
	int good;

	fsc_ep_open(0, o.service, (size_t)o.slots * o.len);
	printf("fi_scale_check: s: serving %d slots of %zu B\n", o.slots,
	       o.len);
	fsc_go();
	fi_cntr_wait(eps[0].cntr, (uint64_t)o.slots, o.timeout_s * 1000);
	good = fsc_verify(&eps[0], 0, o.slots, -1);
	printf("fi_scale_check: s: %d of %d slots verified, %llu writes "
	       "counted, in %.3f s%s\n", good, o.slots,
	       (unsigned long long)fi_cntr_read(eps[0].cntr),
	       fsc_now() - t_start, good == o.slots ? " ok" : "");
	return good == o.slots ? 0 : 1;
}

static int fsc_client(void)
{
	fi_addr_t to;
	char svc[24];
	int posted = 0, ret;

	snprintf(svc, sizeof(svc), "%lu", o.service);
	ret = fi_av_insertsvc(av, o.addr, svc, &to, 0, NULL);
	if (ret != 1)
		fsc_die("fi_av_insertsvc", ret < 0 ? ret : -FI_EINVAL);
	for (int i = 0; i < o.n; i++) {
		fsc_ep_open(i, 0, 0);
		eps[i].src = malloc(o.len);
		for (size_t b = 0; b < o.len; b++)
			eps[i].src[b] = fsc_byte(o.first + i, 0, b);
	}
	fsc_go();
	for (int i = 0; i < o.n; i++)
		fsc_write(&eps[i], eps[i].src, to,
			  (uint64_t)(o.first + i) * o.len, FSC_KEY, &posted);
	ret = fsc_reap(posted);
	printf("fi_scale_check: c: %d endpoints wrote slots %d..%d in %.3f "
	       "s%s\n", o.n, o.first, o.first + o.n - 1, fsc_now() - t_start,
	       ret ? "" : " ok");
	return ret ? 1 : 0;
}

/*
 * -B DIR: a barrier before the endpoints close, as an MPI job's finalize
 * is: this process's file in DIR, then progress (sread waits) until every
 * host's is there. A process that closed as soon as its own slots checked
 * out left peers whose last write to it was not yet acknowledged: a copy
 * resent then was answered by its service (no such endpoint).
 */
static void fsc_barrier(void)
{
	char path[4096];
	struct fi_cq_entry ent;
	int fd, n = 0;

	if (!o.done_dir)
		return;
	snprintf(path, sizeof(path), "%s/%d", o.done_dir, o.host);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		fsc_die("barrier file", -errno);
	close(fd);
	while (fsc_now() < t_start + o.timeout_s) {
		DIR *d = opendir(o.done_dir);
		struct dirent *de;

		n = 0;
		while (d && (de = readdir(d)))
			n += de->d_name[0] != '.';
		if (d)
			closedir(d);
		if (n >= o.nhosts)
			return;
		(void)fi_cq_sread(cq, &ent, 1, NULL, 5);
	}
	printf("fi_scale_check: a: barrier: %d of %d hosts done, then the "
	       "time ran out\n", n, o.nhosts);
}

static int fsc_all(void)
{
	int total = o.nhosts * o.n, me0 = o.host * o.n, posted = 0, good = 0;
	double took;
	fi_addr_t *addrs = calloc((size_t)total, sizeof(*addrs));
	char svc[24];
	int ret;

	for (int h = 0; h < o.nhosts; h++)
		for (int j = 0; j < o.n; j++) {
			snprintf(svc, sizeof(svc), "%lu", o.service + j);
			ret = fi_av_insertsvc(av, o.hosts[h], svc,
					      &addrs[h * o.n + j], 0, NULL);
			if (ret != 1)
				fsc_die("fi_av_insertsvc", ret < 0 ? ret :
							   -FI_EINVAL);
		}
	for (int i = 0; i < o.n; i++)
		fsc_ep_open(i, o.service + (unsigned long)i,
			    (size_t)total * o.len);
	/* What each writes to each: a buffer a destination, untouched
	 * until its write completed. */
	for (int i = 0; i < o.n; i++) {
		eps[i].src = malloc((size_t)total * o.len);
		if (!eps[i].src)
			fsc_die("sources", -FI_ENOMEM);
		for (int d = 0; d < total; d++)
			for (size_t b = 0; b < o.len; b++)
				eps[i].src[(size_t)d * o.len + b] =
					fsc_byte(me0 + i, d, b);
	}
	fsc_go();
	/* Each endpoint writes the others in its own order: not all the
	 * job into one target first. */
	for (int k = 1; k < total; k++)
		for (int i = 0; i < o.n; i++) {
			int me = me0 + i, d = (me + k) % total;

			fsc_write(&eps[i], eps[i].src + (size_t)d * o.len,
				  addrs[d], (uint64_t)me * o.len,
				  FSC_KEY + (uint64_t)(d % o.n), &posted);
		}
	ret = fsc_reap(posted);
	for (int i = 0; i < o.n; i++) {
		int left = (int)(t_start + o.timeout_s - fsc_now());

		fi_cntr_wait(eps[i].cntr, (uint64_t)(total - 1),
			     (left > 0 ? left : 1) * 1000);
		good += fsc_verify(&eps[i], me0 + i, total, me0 + i);
	}
	took = fsc_now() - t_start;
	fsc_barrier();
	printf("fi_scale_check: a: %d endpoints of %d, %d of %d slots "
	       "verified, %d writes of %zu B each way, in %.3f s%s\n", o.n,
	       total, good, o.n * (total - 1), posted, o.len, took,
	       !ret && good == o.n * (total - 1) ? " ok" : "");
	free(addrs);
	return !ret && good == o.n * (total - 1) ? 0 : 1;
}

/*
 * What the process's threads had of a CPU, and how long they waited for
 * one while runnable (/proc's schedstat, ns): with many processes on a few
 * cores, a peer that answers late was often waiting here, not lost.
 */
static void fsc_cpu_report(void)
{
	unsigned long long run = 0, wait = 0, r, w;
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	char path[300];
	FILE *f;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu %llu", &r, &w) == 2) {
			run += r;
			wait += w;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	printf("fi_scale_check: %c: on a cpu %.2f s, runnable and waiting "
	       "for one %.2f s\n", o.mode, run / 1e9, wait / 1e9);
}

static void fsc_usage(void)
{
	fprintf(stderr, "usage: fi_scale_check -s SLOTS -p SERVICE [-l LEN]\n"
		"       fi_scale_check -c ADDR -p SERVICE -n K -o FIRST [-l LEN]\n"
		"       fi_scale_check -a HOST,HOST... -h H -p BASE -n K [-l LEN]\n"
		"       (each also [-g GO_FILE] [-t SECONDS]; -a also [-B DIR])\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int c, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "s:c:a:h:p:n:o:l:g:t:B:")) != -1) {
		switch (c) {
		case 's':
			o.mode = 's';
			o.slots = atoi(optarg);
			break;
		case 'c':
			o.mode = 'c';
			o.addr = optarg;
			break;
		case 'a':
			o.mode = 'a';
			for (char *t = strtok(optarg, ","); t &&
			     o.nhosts < FSC_MAX_HOSTS; t = strtok(NULL, ","))
				o.hosts[o.nhosts++] = t;
			break;
		case 'h':
			o.host = atoi(optarg);
			break;
		case 'p':
			o.service = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			o.n = atoi(optarg);
			break;
		case 'o':
			o.first = atoi(optarg);
			break;
		case 'l':
			o.len = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			o.go_file = optarg;
			break;
		case 't':
			o.timeout_s = atoi(optarg);
			break;
		case 'B':
			o.done_dir = optarg;
			break;
		default:
			fsc_usage();
		}
	}
	if (!o.mode || !o.service || o.n < 1 || o.n > FSC_MAX_EPS ||
	    !o.len || o.timeout_s < 1 || (o.mode == 's' && o.slots < 1) ||
	    (o.mode == 'a' && (o.host < 0 || o.host >= o.nhosts)))
		fsc_usage();
	fsc_open();
	ret = o.mode == 's' ? fsc_server() : o.mode == 'c' ? fsc_client() :
			      fsc_all();
	fsc_cpu_report();
	/* Endpoints close before the domain: engines print their counters
	 * (FI_UET_STATS) as they go. */
	for (int i = 0; i < o.n; i++) {
		if (eps[i].mr)
			fi_close(&eps[i].mr->fid);
		if (eps[i].ep)
			fi_close(&eps[i].ep->fid);
		if (eps[i].cntr)
			fi_close(&eps[i].cntr->fid);
		free(eps[i].region);
		free(eps[i].src);
	}
	fi_close(&cq->fid);
	fi_close(&av->fid);
	fi_close(&domain->fid);
	fi_close(&fabric->fid);
	fi_freeinfo(info);
	return ret;
}
