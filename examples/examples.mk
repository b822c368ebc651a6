# SPDX-License-Identifier: BSD-2-Clause
# examples/: plain libfabric programs (any provider) used by the demo, the
# end-to-end tests and the benchmarks.
EX_COMMON_OBJ	:= $(B)/examples/ex_common.o
EX_PROGS	:= $(B)/uet_write $(B)/uet_pingpong $(B)/uet_bw

$(B)/uet_%: $(B)/examples/uet_%.o $(EX_COMMON_OBJ)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(EX_PROGS)
BENCH_DEPS	+= $(EX_PROGS) $(B)/libuet-fi.so
# test/e2e/e2e_provider.sh runs them over the provider.
E2E_DEPS	+= $(EX_PROGS) $(B)/libuet-fi.so
