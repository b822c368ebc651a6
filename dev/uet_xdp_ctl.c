/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Loading, unloading and inspecting the XDP program (see uet_xdp_ctl.h).
 * Maps are named through the skeleton and pinned per interface, so that
 * separate processes (uetctl, applications) share them.
 */
#include <errno.h>
#include <limits.h>
#include <linux/magic.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "dev/uet_xdp_ctl.h"
#include "uet_xdp.skel.h"

#define UET_XDP_BPFFS	"/sys/fs/bpf"
#define UET_XDP_PROG	"uet_xdp_prog"

static const char *const uet_xdp_counter_names[UET_XDP_CNT_MAX] = {
	[UET_XDP_CNT_SEEN] = "seen",
	[UET_XDP_CNT_REDIRECTED] = "redirected",
	[UET_XDP_CNT_PASSED] = "passed",
	[UET_XDP_CNT_MALFORMED] = "malformed",
	[UET_XDP_CNT_NO_SOCKET] = "no_socket",
	[UET_XDP_CNT_FAULT_DROPPED] = "fault_dropped",
	[UET_XDP_CNT_CAPTURED] = "captured",
	[UET_XDP_CNT_CAPTURE_LOST] = "capture_lost",
	[UET_XDP_CNT_TO_SERVICE] = "to_service",
	[UET_XDP_CNT_WRONG_QUEUE] = "wrong_queue",
	[UET_XDP_CNT_TSS_STEERED] = "tss_steered",
	[UET_XDP_CNT_TSS_TO_SERVICE] = "tss_to_service",
	[UET_XDP_CNT_TSS_READ] = "tss_read",
	[UET_XDP_CNT_TSS_NO_CTX] = "tss_no_ctx",
	[UET_XDP_CNT_TSS_KS_HIT] = "tss_ks_hit",
	[UET_XDP_CNT_TSS_KS_ASKED] = "tss_ks_asked",
};

const char *uet_xdp_counter_name(unsigned int id)
{
	return id < UET_XDP_CNT_MAX ? uet_xdp_counter_names[id] : NULL;
}

/* The maps of the skeleton, in the order of struct uet_xdp_maps. */
static void uet_xdp_skel_maps(struct uet_xdp *skel, struct bpf_map *maps[4])
{
	maps[0] = skel->maps.uet_xdp_xsks;
	maps[1] = skel->maps.uet_xdp_counters;
	maps[2] = skel->maps.uet_xdp_config;
	maps[3] = skel->maps.uet_xdp_capture;
}

/* libbpf's note on libxdp's .xdp_run_config section, and no other. */
static int uet_xdp_open_print(enum libbpf_print_level level, const char *fmt,
			      va_list ap)
{
	if (level == LIBBPF_WARN && !strstr(fmt, "unrecognized data section"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/*
 * Opens (never loads) the skeleton to learn its map names. libbpf notes
 * the section that libxdp reads; applications should not see that, so its
 * printer is swapped for the moment of the parse (a process-wide setting:
 * an application thread logging through libbpf meanwhile would lose lines).
 */
static struct uet_xdp *uet_xdp_names_open(void)
{
	libbpf_print_fn_t old = libbpf_set_print(uet_xdp_open_print);
	struct uet_xdp *skel = uet_xdp__open();
	int err = errno;

	libbpf_set_print(old);
	errno = err;
	return skel;
}

const char *uet_xdp_bpffs(void)
{
	const char *root = getenv("UET_BPFFS");

	return root && *root ? root : UET_XDP_BPFFS;
}

int uet_xdp_pin_dir(char *buf, size_t len)
{
	struct stat sb;
	int n;

	if (stat("/proc/self/ns/net", &sb) < 0)
		return -errno;
	n = snprintf(buf, len, "%s/uet/ns%lu", uet_xdp_bpffs(),
		     (unsigned long)sb.st_ino);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* <pin dir>/IFACE, or <pin dir>/IFACE/MAP when |map_name| is given. */
static int uet_xdp_pin_path(char *buf, size_t len, const char *ifname,
			    const char *map_name)
{
	char dir[PATH_MAX];
	int n, ret = uet_xdp_pin_dir(dir, sizeof(dir));

	if (ret < 0)
		return ret;
	n = map_name ? snprintf(buf, len, "%s/%s/%s", dir, ifname, map_name) :
		       snprintf(buf, len, "%s/%s", dir, ifname);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int uet_xdp_bpffs_ensure(void)
{
	const char *root = uet_xdp_bpffs();
	struct statfs sfs;

	if (statfs(root, &sfs) == 0 && sfs.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", root, "bpf", 0, "mode=0700") < 0)
		return -errno;
	return 0;
}

/* Creates <bpffs>/uet/ns<ino>/IFACE, one level at a time. */
static int uet_xdp_pin_mkdirs(const char *ifname)
{
	char path[PATH_MAX];
	int n;

	n = snprintf(path, sizeof(path), "%s/uet", uet_xdp_bpffs());
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (uet_xdp_pin_dir(path, sizeof(path)) < 0 ||
	    (mkdir(path, 0700) < 0 && errno != EEXIST))
		return -errno;
	if (uet_xdp_pin_path(path, sizeof(path), ifname, NULL) < 0 ||
	    mkdir(path, 0700) < 0)
		return -errno;
	return 0;
}

/* Removes the pins of |ifname|; quiet about what is already gone. */
static void uet_xdp_unpin(const char *ifname)
{
	struct uet_xdp *skel = uet_xdp_names_open();
	struct bpf_map *map;
	char path[PATH_MAX];

	if (skel) {
		bpf_object__for_each_map(map, skel->obj)
			if (!bpf_map__is_internal(map) &&
			    !uet_xdp_pin_path(path, sizeof(path), ifname,
					      bpf_map__name(map)))
				unlink(path);
		uet_xdp__destroy(skel);
	}
	/* The directories go only when empty. */
	if (!uet_xdp_pin_path(path, sizeof(path), ifname, NULL))
		rmdir(path);
	if (!uet_xdp_pin_dir(path, sizeof(path)))
		rmdir(path);
	if (snprintf(path, sizeof(path), "%s/uet", uet_xdp_bpffs()) > 0)
		rmdir(path);
}

void uet_xdp_pins_remove(const char *ifname)
{
	uet_xdp_unpin(ifname);
}

/* Our program on |ifindex|, looked up among the dispatcher's programs. */
static struct xdp_program *uet_xdp_find(struct xdp_multiprog *mp)
{
	struct xdp_program *p;

	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		return p && !strcmp(xdp_program__name(p), UET_XDP_PROG) ? p :
									   NULL;
	}
	for (p = xdp_multiprog__next_prog(NULL, mp); p;
	     p = xdp_multiprog__next_prog(p, mp))
		if (!strcmp(xdp_program__name(p), UET_XDP_PROG))
			return p;
	return NULL;
}

/* Whether our program is attached to |ifindex|. */
static bool uet_xdp_attached(int ifindex)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	bool found;

	if (libxdp_get_error(mp) || !mp)
		return false;
	found = uet_xdp_find(mp) != NULL;
	xdp_multiprog__close(mp);
	return found;
}

static int uet_xdp_ifindex(const char *ifname, bool need_root)
{
	int ifindex;

	if (need_root && geteuid() != 0)
		return -EPERM;
	ifindex = (int)if_nametoindex(ifname);
	return ifindex ? ifindex : -ENODEV;
}

static int uet_xdp_attach(struct uet_xdp *skel, int ifindex,
			  enum uet_xdp_mode mode)
{
	struct xdp_program *prog;
	int ret;

	prog = xdp_program__from_bpf_obj(skel->obj, NULL);
	ret = (int)libxdp_get_error(prog);
	if (ret)
		return ret;
	ret = xdp_program__attach(prog, ifindex,
				  mode == UET_XDP_MODE_SKB ? XDP_MODE_SKB :
							     XDP_MODE_NATIVE,
				  0);
	xdp_program__close(prog);
	return ret;
}

int uet_xdp_load(const char *ifname, enum uet_xdp_mode mode,
		 uint16_t udp_port, unsigned int ep_bits)
{
	int ifindex = uet_xdp_ifindex(ifname, true);
	struct uet_xdp_cfg cfg = { .udp_port = udp_port, .mode = mode };
	struct uet_xdp_maps m;
	struct uet_xdp *skel;
	struct bpf_map *map;
	char path[PATH_MAX];
	struct stat sb;
	int ret;

	if (ifindex < 0)
		return ifindex;
	if (ep_bits < UET_FEP_EP_BITS_MIN || ep_bits > UET_FEP_EP_BITS_MAX)
		return -EINVAL;
	ret = uet_xdp_bpffs_ensure();
	if (ret < 0)
		return ret;
	if (uet_xdp_pin_path(path, sizeof(path), ifname, NULL) < 0)
		return -ENAMETOOLONG;
	if (stat(path, &sb) == 0)
		return -EEXIST;
	/*
	 * Ours already attached, whatever bpffs its pins are in (another
	 * shell's: `ip netns exec` mounts one of its own): already loaded,
	 * and nothing of it may be touched.
	 */
	if (uet_xdp_attached(ifindex))
		return -EEXIST;
	/* libbpf pins into existing directories only. */
	ret = uet_xdp_pin_mkdirs(ifname);
	if (ret < 0)
		return ret;
	skel = uet_xdp__open();
	if (!skel) {
		ret = -errno;
		uet_xdp_unpin(ifname);
		return ret;
	}
	skel->rodata->uet_udp_port = udp_port;
	skel->rodata->uet_ep_shift = 16 - ep_bits;
	ret = uet_xdp_kptr_fix(skel->obj);
	if (ret < 0) {
		uet_xdp__destroy(skel);
		uet_xdp_unpin(ifname);
		return ret;
	}
	/* Every map of the program, so that tools and the service reach it. */
	bpf_object__for_each_map(map, skel->obj) {
		if (bpf_map__is_internal(map))
			continue;
		uet_xdp_pin_path(path, sizeof(path), ifname,
				 bpf_map__name(map));
		bpf_map__set_pin_path(map, path);
	}
	ret = uet_xdp_attach(skel, ifindex, mode);
	uet_xdp__destroy(skel);
	/*
	 * "Already loaded" was ruled out above, so -EEXIST here is the kernel
	 * refusing the attach (another program, or the other mode, holds the
	 * interface): say busy, and undo the pins as for any failure.
	 */
	if (ret == -EEXIST)
		ret = -EBUSY;
	/* Not attached: only our pins to undo, never what holds the link. */
	if (ret < 0) {
		uet_xdp_unpin(ifname);
		return ret;
	}
	ret = uet_xdp_maps_open(ifname, &m);
	if (ret == 0) {
		ret = uet_xdp_cfg_write(&m, &cfg);
		uet_xdp_maps_close(&m);
	}
	if (ret < 0) {
		uet_xdp_unload(ifname);
		uet_xdp_unpin(ifname);
	}
	return ret;
}

int uet_xdp_unload(const char *ifname)
{
	int ifindex = uet_xdp_ifindex(ifname, true);
	struct xdp_multiprog *mp;
	struct xdp_program *prog = NULL;
	struct uet_xdp_status st;
	int ret = 0;

	if (ifindex < 0)
		return ifindex;
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (!libxdp_get_error(mp) && mp)
		prog = uet_xdp_find(mp);
	if (prog)
		ret = xdp_program__detach(prog, ifindex,
					  xdp_multiprog__attach_mode(mp), 0);
	if (!libxdp_get_error(mp) && mp)
		xdp_multiprog__close(mp);
	if (!prog && uet_xdp_status_get(ifname, &st) == -ENOENT)
		return -ENOENT;
	/* A program still attached keeps its maps: only unpin when gone. */
	if (ret == 0)
		uet_xdp_unpin(ifname);
	return ret;
}

int uet_xdp_status_get(const char *ifname, struct uet_xdp_status *st)
{
	int ifindex = uet_xdp_ifindex(ifname, false);
	struct xdp_multiprog *mp;
	struct xdp_program *prog;
	struct uet_xdp_maps m;

	memset(st, 0, sizeof(*st));
	if (ifindex < 0)
		return ifindex;
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (!libxdp_get_error(mp) && mp) {
		prog = uet_xdp_find(mp);
		st->other_progs = xdp_multiprog__is_legacy(mp) ? !prog :
			xdp_multiprog__program_count(mp) - (prog ? 1 : 0);
		if (prog) {
			st->attached = true;
			st->prog_id = xdp_program__id(prog);
			st->mode = xdp_multiprog__attach_mode(mp) ==
				   XDP_MODE_SKB ? UET_XDP_MODE_SKB :
						  UET_XDP_MODE_NATIVE;
		}
		xdp_multiprog__close(mp);
	}
	if (uet_xdp_maps_open(ifname, &m) == 0) {
		st->pinned = true;
		uet_xdp_cfg_read(&m, &st->cfg);
		st->udp_port = st->cfg.udp_port;
		uet_xdp_maps_close(&m);
	}
	return st->attached || st->pinned ? 0 : -ENOENT;
}

int uet_xdp_maps_open(const char *ifname, struct uet_xdp_maps *m)
{
	struct uet_xdp *skel = uet_xdp_names_open();
	int *fds[4] = { &m->xsks, &m->counters, &m->config, &m->capture };
	struct bpf_map *maps[4];
	char path[PATH_MAX];
	int ret = 0;

	for (int i = 0; i < 4; i++)
		*fds[i] = -1;
	if (!skel)
		return -errno;
	uet_xdp_skel_maps(skel, maps);
	for (int i = 0; i < 4 && ret == 0; i++) {
		ret = uet_xdp_pin_path(path, sizeof(path), ifname,
				       bpf_map__name(maps[i]));
		if (ret == 0 && (*fds[i] = bpf_obj_get(path)) < 0)
			ret = errno == ENOENT ? -ENOENT : -errno;
	}
	uet_xdp__destroy(skel);
	if (ret < 0)
		uet_xdp_maps_close(m);
	return ret;
}

int uet_xdp_map_open(const char *ifname, const char *name)
{
	char path[PATH_MAX];
	int fd, ret = uet_xdp_pin_path(path, sizeof(path), ifname, name);

	if (ret < 0)
		return ret;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

void uet_xdp_maps_close(struct uet_xdp_maps *m)
{
	int *fds[4] = { &m->xsks, &m->counters, &m->config, &m->capture };

	for (int i = 0; i < 4; i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int uet_xdp_counters_read(const struct uet_xdp_maps *m, uint64_t *cnt)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;
	int ret = 0;

	if (ncpu <= 0)
		return ncpu < 0 ? ncpu : -EINVAL;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t id = 0; id < UET_XDP_CNT_MAX && ret == 0; id++) {
		cnt[id] = 0;
		if (bpf_map_lookup_elem(m->counters, &id, vals) < 0) {
			ret = -errno;
			break;
		}
		for (int c = 0; c < ncpu; c++)
			cnt[id] += vals[c];
	}
	free(vals);
	return ret;
}

int uet_xdp_cfg_read(const struct uet_xdp_maps *m, struct uet_xdp_cfg *cfg)
{
	uint32_t key = 0;

	return bpf_map_lookup_elem(m->config, &key, cfg) < 0 ? -errno : 0;
}

int uet_xdp_cfg_write(const struct uet_xdp_maps *m,
		      const struct uet_xdp_cfg *cfg)
{
	uint32_t key = 0;

	return bpf_map_update_elem(m->config, &key, cfg, BPF_ANY) < 0 ? -errno :
									0;
}
