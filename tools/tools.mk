# SPDX-License-Identifier: BSD-2-Clause
# tools/: uetctl, the command-line tool for the XDP program.
UETCTL_OBJS	:= $(B)/tools/uetctl.o $(B)/tools/uetctl_capture.o \
		   $(B)/tools/uetctl_svc.o $(B)/tools/uetctl_prom.o \
		   $(B)/tools/uetctl_prom_out.o $(B)/tools/uetctl_top.o

$(B)/uetctl: $(UETCTL_OBJS) $(B)/libuet_io.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS) -lpcap

all: $(B)/uetctl

# uetd: the device service of an interface (issue 12); uetctl load starts it.
UETD_OBJS	:= $(B)/tools/uetd.o $(B)/tools/uetd_dev.o \
		   $(B)/tools/uetd_dev_rx.o $(B)/tools/uetd_ep.o \
		   $(B)/tools/uetd_absent.o $(B)/tools/uetd_policy.o \
		   $(B)/tools/uetd_policy_parse.o \
		   $(B)/tools/uetd_tss_svc.o $(B)/tools/uetd_tss.o \
		   $(B)/tools/uetd_tss_state.o $(B)/tools/uetd_tss_xdp.o \
		   $(B)/tools/uetd_stats.o $(B)/tools/uetd_top.o \
		   $(B)/tools/uetd_takeover.o $(B)/tools/uetd_link.o

# The XDP program's AES contexts are made by a skeleton's syscall program.
$(B)/tools/uetd_tss_xdp.o: $(B)/uet_tss_ctx.skel.h
$(B)/tools/uetd_tss_xdp.o: CPPFLAGS += -I$(B)

$(B)/uetd: $(UETD_OBJS) $(B)/libuet_io.a $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS) -lpthread -lcrypto

all: $(B)/uetd
E2E_DEPS	+= $(B)/uetd

# The JobID policy's parser (tools/uetd_policy.h); test_misc tests it.
$(B)/test_misc: $(B)/tools/uetd_policy_parse.o

# TSS (tss/uet_tss.h): the key file and the epochs; test_misc tests them.
$(B)/test_misc: $(B)/tools/uetd_tss.o $(B)/tools/uetd_tss_state.o
$(B)/test_misc: TEST_LIBS += -lcrypto

# The Prometheus formatter: test_misc drives it with made-up figures; it
# names the XDP program's counters (dev/uet_xdp_ctl.c, in libuet_io).
$(B)/test_misc: $(B)/tools/uetctl_prom.o $(B)/libuet_io.a
$(B)/test_misc: TEST_LIBS += $(UET_IO_LIBS)

# Fuzz targets: the key file parser and the JobID policy parser, with the
# input as the file (seeds: test/fuzz/corpus/tss_keyfile, policy).
FUZZ_TARGETS	+= tss_keyfile policy
$(B)/fuzz/fuzz_tss_keyfile: test/fuzz/fuzz_tss_keyfile.c \
		$(B)/fuzz/obj/tools/uetd_tss.o
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -o $@ $^ -lcrypto

$(B)/fuzz/fuzz_policy: test/fuzz/fuzz_policy.c \
		$(B)/fuzz/obj/tools/uetd_policy_parse.o
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -o $@ $^
