#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# A peer whose next hop the kernel cannot resolve: a write to an on-link
# address nobody holds fails "No route to host" (FI_EHOSTUNREACH) after
# the engine's 3 s; with the kernel's neighbour table full (one table for
# every namespace of the host, net.ipv4.neigh.default.gc_thresh3 entries:
# 67 namespaces of a large all-to-all filled it, issue 39) it fails
# FI_ENOBUFS with a text and a warning that name the setting, not as an
# unreachable host (that part by hand: E2E_NEIGH_FULL=1, see below). The
# writer runs as nobody. The table is made full by gc_thresh3=0 for the
# run, put back at exit.
source "$(dirname "$0")/e2e_lib.sh"
e2e_setup 9000
e2e_stage "$B/fi_scale_check" "$B/libuet-fi.so"
nd=net.ipv4.neigh.default
old2=$(sysctl -n $nd.gc_thresh2) old3=$(sysctl -n $nd.gc_thresh3)
trap 'sysctl -qw $nd.gc_thresh2="$old2" $nd.gc_thresh3="$old3"; e2e_cleanup' EXIT
e2e_in A "$B/uetctl" load "$IF_A" --mode skb >/dev/null

# write ADDR OUT: one 64 B write to ADDR as nobody; its output in OUT.
# Each case its own address: the first's entry (FAILED, maybe still
# referenced, so that a flush may leave it) would answer the second.
write() {
	e2e_in A setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		env HOME=/ FI_PROVIDER=uet FI_LOG_LEVEL=warn \
		FI_PROVIDER_PATH="$E2E_STAGE" "$E2E_STAGE/fi_scale_check" \
		-c "$1" -p 77 -n 1 -o 0 -t 20 >"$2" 2>&1 &&
		e2e_fail "a write to $1 succeeded"
	grep -q "1 endpoints wrote slots" "$2" || {
		tail -n 5 "$2" >&2
		e2e_fail "fi_scale_check did not end its write"
	}
}

write "${IP_A%.*}.99" "$E2E_TMP/normal"
grep -q "error completion: No route to host" "$E2E_TMP/normal" || {
	tail -n 5 "$E2E_TMP/normal" >&2
	e2e_fail "an unresolved host: no FI_EHOSTUNREACH"
}
! grep -q "gc_thresh3" "$E2E_TMP/normal" ||
	e2e_fail "an unresolved host blamed on the neighbour table"
e2e_ok "an on-link address nobody holds: FI_EHOSTUNREACH"

# The full case runs by hand only (E2E_NEIGH_FULL=1): the kernel's forced
# collection frees an entry whenever one on the host is failed or 5 s
# stale, whatever gc_thresh2 says, and every kick of ours asks again, so
# on a host that holds such entries (the one right after e2e_scale, in a
# clean clone's run, 2 runs of 2) the entry is made after all.
[ "${E2E_NEIGH_FULL:-0}" = 1 ] || exit 0
e2e_in A ip neigh flush all
# No room, and no forced collection that could make some (it runs only
# above gc_thresh2, whatever else the host holds).
sysctl -qw $nd.gc_thresh2=2147483647 $nd.gc_thresh3=0
write "${IP_A%.*}.98" "$E2E_TMP/full"
sysctl -qw $nd.gc_thresh2="$old2" $nd.gc_thresh3="$old3"
grep -q "error completion: No buffer space available (.*gc_thresh3" \
	"$E2E_TMP/full" || {
	tail -n 5 "$E2E_TMP/full" >&2
	e2e_fail "the neighbour table full: no FI_ENOBUFS naming it"
}
[ "$(grep -c "warn> peers unreachable: .*gc_thresh3" "$E2E_TMP/full")" = 1 ] || {
	tail -n 5 "$E2E_TMP/full" >&2
	e2e_fail "the neighbour table full: not one warning naming the setting"
}
e2e_ok "the kernel's neighbour table full: FI_ENOBUFS, one warning" \
	"naming net.ipv4.neigh.default.gc_thresh3"
