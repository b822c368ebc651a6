#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Soak with injected loss (issue [R]): fi_soak between two namespaces at
# MTU 9000 over uet, with 5% and then 30% of the UET frames dropped on
# each side (uetctl fault), RMA (fi_write in 1 MiB writes, every 64 MiB
# round checked byte by byte by the target and read back with fi_read) and
# tagged messages (fi_tsend/fi_trecv, up to 1 MiB, lengths varied, tag,
# length and every byte checked by the receiver). 1 GiB in all by default
# (bytes the programs verified);
# SOAK_GIB=N scales every run by N (`make soak-loss` runs SOAK_GIB=8). Each run
# prints bytes, seconds, MB/s, the longest operation, the retransmissions
# of both engines (UET_ENGINE_DEBUG's counters at close) and the frames
# the XDP programs dropped, and must end within its time limit.
source "$(dirname "$0")/e2e_lib.sh"
FI_PROVIDER_PATH="$(cd "$B" && pwd)"
export FI_PROVIDER_PATH
SOAK_GIB=${SOAK_GIB:-1}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# counter SIDE NAME: a counter of the XDP program on SIDE's interface.
counter() {
	local ifc=IF_$1
	e2e_in "$1" "$B/uetctl" stats "${!ifc}" --json |
		sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p"
}

fault() {	# fault PERCENT|off, each side
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

# retx FILE: the PDC retransmissions an engine printed at close.
retx() { e2e_engine_stat "$1" tx_retx; }

# soak PERCENT MODE MIB LIMIT_S: one verified run at PERCENT loss each way.
soak() {
	local pct=$1 mode=$2 mib=$3 limit=$4 port rc=0 src=0 t0 dt s side
	local line n d loss=""
	declare -A seen drop
	port=$((46000 + RANDOM % 3000))
	for side in A B; do
		seen[$side]=$(counter $side seen)
		drop[$side]=$(counter $side fault_dropped)
	done
	fault "$pct"
	t0=$(now_ms)
	e2e_in B env FI_PROVIDER=uet UET_ENGINE_DEBUG=1 "$B/fi_soak" -s \
		-a "$IP_B" -p "$port" -T "$limit" \
		> "$E2E_TMP/server.out" 2> "$E2E_TMP/server.err" &
	s=$!
	e2e_in A env FI_PROVIDER=uet UET_ENGINE_DEBUG=1 "$B/fi_soak" \
		-c "$IP_B" -p "$port" -T "$limit" -m "$mode" -M "$mib" \
		> "$E2E_TMP/client.out" 2> "$E2E_TMP/client.err" || rc=$?
	wait "$s" || src=$?
	dt=$(( $(now_ms) - t0 ))
	fault off
	if [ $rc != 0 ] || [ $src != 0 ] ||
	   ! grep -q "^fi_soak: $mode: " "$E2E_TMP/client.out" ||
	   ! grep -q "^fi_soak: server: all ok" "$E2E_TMP/server.out"; then
		for f in client.out client.err server.out server.err; do
			grep -v '^pdc' "$E2E_TMP/$f" | tail -20 |
				sed "s/^/  $f: /"
		done
		e2e_fail "$pct% loss, $mode, $mib MiB: client rc $rc," \
			"server rc $src after $dt ms (limit $limit s)"
	fi
	line=$(sed -n "s/^fi_soak: $mode: //p" "$E2E_TMP/client.out")
	echo "  $pct% loss, $mode: $line"
	for side in A B; do
		n=$(( $(counter $side seen) - seen[$side] ))
		d=$(( $(counter $side fault_dropped) - drop[$side] ))
		loss+=" $side dropped $d of $n UET frames"
		loss+=" ($(( n ? d * 1000 / n : 0 )) per mille);"
		# The loss was there: within 0.6 and 1.4 times the setting.
		if [ $(( d * 1000 )) -lt $(( n * pct * 6 )) ] ||
		   [ $(( d * 1000 )) -gt $(( n * pct * 14 )) ]; then
			e2e_fail "$pct% loss, $mode: side $side dropped $d" \
				"of $n frames"
		fi
	done
	echo " $loss"
	echo "  retransmissions: client $(retx "$E2E_TMP/client.err")," \
		"server $(retx "$E2E_TMP/server.err")"
	e2e_ok "$pct% loss each way, $mode, $mib MiB verified ($dt ms)"
	TOTAL_B=$(( TOTAL_B + ${line%% bytes*} ))
}

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done
TOTAL_B=0
T0=$(now_ms)
G=$SOAK_GIB
# Tagged messages carry 0.8 of their nominal MiB (lengths vary).
soak 5 rma $(( 384 * G )) $(( 120 * G ))
soak 5 tag $(( 320 * G )) $(( 120 * G ))
soak 30 rma $(( 256 * G )) $(( 180 * G ))
soak 30 tag $(( 256 * G )) $(( 180 * G ))
[ "$TOTAL_B" -ge $(( 1024 * 1048576 * G )) ] ||
	e2e_fail "only $TOTAL_B bytes"
e2e_ok "$TOTAL_B bytes ($(( TOTAL_B >> 20 )) MiB) in all, every byte" \
	"checked, in $(( ($(now_ms) - T0) / 1000 )) s"
