# SPDX-License-Identifier: BSD-2-Clause
# An emulated Ethernet fabric in network namespaces, for tests and
# benchmarks: hosts and IPv4 routers that spread flows over equal-cost
# paths by hashing the 5-tuple (so by the UDP source port, UET's entropy
# value), a tbf queue on every router port of a fabric link (both
# directions), failures to inject and counters per link and direction.
# Source it after test/e2e/e2e_lib.sh (B, E2E_ID, E2E_TMP, e2e_log/fail).
#
# Topology (a), fab_paths K ...: two hosts, two routers, K parallel links
#
#              .--- link 1 ---.
#   H1 ---- R1 +--- link 2 ---+ R2 ---- H2
#              '--- link K ---'
#
# Topology (b), fab_leaf_spine L S N ...: a two-tier leaf/spine, N hosts
# on each of L leaves, every leaf linked to every one of S spines; link
# (l, s) is number (l - 1) * S + s
#
#          S1      S2          spines
#          | \    / |
#          |  \  /  |          L * S links
#          |   \/   |
#          |   /\   |
#          L1      L2          leaves
#         /  \    /  \
#        H1  H2  H3  H4        hosts (N per leaf)
#
# Every host has one interface, fab0 (so FI_UET_IFACE=fab0 and `uetctl
# load fab0` are the same everywhere), address FAB_IP[i] = 10.100.i.2/24
# and a default route to its router (10.100.i.1). Link j joins end A
# (10.101.j.1, the lower router: R1 or a leaf) and end B (10.101.j.2: R2
# or a spine), each a port named lj in its router. Direction fwd is A to
# B, rev is B to A; each is shaped by the tbf on its sending port and may
# be cut by an nftables netdev egress chain there (eg_lj, drops counted by
# the named counter drop_lj). AF_XDP transmit bypasses the sending host's
# qdisc, which is why queues and faults live on the routers only.
# Topology (c), fab_star N ...: hosts H1..HN all on one router R1, each
# router port hI shaped toward its host; in an incast of H1..HN-1 to HN
# R1's port hN is the bottleneck.
#
# A router port may carry a switch-port model (fab_port_model: ECN marks,
# trimming and drops decided by bpf/uet_port.bpf.c ahead of its tbf).
# Namespaces are uet-fE2E_ID-NAME (NAME h1.., r1 r2, l1.., s1..).

# The example programs' flag the benchmarks of a fabric give uet_bw and
# uet_pingpong (FAB_WAIT, default -w): they wait for completions in
# fi_cq_sread, as applications on shared cores do, so that the emulated
# routers (softirq on the same 2 cores) get the CPU the spinning of 2 x N
# processes took; FAB_WAIT= spins as HPC programs on cores of their own.
FAB_WAIT=${FAB_WAIT--w}

FAB_PREFIX="uet-f$E2E_ID"
FAB_NS=()		# every namespace made (hosts and routers)
FAB_HOSTS=()		# host namespaces, index 1..
FAB_IP=()		# host addresses, index 1..
FAB_ETC=()		# hosts given /etc/netns files (fab_names)
FAB_NLINKS=0
FAB_L_NSA=() FAB_L_NSB=() FAB_L_DOWN=()
FAB_L_RATE=()		# each link's rate (Mbit/s), for scripts
FAB_ROUTES=()		# "NS PREFIX LINK LINK ...": a route over those links
FAB_BUF=0 FAB_MTU=1500
FAB_BURST_US=${FAB_BURST_US:-200}	# tbf bucket: this much of the rate
FAB_TRAPPED=0
# Per router port, keyed "NS/PORT": its tbf rate (Mbit/s) and buffer
# (bytes), and the uet_port options of its model when it has one.
declare -gA FAB_PORT_RATE=() FAB_PORT_BUF=() FAB_PORT_MODEL=()

# fab_init: root (e2e_require_root: a failure under CI=true, else a skip),
# the cleanup trap, and a bpffs of the run's own for the hosts' uetctl
# (`ip netns exec` hides /sys/fs/bpf; see e2e_setup).
fab_init() {
	[ "$FAB_TRAPPED" = 1 ] && return 0
	trap fab_cleanup EXIT
	trap 'exit 130' INT TERM
	FAB_TRAPPED=1
	e2e_require_root
	command -v nft >/dev/null || e2e_fail "nft missing (make deps: nftables)"
	mkdir -p "$E2E_TMP/bpffs"
	mount -t bpf bpf "$E2E_TMP/bpffs"
	export UET_BPFFS="$E2E_TMP/bpffs" LIBXDP_BPFFS="$E2E_TMP/bpffs"
}

# fab_ns NAME: the namespace of node NAME (h1, r1, l2, s1, ...).
fab_ns() { echo "$FAB_PREFIX-$1"; }

# fab_node_add NAME router|host: a namespace with lo up; a router
# forwards, hashes the L4 5-tuple for multipath routes (policy 1), skips
# nexthops whose link is down, has no reverse-path filter and no IPv6
# (nothing of its own crosses the fabric links but ARP).
fab_node_add() {
	local ns
	ns=$(fab_ns "$1")
	ip netns add "$ns"
	FAB_NS+=("$ns")
	ip -n "$ns" link set lo up
	[ "$2" = router ] || return 0
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.fib_multipath_hash_policy=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.conf.all.ignore_routes_with_linkdown=1 \
		net.ipv4.conf.default.ignore_routes_with_linkdown=1 \
		net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip netns exec "$ns" nft add table netdev fab
}

# fab_burst RATE_MBIT: tbf's bucket in bytes, FAB_BURST_US of the rate but
# at least two frames (a real port sends at line rate; a deep bucket would
# let bursts through faster than the rate).
fab_burst() {
	local b=$(( $1 * FAB_BURST_US / 8 )) min=$(( 2 * (FAB_MTU + 14) ))
	echo $(( b > min ? b : min ))
}

# fab_shape NS IF RATE_MBIT: IF's root qdisc a tbf at RATE, queue FAB_BUF
# bytes (tail drop); `change` keeps the qdisc's counters when there is one.
# A port with a model keeps it, at the new rate (fab_port_model), and its
# tbf gets a size table that does nothing but make it count a frame's
# length again as the frame reaches it: without one it charges the length
# taken before clsact egress ran, and a frame the model trimmed would cost
# the tbf its whole length in rate and queue.
fab_shape() {
	local op=replace key=$1/$2 limit=$FAB_BUF stab=()
	FAB_PORT_RATE[$key]=$3
	FAB_PORT_BUF[$key]=$FAB_BUF
	if [ -n "${FAB_PORT_MODEL[$key]:-}" ]; then
		limit=$(fab_port_limit "$FAB_BUF")
		stab=(stab overhead 0 linklayer ethernet)
	fi
	tc -n "$1" qdisc show dev "$2" | grep -q '^qdisc tbf' && op=change
	tc -n "$1" qdisc "$op" dev "$2" root "${stab[@]}" tbf rate "${3}mbit" \
		burst "$(fab_burst "$3")" limit "$limit"
	[ -z "${FAB_PORT_MODEL[$key]:-}" ] || fab_port_attach "$1" "$2"
}

# fab_port_nft NS IF: IF's egress chain (empty: all pass) and its counter
# of injected drops, in table netdev fab of NS.
fab_port_nft() {
	ip netns exec "$1" nft -f - <<-EOF
		add counter netdev fab drop_$2
		add chain netdev fab eg_$2 { type filter hook egress device "$2" priority 0; }
	EOF
}

# fab_host_add I ROUTER: host I (namespace hI) with fab0 joined to port hI
# of ROUTER; 10.100.I.2/24, default route via 10.100.I.1.
fab_host_add() {
	local i=$1 ns rns
	fab_node_add "h$i" host
	ns=$(fab_ns "h$i")
	rns=$(fab_ns "$2")
	ip -n "$rns" link add "h$i" mtu "$FAB_MTU" type veth peer name fab0 \
		netns "$ns" mtu "$FAB_MTU"
	ip -n "$rns" addr add "10.100.$i.1/24" dev "h$i"
	ip -n "$rns" link set "h$i" up
	ip -n "$ns" addr add "10.100.$i.2/24" dev fab0
	ip -n "$ns" link set fab0 up
	ip -n "$ns" route add default via "10.100.$i.1"
	FAB_HOSTS[$i]=$ns
	FAB_IP[$i]="10.100.$i.2"
}

# fab_link_add A B RATE_MBIT: the next link j between routers A and B,
# ports lj on both, shaped both ways, with their egress chains.
fab_link_add() {
	local j=$(( FAB_NLINKS + 1 )) a b
	a=$(fab_ns "$1")
	b=$(fab_ns "$2")
	ip -n "$a" link add "l$j" mtu "$FAB_MTU" type veth peer name "l$j" \
		netns "$b" mtu "$FAB_MTU"
	ip -n "$a" addr add "10.101.$j.1/24" dev "l$j"
	ip -n "$b" addr add "10.101.$j.2/24" dev "l$j"
	for ns in "$a" "$b"; do
		ip -n "$ns" link set "l$j" up
		fab_shape "$ns" "l$j" "$3"
		fab_port_nft "$ns" "l$j"
	done
	FAB_NLINKS=$j
	FAB_L_NSA[$j]=$a
	FAB_L_NSB[$j]=$b
	FAB_L_RATE[$j]=$3
	FAB_L_DOWN[$j]=0
}

# fab_routes: installs (again) every route of FAB_ROUTES over the links
# that are up; a route left with none is removed.
fab_routes() {
	local r ns pfx j end via nh
	for r in "${FAB_ROUTES[@]}"; do
		set -- $r
		ns=$1 pfx=$2
		shift 2
		nh=()
		for j in "$@"; do
			[ "${FAB_L_DOWN[$j]}" = 0 ] || continue
			# the far end's address: .2 seen from A, .1 from B
			end=2
			[ "$ns" = "${FAB_L_NSB[$j]}" ] && end=1
			via="10.101.$j.$end"
			nh+=(nexthop via "$via" dev "l$j")
		done
		if [ "${#nh[@]}" = 0 ]; then
			ip -n "$ns" route del "$pfx" 2>/dev/null || true
		else
			ip -n "$ns" route replace "$pfx" "${nh[@]}"
		fi
	done
}

# fab_begin MTU BUF_BYTES: a new fabric (the previous one torn down).
fab_begin() {
	fab_init
	fab_teardown
	FAB_MTU=$1
	FAB_BUF=$2
	case $FAB_MTU in 1500|9000) ;; *) e2e_fail "fabric MTU $FAB_MTU: 1500 or 9000" ;; esac
	[ "$FAB_BUF" -ge $(( FAB_MTU + 14 )) ] ||
		e2e_fail "tbf buffer $FAB_BUF < one frame"
}

# fab_paths K RATE_MBIT BUF_BYTES MTU: topology (a), H1 - R1 =K links=
# R2 - H2, every link RATE_MBIT each way with a tbf queue of BUF_BYTES.
fab_paths() {
	local k=$1 rate=$2 j links=""
	fab_begin "$4" "$3"
	fab_node_add r1 router
	fab_node_add r2 router
	fab_host_add 1 r1
	fab_host_add 2 r2
	for j in $(seq "$k"); do
		fab_link_add r1 r2 "$rate"
		links+=" $j"
	done
	FAB_ROUTES=("$(fab_ns r1) 10.100.2.0/24$links"
		    "$(fab_ns r2) 10.100.1.0/24$links")
	fab_routes
	e2e_log "fabric: H1 ${FAB_IP[1]} - R1 =$k x ${rate} Mbit/s= R2 - H2" \
		"${FAB_IP[2]}, MTU $FAB_MTU, tbf buffer $FAB_BUF B"
}

# fab_leaf_spine LEAVES SPINES HOSTS_PER_LEAF RATE_MBIT BUF_BYTES MTU
# [EDGE_MBIT]: topology (b). Leaf-spine links RATE_MBIT each way; the
# leaves' ports down to their hosts EDGE_MBIT (0, the default: unshaped).
# A leaf reaches a host of another leaf over every spine (ECMP); a spine
# reaches it over its one link to the host's leaf.
fab_leaf_spine() {
	local nl=$1 nsp=$2 per=$3 rate=$4 edge=${7:-0} l s h j links
	fab_begin "$6" "$5"
	for l in $(seq "$nl"); do fab_node_add "l$l" router; done
	for s in $(seq "$nsp"); do fab_node_add "s$s" router; done
	for l in $(seq "$nl"); do
		for h in $(seq $(( (l - 1) * per + 1 )) $(( l * per ))); do
			fab_host_add "$h" "l$l"
			[ "$edge" = 0 ] || fab_shape "$(fab_ns "l$l")" "h$h" "$edge"
		done
	done
	for l in $(seq "$nl"); do
		for s in $(seq "$nsp"); do fab_link_add "l$l" "s$s" "$rate"; done
	done
	FAB_ROUTES=()
	for h in $(seq $(( nl * per ))); do
		local hl=$(( (h - 1) / per + 1 ))
		for l in $(seq "$nl"); do
			[ "$l" = "$hl" ] && continue
			links=""
			for s in $(seq "$nsp"); do links+=" $(( (l - 1) * nsp + s ))"; done
			FAB_ROUTES+=("$(fab_ns "l$l") 10.100.$h.0/24$links")
		done
		for s in $(seq "$nsp"); do
			FAB_ROUTES+=("$(fab_ns "s$s") 10.100.$h.0/24 $(( (hl - 1) * nsp + s ))")
		done
	done
	fab_routes
	e2e_log "fabric: $nl leaves x $nsp spines, $per hosts a leaf" \
		"(${FAB_IP[*]}), links ${rate} Mbit/s, edge ${edge:-0}" \
		"(0: unshaped), MTU $FAB_MTU, tbf buffer $FAB_BUF B"
}

# fab_star HOSTS RATE_MBIT BUF_BYTES MTU: topology (c), hosts 1..HOSTS on
# router r1, every port of r1 toward a host (hI) RATE_MBIT with a tbf
# queue of BUF_BYTES. The hosts' own sending is not shaped (and AF_XDP
# would bypass it), so an incast meets its queue at r1's port to the
# receiver. fab_leaf_spine 1 1 HOSTS ... EDGE is the same on leaf l1 but
# for a spine link nothing uses.
fab_star() {
	local n=$1 rate=$2 h
	fab_begin "$4" "$3"
	fab_node_add r1 router
	for h in $(seq "$n"); do
		fab_host_add "$h" r1
		fab_shape "$(fab_ns r1)" "h$h" "$rate"
	done
	FAB_ROUTES=()	# every host is on r1's own subnets
	e2e_log "fabric: star of $n hosts (${FAB_IP[*]}) on R1, ports" \
		"${rate} Mbit/s, MTU $FAB_MTU, tbf buffer $FAB_BUF B"
}

# fab_host_in I CMD...: CMD in host I's namespace.
fab_host_in() {
	local i=$1
	shift
	ip netns exec "${FAB_HOSTS[$i]}" "$@"
}

# fab_names: every host's name resolves in every host, from the hosts file
# `ip netns exec` mounts from /etc/netns/NS (the machine's, plus the
# fabric's), and no DNS server is asked: a host's default route leads into
# the fabric, where a query to the machine's resolver waits out its
# time-outs (mpirun, looking up its hosts' names, took 44-60 s a job, and
# once in CI over 150 s). fab_teardown removes the files.
fab_names() {
	local i j ns
	for i in "${!FAB_HOSTS[@]}"; do
		ns=${FAB_HOSTS[$i]}
		mkdir -p "/etc/netns/$ns"
		FAB_ETC+=("$ns")
		{
			cat /etc/hosts
			for j in "${!FAB_HOSTS[@]}"; do
				echo "${FAB_IP[$j]} ${FAB_HOSTS[$j]}"
			done
		} > "/etc/netns/$ns/hosts"
		# no nameserver line: the resolver asks the namespace's own
		# loopback, and is refused at once
		echo "options attempts:1 timeout:1" > "/etc/netns/$ns/resolv.conf"
	done
}

# fab_router_in NAME CMD...: CMD in router NAME's namespace (r1, l1, s2).
fab_router_in() {
	local ns
	ns=$(fab_ns "$1")
	shift
	ip netns exec "$ns" "$@"
}

# fab_link_check I: fails unless I is a link of the fabric.
fab_link_check() {
	[[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le "$FAB_NLINKS" ] ||
		e2e_fail "no link $1 (the fabric has $FAB_NLINKS)"
}

# fab_dir_ns I fwd|rev|both: the namespaces whose port lI sends that way.
fab_dir_ns() {
	case $2 in
	fwd) echo "${FAB_L_NSA[$1]}" ;;
	rev) echo "${FAB_L_NSB[$1]}" ;;
	both) echo "${FAB_L_NSA[$1]} ${FAB_L_NSB[$1]}" ;;
	*) e2e_fail "direction $2: fwd, rev or both" ;;
	esac
}

# fab_link_rule I DIR pass|drop [MATCH...]: link I's egress chain in DIR
# passes all, or drops (and counts) the frames MATCH selects (all without
# MATCH); the other direction is left as it is. Each end changes in one
# nft transaction (the chain is never empty between its old rule and its
# new one), and with both, the two ends change at once: one nft run
# takes 5 to 15 ms on a busy machine, and a link dying one way 10 ms
# before the other is not what a dead port does.
fab_link_rule() {
	local i=$1 dir=$2 what=$3 ns cmd pids=()
	shift 3
	fab_link_check "$i"
	cmd="flush chain netdev fab eg_l$i"
	[ "$what" = pass ] ||
		cmd+="; add rule netdev fab eg_l$i $* counter name drop_l$i drop"
	for ns in $(fab_dir_ns "$i" "$dir"); do
		ip netns exec "$ns" nft "$cmd" &
		pids+=($!)
	done
	for ns in "${pids[@]}"; do
		wait "$ns" || e2e_fail "link $i: nft $cmd"
	done
}

# fab_link_drop I [fwd|rev|both]: link I drops every frame that way
# (default both), as a dead switch port: carrier stays up, routes stay.
fab_link_drop() { fab_link_rule "$1" "${2:-both}" drop; }

# fab_link_loss I PCT [fwd|rev|both]: link I drops PCT% of the frames at
# random that way (default both).
fab_link_loss() {
	[[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -le 100 ] || e2e_fail "loss $2%"
	fab_link_rule "$1" "${3:-both}" drop numgen random mod 100 lt "$2"
}

# fab_link_restore I: link I passes everything again both ways (the drop
# counters keep their counts).
fab_link_restore() { fab_link_rule "$1" both pass; }

# fab_link_down I: link I down at both ends, as a pulled cable: both
# routers stop using it (their nexthops over it die).
fab_link_down() {
	fab_link_check "$1"
	ip -n "${FAB_L_NSA[$1]}" link set "l$1" down
	ip -n "${FAB_L_NSB[$1]}" link set "l$1" down
	FAB_L_DOWN[$1]=1
}

# fab_link_up I: link I up again, its routes back (within 5 s).
fab_link_up() {
	local n
	fab_link_check "$1"
	ip -n "${FAB_L_NSA[$1]}" link set "l$1" up
	ip -n "${FAB_L_NSB[$1]}" link set "l$1" up
	for n in $(seq 100); do
		ip -n "${FAB_L_NSA[$1]}" link show "l$1" | grep -q LOWER_UP &&
			ip -n "${FAB_L_NSB[$1]}" link show "l$1" | grep -q LOWER_UP &&
			break
		sleep 0.05
	done
	FAB_L_DOWN[$1]=0
	fab_routes
}

# fab_link_rate I RATE_MBIT [fwd|rev|both]: link I's tbf rate that way
# (default both), e.g. a quarter of the others' for a slow link.
fab_link_rate() {
	local ns
	fab_link_check "$1"
	for ns in $(fab_dir_ns "$1" "${3:-both}"); do
		fab_shape "$ns" "l$1" "$2"
	done
	FAB_L_RATE[$1]=$2
}

# fab_link_counters: a line per link and direction since the fabric came
# up: "I DIR BYTES PACKETS DROPS FAR_BYTES QDROPS NFTDROPS": BYTES and
# PACKETS sent by the port (ip -s link tx: what got past the egress chain
# and the queue), DROPS all dropped there (QDROPS by the tbf queue,
# NFTDROPS by injection, plus the device's own), FAR_BYTES received by the
# far end (ip -s link rx).
fab_link_counters() {
	local ns line dev j dir a b
	local -A st qd nd
	for ns in "${FAB_NS[@]}"; do
		[[ "$ns" == *-h[0-9]* ]] && continue
		# ip -s -j link: "ifname rx_bytes rx_pkts rx_drop tx_bytes
		# tx_pkts tx_drop" a device
		while read -r dev line; do
			st[$ns/$dev]=$line
		done < <(ip -n "$ns" -s -j link show | sed 's/},{"ifindex"/\n/g' |
			sed -nE 's/.*"ifname":"([^"]*)".*"rx":\{"bytes":([0-9]+),"packets":([0-9]+),"errors":[0-9]+,"dropped":([0-9]+).*"tx":\{"bytes":([0-9]+),"packets":([0-9]+),"errors":[0-9]+,"dropped":([0-9]+).*/\1 \2 \3 \4 \5 \6 \7/p')
		while read -r dev line; do
			qd[$ns/$dev]=$line
		done < <(tc -n "$ns" -s -j qdisc show | sed 's/},{"kind"/\n/g' |
			sed -nE 's/.*"dev":"([^"]*)".*"drops":([0-9]+).*/\1 \2/p')
		while read -r dev line; do
			nd[$ns/$dev]=$line
		done < <(ip netns exec "$ns" nft list counters table netdev fab |
			awk '/counter drop_/ { sub("drop_", "", $2); d = $2 }
			     /packets/ && d != "" { print d, $2; d = "" }')
	done
	for j in $(seq "$FAB_NLINKS"); do
		for dir in fwd rev; do
			a=${FAB_L_NSA[$j]}/l$j b=${FAB_L_NSB[$j]}/l$j
			[ "$dir" = rev ] && { a=${FAB_L_NSB[$j]}/l$j; b=${FAB_L_NSA[$j]}/l$j; }
			set -- ${st[$a]:-0 0 0 0 0 0}
			local tb=$4 tp=$5 td=$6 q=${qd[$a]:-0} n=${nd[$a]:-0}
			set -- ${st[$b]:-0 0 0 0 0 0}
			echo "$j $dir $tb $tp $(( td + q + n )) $1 $q $n"
		done
	done
}

# fab_counters_diff BEFORE AFTER: the difference of two files of
# fab_link_counters lines, in the same format.
fab_counters_diff() {
	awk 'NR == FNR { for (i = 3; i <= NF; i++) v[$1 " " $2, i] = $i; next }
	     { printf "%s %s", $1, $2
	       for (i = 3; i <= NF; i++) printf " %d", $i - v[$1 " " $2, i]
	       printf "\n" }' "$1" "$2"
}

# fab_counters_show FILE: a table of fab_link_counters lines (a diff or
# not), with each direction's share of the bytes sent.
fab_counters_show() {
	awk '{ l[NR] = $0; t[$2] += $3 }
	     END { printf "  %-4s %-3s %12s %9s %7s %12s\n", "link", "dir",
			   "bytes", "packets", "drops", "far bytes"
		   for (i = 1; i <= NR; i++) { split(l[i], f, " ")
			printf "  %-4s %-3s %12d %9d %7d %12d  %3.0f%%\n", f[1],
				f[2], f[3], f[4], f[5], f[6],
				t[f[2]] ? 100 * f[3] / t[f[2]] : 0 } }' "$1"
}

# fab_links_used FILE DIR PCT: how many links carried more than PCT% of
# the bytes sent in DIR per FILE (a diff of fab_link_counters).
fab_links_used() {
	awk -v d="$2" -v p="$3" '$2 == d { b[$1] = $3; t += $3 }
	     END { for (l in b) if (t && 100 * b[l] > p * t) n++; print n + 0 }' "$1"
}

# fab_sample_start ROUTER PORT FILE: in the background, every 2 ms or so,
# a line "SECONDS BYTES" (the clock's epoch time, PORT's tx bytes) to
# FILE, until fab_sample_stop: a flow's rate over time, seen at a router
# (a router's port toward a host carries what reaches that host).
fab_sample_start() {
	fab_router_in "$1" env LC_ALL=C bash -c '
		f=/sys/class/net/$1/statistics/tx_bytes
		while read -r b < "$f"; do
			echo "$EPOCHREALTIME $b"
			sleep 0.002
		done' _ "$2" > "$3" &
	FAB_SAMPLER=$!
}

fab_sample_stop() {
	kill "$FAB_SAMPLER" 2>/dev/null
	wait "$FAB_SAMPLER" 2>/dev/null || true
}

# fab_sample_rate FILE FROM TO: Mbit/s of FILE's samples between epoch
# times FROM and TO (the first and last sample inside); 0 with fewer
# than two samples there.
fab_sample_rate() { fab_ports_rate "$@"; }

# fab_ports_rate FILE FROM TO: the same for each column of a
# fab_sample_ports_start FILE (after the time), on one line.
fab_ports_rate() {
	awk -v a="$2" -v b="$3" '$1 >= a && $1 <= b {
			if (!n++) k = split($0, f0)
			split($0, f1) }
		END { if (!n) { print "0.0"; exit }
		      dt = f1[1] - f0[1]
		      for (i = 2; i <= k; i++) {
			v = dt > 0 ? (f1[i] - f0[i]) * 8 / dt / 1e6 : 0
			printf "%s%.1f", (i > 2 ? " " : ""), v }
		      printf "\n" }' "$1"
}

# ---- the switch-port model (bpf/uet_port.bpf.c, loaded by $B/uet_port) -----
# fab_host_gso_off [I...]: hosts I (default all) hand their stack's
# frames to fab0 one at a time (gso_max_segs 1, for sockets made after):
# a tcp sender's TSO batches would otherwise cross the routers whole, and
# a port model would pass, mark or drop each batch as one frame (its tbf
# still sends them frame by frame). AF_XDP sends frame by frame anyway.
fab_host_gso_off() {
	local i hosts=("$@")
	[ $# -gt 0 ] || hosts=("${!FAB_HOSTS[@]}")
	for i in "${hosts[@]}"; do
		ip -n "${FAB_HOSTS[$i]}" link set fab0 gso_max_segs 1
	done
}

# fab_port_limit BUF: the tbf limit under a model of buffer BUF. The model
# decides the drops, so the tbf must never tail-drop what it let through.
# Its queue is the model's less the tbf's bucket while the tbf's timer is
# on time, but a late timer on a busy machine leaves it behind the model
# for a while, and trimmed frames may take UET_PORT_TRIM_ROOM (32 KiB,
# include/uet_port_shared.h) beyond the buffer: twice the buffer and that
# room cover both (the self-test checks that the tbf's own drops stay 0).
fab_port_limit() { echo $(( 2 * $1 + 32768 + 2 * (FAB_MTU + 14) )); }

# fab_port_attach NS PORT: the model on PORT, with the port's rate and
# buffer and its FAB_PORT_MODEL options (replacing one there).
fab_port_attach() {
	local key=$1/$2
	# shellcheck disable=SC2086 # the options split on purpose
	ip netns exec "$1" "$B/uet_port" attach "$2" \
		--rate "${FAB_PORT_RATE[$key]}" --buf "${FAB_PORT_BUF[$key]}" \
		${FAB_PORT_MODEL[$key]} ||
		e2e_fail "uet_port attach $2 in $1 failed"
}

# fab_port_key ROUTER PORT: "NS/PORT" of a shaped port, or fails.
fab_port_key() {
	local key
	key=$(fab_ns "$1")/$2
	[ -n "${FAB_PORT_RATE[$key]:-}" ] || e2e_fail "$1 has no shaped port $2"
	echo "$key"
}

# fab_port_model ROUTER PORT MARK_BYTES TRIM_BYTES [UET_PORT_OPTION...]: a
# switch-port model on ROUTER's PORT at the port's rate and buffer, its
# tbf limit raised (fab_port_limit): ECN marks above MARK_BYTES queued,
# trims above TRIM_BYTES (0: never), drops above the buffer; options such
# as --lasthop or --trim-keep 32 go to `uet_port attach`. Counters start
# at zero (a model already there is replaced).
fab_port_model() {
	local key ns
	key=$(fab_port_key "$1" "$2")
	ns=${key%/*}
	[[ "$3" =~ ^[0-9]+$ && "$4" =~ ^[0-9]+$ ]] ||
		e2e_fail "fab_port_model: MARK and TRIM are bytes, not '$3' '$4'"
	FAB_PORT_MODEL[$key]="--mark $3 --trim $4 ${*:5}"
	fab_shape "$ns" "$2" "${FAB_PORT_RATE[$key]}"
}

# fab_port_nomodel ROUTER PORT: the model gone, the tbf's limit the
# buffer again (its tail drops back in charge).
fab_port_nomodel() {
	local key ns
	key=$(fab_port_key "$1" "$2")
	ns=${key%/*}
	[ -n "${FAB_PORT_MODEL[$key]:-}" ] || return 0
	unset "FAB_PORT_MODEL[$key]"
	ip netns exec "$ns" "$B/uet_port" detach "$2" ||
		e2e_fail "uet_port detach $2 in $ns failed"
	fab_shape "$ns" "$2" "${FAB_PORT_RATE[$key]}"
}

# fab_port_stats ROUTER PORT: the model's line "passed P bytes B marked M
# trimmed T dropped D maxq Q" (frames and bytes sent on, ECN marks, trims,
# drops, the most bytes its queue held) since it came or was reset.
fab_port_stats() { fab_router_in "$1" "$B/uet_port" stats "$2"; }

# fab_port_stat ROUTER PORT NAME: one number of that line (passed, bytes,
# marked, trimmed, dropped, maxq).
fab_port_stat() {
	fab_port_stats "$1" "$2" | awk -v k="$3" '{ for (i = 1; i < NF; i += 2)
		if ($i == k) { print $(i + 1); f = 1 } } END { exit !f }' ||
		e2e_fail "no port statistic '$3' on $1 $2"
}

# fab_port_reset ROUTER PORT: the model's counters and queue back to 0.
fab_port_reset() { fab_router_in "$1" "$B/uet_port" reset "$2"; }

# fab_port_qdrops ROUTER PORT: packets PORT's tbf dropped itself.
fab_port_qdrops() {
	tc -n "$(fab_ns "$1")" -s -j qdisc show dev "$2" root |
		sed -nE 's/.*"drops":([0-9]+).*/\1/p'
}

# fab_uet_load: the XDP program and the device service on every host's
# fab0 (skb mode: veth).
fab_uet_load() {
	local i
	for i in "${!FAB_HOSTS[@]}"; do
		fab_uet_load_host "$i"
	done
}

# fab_uet_load_host I: the same on host I (again: a restarted service).
# With FAB_TSS_KEYS set, the service gets that key file and an epoch
# state of the host's own.
fab_uet_load_host() {
	local tss=()
	[ -z "${FAB_TSS_KEYS:-}" ] || tss=(--tss-keys "$FAB_TSS_KEYS" \
		--tss-state "$E2E_TMP/tss-h$1.state")
	fab_host_in "$1" "$B/uetctl" load fab0 --mode skb "${tss[@]}" \
		>/dev/null || e2e_fail "uetctl load fab0 on host $1 failed"
}

# fab_teardown: the fabric's namespaces and everything in them gone (the
# run's bpffs and files stay for the next fabric).
fab_teardown() {
	local ns pass
	set +e
	for ns in "${FAB_HOSTS[@]}"; do
		ip netns exec "$ns" "$B/uetctl" unload fab0 >/dev/null 2>&1
	done
	for pass in TERM KILL; do
		for ns in "${FAB_NS[@]}"; do
			ip netns pids "$ns" 2>/dev/null |
				xargs -r kill -s "$pass" 2>/dev/null
		done
		[ "$pass" = TERM ] && [ "${#FAB_NS[@]}" -gt 0 ] && sleep 0.2
	done
	for ns in "${FAB_NS[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	for ns in "${FAB_ETC[@]}"; do
		rm -rf "/etc/netns/$ns"
	done
	set -e
	FAB_NS=() FAB_HOSTS=() FAB_IP=() FAB_ROUTES=() FAB_ETC=()
	FAB_NLINKS=0 FAB_L_NSA=() FAB_L_NSB=() FAB_L_RATE=() FAB_L_DOWN=()
	# the models went with their devices: nothing of theirs is pinned
	FAB_PORT_RATE=() FAB_PORT_BUF=() FAB_PORT_MODEL=()
}

# fab_cleanup: the EXIT trap: the fabric, the bpffs, the run's files.
fab_cleanup() {
	local rc=$?
	fab_teardown
	set +e
	umount "$E2E_TMP/bpffs" 2>/dev/null
	rm -rf "$E2E_TMP"
	e2e_unstage
	return $rc
}

# ---- samplers for time series (bench_incast_series.sh) ----------------------
# fab_sample_ports_start ROUTER STAT FILE PORT...: in the background, every
# 2 ms or so, a line "SECONDS V1 .. VN" (the epoch time, then statistic
# STAT, e.g. rx_bytes or tx_bytes, of each PORT of ROUTER) to FILE, until
# fab_sample_ports_stop. One loop reads them all, so that the ports' rates
# over time share their timestamps. It waits with read -t on a FIFO that
# no one writes, not with sleep: a process forked every 2 ms is what
# made a busy machine's samples 10 to 100 ms apart.
fab_sample_ports_start() {
	ip netns exec "$(fab_ns "$1")" env LC_ALL=C bash -c '
		fifo=$(mktemp -u) && mkfifo "$fifo" && exec 3<> "$fifo" &&
			rm -f "$fifo" || exit 1
		cd /sys/class/net || exit 1
		stat=$1
		shift
		while :; do
			line=$EPOCHREALTIME
			for p in "$@"; do
				read -r b < "$p/statistics/$stat" || exit 1
				line+=" $b"
			done
			echo "$line"
			read -r -t 0.002 -u 3 _ || true
		done' _ "$2" "${@:4}" > "$3" &
	FAB_PORTS_SAMPLER=$!
}

fab_sample_ports_stop() {
	kill "$FAB_PORTS_SAMPLER" 2>/dev/null
	wait "$FAB_PORTS_SAMPLER" 2>/dev/null || true
}

# fab_port_watch_start ROUTER PORT FILE [INTERVAL_US]: in the background,
# `uet_port watch` of PORT's model (fab_port_model) to FILE: "EPOCH_S
# QUEUE_BYTES PASSED DROPPED MARKED" every INTERVAL_US (1000), until
# fab_port_watch_stop.
fab_port_watch_start() {
	ip netns exec "$(fab_ns "$1")" "$B/uet_port" watch "$2" \
		--interval-us "${4:-1000}" > "$3" &
	FAB_WATCHER=$!
}

# fab_port_watch_stop: the watch ended (SIGTERM: it writes out what it
# holds); fails when it had failed.
fab_port_watch_stop() {
	kill -TERM "$FAB_WATCHER" 2>/dev/null || true
	wait "$FAB_WATCHER"
}
