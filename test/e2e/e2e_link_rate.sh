#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Congestion control's link rate (fi_uet(7), FI_UET_LINK_MBPS): by default
# what the interface's driver reports (uet_cc_link_mbps). A veth pair's
# driver reports a nominal 10000 Mbit/s, which says nothing of a rate, so:
#  a. by default uet warns once that it is nominal and that NSCC learns
#     the rate from the fabric's marks, up to 100000 Mbit/s (the spec's
#     reference link); unmarked here, it stays there, and NSCC's largest
#     window is 1.5 x that rate x the base RTT: in every sample of its
#     congestion trace (FI_UET_TRACE) LINK_MBPS is 100000 and
#     MAX_WND_BYTES / BASE_RTT_NS 18.75 B/ns, unless the floor of 4
#     packets is larger (e2e_cc c. has marks, and a rate learnt);
#  b. FI_UET_LINK_MBPS=40000: said at FI_LOG_LEVEL=info, LINK_MBPS is
#     40000 and the ratio 7.5 B/ns.
# uet_bw writes 64 KiB 2000 times from A to B; the data is checked by the
# program's completions, the figures by the trace.
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"

# bw TAG ENV...: uet_bw's server on B and client on A, the client traced
# into $E2E_TMP/TAG.trace, ENV added to both; output in TAG.{srv,cli}.
bw() {
	local tag=$1 port=$((45000 + RANDOM % 1000)) s rc=0
	shift
	e2e_in B env FI_PROVIDER=uet "$@" timeout 60 "$B/uet_bw" -s \
		-a "$IP_B" -p "$port" -n 65536 > "$E2E_TMP/$tag.srv" 2>&1 &
	s=$!
	sleep 0.3
	e2e_in A env FI_PROVIDER=uet FI_UET_TRACE="$E2E_TMP/$tag.trace" \
		FI_UET_TRACE_US=500 "$@" timeout 60 "$B/uet_bw" -c "$IP_B" \
		-p "$port" -n 65536 -i 2000 > "$E2E_TMP/$tag.cli" 2>&1 || rc=$?
	wait "$s" || rc=$?
	[ "$rc" = 0 ] && grep -q "MB/s" "$E2E_TMP/$tag.cli" ||
		e2e_fail "$tag: uet_bw failed ($rc): $(cat "$E2E_TMP/$tag".*)"
}

# ratio TAG WANT MBPS: every trace sample has LINK_MBPS MBPS, and those
# above the floor of 4 packets (8192-B payloads here) MAX_WND_BYTES /
# BASE_RTT_NS within 2% of WANT (B/ns); prints how many samples were
# checked, fails with the first that is not.
ratio() {
	local why
	why=$(awk -v want="$2" -v mbps="$3" '
		/^#/ { next }
		$11 != mbps {
			print "sample " NR ": LINK_MBPS " $11 ", not " mbps
			exit 1
		}
		$8 > 0 && $9 > 4 * 8192 {
			n++
			r = $9 / $8
			if (r < want * 0.98 || r > want * 1.02) {
				print "sample " NR ": " $9 " B over " $8 \
					" ns is " r " B/ns, not " want
				exit 1
			}
		}
		END { if (!n) print "no sample above the floor"; else print n }' \
		"$E2E_TMP/$1.trace")
	[[ "$why" =~ ^[0-9]+$ ]] || e2e_fail "$1: $why"
	echo "$why"
}

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done

bw default FI_LOG_LEVEL=warn
n=$(grep -c "a veth device, whose 10000 Mbit/s is nominal: congestion control learns the rate from the fabric's marks, up to 100000 Mbit/s" \
	"$E2E_TMP/default.cli")
[ "$n" = 1 ] || e2e_fail "a: the nominal speed said $n times (want 1):" \
	"$(grep -i "link\|nominal" "$E2E_TMP/default.cli")"
k=$(ratio default 18.75 100000)
e2e_ok "a: veth's nominal speed: warned once, up to 100000 Mbit/s learnt" \
	"(unmarked: all of it), largest window 1.5 x rate x base RTT in $k" \
	"samples"

bw set FI_UET_LINK_MBPS=40000 FI_LOG_LEVEL=info
grep -q "link rate 40000 Mbit/s (FI_UET_LINK_MBPS)" "$E2E_TMP/set.cli" ||
	e2e_fail "b: FI_UET_LINK_MBPS not said at info:" \
		"$(grep -i "link" "$E2E_TMP/set.cli" | head -3)"
k=$(ratio set 7.5 40000)
e2e_ok "b: FI_UET_LINK_MBPS=40000: said, largest window 1.5 x rate x" \
	"base RTT in $k samples"
