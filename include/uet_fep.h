/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The interface as a UET Fabric End Point (issue 12): one device service per
 * interface serves many endpoints, each an AF_XDP socket of its own on the
 * shared UMEM, in any process. The XDP program finds a packet's endpoint
 * without per-flow state, from identifiers the endpoint itself chose:
 *
 * - requests (RUD/ROD/UUD with an SES request header): the SES destination,
 *   PIDonFEP (and JobID when relative), looked up in the PIDonFEP table;
 * - everything else of an established PDC (ACK, NACK, CONTROL, requests
 *   carrying responses): the destination PDCID, whose high bits (the
 *   interface's width, below) are the endpoint index of the PDC's local
 *   end (each endpoint's PDC manager allocates its ids under its own
 *   prefix);
 * - RUDI requests (no PDC): the SES destination, as above; RUDI responses
 *   and NACKs with NT set: the high bits (the same width) of the pkt_id;
 * - responses with data on a PDC the target opens, while SYN is still set
 *   and there is no DPDCID yet: the echoed message_id, whose high bits are
 *   the initiator's endpoint index (each endpoint's SES allocates its
 *   message ids under its own prefix).
 *
 * Anything else, and anything for an index or PIDonFEP no endpoint holds,
 * goes to the service's own socket (index 0), which answers for absent
 * destinations or drops and counts. The UEC reference provider's VPP plugin
 * demultiplexes processes the same way (a process namespace in the high
 * PDC id bits).
 */
#ifndef UET_FEP_H
#define UET_FEP_H

/*
 * Endpoint index bits at the top of PDCIDs and message_ids: a load-time
 * choice of the interface's service (uetctl load --endpoints N: the
 * smallest width from UET_FEP_EP_BITS_MIN that holds N + 1 indices, the
 * service's 0 included), which the XDP program, the service and every
 * endpoint of the interface use. Each bit halves what an endpoint may
 * number: at most 2^(15 - bits) PDCs (a PDC manager keeps a generation
 * bit) and 2^(14 - bits) messages in flight per peer (ses.h). Between
 * hosts the width must be the same: a target reads its peers' endpoint
 * index and message sequence with its own (uet_engine_rx.c, SES), so the
 * minimum is today's 6 bits, and only --endpoints above 63 changes it.
 */
#define UET_FEP_EP_BITS_MIN	6
#define UET_FEP_EP_BITS_MAX	9
/* The default width. */
#define UET_FEP_EP_BITS		UET_FEP_EP_BITS_MIN
/* Indices any interface may have (512): a bound for tables and maps. */
#define UET_FEP_MAX_EPS		(1u << UET_FEP_EP_BITS_MAX)
/* Endpoints (the service's index apart): the most (511), the default. */
#define UET_FEP_EPS_MAX		(UET_FEP_MAX_EPS - 1)
#define UET_FEP_EPS_DEFAULT	31
#define UET_FEP_EP_SERVICE	0	/* index 0: the service itself */

/* The smallest width that holds |indices| endpoint indices. */
static inline unsigned int uet_fep_ep_bits(unsigned int indices)
{
	unsigned int bits = UET_FEP_EP_BITS_MIN;

	while (bits < UET_FEP_EP_BITS_MAX && (1u << bits) < indices)
		bits++;
	return bits;
}

/* The endpoint index in a PDCID or a message_id, under |bits|. */
static inline unsigned int uet_fep_id_ep(unsigned int id, unsigned int bits)
{
	return (id & 0xFFFFu) >> (16 - bits);
}

/*
 * The same under the default width: for tests and tools that make
 * frames for an interface loaded with it.
 */
#define UET_FEP_ID_SHIFT	(16 - UET_FEP_EP_BITS)
#define UET_FEP_ID_EP(id)	(((id) & 0xFFFFu) >> UET_FEP_ID_SHIFT)

/*
 * RUDI has no PDC: the initiator's endpoint index is the top bits of the
 * 32-bit pkt_id of its requests (pdc_rudi.c), which the RUDI_RESP and a
 * NACK with NT set (its nack_psn) echo at the same offset.
 */
static inline unsigned int uet_fep_pkt_id_ep(unsigned int id, unsigned int bits)
{
	return id >> (32 - bits);
}
#define UET_FEP_PDS_PKT_ID_OFF	4	/* ref 2.4: RUDI req/resp, NACK */

/*
 * Wire offsets the steering reads (ref = ../shared/reference/
 * uet-wire-format.md), from the start of the PDS header or of the SES header
 * that follows it: one home for the XDP program (bpf/uet_xdp.bpf.c), its
 * user-space mirror (dev/uet_fep_steer.c) and the engine.
 */
#define UET_FEP_PDS_SPDCID_OFF	8	/* ref 2.4: requests, ACK*, NACK* */
#define UET_FEP_PDS_DPDCID_OFF	10	/* ref 2.4: RUD/ROD req (no SYN), ACK*,
					 * NACK*, CONTROL (no SYN) */
#define UET_FEP_SES_FLAGS_OFF	1	/* ref 3.1: dc ie rel hd eom som */
#define UET_FEP_SES_JOB_ID_OFF	5	/* ref 3.1: 24 bits */
#define UET_FEP_SES_PID_OFF	8	/* ref 3.1: 12 low bits */
#define UET_FEP_RSP_MSG_ID_OFF	2	/* ref 3.5: RESPONSE message_id */
#define UET_FEP_RSP_DATA_MSG_ID_OFF 8	/* ref 3.5: read_request_message_id */

/*
 * PIDonFEPs (12 bits) and libfabric service strings. A numeric service up
 * to 4095 is the PIDonFEP itself; a larger one, up to 65535 (a port, as
 * libfabric's tests and many applications pass), maps into the upper half:
 * 2048 + service % 2048 (fabtests' 9228 is PIDonFEP 3084), the same on
 * every host. Two services with one PIDonFEP on one interface collide:
 * the second endpoint's fi_enable fails with -FI_EADDRINUSE. "Any" (no
 * service, or 0) takes a free PIDonFEP from the lower half, 256..2047,
 * so that it never takes one a port-like service maps to.
 */
#define UET_FEP_PID_AUTO_FIRST	256
#define UET_FEP_PID_AUTO_END	2048
#define UET_FEP_PID_PORT_BASE	2048
#define UET_FEP_SERVICE_MAX	65535u

static inline unsigned int uet_fep_service_pid(unsigned long service)
{
	return service < 4096 ? (unsigned int)service :
	       UET_FEP_PID_PORT_BASE +
	       (unsigned int)(service % UET_FEP_PID_PORT_BASE);
}

#endif /* UET_FEP_H */
