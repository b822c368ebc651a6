-- SPDX-License-Identifier: BSD-2-Clause
-- Wireshark/tshark (4.0+) dissector for Ultra Ethernet Transport on UDP port
-- 4793: every PDS and SES header the project's codecs know, field by field
-- (pdc/pdc_hdr.h, ses/ses_hdr.h; wire facts: uet-wire-format.md sections 1-3),
-- and our vendor RDMO opcodes with their extension headers (ses/ses_hdr.h).
-- Sealed packets (TSS, tss/uet_tss.h) show their clear header; the CRC32C
-- trailer is checked when the "crc" preference says frames carry one.
--
-- Layouts follow the codecs, not the other public dissectors: where sources
-- disagree the codecs follow Wireshark's C dissector (ref tag WS), so do we.
-- Anything a codec would reject (too short, reserved type or code, SES
-- version not 0) gets an expert warning and the rest is shown as data; the
-- dissector never raises a Lua error on packet contents.
--
-- This file holds the protocol, the PDS header and the dissector; the SES
-- headers are decoded by uet_ses.lua, which it loads from its own folder:
-- install both files side by side.

-- Loaded twice (the installed plugin, then `-X lua_script:tools/uet.lua`),
-- the second copy steps aside: Wireshark allows one protocol per name, and
-- every Lua script shares one global table. The first copy decodes.
if rawget(_G, "uet_dissector_file") then
	return
end
local uet_file = debug and debug.getinfo and debug.getinfo(1, "S").source or
	"uet.lua"

-- The SES half: next to this file (the plugin folder, or tools/ with
-- `-X lua_script:tools/uet.lua`). Compiled before anything is registered,
-- so that a copy without it fails whole and leaves the name to another.
local ses_file = (uet_file:match("^@(.*[/\\])") or "") .. "uet_ses.lua"
local ok, ses_chunk, err = pcall(loadfile, ses_file)
if not ok or not ses_chunk then
	error("uet.lua: cannot load " .. ses_file .. ": " ..
	      tostring(ok and err or ses_chunk))
end
rawset(_G, "uet_dissector_file", uet_file)

local uet = Proto("uet", "Ultra Ethernet Transport")

local band, bxor, rshift = bit32.band, bit32.bxor, bit32.rshift

-- ---- value names (the X-macro lists of include/uet_wire.h) ----------------

local pds_type_names = {
	[1] = "TSS", [2] = "RUD_REQ", [3] = "ROD_REQ", [4] = "RUDI_REQ",
	[5] = "RUDI_RESP", [6] = "UUD_REQ", [7] = "ACK", [8] = "ACK_CC",
	[9] = "ACK_CCX", [10] = "NACK", [11] = "CONTROL", [12] = "NACK_CCX",
	[13] = "RUD_CC_REQ", [14] = "ROD_CC_REQ",
}

local next_hdr_names = {
	[0] = "NONE", [1] = "REQUEST_SMALL", [2] = "REQUEST_MEDIUM",
	[3] = "REQUEST_STD", [4] = "RESPONSE", [5] = "RESPONSE_DATA",
	[6] = "RESPONSE_DATA_SMALL",
}

local nack_code_names = {
	[0x01] = "TRIMMED", [0x02] = "TRIMMED_LASTHOP", [0x03] = "TRIMMED_ACK",
	[0x04] = "NO_PDC_AVAIL", [0x05] = "NO_CCC_AVAIL", [0x06] = "NO_BITMAP",
	[0x07] = "NO_PKT_BUFFER", [0x08] = "NO_GTD_DEL_AVAIL",
	[0x09] = "NO_SES_MSG_AVAIL", [0x0A] = "NO_RESOURCE",
	[0x0B] = "PSN_OOR_WINDOW", [0x0D] = "ROD_OOO", [0x0E] = "INV_DPDCID",
	[0x0F] = "PDC_HDR_MISMATCH", [0x10] = "CLOSING",
	[0x11] = "CLOSING_IN_ERR", [0x12] = "PKT_NOT_RCVD",
	[0x13] = "GTD_RESP_UNAVAIL", [0x14] = "ACK_WITH_DATA",
	[0x15] = "INVALID_SYN", [0x16] = "PDC_MODE_MISMATCH",
	[0x17] = "NEW_START_PSN", [0x18] = "RCVD_SES_PROCG",
	[0x19] = "UNEXP_EVENT", [0x1A] = "RCVR_INFER_LOSS",
	[0xFD] = "EXP_NORMAL", [0xFE] = "EXP_ERROR", [0xFF] = "EXP_FATAL",
}

local ctl_type_names = {
	[0] = "NOOP", [1] = "ACK_REQ", [2] = "CLEAR", [3] = "CLEAR_REQ",
	[4] = "CLOSE", [5] = "CLOSE_REQ", [6] = "PROBE", [7] = "CREDIT",
	[8] = "CREDIT_REQ", [9] = "NEGOTIATION",
}

local cc_type_names = { [0] = "NSCC", [1] = "CREDIT" }

-- ref 2.5: the 2-bit REQ field of ACK flags.
local ack_req_names = {
	[0] = "none", [1] = "CLEAR", [2] = "CLOSE", [3] = "reserved",
}

-- ---- constants (include/uet_wire.h) ---------------------------------------

local T = {
	TSS = 1, RUD_REQ = 2, ROD_REQ = 3, RUDI_REQ = 4, RUDI_RESP = 5,
	UUD_REQ = 6, ACK = 7, ACK_CC = 8, ACK_CCX = 9, NACK = 10,
	CONTROL = 11, NACK_CCX = 12, RUD_CC_REQ = 13, ROD_CC_REQ = 14,
}

-- ref 2.2, 2.4: header length per PDS type (ACK_CCX, NACK_CCX per WS).
local pds_len = {
	[T.RUD_REQ] = 12, [T.ROD_REQ] = 12, [T.RUD_CC_REQ] = 16,
	[T.ROD_CC_REQ] = 16, [T.RUDI_REQ] = 8, [T.RUDI_RESP] = 8,
	[T.UUD_REQ] = 4, [T.ACK] = 12, [T.ACK_CC] = 32, [T.ACK_CCX] = 40,
	[T.NACK] = 16, [T.NACK_CCX] = 32, [T.CONTROL] = 16,
}

-- ref 2.3: next_hdr values.
local NH = { NONE = 0, SMALL = 1, MEDIUM = 2, STD = 3, RSP = 4,
	     RSP_DATA = 5, RSP_DATA_SMALL = 6 }

-- ---- fields ---------------------------------------------------------------

local F = {}
local function field(name, ctor, label, ...)
	F[name] = ctor("uet." .. name, label, ...)
end

local H, D = base.HEX, base.DEC

-- The entropy value (ref 1.2: the UDP source port), which a fabric's
-- switches hash to pick the frame's path: a sprayed flow's frames differ.
field("entropy", ProtoField.uint16, "Entropy (UDP source port)", H)

-- PDS
field("pds", ProtoField.none, "PDS header")
field("pds.type", ProtoField.uint16, "Type", D, pds_type_names, 0xF800)
field("pds.next_hdr", ProtoField.uint16, "Next header", D, next_hdr_names,
      0x0780)
field("pds.ctl_type", ProtoField.uint16, "Control type", D, ctl_type_names,
      0x0780)
field("pds.flags", ProtoField.uint16, "Flags", H, nil, 0x007F)
field("pds.flags.m", ProtoField.bool, "M (ECN mark seen)", 16, nil, 0x0020)
field("pds.flags.retx", ProtoField.bool, "RETX", 16, nil, 0x0010)
field("pds.flags.ar", ProtoField.bool, "AR (ACK request)", 16, nil, 0x0008)
field("pds.flags.p", ProtoField.bool, "P (acks a probe)", 16, nil, 0x0008)
field("pds.flags.nt", ProtoField.bool, "NT (RUDI)", 16, nil, 0x0008)
field("pds.flags.syn", ProtoField.bool, "SYN", 16, nil, 0x0004)
field("pds.flags.req", ProtoField.uint16, "REQ", D, ack_req_names, 0x0006)
field("pds.clear_psn_offset", ProtoField.int16, "Clear PSN offset", D)
field("pds.clear_psn", ProtoField.uint32, "Clear PSN", H)
field("pds.psn", ProtoField.uint32, "PSN", H)
field("pds.spdcid", ProtoField.uint16, "Source PDC id", H)
field("pds.dpdcid", ProtoField.uint16, "Destination PDC id", H)
field("pds.use_rsv_pdc", ProtoField.bool, "Use reserved PDC", 16, nil, 0x8000)
field("pds.psn_offset", ProtoField.uint16, "PSN offset", D, nil, 0x0FFF)
field("pds.start_psn", ProtoField.uint32, "Start PSN", H)
field("pds.ccc_id", ProtoField.uint8, "CCC id", D)
field("pds.credit_target", ProtoField.uint24, "Credit target", D)
field("pds.pkt_id", ProtoField.uint32, "RUDI packet id", H)
field("pds.ack_psn_offset", ProtoField.int16, "ACK PSN offset", D)
field("pds.ack_psn", ProtoField.uint32, "ACK PSN", H)
field("pds.probe_opaque", ProtoField.uint16, "Probe opaque", H)
field("pds.cack_psn", ProtoField.uint32, "Cumulative ACK PSN", H)
field("pds.cc_type", ProtoField.uint8, "CC type", D, cc_type_names, 0xF0)
field("pds.cc_flags", ProtoField.uint8, "CC flags", H, nil, 0x0F)
field("pds.mpr", ProtoField.uint8, "Maximum PSN range", D)
field("pds.sack_psn_offset", ProtoField.int16, "SACK PSN offset", D)
field("pds.sack_base_psn", ProtoField.uint32, "SACK base PSN", H)
field("pds.sack_bitmap", ProtoField.uint64, "SACK bitmap", H)
field("pds.cc_state", ProtoField.bytes, "CC state")
field("pds.service_time", ProtoField.uint16, "Service time", D)
field("pds.restore_cwnd", ProtoField.bool, "Restore cwnd", 8, nil, 0x80)
field("pds.rcv_cwnd_penalty", ProtoField.uint8, "Receiver cwnd penalty", D,
      nil, 0x7F)
field("pds.rcvd_bytes", ProtoField.uint24, "Received bytes", D)
field("pds.credit", ProtoField.uint24, "Credit", D)
field("pds.ooo_count", ProtoField.uint16, "Out-of-order count", D)
field("pds.ccx_state", ProtoField.bytes, "Extended CC state")
field("pds.nack_code", ProtoField.uint8, "NACK code", H, nack_code_names)
field("pds.vendor_code", ProtoField.uint8, "Vendor code", H)
field("pds.nack_psn", ProtoField.uint32, "NACK PSN", H)
field("pds.nack_pkt_id", ProtoField.uint32, "NACK RUDI packet id", H)
field("pds.nack_payload", ProtoField.uint32, "NACK payload", H)
field("pds.nccx_type", ProtoField.uint8, "NCCX type", D, nil, 0xF0)
field("pds.nccx_state", ProtoField.bytes, "NCCX state")
field("pds.ctl_payload", ProtoField.uint32, "Control payload", H)
field("pds.reserved", ProtoField.bytes, "Reserved")

-- TSS (tss/uet_tss.h): the clear header of a sealed packet.
field("tss", ProtoField.none, "TSS header")
field("tss.type", ProtoField.uint32, "Type", D, pds_type_names, 0xF8000000)
field("tss.sp", ProtoField.bool, "SP (SSI present)", 32, nil, 0x04000000)
field("tss.reserved", ProtoField.uint32, "Reserved", D, nil, 0x02000000)
field("tss.an", ProtoField.uint32, "AN (association number)", D, nil,
      0x01000000)
field("tss.sdi", ProtoField.uint32, "SDI (secure domain index)", D, nil,
      0x00FFFFFF)
field("tss.ssi", ProtoField.uint32, "SSI (secure source index)", H)
field("tss.epoch", ProtoField.uint16, "Epoch", D)
field("tss.tsc", ProtoField.uint64, "TSC (transmit security counter)", D)
field("tss.encrypted", ProtoField.bytes, "Encrypted")
field("tss.icv", ProtoField.bytes, "ICV")

-- The CRC32C trailer (ref 1.5), when the "crc" preference is on.
local crc_status_names = { [0] = "Bad", [1] = "Good" }
field("crc", ProtoField.uint32, "CRC32C trailer", H)
field("crc.calculated", ProtoField.uint32, "Calculated CRC32C", H)
field("crc.status", ProtoField.uint8, "CRC32C status", D, crc_status_names)

local ef_malformed = ProtoExpert.new("uet.malformed", "Malformed UET header",
				     expert.group.MALFORMED,
				     expert.severity.WARN)
local ef_undecoded = ProtoExpert.new("uet.undecoded", "UET header not decoded",
				     expert.group.UNDECODED,
				     expert.severity.WARN)
local ef_crc_bad = ProtoExpert.new("uet.crc.bad", "Wrong CRC32C trailer",
				   expert.group.CHECKSUM, expert.severity.ERROR)
uet.experts = { ef_malformed, ef_undecoded, ef_crc_bad }

uet.prefs.crc = Pref.bool("Frames end with a CRC32C trailer", false,
			  "Off by default, as in the provider (FI_UET_CRC): "
			  .. "the last 4 bytes of a frame that is not TSS "
			  .. "are a CRC32C from the IP source address on")

-- The span the trailer covers starts at the IP source address; the UDP
-- payload's tvb cannot reach back there, the fields' source tvb can.
local ip_src_f, ipv6_src_f = Field.new("ip.src"), Field.new("ipv6.src")

local data_dissector = Dissector.get("data")

-- ---- helpers --------------------------------------------------------------

-- One packet's decoding state: the tvb, the Info parts and the first problem.
local function new_ctx(tvb)
	return { tvb = tvb, info = {}, bad = nil }
end

local function info(ctx, s)
	ctx.info[#ctx.info + 1] = s
end

-- Marks |item| malformed; the first message also goes into the Info column.
local function malformed(ctx, item, msg)
	item:add_proto_expert_info(ef_malformed, msg)
	ctx.bad = ctx.bad or "Malformed: " .. msg
end

local function hex32(v)
	return string.format("0x%08x", v)
end

local function name_or(tbl, v, what)
	return tbl[v] or string.format("%s 0x%02x", what, v)
end

-- Wrap-around PSN arithmetic (ref 2.9: PSNs are 32-bit).
local function psn_add(psn, off)
	return (psn + off) % 4294967296
end

local function generated(tree, f, range, v)
	local it = tree:add(f, range, v)
	it:set_generated()
	return it
end

-- Too short for |need| bytes from |off|: warn, show what is there as data.
-- A packet cut by the capture's snap length is not malformed, only undecoded.
local function check_len(ctx, tree, off, need, what)
	local have = ctx.tvb:reported_length_remaining(off)
	local captured = ctx.tvb:len() - off
	if have >= need and captured >= need then
		return true
	elseif have >= need then
		local msg = string.format("%s cut by the capture: %d of %d",
					  what, math.max(captured, 0), need)
		msg = msg .. " bytes"
		tree:add_proto_expert_info(ef_undecoded, msg)
		ctx.bad = ctx.bad or msg
		return false
	end
	malformed(ctx, tree, string.format("%s truncated: %d of %d bytes",
					   what, math.max(have, 0), need))
	return false
end

-- ---- SES (uet_ses.lua) ----------------------------------------------------

-- Its fields join F; it returns its decoder.
local dissect_ses = ses_chunk({
	F = F, field = field, H = H, D = D, NH = NH,
	next_hdr_names = next_hdr_names, info = info, malformed = malformed,
	name_or = name_or, generated = generated, check_len = check_len,
})

do
	local list = {}
	for _, f in pairs(F) do
		list[#list + 1] = f
	end
	uet.fields = list
end

-- ---- PDS ------------------------------------------------------------------

-- ref 2.5: which flag bits each type defines, in display order.
local flag_sets = {
	req = { { "pds.flags.retx", 0x10, "RETX" },
		{ "pds.flags.ar", 0x08, "AR" },
		{ "pds.flags.syn", 0x04, "SYN" } },
	ack = { { "pds.flags.m", 0x20, "M" },
		{ "pds.flags.retx", 0x10, "RETX" },
		{ "pds.flags.p", 0x08, "P" },
		{ "pds.flags.req", 0x06, nil } },
	nack = { { "pds.flags.m", 0x20, "M" },
		 { "pds.flags.retx", 0x10, "RETX" },
		 { "pds.flags.nt", 0x08, "NT" } },
	rudi_req = { { "pds.flags.retx", 0x10, "RETX" } },
	rudi_resp = { { "pds.flags.m", 0x20, "M" },
		      { "pds.flags.retx", 0x10, "RETX" } },
	uud = {},
}
local flag_set_of = {
	[T.RUD_REQ] = "req", [T.ROD_REQ] = "req", [T.RUD_CC_REQ] = "req",
	[T.ROD_CC_REQ] = "req", [T.CONTROL] = "req", [T.ACK] = "ack",
	[T.ACK_CC] = "ack", [T.ACK_CCX] = "ack", [T.NACK] = "nack",
	[T.NACK_CCX] = "nack", [T.RUDI_REQ] = "rudi_req",
	[T.RUDI_RESP] = "rudi_resp", [T.UUD_REQ] = "uud",
}

-- Adds the flag bits of |ptype| under |fitem|; returns their Info names.
local function add_flags(ctx, fitem, ptype, flags)
	local names = {}
	for _, fl in ipairs(flag_sets[flag_set_of[ptype]] or {}) do
		fitem:add(F[fl[1]], ctx.tvb(0, 2))
		local v = band(flags, fl[2])
		if fl[3] and v ~= 0 then
			names[#names + 1] = fl[3]
		elseif not fl[3] and v ~= 0 then
			names[#names + 1] = "REQ=" ..
					    ack_req_names[rshift(v, 1)]
		end
	end
	return table.concat(names, " ")
end

-- The dpdcid slot at |off|: a PDC id, or with SYN the overlay (WS: bit 15).
local function add_dpdcid_slot(ctx, t, off, syn, psn)
	local r = ctx.tvb(off, 2)
	if not syn then
		t:add(F["pds.dpdcid"], r)
		return
	end
	t:add(F["pds.use_rsv_pdc"], r)
	t:add(F["pds.psn_offset"], r)
	generated(t, F["pds.start_psn"], r,
		  psn_add(psn, -band(r:uint(), 0x0FFF)))
end

local function pds_req(ctx, t, ptype, flags)
	local tvb = ctx.tvb
	local psn = tvb(4, 4):uint()
	local clear = tvb(2, 2):int()
	t:add(F["pds.clear_psn_offset"], tvb(2, 2))
	generated(t, F["pds.clear_psn"], tvb(2, 2), psn_add(psn, clear))
	t:add(F["pds.psn"], tvb(4, 4))
	t:add(F["pds.spdcid"], tvb(8, 2))
	add_dpdcid_slot(ctx, t, 10, band(flags, 0x04) ~= 0, psn)
	if pds_len[ptype] == 16 then
		t:add(F["pds.ccc_id"], tvb(12, 1))
		t:add(F["pds.credit_target"], tvb(13, 3))
	end
	return "psn=" .. hex32(psn)
end

local function pds_rudi(ctx, t)
	t:add(F["pds.reserved"], ctx.tvb(2, 2))
	t:add(F["pds.pkt_id"], ctx.tvb(4, 4))
	return "pkt_id=" .. hex32(ctx.tvb(4, 4):uint())
end

-- ref 2.8: the 64-bit CC state of ACK_CC, by cc_type.
local function pds_cc_state(ctx, t, cc_type)
	local tvb = ctx.tvb
	local st = t:add(F["pds.cc_state"], tvb(24, 8))
	if cc_type == 0 then
		st:add(F["pds.service_time"], tvb(24, 2))
		st:add(F["pds.restore_cwnd"], tvb(26, 1))
		st:add(F["pds.rcv_cwnd_penalty"], tvb(26, 1))
		st:add(F["pds.rcvd_bytes"], tvb(27, 3))
	elseif cc_type == 1 then
		st:add(F["pds.credit"], tvb(24, 3))
		st:add(F["pds.reserved"], tvb(27, 3))
	else
		malformed(ctx, st, string.format("ACK_CC: unknown cc_type %d",
						 cc_type))
		return
	end
	st:add(F["pds.ooo_count"], tvb(30, 2))
end

local function pds_ack(ctx, t, ptype, flags)
	local tvb = ctx.tvb
	local cack = tvb(4, 4):uint()
	local s = "cack_psn=" .. hex32(cack)
	if band(flags, 0x08) ~= 0 then
		t:add(F["pds.probe_opaque"], tvb(2, 2))
		s = s .. string.format(" probe=0x%04x", tvb(2, 2):uint())
	else
		local off = tvb(2, 2):int()
		t:add(F["pds.ack_psn_offset"], tvb(2, 2))
		generated(t, F["pds.ack_psn"], tvb(2, 2), psn_add(cack, off))
		if off ~= 0 then
			s = s .. " ack_psn=" .. hex32(psn_add(cack, off))
		end
	end
	t:add(F["pds.cack_psn"], tvb(4, 4))
	t:add(F["pds.spdcid"], tvb(8, 2))
	t:add(F["pds.dpdcid"], tvb(10, 2))
	if ptype == T.ACK then
		return s
	end
	local cc_type = rshift(tvb(12, 1):uint(), 4)
	local sack_off = tvb(14, 2):int()
	t:add(F["pds.cc_type"], tvb(12, 1))
	t:add(F["pds.cc_flags"], tvb(12, 1))
	t:add(F["pds.mpr"], tvb(13, 1))
	t:add(F["pds.sack_psn_offset"], tvb(14, 2))
	generated(t, F["pds.sack_base_psn"], tvb(14, 2),
		  psn_add(cack, sack_off))
	t:add(F["pds.sack_bitmap"], tvb(16, 8))
	s = s .. string.format(" sack_base=%s sack=0x%s",
			       hex32(psn_add(cack, sack_off)),
			       tvb(16, 8):uint64():tohex())
	if ptype == T.ACK_CC then
		pds_cc_state(ctx, t, cc_type)
	else
		t:add(F["pds.ccx_state"], tvb(24, 16))
	end
	return s
end

local function pds_nack(ctx, t, ptype, flags)
	local tvb = ctx.tvb
	local code = tvb(2, 1):uint()
	local it = t:add(F["pds.nack_code"], tvb(2, 1))
	if not nack_code_names[code] then
		malformed(ctx, it, string.format("reserved NACK code 0x%02x",
						 code))
	end
	t:add(F["pds.vendor_code"], tvb(3, 1))
	local nt = band(flags, 0x08) ~= 0
	t:add(F[nt and "pds.nack_pkt_id" or "pds.nack_psn"], tvb(4, 4))
	t:add(F["pds.spdcid"], tvb(8, 2))
	t:add(F["pds.dpdcid"], tvb(10, 2))
	t:add(F["pds.nack_payload"], tvb(12, 4))
	if ptype == T.NACK_CCX then
		t:add(F["pds.nccx_type"], tvb(16, 1))
		t:add(F["pds.nccx_state"], tvb(16, 16))
	end
	return string.format("%s %s=%s", name_or(nack_code_names, code, "code"),
			     nt and "pkt_id" or "psn", hex32(tvb(4, 4):uint()))
end

local function pds_ctl(ctx, t, ctl_type, flags)
	local tvb = ctx.tvb
	local psn = tvb(4, 4):uint()
	if ctl_type == 6 then
		t:add(F["pds.probe_opaque"], tvb(2, 2))
	else
		t:add(F["pds.reserved"], tvb(2, 2))
	end
	t:add(F["pds.psn"], tvb(4, 4))
	t:add(F["pds.spdcid"], tvb(8, 2))
	add_dpdcid_slot(ctx, t, 10, band(flags, 0x04) ~= 0, psn)
	t:add(F["pds.ctl_payload"], tvb(12, 4))
	return string.format("%s psn=%s",
			     name_or(ctl_type_names, ctl_type, "ctl"),
			     hex32(psn))
end

-- Decodes the PDS header; returns its length and next_hdr, or nil when the
-- rest of the packet cannot be interpreted.
local function dissect_pds(ctx, tree)
	local tvb = ctx.tvb
	if not check_len(ctx, tree, 0, 2, "PDS prologue") then
		return nil
	end
	local pro = tvb(0, 2):uint()
	local ptype, nh, flags = rshift(pro, 11), band(rshift(pro, 7), 0x0F),
				 band(pro, 0x7F)
	local hlen = pds_len[ptype]
	local t = tree:add(F["pds"], tvb(0, math.min(hlen or 2, tvb:len())))
	local ti = t:add(F["pds.type"], tvb(0, 2))
	info(ctx, name_or(pds_type_names, ptype, "type"))
	if not hlen then
		malformed(ctx, ti, string.format("reserved PDS type %d", ptype))
		return nil
	end
	local ni = t:add(F[ptype == T.CONTROL and "pds.ctl_type" or
			   "pds.next_hdr"], tvb(0, 2))
	local fnames = add_flags(ctx, t:add(F["pds.flags"], tvb(0, 2)), ptype,
				 flags)
	if ptype == T.CONTROL and not ctl_type_names[nh] then
		malformed(ctx, ni, string.format("reserved control type %d",
						 nh))
		return nil
	elseif ptype ~= T.CONTROL and not next_hdr_names[nh] then
		malformed(ctx, ni, string.format("reserved next_hdr %d", nh))
		return nil
	end
	local what = pds_type_names[ptype] .. " header"
	if not check_len(ctx, t, 0, hlen, what) then
		return nil
	end
	local s
	if flag_set_of[ptype] == "req" and ptype ~= T.CONTROL then
		s = pds_req(ctx, t, ptype, flags)
	elseif ptype == T.RUDI_REQ or ptype == T.RUDI_RESP then
		s = pds_rudi(ctx, t)
	elseif ptype == T.UUD_REQ then
		t:add(F["pds.reserved"], tvb(2, 2))
	elseif flag_set_of[ptype] == "ack" then
		s = pds_ack(ctx, t, ptype, flags)
	elseif flag_set_of[ptype] == "nack" then
		s = pds_nack(ctx, t, ptype, flags)
	else
		s = pds_ctl(ctx, t, nh, flags)
		nh = NH.NONE
	end
	if s then
		info(ctx, s)
	end
	if fnames ~= "" then
		info(ctx, fnames)
	end
	return hlen, nh
end

-- ---- TSS (tss/uet_tss.h) -------------------------------------------------

-- Whether the payload starts with a TSS header: the PDS type slot holds 1.
local function is_tss(tvb)
	return tvb:len() >= 1 and rshift(tvb(0, 1):uint(), 3) == T.TSS
end

-- The clear TSS header, then the ciphertext and ICV as opaque bytes: without
-- the SD key nothing after the header means anything.
local function dissect_tss(ctx, tree)
	local tvb = ctx.tvb
	info(ctx, "TSS")
	if not check_len(ctx, tree, 0, 4, "TSS header") then
		return
	end
	local sp = band(tvb(0, 1):uint(), 0x04) ~= 0
	local hlen = sp and 16 or 12
	local t = tree:add(F["tss"], tvb(0, math.min(hlen, tvb:len())))
	for _, f in ipairs({ "tss.type", "tss.sp", "tss.reserved", "tss.an",
			     "tss.sdi" }) do
		t:add(F[f], tvb(0, 4))
	end
	local w = tvb(0, 4):uint()
	info(ctx, string.format("SDI %d", band(w, 0xFFFFFF)))
	if band(w, 0x02000000) ~= 0 then
		malformed(ctx, t, "TSS reserved bit set")
	end
	if not check_len(ctx, t, 0, hlen, "TSS header") then
		return
	end
	if sp then
		t:add(F["tss.ssi"], tvb(4, 4))
		info(ctx, "SSI " .. hex32(tvb(4, 4):uint()))
	end
	t:add(F["tss.epoch"], tvb(hlen - 8, 2))
	t:add(F["tss.tsc"], tvb(hlen - 6, 6))
	info(ctx, string.format("AN %d epoch %d TSC %s",
				band(rshift(w, 24), 1), tvb(hlen - 8, 2):uint(),
				tvb(hlen - 6, 6):uint64():tonumber()))
	-- Sealed: at least the ICV after the header (ref 1.6).
	if not check_len(ctx, tree, 0, hlen + 16, "TSS header and ICV") then
		return
	end
	local n = tvb:len() - hlen - 16
	tree:add(F["tss.encrypted"], tvb(hlen, n)):set_text(
		string.format("Encrypted (%d bytes)", n))
	tree:add(F["tss.icv"], tvb(tvb:len() - 16, 16))
	info(ctx, "[sealed]")
end

-- ---- the CRC32C trailer ---------------------------------------------------

-- CRC32C (Castagnoli): reflected 0x82F63B78, init and final xor all ones.
local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		c = band(c, 1) ~= 0 and bxor(rshift(c, 1), 0x82F63B78) or
		    rshift(c, 1)
	end
	crc_table[i] = c
end

local function crc32c(s)
	local crc = 0xFFFFFFFF
	for i = 1, #s do
		crc = bxor(crc_table[band(bxor(crc, s:byte(i)), 0xFF)],
			   rshift(crc, 8))
	end
	return bxor(crc, 0xFFFFFFFF)
end
-- The check value: a wrong table must not pass for a corrupted network.
assert(crc32c("123456789") == 0xE3069283, "uet.lua: CRC32C is wrong")

-- The innermost IP source address before the UDP payload |tvb| (IPv4 or
-- IPv6): its FieldInfo, or nil (no IP under us).
local function ip_src_of(tvb)
	local best
	for _, f in ipairs({ ip_src_f, ipv6_src_f }) do
		for _, fi in ipairs({ f() }) do
			if fi.offset < tvb:offset() and
			   (not best or fi.offset > best.offset) then
				best = fi
			end
		end
	end
	return best
end

-- With the "crc" preference: cuts the trailer off ctx.tvb, so that PDS and
-- SES stop before it; returns its offset, or nil when there is none.
local function crc_split(ctx, tree)
	local tvb = ctx.tvb
	local n = tvb:reported_length_remaining(0) - 4
	if n < 0 then
		malformed(ctx, tree, string.format(
			  "CRC32C trailer truncated: %d of 4 bytes", n + 4))
		return nil
	end
	ctx.tvb = tvb(0, math.min(n, tvb:len())):tvb()
	return n
end

-- The trailer at |n| in |tvb|, checked over the IP source address to the
-- end of the payload before it.
local function dissect_crc(ctx, tree, tvb, n)
	if tvb:len() < n + 4 then
		tree:add_proto_expert_info(ef_undecoded,
					   "CRC32C trailer cut by the capture")
		return
	end
	local it = tree:add_le(F["crc"], tvb(n, 4))
	local fi = ip_src_of(tvb)
	if not fi then
		it:append_text(" [unverified: no IP header]")
		return
	end
	local from = fi.offset
	local got = crc32c(fi.source:range(from, tvb:offset() + n - from):raw())
	local ok = got == tvb(n, 4):le_uint()
	generated(it, F["crc.calculated"], tvb(n, 4), got)
	generated(it, F["crc.status"], tvb(n, 4), ok and 1 or 0)
	if ok then
		it:append_text(" [correct]")
		return
	end
	it:append_text(" [incorrect, should be " .. hex32(got) .. "]")
	it:add_proto_expert_info(ef_crc_bad, "Wrong CRC32C trailer, should be "
				 .. hex32(got))
	ctx.crc_bad = true
end

-- ---- the dissector --------------------------------------------------------

-- The Info text: PDS parts | SES parts (from |npds| on) [the first problem].
local function info_text(ctx, npds)
	local s = table.concat(ctx.info, " ", 1, npds)
	if #ctx.info > npds then
		s = s .. " | " .. table.concat(ctx.info, " ", npds + 1)
	end
	if ctx.bad then
		s = (s == "" and "UET" or s) .. " [" .. ctx.bad .. "]"
	end
	if ctx.crc_bad then
		s = s .. " [CRC32C wrong]"
	end
	return s
end

-- A clear packet: PDS, SES, the trailer; returns the Info parts of PDS and
-- where the data starts in ctx.tvb.
local function dissect_clear(ctx, root)
	local tvb, off, crc_at = ctx.tvb, 0, nil
	if uet.prefs.crc then
		crc_at = crc_split(ctx, root)
		if not crc_at then
			return #ctx.info, 0
		end
	end
	local hlen, nh = dissect_pds(ctx, root)
	local npds = #ctx.info
	if hlen then
		off = dissect_ses(ctx, root, hlen, nh) or hlen
	end
	if crc_at then
		dissect_crc(ctx, root, tvb, crc_at)
	end
	return npds, off
end

function uet.dissector(tvb, pinfo, tree)
	local ctx = new_ctx(tvb)
	pinfo.cols.protocol = "UET"
	local root = tree:add(uet, tvb())
	root:add(F["entropy"], pinfo.src_port):set_generated()
	local npds, off
	if is_tss(tvb) then
		-- Sealed: nothing goes to the data dissector as if clear.
		dissect_tss(ctx, root)
		npds, off = #ctx.info, tvb:len()
	else
		npds, off = dissect_clear(ctx, root)
	end
	local s = info_text(ctx, npds)
	pinfo.cols.info:set(s)
	root:append_text(", " .. s)
	if ctx.tvb:len() > off then
		data_dissector:call(ctx.tvb(off):tvb(), pinfo, tree)
	end
	return tvb:len()
end

DissectorTable.get("udp.port"):add(4793, uet)
