#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The device service's JobID policy (issue 12): with a policy file naming
# JobID 500 for one user, that user's endpoint of job 500 opens and
# nobody's is refused with -FI_EACCES and the service's reason; a JobID no
# rule names follows the default rule (any user; then its first user's);
# a policy file with a bad line stops the load with its line number.
source "$(dirname "$0")/e2e_lib.sh"
USER_OK="uetpol$$"

cleanup_user() { userdel "$USER_OK" >/dev/null 2>&1 || true; }

# endpoint USER JOB PID: opens one endpoint of JOB as USER on IF_A (a uet_write
# server, given 2 s), each on a PIDonFEP of its own (a freed one rests
# before another user may have it); prints the provider's warning when it
# fails.
endpoint() {
	e2e_in A setpriv --reuid="$1" --regid="$1" --clear-groups \
		env FI_PROVIDER=uet FI_UET_JOB_ID="$2" FI_LOG_LEVEL=warn \
		timeout 2 "$E2E_STAGE/uet_write" -s -a "$IP_A" -p 0 -n 8 \
		-S "$3" 2>&1 || true
}

# opened OUT: the endpoint was enabled (the server set up and waited).
opened() {
	! grep -q "no endpoint\|fi_enable" <<< "$1" &&
	grep -q "ex: provider uet" <<< "$1"
}

e2e_setup
trap 'cleanup_user; e2e_cleanup' EXIT
# Other users run the program and load the provider: copies they can reach.
e2e_stage "$B/libuet-fi.so" "$B/uet_write"
export FI_PROVIDER_PATH="$E2E_STAGE"
useradd -M -r "$USER_OK"
uid=$(id -u "$USER_OK")
printf '# test policy\n500 %s\n600-610 %s,root # a range\n' "$USER_OK" \
	"$uid" > "$E2E_TMP/jobs.conf"
chmod 644 "$E2E_TMP/jobs.conf"
e2e_in A "$B/uetctl" load "$IF_A" --mode skb --policy "$E2E_TMP/jobs.conf" \
	>/dev/null
out=$(endpoint 65534 500 41)
grep -q "policy does not let uid 65534" <<< "$out" ||
	e2e_fail "nobody on job 500: '$out'"
e2e_ok "nobody's endpoint of job 500 refused by the policy"
out=$(endpoint "$uid" 500 42)
opened "$out" || e2e_fail "$USER_OK on job 500: '$out'"
out=$(endpoint "$uid" 605 43)
opened "$out" || e2e_fail "$USER_OK on job 605: '$out'"
e2e_ok "the named user's endpoints of jobs 500 and 605 open"
out=$(endpoint 65534 700 44)
opened "$out" || e2e_fail "nobody on job 700: '$out'"
e2e_ok "a JobID no rule names: the default rule"
e2e_in A "$B/uetctl" unload "$IF_A" >/dev/null
printf '500 nosuchuser%s\n' "$$" > "$E2E_TMP/bad.conf"
out=$(e2e_in A "$B/uetctl" load "$IF_A" --mode skb --policy \
	"$E2E_TMP/bad.conf" 2>&1) && e2e_fail "a bad policy loaded: $out"
e2e_in A ip link show "$IF_A" | grep -q xdp && e2e_fail "left attached"
e2e_ok "a bad policy file: load refused ($out)"
