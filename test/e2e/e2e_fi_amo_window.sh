#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Fetching atomics with several in flight (issue 11): fi_amo_window, plain
# libfabric, runs 20000 fi_fetch_atomic(FI_SUM) of 8 on one remote counter
# and 20000 fi_compare_atomic(FI_CSWAP_NE) that all swap, with up to W in
# flight; the old values must be a permutation of 0, 8, ..., 8(N-1) and one
# chain 0 -> ... -> final, and no result buffer may be written after its
# completion. Over uet with W = 1, 8 and 64, with W = 64 and 5% loss each
# way, and unchanged over tcp.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
LIMIT_S=60	# each loop of fi_amo_window gives up after this


# check PROVIDER NAME WINDOW: runs a pair; both must end "all ok".
check() {
	local prov=$1 name=$2 win=$3 s rc=0 t0 port=$((45000 + RANDOM % 1000))
	t0=$(now_ms)
	e2e_in B env FI_PROVIDER="$prov" timeout 120 "$B/fi_amo_window" -s \
		-a "$IP_B" -p "$port" -T "$LIMIT_S" \
		> "$E2E_TMP/server.out" 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER="$prov" timeout 120 "$B/fi_amo_window" \
		-c "$IP_B" -p "$port" -T "$LIMIT_S" -w "$win" \
		> "$E2E_TMP/client.out" 2>&1 || rc=$?
	wait "$s" || rc=$?
	if [ $rc != 0 ] || ! grep -q "server: all ok" "$E2E_TMP/server.out" ||
	   ! grep -q "client: all ok" "$E2E_TMP/client.out"; then
		sed 's/^/  server: /' "$E2E_TMP/server.out"
		sed 's/^/  client: /' "$E2E_TMP/client.out"
		e2e_fail "$name, window $win"
	fi
	sed -n 's/^fi_amo_window: \(fetch\|compare\): /  \1: /p' \
		"$E2E_TMP/client.out"
	e2e_ok "$name, window $win ($(( $(now_ms) - t0 )) ms)"
}

# fault PERCENT|off: UET frames the XDP programs drop on each side.
fault() {
	local side ifc
	for side in A B; do
		ifc=IF_$side
		if [ "$1" = off ]; then
			e2e_in "$side" "$B/uetctl" fault "${!ifc}" --off
		else
			e2e_in "$side" "$B/uetctl" fault "${!ifc}" --drop "$1"
		fi >/dev/null
	done
}

# counter SIDE NAME: a counter of the XDP program on SIDE's interface.
counter() {
	local ifc=IF_$1
	e2e_in "$1" "$B/uetctl" stats "${!ifc}" --json |
		sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"
}

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done
for win in 1 8 64; do
	check uet "uet" "$win"
done

# 5% of the UET frames dropped each way: retransmitted requests must not
# run twice, nor their responses be taken twice.
declare -A seen drop
for side in A B; do
	seen[$side]=$(counter $side seen)
	drop[$side]=$(counter $side fault_dropped)
done
fault 5
check uet "uet with 5% loss each way" 64
for side in A B; do
	n=$(( $(counter $side seen) - seen[$side] ))
	d=$(( $(counter $side fault_dropped) - drop[$side] ))
	echo "  $side dropped $d of $n UET frames"
	# The loss was there: 2-10% of the UET frames each side saw.
	if [ $(( d * 100 )) -lt $(( n * 2 )) ] ||
	   [ $(( d * 100 )) -gt $(( n * 10 )) ]; then
		e2e_fail "side $side dropped $d of $n frames"
	fi
done
fault off

check tcp "tcp" 64
