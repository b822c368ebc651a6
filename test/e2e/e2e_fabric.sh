#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The emulated fabric of test/fabric/fabric_lib.sh checks itself: both
# topologies come up at MTU 1500 and 9000 and carry full-size frames
# between hosts across the routers; ECMP spreads flows (UDP datagrams from
# many source ports land on every one of the parallel links, one source
# port stays on one link); a tbf link of 100 Mbit/s, then 25, carries a TCP
# transfer in about the time its rate says; a dropping link shows drops
# and nothing beyond its router; a lossy link drops about the share asked;
# a link down carries nothing and its flows move, up again it carries.
# Then uet across 4 paths: a uet_bw fi_write stream and fi_soak's verified
# writes complete; the links that carried them are printed, not judged
# (one uet flow uses one link until the provider sprays).
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/../fabric/fabric_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
SIZE=1000	# UDP payload of the test datagrams

snap() { fab_link_counters > "$E2E_TMP/$1"; }
# since SNAP: the counters' changes since snapshot SNAP, into $E2E_TMP/d
since() { fab_link_counters > "$E2E_TMP/now"; fab_counters_diff "$E2E_TMP/$1" "$E2E_TMP/now" > "$E2E_TMP/d"; }
# val LINK DIR COLUMN: from $E2E_TMP/d (3 bytes, 4 packets, 5 drops, 6 far
# bytes, 7 queue drops, 8 injected drops)
val() { awk -v l="$1" -v d="$2" -v c="$3" '$1 == l && $2 == d { print $c }' "$E2E_TMP/d"; }
# rx H: packets host H's fab0 received
rx() { fab_host_in "$1" cat /sys/class/net/fab0/statistics/rx_packets; }

# spray H DST N: N datagrams from host H to DST port 9, each from a socket
# of its own (bash's /dev/udp: a new ephemeral source port each).
spray() {
	fab_host_in "$1" bash -c 'for ((i = 0; i < $2; i++)); do
		printf "%*s" "$3" "" > "/dev/udp/$1/9"; done' _ "$2" "$3" "$SIZE" \
		2>/dev/null || true
}

# stream H DST N: N datagrams from host H to DST port 5001, one socket (a
# sink there keeps ICMP errors away).
stream() {
	fab_host_in "$1" bash -c 'exec 3> "/dev/udp/$1/5001"
		for ((i = 0; i < $2; i++)); do printf "%*s" "$3" "" >&3; done' \
		_ "$2" "$3" "$SIZE" 2>/dev/null || true
}
sink() {
	fab_host_in "$1" nc -d -u -l -k -n 5001 > /dev/null 2>&1 &
	sleep 0.2
}

# used DIR LINKS...: sets $why and fails unless every link carried at
# least one datagram that way.
used() {
	local d=$1 l b
	shift
	for l in "$@"; do
		b=$(val "$l" "$d" 3)
		[ "$b" -ge "$SIZE" ] || { why="link $l $d: $b bytes"; return 1; }
	done
}

# pings H DST: an ordinary ping and a full-size one that may not fragment.
pings() {
	why="ping $1 to $2 at $FAB_MTU"
	fab_host_in "$1" ping -q -c 2 -i 0.2 -W 2 "$2" > /dev/null &&
		fab_host_in "$1" ping -q -c 1 -W 2 -M "do" -s $(( FAB_MTU - 28 )) \
			"$2" > /dev/null
}

# one_link N: the stream went over exactly one link (at least N packets
# there, under a tenth of that on each other link).
one_link() {
	local n=$1 l p hit=0
	for l in $(seq "$FAB_NLINKS"); do
		p=$(val "$l" fwd 4)
		if [ "$p" -ge "$n" ]; then
			hit=$((hit + 1))
		elif [ "$p" -gt $(( n / 10 )) ]; then
			why="link $l also carried $p packets"
			return 1
		fi
	done
	[ "$hit" = 1 ] || { why="$hit links carried $n packets"; return 1; }
}

# ecmp N: N datagrams from H1 to H2 over many source ports reach H2, and
# every link up carried some.
ecmp() {
	local n=$1 r0 got links=()
	for l in $(seq "$FAB_NLINKS"); do
		[ "${FAB_L_DOWN[$l]}" = 1 ] || links+=("$l")
	done
	r0=$(rx 2)
	snap ecmp
	spray 1 "${FAB_IP[2]}" "$n"
	sleep 0.2
	since ecmp
	got=$(( $(rx 2) - r0 ))
	[ "$got" -ge "$n" ] || { why="H2 received $got of $n"; return 1; }
	used fwd "${links[@]}"
}

# tcp_time H DST BYTES: milliseconds a TCP transfer of BYTES from host H
# to DST took (nc), or fails.
tcp_time() {
	local port=$((5100 + RANDOM % 100)) t0 t1
	fab_host_in 2 timeout 60 nc -d -l -n "$port" > /dev/null &
	local s=$!
	for _ in $(seq 100); do
		fab_host_in 2 ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.05
	done
	t0=$(now_ms)
	head -c "$3" /dev/zero | fab_host_in "$1" timeout 60 nc -N -n "$2" "$port" ||
		{ wait "$s"; return 1; }
	wait "$s" || return 1
	t1=$(now_ms)
	echo $(( t1 - t0 ))
}

# rate_ok MBIT BYTES: a transfer of BYTES through the one link at MBIT
# takes no less than 0.8 times the time the rate says (the queue limits
# it) and no more than 6 times (it flows; the machine is shared).
rate_ok() {
	local ms want
	want=$(( $2 * 8 / ($1 * 1000) ))
	ms=$(tcp_time 1 "${FAB_IP[2]}" "$2") || { why="transfer failed"; return 1; }
	why="$2 bytes at $1 Mbit/s: $ms ms, the rate says $want ms"
	e2e_log "$why"
	[ "$ms" -ge $(( want * 8 / 10 )) ] && [ "$ms" -le $(( want * 6 )) ]
}

# ---- topology (a), 4 links, MTU 1500 ------------------------------------------
fab_paths 4 1000 262144 1500
sink 2
e2e_check "paths at MTU 1500: H1 reaches H2" pings 1 "${FAB_IP[2]}"
e2e_check "ECMP: 256 source ports reach H2 over all 4 links" ecmp 256
snap one
stream 1 "${FAB_IP[2]}" 300
since one
e2e_check "one source port stays on one link" one_link 300

fab_link_drop 1 fwd
r0=$(rx 2)
snap drop
spray 1 "${FAB_IP[2]}" 256
sleep 0.2
since drop
got=$(( $(rx 2) - r0 ))
dropped=$(val 1 fwd 8)
e2e_log "link 1 dropping fwd: $dropped injected drops, H2 got $got of 256"
why="link 1 fwd: $dropped drops, $(val 1 fwd 3) bytes sent, $(val 1 fwd 6) beyond"
e2e_check "a dropping link: drops counted, no bytes past its router" \
	test "$dropped" -gt 0 -a "$(val 1 fwd 3)" = 0 -a "$(val 1 fwd 6)" = 0 \
	-a "$got" -lt 256 -a $(( got + dropped )) -ge 256
fab_link_restore 1
e2e_check "restored, all 4 links carry again" ecmp 256

fab_link_loss 3 30 fwd
snap loss
spray 1 "${FAB_IP[2]}" 1200
sleep 0.2
since loss
lost=$(val 3 fwd 8)
passed=$(val 3 fwd 4)
pm=$(( lost * 1000 / (lost + passed + 1) ))
e2e_log "link 3 at 30% loss: dropped $lost of $(( lost + passed ))"
why="$pm per mille"
e2e_check "a lossy link (30%) drops between 15% and 45%" \
	test "$pm" -ge 150 -a "$pm" -le 450
fab_link_restore 3

fab_link_down 2
why="link 2 down"
e2e_check "link 2 down: H1 still reaches H2" pings 1 "${FAB_IP[2]}"
e2e_check "link 2 down: flows move to the other 3" ecmp 256
why="link 2 carried $(val 2 fwd 3) bytes while down"
e2e_check "link 2 down carries nothing" test "$(val 2 fwd 3)" = 0
fab_link_up 2
e2e_check "link 2 up again: all 4 links carry" ecmp 256

# ---- topology (a), 1 link: tbf's rate, then a quarter of it ---------------------
fab_paths 1 100 262144 1500
e2e_check "tbf at 100 Mbit/s limits a TCP transfer" rate_ok 100 12500000
fab_link_rate 1 25
e2e_check "the link slowed to 25 Mbit/s limits it to a quarter" rate_ok 25 3125000

# ---- leaf/spine -----------------------------------------------------------------
leaf_spine() {	# leaf_spine SPINES MTU
	local s=$1 up=() down=() i
	fab_leaf_spine 2 "$s" 2 1000 262144 "$2"
	for i in 2 3 4; do
		e2e_check "leaf/spine ($s spines) at MTU $2: H1 reaches H$i" \
			pings 1 "${FAB_IP[$i]}"
	done
	e2e_check "leaf/spine at MTU $2: H4 reaches H1" pings 4 "${FAB_IP[1]}"
	snap ls
	spray 1 "${FAB_IP[3]}" 256
	sleep 0.2
	since ls
	for i in $(seq "$s"); do up+=("$i"); down+=($(( s + i ))); done
	e2e_check "H1 to H3 over all $s spines (leaf 1 up-links)" used fwd "${up[@]}"
	e2e_check "H1 to H3: every spine down to leaf 2" used rev "${down[@]}"
}
leaf_spine 2 1500
leaf_spine 4 9000

# ---- topology (a), 4 links, MTU 9000, and uet ------------------------------------
fab_paths 4 1000 262144 9000
e2e_check "paths at MTU 9000: H1 reaches H2" pings 1 "${FAB_IP[2]}"
e2e_check "ECMP at MTU 9000: all 4 links" ecmp 256
fab_uet_load
export FI_UET_IFACE=fab0

# uet_run NAME SERVER_CMD -- CLIENT_CMD: both over uet, H2 the server;
# prints the programs' figures and the links that carried them.
uet_run() {
	local name=$1 sargs=() cargs=() s rc=0
	shift
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	snap uet
	fab_host_in 2 env FI_PROVIDER=uet timeout 60 "${sargs[@]}" \
		> "$E2E_TMP/srv.out" 2>&1 &
	s=$!
	fab_host_in 1 env FI_PROVIDER=uet timeout 60 "${cargs[@]}" \
		> "$E2E_TMP/cli.out" 2>&1 || rc=$?
	wait "$s" || rc=$((rc + 100))
	since uet
	# its figures (not its "all ok", which the e2e tally would count)
	grep -h 'MB/s' "$E2E_TMP/srv.out" "$E2E_TMP/cli.out" | sed "s/^/  /" || true
	fab_counters_show "$E2E_TMP/d"
	why="$name: rc $rc"
	return $rc
}
port=$((46000 + RANDOM % 3000))
e2e_check "uet_bw: 1 MiB fi_writes across 4 paths" \
	uet_run uet_bw "$B/uet_bw" -s -a "${FAB_IP[2]}" -p "$port" -n 1048576 -- \
	"$B/uet_bw" -c "${FAB_IP[2]}" -p "$port" -n 1048576 -i 100
grep -q "MB/s" "$E2E_TMP/cli.out" || e2e_check "uet_bw reports MB/s" false
e2e_log "uet_bw used $(fab_links_used "$E2E_TMP/d" fwd 5) of 4 links (over 5% of its bytes)"
port=$((port + 1))
soak_ok() {
	uet_run fi_soak "$B/fi_soak" -s -a "${FAB_IP[2]}" -p "$port" -T 50 -- \
		"$B/fi_soak" -c "${FAB_IP[2]}" -p "$port" -T 50 -m rma -M 64 &&
		grep -q "^fi_soak: server: all ok" "$E2E_TMP/srv.out" &&
		[ "$(awk '$2 == "fwd" { t += $3 } END { print t + 0 }' "$E2E_TMP/d")" \
			-ge $(( 64 << 20 )) ]
}
e2e_check "fi_soak: 64 MiB written in 1 MiB fi_writes, every byte checked" soak_ok
e2e_log "fi_soak used $(fab_links_used "$E2E_TMP/d" fwd 5) of 4 links (over 5% of its bytes)"
e2e_checks_done
