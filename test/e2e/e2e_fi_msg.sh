#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Messaging between two namespaces (issue 7): fi_msg_check, plain
# libfabric, over uet with FI_ORDER_SAS (ROD), over uet unordered (RUD),
# over uet at MTU 1500 (payload MTU 1024: many packets per message), and
# unchanged over tcp. Each run: tagged ping-pong 0 B to 16 MiB, iovecs,
# inject and remote CQ data, unexpected messages of all sizes, 2000
# unexpected ones (past uet's bound: flow control, none lost), send order,
# peek/claim/discard, truncation, multi-receive buffers, directed receive,
# cancel, selective completion, completion levels (inject complete while
# the receiver sleeps, its buffer overwritten at once; transmit and
# delivery complete only once it woke), counters.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

# check PROVIDER NAME [ARGS...]: runs a pair; both must end "all ok".
check() {
	local prov=$1 name=$2 s rc=0 port=$((48000 + RANDOM % 3000))
	shift 2
	# The completion levels need a receiver that makes no progress while
	# it sleeps: no progress thread there (e2e_fi_programs runs it).
	e2e_in B env FI_PROVIDER="$prov" FI_UET_PROGRESS_IDLE_US=0 \
		timeout 120 "$B/fi_msg_check" -s \
		-a "$IP_B" -p "$port" "$@" > "$E2E_TMP/server.out" 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER="$prov" timeout 120 "$B/fi_msg_check" \
		-c "$IP_B" -p "$port" "$@" > "$E2E_TMP/client.out" 2>&1 || rc=$?
	wait "$s" || rc=$?
	if [ $rc != 0 ] || ! grep -q "server: all ok" "$E2E_TMP/server.out" ||
	   ! grep -q "client: all ok" "$E2E_TMP/client.out"; then
		sed 's/^/  server: /' "$E2E_TMP/server.out"
		sed 's/^/  client: /' "$E2E_TMP/client.out"
		e2e_fail "$name"
	fi
	{ grep -h "SKIP" "$E2E_TMP/server.out" || true; } |
		sed "s/^fi_msg_check: /e2e: $E2E_NAME: $name: /"
	e2e_ok "$name: $(grep -c ' ok$' "$E2E_TMP/server.out") cases"
}

load() {
	for side in A B; do
		ifc=IF_$side
		e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
	done
}

e2e_setup 9000
load
check uet "uet, FI_ORDER_SAS"
check uet "uet, unordered" -U
check tcp "tcp"
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" ip link set "${!ifc}" mtu 1500
done
check uet "uet, MTU 1500"
