/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gen_uet_pcap's shared declarations: the frames' constants, the packet
 * being built and the writer's state, and what gen_uet_pcap.c (pcap
 * records, framing, addresses, main), gen_uet_pcap_hdrs.c (frames 1-32:
 * the PDS and SES headers, malformed ones, our RDMO requests) and
 * gen_uet_pcap_prot.c (frames 33-40: TSS and the CRC32C trailer) call of
 * each other.
 */
#ifndef GEN_UET_PCAP_H
#define GEN_UET_PCAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "pdc/pdc_hdr.h"
#include "ses/ses_hdr.h"
#include "dev/uet_frame.h"
#include "uet_wire.h"

#define T_MTU		8192			/* Payload MTU of the seed */
#define T_PKT_MAX	(UET_PDS_HDR_MAX_LEN + 128 + T_MTU)
#define T_FRAME_MAX	(UET_FRAME_HDR_MAX + T_PKT_MAX)
#define T_PSN		0x2A3B4C5Du		/* the seed's start PSN */
#define T_INI_PDC	0x0101
#define T_TGT_PDC	0x0202
#define T_JOB		101
#define T_RKEY		0xacce5ull
/* Fixed capture time, so the file is the same on every run. */
#define T_TIME_SEC	1767225600u

/* One UDP payload being built: PDS header, SES header(s), data. */
struct t_pkt {
	uint8_t b[T_PKT_MAX];
	size_t len;
};

struct t_gen {
	FILE *f;
	unsigned int frames;
	int err;
	struct uet_frame_addr ini;	/* initiator: 10.77.0.1, entropy */
	struct uet_frame_addr tgt;	/* target: 10.77.0.2, entropy */
};

enum t_dir { T_TO_TGT, T_TO_INI };

/* gen_uet_pcap.c: codec results, payload, pcap records, framing. */
void t_put(struct t_gen *g, struct t_pkt *p, const char *what, ssize_t n);

#define T_PUT(g, p, fn, h) \
	t_put((g), (p), #fn, fn((p)->b + (p)->len, sizeof((p)->b) - (p)->len, (h)))

void t_fill(struct t_pkt *p, size_t n);
void t_le32(uint8_t *p, uint32_t v);
void t_record(struct t_gen *g, const uint8_t *frame, size_t len);
size_t t_frame(struct t_gen *g, uint8_t *frame, const struct t_pkt *p,
	       enum t_dir dir);
void t_emit(struct t_gen *g, const struct t_pkt *p, enum t_dir dir);
int t_addr6(struct uet_frame_addr *a, const char *ip, uint8_t mac_lo,
	    uint16_t entropy);

/* gen_uet_pcap_hdrs.c: the headers every frame builds on, frames 1-32. */
struct pdc_req t_req(uint8_t type, uint8_t next_hdr, uint8_t flags,
		     uint32_t psn, uint16_t psn_offset);
struct pdc_ack t_ack(uint8_t type, uint8_t next_hdr, uint8_t flags);
void t_seed(struct t_gen *g);
void t_acks(struct t_gen *g);
void t_nacks_ctl(struct t_gen *g);
void t_std_requests(struct t_gen *g);
void t_other_requests(struct t_gen *g);
void t_malformed(struct t_gen *g);
void t_rdmo(struct t_gen *g);

/* gen_uet_pcap_prot.c: data protection, frames 33-40. */
void t_tss(struct t_gen *g);
void t_crc(struct t_gen *g);

#endif /* GEN_UET_PCAP_H */
