#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Runs unit-test binaries and e2e scripts of a sanitizer build (make
# sanitize, test/san/san.mk) and fails on any report, wherever it came from.
# Usage: san_run.sh STEP...; B is the build dir (build-san). A STEP ending
# in .sh is an e2e script, run as `make e2e` runs it; any other is a
# Criterion binary, run as `make unit` runs it.
#
# Every report goes to a file (log_path), not to stderr: an e2e script
# keeps a server's output to itself and judges only what it checks, and a
# report in a process it then kills or ignores would pass unseen. So each
# step gets an empty folder that every process may write into (some run
# as nobody, and the clone's own folders may be closed to them: /tmp),
# and the step fails when anything is in it afterwards, whatever the
# step's exit. The folder's files are kept in $B/san/STEP/. A program
# started with a cleared environment (env -i: e2e_fep's uetctl stats)
# has no such folder: its report goes to stderr and it exits 1, which
# that script sees.
set -uo pipefail
B=${B:-build-san}
here=$(cd "$(dirname "$0")" && pwd)
keep=$B/san
rm -rf "$keep"
mkdir -p "$keep"
logs=$(mktemp -d /tmp/uet-san.XXXXXX)
chmod 0755 "$logs"
trap 'rm -rf "$logs"' EXIT
pass=0 fail=0

# halt_on_error: the first report ends the process (UBSan's too: the build
# has -fno-sanitize-recover=all); exitcode 86 tells a report from a
# program's own failure in a step's output. UBSan and LSan are part of
# clang's ASan runtime and write where it does (log_path, the pid added).
# LSan checks for leaks at every exit; test/san/lsan.supp names what is
# not ours.
sanitizer_env() {
	local dir=$1
	export ASAN_OPTIONS="halt_on_error=1:exitcode=86:detect_leaks=1:log_path=$dir/asan:log_exe_name=1"
	export UBSAN_OPTIONS="halt_on_error=1:exitcode=86:print_stacktrace=1"
	export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
}

# settle DIR: waits, up to 20 s, until no process has DIR in its
# environment (ASAN_OPTIONS'). A service the script's cleanup killed may
# still be exiting, and its leak report comes as it exits: looking before
# would miss it. 1 when some are left.
settle() {
	local p i
	for i in $(seq 200); do
		for p in /proc/[0-9]*/environ; do
			if grep -qasF "$1/" "$p"; then
				sleep 0.1
				continue 2
			fi
		done
		return 0
	done
	return 1
}

for step in "$@"; do
	name=$(basename "$step" .sh)
	dir=$logs/$name
	mkdir -m 1777 "$dir"
	start=$(date +%s)
	echo "  SAN      $name"
	( sanitizer_env "$dir"
	  case $step in
	  *.sh) B=$B bash "$step" ;;
	  *) "$step" --jobs 2 ;;
	  esac ) > "$keep/$name.out" 2>&1
	rc=$?
	if ! settle "$dir"; then
		echo "sanitize: $name: processes still running 20 s after it" >&2
		[ "$rc" != 0 ] || rc=124
	fi
	secs=$(( $(date +%s) - start ))
	reports=$(find "$dir" -type f | wc -l)
	if [ "$reports" -gt 0 ]; then
		mkdir -p "$keep/$name"
		cp "$dir"/* "$keep/$name/"
	fi
	if [ "$rc" = 0 ] && [ "$reports" = 0 ]; then
		echo "sanitize: $name ok (${secs}s)"
		pass=$((pass + 1))
		continue
	fi
	fail=$((fail + 1))
	echo "sanitize: $name: FAIL: exit $rc, $reports report files" \
		"(${secs}s; output in $keep/$name.out)" >&2
	[ "$rc" = 0 ] || tail -20 "$keep/$name.out" >&2
	for f in "$keep/$name"/*; do
		[ -f "$f" ] || continue
		echo "---- $f" >&2
		head -40 "$f" >&2
	done
done
echo "sanitize: $pass passed, $fail failed"
echo "$pass $fail" > "$B/.tally-sanitize"
[ "$fail" = 0 ]
