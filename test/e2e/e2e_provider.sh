#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The provider as applications meet it, between two namespaces: fi_info
# finds it; the example programs (plain libfabric) run over FI_PROVIDER=uet
# and, unchanged, over tcp; fi_writedata's remote CQ data arrives; a write
# that the target refuses comes back as an error completion carrying the
# UET return code; writes survive 10% loss each way.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

# app PROVIDER PROG SERVER_ARGS -- CLIENT_ARGS: runs a pair, prints both.
app() {
	local prov=$1 prog=$2 sargs=() cargs=() s rc=0 port=$((46000 + RANDOM % 3000))
	shift 2
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	e2e_in B env FI_PROVIDER="$prov" timeout 60 "$B/$prog" -s -a "$IP_B" \
		-p "$port" "${sargs[@]}" > "$E2E_TMP/server.out" 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER="$prov" timeout 60 "$B/$prog" -c "$IP_B" \
		-p "$port" "${cargs[@]}" > "$E2E_TMP/client.out" 2>&1 || rc=$?
	wait "$s" || true
	cat "$E2E_TMP/server.out" "$E2E_TMP/client.out"
	return $rc
}

expect_write() {	# expect_write PROVIDER BYTES ITERS [-d]
	local out
	out=$(app "$1" uet_write -n "$2" ${4:-} -- -n "$2" -i "$3" ${4:-}) ||
		e2e_fail "uet_write over $1, $2 bytes: $out"
	grep -q "server: $2 bytes, checksum ok" <<< "$out" ||
		e2e_fail "uet_write over $1, $2 bytes: $out"
	if [ -n "${4:-}" ]; then
		grep -q "remote CQ data 12 ok" <<< "$out" || e2e_fail "CQ data: $out"
	fi
}

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done

FI_PROVIDER=uet fi_info -p uet -t FI_EP_RDM | grep -q "provider: uet" ||
	e2e_fail "fi_info -p uet"
e2e_ok "fi_info -p uet"

expect_write uet 8 10
expect_write uet 16384 10 -d
expect_write uet 1048576 3 -d
e2e_ok "uet_write over uet: 8 B, 16 KiB and 1 MiB, with remote CQ data"
expect_write tcp 16384 10 -d
e2e_ok "the same program, unchanged, over tcp"

out=$(app uet uet_pingpong -n 8 -i 200 -- -n 8 -i 200) || e2e_fail "pingpong: $out"
grep -q "median half round trip" <<< "$out" || e2e_fail "pingpong: $out"
out=$(app uet uet_bw -n 4096 -- -n 4096 -i 2000) || e2e_fail "bw: $out"
grep -q "MB/s" <<< "$out" || e2e_fail "bw: $out"
e2e_ok "uet_pingpong and uet_bw over uet"

out=$(app uet uet_write -n 4096 -- -n 4096 -K) && e2e_fail "a refused write succeeded: $out"
grep -q "completion error: .*(prov_errno [0-9]*: the target answered RC_" \
	<<< "$out" ||
	e2e_fail "no error completion with a UET code: $out"
e2e_ok "a refused write: $(echo "$out" | grep -o 'RC_[A-Z_]*' | head -1)"

for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" fault "${!ifc}" --drop 10 >/dev/null
done
expect_write uet 262144 3 -d
e2e_ok "256 KiB writes with 10% loss each way"
