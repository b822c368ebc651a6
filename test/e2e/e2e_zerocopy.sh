#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Zero-copy with copy mode as the fallback (issue 17). The device service
# binds its socket with XDP_ZEROCOPY in native mode and falls back to copy
# mode when the driver refuses; veth always refuses, so what this shows is
# the fallback: status and stats say which mode and why, and endpoints of
# both a native-mode and an skb-mode service carry traffic (a ping-pong
# and a 1 MiB write stream, checked by the programs). A NIC with zero-copy
# would say "zero-copy" there instead.
# And busy polling as a setting (uetctl load --busy-poll USEC[,BUDGET]):
# the service sets SO_PREFER_BUSY_POLL, SO_BUSY_POLL and
# SO_BUSY_POLL_BUDGET on every socket it makes (endpoints may not raise
# them); status shows what the kernel holds. veth takes them and has no
# NAPI to poll, so again what shows is that traffic still flows.
E2E_NAME=e2e_zerocopy
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

e2e_setup 9000

# traffic LABEL: a short ping-pong and a write stream between the two ends.
traffic() { e2e_traffic 42 "" ""; }

# mode_says MODE PATTERN: the status line of A's service matches PATTERN
# and its JSON stats say zero_copy false.
mode_says() {
	local st js
	st=$(e2e_in A "$B/uetctl" status "$IF_A")
	js=$(e2e_in A "$B/uetctl" stats "$IF_A" --json)
	grep -q "$2" <<< "$st" || { why="$1 status: $st"; return 1; }
	grep -q '"zero_copy": false' <<< "$js" || { why="$1 json: $js"; return 1; }
}

load_both() {
	for side in A B; do
		ifc=IF_$side
		e2e_in "$side" "$B/uetctl" unload "${!ifc}" >/dev/null 2>&1 || true
		e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode "$@" >/dev/null
	done
}

# busy_poll_shown: A's status and JSON name the busy-poll setting.
busy_poll_shown() {
	local st js
	st=$(e2e_in A "$B/uetctl" status "$IF_A")
	js=$(e2e_in A "$B/uetctl" stats "$IF_A" --json)
	grep -q "busy poll 50 us, budget 16" <<< "$st" || { why="status: $st"; return 1; }
	grep -q '"busy_poll_us": 50, "busy_poll_budget": 16' <<< "$js" ||
		{ why="json: $js"; return 1; }
}

# bad_busy_poll: a malformed setting is a usage error, nothing loaded.
bad_busy_poll() {
	local out rc=0
	out=$(e2e_in A "$B/uetctl" load "$IF_A" --busy-poll 10,0 2>&1) || rc=$?
	[ "$rc" = 2 ] && grep -q "busy-poll is USEC" <<< "$out" ||
		{ why="rc $rc: $out"; return 1; }
}

load_both native
e2e_check "native mode: zero-copy refused by veth, the service says copy mode" \
	mode_says native "queue 0 (copy mode: zero-copy refused by the driver)"
e2e_check "native mode, copy fallback: ping-pong and 1 MiB writes" traffic native
load_both skb
e2e_check "skb mode: copy mode, zero-copy needs native mode" \
	mode_says skb "queue 0 (copy mode: zero-copy needs native mode)"
e2e_check "skb mode: ping-pong and 1 MiB writes" traffic skb
load_both native --busy-poll 50,16
e2e_check "busy polling: the service's sockets hold 50 us, budget 16" \
	busy_poll_shown
e2e_check "busy polling: ping-pong and 1 MiB writes" traffic busy
e2e_in A "$B/uetctl" unload "$IF_A" >/dev/null
e2e_check "busy polling: 10,0 is a usage error" bad_busy_poll
e2e_checks_done
