/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Address vectors of a million entries (issue 39). Through the provider's
 * own code linked in (as test_io is; libfabric's fi_getinfo loads
 * libuet-fi.so from this binary's directory), on loopback, no traffic:
 *
 *   av_insert_1m_{table,map}_ms  fi_av_open and one fi_av_insert of 1M
 *                                addresses (62500 hosts x 16 PIDs)
 *   av_insert_one_ns             fi_av_insert of one address, per call,
 *                                16 PIDs a host
 *   av_insert_one_new_host_ns    the same, a new host each call
 *   av_bytes_per_entry           malloc's bytes in use (mallinfo2: arena
 *                                plus mmapped blocks) after the insertion
 *                                and one endpoint's state for every slot,
 *                                less before, over 1M; the larger type's
 *   av_rss_bytes_per_entry       the same as resident memory grew
 *                                (/proc/self/statm), every page touched
 *   av_lookup_ns                 fi_av_lookup of 1M fi_addrs in random
 *                                order (FI_AV_MAP), per call
 *   av_reverse_ns                uet_av_reverse (the FI_SOURCE lookup on
 *                                receipt) of 1M addresses, random order
 *
 * Times are the process's CPU time (the machines we bench on are shared:
 * wall time there measures the neighbours), median of B_RUNS runs each;
 * av_insert_1m_{table,map}_wall_ms are the wall time, the best run's.
 */
#include <arpa/inet.h>
#include <libgen.h>
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "uet/uet.h"

#define B_N		1000000u
#define B_PIDS		16u
#define B_ONE		20000u	/* single insertions timed */
#define B_ONE_HOSTS	2000u	/* of them a new host each */
#define B_RUNS		3

struct fi_provider *fi_prov_ini(void);

struct b_fi {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_ep *ep;
};

static uint64_t b_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time: what the work costs, whatever else shares the cores. */
static uint64_t b_now_ns(void)
{
	return b_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static uint64_t b_wall_ns(void)
{
	return b_clock_ns(CLOCK_MONOTONIC);
}

static void b_die(const char *what, int ret)
{
	fprintf(stderr, "bench_av: %s: %s\n", what, fi_strerror(-ret));
	exit(1);
}

/* Our provider alone, on loopback: as test/unit/io/t_fi.h. */
static void b_open(struct b_fi *b)
{
	static char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	struct fi_info *h = fi_allocinfo();
	int ret;

	if (n <= 0 || !h)
		b_die("setup", -FI_ENOMEM);
	dir[n] = '\0';
	setenv("FI_PROVIDER_PATH", dirname(dir), 1);
	setenv("FI_PROVIDER", "uet", 1);
	setenv("FI_UET_IFACE", "lo", 1);
	fi_prov_ini();
	h->caps = FI_RMA | FI_SOURCE;
	h->ep_attr->type = FI_EP_RDM;
	h->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_ENDPOINT;
	ret = fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", "3", FI_SOURCE, h,
			 &b->info);
	fi_freeinfo(h);
	if (ret)
		b_die("fi_getinfo", ret);
	ret = uet_fabric_open(b->info->fabric_attr, &b->fabric, NULL);
	if (ret)
		b_die("fabric", ret);
	ret = fi_domain(b->fabric, b->info, &b->domain, NULL);
	if (ret)
		b_die("fi_domain", ret);
}

static void b_close(struct b_fi *b)
{
	fi_close(&b->domain->fid);
	fi_close(&b->fabric->fid);
	fi_freeinfo(b->info);
}

static void b_addr(struct uet_addr *a, uint32_t i)
{
	memset(a, 0, sizeof(*a));
	a->fep_caps = UET_ADDR_CAPS;
	a->fa.v4.s_addr = htonl(0x0a000000u + i / B_PIDS);
	a->pid_on_fep = (uint16_t)(1 + i % B_PIDS);
	a->ri_base = 10;
	a->initiator = uet_addr_initiator(&a->fa, a->pid_on_fep);
}

static size_t b_heap(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static size_t b_rss(void)
{
	unsigned long size = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * (size_t)sysconf(_SC_PAGESIZE);
}

static int b_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double b_median(double *v)
{
	qsort(v, B_RUNS, sizeof(*v), b_cmp);
	return v[B_RUNS / 2];
}

struct b_query {
	struct uet_fa fa;
	uint32_t initiator;
	fi_addr_t fi_addr;
};

struct b_run {
	double insert_ms, insert_wall_ms, bytes, rss, lookup_ns, reverse_ns;
};

/* One AV of |type|: its 1M insertion, memory, lookups and reverses. */
static void b_one(struct b_fi *b, enum fi_av_type type, const uint8_t *blobs,
		  fi_addr_t *fa, const uint32_t *order, struct b_query *q,
		  struct b_run *r)
{
	struct fi_av_attr attr = { .type = type };
	struct uet_ep_peer *p;
	struct fid_av *av;
	struct uet_av *u;
	struct uet_addr a;
	uint8_t out[UET_ADDR_LEN];
	size_t heap0, rss0, len;
	uint64_t t0, w0, sum = 0;
	int ret;

	ret = fi_endpoint(b->domain, b->info, &b->ep, NULL);
	if (ret)
		b_die("fi_endpoint", ret);
	heap0 = b_heap();
	rss0 = b_rss();
	w0 = b_wall_ns();
	t0 = b_now_ns();
	ret = fi_av_open(b->domain, &attr, &av, NULL);
	if (ret)
		b_die("fi_av_open", ret);
	ret = fi_av_insert(av, blobs, B_N, fa, 0, NULL);
	r->insert_ms = (double)(b_now_ns() - t0) / 1e6;
	r->insert_wall_ms = (double)(b_wall_ns() - w0) / 1e6;
	if (ret != (int)B_N)
		b_die("fi_av_insert", ret < 0 ? ret : -FI_EOTHER);
	u = container_of(av, struct uet_av, av_fid);
	ret = fi_ep_bind(b->ep, &av->fid, 0);
	if (ret)
		b_die("fi_ep_bind", ret);
	/* The endpoint's state for every slot, as sending to each makes. */
	for (uint32_t i = 0; i < B_N; i++) {
		p = uet_ep_peer_slot(container_of(b->ep, struct uet_ep,
						  ep_fid),
				     uet_av_slot_of(fa[i]));
		if (!p)
			b_die("uet_ep_peer_slot", -FI_ENOMEM);
		p->gen = 1;
		p->id = i;
	}
	r->bytes = (double)(b_heap() - heap0) / B_N;
	r->rss = (double)(b_rss() - rss0) / B_N;
	/* Lookups: FI_AV_MAP's, a superset of FI_AV_TABLE's (+ the gen). */
	if (type != FI_AV_MAP)
		goto out;
	/* The questions in random order, read in sequence: the time is the
	 * AV's own memory accesses. */
	for (uint32_t i = 0; i < B_N; i++) {
		b_addr(&a, order[i]);
		q[i] = (struct b_query){ .fa = a.fa, .initiator = a.initiator,
					 .fi_addr = fa[order[i]] };
	}
	t0 = b_now_ns();
	for (uint32_t i = 0; i < B_N; i++) {
		len = sizeof(out);
		ret = fi_av_lookup(av, q[i].fi_addr, out, &len);
		if (ret)
			b_die("fi_av_lookup", ret);
		sum += out[UET_ADDR_OFF_PID + 1];
	}
	r->lookup_ns = (double)(b_now_ns() - t0) / B_N;
	t0 = b_now_ns();
	for (uint32_t i = 0; i < B_N; i++)
		if (uet_av_reverse(u, &q[i].fa, q[i].initiator) !=
		    q[i].fi_addr)
			b_die("uet_av_reverse", -FI_ENODATA);
	r->reverse_ns = (double)(b_now_ns() - t0) / B_N;
	if (!sum)
		b_die("lookups", -FI_ENODATA);
out:
	fi_close(&b->ep->fid);
	fi_close(&av->fid);
}

/*
 * fi_av_insert of one address per call, as many applications do: |n|
 * of them, the |stride|-th addresses (1: 16 PIDs a host, the host's next
 * hop asked once; B_PIDS: a new host each call, its next hop asked each
 * time: two netlink exchanges, the kernel's work counted in our CPU time).
 */
static double b_insert_one(struct b_fi *b, const uint8_t *blobs, uint32_t n,
			   uint32_t stride)
{
	struct fi_av_attr attr = { .type = FI_AV_MAP };
	struct fid_av *av;
	fi_addr_t fa;
	uint64_t t0;
	int ret;

	ret = fi_av_open(b->domain, &attr, &av, NULL);
	if (ret)
		b_die("fi_av_open", ret);
	t0 = b_now_ns();
	for (uint32_t i = 0; i < n; i++) {
		ret = fi_av_insert(av, blobs + (size_t)i * stride *
				   UET_ADDR_LEN, 1, &fa, 0, NULL);
		if (ret != 1)
			b_die("fi_av_insert", ret < 0 ? ret : -FI_EOTHER);
	}
	t0 = b_now_ns() - t0;
	fi_close(&av->fid);
	return (double)t0 / n;
}

int main(void)
{
	double tab[B_RUNS], map[B_RUNS], bytes[B_RUNS], rss[B_RUNS];
	double look[B_RUNS], rev[B_RUNS], one[B_RUNS], host[B_RUNS];
	double wtab = 1e12, wmap = 1e12;
	uint8_t *blobs = malloc((size_t)B_N * UET_ADDR_LEN);
	fi_addr_t *fa = malloc(B_N * sizeof(*fa));
	uint32_t *order = malloc(B_N * sizeof(*order)), j, x;
	struct b_query *q = malloc(B_N * sizeof(*q));
	struct b_run rt, rm;
	struct uet_addr a;
	struct b_fi b;
	uint64_t seed = 1;

	if (!blobs || !fa || !order || !q)
		b_die("setup", -FI_ENOMEM);
	for (uint32_t i = 0; i < B_N; i++) {
		b_addr(&a, i);
		uet_addr_encode(blobs + (size_t)i * UET_ADDR_LEN,
				UET_ADDR_LEN, &a);
		order[i] = i;
	}
	/* Fisher-Yates with a fixed LCG: the same random order each run. */
	for (uint32_t i = B_N - 1; i > 0; i--) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		j = (uint32_t)((seed >> 33) % (i + 1));
		x = order[i];
		order[i] = order[j];
		order[j] = x;
	}
	/* Freed blocks go back to the system, the threshold fixed: each run
	 * starts alike. */
	mallopt(M_TRIM_THRESHOLD, 0);
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	b_open(&b);
	for (int k = 0; k < B_RUNS; k++) {
		b_one(&b, FI_AV_TABLE, blobs, fa, order, q, &rt);
		b_one(&b, FI_AV_MAP, blobs, fa, order, q, &rm);
		wtab = rt.insert_wall_ms < wtab ? rt.insert_wall_ms : wtab;
		wmap = rm.insert_wall_ms < wmap ? rm.insert_wall_ms : wmap;
		tab[k] = rt.insert_ms;
		map[k] = rm.insert_ms;
		bytes[k] = rt.bytes > rm.bytes ? rt.bytes : rm.bytes;
		rss[k] = rt.rss > rm.rss ? rt.rss : rm.rss;
		look[k] = rm.lookup_ns;
		rev[k] = rm.reverse_ns;
		one[k] = b_insert_one(&b, blobs, B_ONE, 1);
		host[k] = b_insert_one(&b, blobs, B_ONE_HOSTS, B_PIDS);
	}
	b_close(&b);
	printf("bench: av_insert_1m_table_ms %.1f ms\n", b_median(tab));
	printf("bench: av_insert_1m_map_ms %.1f ms\n", b_median(map));
	printf("bench: av_insert_1m_table_wall_ms %.1f ms\n", wtab);
	printf("bench: av_insert_1m_map_wall_ms %.1f ms\n", wmap);
	printf("bench: av_insert_one_ns %.0f ns\n", b_median(one));
	printf("bench: av_insert_one_new_host_ns %.0f ns\n", b_median(host));
	printf("bench: av_bytes_per_entry %.1f B\n", b_median(bytes));
	printf("bench: av_rss_bytes_per_entry %.1f B\n", b_median(rss));
	printf("bench: av_lookup_ns %.1f ns\n", b_median(look));
	printf("bench: av_reverse_ns %.1f ns\n", b_median(rev));
	free(q);
	free(order);
	free(fa);
	free(blobs);
	return 0;
}
