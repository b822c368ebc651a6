#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Smoke run of `make bench` inside `make check`: every benchmark once
# (REPS=1, and BENCH_SMOKE=1 for a quick mode, which scripts and
# bench_scale read), each bounded in time, and its figures checked, not
# judged: it exits 0, prints "bench: NAME VALUE UNIT" lines, every VALUE a
# number above 0 (no nan, no empty median) and no NAME twice; a share (a
# NAME with _pct) or a count of timeouts (_timeouts) may be 0, as no drop
# or no timeout is an answer.
# A benchmark that hangs or breaks would otherwise go unseen until
# someone runs `make bench` (bench_ses waited forever for a session).
# Each benchmark's output is kept as $B/bench-smoke/NAME.out and the time
# series the benchmarks save (BENCH_SERIES) under $B/bench-smoke/series:
# what `make bench-report` and its test (test/e2e/e2e_report.sh) read.
# Usage: bench_smoke.sh "BENCH_BINS" "BENCH_SCRIPTS"; B is the build dir.
set -uo pipefail
B=${B:-build}
LIMIT=${BENCH_SMOKE_LIMIT:-600}	# seconds per benchmark
bins=$1 scripts=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
keep=$B/bench-smoke
rm -rf "$keep"
mkdir -p "$keep/series"
BENCH_SERIES=$(cd "$keep/series" && pwd)
export BENCH_SERIES
pass=0 fail=0

check_lines() {	# NAME-of-benchmark: judges $out
	local what=$1 bad
	bad=$(awk '/^bench:/ { n++; if (NF != 4 || $3 !~ /^[0-9]+(\.[0-9]+)?$/ ||
		($3 + 0 <= 0 && $2 !~ /_(pct|timeouts)(_|$)/) || seen[$2]++)
		print }
		END { if (!n) print "no bench: line" }' "$out")
	if [ -n "$bad" ]; then
		echo "bench-smoke: $what: FAIL: $bad" >&2
		return 1
	fi
	echo "bench-smoke: $what: $(grep -c '^bench:' "$out") figures ok"
}

for b in $bins $scripts; do
	t0=$(date +%s)
	case $b in
	*.sh) REPS=1 BENCH_SMOKE=1 B=$B timeout "$LIMIT" bash "$b" \
		> "$out" 2>&1 ;;
	*) REPS=1 BENCH_SMOKE=1 timeout "$LIMIT" "$b" > "$out" 2>&1 ;;
	esac
	rc=$?
	cp "$out" "$keep/$(basename "$b" .sh).out"
	echo "bench-smoke: $b: $(( $(date +%s) - t0 )) s"
	if [ "$rc" != 0 ]; then
		tail -20 "$out" >&2
		echo "bench-smoke: $b: FAIL: exit $rc$([ "$rc" = 124 ] && echo ", over ${LIMIT}s")" >&2
		fail=$((fail + 1))
	elif check_lines "$b"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done
echo "$pass $fail" > "$B/.tally-bench"
[ "$fail" = 0 ]
