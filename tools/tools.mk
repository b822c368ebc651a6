# SPDX-License-Identifier: BSD-2-Clause
# tools/: uetctl, the command-line tool for the XDP program.
$(B)/uetctl: $(B)/tools/uetctl.o $(B)/libuet_io.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)

all: $(B)/uetctl
