#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark (issue 7): the MPI 8-byte ping-pong half round trip of
# test/mpi/mpi_check (median of ITERS round trips) with Open MPI's OFI MTL
# over uet and over tcp, 2 ranks in 2 namespaces on one veth pair (MTU
# 9000), runs alternated, medians of REPS. Target: uet at most 0.8 x tcp.
# While fi_info says uet lacks what the MTL asks for, its value is nan.
E2E_NAME=bench_mpi
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/mpi/mpi_lib.sh"
REPS=${REPS:-3}
ITERS=${ITERS:-10000}
PROVIDERS="uet tcp"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }

mpi_net_init pair
mpi_rank_add
mpi_rank_add
missing=$(mpi_prov_missing uet)
[ -z "$missing" ] || echo "bench_mpi: NOTE: uet lacks ${missing% }" \
	"(Open MPI's OFI MTL asks for $MPI_MTL_CAPS): no uet runs"
: > "$E2E_TMP/lat.uet"
: > "$E2E_TMP/lat.tcp"
for _ in $(seq "$REPS"); do
	for prov in $PROVIDERS; do
		[ "$prov" = uet ] && [ -n "$missing" ] && continue
		out="$E2E_TMP/run.$prov"
		if mpi_run "$prov" 2 "$out" "$ITERS" &&
		   grep -q '^mpi_check: ok$' "$out"; then
			mpi_lat "$out" >> "$E2E_TMP/lat.$prov"
		else
			echo "bench_mpi: $prov run failed:" >&2
			tail -n 20 "$out" >&2
		fi
	done
done
for prov in $PROVIDERS; do
	echo "bench: mpi_lat8_us_$prov $(median < "$E2E_TMP/lat.$prov") us"
done
u=$(median < "$E2E_TMP/lat.uet")
t=$(median < "$E2E_TMP/lat.tcp")
echo "bench_mpi: each run (us): uet $(paste -sd' ' "$E2E_TMP/lat.uet")," \
	"tcp $(paste -sd' ' "$E2E_TMP/lat.tcp") (target: uet <= 0.8 x tcp)"
awk -v u="$u" -v t="$t" 'BEGIN { if (t > 0 && u != "nan")
	printf "bench: mpi_lat8_ratio_uet_over_tcp %.2f x\n", u / t }'
