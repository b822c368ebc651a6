#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark: what TSS (AES-256-GCM per packet, UE 1.0 3.7) costs over libfabric
# between two namespaces on a veth pair (MTU 9000, Payload MTU 8192), TSS
# off and on in the same run, alternated, medians of REPS: the 8-byte
# fi_writedata half round trip and the 1 MiB write bandwidth. Beside them,
# in the same run, the cipher's own speed: the AEAD call TSS makes
# (ipsec-mb's AES-256-GCM through uet_tss_seal, `bench_tss -a`) at 8192
# bytes (B_aes, one core, one direction). Sealing on
# the sender and opening on the receiver add to the per-packet cost, so
# the ceiling of the sealed stream is the serial model
# B_tss = 1 / (1 / B_off + 1 / B_aes); the ratio printed is the measured
# sealed bandwidth over it. Whole jobs (issue 40): modes on2 and on8 have
# 1 and 7 idle endpoints of the domain open on each interface besides the
# pair (2 and 8 of the job per host): the XDP program reads the sealed
# headers to steer (bpf/uet_xdp_tss.h), most with keystream the service
# made ahead (tss_xdp_ks_hit_frames); their figures over on's are the
# cost of several endpoints of a job per host. Last, hand-on: the services
# reloaded with UET_TSS_XDP=off steer those frames themselves (the
# fallback where the kernel cannot), 2 endpoints per host. The machine may
# be shared: medians, and the modes alternate within each repetition; the
# ratios and the difference are taken within each repetition (the modes
# run one after the other) and their median printed, so a slow minute of
# the machine moves both sides of a ratio. BENCH_PIN=1 (the default)
# pins the server to CPU 0 and the client to CPU 1, as bench_local does:
# unpinned, the scheduler's placement swings an 8 B figure by 6-10 us
# from one run to the next (issue 40's notes), more than TSS costs.
E2E_NAME=bench_tss_rma
source "$(dirname "$0")/../e2e/e2e_lib.sh"
REPS=${REPS:-3}
BENCH_PIN=${BENCH_PIN:-1}
PIN_S=()
PIN_C=()
if [ "$BENCH_PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then
	PIN_S=(taskset -c 0)
	PIN_C=(taskset -c 1)
fi
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

e2e_setup 9000
KEYS="$E2E_TMP/tss.conf"
(umask 077; echo "sd 7 jobs 42 active 0 key0 $(head -c 32 /dev/urandom |
	od -An -tx1 | tr -d ' \n')" > "$KEYS")
load() {	# load [ENV...]
	for side in A B; do
		ifc=IF_$side
		e2e_in "$side" env "$@" "$B/uetctl" load "${!ifc}" --mode skb \
			--tss-keys "$KEYS" --tss-state "$E2E_TMP/state.$side" \
			>/dev/null
	done
}
load

# idle_eps N|stop: N idle endpoints of the domain on each side (servers
# waiting for a client that never comes), beside the measured pair.
idle_eps() {
	local side ip ns i
	if [ "$1" = stop ]; then
		kill $IDLE 2>/dev/null || true
		wait $IDLE 2>/dev/null || true
		# The endpoints' teardown goes on in the kernel after their
		# processes exit (their AF_XDP sockets and UMEMs, in
		# workqueues): measured at once, the next mode's 8 B figure
		# swung from 5.3 to 10 us on 2 cores.
		[ -n "$IDLE" ] && sleep 2
		IDLE=""
		return 0
	fi
	# (Not through e2e_in: $! must be timeout itself, which passes the
	# kill on to its child.)
	for side in A B; do
		ip=IP_$side ns=NS_$side
		for i in $(seq "$1"); do
			ip netns exec "${!ns}" env FI_PROVIDER=uet \
				FI_UET_JOB_ID=42 timeout 300 "$B/uet_write" -s \
				-a "${!ip}" -S $((3000 + i * 50 + RANDOM % 50)) \
				-p $((43000 + i * 50 + RANDOM % 50)) \
				>/dev/null 2>&1 &
			IDLE+=" $!"
		done
	done
	sleep 1
}
IDLE=""

# run MODE PROG ARGS...: the client's result line, TSS off or on.
run() {
	local mode=$1 prog=$2 port=$((47000 + RANDOM % 2000)) s
	shift 2
	mode=${mode%%[0-9]*}
	[ "$mode" = handon ] && mode=on
	e2e_in B env FI_PROVIDER=uet FI_UET_JOB_ID=42 FI_UET_TSS="$mode" \
		timeout 120 "${PIN_S[@]}" "$B/$prog" -s -a "$IP_B" -p "$port" "$@" \
		>/dev/null 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER=uet FI_UET_JOB_ID=42 FI_UET_TSS="$mode" \
		timeout 120 "${PIN_C[@]}" "$B/$prog" -c "$IP_B" -p "$port" "$@" \
		2>/dev/null |
		grep "^$prog:"
	wait "$s" 2>/dev/null || true
}

# The cipher alone, MB/s at 8192 bytes.
aes_speed() { "$B/bench_tss" -a; }

# measure MODE: one ping-pong and one stream, their figures kept, one
# line per repetition ("nan" for a run that printed none, so the lines of
# two modes stay paired).
measure() {
	local v
	v=$(run "$1" uet_pingpong -n 8 -i 5000 |
		sed -n 's/.*median half round trip \([0-9.]*\) us.*/\1/p')
	echo "${v:-nan}" >> "$E2E_TMP/lat.$1"
	v=$(run "$1" uet_bw -n 1048576 -i 300 |
		sed -n 's/.*: \([0-9.]*\) MB\/s.*/\1/p')
	echo "${v:-nan}" >> "$E2E_TMP/bw.$1"
}
# med FILE: the median of a mode's figures, runs without one left out.
med() { grep -vx nan "$1" | median; }
# paired OP A B: the median over repetitions of A/B ("ratio") or A-B
# ("diff"), A and B files of one figure per repetition.
paired() {
	paste "$2" "$3" | awk -v op="$1" '$1 != "nan" && $2 != "nan" && $2 > 0 {
		print (op == "ratio") ? $1 / $2 : $1 - $2 }' | median
}

MODES="off on on2 on8"
for _ in $(seq "$REPS"); do
	aes_speed >> "$E2E_TMP/aes"
	for mode in $MODES; do
		case $mode in
		on2) idle_eps 1 ;;
		on8) idle_eps 7 ;;
		esac
		measure "$mode"
		idle_eps stop
	done
done
svc_stat() {	# svc_stat NAME: B's service's counter
	e2e_in B "$B/uetctl" stats "$IF_B" --json |
		sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p"
}
read_=$(svc_stat tss_read)
ks_hit=$(svc_stat tss_ks_hit)
# The fallback: the services steer sealed frames themselves.
e2e_in A "$B/uetctl" unload "$IF_A" >/dev/null
e2e_in B "$B/uetctl" unload "$IF_B" >/dev/null
load UET_TSS_XDP=off
for _ in $(seq "$REPS"); do
	idle_eps 1
	measure handon
	idle_eps stop
done
handed=$(svc_stat tss_handed_on)
MODES="$MODES handon"
aes=$(median < "$E2E_TMP/aes")
printf "%-26s" "median of $REPS"
for mode in $MODES; do printf " %8s" "$mode"; done
printf "\n%-26s" "8 B half round trip (us)"
for mode in $MODES; do printf " %8s" "$(med "$E2E_TMP/lat.$mode")"; done
printf "\n%-26s" "1 MiB write (MB/s)"
for mode in $MODES; do printf " %8s" "$(med "$E2E_TMP/bw.$mode")"; done
echo
for mode in $MODES; do	# each repetition's figures, for the ratios below
	echo "runs $mode: $(tr '\n' ' ' < "$E2E_TMP/lat.$mode")us;" \
		"$(tr '\n' ' ' < "$E2E_TMP/bw.$mode")MB/s"
done
echo "on, on2, on8: 1, 2, 8 endpoints of the job per host, headers read in XDP ($read_ frames at B); handon: 2, steered by the services ($handed frames handed on at B)"
echo "the AEAD alone (bench_tss -a), 8192 B: $aes MB/s"
for mode in $MODES; do
	echo "bench: tss_lat8_us_$mode $(med "$E2E_TMP/lat.$mode") us"
	echo "bench: tss_bw1m_mb_per_s_$mode $(med "$E2E_TMP/bw.$mode") MB/s"
done
echo "bench: tss_aead_gcm_8k_mb_per_s $aes MB/s"
# (0 would mean the runs were not read in XDP, or not handed on:
# bench-smoke fails it.)
echo "bench: tss_xdp_read_frames ${read_:-0} frames"
echo "bench: tss_handon_frames ${handed:-0} frames"
# Of those read in XDP, read with keystream the service made ahead.
echo "bench: tss_xdp_ks_hit_frames ${ks_hit:-0} frames"
T=$E2E_TMP
awk -v off="$(med "$T/bw.off")" -v aes="$aes" 'BEGIN { if (off > 0 && aes > 0)
	printf "bench: tss_bw1m_serial_model_mb_per_s %.0f MB/s\n",
		1 / (1 / off + 1 / aes) }'
# The sealed stream over the model of its own repetition.
paste "$T/bw.on" "$T/bw.off" "$T/aes" | awk '$1 != "nan" && $2 > 0 && $3 > 0 {
	print $1 * (1 / $2 + 1 / $3) }' | median |
	bench_ratio tss_bw1m_ratio_on_over_model
paired ratio "$T/lat.on2" "$T/lat.on" | bench_ratio tss_lat8_on2_over_on
paired ratio "$T/lat.on8" "$T/lat.on" | bench_ratio tss_lat8_on8_over_on
paired ratio "$T/bw.on2" "$T/bw.on" | bench_ratio tss_bw1m_on2_over_on
paired ratio "$T/bw.on8" "$T/bw.on" | bench_ratio tss_bw1m_on8_over_on
# (bench-smoke takes no figure <= 0: a difference in the noise is said in
# words.)
d=$(paired diff "$T/lat.on" "$T/lat.off")
if awk -v d="$d" 'BEGIN { exit !(d != "nan" && d > 0) }'; then
	echo "bench: tss_lat8_on_minus_off_us $d us"
else
	echo "TSS on was not slower than off: $d us"
fi
