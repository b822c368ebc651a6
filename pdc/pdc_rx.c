/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pdc_rx_frame(): decode the PDS header and hand the frame to the end it is
 * for. Requests and CLOSE go to target PDCs, ACKs, NACKs and CLOSE_REQ to
 * initiator PDCs; UUD and RUDI need no PDC at all.
 */
#include <errno.h>

#include "pdc/pdc_priv.h"
#include "uet_codec.h"

static void pdc_rx_uud(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		       const struct pdc_uud *uud, const uint8_t *ses,
		       size_t ses_len)
{
	struct pdc_rx_pkt pkt = {
		.peer = meta->peer,
		.mode = PDC_MODE_UUD,
		.next_hdr = uud->pro.next_hdr,
		.buf = ses,
		.len = ses_len,
	};
	struct pdc_resp resp;

	/* Unreliable: no response travels back and a refusal is a drop. */
	resp.next_hdr = UET_PDS_NEXT_HDR_NONE;
	resp.len = 0;
	mgr->stats.rx_uud++;
	if (mgr->ops.deliver(mgr->ctx, &pkt, &resp) == 0)
		mgr->stats.rx_delivered++;
	else
		mgr->stats.rx_dropped++;
}

static int pdc_rx_ctl(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		      const uint8_t *buf, size_t len, uint64_t now_ns)
{
	struct pdc_ctl ctl;

	if (pdc_ctl_decode(&ctl, buf, len) < 0)
		return -EBADMSG;
	mgr->stats.rx_ctl++;
	switch (ctl.pro.next_hdr) {
	case UET_PDS_CTL_CLOSE:
	case UET_PDS_CTL_ACK_REQ:
		pdc_tgt_rx_ctl(mgr, meta, &ctl, now_ns);
		break;
	case UET_PDS_CTL_CLOSE_REQ:
		pdc_ini_rx_close_req(mgr, meta, &ctl, now_ns);
		break;
	case UET_PDS_CTL_CREDIT:
		pdc_rccc_rx_credit(mgr, meta, &ctl);
		break;
	case UET_PDS_CTL_CREDIT_REQ:
		pdc_rccc_rx_req(mgr, meta, &ctl);
		break;
	default:
		/* NOOP, CLEAR, PROBE, negotiation: not used here. */
		mgr->stats.rx_dropped++;
		break;
	}
	return 0;
}

static int pdc_rx_reply(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
			uint8_t type, const uint8_t *buf, size_t len,
			uint64_t now_ns)
{
	struct pdc_nack nack;
	struct pdc_ack ack;
	ssize_t n;

	if (type == UET_PDS_TYPE_NACK || type == UET_PDS_TYPE_NACK_CCX) {
		if (pdc_nack_decode(&nack, buf, len) < 0)
			return -EBADMSG;
		mgr->stats.rx_nack++;
		if (nack.nack_code < 32)
			mgr->stats.nack_rx_code[nack.nack_code]++;
		if (pdc_rudi_rx_nack(mgr, meta, &nack, now_ns))
			return 0;
		pdc_ini_rx_nack(mgr, meta, &nack, now_ns);
		return 0;
	}
	n = pdc_ack_decode(&ack, buf, len);
	if (n < 0)
		return -EBADMSG;
	mgr->stats.rx_ack++;
	pdc_ini_rx_ack(mgr, meta, &ack, buf + n, len - (size_t)n, now_ns);
	return 0;
}

static int pdc_rx_dispatch(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
			   uint8_t type, const uint8_t *buf, size_t len,
			   uint64_t now_ns)
{
	struct pdc_uud uud;
	struct pdc_req req;
	ssize_t n;

	switch (type) {
	case UET_PDS_TYPE_RUD_REQ:
	case UET_PDS_TYPE_ROD_REQ:
	case UET_PDS_TYPE_RUD_CC_REQ:
	case UET_PDS_TYPE_ROD_CC_REQ:
		n = pdc_req_decode(&req, buf, len);
		if (n < 0)
			return -EBADMSG;
		mgr->stats.rx_req++;
		pdc_tgt_rx_req(mgr, meta, &req, buf + n, len - (size_t)n,
			       now_ns);
		return 0;
	case UET_PDS_TYPE_UUD_REQ:
		n = pdc_uud_decode(&uud, buf, len);
		if (n < 0)
			return -EBADMSG;
		pdc_rx_uud(mgr, meta, &uud, buf + n, len - (size_t)n);
		return 0;
	case UET_PDS_TYPE_CONTROL:
		return pdc_rx_ctl(mgr, meta, buf, len, now_ns);
	case UET_PDS_TYPE_ACK:
	case UET_PDS_TYPE_ACK_CC:
	case UET_PDS_TYPE_ACK_CCX:
	case UET_PDS_TYPE_NACK:
	case UET_PDS_TYPE_NACK_CCX:
		return pdc_rx_reply(mgr, meta, type, buf, len, now_ns);
	case UET_PDS_TYPE_RUDI_REQ:
	case UET_PDS_TYPE_RUDI_RESP:
		return pdc_rudi_rx(mgr, meta, buf, len);
	case UET_PDS_TYPE_TSS:
		return -EPROTONOSUPPORT;
	default:
		return -EBADMSG;
	}
}

/*
 * Only the type is read here, to pick the decoder; that decoder checks the
 * whole header, prologue included.
 */
int pdc_rx_frame(struct pdc_mgr *mgr, const struct pdc_rx_meta *meta,
		 const uint8_t *buf, size_t len, uint64_t now_ns)
{
	uint16_t pro;
	int ret;

	if (len < UET_PDS_PROLOGUE_LEN) {
		mgr->stats.rx_bad++;
		return -EBADMSG;
	}
	uet_get_be16(&pro, buf);
	ret = pdc_rx_dispatch(mgr, meta, (pro >> UET_PDS_TYPE_SHIFT) &
					 UET_PDS_TYPE_MASK, buf, len, now_ns);
	if (ret == -EBADMSG)
		mgr->stats.rx_bad++;
	else if (ret < 0)
		mgr->stats.rx_dropped++;
	return ret;
}
