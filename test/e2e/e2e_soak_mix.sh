#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The long soak (issue 43, item 5): SOAK_MIN minutes (default 3, the
# short version `make check` runs; `make soak` runs 30) of mixed traffic
# among 8 endpoints over the emulated fabric, every operation verified:
#  - a leaf/spine of 2 leaves and 2 spines (4 links of 1000 Mbit/s, MTU
#    9000), 2 hosts a leaf; each host a server and a client of fi_soak
#    -m mix, each client to the server of a host of the other leaf: rma
#    runs (every byte checked by the target and read back), tagged
#    messages (tag, length, bytes), fetch-and-adds and RDMO appends (each
#    counted lost, duplicated or misplaced when not where it must be);
#  - TSS on (one secure domain, keys from the services), SOAK_LOSS_PCT
#    (1) percent of the frames dropped at random on every link's leaf to
#    spine port (every frame between leaves crosses one), one link
#    blackholed (every frame dropped, both ways) SOAK_BLACKHOLE_DOWN_S
#    every SOAK_BLACKHOLE_S and restored, the links in turn, and the
#    services (uetd) of all 4 hosts restarted every SOAK_RESTART_S (kill
#    -9 and SIGTERM in turn, `uetctl load` again: the endpoints back
#    within 3 s);
#  - RSS, file descriptors and CPU time of every process of the soak
#    (fi_soak, uetd) read from /proc every SOAK_SAMPLE_S, judged by
#    e2e_soak_stats.py after SOAK_WARM_S of each process's life: RSS
#    growth under 1%, no more descriptors at the end than then.
# The processes wait as applications on shared cores do: the provider's
# fi_cq_read spins FI_UET_SPIN_US then sleeps on the endpoint's sockets.
# Periods scale with SOAK_MIN unless set: restarts every min(300 s, 20 s
# a minute), blackholes every min(60 s, 10 s a minute) for a sixth of
# that, warm-up min(60 s, 10 s a minute). A summary at the end, and a
# line `soak: NAME VALUE UNIT` for each figure. The start of every
# blackhole and the end of every restart are logged with the UTC time,
# as are the engines' PDC notes with UET_ENGINE_DEBUG=1 in the
# environment (the programs inherit it; their outputs stay with
# SOAK_KEEP=DIR): a failed PDC's note then says which fault it met.
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/../fabric/fabric_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
min() { echo $(( $1 < $2 ? $1 : $2 )); }
SOAK_MIN=${SOAK_MIN:-3}
[[ "$SOAK_MIN" =~ ^[1-9][0-9]*$ ]] ||
	e2e_fail "SOAK_MIN=$SOAK_MIN: whole minutes, 1 or more"
SOAK_S=$(( SOAK_MIN * 60 ))
SOAK_RESTART_S=${SOAK_RESTART_S:-$(min 300 $(( SOAK_MIN * 20 )))}
SOAK_BLACKHOLE_S=${SOAK_BLACKHOLE_S:-$(min 60 $(( SOAK_MIN * 10 )))}
SOAK_BLACKHOLE_DOWN_S=${SOAK_BLACKHOLE_DOWN_S:-$(( SOAK_BLACKHOLE_S / 6 ))}
SOAK_WARM_S=${SOAK_WARM_S:-$(min 60 $(( SOAK_MIN * 10 )))}
SOAK_SAMPLE_S=${SOAK_SAMPLE_S:-$(min 10 $(( SOAK_MIN * 2 )))}
SOAK_LOSS_PCT=${SOAK_LOSS_PCT:-1}
for v in SOAK_RESTART_S SOAK_BLACKHOLE_S SOAK_BLACKHOLE_DOWN_S SOAK_WARM_S \
	 SOAK_SAMPLE_S SOAK_LOSS_PCT; do
	[[ "${!v}" =~ ^[0-9]+$ ]] || e2e_fail "$v=${!v}: whole seconds (percent)"
done
[ "$SOAK_BLACKHOLE_DOWN_S" -lt "$SOAK_BLACKHOLE_S" ] && [ "$SOAK_SAMPLE_S" -ge 1 ] &&
	[ "$SOAK_RESTART_S" -ge 10 ] ||
	e2e_fail "SOAK_BLACKHOLE_DOWN_S < SOAK_BLACKHOLE_S, SOAK_SAMPLE_S >= 1," \
		"SOAK_RESTART_S >= 10"
LIMIT_S=$(( SOAK_S + 180 ))	# fi_soak -T: the last cycle, then no hang
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
PEER=([1]=3 [2]=4 [3]=1 [4]=2)	# each client to a host of the other leaf
HOSTS="1 2 3 4"

# sample T: a line per process of the soak into $E2E_TMP/samples (see
# e2e_soak_stats.py), read with bash alone (no fork per process).
sample() {
	local t=$1 i pid
	for i in $HOSTS; do
		for pid in $(ip netns pids "${FAB_HOSTS[$i]}" 2>/dev/null); do
			sample_pid "$t" "h$i" "$pid"
		done
	done >> "$E2E_TMP/samples"
}
sample_pid() {
	local comm role=uetd k v rss=0 anon=0 file=0 shm=0 fds st args
	read -r comm < "/proc/$3/comm" 2>/dev/null || return 0
	case $comm in fi_soak|uetd) ;; *) return 0 ;; esac
	while read -r k v _; do
		case $k in
		VmRSS:) rss=$v ;; RssAnon:) anon=$v ;;
		RssFile:) file=$v ;; RssShmem:) shm=$v ;;
		esac
	done < "/proc/$3/status" 2>/dev/null || return 0
	fds=("/proc/$3/fd/"*)
	read -r -a st < "/proc/$3/stat" 2>/dev/null || return 0
	if [ "$comm" = fi_soak ]; then
		mapfile -d '' args < "/proc/$3/cmdline" 2>/dev/null || return 0
		role=client
		[[ " ${args[*]} " == *" -s "* ]] && role=server
	fi
	[ "$rss" != 0 ] || return 0	# exiting
	echo "$1 $2 $3 $comm $role $rss $anon $file $shm ${#fds[@]}" \
		"$(( st[13] + st[14] ))"
}

# restart_all ROUND: every host's uetd restarted, by kill -9 in odd
# rounds and SIGTERM in even ones; RESTART_MAX the longest time its
# endpoints took to come back.
RESTARTS=0 RESTART_MAX=0
restart_all() {
	local sig=KILL i
	[ $(( $1 % 2 )) = 0 ] && sig=TERM
	for i in $HOSTS; do
		if ! e2e_uetd_restart "${FAB_HOSTS[$i]}" fab0 "$sig" 3000 \
			fab_uet_load_host "$i"; then
			fab_host_in "$i" "$B/uetctl" status fab0 \
				> "$E2E_TMP/status-h$i.out" 2>&1 || true
			e2e_fail "restart $1: $why (uetctl status: status-h$i.out)"
		fi
		RESTARTS=$(( RESTARTS + 1 ))
		[ "$E2E_RESTART_MS" -le "$RESTART_MAX" ] ||
			RESTART_MAX=$E2E_RESTART_MS
	done
	e2e_log "$2 s: restart $1: 4 services ended by SIG$sig and loaded" \
		"again, endpoints back (longest so far $RESTART_MAX ms) at" \
		"$(date -u +%T.%3N) UTC"
}

# sum NAME [after]: the figure before NAME (after it with "after") in
# every client's final mix line, summed: in "12 cycles; rma 832 writes
# ...; lost 0 duplicated 0", cycles and writes come after their figure,
# lost and duplicated before.
sum() {
	sed -n 's/^fi_soak: mix: done in //p' "$E2E_TMP"/cli*.out |
		awk -v k="$1" -v d="${2:-before}" '{ for (i = 1; i <= NF; i++) {
			w = $i; sub(/;$/, "", w)
			if (w == k) n += d == "after" ? $(i + 1) : $(i - 1) } }
			END { printf "%d\n", n }'
}

# soak_keep: with SOAK_KEEP=DIR, the programs' outputs, the samples, the
# services' counters and the summary copied there, whatever the end (the
# run's folder goes at exit).
soak_keep() {
	local i
	[ -n "${SOAK_KEEP:-}" ] || return 0
	mkdir -p "$SOAK_KEEP"
	for i in $HOSTS; do
		[ -s "$E2E_TMP/uetd-h$i.json" ] || fab_host_in "$i" "$B/uetctl" \
			stats fab0 --json > "$E2E_TMP/uetd-h$i.json" 2>&1 || true
	done
	cp "$E2E_TMP"/*.out "$E2E_TMP"/uetd-h*.json "$E2E_TMP"/samples \
		"$E2E_TMP"/summary "$E2E_TMP"/stats "$SOAK_KEEP/" 2>/dev/null || true
}

# wait_all KIND PATTERN WHO: every host's KIND output (srv, cli) says
# PATTERN within 20 s, or the soak fails showing it.
wait_all() {
	local i
	for i in $HOSTS; do
		e2e_wait_for "$E2E_TMP/$1$i.out" "$2" 20 ||
			e2e_fail "$3 on host $i: $(cat "$E2E_TMP/$1$i.out")"
	done
}

# reap_all KIND WHO: every host's KIND process ended well and said so;
# rc=1 otherwise.
reap_all() {
	local i
	for i in $HOSTS; do
		wait "${PID[$1$i]}" || rc=1
		grep -q "^fi_soak: $2: all ok" "$E2E_TMP/$1$i.out" || rc=1
	done
}

fab_leaf_spine 2 2 2 1000 262144 9000
trap 'rc=$?; set +e; soak_keep; (exit $rc); fab_cleanup' EXIT
echo "sd 7 jobs 42 active 0 key0 $KEY" > "$E2E_TMP/tss.conf"
chmod 600 "$E2E_TMP/tss.conf"
FAB_TSS_KEYS=$E2E_TMP/tss.conf
fab_uet_load
for j in $(seq "$FAB_NLINKS"); do fab_link_loss "$j" "$SOAK_LOSS_PCT" fwd; done
fab_link_counters > "$E2E_TMP/links0"
# SOAK_TSS=off: the same without TSS (to tell its part in a failure).
export FI_PROVIDER=uet FI_UET_IFACE=fab0 FI_UET_JOB_ID=42 \
	FI_UET_TSS=${SOAK_TSS:-on} FI_UET_STATS=1
e2e_log "$SOAK_MIN min: $SOAK_LOSS_PCT% loss, a link blackholed" \
	"${SOAK_BLACKHOLE_DOWN_S} s every ${SOAK_BLACKHOLE_S} s, the services" \
	"restarted every ${SOAK_RESTART_S} s, samples every ${SOAK_SAMPLE_S} s," \
	"judged after ${SOAK_WARM_S} s; load $(cut -d' ' -f1-3 /proc/loadavg)"

PORT=$((46000 + RANDOM % 3000))
declare -A PID=()
for i in $HOSTS; do
	fab_host_in "$i" "$B/fi_soak" -s -a "${FAB_IP[$i]}" -p "$PORT" -m mix \
		-T "$LIMIT_S" > "$E2E_TMP/srv$i.out" 2>&1 &
	PID[srv$i]=$!
done
wait_all srv ready server
T0=$(now_ms)
for i in $HOSTS; do
	fab_host_in "$i" "$B/fi_soak" -c "${FAB_IP[${PEER[$i]}]}" -p "$PORT" \
		-m mix -D "$SOAK_S" -M 8 -n 131072 -T "$LIMIT_S" \
		> "$E2E_TMP/cli$i.out" 2>&1 &
	PID[cli$i]=$!
done
wait_all cli "^fi_soak: running" client
e2e_log "8 endpoints running (H1->H3, H2->H4, H3->H1, H4->H2)"

# The soak: faults on their clocks until every client is done.
next_sample=0 bh=1 bh_link=0 bh_end=0 rs=1 BLACKHOLES=0
while :; do
	t=$(( ($(now_ms) - T0) / 1000 ))
	running=0
	for i in $HOSTS; do
		e2e_alive "${PID[cli$i]}" && running=$((running + 1))
	done
	[ "$running" = 0 ] && break
	# A client that ended early failed: judge now (its host's service
	# would have no endpoint left to restart).
	[ "$running" = 4 ] || [ "$t" -ge "$SOAK_S" ] || break
	[ "$t" -le "$LIMIT_S" ] || e2e_fail "clients still run after $t s"
	if [ "$t" -ge "$next_sample" ]; then
		sample "$(( $(now_ms) - T0 ))e-3"
		next_sample=$(( next_sample + SOAK_SAMPLE_S ))
	fi
	if [ "$bh_link" = 0 ] && [ "$t" -ge $(( bh * SOAK_BLACKHOLE_S )) ] &&
	   [ $(( t + SOAK_BLACKHOLE_DOWN_S )) -lt "$SOAK_S" ]; then
		bh_link=$(( (bh - 1) % FAB_NLINKS + 1 ))
		bh_end=$(( t + SOAK_BLACKHOLE_DOWN_S ))
		fab_link_drop "$bh_link" both
		BLACKHOLES=$(( BLACKHOLES + 1 ))
		e2e_log "$t s: link $bh_link blackholed at $(date -u +%T.%3N) UTC"
	elif [ "$bh_link" != 0 ] && [ "$t" -ge "$bh_end" ]; then
		fab_link_restore "$bh_link"
		fab_link_loss "$bh_link" "$SOAK_LOSS_PCT" fwd
		e2e_log "$t s: link $bh_link blackholed ${SOAK_BLACKHOLE_DOWN_S} s, restored"
		bh_link=0
		bh=$(( bh + 1 ))
	fi
	if [ "$t" -ge $(( rs * SOAK_RESTART_S - SOAK_RESTART_S / 4 )) ] &&
	   [ "$t" -lt $(( SOAK_S - 5 )) ]; then
		restart_all "$rs" "$t"
		rs=$(( rs + 1 ))
	fi
	sleep 0.5
done
[ "$bh_link" = 0 ] || fab_link_restore "$bh_link"
fab_link_counters > "$E2E_TMP/links1"
for i in $HOSTS; do
	fab_host_in "$i" "$B/uetctl" stats fab0 --json > "$E2E_TMP/uetd-h$i.json" \
		2>&1 || true
done
rc=0
reap_all cli client
reap_all srv server
if [ "$rc" != 0 ]; then
	for f in "$E2E_TMP"/cli*.out "$E2E_TMP"/srv*.out; do
		grep -v '^uet_engine_stats' "$f" | tail -8 | sed "s|^|  ${f##*/}: |"
	done
fi

# ---- the summary ------------------------------------------------------------
echo "e2e: $E2E_NAME: the processes, from their first sample ${SOAK_WARM_S} s in:"
stats_rc=0
/usr/bin/python3 "$(dirname "$0")/e2e_soak_stats.py" "$E2E_TMP/samples" \
	"$SOAK_WARM_S" 1 > "$E2E_TMP/stats" || stats_rc=$?
grep -v '^soak:' "$E2E_TMP/stats" || true
fab_counters_diff "$E2E_TMP/links0" "$E2E_TMP/links1" > "$E2E_TMP/links"
dropped=$(awk '{ n += $8 } END { print n + 0 }' "$E2E_TMP/links")
# of the frames offered to the leaves' ports up (where the loss is)
up=$(awk '$2 == "fwd" { n += $4 + $8; d += $8 }
	  END { printf "%.2f", n ? 100 * d / n : 0 }' "$E2E_TMP/links")
sealed=0 reattached=0
for f in "$E2E_TMP"/cli*.out "$E2E_TMP"/srv*.out; do
	sealed=$(( sealed + $(e2e_engine_stat "$f" tx_sealed) ))
	reattached=$(( reattached + $(e2e_engine_stat "$f" svc_reattached) ))
done
lost=$(sum lost after) dup=$(sum duplicated after)
misplaced=$(sum misplaced after)
rma=$(sum writes) tag=$(sum messages) amo=$(sum fetch-adds) rdmo=$(sum appends)
lat=$(sed -n 's/^fi_soak: mix: done in .*max latency \([0-9.]*\) ms/\1/p' \
	"$E2E_TMP"/cli*.out | sort -g | tail -1)
{
	echo "soak: minutes $SOAK_MIN min"
	echo "soak: endpoints 8 count"
	echo "soak: cycles $(sum cycles) count"
	echo "soak: rma_writes $rma count"
	echo "soak: rma_bytes $(( rma * 131072 )) B"
	echo "soak: tag_messages $tag count"
	echo "soak: amo_ops $amo count"
	echo "soak: rdmo_appends $rdmo count"
	echo "soak: ops_verified $(( rma + tag + amo + rdmo )) count"
	echo "soak: lost $lost ops"
	echo "soak: duplicated $dup ops"
	echo "soak: misplaced $misplaced ops"
	echo "soak: max_latency ${lat:-0} ms"
	echo "soak: frames_sealed $sealed count"
	echo "soak: frames_dropped $dropped count"
	echo "soak: frames_dropped_leaf_to_spine $up %"
	echo "soak: blackholes $BLACKHOLES count"
	echo "soak: uetd_restarts $RESTARTS count"
	echo "soak: reattach_max $RESTART_MAX ms"
	echo "soak: endpoint_reattaches $reattached count"
	grep '^soak:' "$E2E_TMP/stats" || true
} | tee "$E2E_TMP/summary"

[ "$rc" = 0 ] || e2e_fail "a client or server failed (above)"
e2e_ok "8 endpoints, $SOAK_MIN min: $(( rma + tag + amo + rdmo )) operations verified"
[ "$lost$dup$misplaced" = 000 ] ||
	e2e_fail "operations lost $lost, duplicated $dup, misplaced $misplaced"
e2e_ok "0 operations lost, duplicated or misplaced"
[ "$sealed" -gt 0 ] || [ "$FI_UET_TSS" = off ] ||
	e2e_fail "no frame sealed: TSS was off"
[ "$(( SOAK_S / SOAK_RESTART_S ))" = 0 ] || [ "$RESTARTS" -gt 0 ] ||
	e2e_fail "no service restart"
[ "$(( SOAK_S / SOAK_BLACKHOLE_S ))" -le 1 ] || [ "$BLACKHOLES" -gt 0 ] ||
	e2e_fail "no blackhole"
# Each restart of a host's service: both its endpoints reattached.
[ "$reattached" = $(( 2 * RESTARTS )) ] || e2e_fail "$reattached" \
	"reattaches of endpoints after $RESTARTS restarts (2 endpoints each)"
e2e_ok "TSS $FI_UET_TSS, $BLACKHOLES blackholes, $RESTARTS service restarts" \
	"(endpoints back within $RESTART_MAX ms), $dropped frames dropped"
[ "$stats_rc" = 0 ] || e2e_fail "RSS grew 1% or more, or descriptors" \
	"grew, after ${SOAK_WARM_S} s (above)"
e2e_ok "RSS and file descriptors of every process flat after ${SOAK_WARM_S} s"
