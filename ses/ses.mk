# SPDX-License-Identifier: BSD-2-Clause
# ses/: sources of the Semantic Sublayer, included by the Makefile.
SES_SRCS	+= ses/ses_hdr_req.c ses/ses_hdr_ext.c ses/ses_hdr_rsp.c \
		   ses/ses_names.c ses/ses_util.c ses/ses_core.c ses/ses_ri.c \
		   ses/ses_tx.c ses/ses_cpl.c ses/ses_rx.c ses/ses_rxm.c \
		   ses/ses_match.c ses/ses_rdv.c ses/ses_amo.c \
		   ses/ses_hdr_rdmo.c ses/ses_rdmo.c ses/ses_rudi.c

# Benchmark: initiator + target over an in-memory wire.
BENCH_BINS	+= $(B)/bench_ses
$(B)/bench_ses: $(B)/test/bench/bench_ses.o $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^

# Fuzz target: random packet sequences into the target side. It needs the
# ses objects only (FUZZ_CORE_OBJS is not yet defined when this is read).
FUZZ_TARGETS	+= ses_engine
SES_FUZZ_OBJS	:= $(SES_SRCS:%.c=$(B)/fuzz/obj/%.o)
$(B)/fuzz/fuzz_ses_engine: test/fuzz/fuzz_ses_engine.c $(SES_FUZZ_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -o $@ $< $(SES_FUZZ_OBJS)
