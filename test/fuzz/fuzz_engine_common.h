/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the engine fuzzers share (fuzz_engine_common.c): reading the
 * input, the memory an engine may write (an arena with canaries around a
 * registered region and a posted receive), a target engine set up over
 * the fake device layer (fuzz_engine_fakes.c), frames from a few real
 * hosts or forged ones, requests built from the input, and the checks
 * every step ends with.
 */
#ifndef FUZZ_ENGINE_COMMON_H
#define FUZZ_ENGINE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/uet_frame.h"
#include "engine/uet_engine.h"
#include "fuzz_engine_fakes.h"

#define FE_JOB		42
#define FE_RI		5
#define FE_KEY		0x1234
#define FE_ARENA_LEN	16384
#define FE_REGION_OFF	4096
#define FE_REGION_LEN	4096
#define FE_RECV_OFF	10240
#define FE_RECV_LEN	2048
#define FE_CANARY	0x5A
#define FE_HOSTS	6
/* Our address, 10.0.0.1, and the hosts', 10.0.0.16 on. */
#define FE_LOCAL_IP	0x0A000001u
#define FE_HOST_IP	0x0A000010u

struct fe_in {
	const uint8_t *p;
	size_t len, pos;
};

static inline uint8_t fe_u8(struct fe_in *in)
{
	return in->pos < in->len ? in->p[in->pos++] : 0;
}

static inline uint16_t fe_u16(struct fe_in *in)
{
	return (uint16_t)(fe_u8(in) << 8 | fe_u8(in));
}

static inline uint32_t fe_u32(struct fe_in *in)
{
	return (uint32_t)fe_u16(in) << 16 | fe_u16(in);
}

extern uint8_t fe_arena[FE_ARENA_LEN];
extern struct uet_engine *fe_eng;
/* A frame was sent to another MAC than its destination's. */
extern bool fe_bad_l2;
/* Told of every WRE the engine completes, when set. */
extern void (*fe_tx_done_hook)(const struct ses_wre *wre,
			       const struct ses_tx_cpl *cpl);

/*
 * Clears the fake device (then sets |shm| and |keys| in it: NULL for
 * none), refills the arena, and creates the engine of |cfg| (NULL: the
 * defaults) with its region and receive. Aborts when it cannot.
 */
void fe_setup(const struct uet_engine_cfg *cfg, struct uet_dev_shm *shm,
	      const struct uet_tss_sd_keys *keys);
void fe_teardown(void);
/* The configuration fe_setup() takes by default. */
void fe_cfg_default(struct uet_engine_cfg *cfg);

/* The source of a frame from the input: one of the hosts, or forged. */
void fe_source(struct fe_in *in, struct uet_frame_addr *src);
/* Host |i|'s address, at the MAC the neighbour table gives it. */
void fe_host(uint32_t i, struct uet_frame_addr *src);
/* Our address (FE_LOCAL_IP, port 4793) as a frame's destination. */
void fe_local(struct uet_frame_addr *dst);
/*
 * Queues the UDP payload |pay| (|len| bytes) from |src| to |dst| (NULL:
 * us) as one received frame; false when the queue is full or it does not
 * fit.
 */
bool fe_queue(const struct uet_frame_addr *src,
	      const struct uet_frame_addr *dst, const uint8_t *pay,
	      size_t len);
/*
 * A PDS request with an SES standard header for our region, receive or
 * others, built from the input (most fields sensible, some not), into
 * |out|: its length, or 0.
 */
size_t fe_build_req(struct fe_in *in, uint8_t *out, size_t cap);
/* The SES part alone (header and payload), for the local channels. */
size_t fe_build_ses(struct fe_in *in, uint8_t *out, size_t cap);

/*
 * Progress as an application's loop calls it once time passed: enough
 * calls that the engine's idle shortcut (UET_ENGINE_IDLE_POLLS) cannot
 * hide its timers.
 */
void fe_poll(void);

/*
 * After each step: no byte changed outside the region and the receive,
 * state within bounds, no frame to the wrong MAC. Aborts otherwise.
 */
void fe_check(void);

#endif /* FUZZ_ENGINE_COMMON_H */
