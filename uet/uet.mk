# SPDX-License-Identifier: BSD-2-Clause
# libuet_io.a: the AF_XDP device (dev/), the engine (engine/) and TSS
# (tss/, on libcrypto, ipsec-mb and ISA-L); then uet/: the libfabric
# provider.
UET_IO_SRCS	:= $(DEV_SRCS) $(ENGINE_SRCS) $(TSS_SRCS)
UET_IO_OBJS	:= $(UET_IO_SRCS:%.c=$(B)/%.o)
UET_IO_LIBS	:= -lxdp -lbpf -lmnl -lcrypto -lIPSec_MB -lisal

$(B)/libuet_io.a: $(UET_IO_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

all: $(B)/libuet_io.a

# ---- the libfabric provider (issue 6) -----------------------------------------
# libuet-fi.so: a DL provider exporting only fi_prov_ini (every object is
# built with -fvisibility=hidden), with the transport linked in statically.
UET_FI_SRCS	:= uet/uet_init.c uet/uet_init_cc.c uet/uet_init_dp.c \
		   uet/uet_init_trace.c uet/uet_rudi.c uet/uet_attr.c uet/uet_iface.c \
		   uet/uet_addr.c uet/uet_fabric.c uet/uet_domain.c \
		   uet/uet_av.c uet/uet_av_tbl.c uet/uet_cq.c uet/uet_cntr.c \
		   uet/uet_eq.c \
		   uet/uet_ep.c uet/uet_mr.c uet/uet_rma.c uet/uet_rdmo.c \
		   uet/uet_progress.c \
		   uet/uet_progress_thread.c uet/uet_idle.c \
		   uet/uet_msg.c uet/uet_tagged.c uet/uet_msg_tx.c \
		   uet/uet_msg_rx.c uet/uet_atomic.c uet/uet_wait.c \
		   uet/uet_wait_set.c uet/uet_poll.c uet/uet_enosys.c \
		   uet/uet_enosys_ops.c uet/uet_rma_event.c uet/uet_op_level.c
UET_FI_OBJS	:= $(UET_FI_SRCS:%.c=$(B)/%.o)
UET_FI_LIBS	:= -lfabric

$(B)/libuet-fi.so: $(UET_FI_OBJS) $(B)/libuet_io.a $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(SAN_SO_LDFLAGS) -shared -Wl,--no-undefined \
		-Wl,-soname,libuet-fi.so -o $@ $^ $(UET_IO_LIBS) $(UET_FI_LIBS)

all: $(B)/libuet-fi.so

# test_io links the provider's objects (its unit tests call them directly)
# and libfabric, by path so that the other binaries keep their libraries;
# tests that go through fi_getinfo load $(B)/libuet-fi.so itself.
UET_FI_SO_PATH	:= $(shell $(CC) -print-file-name=libfabric.so)
$(B)/test_io: $(UET_FI_OBJS) $(UET_FI_SO_PATH) | $(B)/libuet-fi.so

# bench_av: an AV of a million entries, through the provider's objects
# linked in as test_io's (fi_getinfo loads $(B)/libuet-fi.so).
BENCH_BINS	+= $(B)/bench_av
$(B)/bench_av: $(B)/test/bench/bench_av.o $(UET_FI_OBJS) $(B)/libuet_io.a \
		$(B)/libuet_core.a $(UET_FI_SO_PATH) | $(B)/libuet-fi.so
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)
