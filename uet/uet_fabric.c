/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fabric: the root of the object tree. It opens domains and EQs and
 * refuses to close while they are open.
 */
#include <stdlib.h>
#include <string.h>

#include "uet/uet.h"

static int uet_fabric_close(struct fid *fid)
{
	struct uet_fabric *fab = container_of(fid, struct uet_fabric,
					      fab_fid.fid);

	if (atomic_load(&fab->ref))
		return -FI_EBUSY;
	free(fab);
	return 0;
}

static const struct fi_ops uet_fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uet_fabric_close,
	.bind = uet_no_bind,
	.control = uet_no_control,
	.ops_open = uet_no_ops_open,
	.tostr = uet_no_tostr,
	.ops_set = uet_no_ops_set,
};

static int uet_domain2(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_domain **dom, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EBADFLAGS;
	return uet_domain_open(fabric, info, dom, context);
}

static const struct fi_ops_fabric uet_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = uet_domain_open,
	.passive_ep = uet_no_passive_ep,
	.eq_open = uet_eq_open,
	.wait_open = uet_wait_open,
	.trywait = uet_trywait,
	.domain2 = uet_domain2,
};

int uet_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		    void *context)
{
	struct uet_fabric *fab;

	if (!attr || !fabric)
		return -FI_EINVAL;
	if (attr->name && strcmp(attr->name, UET_PROV_NAME))
		return -FI_ENODATA;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -FI_ENOMEM;
	atomic_init(&fab->ref, 0);
	fab->fab_fid.fid.fclass = FI_CLASS_FABRIC;
	fab->fab_fid.fid.context = context;
	fab->fab_fid.fid.ops = (struct fi_ops *)&uet_fabric_fi_ops;
	fab->fab_fid.ops = (struct fi_ops_fabric *)&uet_fabric_ops;
	fab->fab_fid.api_version = attr->api_version;
	*fabric = &fab->fab_fid;
	return 0;
}
