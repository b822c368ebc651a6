#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The tshark dissector (tools/uet.lua) on frames made with the codecs by
# gen_uet_pcap: the seed example field by field, the ACK_CC with its SACK and
# response, NACKs, control packets, every other header, our RDMO requests
# with their extension headers and scatter descriptors, malformed frames
# decoded with a warning and no Lua error, TSS-sealed packets (the clear
# header only) and CRC32C trailers, checked with the crc preference and plain
# data without it. Needs no root and no namespaces.
source "$(dirname "$0")/e2e_lib.sh"
trap 'rm -rf "$E2E_TMP"' EXIT

LUA="$(dirname "$0")/../../tools/uet.lua"
PCAP="$E2E_TMP/uet.pcap"
ERR="$E2E_TMP/tshark.err"

if ! command -v tshark >/dev/null; then
	[ "${CI:-}" = true ] && e2e_fail "tshark not installed (CI=true)"
	echo "e2e: $E2E_NAME: SKIP (tshark not installed; make deps)"
	exit 0
fi

"$B/gen_uet_pcap" "$PCAP" >/dev/null || e2e_fail "gen_uet_pcap failed"

# ts ARGS...: tshark on the capture with our dissector and the preferences
# in TS_PREFS; stderr kept aside.
TS_PREFS=()
ts() {
	tshark -n -r "$PCAP" -X lua_script:"$LUA" "${TS_PREFS[@]}" "$@" 2>>"$ERR"
}

# expect FRAME FIELD=VALUE...: `tshark -T fields` shows exactly these values
# in frame FRAME (all occurrences, comma-separated; empty when absent).
expect() {
	local frame=$1 kv got i
	local -a names=() want=() args=() vals=()
	shift
	for kv in "$@"; do
		names+=("${kv%%=*}")
		want+=("${kv#*=}")
		args+=(-e "${kv%%=*}")
	done
	got=$(ts -Y "frame.number == $frame" -T fields -E separator='~' \
		-E occurrence=a -E aggregator=, "${args[@]}") ||
		e2e_fail "frame $frame: tshark failed: $(tail -1 "$ERR")"
	IFS='~' read -r -a vals <<<"$got"
	for i in "${!names[@]}"; do
		[ "${vals[$i]:-}" = "${want[$i]}" ] ||
			e2e_fail "frame $frame: ${names[$i]} is '${vals[$i]:-}', want '${want[$i]}'"
	done
}

# expect_name FRAME FIELD NAME: the field's value is shown by NAME (the
# value string), e.g. "Opcode: WRITE (0x01)".
expect_name() {
	local frame=$1 field=$2 want=$3 got
	got=$(ts -Y "frame.number == $frame" -T pdml |
	      sed -n "s/.* name=\"${field//./\\.}\" showname=\"[^\"]*: \([^\" ]*\) (.*/\1/p" |
	      head -1) || e2e_fail "frame $frame: tshark failed: $(tail -1 "$ERR")"
	[ "$got" = "$want" ] ||
		e2e_fail "frame $frame: $field is named '$got', want '$want'"
}

# expect_frames FILTER FRAMES: exactly these frames match the display filter.
expect_frames() {
	local got
	got=$(ts -Y "$1" -T fields -e frame.number | tr '\n' ' ') ||
		e2e_fail "'$1': tshark failed: $(tail -1 "$ERR")"
	[ "${got% }" = "$2" ] || e2e_fail "'$1' matches frames '${got% }', want '$2'"
}

# ---- the seed example: 16384-byte UET_WRITE at Payload MTU 8192 ------------
SEED_COMMON=(uet.pds.type=2 uet.pds.next_hdr=3 uet.pds.flags.syn=1
	uet.pds.flags.ar=0 uet.pds.flags.retx=0 uet.pds.spdcid=0x0101
	uet.pds.dpdcid= uet.pds.use_rsv_pdc=0 uet.pds.start_psn=0x2a3b4c5d
	uet.pds.clear_psn_offset=0 uet.ses.opcode=0x01 uet.ses.version=0
	uet.ses.rel=1 uet.ses.hd=0 uet.ses.dc=0 uet.ses.ie=0
	uet.ses.message_id=1 uet.ses.ri_generation=0 uet.ses.job_id=101
	uet.ses.pid_on_fep=2 uet.ses.resource_index=0x000a
	uet.ses.buffer_offset=0 uet.ses.initiator=0x00000001
	uet.ses.memory_key=0x00000000000acce5
	uet.ses.memory_key.rkey=0x00000000000acce5
	uet.ses.request_length=16384 uet.ses.payload_length=8192 data.len=8192
	uet.ses.atomic= uet.ses.rdv= _ws.expert=)
expect 1 "${SEED_COMMON[@]}" uet.entropy=0xc001 uet.pds.psn=0x2a3b4c5d uet.pds.psn_offset=0 \
	uet.ses.som=1 uet.ses.eom=0 uet.ses.message_offset=0 \
	uet.ses.header_data=0x0000000000000000 \
	"_ws.col.Info=RUD_REQ psn=0x2a3b4c5d SYN | WRITE som msg=1 off=0 len=16384"
expect 2 "${SEED_COMMON[@]}" uet.pds.psn=0x2a3b4c5e uet.pds.psn_offset=1 \
	uet.ses.som=0 uet.ses.eom=1 uet.ses.message_offset=8192 \
	uet.ses.header_data= \
	"_ws.col.Info=RUD_REQ psn=0x2a3b4c5e SYN | WRITE eom msg=1 off=8192 len=16384"
for f in 1 2; do
	expect_name $f uet.pds.type RUD_REQ
	expect_name $f uet.pds.next_hdr REQUEST_STD
	expect_name $f uet.ses.opcode WRITE
done
expect_frames "uet.ses.opcode == WRITE && uet.ses.message_id == 1" "1 2"
e2e_ok "seed write, both packets"

# ---- ACK_CC with SACK carrying the write's RESPONSE ------------------------
expect 3 uet.entropy=0xc002 uet.pds.type=8 uet.pds.next_hdr=4 uet.pds.cack_psn=0x2a3b4c5e \
	uet.pds.ack_psn_offset=0 uet.pds.spdcid=0x0202 uet.pds.dpdcid=0x0101 \
	uet.pds.cc_type=0 uet.pds.mpr=8 uet.pds.sack_psn_offset=2 \
	uet.pds.sack_base_psn=0x2a3b4c60 uet.pds.sack_bitmap=0x8000000000000005 \
	uet.pds.service_time=4660 uet.pds.restore_cwnd=1 \
	uet.pds.rcv_cwnd_penalty=5 uet.pds.rcvd_bytes=16384 uet.pds.ooo_count=0 \
	uet.ses.rsp_opcode=0x01 uet.ses.return_code=0x01 uet.ses.message_id=1 \
	uet.ses.job_id=101 uet.ses.modified_length=16384 data.len=
expect_name 3 uet.pds.type ACK_CC
expect_name 3 uet.pds.cc_type NSCC
expect_name 3 uet.ses.rsp_opcode RESPONSE
expect_name 3 uet.ses.return_code RC_OK
e2e_ok "ACK_CC with SACK and RESPONSE"

# ---- the other ACKs and their responses ------------------------------------
expect 4 uet.pds.type=7 uet.pds.flags.req=1 uet.pds.ack_psn_offset=-1 \
	uet.pds.ack_psn=0x2a3b4c5d uet.ses.rsp_opcode=0x02 \
	uet.ses.read_request_message_id=7 uet.ses.payload_length=64 \
	uet.ses.modified_length=64 uet.ses.message_offset=0 data.len=64
expect 5 uet.pds.type=8 uet.pds.flags.p=1 uet.pds.probe_opaque=0xbeef \
	uet.pds.ack_psn_offset= uet.pds.cc_type=1 uet.pds.credit=65536 \
	uet.pds.ooo_count=3 uet.ses.payload_length=8 \
	uet.ses.original_request_psn=0x2a3b4c66 data.len=8
expect 6 uet.pds.type=9 uet.pds.flags.m=1 \
	uet.pds.ccx_state=5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c uet.ses.rsp_opcode=0x00
expect_name 4 uet.pds.flags.req CLEAR
expect_name 4 uet.pds.next_hdr RESPONSE_DATA
expect_name 5 uet.pds.next_hdr RESPONSE_DATA_SMALL
expect_name 5 uet.pds.cc_type CREDIT
expect_name 6 uet.pds.type ACK_CCX
expect_name 6 uet.ses.rsp_opcode DEFAULT_RESPONSE
e2e_ok "ACK, ACK_CC credit, ACK_CCX, RESPONSE_DATA, RESPONSE_DATA_SMALL"

# ---- NACKs and control packets ---------------------------------------------
expect 7 uet.pds.type=10 uet.pds.nack_code=0x04 uet.pds.nack_psn=0x2a3b4c5f \
	uet.pds.flags.retx=1 uet.pds.nack_payload=0x2a3b4c60 uet.ses=
expect 8 uet.pds.type=12 uet.pds.flags.nt=1 uet.pds.nack_code=0x1a \
	uet.pds.nack_pkt_id=0x00c0ffee uet.pds.nack_psn= uet.pds.nccx_type=2
expect 9 uet.pds.type=11 uet.pds.ctl_type=4 uet.pds.psn=0x2a3b4c61 \
	uet.pds.flags.ar=1 uet.pds.dpdcid=0x0202 uet.pds.ctl_payload=0x00000000
expect 10 uet.pds.ctl_type=6 uet.pds.probe_opaque=0x5a5a uet.pds.flags.syn=1 \
	uet.pds.use_rsv_pdc=1 uet.pds.psn_offset=7 uet.pds.dpdcid=
expect_name 7 uet.pds.nack_code NO_PDC_AVAIL
expect_name 8 uet.pds.nack_code RCVR_INFER_LOSS
expect_name 9 uet.pds.ctl_type CLOSE
expect_name 10 uet.pds.ctl_type PROBE
expect_frames 'uet.pds.nack_code == "NO_PDC_AVAIL"' "7"
e2e_ok "NACK, NACK_CCX, CONTROL CLOSE and PROBE"

# ---- requests: extensions, CC, small/medium, RUDI, UUD ---------------------
expect 11 uet.pds.type=3 uet.ses.opcode=0x09 uet.ses.hd=1 \
	uet.ses.header_data=0xc0ffee0012345678 uet.ses.match_bits=0x0000000000007a67 \
	uet.ses.memory_key=
expect 12 uet.pds.type=13 uet.pds.ccc_id=3 uet.pds.credit_target=65536 \
	uet.ses.opcode=0x04 uet.ses.amo_op=0x02 uet.ses.amo_dt=0x07 \
	uet.ses.semantic_ctl.cacheable=1 uet.ses.cas= data.len=8
expect 13 uet.pds.type=14 uet.ses.amo_op=0x0d uet.ses.payload_length=0 \
	uet.ses.compare=11111111111111111111111111111111 \
	uet.ses.swap=22222222222222222222222222222222 uet.ses.atomic= data.len=
expect 14 uet.pds.use_rsv_pdc=1 uet.pds.psn_offset=5 uet.ses.opcode=0x06 \
	uet.ses.eager_length=256 uet.ses.rdv_pid_on_fep=3 \
	uet.ses.rdv_resource_index=0x000b uet.ses.read_offset=4096 \
	uet.ses.read_match_bits=0x0000000123456789 uet.ses.payload_length=256 \
	data.len=256
expect 15 uet.pds.next_hdr=1 uet.ses.request_length=32 \
	uet.ses.buffer_offset=128 data.len=32
expect 16 uet.pds.next_hdr=2 uet.pds.flags.retx=1 uet.ses.request_length=100 \
	uet.ses.header_data=0x000000000000002a uet.ses.resource_index=0x000c \
	data.len=100
expect 17 uet.pds.type=4 uet.pds.pkt_id=0x00c0ffee uet.ses.opcode=0x05
expect 18 uet.pds.type=5 uet.pds.flags.m=1 uet.ses.return_code=0x05
expect 19 uet.pds.type=6 uet.ses.opcode=0x07 data.len=16
expect_name 12 uet.ses.amo_op SUM
expect_name 12 uet.ses.amo_dt UINT64
expect_name 13 uet.ses.amo_op CSWAP
expect_name 14 uet.ses.opcode RENDEZVOUS_SEND
expect_name 18 uet.ses.return_code RC_NO_MATCH
expect_name 19 uet.pds.type UUD_REQ
e2e_ok "extension headers, CC, small, medium, RUDI, UUD"

# ---- our RDMO requests: vendor opcodes, their extension headers ------------
expect 27 uet.ses.opcode=0x30 uet.ses.message_id=10 uet.ses.rdmo_append=1 \
	uet.ses.rdmo_flags=0x01 uet.ses.rdmo_flag_result=1 \
	uet.ses.rdmo_ptr_memory_key=0x00000000000acce6 \
	uet.ses.rdmo_ptr_offset=4664 uet.ses.rdmo_data_bias=1099511627840 \
	uet.ses.memory_key=0x00000000000acce5 uet.ses.request_length=64 \
	uet.ses.payload_length=64 data.len=64 uet.ses.rdmo_scatter= \
	uet.ses.rdmo_flush= uet.ses.rdmo_piece= _ws.expert= \
	"_ws.col.Info=RUD_REQ psn=0x2a3b4c7b | RDMO_APPEND som eom msg=10 off=0 len=64 RESULT ptr_key=0x00000000000acce6 ptr_off=4664 bias=1099511627840"
# first packet: the ext, 3 descriptors, then 64 bytes of data
expect 28 uet.ses.opcode=0x31 uet.ses.message_id=11 uet.ses.som=1 \
	uet.ses.eom=0 uet.ses.rdmo_scatter=1 uet.ses.rdmo_piece_count=3 \
	uet.ses.rdmo_piece=1,1,1 \
	uet.ses.rdmo_piece_memory_key=0x00000000000b0001,0x00000000000b0002,0x00000000000b0003 \
	uet.ses.rdmo_piece_offset=0,4096,123456 \
	uet.ses.rdmo_piece_length=16,24,100 uet.ses.request_length=200 \
	uet.ses.payload_length=124 data.len=64 uet.ses.rdmo_append= \
	uet.ses.rdmo_flags= _ws.expert= \
	"_ws.col.Info=RUD_REQ psn=0x2a3b4c7c | RDMO_SCATTER som msg=11 off=0 len=200 pieces=3"
# a later packet: the ext again, no descriptors, only data
expect 29 uet.ses.opcode=0x31 uet.ses.message_id=11 uet.ses.som=0 \
	uet.ses.eom=1 uet.ses.rdmo_scatter=1 uet.ses.rdmo_piece_count=3 \
	uet.ses.rdmo_piece= uet.ses.rdmo_piece_memory_key= \
	uet.ses.payload_length=76 uet.ses.message_offset=124 data.len=76 \
	_ws.expert=
expect 30 uet.ses.opcode=0x32 uet.ses.message_id=12 uet.ses.rdmo_flush=1 \
	uet.ses.rdmo_first_message_id=10 uet.ses.request_length=0 \
	uet.ses.payload_length=0 data.len= uet.ses.rdmo_append= \
	uet.ses.rdmo_piece_count= _ws.expert= \
	"_ws.col.Info=RUD_REQ psn=0x2a3b4c7e | RDMO_FLUSH som eom msg=12 off=0 len=0 first_msg=10"
expect_name 27 uet.ses.opcode RDMO_APPEND
expect_name 28 uet.ses.opcode RDMO_SCATTER
expect_name 29 uet.ses.opcode RDMO_SCATTER
expect_name 30 uet.ses.opcode RDMO_FLUSH
expect_frames "uet.ses.opcode == RDMO_SCATTER" "28 29 32"
expect_frames "uet.ses.rdmo_flag_result" "27"
expect_frames "uet.ses.rdmo_piece" "28"
e2e_ok "RDMO_APPEND, RDMO_SCATTER (first and later packet), RDMO_FLUSH"

# ---- malformed frames: a warning each, nothing else ------------------------
W="Expert Info (Warning/Malformed):"
expect 20 "_ws.expert=$W RUD_REQ header truncated: 7 of 12 bytes"
expect 21 "_ws.expert=$W reserved PDS type 15"
expect 22 "_ws.expert=$W SES version 1 not supported" data.len=60
expect 23 "_ws.expert=$W SES REQUEST_STD header truncated: 20 of 44 bytes"
expect 24 "_ws.expert=$W reserved next_hdr 9"
expect 25 "_ws.expert=$W reserved NACK code 0x0c"
expect 26 "_ws.expert=$W PDS prologue truncated: 1 of 2 bytes"
expect 31 "_ws.expert=$W RDMO append extension header truncated: 10 of 32 bytes" \
	uet.ses.opcode=0x30 uet.ses.rdmo_append= uet.ses.rdmo_ptr_memory_key= \
	data.len=10
expect 32 "_ws.expert=$W RDMO scatter descriptor table truncated: 40 of 60 bytes" \
	uet.ses.rdmo_piece_count=3 uet.ses.rdmo_piece= data.len=40
# UDP warns of frame 40's zero checksum over IPv6 (our framing writes 0).
expect_frames "_ws.expert && !udp.checksum.zero" \
	"20 21 22 23 24 25 26 31 32 35 36"
e2e_ok "malformed frames warned"

# ---- TSS: the clear header, the rest opaque, never handed on as data -------
TSS_NONE=(uet.pds= uet.ses= data.len= uet.crc=)
ICV=1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c
expect 33 "${TSS_NONE[@]}" uet.tss.type=1 uet.tss.sp=0 uet.tss.reserved=0 \
	uet.tss.an=0 uet.tss.sdi=7 uet.tss.ssi= uet.tss.epoch=3 uet.tss.tsc=41 \
	uet.tss.icv=$ICV _ws.expert= \
	"_ws.col.Info=TSS SDI 7 AN 0 epoch 3 TSC 41 [sealed]"
expect 34 "${TSS_NONE[@]}" uet.tss.sp=1 uet.tss.ssi=0x0a000001 uet.tss.an=1 \
	uet.tss.sdi=7 uet.tss.epoch=3 uet.tss.tsc=42 uet.tss.icv=$ICV \
	_ws.expert= \
	"_ws.col.Info=TSS SDI 7 SSI 0x0a000001 AN 1 epoch 3 TSC 42 [sealed]"
expect_name 33 uet.tss.type TSS
expect_frames "len(uet.tss.encrypted) == 60" "33 34 36"
e2e_ok "TSS without and with SSI"

expect 35 "${TSS_NONE[@]}" uet.tss.sdi=7 uet.tss.tsc=43 uet.tss.encrypted= \
	uet.tss.icv= "_ws.expert=$W TSS header and ICV truncated: 22 of 28 bytes" \
	"_ws.col.Info=TSS SDI 7 AN 0 epoch 3 TSC 43 [Malformed: TSS header and ICV truncated: 22 of 28 bytes]"
expect 36 "${TSS_NONE[@]}" uet.tss.reserved=1 uet.tss.tsc=44 \
	uet.tss.icv=$ICV "_ws.expert=$W TSS reserved bit set" \
	"_ws.col.Info=TSS SDI 7 AN 0 epoch 3 TSC 44 [sealed] [Malformed: TSS reserved bit set]"
e2e_ok "TSS cut short, TSS reserved bit: malformed warned"

# ---- CRC32C trailer: plain data without the preference ---------------------
CRC_WRITE="RUD_REQ psn=0x2a3b4c85 | WRITE som eom len=32"
expect 37 uet.pds.type=2 uet.ses.request_length=32 uet.crc= data.len=36 \
	_ws.expert= "_ws.col.Info=$CRC_WRITE"
expect 38 uet.pds.type=8 uet.ses.message_id=20 uet.crc= data.len=4 \
	_ws.expert=
expect 39 uet.crc= data.len=36 _ws.expert= "_ws.col.Info=$CRC_WRITE"
expect 40 ipv6.src=fd00:77::1 uet.crc= data.len=36 "_ws.col.Info=$CRC_WRITE"
e2e_ok "CRC32C frames without the preference: the trailer is data"

# ... and checked with it (the generator's CRC32C is its own, bit by bit).
TS_PREFS=(-o uet.crc:TRUE)
expect 37 uet.pds.type=2 uet.ses.request_length=32 uet.crc=0xc972d905 \
	uet.crc.calculated=0xc972d905 uet.crc.status=1 data.len=32 \
	_ws.expert= "_ws.col.Info=$CRC_WRITE"
expect 38 uet.pds.type=8 uet.ses.rsp_opcode=0x01 uet.ses.message_id=20 \
	uet.crc=0x985a3567 uet.crc.status=1 data.len= _ws.expert=
expect 39 uet.crc=0xc972d805 uet.crc.calculated=0xc972d905 uet.crc.status=0 \
	data.len=32 "_ws.col.Info=$CRC_WRITE [CRC32C wrong]" \
	"_ws.expert=Expert Info (Error/Checksum): Wrong CRC32C trailer, should be 0xc972d905"
# over IPv6 the span starts at byte 8 of the IP header
expect 40 ipv6.src=fd00:77::1 uet.crc=0x76943a16 uet.crc.status=1 \
	data.len=32 "_ws.col.Info=$CRC_WRITE"
expect_name 37 uet.crc.status Good
expect_name 39 uet.crc.status Bad
expect_frames "uet.crc.status == 1" "37 38 40"
# (frames 1-32 have no trailer: their last 4 bytes are wrong as one)
expect_frames "frame.number >= 33 && (uet.crc.bad || uet.malformed)" "35 36 39"
# TSS frames carry no trailer, whatever the preference.
expect 33 uet.crc= uet.tss.tsc=41 \
	"_ws.col.Info=TSS SDI 7 AN 0 epoch 3 TSC 41 [sealed]"
ts -V >"$E2E_TMP/crc.txt" || e2e_fail "tshark -V failed: $(tail -1 "$ERR")"
! grep -q "Lua Error" "$E2E_TMP/crc.txt" ||
	e2e_fail "Lua error: $(grep -m1 "Lua Error" "$E2E_TMP/crc.txt")"
TS_PREFS=()
e2e_ok "CRC32C trailers with -o uet.crc:TRUE: IPv4 and IPv6 correct, one wrong"

# ---- no Lua error anywhere, nothing on stderr ------------------------------
# _ws.malformed alone also matches our own PI_MALFORMED warnings.
expect_frames "_ws.lua.error || _ws.malformed.expert ||
	_ws.malformed.dissector_bug" ""
ts -V >"$E2E_TMP/all.txt" || e2e_fail "tshark -V failed: $(tail -1 "$ERR")"
! grep -q "Lua Error" "$E2E_TMP/all.txt" ||
	e2e_fail "Lua error: $(grep -m1 "Lua Error" "$E2E_TMP/all.txt")"
[ "$(grep -c "^Ultra Ethernet Transport" "$E2E_TMP/all.txt")" = 40 ] ||
	e2e_fail "not every frame decoded as UET"
if grep -v '^Running as user ".*This could be dangerous\.$' "$ERR" | grep -q .; then
	e2e_fail "tshark stderr: $(grep -v '^Running as user' "$ERR" | head -3)"
fi
e2e_ok "no Lua error"
