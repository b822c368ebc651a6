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

	T_CHECK(!fi_getname(&t->fab.ep->fid, name, &len), "fi_getname");
	n = (uint32_t)len;
	T_CHECK(!ex_oob_send(&t->oob, &n, sizeof(n)) &&
		!ex_oob_send(&t->oob, name, len) &&
		!t_oob_recv(t, &pn, sizeof(pn)) && pn <= sizeof(peer) &&
		!t_oob_recv(t, peer, pn), "name exchange");
	T_CHECK(fi_av_insert(t->fab.av, peer, 1, &t->peer, 0, NULL) == 1,
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

	if (t->no_multi)
		caps &= ~FI_MULTI_RECV;

	h->ep_attr->type = FI_EP_RDM;
	h->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_ENDPOINT |
				  FI_MR_VIRT_ADDR | FI_MR_ALLOCATED;
	if (sas)
		h->tx_attr->msg_order = h->rx_attr->msg_order = FI_ORDER_SAS;
	/* Drop the optional caps one by one until the provider agrees. */
	for (size_t i = 0; ret && i <= 3; i++) {
		h->caps = caps;
		ret = fi_getinfo(FI_VERSION(1, 17), node, service,
				 t->server ? FI_SOURCE : 0, h, &t->fab.info);
		if (i < 3)
			caps &= ~optional[i];
	}
	fi_freeinfo(h);
	T_CHECK(!ret, "fi_getinfo: %s", fi_strerror(-ret));
	t->prov = t->fab.info->fabric_attr->prov_name;
	t->sas = t->fab.info->tx_attr->msg_order & FI_ORDER_SAS;
	t->source = t->fab.info->caps & FI_SOURCE;
	t->directed = t->fab.info->caps & FI_DIRECTED_RECV;
	/* Some providers grant it unasked (shm): not ours to use then. */
	t->multi = !t->no_multi && (t->fab.info->caps & FI_MULTI_RECV);
	printf("fi_msg_check: provider %s:%s%s%s%s\n", t->prov,
	       t->sas ? " FI_ORDER_SAS" : "", t->source ? " FI_SOURCE" : "",
	       t->directed ? " FI_DIRECTED_RECV" : "",
	       t->multi ? " FI_MULTI_RECV" : "");
	return 0;
}

static int t_setup(struct t *t, const char *node, const char *service,
		   bool sas)
{
	struct ex_fab_opts fo = {
		.prog = "fi_msg_check", .cq_size = 1024,
		.cq_format = FI_CQ_FORMAT_TAGGED,
		.cq_flags = FI_SELECTIVE_COMPLETION, .rx_cq = true,
		.cntr = { [T_SCNTR] = FI_SEND, [T_RCNTR] = FI_RECV },
	};

	if (t_getinfo(t, node, service, sas))
		return -1;
	/* Sends complete by default; fi_tsendmsg without FI_COMPLETION
	 * is silent (FI_SELECTIVE_COMPLETION on the transmit CQ). */
	t->fab.info->tx_attr->op_flags = FI_COMPLETION;
	if (t->multi)
		fo.min_multi_recv = T_MIN_MULTI_RECV;
	T_CHECK(!ex_fab_open(&t->fab, NULL, &fo), "set-up");
	t->sbuf = malloc(T_BUF_LEN);
	t->rbuf = malloc(T_BUF_LEN);
	T_CHECK(t->sbuf && t->rbuf, "out of memory");
	return 0;
}

void t_close(struct t *t)
{
	ex_fab_close(&t->fab);
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
