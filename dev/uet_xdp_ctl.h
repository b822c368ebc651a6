/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Control of the XDP program on an interface: load through libxdp (so it
 * shares the interface with other XDP programs), unload, and reach its
 * pinned maps from any process: uetctl, the provider's engine, tests.
 *
 * Pins live in <bpffs>/uet/ns<netns inode>/IFACE/, where <bpffs> is
 * $UET_BPFFS or /sys/fs/bpf: interface names are per network namespace,
 * and `ip netns exec` remounts /sys (hiding /sys/fs/bpf), so tools run that
 * way share pins only through a bpffs mounted elsewhere, named by UET_BPFFS.
 */
#ifndef UET_XDP_CTL_H
#define UET_XDP_CTL_H

#include <stdbool.h>
#include <stdint.h>

#include "uet_xdp_shared.h"


enum uet_xdp_mode {
	UET_XDP_MODE_NATIVE = 1,
	UET_XDP_MODE_SKB = 2,
};

/* File descriptors of the pinned maps of one interface. */
struct uet_xdp_maps {
	int xsks;
	int counters;
	int config;
	int capture;
};

struct uet_xdp_status {
	bool attached;		/* our program runs on the interface */
	bool pinned;		/* our maps are pinned */
	enum uet_xdp_mode mode;
	uint32_t prog_id;
	uint16_t udp_port;
	int other_progs;	/* other programs on the interface */
	struct uet_xdp_cfg cfg;
};

/* The bpffs root in use ($UET_BPFFS or /sys/fs/bpf). */
const char *uet_xdp_bpffs(void);

/* The pin directory of this network namespace; 0 or -errno. */
int uet_xdp_pin_dir(char *buf, size_t len);

/*
 * uet_xdp_load() attaches the program to |ifname| in |mode|, steering UDP
 * destination port |udp_port| by endpoint indices of |ep_bits| bits
 * (include/uet_fep.h), and pins its maps; mounts bpffs if needed.
 * Returns 0, -EPERM (not root), -ENODEV (no such interface), -EEXIST
 * (already loaded), -EINVAL (|ep_bits| out of range) or another negative
 * errno from libbpf/libxdp.
 */
int uet_xdp_load(const char *ifname, enum uet_xdp_mode mode,
		 uint16_t udp_port, unsigned int ep_bits);

/*
 * uet_xdp_unload() detaches the program from |ifname| and removes its pins.
 * Returns 0, -EPERM, -ENODEV, -ENOENT (not loaded) or another -errno.
 */
int uet_xdp_unload(const char *ifname);

/*
 * uet_xdp_pins_remove() removes the pins of |ifname| when the program is
 * gone with its interface (deleted), which uet_xdp_unload() cannot reach.
 */
void uet_xdp_pins_remove(const char *ifname);

/* uet_xdp_status_get() fills |st|; 0, -ENODEV or -ENOENT (not loaded). */
int uet_xdp_status_get(const char *ifname, struct uet_xdp_status *st);

/*
 * uet_xdp_maps_open() opens the pinned maps of |ifname|; close them with
 * uet_xdp_maps_close(). Returns 0, -ENOENT (not loaded) or -errno.
 */
int uet_xdp_maps_open(const char *ifname, struct uet_xdp_maps *m);
void uet_xdp_maps_close(struct uet_xdp_maps *m);

/* Opens the pinned map |name| of |ifname|: its fd, or -errno. */
int uet_xdp_map_open(const char *ifname, const char *name);

/* Sums the per-CPU counters into |cnt| (UET_XDP_CNT_MAX entries). */
int uet_xdp_counters_read(const struct uet_xdp_maps *m, uint64_t *cnt);

/* Reads or writes the run-time settings (fault injector, capture tap). */
int uet_xdp_cfg_read(const struct uet_xdp_maps *m, struct uet_xdp_cfg *cfg);
int uet_xdp_cfg_write(const struct uet_xdp_maps *m,
		      const struct uet_xdp_cfg *cfg);

/* Names of the counters, for output ("seen", "redirected", ...). */
const char *uet_xdp_counter_name(unsigned int id);

struct bpf_object;

/*
 * uet_xdp_kptr_fix() tags the XDP program's AES context field as a kptr
 * in |obj|'s BTF (opened, not loaded: dev/uet_xdp_kptr.c says why). Call
 * it on any object that holds uet_xdp_tss_ctx. 0 or -errno.
 */
int uet_xdp_kptr_fix(struct bpf_object *obj);

#endif /* UET_XDP_CTL_H */
