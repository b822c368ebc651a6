# SPDX-License-Identifier: BSD-2-Clause
# pdc/: sources of the Packet Delivery Sublayer, included by the Makefile.
PDC_SRCS	+= pdc/pdc_hdr.c pdc/pdc_hdr_ack.c pdc/pdc_names.c
