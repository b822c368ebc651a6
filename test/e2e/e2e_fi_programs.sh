#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# What libfabric programs expect (issue 13), with programs we did not write
# where there is one, between two namespaces:
# - Debian's fi_pingpong -p uet -e rdm (package libfabric-bin), run as an
#   unprivileged user: every default size, then -S 65536 -I 1000, and the
#   tagged mode. It waits on its own TCP socket after its last completion,
#   so it passes only if the provider acknowledges without the program;
# - a target that exits right after reading its last completion (at once,
#   nothing closed; and after closing): the initiator's sends all succeed
#   (fi_exit_target, addressed by node and a port-like service, 9228);
# - two port-like services that map to one PIDonFEP on one interface: the
#   second endpoint's fi_enable fails with -FI_EADDRINUSE;
# - a peer that answers nothing: FI_ETIMEDOUT and a text that says so.
E2E_NAME=e2e_fi_programs
source "$(dirname "$0")/e2e_lib.sh"
e2e_require_root
command -v fi_pingpong >/dev/null ||
	e2e_fail "fi_pingpong not found (package libfabric-bin)"
command -v setpriv >/dev/null || e2e_fail "setpriv not found"

e2e_setup 1500
# nobody loads the provider: a copy it can reach.
e2e_stage "$B/libuet-fi.so"
export FI_PROVIDER_PATH="$E2E_STAGE"
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done

e2e_as_nobody A test -r "$FI_PROVIDER_PATH/libuet-fi.so" ||
	e2e_fail "nobody cannot read $FI_PROVIDER_PATH/libuet-fi.so"

# pingpong NAME ARGS...: fi_pingpong server in B, client in A, as nobody.
pingpong() {
	local name=$1 srv cli rc=0
	shift
	e2e_as_nobody B timeout 120 fi_pingpong -p uet -e rdm "$@" \
		> "$E2E_TMP/pp.srv" 2>&1 &
	srv=$!
	sleep 0.5
	e2e_as_nobody A timeout 120 fi_pingpong -p uet -e rdm "$@" "$IP_B" \
		> "$E2E_TMP/pp.cli" 2>&1 || rc=$?
	wait "$srv" || e2e_fail "fi_pingpong $name: server: $(tail -5 \
		"$E2E_TMP/pp.srv")"
	[ "$rc" = 0 ] || e2e_fail "fi_pingpong $name: client (exit $rc): \
$(tail -5 "$E2E_TMP/pp.cli")"
	cat "$E2E_TMP/pp.cli"
}

out=$(pingpong "default sizes")
for size in 64 256 1k 4k 64k 1m; do
	grep -q "^$size " <<< "$out" ||
		e2e_fail "fi_pingpong default sizes: no $size line: $out"
done
e2e_ok "fi_pingpong -p uet -e rdm, every default size, as nobody"
out=$(pingpong "-S 65536 -I 1000" -S 65536 -I 1000)
grep -q "^64k *1k *=1k " <<< "$out" || e2e_fail "fi_pingpong -S 65536: $out"
e2e_ok "fi_pingpong -S 65536 -I 1000 ($(awk '/^64k/ { print $7 }' \
	<<< "$out") us per transfer)"
out=$(pingpong "tagged" -m tagged -S 16384 -I 200 -c)
grep -q "^16k *200 *=200 " <<< "$out" || e2e_fail "fi_pingpong tagged: $out"
e2e_ok "fi_pingpong -m tagged -S 16384 -I 200 -c"

# exit_target HOW [-F]: the target exits right after its last completion
# (-F: the initiator first forks a child that exits through exit()).
exit_target() {
	local how=$1 t rc=0
	e2e_in B env FI_PROVIDER=uet timeout 60 "$B/fi_exit_target" -s -a "$IP_B" -p 9228 \
		-n 32 -x "$how" > "$E2E_TMP/xt.srv" 2>&1 &
	t=$!
	for _ in $(seq 100); do
		grep -q ready "$E2E_TMP/xt.srv" 2>/dev/null && break
		sleep 0.05
	done
	out=$(e2e_in A env FI_PROVIDER=uet timeout 60 "$B/fi_exit_target" -c "$IP_B" -p 9228 \
		-n 32 ${2:-} 2>&1) || rc=$?
	wait "$t" || e2e_fail "target ($how): $(cat "$E2E_TMP/xt.srv")"
	grep -q "data ok" "$E2E_TMP/xt.srv" ||
		e2e_fail "target ($how): $(cat "$E2E_TMP/xt.srv")"
	[ "$rc" = 0 ] && grep -q "32 sends completed with success" <<< "$out" ||
		e2e_fail "initiator of a target that exits ($how): $out"
}
for how in exit close; do
	for _ in 1 2 3; do
		exit_target "$how"
	done
done
e2e_ok "a target exiting right after its last completion (at once, and" \
	"after closing; 3 runs each): every send succeeded"
exit_target exit -F
grep -q "forked child exited cleanly" <<< "$out" ||
	e2e_fail "a forked child of an initiator: $out"
e2e_ok "an initiator's forked child exits through exit() at once; the" \
	"parent's sends succeed"

# 9228 and 11276 are both PIDonFEP 2048 + 9228 % 2048 = 3084.
e2e_in B env FI_PROVIDER=uet "$B/fi_fep_check" -o -a "$IP_B" -e 1 -S 9228 -H 5 \
	> "$E2E_TMP/hold.out" 2>&1 &
hold=$!
for _ in $(seq 100); do
	[ -s "$E2E_TMP/hold.out" ] && break
	sleep 0.05
done
rc=0
out=$(e2e_in B env FI_PROVIDER=uet "$B/fi_fep_check" -o -a "$IP_B" -e 1 -S 11276 2>&1) || rc=$?
kill "$hold" 2>/dev/null
wait "$hold" 2>/dev/null || true
[ "$rc" != 0 ] && grep -qi "address already in use\|EADDRINUSE\|-98" <<< "$out" ||
	e2e_fail "services 9228 and 11276 on one interface: $out (exit $rc)"
e2e_ok "services 9228 and 11276 (one PIDonFEP): the second is refused," \
	"address in use"

# A peer that answers nothing (no program on its interface any more): the
# send fails with FI_ETIMEDOUT and a text that says so, not a UET code.
e2e_in B "$B/uetctl" unload "$IF_B" >/dev/null
rc=0
out=$(e2e_in A env FI_PROVIDER=uet FI_UET_MAX_RETRIES=3 FI_UET_RTO_NS=2000000 \
	timeout 60 "$B/fi_exit_target" -c "$IP_B" -p 9228 -n 1 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -q "error completion $(fi_strerror 110) (timed out" \
	<<< "$out" ||
	e2e_fail "a silent peer: $out (exit $rc)"
grep -q "RC_" <<< "$out" && e2e_fail "a silent peer reads as a UET code: $out"
e2e_ok "a silent peer: FI_ETIMEDOUT, its fi_cq_strerror says it timed out"
