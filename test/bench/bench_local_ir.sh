#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Benchmark (issue 41): the software cost of a message between two
# endpoints of one host, in instructions, a figure the machine's noise
# does not move. bench_local's latencies swing 2x from run to run on these
# 2-core virtual machines (where the two vCPUs land decides what a cache
# line between them costs); the work each side does per message does not.
#
# fi_msg_bench -m lat -n 8 (tagged 8 B ping-pong, fi_tinject and
# fi_cq_read) between two processes of one namespace, uet beside shm: the
# client runs under valgrind's callgrind, counting only inside its send,
# its wait for the answer and its receive post (b_send, b_wait, t_trecv),
# so the set-up and the teardown are not counted. Two runs of ITERS_LO and
# ITERS_HI round trips each: their difference over ITERS_HI - ITERS_LO is
# the client's instructions per round trip (its send, its receive and its
# polling while the answer comes, which callgrind's slowness keeps short),
# the first contact and the warm-up left out. Then the same with sends
# that have a completion (fi_msg_bench -S: fi_tsend and its completion
# read, as Open MPI's MPI_Isend sends).
#   bench: local_8b_ir_per_rtt_PROV  instructions a round trip, client
#   bench: local_8b_ir_uet_over_shm  their ratio
#   bench: local_8b_send_ir_per_rtt_PROV, local_8b_send_ir_uet_over_shm
#     the same with fi_tsend
# Knobs: ITERS_LO, ITERS_HI, RUN_TIMEOUT (seconds per run).
E2E_NAME=bench_local_ir
source "$(dirname "$0")/../e2e/e2e_lib.sh"
source "$(dirname "$0")/../e2e/mpi_lib.sh"
if [ -n "${BENCH_SMOKE:-}" ]; then
	ITERS_LO=${ITERS_LO:-200}
	ITERS_HI=${ITERS_HI:-600}
fi
ITERS_LO=${ITERS_LO:-1000}
ITERS_HI=${ITERS_HI:-4000}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
PROVIDERS="uet shm"

command -v valgrind >/dev/null || e2e_fail "valgrind not found (package valgrind)"
mpi_net_init bridge
mpi_rank_add
NS=${MPI_NS[0]}
IP=$MPI_NET.1

in_ns() {
	ip netns exec "$NS" env -u UET_BPFFS -u LIBXDP_BPFFS \
		FI_UET_IFACE="$MPI_IF" "$@"
}

# ir PROV ITERS [OPT]: the client's counted instructions in one run of
# fi_msg_bench [OPT].
ir() {
	local prov=$1 iters=$2 port=$((20000 + RANDOM % 10000)) s rc=0 v
	local out="$E2E_TMP/cli.$prov.$iters" srv="$E2E_TMP/srv.$prov.$iters"
	local -a opt=("${@:3}")

	# The server spins (FI_UET_SPIN_US=-1, shm's way): with its default
	# budget of 10 us it slept while the client ran under valgrind, 50x
	# slower than it would, and the client's empty reads while it woke
	# moved the figure by a fifth from one run to the next.
	in_ns FI_PROVIDER="$prov" FI_UET_SPIN_US=-1 timeout "$RUN_TIMEOUT" \
		taskset -c 0 "$B/fi_msg_bench" -M "${opt[@]}" -s -a "$IP" \
		-p "$port" -m lat -n 8 -i "$iters" > "$srv" 2>&1 &
	s=$!
	in_ns FI_PROVIDER="$prov" timeout "$RUN_TIMEOUT" taskset -c 1 \
		valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		--collect-atstart=no --toggle-collect=b_send \
		--toggle-collect=b_wait --toggle-collect=t_trecv \
		"$B/fi_msg_bench" -M "${opt[@]}" -c "$IP" -p "$port" -m lat \
		-n 8 -i "$iters" > "$out" 2>&1 || rc=$?
	wait "$s" || rc=1
	v=$(sed -n 's/^==[0-9]*== I *refs: *\([0-9,]*\).*/\1/p' "$out" |
		tr -d ,)
	if [ "$rc" != 0 ] || [ -z "$v" ]; then
		tail -n 15 "$srv" "$out" >&2
		e2e_fail "$prov: run of $iters round trips failed"
	fi
	echo "$v"
}

# figures NAME [OPT]: NAME's lines, runs of fi_msg_bench [OPT].
figures() {
	local name=$1 prov lo hi
	declare -A per
	shift
	for prov in $PROVIDERS; do
		lo=$(ir "$prov" "$ITERS_LO" "$@") || exit 1
		hi=$(ir "$prov" "$ITERS_HI" "$@") || exit 1
		per[$prov]=$(( (hi - lo) / (ITERS_HI - ITERS_LO) ))
		echo "bench: ${name}_per_rtt_$prov ${per[$prov]} Ir"
	done
	awk -v u="${per[uet]}" -v s="${per[shm]}" -v n="$name" \
		'BEGIN { printf "bench: %s_uet_over_shm %.2f x\n", n, u / s }'
}
figures local_8b_ir
figures local_8b_send_ir -S
