# SPDX-License-Identifier: BSD-2-Clause
# pdc/: sources of the Packet Delivery Sublayer, included by the Makefile.
PDC_SRCS	+= pdc/pdc_hdr.c pdc/pdc_hdr_ack.c pdc/pdc_names.c \
		   pdc/pdc_mgr.c pdc/pdc_timer.c pdc/pdc_cc.c pdc/pdc_nscc.c pdc/pdc_rccc.c pdc/pdc_tx.c \
		   pdc/pdc_rx.c pdc/pdc_ini.c pdc/pdc_ini_timer.c \
		   pdc/pdc_ini_rx.c pdc/pdc_ini_nack.c pdc/pdc_tgt.c \
		   pdc/pdc_tgt_ack.c pdc/pdc_tgt_admit.c pdc/pdc_ev.c \
		   pdc/pdc_counts.c pdc/pdc_tomb.c pdc/pdc_rudi.c \
		   pdc/pdc_room.c pdc/pdc_active.c

# Benchmark: an initiator/target PDC pair in memory (prints bench: lines).
BENCH_BINS	+= $(B)/bench_pdc
$(B)/bench_pdc: $(B)/test/bench/bench_pdc.o $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^

# Fuzz target: an initiator/target pair on an input-driven wire, with forged
# frames. It needs the pdc objects only (FUZZ_CORE_OBJS is defined later).
FUZZ_TARGETS	+= pdc_engine
PDC_FUZZ_OBJS	:= $(PDC_SRCS:%.c=$(B)/fuzz/obj/%.o)
$(B)/fuzz/fuzz_pdc_engine: test/fuzz/fuzz_pdc_engine.c $(PDC_FUZZ_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -o $@ $< $(PDC_FUZZ_OBJS)

# Which peer a local PDC belongs to (the engine demultiplexes by it).
PDC_SRCS	+= pdc/pdc_peer.c
