#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Congestion control on the emulated fabric (test/fabric/fabric_lib.sh):
# a star of 5 hosts at 800 Mbit/s, MTU 9000, whose router port to H5 is a
# switch-port model (uet_port: 256 KiB of buffer, CE marks above 64 KiB).
# H1..H4 each write MIB MiB into H5 at once (fi_rma_check's bulk mode:
# every byte checked by the server and read back), over uet with NSCC and
# RCCC (FI_UET_CC=nscc,rccc; FI_UET_LINK_MBPS the fabric's rate).
#  a. the incast: every byte right, the port's drops below 0.1% of its
#     frames, and the CC state in the stats (marks seen, each PDC's
#     window and base RTT, credit granted);
#  b. with trimming above 16 KiB (so that it happens): trimmed requests
#     reach H5 (rx_trimmed), are NACKed TRIMMED, resent and placed, every
#     byte still right;
#  c. the incast of a. at the provider's defaults (NSCC alone, no
#     FI_UET_LINK_MBPS): the hosts' veths report a nominal speed, so NSCC
#     learns the rate from the port's marks (fi_uet(7)); the port's drops
#     stay below 0.1% and every sender's trace shows a rate learnt below
#     10000 Mbit/s, from the 100000 it may reach.
E2E_NAME=e2e_cc
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/../fabric/fabric_lib.sh"
MIB=${CC_MIB:-8}
N=4 R=5
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
UET_ENV=(FI_PROVIDER=uet FI_UET_IFACE=fab0 FI_UET_LINK_MBPS=800
	 FI_UET_CC=nscc,rccc FI_UET_STATS=1)

fab_star $R 800 262144 9000
fab_uet_load
fab_host_in 1 ping -q -c 2 -i 0.2 -W 2 "${FAB_IP[$R]}" > /dev/null ||
	e2e_fail "H1 does not reach H$R"

# incast TAG [ENV...]: H1..H4 each write MIB MiB to their own server on H5
# (output in $E2E_TMP/TAG.{s,c}I); fails unless every pair ends well.
incast() {
	local tag=$1 i port svc pids=() spids=() rc=0
	local base=$((46000 + RANDOM % 3000))	# the servers' ports: base + i
	shift
	for i in $(seq $N); do
		port=$((base + i)) svc=$((600 + i))
		fab_host_in $R env "${UET_ENV[@]}" "$@" timeout 120 \
			"$B/fi_rma_check" -s -a "${FAB_IP[$R]}" -S $svc \
			-p $port -T 100 > "$E2E_TMP/$tag.s$i" 2>&1 &
		spids+=($!)
		echo "$port" > "$E2E_TMP/$tag.port$i"
	done
	# (each client waits for its server's side channel)
	for i in $(seq $N); do
		fab_host_in $i env "${UET_ENV[@]}" "$@" timeout 120 \
			"$B/fi_rma_check" -c "${FAB_IP[$R]}" -S $((600 + i)) \
			-p "$(cat "$E2E_TMP/$tag.port$i")" -m bulk -B "$MIB" \
			-T 100 > "$E2E_TMP/$tag.c$i" 2>&1 &
		pids+=($!)
	done
	for i in $(seq $N); do
		wait "${pids[$((i - 1))]}" || rc=$?
		[ "$rc" = 0 ] || e2e_fail "$tag: client $i: $(cat "$E2E_TMP/$tag.c$i")" \
			"; its server: $(cat "$E2E_TMP/$tag.s$i")"
		grep -q "bulk: $MIB MiB .* checked and read back" \
			"$E2E_TMP/$tag.c$i" ||
			e2e_fail "$tag: client $i: $(cat "$E2E_TMP/$tag.c$i")"
	done
	for i in $(seq $N); do wait "${spids[$((i - 1))]}" || true; done
	cat "$E2E_TMP/$tag".c* > "$E2E_TMP/$tag.clients"
	cat "$E2E_TMP/$tag".s* > "$E2E_TMP/$tag.servers"
}

# drops_ok TAG: the port's drops are at most 0.1% of the frames offered.
drops_ok() {
	local passed dropped
	passed=$(fab_port_stat r1 h$R passed)
	dropped=$(fab_port_stat r1 h$R dropped)
	[ "$passed" -gt $(( N * MIB * 100 )) ] ||
		e2e_fail "$1: only $passed frames crossed the port"
	[ $(( dropped * 1000 )) -le $(( passed + dropped )) ] ||
		e2e_fail "$1: the port dropped $dropped of $(( passed + dropped )) frames"
	echo "$dropped of $(( passed + dropped ))"
}

# a. The incast.
fab_port_model r1 h$R 65536 0
incast cc
d=$(drops_ok incast)
marked=$(fab_port_stat r1 h$R marked)
acks=$(e2e_engine_stat "$E2E_TMP/cc.clients" cc_ecn_acks)
granted=$(e2e_engine_stat "$E2E_TMP/cc.servers" rccc_granted)
credits=$(e2e_engine_stat "$E2E_TMP/cc.clients" rccc_credits_rx)
grep -q '"cc":{[^}]*"pdcs":\[{"peer":[0-9]*,"cwnd":[1-9]' \
	"$E2E_TMP/cc.clients" || e2e_fail "no PDC's window in the stats"
grep -q '"base_rtt_ns":[1-9]' "$E2E_TMP/cc.clients" ||
	e2e_fail "no base RTT in the stats"
[ "$granted" -gt 0 ] && [ "$credits" -gt 0 ] ||
	e2e_fail "no credit: $granted bytes granted, $credits CREDITs received"
e2e_ok "4:1 incast of $MIB MiB each: every byte checked, port drops $d," \
	"$marked frames marked, $acks ACKs echoed a mark, $granted bytes of" \
	"credit granted"

# b. Trimming.
fab_port_model r1 h$R 65536 16384
incast trim FI_UET_TRIMMING=1
trimmed=$(fab_port_stat r1 h$R trimmed)
rx_trim=$(e2e_engine_stat "$E2E_TMP/trim.servers" rx_trimmed)
nacked=$(e2e_engine_stat "$E2E_TMP/trim.clients" nacks_trimmed)
retx=$(e2e_engine_stat "$E2E_TMP/trim.clients" retx_nack)
rto=$(e2e_engine_stat "$E2E_TMP/trim.clients" retx_rto)
[ "$trimmed" -gt 0 ] || e2e_fail "the port trimmed nothing"
# A NACK for a packet already queued again or acknowledged (a copy got
# through) resends nothing more.
[ "$rx_trim" -gt 0 ] && [ "$nacked" -gt 0 ] &&
	[ $(( retx * 10 )) -ge $(( nacked * 9 )) ] ||
	e2e_fail "trims: port $trimmed, received $rx_trim, NACKed $nacked," \
		"resent $retx"
e2e_ok "trimming: $trimmed requests trimmed at the port, $rx_trim received" \
	"trimmed, $nacked NACKed TRIMMED and $retx resent at once ($rto on a" \
	"timeout); every byte checked"

# c. The provider's defaults: the rate learnt, not given.
fab_port_model r1 h$R 65536 0
incast dflt FI_UET_CC=nscc FI_UET_LINK_MBPS=0 FI_LOG_LEVEL=warn \
	FI_UET_TRACE="$E2E_TMP/dflt.%p.trace" FI_UET_TRACE_US=500
d=$(drops_ok "default settings")
grep -q "whose 10000 Mbit/s is nominal: congestion control learns" \
	"$E2E_TMP/dflt.c1" || e2e_fail "no word of the nominal speed:" \
	"$(head -5 "$E2E_TMP/dflt.c1")"
# Senders: traces with NSCC lines; learnt: their lowest rate under 10000.
read -r senders learnt < <(awk '
	FNR == 1 { f++ }
	!/^#/ && $9 > 0 { seen[f] = 1; if (!(f in lo) || $11 < lo[f]) lo[f] = $11 }
	END {
		for (k in seen) { n++; if (lo[k] < 10000) l++ }
		print n + 0, l + 0
	}' "$E2E_TMP"/dflt.*.trace)
[ "$senders" -ge $N ] && [ "$learnt" -ge $N ] ||
	e2e_fail "rates learnt in $learnt of $senders traces (want $N)"
e2e_ok "defaults (a nominal veth speed): port drops $d, a rate below" \
	"10000 Mbit/s learnt by $learnt senders; every byte checked"
