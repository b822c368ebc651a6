#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Returning clients (issue 13, item 6): one fi_return_check server stays
# up in B while client processes in A come one after the other, each
# writing, reading back and sending, and the server checking that every
# byte it holds is that client's. The second client starts once the
# device service lets the first one's endpoint index go (2 s): it is the
# same address and index, so the same peer to the server, while the
# server's PDC from the first one still lives; the third comes when that
# PDC has been closed for idleness. Before issue 13 the second client's
# first message_ids were taken for the first one's, finished: it never
# completed.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
LIMIT_S=30		# each client gives up after this (alarm)
INDEX_REST_S=2.5	# > UETD_SLOT_REST_NS: the index comes back
IDLE_S=6		# > the server's idle close of a silent PDC (~4 s)

# client SEED: one client process in A; its output in client-SEED.out.
# FI_UET_STATS makes the engine name its endpoint index at exit.
client() {
	local out="$E2E_TMP/client-$1.out" rc=0
	e2e_in A env FI_PROVIDER=uet FI_UET_STATS=1 timeout $((LIMIT_S + 5)) \
		"$B/fi_return_check" -c "$IP_B" -p "$PORT" -k "$1" \
		-T "$LIMIT_S" > "$out" 2>&1 || rc=$?
	if [ "$rc" != 0 ] || ! grep -q "client $1: all ok" "$out"; then
		sed 's/^/  client: /' "$out"
		sed 's/^/  server: /' "$E2E_TMP/server.out"
		e2e_fail "client $1: rc $rc"
	fi
}

# index SEED: the endpoint index the client of SEED had.
index() {
	sed -n 's/^uet_engine_stats {"endpoint":\([0-9]*\),.*/\1/p' \
		"$E2E_TMP/client-$1.out" | head -n 1
}

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done

PORT=$((45000 + RANDOM % 900))
e2e_in B env FI_PROVIDER=uet timeout 120 "$B/fi_return_check" -s \
	-a "$IP_B" -p "$PORT" -n 3 -T 110 > "$E2E_TMP/server.out" 2>&1 &
spid=$!

client 101
first=$(index 101)
[ -n "$first" ] || e2e_fail "no endpoint index: $(cat "$E2E_TMP/client-101.out")"
e2e_ok "first client: writes read back, sends received"

sleep "$INDEX_REST_S"
client 202
[ "$(index 202)" = "$first" ] ||
	e2e_fail "second client on index '$(index 202)', not $first: not a return"
e2e_ok "second client on the same endpoint index at once: all its own"

sleep "$IDLE_S"
client 303
[ "$(index 303)" = "$first" ] ||
	e2e_fail "third client on index '$(index 303)', not $first: not a return"
e2e_ok "third client on the same endpoint index after the idle close"

rc=0
wait "$spid" || rc=$?
if [ "$rc" != 0 ] ||
   ! grep -q "server: all 3 clients ok" "$E2E_TMP/server.out"; then
	sed 's/^/  server: /' "$E2E_TMP/server.out"
	e2e_fail "server: rc $rc"
fi
grep "server: client" "$E2E_TMP/server.out" | sed -e 's/ ok$//' -e 's/^/  /'
e2e_ok "one server, three clients one after the other"
