/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An engine's counters as one line of JSON, for the provider's FI_UET_STATS
 * and UET_ENGINE_DEBUG: what an endpoint did on the wire, PDC's
 * retransmissions by cause and its paths (entropies) among them. Tables of
 * names and offsets, so that a counter added to a stats struct is one line
 * here.
 */
#include <stddef.h>
#include <stdio.h>

#include "engine/uet_engine_priv.h"

struct uet_stat_field {
	const char *name;
	size_t off;
};

#define UET_STAT(s, f)	{ #f, offsetof(struct s, f) }

static const struct uet_stat_field uet_engine_fields[] = {
	UET_STAT(uet_engine_stats, rx_frames),
	UET_STAT(uet_engine_stats, rx_not_uet),
	UET_STAT(uet_engine_stats, rx_bad),
	UET_STAT(uet_engine_stats, tx_frames),
	UET_STAT(uet_engine_stats, tx_no_frame),
	UET_STAT(uet_engine_stats, tx_build_err),
	UET_STAT(uet_engine_stats, tx_acks_superseded),
	UET_STAT(uet_engine_stats, tx_pay_lost),
	UET_STAT(uet_engine_stats, tx_resp_resent),
	UET_STAT(uet_engine_stats, rx_no_neigh),
	UET_STAT(uet_engine_stats, rx_no_peer),
	UET_STAT(uet_engine_stats, rx_stray),
	UET_STAT(uet_engine_stats, tx_no_neigh),
	UET_STAT(uet_engine_stats, neigh_changed),
	UET_STAT(uet_engine_stats, peers_provisional),
	UET_STAT(uet_engine_stats, peers_live),
	UET_STAT(uet_engine_stats, peers_aged),
	UET_STAT(uet_engine_stats, peers_refused),
	UET_STAT(uet_engine_stats, peers_unreachable),
	UET_STAT(uet_engine_stats, rx_clear_refused),
	UET_STAT(uet_engine_stats, rx_sealed_refused),
	UET_STAT(uet_engine_stats, rx_crc_bad),
	UET_STAT(uet_engine_stats, tx_crc),
	UET_STAT(uet_engine_stats, tss_rekeyed),
	UET_STAT(uet_engine_stats, svc_detached),
	UET_STAT(uet_engine_stats, svc_reattached),
	UET_STAT(uet_engine_stats, local_tx),
	UET_STAT(uet_engine_stats, local_rx),
	UET_STAT(uet_engine_stats, local_tx_bytes),
	UET_STAT(uet_engine_stats, local_rx_bytes),
	UET_STAT(uet_engine_stats, local_connects),
	UET_STAT(uet_engine_stats, local_refused),
	UET_STAT(uet_engine_stats, local_again),
	UET_STAT(uet_engine_stats, local_unanswered),
	UET_STAT(uet_engine_stats, local_unanswered_held),
	UET_STAT(uet_engine_stats, local_unanswered_refused),
	UET_STAT(uet_engine_stats, local_tx_whole),
	UET_STAT(uet_engine_stats, local_pulls),
	UET_STAT(uet_engine_stats, local_pull_bytes),
	UET_STAT(uet_engine_stats, local_pull_failed),
	UET_STAT(uet_engine_stats, local_broken),
	UET_STAT(uet_engine_stats, local_wakes),
	UET_STAT(uet_engine_stats, local_gone),
	UET_STAT(uet_engine_stats, local_stale),
};

static const struct uet_stat_field uet_tss_fields[] = {
	UET_STAT(uet_tss_ep_stats, tx_sealed),
	UET_STAT(uet_tss_ep_stats, tx_fail),
	UET_STAT(uet_tss_ep_stats, rx_opened),
	UET_STAT(uet_tss_ep_stats, rx_bad_icv),
	UET_STAT(uet_tss_ep_stats, rx_replay),
	UET_STAT(uet_tss_ep_stats, rx_stale),
	UET_STAT(uet_tss_ep_stats, rx_other_sd),
	UET_STAT(uet_tss_ep_stats, rx_no_key),
	UET_STAT(uet_tss_ep_stats, rx_malformed),
	UET_STAT(uet_tss_ep_stats, rx_streams),
	UET_STAT(uet_tss_ep_stats, rx_evicted),
	UET_STAT(uet_tss_ep_stats, rx_floored),
	UET_STAT(uet_tss_ep_stats, rx_no_room),
	UET_STAT(uet_tss_ep_stats, rx_trimmed),
	UET_STAT(uet_tss_ep_stats, rx_trim_unknown),
};

static const struct uet_stat_field uet_pdc_fields[] = {
	UET_STAT(pdc_stats, tx_req),
	UET_STAT(pdc_stats, tx_retx),
	UET_STAT(pdc_stats, retx_rto),
	UET_STAT(pdc_stats, rto_fired),
	UET_STAT(pdc_stats, retx_held),
	UET_STAT(pdc_stats, rto_link_down),
	UET_STAT(pdc_stats, retx_sack),
	UET_STAT(pdc_stats, retx_probe),
	UET_STAT(pdc_stats, retx_nack),
	UET_STAT(pdc_stats, retx_stall),
	UET_STAT(pdc_stats, retx_spurious),
	UET_STAT(pdc_stats, rto_undone),
	UET_STAT(pdc_stats, syn_backs),
	UET_STAT(pdc_stats, ev_in_use),
	UET_STAT(pdc_stats, ev_explored),
	UET_STAT(pdc_stats, ev_recycled),
	UET_STAT(pdc_stats, ev_retired),
	UET_STAT(pdc_stats, tx_ack),
	UET_STAT(pdc_stats, tx_nack),
	UET_STAT(pdc_stats, tx_ctl),
	UET_STAT(pdc_stats, tx_uud),
	UET_STAT(pdc_stats, tx_resp),
	UET_STAT(pdc_stats, tx_resp_again),
	UET_STAT(pdc_stats, tx_ack_held),
	UET_STAT(pdc_stats, rx_req),
	UET_STAT(pdc_stats, rx_dup),
	UET_STAT(pdc_stats, rx_delivered),
	UET_STAT(pdc_stats, rx_ack),
	UET_STAT(pdc_stats, rx_nack),
	UET_STAT(pdc_stats, rx_ctl),
	UET_STAT(pdc_stats, rx_uud),
	UET_STAT(pdc_stats, rx_bad),
	UET_STAT(pdc_stats, rx_stale),
	UET_STAT(pdc_stats, rx_dropped),
	UET_STAT(pdc_stats, rx_refused),
	UET_STAT(pdc_stats, rx_unanswered),
	UET_STAT(pdc_stats, pdc_created),
	UET_STAT(pdc_stats, pdc_closed),
	UET_STAT(pdc_stats, pdc_failed),
	UET_STAT(pdc_stats, peer_restarts),
	UET_STAT(pdc_stats, pdcs),
	UET_STAT(pdc_stats, syn_challenged),
	UET_STAT(pdc_stats, syn_confirmed),
	UET_STAT(pdc_stats, tgt_evicted),
	UET_STAT(pdc_stats, close_req_crossed),
	UET_STAT(pdc_stats, close_req_pressure),
	UET_STAT(pdc_stats, ini_closed_pressure),
	UET_STAT(pdc_stats, no_room_waits),
	UET_STAT(pdc_stats, opening_waits),
	UET_STAT(pdc_stats, tx_tomb_ack),
	UET_STAT(pdc_stats, rx_ce),
	UET_STAT(pdc_stats, rx_trimmed),
	UET_STAT(pdc_stats, cc_ecn_acks),
	UET_STAT(pdc_stats, cc_decreases),
	UET_STAT(pdc_stats, cc_quick_adapts),
	UET_STAT(pdc_stats, cc_fair_incs),
	UET_STAT(pdc_stats, cc_prop_incs),
	UET_STAT(pdc_stats, cc_fast_incs),
	UET_STAT(pdc_stats, cc_holds),
	UET_STAT(pdc_stats, cc_rcv_penalised),
	UET_STAT(pdc_stats, cc_rcv_restores),
	UET_STAT(pdc_stats, tx_rcv_penalty),
	UET_STAT(pdc_stats, rudi_tx_req),
	UET_STAT(pdc_stats, rudi_tx_retx),
	UET_STAT(pdc_stats, rudi_tx_resp),
	UET_STAT(pdc_stats, rudi_rx_req),
	UET_STAT(pdc_stats, rudi_rx_resp),
	UET_STAT(pdc_stats, rudi_rx_stale),
	UET_STAT(pdc_stats, rudi_timeouts),
	UET_STAT(pdc_stats, rudi_nacked),
	UET_STAT(pdc_stats, rudi_busy),
	UET_STAT(pdc_stats, rccc_granted),
	UET_STAT(pdc_stats, rccc_credits_tx),
	UET_STAT(pdc_stats, rccc_credits_rx),
	UET_STAT(pdc_stats, rccc_reqs),
	UET_STAT(pdc_stats, rccc_starved),
	UET_STAT(pdc_stats, rccc_off),
};

static const struct uet_stat_field uet_ses_fields[] = {
	UET_STAT(ses_stats, tx_pkts),
	UET_STAT(ses_stats, rx_reqs),
	UET_STAT(ses_stats, rx_rsps),
	UET_STAT(ses_stats, rx_malformed),
	UET_STAT(ses_stats, rx_rejected),
	UET_STAT(ses_stats, rx_stale_rsps),
	UET_STAT(ses_stats, rx_stale_reqs),
	UET_STAT(ses_stats, rx_ux_full),
};

/* The socket's own counters: frames the kernel could not hand us (a full
 * rx ring, an empty fill ring) are losses no protocol counter sees. */
static const struct uet_stat_field uet_xsk_fields[] = {
	UET_STAT(uet_xsk_stats, rx_frames),
	UET_STAT(uet_xsk_stats, tx_frames),
	UET_STAT(uet_xsk_stats, rx_oversized),
	UET_STAT(uet_xsk_stats, rx_dropped),
	UET_STAT(uet_xsk_stats, rx_invalid_descs),
	UET_STAT(uet_xsk_stats, tx_invalid_descs),
	UET_STAT(uet_xsk_stats, rx_ring_full),
	UET_STAT(uet_xsk_stats, rx_fill_ring_empty_descs),
	UET_STAT(uet_xsk_stats, tx_ring_empty_descs),
};

static void uet_stats_put(FILE *out, const char *group, const void *base,
			  const struct uet_stat_field *f, size_t n)
{
	fprintf(out, ",\"%s\":{", group);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s\"%s\":%llu", i ? "," : "", f[i].name,
			*(const unsigned long long *)((const char *)base +
						      f[i].off));
	fputc('}', out);
}

/*
 * NSCC's state of each unordered initiator PDC ("cc": one object a peer):
 * its window and what steers it, and the trims the target told it of.
 */
static void uet_stats_cc_put(const struct uet_engine *e, FILE *out)
{
	struct pdc_stats ps;
	bool first = true;

	pdc_mgr_stats(e->pdc, &ps);
	fprintf(out, ",\"cc\":{\"nacks_trimmed\":%llu,\"pdcs\":[",
		(unsigned long long)(ps.nack_rx_code[UET_PDS_NACK_TRIMMED] +
				     ps.nack_rx_code[UET_PDS_NACK_TRIMMED_LASTHOP]));
	for (uint32_t i = 0; i < e->npeers; i++) {
		struct pdc_info in;

		if (pdc_info_get(e->pdc, i, PDC_MODE_RUD, &in) < 0)
			continue;
		fprintf(out, "%s{\"peer\":%u,\"cwnd\":%u,\"cwnd_pkts\":%u,"
			"\"max_wnd\":%u,\"inflight\":%u,\"srtt_ns\":%llu,"
			"\"base_rtt_ns\":%llu,\"avg_delay_ns\":%llu,"
			"\"target_qdelay_ns\":%llu,\"link_mbps\":%u,"
			"\"credit\":%d}",
			first ? "" : ",", i,
			in.cwnd_bytes, in.cwnd, in.max_wnd_bytes,
			in.inflight_bytes, (unsigned long long)in.srtt_ns,
			(unsigned long long)in.base_rtt_ns,
			(unsigned long long)in.avg_delay_ns,
			(unsigned long long)in.target_qdelay_ns, in.link_mbps,
			in.credit);
		first = false;
	}
	fputs("]}", out);
}

void uet_engine_stats_json(const struct uet_engine *e, FILE *out)
{
	struct uet_engine_stats st;

	uet_engine_stats_get(e, &st);
	fprintf(out, "uet_engine_stats {\"endpoint\":%u,\"pid_on_fep\":%u",
		e->ep_index, uet_engine_pid_on_fep(e));
	uet_stats_put(out, "engine", &st, uet_engine_fields,
		      sizeof(uet_engine_fields) / sizeof(uet_engine_fields[0]));
	if (e->tss)
		uet_stats_put(out, "tss", &st.tss, uet_tss_fields,
			      sizeof(uet_tss_fields) /
			      sizeof(uet_tss_fields[0]));
	uet_stats_put(out, "pdc", &st.pdc, uet_pdc_fields,
		      sizeof(uet_pdc_fields) / sizeof(uet_pdc_fields[0]));
	uet_stats_put(out, "ses", &st.ses, uet_ses_fields,
		      sizeof(uet_ses_fields) / sizeof(uet_ses_fields[0]));
	if (e->pdc)
		uet_stats_cc_put(e, out);
	if (e->xsk) {
		struct uet_xsk_stats xs;

		if (!uet_xsk_stats_read(e->xsk, &xs))
			uet_stats_put(out, "xsk", &xs, uet_xsk_fields,
				      sizeof(uet_xsk_fields) /
				      sizeof(uet_xsk_fields[0]));
	}
	fputs("}\n", out);
	fflush(out);
}
