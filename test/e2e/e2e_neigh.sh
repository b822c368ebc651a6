#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Next hops from the kernel's neighbour table (issue [R] hostile peers,
# items 4 and 5), between two namespaces:
#  a. fi_write to an address of the veth subnet nobody answers ARP for
#     fails FI_EHOSTUNREACH within the bound, twice (a later operation
#     resolves again), while writes to the real server on the same domain
#     keep completing: the resolution holds no lock;
#  b. the first write to a peer whose next hop nobody knew (both
#     neighbour tables flushed after the side channel's exchange) does not
#     stall for seconds: its latency is printed, and must be under 1 s;
#  c. requests sent to the target from a raw socket with a forged source
#     MAC are answered to our real MAC, the kernel's neighbour entry,
#     never to the forged one (A runs no UET program there, so its packet
#     socket sees the answers); also for a PIDonFEP nobody holds, which
#     the device service answers.
# Bounded: every program has an alarm, the script about 40 s.
# E2E_NEIGH_CHECKS=c runs only c (ab: a and b, which run together).
source "$(dirname "$0")/e2e_lib.sh"
FI_PROVIDER_PATH="$(cd "$B" && pwd)"
export FI_PROVIDER_PATH
LIMIT_S=40		# every program gives up after this (alarm)
BOUND_MS=8000		# the absent write's error completion, at most
FIRST_MS=1000		# the first write to a fresh peer, at most
FAKE_MAC=02:de:ad:be:ef:01

out_line() { sed -n "s/^fi_neigh_check: $1/&/p" "$2" | head -1; }

e2e_setup
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done
ABSENT="${IP_A%.*}.99"

CHECKS=${E2E_NEIGH_CHECKS:-abc}
PORT=$((46000 + RANDOM % 3000))

# --- a and b ------------------------------------------------------------
check_ab() {
	local rc src first ep job pid round
	e2e_in B env FI_PROVIDER=uet "$B/fi_neigh_check" -s -a "$IP_B" -p "$PORT" \
		-T "$LIMIT_S" > "$E2E_TMP/server.out" 2>&1 &
	SPID=$!
	rc=0
	e2e_in A env FI_PROVIDER=uet "$B/fi_neigh_check" -c "$IP_B" -p "$PORT" \
		-T "$LIMIT_S" -x "$ABSENT" -L "$BOUND_MS" \
		-F "ip neigh flush all; ip -n $NS_B neigh flush all" \
		> "$E2E_TMP/client.out" 2>&1 || rc=$?
	src=0
	wait "$SPID" || src=$?
	sed 's/^/  /' "$E2E_TMP/client.out"
	[ "$rc" = 0 ] && [ "$src" = 0 ] ||
		e2e_fail "a/b: client exit $rc, server exit $src: $(cat \
	"$E2E_TMP/server.out")"
	for round in 1 2; do
		grep -q "write $round to the absent address: FI_EHOSTUNREACH .* ok" \
			"$E2E_TMP/client.out" ||
			e2e_fail "a: write $round to $ABSENT did not fail FI_EHOSTUNREACH"
	done
	e2e_ok "a: writes to $ABSENT (no ARP answer) fail FI_EHOSTUNREACH within" \
		"$BOUND_MS ms, twice, writes to the server completing meanwhile"
	first=$(sed -n 's/.*first write to a fresh peer: \([0-9]*\) us ok/\1/p' \
		"$E2E_TMP/client.out")
	[ -n "$first" ] && [ "$first" -lt $((FIRST_MS * 1000)) ] ||
		e2e_fail "b: first write to a fresh peer: ${first:-none} us"
	e2e_ok "b: first write to a fresh peer (neighbour tables flushed):" \
		"$first us"
}

# --- c ------------------------------------------------------------------
# A sends from a raw socket; B's endpoint answers what it NACKs.
check_c() {
	local rc src first ep job pid round
	e2e_in A "$B/uetctl" unload "$IF_A" >/dev/null
	PORT=$((PORT + 1))
	e2e_in B env FI_PROVIDER=uet "$B/fi_neigh_check" -s -a "$IP_B" -p "$PORT" \
		-T "$LIMIT_S" > "$E2E_TMP/server_c.out" 2>&1 &
	SPID=$!
	ep=""
	for _ in $(seq 50); do
		ep=$(e2e_in B "$B/uetctl" stats "$IF_B" --json 2>/dev/null |
		     grep -o '"job_id": [0-9]*, "pid_on_fep": [0-9]*' | head -1) ||
			true
		[ -n "$ep" ] && break
		sleep 0.1
	done
	[ -n "$ep" ] || e2e_fail "c: the server's endpoint never showed"
	job=$(sed 's/"job_id": \([0-9]*\).*/\1/' <<< "$ep")
	pid=$(sed 's/.*"pid_on_fep": \([0-9]*\)/\1/' <<< "$ep")
	ip -n "$NS_A" neigh flush all
	ip -n "$NS_B" neigh flush all
	rc=0
	e2e_in A "$B/fi_neigh_forge" "$IF_A" "$IP_B" "$job" "$pid" "$FAKE_MAC" 30 \
		> "$E2E_TMP/forge.out" 2>&1 || rc=$?
	sed 's/^/  /' "$E2E_TMP/forge.out"
	[ "$rc" = 0 ] || e2e_fail "c: answers went to the forged MAC, or none came"
	e2e_ok "c: requests with a forged source MAC answered to the real one"
	# The same to a PIDonFEP nobody holds: the device service answers.
	ip -n "$NS_B" neigh flush all
	rc=0
	e2e_in A "$B/fi_neigh_forge" "$IF_A" "$IP_B" "$job" \
		"$(( pid == 4000 ? 4001 : 4000 ))" "$FAKE_MAC" 30 \
		> "$E2E_TMP/forge.out" 2>&1 || rc=$?
	kill "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null || true
	sed 's/^/  /' "$E2E_TMP/forge.out"
	[ "$rc" = 0 ] ||
		e2e_fail "c: the service's answers went to the forged MAC, or none came"
	e2e_ok "c: requests for an absent PIDonFEP with a forged source MAC" \
		"answered by the device service to the real one"
}

[[ $CHECKS == *a* || $CHECKS == *b* ]] && check_ab
[[ $CHECKS == *c* ]] && check_c
exit 0
