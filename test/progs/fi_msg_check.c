/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_msg_check: runs the cases (see fi_msg_check.h) on both sides, in
 * lockstep, then checks the counters.
 *
 *   fi_msg_check -s [-a ADDR] [-S SERVICE] [-p PORT] [-U]
 *   fi_msg_check -c SERVER [-S SERVICE] [-p PORT] [-U] [-L]
 * -U: do not ask for FI_ORDER_SAS. -L: the server is an endpoint of this
 * host that uet reaches through a local channel (fi_msg_check_levels.c).
 */
#include <getopt.h>
#include <stdlib.h>

#include "test/progs/fi_msg_check.h"

/* Every send and receive was counted, and nothing else. */
static int t_counters(struct t *t)
{
	struct fid_cntr *sc = t->fab.cntr[T_SCNTR], *rc = t->fab.cntr[T_RCNTR];
	uint64_t s = fi_cntr_read(sc), r = fi_cntr_read(rc);
	uint64_t re = fi_cntr_readerr(rc);

	T_CHECK(s == t->sends_ok && !fi_cntr_readerr(sc),
		"send counter %llu, %llu sends",
		(unsigned long long)s, (unsigned long long)t->sends_ok);
	T_CHECK(r == t->recvs_ok && re == t->recv_errs,
		"receive counter %llu (errors %llu), expected %llu (%llu)",
		(unsigned long long)r, (unsigned long long)re,
		(unsigned long long)t->recvs_ok,
		(unsigned long long)t->recv_errs);
	return 0;
}

static const struct {
	const char *name;
	int (*run)(struct t *t);
} t_cases[] = {
	{ "tagged ping-pong 0 B to 16 MiB", t_case_pingpong },
	{ "iovecs", t_case_iov },
	{ "inject and remote CQ data", t_case_inject_data },
	{ "unexpected messages of all sizes", t_case_unexpected },
	{ "2000 unexpected messages", t_case_flood },
	{ "2000 unexpected injected messages", t_case_flood_inject },
	{ "send-after-send order", t_case_order },
	{ "peek, claim, discard", t_case_peek },
	{ "truncation", t_case_truncate },
	{ "multi-receive buffers", t_case_multi_recv },
	{ "directed receive", t_case_directed },
	{ "cancel", t_case_cancel },
	{ "selective completion", t_case_selective },
	{ "completion levels", t_case_levels },
	{ "counters", t_counters },
};

int main(int argc, char **argv)
{
	const char *server = NULL, *src = NULL, *service = "42";
	struct t t = { .oob.oob_fd = -1 };
	int c, port = 47932, skipped = 0, ret = 1;
	bool sas = true;

	while ((c = getopt(argc, argv, "sc:a:S:p:UL")) != -1) {
		switch (c) {
		case 's': t.server = true; break;
		case 'c': server = optarg; break;
		case 'a': src = optarg; break;
		case 'S': service = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'U': sas = false; break;
		case 'L': t.local = true; break;
		default: goto usage;
		}
	}
	if (t.server == (server != NULL))
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (t_open(&t, t.server ? src : server, service, sas, port))
		goto out;
	for (size_t i = 0; i < sizeof(t_cases) / sizeof(t_cases[0]); i++) {
		if (t_sync(&t))
			goto out;
		c = t_cases[i].run(&t);
		if (c < 0)
			goto out;
		skipped += c;
		if (!c)
			printf("fi_msg_check: %s ok\n", t_cases[i].name);
	}
	if (t_sync(&t))
		goto out;
	printf("fi_msg_check: %s: all ok (%d skipped)\n",
	       t.server ? "server" : "client", skipped);
	ret = 0;
out:
	t_close(&t);
	return ret;
usage:
	fprintf(stderr, "usage: fi_msg_check -s [-a ADDR] [-S SERVICE] "
		"[-p PORT] [-U]\n       fi_msg_check -c SERVER [-S SERVICE] "
		"[-p PORT] [-U] [-L]\n");
	return 2;
}
