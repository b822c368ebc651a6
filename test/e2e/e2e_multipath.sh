#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# uet across a routed fabric of 4 equal-cost paths (test/fabric/, topology
# (a): H1 - R1 =4 links of 400 Mbit/s= R2 - H2, ECMP on the 5-tuple):
#  a. one flow of 1 MiB fi_writes sprays over the links: every byte checked
#     by the target and read back, at least 3 of the 4 links used;
#  b. one link drops everything both ways 1 s into such a flow: the flow
#     leaves it and completes, every byte checked, no operation failed;
#     then the link comes back and the next flow uses it again;
#  c. messaging (tagged, multi-recv, rendezvous, completion levels) over
#     ordered (ROD, one path per PDC) and unordered PDCs, and the RMA
#     battery, across the routers;
#  d. Open MPI's mpi_check with a rank on each host, over uet.
E2E_NAME=e2e_multipath
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/../fabric/fabric_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
export FI_UET_IFACE=fab0
MTU=${E2E_MP_MTU:-9000}
CHECKS=${E2E_MP_CHECKS:-abcd}	# a subset runs only those
want() { [[ $CHECKS == *$1* ]]; }

fab_paths 4 400 262144 "$MTU"
fab_uet_load
fab_host_in 1 ping -q -c 2 -i 0.2 -W 2 "${FAB_IP[2]}" > /dev/null ||
	e2e_fail "H1 does not reach H2"

# soak NAME MIB [CMD...]: fi_soak's RMA stream of MIB MiB from H1 to H2
# (the server checks every byte, the client reads them back); CMD runs
# in the background meanwhile (an injected failure). Leaves the per-link
# byte deltas in $E2E_TMP/d.
soak() {
	local name=$1 mib=$2 port=$((46000 + RANDOM % 3000)) s rc=0 f=""
	shift 2
	fab_link_counters > "$E2E_TMP/c0"
	fab_host_in 2 env FI_PROVIDER=uet timeout 90 "$B/fi_soak" -s \
		-a "${FAB_IP[2]}" -p "$port" -T 80 > "$E2E_TMP/srv.out" 2>&1 &
	s=$!
	[ $# -gt 0 ] && { "$@" & f=$!; }
	fab_host_in 1 env FI_PROVIDER=uet FI_UET_STATS=1 timeout 90 "$B/fi_soak" \
		-c "${FAB_IP[2]}" -p "$port" -T 80 -m rma -M "$mib" \
		> "$E2E_TMP/cli.out" 2>&1 || rc=$?
	wait "$s" || rc=$((rc + 100))
	[ -z "$f" ] || wait "$f" || true
	fab_link_counters > "$E2E_TMP/c1"
	fab_counters_diff "$E2E_TMP/c0" "$E2E_TMP/c1" > "$E2E_TMP/d"
	grep -h "MB/s" "$E2E_TMP/cli.out" | sed 's/^/  /' || true
	echo "  initiator: $(for c in tx_req tx_retx retx_sack retx_rto \
		retx_probe retx_spurious ev_explored ev_retired pdc_failed; do
		printf '%s %s, ' "$c" "$(stat "$c")"; done)"
	fab_counters_show "$E2E_TMP/d"
	if [ $rc != 0 ] || ! grep -q "^fi_soak: server: all ok" "$E2E_TMP/srv.out"
	then
		sed 's/^/  server: /' "$E2E_TMP/srv.out" | tail -5
		sed 's/^/  client: /' "$E2E_TMP/cli.out" | tail -5
		why="$name: exit $rc"
		return 1
	fi
}

# stat NAME: the initiator's counter NAME in the last soak (FI_UET_STATS).
stat() { e2e_engine_stat "$E2E_TMP/cli.out" "$1"; }

# fwd_bytes LINK: bytes link LINK carried from R1 to R2 in the last soak.
fwd_bytes() { awk -v l="$1" '$1 == l && $2 == "fwd" { print $3 }' "$E2E_TMP/d"; }

# a. spraying
sprays() {
	soak "spray" 64 || return 1
	local used
	used=$(fab_links_used "$E2E_TMP/d" fwd 5)
	why="used $used links"
	[ "$used" -ge 3 ]
}
want a && e2e_check "a: one flow of 64 MiB in 1 MiB fi_writes, every byte checked, over 3 or more of 4 links" sprays

# b. a dead link, then the link back
kill_link() { sleep 1; fab_link_drop 2 both; }
survives() {
	local lost
	soak "dead link" 128 kill_link || return 1
	lost=$(awk '$1 == 2 { n += $8 } END { print n + 0 }' "$E2E_TMP/d")
	e2e_log "b: link 2 dropped $lost frames from 1 s on"
	why="link 2 dropped nothing: no failure was injected"
	[ "$lost" -gt 0 ] || return 1
	why="no entropy retired or a PDC failed: $(stat ev_retired) retired,"
	why+=" $(stat pdc_failed) failed"
	[ "$(stat ev_retired)" -gt 0 ] && [ "$(stat pdc_failed)" = 0 ]
}
want b && e2e_check "b: one flow of 128 MiB with link 2 dead from 1 s on: completes, every byte checked" survives
comes_back() {
	fab_link_restore 2
	soak "link back" 64 || return 1
	why="link 2 carried $(fwd_bytes 2) bytes of the next flow"
	[ "$(fwd_bytes 2)" -gt $(( 2 << 20 )) ]
}
want b && e2e_check "b: the link restored: the next flow uses it again" comes_back

# c. messaging and RMA across the routers
pair() {	# pair PROG NAME ARGS...: PROG's server on H2, client on H1
	local prog=$1 name=$2 port=$((48000 + RANDOM % 3000)) s rc=0
	shift 2
	fab_host_in 2 env FI_PROVIDER=uet FI_UET_PROGRESS_IDLE_US=0 \
		timeout 120 "$B/$prog" -s -a "${FAB_IP[2]}" -p "$port" "$@" \
		> "$E2E_TMP/srv.out" 2>&1 &
	s=$!
	fab_host_in 1 env FI_PROVIDER=uet timeout 120 "$B/$prog" \
		-c "${FAB_IP[2]}" -p "$port" "$@" > "$E2E_TMP/cli.out" 2>&1 ||
		rc=$?
	wait "$s" || rc=$((rc + 100))
	why="$name: exit $rc: $(grep -h "FAIL\|fail\|error" "$E2E_TMP/srv.out" \
		"$E2E_TMP/cli.out" | head -3 | tr '\n' ' ')"
	[ $rc = 0 ]
}
msg_ok() {
	pair fi_msg_check "$@" && grep -q "server: all ok" "$E2E_TMP/srv.out" &&
		grep -q "client: all ok" "$E2E_TMP/cli.out"
}
want c && e2e_check "c: messaging over ordered PDCs (FI_ORDER_SAS: ROD)" msg_ok rod
want c && e2e_check "c: messaging over unordered PDCs (RUD, sprayed)" msg_ok rud -U
rma_ok() {
	pair fi_rma_check rma -T 60 &&
		cat "$E2E_TMP/srv.out" "$E2E_TMP/cli.out" > "$E2E_TMP/rma.out" &&
		grep -q "server: 0 failed" "$E2E_TMP/rma.out" &&
		grep -q "67108864 B at offset 0: .* ok" "$E2E_TMP/rma.out"
}
want c && e2e_check "c: the RMA battery (64 MiB writes and reads, errors)" rma_ok

# d. MPI: one rank on each host, mpirun on H1 (as root: e2e_mpi runs them
# unprivileged), ranks started in the hosts' namespaces by the agent.
mpi_ok() {
	local agent
	agent="$(cd "$(dirname "$0")/../../tools" && pwd)/uet-netns-agent"
	command -v mpirun > /dev/null || { why="mpirun not found"; return 1; }
	# The hosts' names resolve without DNS (fab_names): mpirun asked the
	# machine's resolver through the fabric and waited 44-60 s a job.
	fab_names
	fab_host_in 1 env -u UET_BPFFS -u LIBXDP_BPFFS timeout -k 5 60 \
		mpirun --allow-run-as-root \
		--host "${FAB_HOSTS[1]}:1,${FAB_HOSTS[2]}:1" -np 2 \
		--mca plm_rsh_agent "$agent" --mca plm_rsh_no_tree_spawn 1 \
		--mca oob_tcp_if_include 10.100.0.0/16 --bind-to none \
		--mca btl self --mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_include uet -x FI_PROVIDER=uet \
		-x FI_PROVIDER_PATH -x FI_UET_IFACE "$B/mpi_check" \
		> "$E2E_TMP/mpi.out" 2>&1
	why="$(tail -3 "$E2E_TMP/mpi.out" | tr '\n' ' ')"
	grep -q "mpi_check: ok" "$E2E_TMP/mpi.out"
}
want d && e2e_check "d: mpi_check, a rank on each side of the routers, over uet" mpi_ok
e2e_checks_done
