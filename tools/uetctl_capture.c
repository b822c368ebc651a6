/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uetctl capture: record the UET frames the XDP program steers to AF_XDP
 * (which tcpdump cannot see) into a pcap file, through the program's
 * capture tap, and the frames engines send, which they mirror to us (see
 * dev/uet_mirror.h); both are switched on only while a capture runs.
 */
#include <errno.h>
#include <poll.h>
/* pcap/bpf.h clashes with linux/bpf.h, which libbpf needs. */
#define PCAP_DONT_INCLUDE_PCAP_BPF_H
#include <pcap/dlt.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "tools/uetctl.h"
#include "dev/uet_mirror.h"
#include "dev/uet_xdp_ctl.h"

struct uetctl_cap {
	bool discard;		/* drop records (left from an earlier run) */
	int mirror_fd;		/* engines' sent frames, or -1 */
	pcap_t *pcap;
	pcap_dumper_t *dump;
	uint64_t mono_to_real_ns;	/* add to a monotonic timestamp */
	uint64_t frames, max_frames;
};

static volatile sig_atomic_t uetctl_cap_stop;

static void uetctl_cap_signal(int sig)
{
	(void)sig;
	uetctl_cap_stop = 1;
}

static uint64_t uetctl_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One ring buffer record: a header, then cap_len bytes of the frame. */
static int uetctl_cap_record(void *ctx, void *data, size_t size)
{
	struct uetctl_cap *c = ctx;
	struct uet_xdp_capture_hdr h;
	struct pcap_pkthdr ph;
	uint64_t ts;

	if (c->discard || size < sizeof(h) ||
	    (c->max_frames && c->frames >= c->max_frames))
		return 0;
	memcpy(&h, data, sizeof(h));
	if (h.cap_len > size - sizeof(h))
		h.cap_len = (uint32_t)(size - sizeof(h));
	ts = h.ts_ns + c->mono_to_real_ns;
	ph.ts.tv_sec = (time_t)(ts / 1000000000ull);
	ph.ts.tv_usec = (suseconds_t)(ts % 1000000000ull);	/* ns file */
	ph.caplen = h.cap_len;
	ph.len = h.frame_len;
	pcap_dump((u_char *)c->dump, &ph, (const u_char *)data + sizeof(h));
	c->frames++;
	return 0;
}

/* Binds the socket engines mirror their sent frames to (see uet_mirror.h). */
static void uetctl_cap_mirror_bind(struct uetctl_cap *c, const char *ifname)
{
	struct sockaddr_un addr;
	socklen_t len;
	int rcvbuf = 4 << 20;

	c->mirror_fd = -1;
	if (uet_mirror_sock_name(&addr, &len, ifname) < 0)
		return;
	c->mirror_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK |
			      SOCK_CLOEXEC, 0);
	if (c->mirror_fd < 0)
		return;
	setsockopt(c->mirror_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
		   sizeof(rcvbuf));
	if (bind(c->mirror_fd, (struct sockaddr *)&addr, len) < 0) {
		close(c->mirror_fd);
		c->mirror_fd = -1;
	}
}

/* Drains the mirror socket into the file. */
static void uetctl_cap_mirror_drain(struct uetctl_cap *c)
{
	uint8_t buf[sizeof(struct uet_xdp_capture_hdr) +
		    UET_XDP_CAPTURE_SNAPLEN];
	ssize_t n;

	if (c->mirror_fd < 0)
		return;
	while ((n = recv(c->mirror_fd, buf, sizeof(buf), 0)) > 0)
		uetctl_cap_record(c, buf, (size_t)n);
}

static int uetctl_cap_open(struct uetctl_cap *c, const char *path)
{
	c->pcap = pcap_open_dead_with_tstamp_precision(
		DLT_EN10MB, UET_XDP_CAPTURE_SNAPLEN, PCAP_TSTAMP_PRECISION_NANO);
	if (!c->pcap)
		return -ENOMEM;
	c->dump = pcap_dump_open(c->pcap, path);
	if (!c->dump) {
		/* libpcap's message names the file: "PATH: reason". */
		fprintf(stderr, "uetctl capture: %s\n", pcap_geterr(c->pcap));
		pcap_close(c->pcap);
		return -EIO;
	}
	c->mono_to_real_ns = uetctl_clock_ns(CLOCK_REALTIME) -
			     uetctl_clock_ns(CLOCK_MONOTONIC);
	return 0;
}

/* Taps frames until a limit or a signal; the tap is off again on return. */
static int uetctl_cap_run(struct uet_xdp_maps *m, struct uetctl_cap *c,
			  double duration_s)
{
	uint64_t end = duration_s > 0 ?
		uetctl_clock_ns(CLOCK_MONOTONIC) +
			(uint64_t)(duration_s * 1e9) : 0;
	struct ring_buffer *rb;
	struct uet_xdp_cfg cfg;
	int ret = uet_xdp_cfg_read(m, &cfg);

	if (ret < 0)
		return ret;
	/* cfg.capture holds the capturing pid; a dead one's is stale. */
	if (cfg.capture && (kill((pid_t)cfg.capture, 0) == 0 || errno != ESRCH))
		return -EBUSY;
	rb = ring_buffer__new(m->capture, uetctl_cap_record, c, NULL);
	if (!rb)
		return -errno;
	/* Records left from an earlier, interrupted capture are not ours. */
	c->discard = true;
	ring_buffer__consume(rb);
	uetctl_cap_mirror_drain(c);
	c->discard = false;
	c->frames = 0;
	cfg.capture = (uint32_t)getpid();
	ret = uet_xdp_cfg_write(m, &cfg);
	while (ret == 0 && !uetctl_cap_stop &&
	       (!c->max_frames || c->frames < c->max_frames) &&
	       (!end || uetctl_clock_ns(CLOCK_MONOTONIC) < end)) {
		struct pollfd pfd[2] = {
			{ .fd = ring_buffer__epoll_fd(rb), .events = POLLIN },
			{ .fd = c->mirror_fd, .events = POLLIN },
		};

		if (poll(pfd, 2, 100) < 0 && errno != EINTR)
			ret = -errno;
		if (ring_buffer__consume(rb) < 0 && ret == 0)
			ret = -EIO;
		uetctl_cap_mirror_drain(c);
	}
	cfg.capture = 0;
	if (uet_xdp_cfg_write(m, &cfg) < 0 && ret == 0)
		ret = -errno;
	ring_buffer__consume(rb);	/* what was in flight at the stop */
	uetctl_cap_mirror_drain(c);
	ring_buffer__free(rb);
	return ret;
}

/* Runs tshark on |path| (with $UET_DISSECTOR when set) for a summary. */
static int uetctl_cap_decode(const char *path)
{
	const char *lua = getenv("UET_DISSECTOR");
	char script[4096];

	fflush(stdout);
	if (lua && *lua) {
		snprintf(script, sizeof(script), "lua_script:%s", lua);
		execlp("tshark", "tshark", "-n", "-r", path, "-X", script,
		       (char *)NULL);
	} else {
		execlp("tshark", "tshark", "-n", "-r", path, (char *)NULL);
	}
	fprintf(stderr, "uetctl capture: --decode needs tshark: %s\n",
		strerror(errno));
	return 1;
}

int uetctl_capture(const char *ifname, const char *path, long count,
		   double duration_s, bool decode)
{
	struct sigaction sa = { .sa_handler = uetctl_cap_signal };
	struct uetctl_cap c = { .mirror_fd = -1,
				.max_frames = count > 0 ? (uint64_t)count : 0 };
	struct uet_xdp_maps m;
	uint64_t lost[UET_XDP_CNT_MAX], before = 0;
	int ret;

	ret = uet_xdp_maps_open(ifname, &m);
	if (ret < 0)
		return uetctl_fail("capture", ifname, ret);
	if (uet_xdp_counters_read(&m, lost) == 0)
		before = lost[UET_XDP_CNT_CAPTURE_LOST];
	ret = uetctl_cap_open(&c, path);
	uetctl_cap_mirror_bind(&c, ifname);
	if (ret < 0) {
		if (c.mirror_fd >= 0)
			close(c.mirror_fd);
		uet_xdp_maps_close(&m);
		return ret == -EIO ? 1 : uetctl_fail("capture", ifname, ret);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = uetctl_cap_run(&m, &c, duration_s);
	pcap_dump_close(c.dump);
	pcap_close(c.pcap);
	if (c.mirror_fd >= 0)
		close(c.mirror_fd);
	if (uet_xdp_counters_read(&m, lost) < 0)
		lost[UET_XDP_CNT_CAPTURE_LOST] = before;
	uet_xdp_maps_close(&m);
	if (ret == -EBUSY) {
		fprintf(stderr, "uetctl capture: %s: a capture is already "
			"running\n", ifname);
		return 1;
	}
	if (ret < 0)
		return uetctl_fail("capture", ifname, ret);
	printf("uetctl: %llu frames captured on %s to %s (%llu lost)\n",
	       (unsigned long long)c.frames, ifname, path,
	       (unsigned long long)(lost[UET_XDP_CNT_CAPTURE_LOST] - before));
	return decode ? uetctl_cap_decode(path) : 0;
}
