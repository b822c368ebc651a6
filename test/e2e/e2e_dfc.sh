#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Destination flow control (fi_uet(7), FI_UET_DFC; pdc_rx_backlog): an
# incast that outruns its target. Two processes in A, 8 endpoints each,
# write 2 MiB apiece into one endpoint in B at once (fi_scale_check: the
# target checks every slot). Its receive ring backs up past half, its
# ACKs carry Rcv_Cwnd_Pend, the initiators hold their windows and take
# them back on Restore_Cwnd:
#  a. with DFC (the default): every slot verified, the target sent
#     penalties (tx_rcv_penalty), the initiators read them
#     (cc_rcv_penalised) and restored their windows (cc_rcv_restores).
#     Whether the ring backs up depends on the scheduler: up to 3 runs,
#     and at least one must see the brake;
#  b. with FI_UET_DFC=0, for the record: every slot verified, no penalty
#     sent; the target's ring drops (rx_ring_full) and the incast's time
#     beside a)'s are printed (not asserted: the machine's load sets them).
E2E_NAME=e2e_dfc
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
K=8 P=2 LEN=2097152

e2e_setup 9000
for side in A B; do
	ifc=IF_$side
	# room for two incasts' endpoints: a closed one's index rests 2 s
	e2e_in "$side" "$B/uetctl" load "${!ifc}" --mode skb \
		--endpoints 63 >/dev/null
done

# incast TAG ENV...: the incast with ENV on every process; output in
# TAG.s (target) and TAG.c (initiators); fails unless every slot checked
# out; prints "MS RING_DROPS".
incast() {
	local tag=$1 svc=$((700 + RANDOM % 200)) go=$E2E_TMP/go.$1 p pids=()
	local s t0 rc=0
	shift
	e2e_in B env FI_PROVIDER=uet FI_UET_IFACE="$IF_B" FI_UET_STATS=1 "$@" \
		timeout 90 "$B/fi_scale_check" -s $((K * P)) -p $svc -l $LEN \
		-g "$go" -t 60 > "$E2E_TMP/$tag.s" 2>&1 &
	s=$!
	for p in $(seq 0 $((P - 1))); do
		e2e_in A env FI_PROVIDER=uet FI_UET_IFACE="$IF_A" \
			FI_UET_STATS=1 "$@" timeout 90 "$B/fi_scale_check" \
			-c "$IP_B" -p $svc -n $K -o $((p * K)) -l $LEN -g "$go" \
			-t 60 > "$E2E_TMP/$tag.c$p" 2>&1 &
		pids+=($!)
	done
	for p in $(seq 0 $((P - 1))); do
		e2e_wait_for "$E2E_TMP/$tag.c$p" ': ready' 30 ||
			e2e_fail "$tag: initiators $p not ready: $(cat "$E2E_TMP/$tag.c$p")"
	done
	e2e_wait_for "$E2E_TMP/$tag.s" ': ready' 30 ||
		e2e_fail "$tag: target not ready: $(cat "$E2E_TMP/$tag.s")"
	t0=$(now_ms)
	touch "$go"
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	wait "$s" || rc=1
	cat "$E2E_TMP/$tag".c[0-9]* > "$E2E_TMP/$tag.c"
	[ $rc = 0 ] && grep -q "^fi_scale_check: s: $((K * P)) of $((K * P)) slots verified.* ok$" \
		"$E2E_TMP/$tag.s" || e2e_fail "$tag: $(grep -hv '^uet_engine_stats' \
		"$E2E_TMP/$tag".s "$E2E_TMP/$tag".c | tail -8)"
	echo "$(( $(now_ms) - t0 )) $(e2e_engine_stat "$E2E_TMP/$tag.s" rx_ring_full)"
}

stat() { e2e_engine_stat "$E2E_TMP/$1" "$2"; }

# a) with DFC
seen=0
for run in 1 2 3; do
	read -r ms drops < <(incast a$run)
	pen=$(stat a$run.s tx_rcv_penalty)
	got=$(stat a$run.c cc_rcv_penalised)
	back=$(stat a$run.c cc_rcv_restores)
	e2e_log "a) run $run: $ms ms, ring drops $drops, penalties sent $pen, read $got, windows restored $back"
	if [ "$pen" -gt 0 ]; then
		[ "$got" -gt 0 ] && [ "$back" -gt 0 ] ||
			e2e_fail "a) the target sent $pen penalties; initiators read $got, restored $back"
		seen=1
		break
	fi
done
[ $seen = 1 ] || e2e_fail "a) in 3 incasts the target's ring never backed up past half"
e2e_ok "a) with DFC: $((K * P)) x $LEN B verified, the brake applied and released"

# b) without, for the record
read -r ms_b drops_b < <(incast b FI_UET_DFC=0)
[ "$(stat b.s tx_rcv_penalty)" = 0 ] || e2e_fail "b) FI_UET_DFC=0 sent penalties"
e2e_ok "b) without DFC: verified, $ms_b ms, ring drops $drops_b (with: $ms ms, $drops)"
