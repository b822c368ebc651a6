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
#     RMA only, tagged too with FLAP_TAG_PAST_BUDGET=1 (see below).
# The stream truly stops: each run's longest operation must span most of
# the flap, and the engines must have retransmitted (UET_ENGINE_DEBUG's
# counters at close).
source "$(dirname "$0")/e2e_lib.sh"
FI_PROVIDER_PATH="$(cd "$B" && pwd)"
export FI_PROVIDER_PATH

# flap NAME SIDE DOWN_S MODE MIB ENV...: one verified run of MODE (rma or
# tag), MIB MiB, with SIDE's (A: client, B: server) link down DOWN_S
# seconds mid-stream; ENV words (VAR=VALUE) for both programs. Sets
# ERRORS (the client's error completions), FIRST (its first error) and
# BUDGET_OUT (PDCs of either side that failed past the retry budget).
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
		-c "$IP_B" -p "$port" -E -T 40 -m "$mode" -M "$mib" $CLIENT_ARGS \
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
		grep -c '^uet engine: pdc .* failed: -110;' || true)
	lat=$(sed -n 's/.*max latency \([0-9]*\).*/\1/p' <<< "$line")
	retx=$(( $(e2e_engine_stat "$E2E_TMP/client.err" retx_rto) +
		 $(e2e_engine_stat "$E2E_TMP/server.err" retx_rto) ))
	echo "  $name: $line"
	echo "  $name: client errors ${ERRORS:-?}${FIRST:+ (first: $FIRST)};" \
		"PDCs past the retry budget $BUDGET_OUT; retransmissions on" \
		"time-out $retx; $dt ms"
	# The flap stopped the stream: an operation waited through most of it.
	[ "${lat:-0}" -ge $(( down * 1000 * 3 / 4 )) ] ||
		e2e_fail "$name: longest operation ${lat:-?} ms: the link" \
			"down ${down} s did not stall the stream"
	[ "$retx" -gt 0 ] || e2e_fail "$name: no retransmission"
	e2e_ok "$name ($mib MiB verified, link down $down s)"
}

e2e_setup 9000
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
		flap "$name link down, $mode" $side 2 $mode $mib \
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
# target answers RC_UNDELIVERABLE). Tagged messages past the budget are
# left out unless FLAP_TAG_PAST_BUDGET=1: about one run in three, one or
# two rendezvous sends posted again after the flap never complete (every
# request reached the target's PDC; its SES refused about 100 of them;
# cause not found yet, issue 43), and `make check` is not the place for a
# known hang.
modes=rma
[ "${FLAP_TAG_PAST_BUDGET:-0}" = 1 ] && modes="rma tag"
for mode in $modes; do
	CLIENT_ARGS=
	[ "$mode" = rma ] && CLIENT_ARGS=-N
	# A flap that falls between two rounds stalls only the side channel
	# (the round's check goes over TCP): no operation of ours was out to
	# fail. Then again, at most twice more.
	for try in 1 2 3; do
		flap "c) past the retry budget, $mode" A 3 "$mode" 256 \
			FI_UET_MAX_RETRIES=4
		[ "${ERRORS:-0}" -gt 0 ] || [ "$BUDGET_OUT" -gt 0 ] && break
		e2e_log "c) $mode: try $try: the flap fell between rounds"
	done
	[ "${ERRORS:-0}" -gt 0 ] && [ "$BUDGET_OUT" -gt 0 ] ||
		e2e_fail "c) $mode: ${ERRORS:-0} error completions and" \
			"$BUDGET_OUT PDCs past the retry budget"
	grep -qi "timed out\|FI_UET_MAX_RETRIES\|RC_UNDELIVERABLE" \
		<<< "$FIRST" || e2e_fail "c) $mode: the first error ($FIRST)" \
			"does not say the retry budget ran out"
	e2e_ok "c) $mode: $ERRORS errors past the budget, then every" \
		"operation posted again succeeded"
done
e2e_ok "all flaps in $(( ($(now_ms) - T0) / 1000 )) s"
