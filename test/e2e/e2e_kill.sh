#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# kill -9 of one side mid-transfer (issue [R]), fi_soak over uet between
# two namespaces at MTU 9000:
#  a) the target killed while the initiator writes (RMA) or sends (tagged):
#     the survivor's first error completion within KILL_BOUND_MS of the
#     kill, every operation in flight then completes (success or error), a
#     new one fails, and the program exits 0;
#  b) the initiator killed while it writes into the target: the target
#     serves a second client, whose writes are checked byte by byte;
#  c) the initiator killed while it sends tagged messages of 8 MiB (1024
#     packets each: the kill lands mid-message) into posted receives: the
#     target reports what came back by itself, cancels the rest (each must
#     come back, FI_ECANCELED, within 5 s) and serves a second client,
#     whose messages are checked.
# Each kill comes at a random moment once the transfer runs.
source "$(dirname "$0")/e2e_lib.sh"
FI_PROVIDER_PATH="$(cd "$B" && pwd)"
export FI_PROVIDER_PATH
LIMIT_S=60		# each fi_soak gives up after this (alarm)
# The server's namespace: B, or A for two endpoints of one interface
# (e2e_kill_local.sh: their local channel).
SRV=${KILL_SERVER_SIDE:-B}
SRV_IP_VAR=IP_$SRV
KILL_BOUND_MS=5000


# wait_for FILE PATTERN [SECONDS]: up to SECONDS (10) for a line.
wait_for() {
	for _ in $(seq $(( ${3:-10} * 10 ))); do
		grep -q "$2" "$1" && return 0
		sleep 0.1
	done
	e2e_fail "no '$2' in $1: $(cat "$E2E_TMP"/*.out)"
}

# server ARGS...: fi_soak -s in B; sets SPID and PORT.
server() {
	PORT=$((46000 + RANDOM % 3000))
	e2e_in "$SRV" env FI_PROVIDER=uet FI_UET_STATS=1 "$B/fi_soak" -s \
		-a "${!SRV_IP_VAR}" -p "$PORT" \
		-T "$LIMIT_S" "$@" > "$E2E_TMP/server.out" 2>&1 &
	SPID=$!
}

# client NAME ARGS...: fi_soak -c in A, output in NAME.out; sets CPID.
client() {
	local name=$1
	shift
	e2e_in A env FI_PROVIDER=uet FI_UET_STATS=1 "$B/fi_soak" \
		-c "${!SRV_IP_VAR}" -p "$PORT" \
		-T "$LIMIT_S" "$@" > "$E2E_TMP/$name.out" 2>&1 &
	CPID=$!
}

# pid_of FILE WHAT: the pid fi_soak printed ("client: pid N" or
# "server: pid N").
pid_of() {
	sed -n "s/.*$2: pid \([0-9]*\).*/\1/p" "$1" | head -1
}

random_pause() { sleep "0.$(( RANDOM % 10 ))$(( RANDOM % 10 ))"; }

dump() { for f in "$E2E_TMP"/*.out; do sed "s|^|  $(basename "$f"): |" "$f"; done; }

# a) target_killed MODE [ARGS...]: the server dies under a -K client.
target_killed() {
	local mode=$1 victim t0 rc=0 dt t_err
	shift
	rm -f "$E2E_TMP"/*.out
	server
	client c1 -m "$mode" -K "$@"
	wait_for "$E2E_TMP/c1.out" "^fi_soak: running"
	random_pause
	victim=$(pid_of "$E2E_TMP/server.out" server)
	[ -n "$victim" ] || e2e_fail "a) $mode: no server pid: $(dump)"
	t0=$(now_ms)
	kill -9 "$victim"
	wait "$CPID" || rc=$?
	dt=$(( $(now_ms) - t0 ))
	wait "$SPID" 2>/dev/null || true
	[ "$rc" = 0 ] || e2e_fail "a) $mode: client rc $rc after $dt ms: $(dump)"
	t_err=$(sed -n 's/.*first error at \([0-9]*\) ms.*/\1/p' \
		"$E2E_TMP/c1.out")
	[ -n "$t_err" ] || e2e_fail "a) $mode: no first error: $(dump)"
	[ "$dt" -le "$KILL_BOUND_MS" ] ||
		e2e_fail "a) $mode: the client took $dt ms: $(dump)"
	grep "^fi_soak: \(first error\|survivor\)" "$E2E_TMP/c1.out" |
		sed 's/^/  /'
	grep "first error: error completion" "$E2E_TMP/c1.out" | sed 's/^/  /'
	e2e_ok "a) target killed during $mode${*:+ $*}: first error" \
		"completion" \
		"$(( t_err - t0 )) ms after the kill, all done and exited in" \
		"$dt ms"
}

# b), c) initiator_killed MODE ARGS...: the first client dies, the
# second must pass.
initiator_killed() {
	local mode=$1 victim t0 rc=0 src=0 dt tag=$2
	shift 2
	rm -f "$E2E_TMP"/*.out
	server -C 2 "$@"
	client c1 -m "$mode" -K "$@"
	wait_for "$E2E_TMP/c1.out" "^fi_soak: running"
	random_pause
	victim=$(pid_of "$E2E_TMP/c1.out" client)
	[ -n "$victim" ] || e2e_fail "$tag) $mode: no client pid: $(dump)"
	t0=$(now_ms)
	kill -9 "$victim"
	wait "$CPID" 2>/dev/null || true
	wait_for "$E2E_TMP/server.out" "session 1: client gone"
	dt=$(( $(now_ms) - t0 ))
	# A tag session's receives: what came back by itself, then canceled.
	[ "$mode" = rma ] || wait_for "$E2E_TMP/server.out" "canceled" 20
	! grep -q "[1-9][0-9]* never came back" "$E2E_TMP/server.out" ||
		e2e_fail "$tag) $mode: posted receives hang: neither completed" \
			"by themselves nor canceled by fi_cancel: $(dump)"
	client c2 -m "$mode" -M 64 "$@"
	wait "$CPID" || rc=$?
	wait "$SPID" || src=$?
	if [ $rc != 0 ] || [ $src != 0 ] ||
	   ! grep -q "^fi_soak: $mode: .*checked" "$E2E_TMP/c2.out" ||
	   ! grep -q "^fi_soak: server: all ok" "$E2E_TMP/server.out"; then
		e2e_fail "$tag) $mode: second client rc $rc, server rc $src:" \
			"$(dump)"
	fi
	grep "^fi_soak: server: .*\(client gone\|canceled\)" \
		"$E2E_TMP/server.out" | sed 's/^/  /' || true
	sed -n "s/^fi_soak: $mode: /  second client: /p" "$E2E_TMP/c2.out"
	e2e_ok "$tag) initiator killed during $mode: the target saw it go in" \
		"$dt ms and served a second client, checked"
}

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done
T0=$(now_ms)
target_killed rma
target_killed rma -r
target_killed tag
initiator_killed rma b
# Above 64 KiB uet sends by rendezvous: the receiver pulls the data with a
# READ. The partial-message idle time-out is 5 s: -G 6000 lets it act.
initiator_killed tag c -n 8388608 -w 4 -G 6000
# At MTU 1500 (Payload MTU 1024) an 8 KiB message goes eager in 8
# packets: the kill lands between a message's packets.
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" ip link set "${!ifc}" mtu 1500
done
initiator_killed tag "c, MTU 1500, eager" -n 8192 -w 16 -G 6000
if [ "$SRV" = A ]; then
	lt=$(e2e_engine_stat "$E2E_TMP/c2.out" local_tx)
	fr=$(e2e_engine_stat "$E2E_TMP/c2.out" tx_frames)
	[ "$lt" -gt 0 ] && [ "$fr" = 0 ] ||
		e2e_fail "the last client sent $lt records and $fr frames"
	e2e_ok "the last client's packets went through the local channel" \
		"($lt records, no frame)"
fi
e2e_log "$(( ($(now_ms) - T0) / 1000 )) s"
