# shellcheck shell=bash
# SPDX-License-Identifier: BSD-2-Clause
# Time series of bench_incast.sh's incasts, for `make bench-report`'s
# plots. Sourced by bench_incast.sh (after fabric_lib.sh); on its own it
# only defines functions, so that the conversions can be tried on
# hand-made input.
#
# With BENCH_SERIES=DIR (created), the plain incast at N in
# INCAST_SERIES_N ("4 8"; BENCH_SMOKE runs N=4 only) saves, in its first
# run of each provider PROV (uet, tcp_cubic, tcp_bbr) only, so that the
# REPS medians keep their other runs untouched:
#   incastN_PROV_queue.tsv  # t_s queue_bytes
#       the bottleneck port model's queue (uet_port watch on R1's port to
#       the receiver), a sample every ms or so
#   incastN_PROV_rates.tsv  # t_s s1_mbit ... sN_mbit
#       each sender's rate into R1 (the rx bytes of R1's port from that
#       sender, all ports read in one loop every ~2 ms) in 10 ms bins,
#       t_s the bin's start
#   incastN_uet_nscc.tsv    # t_s cwnd_bytes delay_us inflight_bytes
#       sender 1's data PDC: NSCC's window, its measured queueing delay
#       (the trace's AVG_DELAY_NS) and the bytes in flight, from the
#       provider's FI_UET_TRACE (skipped, with a note, when the provider
#       writes none)
# t_s: seconds from the senders' common start, 6 decimals; every file runs
# from that start to the last sender's end plus SERIES_TAIL (50 ms).
# Unset, nothing of this runs. Set, the samplers take some CPU in those
# runs (2 cores: the figures of run 1 may differ a little from the others).

SERIES_N=${INCAST_SERIES_N:-4 8}
SERIES_TAIL=0.05	# seconds kept after the last sender's end
SERIES_BIN=0.01		# the rates' bins, seconds

# series_want N TAG REP: whether this run of the incast saves series.
series_want() {
	[ -n "${BENCH_SERIES:-}" ] && [ "$3" = 1 ] && [ "$2" = "incast$1" ] &&
		[[ " $SERIES_N " == *" $1 "* ]]
}

# series_trace_env ON PROV K: the env words of sender K's client: the
# NSCC trace of sender 1 over uet into $D when ON is 1, else none.
series_trace_env() {
	[ "$1" = 1 ] && [ "$2" = uet ] && [ "$3" = 1 ] || return 0
	echo "FI_UET_TRACE=$D/nscc.%p.trace"
}

# series_start N RCV: the samplers of a run on R1 (into $D): the model's
# queue on port hRCV, the rx bytes of ports h1..hN.
series_start() {
	local k ports=()
	for k in $(seq "$1"); do ports+=("h$k"); done
	fab_port_watch_start r1 "h$2" "$D/queue.raw"
	fab_sample_ports_start r1 rx_bytes "$D/rates.raw" "${ports[@]}"
}

# series_stop: SERIES_TAIL more, then both samplers stopped.
series_stop() {
	sleep "$SERIES_TAIL"
	fab_sample_ports_stop
	fab_port_watch_stop || e2e_fail "uet_port watch failed (exit $?)"
}

# series_queue RAW T END: uet_port watch's lines from T to END + the tail
# as "t_s queue_bytes".
series_queue() {
	awk -v t="$2" -v e="$3" -v tail="$SERIES_TAIL" '
		BEGIN { print "# t_s queue_bytes" }
		$1 >= t && $1 <= e + tail {
			printf "%.6f %d\n", $1 - t, $2 }' "$1"
}

# series_rates RAW T END: from "EPOCH B1 .. BN" samples of cumulative
# bytes, each column's Mbit/s in SERIES_BIN bins from T to END + the
# tail: the bytes at each bin's edges read off the straight line between
# the samples around it, so that bins and samples need not line up.
series_rates() {
	awk -v t="$2" -v e="$3" -v tail="$SERIES_TAIL" -v bin="$SERIES_BIN" '
		{ n++; ts[n] = $1; for (c = 2; c <= NF; c++) v[n, c] = $c
		  nc = NF }
		# at(x, c): column c at time x (ts[j] <= x < ts[j + 1])
		function at(x, c) {
			if (ts[j + 1] <= ts[j])
				return v[j, c]
			f = (x - ts[j]) / (ts[j + 1] - ts[j])
			return v[j, c] + (v[j + 1, c] - v[j, c]) * f
		}
		END {
			printf "# t_s"
			for (c = 2; c <= nc; c++) printf " s%d_mbit", c - 1
			printf "\n"
			j = 1
			for (k = 0; t + (k + 1) * bin <= e + tail + 1e-9; k++) {
				a = t + k * bin; b = a + bin
				while (j < n && ts[j + 1] <= a) j++
				if (j >= n || ts[j] > a) continue
				for (c = 2; c <= nc; c++) x[c] = at(a, c)
				while (j < n && ts[j + 1] <= b) j++
				if (j >= n) break
				printf "%.6f", a - t
				for (c = 2; c <= nc; c++)
					printf " %.1f",
						(at(b, c) - x[c]) * 8 / bin / 1e6
				printf "\n"
			}
		}' "$1"
}

# series_nscc TRACE T END: the provider's trace (FI_UET_TRACE lines
# "EPOCH_S PDCID PEER CWND_BYTES INFLIGHT_BYTES AVG_DELAY_NS SRTT_NS
# BASE_RTT_NS MAX_WND_BYTES RETX_TOTAL LINK_MBPS", one per active initiator PDC a
# sample) as "t_s cwnd_bytes delay_us inflight_bytes" of the PDC with the
# most lines (the data's: a sender's others carry little) from T to END
# + the tail.
series_nscc() {
	awk -v t="$2" -v e="$3" -v tail="$SERIES_TAIL" '
		BEGIN { print "# t_s cwnd_bytes delay_us inflight_bytes" }
		/^#/ || NF < 10 { next }
		NR == FNR { n[$2 " " $3]++; next }
		!best { for (p in n) if (n[p] > m) { m = n[p]; best = p } }
		$2 " " $3 == best && $1 >= t && $1 <= e + tail {
			printf "%.6f %d %.3f %d\n", $1 - t, $4, $6 / 1000, $5 }
	' "$1" "$1"
}

# series_write N PROV T END: the run's files into BENCH_SERIES (see the
# top), from the samples in $D, T the common start, END the last end.
series_write() {
	local n=$1 prov=$2 t=$3 end=$4 out tr=()
	out=$BENCH_SERIES/incast${n}_$prov
	mkdir -p "$BENCH_SERIES"
	series_queue "$D/queue.raw" "$t" "$end" > "${out}_queue.tsv"
	series_rates "$D/rates.raw" "$t" "$end" > "${out}_rates.tsv"
	[ "$prov" = uet ] || return 0
	tr=("$D"/nscc.*.trace)	# one: sender 1's (the glob itself if none)
	if [ ! -e "${tr[0]}" ]; then
		echo "bench_incast: no NSCC trace from sender 1 (its provider" \
			"writes no FI_UET_TRACE): ${out##*/}_nscc.tsv skipped" >&2
		return 0
	fi
	series_nscc "${tr[0]}" "$t" "$end" > "${out}_nscc.tsv"
}
