# SPDX-License-Identifier: BSD-2-Clause
# ses/: sources of the Semantic Sublayer, included by the Makefile.
SES_SRCS	+= ses/ses_hdr_req.c ses/ses_hdr_ext.c ses/ses_hdr_rsp.c \
		   ses/ses_names.c
