/* SPDX-License-Identifier: BSD-2-Clause */
/* Name tables for SES code points, generated from the lists in uet_wire.h. */
#include <stddef.h>

#include "ses/ses_hdr.h"

#define SES_NAME_CASE(n, v)	case v: return #n;
#define SES_RC_NAME_CASE(n, v)	case v: return "RC_" #n;

const char *ses_opcode_name(uint8_t opcode)
{
	switch (opcode) {
	UET_SES_OPCODE_LIST(SES_NAME_CASE)
	default: return NULL;
	}
}

const char *ses_rsp_opcode_name(uint8_t opcode)
{
	switch (opcode) {
	UET_SES_RSP_OPCODE_LIST(SES_NAME_CASE)
	default: return NULL;
	}
}

const char *ses_rc_name(uint8_t rc)
{
	switch (rc) {
	UET_SES_RC_LIST(SES_RC_NAME_CASE)
	default: return NULL;
	}
}

const char *ses_amo_op_name(uint8_t amo_op)
{
	switch (amo_op) {
	UET_SES_AMO_OP_LIST(SES_NAME_CASE)
	default: return NULL;
	}
}

const char *ses_amo_dt_name(uint8_t amo_dt)
{
	switch (amo_dt) {
	UET_SES_AMO_DT_LIST(SES_NAME_CASE)
	default: return NULL;
	}
}

const char *ses_rdmo_opcode_name(uint8_t opcode)
{
	switch (opcode) {
	UET_SES_RDMO_OPCODE_LIST(SES_NAME_CASE)
	default: return NULL;
	}
}
