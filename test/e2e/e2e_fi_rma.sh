#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The RMA battery of issue 6 between two namespaces at MTU 9000 (Payload
# MTU 8192): fi_rma_check over uet on IPv4 and IPv6 and, unchanged, over
# tcp, with the completion levels of writes (issue 13: inject complete
# while the server sleeps, its buffer overwritten at once; on uet transmit
# and delivery complete only once it woke) and, on uet, the counters of
# remote events (-R: one per write or read landed, at the endpoint and at
# the region); 256 MiB written and verified with 5% loss each way; the
# server killed mid-transfer, and how long the client takes to see it.
source "$(dirname "$0")/e2e_lib.sh"
FI_PROVIDER_PATH="$(cd "$B" && pwd)"
export FI_PROVIDER_PATH
LIMIT_S=60		# each fi_rma_check gives up after this (alarm)
PEER_DEAD_MS=5000	# issue 6: error completions within 5 s of the kill


# The programs' own lines, indented and without their " ok" (the e2e
# tally counts lines ending in " ok": one per check of this script).
details() { grep "^fi_rma_check: $1" | sed -e 's/ ok$//' -e 's/^/  /'; }

# server PROVIDER ADDR [ARGS...]: starts fi_rma_check -s in B; sets SPID
# and PORT.
server() {
	PORT=$((46000 + RANDOM % 3000))
	# The completion levels need a target that makes no progress while
	# it sleeps: no progress thread there (e2e_fi_programs runs it).
	e2e_in B env FI_PROVIDER="$1" FI_UET_PROGRESS_IDLE_US=0 \
		"$B/fi_rma_check" -s -a "$2" \
		-p "$PORT" -T "$LIMIT_S" "${@:3}" > "$E2E_TMP/server.out" 2>&1 &
	SPID=$!
}

# pair PROVIDER ADDR CLIENT_ARGS...: server and client run to their end;
# prints both outputs; fails if either does. -R goes to both.
pair() {
	local prov=$1 addr=$2 rc=0 src=0 sargs=()
	shift 2
	[[ " $* " == *" -R "* ]] && sargs=(-R)
	server "$prov" "$addr" "${sargs[@]}"
	e2e_in A env FI_PROVIDER="$prov" "$B/fi_rma_check" -c "$addr" \
		-p "$PORT" -T "$LIMIT_S" "$@" > "$E2E_TMP/client.out" 2>&1 ||
		rc=$?
	wait "$SPID" || src=$?
	cat "$E2E_TMP/client.out" "$E2E_TMP/server.out"
	[ "$rc" = 0 ] && [ "$src" = 0 ]
}

# battery NAME PROVIDER ADDR CLIENT_ARGS...: the battery, and the lines
# that show each part of it ran.
battery() {
	local name=$1 out t0 want
	shift
	t0=$(now_ms)
	out=$(pair "$@") || e2e_fail "$name: $out"
	for want in "server at [^ ]*${2:0:8}" \
		"1 B at offset 0: .* ok" "67108864 B at offset 0: .* ok" \
		"fi_writedata: .* ok" "fi_inject_write .* ok" \
		"read of the read-only region ok" \
		"write with a wrong key: error completion .* ok" \
		"write past the end: error completion .* ok" \
		"without FI_REMOTE_WRITE: error completion .* ok" \
		"untouched ok" "server: 0 failed" \
		"writes with inject, transmit and delivery complete: .* ok"; do
		grep -q "$want" <<< "$out" ||
			e2e_fail "$name: no '$want': $out"
	done
	if [[ " $* " == *" -R "* ]]; then
		grep -q "counters of remote events: .* ok" <<< "$out" ||
			e2e_fail "$name: no counters of remote events: $out"
	fi
	echo "$out" | details "[^s]"
	e2e_ok "$name ($(( $(now_ms) - t0 )) ms)"
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

# -E: the refusals must carry RC_BAD_MKEY, RC_BAD_ADDR, RC_PERM_VIOLATION.
# On IPv6 refused writes are fi_writemsg(FI_DELIVERY_COMPLETE) (-D).
battery "battery over uet, IPv4, counters of remote events" uet "$IP_B" -E -R
battery "battery over uet, IPv6, refused writes with delivery complete" \
	uet "$IP6_B" -E -D
# tcp;ofi_rxm completes a plain fi_write once sent, so a target's refusal
# never reaches it: there refused writes ask for delivery complete (-D).
# The target then drops the connection: the first refused operation fails
# FI_ECANCELED, the next ones FI_ENOTCONN until rxm reconnects. So tcp
# shows error completions and untouched regions, not a verdict of its own
# per operation, and no UET codes (no -E).
battery "the same battery, unchanged, over tcp" tcp "$IP_B" -D

# Known weakness (reported for issue 6): on a CPU-starved machine a lost
# packet's recovery can take over 500 ms, and pdc_ini_put() then fails the
# whole PDC (its time_wait/2 rule): the client sees FI_ETIMEDOUT here with
# the server alive. Passes when the machine runs this test alone.
declare -A seen drop
for side in A B; do
	seen[$side]=$(counter $side seen)
	drop[$side]=$(counter $side fault_dropped)
done
fault 5
t0=$(now_ms)
out=$(pair uet "$IP_B" -m bulk -B 256) || e2e_fail "5% loss: $out"
grep -q "bulk: 256 MiB .* checked and read back" <<< "$out" ||
	e2e_fail "5% loss: $out"
echo "$out" | details "bulk"
# The loss was there: 2-10% of the UET frames each side saw (thousands).
for side in A B; do
	n=$(( $(counter $side seen) - seen[$side] ))
	d=$(( $(counter $side fault_dropped) - drop[$side] ))
	echo "  $side dropped $d of $n UET frames"
	if [ $(( d * 100 )) -lt $(( n * 2 )) ] ||
	   [ $(( d * 100 )) -gt $(( n * 10 )) ]; then
		e2e_fail "side $side dropped $d of $n frames"
	fi
done
e2e_ok "256 MiB written, checked and read back over uet with 5% loss" \
	"each way ($(( $(now_ms) - t0 )) ms)"
fault off

# The server killed while the client writes: within PEER_DEAD_MS of the
# kill the client must have an error completion (FI_ETIMEDOUT, or with -E
# FI_ECONNRESET / FI_EADDRNOTAVAIL when the server's device service
# answers for the dead process), have seen every write in flight
# complete, have a new write fail, and exit.
server uet "$IP_B"
e2e_in A env FI_PROVIDER=uet "$B/fi_rma_check" -c "$IP_B" -p "$PORT" \
	-T "$LIMIT_S" -m victim -E > "$E2E_TMP/client.out" 2>&1 &
cpid=$!
for _ in $(seq 100); do	# 10 s
	grep -q "victim: writing" "$E2E_TMP/client.out" && break
	sleep 0.1
done
grep -q "victim: writing" "$E2E_TMP/client.out" ||
	e2e_fail "no writes: $(cat "$E2E_TMP/client.out" "$E2E_TMP/server.out")"
victim=$(sed -n 's/.*server: pid \([0-9]*\) ready/\1/p' "$E2E_TMP/server.out")
[ -n "$victim" ] || e2e_fail "no server pid: $(cat "$E2E_TMP/server.out")"
t0=$(now_ms)
kill -9 "$victim"
rc=0
wait "$cpid" || rc=$?
dt=$(( $(now_ms) - t0 ))
wait "$SPID" 2>/dev/null || true
out=$(cat "$E2E_TMP/client.out")
[ "$rc" = 0 ] || e2e_fail "server killed: client rc $rc after $dt ms: $out"
t_err=$(echo "$out" | sed -n 's/.*first error at \([0-9]*\) ms.*/\1/p')
[ -n "$t_err" ] || e2e_fail "server killed: no first error: $out"
[ "$dt" -le "$PEER_DEAD_MS" ] ||
	e2e_fail "server killed: the client took $dt ms: $out"
echo "$out" | details "victim: error"
e2e_ok "server killed mid-transfer: first error completion" \
	"$(( t_err - t0 )) ms after the kill, all done in $dt ms"
