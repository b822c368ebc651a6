/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The libfabric API versions (issue 33): the one fi_prov_ini declares
 * under each core, and what fi_getinfo answers to an application of each
 * version. The system's core is 1.17 and refuses to pass on a newer
 * version, so the newer ones call the provider's uet_getinfo directly,
 * with hints laid out as a newer core's (struct uet_domain_attr_ext).
 * Under this 1.17 core the fields appended since stay unwritten.
 */
#include "t_fi.h"

Test(uet_version, declares_the_cores_up_to_the_newest_it_honours)
{
	cr_assert_eq(uet_fi_version_pick(FI_VERSION(1, 14)),
		     FI_VERSION(1, 17));
	cr_assert_eq(uet_fi_version_pick(FI_VERSION(1, 17)),
		     FI_VERSION(1, 17));
	cr_assert_eq(uet_fi_version_pick(FI_VERSION(1, 20)),
		     FI_VERSION(1, 20));
	cr_assert_eq(uet_fi_version_pick(FI_VERSION(2, 0)), FI_VERSION(2, 0));
	cr_assert_eq(uet_fi_version_pick(FI_VERSION(2, 6)), FI_VERSION(2, 6));
	cr_assert_eq(uet_fi_version_pick(FI_VERSION(2, 7)), FI_VERSION(2, 6));
	cr_assert_eq(uet_fi_version_pick(FI_VERSION(3, 0)), FI_VERSION(2, 6));
	/* This process's core is Debian's 1.17. */
	t_fi_env();
	cr_assert_eq(fi_prov_ini()->fi_version, FI_VERSION(1, 17));
}

/* Hints of an application of a newer core: its longer fi_domain_attr. */
static struct fi_info *t_hints_ext(uint64_t caps)
{
	struct fi_info *h = fi_allocinfo();
	struct uet_domain_attr_ext *x = calloc(1, sizeof(*x));

	cr_assert_not_null(h);
	cr_assert_not_null(x);
	x->base = *h->domain_attr;
	free(h->domain_attr);
	h->domain_attr = &x->base;
	h->caps = caps;
	h->ep_attr->type = FI_EP_RDM;
	return h;
}

static struct uet_domain_attr_ext *t_ext(struct fi_info *h)
{
	return (struct uet_domain_attr_ext *)h->domain_attr;
}

static int t_gi(uint32_t version, const struct fi_info *h,
		struct fi_info **info)
{
	t_fi_env();
	*info = NULL;
	return uet_getinfo(version, NULL, NULL, 0, h, info);
}

Test(uet_version, caps_of_2_0_only_under_2_0)
{
	uint64_t caps = FI_TAGGED | UET_FI_TAGGED_DIRECTED_RECV;
	struct fi_info *h = t_hints_ext(caps), *info;

	/* Under 1.17 bit 45 is no cap (FI_HMEM_HOST_ALLOC). */
	cr_assert_eq(t_gi(FI_VERSION(1, 17), h, &info), -FI_ENODATA);
	cr_assert_eq(t_gi(FI_VERSION(2, 0), h, &info), 0);
	cr_assert_eq(info->caps & caps, caps);
	cr_assert_eq(info->rx_attr->caps & UET_FI_TAGGED_DIRECTED_RECV,
		     UET_FI_TAGGED_DIRECTED_RECV);
	cr_assert_eq(info->tx_attr->caps & UET_CAPS_2_0, 0);
	cr_assert_eq(info->fabric_attr->api_version, FI_VERSION(2, 0));
	fi_freeinfo(info);
	/* Bit 48 was FI_VARIABLE_MSG, which we never had. */
	h->caps = FI_MSG | UET_FI_EXACT_DIRECTED_RECV;
	cr_assert_eq(t_gi(FI_VERSION(1, 17), h, &info), -FI_ENODATA);
	cr_assert_eq(t_gi(FI_VERSION(2, 6), h, &info), 0);
	fi_freeinfo(info);
	/* Not offered unasked: FI_EXACT_DIRECTED_RECV binds the application. */
	h->caps = 0;
	cr_assert_eq(t_gi(FI_VERSION(2, 6), h, &info), 0);
	cr_assert_eq(info->caps & UET_CAPS_2_0, 0);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

Test(uet_version, av_auth_keys_refused_from_1_20)
{
	struct fi_info *h = t_hints_ext(FI_MSG), *info;

	h->domain_attr->auth_key_size = UET_FI_AV_AUTH_KEY;
	/* Before 1.20 it meant nothing (no key): as before. */
	cr_assert_eq(t_gi(FI_VERSION(1, 17), h, &info), 0);
	fi_freeinfo(info);
	cr_assert_eq(t_gi(FI_VERSION(1, 20), h, &info), -FI_ENODATA);
	h->domain_attr->auth_key_size = 0;
	h->ep_attr->auth_key_size = UET_FI_AV_AUTH_KEY;
	cr_assert_eq(t_gi(FI_VERSION(2, 6), h, &info), -FI_ENODATA);
	h->ep_attr->auth_key_size = 0;
	t_ext(h)->max_ep_auth_key = 2;
	cr_assert_eq(t_gi(FI_VERSION(2, 6), h, &info), -FI_ENODATA);
	t_ext(h)->max_ep_auth_key = 1;
	cr_assert_eq(t_gi(FI_VERSION(2, 6), h, &info), 0);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

Test(uet_version, peer_groups_refused_from_2_0)
{
	struct fi_info *h = t_hints_ext(FI_MSG), *info;

	t_ext(h)->max_group_id = 4;
	/* An application of 1.17 has no such field: never read. */
	cr_assert_eq(t_gi(FI_VERSION(1, 17), h, &info), 0);
	fi_freeinfo(info);
	cr_assert_eq(t_gi(FI_VERSION(2, 0), h, &info), -FI_ENODATA);
	fi_freeinfo(h);
}

Test(uet_version, control_progress_unified_from_2_0)
{
	struct fi_info *h = t_hints_ext(FI_MSG), *info;

	h->domain_attr->control_progress = UET_FI_PROGRESS_CONTROL_UNIFIED;
	cr_assert_eq(t_gi(FI_VERSION(2, 0), h, &info), 0);
	cr_assert_eq((int)info->domain_attr->control_progress,
		     UET_FI_PROGRESS_CONTROL_UNIFIED);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

Test(uet_version, endpoint_drops_2_0_caps_under_1_17)
{
	struct fid_ep *ep;
	struct t_fi t;

	t_fi_open(&t, FI_MR_PROV_KEY | FI_MR_ENDPOINT);
	/* Under 1.17 bit 48 is FI_VARIABLE_MSG, not a directed receive. */
	t.info->caps |= UET_FI_EXACT_DIRECTED_RECV;
	cr_assert_eq(fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	cr_assert_eq(t_ep(ep)->caps & UET_CAPS_2_0, 0);
	cr_assert_eq(fi_close(&ep->fid), 0);
	t_fi_close(&t);
}

Test(uet_version, tag_formats_from_2_0)
{
	struct fi_info *h = t_hints_ext(FI_TAGGED), *info;

	/* FI_TAG_MPI: fields of the 64 bits, which our matching takes. */
	h->ep_attr->mem_tag_format = 1;
	cr_assert_eq(t_gi(FI_VERSION(2, 0), h, &info), 0);
	cr_assert_eq(info->ep_attr->mem_tag_format, 1);
	fi_freeinfo(info);
	/* A reserved format under 2.0; one tag bit under 1.17. */
	h->ep_attr->mem_tag_format = 7;
	cr_assert_eq(t_gi(FI_VERSION(2, 0), h, &info), -FI_ENODATA);
	cr_assert_eq(t_gi(FI_VERSION(1, 17), h, &info), 0);
	cr_assert_eq(info->ep_attr->mem_tag_format, 7);
	fi_freeinfo(info);
	fi_freeinfo(h);
}
