#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# uetctl capture between two namespaces: steered frames land in a pcap file
# with true lengths and timestamps; the count and duration limits and
# SIGINT stop it cleanly and switch the tap off; a second capture on the
# same interface is refused; the error paths speak clearly. Then the seed
# example (a 16 KiB write at Payload MTU 8192) captured on the initiator
# shows both directions, decoded field by field by tools/uet.lua, and a
# capture under injected loss shows retransmissions.
source "$(dirname "$0")/e2e_lib.sh"

U="$(cd "$(dirname "$B/uetctl")" && pwd)/uetctl"
e2e_setup
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$U" load "${!ifc}" --mode skb --no-service >/dev/null
done

recv_bg() {	# recv_bg COUNT: a receiving engine in B, so frames are steered
	rm -f "$E2E_TMP/ready"
	e2e_in B "$B/xsk_peer" recv "$IF_B" "$1" 10000 "$E2E_TMP/ready" \
		> "$E2E_TMP/recv.out" 2>/dev/null &
	RECV=$!
	for _ in $(seq 100); do [ -e "$E2E_TMP/ready" ] && break; sleep 0.05; done
}

# 1. A count-limited capture of 20 frames of 1000-byte payload.
recv_bg 20
e2e_in B "$U" capture "$IF_B" -w "$E2E_TMP/c1.pcap" -c 20 > "$E2E_TMP/cap.out" &
cap=$!
sleep 0.3
start=$(date +%s)
e2e_in A "$B/xsk_peer" send "$IF_A" "$IP_B" 20 1000 >/dev/null
wait "$cap" || e2e_fail "capture exited $?: $(cat "$E2E_TMP/cap.out")"
wait "$RECV" || true
grep -q "20 frames captured on $IF_B" "$E2E_TMP/cap.out" ||
	e2e_fail "capture said: $(cat "$E2E_TMP/cap.out")"
fields=$(tshark -n -r "$E2E_TMP/c1.pcap" -T fields -e frame.len \
	-e frame.cap_len -e frame.time_epoch -e udp.dstport 2>/dev/null)
[ "$(echo "$fields" | wc -l)" = 20 ] || e2e_fail "pcap has $(echo "$fields" | wc -l) frames"
echo "$fields" | awk -v s="$start" '
	$1 != 1042 || $2 != 512 || $4 != 4793 { bad = 1 }
	$3 < s - 5 || $3 > s + 60 || $3 < prev { bad = 1 }
	{ prev = $3 }
	END { exit bad }' || e2e_fail "lengths/timestamps: $fields"
e2e_in B "$U" status "$IF_B" | grep -q "capture off" || e2e_fail "tap left on"
e2e_ok "20 frames with true lengths and timestamps"

# 2. SIGINT stops an open-ended capture cleanly; the tap goes off. (Not
# through e2e_in: $! must be uetctl itself, which ip netns exec becomes.)
ip netns exec "$NS_B" "$U" capture "$IF_B" -w "$E2E_TMP/c2.pcap" > "$E2E_TMP/cap2.out" &
cap=$!
sleep 0.5
e2e_in B "$U" status "$IF_B" | grep -q "capture on" || e2e_fail "tap not on"
expect=$(e2e_in B "$U" capture "$IF_B" -w "$E2E_TMP/c3.pcap" 2>&1) && e2e_fail "second capture ran"
grep -q "a capture is already running" <<< "$expect" || e2e_fail "second: $expect"
kill -INT "$cap"
wait "$cap" || e2e_fail "capture after SIGINT exited $?"
grep -q "0 frames captured" "$E2E_TMP/cap2.out" || e2e_fail "$(cat "$E2E_TMP/cap2.out")"
tshark -r "$E2E_TMP/c2.pcap" >/dev/null 2>&1 || e2e_fail "pcap after SIGINT unreadable"
e2e_in B "$U" status "$IF_B" | grep -q "capture off" || e2e_fail "tap left on"
e2e_ok "SIGINT and a refused second capture"

# 3. The duration limit.
t0=$(date +%s%N)
e2e_in B "$U" capture "$IF_B" -w "$E2E_TMP/c4.pcap" --duration 0.5 >/dev/null ||
	e2e_fail "duration capture failed"
t1=$(date +%s%N)
[ $(( (t1 - t0) / 1000000 )) -lt 5000 ] || e2e_fail "duration ignored"
e2e_ok "duration limit"

# 5. The seed example, both directions in one capture on the initiator,
# between engines: they are endpoints of the device service.
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" "$U" unload "${!ifc}" >/dev/null
	e2e_in "$side" "$U" load "${!ifc}" --mode skb >/dev/null
done
seed_capture() {	# seed_capture FILE [COUNT]: capture on A around 16 KiB writes
	rm -f "$E2E_TMP/ready" "$E2E_TMP/done"
	ip netns exec "$NS_A" "$U" capture "$IF_A" -w "$1" > "$E2E_TMP/cs.out" &
	local cap=$! t
	e2e_in B timeout 60 "$B/engine_peer" target "$IF_B" "$IP_B" 16384 \
		30000 "$E2E_TMP/ready" "$E2E_TMP/done" > /dev/null &
	t=$!
	for _ in $(seq 100); do [ -e "$E2E_TMP/ready" ] && break; sleep 0.05; done
	e2e_in A timeout 60 "$B/engine_peer" write "$IF_A" "$IP_A" "$IP_B" \
		16384 "${2:-1}" > "$E2E_TMP/cw.out" 2>&1 ||
		e2e_fail "write: $(cat "$E2E_TMP/cw.out")"
	touch "$E2E_TMP/done"
	wait "$t"
	sleep 0.2
	kill -INT "$cap"
	wait "$cap" || e2e_fail "capture: $(cat "$E2E_TMP/cs.out")"
}
LUA="$(cd "$(dirname "$0")/../.." && pwd)/tools/uet.lua"
tsh() { tshark -n -X "lua_script:$LUA" "$@" 2>/dev/null; }
for side in A B; do
	ifc=IF_$side
	e2e_in "$side" ip link set "${!ifc}" mtu 9000
done
seed_capture "$E2E_TMP/seed.pcap"
# The write's message_id: the endpoint's index (the first endpoint of a
# fresh service is index 1) over a sequence that starts where the engine
# drew it (ses_config.msg_id_seed), not at the seed's 1 (include/uet_fep.h).
MID=$(tsh -r "$E2E_TMP/seed.pcap" -Y "uet.ses.opcode == 1 && uet.ses.som == 1" \
	-T fields -e uet.ses.message_id | head -n 1)
[ -n "$MID" ] && [ $(( MID >> 10 )) = 1 ] ||
	e2e_fail "the write's message_id '$MID' is not under index 1"
want=$'1\t0\t0\t8192\t16384\t101\t2\t0x000a\t0x00000000000acce5\t1
0\t1\t8192\t8192\t16384\t101\t2\t0x000a\t0x00000000000acce5\t1'
# (First transmissions only: on a loaded machine a timer may resend them,
# and the capture on the sender has every copy.)
got=$(tsh -r "$E2E_TMP/seed.pcap" -Y "uet.ses.opcode == 1 && uet.ses.message_id == $MID && uet.pds.flags.retx == 0" \
	-T fields -e uet.ses.som -e uet.ses.eom -e uet.ses.message_offset \
	-e uet.ses.payload_length -e uet.ses.request_length -e uet.ses.job_id \
	-e uet.ses.pid_on_fep -e uet.ses.resource_index -e uet.ses.memory_key \
	-e uet.ses.rel)
[ "$got" = "$want" ] || e2e_fail "seed packets decoded as:
$got"
# A write placed whole is answered DEFAULT_RESPONSE: an ACK from B that
# covers its last PSN and carries no SES response, and no RESPONSE for it.
PSN=$(tsh -r "$E2E_TMP/seed.pcap" -Y "uet.ses.opcode == 1 && uet.ses.message_id == $MID && uet.ses.eom == 1" \
	-T fields -e uet.pds.psn | head -n 1)
[ -n "$PSN" ] || e2e_fail "no last packet of the write"
ack=$(tsh -r "$E2E_TMP/seed.pcap" -Y "(uet.pds.type == 7 || uet.pds.type == 8) && ip.src == $IP_B && uet.pds.cack_psn >= $PSN && !uet.ses" \
	-T fields -e uet.pds.cack_psn | head -n 1)
[ -n "$ack" ] || e2e_fail "no ACK without a response covers the write's last PSN $PSN"
rsp=$(tsh -r "$E2E_TMP/seed.pcap" -Y "uet.ses.message_id == $MID && uet.ses.rsp_opcode" | wc -l)
[ "$rsp" = 0 ] || e2e_fail "$rsp responses carried for the write"
e2e_ok "seed write captured on the initiator: both packets, and the ACK alone that answers them"

# 6. Under loss, the capture shows retransmissions. Ten writes and reads
# put some 60 frames on the wire; at 30% the chance that none is lost is
# below one in a million.
e2e_in B "$U" fault "$IF_B" --drop 30 >/dev/null
seed_capture "$E2E_TMP/loss.pcap" 10
e2e_in B "$U" fault "$IF_B" --off >/dev/null
retx=$(tsh -r "$E2E_TMP/loss.pcap" -Y "uet.pds.flags.retx == 1" | wc -l)
[ "$retx" -gt 0 ] || e2e_fail "no retransmission in the capture under loss"
e2e_ok "30% loss: $retx retransmissions in the capture"

# 7. Error paths.
out=$(e2e_in A "$U" capture nosuch0 -w "$E2E_TMP/x.pcap" 2>&1) && e2e_fail "no iface"
grep -q "nosuch0: no such interface" <<< "$out" || e2e_fail "$out"
e2e_in A "$U" unload "$IF_A" >/dev/null
out=$(e2e_in A "$U" capture "$IF_A" -w "$E2E_TMP/x.pcap" 2>&1) && e2e_fail "not loaded"
grep -q "$IF_A: not loaded" <<< "$out" || e2e_fail "$out"
e2e_stage "$U"
out=$(e2e_as_nobody B "$E2E_STAGE/uetctl" capture "$IF_B" -w /tmp/uet-never.pcap 2>&1) &&
	e2e_fail "not root"
grep -q "permission denied (run as root)" <<< "$out" || e2e_fail "not root: $out"
e2e_ok "error paths"
