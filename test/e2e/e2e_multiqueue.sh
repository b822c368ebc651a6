#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Several rx queues per interface, one queue per endpoint (issue 17):
# `uetctl load --queues 2` on a veth pair with 2 queues each end. The
# service binds a socket of its own on each queue; each endpoint is bound
# to one (FI_UET_QUEUE_ID, or the one with fewest endpoints); the XDP
# program delivers straight to an endpoint what arrives on its queue, and
# sends what arrives on another queue to the service's socket there, which
# hands it on (the kernel redirects only to sockets of the arrival queue).
# On veth in native mode a frame arrives on the queue it was sent from, so
# endpoints on the same queue index talk directly and others through the
# hand-on; in skb mode everything arrives on queue 0.
#  a. status and stats name the queues; a queue not served is refused with
#     a message naming the ones that are; --queues beyond the device's is
#     refused at load with a message;
#  b. endpoints without FI_UET_QUEUE_ID spread over both queues;
#  c. two pairs on queues 0 and 1 at once: ping-pong and 1 MiB writes
#     checked by the programs, and nothing went through the service;
#  d. pairs across queues (0 -> 1 and 1 -> 0): same traffic, handed on
#     (a full local ring drops, counted in local_dropped: the sender
#     retransmits, as after a loss);
#  e. skb mode: queue-1 endpoints are served through the hand-on.
E2E_NAME=e2e_multiqueue
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

e2e_setup 9000 2

load_both() {
	for side in A B; do
		ifc=IF_$side
		e2e_in "$side" "$B/uetctl" unload "${!ifc}" >/dev/null 2>&1 || true
		e2e_in "$side" "$B/uetctl" load "${!ifc}" "$@" >/dev/null
	done
}

# json SIDE: the service's stats.
json() {
	local ifc=IF_$1
	e2e_in "$1" "$B/uetctl" stats "${!ifc}" --json
}

# field JSON NAME: the first number called NAME in JSON.
field() { grep -o "\"$2\": [0-9]*" <<< "$1" | head -1 | grep -o '[0-9]*$'; }

# pair QA QB [SERVICE]: ping-pong and a 1 MiB write stream from A (on
# queue QA) to B (on queue QB); the programs check what arrives.
pair() {
	e2e_traffic "${3:-42}" "FI_UET_QUEUE_ID=$1" "FI_UET_QUEUE_ID=$2" ||
		{ why="$1->$2 $why"; return 1; }
}

# ---- a ----------------------------------------------------------------------
names_queues() {
	local st js
	st=$(e2e_in A "$B/uetctl" status "$IF_A")
	js=$(json A)
	grep -q "queues 0-1 (" <<< "$st" || { why="status: $st"; return 1; }
	[ "$(field "$js" queues)" = 2 ] || { why="json: $js"; return 1; }
}

queue_not_served() {
	local out rc=0
	out=$(e2e_in A env FI_PROVIDER=uet FI_LOG_LEVEL=warn FI_UET_QUEUE_ID=5 timeout 20 \
		"$B/uet_pingpong" -c "$IP_B" -p 4000 -n 8 -i 10 2>&1) || rc=$?
	[ "$rc" != 0 ] && grep -q "rx queue 5 is not served here (queues 0-1)" \
		<<< "$out" || { why="rc $rc: $out"; return 1; }
}

too_many_queues() {
	local out rc=0
	e2e_in A "$B/uetctl" unload "$IF_A" >/dev/null
	out=$(e2e_in A "$B/uetctl" load "$IF_A" --queues 4 2>&1) || rc=$?
	e2e_in A "$B/uetctl" unload "$IF_A" >/dev/null 2>&1 || true
	e2e_in A "$B/uetctl" load "$IF_A" --queues 2 >/dev/null
	[ "$rc" != 0 ] && grep -q "does it have 4 rx queues" <<< "$out" ||
		{ why="rc $rc: $out"; return 1; }
}

# ---- b ----------------------------------------------------------------------
spread() {
	local js q n=0 s
	for s in 1001 1002; do
		e2e_in B env FI_PROVIDER=uet timeout 30 "$B/uet_pingpong" -s \
			-a "$IP_B" -S "$s" -p $((45000 + s)) -n 8 -i 1 \
			>/dev/null 2>&1 &
	done
	while [ $n -lt 50 ]; do
		js=$(json B)
		[ "$(grep -o '"pid_on_fep"' <<< "$js" | wc -l)" = 2 ] && break
		sleep 0.1
		n=$((n + 1))
	done
	q=$(grep -o '"queue": [0-9]*, "rx_frames"' <<< "$js" |
	    grep -o '[0-9]*' | sort | tr '\n' ' ')
	# The servers themselves (e2e_in's subshell is not them).
	pkill -f "uet_pingpong -s -a $IP_B -S 100[12]" || true
	wait
	[ "$q" = "0 1 " ] || { why="queues of the 2 endpoints [$q]: $js"; return 1; }
}

# ---- c ----------------------------------------------------------------------
same_queues() {
	local before after r0 r1 p0 p1
	before=$(json B)
	pair 0 0 301 & p0=$!
	pair 1 1 302 & p1=$!
	wait "$p0" || r0=$?
	wait "$p1" || r1=$?
	[ -z "${r0:-}${r1:-}" ] || { why="a pair failed (see above)"; return 1; }
	after=$(json B)
	[ "$(field "$after" wrong_queue)" = "$(field "$before" wrong_queue)" ] &&
	[ "$(field "$after" handed_on)" = "$(field "$before" handed_on)" ] ||
		{ why="frames went through the service: $after"; return 1; }
}

# ---- d ----------------------------------------------------------------------
across_queues() {
	local before after
	before=$(json B)
	pair 0 1 && pair 1 0 || return 1
	after=$(json B)
	[ "$(field "$after" handed_on)" -gt "$(field "$before" handed_on)" ] &&
	[ "$(field "$after" wrong_queue)" -gt "$(field "$before" wrong_queue)" ] ||
		{ why="nothing handed on: $after"; return 1; }
}

load_both --queues 2
e2e_check "a: status and stats name queues 0-1" names_queues
e2e_check "a: FI_UET_QUEUE_ID=5 refused, naming the queues served" \
	queue_not_served
e2e_check "a: --queues 4 on a 2-queue veth refused at load" too_many_queues
e2e_check "b: endpoints without FI_UET_QUEUE_ID spread over queues 0 and 1" \
	spread
e2e_check "c: pairs on queues 0 and 1 at once, each direct: ping-pong, 1 MiB writes" \
	same_queues
e2e_check "d: pairs across queues (0->1, 1->0) through the hand-on" \
	across_queues
load_both --queues 2 --mode skb
e2e_check "e: skb mode (all on queue 0 here): pairs on queue 1 served" \
	pair 1 1
e2e_checks_done
