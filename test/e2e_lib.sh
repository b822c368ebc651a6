# SPDX-License-Identifier: BSD-2-Clause
# Shared helpers for the end-to-end tests: two network namespaces joined by
# a veth pair, unique names per run, and cleanup of everything on exit.
# Source it, then call e2e_setup; it sets NS_A NS_B IF_A IF_B IP_A IP_B.

set -euo pipefail
B=${B:-build}
E2E_NAME=${E2E_NAME:-$(basename "$0" .sh)}
E2E_ID="$$"
E2E_TMP=$(mktemp -d)

e2e_log() { echo "e2e: $E2E_NAME: $*"; }
e2e_fail() { echo "e2e: $E2E_NAME: FAIL: $*" >&2; exit 1; }
e2e_ok() { echo "e2e: $E2E_NAME: $* ok"; }

# Root is needed; without it skip, except under CI where it fails.
e2e_require_root() {
	if [ "$(id -u)" != 0 ]; then
		[ "${CI:-}" = true ] && e2e_fail "needs root (CI=true)"
		echo "e2e: $E2E_NAME: SKIP (needs root)"
		exit 0
	fi
}

e2e_cleanup() {
	set +e
	for ns in ${NS_A:-} ${NS_B:-}; do
		for ifc in $(ip -n "$ns" -o link show 2>/dev/null |
			     awk -F': ' '{print $2}' | cut -d@ -f1); do
			ip netns exec "$ns" "$B/uetctl" unload "$ifc" \
				>/dev/null 2>&1
		done
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	umount "$E2E_TMP/bpffs" 2>/dev/null
	rm -rf "$E2E_TMP"
}

# e2e_setup [MTU]: namespaces, veth pair, IPv4 and IPv6 addresses.
e2e_setup() {
	local mtu=${1:-1500} n=$(( $$ % 200 + 20 ))
	e2e_require_root
	trap e2e_cleanup EXIT
	# A bpffs of our own: `ip netns exec` hides /sys/fs/bpf (see
	# dev/uet_xdp_ctl.h), and our pins then vanish with the test.
	mkdir -p "$E2E_TMP/bpffs"
	mount -t bpf bpf "$E2E_TMP/bpffs"
	export UET_BPFFS="$E2E_TMP/bpffs" LIBXDP_BPFFS="$E2E_TMP/bpffs"
	NS_A="uet-t$E2E_ID-a"
	NS_B="uet-t$E2E_ID-b"
	IF_A=ueta0
	IF_B=uetb0
	IP_A="10.77.$n.1"
	IP_B="10.77.$n.2"
	IP6_A="fd75:e7:$n::1"
	IP6_B="fd75:e7:$n::2"
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip -n "$NS_A" link add "$IF_A" mtu "$mtu" type veth peer name "$IF_B" \
		netns "$NS_B" mtu "$mtu"
	for side in A B; do
		local ns=NS_$side ifc=IF_$side ip=IP_$side ip6=IP6_$side
		ip -n "${!ns}" link set lo up
		ip -n "${!ns}" addr add "${!ip}/24" dev "${!ifc}"
		ip -n "${!ns}" addr add "${!ip6}/64" dev "${!ifc}" nodad
		ip -n "${!ns}" link set "${!ifc}" up
	done
}

# Runs a command in namespace A or B: e2e_in A cmd...
e2e_in() {
	local ns=NS_$1
	shift
	ip netns exec "${!ns}" "$@"
}

# e2e_as_nobody A|B CMD...: CMD in that namespace as nobody (uid and gid
# 65534), with no supplementary groups and no capabilities.
e2e_as_nobody() {
	local side=$1
	shift
	e2e_in "$side" setpriv --reuid=65534 --regid=65534 --clear-groups \
		-- env HOME=/ "$@"
}
