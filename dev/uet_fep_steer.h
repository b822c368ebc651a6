/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The XDP program's steering (bpf/uet_xdp.bpf.c, include/uet_fep.h) in
 * user space, for frames between two endpoints of one interface: they
 * never reach the wire (a veth sends them to its peer, not back), so the
 * sender delivers them to the receiving endpoint itself.
 */
#ifndef UET_FEP_STEER_H
#define UET_FEP_STEER_H

#include <stddef.h>
#include <stdint.h>

struct uet_dev_shm;

/*
 * The endpoint index |frame| (a UET frame of |frame_len| bytes: Ethernet,
 * IPv4 or IPv6, UDP, PDS, whose first |len| are contiguous at |frame| and
 * hold its headers) goes to, by the same rules as the XDP program, with
 * the PIDonFEP table the service mirrors in |shm|; 0 (the service) when no
 * endpoint takes it, -1 when it is no UET frame.
 */
int uet_fep_steer(const struct uet_dev_shm *shm, const uint8_t *frame,
		  size_t len, size_t frame_len);

/*
 * The same from the PDS header on: |len| bytes at |pds| (the UDP payload,
 * or a secured frame's decrypted headers). The endpoint index, or 0.
 */
int uet_fep_steer_pds(const struct uet_dev_shm *shm, const uint8_t *pds,
		      size_t len);

#endif /* UET_FEP_STEER_H */
