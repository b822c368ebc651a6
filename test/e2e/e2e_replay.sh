#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Rejected frames replayed with a legitimate client's next message_ids
# (issue [R]). The target T serves a 1 MiB region holding a pattern
# (fi_flood_check -s); the client C writes 8 blocks, then waits. Its frames
# are captured in C (uetctl capture: the engine mirrors what it sends), and
# uet_flood learns from them the client's address, MAC, UDP source port,
# endpoint index, live PDC ids, PSNs, last message_id, JobID, PIDonFEP, RI,
# key. It then sends, as raw frames from C's interface with all of those,
# every rejected-frame kind with each of the 16 message_ids the client will
# use next: SYNs of new PDCs (under the client's endpoint index) with a bad
# JobID, PIDonFEP, RI, key, an offset or a length outside the region, a
# malformed SES header; requests on the live PDC with PSNs it already used
# (replays) and a bad key; a wrong SPDCID for the live DPDCID; an unknown
# DPDCID; a SYN reusing the live SPDCID with another start PSN. Then the
# client writes its next 16 blocks: each must complete without error, the
# data verify, nothing land elsewhere, and a second capture must show the
# client really used the attacked ids. Done twice: with the client's PDC
# live, and after the target closed it for idleness (its next writes then
# open a new PDC); then each kind alone against a live PDC.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
LIMIT_S=30
JOB=101
IDS=16			# next message_ids attacked, and writes that follow




indent() { sed -e 's/ ok$//' -e "s/^/  $1/"; }

# capture_start FILE: uetctl capture on C's interface; sets CAP.
capture_start() {
	ip netns exec "$NS_C" "$B/uetctl" capture "$IF_C" -w "$1" \
		> "$1.out" 2>&1 &
	CAP=$!
	sleep 0.3	# the tap and the mirror on before anything is sent
}

capture_stop() {
	kill -INT "$CAP" 2>/dev/null
	wait "$CAP" || e2e_log "capture: $(cat "$1.out")"
}

# run_case NAME IDLE_MS SERVICE [KINDS]: KINDS as uet_flood --kinds
# (default: all).
run_case() {
	local name=$1 idle=$2 svc=$3 kinds=${4:-} port=$((47000 + RANDOM % 2000))
	local out="$E2E_TMP/$svc" srv cli crc=0 src=0 rrc=0 t0 dt first want
	local cargs=(-w 8 -g "$E2E_TMP/go-$svc" -n "$IDS")
	mkdir -p "$out"
	e2e_log "case: $name"
	[ "$idle" = 0 ] || cargs+=(-i "$idle")
	e2e_in T env FI_PROVIDER=uet FI_UET_JOB_ID=$JOB UET_ENGINE_DEBUG=1 \
		"$B/fi_flood_check" -s -a "$IP_T" -P "$svc" -p "$port" \
		-T "$LIMIT_S" > "$out/server.out" 2>&1 &
	srv=$!
	e2e_wait_for "$out/server.out" "server: pid_on_fep" 10 ||
		e2e_fail "$name: no server: $(cat "$out/server.out")"
	capture_start "$out/before.pcap"
	e2e_in C env FI_PROVIDER=uet FI_UET_JOB_ID=$JOB UET_ENGINE_DEBUG=1 \
		"$B/fi_flood_check" -c "$IP_T" -P "$svc" -p "$port" \
		-T "$LIMIT_S" "${cargs[@]}" > "$out/client.out" 2>&1 &
	cli=$!
	if ! e2e_wait_for "$out/client.out" "warm-up: writes" 15; then
		kill "$srv" "$cli" "$CAP" 2>/dev/null
		cat "$out/client.out" "$out/server.out" >&2
		e2e_fail "$name: the client did not come through its warm-up"
	fi
	t0=$(now_ms)
	capture_stop "$out/before.pcap"
	e2e_wait_for "$out/client.out" "waiting for" 10 || true
	e2e_in C "$B/uet_flood" replay --pcap "$out/before.pcap" \
		--dst "$IP_T" --raw "$IF_C" --ids "$IDS" --rate 20000 \
		${kinds:+--kinds "$kinds"} > "$out/replay.out" 2>&1 || rrc=$?
	dt=$(( $(now_ms) - t0 ))
	sed 's/^uet_flood: //' "$out/replay.out" | indent "attacker: "
	e2e_log "$name: replay sent $dt ms after the client's last write"
	capture_start "$out/after.pcap"
	touch "$E2E_TMP/go-$svc"
	wait "$cli" || crc=$?
	wait "$srv" || src=$?
	capture_stop "$out/after.pcap"
	grep "client: .*writes [0-9]* errors\|first error\|completed" \
		"$out/client.out" | sed 's/^fi_flood_check: //' | indent ""
	grep "^fi_flood_check: server: \(client\|rest\|FAIL\)" \
		"$out/server.out" | sed 's/^fi_flood_check: //' | indent ""
	grep "^uet_engine_stats" "$out/server.out" | indent "target "
	"$B/uet_flood" learn --pcap "$out/after.pcap" --dst "$IP_T" \
		> "$out/after.out" 2>&1 || true
	sed 's/^uet_flood: /after: /' "$out/after.out" | indent ""

	why=$(tail -n 1 "$out/replay.out")
	e2e_check "$name: the attacker learnt the client's flow and sent every kind" \
		test "$rrc" = 0
	want=$(sed -n 's/.*message_ids \(0x[0-9a-f]*\)\.\..*/\1/p' \
		"$out/replay.out")
	first=$(sed -n 's/.*first_id \(0x[0-9a-f]*\) .*/\1/p' "$out/after.out")
	why="attacked from '$want', the client's next writes began at '$first'"
	e2e_check "$name: the attacked message_ids are those the client used next" \
		test -n "$want" -a "$want" = "$first"
	why=$(sed -n 's/.*first error: //p' "$out/client.out" | head -n 1)
	e2e_check "$name: the client's next $IDS writes completed without error" \
		grep -q "client: main: writes $IDS errors 0" "$out/client.out"
	why=$(grep "server: FAIL" "$out/server.out" | head -n 1 || true)
	e2e_check "$name: the client's range holds what it wrote" \
		grep -q "client range .* holds the client's data ok" \
		"$out/server.out"
	why=$(grep "server: FAIL" "$out/server.out" | tail -n 1 || true)
	e2e_check "$name: nothing of the attacker's landed elsewhere" \
		grep -q "rest of the region .* holds the pattern ok" \
		"$out/server.out"
	[ "$crc" = 0 ] || e2e_log "$name: client exit $crc"
	[ "$src" = 0 ] || e2e_log "$name: server exit $src"
}

e2e_setup3
for side in T C; do
	e2e_in "$side" "$B/uetctl" load ueth0 --mode skb >/dev/null
done
e2e_in C ping -c 1 -W 2 "$IP_T" >/dev/null

run_case "live PDC, every kind" 0 81
# The attack then meets a closed PDC; the client's next writes open one.
run_case "PDC closed for idleness, every kind" 2500 82
# Each kind alone against a live PDC: which ones hurt, if any.
svc=90
for kind in $("$B/uet_flood" replay --list-kinds); do
	run_case "live PDC, $kind" 0 "$svc" "$kind"
	svc=$((svc + 1))
done

e2e_checks_done
