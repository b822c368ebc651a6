/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Memory registration (seeds/fi_mr.3.txt) with no traffic: provider and
 * requested keys, FI_MR_ENDPOINT's bind-then-enable, FI_MR_VIRT_ADDR keys
 * and the offsets they turn into, raw attributes and their mapping,
 * refresh, counter bindings, and bad input that registers nothing.
 */
#include <rdma/fi_ext_uet.h>

#include "t_fi.h"

static struct t_fi t;
static uint8_t t_buf[4096];

static void t_open(int mr_mode)
{
	t_fi_open(&t, mr_mode);
}

static struct fid_mr *t_reg(uint64_t access, uint64_t key)
{
	struct fid_mr *mr;

	cr_assert_eq(fi_mr_reg(t.domain, t_buf, sizeof(t_buf), access, 0, key,
			       0, &mr, NULL), 0);
	return mr;
}

static struct uet_mr *t_umr(struct fid_mr *mr)
{
	return container_of(mr, struct uet_mr, mr_fid);
}

Test(uet_mr, provider_keys_are_unique)
{
	struct fid_mr *a, *b;

	t_open(FI_MR_PROV_KEY);
	a = t_reg(FI_REMOTE_WRITE, 77);
	b = t_reg(FI_REMOTE_WRITE, 77);
	cr_assert_neq(fi_mr_key(a), fi_mr_key(b));
	cr_assert_leq(fi_mr_key(a), UET_MKEY_RKEY_MASK);
	/* A key that is off by one is nobody's. */
	cr_assert_null(uet_mr_find(t_dom(t.domain), fi_mr_key(a) + 1));
	cr_assert_null(uet_mr_find(t_dom(t.domain), fi_mr_key(b) + 1));
	cr_assert_not_null(fi_mr_desc(a));
	cr_assert(t_umr(a)->enabled);	/* domain-wide: ready at once */
	cr_assert_eq(fi_close(&t.domain->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&a->fid), 0);
	cr_assert_eq(fi_close(&b->fid), 0);
	t_fi_close(&t);
}

Test(uet_mr, requested_keys)
{
	struct fid_mr *a, *b;

	t_open(0);
	a = t_reg(FI_REMOTE_READ, 0xacce5);
	cr_assert_eq(fi_mr_key(a), 0xacce5);
	cr_assert_eq(fi_mr_reg(t.domain, t_buf, 8, FI_REMOTE_READ, 0, 0xacce5,
			       0, &b, NULL), -FI_ENOKEY);
	cr_assert_eq(fi_mr_reg(t.domain, t_buf, 8, FI_REMOTE_READ, 0,
			       1ull << 48, 0, &b, NULL), -FI_EKEYREJECTED);
	cr_assert_eq(fi_close(&a->fid), 0);
	/* The key is free again. */
	a = t_reg(FI_REMOTE_READ, 0xacce5);
	cr_assert_eq(fi_close(&a->fid), 0);
	t_fi_close(&t);
}

Test(uet_mr, bad_input_registers_nothing)
{
	struct iovec iov[2] = { { t_buf, 8 }, { t_buf + 8, 8 } };
	struct fid_mr *mr;

	t_open(FI_MR_PROV_KEY);
	cr_assert_eq(fi_mr_reg(t.domain, t_buf, 0, FI_REMOTE_WRITE, 0, 0, 0,
			       &mr, NULL), -FI_EINVAL);
	cr_assert_eq(fi_mr_reg(t.domain, NULL, 8, FI_REMOTE_WRITE, 0, 0, 0,
			       &mr, NULL), -FI_EINVAL);
	cr_assert_eq(fi_mr_reg(t.domain, t_buf, 8, FI_REMOTE_WRITE, 4, 0, 0,
			       &mr, NULL), -FI_EINVAL);
	cr_assert_eq(fi_mr_reg(t.domain, t_buf, 8, FI_REMOTE_WRITE | FI_MSG,
			       0, 0, 0, &mr, NULL), -FI_EINVAL);
	cr_assert_eq(fi_mr_reg(t.domain, t_buf, 8, FI_REMOTE_WRITE, 0, 0,
			       FI_RMA_PMEM, &mr, NULL), -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_regv(t.domain, iov, 2, FI_REMOTE_WRITE, 0, 0, 0,
				&mr, NULL), -FI_EINVAL);
	cr_assert_eq(fi_mr_regv(t.domain, iov, 0, FI_REMOTE_WRITE, 0, 0, 0,
				&mr, NULL), -FI_EINVAL);
	cr_assert_eq(t_dom(t.domain)->mr_cnt, 0);
	t_fi_close(&t);
}

Test(uet_mr, regattr_takes_the_domain_jobid_only)
{
	struct iovec iov = { t_buf, 64 };
	uint32_t job = 0;
	struct fi_mr_attr attr = { .mr_iov = &iov, .iov_count = 1,
				   .access = FI_REMOTE_WRITE,
				   .auth_key = (uint8_t *)&job,
				   .auth_key_size = sizeof(job) };
	struct fid_mr *mr;

	t_open(FI_MR_PROV_KEY);
	cr_assert_eq(fi_mr_regattr(t.domain, &attr, 0, &mr), 0);
	cr_assert_eq(fi_close(&mr->fid), 0);
	job = 5;
	cr_assert_eq(fi_mr_regattr(t.domain, &attr, 0, &mr), -FI_EINVAL);
	attr.auth_key_size = 0;
	attr.iface = FI_HMEM_CUDA;
	cr_assert_eq(fi_mr_regattr(t.domain, &attr, 0, &mr), -FI_ENOSYS);
	t_fi_close(&t);
}

Test(uet_mr, endpoint_regions_are_bound_then_enabled)
{
	struct fi_av_attr avattr = { .type = FI_AV_TABLE };
	struct fid_mr *mr;
	struct fid_ep *ep;
	struct fid_av *av;

	t_open(FI_MR_PROV_KEY | FI_MR_ENDPOINT);
	mr = t_reg(FI_REMOTE_WRITE, 0);
	cr_assert_not(t_umr(mr)->enabled);
	cr_assert_eq(fi_mr_enable(mr), -FI_EOPBADSTATE);
	cr_assert_eq(fi_av_open(t.domain, &avattr, &av, NULL), 0);
	cr_assert_eq(fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	cr_assert_eq(fi_mr_bind(mr, &ep->fid, FI_REMOTE_WRITE),
		     -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_bind(mr, &av->fid, 0), -FI_EINVAL);
	cr_assert_eq(fi_mr_bind(mr, &ep->fid, 0), 0);
	cr_assert_eq(fi_mr_enable(mr), 0);
	cr_assert(t_umr(mr)->enabled);
	cr_assert_eq(fi_mr_bind(mr, &ep->fid, 0), -FI_EOPBADSTATE);
	/* Closed before its endpoint, as applications do. */
	cr_assert_eq(fi_close(&mr->fid), 0);
	/* And after it: the endpoint lets go of its regions. */
	mr = t_reg(FI_REMOTE_WRITE, 0);
	cr_assert_eq(fi_mr_bind(mr, &ep->fid, 0), 0);
	cr_assert_eq(fi_close(&ep->fid), 0);
	cr_assert_null(t_umr(mr)->ep);
	cr_assert_eq(fi_close(&mr->fid), 0);
	cr_assert_eq(fi_close(&av->fid), 0);
	t_fi_close(&t);
}

Test(uet_mr, virt_addr_keys_carry_the_base)
{
	struct fid_mr *mr;
	uint64_t mkey, off, key;

	t_open(FI_MR_PROV_KEY | FI_MR_VIRT_ADDR);
	mr = t_reg(FI_REMOTE_WRITE, 0);
	key = fi_mr_key(mr);
	cr_assert_eq(key >> UET_MR_VA_SHIFT, (uintptr_t)t_buf);
	cr_assert_eq(key & UET_MR_VA_RKEY_MAX, t_umr(mr)->rkey);
	cr_assert_eq(uet_mr_key_to_wire(t_dom(t.domain), key,
					(uintptr_t)t_buf + 100, &mkey, &off),
		     0);
	cr_assert_eq(mkey, t_umr(mr)->rkey);
	cr_assert_eq(off, 100);
	/* Below the base: an offset no region has. */
	uet_mr_key_to_wire(t_dom(t.domain), key, (uintptr_t)t_buf - 1, &mkey,
			   &off);
	cr_assert_eq(off, UINT64_MAX);
	cr_assert_eq(fi_close(&mr->fid), 0);
	t_fi_close(&t);
}

/*
 * FI_UET_MR_IDEMPOTENT (RUDI): the key carries IDEMPOTENT_SAFE (bit 63) in
 * both kinds of key, and the wire's memory key keeps it; a plain region's
 * key has no such bit.
 */
Test(uet_mr, idempotent_regions_carry_bit_63)
{
	int modes[] = { FI_MR_PROV_KEY, FI_MR_PROV_KEY | FI_MR_VIRT_ADDR };
	struct fid_mr *mr, *plain, *bad;
	uint64_t mkey, off, key;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		t_open(modes[i]);
		cr_assert_eq(fi_mr_reg(t.domain, t_buf, sizeof(t_buf),
				       FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0,
				       FI_UET_MR_IDEMPOTENT, &mr, NULL), 0);
		plain = t_reg(FI_REMOTE_WRITE, 0);
		key = fi_mr_key(mr);
		cr_assert(key & UET_MKEY_IDEMPOTENT_SAFE);
		cr_assert(t_umr(mr)->idempotent);
		cr_assert(!(fi_mr_key(plain) & UET_MKEY_IDEMPOTENT_SAFE));
		cr_assert_eq(uet_mr_key_to_wire(t_dom(t.domain), key,
						(modes[i] & FI_MR_VIRT_ADDR ?
						 (uintptr_t)t_buf : 0) + 100,
						&mkey, &off), 0);
		cr_assert_eq(mkey, t_umr(mr)->rkey | UET_MKEY_IDEMPOTENT_SAFE);
		cr_assert_eq(off, 100);
		/* Any other flag is still refused. */
		cr_assert_eq(fi_mr_reg(t.domain, t_buf, 8, FI_REMOTE_READ, 0,
				       0, FI_UET_MR_IDEMPOTENT << 1, &bad,
				       NULL), -FI_EBADFLAGS);
		cr_assert_eq(fi_close(&mr->fid), 0);
		cr_assert_eq(fi_close(&plain->fid), 0);
		t_fi_close(&t);
	}
}

Test(uet_mr, offsets_without_virt_addr)
{
	uint64_t mkey, off;

	t_open(FI_MR_PROV_KEY);
	cr_assert_eq(uet_mr_key_to_wire(t_dom(t.domain), 5, 100, &mkey, &off),
		     0);
	cr_assert_eq(mkey, 5);
	cr_assert_eq(off, 100);
	cr_assert_eq(uet_mr_key_to_wire(t_dom(t.domain), 1ull << 48, 0, &mkey,
					&off), -FI_EINVAL);
	t_fi_close(&t);
}

static void t_raw_round_trip(int mr_mode)
{
	uint8_t raw[16];
	size_t size = 2;
	uint64_t base = 0, key = 0;
	struct fid_mr *mr;

	t_open(mr_mode);
	mr = t_reg(FI_REMOTE_READ, 0x1234);
	cr_assert_eq(fi_mr_raw_attr(mr, &base, raw, &size, 0), -FI_ETOOSMALL);
	cr_assert_eq(size, 8);
	size = sizeof(raw);
	cr_assert_eq(fi_mr_raw_attr(mr, &base, raw, &size, 0), 0);
	cr_assert_eq(size, 8);
	cr_assert_eq(base, (uintptr_t)t_buf);
	cr_assert_eq(fi_mr_raw_attr(mr, &base, raw, &size, 1), -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_map_raw(t.domain, base, raw, size, &key, 0), 0);
	cr_assert_eq(key, fi_mr_key(mr));
	cr_assert_eq(fi_mr_map_raw(t.domain, base, raw, 4, &key, 0),
		     -FI_EINVAL);
	cr_assert_eq(fi_mr_unmap_key(t.domain, key), 0);
	cr_assert_eq(fi_close(&mr->fid), 0);
	t_fi_close(&t);
}

Test(uet_mr, raw_keys_map_back)
{
	t_raw_round_trip(0);
	t_raw_round_trip(FI_MR_PROV_KEY | FI_MR_VIRT_ADDR);
}

Test(uet_mr, refresh_checks_ranges)
{
	struct iovec in = { t_buf + 16, 64 }, out = { t_buf + 4000, 200 };
	struct fid_mr *mr;

	t_open(FI_MR_PROV_KEY);
	mr = t_reg(FI_REMOTE_WRITE, 0);
	cr_assert_eq(fi_mr_refresh(mr, &in, 1, 0), 0);
	cr_assert_eq(fi_mr_refresh(mr, &out, 1, 0), -FI_EINVAL);
	cr_assert_eq(fi_mr_refresh(mr, &in, 1, 1), -FI_EBADFLAGS);
	cr_assert_eq(fi_close(&mr->fid), 0);
	t_fi_close(&t);
}

Test(uet_mr, counter_binding_goes_with_the_region)
{
	struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP };
	struct fid_cntr *c;
	struct fid_mr *mr;

	t_open(FI_MR_PROV_KEY);
	mr = t_reg(FI_REMOTE_WRITE, 0);
	cr_assert_eq(fi_cntr_open(t.domain, &attr, &c, NULL), 0);
	cr_assert_eq(fi_mr_bind(mr, &c->fid, FI_WRITE), -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_bind(mr, &c->fid, 0), -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_bind(mr, &c->fid, FI_REMOTE_WRITE), 0);
	cr_assert_eq(t_dom(t.domain)->mr_cntr_cnt, 1);
	/*
	 * fi_cntr(3): a counter closes after the regions bound to it, which
	 * then let it go (fabtests 2.x close them in this order and check).
	 */
	cr_assert_eq(fi_close(&mr->fid), 0);
	cr_assert_eq(t_dom(t.domain)->mr_cntr_cnt, 0);
	cr_assert_eq(fi_close(&c->fid), 0);
	t_fi_close(&t);
}
