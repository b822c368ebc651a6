// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kptr tag of the XDP program's AES contexts (bpf/uet_xdp_tss.h).
 * Debian 12's clang 14 drops btf_type_tag on struct members, so the
 * object's BTF says "pointer to struct bpf_crypto_ctx" where the verifier
 * needs "pointer to type tag 'kptr' to struct bpf_crypto_ctx" to treat the
 * field as a referenced kptr. This puts the tag in, after open and before
 * load; a compiler that emitted it leaves nothing to do.
 */
#include <errno.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "dev/uet_xdp_ctl.h"

#define UET_XDP_KPTR_STRUCT	"uet_xdp_tss_ctx_val"
#define UET_XDP_KPTR_MEMBER	"ctx"

int uet_xdp_kptr_fix(struct bpf_object *obj)
{
	struct btf *btf = bpf_object__btf(obj);
	const struct btf_member *m;
	const struct btf_type *t;
	struct btf_type *ptr;
	__u32 ptr_id = 0, target;
	int id, tag, i;

	if (!btf)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, UET_XDP_KPTR_STRUCT, BTF_KIND_STRUCT);
	if (id < 0)
		return 0;	/* an object without the contexts */
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off),
			    UET_XDP_KPTR_MEMBER))
			ptr_id = m->type;
	t = ptr_id ? btf__type_by_id(btf, ptr_id) : NULL;
	if (!t || !btf_is_ptr(t))
		return -EINVAL;
	target = t->type;
	if (btf_is_type_tag(btf__type_by_id(btf, target)))
		return 0;
	tag = btf__add_type_tag(btf, "kptr", target);
	if (tag < 0)
		return tag;
	/* Adding made the BTF writable: the pointer now goes through it. */
	ptr = (struct btf_type *)btf__type_by_id(btf, ptr_id);
	ptr->type = (__u32)tag;
	return 0;
}
