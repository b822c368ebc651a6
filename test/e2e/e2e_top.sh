#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# uetctl top (issue 44): a ping-pong of JobID J between A (root's client)
# and B (nobody's server) runs 8 s; meanwhile `uetctl top IFACE --once`,
# by root in A and by nobody in B (no privilege: the service answers
# anyone, as for stats), must show each side's endpoint with the process's
# pid, user and JobID, one PDC or more, and frames and bytes moving both
# ways. Once the programs are gone their rows must be too; with no
# service, top says so and fails; `echo q |` ends the live view.
source "$(dirname "$0")/e2e_lib.sh"

JOB=$((3000 + $$ % 1000))

# row FILE PID: the endpoint line of process PID in top's screen FILE.
row() { awk -v p="$2" '$1 ~ /^[0-9]+$/ && $3 == p' "$1"; }

# pid_of SIDE PROG: the process PROG in that side's namespace (one).
pid_of() {
	local ns=NS_$1 p
	for p in $(ip netns pids "${!ns}"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$2" ] &&
			{ echo "$p"; return 0; }
	done
	return 1
}

# check_row FILE PID USER: PID's row has USER, JobID J, a PDC or more,
# and frames and bytes per second each way above 0. Sets $why.
check_row() {
	local r
	r=$(row "$1" "$2")
	[ -n "$r" ] || { why="no row for pid $2: $(cat "$1")"; return 1; }
	read -r _ _ _ user job pdc txf txb rxf rxb _ <<< "$r"
	[ "$user" = "$3" ] && [ "$job" = "$JOB" ] && [ "$pdc" -ge 1 ] &&
		[ "$txf" != 0 ] && [ "$txb" != 0 ] && [ "$rxf" != 0 ] &&
		[ "$rxb" != 0 ] ||
		{ why="want $3, JobID $JOB, PDCs, traffic: $r"; return 1; }
}

e2e_setup 9000
# nobody runs the server, the provider and uetctl: copies it reaches.
e2e_stage "$B/libuet-fi.so" "$B/uet_pingpong" "$B/uetctl"
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done

port=$((46000 + RANDOM % 1000))
e2e_as_nobody B env FI_PROVIDER=uet FI_PROVIDER_PATH="$E2E_STAGE" \
	FI_UET_JOB_ID="$JOB" timeout 30 "$E2E_STAGE/uet_pingpong" -s \
	-a "$IP_B" -p "$port" -n 1024 -i 2000000 > "$E2E_TMP/srv.out" 2>&1 &
srv=$!
sleep 0.5
e2e_in A env FI_PROVIDER=uet FI_PROVIDER_PATH="$E2E_STAGE" \
	FI_UET_JOB_ID="$JOB" timeout 30 "$B/uet_pingpong" -c "$IP_B" \
	-p "$port" -n 1024 -i 2000000 -D 8 > "$E2E_TMP/cli.out" 2>&1 &
cli=$!
# Both endpoints open and, as top sees it, trading: 12 looks of 0.3 s,
# well inside the client's 8 s. Not trading by then is for the checks
# below to report.
pa= pb=
for _ in $(seq 12); do
	[ -n "$pa" ] || pa=$(pid_of A uet_pingpong) || true
	[ -n "$pb" ] || pb=$(pid_of B uet_pingpong) || true
	[ -n "$pa" ] && [ -n "$pb" ] &&
		e2e_in A "$B/uetctl" top "$IF_A" --once --interval 0.2 |
		awk -v p="$pa" '$3 == p && $7 != 0 { f = 1 } END { exit !f }' &&
		break
	sleep 0.1
done
[ -n "$pa" ] && [ -n "$pb" ] ||
	e2e_fail "the ping-pong did not start: $(cat "$E2E_TMP"/*.out)"

e2e_in A "$B/uetctl" top "$IF_A" --once > "$E2E_TMP/top.a" 2>&1 || true
e2e_as_nobody B "$E2E_STAGE/uetctl" top "$IF_B" --once \
	> "$E2E_TMP/top.b" 2>&1 || true
sed 's/^/  A: /' "$E2E_TMP/top.a"
sed 's/^/  B: /' "$E2E_TMP/top.b"
e2e_check "root's top in A: the client (pid $pa, root, JobID $JOB) moves" \
	check_row "$E2E_TMP/top.a" "$pa" root
e2e_check "nobody's top in B: the server (pid $pb, nobody) moves" \
	check_row "$E2E_TMP/top.b" "$pb" nobody
e2e_check "top fits 80 columns" \
	awk 'length($0) >= 80 { exit 1 }' "$E2E_TMP/top.a" "$E2E_TMP/top.b"

rc=0
wait "$cli" || rc=$?
wait "$srv" || rc=$?
[ "$rc" = 0 ] && grep -q "half round trip" "$E2E_TMP/cli.out" ||
	e2e_fail "the ping-pong failed ($rc): $(cat "$E2E_TMP"/*.out)"
why="a row left: $(e2e_in A "$B/uetctl" top "$IF_A" --once --interval 0.2)"
e2e_check "the client gone, so is its row" \
	grep -q "^uetctl top $IF_A: 0 endpoints" \
	<(e2e_in A "$B/uetctl" top "$IF_A" --once --interval 0.2)

# The live view, stdout not a terminal: plain screens until q.
t0=$(now_ms)
{ sleep 1.5; echo q; } | e2e_in A timeout 10 "$B/uetctl" top "$IF_A" \
	> "$E2E_TMP/live" 2>&1 && rc=0 || rc=$?
why="rc $rc, $(( $(now_ms) - t0 )) ms: $(cat "$E2E_TMP/live")"
e2e_check "q ends the live view" \
	test "$rc" = 0 -a "$(grep -c '^uetctl top' "$E2E_TMP/live")" -ge 1

rc=0
out=$(e2e_in B "$B/uetctl" top lo --once 2>&1) || rc=$?
why="rc $rc: $out"
e2e_check "no service: top says so and fails" \
	test "$rc" = 1 -a -n "$(grep 'no device service' <<< "$out")"
e2e_checks_done
