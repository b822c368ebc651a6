#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# MPI over uet (issues 7 and 12): Open MPI's OFI MTL runs test/progs/mpi/mpi_check
# (ping-pong 0 B to 1 MiB verified, allreduce, alltoall) with 2 and then 4
# ranks, one per network namespace, the namespaces joined by a bridge,
# mpirun launching through tools/uet-netns-agent; then with 8 ranks, 4 per
# namespace in two of them (one interface and its device service serve 4
# processes), mpirun and every rank run as an unprivileged user (nobody,
# no capability: mpi_check -u checks each rank and its launcher). Each over
# FI_PROVIDER=uet and, as the reference that proves the harness, over tcp.
# The uet runs need what the MTL asks fi_getinfo for; while fi_info says
# uet lacks it they are skipped with a SKIP line (a NOTE under CI=true),
# and only then.
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/mpi_lib.sh"

# check PROVIDER NP: one mpi_check job of NP ranks, MPI_PPN per namespace,
# unprivileged after mpi_user_init; it must end "mpi_check: ok", having
# found the ranks spread so, and unprivileged if they should be.
check() {
	local prov=$1 np=$2 out="$E2E_TMP/mpi.$1.$2" rc=0 note="" who=""
	local nns spread t0=$SECONDS
	local -a args=()
	nns=$(( np / MPI_PPN ))
	spread="$np ranks in $nns network namespaces ($(printf "$MPI_PPN %.0s" \
		$(seq "$nns") | sed 's/ $//'))"
	if [ -n "$MPI_UDIR" ]; then
		args=(-u "$MPI_UID")
		who=", as uid $MPI_UID with no capability"
	fi
	mpi_run "$prov" "$np" "$out" "${args[@]}" 2000 || rc=$?
	if [ $rc != 0 ] || ! grep -q '^mpi_check: ok$' "$out" ||
	   ! grep -qF "mpi_check: $spread" "$out" ||
	   { [ -n "$MPI_UDIR" ] && ! grep -q "run as uid $MPI_UID with no" \
		"$out"; }; then
		sed 's/^/  mpirun: /' "$out"
		e2e_fail "$prov, $np ranks: mpirun exited $rc" \
			"after $MPI_RETRIES timed-out starts"
	fi
	[ "$MPI_RETRIES" = 0 ] ||
		note=" ($MPI_RETRIES start(s) hung and were retried)"
	e2e_ok "$prov, $spread$who: ping-pong 0 B to 1 MiB, allreduce," \
		"alltoall checked; 8 B half round trip of ranks 0 and 1" \
		"$(mpi_lat "$out") us, $(( SECONDS - t0 )) s$note"
}

# check_uet NP: check uet NP, or say why it cannot run yet.
check_uet() {
	if [ -n "$UET_MISSING" ]; then
		local word=SKIP
		[ "${CI:-}" = true ] && word=NOTE
		echo "e2e: $E2E_NAME: $word: provider lacks ${UET_MISSING% }" \
			"(Open MPI's OFI MTL asks for $MPI_MTL_CAPS); uet," \
			"$1 ranks not run"
		return 0
	fi
	check uet "$1"
}

mpi_net_init bridge
mpi_rank_add
mpi_rank_add
UET_MISSING=$(mpi_prov_missing uet)
check tcp 2
check_uet 2
mpi_rank_add
mpi_rank_add
check tcp 4
check_uet 4
# Issue 12: 4 ranks per namespace (ranks 0-3 in the first, 4-7 in the
# second), nothing privileged from mpirun down.
mpi_user_init nobody
MPI_PPN=4
check tcp 8
check_uet 8
