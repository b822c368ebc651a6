/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uet_bw: RMA write bandwidth. The client keeps up to 64 fi_write()s of
 * SIZE bytes in flight into the server's buffer, ITERS in all, and reports
 * bytes and messages per second. Plain libfabric: any RMA-capable provider.
 * A timed run (-T START, or -T @FILE: the time FILE will hold) reads a
 * byte before it waits (a provider may connect on the first operation:
 * tcp's rxm does), starts at that wall-clock time, so that several
 * clients start together, ends once the data is in (a read after the
 * writes), and prints its start and end as wall-clock times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fi_errno.h>

#include "examples/ex_common.h"

#define BW_WINDOW	64

static const char *usage =
	"usage: uet_bw -s [-a ADDR] [-S SERVICE] [-p PORT] [-n BYTES] [-w]\n"
	"       uet_bw -c SERVER [-S SERVICE] [-p PORT] [-n BYTES] "
	"[-i ITERS] [-T START|@FILE] [-w]\n"
	"  -w: wait for completions (fi_cq_sread), do not spin\n";

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * One byte read back from the server's buffer, to its completion: a
 * write's completion may only say that the provider took the data (tcp:
 * into its socket); the read's answer comes after every write before it.
 */
static int bw_read_back(struct ex_ctx *c, const struct ex_peer_info *r)
{
	struct fi_cq_data_entry e;
	ssize_t ret;

	do {
		ret = fi_read(c->fab.ep, c->buf, 1, c->desc, c->peer, r->addr,
			      r->key, NULL);
		if (ret == -FI_EAGAIN)
			fi_cq_read(c->fab.cq, NULL, 0);
	} while (ret == -FI_EAGAIN);
	if (ret) {
		fprintf(stderr, "fi_read: %s\n", fi_strerror((int)-ret));
		return -1;
	}
	return ex_wait_cq(c, &e);
}

static int bw_client(struct ex_ctx *c, const struct ex_opts *o,
		     const struct ex_peer_info *r)
{
	struct fi_cq_data_entry e[16];
	long posted = 0, done = 0;
	double wall0;
	uint64_t t0, ns;
	ssize_t ret;

	if (ex_is_timed(o) &&
	    (bw_read_back(c, r) || ex_start_wait(o, "uet_bw")))
		return -1;
	wall0 = ex_wall_now();
	t0 = now_ns();
	while (done < o->iters) {
		bool more;	/* room to post another write */

		while (posted < o->iters && posted - done < BW_WINDOW) {
			ret = fi_write(c->fab.ep, c->buf, o->size, c->desc,
				       c->peer, r->addr, r->key, NULL);
			if (ret == -FI_EAGAIN)
				break;
			if (ret) {
				fprintf(stderr, "fi_write: %s\n",
					fi_strerror((int)-ret));
				return -1;
			}
			posted++;
		}
		more = posted < o->iters && posted - done < BW_WINDOW &&
		       ret != -FI_EAGAIN;
		/* -w: nothing more to post until a write completes: sleep on
		 * the CQ (1 s at most, then look again). */
		ret = c->wait && !more ?
		      fi_cq_sread(c->fab.cq, e, 16, NULL, 1000) :
		      fi_cq_read(c->fab.cq, e, 16);
		if (ret > 0)
			done += ret;
		else if (ret != -FI_EAGAIN && ex_wait_cq(c, e))
			return -1;
	}
	if (ex_is_timed(o) && bw_read_back(c, r))
		return -1;
	ns = now_ns() - t0;
	if (ex_is_timed(o))
		printf("uet_bw: start %.6f end %.6f\n", wall0,
		       wall0 + ns / 1e9);
	printf("uet_bw: %zu bytes x %ld: %.1f MB/s, %.0f msg/s (%s)\n",
	       o->size, o->iters, (double)o->size * o->iters * 1e3 / ns,
	       o->iters * 1e9 / ns, c->fab.info->fabric_attr->prov_name);
	return 0;
}

int main(int argc, char **argv)
{
	struct ex_peer_info remote;
	struct ex_opts o;
	struct ex_ctx c;
	uint8_t done = 1;
	int ret = ex_parse(argc, argv, &o, usage);

	if (ret)
		return ret > 0 ? 0 : 2;
	if (ex_setup(&c, &o, o.size) || ex_exchange(&c, &o, &remote))
		goto fail;
	if (o.server ? ex_oob_recv(&c, &done, 1) :
		       bw_client(&c, &o, &remote) ||
		       ex_oob_send(&c, &done, 1))
		goto fail;
	ex_teardown(&c);
	return 0;
fail:
	ex_teardown(&c);
	return 1;
}
