/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The provider's portable endpoint address (design section 3): what
 * fi_getname returns and fi_av_insert takes, with FI_FORMAT_UNSPEC. A
 * fixed 28-byte blob in network byte order, so that any two hosts agree.
 */
#ifndef UET_ADDR_H
#define UET_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/uet_engine.h"

/*
 * Layout (offsets in bytes):
 *   0  version      u8    UET_ADDR_VERSION
 *   1  flags        u8    UET_ADDR_F_*; other bits reserved, sent as 0
 *   2  fep_caps     be16  UET_ADDR_CAP_*: what the endpoint serves
 *   4  address      16    IPv6; or IPv4 in bytes 4..7, bytes 8..19 zero
 *  20  pid_on_fep   be16  bits 11:0 (15:12 reserved)
 *  22  ri_base      be16  bits 11:0: the RI of its RMA regions
 *  24  initiator    be32  the initiator id it writes into requests
 */
#define UET_ADDR_VERSION	1
#define UET_ADDR_LEN		28
#define UET_ADDR_OFF_FA		4
#define UET_ADDR_OFF_PID	20

#define UET_ADDR_F_IPV6		0x01

#define UET_ADDR_CAP_RMA	0x0001	/* WRITE and READ targets */
#define UET_ADDR_CAP_MSG	0x0002	/* SEND (issue 7) */
#define UET_ADDR_CAP_TAGGED	0x0004	/* TAGGED_SEND (issue 7) */
#define UET_ADDR_CAP_RUDI	0x0008	/* serves RUDI (the HPC profile of
					 * ref 5.2; uet/uet_rudi.c) */
/* What our endpoints serve. */
#define UET_ADDR_CAPS		(UET_ADDR_CAP_RMA | UET_ADDR_CAP_MSG | \
				 UET_ADDR_CAP_TAGGED)

/* Longest uet_addr_str() output, NUL included. */
#define UET_ADDR_STR_MAX	96

struct uet_addr {
	uint16_t fep_caps;
	struct uet_fa fa;
	uint16_t pid_on_fep;	/* 12 bits */
	uint16_t ri_base;	/* 12 bits */
	uint32_t initiator;
};

/*
 * uet_addr_encode() writes |a| into |out|. Returns UET_ADDR_LEN, -ENOBUFS
 * (|outlen| too short) or -EINVAL (pid_on_fep or ri_base wider than 12
 * bits).
 */
ssize_t uet_addr_encode(uint8_t *out, size_t outlen, const struct uet_addr *a);

/*
 * uet_addr_decode() reads a blob. Returns UET_ADDR_LEN, -EBADMSG (shorter
 * than UET_ADDR_LEN, or an IPv4 address with non-zero padding) or
 * -EPROTONOSUPPORT (another version). Reserved bits are ignored.
 */
ssize_t uet_addr_decode(struct uet_addr *a, const uint8_t *in, size_t inlen);

/*
 * uet_addr_str() prints |a| as "uet://10.0.0.2/pid=3/ri=0" (IPv6 in
 * brackets) into |buf|, truncating as snprintf does. Returns the length
 * the whole string needs, NUL excluded.
 */
int uet_addr_str(const struct uet_addr *a, char *buf, size_t len);

/* The initiator id an endpoint at |fa| with |pid_on_fep| uses: the low 20
 * bits of the address, then the 12 bits of the PID. */
uint32_t uet_addr_initiator(const struct uet_fa *fa, uint16_t pid_on_fep);

bool uet_fa_is_equal(const struct uet_fa *a, const struct uet_fa *b);

#endif /* UET_ADDR_H */
