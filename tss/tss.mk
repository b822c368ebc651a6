# SPDX-License-Identifier: BSD-2-Clause
# tss/: the Transport Security Sublayer (AES-256-GCM on ipsec-mb, its KDF
# on libcrypto) and CRC32C (on ISA-L), included by the Makefile; linked
# into libuet_io.a (uet/uet.mk).
TSS_SRCS	:= tss/uet_tss_hdr.c tss/uet_tss_crypto.c tss/uet_tss_replay.c \
		   tss/uet_tss_ep.c tss/uet_tss_floor.c tss/uet_tss_gcm.c \
		   tss/uet_crc32c.c
TSS_OBJS	:= $(TSS_SRCS:%.c=$(B)/%.o)
TSS_LIBS	:= -lcrypto -lIPSec_MB -lisal

# Benchmark: seal and open against raw EVP AES-256-GCM (bench: lines).
BENCH_BINS	+= $(B)/bench_tss
$(B)/bench_tss: $(B)/test/bench/bench_tss.o $(TSS_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(TSS_LIBS)

# Benchmark: replayed packets accepted with 1200 and 100000 sender streams.
BENCH_BINS	+= $(B)/bench_tss_replay
$(B)/bench_tss_replay: $(B)/test/bench/bench_tss_replay.o $(TSS_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(TSS_LIBS)

# Benchmark: uet_crc32c against a direct call of ISA-L's crc32_iscsi.
BENCH_BINS	+= $(B)/bench_crc32c
$(B)/bench_crc32c: $(B)/test/bench/bench_crc32c.o $(B)/tss/uet_crc32c.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ -lisal

# Fuzz target: the header decoder (fuzz_decode.c's round trip).
FUZZ_TARGETS	+= uet_tss_hdr
TSS_FUZZ_OBJS	:= $(B)/fuzz/obj/tss/uet_tss_hdr.o
$(B)/fuzz/fuzz_uet_tss_hdr: test/fuzz/fuzz_decode.c $(TSS_FUZZ_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -DFUZZ_TARGET=uet_tss_hdr \
		-o $@ test/fuzz/fuzz_decode.c $(TSS_FUZZ_OBJS)
