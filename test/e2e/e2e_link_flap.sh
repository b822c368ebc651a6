#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Link flaps (issue 43, item 2): fi_soak between two namespaces at MTU 9000
# over uet, and mid-stream one host's own interface goes down
# (`ip link set DEV down`) and comes back up. fi_soak -E on both sides: an
# operation that fails is said (the first error) and posted again, so the
# checks stay whole: every RMA round checked byte by byte by the target and
# read back, every tagged message's tag, length and bytes checked by the
# receiver, and any message more than one per tag is counted (extras: a
# duplicate; allowed only as the resend of a send that failed after it
# landed). Each run must end within its time limit (no hang: fi_soak fails
# an operation that gets no completion in 30 s, and the whole run at -T).
#  a) the initiator's (client's) link down 2 s, within the retry budget:
#     RMA writes and reads, then tagged messages (up to 1 MiB: rendezvous,
#     the target reads them); every operation completes, without error;
#  b) the same with the target's (server's) link down;
#  c) a flap longer than the retry budget (FI_UET_MAX_RETRIES=4, about
#     0.15 s of retransmissions, and the link down 3 s): error completions
#     that say the budget ran out, no hang, and the same endpoints then
#     work again (the failed operations posted again succeed and verify);
#     RMA writes, then tagged messages; the first write fails within
#     1.5 s of its post, inside the flap.
# The stream truly stops: in a) and b) a run's longest operation must span
# most of the flap, in c) PDCs must have run out of retries and operations
# failed; and the engines must have retransmitted (UET_ENGINE_DEBUG's
# counters at close). A run the flap missed proves nothing and runs again.
# The side channel (fi_soak -X: the checks between rounds) goes over a
# second link the flaps leave alone: over the flapped link, a flap that
# began during a check stalled only that TCP exchange, and the operations
# after it ran on a link up again (3 runs in a row so in CI).
source "$(dirname "$0")/e2e_lib.sh"
FI_PROVIDER_PATH="$(cd "$B" && pwd)"
export FI_PROVIDER_PATH

# flap NAME SIDE DOWN_S MODE MIB ENV...: one verified run of MODE (rma or
# tag), MIB MiB, with SIDE's (A: client, B: server) link down DOWN_S
# seconds mid-stream; ENV words (VAR=VALUE) for both programs. Sets
# ERRORS (the client's error completions), FIRST (its first error),
# BUDGET_OUT (PDCs of either side that failed past the retry budget), LAT
# (the longest operation, ms) and RETX (retransmissions on time-out).
# CLIENT_ARGS: more options of the client.
CLIENT_ARGS=""
flap() {
	local name=$1 side=$2 down=$3 mode=$4 mib=$5 port s c rc=0 src=0
	local ifc=IF_$2 t0 dt line lat retx
	shift 5
	port=$((46000 + RANDOM % 3000))
	: > "$E2E_TMP/client.out"
	t0=$(now_ms)
	e2e_in B env FI_PROVIDER=uet UET_ENGINE_DEBUG=1 "$@" "$B/fi_soak" \
		-s -a "$IP_B" -p "$port" -E -T 40 \
		> "$E2E_TMP/server.out" 2> "$E2E_TMP/server.err" &
	s=$!
	# shellcheck disable=SC2086 # CLIENT_ARGS: words on purpose
	e2e_in A env FI_PROVIDER=uet UET_ENGINE_DEBUG=1 "$@" "$B/fi_soak" \
		-c "$IP_B" -X "$CTRL_B" -p "$port" -E -T 40 -m "$mode" \
		-M "$mib" $CLIENT_ARGS \
		> "$E2E_TMP/client.out" 2> "$E2E_TMP/client.err" &
	c=$!
	if e2e_wait_for "$E2E_TMP/client.out" "^fi_soak: running" 10; then
		e2e_in "$side" ip link set "${!ifc}" down
		sleep "$down"
		e2e_in "$side" ip link set "${!ifc}" up
	fi
	wait "$c" || rc=$?
	wait "$s" || src=$?
	dt=$(( $(now_ms) - t0 ))
	if [ $rc != 0 ] || [ $src != 0 ] ||
	   ! grep -q "^fi_soak: client: all ok" "$E2E_TMP/client.out" ||
	   ! grep -q "^fi_soak: server: all ok" "$E2E_TMP/server.out"; then
		for f in client.out client.err server.out server.err; do
			grep -v '^uet_engine_stats' "$E2E_TMP/$f" | tail -12 |
				sed "s/^/  $f: /"
			# FLAP_KEEP=DIR: the whole outputs, for a diagnosis.
			[ -z "${FLAP_KEEP:-}" ] ||
				{ mkdir -p "$FLAP_KEEP" &&
				  cp "$E2E_TMP/$f" "$FLAP_KEEP/"; }
		done
		e2e_fail "$name: client rc $rc, server rc $src after $dt ms"
	fi
	line=$(sed -n "s/^fi_soak: $mode: //p" "$E2E_TMP/client.out")
	ERRORS=$(sed -n 's/^fi_soak: errors: \([0-9]*\).*/\1/p' \
		"$E2E_TMP/client.out")
	FIRST=$(sed -n 's/^fi_soak: first error: //p' "$E2E_TMP/client.out")
	# PDCs whose retry budget ran out, either side (UET_ENGINE_DEBUG).
	BUDGET_OUT=$(cat "$E2E_TMP/client.err" "$E2E_TMP/server.err" |
		grep -c '^uet engine[^:]*: pdc .* failed: -110;' || true)
	LAT=$(sed -n 's/.*max latency \([0-9]*\).*/\1/p' <<< "$line")
	RETX=$(( $(e2e_engine_stat "$E2E_TMP/client.err" retx_rto) +
		 $(e2e_engine_stat "$E2E_TMP/server.err" retx_rto) ))
	echo "  $name: $line"
	echo "  $name: client errors ${ERRORS:-?}${FIRST:+ (first: $FIRST)};" \
		"PDCs past the retry budget $BUDGET_OUT; retransmissions on" \
		"time-out $RETX; $dt ms"
	e2e_ok "$name ($mib MiB verified, link down $down s)"
}

# flap_stalls NAME SIDE DOWN_S MODE MIB ENV...: flap until a run's longest
# operation waited through most of the flap (3/4), which proves that the
# flap stopped the stream; at most 3 runs. The script may see the
# client's "running" late, after the stream of a second or so is over,
# when the two busy-polling programs hold both CPUs of a small machine
# (1 s late was seen): such a run proves nothing and goes again.
flap_stalls() {
	local try
	for try in 1 2 3; do
		flap "$@"
		[ "${LAT:-0}" -ge $(( $3 * 1000 * 3 / 4 )) ] && break
		e2e_log "$1: try $try: longest operation ${LAT:-?} ms: the" \
			"flap missed the stream"
	done
	[ "${LAT:-0}" -ge $(( $3 * 1000 * 3 / 4 )) ] ||
		e2e_fail "$1: longest operation ${LAT:-?} ms in 3 runs: the" \
			"link down $3 s did not stall the stream"
	[ "$RETX" -gt 0 ] || e2e_fail "$1: no retransmission"
}

e2e_setup 9000
# The side channel's own link: no XDP on it, never flapped.
CTRL_A="10.78.$(( $$ % 200 + 20 )).1"
CTRL_B="10.78.$(( $$ % 200 + 20 )).2"
ip -n "$NS_A" link add uetc0 type veth peer name uetc1 netns "$NS_B"
e2e_in A ip addr add "$CTRL_A/24" dev uetc0
e2e_in B ip addr add "$CTRL_B/24" dev uetc1
e2e_in A ip link set uetc0 up
e2e_in B ip link set uetc1 up
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb >/dev/null
done
T0=$(now_ms)
# a) and b) within the retry budget: FI_UET_MAX_RETRIES=64 (about 4 s;
# the default 25 is about 1.5 to 2 s, and a 2 s flap runs past it about
# one time in two). Every operation then completes, none with an error.
for side in A B; do
	for mode in rma tag; do
		name="a) initiator"
		[ $side = B ] && name="b) target"
		mib=384
		[ $mode = tag ] && mib=256
		flap_stalls "$name link down, $mode" $side 2 $mode $mib \
			FI_UET_MAX_RETRIES=64
		[ "${ERRORS:-1}" = 0 ] && [ "$BUDGET_OUT" = 0 ] ||
			e2e_fail "$name, $mode: ${ERRORS:-?} error completions" \
				"and $BUDGET_OUT PDCs past a 4 s budget"
	done
done
# RMA writes only (-N: no read back), so that the operations in flight
# are the client's own writes, whose PDC must give up; a flap during a
# read-back stalls only the target's READ data, which it sends again
# (uet_engine_resp_resend), and the reads complete without error.
# The client's first error: its own PDC's budget ran out (timed out), or,
# for a rendezvous send, the target's did while it read the data (the
# target answers RC_UNDELIVERABLE). A rendezvous send the target took
# waits through our PDC's failure for that answer (ses_peer_fail): failed,
# it may have been received whole, and its copy posted again would wait
# for ever for a receive (1 run in 3 hung so).
for mode in rma tag; do
	CLIENT_ARGS=
	[ "$mode" = rma ] && CLIENT_ARGS=-N
	# A flap after the stream (seen late, flap_stalls) finds no operation
	# of ours out to fail, though PDCs closing then may (BUDGET_OUT).
	# Then again, at most twice more. The errors prove the stall: an
	# operation need not wait through the flap (failed, it is posted
	# again).
	for try in 1 2 3; do
		flap "c) past the retry budget, $mode" A 3 "$mode" 256 \
			FI_UET_MAX_RETRIES=4
		[ "${ERRORS:-0}" -gt 0 ] && break
		e2e_log "c) $mode: try $try: the flap missed the operations"
	done
	[ "${ERRORS:-0}" -gt 0 ] && [ "$BUDGET_OUT" -gt 0 ] ||
		e2e_fail "c) $mode: ${ERRORS:-0} error completions and" \
			"$BUDGET_OUT PDCs past the retry budget"
	grep -qi "timed out\|FI_UET_MAX_RETRIES\|RC_UNDELIVERABLE" \
		<<< "$FIRST" || e2e_fail "c) $mode: the first error ($FIRST)" \
			"does not say the retry budget ran out"
	[ "$RETX" -gt 0 ] || e2e_fail "c) $mode: no retransmission"
	# Our own writes fail within the budget (some 0.15 s of tries),
	# well inside the 3 s flap: a copy held by the link down spends its
	# tries (pdc_link_state); it once waited for the link to come back.
	after=$(sed -n 's/.* after \([0-9]*\) ms$/\1/p' <<< "$FIRST")
	[ "$mode" != rma ] || [ "${after:-9999}" -lt 1500 ] ||
		e2e_fail "c) rma: the first write failed ${after:-?} ms after" \
			"it was posted: not within the retry budget"
	e2e_ok "c) $mode: $ERRORS errors past the budget, then every" \
		"operation posted again succeeded"
done
e2e_ok "all flaps in $(( ($(now_ms) - T0) / 1000 )) s"
