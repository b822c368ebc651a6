/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The portable endpoint address blob (uet_addr.h): encode, decode, print.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uet_codec.h"
#include "uet/uet_addr.h"

#define UET_ADDR_FA_LEN		16
#define UET_ADDR_12BIT		0x0FFFu

ssize_t uet_addr_encode(uint8_t *out, size_t outlen, const struct uet_addr *a)
{
	uint8_t fa[UET_ADDR_FA_LEN] = { 0 };
	uint8_t *p = out;

	if (outlen < UET_ADDR_LEN)
		return -ENOBUFS;
	if (a->pid_on_fep > UET_ADDR_12BIT || a->ri_base > UET_ADDR_12BIT)
		return -EINVAL;
	if (a->fa.is_v6)
		memcpy(fa, &a->fa.v6, sizeof(a->fa.v6));
	else
		memcpy(fa, &a->fa.v4, sizeof(a->fa.v4));
	p = uet_put_u8(p, UET_ADDR_VERSION);
	p = uet_put_u8(p, a->fa.is_v6 ? UET_ADDR_F_IPV6 : 0);
	p = uet_put_be16(p, a->fep_caps);
	memcpy(p, fa, sizeof(fa));
	p += sizeof(fa);
	p = uet_put_be16(p, a->pid_on_fep);
	p = uet_put_be16(p, a->ri_base);
	p = uet_put_be32(p, a->initiator);
	return p - out;
}

static bool uet_addr_v4_pad_is_zero(const uint8_t *fa)
{
	for (size_t i = sizeof(struct in_addr); i < UET_ADDR_FA_LEN; i++)
		if (fa[i])
			return false;
	return true;
}

ssize_t uet_addr_decode(struct uet_addr *a, const uint8_t *in, size_t inlen)
{
	const uint8_t *p = in;
	uint8_t version, flags;

	if (!in || inlen < UET_ADDR_LEN)
		return -EBADMSG;
	p = uet_get_u8(&version, p);
	if (version != UET_ADDR_VERSION)
		return -EPROTONOSUPPORT;
	p = uet_get_u8(&flags, p);
	memset(a, 0, sizeof(*a));
	p = uet_get_be16(&a->fep_caps, p);
	a->fa.is_v6 = flags & UET_ADDR_F_IPV6;
	if (a->fa.is_v6) {
		memcpy(&a->fa.v6, p, sizeof(a->fa.v6));
	} else {
		if (!uet_addr_v4_pad_is_zero(p))
			return -EBADMSG;
		memcpy(&a->fa.v4, p, sizeof(a->fa.v4));
	}
	p += UET_ADDR_FA_LEN;
	p = uet_get_be16(&a->pid_on_fep, p);
	p = uet_get_be16(&a->ri_base, p);
	p = uet_get_be32(&a->initiator, p);
	a->pid_on_fep &= UET_ADDR_12BIT;
	a->ri_base &= UET_ADDR_12BIT;
	return p - in;
}

int uet_addr_str(const struct uet_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (a->fa.is_v6) {
		inet_ntop(AF_INET6, &a->fa.v6, ip, sizeof(ip));
		return snprintf(buf, len, "uet://[%s]/pid=%u/ri=%u", ip,
				a->pid_on_fep, a->ri_base);
	}
	inet_ntop(AF_INET, &a->fa.v4, ip, sizeof(ip));
	return snprintf(buf, len, "uet://%s/pid=%u/ri=%u", ip, a->pid_on_fep,
			a->ri_base);
}

uint32_t uet_addr_initiator(const struct uet_fa *fa, uint16_t pid_on_fep)
{
	uint32_t low;

	if (fa->is_v6)
		memcpy(&low, &fa->v6.s6_addr[12], sizeof(low));
	else
		low = fa->v4.s_addr;
	low = ntohl(low) & 0xFFFFFu;
	return low << 12 | (pid_on_fep & UET_ADDR_12BIT);
}

bool uet_fa_is_equal(const struct uet_fa *a, const struct uet_fa *b)
{
	if (a->is_v6 != b->is_v6)
		return false;
	return a->is_v6 ? !memcmp(&a->v6, &b->v6, sizeof(a->v6)) :
			  a->v4.s_addr == b->v4.s_addr;
}
