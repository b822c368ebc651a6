/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_getinfo through libfabric, which loads build/libuet-fi.so: what the
 * provider advertises, what it refuses (-FI_ENODATA), node and service
 * parsing, and the mr_mode it negotiates for each kind of application.
 */
#include <arpa/inet.h>

#include "t_fi.h"
#include "uet/uet_iface.h"

static int t_getinfo(const char *node, const char *service, uint64_t flags,
		     const struct fi_info *hints, struct fi_info **info)
{
	t_fi_env();
	*info = NULL;
	return fi_getinfo(FI_VERSION(1, 17), node, service, flags, hints,
			  info);
}

static struct uet_addr t_blob(const void *p, size_t len)
{
	struct uet_addr a;

	cr_assert_eq(len, UET_ADDR_LEN);
	cr_assert_eq(uet_addr_decode(&a, p, len), UET_ADDR_LEN);
	return a;
}

Test(uet_getinfo, advertises_what_is_implemented)
{
	struct fi_info *info;

	cr_assert_eq(t_getinfo(NULL, NULL, 0, NULL, &info), 0);
	cr_assert_str_eq(info->fabric_attr->prov_name, "uet");
	cr_assert_str_eq(info->fabric_attr->name, "uet");
	cr_assert_str_eq(info->domain_attr->name, "lo");
	cr_assert_eq(info->ep_attr->type, FI_EP_RDM);
	cr_assert_eq(info->caps & (FI_RMA | FI_READ | FI_WRITE |
				   FI_REMOTE_READ | FI_REMOTE_WRITE |
				   FI_RMA_EVENT),
		     FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ |
		     FI_REMOTE_WRITE | FI_RMA_EVENT);
	cr_assert_eq(info->caps & (FI_MSG | FI_TAGGED | FI_SEND | FI_RECV |
				   FI_MULTI_RECV | FI_DIRECTED_RECV |
				   FI_SOURCE),
		     FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | FI_MULTI_RECV |
		     FI_DIRECTED_RECV | FI_SOURCE);
	cr_assert_eq(info->caps & FI_ATOMIC, FI_ATOMIC);
	cr_assert_eq(info->ep_attr->mem_tag_format, 0xAAAAAAAAAAAAAAAAull);
	cr_assert_eq(info->mode, 0);
	cr_assert_eq(info->addr_format, FI_FORMAT_UNSPEC);
	cr_assert_eq(info->domain_attr->mr_mode,
		     FI_MR_PROV_KEY | FI_MR_ENDPOINT);
	cr_assert_eq(info->domain_attr->data_progress, FI_PROGRESS_MANUAL);
	cr_assert_eq(info->domain_attr->control_progress, FI_PROGRESS_MANUAL);
	cr_assert_eq(info->domain_attr->threading, FI_THREAD_SAFE);
	cr_assert_eq(info->domain_attr->cq_data_size, 8);
	cr_assert_eq(info->domain_attr->mr_iov_limit, 1);
	cr_assert_eq(info->ep_attr->max_msg_size, 0xFFFFFFFEull);
	cr_assert_eq(info->tx_attr->inject_size, 64);
	cr_assert_eq(info->tx_attr->iov_limit, SES_IOV_MAX);
	cr_assert_eq(info->tx_attr->rma_iov_limit, 1);
	cr_assert_eq(info->tx_attr->msg_order, FI_ORDER_NONE);
	cr_assert_eq(info->rx_attr->msg_order, FI_ORDER_NONE);
	cr_assert_eq(info->rx_attr->size, UET_RX_SIZE);
	fi_freeinfo(info);
}

Test(uet_getinfo, messaging_caps_and_order)
{
	struct fi_info *h = fi_allocinfo(), *info;

	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_TAGGED;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), 0);
	cr_assert_eq(info->caps & (FI_TAGGED | FI_SEND | FI_RECV),
		     FI_TAGGED | FI_SEND | FI_RECV);
	/* Secondary caps only when asked for. */
	cr_assert_eq(info->caps & (FI_SOURCE | FI_DIRECTED_RECV |
				   FI_MULTI_RECV), 0);
	cr_assert_eq(info->tx_attr->msg_order, FI_ORDER_NONE);
	fi_freeinfo(info);
	h->caps = FI_MSG | FI_SOURCE | FI_MULTI_RECV;
	h->rx_attr->msg_order = FI_ORDER_SAS;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), 0);
	cr_assert_eq(info->caps & (FI_MSG | FI_SOURCE | FI_MULTI_RECV),
		     FI_MSG | FI_SOURCE | FI_MULTI_RECV);
	cr_assert_eq(info->tx_attr->msg_order, FI_ORDER_SAS);
	cr_assert_eq(info->rx_attr->msg_order, FI_ORDER_SAS);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

Test(uet_getinfo, refuses_other_endpoint_types)
{
	enum fi_ep_type types[] = { FI_EP_MSG, FI_EP_DGRAM,
				    FI_EP_SOCK_STREAM };
	struct fi_info *h = fi_allocinfo(), *info;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		h->ep_attr->type = types[i];
		cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	}
	fi_freeinfo(h);
}

/*
 * Domain capability hints: met ones come back in the info (fabtests'
 * fi_getinfo_test checks them), unmet ones are -FI_ENODATA, never -FI_EIO.
 */
Test(uet_getinfo, domain_caps_hints)
{
	static const uint64_t ok[] = { FI_LOCAL_COMM, FI_REMOTE_COMM,
				       FI_LOCAL_COMM | FI_REMOTE_COMM };
	struct fi_info *h = t_fi_hints(0), *info;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		h->domain_attr->caps = ok[i];
		cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), 0);
		cr_assert_eq(info->domain_attr->caps & ok[i], ok[i]);
		fi_freeinfo(info);
	}
	h->domain_attr->caps = FI_SHARED_AV;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	fi_freeinfo(h);
}

/* Auto progress is offered (the progress thread) when asked for. */
Test(uet_getinfo, progress_modes_as_asked)
{
	struct fi_info *h = t_fi_hints(0), *info;

	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), 0);
	cr_assert_eq(info->domain_attr->data_progress, FI_PROGRESS_MANUAL);
	fi_freeinfo(info);
	h->domain_attr->data_progress = FI_PROGRESS_AUTO;
	h->domain_attr->control_progress = FI_PROGRESS_AUTO;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), 0);
	cr_assert_eq(info->domain_attr->data_progress, FI_PROGRESS_AUTO);
	cr_assert_eq(info->domain_attr->control_progress, FI_PROGRESS_AUTO);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

Test(uet_getinfo, refuses_what_it_lacks)
{
	struct fi_info *h, *info;

	h = t_fi_hints(0);
	h->caps = FI_RMA | FI_COLLECTIVE;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	h->caps = FI_RMA;
	h->addr_format = FI_SOCKADDR_IN;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	h->addr_format = FI_FORMAT_UNSPEC;
	h->tx_attr->inject_size = 65;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	h->tx_attr->inject_size = 0;
	h->tx_attr->msg_order = FI_ORDER_SAS | FI_ORDER_RAW;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	h->tx_attr->msg_order = 0;
	h->rx_attr->comp_order = FI_ORDER_STRICT;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	h->rx_attr->comp_order = 0;
	h->tx_attr->iov_limit = SES_IOV_MAX + 1;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	h->tx_attr->iov_limit = 0;
	h->domain_attr->name = strdup("eth9");
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	fi_freeinfo(h);
}

Test(uet_getinfo, honours_hints_it_can)
{
	struct fi_info *h = t_fi_hints(0), *info;

	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->domain_attr->av_type = FI_AV_TABLE;
	h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
	h->domain_attr->name = strdup("lo");
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), 0);
	cr_assert_eq(info->domain_attr->threading, FI_THREAD_DOMAIN);
	cr_assert_eq(info->domain_attr->av_type, FI_AV_TABLE);
	cr_assert_eq(info->tx_attr->op_flags, FI_DELIVERY_COMPLETE);
	cr_assert_eq(info->caps & FI_RMA, FI_RMA);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

Test(uet_getinfo, source_node_and_service)
{
	struct fi_info *info;
	struct uet_addr a;

	cr_assert_eq(t_getinfo("127.0.0.1", "5", FI_SOURCE, NULL, &info), 0);
	a = t_blob(info->src_addr, info->src_addrlen);
	cr_assert_eq(ntohl(a.fa.v4.s_addr), 0x7f000001u);
	cr_assert_eq(a.pid_on_fep, 5);
	cr_assert_eq(a.ri_base, 10);		/* FI_UET_RI_BASE */
	cr_assert_eq(a.initiator, uet_addr_initiator(&a.fa, 5));
	cr_assert_null(info->dest_addr);
	fi_freeinfo(info);
	/* No node: the service is our PIDonFEP. */
	cr_assert_eq(t_getinfo(NULL, "6", 0, NULL, &info), 0);
	cr_assert_eq(t_blob(info->src_addr, info->src_addrlen).pid_on_fep, 6);
	fi_freeinfo(info);
	/* Not one of our addresses. */
	cr_assert_eq(t_getinfo("192.0.2.254", "5", FI_SOURCE, NULL, &info),
		     -FI_ENODATA);
}

Test(uet_getinfo, destination_node_and_service)
{
	struct fi_info *info;
	struct uet_addr a;

	cr_assert_eq(t_getinfo("127.0.0.1", "7", 0, NULL, &info), 0);
	a = t_blob(info->dest_addr, info->dest_addrlen);
	cr_assert_eq(ntohl(a.fa.v4.s_addr), 0x7f000001u);
	cr_assert_eq(a.pid_on_fep, 7);
	a = t_blob(info->src_addr, info->src_addrlen);
	cr_assert_eq(ntohl(a.fa.v4.s_addr), 0x7f000001u);
	fi_freeinfo(info);
	cr_assert_eq(t_getinfo("localhost", "7", 0, NULL, &info), 0);
	fi_freeinfo(info);
	if (uet_iface_fa("lo", true, &a.fa))
		return;		/* no IPv6 here */
	cr_assert_eq(t_getinfo("::1", "8", 0, NULL, &info), 0);
	a = t_blob(info->dest_addr, info->dest_addrlen);
	cr_assert(a.fa.is_v6);
	cr_assert(t_blob(info->src_addr, info->src_addrlen).fa.is_v6);
	fi_freeinfo(info);
}

/*
 * Port-like services (libfabric's tests pass 9228): mapped into the upper
 * half of the PIDonFEPs the same way for FI_SOURCE and destinations.
 */
Test(uet_getinfo, port_like_services_map_alike_both_ways)
{
	static const struct { const char *svc; uint16_t pid; } m[] = {
		{ "4095", 4095 }, { "4096", 2048 }, { "9228", 3084 },
		{ "47592", 2536 }, { "65535", 4095 }, { "11276", 3084 },
	};
	struct fi_info *info;

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		cr_assert_eq(t_getinfo("127.0.0.1", m[i].svc, FI_SOURCE, NULL,
				       &info), 0, "%s", m[i].svc);
		cr_assert_eq(t_blob(info->src_addr, info->src_addrlen)
			     .pid_on_fep, m[i].pid, "%s", m[i].svc);
		fi_freeinfo(info);
		cr_assert_eq(t_getinfo("127.0.0.1", m[i].svc, 0, NULL, &info),
			     0, "%s", m[i].svc);
		cr_assert_eq(t_blob(info->dest_addr, info->dest_addrlen)
			     .pid_on_fep, m[i].pid, "%s", m[i].svc);
		fi_freeinfo(info);
	}
}

Test(uet_getinfo, refuses_bad_services_and_nodes)
{
	struct fi_info *info;

	cr_assert_eq(t_getinfo(NULL, "65536", 0, NULL, &info), -FI_ENODATA);
	cr_assert_eq(t_getinfo(NULL, "99999999999999999999", 0, NULL, &info),
		     -FI_ENODATA);
	cr_assert_eq(t_getinfo(NULL, "12ab", 0, NULL, &info), -FI_ENODATA);
	cr_assert_eq(t_getinfo(NULL, "abc", 0, NULL, &info), -FI_ENODATA);
	cr_assert_eq(t_getinfo(NULL, "-1", 0, NULL, &info), -FI_ENODATA);
	cr_assert_eq(t_getinfo("no.such.host.invalid", "1", 0, NULL, &info),
		     -FI_ENODATA);
	cr_assert_eq(t_getinfo("localhost", "1", FI_NUMERICHOST, NULL,
			       &info), -FI_ENODATA);
}

static int t_mr_mode(int offered)
{
	struct fi_info *h = t_fi_hints(offered), *info;
	int m;

	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), 0);
	m = info->domain_attr->mr_mode;
	fi_freeinfo(info);
	fi_freeinfo(h);
	return m;
}

Test(uet_getinfo, negotiates_mr_mode)
{
	int all = ~(FI_MR_BASIC | FI_MR_SCALABLE);

	cr_assert_eq(t_mr_mode(0), 0);
	cr_assert_eq(t_mr_mode(FI_MR_LOCAL | FI_MR_ALLOCATED), 0);
	cr_assert_eq(t_mr_mode(FI_MR_PROV_KEY), FI_MR_PROV_KEY);
	cr_assert_eq(t_mr_mode(FI_MR_ENDPOINT | FI_MR_LOCAL), FI_MR_ENDPOINT);
	/* A virtual address needs a key that carries the base. */
	cr_assert_eq(t_mr_mode(FI_MR_VIRT_ADDR), 0);
	cr_assert_eq(t_mr_mode(FI_MR_VIRT_ADDR | FI_MR_PROV_KEY),
		     FI_MR_VIRT_ADDR | FI_MR_PROV_KEY);
	cr_assert_eq(t_mr_mode(all),
		     FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ENDPOINT);
	cr_assert_eq(t_mr_mode(FI_MR_BASIC), FI_MR_BASIC);
	cr_assert_eq(t_mr_mode(FI_MR_SCALABLE), FI_MR_SCALABLE);
}

Test(uet_getinfo, takes_a_jobid_auth_key)
{
	struct fi_info *h = t_fi_hints(0), *info;
	uint32_t job = 101;

	h->domain_attr->auth_key = malloc(sizeof(job));
	memcpy(h->domain_attr->auth_key, &job, sizeof(job));
	h->domain_attr->auth_key_size = sizeof(job);
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), 0);
	cr_assert_eq(info->domain_attr->auth_key_size, sizeof(job));
	cr_assert_arr_eq(info->domain_attr->auth_key, &job, sizeof(job));
	fi_freeinfo(info);
	job = 0x1000000;	/* wider than 24 bits */
	memcpy(h->domain_attr->auth_key, &job, sizeof(job));
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	h->domain_attr->auth_key_size = 2;
	cr_assert_eq(t_getinfo(NULL, NULL, 0, h, &info), -FI_ENODATA);
	fi_freeinfo(h);
}
