#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# uetd's TSS keys (tools/uetd_tss*.c): a key file others may read, and one
# with a bad line, stop the service with the reason (and its line); an
# endpoint gets its SD's keys with epochs of its own, the same when it asks
# again, and ENOKEY for a JobID of no SD; the XDP SDI map names the one
# endpoint of an SD, the service for two; SIGHUP reloads (the generation
# moves, a new key gets epochs, the old key's stay), a bad file at reload
# keeps the keys; a restarted service never hands an epoch out again (it
# goes on past the block the state file reserved).
# The service steers the frames of an SD with several endpoints here: the
# fallback (UET_TSS_XDP=off, as where the kernel cannot read them in XDP);
# e2e_tss_eps tests the XDP program reading them. A bad UET_TSS_XDP stops
# the service with a message that names it.
source "$(dirname "$0")/e2e_lib.sh"
export UET_TSS_XDP=off

K0=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
K1=ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100
SVC_PID=

# keys TEXT: the key file, root's and nobody else's.
keys() {
	printf '%s\n' "$1" > "$E2E_TMP/tss.conf"
	chmod 600 "$E2E_TMP/tss.conf"
}

# uetd_fg ARGS...: the service in the foreground (its messages to stderr).
uetd_fg() {
	e2e_in A timeout 5 "$B/uetd" "$IF_A" --mode skb --foreground \
		--tss-keys "$E2E_TMP/tss.conf" \
		--tss-state "$E2E_TMP/state/tss.state" "$@" 2>&1
}

svc_start() {
	: > "$E2E_TMP/uetd.log"
	# Not through e2e_in: $! is then uetd itself (ip execs it).
	ip netns exec "$NS_A" "$B/uetd" "$IF_A" --mode skb --foreground \
		--tss-keys "$E2E_TMP/tss.conf" \
		--tss-state "$E2E_TMP/state/tss.state" \
		>> "$E2E_TMP/uetd.log" 2>&1 &
	SVC_PID=$!
	e2e_wait_for "$E2E_TMP/uetd.log" "serving" 5 ||
		e2e_fail "uetd did not start: $(cat "$E2E_TMP/uetd.log")"
}

svc_stop() {
	kill "$SVC_PID" 2>/dev/null || true
	wait "$SVC_PID" 2>/dev/null || true
	SVC_PID=
}

# sdi_map: the program's SDI map, "SDI EP" lines.
sdi_map() {
	bpftool -j map dump pinned \
		"$(echo "$UET_BPFFS"/uet/ns*/"$IF_A"/uet_xdp_sdi)" |
		python3 -c 'import json, sys
for e in json.load(sys.stdin):
	k = int.from_bytes(bytes(int(x, 16) for x in e["key"]), "little")
	v = int.from_bytes(bytes(int(x, 16) for x in e["value"]), "little")
	print(k, v)'
}

e2e_setup
trap 'svc_stop; e2e_cleanup' EXIT

keys "sd 7 jobs 100-199 active 0 key0 $K0"
chmod 644 "$E2E_TMP/tss.conf"
out=$(uetd_fg) && e2e_fail "a readable key file served: $out"
grep -q "group or others may read" <<< "$out" || e2e_fail "perm: $out"
e2e_ok "a key file others may read: refused ($out)"

keys "# two SDs
sd 7 jobs 100-199 active 0 key0 $K0
sd 8 jobs 150 active 0 key0 $K1"
out=$(uetd_fg) && e2e_fail "a bad key file served: $out"
grep -q "line 3: JobID 150 is in SD 7 (line 2) too" <<< "$out" ||
	e2e_fail "bad line: $out"
grep -q "$K0\|$K1" <<< "$out" && e2e_fail "a key in the message: $out"
e2e_ok "a key file with a bad line: refused ($out)"

keys "sd 7 jobs 100-199 active 0 key0 $K0
sd 9 jobs 300 mode direct ssi active 0 key0 $K1"
out=$(UET_TSS_XDP=yes uetd_fg) && e2e_fail "UET_TSS_XDP=yes served: $out"
grep -q "UET_TSS_XDP=yes: must be auto or off" <<< "$out" || e2e_fail "UET_TSS_XDP=yes: $out"
e2e_ok "a bad UET_TSS_XDP: refused ($out)"
svc_start
[ "$(stat -c %a "$E2E_TMP/state")" = 700 ] || e2e_fail "state dir mode"
e2e_in A "$B/tss_keys" "$IF_A" 999 > "$E2E_TMP/k999" 2>&1 || true
grep -q "error $(( $(grep -w ENOKEY /usr/include/asm-generic/errno.h |
	awk '{print $3}') )) .*JobID 999 is in no secure domain" \
	"$E2E_TMP/k999" || e2e_fail "job 999: $(cat "$E2E_TMP/k999")"
e2e_ok "a JobID of no SD: ENOKEY"

e2e_in A "$B/tss_keys" "$IF_A" 100 3 > "$E2E_TMP/k1" 2>&1 &
k1=$!
e2e_wait_for "$E2E_TMP/k1" "epochs" 3 || e2e_fail "k1: $(cat "$E2E_TMP/k1")"
grep -q "sdi 7 mode 2 tx_an 0 have 1 use_ssi 0 .*epoch 0 0 gen 0" \
	"$E2E_TMP/k1" || e2e_fail "k1: $(cat "$E2E_TMP/k1")"
grep -q "epochs held" "$E2E_TMP/k1" || e2e_fail "k1: $(cat "$E2E_TMP/k1")"
ep1=$(awk 'NR == 1 { print $2 + 0 }' "$E2E_TMP/k1")
[ "$(sdi_map)" = "7 $ep1" ] || e2e_fail "map with one: '$(sdi_map)'"
e2e_ok "keys of SD 7, epoch 0, asked twice; the map names endpoint $ep1"

e2e_in A "$B/tss_keys" "$IF_A" 150 3 > "$E2E_TMP/k2" 2>&1 &
k2=$!
e2e_wait_for "$E2E_TMP/k2" "epochs" 3 || e2e_fail "k2: $(cat "$E2E_TMP/k2")"
grep -q "sdi 7 .*epoch 1 0 gen 0" "$E2E_TMP/k2" ||
	e2e_fail "k2: $(cat "$E2E_TMP/k2")"
[ "$(sdi_map)" = "7 0" ] || e2e_fail "map with two: '$(sdi_map)'"
e2e_ok "a second endpoint of SD 7: epoch 1; the map names the service"

# A rotation's first step: the new key beside the old, still inactive.
keys "sd 7 jobs 100-199 active 0 key0 $K0 key1 $K1
sd 9 jobs 300 mode direct ssi active 0 key0 $K1"
kill -HUP "$SVC_PID"
wait "$k1" || e2e_fail "k1: $(cat "$E2E_TMP/k1")"
wait "$k2" || true
tail -1 "$E2E_TMP/k1" | grep -q "have 3 .*epoch 0 0 gen 1" ||
	e2e_fail "k1 after reload: $(cat "$E2E_TMP/k1")"
tail -1 "$E2E_TMP/k2" | grep -q "have 3 .*epoch 1 1 gen 1" ||
	e2e_fail "k2 after reload: $(cat "$E2E_TMP/k2")"
e2e_ok "reload: generation 1, the new key's epochs 0 and 1, old ones kept"

keys "sd 7 jobs 100-199 active 2 key0 $K0"
kill -HUP "$SVC_PID"
e2e_wait_for "$E2E_TMP/uetd.log" "the keys read before stay" 3 ||
	e2e_fail "bad reload: $(cat "$E2E_TMP/uetd.log")"
out=$(e2e_in A "$B/tss_keys" "$IF_A" 300 2>&1) || e2e_fail "300: $out"
grep -q "sdi 9 mode 1 .*use_ssi 1 ssi 0x0" <<< "$out" &&
	e2e_fail "ssi without the address: $out"
grep -q "sdi 9 mode 1 tx_an 0 have 1 use_ssi 1 .*gen 1" <<< "$out" ||
	e2e_fail "300: $out"
e2e_ok "a bad file at reload: the keys stay"

# svc_stat NAME: a counter of the service's JSON stats (top level, "tss" or
# "service").
svc_stat() {
	e2e_in A "$B/uetctl" stats "$IF_A" --json | python3 -c 'import json, sys
s = json.load(sys.stdin)
for o in (s, s.get("tss", {}), s.get("service", {})):
	if sys.argv[1] in o:
		print(o[sys.argv[1]])
		break
else:
	print("none")' "$1"
}

# Secured frames from B: with two endpoints of SD 7 open, the program
# sends them to the service, which finds the endpoint in the decrypted
# header and hands them on; an SD it has no keys of, or an endpoint that
# is not there, it drops.
e2e_in A "$B/tss_keys" "$IF_A" 100 6 > "$E2E_TMP/k3" 2>&1 &
k3=$!
e2e_in A "$B/tss_keys" "$IF_A" 101 2 > "$E2E_TMP/k4" 2>&1 &
k4=$!
e2e_wait_for "$E2E_TMP/k3" "epochs" 3 && e2e_wait_for "$E2E_TMP/k4" "epochs" 3 ||
	e2e_fail "k3, k4: $(cat "$E2E_TMP/k3" "$E2E_TMP/k4")"
ep3=$(awk 'NR == 1 { print $2 + 0 }' "$E2E_TMP/k3")
e2e_in B "$B/tss_send" "$IP_B" "$IP_A" 7 "$K0" "$ep3" 3
e2e_in B "$B/tss_send" "$IP_B" "$IP_A" 8 "$K0" "$ep3" 1
e2e_in B "$B/tss_send" "$IP_B" "$IP_A" 7 "$K0" 40 2
sleep 0.5
for c in tss_to_service:6 tss_handed_on:3 tss_no_sd:1 tss_unsteerable:2 \
	 tss_steered:0 absent_answered:0; do
	[ "$(svc_stat "${c%%:*}")" = "${c#*:}" ] ||
		e2e_fail "${c%%:*} is $(svc_stat "${c%%:*}"), not ${c#*:}"
done
e2e_ok "secured frames at the service: 3 handed on, 1 of no SD, 2 unsteerable"
wait "$k4" || true
# One endpoint of SD 7 left: the program steers to it.
e2e_in B "$B/tss_send" "$IP_B" "$IP_A" 7 "$K0" "$ep3" 2
sleep 0.5
[ "$(svc_stat tss_steered)" = 2 ] ||
	e2e_fail "tss_steered $(svc_stat tss_steered), map '$(sdi_map)'"
e2e_ok "one endpoint of SD 7: secured frames steered to it by the program"
wait "$k3" || true
# Its endpoint closed (the service sees its socket end at once): a late
# ACK for it is a teardown's, counted apart from the unsteerable ones.
sleep 0.5
e2e_in B "$B/tss_send" "$IP_B" "$IP_A" 7 "$K0" "$ep3" 2
sleep 0.5
for c in tss_ep_closed:2 tss_unsteerable:2; do
	[ "$(svc_stat "${c%%:*}")" = "${c#*:}" ] ||
		e2e_fail "after the close: ${c%%:*} is $(svc_stat "${c%%:*}")," \
			"not ${c#*:}"
done
e2e_ok "secured frames for an endpoint just closed: 2 counted as such," \
	"none more unsteerable"

svc_stop
# Epochs 0-3 of SD 7's key 0 were handed out; the file reserved a block
# past them (uetd_tss_state.c), which a restart goes on after.
next=$(awk '$1 == 7 && $2 == 0 { print $4 }' "$E2E_TMP/state/tss.state")
[ -n "$next" ] && [ "$next" -ge 4 ] ||
	e2e_fail "state: $(cat "$E2E_TMP/state/tss.state")"
keys "sd 7 jobs 100-199 active 0 key0 $K0"
svc_start
out=$(e2e_in A "$B/tss_keys" "$IF_A" 100 2>&1) || e2e_fail "restart: $out"
grep -q "epoch $next 0 gen 0" <<< "$out" || e2e_fail "restart: $out"
[ "$(stat -c %a "$E2E_TMP/state/tss.state")" = 600 ] ||
	e2e_fail "state file mode"
e2e_ok "restarted: the next epoch is $next (0-3 handed out, up to it" \
	"reserved), none twice"

svc_stop
chmod 640 "$E2E_TMP/tss.conf"
out=$(e2e_in A "$B/uetctl" load "$IF_A" --mode skb --tss-keys \
	"$E2E_TMP/tss.conf" --tss-state "$E2E_TMP/state/tss.state" 2>&1) &&
	e2e_fail "uetctl load with a readable key file: $out"
grep -q "group or others may read" <<< "$out" || e2e_fail "uetctl: $out"
e2e_in A ip link show "$IF_A" | grep -q xdp && e2e_fail "left attached"
e2e_ok "uetctl load: the key file's reason, nothing attached"
