#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# uetctl as a user meets it: each verb's --help, and a clear one-line error
# with a non-zero exit for no such interface, not root, already loaded, not
# loaded and bad arguments; load/status/stats/fault/unload in a namespace.
source "$(dirname "$0")/e2e_lib.sh"

U="$(cd "$(dirname "$B/uetctl")" && pwd)/uetctl"

# expect_err STATUS PATTERN CMD...: exit code and one-line message.
expect_err() {
	local want=$1 pat=$2 rc=0 out
	shift 2
	out=$("$@" 2>&1) || rc=$?
	[ "$rc" = "$want" ] || e2e_fail "'$*' exited $rc, want $want: $out"
	echo "$out" | head -1 | grep -q -- "$pat" ||
		e2e_fail "'$*' said '$out', want /$pat/"
}

e2e_setup
for verb in load unload status stats fault; do
	"$U" "$verb" --help | grep -q "^usage: uetctl $verb" ||
		e2e_fail "$verb --help"
done
e2e_ok "--help for each verb"

expect_err 1 "nosuch0: no such interface" e2e_in A "$U" load nosuch0
expect_err 1 "nosuch0: no such interface" e2e_in A "$U" unload nosuch0
expect_err 1 "nosuch0: no such interface" e2e_in A "$U" stats nosuch0
expect_err 1 "$IF_A: not loaded" e2e_in A "$U" unload "$IF_A"
expect_err 1 "$IF_A: not loaded" e2e_in A "$U" stats "$IF_A"
expect_err 1 "$IF_A: not loaded" e2e_in A "$U" fault "$IF_A" --off
e2e_stage "$U"
expect_err 1 "permission denied (run as root)" \
	e2e_as_nobody A "$E2E_STAGE/uetctl" load "$IF_A"
expect_err 2 "--mode is native or skb" e2e_in A "$U" load "$IF_A" --mode x
expect_err 2 "--port is 1..65535" e2e_in A "$U" load "$IF_A" --port 0
expect_err 2 "IFACE is required" e2e_in A "$U" load
expect_err 2 "give exactly one of --drop, --off" e2e_in A "$U" fault "$IF_A"
expect_err 2 "--drop is a percentage" e2e_in A "$U" fault "$IF_A" --drop 101
expect_err 2 "unknown verb" "$U" frobnicate
e2e_ok "error paths"

e2e_in A "$U" load "$IF_A" --mode native --port 4800 | grep -q "loaded on $IF_A" ||
	e2e_fail "load"
expect_err 1 "$IF_A: already loaded" e2e_in A "$U" load "$IF_A"
e2e_in A "$U" status | grep -q "^$IF_A: loaded, native mode, UDP port 4800" ||
	e2e_fail "status: $(e2e_in A "$U" status)"
e2e_in A "$U" fault "$IF_A" --drop 2.5 >/dev/null
e2e_in A "$U" status "$IF_A" | grep -q "fault drop 2.5%" || e2e_fail "fault"
e2e_in A ping -c 2 -i 0.2 -W 2 "$IP_B" >/dev/null || e2e_fail "ping with XDP"
stats=$(e2e_in A "$U" stats "$IF_A" --json)
grep -q '"seen": [1-9]' <<< "$stats" || e2e_fail "stats: $stats"
grep -q '"passed": [1-9]' <<< "$stats" || e2e_fail "stats: $stats"
e2e_in A "$U" unload "$IF_A" >/dev/null
e2e_in A ip link show "$IF_A" | grep -q xdp && e2e_fail "still attached"
e2e_ok "load, status, fault, stats, unload"
