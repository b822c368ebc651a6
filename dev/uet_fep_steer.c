/* SPDX-License-Identifier: BSD-2-Clause */
/* Steering of local frames, as the XDP program does it (uet_fep_steer.h). */
#include "dev/uet_dev_shm.h"
#include "dev/uet_fep_steer.h"
#include "dev/uet_frame.h"
#include "uet_fep.h"
#include "uet_wire.h"

static uint16_t steer_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The endpoint index of the PDCID or message_id at |p|. */
static int steer_id_ep(const struct uet_dev_shm *shm, const uint8_t *p)
{
	return (int)uet_fep_id_ep(steer_be16(p), shm->ep_bits);
}

/* A RUDI response's endpoint, or a NACK's with NT: its pkt_id's top. */
static int steer_pkt_id(const struct uet_dev_shm *shm, const uint8_t *pds)
{
	const uint8_t *p = pds + UET_FEP_PDS_PKT_ID_OFF;

	return (int)uet_fep_pkt_id_ep((uint32_t)p[0] << 24 |
				      (uint32_t)p[1] << 16 |
				      (uint32_t)p[2] << 8 | p[3], shm->ep_bits);
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
	rel = ses[UET_FEP_SES_FLAGS_OFF] & UET_SES_F_REL;
	job = (uint32_t)ses[UET_FEP_SES_JOB_ID_OFF] << 16 |
	      (uint32_t)ses[UET_FEP_SES_JOB_ID_OFF + 1] << 8 |
	      ses[UET_FEP_SES_JOB_ID_OFF + 2];
	pid = steer_be16(ses + UET_FEP_SES_PID_OFF) & 0xFFF;
	if (!shm->pid_ep[pid] || (rel && shm->pid_job[pid] != job))
		return UET_FEP_EP_SERVICE;
	return shm->pid_ep[pid];
}

int uet_fep_steer(const struct uet_dev_shm *shm, const uint8_t *frame,
		  size_t len, size_t frame_len)
{
	struct uet_frame_info info;
	size_t plen;

	if (uet_frame_decode(&info, frame, len, frame_len) < 0)
		return -1;
	/* Only the headers are read: what of them is contiguous. */
	plen = info.payload_len < len - info.hdr_len ? info.payload_len :
						       len - info.hdr_len;
	return uet_fep_steer_pds(shm, frame + info.hdr_len, plen);
}

int uet_fep_steer_pds(const struct uet_dev_shm *shm, const uint8_t *pds,
		      size_t plen)
{
	size_t hl;
	uint8_t type, next, flags;
	bool syn;

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
			return steer_id_ep(shm, pds + UET_FEP_PDS_DPDCID_OFF);
		if (next == UET_PDS_NEXT_HDR_RESPONSE &&
		    plen >= hl + UET_SES_RSP_LEN)
			return steer_id_ep(shm, pds + hl +
					   UET_FEP_RSP_MSG_ID_OFF);
		if (next == UET_PDS_NEXT_HDR_RESPONSE_DATA &&
		    plen >= hl + UET_SES_RSP_DATA_LEN)
			return steer_id_ep(shm, pds + hl +
					   UET_FEP_RSP_DATA_MSG_ID_OFF);
		return UET_FEP_EP_SERVICE;
	case UET_PDS_TYPE_UUD_REQ:
		if (next != UET_PDS_NEXT_HDR_REQUEST_STD ||
		    plen < UET_PDS_UUD_LEN)
			return UET_FEP_EP_SERVICE;
		return steer_request(shm, pds + UET_PDS_UUD_LEN,
				     plen - UET_PDS_UUD_LEN);
	case UET_PDS_TYPE_RUDI_REQ:
		if (next != UET_PDS_NEXT_HDR_REQUEST_STD)
			return UET_FEP_EP_SERVICE;
		return steer_request(shm, pds + UET_PDS_RUDI_LEN,
				     plen - UET_PDS_RUDI_LEN);
	case UET_PDS_TYPE_RUDI_RESP:
		return steer_pkt_id(shm, pds);
	case UET_PDS_TYPE_NACK:
	case UET_PDS_TYPE_NACK_CCX:
		if (flags & UET_PDS_F_NACK_NT)
			return steer_pkt_id(shm, pds);
		return steer_id_ep(shm, pds + UET_FEP_PDS_DPDCID_OFF);
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
		return steer_id_ep(shm, pds + UET_FEP_PDS_DPDCID_OFF);
	case UET_PDS_TYPE_CONTROL:
		if (flags & UET_PDS_F_CTL_SYN)
			return UET_FEP_EP_SERVICE;
		return steer_id_ep(shm, pds + UET_FEP_PDS_DPDCID_OFF);
	default:
		return UET_FEP_EP_SERVICE;
	}
}
