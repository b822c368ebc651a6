/* SPDX-License-Identifier: BSD-2-Clause */
/* The fake device layer of the engine fuzzers (fuzz_engine_fakes.c). */
#ifndef FUZZ_ENGINE_FAKES_H
#define FUZZ_ENGINE_FAKES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define FAKE_EP_INDEX	3
#define FAKE_PID	7
#define FAKE_FRAME_MAX	2048
#define FAKE_RX_MAX	64
/* More than the engine holds (its ACKs wait for the kick): each its own. */
#define FAKE_TX_BUFS	128

struct fake_frame {
	uint32_t len;
	uint8_t buf[FAKE_FRAME_MAX];
};

struct uet_dev_shm;
struct uet_tss_sd_keys;

struct fake_dev {
	uint64_t now_ns;
	int ifindex;
	/*
	 * The service's control block (local channels, key reloads) and the
	 * keys of our SD: NULL, none (the engine runs without local
	 * channels, in clear).
	 */
	struct uet_dev_shm *shm;
	const struct uet_tss_sd_keys *tss_keys;
	struct fake_frame rx[FAKE_RX_MAX];
	uint32_t rx_head, rx_cnt;
	uint8_t tx_buf[FAKE_TX_BUFS][FAKE_FRAME_MAX];
	uint32_t tx_next;
	uint64_t tx_frames;
};

extern struct fake_dev fake_dev;

int fake_clock_gettime(clockid_t id, struct timespec *ts);
ssize_t fake_getrandom(void *buf, size_t len, unsigned int flags);

/* Provided by the fuzzer: the neighbour table, and a look at sent frames. */
void fake_neigh_mac(const void *addr, bool is_v6, uint8_t mac[6]);
void fake_tx_seen(const uint8_t *frame, uint32_t len);

#endif /* FUZZ_ENGINE_FAKES_H */
