#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark: one-way AF_XDP throughput between two namespaces over a veth
# pair (MTU 9000, XDP in skb mode), the engine beside a bare ring loop,
# alternated, medians of REPS runs. One "bench: NAME VALUE UNIT" per result.
E2E_NAME=bench_xsk
source "$(dirname "$0")/../e2e/e2e_lib.sh"
REPS=${REPS:-3}
SECS=${SECS:-2}

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb --no-service >/dev/null
done

# run MODE PAYLOAD: prints "MPPS GBPS" of payload bytes for one run.
run() {
	local mode=$1 len=$2 rx
	local fifo="$E2E_TMP/rx.$mode.$len"
	e2e_in B "$B/bench_xsk" rx "$IF_B" "$SECS" "$mode" > "$fifo" &
	rx=$!
	for _ in $(seq 100); do grep -q ready "$fifo" 2>/dev/null && break; sleep 0.05; done
	e2e_in A "$B/bench_xsk" tx "$IF_A" "$IP_B" $((SECS + 2)) "$len" "$mode" || true
	wait "$rx"
	awk -v len="$len" '/^rx/ { if ($4 > 0) printf "%.4f %.3f\n",
		$2 * 1000 / $4, $2 * len * 8 / $4; else print "0 0" }' "$fifo"
}


for len in 64 1024 4096 8192; do
	: > "$E2E_TMP/engine"; : > "$E2E_TMP/bare"
	for _ in $(seq "$REPS"); do
		run engine "$len" >> "$E2E_TMP/engine"
		run bare "$len" >> "$E2E_TMP/bare"
	done
	for mode in engine bare; do
		echo "bench: xsk_${mode}_mpps_$len $(cut -d' ' -f1 "$E2E_TMP/$mode" | median) Mpps"
		echo "bench: xsk_${mode}_gbps_$len $(cut -d' ' -f2 "$E2E_TMP/$mode" | median) Gbit/s"
	done
done
