#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Random kills during repeated MPI_Allreduce (issue [R]): Open MPI's OFI
# MTL over uet, 4 ranks, one per network namespace (a bridge between them,
# mpirun launching through tools/uet-netns-agent, as e2e_mpi.sh), run
# test/progs/mpi/mpi_allreduce_loop (every element of every sum checked). Once
# every rank loops, kill -9 a random rank at a random moment: the job must
# end, with a failure, within MPI_KILL_BOUND_S of the kill (Open MPI
# aborting the job counts as clean) and leave no rank, orted or mpirun
# behind. MPI_KILL_TRIALS times (default 4), each with another victim; a
# first run without a kill shows the loop passes on its own.
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/mpi_lib.sh"
MPI_KILL_BOUND_S=${MPI_KILL_BOUND_S:-30}
MPI_KILL_TRIALS=${MPI_KILL_TRIALS:-4}
NP=4


# leftovers: the processes of the namespaces other than device services.
leftovers() {
	local ns pid
	for ns in "${MPI_NS[@]}"; do
		for pid in $(ip netns pids "$ns"); do
			[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = uetd ] ||
				echo "$pid($(cat "/proc/$pid/comm" 2>/dev/null))"
		done
	done
}

# start SECONDS: the loop in the background as root, mpirun in the first
# namespace with mpi_run's arguments (not mpi_run itself: after a timeout it
# kills what is left, which here must be seen); bounded by timeout. Sets
# JOB and OUT.
start() {
	local hosts
	hosts=$(printf "%s:1," "${MPI_NS[@]:0:NP}")
	OUT="$E2E_TMP/mpi.$RANDOM"
	timeout -k 5 $(( $1 + 30 )) ip netns exec "${MPI_NS[0]}" \
		env -u UET_BPFFS -u LIBXDP_BPFFS mpirun --allow-run-as-root \
		--host "${hosts%,}" -np "$NP" \
		--mca plm_rsh_agent "$MPI_AGENT" \
		--mca plm_rsh_no_tree_spawn 1 \
		--mca oob_tcp_if_include "$MPI_NET.0/24" \
		--bind-to none --mca btl self \
		--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include uet \
		-x FI_PROVIDER=uet -x FI_PROVIDER_PATH -x FI_UET_IFACE="$MPI_IF" \
		"$B/mpi_allreduce_loop" "$1" 64 > "$OUT" 2>&1 &
	JOB=$!
}

# wait_looping: every rank printed "looping" (30 s at most); 1 when no
# rank started at all (the launcher hung: mpi_lib.sh's note on mpi_run).
wait_looping() {
	for _ in $(seq 300); do
		[ "$(grep -c '^mpi_allreduce_loop: rank [0-9]* looping' \
			"$OUT")" = "$NP" ] && return 0
		kill -0 "$JOB" 2>/dev/null ||
			e2e_fail "the job ended before looping: $(cat "$OUT")"
		sleep 0.1
	done
	grep -q "^mpi_allreduce_loop: rank [0-9]* pid" "$OUT" && 
		e2e_fail "not every rank loops after 30 s: $(cat "$OUT")"
	return 1
}

# launch SECONDS: start, and wait until every rank loops; a start that
# hung before any rank ran is tried again, MPI_TRIES (3) in all, and
# counted in RETRIES.
launch() {
	local try
	for try in $(seq "$MPI_TRIES"); do
		start "$1"
		wait_looping && return 0
		RETRIES=$(( RETRIES + 1 ))
		kill "$JOB" 2>/dev/null || true
		wait "$JOB" 2>/dev/null || true
		mpi_kill_jobs
	done
	e2e_fail "$MPI_TRIES starts hung before any rank ran"
}

# trial N: kill one rank, chosen at random, at a random moment.
trial() {

	local rank pid t0 dt rc=0 left
	launch 120
	sleep "$(( RANDOM % 2 )).$(( RANDOM % 10 ))"
	rank=$(( (FIRST_VICTIM + $1) % NP ))	# each rank in turn
	pid=$(sed -n "s/^mpi_allreduce_loop: rank $rank pid \([0-9]*\)/\1/p" \
		"$OUT")
	[ -n "$pid" ] || e2e_fail "trial $1: no pid of rank $rank: $(cat "$OUT")"
	t0=$(now_ms)
	kill -9 "$pid"
	# The job must end within the bound; past it, it hangs.
	for _ in $(seq $(( MPI_KILL_BOUND_S * 10 ))); do
		kill -0 "$JOB" 2>/dev/null || break
		sleep 0.1
	done
	dt=$(( $(now_ms) - t0 ))
	if kill -0 "$JOB" 2>/dev/null; then
		left=$(leftovers)
		mpi_kill_jobs
		wait "$JOB" 2>/dev/null || true
		sed 's/^/  mpirun: /' "$OUT" | tail -20
		e2e_fail "trial $1: rank $rank killed: the job still runs" \
			"after $dt ms (processes: $left)"
	fi
	wait "$JOB" || rc=$?
	[ "$rc" != 0 ] ||
		e2e_fail "trial $1: rank $rank killed, the job exited 0:" \
			"$(cat "$OUT")"
	# Nothing left: ranks, orted, mpirun (5 s for them to go).
	for _ in $(seq 50); do
		left=$(leftovers)
		[ -z "$left" ] && break
		sleep 0.1
	done
	if [ -n "$left" ]; then
		mpi_kill_jobs
		e2e_fail "trial $1: left running after the job ended: $left"
	fi
	echo "  trial $1: rank $rank (pid $pid) killed; mpirun exited $rc:" \
		"$(grep -m1 -o 'exited on signal [0-9]*\|MPI_ABORT was invoked' \
			"$OUT" || echo "no message")"
	e2e_ok "trial $1: rank $rank killed -9, the job failed cleanly in" \
		"$dt ms, nothing left"
}

mpi_net_init bridge
for _ in $(seq "$NP"); do
	mpi_rank_add
done
[ -z "$(mpi_prov_missing uet)" ] ||
	e2e_fail "uet lacks what Open MPI's OFI MTL asks for"
T0=$SECONDS
FIRST_VICTIM=$(( RANDOM % NP ))
# Without a kill: the loop passes (10 s).
RETRIES=0
launch 10
rc=0
wait "$JOB" || rc=$?
[ "$rc" != 124 ] && [ "$rc" != 137 ] ||
	e2e_fail "no kill: the loop hung (killed by timeout after 40 s);" \
		"the ranks were last at: $(grep 'at iteration' "$OUT" |
		tail -"$NP" | sed 's/^mpi_allreduce_loop: //' | tr '\n' ';')"
[ "$rc" = 0 ] && grep -q "^mpi_allreduce_loop: ok" "$OUT" ||
	e2e_fail "no kill: rc $rc: $(cat "$OUT")"
e2e_ok "$NP ranks, no kill: $(sed -n 's/^mpi_allreduce_loop: ok, //p' \
	"$OUT") of MPI_Allreduce checked in 10 s"
for n in $(seq "$MPI_KILL_TRIALS"); do
	trial "$n"
done
e2e_log "$(( SECONDS - T0 )) s; $RETRIES start(s) hung before any rank" \
	"ran and were tried again"
