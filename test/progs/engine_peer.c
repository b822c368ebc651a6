/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The whole transport (AF_XDP engine + PDC + SES) between two namespaces,
 * without libfabric: RMA writes and reads of a registered region.
 *   engine_peer target IFACE LOCAL_IP LEN TIMEOUT_MS READY_FILE DONE_FILE
 *   engine_peer write IFACE LOCAL_IP DST_IP LEN COUNT
 * The target registers LEN bytes (JobID 101, PIDonFEP 2, RI 0x00a, RKEY
 * 0xacce5) and serves until DONE_FILE exists. The initiator writes COUNT
 * messages of LEN bytes, each a different pattern, reads each back and
 * compares; a bad key, a write past the end and a bad RI must fail with
 * their UET return codes. Prints "engine_peer: ..." lines; exit 0 when all
 * held.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "engine/uet_engine.h"

#define PEER_JOB	101
#define PEER_TGT_PID	2
#define PEER_RI		0x00a
#define PEER_RKEY	0xacce5ull

static uint64_t peer_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct peer_wait {
	bool done;
	struct ses_tx_cpl cpl;
	uint64_t rma_bytes;
};

static void peer_tx_done(void *ctx, const struct ses_wre *wre,
			 const struct ses_tx_cpl *cpl)
{
	struct peer_wait *w = ctx;

	(void)wre;
	w->done = true;
	w->cpl = *cpl;
}

/* Bytes placed: WRITEs (served READs are reported too). */
static void peer_rma_done(void *ctx, const struct ses_rma_event *ev)
{
	struct peer_wait *w = ctx;

	if (ev->opcode == UET_SES_OP_WRITE)
		w->rma_bytes += ev->len;
}

static struct uet_engine *peer_engine(const char *ifname, const char *ip,
				      uint16_t pid, struct peer_wait *w)
{
	static const struct uet_engine_ops ops = {
		.tx_done = peer_tx_done, .rma_done = peer_rma_done,
	};
	struct uet_engine_cfg cfg = { .udp_port = 4793, .job_id = PEER_JOB,
				      .pid_on_fep = pid, .initiator = pid };
	struct uet_engine *e;

	snprintf(cfg.ifname, sizeof(cfg.ifname), "%s", ifname);
	if (getenv("ENGINE_PEER_RTO_NS"))
		cfg.rto_init_ns = strtoull(getenv("ENGINE_PEER_RTO_NS"), NULL, 0);
	cfg.local.is_v6 = strchr(ip, ':') != NULL;
	inet_pton(cfg.local.is_v6 ? AF_INET6 : AF_INET, ip, &cfg.local.v6);
	if (!cfg.local.is_v6)
		inet_pton(AF_INET, ip, &cfg.local.v4);
	e = uet_engine_create(&cfg, &ops, w);
	if (!e) {
		fprintf(stderr, "engine_peer: engine on %s: %m\n", ifname);
		exit(1);
	}
	return e;
}

/* With ENGINE_PEER_STATS set: the engine's counters, for debugging. */
static void peer_stats(const struct uet_engine *e, const char *who)
{
	struct uet_engine_stats st;

	if (!getenv("ENGINE_PEER_STATS"))
		return;
	uet_engine_stats_get(e, &st);
	fprintf(stderr, "%s: rx %llu not_uet %llu bad %llu tx %llu no_frame %llu"
		" | pdc tx_req %llu retx %llu ack %llu nack %llu rx_req %llu "
		"dup %llu ack %llu nack %llu bad %llu stale %llu drop %llu "
		"failed %llu | ses rx_req %llu rsp %llu stale %llu\n", who,
		(unsigned long long)st.rx_frames,
		(unsigned long long)st.rx_not_uet,
		(unsigned long long)st.rx_bad,
		(unsigned long long)st.tx_frames,
		(unsigned long long)st.tx_no_frame,
		(unsigned long long)st.pdc.tx_req,
		(unsigned long long)st.pdc.tx_retx,
		(unsigned long long)st.pdc.tx_ack,
		(unsigned long long)st.pdc.tx_nack,
		(unsigned long long)st.pdc.rx_req,
		(unsigned long long)st.pdc.rx_dup,
		(unsigned long long)st.pdc.rx_ack,
		(unsigned long long)st.pdc.rx_nack,
		(unsigned long long)st.pdc.rx_bad,
		(unsigned long long)st.pdc.rx_stale,
		(unsigned long long)st.pdc.rx_dropped,
		(unsigned long long)st.pdc.pdc_failed,
		(unsigned long long)st.ses.rx_reqs,
		(unsigned long long)st.ses.rx_rsps,
		(unsigned long long)st.ses.rx_stale_rsps);
}

static int peer_target(char **argv)
{
	struct peer_wait w = { 0 };
	struct uet_engine *e = peer_engine(argv[2], argv[3], PEER_TGT_PID, &w);
	struct ses_ri_id id = { PEER_JOB, PEER_TGT_PID, PEER_RI };
	size_t len = strtoul(argv[4], NULL, 0);
	uint64_t end = strtoull(argv[5], NULL, 0) * 1000000ull;
	uint8_t *buf = calloc(1, len);
	FILE *f;
	int ret;

	end += peer_now_ns();
	ret = ses_ri_add(uet_engine_ses(e), &id, 0);
	if (ret == 0)
		ret = ses_mr_add(uet_engine_ses(e), &id, PEER_RKEY, buf, len,
				 SES_ACCESS_REMOTE_WRITE |
				 SES_ACCESS_REMOTE_READ);
	if (ret < 0) {
		fprintf(stderr, "engine_peer: register: %s\n", strerror(-ret));
		return 1;
	}
	f = fopen(argv[6], "w");
	if (f)
		fclose(f);
	while (access(argv[7], F_OK) != 0 &&
	       peer_now_ns() < end)
		uet_engine_progress(e);
	peer_stats(e, "target");
	printf("engine_peer: target placed %llu bytes (payload MTU %u)\n",
	       (unsigned long long)w.rma_bytes, uet_engine_payload_mtu(e));
	uet_engine_destroy(e);
	free(buf);
	return 0;
}

/* Runs |wre| to its end (or 20 s); returns its completion. */
static struct ses_tx_cpl peer_run(struct uet_engine *e, struct peer_wait *w,
				  const struct ses_wre *wre)
{
	uint64_t end = peer_now_ns() + 20000000000ull;
	int ret;

	w->done = false;
	while ((ret = uet_engine_post(e, wre)) == -EAGAIN)
		uet_engine_progress(e);
	if (ret < 0) {
		w->cpl.status = ret;
		return w->cpl;
	}
	while (!w->done && peer_now_ns() < end)
		uet_engine_progress(e);
	if (!w->done)
		w->cpl.status = -ETIMEDOUT;
	return w->cpl;
}

/* Runs |wre|, which must fail with UET code |rc|; 1 when it did not. */
static int peer_expect(struct uet_engine *e, struct peer_wait *w,
		       const struct ses_wre *wre, uint8_t rc)
{
	struct ses_tx_cpl c = peer_run(e, w, wre);

	if (c.status == -EREMOTEIO && c.rc == rc)
		return 0;
	fprintf(stderr, "engine_peer: want rc %#x, got status %d rc %#x\n",
		rc, c.status, c.rc);
	return 1;
}

static int peer_write(char **argv)
{
	struct peer_wait w = { 0 };
	struct uet_engine *e = peer_engine(argv[2], argv[3], 1, &w);
	size_t len = strtoul(argv[5], NULL, 0);
	int count = atoi(argv[6]), bad = 0, peer;
	uint8_t *src = malloc(len), *back = malloc(len);
	struct ses_addr dst = { .job_id = PEER_JOB, .pid_on_fep = PEER_TGT_PID };
	struct ses_iov iov = { .len = len };
	struct ses_wre wre = { .dst = &dst, .ri = PEER_RI, .iov = &iov,
			       .iov_cnt = 1, .mkey = PEER_RKEY };
	struct uet_fa fa = { .is_v6 = strchr(argv[4], ':') != NULL };
	struct ses_tx_cpl c;

	inet_pton(fa.is_v6 ? AF_INET6 : AF_INET, argv[4], &fa.v6);
	if (!fa.is_v6)
		inet_pton(AF_INET, argv[4], &fa.v4);
	peer = uet_engine_peer_get(e, &fa, PEER_TGT_PID, 5000);
	if (peer < 0) {
		fprintf(stderr, "engine_peer: peer: %s\n", strerror(-peer));
		return 1;
	}
	dst.peer = (uint32_t)peer;
	for (int i = 0; i < count; i++) {
		for (size_t j = 0; j < len; j++)
			src[j] = (uint8_t)(i * 13 + j * 7 + (j >> 9));
		wre.opcode = UET_SES_OP_WRITE;
		iov.base = src;
		c = peer_run(e, &w, &wre);
		if (c.status || c.rc != UET_SES_RC_OK || c.modified_len != len)
			bad++, fprintf(stderr, "write %d: status %d rc %u\n", i,
				       c.status, c.rc);
		memset(back, 0, len);
		wre.opcode = UET_SES_OP_READ;
		iov.base = back;
		c = peer_run(e, &w, &wre);
		if (c.status || memcmp(src, back, len))
			bad++, fprintf(stderr, "read %d: status %d rc %u\n", i,
				       c.status, c.rc);
	}
	/* Errors come back as completions with the target's code. */
	wre.opcode = UET_SES_OP_WRITE;
	iov.base = src;
	wre.mkey = PEER_RKEY + 1;
	bad += peer_expect(e, &w, &wre, UET_SES_RC_BAD_MKEY);
	wre.mkey = PEER_RKEY;
	wre.remote_offset = 1;
	bad += peer_expect(e, &w, &wre, UET_SES_RC_BAD_ADDR);
	wre.remote_offset = 0;
	wre.ri = PEER_RI + 1;
	bad += peer_expect(e, &w, &wre, UET_SES_RC_BAD_INDEX);
	peer_stats(e, "initiator");
	printf("engine_peer: %d writes and reads of %zu bytes, %d bad\n",
	       count, len, bad);
	uet_engine_destroy(e);
	free(src);
	free(back);
	return bad ? 1 : 0;
}

static int peer_quiet(enum libbpf_print_level l, const char *f, va_list ap)
{
	return l == LIBBPF_WARN ? vfprintf(stderr, f, ap) : 0;
}

int main(int argc, char **argv)
{
	libbpf_set_print(peer_quiet);
	if (argc == 8 && !strcmp(argv[1], "target"))
		return peer_target(argv);
	if (argc == 7 && !strcmp(argv[1], "write"))
		return peer_write(argv);
	fprintf(stderr, "usage: engine_peer target IFACE IP LEN TIMEOUT_MS "
		"READY DONE\n       engine_peer write IFACE IP DST LEN COUNT\n");
	return 2;
}
