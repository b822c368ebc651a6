/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The provider's address blob (uet/uet_addr.h): hand-written vectors for
 * IPv4 and IPv6, every field decoded, round trips, every truncation,
 * bad versions and padding, reserved bits, and the readable form.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "uet/uet_addr.h"

/* 10.0.0.2, PIDonFEP 0x123, RI 0x00A, caps RMA, initiator 0x31F2F3F4. */
static const uint8_t t_v4_blob[UET_ADDR_LEN] = {
	0x01, 0x00, 0x00, 0x01,	/* version 1, flags 0, fep_caps RMA */
	0x0a, 0x00, 0x00, 0x02,	/* 10.0.0.2 */
	0x00, 0x00, 0x00, 0x00,	/* padding */
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
	0x01, 0x23, 0x00, 0x0a,	/* pid_on_fep 0x123, ri_base 0x00a */
	0x31, 0xf2, 0xf3, 0xf4,	/* initiator */
};

/* fd00::1:2, PIDonFEP 0xFFF, RI 0xFFF, caps RMA|MSG, initiator 1. */
static const uint8_t t_v6_blob[UET_ADDR_LEN] = {
	0x01, 0x01, 0x00, 0x03,	/* version 1, flags IPv6, fep_caps */
	0xfd, 0x00, 0x00, 0x00,	/* fd00:: */
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x02,	/* ::1:2 */
	0x0f, 0xff, 0x0f, 0xff,	/* pid_on_fep, ri_base */
	0x00, 0x00, 0x00, 0x01,	/* initiator */
};

static struct uet_addr t_v4(void)
{
	struct uet_addr a = { .fep_caps = UET_ADDR_CAP_RMA,
			      .pid_on_fep = 0x123, .ri_base = 0x00a,
			      .initiator = 0x31F2F3F4 };

	inet_pton(AF_INET, "10.0.0.2", &a.fa.v4);
	return a;
}

static struct uet_addr t_v6(void)
{
	struct uet_addr a = { .fep_caps = UET_ADDR_CAP_RMA | UET_ADDR_CAP_MSG,
			      .pid_on_fep = 0xFFF, .ri_base = 0xFFF,
			      .initiator = 1 };

	a.fa.is_v6 = true;
	inet_pton(AF_INET6, "fd00::1:2", &a.fa.v6);
	return a;
}

Test(uet_addr, encodes_ipv4_vector)
{
	struct uet_addr a = t_v4();
	uint8_t out[UET_ADDR_LEN + 4];

	cr_assert_eq(uet_addr_encode(out, sizeof(out), &a), UET_ADDR_LEN);
	cr_assert_arr_eq(out, t_v4_blob, UET_ADDR_LEN);
}

Test(uet_addr, encodes_ipv6_vector)
{
	struct uet_addr a = t_v6();
	uint8_t out[UET_ADDR_LEN];

	cr_assert_eq(uet_addr_encode(out, sizeof(out), &a), UET_ADDR_LEN);
	cr_assert_arr_eq(out, t_v6_blob, UET_ADDR_LEN);
}

Test(uet_addr, decodes_every_field)
{
	struct uet_addr a;
	struct in6_addr v6;

	cr_assert_eq(uet_addr_decode(&a, t_v4_blob, UET_ADDR_LEN),
		     UET_ADDR_LEN);
	cr_assert_not(a.fa.is_v6);
	cr_assert_eq(ntohl(a.fa.v4.s_addr), 0x0a000002u);
	cr_assert_eq(a.fep_caps, UET_ADDR_CAP_RMA);
	cr_assert_eq(a.pid_on_fep, 0x123);
	cr_assert_eq(a.ri_base, 0x00a);
	cr_assert_eq(a.initiator, 0x31F2F3F4u);
	cr_assert_eq(uet_addr_decode(&a, t_v6_blob, UET_ADDR_LEN),
		     UET_ADDR_LEN);
	inet_pton(AF_INET6, "fd00::1:2", &v6);
	cr_assert(a.fa.is_v6);
	cr_assert_arr_eq(&a.fa.v6, &v6, sizeof(v6));
	cr_assert_eq(a.fep_caps, 3);
	cr_assert_eq(a.pid_on_fep, 0xFFF);
	cr_assert_eq(a.ri_base, 0xFFF);
	cr_assert_eq(a.initiator, 1);
}

Test(uet_addr, round_trips)
{
	struct uet_addr in[2] = { t_v4(), t_v6() }, out;
	uint8_t buf[UET_ADDR_LEN];

	for (int i = 0; i < 2; i++) {
		cr_assert_eq(uet_addr_encode(buf, sizeof(buf), &in[i]),
			     UET_ADDR_LEN);
		cr_assert_eq(uet_addr_decode(&out, buf, sizeof(buf)),
			     UET_ADDR_LEN);
		cr_assert(uet_fa_is_equal(&out.fa, &in[i].fa));
		cr_assert_eq(out.pid_on_fep, in[i].pid_on_fep);
		cr_assert_eq(out.ri_base, in[i].ri_base);
		cr_assert_eq(out.initiator, in[i].initiator);
		cr_assert_eq(out.fep_caps, in[i].fep_caps);
	}
}

Test(uet_addr, rejects_every_truncation)
{
	struct uet_addr a;
	uint8_t out[UET_ADDR_LEN];
	struct uet_addr v4 = t_v4();

	for (size_t len = 0; len < UET_ADDR_LEN; len++) {
		cr_assert_eq(uet_addr_decode(&a, t_v4_blob, len), -EBADMSG,
			     "len %zu", len);
		cr_assert_eq(uet_addr_encode(out, len, &v4), -ENOBUFS);
	}
	cr_assert_eq(uet_addr_decode(&a, NULL, UET_ADDR_LEN), -EBADMSG);
}

Test(uet_addr, rejects_other_versions)
{
	uint8_t b[UET_ADDR_LEN];
	struct uet_addr a;

	memcpy(b, t_v4_blob, sizeof(b));
	b[0] = 0;
	cr_assert_eq(uet_addr_decode(&a, b, sizeof(b)), -EPROTONOSUPPORT);
	b[0] = 2;
	cr_assert_eq(uet_addr_decode(&a, b, sizeof(b)), -EPROTONOSUPPORT);
}

Test(uet_addr, rejects_ipv4_padding)
{
	uint8_t b[UET_ADDR_LEN];
	struct uet_addr a;

	memcpy(b, t_v4_blob, sizeof(b));
	b[19] = 1;
	cr_assert_eq(uet_addr_decode(&a, b, sizeof(b)), -EBADMSG);
}

Test(uet_addr, ignores_reserved_bits)
{
	uint8_t b[UET_ADDR_LEN];
	struct uet_addr a;

	memcpy(b, t_v4_blob, sizeof(b));
	b[1] |= 0xF0;		/* flags */
	b[20] |= 0xF0;		/* pid_on_fep 15:12 */
	b[22] |= 0xF0;		/* ri_base 15:12 */
	cr_assert_eq(uet_addr_decode(&a, b, sizeof(b)), UET_ADDR_LEN);
	cr_assert_not(a.fa.is_v6);
	cr_assert_eq(a.pid_on_fep, 0x123);
	cr_assert_eq(a.ri_base, 0x00a);
}

Test(uet_addr, rejects_wide_fields)
{
	struct uet_addr a = t_v4();
	uint8_t out[UET_ADDR_LEN];

	a.pid_on_fep = 0x1000;
	cr_assert_eq(uet_addr_encode(out, sizeof(out), &a), -EINVAL);
	a = t_v4();
	a.ri_base = 0x1000;
	cr_assert_eq(uet_addr_encode(out, sizeof(out), &a), -EINVAL);
}

Test(uet_addr, prints_readably)
{
	struct uet_addr a = t_v4();
	char buf[UET_ADDR_STR_MAX];
	char small[8];

	cr_assert_eq(uet_addr_str(&a, buf, sizeof(buf)),
		     (int)strlen("uet://10.0.0.2/pid=291/ri=10"));
	cr_assert_str_eq(buf, "uet://10.0.0.2/pid=291/ri=10");
	a = t_v6();
	uet_addr_str(&a, buf, sizeof(buf));
	cr_assert_str_eq(buf, "uet://[fd00::1:2]/pid=4095/ri=4095");
	/* Truncated like snprintf, with the length it needs. */
	cr_assert_eq(uet_addr_str(&a, small, sizeof(small)),
		     (int)strlen(buf));
	cr_assert_str_eq(small, "uet://[");
}

Test(uet_addr, derives_initiator_from_address_and_pid)
{
	struct uet_addr v4 = t_v4(), v6 = t_v6();

	/* Low 20 bits of 10.0.0.2, then the PID. */
	cr_assert_eq(uet_addr_initiator(&v4.fa, 0x123), 0x00002123u);
	cr_assert_eq(uet_addr_initiator(&v6.fa, 7), 0x10002007u);
}
