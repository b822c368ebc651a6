/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A simulated wire for PDC tests: up to T_ENDS endpoints, each a pdc_mgr
 * with a small test SES that sends numbered messages and logs what arrives.
 * Frames are dropped, duplicated, CE-marked and delayed with jitter (hence
 * reordered) by a seeded PRNG, on a fake clock; runs are deterministic.
 */
#ifndef TEST_PDC_SIM_H
#define TEST_PDC_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "pdc/pdc.h"
#include "pdc/pdc_hdr.h"

#define T_ENDS		3
#define T_INC		2		/* incarnations of one end */
#define T_MSGS_MAX	12000
#define T_FRAME_MAX	256
#define T_PAYLOAD_LEN	16
#define T_PPM		1000000u
#define T_PATHS		8

struct t_wire {
	uint32_t loss_ppm;	/* any frame */
	uint32_t reply_loss_ppm;	/* ACKs and NACKs only */
	uint32_t dup_ppm;
	uint32_t ce_ppm;
	uint32_t trim_ppm;	/* requests cut to their PDS header, as a
				 * trimming switch would (pdc_rx_meta.trim) */
	uint64_t delay_ns;
	uint64_t jitter_ns;	/* uniform in [0, jitter) on top of delay */
	bool black_hole;
	/*
	 * A fabric of |paths| equal-cost paths (0 or 1: a single wire): a
	 * frame takes the path its entropy value hashes to, as a switch's
	 * ECMP would; each path adds its own delay, and a dead one drops
	 * everything, both ways.
	 */
	uint32_t paths;
	uint64_t path_delay_ns[T_PATHS];
	bool path_dead[T_PATHS];
};

struct t_sim;

/* Sees every frame put on the wire; returns false to drop it. */
typedef bool (*t_tap_fn)(struct t_sim *s, int from, int to,
			 const uint8_t *buf, size_t len);

struct t_end {
	struct t_sim *sim;
	int idx, inc;
	struct pdc_mgr *mgr;
	struct pdc_cfg cfg;
	/* Sender: |msg_cnt| messages to end |to| in |mode|. */
	int to;
	uint8_t mode;
	uint32_t msg_cnt, next_seq, resp_every;
	/*
	 * Sender: never ask for responses (PDC_PKT_F_WANT_RESP), as the
	 * engine does: a packet acknowledged without its response then
	 * completes without it, which tx_done counts in resp_bad.
	 */
	bool implied;
	uint8_t done[T_INC][T_MSGS_MAX];	/* completions per message */
	int status[T_INC][T_MSGS_MAX];
	uint32_t fin_cnt;	/* messages of this incarnation finished */
	uint32_t ok_cnt, err_cnt, resp_bad, done_dup;
	int first_err;
	uint64_t first_err_ns;	/* sim time of the first error */
	uint32_t fail_seq;	/* next_seq when a PDC last failed */
	uint32_t ev_cnt[4];
	int ev_err[4];		/* err of the latest event of each type */
	uint32_t log_cnt;
	/* Receiver: deliveries per [my inc][src end][src inc][seq]. */
	uint8_t rx[T_INC][T_ENDS][T_INC][T_MSGS_MAX];
	int32_t rx_last[T_INC][T_ENDS][T_INC];
	uint8_t pdcid_inc[T_INC][T_ENDS][65536];	/* src inc + 1 */
	/* The open_seq of the first and the last PDC that delivered. */
	uint32_t open_min[T_INC][T_ENDS][T_INC];
	uint32_t open_max[T_INC][T_ENDS][T_INC];
	uint32_t rx_cnt, rx_bad, rx_dup, rx_order_err, rx_mix, rx_uud;
	uint32_t eagain_every;	/* deliver refuses every n-th packet */
	/*
	 * deliver refuses every packet past the first |eagain_after| (a
	 * receiver's bound on unexpected messages) until sim time
	 * |eagain_until_ns| (its application posts receives); 0: never.
	 */
	uint32_t eagain_after;
	uint64_t eagain_until_ns;
	uint32_t deliver_calls;
};

struct t_frame {
	uint64_t at_ns, seq;
	int from, to;
	bool ce;
	uint8_t trim;		/* enum pdc_trim */
	uint16_t ev;
	size_t len;
	uint8_t buf[T_FRAME_MAX];
};

struct t_cap {
	int from, to;
	uint64_t at_ns;
	size_t len;
	uint8_t buf[T_FRAME_MAX];
};

struct t_track {
	bool known;
	uint32_t cack;
};

struct t_sim {
	struct t_wire wire;
	uint64_t now, rng, frame_seq;
	struct t_end *end[T_ENDS];
	int end_cnt;
	struct t_frame **q;
	uint32_t q_cnt, q_cap;
	t_tap_fn tap;
	uint64_t frames, dropped, dups, trimmed;
	/* Window check: per initiator end and PDCID, the known cack. */
	struct t_track *track;	/* [T_ENDS][65536] */
	uint32_t win_limit;	/* PSNs allowed past a known cack */
	uint32_t win_violations, max_ahead;
	/* Frames to peers that are no end (hand-made senders), when allowed. */
	bool void_ok;
	uint64_t void_frames;
	/* Every frame put on the wire, lost or not, while cap_max > 0. */
	struct t_cap *cap;
	uint32_t cap_cnt, cap_max;
	/* The entropy of the frame being sent; frames and drops per path. */
	uint16_t tx_ev;
	uint64_t path_frames[T_PATHS], path_lost[T_PATHS];
};

struct t_sim *t_sim_new(const struct t_wire *wire, uint64_t seed, int ends);
void t_sim_free(struct t_sim *s);
void t_cfg_lossy(struct pdc_cfg *cfg, uint64_t seed);
struct t_sim *t_fabric(uint32_t paths, const uint32_t *delay_us,
		       uint8_t mp_mode, uint64_t seed);
struct pdc_stats t_stats(const struct t_sim *s, int idx);
void t_end_start(struct t_sim *s, int idx, const struct pdc_cfg *cfg);
void t_end_restart(struct t_sim *s, int idx, uint64_t seed);
void t_end_plan(struct t_sim *s, int idx, int to, uint8_t mode,
		uint32_t msgs, uint32_t resp_every);
bool t_sim_run(struct t_sim *s, uint64_t limit_ns,
	       bool (*done)(struct t_sim *s));
bool t_sim_senders_done(struct t_sim *s);
void t_sim_inject(struct t_sim *s, int from, int to, const uint8_t *buf,
		  size_t len);
void t_sim_flush(struct t_sim *s);
/* test_pdc_wire.c */
void t_wire_send(struct t_sim *s, int from, int to, const uint8_t *buf,
		 size_t len);
void t_wire_deliver(struct t_sim *s);
void t_sim_capture(struct t_sim *s, uint32_t max);
uint32_t t_path_of(const struct t_sim *s, uint16_t ev);
const struct t_cap *t_sim_find(const struct t_sim *s, uint32_t from_idx,
			       int from, uint8_t type, uint8_t code);
void t_payload(uint8_t *buf, int src, int inc, uint8_t mode, uint32_t seq);
size_t t_req_frame(uint8_t *buf, const struct pdc_req *h, int src,
		   uint32_t seq);

#endif /* TEST_PDC_SIM_H */
