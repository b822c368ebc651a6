/* SPDX-License-Identifier: BSD-2-Clause */
/* Transmit-side capture mirror (see uet_mirror.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "dev/uet_mirror.h"

int uet_mirror_sock_name(struct sockaddr_un *addr, socklen_t *len,
			 const char *ifname)
{
	struct stat sb;
	int n;

	if (stat("/proc/self/ns/net", &sb) < 0)
		return -errno;
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	/* Abstract name: sun_path[0] is NUL, nothing on disk to clean. */
	n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1,
		     UET_XDP_CAPTURE_SOCK_FMT, (unsigned long)sb.st_ino, ifname);
	if (n < 0 || (size_t)n >= sizeof(addr->sun_path) - 1)
		return -ENAMETOOLONG;
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	return 0;
}

int uet_mirror_open(struct uet_mirror *m, const char *ifname, int ifindex,
		    int config_fd)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int ret;

	memset(m, 0, sizeof(*m));
	m->sock = -1;
	m->ifindex = ifindex;
	ret = uet_mirror_sock_name(&m->addr, &m->addr_len, ifname);
	if (ret < 0)
		return ret;
	p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, config_fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	m->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->sock < 0) {
		ret = -errno;
		munmap(p, (size_t)page);
		return ret;
	}
	m->cfg = p;
	return 0;
}

void uet_mirror_close(struct uet_mirror *m)
{
	if (m->cfg)
		munmap((void *)m->cfg, (size_t)sysconf(_SC_PAGESIZE));
	if (m->sock >= 0)
		close(m->sock);
	m->cfg = NULL;
	m->sock = -1;
}

void uet_mirror_frame(struct uet_mirror *m, const uint8_t *frame,
		      uint32_t len)
{
	struct timespec ts;
	struct uet_xdp_capture_hdr h = {
		.frame_len = len,
		.cap_len = len < UET_XDP_CAPTURE_SNAPLEN ? len :
						       UET_XDP_CAPTURE_SNAPLEN,
		.ifindex = (uint32_t)m->ifindex,
		.rx_queue = UET_XDP_CAPTURE_TX,
	};
	struct iovec iov[2] = { { &h, sizeof(h) },
				{ (void *)frame, h.cap_len } };
	struct msghdr msg = { .msg_name = &m->addr, .msg_namelen = m->addr_len,
			      .msg_iov = iov, .msg_iovlen = 2 };

	clock_gettime(CLOCK_MONOTONIC, &ts);
	h.ts_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (sendmsg(m->sock, &msg, MSG_DONTWAIT) < 0)
		m->lost++;
	else
		m->sent++;
}
