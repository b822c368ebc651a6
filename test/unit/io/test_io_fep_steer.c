/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The XDP program's steering mirrored in user space (dev/uet_fep_steer.c)
 * for RUDI, as test_io_xdp.c checks the program itself: a RUDI request by
 * its SES destination, a RUDI response and a NACK with NT set by the
 * endpoint bits at the top of the pkt_id, a NACK without NT by its DPDCID.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "dev/uet_dev_shm.h"
#include "dev/uet_fep_steer.h"
#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "uet_fep.h"
#include "uet_wire.h"

#define S_EP		5
#define S_PID		0x2A5
#define S_JOB		0x5A5A5A
#define S_PKT_ID(ep, low)	\
	((uint32_t)(ep) << (32 - UET_FEP_EP_BITS) | (low))

static struct uet_dev_shm *shm;

static void s_setup(void)
{
	shm = calloc(1, sizeof(*shm));
	cr_assert_not_null(shm);
	shm->pid_ep[S_PID] = S_EP;
	shm->pid_job[S_PID] = S_JOB;
	shm->ep_bits = UET_FEP_EP_BITS;	/* the default width */
}

static void s_teardown(void)
{
	free(shm);
}

TestSuite(fep_steer, .init = s_setup, .fini = s_teardown, .timeout = 10);

/* |h| and, for a request, a standard SES header to |pid| in S_JOB. */
static int s_steer(const struct pdc_hdr *h, uint16_t pid)
{
	struct ses_std_hdr s = {
		.opcode = UET_SES_OP_WRITE,
		.f = { .som = 1, .eom = 1, .rel = 1 },
		.job_id = S_JOB, .pid_on_fep = pid, .request_length = 8,
	};
	uint8_t buf[128];
	ssize_t n = pdc_hdr_encode(buf, sizeof(buf), h);

	cr_assert_gt(n, 0);
	cr_assert_eq(ses_std_hdr_encode(buf + n, sizeof(buf) - (size_t)n, &s),
		     UET_SES_STD_HDR_LEN);
	return uet_fep_steer_pds(shm, buf, (size_t)n + UET_SES_STD_HDR_LEN);
}

Test(fep_steer, rudi_by_destination_and_pkt_id)
{
	struct pdc_hdr req = { .rudi = { .pro = { UET_PDS_TYPE_RUDI_REQ,
					 UET_PDS_NEXT_HDR_REQUEST_STD, 0 },
					 .pkt_id = S_PKT_ID(3, 1) } };
	struct pdc_hdr rsp = { .rudi = { .pro = { UET_PDS_TYPE_RUDI_RESP,
					 UET_PDS_NEXT_HDR_RESPONSE, 0 },
					 .pkt_id = S_PKT_ID(9, 7) } };
	struct pdc_hdr nack = { .nack = {
		.pro = { UET_PDS_TYPE_NACK, UET_PDS_NEXT_HDR_NONE,
			 UET_PDS_F_NACK_NT },
		.nack_code = UET_PDS_NACK_NO_RESOURCE,
		.nack_psn = S_PKT_ID(11, 5),
		.dpdcid = (uint16_t)(4 << UET_FEP_ID_SHIFT | 1) } };

	cr_expect_eq(s_steer(&req, S_PID), S_EP);
	cr_expect_eq(s_steer(&req, S_PID + 1), UET_FEP_EP_SERVICE);
	req.rudi.pro.next_hdr = UET_PDS_NEXT_HDR_RESPONSE;
	cr_expect_eq(s_steer(&req, S_PID), UET_FEP_EP_SERVICE);
	cr_expect_eq(s_steer(&rsp, 0), 9);
	cr_expect_eq(s_steer(&nack, 0), 11);
	nack.nack.pro.flags = 0;	/* a PDC's NACK: its DPDCID */
	cr_expect_eq(s_steer(&nack, 0), 4);
}
