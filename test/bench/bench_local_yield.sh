#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark (issue 41): progress that yields. Runs alternated, medians of
# REPS, each figure beside its yardstick in the same rep:
# - idle cores: fi_msg_bench -m lat's median 8 B half round trip between
#   two processes of one namespace pinned to CPUs 0 and 1 (the local
#   channel), uet as it comes (FI_UET_SPIN_US unset: yield, then sleep) and
#   uet spinning for ever (FI_UET_SPIN_US=-1, what it did before), shm
#   beside; and the same between two namespaces (frames over a veth pair
#   and a bridge), uet both ways and tcp. The yielding must cost nothing
#   here: local_spin_8b and veth_spin_8b are default over never-sleeping.
# - more ranks than cores: Open MPI, 4 ranks of test/progs/mpi/
#   mpi_multi_lat on this 2-core machine, 2 in each of two namespaces,
#   unbound, both pairs (ranks 0-2, 1-3, across the namespaces) pinging 8 B
#   at once as osu_multi_lat does; its mean half round trip over uet
#   (default and FI_UET_SPIN_US=-1) and tcp, without and with
#   mpi_yield_when_idle. The issue's figure is uet/tcp (at most 1 in both
#   cases).
# Knobs: REPS, LAT_ITERS, MPI_ITERS, RUN_TIMEOUT.
E2E_NAME=bench_local_yield
MPI_TIMEOUT=${MPI_TIMEOUT:-120}
source "$(dirname "$0")/../e2e/e2e_lib.sh"
source "$(dirname "$0")/../e2e/mpi_lib.sh"
REPS=${REPS:-3}
LAT_ITERS=${LAT_ITERS:-20000}
MPI_ITERS=${MPI_ITERS:-2000}
RUN_TIMEOUT=${RUN_TIMEOUT:-60}
# uet: as it comes; uet_spin: FI_UET_SPIN_US=-1 (never sleeps); uet_sN:
# FI_UET_SPIN_US=N (for choosing the default: FI_CONFS, MPI_CONFS).
FI_CONFS=${FI_CONFS:-"uet uet_spin shm tcp"}
MPI_CONFS=${MPI_CONFS:-"uet uet_spin tcp"}

mpi_net_init bridge
mpi_rank_add
mpi_rank_add
MPI_PPN=2

# conf_env CONF: the environment words of a configuration.
conf_env() {
	case $1 in
	uet) echo FI_PROVIDER=uet ;;	# as it comes: yielding (uet/uet.h)
	uet_spin) echo FI_PROVIDER=uet FI_UET_SPIN_US=-1 ;;
	uet_s*) echo FI_PROVIDER=uet "FI_UET_SPIN_US=${1#uet_s}" ;;
	*) echo "FI_PROVIDER=$1" ;;
	esac
}

# msgbench CONF WHERE: one 8 B fi_msg_bench latency run, server in rank
# namespace 1 on CPU 0, client on CPU 1 in namespace 1 (local) or 2
# (veth); its median half round trip (us) to WHERE.CONF.
msgbench() {
	local conf=$1 where=$2 s rc=0 v port=$((20000 + RANDOM % 10000))
	local cns=${MPI_NS[0]} out="$E2E_TMP/mb.cli" srv="$E2E_TMP/mb.srv"
	[ "$where" = local ] || cns=${MPI_NS[1]}
	# shellcheck disable=SC2046 # conf_env's words split on purpose
	ip netns exec "${MPI_NS[0]}" env -u UET_BPFFS -u LIBXDP_BPFFS \
		FI_UET_IFACE="$MPI_IF" $(conf_env "$conf") \
		timeout "$RUN_TIMEOUT" taskset -c 0 "$B/fi_msg_bench" -M -s \
		-a "$MPI_NET.1" -p "$port" -m lat -n 8 -i "$LAT_ITERS" \
		> "$srv" 2>&1 &
	s=$!
	# shellcheck disable=SC2046
	ip netns exec "$cns" env -u UET_BPFFS -u LIBXDP_BPFFS \
		FI_UET_IFACE="$MPI_IF" $(conf_env "$conf") \
		timeout "$RUN_TIMEOUT" taskset -c 1 "$B/fi_msg_bench" -M \
		-c "$MPI_NET.1" -p "$port" -m lat -n 8 -i "$LAT_ITERS" \
		> "$out" 2>&1 || rc=$?
	wait "$s" || rc=1
	v=$(sed -n 's/^fi_msg_bench: lat .* trip \([0-9.]*\) us.*/\1/p' "$out")
	if [ "$rc" != 0 ] || [ -z "$v" ]; then
		echo "bench_local_yield: $conf, $where: run failed:" >&2
		tail -n 5 "$srv" "$out" >&2
		v=nan
	fi
	echo "$v" >> "$E2E_TMP/$where.$conf"
}

# mpi_multi CONF YIELD: mpi_multi_lat's mean 8 B half round trip (us), 4
# ranks on 2 cores, mpi_yield_when_idle YIELD, to mpiYIELD.CONF.
mpi_multi() {
	local conf=$1 y=$2 out="$E2E_TMP/mpi.out" v="" prov=${1%%_*} w
	MPI_OPTS=(--mca mpi_yield_when_idle "$y")
	for w in $(conf_env "$conf"); do
		[ "${w%%=*}" != FI_UET_SPIN_US ] || MPI_OPTS+=(-x "$w")
	done
	MPI_PROG="$B/mpi_multi_lat" mpi_run "$prov" 4 "$out" "$MPI_ITERS" 8 &&
		v=$(sed -n 's/^mpi_multi_lat: .* mean \([0-9.]*\) us.*/\1/p' \
		"$out")
	if [ -z "$v" ]; then
		echo "bench_local_yield: $conf, yield $y: run failed:" >&2
		tail -n 25 "$out" >&2
		v=nan
	fi
	echo "$v" >> "$E2E_TMP/mpi$y.$conf"
}

# ratio NAME KIND A B: the median over the reps of A's figure over B's.
ratio() {
	paste "$E2E_TMP/$2.$3" "$E2E_TMP/$2.$4" |
		awk '$1 != "nan" && $2 != "nan" && $2 > 0 { print $1 / $2 }' |
		median | bench_ratio "$1"
}

for _ in $(seq "$REPS"); do
	for conf in $FI_CONFS; do
		msgbench "$conf" local
		[ "$conf" = shm ] || msgbench "$conf" veth
	done
	for y in 0 1; do
		for conf in $MPI_CONFS; do
			mpi_multi "$conf" "$y"
		done
	done
done

echo "bench_local_yield: load $(cut -d' ' -f1-3 /proc/loadavg)"
for conf in $FI_CONFS; do
	echo "bench: local_8b_lat_$conf $(median < "$E2E_TMP/local.$conf") us"
	[ "$conf" = shm ] ||
		echo "bench: veth_8b_lat_$conf" \
			"$(median < "$E2E_TMP/veth.$conf") us"
done
for y in 0 1; do
	for conf in $MPI_CONFS; do
		echo "bench: oversub_4on2_yield${y}_lat_$conf" \
			"$(median < "$E2E_TMP/mpi$y.$conf") us"
	done
done
ratio local_spin_8b local uet uet_spin
ratio local_8b_uet_shm local uet shm
ratio veth_spin_8b veth uet uet_spin
ratio veth_8b_uet_tcp veth uet tcp
for y in 0 1; do
	ratio "oversub_4on2_yield${y}_uet_tcp" "mpi$y" uet tcp
	ratio "oversub_4on2_yield${y}_uet_spin" "mpi$y" uet uet_spin
done
for f in "$E2E_TMP"/local.* "$E2E_TMP"/veth.* "$E2E_TMP"/mpi[01].*; do
	echo "bench_local_yield: runs $(basename "$f"): $(tr '\n' ' ' < "$f")"
done
