# SPDX-License-Identifier: BSD-2-Clause
# Shared helpers for the end-to-end tests: two network namespaces joined by
# a veth pair, unique names per run, and cleanup of everything on exit.
# Source it, then call e2e_setup; it sets NS_A NS_B IF_A IF_B IP_A IP_B.

set -euo pipefail
B=${B:-build}
E2E_NAME=${E2E_NAME:-$(basename "$0" .sh)}
E2E_ID="$$"
E2E_TMP=$(mktemp -d)

e2e_log() { echo "e2e: $E2E_NAME: $*"; }
e2e_fail() { echo "e2e: $E2E_NAME: FAIL: $*" >&2; exit 1; }
e2e_ok() { echo "e2e: $E2E_NAME: $* ok"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# e2e_check WHAT CMD...: one check of a script that runs all its cases
# before it judges: " ok", or a FAIL noted in E2E_FAILS ($why, when set,
# says why); e2e_checks_done then fails the script with every reason.
E2E_FAILS=()
e2e_check() {
	local what=$1
	shift
	if "$@"; then
		e2e_ok "$what"
	else
		echo "e2e: $E2E_NAME: FAIL: $what${why:+: $why}" >&2
		E2E_FAILS+=("$what${why:+ ($why)}")
	fi
	why=
}
e2e_checks_done() {
	[ "${#E2E_FAILS[@]}" = 0 ] || e2e_fail "${#E2E_FAILS[@]} checks" \
		"failed: $(printf '%s; ' "${E2E_FAILS[@]}")"
}

# median: the median of the numbers on stdin, one a line (the upper of
# the middle two when even); nan when there is none.
# median: of the numbers on stdin; of an even count, the mean of the two
# in the middle (the lower of them favoured whichever figure lower is
# better for: a time, a ratio of latencies); nan for none.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) print "nan"
		else if (NR % 2) print v[(NR + 1) / 2]
		else printf "%.10g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_ratio NAME: the ratio on stdin as "bench: NAME VALUE x", to three
# significant digits however small (a fixed two decimals printed a ratio
# of 0.002 as 0.00, which reads as a failed run); nan passes through.
bench_ratio() {
	awk -v n="$1" '{ v = $1 } END {
		if (v == "" || v == "nan" || v + 0 <= 0) { print "bench: " n " nan x"; exit }
		d = 2; for (x = v + 0; x < 1 && d < 8; x *= 10) d++
		printf "bench: %s %.*f x\n", n, d, v }'
}

# e2e_engine_stat FILE NAME: the engine counter NAME (FI_UET_STATS and
# UET_ENGINE_DEBUG print each engine's at its close, a line
# "uet_engine_stats {...}"), summed over FILE's engines; 0 when none.
e2e_engine_stat() {
	awk -v k="\"$2\":" '/^uet_engine_stats / && (i = index($0, k)) {
		n += substr($0, i + length(k)) + 0 } END { print n + 0 }' "$1"
}

# e2e_wait_for FILE PATTERN SECONDS: until FILE has a line matching
# PATTERN; 1 when it has none by then.
e2e_wait_for() {
	local i
	for i in $(seq $(( $3 * 20 ))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# e2e_alive PID: the process runs (a zombie, exited and not yet reaped by
# whoever inherited it, does not).
e2e_alive() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# e2e_uetd_pid NS: the pid of the uetd running in namespace NS.
e2e_uetd_pid() {
	local pid
	for pid in $(ip netns pids "$1"); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = uetd ] &&
			e2e_alive "$pid" && { echo "$pid"; return 0; }
	done
	return 1
}

# e2e_uetd_eps NS IFACE: the endpoint indices IFACE's service lists,
# sorted, on one line.
e2e_uetd_eps() {
	ip netns exec "$1" "$B/uetctl" stats "$2" --json 2>/dev/null |
		/usr/bin/python3 -c 'import json,sys
print(" ".join(sorted(str(e["index"]) for e in json.load(sys.stdin).get("endpoints", []))))'
}

# e2e_uetd_restart NS IFACE SIGNAL BOUND_MS LOAD_CMD...: the uetd of NS
# killed with SIGNAL, a pause (E2E_RESTART_PAUSE s, 0.2), LOAD_CMD
# (`uetctl load` again); the
# endpoints listed before must be listed again within BOUND_MS. Sets
# E2E_RESTART_MS (the time they took) and E2E_RESTART_EPS (their list);
# on failure sets $why and returns 1.
e2e_uetd_restart() {
	local ns=$1 ifc=$2 sig=$3 bound=$4 pid before after t0
	shift 4
	before=$(e2e_uetd_eps "$ns" "$ifc")
	[ -n "$before" ] || { why="$ns: no endpoint listed before"; return 1; }
	pid=$(e2e_uetd_pid "$ns") || { why="$ns: no uetd"; return 1; }
	kill "-$sig" "$pid"
	for _ in $(seq 40); do
		e2e_alive "$pid" || break
		sleep 0.05
	done
	e2e_alive "$pid" &&
		{ why="uetd $pid still runs 2 s after SIG$sig"; return 1; }
	sleep "${E2E_RESTART_PAUSE:-0.2}"
	"$@" || { why="$ns: $* failed"; return 1; }
	t0=$(now_ms)
	for _ in $(seq 60); do
		after=$(e2e_uetd_eps "$ns" "$ifc")
		[ "$after" = "$before" ] && break
		sleep 0.05
	done
	E2E_RESTART_MS=$(( $(now_ms) - t0 ))
	E2E_RESTART_EPS=$before
	if [ "$after" != "$before" ]; then
		why="$ns: endpoints [$before] before, [$after] 3 s after"
		why+=" the restart"
		return 1
	fi
	[ "$E2E_RESTART_MS" -le "$bound" ] ||
		{ why="$ns: endpoints back after $E2E_RESTART_MS ms"; return 1; }
}

# Root is needed; without it skip, except under CI where it fails.
e2e_require_root() {
	if [ "$(id -u)" != 0 ]; then
		[ "${CI:-}" = true ] && e2e_fail "needs root (CI=true)"
		echo "e2e: $E2E_NAME: SKIP (needs root)"
		exit 0
	fi
}

e2e_cleanup() {
	set +e
	for ns in ${NS_A:-} ${NS_B:-}; do
		for ifc in $(ip -n "$ns" -o link show 2>/dev/null |
			     awk -F': ' '{print $2}' | cut -d@ -f1); do
			ip netns exec "$ns" "$B/uetctl" unload "$ifc" \
				>/dev/null 2>&1
		done
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	umount "$E2E_TMP/bpffs" 2>/dev/null
	rm -rf "$E2E_TMP"
	e2e_unstage
}

# e2e_setup [MTU [QUEUES]]: namespaces, veth pair (QUEUES rx and tx queues
# each end, default 1), IPv4 and IPv6 addresses.
e2e_setup() {
	local mtu=${1:-1500} n=$(( $$ % 200 + 20 )) q=${2:-1}
	e2e_require_root
	trap e2e_cleanup EXIT
	# A bpffs of our own: `ip netns exec` hides /sys/fs/bpf (see
	# dev/uet_xdp_ctl.h), and our pins then vanish with the test.
	mkdir -p "$E2E_TMP/bpffs"
	mount -t bpf bpf "$E2E_TMP/bpffs"
	export UET_BPFFS="$E2E_TMP/bpffs" LIBXDP_BPFFS="$E2E_TMP/bpffs"
	NS_A="uet-t$E2E_ID-a"
	NS_B="uet-t$E2E_ID-b"
	IF_A=ueta0
	IF_B=uetb0
	IP_A="10.77.$n.1"
	IP_B="10.77.$n.2"
	IP6_A="fd75:e7:$n::1"
	IP6_B="fd75:e7:$n::2"
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip -n "$NS_A" link add "$IF_A" mtu "$mtu" numtxqueues "$q" \
		numrxqueues "$q" type veth peer name "$IF_B" netns "$NS_B" \
		mtu "$mtu" numtxqueues "$q" numrxqueues "$q"
	for side in A B; do
		local ns=NS_$side ifc=IF_$side ip=IP_$side ip6=IP6_$side
		ip -n "${!ns}" link set lo up
		ip -n "${!ns}" addr add "${!ip}/24" dev "${!ifc}"
		ip -n "${!ns}" addr add "${!ip6}/64" dev "${!ifc}" nodad
		ip -n "${!ns}" link set "${!ifc}" up
	done
}

# e2e_traffic SERVICE "ENV_A" "ENV_B": an 8-byte ping-pong, then a 1 MiB
# write stream, from A to B over uet on SERVICE; each side's programs run
# with its VAR=VALUE words (may be empty) and check what arrives. Sets $why
# when one fails.
e2e_traffic() {
	local svc=$1 env_a=$2 env_b=$3 port=$((47000 + RANDOM % 2000))
	local prog out s
	for prog in "uet_pingpong -n 8 -i 2000" "uet_bw -n 1048576 -i 50"; do
		set -- $prog
		# shellcheck disable=SC2086 # the env words split on purpose
		e2e_in B env FI_PROVIDER=uet $env_b timeout 60 "$B/$1" -s \
			-a "$IP_B" -S "$svc" -p "$port" "${@:2}" >/dev/null 2>&1 &
		s=$!
		# shellcheck disable=SC2086
		out=$(e2e_in A env FI_PROVIDER=uet $env_a timeout 60 "$B/$1" \
			-c "$IP_B" -S "$svc" -p "$port" "${@:2}" 2>&1) ||
			{ why="$1: $out"; wait "$s"; return 1; }
		wait "$s" || { why="$1 server failed"; return 1; }
		port=$((port + 1))
	done
	grep -q "MB/s" <<< "$out" || { why="uet_bw: $out"; return 1; }
}

# Runs a command in namespace A or B: e2e_in A cmd...
e2e_in() {
	local ns=NS_$1
	shift
	ip netns exec "${!ns}" "$@"
}

# e2e_stage FILE...: copies of FILEs (build outputs, scripts) that other
# users may run and read wherever the clone is: a clone in /root or in a
# mktemp -d folder is closed to them, and their folders are not ours to
# open. The copies keep their names and modes in E2E_STAGE, a folder of
# this run's that everyone may enter, made on the first call and removed
# by the cleanup (e2e_unstage).
E2E_STAGE=""
e2e_stage() {
	if [ -z "$E2E_STAGE" ]; then
		E2E_STAGE=$(mktemp -d /tmp/uet-stage.XXXXXX)
		chmod 0755 "$E2E_STAGE"
	fi
	cp -p "$@" "$E2E_STAGE/"
	chmod go+rX "$E2E_STAGE"/*
}
e2e_unstage() {
	[ -z "$E2E_STAGE" ] || rm -rf "$E2E_STAGE"
	E2E_STAGE=""
}

# e2e_as_nobody A|B CMD...: CMD in that namespace as nobody (uid and gid
# 65534), with no supplementary groups and no capabilities.
e2e_as_nobody() {
	local side=$1
	shift
	e2e_in "$side" setpriv --reuid=65534 --regid=65534 --clear-groups \
		-- env HOME=/ "$@"
}

# ---- three hosts on one bridge ------------------------------------------------
# e2e_setup3 [MTU]: a target T, a client C and a third host F (a flooder, an
# attacker), each in its own namespace with one veth, joined by a Linux
# bridge in a fourth namespace. Sets NS_T NS_C NS_F NS_BR, IF_T IF_C IF_F
# (ueth0 in each), IP_T IP_C IP_F (.1 .2 .3 of a /24) and E2E_NET (the
# /24's first three octets, for addresses that no host holds: .100-.250).
# Use e2e_in T|C|F. e2e_cleanup3 removes all of it on exit.
e2e_cleanup3() {
	set +e
	local ns
	for ns in ${NS_T:-} ${NS_C:-} ${NS_F:-}; do
		ip netns exec "$ns" "$B/uetctl" unload ueth0 >/dev/null 2>&1
	done
	for ns in ${NS_T:-} ${NS_C:-} ${NS_F:-} ${NS_BR:-}; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
	done
	sleep 0.2
	for ns in ${NS_T:-} ${NS_C:-} ${NS_F:-} ${NS_BR:-}; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	umount "$E2E_TMP/bpffs" 2>/dev/null
	rm -rf "$E2E_TMP"
	e2e_unstage
}

e2e_setup3() {
	local mtu=${1:-1500} n=$(( $$ % 200 + 20 )) side i=1
	e2e_require_root
	trap e2e_cleanup3 EXIT
	mkdir -p "$E2E_TMP/bpffs"
	mount -t bpf bpf "$E2E_TMP/bpffs"
	export UET_BPFFS="$E2E_TMP/bpffs" LIBXDP_BPFFS="$E2E_TMP/bpffs"
	NS_BR="uet-t$E2E_ID-br"
	NS_T="uet-t$E2E_ID-t"
	NS_C="uet-t$E2E_ID-c"
	NS_F="uet-t$E2E_ID-f"
	E2E_NET="10.78.$n"
	IF_T=ueth0
	IF_C=ueth0
	IF_F=ueth0
	ip netns add "$NS_BR"
	ip -n "$NS_BR" link set lo up
	ip -n "$NS_BR" link add br0 type bridge
	ip -n "$NS_BR" link set br0 up
	for side in T C F; do
		local ns=NS_$side
		ip netns add "${!ns}"
		ip -n "${!ns}" link set lo up
		ip -n "$NS_BR" link add "p$side" mtu "$mtu" type veth peer \
			name ueth0 netns "${!ns}" mtu "$mtu"
		ip -n "$NS_BR" link set "p$side" master br0 up
		ip -n "${!ns}" addr add "$E2E_NET.$i/24" dev ueth0
		ip -n "${!ns}" link set ueth0 up
		printf -v "IP_$side" '%s' "$E2E_NET.$i"
		i=$((i + 1))
	done
}
