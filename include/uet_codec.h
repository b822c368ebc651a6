/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Big-endian put/get helpers for wire codecs (user space only). Each copies
 * through memcpy so alignment never matters, and returns the advanced pointer.
 */
#ifndef UET_CODEC_H
#define UET_CODEC_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint8_t *uet_put_u8(uint8_t *p, uint8_t v)
{
	*p = v;
	return p + 1;
}

static inline uint8_t *uet_put_be16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

/* The low 24 bits of |v|, most significant byte first. */
static inline uint8_t *uet_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
	return p + 3;
}

static inline uint8_t *uet_put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static inline uint8_t *uet_put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
	return p + sizeof(v);
}

static inline const uint8_t *uet_get_u8(uint8_t *v, const uint8_t *p)
{
	*v = *p;
	return p + 1;
}

static inline const uint8_t *uet_get_be16(uint16_t *v, const uint8_t *p)
{
	uint16_t n;

	memcpy(&n, p, sizeof(n));
	*v = be16toh(n);
	return p + sizeof(n);
}

static inline const uint8_t *uet_get_be24(uint32_t *v, const uint8_t *p)
{
	*v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
	return p + 3;
}

static inline const uint8_t *uet_get_be32(uint32_t *v, const uint8_t *p)
{
	uint32_t n;

	memcpy(&n, p, sizeof(n));
	*v = be32toh(n);
	return p + sizeof(n);
}

static inline const uint8_t *uet_get_be64(uint64_t *v, const uint8_t *p)
{
	uint64_t n;

	memcpy(&n, p, sizeof(n));
	*v = be64toh(n);
	return p + sizeof(n);
}

#endif /* UET_CODEC_H */
