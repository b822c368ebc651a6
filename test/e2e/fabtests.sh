#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# libfabric's own fabtests as a reference (issue 13): the RDM functional
# and benchmark tests of runfabtests.sh's quick set, invoked as it invokes
# them (default port, sizes and iterations; server `-s IP_B`, client
# `-s IP_A IP_B`), server in namespace B and client in A at MTU 9000, and
# the unit tests in B, each over tcp and then over uet. One table, then a
# line "e2e: fabtests: TEST tcp=R uet=R" per test, R pass, fail or skip
# (skip: the test says the provider cannot run it, FI_ENODATA or
# FI_ENOSYS, as runfabtests.sh counts Notrun). Fails when a test that
# passes over tcp fails over uet.
#
# fabtests are not part of this repository: FABTESTS=DIR names an
# installed build (binaries in DIR/bin) of the libfabric version the
# system has. Optional: FABTESTS_TIMEOUT (s per program, default 60),
# FABTESTS_ONLY (a regex: run only the tests it matches), FABTESTS_LOGS
# (a directory that keeps every program's output), FABTESTS_PORT=N (the
# server gets -B N and the client -P N instead of fabtests' port 9228; for
# looking past a provider's refusal of the default service),
# FABTESTS_STRICT=1 (FI_ENODATA and FI_ENOSYS are failures, as
# runfabtests.sh -S).
if [ -z "${FABTESTS:-}" ] || [ ! -d "$FABTESTS/bin" ]; then
	# Also under CI=true: CI cannot fetch fabtests.
	echo "e2e: fabtests: SKIP (set FABTESTS=DIR to a fabtests build;" \
		"CI cannot fetch it)"
	exit 0
fi
E2E_NAME=fabtests
source "$(dirname "$0")/e2e_lib.sh"
FT_BIN="$(cd "$FABTESTS/bin" && pwd)"
FI_PROVIDER_PATH="$(cd "$B" && pwd)"
export FI_PROVIDER_PATH
LIMIT_S=${FABTESTS_TIMEOUT:-60}
ONLY=${FABTESTS_ONLY:-}
SPORT=() CPORT=()
if [ -n "${FABTESTS_PORT:-}" ]; then
	SPORT=(-B "$FABTESTS_PORT")
	CPORT=(-P "$FABTESTS_PORT")
fi
LOGS=${FABTESTS_LOGS:-$E2E_TMP/logs}
PROVIDERS="tcp uet"
ENODATA=61
ENOSYS=38

# Client/server tests: runfabtests.sh's functional_tests and short_tests
# (1.17) that use RDM endpoints (by -e rdm or by default), then RDM tests
# of functional/ that runfabtests.sh does not list, with their defaults.
# Left out: MSG and DGRAM only (fi_msg*, fi_cm_data, fi_dgram*,
# fi_msg_pingpong and fi_msg_bw set FI_EP_MSG after reading -e),
# fi_rdm_stress (needs a JSON job file), fi_loopback (127.0.0.1 only).
CS_TESTS=(
	"fi_av_xfer -e rdm"
	"fi_cq_data -e rdm"
	"fi_poll -t queue"
	"fi_poll -t counter"
	"fi_rdm"
	"fi_rdm -U"
	"fi_rdm_rma_event"
	"fi_rdm_rma_trigger"
	"fi_shared_ctx"
	"fi_shared_ctx --no-tx-shared-ctx"
	"fi_shared_ctx --no-rx-shared-ctx"
	"fi_rdm_tagged_peek"
	"fi_scalable_ep"
	"fi_rdm_shared_av"
	"fi_multi_mr -e rdm -V"
	"fi_multi_ep -e rdm -v"
	"fi_recv_cancel -e rdm -V"
	"fi_unexpected_msg -e rdm -I 10"
	"fi_msg_inject -A inject -v"
	"fi_msg_inject -N -A inject -v"
	"fi_msg_inject -A inj_complete -v"
	"fi_msg_inject -N -A inj_complete -v"
	"fi_bw -e rdm -v -T 1"
	"fi_bw -e rdm -v -T 1 -U"
	"fi_rdm_multi_client -C 10 -I 5"
	"fi_rdm_multi_client -C 10 -I 5 -U"
	"fi_rma_bw -e rdm -o write -I 5"
	"fi_rma_bw -e rdm -o write -I 5 -U"
	"fi_rma_bw -e rdm -o read -I 5"
	"fi_rma_bw -e rdm -o read -I 5 -U"
	"fi_rma_bw -e rdm -o writedata -I 5"
	"fi_rma_bw -e rdm -o writedata -I 5 -U"
	"fi_rdm_atomic -I 5 -o all"
	"fi_rdm_atomic -I 5 -o all -U"
	"fi_rdm_cntr_pingpong -I 5"
	"fi_multi_recv -e rdm -I 5"
	"fi_rdm_pingpong -I 5"
	"fi_rdm_pingpong -I 5 -U"
	"fi_rdm_pingpong -I 5 -v"
	"fi_rdm_pingpong -I 5 -v -U"
	"fi_rdm_tagged_pingpong -I 5"
	"fi_rdm_tagged_pingpong -I 5 -U"
	"fi_rdm_tagged_pingpong -I 5 -v"
	"fi_rdm_tagged_pingpong -I 5 -v -U"
	"fi_rdm_tagged_bw -I 5"
	"fi_rdm_tagged_bw -I 5 -U"
	"fi_rdm_tagged_bw -I 5 -v"
	"fi_rdm_tagged_bw -I 5 -v -U"
	"fi_rdm_deferred_wq"
	"fi_rdm_multi_domain"
	"fi_resmgmt_test"
	"fi_unmap_mem"
)

# Unit tests: runfabtests.sh's unit_tests (one process, in B), and its
# negative test for RDM, which passes when fi_getinfo says FI_ENODATA.
UNIT_TESTS=(
	"fi_getinfo_test -s SERVER_ADDR GOOD_ADDR"
	"fi_av_test -g GOOD_ADDR -n 1 -s SERVER_ADDR -e rdm"
	"fi_dom_test -n 2"
	"fi_eq_test"
	"fi_cq_test"
	"fi_mr_test"
	"fi_cntr_test"
)
NEG_TESTS=("fi_rdm g00n13s")

# verdict RC [RC2]: pass, skip (each FI_ENODATA, or each FI_ENOSYS) or fail.
verdict() {
	local a=$1 b=${2:-$1}
	if [ "$a" = 0 ] && [ "$b" = 0 ]; then
		echo pass
	elif [ "${FABTESTS_STRICT:-0}" = 1 ]; then
		echo fail
	elif { [ "$a" = $ENODATA ] && [ "$b" = $ENODATA ]; } ||
	     { [ "$a" = $ENOSYS ] && [ "$b" = $ENOSYS ]; }; then
		echo skip
	else
		echo fail
	fi
}

# run_in SIDE PROV LOG TEST ARGS...: one fabtest under the time limit.
run_in() {
	local side=$1 prov=$2 log=$3 ifc=IF_$1 bin
	shift 3
	bin=$1
	shift
	e2e_in "$side" env FI_PROVIDER="$prov" FI_UET_IFACE="${!ifc}" \
		timeout -k 5 "$LIMIT_S" "$FT_BIN/$bin" "$@" > "$log" 2>&1
}

# server_up PROV SPID: waits (10 s at most) until the server in B listens
# (a TCP socket: tcp, and the tests that exchange addresses out of band)
# or holds a uet endpoint, or has exited.
server_up() {
	local i
	for i in $(seq 100); do
		kill -0 "$2" 2>/dev/null || return 0
		[ -n "$(e2e_in B ss -Hltn 2>/dev/null)" ] && return 0
		if [ "$1" = uet ] && e2e_in B "$B/uetctl" stats "$IF_B" \
			--json 2>/dev/null | grep -q '"endpoints": \[{'; then
			return 0
		fi
		sleep 0.1
	done
}

# cs_test PROV LOGNAME TEST ARGS...: server in B, client in A, as
# runfabtests.sh's cs_test; prints the verdict.
cs_test() {
	local prov=$1 name=$2 spid src=0 crc=0
	shift 2
	# Not through a function: $! is then timeout itself, which passes
	# our signal on to the server.
	ip netns exec "$NS_B" env FI_PROVIDER="$prov" FI_UET_IFACE="$IF_B" \
		timeout -k 5 "$LIMIT_S" "$FT_BIN/$1" "${@:2}" -p "$prov" \
		${SPORT[@]+"${SPORT[@]}"} -s "$IP_B" > "$LOGS/$name.server" 2>&1 &
	spid=$!
	sleep 1
	server_up "$prov" "$spid"
	run_in A "$prov" "$LOGS/$name.client" "$@" -p "$prov" \
		${CPORT[@]+"${CPORT[@]}"} -s "$IP_A" "$IP_B" || crc=$?
	if [ "$crc" != 0 ] && kill -0 "$spid" 2>/dev/null; then
		sleep 2
		kill "$spid" 2>/dev/null || true
	fi
	wait "$spid" || src=$?
	echo "$src $crc" > "$LOGS/$name.rc"
	verdict "$src" "$crc"
}

# unit_test PROV LOGNAME NEG TEST ARGS...: one process in B.
unit_test() {
	local prov=$1 name=$2 neg=$3 rc=0
	shift 3
	run_in B "$prov" "$LOGS/$name.out" "$@" -p "$prov" || rc=$?
	echo "$rc" > "$LOGS/$name.rc"
	if [ "$neg" = 1 ]; then
		[ "$rc" = $ENODATA ] && rc=0 || rc=1
	fi
	verdict "$rc"
}

# why LOGNAME: the first line of a failed run's output that says what went
# wrong (fabtests print "call(): file:line, ret=-N (text)").
why() {
	local f
	for f in "$LOGS/$1".{client,server,out}; do
		[ -f "$f" ] || continue
		grep -m1 -iE 'ret=|error|fail|timed? ?out|abort|assert' "$f" |
			sed "s|^|${f##*.}: |" || true
	done | head -2 | tr '\n' ';' | sed 's/;$//'
}

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done
mkdir -p "$LOGS"

declare -A result
order=()
fails=0
skips=0
n=0
# one KIND TEST: the test over each provider, into result[TEST/PROV].
one() {
	local kind=$1 t=$2 prov name r args
	[ -n "$ONLY" ] && ! [[ "$t" =~ $ONLY ]] && return 0
	order+=("$t")
	n=$((n + 1))
	t=${t//SERVER_ADDR/$IP_B}
	t=${t//GOOD_ADDR/$IP_B}
	read -ra args <<< "$t"
	for prov in $PROVIDERS; do
		name=$(printf '%02d-%s' "$n" "$prov")
		case $kind in
		cs) r=$(cs_test "$prov" "$name" "${args[@]}") ;;
		unit) r=$(unit_test "$prov" "$name" 0 "${args[@]}") ;;
		neg) r=$(unit_test "$prov" "$name" 1 "${args[@]}") ;;
		esac
		result[$n/$prov]=$r
		[ "$r" = pass ] || result[$n/$prov.why]=$(why "$name")
	done
	printf '  %-44s tcp=%-4s uet=%s\n' "${order[-1]}" \
		"${result[$n/tcp]}" "${result[$n/uet]}"
}

for t in "${UNIT_TESTS[@]}"; do one unit "$t"; done
for t in "${NEG_TESTS[@]}"; do one neg "$t"; done
for t in "${CS_TESTS[@]}"; do one cs "$t"; done

echo
printf '%-52s %-5s %-5s\n' test tcp uet
printf '%-52s %-5s %-5s\n' ---- --- ---
for i in "${!order[@]}"; do
	k=$((i + 1))
	printf '%-52s %-5s %-5s\n' "${order[$i]}" "${result[$k/tcp]}" \
		"${result[$k/uet]}"
done
echo
for i in "${!order[@]}"; do
	k=$((i + 1))
	echo "e2e: fabtests: ${order[$i]} tcp=${result[$k/tcp]}" \
		"uet=${result[$k/uet]}"
	for prov in $PROVIDERS; do
		[ -n "${result[$k/$prov.why]:-}" ] &&
			echo "  $prov: ${result[$k/$prov.why]}"
	done
	if [ "${result[$k/tcp]}" = pass ]; then
		case ${result[$k/uet]} in
		fail) fails=$((fails + 1)) ;;
		skip) skips=$((skips + 1)) ;;
		esac
	fi
done
[ -n "${FABTESTS_LOGS:-}" ] && e2e_log "outputs in $LOGS"
[ "$skips" = 0 ] || e2e_log "$skips test(s) pass over tcp and are not run" \
	"over uet (FI_ENODATA or FI_ENOSYS; FABTESTS_STRICT=1 fails them)"
[ "$fails" = 0 ] ||
	e2e_fail "$fails test(s) pass over tcp and fail over uet"
e2e_ok "every test that passes over tcp passes over uet"
