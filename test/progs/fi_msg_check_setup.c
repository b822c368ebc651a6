/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg_check's set-up, shared with fi_msg_bench: an RDM endpoint for
 * messaging with what the provider grants (FI_ORDER_SAS, FI_SOURCE,
 * FI_DIRECTED_RECV and FI_MULTI_RECV when it has them), separate transmit
 * (FI_SELECTIVE_COMPLETION) and receive CQs and counters, and the TCP side
 * channel on which the two sides swap names and meet.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test/progs/fi_msg_check.h"

#define T_MIN_MULTI_RECV	4096

/* ---- side channel ------------------------------------------------------------- */
static int t_oob_connect(struct t *t, const char *server, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port) };
	socklen_t slen = sizeof(sin);
	struct pollfd pfd;
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (!t->server) {
		snprintf(t->peer_ip, sizeof(t->peer_ip), "%s", server);
		if (inet_pton(AF_INET, server, &sin.sin_addr) != 1)
			goto fail;
		for (int i = 0; i < 200; i++) {
			if (!connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
				t->oob.oob_fd = fd;
				return 0;
			}
			usleep(50000);
		}
		goto fail;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 1))
		goto fail;
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&pfd, 1, 60000) != 1)
		goto fail;
	t->oob.oob_fd = accept(fd, (struct sockaddr *)&sin, &slen);
	close(fd);
	inet_ntop(AF_INET, &sin.sin_addr, t->peer_ip, sizeof(t->peer_ip));
	return t->oob.oob_fd < 0 ? -1 : 0;
fail:
	perror("side channel");
	close(fd);
	return -1;
}

int t_oob_recv(struct t *t, void *buf, size_t len)
{
	struct pollfd pfd = { .fd = t->oob.oob_fd, .events = POLLIN };
	uint64_t end = t_now_ms() + 60000;
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		for (unsigned int i = 1; poll(&pfd, 1, 0) != 1; i++) {
			t_progress(t);
			if (!(i % 256) && t_now_ms() > end)
				return -1;
		}
		n = recv(t->oob.oob_fd, p, len, 0);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int t_sync(struct t *t)
{
	uint8_t b = 1;

	T_CHECK(!ex_oob_send(&t->oob, &b, 1) && !t_oob_recv(t, &b, 1),
		"side channel");
	return 0;
}

static int t_exchange(struct t *t)
{
	uint8_t name[256], peer[256];
	size_t len = sizeof(name);
	uint32_t n, pn;

	T_CHECK(!fi_getname(&t->ep->fid, name, &len), "fi_getname");
	n = (uint32_t)len;
	T_CHECK(!ex_oob_send(&t->oob, &n, sizeof(n)) &&
		!ex_oob_send(&t->oob, name, len) &&
		!t_oob_recv(t, &pn, sizeof(pn)) && pn <= sizeof(peer) &&
		!t_oob_recv(t, peer, pn), "name exchange");
	T_CHECK(fi_av_insert(t->av, peer, 1, &t->peer, 0, NULL) == 1,
		"fi_av_insert");
	return 0;
}

/* ---- set-up ------------------------------------------------------------------- */
static int t_getinfo(struct t *t, const char *node, const char *service,
		     bool sas)
{
	static const uint64_t optional[] = { FI_SOURCE, FI_DIRECTED_RECV,
					     FI_MULTI_RECV };
	uint64_t caps = FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | FI_SOURCE |
			FI_DIRECTED_RECV | FI_MULTI_RECV;
	struct fi_info *h = fi_allocinfo();
	int ret = -FI_ENODATA;

	h->ep_attr->type = FI_EP_RDM;
	h->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_ENDPOINT |
				  FI_MR_VIRT_ADDR | FI_MR_ALLOCATED;
	if (sas)
		h->tx_attr->msg_order = h->rx_attr->msg_order = FI_ORDER_SAS;
	/* Drop the optional caps one by one until the provider agrees. */
	for (size_t i = 0; ret && i <= 3; i++) {
		h->caps = caps;
		ret = fi_getinfo(FI_VERSION(1, 17), node, service,
				 t->server ? FI_SOURCE : 0, h, &t->info);
		if (i < 3)
			caps &= ~optional[i];
	}
	fi_freeinfo(h);
	T_CHECK(!ret, "fi_getinfo: %s", fi_strerror(-ret));
	t->prov = t->info->fabric_attr->prov_name;
	t->sas = t->info->tx_attr->msg_order & FI_ORDER_SAS;
	t->source = t->info->caps & FI_SOURCE;
	t->directed = t->info->caps & FI_DIRECTED_RECV;
	t->multi = t->info->caps & FI_MULTI_RECV;
	printf("fi_msg_check: provider %s:%s%s%s%s\n", t->prov,
	       t->sas ? " FI_ORDER_SAS" : "", t->source ? " FI_SOURCE" : "",
	       t->directed ? " FI_DIRECTED_RECV" : "",
	       t->multi ? " FI_MULTI_RECV" : "");
	return 0;
}

#define T_FI(call)							\
	do {								\
		int t_ret_ = (int)(call);				\
		T_CHECK(t_ret_ >= 0, "%s: %s", #call,			\
			fi_strerror(-t_ret_));				\
	} while (0)

static int t_setup(struct t *t, const char *node, const char *service,
		   bool sas)
{
	struct fi_cq_attr cq_attr = { .size = 1024,
				      .format = FI_CQ_FORMAT_TAGGED };
	struct fi_cntr_attr cntr_attr = { .events = FI_CNTR_EVENTS_COMP };
	struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
	size_t min = T_MIN_MULTI_RECV;

	if (t_getinfo(t, node, service, sas))
		return -1;
	/* Sends complete by default; fi_tsendmsg without FI_COMPLETION
	 * is silent (FI_SELECTIVE_COMPLETION on the transmit CQ). */
	t->info->tx_attr->op_flags = FI_COMPLETION;
	T_FI(fi_fabric(t->info->fabric_attr, &t->fabric, NULL));
	T_FI(fi_domain(t->fabric, t->info, &t->domain, NULL));
	T_FI(fi_av_open(t->domain, &av_attr, &t->av, NULL));
	T_FI(fi_cq_open(t->domain, &cq_attr, &t->txcq, NULL));
	T_FI(fi_cq_open(t->domain, &cq_attr, &t->rxcq, NULL));
	T_FI(fi_cntr_open(t->domain, &cntr_attr, &t->scntr, NULL));
	T_FI(fi_cntr_open(t->domain, &cntr_attr, &t->rcntr, NULL));
	T_FI(fi_endpoint(t->domain, t->info, &t->ep, NULL));
	T_FI(fi_ep_bind(t->ep, &t->av->fid, 0));
	T_FI(fi_ep_bind(t->ep, &t->txcq->fid,
			FI_TRANSMIT | FI_SELECTIVE_COMPLETION));
	T_FI(fi_ep_bind(t->ep, &t->rxcq->fid, FI_RECV));
	T_FI(fi_ep_bind(t->ep, &t->scntr->fid, FI_SEND));
	T_FI(fi_ep_bind(t->ep, &t->rcntr->fid, FI_RECV));
	if (t->multi)
		T_FI(fi_setopt(&t->ep->fid, FI_OPT_ENDPOINT,
			       FI_OPT_MIN_MULTI_RECV, &min, sizeof(min)));
	T_FI(fi_enable(t->ep));
	t->sbuf = malloc(T_BUF_LEN);
	t->rbuf = malloc(T_BUF_LEN);
	T_CHECK(t->sbuf && t->rbuf, "out of memory");
	return 0;
}

void t_close(struct t *t)
{
	struct fid *fids[] = {
		t->ep ? &t->ep->fid : NULL, t->scntr ? &t->scntr->fid : NULL,
		t->rcntr ? &t->rcntr->fid : NULL,
		t->txcq ? &t->txcq->fid : NULL, t->rxcq ? &t->rxcq->fid : NULL,
		t->av ? &t->av->fid : NULL,
		t->domain ? &t->domain->fid : NULL,
		t->fabric ? &t->fabric->fid : NULL,
	};

	for (size_t i = 0; i < sizeof(fids) / sizeof(fids[0]); i++)
		if (fids[i])
			fi_close(fids[i]);
	if (t->info)
		fi_freeinfo(t->info);
	if (t->oob.oob_fd >= 0)
		close(t->oob.oob_fd);
	free(t->sbuf);
	free(t->rbuf);
}


int t_open(struct t *t, const char *node, const char *service, bool sas,
	   int port)
{
	if (t_setup(t, node, service, sas) ||
	    t_oob_connect(t, t->server ? NULL : node, port) || t_exchange(t))
		return -1;
	return 0;
}
