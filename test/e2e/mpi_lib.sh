# SPDX-License-Identifier: BSD-2-Clause
# Shared by the MPI tests and benchmarks: rank namespaces for Open MPI, the
# device service (uetctl load) on each, and mpirun launching into them
# through tools/uet-netns-agent (host name = namespace name). Source after
# e2e_lib.sh, then mpi_net_init bridge|pair and mpi_rank_add per namespace.
# A namespace holds MPI_PPN ranks of a job (1 unless set): one interface
# serves the endpoints of many processes (issue 12). After mpi_user_init,
# mpirun and every rank run as an unprivileged user.

MPI_IF=uetm0		# every rank's interface has this name, so one
			# FI_UET_IFACE / FI_TCP_IFACE fits all of them
MPI_NS=()		# rank namespaces, in rank order
MPI_SW=""		# the switch namespace holding the bridge, if any
MPI_MODE=""
MPI_NET="10.79.$(( $$ % 200 + 20 ))"
MPI_AGENT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tools" && pwd)/uet-netns-agent"
MPI_TIMEOUT=${MPI_TIMEOUT:-30}
MPI_TRIES=${MPI_TRIES:-3}
MPI_PPN=${MPI_PPN:-1}	# ranks per namespace in mpi_run
MPI_UDIR=""		# set by mpi_user_init: the unprivileged user's files
MPI_BIN=$B		# where mpi_check is; mpi_user_init makes it a copy's
MPI_MEM=${MPI_MEM:-}	# set: mpi_job reports the jobs' memory
MPI_MEM_PID=""		# mpi_mem_watch's sampler
# What Open MPI 4.1's OFI MTL asks fi_getinfo for (seen in its hints).
MPI_MTL_CAPS="FI_TAGGED FI_LOCAL_COMM FI_REMOTE_COMM FI_DIRECTED_RECV"

mpi_cleanup() {
	set +e
	for ns in "${MPI_NS[@]}"; do
		ip netns exec "$ns" "$B/uetctl" unload "$MPI_IF" >/dev/null 2>&1
	done
	for ns in "${MPI_NS[@]}" $MPI_SW; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	[ -z "$MPI_UDIR" ] || rm -rf "$MPI_UDIR"
	[ -z "$MPI_MEM_PID" ] || kill "$MPI_MEM_PID" 2>/dev/null
	e2e_cleanup
}

# mpi_net_init bridge|pair: "bridge" joins ranks through a Linux bridge in
# a switch namespace (any number of ranks); "pair" is one veth pair between
# two ranks, the shortest path, for the benchmark.
mpi_net_init() {
	MPI_MODE=$1
	e2e_require_root
	command -v mpirun >/dev/null ||
		e2e_fail "mpirun not found (make deps installs openmpi-bin)"
	trap mpi_cleanup EXIT
	# ip netns exec hides /sys/fs/bpf: a bpffs of our own for uetctl and
	# the services (the ranks need none: mpi_run hides UET_BPFFS).
	mkdir -p "$E2E_TMP/bpffs"
	mount -t bpf bpf "$E2E_TMP/bpffs"
	export UET_BPFFS="$E2E_TMP/bpffs" LIBXDP_BPFFS="$E2E_TMP/bpffs"
	FI_PROVIDER_PATH=$(cd "$B" && pwd)
	export FI_PROVIDER_PATH
	if [ "$MPI_MODE" = bridge ]; then
		MPI_SW="uet-t$E2E_ID-sw"
		ip netns add "$MPI_SW"
		ip -n "$MPI_SW" link add br0 type bridge
		ip -n "$MPI_SW" link set br0 up
	fi
}

# mpi_rank_add: one more rank namespace, addressed, its device service
# started (uetctl load).
mpi_rank_add() {
	local i=$(( ${#MPI_NS[@]} + 1 )) ns
	ns="uet-t$E2E_ID-r$i"
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	MPI_NS+=("$ns")
	if [ "$MPI_MODE" = bridge ]; then
		ip -n "$ns" link add "$MPI_IF" mtu 9000 type veth \
			peer name "p$i" netns "$MPI_SW" mtu 9000
		ip -n "$MPI_SW" link set "p$i" master br0 up
	elif [ "$i" = 2 ]; then
		ip -n "${MPI_NS[0]}" link add "$MPI_IF" mtu 9000 type veth \
			peer name "$MPI_IF" netns "$ns" mtu 9000
		mpi_rank_up 1
	fi
	[ "$MPI_MODE" = pair ] && [ "$i" = 1 ] && return 0
	mpi_rank_up "$i"
}

mpi_rank_up() {	# mpi_rank_up I: address, link up, service of namespace I
	local ns=${MPI_NS[$1 - 1]}
	ip -n "$ns" addr add "$MPI_NET.$1/24" dev "$MPI_IF"
	ip -n "$ns" link set "$MPI_IF" up
	# shellcheck disable=SC2086 # MPI_LOAD_ARGS: words of their own
	ip netns exec "$ns" "$B/uetctl" load "$MPI_IF" --mode skb \
		${MPI_LOAD_ARGS:-} >/dev/null
}

# mpi_user_init [USER]: from now on mpi_run starts mpirun, and so every
# rank, as USER (default nobody), with no capability and no supplementary
# group: setpriv drops root, then a copy of nsenter with the file
# capability cap_sys_admin, executable by USER's group only, joins the first
# namespace and execs mpirun, which has none (file capabilities do not pass
# across exec); tools/uet-netns-agent enters the other namespaces through
# the same copy (UET_NETNS_NSENTER). USER's HOME and TMPDIR (Open MPI's
# session directory) are a directory of ours. The user runs copies of
# mpi_check, the provider and the agent (e2e_stage), which it can reach
# wherever the clone is. All of it goes at exit.
mpi_user_init() {
	local user=${1:-nobody}
	command -v setcap >/dev/null ||
		e2e_fail "setcap not found (package libcap2-bin)"
	command -v setpriv >/dev/null || e2e_fail "setpriv not found"
	MPI_UID=$(id -u "$user") && MPI_GID=$(id -g "$user") ||
		e2e_fail "no user $user"
	[ "$MPI_UID" != 0 ] || e2e_fail "user $user is root"
	MPI_UDIR=$(mktemp -d /tmp/uet-mpi-user.XXXXXX)
	chmod 0755 "$MPI_UDIR"
	MPI_NSENTER="$MPI_UDIR/nsenter"
	cp "$(command -v nsenter)" "$MPI_NSENTER"
	chown "root:$MPI_GID" "$MPI_NSENTER"
	chmod 0750 "$MPI_NSENTER"
	setcap cap_sys_admin+ep "$MPI_NSENTER"
	mkdir -m 0700 "$MPI_UDIR/home"
	chown "$MPI_UID:$MPI_GID" "$MPI_UDIR/home"
	e2e_stage "$B/mpi_check" "$B/libuet-fi.so" "$MPI_AGENT"
	MPI_BIN=$E2E_STAGE
	MPI_AGENT="$E2E_STAGE/uet-netns-agent"
	export FI_PROVIDER_PATH="$E2E_STAGE"
	# That the copy lets the user in, and what the user must reach.
	mpi_as_user "${MPI_NS[0]}"
	"${MPI_AS[@]}" true || e2e_fail "user $user cannot join a namespace" \
		"through $MPI_NSENTER (file capabilities ignored: nosuid?)"
	"${MPI_AS[@]}" sh -c "test -x '$MPI_BIN/mpi_check' &&
		test -r '$FI_PROVIDER_PATH/libuet-fi.so' && test -x '$MPI_AGENT'" ||
		e2e_fail "user $user cannot reach $E2E_STAGE"
}

# mpi_as_user NS: MPI_AS becomes the command prefix that runs a command as
# the unprivileged user in namespace NS, without UET_BPFFS.
mpi_as_user() {
	MPI_AS=(setpriv --reuid="$MPI_UID" --regid="$MPI_GID" --clear-groups
		-- "$MPI_NSENTER" --net="/run/netns/$1" --
		env -u UET_BPFFS -u LIBXDP_BPFFS HOME="$MPI_UDIR/home"
		TMPDIR="$MPI_UDIR/home" UET_NETNS_NSENTER="$MPI_NSENTER"
		UET_NETNS_TMPDIR="$MPI_UDIR/home/hosts")
}

# mpi_prov_missing PROVIDER: the caps of MPI_MTL_CAPS that fi_info, in the
# first rank's namespace, says the provider lacks on an RDM endpoint (empty
# when it has them all). A provider that offers no RDM endpoint at all is
# broken or missing, not short of a cap: that fails.
mpi_prov_missing() {
	local c
	ip netns exec "${MPI_NS[0]}" fi_info -p "$1" -t FI_EP_RDM \
		>/dev/null 2>&1 || e2e_fail "fi_info finds no $1 RDM endpoint"
	for c in $MPI_MTL_CAPS; do
		ip netns exec "${MPI_NS[0]}" fi_info -p "$1" -t FI_EP_RDM \
			-c "$c" >/dev/null 2>&1 || printf '%s ' "$c"
	done
}

# mpi_run PROVIDER NP OUT ARGS...: mpi_check ARGS with NP ranks, MPI_PPN
# in each of the first rank namespaces, mpirun inside the first one (so
# its TCP reaches the others), as root or, after mpi_user_init, as the
# unprivileged user; output in OUT. Each start is bounded by MPI_TIMEOUT,
# and a start that timed out is tried again, MPI_TRIES in all: libfabric
# 1.17's tcp provider hangs about one start in four at connection set-up,
# and about one uet start in 40 hung before any rank ran: Open MPI's
# daemons shared a session directory (they all see one host name) and one
# crashed, which UET_NETNS_TMPDIR (tools/uet-netns-agent) now prevents. The ok
# lines report the retries (MPI_RETRIES), so a hang that grows more common
# shows. MPI_PROG names another program than mpi_check. PROVIDER vader is
# no libfabric provider but Open MPI's own shared memory (pml ob1, btl
# vader): the yardstick for ranks of one namespace (bench_local.sh).
# MPI_BIND is mpirun's --bind-to (none unless set); MPI_OPTS (an array)
# holds more mpirun options. With MPI_START_TIMEOUT set, a start that
# printed no line matching MPI_START_LINE (mpi_check's first, after
# MPI_Init) in that many seconds counts as hung at once, so that a big job
# need not wait out its MPI_TIMEOUT to be tried again; with
# MPI_RETRY_STARTED=0 a job that timed out after that line is not tried
# again (its status stays 124). The provider's
# settings in our environment (FI_UET_* but the interface, FI_LOG_LEVEL,
# UET_ENGINE_DEBUG)
# reach every rank: mpirun passes on only what -x names, so that
# FI_UET_CC=nscc,rccc bash test/e2e/e2e_mpi.sh runs the jobs with RCCC.
MPI_OPTS=()
MPI_START_LINE='^mpi_check: [0-9]* ranks in'
mpi_run() {
	local prov=$1 np=$2 out=$3 hosts try tries=$MPI_TRIES rc=0 i pid hung
	local -a launch transport fwd=()
	shift 3
	for i in $(compgen -e); do
		case $i in FI_UET_IFACE) ;;
		FI_UET_*|FI_LOG_LEVEL|UET_ENGINE_DEBUG) fwd+=(-x "$i=${!i}") ;; esac
	done
	if [ "$prov" = vader ]; then
		transport=(--mca pml ob1 --mca btl "vader,self")
	else
		transport=(--mca btl self --mca pml cm --mca mtl ofi
			--mca mtl_ofi_provider_include "$prov")
	fi
	hosts=""
	for (( i = 0; i * MPI_PPN < np; i++ )); do
		hosts+="${hosts:+,}${MPI_NS[i]}:$MPI_PPN"
	done
	if [ -n "$MPI_UDIR" ]; then
		mpi_as_user "${MPI_NS[0]}"
		launch=("${MPI_AS[@]}" mpirun)
	else
		launch=(ip netns exec "${MPI_NS[0]}" env -u UET_BPFFS
			-u LIBXDP_BPFFS UET_NETNS_TMPDIR="$E2E_TMP/hosts"
			mpirun --allow-run-as-root)
	fi
	MPI_RETRIES=0
	for try in $(seq "$tries"); do
		rc=0
		timeout -k 5 "$MPI_TIMEOUT" "${launch[@]}" \
			--host "$hosts" -np "$np" \
			--mca plm_rsh_agent "$MPI_AGENT" \
			--mca plm_rsh_no_tree_spawn 1 \
			--mca oob_tcp_if_include "$MPI_NET.0/24" \
			--bind-to "${MPI_BIND:-none}" "${transport[@]}" \
			"${fwd[@]}" "${MPI_OPTS[@]}" \
			-x FI_PROVIDER="$prov" -x FI_PROVIDER_PATH \
			-x FI_UET_IFACE="$MPI_IF" -x FI_TCP_IFACE="$MPI_IF" \
			"${MPI_PROG:-$MPI_BIN/mpi_check}" "$@" > "$out" 2>&1 &
		pid=$!
		hung=0
		[ -z "${MPI_START_TIMEOUT:-}" ] || mpi_started "$pid" "$out" ||
			{ hung=1; kill "$pid" 2>/dev/null || true; }
		wait "$pid" || rc=$?
		# Killed by mpi_started's verdict: timeout(1) hands the TERM
		# to mpirun, whose own status (1) would read as a failure.
		[ $hung = 0 ] || rc=124
		[ $rc = 124 ] || [ $rc = 137 ] || [ $rc = 143 ] || break
		# MPI_RETRY_STARTED=0: a job whose ranks had started and
		# then ran out of time failed (a stall), it did not hang
		[ "${MPI_RETRY_STARTED:-1}" != 0 ] ||
			! grep -q "$MPI_START_LINE" "$out" || break
		MPI_RETRIES=$try
		# Said on stderr: which job hung shows in a bench's output.
		echo "mpi_run: $prov, $np ranks, ${MPI_PROG:-mpi_check}," \
			"try $try of $tries: exit $rc (hung or out of time);" \
			"$([ "$try" -lt "$tries" ] && echo "run again" ||
			echo "given up")" >&2
		mpi_kill_jobs
	done
	return $rc
}

# mpi_started PID OUT: whether the job PID printed MPI_START_LINE into OUT
# within MPI_START_TIMEOUT seconds, or ended before (its status tells).
# Counted in seconds, not rounds: under the load of a big job each round
# takes longer than its sleep. A start that hung says what ran then.
mpi_started() {
	local i t0=$SECONDS
	for (( i = 0; i < MPI_START_TIMEOUT * 10; i++ )); do
		grep -q "$MPI_START_LINE" "$2" && return 0
		kill -0 "$1" 2>/dev/null || return 0
		(( SECONDS - t0 < MPI_START_TIMEOUT )) || break
		sleep 0.2
	done
	e2e_log "no rank started in $MPI_START_TIMEOUT s; in the" \
		"namespaces then: $(mpi_procs)"
	return 1
}

# mpi_procs: how many processes of each name run in the rank namespaces.
mpi_procs() {
	local ns
	for ns in "${MPI_NS[@]}"; do
		ip netns pids "$ns"
	done | xargs -r -I{} cat /proc/{}/comm 2>/dev/null | sort | uniq -c |
		awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }'
}

# mpi_kill_jobs: whatever a killed job left behind in the namespaces goes,
# but not their device services (uetd), which outlive jobs.
mpi_kill_jobs() {
	local ns pid
	for ns in "${MPI_NS[@]}"; do
		for pid in $(ip netns pids "$ns"); do
			[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = uetd ] ||
				kill -9 "$pid" 2>/dev/null || true
		done
	done
}

# mpi_job PROVIDER NP [ARGS...]: one mpi_check job of NP ranks, MPI_PPN per
# namespace, with ARGS (sizes, latency partner, iterations) and, after
# mpi_user_init, -u: it must end "mpi_check: ok", having found the ranks
# spread so, and unprivileged if they should be. The ok line says what
# mpi_check checked and measured, the job's wall time and, with MPI_MEM
# set, the memory of the namespaces' processes.
mpi_job() {
	local prov=$1 np=$2 out="$E2E_TMP/mpi.$1.$2" rc=0 note="" who=""
	local nns spread t0=$SECONDS
	local -a args=()
	shift 2
	nns=$(( np / MPI_PPN ))
	spread="$np ranks in $nns network namespaces ($(printf "$MPI_PPN %.0s" \
		$(seq "$nns") | sed 's/ $//'))"
	if [ -n "$MPI_UDIR" ]; then
		args=(-u "$MPI_UID")
		who=", as uid $MPI_UID with no capability"
	fi
	[ -z "$MPI_MEM" ] || mpi_mem_watch "$out.mem"
	mpi_run "$prov" "$np" "$out" "${args[@]}" "$@" || rc=$?
	[ -z "$MPI_MEM" ] || mpi_mem_stop "$out.mem"
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
	e2e_ok "$prov, $spread$who: $(mpi_checked "$out"), $(( SECONDS - t0 ))" \
		"s${MPI_MEM:+; $MPI_MEM_SAID}$note"
}

# mpi_job_uet NP [ARGS...]: mpi_job uet, or say why it cannot run yet
# (UET_MISSING: mpi_prov_missing uet).
mpi_job_uet() {
	if [ -n "$UET_MISSING" ]; then
		local word=SKIP
		[ "${CI:-}" = true ] && word=NOTE
		echo "e2e: $E2E_NAME: $word: provider lacks ${UET_MISSING% }" \
			"(Open MPI's OFI MTL asks for $MPI_MTL_CAPS); uet," \
			"$1 ranks not run"
		return 0
	fi
	mpi_job uet "$@"
}

# mpi_checked OUT: what mpi_check said it checked and measured, in short.
mpi_checked() {
	echo "ping-pong 0 B to $(mpi_said "$1" '.* 0 B to \([0-9]*\) B ') B," \
		"allreduce of up to $(mpi_said "$1" \
		'allreduce .* and \([0-9]*\) long') long longs, alltoall of" \
		"up to $(mpi_said "$1" 'alltoall .* and \([0-9]*\) B blocks')" \
		"B blocks checked; that alltoall $(mpi_said "$1" \
		'alltoall .* took \([0-9.]*\) ms') ms; 8 B half round trip" \
		"of ranks 0 and $(mpi_said "$1" '8 B .*ranks 0 and \([0-9]*\)')" \
		"$(mpi_lat "$1") us"
}

# mpi_said OUT REGEX: \1 of REGEX in the line of mpi_check's it matches.
mpi_said() {
	sed -n "s/^mpi_check: $2.*/\1/p" "$1"
}

# mpi_mem_watch OUT: the proportional set sizes (Pss) of every process in
# the rank namespaces (ranks, orted, mpirun, device services) summed, in
# MiB, now and then in the background once a second, a line each into
# OUT, until mpi_mem_stop (at most MPI_TIMEOUT x MPI_TRIES seconds). Pss
# shares each shared page (libraries, UMEM, shared memory) among the
# processes that map it, so the sum counts every page once.
mpi_mem_watch() {
	mpi_mem_pss > "$1"
	( for (( i = 0; i < MPI_TIMEOUT * MPI_TRIES; i++ )); do
		sleep 1
		mpi_mem_pss
	done ) >> "$1" &
	MPI_MEM_PID=$!
}

mpi_mem_pss() {
	local ns pid
	local -a files=(/dev/null)
	for ns in "${MPI_NS[@]}"; do
		for pid in $(ip netns pids "$ns"); do
			files+=("/proc/$pid/smaps_rollup")
		done
	done
	# A process that went meanwhile is no error.
	{ cat "${files[@]}" 2>/dev/null || true; } |
		awk '/^Pss:/ { kib += $2 } END { printf "%d\n", kib / 1024 }'
}

# mpi_mem_stop OUT: stops mpi_mem_watch; MPI_MEM_SAID says what OUT holds.
mpi_mem_stop() {
	kill "$MPI_MEM_PID" 2>/dev/null || true
	wait "$MPI_MEM_PID" 2>/dev/null || true
	MPI_MEM_PID=""
	MPI_MEM_SAID="Pss of the namespaces' processes $(head -1 "$1") MiB"
	MPI_MEM_SAID+=" before, at most $(sort -n "$1" | tail -1) MiB during"
	MPI_MEM_SAID+=" the job"
}

# mpi_lat OUT [BYTES]: the half round trip (us) mpi_check printed for
# BYTES-byte messages (8 unless given).
mpi_lat() {
	mpi_said "$1" "${2:-8} B ping-pong half round trip \([0-9.]*\) us"
}
