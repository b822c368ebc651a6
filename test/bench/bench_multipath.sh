#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark: uet's packet spraying on the emulated fabric (test/fabric/):
# 4 links of 400 Mbit/s each way between two routers, tbf queues of
# 256 KiB (tail drop), MTU 9000, uet_bw's 1 MiB fi_writes from H1 to H2;
# its rate over time seen on R2's port toward H2 (fab_sample_*). Medians
# of REPS runs (default 3):
#  - dead link: link 2 drops everything both ways 1 s into the flow, and
#    comes back 1.5 s later. The flow must finish (every write completes).
#    mp_dead_share_of_sum: its rate from 20 to 120 ms after the failure
#    over the 4 links' sum; mp_dead_recover_ms: from the failure until
#    the flow carries 70% of what the 3 live links can (see recovered);
#    mp_restored_share_of_sum: 1 to 1.5 s after the link came back;
#  - slow link: link 4 at a quarter of the others' rate: each provider's
#    rate over what the links can carry (3.25 links);
#  - no loss: queues of 8 MiB, which this flow never fills: the share of
#    uet's packets that went once (1: no spurious retransmission);
#  - leaf/spine: 2 leaves of 2 hosts, 2 spines, the same links; every
#    host writes to the one on the other leaf at once (a permutation): the
#    4 flows' sum over the leaves' up-links both ways (the bisection).
#  - cross flow: a UDP flow (iperf3) at half a link's rate pinned to link
#    1 while uet writes over all 4, path-aware and oblivious: uet's rate
#    over what the links leave it, and the share of uet's bytes on link 1
#    (see cross_flow).
# tcp runs the same program where a comparison means something (slow link,
# permutation); bench_fabric.sh has the plain 4-link share of both.
# PERM_PROVS (default "uet tcp") may add uet_rccc, uet with receiver
# credits beside NSCC (FI_UET_CC=nscc,rccc), to weigh the two CCs on the
# permutation (issue 42's choice of the default).
# BENCH_SERIES=DIR (make bench-report): the first repetition's dead link
# also writes time series into DIR (made if missing), t_s in seconds,
# 6 decimals, since uet_bw's client was started (the failure 1 s after):
#  - multipath_dead_uet_links.tsv, "# t_s link1_mbit .. link4_mbit": each
#    link's rate from R1 to R2 in the 10 ms from t_s, from R1's ports' tx
#    bytes (a dead link's frames are dropped before they count), the four
#    read together every 2 ms or so;
#  - multipath_dead_uet_events.tsv, "# event t_s": dead, restored (when
#    R1's end of the link began and stopped dropping);
#  - multipath_dead_tcp_{links,events}.tsv: the same scenario once more,
#    over tcp, for the series only. tcp's one flow takes the one link the
#    routers hash it to; the link that dies is that one (1 s in, or once
#    the flow sends, if later), so the plot shows whether the flow stalls
#    and resumes (its hosts do not re-path it at a timeout: see
#    dead_link_tcp). A tcp flow that fails or outlasts DEAD_TCP_TIMEOUT
#    (s, 30) adds an event tcp_failed (when it ended) and fails nothing.
# Unset, nothing more runs and nothing more is written.
E2E_NAME=bench_multipath
source "$(dirname "$0")/../e2e/e2e_lib.sh"
source "$(dirname "$0")/../fabric/fabric_lib.sh"
source "$(dirname "$0")/bench_multipath_series.sh"
REPS=${REPS:-3}
RATE=400 BUF=262144 MTU=9000
PERM_PROVS=${PERM_PROVS:-uet tcp}
export FI_PROVIDER_PATH="$(cd "$B" && pwd)" FI_UET_IFACE=fab0 FI_TCP_IFACE=fab0

now() { date +%s.%N; }
# at T D: the time D seconds after T (full precision: awk's print would not)
at() { awk -v t="$1" -v d="$2" 'BEGIN { printf "%.6f\n", t + d }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }'; }

# bw_start PROV FROM TO ITERS OUT: uet_bw server on host TO and client on
# host FROM in the background (BW_PIDS: server, client), the client's
# output (with uet's counters, FI_UET_STATS) in OUT; each killed after
# BW_TIMEOUT seconds (default 120).
BW_PIDS=()
bw_start() {
	local prov=$1 from=$2 to=$3 iters=$4 out=$5
	local port=$((47000 + RANDOM % 2000)) limit=${BW_TIMEOUT:-120}
	# uet_rccc: uet with receiver credits beside NSCC.
	[ "$prov" = uet_rccc ] && prov="uet FI_UET_CC=nscc,rccc"
	fab_host_in "$to" env FI_PROVIDER=$prov timeout "$limit" "$B/uet_bw" -s \
		-a "${FAB_IP[$to]}" -p "$port" -n 1048576 $FAB_WAIT > /dev/null 2>&1 &
	BW_PIDS+=($!)
	sleep 0.3
	fab_host_in "$from" env FI_PROVIDER=$prov FI_UET_STATS=1 timeout "$limit" \
		"$B/uet_bw" -c "${FAB_IP[$to]}" -p "$port" -n 1048576 \
		-i "$iters" $FAB_WAIT > "$out" 2>&1 &
	BW_PIDS+=($!)
}

# bw_wait: every flow started ended well, or the benchmark fails.
bw_wait() {
	local p rc=0
	for p in "${BW_PIDS[@]}"; do wait "$p" || rc=$?; done
	BW_PIDS=()
	[ $rc = 0 ] || e2e_fail "a flow failed (exit $rc): $(cat "$E2E_TMP"/*.out | tail -5)"
}

# mbit OUT: the Mbit/s uet_bw reported in OUT.
mbit() {
	local m
	m=$(sed -n 's/^uet_bw: .*: \([0-9.]*\) MB\/s.*/\1/p' "$1")
	[ -n "$m" ] || e2e_fail "no rate in $1: $(tail -3 "$1")"
	awk -v m="$m" 'BEGIN { printf "%.1f\n", m * 8 }'
}

# ---- a dead link, and the link back ------------------------------------------
# wait_until T0 S: returns S seconds after epoch time T0.
wait_until() {
	while [ "$(awk -v t="$1" -v s="$2" -v n="$(now)" 'BEGIN { print (n - t >= s) }')" = 0 ]; do
		sleep 0.05
	done
}

# dead_for I: link I dead both ways for 1.5 s, both ends at once
# (fab_link_drop I both), then back (fab_link_restore I). Epoch times:
# DEAD_FWD and BACK_FWD just before nft was asked to drop and to pass (the
# series' events), DEAD_TF when it had made both ends drop, and DEAD_AT
# when R1's end began dropping: the time of the last sample in which the
# link's tx bytes on R1 still grew (frames dropped there are not
# counted), read every half millisecond around the failure; one nft run
# takes 5 to 15 ms on a busy machine, as long as the recovery measured.
# DEAD_AT is DEAD_FWD when the samples show no growth (earlier, not
# later: a late failure would shorten what is measured).
dead_for() {
	local f="$E2E_TMP/fail_at" smp
	fab_router_in r1 env LC_ALL=C bash -c '
		exec {idle}<> <(:)
		f=/sys/class/net/$1/statistics/tx_bytes
		for (( n = 0; n < 400; n++ )); do
			read -r b < "$f" || exit 0
			echo "$EPOCHREALTIME $b"
			read -rt 0.0005 -u "$idle" _
		done' _ "l$1" > "$f" &
	smp=$!
	sleep 0.05
	DEAD_FWD=${EPOCHREALTIME/,/.}
	fab_link_drop "$1" both
	DEAD_TF=$(now)
	wait "$smp" || true
	DEAD_AT=$(awk -v f="$DEAD_FWD" 'NR > 1 && $2 > b && $1 >= f {
		t = $1 } { b = $2 } END { print (t ? t : f) }' "$f")
	DEAD_AT=${DEAD_AT/,/.}
	sleep 1.3
	BACK_FWD=${EPOCHREALTIME/,/.}
	fab_link_restore "$1"
	DEAD_TR=$(now)
}

# recovered SAMPLES F LIVE: ms from epoch time F until the port's rate is
# back at 70% of LIVE Mbit/s (what the live links carry), from
# fab_sample_start's SAMPLES: the start of the first 5 ms window after F
# that carries it, with the 3 windows after it carrying it too (20 ms in
# all: a lone burst does not count); nan when none does. The figure can
# read up to 1.5 ms early (a stall of 1.5 ms, then 3.5 ms at full rate,
# averages 70%), and a sample every 2 to 3 ms makes a window 1 to 3
# intervals.
recovered() {
	awk -v f="$2" -v want="$(awk -v l="$3" 'BEGIN { print 0.7 * l }')" '
	BEGIN { n = 0 }	# (t[n] of an unset n is t[""], not t[0])
	$1 >= f { t[n] = $1; b[n++] = $2 }
	END {
		for (i = 0; i < n; i++) {
			ok = 1
			x = i
			for (k = 0; ok && k < 4; k++) {
				for (y = x; y < n && t[y] - t[x] < 0.005; y++) ;
				ok = y < n && (b[y] - b[x]) * 8 / (t[y] - t[x]) / 1e6 >= want
				x = y
			}
			if (ok) {
				printf "%.1f\n", (t[i] - f) * 1000
				exit
			}
		}
		print "nan"
	}' "$1"
}

dead_link() {
	local s="$E2E_TMP/samples" l="$E2E_TMP/links" series="" t0 tf tr pre rec
	# the first repetition only: the others measure without a second
	# sampler beside them
	[ -n "${BENCH_SERIES:-}" ] && [ "$rep" = 1 ] && series=1
	fab_paths 4 "$RATE" "$BUF" "$MTU"
	fab_uet_load
	fab_sample_start r2 h2 "$s"
	[ -z "$series" ] || links_sample_start "$l"
	bw_start uet 1 2 "${DEAD_ITERS:-800}" "$E2E_TMP/dead.out"
	t0=$(now)
	wait_until "$t0" 1
	dead_for 2
	tf=$DEAD_AT tr=$BACK_FWD
	bw_wait
	fab_sample_stop
	if [ -n "$series" ]; then
		links_sample_stop
		series_write uet "$l" "$t0" dead "$DEAD_FWD" restored "$BACK_FWD"
	fi
	pre=$(fab_sample_rate "$s" "$(at "$tf" -0.5)" "$tf")
	rec=$(recovered "$s" "$tf" $((3 * RATE)))
	echo "$(fab_sample_rate "$s" "$(at "$tf" 0.02)" \
		"$(at "$tf" 0.12)")" >> "$E2E_TMP/dead_mbit"
	echo "$rec" >> "$E2E_TMP/dead_rec"
	fab_sample_rate "$s" "$(at "$tr" 1)" \
		"$(at "$tr" 1.5)" >> "$E2E_TMP/rest_mbit"
	echo "dead link: before $pre Mbit/s, 20-120 ms after" \
		"$(tail -1 "$E2E_TMP/dead_mbit"), back to 70% of the live" \
		"links after $rec ms (it failed $(awk -v a="$DEAD_FWD" \
		-v b="$DEAD_AT" -v c="$DEAD_TF" 'BEGIN { printf "%.1f ms %s %.1f", \
		(b - a) * 1000, "after nft was asked,", (c - b) * 1000 }') ms" \
		"before it returned); restored: $(tail -1 "$E2E_TMP/rest_mbit")" \
		"Mbit/s; uet_bw" \
		"$(mbit "$E2E_TMP/dead.out") Mbit/s overall; retired" \
		"$(e2e_engine_stat "$E2E_TMP/dead.out" ev_retired) entropies," \
		"$(e2e_engine_stat "$E2E_TMP/dead.out" tx_retx) retransmissions (SACK" \
		"$(e2e_engine_stat "$E2E_TMP/dead.out" retx_sack), timeout" \
		"$(e2e_engine_stat "$E2E_TMP/dead.out" retx_rto), probe" \
		"$(e2e_engine_stat "$E2E_TMP/dead.out" retx_probe))"
	[ -z "$series" ] || dead_link_tcp
}

# ---- a slow link -------------------------------------------------------------------
slow_link() {
	local prov
	fab_paths 4 "$RATE" "$BUF" "$MTU"
	fab_link_rate 4 $(( RATE / 4 ))
	fab_uet_load
	for prov in uet tcp; do
		bw_start "$prov" 1 2 "${SLOW_ITERS:-200}" "$E2E_TMP/slow.out"
		bw_wait
		mbit "$E2E_TMP/slow.out" >> "$E2E_TMP/slow_$prov"
	done
	echo "slow link: uet $(tail -1 "$E2E_TMP/slow_uet"), tcp" \
		"$(tail -1 "$E2E_TMP/slow_tcp") Mbit/s of $(( RATE * 13 / 4 ))"
}

# ---- no loss: no spurious retransmission ---------------------------------------
no_loss() {
	local out="$E2E_TMP/noloss.out" req retx drops
	fab_paths 4 "$RATE" $(( 8 << 20 )) "$MTU"
	fab_uet_load
	fab_link_counters > "$E2E_TMP/c0"
	bw_start uet 1 2 "${NOLOSS_ITERS:-200}" "$out"
	bw_wait
	fab_link_counters > "$E2E_TMP/c1"
	drops=$(fab_counters_diff "$E2E_TMP/c0" "$E2E_TMP/c1" |
		awk '{ n += $5 } END { print n + 0 }')
	req=$(e2e_engine_stat "$out" tx_req)
	retx=$(e2e_engine_stat "$out" tx_retx)
	[ "$req" -gt 0 ] || e2e_fail "no counters: $(tail -3 "$out")"
	ratio "$req" $(( req + retx )) >> "$E2E_TMP/noloss"
	echo "no loss: $req packets, $retx sent again (by SACK" \
		"$(e2e_engine_stat "$out" retx_sack), timeout" \
		"$(e2e_engine_stat "$out" retx_rto), probe" \
		"$(e2e_engine_stat "$out" retx_probe);" \
		"$(e2e_engine_stat "$out" retx_spurious) known spurious)," \
		"$drops frames dropped by the links; $(mbit "$out") Mbit/s"
}

# ---- leaf/spine permutation ----------------------------------------------------------
permutation() {
	local prov i sum
	fab_leaf_spine 2 2 2 "$RATE" "$BUF" "$MTU"
	fab_uet_load
	for prov in $PERM_PROVS; do
		# H1 -> H3, H2 -> H4, H3 -> H1, H4 -> H2: every flow crosses
		for i in 1 2 3 4; do
			bw_start "$prov" "$i" $(( (i + 1) % 4 + 1 )) \
				"${PERM_ITERS:-100}" "$E2E_TMP/perm$i.out"
		done
		bw_wait
		sum=0
		for i in 1 2 3 4; do
			sum=$(awk -v s="$sum" -v m="$(mbit "$E2E_TMP/perm$i.out")" \
				'BEGIN { print s + m }')
		done
		echo "$sum" >> "$E2E_TMP/perm_$prov"
	done
	echo "permutation: $(for prov in $PERM_PROVS; do
		echo -n "$prov $(tail -1 "$E2E_TMP/perm_$prov"), "; done)Mbit/s" \
		"of $(( 2 * 2 * RATE )) across the leaves"
}

# ---- a cross flow pinned to one link ---------------------------------------------
# cross_flow: hosts H3 on R1 and H4 on R2 whose routes take link 1 only;
# iperf3 sends H3 -> H4 over UDP at CROSS_MBIT (default half a link),
# paced and deaf to congestion, while uet_bw writes H1 -> H2 over all 4,
# path-aware (the default) and then oblivious (random EVs, the yardstick).
# Over the uet flow's middle (from a fifth to nine tenths of its time):
# uet's rate over what the links leave it (4 links less the cross flow,
# both seen at R2's ports toward H2 and H4), and the share of uet's bytes
# that took link 1 (R1's port l1 less the cross flow, over R1's 4 ports
# less it): 0.25 when spraying ignores the load, 0.143 when uet fills
# exactly what each link leaves at the default rate.
cross_flow() {
	fab_paths 4 "$RATE" "$BUF" "$MTU"
	fab_host_add 3 r1
	fab_host_add 4 r2
	FAB_ROUTES+=("$(fab_ns r1) 10.100.4.0/24 1" "$(fab_ns r2) 10.100.3.0/24 1")
	fab_routes
	fab_uet_load_host 1
	fab_uet_load_host 2
	cross_run aware
	cross_run oblivious
}

# iperf3_stop HOST...: ends the iperf3 of those hosts. Not by the pid of
# `fab_host_in ... &`: that is a subshell's, and killing it left iperf3
# running out its -t 100 (each cross run took 100 s for 4 s of uet).
iperf3_stop() {
	local h p
	for h; do
		for p in $(ip netns pids "${FAB_HOSTS[$h]}" 2>/dev/null); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = iperf3 ] &&
				kill "$p" 2>/dev/null
		done
	done
	return 0
}

# cross_run MODE: one uet_bw run beside the cross flow, FI_UET_MULTIPATH
# MODE; its figures to cross_left_MODE and cross_l1_MODE.
cross_run() {
	local mode=$1 mbit=${CROSS_MBIT:-$(( RATE / 2 ))} t0 t1 ta tb r1s xpid
	local h u x l up
	fab_host_in 4 timeout 120 iperf3 -s -1 -B "${FAB_IP[4]}" \
		> "$E2E_TMP/iperf_s" 2>&1 &
	sleep 0.3
	fab_host_in 3 timeout 120 iperf3 -c "${FAB_IP[4]}" -u -b "${mbit}M" \
		-l 8000 -t 100 > "$E2E_TMP/iperf_c" 2>&1 &
	xpid=$!
	fab_sample_ports_start r1 tx_bytes "$E2E_TMP/cross_r1" l1 l2 l3 l4
	r1s=$FAB_PORTS_SAMPLER
	fab_sample_ports_start r2 tx_bytes "$E2E_TMP/cross_r2" h2 h4
	sleep 0.5
	t0=$(now)
	FI_UET_MULTIPATH=$mode bw_start uet 1 2 "${CROSS_ITERS:-500}" \
		"$E2E_TMP/cross.out"
	bw_wait
	t1=$(now)
	kill "$r1s" 2>/dev/null || true
	wait "$r1s" 2>/dev/null || true
	fab_sample_ports_stop
	iperf3_stop 3 4
	wait "$xpid" 2>/dev/null || true
	wait 2>/dev/null || true		# the server, once its client went
	ta=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", a + (b - a) * 0.2 }')
	tb=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", a + (b - a) * 0.9 }')
	read -r h x < <(fab_ports_rate "$E2E_TMP/cross_r2" "$ta" "$tb")
	l=$(fab_ports_rate "$E2E_TMP/cross_r1" "$ta" "$tb")
	awk -v x="$x" 'BEGIN { exit !(x > 0) }' ||
		e2e_fail "no cross flow: $(tail -3 "$E2E_TMP/iperf_c")"
	u=$(awk -v h="$h" -v x="$x" -v c=$(( 4 * RATE )) \
		'BEGIN { printf "%.3f", h / (c - x) }')
	up=$(echo "$l" | awk -v x="$x" '{ t = $1 + $2 + $3 + $4 - x
		printf "%.3f", (t > 0 ? ($1 - x) / t : 0) }')
	echo "$u" >> "$E2E_TMP/cross_left_$mode"
	echo "$up" >> "$E2E_TMP/cross_l1_$mode"
	echo "cross flow, $mode: $x Mbit/s on link 1; uet $h Mbit/s ($u of" \
		"what is left), links $l Mbit/s, uet's share on link 1 $up;" \
		"retired $(e2e_engine_stat "$E2E_TMP/cross.out" ev_retired)" \
		"entropies, $(e2e_engine_stat "$E2E_TMP/cross.out" tx_retx)" \
		"retransmissions"
}

fab_init
for rep in $(seq "$REPS"); do
	for sc in ${MP_SCENARIOS:-dead_link slow_link no_loss permutation cross_flow}; do
		"$sc"
	done
done
sum=$(( 4 * RATE ))
echo "bench: mp_dead_share_of_sum $(ratio "$(median < "$E2E_TMP/dead_mbit")" $sum) ratio"
echo "bench: mp_dead_recover_ms $(median < "$E2E_TMP/dead_rec") ms"
echo "bench: mp_restored_share_of_sum $(ratio "$(median < "$E2E_TMP/rest_mbit")" $sum) ratio"
for prov in uet tcp; do
	echo "bench: mp_slow_link_${prov}_share $(ratio "$(median < "$E2E_TMP/slow_$prov")" \
		$(( RATE * 13 / 4 ))) ratio"
done
for prov in $PERM_PROVS; do
	echo "bench: mp_permutation_${prov}_share_of_bisection $(ratio \
		"$(median < "$E2E_TMP/perm_$prov")" $(( 2 * 2 * RATE ))) ratio"
done
echo "bench: mp_noloss_once_share $(median < "$E2E_TMP/noloss") ratio"
for mode in aware oblivious; do
	echo "bench: mp_cross_${mode}_share_of_left" \
		"$(median < "$E2E_TMP/cross_left_$mode") ratio"
	echo "bench: mp_cross_${mode}_link1_share" \
		"$(median < "$E2E_TMP/cross_l1_$mode") ratio"
done
