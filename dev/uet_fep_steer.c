/* SPDX-License-Identifier: BSD-2-Clause */
/* Steering of local frames, as the XDP program does it (uet_fep_steer.h). */
#include "dev/uet_dev_shm.h"
#include "dev/uet_fep_steer.h"
#include "dev/uet_frame.h"
#include "uet_fep.h"
#include "uet_wire.h"

/* Offsets in the headers, as the XDP program reads them (ref 2.4, 3.1). */
#define STEER_PDS_SPDCID	8
#define STEER_PDS_DPDCID	10
#define STEER_SES_FLAGS		1	/* rel is 0x08 */
#define STEER_SES_JOB		5	/* 24 bits */
#define STEER_SES_PID		8	/* 12 low bits */
#define STEER_RSP_MSG_ID	2
#define STEER_RSP_DATA_MSG_ID	8	/* read_request_message_id */

static uint16_t steer_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* A request's SES destination: the endpoint holding it, or 0. */
static int steer_request(const struct uet_dev_shm *shm, const uint8_t *ses,
			 size_t len)
{
	uint32_t job;
	uint16_t pid;
	bool rel;

	if (len < UET_SES_STD_HDR_LEN)
		return UET_FEP_EP_SERVICE;
	rel = ses[STEER_SES_FLAGS] & 0x08;
	job = (uint32_t)ses[STEER_SES_JOB] << 16 |
	      (uint32_t)ses[STEER_SES_JOB + 1] << 8 | ses[STEER_SES_JOB + 2];
	pid = steer_be16(ses + STEER_SES_PID) & 0xFFF;
	if (!shm->pid_ep[pid] || (rel && shm->pid_job[pid] != job))
		return UET_FEP_EP_SERVICE;
	return shm->pid_ep[pid];
}

int uet_fep_steer(const struct uet_dev_shm *shm, const uint8_t *frame,
		  size_t len)
{
	struct uet_frame_info info;
	const uint8_t *pds;
	size_t plen, hl;
	uint8_t type, next, flags;
	bool syn;

	if (uet_frame_decode(&info, frame, len, len) < 0)
		return -1;
	pds = frame + info.hdr_len;
	plen = info.payload_len;
	if (plen < UET_PDS_PROLOGUE_LEN + 10)
		return UET_FEP_EP_SERVICE;
	type = pds[0] >> 3;
	next = (uint8_t)((steer_be16(pds) >> 7) & 0xF);
	flags = pds[1] & 0x7F;
	switch (type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		hl = type == UET_PDS_TYPE_RUD_REQ ||
		     type == UET_PDS_TYPE_ROD_REQ ? UET_PDS_RUD_REQ_LEN :
						    UET_PDS_CC_REQ_LEN;
		if (plen < hl)
			return UET_FEP_EP_SERVICE;
		syn = flags & UET_PDS_F_REQ_SYN;
		if (next == UET_PDS_NEXT_HDR_REQUEST_STD)
			return steer_request(shm, pds + hl, plen - hl);
		if (!syn)
			return UET_FEP_ID_EP(steer_be16(pds + STEER_PDS_DPDCID));
		if (next == UET_PDS_NEXT_HDR_RESPONSE &&
		    plen >= hl + UET_SES_RSP_LEN)
			return UET_FEP_ID_EP(steer_be16(pds + hl +
							STEER_RSP_MSG_ID));
		if (next == UET_PDS_NEXT_HDR_RESPONSE_DATA &&
		    plen >= hl + UET_SES_RSP_DATA_LEN)
			return UET_FEP_ID_EP(steer_be16(pds + hl +
						STEER_RSP_DATA_MSG_ID));
		return UET_FEP_EP_SERVICE;
	case UET_PDS_TYPE_UUD_REQ:
		if (next != UET_PDS_NEXT_HDR_REQUEST_STD ||
		    plen < UET_PDS_UUD_LEN)
			return UET_FEP_EP_SERVICE;
		return steer_request(shm, pds + UET_PDS_UUD_LEN,
				     plen - UET_PDS_UUD_LEN);
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
	case UET_PDS_TYPE_NACK:
	case UET_PDS_TYPE_NACK_CCX:
		return UET_FEP_ID_EP(steer_be16(pds + STEER_PDS_DPDCID));
	case UET_PDS_TYPE_CONTROL:
		if (flags & UET_PDS_F_CTL_SYN)
			return UET_FEP_EP_SERVICE;
		return UET_FEP_ID_EP(steer_be16(pds + STEER_PDS_DPDCID));
	default:
		return UET_FEP_EP_SERVICE;
	}
}
