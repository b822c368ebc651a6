#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The main job, on an embedded default: two network namespaces joined by a
# veth pair (MTU 9000, so Payload MTU 8192), the XDP program loaded on both
# ends with uetctl, and the seed's example run with FI_PROVIDER=uet: JobID
# 101, the server at PIDonFEP 2; the client fi_writedata()s 16 KiB (remote
# CQ data 12, the seed's bucket id) into the server's registered buffer, two
# packets on the wire, and the server checks it; then a short bandwidth run.
# Everything it creates is removed when it ends.
# Environment: B (build dir), DEMO_BYTES, DEMO_MTU.
set -euo pipefail
B=${B:-build}
BYTES=${DEMO_BYTES:-16384}
MTU=${DEMO_MTU:-9000}
id=$$
NS_A="uet-demo$id-a" NS_B="uet-demo$id-b"
IP_A=10.99.$((id % 250)).1 IP_B=10.99.$((id % 250)).2
tmp=$(mktemp -d)

say() { echo "demo: $*"; }
cleanup() {
	set +e
	ip netns exec "$NS_A" "$B/uetctl" unload demo-a >/dev/null 2>&1
	ip netns exec "$NS_B" "$B/uetctl" unload demo-b >/dev/null 2>&1
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	umount "$tmp/bpffs" 2>/dev/null
	rm -rf "$tmp"
}
[ "$(id -u)" = 0 ] || { echo "demo: run as root (it creates namespaces)" >&2; exit 1; }
trap cleanup EXIT

say "namespaces $NS_A ($IP_A) and $NS_B ($IP_B), veth MTU $MTU"
ip netns add "$NS_A"
ip netns add "$NS_B"
ip -n "$NS_A" link add demo-a mtu "$MTU" type veth peer name demo-b \
	netns "$NS_B" mtu "$MTU"
ip -n "$NS_A" addr add "$IP_A/24" dev demo-a
ip -n "$NS_B" addr add "$IP_B/24" dev demo-b
for ns in "$NS_A" "$NS_B"; do
	ip -n "$ns" link set lo up
done
ip -n "$NS_A" link set demo-a up
ip -n "$NS_B" link set demo-b up
# ip netns exec hides /sys/fs/bpf: share pins through a bpffs of our own.
mkdir "$tmp/bpffs"
mount -t bpf bpf "$tmp/bpffs"
export UET_BPFFS="$tmp/bpffs" LIBXDP_BPFFS="$tmp/bpffs"

say "loading the XDP program"
ip netns exec "$NS_A" "$B/uetctl" load demo-a --mode skb
ip netns exec "$NS_B" "$B/uetctl" load demo-b --mode skb

export FI_PROVIDER=uet FI_PROVIDER_PATH="$(cd "$B" && pwd)" FI_UET_JOB_ID=101
say "FI_PROVIDER=uet, JobID 101: server (PIDonFEP 2) in $NS_B, client in $NS_A"
say "the seed's example: fi_writedata of $BYTES bytes"
ip netns exec "$NS_B" timeout 60 "$B/uet_write" -s -a "$IP_B" -S 2 -n "$BYTES" -d &
server=$!
ip netns exec "$NS_A" timeout 60 "$B/uet_write" -c "$IP_B" -S 2 -n "$BYTES" -d
wait "$server"
say "a short bandwidth run: 500 writes of 1 MiB"
ip netns exec "$NS_B" timeout 60 "$B/uet_bw" -s -a "$IP_B" -S 2 -n 1048576 >/dev/null &
server=$!
ip netns exec "$NS_A" timeout 60 "$B/uet_bw" -c "$IP_B" -S 2 -n 1048576 -i 500
wait "$server"
say "XDP counters on the client's side:"
ip netns exec "$NS_A" "$B/uetctl" stats demo-a
say "ok"
