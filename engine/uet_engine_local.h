/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's local channels (engine/uet_lch.h): SES packets to and
 * from endpoints of our interface and namespace, run by the same user,
 * through shared memory. Private to the engine.
 */
#ifndef UET_ENGINE_LOCAL_H
#define UET_ENGINE_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/uet_engine_priv.h"

/*
 * Makes our inbox and publishes it in our slot of the control block;
 * without it (cfg.local_off, or no memfd) peers use frames. 0 or -errno.
 */
int uet_engine_local_setup(struct uet_engine *e);
void uet_engine_local_destroy(struct uet_engine *e);

/*
 * Whether |peer|'s packets go through a local channel; decided at its
 * first packet: a PIDonFEP peer at our own address whose endpoint's
 * inbox we may map.
 */
bool uet_engine_local_routes(struct uet_engine *e, uint32_t peer);
/*
 * ses_ops.peer_pulls: whether |peer| goes through a local channel whose
 * engine may copy our rendezvous buffers itself.
 */
bool uet_engine_local_peer_pulls(void *ctx, uint32_t peer);
/* ses_ops.tx for such a peer: 0, -EAGAIN (full: SES offers it again). */
int uet_engine_local_tx(struct uet_engine *e, const struct ses_pkt *pkt);

/*
 * ses_wre_send_whole's tx for such a peer: a request nobody waits for
 * (SES_PKT_F_NO_ANSWER), written at once with nothing of the engine's
 * kept, if nothing of its channel is ahead of it; 0, or -EAGAIN (it goes
 * the usual way).
 */
int uet_engine_local_tx_whole(void *ctx, const struct ses_pkt *pkt);

/* Whether a local peer wrote us something not read yet. */
bool uet_engine_local_pending(const struct uet_engine *e);
/* Reads what local peers wrote us; the number of records. */
int uet_engine_local_rx(struct uet_engine *e);
/*
 * Resends what a target asked again for, writes held answers, and fails
 * the peers of an endpoint that went away. From progress.
 */
void uet_engine_local_tick(struct uet_engine *e);

/*
 * Before sleeping (uet_engine_sleep): the inbox's flag set, so that
 * writers wake the engine's wake socket; false when something is waiting
 * already (do not sleep). uet_engine_local_woke() takes the flag down
 * once nobody sleeps.
 */
bool uet_engine_local_sleep(struct uet_engine *e);
void uet_engine_local_woke(struct uet_engine *e);

/*
 * ses_ops.pull: a local peer's rendezvous buffer copied out of its
 * process (process_vm_readv; the kernel allows it to its user alone).
 */
int uet_engine_local_pull(void *ctx, const struct ses_pull_src *src,
			  uint64_t off, const struct ses_iov *iov, size_t cnt,
			  uint64_t len);

/* Nanoseconds until uet_engine_local_tick() has work, or UINT64_MAX. */
uint64_t uet_engine_local_timeout(const struct uet_engine *e, uint64_t now);

#endif /* UET_ENGINE_LOCAL_H */
