#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The host as a UET FEP (issue 12) between two namespaces, each interface
# served by its device service (uetctl load), with fi_fep_check:
#  a. 16 endpoints in one process per side, every byte and message checked,
#     over uet and, for comparison, tcp;
#  b. two jobs on the same interfaces: another job's operations on a
#     PIDonFEP fail RC_BAD_JOB_ID within 1 s and leave its buffer as it was;
#     a PIDonFEP nobody holds fails RC_BAD_PID within 1 s;
#  c. an unprivileged user, no capability, runs both sides; another user
#     may not join its JobID (-FI_EACCES at fi_enable); a PIDonFEP in use is
#     refused (-FI_EADDRINUSE);
#  d. `uetctl stats IFACE --json` from a fresh shell lists open endpoints;
#  e. kill -9 of one of 4 server processes mid-transfer: the other 3 pairs
#     finish and verify, the killed one's client fails within 1 s and new
#     operations get the service's RC_BAD_PID, and the service forgets the
#     dead endpoint;
#  f. clean failures: a second `uetctl load`, a killed service, an
#     application started before the service.
# Each check runs on its own (a subshell): a failed one does not hide the
# others; the script fails at the end if one did. E2E_FEP_CHECKS=be runs
# only those; E2E_FEP_MTU sets the interfaces' MTU (1500).
source "$(dirname "$0")/e2e_lib.sh"
UETCTL="$(cd "$B" && pwd)/uetctl"
LIMIT_S=30		# every fi_fep_check wait gives up after this
FAIL_LIMIT_S=10		# the same, where operations are meant to fail
ERR_MS=1000		# an absent destination's error completion, at most
UET=(env FI_PROVIDER=uet)
CHECKS=${E2E_FEP_CHECKS:-abcdef}
MTU=${E2E_FEP_MTU:-1500}

port() { echo $(( 47000 + RANDOM % 2000 )); }

# The programs' lines, indented, none ending in " ok" (the e2e tally counts
# the lines ending so: one per check of this script).
details() { sed -e 's/ ok$//' -e 's/^/    /' "$@"; }

# show PATTERN FILE...: the lines of FILEs matching PATTERN, as details.
show() {
	local pat=$1
	shift
	grep -h -E -- "$pat" "$@" | details || true
}

# must FILE PATTERN WHAT: FILE has a line matching PATTERN, else fail.
must() {
	grep -q -- "$2" "$1" && return 0
	echo "  no '$2' in $1:"
	details "$1"
	e2e_fail "$3"
}

# wait_line FILE PATTERN: until FILE has a line matching PATTERN (10 s).
wait_line() {
	for _ in $(seq 100); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	details "$1"
	e2e_fail "no '$2' within 10 s"
}

# The process id a fi_fep_check printed ("process N").
proc_of() { sed -n 's/.*process \([0-9]*\).*/\1/p' "$1" | head -1; }

# stats SIDE: the service's JSON, asked from a fresh shell in SIDE.
stats() {
	local ns=NS_$1 ifc=IF_$1
	ip netns exec "${!ns}" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c "'$UETCTL' stats '${!ifc}' --json"
}

# in_bg SIDE OUT CMD...: CMD in SIDE's namespace in the background, its
# output in OUT; BG is its pid, that of the program itself (ip netns exec,
# setpriv and env exec it), so that kill reaches it.
in_bg() {
	local ns=NS_$1 out=$2
	shift 2
	ip netns exec "${!ns}" "$@" > "$out" 2>&1 &
	BG=$!
}

# alive PID: the process runs (a zombie, waiting for its reaper, does not).
alive() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# ep_rows: the endpoints of stats' JSON on stdin, "pid uid job_id
# pid_on_fep" a line (no jq: `make deps` does not install it).
ep_rows() {
	local obj
	sed -n 's/.*"endpoints": *\[\(.*\)\].*/\1/p' | tr '}' '\n' |
	while IFS= read -r obj; do
		[[ $obj == *'"pid_on_fep"'* ]] || continue
		echo "$(json_num pid <<< "$obj") $(json_num uid <<< "$obj")" \
		     "$(json_num job_id <<< "$obj")" \
		     "$(json_num pid_on_fep <<< "$obj")"
	done
}

# json_num NAME: the number named NAME in the JSON object on stdin.
json_num() { sed -n "s/.*\"$1\": *\([0-9]*\).*/\1/p" | head -1; }

load() {
	local ifc=IF_$1
	e2e_in "$1" "$UETCTL" load "${!ifc}" --mode skb
}

# pair NAME PROVIDER SERVER_ARGS CLIENT_ARGS [WRAP]: a server in B and a
# client in A (under the command WRAP, e.g. setpriv); both must say all ok.
pair() {
	local name=$1 prov=$2 sargs=$3 cargs=$4 wrap=${5:-} p spid rc=0 src=0
	p=$(port)
	# shellcheck disable=SC2086 # the argument lists are split on purpose
	in_bg B "$E2E_TMP/pair_s.out" $wrap env FI_PROVIDER="$prov" "$FEP" -s \
		-a "$IP_B" -p "$p" -T "$LIMIT_S" $sargs
	spid=$BG
	# shellcheck disable=SC2086
	e2e_in A $wrap env FI_PROVIDER="$prov" "$FEP" -c "$IP_B" -p "$p" \
		-T "$LIMIT_S" $cargs > "$E2E_TMP/pair_c.out" 2>&1 || rc=$?
	wait "$spid" || src=$?
	if [ "$rc" != 0 ] || [ "$src" != 0 ] ||
	   ! grep -q "server: all ok" "$E2E_TMP/pair_s.out" ||
	   ! grep -q "client: all ok" "$E2E_TMP/pair_c.out"; then
		echo "  server (exit $src):"
		details "$E2E_TMP/pair_s.out"
		echo "  client (exit $rc):"
		details "$E2E_TMP/pair_c.out"
		e2e_fail "$name"
	fi
}

# ---- a. 16 endpoints in one process per side -------------------------------
check_a() {
	local t0
	t0=$(now_ms)
	pair "a: 16 endpoints over uet" uet "-e 16" "-e 16 -i 2"
	show "^fi_fep_check: (server|client):" "$E2E_TMP/pair_s.out" \
		"$E2E_TMP/pair_c.out"
	e2e_ok "a: 16 endpoints in one process per side over uet, 2 rounds," \
		"every region and message at its own endpoint" \
		"($(( $(now_ms) - t0 )) ms)"
	t0=$(now_ms)
	pair "a: 16 endpoints over tcp" tcp "-e 16" "-e 16 -i 2"
	show "all ok" "$E2E_TMP/pair_c.out"
	e2e_ok "a: the same over tcp, for comparison ($(( $(now_ms) - t0 )) ms)"
}

# ---- b. two jobs on the same interfaces ------------------------------------
# fail_client OUT ARGS...: a client in A whose operations must all fail.
fail_client() {
	local out=$1
	shift
	e2e_in A "${UET[@]}" "$FEP" -c "$IP_B" -T "$FAIL_LIMIT_S" -e 1 \
		-l "$ERR_MS" "$@" > "$out" 2>&1
}

check_b() {
	local t0 p bs bad=0 r200=0 r77=0 r100=0 rs=0
	t0=$(now_ms)
	p=$(port)
	in_bg B "$E2E_TMP/b_s.out" "${UET[@]}" "$FEP" -s -a "$IP_B" -p "$p" \
		-T "$LIMIT_S" -e 1 -S 10 -j 100 -C 2
	bs=$BG
	wait_line "$E2E_TMP/b_s.out" "endpoints ready"
	must "$E2E_TMP/b_s.out" "/pid=10/" "b: job 100's server not on PIDonFEP 10"
	# Job 200 on job 100's PIDonFEP 10, with its valid key: RC_BAD_JOB_ID.
	fail_client "$E2E_TMP/b_c200.out" -p "$p" -j 200 -x 0x1b,FI_EACCES ||
		r200=$?
	# Job 100 on PIDonFEP 77, which nobody holds: RC_BAD_PID.
	fail_client "$E2E_TMP/b_c77.out" -j 100 -P 77 \
		-x 0x1a,FI_EADDRNOTAVAIL || r77=$?
	# Job 100's own client then works on that endpoint.
	e2e_in A "${UET[@]}" "$FEP" -c "$IP_B" -p "$p" -T "$LIMIT_S" -e 1 \
		-j 100 > "$E2E_TMP/b_c100.out" 2>&1 || r100=$?
	wait "$bs" || rs=$?
	show "client|FAIL" "$E2E_TMP/b_c200.out"
	if [ $r200 = 0 ] && grep -q "client 1: every operation failed as it \
expected; no message arrived and all 1 buffers are unchanged" \
		"$E2E_TMP/b_s.out"; then
		e2e_ok "b: job 200's write, read and send on job 100's" \
			"PIDonFEP 10: RC_BAD_JOB_ID (FI_EACCES) within" \
			"$ERR_MS ms, job 100's buffer unchanged"
	else
		echo "  job 100's server (exit $rs):"
		details "$E2E_TMP/b_s.out"
		echo "  FAIL: b: job 200 on job 100's PIDonFEP 10 (exit $r200)"
		bad=1
	fi
	show "client|FAIL" "$E2E_TMP/b_c77.out"
	if [ $r77 = 0 ]; then
		e2e_ok "b: job 100's write, read and send on PIDonFEP 77," \
			"held by nobody: RC_BAD_PID (FI_EADDRNOTAVAIL) within" \
			"$ERR_MS ms"
	else
		echo "  FAIL: b: PIDonFEP 77 (exit $r77)"
		bad=1
	fi
	show "all ok" "$E2E_TMP/b_c100.out"
	if [ $r100 = 0 ] && grep -q "server: client 2: 1 rounds: every region" \
		"$E2E_TMP/b_s.out"; then
		e2e_ok "b: job 100's own client on PIDonFEP 10 then all ok" \
			"($(( $(now_ms) - t0 )) ms)"
	else
		details "$E2E_TMP/b_c100.out"
		echo "  FAIL: b: job 100's own client (exit $r100, server $rs)"
		bad=1
	fi
	[ $bad = 0 ] || e2e_fail "b: two jobs"
}

# ---- c. unprivileged users -------------------------------------------------
check_c() {
	local t0 caps hold rc
	t0=$(now_ms)
	# shellcheck disable=SC2086
	caps=$(e2e_in B $AS_U grep -E "^Cap(Eff|Prm)" /proc/self/status)
	grep -q "CapEff:[[:space:]]*0*$" <<< "$caps" &&
		grep -q "CapPrm:[[:space:]]*0*$" <<< "$caps" ||
		e2e_fail "c: $U has capabilities: $caps"
	pair "c: an unprivileged user on both sides" uet "-e 4 -j 300" \
		"-e 4 -j 300" "$AS_U"
	show "all ok" "$E2E_TMP/pair_s.out" "$E2E_TMP/pair_c.out"
	e2e_ok "c: user $U (uid $UID_U, no capability) runs 4 endpoints of" \
		"job 300 on each side ($(( $(now_ms) - t0 )) ms)"

	# $U holds JobID 300 and PIDonFEP 40 in B.
	# shellcheck disable=SC2086
	in_bg B "$E2E_TMP/c_hold.out" $AS_U "${UET[@]}" "$FEP" -o -a "$IP_B" \
		-e 1 -S 40 -j 300 -H 60
	hold=$BG
	wait_line "$E2E_TMP/c_hold.out" "endpoints enabled"
	# nobody may not join job 300.
	rc=0
	# shellcheck disable=SC2086
	e2e_in B $AS_NOBODY "${UET[@]}" FI_LOG_LEVEL=warn "$FEP" -o \
		-a "$IP_B" -e 1 -j 300 > "$E2E_TMP/c_nobody.out" 2>&1 || rc=$?
	[ $rc = 1 ] || { details "$E2E_TMP/c_nobody.out";
			 e2e_fail "c: nobody joined job 300 (exit $rc)"; }
	must "$E2E_TMP/c_nobody.out" "fi_enable: -13 (FI_EACCES" \
		"c: nobody's endpoint of job 300: not -FI_EACCES at fi_enable"
	must "$E2E_TMP/c_nobody.out" \
		"JobID 300 belongs to uid $UID_U; uid 65534 .* may not join it" \
		"c: the refusal does not say why"
	show "fi_enable|JobID" "$E2E_TMP/c_nobody.out"
	e2e_ok "c: another user (nobody) opening an endpoint of job 300:" \
		"-FI_EACCES at fi_enable"
	# PIDonFEP 40 is in use: another endpoint asking for it is refused.
	rc=0
	# shellcheck disable=SC2086
	e2e_in B $AS_U "${UET[@]}" FI_UET_PID_ON_FEP=40 FI_LOG_LEVEL=warn \
		"$FEP" -o -a "$IP_B" -e 1 -j 300 > "$E2E_TMP/c_inuse.out" 2>&1 ||
		rc=$?
	[ $rc = 1 ] || { details "$E2E_TMP/c_inuse.out";
			 e2e_fail "c: another endpoint on PIDonFEP 40: $rc"; }
	must "$E2E_TMP/c_inuse.out" "fi_enable: -98 (FI_EADDRINUSE" \
		"c: a PIDonFEP in use: not -FI_EADDRINUSE at fi_enable"
	must "$E2E_TMP/c_inuse.out" "PIDonFEP 40 is in use" \
		"c: the refusal does not say why"
	show "fi_enable|PIDonFEP" "$E2E_TMP/c_inuse.out"
	e2e_ok "c: a second endpoint asking for PIDonFEP 40" \
		"(FI_UET_PID_ON_FEP) in use: -FI_EADDRINUSE at fi_enable"
	kill "$hold"
}

# ---- d. the service lists open endpoints -----------------------------------
check_d() {
	local pu pr json want got
	# shellcheck disable=SC2086
	in_bg B "$E2E_TMP/d_holdu.out" $AS_U "${UET[@]}" "$FEP" -o -a "$IP_B" \
		-e 1 -S 41 -j 310 -H 60
	in_bg B "$E2E_TMP/d_holdr.out" "${UET[@]}" "$FEP" -o -a "$IP_B" -e 3 \
		-S 60 -j 500 -H 60
	wait_line "$E2E_TMP/d_holdu.out" "endpoints enabled"
	wait_line "$E2E_TMP/d_holdr.out" "endpoints enabled"
	pu=$(proc_of "$E2E_TMP/d_holdu.out")
	pr=$(proc_of "$E2E_TMP/d_holdr.out")
	json=$(stats B) || e2e_fail "d: uetctl stats from a fresh shell: $json"
	want=$(printf '%s\n' "$pr 0 500 60" "$pr 0 500 61" "$pr 0 500 62" \
		"$pu $UID_U 310 41" | sort)
	got=$(ep_rows <<< "$json" | awk -v a="$pr" -v b="$pu" \
		'$1 == a || $1 == b' | sort)
	[ "$got" = "$want" ] ||
		e2e_fail "d: stats lists (pid uid job_id pid_on_fep) [$got]," \
			 "not [$want]: $json"
	details <<< "$got"
	e2e_ok "d: uetctl stats --json in a fresh shell lists the 4" \
		"endpoints of a root and a user process (pid, uid, job_id," \
		"pid_on_fep)"
}

# ---- e. one of 4 server processes killed mid-transfer ----------------------
check_e() {
	local t0 p victim kill_at err_at ms json n k args rc bad=0
	local -a es ec
	t0=$(now_ms)
	p=$(port)
	for k in 0 1 2 3; do
		in_bg B "$E2E_TMP/e_s$k.out" "${UET[@]}" "$FEP" -s -a "$IP_B" \
			-p $((p + k)) -T "$LIMIT_S" -e 1 -S $((20 + k)) -j 400
		es[k]=$BG
	done
	for k in 0 1 2 3; do
		wait_line "$E2E_TMP/e_s$k.out" "endpoints ready"
	done
	# Pair 2's client runs until its server is gone: its first error
	# (the service's RC_BAD_PID, or FI_ECONNRESET for its PDC) ends its
	# rounds, and a new write must then get RC_BAD_PID.
	for k in 0 1 2 3; do
		if [ $k = 2 ]; then
			args="-R 20 -T $FAIL_LIMIT_S -l $ERR_MS"
			args+=" -g 0x1a,FI_EADDRNOTAVAIL"
		else
			args="-R 3 -T $LIMIT_S"
		fi
		# shellcheck disable=SC2086
		in_bg A "$E2E_TMP/e_c$k.out" "${UET[@]}" "$FEP" -c "$IP_B" \
			-p $((p + k)) -e 1 -j 400 $args
		ec[k]=$BG
	done
	# Mid-transfer: every client is past its first round.
	for k in 0 1 2 3; do
		wait_line "$E2E_TMP/e_c$k.out" "round 1 done"
	done
	victim=${es[2]}
	[ "$(proc_of "$E2E_TMP/e_s2.out")" = "$victim" ] ||
		e2e_fail "e: server 2 says it is process" \
			 "$(proc_of "$E2E_TMP/e_s2.out"), not $victim"
	kill_at=$(date +%s.%N)
	kill -9 "$victim"
	wait "$victim" 2>/dev/null || true	# no "Killed" from bash later
	# The service saw the death at once: its endpoint is gone.
	sleep 0.5
	json=$(stats B)
	n=$(ep_rows <<< "$json" | awk -v v="$victim" '$1 == v' | wc -l)
	if [ "$n" = 0 ]; then
		e2e_ok "e: 0.5 s after kill -9 of 1 of 4 servers" \
			"mid-transfer, uetctl stats no longer lists it"
	else
		echo "  FAIL: e: uetctl stats still lists process $victim: $json"
		bad=1
	fi
	# The 3 other pairs go on and verify every round.
	for k in 0 1 3; do
		rc=0
		wait "${ec[k]}" || rc=$?
		wait "${es[k]}" || rc=$?
		if [ $rc != 0 ] ||
		   ! grep -q "server: all ok" "$E2E_TMP/e_s$k.out" ||
		   ! grep -q "client: all ok" "$E2E_TMP/e_c$k.out"; then
			details "$E2E_TMP/e_s$k.out" "$E2E_TMP/e_c$k.out"
			echo "  FAIL: e: pair $k (exit $rc)"
			bad=1
		fi
		show "client: all ok" "$E2E_TMP/e_c$k.out"
	done
	[ $bad = 1 ] || e2e_ok "e: the 3 other pairs verified every round"
	# The killed one's client: an error within ERR_MS, then RC_BAD_PID.
	rc=0
	wait "${ec[2]}" || rc=$?
	show "gone|dead peer|FAIL" "$E2E_TMP/e_c2.out"
	err_at=$(sed -n 's/.*peer gone: error completion at \([0-9.]*\).*/\1/p' \
		"$E2E_TMP/e_c2.out" | head -1)
	ms=$(awk -v a="$kill_at" -v b="${err_at:-0}" \
		'BEGIN { printf "%d", (b - a) * 1000 }')
	if [ $rc = 0 ] && [ -n "$err_at" ] && [ "$ms" -le "$ERR_MS" ]; then
		e2e_ok "e: the killed server's client: an error completion" \
			"$ms ms after the kill, then RC_BAD_PID for a new" \
			"write ($(( $(now_ms) - t0 )) ms)"
	else
		details "$E2E_TMP/e_c2.out"
		echo "  FAIL: e: the killed server's client (exit $rc, error" \
		     "${err_at:+$ms ms after the kill}${err_at:-never})"
		bad=1
	fi
	[ $bad = 0 ] || e2e_fail "e: one of 4 servers killed"
}

# ---- f. clean failures -----------------------------------------------------
check_f() {
	local t0 rc out uetd json
	t0=$(now_ms)
	rc=0
	out=$(load B 2>&1) || rc=$?
	[ $rc = 1 ] && grep -q "already loaded" <<< "$out" ||
		e2e_fail "f: a second uetctl load: exit $rc: $out"
	pair "f: after a second load" uet "-e 2" "-e 2"
	e2e_ok "f: uetctl load on a loaded interface: exit 1, \"$out\";" \
		"the service still serves ($(( $(now_ms) - t0 )) ms)"
	t0=$(now_ms)

	uetd=$(stats B | sed -n 's/.*"service": *{ *"pid": *\([0-9]*\).*/\1/p')
	[ -n "$uetd" ] && [ "$uetd" -gt 0 ] || e2e_fail "f: no service pid"
	kill -9 "$uetd"
	for _ in $(seq 50); do
		alive "$uetd" || break
		sleep 0.1
	done
	out=$(load B 2>&1) ||
		e2e_fail "f: uetctl load after the service was killed: $out;" \
			 "processes in B: $(ip netns pids "$NS_B" |
			 xargs -r ps -o pid=,stat=,args= -p)"
	json=$(stats B)
	[ -z "$(ep_rows <<< "$json")" ] &&
		! grep -q "\"service\": *{ *\"pid\": *$uetd," <<< "$json" ||
		e2e_fail "f: the new service: $json"
	pair "f: after the service was killed and loaded again" uet \
		"-e 2" "-e 2"
	e2e_ok "f: the service killed (kill -9), uetctl load again:" \
		"\"$out\"; an application then runs" \
		"($(( $(now_ms) - t0 )) ms)"
	t0=$(now_ms)

	e2e_in B "$UETCTL" unload "$IF_B" >/dev/null
	rc=0
	e2e_in B "${UET[@]}" FI_LOG_LEVEL=warn "$FEP" -o -a "$IP_B" -e 1 \
		> "$E2E_TMP/f_nosvc.out" 2>&1 || rc=$?
	load B >/dev/null
	[ $rc = 1 ] || { details "$E2E_TMP/f_nosvc.out";
			 e2e_fail "f: without a service: exit $rc"; }
	must "$E2E_TMP/f_nosvc.out" "fi_enable: -19 (FI_ENODEV" \
		"f: without a service: not -FI_ENODEV at fi_enable"
	must "$E2E_TMP/f_nosvc.out" \
		"no uet device service (uetd) on $IF_B: run \`uetctl load $IF_B\` or \`systemctl start uetd@$IF_B\`" \
		"f: without a service: no clear message"
	show "fi_enable|no uet device service" "$E2E_TMP/f_nosvc.out"
	pair "f: once loaded" uet "-e 2" "-e 2"
	e2e_ok "f: an application started before uetctl load: -FI_ENODEV" \
		"at fi_enable, \"no uet device service (uetd) on $IF_B\"; after the load" \
		"it runs ($(( $(now_ms) - t0 )) ms)"
}

USERS=()
fep_cleanup() {
	e2e_cleanup
	for u in "${USERS[@]}"; do
		userdel -f "$u" >/dev/null 2>&1	# -f: its processes may be exiting
	done
}

T_START=$(now_ms)
e2e_setup "$MTU"
trap fep_cleanup EXIT
# Other users run the program and load the provider: copies they can reach.
e2e_stage "$B/libuet-fi.so" "$B/fi_fep_check"
export FI_PROVIDER_PATH="$E2E_STAGE"
FEP="$E2E_STAGE/fi_fep_check"
for side in A B; do
	load "$side" >/dev/null
done
if [[ $CHECKS == *[cd]* ]]; then
	U=uetfep$$
	useradd -M -r -s /usr/sbin/nologin "$U" || e2e_fail "useradd $U"
	USERS+=("$U")
	UID_U=$(id -u "$U")
	AS_U="setpriv --reuid=$UID_U --regid=$(id -g "$U") --clear-groups"
	AS_U+=" --inh-caps=-all"
	AS_NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
	AS_NOBODY+=" --inh-caps=-all"
fi
FAILED=()
for c in a b c d e f; do
	[[ $CHECKS == *$c* ]] || continue
	# Its own subshell: e2e_fail ends the check, and what it started
	# in the background goes with it.
	( trap 'kill $(jobs -p) 2>/dev/null || true' EXIT; "check_$c" ) ||
		FAILED+=("$c")
done
e2e_log "$(( ($(now_ms) - T_START) / 1000 )) s"
[ ${#FAILED[@]} = 0 ] || e2e_fail "checks that failed: ${FAILED[*]}"
