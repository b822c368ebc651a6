#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# libfabric's own fabtests as a reference (issues 13, 33): the RDM
# functional and benchmark tests of runfabtests.sh's quick set, invoked as
# it invokes them (default port, sizes and iterations; server `-s IP_B`,
# client `-s IP_A IP_B`), server in namespace B and client in A at MTU
# 9000, and the unit tests in B, each over tcp and then over uet; for each
# libfabric version: 1.17 (fabtests 1.17 on the system's libfabric) and
# 2.6 (fabtests 2.6 on libfabric 2.6, LD_LIBRARY_PATH to it), both built
# by test/vendor/build.sh into $B/vendor. A table per version, then a
# line "e2e: fabtests: VERSION: TEST tcp=R uet=R" per test, R pass, fail
# or skip (skip: the test says the provider cannot run it, FI_ENODATA or
# FI_ENOSYS, as runfabtests.sh counts Notrun), absent (not in this
# version) or known (a failure of the test's own, KNOWN below). Fails
# when a test that passes over tcp fails over uet. Without the vendor builds: skips, or
# fails under CI=true.
#
# FABTESTS_VERSIONS: the versions to run (default "1.17 2.6"); or
# FABTESTS=DIR, an installed fabtests build (binaries in DIR/bin) of the
# system's libfabric, run alone as version 1.17 (FABTESTS_LIB=DIR: a
# libfabric to run it on, through LD_LIBRARY_PATH; FABTESTS_VERSION:
# which list of tests, 1.17 or 2.6). Optional: FABTESTS_TIMEOUT (s per
# program, default 60),
# FABTESTS_ONLY (a regex: run only the tests it matches), FABTESTS_LOGS
# (a directory that keeps every program's output), FABTESTS_PORT=N (the
# server gets -B N and the client -P N instead of fabtests' port 9228; for
# looking past a provider's refusal of the default service),
# FABTESTS_STRICT=1 (FI_ENODATA and FI_ENOSYS are failures, as
# runfabtests.sh -S).
E2E_NAME=fabtests
source "$(dirname "$0")/e2e_lib.sh"
FI_PROVIDER_PATH="$(cd "$B" && pwd)"
export FI_PROVIDER_PATH
VENDOR="$FI_PROVIDER_PATH/vendor"
# SUITES: "VERSION BINDIR LIBDIR" each (LIBDIR - for the system's).
SUITES=()
if [ -n "${FABTESTS:-}" ]; then
	[ -d "$FABTESTS/bin" ] || e2e_fail "FABTESTS=$FABTESTS has no bin/"
	SUITES=("${FABTESTS_VERSION:-1.17} $(cd "$FABTESTS/bin" && pwd)"\
" ${FABTESTS_LIB:--}")
else
	for v in ${FABTESTS_VERSIONS:-1.17 2.6}; do
		lib=-
		[ "$v" = 1.17 ] || lib=$VENDOR/libfabric-$v/lib
		if [ ! -d "$VENDOR/fabtests-$v/bin" ]; then
			[ "${CI:-}" = true ] &&
				e2e_fail "$VENDOR/fabtests-$v not built" \
					"(test/vendor/build.sh)"
			e2e_log "SKIP $v ($VENDOR/fabtests-$v not built:" \
				"test/vendor/build.sh)"
			continue
		fi
		SUITES+=("$v $VENDOR/fabtests-$v/bin $lib")
	done
	[ ${#SUITES[@]} -gt 0 ] || exit 0
fi
LIMIT_S=${FABTESTS_TIMEOUT:-60}
ONLY=${FABTESTS_ONLY:-}
SPORT=() CPORT=()
if [ -n "${FABTESTS_PORT:-}" ]; then
	SPORT=(-B "$FABTESTS_PORT")
	CPORT=(-P "$FABTESTS_PORT")
fi
PROVIDERS="tcp uet"
ENODATA=61
ENOSYS=38

# Client/server tests: runfabtests.sh's functional_tests and short_tests
# (1.17) that use RDM endpoints (by -e rdm or by default), then RDM tests
# of functional/ that runfabtests.sh does not list, with their defaults.
# Left out: MSG and DGRAM only (fi_msg*, fi_cm_data, fi_dgram*,
# fi_msg_pingpong and fi_msg_bw set FI_EP_MSG after reading -e),
# fi_rdm_stress (needs a JSON job file), fi_loopback (127.0.0.1 only).
CS_TESTS_1_17=(
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

# The same for 2.6's runfabtests.sh: fi_bw became fi_flood, fi_msg_inject
# fi_inject_test, fi_poll is gone (poll sets are deprecated), fi_cq_data
# takes -o, fi_multi_ep has -A (shared AV), -Q (shared CQ) and
# --threading completion, and fi_rdm_atomic -v.
CS_TESTS_2_6=(
	"fi_av_xfer -e rdm"
	"fi_cq_data -e rdm -o senddata"
	"fi_cq_data -e rdm -o writedata"
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
	"fi_multi_ep -e rdm -v -A"
	"fi_multi_ep -e rdm -v -Q"
	"fi_multi_ep -e rdm -v -A -Q"
	"fi_multi_ep -e rdm -v --threading completion"
	"fi_multi_ep -e rdm -v -A -Q --threading completion"
	"fi_recv_cancel -e rdm -V"
	"fi_unexpected_msg -e rdm -I 10 -v"
	"fi_inject_test -A inject -v"
	"fi_inject_test -N -A inject -v"
	"fi_inject_test -A inj_complete -v"
	"fi_inject_test -N -A inj_complete -v"
	"fi_flood -e rdm -v -T 1"
	"fi_flood -e rdm -v -T 1 -U"
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
	"fi_rdm_atomic -I 5 -o all -v"
	"fi_rdm_atomic -I 5 -o all -U -v"
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
UNIT_TESTS_1_17=(
	"fi_getinfo_test -s SERVER_ADDR GOOD_ADDR"
	"fi_av_test -g GOOD_ADDR -n 1 -s SERVER_ADDR -e rdm"
	"fi_dom_test -n 2"
	"fi_eq_test"
	"fi_cq_test"
	"fi_mr_test"
	"fi_cntr_test"
)
UNIT_TESTS_2_6=("${UNIT_TESTS_1_17[@]}" "fi_setopt_test")
NEG_TESTS=("fi_rdm g00n13s")

# Failures over uet that are the test's, not the provider's: "VERSION
# REGEX" -> why. Shown as "known" with the reason, not counted.
declare -A KNOWN=(
	# Reads FI_MR_ENDPOINT (which it offers and uet asks for) yet binds
	# the regions of all its endpoints to its first one (ft_reg_mr's
	# global ep): each target endpoint refuses the writes for a region
	# that is not its own (SES rx_rejected), as fi_mr(3) lets it.
	["2.6 ^fi_multi_ep "]="fabtests bug: every region bound to one endpoint under FI_MR_ENDPOINT"
)

# known VERSION TEST: the reason TEST is a known failure under VERSION.
known() {
	local k
	for k in "${!KNOWN[@]}"; do
		[ "${k%% *}" = "$1" ] && [[ "$2" =~ ${k#* } ]] &&
			{ echo "${KNOWN[$k]}"; return 0; }
	done
	return 1
}

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
	e2e_in "$side" env ${FT_ENV[@]+"${FT_ENV[@]}"} FI_PROVIDER="$prov" \
		FI_UET_IFACE="${!ifc}" \
		timeout -k 5 "$LIMIT_S" "$FT_BIN/$bin" "$@" > "$log" 2>&1
}

# server_up PROV SPID: waits (10 s at most) until the server in B listens
# (a TCP socket: tcp, and the tests that exchange addresses out of band)
# or holds a uet endpoint, or has exited. It looks at once: a fixed
# second's sleep before it, in each of the 218 runs, was a third of the
# whole.
server_up() {
	local i
	for i in $(seq 200); do
		kill -0 "$2" 2>/dev/null || return 0
		[ -n "$(e2e_in B ss -Hltn 2>/dev/null)" ] && return 0
		if [ "$1" = uet ] && e2e_in B "$B/uetctl" stats "$IF_B" \
			--json 2>/dev/null | grep -q '"endpoints": \[{'; then
			return 0
		fi
		sleep 0.05
	done
}

# cs_test PROV LOGNAME TEST ARGS...: server in B, client in A, as
# runfabtests.sh's cs_test; prints the verdict.
cs_test() {
	local prov=$1 name=$2 spid src=0 crc=0
	shift 2
	# Not through a function: $! is then timeout itself, which passes
	# our signal on to the server.
	ip netns exec "$NS_B" env ${FT_ENV[@]+"${FT_ENV[@]}"} \
		FI_PROVIDER="$prov" FI_UET_IFACE="$IF_B" timeout -k 5 "$LIMIT_S" "$FT_BIN/$1" "${@:2}" -p "$prov" \
		${SPORT[@]+"${SPORT[@]}"} -s "$IP_B" > "$LOGS/$name.server" 2>&1 &
	spid=$!
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

fails=0
skips=0
knowns=0
# suite VERSION BINDIR LIBDIR: every test of VERSION's lists, its table
# and its lines; counts into fails and skips.
suite() {
	local v=$1 k t prov name r args tests
	local -A result=()
	local order=() n=0
	FT_BIN=$2
	FT_ENV=()
	[ "$3" = - ] || FT_ENV=("LD_LIBRARY_PATH=$3")
	LOGS=${FABTESTS_LOGS:-$E2E_TMP/logs}/$v
	mkdir -p "$LOGS"
	e2e_log "libfabric $v: $FT_BIN"
	# one KIND TEST: the test over each provider, into result[N/PROV].
	one() {
		local kind=$1 t=$2
		[ -n "$ONLY" ] && ! [[ "$t" =~ $ONLY ]] && return 0
		order+=("$t")
		n=$((n + 1))
		t=${t//SERVER_ADDR/$IP_B}
		t=${t//GOOD_ADDR/$IP_B}
		read -ra args <<< "$t"
		for prov in $PROVIDERS; do
			name=$(printf '%02d-%s' "$n" "$prov")
			if [ ! -x "$FT_BIN/${args[0]}" ]; then
				r=absent
			else
				case $kind in
				cs) r=$(cs_test "$prov" "$name" "${args[@]}") ;;
				unit) r=$(unit_test "$prov" "$name" 0 \
					"${args[@]}") ;;
				neg) r=$(unit_test "$prov" "$name" 1 \
					"${args[@]}") ;;
				esac
			fi
			result[$n/$prov]=$r
			[ "$r" = pass ] || [ "$r" = absent ] ||
				result[$n/$prov.why]=$(why "$name")
		done
		if [ "${result[$n/tcp]}" = pass ] &&
		   [ "${result[$n/uet]}" = fail ] &&
		   r=$(known "$v" "${order[-1]}"); then
			result[$n/uet]=known
			result[$n/uet.why]="$r${result[$n/uet.why]:+; }"\
"${result[$n/uet.why]:-}"
		fi
		printf '  %s %-44s tcp=%-4s uet=%s\n' "$v" "${order[-1]}" \
			"${result[$n/tcp]}" "${result[$n/uet]}"
	}
	tests=UNIT_TESTS_${v//./_}[@]
	for t in "${!tests}"; do one unit "$t"; done
	for t in "${NEG_TESTS[@]}"; do one neg "$t"; done
	tests=CS_TESTS_${v//./_}[@]
	for t in "${!tests}"; do one cs "$t"; done

	echo
	echo "fabtests $v"
	printf '%-52s %-5s %-5s\n' test tcp uet
	printf '%-52s %-5s %-5s\n' ---- --- ---
	for k in $(seq "$n"); do
		printf '%-52s %-5s %-5s\n' "${order[$((k - 1))]}" \
			"${result[$k/tcp]}" "${result[$k/uet]}"
	done
	echo
	for k in $(seq "$n"); do
		echo "e2e: fabtests: $v: ${order[$((k - 1))]}" \
			"tcp=${result[$k/tcp]} uet=${result[$k/uet]}"
		for prov in $PROVIDERS; do
			[ -n "${result[$k/$prov.why]:-}" ] &&
				echo "  $prov: ${result[$k/$prov.why]}"
		done
		if [ "${result[$k/tcp]}" = pass ]; then
			case ${result[$k/uet]} in
			fail) fails=$((fails + 1)) ;;
			skip) skips=$((skips + 1)) ;;
			known) knowns=$((knowns + 1)) ;;
			esac
		fi
	done
}

for s in "${SUITES[@]}"; do
	read -r v bin lib <<< "$s"
	declare -p "CS_TESTS_${v//./_}" > /dev/null 2>&1 ||
		e2e_fail "no list of tests for version $v"
	suite "$v" "$bin" "$lib"
done
[ -n "${FABTESTS_LOGS:-}" ] && e2e_log "outputs in $FABTESTS_LOGS"
[ "$knowns" = 0 ] || e2e_log "$knowns test(s) pass over tcp and fail over" \
	"uet for a known fault of the test (see above)"
[ "$skips" = 0 ] || e2e_log "$skips test(s) pass over tcp and are not run" \
	"over uet (FI_ENODATA or FI_ENOSYS; FABTESTS_STRICT=1 fails them)"
[ "$fails" = 0 ] ||
	e2e_fail "$fails test(s) pass over tcp and fail over uet"
aside=
[ "$knowns" = 0 ] || aside=" ($knowns known faults of the tests aside)"
e2e_ok "every test that passes over tcp passes over uet$aside"
