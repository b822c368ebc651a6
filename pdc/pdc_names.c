/* SPDX-License-Identifier: BSD-2-Clause */
/* Name tables for PDS code points, generated from the lists in uet_wire.h. */
#include <stddef.h>

#include "pdc/pdc_hdr.h"

#define PDC_NAME_CASE(n, v)	case v: return #n;

const char *pdc_type_name(uint8_t type)
{
	switch (type) {
	UET_PDS_TYPE_LIST(PDC_NAME_CASE)
	default: return NULL;
	}
}

const char *pdc_next_hdr_name(uint8_t next_hdr)
{
	switch (next_hdr) {
	UET_PDS_NEXT_HDR_LIST(PDC_NAME_CASE)
	default: return NULL;
	}
}

const char *pdc_nack_code_name(uint8_t code)
{
	switch (code) {
	UET_PDS_NACK_CODE_LIST(PDC_NAME_CASE)
	default: return NULL;
	}
}

const char *pdc_ctl_type_name(uint8_t ctl_type)
{
	switch (ctl_type) {
	UET_PDS_CTL_TYPE_LIST(PDC_NAME_CASE)
	default: return NULL;
	}
}

const char *pdc_cc_type_name(uint8_t cc_type)
{
	switch (cc_type) {
	UET_PDS_CC_TYPE_LIST(PDC_NAME_CASE)
	default: return NULL;
	}
}
