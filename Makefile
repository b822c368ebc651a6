# SPDX-License-Identifier: BSD-2-Clause
# The uet provider: one non-recursive Makefile. Everything builds into build/.
# `make V=1` shows the full commands.

PREFIX		?= /usr/local
EXEC_PREFIX	?= $(PREFIX)
LIBDIR		?= $(EXEC_PREFIX)/lib
SBINDIR		?= $(EXEC_PREFIX)/sbin
DATADIR		?= $(PREFIX)/share
DOCDIR		?= $(DATADIR)/doc/uet
MANDIR		?= $(DATADIR)/man
INCLUDEDIR	?= $(PREFIX)/include
DESTDIR		?=

CC		?= cc
CLANG		?= clang
# SANITIZE=address,undefined builds with those sanitizers into build-san/
# (a tree of their own: objects of both kinds never mix); test/san/san.mk.
SANITIZE	?=
B		:= $(if $(SANITIZE),build-san,build)

CPPFLAGS	+= -I. -Iinclude
CFLAGS		?= -g -O2
CFLAGS		+= -std=gnu11 -Wall -Wextra -Werror -fPIC -fvisibility=hidden
# Every compile and every link takes CFLAGS, so the sanitizers go there (a
# CFLAGS given on the command line would drop them with the rest of the
# += part). Not the BPF objects (BPF_CFLAGS) nor the fuzzers (FUZZ_CFLAGS).
# With clang, not gcc: gcc's UBSan (libubsan) beside its ASan (libasan)
# never writes to UBSAN_OPTIONS' log_path (libubsan's own call to set it
# binds to libasan's copy, both being exported), so its reports would go
# to stderr, which e2e scripts keep from us; clang's UBSan is part of its
# ASan runtime and writes where ASan does. That runtime is shared
# (-shared-libsan), so that libuet-fi.so, loaded by libfabric, uses the
# program's, and found by the rpath. clang warns of the link flags on
# compile commands, which take CFLAGS too.
ifneq ($(SANITIZE),)
CC		:= $(CLANG)
SAN_RT		:= $(shell $(CLANG) -print-file-name=libclang_rt.asan-x86_64.so)
SAN_CFLAGS	:= -fsanitize=$(SANITIZE) -fno-omit-frame-pointer \
		   -fno-sanitize-recover=all -shared-libsan \
		   -Wl,-rpath,$(dir $(SAN_RT)) -Wno-unused-command-line-argument
CFLAGS		+= $(SAN_CFLAGS)
# libfabric unloads its providers at exit (dlclose, in fi_fini) before
# LSan looks for leaks, whose stacks would then show an unknown module
# where the provider's frames were: it stays loaded.
SAN_SO_LDFLAGS	:= -Wl,-z,nodelete
endif
DEPFLAGS	= -MMD -MP

# Fuzzers: libFuzzer with ASan and UBSan; FUZZ_SECONDS per target in `check`.
FUZZ_CFLAGS	:= -std=gnu11 -g -O1 -Wall -Wextra -Werror \
		   -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_SECONDS	?= 10

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' $(1) $(2)
endif

.DELETE_ON_ERROR:
.SECONDARY:
.SUFFIXES:
.PHONY: all check unit e2e e2e-quarantine fuzz fuzz-run bench bench-smoke bench-report \
	readme-plot report-check install uninstall deps clean \
	demo man deb

all:

# ---- wire codecs ------------------------------------------------------------
# Each layer lists its sources (and benchmarks) in its own fragment.
PDC_SRCS	:=
SES_SRCS	:=
BENCH_BINS	:=
BENCH_SCRIPTS	:=
BENCH_DEPS	:=
# Fuzz targets: the codec decoders (test/fuzz/fuzz_decode.c) here; fragments
# append their own, each with an explicit rule for $(B)/fuzz/fuzz_<name>.
FUZZ_TARGETS	:= pdc_prologue pdc_req pdc_rudi pdc_uud pdc_ack pdc_nack \
		   pdc_ctl pdc_hdr ses_std_hdr ses_small_hdr ses_medium_hdr \
		   ses_atomic_ext ses_cas_ext ses_rdv_ext ses_rsp_hdr \
		   ses_rsp_data_hdr ses_rsp_data_small_hdr
include pdc/pdc.mk ses/ses.mk bpf/bpf.mk dev/dev.mk engine/engine.mk \
		  tss/tss.mk uet/uet.mk tools/tools.mk test/test.mk examples/examples.mk
CORE_SRCS	:= $(PDC_SRCS) $(SES_SRCS)
CORE_OBJS	:= $(CORE_SRCS:%.c=$(B)/%.o)

$(B)/libuet_core.a: $(CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

all: $(B)/libuet_core.a

$(B)/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# ---- unit tests (Criterion) --------------------------------------------------
# One binary per layer, so that layers are built and tested independently:
# test/unit/pdc/ -> test_pdc, test/unit/ses/ -> test_ses, test/unit/io/ ->
# test_io (AF_XDP, XDP and the provider; some need root), test/unit/tss/ ->
# test_tss (with libcrypto), test/unit/*.c -> test_misc.
TEST_PDC_SRCS	:= $(wildcard test/unit/pdc/test_*.c)
TEST_SES_SRCS	:= $(wildcard test/unit/ses/test_*.c)
TEST_IO_SRCS	:= $(wildcard test/unit/io/test_*.c)
TEST_TSS_SRCS	:= $(wildcard test/unit/tss/test_*.c)
TEST_MISC_SRCS	:= $(wildcard test/unit/test_*.c)
UNIT_BINS	:= $(B)/test_pdc $(B)/test_ses $(B)/test_io $(B)/test_tss \
		   $(B)/test_misc

$(B)/test_pdc: $(TEST_PDC_SRCS:%.c=$(B)/%.o) $(B)/libuet_core.a
$(B)/test_ses: $(TEST_SES_SRCS:%.c=$(B)/%.o) $(B)/libuet_core.a
$(B)/test_io: $(TEST_IO_SRCS:%.c=$(B)/%.o) $(B)/libuet_io.a $(B)/libuet_core.a
$(B)/test_tss: $(TEST_TSS_SRCS:%.c=$(B)/%.o) $(TSS_OBJS)
$(B)/test_misc: $(TEST_MISC_SRCS:%.c=$(B)/%.o) $(B)/libuet_core.a
$(B)/test_tss: TEST_LIBS = $(TSS_LIBS)
$(B)/test_io: TEST_LIBS = $(UET_IO_LIBS)
$(TEST_IO_SRCS:%.c=$(B)/%.o): $(B)/uet_xdp.skel.h
$(TEST_IO_SRCS:%.c=$(B)/%.o): CPPFLAGS += -I$(B)
$(UNIT_BINS):
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lcriterion -lm $(TEST_LIBS)

# Each stage of `check` leaves "PASSED FAILED" lines in $(B)/.tally-<stage>;
# check sums them into its closing line.
unit: $(UNIT_BINS)
	$(Q): > $(B)/.tally-unit
	$(Q)for t in $(UNIT_BINS); do echo "  TEST     $$t"; \
		$$t --jobs 2 > $(B)/.unit.log 2>&1; rc=$$?; cat $(B)/.unit.log; \
		sed -n 's/.*Passing: \([0-9]*\) | Failing: \([0-9]*\).*/\1 \2/p' \
			$(B)/.unit.log >> $(B)/.tally-unit; \
		[ $$rc = 0 ] || exit 1; done

include test/san/san.mk

# ---- fuzzers (one libFuzzer target per decoder) -----------------------------
FUZZ_BINS	:= $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)

FUZZ_CORE_OBJS	:= $(CORE_SRCS:%.c=$(B)/fuzz/obj/%.o)

$(B)/fuzz/obj/%.o: %.c
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/fuzz/fuzz_%: test/fuzz/fuzz_decode.c $(FUZZ_CORE_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -DFUZZ_TARGET=$* \
		-o $@ test/fuzz/fuzz_decode.c $(FUZZ_CORE_OBJS)

fuzz: $(FUZZ_BINS)

# Runs every fuzzer for FUZZ_SECONDS; fails on the first crash and prints
# the executions per target.
fuzz-run: $(FUZZ_BINS)
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) test/fuzz/run-fuzzers.sh $(B) \
		$(FUZZ_TARGETS) > $(B)/.fuzz.log 2>&1; rc=$$?; cat $(B)/.fuzz.log; \
	echo "$$(grep -c ' runs in ' $(B)/.fuzz.log) $$(grep -c CRASHED $(B)/.fuzz.log)" \
		> $(B)/.tally-fuzz; exit $$rc

# End-to-end scripts (E2E_TESTS, from the fragments) each print "e2e: NAME
# ... ok" lines and exit non-zero on failure. Defined after every fragment
# is read, so that E2E_DEPS is complete when the rule is made.
# Tests taken out of check while a known failure is open (test/test.mk
# says why); run by hand, as e2e runs its own.
e2e-quarantine: $(E2E_DEPS)
	$(Q)for t in $(E2E_QUARANTINE); do echo "  E2E      $$t"; \
		B=$(B) bash $$t || exit 1; done

e2e: $(E2E_DEPS)
	$(Q): > $(B)/.tally-e2e
	$(Q)for t in $(E2E_TESTS); do echo "  E2E      $$t"; t0=$$(date +%s); \
		B=$(B) bash $$t > $(B)/.e2e.log 2>&1; rc=$$?; cat $(B)/.e2e.log; \
		echo "  E2E      $$t: $$(( $$(date +%s) - t0 )) s"; \
		echo "$$(grep -c ' ok$$' $(B)/.e2e.log) $$([ $$rc = 0 ]; echo $$?)" \
			>> $(B)/.tally-e2e; [ $$rc = 0 ] || exit 1; done

check: all unit e2e fuzz-run bench-smoke report-check sanitize-quick
	$(Q)cat $(B)/.tally-unit $(B)/.tally-e2e $(B)/.tally-fuzz \
		$(B)/.tally-bench $(B)/.tally-report $(SAN_B)/.tally-sanitize | \
		awk '{ p += $$1; f += $$2 } END { printf "check: %d passed, %d failed\n", p, f }'

# ---- benchmarks: programs that print `bench: NAME VALUE UNIT` lines ----------
# BENCH_BINS run as they are; BENCH_SCRIPTS (with BENCH_DEPS built) get B.
# Each one's output is kept as $(B)/bench/NAME.out and the time series the
# scripts save (BENCH_SERIES) under $(B)/bench/series, for bench-report.
BENCH_OUT	:= $(B)/bench
bench: $(BENCH_BINS) $(BENCH_DEPS)
	$(Q)rm -rf $(BENCH_OUT) && mkdir -p $(BENCH_OUT)/series
	$(Q)for b in $(BENCH_BINS) $(BENCH_SCRIPTS); do \
		n=$$(basename $$b .sh); \
		case $$b in *.sh) set -- bash $$b ;; *) set -- $$b ;; esac; \
		( B=$(B) BENCH_SERIES=$(abspath $(BENCH_OUT))/series "$$@" 2>&1; \
		  echo $$? > $(BENCH_OUT)/.rc ) | tee $(BENCH_OUT)/$$n.out; \
		[ "$$(cat $(BENCH_OUT)/.rc)" = 0 ] || exit 1; done

# Every benchmark once, its output checked (part of check; needs root).
bench-smoke: $(BENCH_BINS) $(BENCH_DEPS)
	$(Q)echo "  BENCH    smoke"
	$(Q)B=$(B) bash test/bench/bench_smoke.sh "$(BENCH_BINS)" "$(BENCH_SCRIPTS)"

# ---- the benchmark report -----------------------------------------------------
# build/report/index.html, one self-contained page of plots (matplotlib) and
# tables from the last `make bench` ($(B)/bench), else the last bench-smoke.
REPORT_FROM	?= $(if $(wildcard $(BENCH_OUT)/*.out),$(BENCH_OUT),$(B)/bench-smoke)
bench-report:
	$(Q)/usr/bin/python3 test/bench/report/bench_report.py $(REPORT_FROM) $(B)/report

# The README's plot, regenerated from the last full report (never drawn by
# hand): doc/report-incast8-queue.png.
README_PLOT	:= incast8_queue
readme-plot: bench-report
	$(Q)cp $(B)/report/$(README_PLOT).png doc/report-$(subst _,-,$(README_PLOT)).png

# Part of check, after bench-smoke: the smoke run's report rendered by
# headless Chromium, every image loaded and showing data, these plots there.
REPORT_PLOTS	:= incast4_queue incast4_rates incast4_nscc multipath_dead \
		   latency_wire latency_local
report-check:
	$(Q)echo "  REPORT   check"
	$(Q)bash test/bench/report/report_check.sh $(B)/bench-smoke \
		$(B)/report-smoke "$(REPORT_PLOTS)"; rc=$$?; \
		echo "$$([ $$rc = 0 ]; echo $$((1 - $$?))) $$([ $$rc = 0 ]; echo $$?)" \
			> $(B)/.tally-report; exit $$rc

# ---- the main job -------------------------------------------------------------
# Two namespaces, a veth pair, the XDP program and the uet_write example over
# FI_PROVIDER=uet (tools/demo.sh). Needs root.
demo: deps all
	$(Q)B=$(B) bash tools/demo.sh

# ---- man pages ----------------------------------------------------------------
# fi_uet(7) gets its RUNTIME PARAMETERS from the provider's fi_param_define
# calls (man/params.sh), in place of the marker line of man/fi_uet.7, and
# its CONGESTION CONTROL from man/fi_uet-cc.roff and its LIMITS and
# LIMITATIONS from man/fi_uet-limits.roff (sources of their own: the whole
# would be over 1000 lines).
MAN_PAGES	:= $(B)/man/fi_uet.7 $(B)/man/uetctl.8 $(B)/man/uetd.8
PARAM_SRCS	:= $(shell grep -l fi_param_define uet/*.c)

$(B)/man/fi_uet.7: man/fi_uet.7 man/fi_uet-cc.roff man/fi_uet-limits.roff \
		  man/params.sh $(PARAM_SRCS)
	$(call msg,MAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)sh man/params.sh $(PARAM_SRCS) > $@.params
	$(Q)for m in RUNTIME_PARAMETERS CONGESTION_CONTROL LIMITS; do \
		grep -q "^\.\\\\\" @$$m@" $< || \
		{ echo "$<: no @$$m@ line" >&2; exit 1; }; done
	$(Q)sed -e '/^\.\\" @RUNTIME_PARAMETERS@/{r $@.params' -e 'd;}' \
		-e '/^\.\\" @CONGESTION_CONTROL@/{r man/fi_uet-cc.roff' -e 'd;}' \
		-e '/^\.\\" @LIMITS@/{r man/fi_uet-limits.roff' -e 'd;}' $< > $@
	$(Q)rm -f $@.params

$(B)/man/%.8: man/%.8
	$(call msg,MAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)cp $< $@

man: $(MAN_PAGES)
all: man

# ---- install ----------------------------------------------------------------
# Everything under $(DESTDIR)$(PREFIX) (PREFIX=/usr/local): uetctl and uetd
# in $(SBINDIR), the man pages, README.md, <rdma/fi_ext_uet.h> (the
# provider's extensions) in $(INCLUDEDIR), the systemd units (uetd@ naming
# $(SBINDIR)/uetd; uet-metrics@ and its timer, $(SBINDIR)/uetctl), except the provider and the dissector, which go where
# libfabric and tshark look for them whatever PREFIX is:
# The provider goes where libfabric looks for DL providers when
# FI_PROVIDER_PATH is not set, so that `fi_info -p uet`
# works with no environment: $(libdir)/libfabric of libfabric's pkg-config
# file (on Debian 12 /usr/lib/x86_64-linux-gnu/libfabric, also what
# PREFIX=/usr means), else $(LIBDIR)/libfabric. LIBFABRIC_PROV_DIR=DIR
# chooses; outside libfabric's own directory, FI_PROVIDER_PATH=DIR finds it.
# The dissector goes where tshark reads global Lua plugins, which on Debian is
# /usr/lib/<multiarch>/wireshark/plugins whatever PREFIX is: asked from tshark,
# else from wireshark's pkg-config file (its plugindir is the versioned folder
# for binary plugins, one level down), else $(LIBDIR)/wireshark/plugins.
# Set WIRESHARK_PLUGIN_DIR=DIR to choose.
# The unit goes to $(PREFIX)/lib/systemd/system (systemd reads
# /usr/local/lib/systemd/system too); SYSTEMD_UNIT_DIR=DIR chooses.
# Evaluated only by install and uninstall.
WS_LUA_DIR_TSHARK = $(shell tshark -G folders 2>/dev/null | \
		      sed -n 's/^Global Lua Plugins:[[:space:]]*//p')
WS_LUA_DIR_PC	= $(shell pkg-config --variable=plugindir wireshark 2>/dev/null | \
		      sed 's:/[0-9][0-9.]*$$::')
WIRESHARK_PLUGIN_DIR ?= $(or $(WS_LUA_DIR_TSHARK),$(WS_LUA_DIR_PC),$(LIBDIR)/wireshark/plugins)
FI_LIBDIR_PC	= $(shell pkg-config --variable=libdir libfabric 2>/dev/null)
LIBFABRIC_PROV_DIR ?= $(if $(FI_LIBDIR_PC),$(FI_LIBDIR_PC)/libfabric,$(LIBDIR)/libfabric)
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system

# What install puts where: "MODE SOURCE DIR" triples.
INSTALL_FILES	= 0755 $(B)/uetctl $(SBINDIR) \
		  0755 $(B)/uetd $(SBINDIR) \
		  0755 $(B)/libuet-fi.so $(LIBFABRIC_PROV_DIR) \
		  0644 tools/uet.lua $(WIRESHARK_PLUGIN_DIR) \
		  0644 tools/uet_ses.lua $(WIRESHARK_PLUGIN_DIR) \
		  0644 $(B)/man/fi_uet.7 $(MANDIR)/man7 \
		  0644 $(B)/man/uetctl.8 $(MANDIR)/man8 \
		  0644 $(B)/man/uetd.8 $(MANDIR)/man8 \
		  0644 include/rdma/fi_ext_uet.h $(INCLUDEDIR)/rdma \
		  0644 README.md $(DOCDIR)

install: all
	$(Q)set -e; set -- $(INSTALL_FILES); while [ $$# -gt 0 ]; do \
		printf '  %-8s %s\n' INSTALL "$(DESTDIR)$$3/$${2##*/}"; \
		install -d "$(DESTDIR)$$3"; \
		install -m "$$1" "$$2" "$(DESTDIR)$$3/$${2##*/}"; \
		shift 3; done
	$(call msg,INSTALL,$(DESTDIR)$(SYSTEMD_UNIT_DIR)/uetd@.service)
	$(Q)install -d $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	$(Q)sed 's:/usr/local/sbin/uetd:$(SBINDIR)/uetd:' tools/uetd@.service \
		> $(DESTDIR)$(SYSTEMD_UNIT_DIR)/uetd@.service
	$(Q)chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/uetd@.service
	$(call msg,INSTALL,$(DESTDIR)$(SYSTEMD_UNIT_DIR)/uet-metrics@.service)
	$(Q)sed 's:/usr/local/sbin/uetctl:$(SBINDIR)/uetctl:' \
		tools/uet-metrics@.service \
		> $(DESTDIR)$(SYSTEMD_UNIT_DIR)/uet-metrics@.service
	$(Q)chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/uet-metrics@.service
	$(call msg,INSTALL,$(DESTDIR)$(SYSTEMD_UNIT_DIR)/uet-metrics@.timer)
	$(Q)install -m 0644 tools/uet-metrics@.timer $(DESTDIR)$(SYSTEMD_UNIT_DIR)

# Removes what install put (same variables), and the folders it leaves
# empty among the ones of this project (the doc folder, libfabric's
# provider folder).
uninstall:
	$(Q)set -- $(INSTALL_FILES) 0644 uetd@.service $(SYSTEMD_UNIT_DIR) \
		0644 uet-metrics@.service $(SYSTEMD_UNIT_DIR) \
		0644 uet-metrics@.timer $(SYSTEMD_UNIT_DIR); \
	while [ $$# -gt 0 ]; do \
		printf '  %-8s %s\n' RM "$(DESTDIR)$$3/$${2##*/}"; \
		rm -f "$(DESTDIR)$$3/$${2##*/}"; shift 3; done
	$(Q)rmdir $(DESTDIR)$(DOCDIR) $(DESTDIR)$(LIBFABRIC_PROV_DIR) 2>/dev/null || :

# ---- Debian packages ----------------------------------------------------------
# `make deb`: debian/ with debhelper, built by dpkg-buildpackage from a copy
# of the tree in $(B)/deb/src, so that the packages land in $(B)/deb.
DEB_DIR		:= $(B)/deb
deb:
	$(call msg,DEB,$(DEB_DIR))
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	$(Q)tar -cf - --exclude=./$(B) --exclude=./$(SAN_B) --exclude=./.git . | \
		tar -xf - -C $(DEB_DIR)/src
	$(Q)cd $(DEB_DIR)/src && dpkg-buildpackage -b -us -uc \
		> ../build.log 2>&1 || { tail -40 ../build.log; exit 1; }
	$(Q)rm -rf $(DEB_DIR)/src
	$(Q)ls $(DEB_DIR)/*.deb | sed 's/^/  DEB      /'

# ---- Debian packages the build and tests need --------------------------------
DEB_PKGS	:= make gcc clang llvm libclang-rt-14-dev libcriterion-dev \
		   pkg-config libbpf-dev libxdp-dev bpftool libmnl-dev \
		   linux-libc-dev iproute2 xdp-tools tshark libpcap-dev \
		   libfabric-dev libfabric-bin iputils-ping netcat-openbsd \
		   openmpi-bin libopenmpi-dev libcap2-bin nftables \
		   debhelper dpkg-dev man-db libssl-dev libipsec-mb-dev \
		   autoconf automake libtool xz-utils python3-prometheus-client \
		   python3-matplotlib chromium libisal-dev iperf3 \
		   valgrind

deps:
	$(Q)missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "  DEPS     installing:" $$missing; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -q && apt-get install -y -q --no-install-recommends $$missing; \
	fi

clean:
	$(call msg,CLEAN,$(B))
	$(call msg,CLEAN,$(SAN_B))
	$(Q)rm -rf $(B) $(SAN_B)

-include $(shell find $(B) -name '*.d' 2>/dev/null)
