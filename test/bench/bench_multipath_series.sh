# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# bench_multipath.sh's time series for `make bench-report` (BENCH_SERIES,
# described in its header): the 4 links' rates over a dead-link run, and
# the same run over tcp. Sourced by bench_multipath.sh after fabric_lib.sh
# (fab_*) and its own helpers (now, at, bw_start, wait_until, dead_for,
# mbit).

DEAD_TCP_TIMEOUT=${DEAD_TCP_TIMEOUT:-30}

# links_sample_start FILE: in the background, every 2 ms or so, a line
# "SECONDS B1 .. BK" to FILE until links_sample_stop: the epoch time, then
# the tx bytes of R1's ports l1..lK (K = FAB_NLINKS), read in one pass so
# that the links share the time (fab_sample_start samples one port). R1
# sends H1's flow toward H2; a frame a dead link drops (fab_link_drop: an
# nftables egress chain, ahead of the device) never reaches its tx count.
# It waits by timing out reading a pipe no one writes, not by sleep(1):
# a fork each time made it miss half the 10 ms bins on a busy machine.
links_sample_start() {
	# shellcheck disable=SC2016,SC2046 # its own expansions; ports split
	fab_router_in r1 env LC_ALL=C bash -c '
		cd /sys/class/net || exit 1
		exec {idle}<> <(:)
		while :; do
			l=$EPOCHREALTIME
			for p; do
				read -r b < "$p/statistics/tx_bytes" || exit 0
				l+=" $b"
			done
			echo "$l"
			read -rt 0.002 -u "$idle" _
		done' _ $(seq -f 'l%g' "$FAB_NLINKS") > "$1" &
	LINKS_SAMPLER=$!
}

links_sample_stop() {
	kill "$LINKS_SAMPLER" 2>/dev/null || true
	wait "$LINKS_SAMPLER" 2>/dev/null || true
}

# links_bins FILE T0: rows "t_s MBIT_1 .. MBIT_K" of links_sample_start's
# FILE: each link's rate in the 10 ms from t_s (seconds since epoch time
# T0, 6 decimals), the bytes of the sampling intervals that end in that
# bin over those intervals' time (the samples are not evenly spaced); a
# bin no interval ends in (the sampler was late) is left out, not made up.
links_bins() {
	awk -v t0="$2" -v n="$FAB_NLINKS" -v w=0.01 '
		NF != n + 1 { next }
		p && $1 > t0 && $1 > pt { k = int(($1 - t0) / w)
			if (!(k in dt)) ks[m++] = k
			dt[k] += $1 - pt
			for (i = 1; i <= n; i++) by[k, i] += $(i + 1) - pb[i] }
		{ p = 1; pt = $1; for (i = 1; i <= n; i++) pb[i] = $(i + 1) }
		END { for (j = 0; j < m; j++) { k = ks[j]; printf "%.6f", k * w
			for (i = 1; i <= n; i++)
				printf " %.1f", by[k, i] * 8 / dt[k] / 1e6
			printf "\n" } }' "$1"
}

# busiest_link FILE FROM MIN: the link whose tx bytes grew most in FILE's
# samples since epoch time FROM, by MIN bytes at least (0: none did). The
# sampler may be writing FILE's last line, so that one is left out.
busiest_link() {
	awk -v a="$2" -v best="$(( $3 - 1 ))" -v n="$FAB_NLINKS" '
		NF != n + 1 || $1 < a { next }
		{ c++; for (i = 2; i <= NF; i++) {
			if (c == 1) b0[i] = $i
			b1[i] = prev[i]; prev[i] = $i } }
		END { for (i = 2; i <= n + 1; i++)
			if (b1[i] - b0[i] > best) { best = b1[i] - b0[i]; j = i - 1 }
		      print j + 0 }' "$1"
}

# series_write PROV SAMPLES T0 EVENT T [EVENT T...]: BENCH_SERIES's
# multipath_dead_PROV_links.tsv (links_bins of SAMPLES since T0) and
# multipath_dead_PROV_events.tsv (each EVENT at epoch time T, made
# relative to T0, in time order).
series_write() {
	local f="$BENCH_SERIES/multipath_dead_$1" s=$2 t0=$3 j cols=""
	shift 3
	mkdir -p "$BENCH_SERIES"
	for j in $(seq "$FAB_NLINKS"); do cols+=" link${j}_mbit"; done
	{ echo "# t_s$cols"; links_bins "$s" "$t0"; } > "${f}_links.tsv"
	{
		echo "# event t_s"
		while [ $# -ge 2 ]; do
			awk -v e="$1" -v t="$2" -v t0="$t0" \
				'BEGIN { printf "%s %.6f\n", e, t - t0 }'
			shift 2
		done | sort -k2,2g
	} > "${f}_events.tsv"
}

# dead_link_tcp: the dead-link scenario once over tcp, for its series
# only: as many 1 MiB writes as a quarter of uet's (tcp's one flow takes
# one link of the 4 uet sprays over, so about as long a flow), and the
# link that dies is the one the flow sends on 1 s in: the one that sent
# a write's worth in the last 0.2 s, waited for up to 10 s more (on a
# busy machine the flow began 1.2 s in, and the link that had carried
# only its connections' setup died instead); link 2, the uet run's, if
# none did. A flow that fails or times out (DEAD_TCP_TIMEOUT) is an
# event tcp_failed, not a failure of the benchmark: the series stays as
# measured.
dead_link_tcp() {
	local l="$E2E_TMP/links_tcp" out="$E2E_TMP/dead_tcp.out" t0 j=0 te rc=0
	local srv cli watch src=0 fail=()
	fab_paths 4 "$RATE" "$BUF" "$MTU"
	fab_uet_load
	# A router hashes a frame's skb hash when it has one, and over veth
	# that is the sending socket's: tcp draws a new one at each timeout
	# (net.core.txrehash) and moved to another link within 200 ms, where
	# a switch hashing the 5-tuple would keep it on the dead one (IPv4
	# has no flow label); with it off it stalled until the link was back.
	fab_host_in 1 sysctl -qw net.core.txrehash=0
	fab_host_in 2 sysctl -qw net.core.txrehash=0
	links_sample_start "$l"
	BW_TIMEOUT=$DEAD_TCP_TIMEOUT bw_start tcp 1 2 \
		"${DEAD_TCP_ITERS:-$(( ${DEAD_ITERS:-800} / 4 ))}" "$out"
	srv=${BW_PIDS[0]} cli=${BW_PIDS[1]}
	BW_PIDS=()
	t0=$(now)
	# the client's end stamped as it comes: it may fail while the link
	# is dead, before this waits for it
	{ tail --pid="$cli" -s 0.01 -f /dev/null
	  echo "${EPOCHREALTIME/,/.}" > "$E2E_TMP/tcp_end"; } &
	watch=$!
	wait_until "$t0" 1
	for _ in $(seq 200); do
		j=$(busiest_link "$l" "$(at "$(now)" -0.2)" 1048576)
		if [ "$j" != 0 ] || ! kill -0 "$cli" 2>/dev/null; then break; fi
		sleep 0.05
	done
	[ "$j" != 0 ] || j=2
	dead_for "$j"
	wait "$cli" || rc=$?
	wait "$watch" || true
	te=$(cat "$E2E_TMP/tcp_end")
	[ "$rc" = 0 ] || kill "$srv" 2>/dev/null || true
	wait "$srv" || src=$?
	# the server failing alone fails the flow too, when it was seen
	[ "$rc" != 0 ] || [ "$src" = 0 ] || { rc=$src; te=$(now); }
	links_sample_stop
	[ "$rc" = 0 ] || fail=(tcp_failed "$te")
	series_write tcp "$l" "$t0" dead "$DEAD_FWD" restored "$BACK_FWD" \
		"${fail[@]}"
	if [ "$rc" = 0 ]; then
		e2e_log "dead link, tcp (series): link $j dead; uet_bw" \
			"$(mbit "$out") Mbit/s overall"
	else
		e2e_log "dead link, tcp (series): link $j dead; the flow" \
			"failed (exit $rc): $(tail -2 "$out" | tr '\n' ' ')"
	fi
}
