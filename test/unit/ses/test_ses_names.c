/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SES name tables and validity predicates (ses/ses_hdr.h, ref 3.2, 3.4, 3.5).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ses/ses_hdr.h"
#include "test/unit/ses/t_ses_hdr.h"

TestSuite(ses_names, .timeout = 10);

/* ======================================================================
 * Name tables and validity predicates (ref 3.2, 3.4, 3.5).
 * ====================================================================== */

enum t_table { T_OPCODE, T_RSP_OPCODE, T_RC, T_AMO_OP, T_AMO_DT };

/*
 * One row: an empty |name| means the reference does not name the value.
 * The name is held by value: Criterion runs each parameter in a fresh
 * process, where pointers into the parent's data are not valid.
 */
struct t_name {
	enum t_table table;
	uint8_t value;
	char name[32];
};

/* Every value named in ref 3.2, 3.4 and 3.5, plus unnamed edges. */
static const struct t_name t_names[] = {
	/* ref 3.2 request opcodes */
	{ T_OPCODE, 0x00, "NO_OP" },
	{ T_OPCODE, 0x01, "WRITE" },
	{ T_OPCODE, 0x02, "READ" },
	{ T_OPCODE, 0x03, "ATOMIC" },
	{ T_OPCODE, 0x04, "FETCHING_ATOMIC" },
	{ T_OPCODE, 0x05, "SEND" },
	{ T_OPCODE, 0x06, "RENDEZVOUS_SEND" },
	{ T_OPCODE, 0x07, "DATAGRAM_SEND" },
	{ T_OPCODE, 0x08, "DEFERRABLE_SEND" },
	{ T_OPCODE, 0x09, "TAGGED_SEND" },
	{ T_OPCODE, 0x0A, "RENDEZVOUS_TSEND" },
	{ T_OPCODE, 0x0B, "DEFERRABLE_TSEND" },
	{ T_OPCODE, 0x0C, "DEFERRABLE_RTR" },
	{ T_OPCODE, 0x0D, "TSEND_ATOMIC" },
	{ T_OPCODE, 0x0E, "TSEND_FETCH_ATOMIC" },
	{ T_OPCODE, 0x0F, "MSG_ERROR" },
	{ T_OPCODE, 0x10, "" },
	{ T_OPCODE, 0x2F, "" },
	{ T_OPCODE, 0x30, "" },
	{ T_OPCODE, 0x3F, "" },
	{ T_OPCODE, 0x40, "" },
	{ T_OPCODE, 0xFF, "" },
	/* ref 3.5 response opcodes */
	{ T_RSP_OPCODE, 0x00, "DEFAULT_RESPONSE" },
	{ T_RSP_OPCODE, 0x01, "RESPONSE" },
	{ T_RSP_OPCODE, 0x02, "RESPONSE_W_DATA" },
	{ T_RSP_OPCODE, 0x03, "NO_RESPONSE" },
	{ T_RSP_OPCODE, 0x04, "" },
	{ T_RSP_OPCODE, 0x30, "" },
	{ T_RSP_OPCODE, 0xFF, "" },
	/* ref 3.5 return codes */
	{ T_RC, 0x00, "RC_NULL" },
	{ T_RC, 0x01, "RC_OK" },
	{ T_RC, 0x02, "RC_BAD_GENERATION" },
	{ T_RC, 0x03, "RC_DISABLED" },
	{ T_RC, 0x04, "RC_DISABLED_GEN" },
	{ T_RC, 0x05, "RC_NO_MATCH" },
	{ T_RC, 0x06, "RC_UNSUPPORTED_OP" },
	{ T_RC, 0x07, "RC_UNSUPPORTED_SIZE" },
	{ T_RC, 0x08, "RC_AT_INVALID" },
	{ T_RC, 0x09, "RC_AT_PERM" },
	{ T_RC, 0x0A, "RC_AT_ATS_ERROR" },
	{ T_RC, 0x0B, "RC_AT_NO_TRANS" },
	{ T_RC, 0x0C, "RC_AT_OUT_OF_RANGE" },
	{ T_RC, 0x0D, "RC_HOST_POISONED" },
	{ T_RC, 0x0E, "RC_HOST_UNSUCCESS_CMPL" },
	{ T_RC, 0x0F, "RC_AMO_UNSUPPORTED_OP" },
	{ T_RC, 0x10, "RC_AMO_UNSUPPORTED_DT" },
	{ T_RC, 0x11, "RC_AMO_UNSUPPORTED_SIZE" },
	{ T_RC, 0x12, "RC_AMO_UNALIGNED" },
	{ T_RC, 0x13, "RC_AMO_FP_NAN" },
	{ T_RC, 0x14, "RC_AMO_FP_UNDERFLOW" },
	{ T_RC, 0x15, "RC_AMO_FP_OVERFLOW" },
	{ T_RC, 0x16, "RC_AMO_FP_INEXACT" },
	{ T_RC, 0x17, "RC_PERM_VIOLATION" },
	{ T_RC, 0x18, "RC_OP_VIOLATION" },
	{ T_RC, 0x19, "RC_BAD_INDEX" },
	{ T_RC, 0x1A, "RC_BAD_PID" },
	{ T_RC, 0x1B, "RC_BAD_JOB_ID" },
	{ T_RC, 0x1C, "RC_BAD_MKEY" },
	{ T_RC, 0x1D, "RC_BAD_ADDR" },
	{ T_RC, 0x1E, "RC_CANCELLED" },
	{ T_RC, 0x1F, "RC_UNDELIVERABLE" },
	{ T_RC, 0x20, "RC_UNCOR" },
	{ T_RC, 0x21, "RC_UNCOR_TRNSNT" },
	{ T_RC, 0x22, "RC_TOO_LONG" },
	{ T_RC, 0x23, "RC_INITIATOR_ERR" },
	{ T_RC, 0x24, "RC_DROPPED" },
	{ T_RC, 0x25, "" },
	{ T_RC, 0x30, "" },
	{ T_RC, 0x3E, "" },
	{ T_RC, 0x3F, "" },
	{ T_RC, 0xFF, "" },
	/* ref 3.4 atomic opcodes */
	{ T_AMO_OP, 0x00, "MIN" },
	{ T_AMO_OP, 0x01, "MAX" },
	{ T_AMO_OP, 0x02, "SUM" },
	{ T_AMO_OP, 0x03, "DIFF" },
	{ T_AMO_OP, 0x04, "PROD" },
	{ T_AMO_OP, 0x05, "LOR" },
	{ T_AMO_OP, 0x06, "LAND" },
	{ T_AMO_OP, 0x07, "BOR" },
	{ T_AMO_OP, 0x08, "BAND" },
	{ T_AMO_OP, 0x09, "LXOR" },
	{ T_AMO_OP, 0x0A, "BXOR" },
	{ T_AMO_OP, 0x0B, "READ" },
	{ T_AMO_OP, 0x0C, "WRITE" },
	{ T_AMO_OP, 0x0D, "CSWAP" },
	{ T_AMO_OP, 0x0E, "CSWAP_NE" },
	{ T_AMO_OP, 0x0F, "CSWAP_LE" },
	{ T_AMO_OP, 0x10, "CSWAP_LT" },
	{ T_AMO_OP, 0x11, "CSWAP_GE" },
	{ T_AMO_OP, 0x12, "CSWAP_GT" },
	{ T_AMO_OP, 0x13, "MSWAP" },
	{ T_AMO_OP, 0x14, "INVAL" },
	{ T_AMO_OP, 0x15, "" },
	{ T_AMO_OP, 0xDF, "" },
	{ T_AMO_OP, 0xE0, "" },
	{ T_AMO_OP, 0xFF, "" },
	/* ref 3.4 atomic datatypes */
	{ T_AMO_DT, 0x00, "INT8" },
	{ T_AMO_DT, 0x01, "UINT8" },
	{ T_AMO_DT, 0x02, "INT16" },
	{ T_AMO_DT, 0x03, "UINT16" },
	{ T_AMO_DT, 0x04, "INT32" },
	{ T_AMO_DT, 0x05, "UINT32" },
	{ T_AMO_DT, 0x06, "INT64" },
	{ T_AMO_DT, 0x07, "UINT64" },
	{ T_AMO_DT, 0x08, "INT128" },
	{ T_AMO_DT, 0x09, "UINT128" },
	{ T_AMO_DT, 0x0A, "FLOAT" },
	{ T_AMO_DT, 0x0B, "DOUBLE" },
	{ T_AMO_DT, 0x0C, "FLOAT_COMPLEX" },
	{ T_AMO_DT, 0x0D, "DOUBLE_COMPLEX" },
	{ T_AMO_DT, 0x0E, "LONG_DOUBLE" },
	{ T_AMO_DT, 0x0F, "LONG_DOUBLE_COMPLEX" },
	{ T_AMO_DT, 0x10, "BF16" },
	{ T_AMO_DT, 0x11, "FP16" },
	{ T_AMO_DT, 0x12, "" },
	{ T_AMO_DT, 0xFF, "" },
};

static const char *t_name_of(enum t_table table, uint8_t value)
{
	switch (table) {
	case T_OPCODE:
		return ses_opcode_name(value);
	case T_RSP_OPCODE:
		return ses_rsp_opcode_name(value);
	case T_RC:
		return ses_rc_name(value);
	case T_AMO_OP:
		return ses_amo_op_name(value);
	case T_AMO_DT:
		return ses_amo_dt_name(value);
	}
	return NULL;
}

ParameterizedTestParameters(ses_names, names_every_value)
{
	return cr_make_param_array(struct t_name, t_names,
				   sizeof(t_names) / sizeof(t_names[0]));
}

ParameterizedTest(const struct t_name *row, ses_names, names_every_value)
{
	const char *got = t_name_of(row->table, row->value);

	if (!row->name[0]) {
		cr_assert_null(got, "table %d value 0x%02x: \"%s\"",
			       (int)row->table, row->value, got);
		return;
	}
	cr_assert_not_null(got, "table %d value 0x%02x", (int)row->table,
			   row->value);
	cr_assert_str_eq(got, row->name, "table %d value 0x%02x",
			 (int)row->table, row->value);
}

Test(ses_names, opcode_validity_edges)
{
	cr_assert(ses_opcode_is_valid(0x00));
	cr_assert(ses_opcode_is_valid(0x0F));
	cr_assert_not(ses_opcode_is_valid(0x10));
	cr_assert_not(ses_opcode_is_valid(0x2F));
	cr_assert(ses_opcode_is_valid(0x30));
	cr_assert(ses_opcode_is_valid(0x3F));
	cr_assert_not(ses_opcode_is_valid(0x40));
	cr_assert_not(ses_opcode_is_valid(0xFF));
}

Test(ses_names, rsp_opcode_validity_edges)
{
	cr_assert(ses_rsp_opcode_is_valid(0x00));
	cr_assert(ses_rsp_opcode_is_valid(0x02));
	cr_assert(ses_rsp_opcode_is_valid(0x03));
	cr_assert_not(ses_rsp_opcode_is_valid(0x04));
	cr_assert_not(ses_rsp_opcode_is_valid(0x2F));
	cr_assert(ses_rsp_opcode_is_valid(0x30));
	cr_assert(ses_rsp_opcode_is_valid(0x3F));
	cr_assert_not(ses_rsp_opcode_is_valid(0x40));
	cr_assert_not(ses_rsp_opcode_is_valid(0xFF));
}

Test(ses_names, rc_validity_edges)
{
	for (unsigned int rc = 0; rc <= 0x3F; rc++)
		cr_assert_eq(ses_rc_is_valid((uint8_t)rc),
			     !t_rc_is_reserved(rc), "rc 0x%02x", rc);
	cr_assert_not(ses_rc_is_valid(0x40));
	cr_assert_not(ses_rc_is_valid(0xFF));
}

Test(ses_names, amo_op_cswap_edges)
{
	cr_assert_not(ses_amo_op_is_cswap(0x00));
	cr_assert_not(ses_amo_op_is_cswap(0x0C));
	for (unsigned int op = 0x0D; op <= 0x12; op++)
		cr_assert(ses_amo_op_is_cswap((uint8_t)op), "op 0x%02x", op);
	cr_assert_not(ses_amo_op_is_cswap(0x13));
	cr_assert_not(ses_amo_op_is_cswap(0xE0));
	cr_assert_not(ses_amo_op_is_cswap(0xFF));
}
