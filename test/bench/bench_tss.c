// SPDX-License-Identifier: BSD-2-Clause
/*
 * TSS cost per packet: a sealing endpoint's uet_tss_ep_seal and a
 * receiving endpoint's uet_tss_ep_open of one packet (cluster mode, IPv4,
 * SSI), against the bare AEAD call they make (uet_tss_seal: ipsec-mb's
 * AES-256-GCM) on the same size (IV, text, tag: one direction), against
 * OpenSSL's EVP AES-256-GCM in this process, and against what `openssl
 * speed -evp aes-256-gcm` reports when the program is there. The target:
 * seal + open within 1.2 times two bare encryptions. Medians of B_RUNS
 * runs, printed as `bench: NAME VALUE UNIT` lines. With -a, only the bare
 * AEAD's MB/s at 8192 bytes (bench_tss_rma.sh's B_aes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <openssl/evp.h>

#include "tss/uet_tss_ep.h"

#include "test/bench/bench_stats.h"

#define B_RUNS		5
#define B_RUN_BYTES	(48u << 20)	/* plaintext per run */
#define B_MAX		8192

static void die(const char *what)
{
	fprintf(stderr, "bench_tss: %s\n", what);
	exit(1);
}

/* ns per packet of seal + open of |len| bytes. */
static double path_ns(size_t len)
{
	static uint8_t buf[B_MAX + UET_TSS_OVERHEAD], out[sizeof(buf)];
	struct uet_tss_src sa = { .addr = { 10, 0, 0, 1 } };
	struct uet_tss_src sb = { .addr = { 10, 0, 0, 2 } };
	struct uet_tss_sd_keys k = { .sdi = 7, .mode = UET_TSS_CLUSTER,
				     .have = 1, .use_ssi = 1, .ssi = 42 };
	struct uet_tss_pkt p = { .saddr = sa.addr, .daddr = sb.addr,
				 .sport = 49152, .dport = 4793 };
	size_t n = B_RUN_BYTES / len, hl, i;
	struct uet_tss_ep *a, *b;
	double t[B_RUNS], t0;
	ssize_t m;
	int r;

	memset(k.key[0], 0x5c, sizeof(k.key[0]));
	a = uet_tss_ep_new(&k, &sa);
	k.ssi = 43;
	b = uet_tss_ep_new(&k, &sb);
	if (!a || !b)
		die("uet_tss_ep_new");
	hl = uet_tss_ep_hdr_len(a);
	memset(buf, 0xa7, sizeof(buf));
	for (r = 0; r < B_RUNS; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			m = uet_tss_ep_seal(a, &p, buf, len);
			if (m != (ssize_t)(hl + len + UET_TSS_ICV_LEN))
				die("seal");
			if (uet_tss_ep_open(b, &p, buf, (size_t)m, out) !=
			    (ssize_t)len)
				die("open");
		}
		t[r] = (now_ns() - t0) / (double)n;
	}
	uet_tss_ep_free(a);
	uet_tss_ep_free(b);
	return median(t, B_RUNS);
}

/* ns per packet of the bare AEAD (uet_tss_seal) of |len| bytes. */
static double aead_ns(size_t len)
{
	static uint8_t in[B_MAX], out[B_MAX];
	uint8_t key[32], iv[UET_TSS_IV_LEN] = { 0 }, aad[24] = { 0 }, tag[16];
	size_t n = B_RUN_BYTES / len, i;
	struct uet_tss_aead *a;
	double t[B_RUNS], t0;
	int r;

	memset(key, 0x3c, sizeof(key));
	a = uet_tss_aead_new(key);
	if (!a)
		die("uet_tss_aead_new");
	for (r = 0; r < B_RUNS; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			iv[11] = (uint8_t)i;
			if (uet_tss_seal(a, iv, aad, sizeof(aad), out, in, len,
					 tag))
				die("uet_tss_seal");
		}
		t[r] = (now_ns() - t0) / (double)n;
	}
	uet_tss_aead_free(a);
	return median(t, B_RUNS);
}

/* ns per packet of raw EVP AES-256-GCM encryption of |len| bytes. */
static double evp_ns(size_t len)
{
	static uint8_t in[B_MAX], out[B_MAX];
	uint8_t key[32], iv[12] = { 0 }, tag[16];
	size_t n = B_RUN_BYTES / len, i;
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	double t[B_RUNS], t0;
	int r, ol;

	memset(key, 0x3c, sizeof(key));
	if (!c || !EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, key, iv))
		die("EVP_EncryptInit_ex");
	for (r = 0; r < B_RUNS; r++) {
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			iv[11] = (uint8_t)i;
			if (!EVP_EncryptInit_ex(c, NULL, NULL, NULL, iv) ||
			    !EVP_EncryptUpdate(c, out, &ol, in, (int)len) ||
			    !EVP_EncryptFinal_ex(c, out, &ol) ||
			    !EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16,
						 tag))
				die("EVP encrypt");
		}
		t[r] = (now_ns() - t0) / (double)n;
	}
	EVP_CIPHER_CTX_free(c);
	return median(t, B_RUNS);
}

/* `openssl speed`'s 8192-byte figure in GB/s, or 0 without it. */
static double openssl_speed_gbps(void)
{
	FILE *f = popen("openssl speed -evp aes-256-gcm -bytes 8192 "
			"-seconds 1 2>/dev/null", "r");
	char line[512], name[64];
	double kbs, v = 0;

	if (!f)
		return 0;
	/* The last line: the cipher's name, then 1000s of bytes/s + "k". */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lfk", name, &kbs) == 2 &&
		    !strcasecmp(name, "AES-256-GCM"))
			v = kbs * 1e3 / 1e9;
	pclose(f);
	return v;
}

int main(int argc, char **argv)
{
	static const struct { size_t len; const char *tag; } sz[] = {
		{ 8192, "8k" }, { 1024, "1k" }, { 64, "64" },
	};
	double ours, bare, raw, gbps, ratio8k = 0;
	unsigned int i;

	if (argc == 2 && !strcmp(argv[1], "-a")) {
		printf("%.0f\n", 8192 / aead_ns(8192) * 1e3);
		return 0;
	}
	for (i = 0; i < sizeof(sz) / sizeof(sz[0]); i++) {
		ours = path_ns(sz[i].len);
		bare = aead_ns(sz[i].len);
		raw = evp_ns(sz[i].len);
		printf("bench: tss_seal_open_%s_ns %.0f ns\n", sz[i].tag, ours);
		printf("bench: tss_aead_gcm_%s_gbps %.2f GB/s\n", sz[i].tag,
		       sz[i].len / bare);
		printf("bench: tss_path_vs_aead_%s %.3f ratio\n", sz[i].tag,
		       ours / (2 * bare));
		printf("bench: tss_evp_gcm_%s_gbps %.2f GB/s\n", sz[i].tag,
		       sz[i].len / raw);
		printf("bench: tss_path_vs_evp_%s %.3f ratio\n", sz[i].tag,
		       ours / (2 * raw));
		if (sz[i].len == 8192)
			ratio8k = ours;
		fflush(stdout);
	}
	gbps = openssl_speed_gbps();
	if (gbps > 0) {
		printf("bench: openssl_speed_gcm_8k_gbps %.2f GB/s\n", gbps);
		printf("bench: tss_path_vs_openssl_8k %.3f ratio\n",
		       ratio8k / (2 * 8192 / gbps));
	}
	return 0;
}
