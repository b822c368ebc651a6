#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# FI_UET_TRACE, the congestion trace: uet_bw's stream of 64 KiB fi_writes
# from A to B, client and server traced into $E2E_TMP/trace.%p every 2 ms
# (FI_UET_TRACE_US=2000):
#  a. each process has its file, named with its pid;
#  b. the client's: the header, 10 sample lines or more, each ten numbers,
#     the epoch never going back and distinct samples at least 2 ms apart,
#     every window above 0, bytes in flight within a PDC's ring (256
#     packets below 2 KiB) and above 0 in some sample, a smoothed and a
#     base RTT measured;
#  c. a path in a folder that does not exist: uet_bw still moves its data,
#     and the provider warns (FI_LOG_LEVEL=warn), once, naming the path.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
RUN_S=30		# the longest one uet_bw may take

# wait_bounded PID: its exit status, or 124 once it ran RUN_S (killed).
wait_bounded() {
	local i
	for i in $(seq $((RUN_S * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$1" 2>/dev/null && { kill "$1"; wait "$1"; return 124; }
	wait "$1"
}

# bw TAG TRACE: uet_bw's server on B and client on A (not through a
# wrapper that forks, so that $! is the process that writes the trace),
# both with FI_UET_TRACE=TRACE; sets srv and cli to their pids and fails
# unless both end well. Output in $E2E_TMP/TAG.{srv,cli}.
bw() {
	local port=$((45000 + RANDOM % 1000)) rc=0
	ip netns exec "$NS_B" env FI_PROVIDER=uet FI_UET_TRACE="$2" \
		FI_UET_TRACE_US=2000 FI_LOG_LEVEL=warn "$B/uet_bw" -s \
		-a "$IP_B" -p "$port" -n 65536 > "$E2E_TMP/$1.srv" 2>&1 &
	srv=$!
	sleep 0.3
	ip netns exec "$NS_A" env FI_PROVIDER=uet FI_UET_TRACE="$2" \
		FI_UET_TRACE_US=2000 FI_LOG_LEVEL=warn "$B/uet_bw" \
		-c "$IP_B" -p "$port" -n 65536 -i 2000 > "$E2E_TMP/$1.cli" 2>&1 &
	cli=$!
	wait_bounded "$cli" || rc=$?
	wait_bounded "$srv" || rc=$?
	[ "$rc" = 0 ] && grep -q "MB/s" "$E2E_TMP/$1.cli" ||
		e2e_fail "$1: uet_bw failed ($rc): $(cat "$E2E_TMP/$1".*)"
}

# check_samples FILE: the checks of b. on FILE; sets $why.
check_samples() {
	why=$(awk '
		NR == 1 {
			if ($0 != "# EPOCH_S PDCID PEER CWND_BYTES " \
			    "INFLIGHT_BYTES AVG_DELAY_NS SRTT_NS BASE_RTT_NS " \
			    "MAX_WND_BYTES RETX_TOTAL LINK_MBPS")
				{ print "header: " $0; exit 1 }
			next
		}
		{ n++ }
		NF != 11 { print "line " NR ": " NF " fields: " $0; exit 1 }
		$1 !~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9]$/ {
			print "line " NR ": epoch " $1; exit 1 }
		{
			for (i = 2; i <= 10; i++)
				if ($i !~ /^[0-9]+$/) {
					print "line " NR ": field " i ": " $0
					exit 1
				}
		}
		last != "" && $1 < last {
			print "line " NR ": time went back: " $1 " < " last
			exit 1
		}
		last != "" && $1 != last && $1 - last < 0.0019 {
			print "line " NR ": samples " $1 - last " s apart"
			exit 1
		}
		{ last = $1 }
		$4 <= 0 { print "line " NR ": window 0: " $0; exit 1 }
		$5 > 256 * 2048 {
			print "line " NR ": in flight past the ring: " $0; exit 1 }
		$5 > 0 { moving++ }
		$7 > 0 { srtt++ }
		$8 > 0 { base++ }
		END {
			if (n < 10) { print n + 0 " samples"; exit 1 }
			if (!moving || !srtt || !base) {
				print "nothing in flight (" moving + 0 ") or no " \
				      "RTT (" srtt + 0 ", " base + 0 ")"
				exit 1
			}
		}' "$1") || return 1
}

e2e_setup
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done

# a, b: both ends traced.
mkdir "$E2E_TMP/tr"
bw traced "$E2E_TMP/tr/trace.%p"
why="$(ls "$E2E_TMP/tr")"
e2e_check "the client's file is trace.$cli, the server's trace.$srv" \
	test -s "$E2E_TMP/tr/trace.$cli" -a -s "$E2E_TMP/tr/trace.$srv" \
	-a "$(ls "$E2E_TMP/tr" | wc -l)" = 2
e2e_check "the client's samples" check_samples "$E2E_TMP/tr/trace.$cli"
e2e_log "client: $(($(wc -l < "$E2E_TMP/tr/trace.$cli") - 1)) samples;" \
	"last: $(tail -n 1 "$E2E_TMP/tr/trace.$cli")"
why="$(head -n 1 "$E2E_TMP/tr/trace.$srv")"
e2e_check "the server's file starts with the header" \
	grep -q "^# EPOCH_S PDCID PEER" <(head -n 1 "$E2E_TMP/tr/trace.$srv")

# c: a file that cannot be created.
bw unwritable "$E2E_TMP/no-such-dir/trace.%p"
want="FI_UET_TRACE: cannot open $E2E_TMP/no-such-dir/trace.$cli: No such"
why="$(cat "$E2E_TMP/unwritable.cli")"
e2e_check "no file: uet_bw ran, and the provider said so once" \
	test "$(grep -c "$want" "$E2E_TMP/unwritable.cli")" = 1
e2e_check "no file: nothing was created" test ! -e "$E2E_TMP/no-such-dir"
e2e_checks_done
