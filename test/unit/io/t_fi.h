/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers for the provider's unit tests (test_io_fi_*.c). fi_getinfo goes
 * through libfabric, which loads build/libuet-fi.so (FI_PROVIDER_PATH is
 * set to this binary's directory before the first libfabric call); the
 * objects are then opened through the provider's own code linked into
 * this binary (uet_fabric_open), so tests may look inside them. Everything
 * runs on loopback and no endpoint is enabled: no XDP, no traffic.
 */
#ifndef T_FI_H
#define T_FI_H

#include <criterion/criterion.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uet/uet.h"

struct fi_provider *fi_prov_ini(void);

/* Points libfabric at our provider alone, on loopback. */
static inline void t_fi_env(void)
{
	static char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);

	cr_assert(n > 0);
	dir[n] = '\0';
	setenv("FI_PROVIDER_PATH", dirname(dir), 1);
	setenv("FI_PROVIDER", "uet", 1);
	setenv("FI_UET_IFACE", "lo", 1);
	setenv("FI_UET_RI_BASE", "10", 1);
	unsetenv("FI_UET_JOB_ID");
	/*
	 * Our linked-in copy defines its parameters too, once libfabric is
	 * initialized: its fi_ini() starts the parameter list afresh, and
	 * would orphan (leak) any defined before it. fi_getparams runs it.
	 */
	struct fi_param *params;
	int count;

	cr_assert_eq(fi_getparams(&params, &count), 0);
	fi_freeparams(params);
	fi_prov_ini();
}

static inline struct fi_info *t_fi_hints(int mr_mode)
{
	struct fi_info *h = fi_allocinfo();

	cr_assert_not_null(h);
	h->caps = FI_RMA;
	h->ep_attr->type = FI_EP_RDM;
	h->domain_attr->mr_mode = mr_mode;
	return h;
}

/* An fi_info for loopback with |mr_mode| offered, PIDonFEP |pid|. */
static inline struct fi_info *t_fi_info(int mr_mode, const char *pid)
{
	struct fi_info *h = t_fi_hints(mr_mode), *info = NULL;
	int ret;

	t_fi_env();
	ret = fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", pid, FI_SOURCE, h,
			 &info);
	fi_freeinfo(h);
	cr_assert_eq(ret, 0, "fi_getinfo: %d", ret);
	return info;
}

struct t_fi {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
};

static inline void t_fi_open(struct t_fi *t, int mr_mode)
{
	memset(t, 0, sizeof(*t));
	t->info = t_fi_info(mr_mode, "3");
	cr_assert_eq(uet_fabric_open(t->info->fabric_attr, &t->fabric, NULL),
		     0);
	int ret = fi_domain(t->fabric, t->info, &t->domain, NULL);

	cr_assert_eq(ret, 0, "fi_domain: %d", ret);
}

static inline void t_fi_close(struct t_fi *t)
{
	cr_assert_eq(fi_close(&t->domain->fid), 0);
	cr_assert_eq(fi_close(&t->fabric->fid), 0);
	fi_freeinfo(t->info);
}

static inline struct uet_domain *t_dom(struct fid_domain *d)
{
	return container_of(d, struct uet_domain, dom_fid);
}

static inline struct uet_ep *t_ep(struct fid_ep *e)
{
	return container_of(e, struct uet_ep, ep_fid);
}

#endif /* T_FI_H */
