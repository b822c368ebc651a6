#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark: tagged messaging over libfabric between two namespaces on a
# veth pair (MTU 9000), the uet provider beside tcp and udp;ofi_rxd in the
# same run, runs alternated, medians of REPS: 8-byte tagged ping-pong
# latency (also uet with FI_ORDER_SAS, which MPI asks for), 4 KiB and
# 1 MiB tagged bandwidth. One "bench: NAME VALUE UNIT" per result, plus
# uet/tcp ratios (issue 7's target: latency at most 0.7 times tcp's).
E2E_NAME=bench_msg
source "$(dirname "$0")/../e2e/e2e_lib.sh"
REPS=${REPS:-3}
PROVIDERS=${PROVIDERS:-"uet tcp udp;ofi_rxd"}
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done

# run PROVIDER ARGS...: the client's result line (none if the run failed).
run() {
	local prov=$1 port=$((47000 + RANDOM % 2000)) s
	shift
	e2e_in B env FI_PROVIDER="$prov" FI_UET_IFACE="$IF_B" timeout 120 \
		"$B/fi_msg_bench" -s -a "$IP_B" -p "$port" "$@" \
		>/dev/null 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER="$prov" FI_UET_IFACE="$IF_A" timeout 120 \
		"$B/fi_msg_bench" -c "$IP_B" -p "$port" "$@" 2>/dev/null |
		grep "^fi_msg_bench:" || true
	wait "$s" 2>/dev/null || true
}

lat() { sed -n 's/.*median half round trip \([0-9.]*\) us.*/\1/p'; }
bw() { sed -n 's/.*: \([0-9.]*\) MB\/s.*/\1/p'; }
key() { echo "$1" | tr ';' '_' | sed 's/ofi_//'; }

for _ in $(seq "$REPS"); do
	for prov in $PROVIDERS; do
		k=$(key "$prov")
		run "$prov" -m lat -n 8 -i 5000 | lat >> "$E2E_TMP/lat.$k"
		if [ "$prov" = uet ]; then
			run uet -O -m lat -n 8 -i 5000 | lat >> "$E2E_TMP/lato.$k"
		fi
		run "$prov" -m bw -n 4096 -i 50000 | bw >> "$E2E_TMP/bw4k.$k"
		run "$prov" -m bw -n 1048576 -i 500 | bw >> "$E2E_TMP/bw1m.$k"
	done
done
for prov in $PROVIDERS; do
	k=$(key "$prov")
	echo "bench: msg_lat8_us_$k $(median < "$E2E_TMP/lat.$k") us"
	if [ "$prov" = uet ]; then
		echo "bench: msg_lat8_us_uet_ordered $(median < "$E2E_TMP/lato.$k") us"
	fi
	echo "bench: msg_bw4k_mb_per_s_$k $(median < "$E2E_TMP/bw4k.$k") MB/s"
	echo "bench: msg_bw1m_mb_per_s_$k $(median < "$E2E_TMP/bw1m.$k") MB/s"
done
if [[ " $PROVIDERS " == *" uet "* && " $PROVIDERS " == *" tcp "* ]]; then
	for m in lat lato bw4k bw1m; do
		u=$(median < "$E2E_TMP/$m.uet"); t=$(median < "$E2E_TMP/${m/lato/lat}.tcp")
		awk -v u="$u" -v t="$t" -v m="${m/lato/lat8_ordered}" 'BEGIN {
			if (t > 0 && u != "nan") {
				sub(/^lat$/, "lat8", m)
				printf "bench: msg_%s_ratio_uet_over_tcp %.2f x\n", m, u / t
			} }'
	done
fi
