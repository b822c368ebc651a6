#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark: one flow across an emulated fabric of 4 equal-cost paths
# (test/fabric/fabric_lib.sh, topology (a): H1 - R1 =4 links= R2 - H2),
# each link 400 Mbit/s each way through a tbf queue of 256 KiB (tail drop,
# no ECN: a switch port's real queue and real drops), MTU 9000. uet_bw's
# 1 MiB fi_writes (64 in flight) over FI_PROVIDER=uet, then the same
# program over FI_PROVIDER=tcp, alternated, REPS times (default 3).
# Medians: the flow's Mbit/s (what uet_bw reports), its share of the sum
# of the 4 links' rates, and how many links it used (links that carried
# more than 5% of its bytes in its direction). One flow of either takes
# one path today: the share of the sum is at most 1/4 until the flow is
# sprayed over several. Also shown, not judged: the frames the queues
# dropped, and "wire": the bytes the links carried that way over the
# bytes written (headers, retransmissions; below 1 for tcp, whose write
# completes once its socket took the data: what the socket still held
# when the server left never crossed, and tcp's figure is that much high).
E2E_NAME=bench_fabric
source "$(dirname "$0")/../e2e/e2e_lib.sh"
source "$(dirname "$0")/../fabric/fabric_lib.sh"
REPS=${REPS:-3}
ITERS=${ITERS:-150}	# 1 MiB writes a run: 3 s at one link's rate
LINKS=4 RATE=400 BUF=262144 MTU=9000
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

fab_paths "$LINKS" "$RATE" "$BUF" "$MTU"
fab_uet_load
fab_host_in 1 ping -q -c 2 -i 0.2 -W 2 "${FAB_IP[2]}" > /dev/null ||
	e2e_fail "H1 does not reach H2"

# run PROV: one uet_bw run over PROV; appends its Mbit/s, links used and
# drops to $E2E_TMP/{mbit,links,drops}.PROV and prints its links.
run() {
	local prov=$1 port=$((47000 + RANDOM % 2000)) s out mbs
	fab_link_counters > "$E2E_TMP/c0"
	fab_host_in 2 env FI_PROVIDER="$prov" FI_UET_IFACE=fab0 \
		FI_TCP_IFACE=fab0 timeout 120 "$B/uet_bw" -s -a "${FAB_IP[2]}" \
		-p "$port" -n 1048576 $FAB_WAIT > /dev/null 2>&1 &
	s=$!
	out=$(fab_host_in 1 env FI_PROVIDER="$prov" FI_UET_IFACE=fab0 \
		FI_TCP_IFACE=fab0 timeout 120 "$B/uet_bw" -c "${FAB_IP[2]}" \
		-p "$port" -n 1048576 -i "$ITERS" $FAB_WAIT 2>&1) ||
		e2e_fail "uet_bw over $prov: $out"
	wait "$s" 2>/dev/null || true	# a server may fail once its client left
	fab_link_counters > "$E2E_TMP/c1"
	fab_counters_diff "$E2E_TMP/c0" "$E2E_TMP/c1" > "$E2E_TMP/d"
	mbs=$(sed -n 's/^uet_bw: .*: \([0-9.]*\) MB\/s.*/\1/p' <<< "$out")
	[ -n "$mbs" ] || e2e_fail "uet_bw over $prov: $out"
	awk -v m="$mbs" 'BEGIN { printf "%.1f\n", m * 8 }' >> "$E2E_TMP/mbit.$prov"
	fab_links_used "$E2E_TMP/d" fwd 5 >> "$E2E_TMP/links.$prov"
	awk '$2 == "fwd" { n += $5 } END { print n + 0 }' "$E2E_TMP/d" \
		>> "$E2E_TMP/drops.$prov"
	awk -v w=$(( ITERS << 20 )) '$2 == "fwd" { n += $3 }
		END { printf "%.3f\n", n / w }' "$E2E_TMP/d" >> "$E2E_TMP/wire.$prov"
	echo "$prov: $(tail -1 "$E2E_TMP/mbit.$prov") Mbit/s," \
		"links (fwd bytes): $(awk '$2 == "fwd" { printf "%s:%d ", $1, $3 }' \
		"$E2E_TMP/d")drops $(tail -1 "$E2E_TMP/drops.$prov")"
}


echo "fabric: $LINKS links of $RATE Mbit/s each way, tbf buffer $BUF B," \
	"MTU $MTU; tcp congestion control" \
	"$(fab_host_in 1 sysctl -n net.ipv4.tcp_congestion_control)"
for _ in $(seq "$REPS"); do
	run uet
	run tcp
done
sum=$(( LINKS * RATE ))
printf "%-28s %10s %10s\n" "median of $REPS" uet tcp
for m in mbit links drops wire; do
	printf "%-28s %10s %10s\n" "$m" "$(median < "$E2E_TMP/$m.uet")" \
		"$(median < "$E2E_TMP/$m.tcp")"
done
for prov in uet tcp; do
	mbit=$(median < "$E2E_TMP/mbit.$prov")
	echo "bench: fabric4_${prov}_mbit_per_s $mbit Mbit/s"
	awk -v m="$mbit" -v s="$sum" -v p="$prov" 'BEGIN {
		printf "bench: fabric4_%s_share_of_sum %.3f ratio\n", p, m / s }'
	echo "bench: fabric4_${prov}_links_used $(median < "$E2E_TMP/links.$prov") links"
done
