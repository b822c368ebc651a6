#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# MPI over uet with TSS (issue [T]): Open MPI's OFI MTL runs
# test/progs/mpi/mpi_check (ping-pong 0 B to 1 MiB verified, allreduce,
# alltoall) with 4 ranks, 2 per network namespace, every frame sealed: the
# services' key file puts JobID 0 (the ranks') in a secure domain (cluster
# mode). Two endpoints of one domain on each interface: the XDP program
# tells them apart by the sealed headers, read with the AES keystream
# (issue 40, uetd(8) Steering); only each sender stream's first frames
# reach a service, which hands them on. Ranks of one namespace seal for
# each other too.
#  b. the same job at 8 ranks per namespace (16 ranks, oversubscribed on
#     2 cores, yielding when idle: mpi_yield_when_idle), smaller sizes:
#     mpi_check passes, frames steered in XDP, and rank 0's latency to a
#     rank of the other namespace (the other 14 idle) beside a.'s.
# The latency partner of rank 0 is in the other namespace (-l).
MPI_TSS_PPN=${MPI_TSS_PPN:-8}
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/mpi_lib.sh"

KEYS="$E2E_TMP/tss.conf"
(umask 077; echo "sd 5 jobs 0 mode cluster active 0 key0 $(head -c 32 \
	/dev/urandom | od -An -tx1 | tr -d ' \n')" > "$KEYS")

# The rank namespaces' services, with the key file (mpi_lib.sh's, plus it).
mpi_rank_up() {
	local ns=${MPI_NS[$1 - 1]}
	ip -n "$ns" addr add "$MPI_NET.$1/24" dev "$MPI_IF"
	ip -n "$ns" link set "$MPI_IF" up
	ip netns exec "$ns" "$B/uetctl" load "$MPI_IF" --mode skb \
		--tss-keys "$KEYS" --tss-state "$E2E_TMP/state.$1" >/dev/null
}

# svc_stat I NAME: the service of rank namespace I's counter NAME.
svc_stat() {
	ip netns exec "${MPI_NS[$1 - 1]}" "$B/uetctl" stats "$MPI_IF" --json |
		sed -n "s/.*\"$2\": *\([0-9]*\).*/\1/p"
}

mpi_net_init bridge
mpi_rank_add
mpi_rank_add
MPI_PPN=2
out="$E2E_TMP/mpi.out"
rc=0
mpi_run uet 4 "$out" -l 2 2000 || rc=$?
if [ $rc != 0 ] || ! grep -q '^mpi_check: ok$' "$out"; then
	sed 's/^/  mpirun: /' "$out"
	e2e_fail "uet with TSS, 4 ranks: mpirun exited $rc"
fi
grep -qF "mpi_check: 4 ranks in 2 network namespaces (2 2)" "$out" ||
	e2e_fail "ranks not spread 2 and 2: $(grep spread "$out")"
for i in 1 2; do
	handed=$(svc_stat "$i" tss_handed_on)
	read_=$(svc_stat "$i" tss_read)
	[ "${read_:-0}" -gt 0 ] ||
		e2e_fail "namespace $i: no sealed header read in XDP"
	[ "${handed:-0}" -lt "$read_" ] ||
		e2e_fail "namespace $i: $handed frames handed on, $read_ read in XDP"
	[ "$(svc_stat "$i" tss_unsteerable)" = 0 ] ||
		e2e_fail "namespace $i: sealed frames its service could not steer"
done
e2e_ok "uet with TSS, 4 ranks in 2 namespaces (2 2): ping-pong, allreduce," \
	"alltoall checked; 8 B half round trip $(mpi_lat "$out") us;" \
	"$(svc_stat 1 tss_read) and $(svc_stat 2 tss_read) frames steered" \
	"in XDP, $(svc_stat 1 tss_handed_on) and $(svc_stat 2 tss_handed_on)" \
	"handed on by the services"
lat2=$(mpi_lat "$out")

# b. 8 ranks per namespace.
MPI_PPN=$MPI_TSS_PPN
np=$(( 2 * MPI_PPN ))
MPI_OPTS=(--mca mpi_yield_when_idle 1 -x FI_UET_MAX_RETRIES=100)
out="$E2E_TMP/mpi16.out"
r0=$(svc_stat 2 tss_read)
rc=0
mpi_run uet "$np" "$out" -m 262144 -r 50000 -a 2000 -l "$MPI_PPN" 1000 ||
	rc=$?
if [ $rc != 0 ] || ! grep -q '^mpi_check: ok$' "$out"; then
	sed 's/^/  mpirun: /' "$out"
	e2e_fail "uet with TSS, $np ranks: mpirun exited $rc"
fi
grep -qF "mpi_check: $np ranks in 2 network namespaces ($MPI_PPN $MPI_PPN)" \
	"$out" || e2e_fail "ranks not spread: $(grep spread "$out")"
read_=$(( $(svc_stat 2 tss_read) - r0 ))
[ "$read_" -gt 0 ] || e2e_fail "$np ranks: no sealed header read in XDP"
for i in 1 2; do
	u=$(svc_stat "$i" tss_unsteerable)
	[ "$u" = 0 ] || e2e_fail "$np ranks: $u sealed frames the service of" \
		"namespace $i could not steer ($(svc_stat "$i" tss_handed_on)" \
		"handed on, $(svc_stat "$i" tss_read) read in XDP," \
		"$(svc_stat "$i" tss_ep_closed) for endpoints just closed)"
done
e2e_ok "uet with TSS, $np ranks in 2 namespaces ($MPI_PPN $MPI_PPN, yielding):" \
	"ping-pong, allreduce, alltoall checked; $read_ frames steered in XDP" \
	"at namespace 2, $(svc_stat 1 tss_ep_closed) and" \
	"$(svc_stat 2 tss_ep_closed) dropped for endpoints just closed;" \
	"rank 0 to rank $MPI_PPN 8 B half round trip" \
	"$(mpi_lat "$out") us (2 ranks a namespace: $lat2 us)"
