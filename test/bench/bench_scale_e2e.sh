#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Issue 39's figures of many real endpoints (make bench): test/e2e/e2e_scale.sh
# at bench size, its lines turned into `bench:` lines.
# - scale_e2e_peers_served: initiator endpoints (67 namespaces x 62, each
#   namespace a device service, every process waiting in fi_cq_sread) whose
#   64 B writes into one target endpoint all landed and were verified, the
#   target holding them all as peers at once; scale_e2e_incast_s the time
#   from the go (the go file's time) to the last slot, scale_e2e_setup_s
#   the set-up before it. The target's 512 PDCs turn over by early closes.
# - the all-to-all of 512 endpoints (32 namespaces x 16), 4 KiB each way,
#   verified: scale_e2e_a2a_s, its time; scale_e2e_a2a_line_ratio, that time
#   over the time the bytes a namespace sends take at its link's rate (the
#   veth's nominal speed, as ethtool reports it: 10 Gbit/s; the slowest
#   namespace's bytes); scale_e2e_a2a_pdcs_per_pair, PDCs each end opened
#   per ordered pair of endpoints in different namespaces (1: none reopened;
#   992 wanted an endpoint against 512). Two cores run all 32 processes:
#   the time is their CPU's, far from the links' (fi_uet(7) LIMITS).
# BENCH_SMOKE=1: 4 x 62 peers and 4 x 8 endpoints, to check it runs.
set -euo pipefail
B=${B:-build}
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${BENCH_SMOKE:-}" ] && [ "$BENCH_SMOKE" != 0 ]; then
	clients=4 a2a_ns=4 a2a_per=8
else
	clients=${SCALE_CLIENTS:-67} a2a_ns=${SCALE_A2A_NS:-32}
	a2a_per=${SCALE_A2A_PER_NS:-16}
fi
len=4096 link_bps=10000000000
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# scale_part PARTS CLIENTS: e2e_scale.sh's parts, its output added to $out.
# Apart: the incast's neighbour entries are gone with its namespaces (the
# kernel's neighbour table is one for the host, 1024 entries by default:
# those and the all-to-all's 32 x 31 filled it, fi_uet(7) LIMITS).
scale_part() {
	SCALE_PARTS=$1 SCALE_CLIENTS=$2 SCALE_A2A_NS=$a2a_ns \
		SCALE_A2A_PER_NS=$a2a_per SCALE_A2A_LEN=$len SCALE_TIMEOUT=300 \
		B=$B bash "$here/../e2e/e2e_scale.sh" >>"$out" 2>&1 || {
		grep -v '^uet_engine_stats' "$out" | tail -n 20 >&2
		echo "bench_scale_e2e: e2e_scale.sh failed" >&2
		exit 1
	}
}
scale_part a "$clients"
scale_part b 1
a=$(grep 'e2e_scale: incast:' "$out")
b=$(grep 'e2e_scale: all-to-all:' "$out")
peers=$(sed -n 's/.*incast: \([0-9]*\) initiator endpoints.*/\1/p' <<<"$a")
total=$(( a2a_ns * a2a_per ))
secs=$(sed -n 's/.*verified, in \([0-9.]*\) s[ ;].*/\1/p' <<<"$b")
echo "bench: scale_e2e_peers_served $peers peers"
echo "bench: scale_e2e_setup_s $(sed -n 's/.* set up in \([0-9.]*\) s.*/\1/p' \
	<<<"$a") s"
echo "bench: scale_e2e_incast_s $(sed -n \
	's/.*every slot verified (\([0-9.]*\) s).*/\1/p' <<<"$a") s"
echo "bench: scale_e2e_a2a_endpoints $total endpoints"
echo "bench: scale_e2e_a2a_s $secs s"
# A namespace sends a2a_per x (total - a2a_per) writes over its link.
awk -v s="$secs" -v n="$a2a_per" -v t="$total" -v l="$len" \
	-v r="$link_bps" 'BEGIN { printf "bench: scale_e2e_a2a_line_ratio " \
	"%.1f x\n", s / (n * (t - n) * l * 8 / r) }'
echo "bench: scale_e2e_a2a_pdcs_per_pair $(sed -n \
	's/.*between namespaces: \([0-9.]*\) a pair.*/\1/p' <<<"$b") PDCs"
