#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# TSS (UE 1.0 3.7) between three hosts on a bridge: the target T, the
# client C and a third host F that sees their frames (the bridge floods
# them, as a hub would) and attacks. The services of T and C hold one key
# file: SD 7 (cluster mode) for JobID 42, SD 9 (direct mode) for JobID 43;
# JobID 44 is in no domain.
#  a. JobID 44 writes in clear: the capture shows the payload (the
#     check below can fail);
#  b. JobID 42 writes 1 MiB sealed: it verifies, both engines sealed and
#     opened, and neither T's capture nor F's shows a payload byte;
#  c. JobIDs 42, 43 and 44 (clear) at once on the same interfaces, each
#     verifies;
#  d. F replays C's sealed frames, flips a bit in the TSS header, the
#     ciphertext, the ICV and the UDP source port (AAD), and sends them
#     under the other domain's SDI, while C's client is mid-stream to a
#     target region of T: every one dropped and counted, the client's next
#     writes complete, its range holds what it wrote and the rest of the
#     region its pattern;
#  e. a key rotation of SD 7 under traffic (new key in AN 1, reload;
#     AN 1 active, reload): the stream goes on with no frame refused;
#  f. without TSS, the CRC32C trailer: writes verify, the dissector
#     checks every trailer, frames with a bit flipped are refused.
E2E_NAME=e2e_tss
source "$(dirname "$0")/e2e_lib.sh"
export FI_PROVIDER_PATH="$(cd "$B" && pwd)"
LIMIT_S=40
# The first 16 bytes uet_write writes (examples/uet_write.c: i * 7 + i / 256).
PATTERN=00070e151c232a31383f464d545b6269

e2e_setup3 9000
# E2E_KEEP=DIR: the run's files (captures, outputs) are left there.
trap 'if [ -n "${E2E_KEEP:-}" ]; then mkdir -p "$E2E_KEEP";
	cp "$E2E_TMP"/* "$E2E_KEEP"/ 2>/dev/null || true; fi; e2e_cleanup3' EXIT
# F sees what C and T send: the bridge learns no address of theirs, so
# it floods their frames to every port, as a hub would.
for p in pT pC; do
	ip -n "$NS_BR" link set "$p" type bridge_slave learning off
	ip -n "$NS_BR" link set "$p" type bridge_slave flood on
done
ip -n "$NS_BR" link set br0 type bridge fdb_flush
KEY0=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
KEY1=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
KEY9=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
KEYS="$E2E_TMP/tss.conf"
write_keys() {	# write_keys ACTIVE [KEY1]: SD 7's active AN, its AN 1 key
	umask 077
	{
		echo "# e2e_tss: two secure domains"
		echo "sd 7 jobs 42 mode cluster active $1 key0 $KEY0${2:+ key1 $2}"
		echo "sd 9 jobs 43 mode direct active 0 key0 $KEY9"
	} > "$KEYS.new"
	mv "$KEYS.new" "$KEYS"
}
write_keys 0
for side in T C; do
	e2e_in "$side" "$B/uetctl" load ueth0 --mode skb --tss-keys "$KEYS" \
		--tss-state "$E2E_TMP/state.$side" > /dev/null ||
		e2e_fail "uetctl load with --tss-keys on $side"
done
e2e_in C ping -q -c 1 -W 2 "$IP_T" > /dev/null || e2e_fail "C does not reach T"

uetd_pid() { ip netns pids "$1" | while read -r p; do
	[ "$(cat "/proc/$p/comm")" = uetd ] && echo "$p"; done; }

# frame_hex FILE: each frame of a capture as one line of hex.
frame_hex() {
	tshark -r "$1" -x 2>/dev/null | awk '
		/^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / {
			s = substr($0, 7, 47); gsub(/ /, "", s); h = h s; next }
		{ if (h != "") print h; h = "" }
		END { if (h != "") print h }'
}

# pcap_has FILE HEX: a frame of the capture holds HEX.
# (Whole: grep -q leaving early would fail the pipe under pipefail.)
pcap_has() { [ "$(frame_hex "$1" | grep -c "$2")" -gt 0 ]; }

# write JOB SERVICE BYTES TAG [ENV...]: uet_write C -> T; its outputs in
# $E2E_TMP/TAG.{s,c}; 0 when the server says ok.
write() {
	local job=$1 svc=$2 n=$3 tag=$4 port=$((45000 + RANDOM % 3000)) s rc=0
	shift 4
	e2e_in T env FI_PROVIDER=uet FI_UET_JOB_ID="$job" FI_UET_STATS=1 "$@" \
		timeout "$LIMIT_S" "$B/uet_write" -s -a "$IP_T" -S "$svc" \
		-p "$port" -n "$n" > "$E2E_TMP/$tag.s" 2>&1 &
	s=$!
	sleep 0.3
	e2e_in C env FI_PROVIDER=uet FI_UET_JOB_ID="$job" FI_UET_STATS=1 "$@" \
		timeout "$LIMIT_S" "$B/uet_write" -c "$IP_T" -S "$svc" \
		-p "$port" -n "$n" > "$E2E_TMP/$tag.c" 2>&1 || rc=1
	wait "$s" || rc=1
	grep -q "server says ok" "$E2E_TMP/$tag.c" || rc=1
	return $rc
}

capture_start() {	# capture_start FILE: T's uetctl capture and F's dumpcap
	ip netns exec "$NS_T" "$B/uetctl" capture ueth0 -w "$1.t" > "$1.t.out" 2>&1 &
	CAP_T=$!
	ip netns exec "$NS_F" dumpcap -q -i ueth0 -w "$1.f" > "$1.f.out" 2>&1 &
	CAP_F=$!
	sleep 1
}
# dumpcap reads the kernel's frames a block at a time, a block when it is
# full or a while old: stopped at once, it would lose the last ones.
capture_stop() {
	sleep 1.5
	kill -INT "$CAP_T" "$CAP_F" 2>/dev/null
	wait "$CAP_T" "$CAP_F" 2>/dev/null || true
}

# a. In clear: the pattern shows (so the check of b can see it).
capture_start "$E2E_TMP/clear"
write 44 300 65536 clear || e2e_fail "clear write: $(cat "$E2E_TMP/clear.c" "$E2E_TMP/clear.s")"
capture_stop
pcap_has "$E2E_TMP/clear.t" "$PATTERN" || e2e_fail "the clear capture lacks the pattern"
pcap_has "$E2E_TMP/clear.f" "$PATTERN" || e2e_fail "F does not see the clear pattern"
e2e_ok "JobID 44 (no domain) writes in clear, and the payload shows"

# b. Sealed.
capture_start "$E2E_TMP/sealed"
write 42 301 1048576 sealed || e2e_fail "sealed write: $(cat "$E2E_TMP/sealed.c" "$E2E_TMP/sealed.s")"
capture_stop
for f in sealed.s sealed.c; do
	[ "$(e2e_engine_stat "$E2E_TMP/$f" tx_sealed)" -gt 0 ] &&
	[ "$(e2e_engine_stat "$E2E_TMP/$f" rx_opened)" -gt 0 ] ||
		e2e_fail "$f: nothing sealed or opened: $(grep uet_engine_stats "$E2E_TMP/$f")"
	[ "$(e2e_engine_stat "$E2E_TMP/$f" rx_bad_icv)" = 0 ] ||
		e2e_fail "$f: bad ICVs in a clean run"
done
[ "$(tshark -r "$E2E_TMP/sealed.f" 2>/dev/null | wc -l)" -gt 100 ] ||
	e2e_fail "F saw few frames: $(cat "$E2E_TMP/sealed.f.out")"
pcap_has "$E2E_TMP/sealed.t" "$PATTERN" && e2e_fail "T's capture shows payload in clear"
pcap_has "$E2E_TMP/sealed.f" "$PATTERN" && e2e_fail "F's capture shows payload in clear"
e2e_ok "JobID 42 writes 1 MiB sealed (cluster mode); no payload byte in either capture"

# c. Two jobs, two domains, and a job in clear, at once.
write 42 302 1048576 two42 & p42=$!
write 43 303 1048576 two43 & p43=$!
write 44 304 1048576 two44 & p44=$!
wait $p42 || e2e_fail "JobID 42 beside 43: $(cat "$E2E_TMP/two42.c")"
wait $p43 || e2e_fail "JobID 43 beside 42: $(cat "$E2E_TMP/two43.c")"
wait $p44 || e2e_fail "JobID 44 (clear) beside them: $(cat "$E2E_TMP/two44.c")"
[ "$(e2e_engine_stat "$E2E_TMP/two43.s" rx_opened)" -gt 0 ] ||
	e2e_fail "JobID 43 was not sealed"
[ "$(e2e_engine_stat "$E2E_TMP/two44.s" rx_sealed_refused)" = 0 ] &&
[ "$(e2e_engine_stat "$E2E_TMP/two42.s" rx_clear_refused)" = 0 ] ||
	e2e_fail "the clear and the sealed job took each other's frames"
e2e_ok "JobIDs 42 (cluster), 43 (direct) and 44 (clear) at once, each verifies"

# flood_server TAG SERVICE PORT: fi_flood_check's target for JobID 42 on T,
# its region holding a pattern; output in $E2E_TMP/TAG.s, its pid in srv.
flood_server() {
	e2e_in T env FI_PROVIDER=uet FI_UET_JOB_ID=42 FI_UET_STATS=1 \
		"$B/fi_flood_check" -s -a "$IP_T" -P "$2" -p "$3" \
		-T "$LIMIT_S" > "$E2E_TMP/$1.s" 2>&1 &
	srv=$!
	e2e_wait_for "$E2E_TMP/$1.s" "server: pid_on_fep" 10 ||
		e2e_fail "no server: $(cat "$E2E_TMP/$1.s")"
}

# d. A third host's attacks on a client mid-stream.
port=$((48000 + RANDOM % 1000))
flood_server atk 310 "$port"
ip netns exec "$NS_F" dumpcap -q -i ueth0 -w "$E2E_TMP/atk.pcap" > /dev/null 2>&1 &
cap=$!
sleep 1
e2e_in C env FI_PROVIDER=uet FI_UET_JOB_ID=42 FI_UET_STATS=1 \
	"$B/fi_flood_check" -c "$IP_T" -P 310 -p "$port" -T "$LIMIT_S" \
	-w 16 -g "$E2E_TMP/go" -n 32 > "$E2E_TMP/atk.c" 2>&1 &
cli=$!
e2e_wait_for "$E2E_TMP/atk.c" "waiting for" 15 || e2e_fail "client: $(cat "$E2E_TMP/atk.c")"
sleep 1.5; kill -INT "$cap"; wait "$cap" 2>/dev/null || true
# An endpoint of the other job (SD 9) on T, waiting for its client:
# frames under SDI 9 go to it, and it cannot open JobID 42's.
port43=$((port + 1))
e2e_in T env FI_PROVIDER=uet FI_UET_JOB_ID=43 FI_UET_STATS=1 \
	timeout "$LIMIT_S" "$B/uet_write" -s -a "$IP_T" -S 311 -p "$port43" \
	-n 65536 > "$E2E_TMP/atk43.s" 2>&1 &
srv43=$!
sleep 1
sent=0
for m in "replay" "tamper --at 6" "tamper --at 40" "tamper --at -1" "port" "sdi --sdi 9"; do
	# shellcheck disable=SC2086 # the mode's words split on purpose
	out=$(e2e_in F "$B/tss_inject" --pcap "$E2E_TMP/atk.pcap" --dst "$IP_T" \
		--raw ueth0 --max 40 --mode $m) || e2e_fail "tss_inject $m: $out"
	sent=$((sent + $(sed -n 's/.*sent \([0-9]*\) frames.*/\1/p' <<< "$out")))
done
sleep 0.5
# The endpoints' refusals, as the service shows them (uetctl stats).
refused=$(e2e_in T "$B/uetctl" stats ueth0 --json |
	grep -o '"rx_refused": [0-9]*' | awk '{ n += $2 } END { print n + 0 }')
touch "$E2E_TMP/go"
wait "$cli" || e2e_fail "client after the attacks: $(cat "$E2E_TMP/atk.c")"
wait "$srv" || e2e_fail "server after the attacks: $(cat "$E2E_TMP/atk.s")"
grep -q "client: main: writes 32 errors 0" "$E2E_TMP/atk.c" ||
	e2e_fail "the client's next writes: $(cat "$E2E_TMP/atk.c")"
grep -q "client range .* holds the client's data ok" "$E2E_TMP/atk.s" ||
	e2e_fail "client range: $(cat "$E2E_TMP/atk.s")"
grep -q "rest of the region .* holds the pattern ok" "$E2E_TMP/atk.s" ||
	e2e_fail "rest of the region: $(cat "$E2E_TMP/atk.s")"
replay=$(e2e_engine_stat "$E2E_TMP/atk.s" rx_replay)
bad=$(e2e_engine_stat "$E2E_TMP/atk.s" rx_bad_icv)
e2e_in C env FI_PROVIDER=uet FI_UET_JOB_ID=43 timeout "$LIMIT_S" \
	"$B/uet_write" -c "$IP_T" -S 311 -p "$port43" -n 65536 \
	> "$E2E_TMP/atk43.c" 2>&1 || e2e_fail "JobID 43 after the attack: $(cat "$E2E_TMP/atk43.c")"
wait "$srv43" || e2e_fail "JobID 43's server: $(cat "$E2E_TMP/atk43.s")"
other=$(e2e_engine_stat "$E2E_TMP/atk43.s" rx_bad_icv)
e2e_log "attack: $sent frames sent; target: rx_replay $replay rx_bad_icv $bad; JobID 43's endpoint: rx_bad_icv $other; uetctl stats: $refused refused"
# Six kinds of as many frames: the replay and the changes that keep the
# TSC (ciphertext, ICV, port) meet the replay window first; the one in
# the TSC the ICV; the other domain's SDI has no endpoint here.
per=$((sent / 6))
[ "$replay" -ge $((per * 4)) ] || e2e_fail "rx_replay $replay of $((per * 4))"
[ "$bad" -ge "$per" ] || e2e_fail "rx_bad_icv $bad of $per"
[ "$other" -ge "$per" ] || e2e_fail "JobID 43's endpoint refused $other of $per"
[ "$refused" -ge $((per * 6)) ] || e2e_fail "uetctl stats shows $refused refused of $((per * 6))"
grep -q "server says ok" "$E2E_TMP/atk43.c" ||
	e2e_fail "JobID 43's write after the attack: $(cat "$E2E_TMP/atk43.c")"
e2e_ok "replayed, tampered (header, ciphertext, ICV, AAD) and other-domain frames: dropped, counted, the region intact; the other job opens none"

# e. Rotation under traffic: a stream of writes while SD 7 moves to AN 1.
port=$((49000 + RANDOM % 1000))
flood_server rot 320 "$port"
e2e_in C env FI_PROVIDER=uet FI_UET_JOB_ID=42 FI_UET_STATS=1 \
	"$B/fi_flood_check" -c "$IP_T" -P 320 -p "$port" -T "$LIMIT_S" \
	-w 4 -d 4000 -r 500 > "$E2E_TMP/rot.c" 2>&1 &
cli=$!
sleep 1
write_keys 0 "$KEY1"
for side in T C; do kill -HUP "$(uetd_pid "$(eval echo \$NS_$side)")"; done
sleep 1
write_keys 1 "$KEY1"
for side in T C; do kill -HUP "$(uetd_pid "$(eval echo \$NS_$side)")"; done
wait "$cli" || e2e_fail "client across the rotation: $(cat "$E2E_TMP/rot.c")"
wait "$srv" || e2e_fail "server across the rotation: $(cat "$E2E_TMP/rot.s")"
for f in rot.s rot.c; do
	for k in rx_bad_icv rx_no_key rx_replay; do
		[ "$(e2e_engine_stat "$E2E_TMP/$f" $k)" = 0 ] ||
			e2e_fail "$f: $k $(e2e_engine_stat "$E2E_TMP/$f" $k) across the rotation"
	done
	[ "$(e2e_engine_stat "$E2E_TMP/$f" tss_rekeyed)" -ge 2 ] ||
		e2e_fail "$f: the engine did not take the new keys"
done
grep -q "client: main: writes [1-9][0-9]* errors 0" "$E2E_TMP/rot.c" ||
	e2e_fail "writes across the rotation: $(cat "$E2E_TMP/rot.c")"
# After it, frames carry AN 1: a new write, captured by F.
ip netns exec "$NS_F" dumpcap -q -i ueth0 -w "$E2E_TMP/an1.pcap" > /dev/null 2>&1 &
cap=$!
sleep 1
write 42 321 65536 an1 || e2e_fail "a write after the rotation: $(cat "$E2E_TMP/an1.c")"
sleep 1.5; kill -INT "$cap"; wait "$cap" 2>/dev/null || true
# The TSS header's first byte: type 1 << 3 | SP << 2 | AN: 0x09 with AN 1.
# (Ethernet 14, IPv4 20, UDP 8: the 43rd byte, hex digits 85-86.)
[ "$(frame_hex "$E2E_TMP/an1.pcap" | cut -c85-86 | grep -cx 09)" -gt 0 ] ||
	e2e_fail "no frame with AN 1 after the rotation"
e2e_ok "key rotation under traffic: no frame refused, then AN 1 on the wire"

# f. Without TSS, the CRC32C trailer (FI_UET_CRC=1 on both ends, JobID 44):
# a write verifies with the trailer on the wire (the dissector checks it);
# then F sends C's captured frames with a payload bit flipped to a new
# endpoint at the same PIDonFEP: each refused on its CRC, and the next
# write verifies.
capture_start "$E2E_TMP/crc"
write 44 330 65536 crc1 FI_UET_CRC=1 ||
	e2e_fail "write with CRC32C: $(cat "$E2E_TMP/crc1.c" "$E2E_TMP/crc1.s")"
capture_stop
[ "$(e2e_engine_stat "$E2E_TMP/crc1.c" tx_crc)" -gt 0 ] ||
	e2e_fail "no CRC32C sent"
LUA="$(cd "$(dirname "$0")/../../tools" && pwd)/uet.lua"
crcs=$(tshark -n -r "$E2E_TMP/crc.f" -X lua_script:"$LUA" -o uet.crc:TRUE \
	-T fields -e uet.crc.status 2>/dev/null | sort | uniq -c)
good=$(awk '$2 == 1 { print $1 }' <<< "$crcs")
bad=$(awk '$2 == 0 { print $1 }' <<< "$crcs")
[ "${good:-0}" -gt 0 ] && [ -z "$bad" ] ||
	e2e_fail "the dissector's CRC32C check of F's capture: $crcs"
e2e_in T env FI_PROVIDER=uet FI_UET_JOB_ID=44 FI_UET_CRC=1 FI_UET_STATS=1 \
	timeout "$LIMIT_S" "$B/uet_write" -s -a "$IP_T" -S 330 -p 44999 \
	-n 65536 > "$E2E_TMP/crc2.s" 2>&1 &
srv=$!
sleep 1
out=$(e2e_in F "$B/tss_inject" --pcap "$E2E_TMP/crc.f" --dst "$IP_T" \
	--raw ueth0 --max 20 --mode clear) || e2e_fail "tss_inject clear: $out"
sent=$(sed -n 's/.*sent \([0-9]*\) frames.*/\1/p' <<< "$out")
sleep 0.5
e2e_in C env FI_PROVIDER=uet FI_UET_JOB_ID=44 FI_UET_CRC=1 timeout "$LIMIT_S" \
	"$B/uet_write" -c "$IP_T" -S 330 -p 44999 -n 65536 > "$E2E_TMP/crc2.c" 2>&1 ||
	e2e_fail "write after the flipped frames: $(cat "$E2E_TMP/crc2.c")"
wait "$srv" || e2e_fail "CRC server: $(cat "$E2E_TMP/crc2.s")"
crcbad=$(e2e_engine_stat "$E2E_TMP/crc2.s" rx_crc_bad)
e2e_log "CRC32C: $good frames checked by the dissector; $sent flipped frames sent, rx_crc_bad $crcbad"
[ "$crcbad" -ge "$sent" ] || e2e_fail "rx_crc_bad $crcbad of $sent"
e2e_ok "CRC32C trailer: writes verify, the dissector agrees, flipped frames refused"
