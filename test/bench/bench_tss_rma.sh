#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark: what TSS (AES-256-GCM per packet, UE 1.0 3.7) costs over libfabric
# between two namespaces on a veth pair (MTU 9000, Payload MTU 8192), TSS
# off and on in the same run, alternated, medians of REPS: the 8-byte
# fi_writedata half round trip and the 1 MiB write bandwidth. Beside them,
# in the same run, the cipher's own speed: `openssl speed -evp
# aes-256-gcm` at 8192 bytes (B_aes, one core, one direction). Sealing on
# the sender and opening on the receiver add to the per-packet cost, so
# the ceiling of the sealed stream is the serial model
# B_tss = 1 / (1 / B_off + 1 / B_aes); the ratio printed is the measured
# sealed bandwidth over it. A third mode, hand-on, has a second endpoint of
# the domain open on each interface: the XDP program then cannot steer by
# the domain, and the service opens each frame's headers and hands it on
# (what steering sealed frames costs when a job has several endpoints on
# an interface).
E2E_NAME=bench_tss_rma
source "$(dirname "$0")/../e2e/e2e_lib.sh"
REPS=${REPS:-3}
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

e2e_setup 9000
KEYS="$E2E_TMP/tss.conf"
(umask 077; echo "sd 7 jobs 42 active 0 key0 $(head -c 32 /dev/urandom |
	od -An -tx1 | tr -d ' \n')" > "$KEYS")
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb --tss-keys "$KEYS" \
		--tss-state "$E2E_TMP/state.$side" >/dev/null
done

# idle_eps start|stop: an idle endpoint of the domain on each side (a
# server waiting for a client that never comes), so that each interface
# has two: sealed frames then go through the service, which opens their
# headers and hands them on (the "hand-on" mode).
idle_eps() {
	local side ip ns
	if [ "$1" = stop ]; then
		kill $IDLE 2>/dev/null || true
		wait $IDLE 2>/dev/null || true
		IDLE=""
		return 0
	fi
	# (Not through e2e_in: $! must be timeout itself, which passes the
	# kill on to its child.)
	for side in A B; do
		ip=IP_$side ns=NS_$side
		ip netns exec "${!ns}" env FI_PROVIDER=uet FI_UET_JOB_ID=42 timeout 300 \
			"$B/uet_write" -s -a "${!ip}" -S $((3000 + RANDOM % 1000)) \
			-p $((43000 + RANDOM % 1000)) \
			>/dev/null 2>&1 &
		IDLE+=" $!"
	done
	sleep 1
}
IDLE=""

# run MODE PROG ARGS...: the client's result line, TSS off or on.
run() {
	local mode=$1 prog=$2 port=$((47000 + RANDOM % 2000)) s
	shift 2
	[ "$mode" = handon ] && mode=on
	e2e_in B env FI_PROVIDER=uet FI_UET_JOB_ID=42 FI_UET_TSS="$mode" \
		timeout 120 "$B/$prog" -s -a "$IP_B" -p "$port" "$@" \
		>/dev/null 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER=uet FI_UET_JOB_ID=42 FI_UET_TSS="$mode" \
		timeout 120 "$B/$prog" -c "$IP_B" -p "$port" "$@" 2>/dev/null |
		grep "^$prog:"
	wait "$s" 2>/dev/null || true
}

# The cipher alone, MB/s at 8192 bytes (openssl prints 1000s of bytes/s).
aes_speed() {
	openssl speed -evp aes-256-gcm -bytes 8192 -seconds 1 2>/dev/null |
		awk 'toupper($1) == "AES-256-GCM" { sub(/k$/, "", $2);
			printf "%.0f\n", $2 / 1000 }'
}

for _ in $(seq "$REPS"); do
	aes_speed >> "$E2E_TMP/aes"
	for mode in off on handon; do
		[ "$mode" = handon ] && idle_eps start
		run "$mode" uet_pingpong -n 8 -i 5000 |
			sed -n 's/.*median half round trip \([0-9.]*\) us.*/\1/p' \
			>> "$E2E_TMP/lat.$mode"
		run "$mode" uet_bw -n 1048576 -i 300 |
			sed -n 's/.*: \([0-9.]*\) MB\/s.*/\1/p' >> "$E2E_TMP/bw.$mode"
		[ "$mode" = handon ] && idle_eps stop
	done
done
aes=$(median < "$E2E_TMP/aes")
handed=$(e2e_in B "$B/uetctl" stats "$IF_B" --json |
	sed -n 's/.*"tss_handed_on": *\([0-9]*\).*/\1/p')
printf "%-26s %10s %10s %10s\n" "median of $REPS" "TSS off" "TSS on" "hand-on"
printf "%-26s %10s %10s %10s\n" "8 B half round trip (us)" \
	"$(median < "$E2E_TMP/lat.off")" "$(median < "$E2E_TMP/lat.on")" \
	"$(median < "$E2E_TMP/lat.handon")"
printf "%-26s %10s %10s %10s\n" "1 MiB write (MB/s)" \
	"$(median < "$E2E_TMP/bw.off")" "$(median < "$E2E_TMP/bw.on")" \
	"$(median < "$E2E_TMP/bw.handon")"
echo "openssl speed aes-256-gcm 8192 B: $aes MB/s"
echo "hand-on: two endpoints of the domain on each interface, $handed frames handed on by B's service"
for mode in off on handon; do
	echo "bench: tss_lat8_us_$mode $(median < "$E2E_TMP/lat.$mode") us"
	echo "bench: tss_bw1m_mb_per_s_$mode $(median < "$E2E_TMP/bw.$mode") MB/s"
done
echo "bench: tss_openssl_gcm_8k_mb_per_s $aes MB/s"
# (0 would mean the hand-on runs were not handed on: bench-smoke fails it.)
echo "bench: tss_handon_frames ${handed:-0} frames"
awk -v off="$(median < "$E2E_TMP/bw.off")" -v on="$(median < "$E2E_TMP/bw.on")" \
	-v aes="$aes" -v l0="$(median < "$E2E_TMP/lat.off")" \
	-v l1="$(median < "$E2E_TMP/lat.on")" 'BEGIN {
	if (off > 0 && aes > 0) {
		model = 1 / (1 / off + 1 / aes)
		printf "bench: tss_bw1m_serial_model_mb_per_s %.0f MB/s\n", model
		if (on > 0)
			printf "bench: tss_bw1m_ratio_on_over_model %.2f x\n",
				on / model
	}
	# (bench-smoke takes no figure <= 0: a difference in the noise is
	# said in words.)
	if (l0 > 0 && l1 > l0)
		printf "bench: tss_lat8_on_minus_off_us %.2f us\n", l1 - l0
	else if (l0 > 0 && l1 > 0)
		printf "TSS on was not slower: %.2f us\n", l1 - l0
}'
