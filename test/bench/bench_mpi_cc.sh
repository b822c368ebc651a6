#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark: MPI jobs that fail under each congestion control (issue 42
# item 6, the choice of the default): e2e_mpi_rccc.sh's jobs (Open MPI's
# OFI MTL, mpi_check, 2 ranks in two namespaces and 8 ranks 4 in each,
# as the unprivileged user nobody) MPI_CC_RUNS times (default 20; 2
# under BENCH_SMOKE=1) with FI_UET_CC=nscc (the default) and with
# FI_UET_CC=nscc,rccc, alternated run by run. A job fails when mpirun
# fails or mpi_check does not say ok (and, with rccc, when no credit went
# round). Printed: the share of jobs failed under each, and how many ran.
set -euo pipefail
B=${B:-build}
T=$(dirname "$0")/../e2e
RUNS=${MPI_CC_RUNS:-20}
[ "${BENCH_SMOKE:-0}" = 1 ] && RUNS=${MPI_CC_RUNS:-2}
CCS="nscc nscc,rccc"
declare -A jobs failed
for cc in $CCS; do jobs[$cc]=0 failed[$cc]=0; done
for (( r = 1; r <= RUNS; r++ )); do
	for cc in $CCS; do
		out=$(B=$B MPI_RCCC_RUNS=1 MPI_RCCC_CC=$cc \
			bash "$T/e2e_mpi_rccc.sh" 2>&1) || true
		ok=$(grep -c ' ranks .* ok$' <<< "$out" || true)
		bad=$(grep -c 'FAIL: run ' <<< "$out" || true)
		if [ $(( ok + bad )) = 0 ]; then
			echo "bench_mpi_cc: $cc, run $r: no job ran:" >&2
			tail -5 <<< "$out" >&2
			exit 1
		fi
		jobs[$cc]=$(( ${jobs[$cc]} + ok + bad ))
		failed[$cc]=$(( ${failed[$cc]} + bad ))
		[ "$bad" = 0 ] || grep 'FAIL' <<< "$out" | head -3 | cut -c1-300
	done
done
for cc in $CCS; do
	n=${cc//,/_}
	echo "$cc: ${failed[$cc]} of ${jobs[$cc]} MPI jobs failed"
	echo "bench: mpi_cc_${n}_jobs ${jobs[$cc]} jobs"
	awk -v f="${failed[$cc]}" -v j="${jobs[$cc]}" -v n="$n" 'BEGIN {
		printf "bench: mpi_cc_%s_failed_pct %.1f pct\n", n, 100 * f / j }'
done
