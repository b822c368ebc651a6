-- SPDX-License-Identifier: BSD-2-Clause
-- The SES half of the UET dissector: tools/uet.lua loads this file from its
-- own folder and hands it what both halves share. Every SES request,
-- extension and response header the codecs know, field by field
-- (ses/ses_hdr.h; wire facts: uet-wire-format.md section 3), and our vendor
-- RDMO opcodes with their extension headers and scatter descriptors. It adds
-- its fields to uet.lua's and returns dissect_ses, which uet.lua's
-- dissector calls after the PDS header.
--
-- Wireshark also runs it on its own, as it runs every *.lua in its plugin
-- folders and their subfolders: given nothing then, it returns at once and
-- registers nothing.

local U = ...
if type(U) ~= "table" or not U.F then
	return
end

local band, rshift = bit32.band, bit32.rshift
local F, field, H, D = U.F, U.field, U.H, U.D
local NH, next_hdr_names = U.NH, U.next_hdr_names
local info, malformed, name_or = U.info, U.malformed, U.name_or
local generated, check_len = U.generated, U.check_len

-- ---- value names (the X-macro lists of include/uet_wire.h) ----------------

local ses_opcode_names = {
	[0x00] = "NO_OP", [0x01] = "WRITE", [0x02] = "READ", [0x03] = "ATOMIC",
	[0x04] = "FETCHING_ATOMIC", [0x05] = "SEND",
	[0x06] = "RENDEZVOUS_SEND", [0x07] = "DATAGRAM_SEND",
	[0x08] = "DEFERRABLE_SEND", [0x09] = "TAGGED_SEND",
	[0x0A] = "RENDEZVOUS_TSEND", [0x0B] = "DEFERRABLE_TSEND",
	[0x0C] = "DEFERRABLE_RTR", [0x0D] = "TSEND_ATOMIC",
	[0x0E] = "TSEND_FETCH_ATOMIC", [0x0F] = "MSG_ERROR",
	-- ours, vendor range (UET_SES_RDMO_OPCODE_LIST)
	[0x30] = "RDMO_APPEND", [0x31] = "RDMO_SCATTER", [0x32] = "RDMO_FLUSH",
}

local ses_rsp_opcode_names = {
	[0x00] = "DEFAULT_RESPONSE", [0x01] = "RESPONSE",
	[0x02] = "RESPONSE_W_DATA", [0x03] = "NO_RESPONSE",
}

local ses_list_names = {
	[0] = "expected", [1] = "overflow", [2] = "vendor", [3] = "vendor",
}

-- Return codes keep their RC_ prefix, as ses/ses_names.c gives them.
local ses_rc_names = {}
for v, n in pairs({
	[0x00] = "NULL", [0x01] = "OK", [0x02] = "BAD_GENERATION",
	[0x03] = "DISABLED", [0x04] = "DISABLED_GEN", [0x05] = "NO_MATCH",
	[0x06] = "UNSUPPORTED_OP", [0x07] = "UNSUPPORTED_SIZE",
	[0x08] = "AT_INVALID", [0x09] = "AT_PERM", [0x0A] = "AT_ATS_ERROR",
	[0x0B] = "AT_NO_TRANS", [0x0C] = "AT_OUT_OF_RANGE",
	[0x0D] = "HOST_POISONED", [0x0E] = "HOST_UNSUCCESS_CMPL",
	[0x0F] = "AMO_UNSUPPORTED_OP", [0x10] = "AMO_UNSUPPORTED_DT",
	[0x11] = "AMO_UNSUPPORTED_SIZE", [0x12] = "AMO_UNALIGNED",
	[0x13] = "AMO_FP_NAN", [0x14] = "AMO_FP_UNDERFLOW",
	[0x15] = "AMO_FP_OVERFLOW", [0x16] = "AMO_FP_INEXACT",
	[0x17] = "PERM_VIOLATION", [0x18] = "OP_VIOLATION",
	[0x19] = "BAD_INDEX", [0x1A] = "BAD_PID", [0x1B] = "BAD_JOB_ID",
	[0x1C] = "BAD_MKEY", [0x1D] = "BAD_ADDR", [0x1E] = "CANCELLED",
	[0x1F] = "UNDELIVERABLE", [0x20] = "UNCOR", [0x21] = "UNCOR_TRNSNT",
	[0x22] = "TOO_LONG", [0x23] = "INITIATOR_ERR", [0x24] = "DROPPED",
}) do
	ses_rc_names[v] = "RC_" .. n
end

local amo_op_names = {
	[0x00] = "MIN", [0x01] = "MAX", [0x02] = "SUM", [0x03] = "DIFF",
	[0x04] = "PROD", [0x05] = "LOR", [0x06] = "LAND", [0x07] = "BOR",
	[0x08] = "BAND", [0x09] = "LXOR", [0x0A] = "BXOR", [0x0B] = "READ",
	[0x0C] = "WRITE", [0x0D] = "CSWAP", [0x0E] = "CSWAP_NE",
	[0x0F] = "CSWAP_LE", [0x10] = "CSWAP_LT", [0x11] = "CSWAP_GE",
	[0x12] = "CSWAP_GT", [0x13] = "MSWAP", [0x14] = "INVAL",
}

local amo_dt_names = {
	[0x00] = "INT8", [0x01] = "UINT8", [0x02] = "INT16", [0x03] = "UINT16",
	[0x04] = "INT32", [0x05] = "UINT32", [0x06] = "INT64",
	[0x07] = "UINT64", [0x08] = "INT128", [0x09] = "UINT128",
	[0x0A] = "FLOAT", [0x0B] = "DOUBLE", [0x0C] = "FLOAT_COMPLEX",
	[0x0D] = "DOUBLE_COMPLEX", [0x0E] = "LONG_DOUBLE",
	[0x0F] = "LONG_DOUBLE_COMPLEX", [0x10] = "BF16", [0x11] = "FP16",
}

-- ---- constants (include/uet_wire.h) ---------------------------------------

-- ref 2.3 and 3: SES header length per next_hdr.
local ses_len = { [1] = 20, [2] = 32, [3] = 44, [4] = 12, [5] = 20, [6] = 12 }

local OP = { ATOMIC = 0x03, FETCHING_ATOMIC = 0x04, RENDEZVOUS_SEND = 0x06,
	     TAGGED_SEND = 0x09, RENDEZVOUS_TSEND = 0x0A,
	     DEFERRABLE_TSEND = 0x0B, TSEND_ATOMIC = 0x0D,
	     TSEND_FETCH_ATOMIC = 0x0E, RDMO_APPEND = 0x30,
	     RDMO_SCATTER = 0x31, RDMO_FLUSH = 0x32 }
local RSP_W_DATA = 0x02
local AMO_CSWAP, AMO_CSWAP_GT = 0x0D, 0x12
local ATOMIC_EXT_LEN, CAS_EXT_LEN, RDV_EXT_LEN = 4, 36, 24
-- Ours: UET_SES_RDMO_*_EXT_LEN, UET_SES_RDMO_PIECE_LEN, UET_SES_RDMO_F_RESULT.
local RDMO_APPEND_EXT_LEN, RDMO_SCATTER_EXT_LEN, RDMO_FLUSH_EXT_LEN = 32, 8, 8
local RDMO_PIECE_LEN, RDMO_F_RESULT = 20, 0x01

-- ---- fields ---------------------------------------------------------------

field("ses", ProtoField.none, "SES header")
field("ses.opcode", ProtoField.uint8, "Opcode", H, ses_opcode_names, 0x3F)
field("ses.version", ProtoField.uint8, "Version", D, nil, 0xC0)
field("ses.flags", ProtoField.uint8, "Flags", H, nil, 0x3F)
field("ses.dc", ProtoField.bool, "DC (delivery complete)", 8, nil, 0x20)
field("ses.ie", ProtoField.bool, "IE (initiator error)", 8, nil, 0x10)
field("ses.rel", ProtoField.bool, "REL (relative addressing)", 8, nil, 0x08)
field("ses.hd", ProtoField.bool, "HD (header data present)", 8, nil, 0x04)
field("ses.eom", ProtoField.bool, "EOM", 8, nil, 0x02)
field("ses.som", ProtoField.bool, "SOM", 8, nil, 0x01)
field("ses.message_id", ProtoField.uint16, "Message id", D)
field("ses.ri_generation", ProtoField.uint8, "RI generation", D)
field("ses.job_id", ProtoField.uint24, "JobID", D)
field("ses.pid_on_fep", ProtoField.uint16, "PIDonFEP", D, nil, 0x0FFF)
field("ses.resource_index", ProtoField.uint16, "Resource index", H, nil,
      0x0FFF)
field("ses.buffer_offset", ProtoField.uint64, "Buffer offset", D)
field("ses.initiator", ProtoField.uint32, "Initiator", H)
field("ses.memory_key", ProtoField.uint64, "Memory key", H)
field("ses.memory_key.idempotent_safe", ProtoField.bool, "Idempotent safe",
      8, nil, 0x80)
field("ses.memory_key.optimized", ProtoField.bool, "Optimized", 8, nil, 0x40)
field("ses.memory_key.vendor", ProtoField.uint8, "Vendor", H)
field("ses.memory_key.rkey", ProtoField.uint64, "RKEY", H)
field("ses.match_bits", ProtoField.uint64, "Match bits", H)
field("ses.header_data", ProtoField.uint64, "Header data", H)
-- 14 bits at different places; always added with the value masked by hand
field("ses.payload_length", ProtoField.uint16, "Payload length", D)
field("ses.message_offset", ProtoField.uint32, "Message offset", D)
field("ses.request_length", ProtoField.uint32, "Request length", D)
field("ses.reserved", ProtoField.bytes, "Reserved")
-- ref 3.4: extension headers
field("ses.atomic", ProtoField.none, "Atomic extension header")
field("ses.cas", ProtoField.none, "Compare-and-swap extension header")
field("ses.rdv", ProtoField.none, "Rendezvous extension header")
field("ses.amo_op", ProtoField.uint8, "Atomic opcode", H, amo_op_names)
field("ses.amo_dt", ProtoField.uint8, "Atomic datatype", H, amo_dt_names)
field("ses.semantic_ctl", ProtoField.uint8, "Semantic control", H, nil, 0x03)
field("ses.semantic_ctl.cacheable", ProtoField.bool, "Cacheable", 8, nil,
      0x01)
field("ses.semantic_ctl.cpu_coherent", ProtoField.bool, "CPU coherent", 8,
      nil, 0x02)
field("ses.compare", ProtoField.bytes, "Compare value")
field("ses.swap", ProtoField.bytes, "Swap value")
field("ses.eager_length", ProtoField.uint32, "Eager length", D)
field("ses.rdv_pid_on_fep", ProtoField.uint16, "PIDonFEP", D, nil, 0x3FFF)
field("ses.rdv_resource_index", ProtoField.uint16, "Resource index", H, nil,
      0x0FFF)
field("ses.read_offset", ProtoField.uint64, "Read offset", D)
field("ses.read_match_bits", ProtoField.uint64, "Read match bits", H)
-- ours: the RDMO extension headers and scatter descriptors
field("ses.rdmo_append", ProtoField.none, "RDMO append extension header")
field("ses.rdmo_scatter", ProtoField.none, "RDMO scatter extension header")
field("ses.rdmo_flush", ProtoField.none, "RDMO flush extension header")
field("ses.rdmo_flags", ProtoField.uint8, "Flags", H)
field("ses.rdmo_flag_result", ProtoField.bool,
      "RESULT (answer the old pointer)", 8, nil, RDMO_F_RESULT)
field("ses.rdmo_ptr_memory_key", ProtoField.uint64, "Pointer memory key", H)
field("ses.rdmo_ptr_offset", ProtoField.uint64, "Pointer offset", D)
field("ses.rdmo_data_bias", ProtoField.uint64, "Data bias", D)
field("ses.rdmo_piece_count", ProtoField.uint16, "Piece count", D)
field("ses.rdmo_piece", ProtoField.none, "RDMO scatter descriptor")
field("ses.rdmo_piece_memory_key", ProtoField.uint64, "Memory key", H)
field("ses.rdmo_piece_offset", ProtoField.uint64, "Buffer offset", D)
field("ses.rdmo_piece_length", ProtoField.uint32, "Length", D)
field("ses.rdmo_first_message_id", ProtoField.uint16, "First message id", D)
-- ref 3.5: responses
field("ses.list", ProtoField.uint8, "List", D, ses_list_names, 0xC0)
field("ses.rsp_opcode", ProtoField.uint8, "Response opcode", H,
      ses_rsp_opcode_names, 0x3F)
field("ses.return_code", ProtoField.uint8, "Return code", H, ses_rc_names,
      0x3F)
field("ses.modified_length", ProtoField.uint32, "Modified length", D)
field("ses.read_request_message_id", ProtoField.uint16,
      "Read request message id", D)
field("ses.original_request_psn", ProtoField.uint32, "Original request PSN",
      H)

-- ---- SES ------------------------------------------------------------------

-- Byte 1 of a request: version and the six flags. Returns the flags byte,
-- or nil (with a warning) when the version is not 0.
local function ses_req_flags(ctx, t, o)
	local r = ctx.tvb(o + 1, 1)
	local vi = t:add(F["ses.version"], r)
	if rshift(r:uint(), 6) ~= 0 then
		malformed(ctx, vi, string.format("SES version %d not supported",
						 rshift(r:uint(), 6)))
		return nil
	end
	local fi = t:add(F["ses.flags"], r)
	for _, n in ipairs({ "dc", "ie", "rel", "hd", "eom", "som" }) do
		fi:add(F["ses." .. n], r)
	end
	return band(r:uint(), 0x3F)
end

-- Bytes 4-11 every request form shares.
local function ses_req_ids(ctx, t, o)
	local tvb = ctx.tvb
	t:add(F["ses.ri_generation"], tvb(o + 4, 1))
	t:add(F["ses.job_id"], tvb(o + 5, 3))
	t:add(F["ses.pid_on_fep"], tvb(o + 8, 2))
	t:add(F["ses.resource_index"], tvb(o + 10, 2))
end

local function ses_opcode(ctx, t, o)
	local op = band(ctx.tvb(o, 1):uint(), 0x3F)
	local it = t:add(F["ses.opcode"], ctx.tvb(o, 1))
	if not ses_opcode_names[op] and op < 0x30 then
		malformed(ctx, it, string.format("reserved SES opcode 0x%02x",
						 op))
	end
	return op
end

local function som_eom(fl)
	local s = ""
	if band(fl, 0x01) ~= 0 then s = s .. " som" end
	if band(fl, 0x02) ~= 0 then s = s .. " eom" end
	return s
end

local function is_tagged(op)
	return op == OP.TAGGED_SEND or op == OP.RENDEZVOUS_TSEND or
	       op == OP.DEFERRABLE_TSEND or op == OP.TSEND_ATOMIC or
	       op == OP.TSEND_FETCH_ATOMIC
end

-- The 64-bit key at |o|: match bits for tagged sends, else a memory key.
local function ses_key(ctx, t, o, op)
	local tvb = ctx.tvb
	if is_tagged(op) then
		t:add(F["ses.match_bits"], tvb(o, 8))
		return
	end
	-- ref 5.4: flag bits 63, 62; vendor 55:48; RKEY 47:0 (the optimized
	-- format keeps only 11:0 of it, shown the same way).
	local k = t:add(F["ses.memory_key"], tvb(o, 8))
	k:add(F["ses.memory_key.idempotent_safe"], tvb(o, 1))
	k:add(F["ses.memory_key.optimized"], tvb(o, 1))
	k:add(F["ses.memory_key.vendor"], tvb(o + 1, 1))
	k:add(F["ses.memory_key.rkey"], tvb(o + 2, 6))
end

-- ref 3.1: standard request, both SOM forms. Returns the header length, the
-- opcode and whether som is set.
local function ses_std(ctx, t, o)
	local tvb = ctx.tvb
	local op = ses_opcode(ctx, t, o)
	local fl = ses_req_flags(ctx, t, o)
	if not fl then
		return nil
	end
	local som, hd = band(fl, 0x01) ~= 0, band(fl, 0x04) ~= 0
	t:add(F["ses.message_id"], tvb(o + 2, 2))
	ses_req_ids(ctx, t, o)
	t:add(F["ses.buffer_offset"], tvb(o + 12, 8))
	t:add(F["ses.initiator"], tvb(o + 20, 4))
	ses_key(ctx, t, o + 24, op)
	local moff
	if som then
		t:add(F["ses.header_data"], tvb(o + 32, 8))
		-- A SOM packet starts the message: offset 0 (its payload length
		-- is added once the extension header is known).
		moff = 0
		generated(t, F["ses.message_offset"], tvb(o + 32, 8), 0)
	else
		t:add(F["ses.reserved"], tvb(o + 32, 2))
		t:add(F["ses.payload_length"], tvb(o + 34, 2),
		      band(tvb(o + 34, 2):uint(), 0x3FFF))
		t:add(F["ses.message_offset"], tvb(o + 36, 4))
		moff = tvb(o + 36, 4):uint()
	end
	t:add(F["ses.request_length"], tvb(o + 40, 4))
	if hd and not som then
		malformed(ctx, t, "SES hd set without som")
	end
	info(ctx, string.format("%s%s msg=%d off=%d len=%d",
				name_or(ses_opcode_names, op, "op"),
				som_eom(fl),
				tvb(o + 2, 2):uint(), moff,
				tvb(o + 40, 4):uint()))
	return 44, op, som
end

-- ref 3.3: small (20 bytes) and medium (32 bytes) requests.
local function ses_small_medium(ctx, t, o, nh)
	local tvb = ctx.tvb
	local op = ses_opcode(ctx, t, o)
	local fl = ses_req_flags(ctx, t, o)
	if not fl then
		return nil
	end
	local rlen = band(tvb(o + 2, 2):uint(), 0x3FFF)
	t:add(F["ses.request_length"], tvb(o + 2, 2), rlen)
	ses_req_ids(ctx, t, o)
	if nh == NH.SMALL or band(fl, 0x04) == 0 then
		t:add(F["ses.buffer_offset"], tvb(o + 12, 8))
	else
		t:add(F["ses.header_data"], tvb(o + 12, 8))
	end
	if nh == NH.MEDIUM then
		t:add(F["ses.initiator"], tvb(o + 20, 4))
		ses_key(ctx, t, o + 24, op)
	end
	if band(fl, 0x03) ~= 0x03 then
		malformed(ctx, t, next_hdr_names[nh] .. " without som and eom")
	end
	info(ctx, string.format("%s%s len=%d",
				name_or(ses_opcode_names, op, "op"),
				som_eom(fl), rlen))
	return ses_len[nh], op
end

-- Ours: the RDMO extension header of |op| (ses/ses_hdr.h, big-endian,
-- reserved bytes 0), on every packet of the message.
local rdmo_exts = {
	[OP.RDMO_APPEND] = { kind = "rdmo_append", len = RDMO_APPEND_EXT_LEN,
			     what = "append" },
	[OP.RDMO_SCATTER] = { kind = "rdmo_scatter",
			      len = RDMO_SCATTER_EXT_LEN, what = "scatter" },
	[OP.RDMO_FLUSH] = { kind = "rdmo_flush", len = RDMO_FLUSH_EXT_LEN,
			    what = "flush" },
}

local function ses_rdmo_ext(ctx, tree, o, op)
	local tvb = ctx.tvb
	local x = rdmo_exts[op]
	local len = x.len
	if not check_len(ctx, tree, o, len,
			 "RDMO " .. x.what .. " extension header") then
		return nil
	end
	local t = tree:add(F["ses." .. x.kind], tvb(o, len))
	if op == OP.RDMO_APPEND then
		local fl = tvb(o, 1):uint()
		local fi = t:add(F["ses.rdmo_flags"], tvb(o, 1))
		fi:add(F["ses.rdmo_flag_result"], tvb(o, 1))
		t:add(F["ses.reserved"], tvb(o + 1, 7))
		t:add(F["ses.rdmo_ptr_memory_key"], tvb(o + 8, 8))
		t:add(F["ses.rdmo_ptr_offset"], tvb(o + 16, 8))
		t:add(F["ses.rdmo_data_bias"], tvb(o + 24, 8))
		info(ctx, string.format("%sptr_key=0x%s ptr_off=%s bias=%s",
			band(fl, RDMO_F_RESULT) ~= 0 and "RESULT " or "",
			tvb(o + 8, 8):uint64():tohex(),
			tostring(tvb(o + 16, 8):uint64()),
			tostring(tvb(o + 24, 8):uint64())))
	elseif op == OP.RDMO_SCATTER then
		t:add(F["ses.rdmo_piece_count"], tvb(o, 2))
		t:add(F["ses.reserved"], tvb(o + 2, 6))
		info(ctx, "pieces=" .. tvb(o, 2):uint())
	else
		t:add(F["ses.rdmo_first_message_id"], tvb(o, 2))
		t:add(F["ses.reserved"], tvb(o + 2, 6))
		info(ctx, "first_msg=" .. tvb(o, 2):uint())
	end
	return len
end

-- Ours: the |count| descriptors an RDMO_SCATTER message starts with, at |o|
-- in the payload of its SOM packet. Returns their length, or nil when the
-- payload is too short for them (warned; the payload is then shown as data).
local function ses_rdmo_pieces(ctx, tree, o, count)
	local tvb = ctx.tvb
	local len = count * RDMO_PIECE_LEN
	if not check_len(ctx, tree, o, len,
			 "RDMO scatter descriptor table") then
		return nil
	end
	for i = 0, count - 1 do
		local p = o + i * RDMO_PIECE_LEN
		local t = tree:add(F["ses.rdmo_piece"], tvb(p, RDMO_PIECE_LEN))
		t:append_text(string.format(" %d of %d", i + 1, count))
		t:add(F["ses.rdmo_piece_memory_key"], tvb(p, 8))
		t:add(F["ses.rdmo_piece_offset"], tvb(p + 8, 8))
		t:add(F["ses.rdmo_piece_length"], tvb(p + 16, 4))
	end
	return len
end

-- ref 3.4: the extension header selected by the standard header's opcode.
local function ses_ext(ctx, tree, o, op)
	if rdmo_exts[op] then
		return ses_rdmo_ext(ctx, tree, o, op)
	end
	local tvb = ctx.tvb
	local kind
	if op == OP.ATOMIC or op == OP.FETCHING_ATOMIC or
	   op == OP.TSEND_FETCH_ATOMIC then
		kind = "atomic"
		if tvb:len() > o then
			local amo = tvb(o, 1):uint()
			if amo >= AMO_CSWAP and amo <= AMO_CSWAP_GT then
				kind = "cas"
			end
		end
	elseif op == OP.RENDEZVOUS_SEND or op == OP.RENDEZVOUS_TSEND then
		kind = "rdv"
	else
		return 0
	end
	local len = ({ atomic = ATOMIC_EXT_LEN, cas = CAS_EXT_LEN,
		       rdv = RDV_EXT_LEN })[kind]
	local what = ({ atomic = "atomic", cas = "compare-and-swap",
			rdv = "rendezvous" })[kind] .. " extension header"
	if not check_len(ctx, tree, o, len, what) then
		return nil
	end
	local t = tree:add(F["ses." .. kind], tvb(o, len))
	if kind == "rdv" then
		t:add(F["ses.eager_length"], tvb(o, 4))
		t:add(F["ses.rdv_pid_on_fep"], tvb(o + 4, 2))
		t:add(F["ses.rdv_resource_index"], tvb(o + 6, 2))
		t:add(F["ses.read_offset"], tvb(o + 8, 8))
		t:add(F["ses.read_match_bits"], tvb(o + 16, 8))
		info(ctx, "eager=" .. tvb(o, 4):uint())
		return len
	end
	local amo, dt = tvb(o, 1):uint(), tvb(o + 1, 1):uint()
	local ai = t:add(F["ses.amo_op"], tvb(o, 1))
	if not amo_op_names[amo] and (amo < 0xE0 or amo > 0xFE) then
		malformed(ctx, ai, string.format(
			"reserved atomic opcode 0x%02x", amo))
	end
	local di = t:add(F["ses.amo_dt"], tvb(o + 1, 1))
	if not amo_dt_names[dt] then
		malformed(ctx, di, string.format(
			"reserved atomic datatype 0x%02x", dt))
	end
	local ci = t:add(F["ses.semantic_ctl"], tvb(o + 2, 1))
	ci:add(F["ses.semantic_ctl.cacheable"], tvb(o + 2, 1))
	ci:add(F["ses.semantic_ctl.cpu_coherent"], tvb(o + 2, 1))
	t:add(F["ses.reserved"], tvb(o + 3, 1))
	if kind == "cas" then
		t:add(F["ses.compare"], tvb(o + 4, 16))
		t:add(F["ses.swap"], tvb(o + 20, 16))
	end
	info(ctx, string.format("%s %s", name_or(amo_op_names, amo, "amo"),
				name_or(amo_dt_names, dt, "dt")))
	return len
end

-- Bytes 0-1 of every response: list, opcode, version, return code. Returns
-- false when the version is not 0.
local function ses_rsp_common(ctx, t, o, with_data)
	local tvb = ctx.tvb
	local op = band(tvb(o, 1):uint(), 0x3F)
	local ver, rc = rshift(tvb(o + 1, 1):uint(), 6),
			band(tvb(o + 1, 1):uint(), 0x3F)
	t:add(F["ses.list"], tvb(o, 1))
	local oi = t:add(F["ses.rsp_opcode"], tvb(o, 1))
	local vi = t:add(F["ses.version"], tvb(o + 1, 1))
	if ver ~= 0 then
		malformed(ctx, vi, string.format("SES version %d not supported",
						 ver))
		return false
	end
	local ri = t:add(F["ses.return_code"], tvb(o + 1, 1))
	if not ses_rsp_opcode_names[op] and op < 0x30 then
		malformed(ctx, oi, string.format(
			"reserved response opcode 0x%02x", op))
	elseif (op == RSP_W_DATA) ~= with_data then
		malformed(ctx, oi, "response opcode does not match next_hdr")
	end
	if not ses_rc_names[rc] and rc ~= 0x3E and (rc < 0x30 or rc > 0x37) then
		malformed(ctx, ri, string.format("reserved return code 0x%02x",
						 rc))
	end
	info(ctx, string.format("%s %s",
				name_or(ses_rsp_opcode_names, op, "rsp"),
				name_or(ses_rc_names, rc, "RC")))
	return true
end

-- ref 3.5: RESPONSE, RESPONSE_DATA, RESPONSE_DATA_SMALL.
local function ses_rsp(ctx, t, o, nh)
	local tvb = ctx.tvb
	if not ses_rsp_common(ctx, t, o, nh ~= NH.RSP) then
		return nil
	end
	if nh == NH.RSP then
		t:add(F["ses.message_id"], tvb(o + 2, 2))
		t:add(F["ses.ri_generation"], tvb(o + 4, 1))
		t:add(F["ses.job_id"], tvb(o + 5, 3))
		t:add(F["ses.modified_length"], tvb(o + 8, 4))
		info(ctx, string.format("msg=%d mlen=%d", tvb(o + 2, 2):uint(),
					tvb(o + 8, 4):uint()))
	elseif nh == NH.RSP_DATA then
		t:add(F["ses.message_id"], tvb(o + 2, 2))
		t:add(F["ses.reserved"], tvb(o + 4, 1))
		t:add(F["ses.job_id"], tvb(o + 5, 3))
		t:add(F["ses.read_request_message_id"], tvb(o + 8, 2))
		t:add(F["ses.payload_length"], tvb(o + 10, 2),
		      band(tvb(o + 10, 2):uint(), 0x3FFF))
		t:add(F["ses.modified_length"], tvb(o + 12, 4))
		t:add(F["ses.message_offset"], tvb(o + 16, 4))
		info(ctx, string.format("msg=%d off=%d plen=%d",
					tvb(o + 2, 2):uint(),
					tvb(o + 16, 4):uint(),
					band(tvb(o + 10, 2):uint(), 0x3FFF)))
	else
		t:add(F["ses.payload_length"], tvb(o + 2, 2),
		      band(tvb(o + 2, 2):uint(), 0x3FFF))
		t:add(F["ses.reserved"], tvb(o + 4, 1))
		t:add(F["ses.job_id"], tvb(o + 5, 3))
		t:add(F["ses.original_request_psn"], tvb(o + 8, 4))
		info(ctx, string.format("plen=%d",
					band(tvb(o + 2, 2):uint(), 0x3FFF)))
	end
	return ses_len[nh]
end

-- Decodes the SES header(s) at |o| (under the root |tree|, with an RDMO
-- scatter's descriptors); returns the offset of the data, or nil when the
-- rest cannot be interpreted.
local function dissect_ses(ctx, tree, o, nh)
	local hlen = ses_len[nh]
	if not hlen then
		return o
	end
	local what = "SES " .. next_hdr_names[nh] .. " header"
	if not check_len(ctx, tree, o, hlen, what) then
		return nil
	end
	local t = tree:add(F["ses"], ctx.tvb(o, hlen))
	t:append_text(" (" .. next_hdr_names[nh] .. ")")
	local len, op
	if nh == NH.STD then
		local som
		len, op, som = ses_std(ctx, t, o)
		if len then
			local ext = ses_ext(ctx, t, o + len, op)
			-- a missing extension leaves its bytes to the data view
			len = len + (ext or 0)
			t:set_len(len)
			local tvb = ctx.tvb
			if som and ext then
				local n = tvb:reported_length_remaining(o + len)
				generated(t, F["ses.payload_length"],
					  tvb(o + 32, 8), math.max(n, 0))
			end
			-- the payload length counts the descriptors, data not
			if som and ext and op == OP.RDMO_SCATTER then
				local count = tvb(o + len - ext, 2):uint()
				len = len + (ses_rdmo_pieces(ctx, tree, o + len,
							     count) or 0)
			end
		end
	elseif nh == NH.SMALL or nh == NH.MEDIUM then
		len = ses_small_medium(ctx, t, o, nh)
	else
		len = ses_rsp(ctx, t, o, nh)
	end
	return len and o + len
end

return dissect_ses
