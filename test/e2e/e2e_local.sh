#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Endpoints of one interface talking to each other (issues 12 and 32):
# two processes in one namespace, each an endpoint of the same device
# service, run the messaging battery (fi_msg_check, unordered and with
# FI_ORDER_SAS), the RMA battery (fi_rma_check), the atomics battery
# (fi_atomic_check) and the RDMO battery (fi_rdmo_check) between them,
# twice: through their local channel (shared memory, FI_UET_LOCAL=auto),
# and by frames through the UMEM (FI_UET_LOCAL=off), the way endpoints
# of other users go. Neither way reaches the wire: the XDP program sees
# no frame of theirs. Each run's engine counters say which way it went.
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/e2e_local_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

# run LOCAL NAME PROG SERVER_ARGS -- CLIENT_ARGS: server and client of
# PROG in namespace A with FI_UET_LOCAL=LOCAL (lch_pair); their records
# (local_tx) and frames (tx_frames) show the way they took.
run() {
	local local=$1 name="$2 (FI_UET_LOCAL=$1)" prog=$3
	shift 3
	# The completion levels need a target that makes no progress while
	# it sleeps: no progress thread there (e2e_fi_programs runs it).
	LCH_SRV=(env FI_PROVIDER=uet FI_UET_LOCAL="$local" FI_UET_STATS=1
		 FI_UET_PROGRESS_IDLE_US=0)
	LCH_CLI=(env FI_PROVIDER=uet FI_UET_LOCAL="$local" FI_UET_STATS=1)
	# fi_msg_check's client is told its server is reached through the
	# channel (-L: a transmit complete send ends once written).
	[ "$prog" != fi_msg_check ] || [ "$local" = off ] || set -- "$@" -L
	lch_pair "$name" "$prog" "$@"
	if [ "$local" = off ]; then
		[ "$LT" = 0 ] && [ "$FR" -gt 0 ] ||
			e2e_fail "$name: $LT records, $FR frames (want frames)"
	else
		[ "$LT" -gt 0 ] && [ "$FR" = 0 ] ||
			e2e_fail "$name: $LT records, $FR frames (want records)"
	fi
	# fi_msg_check's injected flood goes without answers (more than the
	# target's 1024 unexpected buffers: the target holds some for later).
	if [ "$prog" = fi_msg_check ] && [ "$local" != off ]; then
		UA=$(e2e_engine_stat "$E2E_TMP/server.out" local_unanswered)
		UW=$(e2e_engine_stat "$E2E_TMP/server.out" \
			local_unanswered_held)
		[ "$UA" -ge 2000 ] && [ "$UW" -gt 0 ] ||
			e2e_fail "$name: $UA requests without answer, $UW" \
				"held (want 2000 or more, and some)"
		name+=", $UA without answer ($UW held for later)"
		# ... most of them written whole by the initiator, no slot
		# of its engine nor message of its SES kept for them.
		WH=$(e2e_engine_stat "$E2E_TMP/client.out" local_tx_whole)
		[ "$WH" -ge 1000 ] ||
			e2e_fail "$name: $WH requests written whole (want" 				"1000 or more of the 2000 injected)"
		name+=", $WH written whole"
		# Its sends past 16 KiB are copied once, out of the sender.
		PL=$(e2e_engine_stat "$E2E_TMP/server.out" local_pulls)
		PF=$(e2e_engine_stat "$E2E_TMP/server.out" local_pull_failed)
		[ "$PL" -gt 0 ] && [ "$PF" = 0 ] ||
			e2e_fail "$name: $PL rendezvous copied out of the" \
				"sender, $PF refused (want some, none)"
		name+=", $PL copied out of the sender"
	fi
	e2e_ok "$name: $LT records, $FR frames"
}

batteries() {
	local l=$1
	run "$l" "messaging" fi_msg_check -s -a "$IP_A" -U -- -c "$IP_A" -U
	run "$l" "messaging, FI_ORDER_SAS" fi_msg_check -s -a "$IP_A" -- \
		-c "$IP_A"
	run "$l" "RMA" fi_rma_check -s -a "$IP_A" -- -c "$IP_A"
	run "$l" "atomics" fi_atomic_check -s -a "$IP_A" -- -c "$IP_A"
	run "$l" "RDMO" fi_rdmo_check -s -a "$IP_A" -n 1 -N 500 -T 60 -- \
		-c "$IP_A" -k 1 -W 64 -T 60
}

e2e_setup 9000
e2e_in A "$B/uetctl" load "$IF_A" --mode skb >/dev/null
before=$(e2e_in A "$B/uetctl" stats "$IF_A" --json |
	 sed 's/.*"redirected": \([0-9]*\).*/\1/')
batteries auto
batteries off
after=$(e2e_in A "$B/uetctl" stats "$IF_A" --json |
	sed 's/.*"redirected": \([0-9]*\).*/\1/')
[ "$before" = "$after" ] ||
	e2e_fail "local frames went through XDP ($before -> $after redirected)"
e2e_ok "no local frame on the wire"
