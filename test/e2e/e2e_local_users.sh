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
#     code), and nothing of the target's region changes;
#  d) the same initiator sending to the target (fi_one_send): the
#     target refuses it and nothing of its receives changes. At the
#     default level (transmit complete) the send completes once written
#     into the target's ring and the target counts the refusal
#     (local_unanswered_refused), though it reads only once the initiator
#     exited; with FI_DELIVERY_COMPLETE its error completion comes back
#     with its UET code;
#  e) an initiator of job 700 that exits as soon as its send completed:
#     the target, reading a second later, receives the message whole.
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
	"$B/uet_write" "$B/fi_one_send"
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
		-c "$IP_A" $([ "$prog" = fi_msg_check ] && echo -L)
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

# d) fi_one_send's target of job 700, its initiator of job 701; e) both
# of job 700.
# one_send CJOB WANT SERVER_ARGS [CLIENT_ARGS]: one send from an initiator
# of JobID CJOB; WANT its exit status (0 success, 3 an error completion);
# sets REFUSED, the target's refusals counted. The target reads for 5 s:
# the initiator's start alone (libfabric 1.17's fi_getinfo reads
# /proc/kallsyms twice) takes 0.3 s on an idle machine. With -D 1000 it
# reads only once the initiator, which exits as soon as its send
# completed, is gone.
one_send() {
	local cjob=$1 want=$2 sargs=$3 port=$((50000 + RANDOM % 1000)) s rc=0
	shift 3
	# shellcheck disable=SC2086 # SARGS: words of their own
	e2e_as_nobody A env FI_PROVIDER=uet FI_UET_JOB_ID=700 FI_UET_STATS=1 \
		timeout 20 "$E2E_STAGE/fi_one_send" -s -a "$IP_A" \
		-p "$port" -w 5000 $sargs > "$E2E_TMP/r.srv" 2>&1 &
	s=$!
	e2e_wait_for "$E2E_TMP/r.srv" "ready" 10 ||
		e2e_fail "target not ready: $(cat "$E2E_TMP/r.srv")"
	e2e_as_nobody A env FI_PROVIDER=uet FI_UET_JOB_ID="$cjob" \
		FI_UET_STATS=1 timeout 20 "$E2E_STAGE/fi_one_send" \
		-c "$IP_A" -p "$port" "$@" > "$E2E_TMP/r.cli" 2>&1 || rc=$?
	wait "$s" || e2e_fail "target $sargs: $(cat "$E2E_TMP/r.srv")"
	[ "$rc" = "$want" ] && [ "$(e2e_engine_stat "$E2E_TMP/r.cli" \
		local_tx)" -gt 0 ] ||
		e2e_fail "send $*: exit $rc, want $want, through the" \
			"channel: $(cat "$E2E_TMP/r.cli" "$E2E_TMP/r.srv")"
	REFUSED=$(e2e_engine_stat "$E2E_TMP/r.srv" local_unanswered_refused)
	grep -h '^fi_one_send: \(send\|target\)' "$E2E_TMP/r.cli" \
		"$E2E_TMP/r.srv" | sed 's/^/  /'
}
one_send 701 0 "-D 1000"
[ "$REFUSED" = 1 ] ||
	e2e_fail "d) the target counted $REFUSED refusals (want 1):" \
		"$(cat "$E2E_TMP/r.srv")"
e2e_ok "d) another job's send, transmit complete: completed, then refused" \
	"and counted by the target after the initiator exited, nothing received"
one_send 701 3 "" -d
grep -q 'error completion.*prov_errno' "$E2E_TMP/r.cli" ||
	e2e_fail "d) no UET code in: $(cat "$E2E_TMP/r.cli")"
e2e_ok "d) another job's send, delivery complete: an error completion" \
	"with its UET code, nothing received"
one_send 700 0 "-D 1000 -r"
e2e_ok "e) a send whose initiator exited as soon as it completed" \
	"(transmit complete): received whole after the exit"
