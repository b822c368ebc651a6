# SPDX-License-Identifier: BSD-2-Clause
# test/: helper programs and the end-to-end tests run in network namespaces.
$(B)/xsk_peer: $(B)/test/progs/xsk_peer.o $(B)/libuet_io.a $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)

E2E_TESTS	:= test/e2e/e2e_xsk.sh test/e2e/e2e_uetctl.sh test/e2e/e2e_capture.sh \
		   test/e2e/e2e_engine.sh test/e2e/e2e_provider.sh
E2E_DEPS	:= $(B)/uetctl $(B)/xsk_peer $(B)/engine_peer

$(B)/bench_xsk: $(B)/test/bench/bench_xsk.o $(B)/libuet_io.a $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)

# Benchmark: SES over PDC in memory at 1 to 1M peers (prints bench: lines).
# --wrap routes the allocations of SES and PDC through the bench, which
# charges each to the side and layer it runs (bench_scale_mem.c).
BENCH_SCALE_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
BENCH_BINS	+= $(B)/bench_scale
$(B)/bench_scale: $(B)/test/bench/bench_scale.o \
		  $(B)/test/bench/bench_scale_mem.o $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(BENCH_SCALE_WRAP) -o $@ $^

# Benchmarks run by `make bench` that need a script around their program.
BENCH_SCRIPTS	+= test/bench/bench_xsk.sh
BENCH_DEPS	+= $(B)/bench_xsk $(B)/uetctl

# The tshark dissector test (issue 8): gen_uet_pcap writes hand-made UET
# frames with the codecs; e2e_dissector.sh decodes them with tools/uet.lua.
GEN_UET_PCAP_OBJS := $(B)/test/progs/gen_uet_pcap.o \
		     $(B)/test/progs/gen_uet_pcap_hdrs.o \
		     $(B)/test/progs/gen_uet_pcap_prot.o
$(B)/gen_uet_pcap: $(GEN_UET_PCAP_OBJS) $(B)/libuet_io.a $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)

all: $(B)/gen_uet_pcap
E2E_TESTS	+= test/e2e/e2e_dissector.sh
E2E_DEPS	+= $(B)/gen_uet_pcap

$(B)/engine_peer: $(B)/test/progs/engine_peer.o $(B)/libuet_io.a $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)

# libfabric RMA: uet beside tcp and udp;ofi_rxd (examples/ programs).
# (its programs are added to BENCH_DEPS in examples/examples.mk)
BENCH_SCRIPTS	+= test/bench/bench_rma.sh

# The RMA battery of issue 6 (plain libfabric, so it runs over tcp too):
# fi_rma_check's server and client, and the script that runs them between
# two namespaces (IPv4, IPv6, tcp, 5% loss, the server killed).
FI_RMA_CHECK_OBJS := $(B)/test/progs/fi_rma_check.o $(B)/test/progs/fi_rma_check_srv.o \
		     $(B)/test/progs/fi_rma_check_cli.o \
		     $(B)/test/progs/fi_rma_check_levels.o $(B)/examples/ex_common.o
$(B)/fi_rma_check: $(FI_RMA_CHECK_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_rma_check
E2E_TESTS	+= test/e2e/e2e_fi_rma.sh test/e2e/e2e_cc.sh
E2E_DEPS	+= $(B)/fi_rma_check $(B)/libuet-fi.so

# RUDI (issue 39): fi_rudi_check writes and reads an idempotent-safe region
# without a PDC, and misbehaves as a hostile peer; e2e_rudi.sh runs it.
$(B)/fi_rudi_check: $(B)/test/progs/fi_rudi_check.o $(B)/examples/ex_common.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_rudi_check
E2E_TESTS	+= test/e2e/e2e_rudi.sh
E2E_DEPS	+= $(B)/fi_rudi_check $(B)/libuet-fi.so

# Messaging of issue 7 (plain libfabric, so it runs over tcp too):
# fi_msg_check's harness and cases, and the script that runs them between
# two namespaces over uet (ordered and not) and tcp.
FI_MSG_COMMON_OBJS := $(B)/test/progs/fi_msg_check_setup.o \
		      $(B)/test/progs/fi_msg_check_util.o $(B)/examples/ex_common.o
FI_MSG_CHECK_OBJS := $(B)/test/progs/fi_msg_check.o $(B)/test/progs/fi_msg_check_cases.o \
		     $(B)/test/progs/fi_msg_check_recv.o \
		     $(B)/test/progs/fi_msg_check_levels.o $(FI_MSG_COMMON_OBJS)
$(B)/fi_msg_check: $(FI_MSG_CHECK_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_msg_check
E2E_TESTS	+= test/e2e/e2e_fi_msg.sh
E2E_DEPS	+= $(B)/fi_msg_check $(B)/libuet-fi.so

# Messaging benchmark: tagged latency and bandwidth, uet beside tcp and
# udp;ofi_rxd (fi_msg_bench shares fi_msg_check's set-up).
$(B)/fi_msg_bench: $(B)/test/progs/fi_msg_bench.o $(FI_MSG_COMMON_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_msg_bench
BENCH_SCRIPTS	+= test/bench/bench_msg.sh
BENCH_DEPS	+= $(B)/fi_msg_bench $(B)/libuet-fi.so $(B)/uetctl

# MPI over uet (issue 7): Open MPI's OFI MTL across namespaces. mpi_check
# is built with Open MPI's mpicc (openmpi-bin, libopenmpi-dev: make deps),
# only for the e2e test and the benchmark, so that a plain `make` needs no
# MPI.
# mpi_rate is the message rate of pairs of ranks, for the benchmark.
MPICC		?= mpicc
$(B)/mpi_check: test/progs/mpi/mpi_check.c
	$(call msg,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

$(B)/mpi_rate: test/progs/mpi/mpi_rate.c
	$(call msg,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

E2E_TESTS	+= test/e2e/e2e_mpi.sh
E2E_DEPS	+= $(B)/mpi_check $(B)/libuet-fi.so $(B)/uetctl
# A job of 64 ranks, 8 namespaces of 8, oversubscribed (issue 39). Out of
# check in session 33 while its uet job failed about a third of the runs;
# back since the idle ranks' naps are 10 ms (e2e_mpi64.sh says why).
E2E_TESTS	+= test/e2e/e2e_mpi64.sh
# Tests out of check while a known failure is open (make e2e-quarantine):
# none now.
E2E_QUARANTINE	?=
# Jobs of 2 and 8 ranks with receiver credits (FI_UET_CC=nscc,rccc), 3
# runs (issue 42 item 6; MPI_RCCC_RUNS=20 for fi_uet(7)'s count).
E2E_TESTS	+= test/e2e/e2e_mpi_rccc.sh
BENCH_SCRIPTS	+= test/bench/bench_mpi.sh
# The same jobs 20 times with each CC: the share that failed.
BENCH_SCRIPTS	+= test/bench/bench_mpi_cc.sh
BENCH_DEPS	+= $(B)/mpi_check $(B)/mpi_rate $(B)/libuet-fi.so \
		   $(B)/uetctl $(B)/uetd

# Atomics of issue 7 (plain libfabric): every op and type against a
# reference, over uet and tcp.
$(B)/fi_atomic_check: $(B)/test/progs/fi_atomic_check.o $(B)/examples/ex_common.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_atomic_check
E2E_TESTS	+= test/e2e/e2e_fi_atomic.sh
E2E_DEPS	+= $(B)/fi_atomic_check $(B)/libuet-fi.so

# Fetching atomics with 1 to 64 in flight (issue 11, plain libfabric): old
# values a permutation, compare-and-swaps one chain, no result buffer
# written after its completion; over uet (and 5% loss) and tcp.
$(B)/fi_amo_window: $(B)/test/progs/fi_amo_window.o $(B)/examples/ex_common.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_amo_window
E2E_TESTS	+= test/e2e/e2e_fi_amo_window.sh
E2E_DEPS	+= $(B)/fi_amo_window $(B)/libuet-fi.so $(B)/uetctl

# The host as a FEP (issue 12, plain libfabric): many endpoints of one
# process on one interface, every byte and message checked at its own
# endpoint; expected failures, a peer that goes away, endpoints held open.
FI_FEP_CHECK_OBJS := $(B)/test/progs/fi_fep_check.o \
		     $(B)/test/progs/fi_fep_check_srv.o \
		     $(B)/test/progs/fi_fep_check_cli.o $(B)/examples/ex_common.o
$(B)/fi_fep_check: $(FI_FEP_CHECK_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_fep_check
# Between namespaces: 16 endpoints a side, jobs kept apart, unprivileged
# users, the service's list of endpoints, one of 4 servers killed, and the
# service's clean failures.
E2E_TESTS	+= test/e2e/e2e_fep.sh
E2E_DEPS	+= $(B)/fi_fep_check $(B)/libuet-fi.so $(B)/uetd
# uetctl stats --prometheus (issue 44): counters and an endpoint's labels
# after traffic, read by python3-prometheus-client; --textfile --interval.
E2E_TESTS	+= test/e2e/e2e_prom.sh
E2E_DEPS	+= $(B)/fi_fep_check $(B)/libuet-fi.so $(B)/uetd $(B)/uetctl
# Hundreds of endpoints on one interface (issue 39): --endpoints 300 and
# its limits, 300 endpoints a side checked; the default as before.
E2E_TESTS	+= test/e2e/e2e_eps.sh

# Endpoints of one interface talking to each other (issue 12).
E2E_TESTS	+= test/e2e/e2e_local.sh
# Local channels and users (issue 32): nobody's pair through the channel,
# another user's initiator by frames, another job's refused (a write, and
# a send at both completion levels: fi_one_send, issue 41).
$(B)/fi_one_send: $(B)/test/progs/fi_one_send.o $(B)/examples/ex_common.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_one_send
E2E_TESTS	+= test/e2e/e2e_local_users.sh
E2E_DEPS	+= $(B)/fi_msg_check $(B)/fi_rma_check $(B)/fi_atomic_check \
		   $(B)/fi_rdmo_check $(B)/uet_write $(B)/fi_one_send \
		   $(B)/libuet-fi.so $(B)/uetd
# Progress that yields (issue 41): an idle endpoint's CPU time while it
# waits in fi_cq_sread, in epoll and polling; an oversubscribed MPI job.
$(B)/fi_idle_check: $(B)/test/progs/fi_idle_check.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_idle_check
E2E_TESTS	+= test/e2e/e2e_local_idle.sh
E2E_DEPS	+= $(B)/fi_idle_check $(B)/mpi_check $(B)/mpi_multi_lat \
		   $(B)/libuet-fi.so $(B)/uetd

# The device service's JobID policy file (issue 12).
E2E_TESTS	+= test/e2e/e2e_policy.sh
E2E_DEPS	+= $(B)/uet_write $(B)/libuet-fi.so $(B)/uetd $(B)/uetctl

# What libfabric programs expect (issue 13): Debian's fi_pingpong over uet
# as an unprivileged user; a target that exits right after its last
# completion (fi_exit_target, plain libfabric, addressed by node and a
# port-like service); two services mapped to one PIDonFEP.
$(B)/fi_exit_target: $(B)/test/progs/fi_exit_target.o $(B)/examples/ex_common.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_exit_target
E2E_TESTS	+= test/e2e/e2e_fi_programs.sh
E2E_DEPS	+= $(B)/fi_exit_target $(B)/fi_fep_check $(B)/libuet-fi.so \
		   $(B)/uetd $(B)/uetctl

# Returning clients (issue 13, plain libfabric): one server stays up while
# client processes come and go on the same address and endpoint index;
# each new one must start clean (writes, reads and sends all its own).
$(B)/fi_return_check: $(B)/test/progs/fi_return_check.o $(B)/examples/ex_common.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_return_check
E2E_TESTS	+= test/e2e/e2e_returning.sh
E2E_DEPS	+= $(B)/fi_return_check $(B)/libuet-fi.so $(B)/uetctl

# libfabric 2.6 and the fabtests of 1.17 and 2.6, built from the tarballs
# in ../shared/vendor into $(B)/vendor (issue 33); the script rebuilds a
# tree only when its tarball's checksum changed.
.PHONY: vendor
vendor:
	$(Q)B=$(B) bash test/vendor/build.sh

# libfabric's fabtests as a reference (issues 13, 33), over tcp and uet,
# for libfabric 1.17 (the system's) and 2.6; and libfabric 2.6 finds uet.
# `make fabtests FABTESTS=DIR` runs an installed fabtests build instead.
E2E_TESTS	+= test/e2e/e2e_libfabric2.sh test/e2e/fabtests.sh
E2E_DEPS	+= vendor $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd
.PHONY: fabtests
fabtests: $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd $(if $(FABTESTS),,vendor)
	$(Q)B=$(B) FABTESTS="$(FABTESTS)" bash test/e2e/fabtests.sh

# Fuzz target: the engine's receive path (issue 14) over a fake device
# layer, with frames from forged sources. The engine files are built with
# the clock and the random source renamed to the fakes', so that a run
# replays the same.
FUZZ_TARGETS	+= engine_rx
ENGINE_FUZZ_OBJS = $(ENGINE_SRCS:%.c=$(B)/fuzz/eobj/%.o) \
		   $(B)/fuzz/obj/dev/uet_frame.o $(B)/fuzz/obj/dev/uet_dev_wake.o
$(B)/fuzz/eobj/%.o: %.c
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) $(DEPFLAGS) \
		-Dclock_gettime=fake_clock_gettime \
		-Dgetrandom=fake_getrandom -c $< -o $@
# What every engine fuzzer links: the engine, the fakes and the shared
# part of the fuzzers (fuzz_engine_common.c), the codecs and TSS. The
# engine's kept netlink socket and its lookups that never wait are faked
# as its uet_nl_resolve() is (every address known).
ENGINE_FUZZ_DEPS = test/fuzz/fuzz_engine_fakes.c \
		   test/fuzz/fuzz_engine_nl_fakes.c \
		   test/fuzz/fuzz_engine_common.c $(ENGINE_FUZZ_OBJS) \
		   $(PDC_SRCS:%.c=$(B)/fuzz/obj/%.o) \
		   $(SES_SRCS:%.c=$(B)/fuzz/obj/%.o) \
		   $(TSS_SRCS:%.c=$(B)/fuzz/obj/%.o)
$(B)/fuzz/fuzz_engine_rx: test/fuzz/fuzz_engine_rx.c $(ENGINE_FUZZ_DEPS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -o $@ $(filter %.c %.o,$^) \
		-lcrypto -lIPSec_MB -lisal

# The seeds of the engine fuzzers that take wire data, from the real
# encoders and sealer: `make fuzz-seeds` writes them again (the same
# bytes) after a change of their input formats.
$(B)/fuzz_seeds: $(B)/test/fuzz/fuzz_seeds.o $(TSS_OBJS) $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(TSS_LIBS)

.PHONY: fuzz-seeds
fuzz-seeds: $(B)/fuzz_seeds
	$(Q)mkdir -p test/fuzz/corpus/tss_rx test/fuzz/corpus/local_rx
	$(Q)$(B)/fuzz_seeds test/fuzz/corpus

# Fuzz target: the local channels' records (issue 43) through a target
# engine's inbox, from endpoints the fuzzer plays; seeds in
# test/fuzz/corpus/local_rx.
FUZZ_TARGETS	+= local_rx
$(B)/fuzz/fuzz_local_rx: test/fuzz/fuzz_local_rx.c test/fuzz/fuzz_local_rx.h \
		$(ENGINE_FUZZ_DEPS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -o $@ $(filter %.c %.o,$^) \
		-lcrypto -lIPSec_MB -lisal

# Fuzz target: sealed frames (issue 43) into a target engine with the keys
# of an SD, sealed from the input's PDS packets by the real sealer and
# mutated, trimmed, replayed; seeds in test/fuzz/corpus/tss_rx.
FUZZ_TARGETS	+= tss_rx
$(B)/fuzz/fuzz_tss_rx: test/fuzz/fuzz_tss_rx.c test/fuzz/fuzz_tss_rx.h \
		$(ENGINE_FUZZ_DEPS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -o $@ $(filter %.c %.o,$^) \
		-lcrypto -lIPSec_MB -lisal

# Floods and replays of rejected frames (issue [R]): fi_flood_check (plain
# libfabric) is the target and the legitimate client; uet_flood builds the
# flood of SYNs and the replays from the codecs (UDP or raw AF_PACKET).
$(B)/fi_flood_check: $(B)/test/progs/fi_flood_check.o $(B)/examples/ex_common.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_flood_check

$(B)/uet_flood: $(B)/test/progs/uet_flood.o $(B)/libuet_io.a $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)

all: $(B)/uet_flood

# Three hosts: a SYN flood (UDP and spoofed) while a client writes, with its
# PDC live and closed for idleness before.
E2E_TESTS	+= test/e2e/e2e_flood.sh
E2E_DEPS	+= $(B)/fi_flood_check $(B)/uet_flood $(B)/libuet-fi.so \
		   $(B)/uetctl $(B)/uetd
# A client's next message_ids in every kind of rejected frame, from its own
# address (learnt from a capture of its frames): its next writes must be
# untouched.
E2E_TESTS	+= test/e2e/e2e_replay.sh
E2E_DEPS	+= $(B)/fi_flood_check $(B)/uet_flood $(B)/libuet-fi.so \
		   $(B)/uetctl $(B)/uetd

# A second uetctl load from a shell with pins of its own (issue 15): refused,
# and the first program stays attached and working.
E2E_TESTS	+= test/e2e/e2e_load_twice.sh
E2E_DEPS	+= $(B)/uet_write $(B)/libuet-fi.so $(B)/uetd $(B)/uetctl

# The device service restarted (kill -9, SIGTERM) under a verified stream,
# an endpoint opened while it is down, its interface deleted and made
# again (issue 43): tools/uetd_takeover.c, tools/uetd_link.c.
E2E_TESTS	+= test/e2e/e2e_uetd_restart.sh
E2E_DEPS	+= $(B)/fi_soak $(B)/uet_write $(B)/uet_pingpong $(B)/uet_bw \
		   $(B)/libuet-fi.so $(B)/uetd $(B)/uetctl

# The Debian packages (issue 15): make deb, apt-get install, the provider,
# uetctl, the man pages and the dissector used with no environment, then
# dpkg --purge leaves nothing.
E2E_TESTS	+= test/e2e/e2e_deb.sh
E2E_DEPS	+= $(B)/gen_uet_pcap

# Loss and faults, verified (issue [R]): fi_soak (plain libfabric) writes
# or sends verified data for long, and is the survivor when its peer is
# killed with -9. e2e_soak.sh: RMA and tagged at 5% and 30% loss each way
# (SOAK_GIB=N for a longer run: `make soak-loss`); e2e_kill.sh: kill -9 of
# either side mid-transfer; e2e_mpi_kill.sh: a rank of a loop of
# MPI_Allreduce killed at random.
FI_SOAK_OBJS	:= $(B)/test/progs/fi_soak.o $(B)/test/progs/fi_soak_cli.o \
		   $(B)/test/progs/fi_soak_srv.o $(B)/test/progs/fi_soak_mix.o \
		   $(B)/examples/ex_common.o
$(B)/fi_soak: $(FI_SOAK_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_soak
E2E_TESTS	+= test/e2e/e2e_soak.sh
E2E_DEPS	+= $(B)/fi_soak $(B)/libuet-fi.so $(B)/uetctl

# 8 GiB verified under loss between two namespaces (not in `check`).
.PHONY: soak-loss
soak-loss: $(B)/fi_soak $(B)/libuet-fi.so $(B)/uetctl
	$(Q)B=$(B) SOAK_GIB=$(or $(SOAK_GIB),8) bash test/e2e/e2e_soak.sh
# The long soak (issue 43): mixed traffic among 8 endpoints over the
# emulated fabric with loss, blackholed links and service restarts, every
# operation verified, RSS and descriptors flat; `make soak` runs it for
# SOAK_MIN minutes (30; SOAK_MIN=3 for a short one). Not in `make check`
# (issue 43 asks for it apart).
.PHONY: soak
soak: $(B)/fi_soak $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd
	$(Q)B=$(B) SOAK_MIN=$(or $(SOAK_MIN),30) bash test/e2e/e2e_soak_mix.sh
E2E_TESTS	+= test/e2e/e2e_kill.sh
E2E_DEPS	+= $(B)/fi_soak $(B)/libuet-fi.so $(B)/uetctl
# Link flaps (issue 43): either host's link down 2 s mid-stream, and 3 s
# past a short retry budget; fi_soak -E posts what failed again, and every
# byte and message is checked once.
E2E_TESTS	+= test/e2e/e2e_link_flap.sh
E2E_DEPS	+= $(B)/fi_soak $(B)/libuet-fi.so $(B)/uetctl
# The same between two endpoints of one interface: their local channel.
E2E_TESTS	+= test/e2e/e2e_kill_local.sh

# Random kills during a loop of MPI_Allreduce (Open MPI's mpicc, as
# mpi_check).
$(B)/mpi_allreduce_loop: test/progs/mpi/mpi_allreduce_loop.c
	$(call msg,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

E2E_TESTS	+= test/e2e/e2e_mpi_kill.sh
E2E_DEPS	+= $(B)/mpi_allreduce_loop $(B)/libuet-fi.so $(B)/uetctl

# Endpoints of one host (issue 32): uet's local path beside libfabric's shm
# and tcp (Debian's fi_pingpong; fi_msg_bench's medians and stream), Open MPI
# over uet beside its own shared memory (vader): mpi_check's ping-pong and
# mpi_allreduce's MPI_Allreduce latency, two ranks of one namespace.
$(B)/mpi_allreduce: test/progs/mpi/mpi_allreduce.c
	$(call msg,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

BENCH_SCRIPTS	+= test/bench/bench_local.sh
BENCH_DEPS	+= $(B)/fi_msg_bench $(B)/mpi_check $(B)/mpi_allreduce \
		   $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd

# The same 8 B ping-pong counted in instructions under callgrind, uet beside
# shm: a figure of the local path's software cost that the machine's noise
# does not move (bench_local_ir).
BENCH_SCRIPTS	+= test/bench/bench_local_ir.sh
BENCH_DEPS	+= $(B)/fi_msg_bench $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd

# Progress that yields (issue 41): every pair of ranks pinging at once
# (osu_multi_lat's shape), more ranks than cores; bench_local_yield.
$(B)/mpi_multi_lat: test/progs/mpi/mpi_multi_lat.c
	$(call msg,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

BENCH_SCRIPTS	+= test/bench/bench_local_yield.sh
BENCH_DEPS	+= $(B)/fi_msg_bench $(B)/mpi_multi_lat $(B)/libuet-fi.so \
		   $(B)/uetctl $(B)/uetd

# Next hops (issue [R] hostile peers, items 4 and 5): fi_neigh_check's
# client writes to an address nobody answers ARP for (FI_EHOSTUNREACH
# within the bound, writes to the real server completing meanwhile) and
# times its first write to a peer nobody resolved yet; fi_neigh_forge
# sends requests with a forged source MAC from a raw socket and watches
# where the target's answers go.
$(B)/fi_neigh_check: $(B)/test/progs/fi_neigh_check.o $(B)/examples/ex_common.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

$(B)/fi_neigh_forge: $(B)/test/progs/fi_neigh_forge.o $(B)/libuet_io.a \
		     $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)

all: $(B)/fi_neigh_check $(B)/fi_neigh_forge
E2E_TESTS	+= test/e2e/e2e_neigh.sh
E2E_DEPS	+= $(B)/fi_neigh_check $(B)/fi_neigh_forge $(B)/libuet-fi.so \
		   $(B)/uetctl

# RDMO benchmark: 8-byte appends of <rdma/fi_ext_uet.h> against the same
# work done one-sided (fi_fetch_atomic FI_SUM, then fi_write), 64 and 1 in
# flight, every run's queue and pointers checked.
$(B)/fi_rdmo_bench: $(B)/test/progs/fi_rdmo_bench.o $(B)/examples/ex_common.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_rdmo_bench
BENCH_SCRIPTS	+= test/bench/bench_rdmo.sh
BENCH_DEPS	+= $(B)/fi_rdmo_bench $(B)/libuet-fi.so $(B)/uetctl

# Remote memory operations (<rdma/fi_ext_uet.h>, plain libfabric and the
# provider's extension): two clients' pipelined appends to one queue,
# scatters, refusals, flushes seen by the target before any call of its
# own; with and without FI_MR_VIRT_ADDR.
FI_RDMO_CHECK_OBJS := $(B)/test/progs/fi_rdmo_check.o \
		      $(B)/test/progs/fi_rdmo_check_srv.o \
		      $(B)/test/progs/fi_rdmo_check_verify.o \
		      $(B)/test/progs/fi_rdmo_check_cli.o \
		      $(B)/test/progs/fi_rdmo_check_cli_err.o $(B)/examples/ex_common.o
$(B)/fi_rdmo_check: $(FI_RDMO_CHECK_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_rdmo_check
E2E_TESTS	+= test/e2e/e2e_rdmo.sh
E2E_DEPS	+= $(B)/fi_rdmo_check $(B)/libuet-fi.so $(B)/uetctl

# Zero-copy with copy mode as the fallback (issue 17): what veth shows.
E2E_TESTS	+= test/e2e/e2e_zerocopy.sh
E2E_DEPS	+= $(B)/uet_pingpong $(B)/uet_bw $(B)/libuet-fi.so $(B)/uetctl \
		   $(B)/uetd

# Several rx queues per interface, one queue per endpoint (issue 17).
E2E_TESTS	+= test/e2e/e2e_multiqueue.sh
E2E_DEPS	+= $(B)/uet_pingpong $(B)/uet_bw $(B)/libuet-fi.so $(B)/uetctl \
		   $(B)/uetd

# The emulated fabric (test/fabric/fabric_lib.sh): hosts and ECMP routers
# in namespaces, tbf queues on the routers' ports, injected failures.
# e2e_fabric.sh checks the fabric itself and runs uet across 4 paths;
# bench_fabric.sh: one uet flow and one tcp flow across 4 paths.
E2E_TESTS	+= test/e2e/e2e_fabric.sh
E2E_DEPS	+= $(B)/uet_bw $(B)/fi_soak $(B)/libuet-fi.so $(B)/uetctl \
		   $(B)/uetd
BENCH_SCRIPTS	+= test/bench/bench_fabric.sh
BENCH_DEPS	+= $(B)/uet_bw $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd

# uet on the emulated fabric (issue 29): spraying over 4 paths, a dead
# link survived and a restored one used again, messaging over ROD and
# RUD, the RMA battery and MPI across the routers.
E2E_TESTS	+= test/e2e/e2e_multipath.sh
E2E_DEPS	+= $(B)/fi_soak $(B)/fi_msg_check $(B)/fi_rma_check \
		   $(B)/mpi_check $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd
BENCH_SCRIPTS	+= test/bench/bench_multipath.sh
BENCH_DEPS	+= $(B)/uet_bw $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd

# The switch-port model (issue [C], item 5): uet_port attaches
# bpf/uet_port.bpf.c to a router's port and reads its counters (libbpf
# only); uet_port_udp paces UDP of a chosen TOS byte and counts what
# arrives by TOS and length. e2e_port_model.sh: marks, trims and drops on
# a star's bottleneck port.
$(B)/test/progs/uet_port.o: $(B)/uet_port.skel.h
$(B)/test/progs/uet_port.o: CPPFLAGS += -I$(B)
$(B)/uet_port: $(B)/test/progs/uet_port.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lbpf

$(B)/uet_port_udp: $(B)/test/progs/uet_port_udp.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^

all: $(B)/uet_port $(B)/uet_port_udp
E2E_TESTS	+= test/e2e/e2e_port_model.sh
E2E_DEPS	+= $(B)/uet_port $(B)/uet_port_udp

# Congestion control on the star (issue [C]): 4:1, 8:1 and 16:1 incasts
# through the switch-port model (time over the line-rate ideal, drops,
# marks, trims, Jain's fairness, a small flow's latency), a flow alone
# and two sharing a port; uet beside tcp cubic with ECN and tcp bbr.
BENCH_SCRIPTS	+= test/bench/bench_incast.sh
BENCH_DEPS	+= $(B)/uet_bw $(B)/uet_pingpong $(B)/uet_port \
		   $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd

# TSS (issue [T]): sealed writes verify and show nothing in clear; a third
# host's replayed, tampered and other-domain frames are dropped and counted
# while the target's region stays as it was; a key rotation under traffic
# loses nothing; two jobs of two domains on one interface.
$(B)/tss_inject: $(B)/test/progs/tss_inject.o $(B)/libuet_io.a $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS) -lpcap

all: $(B)/tss_inject
E2E_TESTS	+= test/e2e/e2e_tss.sh test/e2e/e2e_mpi_tss.sh
E2E_DEPS	+= $(B)/tss_inject $(B)/fi_flood_check $(B)/uet_write \
		   $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd $(B)/mpi_check
# What TSS costs: the same run with it off and on, and the cipher's speed.
BENCH_SCRIPTS	+= test/bench/bench_tss_rma.sh
BENCH_DEPS	+= $(B)/uet_pingpong $(B)/uet_bw $(B)/libuet-fi.so $(B)/uetctl \
		   $(B)/uetd $(B)/bench_tss

# uetd's TSS keys (tools/uetd_tss*.c): the key file's checks, the keys and
# epochs an endpoint gets, reload, the SDI map.
$(B)/tss_keys: $(B)/test/progs/tss_keys.o $(B)/libuet_io.a $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)

$(B)/tss_send: $(B)/test/progs/tss_send.o $(B)/libuet_io.a $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)

all: $(B)/tss_keys $(B)/tss_send
E2E_TESTS	+= test/e2e/e2e_tss_keys.sh test/e2e/e2e_tss_eps.sh \
		   test/e2e/e2e_tss_trim.sh
E2E_DEPS	+= $(B)/tss_keys $(B)/tss_send $(B)/uetd

# Many peers at once (issue 39): fi_scale_check (plain libfabric), one
# target and many initiator endpoints, or an all-to-all of many endpoints
# over many namespaces.
$(B)/fi_scale_check: $(B)/test/progs/fi_scale_check.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lfabric

all: $(B)/fi_scale_check
E2E_TESTS	+= test/e2e/e2e_scale.sh
E2E_DEPS	+= $(B)/fi_scale_check $(B)/libuet-fi.so
BENCH_SCRIPTS	+= test/bench/bench_scale_e2e.sh
BENCH_DEPS	+= $(B)/fi_scale_check $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd

# The XDP program reading sealed headers: its unit test runs the context
# maker's skeleton too (bpf/uet_tss_ctx.bpf.c).
$(B)/test/unit/io/test_io_xdp_tss_read.o: $(B)/uet_tss_ctx.skel.h

# What reading sealed headers costs the XDP program (bench: lines; root).
BENCH_BINS	+= $(B)/bench_tss_xdp
$(B)/test/bench/bench_tss_xdp.o: $(B)/uet_xdp.skel.h $(B)/uet_tss_ctx.skel.h
$(B)/test/bench/bench_tss_xdp.o: CPPFLAGS += -I$(B)
$(B)/bench_tss_xdp: $(B)/test/bench/bench_tss_xdp.o $(B)/libuet_io.a \
		    $(B)/libuet_core.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(UET_IO_LIBS)
all: $(B)/bench_tss_xdp

# uetctl top (issue 44): a ping-pong's two endpoints, root's and nobody's,
# seen moving by top --once (root in one namespace, nobody in the other).
E2E_TESTS	+= test/e2e/e2e_top.sh
E2E_DEPS	+= $(B)/uet_pingpong $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd

# FI_UET_TRACE (engine/uet_engine_trace.c): uet_bw's processes each write
# their PDCs' congestion state into trace.PID; an unwritable path warns.
E2E_TESTS	+= test/e2e/e2e_trace.sh
E2E_DEPS	+= $(B)/uet_bw $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd

# Congestion control's link rate (dev/uet_link.c, uet_cc_link_mbps): veth's
# nominal speed said and 100000 Mbit/s assumed; FI_UET_LINK_MBPS obeyed,
# each checked in NSCC's largest window through FI_UET_TRACE.
E2E_TESTS	+= test/e2e/e2e_link_rate.sh
E2E_DEPS	+= $(B)/uet_bw $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd

# A next hop the kernel cannot resolve: FI_EHOSTUNREACH; by hand
# (E2E_NEIGH_FULL=1), its neighbour table full: FI_ENOBUFS and a warning
# that names the setting (engine/uet_engine_neigh.c).
E2E_TESTS	+= test/e2e/e2e_neigh_full.sh
E2E_DEPS	+= $(B)/fi_scale_check $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd

# Destination flow control (pdc_rx_backlog, FI_UET_DFC): 16 endpoints of
# two processes write 2 MiB each into one; its ring backs up, its ACKs
# brake the initiators and release them; every slot verified.
E2E_TESTS	+= test/e2e/e2e_dfc.sh
E2E_DEPS	+= $(B)/fi_scale_check $(B)/libuet-fi.so $(B)/uetctl $(B)/uetd
