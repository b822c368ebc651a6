#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Local channels and users (issue 32), two endpoints of one interface in
# one namespace, JobID 700, which the service's policy gives to nobody and
# to a second user:
#  a) both nobody (unprivileged, as users run): the messaging and RMA
#     batteries through their local channel;
#  b) nobody's target, the other user's initiator: the kernel does not
#     let the initiator map the target's inbox, so it goes by frames
#     through the UMEM (local_refused), and the batteries pass;
#  c) an initiator of another JobID (701, nobody too) writing to the
#     target of job 700 through the channel: the target's checks refuse
#     it as they refuse a remote one (an error completion with its UET
#     code), and nothing of the target's region changes.
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/e2e_local_lib.sh"
USER2="uetloc$$"

cleanup_user() { userdel "$USER2" >/dev/null 2>&1 || true; }

# run NAME SUID CUID PROG SERVER_ARGS -- CLIENT_ARGS: the server as SUID
# and the client as CUID, both of JobID 700 in namespace A (lch_pair,
# which sets the client's counters LT, FR and RF).
run() {
	local name=$1 suid=$2 cuid=$3 prog=$4
	local job=(env HOME=/ FI_PROVIDER=uet FI_UET_JOB_ID=700 FI_UET_STATS=1)
	shift 4
	LCH_SRV=(setpriv --reuid="$suid" --regid="$suid" --clear-groups
		 "${job[@]}" FI_UET_PROGRESS_IDLE_US=0)
	LCH_CLI=(setpriv --reuid="$cuid" --regid="$cuid" --clear-groups
		 "${job[@]}")
	lch_pair "$name" "$prog" "$@"
}

e2e_setup 9000
trap 'cleanup_user; e2e_cleanup' EXIT
# Other users run the programs and load the provider: copies they reach.
e2e_stage "$B/libuet-fi.so" "$B/fi_msg_check" "$B/fi_rma_check" \
	"$B/uet_write"
export FI_PROVIDER_PATH="$E2E_STAGE"
LCH_DIR=$E2E_STAGE
useradd -M -r "$USER2" || e2e_fail "useradd $USER2"
uid2=$(id -u "$USER2")
printf '700 nobody,%s\n701 nobody\n' "$USER2" > "$E2E_TMP/jobs.conf"
chmod 644 "$E2E_TMP/jobs.conf"
e2e_in A "$B/uetctl" load "$IF_A" --mode skb --policy "$E2E_TMP/jobs.conf" \
	>/dev/null

for prog in fi_msg_check fi_rma_check; do
	run "a) $prog as nobody" 65534 65534 "$prog" -s -a "$IP_A" -- \
		-c "$IP_A"
	[ "$LT" -gt 0 ] && [ "$FR" = 0 ] ||
		e2e_fail "a) $prog: $LT records, $FR frames (want records)"
	e2e_ok "a) $prog between two of nobody's endpoints: $LT records," \
		"no frame"
	run "b) $prog, nobody's target, $USER2's initiator" 65534 "$uid2" \
		"$prog" -s -a "$IP_A" -- -c "$IP_A"
	[ "$LT" = 0 ] && [ "$FR" -gt 0 ] && [ "$RF" -gt 0 ] ||
		e2e_fail "b) $prog: $LT records, $FR frames, $RF refused" \
			"(want frames, refused)"
	e2e_ok "b) $prog from another user's endpoint: the kernel refused" \
		"the inbox ($RF), $FR frames through the UMEM"
done

# c) uet_write's target of job 700, its initiator of job 701.
port=$((49000 + RANDOM % 1000))
e2e_as_nobody A env FI_PROVIDER=uet FI_UET_JOB_ID=700 timeout 20 \
	"$E2E_STAGE/uet_write" -s -a "$IP_A" -p "$port" -n 4 \
	> "$E2E_TMP/w.srv" 2>&1 &
s=$!
sleep 0.5
rc=0
e2e_as_nobody A env FI_PROVIDER=uet FI_UET_JOB_ID=701 FI_UET_STATS=1 \
	timeout 20 "$E2E_STAGE/uet_write" -c "$IP_A" -p "$port" -n 4 \
	> "$E2E_TMP/w.cli" 2>&1 || rc=$?
kill "$s" 2>/dev/null || true
wait "$s" 2>/dev/null || true
lt=$(e2e_engine_stat "$E2E_TMP/w.cli" local_tx)
[ "$rc" != 0 ] && [ "$lt" -gt 0 ] ||
	e2e_fail "c) job 701 wrote to job 700 (rc $rc, $lt records):" \
		"$(cat "$E2E_TMP/w.cli" "$E2E_TMP/w.srv")"
grep -v '^uet_engine_stats' "$E2E_TMP/w.cli" | tail -2 | sed 's/^/  /'
e2e_ok "c) another job's initiator through the channel: refused (rc $rc)"
