#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The switch-port model (bpf/uet_port.bpf.c, fab_port_model) on a star of
# three hosts at 20 Mbit/s with a 30000-byte buffer: H1 and H2 send UDP at
# the port's rate each to H3, so that R1's port h3 holds twice what it can
# send. Marking: ECT(0) frames arrive with CE, as many as the model
# counts, not-ECT ones never; tcp, sent frame by frame, is never marked
# without ECN and marked when it asks for ECN. Drops: only above the buffer (a burst below
# it loses nothing, one above it loses what the buffer could not take, the
# queue never beyond buffer + a frame), and only by the model, never by
# the tbf behind it; uet_port watch sees the queue rise and drain.
# Trimming: DSCP 10 frames arrive cut to 64 bytes of payload with DSCP 46
# and their ECN bits, as many as the model counts, none lost, while a
# sender of not-trimmable frames loses what is dropped; a last hop writes
# DSCP 44. Then uet_port's answers for a port without a
# model and for no such device.
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/../fabric/fabric_lib.sh"
RATE=20		# Mbit/s of R1's ports
BUF=30000	# bytes of their buffer
SIZE=1000	# UDP payload of a datagram: frames of SIZE + 42 bytes
FRAME=$((SIZE + 42))
PORT=7000
fab_init

# rx_start: H3's receiver, until 400 ms pass without a datagram; the
# tbf's drops so far (rx_done counts those of this run).
rx_start() {
	QDROPS0=$(fab_port_qdrops r1 h3)
	: > "$E2E_TMP/rx"
	fab_host_in 3 timeout 30 "$B/uet_port_udp" recv "$PORT" --idle 400 \
		> "$E2E_TMP/rx" &
	RX=$!
	e2e_wait_for "$E2E_TMP/rx" '^ready' 5 || e2e_fail "no receiver on H3"
}

# send I TOS [SENDER OPTION...]: in the background, host I sends SIZE-byte
# datagrams with TOS byte TOS to H3 (its count goes to $E2E_TMP/sent.I).
SENDERS=()
send() {
	local i=$1 tos=$2
	shift 2
	fab_host_in "$i" "$B/uet_port_udp" send "${FAB_IP[3]}" "$PORT" \
		--tos "$tos" --size "$SIZE" "$@" > "$E2E_TMP/sent.$i" &
	SENDERS+=($!)
}

# sent I [failed]: datagrams host I sent in its last run, or with "failed"
# its sends that failed (0 for none): the number after that word of its
# line "sent N failed F".
sent() {
	awk -v k="${2:-sent}" '{ for (i = 1; i < NF; i++) if ($i == k)
		n = $(i + 1) } END { print n + 0 }' \
		"$E2E_TMP/sent.$1" 2>/dev/null || echo 0
}

# fair_runs N1 N2 RUN...: RUN (rx_start, senders, rx_done) made again
# while this machine could not carry it out, three runs at most, the last
# judged as it is: a run is no test of the model when a sender sent fewer
# than 9/10 of its N datagrams or had sends fail (a CPU's backlog full
# while its softirqs waited), or when the tbf dropped (its timer late by
# more than the room fab_port_limit leaves it). Each begins with the
# model's counters at 0.
fair_runs() {
	local n1=$1 n2=$2 run
	shift 2
	for run in 1 2 3; do
		fab_port_reset r1 h3
		"$@"
		why="H1 sent $SENT1 of $n1 and H2 $SENT2 of $n2, failed"
		why+=" $FAILED1 and $FAILED2, the tbf dropped $QDROPS"
		if [ "$FAILED1" = 0 ] && [ "$FAILED2" = 0 ] &&
		   [ "$QDROPS" = 0 ] && [ $(( 10 * SENT1 )) -ge $(( 9 * n1 )) ] &&
		   [ $(( 10 * SENT2 )) -ge $(( 9 * n2 )) ]; then
			why=
			return 0
		fi
		e2e_log "run $run was not the machine's to carry out ($why)"
	done
}

# traffic TOS1 TOS2: H1 and H2 both at the port's rate for a second, H3
# counting (rx_done), as fair_runs makes it.
SCHED=$(( RATE * 1000000 / 8 / FRAME ))	# datagrams in a sender's second
traffic_run() {
	rx_start
	send 1 "$1" --rate "$RATE" --seconds 1
	send 2 "$2" --rate "$RATE" --seconds 1
	rx_done
}
traffic() { fair_runs "$SCHED" "$SCHED" traffic_run "$@"; }

# rx_done: waits for the senders and the receiver; sets SENT1, SENT2, the
# model's counters (P_passed, P_marked, P_trimmed, P_dropped, P_maxq) and
# QDROPS (the tbf's own, in this run).
rx_done() {
	local n
	wait "${SENDERS[@]}" || e2e_fail "a sender failed"
	SENDERS=()
	wait "$RX" || e2e_fail "H3's receiver failed"
	SENT1=$(sent 1)
	SENT2=$(sent 2)
	FAILED1=$(sent 1 failed)
	FAILED2=$(sent 2 failed)
	for n in passed marked trimmed dropped maxq; do
		printf -v "P_$n" '%s' "$(fab_port_stat r1 h3 "$n")"
	done
	QDROPS=$(( $(fab_port_qdrops r1 h3) - QDROPS0 ))
	e2e_log "sent $SENT1 + $SENT2 (failed $FAILED1 + $FAILED2)," \
		"model: $(fab_port_stats r1 h3), tbf drops $QDROPS"
	sed -n 's/^from/  H3 got from/p' "$E2E_TMP/rx"
	rm -f "$E2E_TMP"/sent.*
}

# got I [TOS [LEN]]: datagrams H3 got from host I (with TOS byte TOS and
# LEN bytes of payload).
got() {
	awk -v f="${FAB_IP[$1]}" -v t="${2:-}" -v l="${3:-}" '$2 == f &&
		(t == "" || $4 == t) && (l == "" || $6 == l) { n += $8 }
		END { print n + 0 }' "$E2E_TMP/rx"
}

# only I TOS:LEN...: H3 got nothing from host I but those kinds.
only() {
	local i=$1 k n=0
	shift
	for k in "$@"; do n=$(( n + $(got "$i" "${k%:*}" "${k#*:}") )); done
	why="from H$i: $(got "$i") datagrams, $n of them ${*}"
	[ "$n" = "$(got "$i")" ]
}

# is A OP B: a check of two numbers that says which when it fails.
is() { why="$1 $2 $3 is false"; test "$1" "$2" "$3"; }

fab_star 3 "$RATE" "$BUF" 1500

# ---- ECN marking above 10000 bytes ------------------------------------------
fab_port_model r1 h3 10000 0
traffic 0x02 0x00
ce=$(got 1 0x03 "$SIZE")
e2e_check "marking: ECT(0) frames get CE" is "$P_marked" -gt 0
e2e_check "marking: H3 got as many CE frames as the model marked" \
	is "$ce" = "$P_marked"
e2e_check "marking: ECT(0) frames arrive ECT(0) or CE, whole" \
	only 1 "0x02:$SIZE" "0x03:$SIZE"
e2e_check "marking: not-ECT frames are never marked" only 2 "0x00:$SIZE"
e2e_check "marking: the port dropped (twice its rate offered)" \
	is "$P_dropped" -gt 0
e2e_check "marking: every frame lost was the model's drop" \
	is $(( $(got 1) + $(got 2) + P_dropped )) = $(( SENT1 + SENT2 ))
e2e_check "marking: the queue peaked above the buffer by a frame at most" \
	test "$P_maxq" -gt "$BUF" -a "$P_maxq" -le $(( BUF + FRAME ))
e2e_check "marking: the tbf dropped nothing itself" is "$QDROPS" = 0

# tcp, frame by frame: without ECN (the hosts' default: tcp_ecn 2 only
# answers) never marked, only dropped; asking for ECN, marked.
fab_host_gso_off
tcp_run() {	# tcp_run: 3 MB from H1 to H3 (nc); P_* as after rx_done
	local s n
	fab_port_reset r1 h3
	fab_host_in 3 timeout 20 nc -d -l -n "$PORT" > /dev/null &
	s=$!
	for _ in $(seq 100); do
		fab_host_in 3 ss -Hltn "sport = :$PORT" | grep -q . && break
		sleep 0.05
	done
	head -c 3000000 /dev/zero |
		fab_host_in 1 timeout 20 nc -N -n "${FAB_IP[3]}" "$PORT" ||
		{ why="the transfer failed"; wait "$s"; return 1; }
	wait "$s" || { why="the receiver failed"; return 1; }
	for n in passed marked trimmed dropped maxq; do
		printf -v "P_$n" '%s' "$(fab_port_stat r1 h3 "$n")"
	done
	e2e_log "tcp (tcp_ecn $(fab_host_in 1 sysctl -n net.ipv4.tcp_ecn)):" \
		"$(fab_port_stats r1 h3), tbf drops $(fab_port_qdrops r1 h3)"
}
e2e_check "tcp without ECN: 3 MB across" tcp_run
e2e_check "tcp without ECN: never marked" is "$P_marked" = 0
e2e_check "tcp without ECN: frame by frame (the queue within buffer + a frame)" \
	test "$P_passed" -ge 2000 -a "$P_maxq" -le $(( BUF + 1514 ))
fab_host_in 1 sysctl -qw net.ipv4.tcp_ecn=1
e2e_check "tcp with ECN: 3 MB across" tcp_run
e2e_check "tcp with ECN: marked" is "$P_marked" -gt 0

# ---- drops only above the buffer --------------------------------------------
# watch_start, watch_stop: uet_port watch h3 on R1 into $E2E_TMP/watch;
# SIGTERM ends it with its lines written out.
watch_start() {
	ip netns exec "$(fab_ns r1)" "$B/uet_port" watch h3 \
		> "$E2E_TMP/watch" &
	WATCH=$!
}
watch_stop() {
	kill -TERM "$WATCH"
	wait "$WATCH" || e2e_fail "uet_port watch failed (exit $?)"
}
# Bursts from one socket as fast as it sends: a 20-frame one fits the
# 30000-byte buffer, a 60-frame one does not.
fab_port_model r1 h3 0 0
burst() {
	rx_start
	send 1 0x00 --count "$1" --seconds 5
	rx_done
}
burst 20
e2e_check "a 20-frame burst below the buffer: nothing dropped" \
	is "$P_dropped" = 0
e2e_check "a 20-frame burst: all arrive" is "$(got 1)" = 20
e2e_check "a 20-frame burst queues ($P_maxq bytes at most)" \
	test "$P_maxq" -ge $(( 10 * FRAME )) -a "$P_maxq" -le "$BUF"
fab_port_reset r1 h3
out=$(fab_port_stats r1 h3)
why=$out
e2e_check "reset: every counter 0" \
	test "$out" = "passed 0 bytes 0 marked 0 trimmed 0 dropped 0 maxq 0"
watch_start
burst 60
watch_stop
e2e_check "a 60-frame burst above the buffer: drops" is "$P_dropped" -gt 0
e2e_check "a 60-frame burst: what was not dropped arrives" \
	is $(( $(got 1) + P_dropped )) = 60
e2e_check "a 60-frame burst: the queue never beyond buffer + a frame" \
	is "$P_maxq" -le $(( BUF + FRAME ))
e2e_check "a 60-frame burst: the tbf dropped nothing itself" is "$QDROPS" = 0

# uet_port watch saw that burst's queue come and go, 1 ms a sample: the
# queue read now, drained since the model last updated it.
w=$E2E_TMP/watch
wl="$(wc -l < "$w") lines, the last '$(tail -n 1 "$w")'"
why=$wl
e2e_check "watch: a line a millisecond or so (5 fields each)" \
	awk '{ n++ } NF != 5 { exit 1 } END { exit !(n >= 100) }' "$w"
wq=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$w")
why="model's maxq $P_maxq"
e2e_check "watch: the queue rose during the burst ($wq bytes at most)" \
	test "$wq" -ge $(( 10 * FRAME )) -a "$wq" -le "$P_maxq"
why=$wl
e2e_check "watch: the queue drained back to 0" \
	test "$(tail -n 1 "$w" | cut -d' ' -f2)" = 0
why="$wl; the model: passed $P_passed dropped $P_dropped"
e2e_check "watch: its last counters are the model's (passed, dropped)" \
	awk -v p="$P_passed" -v d="$P_dropped" 'END {
		exit !($3 >= p && $4 == d) }' "$w"

# ---- trimming above 15000 bytes ----------------------------------------------
# H1 sends DSCP 10 (trimmable) with ECT(0): 0x2a; H2 not trimmable.
fab_port_model r1 h3 0 15000
traffic 0x2a 0x00
cut=$(got 1 0xba 64)
e2e_check "trimming: DSCP 10 frames are trimmed" is "$P_trimmed" -gt 0
e2e_check "trimming: H3 got them at 64 bytes with DSCP 46, ECT(0) kept" \
	is "$cut" = "$P_trimmed"
e2e_check "trimming: H1's frames arrive whole or so trimmed" \
	only 1 "0x2a:$SIZE" "0xba:64"
e2e_check "trimming: none of H1's trimmable frames is lost" \
	is "$(got 1)" = "$SENT1"
e2e_check "trimming: H2's untrimmable ones are dropped instead" \
	test "$P_dropped" -gt 0 -a $(( $(got 2) + P_dropped )) = "$SENT2"
e2e_check "trimming: H2's frames arrive untouched" only 2 "0x00:$SIZE"
e2e_check "trimming: the tbf dropped nothing itself" is "$QDROPS" = 0

# A last hop, keeping 32 bytes: H1 alone at twice the rate.
fab_port_model r1 h3 0 15000 --lasthop --trim-keep 32
lasthop_run() {
	rx_start
	send 1 0x29 --rate $(( 2 * RATE )) --seconds 0.5
	rx_done
}
fair_runs "$SCHED" 0 lasthop_run
e2e_check "last hop: trimmed to 32 bytes with DSCP 44, ECT(1) kept" \
	test "$P_trimmed" -gt 0 -a "$(got 1 0xb1 32)" = "$P_trimmed"
e2e_check "last hop: nothing else changed, nothing lost" \
	test "$(got 1 0x29 "$SIZE")" = $(( SENT1 - P_trimmed ))

# ---- uet_port's answers ------------------------------------------------------
fab_port_stats r1 h3 > /dev/null
out=$(fab_router_in r1 "$B/uet_port" stats h3 --json)
json=""
for k in passed bytes marked trimmed dropped maxq; do json+=",\"$k\":[0-9]+"; done
json="^\\{${json#,}\\}\$"
why=$out
e2e_check "stats --json: one object with the six counters" \
	grep -Eq "$json" <<< "$out"
fab_port_nomodel r1 h3
filters=$(tc -n "$(fab_ns r1)" filter show dev h3 egress)
why="left: $filters"
e2e_check "detach removes the filter" test -z "$filters"
refused() {	# refused WORDS CMD...: fails unless CMD fails saying WORDS
	local words=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	why="rc $rc: $out"
	[ "$rc" != 0 ] && grep -q "$words" <<< "$out"
}
e2e_check "stats without a model: refused, clearly" \
	refused "no port model attached" fab_router_in r1 "$B/uet_port" stats h3
e2e_check "no such device: refused, clearly" \
	refused "no such device" fab_router_in r1 "$B/uet_port" stats nodev0
e2e_check "attach without --rate: a usage error" \
	refused "attach needs --rate" \
	fab_router_in r1 "$B/uet_port" attach h3 --buf 1
fab_port_model r1 h2 0 0
e2e_stage "$B/uet_port"
e2e_check "not root: refused, clearly" refused "permission denied" \
	fab_router_in r1 setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$E2E_STAGE/uet_port" stats h2

# ---- nothing left behind ----------------------------------------------------
# A model's program lives as long as its filter: gone with the router's
# namespace (which the kernel frees a moment after `ip netns del`).
id=$(tc -n "$(fab_ns r1)" filter show dev h2 egress |
	sed -nE 's/.* id ([0-9]+) name uet_port_egress.*/\1/p')
fab_teardown
gone() {
	local i
	[ -n "$id" ] || { why="no program id on h2"; return 1; }
	for i in $(seq 100); do
		bpftool prog show id "$id" > /dev/null 2>&1 || return 0
		sleep 0.05
	done
	why="program $id still loaded 5 s after the teardown"
	return 1
}
e2e_check "teardown: the model's program is gone" gone
e2e_checks_done
