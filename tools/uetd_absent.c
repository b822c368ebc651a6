/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FEP answers for destinations that do not exist (issue 12, item 6).
 * The XDP program sends the service every request for a PIDonFEP no
 * endpoint holds, or held by another JobID. A UET target answers those
 * with a response whose return code is RC_BAD_JOB_ID (no endpoint of that
 * JobID here) or RC_BAD_PID (none with that PIDonFEP in it), carried in
 * the ACK of the request's PSN: the initiator then fails the operation
 * within a round trip instead of retrying for seconds.
 *
 * The ACK must claim no PSN it did not answer: its cumulative PSN runs
 * from the PDC's start PSN - 1 (a SYN request tells the start: psn -
 * psn_offset) over the PSNs answered without a gap. The initiator's later
 * packets on the PDC this ACK established carry the DPDCID we gave it,
 * which indexes a small table of those PDCs. A request or control packet
 * for a PDC the table does not hold (the endpoint it was with died, or
 * the table forgot) is answered with NACK INV_DPDCID: the initiator fails
 * what it had in flight on it (FI_ECONNRESET) and opens a new PDC for
 * what comes next, which is then answered as above. Everything else sent
 * here is dropped and counted.
 */
#include <errno.h>
#include <string.h>

#include "dev/uet_frame.h"
#include "dev/uet_nl.h"
#include "dev/uet_xsk.h"
#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "tools/uetd.h"
#include "uet_wire.h"

/*
 * Our PDCIDs carry the service's index, 0, in their high bits: at most
 * 2^(16 - the interface's index bits) of them (128 at 9 bits).
 */
#define UETD_ABSENT_PDCS	256

struct uetd_absent_pdc {
	struct uet_frame_addr peer;
	uint16_t spdcid;	/* theirs */
	uint32_t start_psn;
	uint32_t next_psn;	/* answered up to here, without a gap */
	uint64_t used_ns;
};

static struct uetd_absent_pdc uetd_absent[UETD_ABSENT_PDCS];

static bool uetd_addr_eq(const struct uet_frame_addr *a,
			 const struct uet_frame_addr *b)
{
	return a->is_v6 == b->is_v6 &&
	       (a->is_v6 ? !memcmp(&a->v6, &b->v6, sizeof(a->v6)) :
			   a->v4.s_addr == b->v4.s_addr);
}

/*
 * The table entry of (peer, spdcid): found, or the oldest taken for it.
 * |*cack| is the cumulative PSN to acknowledge with |psn|: every packet is
 * answered, so it runs on while they come in order (the initiator's
 * window moves with it), and stays put across a gap.
 */
static uint16_t uetd_absent_pdc(const struct uetd *d,
				const struct uet_frame_addr *peer,
				uint16_t spdcid, uint32_t start_psn,
				bool syn, uint64_t now, uint32_t psn,
				uint32_t *cack)
{
	uint32_t oldest = 1, n = 1u << (16 - d->layout.ep_bits);

	if (n > UETD_ABSENT_PDCS)
		n = UETD_ABSENT_PDCS;
	for (uint32_t i = 1; i < n; i++) {
		struct uetd_absent_pdc *p = &uetd_absent[i];

		if (p->used_ns && p->spdcid == spdcid &&
		    uetd_addr_eq(&p->peer, peer)) {
			if (syn && p->start_psn != start_psn)
				p->start_psn = p->next_psn = start_psn;
			p->used_ns = now;
			if (psn == p->next_psn)
				p->next_psn++;
			*cack = p->next_psn - 1;
			return (uint16_t)i;
		}
		if (p->used_ns < uetd_absent[oldest].used_ns)
			oldest = i;
	}
	if (!syn)
		return 0;
	uetd_absent[oldest] = (struct uetd_absent_pdc){
		.peer = *peer, .spdcid = spdcid, .start_psn = start_psn,
		.next_psn = start_psn, .used_ns = now };
	if (psn == start_psn)
		uetd_absent[oldest].next_psn++;
	*cack = uetd_absent[oldest].next_psn - 1;
	return (uint16_t)oldest;
}

/*
 * Where answers go at layer 2: the kernel's neighbour entry for the
 * sender, never the frame's source MAC, which anyone writes (issue 14:
 * a forged one would make us send where the forger wants). A small cache
 * keeps a flood from costing a netlink call per frame: an entry is looked
 * up again after UETD_HOP_FRESH_NS, one without a usable MAC (resolution
 * started, the frame dropped: its sender resends) after UETD_HOP_RETRY_NS.
 */
#define UETD_HOPS		64
#define UETD_HOP_FRESH_NS	1000000000ull
#define UETD_HOP_RETRY_NS	100000000ull

struct uetd_hop {
	struct uet_frame_addr addr;	/* the sender's IP; mac: its next hop */
	bool usable;
	uint64_t looked_ns;		/* 0: empty */
};

static struct uetd_hop uetd_hops[UETD_HOPS];
static struct uet_nl *uetd_nl;

/* The cache entry of |ip|: its own, else the least recently looked up. */
static struct uetd_hop *uetd_hop_slot(const struct uet_frame_addr *ip)
{
	struct uetd_hop *oldest = &uetd_hops[0];

	for (uint32_t i = 0; i < UETD_HOPS; i++) {
		struct uetd_hop *h = &uetd_hops[i];

		if (h->looked_ns && uetd_addr_eq(&h->addr, ip))
			return h;
		if (h->looked_ns < oldest->looked_ns)
			oldest = h;
	}
	oldest->looked_ns = 0;
	return oldest;
}

/* The MAC answers to |ip| go to, into |mac|; false: none known yet. */
static bool uetd_hop_mac(const struct uetd *d, const struct uet_frame_addr *ip,
			 uint8_t mac[6])
{
	struct uetd_hop *h = uetd_hop_slot(ip);
	uint64_t now = uetd_now_ns();
	struct uet_nl_hop hop;

	if (h->looked_ns && now - h->looked_ns <
	    (h->usable ? UETD_HOP_FRESH_NS : UETD_HOP_RETRY_NS)) {
		memcpy(mac, h->addr.mac, 6);
		return h->usable;
	}
	if (!uetd_nl)
		uetd_nl = uet_nl_open();
	h->addr = *ip;
	h->looked_ns = now;
	h->usable = uetd_nl &&
		    uet_nl_hop_lookup(uetd_nl, &ip->v6, ip->is_v6, &hop) == 0 &&
		    hop.ifindex == d->ifindex;
	if (h->usable && hop.nud != UET_NL_NUD_USABLE) {
		uet_nl_hop_resolve(uetd_nl, &hop, ip->is_v6);
		h->usable = false;
	}
	if (h->usable)
		memcpy(h->addr.mac, hop.mac, 6);
	memcpy(mac, h->addr.mac, 6);
	return h->usable;
}

/*
 * Our interface's MAC, for the answers' source (not the frame's
 * destination, which may be anything); read again with the hops' period.
 */
static int uetd_our_mac(const struct uetd *d, uint8_t mac[6])
{
	static uint8_t ours[6];
	static uint64_t read_ns;
	uint64_t now = uetd_now_ns();

	if (!read_ns || now - read_ns >= UETD_HOP_FRESH_NS) {
		if (uet_nl_if_mac(d->ifindex, ours) < 0)
			return -1;
		read_ns = now;
	}
	memcpy(mac, ours, 6);
	return 0;
}

/* Why no endpoint takes |job|/|pid|: the return code a target gives. */
static uint8_t uetd_absent_rc(const struct uetd *d, const struct ses_std_hdr *h)
{
	bool job_known = false;

	for (uint32_t i = 1; i < d->layout.max_eps; i++)
		if (d->eps[i].conn >= 0 && d->eps[i].job_id == h->job_id)
			job_known = true;
	return h->f.rel && !job_known ? UET_SES_RC_BAD_JOB_ID :
					 UET_SES_RC_BAD_PID;
}

/* Builds the answer to the request in |in| into |out|; its length or 0. */
static size_t uetd_absent_build(struct uetd *d, const uint8_t *in, size_t len,
				uint8_t *out, size_t out_len)
{
	struct uet_frame_info info;
	struct pdc_req req;
	struct ses_std_hdr sh;
	const uint8_t *pds;
	uint8_t pdsbuf[UET_PDS_HDR_MAX_LEN + UET_SES_RSP_LEN];
	uint16_t local;
	uint32_t cack = 0;
	struct pdc_ctl ctl;
	ssize_t n, m;
	size_t hl;

	/* |in| may be a frame's first chunk only: its headers are there. */
	if (uet_frame_decode(&info, in, len, len) < 0 &&
	    uet_frame_decode(&info, in, len, UET_XSK_FRAME_MAX) < 0)
		return 0;
	if (info.hdr_len + (size_t)info.payload_len > len)
		info.payload_len = (uint16_t)(len - info.hdr_len);
	pds = in + info.hdr_len;
	/* Secured (TSS): its headers are sealed, and so would an answer. */
	if (info.payload_len && (pds[0] >> 3) == UET_PDS_TYPE_TSS)
		return 0;
	/*
	 * A control packet (an ACK request, a close) for a PDC of an endpoint
	 * that is gone: NACK INV_DPDCID, as for its requests below.
	 */
	if (pdc_ctl_decode(&ctl, pds, info.payload_len) > 0 &&
	    !(ctl.pro.flags & UET_PDS_F_CTL_SYN)) {
		req = (struct pdc_req){ .psn = ctl.psn, .spdcid = ctl.spdcid };
		local = 0;
		goto nack;
	}
	n = pdc_req_decode(&req, pds, info.payload_len);
	if (n < 0 || req.pro.next_hdr != UET_PDS_NEXT_HDR_REQUEST_STD ||
	    ses_std_hdr_decode(&sh, pds + n, info.payload_len - (size_t)n) < 0)
		return 0;
	local = req.pro.flags & UET_PDS_F_REQ_SYN ?
		uetd_absent_pdc(d, &info.src, req.spdcid,
				req.psn - req.psn_offset, true, uetd_now_ns(),
				req.psn, &cack) :
		uet_fep_id_ep(req.dpdcid, d->layout.ep_bits) ==
		UET_FEP_EP_SERVICE ?
		uetd_absent_pdc(d, &info.src, req.spdcid, 0, false,
				uetd_now_ns(), req.psn, &cack) : 0;
	if (local && !(req.pro.flags & UET_PDS_F_REQ_SYN) && local != req.dpdcid)
		local = 0;
nack:
	if (!local) {
		struct pdc_nack nk = {
			.pro = { .type = UET_PDS_TYPE_NACK,
				 .next_hdr = UET_PDS_NEXT_HDR_NONE },
			.nack_code = UET_PDS_NACK_INV_DPDCID,
			.nack_psn = req.psn, .dpdcid = req.spdcid,
		};

		n = pdc_nack_encode(pdsbuf, sizeof(pdsbuf), &nk);
	} else {
		struct pdc_ack ack = {
			.pro = { .type = UET_PDS_TYPE_ACK,
				 .next_hdr = UET_PDS_NEXT_HDR_RESPONSE },
			.cack_psn = cack,
			.ack_psn_offset = (int16_t)(req.psn - cack),
			.spdcid = local, .dpdcid = req.spdcid,
		};
		struct ses_rsp_hdr rsp = {
			.opcode = UET_SES_RSP_RESPONSE,
			.return_code = uetd_absent_rc(d, &sh),
			.message_id = sh.message_id, .job_id = sh.job_id,
		};

		/* Only within the offset's reach: else nothing (it resends). */
		if ((uint32_t)(req.psn - cack) >= 0x7FFF)
			return 0;
		n = pdc_ack_encode(pdsbuf, sizeof(pdsbuf), &ack);
		m = n < 0 ? -1 : ses_rsp_hdr_encode(pdsbuf + n,
						     sizeof(pdsbuf) - (size_t)n,
						     &rsp);
		n = m < 0 ? -1 : n + m;
	}
	if (n < 0)
		return 0;
	hl = uet_frame_hdr_len(info.src.is_v6);
	if (hl + (size_t)n > out_len)
		return 0;
	if (!uetd_hop_mac(d, &info.src, info.src.mac) ||
	    uetd_our_mac(d, info.dst.mac) < 0)
		return 0;	/* no next hop known yet: it resends */
	info.dst.port = d->udp_port;
	info.src.port = d->udp_port;	/* ours is no entropy of a PDC */
	if (uet_frame_encode(out, hl, &info.dst, &info.src, (size_t)n) < 0)
		return 0;
	memcpy(out + hl, pdsbuf, (size_t)n);
	return hl + (size_t)n;
}

void uetd_absent_answer(struct uetd *d, const uint8_t *in, size_t len)
{
	uint8_t *out;
	uint64_t addr;
	uint32_t idx = 0;
	size_t n;

	if (!d->tx_pool_cnt)
		return;
	if (d->tx_reserved)
		idx = d->tx_reserved_idx;
	else if (xsk_ring_prod__reserve(&d->q[0].tx, 1, &idx) != 1)
		return;
	d->tx_reserved = false;
	d->tx_reserved_idx = idx;
	addr = d->tx_pool[--d->tx_pool_cnt];
	out = xsk_umem__get_data(d->area, addr);
	n = uetd_absent_build(d, in, len, out, UET_XSK_CHUNK_LEN);
	if (!n) {
		d->tx_pool[d->tx_pool_cnt++] = addr;
		/* The slot stays reserved: the next answer writes it. */
		d->tx_reserved = true;
		return;
	}
	xsk_ring_prod__tx_desc(&d->q[0].tx, idx)->addr = addr;
	xsk_ring_prod__tx_desc(&d->q[0].tx, idx)->len = (uint32_t)n;
	xsk_ring_prod__tx_desc(&d->q[0].tx, idx)->options = 0;
	xsk_ring_prod__submit(&d->q[0].tx, 1);
	d->absent_answered++;
	d->tx_unkicked = true;
}
