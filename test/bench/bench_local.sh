#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark (issue 32): endpoints of one host. Two processes in ONE network
# namespace, on one interface with the device service (uetctl load), talk
# through uet's local path; libfabric's shm and tcp providers run beside it
# in the same run, and Open MPI's own shared memory (vader) beside Open MPI
# over uet. Runs alternated (uet, shm, tcp, uet, shm, tcp, ...), medians of
# REPS:
# - fi_pingpong (Debian's libfabric-bin, not ours: what a user would try
#   first) -e rdm at 8 B, 4 KiB and 64 KiB: the half round trip (us) and,
#   at 64 KiB, its MB/sec. fi_pingpong has no warm-up and prints the mean
#   of all ITERS round trips, first contact included: enough iterations
#   make that negligible. Its usec/xfer has two decimals (0.01 of shm's
#   0.3 us is 3 %), so the half round trip is taken as SIZE / its MB/sec,
#   the same quotient with four digits.
# - the same three ping-pongs with fi_msg_bench -m lat (tagged, the same
#   program for all three providers): the MEDIAN half round trip of ITERS,
#   after 100 untimed. fi_pingpong's mean takes in every time slice that
#   another process of a loaded 2-core machine takes from a spinning
#   side; the median does not. Both are printed: local_*_lat_* (the
#   issue's figures, fi_pingpong) and local_*_lat_med_* (fi_msg_bench).
# - 64 KiB bandwidth, streamed: the ping-pong's MB/sec (the "bandwidth" of
#   the issue's first table) is one message in flight, a latency. A
#   bandwidth keeps a window in flight: fi_msg_bench -m bw (64 tagged sends
#   of 64 KiB in flight, BW_ITERS in all, MB/s from the first send to the
#   receiver's answer to the last), the same program for all three
#   providers. It runs with -M (no FI_MULTI_RECV: fi_msg_bench never uses
#   it, and libfabric 1.17's shm faults when its minimum is set).
#   Both figures are printed: local_64k_bw_* (streamed) and
#   local_64k_pp_bw_* (the ping-pong's).
# - Open MPI, two ranks of the namespace: mpi_check's 8 B ping-pong half
#   round trip (median of MPI_ITERS, after a warm-up) over uet (pml cm, mtl
#   ofi, FI_PROVIDER=uet as test/e2e/mpi_lib.sh runs it) and over vader
#   (pml ob1, btl vader,self); MPI_Allreduce of 8 B (test/progs/mpi/
#   mpi_allreduce: median of MPI_ITERS calls, after a warm-up, each sum
#   checked), uet and vader.
# Ratios uet/shm and uet/vader (above 1: uet is slower, for a latency;
# below 1: uet is slower, for a bandwidth), and uet/tcp at 8 B; each the
# median of the reps' own ratios (see ratio below).
#
# The machines have 2 cores and other work: two busy-polling processes
# that the scheduler puts on one core take turns by time slices, and a
# figure then swings by 10 x from one run to the next. With BENCH_PIN=1
# (the default, on 2 cores or more) the server or rank 0 runs on CPU 0 and
# the client or rank 1 on CPU 1 (taskset; mpirun --bind-to core, Open
# MPI's own default for 2 ranks), alike for every provider; a provider's
# threads (uet's progress thread, which sleeps while the application
# calls) share their process's core. BENCH_PIN=0: no pinning.
#
# A configuration that fails once is reported once (its output on stderr),
# not run again, and all its figures are nan, as are the ratios that need
# them. While fi_info says uet lacks what Open MPI's OFI MTL asks for, the
# MPI figures over uet are nan. BENCH_SMOKE=1 (bench-smoke): few
# iterations, short timeouts.
# With BENCH_SERIES=DIR (make bench-report), after the reps, one more
# 8-byte ping-pong per provider with our uet_pingpong -t (RMA writes with
# remote CQ data, every half round trip printed after the timed loop):
# DIR/lat8_local_PROV.tsv ("# half_rtt_us", one per line), the
# distribution beside the medians above.
# Knobs: REPS, LAT_ITERS (8 B and 4 KiB round trips), BIG_ITERS (64 KiB
# round trips), BW_ITERS (64 KiB messages streamed), MPI_ITERS, BENCH_PIN,
# RUN_TIMEOUT (seconds per libfabric run).
E2E_NAME=bench_local
source "$(dirname "$0")/../e2e/e2e_lib.sh"
source "$(dirname "$0")/../e2e/mpi_lib.sh"
REPS=${REPS:-5}
if [ -n "${BENCH_SMOKE:-}" ]; then
	LAT_ITERS=${LAT_ITERS:-2000}
	BIG_ITERS=${BIG_ITERS:-200}
	BW_ITERS=${BW_ITERS:-500}
	MPI_ITERS=${MPI_ITERS:-1000}
	RUN_TIMEOUT=${RUN_TIMEOUT:-20}
	MPI_TIMEOUT=${MPI_TIMEOUT:-20}
	MPI_TRIES=${MPI_TRIES:-2}
fi
LAT_ITERS=${LAT_ITERS:-20000}
BIG_ITERS=${BIG_ITERS:-2000}
BW_ITERS=${BW_ITERS:-5000}
MPI_ITERS=${MPI_ITERS:-10000}
RUN_TIMEOUT=${RUN_TIMEOUT:-60}
BENCH_PIN=${BENCH_PIN:-1}
PROVIDERS="uet shm tcp"
MPI_TRANSPORTS="uet vader"
FI_KINDS="lat8b lat4k lat64k med8b med4k med64k bw64k"
MPI_KINDS="mpilat allreduce"

command -v fi_pingpong >/dev/null ||
	e2e_fail "fi_pingpong not found (package libfabric-bin)"
# One rank namespace on the bridge: its interface loaded, its service up.
mpi_net_init bridge
mpi_rank_add
NS=${MPI_NS[0]}
IP=$MPI_NET.1
PIN_S=()
PIN_C=()
MPI_BIND=none
if [ "$BENCH_PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then
	PIN_S=(taskset -c 0)
	PIN_C=(taskset -c 1)
	MPI_BIND=core
fi
for prov in $PROVIDERS; do
	ip netns exec "$NS" fi_info -p "$prov" -t FI_EP_RDM >/dev/null 2>&1 ||
		echo "bench_local: NOTE: fi_info finds no $prov RDM endpoint" >&2
done
# (mpi_prov_missing fails the script when uet has no RDM endpoint at all:
# here that is one more configuration that fails.)
if ip netns exec "$NS" fi_info -p uet -t FI_EP_RDM >/dev/null 2>&1; then
	mpi_missing=$(mpi_prov_missing uet)
else
	mpi_missing="an RDM endpoint "
fi
[ -z "$mpi_missing" ] || echo "bench_local: NOTE: uet lacks ${mpi_missing% }" \
	"(Open MPI's OFI MTL asks for $MPI_MTL_CAPS): no MPI runs over uet" >&2

# in_ns CMD...: CMD in the namespace as an application runs there: no
# bpffs of the scripts' (mpi_run hides it from the ranks too).
in_ns() {
	ip netns exec "$NS" env -u UET_BPFFS -u LIBXDP_BPFFS \
		FI_UET_IFACE="$MPI_IF" "$@"
}

# ctl_port: a port for a run's TCP side channel, below the ephemeral range
# (32768-60999): the tcp provider's own sockets of the run before take
# ports from that range, and one of them held a port drawn there.
ctl_port() { echo $((20000 + RANDOM % 10000)); }

# wait_listen PORT PID: until a TCP socket listens on PORT in the
# namespace (fi_pingpong's client does not retry its control connection);
# 1 when PID died or 10 s passed first.
wait_listen() {
	for _ in $(seq 200); do
		[ -n "$(ip netns exec "$NS" ss -Hltn "sport = :$1")" ] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# failed PROV KIND OUT...: reports a run that failed, once, and marks the
# configuration so that it is not run again.
failed() {
	local prov=$1 kind=$2 f
	shift 2
	echo "bench_local: $prov, $kind: run failed (not run again):" >&2
	for f in "$@"; do
		[ -s "$f" ] && tail -n 15 "$f" | sed "s|^|  $(basename "$f"): |" >&2
	done
	touch "$E2E_TMP/$kind.$prov.failed"
}

# pingpong PROV KIND SIZE ITERS: one fi_pingpong run; the half round trip
# (us) goes to KIND.PROV, and at 64 KiB its MB/sec to pp64k.PROV.
pingpong() {
	local prov=$1 kind=$2 size=$3 iters=$4 s rc=0 v
	local port out="$E2E_TMP/pp.cli" srv="$E2E_TMP/pp.srv"
	: > "$out"
	port=$(ctl_port)
	in_ns timeout "$RUN_TIMEOUT" "${PIN_S[@]}" fi_pingpong -p "$prov" \
		-e rdm -S "$size" -I "$iters" -B "$port" > "$srv" 2>&1 &
	s=$!
	if wait_listen "$port" "$s"; then
		in_ns timeout "$RUN_TIMEOUT" "${PIN_C[@]}" fi_pingpong \
			-p "$prov" -e rdm -S "$size" -I "$iters" -P "$port" \
			"$IP" > "$out" 2>&1 || rc=$?
	else
		rc=1
	fi
	wait "$s" || rc=1
	# The result row: bytes #sent #ack total time MB/sec usec/xfer
	# Mxfers/sec, the count of round trips at its place.
	v=$(awk -v sz="$size" 'NF == 8 && $6 + 0 > 0 && $1 ~ /^[0-9]+[kmg]?$/ {
		printf "%.4f %s\n", sz / $6, $6 }' "$out" | tail -n 1)
	if [ "$rc" != 0 ] || [ -z "$v" ]; then
		failed "$prov" "$kind" "$srv" "$out"
		return 0
	fi
	echo "${v% *}" >> "$E2E_TMP/$kind.$prov"
	[ "$kind" != lat64k ] || echo "${v#* }" >> "$E2E_TMP/pp64k.$prov"
}

# msgbench PROV KIND ARGS...: one fi_msg_bench run (client and server get
# ARGS); its figure (the median half round trip, or MB/s) to KIND.PROV.
msgbench() {
	local prov=$1 kind=$2 s rc=0 v port
	local out="$E2E_TMP/mb.cli" srv="$E2E_TMP/mb.srv"
	shift 2
	port=$(ctl_port)
	in_ns FI_PROVIDER="$prov" timeout "$RUN_TIMEOUT" "${PIN_S[@]}" \
		"$B/fi_msg_bench" -M -s -a "$IP" -p "$port" "$@" > "$srv" 2>&1 &
	s=$!
	in_ns FI_PROVIDER="$prov" timeout "$RUN_TIMEOUT" "${PIN_C[@]}" \
		"$B/fi_msg_bench" -M -c "$IP" -p "$port" "$@" > "$out" 2>&1 ||
		rc=$?
	wait "$s" || rc=1
	v=$(sed -n -e 's/^fi_msg_bench: bw .*: \([0-9.]*\) MB\/s.*/\1/p' \
		-e 's/^fi_msg_bench: lat .* trip \([0-9.]*\) us.*/\1/p' "$out")
	if [ "$rc" != 0 ] || [ -z "$v" ]; then
		failed "$prov" "$kind" "$srv" "$out"
		return 0
	fi
	echo "$v" >> "$E2E_TMP/$kind.$prov"
}

# fi_run PROV KIND: one run of a libfabric figure.
fi_run() {
	[ -e "$E2E_TMP/$2.$1.failed" ] && return 0
	case $2 in
	lat8b) pingpong "$1" "$2" 8 "$LAT_ITERS" ;;
	lat4k) pingpong "$1" "$2" 4096 "$LAT_ITERS" ;;
	lat64k) pingpong "$1" "$2" 65536 "$BIG_ITERS" ;;
	med8b) msgbench "$1" "$2" -m lat -n 8 -i "$LAT_ITERS" ;;
	med4k) msgbench "$1" "$2" -m lat -n 4096 -i "$LAT_ITERS" ;;
	med64k) msgbench "$1" "$2" -m lat -n 65536 -i "$BIG_ITERS" ;;
	bw64k) msgbench "$1" "$2" -m bw -n 65536 -i "$BW_ITERS" ;;
	esac
}

# mpi_one TRANSPORT KIND: one Open MPI run of two ranks of the namespace
# (uet: the OFI MTL over uet; vader: ob1 over shared memory).
mpi_one() {
	local t=$1 kind=$2 out="$E2E_TMP/mpi.out" v=""
	[ -e "$E2E_TMP/$kind.$t.failed" ] && return 0
	[ "$t" = uet ] && [ -n "$mpi_missing" ] && return 0
	if [ "$kind" = mpilat ]; then
		MPI_PPN=2 MPI_PROG="" mpi_run "$t" 2 "$out" "$MPI_ITERS" &&
			grep -q '^mpi_check: ok$' "$out" && v=$(mpi_lat "$out" 8)
	else
		MPI_PPN=2 MPI_PROG="$B/mpi_allreduce" mpi_run "$t" 2 "$out" \
			"$MPI_ITERS" 8 && v=$(sed -n \
			's/^mpi_allreduce: 8 B: \([0-9.]*\) us.*/\1/p' "$out")
	fi
	if [ -z "$v" ]; then
		failed "$t" "$kind" "$out"
		return 0
	fi
	echo "$v" >> "$E2E_TMP/$kind.$t"
	[ "$MPI_RETRIES" = 0 ] || echo "bench_local: $t, $kind: started" \
		"after $MPI_RETRIES hung start(s)" >&2
}

# fig KIND PROV: the median of a configuration's runs; nan when it failed
# or never ran.
fig() {
	if [ -e "$E2E_TMP/$1.$2.failed" ]; then
		echo nan
	else
		median < "$E2E_TMP/$1.$2"
	fi
}

# ratio NAME KIND A B: "bench: NAME X x", X the median over the reps of
# A's figure over B's in the same rep (the two ran seconds apart), not the
# ratio of the medians: what a shared 2-core machine gives us swings by
# 3 x over minutes (other work on its cores), alike for every provider,
# and a fast rep of one beside a slow rep of the other would measure that
# swing. nan when either configuration failed.
ratio() {
	local name=$1 kind=$2 a=$3 b=$4
	if [ -e "$E2E_TMP/$kind.$a.failed" ] || [ -e "$E2E_TMP/$kind.$b.failed" ] ||
	   [ "$(wc -l < "$E2E_TMP/$kind.$a")" != "$(wc -l < "$E2E_TMP/$kind.$b")" ]; then
		echo "bench: $name nan x"
		return 0
	fi
	paste "$E2E_TMP/$kind.$a" "$E2E_TMP/$kind.$b" |
		awk '$2 > 0 { print $1 / $2 }' | median | bench_ratio "$name"
}

for kind in $FI_KINDS pp64k; do
	for prov in $PROVIDERS; do
		: > "$E2E_TMP/$kind.$prov"
	done
done
for kind in $MPI_KINDS; do
	for t in $MPI_TRANSPORTS; do
		: > "$E2E_TMP/$kind.$t"
	done
done
[ -z "$mpi_missing" ] || touch "$E2E_TMP/mpilat.uet.failed" \
	"$E2E_TMP/allreduce.uet.failed"

for _ in $(seq "$REPS"); do
	for kind in $FI_KINDS; do
		for prov in $PROVIDERS; do
			fi_run "$prov" "$kind"
		done
	done
	for kind in $MPI_KINDS; do
		for t in $MPI_TRANSPORTS; do
			mpi_one "$t" "$kind"
		done
	done
done
# pp64k comes from the lat64k runs: failed with them.
for prov in $PROVIDERS; do
	[ ! -e "$E2E_TMP/lat64k.$prov.failed" ] ||
		touch "$E2E_TMP/pp64k.$prov.failed"
done

# lat8_series PROV: the report's one-host latency distribution of PROV.
lat8_series() {
	local port s out="$E2E_TMP/lat8.out"
	port=$(ctl_port)
	in_ns FI_PROVIDER="$1" timeout "$RUN_TIMEOUT" "${PIN_S[@]}" \
		"$B/uet_pingpong" -s -a "$IP" -p "$port" -n 8 \
		-i "$LAT_ITERS" > /dev/null 2>&1 &
	s=$!
	in_ns FI_PROVIDER="$1" timeout "$RUN_TIMEOUT" "${PIN_C[@]}" \
		"$B/uet_pingpong" -c "$IP" -p "$port" -n 8 -i "$LAT_ITERS" \
		-t > "$out" 2>&1 || echo "bench_local: $1: uet_pingpong -t" \
		"failed: $(tail -n 3 "$out")" >&2
	wait "$s" 2>/dev/null || true
	{ echo "# half_rtt_us"
	  sed -n 's/^uet_pingpong: at [0-9.]* half round trip \([0-9.]*\) us$/\1/p' \
		"$out"; } > "$BENCH_SERIES/lat8_local_$1.tsv"
}
if [ -n "${BENCH_SERIES:-}" ]; then
	mkdir -p "$BENCH_SERIES"
	for prov in uet shm; do lat8_series "$prov"; done
fi

# The table, then every run's figures (the spread behind each median).
printf "%-34s" "one namespace, median of $REPS"
for prov in $PROVIDERS; do printf " %10s" "$prov"; done
echo
row() {	# row LABEL KIND
	printf "%-34s" "$1"
	for prov in $PROVIDERS; do printf " %10s" "$(fig "$2" "$prov")"; done
	echo
}
row "8 B half round trip (us)" lat8b
row "4 KiB half round trip (us)" lat4k
row "64 KiB half round trip (us)" lat64k
row "8 B, median (us)" med8b
row "4 KiB, median (us)" med4k
row "64 KiB, median (us)" med64k
row "64 KiB ping-pong (MB/s)" pp64k
row "64 KiB streamed, 64 in flight (MB/s)" bw64k
printf "%-34s %10s %10s\n" "Open MPI, 2 ranks" uet vader
for kind in $MPI_KINDS; do
	printf "%-34s %10s %10s\n" "$([ "$kind" = mpilat ] &&
		echo "8 B ping-pong half rtt (us)" || echo "8 B MPI_Allreduce (us)")" \
		"$(fig "$kind" uet)" "$(fig "$kind" vader)"
done
for kind in $FI_KINDS pp64k; do
	for prov in $PROVIDERS; do
		echo "bench_local: $kind $prov, each run: $(paste -sd' ' "$E2E_TMP/$kind.$prov")"
	done
done
for kind in $MPI_KINDS; do
	for t in $MPI_TRANSPORTS; do
		echo "bench_local: $kind $t, each run: $(paste -sd' ' "$E2E_TMP/$kind.$t")"
	done
done

for prov in $PROVIDERS; do
	echo "bench: local_8b_lat_${prov}_us $(fig lat8b "$prov") us"
	echo "bench: local_4k_lat_${prov}_us $(fig lat4k "$prov") us"
	echo "bench: local_64k_lat_${prov}_us $(fig lat64k "$prov") us"
	echo "bench: local_8b_lat_med_${prov}_us $(fig med8b "$prov") us"
	echo "bench: local_4k_lat_med_${prov}_us $(fig med4k "$prov") us"
	echo "bench: local_64k_lat_med_${prov}_us $(fig med64k "$prov") us"
	echo "bench: local_64k_pp_bw_${prov}_mb_per_s $(fig pp64k "$prov") MB/s"
	echo "bench: local_64k_bw_${prov}_mb_per_s $(fig bw64k "$prov") MB/s"
done
for t in $MPI_TRANSPORTS; do
	echo "bench: local_mpi_lat_${t}_us $(fig mpilat "$t") us"
	echo "bench: local_allreduce_${t}_us $(fig allreduce "$t") us"
done
ratio local_8b_lat_uet_over_shm lat8b uet shm
ratio local_4k_lat_uet_over_shm lat4k uet shm
ratio local_64k_lat_uet_over_shm lat64k uet shm
ratio local_8b_lat_med_uet_over_shm med8b uet shm
ratio local_4k_lat_med_uet_over_shm med4k uet shm
ratio local_64k_lat_med_uet_over_shm med64k uet shm
ratio local_64k_bw_uet_over_shm bw64k uet shm
ratio local_64k_pp_bw_uet_over_shm pp64k uet shm
ratio local_8b_lat_uet_over_tcp lat8b uet tcp
ratio local_mpi_lat_uet_over_vader mpilat uet vader
ratio local_allreduce_uet_over_vader allreduce uet vader
