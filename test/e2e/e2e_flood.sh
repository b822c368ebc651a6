#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A SYN flood against a target while a legitimate client writes to it
# (issue [R]). Three hosts on a bridge: the target T serves a 1 MiB region
# holding a pattern (fi_flood_check -s), the client C writes 4 KiB blocks
# into its first 64 KiB one at a time, timing each, and the flooder F sends
# 5000 SYN requests (uet_flood syn: wrong keys, wrong generations, ranges
# outside the region, wrong JobIDs and PIDonFEPs, truncated SES headers,
# lying lengths, garbage), over UDP from F's address or as raw frames from
# random spoofed addresses of the subnet. Four cases:
#   live PDC, UDP flood; live PDC, spoofed flood: the client writes all
#     through the flood;
#   idle PDC, UDP flood; idle PDC, spoofed flood: the client's PDC is
#     closed for idleness first (target idle close 1 s, pdc_cfg_init), so
#     its first write during the flood opens a new PDC.
# Each case checks: the flood went out, (idle cases) the client's frames
# (uetctl capture in C) show a second PDC, every write of the client
# completed without error, the client's range holds what it wrote, the
# rest of the region still the pattern. Figures (latency p50/p99/max,
# counts, the target's counters) are printed for the record.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
LIMIT_S=30		# each program gives up after this (alarm)
JOB=101			# the JobID of target and client (FI_UET_JOB_ID)
SYNS=5000
RATE=2500		# SYNs a second: the flood lasts 2 s
IDLE_MS=2500		# > the target's idle close (1 s) and its CLOSE_REQs
REGION=$((1 << 20))




indent() { sed -e 's/ ok$//' -e "s/^/  $1/"; }

# flood MODE: uet_flood syn from F at the target of this case.
flood() {
	local args=(--dst "$IP_T" --job "$JOB" --pid "$pid" --ri "$ri"
		    --key "$key" --region "$REGION" --count "$SYNS"
		    --rate "$RATE")
	[ "$1" = spoofed ] && args+=(--raw "$IF_F" --spoof "$E2E_NET")
	e2e_in F "$B/uet_flood" syn "${args[@]}" > "$out/flood.out" 2>&1
}

# case NAME IDLE(0|1) MODE(udp|spoofed) SERVICE
run_case() {
	local name=$1 idle=$2 mode=$3 svc=$4 port=$((47000 + RANDOM % 2000))
	local cargs=(-w 8 -g "$E2E_TMP/go-$svc") out="$E2E_TMP/$svc"
	local srv cli cap frc=0 crc=0 src=0 t0 main pdcs
	mkdir -p "$out"
	e2e_log "case: $name"
	e2e_in T env FI_PROVIDER=uet FI_UET_JOB_ID=$JOB UET_ENGINE_DEBUG=1 \
		"$B/fi_flood_check" -s -a "$IP_T" -P "$svc" -p "$port" \
		-T "$LIMIT_S" -L "$REGION" > "$out/server.out" 2>&1 &
	srv=$!
	e2e_wait_for "$out/server.out" "server: pid_on_fep" 10 ||
		e2e_fail "$name: no server: $(cat "$out/server.out")"
	# The target's PIDonFEP, RI and key, for the flooder.
	pid=$(sed -n 's/.*pid_on_fep \([0-9]*\) .*/\1/p' "$out/server.out")
	ri=$(sed -n 's/.* ri \([0-9]*\) .*/\1/p' "$out/server.out")
	key=$(sed -n 's/.* key \([0-9a-fx]*\) .*/\1/p' "$out/server.out")
	if [ "$idle" = 1 ]; then
		cargs+=(-i "$IDLE_MS" -d 3000)
	else
		cargs+=(-d 3500)
	fi
	# Idle cases: the client's frames, to count its PDCs (uetctl
	# capture in C; not in the others, where it would weigh on latency).
	if [ "$idle" = 1 ]; then
		ip netns exec "$NS_C" "$B/uetctl" capture "$IF_C" \
			-w "$out/c.pcap" > "$out/cap.out" 2>&1 &
		cap=$!
		sleep 0.3
	fi
	e2e_in C env FI_PROVIDER=uet FI_UET_JOB_ID=$JOB UET_ENGINE_DEBUG=1 \
		"$B/fi_flood_check" -c "$IP_T" -P "$svc" -p "$port" \
		-T "$LIMIT_S" "${cargs[@]}" > "$out/client.out" 2>&1 &
	cli=$!
	if ! e2e_wait_for "$out/client.out" "waiting for" 15; then
		kill "$srv" "$cli" 2>/dev/null
		cat "$out/client.out" "$out/server.out" >&2
		e2e_fail "$name: the client did not come through its warm-up"
	fi
	t0=$(now_ms)
	if [ "$idle" = 1 ]; then
		# The flood first; the client's new PDC once it is under way.
		flood "$mode" &
		local fpid=$!
		sleep 0.4
		touch "$E2E_TMP/go-$svc"
		wait "$fpid" || frc=$?
	else
		# The client writes; the flood comes 0.5 s into its writes.
		touch "$E2E_TMP/go-$svc"
		sleep 0.5
		flood "$mode" || frc=$?
	fi
	wait "$cli" || crc=$?
	wait "$srv" || src=$?
	if [ "$idle" = 1 ]; then
		kill -INT "$cap"
		wait "$cap" || true
		"$B/uet_flood" learn --pcap "$out/c.pcap" --dst "$IP_T" \
			> "$out/learn.out" 2>&1 || true
		pdcs=$(sed -n 's/.* \([0-9]*\) PDCs).*/\1/p' \
			"$out/learn.out")
		sed -n 's/^uet_flood: learnt/client frames: learnt/p' \
			"$out/learn.out" | indent ""
	fi
	sed -n 's/^uet_flood: //p' "$out/flood.out" | indent "flooder: "
	grep "client: .*writes [0-9]* errors\|first error\|completed" \
		"$out/client.out" | sed 's/^fi_flood_check: //' | indent ""
	grep "^fi_flood_check: server: \(client\|rest\|FAIL\)" \
		"$out/server.out" | sed 's/^fi_flood_check: //' | indent ""
	grep "^uet_engine_stats" "$out/server.out" | indent "target "
	grep "FAIL: time limit" "$out/server.out" "$out/client.out" |
		indent "" || true
	e2e_in T "$B/uetctl" stats "$IF_T" --json 2>/dev/null |
		indent "target uetctl stats: "
	main=$(grep "client: main: writes" "$out/client.out" || true)

	why=$(tail -n 1 "$out/flood.out")
	e2e_check "$name: the flooder sent $SYNS SYNs ($mode)" \
		test "$frc" = 0
	why=$(sed -n 's/.*first error: //p' "$out/client.out" | head -n 1)
	[ -n "$main" ] || why="the client never started its writes"
	e2e_check "$name: every write of the client during the flood completed" \
		test "$crc" = 0 -a -n "$main" \
		-a -z "$(grep 'errors [1-9]' "$out/client.out")"
	why=$(grep "server: FAIL" "$out/server.out" | head -n 1 || true)
	e2e_check "$name: the client's range holds what it wrote" \
		grep -q "client range .* holds the client's data ok" \
		"$out/server.out"
	why=$(grep "server: FAIL" "$out/server.out" | tail -n 1 || true)
	e2e_check "$name: the rest of the region still holds the pattern" \
		grep -q "rest of the region .* holds the pattern ok" \
		"$out/server.out"
	if [ "$idle" = 1 ]; then
		why="the client's frames show ${pdcs:-no} PDC(s)"
		e2e_check "$name: the client's writes during the flood went on a new PDC" \
			test "${pdcs:-0}" -ge 2
	fi
	[ "$src" = 0 ] || e2e_log "$name: server exit $src"
	e2e_log "$name: done in $(( $(now_ms) - t0 )) ms"
}

e2e_setup3
for side in T C; do
	e2e_in "$side" "$B/uetctl" load ueth0 --mode skb >/dev/null
done
# Neighbours learnt before the flood (the flooder's raw frames need T's MAC).
e2e_in C ping -c 1 -W 2 "$IP_T" >/dev/null
e2e_in F ping -c 1 -W 2 "$IP_T" >/dev/null

run_case "live PDC, UDP flood from F" 0 udp 77
run_case "live PDC, flood from spoofed sources" 0 spoofed 78
run_case "idle-closed PDC, new PDC during a UDP flood" 1 udp 79
run_case "idle-closed PDC, new PDC during a spoofed flood" 1 spoofed 80

e2e_checks_done
