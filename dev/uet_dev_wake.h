/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Waking an endpoint that sleeps (issue 41). Frames for an endpoint come
 * on its AF_XDP rx ring, which wakes its socket, or through shared memory,
 * which wakes nothing: its local ring in the control block (frames of
 * another endpoint of the interface, frames the service hands on) and its
 * local-channel inbox (engine/uet_lch.h). So an endpoint that sleeps says
 * so in a flag beside each, and a writer that finds the flag set clears
 * it and sends a datagram to the owner's wake socket: an abstract Unix
 * socket named by a nonce the owner publishes (abstract names live in the
 * network namespace, the interface's, so every writer reaches it).
 *
 * The flag and the ring are a Dekker pair: the owner sets its flag, then
 * looks at the ring; a writer publishes, then looks at the flag; with a
 * full fence between each one's two steps, one of them sees the other.
 */
#ifndef UET_DEV_WAKE_H
#define UET_DEV_WAKE_H

#include <stdbool.h>
#include <stdint.h>

/* A datagram socket bound to the wake name of |nonce|: fd or -errno. */
int uet_dev_wake_open(uint64_t nonce);

/* A datagram socket that sends wakes, bound to nothing: fd or -errno. */
int uet_dev_wake_sender(void);

/* A socket connected to the wake name of |nonce|: fd or -errno. */
int uet_dev_wake_connect(uint64_t nonce);

/* One datagram to the wake name of |nonce| from |fd|; never blocks. */
void uet_dev_wake_send(int fd, uint64_t nonce);

/* Reads what came on wake socket |fd|: true when something had. */
bool uet_dev_wake_drain(int fd);

/*
 * Owner: the flag at |sleeping| set (then a full fence: look at what
 * could wake you next). Writer, after publishing: true when the owner
 * slept and this caller took its flag, and must wake it.
 */
void uet_dev_wake_arm(uint32_t *sleeping);
bool uet_dev_wake_take(uint32_t *sleeping);

/* Owner, awake again: true when a writer took the flag (and woke it). */
bool uet_dev_wake_disarm(uint32_t *sleeping);

struct uet_dev_shm_slot;
/*
 * Writer, after putting frames on the local ring of |sl|: wakes its owner
 * if it sleeps, from |*sender| (a uet_dev_wake_sender() made at the first
 * need; -1 until then).
 */
void uet_dev_wake_owner(struct uet_dev_shm_slot *sl, int *sender);

#endif /* UET_DEV_WAKE_H */
