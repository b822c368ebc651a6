#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Endpoints of one interface talking to each other (issue 12, FI_LOCAL_COMM):
# two processes in one namespace, each an endpoint of the same device
# service, run the messaging battery (fi_msg_check, unordered and with
# FI_ORDER_SAS) and the RMA battery (fi_rma_check) between them. Their
# frames never reach the wire: the sender hands them to the receiver
# (dev/uet_fep_steer.c); the XDP program sees none of them.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

# pair PROG NAME [ARGS...]: server and client of PROG in namespace A.
pair() {
	local prog=$1 name=$2 s rc=0 port=$((49000 + RANDOM % 1000))
	shift 2
	# The completion levels need a target that makes no progress while
	# it sleeps: no progress thread there (e2e_fi_programs runs it).
	e2e_in A env FI_PROVIDER=uet FI_UET_PROGRESS_IDLE_US=0 \
		timeout 120 "$B/$prog" -s -a "$IP_A" \
		-p "$port" "$@" > "$E2E_TMP/server.out" 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER=uet timeout 120 "$B/$prog" -c "$IP_A" \
		-p "$port" "$@" > "$E2E_TMP/client.out" 2>&1 || rc=$?
	wait "$s" || rc=$?
	if [ $rc != 0 ] || ! grep -q "client: \(all ok\|passed\)" "$E2E_TMP/client.out"; then
		sed 's/^/  server: /' "$E2E_TMP/server.out"
		sed 's/^/  client: /' "$E2E_TMP/client.out"
		e2e_fail "$name"
	fi
	e2e_ok "$name"
}

e2e_setup 9000
e2e_in A "$B/uetctl" load "$IF_A" --mode skb >/dev/null
before=$(e2e_in A "$B/uetctl" stats "$IF_A" --json |
	 sed 's/.*"redirected": \([0-9]*\).*/\1/')
pair fi_msg_check "messaging between two endpoints of one interface" -U
pair fi_msg_check "the same with FI_ORDER_SAS"
pair fi_rma_check "RMA between two endpoints of one interface"
after=$(e2e_in A "$B/uetctl" stats "$IF_A" --json |
	sed 's/.*"redirected": \([0-9]*\).*/\1/')
[ "$before" = "$after" ] ||
	e2e_fail "local frames went through XDP ($before -> $after redirected)"
e2e_ok "no local frame on the wire"
