#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The whole transport between two namespaces, without libfabric: RMA
# writes read back byte for byte (payload MTU 1024 at MTU 1500, 8192 at MTU
# 9000, IPv4 and IPv6, and with 10% of frames dropped each way by the XDP
# fault injector), and a bad key, a range past the region and an unknown RI
# answered with their UET return codes.
source "$(dirname "$0")/e2e_lib.sh"

# rma MTU LEN COUNT [v6]: a target in B, writes and reads from A.
rma() {
	local len=$2 count=$3 ip_a=$IP_A ip_b=$IP_B t out
	[ "${4:-}" = v6 ] && { ip_a=$IP6_A; ip_b=$IP6_B; }
	rm -f "$E2E_TMP/ready" "$E2E_TMP/done"
	e2e_in B timeout 120 "$B/engine_peer" target "$IF_B" "$ip_b" "$len" \
		60000 "$E2E_TMP/ready" "$E2E_TMP/done" > "$E2E_TMP/t.out" &
	t=$!
	for _ in $(seq 200); do [ -e "$E2E_TMP/ready" ] && break; sleep 0.05; done
	out=$(e2e_in A timeout 60 "$B/engine_peer" write "$IF_A" "$ip_a" "$ip_b" \
		"$len" "$count" 2>&1) || e2e_fail "MTU $1, $len bytes: $out"
	touch "$E2E_TMP/done"
	wait "$t" || e2e_fail "target: $(cat "$E2E_TMP/t.out")"
	grep -q "$count writes and reads of $len bytes, 0 bad" <<< "$out" ||
		e2e_fail "$out"
	grep -q "placed $(( len * count )) bytes" "$E2E_TMP/t.out" ||
		e2e_fail "target: $(cat "$E2E_TMP/t.out")"
}

e2e_setup 1500
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done
rma 1500 16384 3
e2e_ok "16 KiB writes and reads at payload MTU 1024, error codes"
rma 1500 16384 2 v6
e2e_ok "IPv6"
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" fault "${!ifc}" --drop 10 >/dev/null
done
rma 1500 262144 2
drops=0
for side in A B; do
	ifc=IF_$side
	n=$(e2e_in "$side" "$B/uetctl" stats "${!ifc}" --json |
		sed 's/.*"fault_dropped": \([0-9]*\).*/\1/')
	drops=$(( drops + n ))
	e2e_in "$side" "$B/uetctl" fault "${!ifc}" --off >/dev/null
done
[ "$drops" -gt 20 ] || e2e_fail "the fault injector dropped only $drops"
e2e_ok "256 KiB writes and reads with 10% loss each way ($drops frames dropped)"
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" ip link set "${!ifc}" mtu 9000
done
rma 9000 1048576 2
e2e_ok "1 MiB writes and reads at payload MTU 8192"
