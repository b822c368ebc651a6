#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Many peers at once (issue 39), namespaces on one bridge, each with its
# device service serving up to 63 endpoints (uetctl load --endpoints 63):
#
# a) incast: SCALE_CLIENTS namespaces each run one process of
#    SCALE_PER_NS initiator endpoints, all set up first, then started at
#    once (a go file); each endpoint writes 64 B into its own slot of one
#    target endpoint, which waits in fi_cntr_wait and checks every slot.
#    The target then held as many peers at once (default 18 x 62 = 1116,
#    over the 1024 the engine once held at most), and every initiator
#    completed without an error.
# b) all-to-all: SCALE_A2A_NS namespaces x SCALE_A2A_PER_NS endpoints
#    (default 8 x 16 = 128), every endpoint writes 4 KiB into its slot of
#    every other endpoint, then checks what the others wrote into it; the
#    PDCs opened (FI_UET_STATS) are reported per pair of endpoints. At 32 x
#    16 (bench_scale_e2e.sh) each endpoint wants 992 PDCs against 512:
#    they close early and take turns. The processes wait for each other
#    before they close, as an MPI job's finalize does (without it, 16 x 16
#    failed 1 run of 8: two writes whose data landed ended RC_BAD_JOB_ID,
#    most likely the answer of the service of a process that had checked
#    its slots and exited).
# c) the limit: a target with FI_UET_MAX_PEERS=64 takes 16 peers from one
#    host (a quarter) and refuses the others' PDCs, saying so once in a
#    warning that names the setting; their writes fail with FI_ETIMEDOUT
#    within the retry budget, nobody hangs, and the 16 land.
# Every process waits in fi_cq_sread / fi_cntr_wait (2 shared cores) and
# runs as nobody, with no capability, as applications do.
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/mpi_lib.sh"

SCALE_CLIENTS=${SCALE_CLIENTS:-18}
SCALE_PER_NS=${SCALE_PER_NS:-62}
SCALE_A2A_NS=${SCALE_A2A_NS:-8}
SCALE_A2A_PER_NS=${SCALE_A2A_PER_NS:-16}
SCALE_A2A_LEN=${SCALE_A2A_LEN:-4096}
SCALE_TIMEOUT=${SCALE_TIMEOUT:-120}
SCALE_PARTS=${SCALE_PARTS:-abc}	# which of a) b) c) to run
# SCALE_KEEP=DIR keeps the processes' outputs of a part that failed (of
# the all-to-all always).
SCALE_SVC=77			# the target's PIDonFEP
SCALE_A2A_SVC=300		# the all-to-all's first PIDonFEP

# SCALE_LOAD_ARGS: the services' uetctl load options. An endpoint's PDCs
# are 2^(15 - index bits) (fi_uet(7) LIMITS): 512 at 63 endpoints an
# interface, 1024 at 31; an all-to-all of 32 x 16 wants 992 a side.
MPI_LOAD_ARGS=${SCALE_LOAD_ARGS:-"--endpoints 63"}
mpi_net_init bridge
e2e_stage "$B/fi_scale_check" "$B/libuet-fi.so"
export FI_PROVIDER=uet FI_UET_IFACE=$MPI_IF FI_UET_STATS=1
export FI_PROVIDER_PATH=$E2E_STAGE
# 20 processes on 2 shared cores: a target may not run for seconds while
# a thousand initiators resend (backing off to 64 ms). The retry budget
# is what this test must not measure: 200 retransmissions wait some 12 s.
export FI_UET_MAX_RETRIES=200

# scale_run I ARGS...: fi_scale_check in rank namespace I, as nobody.
scale_run() {
	local ns=${MPI_NS[$1]}
	shift
	ip netns exec "$ns" setpriv --reuid=65534 --regid=65534 \
		--clear-groups -- env HOME=/ "$E2E_STAGE/fi_scale_check" "$@"
}

# scale_wait_ready N GLOB: until N files of GLOB say "ready" (bounded;
# the glob is expanded at each look: a background process's output file
# appears when it starts).
scale_wait_ready() {
	local want=$1 i n
	for i in $(seq $(( SCALE_TIMEOUT * 10 ))); do
		# shellcheck disable=SC2086 # a glob, on purpose
		n=$(cat $2 2>/dev/null | grep -c ': ready$' || true)
		[ "$n" -ge "$want" ] && return 0
		sleep 0.1
	done
	return 1
}

# scale_settle N: until the services of rank namespaces 0..N-1 have seen
# every endpoint of the last part closed (they notice a process's exit a
# moment after it), and their indices have rested (2 s: uetd gives a
# closed index out again only then), so the next part finds them free.
scale_settle() {
	local i k st
	for i in $(seq 0 $(( $1 - 1 ))); do
		for k in $(seq 100); do
			st=$(ip netns exec "${MPI_NS[$i]}" "$B/uetctl" status \
				"$MPI_IF")
			[ "$(sed -n 's/.* opened \([0-9]*\),.*/\1/p' <<<"$st")" = \
			  "$(sed -n 's/.* closed \([0-9]*\);.*/\1/p' <<<"$st")" ] &&
				break
			sleep 0.1
		done
	done
	sleep 2.5
}

# scale_fail_show WHY FILE...: the failure, with what each process said.
scale_fail_show() {
	local why=$1 f
	shift
	# SCALE_KEEP=DIR: every process's whole output kept there.
	[ -z "${SCALE_KEEP:-}" ] || { mkdir -p "$SCALE_KEEP" && cp "$@" "$SCALE_KEEP/"; }
	for f in "$@"; do
		grep -v '^uet_engine_stats' "$f" | tail -n 4 | sed "s|^|  $(basename "$f"): |"
	done
	e2e_fail "$why"
}

nns=$(( SCALE_CLIENTS + 1 ))
[ "$SCALE_A2A_NS" -gt "$nns" ] && nns=$SCALE_A2A_NS
for i in $(seq "$nns"); do
	mpi_rank_add
done

# ---- a) incast into one endpoint -----------------------------------------
scale_incast() {
	go=$E2E_STAGE/go.a
	peers=$(( SCALE_CLIENTS * SCALE_PER_NS ))
	t0=$(now_ms)
	scale_run 0 -s "$peers" \
		-p "$SCALE_SVC" -g "$go" -t "$SCALE_TIMEOUT" >"$E2E_TMP/a.s" 2>&1 &
	spid=$!
	cpids=()
	for i in $(seq "$SCALE_CLIENTS"); do
		scale_run "$i" -c "$MPI_NET.1" -p "$SCALE_SVC" -n "$SCALE_PER_NS" \
			-o $(( (i - 1) * SCALE_PER_NS )) -g "$go" \
			-t "$SCALE_TIMEOUT" >"$E2E_TMP/a.c$i" 2>&1 &
		cpids+=($!)
	done
	scale_wait_ready $(( SCALE_CLIENTS + 1 )) "$E2E_TMP/a.*" ||
		scale_fail_show "incast: not every process set up" "$E2E_TMP"/a.*
	setup_s=$(awk -v ms=$(( $(now_ms) - t0 )) \
		'BEGIN { printf "%.2f", ms / 1000 }')
	touch "$go"
	rc=0
	for p in "${cpids[@]}"; do wait "$p" || rc=1; done
	wait "$spid" || rc=1
	[ $rc = 0 ] || scale_fail_show "incast: $peers initiators into one endpoint" \
		"$E2E_TMP/a.s" "$E2E_TMP"/a.c*
	ok=$(cat "$E2E_TMP"/a.c* | grep -c '^fi_scale_check: c: .* ok$' || true)
	[ "$ok" = "$SCALE_CLIENTS" ] ||
		scale_fail_show "incast: $ok of $SCALE_CLIENTS clients ok" "$E2E_TMP"/a.*
	grep -q "^fi_scale_check: s: $peers of $peers slots verified.* ok$" \
		"$E2E_TMP/a.s" || scale_fail_show "incast: target" "$E2E_TMP/a.s"
	# Peers silent a second give their ids back: those still live at the
	# target's close, and those aged, make up every initiator.
	live=$(e2e_engine_stat "$E2E_TMP/a.s" peers_live)
	aged=$(e2e_engine_stat "$E2E_TMP/a.s" peers_aged)
	[ $(( live + aged )) -ge "$peers" ] ||
		scale_fail_show "incast: the target took $live + $aged peers," \
			"not $peers" "$E2E_TMP/a.s"
	e2e_ok "incast: $peers initiator endpoints ($SCALE_CLIENTS namespaces x" \
		"$SCALE_PER_NS) set up in ${setup_s} s, then one 64 B write each" \
		"into one endpoint, every slot verified ($(sed -n \
		's/^fi_scale_check: s: .* counted, in \([0-9.]*\) s.*/\1/p' \
		"$E2E_TMP/a.s") s); the target held $live peers at its close" \
		"(and had aged $aged, idle a second)," \
		"$(e2e_engine_stat "$E2E_TMP/a.s" pdc_created) PDCs opened," \
		"$(e2e_engine_stat "$E2E_TMP/a.s" syn_challenged) SYNs challenged"
}

# ---- b) all-to-all ----------------------------------------------------------
scale_all_to_all() {
	scale_settle "$SCALE_A2A_NS"
	hosts=""
	for i in $(seq "$SCALE_A2A_NS"); do
		hosts+="${hosts:+,}$MPI_NET.$i"
	done
	total=$(( SCALE_A2A_NS * SCALE_A2A_PER_NS ))
	go=$E2E_STAGE/go.b
	# The processes' barrier before they close (fi_scale_check -B).
	done_dir=$E2E_STAGE/done.b
	mkdir -m 1777 "$done_dir"
	pids=()
	for i in $(seq "$SCALE_A2A_NS"); do
		scale_run $(( i - 1 )) -a "$hosts" -h $(( i - 1 )) -p "$SCALE_A2A_SVC" \
			-n "$SCALE_A2A_PER_NS" -l "$SCALE_A2A_LEN" -g "$go" \
			-B "$done_dir" -t "$SCALE_TIMEOUT" >"$E2E_TMP/b.$i" 2>&1 &
		pids+=($!)
	done
	scale_wait_ready "$SCALE_A2A_NS" "$E2E_TMP/b.*" ||
		scale_fail_show "all-to-all: not every process set up" "$E2E_TMP"/b.*
	touch "$go"
	rc=0
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	[ -z "${SCALE_KEEP:-}" ] || { mkdir -p "$SCALE_KEEP" && cp "$E2E_TMP"/b.* "$SCALE_KEEP/"; }
	[ $rc = 0 ] || scale_fail_show "all-to-all of $total endpoints" "$E2E_TMP"/b.*
	secs=$(sed -n 's/^fi_scale_check: a: .* in \([0-9.]*\) s ok$/\1/p' \
		"$E2E_TMP"/b.* | sort -g | tail -n 1)
	# CPU sharing: the longest a process was runnable without a core.
	waited=$(sed -n 's/^fi_scale_check: a: .*waiting for one \([0-9.]*\) s$/\1/p' \
		"$E2E_TMP"/b.* | sort -g | tail -n 1)
	pdcs=$(cat "$E2E_TMP"/b.* | awk '/^uet_engine_stats / &&
		(i = index($0, "\"pdc_created\":")) { n += substr($0, i + 14) + 0 }
		END { print n + 0 }')
	# Pairs of one namespace talk through local channels, with no PDC; each
	# other ordered pair needs an initiator PDC and a target PDC.
	pairs=$(( total * (total - 1) ))
	wire=$(( pairs - SCALE_A2A_NS * SCALE_A2A_PER_NS * (SCALE_A2A_PER_NS - 1) ))
	e2e_ok "all-to-all: $total endpoints ($SCALE_A2A_NS namespaces x" \
		"$SCALE_A2A_PER_NS), $SCALE_A2A_LEN B from each to each, every slot" \
		"verified, in $secs s (a process waited up to ${waited:-?} s" \
		"for a core); $pdcs PDCs opened (both ends) for $wire" \
		"ordered pairs between namespaces:" \
		"$(awk -v p="$pdcs" -v n="$wire" 'BEGIN { printf "%.2f", p / n / 2 }')" \
		"a pair and end"
}

# ---- c) the peer table full ---------------------------------------------------
scale_limit() {
	scale_settle 2
	go=$E2E_STAGE/go.c
	FI_UET_MAX_PEERS=64 FI_LOG_LEVEL=warn scale_run 0 -s "$SCALE_PER_NS" \
		-p "$SCALE_SVC" -g "$go" -t 20 >"$E2E_TMP/c.s" 2>&1 &
	spid=$!
	FI_UET_MAX_RETRIES=6 scale_run 1 -c "$MPI_NET.1" -p "$SCALE_SVC" \
		-n "$SCALE_PER_NS" -o 0 -g "$go" -t 20 >"$E2E_TMP/c.c" 2>&1 &
	cpid=$!
	scale_wait_ready 2 "$E2E_TMP/c.[sc]" ||
		scale_fail_show "limit: not every process set up" "$E2E_TMP"/c.[sc]
	t0=$SECONDS
	touch "$go"
	wait "$cpid" && scale_fail_show "limit: every write succeeded" "$E2E_TMP/c.c"
	secs=$(( SECONDS - t0 ))
	wait "$spid" || true
	timedout=$(grep -c 'error completion: Connection timed out' "$E2E_TMP/c.c" ||
		true)
	landed=$(sed -n 's/^fi_scale_check: s: \([0-9]*\) of .*/\1/p' "$E2E_TMP/c.s")
	grep -q 'uet_ep_engine_warn.*refuses new peers.*FI_UET_MAX_PEERS=64' \
		"$E2E_TMP/c.s" || scale_fail_show "limit: no warning" "$E2E_TMP/c.s"
	[ "$timedout" -ge 1 ] && [ "$landed" = 16 ] ||
		scale_fail_show "limit: $landed writes landed, $timedout timed out" \
			"$E2E_TMP"/c.[sc]
	e2e_ok "limit: FI_UET_MAX_PEERS=64 at the target: 16 of $SCALE_PER_NS" \
		"initiators of one host taken, the rest FI_ETIMEDOUT after the" \
		"retry budget ($secs s), one warning naming the setting"
}

[[ $SCALE_PARTS != *a* ]] || scale_incast
[[ $SCALE_PARTS != *b* ]] || scale_all_to_all
[[ $SCALE_PARTS != *c* ]] || scale_limit
