#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Trimming with TSS (issue 40): the 4:1 incast of e2e_cc's trimming case
# (an emulated star fabric, the port to H5 trimming above 16 KiB), every
# frame sealed (JobID 0 in SD 3 on every host). A trimmed sealed request
# has lost its ICV with its payload; its target reads its PDS header
# unauthenticated, only for a sender stream it knows and a TSC it has not
# seen (uet_tss_ep_open_trimmed), and answers NACK TRIMMED, so that the
# initiator resends at once instead of on its timer. Checks: the port
# trimmed, the targets' PDC got trimmed requests (rx_trimmed) and the
# initiators NACKs TRIMMED that they answered by resending, every byte of
# every write checked, and no frame refused as a forgery by its ICV
# (trimmed ones are not opened as whole frames).
E2E_NAME=e2e_tss_trim
source "$(dirname "$0")/e2e_lib.sh"
source "$(dirname "$0")/../fabric/fabric_lib.sh"
MIB=${CC_MIB:-8}
N=4 R=5
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
UET_ENV=(FI_PROVIDER=uet FI_UET_IFACE=fab0 FI_UET_LINK_MBPS=800
	 FI_UET_CC=nscc,rccc FI_UET_STATS=1 FI_UET_TSS=on
	 FI_UET_TRIMMING=1)

fab_star $R 800 262144 9000
KEYS="$E2E_TMP/tss.conf"
(
	umask 077
	exec > "$KEYS"
	echo "sd 3 jobs 0 mode cluster active 0 key0 $(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
)
for i in "${!FAB_HOSTS[@]}"; do
	fab_host_in "$i" "$B/uetctl" load fab0 --mode skb --tss-keys "$KEYS" \
		--tss-state "$E2E_TMP/state.$i" > /dev/null ||
		e2e_fail "uetctl load --tss-keys on H$i"
done
fab_host_in 1 ping -q -c 2 -i 0.2 -W 2 "${FAB_IP[$R]}" > /dev/null ||
	e2e_fail "H1 does not reach H$R"

pids=() spids=()
for i in $(seq $N); do
	port=$((46000 + RANDOM % 3000 + i))
	fab_host_in $R env "${UET_ENV[@]}" timeout 120 "$B/fi_rma_check" -s \
		-a "${FAB_IP[$R]}" -S $((600 + i)) -p $port -T 100 \
		> "$E2E_TMP/s$i" 2>&1 &
	spids+=($!)
	echo "$port" > "$E2E_TMP/port$i"
done
fab_port_model r1 h$R 65536 16384
for i in $(seq $N); do
	fab_host_in $i env "${UET_ENV[@]}" timeout 120 "$B/fi_rma_check" \
		-c "${FAB_IP[$R]}" -S $((600 + i)) -p "$(cat "$E2E_TMP/port$i")" \
		-m bulk -B "$MIB" -T 100 > "$E2E_TMP/c$i" 2>&1 &
	pids+=($!)
done
for i in $(seq $N); do
	rc=0
	wait "${pids[$((i - 1))]}" || rc=$?
	[ "$rc" = 0 ] && grep -q "bulk: $MIB MiB .* checked and read back" \
		"$E2E_TMP/c$i" || e2e_fail "client $i: $(cat "$E2E_TMP/c$i")"
done
for i in $(seq $N); do wait "${spids[$((i - 1))]}" || true; done
cat "$E2E_TMP"/c[0-9] > "$E2E_TMP/clients"
cat "$E2E_TMP"/s[0-9] > "$E2E_TMP/servers"

trimmed=$(fab_port_stat r1 h$R trimmed)
rx_trim=$(e2e_engine_stat "$E2E_TMP/servers" rx_trimmed)
nacked=$(e2e_engine_stat "$E2E_TMP/clients" nacks_trimmed)
retx=$(e2e_engine_stat "$E2E_TMP/clients" retx_nack)
rto=$(e2e_engine_stat "$E2E_TMP/clients" retx_rto)
sealed=$(e2e_engine_stat "$E2E_TMP/clients" tx_sealed)
bad=$(e2e_engine_stat "$E2E_TMP/servers" rx_bad_icv)
[ "$trimmed" -gt 0 ] || e2e_fail "the port trimmed nothing"
[ "${sealed:-0}" -gt 0 ] || e2e_fail "nothing sealed"
[ "$rx_trim" -gt 0 ] && [ "$nacked" -gt 0 ] &&
	[ $(( retx * 10 )) -ge $(( nacked * 9 )) ] ||
	e2e_fail "sealed trims: port $trimmed, received $rx_trim, NACKed" \
		"$nacked, resent $retx ($rto on a timeout)"
[ "$bad" = 0 ] || e2e_fail "$bad frames refused by their ICV"
e2e_ok "trimming with TSS: $trimmed sealed requests trimmed at the port," \
	"$rx_trim read trimmed, $nacked NACKed TRIMMED and $retx resent at" \
	"once ($rto on a timeout); every byte checked, no ICV failure"
