/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_refused_send (issue 41): what a sender sees when its target refuses
 * a send for good (e2e_local_users runs it with the two ends in different
 * jobs, through their local channel). Plain libfabric, addressed by node
 * and service alone, no side channel.
 *
 *   fi_refused_send -s -a ADDR -p SERVICE [-w MS]
 *   fi_refused_send -c SERVER -p SERVICE [-d]
 *
 * The target posts two receives of 4 KiB filled with a pattern, says
 * "ready", then reads its CQ for MS milliseconds (default 3000): any
 * completion, or a changed byte in its buffers, fails it. The initiator
 * sends one 4 KiB message (fi_sendmsg; -d: with FI_DELIVERY_COMPLETE) and
 * prints how it completed: "send: success", or "send: error completion"
 * with the error and the provider's code. Exit status: 0 success, 3 an
 * error completion, 1 anything else (set-up, no completion in 10 s).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

#define RS_LEN		4096
#define RS_RECVS	2
#define RS_FILL		0xA5
#define RS_WAIT_S	10

#define RS_FAIL(...)	do { printf("fi_refused_send: FAIL: " __VA_ARGS__); \
			     printf("\n"); exit(1); } while (0)

static uint8_t rs_buf[RS_RECVS][RS_LEN];

static uint64_t rs_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int rs_target(struct ex_fab *f, unsigned wait_ms)
{
	static struct fi_context ctx[RS_RECVS];
	struct fi_cq_entry e;
	uint64_t end;
	ssize_t n;

	memset(rs_buf, RS_FILL, sizeof(rs_buf));
	for (int i = 0; i < RS_RECVS; i++) {
		n = fi_recv(f->ep, rs_buf[i], RS_LEN, NULL, FI_ADDR_UNSPEC,
			    &ctx[i]);
		if (n)
			RS_FAIL("fi_recv: %s", fi_strerror((int)-n));
	}
	printf("fi_refused_send: ready\n");
	end = rs_now_ms() + wait_ms;
	while (rs_now_ms() < end) {
		n = fi_cq_read(f->cq, &e, 1);
		if (n == 1)
			RS_FAIL("a receive completed: the send was taken");
		if (n != -FI_EAGAIN)
			RS_FAIL("fi_cq_read: %s", fi_strerror((int)-n));
	}
	for (int i = 0; i < RS_RECVS; i++)
		for (int j = 0; j < RS_LEN; j++)
			if (rs_buf[i][j] != RS_FILL)
				RS_FAIL("receive %d byte %d changed", i, j);
	printf("fi_refused_send: target: nothing received in %u ms, its "
	       "buffers unchanged\n", wait_ms);
	return 0;
}

static int rs_initiator(struct ex_fab *f, bool delivery)
{
	static struct fi_context ctx;
	static uint8_t msg[RS_LEN];
	struct iovec iov = { msg, sizeof(msg) };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1,
			    .context = &ctx };
	uint64_t flags = FI_COMPLETION | (delivery ? FI_DELIVERY_COMPLETE : 0);
	uint64_t end = rs_now_ms() + RS_WAIT_S * 1000u;
	struct fi_cq_err_entry err = { 0 };
	struct fi_cq_entry e;
	char str[128];
	ssize_t n;

	memset(msg, 0x3C, sizeof(msg));
	if (fi_av_insert(f->av, f->info->dest_addr, 1, &m.addr, 0, NULL) != 1)
		RS_FAIL("fi_av_insert of the target's address");
	while ((n = fi_sendmsg(f->ep, &m, flags)) == -FI_EAGAIN &&
	       rs_now_ms() < end)
		fi_cq_read(f->cq, NULL, 0);	/* progress */
	if (n)
		RS_FAIL("fi_sendmsg: %s", fi_strerror((int)-n));
	do {
		n = fi_cq_read(f->cq, &e, 1);
		if (n == 1) {
			printf("fi_refused_send: send%s: success\n",
			       delivery ? " (delivery complete)" : "");
			return 0;
		}
		if (n == -FI_EAVAIL) {
			if (fi_cq_readerr(f->cq, &err, 0) != 1)
				RS_FAIL("fi_cq_readerr");
			printf("fi_refused_send: send%s: error completion %s "
			       "(prov_errno %d: %s)\n",
			       delivery ? " (delivery complete)" : "",
			       fi_strerror(err.err), err.prov_errno,
			       fi_cq_strerror(f->cq, err.prov_errno,
					      err.err_data, str, sizeof(str)));
			return 3;
		}
		if (n != -FI_EAGAIN)
			RS_FAIL("fi_cq_read: %s", fi_strerror((int)-n));
	} while (rs_now_ms() < end);
	RS_FAIL("no completion of the send in %d s", RS_WAIT_S);
	return 1;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *server = NULL, *service = NULL;
	static struct ex_fab f;
	unsigned wait_ms = 3000;
	bool delivery = false;
	int opt, ret;

	while ((opt = getopt(argc, argv, "sa:c:p:w:d")) != -1) {
		switch (opt) {
		case 's': break;
		case 'a': addr = optarg; break;
		case 'c': server = optarg; break;
		case 'p': service = optarg; break;
		case 'w': wait_ms = (unsigned)atoi(optarg); break;
		case 'd': delivery = true; break;
		default: return 2;
		}
	}
	if ((!addr == !server) || !service) {
		fprintf(stderr, "usage: fi_refused_send -s -a ADDR -p SERVICE "
			"[-w MS] | -c SERVER -p SERVICE [-d]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = ex_fab_open_msg(&f, "fi_refused_send", addr ? addr : server,
			      service, addr != NULL);
	if (ret)
		RS_FAIL("set-up: %s", fi_strerror(-ret));
	ret = addr ? rs_target(&f, wait_ms) : rs_initiator(&f, delivery);
	ex_fab_close(&f);
	return ret;
}
