#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark: the uet provider's offloaded append (<rdma/fi_ext_uet.h>)
# against the same work done one-sided (fi_fetch_atomic FI_SUM on the
# pointer, wait, fi_write at the offset it gave), between two namespaces on
# a veth pair (MTU 9000): 8-byte appends per second with 64 in flight (64
# independent two-step chains for the one-sided form) and the time of one
# append with 1 in flight. fi_rdmo_bench checks every run (each offset
# once, pointers read back, the server's queue): a wrong figure fails the
# script. REPS runs (default 3), alternating which form goes first; medians,
# and the medians of each run's ratios (both forms of a run share its
# conditions). One table, then one "bench: NAME VALUE UNIT" line per result.
#   COUNT: appends of each 64-in-flight phase (default 200000)
#   LAT_COUNT: of each 1-in-flight phase (default 5000)
E2E_NAME=bench_rdmo
source "$(dirname "$0")/../e2e/e2e_lib.sh"
REPS=${REPS:-3}
COUNT=${COUNT:-200000}
LAT_COUNT=${LAT_COUNT:-5000}
WINDOW=64
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done

# run ARGS...: the client's output (its lines and, on failure, both sides'
# FAIL lines); fails when either side fails.
run() {
	local port=$((47000 + RANDOM % 2000)) s rc=0 src=0
	e2e_in B env FI_PROVIDER=uet FI_UET_IFACE="$IF_B" timeout 300 \
		"$B/fi_rdmo_bench" -s -a "$IP_B" -p "$port" "$@" \
		> "$E2E_TMP/server.out" 2>&1 &
	s=$!
	e2e_in A env FI_PROVIDER=uet FI_UET_IFACE="$IF_A" timeout 300 \
		"$B/fi_rdmo_bench" -c "$IP_B" -p "$port" "$@" \
		> "$E2E_TMP/client.out" 2>&1 || rc=$?
	wait "$s" || src=$?
	if [ "$rc" != 0 ] || [ "$src" != 0 ]; then
		sed 's/^/  client: /' "$E2E_TMP/client.out" >&2
		sed 's/^/  server: /' "$E2E_TMP/server.out" >&2
		e2e_fail "fi_rdmo_bench $* (client exit $rc, server exit $src)"
	fi
	cat "$E2E_TMP/client.out"
}


# fig OUT PATTERN: the number after PATTERN in the lines of OUT.
fig() { sed -n "s/^fi_rdmo_bench: $2 \([0-9.]*\).*/\1/p" "$1"; }

for i in $(seq "$REPS"); do
	rev=
	[ $((i % 2)) = 0 ] && rev=-r	# every other run: one-sided first
	run -i "$COUNT" -l "$LAT_COUNT" -w "$WINDOW" $rev > "$E2E_TMP/run.$i"
	sed 's/^/  /' "$E2E_TMP/run.$i" | grep -v 'provider\|warm-up'
	o="$E2E_TMP/run.$i"
	fig "$o" "append, $WINDOW in flight: .* in [0-9.]* s:" >> "$E2E_TMP/rate.append"
	fig "$o" "onesided, $WINDOW in flight: .* in [0-9.]* s:" >> "$E2E_TMP/rate.onesided"
	fig "$o" "append, 1 in flight: .*: median" >> "$E2E_TMP/lat.append"
	fig "$o" "onesided, 1 in flight: .*: median" >> "$E2E_TMP/lat.onesided"
	fig "$o" "append vs onesided, $WINDOW in flight:" >> "$E2E_TMP/ratio.rate"
	fig "$o" "append vs onesided, 1 in flight:" >> "$E2E_TMP/ratio.lat"
done
for f in rate.append rate.onesided lat.append lat.onesided ratio.rate \
	 ratio.lat; do
	[ "$(wc -l < "$E2E_TMP/$f")" = "$REPS" ] ||
		e2e_fail "$f: $(wc -l < "$E2E_TMP/$f") figures of $REPS runs"
done
m() { median < "$E2E_TMP/$1"; }
printf "%-30s %14s %14s %8s\n" "median of $REPS" append onesided ratio
printf "%-30s %14s %14s %8s\n" "8 B, $WINDOW in flight (appends/s)" \
	"$(m rate.append)" "$(m rate.onesided)" "$(m ratio.rate)"
printf "%-30s %14s %14s %8s\n" "8 B, 1 in flight (us/append)" \
	"$(m lat.append)" "$(m lat.onesided)" "$(m ratio.lat)"
echo "(ratios: the median of each run's append/onesided rate, and of its"
echo " onesided/append time: above 1, the offloaded append is ahead)"
echo "bench: rdmo_append_rate_$WINDOW $(m rate.append) ops/s"
echo "bench: rdmo_onesided_rate_$WINDOW $(m rate.onesided) ops/s"
echo "bench: rdmo_append_vs_onesided_$WINDOW $(m ratio.rate) ratio"
echo "bench: rdmo_append_lat_1 $(m lat.append) us"
echo "bench: rdmo_onesided_lat_1 $(m lat.onesided) us"
echo "bench: rdmo_append_vs_onesided_lat_1 $(m ratio.lat) ratio"
