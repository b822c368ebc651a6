# SPDX-License-Identifier: BSD-2-Clause
# engine/: the transport engine of one endpoint: SES over PDC over the
# AF_XDP device; independent of libfabric.
ENGINE_SRCS	:= engine/uet_engine.c engine/uet_engine_io.c engine/uet_engine_held.c engine/uet_engine_gen.c \
		   engine/uet_engine_rx.c engine/uet_engine_peer.c \
		   engine/uet_engine_probe.c \
		   engine/uet_engine_peer_tbl.c \
		   engine/uet_engine_neigh.c engine/uet_engine_stats.c \
		   engine/uet_engine_tss.c \
		   engine/uet_engine_local.c engine/uet_engine_wake.c \
		   engine/uet_engine_local_rx.c engine/uet_lch.c \
		   engine/uet_engine_rudi.c engine/uet_engine_pub.c \
		   engine/uet_engine_trace.c engine/uet_engine_trace_fmt.c
