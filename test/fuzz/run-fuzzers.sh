#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Runs each decoder fuzzer for FUZZ_SECONDS (default 10) with a fresh
# corpus, prints one "fuzz: NAME RUNS runs" line per target and fails on the
# first crash. Usage: run-fuzzers.sh BUILD_DIR TARGET...
set -euo pipefail
build=$1
shift
secs=${FUZZ_SECONDS:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for t in "$@"; do
	mkdir -p "$work/$t"
	log="$work/$t.log"
	if ! "$build/fuzz/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$work/$t-" "$work/$t" >"$log" 2>&1; then
		echo "fuzz: $t CRASHED"
		tail -n 40 "$log"
		failed=1
		continue
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	echo "fuzz: $t ${runs:-?} runs in ${secs}s"
done
exit $failed
