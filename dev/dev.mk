# SPDX-License-Identifier: BSD-2-Clause
# dev/: the AF_XDP device, shared by the provider's engine and the device
# service: UMEM and sockets (uet_xsk; their receive path uet_xsk_rx),
# Ethernet/IP/UDP framing (uet_frame), next hops from the kernel's tables
# (uet_nl), XDP program control (uet_xdp_ctl) and the capture mirror
# (uet_mirror).
DEV_SRCS	:= dev/uet_frame.c dev/uet_nl.c dev/uet_xsk.c dev/uet_xsk_rx.c \
		   dev/uet_xdp_ctl.c dev/uet_mirror.c

# uet_xdp_ctl.c includes the skeleton.
$(B)/dev/uet_xdp_ctl.o: $(B)/uet_xdp.skel.h
$(B)/dev/uet_xdp_ctl.o: CPPFLAGS += -I$(B)
DEV_SRCS	+= dev/uet_dev_shm.c
DEV_SRCS	+= dev/uet_dev_client.c
DEV_SRCS	+= dev/uet_fep_steer.c
DEV_SRCS	+= dev/uet_xdp_kptr.c	# the kptr tag clang 14 leaves out
DEV_SRCS	+= dev/uet_dev_opts.c	# settings uetctl and uetd both parse
DEV_SRCS	+= dev/uet_link.c	# the link rate, for CC's default
DEV_SRCS	+= dev/uet_dev_wake.c	# waking an endpoint that sleeps
