#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Atomics between two namespaces (issue 7): fi_atomic_check, plain
# libfabric, runs every atomic fi_query_atomic admits (fi_atomic,
# fi_fetch_atomic, fi_compare_atomic; every op on the integer and floating
# types) and checks the old values and the target against a reference;
# what the query refuses must be refused by the call; a wrong key fails.
# Over uet, at MTU 1500 too, and unchanged over tcp.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

# check PROVIDER NAME: runs a pair; both must end "all ok".
check() {
	local prov=$1 name=$2 s rc=0 port=$((45000 + RANDOM % 1000))
	e2e_in B env FI_PROVIDER="$prov" timeout 120 "$B/fi_atomic_check" -s \
		-a "$IP_B" -p "$port" > "$E2E_TMP/server.out" 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER="$prov" timeout 120 "$B/fi_atomic_check" \
		-c "$IP_B" -p "$port" > "$E2E_TMP/client.out" 2>&1 || rc=$?
	wait "$s" || rc=$?
	if [ $rc != 0 ] || ! grep -q "server: all ok" "$E2E_TMP/server.out" ||
	   ! grep -q "client: all ok" "$E2E_TMP/client.out"; then
		sed 's/^/  server: /' "$E2E_TMP/server.out"
		sed 's/^/  client: /' "$E2E_TMP/client.out"
		e2e_fail "$name"
	fi
	e2e_ok "$name: $(sed -n 's/^fi_atomic_check: \([0-9]* cases.*\)/\1/p' \
		"$E2E_TMP/client.out")"
}

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done
check uet "uet"
check tcp "tcp"
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" ip link set "${!ifc}" mtu 1500
done
check uet "uet, MTU 1500"
