/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_one_send (issue 41): one send and what its target makes of it.
 * Plain libfabric, addressed by node and service alone, no side channel.
 *
 *   fi_one_send -s -a ADDR -p SERVICE [-w MS] [-D MS] [-r]
 *   fi_one_send -c SERVER -p SERVICE [-d]
 *
 * The target posts two receives of 4 KiB filled with a pattern, says
 * "ready", sleeps -D milliseconds without a call into the provider (by
 * then an initiator that exits once its send completed is gone), then
 * reads its CQ for -w milliseconds (default 3000). Without -r the send
 * must be refused: any completion, or a changed byte, fails it. With -r
 * it must be received: one receive completes, with the initiator's bytes.
 * The initiator sends one 4 KiB message (fi_sendmsg; -d: with
 * FI_DELIVERY_COMPLETE), prints how it completed, "send: success" or
 * "send: error completion" with the error and the provider's code, and
 * exits. Exit status: 0 success, 3 an error completion, 1 anything else
 * (set-up, no completion in 10 s, a target's check).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

#define OS_LEN		4096
#define OS_RECVS	2
#define OS_FILL		0xA5
#define OS_SENT		0x3C
#define OS_WAIT_S	10

#define OS_FAIL(...)	do { printf("fi_one_send: FAIL: " __VA_ARGS__); \
			     printf("\n"); exit(1); } while (0)

static uint8_t os_buf[OS_RECVS][OS_LEN];

static uint64_t os_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int os_target(struct ex_fab *f, unsigned delay_ms, unsigned wait_ms,
		     bool take)
{
	static struct fi_context ctx[OS_RECVS];
	struct fi_cq_entry e;
	int got = -1;
	uint64_t end;
	ssize_t n;

	memset(os_buf, OS_FILL, sizeof(os_buf));
	for (int i = 0; i < OS_RECVS; i++) {
		n = fi_recv(f->ep, os_buf[i], OS_LEN, NULL, FI_ADDR_UNSPEC,
			    &ctx[i]);
		if (n)
			OS_FAIL("fi_recv: %s", fi_strerror((int)-n));
	}
	printf("fi_one_send: ready\n");
	usleep(delay_ms * 1000u);
	end = os_now_ms() + wait_ms;
	while (os_now_ms() < end) {
		n = fi_cq_read(f->cq, &e, 1);
		if (n == 1 && !take)
			OS_FAIL("a receive completed: the send was taken");
		if (n == 1 && got >= 0)
			OS_FAIL("a second receive completed");
		if (n == 1)
			got = (int)((struct fi_context *)e.op_context - ctx);
		else if (n != -FI_EAGAIN)
			OS_FAIL("fi_cq_read: %s", fi_strerror((int)-n));
	}
	if (take && got < 0)
		OS_FAIL("nothing received in %u ms", delay_ms + wait_ms);
	for (int i = 0; i < OS_RECVS; i++)
		for (int j = 0; j < OS_LEN; j++)
			if (os_buf[i][j] != (i == got ? OS_SENT : OS_FILL))
				OS_FAIL("receive %d byte %d: %#x", i, j,
					os_buf[i][j]);
	printf("fi_one_send: target: %s in %u ms\n",
	       take ? "the message received whole, the other buffer unchanged" :
	       "nothing received, its buffers unchanged", delay_ms + wait_ms);
	return 0;
}

static int os_initiator(struct ex_fab *f, bool delivery)
{
	static struct fi_context ctx;
	static uint8_t msg[OS_LEN];
	struct iovec iov = { msg, sizeof(msg) };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1,
			    .context = &ctx };
	uint64_t flags = FI_COMPLETION | (delivery ? FI_DELIVERY_COMPLETE : 0);
	uint64_t end = os_now_ms() + OS_WAIT_S * 1000u;
	struct fi_cq_err_entry err = { 0 };
	struct fi_cq_entry e;
	char str[128];
	ssize_t n;

	memset(msg, OS_SENT, sizeof(msg));
	if (fi_av_insert(f->av, f->info->dest_addr, 1, &m.addr, 0, NULL) != 1)
		OS_FAIL("fi_av_insert of the target's address");
	while ((n = fi_sendmsg(f->ep, &m, flags)) == -FI_EAGAIN &&
	       os_now_ms() < end)
		fi_cq_read(f->cq, NULL, 0);	/* progress */
	if (n)
		OS_FAIL("fi_sendmsg: %s", fi_strerror((int)-n));
	do {
		n = fi_cq_read(f->cq, &e, 1);
		if (n == 1) {
			printf("fi_one_send: send%s: success\n",
			       delivery ? " (delivery complete)" : "");
			return 0;
		}
		if (n == -FI_EAVAIL) {
			if (fi_cq_readerr(f->cq, &err, 0) != 1)
				OS_FAIL("fi_cq_readerr");
			printf("fi_one_send: send%s: error completion %s "
			       "(prov_errno %d: %s)\n",
			       delivery ? " (delivery complete)" : "",
			       fi_strerror(err.err), err.prov_errno,
			       fi_cq_strerror(f->cq, err.prov_errno,
					      err.err_data, str, sizeof(str)));
			return 3;
		}
		if (n != -FI_EAGAIN)
			OS_FAIL("fi_cq_read: %s", fi_strerror((int)-n));
	} while (os_now_ms() < end);
	OS_FAIL("no completion of the send in %d s", OS_WAIT_S);
	return 1;
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *server = NULL, *service = NULL;
	static struct ex_fab f;
	unsigned wait_ms = 3000, delay_ms = 0;
	bool delivery = false, take = false;
	int opt, ret;

	while ((opt = getopt(argc, argv, "sa:c:p:w:D:rd")) != -1) {
		switch (opt) {
		case 's': break;
		case 'a': addr = optarg; break;
		case 'c': server = optarg; break;
		case 'p': service = optarg; break;
		case 'w': wait_ms = (unsigned)atoi(optarg); break;
		case 'D': delay_ms = (unsigned)atoi(optarg); break;
		case 'r': take = true; break;
		case 'd': delivery = true; break;
		default: return 2;
		}
	}
	if ((!addr == !server) || !service) {
		fprintf(stderr, "usage: fi_one_send -s -a ADDR -p SERVICE "
			"[-w MS] [-D MS] [-r] | -c SERVER -p SERVICE [-d]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = ex_fab_open_msg(&f, "fi_one_send", addr ? addr : server,
			      service, addr != NULL);
	if (ret)
		OS_FAIL("set-up: %s", fi_strerror(-ret));
	ret = addr ? os_target(&f, delay_ms, wait_ms, take) :
		     os_initiator(&f, delivery);
	ex_fab_close(&f);
	return ret;
}
