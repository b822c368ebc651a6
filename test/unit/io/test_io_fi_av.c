/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Address vectors: FI_AV_TABLE and FI_AV_MAP insertion, insertsvc and
 * insertsym, lookup, straddr, remove, and bad input that changes nothing.
 */
#include <arpa/inet.h>

#include "t_fi.h"

static struct t_fi t;

static void t_setup(void)
{
	t_fi_open(&t, FI_MR_PROV_KEY | FI_MR_ENDPOINT);
}

static void t_teardown(void)
{
	t_fi_close(&t);
}

TestSuite(uet_av, .init = t_setup, .fini = t_teardown);

static struct fid_av *t_av(enum fi_av_type type)
{
	struct fi_av_attr attr = { .type = type };
	struct fid_av *av;

	cr_assert_eq(fi_av_open(t.domain, &attr, &av, NULL), 0);
	return av;
}

static void t_blob(uint8_t *out, const char *ip, uint16_t pid)
{
	struct uet_addr a = { .pid_on_fep = pid, .ri_base = 10 };

	inet_pton(AF_INET, ip, &a.fa.v4);
	a.initiator = uet_addr_initiator(&a.fa, pid);
	cr_assert_eq(uet_addr_encode(out, UET_ADDR_LEN, &a), UET_ADDR_LEN);
}

Test(uet_av, table_hands_out_indices_in_order)
{
	struct fid_av *av = t_av(FI_AV_TABLE);
	uint8_t blobs[3 * UET_ADDR_LEN], out[UET_ADDR_LEN];
	fi_addr_t fa[3], one;
	size_t len = sizeof(out);

	for (int i = 0; i < 3; i++)
		t_blob(blobs + i * UET_ADDR_LEN, "10.0.0.2", (uint16_t)i);
	cr_assert_eq(fi_av_insert(av, blobs, 3, fa, 0, NULL), 3);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(fa[i], (fi_addr_t)i);
	cr_assert_eq(fi_av_lookup(av, 1, out, &len), 0);
	cr_assert_eq(len, UET_ADDR_LEN);
	cr_assert_arr_eq(out, blobs + UET_ADDR_LEN, UET_ADDR_LEN);
	/* A removed index is not handed out again. */
	one = 1;
	cr_assert_eq(fi_av_remove(av, &one, 1, 0), 0);
	cr_assert_eq(fi_av_lookup(av, 1, out, &len), -FI_EINVAL);
	cr_assert_eq(fi_av_insert(av, blobs, 1, fa, 0, NULL), 1);
	cr_assert_eq(fa[0], 3);
	cr_assert_eq(fi_close(&av->fid), 0);
}

Test(uet_av, map_reuses_removed_slots)
{
	struct fid_av *av = t_av(FI_AV_MAP);
	uint8_t blob[UET_ADDR_LEN], out[UET_ADDR_LEN];
	size_t len = sizeof(out);
	fi_addr_t fa[3];

	t_blob(blob, "10.0.0.3", 1);
	cr_assert_eq(fi_av_insert(av, blob, 1, &fa[0], 0, NULL), 1);
	cr_assert_eq(fi_av_insert(av, blob, 1, &fa[1], 0, NULL), 1);
	cr_assert_eq(fi_av_remove(av, &fa[0], 1, 0), 0);
	cr_assert_eq(fi_av_insert(av, blob, 1, &fa[2], 0, NULL), 1);
	/* The same slot, a new generation: the old fi_addr is refused. */
	cr_assert_eq(uet_av_slot_of(fa[2]), uet_av_slot_of(fa[0]));
	cr_assert_neq(fa[2], fa[0]);
	cr_assert_eq(fi_av_lookup(av, fa[0], out, &len), -FI_EINVAL);
	cr_assert_eq(fi_av_remove(av, &fa[0], 1, 0), -FI_EINVAL);
	cr_assert_eq(fi_av_lookup(av, fa[2], out, &len), 0);
	cr_assert_eq(fi_close(&av->fid), 0);
}

Test(uet_av, bad_addresses_are_reported_one_by_one)
{
	struct fid_av *av = t_av(FI_AV_TABLE);
	uint8_t blobs[2 * UET_ADDR_LEN];
	fi_addr_t fa[2];
	int errs[2] = { -1, -1 };

	t_blob(blobs, "10.0.0.2", 1);
	t_blob(blobs + UET_ADDR_LEN, "10.0.0.2", 2);
	blobs[UET_ADDR_LEN] = 9;	/* unknown version */
	cr_assert_eq(fi_av_insert(av, blobs, 2, fa, FI_SYNC_ERR, errs), 1);
	cr_assert_eq(fa[0], 0);
	cr_assert_eq(fa[1], FI_ADDR_NOTAVAIL);
	cr_assert_eq(errs[0], 0);
	cr_assert_eq(errs[1], FI_EINVAL);
	cr_assert_eq(fi_av_insert(av, blobs, 1, fa, FI_SYNC_ERR, NULL),
		     -FI_EINVAL);
	cr_assert_eq(fi_av_insert(av, blobs, 1, fa, FI_AV_USER_ID, NULL),
		     -FI_EINVAL);
	cr_assert_eq(fi_close(&av->fid), 0);
}

Test(uet_av, remove_is_all_or_nothing)
{
	struct fid_av *av = t_av(FI_AV_TABLE);
	uint8_t blob[UET_ADDR_LEN], out[UET_ADDR_LEN];
	fi_addr_t fa[2] = { 0, 7 };
	size_t len = sizeof(out);

	t_blob(blob, "10.0.0.2", 1);
	cr_assert_eq(fi_av_insert(av, blob, 1, NULL, 0, NULL), 1);
	cr_assert_eq(fi_av_remove(av, fa, 2, 0), -FI_EINVAL);
	cr_assert_eq(fi_av_lookup(av, 0, out, &len), 0);
	cr_assert_eq(fi_av_remove(av, fa, 1, 1), -FI_EINVAL);
	cr_assert_eq(fi_close(&av->fid), 0);
}

Test(uet_av, insertsvc_takes_node_and_pid)
{
	struct fid_av *av = t_av(FI_AV_TABLE);
	uint8_t out[UET_ADDR_LEN];
	size_t len = sizeof(out);
	struct uet_addr a;
	fi_addr_t fa;

	cr_assert_eq(fi_av_insertsvc(av, "127.0.0.1", "9", &fa, 0, NULL), 1);
	cr_assert_eq(fi_av_lookup(av, fa, out, &len), 0);
	cr_assert_eq(uet_addr_decode(&a, out, len), UET_ADDR_LEN);
	cr_assert_eq(ntohl(a.fa.v4.s_addr), 0x7f000001u);
	cr_assert_eq(a.pid_on_fep, 9);
	cr_assert_eq(a.initiator, uet_addr_initiator(&a.fa, 9));
	/* A port-like service: its PIDonFEP (include/uet_fep.h). */
	len = sizeof(out);
	cr_assert_eq(fi_av_insertsvc(av, "127.0.0.1", "5000", &fa, 0, NULL),
		     1);
	cr_assert_eq(fi_av_lookup(av, fa, out, &len), 0);
	cr_assert_eq(uet_addr_decode(&a, out, len), UET_ADDR_LEN);
	cr_assert_eq(a.pid_on_fep, 2048 + 5000 % 2048);
	cr_assert_eq(fi_av_insertsvc(av, "127.0.0.1", "65536", &fa, 0, NULL),
		     0);
	cr_assert_eq(fa, FI_ADDR_NOTAVAIL);
	cr_assert_eq(fi_close(&av->fid), 0);
}

Test(uet_av, insertsym_counts_nodes_and_pids)
{
	struct fid_av *av = t_av(FI_AV_TABLE);
	uint8_t out[UET_ADDR_LEN];
	size_t len = sizeof(out);
	struct uet_addr a;
	fi_addr_t fa[6];

	cr_assert_eq(fi_av_insertsym(av, "10.1.0.1", 2, "4", 3, fa, 0, NULL),
		     6);
	cr_assert_eq(fi_av_lookup(av, fa[5], out, &len), 0);
	cr_assert_eq(uet_addr_decode(&a, out, len), UET_ADDR_LEN);
	cr_assert_eq(ntohl(a.fa.v4.s_addr), 0x0a010002u);
	cr_assert_eq(a.pid_on_fep, 6);
	cr_assert_eq(fi_close(&av->fid), 0);
}

Test(uet_av, lookup_reports_the_size_it_needs)
{
	struct fid_av *av = t_av(FI_AV_TABLE);
	uint8_t blob[UET_ADDR_LEN], out[4];
	size_t len = sizeof(out);

	t_blob(blob, "10.0.0.2", 1);
	cr_assert_eq(fi_av_insert(av, blob, 1, NULL, 0, NULL), 1);
	cr_assert_eq(fi_av_lookup(av, 0, out, &len), -FI_ETOOSMALL);
	cr_assert_eq(len, UET_ADDR_LEN);
	cr_assert_arr_eq(out, blob, sizeof(out));
	cr_assert_eq(fi_close(&av->fid), 0);
}

Test(uet_av, straddr_is_readable)
{
	struct fid_av *av = t_av(FI_AV_TABLE);
	uint8_t blob[UET_ADDR_LEN];
	char buf[64];
	size_t len = sizeof(buf);

	t_blob(blob, "10.0.0.2", 3);
	cr_assert_eq(fi_av_straddr(av, blob, buf, &len), buf);
	cr_assert_str_eq(buf, "uet://10.0.0.2/pid=3/ri=10");
	cr_assert_eq(len, strlen(buf) + 1);
	len = 8;
	fi_av_straddr(av, blob, buf, &len);
	cr_assert_str_eq(buf, "uet://1");
	cr_assert_eq(len, strlen("uet://10.0.0.2/pid=3/ri=10") + 1);
	cr_assert_eq(fi_close(&av->fid), 0);
}

Test(uet_av, refuses_what_it_lacks)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = "shared" };
	struct fid_av *av;

	cr_assert_eq(fi_av_open(t.domain, &attr, &av, NULL), -FI_ENOSYS);
	attr.name = NULL;
	attr.rx_ctx_bits = 4;
	cr_assert_eq(fi_av_open(t.domain, &attr, &av, NULL), -FI_ENOSYS);
	attr.rx_ctx_bits = 0;
	attr.type = 7;
	cr_assert_eq(fi_av_open(t.domain, &attr, &av, NULL), -FI_EINVAL);
}

Test(uet_av, stays_open_while_an_endpoint_holds_it)
{
	struct fid_av *av = t_av(FI_AV_TABLE);
	struct fid_ep *ep;

	cr_assert_eq(fi_endpoint(t.domain, t.info, &ep, NULL), 0);
	cr_assert_eq(fi_ep_bind(ep, &av->fid, 0), 0);
	cr_assert_eq(fi_close(&av->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&t.domain->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&ep->fid), 0);
	cr_assert_eq(fi_close(&av->fid), 0);
}
