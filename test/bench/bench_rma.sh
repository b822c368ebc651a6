#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark: RMA over libfabric between two namespaces on a veth pair, the
# uet provider beside tcp and udp;ofi_rxd in the same run (veth MTU 9000,
# so uet uses Payload MTU 8192), runs alternated,
# medians of REPS: 8-byte write ping-pong latency, 4 KiB and 1 MiB write
# bandwidth and 8-byte write rate; beside them the bare AF_XDP loop of
# bench_xsk at 8192-, 4096- and 64-byte payloads and its bare ping-pong
# with one and two frames per turn (the ceilings of the substrate, no
# protocol). One table, then one
# "bench: NAME VALUE UNIT" line per result, with the uet/tcp ratios.
# With BENCH_SERIES=DIR (make bench-report), the first rep's 8-byte
# ping-pongs also print every half round trip (uet_pingpong -t, which
# prints after the timed loop), saved as DIR/lat8_wire_PROV.tsv
# ("# half_rtt_us", one per line): the latency distribution of the report.
E2E_NAME=bench_rma
source "$(dirname "$0")/../e2e/e2e_lib.sh"
REPS=${REPS:-3}
PROVIDERS=${PROVIDERS:-"uet tcp udp;ofi_rxd"}
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done
# The uet provider finds its interface from the address; say it anyway.
export FI_UET_IFACE=

# run PROVIDER PROG ARGS...: the client's result line.
run() {
	local prov=$1 prog=$2 port=$((47000 + RANDOM % 2000)) s
	shift 2
	e2e_in B env FI_PROVIDER="$prov" FI_UET_IFACE="$IF_B" timeout 120 \
		"$B/$prog" -s -a "$IP_B" -p "$port" "$@" >/dev/null 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER="$prov" FI_UET_IFACE="$IF_A" timeout 120 \
		"$B/$prog" -c "$IP_B" -p "$port" "$@" 2>/dev/null | grep "^$prog:"
	wait "$s" 2>/dev/null || true	# a server may fail once its client left
}

key() { echo "$1" | tr ';' '_' | sed 's/ofi_//'; }

# reload [--no-service]: the program again on both ends, with the device
# service (the providers) or bare (one socket of bench_xsk's own).
reload() {
	for side in A B; do
		ifc=IF_$side
		e2e_in "$side" "$B/uetctl" unload "${!ifc}" >/dev/null
		e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb "$@" >/dev/null
	done
}

# bare_oneway PAYLOAD: "FRAMES_PER_S MB_PER_S" of one-way frames with
# PAYLOAD-byte UDP payloads through the bare ring loop (the program must be
# loaded without the service: reload --no-service).
bare_oneway() {
	local out="$E2E_TMP/bare.rx" rx
	e2e_in B "$B/bench_xsk" rx "$IF_B" 2 bare > "$out" &
	rx=$!
	for _ in $(seq 100); do grep -q ready "$out" 2>/dev/null && break; sleep 0.05; done
	e2e_in A "$B/bench_xsk" tx "$IF_A" "$IP_B" 4 "$1" bare || true
	wait "$rx"
	awk -v p="$1" '/^rx/ { if ($4 > 0) printf "%.0f %.1f\n", $2 * 1e9 / $4,
		$2 * p * 1e3 / $4 }' "$out"
}

# bare_pingpong TURN: the bare rings' half round trip (ns) with 64-byte UDP
# payloads (a PDS header and a little), TURN frames each way per turn. One
# is the floor under every provider's latency here; two (an answer and the
# ACK of the last one) the floor of any reliable protocol whose sender
# waits for its own send's completion, as uet_pingpong does.
bare_pingpong() {
	local out="$E2E_TMP/pong.out" s
	e2e_in B "$B/bench_xsk" pong "$IF_B" "$IP_A" 2 64 "$1" > "$out" &
	s=$!
	for _ in $(seq 100); do grep -q ready "$out" 2>/dev/null && break; sleep 0.05; done
	e2e_in A "$B/bench_xsk" ping "$IF_A" "$IP_B" 100000 64 "$1" |
		sed -n 's/.*half round trip \([0-9]*\) ns.*/\1/p' || true
	wait "$s" || true
}

# The bare loop's figures: the ceilings of this substrate.
bare_all() {
	reload --no-service
	bare_oneway 8192 | cut -d' ' -f2 >> "$E2E_TMP/bare"
	bare_oneway 4096 | cut -d' ' -f2 >> "$E2E_TMP/bare4k"
	bare_oneway 64 | cut -d' ' -f1 >> "$E2E_TMP/barefps"
	bare_pingpong 1 >> "$E2E_TMP/barepp"
	bare_pingpong 2 >> "$E2E_TMP/barepp2"
	reload
}

# lat8 PROV REP: one 8-byte ping-pong, its median to lat.PROV; with
# BENCH_SERIES, in rep 1, every half round trip to the series.
lat8() {
	local k trace=()
	k=$(key "$1")
	[ -n "${BENCH_SERIES:-}" ] && [ "$2" = 1 ] && trace=(-t)
	run "$1" uet_pingpong -n 8 -i 5000 "${trace[@]}" > "$E2E_TMP/pp.out"
	sed -n 's/.*median half round trip \([0-9.]*\) us.*/\1/p' \
		"$E2E_TMP/pp.out" >> "$E2E_TMP/lat.$k"
	[ ${#trace[@]} = 0 ] && return 0
	mkdir -p "$BENCH_SERIES"
	{ echo "# half_rtt_us"
	  sed -n 's/^uet_pingpong: at [0-9.]* half round trip \([0-9.]*\) us$/\1/p' \
		"$E2E_TMP/pp.out"; } > "$BENCH_SERIES/lat8_wire_$k.tsv"
}

for rep in $(seq "$REPS"); do
	bare_all
	for prov in $PROVIDERS; do
		k=$(key "$prov")
		lat8 "$prov" "$rep"
		run "$prov" uet_bw -n 8 -i 200000 |
			sed -n 's/.* \([0-9.]*\) msg\/s.*/\1/p' >> "$E2E_TMP/rate.$k"
		run "$prov" uet_bw -n 4096 -i 50000 |
			sed -n 's/.*: \([0-9.]*\) MB\/s.*/\1/p' >> "$E2E_TMP/bw4k.$k"
		run "$prov" uet_bw -n 1048576 -i 500 |
			sed -n 's/.*: \([0-9.]*\) MB\/s.*/\1/p' >> "$E2E_TMP/bw1m.$k"
	done
done
row() {	# row LABEL METRIC: one table row, a column per provider
	printf "%-22s" "$1"
	for prov in $PROVIDERS; do
		printf " %14s" "$(median < "$E2E_TMP/$2.$(key "$prov")")"
	done
	echo
}
printf "%-22s" "median of $REPS"
for prov in $PROVIDERS; do printf " %14s" "$prov"; done
echo
row "8 B latency (us)" lat
row "8 B writes (msg/s)" rate
row "4 KiB write (MB/s)" bw4k
row "1 MiB write (MB/s)" bw1m
bare=$(median < "$E2E_TMP/bare")
echo "bare AF_XDP loop, 8192-byte payloads: $bare MB/s"
for prov in $PROVIDERS; do
	k=$(key "$prov")
	echo "bench: rma_lat8_us_$k $(median < "$E2E_TMP/lat.$k") us"
	echo "bench: rma_rate8_msgs_per_s_$k $(median < "$E2E_TMP/rate.$k") msg/s"
	echo "bench: rma_bw4k_mb_per_s_$k $(median < "$E2E_TMP/bw4k.$k") MB/s"
	echo "bench: rma_bw1m_mb_per_s_$k $(median < "$E2E_TMP/bw1m.$k") MB/s"
done
bare4k=$(median < "$E2E_TMP/bare4k")
barefps=$(median < "$E2E_TMP/barefps")
echo "bench: xsk_bare_mb_per_s_8192 $bare MB/s"
echo "bench: xsk_bare_mb_per_s_4096 $bare4k MB/s"
echo "bench: xsk_bare_frames_per_s_64 $barefps frames/s"
echo "bench: xsk_bare_pingpong_half_rtt_ns $(median < "$E2E_TMP/barepp") ns"
echo "bench: xsk_bare_pingpong2_half_rtt_ns $(median < "$E2E_TMP/barepp2") ns"
# ratio NAME UET_METRIC CEILING: uet's figure over a bare-loop ceiling.
ratio() {
	local u
	u=$(median < "$E2E_TMP/$2.uet")
	awk -v u="$u" -v b="$3" -v n="$1" 'BEGIN { if (b > 0 && u != "nan")
		printf "bench: %s %.2f x\n", n, u / b }'
}
if [[ " $PROVIDERS " == *" uet "* ]]; then
	ratio rma_bw1m_ratio_uet_over_bare bw1m "$bare"
	ratio rma_bw4k_ratio_uet_over_bare bw4k "$bare4k"
	ratio rma_rate8_ratio_uet_over_bare rate "$barefps"
fi
if [[ " $PROVIDERS " == *" uet "* && " $PROVIDERS " == *" tcp "* ]]; then
	for m in lat rate bw4k bw1m; do
		u=$(median < "$E2E_TMP/$m.uet"); t=$(median < "$E2E_TMP/$m.tcp")
		awk -v u="$u" -v t="$t" -v m="$m" 'BEGIN { if (t > 0 && u != "nan")
			printf "bench: rma_%s_ratio_uet_over_tcp %.2f x\n", m, u / t }'
	done
fi
