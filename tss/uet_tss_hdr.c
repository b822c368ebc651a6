// SPDX-License-Identifier: BSD-2-Clause
/*
 * The TSS header codec (layout in uet_tss.h). Byte 0 holds the type in its
 * top five bits, then SP, a reserved bit and AN; everything after it is a
 * big-endian field, so the codec works byte by byte and never depends on
 * the host's order or on alignment.
 */
#include <errno.h>

#include "tss/uet_tss.h"

#define TSS_B0_SP	0x04
#define TSS_B0_RSVD	0x02
#define TSS_B0_AN	0x01

static void put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	while (n--) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

static uint64_t get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

ssize_t uet_tss_hdr_encode(uint8_t *out, size_t len,
			   const struct uet_tss_hdr *h)
{
	size_t hl = uet_tss_hdr_len(h->sp);
	uint8_t *p = out;

	/* Range first: a refused header must leave |out| untouched. */
	if (h->an > 1 || h->sdi > UET_TSS_SDI_MAX || h->tsc > UET_TSS_TSC_MAX)
		return -EINVAL;
	if (len < hl)
		return -ENOBUFS;
	p[0] = UET_TSS_TYPE << 3 | (h->sp ? TSS_B0_SP : 0) |
	       (h->an ? TSS_B0_AN : 0);
	put_be(p + 1, h->sdi, 3);
	p += 4;
	if (h->sp) {
		put_be(p, h->ssi, 4);
		p += 4;
	}
	put_be(p, h->epoch, 2);
	put_be(p + 2, h->tsc, 6);
	return (ssize_t)hl;
}

ssize_t uet_tss_hdr_decode(struct uet_tss_hdr *h, const uint8_t *in,
			   size_t len)
{
	const uint8_t *p = in;
	size_t hl;

	if (len < UET_TSS_HDR_LEN || !uet_tss_is_tss(in, len))
		return -EBADMSG;
	/* A set reserved bit may mean a layout we do not know: refuse it. */
	if (p[0] & TSS_B0_RSVD)
		return -EBADMSG;
	h->sp = p[0] & TSS_B0_SP;
	hl = uet_tss_hdr_len(h->sp);
	if (len < hl)
		return -EBADMSG;
	h->an = p[0] & TSS_B0_AN;
	h->sdi = (uint32_t)get_be(p + 1, 3);
	p += 4;
	h->ssi = 0;
	if (h->sp) {
		h->ssi = (uint32_t)get_be(p, 4);
		p += 4;
	}
	h->epoch = (uint16_t)get_be(p, 2);
	h->tsc = get_be(p + 2, 6);
	return (ssize_t)hl;
}
