#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Remote memory operations (<rdma/fi_ext_uet.h>) between two namespaces:
# one fi_rdmo_check server in B, two client processes in A at once, over
# uet. Each client appends 2000 records of 8..256 bytes, 64 in flight, to
# the same queue; the server walks it from its start to its pointer: every
# (client, seq) once, at the offset the client got back, the pointer the
# sum of the lengths. Scatters land exactly (one packet, several, eight
# pipelined, two regions). A wrong key is RC_BAD_MKEY, a range past the
# region RC_BAD_ADDR (prov_errno), and neither moves a pointer nor writes
# a byte (appends, and scatters of several packets). A flush completes
# only once everything before it is in the target's memory: the server
# looks, on the client's word and before any libfabric call of its own;
# once while the server closes a region (the RI generation moves and what
# was on its way is sent again). fi_open_ops of another name is
# -FI_ENOSYS.
# Completions are fi_write's (FI_RMA | FI_WRITE, the write counter), and
# the target's FI_RMA_EVENT counters count an append once on its data
# region, a scatter once per piece, refusals not at all.
# Client 1 also fills the provider's queue of operations waiting for an
# absent address until -FI_EAGAIN, and its appends after it must still
# complete only with their result written.
# Run three times: pointers holding addresses (FI_MR_VIRT_ADDR) at MTU
# 9000; the same with 5% of the UET frames dropped each way (uetctl
# fault); offsets at MTU 1500 with the server's progress thread off (its
# memory then changes only inside its own calls).
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
LIMIT_S=90		# every process gives up after this (alarm)
APPENDS=${E2E_RDMO_APPENDS:-2000}

# The programs' lines, indented, none ending in " ok" (the e2e tally
# counts the lines ending so: one per check of this script).
details() { sed -e 's/ ok$//' -e 's/^/    /' "$@"; }

# count FILE PATTERN: the lines of FILE matching PATTERN.
count() { grep -c -- "$2" "$1" 2>/dev/null || true; }
# both PATTERN: the lines of both clients matching PATTERN.
both() { cat "$OUT"-client?.out | count /dev/stdin "$1"; }

# pair NAME MODE [ENV...]: the server in B and two clients in A at once;
# their outputs in NAME-server.out, NAME-client1.out, NAME-client2.out.
pair() {
	local name=$1 mode=$2 port=$((45000 + RANDOM % 1000)) s c1 c2
	local out="$E2E_TMP/$name"
	shift 2
	# In the subnet, nobody answers for it; one of its own each run.
	ABSENT="${IP_A%.*}.$((99 - RUNS))"
	RUNS=$((RUNS + 1))
	e2e_in B env FI_PROVIDER=uet "$@" timeout $((LIMIT_S + 10)) \
		"$B/fi_rdmo_check" -s -a "$IP_B" -p "$port" -n 2 \
		-N "$APPENDS" -m "$mode" -T "$LIMIT_S" > "$out-server.out" 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER=uet timeout $((LIMIT_S + 10)) \
		"$B/fi_rdmo_check" -c "$IP_B" -p "$port" -k 1 -W 64 \
		-x "$ABSENT" -m "$mode" -T "$LIMIT_S" > "$out-client1.out" 2>&1 &
	c1=$!
	e2e_in A env FI_PROVIDER=uet timeout $((LIMIT_S + 10)) \
		"$B/fi_rdmo_check" -c "$IP_B" -p "$port" -k 2 -W 64 \
		-m "$mode" -T "$LIMIT_S" > "$out-client2.out" 2>&1 &
	c2=$!
	RC_S=0 RC_1=0 RC_2=0
	wait "$c1" || RC_1=$?
	wait "$c2" || RC_2=$?
	wait "$s" || RC_S=$?
	OUT=$out
}

# The checks of one pair's run, each from its outputs.
ran_ok() {
	why="server rc $RC_S, clients rc $RC_1 $RC_2"
	[ "$RC_S" = 0 ] && [ "$RC_1" = 0 ] && [ "$RC_2" = 0 ] &&
		grep -q "server: all ok" "$OUT-server.out" &&
		grep -q "client 1: all ok" "$OUT-client1.out" &&
		grep -q "client 2: all ok" "$OUT-client2.out"
}
open_ops_ok() {
	why="not both clients' fi_open_ops line"
	[ "$(both 'fi_open_ops: .*other names -FI_ENOSYS.* ok$')" = 2 ]
}
queue_ok() {
	local mine="$APPENDS appends of 8\.\.256 bytes, up to 64 in flight"
	local all="shared queue: $((2 * APPENDS)) records of 2 clients"

	why="not both clients' appends, or no verdict on the shared queue"
	[ "$(both "$mine.* ok\$")" = 2 ] &&
		grep -q "server: $all.*every one once at the offset" \
			"$OUT-server.out"
}
scatter_ok() {
	why="not both clients' scatters"
	[ "$(both 'scatters .* landed exactly, nothing else written ok$')" = 2 ]
}
# 3 refusals with each code a client (2 appends and a scatter each), and
# the append that exactly fits the queue.
refusals_ok() {
	why="$(both 'prov_errno 0x1[cd].*no.*written ok$') refusals of 12"
	[ "$(both 'prov_errno 0x1c.*no.*written ok$')" = 6 ] &&
		[ "$(both 'prov_errno 0x1d.*no.*written ok$')" = 6 ] &&
		[ "$(both 'exactly fills the queue: .* ok$')" = 2 ]
}
flush_ok() {
	local seen='client [12] flush round [1-4]: .*before any libfabric call$'

	why="$(count "$OUT-server.out" "$seen") of 8 flush rounds"
	why+=" seen by the server"
	[ "$(count "$OUT-server.out" "$seen")" = 8 ] &&
		[ "$(both 'the server found all in its memory ok$')" = 8 ]
}
# A flush as the first operation (its first request is refused for the RI
# generation and sent again), and one after 64 refused appends.
flush_refused_ok() {
	local after='full queue, then a flush: 64 refused RC_BAD_ADDR.*'

	why="not both clients' first flush and flush after refusals"
	[ "$(both 'first operation, a flush: completed ok$')" = 2 ] &&
		[ "$(both "$after the flush completed in [0-9]* ms ok\$")" = 2 ]
}
counters_ok() {
	why="no counter lines"
	[ "$(both 'FI_RMA | FI_WRITE and counted by the write counter ok$')" = 2 ] &&
		grep -q 'server: remote write counters: ' "$OUT-server.out"
}
reuse_ok() {
	why="no line of client 1's appends after -FI_EAGAIN"
	grep -q "then -FI_EAGAIN; [0-9]* appends one at a time after it: .* ok\$" \
		"$OUT-client1.out"
}

# check NAME MODE [ENV...]: one run and its checks.
check() {
	local name=$1
	pair "$@"
	e2e_log "$name:"
	details "$OUT-server.out" | sed 's/^/  server: /'
	details "$OUT-client1.out" | sed 's/^/  client 1: /'
	details "$OUT-client2.out" | sed 's/^/  client 2: /'
	e2e_check "$name: server and both clients end without error" ran_ok
	e2e_check "$name: fi_open_ops of another name is -FI_ENOSYS" open_ops_ok
	e2e_check "$name: 2 x $APPENDS pipelined appends to one queue, each once at its returned offset" \
		queue_ok
	e2e_check "$name: scatters land exactly" scatter_ok
	e2e_check "$name: wrong key RC_BAD_MKEY, past the region RC_BAD_ADDR, no pointer moved, no byte written" \
		refusals_ok
	e2e_check "$name: each flush completes only once the target's memory holds what came before" \
		flush_ok
	e2e_check "$name: a flush first, and one after 64 refused appends, complete" \
		flush_refused_ok
	e2e_check "$name: appends after an operation refused for FI_INJECT_COMPLETE" \
		reuse_ok
	e2e_check "$name: completions and counters as fi_write's; remote write counters count each RDMO write once" \
		counters_ok
}

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done
RUNS=0

check "addresses (FI_MR_VIRT_ADDR), MTU 9000" va

# dropped SIDE: the UET frames SIDE's XDP program dropped so far.
dropped() {
	local ifc=IF_$1
	e2e_in "$1" "$B/uetctl" stats "${!ifc}" |
		awk '$1 == "fault_dropped" { print $2 }'
}
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" fault "${!ifc}" --drop 5 >/dev/null
done
check "addresses, MTU 9000, 5% loss each way" va
da=$(dropped A) db=$(dropped B)
e2e_check "addresses, MTU 9000, 5% loss each way: $da and $db frames dropped" \
	test "${da:-0}" -gt 0 -a "${db:-0}" -gt 0
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" fault "${!ifc}" --off >/dev/null
done
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" ip link set "${!ifc}" mtu 1500
done
check "offsets, MTU 1500, server progress thread off" off \
	FI_UET_PROGRESS_IDLE_US=0
e2e_checks_done
