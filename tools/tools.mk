# SPDX-License-Identifier: BSD-2-Clause
# tools/: uetctl, the command-line tool for the XDP program.
UETCTL_OBJS	:= $(B)/tools/uetctl.o $(B)/tools/uetctl_capture.o

$(B)/uetctl: $(UETCTL_OBJS) $(B)/libuet_io.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS) -lpcap

all: $(B)/uetctl
