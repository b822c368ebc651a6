/* SPDX-License-Identifier: BSD-2-Clause */
/* Data protection of the engine's frames: TSS or CRC (uet_engine_tss.c). */
#ifndef UET_ENGINE_TSS_H
#define UET_ENGINE_TSS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct uet_engine;
struct uet_frame_info;

/*
 * Sets the frame layout (hdr_len, tss_len, trailer_len) and, with TSS
 * asked for, gets our keys from the device service. 0 or -errno with the
 * reason in |why|: -ENOKEY (FI_UET_TSS=on and our JobID is in no secure
 * domain), -EACCES (another mode), the service's.
 */
int uet_engine_tss_setup(struct uet_engine *e, char *why, size_t why_len);
void uet_engine_tss_destroy(struct uet_engine *e);

/*
 * From the tick: what our checks dropped to the service's stats, and new
 * keys when the service reloaded its key file.
 */
void uet_engine_tss_tick(struct uet_engine *e);

/*
 * uet_engine_pub.c: every UET_DEV_PUB_NS at most, our figures into our
 * slot of the control block for `uetctl top` (uet_dev_ep_pub). Called
 * from the millisecond tick; nothing when not on a service's interface.
 */
void uet_engine_pub_tick(struct uet_engine *e);
/*
 * When the figures of traffic since the last publishing are due, or
 * UINT64_MAX: a timer, so that an endpoint that went to sleep after its
 * last frames still shows them (one wake-up, then none).
 */
uint64_t uet_engine_pub_due_ns(const struct uet_engine *e);
/* uet_engine_pub.c: the device service's connection; reattach (#43). */
void uet_engine_svc_tick(struct uet_engine *e);
/* When the tick must look at it next (a reattach to try), or UINT64_MAX. */
uint64_t uet_engine_svc_due_ns(const struct uet_engine *e);

/*
 * Seals (or adds the CRC to) the frame at |frame|: headers written, the
 * PDS packet of |pds_len| bytes at hdr_len, room after it for the
 * trailer. Returns the frame's length, or -errno (counted).
 */
ssize_t uet_engine_tss_seal(struct uet_engine *e, uint8_t *frame,
			    size_t pds_len);

/*
 * With TSS: seals the frame built at |frame| into the chunks of |f|, its
 * ciphertext written there directly. Returns the frame's length or
 * -errno. The frame at |frame| is left in clear, but for the header.
 */
struct uet_xsk_frame;
ssize_t uet_engine_tss_seal_to(struct uet_engine *e, const uint8_t *frame,
			       size_t pds_len, struct uet_xsk_frame *f);

/*
 * The endpoint of the interface the local frame at |frame| (not sealed
 * yet) goes to, for uet_xsk_frame.local_ep: > 0, or -1 for none.
 */
int uet_engine_tss_local_ep(struct uet_engine *e, const uint8_t *frame,
			    size_t pds_len);

/*
 * The PDS packet of a received frame, checked and opened (or its CRC
 * checked): a pointer to it and its length in |pds_len|, or NULL when it
 * is dropped (counted). |trimmed|: a switch cut it, its trailer is gone.
 */
const uint8_t *uet_engine_tss_open(struct uet_engine *e, const uint8_t *frame,
				   const struct uet_frame_info *info,
				   bool trimmed, size_t *pds_len);

#endif /* UET_ENGINE_TSS_H */
