# SPDX-License-Identifier: BSD-2-Clause
# Sanitizers (issue 43). `make sanitize` builds the provider, the engine,
# the tools, the test programs and the unit tests with ASan and UBSan
# (SANITIZE, in the Makefile: clang, its shared runtime) into build-san/,
# then runs the unit tests and SAN_E2E under test/san/san_run.sh, which
# fails on any report of any process, even one a script ignores.
# `make sanitize-quick` is its short subset, for CI: the unit tests and
# SAN_E2E_QUICK.
SAN_KINDS	:= address,undefined
SAN_B		:= build-san
SAN_UNIT	:= $(UNIT_BINS:$(B)/%=$(SAN_B)/%)

# The e2e scripts that run only programs built here (the test programs,
# the examples, uetctl, uetd): every one of those, so far as it passes
# under the sanitizers. Left out: the scripts that run programs not built
# here that load libuet-fi.so (Debian's fi_info and fi_pingpong: e2e_provider,
# e2e_fi_programs, e2e_deb; Open MPI's ranks: e2e_mpi*, e2e_local_idle,
# e2e_multipath; libfabric 2.6 and the fabtests: e2e_libfabric2,
# fabtests.sh), which would need the ASan runtime preloaded into them;
# and e2e_soak, volumes against time limits that ASan's slowdown exceeds
# (30% loss, 256 MiB: past its 180 s), whose fi_soak e2e_kill runs.
SAN_E2E		:= test/e2e/e2e_xsk.sh test/e2e/e2e_uetctl.sh \
		   test/e2e/e2e_capture.sh test/e2e/e2e_engine.sh \
		   test/e2e/e2e_fi_rma.sh test/e2e/e2e_cc.sh test/e2e/e2e_rudi.sh \
		   test/e2e/e2e_fi_msg.sh test/e2e/e2e_fi_atomic.sh \
		   test/e2e/e2e_fi_amo_window.sh test/e2e/e2e_fep.sh \
		   test/e2e/e2e_prom.sh test/e2e/e2e_eps.sh test/e2e/e2e_local.sh \
		   test/e2e/e2e_local_users.sh test/e2e/e2e_policy.sh \
		   test/e2e/e2e_returning.sh test/e2e/e2e_flood.sh \
		   test/e2e/e2e_replay.sh test/e2e/e2e_load_twice.sh \
		   test/e2e/e2e_uetd_restart.sh \
		   test/e2e/e2e_kill.sh test/e2e/e2e_kill_local.sh \
		   test/e2e/e2e_neigh.sh test/e2e/e2e_rdmo.sh \
		   test/e2e/e2e_zerocopy.sh test/e2e/e2e_multiqueue.sh \
		   test/e2e/e2e_fabric.sh test/e2e/e2e_port_model.sh \
		   test/e2e/e2e_tss.sh test/e2e/e2e_tss_keys.sh \
		   test/e2e/e2e_tss_eps.sh test/e2e/e2e_tss_trim.sh \
		   test/e2e/e2e_top.sh test/e2e/e2e_scale.sh \
		   test/e2e/e2e_dissector.sh
# The most of our code in the least time: RMA between namespaces (AF_XDP,
# PDC, SES, MR keys, refusals, loss), messaging, and the local channel
# with messaging, RMA, atomics and RDMO.
SAN_E2E_QUICK	:= test/e2e/e2e_fi_rma.sh test/e2e/e2e_fi_msg.sh \
		   test/e2e/e2e_local.sh
# What those scripts run that `all` does not build.
SAN_E2E_BINS	:= xsk_peer engine_peer

# $(MAKE) spelt out in the recipe, so that the sub-make shares -j.
.PHONY: sanitize sanitize-quick sanitize-build
sanitize-build:
	$(Q)$(MAKE) --no-print-directory B=$(SAN_B) SANITIZE=$(SAN_KINDS) \
		all $(SAN_UNIT) $(SAN_E2E_BINS:%=$(SAN_B)/%)

sanitize: sanitize-build
	$(Q)B=$(SAN_B) bash test/san/san_run.sh $(SAN_UNIT) $(SAN_E2E)

sanitize-quick: sanitize-build
	$(Q)B=$(SAN_B) bash test/san/san_run.sh $(SAN_UNIT) $(SAN_E2E_QUICK)

# Criterion's runner leaks (san_criterion.c): the unit tests of an ASan
# build link the fix.
ifneq ($(findstring address,$(SANITIZE)),)
$(UNIT_BINS): $(B)/test/san/san_criterion.o
endif
