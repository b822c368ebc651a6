/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CRC32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and
 * final XOR all ones), the CRC of iSCSI, SCTP and ext4.
 */
#ifndef UET_CRC32C_H
#define UET_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * uet_crc32c() returns the CRC32C of |len| bytes at |p| following a
 * previous result |crc|: start with 0 for a fresh computation, and pass a
 * result back in to go on over the next segment, so that
 * uet_crc32c(uet_crc32c(0, a, n), b, m) is the CRC of a and b together.
 * (The initial value and final XOR are applied inside.) CRC32C of
 * "123456789" is 0xE3069283. ISA-L (libisal2) computes it.
 */
uint32_t uet_crc32c(uint32_t crc, const void *p, size_t len);

#endif /* UET_CRC32C_H */
