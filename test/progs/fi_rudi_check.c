/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fi_rudi_check: RMA through RUDI (issue 39; fi_uet(7) "RUDI"). The server
 * exposes region I, registered FI_UET_MR_IDEMPOTENT and filled with a
 * known pattern, and region P, registered plainly, with another. The
 * client reads all of I in reads of up to -r bytes and checks every byte,
 * overwrites all of I with a new pattern in writes of many sizes (one byte
 * to 1 MiB, several packets each), reads it back and checks every byte.
 * With -H it then misbehaves as a hostile peer would, setting the
 * idempotent-safe key bit itself: a write and a read to region P, and a
 * write under a key no region has; each must end in an error completion
 * carrying the UET return code (RC_OP_VIOLATION, RC_BAD_MKEY). At the end
 * the server checks that I holds the new pattern and P its own, untouched.
 * With -X the server's frames are being dropped: the client's first read
 * must fail with FI_ETIMEDOUT once the retries run out (it says when), and
 * nothing else is tried.
 * Whether RUDI carried it all is for the caller to see in the counters
 * (FI_UET_STATS=1).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_errno.h>
#include <rdma/fi_ext_uet.h>

#include "examples/ex_common.h"
#include "uet_wire.h"

#define RC_I_LEN	(1024 * 1024)	/* region I */
#define RC_P_LEN	(64 * 1024)	/* region P; the client's own */
#define RC_SEED_I	0x6a09e667f3bcc908ull
#define RC_SEED_NEW	0x3c6ef372fe94f82bull
#define RC_SEED_P	0xa54ff53a5f1d36f1ull

struct rc_region {
	uint64_t addr, key, len;
};

struct rc_client {
	struct ex_ctx c;
	uint8_t *buf;		/* RC_I_LEN: what we write and read back */
	struct fid_mr *mr;
	struct ex_peer_info p;	/* region P */
	struct rc_region i;	/* region I */
	size_t read_max;
	int failed;
};

static void rc_pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
}

/* One operation to its end: 0, an error completion's entry (1), or -1. */
static int rc_op(struct rc_client *cl, bool read, size_t off, size_t len,
		 uint64_t raddr, uint64_t key, struct fi_cq_err_entry *err)
{
	struct fi_cq_data_entry e;
	void *desc = fi_mr_desc(cl->mr);
	ssize_t n;

	do {
		n = read ? fi_read(cl->c.fab.ep, cl->buf + off, len, desc,
				   cl->c.peer, raddr, key, cl) :
			   fi_write(cl->c.fab.ep, cl->buf + off, len, desc,
				    cl->c.peer, raddr, key, cl);
		if (n == -FI_EAGAIN)
			(void)fi_cq_read(cl->c.fab.cq, NULL, 0);
	} while (n == -FI_EAGAIN);
	if (n) {
		fprintf(stderr, "fi_rudi_check: post: %s\n",
			fi_strerror((int)-n));
		return -1;
	}
	do {
		n = fi_cq_read(cl->c.fab.cq, &e, 1);
	} while (n == -FI_EAGAIN);
	if (n == 1)
		return 0;
	if (n == -FI_EAVAIL && fi_cq_readerr(cl->c.fab.cq, err, 0) == 1)
		return 1;
	fprintf(stderr, "fi_rudi_check: fi_cq_read: %s\n",
		fi_strerror((int)-n));
	return -1;
}

static int rc_op_ok(struct rc_client *cl, bool read, size_t off, size_t len,
		    uint64_t raddr, uint64_t key)
{
	struct fi_cq_err_entry err = { 0 };
	int ret = rc_op(cl, read, off, len, raddr, key, &err);

	if (ret == 1)
		fprintf(stderr, "fi_rudi_check: %s of %zu B at %zu: %s "
			"(prov_errno %#x)\n", read ? "read" : "write", len, off,
			fi_strerror(err.err), err.prov_errno);
	return ret ? -1 : 0;
}

/* Reads all of I into buf and checks it against |seed|'s pattern. */
static int rc_read_all(struct rc_client *cl, uint64_t seed, const char *what)
{
	uint8_t *want = malloc(RC_I_LEN);
	size_t off = 0, n, reads = 0;
	struct timespec t0, t1;
	double us;
	int ret = 0;

	if (!want)
		return -1;
	rc_pattern(want, RC_I_LEN, seed);
	memset(cl->buf, 0, RC_I_LEN);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* A few odd sizes first, then the largest to the end. */
	for (size_t k = 0; off < RC_I_LEN && !ret; k++, reads++) {
		static const size_t odd[] = { 1, 7, 100, 1000, 3 };

		n = k < 5 ? odd[k] : cl->read_max;
		if (n > RC_I_LEN - off)
			n = RC_I_LEN - off;
		ret = rc_op_ok(cl, true, off, n, cl->i.addr + off, cl->i.key);
		off += n;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	us = (double)(t1.tv_sec - t0.tv_sec) * 1e6 +
	     (double)(t1.tv_nsec - t0.tv_nsec) / 1e3;
	for (size_t b = 0; !ret && b < RC_I_LEN; b++) {
		if (cl->buf[b] != want[b]) {
			printf("fi_rudi_check: %s: byte %zu is %#x, not %#x\n",
			       what, b, cl->buf[b], want[b]);
			ret = -1;
		}
	}
	free(want);
	if (!ret)
		printf("fi_rudi_check: %s: %zu reads of up to %zu B, one at a "
		       "time, %.1f us each, every byte ok\n", what, reads,
		       cl->read_max, us / (double)reads);
	return ret;
}

/* Overwrites all of I with the new pattern, in writes of many sizes. */
static int rc_write_all(struct rc_client *cl)
{
	static const size_t sizes[] = { 1, 63, 1024, 4096, 8192, 9000, 65536,
					262144 };
	size_t off = 0, n, writes = 0;

	rc_pattern(cl->buf, RC_I_LEN, RC_SEED_NEW);
	for (size_t k = 0; off < RC_I_LEN; k++, writes++) {
		n = sizes[k % (sizeof(sizes) / sizeof(sizes[0]))];
		if (n > RC_I_LEN - off)
			n = RC_I_LEN - off;
		if (rc_op_ok(cl, false, off, n, cl->i.addr + off, cl->i.key))
			return -1;
		off += n;
	}
	/* The whole region again in one write: 1 MiB, many packets. */
	if (rc_op_ok(cl, false, 0, RC_I_LEN, cl->i.addr, cl->i.key))
		return -1;
	printf("fi_rudi_check: wrote all of region I in %zu writes of 1 B to "
	       "256 KiB and once in one 1 MiB write ok\n", writes);
	return 0;
}

/* A hostile operation: an error completion with |rc| in prov_errno. */
static int rc_refused(struct rc_client *cl, bool read, uint64_t raddr,
		      uint64_t key, int rc, const char *what)
{
	struct fi_cq_err_entry err = { 0 };
	int ret = rc_op(cl, read, 0, 256, raddr, key, &err);

	if (ret != 1 || err.prov_errno != rc) {
		printf("fi_rudi_check: %s: %s (prov_errno %#x, want %#x)\n",
		       what, ret ? fi_strerror(err.err) : "completed",
		       err.prov_errno, rc);
		return -1;
	}
	printf("fi_rudi_check: %s: error completion %s, prov_errno %#x ok\n",
	       what, fi_strerror(err.err), err.prov_errno);
	return 0;
}

static int rc_hostile(struct rc_client *cl)
{
	uint64_t pkey = cl->p.key | UET_MKEY_IDEMPOTENT_SAFE;

	return rc_refused(cl, false, cl->p.addr, pkey,
			  UET_SES_RC_OP_VIOLATION,
			  "write to a region not idempotent-safe") ||
	       rc_refused(cl, true, cl->p.addr, pkey, UET_SES_RC_OP_VIOLATION,
			  "read of a region not idempotent-safe") ||
	       rc_refused(cl, false, cl->i.addr,
			  (cl->i.key ^ 0x5a5a) | UET_MKEY_IDEMPOTENT_SAFE,
			  UET_SES_RC_BAD_MKEY, "write with a wrong key");
}

/* -X: a read nobody answers fails with FI_ETIMEDOUT. */
static int rc_timeout(struct rc_client *cl)
{
	struct fi_cq_err_entry err = { 0 };
	struct timespec t0, t1;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = rc_op(cl, true, 0, 4096, cl->i.addr, cl->i.key, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret != 1 || err.err != FI_ETIMEDOUT) {
		printf("fi_rudi_check: unanswered read: %s\n",
		       ret ? fi_strerror(err.err) : "completed");
		return -1;
	}
	printf("fi_rudi_check: unanswered read: error completion %s after "
	       "%ld ms ok\n", fi_strerror(err.err),
	       (long)((t1.tv_sec - t0.tv_sec) * 1000 +
		      (t1.tv_nsec - t0.tv_nsec) / 1000000));
	return 0;
}

static int rc_client(struct ex_opts *o, size_t read_max, bool hostile,
		     bool timeout)
{
	struct rc_client cl = { .read_max = read_max };
	void *buf;
	char verdict = 0;
	int ret;

	if (ex_setup(&cl.c, o, RC_P_LEN) ||
	    ex_mr_reg(&cl.c.fab, RC_I_LEN, 2, &buf, &cl.mr) ||
	    ex_exchange(&cl.c, o, &cl.p) ||
	    ex_oob_recv(&cl.c, &cl.i, sizeof(cl.i)))
		return 1;
	cl.buf = buf;
	printf("fi_rudi_check: region I %" PRIu64 " B key %#" PRIx64
	       ", region P key %#" PRIx64 "\n", cl.i.len, cl.i.key, cl.p.key);
	if (timeout) {
		ret = rc_timeout(&cl);
		verdict = 't';
		ex_oob_send(&cl.c, &verdict, 1);
		goto out;
	}
	ret = rc_read_all(&cl, RC_SEED_I, "read region I") ||
	      rc_write_all(&cl) ||
	      rc_read_all(&cl, RC_SEED_NEW, "read back region I") ||
	      (hostile && rc_hostile(&cl));
	if (ex_oob_send(&cl.c, &verdict, 1) ||
	    ex_oob_recv(&cl.c, &verdict, 1))
		ret = -1;
out:
	fi_close(&cl.mr->fid);
	free(buf);
	ex_teardown(&cl.c);
	return ret || (verdict != 'y' && verdict != 't');
}

static int rc_server(struct ex_opts *o)
{
	struct ex_ctx c = { 0 };
	struct ex_peer_info peer;
	struct rc_region i = { .len = RC_I_LEN };
	struct fid_mr *mr;
	uint8_t *mem, *want;
	char verdict;
	bool good = false;

	/* c.buf is region P; region I is registered idempotent-safe. */
	if (ex_setup(&c, o, RC_P_LEN) || posix_memalign((void **)&mem, 4096,
							RC_I_LEN))
		return 1;
	want = malloc(RC_I_LEN);
	if (!want)
		return 1;
	rc_pattern(c.buf, RC_P_LEN, RC_SEED_P);
	rc_pattern(mem, RC_I_LEN, RC_SEED_I);
	if (fi_mr_reg(c.fab.domain, mem, RC_I_LEN, FI_REMOTE_READ |
		      FI_REMOTE_WRITE, 0, 1, FI_UET_MR_IDEMPOTENT, &mr,
		      NULL)) {
		fprintf(stderr,
			"fi_rudi_check: FI_UET_MR_IDEMPOTENT refused\n");
		return 1;
	}
	if ((c.fab.info->domain_attr->mr_mode & FI_MR_ENDPOINT) &&
	    (fi_mr_bind(mr, &c.fab.ep->fid, 0) || fi_mr_enable(mr)))
		return 1;
	i.key = fi_mr_key(mr);
	if (c.fab.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR)
		i.addr = (uint64_t)(uintptr_t)mem;
	printf("fi_rudi_check: server ready, key %#" PRIx64 "%s\n", i.key,
	       i.key & UET_MKEY_IDEMPOTENT_SAFE ? " (idempotent-safe)" : "");
	if (ex_exchange(&c, o, &peer) || ex_oob_send(&c, &i, sizeof(i)) ||
	    ex_oob_recv(&c, &verdict, 1))
		return 1;
	if (verdict == 't') {	/* -X: nothing reached us */
		printf("fi_rudi_check: server: client timed out\n");
		goto out;
	}
	rc_pattern(want, RC_I_LEN, RC_SEED_NEW);
	good = !memcmp(mem, want, RC_I_LEN);
	rc_pattern(want, RC_P_LEN, RC_SEED_P);
	good = good && !memcmp(c.buf, want, RC_P_LEN);
	verdict = good ? 'y' : 'n';
	printf("fi_rudi_check: server: region I holds what was written, "
	       "region P untouched%s\n", good ? " ok" : ": NO");
	ex_oob_send(&c, &verdict, 1);
out:
	fi_close(&mr->fid);
	free(mem);
	free(want);
	ex_teardown(&c);
	return verdict == 't' ? 0 : !good;
}

int main(int argc, char **argv)
{
	struct ex_opts o = { .service = "42", .oob_port = 47932, .size = 1,
			     .iters = 1 };
	size_t read_max = 1024;
	bool hostile = false, timeout = false;
	int ch;

	while ((ch = getopt(argc, argv, "sc:a:S:p:r:HXT:")) != -1) {
		switch (ch) {
		case 's': o.server = true; break;
		case 'c': o.dst = optarg; break;
		case 'a': o.src = optarg; break;
		case 'S': o.service = optarg; break;
		case 'p': o.oob_port = atoi(optarg); break;
		case 'r': read_max = strtoul(optarg, NULL, 0); break;
		case 'H': hostile = true; break;
		case 'X': timeout = true; break;
		case 'T': ex_time_limit("fi_rudi_check", atoi(optarg)); break;
		default:
			fprintf(stderr, "usage: fi_rudi_check -s [-a ADDR] | "
				"-c SERVER [-r READ_MAX] [-H] [-X] [-S SERVICE] "
				"[-p PORT] [-T SEC]\n");
			return 2;
		}
	}
	if (o.server == (o.dst != NULL) || !read_max)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return o.server ? rc_server(&o) :
			  rc_client(&o, read_max, hostile, timeout);
}
