/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uet_write: the server registers a buffer and publishes its address and
 * key on a TCP side channel; the client fi_write()s N bytes into it
 * (fi_writedata() with -d: remote CQ data 12, the seed's bucket id) and the
 * server checks them by checksum. Plain libfabric: runs with any provider
 * that does RMA over RDM endpoints (FI_PROVIDER=uet, tcp, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

#define EX_BUCKET_ID	12

static const char *usage =
	"usage: uet_write -s [-a ADDR] [-S SERVICE] [-p PORT] [-n BYTES] [-d]\n"
	"       uet_write -c SERVER [-S SERVICE] [-p PORT] [-n BYTES] [-d] "
	"[-i ITERS] [-K]\n"
	"  -K: write with a wrong key; the error completion is the result\n";

struct ex_result {
	uint64_t checksum;
	uint64_t len;
};

static int server(struct ex_ctx *c, const struct ex_opts *o)
{
	struct ex_peer_info remote;
	struct ex_result want;
	struct fi_cq_data_entry e;
	uint8_t verdict = 1;
	uint64_t got;

	if (ex_exchange(c, o, &remote) || ex_oob_recv(c, &want, sizeof(want)))
		return 1;
	if (o->cq_data) {
		if (ex_wait_cq(c, &e))
			return 1;
		if (!(e.flags & FI_REMOTE_CQ_DATA) || e.data != EX_BUCKET_ID) {
			fprintf(stderr, "uet_write: remote CQ data %#llx flags "
				"%#llx\n", (unsigned long long)e.data,
				(unsigned long long)e.flags);
			verdict = 0;
		}
	}
	got = ex_checksum(c->buf, want.len);
	if (got != want.checksum)
		verdict = 0;
	printf("uet_write: server: %llu bytes, checksum %s%s\n",
	       (unsigned long long)want.len, got == want.checksum ? "ok" : "BAD",
	       o->cq_data ? (verdict ? ", remote CQ data 12 ok" : ", BAD") : "");
	ex_oob_send(c, &verdict, 1);
	return verdict ? 0 : 1;
}

static int client(struct ex_ctx *c, const struct ex_opts *o)
{
	struct ex_peer_info remote;
	struct fi_cq_data_entry e;
	struct ex_result res = { .len = o->size };
	uint8_t *buf = c->buf, verdict = 0;
	ssize_t ret;

	if (ex_exchange(c, o, &remote))
		return 1;
	if (remote.len < o->size) {
		fprintf(stderr, "uet_write: server buffer too small\n");
		return 1;
	}
	if (o->bad_key)
		remote.key ^= 0x5a5a;
	for (long it = 0; it < o->iters; it++) {
		for (size_t i = 0; i < o->size; i++)
			buf[i] = (uint8_t)(it * 31 + i * 7 + (i >> 8));
		do {
			ret = o->cq_data && it == o->iters - 1 ?
				fi_writedata(c->fab.ep, buf, o->size, c->desc,
					     EX_BUCKET_ID, c->peer, remote.addr,
					     remote.key, NULL) :
				fi_write(c->fab.ep, buf, o->size, c->desc,
					 c->peer, remote.addr, remote.key,
					 NULL);
			if (ret == -FI_EAGAIN)
				fi_cq_read(c->fab.cq, NULL, 0);
		} while (ret == -FI_EAGAIN);
		if (ret) {
			fprintf(stderr, "fi_write: %s\n", fi_strerror((int)-ret));
			return 1;
		}
		if (ex_wait_cq(c, &e))
			return 1;
	}
	res.checksum = ex_checksum(buf, o->size);
	if (ex_oob_send(c, &res, sizeof(res)) || ex_oob_recv(c, &verdict, 1))
		return 1;
	printf("uet_write: client: wrote %zu bytes x %ld, server says %s\n",
	       o->size, o->iters, verdict ? "ok" : "BAD");
	return verdict ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct ex_opts o;
	struct ex_ctx c;
	int ret = ex_parse(argc, argv, &o, usage);

	if (ret)
		return ret > 0 ? 0 : 2;
	if (ex_setup(&c, &o, o.size)) {
		ex_teardown(&c);
		return 1;
	}
	ret = o.server ? server(&c, &o) : client(&c, &o);
	ex_teardown(&c);
	return ret;
}
