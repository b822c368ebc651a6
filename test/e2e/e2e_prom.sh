#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# `uetctl stats IFACE --prometheus` (issue 44), read by
# python3-prometheus-client's parser (e2e_prom_parse.py), between two
# namespaces:
#  a. with one endpoint of nobody's, JobID 4242, open on B after a client
#     on A wrote to it: the parse succeeds; the program's and the service's
#     counters moved (uet_xdp_redirected_total, opened_total > 0); the
#     endpoint's samples carry endpoint, job_id 4242, uid 65534, user
#     nobody and its pid, and its frame counters are above 0;
#  b. once it closed: no endpoint samples, uet_service_endpoints 0;
#  c. --textfile DIR --interval 1 replaces DIR/uet_IFACE.prom (another
#     inode, a later mtime), each version parses, no temporary file stays,
#     SIGTERM ends it with 0; a DIR that is missing or not writable is
#     refused with a message and exit 1.
source "$(dirname "$0")/e2e_lib.sh"
U="$(cd "$B" && pwd)/uetctl"
PARSE="$(cd "$(dirname "$0")" && pwd)/e2e_prom_parse.py"
# Debian's python, where python3-prometheus-client is installed.
PY=/usr/bin/python3
JOB=4242
WAIT_S=60		# the longest any wait of fi_fep_check may take

# scrape SIDE: the parsed samples of that side's interface, or a FAIL.
scrape() {
	local ifc=IF_$1 raw
	raw=$(e2e_in "$1" "$U" stats "${!ifc}" --prometheus) ||
		e2e_fail "uetctl stats --prometheus on $1 failed"
	"$PY" "$PARSE" <<< "$raw" || e2e_fail "side $1's exposition: $raw"
}

# value SAMPLES NAME [LABEL=VALUE...]: the value of the one sample NAME
# with those labels (among others); empty when none.
value() {
	local samples=$1 name=$2
	shift 2
	awk -v name="$name" -v want="$*" '
		$1 != name { next }
		{ n = split(want, w, " ")
		  for (i = 1; i <= n; i++) {
			found = 0
			for (j = 2; j < NF; j++) if ($j == w[i]) found = 1
			if (!found) next
		  }
		  print $NF; exit }' <<< "$samples"
}

# positive WHAT VALUE: VALUE is a number above 0.
positive() { [ -n "$2" ] && [ "$2" -gt 0 ] || e2e_fail "$1 is '${2}', want > 0"; }

[ -x "$PY" ] && "$PY" -c 'import prometheus_client' 2>/dev/null || {
	[ "${CI:-}" = true ] && e2e_fail "needs python3-prometheus-client"
	echo "e2e: $E2E_NAME: SKIP (needs python3-prometheus-client)"
	exit 0
}
e2e_setup
# nobody runs the server: copies it can reach.
e2e_stage "$B/libuet-fi.so" "$B/fi_fep_check" "$U"
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$U" load "${!ifc}" --mode skb >/dev/null ||
		e2e_fail "load on $side"
done

# ---- a. an endpoint open, after traffic -------------------------------------
p=$(( 47000 + RANDOM % 2000 ))
# Two clients: after the first it waits, open, for the second.
e2e_as_nobody B env FI_PROVIDER=uet FI_PROVIDER_PATH="$E2E_STAGE" \
	"$E2E_STAGE/fi_fep_check" -s -a "$IP_B" -p "$p" -e 1 -j "$JOB" -C 2 \
	-T "$WAIT_S" > "$E2E_TMP/s.out" 2>&1 &
spid=$!
e2e_wait_for "$E2E_TMP/s.out" "endpoints ready" "$WAIT_S" ||
	e2e_fail "server not ready: $(cat "$E2E_TMP/s.out")"
e2e_in A env FI_PROVIDER=uet FI_PROVIDER_PATH="$(cd "$B" && pwd)" \
	"$B/fi_fep_check" -c "$IP_B" -p "$p" -e 1 -j "$JOB" -i 1 \
	-T "$WAIT_S" > "$E2E_TMP/c1.out" 2>&1 ||
	e2e_fail "client 1: $(cat "$E2E_TMP/c1.out")"
s=$(scrape B)
positive "B uet_xdp_redirected_total" "$(value "$s" uet_xdp_redirected_total)"
positive "B uet_xdp_seen_total" "$(value "$s" uet_xdp_seen_total)"
positive "A uet_xdp_redirected_total" \
	"$(value "$(scrape A)" uet_xdp_redirected_total)"
positive "B uet_service_endpoints_opened_total" \
	"$(value "$s" uet_service_endpoints_opened_total)"
[ "$(value "$s" uet_service_endpoints)" = 1 ] ||
	e2e_fail "uet_service_endpoints $(value "$s" uet_service_endpoints), want 1"
e2e_ok "counters moved ($(value "$s" uet_xdp_redirected_total) frames steered on B)"

# The server's process is nobody's fi_fep_check (setpriv execs, env too).
srv_pid=$(e2e_in B pgrep -u 65534 -f "fi_fep_check -s -a $IP_B -p $p") ||
	e2e_fail "no server process"
labels=("iface=$IF_B" "job_id=$JOB" uid=65534 user=nobody "pid=$srv_pid")
[ "$(value "$s" uet_endpoint_info "${labels[@]}")" = 1 ] ||
	e2e_fail "no uet_endpoint_info with ${labels[*]} in:
$(grep uet_endpoint_ <<< "$s")"
grep "^uet_endpoint_info " <<< "$s" | grep -q " endpoint=[0-9]" ||
	e2e_fail "no endpoint label: $(grep uet_endpoint_info <<< "$s")"
rx=$(value "$s" uet_endpoint_rx_frames_total "${labels[@]}")
tx=$(value "$s" uet_endpoint_tx_frames_total "${labels[@]}")
positive "the endpoint's uet_endpoint_rx_frames_total" "$rx"
positive "the endpoint's uet_endpoint_tx_frames_total" "$tx"
e2e_ok "an open endpoint's labels (${labels[*]}), $rx frames in, $tx out"

# ---- b. closed ----------------------------------------------------------------
e2e_in A env FI_PROVIDER=uet FI_PROVIDER_PATH="$(cd "$B" && pwd)" \
	"$B/fi_fep_check" -c "$IP_B" -p "$p" -e 1 -j "$JOB" -i 1 \
	-T "$WAIT_S" > "$E2E_TMP/c2.out" 2>&1 ||
	e2e_fail "client 2: $(cat "$E2E_TMP/c2.out")"
wait "$spid" || e2e_fail "server: $(cat "$E2E_TMP/s.out")"
s=$(scrape B)
[ "$(value "$s" uet_service_endpoints)" = 0 ] ||
	e2e_fail "uet_service_endpoints $(value "$s" uet_service_endpoints) after the close"
grep -q "^uet_endpoint_" <<< "$s" &&
	e2e_fail "endpoint samples after the close: $(grep uet_endpoint_ <<< "$s")"
positive "uet_service_endpoints_closed_total" \
	"$(value "$s" uet_service_endpoints_closed_total)"
e2e_ok "after the close: no endpoint samples, 0 open"

# ---- c. the textfile ------------------------------------------------------
dir="$E2E_TMP/textfile"
mkdir "$dir"
chmod 0755 "$dir"
f="$dir/uet_$IF_B.prom"
# A simple command, so that $! is uetctl itself (ip netns exec execs it).
ip netns exec "$NS_B" "$U" stats "$IF_B" --prometheus --textfile "$dir" \
	--interval 1 2> "$E2E_TMP/loop.err" &
lpid=$!
e2e_wait_for "$f" "^uet_xdp_seen_total" 10 ||
	e2e_fail "no $f: $(cat "$E2E_TMP/loop.err")"
ino1=$(stat -c %i "$f")
mt1=$(stat -c %.9Y "$f")
"$PY" "$PARSE" < "$f" > /dev/null || e2e_fail "the first file: $(cat "$f")"
for _ in $(seq 50); do		# up to 5 s for a write due each second
	[ "$(stat -c %i "$f")" != "$ino1" ] && break
	sleep 0.1
done
ino2=$(stat -c %i "$f")
mt2=$(stat -c %.9Y "$f")
[ "$ino2" != "$ino1" ] || e2e_fail "$f not replaced in 5 s"
awk -v a="$mt1" -v b="$mt2" 'BEGIN { exit !(b > a) }' ||
	e2e_fail "mtime $mt1, then $mt2"
"$PY" "$PARSE" < "$f" > "$E2E_TMP/f.samples" ||
	e2e_fail "the second file: $(cat "$f")"
[ "$(value "$(cat "$E2E_TMP/f.samples")" uet_service_endpoints)" = 0 ] ||
	e2e_fail "the file's uet_service_endpoints"
kill -TERM "$lpid"
rc=0
wait "$lpid" || rc=$?
[ "$rc" = 0 ] || e2e_fail "SIGTERM: exit $rc: $(cat "$E2E_TMP/loop.err")"
left=$(find "$dir" -name '.uet_*')
[ -z "$left" ] || e2e_fail "temporary files left: $left"
e2e_ok "--textfile --interval 1: replaced (inode $ino1 -> $ino2), parsed, SIGTERM exit 0"

rc=0
out=$(e2e_in B "$U" stats "$IF_B" --prometheus --textfile "$dir/none" 2>&1) ||
	rc=$?
[ "$rc" = 1 ] && grep -q "$dir/none: No such file or directory" <<< "$out" ||
	e2e_fail "a missing DIR: exit $rc: $out"
# Root's, in a folder nobody may enter (E2E_TMP is not).
ro="$E2E_STAGE/ro"
mkdir -m 0755 "$ro"
rc=0
out=$(e2e_as_nobody B "$E2E_STAGE/uetctl" stats "$IF_B" --prometheus \
	--textfile "$ro" 2>&1) || rc=$?
[ "$rc" = 1 ] && grep -q "$ro: not writable" <<< "$out" ||
	e2e_fail "a DIR nobody may not write: exit $rc: $out"
e2e_ok "--textfile errors (missing, not writable)"
