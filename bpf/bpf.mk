# SPDX-License-Identifier: BSD-2-Clause
# bpf/: the XDP program, compiled with clang and wrapped in a bpftool
# skeleton ($(B)/uet_xdp.skel.h) that user space includes. bpftool's libbpf
# notes the .xdp_run_config section (libxdp's XDP_RUN_CONFIG, read by libxdp
# at attach, unknown to libbpf): that one line is dropped, any other shown.
BPF_ARCH_INC	:= /usr/include/$(shell $(CC) -print-multiarch)
BPF_CFLAGS	:= -target bpf -O2 -g -Wall -Wextra -Werror -I. -Iinclude \
		   -I$(BPF_ARCH_INC)
BPFTOOL		?= bpftool

$(B)/uet_xdp.bpf.o: bpf/uet_xdp.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/uet_xdp.skel.h: $(B)/uet_xdp.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name uet_xdp > $@ 2> $@.err; rc=$$?; \
		grep -v 'skipping unrecognized data section.*\.xdp_run_config' \
			$@.err >&2; rm -f $@.err; exit $$rc

all: $(B)/uet_xdp.skel.h

# The switch-port model for congestion-control tests (tc clsact egress on
# the emulated fabric's routers), loaded by $(B)/uet_port (test/test.mk).
$(B)/uet_port.bpf.o: bpf/uet_port.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/uet_port.skel.h: $(B)/uet_port.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name uet_port > $@

all: $(B)/uet_port.skel.h

# The service's maker of the XDP program's AES contexts (uet_xdp_tss.h).
$(B)/uet_tss_ctx.bpf.o: bpf/uet_tss_ctx.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/uet_tss_ctx.skel.h: $(B)/uet_tss_ctx.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name uet_tss_ctx > $@

all: $(B)/uet_tss_ctx.skel.h
