#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark of congestion control (issue [C]): incast, one flow alone and
# two flows sharing a port, on the emulated star of test/fabric/ (hosts
# on router r1, r1's port toward each host a tbf of 256 KiB, MTU 9000)
# with the switch-port model on the bottleneck port (fab_port_model: a
# virtual queue at the port's rate that CE-marks ECT frames above 64 KiB,
# trims trimmable frames above TRIM when trimming is on, drops above the
# buffer). uet beside tcp in the same run, alternated run by run, REPS
# runs (default 3), medians. INCAST_PROVS picks among
#   uet        FI_PROVIDER=uet, its NSCC told the port's rate
#              (FI_UET_LINK_MBPS) and, in incast_trim, that the fabric
#              trims; INCAST_UET_ENV adds or overrides settings:
#              FI_UET_CC=off, or FI_UET_LINK_MBPS=100000 (the default):
#              NSCC's largest window is 1.5 x rate x base RTT, and at
#              800 Mbit/s and this fabric's base RTT that is a frame or
#              two, while the RTT under load is mostly waiting for a CPU
#   uet_rccc   the same with receiver credits beside NSCC
#              (FI_UET_CC=nscc,rccc), not run by default: set
#              INCAST_PROVS="uet uet_rccc" to weigh the two (issue 42's
#              choice of the default)
#   uet_dflt   uet at the provider's defaults: no FI_UET_LINK_MBPS, so
#              the hosts' veths' nominal speed leaves NSCC to learn the
#              rate from the port's marks (fi_uet(7)); trimming as uet
#   tcp_cubic  FI_PROVIDER=tcp, cubic with ECN (tcp_ecn=1). A namespace
#              may only pick tcp_allowed_congestion_control (reno bbr
#              here) by sysctl; a route's congctl has no such limit, so
#              cubic is set on each host's default route
#   tcp_bbr    FI_PROVIDER=tcp as the kernel sets it up (bbr, no ECN)
# Scenarios (INCAST_SCENARIOS, default all):
#  incast       N senders (INCAST_N, default "4 8 16") into host N+1, all
#               ports 800 Mbit/s, marking at 64 KiB (INCAST_MARK), no
#               trimming. Each
#               sender writes INCAST_MIB MiB (16) with uet_bw in 1 MiB
#               writes. Every client sets up, connects (a first read) and
#               says it is ready; then they all start at one wall-clock
#               time (uet_bw -T @FILE), and each ends with a read, so
#               that its end means its data arrived.
#               time_ratio: from the first start to the last end over the
#               line-rate ideal, N x 16 MiB of payload at 800 Mbit/s
#               (headers are not counted: about 1.01 is the best);
#               jain: Jain's index of the senders' rates (each one's bytes
#               over its own time); drop_pct, marked_pct, trimmed_pct: of
#               the frames that reached the receiver's port (the model's
#               passed + dropped); timeouts: how often a retransmit
#               timer fired, uet's rto_fired (undone ones too; each
#               resends one packet or more) or tcp's TcpExtTCPTimeouts,
#               summed over the senders.
#               small_hrt: for N in INCAST_SMALL_N (default 4 and 8) an
#               incast of its own (incastN_small; its own figures are
#               in the table only) with host N+2 running
#               uet_pingpong -n 8 to the receiver from the common start
#               for the ideal incast's time, so within the incast: the
#               mean half round trip (small_hrt_median beside it).
#  incast_trim  the same with trimming above TRIM (192 KiB), uet only
#               (INCAST_TRIM_PROVS): tcp's frames are not trimmable, so
#               the port treats them as in incast.
#  alone        one flow, 64 MiB, on a 400 Mbit/s port: link_share, its
#               payload rate over 400 Mbit/s, and drop_pct.
#  share        two flows into one receiver at 800 Mbit/s, the second
#               0.5 s after the first: first_pct and second_pct, each
#               flow's share of what both sent into r1 (their router
#               ports' rx bytes, sampled: frames the bottleneck then
#               dropped count too) from 100 to 600 ms after the second
#               began.
# The figures are measured, not judged: the script fails only when a
# program fails or a figure is missing. BENCH_SMOKE=1 (bench_smoke.sh)
# is a quick run: INCAST_N=4, 4 MiB a sender, 16 MiB alone.
# CPU: a 16:1 incast is 32 uet_bw processes, and the routers forward in
# softirq on the same cores. Each waits for its completions in
# fi_cq_sread (FAB_WAIT, fabric_lib.sh), as applications on shared cores
# do: spinning, they took the CPU the routers needed, and the figures
# measured its sharing more than the fabric (FAB_WAIT= spins again). The
# table shows the rate the port passed, the CPU's busy and softirq shares
# during the incast: read time_ratio with port_mbit, and try a lower
# INCAST_RATE where the CPU is short. The bulk programs run at nice 10
# (INCAST_NICE), so that the small flow and ksoftirqd are served first,
# as on cores of their own; at nice 0 the small flow's mean measures
# the scheduler (round trips of several ms while its server waits for
# a core).
# BENCH_SERIES=DIR: the 4:1 and 8:1 incasts' first runs also save time
# series (queue, senders' rates, NSCC's window) there, for make
# bench-report: bench_incast_series.sh says which.
E2E_NAME=bench_incast
source "$(dirname "$0")/../e2e/e2e_lib.sh"
source "$(dirname "$0")/../fabric/fabric_lib.sh"
source "$(dirname "$0")/bench_incast_series.sh"
REPS=${REPS:-3}
if [ "${BENCH_SMOKE:-0}" = 1 ]; then
	INCAST_N=${INCAST_N:-4} INCAST_MIB=${INCAST_MIB:-4}
	ALONE_MIB=${ALONE_MIB:-16}
fi
INCAST_N=${INCAST_N:-4 8 16}
INCAST_MIB=${INCAST_MIB:-16}
ALONE_MIB=${ALONE_MIB:-64}
INCAST_SCENARIOS=${INCAST_SCENARIOS:-incast incast_trim alone share}
INCAST_PROVS=${INCAST_PROVS:-uet uet_dflt tcp_cubic tcp_bbr}
INCAST_TRIM_PROVS=${INCAST_TRIM_PROVS:-uet}
INCAST_SMALL_N=${INCAST_SMALL_N:-4 8}
RATE=${INCAST_RATE:-800} ALONE_RATE=${INCAST_ALONE_RATE:-400}
BUF=262144 MARK=${INCAST_MARK:-65536} TRIM=196608 MTU=9000
NICE=${INCAST_NICE:-10}
LIMIT=${INCAST_LIMIT:-120}	# seconds any one program may take
export FI_PROVIDER_PATH="$(cd "$B" && pwd)" FI_UET_IFACE=fab0 \
	FI_TCP_IFACE=fab0
R="$E2E_TMP/res"	# a file per figure: TAG.PROV.METRIC, a value a run
mkdir -p "$R"

for p in $INCAST_PROVS $INCAST_TRIM_PROVS; do
	case $p in uet|uet_rccc|uet_dflt|tcp_cubic|tcp_bbr) ;;
	*) e2e_fail "provider $p" ;;
	esac
done
for s in $INCAST_SCENARIOS; do
	case $s in
	incast|incast_trim|alone|share) ;;
	*) e2e_fail "scenario $s" ;;
	esac
done

now() { date +%s.%N; }
# at T D: the time D seconds after T (full precision: awk's print would not)
at() { awk -v t="$1" -v d="$2" 'BEGIN { printf "%.6f\n", t + d }'; }
sleep_until() {
	sleep "$(awk -v t="$1" -v n="$(now)" 'BEGIN { d = t - n
		printf "%.3f\n", (d > 0 ? d : 0) }')"
}
# rec TAG PROV METRIC VALUE: one run's figure
rec() { echo "$4" >> "$R/$1.$2.$3"; }
# med TAG PROV METRIC: the median of its runs ("-" when never measured)
med() {
	if [ -s "$R/$1.$2.$3" ]; then median < "$R/$1.$2.$3"; else echo -; fi
}

# ---- providers --------------------------------------------------------------
# prov_env PROV: its env words (UET_LINK: the port's Mbit/s; UET_TRIM 1:
# the port trims).
UET_LINK=$RATE UET_TRIM=0
prov_env() {
	case $1 in
	uet|uet_rccc)
		echo "FI_PROVIDER=uet FI_UET_STATS=1 FI_UET_LINK_MBPS=$UET_LINK" \
			"FI_UET_TRIMMING=$UET_TRIM" \
			"$([ "$1" = uet_rccc ] && echo FI_UET_CC=nscc,rccc)" \
			"${INCAST_UET_ENV:-}" ;;
	uet_dflt)
		echo "FI_PROVIDER=uet FI_UET_STATS=1 FI_UET_TRIMMING=$UET_TRIM" \
			"${INCAST_UET_ENV:-}" ;;
	*) echo "FI_PROVIDER=tcp" ;;
	esac
}

# is_uet PROV: whether PROV is uet (either CC, or its defaults).
is_uet() { [[ "$1" == uet || "$1" == uet_* ]]; }

# cc_set PROV: every host's tcp as PROV wants it (uet: left as it is).
CC_MODE=""
cc_set() {
	local i cc=() ecn=2
	case $1 in
	uet|uet_*) return 0 ;;
	tcp_cubic) cc=(congctl cubic) ecn=1 ;;
	esac
	[ "$CC_MODE" = "$1" ] && return 0
	for i in "${!FAB_HOSTS[@]}"; do
		fab_host_in "$i" ip route replace default \
			via "10.100.$i.1" "${cc[@]}"
		fab_host_in "$i" sysctl -qw net.ipv4.tcp_ecn=$ecn
	done
	CC_MODE=$1
}

# cc_seen PROV FROM TO FILE: at once, the congestion control of FROM's
# tcp sockets to TO into FILE, for the log (ss -ti). Whether tcp's
# frames were ECN-capable shows in the port's marked_pct (this ss does
# not print tcp_info's options).
cc_seen() {
	is_uet "$1" && return 0
	fab_host_in "$2" ss -tinH dst "${FAB_IP[$3]}" > "$4" 2>&1 || true
}
cc_show() {
	local f=$E2E_TMP/ss.$1
	[ -s "$f" ] || return 0
	echo "$1: sender's sockets: $(grep -owE 'cubic|bbr|reno' "$f" |
		sort -u | tr '\n' ' ')(ss -ti)"
	rm -f "$f"
}

# tcp_timeouts HOST...: TcpExtTCPTimeouts summed over those hosts.
tcp_timeouts() {
	local i n=0 v
	for i in "$@"; do
		v=$(fab_host_in "$i" nstat -asz TcpExtTCPTimeouts |
			awk '$1 == "TcpExtTCPTimeouts" { print $2 }')
		n=$(( n + ${v:-0} ))
	done
	echo "$n"
}

# ---- the port, the CPU ------------------------------------------------------
# port_counts ROUTER PORT: "passed bytes marked trimmed dropped maxq
# tbf_drops" (the model's counters, the tbf's own drops: none expected).
port_counts() {
	fab_port_stats "$1" "$2" | awk -v q="$(fab_port_qdrops "$1" "$2")" '{
		for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
		print v["passed"] + 0, v["bytes"] + 0, v["marked"] + 0,
			v["trimmed"] + 0, v["dropped"] + 0, v["maxq"] + 0,
			q + 0 }'
}

# port_begin ROUTER PORT: the model's counters zeroed (its maxq is the
# run's); prints port_counts.
port_begin() {
	fab_port_reset "$1" "$2" > /dev/null
	port_counts "$1" "$2"
}

# port_rec TAG PROV BEFORE AFTER SECONDS: the port's figures of a run
# (port_counts lines); prints "drop% mark% trim% Mbit/s maxq tbf_drops".
port_rec() {
	local f
	f=$(awk -v a="$3" -v b="$4" -v s="$5" 'BEGIN { split(a, x); split(b, y)
		for (i = 1; i <= 7; i++) d[i] = y[i] - x[i]
		n = d[1] + d[5]
		printf "%.3f %.3f %.3f %.1f %d %d\n", (n ? 100 * d[5] / n : 0),
			(n ? 100 * d[3] / n : 0), (n ? 100 * d[4] / n : 0),
			(s > 0 ? d[2] * 8 / s / 1e6 : 0), y[6], d[7] }')
	set -- "$1" "$2" $f
	rec "$1" "$2" drop_pct "$3"
	rec "$1" "$2" marked_pct "$4"
	rec "$1" "$2" trimmed_pct "$5"
	rec "$1" "$2" port_mbit "$6"
	rec "$1" "$2" maxq "$7"
	rec "$1" "$2" tbf_drops "$8"
	echo "${*:3}"
}

# cpu_read: "busy total softirq" jiffies of all CPUs (/proc/stat)
cpu_read() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i
		print t - $5 - $6, t, $8 }' /proc/stat
}

# ---- programs ---------------------------------------------------------------
# Each run has its own side-channel ports and services (tcp's services are
# its listening ports: a run's may still be in TIME_WAIT at the next).
RUN=0
next_run() {
	RUN=$(( RUN + 1 ))
	PORT0=$(( 40000 + (RUN % 50) * 100 ))
	SVC0=$(( 1000 + (RUN % 20) * 50 ))
	PIDS_S=() PIDS_C=() PP_PIDS=()
}

# bw_pair PROV FROM TO K MIB START OUT: a uet_bw server on host TO and
# its client on FROM writing MIB MiB from START (uet_bw -T: @FILE, see
# go) (pair K of the run), in the background; the client's output in
# OUT, the server's in OUT.srv. BW_CLIENT_ENV: env words of the client's
# own.
bw_pair() {
	local prov=$1 from=$2 to=$3 k=$4 mib=$5 t=$6 out=$7 env
	env=$(prov_env "$prov")
	# shellcheck disable=SC2086 # the env words split on purpose
	fab_host_in "$to" env $env timeout "$LIMIT" nice -n "$NICE" \
		"$B/uet_bw" -s -a "${FAB_IP[$to]}" -S $(( SVC0 + k )) \
		-p $(( PORT0 + k )) -n 1048576 $FAB_WAIT > "$out.srv" 2>&1 &
	PIDS_S+=($!)
	# shellcheck disable=SC2086
	fab_host_in "$from" env $env ${BW_CLIENT_ENV:-} timeout "$LIMIT" \
		nice -n "$NICE" "$B/uet_bw" -c "${FAB_IP[$to]}" -S $(( SVC0 + k )) \
		-p $(( PORT0 + k )) -n 1048576 -i "$mib" -T "$t" $FAB_WAIT \
		> "$out" 2>&1 &
	PIDS_C+=($!)
}

# pp_pair PROV FROM TO START SECONDS OUT: uet_pingpong -n 8 from FROM to
# TO for SECONDS from START, every round trip printed (PP_PIDS).
pp_pair() {
	local prov=$1 from=$2 to=$3 env
	env=$(prov_env "$prov")
	# shellcheck disable=SC2086
	fab_host_in "$to" env $env timeout "$LIMIT" "$B/uet_pingpong" -s \
		-a "${FAB_IP[$to]}" -S $(( SVC0 + 40 )) -p $(( PORT0 + 40 )) \
		-n 8 -i 1000000 $FAB_WAIT > "$6.srv" 2>&1 &
	PP_PIDS=($!)
	# shellcheck disable=SC2086
	fab_host_in "$from" env $env timeout "$LIMIT" "$B/uet_pingpong" \
		-c "${FAB_IP[$to]}" -S $(( SVC0 + 40 )) -p $(( PORT0 + 40 )) \
		-n 8 -i 1000000 -T "$4" -D "$5" -t $FAB_WAIT > "$6" 2>&1 &
	PP_PIDS+=($!)
}

# wait_clients PIDS...: each client ended well, or the benchmark fails
# with the outputs' tails (files $E2E_TMP/run/*).
wait_clients() {
	local p rc=0
	for p in "$@"; do wait "$p" || rc=$?; done
	[ $rc = 0 ] && return 0
	[ $rc = 124 ] && rc="$rc: over ${LIMIT}s"
	e2e_fail "a client failed (exit $rc):" \
		"$(tail -n 3 "$E2E_TMP"/run/* | tail -n 30)"
}
# wait_servers PIDS...: a server may fail once its client left.
wait_servers() {
	local p
	for p in "$@"; do wait "$p" 2>/dev/null || true; done
}

# start_write FILE T: the start time T into FILE, whole at once.
start_write() {
	echo "$2" > "$1.tmp"
	mv "$1.tmp" "$1"
}

# go FILE OUT...: once every OUT says its program is ready (set up,
# connected, waiting for FILE; or one of the run's clients ended: its
# wait says why), a common start INCAST_MARGIN (0.3 s) later into FILE;
# prints it. The programs start however long the set-up took.
go() {
	local f=$1 i p t
	shift
	for i in $(seq $(( LIMIT * 20 ))); do
		[ "$(grep -l ': ready$' "$@" 2>/dev/null | wc -l)" = $# ] &&
			break
		for p in "${PIDS_C[@]}" "${PP_PIDS[@]:1}"; do
			kill -0 "$p" 2> /dev/null || break 2
		done
		sleep 0.05
	done
	t=$(at "$(now)" "${INCAST_MARGIN:-0.3}")
	start_write "$f" "$t"
	echo "$t"
}

# start_end OUT: "START END" that uet_bw printed, or the benchmark fails.
start_end() {
	local se
	se=$(sed -n 's/^uet_bw: start \([0-9.]*\) end \([0-9.]*\)$/\1 \2/p' \
		"$1")
	[ -n "$se" ] || e2e_fail "no start and end in $1: $(tail -n 3 "$1")"
	echo "$se"
}

# uet_stat STAT FILE...: the uet engine counter summed over FILEs
uet_stat() {
	local f n=0 stat=$1
	shift
	for f in "$@"; do n=$(( n + $(e2e_engine_stat "$f" "$stat") )); done
	echo "$n"
}

# reach I: every other host pings host I, or the benchmark fails.
reach() {
	local i
	for i in "${!FAB_HOSTS[@]}"; do
		[ "$i" = "$1" ] && continue
		fab_host_in "$i" ping -q -c 1 -W 2 "${FAB_IP[$1]}" \
			> /dev/null || e2e_fail "H$i does not reach H$1"
	done
}

# star HOSTS RATE: the star, uet on every host, tcp as the kernel has it
# but for GSO: its frames leave one by one, as the port model must see
# them (fab_host_gso_off).
star() {
	fab_star "$1" "$2" "$BUF" "$MTU"
	fab_host_gso_off
	fab_uet_load
	reach "$1"
	CC_MODE=""
}

# run_begin PROV: a new run's directory ($D), ports, services and tcp.
run_begin() {
	next_run
	D=$E2E_TMP/run
	rm -rf "$D"
	mkdir -p "$D"
	cc_set "$1"
}

# run_timeouts TAG PROV BEFORE OUT...: records the run's timeouts (uet:
# rto_fired in the clients' OUTs; tcp: the hosts' counter past BEFORE,
# the senders being hosts 1..the number of OUTs).
run_timeouts() {
	local tag=$1 prov=$2 before=$3 v
	shift 3
	if is_uet "$prov"; then
		v=$(uet_stat rto_fired "$@")
	else
		v=$(( $(tcp_timeouts $(seq $#)) - before ))
	fi
	rec "$tag" "$prov" timeouts "$v"
	echo "$v"
}

# ---- incast -----------------------------------------------------------------
# incast_figures T N OUT...: from the clients' starts and ends, "ratio
# jain late_ms time_ms first_start last_end" (ratio: time over the
# line-rate ideal of the payload).
incast_figures() {
	local t=$1 n=$2 f
	shift 2
	for f in "$@"; do start_end "$f"; done > "$D/se"
	awk -v t="$t" -v n="$n" -v b=$(( INCAST_MIB << 20 )) -v r="$RATE" '
		{ if (NR == 1 || $1 < s0) s0 = $1; if ($2 > e1) e1 = $2
		  if ($1 > sl) sl = $1
		  x = b * 8 / ($2 - $1); sx += x; sxx += x * x }
		END { ideal = n * b * 8 / (r * 1e6)
		      printf "%.3f %.4f %.1f %.1f %.6f %.6f\n",
			(e1 - s0) / ideal, sx * sx / (n * sxx),
			(sl > t ? sl - t : 0) * 1000, (e1 - s0) * 1000,
			s0, e1 }' "$D/se"
}

# small_figures OUT FROM TO: "mean median count" of the half round trips
# uet_pingpong printed that began from FROM to TO.
small_figures() {
	awk -v a="$2" -v b="$3" '/^uet_pingpong: at / && $3 >= a && $3 < b {
		print $7 }' "$1" | sort -g | awk '{ v[NR] = $1; s += $1 }
		END { if (!NR) exit 1
		      printf "%.1f %.1f %d\n", s / NR, v[int((NR + 1) / 2)],
			NR }'
}

# incast_small TAG PROV OUT FROM TO: the small flow's figures of the
# round trips that began from FROM to TO, recorded under TAG (without
# its _small); prints its median.
incast_small() {
	local f
	f=$(small_figures "$3" "$4" "$5") ||
		e2e_fail "the small flow: no round trip during the incast:" \
			"$(tail -n 3 "$3")"
	set -- "${1%_small}" "$2" $f
	rec "$1" "$2" small_hrt "$3"
	rec "$1" "$2" small_hrt_median "$4"
	rec "$1" "$2" small_rts "$5"
	echo "$4"
}

# incast_run N PROV TAG [SMALL]: N senders into host N+1 over PROV (the
# star up, its port model set); with SMALL, the small flow from host N+2
# for the ideal incast's time from the common start (so within the
# incast). Figures under TAG; time series too in the runs series_want
# picks (INCAST_REP: the run's repetition).
incast_run() {
	local n=$1 prov=$2 tag=$3 pp=${4:-0} rcv=$(( $1 + 1 )) k t c0 c1 u0 u1
	local tmo0=0 ss_pid outs=() f cpu port small="" tmo retx="" ideal
	local series=0
	series_want "$n" "$tag" "${INCAST_REP:-1}" && series=1
	run_begin "$prov"
	is_uet "$prov" || tmo0=$(tcp_timeouts $(seq "$n"))
	c0=$(port_begin r1 "h$rcv")
	ideal=$(awk -v n="$n" -v m="$INCAST_MIB" -v r="$RATE" \
		'BEGIN { printf "%.3f\n", n * m * 1048576 * 8 / (r * 1e6) }')
	for k in $(seq "$n"); do
		BW_CLIENT_ENV=$(series_trace_env "$series" "$prov" "$k") \
			bw_pair "$prov" "$k" "$rcv" "$k" "$INCAST_MIB" \
			"@$D/start" "$D/c.$k"
		outs+=("$D/c.$k")
	done
	if [ "$pp" = 1 ]; then
		pp_pair "$prov" $(( n + 2 )) "$rcv" "@$D/start" "$ideal" "$D/pp"
		t=$(go "$D/start" "${outs[@]}" "$D/pp")
	else
		t=$(go "$D/start" "${outs[@]}")
	fi
	[ "$series" = 0 ] || series_start "$n" "$rcv"
	sleep_until "$t"
	u0=$(cpu_read)
	( sleep 0.1; cc_seen "$prov" 1 "$rcv" "$E2E_TMP/ss.$prov" ) &
	ss_pid=$!
	wait_clients "${PIDS_C[@]}"
	u1=$(cpu_read)
	[ "$series" = 0 ] || series_stop
	wait "$ss_pid" || true
	[ "$pp" = 0 ] || wait_clients "${PP_PIDS[1]}"
	wait_servers "${PIDS_S[@]}" "${PP_PIDS[@]:0:1}"
	c1=$(port_counts r1 "h$rcv")
	f=$(incast_figures "$t" "$n" "${outs[@]}")
	set -- $f
	[ "$series" = 0 ] || series_write "$n" "$prov" "$t" "$6"
	rec "$tag" "$prov" time_ratio "$1"
	rec "$tag" "$prov" jain "$2"
	rec "$tag" "$prov" late_ms "$3"
	rec "$tag" "$prov" time_ms "$4"
	[ "$pp" = 0 ] || small=", small flow $(incast_small "$tag" "$prov" \
		"$D/pp" "$t" "$6") us median"
	cpu=$(awk -v a="$u0" -v b="$u1" 'BEGIN { split(a, x); split(b, y)
		t = y[2] - x[2]
		printf "%.0f %.0f\n", (t ? 100 * (y[1] - x[1]) / t : 0),
			(t ? 100 * (y[3] - x[3]) / t : 0) }')
	rec "$tag" "$prov" cpu_busy_pct "${cpu% *}"
	rec "$tag" "$prov" softirq_pct "${cpu#* }"
	port=$(port_rec "$tag" "$prov" "$c0" "$c1" "$(awk -v a="$5" -v b="$6" \
		'BEGIN { print b - a }')")
	tmo=$(run_timeouts "$tag" "$prov" "$tmo0" "${outs[@]}")
	if is_uet "$prov"; then
		retx=$(awk -v r="$(uet_stat tx_retx "${outs[@]}")" \
			-v q="$(uet_stat tx_req "${outs[@]}")" \
			'BEGIN { printf "%.1f\n", (q ? 100 * r / q : 0) }')
		rec "$tag" "$prov" retx_pct "$retx"
		rec "$tag" "$prov" ecn_acks "$(uet_stat cc_ecn_acks \
			"${outs[@]}")"
		rec "$tag" "$prov" quick_adapts "$(uet_stat cc_quick_adapts \
			"${outs[@]}")"
		retx=", ${retx}% sent again"
	fi
	echo "$tag $prov: ${4} ms = ${1} x ideal, jain $2, late ${3} ms," \
		"drop/mark/trim % $(cut -d' ' -f1-3 <<< "$port"), port" \
		"$(cut -d' ' -f4 <<< "$port") Mbit/s, timeouts" \
		"$tmo$retx$small," \
		"cpu ${cpu% *}% (softirq ${cpu#* }%)"
	cc_show "$prov"
}

# incast: for each N, the star of N+2 hosts; the plain incast and the one
# with trimming on the same star, REPS times each, providers alternated.
# The small flow runs beside a 4:1 incast of its own (incast4_small):
# its 2 busy-polling processes and its many small frames would change
# the plain incast's figures.
scen_incast() {
	local n v
	for n in $INCAST_N; do
		star $(( n + 2 )) "$RATE"
		for v in incast incast_trim; do
			[[ " $INCAST_SCENARIOS " == *" $v "* ]] || continue
			incast_variant "$n" "$v"
		done
	done
}

# incast_variant N incast|incast_trim: its runs on the star there is.
incast_variant() {
	local n=$1 v=$2 provs=$INCAST_PROVS trim=0 rep prov
	if [ "$v" = incast_trim ]; then
		provs=$INCAST_TRIM_PROVS trim=$TRIM
	fi
	UET_LINK=$RATE UET_TRIM=$(( trim > 0 ))
	fab_port_model r1 "h$(( n + 1 ))" "$MARK" "$trim"
	for rep in $(seq "$REPS"); do
		INCAST_REP=$rep
		for prov in $provs; do
			incast_run "$n" "$prov" "incast$n${v#incast}"
			[ "$v" = incast ] &&
				[[ " $INCAST_SMALL_N " == *" $n "* ]] || continue
			incast_run "$n" "$prov" "incast${n}_small" 1
		done
	done
}

# ---- one flow alone ---------------------------------------------------------
alone_run() {
	local prov=$1 t c0 c1 tmo0=0 se mbit port tmo
	run_begin "$prov"
	is_uet "$prov" || tmo0=$(tcp_timeouts 1)
	c0=$(port_begin r1 h2)
	bw_pair "$prov" 1 2 1 "$ALONE_MIB" "@$D/start" "$D/c.1"
	go "$D/start" "$D/c.1" > /dev/null
	wait_clients "${PIDS_C[@]}"
	wait_servers "${PIDS_S[@]}"
	c1=$(port_counts r1 h2)
	se=$(start_end "$D/c.1")
	mbit=$(awk -v b=$(( ALONE_MIB << 20 )) -v se="$se" 'BEGIN {
		split(se, x); printf "%.1f\n", b * 8 / (x[2] - x[1]) / 1e6 }')
	rec alone "$prov" mbit "$mbit"
	rec alone "$prov" link_share "$(awk -v m="$mbit" -v r="$ALONE_RATE" \
		'BEGIN { printf "%.3f\n", m / r }')"
	port=$(port_rec alone "$prov" "$c0" "$c1" "$(awk -v se="$se" \
		'BEGIN { split(se, x); print x[2] - x[1] }')")
	tmo=$(run_timeouts alone "$prov" "$tmo0" "$D/c.1")
	echo "alone $prov: $mbit Mbit/s of $ALONE_RATE, drop/mark/trim %" \
		"$(cut -d' ' -f1-3 <<< "$port"), timeouts $tmo"
}

# scen_on_star HOSTS RATE RUN: a star of HOSTS at RATE whose last host's
# port is the model (marks, no trims); RUN PROV, REPS times alternated.
scen_on_star() {
	local rep prov
	star "$1" "$2"
	UET_LINK=$2 UET_TRIM=0
	fab_port_model r1 "h$1" "$MARK" 0
	for rep in $(seq "$REPS"); do
		for prov in $INCAST_PROVS; do "$3" "$prov"; done
	done
}

# ---- two flows sharing a port -----------------------------------------------
# sampler_start FILE: on r1, every 2 ms or so, "SECONDS H1_RX H2_RX
# H3_TX" (the epoch time; bytes the two senders' ports received and the
# receiver's port sent) to FILE, until sampler_stop.
sampler_start() {
	fab_router_in r1 env LC_ALL=C bash -c '
		n=/sys/class/net
		until [ -e "$1" ]; do
			read -r a < $n/h1/statistics/rx_bytes
			read -r b < $n/h2/statistics/rx_bytes
			read -r c < $n/h3/statistics/tx_bytes
			echo "$EPOCHREALTIME $a $b $c"
			sleep 0.002
		done' _ "$1.stop" > "$1" &
	SAMPLER=$!
}
sampler_stop() {
	touch "$1.stop"
	wait "$SAMPLER" || true
}

# sample_rate FILE COLUMN FROM TO: Mbit/s of COLUMN between the first and
# the last sample from FROM to TO.
sample_rate() {
	awk -v c="$2" -v a="$3" -v b="$4" '$1 >= a && $1 <= b {
		if (!n++) { t0 = $1; b0 = $c } t1 = $1; b1 = $c }
		END { printf "%.1f\n",
			(t1 > t0 ? (b1 - b0) * 8 / (t1 - t0) / 1e6 : 0) }' "$1"
}

share_run() {
	local prov=$1 t s c0 c1 se1 se2 w r1 r2 r3 port
	run_begin "$prov"
	s=$D/samples
	c0=$(port_begin r1 h3)
	sampler_start "$s"
	bw_pair "$prov" 1 3 1 128 "@$D/start" "$D/c.1"
	bw_pair "$prov" 2 3 2 64 "@$D/start2" "$D/c.2"
	t=$(go "$D/start" "$D/c.1" "$D/c.2")
	start_write "$D/start2" "$(at "$t" 0.5)"
	wait_clients "${PIDS_C[@]}"
	wait_servers "${PIDS_S[@]}"
	sampler_stop "$s"
	c1=$(port_counts r1 h3)
	se1=$(start_end "$D/c.1")
	se2=$(start_end "$D/c.2")
	# from 100 to 600 ms after the second flow began, while both ran
	w=$(awk -v a="$se1" -v b="$se2" 'BEGIN { split(a, x); split(b, y)
		e = y[1] + 0.6; if (x[2] < e) e = x[2]; if (y[2] < e) e = y[2]
		printf "%.6f %.6f\n", y[1] + 0.1, e }')
	r1=$(sample_rate "$s" 2 $w)
	r2=$(sample_rate "$s" 3 $w)
	r3=$(sample_rate "$s" 4 $w)
	awk -v a="$r1" -v b="$r2" 'BEGIN { exit !(a + b > 0) }' ||
		e2e_fail "share $prov: no samples from ${w% *} to ${w#* }"
	rec share "$prov" first_pct "$(awk -v a="$r1" -v b="$r2" \
		'BEGIN { printf "%.1f\n", 100 * a / (a + b) }')"
	rec share "$prov" second_pct "$(awk -v a="$r1" -v b="$r2" \
		'BEGIN { printf "%.1f\n", 100 * b / (a + b) }')"
	rec share "$prov" window_ms "$(awk -v w="$w" 'BEGIN { split(w, x)
		printf "%.0f\n", (x[2] - x[1]) * 1000 }')"
	rec share "$prov" rx_first_mbit "$r1"
	rec share "$prov" rx_second_mbit "$r2"
	rec share "$prov" port_window_mbit "$r3"
	port=$(port_rec share "$prov" "$c0" "$c1" "$(awk -v a="$se1" \
		-v b="$se2" 'BEGIN { split(a, x); split(b, y)
		e = y[2] > x[2] ? y[2] : x[2]; print e - x[1] }')")
	echo "share $prov: first $r1, second $r2 Mbit/s into r1 from" \
		"$(tail -n 1 "$R/share.$prov.window_ms") ms of both" \
		"(port $r3)," \
		"drop/mark/trim % $(cut -d' ' -f1-3 <<< "$port")"
}

# ---- the report -------------------------------------------------------------
# table TAG METRIC...: medians of TAG's figures, a column a provider
table() {
	local tag=$1 m p provs=""
	shift
	for p in uet uet_rccc uet_dflt tcp_cubic tcp_bbr; do
		ls "$R/$tag.$p."* > /dev/null 2>&1 && provs+=" $p"
	done
	[ -n "$provs" ] || return 0
	printf "%-22s" "$tag (median of $REPS)"
	for p in $provs; do printf " %10s" "$p"; done
	echo
	for m in "$@"; do
		printf "  %-20s" "$m"
		for p in $provs; do
			printf " %10s" "$(med "$tag" "$p" "$m")"
		done
		echo
	done
}

# bench_lines TAG METRIC:UNIT...: a bench line per provider and measured
# METRIC
bench_lines() {
	local tag=$1 mu p v
	shift
	for mu in "$@"; do
		for p in uet uet_rccc uet_dflt tcp_cubic tcp_bbr; do
			[ -s "$R/$tag.$p.${mu%:*}" ] || continue
			v=$(med "$tag" "$p" "${mu%:*}")
			echo "bench: ${tag}_${mu%:*}_$p $v ${mu#*:}"
		done
	done
}

fab_init
echo "bench_incast: scenarios $INCAST_SCENARIOS; providers $INCAST_PROVS" \
	"(trimming: $INCAST_TRIM_PROVS); N $INCAST_N, $INCAST_MIB MiB a" \
	"sender; ports $RATE Mbit/s (alone $ALONE_RATE), buffer $BUF B, mark" \
	"$MARK B, trim $TRIM B, MTU $MTU; $REPS runs"
case " $INCAST_SCENARIOS " in
*" incast "*|*" incast_trim "*) scen_incast ;;
esac
case " $INCAST_SCENARIOS " in
*" alone "*) scen_on_star 2 "$ALONE_RATE" alone_run ;;
esac
case " $INCAST_SCENARIOS " in
*" share "*) scen_on_star 3 "$RATE" share_run ;;
esac

echo
for n in $INCAST_N; do
	for tag in "incast$n" "incast${n}_small" "incast${n}_trim"; do
		table "$tag" time_ratio time_ms jain drop_pct marked_pct \
			trimmed_pct timeouts small_hrt small_hrt_median \
			small_rts retx_pct ecn_acks quick_adapts port_mbit \
			maxq tbf_drops cpu_busy_pct softirq_pct late_ms
	done
done
table alone mbit link_share drop_pct marked_pct trimmed_pct timeouts \
	maxq tbf_drops
table share first_pct second_pct rx_first_mbit \
	rx_second_mbit port_window_mbit window_ms drop_pct marked_pct
echo
for n in $INCAST_N; do
	for tag in "incast$n" "incast${n}_trim"; do
		bench_lines "$tag" time_ratio:x jain:ratio drop_pct:% \
			marked_pct:% trimmed_pct:% timeouts:timeouts \
			small_hrt:us small_hrt_median:us
	done
done
bench_lines alone link_share:ratio drop_pct:% timeouts:timeouts
bench_lines share first_pct:% second_pct:%
