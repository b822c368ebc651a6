#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Runs each fuzzer for FUZZ_SECONDS (default 10), prints one "fuzz: NAME
# RUNS runs in Ns, EDGES edges" line per target (edges: libFuzzer's last
# coverage figure) and fails on the first crash, whose input it keeps in
# BUILD_DIR/fuzz/crashes.
# A target starts from its seed corpus, test/fuzz/corpus/NAME/, when there
# is one: copied to a scratch directory, so that a run never writes into
# the tree. Usage: run-fuzzers.sh BUILD_DIR TARGET...
set -euo pipefail
build=$1
shift
secs=${FUZZ_SECONDS:-10}
seeds=$(dirname "$0")/corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for t in "$@"; do
	mkdir -p "$work/$t"
	if [ -d "$seeds/$t" ]; then
		cp -r "$seeds/$t/." "$work/$t/"
	fi
	log="$work/$t.log"
	# -timeout: an input that runs 10 s is a hang, reported as a crash
	# (libFuzzer's own default, 20 minutes, stalls the whole run).
	if ! "$build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 \
		-print_final_stats=1 \
		-artifact_prefix="$work/$t-" "$work/$t" >"$log" 2>&1; then
		echo "fuzz: $t CRASHED"
		tail -n 40 "$log"
		# The input that crashed outlives the scratch directory.
		mkdir -p "$build/fuzz/crashes"
		cp "$work/$t-"* "$build/fuzz/crashes/" 2>/dev/null &&
			echo "fuzz: $t: input kept in $build/fuzz/crashes"
		failed=1
		continue
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	echo "fuzz: $t ${runs:-?} runs in ${secs}s, ${cov:-?} edges"
done
exit $failed
