# SPDX-License-Identifier: BSD-2-Clause
# uet/: AF_XDP I/O (framing, netlink, the XSK engine, XDP program control),
# built into $(B)/libuet_io.a; later also the libfabric provider.
UET_IO_SRCS	:= uet/uet_frame.c uet/uet_nl.c uet/uet_xsk.c uet/uet_xdp_ctl.c \
		   uet/uet_engine.c uet/uet_engine_io.c uet/uet_mirror.c
UET_IO_OBJS	:= $(UET_IO_SRCS:%.c=$(B)/%.o)
UET_IO_LIBS	:= -lxdp -lbpf -lmnl

# uet_xdp_ctl.c includes the skeleton.
$(B)/uet/uet_xdp_ctl.o: $(B)/uet_xdp.skel.h
$(B)/uet/uet_xdp_ctl.o: CPPFLAGS += -I$(B)

$(B)/libuet_io.a: $(UET_IO_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

all: $(B)/libuet_io.a
